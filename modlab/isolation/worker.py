"""The worker: the one module that runs a graded package's code.

It runs in its own process, forked by the zygote (:mod:`.launcher`) or spawned
where there is no fork, and serves one "world": ``torch.nn`` itself (the
trusted oracle) or a ``mynn`` package. A worker for a package:

1. is confined first (:func:`.sandbox.confine`), before any of the
   submission's code exists in it;
2. receives its world from the grading process: the submission's files as
   source text (also written to its private directory, so its tracebacks
   show them), the reference's other files as compiled code objects
   (``marshal``), so that ``inspect.getsource`` finds nothing to copy;
3. installs tripwires on the oracle (:mod:`.tripwires`; the oracle's worker
   removes those the zygote installed), loads the package from memory and
   says hello: loaded, or the import error, and what confines it;
4. answers requests until EOF: runs a scenario body with the package as
   ``nn`` and answers with the plain-data observation of
   :mod:`modlab.grading.observe`.

Requests and answers are JSON bytes; nothing is unpickled on the grading side.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import json
import marshal
import os
import random
import sys

import torch

from modlab.grading import observe
from modlab.grading.scenario import REGISTRY

from . import tripwires
from .line_values import described_in, line_expressions, values_at
from .sandbox import Policy, confine

class SourcePackage(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Import a package from ``{relative path: source text}`` held in memory.

    The graded package never lies on a path Python searches, so nothing the
    submission leaves beside its files (a ``pytest.py``, a ``conftest.py``)
    is ever imported in its place.
    """

    def __init__(self, package: str, sources: dict[str, str], code: dict):
        self.package = package
        self.sources = sources
        self.code = code
        self.loaded: list = []  # the package's modules, in the order they loaded

    def _relpath(self, fullname: str) -> str | None:
        if fullname == self.package:
            return "__init__.py"
        head, _, tail = fullname.partition(".")
        name = f"{tail}.py"
        if head == self.package and "." not in tail and (name in self.sources or name in self.code):
            return name
        return None

    def find_spec(self, fullname, path=None, target=None):
        relpath = self._relpath(fullname)
        if relpath is None:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=relpath == "__init__.py")

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        relpath = self._relpath(module.__name__)
        filename = f"{self.package}/{relpath}"
        module.__file__ = filename
        code = self.code.get(relpath) or compile(self.sources[relpath], filename, "exec")
        self.loaded.append(module)
        exec(code, module.__dict__)


DEFAULT_ORACLE = ["torch.nn", ["Module", "Parameter"]]  # what course.Oracle() is, as plain data


def load_world(world: dict):
    """What the scenarios of this process receive (the oracle's module, or the
    graded package), and the package's modules."""
    if world["kind"] == "torch":
        return importlib.import_module(world.get("oracle", DEFAULT_ORACLE)[0]), []
    finder = SourcePackage(world["package"], world["sources"], world.get("code", {}))
    sys.meta_path.insert(0, finder)
    return importlib.import_module(world["package"]), finder.loaded


def exception_record(exc: BaseException, package: str | None) -> dict:
    """An exception as plain data: type and message, the package file and line
    it came from, the package frames it passed through (outermost first, with
    each function's qualified name), who was running when it was raised (the
    package's code, or the scenario's own, and then the scenario's line), and
    the missing name of an ``AttributeError`` or ``NameError``."""
    record = {"type": type(exc).__name__, "message": _text(exc)[:500]}
    frames = list(_frames(exc.__traceback__))
    if isinstance(exc, SyntaxError) and exc.filename:
        frames.append((exc.filename, exc.lineno or 0, "<module>"))
    ours = [(f.split("/", 1)[1], line, name) for f, line, name in frames if package and f.startswith(f"{package}/")]
    if ours:
        record["file"], record["line"] = ours[-1][0], ours[-1][1]
        record["frames"] = [list(frame) for frame in ours[-MAX_FRAMES:]]
    if package:
        record["by"] = _raised_by(frames, package)
        scenario_frame = _scenario_frame(frames) if record["by"] == "scenario" else None
        if scenario_frame:
            record["scenario_file"], record["scenario_line"] = scenario_frame
            record["scenario_values"] = _values_on_line(exc.__traceback__, *scenario_frame)
    missing = getattr(exc, "name", None)  # an ImportError's .name is the module's, not the missing name's
    if isinstance(exc, (AttributeError, NameError)) and isinstance(missing, str):
        record["name"] = missing[:200]
    limit = _limit_reached(exc)
    if limit:
        record["limit"] = limit
    return record


