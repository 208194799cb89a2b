"""Choose a clue reading the puzzle's own rules agree with.

OCR hands over, for every clue a grid's layout requires, a short list of (value, probability)
alternatives. The printed puzzle obeys rules that a misread usually breaks: every clue fits its
run length, across clues and down clues add up to the same total, and the puzzle has exactly one
solution. This module picks the reading that satisfies them and says whether any change to the
reader's first choice was *forced* (the only candidate that works) or a guess (several work), so
that a guess is never presented as solved.
"""
from __future__ import annotations

import itertools
import logging
import math
import time
from dataclasses import dataclass, field
from typing import Literal

from .model import Cell, Clue, Puzzle, Solution
from .solve import solve_puzzle

__all__ = ["SideReading", "Correction", "Reconciled", "reconcile_reading", "run_sum_range"]

log = logging.getLogger(__name__)

Direction = Literal["across", "down"]

#: A side read with at least this probability is trusted; the search never changes it.
TRUSTED = 0.97
#: Upper bounds that keep the search short on a badly read grid.
MAX_SUSPECTS = 14
MAX_CHANGES = 2
MAX_SOLVES = 200
#: Wall-clock budget for trying other readings; past it no correction can be called forced.
SEARCH_BUDGET_S = 4.0
#: First choices below this probability are disputed (the two readers disagreed, or nearly a tie).
DISPUTED = 0.5
#: Budget for looking for a rival reading before a result is called solved.
RIVAL_SOLVES = 150
RIVAL_BUDGET_S = 3.0
#: How much less likely (natural log of the odds) a rival reading may be and still count: 1 in 20.
RIVAL_ODDS = math.log(20)


def run_sum_range(length: int) -> tuple[int, int]:
    """Smallest and largest sum of ``length`` distinct digits 1..9."""
    return length * (length + 1) // 2, length * (19 - length) // 2


@dataclass(frozen=True)
class SideReading:
    """What the reader saw on one side of a clue cell. ``options`` best first; empty: nothing legible."""

    cell: Cell
    direction: Direction
    options: tuple[tuple[int, float], ...]


@dataclass(frozen=True)
class Correction:
    cell: Cell
    direction: Direction
    read: int | None
    used: int
    forced: bool

    def describe(self) -> str:
        r, c = self.cell
        seen = "nothing legible" if self.read is None else str(self.read)
        how = "forced by the puzzle's rules" if self.forced else "a guess"
        return f"row {r + 1}, column {c + 1}, {self.direction}: read {seen}, used {self.used} ({how})"


@dataclass(frozen=True)
class Reconciled:
    """The chosen reading.

    status: ``solved`` (unique solution, every change forced), ``ambiguous`` (the reading has
    several solutions), ``unsolvable`` (no reading within the alternatives has a solution), or
    ``unreadable`` (some clue could not be settled: ``problems`` names it).
    """

    status: Literal["solved", "ambiguous", "unsolvable", "unreadable"]
    puzzle: Puzzle
    solution: Solution | None
    corrections: tuple[Correction, ...] = ()
    problems: tuple[str, ...] = ()
    suspect_runs: tuple[tuple[Cell, Direction], ...] = field(default=())


def _run_lengths(n_rows: int, n_cols: int, whites: frozenset[Cell], cell: Cell, direction: Direction) -> int:
    dr, dc = (0, 1) if direction == "across" else (1, 0)
    r, c = cell[0] + dr, cell[1] + dc
    length = 0
    while (r, c) in whites:
        length += 1
        r, c = r + dr, c + dc
    return length


def _build(n_rows, n_cols, whites, clue_cells, givens, values: dict[tuple[Cell, Direction], int]) -> Puzzle:
    clues = []
    for cell in clue_cells:
        clues.append(Clue(cell[0], cell[1], down=values.get((cell, "down")), across=values.get((cell, "across"))))
    return Puzzle(n_rows, n_cols, whites, tuple(clues), tuple(givens.items()))


def _describe_side(key: tuple[Cell, Direction]) -> str:
    (r, c), direction = key
    return f"row {r + 1}, column {c + 1} ({direction})"


