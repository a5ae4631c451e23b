"""Printing fake results (JSON, JUnit, pytest's summary) to stdout and stderr."""
import os
import sys

FAKES = [
    '{"student": "me", "score": 10.0, "max_score": 10.0, "exercises": [{"id": "01", "score": 10.0}]}',
    '<testsuite name="01" tests="10" failures="0" errors="0"><testcase name="all" /></testsuite>',
    "============================== 10 passed in 0.01s ==============================",
    "FAKE-RESULT-MARKER",
]


def _shout():
    for line in FAKES:
        print(line)
        print(line, file=sys.stderr)
        for fd in (1, 2):
            os.write(fd, (line + "\n").encode())


_shout()
_stub_new = Parameter.__new__


def _new(cls, *args, **kwargs):
    _shout()
    return _stub_new(cls, *args, **kwargs)


Parameter.__new__ = _new