MAX_FRAMES = 12


def _frames(tb):
    """``(filename, line, qualified name)`` of each frame, outermost first."""
    while tb is not None:
        code = tb.tb_frame.f_code
        yield code.co_filename, tb.tb_lineno, getattr(code, "co_qualname", code.co_name)
        tb = tb.tb_next


def _raised_by(frames: list, package: str) -> str:
    """``package`` if the package's code was running when the exception was
    raised (perhaps inside torch, called from it), ``scenario`` if the
    grader's own code was (on something the package returned): a file of the
    course's graders folder, or of modlab's grading."""
    for filename, _, _ in reversed(frames):
        if filename.startswith(f"{package}/"):
            return "package"
        if _course_file(filename) or f"{os.sep}modlab{os.sep}grading{os.sep}" in filename:
            return "scenario"
    return "package"


def _scenario_frame(frames: list) -> tuple[str, int] | None:
    """The scenario's own line that failed: the innermost frame of a grader file (its line
    calls the package), else of any file of the course's graders."""
    graders = {scenario.file for scenario in REGISTRY.values()}
    for wanted in (lambda filename: filename in graders, _course_file):
        found = next(((filename, line) for filename, line, _ in reversed(frames) if wanted(filename)), None)
        if found:
            return found
    return None


def _values_on_line(tb, filename: str, line: int) -> dict[str, str]:
    """What the names and calls on the scenario's failing line gave there (:mod:`.line_values`)."""
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename and tb.tb_lineno == line:
            return described_in(tb.tb_frame, line_expressions(filename, line), calls=True)
        tb = tb.tb_next
    return {}


def _course_file(filename: str) -> bool:
    return filename.startswith(tuple(f"{scenario.graders}{os.sep}" for scenario in REGISTRY.values()))


def _limit_reached(exc: BaseException | None) -> str:
    """``memory`` or ``processes`` if the exception (or one it came from) says
    that the worker hit that limit; otherwise ``""``."""
    for _ in range(5):
        if exc is None:
            return ""
        text = _text(exc)
        if isinstance(exc, MemoryError) or "can't allocate memory" in text:
            return "memory"
        if isinstance(exc, BlockingIOError) or "can't start new thread" in text:
            return "processes"
        exc = exc.__cause__ or exc.__context__
    return ""


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # a submission's exception whose __str__ fails
        return "<unprintable>"


def run_scenario(nn, request: dict) -> dict:
    """Run one scenario body and observe what it returns, as JSON text."""
    scenario = REGISTRY[request["scenario"]]
    _seed(request.get("seed", 0), cuda=request["arguments"].get("device") == "cuda")
    random.seed(request.get("seed", 0))
    result = scenario.body(nn, **request["arguments"])
    # Observed as plain tensors: a tensor subclass's __torch_function__ cannot
    # change what its detach(), reshape() or bytes look like to the encoder.
    with torch._C.DisableTorchFunctionSubclass():
        return {"observed": json.dumps(observe.encode(result, nn.__name__))}


def _seed(seed: int, cuda: bool) -> None:
    """Seed torch's random numbers as ``torch.manual_seed`` does, in both worlds alike.

    A CPU case seeds the CPU generator only: ``torch.manual_seed`` also queues
    a seed for CUDA, recording the caller's stack for a lazy CUDA start, which
    costs a millisecond a scenario (a fifth of a submission's grading).
    """
    if cuda:
        torch.manual_seed(seed)
    else:
        torch.default_generator.manual_seed(seed)


