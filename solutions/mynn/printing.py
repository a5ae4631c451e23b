"""Placeholder."""


class Printing:
    pass
