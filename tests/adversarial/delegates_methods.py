"""Delegating to torch.nn: calling torch.nn.Module's methods on mynn's own objects."""
import torch

_Torch = torch.nn.Module


def _delegate(name):
    def method(self, *args, **kwargs):
        return getattr(_Torch, name)(self, *args, **kwargs)
    method.__name__ = name
    return method


for _name in ("__init__", "__setattr__", "__getattr__", "__delattr__", "register_parameter",
              "register_buffer", "add_module", "register_module"):
    setattr(Registration, _name, _delegate(_name))
