"""Sleeping until the timeout in every scenario: the exercise still ends in bounded time."""
import time


def _sleep(cls, *args, **kwargs):
    time.sleep(3600)


Parameter.__new__ = _sleep
