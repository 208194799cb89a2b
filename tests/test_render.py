"""The synthetic renderer: valid puzzles, determinism, exact corner tracking, and the style families."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from solver.formats import load_puzzle
from synthetic.render import (
    STYLE_FAMILIES, TIERS, available_fonts, fold_crease, make_sample, photograph, puzzle_values_ok, random_puzzle,
    random_style, render_family, render_puzzle, use_print_fonts,
)

from conftest import SAMPLES


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


@pytest.mark.parametrize("seed", range(6))
def test_a_fold_is_one_thin_dark_line_through_the_grid_with_one_side_shaded(seed):
    """On blank paper the fold leaves one straight crease a few pixels wide crossing the grid's
    middle three fifths, darker than the shade it leaves on one side of it; the rest of the paper
    is lit evenly on each side."""
    corners = np.array([[100, 100], [500, 100], [500, 500], [100, 500]], np.float32)
    paper = np.full((600, 600, 3), 240, np.uint8)
    out = fold_crease(paper, corners, np.random.default_rng(seed)).astype(np.float32)[:, :, 1]
    assert out.shape == paper.shape[:2]
    crease = out < 0.85 * 240 * 0.85  # darker than the deepest shade of a half
    ys, xs = np.nonzero(crease)
    assert len(xs) > 0
    # One straight line: its pixels lie within a few pixels of the line fitted through them.
    vx, vy, x0, y0 = cv2.fitLine(np.column_stack([xs, ys]).astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).ravel()
    off = np.abs((xs - x0) * vy - (ys - y0) * vx)
    assert np.percentile(off, 95) < 4, np.percentile(off, 95)
    inside = (xs > 180) & (xs < 420) & (ys > 180) & (ys < 420)
    assert inside.any()
    # Away from the crease, the page is two even tones: one side as it was (or lit a little by
    # the ridge), the other shaded by 3-15%.
    yy, xx = np.mgrid[0:600, 0:600]
    far = np.abs((xx - x0) * vy - (yy - y0) * vx) > 40
    tones = np.unique(np.round(out[far]))
    assert len(tones) == 2 and tones.min() >= 0.85 * 240 - 1 and tones.max() == 240, tones


def test_renders_an_existing_puzzle_with_givens_and_pen_digits():
    puzzle = load_puzzle(SAMPLES / "wikipedia_8x8.txt")
    rng = np.random.default_rng(0)
    givens = {cell: 5 for cell in sorted(puzzle.whites)[:3]}
    style = random_style(rng, cell_px=30)
    plain, _ = render_puzzle(puzzle, style)
    image, corners = render_puzzle(puzzle.with_givens(givens), style, pen_values={sorted(puzzle.whites)[5]: 7})
    assert image.shape == plain.shape
    assert np.allclose(corners[2] - corners[0], [30 * puzzle.n_cols, 30 * puzzle.n_rows])
    assert not np.array_equal(image, plain)


# --------------------------------------------------------------------------------------------
# Style families: each drawn flat, its truth checked, and the look it promises found in the pixels

FAMILY_CELL = 48


def _family_render(family, seed=0):
    """A flat render of a 7x8 puzzle (with a 6x6 on every other answer-key page)."""
    rng = np.random.default_rng([31, seed, STYLE_FAMILIES.index(family)])
    pairs = [random_puzzle(rng, 7, 8)]
    if family == "answer_key" and seed % 2:
        pairs.append(random_puzzle(rng, 6, 6))
    puzzles, values = [p for p, _ in pairs], [v for _, v in pairs]
    image, corners, entries, keys = render_family(rng, family, puzzles, values, cell_px=FAMILY_CELL)
    return puzzles, values, image, corners, entries, keys


def _cell_crop(image, corners, shape, cell, inset=0.0):
    """The pixels of ``cell`` of a grid with ``corners`` and ``shape`` (rows, cols), less ``inset``
    (a share of the cell) on every side."""
    (x0, y0), (x1, _), (_, y1) = corners[0], corners[1], corners[2]
    cw, ch = (x1 - x0) / shape[1], (y1 - y0) / shape[0]
    r, c = cell
    # corners are cv2 coordinates: a lattice line at x lies between pixels x - 0.5 and x + 0.5
    left, top = x0 + (c + inset) * cw + 0.5, y0 + (r + inset) * ch + 0.5
    right, bottom = x0 + (c + 1 - inset) * cw + 0.5, y0 + (r + 1 - inset) * ch + 0.5
    return image[int(round(top)):int(round(bottom)), int(round(left)):int(round(right))]


def _gray(image):
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(float)


def _off_diagonal(crop, band):
    """(above, below): masks of a square crop's pixels more than ``band`` px above (upper right)
    and below (lower left) its main diagonal."""
    h, w = crop.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    u, v = xx * (h / w), yy
    return u - v > band * np.sqrt(2), v - u > band * np.sqrt(2)


def _clue_cells(puzzle):
    return sorted(puzzle.clue_at)


@pytest.mark.parametrize("family", STYLE_FAMILIES)
def test_family_renders_valid_truth_and_corners_on_the_border(family):
    puzzles, values, image, corners, entries, keys = _family_render(family)
    assert len(corners) == len(values) == len(entries) == len(puzzles) >= 1
    assert len(keys) == (1 if family == "answer_key" else 0)
    for puzzle, fill in zip(puzzles, values):
        assert puzzle_values_ok(puzzle, fill)
    gray = _gray(image)
    paper = float(np.median(gray[:2, :]))
    h, w = gray.shape
    shapes = [(p.n_rows, p.n_cols) for p in puzzles] + [(puzzles[0].n_rows, puzzles[0].n_cols)] * len(keys)
    for grid, (n_rows, n_cols) in zip(list(corners) + list(keys), shapes):
        assert grid.shape == (4, 2)
        size = grid[2] - grid[0]
        if family != "answer_key":  # a page sizes its own cells
            assert np.allclose(size, [FAMILY_CELL * n_cols, FAMILY_CELL * n_rows], atol=1e-3)
        assert abs(size[0] / n_cols - size[1] / n_rows) < 1e-3  # square cells
        for x, y in grid:
            xi, yi = int(round(x)), int(round(y))
            assert 1 <= xi < w - 1 and 1 <= yi < h - 1
            window = gray[yi - 1:yi + 2, xi - 1:xi + 2]
            assert np.abs(window - paper).max() > 30, (family, x, y, window, paper)
            # outward of the corner, past the frame, is paper: the corner is the grid's outer edge
            ox, oy = np.sign(np.array([x, y]) - grid.mean(axis=0))
            outside = gray[int(np.clip(yi + oy * 6, 0, h - 1)), int(np.clip(xi + ox * 6, 0, w - 1))]
            assert abs(outside - paper) < 25, (family, x, y, outside, paper)
    # the lines between empty white cells lie where the corners put the lattice (a cell holding
    # pencil marks, which reach its edges, is not empty)
    typed = set().union(*entries)
    for grid, puzzle in zip(list(corners) + list(keys), puzzles + puzzles[:1] * len(keys)):
        (x0, y0), cw = grid[0], (grid[1, 0] - grid[0, 0]) / puzzle.n_cols
        shape = (puzzle.n_rows, puzzle.n_cols)
        empty = {cell for cell in puzzle.whites - typed
                 if family != "app_notes" or np.ptp(_gray(_cell_crop(image, grid, shape, cell, 0.1))) < 60}
        assert len(empty) >= 3
        for r, c in sorted(empty):
            for dr, dc in ((0, 1), (1, 0)):
                if (r + dr, c + dc) not in empty:
                    continue
                # a profile across the line, through the middle of the cells' shared edge
                at = np.array([x0 + (c + dc + 0.5 * dr) * cw, y0 + (r + dr + 0.5 * dc) * cw])
                steps = np.arange(-int(0.15 * cw), int(0.15 * cw) + 1)
                profile = gray[np.round(at[1] + steps * dr).astype(int), np.round(at[0] + steps * dc).astype(int)]
                deviation = np.abs(profile - np.median(profile))
                line = steps[deviation >= 0.6 * deviation.max()]  # a wide line (an app's gap) is a run
                assert deviation.max() > 30 and abs(line.mean()) <= 1, (family, (r, c), (dr, dc), profile)


@pytest.mark.parametrize("family", ["discs_black", "discs_grey"])
@pytest.mark.parametrize("seed", range(2))
def test_discs_one_light_round_blob_per_clue_number(family, seed):
    puzzles, _, image, corners, _, _ = _family_render(family, seed)
    puzzle, grid = puzzles[0], corners[0]
    gray = _gray(image)
    blobs = numbers = 0
    for cell in _clue_cells(puzzle):
        clue = puzzle.clue_at[cell]
        numbers += (clue.across is not None) + (clue.down is not None)
        crop = _cell_crop(gray, grid, (puzzle.n_rows, puzzle.n_cols), cell, inset=2 / FAMILY_CELL)
        above, below = _off_diagonal(crop, 2.5)  # a light diagonal would join the discs
        light_at = (np.median(crop) + np.percentile(crop, 99)) / 2  # between the cell's fill and its discs
        light = ((crop > light_at) & (above | below)).astype(np.uint8)
        for outline in cv2.findContours(light, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0]:
            x, y, bw, bh = cv2.boundingRect(outline)
            # the area inside the outline (the dark digits are holes in it): a disc fills about
            # pi/4 of its box, a square all of it
            fill = (cv2.contourArea(outline) + len(outline) / 2) / (bw * bh)
            round_ = 0.75 < bw / bh < 1.33 and 0.65 < fill < 0.9
            if round_ and 0.22 * FAMILY_CELL <= max(bw, bh) <= 0.5 * FAMILY_CELL:
                blobs += 1
    assert numbers > 0 and blobs == numbers, (blobs, numbers)


@pytest.mark.parametrize("family", ["discs_black", "discs_grey"])
def test_numbers_in_discs_are_drawn_tall_enough_to_read_in_small_cells(family):
    # Small cells once got discs with digits 4-6 px tall, a smudge to anyone: the digits (dark
    # holes in each light disc) are measured on flat renders of 32 px cells (in smaller ones a
    # disc that fits its triangle has no room for two digits 8 px tall).
    heights = []
    for seed in range(6):
        rng = np.random.default_rng([7, seed])
        puzzle, values = random_puzzle(rng, 6, 6)
        image, corners, _, _ = render_family(rng, family, [puzzle], [values], cell_px=32)
        gray, grid = _gray(image), corners[0]
        for cell in _clue_cells(puzzle):
            crop = _cell_crop(gray, grid, (puzzle.n_rows, puzzle.n_cols), cell, inset=1 / 32)
            above, below = _off_diagonal(crop, 1.5)
            light_at = (np.median(crop) + np.percentile(crop, 99)) / 2
            light = ((crop > light_at) & (above | below)).astype(np.uint8)
            for outline in cv2.findContours(light, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0]:
                disc = np.zeros_like(light)
                cv2.drawContours(disc, [outline], -1, 1, thickness=-1)
                inner = cv2.erode(disc, np.ones((3, 3), np.uint8)) > 0
                if inner.sum() < 20:
                    continue
                # the digits' ink: darker than halfway from the disc's tone to the darkest stroke
                tone, darkest = np.percentile(crop[inner], 90), crop[inner].min()
                digits = inner & (crop < (tone + darkest) / 2)
                rows = np.flatnonzero(digits.any(axis=1))
                if rows.size:
                    heights.append(rows[-1] - rows[0] + 1)
    assert len(heights) >= 30
    # (measured at half the ink's darkness, a drawn digit loses a row or so of its anti-aliased edge)
    assert np.percentile(heights, 10) >= 6 and np.median(heights) >= 7, np.bincount(heights)


def _diagonal_ink_shares(gray, grid, shape, cell, paper):
    """Shares of points along a cell's diagonal and anti-diagonal that are ink."""
    crop = _cell_crop(gray, grid, shape, cell)
    n = crop.shape[0]
    shares = []
    for anti in (False, True):
        dark = 0
        ts = np.linspace(0.15, 0.85, 15)
        for t in ts:
            y = int(round(t * (n - 1)))
            x = n - 1 - y if anti else y
            dark += crop[max(0, y - 1):y + 2, max(0, x - 1):x + 2].min() < paper - 50
        shares.append(dark / len(ts))
    return shares


