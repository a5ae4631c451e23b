"""Grade a generated class with `modlab grade -j 2` and with `nbgrader autograde`, side by side.

    .venv/bin/python bench/grade_class.py                      # 200 students; nbgrader on 6 of them
    .venv/bin/python bench/grade_class.py --nbgrader-sample 200  # nbgrader on the whole class (hours)
    .venv/bin/python bench/grade_class.py --growth 50,200,800    # modlab only: how cost grows

The class: five students whose every method sleeps (--hanging), the reference,
the untouched stubs, each labelled buggy variant (graders/*/variants.yaml) on its own, a few
adversarial submissions, and students whose every exercise is
drawn at random (reference, a buggy variant, or the stub), in nbgrader's layout
`submitted/<student>/<NN_slug>/` with the released notebook beside the files.

modlab grades all of them. nbgrader grades the same files of a sample of
students through modlab's nbgrader pipeline (`modlab nbgrader init`, then
nbgrader's own `generate_assignment` and `autograde` for every exercise, with
notebook execution, as an instructor runs it); its throughput is measured on
that sample and extrapolated to the class, which the output says. Then modlab
grades the class once more: the host's speed drifts by more than a third within
an hour, and the two ratios come from the mean of the modlab runs on either side
of nbgrader's, so that a steady drift cancels.

Printed: submissions per minute for each and their ratio on this machine, the
ratio per process, the hanging students' cost, the wall time of the
class, the overhead per submission beyond the grader tests' own time, CPU time,
and peak memory (PSS, summed over every process of the run). Only exercises
that have a grader are graded. Figures go in bench/README.md.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.measure import CoresBusy, CpuAccount, MemorySampler  # noqa: E402
from modlab.course import load_course  # noqa: E402
from modlab.instructor.variants import load_variants  # noqa: E402

BIN = Path(sys.executable).parent
ADVERSARIAL = {  # student -> (file, code, whether the code replaces the reference file or follows it)
    "adv_exit_at_import": ("parameter.py", "import sys\nsys.exit(0)\n", "replaces"),
    "adv_os_exit_at_import": ("registration.py", "import os\nos._exit(0)\n", "replaces"),
    "adv_fake_results": ("walk.py", 'print(\'{"score": 100, "tests": []}\')\nprint("===== 42 passed in 0.01s =====")\n'
                                    'import sys\nprint("<testsuite failures=\\"0\\"/>", file=sys.stderr)\n', "follows"),
    "adv_patches_torch": ("parameter.py", "import torch\ntorch.equal = lambda *a, **k: True\n"
                                          "torch.allclose = lambda *a, **k: True\n", "follows"),
    "adv_delegates_to_torch": ("containers.py", "from torch.nn import Sequential, ModuleList, ModuleDict\n", "replaces"),
    "adv_hangs_in_repr": ("parameter.py", "Parameter.__repr__ = lambda self: str(any(iter(int, 1)))\n", "follows"),
}

# Follows every file of a hanging student's package: every function and method sleeps for an hour.
SLEEPS = """
import time as _time


def _asleep(*args, **kwargs):
    _time.sleep(3600)


