"""Synthetic Kakuro images with exact ground truth, for tests and benchmarks.

``random_puzzle`` makes a valid layout and digit fill, ``random_style`` a look drawn from the styles
found in print and on screen (black clue cells with white numbers, grey or coloured cells, newspaper
white cells with a thin diagonal, shaded half cells), ``style_of_family`` one of the rarer looks in
``STYLE_FAMILIES`` (numbers in discs, a diagonal in every cell, no diagonal, pastel tints, greyed
finished clues, typed entries, answer keys, an app's rounded tiles, a dark mode, an app's board
mid-game with pencil marks and its cursor's row and column tinted, a newspaper's tints and greys
printed as a screen of dots) and
``render_family`` draws puzzles in one, ``render_puzzle`` draws a puzzle flat, and
``photograph`` turns a flat render into a scan, a phone photo, a hard photo (curled page, shadow,
low resolution) or a photo in adverse light (a hard shadow, a steep gradient, the reverse page
showing through, a dark desk, a bowed page) while tracking the grid corners through every geometric step. ``make_sample`` ties
it together, deterministic in its seed.

This is a test tool, not the product: the product must read styles and fonts this module has never
drawn, so every parameter is varied widely rather than tuned to look like one source.
"""
from __future__ import annotations

import dataclasses
import logging
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Collection, Literal, Mapping, Sequence

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from solver.model import Cell, Clue, Puzzle

__all__ = [
    "Style", "SynthSample", "TIERS", "random_puzzle", "puzzle_from_fill", "puzzle_values_ok", "random_style",
    "render_puzzle", "photograph", "render_page", "make_sample", "available_fonts", "LIGHT_CONDITIONS",
    "STYLE_FAMILIES", "style_of_family", "render_family", "use_print_fonts", "draws_digits", "halftone",
]

log = logging.getLogger(__name__)

RGB = tuple[int, int, int]
Level = Literal["clean", "photo", "hard", "light"]
TIERS = ("clean", "photo", "hard", "page", "light", "styles")

_SS = 2  # supersampling factor: Pillow draws aliased shapes, so draw at 2x and average down
_FONT_DIRS = ("/usr/share/fonts",)
# Latin fonts whose digits look like print; the many script-specific Noto families are left out.
_FONT_PREFIXES = (
    "DejaVuSans", "DejaVuSerif", "Liberation", "FreeSans", "FreeSerif", "FreeMono", "Nimbus",
    "C059", "P052", "URWBookman", "URWGothic", "NotoSans-", "NotoSerif-", "NotoSansDisplay-",
    "NotoSansMono-",
)
_PEN_PREFIXES = ("Z003", "Italic", "Oblique")  # matched anywhere in the name for pen digits
_WORDS = (
    "fill the grid with digits one to nine so that each run of white squares adds up to the total "
    "printed in the clue square to its left or above no digit may be repeated within a run solution "
    "tomorrow easy medium hard difficult puzzles weekly crossword sudoku kakuro cross sums number "
    "logic across down clues times guardian page book edition competition prize entries winner "
    "last week answers each across total sits above the diagonal and each down total below it"
).split()


# --------------------------------------------------------------------------------------------
# Puzzles


def random_puzzle(rng: np.random.Generator, n_rows: int, n_cols: int) -> tuple[Puzzle, dict[Cell, int]]:
    """A valid random Kakuro layout, a digit fill, and the clues that the fill implies.

    Row 0 and column 0 are non-white; every white cell lies in an across and a down run of
    length 2..9; digits are distinct within each run. The puzzle need not have a unique solution.

    Parameters
    ----------
    rng : numpy Generator
    n_rows, n_cols : int
        Grid size including the clue row and column, each 3 or more.

    Returns
    -------
    puzzle : Puzzle
    values : dict mapping each white ``(row, col)`` to its digit.
    """
    if n_rows < 3 or n_cols < 3:
        raise ValueError(f"n_rows, n_cols: need at least 3x3, got {n_rows}x{n_cols}")
    for _ in range(200):
        white = _random_layout(rng, n_rows, n_cols)
        if white is None:
            continue
        values = _fill_digits(rng, white)
        if values is None:
            continue
        return puzzle_from_fill(white, values), values
    raise RuntimeError(f"could not make a {n_rows}x{n_cols} layout; try a larger grid")


def puzzle_values_ok(puzzle: Puzzle, values: Mapping[Cell, int]) -> bool:
    """Whether ``values`` fills every white cell and satisfies every run (sum and distinctness)."""
    if set(values) != set(puzzle.whites):
        return False
    for run in puzzle.runs:
        digits = [values[c] for c in run.cells]
        if len(set(digits)) != len(digits) or sum(digits) != run.total:
            return False
    return True


def _segments(line: np.ndarray) -> list[tuple[int, int]]:
    """(start, length) of each maximal True stretch."""
    out, start = [], None
    for i, v in enumerate(line):
        if v and start is None:
            start = i
        elif not v and start is not None:
            out.append((start, i - start))
            start = None
    if start is not None:
        out.append((start, len(line) - start))
    return out


def _random_layout(rng: np.random.Generator, n_rows: int, n_cols: int) -> np.ndarray | None:
    black = np.zeros((n_rows, n_cols), bool)
    black[0, :] = black[:, 0] = True
    density = rng.uniform(0.06, 0.22)
    inner = rng.random((n_rows - 1, n_cols - 1)) < density
    symmetric = rng.random() < 0.6  # many published grids are 180-degree symmetric
    if symmetric:
        inner |= inner[::-1, ::-1]
    black[1:, 1:] = inner

    def blacken(r: int, c: int) -> None:
        black[r, c] = True
        if symmetric:
            black[n_rows - r, n_cols - c] = True

    for _ in range(4 * (n_rows + n_cols)):
        changed = False
        for transpose in (False, True):
            grid = black.T if transpose else black
            for i in range(grid.shape[0]):
                for start, length in _segments(~grid[i]):
                    if length == 1 or length > 9:
                        j = start if length == 1 else start + int(rng.integers(2, length - 2))
                        blacken(*((j, i) if transpose else (i, j)))
                        changed = True
        if not changed:
            break
    else:
        return None
    white = ~black
    if white.sum() < max(4, 0.5 * (n_rows - 1) * (n_cols - 1)):
        return None
    return white


def _fill_digits(rng: np.random.Generator, white: np.ndarray, max_nodes: int = 20000) -> dict | None:
    """Backtracking fill with distinct digits per run (most-constrained cell first)."""
    cells = [tuple(map(int, rc)) for rc in np.argwhere(white)]
    run_id: dict[tuple[str, Cell], int] = {}
    n_runs = 0
    for transpose in (False, True):
        grid = white.T if transpose else white
        for i in range(grid.shape[0]):
            for start, length in _segments(grid[i]):
                for j in range(start, start + length):
                    run_id[("d" if transpose else "a", (j, i) if transpose else (i, j))] = n_runs
                n_runs += 1
    runs_of = [(run_id[("a", c)], run_id[("d", c)]) for c in cells]
    used = [0] * n_runs
    assigned = [0] * len(cells)
    nodes = 0
    all_digits = 0b1111111110

    def candidates(k: int) -> int:
        a, d = runs_of[k]
        return all_digits & ~(used[a] | used[d])

    def solve(remaining: int) -> bool:
        nonlocal nodes
        if remaining == 0:
            return True
        nodes += 1
        if nodes > max_nodes:
            return False
        best, best_count, best_mask = -1, 10, 0
        for k in range(len(cells)):
            if assigned[k]:
                continue
            mask = candidates(k)
            count = bin(mask).count("1")
            if count < best_count:
                best, best_count, best_mask = k, count, mask
                if count <= 1:
                    break
        if best_count == 0:
            return False
        digits = [d for d in range(1, 10) if best_mask >> d & 1]
        a, dn = runs_of[best]
        for d in rng.permutation(digits):
            d = int(d)
            assigned[best] = d
            used[a] |= 1 << d
            used[dn] |= 1 << d
            if solve(remaining - 1):
                return True
            used[a] &= ~(1 << d)
            used[dn] &= ~(1 << d)
            assigned[best] = 0
        return False

    if not solve(len(cells)):
        return None
    return {c: assigned[k] for k, c in enumerate(cells)}


def puzzle_from_fill(white: np.ndarray, values: Mapping[Cell, int]) -> Puzzle:
    """The puzzle whose clues are the sums of ``values`` along each run of ``white``.

    Parameters
    ----------
    white : (n_rows, n_cols) bool array
        True at white cells.
    values : mapping of ``(row, col)`` to digit
        A digit for every white cell.

    Returns
    -------
    Puzzle
        A clue (down and/or across) on every non-white cell that starts a run, no givens.
    """
    n_rows, n_cols = white.shape
    clues = []
    for r in range(n_rows):
        for c in range(n_cols):
            if white[r, c]:
                continue
            across = down = None
            if c + 1 < n_cols and white[r, c + 1]:
                across, k = 0, c + 1
                while k < n_cols and white[r, k]:
                    across += values[(r, k)]
                    k += 1
            if r + 1 < n_rows and white[r + 1, c]:
                down, k = 0, r + 1
                while k < n_rows and white[k, c]:
                    down += values[(k, c)]
                    k += 1
            if across is not None or down is not None:
                clues.append(Clue(r, c, down=down, across=across))
    whites = frozenset((int(r), int(c)) for r, c in zip(*np.nonzero(white)))
    return Puzzle(n_rows, n_cols, whites, tuple(clues))


# --------------------------------------------------------------------------------------------
# Styles


#: Print fonts drawn from instead of the usual families (:func:`use_print_fonts`).
_PRINT_FONTS: tuple[str, ...] | None = None
_TOO_LIGHT = ("ExtraLight", "Thin", "Hairline", "Math")


def use_print_fonts(paths: Sequence[str] | None) -> None:
    """Draw clue numbers and givens from ``paths`` only (None: the usual families again): a bench
    can then measure fonts the glyph model was never trained on. Fonts too light to print digits
    in (thin, hairline) and files that cannot be read are left out."""
    global _PRINT_FONTS
    fonts = None if paths is None else tuple(
        p for p in paths if not any(k in Path(p).name for k in _TOO_LIGHT) and draws_digits(p))
    if fonts == ():
        raise ValueError("none of the fonts given draws digits")
    _PRINT_FONTS = fonts
    available_fonts.cache_clear()


def draws_digits(font_path: str) -> bool:
    """The font draws ten distinct digits (not empty boxes or one fallback glyph)."""
    try:
        font = ImageFont.truetype(font_path, 24)
    except OSError:
        return False
    shapes = set()
    for d in "0123456789":
        im = Image.new("L", (40, 40), 0)
        ImageDraw.Draw(im).text((4, 4), d, font=font, fill=255)
        a = np.asarray(im) > 127
        if not a.any():
            return False
        shapes.add(a.tobytes())
    return len(shapes) == 10


