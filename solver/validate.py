"""The rules a puzzle must obey before it is worth solving."""
from __future__ import annotations

from .combos import sum_range
from .errors import InvalidPuzzleError, Problem
from .model import Cell, Puzzle

__all__ = ["validate_puzzle", "check_puzzle", "layout_asymmetry", "mirror_cell", "MISREAD_ASYMMETRY"]

#: A layout off its 180-degree turn in this many cells or fewer was misread: published layouts
#: are symmetric (85% of 46 real puzzles, 197 of 211 transcribed ones), and the asymmetric ones
#: differ in 4 to 68 cells, 12 or more in all but one (shared/FACTS.md); one misread cell makes
#: two cells off (it and its mirror), two misread cells four.
MISREAD_ASYMMETRY = 4


def validate_puzzle(puzzle: Puzzle) -> list[Problem]:
    """Every rule ``puzzle`` breaks, in reading order; empty when it is valid."""
    problems: list[Problem] = []
    in_run: dict[tuple[int, int], set[str]] = {cell: set() for cell in puzzle.whites}
    for run in puzzle.runs:
        r, c = run.clue
        for cell in run.cells:
            in_run[cell].add(run.direction)
        length = len(run.cells)
        if length == 0:
            problems.append(Problem(r, c, "empty-run", f"{run.direction} clue {run.total} has no white cells to "
                                    f"{'its right' if run.direction == 'across' else 'below it'}", run.direction))
            continue
        if length > 9:
            problems.append(Problem(r, c, "run-too-long", f"{run.direction} run of {length} cells is longer than 9",
                                    run.direction))
            continue
        lo, hi = sum_range(length)
        if not lo <= run.total <= hi:
            problems.append(Problem(r, c, "clue-out-of-range",
                                    f"{run.direction} clue {run.total} cannot fill {length} cell(s): "
                                    f"a run of {length} sums to {lo}..{hi}", run.direction))
        given = [puzzle.given_at[cell] for cell in run.cells if cell in puzzle.given_at]
        if len(set(given)) != len(given):
            problems.append(Problem(r, c, "given-repeated", f"{run.direction} run repeats a given digit",
                                    run.direction))
        elif sum(given) > run.total or (len(given) == length and sum(given) != run.total):
            problems.append(Problem(r, c, "given-sum", f"given digits in the {run.direction} run do not fit "
                                    f"its clue {run.total}", run.direction))
    for (r, c), directions in sorted(in_run.items()):
        for direction in ("across", "down"):
            if direction not in directions:
                problems.append(Problem(r, c, "white-without-run", f"white cell has no {direction} clue"))
    for (r, c), digit in puzzle.givens:
        if not 1 <= digit <= 9:
            problems.append(Problem(r, c, "bad-given", f"given {digit} is not a digit 1..9"))
    across = sum(run.total for run in puzzle.runs if run.direction == "across")
    down = sum(run.total for run in puzzle.runs if run.direction == "down")
    if across != down:
        problems.append(Problem(None, None, "totals-differ",
                                f"across clues total {across} but down clues total {down}; both add up the "
                                "same white cells, so one clue is wrong"))
    return problems


def check_puzzle(puzzle: Puzzle) -> Puzzle:
    """Return ``puzzle`` unchanged, or raise :class:`InvalidPuzzleError` naming every problem."""
    problems = validate_puzzle(puzzle)
    if problems:
        raise InvalidPuzzleError(problems)
    return puzzle


def layout_asymmetry(n_rows: int, n_cols: int, whites: frozenset[Cell] | set[Cell]) -> tuple[Cell, ...]:
    """Cells whose white / non-white kind differs from that of their mirror under a 180-degree
    turn, in reading order.

    The turn is that of the grid without its first row and column (they hold clues only, so
    the white cells' centre of symmetry is the centre of the rest): (r, c) mirrors
    (n_rows - r, n_cols - c).
    """
    return tuple((r, c) for r in range(1, n_rows) for c in range(1, n_cols)
                 if ((r, c) in whites) != (mirror_cell(n_rows, n_cols, (r, c)) in whites))


def mirror_cell(n_rows: int, n_cols: int, cell: Cell) -> Cell:
    """``cell``'s mirror under the half turn of :func:`layout_asymmetry`."""
    return n_rows - cell[0], n_cols - cell[1]
