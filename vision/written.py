"""Read the digits a player wrote by hand (pen or pencil, any ink colour) in white cells.

Printed clue digits and handwriting differ enough that the printed-digit model of
:mod:`vision.glyphs` reads pen digits badly (a narrow "9" for a "1", sure of it). This module
reads them with a network of the same architecture trained on handwriting-like digits
(``tools/train_pen.py``, weights ``vision/data/pen_glyphs.npz``), and asks the printed model for
a second opinion:

1. each cell's ink is found on its own paper (:func:`vision.ocr._ink_mask`, either polarity,
   any colour) and the cell's border lines are removed;
2. the written digit is cut out as one glyph: the largest piece of ink that is not a border
   remnant, with the pieces that overlap it (a detached bar of a "5", a stroke broken by a
   light pen); ink away from it (a pencilled note in a corner, a speck) is left out but counted;
3. the pen model reads the glyph (ten digits and a "not one digit" class: scribbles, crossed-out
   or overwritten digits, two digits, border fragments); the read's confidence is its best
   probability lowered by the runner-up's, and by stray ink in the cell;
4. the printed model reads the same glyph: where it sees the same digit, the read is surer (a
   share of its own probability takes that much of the doubt away). Where it sees another, the
   pen model's read stands as it is: on real handwriting the printed model is wrong about half
   the time, so its disagreement says little.

A read is given a ``value`` only where its ``confidence`` is at least :data:`SURE`, and such a
read is very rarely wrong (``tests/test_written.py`` holds what was measured). ``value`` is None
where the cell holds no ink that looks like writing, where the best reading is "not one digit"
(or a zero), and where the read is unsure; an unsure read's likeliest digits are still in
``alternatives``.

These are a player's entries: the caller reads them only in white cells and never takes them for
a clue or a given.
"""
from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from .glyphs import REJECT, GlyphClassifier, default_classifier, glyph_inputs
from .ocr import _CORE, _INSIDE, _RIM, _S, _ink_mask, _is_diagonal_sliver, _remove_lines, _to_gray
from .types import NumberRead

__all__ = [
    "read_written_digits",
    "cut_written_glyph",
    "WrittenCut",
    "default_pen_classifier",
    "PEN_MODEL_PATH",
    "SURE",
]

log = logging.getLogger(__name__)

#: The pen-digit model shipped with the package (same architecture as ``vision.glyphs``).
PEN_MODEL_PATH = Path(__file__).with_name("data") / "pen_glyphs.npz"

#: Reads with at least this confidence are taken as what the player wrote; below it, unsure.
SURE = 0.85

# Where the printed model reads the same digit, this share of its probability removes doubt.
_AGREE_WEIGHT = 0.5

_SPECK = 0.002           # pieces smaller than this share of the cell are specks
_EDGE_STRIP = 0.07       # ink lying wholly this close to an edge is a border remnant
_MAX_H = 0.97            # a piece taller than this share of the side is a line
_MAX_W = 0.85
_MIN_H = 0.12            # a written digit is at least this tall (share of the side)
_JOIN = 0.06             # pieces this close to the digit's box (share of the side) are part of it
_STRAY_DOUBT = 0.35      # confidence lost per unit of stray ink (share of the digit's ink)


@dataclass(frozen=True, eq=False)
class WrittenCut:
    """What one white cell holds, as :func:`cut_written_glyph` cuts it.

    Attributes
    ----------
    glyph : (h, w) uint8 ndarray or None
        The written digit's ink (strength 1..255, 0 off it), cropped; None where the cell holds
        no piece of ink that could be writing.
    box_xy : tuple of int
        x, y, w, h of the glyph in the 96x96 cell frame.
    stray : float
        Ink elsewhere in the cell (notes, specks, pieces not joined to the digit), as a share of
        the glyph's own ink.
    pieces : int
        Pieces of ink joined into the glyph.
    """

    glyph: np.ndarray | None
    box_xy: tuple[int, int, int, int] = (0, 0, 0, 0)
    stray: float = 0.0
    pieces: int = 0


def cut_written_glyph(cell_img: np.ndarray) -> WrittenCut:
    """Cut the handwritten digit out of one white cell.

    Parameters
    ----------
    cell_img : (M, N) or (M, N, 3) ndarray
        One white cell cut from the rectified grid (BGR or gray), a little of the grid lines
        around it allowed.

    Returns
    -------
    WrittenCut
        The digit's ink, or ``glyph`` None where there is none.
    """
    return _cut(cell_img, "cell_img")


