"""Seed puzzles, puzzle formats and validation, with the real CP-SAT solver."""
from __future__ import annotations

import json
import re

import pytest

from solver.errors import InvalidPuzzleError, PuzzleFormatError
from solver.formats import (
    format_text, load_puzzle, parse_csp_input, parse_puzzle, parse_solution_grid, parse_text,
    puzzle_from_json, puzzle_to_json,
)
from solver.model import Clue
from solver.solve import solve_puzzle
from solver.validate import check_puzzle, validate_puzzle

from checks import count_fillings, filling_problems
from conftest import SEEDS


# --- seeds ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["evolutionary_easy", "evolutionary_medium", "evolutionary_hard",
                                  "evolutionary_expert", "milp_manual_8x8"])
def test_seed_unique_and_matches_published_solution(name):
    puzzle = check_puzzle(load_puzzle(SEEDS / f"{name}.txt"))
    solution = solve_puzzle(puzzle)
    assert solution.status == "unique"
    assert filling_problems(puzzle, solution.values) == []
    sol_file = SEEDS / f"{name}.sol"
    if sol_file.exists():
        assert dict(solution.values) == parse_solution_grid(sol_file.read_text())


@pytest.mark.parametrize("file_name", ["mac_csp_5x6.txt", "mac_csp_5x6.input0"])
def test_mac_csp_has_exactly_two_solutions(file_name):
    puzzle = check_puzzle(load_puzzle(SEEDS / file_name))
    solution = solve_puzzle(puzzle)
    assert solution.status == "multiple"
    assert filling_problems(puzzle, solution.values) == []
    assert filling_problems(puzzle, solution.other) == []
    assert solution.values != solution.other
    assert solution.differing == tuple(sorted(c for c in puzzle.whites
                                              if solution.values[c] != solution.other[c]))
    # "Exactly two", counted by a plain backtracking search that shares no code with the solver.
    assert count_fillings(puzzle, limit=3) == 2


def test_mac_csp_formats_parse_to_same_puzzle():
    text = load_puzzle(SEEDS / "mac_csp_5x6.txt")
    csp = load_puzzle(SEEDS / "mac_csp_5x6.input0")
    assert text == csp
    assert parse_csp_input((SEEDS / "mac_csp_5x6.input0").read_text()) == csp


def test_montecarlo_solved_not_unique():
    puzzle = check_puzzle(load_puzzle(SEEDS / "montecarlo_5x5.txt"))
    solution = solve_puzzle(puzzle)
    assert solution.status == "multiple"
    assert filling_problems(puzzle, solution.values) == []
    assert filling_problems(puzzle, solution.other) == []
    # The paper's published solution is one of the many.
    assert filling_problems(puzzle, parse_solution_grid((SEEDS / "montecarlo_5x5.sol").read_text())) == []


def test_milp_as_printed_rejected_naming_cell_and_range():
    puzzle = load_puzzle(SEEDS / "milp_manual_8x8_as_printed.txt")
    with pytest.raises(InvalidPuzzleError) as info:
        check_puzzle(puzzle)
    message = str(info.value)
    assert "row 7, column 6" in message
    assert "3..17" in message
    assert "51" in message
    assert any(p.rule == "clue-out-of-range" and (p.row, p.col) == (6, 5) for p in info.value.problems)


# --- formats ----------------------------------------------------------------------------------

@pytest.mark.parametrize("path", sorted(SEEDS.glob("*.txt")), ids=lambda p: p.stem)
def test_text_round_trip_seeds(path):
    puzzle = load_puzzle(path)
    assert parse_text(format_text(puzzle)) == puzzle


@pytest.mark.parametrize("path", sorted(SEEDS.glob("*.txt")), ids=lambda p: p.stem)
def test_json_round_trip_seeds(path):
    puzzle = load_puzzle(path)
    data = json.loads(json.dumps(puzzle_to_json(puzzle)))
    assert puzzle_from_json(data) == puzzle
    assert parse_puzzle(json.dumps(data)) == puzzle  # detected as JSON by its content


