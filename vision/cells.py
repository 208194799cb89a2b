"""Classify the cells of a rectified grid as black, clue or white.

Only relative measures are used: each cell's paper tone is compared with the whitest cells
around it (lighting varies across a photo), and a clue cell's diagonal is found as a line or
an edge along the cell's main diagonal. The puzzle's own structure then decides between clue
and black: a non-white cell with a white cell to its right or below starts a run, so it is a
clue; the first row and column are never white.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Sequence

import cv2
import numpy as np

from .colour import bgr_to_lab
from .histograms import hist_kth, hist_median, hist_percentile, percentile
from .light import ShadowEdge, find_shadow
from .ocr import numbers_in_discs
from .types import CellClasses, Lattice

__all__ = ["classify_cells", "measure_cells", "diagonal_slants", "CellFeatures"]

#: Relative darkness from which a cell is printed black, whatever the light (a shadow on white
#: paper stays lighter than this).
_BLOCK_TONE = 0.6
#: Lab a*b* distance from which two papers are told apart by tint (the clue cells' and the white
#: cells'); print and photo noise in one paper stay well below it.
_TINT_APART = 8.0

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CellFeatures:
    """Per-cell measurements, each an (n_rows, n_cols) float array, all scaled to 0..1-ish.

    Attributes
    ----------
    tone : darkness of the cell's paper relative to the whitest cells nearby (0 white, 1 ink).
    diagonal : strength of a line or an edge along the top-left to bottom-right diagonal.
    colour : how far the cell's paper tint is from the white cells' tint (tinted clue cells).
    dashed : strength of a line along 60% of the diagonal: a dashed or broken one counts too, a
        digit crossing it does not.
    paper : the cell's paper grey level (0..255), and ``ink`` the image's darkest ink level.
    tint : the cell's paper tint (Lab a, b; (n_rows, n_cols, 2)), None for a grey image.
    entry : (bool) the cell holds a large entry, its paper taken from its frame.
    """

    tone: np.ndarray
    diagonal: np.ndarray
    colour: np.ndarray
    dashed: np.ndarray | None = None
    paper: np.ndarray | None = None
    ink: float = 0.0
    tint: np.ndarray | None = None
    entry: np.ndarray | None = None


def _colour_apart(tint: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """How far each tint (Lab a, b along the last axis) lies from ``ref``, on ``CellFeatures.colour``'s
    scale: 40 Lab units are 1."""
    return np.linalg.norm(tint - ref, axis=-1) / 40.0


def _paper_tint_field(tint: np.ndarray, lightest: np.ndarray) -> np.ndarray:
    """The white paper's tint at every cell, (n_rows, n_cols, 2): a plane over the grid fitted
    to the lightest cells' tints, the cells that stand apart from it left out.

    A photo's light often changes colour across the page (daylight from a window on one side,
    a lamp's warm light on the other, a coloured desk's reflection): white cells in one corner
    then stand as far from the grid's median tint as a pale printed tint does (11 Lab units),
    and were taken for clue cells. Printed tints are the same in every cell that carries them
    and end at a cell's edge; the light's change is smooth. Tinted cells among the lightest (pale
    blocks) are the fewer and lie off the plane, and are left out of the fit.
    """
    ref = np.median(tint[lightest], axis=0)
    values = tint.reshape(-1, 2).astype(np.float64)
    light = lightest.ravel()

    def near(resid: np.ndarray, kept: np.ndarray) -> np.ndarray:
        off = np.linalg.norm(resid, axis=1)
        return light & (off < max(_TINT_FIT_NOISE, 3.0 * float(np.median(off[kept]))))

    first = light & (np.linalg.norm(values - ref, axis=1) < _TINT_APART)
    fit = _plane_through(values, lightest.shape, near, first=first, min_cells=_TINT_FIELD_CELLS)
    if fit is None:
        return np.broadcast_to(ref, tint.shape)
    return fit[0].reshape(tint.shape).astype(np.float32)


def _lighter_of_two_tints(tone: np.ndarray, tint: np.ndarray, lightest: np.ndarray) -> np.ndarray:
    """Of ``lightest``, the cells of the lighter paper where they are of two tints, one of them
    lighter; all of them otherwise.

    A photo's light can bring a pale tinted print (beige blocks) within a tenth of the white
    paper's tone, and where that print covers more of the grid than the white cells do, the
    lightest cells' median tint is the print's: the white cells then stood apart by colour and
    were taken for clue cells. Ink only darkens paper, so of two tints among the lightest
    cells, the white paper is the lighter one, where one is lighter by more than the paper's
    own unevenness; where the two are as light (pale yellow clue cells on cream), nothing is
    said here. Nor where the tints are nearer than a print's that its colour alone marks as not
    white (a pastel tile, 11 Lab units from its white cells, is told by the paper colours'
    classes and the layout, which the tint taken for the paper's leaves to decide).
    """
    if lightest.sum() < 2 * _TINT_GROUP_CELLS:
        return lightest
    values = tint[lightest].astype(np.float32)
    cv2.setRNGSeed(0)
    _, labels, centres = cv2.kmeans(values, 2, None, (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.2),
                                    3, cv2.KMEANS_PP_CENTERS)
    labels = labels.ravel()
    if (np.linalg.norm(centres[0] - centres[1]) <= _PRINT_TINT_APART
            or min(np.count_nonzero(labels == 0), np.count_nonzero(labels == 1)) < _TINT_GROUP_CELLS):
        return lightest
    tones = tone[lightest]
    medians = [float(np.median(tones[labels == j])) for j in (0, 1)]
    if abs(medians[0] - medians[1]) < _LIGHTER_TINT:
        return lightest
    out = np.zeros_like(lightest)
    out[lightest] = labels == int(np.argmin(medians))
    return out


#: Lab a*b* distance of two tints among the lightest cells for the lighter to be taken for the
#: paper's: far enough that the other's colour alone passes any split of the cells' scores
#: (``_split_threshold``'s highest, 0.35, over ``classify_cells``' 0.8 weight on colour).
_PRINT_TINT_APART = 18.0
#: Cells each of two tints among the lightest cells must have for the lighter one to stand for the paper.
_TINT_GROUP_CELLS = 4
#: Tone by which one of two tints must be lighter than the other to be the white paper's.
_LIGHTER_TINT = 0.03
#: Lightest cells a tint field is fitted to, at least; with fewer, one tint for the grid.
_TINT_FIELD_CELLS = 8
#: Lab a*b* distance from the fitted plane that is still the paper's own noise.
_TINT_FIT_NOISE = 3.0


def measure_cells(warped: np.ndarray, lattice: Lattice) -> CellFeatures:
    """Measure paper tone, diagonal strength and colour of every cell.

    Parameters
    ----------
    warped : (M, N) or (M, N, 3) uint8 ndarray
        Rectified grid (BGR or gray).
    lattice : Lattice
        Its row and column boundaries.

    Returns
    -------
    CellFeatures
    """
    lab = None
    if warped.ndim == 3:
        gray = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY)
        lab = bgr_to_lab(warped)
    elif warped.ndim == 2:
        gray = warped
    else:
        raise ValueError(f"warped must be (M, N) or (M, N, 3), got shape {warped.shape}")
    n_rows, n_cols = lattice.shape
    if n_rows < 1 or n_cols < 1:
        raise ValueError(f"lattice must have at least one cell, got shape {lattice.shape}")
    paper = np.zeros((n_rows, n_cols), np.float32)
    tint = np.zeros((n_rows, n_cols, 2), np.float32)
    toned = gray  # the image the cells' paper tone and tint are taken from
    if warped.dtype == np.uint8:
        # Grey levels are whole numbers 0..255: a histogram of each cell gives its median and
        # its peak exactly, and for all cells at once.
        # A newspaper prints a tint as dots with bare paper between them: such a cell's tone
        # and tint are measured with its dots smoothed into their mean (over an eighth of a
        # cell, a few of a screen's dots), as an eye sees them from a little way off.
        k = max(3, int(lattice.cell_size / 8) | 1)
        smoothed = cv2.blur(gray, (k, k))
        empty, hists = _cell_histograms([gray, smoothed], lattice)
        screened = _screened(hists) & ~empty
        raw, smooth = _paper_tones(hists)
        paper[:] = np.where(empty, 0, np.where(screened, smooth, raw))
        if screened.any():
            where = _cells_mask(lattice, screened, gray.shape)
            toned = np.where(where, smoothed, gray)
            if lab is not None:
                # The mean of the dots' Lab, not the Lab of their mean colour: near enough for a
                # tint, and no second conversion of the whole grid (hatched blocks pass for dots).
                np.copyto(lab, cv2.blur(lab, (k, k)), where=where[..., None])
    else:
        # Other pixel types: cell by cell, by numpy's median.
        gray = toned = gray.astype(np.float32)
        empty = np.zeros((n_rows, n_cols), bool)
        for r in range(n_rows):
            y0, y1 = lattice.row_edges[r], lattice.row_edges[r + 1]
            for c in range(n_cols):
                x0, x1 = lattice.col_edges[c], lattice.col_edges[c + 1]
                cell = _crop(gray, x0, y0, x1, y1, 0.14)
                empty[r, c] = cell.size == 0
                if not empty[r, c]:
                    paper[r, c] = _paper_tone(cell)
    entry, paper = _paper_past_large_entries(toned, lattice, paper, empty)
    if lab is not None:
        tint[:] = _paper_tints(toned, lab[..., 1:].astype(np.float32) - 128, lattice, empty, entry)
    gray = gray.astype(np.float32, copy=False)
    ink = float(percentile(gray, 1))
    rows, cols = np.asarray(lattice.row_edges, np.float64), np.asarray(lattice.col_edges, np.float64)
    corners = (cols[None, :-1], rows[:-1, None], cols[None, 1:], rows[1:, None])
    diag_line, diag_edge, diag_dashed = (np.where(empty, 0, v).astype(np.float32)
                                         for v in _diagonals(_darkest_nearby(gray), *corners))
    # A screen in dark mode draws its diagonals, like its lines, light on the dark cells: a
    # light line is a dark one in negative. Paper is the lightest there is, so a white cell
    # never shows one.
    light_line = np.where(empty, 0, _diagonals(_darkest_nearby(255 - gray), *corners)[0]).astype(np.float32)
    diag_line = np.maximum(diag_line, light_line)
    # The whitest paper within a few cells: a local reference that follows uneven light.
    k = 5
    white_ref = cv2.dilate(paper, np.ones((k, k), np.uint8), borderType=cv2.BORDER_REPLICATE)
    # In a corner of black cells no white cell may lie that near, and black would be taken for
    # the paper: where the nearby reference is itself nearly ink (a shadow is not that dark),
    # a wider one is used.
    wide = cv2.dilate(paper, np.ones((3 * k, 3 * k), np.uint8), borderType=cv2.BORDER_REPLICATE)
    white_ref = np.where(white_ref - ink < 0.25 * (wide - ink), wide, white_ref)
    span = np.maximum(white_ref - ink, 20.0)
    tone = np.clip((white_ref - paper) / span, 0, 1)
    diagonal = np.clip(np.maximum(diag_line, diag_edge) / span, 0, 1)
    # Colour is relative to the lightest cells' own tint: under warm light, or on tinted paper,
    # the white cells are the coloured ones and the grey or black cells the neutral ones.
    lightest = tone <= max(0.1, float(percentile(tone, 10)))
    # Tinted clue cells as light as the white ones (pale yellow on cream) make many of the
    # lightest cells tinted, and with tinted blocks too, most of them: the white cells are the
    # light ones without a diagonal, and of those the ones whose tint stands apart from that of
    # the cells with a diagonal (the clues). Not when those are the fewer: clue cells printed on
    # the white paper with only a tinted triangle have the white cells' tint, and a corner of
    # tinted blocks far from any white cell looks as light as one.
    with_diagonal = diagonal > 0.3
    if (lightest & ~with_diagonal).sum() >= 2:
        lightest &= ~with_diagonal
    if with_diagonal.sum() >= 2:
        apart = np.linalg.norm(tint - np.median(tint[with_diagonal], axis=0), axis=2) > _TINT_APART
        if (lightest & apart).sum() >= max(2, (lightest & ~apart).sum()):
            lightest &= apart
    lightest &= _lighter_of_two_tints(tone, tint, lightest)
    ref = _paper_tint_field(tint, lightest)
    return CellFeatures(tone=tone, diagonal=diagonal, colour=np.clip(_colour_apart(tint, ref), 0, 1),
                        dashed=np.clip(diag_dashed / span, 0, 1), paper=paper, ink=ink,
                        tint=tint if lab is not None else None, entry=entry)


def classify_cells(warped: np.ndarray, lattice: Lattice, *, shadow_edges: Sequence[ShadowEdge] | None = None
                   ) -> CellClasses:
    """Classify every cell as 'black', 'clue' or 'white'.

    Parameters
    ----------
    warped : (M, N) or (M, N, 3) uint8 ndarray
        Rectified grid (BGR or gray), e.g. from ``grid.rectify``.
    lattice : Lattice
        Its row and column boundaries, e.g. from ``grid.find_lattice``.
    shadow_edges : sequence of ShadowEdge, optional
        Where a shadow's edge crosses cells, when already looked for (``light.find_shadow``),
        also where the shadow was then evened out; otherwise looked for here where needed.

    Returns
    -------
    CellClasses
        ``kinds`` (n_rows, n_cols) of 'black' / 'clue' / 'white' and a 0..1 confidence of the
        white / non-white decision.
    """
    feats = measure_cells(warped, lattice)
    return replace(_classify_measured(warped, lattice, feats, shadow_edges), features=feats)


def _classify_measured(warped: np.ndarray, lattice: Lattice, feats: CellFeatures,
                       shadow_edges: Sequence[ShadowEdge] | None) -> CellClasses:
    tone = feats.tone
    if _diagonal_in_every_cell(feats):
        return _classes_by_numbers(warped, lattice, feats)
    on_white_paper = _clues_on_white_paper(feats)
    if on_white_paper:
        # The clue cells are printed on the white cells' own paper and told apart by their
        # diagonals: a grey tone is then a shadow, not print; only near-black ink is a block.
        tone = np.where(tone >= _BLOCK_TONE, tone, 0.0)
    non_white, confidence = _split(np.maximum.reduce([tone, feats.diagonal, feats.colour * 0.8]))
    forced = _first_row_and_column(non_white.shape)
    border_clues = np.zeros_like(forced)  # first-row and -column cells seen to carry a number
    # Cells taken for white that other evidence shows are not, each test seeing the ones before.
    for what, find in (
            ("blank cells share the clue cells' paper tone",
             lambda taken: _paper_like_clues(np.maximum(tone, feats.colour * 0.8), taken, feats)),
            ("white-looking cells carry a diagonal",
             lambda taken: _faint_diagonals(feats.diagonal, taken, warped, lattice)),
            ("white-looking cells are printed as a screen of dots, as the print is",
             lambda taken: _dotted_like_the_print(warped, lattice, taken)),
            ("grey cells taken for white carry numbers in their corners",
             lambda taken: _numbered_grey_cells(warped, lattice, feats, taken)),
            # The first row and column too: there a clue cell taken for white would pass for a
            # row of clue cells the lattice lost (and dark page past it for their row).
            ("tinted cells taken for white carry numbers in their corners",
             lambda taken: _numbered_grey_cells(warped, lattice, feats, taken & ~forced, by_colour=True)),
            ("the fewer cells of two tints taken for white carry numbers in their corners",
             lambda taken: _numbered_minority_tint(warped, lattice, feats, taken & ~forced)),
            ("cells taken for white have halves of two tints and numbers in their corners",
             lambda taken: _numbered_two_tone_cells(warped, lattice, feats.diagonal, taken)),
            ("cells of bare page beside white cells filled grey",
             lambda taken: _page_beside_filled_cells(feats.tone, taken)),
            ("light grey cells bounded by the lattice are blocks",
             lambda taken: _grey_blocks_bounded_by_the_lattice(warped, lattice, feats, taken, on_white_paper))):
        extra = find(non_white | forced)
        if extra.any():
            log.debug("cells: %d %s", int(extra.sum()), what)
            non_white |= extra
            confidence = np.where(extra, 0.75, confidence)
            border_clues |= extra & forced
    if _longest_white_run(non_white | forced) > MAX_RUN:
        # No run is longer than nine cells: clue cells were taken for white (a half tinted so
        # pale that tone and diagonal barely show). Like them, the rest of that kind are lost
        # too, so every light cell is asked, as in a grid with a diagonal everywhere: a number
        # in a corner makes it a clue.
        numbered, _ = _numbered_light_cells(warped, lattice, ~(non_white | forced))
        log.debug("cells: a run longer than %d; %d light cells carry numbers in a corner", MAX_RUN, int(numbered.sum()))
        non_white |= numbered
        confidence = np.where(numbered, 0.75, confidence)
    if not _plausible_layout(~(non_white | forced)):
        by_paper = _white_by_paper_colour(feats, forced)
        if by_paper is not None:
            log.debug("cells: no Kakuro layout by tone; the white cells are those of one paper colour")
            non_white, confidence = ~by_paper, np.full(non_white.shape, 0.6)
    shadowed = _white_in_a_shadow(warped, lattice, feats, non_white | forced, shadow_edges)
    if shadowed.any():
        log.debug("cells: %d cells beside a shadow's edge are white paper in its shade", int(shadowed.sum()))
        non_white &= ~shadowed
        confidence = np.where(shadowed, 0.6, confidence)
    # Which cells are paper or print by their contrast with the next, in any light.
    contrast = _labels_by_neighbour_contrast(feats)
    soft = _white_in_a_soft_shade(warped, lattice, feats, non_white | forced, contrast)
    if soft.any():
        log.debug("cells: %d grey cells lighter than a block beside them are white paper in a soft shade",
                  int(soft.sum()))
        non_white &= ~soft
        confidence = np.where(soft, 0.6, confidence)
    selected = _selection_tint(feats, non_white | forced)
    if selected.any():
        log.debug("cells: %d cells of one row and one column tinted unlike any print are an app's selection",
                  int(selected.sum()))
        non_white &= ~selected
        confidence = np.where(selected, 0.6, confidence)
    # After the selection: an app tints a row and a column of white cells unlike its print.
    tinted_shade = _paper_in_a_shade_among_tinted_blocks(warped, lattice, feats, non_white | forced)
    if tinted_shade.any():
        log.debug("cells: %d grey cells of the paper's hue, among tinted blocks, are white paper in a shade",
                  int(tinted_shade.sum()))
        non_white &= ~tinted_shade
        confidence = np.where(tinted_shade, 0.6, confidence)
    plain = _plain_among_diagonal_blocks(warped, lattice, feats, non_white | forced)
    if plain.any():
        log.debug("cells: %d grey cells without a diagonal where the blocks carry one are white", int(plain.sum()))
        non_white &= ~plain
        confidence = np.where(plain, 0.6, confidence)
    return _classes(non_white, confidence, forced, _border_paper_by_contrast(feats, forced, contrast) & ~border_clues)


#: Blocks printed with a diagonal (the corner cell not counted), at least this many, show a grid
#: whose every non-white cell carries one.
_DIAGONAL_BLOCKS = 3
#: ``CellFeatures.diagonal`` of a cell printed with a diagonal, and of one without.
_WITH_DIAGONAL, _WITHOUT_DIAGONAL = 0.3, 0.15
#: How far a cell's tone or colour is from the blocks' for it to be another print.
_UNLIKE_TONE, _UNLIKE_COLOUR = 0.1, 0.25


def _plain_among_diagonal_blocks(warped: np.ndarray, lattice: Lattice, feats: CellFeatures,
                                 non_white: np.ndarray) -> np.ndarray:
    """Grey cells without a diagonal or a number, in a grid that prints its blocks with a diagonal:
    white paper in a soft shade.

    Some grids draw every block like a clue cell, split by a diagonal, with no number. A cell
    with no diagonal there is white, however grey a soft shadow (too soft an edge for
    ``find_shadow``) makes it. The grid shows its style itself: blocks (non-white cells that head
    no run) with a diagonal, and none plain and near-black.
    """
    none = np.zeros_like(non_white)
    white = ~non_white
    blocks = non_white & ~_heads_a_run(non_white)
    blocks[0, 0] = False  # often drawn with a diagonal whatever the style
    plain = (non_white & ~_first_row_and_column(non_white.shape) & (feats.diagonal < _WITHOUT_DIAGONAL)
             & (feats.tone < _SHADE_TONE[1]))
    drawn = blocks & (feats.diagonal >= _WITH_DIAGONAL)
    if (np.count_nonzero(drawn) < _DIAGONAL_BLOCKS or not plain.any()
            or (blocks & (feats.diagonal < _WITHOUT_DIAGONAL) & ~plain).any()):
        return none
    # A block whose diagonal merely measured faint (a lattice a little off) looks like the others.
    plain &= ((np.abs(feats.tone - np.median(feats.tone[drawn])) > _UNLIKE_TONE)
              | (np.abs(feats.colour - np.median(feats.colour[drawn])) > _UNLIKE_COLOUR))
    plain &= ~_numbered(warped, lattice, plain)
    # Nor light marks: grey clue cells printing two large white numbers over their diagonal
    # (tone 0.14-0.27 against the others' 0.38, a quarter of their pixels near white) measured
    # plain, and no number in a corner.
    plain &= ~_light_marks(warped, lattice, feats, plain)
    if not plain.any() or not _plausible_layout(white | plain):
        return none
    return plain


def _light_marks(warped: np.ndarray, lattice: Lattice, feats: CellFeatures, cells: np.ndarray) -> np.ndarray:
    """Which of ``cells`` carry light marks: a share (``_LIGHT_MARKS``) of their pixels lighter than
    their paper by half the way to white. Paper in a soft shade, grey all over, carries none."""
    gray = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY) if warped.ndim == 3 else warped
    marked = np.zeros_like(cells)
    for r, c in zip(*np.nonzero(cells)):
        values = _crop(gray, lattice.col_edges[c], lattice.row_edges[r], lattice.col_edges[c + 1],
                       lattice.row_edges[r + 1], 0.14)
        paper = float(feats.paper[r, c])
        marked[r, c] = values.size > 0 and float(np.mean(values > paper + 0.5 * (255 - paper) + _PAPER_BAND)) \
            >= _LIGHT_MARKS
    return marked


#: Share of a cell's pixels that, far lighter than its paper, are light marks (white numbers: a
#: quarter to a third of a clue cell holding two).
_LIGHT_MARKS = 0.05


def _selection_tint(feats: CellFeatures, non_white: np.ndarray) -> np.ndarray:
    """Cells taken for print that are white cells an app tints where the player's cursor is: the
    row and the column of the cell selected.

    The tint is of another colour than the grid's blocks and light (lighter than dark blocks; a
    pastel may be a shade darker than pastel ones: lilac beside mint); the cells so tinted lie in
    one row and one column (or one of them), and as white cells they make a layout a Kakuro can
    have where the cells as taken did not. (``pipeline._tinted_paper_variant`` tries tints too
    pale for print by the symmetry and the rules, later; these are told by colour and place.)
    """
    none = np.zeros_like(non_white)
    if np.count_nonzero(non_white) < 4:
        return none
    tone, colour = np.median(feats.tone[non_white]), np.median(feats.colour[non_white])
    light = feats.tone < max(tone, _SELECTION_TONE)
    if feats.tint is not None:
        # Unlike the print in hue too: a green selection is less colourful than lilac blocks.
        # Beside dark print any light tint is unlike it, however near grey its hue (pale blue
        # beside black blocks).
        print_tint = np.median(feats.tint[non_white], axis=0)
        unlike = (((_colour_apart(feats.tint, print_tint) > _CURSOR_APART)
                   | ((tone >= _DARK_PRINT) & (feats.tone < _SELECTION_TONE)))
                  & (feats.colour > _UNLIKE_COLOUR))
    else:
        unlike = feats.colour - colour > _UNLIKE_COLOUR
    alike = unlike & light & ~_first_row_and_column(non_white.shape)
    tinted = non_white & alike
    # One cell alone is the selected cell, where a dark theme's tint of its row and column is too
    # near its cells' own to tell; the layout decides, as for a row and a column.
    if np.count_nonzero(tinted) != 1:
        cross = _tinted_cross(tinted, feats, non_white & unlike)
        if cross is None and np.count_nonzero(tinted) == 2:
            # A row and column mostly taken for white already, two of their cells for print
            # (the player's pencilled candidates stand in their corners like clue numbers): the
            # cross shows in all the cells of its tint, white ones included.
            whole = _tinted_cross(alike, feats, non_white & unlike)
            if whole is not None and not (tinted & ~whole).any():
                cross = whole & non_white
        if cross is None:
            return none
        tinted = cross
    white = ~non_white
    # Taken for white, the tinted cells must leave a Kakuro's layout, with fewer runs of one
    # cell than before (a lost row or column at the border leaves a single cell in each run).
    if not _plausible_layout(white | tinted) or _single_runs(white | tinted) >= _single_runs(white):
        return none
    return tinted


def _tinted_cross(tinted: np.ndarray, feats: CellFeatures, selectable: np.ndarray) -> np.ndarray | None:
    """The cells of ``tinted`` (three or more) that make one row and one column of one tint, with
    the cell where they cross where it is ``selectable``; None where they do not. ``tinted`` is
    left as it is."""
    if np.count_nonzero(tinted) < 3:
        return None
    tinted = tinted.copy()
    row, col = _cross(tinted)
    if feats.tint is not None:
        # A cursor tints in one colour: cells of other tints (a clue cell's pastel halves) are
        # print, wherever they lie.
        cross = np.zeros_like(tinted)
        cross[row, :] = cross[:, col] = True
        cursor_tint = np.median(feats.tint[tinted & cross], axis=0)
        tinted = tinted & (_colour_apart(feats.tint, cursor_tint) <= _UNLIKE_COLOUR)
        if np.count_nonzero(tinted) < 3:
            return None
        row, col = _cross(tinted)
    rows, cols = np.nonzero(tinted)
    if not np.all((rows == row) | (cols == col)):
        return None
    # The cell where they cross is the one selected: often tinted deeper, and holding an entry.
    tinted[row, col] |= bool(selectable[row, col])
    return tinted


def _cross(cells: np.ndarray) -> tuple[int, int]:
    """The row and the column that together hold the most of ``cells``: the row holding most,
    then the column holding most of the rest, or the other way round where that holds more."""
    rows, cols = np.nonzero(cells)
    best = (-1, 0, 0)
    for first, second, swap in ((rows, cols, False), (cols, rows, True)):
        a = int(np.bincount(first).argmax())
        rest = second[first != a]
        b = int(np.bincount(rest).argmax()) if len(rest) else int(np.bincount(second).argmax())
        held = int(np.count_nonzero((first == a) | (second == b)))
        if held > best[0]:
            best = (held, b, a) if swap else (held, a, b)
    return best[1], best[2]


#: Tone a cursor's tint stays under (pastels: lilac 0.12, light blue 0.13, a deeper blue 0.2).
_SELECTION_TONE = 0.25
#: How far (``CellFeatures.colour``'s scale) a cursor's tint must be from the print's: half as far as
#: another print's, as the cells so tinted must also lie in one row and column and mend the layout.
_CURSOR_APART = 0.12
#: Print this dark (its cells' median tone) is unlike any light tint, whatever the hue.
_DARK_PRINT = 0.5


def _single_runs(white: np.ndarray) -> int:
    return layout_run_lengths(white).count(1)


#: Tone between white paper and ink: a white cell in a hand's shade, or a grey print.
_SHADE_TONE = (0.15, 0.75)
#: How much lighter than white paper in a shadow's depth (the light its edges say it keeps) cells
#: beside the edge may be and still be that paper: 0.54 to 1.05 times it in the light tier's
#: renders where the cells were paper (seeds 25 and 26), 1.25 to 7 where they were grey print.
_SHADE_LIGHTER = 1.2
#: Grey levels by which a light line along a cell's diagonal stands out (a block's print).
_LIGHT_DIAGONAL = 12.0


def _white_in_a_shadow(warped: np.ndarray, lattice: Lattice, feats: CellFeatures, non_white: np.ndarray,
                       shadow_edges: Sequence[ShadowEdge] | None) -> np.ndarray:
    """Cells taken for grey that are white paper in the shade of a hand, a phone, fingers.

    Compared with the lit white cells, a white cell in a deep shadow is as grey as a printed
    block, and where the shadow's outline is no straight or gently curved line (fingers), it
    is not divided out before the cells are classified. A grey block and a shaded white cell
    differ in where they lie: the shade reaches as far as its edge, and that edge crosses
    cells (print changes tone only at grid lines and diagonals). So a group of grey cells
    with no diagonal and no number in a corner is white where a shadow's edge is seen in or
    beside it, and taking it for white leaves a Kakuro layout.
    """
    none = np.zeros_like(non_white)
    grey = _plain_grey(feats, non_white)
    if not grey.any():
        return none
    gray = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY) if warped.ndim == 3 else warped
    edge_cells = np.zeros_like(non_white)
    gains = np.full(non_white.shape, np.nan)
    for e in find_shadow(gray, lattice) if shadow_edges is None else shadow_edges:
        edge_cells[e.row, e.col] = True
        gains[e.row, e.col] = np.fmin(gains[e.row, e.col], e.gain)
    if not edge_cells.any():
        return none
    near_edge = cv2.dilate(edge_cells.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    lightest = _darkest_nearby(255 - gray)  # a light line, as a dark one in the negative
    # A clue cell in the shade, its diagonal too faint to count; a block with a light diagonal.
    # A grey clue cell with its number in a white disc: the disc's rim, a change of tone inside
    # the cell, passes for a shadow's edge.
    grey &= ~_numbered(warped, lattice, grey)
    for r, c in zip(*np.nonzero(grey)):
        x0, y0, x1, y1 = lattice.col_edges[c], lattice.row_edges[r], lattice.col_edges[c + 1], lattice.row_edges[r + 1]
        grey[r, c] = (_diagonal(lightest, x0, y0, x1, y1)[0] < _LIGHT_DIAGONAL
                      and not numbers_in_discs(_crop(gray, x0, y0, x1, y1, 0.0)))
    n, labels = cv2.connectedComponents(grey.astype(np.uint8), connectivity=8)
    shaded = np.zeros_like(non_white)
    # The lit white cells' paper (the lightest of the white cells': many may lie in the shade),
    # of which a shade keeps its edges' ``gain``.
    lit_paper = None
    if feats.paper is not None and (~non_white).any():
        lit_paper = float(percentile(feats.paper[~non_white], 90))
    for i in range(1, n):
        group = labels == i
        if not (group & near_edge).any():
            continue
        # A shadow's edge may run along one cell's diagonal, not along most cells' of a group:
        # cells that mostly carry a faint diagonal are print (an app's grey tiles, each with a
        # thin diagonal a shade lighter than the tile).
        lined = int(np.count_nonzero(group & (feats.diagonal >= _FAINT_DIAGONAL)))
        if lined >= 2 and 2 * lined > np.count_nonzero(group):
            continue
        if lit_paper is not None:
            # Paper in the shade is as dark as the edges beside it say; cells much lighter than
            # that are grey print (an app's grey tiles beside a black tile's edge taken for a
            # shadow's).
            near = cv2.dilate(group.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
            shade = float(np.nanmedian(gains[near & edge_cells])) * (lit_paper + 10)
            if float(np.median(feats.paper[group])) + 10 > _SHADE_LIGHTER * shade:
                continue
        shaded |= group
    if not shaded.any() or not _plausible_layout(~(non_white & ~shaded)):
        return none
    return shaded


#: A Kakuro has no runs of one cell; a misread cell or two may make some, a sudoku or a table
#: read as a grid makes many.
_MAX_SINGLE_RUN_SHARE = 0.2


def too_many_single_runs(lengths: list[int]) -> bool:
    """Whether more of the run ``lengths`` are single cells than a misread cell or two makes."""
    single = lengths.count(1)
    return single >= 2 and single > _MAX_SINGLE_RUN_SHARE * len(lengths)


def layout_run_lengths(white: np.ndarray) -> list[int]:
    """Lengths of every across and down run of white cells (``white`` a boolean grid)."""
    return [n for lines in (white, white.T) for line in lines for n in run_lengths(list(line))]


def _plausible_layout(white: np.ndarray) -> bool:
    """Whether white cells so placed could be a Kakuro's: runs of nine cells at most, and few
    single cells."""
    lengths = layout_run_lengths(white)
    return bool(lengths) and max(lengths) <= MAX_RUN and not too_many_single_runs(lengths)


#: Share of the first row's and column's cells a white cells' class may hold (a cell or two
#: misjudged by light).
_WHITE_IN_FIRST_ROW_AND_COLUMN = 0.1


def _white_by_paper_colour(feats: CellFeatures, forced: np.ndarray) -> np.ndarray | None:
    """The white cells as the one class of paper colour that lays out a Kakuro, or None.

    Tone says which cells are white only while they are the lightest. A dark-mode app may draw
    its clue cells and blocks in a lighter blue than the near-black white cells, or in a hue
    of the same lightness; seen in negative, the white cells are then in the middle. The
    cells' paper colours (each cell's paper tone and tint, its ink left out) still fall into two
    or three classes (white cells, clue cells, blocks), and the puzzle's structure says which
    class is the white one: its cells make runs of two to nine, and (nearly) none lies in the
    first row or column.
    """
    if feats.tint is None or feats.paper is None:
        return None
    n_rows, n_cols = forced.shape
    features = np.concatenate([feats.paper.reshape(-1, 1), feats.tint.reshape(-1, 2)], axis=1).astype(np.float32)
    best, best_key = None, None
    cv2.setRNGSeed(0)
    for k in (2, 3):
        _, labels, _ = cv2.kmeans(features, k, None, (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 50, 0.5),
                                  5, cv2.KMEANS_PP_CENTERS)
        labels = labels.reshape(n_rows, n_cols)
        for j in range(k):
            # The first row and column hold clues: paper of the white cells' colour there
            # means the class is not the white cells' (a shadow parting white paper).
            if float(np.mean(labels[forced] == j)) > _WHITE_IN_FIRST_ROW_AND_COLUMN:
                continue
            white = (labels == j) & ~forced
            # A cell printed with a diagonal is print, whatever the light made of its colour
            # (a warm spot of light turns beige blocks the pale yellow of lit paper).
            if (white.sum() < 4 or not _plausible_layout(white) or _lone_cells(~white).any()
                    or (white & (feats.diagonal >= _WITH_DIAGONAL)).any()):
                continue
            lengths = layout_run_lengths(white)
            key = (lengths.count(1) / len(lengths), -int(white.sum()))
            if best_key is None or key < best_key:
                best, best_key = white, key
    return best


def _white_in_a_soft_shade(warped: np.ndarray, lattice: Lattice, feats: CellFeatures,
                           non_white: np.ndarray, labels: np.ndarray | None) -> np.ndarray:
    """Grey cells with no diagonal (or a faint one, the shade's edge along it) and no number that
    their neighbours show to be white paper in a soft shade.

    A broad soft shadow can grey half a grid, its white cells there darker than the lit blocks a
    few cells away, and its edge too soft for ``find_shadow``. Light multiplies paper and ink
    alike and changes little from one cell to the next: beside each other, white paper and a
    block keep the ratio of their tones in any shade: ``labels`` are those of
    ``_labels_by_neighbour_contrast``.
    """
    none = np.zeros_like(non_white)
    forced = _first_row_and_column(non_white.shape)
    grey = _plain_grey(feats, non_white)
    if not grey.any() or labels is None:
        return none
    # The labels must read as a Kakuro themselves: print along the first row and column, and
    # white cells in runs (a box of text or of another puzzle's cells does not). A clue cell
    # there is print by its diagonal, whatever its label: a light grey one, lighter than the
    # blocks beside it by more than it is darker than white paper, is labelled paper.
    printed = (labels < 0) | (feats.diagonal >= _WITH_DIAGONAL)
    if (np.mean(printed[forced]) < 1 - _WHITE_IN_FIRST_ROW_AND_COLUMN
            or not _plausible_layout((labels > 0) & ~forced)):
        return none
    grey &= labels > 0
    even = grey & _evenly_toned(warped, lattice, grey)
    # Paper in a shade carries no number, dark or light (light numbers on grey clue cells).
    even &= ~_numbered(warped, lattice, even, either_polarity=True)
    if even.any() and _plausible_layout(~(non_white & ~even)):
        return even
    # The shade's soft edge crossing a cell leaves it uneven, and along its diagonal passes
    # for a faint one: those of the paper's label too, where only with them the layout is one.
    edged = _plain_grey(feats, non_white, diagonal_under=_WITH_DIAGONAL) & (labels > 0)
    edged &= ~_numbered(warped, lattice, edged, either_polarity=True)
    if not edged.any() or not _plausible_layout(~(non_white & ~edged)):
        return none
    return edged


def _paper_in_a_shade_among_tinted_blocks(warped: np.ndarray, lattice: Lattice, feats: CellFeatures,
                                          non_white: np.ndarray) -> np.ndarray:
    """Grey cells with no diagonal and no number whose hue is the white paper's, in a grid whose
    blocks are tinted: white paper in a soft shade.

    A soft shadow can leave white cells darker than lit orange blocks, and its edge too soft for
    ``find_shadow``; the blocks being light, no neighbour stands out as print either. But a shade
    dims a cell's colour with its light: its chromaticity (tint over lightness) stays the paper's,
    and a tinted block's stays the block's, lit or not. Where the blocks (cells with no diagonal
    and no number) are of a tint apart from the paper's, a plain grey cell of the paper's own is
    no block.
    """
    none = np.zeros_like(non_white)
    if feats.tint is None or feats.paper is None or not (~non_white).any():
        return none
    lightness = feats.paper.astype(np.float32) * (100 / 255) + 16  # CIE L*, about, plus L*'s offset
    chroma = feats.tint / lightness[..., None]
    apart = np.linalg.norm(chroma - np.median(chroma[~non_white], axis=0), axis=2)
    plain = non_white & ~_first_row_and_column(non_white.shape) & (feats.diagonal < _WITHOUT_DIAGONAL)
    grey = _plain_grey(feats, non_white) & (apart < _PAPER_HUE)
    # Blocks head no run and carry no number, dark or light (an app's green clue tiles, their
    # numbers and diagonal light, pass for plain cells otherwise, and grey blocks for shade).
    # A black block's hue is noise over next to no light: only a lighter one shows its tint.
    tinted = plain & (apart > _BLOCK_HUE) & (feats.tone < _BLOCK_TONE) & ~_heads_a_run(non_white)
    if np.count_nonzero(tinted) < _TINTED_BLOCKS or not grey.any():
        return none
    tinted &= ~_numbered(warped, lattice, tinted, either_polarity=True)
    if np.count_nonzero(tinted) < _TINTED_BLOCKS:
        return none
    grey &= _evenly_toned(warped, lattice, grey)
    # Paper in a shade carries no number, dark or light (light numbers on grey clue cells).
    grey &= ~_numbered(warped, lattice, grey, either_polarity=True)
    if not grey.any() or not _plausible_layout(~(non_white & ~grey)):
        return none
    return grey


#: Chromaticity (tint over L*) from the white cells' within which a cell is of the paper's hue,
#: beyond which one is tinted print (orange blocks measure 0.2-0.28, shaded paper 0.01-0.06),
#: and the tinted blocks that show a grid's blocks to be tinted.
_PAPER_HUE, _BLOCK_HUE, _TINTED_BLOCKS = 0.08, 0.15, 3


def _grey_blocks_bounded_by_the_lattice(warped: np.ndarray, lattice: Lattice, feats: CellFeatures,
                                        non_white: np.ndarray, on_white_paper: bool) -> np.ndarray:
    """Cells taken for white that are light grey blocks: groups of evenly grey cells with no
    diagonal and no number, as grey as the clue cells, whose grey stops at the lattice's lines,
    every white cell beside them clearly lighter. A shade does not end at a cell's border on
    every side.

    Where the clue cells are printed on the white paper, a grey tone was taken for a shade; where
    they are as pale as the blocks (a book's pale green clue cells and blocks on cream, tone
    0.06), the image's split of the scores falls between the diagonals and the rest. There the
    blocks are of the clue cells' tint too (within 4 Lab units; the cream paper stood 7 apart):
    white cells greyed by large entries typed in blue are not (20 apart from green clue cells).
    """
    none = np.zeros_like(non_white)
    tone, white = feats.tone, ~non_white
    strong = non_white & _clear_diagonals(feats.diagonal)
    if strong.sum() < 3:
        return none
    clue_tone = float(np.median(tone[strong]))
    grey = white & (feats.diagonal < _WITHOUT_DIAGONAL) & (tone >= max(_BLOCK_GREY, 0.6 * clue_tone))
    if not on_white_paper and feats.tint is not None:
        grey &= np.linalg.norm(feats.tint - np.median(feats.tint[strong], axis=0), axis=2) < _CLUES_TINT
    # Beside white cells clearly lighter: where every white cell is grey, none is to compare with.
    if not grey.any() or not (white & ~grey).any() or float(np.median(tone[white & ~grey])) > 0.25 * clue_tone:
        return none
    grey &= _evenly_toned(warped, lattice, grey)
    grey &= ~_numbered(warped, lattice, grey, either_polarity=True)
    n_groups, groups = cv2.connectedComponents(grey.astype(np.uint8), connectivity=4)
    blocks = np.zeros_like(non_white)
    n_rows, n_cols = tone.shape
    for g in range(1, n_groups):
        group = groups == g
        pairs = [((r, c), (y, x)) for r, c in zip(*np.nonzero(group))
                 for y, x in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                 if 0 <= y < n_rows and 0 <= x < n_cols and white[y, x] and not grey[y, x]]
        if pairs and all(_lighter_by_half(feats, cell, other) for cell, other in pairs):
            blocks |= group
    if not blocks.any() or not _plausible_layout(~(non_white | blocks | _first_row_and_column(non_white.shape))):
        return none
    return blocks


#: Tone from which a cell is a grey print rather than white paper with grain.
_BLOCK_GREY = 0.05
#: Lab units within which a grey block is of the clue cells' tint (see
#: :func:`_grey_blocks_bounded_by_the_lattice`).
_CLUES_TINT = 0.5 * _TINT_APART


def _lighter_by_half(feats: CellFeatures, cell: tuple[int, int], other: tuple[int, int]) -> bool:
    """Whether the paper of cell ``other`` is lighter than that of ``cell`` by at least half of
    ``cell``'s tone, both measured against ``cell``'s paper reference.

    Each cell's tone is measured against the whitest paper within a few cells: at a soft
    shade's edge, the shaded white cells beside the lit ones are grey against the lit paper,
    those further into the shade hardly at all against the shaded paper; compared by their
    tones, the shade seemed to stop at the lattice's lines. Their papers are alike."""
    darkness = float(feats.tone[cell])
    if feats.paper is None:
        return float(feats.tone[other]) <= 0.5 * darkness
    paper = float(feats.paper[cell])
    # tone = (reference - paper) / (reference - ink), so the reference's span is:
    span = max((paper - feats.ink) / max(1.0 - darkness, 1e-6), 20.0)
    return (float(feats.paper[other]) - paper) / span >= 0.5 * darkness


def _evenly_toned(warped: np.ndarray, lattice: Lattice, cells: np.ndarray) -> np.ndarray:
    """Which of ``cells`` are of one even tone: most of their pixels near the tone they share most.

    Paper in a shade is evenly grey; a black clue cell half covered by two white discs is
    "grey" only on average, its pixels black or white and few between.
    """
    gray = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY) if warped.ndim == 3 else warped
    even = np.zeros_like(cells)
    for r, c in zip(*np.nonzero(cells)):
        values = _crop(gray, lattice.col_edges[c], lattice.row_edges[r], lattice.col_edges[c + 1],
                       lattice.row_edges[r + 1], 0.14).ravel()
        if values.size:
            share = float(np.mean(_near_commonest_tone(values, 2 * _PAPER_BAND)))
            even[r, c] = share >= _EVEN_SHARE
    return even


