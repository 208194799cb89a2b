"""The annotated image: each solution digit drawn inside its own white cell, in the photo's
perspective, and nothing else of the photo touched."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from pipeline import Status, annotate_image, solve_image
from solver.formats import load_puzzle, parse_solution_grid
from synthetic.render import photograph, random_style, render_puzzle

from conftest import CORPUS


def _cell_quads(corners_xy: np.ndarray, n_rows: int, n_cols: int, inset: float) -> dict:
    """Each cell's quad in the photo, shrunk by ``inset`` of a cell on every side, from the grid's
    true corners (tracked by the renderer) alone."""
    unit = np.float32([[0, 0], [n_cols, 0], [n_cols, n_rows], [0, n_rows]])
    to_photo = cv2.getPerspectiveTransform(unit, np.float32(corners_xy))
    quads = {}
    for r in range(n_rows):
        for c in range(n_cols):
            a, b = inset, 1 - inset
            pts = np.float32([[[c + a, r + a], [c + b, r + a], [c + b, r + b], [c + a, r + b]]])
            quads[r, c] = cv2.perspectiveTransform(pts, to_photo)[0]
    return quads


@pytest.mark.parametrize("name, seed", [("paucuesta9__diff2_9_10_0", 2), ("kakurokuso__SumasCruzadas_94", 9)])
def test_solution_digits_are_drawn_in_their_cells_and_nowhere_else(name, seed):
    rng = np.random.default_rng([seed, 77])
    puzzle = load_puzzle(CORPUS / f"{name}.txt")
    values = parse_solution_grid((CORPUS / f"{name}.sol").read_text())  # published with the puzzle
    flat, corners = render_puzzle(puzzle, random_style(rng, 60), rng=rng)
    photo, corners = photograph(flat, corners, rng, "photo")
    results = solve_image(photo)
    assert [r.status for r in results] == [Status.solved]
    assert dict(results[0].solution.values) == values
    drawn = annotate_image(photo, results)
    assert drawn.shape == photo.shape and drawn is not photo

    # The solution's ink is a strong blue: blue well above red, where the print was not.
    b, g, r = (drawn[..., k].astype(int) for k in range(3))
    blue = (b - r > 80) & (np.abs(drawn.astype(int) - photo).max(axis=2) > 40)
    changed = np.abs(drawn.astype(int) - photo).max(axis=2) > 0
    inner = _cell_quads(corners, puzzle.n_rows, puzzle.n_cols, inset=0.15)
    for cell, quad in inner.items():
        mask = np.zeros(photo.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, np.rint(quad).astype(np.int32), 1)
        if cell in values:
            assert blue[mask > 0].mean() > 0.04, (cell, blue[mask > 0].mean())
        else:
            assert not changed[mask > 0].any(), cell
    # Beyond a third of a cell around the grid, the photo is as it was.
    unit = np.float32([[0, 0], [puzzle.n_cols, 0], [puzzle.n_cols, puzzle.n_rows], [0, puzzle.n_rows]])
    to_photo = cv2.getPerspectiveTransform(unit, np.float32(corners))
    m = 0.33
    grown = cv2.perspectiveTransform(np.float32([[[-m, -m], [puzzle.n_cols + m, -m],
                                                  [puzzle.n_cols + m, puzzle.n_rows + m],
                                                  [-m, puzzle.n_rows + m]]]), to_photo)[0]
    around = np.ones(photo.shape[:2], np.uint8)
    cv2.fillConvexPoly(around, np.rint(grown).astype(np.int32), 0)
    assert around.any() and not changed[around > 0].any()
