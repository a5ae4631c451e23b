"""Exercise 06 written unlike the reference: state_dict and load_state_dict
walk the tree with an explicit stack of steps (enter a module, leave it)
instead of recursion, and a module's own keys are worked out as sets and
lists before anything is loaded."""
import itertools


class State:
    def state_dict(self, destination=None, prefix="", keep_vars=False):
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        result = destination
        steps = [("enter", self, prefix)]
        while steps:
            step, module, module_prefix = steps.pop()
            if step == "enter":
                metadata = {"version": module._version}
                if hasattr(destination, "_metadata"):
                    destination._metadata[module_prefix[:-1]] = metadata
                for hook in module._state_dict_pre_hooks.values():
                    hook(module, module_prefix, keep_vars)
                module._save_to_state_dict(destination, module_prefix, keep_vars)
                steps.append(("leave", module, (module_prefix, metadata)))
                children = [("enter", child, f"{module_prefix}{name}.")
                            for name, child in module._modules.items() if child is not None]
                steps.extend(reversed(children))
            else:
                module_prefix, metadata = module_prefix
                target = destination
                for hook in module._state_dict_hooks.values():
                    returned = hook(module, target, module_prefix, metadata)
                    if getattr(hook, "_from_public_api", False):
                        if returned is not None:
                            raise RuntimeError("state_dict post-hook must return None")
                    elif returned is not None:
                        target = returned
                if module is self:
                    # only the module asked hands back a replacement, as torch's recursion does
                    result = target
        return result

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        persistent = ((name, buffer) for name, buffer in self._buffers.items()
                      if name not in self._non_persistent_buffers_set)
        for name, value in itertools.chain(self._parameters.items(), persistent):
            if value is not None:
                destination[prefix + name] = value if keep_vars else value.detach()
        if defines(self, "get_extra_state"):
            destination[prefix + EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def load_state_dict(self, state_dict, strict=True, assign=False):
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        metadata = getattr(state_dict, "_metadata", None)
        copied = OrderedDict(state_dict)
        if metadata is not None:
            copied._metadata = metadata
        missing, unexpected, errors = [], [], []
        steps = [("load", self, "", copied)]
        while steps:
            step, module, prefix, keys = steps.pop()
            if step == "after":
                report = _IncompatibleKeys(missing, unexpected)
                for hook in module._load_state_dict_post_hooks.values():
                    if hook(module, report) is not None:
                        raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                             "expected to return new values, if incompatible_keys need to be "
                                             "modified, it should be done inplace.")
                continue
            local = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local["assign_to_params_buffers"] = assign
            module._load_from_state_dict(keys, prefix, local, True, missing, unexpected, errors)
            steps.append(("after", module, prefix, None))
            for name, child in reversed(list(module._modules.items())):
                if child is not None:
                    child_prefix = f"{prefix}{name}."
                    steps.append(("load", child, child_prefix,
                                  {key: value for key, value in keys.items() if key.startswith(child_prefix)}))
        problems = []
        if strict and missing:
            problems.append("Missing key(s) in state_dict: " + ", ".join(map('"{}"'.format, missing)) + ". ")
        if strict and unexpected:
            problems.append("Unexpected key(s) in state_dict: " + ", ".join(map('"{}"'.format, unexpected)) + ". ")
        problems += errors
        if problems:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__,
                                                                                 "\n\t".join(problems)))
        return _IncompatibleKeys(missing, unexpected)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        mine = OrderedDict((name, value) for name, value in self._parameters.items() if value is not None)
        mine.update((name, value) for name, value in self._buffers.items()
                    if value is not None and name not in self._non_persistent_buffers_set)
        extra_key = prefix + EXTRA_STATE_KEY_SUFFIX
        takes_extra = defines(self, "set_extra_state")
        for name, current in mine.items():
            if prefix + name not in state_dict:
                if strict:
                    missing_keys.append(prefix + name)
                continue
            problem = _put(self, name, current, prefix + name, state_dict[prefix + name],
                           local_metadata.get("assign_to_params_buffers", False))
            if problem:
                error_msgs.append(problem)
        if takes_extra and extra_key in state_dict:
            self.set_extra_state(state_dict[extra_key])
        elif takes_extra and strict:
            missing_keys.append(extra_key)
        if not strict:
            return
        children = set(self._modules)
        for key in state_dict:
            if not key.startswith(prefix):
                continue
            if key == extra_key:
                if not takes_extra:
                    unexpected_keys.append(key)
                continue
            rest = key[len(prefix):]
            owner, _, below = rest.partition(".")
            if (owner not in children) if below else (rest not in mine):
                unexpected_keys.append(key)


def _put(module, name, current, key, value, assign):
    """Load ``value`` into ``current``; the error message if it cannot be, else None."""
    if not torch.overrides.is_tensor_like(value):
        return (f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like object '
                f"from checkpoint but received {type(value)}")
    if len(current.shape) == 0 and list(value.shape) == [1]:
        value = value.reshape(())
    if tuple(value.shape) != tuple(current.shape):
        return (f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
                f"the shape in current model is {current.shape}.")
    if current.device.type == "meta" and value.device.type != "meta" and not assign:
        warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint to a meta parameter in "
                      "the current model, which is a no-op. (Did you mean to pass `assign=True` to assign items "
                      "in the state dictionary to their corresponding key in the module instead of copying them "
                      "in place?)", stacklevel=4)
    try:
        with torch.no_grad():
            if not assign:
                current.copy_(value)
            elif isinstance(current, Parameter):
                if isinstance(value, Parameter):
                    setattr(module, name, value.requires_grad_(current.requires_grad))
                else:
                    setattr(module, name, Parameter(value, requires_grad=current.requires_grad))
            else:
                setattr(module, name, value)
    except Exception as error:
        return (f'While copying the parameter named "{key}", whose dimensions in the model are {current.size()} '
                f"and whose dimensions in the checkpoint are {value.size()}, an exception occurred : {error.args}.")
    return None