def test_text_format_writes_solution_and_givens():
    puzzle = load_puzzle(SEEDS / "evolutionary_easy.txt")
    solution = solve_puzzle(puzzle)
    solved = parse_text(format_text(puzzle, solution.values))
    # A filled grid reads back as the same puzzle with every white cell given.
    assert solved == puzzle.with_givens(solution.values)
    assert solve_puzzle(solved).values == solution.values


def test_text_tokens():
    puzzle = parse_text("#  23\\  \\\n\\16 .  #\n\\4  3  #\n")
    assert puzzle.n_rows == 3 and puzzle.n_cols == 3
    assert puzzle.clue_at[(0, 1)] == Clue(0, 1, down=23, across=None)
    assert puzzle.clue_at[(1, 0)] == Clue(1, 0, down=None, across=16)
    assert puzzle.whites == {(1, 1), (2, 1)}
    assert puzzle.given_at == {(2, 1): 3}
    assert (puzzle.kind(0, 2), puzzle.kind(0, 1), puzzle.kind(2, 1)) == ("black", "clue", "white")


def test_text_comments_blank_lines_and_bare_diagonals():
    """Lines starting with ';' (indented too) and blank lines are skipped; a bare diagonal '\\' is a
    black cell, and the row goes on after it."""
    puzzle = parse_text("; a comment\n#  23\\  \\  3\\\n\n   ; indented comment\n\\16 .  \\  .\n")
    assert (puzzle.n_rows, puzzle.n_cols) == (2, 4)
    assert puzzle.whites == {(1, 1), (1, 3)}
    assert [puzzle.kind(0, 2), puzzle.kind(1, 2), puzzle.kind(0, 3)] == ["black", "black", "clue"]


def test_json_and_csp_files_are_told_apart_after_leading_blank_lines():
    text = "\n\n" + json.dumps(puzzle_to_json(load_puzzle(SEEDS / "evolutionary_easy.txt")))
    assert parse_puzzle(text) == load_puzzle(SEEDS / "evolutionary_easy.txt")
    csp = (SEEDS / "mac_csp_5x6.input0").read_text()
    assert parse_puzzle("\n  \n" + csp) == parse_csp_input(csp)


def test_ragged_rows_error_names_row():
    with pytest.raises(PuzzleFormatError, match=r"row 3 has 2 cells but row 1 has 3"):
        parse_text("#  3\\ 4\\\n\\7 .  .\n\\3 .\n")


@pytest.mark.parametrize("token", ["x", "X", "10", "3\\x", "\\\\"])
def test_unknown_token_error_names_row_and_column(token):
    with pytest.raises(PuzzleFormatError) as info:
        parse_text(f"#  3\\ 4\\\n\\7 .  {token}\n")
    assert "row 2, column 3" in str(info.value)
    assert repr(token) in str(info.value)


