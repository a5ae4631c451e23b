"""The check server (modlab/commands/check_server.py): a check through it is the check a
fresh process runs, it reads the student's edits, it never serves a changed installation,
it ends when idle, and Ctrl-C and a dead server behave as a student expects."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from modlab.commands import check_server, serving

from conftest import ROOT, as_in_a_terminal
from student_kit import kit_copy, servers, short_runtime_folder

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the check server is Linux-only")

BUSY_PARAMETER = '''
import torch


class Parameter(torch.Tensor):
    def __new__(cls, data=None, requires_grad=True):
        while True:  # a student's endless loop: the check runs until Ctrl-C
            pass
'''


@pytest.fixture
def served(tmp_path):
    """A kit with the reference code, and the environment of a student whose checks go to a
    server; every server started from it is ended afterwards."""
    kit = kit_copy(tmp_path / "kit", reference=("*",))
    with short_runtime_folder() as run:
        env = {**os.environ, "MODLAB_CHECK_SERVER": "1", "XDG_RUNTIME_DIR": str(run),
               "MODLAB_CHECK_SERVER_IDLE_S": "120"}
        env.pop("PYTHONPATH", None)
        yield kit, env


def sockets(env) -> list[Path]:
    return sorted(Path(env["XDG_RUNTIME_DIR"]).glob("modlab-*/check-*.sock"))


def check(kit: Path, env: dict, exercise: str, **settings) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "modlab", "check", exercise], cwd=kit,
                          env={**env, **settings}, capture_output=True, text=True, timeout=120)


def without_times(text: str) -> str:
    return re.sub(r" in \d+\.\d s", "", text)


def test_a_check_through_the_server_is_the_check_a_fresh_process_runs(served):
    kit, env = served
    shutil.copy(ROOT / "exercises" / "mynn" / "walk.py", kit / "mynn" / "walk.py")
    fresh_checks = {}  # by exercise, made once: a fresh check of the same files prints the same
    for exercise, status in (("03", 1), ("01", 0), ("03", 1)):
        if exercise not in fresh_checks:
            fresh_checks[exercise] = check(kit, env, exercise, MODLAB_CHECK_SERVER="0")
        fresh = fresh_checks[exercise]
        served_ = check(kit, env, exercise)
        assert (served_.returncode, without_times(served_.stdout)) == (status, without_times(fresh.stdout))
        assert "checking exercise" in served_.stdout and served_.stderr == fresh.stderr
    assert len(sockets(env)) == 1 and len(servers(Path(env["XDG_RUNTIME_DIR"]))) == 1


def test_the_server_reads_the_students_edits(served):
    kit, env = served
    shutil.copy(ROOT / "exercises" / "mynn" / "walk.py", kit / "mynn" / "walk.py")
    assert "0 of 12 public checks passed" in check(kit, env, "03").stdout
    shutil.copy(ROOT / "solutions" / "mynn" / "walk.py", kit / "mynn" / "walk.py")
    passed = check(kit, env, "03")
    assert passed.returncode == 0 and "12 of 12 public checks passed" in passed.stdout
    assert len(sockets(env)) == 1


def test_a_changed_installation_gets_a_new_server_and_the_old_one_ends(served):
    kit, env = served
    assert check(kit, env, "01").returncode == 0
    (old_socket,) = sockets(env)
    (old,) = servers(Path(env["XDG_RUNTIME_DIR"]))
    grader = kit / "graders" / "01_parameter" / "test_01_parameter.py"
    os.utime(grader, ns=(grader.stat().st_atime_ns, grader.stat().st_mtime_ns + 10**9))
    assert check(kit, env, "01").returncode == 0
    assert sockets(env) == [old_socket]  # touched, not changed: files are digested by content
    grader.write_text(grader.read_text() + "\n# a fix to a check\n")
    assert check(kit, env, "01").returncode == 0
    (new_socket,) = sockets(env)
    assert new_socket != old_socket
    deadline = time.monotonic() + 10
    while alive(old) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not alive(old)


def test_an_idle_server_ends_and_takes_its_socket_and_zygote(served):
    kit, env = served
    assert check(kit, env, "01", MODLAB_CHECK_SERVER_IDLE_S="1").returncode == 0
    (server,) = servers(Path(env["XDG_RUNTIME_DIR"]))
    zygotes = children(server)
    deadline = time.monotonic() + 30
    while (sockets(env) or alive(server, *zygotes)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not sockets(env) and not alive(server, *zygotes)


def children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def descriptors(pid: int) -> dict[int, str]:
    """``{fd: what it is}`` of a process: a file's path, ``socket:[inode]``, ``pipe:[inode]``..."""
    folder = Path(f"/proc/{pid}/fd")
    return {int(fd.name): os.readlink(fd) for fd in folder.iterdir()}


