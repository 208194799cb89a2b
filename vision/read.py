"""Read a located grid: cell classes, clue numbers and the layout they imply."""
from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from solver.model import Cell, SideReading, run_cells

from .cells import MAX_RUN, classify_cells, layout_run_lengths, run_lengths, too_many_single_runs
from .colour import bgr_to_lab
from .grid import (BOW_CELLS, GridGeometry, extend_geometry, homography_from_mesh, mesh_bow, mesh_inside_outline,
                   mesh_irregularity, mesh_past_entries, refine_lattice_mesh, remap_to_mesh, trim_geometry)
from .histograms import percentile
from .light import ShadowEdge, even_out_shadow, find_shadow
from .ocr import (WEAK_LEVELS, GlyphReads, best_probability, digit_pieces, either_read, filled_in, ink_chroma,
                  ink_likeness, number_likeness, read_clues_glyph, read_clues_two_readers, read_given_digits,
                  read_faint_numbers, read_givens, read_numbers_across_the_diagonal, split_clue_cell)
from .types import CellClasses, Lattice, NumberRead

__all__ = ["GridReading", "read_grid", "glance_at_grid", "look_at_grid", "read_numbers", "numbers_in_blocks",
           "read_answer_key", "lined_darker_than_cells", "straighten_grid", "rectify_for_reading", "layout_doubt",
           "complete_clue_border", "trim_page_margin"]

log = logging.getLogger(__name__)


#: Pixels per cell side for reading; clue digits are about a third of a cell high.
READ_CELL_PX = 72
_REFIT_IRREGULARITY = 0.15  # cells; a mesh this far from its lattice may have followed wrong lines
_STRAY_LINE = 0.2  # cells; a crossing this far from where its neighbours put it is off its line
_STRAY_SURE = 0.9  # a number read where the layout has no run counts from this confidence


@dataclass(frozen=True, eq=False)
class GridReading:
    """What was seen in one grid, before the puzzle's rules are applied.

    ``sides`` has one entry for every run the layout requires; ``H`` and ``lattice`` describe
    the rectified frame the reading was made in (source pixels -> rectified pixels).
    """

    n_rows: int
    n_cols: int
    whites: frozenset[Cell]
    clue_cells: tuple[Cell, ...]
    sides: tuple[SideReading, ...]
    classes: CellClasses
    H: np.ndarray
    lattice: Lattice
    stray: tuple[tuple[Cell, str, int], ...] = ()  # numbers read where the layout has no run
    #: Why the cell layout does not look like a Kakuro (then ``sides`` is empty), or None.
    doubt: str | None = None
    #: The straightened grid the cells were read from, and its (regular) lattice.
    rectified: np.ndarray | None = None
    rectified_lattice: Lattice | None = None
    #: Digits printed in white cells (pen marks and unsure reads are left out).
    givens: dict[Cell, int] = field(default_factory=dict)
    #: Each side's ink, as a 96x96 mask binarised at the middle level, cut when first compared.
    ink: dict[tuple[Cell, str], np.ndarray] = field(default_factory=dict)
    #: Where a sharp shadow's edge crosses cells (in the straightened grid), evened out there.
    shadow: tuple[ShadowEdge, ...] = ()
    #: The glyph reader's reads of ``clue_cells`` (reused by a second look at the same cells).
    glyph_reads: GlyphReads | None = None

    def shadow_in_source(self) -> list[ShadowEdge]:
        """The shadow's edges in the source image's pixels (to even out the light there)."""
        if not self.shadow or self.rectified_lattice is None:
            return []
        to_source = np.linalg.inv(self.H)

        def source_xy(x: float, y: float) -> np.ndarray:
            # The straightened grid is regular; its cells map one to one to the lattice's.
            frame = []
            for v, regular, followed in ((x, self.rectified_lattice.col_edges, self.lattice.col_edges),
                                         (y, self.rectified_lattice.row_edges, self.lattice.row_edges)):
                k = int(np.clip(np.searchsorted(regular, v) - 1, 0, len(regular) - 2))
                t = (v - regular[k]) / max(regular[k + 1] - regular[k], 1e-6)
                frame.append(followed[k] + t * (followed[k + 1] - followed[k]))
            p = to_source @ np.array([frame[0], frame[1], 1.0])
            return p[:2] / p[2]

        edges = []
        for e in self.shadow:
            p = source_xy(*e.point_xy)
            q = source_xy(e.point_xy[0] + 5 * e.normal_xy[0], e.point_xy[1] + 5 * e.normal_xy[1])
            n = (q - p) / max(float(np.linalg.norm(q - p)), 1e-9)
            edges.append(ShadowEdge(e.row, e.col, (float(p[0]), float(p[1])), (float(n[0]), float(n[1])), e.gain))
        return edges

    def cell_image(self, cell: Cell) -> np.ndarray:
        """One cell cut from the straightened grid (with a little of its border lines)."""
        return _cell_crop(self.rectified, self.rectified_lattice, *cell)

    def _side_ink(self, side: tuple[Cell, str]) -> np.ndarray | None:
        # Only readings with a rival compare numbers, so the halves are cut on demand.
        cell, direction = side
        if side not in self.ink and self.glyph_reads is not None and cell in self.clue_cells:
            # A number in a disc is its digits: the discs themselves all look alike.
            at = (self.clue_cells.index(cell), 0 if direction == "down" else 1)
            if at in self.glyph_reads.in_disc:
                self.ink[side] = (self.glyph_reads.halves[at[0]][at[1]] > 0).astype(np.uint8) * 255
        if side not in self.ink and cell in self.clue_cells and self.rectified is not None \
                and self.rectified_lattice is not None:
            crop = _cell_crop(self.rectified, self.rectified_lattice, *cell)
            down, across = split_clue_cell(crop, weak_level=WEAK_LEVELS[1])
            self.ink.setdefault((cell, "down"), down)
            self.ink.setdefault((cell, "across"), across)
        return self.ink.get(side)

    def resemble(self, side_a: tuple[Cell, str], side_b: tuple[Cell, str]) -> float | None:
        """How alike two sides' printed numbers look, 0..1, or None where they cannot be compared
        (see :func:`vision.ocr.number_likeness`)."""
        ink_a, ink_b = self._side_ink(side_a), self._side_ink(side_b)
        if ink_a is None or ink_b is None:
            return None
        return number_likeness(ink_a, ink_b)

    def resemble_digits(self, side_a: tuple[Cell, str], digits_a: int, at_a: int,
                        side_b: tuple[Cell, str], digits_b: int, at_b: int) -> float | None:
        """How alike digit ``at_a`` of side A's number (taken as ``digits_a`` digits long) looks to
        digit ``at_b`` of side B's, 0..1; None where a side's ink is not that many pieces (two
        digits blurred into one are cut)."""
        pieces = []
        for side, n, at in ((side_a, digits_a, at_a), (side_b, digits_b, at_b)):
            ink = self._side_ink(side)
            found = digit_pieces(ink, n) if ink is not None else []
            if len(found) != n:
                return None
            pieces.append(found[at])
        return ink_likeness(pieces[0], pieces[1])


