"""Every puzzle of the real corpus, solved by the real solver and checked by an independent checker."""
from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from solver.errors import InvalidPuzzleError
from solver.formats import load_puzzle, parse_solution_grid
from solver.solve import solve_puzzle
from solver.validate import check_puzzle

from conftest import CORPUS, read_tokens

# Big enough to take seconds; the rest of the corpus solves in about a second in all.
SLOW = {"marcelgarus__huge.txt", "marcizhu__gen_150x150_easy_unique.txt"}


def _manifest() -> list[dict[str, str]]:
    with open(CORPUS / "MANIFEST.tsv", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _params(valid: bool) -> list:
    params = []
    for row in _manifest():
        name = row["file"]
        if name.endswith(".INVALID.txt") == valid:
            continue
        marks = [pytest.mark.slow] if name in SLOW else []
        params.append(pytest.param(row, id=name.removesuffix(".txt"), marks=marks))
    return params


def _independent_check(path: Path, values) -> None:
    """Check a filled grid against the raw file: every white cell holds a digit 1-9, and each clue's
    run (the white cells right of / below it) holds distinct digits summing to the clue."""
    grid = read_tokens(path)
    n_rows, n_cols = len(grid), len(grid[0])
    whites = {(r, c) for r in range(n_rows) for c in range(n_cols) if grid[r][c] == "." or
              re.fullmatch(r"[1-9]", grid[r][c])}
    assert set(values) == whites, "the solution fills exactly the white cells"
    for (r, c), digit in values.items():
        assert isinstance(digit, int) and 1 <= digit <= 9, f"cell {(r, c)} holds {digit!r}"
        if grid[r][c] != ".":
            assert digit == int(grid[r][c]), f"given at {(r, c)} changed"
    n_runs = 0
    for r in range(n_rows):
        for c in range(n_cols):
            token = grid[r][c]
            if "\\" not in token:
                continue
            down, across = token.split("\\")
            for total, (dr, dc) in ((across, (0, 1)), (down, (1, 0))):
                if not total:
                    continue
                digits = []
                rr, cc = r + dr, c + dc
                while (rr, cc) in whites:
                    digits.append(values[(rr, cc)])
                    rr, cc = rr + dr, cc + dc
                assert len(set(digits)) == len(digits), f"repeat in run of clue at {(r, c)}: {digits}"
                assert sum(digits) == int(total), f"run of clue at {(r, c)} sums to {sum(digits)}, not {total}"
                n_runs += 1
    assert n_runs > 0


def test_manifest_covers_corpus():
    listed = {row["file"] for row in _manifest()}
    on_disk = {p.name for p in CORPUS.glob("*.txt")}
    assert listed == on_disk
    assert len(listed) >= 90


@pytest.mark.parametrize("row", _params(valid=True))
def test_corpus_puzzle_solves(row):
    path = CORPUS / row["file"]
    puzzle = check_puzzle(load_puzzle(path))
    assert len(puzzle.whites) == int(row["white"])
    solution = solve_puzzle(puzzle, time_limit_s=60.0)
    expected = {"UNIQUE": "unique", "MULTIPLE": "multiple"}[row["cpsat_verified"]]
    assert solution.status == expected
    _independent_check(path, solution.values)
    if solution.status == "multiple":
        _independent_check(path, solution.other)
        assert solution.differing
        assert all(solution.values[c] != solution.other[c] for c in solution.differing)
        assert all(solution.values[c] == solution.other[c] for c in solution.values
                   if c not in solution.differing)
    sol_file = path.with_suffix(".sol")
    assert sol_file.exists() == (row["has_solution"] == "yes")
    if sol_file.exists() and solution.status == "unique":
        assert dict(solution.values) == parse_solution_grid(sol_file.read_text())


@pytest.mark.parametrize("row", _params(valid=False))
def test_invalid_corpus_puzzle_rejected_naming_the_cell(row):
    path = CORPUS / row["file"]
    grid = read_tokens(path)
    # Independently: the white cells that no clue's run reaches across or down.
    whites = {(r, c) for r, tokens in enumerate(grid) for c, t in enumerate(tokens) if t == "."}
    orphans = set()
    for r, c in whites:
        for dr, dc, side in ((0, -1, 1), (-1, 0, 0)):
            rr, cc = r, c
            while (rr, cc) in whites:
                rr, cc = rr + dr, cc + dc
            token = grid[rr][cc] if rr >= 0 and cc >= 0 else "#"
            if "\\" not in token or not token.split("\\")[side]:
                orphans.add((r, c))
    assert orphans
    with pytest.raises(InvalidPuzzleError) as info:
        check_puzzle(load_puzzle(path))
    named = {(int(r) - 1, int(c) - 1) for r, c in re.findall(r"row (\d+), column (\d+)", str(info.value))}
    assert named and named <= orphans, f"{info.value} should name one of {sorted(orphans)}"
    assert {(p.row, p.col) for p in info.value.problems if p.rule == "white-without-run"} == orphans
