"""Even out a hard shadow across a rectified grid before its cells are classified and read.

A hand or a phone between the lamp and the page casts a shadow with a sharp edge: every cell on
its far side is darker by one factor, white paper, grey fills and ink alike. Compared with the
white paper in the light beside it, a white cell in the shadow looks grey, as dark as a tinted
clue cell, and is taken for one. Lighting that changes slowly is left to the cell classifier,
which compares each cell with the whitest cells near it; a sharp edge is not slow, so it is
found here and divided out.

The edge is found where the grid's own print cannot make one: inside cells, away from the grid
lines and the cells' diagonals, as a straight step in the log of the brightness that is darker
on the same side all along (a printed stroke is darker in its middle, both sides lighter) and
still a stroke's width further on, in one cell or along a straight run through several, and it
must go on into another cell at one depth. Near and along a grid line, where a fill the lattice
missed makes such a step too, it must also darken the lines it crosses and run on through three
cells. The shadow's outline is a parabola through the edge
points that face the main way, carried on straight past the ends; its depth is divided out of
the far side, and the correction is dropped when it leaves a step along its own outline (the
shadow ended elsewhere: fingers, a corner).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

from .types import Lattice

__all__ = ["ShadowEdge", "find_shadow", "even_out_shadow", "divide_out_shadow"]

log = logging.getLogger(__name__)

#: Smallest shadow worth dividing out: the shadow side keeps at most this share of the light
#: (a step of 12% is within the light changes the classifier already follows).
_MAX_GAIN = 0.88
#: Deepest shadow taken for one: a step to under a fifth of the light is ink against paper.
_MIN_GAIN = 0.2
#: |cos| between a step's normal and a cell side's from which the step runs along that side.
_ALONG_SIDE = 0.97
#: Share of a cell from its side within which a step along that side may be the print's (a fill
#: or a border the lattice missed by a few pixels): it is taken for a shadow's edge only where it
#: runs on, on one line, through at least ``_SIDE_RUN`` cells.
_SIDE_BAND = 0.45
_SIDE_RUN = 3
#: How much further from an edge (times the step's offset) the shadow must keep its depth.
_FAR = 3.0
#: Share of the shadow's depth (in log brightness) that may be left along its outline once
#: divided out: more means the outline is not where the shadow ends.
_LEFT_OVER = 0.2
#: Share of a cell from its diagonal within which a step along it is the print's (half-filled
#: clue cells); a shadow's edge parallel to the diagonals further off them is taken.
_DIAGONAL_BAND = 0.25
#: Cells (centre to centre) over which a shadow edge is followed from one crossed cell to the next.
_CHAIN_REACH = 4.0
#: Log-brightness gradient (per pixel, after smoothing) from which a pixel may be on a step.
_EDGE_GRADIENT = 0.035
#: Pixels either side of a grid line or a cell's diagonal where steps are the print's own.
_LINE_BAND = 0.09
#: Steps crossing cells: share of a cell side a step must run along, and how far (pixels) its
#: pixels may lie from the straight line fitted through them.
_MIN_EXTENT = 0.45
_MAX_RESIDUAL = 2.5
#: Share of a step's pixels that must be darker on the same side.
_ONE_SIDED = 0.85


@dataclass(frozen=True, slots=True)
class ShadowEdge:
    """Where a shadow's edge crosses one cell: a point on it and the unit normal towards the light
    (rectified pixels), and the share of the light the shadow side keeps there."""

    row: int
    col: int
    point_xy: tuple[float, float]
    normal_xy: tuple[float, float]
    gain: float


def _smoothed_log(gray: np.ndarray) -> np.ndarray:
    # A median removes thin print (grid lines, digit strokes, hatching) before the step search.
    cell_free = cv2.medianBlur(gray, 7).astype(np.float32)
    return cv2.GaussianBlur(np.log(cell_free + 10.0), (0, 0), 2.0)


def _print_bands(shape: tuple[int, int], lattice: Lattice) -> np.ndarray:
    """True on the grid lines, the cells' main diagonals and outside the grid."""
    h, w = shape
    band = np.ones((h, w), bool)
    rows, cols = lattice.row_edges, lattice.col_edges
    y0, y1 = int(round(rows[0])), int(round(rows[-1]))
    x0, x1 = int(round(cols[0])), int(round(cols[-1]))
    band[max(y0, 0):y1, max(x0, 0):x1] = False
    cell = float(np.median(np.diff(rows)))
    pad = max(2, int(round(_LINE_BAND * cell)))
    for y in rows:
        band[max(int(round(y)) - pad, 0):int(round(y)) + pad + 1, :] = True
    for x in cols:
        band[:, max(int(round(x)) - pad, 0):int(round(x)) + pad + 1] = True
    # Pixel coordinates as a column and a row, broadcast per cell: a full grid of them cost more
    # than the bands.
    yy, xx = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
    for r in range(len(rows) - 1):
        ya, yb = rows[r], rows[r + 1]
        sy = slice(max(int(ya), 0), int(np.ceil(yb)))
        v = (yy[sy] - ya) / max(yb - ya, 1.0)
        for c in range(len(cols) - 1):
            xa, xb = cols[c], cols[c + 1]
            sx = slice(max(int(xa), 0), int(np.ceil(xb)))
            u = (xx[:, sx] - xa) / max(xb - xa, 1.0) - v
            band[sy, sx] |= np.abs(u) * min(xb - xa, yb - ya) < pad * 1.4
    return band


