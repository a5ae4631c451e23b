"""os._exit(0) at import: the worker ends before it can say anything."""
import os

os._exit(0)
