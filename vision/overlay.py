"""Draw results back onto the original image, in its own perspective."""
from __future__ import annotations

import logging

import cv2
import numpy as np

from solver.model import Cell

from .types import Lattice

__all__ = ["draw_solution", "SOLUTION_BGR", "CORRECTION_BGR", "CONFLICT_BGR", "HINT_BGR"]

log = logging.getLogger(__name__)

#: Saturated colours that stand out from black print on white or grey paper.
SOLUTION_BGR = (200, 60, 0)      # strong blue
CORRECTION_BGR = (0, 140, 255)   # orange: a clue the reader corrected
CONFLICT_BGR = (0, 0, 230)       # red: runs that cannot be satisfied / clues that could not be read
HINT_BGR = (40, 160, 0)          # green: the cells a hint's reasoning uses


def _cell_box(lattice: Lattice, row: int, col: int) -> tuple[float, float, float, float]:
    return lattice.col_edges[col], lattice.row_edges[row], lattice.col_edges[col + 1], lattice.row_edges[row + 1]


def _put_centered(canvas: np.ndarray, text: str, box, color, scale_to: float = 0.62) -> None:
    x0, y0, x1, y1 = box
    height = (y1 - y0) * scale_to
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, 1.0, 2)
    scale = height / max(th, 1)
    thickness = max(1, int(round(scale * 1.6)))
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, thickness)
    org = (int(round((x0 + x1 - tw) / 2)), int(round((y0 + y1 + th) / 2)))
    cv2.putText(canvas, text, org, cv2.FONT_HERSHEY_DUPLEX, scale, color, thickness, cv2.LINE_AA)


def draw_solution(
    image: np.ndarray,
    H: np.ndarray,
    lattice: Lattice,
    values: dict[Cell, int],
    *,
    corrected: tuple[Cell, ...] = (),
    conflicts: tuple[tuple[Cell, tuple[Cell, ...]], ...] = (),
    unreadable: tuple[Cell, ...] = (),
    wrong: tuple[tuple[Cell, int | None], ...] = (),
    marked: tuple[Cell, ...] = (),
    ticked: tuple[Cell, ...] = (),
) -> np.ndarray:
    """Return a copy of ``image`` with solution digits and marks drawn in its perspective.

    Parameters
    ----------
    image : (M, N, 3) uint8 ndarray
        The original (source) image, BGR.
    H : (3, 3) ndarray
        Homography from source pixels to the rectified grid in which ``lattice`` is measured.
    lattice : Lattice
        Cell boundaries in rectified coordinates.
    values : dict
        (row, col) -> digit for white cells.
    corrected : tuple of (row, col)
        Clue cells whose reading was corrected: outlined in orange.
    conflicts : tuple of (clue cell, run cells)
        Runs that could not be satisfied: outlined in red.
    unreadable : tuple of (row, col)
        Cells that could not be read: crossed in red.
    wrong : tuple of ((row, col), digit or None)
        Digits written wrongly in white cells: circled in red, with the right digit in a corner
        (the written one stays readable under the circle); no digit where it is None.
    ticked : tuple of (row, col)
        Digits written rightly in white cells: a green tick in the cell's upper right corner.
    marked : tuple of (row, col)
        Cells a hint's reasoning uses: outlined in green.
    """
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("image: expected an (M, N, 3) BGR array")
    # Draw in the rectified frame, at a resolution near the source's, then warp the layer back:
    # digits then take the page's perspective exactly.
    width = int(np.ceil(lattice.col_edges[-1])) + 2
    height = int(np.ceil(lattice.row_edges[-1])) + 2
    canvas = np.zeros((height, width, 3), np.uint8)
    mask = np.zeros((height, width), np.uint8)

    def outline(cells: tuple[Cell, ...], color) -> None:
        for r, c in cells:
            x0, y0, x1, y1 = _cell_box(lattice, r, c)
            pad = max(1, int((x1 - x0) * 0.08))
            thick = max(2, int((x1 - x0) * 0.07))
            for target, col in ((canvas, color), (mask, 255)):
                cv2.rectangle(target, (int(x0) + pad, int(y0) + pad), (int(x1) - pad, int(y1) - pad), col, thick)

    for (r, c), digit in values.items():
        box = _cell_box(lattice, r, c)
        _put_centered(canvas, str(digit), box, SOLUTION_BGR)
        _put_centered(mask, str(digit), box, 255)
    outline(corrected, CORRECTION_BGR)
    outline(marked, HINT_BGR)
    for clue, run in conflicts:
        outline((clue, *run), CONFLICT_BGR)
    for r, c in unreadable:
        x0, y0, x1, y1 = _cell_box(lattice, r, c)
        thick = max(2, int((x1 - x0) * 0.07))
        for target, col in ((canvas, CONFLICT_BGR), (mask, 255)):
            cv2.line(target, (int(x0), int(y0)), (int(x1), int(y1)), col, thick)
            cv2.line(target, (int(x1), int(y0)), (int(x0), int(y1)), col, thick)
    for (r, c), digit in wrong:
        x0, y0, x1, y1 = _cell_box(lattice, r, c)
        thick = max(2, int((x1 - x0) * 0.06))
        centre = (int((x0 + x1) / 2), int((y0 + y1) / 2))
        corner = (x0 + (x1 - x0) * 0.62, y0 + (y1 - y0) * 0.02, x1, y0 + (y1 - y0) * 0.4)
        for target, col in ((canvas, CONFLICT_BGR), (mask, 255)):
            cv2.circle(target, centre, int((x1 - x0) * 0.4), col, thick)
        if digit is not None:
            _put_centered(canvas, str(digit), corner, SOLUTION_BGR)
            _put_centered(mask, str(digit), corner, 255)
    for r, c in ticked:
        x0, y0, x1, y1 = _cell_box(lattice, r, c)
        w, h = x1 - x0, y1 - y0
        tick = np.array([[x0 + 0.66 * w, y0 + 0.16 * h], [x0 + 0.75 * w, y0 + 0.27 * h],
                         [x0 + 0.92 * w, y0 + 0.06 * h]])
        for target, col in ((canvas, HINT_BGR), (mask, 255)):
            cv2.polylines(target, [np.rint(tick).astype(np.int32)], False, col, max(2, int(w * 0.06)), cv2.LINE_AA)

    # Only the grid's bounding box in the source changes: warp into that box, not the whole photo.
    Hinv = np.linalg.inv(H)
    frame_xy = np.array([[[0, 0], [width, 0], [width, height], [0, height]]], np.float32)
    src_xy = cv2.perspectiveTransform(frame_xy, Hinv)[0]
    x0, y0 = np.floor(src_xy.min(axis=0)).astype(int)
    x1, y1 = np.ceil(src_xy.max(axis=0)).astype(int)
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, image.shape[1]), min(y1, image.shape[0])
    out = image.copy()
    if x1 <= x0 or y1 <= y0:
        return out
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    to_roi = shift @ Hinv
    size = (x1 - x0, y1 - y0)
    # Layer and mask warped as one BGRA image; OpenCV's blend is ten times numpy's float arithmetic
    # on a photo-sized region.
    warped = cv2.warpPerspective(np.dstack([canvas, mask]), to_roi, size, flags=cv2.INTER_LINEAR)
    alpha = warped[..., 3].astype(np.float32) * np.float32(1 / 255)
    out[y0:y1, x0:x1] = cv2.blendLinear(np.ascontiguousarray(warped[..., :3]), out[y0:y1, x0:x1], alpha, 1 - alpha)
    return out
