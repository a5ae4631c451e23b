"""The README of the student kit, filled in from ``course.yaml``."""
from __future__ import annotations

from string import Template

from modlab.course import Course
from modlab.pins import FILE as CONSTRAINTS
from modlab.pins import read_pins

TEMPLATE = Template("""\
# $title

$summary In this course you build your own package, `$package`, one exercise at a time, and every
piece is checked against the real `$oracle`. Each exercise has a lesson notebook (`$notebook`,
...) that explains the idea, shows it on real `$oracle`, and lists exactly what you write.

## For students

### Set up (once)

Inside this folder, preferably in a fresh virtual environment
(`python -m venv .venv`, then `source .venv/bin/activate` on Linux and macOS or
`.venv\\Scripts\\activate` on Windows):

```sh
$install
modlab status                         # your exercises, their checks and due dates
```

That installs the `modlab` tool, JupyterLab and $torch, built for the CPU: $cpu_size
instead of the several GB of a CUDA build; every check runs on the CPU. `modlab check` warns in one line when the
torch installed differs from the course's.

Have an NVIDIA GPU and want the course's CUDA cases to run on it too? Install the same
command with `--extra-index-url` set to the index that
[pytorch.org/get-started/locally](https://pytorch.org/get-started/locally/) gives for your CUDA
version, or, on Linux, leave `--extra-index-url ...` out: the torch wheel on PyPI for Linux is the
CUDA build. Keep `-c constraints.txt` either way.

### Each exercise

```sh
$steps
```

- `modlab check NN` runs the exercise's **public** checks on your whole `$package/` package and prints
  each one, passed or failed, with what `$oracle` did, what your code did, and the misconception
  it points to. The last cell of each notebook runs the same command. The checks that grade your
  submission include more cases than the public ones, so a passing check is a good sign, not a
  promise.
- Exercises build on each other: when a check fails inside an earlier exercise's code, the
  message says which exercise to fix first.
- `modlab submit NN` runs the checks once more (a failure warns, it does not stop you), then writes
  `submissions/<student>-NN-<time>.zip` holding exactly that exercise's files (for an exercise
  graded on your whole package, every file of `$package/`) and a manifest
  (checksums, time, tool version).$upload
  Submitting again never overwrites an earlier submission. Your student id comes from
  `--student`, else from `JUPYTERHUB_USER`, else from your login name.
- `modlab COMMAND --help` explains each command with an example.

### The exercises

| id | title | you write | points | due |
| --- | --- | --- | --- | --- |
$table

### What is in this folder

| path | what it is |
| --- | --- |
| `$package/` | your package: every file you edit is here, beside the given files that no exercise lists (read them, leave them as they are: grading always uses them as given) |
| `NN_slug.ipynb` | the lesson notebooks |
| `graders/` | the public checks (read them: they show exactly what is compared) |
| `course.yaml` | the exercises, as `modlab` reads them (do not edit) |
| `modlab/`, `pyproject.toml` | the `modlab` tool that `pip install` sets up: `check`, `status`, `submit`, `doctor`, `env` |
| `constraints.txt` | the versions the course grades with, which `pip install -c` keeps to |
| `submissions/` | your submissions, created by `modlab submit` |

On Linux, your first `modlab check` at a terminal starts a check server in the background. It
keeps torch and the checks loaded until 10 minutes after your last check, so later checks answer
in well under a second; your code is read fresh from disk each time. A notebook's check cell
starts one too, which ends when you shut the notebook's kernel down. `MODLAB_CHECK_SERVER=0`
turns it off, and `.modlab/check-server.log` says why if it cannot start.

Works on Linux, macOS and Windows. Where processes are spawned rather than forked (macOS,
Windows), each check starts a few seconds slower, and the resource limits that guard grading on
Linux are not applied: `modlab` says so in one line and carries on.
""")

# PyTorch's index of CPU-only wheels (https://pytorch.org/get-started/locally/): pip takes the
# pinned torch from there (its `+cpu` build sorts above PyPI's) and everything else from PyPI.
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
# A fresh venv holding the kit with torch 2.13.0+cpu: 990 MB (measured for issue 16); the CUDA build: 5.7 GB.
CPU_SIZE = "about 1 GB installed"

UPLOAD = "\n  Upload that file where your course asks you to."
EXCHANGE = "\n  It also hands the submission to the course's nbgrader exchange, where your instructor collects it."


def install_command(target: str = '".[notebook]"') -> str:
    """The one command that installs the kit: the course's pins, torch built for the CPU.

    Example::

        install_command(".")   # 'python -m pip install -c constraints.txt --extra-index-url ... .'
    """
    return f"python -m pip install -c {CONSTRAINTS} --extra-index-url {CPU_INDEX} {target}"


def student_readme(course: Course) -> str:
    """The kit's README.md for this course."""
    rows = []
    for exercise in course.exercises:
        files = ", ".join(f"`{course.package}/{name}`" for name in exercise.files)
        due = exercise.due.strftime("%Y-%m-%d %H:%M UTC") if exercise.due else "-"
        title = exercise.title.replace("_", "\\_")  # Markdown would read __call__ as bold
        rows.append(f"| {exercise.id} | {title} | {files} | {exercise.points:g} | {due} |")
    first = course.exercises[0]
    steps = [(f"jupyter lab {first.name}.ipynb", "read the lesson, run its examples"),
             ("", f"write your code in {course.package}/{first.files[0]}"),
             (f"modlab check {first.id}", "the public checks: seconds the first time, then under one"),
             (f"modlab submit {first.id} --student YOUR_ID", "package your files for submission"),
             ("modlab status", "what is checked and submitted")]
    width = max(len(command) for command, _ in steps) + 2
    return TEMPLATE.substitute(title=course.title, summary=course.summary, package=course.package,
                               oracle=course.oracle.module, table="\n".join(rows),
                               install=install_command(), torch=pinned_torch(course), cpu_size=CPU_SIZE,
                               upload=EXCHANGE if course.exchange else UPLOAD, notebook=f"{first.name}.ipynb",
                               steps="\n".join(f"{command:<{width}}# {what}" for command, what in steps))


def pinned_torch(course: Course) -> str:
    """The torch the course grades with, as the README names it."""
    version = read_pins(course.root / CONSTRAINTS).get("torch")
    return f"PyTorch {version}, the version your work is graded with (`{CONSTRAINTS}` pins it)" if version \
        else "PyTorch"
