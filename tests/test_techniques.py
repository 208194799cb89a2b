"""The human techniques behind ``kakuro hint`` and ``kakuro grade`` (issue 19, parts 1 and 2).

Truth comes from outside the engine: the published solutions (``.sol`` beside the seed and corpus
puzzles), the brute-force counter in checks.py, and small puzzles whose next step is worked out
by hand in the comments.
"""
from __future__ import annotations

import re

import pytest

from solver.formats import load_puzzle, parse_solution_grid, parse_text
from solver.techniques import (
    BLOCK_SUM, COMMON_DIGITS, CROSSING, DIFFICULTY, HIDDEN_SINGLE, LAST_CELL, ONE_COMBINATION,
    PENCIL_MARKS, SEARCH, TECHNIQUES, Grade, Step, grade, next_step,
)

from checks import count_fillings
from conftest import CORPUS, SEEDS

EVOLUTIONARY = [SEEDS / f"evolutionary_{level}.txt" for level in ("easy", "medium", "hard", "expert")]


def _small_corpus(max_white: int = 130) -> list:
    """Corpus puzzles with one solution (CP-SAT verified) and a published ``.sol``, up to
    ``max_white`` white cells (the whole list plays through in a few seconds)."""
    rows = [line.split("\t") for line in (CORPUS / "MANIFEST.tsv").read_text().splitlines()[1:] if line.strip()]
    return sorted(CORPUS / row[0] for row in rows
                  if row[8].strip() == "UNIQUE" and int(row[5]) <= max_white
                  and (CORPUS / row[0]).with_suffix(".sol").exists())


PUBLISHED = EVOLUTIONARY + _small_corpus()


def _published(path) -> dict:
    return parse_solution_grid(path.with_suffix(".sol").read_text())


def _play(puzzle, solution: dict) -> dict[str, int]:
    """Apply steps until the grid is full, checking each digit against ``solution``; search only
    where no technique gives a step. Returns how often each technique was used."""
    filled: dict = {}
    used: dict[str, int] = {}
    while True:
        step = next_step(puzzle, filled)
        if step is None:
            step = next_step(puzzle, filled, force=True)
            if step is None:
                break
            assert step.technique == SEARCH
        else:
            assert step.technique in TECHNIQUES and step.technique != SEARCH
        cell = (step.row, step.col)
        assert cell in puzzle.whites and cell not in filled and cell not in puzzle.given_at
        assert step.digit == solution[cell], (step, solution[cell])
        filled[cell] = step.digit
        used[step.technique] = used.get(step.technique, 0) + 1
    assert filled == {cell: d for cell, d in solution.items() if cell not in puzzle.given_at}
    return used


# --- published puzzles: every step agrees with the published solution -------------------------

def test_the_list_of_published_puzzles_is_what_the_tests_meant():
    assert len(PUBLISHED) >= 60
    assert all(len(load_puzzle(p).whites) <= 130 for p in PUBLISHED)


@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: p.stem)
def test_first_step_is_the_published_digit_with_a_technique_and_a_reason(path):
    puzzle = load_puzzle(path)
    solution = _published(path)
    step = next_step(puzzle)
    assert step is not None
    assert step.digit == solution[(step.row, step.col)]
    assert step.technique in TECHNIQUES and step.technique != SEARCH
    assert step.explanation.startswith(f"row {step.row + 1}, column {step.col + 1} is {step.digit}: ")
    assert len(step.explanation) > len("row 1, column 1 is 1: ") + 10
    assert (step.row, step.col) in step.cells and set(step.cells) <= puzzle.whites


@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: p.stem)
def test_steps_one_after_another_fill_in_the_published_solution(path):
    _play(load_puzzle(path), _published(path))


def test_every_technique_places_published_digits_somewhere_in_the_corpus():
    used: dict[str, int] = {}
    for path in PUBLISHED:
        for technique, n in _play(load_puzzle(path), _published(path)).items():
            used[technique] = used.get(technique, 0) + n
    assert set(used) == set(TECHNIQUES), used


# --- grade --------------------------------------------------------------------------------------

def test_the_four_evolutionary_boards_grade_in_their_published_order():
    grades = [grade(load_puzzle(p)) for p in EVOLUTIONARY]
    scores = [g.score for g in grades]
    assert scores == sorted(scores) and len(set(scores)) == 4, scores


@pytest.mark.parametrize("path", EVOLUTIONARY + _small_corpus(70), ids=lambda p: p.stem)
def test_a_grade_counts_one_technique_per_open_cell_and_names_the_hardest(path):
    puzzle = load_puzzle(path)
    result = grade(puzzle)
    assert sum(result.techniques.values()) == len(puzzle.whites) - len(puzzle.givens)
    assert all(n > 0 and t in TECHNIQUES for t, n in result.techniques.items())
    assert result.needed_search == (SEARCH in result.techniques)
    hardest = max(DIFFICULTY[t] for t in result.techniques)
    assert hardest <= result.score < hardest + 1
    used = set(result.techniques)
    expected = ("expert" if SEARCH in used else
                "hard" if used - {LAST_CELL, ONE_COMBINATION, CROSSING, COMMON_DIGITS, PENCIL_MARKS, HIDDEN_SINGLE} else
                "medium" if used - {LAST_CELL, ONE_COMBINATION, CROSSING} else "easy")
    assert result.grade == expected