#: Share of a cell's pixels near its commonest tone for it to count as evenly toned.
_EVEN_SHARE = 0.5


def _border_paper_by_contrast(feats: CellFeatures, forced: np.ndarray, labels: np.ndarray | None) -> np.ndarray:
    """Cells of the first row and column with no diagonal that their neighbours show to be paper
    (``labels`` of ``_labels_by_neighbour_contrast``), where the labels read as a Kakuro one row
    or column on.

    In a shade, white paper can be as grey and as tinted as print: a row of white cells at the
    border (the lattice lost the clue cells before it, dark in the same shade) does not look
    white, yet it is lighter than the print beside it. Such cells make ``complete_clue_border``
    look at the grid one row or column wider, where the layout decides.
    """
    none = np.zeros_like(forced)
    if labels is None:
        return none
    paper = forced & (labels > 0) & (feats.diagonal < _WITHOUT_DIAGONAL)
    paper[0, 0] = False
    top, left = int(paper[0].sum()), int(paper[:, 0].sum())
    if max(top, left) < 2:
        return none
    # Read one row (column) on, where the lost clues would stand, the labels lay out a Kakuro.
    white = labels > 0
    shifted = np.zeros((white.shape[0] + (top >= 2), white.shape[1] + (left >= 2)), bool)
    shifted[shifted.shape[0] - white.shape[0]:, shifted.shape[1] - white.shape[1]:] = white
    shifted &= ~_first_row_and_column(shifted.shape)
    return paper if _plausible_layout(shifted) else none


