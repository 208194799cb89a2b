"""Draw the small pictures of the print styles that the README shows (docs/styles/FAMILY.png).

    .venv/bin/python tools/style_pictures.py

One published 6x6 puzzle from the corpus, drawn flat in each style family of
``synthetic.render.STYLE_FAMILIES`` (the answer key beside its puzzle), scaled to about 240 px.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from solver.formats import load_puzzle  # noqa: E402
from solver.solve import solve_puzzle  # noqa: E402
from synthetic.render import STYLE_FAMILIES, render_family  # noqa: E402

PUZZLE = ROOT / "tests" / "data" / "images" / "book_scan_discs_3puzzles@2.txt"
OUT = ROOT / "docs" / "styles"


def main() -> int:
    puzzle = load_puzzle(PUZZLE)
    values = dict(solve_puzzle(puzzle).values)
    OUT.mkdir(parents=True, exist_ok=True)
    for k, family in enumerate(STYLE_FAMILIES):
        image, corners, _, keys = render_family(np.random.default_rng([2024, k]), family, [puzzle], [values],
                                                cell_px=40)
        pts = np.vstack([corners[0]] + list(keys))
        x0, y0 = np.floor(pts.min(axis=0)).astype(int) - 6
        x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 6
        # A phone's screen is shown whole: what surrounds the board is the style.
        crop = image if family == "phone_screen" else image[max(y0, 0):y1, max(x0, 0):x1]
        # Dots shrunk are grey: a newspaper's screen is shown at its own size, a corner of it.
        if family == "newsprint_dots":
            crop = crop[:240, :240]
        scale = 1.0 if family == "newsprint_dots" else 240 / max(crop.shape[:2])
        small = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(OUT / f"{family}.png"), small, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        print(OUT / f"{family}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
