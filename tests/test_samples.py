"""Real photos, scans and screenshots in samples/: read, checked against hand transcriptions, solved."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from pipeline import solve_image
from solver.formats import grid_tokens
from vision.imageio import load_image

from conftest import SAMPLES, load_transcription

# Every image whose row in ../shared/images/README.md says "must read", with its transcription.
MUST_READ = [
    "wikipedia_8x8.png",
    "wikipedia_8x8_over_newsprint.png",
    "wikipedia_8x8_transparent.png",
    "site_5x5.png",
    "site_5x5_b.png",
    "site_7x7.png",
    "site_9x9_a.png",
    "site_9x9_b.png",
    "grey_white_digits_14x12.jpg",
    "guardian1244_photo_edited.jpg",
    "guardian1244_photo_a.jpg",
    # Already filled in by hand in pen: the printed clues must be read, the pen digits ignored
    # (its transcription's unique solution is the pen's).
    "times2046_photo_handfilled.png",
    # Not "must read" upstream (only "find the grid"): white clue cells split by a faint diagonal.
    "app_window_10x10.png",
    # Not transcribed upstream; transcribed here from the picture (the reading, checked cell by cell).
    "book_page_curl_photo.jpg",
    "site_german_10x10.png",
]


def _satisfies(puzzle, values) -> bool:
    for run in puzzle.runs:
        digits = [values.get(cell) for cell in run.cells]
        if None in digits or len(set(digits)) != len(digits) or sum(digits) != run.total:
            return False
    return all(1 <= v <= 9 for v in values.values()) and set(values) == set(puzzle.whites)


def _the_puzzle(results, truth):
    """The result whose grid has the transcription's shape (a page may show other grids too)."""
    same_shape = [r for r in results if r.puzzle is not None
                  and (r.puzzle.n_rows, r.puzzle.n_cols) == (truth.n_rows, truth.n_cols)]
    assert same_shape, f"no grid of shape {truth.n_rows}x{truth.n_cols} found: " \
                       f"{[(r.status, r.reading and (r.reading.n_rows, r.reading.n_cols)) for r in results]}"
    return same_shape[0]


@pytest.mark.parametrize("name", MUST_READ)
def test_must_read_images_are_read_exactly_and_solved(name):
    truth = load_transcription(SAMPLES / name)
    result = _the_puzzle(solve_image(load_image(SAMPLES / name)), truth)
    assert grid_tokens(result.puzzle) == grid_tokens(truth)
    assert result.status == "solved"
    assert _satisfies(truth, dict(result.solution.values))
    # The corners are the grid's: inside the image, in TL TR BR BL order.
    (tlx, tly), (trx, try_), (brx, bry), (blx, bly) = result.corners_xy
    assert tlx < trx and blx < brx and tly < bly and try_ < bry


@pytest.mark.parametrize("name", ["magazine_10x10_unbalanced.png", "magazine_10x10_unbalanced_over_newsprint.png"])
def test_inconsistent_printed_clues_are_never_solved(name):
    # As printed, the across clues total 222 and the down clues 220: no solution exists.
    results = solve_image(load_image(SAMPLES / name))
    tens = [r for r in results if r.reading is not None and (r.reading.n_rows, r.reading.n_cols) == (10, 10)]
    assert tens, "the 10x10 grid was not found"
    assert tens[0].status == "unsolvable"
    assert "222" in tens[0].problems[0] and "220" in tens[0].problems[0]
    assert tens[0].problems


def _on_background(image, pad_frac: float, value, angle: float = 0.0):
    """The image placed on a plain background ``pad_frac`` of its size wide, turned by ``angle``."""
    h, w = image.shape[:2]
    M = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    M[:, 2] += (w * pad_frac, h * pad_frac)
    size = (int(w * (1 + 2 * pad_frac)), int(h * (1 + 2 * pad_frac)))
    return cv2.warpAffine(image, M, size, flags=cv2.INTER_LINEAR, borderValue=value)


@pytest.mark.parametrize("name, pad_frac, value, angle", [
    # Clue triangles on a black page: no line closes off the first row and column of clues.
    ("wikipedia_8x8_transparent.png", 0.15, (0, 0, 0), 0.0),
    # Cropped through the last row of cells (no closing line), then set on white paper.
    ("site_9x9_a.png", 0.1, (255, 255, 255), 0.0),
    # Turned on a grey desk: the upright box around the page must not win over the grid.
    ("guardian1244_photo_a.jpg", 0.1, (120, 120, 120), -3.0),
])
def test_must_read_images_on_another_background(name, pad_frac, value, angle):
    truth = load_transcription(SAMPLES / name)
    image = _on_background(load_image(SAMPLES / name), pad_frac, value, angle)
    result = _the_puzzle(solve_image(image), truth)
    assert grid_tokens(result.puzzle) == grid_tokens(truth)
    assert result.status == "solved"


@pytest.mark.parametrize("name, turn", [
    ("guardian1244_photo_edited.jpg", cv2.ROTATE_90_CLOCKWISE),
    ("times2046_photo_handfilled.png", cv2.ROTATE_180),
    ("app_window_10x10.png", cv2.ROTATE_90_COUNTERCLOCKWISE),
    ("grey_white_digits_14x12.jpg", cv2.ROTATE_180),
    ("site_german_10x10.png", cv2.ROTATE_90_CLOCKWISE),
])
def test_must_read_images_turned_a_quarter_or_half_turn_are_read_upright(name, turn):
    # A page scanned sideways or a photo whose orientation was lost: read as if upright, and
    # drawn on the image as it lies.
    truth = load_transcription(SAMPLES / name)
    image = cv2.rotate(load_image(SAMPLES / name), turn)
    result = _the_puzzle(solve_image(image), truth)
    assert grid_tokens(result.puzzle) == grid_tokens(truth)
    assert result.status == "solved"
    assert _satisfies(truth, dict(result.solution.values))
    assert result.to_json()["turned"] == {cv2.ROTATE_90_CLOCKWISE: 90, cv2.ROTATE_180: 180,
                                          cv2.ROTATE_90_COUNTERCLOCKWISE: 270}[turn]
    # The puzzle's top-left corner lies where the turn took the page's: top right after a
    # clockwise quarter turn, bottom right after a half turn, bottom left after an anticlockwise one.
    h, w = image.shape[:2]
    x, y = result.corners_xy[0]
    expected_right, expected_bottom = {cv2.ROTATE_90_CLOCKWISE: (True, False), cv2.ROTATE_180: (True, True),
                                       cv2.ROTATE_90_COUNTERCLOCKWISE: (False, True)}[turn]
    assert (x > w / 2, y > h / 2) == (expected_right, expected_bottom)
    # The frame the solution is drawn in maps the grid's first corner there too.
    lattice = result.reading.lattice
    corner = cv2.perspectiveTransform(np.array([[[lattice.col_edges[0], lattice.row_edges[0]]]], np.float64),
                                      np.linalg.inv(result.reading.H)).ravel()
    assert np.hypot(*(corner - (x, y))) < 0.5 * min(w, h) / max(truth.n_rows, truth.n_cols)