@pytest.mark.parametrize("seed", range(3))
def test_diagonal_everywhere_has_a_diagonal_in_every_white_cell(seed):
    puzzles, _, image, corners, _, _ = _family_render("diagonal_everywhere", seed)
    puzzle = puzzles[0]
    gray = _gray(image)
    paper = float(np.median(gray[:2, :]))
    for cell in sorted(puzzle.whites):
        diagonal, anti = _diagonal_ink_shares(gray, corners[0], (puzzle.n_rows, puzzle.n_cols), cell, paper)
        assert diagonal >= 0.35 and anti <= 0.1, (cell, diagonal, anti)  # dashed: about half is ink


@pytest.mark.parametrize("family", ["no_diagonal", "grey_no_split"])
@pytest.mark.parametrize("seed", range(3))
def test_clue_cells_without_a_split(family, seed):
    """Near both ends of the diagonal, where a split would run, a clue cell is its own fill."""
    puzzles, _, image, corners, _, _ = _family_render(family, seed)
    puzzle = puzzles[0]
    for cell in _clue_cells(puzzle):
        crop = _cell_crop(image, corners[0], (puzzle.n_rows, puzzle.n_cols), cell).astype(float)
        fill = np.median(crop.reshape(-1, 3), axis=0)
        n = crop.shape[0]
        for t in (0.12, 0.18, 0.82, 0.88):
            k = int(round(t * (n - 1)))
            assert np.abs(crop[k, k] - fill).max() < 30, (cell, t, crop[k, k], fill)


