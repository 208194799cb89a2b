"""Contact sheet of ``vision.synth`` samples, to eyeball them against real puzzles.

Usage: python bench/synth_gallery.py OUTDIR [--seed N] [--count 12] [--tiers clean,photo,hard,page]
Writes OUTDIR/synth_gallery.png (grid corners marked in green) and prints per-tier timings.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from vision.synth import TIERS, make_sample, random_puzzle, random_style, render_puzzle  # noqa: E402

TILE = 440


def _tile(sample) -> np.ndarray:
    image = sample.image.copy()
    scale = TILE / max(image.shape[:2])
    for corners in sample.corners:
        for x, y in corners:
            cv2.circle(image, (int(round(x)), int(round(y))), max(2, int(4 / scale)), (0, 200, 0), -1)
    image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    tile = np.full((TILE + 22, TILE, 3), 255, np.uint8)
    tile[:image.shape[0], :image.shape[1]] = image
    shape = " ".join(f"{p.n_rows}x{p.n_cols}" for p in sample.puzzles)
    label = f"{sample.tier} {shape} {sample.styles[0].clue_look}/{sample.styles[0].block_look}"
    cv2.putText(tile, label, (4, TILE + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
    return tile


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--tiers", default=",".join(TIERS))
    args = parser.parse_args(argv)
    tiers = args.tiers.split(",")
    tiles, times = [], {t: [] for t in tiers}
    for i in range(args.count):
        tier = tiers[i % len(tiers)]
        start = time.perf_counter()
        sample = make_sample(np.random.default_rng([args.seed, i]), tier)
        times[tier].append(time.perf_counter() - start)
        tiles.append(_tile(sample))
    cols = 4
    while len(tiles) % cols:
        tiles.append(np.full_like(tiles[0], 255))
    sheet = np.vstack([np.hstack(tiles[r:r + cols]) for r in range(0, len(tiles), cols)])
    args.outdir.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(args.outdir / "synth_gallery.png"), sheet)
    for tier, ts in times.items():
        if ts:
            print(f"{tier:6s} n={len(ts):3d} mean {1000 * np.mean(ts):7.1f} ms  max {1000 * max(ts):7.1f} ms")
    # The brief's budget: a flat 10x10 render at 40 px cells.
    rng = np.random.default_rng(args.seed)
    puzzle, _ = random_puzzle(rng, 10, 10)
    flat = []
    for k in range(20):
        style = random_style(np.random.default_rng([args.seed, 99, k]))
        style = type(style)(**{**style.__dict__, "cell_px": 40})
        start = time.perf_counter()
        render_puzzle(puzzle, style)
        flat.append(time.perf_counter() - start)
    print(f"flat 10x10@40px render: mean {1000 * np.mean(flat):.1f} ms  max {1000 * max(flat):.1f} ms")
    print(args.outdir / "synth_gallery.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