def find_shadow(gray: np.ndarray, lattice: Lattice) -> list[ShadowEdge]:
    """The cells a sharp shadow edge crosses, each with the edge's line there; empty for none.

    Parameters
    ----------
    gray : (M, N) uint8 ndarray
        The rectified grid.
    lattice : Lattice
        Its cells.
    """
    logl = _smoothed_log(gray)
    gy, gx = np.gradient(logl)
    magnitude = np.hypot(gx, gy)
    candidate = (magnitude > _EDGE_GRADIENT) & ~_print_bands(gray.shape, lattice)
    n_rows, n_cols = lattice.shape
    edges: list[ShadowEdge] = []
    # Steps near and along a grid line, told from print below; along the grid's outer border such
    # a step is the frame's or the margin's, whatever it darkens.
    along_sides: list[ShadowEdge] = []

    def take(edge: ShadowEdge) -> None:
        side = _side_along(edge, lattice)
        if side is None:
            edges.append(edge)
        elif not _on_the_border(side, lattice):
            along_sides.append(edge)

    for r in range(n_rows):
        for c in range(n_cols):
            edge = _edge_in_cell(candidate, gx, gy, logl, lattice, r, c)
            if edge is not None:
                take(edge)
    crossed = {(e.row, e.col) for e in edges}
    # Where a cell's clue digits outnumber the edge's pixels, the cell alone cannot tell; the
    # edge's straight run through several cells can.
    cell = float(np.median(np.diff(lattice.row_edges)))
    for e in _edges_along_lines(candidate, logl, lattice, cell):
        if (e.row, e.col) not in crossed:
            take(e)
    if along_sides:
        # A shadow cast square to the page runs near and along a grid line as often as not; so
        # does print (a fill the lattice missed by a few pixels, a row of digits' feet). The
        # shadow darkens the ink of the grid lines it crosses as much as the paper, falls from
        # one level of paper to the other with no line at the step, and goes on through several
        # cells; print does none of these.
        lines = cv2.GaussianBlur(gray, (0, 0), 1.0).astype(np.float32)
        edges += _in_line([e for e in along_sides if _darkens_crossing_lines(e, lines, lattice)
                           and not _dips_at_the_step(e, lines, lattice)], cell, _SIDE_RUN)
    return _chained(_without_light_bands(edges, cell), cell)