def test_puzzles_a_generator_labels_its_easiest_grade_easy():
    # paucuesta9's generator (an outside program) labels these difficulty 1 of 3.
    easiest = [p for p in _small_corpus() if p.stem.startswith("paucuesta9__diff1_")]
    assert len(easiest) >= 3
    assert {grade(load_puzzle(p)).grade for p in easiest} == {"easy"}


def test_more_work_of_the_same_kind_scores_higher():
    # Two puzzles that need only simple techniques: the one with more deductions scores higher,
    # within the same band (below the next technique's difficulty).
    small = grade(load_puzzle(SEEDS / "evolutionary_easy.txt"))
    large = grade(load_puzzle(CORPUS / "paucuesta9__diff1_12_10_0.txt"))
    assert small.grade == large.grade == "easy"
    assert small.score < large.score < 2


def test_grade_json_has_the_contract_keys():
    result = grade(load_puzzle(SEEDS / "evolutionary_hard.txt"))
    assert isinstance(result, Grade)
    data = result.to_json()
    assert set(data) == {"grade", "score", "techniques", "needed_search"}
    assert data["grade"] in ("easy", "medium", "hard", "expert")
    assert isinstance(data["score"], float) and data["needed_search"] is False
    assert data["techniques"] == dict(result.techniques)


def test_grade_refuses_a_puzzle_with_two_solutions():
    puzzle = load_puzzle(SEEDS / "mac_csp_5x6.txt")
    assert count_fillings(puzzle, 3) == 2
    with pytest.raises(ValueError, match="puzzle:"):
        grade(puzzle)


# --- hand-made puzzles: the technique found first, the digit worked out by hand ------------------

def _unique(text: str):
    puzzle = parse_text(text)
    assert count_fillings(puzzle, 2) == 1  # a proper puzzle: the brute force finds one filling
    return puzzle


def test_one_combination_16_in_two_against_a_down_run_without_7():
    puzzle = _unique(r"""
        #     23\   17\
        \16   .     .
        \15   .     .
        \9    .     .
    """)
    # Row 2 (counted from 1) is 16 in two cells: only 7+9. Column 2's down run is 23 in three
    # cells: only 6+8+9, no 7. So row 2, column 2 is 9.
    step = next_step(puzzle)
    assert (step.row, step.col, step.digit, step.technique) == (1, 1, 9, ONE_COMBINATION)
    assert step.explanation == ("row 2, column 2 is 9: 16 in two cells is only 7+9, and the down run "
                                "23 in three cells has no 7")
    assert set(step.cells) == {(1, 1), (1, 2), (2, 1), (3, 1)}


CROSSING_PUZZLE = r"""
    #    13\  6\
    \5   .    .
    \14  .    .
"""


def test_crossing_of_two_runs_with_several_combinations_each():
    puzzle = _unique(CROSSING_PUZZLE)
    # No run has one combination: 5 in two is 1+4 or 2+3, 13 in two is 4+9, 5+8 or 6+7, 6 in two
    # is 1+5 or 2+4, 14 in two is 5+9 or 6+8. Row 2, column 2 lies in 5 (digits 1-4) and 13
    # (digits 4-9): only 4 is in both.
    step = next_step(puzzle)
    assert (step.row, step.col, step.digit, step.technique) == (1, 1, 4, CROSSING)
    assert step.explanation.startswith("row 2, column 2 is 4: ")


def test_last_cell_of_a_run_after_an_entry():
    puzzle = _unique(CROSSING_PUZZLE)
    # With 4 entered at row 2, column 2, the across 5 leaves 1 for row 2, column 3.
    step = next_step(puzzle, {(1, 1): 4})
    assert (step.row, step.col, step.digit, step.technique) == (1, 2, 1, LAST_CELL)
    assert step.explanation == ("row 2, column 3 is 1: the across run 5 in two cells (4 placed) "
                                "leaves 1 for its last open cell")


def test_common_digit_of_a_run_that_only_one_cell_can_take():
    puzzle = _unique(r"""
        #     #     11\   17\
        #     17\10 .     .
        \24   .     .     .
        \11   .     .     #
    """)
    # Row 3 is 24 in three cells: 7+8+9, so it needs a 7. Its cells in columns 2 and 4 lie in
    # down runs of 17 in two cells (8+9): no 7. Column 3's down run, 11 in three cells, allows
    # 7 and 8, so crossing alone does not decide it. Row 3, column 3 is 7.
    step = next_step(puzzle)
    assert (step.row, step.col, step.digit, step.technique) == (2, 2, 7, COMMON_DIGITS)
    assert {(2, 1), (2, 2), (2, 3), (3, 1), (1, 3)} <= set(step.cells)


