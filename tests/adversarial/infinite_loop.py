"""An infinite loop in every scenario."""


def _spin(cls, *args, **kwargs):
    while True:
        pass


Parameter.__new__ = _spin
