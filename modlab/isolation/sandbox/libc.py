"""The C library, for the system calls Python has no wrapper for (Linux only)."""
from __future__ import annotations

import ctypes
import os
import sys

LINUX = sys.platform.startswith("linux")

libc = ctypes.CDLL(None, use_errno=True) if LINUX else None


def check(result: int, what: str) -> int:
    """``result``, unless it says the call failed: then OSError with the call's errno."""
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")
    return result
