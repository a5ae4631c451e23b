"""How long a student waits for ``modlab check NN``, and for ``modlab status``.

Writes a student kit holding the reference code (``modlab release`` without
its leak scan, so it runs whatever the repository's state), then times each
command as a student runs it: a fresh ``modlab`` process per check, with fork
(Linux) and spawn (macOS, Windows) workers.

    .venv/bin/python bench/student_check.py            # every exercise with public checks
    .venv/bin/python bench/student_check.py 01 03      # just these

Prints one line per exercise: wall seconds with fork and with spawn.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from modlab.course import load_course  # noqa: E402
from modlab.instructor.release import kit_files  # noqa: E402


def write_kit(course, folder: Path) -> Path:
    for relpath, text in kit_files(course).items():
        (folder / relpath).parent.mkdir(parents=True, exist_ok=True)
        (folder / relpath).write_text(text, encoding="utf-8")
    for source in course.solutions.glob("*.py"):
        shutil.copy(source, folder / course.package / source.name)
    return folder


def timed(kit: Path, *args: str, start_method: str | None = None) -> tuple[float, str]:
    env = {k: v for k, v in os.environ.items() if k != "MODLAB_START_METHOD"}
    if start_method:
        env["MODLAB_START_METHOD"] = start_method
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "modlab", *args], cwd=kit, env=env, capture_output=True, text=True)
    last = (done.stdout.strip().splitlines() or [done.stderr.strip()])[-1]
    return time.monotonic() - started, last


def main(wanted: list[str]) -> int:
    course = load_course(ROOT / "course.yaml")
    with tempfile.TemporaryDirectory() as folder:
        kit = write_kit(course, Path(folder))
        exercises = [e for e in course.exercises if (kit / "graders" / f"test_{e.name}.py").is_file()
                     and (not wanted or e.id in wanted)]
        print(f"{'ex':<4}{'fork':>8}{'spawn':>8}  result")
        for exercise in exercises:
            fork, result = timed(kit, "check", exercise.id, start_method="fork")
            spawn, _ = timed(kit, "check", exercise.id, start_method="spawn")
            print(f"{exercise.id:<4}{fork:>7.1f}s{spawn:>7.1f}s  {result}")
        status, _ = timed(kit, "status")
        print(f"modlab status: {status:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