def answer(request: dict, nn, package: str | None) -> dict:
    if request["op"] == "cuda":
        return {"cuda": torch.cuda.is_available(), "name": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}
    if request["op"] == "values_at":  # the oracle's, for a failure in a check's own code
        return {"values": values_at(lambda: run_scenario(nn, request["run"]), request["file"], request["line"])}
    try:
        return run_scenario(nn, request)
    except BaseException as exc:  # SystemExit and KeyboardInterrupt are the submission's too
        return {"raised": exception_record(exc, package)}


def serve(connection, policy: Policy | None = None, grader_files: list[str] = (), workdir: str | None = None) -> None:
    """Worker entry point: confine, load the world, then answer requests until EOF.

    Args:
        policy: the confinement of a package's worker; None for the trusted oracle.
        workdir: the folder of a worker without a policy (the oracle's), made
            and removed by whoever ends this process (a confined worker's is
            the policy's).
    """
    _import_graders(grader_files)  # before confinement hides them (a no-op under the zygote)
    sandbox = {}
    if policy is not None:
        try:
            sandbox = confine(policy)
        except Exception as exc:  # the machine's fault, not the submission's
            connection.send_bytes(json.dumps({"loaded": False, "sandbox_error": f"{type(exc).__name__}: {exc}"}).encode())
            return
    else:  # unconfined: still keep its files and output away from the student's folder
        quiet = os.open(os.devnull, os.O_RDWR)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        os.chdir(workdir)
    world = marshal.loads(connection.recv_bytes())
    package, oracle = world.get("package"), world.get("oracle", DEFAULT_ORACLE)
    if package:
        _write_own_files(package, world["sources"])
        tripwires.install_tripwires(oracle)
    else:
        tripwires.remove_tripwires()  # the oracle answers as it is
    try:
        nn, modules = load_world(world)
    except BaseException as exc:
        connection.send_bytes(json.dumps({"loaded": False, "error": exception_record(exc, package)}).encode())
        return
    hello = {"loaded": True, "sandbox": sandbox}
    if package:
        hello["tamper"] = tripwires.delegating_classes(modules, oracle) + tripwires.tripped()
    connection.send_bytes(json.dumps(hello).encode())
    if world.get("warm_cuda"):
        _warm_cuda()
    _answer_requests(connection, nn, package)


def _warm_cuda() -> None:
    """Create this process's CUDA context now, before the first request comes.

    A worker is started while the exercise before it is graded, so the
    context (a few tenths of a second) is made meanwhile instead of inside the
    first CUDA scenario. Where CUDA fails to start, the CUDA scenarios say so.
    """
    try:
        torch.zeros(1, device="cuda")
    except Exception:  # noqa: BLE001 - each CUDA scenario meets and reports the same failure
        pass


def _answer_requests(connection, nn, package: str | None) -> None:
    """Answer each request; a ``run_many`` request gets one answer per run,
    each sent as soon as it is ready (the grading side reads while it runs)."""
    me = os.getpid()
    while True:
        try:
            request = json.loads(connection.recv_bytes())
        except EOFError:
            return
        runs = request["runs"] if request.get("op") == "run_many" else [request]
        for index, run in enumerate(runs):
            reply = answer({"op": "run", **run} if request.get("op") == "run_many" else run, nn, package)
            if os.getpid() != me:  # a process the submission forked came back here: not ours to answer
                os._exit(0)
            reply["id"], reply["index"] = request.get("id"), index
            if package:
                reply["tamper"] = tripwires.tripped()
            connection.send_bytes(json.dumps(reply).encode())


def _write_own_files(package: str, sources: dict[str, str]) -> None:
    """The submission's own files, in the private directory (the cwd): its tracebacks show its lines."""
    os.makedirs(package, exist_ok=True)
    for name, text in sources.items():
        if "/" not in name and not name.startswith("."):
            with open(os.path.join(package, name), "w", encoding="utf-8") as file:
                file.write(text)


def _import_graders(grader_files: list[str]) -> None:
    """Under ``spawn`` the registry starts empty: import the graders again."""
    from modlab.grading.loader import import_grader_for_workers

    for path in grader_files:
        import_grader_for_workers(path)