def _cut(cell_img: np.ndarray, name: str) -> WrittenCut:
    gray = _to_gray(cell_img, name)
    ink = _ink_mask(gray, _INSIDE, _CORE, _RIM)
    if not ink.any():
        return WrittenCut(None)
    ink = _remove_borders(ink)
    n, labels, stats, _ = cv2.connectedComponentsWithStats((ink > 0).astype(np.uint8), connectivity=8)
    pieces = []
    strip = _EDGE_STRIP * _S
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area < _SPECK * _S * _S:
            continue
        if h > _MAX_H * _S or w > _MAX_W * _S:
            continue
        if x + w <= strip or x >= _S - strip or y + h <= strip or y >= _S - strip:
            continue
        if h < 0.25 * _S and _is_diagonal_sliver(labels[y:y + h, x:x + w] == i):
            continue  # a remnant of a clue cell's diagonal, not a stroke
        pieces.append((i, x, y, w, h, area))
    if not pieces:
        return WrittenCut(None)
    # The digit is the biggest piece (by the square of its extent times its ink: a tall stroke
    # beats a blot of the same ink), with every piece that reaches into its box.
    main = max(pieces, key=lambda p: max(p[3], p[4]) * np.sqrt(p[5]))
    x0, y0, x1, y1 = main[1], main[2], main[1] + main[3], main[2] + main[4]
    joined, rest = [main], [p for p in pieces if p is not main]
    grown = True
    pad = _JOIN * _S
    while grown:
        grown = False
        for p in list(rest):
            _, x, y, w, h, _ = p
            if x < x1 + pad and x + w > x0 - pad and y < y1 + pad and y + h > y0 - pad:
                # Part of the digit if it overlaps the digit's box more than it sticks out of it.
                ox = min(x + w, x1) - max(x, x0)
                oy = min(y + h, y1) - max(y, y0)
                if ox > -pad and oy > -pad and (max(ox, 0) * max(oy, 0) >= 0.3 * w * h or h < 0.5 * (y1 - y0)
                                                and ox > 0 and oy > -pad):
                    joined.append(p)
                    rest.remove(p)
                    x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x + w), max(y1, y + h)
                    grown = True
    if y1 - y0 < _MIN_H * _S:
        return WrittenCut(None, stray=1.0)
    ids = [p[0] for p in joined]
    glyph = np.where(np.isin(labels[y0:y1, x0:x1], ids), ink[y0:y1, x0:x1], 0).astype(np.uint8)
    own = float(sum(p[5] for p in joined))
    stray = float(sum(p[5] for p in rest)) / own
    return WrittenCut(glyph, (x0, y0, x1 - x0, y1 - y0), stray, len(joined))


_BORDER_RUN = 0.7        # a straight run of ink this long (share of the side) is a border line
_BORDER_REACH = 0.16     # border lines are looked for this far into the cell


def _remove_borders(ink: np.ndarray) -> np.ndarray:
    """Clear the cell's border lines: straight runs of ink near an edge, most of a side long.

    Like :func:`vision.ocr._remove_lines` but for longer runs: a written "2" or "7" near the
    bottom or top of its cell has a bar half the cell long that is not a border. Only the line's
    own pixels go, so a digit written across a border keeps its shape.
    """
    kept = _remove_lines(ink, _INSIDE, diagonal=False, run_share=_BORDER_RUN, reach_share=_BORDER_REACH)
    return np.where(_INSIDE, kept, 0).astype(ink.dtype)


@functools.cache
def default_pen_classifier() -> GlyphClassifier:
    """The shared pen-digit classifier backed by the shipped weights (read on first use)."""
    return GlyphClassifier(PEN_MODEL_PATH)


def read_written_digits(cells: Sequence[np.ndarray], *, pen_classifier: GlyphClassifier | None = None,
                        print_classifier: GlyphClassifier | None = None) -> list[NumberRead]:
    """Read the digit written by hand in each of several white cells.

    Parameters
    ----------
    cells : sequence of (M, N, 3) or (M, N) ndarray
        White cells cut from the rectified grid (BGR or gray), any size; ink of any colour.
    pen_classifier, print_classifier : GlyphClassifier, optional
        The pen-digit and printed-digit models; the shipped ones by default.

    Returns
    -------
    list of NumberRead
        One per cell. ``value`` is the digit 1..9 read with a ``confidence`` of at least
        :data:`SURE`, or None: an empty cell (``confidence`` then says how sure it is empty),
        ink that is no digit (a scribble, a crossed-out or overwritten digit; ``confidence`` 0),
        or a digit read with less confidence than :data:`SURE` (its ``confidence`` as computed).
        ``alternatives`` are the likeliest digits with the pen model's probabilities, best first,
        whenever the cell held ink: an unsure read's guess is the first.
    """
    cuts = [_cut(c, f"cells[{i}]") for i, c in enumerate(cells)]
    marked = [i for i, c in enumerate(cuts) if c.glyph is not None]
    out = [NumberRead(None, _empty_confidence(c)) for c in cuts]
    if not marked:
        return out
    images, aspect = glyph_inputs([cuts[i].glyph for i in marked])
    pen = (pen_classifier or default_pen_classifier()).predict_inputs(images, aspect)
    printed = (print_classifier or default_classifier()).predict_inputs(images, aspect)
    for k, i in enumerate(marked):
        out[i] = _decide(pen[k], printed[k], cuts[i])
    return out


def _empty_confidence(cut: WrittenCut) -> float:
    # No glyph: sure it is empty unless small pieces of ink were set aside.
    return 1.0 if cut.stray == 0.0 else 0.5


def _decide(pen: np.ndarray, printed: np.ndarray, cut: WrittenCut) -> NumberRead:
    """One cell's read from the two models' class probabilities (11 each) and its cut."""
    order = np.argsort(pen)[::-1]
    best = int(order[0])
    alts = tuple((int(d), float(pen[d])) for d in order if 1 <= d <= 9)[:3]
    if best == REJECT or best == 0:
        # Ink that is not one digit (or a zero, which no Kakuro cell holds): nothing read.
        return NumberRead(None, 0.0, alts)
    p1, p2 = float(pen[order[0]]), float(pen[order[1]])
    conf = p1 * p1 / (p1 + p2)   # a close runner-up means we do not know
    if int(np.argmax(printed)) == best:
        # The printed model sees the same digit: its doubt and ours must both be wrong.
        conf = 1.0 - (1.0 - conf) * (1.0 - _AGREE_WEIGHT * float(printed[best]))
    conf *= max(0.0, 1.0 - _STRAY_DOUBT * min(cut.stray, 1.0))
    # Unsure: no value, but the guess stays first among the alternatives.
    return NumberRead(best if conf >= SURE else None, float(conf), alts)
