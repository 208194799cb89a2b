"""Synthetic Kakuro images with exact ground truth, to test and benchmark recognition.

``random_puzzle`` makes a valid layout with a digit fill, ``random_style`` draws a print style
(black, grey, coloured, newspaper-white, wikipedia and half-shaded clue cells; many fonts, line
widths and cell sizes), ``render_puzzle`` draws a flat grid, ``photograph`` turns it into a scan or
a phone photo while tracking the grid corners through every geometric step, ``render_page`` lays
2-4 puzzles out as a puzzle-book page, and ``make_sample`` ties these together per tier.

The product is judged on photos in styles and fonts this module never drew, so parameters are
spread wide rather than tuned to one source; a recogniser that only passes on these images has
not shown much.

Coordinates: public ``(row, col)``; pixel positions are cv2 ``(x, y)`` with pixel centres at
integers, and every name holding them ends in ``_xy``. Images are BGR uint8.
"""
from __future__ import annotations

import dataclasses
import logging
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal, Mapping, Sequence

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from solver.model import Cell, Puzzle
from synthetic.render import puzzle_from_fill

__all__ = [
    "TIERS", "Style", "SynthSample", "available_fonts", "random_puzzle", "random_style",
    "render_puzzle", "photograph", "render_page", "make_sample",
]

log = logging.getLogger(__name__)

RGB = tuple[int, int, int]
ClueLook = Literal["dark", "shaded", "newspaper", "wiki", "half"]
BlockLook = Literal["solid", "diagonal", "cross", "fill"]
Level = Literal["clean", "photo", "hard"]
TIERS = ("clean", "photo", "hard", "page")

_SS = 2  # geometry is drawn at 2x and area-averaged down: antialiased edges, half-pixel line widths
_FONT_ROOT = Path("/usr/share/fonts")
# Latin families whose digits look like print; Noto's many script-specific families are left out.
_PRINT_FAMILIES = (
    "DejaVuSans", "DejaVuSerif", "Liberation", "FreeSans", "FreeSerif", "FreeMono", "NimbusSans",
    "NimbusRoman", "NimbusMono", "C059", "P052", "URWBookman", "URWGothic", "NotoSans-",
    "NotoSerif-", "NotoSansDisplay-", "NotoSansMono-", "NotoSerifDisplay-",
)
_WORDS = (
    "fill the grid so that the digits in each run add up to the clue printed to its left or above "
    "no digit may appear twice in a run the across total sits above the diagonal and the down "
    "total below it solution tomorrow yesterday's answers easy medium hard fiendish puzzle book "
    "weekly competition prize crossword sudoku kakuro cross sums logic times guardian edition "
    "page number entries winner by post online subscribe to print more puzzles every day"
).split()


# --------------------------------------------------------------------------------------------
# Puzzles


def random_puzzle(rng: np.random.Generator, n_rows: int, n_cols: int, *,
                  density: float | None = None) -> tuple[Puzzle, dict[Cell, int]]:
    """A valid random Kakuro layout with a digit fill, and the clues that the fill implies.

    Row 0 and column 0 are non-white; every white cell lies in an across and a down run of length
    2..9, each run starts right after a clue cell, and digits are distinct within each run. The
    puzzle need not have a unique solution.

    Parameters
    ----------
    rng : numpy Generator
    n_rows, n_cols : int
        Grid size including the clue row and column, each at least 3.
    density : float, optional
        Chance that an inner cell starts white before runs are repaired (0.3..0.95); the final
        white fraction is lower. Random in 0.62..0.88 when omitted.

    Returns
    -------
    puzzle : Puzzle
    values : dict mapping each white ``(row, col)`` to its digit.
    """
    if n_rows < 3 or n_cols < 3:
        raise ValueError(f"n_rows, n_cols: need at least 3x3, got {n_rows}x{n_cols}")
    if density is not None and not 0.3 <= density <= 0.95:
        raise ValueError(f"density: must lie in 0.3..0.95, got {density}")
    for _ in range(300):
        d = float(rng.uniform(0.62, 0.88)) if density is None else density
        white = _random_layout(rng, n_rows, n_cols, d)
        if white is None:
            continue
        values = _fill_digits(rng, white)
        if values is None:
            continue
        return puzzle_from_fill(white, values), values
    raise RuntimeError(f"could not make a {n_rows}x{n_cols} layout; try a larger grid or density")


def _runs_of(line: np.ndarray) -> list[tuple[int, int]]:
    """(start, length) of each stretch of True in a 1-D bool array."""
    padded = np.concatenate([[False], line, [False]]).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    return [(int(a), int(b - a)) for a, b in zip(edges[::2], edges[1::2])]


def _random_layout(rng: np.random.Generator, n_rows: int, n_cols: int,
                   density: float) -> np.ndarray | None:
    white = np.zeros((n_rows, n_cols), bool)
    white[1:, 1:] = rng.random((n_rows - 1, n_cols - 1)) < density
    # Most published grids are symmetric under a half turn; some are not.
    symmetric = rng.random() < 0.65
    if symmetric:
        inner = white[1:, 1:]
        inner &= inner[::-1, ::-1]
    max_run = int(rng.integers(4, 10))  # many books keep runs short

    def set_cell(r: int, c: int, value: bool) -> None:
        white[r, c] = value
        if symmetric:
            white[n_rows - r, n_cols - c] = value

    # A lone white cell is fixed by blackening it or, early on, by whitening a neighbour along
    # the short direction (blackening alone cascades into large black regions).
    for sweep in range(10 * (n_rows + n_cols)):
        changed = False
        grow = sweep < 6
        for transpose in (False, True):
            grid = white.T if transpose else white
            for i in range(grid.shape[0]):
                for start, length in _runs_of(grid[i]):
                    if 2 <= length <= max_run:
                        continue
                    if length == 1:
                        j, value = start, False
                        if grow and rng.random() < 0.6:
                            options = [k for k in (start - 1, start + 1) if 1 <= k < grid.shape[1]]
                            if options:
                                j, value = options[int(rng.integers(len(options)))], True
                    else:
                        j, value = start + int(rng.integers(2, length - 2)), False
                    set_cell(*((j, i) if transpose else (i, j)), value)
                    changed = True
        if not changed:
            break
    else:
        return None
    inner_cells = (n_rows - 1) * (n_cols - 1)
    if white.sum() < max(4, 0.3 * inner_cells):
        return None
    return white