for _value in [v for v in globals().values() if getattr(v, "__module__", None) == __name__]:
    for _name, _member in (list(vars(_value).items()) if isinstance(_value, type) else []):
        if callable(_member) and not isinstance(_member, type):
            setattr(_value, _name, _asleep)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2, help="modlab grade -j (default 2)")
    parser.add_argument("--nbgrader-sample", type=int, default=6, metavar="K",
                        help="students nbgrader grades (at least 3); 0 skips nbgrader (default 6)")
    parser.add_argument("--hanging", type=int, default=5, metavar="H",
                        help="students among them whose every method sleeps for an hour (default 5)")
    parser.add_argument("--growth", type=lambda text: [int(n) for n in text.split(",")], metavar="N,N,...",
                        help="grade classes of these sizes with modlab only and print how cost grows")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, help="keep the class and results here (default: a temporary folder)")
    args = parser.parse_args()
    if 0 < args.nbgrader_sample < 3:
        parser.error("--nbgrader-sample: at least 3, to tell nbgrader's start-up from its cost per student")
    course = load_course(ROOT / "course.yaml")
    exercises = [e for e in course.exercises if course.grader_file(e).is_file()]
    work = args.workdir or Path(tempfile.mkdtemp(prefix="modlab-bench-"))
    env = isolated_environment(work)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
          f"exercises with graders: {' '.join(e.id for e in exercises)}; work folder {work}")

    nbcourse = work / "nbcourse"
    run([BIN / "modlab", "--course", ROOT / "course.yaml", "nbgrader", "init", nbcourse, "--force"], env)
    for exercise in exercises:
        run([BIN / "nbgrader", "generate_assignment", exercise.name, "--force", "--log-level=ERROR"], env, cwd=nbcourse)
    if args.growth:
        print_growth([grade_with_modlab(course, exercises, class_packages(course, size, args.seed, args.hanging),
                                        nbcourse, work / f"class-{size}", env, args.jobs)
                      for size in args.growth])
        return 0
    packages = class_packages(course, args.students, args.seed, args.hanging)
    klass = work / "class"
    print(f"class: {len(packages)} students ({', '.join(f'{n} {k}' for k, n in kinds(packages).items())})")
    report = grade_with_modlab(course, exercises, packages, nbcourse, klass, env, args.jobs)
    records = report.pop("records")
    if args.nbgrader_sample:
        awake = sorted(s for s, package in packages.items() if package["kind"] != "hangs")  # nbgrader: 1 h each
        sample = random.Random(args.seed).sample(awake, min(args.nbgrader_sample, len(awake)))
        report["nbgrader"] = grade_with_nbgrader(nbcourse, klass, sample, exercises, env, records)
        again = grade_with_modlab(course, exercises, packages, nbcourse, klass, env, args.jobs, "again")
        report["modlab_again"] = again["modlab"]
        report["modlab_again"]["same_scores"] = scores(again["records"]) == scores(records)
        report["ratios"] = ratios(report["modlab"], report["modlab_again"], report["nbgrader"])
    print_report(report)
    (work / "bench.json").write_text(json.dumps(report, indent=2))
    print(f"figures in {work / 'bench.json'}")
    return 0


def grade_with_modlab(course, exercises, packages: dict, nbcourse: Path, klass: Path, env: dict, jobs: int,
                      again: str = "") -> dict:
    """Write the class and grade it with ``modlab grade -j JOBS``: its figures, and its records.
    ``again`` grades the class already written once more, into results of that name."""
    if not again:
        write_class(course, exercises, packages, nbcourse / "release", klass)
    results = klass.parent / f"{klass.name}-results{'-' + again if again else ''}"
    measured = measure([BIN / "modlab", "--course", ROOT / "course.yaml", "grade", klass, "-j", jobs,
                        "--out", results], env)
    records = load_records(results)
    hanging = [s for s, package in packages.items() if package["kind"] == "hangs"]
    return {"students": len(packages), "exercises": [e.id for e in exercises], "jobs": jobs,
            "modlab": modlab_figures(measured, records, jobs, hanging), "records": records}


# --- the class ----------------------------------------------------------------------------------

def class_packages(course, count: int, seed: int, hanging: int = 0) -> dict[str, dict]:
    """student -> {"kind": ..., "files": {file: text}}: every student's whole package.

    The first ``hanging`` students' every method sleeps; the rest are as the module says.
    """
    reference = {p.name: p.read_text() for p in course.solutions.glob("*.py")}
    stubs = {p.name: p.read_text() for p in (ROOT / "exercises" / course.package).glob("*.py")}
    variants = buggy_variants(course)
    students = {f"hangs_{index}": {"kind": "hangs", "files": {name: text + SLEEPS for name, text in reference.items()}}
                for index in range(hanging)}
    students.update({"reference": {"kind": "reference", "files": reference},
                     "stubs": {"kind": "stubs", "files": stubs}})
    for name, (file, text) in variants.items():
        students[f"bug_{name}"] = {"kind": "buggy variant", "files": {**reference, file: text}}
    for name, (file, code, how) in ADVERSARIAL.items():
        text = code if how == "replaces" else reference[file] + "\n" + code
        students[name] = {"kind": "adversarial", "files": {**reference, file: text}}
    draw = random.Random(seed)
    by_file = {}
    for name, (file, text) in variants.items():
        by_file.setdefault(file, []).append(text)
    index = 0
    while len(students) < count:
        files = dict(reference)
        for exercise in course.exercises:
            roll = draw.random()
            for file in exercise.files:
                if roll < 0.15:
                    files[file] = stubs[file]
                elif roll < 0.40 and by_file.get(file):
                    files[file] = draw.choice(by_file[file])
        students[f"student{index:03d}"] = {"kind": "random mix", "files": files}
        index += 1
    return dict(list(students.items())[:count])


