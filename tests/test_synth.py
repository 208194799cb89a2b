"""The synthetic renderer: valid puzzles, determinism, and corners that land where the grid is."""
from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from solver.model import Puzzle
from synthetic.synth import (TIERS, Style, make_sample, photograph, random_puzzle, random_style,
                          render_page, render_puzzle)


def _runs_ok(puzzle: Puzzle, values: dict) -> None:
    assert set(values) == set(puzzle.whites)
    assert all(1 <= v <= 9 for v in values.values())
    for c in range(puzzle.n_cols):
        assert (0, c) not in puzzle.whites
    for r in range(puzzle.n_rows):
        assert (r, 0) not in puzzle.whites
    in_across, in_down = set(), set()
    for run in puzzle.runs:
        digits = [values[cell] for cell in run.cells]
        assert 2 <= len(digits) <= 9, run
        assert len(set(digits)) == len(digits), run
        assert sum(digits) == run.total, run
        (in_across if run.direction == "across" else in_down).update(run.cells)
    assert in_across == set(puzzle.whites) == in_down


@pytest.mark.parametrize("seed, n_rows, n_cols", [
    (0, 3, 3), (1, 5, 5), (2, 8, 12), (3, 15, 15), (4, 15, 6), (5, 10, 10), (6, 12, 9),
])
def test_random_puzzle_is_valid(seed, n_rows, n_cols):
    rng = np.random.default_rng(seed)
    for _ in range(4):
        puzzle, values = random_puzzle(rng, n_rows, n_cols)
        assert (puzzle.n_rows, puzzle.n_cols) == (n_rows, n_cols)
        _runs_ok(puzzle, values)
        # Every non-white cell that starts a run carries that run's clue and nothing else does.
        for clue in puzzle.clues:
            assert (clue.across is not None) == ((clue.row, clue.col + 1) in puzzle.whites)
            assert (clue.down is not None) == ((clue.row + 1, clue.col) in puzzle.whites)


def test_random_puzzle_rejects_bad_arguments():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="n_rows"):
        random_puzzle(rng, 2, 5)
    with pytest.raises(ValueError, match="density"):
        random_puzzle(rng, 6, 6, density=0.1)


@pytest.mark.parametrize("tier", TIERS)
def test_samples_are_deterministic_per_seed(tier):
    a = make_sample(np.random.default_rng(11), tier)
    b = make_sample(np.random.default_rng(11), tier)
    c = make_sample(np.random.default_rng(12), tier)
    assert np.array_equal(a.image, b.image)
    assert a.puzzles == b.puzzles
    assert all(np.array_equal(x, y) for x, y in zip(a.corners, b.corners))
    assert a.image.shape != c.image.shape or not np.array_equal(a.image, c.image)


def _grey(rgb) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def _rotate_points(points_xy: np.ndarray, times: int, shape: tuple[int, ...]) -> np.ndarray:
    """Where points go under ``np.rot90(image, times)`` (counter-clockwise quarter turns)."""
    h, w = shape[:2]
    p = points_xy.astype(float)
    for _ in range(times):
        p = np.stack([p[:, 1], (w - 1) - p[:, 0]], axis=1)
        h, w = w, h
    return p


def test_flat_corners_sit_on_the_outer_border():
    """Along every edge the pixels either side of the corner line are border ink; outside, paper."""
    for k in range(30):
        rng = np.random.default_rng([5, k])
        style = random_style(rng)
        puzzle, _ = random_puzzle(rng, int(rng.integers(5, 9)), int(rng.integers(5, 9)))
        image, corners = render_puzzle(puzzle, style)
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(float)
        line, paper = _grey(style.line_rgb), _grey(style.paper_rgb)
        (x0, y0), (x1, _), (_, y1) = corners[0], corners[1], corners[2]
        # Corners lie half-way between pixel centres, on the centre line of the (even) border.
        ys = [int(np.floor(y0)), int(np.ceil(y0)), int(np.floor(y1)), int(np.ceil(y1))]
        xs = [int(np.floor(x0)), int(np.ceil(x0)), int(np.floor(x1)), int(np.ceil(x1))]
        span_x, span_y = slice(xs[0], xs[3] + 1), slice(ys[0], ys[3] + 1)
        for y in ys:
            assert np.abs(grey[y, span_x] - line).max() < 30, (k, style)
        for x in xs:
            assert np.abs(grey[span_y, x] - line).max() < 30, (k, style)
        out = style.outer_line_px / 2 + 1.5
        for (x, y), (dx, dy) in zip(corners, [(-1, -1), (1, -1), (1, 1), (-1, 1)]):
            px, py = int(round(x + dx * out)), int(round(y + dy * out))
            assert abs(grey[py, px] - paper) < 25, (k, style)
        # Sub-pixel: from the image edge to the corner line, the paper-coloured width must be
        # the margin less half the border, on all four sides (the border is centred on the line).
        for side in range(4):
            g = np.rot90(grey, side)  # bring each side to the top in turn
            c = _rotate_points(corners, side, grey.shape)
            margin = c[:, 1].min() + 0.5
            mid = int(round(c[:, 0].mean()))
            profile = g[:int(round(margin)), mid - 2:mid + 3].mean(axis=1)
            coverage = np.clip((paper - profile) / (paper - line), 0, 1)
            assert abs(np.sum(1 - coverage) - (margin - style.outer_line_px / 2)) < 0.2, (k, side)


