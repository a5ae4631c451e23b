import sys

from modlab.cli import main

sys.exit(main())