#: Width of a light band (share of a cell) that two steps facing each other bound, at most, for
#: them to be print: the sides of a light stroke or of a row of white discs.
_LIGHT_BAND = 0.5


def _without_light_bands(edges: list[ShadowEdge], cell: float) -> list[ShadowEdge]:
    """The edges that face no other edge across a narrow light band.

    Two steps a third of a cell apart, each with its light side towards the other, are the
    sides of something light and narrow: a light diagonal, or white discs in clue cells down
    a staircase of them, in line with each other. A shadow's edge has the light on one side
    only, and a lit gap between shadows is no narrower than a finger.
    """
    kept = []
    for e in edges:
        p, n = np.array(e.point_xy), np.array(e.normal_xy)
        along = np.array([-n[1], n[0]])
        if not any(np.array(f.normal_xy) @ n < -0.9 and 0 < (np.array(f.point_xy) - p) @ n < _LIGHT_BAND * cell
                   and abs((np.array(f.point_xy) - p) @ along) < cell for f in edges if f is not e):
            kept.append(e)
    return kept


def _side_along(edge: ShadowEdge, lattice: Lattice) -> tuple[int, int] | None:
    """The side a step runs along within ``_SIDE_BAND`` of it, as (axis, index of its grid line:
    a column edge for axis 0, a row edge for axis 1); None if it runs along none."""
    r, c = edge.row, edge.col
    y0, y1 = lattice.row_edges[r], lattice.row_edges[r + 1]
    x0, x1 = lattice.col_edges[c], lattice.col_edges[c + 1]
    size = _shorter_side(lattice, r, c)
    normal = np.array(edge.normal_xy)
    px, py = edge.point_xy
    for axis, (lo, hi, at, k) in enumerate(((x0, x1, px, c), (y0, y1, py, r))):
        if abs(normal[axis]) > _ALONG_SIDE and min(at - lo, hi - at) < _SIDE_BAND * size:
            return axis, k if at - lo < hi - at else k + 1
    return None


def _on_the_border(side: tuple[int, int], lattice: Lattice) -> bool:
    """Whether a side from :func:`_side_along` is on the grid's outer border."""
    axis, k = side
    return k in (0, len(lattice.col_edges if axis == 0 else lattice.row_edges) - 1)


def _shorter_side(lattice: Lattice, r: int, c: int) -> float:
    """The shorter side of a cell."""
    return float(min(lattice.row_edges[r + 1] - lattice.row_edges[r], lattice.col_edges[c + 1] - lattice.col_edges[c]))


#: Share of a shadow's depth (log brightness) by which the grid lines it crosses must darken too.
_LINES_DARKEN = 0.35
#: Log contrast of a grid line's ink against the paper either side, at least, for it to be one.
_LINE_SEEN = 0.3


