"""Placeholder."""


class State:
    pass
