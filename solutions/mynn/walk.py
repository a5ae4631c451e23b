"""Placeholder."""


class Walk:
    pass