def _darkens_crossing_lines(edge: ShadowEdge, gray: np.ndarray, lattice: Lattice) -> bool:
    """Whether the grid lines crossing a step that runs along a cell's side are darker beyond it
    (the step's own depth, within ``_LINES_DARKEN``): then the step is light, not print."""
    r, c = edge.row, edge.col
    rows, cols = lattice.row_edges, lattice.col_edges
    size = _shorter_side(lattice, r, c)
    normal = np.array(edge.normal_xy)
    reach = max(2, int(round(0.08 * size)))
    h, w = gray.shape
    vertical_edge = abs(normal[0]) > abs(normal[1])
    axis = 0 if vertical_edge else 1
    parallel = np.asarray(cols if vertical_edge else rows, float)
    # Either side of the step, on the crossing line but clear of the grid lines along the step
    # (their ink would pass for a darkening).
    offsets = []
    for sign in (1.0, -1.0):  # towards the light, then away
        clear = [d for d in (0.2, 0.35, 0.5, 0.65)
                 if np.min(np.abs(parallel - (edge.point_xy[axis] + sign * d * size * normal[axis]))) > 0.12 * size]
        offsets.append(sign * (clear[0] if clear else 0.2) * size)
    steps = []
    for line in ((rows[r], rows[r + 1]) if vertical_edge else (cols[c], cols[c + 1])):
        levels = []
        for off in offsets:
            x, y = np.array(edge.point_xy) + off * normal
            at = int(round(line))
            if not (0 <= x < w and 0 <= y < h):
                break
            # Across the line: its ink (the darkest within ``reach``) and the paper either side.
            if vertical_edge:
                xi = int(round(x))
                across = gray[max(at - 3 * reach, 0):at + 3 * reach + 1, max(xi - 1, 0):xi + 2].mean(axis=1)
            else:
                yi = int(round(y))
                across = gray[max(yi - 1, 0):yi + 2, max(at - 3 * reach, 0):at + 3 * reach + 1].mean(axis=0)
            centre = min(at, 3 * reach)
            ink = float(across[max(centre - reach, 0):centre + reach + 1].min(initial=255.0))
            paper = min(float(np.median(across[:max(centre - reach, 1)])), float(np.median(across[centre + reach + 1:]))
                        if centre + reach + 1 < len(across) else 255.0)
            if np.log(paper + 1.0) - np.log(ink + 1.0) < _LINE_SEEN:
                break  # no line here: a digit or a fill, not a crossing to compare
            levels.append(ink)
        if len(levels) == 2:
            steps.append(np.log(levels[0] + 1.0) - np.log(levels[1] + 1.0))
    return bool(steps) and float(np.median(steps)) > _LINES_DARKEN * -np.log(edge.gain)


def _dips_at_the_step(edge: ShadowEdge, gray: np.ndarray, lattice: Lattice) -> bool:
    """Whether the brightness across a step falls below its dark side's level at the step: a grid
    line there, bounding a fill (the lattice missed it by a few pixels). A shadow's edge falls
    from one level of paper to the other and no further."""
    r, c = edge.row, edge.col
    size = _shorter_side(lattice, r, c)
    normal = np.array(edge.normal_xy)
    along = np.array([-normal[1], normal[0]])
    h, w = gray.shape
    # Pixels across the step at points along it, within its cell's middle.
    t = np.arange(-0.3 * size, 0.3 * size + 1.0)
    u = np.linspace(-0.2, 0.2, 9) * size
    centre = np.array([(lattice.col_edges[c] + lattice.col_edges[c + 1]) / 2,
                       (lattice.row_edges[r] + lattice.row_edges[r + 1]) / 2])
    base = np.array(edge.point_xy) + ((centre - np.array(edge.point_xy)) @ along) * along
    xs = base[0] + u[:, None] * along[0] + t[None, :] * normal[0]
    ys = base[1] + u[:, None] * along[1] + t[None, :] * normal[1]
    profile = np.median(gray[np.clip(np.rint(ys).astype(int), 0, h - 1), np.clip(np.rint(xs).astype(int), 0, w - 1)],
                        axis=0)
    dark_side = float(np.median(profile[t < -0.15 * size]))
    at_step = float(profile[np.abs(t) <= 0.12 * size].min())
    return np.log(dark_side + 1.0) - np.log(at_step + 1.0) > _LINE_SEEN


def _in_line(edges: list[ShadowEdge], cell: float, least: int) -> list[ShadowEdge]:
    """The edges on one line, facing one way at a like depth, that run through at least
    ``least`` cells (themselves included) with no more than one cell missing between two."""
    kept = []
    for e in edges:
        p, n = np.array(e.point_xy), np.array(e.normal_xy)
        along = np.array([-n[1], n[0]])
        at = sorted({round(float((np.array(f.point_xy) - p) @ along) / cell) for f in edges
                     if np.array(f.normal_xy) @ n > 0.95 and abs((np.array(f.point_xy) - p) @ n) < 0.2 * cell
                     and _alike(np.log(e.gain), np.log(f.gain))})
        # The run of cells (by their distance along the line, in cells) that holds this edge.
        start = end = at.index(0)
        while start > 0 and at[start] - at[start - 1] <= 2:
            start -= 1
        while end < len(at) - 1 and at[end + 1] - at[end] <= 2:
            end += 1
        if end - start + 1 >= least:
            kept.append(e)
    return kept