@pytest.mark.parametrize("seed", range(3))
def test_tinted_clues_are_light_pastel_with_dark_numbers(seed):
    puzzles, _, image, corners, _, _ = _family_render("tinted_clues", seed)
    puzzle = puzzles[0]
    for cell in _clue_cells(puzzle):
        crop = _cell_crop(image, corners[0], (puzzle.n_rows, puzzle.n_cols), cell, inset=0.08)
        fill = np.median(crop.reshape(-1, 3), axis=0)
        luma = 0.114 * fill[0] + 0.587 * fill[1] + 0.299 * fill[2]
        assert luma > 170 and fill.max() - fill.min() >= 15, (cell, fill)
        assert _gray(crop).min() < 110, cell


@pytest.mark.parametrize("seed", range(3))
def test_finished_grey_prints_a_share_of_the_numbers_in_grey(seed):
    puzzles, _, image, corners, _, _ = _family_render("finished_grey", seed)
    puzzle = puzzles[0]
    gray = _gray(image)
    peaks = []
    for cell in _clue_cells(puzzle):
        clue = puzzle.clue_at[cell]
        crop = _cell_crop(gray, corners[0], (puzzle.n_rows, puzzle.n_cols), cell, inset=2 / FAMILY_CELL)
        above, below = _off_diagonal(crop, 3)  # the diagonal is light too
        for total, half in ((clue.across, above), (clue.down, below)):
            if total is not None:
                peaks.append(np.percentile(crop[half], 99))  # the number's brightest ink
    grey = sum(70 < p < 185 for p in peaks)
    white = sum(p >= 185 for p in peaks)
    assert grey + white == len(peaks), peaks
    assert grey >= 1 and 0.15 <= grey / len(peaks) <= 0.55, (grey, len(peaks))


