"""The zygote's memory in huge pages: workers fork and exit cheaply, and share it as before."""
import ctypes
import mmap
import sys
from pathlib import Path

import pytest

from modlab.isolation.launcher import Zygote

THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not THP.is_file() or "[never]" in THP.read_text(),
    reason="no transparent huge pages here")


def kernel_collapses() -> bool:
    """Whether this kernel turns touched memory into a huge page on request (MADV_COLLAPSE)."""
    huge = 2 << 20
    area = mmap.mmap(-1, 2 * huge, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    area.write(b"x" * len(area))
    aligned = -(-ctypes.addressof(ctypes.c_char.from_buffer(area)) // huge) * huge
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    try:
        return libc.madvise(aligned, huge, 25) == 0  # MADV_COLLAPSE
    finally:
        area.close()


def memory(pid: int) -> dict[str, int]:
    """A process's /proc/PID/smaps_rollup, in KiB."""
    lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]
    return {line.split(":")[0]: int(line.split()[1]) for line in lines}


@pytest.fixture
def fresh_zygote():
    """A zygote of its own: no other test's worker is alive in it."""
    zygote = Zygote()
    yield zygote
    zygote.socket.close()  # it ends with the workers it kept
    zygote.process.wait(timeout=30)


def grader_holding(folder: Path, mib: int) -> str:
    """A grader file whose import holds ``mib`` MiB of Python objects."""
    path = folder / "test_99_ballast.py"
    path.write_text(f"BALLAST = [str(n) for n in range({mib} * 2**20 // 56)]\n")
    return str(path)


def test_a_worker_forks_from_huge_pages_and_shares_them(fresh_zygote):
    connection, worker = fresh_zygote.fork([], None)
    try:
        if not kernel_collapses():
            pytest.skip("this kernel makes no huge pages on request (MADV_COLLAPSE needs Linux 6.1)")
        zygote = memory(fresh_zygote.process.pid)
        assert zygote["AnonHugePages"] >= zygote["Anonymous"] // 2
        assert memory(worker.pid)["Private_Dirty"] < 32 * 1024  # the rest is the zygote's, shared
    finally:
        connection.close()
        worker.stop()


def test_a_worker_alive_keeps_sharing_when_a_preload_follows(fresh_zygote, tmp_path):
    """Settling pages a live worker shares would copy them for it (some 200 MB each)."""
    connection, first = fresh_zygote.fork([], None)
    shared_before = memory(first.pid)["Shared_Dirty"]
    second_connection, second = fresh_zygote.fork([grader_holding(tmp_path, 48)], None)
    try:
        assert memory(first.pid)["Private_Dirty"] < 32 * 1024
        assert memory(first.pid)["Shared_Dirty"] >= shared_before - 32 * 1024
    finally:
        for end, handle in ((connection, first), (second_connection, second)):
            end.close()
            handle.stop()