def buggy_variants(course) -> dict[str, tuple[str, str]]:
    """Each labelled variant applied to the reference: name -> (file, text)."""
    return {v.name: (v.file, v.apply((course.solutions / v.file).read_text()))
            for v in load_variants(course)}


def kinds(packages: dict) -> dict[str, int]:
    counts: dict[str, int] = {}
    for package in packages.values():
        counts[package["kind"]] = counts.get(package["kind"], 0) + 1
    return counts


def write_class(course, exercises, packages: dict, release: Path, klass: Path) -> None:
    """nbgrader's layout: submitted/<student>/<assignment>/ is the released assignment
    with the student's versions of its files."""
    for student, package in packages.items():
        for exercise in exercises:
            folder = klass / student / exercise.name
            shutil.copytree(release / exercise.name, folder)
            for path in (folder / course.package).glob("*.py"):
                path.write_text(package["files"][path.name])


# --- running and measuring ---------------------------------------------------------------------

def isolated_environment(work: Path) -> dict:
    """Jupyter and nbgrader see only folders of this run; this interpreter's scripts come first."""
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    for variable, sub in (("HOME", "home"), ("JUPYTER_CONFIG_DIR", "home/.jupyter"),
                          ("JUPYTER_DATA_DIR", "home/jupyter-data"), ("JUPYTER_RUNTIME_DIR", "home/jupyter-runtime")):
        (work / sub).mkdir(parents=True, exist_ok=True)
        env[variable] = str(work / sub)
    for variable in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH"):
        env.pop(variable, None)
    return env


def run(command: list, env: dict, cwd: Path | None = None) -> None:
    subprocess.run([str(c) for c in command], env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)


def measure(command: list, env: dict, cwd: Path | None = None) -> dict:
    """Run a command; its wall time, CPU time (all its processes) and peak memory."""
    account, busy = CpuAccount(), CoresBusy()
    started = time.monotonic()
    process = subprocess.Popen([str(c) for c in command], env=env, cwd=cwd, stdout=subprocess.PIPE, text=True,
                               preexec_fn=account.join)
    sampler = MemorySampler(process.pid)
    sampler.start()
    output = process.communicate()[0]
    wall, cores_busy = time.monotonic() - started, busy.cores()
    sampler.stop()
    if process.returncode not in (0, 1):  # 1: some submission could not be graded, still measured
        raise SystemExit(f"{command[0]} failed with exit code {process.returncode}:\n{output}")
    load = sum(sampler.loads) / len(sampler.loads) if sampler.loads else os.getloadavg()[0]
    return {"wall_s": wall, "cpu_s": account.seconds(), "peak_pss_mib": sampler.peak / 2**20, "load": load,
            "cores_busy": cores_busy, "output": output}


def load_records(results: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in (results / "students").glob("*.json")}


def scores(records: dict[str, dict]) -> dict[str, list[float]]:
    return {student: [e["score"] for e in record["exercises"]] for student, record in records.items()}


def tests_seconds(records: dict[str, dict]) -> float:
    """The grader tests' own time per submission: what any pipeline running them pays."""
    return sum(t["seconds"] for r in records.values() for e in r["exercises"] for t in e["tests"]) / len(records)