def _mark_corners(image: np.ndarray, corners: np.ndarray, radius: int) -> np.ndarray:
    marked = image.copy()
    for x, y in corners.reshape(-1, 2):
        cv2.circle(marked, (int(round(x * 4)), int(round(y * 4))), radius * 4, (0, 0, 255), -1,
                   cv2.LINE_AA, shift=2)
    return marked


@pytest.mark.parametrize("level", ["clean", "photo", "hard"])
def test_photograph_tracks_corners(level):
    """Red dots painted on the corners before the photo are found where the corners went."""
    for k in range(3):
        rng = np.random.default_rng([7, k])
        style = dataclasses.replace(random_style(rng), cell_px=int(rng.integers(28, 60)))
        puzzle, _ = random_puzzle(rng, 8, 9)
        flat, corners = render_puzzle(puzzle, style)
        radius = max(3, style.cell_px // 4)
        image, moved = photograph(_mark_corners(flat, corners, radius), corners, rng, level=level)
        assert moved.shape == (4, 2)
        b, g, r = (image[..., i].astype(int) for i in range(3))
        red = (r - np.maximum(g, b)) > 60
        scale = np.linalg.norm(moved[1] - moved[0]) / np.linalg.norm(corners[1] - corners[0])
        win = max(6, int(3 * radius * scale))
        for x, y in moved:
            xi, yi = int(round(x)), int(round(y))
            ys, xs = np.nonzero(red[max(0, yi - win):yi + win + 1, max(0, xi - win):xi + win + 1])
            assert len(xs) > 0, (level, k)
            cx, cy = xs.mean() + max(0, xi - win), ys.mean() + max(0, yi - win)
            # A dot cut by the image edge has its centroid pulled inwards; allow for that.
            tol = max(1.5, 0.35 * radius * scale)
            assert np.hypot(cx - x, cy - y) < tol, (level, k, (x, y), (cx, cy))


def test_page_corners_and_puzzles():
    rng = np.random.default_rng(3)
    items = []
    for _ in range(3):
        style = random_style(rng)
        puzzle, _ = random_puzzle(rng, 6, 7)
        items.append((puzzle, style))
    page, corners = render_page(items, rng)
    assert len(corners) == 3
    h, w = page.shape[:2]
    for quad in corners:
        assert quad.shape == (4, 2)
        assert (quad >= 0).all() and (quad[:, 0] < w).all() and (quad[:, 1] < h).all()
    # Grids do not overlap.
    boxes = [(q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()) for q in corners]
    for i in range(3):
        for j in range(i + 1, 3):
            a, b = boxes[i], boxes[j]
            assert a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1]


@pytest.mark.parametrize("tier", TIERS)
def test_every_tier_gives_a_sane_image(tier):
    for seed in range(2):
        sample = make_sample(np.random.default_rng([21, seed]), tier)
        image = sample.image
        assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
        assert 150 <= min(image.shape[:2]) and max(image.shape[:2]) <= 4000
        n = len(sample.puzzles)
        assert n == len(sample.corners) == len(sample.values) == len(sample.handwritten)
        assert (2 <= n <= 4) if tier == "page" else n == 1
        h, w = image.shape[:2]
        for puzzle, values, pen, quad in zip(sample.puzzles, sample.values, sample.handwritten,
                                             sample.corners):
            assert 5 <= puzzle.n_rows <= 15 and 5 <= puzzle.n_cols <= 15
            _runs_ok(puzzle, values)
            assert all(values[cell] == digit for cell, digit in puzzle.givens)
            assert all(values[cell] == digit for cell, digit in pen.items())
            assert quad.shape == (4, 2)
            assert (quad > -1).all() and (quad[:, 0] < w).all() and (quad[:, 1] < h).all()
            # TL TR BR BL: clockwise in image coordinates (positive shoelace area).
            x, y = quad[:, 0], quad[:, 1]
            assert 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) > 0


def test_style_defaults_render():
    puzzle, values = random_puzzle(np.random.default_rng(0), 6, 6)
    image, corners = render_puzzle(puzzle.with_givens({next(iter(values)): 5}), Style(),
                                   values=dict(list(values.items())[1:4]))
    assert image.shape == (6 * 40 + 24, 6 * 40 + 24, 3)
    assert np.allclose(corners[0], [11.5, 11.5])
