"""Errors raised on purpose, each with the exit code a command ends with when it stops one.

The codes are documented in README.md ("Exit codes"); a class per code, so that the command
line reads the code off the error instead of testing its type.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

__all__ = ["ExitCode", "exit_code_for", "KakuroError", "PuzzleFormatError", "InvalidPuzzleError", "MissingDependencyError",
           "Problem"]


class ExitCode(IntEnum):
    """Documented in README.md; the worst outcome of a run decides."""

    ok = 0                  # solved, solution unique
    ambiguous = 1           # solved, but more than one solution
    bad_args = 2            # command line misused (as argparse)
    input_file = 3          # input missing, unreadable, not an image or puzzle file, truncated
    grid_not_found = 4      # no puzzle grid on the image
    unsolvable = 5          # clues contradict each other: no solution
    partial_batch = 6       # a batch where some inputs failed
    missing_dependency = 7  # a program or package the command needs is missing
    unreadable = 8          # grid found but some clue could not be read for certain
    invalid_puzzle = 9      # a puzzle file that breaks the rules (impossible clue, ...)
    other_error = 15        # a bug: please report it with -vv output
    ctrl_c = 130


class KakuroError(Exception):
    """Base of every error this project raises on purpose."""

    exit_code = ExitCode.other_error


class PuzzleFormatError(KakuroError):
    """A puzzle file that cannot be parsed (or an input of the wrong kind for the command)."""

    exit_code = ExitCode.input_file


class MissingDependencyError(KakuroError):
    """A program or package the command needs is not installed; the message says which."""

    exit_code = ExitCode.missing_dependency


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

    exit_code = ExitCode.invalid_puzzle

    def __init__(self, problems: list[Problem] | tuple[Problem, ...]):
        self.problems = tuple(problems)
        first = str(self.problems[0]) if self.problems else "invalid puzzle"
        more = f" (and {len(self.problems) - 1} more problem(s))" if len(self.problems) > 1 else ""
        super().__init__(first + more)


def exit_code_for(exc: BaseException) -> ExitCode:
    """The exit code a command ends with when ``exc`` stops it: the error's own, 3 for a file the
    system could not read or write, 130 for Ctrl-C, 15 (a bug) for anything unforeseen."""
    if isinstance(exc, KakuroError):
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        return ExitCode.ctrl_c
    if isinstance(exc, OSError):
        return ExitCode.input_file
    return ExitCode.other_error