def _fill_digits(rng: np.random.Generator, white: np.ndarray) -> dict[Cell, int] | None:
    """Distinct digits per run by randomised backtracking; None when the node budget runs out."""
    cells = [(int(r), int(c)) for r, c in zip(*np.nonzero(white))]
    across_id: dict[Cell, int] = {}
    down_id: dict[Cell, int] = {}
    for ids, grid, transpose in ((across_id, white, False), (down_id, white.T, True)):
        run = 0
        for i in range(grid.shape[0]):
            for start, length in _runs_of(grid[i]):
                for j in range(start, start + length):
                    ids[(j, i) if transpose else (i, j)] = run
                run += 1
    used_a = [0] * (max(across_id.values()) + 1)
    used_d = [0] * (max(down_id.values()) + 1)
    orders = [rng.permutation(9) + 1 for _ in cells]
    values: dict[Cell, int] = {}
    budget = [30 * len(cells) + 2000]

    def place(k: int) -> bool:
        if k == len(cells):
            return True
        budget[0] -= 1
        if budget[0] < 0:
            return False
        cell = cells[k]
        a, d = across_id[cell], down_id[cell]
        for digit in orders[k]:
            bit = 1 << int(digit)
            if (used_a[a] | used_d[d]) & bit:
                continue
            used_a[a] |= bit
            used_d[d] |= bit
            values[cell] = int(digit)
            if place(k + 1):
                return True
            used_a[a] &= ~bit
            used_d[d] &= ~bit
        values.pop(cell, None)
        return False

    return dict(values) if place(0) else None


# --------------------------------------------------------------------------------------------
# Styles and fonts


@lru_cache(maxsize=1)
def available_fonts() -> tuple[str, ...]:
    """Print-like TTF/OTF font files under /usr/share/fonts, sorted (so choices are reproducible)."""
    found = {p.name: str(p) for p in sorted(_FONT_ROOT.rglob("*"))
             if p.suffix.lower() in (".ttf", ".otf") and p.name.startswith(_PRINT_FAMILIES)
             and "Math" not in p.name}
    return tuple(sorted(found.values()))


@lru_cache(maxsize=1)
def _pen_fonts() -> tuple[str, ...]:
    """Slanted and script faces that pass for handwriting at a glance."""
    pens = [f for f in available_fonts() if "Italic" in f or "Oblique" in f]
    pens += [str(p) for p in sorted(_FONT_ROOT.rglob("Z003*")) if p.suffix.lower() in (".ttf", ".otf")]
    return tuple(pens)


@lru_cache(maxsize=512)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


@lru_cache(maxsize=128)
def _digit_height_per_em(path: str) -> float:
    left, top, right, bottom = _font(path, 100).getbbox("0123456789")
    return max(0.3, (bottom - top) / 100)


def _font_for_height(path: str, height_px: float) -> ImageFont.FreeTypeFont:
    """The font size whose digits stand ``height_px`` tall."""
    return _font(path, max(4, int(round(height_px / _digit_height_per_em(path)))))


@dataclass(frozen=True)
class Style:
    """How a puzzle is printed.

    ``clue_look``: ``dark`` (dark fill, light digits), ``shaded`` (grey or coloured fill, dark
    digits), ``newspaper`` (white cell, thin diagonal, dark digits), ``wiki`` (dark cell whose
    numbered halves are light), ``half`` (numbered halves light, unused halves shaded).
    ``block_look`` (cells with no clue): ``solid`` (filled with ``block_rgb``), ``diagonal``
    (clue fill with a diagonal, no number), ``cross`` (clue fill with both diagonals), ``fill``
    (clue fill, no line). Lengths are pixels of the flat render; heights are fractions of a cell.
    """

    cell_px: int = 40
    cell_aspect: float = 1.0  # cell height / width
    clue_look: ClueLook = "dark"
    block_look: BlockLook = "solid"
    paper_rgb: RGB = (255, 255, 255)
    white_rgb: RGB = (255, 255, 255)
    clue_rgb: RGB = (0, 0, 0)
    block_rgb: RGB = (0, 0, 0)
    open_half_rgb: RGB = (255, 255, 255)  # the numbered halves of ``wiki`` and ``half`` cells
    clue_ink_rgb: RGB = (255, 255, 255)
    diag_rgb: RGB = (255, 255, 255)
    line_rgb: RGB = (0, 0, 0)
    inner_line_px: float = 1.0
    outer_line_px: int = 3
    diag_px: float = 1.0
    hatch: float = 0.0  # strength of fine diagonal hatching on filled cells (newsprint screens)
    font_path: str = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
    clue_height: float = 0.28
    clue_inset: float = 0.3  # clue number centres sit this far (per cell) from their corner
    given_font_path: str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    given_height: float = 0.55
    given_ink_rgb: RGB = (0, 0, 0)
    pen_font_path: str = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Oblique.ttf"
    pen_rgb: RGB = (25, 45, 150)
    pen_height: float = 0.6
    pen_slant: float = 0.2
    margin_px: int = 12
    seed: int = 0  # jitter of handwritten digits


def _grey(v: float) -> RGB:
    v = int(np.clip(round(v), 0, 255))
    return (v, v, v)


def _tint(rng: np.random.Generator, base: float, spread: float) -> RGB:
    return tuple(int(np.clip(base + rng.uniform(-spread, spread), 0, 255)) for _ in range(3))


def _pick(rng: np.random.Generator, options: Sequence, p: Sequence[float] | None = None):
    return options[int(rng.choice(len(options), p=p))]


_LIGHT_FILLS: tuple[RGB, ...] = (
    (200, 200, 200), (180, 180, 180), (215, 215, 215), (160, 160, 160),  # greys
    (150, 200, 250), (170, 210, 240), (120, 180, 235),  # light blues
    (150, 205, 120), (185, 225, 160),  # Times greens
    (250, 230, 140), (245, 200, 200), (215, 200, 240), (250, 200, 150), (190, 230, 225),
)
_DARK_FILLS: tuple[RGB, ...] = (
    (0, 0, 0), (25, 25, 25), (50, 50, 50), (70, 70, 70), (95, 95, 95), (120, 120, 120),
    (20, 30, 70), (15, 55, 35), (90, 20, 30), (40, 40, 60),
)


