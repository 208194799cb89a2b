"""Solve a puzzle with CP-SAT and prove its solution unique (or show a second one)."""
from __future__ import annotations

import logging
import time

from ortools.sat.python import cp_model

from .combos import allowed_digits_mask
from .model import Cell, Puzzle, Solution

__all__ = ["solve_puzzle", "propagate"]

log = logging.getLogger(__name__)

_ALL = 0b1111111110  # bits 1..9


def _digits(mask: int) -> list[int]:
    return [d for d in range(1, 10) if mask >> d & 1]


def propagate(puzzle: Puzzle) -> dict[Cell, int] | None:
    """Narrow each white cell's digits by its runs' combinations; None when a cell runs dry.

    Returns a mask (bits 1..9) per white cell. Cheap, and enough to settle easy puzzles.
    """
    masks: dict[Cell, int] = {cell: _ALL for cell in puzzle.whites}
    for cell, digit in puzzle.givens:
        masks[cell] = 1 << digit
    runs = [(run.total, run.cells) for run in puzzle.runs if run.cells]
    changed = True
    while changed:
        changed = False
        for total, cells in runs:
            fixed = 0
            fixed_sum = 0
            free = []
            for cell in cells:
                m = masks[cell]
                if m & (m - 1) == 0:
                    if fixed & m:
                        return None
                    fixed |= m
                    fixed_sum += m.bit_length() - 1
                else:
                    free.append(cell)
            if not free:
                if fixed_sum != total:
                    return None
                continue
            allowed = allowed_digits_mask(total - fixed_sum, len(free), exclude=fixed)
            if allowed == 0:
                return None
            for cell in free:
                new = masks[cell] & allowed & ~fixed
                if new == 0:
                    return None
                if new != masks[cell]:
                    masks[cell] = new
                    changed = True
    return masks


class _StopAtTwo(cp_model.CpSolverSolutionCallback):
    def __init__(self, variables: dict[Cell, cp_model.IntVar]):
        super().__init__()
        self._variables = variables
        self.found: list[dict[Cell, int]] = []

    def on_solution_callback(self) -> None:
        self.found.append({cell: int(self.Value(v)) for cell, v in self._variables.items()})
        if len(self.found) >= 2:
            self.StopSearch()


def solve_puzzle(puzzle: Puzzle, *, time_limit_s: float = 10.0, check_unique: bool = True) -> Solution:
    """Solve ``puzzle``; with ``check_unique`` also prove there is no second solution.

    Parameters
    ----------
    puzzle : Puzzle
        A puzzle that passed validation (runs of 1..9 cells, clues in range).
    time_limit_s : float
        Wall-clock limit for CP-SAT; on expiry the status is ``unknown``.
    check_unique : bool
        Search on for a second solution after the first.

    Returns
    -------
    Solution
        ``unique``, ``multiple`` (with ``other`` and ``differing``), ``none`` or ``unknown``.
    """
    start = time.perf_counter()
    masks = propagate(puzzle)
    if masks is None:
        return Solution("none", seconds=time.perf_counter() - start)
    if all(m & (m - 1) == 0 for m in masks.values()):
        values = {cell: m.bit_length() - 1 for cell, m in masks.items()}
        # Propagation only removes impossible digits, so a full assignment that it reaches is the
        # only one there is, provided it satisfies every run.
        if _satisfies(puzzle, values):
            return Solution("unique", values, seconds=time.perf_counter() - start)
        return Solution("none", seconds=time.perf_counter() - start)

    model = cp_model.CpModel()
    variables = {}
    for cell in sorted(puzzle.whites):
        variables[cell] = model.NewIntVarFromDomain(cp_model.Domain.FromValues(_digits(masks[cell])),
                                                    f"x{cell[0]}_{cell[1]}")
    for run in puzzle.runs:
        if not run.cells:
            continue
        vs = [variables[c] for c in run.cells]
        if len(vs) > 1:
            model.AddAllDifferent(vs)
        model.Add(sum(vs) == run.total)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = time_limit_s
    solver.parameters.enumerate_all_solutions = check_unique
    callback = _StopAtTwo(variables)
    status = solver.Solve(model, callback)
    seconds = time.perf_counter() - start
    found = callback.found
    if len(found) >= 2:
        first, other = found[0], found[1]
        differing = tuple(sorted(c for c in first if first[c] != other[c]))
        return Solution("multiple", first, other, differing, seconds)
    if len(found) == 1:
        # Without the uniqueness proof (or when time ran out during it) a solution is all we know.
        proven = check_unique and status == cp_model.OPTIMAL
        return Solution("unique" if proven else "unknown", found[0], seconds=seconds)
    if status == cp_model.INFEASIBLE:
        return Solution("none", seconds=seconds)
    return Solution("unknown", seconds=seconds)


def _satisfies(puzzle: Puzzle, values: dict[Cell, int]) -> bool:
    for run in puzzle.runs:
        digits = [values[c] for c in run.cells]
        if len(set(digits)) != len(digits) or sum(digits) != run.total:
            return False
    return True
