"""Independent checkers for the solver's tests: run walking, filling checks, a brute-force counter.

These share no code with ``solver/`` beyond the ``Puzzle`` and ``Clue`` model (not even
``Puzzle.runs``): they exist to check the solver, so a bug there must not hide here too. Tests
import them as ``from checks import ...`` (pytest puts tests/ on sys.path).
"""
from __future__ import annotations

import random
from collections.abc import Mapping

from solver.model import Cell, Clue, Puzzle

__all__ = ["white_lines", "line_sums", "clues_from_sums", "random_filling", "clue_runs",
           "filling_problems", "count_fillings"]

_STEPS = (("across", (0, 1)), ("down", (1, 0)))


def white_lines(whites: set, n_rows: int, n_cols: int) -> list[tuple[Cell, str, list[Cell]]]:
    """Maximal lines of white cells, across ones first, each as (cell just before it, direction, cells)."""
    out = []
    for direction, (dr, dc) in _STEPS:
        for r in range(n_rows):
            for c in range(n_cols):
                if (r, c) in whites and (r - dr, c - dc) not in whites:
                    cells = []
                    rr, cc = r, c
                    while (rr, cc) in whites:
                        cells.append((rr, cc))
                        rr, cc = rr + dr, cc + dc
                    out.append(((r - dr, c - dc), direction, cells))
    return out


def line_sums(whites: set, n_rows: int, n_cols: int, values: Mapping[Cell, int]) -> dict[Cell, dict[str, int]]:
    """The clues a filling implies: clue cell -> {direction: sum of the line after it}."""
    sums: dict = {}
    for clue_cell, direction, cells in white_lines(whites, n_rows, n_cols):
        sums.setdefault(clue_cell, {})[direction] = sum(values[c] for c in cells)
    return sums


def clues_from_sums(sums: Mapping[Cell, Mapping[str, int]]) -> tuple[Clue, ...]:
    return tuple(Clue(r, c, s.get("down"), s.get("across")) for (r, c), s in sums.items())


def random_filling(whites: set, n_rows: int, n_cols: int, rng: random.Random) -> dict | None:
    """Digits for every white cell, distinct along every line, by randomised backtracking.

    None when the node budget runs out (a dense 8x8 can defeat it).
    """
    peers = {cell: set() for cell in whites}
    for _, _, cells in white_lines(whites, n_rows, n_cols):
        for cell in cells:
            peers[cell].update(cells)
    order = sorted(whites)
    values: dict = {}
    budget = [20000]

    def place(i: int) -> bool:
        if i == len(order):
            return True
        budget[0] -= 1
        if budget[0] < 0:
            return False
        cell = order[i]
        used = {values[p] for p in peers[cell] if p in values}
        digits = [d for d in range(1, 10) if d not in used]
        rng.shuffle(digits)
        for d in digits:
            values[cell] = d
            if place(i + 1):
                return True
        values.pop(cell, None)
        return False

    return values if place(0) else None


def clue_runs(puzzle: Puzzle) -> list[tuple[Clue, int, list[Cell]]]:
    """(clue, total, cells) of every clued run, walking right of / below each clue cell.

    Independent of ``Puzzle.runs``.
    """
    runs = []
    for clue in puzzle.clues:
        for total, (dr, dc) in ((clue.across, (0, 1)), (clue.down, (1, 0))):
            if total is None:
                continue
            cells = []
            r, c = clue.row + dr, clue.col + dc
            while (r, c) in puzzle.whites:
                cells.append((r, c))
                r, c = r + dr, c + dc
            runs.append((clue, total, cells))
    return runs


def filling_problems(puzzle: Puzzle, values: Mapping[Cell, int]) -> list[str]:
    """What is wrong with ``values`` as a solution of ``puzzle``; empty when it is one."""
    if set(values) != set(puzzle.whites):
        return ["not every white cell filled, or something else filled"]
    problems = []
    for clue, total, cells in clue_runs(puzzle):
        digits = [values[cell] for cell in cells]
        if not digits:
            problems.append(f"clue at {clue} has an empty run")
        elif not all(1 <= d <= 9 for d in digits):
            problems.append(f"run of {clue} holds a digit outside 1..9: {digits}")
        elif len(set(digits)) != len(digits):
            problems.append(f"repeated digit in run of {clue}")
        elif sum(digits) != total:
            problems.append(f"run of {clue} sums to {sum(digits)}, not {total}")
    problems += [f"given {digit} at {cell} became {values[cell]}"
                 for cell, digit in puzzle.givens if values[cell] != digit]
    return problems


def count_fillings(puzzle: Puzzle, limit: int) -> int:
    """Fillings of ``puzzle`` (up to ``limit``), by backtracking in reading order with sum bounds."""
    runs = [(total, cells) for _, total, cells in clue_runs(puzzle)]
    order = sorted(puzzle.whites)
    runs_of = {cell: [run for run in runs if cell in run[1]] for cell in order}
    given = dict(puzzle.givens)
    values: dict = {}

    def fits(cell) -> bool:
        for total, cells in runs_of[cell]:
            filled = [values[c] for c in cells if c in values]
            if len(set(filled)) != len(filled):
                return False
            # The open cells take distinct digits the run has not used: between the smallest and
            # the largest such digits.
            left = len(cells) - len(filled)
            unused = [d for d in range(1, 10) if d not in filled]
            low = sum(filled) + sum(unused[:left])
            high = sum(filled) + sum(unused[len(unused) - left:])
            if not low <= total <= high:
                return False
        return True

    def search(i: int, limit: int) -> int:
        if i == len(order):
            return 1
        cell = order[i]
        count = 0
        for digit in ([given[cell]] if cell in given else range(1, 10)):
            values[cell] = digit
            if fits(cell):
                count += search(i + 1, limit - count)
                if count >= limit:
                    break
        values.pop(cell, None)
        return count

    return search(0, limit)