@pytest.mark.parametrize("seed", range(3))
def test_typed_entries_are_in_the_truth_not_givens_and_drawn_large(seed):
    puzzles, values, image, corners, entries, _ = _family_render("typed_entries", seed)
    puzzle, fill, typed = puzzles[0], values[0], entries[0]
    assert typed and set(typed) <= puzzle.whites
    assert 0.1 * len(puzzle.whites) - 1 <= len(typed) <= 0.6 * len(puzzle.whites)
    assert not puzzle.givens  # typed digits are the player's, not the puzzle's
    assert sum(typed[c] != fill[c] for c in typed) <= 2
    gray = _gray(image)
    for cell in sorted(puzzle.whites):
        # the middle of the cell, clear of lines and rounded corners; a diagonal is masked off
        crop = _cell_crop(gray, corners[0], (puzzle.n_rows, puzzle.n_cols), cell, inset=0.2)
        above, below = _off_diagonal(crop, 3)
        ink = (np.abs(crop - np.median(crop)) > 60) & (above | below)
        rows = np.flatnonzero(ink.any(axis=1))
        if cell in typed:
            assert rows.size and rows[-1] - rows[0] + 1 >= 0.4 * FAMILY_CELL, (cell, rows)
        else:
            assert ink.sum() < 10, cell


