"""Clue-reading speed and accuracy of the two readers, per clue cell, on rendered cells.

    .venv/bin/python bench/ocr.py [--cells 200] [--seed 11]

Cells are drawn by ``synthetic/clue_cells.py`` in fonts held out of the glyph model's training, in
every clue style, clean and degraded. Prints one table: reader, cells, numbers read right, and
milliseconds per cell (one core; tesseract reads all cells in one call on a mosaic).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402

from synthetic.clue_cells import load_trainer, random_cells  # noqa: E402
from vision import ocr  # noqa: E402

cv2.setNumThreads(1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    fonts = load_trainer().holdout_fonts()
    rows = []
    for degraded in (False, True):
        cells = random_cells(fonts, args.cells, seed=args.seed, degraded=degraded)
        crops = [c for c, _, _ in cells]
        for name, reader in (("glyph", ocr.GlyphReader()), ("tesseract", ocr.TesseractReader())):
            reader.read_cells(crops[:2])  # load the model / start-up outside the timing
            start = time.perf_counter()
            reads = reader.read_cells(crops)
            ms = (time.perf_counter() - start) * 1000 / len(crops)
            right = sum((d.value == down) + (a.value == across)
                        for (d, a), (_, down, across) in zip(reads, cells))
            rows.append((name, "degraded" if degraded else "clean", len(crops), right / (2 * len(crops)), ms))
    print(f"{'reader':<11}{'cells':<10}{'n':>5}{'right':>8}{'ms/cell':>9}")
    for name, kind, n, right, ms in rows:
        print(f"{name:<11}{kind:<10}{n:>5}{right:>8.1%}{ms:>9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