def random_style(rng: np.random.Generator, *, fonts: Sequence[str] | None = None) -> Style:
    """A print style drawn widely from the looks found in newspapers, books, sites and apps.

    Parameters
    ----------
    rng : numpy Generator
    fonts : sequence of font paths, optional
        Fonts to draw clue numbers and givens from (e.g. fonts held out of OCR training).
        Defaults to ``available_fonts()``.
    """
    fonts = tuple(fonts) if fonts else available_fonts()
    if not fonts:
        raise FileNotFoundError("no TTF/OTF fonts under /usr/share/fonts; install fonts-dejavu-core")
    look: ClueLook = _pick(rng, ("dark", "shaded", "newspaper", "wiki", "half"), (.3, .3, .15, .1, .15))
    paper = _paper_rgb(rng)
    white = paper if rng.random() < 0.6 else _pick(rng, ((255, 255, 255), _tint(rng, 245, 8)))
    ink = _tint(rng, 25, 25)
    line = ink if rng.random() < 0.7 else _tint(rng, 45, 30)
    dark = _pick(rng, _DARK_FILLS)
    light = _pick(rng, _LIGHT_FILLS)
    if rng.random() < 0.5:  # vary the palette's shade a little
        light = tuple(int(np.clip(v + rng.uniform(-20, 20), 0, 255)) for v in light)
    diag_px = float(_pick(rng, (0.5, 1.0, 1.0, 1.5, 2.0, 3.0)))
    hatch = 0.0
    open_half = white
    if look == "dark":
        clue = dark
        clue_ink = _tint(rng, 245, 10)
        diag = clue_ink if (sum(dark) < 150 or rng.random() < 0.5) else ink
        block = clue if rng.random() < 0.8 else _grey(min(dark) * 0.6)
        block_look = _pick(rng, ("solid", "diagonal", "fill"), (.5, .35, .15))
        if rng.random() < 0.3:
            hatch = float(rng.uniform(0.12, 0.35))
    elif look == "shaded":
        clue, clue_ink, diag = light, ink, line
        block_look = _pick(rng, ("solid", "diagonal", "cross", "fill"), (.25, .4, .15, .2))
        block = dark if block_look == "solid" else clue
    elif look == "newspaper":
        clue, clue_ink, diag = white, ink, line
        diag_px = float(_pick(rng, (0.5, 1.0, 1.0, 1.5)))
        block_look = _pick(rng, ("solid", "diagonal", "fill"), (.6, .25, .15))
        block = dark if block_look == "solid" else (white if block_look == "diagonal" else light)
    elif look == "wiki":
        clue = block = dark
        clue_ink, diag = ink, ink
        diag_px = float(_pick(rng, (0.0, 0.0, 1.0)))
        block_look = "solid"
    else:  # half
        clue, clue_ink, diag = light, ink, line
        block_look = _pick(rng, ("solid", "cross", "diagonal"), (.4, .3, .3))
        block = dark if block_look == "solid" else clue
    inner = float(_pick(rng, (0.5, 1.0, 1.0, 1.5, 2.0, 3.0)))
    # The outer border is at least 2 px so that it is centred on the lattice line, not smeared.
    outer = max(2, int(math.ceil(inner))) if rng.random() < 0.25 else int(rng.integers(2, 9))
    cell_px = int(np.clip(round(rng.lognormal(math.log(42), 0.35)), 20, 90))
    font = _pick(rng, fonts)
    given_font = font if rng.random() < 0.6 else _pick(rng, fonts)
    pens = _pen_fonts() or fonts
    pen_rgb = _pick(rng, ((25, 45, 150), (20, 30, 90), (30, 30, 35), (40, 80, 190), (150, 30, 40)))
    return Style(
        cell_px=cell_px,
        cell_aspect=1.0 if rng.random() < 0.8 else float(rng.uniform(0.88, 1.12)),
        clue_look=look, block_look=block_look, paper_rgb=paper, white_rgb=white, clue_rgb=clue,
        block_rgb=block, open_half_rgb=open_half, clue_ink_rgb=clue_ink, diag_rgb=diag,
        line_rgb=line, inner_line_px=inner, outer_line_px=outer, diag_px=diag_px, hatch=hatch,
        font_path=font, clue_height=float(rng.uniform(0.2, 0.36)),
        clue_inset=float(rng.uniform(0.24, 0.33)), given_font_path=given_font,
        given_height=float(rng.uniform(0.42, 0.7)), given_ink_rgb=ink,
        pen_font_path=_pick(rng, pens), pen_rgb=pen_rgb, pen_height=float(rng.uniform(0.45, 0.75)),
        pen_slant=float(rng.uniform(0.0, 0.4)), margin_px=int(rng.integers(outer + 2, outer + 40)),
        seed=int(rng.integers(2**31)),
    )


def _paper_rgb(rng: np.random.Generator) -> RGB:
    kind = rng.random()
    if kind < 0.45:
        return (255, 255, 255)
    if kind < 0.75:  # off-white, slightly warm
        v = rng.uniform(235, 252)
        return (int(v), int(v - rng.uniform(0, 6)), int(v - rng.uniform(2, 14)))
    v = rng.uniform(212, 235)  # newsprint
    return (int(v), int(v - rng.uniform(0, 5)), int(v - rng.uniform(4, 16)))


# --------------------------------------------------------------------------------------------
# Flat rendering


