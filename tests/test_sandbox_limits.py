"""Each worker limit, proven by a payload that exceeds it.

A forked child sets the limits exactly as a worker does (:func:`set_limits`),
then tries to go past one; the parent reads what happened through a pipe. The
figures the payloads use are written here (64 MiB, 4 processes), so a limit
set looser or not at all lets a payload through and fails the test.
"""
import errno
import json
import os
import resource
import signal
import sys
import time

import pytest

from modlab.isolation.sandbox import limits
from modlab.isolation.sandbox.limits import set_limits

LINUX = sys.platform.startswith("linux")
ROOTED = LINUX and os.geteuid() == 0
MIB = 2**20
# Not a worker uid (those are 2,000,000 and up), so no grading run elsewhere shares its process count.
LONELY_UID = 1_987_654

pytestmark = pytest.mark.skipif(not LINUX, reason="rlimits as modlab sets them are Linux's (/proc, RLIMIT_DATA)")


def in_child(payload, timeout: float = 30.0):
    """Run ``payload()`` in a forked child and return what it returned (JSON)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(read)
            try:
                answer = {"value": payload()}
            except BaseException as error:  # what went wrong is the parent's to assert on
                answer = {"error": f"{type(error).__name__}: {error}"}
            os.write(write, json.dumps({**answer, "hits": mutmut_hits()}).encode())
        finally:
            os._exit(0)
    os.close(write)
    deadline = time.monotonic() + timeout
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
        assert time.monotonic() < deadline, "the child did not answer"
    os.close(read)
    os.waitpid(pid, 0)
    answer = json.loads(b"".join(chunks))
    count_hits(answer["hits"])
    assert "error" not in answer, answer["error"]
    return answer["value"]


def mutmut_hits() -> list[str]:
    """The functions mutmut's trampolines saw run in this process, during a mutation run
    (scripts/mutation.py) only: a child sends them back, so that code run only in a forked
    child still counts as tested by the test that forked it."""
    state = sys.modules.get("mutmut.state")
    return sorted(state.state()._stats) if state else []


def count_hits(hits: list[str]) -> None:
    if hits:
        sys.modules["mutmut.state"].state()._stats.update(hits)


def allocate(mib: int) -> str:
    try:
        block = bytearray(mib * MIB)
        block[-1] = 1  # touched: the memory is really held
        return "allocated"
    except MemoryError:
        return "MemoryError"


def test_memory_past_the_limit_is_refused_and_under_it_allowed():
    def payload():
        set_limits(64, 1000, ROOTED)
        return [allocate(32), allocate(96), allocate(48)]

    assert in_child(payload) == ["allocated", "MemoryError", "allocated"]


def test_the_memory_limit_is_counted_above_what_the_process_already_holds():
    def payload():
        reserved = bytearray(512 * MIB)  # never touched: counted by RLIMIT_DATA, costing no memory
        before = resource.getrlimit(resource.RLIMIT_DATA)
        with open("/proc/self/status") as status:
            held = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmData:"))
        facts = set_limits(64, 1000, ROOTED)
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        return {"before": before, "soft": soft, "hard": hard, "held": held, "facts": facts, "reserved": len(reserved)}

    seen = in_child(payload)
    assert seen["soft"] == seen["hard"] and seen["held"] > seen["reserved"]
    # what the child held when the limit was set (a few pages may be added between the two readings)
    assert 0 <= seen["soft"] - 64 * MIB - seen["held"] < 128 * 1024, seen["soft"] - 64 * MIB - seen["held"]
    assert seen["facts"]["memory"].startswith("RLIMIT_DATA 64 MiB above torch's own ")
    assert seen["facts"]["memory"] == f"RLIMIT_DATA 64 MiB above torch's own {(seen['soft'] - 64 * MIB) >> 20} MiB"


def test_a_file_past_the_size_limit_cannot_be_written(tmp_path):
    target = tmp_path / "big"

    def payload():
        set_limits(8, 1000, ROOTED)
        chunk = b"x" * MIB  # the file limit is the memory limit: written a MiB at a time
        with open(tmp_path / "small", "wb") as out:
            for _ in range(4):
                out.write(chunk)
        try:
            with open(target, "wb", buffering=0) as out:
                for _ in range(9):
                    out.write(chunk)
            return "written"
        except OSError as error:
            return f"OSError {error.errno}"

    assert in_child(payload) == f"OSError {errno.EFBIG}"
    assert (tmp_path / "small").stat().st_size == 4 * MIB
    assert target.stat().st_size <= 8 * MIB


def test_no_core_file_is_left():
    def payload():
        set_limits(64, 1000, ROOTED)
        return resource.getrlimit(resource.RLIMIT_CORE)

    assert in_child(payload) == [0, 0]


def fork_until_refused(limit: int) -> int:
    """Start sleeping children until the system refuses one; how many started."""
    started = []
    try:
        while len(started) < limit + 10:
            pid = os.fork()
            if pid == 0:
                time.sleep(20)
                os._exit(0)
            started.append(pid)
    except BlockingIOError:
        pass
    finally:
        for pid in started:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    return len(started)


@pytest.mark.skipif(not ROOTED, reason="exact only as root: the worker gets a user of its own, whose count is 0")
def test_processes_past_the_limit_cannot_start():
    def payload():
        facts = set_limits(64, 4, True)
        os.setgroups([])
        os.setgid(LONELY_UID)
        os.setuid(LONELY_UID)
        return {"started": fork_until_refused(4), "facts": facts}

    seen = in_child(payload)
    assert seen["started"] == 3  # itself and three more: four processes of that user
    assert seen["facts"]["processes"] == "RLIMIT_NPROC 4"


def test_without_root_the_process_limit_is_added_to_what_the_user_runs():
    def payload():
        limits._tasks_of_user = lambda uid: 10 if uid == os.getuid() else 0  # in the child only
        facts = set_limits(64, 4, False)
        return {"limit": resource.getrlimit(resource.RLIMIT_NPROC), "facts": facts}

    seen = in_child(payload)
    assert seen["limit"] == [14, 14]
    assert seen["facts"]["processes"] == "RLIMIT_NPROC 4 above the user's own"


def test_the_users_tasks_are_counted_thread_by_thread(monkeypatch, tmp_path):
    """A fake /proc: two processes of uid 7 with 3 and 2 threads, one of uid 8, one that ends
    while it is read, and an entry that is no process."""
    owners = {"10": 7, "11": 8, "12": 7, "13": 7}
    threads = {"10": ["10", "20", "21"], "11": ["11"], "12": ["12", "22"]}

    def listdir(path):
        if path == "/proc":
            return ["self", "10", "11", "13", "12"]
        pid = path.split("/")[2]
        if pid not in threads:
            raise FileNotFoundError(path)  # 13 ended meanwhile
        return threads[pid]

    def stat(path):
        return type("Stat", (), {"st_uid": owners[path.split("/")[2]]})

    # the limits module's view of os only: everything else keeps the real one
    monkeypatch.setattr(limits, "os", type("FakeOs", (), {"listdir": staticmethod(listdir), "path": os.path,
                                                          "stat": staticmethod(stat)}))
    assert limits._tasks_of_user(7) == 5
    assert limits._tasks_of_user(8) == 1 and limits._tasks_of_user(9) == 0


def test_a_limit_is_never_set_above_its_hard_limit():
    def payload():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4 * MIB, 4 * MIB))
        set_limits(64, 1000, ROOTED)
        return resource.getrlimit(resource.RLIMIT_FSIZE)

    assert in_child(payload) == [4 * MIB, 4 * MIB]
