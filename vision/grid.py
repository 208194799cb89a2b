"""Find puzzle grids on an image, rectify them, and find their row and column boundaries.

The detector works on a downscaled copy: dark ink is thresholded locally, every large connected
blob of ink (a grid's lines and black cells hang together) gives a candidate quadrilateral, and a
candidate is kept only when its rectified interior shows regular, long, straight lines in both
directions. The lattice found there also refines the corners, which are then mapped back to full
resolution, so no step assumes square cells or a known size.
"""
from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from .histograms import hist_percentile, percentile
from .imageio import downscale_for_detection
from .types import Lattice, Quad

__all__ = [
    "GridGeometry",
    "find_grids",
    "rectify",
    "find_lattice",
    "locate_puzzles",
    "lined_both_ways",
    "detection_mask",
    "MIN_CELLS",
    "MAX_CELLS",
]

log = logging.getLogger(__name__)

#: Smallest and largest number of rows or columns a puzzle grid may have.
MIN_CELLS = 3
MAX_CELLS = 40

_DETECT_SIDE = 1000     # detection works on a copy this large; grids are big features
_PROBE_SIDE = 480       # rectified size (longer side) used to score candidates
_MIN_CONTRAST = 0.7     # lattice contrast below this is not a grid (text block, photo, frame)
_MIN_CONTRAST_LIKE = 0.4  # the same, for a direction fitted with the other direction's cell size
_SHADOW_PAPER = 0.4       # paper in a cast shadow keeps more of the light beside it than this
_BLANK_INK = 0.97         # a dark cell with more of its middle inked than this holds no mark


@dataclass(frozen=True, slots=True)
class GridGeometry:
    """One located puzzle: its corners, the homography, and its lattice in the rectified image.

    Attributes
    ----------
    quad : Quad
        Outer corners in source pixels (TL, TR, BR, BL).
    H : (3, 3) float64 ndarray
        Source pixels -> rectified pixels.
    lattice : Lattice
        Row and column boundaries in rectified pixels.
    warped_size : tuple of int
        (height, width) of the rectified image.
    other_outlines : tuple
        Outlines of the same grid as clear, with fewer rows or columns, clearest first:
        (corners in source pixels, clarity, (rows, columns)); see :func:`locate_in_other_outlines`.
    """

    quad: Quad
    H: np.ndarray
    lattice: Lattice
    warped_size: tuple[int, int]
    other_outlines: tuple = field(default=(), compare=False, repr=False)

    @property
    def shape(self) -> tuple[int, int]:
        return self.lattice.shape


# --------------------------------------------------------------------------------------------
# Public API


def find_grids(image_bgr: np.ndarray) -> list[Quad]:
    """Find every puzzle grid on an image.

    Parameters
    ----------
    image_bgr : (M, N, 3) or (M, N) uint8 ndarray
        The photo, scan or screenshot.

    Returns
    -------
    quads : list of Quad
        One per grid, corners TL TR BR BL in source pixels, in reading order (top to bottom,
        then left to right). Empty when no grid is visible.
    """
    return [g.quad for g in locate_puzzles(image_bgr)]


def detection_mask(image_bgr: np.ndarray) -> np.ndarray:
    """The ink the locator looks for grids in (white on black, at detection size): for --debug."""
    small, _ = downscale_for_detection(_to_gray(image_bgr), _DETECT_SIDE)
    return _ink_mask(small)


def locate_puzzles(image_bgr: np.ndarray, cell_px: int = 48) -> list[GridGeometry]:
    """Find every grid and its lattice; the rectified image has about ``cell_px`` per cell.

    Parameters
    ----------
    image_bgr : (M, N, 3) or (M, N) uint8 ndarray
    cell_px : int
        Pixels per cell in the rectified image that ``H`` maps to.

    Returns
    -------
    geometries : list of GridGeometry
        In reading order; empty when no grid is visible.
    """
    gray = _to_gray(image_bgr)
    small, scale = downscale_for_detection(gray, _DETECT_SIDE)
    # Where no lattice shows at all, the image is looked at again smoothed (see _probe): a
    # scanned newspaper's blocks printed as a screen of dots break every line into dots. Only
    # then: smoothed, a page's text and buttons pass for more grids, and every blob costs again.
    geometries = _locate_in(gray, small, scale, cell_px, screened=False)
    return geometries if geometries else _locate_in(gray, small, scale, cell_px, screened=True)


def _locate_in(gray: np.ndarray, small: np.ndarray, scale: float, cell_px: int, screened: bool) -> list[GridGeometry]:
    """:func:`locate_puzzles` in ``small`` (``gray`` reduced by ``scale``), every candidate probed
    smoothed where ``screened``."""
    found = []
    bridged: list = []  # the bridged ink's labels, once needed
    for options in _candidate_quads(small):
        if any(_within_a_cell_of(options[0], f[0] * scale, f[2]) for f in found):
            continue
        # A blob's line quad and hull quad often coincide: each distinct quad is probed once.
        distinct = list({q.tobytes(): q for q in options}.values())
        long_cells: set[bytes] = set()
        probes = [p for p in (_probe(small, q, screened=screened, long_cells=long_cells) for q in distinct)
                  if p is not None]
        if not probes:
            probes = [p for p in (_probe(small, q, refit_long_cells=True, screened=screened)
                                  for q in distinct if q.tobytes() in long_cells) if p is not None]
        # Two grids printed close together (a puzzle over its answer key) pass for one, the page
        # between them a row of cells that no line crosses: each grid is found on its own.
        if not probes:
            continue
        probes = _single_grids(small, probes)
        if not probes:
            continue
        probes = _square_cells_first(probes)
        best = max(probes, key=lambda p: p[1])
        # The rows and columns the blob's own quads already hold, as clear as the clearest, are
        # the grid's (a first row of grey tiles and clue tiles, found by the blob's lines).
        held = max((p for p in probes if p is best or p[1] >= best[1] - _TIED and _continues(p, best)),
                   key=lambda p: cv2.contourArea(p[0]))
        # Only as clear as the clearest, continuing its lattice or holding its quad whole (the
        # strokes of the digits in an app's tiles counted as a lattice in a skewed quad inside
        # the board), and lined all round: bridged, a line of text or a row of buttons beside a
        # grid may pass for one more row, but the column lines do not cross it.
        # Or far clearer than any of the blob's own quads: those were pieces of the grid that the
        # bridging joined up (tiles parted by light gaps, where no dark blob holds the grid).
        probes += [p for p in (_probe(small, q, screened=screened) for q in _bridged_quads(small, best, bridged))
                   if p is not None and (p[1] >= best[1] + _BRIDGED_CLEARER or p[1] >= best[1] and (_continues(
                       p, best) or _encloses(p, best)) and _lined_all_round(small, p, held)
                       or _squarer_outline(p, best))]
        # Near-equal scores: the larger quad, since a tight one may have cut off a row of cells;
        # but only one with the best one's rows and columns, or more of cells of the same size
        # (:func:`_continues`). An upright box around a tilted grid scores nearly as well with its
        # lattice a column off, and a quad with one corner pulled out (a wedge of page taken in
        # where the frame's shadow runs on) with a row more of cells a tenth taller.
        probes = _square_cells_first(probes)
        best = _clearest(probes)
        # Rows or columns past the picture's edge are not seen, however clear the lines inside:
        # on a screenshot a quad two columns wider, reaching off the screen, scores as well as
        # the board's own. (A grid cut off by the picture's edge is found as before.)
        # Nor where the clearest reaches past two opposite edges while another quad lies within
        # the picture: a grid cut off both ways is no grid framed inside it; a dark board's light
        # frame and the dark screen past it counted a row more on every side.
        within = [p for p in probes if _within_picture(small, p)]
        seen = within if within and (_within_picture(small, best) or _past_opposite_edges(small, best)) else probes
        if not any(p is best for p in seen):
            best = _clearest(seen)
        chosen = max((p for p in seen if p[1] >= best[1] - _AS_CLEAR
                      and (p[2] == best[2] or _continues(p, best))),
                     key=lambda p: cv2.contourArea(p[0]))
        # One with more rows or columns that holds the clearest quad and continues its lattice
        # (cells of the same size) is the same grid with the rows the clearest one cut off, and
        # may score a little lower still: grey blocks round an app's grid blur its border lines.
        wider = [p for p in seen if p[2] != chosen[2] and p[2][0] >= chosen[2][0] and p[2][1] >= chosen[2][1]
                 and _continues(p, best) and (p[1] >= best[1] - _EXTENSION_SLACK
                                              or _lined_all_round(small, p, chosen))]
        quad_xy, contrast, shape = max(wider, key=lambda p: cv2.contourArea(p[0])) if wider else chosen
        # The others, clearest first, stand in where the chosen one cannot be refined into a
        # grid (a quad that took in the text beside the grid as a dozen more columns).
        others = tuple((p[0] / scale, p[1], p[2]) for p in sorted(probes, key=lambda p: -p[1])
                       if p[0] is not quad_xy)
        found.append((quad_xy / scale, contrast, shape, others))

    def to_small(probe):
        return probe[0] * scale, probe[1], probe[2]

    def holds(big, part) -> bool | None:
        if not _continues(big, part):
            return None
        # A lattice run on into another grid found beside it, clearer than it (a puzzle's run
        # on over the gap into its answer key), holds no more of one grid: the part is the grid.
        if any(other[1] > big[1] and _reaches_into(big[0], other[0]) for other in found):
            return False
        # A row reaching past the picture's edge is not seen, lined or not: the part is the grid.
        if not _within_picture(small, to_small(big)):
            return False
        return bool(_lined_all_round(small, to_small(big), to_small(part)))

    def runs_on(big, part) -> bool:
        # Rows of black clue cells show no line between them, numbers or not: they are the grid's
        # print, where lines of text are marks on paper.
        return _continues(big, part) and not _lined_all_round(small, to_small(big), to_small(part), every=True,
                                                               lettered_dark=True)

    kept = _drop_nested(found, holds, runs_on)
    found = [_with_nested_outlines(item, found, kept) for item in kept]
    geometries = []
    for quad_xy, contrast, shape, others in found:
        for k, option in enumerate(((quad_xy, contrast, shape),) + others):
            geom = _refine(gray, *option, cell_px)
            if geom is not None and _cells_sane(geom.lattice):
                geometries.append(replace(geom, other_outlines=_smaller_outlines(others[k:], option, geom.shape)))
                break
    return _reading_order(geometries)


#: A blob inside a grid found, this many of its cells across or less, is no grid of its own: a
#: clue cell's paper triangle, a tile, a block (no Kakuro has fewer than MIN_CELLS cells a side,
#: and the cells of a grid are not smaller than a third of those round it).
_WITHIN_CELLS = 1.5


def _reaches_into(quad_xy: np.ndarray, other_xy: np.ndarray) -> bool:
    """Whether a quad covers a fifth or more of another whose middle lies outside it."""
    middle = tuple(float(v) for v in other_xy.mean(axis=0))
    if cv2.pointPolygonTest(quad_xy.reshape(-1, 1, 2).astype(np.float32), middle, False) >= 0:
        return False
    common, _ = cv2.intersectConvexConvex(quad_xy.astype(np.float32), other_xy.astype(np.float32))
    return common >= 0.2 * cv2.contourArea(other_xy.astype(np.float32))


def _within_a_cell_of(quad_xy: np.ndarray, grid_xy: np.ndarray, shape: tuple[int, int]) -> bool:
    """Whether ``quad_xy`` lies inside the grid ``grid_xy`` of ``shape`` (centre in its outline)
    and spans no more than ``_WITHIN_CELLS`` of its cells either way: probing it (a blob of a
    grid's own cells: on an app's board each paper triangle of a clue cell is one) costs as
    much as probing the grid, twice over where nothing is found in it, and finds nothing kept."""
    width, height = quad_xy.max(axis=0) - quad_xy.min(axis=0)
    if max(width, height) > _WITHIN_CELLS * _quad_cell(grid_xy, shape):
        return False
    centre = tuple(float(v) for v in quad_xy.mean(axis=0))
    return cv2.pointPolygonTest(grid_xy.reshape(-1, 1, 2).astype(np.float32), centre, False) >= 0


def _with_nested_outlines(item, found: list, kept: list):
    """``item`` (quad, clarity, shape, others) with the outlines of ``found`` dropped inside it
    (:func:`_drop_nested`) among its others, clearest first: where the larger outline took in
    rows that pass for cells (an app's number pad under its board, keys parted by gaps) and
    cannot be read, the grid may be read in its own outline (:func:`locate_in_other_outlines`)."""
    quad_xy, contrast, shape, others = item
    outline = quad_xy.reshape(-1, 1, 2).astype(np.float32)
    nested = tuple((p[0], p[1], p[2]) for p in found
                   if not any(p is k for k in kept) and p[2] != shape
                   and cv2.pointPolygonTest(outline, tuple(float(v) for v in p[0].mean(axis=0)), False) >= 0)
    if not nested:
        return item
    return quad_xy, contrast, shape, tuple(sorted(others + nested, key=lambda p: -p[1]))


def _within_picture(image: np.ndarray, probe) -> bool:
    """Whether a probe's quad stays within a quarter of a cell of the picture's edges."""
    return not _past_edges(image, probe).any()


def _past_edges(image: np.ndarray, probe) -> np.ndarray:
    """Which of the picture's edges (left, top, right, bottom) a probe's quad reaches past by more
    than a quarter of a cell."""
    margin = 0.25 * _quad_cell(probe[0], probe[2])
    return np.concatenate([probe[0].min(axis=0) < -margin,
                           probe[0].max(axis=0) > np.array(image.shape[1::-1]) + margin])


def _past_opposite_edges(image: np.ndarray, probe) -> bool:
    """Whether a probe's quad reaches past both of two opposite edges of the picture."""
    past = _past_edges(image, probe)
    return bool((past[:2] & past[2:]).any())


def _clearest(probes: list):
    """The probe that scores best; of several tied (scores saturate at 1 on a clean screenshot),
    the one whose rows and columns most of the tied ones count too, then the squarest cells.

    A blob's quads are fitted several ways (its lines, its hull, its corners); one skewed across
    the lattice can still find as clear lines a column short, where the others agree."""
    top = max(p[1] for p in probes)
    tied = [p for p in probes if p[1] >= top - _TIED]
    if len(tied) == 1:
        return tied[0]
    shapes = [p[2] for p in tied]
    return max(tied, key=lambda p: (shapes.count(p[2]), -_cell_elongation(p)))


#: Scores this near the best count as a tie in :func:`_clearest`.
_TIED = 0.005


def _cell_elongation(probe) -> float:
    """How much longer a probe's cells are one way than the other, in the image (1 for square)."""
    width, height = _side_lengths(probe[0])
    n_rows, n_cols = probe[2]
    ratio = (height / n_rows) / max(width / n_cols, 1e-9)
    return max(ratio, 1 / max(ratio, 1e-9))


def _square_cells_first(probes: list) -> list:
    """The probes, less those whose cells are far from square where one with near-square cells
    scores nearly as well: a Kakuro's cells are square (a photo's foreshortening makes them up
    to about 1.2 times as long one way), and print inside them (an app's large "0" in every
    empty cell, a tile's rounded sides) can make the lines of a lattice twice as fine one way,
    a little clearer than the grid's own."""
    square = [p for p in probes if _cell_elongation(p) < _NEAR_SQUARE]
    if not square:
        return probes
    clearest_square = max(p[1] for p in square)
    return [p for p in probes if _cell_elongation(p) < _NEAR_SQUARE or p[1] > clearest_square + _SQUARE_SLACK]


