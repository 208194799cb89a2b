"""Errors raised by the solver side; ``pipeline`` maps each class to an exit code."""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KakuroError", "PuzzleFormatError", "InvalidPuzzleError", "Problem"]


class KakuroError(Exception):
    """Base of every error this project raises on purpose."""


class PuzzleFormatError(KakuroError):
    """A puzzle file that cannot be parsed."""


@dataclass(frozen=True)
class Problem:
    """One rule a puzzle breaks. ``row``/``col`` are 0-based; ``str()`` counts from 1 as people do."""

    row: int | None
    col: int | None
    rule: str
    message: str
    direction: str | None = None

    def __str__(self) -> str:
        if self.row is None:
            return self.message
        return f"row {self.row + 1}, column {self.col + 1}: {self.message}"


class InvalidPuzzleError(KakuroError):
    """A puzzle that breaks the rules of Kakuro; ``problems`` lists every rule broken."""

    def __init__(self, problems: list[Problem] | tuple[Problem, ...]):
        self.problems = tuple(problems)
        first = str(self.problems[0]) if self.problems else "invalid puzzle"
        more = f" (and {len(self.problems) - 1} more problem(s))" if len(self.problems) > 1 else ""
        super().__init__(first + more)
