"""The one error every layer may raise for bad input from the user.

The CLI prints it as one line and exits with status 2 (see :mod:`modlab.cli`);
a ``course.yaml`` that does not validate raises :class:`modlab.course.CourseError`,
shown the same way. Imports nothing: every layer may raise it.
"""


class UsageError(Exception):
    """Bad input from the user: one line, exit status 2.

    Example::

        raise UsageError("mynn/losses.py is missing: exercise 03 is written in mynn/losses.py")
    """