@lru_cache(maxsize=1)
def available_fonts() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(print fonts, pen fonts): paths of TTF/OTF files on this machine usable for digits."""
    paths = sorted(p for d in _FONT_DIRS for ext in ("*.ttf", "*.otf") for p in Path(d).rglob(ext))
    printed = _PRINT_FONTS or tuple(str(p) for p in paths if p.name.startswith(_FONT_PREFIXES)
                                    and "ExtraLight" not in p.name and "Math" not in p.name)
    pen = tuple(p for p in printed if any(k in Path(p).name for k in _PEN_PREFIXES))
    pen += tuple(str(p) for p in paths if p.name.startswith("Z003"))
    if not printed:
        raise RuntimeError("no TTF/OTF fonts found under /usr/share/fonts; install fonts-dejavu")
    return printed, pen or printed


@dataclass(frozen=True)
class Style:
    """How a puzzle is drawn. Colours are RGB; sizes are output pixels.

    ``half_fill`` colours only the triangles of a clue cell that carry a number (the rest keeps
    ``clue_fill``); None fills the whole clue cell with ``clue_fill``. ``digit_x``/``digit_y`` place
    the across number's centre as a fraction of the cell (the down number mirrors it).

    The fields after ``pen_colour`` draw the style families of ``style_of_family``; their defaults
    draw nothing new, so a style without them renders as it always has:

    - ``clue_diagonal``: split clue cells by a diagonal; ``white_diagonal``: draw it in white cells
      too; ``diag_dash_px``: dash length of a dashed diagonal (0: solid).
    - ``down_half_fill``: the down triangle's colour when it differs from ``half_fill``'s.
    - ``block_hatch``: hatch the block cells (not the clue cells) with ``hatch_px`` spacing.
    - ``disc_fill``: print each clue number inside a disc of this colour, ``disc_frac`` of the
      cell across, centred on the number, and no wider than ``disc_room`` of the disc.
    - ``finished_share`` of the clue numbers, chosen at random, printed in ``finished_ink`` (the
      clues a player finished, greyed by a game).
    - ``white_fill``: the white cells' colour where it is not ``paper`` (a dark mode).
    - ``cell_radius``: cells as tiles with corners rounded by this fraction of the cell, the grid
      lines showing as the gaps between them (an app's board).
    - ``typed_*``: how a player's own digits (``render_puzzle``'s ``entries``) are typed.
    - ``notes_*``: how a player's pencil marks (``render_puzzle``'s ``notes``) are typed: each
      candidate digit small, in its place of a 3x3 block (1 top left, 9 bottom right).
    - ``cursor_tint``, ``cursor_cell_tint``: an app's highlight of the selected cell's row and
      column, and of the cell itself (``render_puzzle``'s ``cursor``).
    """

    cell_px: int = 40
    paper: RGB = (255, 255, 255)
    line_colour: RGB = (0, 0, 0)
    border_colour: RGB = (0, 0, 0)
    inner_px: float = 1.0
    outer_px: float = 3.0
    clue_fill: RGB = (0, 0, 0)
    half_fill: RGB | None = None
    block_fill: RGB = (0, 0, 0)
    block_diagonal: bool = False
    clue_ink: RGB = (255, 255, 255)
    diag_colour: RGB = (255, 255, 255)
    diag_px: float = 1.0
    hatch_px: int = 0
    hatch_colour: RGB = (0, 0, 0)
    font_path: str = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
    font_frac: float = 0.33
    bold_px: int = 0
    digit_x: float = 0.68
    digit_y: float = 0.3
    margin_px: int = 10
    given_font_path: str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    given_frac: float = 0.55
    given_ink: RGB = (0, 0, 0)
    pen_font_path: str = "/usr/share/fonts/opentype/urw-base35/Z003-MediumItalic.otf"
    pen_colour: RGB = (20, 40, 160)
    clue_diagonal: bool = True
    white_diagonal: bool = False
    diag_dash_px: float = 0.0
    down_half_fill: RGB | None = None
    block_hatch: bool = False
    disc_fill: RGB | None = None
    disc_frac: float = 0.38
    disc_room: float = 0.7
    finished_ink: RGB = (128, 128, 128)
    finished_share: float = 0.0
    white_fill: RGB | None = None
    cell_radius: float = 0.0
    typed_font_path: str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    typed_frac: float = 0.62
    typed_ink: RGB = (30, 60, 200)
    notes_frac: float = 0.22
    notes_ink: RGB = (100, 100, 100)
    cursor_tint: RGB = (220, 232, 250)
    cursor_cell_tint: RGB = (180, 205, 245)


_FILLS_LIGHT = ((200, 200, 200), (215, 215, 215), (180, 180, 180), (173, 216, 240), (150, 200, 250),
                (255, 236, 160), (200, 235, 200), (250, 200, 210), (255, 210, 160), (225, 225, 225))
_FILLS_MID = ((150, 150, 150), (128, 128, 128), (110, 110, 110), (90, 90, 90), (70, 110, 170),
              (60, 120, 80), (140, 60, 60))


def _jitter(rng: np.random.Generator, colour: Sequence[int], amount: int = 12) -> RGB:
    return tuple(int(np.clip(v + rng.integers(-amount, amount + 1), 0, 255)) for v in colour)


def _luma(colour: Sequence[int]) -> float:
    return 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2]


def _upright(fonts: Sequence[str]) -> list[str]:
    return [p for p in fonts if not any(k in Path(p).name for k in ("Italic", "Oblique", "BdIta"))]


def random_style(rng: np.random.Generator, cell_px: int | None = None) -> Style:
    """A random look, drawn widely from the families seen in print and on screen.

    Parameters
    ----------
    rng : numpy Generator
    cell_px : int, optional
        Cell size in output pixels; random in 20..90 when omitted.
    """
    printed, pen = available_fonts()
    kind = rng.choice(["black", "shaded", "newspaper", "halves_dark", "halves_light"],
                      p=[0.28, 0.3, 0.16, 0.14, 0.12])
    if rng.random() < 0.6:
        paper = (255, 255, 255)
    else:  # off-white or newsprint: warm, never green
        tone = rng.uniform(0, 1)
        paper = (int(255 - 8 * tone), int(253 - 12 * tone), int(250 - 28 * tone))
    ink = _jitter(rng, (0, 0, 0), 25) if rng.random() < 0.5 else (0, 0, 0)
    grey_lines = rng.random() < 0.25
    line_colour = _jitter(rng, (140, 140, 140), 30) if grey_lines else ink
    inner_px = float(rng.choice([1, 1.5, 2, 3], p=[0.45, 0.2, 0.25, 0.1]))
    outer_px = inner_px if rng.random() < 0.25 else float(rng.uniform(max(2.0, inner_px), 8.0))
    dark = _jitter(rng, (0, 0, 0), 30)
    half_fill = None
    hatch_px = 0
    block_diagonal = False
    diag_px = float(rng.choice([1, 1.5, 2, 3], p=[0.4, 0.2, 0.3, 0.1]))
    if kind == "black":
        clue_fill = block_fill = dark
        clue_ink = _jitter(rng, (255, 255, 255), 15)
        diag_colour = clue_ink if rng.random() < 0.7 else _jitter(rng, (150, 150, 150), 30)
        block_diagonal = rng.random() < 0.3
    elif kind == "shaded":
        clue_fill = _jitter(rng, _FILLS_LIGHT[rng.integers(len(_FILLS_LIGHT))] if rng.random() < 0.65
                            else _FILLS_MID[rng.integers(len(_FILLS_MID))], 10)
        clue_ink = (_jitter(rng, (255, 255, 255), 10) if _luma(clue_fill) < 120
                    or (_luma(clue_fill) < 175 and rng.random() < 0.5) else ink)
        diag_colour = ink if rng.random() < 0.8 else _jitter(rng, (90, 90, 90), 30)
        block_fill = clue_fill if rng.random() < 0.7 else dark
        block_diagonal = block_fill == clue_fill and rng.random() < 0.7
        if _luma(clue_fill) < 170 and rng.random() < 0.35:
            hatch_px = int(rng.integers(3, 6))  # newsprint hatching, as in The Guardian
    elif kind == "newspaper":
        clue_fill = paper
        clue_ink = ink
        diag_colour = ink
        diag_px = float(rng.choice([1, 1.5], p=[0.7, 0.3]))
        block_fill = dark if rng.random() < 0.8 else paper
        block_diagonal = block_fill == paper or rng.random() < 0.2
        if rng.random() < 0.3:  # unused halves blacked out
            half_fill, clue_fill = paper, dark
    elif kind == "halves_dark":  # the Wikipedia look: numbered triangles white on a black cell
        clue_fill = block_fill = dark
        half_fill = paper if rng.random() < 0.7 else _jitter(rng, _FILLS_LIGHT[rng.integers(len(_FILLS_LIGHT))])
        clue_ink = ink
        diag_colour = dark
    else:  # halves_light: only the numbered triangles shaded
        clue_fill = paper
        half_fill = _jitter(rng, _FILLS_LIGHT[rng.integers(len(_FILLS_LIGHT))], 10)
        block_fill = half_fill if rng.random() < 0.5 else dark
        block_diagonal = block_fill == half_fill and rng.random() < 0.5
        clue_ink = ink
        diag_colour = ink
    if cell_px is None:
        cell_px = int(rng.integers(20, 91))
    upright = _upright(printed)
    pool = printed if rng.random() < 0.08 else upright  # clue numbers are rarely italic in print
    font_path = pool[rng.integers(len(pool))]
    given_font = font_path if rng.random() < 0.5 else upright[rng.integers(len(upright))]
    return Style(
        cell_px=int(cell_px), paper=paper, line_colour=line_colour, border_colour=ink,
        inner_px=inner_px, outer_px=outer_px, clue_fill=clue_fill, half_fill=half_fill,
        block_fill=block_fill, block_diagonal=bool(block_diagonal), clue_ink=clue_ink,
        diag_colour=diag_colour, diag_px=diag_px, hatch_px=hatch_px,
        hatch_colour=_jitter(rng, (20, 20, 20), 20), font_path=font_path,
        font_frac=float(rng.uniform(0.25, 0.45)), bold_px=int(rng.random() < 0.15),
        digit_x=float(rng.uniform(0.62, 0.74)), digit_y=float(rng.uniform(0.24, 0.34)),
        margin_px=int(rng.integers(int(math.ceil(outer_px)) + 2, max(int(outer_px) + 4, cell_px))),
        given_font_path=given_font, given_frac=float(rng.uniform(0.45, 0.65)), given_ink=ink,
        pen_font_path=pen[rng.integers(len(pen))],
        pen_colour=_jitter(rng, ((20, 40, 160), (20, 20, 30), (30, 60, 200), (160, 20, 20))[rng.integers(4)], 20),
    )


#: The style families ``style_of_family`` draws: looks that publishers and apps around the world
#: print, each with its parameters drawn at random.
STYLE_FAMILIES = (
    "discs_black", "discs_grey", "diagonal_everywhere", "no_diagonal", "tinted_clues", "finished_grey",
    "typed_entries", "answer_key", "grey_no_split", "two_tone_halves", "rounded_app", "dark_mode",
    "app_notes", "zero_cells", "phone_screen", "newsprint_dots",
)
# Families that are a look of their own; typed_entries, answer_key and app_notes draw on one of these.
_LOOK_FAMILIES = tuple(f for f in STYLE_FAMILIES
                       if f not in ("typed_entries", "answer_key", "app_notes", "zero_cells", "phone_screen",
                                    "newsprint_dots"))
# The boards a phone's screenshot shows (``phone_screen``).
_SCREEN_FAMILIES = ("rounded_app", "dark_mode", "app_notes", "typed_entries", "zero_cells")
# Looks that appear on a printed page (an answer key is printed; an app's board is not).
_PRINT_FAMILIES = tuple(f for f in _LOOK_FAMILIES if f not in ("rounded_app", "dark_mode"))
# Looks a newspaper prints (a game greys the clues a player finished; a newspaper does not).
_NEWS_FAMILIES = tuple(f for f in _PRINT_FAMILIES if f != "finished_grey")
# Looks an app draws its board in (pencil marks are an app's): not a book's discs on black, not a
# newspaper's diagonal in every cell.
_APP_FAMILIES = tuple(f for f in _LOOK_FAMILIES if f not in ("discs_black", "diagonal_everywhere"))
_PASTELS = ((245, 232, 205), (205, 226, 245), (250, 215, 225), (210, 240, 210), (255, 245, 200),
            (225, 215, 245))


def _shade(colour: Sequence[int], factor: float) -> RGB:
    return tuple(int(np.clip(v * factor, 0, 255)) for v in colour)


def _grey(rng: np.random.Generator, lo: int, hi: int) -> RGB:
    return (int(rng.integers(lo, hi + 1)),) * 3


#: Digits drawn at least this many pixels tall where the cell leaves room: smaller print, blurred
#: by a photo, is a grey smudge to a person too (the numbers-in-discs families drew digits 4-6 px
#: tall in their smallest cells).
LEGIBLE_DIGIT_PX = 8.0
#: The largest disc, as a share of the cell side: half the cell, a disc that nearly touches the
#: diagonal (``_disc_centre`` keeps discs up to 0.486 a twentieth of the cell clear of it).
_DISC_FRAC_MAX = 0.5
#: The share of its disc's width a number may fill in small cells' discs (0.7 elsewhere): the
#: digits nearly touch the rim.
_DISC_ROOM_SMALL = 0.82
#: Digits in discs drawn smaller than this many pixels get no extra stroke (``Style.bold_px``).
_BOLD_DIGIT_PX = 12.0


def _disc_centre(rng: np.random.Generator, disc_frac: float) -> float:
    """``digit_y`` (with ``digit_x = 1 - digit_y``) that keeps a disc clear of the cell's top edge
    and of the diagonal, so that the disc sits wholly in its triangle."""
    return float(rng.uniform(*_disc_centre_range(disc_frac)))


def _disc_centre_range(disc_frac: float) -> tuple[float, float]:
    """The lowest and highest ``digit_y`` of :func:`_disc_centre` (the same where a disc is too
    large to keep clear of the diagonal)."""
    radius, clearance = disc_frac / 2, 0.05
    lo, hi = radius + clearance, (1 - math.sqrt(2) * (radius + clearance)) / 2
    return lo, max(lo, hi)


def style_of_family(rng: np.random.Generator, family: str, cell_px: int | None = None) -> Style:
    """A random look of one named style family (see ``STYLE_FAMILIES``).

    Unlike ``random_style``, which draws the common looks, each family is a look that some
    publishers or apps print and the common looks leave out:

    - ``discs_black``: black clue cells split by a diagonal, each number small and dark inside a
      white or light disc in its triangle (Japanese puzzle books).
    - ``discs_grey``: the same on mid-grey clue and block cells, thin diagonal, sometimes a thick
      frame (an app).
    - ``diagonal_everywhere``: a thin diagonal in every cell, white cells too; clue cells are paper
      with small numbers; blocks flat grey or hatched.
    - ``no_diagonal``: clue cells black or tinted with light numbers and no diagonal, across top
      right and down bottom left.
    - ``tinted_clues``: pastel clue cells (beige, light blue, pink, light green) with dark numbers,
      blocks the same tint or darker.
    - ``finished_grey``: black cells and white numbers, 20-50% of them in mid grey (finished).
    - ``typed_entries``: another look, with typed digits large in a sans font; the digits
      themselves are chosen by ``render_family``.
    - ``app_notes``: an app's board mid-game, in a look an app uses (not a book's discs on black
      nor a newspaper's diagonal in every cell): typed digits as ``typed_entries``, pencil marks
      (small candidates, each in its place of a 3x3 block) in other white cells, and the
      selected cell's row and column tinted.
    - ``zero_cells``: an app's board, in a look an app uses, that draws every empty white cell
      as a large "0" (FACTS.md); half the time some digits are typed too.
    - ``answer_key``: a printed look for a page that carries an answer grid (``render_family``).
    - ``newsprint_dots``: a printed look whose tints and greys ``render_family`` prints as a
      newspaper does, in dots of four inks on screens at their own angles (``halftone``).
    - ``grey_no_split``: light or mid grey squares carrying both numbers with no split.
    - ``two_tone_halves``: the across and down triangles shaded in two different colours.
    - ``rounded_app``: an app's board of rounded tiles on a grey backing, gaps for lines.
    - ``dark_mode``: light lines on a dark background, dark white cells, light numbers.
    - ``phone_screen``: a phone's screenshot of an app (``render_family``): one of the app
      families' boards with the screen around it, a status bar, a title and a timer above, a
      number pad of the digits 1 to 9 and the tools' names below.

    Parameters
    ----------
    rng : numpy Generator
    family : str
        One of ``STYLE_FAMILIES``.
    cell_px : int, optional
        Cell size in output pixels; random in 20..90 when omitted.
    """
    if family not in STYLE_FAMILIES:
        raise ValueError(f"family: expected one of {STYLE_FAMILIES}, got {family!r}")
    if family == "phone_screen":
        return style_of_family(rng, _SCREEN_FAMILIES[int(rng.integers(len(_SCREEN_FAMILIES)))], cell_px)
    if family in ("typed_entries", "answer_key", "app_notes", "zero_cells", "newsprint_dots"):
        looks = {"answer_key": _PRINT_FAMILIES, "app_notes": _APP_FAMILIES, "newsprint_dots": _NEWS_FAMILIES,
                 "zero_cells": _APP_FAMILIES}.get(family, _LOOK_FAMILIES)
        base = (random_style(rng, cell_px) if rng.random() < 0.4
                else style_of_family(rng, looks[int(rng.integers(len(looks)))], cell_px))
        if family in ("answer_key", "newsprint_dots"):
            return base
        sans = [p for p in _upright(available_fonts()[0])
                if ("Sans" in Path(p).name or "Gothic" in Path(p).name) and "Mono" not in Path(p).name]
        dark_cells = _luma(base.white_fill if base.white_fill is not None else base.paper) < 128
        if dark_cells:
            typed_ink = _jitter(rng, (235, 235, 235) if rng.random() < 0.5 else (130, 180, 255), 15)
        else:
            typed_ink = _jitter(rng, (25, 70, 200) if rng.random() < 0.6 else (20, 20, 20), 20)
        style = dataclasses.replace(base, typed_font_path=sans[int(rng.integers(len(sans)))],
                                    typed_frac=float(rng.uniform(0.55, 0.7)), typed_ink=typed_ink)
        if family == "app_notes":
            if dark_cells:
                notes_ink = _grey(rng, 150, 200)
                tint = _jitter(rng, (45, 55, 75) if rng.random() < 0.6 else (60, 60, 60), 10)
                selected = _jitter(rng, (40, 70, 120), 15)
            else:
                notes_ink = _grey(rng, 60, 130) if rng.random() < 0.7 else _jitter(rng, (60, 90, 170), 20)
                tint = _jitter(rng, _PASTELS[int(rng.integers(len(_PASTELS)))], 8)
                selected = _shade(tint, float(rng.uniform(0.85, 0.95)))
            style = dataclasses.replace(style, notes_frac=float(rng.uniform(0.18, 0.26)), notes_ink=notes_ink,
                                        cursor_tint=tint, cursor_cell_tint=selected)
        return style

    printed, pen = available_fonts()
    upright = _upright(printed)
    cell_px = int(rng.integers(20, 91)) if cell_px is None else int(cell_px)
    paper = (255, 255, 255) if rng.random() < 0.7 else _jitter(rng, (250, 248, 240), 5)
    ink = _jitter(rng, (0, 0, 0), 25)
    inner_px = float(rng.choice([1, 1.5, 2], p=[0.5, 0.25, 0.25]))
    outer_px = float(rng.uniform(max(2.0, inner_px), 6.0))
    font_path = upright[int(rng.integers(len(upright)))]
    f = dict(
        cell_px=cell_px, paper=paper, line_colour=ink, border_colour=ink, inner_px=inner_px, outer_px=outer_px,
        font_path=font_path, font_frac=float(rng.uniform(0.25, 0.4)), bold_px=int(rng.random() < 0.1),
        digit_x=float(rng.uniform(0.62, 0.74)), digit_y=float(rng.uniform(0.24, 0.34)),
        given_font_path=font_path if rng.random() < 0.5 else upright[int(rng.integers(len(upright)))],
        given_frac=float(rng.uniform(0.45, 0.65)), given_ink=ink, pen_font_path=pen[int(rng.integers(len(pen)))],
        pen_colour=_jitter(rng, (20, 40, 160), 20), hatch_colour=_jitter(rng, (20, 20, 20), 20),
        diag_px=float(rng.choice([1, 1.5, 2], p=[0.5, 0.25, 0.25])),
    )
    light = _jitter(rng, (255, 255, 255) if rng.random() < 0.6 else (240, 238, 225), 6)
    if family in ("discs_black", "discs_grey"):
        disc_frac = float(rng.uniform(0.3, 0.45))
        digit_y = _disc_centre(rng, disc_frac)
        if family == "discs_black":
            fill = _jitter(rng, (12, 12, 12), 12)
            diag = light if rng.random() < 0.7 else _grey(rng, 110, 170)
            block_diagonal = rng.random() < 0.4
        else:
            fill = _jitter(rng, _grey(rng, 115, 170), 6)
            diag = light if rng.random() < 0.5 else _shade(fill, 0.6)
            block_diagonal = rng.random() < 0.3
            f.update(diag_px=1.0, line_colour=ink if rng.random() < 0.6 else _shade(fill, 0.5))
            if rng.random() < 0.4:  # a heavy frame round the board
                f.update(outer_px=float(rng.uniform(4.5, 8.0)))
        # Digits half to two thirds of the disc's height: about 0.6 on the scanned Japanese book
        # page (tests/data/images/book_scan_discs_3puzzles.jpg), about half in apps.
        in_disc = float(rng.uniform(0.5, 0.68))
        wide = _font_for_height(font_path, 100).getlength("45") / 100

        def digit_px(disc: float, share: float, room: float, bold: int) -> float:
            # as render_puzzle draws them: the widest number, stroke included, fits the disc
            return min(share * disc * cell_px, (room * disc * cell_px - 2 * bold) / wide)

        if f["bold_px"] and digit_px(disc_frac, in_disc, 0.7, f["bold_px"]) < _BOLD_DIGIT_PX:
            f.update(bold_px=0)  # a stroke a pixel wide all round fills a small digit's counters
        if digit_px(disc_frac, in_disc, 0.7, 0) < LEGIBLE_DIGIT_PX:
            # Print is sized to be read: small cells get larger discs, the digits filling more of
            # them, as far as a disc still fits its triangle.
            f.update(disc_room=_DISC_ROOM_SMALL)
            disc_frac = min(_DISC_FRAC_MAX, max(disc_frac, LEGIBLE_DIGIT_PX / (0.68 * cell_px),
                                                wide * LEGIBLE_DIGIT_PX / (_DISC_ROOM_SMALL * cell_px)))
            in_disc = min(0.68, max(in_disc, LEGIBLE_DIGIT_PX / (disc_frac * cell_px)))
            lo, hi = _disc_centre_range(disc_frac)
            digit_y = min(max(digit_y, lo), hi)
        f.update(clue_fill=fill, block_fill=fill, diag_colour=diag, block_diagonal=bool(block_diagonal),
                 disc_fill=light, disc_frac=disc_frac, clue_ink=ink,
                 font_frac=disc_frac * in_disc, digit_x=1 - digit_y, digit_y=digit_y)
    elif family == "diagonal_everywhere":
        diag = ink if rng.random() < 0.7 else _grey(rng, 80, 130)
        f.update(clue_fill=paper, clue_ink=ink, diag_colour=diag, diag_px=float(rng.choice([1, 1.5], p=[0.7, 0.3])),
                 white_diagonal=True, block_diagonal=True, font_frac=float(rng.uniform(0.22, 0.32)))
        if rng.random() < 0.5:
            f.update(block_fill=_jitter(rng, _grey(rng, 150, 205), 5))
        else:  # hatched blocks
            f.update(block_fill=paper, block_hatch=True, hatch_px=int(rng.integers(3, 6)), hatch_colour=diag)
        if rng.random() < 0.25:
            f.update(diag_dash_px=float(rng.uniform(0.06, 0.12) * cell_px))
    elif family in ("no_diagonal", "grey_no_split"):
        if family == "no_diagonal":
            fill = (_jitter(rng, (12, 12, 12), 12) if rng.random() < 0.5
                    else _jitter(rng, _FILLS_MID[int(rng.integers(len(_FILLS_MID)))], 10))
            clue_ink = light
            block_fill = fill if rng.random() < 0.6 else _jitter(rng, (12, 12, 12), 12)
        else:
            fill = _jitter(rng, _grey(rng, 150, 215), 4)
            clue_ink = ink if _luma(fill) > 165 or rng.random() < 0.5 else light
            block_fill = fill if rng.random() < 0.7 else _shade(fill, rng.uniform(0.5, 0.8))
        f.update(clue_fill=fill, block_fill=block_fill, clue_ink=clue_ink, diag_colour=clue_ink,
                 clue_diagonal=False, digit_x=float(rng.uniform(0.66, 0.76)), digit_y=float(rng.uniform(0.24, 0.32)))
    elif family == "tinted_clues":
        tint = _jitter(rng, _PASTELS[int(rng.integers(len(_PASTELS)))], 6)
        diag = ink if rng.random() < 0.6 else _shade(tint, 0.55)
        roll = rng.random()
        block_fill = (tint if roll < 0.5 else _shade(tint, rng.uniform(0.6, 0.85)) if roll < 0.8
                      else _jitter(rng, (20, 20, 20), 15))
        f.update(clue_fill=tint, block_fill=block_fill, clue_ink=ink, diag_colour=diag,
                 block_diagonal=bool(block_fill == tint and rng.random() < 0.5))
        if rng.random() < 0.2:
            f.update(diag_dash_px=float(rng.uniform(0.06, 0.12) * cell_px))
    elif family == "finished_grey":
        dark = _jitter(rng, (15, 15, 15), 15)
        f.update(clue_fill=dark, block_fill=dark, clue_ink=light,
                 diag_colour=light if rng.random() < 0.7 else _grey(rng, 120, 170),
                 block_diagonal=bool(rng.random() < 0.3), finished_ink=_grey(rng, 95, 150),
                 finished_share=float(rng.uniform(0.2, 0.5)))
    elif family == "two_tone_halves":
        across = _PASTELS[int(rng.integers(len(_PASTELS)))]
        # two tints a reader could mistake for one are not two tones
        others = [c for c in _PASTELS if max(abs(a - b) for a, b in zip(across, c)) >= 35]
        down = others[int(rng.integers(len(others)))]
        back = _jitter(rng, (15, 15, 15), 15) if rng.random() < 0.5 else paper
        half_fill, down_half_fill = _jitter(rng, across, 4), _jitter(rng, down, 4)
        diag_colour = ink if rng.random() < 0.6 else back
        # Blocks on paper-white clue cells are still printed dark: paper-white blocks would look
        # like white cells and leave the layout unknowable.
        same_as_clues = rng.random() < 0.5 and back is not paper
        f.update(clue_fill=back, half_fill=half_fill, down_half_fill=down_half_fill, clue_ink=ink,
                 diag_colour=diag_colour, block_fill=back if same_as_clues else _jitter(rng, (15, 15, 15), 15))
    elif family == "rounded_app":
        backing = _jitter(rng, _grey(rng, 150, 210) if rng.random() < 0.7 else (170, 185, 205), 5)
        tile = _jitter(rng, _FILLS_MID[int(rng.integers(len(_FILLS_MID)))], 10) if rng.random() < 0.7 \
            else _jitter(rng, (30, 30, 35), 10)
        gap = float(rng.uniform(2.0, 5.0))
        f.update(paper=(255, 255, 255), line_colour=backing,
                 border_colour=backing if rng.random() < 0.6 else _shade(backing, 0.5),
                 inner_px=gap, outer_px=float(gap + rng.uniform(0, 3)), cell_radius=float(rng.uniform(0.12, 0.25)),
                 white_fill=(255, 255, 255), clue_fill=tile,
                 block_fill=tile if rng.random() < 0.6 else _shade(backing, 0.8),
                 clue_ink=light, diag_colour=light, clue_diagonal=bool(rng.random() < 0.7), given_ink=(20, 20, 20))
    else:  # dark_mode
        night = _jitter(rng, (28, 28, 34), 8)
        lines = _jitter(rng, _grey(rng, 170, 235), 5)
        cells = night if rng.random() < 0.4 else _jitter(rng, (58, 58, 66), 8)
        clue = _jitter(rng, (5, 5, 8), 5) if rng.random() < 0.5 else _jitter(rng, (35, 55, 95), 12)
        light_ink = _jitter(rng, (235, 235, 235), 15)
        f.update(paper=night, line_colour=lines, border_colour=lines if rng.random() < 0.6 else light_ink,
                 white_fill=cells, clue_fill=clue,
                 block_fill=clue if rng.random() < 0.6 else _jitter(rng, (5, 5, 8), 5),
                 clue_ink=light_ink, diag_colour=lines, given_ink=light_ink, pen_colour=(140, 190, 255),
                 clue_diagonal=bool(rng.random() < 0.8), hatch_colour=lines)
    outer_px = f["outer_px"]
    f["margin_px"] = int(rng.integers(int(math.ceil(outer_px)) + 2, max(int(outer_px) + 4, cell_px)))
    return Style(**f)


# --------------------------------------------------------------------------------------------
# Flat rendering


@lru_cache(maxsize=512)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, max(4, size))


@lru_cache(maxsize=256)
def _font_for_height(path: str, digit_height: int) -> ImageFont.FreeTypeFont:
    """The font at the size whose digits are ``digit_height`` pixels tall."""
    probe = _font(path, 100)
    left, top, right, bottom = probe.getbbox("0123456789", anchor="ls")
    return _font(path, int(round(100 * digit_height / max(1, bottom - top))))


def _draw_centred(draw: ImageDraw.ImageDraw, text: str, font, centre_xy, fill, stroke: int = 0,
                  box=None) -> None:
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font, anchor="ls", stroke_width=stroke)
    x = centre_xy[0] - (left + right) / 2
    y = centre_xy[1] - (top + bottom) / 2
    if box is not None:  # keep the number inside its cell
        x0, y0, x1, y1 = box
        x = min(max(x, x0 - left), x1 - right)
        y = min(max(y, y0 - top), y1 - bottom)
    draw.text((x, y), text, font=font, fill=fill, anchor="ls", stroke_width=stroke, stroke_fill=fill)


def _hatch(draw: ImageDraw.ImageDraw, x0: int, y0: int, size: int, spacing: int, colour, width: int) -> None:
    """Lines parallel to the cell's diagonal, clipped to the cell square."""
    for k in range(-size + spacing // 2, size, spacing):
        # the line y - x = k inside [0, size]^2
        a = (max(0, -k), max(0, k))
        b = (min(size, size - k), min(size, size + k))
        draw.line([(x0 + a[0], y0 + a[1]), (x0 + b[0], y0 + b[1])], fill=colour, width=width)


def _line(draw: ImageDraw.ImageDraw, start, end, colour, width: int, dash: float = 0.0) -> None:
    """A straight line, solid or (``dash`` > 0) in dashes of that length with equal gaps."""
    if dash <= 0:
        draw.line([start, end], fill=colour, width=width)
        return
    (xa, ya), (xb, yb) = start, end
    length = math.hypot(xb - xa, yb - ya)
    for k in range(int(math.ceil(length / (2 * dash)))):
        t0, t1 = 2 * k * dash / length, min(1.0, (2 * k + 1) * dash / length)
        draw.line([(xa + t0 * (xb - xa), ya + t0 * (yb - ya)), (xa + t1 * (xb - xa), ya + t1 * (yb - ya))],
                  fill=colour, width=width)


def _pen_digit(draw: ImageDraw.ImageDraw, digit: int, style: Style, centre_xy, cell: int,
               rng: np.random.Generator) -> None:
    """A handwritten-looking digit: pen font, slanted, rotated and offset a little."""
    height = int(cell * rng.uniform(0.45, 0.7))
    font = _font_for_height(style.pen_font_path, height)
    patch = Image.new("L", (cell * 2, cell * 2), 0)
    _draw_centred(ImageDraw.Draw(patch), str(digit), font, (cell, cell), 255,
                  stroke=int(rng.integers(0, max(1, cell // 25) + 1)))
    shear = rng.uniform(-0.35, 0.1)
    patch = patch.transform(patch.size, Image.AFFINE, (1, shear, -shear * cell, 0, 1, 0),
                            resample=Image.BILINEAR)
    patch = patch.rotate(float(rng.uniform(-15, 15)), resample=Image.BILINEAR)
    jitter = rng.uniform(-0.1, 0.1, 2) * cell
    draw.bitmap((int(centre_xy[0] - cell + jitter[0]), int(centre_xy[1] - cell + jitter[1])), patch,
                fill=style.pen_colour)


def render_puzzle(puzzle: Puzzle, style: Style, *, givens_style: Literal["printed", "pen"] | None = None,
                  pen_values: Mapping[Cell, int] | None = None, entries: Mapping[Cell, int] | None = None,
                  notes: Mapping[Cell, Collection[int]] | None = None, cursor: Cell | None = None,
                  rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Draw a puzzle flat, as printed.

    The down sum goes in the lower-left triangle of a clue cell, the across sum in the upper-right.

    Parameters
    ----------
    puzzle : Puzzle
        Any puzzle (random or from the corpus); its ``givens`` are drawn in their white cells.
    style : Style
    givens_style : {"printed", "pen"}, optional
        How the puzzle's givens are drawn; default printed.
    pen_values : mapping, optional
        Extra handwritten digits in white cells (a puzzle partly solved in pen). They are not part
        of the puzzle.
    entries : mapping, optional
        Digits a player typed into white cells (an app's board, partly solved), drawn upright and
        large in ``style.typed_font_path``. They are not part of the puzzle either.
    notes : mapping, optional
        A player's pencil marks: the candidate digits of white cells, drawn small, each in its
        place of a 3x3 block (an app's notes). Not part of the puzzle.
    cursor : (row, col), optional
        An app's selected white cell: the white cells of its row and column are tinted
        ``style.cursor_tint``, the cell itself ``style.cursor_cell_tint``.
    rng : numpy Generator, optional
        Drives the pen digits' wobble and which clue numbers are finished (``style.finished_share``);
        a fixed seed when omitted.

    Returns
    -------
    image : (H, W, 3) uint8 ndarray, BGR
    corners_xy : (4, 2) float32 ndarray
        The grid's outer corners TL TR BR BL (the centre line of the outer border), in cv2 pixel
        coordinates (pixel centres at integers).
    """
    rng = rng if rng is not None else np.random.default_rng(0)
    s = _SS
    cell = style.cell_px * s
    margin = max(style.margin_px, int(math.ceil(style.outer_px / 2)) + 1) * s
    inner = max(1, int(round(style.inner_px * s)))
    # odd-pixel lines centred on a pixel centre stay crisp after the 2x downsample, as on screen
    margin += (inner // 2) % 2
    width, height = puzzle.n_cols * cell + 2 * margin, puzzle.n_rows * cell + 2 * margin
    image = Image.new("RGB", (width, height), style.paper)
    draw = ImageDraw.Draw(image)

    def x_of(c: int) -> int:
        return margin + c * cell

    def y_of(r: int) -> int:
        return margin + r * cell

    diag_w = max(1, int(round(style.diag_px * s)))
    digit_h = int(round(style.font_frac * cell))
    font = _font_for_height(style.font_path, digit_h)
    widest = font.getlength("45") + 2 * style.bold_px * s
    # one size for all numbers, small enough that two digits fit a triangle (or a disc)
    room = 0.52 * cell if style.disc_fill is None else min(0.52, style.disc_room * style.disc_frac) * cell
    if widest > room:
        digit_h = int(digit_h * room / widest)
        font = _font_for_height(style.font_path, digit_h)
    radius = int(round(style.cell_radius * cell))
    # a rounded tile starts past the half of the line that lies in its cell, so the lines are the gaps
    tile_lo, tile_hi = inner - inner // 2, inner // 2 + 1
    if radius:
        draw.rectangle([x_of(0), y_of(0), x_of(puzzle.n_cols) - 1, y_of(puzzle.n_rows) - 1], fill=style.line_colour)

    def fill_cell(x0: int, y0: int, x1: int, y1: int, colour) -> None:
        if radius:
            draw.rounded_rectangle([x0 + tile_lo, y0 + tile_lo, x1 - tile_hi, y1 - tile_hi], radius, fill=colour)
        else:
            draw.rectangle([x0, y0, x1 - 1, y1 - 1], fill=colour)

    def diagonal(x0: int, y0: int, x1: int, y1: int) -> None:
        if radius:  # end on the rounded corners, not in the gap between tiles
            k = tile_lo + radius * (1 - math.sqrt(0.5))
            x0, y0, x1, y1 = x0 + k, y0 + k, x1 - k, y1 - k
        _line(draw, (x0, y0), (x1, y1), style.diag_colour, diag_w, style.diag_dash_px * s)

    numbers = []
    for r in range(puzzle.n_rows):
        for c in range(puzzle.n_cols):
            kind = puzzle.kind(r, c)
            x0, y0, x1, y1 = x_of(c), y_of(r), x_of(c + 1), y_of(r + 1)
            if kind == "white":
                tint = (None if cursor is None else style.cursor_cell_tint if (r, c) == cursor
                        else style.cursor_tint if cursor[0] == r or cursor[1] == c else None)
                if style.white_fill is not None or radius or tint is not None:
                    fill_cell(x0, y0, x1, y1, tint if tint is not None
                              else style.paper if style.white_fill is None else style.white_fill)
                if style.white_diagonal:
                    diagonal(x0, y0, x1, y1)
                continue
            clue = puzzle.clue_at.get((r, c))
            fill = style.clue_fill if clue else style.block_fill
            fill_cell(x0, y0, x1, y1, fill)
            if clue and style.half_fill is not None:
                if clue.across is not None:
                    draw.polygon([(x0, y0), (x1, y0), (x1, y1)], fill=style.half_fill)
                if clue.down is not None:
                    draw.polygon([(x0, y0), (x0, y1), (x1, y1)],
                                 fill=style.half_fill if style.down_half_fill is None else style.down_half_fill)
            if style.hatch_px and (not clue if style.block_hatch
                                   else fill == style.clue_fill and style.half_fill is None):
                _hatch(draw, x0, y0, cell, style.hatch_px * s, style.hatch_colour, max(1, s // 2))
            if (clue and style.clue_diagonal) or (not clue and style.block_diagonal):
                diagonal(x0, y0, x1, y1)
            if clue:
                pad = max(1, cell // 16)
                if clue.across is not None:
                    numbers.append((str(clue.across), (x0 + style.digit_x * cell, y0 + style.digit_y * cell),
                                    (x0 + cell * 0.3, y0 + pad, x1 - pad, y0 + cell * 0.7)))
                if clue.down is not None:
                    numbers.append((str(clue.down), (x1 - style.digit_x * cell, y1 - style.digit_y * cell),
                                    (x0 + pad, y0 + cell * 0.3, x0 + cell * 0.7, y1 - pad)))
    # grid lines, centred on the lattice, then the outer border over them
    outer = max(inner, int(round(style.outer_px * s)))
    gx0, gy0, gx1, gy1 = x_of(0), y_of(0), x_of(puzzle.n_cols), y_of(puzzle.n_rows)
    for c in range(1, puzzle.n_cols):
        x = x_of(c) - inner // 2
        draw.rectangle([x, gy0, x + inner - 1, gy1 - 1], fill=style.line_colour)
    for r in range(1, puzzle.n_rows):
        y = y_of(r) - inner // 2
        draw.rectangle([gx0, y, gx1 - 1, y + inner - 1], fill=style.line_colour)
    h = outer // 2
    for box in ((gx0 - h, gy0 - h, gx1 + outer - h - 1, gy0 + outer - h - 1),
                (gx0 - h, gy1 - h, gx1 + outer - h - 1, gy1 + outer - h - 1),
                (gx0 - h, gy0 - h, gx0 + outer - h - 1, gy1 + outer - h - 1),
                (gx1 - h, gy0 - h, gx1 + outer - h - 1, gy1 + outer - h - 1)):
        draw.rectangle(box, fill=style.border_colour)
    stroke = style.bold_px * s
    finished = set()
    if style.finished_share > 0 and numbers:
        count = int(round(style.finished_share * len(numbers)))
        finished = {int(i) for i in rng.choice(len(numbers), size=count, replace=False)}
    disc_r = style.disc_frac * cell / 2
    for k, (text, centre, box) in enumerate(numbers):
        if style.disc_fill is not None:
            draw.ellipse([centre[0] - disc_r, centre[1] - disc_r, centre[0] + disc_r, centre[1] + disc_r],
                         fill=style.disc_fill)
            box = None  # centred in its disc, which already lies inside the triangle
        ink = style.finished_ink if k in finished else style.clue_ink
        _draw_centred(draw, text, font, centre, ink, stroke=stroke, box=box)
    given_font = _font_for_height(style.given_font_path, int(style.given_frac * cell))
    for (r, c), digit in puzzle.givens:
        centre = (x_of(c) + cell / 2, y_of(r) + cell / 2)
        if givens_style == "pen":
            _pen_digit(draw, digit, style, centre, cell, rng)
        else:
            _draw_centred(draw, str(digit), given_font, centre, style.given_ink)
    if entries:
        typed_font = _font_for_height(style.typed_font_path, int(style.typed_frac * cell))
        for (r, c), digit in sorted(entries.items()):
            if (r, c) in puzzle.whites and (r, c) not in puzzle.given_at:
                _draw_centred(draw, str(digit), typed_font, (x_of(c) + cell / 2, y_of(r) + cell / 2), style.typed_ink)
    if notes:
        notes_font = _font_for_height(style.typed_font_path, max(3, int(style.notes_frac * cell)))
        for (r, c), digits in sorted(notes.items()):
            if (r, c) in puzzle.whites and (r, c) not in puzzle.given_at and (r, c) not in (entries or {}):
                for d in digits:
                    across, down = (d - 1) % 3, (d - 1) // 3
                    centre = (x_of(c) + cell * (0.2 + 0.3 * across), y_of(r) + cell * (0.2 + 0.3 * down))
                    _draw_centred(draw, str(d), notes_font, centre, style.notes_ink)
    for (r, c), digit in sorted((pen_values or {}).items()):
        if (r, c) in puzzle.whites and (r, c) not in puzzle.given_at:
            _pen_digit(draw, digit, style, (x_of(c) + cell / 2, y_of(r) + cell / 2), cell, rng)
    array = np.asarray(image)[:, :, ::-1]
    out = cv2.resize(array, (width // s, height // s), interpolation=cv2.INTER_AREA)
    corners = np.array([[gx0, gy0], [gx1, gy0], [gx1, gy1], [gx0, gy1]], np.float32) / s - 0.5
    return out, corners


# --------------------------------------------------------------------------------------------
# Photographing


def _resize(image: np.ndarray, points_xy: np.ndarray, fx: float, fy: float | None = None):
    fy = fx if fy is None else fy
    h, w = image.shape[:2]
    new_w, new_h = max(1, int(round(w * fx))), max(1, int(round(h * fy)))
    fx, fy = new_w / w, new_h / h
    interp = cv2.INTER_AREA if fx < 1 else cv2.INTER_LINEAR
    out = cv2.resize(image, (new_w, new_h), interpolation=interp)
    pts = (points_xy + 0.5) * np.array([fx, fy], np.float32) - 0.5  # cv2.resize maps pixel centres so
    return out, pts.astype(np.float32)


def _fit_size(image, points_xy, lo=300, hi=2500):
    longest = max(image.shape[:2])
    if longest > hi:
        return _resize(image, points_xy, hi / longest)
    if longest < lo:
        return _resize(image, points_xy, lo / longest)
    return image, points_xy


def _jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else image


def _smooth_field(rng: np.random.Generator, shape, cells: int = 4) -> np.ndarray:
    """Low-frequency random field in -1..1."""
    small = rng.uniform(-1, 1, (cells, cells)).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _lighting_gain(rng: np.random.Generator, shape, strength: float) -> np.ndarray:
    """A smooth multiplicative light field: gradient plus vignette, (h/8, w/8) float32."""
    h, w = shape[0] // 8 + 1, shape[1] // 8 + 1
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a, b = rng.uniform(-1, 1, 2) * strength
    gain = 1 + a * (xx / w - 0.5) + b * (yy / h - 0.5)
    cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
    gain -= strength * 0.5 * ((xx - cx) ** 2 + (yy - cy) ** 2) / (w * w + h * h)
    return gain * rng.uniform(0.8, 1.05)


def _shadow_gain(rng: np.random.Generator, shape) -> np.ndarray:
    """A soft-edged shadow cast over part of the image (a hand or phone), same grid as the light."""
    h, w = shape[0] // 8 + 1, shape[1] // 8 + 1
    mask = np.zeros((h, w), np.float32)
    side = rng.integers(4)
    pts = rng.uniform(0, 1, (3, 2)) * [w, h]
    corner = [(0, 0), (w, 0), (w, h), (0, h)]
    poly = np.vstack([corner[side], corner[(side + 1) % 4], pts]).astype(np.int32)
    cv2.fillPoly(mask, [cv2.convexHull(poly)], 1.0)
    mask = cv2.GaussianBlur(mask, (0, 0), max(0.5, w * rng.uniform(0.01, 0.05)))
    return 1 - rng.uniform(0.25, 0.5) * mask


#: What a ``light`` photo may suffer, one or two at a time (see ``_photograph_points``).
LIGHT_CONDITIONS = ("hard_shadow", "soft_gradient", "show_through", "dark_desk", "bow")


def _hard_shadow(rng: np.random.Generator, shape, grid_xy: np.ndarray) -> np.ndarray:
    """A sharp-edged shadow (a hand or a phone between lamp and page) over a fifth to a half of
    the grid, full size float32 gain.

    Its edge is a straight or gently curved line across the grid with a rounded finger or two
    reaching in; the edge is blurred by only 0.5-3 px (a near object under a small lamp).
    """
    h, w = shape[:2]
    lo, hi = grid_xy.min(axis=0), grid_xy.max(axis=0)
    centre, extent = (lo + hi) / 2, hi - lo
    angle = rng.uniform(0, 2 * np.pi)
    normal = np.array([np.cos(angle), np.sin(angle)])
    # The edge passes this far from the grid's centre, along the normal (shadow on the + side).
    reach = float(np.abs(normal) @ extent) / 2
    offset = rng.uniform(0.0, 0.6) * reach
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    along = (xx - centre[0]) * -normal[1] + (yy - centre[1]) * normal[0]
    across = (xx - centre[0]) * normal[0] + (yy - centre[1]) * normal[1] - offset
    across -= rng.uniform(-0.08, 0.08) * along ** 2 / max(reach, 1.0)  # a curved edge (a palm)
    mask = (across > 0).astype(np.float32)
    for _ in range(int(rng.integers(0, 3))):  # fingers reaching onto the lit side
        t = rng.uniform(-0.8, 0.8) * reach
        width, length = rng.uniform(0.04, 0.09) * reach * 2, rng.uniform(0.15, 0.5) * reach
        finger = (np.abs(along - t) < width / 2) & (across > -length) & (across <= 0)
        mask[finger] = 1.0
    sigma = rng.uniform(0.5, 3.0)
    mask = cv2.GaussianBlur(mask, (0, 0), sigma)
    depth = rng.uniform(0.3, 0.6)
    return 1.0 - depth * mask


def _show_through(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The reverse page's print seen through thin paper: a faint, blurred mirror image of a page
    like this one, shifted, darkening the paper by up to 10-30% where its ink lies."""
    h, w = image.shape[:2]
    back = cv2.flip(image, 1)
    shift = np.float32([[1, 0, rng.uniform(-0.3, 0.3) * w], [0, 1, rng.uniform(-0.2, 0.2) * h]])
    back = cv2.warpAffine(back, shift, (w, h), borderMode=cv2.BORDER_REFLECT)
    gray = cv2.cvtColor(back, cv2.COLOR_BGR2GRAY).astype(np.float32) / 255
    ink = cv2.GaussianBlur(1 - gray, (0, 0), rng.uniform(0.8, 2.5))
    gain = 1 - rng.uniform(0.1, 0.3) * ink
    return np.clip(image.astype(np.float32) * gain[..., None], 0, 255).astype(np.uint8)


def fold_crease(image: np.ndarray, corners_xy: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The page folded once across the grid and flattened again: a thin dark crease, a light ridge
    beside it, and one half of the page a little darker than the other (the halves meet the light
    at different angles). Half the time the fold runs along the grid's rows or columns (a newspaper
    folded in half or in quarters), else at any angle (a page folded crooked or crumpled).

    Parameters
    ----------
    image : (H, W, 3) uint8 ndarray, BGR
        A flat render, or the page it is printed on.
    corners_xy : (4, 2) float array
        The grid's corners, TL TR BR BL: the fold passes through its middle three fifths.
    rng : numpy Generator

    Returns
    -------
    image : uint8 BGR ndarray of the same shape
    """
    h, w = image.shape[:2]
    tl, tr, _, bl = np.asarray(corners_xy, np.float64)
    across, down = tr - tl, bl - tl
    point = tl + rng.uniform(0.2, 0.8) * across + rng.uniform(0.2, 0.8) * down
    if rng.random() < 0.5:
        angle = math.atan2(across[1], across[0]) + (math.pi / 2 if rng.random() < 0.5 else 0.0)
        angle += math.radians(rng.uniform(-2, 2))
    else:
        angle = rng.uniform(0, math.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = (xx - point[0]) * -math.sin(angle) + (yy - point[1]) * math.cos(angle)
    width = float(np.linalg.norm(across)) * rng.uniform(0.0015, 0.004)
    gain = 1 - rng.uniform(0.2, 0.5) * np.exp(-(d / width) ** 2)
    gain *= 1 + rng.uniform(0.03, 0.12) * np.exp(-((d - 3 * width) / (3 * width)) ** 2)
    gain *= np.where(d < 0, rng.uniform(0.85, 0.97), 1.0).astype(np.float32)
    return np.clip(image.astype(np.float32) * gain[..., None], 0, 255).astype(np.uint8)


def _light_and_noise(image: np.ndarray, rng: np.random.Generator, gain_small: np.ndarray,
                     sigma: float) -> np.ndarray:
    """Multiply by the light field (with a warm or cool tint) and add sensor noise, in one pass."""
    h, w = image.shape[:2]
    tint = np.array([rng.uniform(0.85, 1.0), rng.uniform(0.93, 1.0), 1.0], np.float32)  # BGR: warm light
    if rng.random() < 0.3:
        tint = tint[::-1].copy()  # cool light
    gain = cv2.resize(gain_small.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    gain3 = cv2.merge([gain * t for t in tint])
    out = image.astype(np.float32)
    cv2.multiply(out, gain3, dst=out)
    noise = rng.standard_normal((h, w), dtype=np.float32)
    noise *= sigma
    cv2.add(out, cv2.merge([noise, noise, noise]), dst=out)
    np.clip(out, 0, 255, out=out)
    return out.astype(np.uint8)


@lru_cache(maxsize=64)
def _text_strip(font_path: str, size: int, variant: int) -> tuple[np.ndarray, tuple[int, ...]]:
    """A long line of filler words as an ink mask (255 = ink), and the x where each word starts.

    Drawing text is the slow part of a page, so lines are drawn once and pasted in pieces.
    """
    rng = np.random.default_rng(variant)
    font = _font(font_path, size)
    words = [_WORDS[i] for i in rng.integers(0, len(_WORDS), 70)]
    text = " ".join(words)
    starts, x = [], 0.0
    space = font.getlength(" ")
    for word in words:
        starts.append(int(x))
        x += font.getlength(word) + space
    left, top, right, bottom = font.getbbox(text, anchor="ls")
    mask = Image.new("L", (int(right) + 2, int(bottom - top) + 2), 0)
    ImageDraw.Draw(mask).text((0, -top + 1), text, font=font, fill=255, anchor="ls")
    return np.asarray(mask), tuple(starts)


def _draw_text_block(page: np.ndarray, rng, box, font_path: str, size: int, colour, avoid=()) -> None:
    """Lines of filler text in ``box`` (x0, y0, x1, y1) of a BGR page, skipping ``avoid`` rectangles."""
    x0, y0, x1, y1 = (int(v) for v in box)
    size = max(6, int(size) // 2 * 2)
    leading = int(size * rng.uniform(1.25, 1.6))
    colour = np.array(colour, np.float32)
    y = y0
    while y + size < y1:
        spans = [(x0, x1)]
        for ax0, ay0, ax1, ay1 in avoid:
            if y + size > ay0 and y < ay1:
                spans = [(a, min(b, int(ax0))) for a, b in spans if a < ax0] + \
                        [(max(a, int(ax1)), b) for a, b in spans if b > ax1]
        for a, b in spans:
            if b - a < 4 * size:
                continue
            strip, starts = _text_strip(font_path, size, int(rng.integers(2)))
            first = int(rng.integers(0, len(starts) // 6))
            limit = (b - a) * (rng.uniform(0.3, 0.9) if rng.random() < 0.15 else 1.0)  # paragraph ends
            ends = [x for x in starts[first + 1:] if x - starts[first] <= limit]
            if not ends:
                continue
            piece = strip[:, starts[first]:ends[-1]]
            ph = min(piece.shape[0], page.shape[0] - y)
            alpha = piece[:ph].astype(np.float32)[..., None] / 255
            region = page[y:y + ph, a:a + piece.shape[1]]
            region[:] = (region * (1 - alpha) + colour * alpha).astype(np.uint8)
        y += leading


def _onto_page(image: np.ndarray, points_xy: np.ndarray, rng: np.random.Generator):
    """Place a flat render on a larger printed page with text around it."""
    image, points_xy = _fit_size(image, points_xy, 1, 1000)
    h, w = image.shape[:2]
    paper = tuple(int(v) for v in image[0, 0])
    page_w = int(w * rng.uniform(1.25, 2.0))
    page_h = max(int(h * rng.uniform(1.15, 1.6)), int(page_w * rng.uniform(0.7, 1.4)))
    ox = int(rng.integers(int(0.04 * page_w), max(int(0.04 * page_w) + 1, page_w - w - int(0.04 * page_w))))
    oy = int(rng.integers(int(0.04 * page_h), max(int(0.04 * page_h) + 1, page_h - h - int(0.04 * page_h))))
    printed, _ = available_fonts()
    size = int(max(9, page_w * rng.uniform(0.012, 0.022)))
    gap = int(0.03 * page_w)
    margin = int(0.05 * page_w)
    title_font = _font(printed[rng.integers(len(printed))], int(size * rng.uniform(1.3, 2.2)))
    page = Image.new("RGB", (page_w, page_h), paper[::-1])
    if oy - 2 * gap > 0:
        ImageDraw.Draw(page).text((ox, max(0, oy - gap - title_font.size)), f"KAKURO No {rng.integers(1, 3000)}",
                                  font=title_font, fill=(10, 10, 10))
    out = np.asarray(page)[:, :, ::-1].copy()
    _draw_text_block(out, rng, (margin, margin, page_w - margin, page_h - margin),
                     printed[rng.integers(len(printed))], size, (30, 30, 30),
                     avoid=[(ox - gap, oy - 2 * gap - title_font.size, ox + w + gap, oy + h + gap)])
    out[oy:oy + h, ox:ox + w] = image
    return out, points_xy + np.array([ox, oy], np.float32)


def _desk(rng: np.random.Generator, shape, dark: bool = False) -> np.ndarray:
    """A table top: a flat colour with blotches and sometimes wood grain (drawn at 1/4 size);
    ``dark``: as dark as a grid's black cells (a black desk, a dark wood)."""
    h, w = shape[0] // 4 + 1, shape[1] // 4 + 1
    colours = [(60, 90, 140), (40, 60, 95), (120, 120, 120), (200, 200, 205), (30, 30, 35),
               (60, 100, 60), (150, 170, 190)]
    if dark:
        colours = [(15, 15, 18), (25, 30, 40), (35, 30, 28), (10, 20, 30), (40, 40, 45)]
    base = np.array(colours[rng.integers(len(colours))], np.float32)
    desk = base + _smooth_field(rng, (h, w), int(rng.integers(3, 9)))[..., None] * rng.uniform(5, 30)
    if rng.random() < 0.4:  # wood grain
        yy = np.arange(h, dtype=np.float32)[:, None, None]
        grain = np.sin(yy / rng.uniform(1, 4) + _smooth_field(rng, (h, w), 5)[..., None] * 3)
        desk = desk + rng.uniform(2, 7) * grain
    desk = np.clip(desk, 0, 255).astype(np.uint8)
    return cv2.resize(desk, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)


def _camera_homography(rng, src_quad: np.ndarray, max_rot: float, max_tilt: float) -> np.ndarray:
    """Homography of a pinhole camera looking at the page plane, rotated and tilted."""
    centre = src_quad.mean(axis=0)
    size = float(np.linalg.norm(src_quad.max(0) - src_quad.min(0)))
    rz = math.radians(rng.uniform(-max_rot, max_rot))
    rx = math.radians(rng.uniform(-max_tilt, max_tilt))
    ry = math.radians(rng.uniform(-max_tilt, max_tilt))
    cz, sz, cx, sx, cy, sy = math.cos(rz), math.sin(rz), math.cos(rx), math.sin(rx), math.cos(ry), math.sin(ry)
    rot = (np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]]) @ np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
           @ np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]]))
    focal = size * rng.uniform(0.9, 2.0)
    p = np.c_[src_quad - centre, np.zeros(4)] @ rot.T
    z = p[:, 2] + focal * 1.0
    dst = (focal * p[:, :2] / z[:, None]).astype(np.float32)
    return cv2.getPerspectiveTransform(src_quad.astype(np.float32), dst)


def _curl_map(rng: np.random.Generator, w: int, h: int, bow: float = 0.05):
    """A page curl (horizontal lines bow by up to ``bow`` of the height) and barrel distortion,
    as a function from output to source page points."""
    k_barrel = rng.uniform(-0.03, 0.05)
    curl_y = rng.uniform(-bow, bow) * h
    curl_x = rng.uniform(-0.03, 0.03) * w
    spine = rng.uniform(-0.5, 0.5)

    def to_source(x: np.ndarray, y: np.ndarray):
        u = (x - w / 2) / (w / 2)
        v = (y - h / 2) / (h / 2)
        r2 = u * u + v * v
        sx = x + k_barrel * u * r2 * w / 2 + curl_x * (v * v - 0.5)
        sy = y + k_barrel * v * r2 * h / 2 + curl_y * ((u - spine) ** 2 - 0.5)
        return sx, sy

    return to_source


def _invert_points(to_source, points_xy: np.ndarray) -> np.ndarray:
    """Points q with to_source(q) == p, by fixed-point iteration (the map is near the identity)."""
    p = points_xy.astype(np.float64)
    q = p.copy()
    for _ in range(100):
        sx, sy = to_source(q[:, 0], q[:, 1])
        err = np.c_[sx, sy] - p
        q -= err
        if np.abs(err).max() < 1e-6:
            break
    return q


def _photograph_points(image: np.ndarray, points_xy: np.ndarray, rng: np.random.Generator, level: str,
                       on_page: bool = True, fold: bool = False):
    """``photograph`` for any set of tracked points (several grids' corners on one page; a fold
    crosses the first grid)."""
    if level not in ("clean", "photo", "hard", "light"):
        raise ValueError(f"level: expected 'clean', 'photo', 'hard' or 'light', got {level!r}")
    points_xy = np.asarray(points_xy, np.float32).reshape(-1, 2)
    if fold and level == "clean":
        image = fold_crease(image, points_xy[:4], rng)
    conditions: set[str] = set()
    if level == "light":
        picks = rng.choice(len(LIGHT_CONDITIONS), size=1 if rng.random() < 0.6 else 2, replace=False)
        conditions = {LIGHT_CONDITIONS[i] for i in picks}
        log.debug("light conditions: %s", sorted(conditions))
        if "dark_desk" in conditions:
            on_page = False  # the grid's own margin meets the desk
    if level == "clean":
        image, points_xy = _resize(image, points_xy, rng.uniform(0.75, 1.3))
        if rng.random() < 0.3:  # scanned a little askew
            h, w = image.shape[:2]
            m = cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(-1.5, 1.5), 1.0)
            paper = tuple(int(v) for v in image[0, 0])
            image = cv2.warpAffine(image, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=paper)
            points_xy = (points_xy @ m[:, :2].T + m[:, 2]).astype(np.float32)
        image, points_xy = _fit_size(image, points_xy)
        sigma = rng.uniform(0, 0.7)
        if sigma > 0.2:
            image = cv2.GaussianBlur(image, (0, 0), sigma)
        return _jpeg(image, rng.integers(70, 96)), points_xy

    hard = level == "hard"
    if on_page:
        image, points_xy = _onto_page(image, points_xy, rng)
    if fold:
        image = fold_crease(image, points_xy[:4], rng)
    if "show_through" in conditions:
        image = _show_through(image, rng)
    h, w = image.shape[:2]
    page_quad = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    H = _camera_homography(rng, page_quad, 30 if hard else 15, 28 if hard else 14)
    curled = hard or "bow" in conditions
    to_source = _curl_map(rng, w, h, 0.05 if hard else rng.uniform(0.06, 0.1)) if curled else None
    grid_pts = _invert_points(to_source, points_xy) if curled else points_xy.astype(np.float64)
    proj_grid = cv2.perspectiveTransform(grid_pts.reshape(-1, 1, 2), H).reshape(-1, 2)
    proj_page = cv2.perspectiveTransform(page_quad.reshape(-1, 1, 2).astype(np.float64), H).reshape(-1, 2)
    # frame the shot: the page plus some desk, cropped where needed but never cutting the grid
    lo, hi = proj_page.min(0), proj_page.max(0)
    extent = hi - lo
    lo = lo - extent * rng.uniform(-0.1, 0.15, 2)
    hi = hi + extent * rng.uniform(-0.1, 0.15, 2)
    g_lo, g_hi = proj_grid.min(0), proj_grid.max(0)
    pad = (g_hi - g_lo).max() * 0.04
    lo, hi = np.minimum(lo, g_lo - pad), np.maximum(hi, g_hi + pad)
    target = rng.uniform(450, 1000) if hard else rng.uniform(800, 1800)
    scale = target / (hi - lo).max()
    min_grid = 200 if hard else 300  # keep cells legible
    scale = max(scale, min_grid / (g_hi - g_lo).min())
    scale = min(scale, 2400 / (hi - lo).max())
    out_w, out_h = int(math.ceil((hi - lo)[0] * scale)), int(math.ceil((hi - lo)[1] * scale))
    S = np.array([[scale, 0, -lo[0] * scale], [0, scale, -lo[1] * scale], [0, 0, 1]])
    M = S @ H  # page (after curl) -> output
    # pre-shrink the page so the warp does not alias thin lines
    centre = np.array([[[w / 2, h / 2]]], np.float64)
    j = [cv2.perspectiveTransform(centre + d, M)[0, 0] for d in ([0, 0], [1, 0], [0, 1])]
    (ax, ay), (bx, by) = j[1] - j[0], j[2] - j[0]
    local = math.sqrt(abs(ax * by - ay * bx))  # linear scale of the warp at the page centre
    if local < 0.7:
        f = local * 1.2
        small, _ = _resize(image, points_xy, f)
        fx, fy = small.shape[1] / w, small.shape[0] / h
        # page coords p map to small coords (p + .5) * f - .5
        A = np.array([[fx, 0, 0.5 * fx - 0.5], [0, fy, 0.5 * fy - 0.5], [0, 0, 1]])
        A_inv = np.linalg.inv(A)
    else:
        small, A_inv = image, np.eye(3)
        fx = fy = 1.0
    M_inv = np.linalg.inv(M)
    desk = _desk(rng, (out_h, out_w), dark="dark_desk" in conditions)
    if curled:
        yy, xx = np.mgrid[0:out_h, 0:out_w].astype(np.float32)
        den = M_inv[2, 0] * xx + M_inv[2, 1] * yy + M_inv[2, 2]
        qx = (M_inv[0, 0] * xx + M_inv[0, 1] * yy + M_inv[0, 2]) / den
        qy = (M_inv[1, 0] * xx + M_inv[1, 1] * yy + M_inv[1, 2]) / den
        sx, sy = to_source(qx, qy)
        map_x = (sx + 0.5) * fx - 0.5
        map_y = (sy + 0.5) * fy - 0.5
        warped = cv2.remap(small, map_x.astype(np.float32), map_y.astype(np.float32), cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
        inside = ((sx >= 0) & (sx <= w - 1) & (sy >= 0) & (sy <= h - 1)).astype(np.uint8)
    else:
        Ms = M @ A_inv
        warped = cv2.warpPerspective(small, Ms, (out_w, out_h), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
        inside = cv2.warpPerspective(np.ones(small.shape[:2], np.uint8), Ms, (out_w, out_h),
                                     flags=cv2.INTER_NEAREST)
    image = cv2.copyTo(warped, inside, desk)
    points_xy = cv2.perspectiveTransform(grid_pts.reshape(-1, 1, 2), M).reshape(-1, 2).astype(np.float32)
    if hard and rng.random() < 0.5:  # a low-resolution camera, scaled back up by the phone
        f = rng.uniform(0.5, 0.8)
        small_img, small_pts = _resize(image, points_xy, f)
        image, points_xy = _resize(small_img, small_pts, image.shape[1] / small_img.shape[1],
                                   image.shape[0] / small_img.shape[0])
    image, points_xy = _fit_size(image, points_xy)
    sigma = rng.uniform(0.8, 1.8) if hard else rng.uniform(0.2, 1.0)
    image = cv2.GaussianBlur(image, (0, 0), sigma)
    steep = "soft_gradient" in conditions
    gain = _lighting_gain(rng, image.shape, rng.uniform(0.2, 0.6) if hard else
                          rng.uniform(0.7, 1.1) if steep else rng.uniform(0.1, 0.4))
    if (hard and rng.random() < 0.7) or (steep and rng.random() < 0.5):
        gain = gain * _shadow_gain(rng, image.shape)
    if "hard_shadow" in conditions:
        shadow = _hard_shadow(rng, image.shape, points_xy)
        image = np.clip(image.astype(np.float32) * shadow[..., None], 0, 255).astype(np.uint8)
    image = _light_and_noise(image, rng, gain, rng.uniform(3, 9) if hard else rng.uniform(1, 5))
    return _jpeg(image, rng.integers(30, 71) if hard else rng.integers(50, 91)), points_xy


def photograph(image: np.ndarray, corners_xy: np.ndarray, rng: np.random.Generator,
               level: Level, *, fold: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Turn a flat render into a scan or a photo, tracking the grid corners exactly.

    Parameters
    ----------
    image : (H, W, 3) uint8 ndarray, BGR
    corners_xy : (4, 2) float array, TL TR BR BL
    rng : numpy Generator
    level : {"clean", "photo", "hard"}
        ``clean``: flat scan, slight blur, JPEG. ``photo``: printed page with text around the grid
        on a desk, camera rotation up to 15 degrees and tilt, lighting gradient, noise, JPEG.
        ``hard``: rotation up to 30 degrees, stronger tilt, mild page curl and barrel distortion,
        shadow, lower resolution, blur. ``light``: a photo with one or two of
        ``LIGHT_CONDITIONS``: a sharp-edged shadow of a hand or phone over part of the grid, a steep
        soft gradient, the reverse page showing through, a dark desk right beside the grid's
        margin, a page bowed enough that the far rows drift.
    fold : bool
        The page folded once across the grid and flattened again before the shot (see
        ``fold_crease``).

    Returns
    -------
    image : uint8 BGR ndarray, longest side 300..2500
    corners_xy : (4, 2) float32 ndarray
    """
    out, pts = _photograph_points(image, corners_xy, rng, level, fold=fold)
    return out, pts.reshape(4, 2)


# --------------------------------------------------------------------------------------------
# Pages


def render_page(puzzles: Sequence[Puzzle], styles: Sequence[Style], rng: np.random.Generator, *,
                level: Level | None = None,
                titles: Sequence[str | None] | None = None) -> tuple[np.ndarray, list[np.ndarray]]:
    """A puzzle-book page holding 2-4 puzzles in a grid, with titles and text.

    Each style's ``cell_px`` is replaced to fit its slot; the page takes the first style's paper.
    ``level`` photographs the page (see ``photograph``); None leaves it flat. ``titles`` names
    some grids (say "Solution to No. 12"); a grid whose title is None or missing gets a random
    puzzle number.

    Returns
    -------
    image : uint8 BGR ndarray
    corners : list of (4, 2) float32 ndarrays, one per puzzle, TL TR BR BL
    """
    if not 1 <= len(puzzles) <= 6 or len(styles) != len(puzzles):
        raise ValueError("puzzles, styles: need 1..6 puzzles and one style per puzzle")
    n = len(puzzles)
    cols = 1 if n == 1 else (2 if n > 2 or rng.random() < 0.3 else 1)
    rows = int(math.ceil(n / cols))
    page_w = int(rng.integers(1000, 1700))
    # a portrait book page, or a half page cut from a magazine when two puzzles sit side by side
    page_h = int(page_w * (rng.uniform(1.3, 1.45) if rows > 1 else rng.uniform(0.75, 0.95)))
    paper = styles[0].paper
    page = Image.new("RGB", (page_w, page_h), paper)
    draw = ImageDraw.Draw(page)
    printed, _ = available_fonts()
    title_font = _font(printed[rng.integers(len(printed))], int(page_w * rng.uniform(0.02, 0.032)))
    text_font = _font(printed[rng.integers(len(printed))], int(page_w * rng.uniform(0.011, 0.016)))
    margin = int(page_w * rng.uniform(0.05, 0.09))
    header = int(title_font.size * 2.2)
    draw.text((margin, margin // 2), rng.choice(["KAKURO", "Cross Sums", "Kakuro Puzzles", "Number Cross"]),
              font=_font(title_font.path, int(title_font.size * 1.3)), fill=(0, 0, 0))
    footer = int(text_font.size * 6)
    slot_w = (page_w - 2 * margin) / cols
    slot_h = (page_h - margin - header - footer) / rows
    first_no = int(rng.integers(1, 300))
    out = np.asarray(page)[:, :, ::-1].copy()
    _draw_text_block(out, rng, (margin, page_h - footer, page_w - margin, page_h - margin // 2),
                     text_font.path, text_font.size, (30, 30, 30))
    placed = []
    for k, (puzzle, style) in enumerate(zip(puzzles, styles)):
        r, c = divmod(k, cols)
        sx, sy = margin + c * slot_w, margin + header + r * slot_h
        label_h = int(title_font.size * 1.6)
        cell = int(min(slot_w * 0.88 / puzzle.n_cols, (slot_h - label_h) * 0.88 / puzzle.n_rows))
        cell = max(12, min(130, cell))
        st = dataclasses.replace(style, cell_px=cell, paper=paper, margin_px=max(int(math.ceil(style.outer_px)) + 2, 4))
        flat, corners = render_puzzle(puzzle, st, rng=rng)
        fh, fw = flat.shape[:2]
        ox = int(sx + (slot_w - fw) / 2)
        oy = int(sy + label_h + max(0, (slot_h - label_h - fh) / 2 * rng.uniform(0, 1)))
        fh, fw = min(fh, page_h - oy), min(fw, page_w - ox)
        out[oy:oy + fh, ox:ox + fw] = flat[:fh, :fw]
        placed.append((corners + np.array([ox, oy], np.float32), (ox, oy - label_h)))
    page = Image.fromarray(out[:, :, ::-1])
    draw = ImageDraw.Draw(page)
    for k, (_, (lx, ly)) in enumerate(placed):
        if titles is not None and k < len(titles) and titles[k] is not None:
            draw.text((lx, ly), titles[k], font=title_font, fill=(0, 0, 0))
            continue
        label = rng.choice(["Puzzle {}", "No. {}", "Kakuro {}", "#{}"]).format(first_no + k)
        if rng.random() < 0.4:
            label += "  " + rng.choice(["Easy", "Medium", "Hard", "***", "Difficult"])
        draw.text((lx, ly), label, font=title_font, fill=(0, 0, 0))
    image = np.asarray(page)[:, :, ::-1].copy()
    corners = [p for p, _ in placed]
    if level is None:
        return image, corners
    pts = np.vstack(corners)
    image, pts = _photograph_points(image, pts, rng, level, on_page=False)
    return image, [pts[4 * k:4 * k + 4].copy() for k in range(n)]


# --------------------------------------------------------------------------------------------
# Samples


@dataclass(frozen=True, eq=False)
class SynthSample:
    """A synthetic image and its exact truth.

    ``values[k]`` is the digit fill of ``puzzles[k]`` (a solution), ``corners[k]`` its grid corners
    TL TR BR BL in image pixels. Handwritten pen digits, when drawn, are not in the puzzle.

    Samples drawn in a style family (``family``, see ``STYLE_FAMILIES``) may carry more:
    ``entries[k]`` holds the digits a player typed into ``puzzles[k]``'s white cells (some of
    them wrong), which are not givens and not in the puzzle; ``answer_keys`` holds the corners of
    each answer grid on the image, a grid that looks like a puzzle but is a solution and must not
    be read as one. Both are empty for the other tiers.
    """

    image: np.ndarray
    puzzles: tuple[Puzzle, ...]
    values: tuple[Mapping[Cell, int], ...]
    corners: tuple[np.ndarray, ...]
    tier: str
    seed: int
    family: str | None = None
    entries: tuple[Mapping[Cell, int], ...] = ()
    answer_keys: tuple[np.ndarray, ...] = ()


def _random_givens(rng, values: Mapping[Cell, int], fraction: float) -> dict[Cell, int]:
    cells = sorted(values)
    chosen = rng.choice(len(cells), size=max(1, int(len(cells) * fraction)), replace=False)
    return {cells[i]: values[cells[i]] for i in sorted(chosen)}


def _typed_entries(rng: np.random.Generator, puzzle: Puzzle, values: Mapping[Cell, int]) -> dict[Cell, int]:
    """A player's digits in 10-60% of the open white cells, 0-2 of them wrong."""
    cells = sorted(c for c in puzzle.whites if c not in puzzle.given_at)
    if not cells:
        return {}
    chosen = rng.choice(len(cells), size=max(1, int(len(cells) * rng.uniform(0.1, 0.6))), replace=False)
    entries = {cells[i]: int(values[cells[i]]) for i in sorted(chosen)}
    typed = sorted(entries)
    for i in rng.choice(len(typed), size=min(len(typed), int(rng.integers(0, 3))), replace=False):
        cell = typed[int(i)]
        entries[cell] = int(rng.choice([d for d in range(1, 10) if d != values[cell]]))
    return entries


def _pencil_marks(rng: np.random.Generator, puzzle: Puzzle, entries: Mapping[Cell, int]
                  ) -> tuple[dict[Cell, tuple[int, ...]], Cell | None]:
    """A player's notes: 1-5 candidate digits in 30-80% of the white cells left open; and the
    selected white cell, four times in five."""
    open_cells = sorted(c for c in puzzle.whites if c not in puzzle.given_at and c not in entries)
    notes: dict[Cell, tuple[int, ...]] = {}
    if open_cells:
        chosen = rng.choice(len(open_cells), size=int(len(open_cells) * rng.uniform(0.3, 0.8)), replace=False)
        for i in sorted(chosen):
            digits = rng.choice(9, size=int(rng.integers(1, 6)), replace=False) + 1
            notes[open_cells[int(i)]] = tuple(sorted(int(d) for d in digits))
    whites = sorted(puzzle.whites)
    cursor = whites[int(rng.integers(len(whites)))] if whites and rng.random() < 0.8 else None
    return notes, cursor


def _answer_style(rng: np.random.Generator, style: Style) -> Style:
    """The look of an answer grid: the page's look, its non-white cells dark or shaded and bare."""
    if _luma(style.block_fill) > 215:  # blocks as pale as paper would hide the layout
        shade = _jitter(rng, (20, 20, 20), 15) if rng.random() < 0.5 else _grey(rng, 150, 200)
        style = dataclasses.replace(style, block_fill=shade)
    return dataclasses.replace(style, given_frac=float(rng.uniform(0.45, 0.65)))


def render_family(rng: np.random.Generator, family: str, puzzles: Sequence[Puzzle],
                  values: Sequence[Mapping[Cell, int]], *, cell_px: int | None = None,
                  level: Level | None = None) -> tuple[np.ndarray, list[np.ndarray], list[dict[Cell, int]],
                                                       list[np.ndarray]]:
    """Draw puzzles in one style family (see ``style_of_family``), flat or photographed.

    ``typed_entries`` types a player's digits into 10-60% of the white cells, 0-2 of them wrong;
    ``app_notes`` does too, pencils 1-5 candidates into 30-80% of the white cells left, and
    (four times in five) selects a white cell. ``zero_cells`` types digits half the time and
    draws a "0" in every other white cell.
    ``answer_key`` prints a book page (``render_page``) holding the puzzles and, after them or
    first, an answer grid: ``puzzles[0]``'s layout with its solution in every white cell and no
    clue numbers. Every other family draws one puzzle alone. The puzzles themselves are drawn as
    given: neither typed digits nor the answer grid make them givens.

    Parameters
    ----------
    rng : numpy Generator
    family : str
        One of ``STYLE_FAMILIES``.
    puzzles, values : sequences
        The puzzles and a solution of each: one, or one or two for ``answer_key``.
    cell_px : int, optional
        Cell size of a lone puzzle; random when omitted (a page sizes its own cells).
    level : {"clean", "photo", "hard", "light"}, optional
        Photograph the render (see ``photograph``); None leaves it flat.

    Returns
    -------
    image : uint8 BGR ndarray
    corners : list of (4, 2) float32 ndarrays, one per puzzle, TL TR BR BL
    entries : list of dicts, one per puzzle: the typed digits (empty but for ``typed_entries``, ``app_notes`` and
        half of ``zero_cells``; a "0" is no entry)
    answer_keys : list of (4, 2) float32 ndarrays: the answer grid's corners (``answer_key`` only)
    """
    if family == "answer_key":
        if not 1 <= len(puzzles) <= 2 or len(values) != len(puzzles):
            raise ValueError("puzzles, values: answer_key needs one or two puzzles, each with values")
        style = style_of_family(rng, family)
        first = puzzles[0]
        answer = Puzzle(first.n_rows, first.n_cols, first.whites, (),
                        tuple((cell, int(values[0][cell])) for cell in sorted(first.whites)))
        key_at = len(puzzles) if rng.random() < 0.7 else 0  # answers usually follow the puzzles
        grids = list(puzzles)
        grids.insert(key_at, answer)
        titles: list[str | None] = [None] * len(grids)
        titles[key_at] = str(rng.choice(["Solution", "Answer", "Last week's solution", "Solution to No. {}",
                                         "Answers"])).format(int(rng.integers(1, 300)))
        styles = [style] * len(grids)
        styles[key_at] = _answer_style(rng, style)
        image, corners = render_page(grids, styles, rng, level=level, titles=titles)
        key = corners.pop(key_at)
        return image, corners, [{} for _ in puzzles], [key]
    if len(puzzles) != 1 or len(values) != 1:
        raise ValueError(f"puzzles, values: {family} draws one puzzle, got {len(puzzles)}")
    if family == "phone_screen":
        board = _SCREEN_FAMILIES[int(rng.integers(len(_SCREEN_FAMILIES)))]
        image, corners, entries, _ = render_family(rng, board, puzzles, values, cell_px=cell_px)
        image, corner = _phone_screen(rng, image, corners[0])
        if level is not None:
            image, corner = photograph(image, corner, rng, level)
        return image, [corner], entries, []
    style = style_of_family(rng, family, cell_px)
    typed = family in ("typed_entries", "app_notes") or (family == "zero_cells" and rng.random() < 0.5)
    entries = _typed_entries(rng, puzzles[0], values[0]) if typed else {}
    notes, cursor = (_pencil_marks(rng, puzzles[0], entries) if family == "app_notes" else ({}, None))
    # An empty cell drawn as "0" is no entry: it is not among the typed digits returned.
    zeros = ({cell: 0 for cell in puzzles[0].whites if cell not in entries and cell not in puzzles[0].given_at}
             if family == "zero_cells" else {})
    image, corners = render_puzzle(puzzles[0], style, entries={**entries, **zeros}, notes=notes, cursor=cursor,
                                   rng=rng)
    if family == "newsprint_dots":
        # A newspaper's screen (85-133 lines an inch) is 14-26 to a cell of 6-8 mm; finer than
        # 2.5 pixels it is no longer dots but grey.
        image = halftone(image, rng, paper=style.paper, period=max(2.5, style.cell_px / rng.uniform(14, 26)))
    if level is not None:
        image, corners = photograph(image, corners, rng, level)
    return image, [corners], [entries], []


#: A newspaper's inks as the share of red, green and blue light each lets through (cyan,
#: magenta, yellow, black), and the angles of their screens (degrees, before the page's own turn).
_INKS = {"c": ((0.12, 0.65, 0.95), 15.0), "m": ((0.95, 0.15, 0.55), 75.0), "y": ((0.98, 0.93, 0.10), 0.0),
         "k": ((0.08, 0.08, 0.08), 45.0)}


#: Black ink cover above which a newspaper's print is solid (type, rules, black cells).
_SOLID_BLACK = 0.75


def halftone(image: np.ndarray, rng: np.random.Generator, *, paper: Sequence[int] = (255, 255, 255),
             period: float | None = None) -> np.ndarray:
    """``image`` (BGR) printed as a newspaper prints it: every tone as dots of cyan, magenta,
    yellow and black ink, each ink on a screen of ``period`` pixels (3 to 6 when None) at its own
    angle, grey taken into the black ink (so greys print as black dots alone). Near-black prints
    solid black (type is not screened); the paper (RGB ``paper``) stays bare."""
    h, w = image.shape[:2]
    period = float(rng.uniform(3.0, 6.0)) if period is None else float(period)
    turn = float(rng.uniform(0.0, 90.0))
    rgb = image[..., ::-1].astype(np.float32) / np.maximum(np.asarray(paper, np.float32), 1.0)
    cmy = np.clip(1.0 - rgb, 0.0, 1.0)
    k = cmy.min(axis=2)
    # Type and rules are set in solid black, not screened: near-black prints solid.
    k = np.where(k > _SOLID_BLACK, 1.0, k)
    cover = {"c": cmy[..., 0] - k, "m": cmy[..., 1] - k, "y": cmy[..., 2] - k, "k": k}
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    light = np.ones((h, w, 3), np.float32)
    for name, (passes, angle) in _INKS.items():
        a = math.radians(angle + turn)
        u = (xx * math.cos(a) + yy * math.sin(a)) * (2 * math.pi / period)
        v = (yy * math.cos(a) - xx * math.sin(a)) * (2 * math.pi / period)
        # A dot grows from each screen cell's centre as the ink's cover rises (round dots, then
        # a chequer at half cover, then paper holes).
        dot = cover[name] > (np.cos(u) + np.cos(v)) / 4 + 0.5
        light[dot] *= np.asarray(passes, np.float32)
    out = light * np.asarray(paper, np.float32)
    return np.clip(out[..., ::-1] + 0.5, 0, 255).astype(np.uint8)


def _phone_screen(rng: np.random.Generator, board: np.ndarray, corners: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``board`` (an app's render, its paper the app's background) inside a phone's screenshot:
    a status bar (time, battery), a title and a level with a timer above it, a number pad of the
    digits 1 to 9 (one row of nine, three rows of three, or rows of five and four) in buttons
    below it, and the tools' names at the bottom. Returns the screen and the grid's corners."""
    bh, bw = board.shape[:2]
    bg = tuple(int(v) for v in board[1, 1])  # BGR
    dark = sum(bg) < 3 * 128
    fg = (235, 235, 235) if dark else (30, 30, 30)
    button = tuple(int(np.clip(v + (40 if dark else -25), 0, 255)) for v in bg[::-1])
    width = bw
    unit = max(24, width // 12)  # a button's side and the text's size scale with the screen
    sans = [p for p in _upright(available_fonts()[0]) if "Sans" in Path(p).name] or _upright(available_fonts()[0])
    text_font = _font(sans[int(rng.integers(len(sans)))], unit // 2)
    title_font = _font(sans[int(rng.integers(len(sans)))], unit)
    pad_font = _font(sans[int(rng.integers(len(sans)))], int(unit * rng.uniform(0.6, 0.9)))
    layout = str(rng.choice(["row", "square", "two_rows"]))
    rows = {"row": [range(1, 10)], "square": [range(1, 4), range(4, 7), range(7, 10)],
            "two_rows": [range(1, 6), range(6, 10)]}[layout]
    key_h = int(unit * (1.4 if layout == "row" else 1.2))
    top = int(unit * 4.5)
    pad_top = top + bh + unit
    height = max(int(width * rng.uniform(1.8, 2.2)), pad_top + len(rows) * (key_h + unit // 4) + 3 * unit)
    screen = Image.new("RGB", (width, height), bg[::-1])
    draw = ImageDraw.Draw(screen)
    margin = unit // 2
    draw.text((margin, unit // 4), f"{int(rng.integers(6, 23))}:{int(rng.integers(0, 60)):02d}", font=text_font,
              fill=fg)
    draw.rectangle((width - margin - unit * 1.5, unit // 4, width - margin, unit // 4 + unit // 2), outline=fg,
                   width=max(1, unit // 12))
    draw.text((margin, int(unit * 1.3)), str(rng.choice(["Kakuro", "Cross Sums", "Kakuro Classic", "Kakuro 12x12"])),
              font=title_font, fill=fg)
    draw.text((margin, int(unit * 2.8)), f"{rng.choice(['Easy', 'Medium', 'Hard', 'Expert'])}    "
              f"{int(rng.integers(0, 60)):02d}:{int(rng.integers(0, 60)):02d}", font=text_font, fill=fg)
    for i, keys in enumerate(rows):
        n = len(keys)
        pitch = (width - 2 * margin) / max(n, 5 if layout == "two_rows" else n)
        for j, digit in enumerate(keys):
            x0 = margin + j * pitch + pitch * 0.06
            y0 = pad_top + i * (key_h + unit // 4)
            draw.rounded_rectangle((x0, y0, x0 + pitch * 0.88, y0 + key_h), radius=unit // 4, fill=button)
            draw.text((x0 + pitch * 0.44, y0 + key_h / 2), str(digit), font=pad_font, fill=fg, anchor="mm")
    for i, tool in enumerate(rng.permutation(["Undo", "Erase", "Notes", "Hint"])):
        draw.text((margin + i * (width - 2 * margin) / 4, height - int(unit * 1.5)), str(tool), font=text_font, fill=fg)
    out = np.array(screen)[:, :, ::-1].copy()
    out[top:top + bh, :bw] = board
    return out, (corners + np.array([0.0, top], np.float32)).astype(np.float32)


def make_sample(seed: int, tier: str) -> SynthSample:
    """One synthetic sample, the same for the same ``seed`` and ``tier``.

    Tiers: ``clean`` (flat render, scan-like), ``photo`` (phone photo of a printed page), ``hard``
    (curl, shadow, strong tilt, low resolution), ``page`` (a book page of 2-4 puzzles, flat or
    photographed), ``light`` (a phone photo in adverse light: see ``photograph``), ``styles`` (a
    random style family, see ``style_of_family``, scanned or photographed); ``style:FAMILY``
    draws that family only. Puzzles are 5x5..15x15 (6x6..10x10 on pages). About 15% carry
    printed givens (never beside typed entries or an answer key); about 15% of photos in the
    first five tiers carry handwritten digits, which are not part of the puzzle.
    """
    family = tier[len("style:"):] if tier.startswith("style:") else None
    if tier not in TIERS and family not in STYLE_FAMILIES:
        raise ValueError(f"tier: expected one of {TIERS} or style:FAMILY with FAMILY one of "
                         f"{STYLE_FAMILIES}, got {tier!r}")
    # a family tier seeds apart from TIERS, whose indices must not move (old samples stay as they were)
    index = TIERS.index(tier) if family is None else 100 + STYLE_FAMILIES.index(family)
    rng = np.random.default_rng([int(seed), index])
    if tier == "styles" or family is not None:
        return _family_sample(rng, seed, tier, family)
    if tier == "page":
        n = int(rng.integers(2, 5))
        puzzles, values = [], []
        givens = rng.random() < 0.25
        for _ in range(n):
            size = int(rng.integers(6, 11))
            p, v = random_puzzle(rng, size, size if rng.random() < 0.7 else int(rng.integers(6, 11)))
            if givens:
                p = p.with_givens(_random_givens(rng, v, rng.uniform(0.03, 0.12)))
            puzzles.append(p)
            values.append(v)
        style = random_style(rng)
        styles = [style] + [style if rng.random() < 0.9 else random_style(rng) for _ in range(n - 1)]
        level = rng.choice([None, "clean", "photo", "hard"], p=[0.3, 0.2, 0.35, 0.15])
        image, corners = render_page(puzzles, styles, rng, level=None if level is None else str(level))
        return SynthSample(image, tuple(puzzles), tuple(values), tuple(corners), tier, seed)
    n_rows = int(rng.integers(5, 16))
    n_cols = n_rows if rng.random() < 0.6 else int(rng.integers(5, 16))
    puzzle, values = random_puzzle(rng, n_rows, n_cols)
    longest = max(n_rows, n_cols)
    cell = int(rng.integers(max(20, 280 // longest + 1), min(90, 2300 // longest) + 1))
    style = random_style(rng, cell)
    if rng.random() < 0.15:
        puzzle = puzzle.with_givens(_random_givens(rng, values, rng.uniform(0.03, 0.15)))
    pen = None
    if tier != "clean" and rng.random() < 0.15:
        pen = _random_givens(rng, values, rng.uniform(0.1, 0.9))
    image, corners = render_puzzle(puzzle, style, pen_values=pen, rng=rng)
    image, corners = photograph(image, corners, rng, tier)
    return SynthSample(image, (puzzle,), (values,), (corners,), tier, seed)


def _family_sample(rng: np.random.Generator, seed: int, tier: str, family: str | None) -> SynthSample:
    """``make_sample`` for ``styles`` (a random family) and ``style:FAMILY``."""
    if family is None:
        family = STYLE_FAMILIES[int(rng.integers(len(STYLE_FAMILIES)))]
    level = str(rng.choice(["clean", "photo"]))
    if family == "answer_key":
        pairs = []
        for _ in range(int(rng.integers(1, 3))):
            n_rows, n_cols = (int(v) for v in rng.integers(6, 11, 2))
            pairs.append(random_puzzle(rng, n_rows, n_cols))
        cell = None
    else:
        n_rows = int(rng.integers(5, 16))
        n_cols = n_rows if rng.random() < 0.6 else int(rng.integers(5, 16))
        pairs = [random_puzzle(rng, n_rows, n_cols)]
        longest = max(n_rows, n_cols)
        cell = int(rng.integers(max(20, 280 // longest + 1), min(90, 2300 // longest) + 1))
        if family != "typed_entries" and rng.random() < 0.15:
            puzzle, values = pairs[0]
            pairs = [(puzzle.with_givens(_random_givens(rng, values, rng.uniform(0.03, 0.15))), values)]
    puzzles, values = [p for p, _ in pairs], [v for _, v in pairs]
    image, corners, entries, keys = render_family(rng, family, puzzles, values, cell_px=cell, level=level)
    return SynthSample(image, tuple(puzzles), tuple(values), tuple(corners), tier, seed, family=family,
                       entries=tuple(entries), answer_keys=tuple(keys))
