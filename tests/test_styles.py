"""Print styles beyond the plain newspaper grid: typed entries, numbers in discs."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pipeline import solve_image
from solver.formats import grid_tokens, load_puzzle
from solver.solve import solve_puzzle
from vision.imageio import load_image

IMAGES = Path(__file__).parent / "data" / "images"

#: The digits the player typed into the game screenshot, transcribed by eye (row, col from 1).
_TYPED = {(4, 2): 2, (4, 3): 1, (4, 4): 3, (4, 7): 1, (4, 8): 3, (5, 2): 1, (5, 3): 2, (5, 8): 9}


@pytest.mark.slow
def test_typed_entries_in_a_game_screenshot_are_checked_not_taken_for_givens():
    """White clue numbers on black, finished clues greyed, eight digits typed by the player, two of
    them wrong: the puzzle is solved from its clues and the wrong entries are named."""
    truth = load_puzzle(IMAGES / "game_screenshot_entries_8x8.txt")
    solution = solve_puzzle(truth).values
    (res,) = solve_image(load_image(IMAGES / "game_screenshot_entries_8x8.png"))
    assert res.status == "solved", res.problems
    assert grid_tokens(res.puzzle) == grid_tokens(truth)
    assert dict(res.solution.values) == dict(solution)
    written = {(r + 1, c + 1): (digit, ok) for (r, c), digit, ok in res.written}
    assert {cell: digit for cell, (digit, _) in written.items()} == _TYPED
    expected_ok = {cell: solution[(cell[0] - 1, cell[1] - 1)] == digit for cell, digit in _TYPED.items()}
    assert {cell: ok for cell, (_, ok) in written.items()} == expected_ok
    assert sum(not ok for ok in expected_ok.values()) == 2
    rows = res.to_json()["written"]
    assert {(w["row"], w["col"]): w["correct"] for w in rows} == expected_ok


@pytest.mark.slow
def test_numbers_in_discs_on_a_japanese_book_page_are_read():
    """Every clue number in a small white disc on the black half of its cell; two puzzles, a
    worked example and an answer grid on one scanned page. The three puzzles read exactly and
    solve to their transcriptions' solutions; the answer grid is never reported solved."""
    truths = [load_puzzle(IMAGES / f"book_scan_discs_3puzzles@{k}.txt") for k in (1, 2, 3)]
    results = solve_image(load_image(IMAGES / "book_scan_discs_3puzzles.jpg"))
    solved = [r for r in results if r.status == "solved"]
    assert len(solved) == 3
    for truth in truths:
        (res,) = [r for r in solved if (r.puzzle.n_rows, r.puzzle.n_cols) == (truth.n_rows, truth.n_cols)]
        assert grid_tokens(res.puzzle) == grid_tokens(truth)
        assert dict(res.solution.values) == dict(solve_puzzle(truth).values)


CORPUS = Path(__file__).parent / "data" / "puzzles" / "corpus"


def _corpus_puzzles(names):
    out = []
    for name in names:
        puzzle = load_puzzle(CORPUS / name)
        out.append((puzzle, dict(solve_puzzle(puzzle).values)))
    return out


@pytest.mark.slow
def test_a_diagonal_in_every_cell_does_not_make_every_cell_a_clue():
    """A regional newspaper's look: a thin diagonal in every cell, white cells included, clue
    cells on the white paper told apart only by their small numbers, blocks grey or hatched.
    Published puzzles from the corpus, drawn that way (flat and photographed): each is read
    exactly, and none is solved wrongly."""
    from vision.render import render_family

    puzzles = _corpus_puzzles(["paucuesta9__diff2_9_10_0.txt", "nikoli__Nikoli_Vol_142_Kakuro_No_4.txt"])
    exact = wrong = 0
    cases = [(k, level) for k in range(3) for level in (None, "photo")]
    for k, level in cases:
        puzzle, values = puzzles[k % len(puzzles)]
        image, _, _, _ = render_family(np.random.default_rng([24, k]), "diagonal_everywhere", [puzzle],
                                       [values], cell_px=44, level=level)
        results = [r for r in solve_image(image) if r.puzzle is not None]
        read = results[0] if results else None
        exact += read is not None and grid_tokens(read.puzzle) == grid_tokens(puzzle)
        wrong += read is not None and read.status == "solved" and dict(read.solution.values) != values
    assert wrong == 0
    assert exact >= len(cases) - 1, f"{exact} of {len(cases)} read exactly"


@pytest.mark.parametrize("name", ["site_9x9_a.png", "wikipedia_8x8.png", "grey_white_digits_14x12.jpg"])
def test_a_grid_in_dark_mode_is_read_in_negative(name):
    """A screen in dark mode draws light lines and digits on dark cells: real screenshots and a
    real scan turned negative read exactly as the originals' transcriptions."""
    truth = load_puzzle(IMAGES / (name.rsplit(".", 1)[0] + ".txt"))
    results = solve_image(255 - load_image(IMAGES / name))
    assert [r.status for r in results] == ["solved"]
    assert grid_tokens(results[0].puzzle) == grid_tokens(truth)
    assert dict(results[0].solution.values) == dict(solve_puzzle(truth).values)
