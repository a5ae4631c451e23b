"""Exercise 08 (layers.py) written unlike the reference: Linear and ReLU call
torch.nn.functional, Linear's bias bound comes from the weight's fan-in as
torch computes it, BatchNorm1d's statistics are sums divided by counts over a
flattened view, and its running estimates are updated with torch.lerp."""


class Linear:
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        factory = {"device": device, "dtype": dtype}
        self.weight = Parameter(torch.empty(out_features, in_features, **factory))
        if bias:
            self.bias = Parameter(torch.empty(out_features, **factory))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        torch.nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1]
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            torch.nn.init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return torch.nn.functional.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return "in_features={}, out_features={}, bias={}".format(self.in_features, self.out_features,
                                                                  self.bias is not None)


class ReLU:
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return torch.nn.functional.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return {True: "inplace=True", False: ""}[bool(self.inplace)]


class BatchNorm1d:
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__()
        vars(self).update(num_features=num_features, eps=eps, momentum=momentum, affine=affine,
                          track_running_stats=track_running_stats)
        factory = {"device": device, "dtype": dtype}
        learned = {"weight": affine, "bias": affine and bias}
        for name, wanted in learned.items():
            self.register_parameter(name, Parameter(torch.empty(num_features, **factory)) if wanted else None)
        statistics = {
            "running_mean": lambda: torch.zeros(num_features, **factory),
            "running_var": lambda: torch.ones(num_features, **factory),
            "num_batches_tracked": lambda: torch.zeros((), dtype=torch.long, device=device),
        }
        for name, make in statistics.items():
            self.register_buffer(name, make() if track_running_stats else None)
        self.reset_parameters()

    def reset_running_stats(self):
        if not self.track_running_stats:
            return
        for name, value in (("running_mean", 0), ("running_var", 1), ("num_batches_tracked", 0)):
            getattr(self, name).fill_(value)

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            with torch.no_grad():
                self.weight.fill_(1)
                if self.bias is not None:
                    self.bias.zero_()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        counter_key = f"{prefix}num_batches_tracked"
        version = local_metadata.get("version")
        old_checkpoint = version is None or version < 2
        if old_checkpoint and self.track_running_stats and counter_key not in state_dict:
            counter = self.num_batches_tracked
            if counter is None or counter.is_meta:
                counter = torch.tensor(0, dtype=torch.long)
            state_dict[counter_key] = counter
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def forward(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")
        # every value of a feature in one row: (C, N) or (C, N * L)
        by_feature = input.transpose(0, 1).reshape(input.shape[1], -1)
        values = by_feature.shape[1]
        use_batch = self.training or self.running_mean is None
        if use_batch and values == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.size()}")
        if use_batch:
            mean = by_feature.sum(dim=1) / max(values, 1)
            squares = ((by_feature - mean[:, None]) ** 2).sum(dim=1)
            var = squares / max(values, 1)
            if self.training and self.track_running_stats:
                self._update_running(mean, squares, values)
        else:
            mean, var = self.running_mean, self.running_var
        view = [1, -1] + [1] * (input.dim() - 2)
        output = (input - mean.view(view)) * torch.rsqrt(var.view(view) + self.eps)
        if self.weight is not None:
            output = output * self.weight.view(view)
        if self.bias is not None:
            output = output + self.bias.view(view)
        return output

    def extra_repr(self):
        settings = [str(self.num_features), f"eps={self.eps}", f"momentum={self.momentum}", f"affine={self.affine}"]
        if BATCHNORM_SHOWS_BIAS:
            settings.append(f"bias={self.bias is not None}")
        return ", ".join(settings + [f"track_running_stats={self.track_running_stats}"])

    def _update_running(self, mean, squares, values):
        """Count the batch, then move the estimates towards it (an empty batch moves nothing)."""
        with torch.no_grad():
            self.num_batches_tracked += 1
            if values == 0:
                return
            weight = self.momentum if self.momentum is not None else 1.0 / self.num_batches_tracked.item()
            self.running_mean.lerp_(mean, weight)
            self.running_var.lerp_(squares / (values - 1), weight)


class MSELoss:
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):
        return torch.nn.functional.mse_loss(input, target, reduction=self.reduction)
