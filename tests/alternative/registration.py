"""Exercise 02 written unlike the reference: __setattr__ picks a store
function from a table of rules instead of an if/elif ladder, the registers
are read through vars(), and a name is checked against a list of rules."""
import itertools


class Registration:
    def __init__(self, *args, **kwargs):
        vars(self).update(_parameters={}, _buffers={}, _non_persistent_buffers_set=set(), _modules={})

    def __setattr__(self, name, value):
        store = next(store for applies, store in _ROUTES if applies(self, name, value))
        store(self, name, value)

    def __getattr__(self, name):
        for register in map(vars(self).get, ("_parameters", "_buffers", "_modules")):
            if register is not None and name in register:
                return register[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        names = itertools.chain(dir(type(self)), vars(self), self._parameters, self._modules, self._buffers)
        return sorted(name for name in names if not name[:1].isdigit())

    def __delattr__(self, name):
        for register in (self._parameters, self._buffers, self._modules):
            if name in register:
                register.pop(name)
                if register is self._buffers:
                    self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        if "_parameters" not in vars(self):
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _refuse_bad_name(self, name, "parameter", self._parameters)
        if param is not None:
            if not isinstance(param, Parameter):
                raise TypeError(f"cannot assign '{torch.typename(param)}' object to parameter '{name}' "
                                "(Parameter or None required)")
            if param.grad_fn is not None:
                raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in vars(self):
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _refuse_bad_name(self, name, "buffer", self._buffers)
        if not (tensor is None or isinstance(tensor, torch.Tensor)):
            raise TypeError(f"cannot assign '{torch.typename(tensor)}' object to buffer '{name}' "
                            "(Tensor or None required)")
        self._buffers[name] = tensor
        (self._non_persistent_buffers_set.discard if persistent else self._non_persistent_buffers_set.add)(name)

    def add_module(self, name, module):
        if not (module is None or is_module(module)):
            raise TypeError(f"{torch.typename(module)} is not a Module subclass")
        _refuse_bad_name(self, name, "module", self._modules)
        self._modules[name] = module


def _refuse_bad_name(module, name, kind, register):
    """Raise the exception of the first rule ``name`` breaks, as torch orders them."""
    rules = [
        (lambda: not isinstance(name, str), TypeError, f"{kind} name should be a string. Got {torch.typename(name)}"),
        (lambda: "." in name, KeyError, f"{kind} name can't contain \".\""),
        (lambda: name == "", KeyError, f"{kind} name can't be empty string \"\""),
        (lambda: hasattr(module, name) and name not in register, KeyError, f"attribute '{name}' already exists"),
    ]
    for broken, error, message in rules:
        if broken():
            raise error(message)


def _forget(module, name, *registers):
    for register in registers:
        if isinstance(register, set):
            register.discard(name)
        else:
            register.pop(name, None)


def _store_parameter(module, name, value):
    if "_parameters" not in vars(module):
        raise AttributeError("cannot assign parameters before Module.__init__() call")
    _forget(module, name, vars(module), module._buffers, module._modules, module._non_persistent_buffers_set)
    module.register_parameter(name, value)


def _empty_parameter_slot(module, name, value):
    if value is not None:
        raise TypeError(f"cannot assign '{torch.typename(value)}' as parameter '{name}' (Parameter or None expected)")
    module.register_parameter(name, None)


def _store_module(module, name, value):
    if "_modules" not in vars(module):
        raise AttributeError("cannot assign module before Module.__init__() call")
    _forget(module, name, vars(module), module._parameters, module._buffers, module._non_persistent_buffers_set)
    module._modules[name] = value


def _empty_module_slot(module, name, value):
    if value is not None:
        raise TypeError(f"cannot assign '{torch.typename(value)}' as child module '{name}' (Module or None expected)")
    module._modules[name] = None


def _store_buffer(module, name, value):
    if value is not None and not isinstance(value, torch.Tensor):
        raise TypeError(f"cannot assign '{torch.typename(value)}' as buffer '{name}' (Buffer, Tensor or None expected)")
    keeps = getattr(value, "persistent") if isinstance(value, Buffer) else name not in module._non_persistent_buffers_set
    module.register_buffer(name, value, keeps)


def _in(register):
    return lambda module, name, value: name in vars(module).get(register, ())


_ROUTES = [
    (lambda module, name, value: isinstance(value, Parameter), _store_parameter),
    (_in("_parameters"), _empty_parameter_slot),
    (lambda module, name, value: is_module(value), _store_module),
    (_in("_modules"), _empty_module_slot),
    (lambda module, name, value: isinstance(value, Buffer) or _in("_buffers")(module, name, value), _store_buffer),
    (lambda module, name, value: True, lambda module, name, value: object.__setattr__(module, name, value)),
]