def _edges_along_lines(candidate: np.ndarray, logl: np.ndarray, lattice: Lattice, cell: float
                       ) -> list[ShadowEdge]:
    """Shadow edges from straight runs of step pixels longer than a cell, one per cell crossed.

    Each run is checked along its whole length: the brightness a few pixels to either side
    must step the same way, by one depth, at most points (a run of digits in a row does not).
    """
    segments = cv2.HoughLinesP(candidate.astype(np.uint8) * 255, 1, np.pi / 180, threshold=int(0.6 * cell),
                               minLineLength=1.2 * cell, maxLineGap=0.6 * cell)
    if segments is None:
        return []
    h, w = logl.shape
    rows, cols = np.asarray(lattice.row_edges), np.asarray(lattice.col_edges)
    off = max(4.0, 0.08 * cell)
    seg = segments.reshape(-1, 4).astype(np.float64)
    x0s, y0s, x1s, y1s = seg.T
    lengths = np.hypot(x1s - x0s, y1s - y0s)
    directions = np.stack([x1s - x0s, y1s - y0s], axis=1) / lengths[:, None]
    # Points every 2 pixels along each run, of all runs at once (most runs are digits and go no
    # further): at least half of them must be step pixels.
    ts = [np.arange(0.0, length, 2.0) for length in lengths]
    counts = [len(t) for t in ts]
    which = np.repeat(np.arange(len(seg)), counts)
    t = np.concatenate(ts)
    px_all, py_all = x0s[which] + t * directions[which, 0], y0s[which] + t * directions[which, 1]
    on_step = candidate[np.clip(np.rint(py_all).astype(int), 0, h - 1), np.clip(np.rint(px_all).astype(int), 0, w - 1)]
    mostly_steps = np.bincount(which, weights=on_step, minlength=len(seg)) >= 0.5 * np.array(counts)
    ends = np.cumsum(counts)[:-1]
    runs = zip(directions, np.split(px_all, ends), np.split(py_all, ends), np.split(on_step, ends))
    edges = []
    for (direction, px, py, keep), take in zip(runs, mostly_steps):
        if not take or _along_diagonals(px, py, direction, rows, cols):
            continue
        normal = np.array([-direction[1], direction[0]])
        px, py = px[keep], py[keep]
        step = _across(logl, px, py, normal, off)  # light side minus the other, point by point
        if np.median(step) < 0:
            normal, step = -normal, -step
        near = float(np.median(step))
        gain = float(np.exp(-near))
        if not _MIN_GAIN <= gain <= _MAX_GAIN or np.mean(step > 0.5 * near) < _ONE_SIDED:
            continue
        far = float(np.median(_across(logl, px, py, normal, _FAR * off)))
        if not _alike(far, near):
            continue
        gain = _depth(near, far)
        # One edge per cell crossed, at the run's first point in it.
        r = np.clip(np.searchsorted(rows, py) - 1, 0, len(rows) - 2)
        c = np.clip(np.searchsorted(cols, px) - 1, 0, len(cols) - 2)
        _, first = np.unique(r * len(cols) + c, return_index=True)
        for j in np.sort(first):
            edges.append(ShadowEdge(int(r[j]), int(c[j]), (float(px[j]), float(py[j])),
                                    (float(normal[0]), float(normal[1])), gain))
    return edges


#: Candidate pixels a cell's edge line is fitted to, at most.
_FIT_POINTS = 96


