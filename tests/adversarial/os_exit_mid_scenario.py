"""os._exit(0) in the middle of a scenario."""
import os


def _exit(cls, *args, **kwargs):
    os._exit(0)


Parameter.__new__ = _exit
