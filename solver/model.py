"""The puzzle model: an immutable grid of black, clue and white cells, and what a reader saw of
one clue side (``SideReading``): the types ``vision`` hands the solver, in the one place both use.

Coordinates are ``(row, col)``, 0-based in code; messages for people count from 1.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, Mapping

__all__ = ["Clue", "Run", "Puzzle", "Solution", "Cell", "Direction", "SideKey", "SideReading", "run_cells"]

Cell = tuple[int, int]
Direction = Literal["across", "down"]
#: One side of a clue cell: the cell and which sum it holds.
SideKey = tuple[Cell, Direction]


@dataclass(frozen=True, slots=True)
class Clue:
    """A clue cell. ``down`` is printed lower-left, ``across`` upper-right; either may be None."""

    row: int
    col: int
    down: int | None = None
    across: int | None = None


@dataclass(frozen=True, slots=True)
class Run:
    """A maximal line of white cells that one clue sums."""

    direction: Literal["across", "down"]
    clue: Cell
    total: int
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Puzzle:
    """A Kakuro grid.

    Every cell that is neither white nor a clue cell is a plain black cell.
    ``givens`` maps white cells to digits already filled in (printed givens or solved values).
    """

    n_rows: int
    n_cols: int
    whites: frozenset[Cell]
    clues: tuple[Clue, ...]
    givens: tuple[tuple[Cell, int], ...] = field(default=())

    def __post_init__(self) -> None:
        # Canonical order makes equal puzzles compare (and hash) equal.
        object.__setattr__(self, "clues", tuple(sorted(self.clues, key=lambda c: (c.row, c.col))))
        object.__setattr__(self, "givens", tuple(sorted(self.givens)))
        object.__setattr__(self, "whites", frozenset(self.whites))

    @cached_property
    def clue_at(self) -> Mapping[Cell, Clue]:
        return {(c.row, c.col): c for c in self.clues}

    @cached_property
    def given_at(self) -> Mapping[Cell, int]:
        return dict(self.givens)

    def kind(self, row: int, col: int) -> Literal["black", "clue", "white"]:
        if (row, col) in self.whites:
            return "white"
        if (row, col) in self.clue_at:
            return "clue"
        return "black"

    @cached_property
    def runs(self) -> tuple[Run, ...]:
        """Every clued run, in reading order of its clue cell (across before down)."""
        runs: list[Run] = []
        for clue in self.clues:
            for direction, total, (dr, dc) in (("across", clue.across, (0, 1)), ("down", clue.down, (1, 0))):
                if total is None:
                    continue
                runs.append(Run(direction, (clue.row, clue.col), total,
                                run_cells(self.whites, (clue.row, clue.col), direction)))
        return tuple(runs)

    def with_givens(self, givens: Mapping[Cell, int]) -> "Puzzle":
        return Puzzle(self.n_rows, self.n_cols, self.whites, self.clues, tuple(givens.items()))


@dataclass(frozen=True)
class Solution:
    """What the solver found.

    status: ``unique`` (one solution, proven), ``multiple`` (two found; ``values`` and ``other``
    differ at ``differing``), ``none`` (proven to have no solution) or ``unknown`` (time limit).
    """

    status: Literal["unique", "multiple", "none", "unknown"]
    values: Mapping[Cell, int] = field(default_factory=dict)
    other: Mapping[Cell, int] | None = None
    differing: tuple[Cell, ...] = ()
    seconds: float = 0.0

    @property
    def solved(self) -> bool:
        return self.status in ("unique", "multiple")


def run_cells(whites: frozenset[Cell] | set[Cell], head: Cell, direction: str) -> tuple[Cell, ...]:
    """The white cells of the run that the clue cell ``head`` heads, ``across`` or ``down``."""
    dr, dc = (0, 1) if direction == "across" else (1, 0)
    cells = []
    r, c = head[0] + dr, head[1] + dc
    while (r, c) in whites:
        cells.append((r, c))
        r, c = r + dr, c + dc
    return tuple(cells)


@dataclass(frozen=True)
class SideReading:
    """What the reader saw on one side of a clue cell.

    ``options`` are (value, probability) pairs, best first; empty: nothing legible. ``confidence``
    is how sure the reader is of its first choice (lower than its probability when a runner-up
    was close or two readers disagreed); None: the first choice's probability.
    """

    cell: Cell
    direction: Direction
    options: tuple[tuple[int, float], ...]
    confidence: float | None = None

    @property
    def sureness(self) -> float | None:
        """How sure the reader is of its first choice: ``confidence``, else that choice's
        probability; None where nothing legible was read."""
        if not self.options:
            return None
        return self.options[0][1] if self.confidence is None else self.confidence