def _edge_in_cell(candidate, gx, gy, logl, lattice: Lattice, r: int, c: int) -> ShadowEdge | None:
    y0, y1 = int(round(lattice.row_edges[r])), int(round(lattice.row_edges[r + 1]))
    x0, x1 = int(round(lattice.col_edges[c])), int(round(lattice.col_edges[c + 1]))
    size = min(y1 - y0, x1 - x0)
    ys, xs = np.nonzero(candidate[y0:y1, x0:x1])
    if len(xs) < _MIN_EXTENT * size:
        return None
    # However a line fits them, points spanning less than the extent asked for below make no
    # edge; the robust fit is most of this function's time.
    if np.hypot(np.ptp(xs), np.ptp(ys)) < _MIN_EXTENT * size * 1.5 - 0.01:
        return None
    pts = np.c_[xs + x0, ys + y0].astype(np.float32)
    # Fitted to an even spread of at most _FIT_POINTS of them: as good a line, at a fraction of
    # the robust fit's cost (a cell can hold over a thousand candidate pixels).
    spread = pts[np.linspace(0, len(pts) - 1, min(len(pts), _FIT_POINTS)).astype(int)]
    vx, vy, px, py = (float(v) for v in cv2.fitLine(spread, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel())
    normal = np.array([-vy, vx])
    dist = (pts - [px, py]) @ normal
    inliers = np.abs(dist) < _MAX_RESIDUAL
    if inliers.sum() < 0.6 * len(pts):
        return None
    along = (pts[inliers] - [px, py]) @ np.array([vx, vy])
    if np.ptp(along) < _MIN_EXTENT * size * 1.5:
        return None
    ix, iy = pts[inliers, 0].astype(int), pts[inliers, 1].astype(int)
    grad = np.c_[gx[iy, ix], gy[iy, ix]]
    towards = grad @ normal
    if np.mean(towards > 0) < _ONE_SIDED:
        if np.mean(towards < 0) < _ONE_SIDED:
            return None
        normal = -normal
    # The step itself: log brightness a few pixels to either side of the edge, along its length.
    step, far = _steps(logl, ix, iy, normal, max(4.0, 0.08 * size))
    gain = float(np.exp(-step))
    if not _MIN_GAIN <= gain <= _MAX_GAIN or not _alike(far, step):
        return None
    gain = _depth(step, far)
    if _along_diagonals(pts[inliers, 0], pts[inliers, 1], np.array([vx, vy]),
                        np.asarray(lattice.row_edges), np.asarray(lattice.col_edges)):
        return None
    return ShadowEdge(r, c, (px, py), (float(normal[0]), float(normal[1])), gain)


def _alike(a: float, b: float) -> bool:
    """Whether two steps (log brightness, one sign) are of a like depth: within a factor 0.6."""
    return 0.6 < a / b < 1.0 / 0.6


def _depth(near: float, far: float) -> float:
    """The share of the light a shadow keeps, from its step in log brightness near its edge and
    further off: a soft edge (a hand held high, a blurred photo) has not reached its full depth
    a few pixels from its middle (divided out by that, the shadow stayed up to a fifth deep)."""
    return float(np.exp(-max(near, far)))


def _steps(logl: np.ndarray, xs: np.ndarray, ys: np.ndarray, normal: np.ndarray, off: float) -> tuple[float, float]:
    """Median log-brightness step across an edge (towards ``normal`` minus away from it) at
    ``off`` pixels to either side, and at ``_FAR`` times that.

    A shadow stays on its side; the top edges of a row of digits printed at one height make a
    step too, but a stroke's width further on it is gone.
    """
    return (float(np.median(_across(logl, xs, ys, normal, off))),
            float(np.median(_across(logl, xs, ys, normal, _FAR * off))))


def _across(logl: np.ndarray, xs: np.ndarray, ys: np.ndarray, normal: np.ndarray, off: float) -> np.ndarray:
    """Per point, log brightness ``off`` pixels towards ``normal`` minus as far the other way."""
    h, w = logl.shape

    def at(d: float) -> np.ndarray:
        x = np.clip(np.rint(xs + normal[0] * d).astype(int), 0, w - 1)
        y = np.clip(np.rint(ys + normal[1] * d).astype(int), 0, h - 1)
        return logl[y, x]

    return at(off) - at(-off)


def _along_diagonals(px: np.ndarray, py: np.ndarray, direction: np.ndarray, rows: np.ndarray,
                     cols: np.ndarray) -> bool:
    """Whether points on a line run along the cells' main diagonals, near them: there a step is
    the print's (half-filled clue cells in a diagonal row make one long straight step)."""
    if abs(direction @ np.array([1.0, 1.0])) / np.sqrt(2.0) < _ALONG_SIDE:
        return False
    r = np.clip(np.searchsorted(rows, py) - 1, 0, len(rows) - 2)
    c = np.clip(np.searchsorted(cols, px) - 1, 0, len(cols) - 2)
    h, w = rows[r + 1] - rows[r], cols[c + 1] - cols[c]
    u = np.abs((px - cols[c]) / w - (py - rows[r]) / h)
    return float(np.median(u)) < _DIAGONAL_BAND


def _chained(edges: list[ShadowEdge], cell: float) -> list[ShadowEdge]:
    """The edges that go on, on the same line, into another cell's edge of a like depth.

    A shadow's edge runs on across cells; a lone step in one cell is print (a disc, a bold
    digit's side) or a stain.
    """
    kept = []
    for e in edges:
        p, n = np.array(e.point_xy), np.array(e.normal_xy)
        for f in edges:
            q, m = np.array(f.point_xy), np.array(f.normal_xy)
            if f is e or not 0 < np.linalg.norm(q - p) <= _CHAIN_REACH * cell:
                continue
            on_line = max(abs((q - p) @ n), abs((p - q) @ m)) < 0.2 * cell
            if _alike(np.log(e.gain), np.log(f.gain)) and n @ m > 0.8 and on_line:
                kept.append(e)
                break
    return kept


def even_out_shadow(image: np.ndarray, edges: list[ShadowEdge]) -> tuple[np.ndarray, list[ShadowEdge]]:
    """``image`` with the shadow side of the sharp shadow ``edges`` (from :func:`find_shadow`)
    brightened to the light side's level.

    Returns the image (unchanged when no edge was found, or when the edges make no one outline)
    and the edges it was evened along.
    """
    if not edges:
        return image, []
    out = divide_out_shadow(image, edges)
    if out is None:
        return image, []
    log.info("shadow edge across %d cells, shadow keeps %.0f%% of the light: evened out",
             len(edges), 100 * float(np.median([e.gain for e in edges])))
    return out, edges


def divide_out_shadow(image: np.ndarray, edges: list[ShadowEdge]) -> np.ndarray | None:
    """``image`` with the shadow beyond ``edges`` (in its pixels) divided out; None when the edges
    do not make one line with the light on one side."""
    shadow = _shadow_side(image.shape[:2], edges)
    if shadow is None:
        return None
    gain = float(np.median([e.gain for e in edges]))
    # The edge itself is a few pixels soft: so is the correction.
    field = cv2.GaussianBlur(np.where(shadow, gain, 1.0).astype(np.float32), (0, 0), 1.5)
    gray = (cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image).astype(np.float32)
    if not _evened(gray, gray / field, shadow, gain):
        log.debug("shadow: its outline does not follow the edges seen (fingers, a corner); left as it is")
        return None
    if image.ndim == 3:
        field = field[..., None]
    return np.clip(image.astype(np.float32) / field, 0, 255).astype(np.uint8)


def _evened(before: np.ndarray, relit: np.ndarray, shadow: np.ndarray, gain: float) -> bool:
    """Whether the light is even across the shadow's outline once divided out.

    The outline is drawn through the edges found and carried on straight past them; where the
    shadow really ends elsewhere (a finger, a curve), dividing out makes a new step there.
    Along the outline the print changes too (a block beside a white cell), the more where the
    outline runs near the cells' diagonals: where the steps left are not small, the step the
    shadow left or made, one way all along, must still be small, and the steps as a whole
    must have fallen well below those before.
    """
    left, signed = _steps_along_outline(relit, shadow)
    if left is None:
        return True
    depth = abs(np.log(gain))
    if left < _LEFT_OVER * depth:
        return True
    before, _ = _steps_along_outline(before, shadow)
    return abs(signed) < 0.5 * _LEFT_OVER * depth and left < _FALLEN * before


#: Share of the steps along a shadow's outline that may be left once it is divided out, where
#: the step left one way is small (see :func:`_evened`).
_FALLEN = 0.75


def _steps_along_outline(image: np.ndarray, shadow: np.ndarray) -> tuple[float | None, float]:
    """Median step in log brightness across the shadow's outline (inside less outside), of its
    size and of its sign; None where the outline is too short to tell."""
    # At half scale, so that paper brightened past white (a wrong outline) is not clipped back.
    logl = _smoothed_log(np.clip(0.5 * image, 0, 255).astype(np.uint8))
    inside = shadow.astype(np.float32)
    sigma = 4.0
    weight_in = cv2.GaussianBlur(inside, (0, 0), sigma)
    weight_out = cv2.GaussianBlur(1 - inside, (0, 0), sigma)
    mean_in = cv2.GaussianBlur(logl * inside, (0, 0), sigma) / np.maximum(weight_in, 1e-3)
    mean_out = cv2.GaussianBlur(logl * (1 - inside), (0, 0), sigma) / np.maximum(weight_out, 1e-3)
    outline = (weight_in > 0.25) & (weight_out > 0.25)
    if outline.sum() < 10:
        return None, 0.0
    step = (mean_in - mean_out)[outline]
    return float(np.median(np.abs(step))), float(np.median(step))


def _shadow_side(shape: tuple[int, int], edges: list[ShadowEdge]) -> np.ndarray | None:
    """Pixel mask of the shadow: the side away from the light of a parabola through the edges
    (carried on straight past the first and the last to the image's border); None when the
    edges do not face one way."""
    normals = np.array([e.normal_xy for e in edges])
    # The main edge is the one most edges face along with; fingers reaching in from the shadow
    # make short edges facing sideways, left out (their shadow stays, as narrow as a finger).
    agree = normals @ normals.T > np.cos(np.radians(50))
    main = agree[int(np.argmax(agree.sum(axis=1)))]
    if main.sum() < 0.6 * len(edges):
        log.debug("shadow: edges face different ways (a shadow's corner); left as it is")
        return None
    edges = [e for e, keep in zip(edges, main) if keep]
    normals = normals[main]
    mean = normals.mean(axis=0)
    mean /= max(np.linalg.norm(mean), 1e-9)
    direction = np.array([-mean[1], mean[0]])
    points = np.array([e.point_xy for e in edges])
    along, across = points @ direction, points @ mean
    # A hand's edge is straight or gently curved: a parabola through the edge points (a line
    # through few), fitted again without the points far off it, carried on straight past the ends.
    degree = 2 if len(points) >= 5 and np.ptp(along) > 0 else 1
    if len(points) < 2 or np.ptp(along) == 0:
        return None
    coef = np.polyfit(along, across, degree)
    residual = np.abs(np.polyval(coef, along) - across)
    close = residual <= max(3.0, 2.0 * float(np.median(residual)))
    if close.sum() >= degree + 2:
        coef = np.polyfit(along[close], across[close], degree)
    lo, hi = float(along.min()), float(along.max())
    slope = np.polyder(coef)
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = xx * direction[0] + yy * direction[1]
    b = xx * mean[0] + yy * mean[1]
    end = np.clip(a, lo, hi)
    edge = np.polyval(coef, end) + np.polyval(slope, end) * (a - end)
    return b < edge
