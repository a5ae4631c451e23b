"""Exercise 05 written unlike the reference: positions are looked up in a
list of keys, deleting rebuilds _modules in place, Sequential chains its
children with functools.reduce, and ModuleDict checks its pairs itself."""
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

    def append(self, module):
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

    def __iter__(self):
        return iter(self._modules.keys())

    def update(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, "
                            f"but got {type(modules).__name__}")
        is_mapping = isinstance(modules, (Mapping, ModuleDict))
        for number, pair in enumerate(modules.items() if is_mapping else modules):
            _check_pair("ModuleDict", number, pair)
            self[pair[0]] = pair[1]


def _check_pair(container, number, pair):
    if not isinstance(pair, Iterable):
        raise TypeError(f"{container} update sequence element #{number} should be Iterable; is{type(pair).__name__}")
    if len(pair) != 2:
        raise ValueError(f"{container} update sequence element #{number} has length {len(pair)}; 2 is required")
