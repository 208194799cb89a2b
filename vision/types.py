"""Plain data passed between the vision stages.

cv2 ``(x, y)`` coordinates stay inside ``vision/``; every name holding them ends in ``_xy``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

if TYPE_CHECKING:
    from vision.cells import CellFeatures

__all__ = ["Quad", "Lattice", "CellKind", "CellClasses", "NumberRead"]

CellKind = Literal["black", "clue", "white"]


@dataclass(frozen=True, eq=False)
class Quad:
    """A puzzle's outer corners in source-image pixels, TL TR BR BL, float32 (4, 2)."""

    corners_xy: np.ndarray
    score: float = 1.0  # how grid-like the region looked, 0..1


@dataclass(frozen=True, eq=False)
class Lattice:
    """Row and column boundaries of a grid in the rectified image.

    ``row_edges`` has n_rows + 1 increasing y positions, ``col_edges`` n_cols + 1 x positions;
    spacing need not be uniform (page curl, print scaling).
    """

    row_edges: tuple[float, ...]
    col_edges: tuple[float, ...]

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.row_edges) - 1, len(self.col_edges) - 1

    @property
    def cell_size(self) -> float:
        """The typical cell side: the smaller of the median row height and column width."""
        return float(min(np.median(np.diff(self.row_edges)), np.median(np.diff(self.col_edges))))


@dataclass(frozen=True, eq=False)
class CellClasses:
    """Per-cell class, (n_rows, n_cols) array of 'black' / 'clue' / 'white', with a 0..1 confidence.

    ``looked_white`` marks cells of the first row and column that looked white but cannot be
    (a white cell needs clues above and to its left): a sign the grid starts a row earlier.
    """

    kinds: np.ndarray
    confidence: np.ndarray
    looked_white: np.ndarray | None = None
    #: The cells' measures the classes were decided from (``vision.cells.CellFeatures``): a
    #: later question about the same rectified grid (a tint taken for print) reads them here
    #: instead of measuring the cells again.
    features: CellFeatures | None = None


@dataclass(frozen=True)
class NumberRead:
    """A number read from one half of a clue cell (or a given digit in a white cell).

    ``alternatives`` holds (value, probability) pairs, best first; ``value`` is the best, or None
    when nothing legible was there.
    """

    value: int | None
    confidence: float
    alternatives: tuple[tuple[int, float], ...] = ()
