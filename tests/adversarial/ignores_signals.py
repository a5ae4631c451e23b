"""An infinite loop that ignores SIGINT, SIGTERM and SIGHUP."""
import signal

for _sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(_sig, signal.SIG_IGN)


def _spin(cls, *args, **kwargs):
    while True:
        try:
            pass
        except BaseException:
            continue


Parameter.__new__ = _spin