def _labels_by_neighbour_contrast(feats: CellFeatures) -> np.ndarray | None:
    """Each cell +1 (paper) or -1 (print) by its tone against the cells beside it; 0 where
    nothing says; None where the neighbours' ratios show no two prints.

    The ratios of neighbours' tones fall in two groups, about 1 (the same print) and the
    print's contrast; the image's own split of the two says which pairs differ. A cell clearly
    lighter than a neighbour (and clearly darker than none) is paper, one clearly darker is
    print; a cell no such pair labels takes the label of the neighbours it matches.
    """
    if feats.paper is None:
        return None
    level = np.log(np.maximum(feats.paper.astype(np.float64), 1.0))
    steps = [(level[:, 1:] - level[:, :-1], (slice(None), slice(1, None)), (slice(None), slice(None, -1))),
             (level[1:, :] - level[:-1, :], (slice(1, None), slice(None)), (slice(None, -1), slice(None)))]
    jumps = np.abs(np.concatenate([d.ravel() for d, _, _ in steps]))
    if len(jumps) < 8:
        return None
    apart = _otsu(jumps)
    if apart < _PRINT_CONTRAST or np.median(jumps[jumps > apart]) < 2 * np.median(jumps[jumps <= apart]) + apart / 2:
        return None
    lighter = np.zeros(level.shape, int)
    darker = np.zeros(level.shape, int)
    for d, second, first in steps:
        lighter[second] += d > apart
        darker[first] += d > apart
        lighter[first] += d < -apart
        darker[second] += d < -apart
    labels = np.where((lighter > 0) & (darker == 0), 1, np.where((darker > 0) & (lighter == 0), -1, 0))
    for _ in range(max(level.shape)):
        votes = np.zeros(level.shape)
        for d, second, first in steps:
            same = np.abs(d) <= apart
            votes[second] += np.where(same, labels[first], 0)
            votes[first] += np.where(same, labels[second], 0)
        unsure = labels == 0
        if not (unsure & (votes != 0)).any():
            break
        labels = np.where(unsure, np.sign(votes).astype(int), labels)
    return labels


