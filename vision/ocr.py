"""Read the numbers printed in Kakuro clue cells (and given digits in white cells).

A clue cell is split by its top-left to bottom-right diagonal: the down sum sits in the lower-left
triangle, the across sum in the upper-right one. Each triangle is read on its own:

1. polarity is decided per half from that half's own background (white digits on black or grey,
   dark digits on white, blue or green), so ink always comes out as 255 on 0;
2. the diagonal and the cell borders are removed as lines (rows, columns or diagonals that are
   mostly ink), not by a fixed margin, so digits close to them survive;
3. connected pieces of ink are grouped into digits (left to right, one height band) and classified
   by the fast glyph classifier (``vision.glyphs``); touching digits are split when that reads
   better;
4. digit alternatives are combined into number alternatives (1..45, no leading zero).

Two readers implement the :class:`ClueReader` protocol: :class:`GlyphReader` (default, about a
millisecond a cell) and :class:`TesseractReader`, which puts many half-cells on one mosaic image,
one per line, and calls tesseract once. :func:`read_clues_two_readers` asks tesseract only about
the reads the glyph classifier is unsure of and merges the two opinions.
"""
from __future__ import annotations

import hashlib
import logging
import math
import os
import shutil
import subprocess
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Protocol, Sequence

import cv2
import numpy as np

from .colour import bgr_to_lab
from .errors import ClueReadError
from .glyphs import GlyphClassifier, default_classifier
from .histograms import percentile
from .templates import default_templates
from .types import NumberRead

__all__ = [
    "ClueReader",
    "read_given_digits",
    "GlyphReads",
    "read_clues_glyph",
    "GlyphReader",
    "TesseractReader",
    "split_clue_cell",
    "best_probability",
    "number_likeness",
    "digit_pieces",
    "ink_likeness",
    "segment_digits",
    "read_number",
    "read_clue_cell",
    "read_given",
    "read_givens",
    "read_clues_two_readers",
    "CLUE_MIN",
    "CLUE_MAX",
    "CELL_SIDE",
]

log = logging.getLogger(__name__)

CLUE_MIN, CLUE_MAX = 1, 45
#: Every cell is resampled to this side before reading; the fractions below are of it.
CELL_SIDE = 96

_S = CELL_SIDE
_EDGE = 0.03            # outermost strip always ignored (lattice error, anti-aliased border)
_EDGE_SEARCH = 0.16     # border lines are looked for this far into the cell
_DIAG_SEARCH = 0.14     # the diagonal line is looked for this far (in x - y) from the corner line
_LINE_RUN = 0.5         # a straight run of ink this long is a line: digits are shorter
_MIN_CONTRAST = 40.0    # grey levels between background and ink; less is an empty half
#: The same for a clue half, whose number the layout asks for and the puzzle's sums check: thin
#: light digits on a mid-grey tile (app themes) reach less, and a phantom here is caught later.
_MIN_CLUE_CONTRAST = 28.0
#: Where the layout asks for a number and a half looked empty: ink this faint counts, where it
#: stands this many times further from the paper than the grain does the other way (light thin
#: digits on a grainy mid-grey tile reach 26-28 levels, the grain 7).
_FAINT_CLUE_CONTRAST, _FAINT_CLEAR = 16.0, 3.0
_DIGIT_H = (0.09, 0.62)  # plausible digit height, fraction of the cell side
_MAX_GLYPHS = 2
_EDGE_STRIP = 0.07      # ink lying wholly this close to an edge is border, not digit
_MAX_DIGIT_ASPECT = 1.1  # width / height of the widest single printed digit, with margin
_LIKENESS_H = 24         # height numbers are scaled to before their ink is compared
_MIN_PAIR_ASPECT = 0.7   # two touching digits are at least this wide for their height ("11" narrow)
#: Two binarisations of every clue half, read and averaged: a low level keeps thin serif
#: hairlines, a high one keeps the counters of small blurred digits open (a "3" closes into an
#: "8" or a "2" at the low level); each fails where the other holds.
WEAK_LEVELS = (0.25, 0.45, 0.65)


# --------------------------------------------------------------------------------------------
# Geometry and polarity


def _to_gray(img: np.ndarray, name: str) -> np.ndarray:
    if not isinstance(img, np.ndarray) or img.ndim not in (2, 3) or min(img.shape[:2]) < 4:
        raise ValueError(f"{name}: expected an (M, N) or (M, N, 3) image of at least 4x4 pixels")
    if img.ndim == 3:
        if img.shape[2] == 4:
            img = cv2.cvtColor(img, cv2.COLOR_BGRA2GRAY)
        elif img.shape[2] == 3:
            img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        else:
            img = img[:, :, 0]
    img = img.astype(np.float32)
    if img.max() <= 1.0 and img.dtype != np.uint8:
        img = img * 255.0
    h, w = img.shape
    interp = cv2.INTER_AREA if min(h, w) > _S else cv2.INTER_CUBIC
    return cv2.resize(img, (_S, _S), interpolation=interp)


def _coords() -> tuple[np.ndarray, np.ndarray]:
    yy, xx = np.mgrid[0:_S, 0:_S]
    return yy.astype(np.float32) + 0.5, xx.astype(np.float32) + 0.5


_YY, _XX = _coords()
_D = (_XX - _YY) / _S                       # >0 upper-right (across), <0 lower-left (down)
_EDGE_PX = max(1, round(_EDGE * _S))
_INSIDE = np.zeros((_S, _S), bool)
_INSIDE[_EDGE_PX:-_EDGE_PX, _EDGE_PX:-_EDGE_PX] = True
_CORE = np.zeros((_S, _S), bool)             # away from borders: used to judge the background
_c = round(0.12 * _S)
_CORE[_c:-_c, _c:-_c] = True
# A band just inside the borders, clear of the lines themselves: digits are centred in their
# space, so this band is mostly background even when a bold number covers most of the core.
_RIM = np.zeros((_S, _S), bool)
_r0, _r1 = round(0.05 * _S), round(0.13 * _S)
_RIM[_r0:-_r0, _r0:-_r0] = True
_RIM[_r1:-_r1, _r1:-_r1] = False


#: The border band overrules the core's polarity only where its level covers at least this share
#: of the core too (a number covering much of the core). On app tiles with light digits, light
#: gaps in the band matched 0.01 to 0.3 of the core (rounded_app renders, seed 4): those above
#: this still take the gap for paper.
_RIM_CORE_SHARE = 0.2
#: Paper is the lightest or the darkest a half holds: a rim level further than this share of the
#: half's range from both ends is a third tone, not paper. The blurred edges of large light digits
#: reaching a dark tile's border measured 0.25-0.47 (rounded_app seeds 85, 86); paper round a
#: heavy number 0.02-0.21 (a dark-mode board read in negative, seed 86).
_RIM_AT_EXTREME = 0.23


def _ink_mask(gray: np.ndarray, region: np.ndarray, core: np.ndarray,
              rim: np.ndarray | None = None, weak_level: float = 0.25, *, flip: bool = False,
              min_contrast: float = _MIN_CONTRAST) -> np.ndarray:
    """Find the ink in ``region`` of ``gray`` on its own background, either polarity.

    Returns a uint8 map: 0 where there is no ink, else the pixel's ink strength (1..255, 255 at
    the darkest ink on a light ground, or the lightest on a dark one).

    The background level and the ink polarity come from ``core`` (the region without borders or
    the diagonal), so a dark diagonal in a cell with white digits does not flip the decision.
    ``flip`` takes the other reading of the same pixels: what that decision called ink is the
    background, and ink is on its far side.
    """
    return _ink_on_ground(_ink_ground(gray, core, rim, flip=flip, min_contrast=min_contrast), region, weak_level)


@dataclass(frozen=True, eq=False)
class _Ground:
    """What :func:`_ink_mask` learns of a cell before it looks for ink: its lightly blurred
    pixels, the paper's level, and the contrast of ink lighter and darker than it."""

    smooth: np.ndarray
    bg: float
    bright: float
    dark: float


def _ink_ground(gray: np.ndarray, core: np.ndarray, rim: np.ndarray | None = None, *, flip: bool = False,
                min_contrast: float = _MIN_CONTRAST, faint: bool = False) -> _Ground | None:
    """The paper and the ink's polarity of :func:`_ink_mask` (None: no ink stands out), the
    same at every weak level, so that the levels share it. ``faint``: ink under ``min_contrast``
    counts too, down to ``_FAINT_CLUE_CONTRAST``, where it stands ``_FAINT_CLEAR`` times further
    from the paper one way than the paper's grain reaches the other."""
    vals = gray[core]
    if vals.size < 20:
        return None
    # A light blur averages out hatching and paper grain but keeps digit strokes.
    smooth = cv2.GaussianBlur(gray, (0, 0), 0.8)
    sv = smooth[core]
    bg = _paper_level(sv)
    lo, hi = (float(v) for v in percentile(sv, (0.3, 99.7)))
    bright, dark = hi - bg, bg - lo
    if rim is not None and np.count_nonzero(rim) >= 20:
        # A heavy number can cover over half of a small core, so that its median is ink and the
        # polarity comes out reversed; the band along the borders then says which is paper.
        # Only the polarity is taken from it: the core's level keeps thresholds off line halos.
        # Its upper values, not its median: thick grid lines (always dark) can cover half the
        # band of a light cell, while a black cell's white digits reach little of it.
        # But the rim can be wrong too: light gaps between an app's rounded tiles fill the band
        # of a green tile with light digits. A number covers much of the core only where the
        # rim's level is common there as well, so the rim decides only then. And only where it
        # lies at an end of the half's tones, as paper does: an app's dark tile whose large light
        # digits reach its border fills the band with their blurred edges, a tone between.
        rim_bg = float(percentile(smooth[rim], 70))
        if ((hi - rim_bg > rim_bg - lo) != (bright > dark) and abs(rim_bg - bg) > _MIN_CONTRAST
                and np.mean(np.abs(sv - rim_bg) < 0.25 * abs(rim_bg - bg)) >= _RIM_CORE_SHARE
                and min(hi - rim_bg, rim_bg - lo) <= _RIM_AT_EXTREME * (hi - lo)):
            bg = rim_bg
            bright, dark = hi - bg, bg - lo
    contrast = max(bright, dark)
    if contrast < min_contrast and not (faint and contrast >= _FAINT_CLUE_CONTRAST
                                        and contrast >= _FAINT_CLEAR * min(bright, dark)):
        return None
    if flip:
        called_ink = sv[sv > bg + 0.5 * bright] if bright > dark else sv[sv < bg - 0.5 * dark]
        if called_ink.size < 20:
            return None
        bg = float(np.median(called_ink))
        bright, dark = (0.0, bg - lo) if bright > dark else (hi - bg, 0.0)
        if max(bright, dark) < min_contrast:
            return None
    return _Ground(smooth, bg, bright, dark)


def _ink_on_ground(ground: _Ground | None, region: np.ndarray, weak_level: float) -> np.ndarray:
    """:func:`_ink_mask` at one weak level, from the cell's ground."""
    if ground is None:
        return np.zeros(region.shape, np.uint8)
    smooth, bg, bright, dark = ground.smooth, ground.bg, ground.bright, ground.dark
    # Hysteresis: strokes must reach half the contrast somewhere, but hairlines of thin serif
    # fonts (fainter once downsampled) stay attached to them down to ``weak_level``.
    if bright > dark:
        strong, weak = smooth > bg + 0.5 * bright, smooth > bg + weak_level * bright
    else:
        strong, weak = smooth < bg - 0.5 * dark, smooth < bg - weak_level * dark
    weak &= region
    n, labels = cv2.connectedComponents(weak.astype(np.uint8), connectivity=8)
    seeded = np.zeros(n, bool)
    seeded[labels[strong & weak]] = True
    seeded[0] = False
    # How much ink each pixel holds, not only whether it is ink: where bold print has run the
    # gaps of a "3" or a "6" shut, they stay paler than the strokes, and that tells them from "8".
    strength = (smooth - bg) / bright if bright > dark else (bg - smooth) / dark
    return np.where(seeded[labels], np.clip(np.rint(255.0 * strength), 1, 255), 0).astype(np.uint8)


def _paper_level(values: np.ndarray) -> float:
    # The commonest level, not the median: a two-digit number can cover nearly half of its
    # triangle, and the median then lies on the strokes' blurred edges.
    hist = np.bincount(np.clip(np.rint(values), 0, 255).astype(np.int64), minlength=256).astype(np.float32)
    hist = cv2.GaussianBlur(hist[None, :], (0, 0), 3.0).ravel()
    return float(np.argmax(hist))


