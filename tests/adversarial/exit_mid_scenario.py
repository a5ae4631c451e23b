"""sys.exit(0) in the middle of a scenario."""
import sys


def _exit(cls, *args, **kwargs):
    sys.exit(0)


Parameter.__new__ = _exit
