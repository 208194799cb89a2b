"""Property tests: random filled grids -> clues -> solve; format round trips of random puzzles."""
from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.formats import format_text, parse_puzzle, parse_text, puzzle_from_json, puzzle_to_json
from solver.model import Clue, Puzzle
from solver.solve import propagate, solve_puzzle
from solver.validate import validate_puzzle

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _segments(whites: set, n_rows: int, n_cols: int, dr: int, dc: int) -> list[tuple[tuple, list]]:
    """Maximal lines of white cells in one direction, each with the cell just before it."""
    out = []
    for r in range(n_rows):
        for c in range(n_cols):
            if (r, c) in whites and (r - dr, c - dc) not in whites:
                cells = []
                rr, cc = r, c
                while (rr, cc) in whites:
                    cells.append((rr, cc))
                    rr, cc = rr + dr, cc + dc
                out.append(((r - dr, c - dc), cells))
    return out


def _fill(whites: set, n_rows: int, n_cols: int, rng: random.Random) -> dict | None:
    """Digits for every white cell, distinct along every line, by randomised backtracking."""
    lines = _segments(whites, n_rows, n_cols, 0, 1) + _segments(whites, n_rows, n_cols, 1, 0)
    peers = {cell: set() for cell in whites}
    for _, cells in lines:
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


@st.composite
def filled_puzzles(draw, max_side: int = 8):
    """A random valid layout (row 0 and column 0 hold clues), its filling, and the puzzle of its sums."""
    n_rows = draw(st.integers(2, max_side + 1))
    n_cols = draw(st.integers(2, max_side + 1))
    density = draw(st.floats(0.4, 0.95))
    rng = draw(st.randoms(use_true_random=False))
    whites = {(r, c) for r in range(1, n_rows) for c in range(1, n_cols) if rng.random() < density}
    if not whites:
        whites = {(1, 1)}
    values = _fill(whites, n_rows, n_cols, rng)
    if values is None:  # a dense 8x8 can defeat the bounded search; rare, and any layout will do
        whites = {(1, 1)}
        values = {(1, 1): rng.randint(1, 9)}
    sums: dict = {}
    for direction, (dr, dc) in (("across", (0, 1)), ("down", (1, 0))):
        for clue_cell, cells in _segments(whites, n_rows, n_cols, dr, dc):
            sums.setdefault(clue_cell, {})[direction] = sum(values[c] for c in cells)
    clues = tuple(Clue(r, c, s.get("down"), s.get("across")) for (r, c), s in sums.items())
    n_givens = draw(st.integers(0, min(3, len(whites))))
    given_cells = rng.sample(sorted(whites), n_givens)
    puzzle = Puzzle(n_rows, n_cols, frozenset(whites), clues, tuple((c, values[c]) for c in given_cells))
    return puzzle, values


def _satisfies_every_clue(puzzle: Puzzle, values) -> bool:
    """Independent of ``Puzzle.runs``: walk right of / below every clue cell."""
    if set(values) != set(puzzle.whites):
        return False
    for clue in puzzle.clues:
        for total, (dr, dc) in ((clue.across, (0, 1)), (clue.down, (1, 0))):
            if total is None:
                continue
            digits = []
            r, c = clue.row + dr, clue.col + dc
            while (r, c) in puzzle.whites:
                digits.append(values[(r, c)])
                r, c = r + dr, c + dc
            if not digits or len(set(digits)) != len(digits) or sum(digits) != total:
                return False
            if not all(1 <= d <= 9 for d in digits):
                return False
    return all(values[cell] == d for cell, d in puzzle.givens)


@SETTINGS
@given(filled_puzzles())
def test_random_filled_grid_solves(case):
    puzzle, truth = case
    assert validate_puzzle(puzzle) == []
    assert _satisfies_every_clue(puzzle, truth)  # the generator itself is right
    solution = solve_puzzle(puzzle)
    assert solution.status in ("unique", "multiple")
    assert _satisfies_every_clue(puzzle, solution.values)
    if solution.status == "unique":
        assert dict(solution.values) == truth
    else:
        assert _satisfies_every_clue(puzzle, solution.other)
        assert solution.values != solution.other
        # A unique claim would be wrong, so the generated filling must differ from one of them.
        assert truth != solution.values or truth != solution.other


@SETTINGS
@given(filled_puzzles())
def test_propagation_keeps_the_true_digits(case):
    puzzle, truth = case
    masks = propagate(puzzle)
    assert masks is not None
    assert all(masks[cell] >> digit & 1 for cell, digit in truth.items())


@SETTINGS
@given(filled_puzzles())
def test_text_round_trip(case):
    puzzle, truth = case
    assert parse_text(format_text(puzzle)) == puzzle
    assert parse_puzzle(format_text(puzzle)) == puzzle
    # A solved grid written out reads back with every white cell given.
    assert parse_text(format_text(puzzle, truth)) == puzzle.with_givens(truth)


@SETTINGS
@given(filled_puzzles())
def test_json_round_trip(case):
    puzzle, _ = case
    text = json.dumps(puzzle_to_json(puzzle))
    assert puzzle_from_json(json.loads(text)) == puzzle
    assert parse_puzzle(text) == puzzle


@SETTINGS
@given(filled_puzzles(max_side=5), st.data())
def test_wrong_clue_never_yields_a_false_solution(case, data):
    """Change one clue: the solver either finds fillings that satisfy the changed clues, or says none."""
    puzzle, _ = case
    clue = data.draw(st.sampled_from(puzzle.clues))
    bump = data.draw(st.sampled_from([-2, -1, 1, 2]))
    if clue.across is not None:
        changed = Clue(clue.row, clue.col, clue.down, max(1, clue.across + bump))
    else:
        changed = Clue(clue.row, clue.col, max(1, clue.down + bump), clue.across)
    broken = Puzzle(puzzle.n_rows, puzzle.n_cols, puzzle.whites,
                    tuple(changed if c == clue else c for c in puzzle.clues), puzzle.givens)
    solution = solve_puzzle(broken)
    assert solution.status in ("unique", "multiple", "none")
    if solution.solved:
        assert _satisfies_every_clue(broken, solution.values)