_K = (np.rint(_XX - _YY)).astype(np.int64)  # diagonal offset of each pixel, x - y
_ALONG = (np.rint(_XX + _YY - 1)).astype(np.int64)  # place along the diagonal, x + y (by index)


#: Gaps of a dotted diagonal closed (a tenth of the side each way, 14% of it along the line).
_DOT_GAP = np.eye(round(0.1 * _S), dtype=np.uint8)


def _remove_lines(ink: np.ndarray, region: np.ndarray, *, diagonal: bool = True, run_share: float = _LINE_RUN,
                  reach_share: float = _EDGE_SEARCH, lines_only: bool = False) -> np.ndarray:
    """Clear border lines near the edges and the diagonal: long straight runs of ink (``run_share``
    of the side at least, within ``reach_share`` of an edge).

    Only the pixels of a line go, not whole rows: a digit printed against a border or touching
    the diagonal loses the few pixels it shares with the line and keeps its shape. Runs are
    measured on ink thickened across the line direction, so a line tilted by a degree or two
    (a slightly wrong lattice) is still one run. ``lines_only``: the lines' pixels (bool), not
    the ink without them.
    """
    tol = 2
    u8 = ((ink > 0) & region).astype(np.uint8)
    run = round(run_share * _S)
    reach = round(reach_share * _S)
    near_edge = np.zeros(_S, bool)
    near_edge[:reach] = near_edge[_S - reach:] = True
    thick_v = cv2.dilate(u8, np.ones((2 * tol + 1, 1), np.uint8))
    thick_h = cv2.dilate(u8, np.ones((1, 2 * tol + 1), np.uint8))
    line_h = cv2.morphologyEx(thick_v, cv2.MORPH_OPEN, np.ones((1, run), np.uint8)) > 0
    line_v = cv2.morphologyEx(thick_h, cv2.MORPH_OPEN, np.ones((run, 1), np.uint8)) > 0
    line = (line_h & near_edge[:, None]) | (line_v & near_edge[None, :])
    if diagonal:
        thick = cv2.dilate(u8, np.ones((3, 3), np.uint8))
        band = np.abs(_K) <= round(_DIAG_SEARCH * _S)
        line_d = (cv2.morphologyEx(thick, cv2.MORPH_OPEN, np.eye(run, dtype=np.uint8)) > 0) & band
        if not line_d.any():
            # A dotted or dashed diagonal is a line too: its gaps closed along it first (a digit
            # touching one of its dots was read with the dot, a "45" as "4"). Only where no solid
            # one is there: closed, a digit's stroke beside a solid line joins it and is cut.
            closed = cv2.morphologyEx(thick, cv2.MORPH_CLOSE, _DOT_GAP)
            line_d = (cv2.morphologyEx(closed, cv2.MORPH_OPEN, np.eye(run, dtype=np.uint8)) > 0) & band
        line |= line_d
    # The opened masks are the thickened lines; a pixel more covers their anti-aliased rims.
    line = cv2.dilate(line.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    return line if lines_only else np.where(line, 0, ink).astype(ink.dtype)


def split_clue_cell(cell_gray: np.ndarray, *, weak_level: float = WEAK_LEVELS[0], flip: bool = False
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Ink masks of the two triangles of a clue cell.

    Parameters
    ----------
    cell_gray : (M, N) or (M, N, 3) ndarray
        One clue cell cut from the rectified grid (a little of the grid lines may be included).
    weak_level : float
        Share of the ink contrast down to which a stroke is followed (lower keeps faint
        hairlines, higher keeps the gaps of a blurred "3" or "8" open).
    flip : bool
        Take each half's paper and ink the other way round from what its pixels suggest (for
        a half that read as no digit at all: a heavy number can cover most of its triangle).

    Returns
    -------
    down_half, across_half : (96, 96) uint8 ndarray
        The ink of the lower-left (down) and upper-right (across) triangles, whatever the
        cell's colours, with the diagonal and the cell borders removed: 0 where there is none,
        else its strength (1..255).
    """
    return _split_levels(cell_gray, (weak_level,), flip)[0]


def _split_levels(cell_gray: np.ndarray, levels: Sequence[float], flip: bool = False, *, faint: bool = False
                  ) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """:func:`split_clue_cell` at each weak level of ``levels``: each half's paper is found once.
    ``faint``: ink as faint as ``_FAINT_CLUE_CONTRAST`` counts where it stands clear of the
    half's noise (see :func:`read_faint_numbers`). The maps are read-only."""
    return _SPLIT_MEMO.get((cell_gray,), (tuple(levels), flip, faint),
                           lambda: _split_at_levels(cell_gray, levels, flip, faint))


def _split_at_levels(cell_gray: np.ndarray, levels: Sequence[float], flip: bool, faint: bool
                     ) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    gray = _to_gray(cell_gray, "cell_gray")
    per_side = []
    for sign in (-1, 1):
        region = _INSIDE & (sign * _D > 0)
        ground = _ink_ground(gray, _CORE & (sign * _D > 0.14), _RIM & (sign * _D > 0.14), flip=flip,
                             min_contrast=_MIN_CLUE_CONTRAST, faint=faint)
        # The lines are looked for over the band past the diagonal too: split down its middle
        # (or, with the lattice a pixel off, mostly on one side), the part of the diagonal left
        # in a half is too short to pass for a line, and joined to a digit that touches it, it
        # makes the digit a tall stroke read as none ("35" read as "3"). The half's ink is
        # followed (hysteresis) within the half alone: past it, the other half's strokes and
        # the tiles' rims would join faint specks to them.
        search = _INSIDE & (sign * _D > -_DIAG_SEARCH)
        gap = _gap_round_the_tile(ground)
        if gap is not None:
            search, region = search & ~gap, region & ~gap
        halves = []
        for level in levels:
            wide = _ink_on_ground(ground, search, level)
            lines = _remove_lines(wide, search, lines_only=True)
            half = _ink_on_ground(ground, region, level)
            halves.append((np.where(lines, 0, half).astype(np.uint8), wide, lines, region))
        per_side.append(halves)
    return tuple(_rejoin_digits_cut_by_the_diagonal(down, across) for down, across in zip(*per_side))


def _ink_on_the_line(wide: np.ndarray, lines: np.ndarray) -> tuple[np.ndarray, int]:
    """The ink the diagonal's clearing took that lies off the line itself (where a digit crosses
    or touches the line, its strokes there), and the line's half width in x - y (measured where
    nothing touches it: the commonest width along it)."""
    on = (wide > 0) & lines & (np.abs(_D) < _DIAG_SEARCH)
    if not on.any():
        return np.zeros(wide.shape, np.uint8), 0
    ys, xs = np.nonzero(on)
    centre = float(np.median(xs - ys))
    # Pixels on one anti-diagonal (x + y) of a diagonal line alternate in x - y, so each counts
    # half the line's width in x - y.
    width = np.bincount(xs + ys, minlength=2 * _S)
    typical = int(np.median(width[width > 0]))
    # Off the line, and only where the line is wider than it commonly is: elsewhere what lies
    # off its middle is its own blurred rim.
    touched = (width > typical + 1)[_ALONG]
    return np.where(on & touched & (np.abs(_K - centre) > typical + 1), wide, 0).astype(np.uint8), typical + 1


#: A digit's part past the diagonal lies within this of it (x - y, share of the side).
_CUT_NEAR = 0.1
#: The part past the line is at most this share of the digit piece's height (a digit of the other
#: half's own, even a "1", is about as tall as its neighbours) and of its ink.
_CUT_PART_H = 0.8
_CUT_PART_INK = 0.6
#: A half whose ink covers more than this share of its triangle is no clean print.
_CUT_CLEAN_HALF = 0.2
_HALF_AREA = _S * _S / 2
#: The median ink strength (of 255) of a crisp digit's piece.
_CUT_CRISP = 220


def _rejoin_digits_cut_by_the_diagonal(down: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
                                       across: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
                                       ) -> tuple[np.ndarray, np.ndarray]:
    """The two halves' ink, a digit that reaches over the diagonal whole in its own half.

    Each is (the half's ink; by the same half's paper, its ink over the band past the diagonal,
    the lines cleared there, and the half's own triangle). Large print in
    a small cell can cross the diagonal. Each half ends there, so such a digit was cut: its part
    past the line was lost, or left in the other half, and what stayed read as another digit (a
    "0" cut along its top right read "6", a "10" as "16"). A digit piece takes back the pieces
    that adjoin it, directly or across the line (the other half's ink near the line, whole, and
    what its own half sees past the line or lost to the clearing), where what it takes past the
    diagonal is much less than the digit: a digit of the other half's own, even a "1", is about
    as tall as its neighbours. No stroke is closed across the line: that shut a "6" beside it
    into an "8". Only crisp print in a clean half is mended: in a blurred photo, smears against
    the line joined to blurred digits turned three solved puzzles of two style draws ambiguous.
    """
    out = [down[0], across[0]]  # copied only where a piece moves (most halves keep theirs)
    copied = [False, False]
    near = np.abs(_D) < _CUT_NEAR
    edge = round(_EDGE_STRIP * _S)
    for side, sign, (_, wide, lines, region) in ((0, -1, down), (1, 1, across)):
        own, other = out[side], out[1 - side]
        # Only in a clean half: where smears and remnants cover much of it (a blurred photo),
        # what lies against the line is as likely theirs as a digit's.
        if not own.any() or np.count_nonzero(own) > _CUT_CLEAN_HALF * _HALF_AREA:
            continue
        n, labels, stats, _ = cv2.connectedComponentsWithStats((own > 0).astype(np.uint8), connectivity=8)
        # Only a piece that may be a digit: of a digit's height, clear of the cell's edges (what
        # touches them is a border's remnant, or a blurred photo's smear), and crisp print (a
        # smear's strokes fade off over most of their width). Looked for first: most halves
        # hold none, and nothing more is measured there.
        digits = [j for j in range(1, n)
                  if _DIGIT_H[0] * _S <= stats[j, cv2.CC_STAT_HEIGHT] <= _DIGIT_H[1] * _S
                  and min(stats[j, cv2.CC_STAT_LEFT], stats[j, cv2.CC_STAT_TOP]) >= edge
                  and max(stats[j, cv2.CC_STAT_LEFT] + stats[j, cv2.CC_STAT_WIDTH],
                          stats[j, cv2.CC_STAT_TOP] + stats[j, cv2.CC_STAT_HEIGHT]) <= _S - edge
                  and np.median(own[labels == j]) >= _CUT_CRISP]
        if not digits:
            continue
        cleared, half_width = _ink_on_the_line(wide, lines)
        # Past the diagonal, by this half's paper: the part of a digit that crosses it.
        past = np.maximum(cleared, np.where(region | lines, 0, wide))
        if not (past.any() or (other > 0)[near].any()):
            continue
        # The candidates: the other half's pieces that lie mostly in the line's band, whole, ...
        n_o, others = cv2.connectedComponents((other > 0).astype(np.uint8), connectivity=8)
        area_o = np.bincount(others.ravel(), minlength=n_o)
        # (A part cut off by the line hugs it; a digit of the other half's own lies mostly away.)
        keep = 2 * np.bincount(others[near], minlength=n_o) >= area_o
        keep[0] = False
        candidates = keep[others]
        # ... and what this half sees past the line, unless it holds a part of a larger piece of
        # the other half's (its own digit, seen by this half's paper too).
        n_p, seen = cv2.connectedComponents((past > 0).astype(np.uint8), connectivity=8)
        for k in range(1, n_p):
            piece = seen == k
            held = np.bincount(others[piece], minlength=n_o)
            held[0] = 0
            if np.all(area_o[held > 0] <= 1.5 * held[held > 0]):
                candidates |= piece
        if not candidates.any():
            continue
        n_c, pieces = cv2.connectedComponents(candidates.astype(np.uint8), connectivity=8)
        # Across the line: perpendicular to it (an anti-diagonal), as far as the line is wide.
        reach = 2 * half_width + 3
        across_line = cv2.dilate(np.fliplr(np.eye(reach, dtype=np.uint8)), np.ones((3, 3), np.uint8))
        for j in digits:
            digit = labels == j
            taken = np.zeros(n_c, bool)
            grown = digit
            for _ in range(3):
                touched = np.unique(pieces[(cv2.dilate(grown.astype(np.uint8), across_line) > 0) & (pieces > 0)])
                new = [k for k in touched if not taken[k]]
                if not new:
                    break
                taken[new] = True
                grown = digit | taken[pieces]
            part = taken[pieces]
            if not part.any():
                continue
            # What lies past the diagonal must be a part, not a digit: the stroke the clearing
            # took on the digit's own side is its own whatever its length.
            ys = np.nonzero(part & (sign * _D <= 0))[0]
            if len(ys) and (ys.max() - ys.min() + 1 > _CUT_PART_H * stats[j, cv2.CC_STAT_HEIGHT]
                            or len(ys) > _CUT_PART_INK * stats[j, cv2.CC_STAT_AREA]):
                continue
            for k in (0, 1):
                if not copied[k]:
                    out[k], copied[k] = out[k].copy(), True
            own, other = out[side], out[1 - side]
            own[part] = np.maximum(past, other)[part]
            other[part] = 0
    return out[0], out[1]


def _gap_round_the_tile(ground: _Ground | None) -> np.ndarray | None:
    """The pixels of a third tone, between the paper and the ink, that reach in from the cell's
    edge: the gap between an app's rounded tiles (light grey round a green tile with light
    digits), whose rounded corner reaches a number near it at the looser levels ("10" read as
    "16"). None where the cell's edge is paper or ink.

    Only flat stretches of that tone count, not the blurred rims of strokes that pass through it,
    and only in a crisp cell: in a dim photo the faint digits are as grey as the lines, and look
    flat too.
    """
    if ground is None or max(ground.bright, ground.dark) < _GAP_CONTRAST:
        return None
    smooth, bg = ground.smooth, ground.bg
    contrast = max(ground.bright, ground.dark)
    ink = bg + ground.bright if ground.bright > ground.dark else bg - ground.dark
    frame = ~_INSIDE
    level = float(np.median(smooth[frame]))
    if min(abs(level - bg), abs(level - ink)) < _GAP_APART * contrast:
        return None
    square = np.ones((3, 3), np.uint8)
    flat = cv2.dilate(smooth, square) - cv2.erode(smooth, square) < _GAP_FLAT * contrast
    tone = flat & (np.abs(smooth - level) < _GAP_FLAT * contrast)
    n, labels = cv2.connectedComponents(tone.astype(np.uint8), connectivity=8)
    reach = np.zeros(n, bool)
    reach[labels[frame & tone]] = True
    reach[0] = False
    gap = reach[labels]
    # A tile's gap runs along the cell's edges (round its corners within a few pixels) and, drawn
    # in the gap's tone, along the diagonal: tone that reaches further in is print (faint digits
    # as grey as the lines of a dim photo).
    if not gap[_INSIDE].any() or np.count_nonzero(gap & _AWAY_FROM_EDGES) > _GAP_INNER_PX:
        return None
    # Its own blurred rim goes with it.
    return cv2.dilate(gap.astype(np.uint8), square) > 0


#: The ink contrast (grey levels) of a crisp cell, where three tones can be told apart.
_GAP_CONTRAST = 64
#: A cell's edge is a tone of its own when this share of the ink contrast from paper and from ink.
_GAP_APART = 0.25
#: Away from the cell's edges (over 0.15 of the side) and off the diagonal's band, where no gap
#: round a tile reaches; a few pixels there are let pass.
_AWAY_FROM_EDGES = (np.minimum(np.minimum(_YY, _S - _YY), np.minimum(_XX, _S - _XX)) > 0.15 * _S) \
    & (np.abs(_D) > _DIAG_SEARCH)
_GAP_INNER_PX = 20
#: Flat: the tone varies by less than this share of the contrast within a pixel either way.
_GAP_FLAT = 0.15


class _ContentMemo:
    """Results of a function of image arrays for the last ``size`` distinct inputs, by their pixels.

    A grid whose layout is in doubt is read again as each variant, most of its clue cells the
    same: a 15x13 grid read as nine variants split, searched for discs and read its clue cells'
    halves over and over (1,700 disc searches, 8 s). The results are shared: arrays in them are
    made read-only.
    """

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict[bytes, object] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, arrays: Sequence[np.ndarray], extra, compute):
        """The result for these arrays (and ``extra``), from ``compute()`` where there is none yet."""
        key = self.key(arrays, extra)
        found = self.find(key)
        return found if found is not None else self.keep(key, compute())

    @staticmethod
    def key(arrays: Sequence[np.ndarray], extra) -> bytes:
        digest = hashlib.blake2b(repr((extra, [(a.shape, a.dtype.str) for a in arrays])).encode(), digest_size=16)
        for a in arrays:
            digest.update(np.ascontiguousarray(a).data)
        return digest.digest()

    def find(self, key: bytes):
        """The result kept under ``key``, or None."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def keep(self, key: bytes, value):
        """Keep ``value`` (not None) under ``key``; returns it."""
        _freeze(value)
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            if len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


def _freeze(value) -> None:
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, (list, tuple)):
        for item in value:
            _freeze(item)


# Bounded (about 20 MB at most): a cell's entries are a few maps of its size; a grid has at most
# a hundred or so clue cells.
_DISC_MEMO = _ContentMemo(512)
_SPLIT_MEMO = _ContentMemo(256)
_READ_MEMO = _ContentMemo(4096)


def forget_kept_reads() -> None:
    """Drop every kept split, disc search and read (a benchmark timing an image's first reading)."""
    for memo in (_DISC_MEMO, _SPLIT_MEMO, _READ_MEMO):
        memo.clear()


def _disc_digits(cell_gray: np.ndarray, halves: tuple[np.ndarray, np.ndarray], weak_level: float,
                 digit_contrast: float) -> tuple[np.ndarray | None, np.ndarray | None]:
    """For each half of a clue cell (split at ``weak_level``), the digits inside a disc in it, or
    None (read-only maps: the same cell searched again gets the same ones). ``digit_contrast``:
    see :func:`_discs`."""
    return _DISC_MEMO.get((cell_gray, *halves), (weak_level, digit_contrast),
                          lambda: _search_disc_digits(cell_gray, halves, weak_level, digit_contrast))


def numbers_in_discs(cell_gray: np.ndarray) -> bool:
    """Whether a cell holds a number in a disc off its diagonal, as a clue cell's number in a
    disc stands (at the middle binarisation level): a black clue cell whose two large light
    discs cover half of it looks as grey as paper in a shade."""
    gray = _to_gray(cell_gray, "cell_gray")
    level = WEAK_LEVELS[len(WEAK_LEVELS) // 2]
    for digits in _disc_digits(gray, split_clue_cell(gray, weak_level=level), level, _DISC_DIGIT_CONTRAST):
        if digits is not None:
            yy, xx = np.nonzero(digits)
            if abs(float(np.mean(xx)) - float(np.mean(yy))) >= _DISC_OFF_DIAGONAL * _S:
                return True
    return False


#: How far off the diagonal (x - y, share of the side) the digits in a clue's disc stand: a bold
#: "0" in the middle of a white cell is as round as a disc, but astride the diagonal.
_DISC_OFF_DIAGONAL = 0.2


def _search_disc_digits(cell_gray: np.ndarray, halves: tuple[np.ndarray, np.ndarray], weak_level: float,
                        digit_contrast: float) -> tuple[np.ndarray | None, np.ndarray | None]:
    gray = _to_gray(cell_gray, "cell_gray")
    # Found in each half without the lines (a disc drawn against the diagonal would be one piece
    # with it), and across the whole cell: a disc can fill most of its small triangle, so that
    # the half takes the disc for paper, and one reaching over the diagonal is cut where the
    # half ends, its digits with it (a "6" left as a stub read "1"). Across the whole cell the
    # discs are round pieces of one tone, whichever tone the cell's border band makes paper
    # (large discs reach into it): looked for in both. Each side keeps the disc whose digits
    # show the most ink.
    whole = [disc for other in (False, True) for disc in _discs(
        _remove_lines(_ink_mask(gray, _INSIDE, _CORE, _RIM, weak_level, flip=other), _INSIDE), gray, digit_contrast)]
    discs = []
    for sign, half in zip((-1, 1), halves):
        found = [digit for digit, _ in _discs(half, gray, digit_contrast)] + [
            digit for digit, side in whole if side * sign > 0]
        discs.append(max(found, key=np.count_nonzero) if found else None)
    return discs[0], discs[1]


#: A number printed in a disc (Japanese puzzle books, apps): the disc is round or, seen askew, an
#: ellipse (a blurred "10" is a rounded box), mostly disc, not digit, and of a size that fits a
#: triangle. A bold "0" can pass all that; the grid's other numbers tell (``_DISC_GRID_SHARE``).
_DISC_ASPECT = (0.8, 1.25)
_DISC_ROUND = 0.9                # overlap (IoU) of the hull with the ellipse fitted to it
_DISC_SOLID = 0.55               # disc ink / hull area
_DISC_SIZE = (0.16, 0.62)        # diameter, share of the cell side
_DISC_RIM = 2                    # pixels of the disc's edge (and its outline) left out
_DISC_DIGIT_H = 0.35             # the digits in a disc are at least this share of its height
_DISC_DIGIT_H_OPENED = 0.45      # the same for a disc found only once stubs were cut off
_DISC_DIGIT_CONTRAST = 60        # ink levels between a disc and the darkest of its digits
#: ... or, where a grid's discs at that contrast are too few to read the grid as one printed with
#: discs but some are found, this: grey digits in small white discs on black stand 54-59 levels
#: from their discs. Not for every grid: blurred small discs read at it take blots for digits.
_DISC_DIGIT_CONTRAST_GREY = 50
_DISC_DIGIT_SHARE = 0.6          # ... or this share of the disc's own contrast with its ground,
_DISC_DIGIT_FLOOR = 25           # but never less than this (a blot's grain and blur)
_DISC_OPEN = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))  # wider than a line, narrower than a disc
_DISC_OPEN_KEEP = 0.8           # share of a piece a disc keeps when thin stubs are cut off
_DISC_GRID_SHARE = 0.8          # of a grid's numbered halves, at least this many in discs
#: The same share at the middle level alone, below which a grid is taken to hold no discs and
#: the other levels are not searched: grids printed with discs 0.98-1.0, others 0-0.26 (8 renders
#: each of two disc families and two others).
_DISC_PROBE_SHARE = 0.5
#: Numbered halves searched with no disc in any, after which a grid holds none: in a grid printed
#: with discs nearly every numbered half holds one.
_DISC_PROBE_FIRST = 8
# (grids printed with discs: all of them in every render tried; others: up to 0.6, in bold fonts)
_DISC_WEAK = 0.25                # share of that contrast down to which a digit's stroke is followed