def rectify_for_reading(image: np.ndarray, geometry: GridGeometry, cell_px: int = READ_CELL_PX,
                        margin_px: int = 0) -> tuple[np.ndarray, np.ndarray, Lattice]:
    """Warp the grid so that an average cell is ``cell_px`` pixels a side, with ``margin_px`` of
    the image around it.

    Returns the rectified image, its homography from source pixels, and the lattice scaled to it.
    """
    lat = geometry.lattice
    n_rows, n_cols = lat.shape
    sy = cell_px * n_rows / max(lat.row_edges[-1] - lat.row_edges[0], 1.0)
    sx = cell_px * n_cols / max(lat.col_edges[-1] - lat.col_edges[0], 1.0)
    S = np.array([[sx, 0.0, margin_px], [0.0, sy, margin_px], [0.0, 0.0, 1.0]])
    H = S @ geometry.H
    h = int(round(geometry.warped_size[0] * sy)) + 2 * margin_px
    w = int(round(geometry.warped_size[1] * sx)) + 2 * margin_px
    warped = cv2.warpPerspective(image, H, (w, h), flags=cv2.INTER_AREA if min(sx, sy) < 1 else cv2.INTER_CUBIC,
                                 borderMode=cv2.BORDER_REPLICATE)
    lattice = Lattice(tuple(y * sy + margin_px for y in lat.row_edges),
                      tuple(x * sx + margin_px for x in lat.col_edges))
    return warped, H, lattice


def _cell_crop(warped: np.ndarray, lattice: Lattice, row: int, col: int) -> np.ndarray:
    y0, y1 = int(round(lattice.row_edges[row])), int(round(lattice.row_edges[row + 1]))
    x0, x1 = int(round(lattice.col_edges[col])), int(round(lattice.col_edges[col + 1]))
    return warped[max(y0, 0):y1, max(x0, 0):x1]


#: A number read with less probability than this is ink the reader took for no digit at all (a
#: cell whose paper and print it told apart the wrong way round): the side counts as unread,
#: left to the rules, rather than offering only values it never saw.
_ILLEGIBLE = 0.05


def _options(read: NumberRead) -> tuple[tuple[int, float], ...]:
    if read.value is None:
        return ()
    if best_probability(read) < _ILLEGIBLE:
        return ()
    alts = read.alternatives or ((read.value, read.confidence),)
    return tuple((int(v), float(p)) for v, p in alts)


def layout_doubt(whites: frozenset[Cell], n_rows: int, n_cols: int) -> str | None:
    """Say why a layout of white cells cannot be a Kakuro, or return None when it can be.

    Every run of white cells in a Kakuro is at least two long. A sudoku, a table of numbers or
    a comic panel found as a grid gives a layout in which many runs are single cells.
    """
    white = np.zeros((n_rows, n_cols), bool)
    for r, c in whites:
        white[r, c] = True
    lengths = layout_run_lengths(white)
    if not lengths:
        return "no white cells"
    if too_many_single_runs(lengths):
        single = lengths.count(1)
        return f"{single} of {len(lengths)} runs are a single cell; this does not look like a Kakuro grid"
    return None