def _squarer_outline(probe, other) -> bool:
    """Whether ``probe`` has near-square cells where ``other`` has cells far from square, in the
    same outline (every corner within half a cell), scoring nearly as well: the same grid with
    its lines counted right (see :func:`_square_cells_first`)."""
    if not (_cell_elongation(probe) < _NEAR_SQUARE <= _cell_elongation(other)) or probe[1] < other[1] - _SQUARE_SLACK:
        return False
    return float(np.linalg.norm(probe[0] - other[0], axis=1).max()) < 0.5 * _quad_cell(probe[0], probe[2])


#: How much clearer a lattice of cells far from square must be than one of near-square cells of
#: the same blob to be taken instead.
_SQUARE_SLACK = 0.1


def _single_grids(gray_small: np.ndarray, probes: list) -> list:
    """The probes that hold one grid (:func:`_one_grid`). Only a quad with more cells than another
    of its blob may hold two grids that were seen apart, or the clearest; where the clearest does,
    any of them may."""
    top = max(probes, key=lambda p: p[1])
    if not _one_grid(gray_small, top):
        return [p for p in probes if p is not top and _one_grid(gray_small, p)]
    fewest = min(p[2][0] * p[2][1] for p in probes)
    return [p for p in probes if p is top or p[2][0] * p[2][1] == fewest or _one_grid(gray_small, p)]


def _smaller_outlines(others, option, shape: tuple[int, int]) -> tuple:
    """Of probes ``others`` (clearest first), the first ``_OTHER_OUTLINES`` of distinct sizes with
    no more rows or columns than ``shape`` and at least the clarity of the ``option`` taken: the
    larger outline is taken over a clearer one where the two score nearly alike, and may have
    taken in a title or the page beside it."""
    kept, shapes = [], {shape}
    for other in others:
        rows, cols = other[2]
        if other[1] >= option[1] and rows <= shape[0] and cols <= shape[1] and other[2] not in shapes:
            shapes.add(other[2])
            kept.append(other)
    return tuple(kept[:_OTHER_OUTLINES])


#: Outlines of other sizes kept with a grid for a second reading (see :func:`locate_in_other_outlines`).
_OTHER_OUTLINES = 2


def locate_in_other_outlines(image_bgr: np.ndarray, geometry: GridGeometry,
                             cell_px: int = 48) -> Iterator[GridGeometry]:
    """The grid located again in each of its other outlines (``geometry.other_outlines``), clearest
    first: the same print seen with fewer rows or columns (the one taken may have taken in a title
    above the frame, or the page beside it, as rows of cells). Refined only when asked for."""
    gray = _to_gray(image_bgr)
    for option in geometry.other_outlines:
        geom = _refine(gray, *option, cell_px)
        if geom is not None and _cells_sane(geom.lattice):
            yield geom


#: How much clearer a bridged quad must be than a blob's own to stand for the blob's grid.
_BRIDGED_CLEARER = 0.15

#: How much lower a quad that continues the clearest one's lattice may score (see locate_puzzles).
_EXTENSION_SLACK = 0.1


def _continues(big, small) -> bool:
    """Whether probe ``big`` holds probe ``small`` and has cells of its size (within 8%) both ways:
    the same lattice with more rows or columns."""
    (bq, _, (b_rows, b_cols)), (sq, _, (s_rows, s_cols)) = big, small
    if (b_rows, b_cols) == (s_rows, s_cols):
        return False
    b_w, b_h = _side_lengths(bq)
    s_w, s_h = _side_lengths(sq)
    if abs((b_w / b_cols) / (s_w / s_cols) - 1) > 0.08 or abs((b_h / b_rows) / (s_h / s_rows) - 1) > 0.08:
        return False
    # The rows and columns it adds lie outside the smaller one: the same outline counted a row
    # more (cells 7% shorter) is no continuation.
    if (b_cols > s_cols and b_w - s_w < 0.5 * (b_cols - s_cols) * s_w / s_cols) or (
            b_rows > s_rows and b_h - s_h < 0.5 * (b_rows - s_rows) * s_h / s_rows):
        return False
    return _corners_within(sq, bq, 0.3 * _quad_cell(sq, (s_rows, s_cols)))


def _encloses(big, small) -> bool:
    """Whether probe ``big``'s outline holds ``small``'s whole (within 0.3 of big's cell)."""
    return _corners_within(small[0], big[0], 0.3 * _quad_cell(big[0], big[2]))


def _corners_within(quad_xy: np.ndarray, outline_xy: np.ndarray, tolerance: float) -> bool:
    """Whether every corner of ``quad_xy`` lies inside ``outline_xy`` or within ``tolerance`` of it."""
    hull = outline_xy.reshape(-1, 1, 2).astype(np.float32)
    return all(cv2.pointPolygonTest(hull, (float(x), float(y)), True) >= -tolerance for x, y in quad_xy)


def _lined_all_round(gray_small: np.ndarray, probe, held, every: bool = False, lettered_dark: bool = False) -> bool:
    """Whether the outer rows and columns that probe's lattice adds to probe ``held`` are crossed
    by its lines (tiles parted by gaps are: each tile's edges are lines), not only dark (see
    :func:`_band_support`). The rows ``held`` already has are its own: an app's last row of pale
    tiles, tinted as the cursor's column, shows weak lines in either outline. With ``every``, the
    rows and columns added on each side are so in the main, not only the outermost: lines of text
    under a grid, spaced like its rows, are crossed by no line, but the last may be underlined.
    ``lettered_dark`` as in :func:`_lines_crossing`."""
    row_sup, col_sup, H, (height, width), cell = _lines_crossing(gray_small, probe, lettered_dark)
    # Where the held quad's sides lie in this lattice (corners TL TR BR BL): a side half a cell
    # or more inside, at either end, is added (a skewed outline adds a wedge).
    (tl, tr, br, bl) = _apply_h(H, held[0])
    left, top = max(tl[0], bl[0]), max(tl[1], tr[1])
    right, bottom = min(tr[0], br[0]), min(bl[1], br[1])
    n_rows, n_cols = len(row_sup), len(col_sup)
    row_size, col_size = height / n_rows, width / n_cols
    own = (row_sup[int(round(top / row_size)):n_rows - int(round((height - bottom) / row_size))],
           col_sup[int(round(left / col_size)):n_cols - int(round((width - right) / col_size))])
    sides = ((row_sup, top, row_size, False, own[0]), (row_sup, height - bottom, row_size, True, own[0]),
             (col_sup, left, col_size, False, own[1]), (col_sup, width - right, col_size, True, own[1]))
    for support, beyond, size, at_end, inside in sides:
        if beyond <= 0.5 * cell:
            continue
        # With ``every``, as lined as the held rows are, near enough: a large grid's thin lines
        # photographed small show half their length all over.
        least = _LINED * min(1.0, float(np.median(inside))) if every and inside.size else _LINED
        k = max(1, int(round(beyond / size))) if every else 1
        if min(support[-1] if at_end else support[0],
               float(np.median(support[-k:] if at_end else support[:k]))) < least:
            return False
    return True


def _lines_crossing(gray_small: np.ndarray, probe, lettered_dark: bool = False):
    """Per row and per column of probe's lattice, the share of its cell boundaries that show as
    lines (:func:`_band_support`); with the probe's warp H, (height, width) and cell size. With
    ``lettered_dark``, dark cells need no line between them even where marked (black clue cells
    with light numbers, their lines lost between them)."""
    quad_xy, _, (n_rows, n_cols) = probe
    width, height = _aspect_size(quad_xy, _PROBE_SIDE)
    warped, H = _warp(gray_small, quad_xy, width, height)
    rows, cols = np.linspace(0, height, n_rows + 1), np.linspace(0, width, n_cols + 1)
    cell = min(height / n_rows, width / n_cols)
    cum_v, cum_h = _line_sums(warped, cell)
    # Blocks need no line between them, as in _trim_unsupported: a column of grey tiles round
    # an app's board shows its gaps faintly, grey on grey. But only blank ones: text is marks on
    # paper, and a row of buttons under an app's grid is as dark as its blocks but lettered.
    # Grey tiles too (a quarter of the way from paper to ink or more, which takes in all that
    # the halfway cut does): an app's grey blocks round its board, parted by light gaps as pale
    # as the page, show no line at all.
    dark = _ink_share(_below_cut(warped, rows, cols, _GREY_CUT), rows, cols) > 0.5
    if not lettered_dark:
        dark &= _blank_cells(warped, rows, cols, dark)
    row_sup = _band_support(cum_v, dark, rows, cols, cell)
    col_sup = _band_support(cum_h, dark.T, cols, rows, cell)
    return row_sup, col_sup, H, (height, width), cell


def _one_grid(gray_small: np.ndarray, probe) -> bool:
    """Whether no row or column inside probe's lattice is bare between two lined ones: crossed by
    lines at under ``_UNLINED`` of its cell boundaries, as the page between two grids is, where
    the rows beside it show theirs (``_LINED``). A shadow or a bowed page weakens a grid's lines
    over several rows, not in one row alone."""
    if min(probe[2]) < 3:
        return True
    return not any(((sup[1:-1] < _UNLINED) & (sup[:-2] >= _LINED) & (sup[2:] >= _LINED)).any()
                   for sup in _lines_crossing(gray_small, probe)[:2])


#: A row of cells crossed by lines at fewer of its boundaries shows none of them (see _one_grid).
_UNLINED = 0.3


#: Share of an outer row's cell boundaries that must show as lines for it to count as lined.
_LINED = 0.7


def _blank_cells(gray: np.ndarray, rows: np.ndarray, cols: np.ndarray, asked: np.ndarray | None = None) -> np.ndarray:
    """(n_rows, n_cols): whether each cell's middle (a fifth of a cell in) is of one tone, its
    spread (10th to 90th percentile) under ``_BLANK_SPREAD`` of the grey's whole range; only the
    cells ``asked`` where given (the others False)."""
    low, high = percentile(gray, [1, 99])
    limit = _BLANK_SPREAD * max(float(high) - float(low), 1.0)
    n_rows, n_cols = len(rows) - 1, len(cols) - 1
    asked = np.ones((n_rows, n_cols), bool) if asked is None else asked
    row_spans, col_spans = _middles(rows), _middles(cols)
    cell_row, cell_col = _owners(row_spans, gray.shape[0]), _owners(col_spans, gray.shape[1])
    if gray.dtype != np.uint8 or cell_row is None or cell_col is None:
        blank = np.zeros((n_rows, n_cols), bool)
        for r, c in zip(*np.nonzero(asked)):
            middle = gray[row_spans[r][0]:row_spans[r][1], col_spans[c][0]:col_spans[c][1]]
            if middle.size:
                p10, p90 = percentile(middle, [10, 90])
                blank[r, c] = p90 - p10 < limit
        return blank
    # All cells at once (a cell's percentiles one by one were most of a probe's line check): the
    # 10th and 90th percentiles are order statistics of each cell's 8-bit greys, read off its
    # histogram (vision.histograms), to the same values as numpy's.
    ids = cell_row[:, None] * n_cols + cell_col[None, :]
    inside = (cell_row[:, None] >= 0) & (cell_col[None, :] >= 0)
    inside &= asked.ravel()[np.where(inside, ids, 0)]
    cum = np.cumsum(np.bincount(ids[inside] * 256 + gray[inside], minlength=n_rows * n_cols * 256)
                    .reshape(-1, 256), axis=1)
    have = cum[:, -1] > 0
    spread = hist_percentile(cum, 0.9) - hist_percentile(cum, 0.1)
    return (have & (spread < limit)).reshape(n_rows, n_cols)


def _middles(edges: np.ndarray) -> list[tuple[int, int]]:
    """Each cell's middle along one axis, a fifth of the cell in from either edge, in pixels."""
    return [(int(round(a + 0.2 * (b - a))), int(round(b - 0.2 * (b - a)))) for a, b in zip(edges[:-1], edges[1:])]


def _owners(spans: list[tuple[int, int]], length: int) -> np.ndarray | None:
    """Per pixel along an axis, the index of the span (start, stop) holding it, -1 for none;
    None where two spans share a pixel or one reaches outside 0..length."""
    owner = np.full(length, -1)
    for k, (start, stop) in enumerate(spans):
        if start < 0 or stop > length or (owner[start:stop] >= 0).any():
            return None
        owner[start:stop] = k
    return owner


#: Spread of a blank cell's middle, as a share of the image's range of grey.
_BLANK_SPREAD = 0.1


def _side_lengths(quad_xy: np.ndarray) -> tuple[float, float]:
    """Mean width and height of a quad (tl, tr, br, bl), in the quad's own precision."""
    tl, tr, br, bl = quad_xy
    return ((np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2,
            (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2)


def _quad_cell(quad_xy: np.ndarray, shape: tuple[int, int]) -> float:
    """The side of a quad's cells of ``shape`` (rows, columns): the smaller of width and height."""
    width, height = _side_lengths(quad_xy)
    return min(width / shape[1], height / shape[0])


def extend_geometry(geometry: GridGeometry, top: int = 0, left: int = 0) -> GridGeometry:
    """The same grid with ``top`` more rows above it and ``left`` more columns to its left.

    Each added row or column is as wide as the lattice's median one, continuing the grid's own
    perspective; the rectified frame is shifted so that the added cells lie inside it.
    """
    rows, cols = np.asarray(geometry.lattice.row_edges), np.asarray(geometry.lattice.col_edges)
    row_step, col_step = float(np.median(np.diff(rows))), float(np.median(np.diff(cols)))
    rows = np.concatenate([rows[0] - row_step * np.arange(top, 0, -1), rows])
    cols = np.concatenate([cols[0] - col_step * np.arange(left, 0, -1), cols])
    dy, dx = max(0.0, -rows[0]), max(0.0, -cols[0])
    T = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])
    H = T @ geometry.H
    height, width = geometry.warped_size
    return _with_lattice(geometry, H, rows + dy, cols + dx, (int(np.ceil(height + dy)), int(np.ceil(width + dx))))


def trim_geometry(geometry: GridGeometry, top: int = 0, left: int = 0, bottom: int = 0,
                  right: int = 0) -> GridGeometry:
    """The same grid without ``top`` rows above, ``left`` columns before, and so on."""
    rows = geometry.lattice.row_edges[top:len(geometry.lattice.row_edges) - bottom]
    cols = geometry.lattice.col_edges[left:len(geometry.lattice.col_edges) - right]
    if len(rows) < 2 or len(cols) < 2:
        raise ValueError("trim_geometry: nothing left of the grid")
    return _with_lattice(geometry, geometry.H, rows, cols, geometry.warped_size)


def _with_lattice(geometry: GridGeometry, H: np.ndarray, rows, cols, warped_size: tuple[int, int]) -> GridGeometry:
    """``geometry`` with a new lattice (in the frame ``H`` maps to); its corners follow the lattice."""
    box_xy = np.array([[cols[0], rows[0]], [cols[-1], rows[0]], [cols[-1], rows[-1]], [cols[0], rows[-1]]])
    corners_xy = _apply_h(np.linalg.inv(H), box_xy).astype(np.float32)
    return GridGeometry(quad=Quad(corners_xy, geometry.quad.score), H=H,
                        lattice=Lattice(tuple(float(v) for v in rows), tuple(float(v) for v in cols)),
                        warped_size=warped_size)