def memory(pid: int) -> dict[str, int]:
    """A process's ``/proc/PID/smaps_rollup`` in kB: ``Anonymous``, ``Private_Dirty``..."""
    fields = (line.split() for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:])
    return {field[0].rstrip(":"): int(field[1]) for field in fields}


def test_a_servers_zygote_is_forked_from_it_and_shares_its_torch(served):
    """Forked once torch is loaded and before the server reads anything: the zygote sits where a
    fresh one would (its own session, in /, stdin and stdout on /dev/null, none of the server's
    descriptors, no credential of the student's environment even in its memory of the one it
    started with), and most of its memory is the server's pages, not a copy."""
    kit, env = served
    token = "ghp_" + uuid.uuid4().hex
    assert check(kit, {**env, "GITHUB_TOKEN": token, "MODLAB_FETCH_TOKEN": token}, "01").returncode == 0
    (server,) = servers(Path(env["XDG_RUNTIME_DIR"]))
    (zygote,) = children(server)  # between checks, the server's one child
    for pid in (server, zygote):
        assert token.encode() not in Path(f"/proc/{pid}/environ").read_bytes()
    assert Path(f"/proc/{zygote}/comm").read_text().strip() == "modlab-zygote"
    assert os.getsid(zygote) == zygote and os.readlink(f"/proc/{zygote}/cwd") == "/"
    theirs, ours = descriptors(server), descriptors(zygote)
    assert ours[0] == ours[1] == "/dev/null" and ours[2] == theirs[2]  # stderr: the server's log
    assert not set(theirs.values()) & {what for fd, what in ours.items() if fd > 2}
    assert memory(zygote)["Private_Dirty"] < memory(zygote)["Anonymous"] / 2


def alive(*pids: int) -> bool:
    return any(Path(f"/proc/{pid}").exists() and "Z" not in stat_state(pid) for pid in pids)


def stat_state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


# A notebook kernel as the check server sees one: a program named ipykernel_launcher whose cell
# runs a check (the command line it is given), then waits to be shut down.
FAKE_KERNEL = """
import subprocess, sys, time
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print("checked", flush=True)
time.sleep(600)
"""


def fake_kernel(kit: Path, env: dict) -> subprocess.Popen:
    """A fake notebook kernel in ``kit`` that has run ``modlab check 01``."""
    launcher = kit / "ipykernel_launcher.py"
    launcher.write_text(FAKE_KERNEL)
    kernel = subprocess.Popen([sys.executable, str(launcher), sys.executable, "-m", "modlab", "check", "01"],
                              cwd=kit, env=env, stdout=subprocess.PIPE, text=True)
    assert kernel.stdout.readline() == "checked\n"
    return kernel