def test_pencil_marks_strike_a_combination_whose_digit_has_no_cell():
    puzzle = _unique(r"""
        #   3\  18\ #
        \10 .   .   3\
        \11 .   .   .
        #   \3  .   .
    """)
    # Columns 2 and 4 and row 4 are 3 in two cells (1+2). Row 3 (11 in three cells) has 1 or 2
    # at both ends, so it is 1+2+8: its middle holds no 7. Column 3 (18 in three cells) must hold
    # row 4's 1 or 2 at its foot: 1+8+9 or 2+7+9. Its top is 8 or 9 (10 in two cells beside a 1
    # or 2), so 2+7+9 would need 7 in the middle: impossible. So 1+8+9, and the foot, 1 or 2,
    # is 1: row 4, column 3 is 1.
    step = next_step(puzzle)
    assert (step.row, step.col, step.digit, step.technique) == (3, 2, 1, PENCIL_MARKS)


def test_hidden_single_a_needed_digit_with_one_place_left():
    puzzle = _unique(r"""
        #   #   13\ 11\
        #   3\3 .   .
        \6  .   .   .
        \18 .   .   .
    """)
    # Column 3 is 13 in three cells; its top is 1 or 2 (row 2: 3 in two cells) and its middle
    # 1, 2 or 3 (row 3: 6 in three cells is 1+2+3). Two digits of 3 or less in 13: 1+3+9 or
    # 2+3+8, both with a 3. The top cannot be 3; the foot lies in row 4, 18 in three cells
    # beginning with 1 or 2 (column 2: 3 in two cells), so 1+8+9 or 2+7+9: no 3. The 3 goes in
    # the middle: row 3, column 3 is 3.
    step = next_step(puzzle)
    assert (step.row, step.col, step.digit, step.technique) == (2, 2, 3, HIDDEN_SINGLE)


def test_block_sum_of_two_rows_minus_two_columns():
    puzzle = _unique(r"""
        #   3\  10\ #   #
        \3  .   .   12\ #
        \12 .   .   .   3\
        #   #   \3  .   .
        #   #   \10 .   .
    """)
    # Rows 2 and 3 hold the across clues 3 and 12 (15); columns 2 and 3 hold the down clues 3
    # and 10 (13) over exactly the same cells except row 3, column 4. So it is 15 - 13 = 2.
    step = next_step(puzzle)
    assert (step.row, step.col, step.digit, step.technique) == (2, 3, 2, BLOCK_SUM)
    assert "rows 2 and 3" in step.explanation and "columns 2 and 3" in step.explanation


def test_search_only_when_no_technique_applies_and_only_when_forced():
    path = CORPUS / "marcizhu__jutge.txt"
    puzzle, solution = load_puzzle(path), _published(path)
    filled: dict = {}
    while (step := next_step(puzzle, filled)) is not None:
        filled[(step.row, step.col)] = step.digit
    assert len(filled) < len(puzzle.whites)  # this published puzzle outruns the techniques
    forced = next_step(puzzle, filled, force=True)
    assert forced.technique == SEARCH
    assert forced.digit == solution[(forced.row, forced.col)]
    assert grade(puzzle).needed_search and grade(puzzle).grade == "expert"


# --- the step's form ----------------------------------------------------------------------------

def test_step_json_counts_rows_and_columns_from_1():
    step = next_step(_unique(CROSSING_PUZZLE))
    assert isinstance(step, Step)
    data = step.to_json()
    assert set(data) == {"row", "col", "digit", "technique", "explanation", "cells"}
    assert (data["row"], data["col"], data["digit"], data["technique"]) == (2, 2, 4, CROSSING)
    assert data["explanation"] == step.explanation
    assert data["cells"] == [[r + 1, c + 1] for r, c in step.cells]
    assert [2, 2] in data["cells"] and all(min(cell) >= 1 for cell in data["cells"])


def test_explanations_name_cells_counted_from_1():
    path = SEEDS / "evolutionary_expert.txt"
    puzzle, solution = load_puzzle(path), _published(path)
    filled: dict = {}
    while (step := next_step(puzzle, filled)) is not None:
        named = [(int(r) - 1, int(c) - 1) for r, c in re.findall(r"row (\d+), column (\d+)", step.explanation)]
        assert named[0] == (step.row, step.col)
        assert all(cell in puzzle.whites for cell in named)
        filled[(step.row, step.col)] = step.digit
    assert filled == solution


def test_a_full_grid_has_no_next_step():
    path = SEEDS / "evolutionary_medium.txt"
    assert next_step(load_puzzle(path), _published(path)) is None


def test_bad_entries_are_refused_with_the_parameter_named():
    puzzle = _unique(CROSSING_PUZZLE)
    with pytest.raises(ValueError, match=r"filled: row 1, column 1 is not a white cell"):
        next_step(puzzle, {(0, 0): 3})
    with pytest.raises(ValueError, match=r"filled: .* not a digit"):
        next_step(puzzle, {(1, 1): 0})
    # 5 in two cells cannot hold a 5 beside anything: the across run at row 2 is named.
    with pytest.raises(ValueError, match=r"filled: the across run 5 in two cells at row 2, column 1"):
        next_step(puzzle, {(1, 1): 5})