def _discs(ink: np.ndarray, gray: np.ndarray, digit_contrast: float) -> list[tuple[np.ndarray, float]]:
    """The digits inside each disc in ``ink``, as ink on their own, with the side of the cell's
    diagonal the disc's centre lies on (the sign of :data:`_D` there).

    A disc is a round piece of ink that holds digits about as tall as half of it. A bold "2" or
    "8" can pass for one; the caller keeps this reading only where it is the surer one.

    Seen against the cell, a light disc is the ink and its dark digits are holes in it; the
    reader wants the digits. They are measured in ``gray`` (the cell) from the disc's own tone to
    its darkest stroke (or lightest, for a dark disc): small digits blur towards the disc's tone
    and would fall below any level taken from the cell's paper. All outside the disc (its
    outline, the diagonal, the cell) goes. A disc whose digits stand less than ``digit_contrast``
    from it (or the share of its own contrast, :data:`_DISC_DIGIT_SHARE`) is a plain blot.
    """
    binary = (ink > 0).astype(np.uint8)
    smooth = cv2.GaussianBlur(gray, (0, 0), 0.8)
    out = []
    taken = np.zeros_like(binary)
    for piece_mask, min_digit_h in _disc_candidates(binary):
        if taken[piece_mask].any():
            continue  # the same disc, already found as it was
        h = int(np.ptp(np.nonzero(piece_mask.any(axis=1))[0]) + 1)
        contours, _ = cv2.findContours(piece_mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        hull = cv2.convexHull(np.vstack(contours))
        hull_area = cv2.contourArea(hull)
        (cx, cy), radius = cv2.minEnclosingCircle(hull)
        filled = np.zeros_like(binary)
        cv2.drawContours(filled, [hull], -1, 1, thickness=-1)
        piece = binary & filled
        if not (_ellipse_likeness(filled) >= _DISC_ROUND and np.count_nonzero(piece) >= _DISC_SOLID * hull_area):
            continue
        inside = cv2.erode(filled, np.ones((2 * _DISC_RIM + 1, 2 * _DISC_RIM + 1), np.uint8))
        around = cv2.dilate(filled, np.ones((7, 7), np.uint8)) > cv2.dilate(filled, np.ones((3, 3), np.uint8))
        if not inside.any() or not around.any():
            continue
        vals = smooth[inside > 0]
        disc_tone, ground_tone = float(np.median(smooth[piece > 0])), float(np.median(smooth[around]))
        if disc_tone > ground_tone:  # a light disc, dark digits
            disc_level = float(percentile(vals, 90))
            depth = disc_level - smooth
        else:
            disc_level = float(percentile(vals, 10))
            depth = smooth - disc_level
        contrast = float(depth[inside > 0].max())
        # In dim light or on a grey ground the digits stand out from their disc as little as the
        # disc from its ground (50 levels): as much as that counts, a blot's grain does not.
        if contrast < max(_DISC_DIGIT_FLOOR, min(digit_contrast,
                                                 _DISC_DIGIT_SHARE * abs(disc_tone - ground_tone))):
            continue  # a plain blot, no number in it
        strength = np.clip(depth / contrast, 0.0, 1.0)
        # The disc's edge is blurred over a few pixels, inside its hull too: step in from the
        # edge until a ring round the disc is mostly disc again (digits cover little of a ring).
        depth_in = cv2.distanceTransform(filled, cv2.DIST_L2, 3)
        for step in range(_DISC_RIM, max(_DISC_RIM, int(0.4 * radius)) + 1):
            ring = (depth_in > step) & (depth_in <= step + 1)
            if not ring.any() or np.median(strength[ring]) < _DISC_WEAK:
                break
        inside = (depth_in > step).astype(np.uint8)
        # Hysteresis, as for any ink: a blurred digit's thin strokes (the slant of a "2") fade to
        # a quarter of its darkest, yet they are what joins its pieces into one digit.
        weak = ((inside > 0) & (strength >= _DISC_WEAK)).astype(np.uint8)
        m, parts = cv2.connectedComponents(weak, connectivity=8)
        seeded = np.zeros(m, bool)
        seeded[np.unique(parts[strength >= 0.5])] = True
        seeded[0] = False
        digit = np.where(seeded[parts], np.rint(255 * strength), 0).astype(np.uint8)
        # The disc's blurred edge, where it is left inside the hull, is a thin arc along it; a
        # digit lies mostly away from the edge.
        to_edge = cv2.distanceTransform(inside, cv2.DIST_L2, 3)
        m, parts = cv2.connectedComponents((digit > 0).astype(np.uint8), connectivity=8)
        for j in range(1, m):
            part = parts == j
            if np.mean(to_edge[part] <= max(2.0, 0.1 * radius)) > 0.5:
                digit[part] = 0
        if np.count_nonzero(digit) < 0.025 * hull_area:
            continue  # a plain blot, no number in it
        _, _, hole_stats, _ = cv2.connectedComponentsWithStats((digit > 0).astype(np.uint8), connectivity=8)
        if hole_stats[1:, cv2.CC_STAT_HEIGHT].max() < min_digit_h * h:
            continue  # a bold "8" or "9": round and solid too, but its holes are small
        out.append((digit, float(cx - cy)))
        taken |= filled
    return out


def _ellipse_likeness(shape: np.ndarray) -> float:
    """Intersection over union of a filled shape and the ellipse fitted to its outline: about 1
    for a disc, seen straight or askew; 0.8 for a square, less for a triangle."""
    contours, _ = cv2.findContours(shape.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    points = np.vstack(contours)
    if len(points) < 5:
        return 0.0
    ellipse = np.zeros_like(shape, np.uint8)
    cv2.ellipse(ellipse, cv2.fitEllipse(points), 1, thickness=-1)
    inside = shape > 0
    return float(np.count_nonzero(inside & (ellipse > 0)) / max(1, np.count_nonzero(inside | (ellipse > 0))))


def _disc_candidates(binary: np.ndarray):
    """The pieces of ``binary`` as they are, then as they look with the digits' holes filled and
    thin strokes cut off: what line removal left of a blurred diagonal or border, touching a disc,
    makes it look unround. As they are first: opening wears away the thin ring of a disc whose
    bold digits reach its edge. Only pieces of a disc's size and proportions come out."""
    def sized(stats: np.ndarray) -> np.ndarray:
        w, h = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
        ok = (np.maximum(w, h) >= _DISC_SIZE[0] * _S) & (np.maximum(w, h) <= _DISC_SIZE[1] * _S)
        ok &= (w >= _DISC_ASPECT[0] * h) & (w <= _DISC_ASPECT[1] * h)
        ok[0] = False
        return np.flatnonzero(ok)

    n, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    for i in sized(stats):
        yield labels == i, _DISC_DIGIT_H
    if not (np.maximum(stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]) >= _DISC_SIZE[0] * _S).any():
        return  # nothing as large as a disc, with or without stubs
    filled = binary.copy()
    cv2.floodFill(filled, np.zeros((_S + 2, _S + 2), np.uint8), (0, 0), 2)
    filled = (filled != 2).astype(np.uint8) if binary[0, 0] == 0 else binary
    n_before, before = cv2.connectedComponents(filled, connectivity=8)
    sizes = np.bincount(before.ravel(), minlength=n_before)
    opened = cv2.morphologyEx(filled, cv2.MORPH_OPEN, _DISC_OPEN)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
    for i in sized(stats):
        piece = labels == i
        # Only what a stub was cut from: opening also carves a round bowl out of a bold "5" or
        # "6", taking away much of the glyph; its counter is a small "digit", so ask for a
        # taller one here.
        if stats[i, cv2.CC_STAT_AREA] >= _DISC_OPEN_KEEP * sizes[np.bincount(before[piece]).argmax()]:
            yield piece, _DISC_DIGIT_H_OPENED
    for piece in _touching_discs(filled):
        yield piece, _DISC_DIGIT_H


def _touching_discs(filled: np.ndarray):
    """The two discs of a piece that is two discs drawn touching, each as its own piece.

    Discs large for their cell (half its side and more) touch, or overlap a little, where the
    cell's two numbers meet at its diagonal, and make one piece too large and too unround for
    a disc. Seen by its distance to the edge, the piece has two peaks of about one height, the
    discs' centres; it is parted along the line halfway between them.
    """
    n, labels, stats, _ = cv2.connectedComponentsWithStats(filled, connectivity=8)
    for i in range(1, n):
        w, h = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        if not (_DISC_SIZE[0] * _S * 1.5 <= max(w, h) <= 2 * _DISC_SIZE[1] * _S):
            continue
        piece = (labels == i).astype(np.uint8)
        depth = cv2.distanceTransform(piece, cv2.DIST_L2, 5)
        m, cores, _, centres = cv2.connectedComponentsWithStats(
            (depth > _TOUCHING_CORE * depth.max()).astype(np.uint8), connectivity=8)
        if m != 3:
            continue
        peaks = [float(depth[cores == j].max()) for j in (1, 2)]
        if min(peaks) < _TOUCHING_PEAKS * max(peaks) or max(peaks) < _DISC_SIZE[0] * _S / 2:
            continue
        (x1, y1), (x2, y2) = centres[1], centres[2]
        # Apart by about two radii: farther, and the piece is no two discs; nearer, one.
        if not 1.5 * min(peaks) <= np.hypot(x2 - x1, y2 - y1) <= 2.5 * max(peaks):
            continue
        # (Pixel centres: _XX and _YY lie half a pixel past the centres found by index.)
        side = (_XX - 0.5 - (x1 + x2) / 2) * (x2 - x1) + (_YY - 0.5 - (y1 + y2) / 2) * (y2 - y1)
        for part in (piece.astype(bool) & (side < 0), piece.astype(bool) & (side > 0)):
            yield part


#: Distance to a piece's edge, as a share of its deepest, above which lie the cores of touching
#: discs; and how near in depth the two cores must be (discs of one size).
_TOUCHING_CORE = 0.6
_TOUCHING_PEAKS = 0.7


def digit_pieces(half: np.ndarray, n_digits: int | None = None) -> list[np.ndarray]:
    """The pieces of a half's ink the reader takes for digits, left to right, each a mask of the
    half's size (specks, line remnants and the diagonal's slivers left out).

    With ``n_digits`` 2, one piece wide enough for two digits is cut as the reader cuts two
    digits that blur into one (:func:`_split_candidates`)."""
    glyphs = sorted(_segment(half), key=lambda g: g.box_xy[0])
    if n_digits == 2 and len(glyphs) == 1:
        glyphs = list(next(iter(_split_candidates(glyphs[0])), glyphs))
    pieces = []
    for g in glyphs:
        x, y, w, h = g.box_xy
        mask = np.zeros(half.shape, bool)
        mask[y:y + h, x:x + w] = g.mask > 0
        pieces.append(mask)
    return pieces


def ink_likeness(ink_a: np.ndarray, ink_b: np.ndarray) -> float | None:
    """How alike two pieces of print look, 0..1 (1: the same shape); None: not comparable.

    Each is cropped to its ink, scaled to one height and softened by a pixel, then compared by
    cosine similarity at the best of a few small shifts. Softening makes the measure indifferent
    to where small print fell on the pixel grid. Shapes of much different widths, or no ink, are
    not compared: that may be a different number or a remnant of a line stuck to it.
    """
    shapes = []
    for ink in (ink_a, ink_b):
        ys, xs = np.nonzero(ink)
        if ys.size == 0:
            return None
        crop = ink[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1].astype(np.float32)
        width = max(1, round(_LIKENESS_H * crop.shape[1] / crop.shape[0]))
        shapes.append(cv2.resize(crop, (width, _LIKENESS_H), interpolation=cv2.INTER_AREA))
    (a, b) = shapes
    if abs(a.shape[1] - b.shape[1]) > 0.25 * max(a.shape[1], b.shape[1]):
        return None
    pad = 3
    width = max(a.shape[1], b.shape[1]) + 2 * pad
    canvas_a = np.zeros((_LIKENESS_H + 2 * pad, width), np.float32)
    canvas_a[pad:pad + _LIKENESS_H, pad:pad + a.shape[1]] = a
    canvas_a = cv2.GaussianBlur(canvas_a, (0, 0), 1.0)
    norm_a = float(np.sqrt((canvas_a ** 2).sum()))
    best = 0.0
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            canvas_b = np.zeros_like(canvas_a)
            canvas_b[pad + dy:pad + dy + _LIKENESS_H, pad + dx:pad + dx + b.shape[1]] = b
            canvas_b = cv2.GaussianBlur(canvas_b, (0, 0), 1.0)
            denom = norm_a * float(np.sqrt((canvas_b ** 2).sum()))
            if denom > 0:
                best = max(best, float((canvas_a * canvas_b).sum()) / denom)
    return best


def number_likeness(half_a: np.ndarray, half_b: np.ndarray) -> float | None:
    """How alike two halves' printed numbers look, 0..1: :func:`ink_likeness` of their digits.

    In one puzzle's font, equal numbers look alike (0.99 measured on rendered puzzles) and a
    "3" and an "8" less so (0.90-0.93).
    """
    digits = []
    for half in (half_a, half_b):
        pieces = digit_pieces(half)
        if not pieces:
            return None
        digits.append(np.logical_or.reduce(pieces))
    return ink_likeness(digits[0], digits[1])


# --------------------------------------------------------------------------------------------
# Segmentation


@dataclass(frozen=True, slots=True)
class _Glyph:
    mask: np.ndarray          # cropped ink of one digit candidate: uint8 strength, 0 off the glyph
    box_xy: tuple[int, int, int, int]  # x, y, w, h in the 96x96 half
    cut: bool = False         # one side of a piece of ink cut in two (maybe touching digits)


def _is_diagonal_sliver(mask: np.ndarray) -> bool:
    """A thin piece running top-left to bottom-right: what is left of the cell's diagonal.

    No digit has that shape (a "1" is upright or leans the other way in italics).
    """
    ys, xs = np.nonzero(mask)
    if ys.size < 4:
        return False
    # The covariance of the pixels' places and its axes in closed form (a 2x2 matrix: numpy's
    # general routines cost more than the sums).
    x, y = xs - xs.mean(), ys - ys.mean()
    n = ys.size - 1
    sxx, syy, sxy = float(x @ x) / n, float(y @ y) / n, float(x @ y) / n
    half_gap = math.hypot((sxx - syy) / 2, sxy)
    major, minor = (sxx + syy) / 2 + half_gap, (sxx + syy) / 2 - half_gap
    if major <= 0:
        return False
    elongation = math.sqrt(major / max(minor, 1e-6))
    angle = math.degrees(0.5 * math.atan2(2 * sxy, sxx - syy)) % 180.0   # 45 = down-right in image coordinates
    return elongation > 3.5 and abs(angle - 45.0) < 20.0


def segment_digits(half: np.ndarray) -> list[np.ndarray]:
    """Glyph crops of the digits in one half-cell ink mask, left to right.

    Parameters
    ----------
    half : (M, N) uint8 ndarray
        Ink nonzero, as returned by :func:`split_clue_cell`.

    Returns
    -------
    list of (h, w) bool ndarray
        Usually 0, 1 or 2 crops; more means the half holds something other than a clue number.
    """
    return [g.mask > 0 for g in _segment(half)]


def _segment(half: np.ndarray, max_height: float = _DIGIT_H[1]) -> list[_Glyph]:
    """The digit-like pieces of a half's ink; ``max_height``: tallest digit, share of the side."""
    if half.ndim != 2:
        raise ValueError(f"half: expected a 2-D ink mask, got shape {half.shape}")
    ink = (half > 0).astype(np.uint8)
    side = max(half.shape)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    comps = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area < max(6, 0.0012 * side * side):
            continue  # speck
        if h > max_height * side or w > 0.75 * side:
            continue  # a line or a blot, not a digit
        if _is_diagonal_sliver(labels[y:y + h, x:x + w] == i):
            continue
        strip = _EDGE_STRIP * side
        if x + w <= strip or x >= side - strip or y + h <= strip or y >= side - strip:
            continue  # a remnant of a border line or of the neighbouring cell
        comps.append([x, y, x + w, y + h, [i]])
    # Merge pieces of one digit (broken strokes): strong horizontal overlap.
    merged = True
    while merged:
        merged = False
        for a in range(len(comps)):
            for b in range(a + 1, len(comps)):
                A, B = comps[a], comps[b]
                ov = min(A[2], B[2]) - max(A[0], B[0])
                if ov > 0.6 * min(A[2] - A[0], B[2] - B[0]):
                    gap = max(A[1], B[1]) - min(A[3], B[3])
                    if gap < 0.06 * side:
                        comps[a] = [min(A[0], B[0]), min(A[1], B[1]), max(A[2], B[2]), max(A[3], B[3]),
                                    A[4] + B[4]]
                        del comps[b]
                        merged = True
                        break
            if merged:
                break
    comps = _digit_high_pieces(comps, side)
    if not comps:
        return []
    # One number's digits share a height band: keep those level with the tallest piece.
    tallest = max(comps, key=lambda c: (c[3] - c[1], (c[2] - c[0])))
    th = tallest[3] - tallest[1]
    tc = (tallest[1] + tallest[3]) / 2
    keep = [c for c in comps if (c[3] - c[1]) >= 0.6 * th and abs((c[1] + c[3]) / 2 - tc) < 0.45 * th]
    keep.sort(key=lambda c: c[0])
    out = []
    for x0, y0, x1, y1, ids in keep:
        sub = np.where(np.isin(labels[y0:y1, x0:x1], ids), half[y0:y1, x0:x1], 0).astype(np.uint8)
        out.append(_Glyph(mask=sub, box_xy=(x0, y0, x1 - x0, y1 - y0)))
    return out


def _digit_high_pieces(comps: list[list], side: int) -> list[list]:
    """The pieces at least as high as a digit, each with the pieces too short for one that nearly
    touch it joined in; other short pieces are dropped. The bar of a "7" or a "5" comes apart
    from its stroke where a thin serif print joins them at a corner, and alone it was dropped
    (the "7" of "17" read as a "1"). A short piece joins only where it lies within ``_JOIN_GAP``
    of one digit-high piece (digits of one number stand further apart) and the two together are
    no wider than a digit."""
    tall = [c for c in comps if (c[3] - c[1]) >= _DIGIT_H[0] * side]
    for piece in (c for c in comps if (c[3] - c[1]) < _DIGIT_H[0] * side):
        near = [c for c in tall if _box_gap(piece, c) <= _JOIN_GAP * side]
        if len(near) != 1:
            continue
        c = near[0]
        x0, y0, x1, y1 = min(piece[0], c[0]), min(piece[1], c[1]), max(piece[2], c[2]), max(piece[3], c[3])
        if x1 - x0 <= _MAX_DIGIT_ASPECT * (y1 - y0):
            c[:] = [x0, y0, x1, y1, c[4] + piece[4]]
    return tall


def _box_gap(a: list, b: list) -> int:
    """Pixels between two boxes (x0, y0, x1, y1, ...) across or down, whichever is further; 0 where
    they overlap."""
    return max(max(a[0], b[0]) - min(a[2], b[2]), max(a[1], b[1]) - min(a[3], b[3]), 0)


#: Pixels (share of the half's side) between a piece too short for a digit and the digit it
#: belongs to: a thin join lost to the binarisation (2 of 96 seen), not the gap between two digits.
_JOIN_GAP = 0.04


# --------------------------------------------------------------------------------------------
# Numbers from glyphs


def _number_alternatives(digit_probs: Sequence[np.ndarray], k: int = 3) -> list[tuple[int, float]]:
    """Number alternatives (value, probability), best first, from per-glyph class probabilities."""
    if not digit_probs:
        return []
    if len(digit_probs) == 1:
        p = digit_probs[0]
        alts = [(d, float(p[d])) for d in range(1, 10)]
    elif len(digit_probs) == 2:
        p1, p2 = digit_probs
        alts = [(10 * a + b, float(p1[a] * p2[b])) for a in range(1, 5) for b in range(10)
                if CLUE_MIN <= 10 * a + b <= CLUE_MAX]
    else:
        return []
    alts.sort(key=lambda t: -t[1])
    return alts[:k]


def _split_candidates(g: _Glyph) -> list[tuple[_Glyph, _Glyph]]:
    """Ways to cut a glyph that may be two touching digits, at the thinnest middle column."""
    m = g.mask
    h, w = m.shape
    if w < 0.75 * h or w < 6:
        return []
    cols = m.sum(0).astype(np.float32)
    lo, hi = int(0.3 * w), int(0.7 * w) + 1
    if hi - lo < 1:
        return []
    cut = lo + int(np.argmin(cols[lo:hi]))
    out = []
    for c in sorted({cut, w // 2}):
        left, right = m[:, :c], m[:, c:]
        if left.any() and right.any():
            x, y, _, _ = g.box_xy
            out.append((_Glyph(left, (x, y, c, h), True), _Glyph(right, (x + c, y, w - c, h), True)))
    return out


def _union(glyphs: Sequence[_Glyph]) -> _Glyph:
    """One glyph made of several pieces (a digit broken by blur or a hairline lost)."""
    if len(glyphs) == 1:
        return glyphs[0]
    x0 = min(g.box_xy[0] for g in glyphs)
    y0 = min(g.box_xy[1] for g in glyphs)
    x1 = max(g.box_xy[0] + g.box_xy[2] for g in glyphs)
    y1 = max(g.box_xy[1] + g.box_xy[3] for g in glyphs)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for g in glyphs:
        x, y, w, h = g.box_xy
        part = mask[y - y0: y - y0 + h, x - x0: x - x0 + w]
        np.maximum(part, g.mask, out=part)
    return _Glyph(mask, (x0, y0, x1 - x0, y1 - y0))


def _segmentations(glyphs: list[_Glyph], n_digits: tuple[int, ...]) -> list[list[_Glyph]]:
    """Plausible ways to read the pieces as digits, left to right.

    Pieces are grouped into consecutive runs (a digit broken in two), and a piece too wide for
    one digit may be cut (two digits touching). Every piece is used in every hypothesis.
    """
    n = len(glyphs)
    hyps: list[list[_Glyph]] = []
    for k in n_digits:
        if k > n:
            continue
        # All ways to cut n pieces into k consecutive non-empty groups (n is small).
        for cuts in _compositions(n, k):
            groups, start = [], 0
            for size in cuts:
                groups.append(_union(glyphs[start: start + size]))
                start += size
            if all(g.box_xy[2] <= 1.1 * g.box_xy[3] or len(groups) == 1 for g in groups):
                hyps.append(groups)
    if 2 in n_digits:
        for hyp in [h for h in hyps if len(h) == 1]:
            for left, right in _split_candidates(hyp[0]):
                hyps.append([left, right])
    return hyps


def _hypothesis_weight(hyp: list[_Glyph], n_hyps: int) -> float:
    """Prior weight of one segmentation hypothesis.

    Printed digits are taller than wide: ink much wider than tall is more likely two touching
    digits (a bold "28") than one, so a one-digit reading of it is discounted when the split
    reading exists, not excluded (a broad "4" or a digit with a line remnant stays readable);
    a cut of ink too narrow for two digits is discounted in the same way.
    """
    if len(hyp) == 1 and n_hyps > 1:
        _, _, w, h = hyp[0].box_xy
        if w > _MAX_DIGIT_ASPECT * h:
            return 0.3
    if len(hyp) == 2 and hyp[0].cut:
        # The other way round: ink cut in two must be wide enough for two digits. A bold digit
        # at a small size is nearly as wide as tall, and its left edge alone reads as a "1".
        width = hyp[0].box_xy[2] + hyp[1].box_xy[2]
        return float(np.clip((width / hyp[0].box_xy[3] - _MIN_PAIR_ASPECT) / 0.3, 0.25, 1.0))
    return 1.0


def _compositions(n: int, k: int) -> list[tuple[int, ...]]:
    if k == 1:
        return [(n,)]
    return [(first,) + rest for first in range(1, n - k + 2) for rest in _compositions(n - first, k - 1)]


def _job(half: np.ndarray, max_height: float = _DIGIT_H[1]) -> tuple[list[_Glyph], float]:
    """A half's glyphs, and how sure we would be that it is empty if there are none.

    Ink that was set aside (a big remnant, a cut-off piece) makes "empty" doubtful: the lattice
    may have cut a digit off, so the half deserves a second look.
    """
    glyphs = _segment(half, max_height)
    leftover = int(np.count_nonzero(half)) - sum(np.count_nonzero(g.mask) for g in glyphs)
    empty_conf = 1.0 - 0.6 * min(1.0, max(0, leftover) / (0.01 * half.size))
    return glyphs, empty_conf


def _read_many(jobs: Sequence[tuple[list[_Glyph], float]], clf: GlyphClassifier, *,
               max_value: int = CLUE_MAX, n_digits: tuple[int, ...] = (1, 2)) -> list[NumberRead]:
    """Read several halves' glyphs with one classifier call over all segmentation hypotheses."""
    plans = []
    flat: list[np.ndarray] = []
    for glyphs, empty_conf in jobs:
        penalty = 1.0
        if len(glyphs) > _MAX_GLYPHS + 2:
            # Far too much ink for a clue (handwriting, texture): read the biggest pieces, distrust it.
            glyphs = sorted(sorted(glyphs, key=lambda g: -np.count_nonzero(g.mask))[:_MAX_GLYPHS + 1],
                            key=lambda g: g.box_xy[0])
            penalty = 0.3
        hyps = _segmentations(glyphs, n_digits) if glyphs else []
        plans.append((empty_conf if not glyphs else None, hyps, penalty, len(flat)))
        flat.extend(g.mask for h in hyps for g in h)
    probs = clf.classify(flat)[1] if flat else np.zeros((0, 11), np.float32)
    return [_decide(empty_conf, hyps, probs[start:], penalty, max_value)
            for empty_conf, hyps, penalty, start in plans]


def _read_distinct_halves(halves: Sequence[np.ndarray], clf: GlyphClassifier) -> list[NumberRead]:
    """:func:`_read_many` of each half's glyphs, each distinct half segmented and read once (the
    binarisation levels of crisp print often cut the very same ink)."""
    distinct: dict[tuple, int] = {}
    index = [distinct.setdefault((h.shape, h.dtype.str, h.tobytes()), len(distinct)) for h in halves]
    one_of = {k: h for h, k in zip(halves, index)}
    # Halves read before by the same model (a grid read again as a variant of its layout) are not
    # read again; a model in memory (the trainer's) is not one file's, so its reads are not kept.
    model = str(clf.path)
    keys = [_READ_MEMO.key((one_of[k],), model) for k in range(len(distinct))] if model != "<memory>" else None
    reads: list[NumberRead | None] = [_READ_MEMO.find(key) for key in keys] if keys else [None] * len(distinct)
    new = [k for k, read in enumerate(reads) if read is None]
    for k, read in zip(new, _read_many([_job(one_of[k]) for k in new], clf)):
        reads[k] = _READ_MEMO.keep(keys[k], read) if keys else read
    return [reads[k] for k in index]


def _decide(empty_conf: float | None, hyps: list[list[_Glyph]], probs: np.ndarray, penalty: float,
            max_value: int) -> NumberRead:
    if empty_conf is not None:
        return NumberRead(None, float(empty_conf))
    best: dict[int, float] = {}
    i = 0
    for h in hyps:
        weight = _hypothesis_weight(h, len(hyps))
        for v, p in _number_alternatives(list(probs[i: i + len(h)]), k=4):
            p *= weight
            if v <= max_value and p > best.get(v, 0.0):
                best[v] = p
        i += len(h)
    if not best:
        return NumberRead(None, 0.0)
    alts = sorted(best.items(), key=lambda t: -t[1])[:4]
    value, p1 = alts[0]
    p2 = alts[1][1] if len(alts) > 1 else 0.0
    # A close runner-up (another digit, or another way to cut the ink) means we do not know.
    conf = penalty * p1 * p1 / (p1 + p2) if p1 > 0 else 0.0
    return NumberRead(int(value), float(conf), tuple((int(v), float(penalty * p)) for v, p in alts))


def read_number(half_img: np.ndarray, *, classifier: GlyphClassifier | None = None) -> NumberRead:
    """Read the clue number (1..45) in one half-cell ink mask.

    Parameters
    ----------
    half_img : (M, N) uint8 ndarray
        Ink nonzero, as returned by :func:`split_clue_cell`.
    classifier : GlyphClassifier, optional
        Defaults to the shipped model.

    Returns
    -------
    NumberRead
        ``value`` None when the half holds no digit; ``confidence`` is then how sure it is empty.
    """
    return _read_many([_job(half_img)], classifier or default_classifier())[0]


def read_clue_cell(cell_img: np.ndarray, *, classifier: GlyphClassifier | None = None
                   ) -> tuple[NumberRead, NumberRead]:
    """Read both sums of a clue cell.

    Parameters
    ----------
    cell_img : (M, N) or (M, N, 3) ndarray
        One clue cell from the rectified grid.

    Returns
    -------
    down, across : NumberRead
    """
    _, (d, a), _ = _read_clue_halves([cell_img], classifier or default_classifier())
    return d, a


def _read_clue_halves(cells: Sequence[np.ndarray], clf: GlyphClassifier
                      ) -> tuple[list[np.ndarray], list[NumberRead], set[int]]:
    """Every cell's down and across halves (at the first binarisation level), and their reads
    merged over all levels; both lists run down0, across0, down1, across1, ... Also the indices
    of the halves read as the digits in a disc."""
    per_cell = [_split_levels(c, WEAK_LEVELS) for c in cells]
    levels = [[h for at in per_cell for h in at[k]] for k in range(len(WEAK_LEVELS))]
    flat = _read_distinct_halves([h for halves in levels for h in halves], clf)
    n = len(levels[0])
    halves, reads = list(levels[0]), [_merge_levels(flat[i::n]) for i in range(n)]
    in_disc, with_disc, some = _discs_in_grid(cells, per_cell, reads, _DISC_DIGIT_CONTRAST)
    if not with_disc and some:
        in_disc, with_disc, _ = _discs_in_grid(cells, per_cell, reads, _DISC_DIGIT_CONTRAST_GREY)
    read_in_disc: set[int] = set()
    if with_disc:
        disc_halves = [[level[i] for level in in_disc if level[i] is not None] for i in with_disc]
        flat = _read_distinct_halves([h for hs in disc_halves for h in hs], clf)
        # Small numbers in discs blur into one blot that the glyph reader cuts wrongly; a reader
        # of whole numbers (the middle level's map, or the first there is) weighs in.
        matched = default_templates().probabilities([hs[len(hs) // 2] for hs in disc_halves])
        start = 0
        for i, hs, match in zip(with_disc, disc_halves, matched):
            other = _with_templates(_merge_levels(flat[start:start + len(hs)]), match)
            start += len(hs)
            if other.value is not None and best_probability(other) > best_probability(reads[i]):
                halves[i], reads[i] = hs[0], other
                read_in_disc.add(i)
    # A half whose ink reads as no digit at all may have had paper and ink told apart the wrong
    # way round (a heavy white number covering most of a grey triangle): read it the other way,
    # and keep that only where it reads clearly.
    doubtful = [i for i, (h, r) in enumerate(zip(halves, reads)) if _reads_as_no_digit(h, r)]
    if doubtful:
        flipped_cells = {i // 2: _split_levels(cells[i // 2], WEAK_LEVELS, flip=True) for i in doubtful}
        flipped = [[flipped_cells[i // 2][k][i % 2] for i in doubtful] for k in range(len(WEAK_LEVELS))]
        flat = _read_distinct_halves([h for hs in flipped for h in hs], clf)
        for k, i in enumerate(doubtful):
            other = _merge_levels(flat[k::len(doubtful)])
            if other.value is not None and best_probability(other) >= _FLIPPED_MIN_P:
                halves[i], reads[i] = flipped[0][k], other
                read_in_disc.discard(i)
    return halves, reads, read_in_disc


def _discs_in_grid(cells: Sequence[np.ndarray], per_cell: Sequence[tuple[tuple[np.ndarray, np.ndarray], ...]],
                   reads: Sequence[NumberRead], digit_contrast: float
                   ) -> tuple[list[list[np.ndarray | None]], list[int], bool]:
    """The digits in a disc in each half (down0, across0, ...) at each of ``WEAK_LEVELS`` (each
    cell split at each in ``per_cell``); the halves holding one, none unless the grid is printed
    with discs; and whether any disc was found at all."""
    n = len(reads)
    # Discs are looked for at the middle level first: the search costs more than the split.
    probe = len(WEAK_LEVELS) // 2
    probed, some = _probe_discs(cells, [at[probe] for at in per_cell], WEAK_LEVELS[probe], reads, digit_contrast)
    in_disc = []
    if probed is not None:
        in_disc = [probed if k == probe else
                   [h for c, at in zip(cells, per_cell) for h in _disc_digits(c, at[k], level, digit_contrast)]
                   for k, level in enumerate(WEAK_LEVELS)]
    # A number printed in a disc is, to the plain reading, a round blot with holes: read the
    # holes as the digits where a half holds a disc, and keep that where it is the surer reading.
    with_disc = [i for i in range(n) if any(level[i] is not None for level in in_disc)]
    # A grid prints its numbers in discs throughout or not at all. Alone, a bold "0" seen a
    # little askew is as round as a disc and its hole as big as a digit: only where most of the
    # grid's numbers look like discs are discs read.
    numbered = sum(1 for i in range(n) if reads[i].value is not None or i in with_disc)
    if len(with_disc) < _DISC_GRID_SHARE * numbered:
        with_disc = []
    return in_disc, with_disc, some


def _probe_discs(cells: Sequence[np.ndarray], split: Sequence[tuple[np.ndarray, np.ndarray]], level: float,
                 reads: Sequence[NumberRead], digit_contrast: float) -> tuple[list[np.ndarray | None] | None, bool]:
    """The digits in a disc in each half (down0, across0, down1, ...) at one level, where at
    least ``_DISC_PROBE_SHARE`` of the numbered halves (read as a number, or holding a disc)
    hold one; else None. Also whether any disc was found.

    Most grids hold no discs: the search stops once the share cannot be met even if every half
    not yet searched holds one, or once ``_DISC_PROBE_FIRST`` numbered halves hold none. Cells
    read as numbers are searched first, as they count most.
    """
    read = [r.value is not None for r in reads]
    found: list[np.ndarray | None] = [None] * len(read)
    # The share's margin as it stands (each disc +1, each numbered half -share), and the most
    # the halves not yet searched can still add to it (a disc in each: 1 - share).
    margin, left, discs, numbered = 0.0, len(read), 0, 0
    for j in sorted(range(len(cells)), key=lambda j: -(read[2 * j] + read[2 * j + 1])):
        if margin + (1 - _DISC_PROBE_SHARE) * left < 0 or (discs == 0 and numbered >= _DISC_PROBE_FIRST):
            return None, discs > 0
        for i, digits in zip((2 * j, 2 * j + 1), _disc_digits(cells[j], split[j], level, digit_contrast)):
            found[i] = digits
            margin += (digits is not None) - _DISC_PROBE_SHARE * (read[i] or digits is not None)
            left -= 1
            discs += digits is not None
            numbered += read[i] or digits is not None
    return (found if discs >= _DISC_PROBE_SHARE * numbered > 0 else None), discs > 0


#: The template reader's share when its probabilities are mixed with the glyph reader's.
_TEMPLATE_SHARE = 0.3
#: A glyph read this sure is kept as it is: the templates' other candidates would only make a
#: second reading of the grid plausible (and the puzzle unconfirmed) where it was read right.
_SURE_WITHOUT_TEMPLATES = 0.7


def _with_templates(read: NumberRead, match: np.ndarray) -> NumberRead:
    """The glyph reader's read of a number in a disc, mixed with the template reader's
    probabilities (``match[v - 1]`` for the number v); the read unchanged where the templates
    saw no ink."""
    if not match.any() or best_probability(read) >= _SURE_WITHOUT_TEMPLATES:
        return read
    listed = dict(_alternatives(read))
    share = _TEMPLATE_SHARE if listed else 1.0
    return _ranked_read({v: (1 - share) * listed.get(v, 0.0) + share * float(p)
                         for v, p in zip(range(CLUE_MIN, CLUE_MAX + 1), match)})


#: A half whose best number has less probability than this, or that has ink and no number, is
#: read again with paper and ink swapped; the swapped reading is kept when its best number
#: has at least ``_FLIPPED_MIN_P``.
_NO_DIGIT_P = 0.2
_NO_DIGIT_INK = 0.03
_FLIPPED_MIN_P = 0.5


def best_probability(read: NumberRead) -> float:
    """The probability of the read's likeliest number (0 where it read none)."""
    if read.value is None:
        return 0.0
    return max(p for _, p in (read.alternatives or ((read.value, read.confidence),)))


def _reads_as_no_digit(half: np.ndarray, read: NumberRead) -> bool:
    if read.value is not None:
        return best_probability(read) < _NO_DIGIT_P
    return np.count_nonzero(half >= 128) > _NO_DIGIT_INK * half.size


def _merge_levels(reads: Sequence[NumberRead]) -> NumberRead:
    """One read from the reads of the same half at several binarisation levels, loosest first:
    probabilities averaged, and confidence halved when one level saw no number at all.

    A stricter level only removes ink, so it can lose a faint digit but not add one: where a
    looser level clearly read two digits and a stricter one only one of them, the stricter
    read counts for less (it stays among the alternatives).
    """
    if all(r.value is None for r in reads):
        return NumberRead(None, float(np.mean([r.confidence for r in reads])))
    weights = [_LOST_DIGIT_WEIGHT if any(_lost_a_digit(r, looser) for looser in reads[:j]) else 1.0
               for j, r in enumerate(reads)]
    total = sum(weights)
    probs: dict[int, float] = {}
    for r, w in zip(reads, weights):
        for v, p in _alternatives(r):
            probs[v] = probs.get(v, 0.0) + w * p / total
    return _ranked_read(probs, 0.5 if any(r.value is None for r in reads) else 1.0)


def _alternatives(read: NumberRead) -> tuple[tuple[int, float], ...]:
    """The read's (value, probability) pairs: its alternatives, or its one value."""
    return read.alternatives or (((read.value, read.confidence),) if read.value is not None else ())


def _ranked_read(probs: dict[int, float], doubt: float = 1.0) -> NumberRead:
    """The read whose numbers have ``probs``: the likeliest four, and a confidence that a close
    runner-up lowers (times ``doubt``)."""
    ranked = sorted(probs.items(), key=lambda vp: -vp[1])[:4]
    p1 = ranked[0][1]
    p2 = ranked[1][1] if len(ranked) > 1 else 0.0
    conf = doubt * p1 * p1 / (p1 + p2) if p1 > 0 else 0.0
    return NumberRead(int(ranked[0][0]), float(conf), tuple((int(v), float(p)) for v, p in ranked))


#: How much a level's read counts when it looks like a looser level's number with a digit lost.
_LOST_DIGIT_WEIGHT = 0.25
#: How sure the looser level must be of its two digits.
_SURE_OF_TWO = 0.8


def _lost_a_digit(strict: NumberRead, loose: NumberRead) -> bool:
    if strict.value is None or loose.value is None:
        return False
    whole, part = str(loose.value), str(strict.value)
    return len(whole) == 2 and len(part) == 1 and part in whole and best_probability(loose) >= _SURE_OF_TWO


def read_given(cell_img: np.ndarray, *, classifier: GlyphClassifier | None = None) -> NumberRead:
    """Read a digit (1..9) printed in a white cell.

    Parameters
    ----------
    cell_img : (M, N) or (M, N, 3) ndarray
        One white cell from the rectified grid.

    Returns
    -------
    NumberRead
        ``value`` None when the cell is empty.
    """
    return read_given_digits([cell_img], classifier=classifier)[0]


def read_given_digits(cells: Sequence[np.ndarray], *, classifier: GlyphClassifier | None = None
                      ) -> list[NumberRead]:
    """:func:`read_given` of each of several cells, with one classifier call for them all."""
    jobs = []
    for i, cell_img in enumerate(cells):
        gray = _to_gray(cell_img, f"cells[{i}]")
        ink = _ink_mask(gray, _INSIDE, _CORE)
        ink = _remove_lines(ink, _INSIDE, diagonal=False) if ink.any() else ink
        jobs.append(_job(ink, _GIVEN_MAX_H))
    return _read_many(jobs, classifier or default_classifier(), max_value=9, n_digits=(1,)) if jobs else []


#: A grid whose white cells are mostly written in is a filled-in solution (a solver's pen, or a
#: printed answer page): its digits are answers to check, not givens to trust.
_FILLED_SHARE = 0.5
#: Printed givens share one font size and sit centred in their cells; handwriting does not.
_GIVEN_HEIGHT_TOL = 0.12
_GIVEN_CENTRE_TOL = 0.12
_GIVEN_MIN_CONF = 0.9
#: A given may stand taller than a clue's digits: up to most of its cell (the borders are removed).
_GIVEN_MAX_H = 0.85
_GIVEN_ALONE_MAX = 8
#: Lab chroma by which a given's ink may differ from the grid's own printing ink (blue pen).
_GIVEN_CHROMA_TOL = 12.0


def ink_chroma(cell_img: np.ndarray, ink: np.ndarray) -> float | None:
    """Median Lab chroma of a colour cell's ink pixels (``ink`` on the 96x96 frame)."""
    ink = ink > 0
    if cell_img.ndim != 3 or cell_img.shape[2] != 3 or not ink.any():
        return None
    small = cv2.resize(cell_img, (_S, _S), interpolation=cv2.INTER_AREA)
    lab = bgr_to_lab(small.astype(np.uint8)).astype(np.float32)
    core = cv2.erode(ink.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    pick = core if core.sum() >= 10 else ink
    return float(np.median(np.hypot(lab[..., 1][pick] - 128, lab[..., 2][pick] - 128)))


def _marks(cells: Sequence[np.ndarray]) -> tuple[list[np.ndarray], list[list[_Glyph]]]:
    """Per white cell, its ink (grid lines left out) and the glyphs in it large enough to be a
    digit written or printed there."""
    masks, glyph_lists = [], []
    for cell in cells:
        gray = _to_gray(cell, "cells[i]")
        ink = _ink_mask(gray, _INSIDE, _CORE, _RIM)
        ink = _remove_lines(ink, _INSIDE, diagonal=False) if ink.any() else ink
        masks.append(ink)
        glyph_lists.append([g for g in _segment(ink, _GIVEN_MAX_H) if g.box_xy[3] >= 0.2 * _S])
    return masks, glyph_lists


def filled_in(cells: Sequence[np.ndarray]) -> bool:
    """Whether more than half of a grid's white cells hold a digit (a solver's, or a solution's)."""
    return sum(1 for glyphs in _marks(cells)[1] if glyphs) > _FILLED_SHARE * len(cells)


def read_givens(cells: Sequence[np.ndarray], *, ink_chromas: Sequence[float] = (),
                classifier: GlyphClassifier | None = None,
                tesseract_reader: "TesseractReader | None" = None) -> list[NumberRead]:
    """Printed given digits in the white cells of one grid; an empty read where there is none.

    A wrong given makes a wrong puzzle, so a digit counts only when it looks printed and both
    readers agree on it:

    * the grid is not a filled-in one (at most half of its white cells hold ink), since a solver's
      pen marks are answers to check, not givens;
    * it is one glyph, centred in its cell, of the height shared by the grid's other givens
      (a font has one digit height; handwriting wanders);
    * its ink has the colour of one of the grid's printing inks (``ink_chromas``), not a blue pen's;
    * the glyph classifier is confident and tesseract reads the same digit.

    Parameters
    ----------
    cells : sequence of ndarray
        The white cells of one grid, cut from the rectified image (BGR or gray).
    ink_chromas : sequence of float, optional
        Lab chroma of each ink the grid is printed in (its darkest ink, its clue digits); a
        given must match one of them. No colour test without them.

    Returns
    -------
    list of NumberRead
        One per cell; ``value`` None unless a given was read with confidence.
    """
    clf = classifier or default_classifier()
    empty = [NumberRead(None, 1.0) for _ in cells]
    if not cells:
        return empty
    masks, glyph_lists = _marks(cells)
    marked = [i for i, gl in enumerate(glyph_lists) if gl]
    if not marked:
        return empty
    if len(marked) > _FILLED_SHARE * len(cells):
        log.info("givens: %d of %d white cells hold ink; a filled-in grid, no givens taken",
                 len(marked), len(cells))
        return empty
    single = [i for i in marked if len(glyph_lists[i]) == 1]
    if len(single) < len(marked):
        log.info("givens: %d white cells hold more than one mark; not print", len(marked) - len(single))
    heights = np.array([glyph_lists[i][0].box_xy[3] for i in single], np.float32)
    if heights.size == 0:
        return empty
    h_ref = float(np.median(heights))
    keep = []
    for i, h in zip(single, heights):
        x, y, w, hh = glyph_lists[i][0].box_xy
        off = max(abs(x + w / 2 - _S / 2), abs(y + hh / 2 - _S / 2)) / _S
        if abs(h - h_ref) > _GIVEN_HEIGHT_TOL * h_ref or off > _GIVEN_CENTRE_TOL:
            continue
        if ink_chromas:
            chroma = ink_chroma(cells[i], masks[i])
            if chroma is not None and min(abs(chroma - c) for c in ink_chromas) > _GIVEN_CHROMA_TOL:
                continue
        keep.append(i)
    # Marks of many heights or off-centre are handwriting: then none of them is trusted.
    if len(keep) < 0.75 * len(marked):
        log.info("givens: only %d of %d marks look printed; no givens taken", len(keep), len(marked))
        return empty
    reads = _read_many([(glyph_lists[i], 1.0) for i in keep], clf, max_value=9, n_digits=(1,))
    tess = tesseract_reader or TesseractReader()
    second: list[NumberRead] | None = None
    if tess.tesseract_cmd:
        second = tess.read_halves([masks[i] for i in keep], max_value=9, max_height=_GIVEN_MAX_H)
        # Read again on its own what the mosaic gave no text for while the glyph reader is sure
        # (a lone heavy digit); a few at most, each is a call of its own.
        again = [k for k, i in enumerate(keep) if second[k].value is None
                 and reads[k].value is not None and reads[k].confidence >= _GIVEN_MIN_CONF][:_GIVEN_ALONE_MAX]
        for k, read in zip(again, tess.read_halves([masks[keep[k]] for k in again], max_value=9, alone=True,
                                                   max_height=_GIVEN_MAX_H)):
            second[k] = read
    out = list(empty)
    for k, i in enumerate(keep):
        g = reads[k]
        # Without tesseract there is no second opinion: only a near-certain read is taken.
        agree = second[k].value == g.value if second is not None else g.confidence >= 0.97
        if g.value is not None and g.confidence >= _GIVEN_MIN_CONF and agree:
            out[i] = g
        else:
            log.info("givens: cell %d read %s (%.2f), tesseract %s: left empty", i, g.value,
                     g.confidence, None if second is None else second[k].value)
            out[i] = NumberRead(None, 0.0, g.alternatives)
    return out


# --------------------------------------------------------------------------------------------
# Readers


class ClueReader(Protocol):
    """Reads clue cells: each cell gives (down, across)."""

    def read_cells(self, cells: list[np.ndarray]) -> list[tuple[NumberRead, NumberRead]]:
        ...


class GlyphReader:
    """The fast default reader: segmentation plus the shipped glyph classifier.

    Parameters
    ----------
    classifier : GlyphClassifier, optional
        Defaults to the shipped model, loaded once on first use.
    """

    def __init__(self, classifier: GlyphClassifier | None = None):
        self.classifier = classifier or default_classifier()

    def read_cells(self, cells: list[np.ndarray]) -> list[tuple[NumberRead, NumberRead]]:
        _, reads, _ = _read_clue_halves(cells, self.classifier)
        return [(reads[2 * i], reads[2 * i + 1]) for i in range(len(cells))]


_LINE_H = 40     # glyph height on the tesseract mosaic
_LINE_GAP = 28


class TesseractReader:
    """Reads many half-cells with ONE tesseract call: a mosaic image, one half per line.

    Parameters
    ----------
    tesseract_cmd : str, optional
        The executable; found on PATH by default.
    max_lines : int
        Halves per mosaic; a bigger batch is split into several calls.
    """

    def __init__(self, tesseract_cmd: str | None = None, max_lines: int = 200):
        self.tesseract_cmd = tesseract_cmd or shutil.which("tesseract")
        self.max_lines = max_lines

    def read_cells(self, cells: list[np.ndarray]) -> list[tuple[NumberRead, NumberRead]]:
        halves = [h for c in cells for h in split_clue_cell(c)]
        reads = self.read_halves(halves)
        return [(reads[2 * i], reads[2 * i + 1]) for i in range(len(cells))]

    def read_halves(self, halves: Sequence[np.ndarray], *, max_value: int = CLUE_MAX,
                    alone: bool = False, max_height: float = _DIGIT_H[1]) -> list[NumberRead]:
        """Read half-cell ink masks (from :func:`split_clue_cell`), batched into few tesseract calls.

        With ``alone``, each is read on its own as a single character (one call each): the
        block layout of a mosaic can drop a lone, heavy digit as not being text.
        """
        if alone:
            out = []
            for half in halves:
                glyphs = _segment(half, max_height)
                out.append(_text_to_read(*self._run([_mosaic_line(glyphs)], psm="10")[0], max_value)
                           if glyphs else NumberRead(None, 1.0))
            return out
        lines: list[np.ndarray | None] = []
        for half in halves:
            glyphs = _segment(half, max_height)
            lines.append(_mosaic_line(glyphs) if glyphs else None)
        out: list[NumberRead] = [NumberRead(None, 1.0)] * len(halves)
        todo = [i for i, ln in enumerate(lines) if ln is not None]
        for start in range(0, len(todo), self.max_lines):
            chunk = todo[start: start + self.max_lines]
            texts = self._run([lines[i] for i in chunk])
            for i, (text, conf) in zip(chunk, texts):
                out[i] = _text_to_read(text, conf, max_value)
        return out

    def _run(self, line_images: list[np.ndarray], psm: str = "6") -> list[tuple[str, float]]:
        if not self.tesseract_cmd:
            raise ClueReadError("tesseract not found; install tesseract-ocr or read with GlyphReader only")
        width = max(im.shape[1] for im in line_images) + 2 * _LINE_GAP
        pitch = _LINE_H + _LINE_GAP
        mosaic = np.full((pitch * len(line_images) + _LINE_GAP, width), 255, np.uint8)
        for k, im in enumerate(line_images):
            y = _LINE_GAP + k * pitch
            mosaic[y: y + im.shape[0], _LINE_GAP: _LINE_GAP + im.shape[1]] = im
        env = dict(os.environ, OMP_THREAD_LIMIT="1")
        with tempfile.TemporaryDirectory(prefix="kakuro-ocr-") as tmp:
            path = os.path.join(tmp, "mosaic.png")
            cv2.imwrite(path, mosaic)
            cmd = [self.tesseract_cmd, path, "stdout", "--psm", psm, "-l", "eng",
                   "-c", "tessedit_char_whitelist=0123456789", "tsv"]
            try:
                res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, check=True)
            except (OSError, subprocess.SubprocessError) as exc:
                raise ClueReadError(f"tesseract failed ({exc}); check the tesseract-ocr install") from exc
        words: list[list[tuple[int, str, float]]] = [[] for _ in line_images]
        for row in res.stdout.splitlines()[1:]:
            f = row.split("\t")
            if len(f) < 12 or f[0] != "5" or not f[11].strip():
                continue
            left, top, h = int(f[6]), int(f[7]), int(f[9])
            k = int(round((top + h / 2 - _LINE_GAP - _LINE_H / 2) / pitch))
            if 0 <= k < len(words):
                words[k].append((left, f[11].strip(), float(f[10])))
        out = []
        for ws in words:
            ws.sort()
            text = "".join(w for _, w, _ in ws)
            conf = min((c for _, _, c in ws), default=0.0) / 100.0
            out.append((text, conf))
        return out


def _mosaic_line(glyphs: list[_Glyph]) -> np.ndarray:
    """Black-on-white strip of one half's digits, scaled to the mosaic line height."""
    canvas = (_union(glyphs).mask > 0).astype(np.uint8) * 255
    scale = _LINE_H / canvas.shape[0]
    w = max(1, round(canvas.shape[1] * scale))
    line = cv2.resize(canvas, (w, _LINE_H), interpolation=cv2.INTER_LINEAR)
    return 255 - line


def _text_to_read(text: str, conf: float, max_value: int) -> NumberRead:
    if not text:
        return NumberRead(None, 0.3)
    if text.isdigit() and not text.startswith("0") and 1 <= int(text) <= max_value:
        v = int(text)
        return NumberRead(v, conf, ((v, conf),))
    return NumberRead(None, 0.0)


def _combine(g: NumberRead, t: NumberRead) -> NumberRead:
    """Merge the glyph reader's and tesseract's opinions on one half.

    Measured on held-out fonts, tesseract is rarely right where the glyph reader is wrong, but
    the two agreeing is strong evidence (about 98% right even among unsure reads). So agreement
    raises confidence, and disagreement keeps the glyph value, adds tesseract's as an
    alternative and caps confidence low.
    """
    if t.value is None and t.confidence == 0.0:
        return g  # tesseract saw nothing usable: no new evidence
    if g.value == t.value:
        doubt = 1.0 - 0.8 * t.confidence
        conf = 1.0 - (1.0 - g.confidence) * doubt
        # The other values lose as much as the agreed one gained: the puzzle's rules weigh
        # readings by these probabilities, and a rival the two readers both ruled out is none.
        alts = tuple((v, p if v == g.value else p * doubt) for v, p in (g.alternatives or t.alternatives))
        return NumberRead(g.value, float(min(conf, 0.99)), alts)
    alts = dict(g.alternatives)
    if t.value is not None:
        alts[t.value] = max(alts.get(t.value, 0.0), 0.5 * t.confidence)
    ranked = tuple(sorted(((int(v), float(p)) for v, p in alts.items()), key=lambda vp: -vp[1]))
    if g.value is None:
        value = t.value
        conf = 0.3 * t.confidence
    else:
        value = g.value
        conf = min(g.confidence, 0.5) * 0.8
    return NumberRead(value, float(conf), ranked)


@dataclass(frozen=True, eq=False)
class GlyphReads:
    """The glyph reader's reads of a grid's clue cells, before any second opinion: each cell's
    (down, across) halves at the first binarisation level and their reads, in cell order.
    ``in_disc`` holds the (cell index, 0 down / 1 across) of halves read as the digits in a disc
    (those are then the halves here, not the disc)."""

    halves: tuple[tuple[np.ndarray, np.ndarray], ...]
    reads: tuple[tuple[NumberRead, NumberRead], ...]
    in_disc: frozenset[tuple[int, int]] = frozenset()


#: A read less sure than this is unsure; where this share of a grid's halves are, the grid is
#: read again smoothed over a share ``_SMOOTHING`` of a cell (a screen's dot or two: 14 to 26 of
#: them to a cell).
_SURE_READ = 0.9
_SMOOTHED_LOOK_SHARE = 1 / 3
_SMOOTHING = 1.5 / 72
#: The grid's median :func:`_fine_grain` from which it is read smoothed: 0.09-0.5 on newspapers'
#: screens, 0.00-0.04 where cells were enlarged from a few pixels (digits 7-10 pixels high, which
#: smoothing closes up), and anything from 0 to 0.3 on other print (half of the test images'
#: grids under 0.08): the many unsure reads are what call for the second look.
_GRAINY = 0.09
#: A pixel stands off its surroundings by this share of its cell's contrast.
_GRAIN_STEP = 0.15


def _fine_grain(cell: np.ndarray) -> float:
    """The share of a cell's middle whose grey stands off its surroundings smoothed over a
    couple of pixels: a screen of dots sets most of it apart, print on plain paper only its
    strokes' edges, and a cell enlarged from a few pixels hardly any."""
    g = _to_gray(cell, "cell")
    core = g[_S // 6:-_S // 6, _S // 6:-_S // 6]
    lo, hi = percentile(core, (2, 98))
    off = np.abs(core - cv2.GaussianBlur(g, (0, 0), 2.0)[_S // 6:-_S // 6, _S // 6:-_S // 6])
    return float(np.mean(off > _GRAIN_STEP * max(float(hi - lo), 1.0)))


def read_clues_glyph(cells: list[np.ndarray], glyph_reader: GlyphReader | None = None) -> GlyphReads:
    """Read clue cells with the glyph classifier alone (see :func:`read_clues_two_readers`).

    The cells are read together: whether numbers stand in discs is decided over the grid.
    """
    clf = (glyph_reader or GlyphReader()).classifier
    flat_halves, flat, in_disc = _read_clue_halves(cells, clf)
    unsure = [i for i, read in enumerate(flat) if read.confidence < _SURE_READ]
    if cells and len(unsure) >= _SMOOTHED_LOOK_SHARE * len(flat) \
            and float(np.median([_fine_grain(c) for c in cells])) >= _GRAINY:
        # Many numbers read unsure, in cells of fine grain: a newspaper may print the clue
        # cells' tint as a screen of dots, which cut the digits' edges and hide a disc's round
        # outline. Smoothed over a dot or two, the tint is one grey again and the digits and
        # discs whole. Only a read more sure than the one it replaces is taken, and the grid is
        # read again as a whole, as whether numbers stand in discs is decided over the grid.
        # (Digits a few pixels high, smoothed, close up: a "6" reads "8".)
        smoothed = [cv2.GaussianBlur(c, (0, 0), _SMOOTHING * c.shape[0]) for c in cells]
        s_halves, s_flat, s_disc = _read_clue_halves(smoothed, clf)
        for i in unsure:
            if s_flat[i].confidence > flat[i].confidence:
                flat_halves[i], flat[i] = s_halves[i], s_flat[i]
                in_disc = (in_disc | {i}) if i in s_disc else (in_disc - {i})
    return GlyphReads(tuple((flat_halves[2 * i], flat_halves[2 * i + 1]) for i in range(len(cells))),
                      tuple((flat[2 * i], flat[2 * i + 1]) for i in range(len(cells))),
                      frozenset(divmod(i, 2) for i in in_disc))


def read_numbers_across_the_diagonal(cells: Sequence[np.ndarray], sides: Sequence[str],
                                     glyph_reader: GlyphReader | None = None) -> list[NumberRead | None]:
    """Each clue cell's one number read from the ink of both halves, where that ink stands on
    one line: a wide number low in a cell that heads only a down run (or high in one that heads
    only an across run) runs on past the diagonal, and its last digit (its first) is cut off
    into the other half ("15" read as "1" and "5"). ``sides`` names the number each cell holds
    ("down" or "across"); None where the halves' ink does not line up so.
    """
    clf = (glyph_reader or GlyphReader()).classifier
    jobs: list[tuple[int, list[np.ndarray]]] = []
    for k, (cell, side) in enumerate(zip(cells, sides)):
        levels = _split_levels(cell, WEAK_LEVELS)
        down, across = levels[len(WEAK_LEVELS) // 2]
        if _on_one_line(down, across) if side == "down" else _on_one_line(across, down, leftwards=True):
            jobs.append((k, [np.maximum(d, a) for d, a in levels]))
    out: list[NumberRead | None] = [None] * len(cells)
    for (k, _), read in zip(jobs, _read_stacks([unions for _, unions in jobs], clf)):
        out[k] = read
    return out


def read_faint_numbers(cells: Sequence[np.ndarray], sides: Sequence[str],
                       glyph_reader: GlyphReader | None = None) -> list[NumberRead]:
    """Each cell's number on the side ``sides`` names ("down" or "across"), its ink followed down
    to ``_FAINT_CLUE_CONTRAST``: for the halves the layout asks a number of that looked empty
    (light thin digits on a grainy grey tile stand only 26-28 levels above it). Read so faintly,
    a number is never sure: its confidence is at most ``_FAINT_CONFIDENCE``."""
    clf = (glyph_reader or GlyphReader()).classifier
    halves = [[at[0 if side == "down" else 1] for at in _split_levels(cell, WEAK_LEVELS, faint=True)]
              for cell, side in zip(cells, sides)]
    return [NumberRead(r.value, min(r.confidence, _FAINT_CONFIDENCE), r.alternatives)
            for r in _read_stacks(halves, clf)]


_FAINT_CONFIDENCE = 0.4


def _read_stacks(stacks: Sequence[Sequence[np.ndarray]], clf: GlyphClassifier) -> list[NumberRead]:
    """One read of each stack of a half's ink at the weak levels (loosest first), the levels'
    reads merged (:func:`_merge_levels`)."""
    flat = _read_distinct_halves([h for stack in stacks for h in stack], clf)
    reads, start = [], 0
    for stack in stacks:
        reads.append(_merge_levels(flat[start:start + len(stack)]))
        start += len(stack)
    return reads


def either_read(first: NumberRead, second: NumberRead) -> NumberRead:
    """One read of a number that two reads each offer: each value at the higher of its two
    probabilities, a close runner-up lowering the confidence as ever."""
    probs: dict[int, float] = {}
    for read in (first, second):
        for v, p in _alternatives(read):
            probs[v] = max(probs.get(v, 0.0), p)
    return _ranked_read(probs) if probs else first


def _on_one_line(number: np.ndarray, past: np.ndarray, *, leftwards: bool = False) -> bool:
    """Whether the glyphs ``past`` the diagonal go on from a ``number``'s glyphs along its line:
    rows shared over half the lower one's height, and lying on past its end (its start)."""
    boxes = []
    for mask in (number, past):
        glyphs = [g.box_xy for g in _segment(mask)]
        if not glyphs:
            return False
        x0, y0 = min(b[0] for b in glyphs), min(b[1] for b in glyphs)
        boxes.append((x0, y0, max(b[0] + b[2] for b in glyphs), max(b[1] + b[3] for b in glyphs)))
    (nx0, ny0, nx1, ny1), (px0, py0, px1, py1) = boxes
    shared = min(ny1, py1) - max(ny0, py0)
    on = px1 <= nx0 + 0.5 * (nx1 - nx0) if leftwards else px0 >= nx1 - 0.5 * (nx1 - nx0)
    return bool(shared >= 0.5 * min(ny1 - ny0, py1 - py0) and on)


def read_clues_two_readers(cells: list[np.ndarray], *, threshold: float = 0.9, second_opinion: bool = True,
                           glyph_reader: GlyphReader | None = None,
                           tesseract_reader: TesseractReader | None = None,
                           first_reads: GlyphReads | None = None,
                           ) -> list[tuple[NumberRead, NumberRead]]:
    """Read clue cells with the glyph classifier, asking tesseract only where it is unsure.

    Parameters
    ----------
    cells : list of ndarray
        Clue cells from the rectified grid.
    threshold : float
        Reads with confidence below this get a second opinion (one tesseract call in all).
    second_opinion : bool
        False: the glyph reader alone (when the puzzle's rules accept its reading, tesseract
        would change nothing that matters, so a caller may try this first).
    first_reads : GlyphReads, optional
        The glyph reader's reads of these same cells, made before: only the second opinion is
        asked for.

    Returns
    -------
    list of (down, across) NumberRead
        Agreement raises confidence; disagreement keeps the glyph reader's value, adds
        tesseract's as an alternative, and caps confidence at 0.4.
    """
    tess = tesseract_reader or TesseractReader()
    first = first_reads if first_reads is not None else read_clues_glyph(cells, glyph_reader)
    halves = first.halves
    reads = [list(pair) for pair in first.reads]
    unsure = [(i, j) for i, pair in enumerate(reads) for j, r in enumerate(pair)
              if r.confidence < threshold and halves[i][j].any()]
    if not second_opinion:
        unsure = []
    if unsure and tess.tesseract_cmd:
        second = tess.read_halves([halves[i][j] for i, j in unsure])
        for (i, j), t in zip(unsure, second):
            reads[i][j] = _combine(reads[i][j], t)
    elif unsure:
        log.warning("tesseract not found: %d unsure clue reads get no second opinion", len(unsure))
    return [(a, b) for a, b in reads]
