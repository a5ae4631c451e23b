"""Exercise 05 written unlike the reference: positions are looked up in a
list of keys, deleting rebuilds _modules in place, Sequential chains its
children with functools.reduce, and ParameterList counts its values in an
attribute of its own name."""
import functools
import itertools


class _ModuleSequence:
    def __len__(self):
        return sum(1 for _ in self._modules)

    def __iter__(self):
        yield from self._modules.values()

    def _key_at(self, idx):
        position = operator.index(idx)
        try:
            return list(self._modules)[position]
        except IndexError:
            raise IndexError(f"index {idx} is out of range") from None

    def __setitem__(self, idx, module):
        setattr(self, self._key_at(idx), module)

    def __delitem__(self, idx):
        doomed = list(self._modules)[idx] if isinstance(idx, slice) else [self._key_at(idx)]
        for key in doomed:
            delattr(self, key)
        kept = list(self._modules.values())
        self._modules.clear()
        self._modules.update(zip(map(str, itertools.count()), kept))

    def pop(self, idx):
        taken = self[idx]
        self.__delitem__(idx)
        return taken

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def extend(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError(f"{type(self).__name__}.extend should be called with an iterable, "
                            f"but got {type(modules).__name__}")
        for module in modules:
            self.add_module(str(len(self._modules)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        count = len(self._modules)
        if index < -count or index > count:
            raise IndexError(f"Index out of range: {index}")
        index += count if index < 0 else 0
        for position in reversed(range(index, count)):
            self._modules[str(position + 1)] = self._modules[str(position)]
        self._modules[str(index)] = module
        return self


class Sequential:
    def __init__(self, *args):
        super().__init__()
        named = len(args) == 1 and isinstance(args[0], OrderedDict)
        pairs = args[0].items() if named else zip(map(str, itertools.count()), args)
        for name, module in pairs:
            self.add_module(name, module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            keys = list(self._modules)[idx]
            return type(self)(OrderedDict((key, self._modules[key]) for key in keys))
        return self._modules[self._key_at(idx)]

    def __add__(self, other):
        _only_sequential(other)
        combined = Sequential()
        for module in itertools.chain(self, other):
            combined.append(module)
        return combined

    def __iadd__(self, other):
        _only_sequential(other)
        for module in other:
            self.append(module)
        return self

    def __mul__(self, times):
        _positive_count(self, times)
        return Sequential(*[module for _ in range(times) for module in self])

    def __rmul__(self, times):
        return self * times

    def __imul__(self, times):
        _positive_count(self, times)
        originals = [self._modules[str(position)] for position in range(len(self._modules))]
        for module in originals * (times - 1):
            self.append(module)
        return self

    def forward(self, input):
        return functools.reduce(lambda flowing, module: module(flowing), self, input)


class ModuleList:
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self)[idx])
        return self._modules[self._key_at(idx)]

    def __add__(self, other):
        combined = ModuleList()
        for module in itertools.chain(self, other):
            combined.append(module)
        return combined

    def __iadd__(self, modules):
        return self.extend(modules)


class ModuleDict:
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        self._modules.pop(key)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.keys())

    def __contains__(self, key):
        return key in self._modules.keys()

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def pop(self, key):
        return self._modules.pop(key)

    def clear(self):
        for key in list(self._modules):
            del self[key]

    def update(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, "
                            f"but got {type(modules).__name__}")
        is_mapping = isinstance(modules, (Mapping, ModuleDict))
        for number, pair in enumerate(modules.items() if is_mapping else modules):
            _check_pair("ModuleDict", number, pair)
            self[pair[0]] = pair[1]


class ParameterList:
    def __init__(self, values=None):
        super().__init__()
        self._count = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)([self[position] for position in range(*idx.indices(len(self)))])
        return getattr(self, _position_name(self, idx))

    def __setitem__(self, idx, value):
        setattr(self, _position_name(self, idx), _as_parameter(value))

    def __len__(self):
        return self._count

    def __iter__(self):
        return map(self.__getitem__, range(self._count))

    def __iadd__(self, values):
        return self.extend(values)

    def append(self, value):
        self._count += 1
        self[-1] = value
        return self

    def extend(self, values):
        if isinstance(values, torch.Tensor) or not isinstance(values, Iterable):
            raise TypeError(f"ParameterList.extend should be called with an iterable, but got {type(values).__name__}")
        for value in values:
            self.append(value)
        return self


class ParameterDict:
    def __init__(self, parameters=None):
        super().__init__()
        self._keys = OrderedDict()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, _key_name(key))

    def __setitem__(self, key, value):
        self._keys[key] = None
        setattr(self, _key_name(key), _as_parameter(value))

    def __delitem__(self, key):
        self._keys.pop(key)
        delattr(self, _key_name(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return [(key, self[key]) for key in self._keys]

    def values(self):
        return [self[key] for key in self._keys]

    def update(self, parameters):
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of key/value pairs, "
                            f"but got {type(parameters).__name__}")
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = list(parameters.items())
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        else:
            pairs = parameters
        for number, pair in enumerate(pairs):
            _check_pair("ParameterDict", number, pair)
            self[pair[0]] = pair[1]


def _only_sequential(other):
    if not isinstance(other, Sequential):
        raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")


def _positive_count(sequential, times):
    if not isinstance(times, int):
        raise TypeError(f"unsupported operand type(s) for *: {type(sequential)} and {type(times)}")
    if times < 1:
        raise ValueError(f"Non-positive multiplication factor {times} for {type(sequential)}")


def _check_pair(container, number, pair):
    if not isinstance(pair, Iterable):
        raise TypeError(f"{container} update sequence element #{number} should be Iterable; is{type(pair).__name__}")
    if len(pair) != 2:
        raise ValueError(f"{container} update sequence element #{number} has length {len(pair)}; 2 is required")


def _position_name(values, idx):
    position = operator.index(idx)
    if position < -len(values) or position >= len(values):
        raise IndexError(f"index {idx} is out of range")
    return str(position + len(values) if position < 0 else position)


def _key_name(key):
    if isinstance(key, str):
        return key
    raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string "
                    f"(type is '{type(key).__name__}'). Open an issue on github if you need non-string keys.")


def _as_parameter(value):
    return Parameter(value) if isinstance(value, torch.Tensor) and not isinstance(value, Parameter) else value
