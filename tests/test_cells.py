"""Cell classification against the transcriptions of real images (tests/data/images)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.cells import classify_cells
from vision.grid import locate_puzzles, rectify
from vision.imageio import load_image

IMAGES = Path(__file__).parent / "data" / "images"


def transcribed_kinds(name: str) -> np.ndarray:
    rows = [line.split() for line in (IMAGES / f"{name}.txt").read_text().splitlines() if line.strip()]
    return np.array([["black" if t == "#" else "white" if t == "." or t.isdigit() else "clue" for t in row]
                     for row in rows])


@pytest.mark.parametrize("filename", [
    "wikipedia_8x8.png",
    "wikipedia_8x8_over_newsprint.png",
    "wikipedia_8x8_transparent.png",
    "site_5x5.png",
    "site_5x5_b.png",
    "site_7x7.png",
    "site_9x9_a.png",
    "site_9x9_b.png",
    "grey_white_digits_14x12.jpg",
    "guardian1244_photo_a.jpg",
    "guardian1244_photo_edited.jpg",
])
def test_cell_kinds_match_transcription(filename):
    truth = transcribed_kinds(Path(filename).stem)
    image = load_image(IMAGES / filename)
    geom = next(g for g in locate_puzzles(image) if g.shape == truth.shape)
    warped, _ = rectify(image, geom.quad, 48, geom.shape)
    classes = classify_cells(warped, geom.lattice)
    assert classes.kinds.shape == truth.shape
    wrong = list(zip(*np.nonzero(classes.kinds != truth)))
    assert wrong == []
    assert classes.confidence.shape == truth.shape
    assert 0 <= classes.confidence.min() and classes.confidence.max() <= 1


def test_solved_panel_cells_stay_white():
    # The right panel of the figure has a digit in every white cell; the left one is empty.
    image = load_image(IMAGES / "figure_two_panels_7x7.png")
    left, right = locate_puzzles(image)
    kinds = []
    for geom in (left, right):
        warped, _ = rectify(image, geom.quad, 48, geom.shape)
        kinds.append(classify_cells(warped, geom.lattice).kinds)
    assert (kinds[0] == kinds[1]).all()
    assert (kinds[0] == "white").sum() == 30


@pytest.mark.parametrize("filename", ["site_7x7.png", "guardian1244_photo_a.jpg"])
def test_warm_light_leaves_white_cells_white(filename):
    # Under warm (tungsten) light the white paper is the coloured part of the grid and the
    # black cells stay neutral; colour must count only as a departure from the white cells' tint.
    truth = transcribed_kinds(Path(filename).stem)
    image = load_image(IMAGES / filename)
    warm = np.clip(image.astype(np.float32) * np.array([0.7, 0.88, 1.0]), 0, 255).astype(np.uint8)
    geom = next(g for g in locate_puzzles(warm) if g.shape == truth.shape)
    warped, _ = rectify(warm, geom.quad, 48, geom.shape)
    wrong = list(zip(*np.nonzero(classify_cells(warped, geom.lattice).kinds != truth)))
    assert wrong == []
