"""Placeholder."""


class Migration:
    pass
