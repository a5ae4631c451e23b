"""Reading the reference solution and the graders at run time, and writing beside them."""
import os
import sys

_course = os.path.dirname(os.path.dirname(sys.modules["modlab"].__file__))
_grader = next(m.__file__ for name, m in list(sys.modules.items())
               if name.startswith("modlab_course_") and getattr(m, "__file__", None))  # a module from a file
for _path in (os.path.join(_course, "tests", "adversarial", "PWNED"), os.path.join(_course, "PWNED")):
    try:
        with open(_path, "w") as _file:
            _file.write("written by a submission")
    except OSError:
        pass
try:
    with open(_grader) as _file:
        _file.read()
    with open(os.path.join(_course, "solutions", "mynn", "parameter.py")) as _file:
        exec(_file.read())  # the reference, in place of the stub: full marks if this worked
except OSError:
    pass