def render_puzzle(puzzle: Puzzle, style: Style, *,
                  values: Mapping[Cell, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Draw a puzzle flat, as printed.

    Down sums sit in the lower-left triangle of a clue cell and across sums in the upper-right.
    ``puzzle.givens`` are printed in the given font; ``values`` (e.g. a partial solution) are
    written in a pen-like slanted face and colour, jittered per cell.

    Parameters
    ----------
    puzzle : Puzzle
    style : Style
    values : mapping (row, col) -> digit, optional
        Handwritten digits for white cells.

    Returns
    -------
    image : (H, W, 3) uint8 ndarray, BGR
    corners_xy : (4, 2) float32 ndarray
        The grid's outer corners TL TR BR BL, on the centre line of the outer border.
    """
    if style.cell_px < 8:
        raise ValueError(f"style.cell_px: need at least 8 px, got {style.cell_px}")
    if style.outer_line_px < 2:
        raise ValueError(f"style.outer_line_px: need at least 2 px, got {style.outer_line_px}")
    cw = int(style.cell_px)
    ch = max(8, int(round(cw * style.cell_aspect)))
    margin = max(int(style.margin_px), int(style.outer_line_px) + 2)
    width, height = 2 * margin + puzzle.n_cols * cw, 2 * margin + puzzle.n_rows * ch
    canvas = _draw_cells(puzzle, style, cw, ch, margin, width, height)
    pil = Image.fromarray(canvas)
    draw = ImageDraw.Draw(pil)
    _draw_clue_numbers(draw, puzzle, style, cw, ch, margin)
    _draw_givens(draw, puzzle, style, cw, ch, margin)
    canvas = np.asarray(pil).copy()
    if values:
        _draw_pen_digits(canvas, values, style, cw, ch, margin)
    x0, y0 = margin - 0.5, margin - 0.5
    x1, y1 = x0 + puzzle.n_cols * cw, y0 + puzzle.n_rows * ch
    corners_xy = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    return np.ascontiguousarray(canvas[:, :, ::-1]), corners_xy


def _draw_cells(puzzle: Puzzle, style: Style, cw: int, ch: int, margin: int,
                width: int, height: int) -> np.ndarray:
    """Fills, diagonals and grid lines at ``_SS`` x, area-averaged down to an RGB array."""
    s = _SS
    canvas = np.empty((height * s, width * s, 3), np.uint8)
    canvas[:] = style.paper_rgb
    shaded = np.zeros(canvas.shape[:2], np.uint8)  # where a hatch screen would print

    def X(c: float) -> int:
        return int(round((margin + c * cw) * s))

    def Y(r: float) -> int:
        return int(round((margin + r * ch) * s))

    canvas[Y(0):Y(puzzle.n_rows), X(0):X(puzzle.n_cols)] = style.white_rgb
    diag_t = max(1, int(round(style.diag_px * s))) if style.diag_px > 0 else 0
    look, block_look = style.clue_look, style.block_look
    for r in range(puzzle.n_rows):
        for c in range(puzzle.n_cols):
            kind = puzzle.kind(r, c)
            if kind == "white":
                continue
            x0, y0, x1, y1 = X(c), Y(r), X(c + 1) - 1, Y(r + 1) - 1
            tl, tr, br, bl = (x0, y0), (x1, y0), (x1, y1), (x0, y1)
            square = np.array([tl, tr, br, bl], np.int32)
            if kind == "black" and block_look == "solid":
                cv2.fillConvexPoly(canvas, square, style.block_rgb)
                cv2.fillConvexPoly(shaded, square, 1)
                continue
            cv2.fillConvexPoly(canvas, square, style.clue_rgb)
            if look != "newspaper":
                cv2.fillConvexPoly(shaded, square, 1)
            diagonals = 1
            if kind == "clue" and look in ("wiki", "half"):
                clue = puzzle.clue_at[(r, c)]
                for present, tri in ((clue.across, (tl, tr, br)), (clue.down, (tl, br, bl))):
                    if present is not None:
                        tri_pts = np.array(tri, np.int32)
                        cv2.fillConvexPoly(canvas, tri_pts, style.open_half_rgb)
                        cv2.fillConvexPoly(shaded, tri_pts, 0)
            elif kind == "black":
                diagonals = {"diagonal": 1, "cross": 2, "fill": 0}[block_look]
            if diag_t and diagonals:
                # Drawn on the cell's view so that thick line caps stay inside the cell.
                view = canvas[y0:y1 + 1, x0:x1 + 1]
                w, h = x1 - x0, y1 - y0
                ex, ey = (int(round(v * diag_t / min(w, h))) for v in (w, h))
                cv2.line(view, (-ex, -ey), (w + ex, h + ey), style.diag_rgb, diag_t, cv2.LINE_AA)
                if diagonals == 2:
                    cv2.line(view, (w + ex, -ey), (-ex, h + ey), style.diag_rgb, diag_t,
                             cv2.LINE_AA)
    if style.hatch > 0:
        # A fine 45-degree screen lightening the filled cells, as on cheap newsprint.
        period = 2 * s + 2
        yy, xx = np.indices(shaded.shape, dtype=np.int32)
        screen = ((xx + yy) % period) < s
        lift = np.asarray(style.hatch * 255, np.float32)
        sel = screen & (shaded > 0)
        canvas[sel] = np.clip(canvas[sel].astype(np.float32) + lift, 0, 255).astype(np.uint8)
    inner_t = max(1, int(round(style.inner_line_px * s)))
    for c in range(1, puzzle.n_cols):
        a = X(c) - inner_t // 2
        canvas[Y(0):Y(puzzle.n_rows), a:a + inner_t] = style.line_rgb
    for r in range(1, puzzle.n_rows):
        a = Y(r) - inner_t // 2
        canvas[a:a + inner_t, X(0):X(puzzle.n_cols)] = style.line_rgb
    half = int(style.outer_line_px) * s // 2  # even width at 2x: centred exactly on the lattice
    xa, xb, ya, yb = X(0), X(puzzle.n_cols), Y(0), Y(puzzle.n_rows)
    for sl in ((slice(ya - half, ya + half), slice(xa - half, xb + half)),
               (slice(yb - half, yb + half), slice(xa - half, xb + half)),
               (slice(ya - half, yb + half), slice(xa - half, xa + half)),
               (slice(ya - half, yb + half), slice(xb - half, xb + half))):
        canvas[sl] = style.line_rgb
    return cv2.resize(canvas, (width, height), interpolation=cv2.INTER_AREA)


def _text_at(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont,
             centre_xy: tuple[float, float], fill: RGB) -> None:
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    cx, cy = centre_xy
    draw.text((cx - (left + right) / 2, cy - (top + bottom) / 2), text, font=font, fill=fill)


def _clue_font(style: Style, cell: int, text: str) -> ImageFont.FreeTypeFont:
    """The clue font, shrunk until ``text`` clears the diagonal of its triangle."""
    a = style.clue_inset
    height = style.clue_height * cell
    font = _font_for_height(style.font_path, height)
    for _ in range(6):
        left, top, right, bottom = font.getbbox(text)
        w, h = right - left, bottom - top
        room = 2 * ((1 - 2 * a) * cell - style.diag_px - 1.5)  # w + h that still clears the diagonal
        if w + h <= room and w <= 0.62 * cell:
            break
        height *= max(0.5, min(room / max(w + h, 1), 0.62 * cell / max(w, 1))) * 0.97
        font = _font_for_height(style.font_path, height)
    return font


def _draw_clue_numbers(draw: ImageDraw.ImageDraw, puzzle: Puzzle, style: Style,
                       cw: int, ch: int, margin: int) -> None:
    a, cell = style.clue_inset, min(cw, ch)
    ink = style.clue_ink_rgb
    for clue in puzzle.clues:
        x, y = margin + clue.col * cw - 0.5, margin + clue.row * ch - 0.5
        if clue.across is not None:
            text = str(clue.across)
            _text_at(draw, text, _clue_font(style, cell, text), (x + (1 - a) * cw, y + a * ch), ink)
        if clue.down is not None:
            text = str(clue.down)
            _text_at(draw, text, _clue_font(style, cell, text), (x + a * cw, y + (1 - a) * ch), ink)


def _draw_givens(draw: ImageDraw.ImageDraw, puzzle: Puzzle, style: Style,
                 cw: int, ch: int, margin: int) -> None:
    if not puzzle.givens:
        return
    font = _font_for_height(style.given_font_path, style.given_height * min(cw, ch))
    for (r, c), digit in puzzle.givens:
        centre = (margin + (c + 0.5) * cw - 0.5, margin + (r + 0.5) * ch - 0.5)
        _text_at(draw, str(digit), font, centre, style.given_ink_rgb)


def _draw_pen_digits(canvas: np.ndarray, values: Mapping[Cell, int], style: Style,
                     cw: int, ch: int, margin: int) -> None:
    """Handwriting-like digits: slanted face, per-cell jitter in size, angle, place and stroke."""
    cell = min(cw, ch)
    side = int(cell * 1.6)
    pen = np.asarray(style.pen_rgb, np.float32)
    for (r, c), digit in sorted(values.items()):
        rng = np.random.default_rng([style.seed, r, c])
        font = _font_for_height(style.pen_font_path, style.pen_height * cell * rng.uniform(0.85, 1.12))
        patch = Image.new("L", (side, side), 0)
        _text_at(ImageDraw.Draw(patch), str(digit), font, (side / 2, side / 2), 255)
        mask = np.asarray(patch, np.float32) / 255
        if rng.random() < 0.4:
            mask = cv2.dilate(mask, np.ones((2, 2), np.uint8))
        angle = math.radians(rng.uniform(-8, 8))
        shear = style.pen_slant + rng.uniform(-0.08, 0.08)
        A = np.array([[math.cos(angle), -math.sin(angle) + shear], [math.sin(angle), math.cos(angle)]])
        centre = np.array([side / 2, side / 2])
        offset = rng.uniform(-0.08, 0.08, 2) * cell
        M = np.hstack([A, (centre - A @ centre + offset)[:, None]])
        mask = cv2.warpAffine(mask, M, (side, side), flags=cv2.INTER_LINEAR)
        mask *= rng.uniform(0.75, 1.0)  # ballpoint pressure
        cx = margin + (c + 0.5) * cw - 0.5
        cy = margin + (r + 0.5) * ch - 0.5
        x0, y0 = int(round(cx - side / 2)), int(round(cy - side / 2))
        xa, ya = max(0, x0), max(0, y0)
        xb, yb = min(canvas.shape[1], x0 + side), min(canvas.shape[0], y0 + side)
        m = mask[ya - y0:yb - y0, xa - x0:xb - x0, None]
        region = canvas[ya:yb, xa:xb].astype(np.float32)
        canvas[ya:yb, xa:xb] = (region * (1 - m) + pen * m).astype(np.uint8)


# --------------------------------------------------------------------------------------------
# Photographing


def _apply_h(H: np.ndarray, pts_xy: np.ndarray) -> np.ndarray:
    p = np.hstack([pts_xy, np.ones((len(pts_xy), 1))]) @ H.T
    return p[:, :2] / p[:, 2:3]


def _resize(image: np.ndarray, pts_xy: np.ndarray, factor: float) -> tuple[np.ndarray, np.ndarray]:
    h, w = image.shape[:2]
    size = (max(1, int(round(w * factor))), max(1, int(round(h * factor))))
    fx, fy = size[0] / w, size[1] / h
    interp = cv2.INTER_AREA if factor < 1 else cv2.INTER_CUBIC
    out = cv2.resize(image, size, interpolation=interp)
    return out, (pts_xy + 0.5) * [fx, fy] - 0.5


def _jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else image


def _grain(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Unit Gaussian noise of ``shape``, float32.

    OpenCV's generator is several times faster than numpy's here; seeding it from ``rng`` keeps
    samples reproducible (its state is per thread).
    """
    out = np.empty((shape[0], int(np.prod(shape[1:]))), np.float32)
    cv2.setRNGSeed(int(rng.integers(2**31)))
    cv2.randn(out, 0.0, 1.0)
    return out.reshape(shape)


def _light_and_noise(image: np.ndarray, rng: np.random.Generator, gain_small: np.ndarray | None,
                     sigma: float) -> np.ndarray:
    """One float pass: multiply by a smooth light field (with colour cast), add sensor noise."""
    h, w = image.shape[:2]
    out = image.astype(np.float32)
    if gain_small is not None:
        gain = cv2.resize(gain_small, (w, h), interpolation=cv2.INTER_LINEAR)
        cast = np.array([rng.uniform(0.85, 1.0), rng.uniform(0.93, 1.0), 1.0], np.float32)  # warm
        if rng.random() < 0.3:
            cast = cast[::-1].copy()  # cool
        out *= gain[..., None]
        out *= cast
    if sigma > 0:
        if rng.random() < 0.5:
            out += _grain(rng, (h, w))[..., None] * sigma
        else:  # colour sensor noise
            out += _grain(rng, out.shape) * sigma
    return np.clip(out, 0, 255, out=out).astype(np.uint8)


def _noise(image: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    return _light_and_noise(image, rng, None, sigma)


def _blur(image: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    if sigma <= 0.05:
        return image
    if rng.random() < 0.2:  # hand shake: a short line kernel
        length = max(3, int(round(sigma * 3)) | 1)
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
        kernel = cv2.warpAffine(kernel, rot, (length, length))
        return cv2.filter2D(image, -1, kernel / max(kernel.sum(), 1e-6))
    return cv2.GaussianBlur(image, (0, 0), sigma)


def _smooth_field(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    small = rng.standard_normal((cells, cells)).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _paper_texture(rng: np.random.Generator, shape: tuple[int, int], rgb: Sequence[int]) -> np.ndarray:
    """Paper of colour ``rgb`` (as BGR) with blotchy shading and grain."""
    h, w = shape
    out = np.empty((h, w, 3), np.float32)
    out[:] = np.asarray(rgb[::-1], np.float32)
    blotch = _smooth_field(rng, (max(h // 8, 2), max(w // 8, 2)), int(rng.integers(3, 8)))
    blotch = cv2.resize(blotch, (w, h), interpolation=cv2.INTER_LINEAR)
    out *= (1 + rng.uniform(0.005, 0.03) * blotch)[..., None]
    out += _grain(rng, (h, w))[..., None] * rng.uniform(0.5, 3)
    return np.clip(out, 0, 255, out=out).astype(np.uint8)


def _desk(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """A table top: wood grain, cloth or plain, BGR (drawn at half size: it is only backdrop)."""
    h, w = shape
    sh, sw = max(h // 2, 2), max(w // 2, 2)
    base = _pick(rng, ((40, 80, 130), (60, 105, 160), (30, 50, 80), (50, 50, 50), (90, 90, 95),
                       (200, 200, 205), (120, 70, 40), (40, 110, 60), (140, 160, 180)))
    out = np.empty((sh, sw, 3), np.float32)
    out[:] = base
    if rng.random() < 0.5:  # wood grain
        yy = np.arange(sh, dtype=np.float32)[:, None]
        xx = np.arange(sw, dtype=np.float32)[None, :]
        wobble = 3 * np.sin(xx / rng.uniform(20, 60))
        grain = np.sin((yy + wobble) / rng.uniform(1, 3)) * rng.uniform(5, 15)
        out += grain[..., None]
    small = _smooth_field(rng, (max(sh // 4, 2), max(sw // 4, 2)), 5)
    out += cv2.resize(small, (sw, sh))[..., None] * 10
    out += _grain(rng, (sh, sw))[..., None] * 3
    out = np.clip(out, 0, 255, out=out).astype(np.uint8)
    return cv2.resize(out, (w, h), interpolation=cv2.INTER_LINEAR)


def _words(rng: np.random.Generator, n: int) -> str:
    return " ".join(_WORDS[int(i)] for i in rng.integers(0, len(_WORDS), n))


def _text_block(draw: ImageDraw.ImageDraw, rng: np.random.Generator, box: tuple[int, int, int, int],
                font_path: str, height_px: float, fill: RGB) -> None:
    """Paragraph-like lines of words filling ``box`` (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    font = _font_for_height(font_path, max(5.0, height_px))
    step = height_px * rng.uniform(1.5, 2.0)
    y = y0
    while y + step <= y1:
        avg_char = max(1.0, font.getlength("0123456789") / 10)
        n_chars = int((x1 - x0) / avg_char)
        if n_chars < 3:
            return
        line = _words(rng, max(1, n_chars // 5))[:n_chars]
        while line and font.getlength(line) > x1 - x0:
            line = line[: int(len(line) * 0.9)]
        if rng.random() < 0.12:
            line = line[: len(line) // 2]  # paragraph end
        draw.text((x0, y), line, font=font, fill=fill)
        y += step


def _mini_grid(draw: ImageDraw.ImageDraw, rng: np.random.Generator, x0: int, y0: int, size: int,
               ink: RGB, font_path: str) -> None:
    """A small solution or sudoku grid: a grid-shaped distractor for the detector."""
    n = int(rng.choice([6, 8, 9]))
    step = size / n
    font = _font_for_height(font_path, step * 0.55)
    for i in range(n + 1):
        w = 2 if i in (0, n) else 1
        draw.line([(x0, y0 + i * step), (x0 + size, y0 + i * step)], fill=ink, width=w)
        draw.line([(x0 + i * step, y0), (x0 + i * step, y0 + size)], fill=ink, width=w)
    for r in range(n):
        for c in range(n):
            if rng.random() < 0.15:
                draw.rectangle([x0 + c * step, y0 + r * step, x0 + (c + 1) * step, y0 + (r + 1) * step],
                               fill=ink)
            elif rng.random() < 0.7:
                _text_at(draw, str(int(rng.integers(1, 10))), font,
                         (x0 + (c + 0.5) * step, y0 + (r + 0.5) * step), ink)


def _onto_page(image: np.ndarray, pts_xy: np.ndarray,
               rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Surround a flat render with more printed page: a title, text columns, maybe another grid."""
    h, w = image.shape[:2]
    paper_bgr = np.median(image[:2].reshape(-1, 3), axis=0)
    paper = tuple(int(v) for v in paper_bgr[::-1])
    left, right = (int(w * rng.uniform(0.03, f)) for f in (0.45, 0.6))
    top, bottom = (int(h * rng.uniform(0.05, f)) for f in (0.35, 0.3))
    page = _paper_texture(rng, (h + top + bottom, w + left + right), paper)
    # The render's own flat paper is replaced by textured paper wherever it is paper-coloured.
    region = page[top:top + h, left:left + w]
    flat = np.all(np.abs(image.astype(np.int16) - paper_bgr.astype(np.int16)) <= 2, axis=2)
    region[~flat] = image[~flat]
    if rng.random() < 0.5:  # the grid's white cells get the texture too
        grain = _grain(rng, (h, w))[..., None] * 1.5
        region[~flat] = np.clip(region[~flat].astype(np.float32) + grain[~flat], 0, 255).astype(np.uint8)
    fonts = available_fonts()
    text_font = _pick(rng, fonts)
    ink = _tint(rng, 30, 20)
    pil = Image.fromarray(np.ascontiguousarray(page[:, :, ::-1]))
    draw = ImageDraw.Draw(pil)
    unit = max(6.0, min(w, h) * rng.uniform(0.012, 0.025))
    if top > 3 * unit:
        title_font = _font_for_height(_pick(rng, fonts), min(top * 0.5, unit * rng.uniform(1.8, 3.5)))
        title = _pick(rng, ("Kakuro", "KAKURO", "Cross Sums", "Kakuro No ", "Number Cross"))
        if title.endswith(" "):
            title += str(int(rng.integers(1, 3000)))
        draw.text((left + rng.uniform(0, 0.3) * w, top * 0.25), title, font=title_font,
                  fill=_pick(rng, (ink, (200, 20, 80), (20, 60, 140))))
    gap = int(unit * 2)
    if right > 8 * unit:
        if rng.random() < 0.4 and right > w * 0.25:
            size = int(min(right - 2 * gap, h * 0.35))
            _mini_grid(draw, rng, left + w + gap, top + h - size, size, ink, text_font)
            _text_block(draw, rng, (left + w + gap, top, left + w + right - gap, top + h - size - gap),
                        text_font, unit, ink)
        else:
            _text_block(draw, rng, (left + w + gap, top, left + w + right - gap, top + h), text_font,
                        unit, ink)
    if left > 8 * unit:
        _text_block(draw, rng, (gap, top, left - gap, top + h), text_font, unit, ink)
    if bottom > 3 * unit:
        _text_block(draw, rng, (gap, top + h + gap, left + w + right - gap, top + h + bottom),
                    text_font, unit, ink)
    return np.ascontiguousarray(np.asarray(pil)[:, :, ::-1]), pts_xy + [left, top]


def _perspective(page: np.ndarray, pts_xy: np.ndarray, rng: np.random.Generator, *,
                 max_rot_deg: float, tilt: float, grid_long_px: float,
                 margin: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """View the page through a random homography, framed around the points, over a desk."""
    hp, wp = page.shape[:2]
    src = np.array([[0, 0], [wp, 0], [wp, hp], [0, hp]], np.float64)
    theta = math.radians(rng.uniform(-max_rot_deg, max_rot_deg))
    rot = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    centre = np.array([wp / 2, hp / 2])
    # Tilting the camera shrinks one side of the page: move each corner by up to ``tilt`` of the size.
    dst = (src - centre) @ rot.T + rng.uniform(-tilt, tilt, (4, 2)) * max(wp, hp)
    H0 = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)).astype(np.float64)
    g = _apply_h(H0, pts_xy)
    scale = grid_long_px / max(np.ptp(g[:, 0]), np.ptp(g[:, 1]), 1.0)
    if scale < 0.8:  # shrink first with area averaging: warpPerspective alone would alias fine lines
        factor = min(1.0, scale * 1.25)
        page, _ = _resize(page, pts_xy[:1], factor)
        fx, fy = page.shape[1] / wp, page.shape[0] / hp
        back = np.array([[1 / fx, 0, 0.5 / fx - 0.5], [0, 1 / fy, 0.5 / fy - 0.5], [0, 0, 1]])
        H0 = H0 @ back
        pts_xy = (pts_xy + 0.5) * [fx, fy] - 0.5
    H1 = np.diag([scale, scale, 1.0]) @ H0
    g = _apply_h(H1, pts_xy)
    gx0, gy0 = g.min(axis=0)
    gx1, gy1 = g.max(axis=0)
    span = max(gx1 - gx0, gy1 - gy0)
    ml, mr, mt, mb = (rng.uniform(*margin) * span for _ in range(4))
    T = np.array([[1, 0, ml - gx0], [0, 1, mt - gy0], [0, 0, 1]], np.float64)
    H = T @ H1
    size = (int(math.ceil(gx1 - gx0 + ml + mr)), int(math.ceil(gy1 - gy0 + mt + mb)))
    out = _desk(rng, (size[1], size[0]))
    cv2.warpPerspective(page, H, size, dst=out, flags=cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_TRANSPARENT)
    return out, _apply_h(H, pts_xy)


def _displace(image: np.ndarray, pts_xy: np.ndarray, rng: np.random.Generator,
              strength: float) -> tuple[np.ndarray, np.ndarray]:
    """Page curl (lines bow) plus lens barrel/pincushion, as a smooth inverse map.

    The output pixel q samples the input at q + d(q); a point p therefore moves to the q with
    q + d(q) = p, found by fixed-point iteration (d is small and smooth, so it contracts).
    """
    h, w = image.shape[:2]
    cx, cy = w / 2 + rng.uniform(-0.2, 0.2) * w, h / 2 + rng.uniform(-0.2, 0.2) * h
    bow_y = rng.uniform(-1, 1) * strength * h  # horizontal lines bow up or down
    bow_x = rng.uniform(-0.5, 0.5) * strength * w
    barrel = rng.uniform(-1, 1) * strength * 1.5
    half_w, half_h = w / 2, h / 2

    def field(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        u, v = (x - cx) / half_w, (y - cy) / half_h
        r2 = u * u + v * v
        dx = bow_x * (v * v - 0.33) + barrel * (x - cx) * r2 * 0.5
        dy = bow_y * (u * u - 0.33) + barrel * (y - cy) * r2 * 0.5
        return dx, dy

    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    dx, dy = field(xs, ys)
    map_x, map_y = (xs + dx).astype(np.float32), (ys + dy).astype(np.float32)
    out = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    q = pts_xy.astype(np.float64).copy()
    for _ in range(60):
        dqx, dqy = field(q[:, 0], q[:, 1])
        q_new = pts_xy - np.stack([dqx, dqy], axis=1)
        if np.abs(q_new - q).max() < 1e-4:
            q = q_new
            break
        q = q_new
    return out, q


def _light_field(rng: np.random.Generator, shape: tuple[int, int], strength: float,
                 shadow: float) -> np.ndarray:
    """A smooth gain at 1/8 size: gradient, vignette, blotches and an optional soft shadow."""
    h, w = shape
    sh, sw = max(h // 8, 2), max(w // 8, 2)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    u, v = xx / sw - 0.5, yy / sh - 0.5
    gx, gy = rng.uniform(-1, 1, 2) * strength
    gain = 1 + gx * u + gy * v
    ox, oy = rng.uniform(-0.3, 0.3, 2)
    gain -= strength * 0.8 * ((u - ox) ** 2 + (v - oy) ** 2)
    gain += strength * 0.1 * _smooth_field(rng, (sh, sw), 4)
    if shadow > 0:  # a hand or a phone between the lamp and the page
        mask = np.zeros((sh, sw), np.float32)
        side = int(rng.integers(4))
        corners = [(0, 0), (sw, 0), (sw, sh), (0, sh)]
        inner = rng.uniform(0.1, 0.9, (2, 2)) * [sw, sh]
        poly = np.vstack([corners[side], corners[(side + 1) % 4], inner]).astype(np.int32)
        cv2.fillConvexPoly(mask, cv2.convexHull(poly), 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), max(0.7, sw * rng.uniform(0.01, 0.06)))
        gain *= 1 - shadow * mask
    return gain * rng.uniform(0.8, 1.05)


def photograph(image: np.ndarray, corners_xy: np.ndarray, rng: np.random.Generator, *,
               level: Level = "photo", surround: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Turn a flat render into a scan or a photo, tracking the grid corners exactly.

    Levels: ``clean`` (flat scan: padding, slight skew and rescale, mild blur, noise, JPEG),
    ``photo`` (printed page around the grid, desk, perspective, rotation up to 15 degrees,
    lighting, shadow, blur, noise, JPEG), ``hard`` (rotation up to 30 degrees, page curl and lens
    distortion, strong shadow, low resolution, heavy JPEG).

    Parameters
    ----------
    image : (H, W, 3) uint8 ndarray, BGR
    corners_xy : (..., 2) array
        Points to track, e.g. one (4, 2) quad or (k, 4, 2) quads; returned in the same shape.
    rng : numpy Generator
    level : {"clean", "photo", "hard"}
    surround : bool
        Whether to print title and text columns around the image first (photo and hard levels);
        pass False for a render that already is a page.

    Returns
    -------
    image : (H', W', 3) uint8 ndarray, BGR
    corners_xy : float32 ndarray, the shape of the input points
    """
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"image: need an (H, W, 3) uint8 BGR array, got {image.shape} {image.dtype}")
    if level not in ("clean", "photo", "hard"):
        raise ValueError(f"level: must be 'clean', 'photo' or 'hard', got {level!r}")
    pts_in = np.asarray(corners_xy, np.float64)
    shape = pts_in.shape
    pts = pts_in.reshape(-1, 2)
    if level == "clean":
        image, pts = _scan(image, pts, rng)
    else:
        hard = level == "hard"
        if surround:
            image, pts = _onto_page(image, pts, rng)
        grid_long = rng.uniform(260, 560) if hard else rng.uniform(420, 1000)
        image, pts = _perspective(image, pts, rng, max_rot_deg=30 if hard else 15,
                                  tilt=rng.uniform(0.03, 0.14) if hard else rng.uniform(0.0, 0.08),
                                  grid_long_px=grid_long,
                                  margin=(0.06, 0.25) if hard else (0.02, 0.3))
        if hard:
            image, pts = _displace(image, pts, rng, rng.uniform(0.015, 0.045))
        gain = _light_field(rng, image.shape[:2],
                            rng.uniform(0.3, 0.7) if hard else rng.uniform(0.05, 0.35),
                            rng.uniform(0.3, 0.6) if hard or rng.random() < 0.3 else 0.0)
        # Blur before light: the light field is smooth, so the order hardly matters, and light
        # and noise then share one float pass.
        image = _blur(image, rng, rng.uniform(0.6, 2.0) if hard else rng.uniform(0.0, 1.2))
        if hard and rng.random() < 0.5:  # a small phone image, upscaled by a viewer
            image, pts = _resize(image, pts, rng.uniform(0.5, 0.8))
            image, pts = _resize(image, pts, rng.uniform(1.2, 1.8))
        elif not hard and rng.random() < 0.25:
            image, pts = _resize(image, pts, rng.uniform(0.6, 0.9))
        image = _light_and_noise(image, rng, gain,
                                 rng.uniform(4, 10) if hard else rng.uniform(1, 6))
        image = _jpeg(image, int(rng.integers(25, 60)) if hard else int(rng.integers(50, 92)))
    return image, pts.reshape(shape).astype(np.float32)


def _scan(image: np.ndarray, pts: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    h, w = image.shape[:2]
    paper = np.median(image[:2].reshape(-1, 3), axis=0)
    pad = [int(v) for v in rng.integers(0, 40, 4)]
    image = cv2.copyMakeBorder(image, pad[0], pad[1], pad[2], pad[3], cv2.BORDER_CONSTANT,
                               value=[float(v) for v in paper])
    pts = pts + [pad[2], pad[0]]
    if rng.random() < 0.5:  # a page laid a little askew on the scanner
        h, w = image.shape[:2]
        M = cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(-1.2, 1.2), 1.0)
        image = cv2.warpAffine(image, M, (w, h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=[float(v) for v in paper])
        pts = pts @ M[:, :2].T + M[:, 2]
    factor = rng.uniform(0.6, 1.3)
    if abs(factor - 1) > 0.05:
        image, pts = _resize(image, pts, factor)
    image = _blur(image, rng, rng.uniform(0, 0.8) if rng.random() < 0.7 else 0.0)
    if rng.random() < 0.5:
        image = _noise(image, rng, rng.uniform(0.5, 2.5))
    if rng.random() < 0.8:
        image = _jpeg(image, int(rng.integers(70, 96)))
    return image, pts


# --------------------------------------------------------------------------------------------
# Pages and samples


def render_page(puzzles_with_styles: Sequence[tuple], rng: np.random.Generator
                ) -> tuple[np.ndarray, list[np.ndarray]]:
    """A puzzle-book page holding 2-4 puzzles, each with a title, plus a header and text.

    Parameters
    ----------
    puzzles_with_styles : sequence of (Puzzle, Style) or (Puzzle, Style, values)
        ``values`` are handwritten digits as in ``render_puzzle``. The page takes the first
        style's paper colour.
    rng : numpy Generator

    Returns
    -------
    image : (H, W, 3) uint8 ndarray, BGR
    corners : list of (4, 2) float32 ndarrays, one per puzzle, in page pixels.
    """
    if not 1 <= len(puzzles_with_styles) <= 6:
        raise ValueError(f"puzzles_with_styles: need 1..6 puzzles, got {len(puzzles_with_styles)}")
    paper = puzzles_with_styles[0][1].paper_rgb
    renders = []
    for item in puzzles_with_styles:
        puzzle, style = item[0], item[1]
        values = item[2] if len(item) > 2 else None
        style = dataclasses.replace(style, paper_rgb=paper, margin_px=style.outer_line_px + 2)
        renders.append(render_puzzle(puzzle, style, values=values))
    n = len(renders)
    cols = 1 if n == 1 else (2 if n == 4 or rng.random() < 0.7 else 1)
    rows = math.ceil(n / cols)
    box_w = max(r[0].shape[1] for r in renders)
    box_h = max(r[0].shape[0] for r in renders)
    unit = max(8.0, box_w * rng.uniform(0.035, 0.06))
    gap_x, gap_y = int(box_w * rng.uniform(0.08, 0.25)), int(unit * 2.5)
    title_h = int(unit * 2.2)
    side = int(box_w * rng.uniform(0.08, 0.2))
    instructions = rng.random() < 0.5
    header, footer = int(unit * (7 if instructions else 4)), int(unit * 3)
    width = 2 * side + cols * box_w + (cols - 1) * gap_x
    height = header + rows * (title_h + box_h) + (rows - 1) * gap_y + footer
    page = _paper_texture(rng, (height, width), paper)
    fonts = available_fonts()
    ink = _tint(rng, 25, 15)
    corners = []
    placements = []
    for i, (img, corners_xy) in enumerate(renders):
        r, c = divmod(i, cols)
        x = side + c * (box_w + gap_x) + (box_w - img.shape[1]) // 2
        y = header + r * (title_h + box_h + gap_y) + title_h + (box_h - img.shape[0]) // 2
        page[y:y + img.shape[0], x:x + img.shape[1]] = img
        corners.append((corners_xy + [x, y]).astype(np.float32))
        placements.append((x, y))
    pil = Image.fromarray(np.ascontiguousarray(page[:, :, ::-1]))
    draw = ImageDraw.Draw(pil)
    head_font = _font_for_height(_pick(rng, fonts), unit * 1.6)
    draw.text((side, unit * 1.2), _pick(rng, ("KAKURO", "Kakuro", "Cross Sums", "Number Puzzles")),
              font=head_font, fill=ink)
    if instructions:
        _text_block(draw, rng, (side, int(unit * 3.6), width - side, header - int(unit * 0.5)),
                    _pick(rng, fonts), unit * 0.6, ink)
    title_font = _font_for_height(_pick(rng, fonts), unit * 1.1)
    first = int(rng.integers(1, 200))
    fmt = _pick(rng, ("Puzzle {}", "No. {}", "{}", "Kakuro {}", "#{}"))
    for i, (x, y) in enumerate(placements):
        stars = " " + "*" * int(rng.integers(1, 5)) if rng.random() < 0.4 else ""
        draw.text((x, y - title_h + unit * 0.3), fmt.format(first + i) + stars, font=title_font,
                  fill=ink)
    page_font = _font_for_height(_pick(rng, fonts), unit * 0.9)
    _text_at(draw, str(int(rng.integers(2, 300))), page_font, (width / 2, height - footer / 2), ink)
    image = np.ascontiguousarray(np.asarray(pil)[:, :, ::-1])
    return image, corners


@dataclass(frozen=True, eq=False)
class SynthSample:
    """One synthetic image with its truth.

    ``corners[i]`` (4, 2) float32 TL TR BR BL is ``puzzles[i]``'s outer grid corners in ``image``;
    ``values[i]`` is the full digit fill the clues were made from (a valid solution);
    ``handwritten[i]`` the digits drawn in pen (a subset of ``values[i]``); printed givens are in
    ``puzzles[i].givens``.
    """

    image: np.ndarray
    puzzles: tuple[Puzzle, ...]
    corners: tuple[np.ndarray, ...]
    values: tuple[dict[Cell, int], ...]
    handwritten: tuple[dict[Cell, int], ...]
    styles: tuple[Style, ...]
    tier: str


def _decorate(rng: np.random.Generator, puzzle: Puzzle, values: dict[Cell, int]
              ) -> tuple[Puzzle, dict[Cell, int]]:
    """Maybe print some givens; maybe pen in part of the solution."""
    cells = sorted(values)
    if rng.random() < 0.15:
        k = max(1, int(len(cells) * rng.uniform(0.03, 0.12)))
        chosen = [cells[int(i)] for i in rng.choice(len(cells), k, replace=False)]
        puzzle = puzzle.with_givens({cell: values[cell] for cell in chosen})
    pen: dict[Cell, int] = {}
    if rng.random() < 0.12:
        free = [c for c in cells if c not in puzzle.given_at]
        k = int(len(free) * rng.uniform(0.2, 1.0))
        pen = {free[int(i)]: values[free[int(i)]] for i in rng.choice(len(free), k, replace=False)}
    return puzzle, pen


def make_sample(rng: np.random.Generator, tier: str) -> SynthSample:
    """A synthetic image of one tier, deterministic given the generator's state.

    Tiers: ``clean`` (flat scan), ``photo`` (phone photo, rotation up to 15 degrees), ``hard``
    (rotation up to 30 degrees, curl, strong shadow, low resolution), ``page`` (2-4 puzzles on a
    puzzle-book page, scanned or photographed). Puzzles are 5x5 to 15x15 (pages: up to 10x10).
    """
    if tier not in TIERS:
        raise ValueError(f"tier: must be one of {TIERS}, got {tier!r}")
    if tier == "page":
        style = random_style(rng)
        style = dataclasses.replace(style, cell_px=int(np.clip(style.cell_px, 22, 50)))
        items, fills, pens = [], [], []
        for _ in range(int(rng.integers(2, 5))):
            puzzle, values = random_puzzle(rng, int(rng.integers(5, 11)), int(rng.integers(5, 11)))
            puzzle, pen = _decorate(rng, puzzle, values)
            items.append((puzzle, style, pen))
            fills.append(values)
            pens.append(pen)
        page, corners = render_page(items, rng)
        level = _pick(rng, ("clean", "photo"))
        image, pts = photograph(page, np.stack(corners), rng, level=level, surround=False)
        return SynthSample(image, tuple(i[0] for i in items), tuple(pts), tuple(fills), tuple(pens),
                           (style,) * len(items), tier)
    style = random_style(rng)
    n_rows, n_cols = int(rng.integers(5, 16)), int(rng.integers(5, 16))
    if rng.random() < 0.5:
        n_cols = n_rows  # square grids are the most common
    puzzle, values = random_puzzle(rng, n_rows, n_cols)
    puzzle, pen = _decorate(rng, puzzle, values)
    flat, corners_xy = render_puzzle(puzzle, style, values=pen)
    image, corners_xy = photograph(flat, corners_xy, rng, level=tier)
    return SynthSample(image, (puzzle,), (corners_xy,), (values,), (pen,), (style,), tier)