def rectify(image: np.ndarray, quad: Quad, cell_px: int = 48,
            shape: tuple[int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Warp the quadrilateral to an upright rectangle.

    Parameters
    ----------
    image : (M, N[, 3]) ndarray
    quad : Quad
        Corners TL TR BR BL in ``image`` pixels.
    cell_px : int
        With ``shape`` given, pixels per cell; otherwise the longer side is ``cell_px * 12``.
    shape : (n_rows, n_cols), optional
        Grid shape, when known, so every cell gets ``cell_px`` pixels a side.

    Returns
    -------
    warped : ndarray
        The rectified grid, same dtype and channels as ``image``.
    H : (3, 3) float64 ndarray
        Homography from ``image`` pixels to ``warped`` pixels.
    """
    corners_xy = np.asarray(quad.corners_xy, dtype=np.float32).reshape(4, 2)
    if shape is not None:
        n_rows, n_cols = shape
        width, height = n_cols * cell_px, n_rows * cell_px
    else:
        width, height = _aspect_size(corners_xy, cell_px * 12)
    return _warp(image, corners_xy, width, height)


def find_lattice(warped_gray: np.ndarray, shape: tuple[int, int] | None = None) -> Lattice:
    """Find row and column boundaries of a rectified grid from its lines.

    The number of cells comes from the periodicity of the line profiles (no square cells
    assumed); each boundary is then snapped to its local line peak, so spacing may vary.

    Parameters
    ----------
    warped_gray : (M, N) uint8 ndarray
        A rectified grid whose outer border lies near the image border.
    shape : (n_rows, n_cols), optional
        Known counts; the outer border is then taken to be the image border (as ``rectify``
        makes it) and only inner boundaries are snapped. Otherwise everything is estimated.

    Returns
    -------
    lattice : Lattice
    """
    if warped_gray.ndim == 3:
        warped_gray = cv2.cvtColor(warped_gray, cv2.COLOR_BGR2GRAY)
    rows_p, cols_p = _line_profiles(warped_gray, light_lines=shape is not None and _lines_are_light(warped_gray, shape))
    if shape is not None:
        h, w = warped_gray.shape[:2]
        row_edges = _snap_edges(rows_p, 0.0, float(h), shape[0])
        col_edges = _snap_edges(cols_p, 0.0, float(w), shape[1])
    else:
        row_edges, _ = _fit_edges(rows_p, None)
        col_edges, _ = _fit_edges(cols_p, None)
    return Lattice(tuple(float(v) for v in row_edges), tuple(float(v) for v in col_edges))


# --------------------------------------------------------------------------------------------
# Candidates


def _cells_sane(lattice: Lattice) -> bool:
    """Whether every row and column of a lattice is a real stretch (a refit squeezed into a
    corner of the candidate can leave rows of no height)."""
    for edges in (lattice.row_edges, lattice.col_edges):
        sizes = np.diff(edges)
        if sizes.min() < max(2.0, 0.3 * float(np.median(sizes))):
            log.debug("candidate rejected: rows or columns of no size %s", np.round(sizes, 1))
            return False
    return True


def _to_gray(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return image
    if image.ndim == 3 and image.shape[2] == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY)
    raise ValueError(f"image_bgr must be (M, N) or (M, N, 3), got shape {image.shape}")


def _ink_mask(gray: np.ndarray) -> np.ndarray:
    """Dark strokes relative to their surroundings: robust to shading and to a dark desk."""
    return cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, _ink_block(gray), 8)


def _ink_block(gray: np.ndarray) -> int:
    """Side (odd) of the neighbourhood ink is judged against: about a cell of a page-sized grid."""
    return max(15, (max(gray.shape) // 40) | 1)


def _ink_mask_in_shadow(gray: np.ndarray, ink: np.ndarray) -> np.ndarray:
    """``ink`` without the band that a cast shadow's edge adds to it.

    Beside the edge of a cast shadow, the paper in the shadow is darker than the mean around it
    (which takes in the lit side), and a band of it passes for ink, joining the grid to the text
    around it or cutting it off. That band is neither thin (a closing fills it) nor dark next to
    the brightest paper near it. Ink is thin or dark: grid lines, text and black cells stay.
    """
    block = _ink_block(gray)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (block, block))
    thin = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, kernel) > 16
    brightest = cv2.dilate(gray, cv2.getStructuringElement(cv2.MORPH_RECT, (2 * block + 1, 2 * block + 1)))
    grey = gray.astype(np.float32) > _SHADOW_PAPER * brightest.astype(np.float32)
    return np.where(grey & ~thin, 0, ink).astype(np.uint8)


def _candidate_quads(gray: np.ndarray) -> list[np.ndarray]:
    """Quadrilaterals around large connected blobs of ink."""
    ink = _ink_mask(gray)
    quads, boxes = [], []
    # Blobs of ink as it is, then of ink without a cast shadow's edge, where they differ.
    for mask in (ink, _ink_mask_in_shadow(gray, ink)):
        quads += _blob_quads(mask, boxes)
    return quads


def _bridged_quads(gray: np.ndarray, probe, labels: list) -> list[np.ndarray]:
    """Quads round the blob of ink that holds probe's lattice once gaps of paper a little wider
    than a line are bridged, where that blob reaches half a cell or more beyond it: an app draws
    its grid as tiles parted by light gaps, with no line round the whole, so that no blob of
    plain ink holds it all. ``labels`` keeps the bridged ink's blobs for the next probe.

    Bridged, text becomes blobs too: these quads only continue a grid found in plain ink (see
    locate_puzzles)."""
    if not labels:
        gap = cv2.getStructuringElement(cv2.MORPH_RECT, (_tile_gap(gray),) * 2)
        closed = cv2.morphologyEx(_ink_mask(gray), cv2.MORPH_CLOSE, gap)
        labels.append(cv2.connectedComponentsWithStats(closed, connectivity=8))
    _, blobs, stats, _ = labels[0]
    quad_xy, _, shape = probe
    x0, y0 = np.floor(quad_xy.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad_xy.max(axis=0)).astype(int)
    inside = blobs[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)]
    counts = np.bincount(inside.ravel(), minlength=2)
    counts[0] = 0
    blob = int(np.argmax(counts))
    if not counts[blob]:
        return []
    bx, by, bw, bh, _ = stats[blob]
    cell = _quad_cell(quad_xy, shape)
    beyond = (x0 - bx, y0 - by, bx + bw - x1, by + bh - y1)
    if max(beyond) < 0.5 * cell or max(beyond) > _BRIDGED_CELLS * cell:
        # The same outline, or one that took in the text round the grid.
        return []
    hull_xy = _blob_hull(blobs[by:by + bh, bx:bx + bw] == blob, (bx, by))
    return list({q.tobytes(): q for q in _hull_to_quads(hull_xy)}.values())


def _blob_hull(mask: np.ndarray, offset: tuple[int, int]) -> np.ndarray:
    """The convex hull (K, 2) of the pixels of ``mask``, shifted by ``offset`` (x, y): that of each
    row's first and last pixel, the same hull from two points a row instead of every pixel (a
    grid's blob holds hundreds of thousands)."""
    rows = np.nonzero(mask.any(axis=1))[0]
    first = mask[rows].argmax(axis=1)
    last = mask.shape[1] - 1 - mask[rows, ::-1].argmax(axis=1)
    two = last > first
    xs = np.concatenate([first, last[two]]) + offset[0]
    ys = np.concatenate([rows, rows[two]]) + offset[1]
    return cv2.convexHull(np.column_stack([xs, ys]).astype(np.float32)).reshape(-1, 2)


#: Rows or columns a bridged blob may add beyond the lattice on a side. The lattice found in
#: plain ink may be the white tiles alone, three cells in from the border of an app's 7x7 grid,
#: or a patch of white tiles seven cells in from the border of a 12x12 grid of dark rounded
#: tiles; a blob reaching further than a grid's side took in the text round the grid (and text
#: taken in fails the probe's checks in any case: as clear as the lattice, lined all round).
_BRIDGED_CELLS = 12.0


def _tile_gap(gray: np.ndarray) -> int:
    """Side (odd) of the closing that joins tiles parted by light gaps (1.5% of the image side:
    an app grid fills much of its screenshot, and its gaps are a tenth of a cell or so)."""
    return max(9, int(0.015 * max(gray.shape))) | 1


def _blob_quads(ink: np.ndarray, boxes: list) -> list[list[np.ndarray]]:
    """Quad options for each large blob of ``ink`` whose box is not nearly one of ``boxes``
    (which gains the boxes of the blobs taken)."""
    h, w = ink.shape
    # Bridge one-pixel breaks in faint lines so a grid stays one blob.
    ink = cv2.dilate(ink, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    min_side = max(24, 0.04 * max(h, w))
    quads, taken = [], []
    order = np.argsort(-stats[1:, cv2.CC_STAT_AREA]) + 1
    for i in order[:16]:
        x, y, bw, bh, area = stats[i]
        if min(bw, bh) < min_side or area < 0.02 * bw * bh:
            continue
        if any(_box_overlap((x, y, bw, bh), box) > 0.9 for box in boxes):
            continue
        taken.append((x, y, bw, bh))
        blob = labels[y:y + bh, x:x + bw] == i
        options = _lines_to_quads(blob, (x, y)) + _hull_to_quads(_blob_hull(blob, (x, y)))
        if options:
            quads.append(options)
    boxes += taken
    return quads


def _box_overlap(a, b) -> float:
    """Intersection over union of two (x, y, w, h) boxes."""
    x0, y0 = max(a[0], b[0]), max(a[1], b[1])
    x1, y1 = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    inter = max(0, x1 - x0) * max(0, y1 - y0)
    return inter / float(a[2] * a[3] + b[2] * b[3] - inter)


def _lines_to_quads(mask: np.ndarray, origin_xy) -> list[np.ndarray]:
    """Corners from the outermost long straight lines of a blob.

    Text touching a grid spoils its convex hull but adds no long lines, so the outer border
    is found as the extreme long segments of the two dominant line directions.
    """
    bh, bw = mask.shape
    min_len = 0.3 * min(bh, bw)
    segs = cv2.HoughLinesP(mask.astype(np.uint8) * 255, 1, np.pi / 180, threshold=int(min_len * 0.6),
                           minLineLength=min_len, maxLineGap=max(3, int(0.01 * max(bh, bw))))
    if segs is None or len(segs) < 4:
        return []
    segs = segs.reshape(-1, 4).astype(np.float64)
    d = segs[:, 2:] - segs[:, :2]
    length = np.hypot(d[:, 0], d[:, 1])
    angle = np.mod(np.degrees(np.arctan2(d[:, 1], d[:, 0])), 180.0)
    hist = np.bincount(np.rint(angle).astype(int) % 180, weights=length, minlength=180)
    hist = np.convolve(np.concatenate([hist[-5:], hist, hist[:5]]), np.ones(11), "valid")
    theta1 = int(np.argmax(hist))
    diff1 = np.abs((angle - theta1 + 90) % 180 - 90)
    apart = np.abs((np.arange(180) - theta1 + 90) % 180 - 90)
    # The other family: the strongest well apart from the first, and the strongest nearly square
    # to it, where that differs. A diagonal in every cell draws long lines at 45 degrees that,
    # tilted, can outweigh a family of thin grid lines; the probe decides between the two.
    seconds = {int(np.argmax(np.where(apart >= least, hist, -1))) for least in (50, 70)}
    quads = [q + np.asarray(origin_xy, np.float32) for theta2 in sorted(seconds)
             for q in _crossing_quads(segs, diff1, np.abs((angle - theta2 + 90) % 180 - 90), min(bh, bw))]
    for theta2, long_only in itertools.product(sorted(seconds), (False, True)):
        diff2 = np.abs((angle - theta2 + 90) % 180 - 90)
        quad = _quad_from_families(segs, length, (theta1, diff1), (theta2, diff2), min_len, long_only)
        if quad is None:
            continue
        quad = quad + np.asarray(origin_xy, np.float32)
        if cv2.isContourConvex(quad.reshape(-1, 1, 2)) and cv2.contourArea(quad) >= 0.1 * bh * bw:
            quads.append(quad)
    return quads


def _crossing_quads(segs, diff1, diff2, side: float) -> list[np.ndarray]:
    """Quads around where the two line families cross each other many times: a lattice.

    A grid printed on a page whose edge is inked too (a photo pasted on a dark page, a frame)
    is one blob with the page, and the outermost lines are the page's; its own lines cross
    each other all over the grid, the page's only at its corners.
    """
    a, b = segs[diff1 < 20], segs[diff2 < 20]
    if len(a) < 3 or len(b) < 3:
        return []
    p, r = a[:, None, :2], (a[:, 2:] - a[:, :2])[:, None, :]
    q, t = b[None, :, :2], (b[:, 2:] - b[:, :2])[None, :, :]
    den = r[..., 0] * t[..., 1] - r[..., 1] * t[..., 0]
    ok = np.abs(den) > 1e-9
    den = np.where(ok, den, 1.0)
    qp = q - p
    u = (qp[..., 0] * t[..., 1] - qp[..., 1] * t[..., 0]) / den
    v = (qp[..., 0] * r[..., 1] - qp[..., 1] * r[..., 0]) / den
    # On both segments, with a little slack for lines broken at the crossing.
    on = ok & (u > -0.02) & (u < 1.02) & (v > -0.02) & (v < 1.02)
    points = (p + u[..., None] * r)[on]
    if len(points) < 9:
        return []
    # Crossings of a lattice have neighbours; a page's corners stand alone. Counted in bins of a
    # twentieth of the blob, three bins across (thousands of crossings on a page of text).
    bins = np.floor((points - points.min(axis=0)) / max(0.05 * side, 1.0)).astype(np.int64)
    counts = np.zeros(tuple(bins.max(axis=0) + 3), np.float32)
    np.add.at(counts, (bins[:, 0] + 1, bins[:, 1] + 1), 1.0)
    around = cv2.boxFilter(counts, -1, (3, 3), normalize=False, borderType=cv2.BORDER_CONSTANT)
    keep = around[bins[:, 0] + 1, bins[:, 1] + 1] >= 5
    # Also round only the crossings of two lattice lines, each crossing as many lines of the
    # other family as the smallest grid has: a crease or a page's inked edge crosses many lines
    # of text, but a line of text crosses only those, and their crossings stood together as a
    # lattice's do (a grid joined by a crease to its page's edge, text above and below it).
    ia, ib = np.nonzero(on)
    line_a, line_b = _lines_of(a, side)[ia], _lines_of(b, side)[ib]
    pairs = np.unique(np.stack([line_a, line_b], axis=1), axis=0)
    crossed_a = np.bincount(pairs[:, 0], minlength=int(line_a.max()) + 1)
    crossed_b = np.bincount(pairs[:, 1], minlength=int(line_b.max()) + 1)
    lattice = keep & (crossed_a[line_a] > MIN_CELLS) & (crossed_b[line_b] > MIN_CELLS)
    quads = []
    for chosen in (keep, lattice) if (lattice != keep).any() else (keep,):
        if np.count_nonzero(chosen) >= 9:
            quads += _hull_to_quads(cv2.convexHull(points[chosen].astype(np.float32)).reshape(-1, 2))
    return quads


def _lines_of(segs: np.ndarray, side: float) -> np.ndarray:
    """Which line (0, 1, ...) each of ``segs`` (one family, nearly parallel) lies on: segments
    whose offsets across the family's direction lie within ``_LINES_APART`` of ``side`` of the
    next are one line (a thick line is found as several segments side by side)."""
    d = segs[:, 2:] - segs[:, :2]
    # The family's direction, each segment's taken the same way round.
    d = np.where((d[:, :1] < 0) | ((d[:, :1] == 0) & (d[:, 1:] < 0)), -d, d)
    t = np.arctan2(d[:, 1].sum(), d[:, 0].sum())
    across = ((segs[:, :2] + segs[:, 2:]) / 2) @ np.array([-np.sin(t), np.cos(t)])
    order = np.argsort(across)
    ids = np.empty(len(segs), np.int64)
    ids[order] = np.concatenate([[0], np.cumsum(np.diff(across[order]) > _LINES_APART * side)])
    return ids


#: Share of the blob's side within which segments of one family lie on one line.
_LINES_APART = 0.01


def _quad_from_families(segs, length, fam1, fam2, min_len, long_only):
    """Intersect the outermost segments of two line families.

    With ``long_only``, only segments at least half as long as the family's longest count:
    a grid's border runs its full length, text beside it does not.
    """
    lines = []
    for theta, diff in (fam1, fam2):
        fam = np.nonzero(diff < 20)[0]
        if long_only and len(fam):
            fam = fam[length[fam] >= 0.5 * length[fam].max()]
        if len(fam) < 2:
            return None
        t = np.radians(theta)
        normal = np.array([-np.sin(t), np.cos(t)])
        mids = (segs[fam, :2] + segs[fam, 2:]) / 2
        rho = mids @ normal
        extent = rho.max() - rho.min()
        if extent < min_len:
            return None
        for target in (rho.min(), rho.max()):
            # Among segments on that outer line, the longest one defines it best.
            near = fam[np.abs(rho - target) < 0.01 * extent + 2]
            lines.append(segs[near[np.argmax(length[near])]])
    first_is_horizontal = abs(np.sin(np.radians(fam1[0]))) < 0.71
    horizontal, vertical = (lines[:2], lines[2:]) if first_is_horizontal else (lines[2:], lines[:2])
    corners = []
    for h_line in horizontal:
        for v_line in vertical:
            p = _intersect(h_line, v_line)
            if p is None:
                return None
            corners.append(p)
    quad = np.asarray(corners, np.float64)
    if not np.all(np.isfinite(quad)):
        return None
    return _order_corners(quad.astype(np.float32))


def _intersect(s1: np.ndarray, s2: np.ndarray):
    p, r = s1[:2], s1[2:] - s1[:2]
    q, t = s2[:2], s2[2:] - s2[:2]
    den = r[0] * t[1] - r[1] * t[0]
    if abs(den) < 1e-9:
        return None
    u = ((q - p)[0] * t[1] - (q - p)[1] * t[0]) / den
    return p + u * r


def _hull_to_quads(hull_xy: np.ndarray) -> list[np.ndarray]:
    """Candidate corner sets for a convex hull, TL TR BR BL; the probe picks the best.

    A polygon approximation follows perspective; a minimum-area rectangle survives corners cut
    off by hollow (coloured or black) corner cells; diagonal extremes need neither.
    """
    peri = cv2.arcLength(hull_xy.reshape(-1, 1, 2), True)
    hull_area = cv2.contourArea(hull_xy.astype(np.float32))
    quads = []
    for frac in (0.01, 0.02, 0.03, 0.04, 0.06, 0.08, 0.1):
        approx = cv2.approxPolyDP(hull_xy.reshape(-1, 1, 2), frac * peri, True).reshape(-1, 2)
        if len(approx) == 4:
            quads.append(approx.astype(np.float32))
            break
        if len(approx) < 4:
            break
    quads.append(cv2.boxPoints(cv2.minAreaRect(hull_xy.astype(np.float32))).astype(np.float32))
    s = hull_xy.sum(axis=1)
    d = hull_xy[:, 0] - hull_xy[:, 1]
    quads.append(np.array([hull_xy[s.argmin()], hull_xy[d.argmax()], hull_xy[s.argmax()], hull_xy[d.argmin()]],
                          dtype=np.float32))
    out = []
    for q in quads:
        q = _order_corners(q)
        if cv2.contourArea(q) >= 0.5 * hull_area and not any(np.abs(q - o).max() < 2 for o in out):
            out.append(q)
    return out


def _order_corners(pts_xy: np.ndarray) -> np.ndarray:
    """TL, TR, BR, BL by angle around the centroid, starting from the top-left-most."""
    c = pts_xy.mean(axis=0)
    ang = np.arctan2(pts_xy[:, 1] - c[1], pts_xy[:, 0] - c[0])
    pts = pts_xy[np.argsort(ang)]  # clockwise in image coordinates (y down)
    start = np.argmin(pts.sum(axis=1))
    return np.roll(pts, -start, axis=0).astype(np.float32)


def _aspect_size(corners_xy: np.ndarray, long_side: int) -> tuple[int, int]:
    width, height = _side_lengths(corners_xy)
    k = long_side / max(width, height, 1.0)
    return max(8, int(round(width * k))), max(8, int(round(height * k)))


def _warp(image, corners_xy, width, height):
    dst_xy = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
    H = cv2.getPerspectiveTransform(np.asarray(corners_xy, np.float32), dst_xy)
    warped = cv2.warpPerspective(image, H, (width, height), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=255)
    return warped, H.astype(np.float64)


#: A photographed square keeps its corners this far from flat or closed; a quad sharper than
#: this is sheared along a family of diagonals (a grid with a diagonal in every cell has a
#: lattice of rows and diagonals too).
_MIN_CORNER_DEG = 50.0


def _sharpest_corner(quad_xy: np.ndarray) -> float:
    """The interior angle (degrees) of the quad farthest from a right angle, folded below 90."""
    q = np.asarray(quad_xy, np.float64)
    worst = 90.0
    for k in range(4):
        a, b = q[k - 1] - q[k], q[(k + 1) % 4] - q[k]
        cos = float(a @ b) / max(np.linalg.norm(a) * np.linalg.norm(b), 1e-9)
        angle = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))
        worst = min(worst, angle, 180.0 - angle)
    return worst


def _probe(gray_small: np.ndarray, quad_xy: np.ndarray, refit_long_cells: bool = False, screened: bool = False,
           long_cells: set[bytes] | None = None):
    """Rectify a candidate and test whether it holds a lattice; returns the tightened quad.

    With ``refit_long_cells``, a lattice whose cells come out two or more times as long one way
    as the other is fitted again the finer way with cells as long as the coarser way's (a last
    resort: a page's skewed outline passes that way too). ``long_cells`` gains the quad's bytes
    where its cells came out so (only those can probe otherwise with ``refit_long_cells``:
    the rest costs as much again for nothing). With ``screened``, the rectified
    candidate is smoothed over a few pixels first: a newspaper prints its blocks as a screen of
    dots, whose edges break every line and every boundary between a block and a white cell into
    pieces too short to count as a line."""
    if _sharpest_corner(quad_xy) < _MIN_CORNER_DEG:
        return None
    # A margin lets an outer line that the hull cut through still show as a peak.
    width, height = _aspect_size(quad_xy, _PROBE_SIDE)
    margin = 0.03
    corners = _expand_quad(quad_xy, margin)
    mw, mh = int(round(width * (1 + 2 * margin))), int(round(height * (1 + 2 * margin)))
    warped, H = _warp(gray_small, corners, mw, mh)
    if screened:
        warped = cv2.blur(warped, (_SCREEN_BLUR, _SCREEN_BLUR))
    rows_p, cols_p = _line_profiles(warped)
    # A side lying on the image border may have lost its outer line to the crop.
    h_img, w_img = gray_small.shape
    tl, tr, br, bl = quad_xy
    on_top = max(tl[1], tr[1]) < 3
    on_bottom = min(bl[1], br[1]) > h_img - 4
    on_left = max(tl[0], bl[0]) < 3
    on_right = min(tr[0], br[0]) > w_img - 4
    my, mx = (mh - height) / 2, (mw - width) / 2
    row_ends = (my if on_top else None, mh - my if on_bottom else None)
    row_edges, row_c = _fit_edges_tamed(rows_p, row_ends)
    if row_c < _MIN_CONTRAST or len(row_edges) - 1 < MIN_CELLS:
        return None
    col_ends = (mx if on_left else None, mw - mx if on_right else None)
    col_edges, col_c = _fit_edges_tamed(cols_p, col_ends)
    if col_c < _MIN_CONTRAST:
        # The columns' lines are drowned (pen strokes over thin lines, hatching) while the rows'
        # are clear: cells are near square, so the rows say how many columns to look for.
        col_edges, col_c = _fit_like(cols_p, row_edges, col_edges, col_c)
    row_size, col_size = (np.ptp(row_edges) / (len(row_edges) - 1), np.ptp(col_edges) / (len(col_edges) - 1))
    finer_rows = row_size < col_size
    if (not 1 / _NEAR_SQUARE < row_size / col_size < _NEAR_SQUARE
            and (row_c if finer_rows else col_c) >= _MIN_CONTRAST):
        # Cells far from square in a rectified grid, the finer way's lattice clear: it may be the
        # print inside the cells (an app's large "0" in every empty cell: its straight sides are
        # lines a third of a cell apart). That print is shorter than a cell, a grid's lines are
        # not: the finer way is fitted again keeping only runs of most of the coarser cell. Kept
        # only where the lines left are clear (a wrong quad's, skewed across the lattice, are
        # not: 0.55-0.91 where right ones scored 1.0), and counted no clearer than first seen.
        longer = _line_profiles(warped, run=int(_CELL_RUN * max(row_size, col_size)))
        edges, c = _fit_edges_tamed(longer[0] if finer_rows else longer[1], row_ends if finer_rows else col_ends)
        size = np.ptp(edges) / max(len(edges) - 1, 1)
        if c >= _REFIT_CONTRAST and 1 / _NEAR_SQUARE < size / max(row_size, col_size) < _NEAR_SQUARE:
            if finer_rows:
                row_edges, row_c, row_size = edges, min(c, row_c), size
            else:
                col_edges, col_c, col_size = edges, min(c, col_c), size
    long = not 0.5 < row_size / col_size < 2.0
    if long and long_cells is not None:
        long_cells.add(quad_xy.tobytes())
    if long and refit_long_cells:
        # Cells two or three times as long one way as the other: the finer lattice is the print
        # inside the cells (an app drawing every empty cell as a large "0": its top and bottom
        # strokes are lines a third of a cell apart in every row). The coarser one says how
        # many cells to look for, unless the finer one is the clearer: then the coarser way lost
        # every second line (a board of dark and light tiles on a grey board: 14 lines counted
        # across at 0.83, 7 down at 0.72), and it is fitted again with the finer way's cells.
        finer_rows = row_size < col_size
        finer_c, coarser_c = (row_c, col_c) if finer_rows else (col_c, row_c)
        refit_rows = finer_rows != (finer_c > coarser_c + _LONG_CELLS_CLEARER)
        edges = row_edges if refit_rows else col_edges
        fitted, c = _fit_like(rows_p if refit_rows else cols_p, col_edges if refit_rows else row_edges, edges, 0.0)
        # Print inside the cells is two or three lines to a cell: a finer way much finer still is
        # no grid's (letters along lines of text, taken for rows: 40 columns to 9 refitted).
        if refit_rows != finer_rows or len(edges) - 1 <= _PRINT_LINES_PER_CELL * (len(fitted) - 1):
            if refit_rows:
                row_edges, row_c = fitted, c
            else:
                col_edges, col_c = fitted, c
    row_edges, col_edges = _trim_unsupported(warped, row_edges, col_edges)
    n_rows, n_cols = len(row_edges) - 1, len(col_edges) - 1
    contrast = min(row_c, col_c)
    if n_rows < MIN_CELLS or n_cols < MIN_CELLS or contrast < _MIN_CONTRAST:
        log.debug("candidate rejected: %dx%d contrast %.2f", n_rows, n_cols, contrast)
        return None
    # Cells narrower than a few source pixels cannot hold digits: texture, not a grid.
    src_w, src_h = _side_lengths(quad_xy)
    if min(src_w / n_cols, src_h / n_rows) < 6:
        log.debug("candidate rejected: %dx%d cells too small", n_rows, n_cols)
        return None
    # Cells should be roughly square in the source (allow print/photo distortion).
    cell_aspect = ((row_edges[-1] - row_edges[0]) / n_rows) / ((col_edges[-1] - col_edges[0]) / n_cols)
    if not 0.5 < cell_aspect < 2.0:
        log.debug("candidate rejected: cell aspect %.2f", cell_aspect)
        return None
    box_xy = np.array([[col_edges[0], row_edges[0]], [col_edges[-1], row_edges[0]],
                       [col_edges[-1], row_edges[-1]], [col_edges[0], row_edges[-1]]], dtype=np.float64)
    tight_xy = _apply_h(np.linalg.inv(H), box_xy)
    log.debug("candidate %dx%d contrast %.2f", n_rows, n_cols, contrast)
    return tight_xy.astype(np.float32), contrast, (n_rows, n_cols)


#: Pixels (of the probe's rectified candidate, ``_PROBE_SIDE`` on its longer side) a screen of
#: dots is smoothed over (see :func:`_probe`): the dots of a scanned newspaper's blocks, a few pixels
#: apart at that size, go grey; at 7 and more the lines between white cells fade.
_SCREEN_BLUR = 5
#: Cells of a rectified grid are this near square (long side over short side; a tilted photo's
#: foreshortening leaves up to about 1.2).
_NEAR_SQUARE = 1.4
#: The share of a cell that a line's straight run keeps at least, where the cell's size is known.
_CELL_RUN = 0.75
#: How clear those lines must be.
_REFIT_CONTRAST = 0.95


#: The most lines to a cell that the print inside an app's cells draws (a "0"'s two sides and the
#: cell's own line), counted with a little to spare.
_PRINT_LINES_PER_CELL = 3.5


#: How much clearer a lattice of long cells' finer way must be than its coarser way for the coarser
#: to be counted again at the finer cells (see :func:`_probe`).
_LONG_CELLS_CLEARER = 0.05


def lined_both_ways(geometry: GridGeometry) -> bool:
    """Whether a grid was located by clear lines both ways, not by one way's lines alone with the
    other way fitted to cells as long (:func:`_fit_like`, which scores it at the bar: lines of
    text pass that way for rows, with columns fitted to them)."""
    return geometry.quad.score > _MIN_CONTRAST


def _fit_edges_tamed(profile: np.ndarray, open_ends) -> tuple[np.ndarray, float]:
    """:func:`_fit_edges`, tried again with a heavy outer border cut down to the inner lines' level.

    A thick black frame around thin grey inner lines can be ten times as strong in the profile,
    so that the inner lines fall under every threshold and the grid looks like one big cell.
    """
    edges, contrast = _fit_edges(profile, None, open_ends=open_ends)
    if contrast >= _MIN_CONTRAST and len(edges) - 1 >= MIN_CELLS:
        return edges, contrast
    p = cv2.GaussianBlur(profile.astype(np.float32).reshape(1, -1), (0, 0), 1.0).ravel()
    heights = np.sort(p[(p >= _running_max(p, 3)) & (p > 0)])[::-1]
    if len(heights) < 2 + MIN_CELLS or heights[1] < 4 * heights[2]:
        return edges, contrast
    tamed_edges, tamed_c = _fit_edges(np.minimum(profile, 1.5 * heights[2]), None, open_ends=open_ends)
    return (tamed_edges, tamed_c) if tamed_c > contrast else (edges, contrast)


#: How much better a narrower lattice must explain the lines to win over a wider one.
_WIDER_TIE = 0.08


def _fit_like(profile: np.ndarray, other_edges: np.ndarray, edges: np.ndarray, contrast: float
              ) -> tuple[np.ndarray, float]:
    """Refit one direction's lattice with cells as long as the other direction's.

    Every cell count whose cells come within 12% of that length is tried; the best fit is kept
    when it explains the lines well enough that, with the other direction's clear lattice, the
    two together are a grid (a weaker bar than one direction alone must pass). As in
    :func:`_fit_edges`, more cells win a near tie: a lattice that leaves out a column of black
    cells explains its own lines as well.
    """
    cell = (other_edges[-1] - other_edges[0]) / max(len(other_edges) - 1, 1)
    best = None
    for n in range(min(MAX_CELLS, int(1.1 * len(profile) / cell)), MIN_CELLS - 1, -1):
        # Only the outer lines that part into such cells: the print inside the cells (an app's
        # large "0" in every empty cell) can be a finer lattice between other lines that scores
        # better, with cells of the wrong length.
        fitted, score = _fit_edges(profile, n, cell_like=cell)
        # A lattice two or three times as fine, clearer, is the print inside these cells (the
        # straight sides of an app's large "0" in every empty cell, two to a cell): no rival.
        finer_print = (len(edges) - 1) in (2 * n, 3 * n)
        if score >= _MIN_CONTRAST_LIKE and (score > contrast or finer_print) and (
                best is None or score > best[1] + _WIDER_TIE):
            best = (fitted, score)
    return (best[0], _MIN_CONTRAST) if best is not None else (edges, contrast)


def _line_sums(warped: np.ndarray, cell: float) -> tuple[np.ndarray, np.ndarray]:
    """The responses to vertical and to horizontal lines (the latter transposed), each widened
    by a quarter cell and summed down axis 0 from a leading zero row: what :func:`_band_support`
    takes. Under perspective a line strays from its lattice position towards the grid's edges
    (the lattice is an average): the strongest response within a quarter cell counts."""
    resp_h, resp_v = _line_responses(warped, cell)
    widen = np.ones((1, 2 * max(1, int(round(0.25 * cell))) + 1), np.uint8)
    cum_v = np.vstack([np.zeros((1, warped.shape[1])), np.cumsum(cv2.dilate(resp_v, widen), axis=0)])
    cum_h = np.vstack([np.zeros((1, warped.shape[0])), np.cumsum(cv2.dilate(resp_h.T.copy(), widen), axis=0)])
    return cum_v, cum_h


def _band_support(resp_cum: np.ndarray, dark: np.ndarray, bands: np.ndarray, lines: np.ndarray,
                  cell: float) -> np.ndarray:
    """Per band (row of cells), the share of its cell boundaries that show as grid.

    A boundary shows when a line crossing the band lies there, or when a cell beside it is dark
    (black cells need no line between them). ``resp_cum`` is the cumulative sum along axis 0
    (with a leading zero row) of the response to lines crossing the bands, already widened by
    a running maximum along axis 1; ``dark`` is (n_bands, n_lines - 1).
    """
    H, W = resp_cum.shape[0] - 1, resp_cum.shape[1]
    inset = 0.2 * np.diff(bands)
    lo = np.clip(np.round(bands[:-1] + inset), 0, H).astype(int)
    hi = np.clip(np.round(bands[1:] - inset), 0, H).astype(int)
    xs = np.clip(np.round(lines), 0, W - 1).astype(int)
    strength = (resp_cum[hi][:, xs] - resp_cum[lo][:, xs]) / np.maximum(hi - lo, 1)[:, None]
    beside_dark = np.zeros(strength.shape, bool)
    beside_dark[:, :-1] |= dark
    beside_dark[:, 1:] |= dark
    # Judged against the inner lines: a thick outer border would make thin inner lines look absent.
    ref = float(percentile(strength, 75))
    if strength.shape[1] > 2:
        inner = float(percentile(strength[:, 1:-1], 75))
        if np.median(strength[:, [0, -1]]) > 2.5 * inner:
            ref = inner
        # So would the edges of black cells, as strong as a border, beside thin grey lines: the
        # plain lines, between two light cells, are what a line looks like here, where they agree
        # with each other (the gaps in a box of text, its "cells" dark, are noise of all sizes).
        plain = strength[:, 1:-1][~beside_dark[:, 1:-1]]
        if plain.size >= _PLAIN_LINES:
            low, high = (float(v) for v in percentile(plain, (25, 75)))
            if ref > 2.5 * high and low >= _PLAIN_AGREE * high:
                ref = high
    shown = (strength > 0.3 * max(ref, 1e-6)) | beside_dark
    return shown.mean(axis=1)


#: Boundaries between two light cells, at least, from which their lines set what a line looks like.
_PLAIN_LINES = 6
#: Their lower quartile's share of their upper one, at least, where they are one kind of line.
_PLAIN_AGREE = 0.6


def _trim_unsupported(warped: np.ndarray, row_edges: np.ndarray, col_edges: np.ndarray,
                      min_support: float = 0.35) -> tuple[np.ndarray, np.ndarray]:
    """Drop outer rows and columns of a lattice that hold no grid (a text line, blank paper).

    The line profiles see a line of text beside a grid, or the page edge, as one more line at
    about the right spacing; but a true row of cells is crossed by the column lines (or is made
    of black cells), and text and paper are not.
    """
    rows, cols = np.asarray(row_edges, np.float64), np.asarray(col_edges, np.float64)
    if len(rows) < 3 or len(cols) < 3:
        return rows, cols
    cell = float(min(np.median(np.diff(rows)), np.median(np.diff(cols))))
    cum_v, cum_h = _line_sums(warped, cell)
    below = _below_cut(warped, rows, cols)
    for _ in range(2 * MAX_CELLS):
        if len(rows) - 1 < MIN_CELLS or len(cols) - 1 < MIN_CELLS:
            break
        share = _ink_share(below, rows, cols)
        dark = share > 0.5
        row_sup = _band_support(cum_v, dark, rows, cols, cell)
        col_sup = _band_support(cum_h, dark.T, cols, rows, cell)
        # An outer row dark all over, without one mark in it, whose darkness goes on past the
        # grid's ends, is a dark page or desk beside the grid (its edge looks like one more
        # line). A grid's own blank border row ends with the grid.
        # A row of white cells in a shadow that goes on past the grid is as dark, but the
        # column lines still cross it.
        blank = share >= _BLANK_INK
        no_dark = np.zeros_like(dark)
        for k, edges in ((0, [0, 1]), (-1, [-1, -2])):
            if blank[k].mean() >= 0.9 and _band_support(cum_v, no_dark, rows, cols, cell)[k] < 0.5 \
                    and _dark_beyond(below, rows[edges], cols):
                row_sup[k] = 0.0
            if blank[:, k].mean() >= 0.9 and _band_support(cum_h, no_dark.T, cols, rows, cell)[k] < 0.5 \
                    and _dark_beyond(below.T.copy(), cols[edges], rows):
                col_sup[k] = 0.0
        # Two empty rows running across it split the lattice: a grid on one side, text or a
        # page edge that happens to keep the spacing on the other. The larger part stays.
        split = _split_at_gap(row_sup, min_support, share.max(axis=1) < _BARE_PAGE)
        if split is not None:
            rows = rows[split]
            continue
        split = _split_at_gap(col_sup, min_support, share.max(axis=0) < _BARE_PAGE)
        if split is not None:
            cols = cols[split]
            continue
        # The weakest outer row or column goes first; the rest are judged again without it.
        ends = [(row_sup[0], "top"), (row_sup[-1], "bottom"), (col_sup[0], "left"), (col_sup[-1], "right")]
        worst, side = min(ends)
        if worst >= min_support:
            break
        if side == "top":
            rows = rows[1:]
        elif side == "bottom":
            rows = rows[:-1]
        elif side == "left":
            cols = cols[1:]
        else:
            cols = cols[:-1]
    if len(rows) - 1 >= MIN_CELLS and len(cols) - 1 >= MIN_CELLS:
        rows = _extend_over_black(rows, cols, below, cum_h, cell)
        cols = _extend_over_black(cols, rows, below.T.copy(), cum_v, cell)
        rows = _extend_cut_off(rows, cols, cum_v)
        cols = _extend_cut_off(cols, rows, cum_h)
    return rows, cols


def _split_at_gap(support: np.ndarray, min_support: float, bare: np.ndarray) -> slice | None:
    """The edges (as a slice) of the larger part beside two or more unsupported inner bands, or
    beside one that is ``bare`` page crossed by no line at all, between two parts as wide (within
    a band): a puzzle and its answer grid printed a cell apart, in line (within one grid, a
    single band's lines may all be lost, to a thick box line or a shadow)."""
    weak = np.concatenate([[False], support < min_support, [False]])
    starts = np.nonzero(weak[1:] & ~weak[:-1])[0]
    ends = np.nonzero(~weak[1:] & weak[:-1])[0]
    for a, b in zip(starts, ends):  # bands a .. b-1 are weak
        before, after = a, len(support) - b
        empty = b - a == 1 and support[a] < _EMPTY_BAND and bare[a] and abs(before - after) <= 1
        if (b - a >= 2 or empty) and a > 0 and b < len(support):
            return slice(0, a + 1) if before >= after else slice(b, len(support) + 1)
    return None


#: Support (see :func:`_band_support`) under which a single band is empty page, not cells, where
#: no cell of it has more of its middle inked than ``_BARE_PAGE`` (no text, no digit, no shade).
_EMPTY_BAND, _BARE_PAGE = 0.05, 0.02


def _extend_cut_off(bands: np.ndarray, lines: np.ndarray, resp_cum: np.ndarray) -> np.ndarray:
    """Add an outer row (``bands``) whose closing line was cut off, where the crossing lines go on.

    A screenshot or scan cropped through the last row of cells loses that row's outer line, so
    the lattice ends a row early; but the column lines still run most of a cell further. When
    nearly all of them do, at the strength of the inner bands, the row is there. ``resp_cum``
    responds to the crossing ``lines`` (see :func:`_band_support`).
    """
    step = float(np.median(np.diff(bands)))
    limit = resp_cum.shape[0] - 1
    xs = np.clip(np.round(lines), 0, resp_cum.shape[1] - 1).astype(int)

    def strength(a: float, b: float) -> np.ndarray:
        lo, hi = int(np.clip(round(a), 0, limit)), int(np.clip(round(b), 0, limit))
        return (resp_cum[hi, xs] - resp_cum[lo, xs]) / max(hi - lo, 1) if hi - lo >= 3 else np.zeros(len(xs))

    inner = [strength(bands[k] + 0.2 * step, bands[k + 1] - 0.2 * step) for k in range(len(bands) - 1)]
    ref = float(percentile(np.concatenate(inner), 75)) if inner else 0.0
    if ref <= 0:
        return bands
    # The stretch from just past the last line to most of a cell beyond it must lie in the image.
    if bands[-1] + 0.7 * step <= limit and np.mean(strength(bands[-1] + 0.1 * step, bands[-1] + 0.7 * step)
                                                  > 0.3 * ref) >= 0.8:
        bands = np.append(bands, bands[-1] + step)
    if bands[0] - 0.7 * step >= 0 and np.mean(strength(bands[0] - 0.7 * step, bands[0] - 0.1 * step)
                                             > 0.3 * ref) >= 0.8:
        bands = np.insert(bands, 0, bands[0] - step)
    return bands


def _extend_over_black(bands: np.ndarray, lines: np.ndarray, below: np.ndarray, resp_cum: np.ndarray,
                       cell: float, max_cells: int = 3) -> np.ndarray:
    """Add outer rows (``bands``) made of black cells that the line profiles could not count.

    Black cells side by side show no line between them, so a grid whose outer rows are all
    black ends, as far as lines go, at the last white or clue cell. Such rows are added when
    every cell in them is dark and a line or edge closes them off on the outside, at the
    grid's own spacing. ``resp_cum`` responds to lines parallel to the bands (see
    :func:`_band_support`; its axis 0 runs along them).
    """
    step = float(np.median(np.diff(bands)))
    limit = below.shape[0] - 1
    # Strength of a boundary parallel to the bands at ``pos``: per crossing band, then the share
    # of crossing bands where it is as strong as the grid's own inner lines.
    inset = 0.2 * np.diff(lines)
    lo = np.clip(np.round(lines[:-1] + inset), 0, resp_cum.shape[0] - 1).astype(int)
    hi = np.clip(np.round(lines[1:] - inset), 0, resp_cum.shape[0] - 1).astype(int)

    def strength(pos):
        x = int(np.clip(round(pos), 0, resp_cum.shape[1] - 1))
        return (resp_cum[hi, x] - resp_cum[lo, x]) / np.maximum(hi - lo, 1)

    ref = float(percentile([strength(b) for b in bands[1:-1]], 75)) if len(bands) > 2 else 0.0
    if ref <= 0:
        return bands
    for sign in (-1, 1):
        edge = bands[0] if sign < 0 else bands[-1]
        for k in range(1, max_cells + 1):
            outer = edge + sign * k * step
            if outer < -0.3 * step or outer > limit + 0.3 * step:
                break
            added = [edge + sign * t * step for t in range(k + 1)]
            lo_b, hi_b = (added[-1], added[-2]) if sign < 0 else (added[-2], added[-1])
            share = _ink_share(below, np.array([lo_b, hi_b]), lines)
            if np.mean(share > 0.5) < 0.7:
                break
            # Blank all over and dark past the grid's ends too: a dark page or desk, not cells.
            if np.mean(share >= _BLANK_INK) >= 0.9 and _dark_beyond(below, np.array([lo_b, hi_b]), lines):
                break
            if np.mean(strength(outer) > 0.3 * ref) >= 0.7:
                new = np.asarray(added[1:])
                bands = np.concatenate([new[::-1], bands]) if sign < 0 else np.concatenate([bands, new])
                break
    return bands


def _below_cut(gray: np.ndarray, rows: np.ndarray, cols: np.ndarray, share: float = 0.5) -> np.ndarray:
    """Integral image of pixels darker than ``share`` of the way from the grid's paper to its ink
    (halfway by default)."""
    y0, y1 = max(0, int(rows[0])), min(gray.shape[0], int(np.ceil(rows[-1])))
    x0, x1 = max(0, int(cols[0])), min(gray.shape[1], int(np.ceil(cols[-1])))
    region = gray[y0:y1:2, x0:x1:2]
    if region.size == 0:
        region = gray
    paper, ink = percentile(region, [95, 2])
    cut = float(paper) - share * (float(paper) - float(ink))
    return cv2.integral((gray < cut).astype(np.uint8)).astype(np.float64)


#: Share of the way from paper to ink under which a blank cell is a grey tile (see _lines_crossing).
_GREY_CUT = 0.25


def _dark_beyond(below: np.ndarray, band: np.ndarray, lines: np.ndarray) -> bool:
    """Whether the cell-sized stretch of ``band`` just past either end of the grid is dark too.

    ``band`` holds the two edges of an outer row, ``lines`` the column edges; a stretch mostly
    outside the image says nothing.
    """
    band = np.sort(band)
    step = float(np.median(np.diff(lines)))
    width = below.shape[1] - 1
    for a, b in ((max(lines[0] - step, 0.0), lines[0]), (lines[-1], min(lines[-1] + step, float(width)))):
        # The middle of what the image shows of that stretch: a quarter of a cell at least.
        if b - a >= 0.25 * step and _ink_share(below, band, np.array([a, b]))[0, 0] > 0.5:
            return True
    return False


def _ink_share(below: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """(n_rows, n_cols): the share of each cell's middle (a fifth of a cell in) below the cut.

    ``below`` is the integral image from :func:`_below_cut`; a share over a half means the
    cell's median is ink (a black cell).
    """
    h, w = below.shape[0] - 1, below.shape[1] - 1
    dy, dx = 0.2 * np.diff(rows), 0.2 * np.diff(cols)
    ya = np.clip(np.round(rows[:-1] + dy), 0, h).astype(int)
    yb = np.clip(np.round(rows[1:] - dy), 0, h).astype(int)
    xa = np.clip(np.round(cols[:-1] + dx), 0, w).astype(int)
    xb = np.clip(np.round(cols[1:] - dx), 0, w).astype(int)
    count = below[yb][:, xb] - below[ya][:, xb] - below[yb][:, xa] + below[ya][:, xa]
    area = np.maximum(np.outer(yb - ya, xb - xa), 1)
    return count / area


def _expand_quad(quad_xy: np.ndarray, frac: float) -> np.ndarray:
    """Grow a quad about its centre by ``frac`` of its size on each side."""
    c = quad_xy.mean(axis=0)
    return (c + (quad_xy - c) * (1 + 2 * frac)).astype(np.float32)


def _apply_h(H: np.ndarray, pts_xy: np.ndarray) -> np.ndarray:
    pts = np.asarray(pts_xy, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, H).reshape(-1, 2)


#: Two or more grids side by side (a puzzle and its answer grid, one cell apart) also make one
#: lattice around both, or across parts of both: it gives way to them where they cover this share
#: of it and are clearer by this much, or about as clear with one reaching out of it.
_SIDE_BY_SIDE_CLEARER = 0.1
_SIDE_BY_SIDE_COVER = 0.8


#: Lattices this near in clearness are as clear: of a blob's quads the larger stands, and of two
#: counts of one outline the squarer cells.
_AS_CLEAR = 0.05


#: How much clearer a grid inside a larger outline must be to replace it (the outline a frame
#: round it; the print inside a grid's cells, an app's large "0" in every one, makes a lattice of
#: its own, 0.8 clear against the grid's 0.7).
_FRAME_CLEARER = 1.2
#: A lattice whose cells are this many times smaller than a clearer grid's inside it is no grid
#: round it (see :func:`_drop_nested`).
_FINER_TEXT = 2.0


def _drop_nested(found, holds=lambda big, part: None, runs_on=lambda big, part: False):
    """Of quads that overlap, keep the one with the clearer lattice (a frame holds no lattice);
    but not a part of a larger grid: ``holds(big, part)`` (probes: quad, contrast, shape) is True
    where the larger one continues the part's lattice with rows and columns crossed by its lines,
    False where it continues it with rows that are not (the page round a grid, a title's band:
    any clearer part is the grid), None where it does not continue it. ``runs_on(big, part)`` is
    True where the larger one continues the part's lattice over rows or columns that, in the
    main, no line crosses: a part as clear as it is the grid."""
    keep = []
    inside: dict[int, list] = {}  # quads about as clear or clearer inside a kept one, by its index
    for item in sorted(found, key=lambda f: -cv2.contourArea(f[0])):
        quad_xy, contrast = item[0], item[1]
        poly = quad_xy.reshape(-1, 1, 2)
        dup = False
        for k, kept in enumerate(keep):
            kq, kc = kept[0], kept[1]
            centre = tuple(float(v) for v in quad_xy.mean(axis=0))
            kcentre = tuple(float(v) for v in kq.mean(axis=0))
            if (cv2.pointPolygonTest(kq.reshape(-1, 1, 2), centre, False) >= 0
                    or cv2.pointPolygonTest(poly, kcentre, False) >= 0):
                dup = True
                # Two readings of the same grid (say, one from the grid's own blob, one trimmed
                # down from the page around it): the clearer lattice. A frame around a grid,
                # much larger than it, gives way to a much clearer grid inside it, and the page
                # round a grid (its lattice run on over rows no line crosses) to any clearer
                # grid in it; but a grid does not to a part of it (a dark-mode screen's patches
                # of black blocks are clearer than the whole grid whose border is the image's edge).
                same = cv2.contourArea(quad_xy) > 0.8 * cv2.contourArea(kq)
                held = None if same or contrast <= kc else holds(kept[:3], item[:3])
                # A lattice of every second line of another nearly as clear is that grid counted
                # wrong (white cells in pairs along the diagonals: the lines between two white
                # cells faint, those between white cells and blocks clear): the finer one stands.
                if _every_second_line(kept[:3], item[:3]) and kc >= contrast - _HALVED_SLACK:
                    pass  # the kept one is the finer: it stands
                elif _every_second_line(item[:3], kept[:3]) and contrast >= kc - _HALVED_SLACK:
                    keep[k] = item
                elif same and abs(contrast - kc) <= _AS_CLEAR and item[2] != kept[2]:
                    # As clear, counted differently (a row more or less in the same outline):
                    # printed cells are square. As clear as a blob's own quads are to each other
                    # (the page round a grid counted it 8x9 at 1.0, the grid's blob 9x9 at 1.0
                    # and, on its larger quad, at 0.979).
                    if _squareness(quad_xy, item[2]) < _squareness(kq, kept[2]):
                        keep[k] = item
                elif contrast > kc * (1.0 if same or held is False else _FRAME_CLEARER) and not held:
                    keep[k] = item
                elif contrast > kc and _quad_cell(kq, kept[2]) * _FINER_TEXT <= _quad_cell(quad_xy, item[2]):
                    # A lattice of cells half as large or less cannot hold a clearer grid of larger
                    # cells: its lines run through that grid's cells (the lines and letters of a
                    # page's text round a grid counted 33x40 at 0.80, the grid's 8x7 0.89).
                    keep[k] = item
                elif not same and contrast >= kc - _AS_CLEAR and runs_on(kept[:3], item[:3]):
                    # As clear as a larger lattice that runs on past it over rows no line crosses
                    # (lines of text under a grid, spaced like its rows, counted at 1.00 as the
                    # page's outline holding both): the part is the grid.
                    keep[k] = item
                elif not same and contrast >= kc - _SIDE_BY_SIDE_CLEARER:
                    inside.setdefault(k, []).append(item)
                break
        if not dup:
            keep.append(item)
    for k, items in sorted(inside.items(), reverse=True):
        big = keep[k]
        # The grids give way where they are clearer, or about as clear where one reaches out of
        # the lattice (one that cuts a clear grid in two is not a lattice around it).
        clearer = [p for p in items if p[1] >= big[1] + _SIDE_BY_SIDE_CLEARER]
        for parts, reaching_out in ((_drop_nested(clearer, holds, runs_on), False),
                                    (_drop_nested(items, holds, runs_on), True)):
            if len(parts) >= 2 and sum(cv2.contourArea(p[0]) for p in parts) >= \
                    _SIDE_BY_SIDE_COVER * cv2.contourArea(big[0]) and \
                    (not reaching_out or any(_sticks_out(p, big) for p in parts)):
                log.debug("a %dx%d lattice is %d grids side by side", *big[2], len(parts))
                keep[k:k + 1] = parts
                break
    return keep


def _every_second_line(fine, coarse) -> bool:
    """Whether probe ``coarse``'s lattice is probe ``fine``'s counted at every second line: cells
    twice as large both ways (within 15%), corners on ``fine``'s lines (within 0.3 of its cell)."""
    (fine_xy, _, (rows, cols)), (coarse_xy, _, (c_rows, c_cols)) = fine, coarse
    to_cells = cv2.getPerspectiveTransform(
        fine_xy.astype(np.float32), np.float32([[0, 0], [cols, 0], [cols, rows], [0, rows]]))
    at = _apply_h(to_cells, np.asarray(coarse_xy, np.float64))  # (column, row) of each corner
    across = (at[1, 0] - at[0, 0] + at[2, 0] - at[3, 0]) / 2
    down = (at[3, 1] - at[0, 1] + at[2, 1] - at[1, 1]) / 2
    if abs(across / (2 * c_cols) - 1) > 0.15 or abs(down / (2 * c_rows) - 1) > 0.15:
        return False
    return bool(np.abs(at - np.round(at)).max() < 0.3)


#: How much less clear a lattice may be than one of its every second line and still stand.
_HALVED_SLACK = 0.1


def _sticks_out(part, big) -> bool:
    """Whether the grid of probe ``part`` reaches half a cell or more out of ``big``'s outline."""
    cell = _quad_cell(part[0], part[2])
    outline = big[0].reshape(-1, 1, 2).astype(np.float32)
    return min(cv2.pointPolygonTest(outline, (float(x), float(y)), True) for x, y in part[0]) < -0.5 * cell


def _squareness(quad_xy: np.ndarray, shape: tuple[int, int]) -> float:
    """How far from square (|log| of height over width) the cells of ``shape`` in a quad are."""
    width, height = _side_lengths(np.asarray(quad_xy, np.float64))
    width, height = width / shape[1], height / shape[0]
    return abs(float(np.log(max(height, 1e-6) / max(width, 1e-6))))


def _refine(gray: np.ndarray, quad_xy: np.ndarray, contrast: float, shape: tuple[int, int],
            cell_px: int) -> GridGeometry | None:
    """Snap the outer border at full resolution, then re-warp at ``cell_px`` per cell."""
    n_rows, n_cols = shape
    # Warp with half a cell of margin all round so the outer lines can move either way.
    width, height = (n_cols + 1) * cell_px, (n_rows + 1) * cell_px
    half = cell_px / 2
    inner_xy = np.array([[half, half], [width - half, half], [width - half, height - half], [half, height - half]],
                        np.float32)
    H0 = cv2.getPerspectiveTransform(np.asarray(quad_xy, np.float32), inner_xy)
    warped = cv2.warpPerspective(gray, H0, (width, height), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=255)
    rows_p, cols_p = _line_profiles(warped)
    row_edges = _snap_edges(rows_p, half, height - half, n_rows, outer_radius=0.3)
    col_edges = _snap_edges(cols_p, half, width - half, n_cols, outer_radius=0.3)
    box_xy = np.array([[col_edges[0], row_edges[0]], [col_edges[-1], row_edges[0]],
                       [col_edges[-1], row_edges[-1]], [col_edges[0], row_edges[-1]]], dtype=np.float64)
    corners_xy = _apply_h(np.linalg.inv(H0), box_xy).astype(np.float32)
    quad = Quad(corners_xy, score=float(min(1.0, contrast)))
    warped, H = rectify(gray, quad, cell_px, shape)
    lattice = find_lattice(warped, shape)
    return GridGeometry(quad=quad, H=H, lattice=lattice, warped_size=warped.shape[:2])


def _snap_edges(profile: np.ndarray, a: float, b: float, n: int, outer_radius: float = 0.0) -> np.ndarray:
    """Move each of ``n + 1`` evenly spaced boundaries from ``a`` to ``b`` onto its local peak.

    A boundary without a clear peak nearby (an edge shared by two black cells) is placed by
    interpolating between its snapped neighbours.
    """
    p = cv2.GaussianBlur(profile.astype(np.float32).reshape(1, -1), (0, 0), 1.0).ravel()
    top = float(percentile(p, 99)) or 1.0
    cell = (b - a) / n
    guess = a + cell * np.arange(n + 1)
    edges = guess.copy()
    found = np.zeros(n + 1, bool)
    for k in range(n + 1):
        radius = cell * (outer_radius if k in (0, n) else 0.22)
        if radius <= 0:
            found[k] = True
            continue
        if _peak_value(p, guess[k], radius) > 0.12 * top:
            edges[k] = _peak_near(p, guess[k], radius)
            found[k] = True
    if found.sum() >= 2 and not found.all():
        idx = np.nonzero(found)[0]
        missing = np.nonzero(~found)[0]
        edges[missing] = np.interp(missing, idx, edges[idx])
        # np.interp clamps at the ends; continue the spacing outwards instead.
        step = (edges[idx[-1]] - edges[idx[0]]) / max(idx[-1] - idx[0], 1)
        before, after = missing[missing < idx[0]], missing[missing > idx[-1]]
        edges[before] = edges[idx[0]] - (idx[0] - before) * step
        edges[after] = edges[idx[-1]] + (after - idx[-1]) * step
    # A lattice's cells change size slowly (perspective, a bowed page), never by half from one
    # to the next: an inner boundary that left a cell that narrow beside one that wide was
    # thrown off its line (at the end of its window, on the flank of a line just outside it,
    # the sub-pixel step can overshoot by a cell); it goes between its neighbours.
    for k in range(1, n):
        before, after = edges[k] - edges[k - 1], edges[k + 1] - edges[k]
        if min(before, after) < _LOPSIDED * cell and max(before, after) > (2 - _LOPSIDED) * cell:
            middle = 0.5 * (edges[k - 1] + edges[k + 1])
            radius = 0.5 * (1 - _LOPSIDED) * (edges[k + 1] - edges[k - 1])
            edges[k] = _peak_near(p, middle, radius) if _peak_value(p, middle, radius) > 0.12 * top else middle
    return np.maximum.accumulate(edges)


#: Share of the average cell below which an inner cell beside one as much wider is lopsided.
_LOPSIDED = 0.6


def _reading_order(geoms: list[GridGeometry]) -> list[GridGeometry]:
    """Top to bottom, then left to right; grids whose vertical extents overlap share a row."""
    items = sorted(geoms, key=lambda g: g.quad.corners_xy[:, 1].min())
    rows: list[list[GridGeometry]] = []
    for g in items:
        top, bottom = g.quad.corners_xy[:, 1].min(), g.quad.corners_xy[:, 1].max()
        if rows:
            last = rows[-1]
            ltop = min(x.quad.corners_xy[:, 1].min() for x in last)
            lbottom = max(x.quad.corners_xy[:, 1].max() for x in last)
            overlap = min(bottom, lbottom) - max(top, ltop)
            if overlap > 0.5 * min(bottom - top, lbottom - ltop):
                last.append(g)
                continue
        rows.append([g])
    return [g for row in rows for g in sorted(row, key=lambda g: g.quad.corners_xy[:, 0].min())]


# --------------------------------------------------------------------------------------------
# Lattice


def _line_profiles(gray: np.ndarray, light_lines: bool = False, run: int | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Strength of long horizontal (per row) and vertical (per column) lines and edges, light
    lines too where ``light_lines`` (only once the grid's size is known and its lines are light:
    before, a light line is as likely the paper between a page's dark blocks). ``run``: the
    shortest straight run that counts as a line (by default a twentieth of the longer side)."""
    k, default_run = _line_kernel_sizes(gray.shape)
    run = default_run if run is None else run
    # Thin dark lines: black-hat keeps dark strokes narrower than the kernel, not black cells.
    # An app's dark tiles are parted by light gaps, which are its lines (their edges alone would
    # put each boundary on a tile's edge, half a gap off). Edges between black and white cells
    # carry no line of their own. Only long straight runs are kept: digits, diagonals and text
    # strokes are short.
    resp_h, resp_v = _lines_both_ways(gray, k, run, light_lines)
    return resp_h.mean(axis=1), resp_v.mean(axis=0)


def _line_kernel_sizes(shape: tuple[int, int]) -> tuple[int, int]:
    """Widest line a hat transform keeps, and shortest run of it that counts as a line."""
    side = max(shape[:2])
    return max(5, (side // 50) | 1), max(7, side // 20)


def _lines_are_light(gray: np.ndarray, shape: tuple[int, int]) -> bool:
    """Whether a grid's inner boundaries carry light lines at all: gaps between an app's tiles
    (light between dark tiles, dark between white ones), white lines between black cells.

    Light lines respond there at least ``_LIGHT_LINE_SHARE`` as strongly as dark ones. Where a
    grid with dark lines only is searched for light ones too, the paper beside a line in a
    curled, shadowed photo pulls boundaries off it.
    """
    g = gray.astype(np.float32)
    h, w = g.shape
    k, run = _line_kernel_sizes(g.shape)
    dark: list[float] = []
    light: list[float] = []
    for n, length, across, along, axis in ((shape[0], h, (1, k), (run, 1), 1), (shape[1], w, (k, 1), (1, run), 0)):
        thin = cv2.getStructuringElement(cv2.MORPH_RECT, across)
        long_run = cv2.getStructuringElement(cv2.MORPH_RECT, along)
        cell = length / n
        for op, out in ((cv2.MORPH_BLACKHAT, dark), (cv2.MORPH_TOPHAT, light)):
            profile = cv2.morphologyEx(cv2.morphologyEx(g, op, thin), cv2.MORPH_OPEN, long_run).mean(axis=axis)
            out.extend(_peak_value(profile, i * cell, cell / 6) for i in range(1, n))
    return bool(light) and float(np.median(light)) >= _LIGHT_LINE_SHARE * float(np.median(dark))


# Measured on the samples and test images: dark lines only 0.000 to 0.046; black cells parted
# by white lines 0.19 to 0.82; app tiles 0.27 to 0.86.
_LIGHT_LINE_SHARE = 0.1


def _peak_value(profile: np.ndarray, pos: float, radius: float) -> float:
    lo = max(0, int(np.floor(pos - radius)))
    hi = min(len(profile), int(np.ceil(pos + radius)) + 1)
    return float(profile[lo:hi].max()) if hi > lo else 0.0


def _peak_near(profile: np.ndarray, pos: float, radius: float) -> float:
    # Called for every line in every band: plain floats, not numpy scalars, where it can.
    lo = max(0, math.floor(pos - radius))
    hi = min(len(profile), math.ceil(pos + radius) + 1)
    if hi <= lo:
        return float(min(max(pos, 0), len(profile) - 1))
    i = lo + int(np.argmax(profile[lo:hi]))
    # Parabolic interpolation for sub-pixel position.
    if 0 < i < len(profile) - 1:
        a, b, c = profile[i - 1], profile[i], profile[i + 1]
        den = a - 2 * b + c
        if den < 0:
            return i + 0.5 * (a - c) / den
    return float(i)


def _peaks_near(profile: np.ndarray, radius: float) -> np.ndarray:
    """:func:`_peak_near` at every index of a float32 profile at once (the same values)."""
    n = len(profile)
    reach = math.ceil(radius)
    pad = np.full(reach, -np.inf, profile.dtype)
    windows = np.lib.stride_tricks.sliding_window_view(np.concatenate([pad, profile, pad]), 2 * reach + 1)
    i = np.arange(n) - reach + windows.argmax(axis=1)
    at = i.astype(np.float64)
    inner = np.nonzero((i > 0) & (i < n - 1))[0]
    j = i[inner]
    a, b, c = profile[j - 1], profile[j], profile[j + 1]
    den = a - 2 * b + c
    bent = den < 0
    # In float32, as the scalar version computes it.
    at[inner[bent]] = j[bent].astype(np.float32) + 0.5 * (a[bent] - c[bent]) / den[bent]
    return at


def _running_max(p: np.ndarray, r: int) -> np.ndarray:
    return cv2.dilate(p.astype(np.float32).reshape(1, -1), np.ones((1, 2 * r + 1), np.uint8)).ravel()


def _outer_line_pairs(profile: np.ndarray) -> tuple[np.ndarray, float, list[tuple[float, float]]]:
    """The profile smoothed, its line strength (99th percentile), and the pairs of lines that
    may be the grid's outer border: among the first and last few strong lines (a page edge or a
    rule beside the grid is strong too), widest first, spanning at least 30% of the profile."""
    p = cv2.GaussianBlur(profile.astype(np.float32).reshape(1, -1), (0, 0), 1.0).ravel()
    top = float(percentile(p, 99)) or 1.0
    peaks = np.nonzero((p >= _running_max(p, 3)) & (p > 0.35 * top))[0]
    pairs = []
    if len(peaks) >= 2:
        for ia in peaks[:3]:
            for ib in peaks[-3:][::-1]:
                a, b = _peak_near(p, ia, 3), _peak_near(p, ib, 3)
                if b - a >= len(p) * 0.3:
                    pairs.append((a, b))
    return p, top, pairs


def _fit_edges(profile: np.ndarray, n: int | None, open_ends=(None, None), cell_like: float | None = None
               ) -> tuple[np.ndarray, float]:
    """Boundary positions along one axis, and a 0..1 score of how well a lattice explains the lines.

    ``open_ends`` gives, for the start and the end, the position of an image border that may
    have cut off a row of cells with its outer line (None where the grid is not cut). With ``n``
    cells, ``cell_like`` keeps to outer lines whose cells come within 12% of that length.
    """
    p, top, pairs = _outer_line_pairs(profile)
    if n and cell_like:
        pairs = [(a, b) for a, b in pairs if abs((b - a) / n / cell_like - 1) <= 0.12]
    L = len(p)
    best = (0.0, None, None, None)
    for a, b in pairs:
        m, score = _count_cells(p, a, b, top, n)
        # A wider lattice wins a near tie: an inner pair also explains its own lines.
        if m is not None and score > best[0] + _WIDER_TIE:
            best = (score, m, a, b)
        if best[0] >= 0.9:
            break
    contrast, m, a, b = best
    if m is None:
        return np.array([0.0, float(L - 1)]), 0.0
    span = b - a
    cell = span / m
    if n is None:
        # A border row of cells whose outer line is faint (cut by the image edge, or only an
        # edge of some cells) still leaves a weak peak one cell further out.
        while m < MAX_CELLS and a - cell > -0.3 * cell and _peak_value(p, a - cell, 0.15 * cell) > 0.12 * top:
            new_a = _peak_near(p, max(a - cell, 0.0), 0.15 * cell)
            if new_a > a - 0.5 * cell:
                break
            a, m = new_a, m + 1
        while m < MAX_CELLS and b + cell < L - 1 + 0.3 * cell and _peak_value(p, b + cell, 0.15 * cell) > 0.12 * top:
            new_b = _peak_near(p, min(b + cell, L - 1.0), 0.15 * cell)
            if new_b < b + 0.5 * cell:
                break
            b, m = new_b, m + 1
        start_cut, end_cut = open_ends
        if start_cut is not None and m < MAX_CELLS and a - start_cut > 0.75 * cell:
            a, m = max(start_cut, a - cell), m + 1
        if end_cut is not None and m < MAX_CELLS and end_cut - b > 0.75 * cell:
            b, m = min(end_cut, b + cell), m + 1
        cell = (b - a) / m
    edges = [a]
    for k in range(1, m):
        edges.append(_peak_near(p, a + k * cell, cell * 0.22))
    edges.append(b)
    edges = np.maximum.accumulate(np.asarray(edges, dtype=np.float64))
    return edges, contrast


_COMB_SAMPLES = 480
_KERNELS: dict[int, np.ndarray] = {}


def _count_cells(p: np.ndarray, a: float, b: float, top: float, n: int | None) -> tuple[int | None, float]:
    """Number of equal cells between ``a`` and ``b`` whose boundaries best explain the line peaks.

    Score = precision * recall: the share of line strength that sits on a boundary, times the
    share of boundaries that carry a line. Half the true count leaves lines unexplained, double
    the count leaves boundaries empty; both lose to the true count.
    """
    # Resample the span to a fixed length so windows mean the same at any resolution.
    xs = np.linspace(a, b, _COMB_SAMPLES + 1)
    q = np.interp(xs, np.arange(len(p)), p).astype(np.float32)
    qmax3 = cv2.dilate(q.reshape(1, -1), np.ones((1, 7), np.uint8)).ravel()
    peak_idx = np.nonzero((q >= qmax3) & (q > 0.15 * top))[0]
    # Plateaus give runs of equal maxima; keep one per run.
    if len(peak_idx):
        peak_idx = peak_idx[np.concatenate([[True], np.diff(peak_idx) > 3])]
    if len(peak_idx) < 2:
        return None, 0.0
    weights = q[peak_idx]
    ref = float(np.median(weights))
    candidates = [n] if n else [m for m in range(MIN_CELLS, MAX_CELLS + 1) if (b - a) / m >= 4]
    candidates = [m for m in candidates if m >= 2]
    if not candidates:
        return None, -np.inf
    # Every count at once: one row per count (a python loop over 20-30 counts per pair of outer
    # lines was a third of locating a grid).
    ms = np.asarray(candidates)
    cells = _COMB_SAMPLES / ms
    tols = np.maximum(2.0, 0.15 * cells)
    off = np.abs(peak_idx[None, :] - np.rint(peak_idx[None, :] / cells[:, None]) * cells[:, None])
    precision = np.where(off <= tols[:, None], weights[None, :], 0.0).sum(axis=1) / float(weights.sum())
    radii = np.ceil(tols).astype(int)
    q_row = q.reshape(1, -1)
    strength = np.zeros((len(ms), ms.max() - 1))
    for r in np.unique(radii):
        dilated = cv2.dilate(q_row, _KERNELS.setdefault(int(r), np.ones((1, 2 * r + 1), np.uint8))).ravel()
        for k in np.nonzero(radii == r)[0]:
            strength[k, :ms[k] - 1] = dilated[np.rint(cells[k] * np.arange(1, ms[k])).astype(int)]
    recall = np.minimum(1.0, strength * (2.0 / ref)).sum(axis=1) / (ms - 1)
    scores = precision * recall
    # The first count to reach the best score by more than 1e-6 over the counts before it.
    best = (-np.inf, None)
    for m, score in zip(candidates, scores.tolist()):
        if score > best[0] + 1e-6:
            best = (score, m)
    return best[1], best[0]


# --------------------------------------------------------------------------------------------
# Mesh: per-line refinement of a lattice (bowed pages, lens distortion, a border off by a third)


#: Clue digits are about a third of a cell tall: ink running on straight for 0.45 cell is a line.
_CLUE_RUN = 0.45
#: An app's large entries (a "0" in every empty cell) are two thirds of a cell tall.
ENTRY_RUN = 0.7


def refine_lattice_mesh(warped_gray: np.ndarray, lattice: Lattice, run_share: float = _CLUE_RUN) -> np.ndarray:
    """Follow every grid line through a rectified grid; returns the cell corners it finds.

    A homography cannot straighten a bowed page or a lens-distorted photo, and one wrong outer
    line shifts a whole row of cells. Each line is therefore searched for separately in every
    band of cells it crosses (within ``0.4`` cell of the lattice), and a low-order curve is
    fitted through the positions found; a line with no evidence (between two black cells)
    follows its neighbours.

    Parameters
    ----------
    warped_gray : (M, N) uint8 ndarray
        The rectified grid.
    lattice : Lattice
        Its approximate row and column boundaries.
    run_share : float
        Only ink running on straight this share of a cell is a line.

    Returns
    -------
    corners_xy : (n_rows + 1, n_cols + 1, 2) float64 ndarray
        Position of every line crossing in ``warped_gray`` pixels.
    """
    if warped_gray.ndim == 3:
        warped_gray = cv2.cvtColor(warped_gray, cv2.COLOR_BGR2GRAY)
    return _mesh_along(*_line_responses(warped_gray, lattice.cell_size, run_share), lattice)


def _mesh_along(resp_h: np.ndarray, resp_v: np.ndarray, lattice: Lattice) -> np.ndarray:
    """:func:`refine_lattice_mesh` from the line responses (:func:`_line_responses`)."""
    rows = np.asarray(lattice.row_edges, np.float64)
    cols = np.asarray(lattice.col_edges, np.float64)
    cell = lattice.cell_size
    # Vertical lines (x as a function of y) are searched in row bands, horizontal ones in columns.
    col_curves = _follow_bowed_lines(resp_v, cols, rows, cell)
    row_curves = _follow_bowed_lines(resp_h.T, rows, cols, cell)
    # Each crossing where column line j and row line i meet, every crossing at once: y starts on
    # the row's lattice place and is refined three times.
    y = np.repeat(rows[:, None], len(cols), axis=1)
    for _ in range(3):
        x = _polyval_each(col_curves, y)
        y = _polyval_each(row_curves, x.T).T
    return np.stack([_polyval_each(col_curves, y), y], axis=-1)


def _polyval_each(curves: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``np.polyval(curves[k], x[..., k])`` for every k at once (the same arithmetic, so the
    same values)."""
    y = np.zeros_like(x)
    for d in range(curves.shape[1]):
        y = y * x + curves[:, d]
    return y


def mesh_irregularity(corners_xy: np.ndarray, lattice: Lattice) -> float:
    """How far (in cells) the worst tenth of the mesh's crossings lie from the lattice's."""
    ideal = np.stack(np.meshgrid(lattice.col_edges, lattice.row_edges), axis=-1)
    cell = lattice.cell_size
    if cell <= 0:
        return float("inf")
    return float(percentile(np.linalg.norm(corners_xy - ideal, axis=-1), 90)) / cell


def mesh_bow(corners_xy: np.ndarray, lattice: Lattice) -> float:
    """How far (in cells) the mesh's outer lines bend away from the straight line between their
    ends (a border found off, or leaning, is straight: no bend)."""
    cell = lattice.cell_size
    if cell <= 0:
        return float("inf")
    bends = []
    for line in (corners_xy[0], corners_xy[-1], corners_xy[:, 0], corners_xy[:, -1]):
        a, b = line[0], line[-1]
        chord = b - a
        length = float(np.hypot(*chord))
        if length > 0:
            offset = line - a
            bends.append(float(np.abs(chord[0] * offset[:, 1] - chord[1] * offset[:, 0]).max()) / length)
    return max(bends, default=0.0) / cell


def mesh_inside_outline(corners_xy: np.ndarray, lattice: Lattice) -> float:
    """How far (in cells) the mesh's outer lines lie inside the lattice's outline, the farthest
    of the four, each by its median along its course (0 where none lies inside).

    An outline found right but drawn at the very edge of the frame the lines are followed in
    leaves the outer line half out of sight: searched for there, it is taken at the next strong
    stroke inside (the side of a column of large digits, a third of a cell in)."""
    cell = lattice.cell_size
    if cell <= 0:
        return 0.0
    inside = (float(np.median(corners_xy[0, :, 1])) - lattice.row_edges[0],
              lattice.row_edges[-1] - float(np.median(corners_xy[-1, :, 1])),
              float(np.median(corners_xy[:, 0, 0])) - lattice.col_edges[0],
              lattice.col_edges[-1] - float(np.median(corners_xy[:, -1, 0])))
    return max(0.0, max(inside)) / cell


def homography_from_mesh(corners_xy: np.ndarray, lattice: Lattice) -> np.ndarray | None:
    """The homography taking the mesh's crossings onto the lattice, robust to wrong crossings.

    When the grid's outline was found badly (a corner guessed where the page is cut or curls), the
    lattice drifts half a cell off in one corner and the mesh, searched near it, follows the wrong
    lines there, while most crossings elsewhere are right. A RANSAC fit to the crossings recovers
    the perspective those agree on; re-rectifying with it lets the mesh start near every line.
    Returns None when too few crossings agree on one perspective.
    """
    ideal = np.stack(np.meshgrid(lattice.col_edges, lattice.row_edges), axis=-1).reshape(-1, 2)
    cell = lattice.cell_size
    H, inliers = cv2.findHomography(corners_xy.reshape(-1, 2).astype(np.float32), ideal.astype(np.float32),
                                    cv2.RANSAC, 0.1 * cell)
    if H is None or inliers is None or inliers.sum() < 0.5 * len(ideal):
        return None
    return H


def remap_to_mesh(image: np.ndarray, corners_xy: np.ndarray, cell_px: int,
                  margin_px: int = 0) -> tuple[np.ndarray, Lattice]:
    """Resample ``image`` so that the cells whose corners are ``corners_xy`` become equal squares.

    Each cell is mapped bilinearly from its four corners; a ``margin_px`` frame outside the grid
    continues the outer cells.

    Returns
    -------
    regular : ndarray
        ``n_rows * cell_px + 2 * margin_px`` by ``n_cols * cell_px + 2 * margin_px`` pixels.
    lattice : Lattice
        Its (evenly spaced) boundaries.
    """
    n_rows, n_cols = corners_xy.shape[0] - 1, corners_xy.shape[1] - 1
    h, w = n_rows * cell_px + 2 * margin_px, n_cols * cell_px + 2 * margin_px
    u = (np.arange(w, dtype=np.float64) + 0.5 - margin_px) / cell_px
    v = (np.arange(h, dtype=np.float64) + 0.5 - margin_px) / cell_px
    j = np.clip(np.floor(u).astype(int), 0, n_cols - 1)
    i = np.clip(np.floor(v).astype(int), 0, n_rows - 1)
    s = (u - j)[None, :, None]
    t = (v - i)[:, None, None]
    # Along every line of corners first (small), then between the two lines round each row.
    along = (1 - s) * corners_xy[:, j] + s * corners_xy[:, j + 1]
    src = (1 - t) * along[i] + t * along[i + 1] - 0.5
    map_x = src[..., 0].astype(np.float32)
    map_y = src[..., 1].astype(np.float32)
    regular = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lattice = Lattice(tuple(float(margin_px + k * cell_px) for k in range(n_rows + 1)),
                      tuple(float(margin_px + k * cell_px) for k in range(n_cols + 1)))
    return regular, lattice


def mesh_past_entries(warped_gray: np.ndarray, lattice: Lattice, corners_xy: np.ndarray) -> np.ndarray | None:
    """The mesh followed along lines that run on for most of a cell (``ENTRY_RUN``), where the
    lines of ``corners_xy`` that it moves are short strokes: large entries (an app's "0" in
    every empty cell) beside fainter grid lines. None where it moves no line, or the lines it
    moves to carry no more such ink than those it moves from."""
    if warped_gray.ndim == 3:
        warped_gray = cv2.cvtColor(warped_gray, cv2.COLOR_BGR2GRAY)
    cell = lattice.cell_size
    resp_h, resp_v = _line_responses(warped_gray, cell, ENTRY_RUN)
    long_xy = _mesh_along(resp_h, resp_v, lattice)
    moved_from, moved_to = [], []
    for resp, a_lines, b_lines in ((resp_v, corners_xy.transpose(1, 0, 2), long_xy.transpose(1, 0, 2)),
                                   (resp_h.T, corners_xy[..., ::-1], long_xy[..., ::-1])):
        for a, b in zip(a_lines, b_lines):
            if np.abs(a[:, 0] - b[:, 0]).max() > 0.1 * cell:
                moved_from.append(_along_line(resp, a))
                moved_to.append(_along_line(resp, b))
    if not moved_from or np.mean(moved_to) <= _LONGER_LINES * np.mean(moved_from):
        return None
    return long_xy


#: How much more long-line ink the lines a mesh moves to must carry than those it moves from.
_LONGER_LINES = 1.5


def _along_line(resp: np.ndarray, line: np.ndarray) -> float:
    """The mean of ``resp`` along a mesh line given as (across, along) crossings, along axis 0."""
    y = np.arange(max(0, math.ceil(line[0, 1])), min(resp.shape[0], math.floor(line[-1, 1]) + 1))
    x = np.rint(np.interp(y, line[:, 1], line[:, 0])).astype(int)
    inside = (x >= 0) & (x < resp.shape[1])
    return float(resp[y[inside], x[inside]].mean()) if inside.any() else 0.0


def _line_responses(gray: np.ndarray, cell: float, run_share: float = _CLUE_RUN) -> tuple[np.ndarray, np.ndarray]:
    """Like :func:`_line_profiles` but per pixel, with kernels scaled to the cell size: only what
    runs on straight for ``run_share`` of a cell."""
    k = max(5, int(round(0.2 * cell)) | 1)
    run = max(7, int(round(run_share * cell)))
    return _lines_both_ways(gray, k, run)


def _lines_both_ways(gray: np.ndarray, across_px: int, run: int, light_lines: bool = False
                     ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_lines_or_edges` of the horizontal lines and of the vertical ones: a line is found
    across ``across_px`` pixels and kept where it runs on for ``run``."""
    rect = cv2.getStructuringElement
    return (_lines_or_edges(gray, rect(cv2.MORPH_RECT, (1, across_px)), 0, rect(cv2.MORPH_RECT, (run, 1)), light_lines),
            _lines_or_edges(gray, rect(cv2.MORPH_RECT, (across_px, 1)), 1, rect(cv2.MORPH_RECT, (1, run)), light_lines))


def _lines_or_edges(gray: np.ndarray, across: np.ndarray, axis: int, along: np.ndarray,
                    light_lines: bool = False) -> np.ndarray:
    """Per pixel, float32: the strength of thin dark lines (black-hat across the line; light ones
    too with ``light_lines``) or of edges (a quarter of the Sobel gradient across it), kept where
    it runs on for the length of ``along``.

    A grey image of uint8 is worked in 16-bit integers, four times the strength (whole numbers
    throughout, so the same values as in floats, at a fraction of the cost); any other in floats.
    """
    dx, dy = (0, 1) if axis == 0 else (1, 0)
    if gray.dtype == np.uint8:
        hat = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, across)
        if light_lines:
            hat = np.maximum(hat, cv2.morphologyEx(gray, cv2.MORPH_TOPHAT, across))
        strength = np.maximum(hat.astype(np.uint16) * 4, np.abs(cv2.Sobel(gray, cv2.CV_16S, dx, dy, ksize=3))
                              .astype(np.uint16))
        return cv2.morphologyEx(strength, cv2.MORPH_OPEN, along).astype(np.float32) * np.float32(0.25)
    g = gray.astype(np.float32)
    hat = cv2.morphologyEx(g, cv2.MORPH_BLACKHAT, across)
    if light_lines:
        hat = np.maximum(hat, cv2.morphologyEx(g, cv2.MORPH_TOPHAT, across))
    strength = np.maximum(hat, np.abs(cv2.Sobel(g, cv2.CV_32F, dx, dy, ksize=3)) * 0.25)
    return cv2.morphologyEx(strength, cv2.MORPH_OPEN, along)


#: How far (in cells) an outer line may stray before the grid is taken for bowed: off the lattice
#: (bowed or leaning), the inner lines are searched for again along the outer ones' course; off
#: the straight line between its own ends (bent), it is followed again in a wider frame.
BOW_CELLS = 0.25


def _follow_bowed_lines(resp: np.ndarray, edges: np.ndarray, bands: np.ndarray, cell: float) -> np.ndarray:
    """:func:`_follow_lines`, and where the outer lines it finds bow away from the lattice (a page
    curling off the desk bends every line alike, by up to a cell in the middle), followed again
    from the course the outer lines give the inner ones; the curves on more line ink are kept.

    The inner lines cannot be found near their straight places there: one bowed by more than
    half a cell lies nearer its neighbour's place than its own. The outer lines, the grid's
    border, are the strongest, and are followed to where they bend.
    """
    curves = _follow_lines(resp, edges, bands, cell)
    if len(edges) < 3:
        return curves
    band_mid = (bands[:-1] + bands[1:]) / 2
    first, last = (np.polyval(curves[k], band_mid) - edges[k] for k in (0, -1))
    if max(np.abs(first).max(), np.abs(last).max()) < BOW_CELLS * cell:
        return curves
    # Each inner line takes the outer lines' course, blended by where it lies between them.
    t = (edges - edges[0]) / (edges[-1] - edges[0])
    start = (1 - t)[:, None] * (curves[0] - [0, 0, edges[0]]) + t[:, None] * (curves[-1] - [0, 0, edges[-1]])
    start[:, 2] += edges
    again = _follow_lines(resp, edges, bands, cell, start=start)
    return again if _curve_support(resp, again, bands) > _curve_support(resp, curves, bands) else curves


def _curve_support(resp: np.ndarray, curves: np.ndarray, bands: np.ndarray) -> float:
    """The line response summed along every curve, from the first band's start to the last's end."""
    H, W = resp.shape
    y = np.arange(max(0, int(bands[0])), min(H, int(bands[-1]) + 1))
    x = np.rint(np.array([np.polyval(c, y) for c in curves])).astype(int)
    inside = (x >= 0) & (x < W)
    return float(resp[np.broadcast_to(y, x.shape)[inside], x[inside]].sum())


def _follow_lines(resp: np.ndarray, edges: np.ndarray, bands: np.ndarray, cell: float,
                  start: np.ndarray | None = None) -> np.ndarray:
    """Polynomial coefficients (np.polyval order, degree 2) of each line ``x = f(y)``.

    ``resp`` holds the response to lines running along axis 0; ``edges`` are the lines' approximate
    positions along axis 1 and ``bands`` the boundaries of the stretches they are searched in.
    ``start``, (n_lines, 3), is the course each line is first searched along (default: ``edges``,
    straight).
    """
    n_lines, n_bands = len(edges), len(bands) - 1
    H, W = resp.shape
    inset = 0.15 * (bands[1:] - bands[:-1])
    band_lo = np.clip(np.round(bands[:-1] + inset).astype(int), 0, H - 1)
    band_hi = np.clip(np.round(bands[1:] - inset).astype(int), 1, H)
    band_mid = (bands[:-1] + bands[1:]) / 2
    if start is None:
        start = np.zeros((n_lines, 3))
        start[:, 2] = edges
    curves = start.astype(np.float64)
    guess = np.array([np.polyval(c, band_mid) for c in curves])
    ok = np.zeros(n_lines, bool)
    for radius in (0.4 * cell, 0.15 * cell):
        pos = np.full((n_lines, n_bands), np.nan)
        strength = np.zeros((n_lines, n_bands))
        # Every peak in each window, not only the strongest: a pen stroke or blot beside a faint
        # line may outshine it in a band or two, and the line's course elsewhere says which it is.
        peaks: dict[tuple[int, int], list[tuple[float, float]]] = {}
        for b in range(n_bands):
            if band_hi[b] <= band_lo[b]:
                continue
            prof = resp[band_lo[b]:band_hi[b]].mean(axis=0)
            prof = cv2.GaussianBlur(prof.reshape(1, -1), (0, 0), 1.0).ravel()
            # Peaks and their sub-pixel places once per band; each line's window takes its share.
            at = _peaks_near(prof, 1.5)
            tops = np.nonzero((prof[1:-1] >= prof[:-2]) & (prof[1:-1] >= prof[2:]) & (prof[1:-1] > 0))[0] + 1
            top_at, top_value = at[tops].tolist(), prof[tops].tolist()
            for k in range(n_lines):
                lo = max(0, math.floor(guess[k, b] - radius))
                hi = min(W, math.ceil(guess[k, b] + radius) + 1)
                if hi - lo < 3:
                    continue
                first, last = np.searchsorted(tops, (lo + 1, hi - 1))
                peaks[(k, b)] = list(zip(top_at[first:last], top_value[first:last]))
                seg = prof[lo:hi]
                m = int(np.argmax(seg))
                if m == 0 or m == len(seg) - 1:
                    continue  # rising into the window edge: the line is further out, or absent
                strength[k, b] = seg[m]
                pos[k, b] = at[lo + m]
        typical = np.median(strength[strength > 0]) if np.any(strength > 0) else 0.0
        new_curves = curves.copy()
        ok = np.zeros(n_lines, bool)
        for k in range(n_lines):
            fit = None
            # What is fitted is the line's offset from its starting course: where bands show no
            # line (black cells), a bowed course keeps its bend instead of a straight extrapolation.
            along = np.polyval(start[k], band_mid)
            for _ in range(3):
                valid = np.isfinite(pos[k]) & (strength[k] > 0.3 * typical)
                fit = _robust_polyfit(band_mid[valid], pos[k, valid] - along[valid], strength[k, valid], cell,
                                      span=bands[-1] - bands[0])
                if fit is None:
                    break
                fit = fit + start[k]
                # Take, band by band, the peak nearest the fitted course, and fit again.
                moved = False
                course = np.polyval(fit, band_mid)
                for b in range(n_bands):
                    near = [(abs(x - course[b]), x, v) for x, v in peaks.get((k, b), ()) if v > 0.3 * typical]
                    if not near:
                        continue
                    d, x, v = min(near)
                    if d < 0.1 * cell and (not np.isfinite(pos[k, b]) or abs(x - pos[k, b]) > 0.5):
                        pos[k, b], strength[k, b] = x, v
                        moved = True
                if not moved:
                    break
            if fit is not None:
                new_curves[k] = fit
                ok[k] = True
        _keep_spacing(new_curves, ok, pos, strength, peaks, band_mid, typical, cell, span=bands[-1] - bands[0],
                      start=start)
        # Lines without evidence keep their place relative to their nearest found neighbours.
        if ok.any() and not ok.all():
            good = np.nonzero(ok)[0]
            offsets = new_curves[good] - start[good]
            for k in np.nonzero(~ok)[0]:
                off = np.array([np.interp(k, good, offsets[:, d]) for d in range(3)])
                new_curves[k] = off + start[k]
        elif not ok.any():
            return curves
        curves = new_curves
        guess = np.array([np.polyval(c, band_mid) for c in curves])
    return curves


def _keep_spacing(curves, ok, pos, strength, peaks, band_mid, typical, cell, span, start) -> None:
    """Refit, in place, a line that strays from halfway between its neighbours onto peaks there.

    Pen digits written in one column of cells line up and can be followed as if they were a
    line; the printed line, fainter, still lies about halfway between its neighbours. Where a
    course through peaks near that midpoint has at least a third of the support, it is taken.
    """
    n_lines, n_bands = pos.shape
    for k in range(1, n_lines - 1):
        if not (ok[k - 1] and ok[k] and ok[k + 1]):
            continue
        mid = (np.polyval(curves[k - 1], band_mid) + np.polyval(curves[k + 1], band_mid)) / 2
        course = np.polyval(curves[k], band_mid)
        if np.max(np.abs(course - mid)) < 0.2 * cell:
            continue
        alt_pos, alt_w = [], []
        for b in range(n_bands):
            near = [(abs(x - mid[b]), x, v) for x, v in peaks.get((k, b), ()) if v > 0.3 * typical]
            if near:
                d, x, v = min(near)
                if d < 0.12 * cell:
                    alt_pos.append((band_mid[b], x))
                    alt_w.append(v)
        if len(alt_pos) < 2:
            continue
        support = float(np.sum(strength[k][np.abs(pos[k] - course) < 0.1 * cell]))
        if sum(alt_w) < support / 3:
            continue
        t, x = np.array(alt_pos).T
        fit = _robust_polyfit(t, x - np.polyval(start[k], t), np.array(alt_w), cell, span)
        if fit is not None:
            curves[k] = fit + start[k]


def _robust_polyfit(t: np.ndarray, x: np.ndarray, w: np.ndarray, cell: float, span: float):
    """Weighted fit of ``x(t)``: quadratic with enough well-spread points, else a line or a constant."""
    keep = np.ones(len(t), bool)
    for _ in range(3):
        n = int(keep.sum())
        if n == 0:
            return None
        spread = np.ptp(t[keep]) if n > 1 else 0.0
        deg = 2 if n >= 5 and spread > 0.5 * span else 1 if n >= 2 and spread > 0.2 * span else 0
        coef = np.polyfit(t[keep], x[keep], deg, w=np.sqrt(w[keep]))
        resid = np.abs(np.polyval(coef, t) - x)
        new_keep = resid < max(0.06 * cell, 1.5)
        if new_keep.sum() < max(1, 0.5 * len(t)) or np.array_equal(new_keep, keep):
            break
        keep = new_keep
    return np.concatenate([np.zeros(2 - deg), coef])