def test_format_errors_name_the_source(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("# ?\n")
    with pytest.raises(PuzzleFormatError, match=re.escape(str(bad)) + r": row 1, column 2"):
        load_puzzle(bad)
    with pytest.raises(PuzzleFormatError, match="invalid JSON"):
        parse_puzzle("{not json")
    with pytest.raises(PuzzleFormatError, match="grid"):
        puzzle_from_json({"rows": 2})
    with pytest.raises(PuzzleFormatError, match="cannot read"):
        load_puzzle(tmp_path / "missing.txt")


def test_json_size_mismatch_rejected():
    data = puzzle_to_json(load_puzzle(SEEDS / "evolutionary_easy.txt"))
    assert (data["rows"], data["cols"]) == (3, 3)
    data["rows"] = 4
    with pytest.raises(PuzzleFormatError, match='"rows" says 4 but the grid has 3'):
        puzzle_from_json(data)
    data["rows"], data["cols"] = 3, 5
    with pytest.raises(PuzzleFormatError, match='"cols" says 5 but the grid has 3'):
        puzzle_from_json(data)


def test_csp_grids_in_either_order_and_of_the_wrong_size():
    text = (SEEDS / "mac_csp_5x6.input0").read_text()
    head, rest = text.split("Horizontal\n")
    horizontal, vertical = rest.split("Vertical\n")
    # Vertical first, Horizontal last: the same puzzle.
    assert parse_csp_input(head + "Vertical\n" + vertical + "Horizontal\n" + horizontal) == parse_csp_input(text)
    for grids in (horizontal + "Vertical\n" + "\n".join(vertical.splitlines()[:-1]),  # a row short
                  "\n".join(horizontal.splitlines()[:-1]) + "\nVertical\n" + vertical):
        with pytest.raises(PuzzleFormatError, match="grids do not match rows=5, columns=6"):
            parse_csp_input(head + "Horizontal\n" + grids)


def test_csp_import():
    puzzle = parse_csp_input((SEEDS / "mac_csp_5x6.input0").read_text())
    assert (puzzle.n_rows, puzzle.n_cols) == (5, 6)
    assert len(puzzle.whites) == 12
    assert puzzle.clue_at[(0, 1)] == Clue(0, 1, down=3, across=None)
    assert puzzle.clue_at[(1, 3)] == Clue(1, 3, down=7, across=None)
    assert puzzle.clue_at[(3, 1)] == Clue(3, 1, down=None, across=10)
    assert validate_puzzle(puzzle) == []
    with pytest.raises(PuzzleFormatError, match="rows="):
        parse_csp_input("columns=3\nHorizontal\n")


def test_solution_grid_packed_and_tokens():
    assert parse_solution_grid("#12\n#3#\n") == {(0, 1): 1, (0, 2): 2, (1, 1): 3}
    assert parse_solution_grid("# 1 2\n# 3 #\n") == {(0, 1): 1, (0, 2): 2, (1, 1): 3}


# --- validation -------------------------------------------------------------------------------

def _rules(text: str) -> dict[str, list[str]]:
    problems = validate_puzzle(parse_text(text))
    out: dict[str, list[str]] = {}
    for p in problems:
        out.setdefault(p.rule, []).append(str(p))
    return out


def test_valid_puzzle_has_no_problems():
    assert validate_puzzle(load_puzzle(SEEDS / "milp_manual_8x8.txt")) == []


def test_white_cell_without_run():
    rules = _rules("#  3\\ #\n\\1 .  .\n")
    assert rules["white-without-run"] == ["row 2, column 3: white cell has no down clue"]


def test_empty_run():
    rules = _rules("#  3\\ \\4\n\\1 .  #\n")
    assert any(m.startswith("row 1, column 3: across clue 4 has no white cells") for m in rules["empty-run"])


def test_run_too_long():
    row0 = "# " + " ".join(["45\\"] * 10)
    row1 = "\\55 " + " ".join(["."] * 10)
    rules = _rules(f"{row0}\n{row1}\n")
    assert rules["run-too-long"] == ["row 2, column 1: across run of 10 cells is longer than 9"]


def test_clue_out_of_range_and_totals_differ():
    rules = _rules("#  3\\ 4\\\n\\18 .  .\n")
    assert rules["clue-out-of-range"] == [
        "row 2, column 1: across clue 18 cannot fill 2 cell(s): a run of 2 sums to 3..17"]
    assert "across clues total 18 but down clues total 7" in rules["totals-differ"][0]


def test_givens_checked():
    rules = _rules("#  3\\  4\\\n\\7 2   2\n")
    assert "given-repeated" in rules


def test_check_puzzle_error_lists_every_problem():
    with pytest.raises(InvalidPuzzleError) as info:
        check_puzzle(parse_text("#  3\\ #\n\\1 .  .\n"))
    assert len(info.value.problems) >= 2
    # One line: the first problem, and how many more.
    assert str(info.value) == f"{info.value.problems[0]} (and {len(info.value.problems) - 1} more problem(s))"
    with pytest.raises(InvalidPuzzleError) as info:  # two problems: across 30, and the totals
        check_puzzle(parse_text("#  16\\ 17\\\n\\30 .  .\n\\4 .  .\n"))
    first, _ = info.value.problems
    assert str(info.value) == f"{first} (and 1 more problem(s))"
    with pytest.raises(InvalidPuzzleError) as info:
        check_puzzle(parse_text("#  16\\ 17\\\n\\30 .  .\n\\3 .  .\n"))  # only across 30 is wrong
    (problem,) = info.value.problems
    assert str(info.value) == str(problem) and str(problem).startswith("row 2, column 1: ")


def test_unsolvable_puzzle_reports_none():
    # Valid by every static rule, yet 1+2 across forces 1+3 down and 2+2 down, which repeats a digit.
    puzzle = check_puzzle(parse_text("#   4\\  4\\\n\\3 .  .\n\\5 .  .\n"))
    assert count_fillings(puzzle, limit=1) == 0
    assert solve_puzzle(puzzle).status == "none"


def test_white_cells_may_be_typed_as_0_or_underscore():
    assert parse_text("#  3\\ 4\\\n\\7 0  _\n") == parse_text("#  3\\ 4\\\n\\7 .  .\n")


def test_solution_grid_with_tabs():
    assert parse_solution_grid("#\t1\t2\n#\t3\t#\n") == {(0, 1): 1, (0, 2): 2, (1, 1): 3}


def test_a_file_that_is_not_text_names_itself(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("#  3\\ 4\\\n\\7 .  .  \xe9\n".encode("latin-1"))
    with pytest.raises(PuzzleFormatError) as info:
        load_puzzle(path)
    assert str(info.value) == f"{path}: not a text puzzle file"
    with pytest.raises(PuzzleFormatError) as info:
        load_puzzle(tmp_path / "missing.txt")
    assert str(info.value) == f"{tmp_path / 'missing.txt'}: cannot read: No such file or directory"


def _found(puzzle) -> set[tuple]:
    return {(p.row, p.col, p.rule, p.direction) for p in validate_puzzle(puzzle)}


def test_every_broken_rule_is_named_with_its_clue_cell_and_direction():
    """Each problem names its clue cell (0-based here) and side, as the web page marks them; one
    problem does not hide the runs after it. Worked out by hand: down 7 has no cell below it,
    the across run of 3 repeats the given 1, across 30 cannot fill two cells, across 5 has no
    cell to its right, and the across clues total 38 against the down clues' 26."""
    puzzle = parse_text("#    3\\   16\\  7\\\n\\3   1    1    #\n\\30  .    .    \\5\n")
    assert _found(puzzle) == {(0, 3, "empty-run", "down"), (1, 0, "given-repeated", "across"),
                              (2, 0, "clue-out-of-range", "across"), (2, 3, "empty-run", "across"),
                              (None, None, "totals-differ", None)}
    # A given of 5 in a run of two that sums to 3.
    assert _found(parse_text("#  4\\ 6\\\n\\3 .  5\n\\7 .  .\n")) == {(1, 0, "given-sum", "across")}
    # A given that is no digit (only a hand-built puzzle can hold one).
    valid = parse_text("#   16\\ 17\\\n\\16 .   .\n\\17 .   .\n")
    assert _found(valid.with_givens({(1, 1): 10})) == {(1, 1, "bad-given", None)}
    # A run of ten cells, then a clue out of range after it.
    long = parse_text("\\45 " + " .  " * 10 + "\n\\30 .  .  " + "#  " * 8 + "\n")
    assert {(0, 0, "run-too-long", "across"), (1, 0, "clue-out-of-range", "across")} <= _found(long)
