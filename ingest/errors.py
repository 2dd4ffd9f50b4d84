"""Errors that reach a user as one clear line naming the file and the problem."""

from __future__ import annotations


class SourceError(Exception):
    """A source could not be read. `str(err)` is the one-line message shown to the user."""

    def __init__(self, path: object, problem: str):
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")

    def __reduce__(self):  # raised in ingest's PDF worker process, re-raised in the parent
        return (type(self), (self.path, self.problem))