#: Least log-ratio of neighbouring cells' tones that tells print from paper (1.5 : 1).
_PRINT_CONTRAST = float(np.log(1.5))


def _otsu(values: np.ndarray) -> float:
    """The threshold that best splits ``values`` in two groups (Otsu), over their sorted values."""
    v = np.sort(values)
    n = len(v)
    k = np.arange(1, n)
    left = np.cumsum(v)[:-1]
    w0, w1 = k / n, (n - k) / n
    m0 = left / k
    m1 = (v.sum() - left) / (n - k)
    between = w0 * w1 * (m0 - m1) ** 2
    i = int(np.argmax(between))
    return float((v[i] + v[i + 1]) / 2)


def _lone_cells(non_white: np.ndarray) -> np.ndarray:
    """Cells taken for white with no white cell beside them in their row or column.

    Every white cell lies in a run of two or more, across or down (a one-cell run is allowed
    in one direction only), so a white cell walled in on all four sides is no cell of a
    puzzle: a grey block in a corner of blocks, where the nearest white paper is too far for a
    local reference and the grey is taken for paper. Removing one may leave a neighbour alone,
    so this repeats until none is left.
    """
    lone = np.zeros_like(non_white)
    while True:
        white = ~(non_white | lone)
        padded = np.pad(white, 1)
        beside = padded[:-2, 1:-1] | padded[2:, 1:-1] | padded[1:-1, :-2] | padded[1:-1, 2:]
        new = white & ~beside
        if not new.any():
            return lone
        lone |= new


MAX_RUN = 9  # nine digits, each once


def _longest_white_run(non_white: np.ndarray) -> int:
    return max(layout_run_lengths(~non_white), default=0)


def run_lengths(flags: list[bool]) -> list[int]:
    """Lengths of the runs of True in ``flags``, in order."""
    out, n = [], 0
    for f in flags + [False]:
        if f:
            n += 1
        elif n:
            out.append(n)
            n = 0
    return out


#: A cell taken for white is apart from the white cells' tone when this much darker than their
#: median (and well outside their spread).
_GREY_APART = 0.12


#: Clue cells (non-white cells heading a run) from which a print's way of drawing them shows.
_CLUES_SEEN = 6


def _numbered_grey_cells(warped: np.ndarray, lattice: Lattice, feats: CellFeatures, non_white: np.ndarray,
                         by_colour: bool = False) -> np.ndarray:
    """Cells taken for white that are light grey clue cells: apart from the white cells' tone
    (``by_colour``: their tint) and carrying a number in a corner.

    With three tones (white cells, light grey clue cells, darker blocks) the split may fall
    between the clues and the blocks. A white cell in shadow is as grey, but a number it holds
    (a given, or a player's large typed entry, which greys the cell as much) stands in its
    middle, not in a corner. So with three tints: teal clue cells beside dark grey white cells
    and black blocks (an app's dark mode) are as dark as the white cells, and their tint stands
    apart by less than the blocks' tone does.
    """
    tone = feats.colour if by_colour else feats.tone
    white = ~non_white
    if white.sum() < 4:
        return np.zeros_like(non_white)
    # The paper's tone and grain from the cells of its own colour: an app's cursor tints a row
    # and a column of them (beige over grey print), which would widen the grain past the grey.
    plain = white & (feats.colour <= _UNLIKE_COLOUR)
    paper = tone[plain] if plain.sum() >= 4 else tone[white]
    level = float(np.median(paper))
    spread = 1.4826 * float(np.median(np.abs(paper - level)))
    grey = white & (tone > level + max(_GREY_APART, 6 * spread))
    # Where the clue cells seen so far all carry a diagonal, the print draws one in every clue
    # cell: a tinted cell with none holds a player's pencilled candidates, not clues (an app's
    # selected row, light blue, its notes in the corners where clue numbers would be).
    # (A light diagonal on black clue cells counts: ``diagonal_slants``, either polarity.)
    heads = non_white & _heads_a_run(non_white)
    if grey.any() and np.count_nonzero(heads) >= _CLUES_SEEN:
        falls = diagonal_slants(warped, lattice)[0]
        if np.mean(falls[heads] >= _SLANT_LINE) >= 0.9:
            grey &= falls >= _SLANT_LINE / 2
    if not grey.any() or grey.sum() > 0.5 * white.sum():
        return np.zeros_like(non_white)
    numbered = _numbered(warped, lattice, grey, diagonal_line=feats.diagonal >= _SOME_DIAGONAL,
                         either_polarity=by_colour)
    # Numbers in discs: a black clue cell whose two large light discs cover half of it is as
    # grey as a white cell in a shade, and its numbers are no ink on paper but holes in a disc.
    gray = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY) if warped.ndim == 3 else warped
    for r, c in zip(*np.nonzero(grey & ~numbered)):
        crop = _crop(gray, lattice.col_edges[c], lattice.row_edges[r], lattice.col_edges[c + 1],
                     lattice.row_edges[r + 1], 0.0)
        numbered[r, c] = crop.size > 0 and numbers_in_discs(crop)
    return numbered


def _numbered_minority_tint(warped: np.ndarray, lattice: Lattice, feats: CellFeatures, non_white: np.ndarray
                            ) -> np.ndarray:
    """Cells taken for white that are clue cells of the paper's own tint: where the cells taken
    for white are two tints, the fewer of them carry numbers in their corners and the others none.

    The paper is measured on the lightest cells. On an app's dark screen, blue clue cells may be
    lighter than the dark grey white cells: the clue cells are then the paper, and the white
    cells, tinted against them by less than the split, are taken for white with them."""
    white = ~non_white
    paper_tint = white & (feats.colour <= _UNLIKE_COLOUR)
    other = white & (feats.colour > _UNLIKE_COLOUR)
    if paper_tint.sum() < 3 or paper_tint.sum() >= other.sum():
        return np.zeros_like(non_white)
    numbered = _numbered(warped, lattice, paper_tint, either_polarity=True)
    # Most of them numbered, and the other tint's cells numbered no more often than a white cell's
    # large entry may pass for a corner's number.
    if numbered.sum() < 0.5 * paper_tint.sum():
        return np.zeros_like(non_white)
    if _numbered(warped, lattice, other, either_polarity=True).sum() > 0.1 * other.sum():
        return np.zeros_like(non_white)
    if not _plausible_layout(~(non_white | numbered | _first_row_and_column(non_white.shape))):
        return np.zeros_like(non_white)
    return numbered


#: Side a cell is scaled to for comparing its two triangles, and the share of it left out at its
#: border and on each side of its diagonal (lines, and a light diagonal line).
_HALVES_S, _HALVES_BORDER, _HALVES_BAND = 24, 0.12, 0.12
#: Lab distance between a cell's two triangles from which they are two prints (a white cell's
#: triangles differ only by the ink of what is written in it, and by noise).
_HALVES_APART = 10.0


