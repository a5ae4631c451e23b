"""``python -m modlab``: the ``modlab`` command (:mod:`modlab.cli`); may import only it."""
import sys

from modlab.cli import main

sys.exit(main())