def modlab_figures(measured: dict, records: dict[str, dict], jobs: int, hanging: list[str]) -> dict:
    graded = len(records)
    per_submission = measured["wall_s"] * jobs / graded  # in one of the `jobs` processes
    return {
        "graded": graded, "wall_s": round(measured["wall_s"], 1), "class_wall_s": round(measured["wall_s"], 1),
        "per_minute": round(graded / measured["wall_s"] * 60, 2),
        "process_s_per_submission": round(per_submission, 2),
        "tests_s_per_submission": round(tests_seconds(records), 2),
        "overhead_s_per_submission": round(per_submission - tests_seconds(records), 2),
        "cpu_s_per_submission": _per(measured["cpu_s"], graded),
        "peak_pss_mib": round(measured["peak_pss_mib"]), "mean_load_average": round(measured["load"], 1),
        "cores_busy": _rounded(measured["cores_busy"]),
        "hanging": len(hanging),
        "hanging_s_each": round(tests_seconds({s: records[s] for s in hanging}), 1) if hanging else None,
        "hanging_score": sum(e["score"] for s in hanging for e in records[s]["exercises"]) if hanging else None,
    }


def grade_with_nbgrader(nbcourse: Path, klass: Path, sample: list[str], exercises, env: dict,
                        records: dict[str, dict]) -> dict:
    """`nbgrader autograde`, one run per exercise as an instructor runs it, in two rounds:
    one student, then the rest of the sample (nbgrader skips what it graded before).

    An autograde run pays its start-up (nbgrader, and a fresh torch, zygote and
    oracle for the trusted pipeline) once per exercise, whatever the number of
    students: the two rounds tell that fixed cost from the cost of each student,
    and the class is extrapolated from both, not from the sample's average.
    """
    each = "; ".join(f"nbgrader autograde {e.name} --log-level=ERROR" for e in exercises)
    rounds = []
    for students in (sample[:1], sample[1:]):
        for student in students:
            shutil.copytree(klass / student, nbcourse / "submitted" / student)
        rounds.append(measure(["sh", "-c", each], env, cwd=nbcourse))
    one, rest = rounds
    per_student = (rest["wall_s"] - one["wall_s"]) / (len(sample) - 2)
    fixed = one["wall_s"] - per_student
    class_wall = fixed + len(records) * per_student
    mine = {s: records[s] for s in sample}
    cpu = None if one["cpu_s"] is None else one["cpu_s"] + rest["cpu_s"]
    return {
        "graded": len(sample), "wall_s": round(one["wall_s"] + rest["wall_s"], 1),
        "fixed_s": round(fixed, 1), "per_student_s": round(per_student, 2),
        "class_wall_s": round(class_wall), "per_minute": round(len(records) / class_wall * 60, 2),
        "process_s_per_submission": round(per_student, 2),
        "tests_s_per_submission": round(tests_seconds(mine), 2),
        "overhead_s_per_submission": round(per_student - tests_seconds(mine), 2),
        "cpu_s_per_submission": _per(cpu, len(sample)),
        "peak_pss_mib": round(max(one["peak_pss_mib"], rest["peak_pss_mib"])),
        "mean_load_average": round((one["load"] + rest["load"]) / 2, 1),
        "cores_busy": None if None in (one["cores_busy"], rest["cores_busy"]) else
        round((one["cores_busy"] * one["wall_s"] + rest["cores_busy"] * rest["wall_s"]) / (one["wall_s"] + rest["wall_s"]), 2),
        "agrees_with_modlab": compare_gradebooks(nbcourse, env, records, sample, exercises),
    }


def _per(total: float | None, count: int) -> float | None:
    return None if total is None else round(total / count, 2)


def compare_gradebooks(nbcourse: Path, env: dict, records: dict, sample: list[str], exercises) -> str:
    """nbgrader's exported scores against modlab's records of the same students."""
    export = nbcourse / "grades.csv"
    run([BIN / "nbgrader", "export", "--to", export, "--log-level=ERROR"], env, cwd=nbcourse)
    theirs = {(row["student_id"], row["assignment"]): float(row["raw_score"] or 0)
              for row in csv.DictReader(export.open())}
    differ = []
    for student in sample:
        for exercise in records[student]["exercises"]:
            name = next(e.name for e in exercises if e.id == exercise["id"])
            if abs(theirs.get((student, name), -1) - exercise["score"]) > 1e-3:
                differ.append(f"{student} {name}: nbgrader {theirs.get((student, name))}, modlab {exercise['score']}")
    return "yes" if not differ else "NO: " + "; ".join(differ[:5])


