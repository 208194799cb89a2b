"""The layout's symmetry as a witness: a cell misread as a block is caught, never solved wrongly."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from pipeline import solve_image
from solver.formats import grid_tokens, load_puzzle
from solver.validate import layout_asymmetry
from vision.imageio import load_image

from conftest import SAMPLES, load_transcription


def test_symmetric_layouts_have_no_asymmetric_cells():
    # Layouts as published (hand transcriptions); each is symmetric under a half turn of the
    # grid without its clue row and column, checked by eye on the printed puzzles.
    for name in ("wikipedia_8x8", "site_9x9_a", "guardian1244_photo_a", "grey_white_digits_14x12"):
        puzzle = load_puzzle(SAMPLES / f"{name}.txt")
        assert layout_asymmetry(puzzle.n_rows, puzzle.n_cols, puzzle.whites) == (), name


def test_one_cell_off_names_it_and_its_mirror():
    puzzle = load_puzzle(SAMPLES / "wikipedia_8x8.txt")
    whites = set(puzzle.whites)
    whites.discard((3, 3))  # rows and columns from 0; its mirror in the 7x7 inner grid is (5, 5)
    assert layout_asymmetry(8, 8, frozenset(whites)) == ((3, 3), (5, 5))


def test_hand_made_layout():
    # 4x4 inner grid with one white block in the top left only: . marks white, from row 1.
    #   # # # #
    #   # . . #      inner (1,1),(1,2) white; mirror of (1,1) is (3,3), of (1,2) is (3,2)
    #   # # # #
    #   # # # #
    whites = frozenset({(1, 1), (1, 2)})
    assert layout_asymmetry(4, 4, whites) == ((1, 1), (1, 2), (3, 2), (3, 3))


def _blot_cell(image: np.ndarray, result, row: int, col: int) -> np.ndarray:
    """The image with the inside of one cell painted near-black (a stain, a deep shadow)."""
    lattice, to_image = result.reading.lattice, np.linalg.inv(result.reading.H)
    y0, y1 = lattice.row_edges[row], lattice.row_edges[row + 1]
    x0, x1 = lattice.col_edges[col], lattice.col_edges[col + 1]
    m = 0.12 * (x1 - x0)
    box = np.array([[[x0 + m, y0 + m]], [[x1 - m, y0 + m]], [[x1 - m, y1 - m]], [[x0 + m, y1 - m]]], np.float32)
    out = image.copy()
    cv2.fillPoly(out, [cv2.perspectiveTransform(box, to_image).astype(np.int32)], (20, 20, 20))
    return out


@pytest.mark.parametrize("name, row, col", [("wikipedia_8x8.png", 3, 3), ("site_9x9_a.png", 4, 4)])
def test_a_white_cell_blotted_black_is_read_white_by_symmetry(name, row, col):
    truth = load_transcription(SAMPLES / name)
    assert (row, col) in truth.whites
    image = load_image(SAMPLES / name)
    [first] = solve_image(image)
    blotted = _blot_cell(image, first, row, col)
    [result] = solve_image(blotted)
    assert result.status == "solved"
    assert grid_tokens(result.puzzle) == grid_tokens(truth)