def _numbered_two_tone_cells(warped: np.ndarray, lattice: Lattice, diagonal: np.ndarray, non_white: np.ndarray
                             ) -> np.ndarray:
    """Cells taken for white whose two triangles are printed in two tints and that carry a number
    in a corner: clue cells whose halves are shaded (the across half one pastel, the down half
    another, or one half tinted and the other white).

    Pale tints stay under the split of tone and colour, and where neither half holds a line,
    no diagonal shows either. But a white cell's paper is one tint from corner to corner, in a
    shade or under an app's cursor alike (which tint whole cells); a number in a corner rules
    out a shadow's edge that happens to run along the diagonal. Where a cell shows no diagonal
    line, a number is looked for with the diagonal's band left in: a large typed entry is then
    one piece in the middle, not numbers in two corners.
    """
    white = ~non_white
    none = np.zeros_like(non_white)
    if warped.ndim != 3 or white.sum() < 4:
        return none
    s = _HALVES_S
    yy, xx = np.mgrid[0:s, 0:s] + 0.5
    inner = ((xx > _HALVES_BORDER * s) & (xx < (1 - _HALVES_BORDER) * s)
             & (yy > _HALVES_BORDER * s) & (yy < (1 - _HALVES_BORDER) * s))
    upper = inner & (xx - yy > _HALVES_BAND * s)
    lower = inner & (yy - xx > _HALVES_BAND * s)
    apart = np.zeros(non_white.shape, np.float32)
    cells, small = [], []
    for r, c in zip(*np.nonzero(white)):
        cell = _crop(warped, lattice.col_edges[c], lattice.row_edges[r], lattice.col_edges[c + 1],
                     lattice.row_edges[r + 1], 0.0)
        if cell.size:
            cells.append((r, c))
            small.append(cv2.resize(cell, (s, s), interpolation=cv2.INTER_AREA))
    if not cells:
        return none
    # The cells scaled down first, then into Lab all at once: a tenth of the pixels.
    for (r, c), lab in zip(cells, bgr_to_lab(np.stack(small)).astype(np.float32)):
        apart[r, c] = float(np.linalg.norm(_paper_lab(lab[upper]) - _paper_lab(lab[lower])))
    # Eight robust deviations is a wide bar where most white cells measure a unit or two, a
    # little apart from each other (pale yellow halves on cream, 19-20, beside white cells of
    # 0-2.2: a bar of 26): several times what most white cells measure counts too.
    most = float(percentile(apart[white], 75))
    two_tone = _standing_out(apart, white, _HALVES_APART) | (white & (apart >= max(_HALVES_APART, _HALVES_TIMES * most)))
    if not two_tone.any() or two_tone.sum() > 0.4 * white.sum():
        return none
    return _numbered(warped, lattice, two_tone, diagonal_line=diagonal >= _SOME_DIAGONAL)


#: How many times what most white cells measure a cell's halves must stand apart to be two tints.
_HALVES_TIMES = 4


def _paper_lab(pixels: np.ndarray) -> np.ndarray:
    """The Lab colour of the paper among ``pixels`` (K, 3): the median of the lighter half, which
    leaves out the ink of a number (a large typed digit covers much of a cell's triangle)."""
    lightness = pixels[:, 0]
    return np.median(pixels[lightness >= np.median(lightness)], axis=0)


#: White cells printed this grey (or darker) are filled, not paper (a generated book's style).
_FILLED_WHITE = 0.3


def _page_beside_filled_cells(tone: np.ndarray, non_white: np.ndarray) -> np.ndarray:
    """Cells taken for white that are bare page, in a grid whose white cells are filled grey.

    A grid with an irregular outline leaves page inside the lattice's box. Where the white cells
    are printed grey, that page is far lighter than they are, and is no cell of the puzzle.
    """
    white = ~non_white
    if white.sum() < 4:
        return np.zeros_like(non_white)
    level = float(np.median(tone[white]))
    if level < _FILLED_WHITE:
        return np.zeros_like(non_white)
    page = white & (tone < level - _FILLED_WHITE)
    return page if page.sum() < 0.5 * white.sum() else np.zeros_like(non_white)


def _first_row_and_column(shape: tuple[int, int]) -> np.ndarray:
    """Structure: the first row and column hold clues or blocks, never white cells."""
    forced = np.zeros(shape, bool)
    forced[0, :] = True
    forced[:, 0] = True
    return forced


def _split(score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Non-white cells by the image's own split of ``score``, and a rough confidence: the
    distance from the threshold relative to the scores' spread."""
    threshold = _split_threshold(score)
    spread = max(float(percentile(score, 95) - percentile(score, 5)), 1e-3)
    log.debug("cells: threshold %.3f", threshold)
    return score > threshold, np.clip(0.5 + np.abs(score - threshold) / spread, 0, 1)


def _classes(non_white: np.ndarray, confidence: np.ndarray, forced: np.ndarray,
             paper_at_border: np.ndarray | None = None) -> CellClasses:
    """Non-white cells with a white cell right of or below them are clues, the rest black.

    ``looked_white`` holds the cells of the first row and column that looked white, or that
    ``paper_at_border`` shows to be paper otherwise."""
    looked_white = forced & ~non_white
    if paper_at_border is not None:
        looked_white |= paper_at_border
    confidence = np.where(looked_white, 0.3, confidence)
    non_white = non_white | forced
    lone = _lone_cells(non_white)
    if lone.any():
        log.debug("cells: %d cells taken for white have no white cell beside them", int(lone.sum()))
        non_white |= lone
        confidence = np.where(lone, 0.75, confidence)
    kinds = np.full(non_white.shape, "white", dtype=object)
    heads = _heads_a_run(non_white)
    kinds[non_white & heads] = "clue"
    kinds[non_white & ~heads] = "black"
    return CellClasses(kinds=kinds.astype("<U5"), confidence=confidence.astype(np.float32),
                       looked_white=looked_white)


def _heads_a_run(non_white: np.ndarray) -> np.ndarray:
    """Cells with a white cell right of or below them (among the non-white ones, the clues)."""
    white = ~non_white
    heads = np.zeros_like(white)
    heads[:, :-1] |= white[:, 1:]
    heads[:-1, :] |= white[1:, :]
    return heads


#: Share of the light cells carrying a diagonal, dashed or faint, from which the diagonal is the
#: grid's pattern (a regional newspaper prints it in every cell), not the mark of a clue cell.
#: In the real samples, at most 65% of the light cells carry one (clues printed white), and a
#: white cell's own measure is noise near zero; in the generated grids with a diagonal in every
#: cell, 98% or more carry one of 0.13 or more.
_EVERY_DIAGONAL = 0.9
#: ``CellFeatures.colour`` under which a cell's tint is the light's, not print: half the palest
#: pastel printed on clue cells or blocks (0.31, 12 Lab units, light blue beside white).
_FAINTEST_TINT = 0.15
_FAINT_DIAGONAL = 0.06


def _diagonal_in_every_cell(feats: CellFeatures) -> bool:
    light = feats.tone < 0.3
    if light.sum() < 8 or feats.dashed is None:
        return False
    if feats.entry is not None:
        # A large entry's strokes cross the diagonal in two places, and pass for a dashed line
        # (an app's bold "0" in every empty cell): cells holding one show the grid's diagonal
        # as a line along it, or none.
        entries = light & feats.entry
        if entries.sum() >= _ENTRY_SHARE * light.sum() and \
                float(np.median(feats.diagonal[entries])) < _FAINT_DIAGONAL:
            return False
        light &= ~feats.entry
        if not light.any():
            return False
    return float(np.mean(feats.dashed[light] > _FAINT_DIAGONAL)) >= _EVERY_DIAGONAL


#: Share of the light cells holding large entries from which they say whether a diagonal is
#: printed in every cell.
_ENTRY_SHARE = 0.25


def _classes_by_numbers(warped: np.ndarray, lattice: Lattice, feats: CellFeatures) -> CellClasses:
    """Classes of a grid with a diagonal in every cell: a light cell is a clue where it carries
    a number in a corner of a triangle, else white; grey and dark cells are blocks or clues.

    A typed or written entry stands in the middle of its cell, across the diagonal, and does not
    make a clue.
    """
    # Light that falls off across the grid darkens white cells in a corner as much as the light
    # blocks of this style are darkened by their grey: against a plane fitted through the white
    # paper the white cells are white again, and a block is as grey as anywhere.
    # So does warm light over one side of a cream page tint its paper: against a plane fitted
    # through the paper's tint, the paper is untinted again, and a tinted block stands out.
    tone = np.minimum(feats.tone, _tone_off_a_plane(feats))
    colour = np.minimum(feats.colour, _colour_off_a_plane(feats))
    # Blocks here may be as light as a pale grey, so the split falls low, where a camera's
    # colour cast over a corner of the page (a few Lab units, not a plane) would pass for print.
    colour = np.where(colour >= _FAINTEST_TINT, colour, 0.0)
    non_white, confidence = _split(np.maximum(tone, colour * 0.8))
    numbered, hatched = _numbered_light_cells(warped, lattice, ~non_white)
    log.debug("cells: a diagonal in every cell; %d light cells carry numbers, %d are hatched",
              int(numbered.sum()), int(hatched.sum()))
    return _classes(non_white | numbered | hatched, np.where(numbered | hatched, 0.75, confidence),
                    _first_row_and_column(non_white.shape))


def _tone_off_a_plane(feats: CellFeatures) -> np.ndarray:
    """Each cell's tone against a plane through the white paper (rows and columns as the
    variables), fitted to the cells not much darker than it: most cells of a grid are white."""
    p = feats.paper.astype(np.float64).ravel()
    fit = _plane_through(p, feats.paper.shape,
                         lambda resid, kept: resid >= -2.0 * max(float(np.median(np.abs(resid[kept]))), 1.0))
    if fit is None:
        return feats.tone
    fitted, keep = fit
    white = fitted + float(percentile((p - fitted)[keep], 90))
    span = np.maximum(white - feats.ink, 20.0)
    return np.clip((white - p) / span, 0, 1).reshape(feats.paper.shape).astype(np.float32)


def _colour_off_a_plane(feats: CellFeatures) -> np.ndarray:
    """Each cell's colour (as ``CellFeatures.colour``) against a plane through the paper's tint
    (rows and columns as the variables), fitted to the cells whose tint lies near it: most cells
    of a grid are white."""
    if feats.tint is None:
        return feats.colour
    tint = feats.tint.reshape(-1, 2).astype(np.float64)

    def near(resid: np.ndarray, kept: np.ndarray) -> np.ndarray:
        off = np.linalg.norm(resid, axis=1)
        return off <= 2.0 * max(float(np.median(off[kept])), 1.0)

    fit = _plane_through(tint, feats.colour.shape, near)
    if fit is None:
        return feats.colour
    return np.clip(_colour_apart(tint, fit[0]), 0, 1).reshape(feats.colour.shape).astype(np.float32)


def _plane_through(values: np.ndarray, shape: tuple[int, int], near, *, first: np.ndarray | None = None,
                   min_cells: int = 4) -> tuple[np.ndarray, np.ndarray] | None:
    """A plane through ``values`` (one row per cell, row-major over ``shape``; the cell's row and
    column the variables), fitted four times over, first to the cells of ``first`` (default
    all), then each time to the cells ``near(residuals, cells fitted)`` keeps. The plane's values
    and the cells it last kept; None where fewer than ``min_cells`` are left to fit."""
    rr, cc = np.mgrid[0:shape[0], 0:shape[1]]
    a = np.c_[np.ones(rr.size), rr.ravel(), cc.ravel()]
    keep = np.ones(len(values), bool) if first is None else first
    for _ in range(4):
        if keep.sum() < min_cells:
            return None
        fitted = a @ np.linalg.lstsq(a[keep], values[keep], rcond=None)[0]
        keep = near(values - fitted, keep)
    return fitted, keep


def _numbered_light_cells(warped: np.ndarray, lattice: Lattice, light: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
    """Of the ``light`` cells, those carrying a number in a corner of a triangle, and those
    hatched (a block's pattern, not numbers)."""
    gray = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY) if warped.ndim == 3 else warped
    numbered = np.zeros_like(light)
    hatched = np.zeros_like(light)
    for r, c in zip(*np.nonzero(light)):
        cell = _crop(gray, lattice.col_edges[c], lattice.row_edges[r], lattice.col_edges[c + 1],
                     lattice.row_edges[r + 1], 0.0)
        # Fine hatching is as light as paper once printed small, but it is a block's pattern;
        # its short lines in the corners would pass for numbers.
        hatched[r, c] = _hatched(cell)
        numbered[r, c] = not hatched[r, c] and _number_in_a_corner(cell)
    return numbered, hatched


_CORNER_S = 48          # side a cell is scaled to for the corner test
_CORNER_BAND = 0.1      # half-width of the diagonal's band, share of the side
_CORNER_D = 0.25        # a number's centre lies this far off the diagonal (x - y, share of the side)
# A clue number's height, share of the side. Not less than 0.15: the band along a diagonal line
# cuts a large typed entry into pieces, and its bottom bar alone was 0.1 of the side.
_CORNER_H = (0.15, 0.45)
#: A cell's diagonal measure (``CellFeatures.diagonal``) from which it may carry a diagonal line.
_SOME_DIAGONAL = 0.05
#: How far in (pixels of ``_CORNER_S``) past the cleared border a grid line may still run: a
#: lattice a pixel or two off.
_LINE_INSIDE = 3
#: Share of the side a row or column of ink runs along, from which it is a line: a digit is
#: never taller than ``_CORNER_H``.
_LINE_SHARE = 0.5
#: Share of a cell's diagonal (its border left out) that ink runs along where a line is drawn.
_ALONG_DIAGONAL = 0.6
#: Width in pixels (of ``_CORNER_S``) up to which a piece of ink is a hairline.
_HAIRLINE = 2
_CORNER_DIAGONAL = np.abs(np.subtract.outer(np.arange(_CORNER_S), np.arange(_CORNER_S))) <= _CORNER_BAND * _CORNER_S


def _plain_grey(feats: CellFeatures, non_white: np.ndarray, diagonal_under: float = _WITHOUT_DIAGONAL
                ) -> np.ndarray:
    """Non-white cells past the first row and column with no diagonal (measuring under
    ``diagonal_under``) and a tone between paper and ink: white paper in a shade, or a grey print."""
    return (non_white & ~_first_row_and_column(non_white.shape) & (feats.diagonal < diagonal_under)
            & (feats.tone > _SHADE_TONE[0]) & (feats.tone < _SHADE_TONE[1]))


def _numbered(warped: np.ndarray, lattice: Lattice, cells: np.ndarray,
              diagonal_line: np.ndarray | None = None, either_polarity: bool = False) -> np.ndarray:
    """Which of ``cells`` carry a number in a corner (:func:`_number_in_a_corner`, its
    ``diagonal_line`` given per cell, default True); with ``either_polarity``, a light number
    on a darker ground counts too."""
    gray = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY) if warped.ndim == 3 else warped
    numbered = np.zeros_like(cells)
    for r, c in zip(*np.nonzero(cells)):
        crop = _crop(gray, lattice.col_edges[c], lattice.row_edges[r], lattice.col_edges[c + 1],
                     lattice.row_edges[r + 1], 0.0)
        line = True if diagonal_line is None else bool(diagonal_line[r, c])
        # The diagonal was measured as a dark line; light numbers come with a light one, if any.
        numbered[r, c] = _number_in_a_corner(crop, diagonal_line=line) or (
            either_polarity and crop.size > 0 and _number_in_a_corner(255 - crop, diagonal_line=None))
    return numbered