@pytest.mark.parametrize("seed", range(2))
def test_answer_key_page_has_one_more_grid_than_puzzles(seed):
    puzzles, values, image, corners, _, keys = _family_render("answer_key", seed)
    assert len(keys) == 1 and len(corners) == len(puzzles) == 1 + seed % 2
    gray = _gray(image)
    paper = float(np.median(gray[:2, :]))
    h, w = gray.shape
    ink = cv2.dilate((np.abs(gray - paper) > 60).astype(np.uint8), np.ones((3, 3), np.uint8))
    _, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    grids = [s for s in stats[1:] if s[2] > 0.06 * w and s[3] > 0.06 * w]
    assert len(grids) == len(puzzles) + 1, stats[1:][:10]
    # the answer grid holds a digit in every white cell; the puzzle of the same layout holds none
    shape = (puzzles[0].n_rows, puzzles[0].n_cols)
    for cell in sorted(puzzles[0].whites):
        key_cell = _cell_crop(gray, keys[0], shape, cell, inset=0.2)
        puzzle_cell = _cell_crop(gray, corners[0], shape, cell, inset=0.2)
        above, below = _off_diagonal(puzzle_cell, 3)  # some looks draw a diagonal in white cells
        assert (key_cell < paper - 80).any(), cell
        assert not ((puzzle_cell < paper - 80) & (above | below)).any(), cell


@pytest.mark.parametrize("seed", range(3))
def test_two_tone_halves_shade_across_and_down_differently(seed):
    puzzles, _, image, corners, _, _ = _family_render("two_tone_halves", seed)
    puzzle = puzzles[0]
    halves = {"across": [], "down": []}
    for cell in _clue_cells(puzzle):
        clue = puzzle.clue_at[cell]
        crop = _cell_crop(image, corners[0], (puzzle.n_rows, puzzle.n_cols), cell, inset=2 / FAMILY_CELL)
        above, below = _off_diagonal(crop[:, :, 0], 3)
        for direction, total, half in (("across", clue.across, above), ("down", clue.down, below)):
            if total is not None:
                halves[direction].append(crop[half].astype(float))
    across, down = (np.median(np.vstack(halves[d]), axis=0) for d in ("across", "down"))
    assert np.abs(across - down).max() > 20, (across, down)
    # and each number's triangle is shaded, not left as the cell's ground
    for direction, colour in (("across", across), ("down", down)):
        assert all(np.abs(np.median(h, axis=0) - colour).max() < 20 for h in halves[direction]), direction


@pytest.mark.parametrize("seed", range(3))
def test_rounded_app_cells_have_rounded_corners(seed):
    """The light tile of a white cell fills its bounding box's edges but not its corners."""
    puzzles, _, image, corners, _, _ = _family_render("rounded_app", seed)
    puzzle = puzzles[0]
    gray = _gray(image)
    for cell in sorted(puzzle.whites):
        crop = _cell_crop(gray, corners[0], (puzzle.n_rows, puzzle.n_cols), cell)
        tile = crop > 250
        ys, xs = np.flatnonzero(tile.any(axis=1)), np.flatnonzero(tile.any(axis=0))
        y0, y1, x0, x1 = ys[0], ys[-1], xs[0], xs[-1]
        ym, xm = (y0 + y1) // 2, (x0 + x1) // 2
        assert tile[y0, xm] and tile[y1, xm] and tile[ym, x0] and tile[ym, x1], cell
        assert not (tile[y0, x0] or tile[y0, x1] or tile[y1, x0] or tile[y1, x1]), cell