def print_report(report: dict) -> None:
    m, again, n = report["modlab"], report.get("modlab_again") or {}, report.get("nbgrader") or {}
    print(f"\n{report['students']} students, exercises {' '.join(report['exercises'])}")
    rows = [("", f"modlab grade -j {report['jobs']}", "again, after nbgrader" if again else "",
             "nbgrader autograde" if n else ""),
            ("students graded", str(m["graded"]), str(again["graded"]) if again else "",
             f"{n['graded']} (a sample)" if n else "")]

    def row(label: str, key: str, form: str) -> None:
        rows.append((label, *(_shown(figures.get(key), form) if figures else "" for figures in (m, again, n))))

    row("wall time measured", "wall_s", "{:.0f} s")
    row("wall time for the whole class", "class_wall_s", "{:.0f} s")
    row("submissions per minute", "per_minute", "{:.2f}")
    row("time per submission, one process", "process_s_per_submission", "{:.2f} s")
    row("grader tests' own time per submission", "tests_s_per_submission", "{:.2f} s")
    row("overhead per submission beyond the tests", "overhead_s_per_submission", "{:.2f} s")
    row("CPU time per submission, all processes", "cpu_s_per_submission", "{:.2f} s")
    row("peak memory (PSS, all processes)", "peak_pss_mib", "{} MiB")
    row("machine load average meanwhile", "mean_load_average", "{:.1f}")
    row(f"cores busy meanwhile, of {os.cpu_count()} (whole machine)", "cores_busy", "{:.2f}")
    width = [max(len(r[i]) for r in rows) for i in range(4)]
    for line in rows:
        print("  ".join([f"{line[0]:<{width[0]}}", *(f"{cell:>{size}}" for cell, size in zip(line[1:], width[1:]))]))
    if m["hanging"]:
        print(f"{m['hanging']} hanging students (every method sleeps): {m['hanging_s_each']:.1f} s of grading each, "
              f"in one process; scored {m['hanging_score']:g} in all")
    if n:
        print(f"nbgrader's whole class is extrapolated from its sample: {n['fixed_s']:.0f} s of start-up "
              f"({len(report['exercises'])} autograde runs) + {n['per_student_s']:.1f} s per student")
        ratio = report["ratios"]
        print(f"modlab's figures for the ratios: the mean wall time of its two runs, {ratio['modlab_wall_s']:.0f} s "
              f"({m['wall_s']:.0f} s before nbgrader, {again['wall_s']:.0f} s after)")
        print(f"throughput on this machine: modlab {ratio['on_the_machine']:.1f}x nbgrader "
              f"(submissions per minute; modlab grades in {report['jobs']} processes, nbgrader's autograde in one)")
        print(f"per process: modlab {ratio['per_process']:.1f}x nbgrader (time per submission in one process)")
        print(f"nbgrader's scores equal modlab's: {n['agrees_with_modlab']}; modlab's two runs gave the same scores: "
              f"{'yes' if again['same_scores'] else 'NO'}")


def ratios(first: dict, again: dict, nbgrader: dict) -> dict:
    """modlab against nbgrader, from the mean wall time of modlab's runs either
    side of nbgrader's: on this machine (submissions per minute) and per process
    (time per submission in one process)."""
    wall = (first["wall_s"] + again["wall_s"]) / 2
    per_minute = first["graded"] / wall * 60
    per_process = wall * first["process_s_per_submission"] / first["wall_s"]
    return {"modlab_wall_s": round(wall, 1), "on_the_machine": round(per_minute / nbgrader["per_minute"], 1),
            "per_process": round(nbgrader["process_s_per_submission"] / per_process, 1)}


def print_growth(reports: list[dict]) -> None:
    """How modlab's cost grows with the class: time per submission and peak memory at each size."""
    print("\nstudents  wall   per submission, one process  CPU per submission  peak PSS  load")
    for report in reports:
        m = report["modlab"]
        print(f"{report['students']:>8}  {m['wall_s']:>4.0f} s  {m['process_s_per_submission']:>26.2f} s  "
              f"{_shown(m['cpu_s_per_submission'], '{:.2f} s'):>18}  {m['peak_pss_mib']:>4} MiB  "
              f"{m['mean_load_average']:.1f}")


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _shown(value, form: str) -> str:
    return "n/a" if value is None else form.format(value)


if __name__ == "__main__":
    sys.exit(main())
