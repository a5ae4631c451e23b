"""seccomp: a filter refusing every socket but AF_UNIX ones, and the system calls that go around Landlock."""
from __future__ import annotations

import ctypes
import errno
import os
import struct

from .libc import libc

PR_SET_SECCOMP = 22
# architecture, socket(), system calls refused outright: io_uring_setup (it
# opens sockets of its own) and open_by_handle_at (it opens files by inode,
# around Landlock's paths)
SYSCALLS = {"x86_64": (0xC000003E, 41, (425, 304)), "aarch64": (0xC00000B7, 198, (425, 265))}
AF_UNIX = 1
X32_BIT = 0x40000000
RET_ALLOW, RET_ERRNO = 0x7FFF0000, 0x00050000
LD_ABS, JEQ, JGE, RET = 0x20, 0x15, 0x35, 0x06


def refuse_sockets() -> bool:
    """Install a seccomp filter: ``socket()`` only for AF_UNIX.

    Holds without root, unlike a network namespace, and for UDP too, which
    Landlock does not cover. Foreign system call conventions (i386 calls on
    x86-64, x32) are refused outright, so they cannot go around it.
    """
    machine = os.uname().machine
    if machine not in SYSCALLS:
        return False
    arch, socket_nr, refused = SYSCALLS[machine]
    deny = RET_ERRNO | errno.EACCES
    # Jump offsets count instructions to skip; DENY and ALLOW close the program.
    checks = [(JGE, X32_BIT)] + [(JEQ, nr) for nr in refused]
    program = [(LD_ABS, 0, 0, 4), (JEQ, 1, 0, arch), (RET, 0, 0, deny), (LD_ABS, 0, 0, 0)]
    for index, (op, value) in enumerate(checks):
        program.append((op, len(checks) - index + 3, 0, value))   # to DENY
    program += [
        (JEQ, 0, 2, socket_nr),             # socket? go on, else to ALLOW
        (LD_ABS, 0, 0, 16),                 # its domain
        (JEQ, 0, 1, AF_UNIX),               # AF_UNIX? to ALLOW, else to DENY
        (RET, 0, 0, RET_ALLOW),             # ALLOW
        (RET, 0, 0, deny),                  # DENY
    ]
    filters = b"".join(struct.pack("HBBI", *instruction) for instruction in program)
    buffer = ctypes.create_string_buffer(filters)
    fprog = struct.pack("HxxxxxxQ", len(program), ctypes.addressof(buffer))
    return libc.prctl(PR_SET_SECCOMP, 2, ctypes.c_char_p(fprog), 0, 0) == 0
