"""Placeholder."""


class Calling:
    pass