def _number_in_a_corner(cell: np.ndarray, *, diagonal_line: bool | None = True) -> bool:
    """Whether a light cell carries a small number in the upper-right or lower-left corner.

    Along a diagonal line the band it runs in is cleared, so that a number touching the line is
    a piece of its own. Without ``diagonal_line`` the band stays: a large number standing in the
    middle (a given, a typed entry) is then one piece astride the diagonal, not two pieces of
    ink in the corners. ``None``: a line is there where ink runs along most of the diagonal.
    """
    if cell.size == 0:
        return False
    small = cv2.resize(cell, (_CORNER_S, _CORNER_S), interpolation=cv2.INTER_AREA).astype(np.float32)
    inner = small[3:-3, 3:-3]
    paper, ink = float(percentile(inner, 75)), float(percentile(inner, 2))
    if paper - ink < 40:
        return False
    mask = small < paper - 0.45 * (paper - ink)
    edge = round(0.07 * _CORNER_S)
    if diagonal_line is None:
        k = np.arange(edge, _CORNER_S - edge - 1)
        on_line = mask[k, k] | mask[k, k + 1] | mask[k + 1, k]
        diagonal_line = bool(np.mean(on_line) >= _ALONG_DIAGONAL)
    if diagonal_line:
        mask[_CORNER_DIAGONAL] = False
    mask[:edge, :] = mask[-edge:, :] = mask[:, :edge] = mask[:, -edge:] = False
    _clear_border_lines(mask, edge)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    x0, y0 = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
    x1, y1 = x0 + stats[:, cv2.CC_STAT_WIDTH], y0 + stats[:, cv2.CC_STAT_HEIGHT]
    side = np.sign(centroids[:, 0] - centroids[:, 1])
    for i in range(1, n):
        h, area = stats[i, cv2.CC_STAT_HEIGHT], stats[i, cv2.CC_STAT_AREA]
        cx, cy = centroids[i]
        if not (area >= 4 and _CORNER_H[0] * _CORNER_S <= h <= _CORNER_H[1] * _CORNER_S
                and abs(cx - cy) / _CORNER_S >= _CORNER_D):
            continue
        # A hairline along the cleared border, left of a line too broken to clear: never a
        # digit's stroke, which stands further in.
        if stats[i, cv2.CC_STAT_WIDTH] <= _HAIRLINE and (x0[i] <= edge + 1 or x1[i] >= _CORNER_S - edge - 1):
            continue
        # Ink across the band from this piece, over the same columns (or rows) and no further
        # off than the band is wide, may be the other part of one glyph the band cut in two: a
        # large entry astride the diagonal. Together they are then one glyph's shape, taller than
        # a clue number, no wider than a digit, centred on the diagonal; numbers in the two
        # corners of a clue cell, together, are as wide as the cell and centred on it too.
        gap = 2 * _CORNER_BAND * _CORNER_S + 2
        # The band may cut a large entry into more than two pieces (a "5": its bar, its stem's
        # foot, its bowl), each joined only to the next one across the band: all of them count.
        parts = _joined_across_band(i, side, stats, gap)
        if len(parts) > 1:
            ux0, uy0, ux1, uy1 = x0[parts].min(), y0[parts].min(), x1[parts].max(), y1[parts].max()
            if (uy1 - uy0 > _CORNER_H[1] * _CORNER_S and ux1 - ux0 <= 0.5 * _CORNER_S
                    and abs((ux0 + ux1) - (uy0 + uy1)) / 2 < _CORNER_D * _CORNER_S):
                continue
        return True
    return False


def _joined_across_band(start: int, side: np.ndarray, stats: np.ndarray, gap: float) -> list[int]:
    """The pieces of ink (``stats`` of cv2's connected components, ``side`` of the diagonal each
    lies on) reached from piece ``start`` by steps across the diagonal's band, each to a piece
    on the other side over the same columns (or rows) and no more than ``gap`` off."""
    x0, y0 = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
    x1, y1 = x0 + stats[:, cv2.CC_STAT_WIDTH], y0 + stats[:, cv2.CC_STAT_HEIGHT]
    parts, todo = [start], [start]
    while todo:
        i = todo.pop()
        shared_x = np.minimum(x1, x1[i]) - np.maximum(x0, x0[i])  # > 0: columns in common; < 0: a gap
        shared_y = np.minimum(y1, y1[i]) - np.maximum(y0, y0[i])
        for j in range(1, len(side)):
            if (j not in parts and side[j] == -side[i] and stats[j, cv2.CC_STAT_AREA] >= 4
                    and ((shared_x[j] > 0 and shared_y[j] >= -gap) or (shared_y[j] > 0 and shared_x[j] >= -gap))):
                parts.append(j)
                todo.append(j)
    return parts


def _clear_border_lines(mask: np.ndarray, edge: int) -> None:
    """Clear, in place, the grid lines that run on inside a cell's cleared border (``edge``
    pixels): pairs of rows or columns next to it, inked along over half the side between them
    (a line a pixel or two wide, wavering from one to the next) with paper past them (a shadow
    over a corner is inked on inwards, and cut off at the border it would pass for a number).
    Broken by gaps in its print, a line leaves pieces as tall as a number in the corners
    otherwise."""
    side = mask.shape[0]
    views = (mask, mask[::-1], mask.T, mask.T[::-1])  # the four borders, each as the top rows
    for k in range(edge, edge + _LINE_INSIDE):
        for view in views:
            pair = view[k:k + 2]
            if (np.count_nonzero(pair.any(axis=0)) > _LINE_SHARE * side
                    and np.count_nonzero(view[k + 2]) < 0.5 * _LINE_SHARE * side):
                pair[:] = False


def _paper_like_clues(tone: np.ndarray, non_white: np.ndarray, feats: CellFeatures) -> np.ndarray:
    """Cells taken for white whose paper has the tint of the grid's clue cells.

    A light grey or pale blue block (a blank cell printed in the clue cells' tint) has no
    diagonal, and its tone (here the larger of grey tone and colour, as scored for the split)
    alone may fall under a split that the strong diagonals pushed up. The puzzle's own
    clue cells say what tone a non-white cell has: a "white" cell is grey when its tone is
    clearly apart from the white cells' (far outside their spread) and at least half way to
    the clue cells' tone. Where the clue cells are tinted (``feats.tint``, Lab a and b per cell),
    a cell of another tint is not their print, however far from white: an app's cursor tints a
    row and a column of white cells green beside pink clue cells and blocks. A cell grey by its
    grey tone, not its tint, joined side by side to a white cell whose paper is as light is
    white paper in shade (see :func:`_shaded_paper`): a tan block beside pinkish paper is hardly
    darker, but of another colour.
    """
    tint = feats.tint
    clue = non_white & _clear_diagonals(feats.diagonal)
    white = ~non_white
    if clue.sum() < 2 or white.sum() < 4:
        return np.zeros_like(non_white)
    # Where the clue cells are tinted, the paper is judged on the cells of its own tint (an
    # app's cursor and blocks of the clue cells' tint would widen its spread past the blocks).
    paper, of_clue_tint = white, np.ones_like(white)
    if tint is not None:
        clue_tint, white_tint = np.median(tint[clue], axis=0), np.median(tint[white], axis=0)
        apart = float(_colour_apart(clue_tint, white_tint))
        if apart > _UNLIKE_COLOUR:
            of_clue_tint = _colour_apart(tint, clue_tint) <= 0.5 * apart
            own = white & (_colour_apart(tint, white_tint) <= 0.5 * apart)
            paper = own if own.sum() >= 4 else white
    clue_tone = float(np.median(tone[clue]))
    white_tone = float(np.median(tone[paper]))
    # Spread of the white cells' tone, robustly (lighting, shadows, digits in them).
    mad = float(np.median(np.abs(tone[paper] - white_tone))) * 1.4826
    if clue_tone - white_tone < 0.06 or clue_tone - white_tone < 6 * mad:
        return np.zeros_like(non_white)
    level = white_tone + 0.5 * (clue_tone - white_tone)
    grey = white & (tone > max(level, white_tone + 4 * mad)) & of_clue_tint
    # Only a minority of the white cells may turn grey: otherwise the split is no split.
    if grey.sum() > 0.4 * white.sum():
        return np.zeros_like(non_white)
    grey = _darker_than_the_paper_nearby(tone, grey, paper & ~grey, 0.5 * (clue_tone - white_tone))
    if not grey.any():
        return grey
    span = max(float(np.median(feats.paper[paper])) - feats.ink, 20.0)
    by_grey = grey & (feats.tone >= tone)
    return grey & ~_shaded_paper(by_grey, feats.paper, paper & ~grey, 0.5 * (clue_tone - white_tone) * span)


def _shaded_paper(cells: np.ndarray, level: np.ndarray, paper: np.ndarray, by: float) -> np.ndarray:
    """Of ``cells``, those joined side by side to a ``paper`` cell through cells each no more than
    ``by`` grey levels darker than the one before (``level``): the white cells in a shadow.

    A cell's tone is measured against the whitest paper within two cells: across a crease or a
    shadow's straight edge the white cells on the dark side near it (lit 9% less) measured as
    grey as pale pink clue cells, while those further in, as dark, measured as white. A grey
    block is darker than the white cells beside it, whatever the light; shaded paper is not.
    """
    shaded = np.zeros_like(cells)
    lit = paper.copy()
    n_rows, n_cols = cells.shape
    grown = True
    while grown:
        grown = False
        for r, c in zip(*np.nonzero(cells & ~shaded)):
            for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= nr < n_rows and 0 <= nc < n_cols and lit[nr, nc] and level[nr, nc] - level[r, c] < by:
                    shaded[r, c] = lit[r, c] = grown = True
                    break
    return shaded


def _darker_than_the_paper_nearby(tone: np.ndarray, cells: np.ndarray, paper: np.ndarray, by: float) -> np.ndarray:
    """Of ``cells``, those whose tone is ``by`` or more above that of the ``paper`` cells within
    two cells of them (their median), or that have none near: light falling off towards a page's
    edge darkens the white cells there together, and a block stands out from the paper beside it."""
    out = cells.copy()
    for r, c in zip(*np.nonzero(cells)):
        window = (slice(max(r - 2, 0), r + 3), slice(max(c - 2, 0), c + 3))
        near = tone[window][paper[window]]
        if near.size:
            out[r, c] = tone[r, c] - float(np.median(near)) >= by
    return out


def _clear_diagonals(diagonal: np.ndarray) -> np.ndarray:
    """Cells whose diagonal is at least half as clear as the clearest: the clue cells, by it."""
    return diagonal >= 0.5 * max(float(diagonal.max()), 1e-6)


def _clues_on_white_paper(feats: CellFeatures) -> bool:
    """Whether the cells carrying a clear diagonal have the white cells' paper (newspaper style).

    Each is compared with the cells its runs would start on (right of it and below it) where
    those look white, not with the whitest paper far away: under a cast shadow a clue cell and
    the white cells beside it are grey alike.
    """
    diagonal, tone = feats.diagonal, feats.tone
    strong = _clear_diagonals(diagonal)
    if strong.sum() < 3 or float(diagonal.max()) < 0.3:
        return False
    n_rows, n_cols = tone.shape
    darker_than_starts = []
    for r, c in zip(*np.nonzero(strong)):
        starts = [tone[y, x] for y, x in ((r, c + 1), (r + 1, c))
                  if y < n_rows and x < n_cols and diagonal[y, x] < 0.3 and tone[y, x] < _BLOCK_TONE]
        if starts:
            darker_than_starts.append(tone[r, c] - float(np.mean(starts)))
    if len(darker_than_starts) < 3:
        return False
    return (float(np.median(darker_than_starts)) < 0.1 and float(np.median(tone[strong])) < 0.5 * _BLOCK_TONE
            and float(np.median(feats.colour[strong])) < 0.1)


def _dotted_like_the_print(warped: np.ndarray, lattice: Lattice, non_white: np.ndarray) -> np.ndarray:
    """Cells taken for white that are printed as a screen of dots, in a grid whose print is.

    A newspaper prints a pale tint as sparse dots of ink with bare paper between them: the
    cell's tone is the paper's, nearly, and a screened diagonal is a row of dots that barely
    shows. Its dots still show, many of them, where white paper has none: a clue's digits and a
    cell's lines are larger marks, hatching is lines.
    """
    none = np.zeros_like(non_white)
    dots = _dots_per_cell(cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY) if warped.ndim == 3 else warped, lattice)
    printed = non_white & (dots >= _DOTS)
    if np.count_nonzero(printed) < _DOTTED_PRINT or not (~non_white).any():
        return none
    level = float(np.median(dots[printed]))
    # Only where the paper is clean: a photo of newsprint shows specks of grain and noise on
    # its white cells too, a few dozen to a cell, and there dots tell nothing.
    if percentile(dots[~non_white], 75) > _CLEAN_SHARE * level:
        return none
    return ~non_white & (dots >= max(_DOTS, _DOTS_SHARE * level))