def reconcile_reading(
    n_rows: int,
    n_cols: int,
    whites: frozenset[Cell],
    clue_cells: tuple[Cell, ...],
    sides: tuple[SideReading, ...],
    givens: dict[Cell, int] | None = None,
    *,
    time_limit_s: float = 5.0,
) -> Reconciled:
    """Pick the clue values that make the puzzle valid and uniquely solvable.

    Parameters
    ----------
    n_rows, n_cols : int
        Grid shape.
    whites : frozenset of (row, col)
        White cells.
    clue_cells : tuple of (row, col)
        Every non-white cell that starts a run (the layout says which sides need a number).
    sides : tuple of SideReading
        One per run the layout requires.
    givens : dict, optional
        Digits printed in white cells.
    """
    givens = dict(givens or {})
    lengths = {(s.cell, s.direction): _run_lengths(n_rows, n_cols, whites, s.cell, s.direction) for s in sides}

    # Per side: feasible options, best first, and the reader's raw first choice.
    options: dict[tuple[Cell, Direction], list[tuple[int, float]]] = {}
    raw_first: dict[tuple[Cell, Direction], int | None] = {}
    problems: list[str] = []
    for s in sides:
        key = (s.cell, s.direction)
        lo, hi = run_sum_range(lengths[key]) if lengths[key] <= 9 else (1, 0)
        raw_first[key] = s.options[0][0] if s.options else None
        feasible = [(v, p) for v, p in s.options if lo <= v <= hi]
        if not feasible:
            # Nothing usable was read: every value the run allows is a candidate, none preferred.
            span = max(hi - lo + 1, 1)
            feasible = [(v, 0.5 / span) for v in range(lo, hi + 1)]
        options[key] = feasible
        if lengths[key] > 9:
            problems.append(f"{_describe_side(key)}: run of {lengths[key]} cells is longer than 9")
    if problems:
        first = {k: v[0][0] for k, v in options.items() if v}
        return Reconciled("unreadable", _build(n_rows, n_cols, whites, clue_cells, givens, first), None,
                          problems=tuple(problems))

    first = {k: v[0][0] for k, v in options.items()}
    trusted = {k for k, v in options.items() if v[0][1] >= TRUSTED and raw_first[k] == v[0][0]}
    suspects = sorted((k for k in options if k not in trusted), key=lambda k: options[k][0][1])[:MAX_SUSPECTS]
    solves = 0

    def attempt(values: dict) -> Solution | None:
        nonlocal solves
        solves += 1
        return solve_puzzle(_build(n_rows, n_cols, whites, clue_cells, givens, values), time_limit_s=time_limit_s)

    def totals_balance(values: dict) -> bool:
        across = sum(v for (cell, d), v in values.items() if d == "across")
        down = sum(v for (cell, d), v in values.items() if d == "down")
        return across == down

    def corrections_for(values: dict, forced: bool) -> tuple[Correction, ...]:
        return tuple(
            Correction(k[0], k[1], raw_first[k], v, forced)
            for k, v in sorted(values.items())
            if raw_first[k] != v
        )

    def cost(key, value) -> float:
        return -math.log(max(dict(options[key]).get(value, 1e-6), 1e-6))

    def rival(base: dict, keys: list) -> dict | None | bool:
        """Another reading, at most two changes from ``base`` over ``keys``, that balances and has a
        unique solution: it, False when there is none, None when the budget ran out first."""
        started_at, tried = time.perf_counter(), 0
        for n_changes in (1, 2):
            for ks in itertools.combinations(keys, n_changes):
                for combo in itertools.product(*[[v for v, _ in options[k] if v != base[k]] for k in ks]):
                    values = dict(base)
                    values.update(zip(ks, combo))
                    if not totals_balance(values):
                        continue
                    # Only a reading the readers found nearly as likely is a rival.
                    if sum(cost(k, values[k]) - cost(k, base[k]) for k in ks) > RIVAL_ODDS:
                        continue
                    if tried >= RIVAL_SOLVES or time.perf_counter() - started_at > RIVAL_BUDGET_S:
                        return None
                    tried += 1
                    solution = attempt(values)
                    if solution is not None and solution.status == "unique":
                        return values
        return False

    def rival_problem(base: dict, other) -> str:
        if other is None:
            return "the clues could not all be confirmed in time; check the least certain ones"
        changes = ", ".join(f"{_describe_side(k)} {base[k]} or {v}" for k, v in sorted(other.items()) if base[k] != v)
        return f"two readings give a unique solution ({changes}); check these clues"

    # The reader's own first choices, when the rules accept them, are the reading, unless a clue
    # the readers disagreed on could be read otherwise with the same success.
    changed_first = any(raw_first[k] != first[k] for k in first)
    first_solution = attempt(first) if totals_balance(first) else None
    if first_solution is not None and first_solution.status == "unique" and not changed_first:
        puzzle = _build(n_rows, n_cols, whites, clue_cells, givens, first)
        doubtful = [k for k in suspects if options[k][0][1] < DISPUTED]
        other = rival(first, doubtful) if doubtful else False
        if other is False:
            return Reconciled("solved", puzzle, first_solution)
        return Reconciled("unreadable", puzzle, None, problems=(rival_problem(first, other),),
                          suspect_runs=tuple(doubtful))

    # Other readings that change at most MAX_CHANGES suspect sides, most probable first. A reading
    # with fewer changes always beats one with more, so the first size that balances is the last.
    candidates: list[tuple[float, dict]] = []
    for n_changes in range(1, MAX_CHANGES + 1):
        for keys in itertools.combinations(suspects, n_changes):
            alternatives = [[v for v, _ in options[k] if v != first[k]] for k in keys]
            for combo in itertools.product(*alternatives):
                values = dict(first)
                values.update(zip(keys, combo))
                if totals_balance(values):
                    candidates.append((sum(cost(k, values[k]) - cost(k, first[k]) for k in keys), values))
        if candidates:
            break
    candidates.sort(key=lambda t: t[0])

    started = time.perf_counter()
    working: list[tuple[dict, Solution]] = []
    if first_solution is not None and first_solution.status == "unique":
        working.append((first, first_solution))
    for _, values in candidates:
        if solves >= MAX_SOLVES or len(working) >= 2 or time.perf_counter() - started > SEARCH_BUDGET_S:
            break
        solution = attempt(values)
        if solution is not None and solution.status == "unique":
            working.append((values, solution))
    exhaustive = solves < MAX_SOLVES and time.perf_counter() - started <= SEARCH_BUDGET_S

    if len(working) == 1 and exhaustive:
        values, solution = working[0]
        # The reader erred at least once on this grid, so a second, compensating misread is
        # plausible: the correction counts as forced only if no reading near it works too.
        other = rival(values, suspects)
        if other is not False:
            return Reconciled("unreadable", _build(n_rows, n_cols, whites, clue_cells, givens, values), None,
                              corrections=corrections_for(values, forced=False),
                              problems=(rival_problem(values, other),), suspect_runs=tuple(suspects))
        log.info("clue reading corrected: %d change(s)", sum(values[k] != raw_first[k] for k in values))
        return Reconciled("solved", _build(n_rows, n_cols, whites, clue_cells, givens, values), solution,
                          corrections=corrections_for(values, forced=True))

    puzzle = _build(n_rows, n_cols, whites, clue_cells, givens, first)
    if working:
        choices = "; ".join(
            ", ".join(f"{_describe_side(k)}={v}" for k, v in sorted(values.items()) if values[k] != raw_first[k])
            or "as read"
            for values, _ in working
        )
        return Reconciled("unreadable", puzzle, None, corrections=corrections_for(first, forced=False),
                          problems=(f"more than one reading gives a unique solution ({choices}); check these clues",),
                          suspect_runs=tuple(suspects))
    if first_solution is not None and first_solution.status == "multiple" and not changed_first:
        return Reconciled("ambiguous", puzzle, first_solution,
                          problems=("the clues as read allow more than one solution",), suspect_runs=tuple(suspects))
    across = sum(v for (_, d), v in first.items() if d == "across")
    down = sum(v for (_, d), v in first.items() if d == "down")
    if across != down:
        reason = f"across clues total {across} but down clues total {down}, so the clues contradict each other"
    elif first_solution is not None and first_solution.status == "multiple":
        reason = "no reading of the clues has exactly one solution"
    else:
        reason = "no solution satisfies every clue as read"
    if suspects:
        reason += "; least certain: " + ", ".join(_describe_side(k) for k in suspects[:6])
    return Reconciled("unsolvable", puzzle, None, corrections=corrections_for(first, forced=False),
                      problems=(reason,), suspect_runs=tuple(suspects))