def ends_within(seconds: float, env: dict, *pids: int) -> bool:
    """Whether these processes and every socket of ``env``'s servers are gone within ``seconds``."""
    deadline = time.monotonic() + seconds
    while (sockets(env) or alive(*pids)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not sockets(env) and not alive(*pids)


def test_a_server_started_under_a_notebook_kernel_ends_with_it(served):
    kit, env = served
    kernel = fake_kernel(kit, env)
    (server,) = servers(Path(env["XDG_RUNTIME_DIR"]))
    zygotes = children(server)
    assert zygotes and alive(server, *zygotes)
    kernel.kill()
    kernel.wait()
    assert ends_within(5, env, server, *zygotes)  # not the idle time (120 s here)


def test_a_server_a_terminal_also_used_outlives_the_notebook_kernel(served):
    kit, env = served
    kernel = fake_kernel(kit, env)
    (server,) = servers(Path(env["XDG_RUNTIME_DIR"]))
    assert check(kit, env, "01").returncode == 0  # from a terminal, the same server
    kernel.kill()
    kernel.wait()
    assert not ends_within(3, env, server)
    assert servers(Path(env["XDG_RUNTIME_DIR"])) == [server]


def test_a_server_is_needed_while_a_kernel_it_served_runs_or_after_a_terminals_check():
    users = serving.Users(idle=600)
    assert users.settle() == [] and not users.needed()  # no check came
    kernel = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    users.came(os.pidfd_open(kernel.pid))
    users.came(os.pidfd_open(kernel.pid))  # the same kernel again: watched once
    assert len(users.settle()) == 1 and users.needed()
    kernel.kill()
    kernel.wait()
    assert users.settle() == [] and not users.needed()
    users.came(None)  # a terminal's check: the idle time
    assert users.needed()


def cell_output(client, code: str) -> str:
    """What a kernel's cell printed."""
    printed = []
    client.execute_interactive(code, timeout=120, output_hook=lambda message: printed.append(
        message["content"].get("text", "") if message["msg_type"] == "stream" else ""))
    return "".join(printed)


def test_a_lesson_notebooks_check_cell_uses_a_server_that_ends_with_the_kernel(served):
    """The lesson's own check cell runs the check through IPython's terminal, as a student's does."""
    manager = pytest.importorskip("jupyter_client.manager")
    kit, env = served
    env = {k: v for k, v in env.items() if k != "MODLAB_CHECK_SERVER"}  # the cell's terminal decides
    notebook = json.loads((kit / "01_parameter.ipynb").read_text())
    check_cell = "".join(notebook["cells"][-1]["source"])
    kernel, client = manager.start_new_kernel(kernel_name="python3", cwd=str(kit), env=env)
    try:
        assert "9 of 9 public checks passed" in cell_output(client, check_cell)
        (server,) = servers(Path(env["XDG_RUNTIME_DIR"]))
        zygotes = children(server)
        assert "9 of 9 public checks passed" in cell_output(client, check_cell)  # the same server, warm
        assert servers(Path(env["XDG_RUNTIME_DIR"])) == [server]
    finally:
        client.stop_channels()
        kernel.shutdown_kernel()
    assert ends_within(5, env, server, *zygotes)


# `python -m modlab`, saying whether it loaded torch itself; its sys.path as -m makes it (the server's fingerprint).
SUBMIT_HERE = ("import os, sys; sys.path[0] = os.getcwd(); from modlab.student_cli import main; "
               "code = main(sys.argv[1:]); print('torch loaded here:', 'torch' in sys.modules); sys.exit(code)")


def test_submit_goes_to_a_server_that_is_up_and_starts_none(served):
    kit, env = served

    def submit() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", SUBMIT_HERE, "submit", "01", "--student", "ada"], cwd=kit,
                              env=env, capture_output=True, text=True, timeout=120)

    alone = submit()
    assert alone.returncode == 0 and "torch loaded here: True" in alone.stdout
    assert servers(Path(env["XDG_RUNTIME_DIR"])) == [], "a submit starts no server"
    assert check(kit, env, "01").returncode == 0
    warm = submit()
    assert warm.returncode == 0 and "torch loaded here: False" in warm.stdout, warm.stdout + warm.stderr
    assert "9 of 9 public checks passed" in warm.stdout and "submitted exercise 01 as ada" in warm.stdout
    assert len(list((kit / "submissions").glob("ada-01-*.zip"))) == 2