@pytest.mark.parametrize("seed", range(3))
def test_dark_mode_draws_light_lines_on_dark(seed):
    puzzles, _, image, corners, _, _ = _family_render("dark_mode", seed)
    puzzle = puzzles[0]
    gray = _gray(image)
    assert np.median(gray[:2, :]) < 80
    shape = (puzzle.n_rows, puzzle.n_cols)
    pairs = [(r, c) for r, c in sorted(puzzle.whites) if (r, c + 1) in puzzle.whites]
    assert pairs
    for r, c in pairs:
        left = _cell_crop(gray, corners[0], shape, (r, c), inset=0.3)
        right = _cell_crop(gray, corners[0], shape, (r, c + 1), inset=0.3)
        assert np.median(left) < 110 and np.median(right) < 110
        # the lattice line between them, a short vertical strip through its middle
        (x0, y0), (x1, _), (_, y1) = corners[0][0], corners[0][1], corners[0][2]
        x = x0 + (c + 1) * (x1 - x0) / shape[1]
        y = y0 + (r + 0.5) * (y1 - y0) / shape[0]
        line = gray[int(y) - 3:int(y) + 4, int(round(x)) - 1:int(round(x)) + 2].max()
        assert line > max(np.median(left), np.median(right)) + 50, (r, c, line)


def test_pencil_marks_and_an_apps_cursor_are_drawn_where_asked():
    """Each pencilled candidate in its place of the cell's 3x3 block, and only there; the white
    cells of the cursor's row and column tinted, the cursor's own cell deeper, the rest paper."""
    rng = np.random.default_rng(4)
    puzzle, _ = random_puzzle(rng, 7, 8)
    cell = min(puzzle.whites)
    style = random_style(np.random.default_rng(0), FAMILY_CELL)
    image, corners = render_puzzle(puzzle, style, notes={cell: (1, 6, 8)}, cursor=cell)
    shape = (puzzle.n_rows, puzzle.n_cols)
    crop = _gray(_cell_crop(image, corners, shape, cell))
    n = crop.shape[0]
    blocks = [[crop[int(n * (0.05 + 0.3 * j)):int(n * (0.35 + 0.3 * j)), int(n * (0.05 + 0.3 * i)):int(n * (0.35 + 0.3 * i))]
               for i in range(3)] for j in range(3)]
    inked = [[float(np.percentile(block, 2)) < 160 for block in row] for row in blocks]
    assert inked == [[True, False, False], [False, False, True], [False, True, False]]

    def paper_of(c):
        return np.median(_cell_crop(image, corners, shape, c, 0.15).reshape(-1, 3), axis=0)[::-1]  # RGB

    in_line = [c for c in puzzle.whites if c != cell and (c[0] == cell[0] or c[1] == cell[1])]
    elsewhere = [c for c in puzzle.whites if c[0] != cell[0] and c[1] != cell[1]]
    assert in_line and elsewhere
    assert all(np.abs(paper_of(c) - style.cursor_tint).max() <= 2 for c in in_line)
    assert np.abs(paper_of(cell) - style.cursor_cell_tint).max() <= 2
    assert all(np.abs(paper_of(c) - style.paper).max() <= 2 for c in elsewhere)


@pytest.mark.parametrize("family", ["typed_entries", "answer_key"])
def test_family_samples_carry_their_truth(family):
    sample = make_sample(3, f"style:{family}")
    assert sample.family == family and sample.tier == f"style:{family}"
    assert all(puzzle_values_ok(p, v) for p, v in zip(sample.puzzles, sample.values))
    h, w = sample.image.shape[:2]
    for grid in sample.corners + sample.answer_keys:
        assert (grid >= 0).all() and (grid[:, 0] < w).all() and (grid[:, 1] < h).all()
    if family == "typed_entries":
        assert len(sample.entries) == 1 and sample.entries[0] and not sample.puzzles[0].givens
    else:
        assert len(sample.answer_keys) == 1 and not any(sample.entries)


def test_old_tiers_carry_no_family_truth():
    sample = make_sample(0, "clean")
    assert sample.family is None and sample.entries == () and sample.answer_keys == ()


def test_print_fonts_can_be_restricted_to_fonts_the_reader_never_saw():
    serif = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
    try:
        use_print_fonts([serif, str(SAMPLES / "wikipedia_8x8.png")])  # the image draws no digits: left out
        rng = np.random.default_rng(0)
        assert {random_style(rng).font_path for _ in range(5)} == {serif}
        with pytest.raises(ValueError):
            use_print_fonts([str(SAMPLES / "wikipedia_8x8.png")])
    finally:
        use_print_fonts(None)
    assert len(available_fonts()[0]) > 10