def straighten_grid(image: np.ndarray, geometry: GridGeometry
                    ) -> tuple[np.ndarray, np.ndarray, Lattice, Lattice]:
    """The grid cut out of ``image`` with every cell made square, ready to classify and read.

    Returns
    -------
    warped : ndarray
        The straightened grid (a margin of a quarter cell around it).
    H : (3, 3) ndarray
        Homography from the image to the rectified frame the mesh was followed in.
    lattice : Lattice
        The grid lines in that frame (each followed line's mean position).
    read_lattice : Lattice
        The regular lattice of ``warped``.
    """
    warped, H, lattice = rectify_for_reading(image, geometry)
    # Follow each grid line (a bowed page or a border found a third of a cell off shifts cells
    # against a single homography), then read from a copy in which every cell is square.
    corners_xy = refine_lattice_mesh(warped, lattice)
    # The outline of a bowed page cuts the middle of its outer rows (or columns), whose lines
    # then bend out of the frame: they are followed again in a frame half a cell wider. So is
    # an outer line followed well inside the outline: the outline may be off (the line followed
    # right), or right with its line at the frame's very edge, half out of sight, taken at a
    # stroke beside it (a board drawn to the edge of a phone's screen, a column of large "0"s);
    # only the latter is then found on the outline (within _ON_OUTLINE), and only then taken.
    # (A photographed newspaper's right line, a quarter cell inside a border found too wide,
    # came out 0.12 cell inside it.)
    # So are lines that run out of the frame: an outline skewed against the grid (a tilted page,
    # a first column of black clue cells against a thick border) leaves a corner of the grid
    # outside it, where the follower finds only the frame's edge and the cells there come out
    # stretched. Those are taken where the wider frame's mesh is the more regular.
    bowed = mesh_bow(corners_xy, lattice) > BOW_CELLS
    inside = mesh_inside_outline(corners_xy, lattice) > BOW_CELLS
    cut_off = _out_of_frame(corners_xy, lattice, warped.shape) > _OUT_OF_FRAME
    irregularity = mesh_irregularity(corners_xy, lattice)
    if bowed or inside or cut_off:
        wider, H_wider, lattice_wider = rectify_for_reading(image, geometry, margin_px=READ_CELL_PX // 2)
        wider_xy = refine_lattice_mesh(wider, lattice_wider)
        wider_irregularity = mesh_irregularity(wider_xy, lattice_wider)
        if bowed or (inside and mesh_inside_outline(wider_xy, lattice_wider) <= _ON_OUTLINE) or (
                cut_off and wider_irregularity < irregularity):
            warped, H, lattice, corners_xy, irregularity = wider, H_wider, lattice_wider, wider_xy, wider_irregularity
    stray = _stray_line(corners_xy, lattice)
    if irregularity > _REFIT_IRREGULARITY or stray > _STRAY_LINE:
        # The lines followed may be the sides of large entries (an app's "0" in every empty cell)
        # beside fainter grid lines: followed as lines that run on for most of a cell, the mesh
        # is taken where it is regular. One line alone may stray so (down a column of large
        # digits), too few crossings to make the mesh irregular as a whole.
        long_xy = mesh_past_entries(warped, lattice, corners_xy)
        long_irregularity = float("inf") if long_xy is None else mesh_irregularity(long_xy, lattice)
        if long_irregularity <= _REFIT_IRREGULARITY and (
                irregularity > _REFIT_IRREGULARITY or _stray_line(long_xy, lattice) < stray):
            log.info("grid lines followed past the entries' strokes (irregularity %.2f -> %.2f cell)",
                     irregularity, long_irregularity)
            corners_xy, irregularity = long_xy, long_irregularity
    if irregularity > _REFIT_IRREGULARITY:
        # The outline may be off in a corner: straighten by the crossings most lines agree on and
        # keep whichever rectification leaves the mesh closer to a regular lattice.
        H_fix = homography_from_mesh(corners_xy, lattice)
        if H_fix is not None:
            H2 = H_fix @ H
            warped2 = cv2.warpPerspective(image, H2, (warped.shape[1], warped.shape[0]), flags=cv2.INTER_CUBIC,
                                          borderMode=cv2.BORDER_REPLICATE)
            corners2 = refine_lattice_mesh(warped2, lattice)
            if mesh_irregularity(corners2, lattice) < irregularity:
                log.info("grid re-rectified by its mesh (irregularity %.2f -> %.2f cell)",
                         irregularity, mesh_irregularity(corners2, lattice))
                warped, H, corners_xy = warped2, H2, corners2
    warped, read_lattice = remap_to_mesh(warped, corners_xy, READ_CELL_PX, margin_px=READ_CELL_PX // 4)
    # Reported in the homography's frame: the mean position of each followed line.
    lattice = Lattice(tuple(float(v) for v in corners_xy[:, :, 1].mean(axis=1)),
                      tuple(float(v) for v in corners_xy[:, :, 0].mean(axis=0)))
    return warped, H, lattice, read_lattice


#: How far (in cells) inside the outline an outer line followed again may lie and be on it.
_ON_OUTLINE = 0.1
#: How far (in cells) past the frame's edge a followed line may run before the grid is followed
#: again in a wider frame.
_OUT_OF_FRAME = 0.2


def _out_of_frame(corners_xy: np.ndarray, lattice: Lattice, shape: tuple[int, ...]) -> float:
    """How far (in cells) the mesh's farthest crossing lies past the edge of a frame of ``shape``."""
    h, w = shape[:2]
    past = max(float(-corners_xy[..., 0].min()), float(corners_xy[..., 0].max() - w),
               float(-corners_xy[..., 1].min()), float(corners_xy[..., 1].max() - h), 0.0)
    return past / max(lattice.cell_size, 1e-6)


def _stray_line(corners_xy: np.ndarray, lattice: Lattice) -> float:
    """How far (in cells) the mesh's farthest crossing lies off the middle of the lines beside
    its own (a column line's crossing from those of the columns left and right of it, a row
    line's from those above and below): a page's bow bends neighbouring lines together, a line
    that followed the strokes of large digits leaves them."""
    cell = float(np.mean(np.diff(lattice.col_edges)) + np.mean(np.diff(lattice.row_edges))) / 2
    if corners_xy.shape[0] < 3 or corners_xy.shape[1] < 3 or cell <= 0:
        return 0.0
    off_columns = corners_xy[:, 1:-1, 0] - (corners_xy[:, :-2, 0] + corners_xy[:, 2:, 0]) / 2
    off_rows = corners_xy[1:-1, :, 1] - (corners_xy[:-2, :, 1] + corners_xy[2:, :, 1]) / 2
    return float(max(np.abs(off_columns).max(), np.abs(off_rows).max())) / cell


def read_grid(image: np.ndarray, geometry: GridGeometry, *, second_opinion: bool = True,
              layout: frozenset[Cell] | None = None) -> GridReading:
    """Classify the cells of a located grid and read every clue its layout needs.

    Parameters
    ----------
    image : (M, N, 3) uint8 ndarray
        The source image (BGR) the geometry was found in.
    geometry : GridGeometry
        From :func:`vision.grid.locate_puzzles`.
    second_opinion : bool
        Ask tesseract about the clue reads the glyph reader is unsure of.
    layout : frozenset of (row, col), optional
        The white cells to read the grid as, instead of those the cells' looks say (a layout
        corrected by the puzzle's rules); ``classes`` still holds what the cells looked like.
    """
    return read_numbers(look_at_grid(image, geometry), second_opinion=second_opinion, layout=layout)


#: Lattices of this many cells or more are glanced at before they are looked at
#: (:func:`glance_at_grid`): a full look costs in proportion to the cells (8 s for a column of
#: text found as 29x30 cells in a phone photo), and the largest printed grids seen have 700.
GLANCE_CELLS = 400
#: The glance's cell size: a third of the reading's, enough to tell paper from print.
_GLANCE_CELL_PX = READ_CELL_PX // 3


def glance_at_grid(image: np.ndarray, geometry: GridGeometry, *, any_size: bool = False) -> str | None:
    """Why a located lattice of ``GLANCE_CELLS`` or more (of any size with ``any_size``) is no
    Kakuro, seen at a glance; None where it may be one (and for any smaller lattice).

    The cells are classified in the locator's own rectification at a third of the reading's
    size: no line followed, no shadow looked for (the costs of :func:`look_at_grid`). The rule
    is the full look's (:func:`layout_doubt`): more runs of one cell than a misread cell or two
    make. A column of text found as 29x30 cells glances at 32% of its runs single; printed grids
    of 30x30 and 32x22 (rendered, scanned or photographed) at 2% or none.
    """
    if geometry.lattice.shape[0] * geometry.lattice.shape[1] < GLANCE_CELLS and not any_size:
        return None
    warped, _, lattice = rectify_for_reading(image, geometry, cell_px=_GLANCE_CELL_PX)
    white = classify_cells(warped, lattice, shadow_edges=()).kinds == "white"
    lengths = layout_run_lengths(white)
    if not lengths:
        return "at a glance no white cells; this does not look like a Kakuro grid"
    if not too_many_single_runs(lengths):
        return None
    return (f"at a glance {lengths.count(1)} of {len(lengths)} runs are a single cell; "
            "this does not look like a Kakuro grid")


def look_at_grid(image: np.ndarray, geometry: GridGeometry) -> GridReading:
    """A located grid straightened and its cells classified, no number read yet (``sides`` is
    empty): enough to judge its layout before the reading, which costs most, is done."""
    warped, H, lattice, read_lattice = straighten_grid(image, geometry)
    edges = find_shadow(cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY) if warped.ndim == 3 else warped, read_lattice)
    warped, shadow = even_out_shadow(warped, edges)
    classes = classify_cells(warped, read_lattice, shadow_edges=edges)
    n_rows, n_cols = lattice.shape
    kinds = classes.kinds
    whites = frozenset((r, c) for r in range(n_rows) for c in range(n_cols) if kinds[r, c] == "white")
    return GridReading(n_rows, n_cols, whites, _clue_cells(whites, n_rows, n_cols), (), classes, H, lattice, (),
                       layout_doubt(whites, n_rows, n_cols), warped, read_lattice, shadow=tuple(shadow))


def lined_darker_than_cells(readings: Sequence[GridReading]) -> bool:
    """Whether the grids looked at are lined in ink darker than their cells, as print is: most
    cells whose border differs from their inside by more than the paper's grain (``_LINE_STEP``)
    have the darker border. Told cell by cell, a shadow darkening half the grid (and the
    image's median with it) does not turn the lines light, as a dark mode's are."""
    darker = lighter = 0
    for grid in readings:
        if grid.rectified is None or grid.rectified_lattice is None:
            continue
        gray = _gray(grid.rectified)
        rows, cols = grid.rectified_lattice.row_edges, grid.rectified_lattice.col_edges
        for y0, y1 in zip(rows[:-1], rows[1:]):
            for x0, x1 in zip(cols[:-1], cols[1:]):
                cell = gray[int(round(y0)):int(round(y1)) + 1, int(round(x0)):int(round(x1)) + 1]
                h, w = cell.shape
                if min(h, w) < 8:
                    continue
                ring = np.concatenate([cell[:2].ravel(), cell[-2:].ravel(), cell[:, :2].ravel(), cell[:, -2:].ravel()])
                inside = cell[h // 4: h - h // 4, w // 4: w - w // 4]
                step = float(np.median(ring)) - float(np.median(inside))
                darker += step < -_LINE_STEP
                lighter += step > _LINE_STEP
    return darker > 2 * lighter and darker >= _LINE_CELLS


#: Grey levels by which a cell's border must differ from its inside to count (JPEG and paper
#: grain stay under it), and the cells that must show dark lines for a grid to count as print.
_LINE_STEP = 12
_LINE_CELLS = 10


def numbers_in_blocks(reading: GridReading) -> tuple[tuple[Cell, str, int], ...]:
    """Numbers legible in the blocks of ``reading``'s layout, on the side that faces a clue cell:
    (block, direction, value).

    A block heads no run and carries no number; a number there says the cell it points to was
    taken for print and is white (an app's cursor cell holding pencilled candidates, read as a
    clue cell, leaves the clues above and left of it pointing at nothing; the puzzle may still
    have one solution, without that cell). Only blocks beside a clue cell are read: a cell of
    print taken for white makes the number's cell a clue cell, not a block.
    """
    if reading.rectified is None or reading.rectified_lattice is None or not reading.whites:
        return ()
    n_rows, n_cols = reading.n_rows, reading.n_cols
    clue_cells = set(_clue_cells(reading.whites, n_rows, n_cols))
    blocks, facing = [], []
    for r in range(n_rows):
        for c in range(n_cols):
            if (r, c) in reading.whites or (r, c) in clue_cells:
                continue
            sides = ((r + 1, c) in clue_cells, (r, c + 1) in clue_cells)
            if any(sides):
                blocks.append((r, c))
                facing.append(sides)
    # Most blocks are bare: only those with ink in them (more contrast inside than the grain of
    # a flat fill) are read, a tenth of a photo's time where every block was.
    gray = _gray(reading.rectified)
    low, high = percentile(gray, (2, 98))
    bare = _BARE_BLOCK * max(high - low, 1.0)
    inked = [k for k, (r, c) in enumerate(blocks)
             if _inside_contrast(_cell_crop(gray, reading.rectified_lattice, r, c)) >= bare]
    if not inked:
        return ()
    blocks, facing = [blocks[k] for k in inked], [facing[k] for k in inked]
    crops = [_cell_crop(reading.rectified, reading.rectified_lattice, r, c) for r, c in blocks]
    printed = []
    for cell, crop, sides, reads in zip(blocks, crops, facing, read_clues_two_readers(crops, second_opinion=False)):
        for direction, faces, read in zip(("down", "across"), sides, reads):
            if faces and read.value is not None and read.confidence > _STRAY_SURE:
                printed.append((cell, direction, int(read.value), _ink_contrast(crop, direction)))
    if printed:
        # Printed as the clues are: the reverse page's print showing through a block (a grid
        # line of it read as a "1") stands out from the paper far less than print does.
        clues = _clue_ink_contrast(reading, clue_cells)
        printed = [p[:3] for p in printed if p[3] is not None and (clues is None or p[3] >= _CLUE_INK_SHARE * clues)]
    if printed:
        log.info("numbers read in blocks: %s", printed)
    return tuple(printed)


def _clue_ink_contrast(reading: GridReading, clue_cells: set[Cell]) -> float | None:
    """How far the clue numbers' ink stands out from the paper round it (:func:`_ink_contrast`),
    the median over up to ``_CLUE_INK_SAMPLES`` clue sides; None where none holds ink."""
    sides = [(cell, direction) for cell in sorted(clue_cells) for direction in ("down", "across")]
    step = max(1, len(sides) // _CLUE_INK_SAMPLES)
    contrasts = [_ink_contrast(_cell_crop(reading.rectified, reading.rectified_lattice, *cell), direction)
                 for cell, direction in sides[::step]]
    known = [v for v in contrasts if v is not None]
    return float(np.median(known)) if known else None


def _ink_contrast(crop: np.ndarray, direction: str) -> float | None:
    """Grey levels between the ink of a cell's half on ``direction``'s side
    (:func:`split_clue_cell`) and the paper just round it (medians), in the cell's own grey;
    None where the half holds no ink."""
    half = split_clue_cell(crop)[direction == "across"]
    ink = half > 0
    if not ink.any():
        return None
    gray = cv2.resize(_gray(crop), half.shape[::-1], interpolation=cv2.INTER_AREA)
    near = cv2.dilate(ink.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
    ring = near & ~(cv2.dilate(ink.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0)
    if not ring.any():
        return None
    return abs(float(np.median(gray[ring])) - float(np.median(gray[ink])))


#: How far (share of the clue numbers') a number's ink in a block must stand out from its paper
#: to be print (a number read there is a white cell taken for print), and how many clue sides
#: that is measured on.
_CLUE_INK_SHARE = 0.5
_CLUE_INK_SAMPLES = 16


def _gray(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _inside_contrast(gray: np.ndarray) -> float:
    """The spread of grey levels (2nd to 98th percentile) inside a cell, its border left out."""
    h, w = gray.shape[:2]
    m = max(2, int(0.12 * min(h, w)))
    inside = gray[m:h - m, m:w - m]
    if inside.size == 0:
        return 0.0
    low, high = percentile(inside, (2, 98))
    return float(high - low)


#: A block whose inside spreads over less than this share of the grid's grey levels is bare
#: (flat fills measure 0.04 of it at the median; digits of any print more than a third).
_BARE_BLOCK = 0.15


def _clue_cells(whites: frozenset[Cell], n_rows: int, n_cols: int) -> tuple[Cell, ...]:
    # The layout decides which cells carry a number: those with a white cell below or to the right.
    return tuple((r, c) for r in range(n_rows) for c in range(n_cols)
                 if (r, c) not in whites and any(_needed_sides((r, c), whites)))


def read_numbers(look: GridReading, *, second_opinion: bool = True,
                 layout: frozenset[Cell] | None = None) -> GridReading:
    """The clue numbers and givens of a grid looked at (:func:`look_at_grid`, or a reading made
    before, whose cells' looks and glyph reads are reused), read as its layout, or ``layout``."""
    n_rows, n_cols = look.n_rows, look.n_cols
    whites = layout if layout is not None else look.whites
    clue_cells = _clue_cells(whites, n_rows, n_cols)
    doubt = layout_doubt(whites, n_rows, n_cols)
    base = dict(classes=look.classes, H=look.H, lattice=look.lattice, rectified=look.rectified,
                rectified_lattice=look.rectified_lattice, shadow=look.shadow)
    if doubt is not None:
        # Reading its "clues" would only add noise; the pipeline reports it as unreadable.
        log.info("grid %dx%d rejected: %s", n_rows, n_cols, doubt)
        return GridReading(n_rows, n_cols, whites, clue_cells, (), stray=(), doubt=doubt, **base)
    warped, read_lattice = look.rectified, look.rectified_lattice
    crops = [_cell_crop(warped, read_lattice, r, c) for r, c in clue_cells]
    # The same clue cells of the same straightened grid read the same: only a second opinion is new.
    first = look.glyph_reads if look.glyph_reads is not None and look.clue_cells == clue_cells \
        else (read_clues_glyph(crops) if crops else None)
    reads = read_clues_two_readers(crops, second_opinion=second_opinion, first_reads=first) if crops else []
    reads = _numbers_past_the_diagonal(crops, clue_cells, whites, reads)
    reads = _faint_numbers(crops, clue_cells, whites, reads)
    sides: list[SideReading] = []
    stray: list[tuple[Cell, str, int]] = []
    for cell, (down_read, across_read) in zip(clue_cells, reads):
        need_down, need_across = _needed_sides(cell, whites)
        for direction, needed, read in (("down", need_down, down_read), ("across", need_across, across_read)):
            if needed:
                sides.append(SideReading(cell, direction, _options(read), read.confidence))
            elif read.value is not None and read.confidence > _STRAY_SURE:
                stray.append((cell, direction, read.value))
    if stray:
        log.info("numbers read where the layout has no run: %s", stray)
    white_cells = sorted(whites)
    white_crops = [_cell_crop(warped, read_lattice, r, c) for r, c in white_cells]
    legible = _legible(sides)
    if sides and legible <= _KEY_CLUE_SHARE * len(sides) and filled_in(white_crops):
        # Digits in the white cells and none in the clue cells: a solution grid (an answer key,
        # if its digits keep the rules; see read_answer_key) or a sudoku, not a puzzle to solve.
        doubt = f"{len(sides) - legible} of {len(sides)} clues hold no legible number, and the white cells hold digits"
        log.info("grid %dx%d: %s; not a puzzle", n_rows, n_cols, doubt)
    given_reads = read_givens(white_crops, ink_chromas=_printing_ink_chromas(crops))
    givens = {cell: int(g.value) for cell, g in zip(white_cells, given_reads) if g.value is not None}
    if givens:
        log.info("givens read: %s", givens)
    return GridReading(n_rows, n_cols, whites, clue_cells, tuple(sides), stray=tuple(stray), doubt=doubt,
                       givens=givens, glyph_reads=first, **base)


def _needed_sides(cell: Cell, whites: frozenset[Cell]) -> tuple[bool, bool]:
    """Whether a clue cell heads a down run and an across run (a white cell below it, beside it)."""
    return (cell[0] + 1, cell[1]) in whites, (cell[0], cell[1] + 1) in whites


def _numbers_past_the_diagonal(crops: list[np.ndarray], clue_cells: Sequence[Cell], whites: frozenset[Cell],
                               reads: list[tuple[NumberRead, NumberRead]]) -> list[tuple[NumberRead, NumberRead]]:
    """``reads`` with the one number of a clue cell that heads one run read from both halves'
    ink, where the half it needs not read something (the end of a wide number run on past the
    diagonal) and that ink stands on one line with its own, and the number so read is the
    surer one."""
    lone = []
    for k, cell in enumerate(clue_cells):
        need_down, need_across = _needed_sides(cell, whites)
        if need_down != need_across and reads[k][1 if need_down else 0].value is not None:
            lone.append((k, "down" if need_down else "across"))
    if not lone:
        return reads
    whole = read_numbers_across_the_diagonal([crops[k] for k, _ in lone], [side for _, side in lone])
    reads = list(reads)
    for (k, side), read in zip(lone, whole):
        down, across = reads[k]
        kept = down if side == "down" else across
        if read is None or read.value is None:
            continue
        # Surer, it is the number; else the rules choose between the two ("2" or "23").
        read = read if best_probability(read) > best_probability(kept) else either_read(kept, read)
        log.info("row %d, column %d: the %s number read past the diagonal as %d (was %s)", clue_cells[k][0] + 1,
                 clue_cells[k][1] + 1, side, read.value, kept.value)
        reads[k] = (read, NumberRead(None, 1.0)) if side == "down" else (NumberRead(None, 1.0), read)
    return reads


def _faint_numbers(crops: list[np.ndarray], clue_cells: Sequence[Cell], whites: frozenset[Cell],
                   reads: list[tuple[NumberRead, NumberRead]]) -> list[tuple[NumberRead, NumberRead]]:
    """``reads`` with each number the layout asks for that looked like empty paper read again
    from fainter ink (:func:`vision.ocr.read_faint_numbers`), where that reads a number."""
    empty = []
    for k, cell in enumerate(clue_cells):
        needs = _needed_sides(cell, whites)
        for side, j in (("down", 0), ("across", 1)):
            if needs[j] and reads[k][j].value is None:
                empty.append((k, side, j))
    if not empty:
        return reads
    faint = read_faint_numbers([crops[k] for k, _, _ in empty], [side for _, side, _ in empty])
    reads = list(reads)
    for (k, side, j), read in zip(empty, faint):
        if read.value is not None:
            log.info("row %d, column %d: the %s number read in faint ink as %d", clue_cells[k][0] + 1,
                     clue_cells[k][1] + 1, side, read.value)
            reads[k] = (read, reads[k][1]) if j == 0 else (reads[k][0], read)
    return reads


#: An answer key: at most this share of its clue sides holds a legible number (phantoms of the
#: block pattern, or of a sudoku's box lines beside its digits: a third of a sudoku's "clue"
#: sides were read so, weakly), and at least this share of its white cells a digit. A puzzle a
#: player filled in keeps nearly all its clues legible.
_KEY_CLUE_SHARE = 0.4
_KEY_FILLED = 0.9
#: A Kakuro's answer key keeps its black cells: at least this share of the grid.
_KEY_BLACK_SHARE = 0.15


def read_answer_key(reading: GridReading) -> dict[Cell, int] | None:
    """The digits of a grid that is an answer key, else None.

    A puzzle book prints the solution of an earlier puzzle as a grid with a digit in every white
    cell and no clue numbers. It is no puzzle to solve, and its digits are the truth a solved
    puzzle of the same layout can be checked against. Some leave out the clue row and column:
    white cells that looked white there count too.
    """
    if not reading.whites or reading.rectified is None:
        return None
    if _legible(reading.sides) > _KEY_CLUE_SHARE * len(reading.sides):
        return None
    whites = set(reading.whites)
    if reading.classes is not None and reading.classes.looked_white is not None:
        whites |= {(int(r), int(c)) for r, c in zip(*np.nonzero(reading.classes.looked_white))}
    if len(whites) > (1 - _KEY_BLACK_SHARE) * reading.n_rows * reading.n_cols:
        return None  # a Sudoku's solution (every cell a digit), not a Kakuro's
    if layout_doubt(frozenset(whites), reading.n_rows, reading.n_cols) is not None:
        # Not a Kakuro's layout (runs of one cell): clue numbers in cells misjudged white, read
        # as digits, make no answer key.
        return None
    # Cropped and looked at only once the layout is a Kakuro's (the cheaper test first).
    others = [(r, c) for r in range(reading.n_rows) for c in range(reading.n_cols) if (r, c) not in whites]
    if filled_in([_cell_crop(reading.rectified, reading.rectified_lattice, *cell) for cell in others]):
        # The cells taken for blocks hold digits as the white cells do: a Sudoku's solution whose
        # thick box lines passed for the edges of clue cells. A key's blocks are blank.
        return None
    digits: dict[Cell, int] = {}
    allowed_empty = int((1 - _KEY_FILLED) * len(whites))
    cells = sorted(whites)
    reads = read_given_digits([_cell_crop(reading.rectified, reading.rectified_lattice, *cell) for cell in cells])
    for cell, read in zip(cells, reads):
        if read.value is not None:
            digits[cell] = int(read.value)
        else:
            allowed_empty -= 1
            if allowed_empty < 0:
                return None
    return digits if _obeys_runs(whites, digits) else None


#: Most cells a number pad's lattice holds (nine keys, a border or a spare key or two), and how
#: many of its nine digits must be read in their place.
_PAD_CELLS = 20
_PAD_IN_ORDER = 7


def number_pad(look: GridReading) -> bool:
    """Whether a grid looked at is an app's number pad: a few cells holding the digits 1 to 9 in
    reading order, one in each (three rows of three, a row of nine, rows of five and four).

    A screenshot shows the board and, below it, buttons for the digits; the buttons' edges make
    a lattice, and their digits pass for clues or for an answer key's (1 to 9 keeps the rules).
    """
    if look.n_rows * look.n_cols > _PAD_CELLS or look.rectified is None or look.rectified_lattice is None:
        return False
    cells = [(r, c) for r in range(look.n_rows) for c in range(look.n_cols)]
    reads = read_given_digits([_cell_crop(look.rectified, look.rectified_lattice, *cell) for cell in cells])
    # Keys wider than tall may be cut in two by the lattice, a digit on the line between two
    # cells: the pad's glyphs are then read where they stand.
    if not (_one_to_nine([read.value for read in reads])
            or _one_to_nine(_glyphs_in_reading_order(look.rectified, look.rectified_lattice))):
        return False
    log.info("grid %dx%d: the digits 1 to 9 in order; a number pad, not a puzzle", look.n_rows, look.n_cols)
    return True


def _one_to_nine(values: Sequence[int | None]) -> bool:
    """Whether nine digits were read, most of them 1 to 9 in order."""
    digits = [value for value in values if value is not None]
    # A key or two may be misread (a large "7" taken for a "1"); a Kakuro's cells in that order
    # by chance are no likelier.
    return len(digits) == 9 and sum(d == k for k, d in enumerate(digits, 1)) >= _PAD_IN_ORDER


def _glyphs_in_reading_order(rectified: np.ndarray, lattice: Lattice) -> list[int | None]:
    """The digits of a rectified box read glyph by glyph wherever they stand, row by row, of the
    polarity whose digits are 1 to 9 in order (:func:`_one_to_nine`); empty for neither.

    A glyph is a blob of thin strokes (a top-hat of either polarity) as tall as a third to nine
    tenths of a row; each is read in a row-high square around it."""
    side = int(round(float(np.median(np.diff(lattice.row_edges)))))
    gray = cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY) if rectified.ndim == 3 else rectified
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(0.6 * side) | 1,) * 2)
    framed = cv2.copyMakeBorder(rectified, side, side, side, side, cv2.BORDER_REPLICATE)
    for tone in (gray, 255 - gray):
        _, ink = cv2.threshold(cv2.morphologyEx(tone, cv2.MORPH_TOPHAT, kernel), 0, 255,
                               cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        n, _, stats, _ = cv2.connectedComponentsWithStats(ink)
        boxes = [stats[i] for i in range(1, n)
                 if 0.3 * side <= stats[i][3] <= 0.9 * side and stats[i][2] <= 0.8 * side]
        if not 9 <= len(boxes) <= _PAD_CELLS:
            continue
        centres = sorted((y + h / 2, x + w / 2) for x, y, w, h, _ in boxes)
        rows: list[list[tuple[float, float]]] = []
        for centre in centres:
            if rows and centre[0] - rows[-1][-1][0] < side / 2:
                rows[-1].append(centre)
            else:
                rows.append([centre])
        ordered = [(int(x), int(y)) for row in rows for y, x in sorted(row, key=lambda c: c[1])]
        crops = [framed[y + side - side // 2:y + side + side // 2, x + side - side // 2:x + side + side // 2]
                 for x, y in ordered]
        values = [read.value for read in read_given_digits(crops)]
        if _one_to_nine(values):
            return values
    return []


def _legible(sides: Sequence[SideReading]) -> int:
    """How many of ``sides`` hold a number read more surely than not."""
    return sum(1 for side in sides if side.options and side.options[0][1] >= 0.5)


def _obeys_runs(whites: set[Cell], digits: dict[Cell, int]) -> bool:
    """Whether every run of white cells is 9 cells at most and repeats no digit, and every white
    cell has a white neighbour across or down (a solved grid's rules; a shadowed Sudoku or a block
    of text read as digits breaks them)."""
    frozen = frozenset(whites)
    for r, c in whites:
        # A one-cell run is printed (FACTS.md), but only in one direction: a cell alone both
        # ways belongs to no sum at all.
        if not any(n in frozen for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))):
            return False
    for direction, (dr, dc) in (("across", (0, 1)), ("down", (1, 0))):
        for r, c in whites:
            if (r - dr, c - dc) in whites:
                continue
            run = run_cells(frozen, (r - dr, c - dc), direction)
            seen = [digits[cell] for cell in run if cell in digits]
            if len(run) > 9 or len(seen) != len(set(seen)):
                return False
    return True


#: Share of a first row's (column's) cells that look white from which it may be page margin.
_MARGIN_SHARE = 0.75
#: Rows (or columns) of paper a grid's outline may take in at its top (or left): the page's
#: margin and a title printed in it.
_MARGIN_DEPTH = 2


def trim_page_margin(image: np.ndarray, geometry: GridGeometry, reading: GridReading
                     ) -> tuple[GridGeometry, GridReading]:
    """Drop a row or column at the grid's edge in which every cell looks like white paper, a last
    one of blocks only (a first one too where nothing says it is printed), or the rows or
    columns up to one near the edge with a run longer than nine (:func:`_overrun`).

    A grid printed with a paper margin, photographed on a desk as dark as its blocks, shows the
    margin as one more row or column of cells between two dark edges. No Kakuro has such a row
    or column: the first ones hold only clues, and a last one all white would be a run without
    a clue. The grid is looked at again without it (:func:`look_at_grid`: no number is read), and
    that look is kept when its own first row and column hold no white-looking cell. Where they
    still look like paper (a title printed in the margin between the page's edge and the grid),
    up to ``_MARGIN_DEPTH`` rows or columns go. Of a layout no Kakuro has (``reading.doubt``),
    only a first row or column of paper is dropped: a block of text or a striped desk taken
    for a lattice has rows of blocks and long runs anywhere, and each look costs.
    """
    classes = reading.classes
    looked = classes.looked_white if classes is not None else None
    if looked is None or reading.n_rows < 4 or reading.n_cols < 4:
        return geometry, reading
    white = (classes.kinds == "white") | looked
    # The first row or column may keep a cell or so dark in a shadowed corner; the reading
    # without it must then hold no white-looking cell in its own first ones. A last row all
    # white (its first cell too, which no white cell can be) is margin whatever the reading.
    # A last row or column of blocks only holds no run and no clue: a dark page or desk beside
    # the grid taken for one more row of cells (no puzzle in the corpus ends with one).
    # So does a first one that shows no sign of print (an app's dark screen past the board's
    # frame taken for a column of blocks; one corpus puzzle prints such a column, see
    # _printed); trimmed, the look must keep its first ones free of white cells, which a
    # misread column of clue cells would not.
    blocks = classes.kinds == "black"
    edges = {"top": int(_looks_like_margin(looked, "top")
                        or (blocks[0, :].all() and not _printed(image, reading, "top"))),
             "left": int(_looks_like_margin(looked, "left")
                         or (blocks[:, 0].all() and not _printed(image, reading, "left"))),
             "bottom": int(white[-1, :].all() or blocks[-1, :].all()),
             "right": int(white[:, -1].all() or blocks[:, -1].all())}
    # A run is headed by its clue, which may look like paper in the first column (a clue's
    # white lower half, an app's tinted triangle): there it does not lengthen the run, or a
    # run of nine would read as ten and its rows be cut away as a lattice run on past the grid.
    along_rows, along_cols = white.copy(), white.copy()
    along_rows[1:, 0] = classes.kinds[1:, 0] == "white"
    along_cols[0, 1:] = classes.kinds[0, 1:] == "white"
    for side, depth in _overrun(along_rows, along_cols).items():
        edges[side] = max(edges[side], depth)
    if reading.doubt is not None:
        edges = {side: depth if side in ("top", "left") and _looks_like_margin(looked, side) else 0
                 for side, depth in edges.items()}
    if not any(edges.values()):
        return geometry, reading
    trimmed = trim_geometry(geometry, **edges)
    look = look_at_grid(image, trimmed)
    # A grid located from the page's edge keeps a title or caption between that edge and the
    # grid: one more row (or column) of paper, seen as such once the first one is gone.
    for _ in range(_MARGIN_DEPTH - 1):
        more = [side for side in ("top", "left") if edges[side] and look.classes.looked_white is not None
                and _looks_like_margin(look.classes.looked_white, side)]
        if not more or min(look.n_rows, look.n_cols) < 4:
            break
        for side in more:
            edges[side] += 1
        trimmed = trim_geometry(geometry, **edges)
        look = look_at_grid(image, trimmed)
    looked = look.classes.looked_white
    if look.doubt is None and (looked is None or not looked.any()) and look.clue_cells:
        log.info("grid trimmed of page margin read as cells: %s", {k: v for k, v in edges.items() if v})
        return trimmed, look
    return geometry, reading


def _looks_like_margin(looked_white: np.ndarray, side: str) -> bool:
    """Whether the first row ("top") or column ("left") of a grid looks like white paper."""
    return float((looked_white[0, :] if side == "top" else looked_white[:, 0]).mean()) >= _MARGIN_SHARE


def _printed(image: np.ndarray, reading: GridReading, side: str) -> bool:
    """Whether the first row or column (``side``, "top" or "left") of a grid's blocks is printed:
    lines part its cells, or the page's paper lies past it (:func:`_paper_past`). The one
    published puzzle of the corpus with a first column of blocks only shows both; a dark screen
    or desk read as one more column of cells shows neither."""
    return _lines_part(reading, side) or _paper_past(image, reading, side)


#: Grey levels by which the lines parting a row's or column's cells stand out: 0-2 on a dark
#: screen read as cells, 120-190 between printed blocks parted by light lines.
_PARTING_LINE = 20.0
#: Dark lines on black blocks can stand out by less than 10 (4-5 on an app's black board): then
#: the first row or column counts as parted where its lines stand out at least half as much as
#: those between the grid's other blocks, and those by this much at least (a dark screen past a
#: board whose blocks stand out by 75-115 gives 0).
_FAINT_PARTING = 3.0
_PARTING_SHARE = 0.5


def _lines_part(reading: GridReading, side: str) -> bool:
    """Whether lines part the cells of the grid's first row or column (``side``): the median
    over its cell boundaries of the most a line three pixels wide stands out from the cells'
    middles on either side, clear in itself or as clear as between the grid's other blocks."""
    lat = reading.rectified_lattice
    if reading.rectified is None or lat is None:
        return False
    gray = reading.rectified if reading.rectified.ndim == 2 else cv2.cvtColor(reading.rectified, cv2.COLOR_BGR2GRAY)
    gray = gray.astype(np.float32)
    blocks = reading.classes.kinds == "black"
    if side == "top":  # the same measure, rows and columns swapped
        gray, across, along, blocks = gray.T, lat.row_edges, lat.col_edges, blocks.T
    else:
        across, along = lat.col_edges, lat.row_edges

    def steps(c: int, only_blocks: bool) -> list[float]:
        lo, hi = int(across[c]), int(across[c + 1])
        band = slice(lo + (hi - lo) // 4, hi - (hi - lo) // 4)
        found = []
        for k in range(1, len(along) - 1):
            if only_blocks and not (blocks[k - 1, c] and blocks[k, c]):
                continue
            y = int(round(along[k]))
            line = gray[y - 1:y + 2, band].mean(axis=1)
            middles = np.r_[gray[int(along[k - 1] + along[k]) // 2, band], gray[int(along[k] + along[k + 1]) // 2, band]]
            found.append(float(np.max(np.abs(line - np.median(middles)))))
        return found

    first = steps(0, False)
    if not first:
        return False
    parting = float(np.median(first))
    if parting >= _PARTING_LINE:
        return True
    inner = [step for c in range(1, len(across) - 1) for step in steps(c, True)]
    return len(inner) >= _MIN_INNER_PARTINGS and float(np.median(inner)) >= _FAINT_PARTING \
        and parting >= _PARTING_SHARE * float(np.median(inner))


#: Lines between two blocks elsewhere in the grid that :func:`_lines_part` needs to compare with.
_MIN_INNER_PARTINGS = 4


def _paper_past(image: np.ndarray, reading: GridReading, side: str) -> bool:
    """Whether the image a tenth to half a cell past the grid's ``side`` ("top" or "left") is
    nearer the white cells' paper in tone than the blocks' (a scan may keep a margin of a fifth
    of a cell): then a first row or column of blocks only lies inside the printed grid, not on
    the dark desk or screen past it. Past the image's edge it is not."""
    kinds, lat = reading.classes.kinds, reading.rectified_lattice
    if reading.rectified is None or lat is None or not (kinds == "white").any():
        return False
    rows, cols = np.asarray(reading.lattice.row_edges), np.asarray(reading.lattice.col_edges)
    cell = float(np.mean(np.diff(cols)))
    out = np.linspace(0.1, 0.5, 6)
    if side == "left":
        points = [(cols[0] - k * cell, y) for k in out for y in (rows[:-1] + rows[1:]) / 2]
    else:
        points = [(x, rows[0] - k * cell) for k in out for x in (cols[:-1] + cols[1:]) / 2]
    src = cv2.perspectiveTransform(np.array(points, np.float32).reshape(-1, 1, 2), np.linalg.inv(reading.H))
    src = src.reshape(-1, 2)
    h, w = image.shape[:2]
    inside = (src[:, 0] >= 0) & (src[:, 0] < w - 1) & (src[:, 1] >= 0) & (src[:, 1] < h - 1)
    if inside.mean() < 0.5:
        return False
    # Only the pixels sampled are made grey, not the whole photo.
    pixels = image[src[inside, 1].astype(int), src[inside, 0].astype(int)]
    if pixels.ndim == 2:
        pixels = cv2.cvtColor(pixels[None], cv2.COLOR_BGR2GRAY)[0]
    past = float(np.median(pixels))
    rectified = reading.rectified
    rectified = cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY) if rectified.ndim == 3 else rectified

    def tone(kind: str) -> float:
        cells = zip(*np.nonzero(kinds == kind))
        return float(np.median([np.median(_cell_crop(rectified, lat, r, c)) for r, c in cells]))

    return abs(past - tone("white")) < abs(past - tone("black"))


#: Rows or columns at the grid's edge in which a run longer than a Kakuro's says the lattice ran on
#: past the grid.
_OVERRUN_DEPTH = 2


def _overrun(along_rows: np.ndarray, along_cols: np.ndarray) -> dict[str, int]:
    """Per side of the grid, how many rows or columns to drop where one of the last
    ``_OVERRUN_DEPTH`` along it holds a run of white-looking cells longer than nine (in
    ``along_rows`` for the top and bottom rows, ``along_cols`` for the columns): no Kakuro
    has one, and a lattice carried on past the grid's edge onto the page (a dark desk or a fold
    beyond the paper taken for the grid's frame) reads the paper as such a run."""
    depth: dict[str, int] = {}
    for side, lines, reverse in (("top", along_rows, False), ("bottom", along_rows, True),
                                 ("left", along_cols.T, False), ("right", along_cols.T, True)):
        count = len(lines)
        for k in range(min(_OVERRUN_DEPTH, count - 3)):
            line = lines[count - 1 - k] if reverse else lines[k]
            if max(run_lengths(list(line)), default=0) > MAX_RUN:
                depth[side] = k + 1
    return depth


def complete_clue_border(image: np.ndarray, geometry: GridGeometry, reading: GridReading
                         ) -> tuple[GridGeometry, GridReading]:
    """Add the first row or column of clue cells when the lattice lost it; else return as given.

    A Kakuro's first row and first column hold no white cell: each white cell has a clue above
    it and one to its left. White cells there mean the lattice began a row or column late, as
    where clue triangles stand on a black page with no line closing them off. The grid is looked
    at again one row (column) wider (no number is read), and that look is kept only when it obeys
    the rule, or comes nearer to it where light grey blocks look as white as paper.
    """
    def border_whites(rd: GridReading) -> tuple[int, int]:
        looked = rd.classes.looked_white if rd.classes is not None else None
        if looked is None:
            return 0, 0
        return int(looked[0, :].sum()), int(looked[:, 0].sum())

    # A lost row (column) of clues leaves the first row (column) of white cells at the border,
    # and its runs are two cells or more: one white-looking cell there is a clue cell that looked
    # pale, not a row worth reading again.
    top, left = (n if n >= 2 else 0 for n in border_whites(reading))
    if not (top or left):
        return geometry, reading
    wider = extend_geometry(geometry, int(top > 0), int(left > 0))
    look = look_at_grid(image, wider)
    # The border found is no border: the one added is, where none of its cells looks white, or,
    # where light grey blocks look as white as paper, where fewer of its cells do than of the
    # border found and at most _LOST_BORDER_WHITE of them (paper past the grid looks white all
    # along). A side not added must look as it must, with no white cell.
    new_top, new_left = border_whites(look)
    clearer = all(new == 0 or (new < old and new <= _LOST_BORDER_WHITE * length)
                  for new, old, length in ((new_top, top, look.n_cols), (new_left, left, look.n_rows)))
    if look.doubt is None and len(look.whites) > len(reading.whites) and clearer and look.clue_cells:
        if not _numbered_border(look, top > 0, left > 0):
            # A lost row of clues carries their numbers; an app's dark background past its frame
            # looks like a row of blocks but holds none.
            log.info("grid not widened: the row or column added holds no numbers for its runs")
            return geometry, reading
        log.info("grid widened by %d row(s) and %d column(s) of clue cells at its start", top > 0, left > 0)
        return wider, look
    return geometry, reading


#: Ink pixels (of a 96x96 half) that make a number in a clue triangle, and the share of an added
#: border's needed triangles that must hold one.
_NUMBER_INK_PX = 40
_NUMBERED_BORDER = 0.5


def _numbered_border(look: GridReading, top: bool, left: bool) -> bool:
    """Whether the clue triangles of ``look``'s first row (``top``) and first column (``left``)
    that head a run hold ink, for the most part."""
    needed = [((0, c), 0) for c in range(look.n_cols) if top and (1, c) in look.whites]
    needed += [((r, 0), 1) for r in range(look.n_rows) if left and (r, 1) in look.whites]
    if not needed or look.rectified is None or look.rectified_lattice is None:
        return True
    inked = sum(np.count_nonzero(split_clue_cell(_cell_crop(look.rectified, look.rectified_lattice, *cell))[half])
                >= _NUMBER_INK_PX for cell, half in needed)
    return inked >= _NUMBERED_BORDER * len(needed)


#: Share of an added border's cells that may look white (light grey blocks) in complete_clue_border.
_LOST_BORDER_WHITE = 0.6


#: Clue cells whose digits are looked at for their ink's colour.
_DIGIT_INK_SAMPLE = 16


def _printing_ink_chromas(clue_crops: list[np.ndarray]) -> tuple[float, ...]:
    """Lab chroma of the inks the puzzle was printed in: the darkest one in the clue cells, and
    that of the clue digits (they differ where dark coloured blocks carry light digits, and the
    givens are printed black)."""
    crops = [c for c in clue_crops if c.ndim == 3 and c.size]
    if not crops:
        return ()
    pixels = np.concatenate([c.reshape(-1, 3) for c in crops]).astype(np.uint8)
    lab = bgr_to_lab(pixels).astype(np.float32)
    dark = lab[:, 0] <= percentile(lab[:, 0], 3)
    chromas = [float(np.median(np.hypot(lab[dark, 1] - 128, lab[dark, 2] - 128)))]
    digits = [chroma for crop in crops[:_DIGIT_INK_SAMPLE] for half in split_clue_cell(crop)
              if (chroma := ink_chroma(crop, half)) is not None]
    if digits:
        chromas.append(float(np.median(digits)))
    return tuple(chromas)