def test_ctrl_c_interrupts_the_check_in_the_server(served):
    kit, env = served
    assert check(kit, env, "01").returncode == 0  # the server is up
    (kit / "mynn" / "parameter.py").write_text(BUSY_PARAMETER)
    client = subprocess.Popen([sys.executable, "-m", "modlab", "check", "01"], cwd=kit, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=as_in_a_terminal)
    assert client.stdout.readline().startswith("checking exercise 01")  # the server's child runs the check
    client.send_signal(signal.SIGINT)
    out, err = client.communicate(timeout=30)
    assert client.returncode == 130 and "modlab check: interrupted" in err


def test_a_killed_server_is_replaced_at_the_next_check(served):
    kit, env = served
    assert check(kit, env, "01").returncode == 0
    (server,) = servers(Path(env["XDG_RUNTIME_DIR"]))
    os.kill(server, signal.SIGKILL)
    again = check(kit, env, "01")
    assert again.returncode == 0 and "9 of 9 public checks passed" in again.stdout
    replaced = servers(Path(env["XDG_RUNTIME_DIR"]))
    assert replaced and server not in replaced


def test_a_server_only_where_asked_or_at_a_terminal(monkeypatch):
    monkeypatch.setenv("MODLAB_CHECK_SERVER", "0")
    assert not check_server.wanted()
    monkeypatch.delenv("MODLAB_CHECK_SERVER")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    assert not check_server.wanted()  # a script, CI, a notebook's cell: no process left behind
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert check_server.wanted()


def test_a_variable_torch_sets_itself_leaves_the_server_as_it_is(course, monkeypatch):
    """torch sets TORCHINDUCTOR_CACHE_DIR in a kernel whose cell made an optimizer: its next check
    cell still goes to the server a terminal's check started; a variable that configures torch does not."""
    monkeypatch.delenv("TORCHINDUCTOR_CACHE_DIR", raising=False)
    before = check_server.server_key(course)
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", "/tmp/torchinductor_student")
    assert check_server.server_key(course) == before
    monkeypatch.setenv("TORCH_SHOW_CPP_STACKTRACES", "1")
    assert check_server.server_key(course) != before


def test_the_socket_lies_in_a_folder_no_one_else_may_enter(monkeypatch):
    run = Path(tempfile.mkdtemp(prefix="ml"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    monkeypatch.setattr(tempfile, "tempdir", str(run / "other"))
    (run / "other").mkdir()
    private = run / f"modlab-{os.getuid()}"
    assert check_server.socket_path(run, "0" * 16).parent == private
    private.chmod(0o777)
    assert check_server.socket_path(run, "0" * 16).parent == run / "other" / f"modlab-{os.getuid()}"
    (run / "other" / f"modlab-{os.getuid()}").chmod(0o755)
    assert check_server.socket_path(run, "0" * 16) is None
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run / ("x" * 100)))  # too long for a socket: the other
    assert check_server.socket_path(run, "0" * 16) is None
    shutil.rmtree(run)


def test_the_server_starts_with_what_configures_it_and_no_credential(monkeypatch):
    for name, value in {"PYTHONWARNINGS": "error", "TORCH_LOGS": "+dynamo", "MODLAB_CHECK_SERVER_IDLE_S": "5",
                        "MODLAB_FETCH_TOKEN": "secret", "GITHUB_TOKEN": "secret", "PATH": "/usr/bin"}.items():
        monkeypatch.setenv(name, value)
    started = check_server.server_environment()
    assert {name: started.get(name) for name in ("PYTHONWARNINGS", "TORCH_LOGS", "MODLAB_CHECK_SERVER_IDLE_S", "PATH")} \
        == {"PYTHONWARNINGS": "error", "TORCH_LOGS": "+dynamo", "MODLAB_CHECK_SERVER_IDLE_S": "5", "PATH": "/usr/bin"}
    assert "secret" not in started.values()