#: Dots a cell must hold to count as screened, cells of print so screened that show a grid
#: printed that way, the share of their median count a cell taken for white must hold too, and
#: the share that most cells taken for white (three in four) hold at most where the paper is clean.
_DOTS, _DOTTED_PRINT, _DOTS_SHARE, _CLEAN_SHARE = 20, 4, 0.3, 0.1


def _dots_per_cell(gray: np.ndarray, lattice: Lattice) -> np.ndarray:
    """How many dots of ink (specks darker than the paper round them, a tenth of a cell across
    at most) lie in each cell's middle, away from its lines."""
    cell = lattice.cell_size
    k = max(3, int(cell / 4) | 1)
    dark = (gray.astype(np.int16) < cv2.blur(gray, (k, k)).astype(np.int16) - _DOT_STEP).astype(np.uint8)
    _, _, stats, centres = cv2.connectedComponentsWithStats(dark, connectivity=8)
    small = ((stats[:, cv2.CC_STAT_AREA] <= max(4.0, (cell / 12) ** 2))
             & (stats[:, cv2.CC_STAT_WIDTH] <= cell / 10) & (stats[:, cv2.CC_STAT_HEIGHT] <= cell / 10))
    small[0] = False  # the background
    x, y = centres[small, 0], centres[small, 1]
    rows, cols = np.asarray(lattice.row_edges), np.asarray(lattice.col_edges)
    r, c = np.searchsorted(rows, y) - 1, np.searchsorted(cols, x) - 1
    n_rows, n_cols = lattice.shape
    inside = (r >= 0) & (r < n_rows) & (c >= 0) & (c < n_cols)
    r, c, x, y = r[inside], c[inside], x[inside], y[inside]
    fy = (y - rows[r]) / np.maximum(rows[r + 1] - rows[r], 1e-9)
    fx = (x - cols[c]) / np.maximum(cols[c + 1] - cols[c], 1e-9)
    middle = (fy > 0.12) & (fy < 0.88) & (fx > 0.12) & (fx < 0.88)
    return np.bincount(r[middle] * n_cols + c[middle], minlength=n_rows * n_cols).reshape(n_rows, n_cols)


#: Grey levels by which a dot is darker than the paper round it (a quarter cell's mean).
_DOT_STEP = 15


def _faint_diagonals(diagonal: np.ndarray, non_white: np.ndarray, warped: np.ndarray, lattice: Lattice
                     ) -> np.ndarray:
    """Cells taken for white that carry a clear diagonal line: clue cells printed white.

    Screens and some papers print clue cells as white squares split by a light diagonal, whose
    contrast is far below the dark cells' that set the split. A white cell's own diagonal
    measure is noise near zero (digits, pen marks cover only part of the diagonal), so a cell
    whose diagonal stands far outside the white cells' spread is a clue cell, however faint.
    But not the line of a fold in the page lying along the diagonals (:func:`_creased`).
    """
    white = ~non_white
    if white.sum() < 4:
        return np.zeros_like(non_white)
    faint = _standing_out(diagonal, white, 0.12)
    return faint & ~_creased(warped, lattice, faint) if faint.any() else faint


def _creased(warped: np.ndarray, lattice: Lattice, lined: np.ndarray) -> np.ndarray:
    """Which ``lined`` cells carry the line of a fold in the page, not a printed diagonal.

    A fold runs straight across cells and grid lines at its own angle and place; a printed
    diagonal joins its cell's corners. Where the darkest line near a cell's diagonal lies off
    it, to one side along most of it (``_OFF_DIAGONAL``), it is no printed diagonal; and the
    cells lined one after another along that diagonal carry the same line (a fold crossing
    the next cell corner to corner by chance)."""
    gray = (cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY) if warped.ndim == 3 else warped).astype(np.float32)
    rows, cols = np.asarray(lattice.row_edges, np.float64), np.asarray(lattice.col_edges, np.float64)
    n_rows, n_cols = lined.shape

    def off_the_diagonal(r: int, c: int) -> bool:
        x0, y0, w, h = cols[c], rows[r], cols[c + 1] - cols[c], rows[r + 1] - rows[r]
        size, length = min(w, h), max(np.hypot(w, h), 1e-6)
        across = np.linspace(-_FOLD_REACH, _FOLD_REACH, 17) * size
        t = np.linspace(0.2, 0.8, 9)[:, None]
        # Per place along the diagonal, the darkest point across it (offset towards the upper right).
        profiles = _sample(gray, x0 + t * w + across * (h / length), y0 + t * h - across * (w / length))
        offsets = np.round(across[np.argmin(profiles, axis=1)] / size, 3)
        side = np.sign(np.median(offsets))
        return bool(side != 0 and np.mean(side * offsets >= _OFF_DIAGONAL) >= _OFF_SHARE)

    creased = np.zeros_like(lined)
    for r, c in zip(*np.nonzero(lined)):
        if r > 0 and c > 0 and lined[r - 1, c - 1]:
            continue  # not the first of its line
        chain = [(r, c)]
        while chain[-1][0] + 1 < n_rows and chain[-1][1] + 1 < n_cols and lined[chain[-1][0] + 1, chain[-1][1] + 1]:
            chain.append((chain[-1][0] + 1, chain[-1][1] + 1))
        if any(off_the_diagonal(*cell) for cell in chain):
            for cell in chain:
                creased[cell] = True
    return creased


#: How far across a cell's diagonal (share of the cell) the darkest line is looked for, how far
#: off it a fold's lies (a printed diagonal's within a pixel or two, 0.02 of a cell), and at
#: what share of the places along it.
_FOLD_REACH, _OFF_DIAGONAL, _OFF_SHARE = 0.2, 0.04, 0.6


def _standing_out(measure: np.ndarray, white: np.ndarray, least: float) -> np.ndarray:
    """The ``white`` cells whose ``measure`` stands far outside the white cells' own spread (eight
    robust deviations above their median, and ``least`` at the least). A few such cells among
    many white ones; where they are more, the measure is not telling them apart: none."""
    d = measure[white]
    base = float(np.median(d))
    mad = float(np.median(np.abs(d - base))) * 1.4826
    out = white & (measure >= max(least, base + 8 * mad))
    return out if out.sum() <= 0.4 * white.sum() else np.zeros_like(white)


def _paper_tone(cell: np.ndarray) -> float:
    """A cell's paper tone: its median, or the darker tone most of its pixels share.

    A median is paper only while the ink covers well under half the cell; two bold light
    numbers on a black clue cell (dark mode) cover nearly half, and their median lies between
    black and white, lighter than the dark grey white cells beside it. There the histogram's
    peak, darker than the median, is the paper. Where the peak is lighter, the median stays:
    a clue cell half grey, half white is a grey cell (its white half holds a number).
    """
    values = cell.ravel()
    median = float(np.median(values))
    near = values[_near_commonest_tone(values)]
    return min(median, float(np.median(near))) if near.size else median


def _paper_past_large_entries(gray: np.ndarray, lattice: Lattice, paper: np.ndarray, empty: np.ndarray
                              ) -> tuple[np.ndarray, np.ndarray]:
    """Which cells hold a large entry, and ``paper`` with their frames' median tone for theirs.

    A cell whose paper tone came out dark but whose frame (the band just inside the grid lines)
    is light paper nearly all round is a white cell holding a large bold entry (an app's typed
    digit covers over half of the cell's middle, and its ink is the commonest tone). A block's
    frame is its own dark print; a clue cell's numbers sit in its corners, on dark print, and a
    cell half dark and half light has half a dark frame. So is one whose paper came out only a
    little dark (a bold digit's strokes and their blur over a third of the cell) where its frame
    is clearly lighter and paper shows between the strokes: a grey tile inset in a light gap
    has a light frame too, but no paper in its middle."""
    light = float(percentile(paper[~empty], 90)) if (~empty).any() else 255.0
    ink = float(percentile(gray, 1))
    mid = 0.5 * (light + ink)
    entry = np.zeros(paper.shape, bool)
    paper = paper.copy()
    for r, c in zip(*np.nonzero((paper < light - _ENTRY_LOOKED_AT * (light - ink)) & ~empty)):
        x0, y0, x1, y1 = lattice.col_edges[c], lattice.row_edges[r], lattice.col_edges[c + 1], lattice.row_edges[r + 1]
        frame = _frame(gray, x0, y0, x1, y1)
        if not frame.size:
            continue
        lit = float(percentile(frame, _FRAME_DARK_SHARE))
        if paper[r, c] >= mid:
            # Paper only a little darker than the white cells' (a bold entry's strokes and their
            # blur a third of the cell, not over half): a light frame is not enough, since a grey
            # tile inset in a light gap has one too. A digit leaves paper between its strokes.
            # Or, in a blurred photo, paper between the strokes as light as the white cells' own
            # and clearly lighter than the cell's commonest tone (the frame then no clearer than
            # the strokes' blur: the grid's diagonal and lines run through it), where a grey tile
            # is its grey all over, and a white cell in dimmer light its paper all over.
            inner = _crop(gray, x0, y0, x1, y1, _FRAME_OUT)
            between = float(percentile(inner, 90)) if inner.size else 0.0
            step = _ENTRY_LOOKED_AT * (light - ink)
            if not (lit > paper[r, c] + _ENTRY_DARKER * (light - ink) and between > 0.5 * (lit + paper[r, c])
                    or lit >= paper[r, c] and between >= max(light - step, paper[r, c] + step)):
                continue
        elif lit <= mid:
            continue
        entry[r, c] = True
        paper[r, c] = np.median(frame)
    return entry, paper


#: How much darker than the white cells' paper (a share of the way to ink) a cell's paper must
#: come out to be looked at for a large entry.
_ENTRY_DARKER = 0.1
#: Looked at from half that: where most white cells hold a large bold "0" (an app's empty cells),
#: their paper pulls the white cells' reference down with it, and theirs came out only 0.09 of
#: the way darker (a 14x14 board in 553 px, light blue blocks 0.11: all cells taken for print).
_ENTRY_LOOKED_AT = 0.5 * _ENTRY_DARKER


#: Percent of a cell's frame that may be dark (a large entry's strokes reaching it) while the rest
#: is light paper.
_FRAME_DARK_SHARE = 20
#: The frame lies between these shares of the cell's side in from its edges.
_FRAME_IN, _FRAME_OUT = 0.08, 0.2


