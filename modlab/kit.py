"""What the student kit's ``modlab`` is made of: the student's commands and the code they run.

One list, read by both sides: :mod:`modlab.student_cli` registers exactly
these commands, and ``modlab release`` copies exactly these modules into the
kit, so the kit's ``modlab --help`` shows the student's commands and the kit
holds no instructor tool (build, release, nbgrader, batch grading, reports).
A check grades the student's package through the engine, in workers, so the
kit needs every layer from the engine down (see the contracts in
``pyproject.toml``).

Imports nothing.
"""

# The kit's commands (modules of modlab.commands), in the order `modlab --help` lists them.
COMMANDS = ("check", "status", "submit", "doctor", "env")

# The modules of modlab.commands that are not commands: the program, and the
# check server that answers the student's repeated checks (and the notebook kernel it ends with).
PROGRAM = ("program", "check_server", "serving", "notebook_kernel")

# The modules and packages of modlab the commands need, besides the program itself.
PACKAGES = ("student", "engine", "isolation", "grading", "formats", "records", "folders", "course", "errors",
            "pins", "kit", "fingerprint")

# What those import from outside the standard library: the kit's dependencies
# (pinned by the kit's constraints.txt). torch needs numpy for tensors' bytes.
REQUIRES = ("torch", "numpy", "PyYAML", "hypothesis", "rich")
