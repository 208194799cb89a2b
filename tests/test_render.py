"""The synthetic renderer: valid puzzles, determinism, and exact corner tracking."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from solver.formats import load_puzzle
from vision.render import (
    TIERS, make_sample, photograph, puzzle_values_ok, random_puzzle, random_style, render_puzzle,
)

IMAGES = Path(__file__).resolve().parent / "data" / "images"


def _run_lengths(puzzle, cell):
    """(across length, down length) of the white runs through ``cell``."""
    lengths = []
    for dr, dc in ((0, 1), (1, 0)):
        r, c = cell
        while (r - dr, c - dc) in puzzle.whites:
            r, c = r - dr, c - dc
        n = 0
        while (r, c) in puzzle.whites:
            n, r, c = n + 1, r + dr, c + dc
        lengths.append(n)
    return lengths


@pytest.mark.parametrize("seed", range(12))
def test_random_puzzle_is_valid(seed):
    rng = np.random.default_rng(seed)
    n_rows, n_cols = int(rng.integers(5, 16)), int(rng.integers(5, 16))
    puzzle, values = random_puzzle(rng, n_rows, n_cols)
    assert (puzzle.n_rows, puzzle.n_cols) == (n_rows, n_cols)
    assert all(puzzle.kind(0, c) != "white" for c in range(n_cols))
    assert all(puzzle.kind(r, 0) != "white" for r in range(n_rows))
    for cell in puzzle.whites:
        assert all(2 <= n <= 9 for n in _run_lengths(puzzle, cell)), cell
    # a clue cell exactly where a non-white cell has a white cell right of or below it
    for r in range(n_rows):
        for c in range(n_cols):
            if (r, c) in puzzle.whites:
                continue
            clue = puzzle.clue_at.get((r, c))
            assert ((r, c + 1) in puzzle.whites) == (clue is not None and clue.across is not None)
            assert ((r + 1, c) in puzzle.whites) == (clue is not None and clue.down is not None)
    assert puzzle_values_ok(puzzle, values)
    for run in puzzle.runs:
        digits = [values[cell] for cell in run.cells]
        assert len(set(digits)) == len(digits) and sum(digits) == run.total
    assert all(1 <= d <= 9 for d in values.values())


def test_puzzle_values_ok_rejects_a_wrong_fill():
    puzzle, values = random_puzzle(np.random.default_rng(3), 8, 8)
    cell = min(values)
    wrong = dict(values)
    wrong[cell] = values[cell] % 9 + 1
    assert not puzzle_values_ok(puzzle, wrong)


@pytest.mark.parametrize("tier", TIERS)
def test_make_sample_is_deterministic_and_sane(tier):
    a, b = make_sample(5, tier), make_sample(5, tier)
    assert np.array_equal(a.image, b.image)
    assert a.puzzles == b.puzzles and a.values == b.values
    assert all(np.array_equal(p, q) for p, q in zip(a.corners, b.corners))
    assert not np.array_equal(a.image.shape, make_sample(6, tier).image.shape) or \
        not np.array_equal(a.image, make_sample(6, tier).image)
    h, w = a.image.shape[:2]
    assert a.image.dtype == np.uint8 and a.image.ndim == 3
    assert 300 <= max(h, w) <= 2500
    assert len(a.puzzles) == len(a.values) == len(a.corners) >= 1
    sizes = range(6, 11) if tier == "page" else range(5, 16)
    for puzzle, values, corners in zip(a.puzzles, a.values, a.corners):
        assert puzzle.n_rows in sizes and puzzle.n_cols in sizes
        assert puzzle_values_ok(puzzle, values)
        assert corners.shape == (4, 2) and corners.dtype == np.float32
        assert (corners >= 0).all() and (corners[:, 0] < w).all() and (corners[:, 1] < h).all()


@pytest.mark.parametrize("seed", range(20))
def test_clean_render_corners_lie_on_the_dark_border(seed):
    rng = np.random.default_rng(100 + seed)
    puzzle, _ = random_puzzle(rng, int(rng.integers(5, 12)), int(rng.integers(5, 12)))
    style = random_style(rng)
    image, corners = render_puzzle(puzzle, style)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(float)
    paper = float(np.median(gray[:2, :]))
    h, w = gray.shape
    assert abs(corners[2, 0] - corners[0, 0] - style.cell_px * puzzle.n_cols) < 1e-3
    assert abs(corners[2, 1] - corners[0, 1] - style.cell_px * puzzle.n_rows) < 1e-3
    for x, y in corners:
        xi, yi = int(round(x)), int(round(y))
        assert 1 <= xi < w - 1 and 1 <= yi < h - 1
        window = gray[yi - 1:yi + 2, xi - 1:xi + 2]
        assert window.min() < paper - 80, (x, y, window)
        # a cell outward of the corner is paper: the corner is the grid's outer edge
        ox, oy = np.sign(np.array([x, y]) - corners.mean(axis=0))
        outside = gray[int(yi + oy * (style.outer_px + 2)), int(xi + ox * (style.outer_px + 2))]
        assert outside > paper - 40


@pytest.mark.parametrize("level", ["clean", "photo", "hard", "light"])
def test_photograph_tracks_points_exactly(level):
    """Red dots drawn at the corners end up where the returned corners say."""
    points = np.array([[100.3, 80.7], [480.2, 95.1], [470.6, 420.4], [90.1, 400.9]], np.float32)
    # shadow edges and heavy JPEG shift a colour centroid a little; the geometry itself is exact
    tolerance = 2.0 if level in ("hard", "light") else 0.5
    for seed in range(8 if level == "light" else 4):  # light: each of its conditions at least once
        image = np.full((500, 600, 3), 250, np.uint8)
        for x, y in points:
            cv2.circle(image, (round(x * 16), round(y * 16)), 6 * 16, (0, 0, 255), -1, cv2.LINE_AA, shift=4)
        out, tracked = photograph(image, points, np.random.default_rng(seed), level)
        f = out.astype(np.float32)
        red = np.clip(f[:, :, 2] - np.maximum(f[:, :, 0], f[:, :, 1]) - 40, 0, None)
        for x, y in tracked:
            x0, y0 = max(0, int(x) - 12), max(0, int(y) - 12)
            win = red[y0:y0 + 25, x0:x0 + 25]
            yy, xx = np.mgrid[y0:y0 + win.shape[0], x0:x0 + win.shape[1]]
            assert win.sum() > 0, (level, seed, x, y)
            cx, cy = (win * xx).sum() / win.sum(), (win * yy).sum() / win.sum()
            assert np.hypot(cx - x, cy - y) < tolerance, (level, seed, cx - x, cy - y)


def test_renders_an_existing_puzzle_with_givens_and_pen_digits():
    puzzle = load_puzzle(IMAGES / "wikipedia_8x8.txt")
    rng = np.random.default_rng(0)
    givens = {cell: 5 for cell in sorted(puzzle.whites)[:3]}
    style = random_style(rng, cell_px=30)
    plain, _ = render_puzzle(puzzle, style)
    image, corners = render_puzzle(puzzle.with_givens(givens), style, pen_values={sorted(puzzle.whites)[5]: 7})
    assert image.shape == plain.shape
    assert np.allclose(corners[2] - corners[0], [30 * puzzle.n_cols, 30 * puzzle.n_rows])
    assert not np.array_equal(image, plain)
