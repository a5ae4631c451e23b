"""One module per ``modlab`` command; each has ``register(commands)``.

A command parses its arguments, calls the tools below it and prints; what it
prints is written by :mod:`modlab.formats`. May import every layer below the
CLI; never :mod:`modlab.cli`, which finds the commands by name.
"""