def _frame(a: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    """The pixels (values along the last axes, flattened) of the band just inside a cell's edges."""
    outer = _crop(a, x0, y0, x1, y1, _FRAME_IN)
    h, w = outer.shape[:2]
    dy, dx = int(round((_FRAME_OUT - _FRAME_IN) * (y1 - y0))), int(round((_FRAME_OUT - _FRAME_IN) * (x1 - x0)))
    keep = np.ones((h, w), bool)
    keep[dy:h - dy, dx:w - dx] = False
    return outer[keep]


def _peak_tone(values: np.ndarray) -> int:
    """The grey level most of ``values`` share: the peak of their histogram in bins of eight."""
    counts = np.bincount(np.minimum(values.astype(np.int32) >> 3, 31), minlength=32).astype(np.float32)
    counts[1:-1] = 0.25 * counts[:-2] + 0.5 * counts[1:-1] + 0.25 * counts[2:]
    return 8 * int(np.argmax(counts)) + 4


def _paper_tints(gray: np.ndarray, chroma_ab: np.ndarray, lattice: Lattice, empty: np.ndarray,
                 entry: np.ndarray) -> np.ndarray:
    """Each cell's paper tint (Lab a, b), (n_rows, n_cols, 2): the median over the pixels of the
    tone most of the cell shares, so that coloured ink does not tint its paper. A large typed
    entry in blue, with the blur around it, covers over half of a small cell: the median of the
    whole cell (its tone as well as its tint) lay in the ink's halo, as far towards blue as a pale
    clue tint is from white. In a cell holding a large ``entry`` the paper is its frame's."""
    n_rows, n_cols = lattice.shape
    tint = np.zeros((n_rows, n_cols, 2), np.float32)
    for r in range(n_rows):
        y0, y1 = lattice.row_edges[r], lattice.row_edges[r + 1]
        for c in range(n_cols):
            if empty[r, c]:
                continue
            x0, x1 = lattice.col_edges[c], lattice.col_edges[c + 1]
            if entry[r, c]:
                ab, values = _frame(chroma_ab, x0, y0, x1, y1), _frame(gray, x0, y0, x1, y1)
            else:
                ab = _crop(chroma_ab, x0, y0, x1, y1, 0.14).reshape(-1, 2)
                values = _crop(gray, x0, y0, x1, y1, 0.14).ravel()
            of_paper = _near_commonest_tone(values)
            # Where few pixels share one tone (a gradient, a cell of several tones), all of them.
            tint[r, c] = np.median(ab[of_paper] if of_paper.sum() >= 0.2 * len(ab) else ab, axis=0)
    return tint


#: Grey levels either side of a cell's paper tone that count as its paper.
_PAPER_BAND = 12


def _near_commonest_tone(values: np.ndarray, band: float = _PAPER_BAND) -> np.ndarray:
    """Which of ``values`` (grey levels) lie within ``band`` of the tone most of them share."""
    return np.abs(values.astype(np.float32) - _peak_tone(values)) <= band


def _cell_histograms(planes: list[np.ndarray], lattice: Lattice) -> tuple[np.ndarray, np.ndarray]:
    """Which cells are empty once inset as ``measure_cells`` crops them, and the 256-bin
    histogram of each uint8 plane over each cell, (n_planes, n_rows, n_cols, 256)."""
    n_rows, n_cols = lattice.shape
    empty = np.zeros((n_rows, n_cols), bool)
    hists = np.zeros((len(planes), n_rows, n_cols, 256), np.int64)
    for r in range(n_rows):
        y0, y1 = lattice.row_edges[r], lattice.row_edges[r + 1]
        for c in range(n_cols):
            x0, x1 = lattice.col_edges[c], lattice.col_edges[c + 1]
            for k, plane in enumerate(planes):
                cell = _crop(plane, x0, y0, x1, y1, 0.14)
                hists[k, r, c] = np.bincount(cell.ravel(), minlength=256)
            empty[r, c] = cell.size == 0
    return empty, hists


def _cells_mask(lattice: Lattice, cells: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A boolean image of ``shape`` true over the ``cells`` (n_rows, n_cols) of ``lattice``."""
    rows = np.clip(np.searchsorted(lattice.row_edges, np.arange(shape[0]), side="right") - 1, 0, cells.shape[0] - 1)
    cols = np.clip(np.searchsorted(lattice.col_edges, np.arange(shape[1]), side="right") - 1, 0, cells.shape[1] - 1)
    return cells[rows[:, None], cols[None, :]]


def _screened(hists: np.ndarray) -> np.ndarray:
    """Which cells are printed as a screen of dots (a newspaper's tint), from the histograms of
    each cell as it is and smoothed (``hists[0]``, ``hists[1]``; last axis the grey levels).

    Such a cell's commonest tone is the bare paper between the dots, and its tone is the mean
    of dots and paper. Dots (and hatching) are fine and even: smoothed over a few of them, the
    cell is nearly one grey, its spread of grey levels (10th to 90th percentile) under
    ``_SCREEN_SPREAD`` of its spread as it is. A number, a typed digit or a line is a mark on
    paper, and smoothing leaves its cell light paper and dark mark apart."""
    cum = np.cumsum(hists, axis=-1)
    spread = hist_percentile(cum, 0.9) - hist_percentile(cum, 0.1)
    return (spread[0] >= _SCREEN_MIN_SPREAD) & (spread[1] < _SCREEN_SPREAD * spread[0])


#: A screened cell's spread of grey levels smoothed, at most, as a share of its spread as it is.
_SCREEN_SPREAD = 0.4
#: Grey levels a cell's own spread must reach for its dots to be told from the paper's noise.
_SCREEN_MIN_SPREAD = 20.0


def _paper_tones(hist: np.ndarray) -> np.ndarray:
    """``_paper_tone`` of cells of whole grey levels, from their histograms (last axis)."""
    cum = np.cumsum(hist, axis=-1)
    median = hist_median(hist)
    counts = hist.reshape(*hist.shape[:-1], 32, 8).sum(axis=-1).astype(np.float32)
    counts[..., 1:-1] = 0.25 * counts[..., :-2] + 0.5 * counts[..., 1:-1] + 0.25 * counts[..., 2:]
    peak = 8 * np.argmax(counts, axis=-1) + 4
    # The levels within _PAPER_BAND of the peak are a run of the sorted values: their median is
    # an order statistic of the whole cell.
    lo, hi = np.maximum(peak - _PAPER_BAND, 0), np.minimum(peak + _PAPER_BAND, 255)
    below = np.where(lo > 0, np.take_along_axis(cum, np.maximum(lo - 1, 0)[..., None], -1)[..., 0], 0)
    n_near = np.take_along_axis(cum, hi[..., None], -1)[..., 0] - below
    near = (hist_kth(cum, below + (n_near - 1) // 2) + hist_kth(cum, below + n_near // 2)) / 2
    return np.where(n_near > 0, np.minimum(median, near), median)


def _crop(a: np.ndarray, x0: float, y0: float, x1: float, y1: float, inset: float) -> np.ndarray:
    dx, dy = (x1 - x0) * inset, (y1 - y0) * inset
    return a[int(round(y0 + dy)):int(round(y1 - dy)), int(round(x0 + dx)):int(round(x1 - dx))]


def _diagonal(darkest: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float]:
    """``_diagonals`` of one cell."""
    return tuple(float(v) for v in _diagonals(darkest, np.float64(x0), np.float64(y0), np.float64(x1), np.float64(y1)))


def _diagonals(darkest: np.ndarray, x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Strength of a dark line on, of a tone step across, and of a dashed line on the main
    diagonal of each cell (the cells' corners as arrays of one shape), measured in
    ``_darkest_nearby`` of the grey image.

    Samples run along the diagonal (away from the corners, where grid lines meet) and along
    two parallels offset to either side. All cells are sampled at once: one call per cell cost
    more in numpy's per-call overhead than in the sampling.
    """
    w, h = x1 - x0, y1 - y0
    best_line = best_edge = best_dashed = 0.0
    t = np.linspace(0.12, 0.88, 32)
    # Unit normal to the diagonal, offset a seventh of the cell.
    norm = np.maximum(np.hypot(w, h), 1e-6)
    off = 0.14 * np.minimum(w, h)
    dx, dy = (h / norm * off)[..., None], (-w / norm * off)[..., None]
    # The line runs corner to corner of the cell as printed, which an outer row's thick border
    # (drawn over part of the cell) or a lattice a little off makes a few percent shorter in one
    # direction than the cell found: a diagonal ending that much short is tried as well.
    for ex, ey in _DIAGONAL_ENDS:
        xs, ys = x0[..., None] + t * w[..., None] * (1 - ex), y0[..., None] + t * h[..., None] * (1 - ey)
        on = _sample(darkest, xs, ys)
        upper = _sample(darkest, xs + dx, ys + dy)   # upper-right side
        lower = _sample(darkest, xs - dx, ys - dy)   # lower-left side
        # A printed diagonal runs corner to corner; a digit's stroke (a 7, a 1) covers only part
        # of it. So the line (or the tone step) must hold at 80% of the samples.
        # Side references are medians, and the lighter side is the paper: clue numbers sit close
        # beside the diagonal and darken one side's median, which must not hide the line.
        paper_side = np.maximum(_quantile(np.sort(upper), 0.5), _quantile(np.sort(lower), 0.5)).astype(np.float64)
        on_sorted = np.sort(on)
        line = paper_side - _quantile(on_sorted, 0.8).astype(np.float64)
        # A dash covers half its line or more; a digit's strokes cross the diagonal in a few places.
        dashed = paper_side - _quantile(on_sorted, 0.4).astype(np.float64)
        step = np.sort(upper - lower)
        edge = np.maximum(_quantile(step, 0.3), -_quantile(step, 0.7)).astype(np.float64)
        best_line, best_edge = np.maximum(best_line, line), np.maximum(best_edge, edge)
        best_dashed = np.maximum(best_dashed, dashed)
    return best_line, best_edge, best_dashed


#: Share of the cell by which a diagonal may end short of the bottom-right corner (x, y).
_DIAGONAL_ENDS = ((0.0, 0.0), (0.12, 0.0), (0.0, 0.12))


def _quantile(sorted_values: np.ndarray, q: float) -> np.ndarray:
    """``np.percentile(values, 100 * q, axis=-1)`` of values already sorted along their last axis
    (linear interpolation), without numpy's per-call overhead, and in the values' own type."""
    n = sorted_values.shape[-1]
    pos = (n - 1) * q
    lo = int(pos)
    hi = min(lo + 1, n - 1)
    return sorted_values[..., lo] + (sorted_values[..., hi] - sorted_values[..., lo]) * (pos - lo)


_CROSS = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))


def diagonal_slants(warped: np.ndarray, lattice: Lattice) -> tuple[np.ndarray, np.ndarray]:
    """How strongly each cell carries a line on its main diagonal, falling left to right as a
    Kakuro's clue cells do, and on the other one, rising: two (n_rows, n_cols) arrays in grey
    levels. Dark lines and light ones (a white diagonal across black clue cells) count; where
    no cell carries a line, the tone step between two halves of another tone does instead.

    A grid turned by a quarter turn carries its clue cells' diagonals rising.
    """
    gray = (cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY) if warped.ndim == 3 else warped).astype(np.float32)
    rows = np.asarray(lattice.row_edges, np.float64)
    cols = np.asarray(lattice.col_edges, np.float64)

    def falling_and_rising(darkest: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        # (line, tone step) on each diagonal; mirrored left to right, the rising diagonals fall.
        return [_diagonals(image, xs[None, :-1], rows[:-1, None], xs[None, 1:], rows[1:, None])[:2]
                for image, xs in ((darkest, cols),
                                  (np.ascontiguousarray(darkest[:, ::-1]), darkest.shape[1] - cols[::-1]))]

    dark, light = falling_and_rising(_darkest_nearby(gray)), falling_and_rising(_darkest_nearby(255.0 - gray))
    falls, rises = (np.maximum(dark[k][0], light[k][0]) for k in (0, 1))
    if not np.any(np.maximum(falls, rises) >= _SLANT_LINE):
        # Tone steps only where no line is drawn clearly: a disc's rim or a number's edge makes
        # one too. A faint line (a darker green across green clue cells, 10-16 levels) still
        # counts where it is stronger than the step.
        falls, rises = np.maximum(falls, dark[0][1]), np.maximum(rises, dark[1][1])
    return falls, rises[:, ::-1]


#: Grey levels by which a line on a diagonal stands out of its cell's paper.
_SLANT_LINE = 20


def _darkest_nearby(gray: np.ndarray) -> np.ndarray:
    """Each pixel's darkest of itself and its four neighbours, for ``_diagonal``: a line sampled
    there survives slight misregistration. Computed once per image, not per sample."""
    return cv2.erode(gray, _CROSS)


def _sample(darkest: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    h, w = darkest.shape
    return darkest[np.clip(np.rint(ys).astype(int), 0, h - 1), np.clip(np.rint(xs).astype(int), 0, w - 1)]


def _split_threshold(score: np.ndarray) -> float:
    """Threshold between white cells (low score) and the rest, from the image's own scores.

    Otsu's split of the cell scores, kept inside a sane band so a grid that is nearly all
    white (or all dark) does not split its noise.
    """
    v = np.sort(score.ravel())
    if len(v) < 4:
        return 0.15
    best, best_t = -1.0, 0.15
    for i in range(1, len(v)):
        w0, w1 = i / len(v), 1 - i / len(v)
        between = w0 * w1 * (v[:i].mean() - v[i:].mean()) ** 2
        if between > best:
            best, best_t = between, (v[i - 1] + v[i]) / 2
    return float(np.clip(best_t, 0.06, 0.35))


_HATCH_S = 96           # side a cell is scaled to for the hatching test
_HATCH_BAND = 0.12      # the diagonal's own band, left out (share of the side)
_HATCH_DIP = 0.15       # a line's dip in the profile, share of the cell's contrast
_HATCH_LINES = 3        # lines on each side of the diagonal, at least
_HATCH_EVEN = 0.45      # spread of the gaps between lines, share of their mean, at most
_HATCH_DIPS = 6         # dips on both sides together, at least, for a broken hatching
_HATCH_PERIODS = np.linspace(5.0, 12.0, 141)  # the spacings a hatching's lines are looked for at
_HATCH_OFF_LATTICE = 0.25  # how far a dip may lie off the lattice, share of its period
_HATCH_MISSING = 6      # widest gap between a side's dips, in periods
_HATCH_K = np.subtract.outer(np.arange(_HATCH_S), np.arange(_HATCH_S)).T  # x - y of each pixel


def _hatched(cell: np.ndarray) -> bool:
    """Whether a light cell is hatched: evenly spaced lines parallel to its diagonal, over both
    of its triangles.

    Averaged along the diagonal's direction, hatching is a row of regular dips on both sides of
    the diagonal; a number is a few uneven ones on one side, a white cell none.
    """
    if cell.size == 0:
        return False
    g = cv2.resize(cell, (_HATCH_S, _HATCH_S), interpolation=cv2.INTER_AREA).astype(np.float32)
    e = round(0.08 * _HATCH_S)
    inner, k = g[e:-e, e:-e], _HATCH_K[e:-e, e:-e] + _HATCH_S
    paper, ink = float(percentile(inner, 90)), float(percentile(inner, 2))
    if paper - ink < 25:
        return False
    counts = np.bincount(k.ravel(), minlength=2 * _HATCH_S)
    sums = np.bincount(k.ravel(), weights=inner.ravel(), minlength=2 * _HATCH_S)
    offsets = np.nonzero(counts >= 0.25 * inner.shape[0])[0]
    profile = sums[offsets] / counts[offsets]
    envelope = cv2.dilate(profile[None, :].astype(np.float32), np.ones((1, 9), np.uint8)).ravel()
    depth = envelope - profile
    band = _HATCH_BAND * _HATCH_S
    sides = []
    for sign in (-1, 1):
        side = sign * (offsets - _HATCH_S) > band
        p, d, at = profile[side], depth[side], offsets[side]
        sides.append(np.array([at[i] for i in range(1, len(p) - 1)
                               if p[i] <= p[i - 1] and p[i] < p[i + 1] and d[i] > _HATCH_DIP * (paper - ink)], float))
    evenly = all(len(dips) >= _HATCH_LINES and np.diff(dips).std() <= _HATCH_EVEN * np.diff(dips).mean()
                 for dips in sides)
    return evenly or _on_one_lattice(sides)


def _on_one_lattice(sides: list[np.ndarray]) -> bool:
    """Whether the dips of a cell's two sides (offsets across the diagonal's direction) lie on one
    lattice of lines, a line or a few missing here and there.

    A newspaper prints its hatching as a screen of dots: the lines break up, a side shows two of
    its five lines, or three with a gap of two; but what is left lies a whole number of periods
    apart, on both sides of the diagonal alike. A number's strokes do not, and a white cell
    has none."""
    if min(len(dips) for dips in sides) < 2 or sum(len(dips) for dips in sides) < _HATCH_DIPS:
        return False
    at = np.concatenate(sides)
    turns = np.exp(2j * np.pi * at[None, :] / _HATCH_PERIODS[:, None])
    period = _HATCH_PERIODS[int(np.argmax(np.abs(turns.mean(axis=1))))]
    phase = np.angle(np.mean(np.exp(2j * np.pi * at / period))) * period / (2 * np.pi)
    off = (at - phase) / period
    if np.abs(off - np.round(off)).max() > _HATCH_OFF_LATTICE:
        return False
    return all(np.diff(dips).max() <= _HATCH_MISSING * period for dips in sides)
