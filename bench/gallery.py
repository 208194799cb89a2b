"""Contact sheet of synthetic samples across tiers, to eyeball ``vision.render``.

Usage: python bench/gallery.py OUTDIR [--seed N] [--count 12]
Writes OUTDIR/gallery.png (each tile with its grid corners marked in green) and prints timings.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from vision.render import TIERS, make_sample  # noqa: E402

TILE = 420


def _tile(sample) -> np.ndarray:
    image = sample.image.copy()
    scale = TILE / max(image.shape[:2])
    for corners in sample.corners:
        pts = np.round(corners * 4).astype(np.int32)
        cv2.polylines(image, [pts.reshape(-1, 1, 2)], True, (0, 200, 0), max(1, int(2 / scale)),
                      cv2.LINE_AA, shift=2)
    image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    tile = np.full((TILE + 22, TILE, 3), 255, np.uint8)
    tile[:image.shape[0], :image.shape[1]] = image
    label = f"{sample.tier} seed {sample.seed} {sample.puzzles[0].n_rows}x{sample.puzzles[0].n_cols} {sample.image.shape[1]}x{sample.image.shape[0]}"
    cv2.putText(tile, label, (4, TILE + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 200), 1, cv2.LINE_AA)
    return tile


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--tiers", default=",".join(TIERS))
    args = parser.parse_args(argv)
    tiers = args.tiers.split(",")
    tiles = []
    for k in range(args.count):
        tier = tiers[k % len(tiers)]
        start = time.perf_counter()
        sample = make_sample(args.seed + k, tier)
        print(f"{tier:6s} seed {args.seed + k:4d}: {1000 * (time.perf_counter() - start):6.0f} ms "
              f"{sample.image.shape[1]}x{sample.image.shape[0]}")
        tiles.append(_tile(sample))
    cols = 4
    while len(tiles) % cols:
        tiles.append(np.full_like(tiles[0], 255))
    sheet = np.vstack([np.hstack(tiles[i:i + cols]) for i in range(0, len(tiles), cols)])
    args.outdir.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(args.outdir / "gallery.png"), sheet)
    print(args.outdir / "gallery.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
