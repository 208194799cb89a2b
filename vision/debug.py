"""Pictures of each stage, so a user can see where reading went wrong (``--debug DIR``)."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from .grid import detection_mask
from .read import GridReading

__all__ = ["draw_stages"]

_KIND_BGR = {"white": (255, 255, 255), "clue": (60, 160, 60), "black": (40, 40, 40)}


def _rectified(image: np.ndarray, reading: GridReading) -> np.ndarray:
    w = int(np.ceil(reading.lattice.col_edges[-1]))
    h = int(np.ceil(reading.lattice.row_edges[-1]))
    return cv2.warpPerspective(image, reading.H, (w, h), borderMode=cv2.BORDER_REPLICATE)


def draw_stages(image: np.ndarray, quads_xy: list[np.ndarray], readings: list[GridReading]) -> dict[str, np.ndarray]:
    """Name -> picture: found quadrilaterals, then per grid the lattice, cell classes and read clues."""
    pictures: dict[str, np.ndarray] = {}
    scale = min(1.0, 1600 / max(image.shape[:2]))
    overview = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image.copy()
    for k, quad_xy in enumerate(quads_xy):
        pts = (np.asarray(quad_xy, np.float32) * scale).astype(np.int32)
        cv2.polylines(overview, [pts], True, (0, 0, 255), 3)
        cv2.putText(overview, str(k + 1), tuple(int(v) for v in pts[0]), cv2.FONT_HERSHEY_SIMPLEX, 1.2,
                    (0, 0, 255), 3)
    pictures["1-grids"] = overview
    if not quads_xy:
        # Nothing found: show the ink the locator searched, so a user sees what it saw.
        pictures["1-ink"] = detection_mask(image)
    for k, rd in enumerate(readings, start=1):
        if rd.rectified is not None and rd.rectified_lattice is not None:
            base, lat = rd.rectified, rd.rectified_lattice
        else:
            base, lat = _rectified(image, rd), rd.lattice
        base = base if base.ndim == 3 else cv2.cvtColor(base, cv2.COLOR_GRAY2BGR)
        lattice_pic = base.copy()
        for y in lat.row_edges:
            cv2.line(lattice_pic, (0, int(round(y))), (lattice_pic.shape[1], int(round(y))), (0, 0, 255), 1)
        for x in lat.col_edges:
            cv2.line(lattice_pic, (int(round(x)), 0), (int(round(x)), lattice_pic.shape[0]), (0, 0, 255), 1)
        pictures[f"{k}-2-lattice"] = lattice_pic

        classes = base.copy()
        overlay = base.copy()
        for r in range(rd.n_rows):
            for c in range(rd.n_cols):
                kind = str(rd.classes.kinds[r, c])
                p0 = (int(lat.col_edges[c]), int(lat.row_edges[r]))
                p1 = (int(lat.col_edges[c + 1]), int(lat.row_edges[r + 1]))
                cv2.rectangle(overlay, p0, p1, _KIND_BGR.get(kind, (0, 0, 255)), -1)
        cv2.addWeighted(overlay, 0.55, classes, 0.45, 0, dst=classes)
        pictures[f"{k}-3-classes"] = classes

        clues = base.copy()
        for side in rd.sides:
            r, c = side.cell
            x0, y0 = lat.col_edges[c], lat.row_edges[r]
            x1, y1 = lat.col_edges[c + 1], lat.row_edges[r + 1]
            if side.options:
                value, conf = side.options[0]
                text = str(value)
                color = (0, 150, 0) if conf >= 0.9 else (0, 140, 255) if conf >= 0.5 else (0, 0, 255)
            else:
                text, color = "?", (0, 0, 255)
            if side.direction == "down":
                org = (int(x0 + 2), int(y1 - 4))
            else:
                org = (int((x0 + x1) / 2), int(y0 + (y1 - y0) * 0.4))
            size = (y1 - y0) / 70
            cv2.putText(clues, text, org, cv2.FONT_HERSHEY_SIMPLEX, size, (255, 255, 255), 4, cv2.LINE_AA)
            cv2.putText(clues, text, org, cv2.FONT_HERSHEY_SIMPLEX, size, color, 2, cv2.LINE_AA)
        pictures[f"{k}-4-clues"] = clues
    return pictures
