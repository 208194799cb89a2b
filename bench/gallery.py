"""Contact sheet of synthetic samples across tiers, to eyeball a renderer against real puzzles.

Usage: python bench/gallery.py OUTDIR [--renderer render|synth] [--seed N] [--count 12] [--tiers ...]
``--renderer render`` (default) draws ``synthetic.render`` samples into OUTDIR/gallery.png,
``--renderer synth`` draws ``synthetic.synth`` samples into OUTDIR/synth_gallery.png. Grid corners are
marked in green; prints per-sample and per-tier timings, and the time of a flat 10x10 render at
40 px cells.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TILE = 420
RENDERERS = ("render", "synth")


def _make_sample(renderer: str, module, seed: int, k: int, tier: str):
    # The two renderers seed differently: synthetic.render by an int, synthetic.synth by a Generator.
    if renderer == "render":
        return module.make_sample(seed + k, tier)
    return module.make_sample(np.random.default_rng([seed, k]), tier)


def _label(renderer: str, sample) -> str:
    shape = " ".join(f"{p.n_rows}x{p.n_cols}" for p in sample.puzzles)
    if renderer == "render":
        return f"{sample.tier} seed {sample.seed} {shape} {sample.image.shape[1]}x{sample.image.shape[0]}"
    return f"{sample.tier} {shape} {sample.styles[0].clue_look}/{sample.styles[0].block_look}"


def _tile(sample, label: str) -> np.ndarray:
    image = sample.image.copy()
    scale = TILE / max(image.shape[:2])
    for corners in sample.corners:
        pts = np.round(np.asarray(corners) * 4).astype(np.int32)
        cv2.polylines(image, [pts.reshape(-1, 1, 2)], True, (0, 200, 0), max(1, int(2 / scale)),
                      cv2.LINE_AA, shift=2)
    image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    tile = np.full((TILE + 22, TILE, 3), 255, np.uint8)
    tile[:image.shape[0], :image.shape[1]] = image
    cv2.putText(tile, label, (4, TILE + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 200), 1, cv2.LINE_AA)
    return tile


def _flat_render_times(module, seed: int, n: int = 20) -> list[float]:
    """Seconds per flat 10x10 render at 40 px cells (the renderers' time budget)."""
    puzzle, _ = module.random_puzzle(np.random.default_rng(seed), 10, 10)
    times = []
    for k in range(n):
        style = dataclasses.replace(module.random_style(np.random.default_rng([seed, 99, k])), cell_px=40)
        start = time.perf_counter()
        module.render_puzzle(puzzle, style)
        times.append(time.perf_counter() - start)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--renderer", choices=RENDERERS, default="render")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--tiers", help="comma-separated tiers (default: all of the renderer's)")
    args = parser.parse_args(argv)
    module = importlib.import_module(f"vision.{args.renderer}")
    tiers = args.tiers.split(",") if args.tiers else list(module.TIERS)
    tiles, times = [], {t: [] for t in tiers}
    for k in range(args.count):
        tier = tiers[k % len(tiers)]
        start = time.perf_counter()
        sample = _make_sample(args.renderer, module, args.seed, k, tier)
        times[tier].append(time.perf_counter() - start)
        print(f"{tier:6s} #{k:3d}: {1000 * times[tier][-1]:6.0f} ms {sample.image.shape[1]}x{sample.image.shape[0]}")
        tiles.append(_tile(sample, _label(args.renderer, sample)))
    cols = 4
    while len(tiles) % cols:
        tiles.append(np.full_like(tiles[0], 255))
    sheet = np.vstack([np.hstack(tiles[i:i + cols]) for i in range(0, len(tiles), cols)])
    for tier, ts in times.items():
        if ts:
            print(f"{tier:6s} n={len(ts):3d} mean {1000 * np.mean(ts):7.1f} ms  max {1000 * max(ts):7.1f} ms")
    flat = _flat_render_times(module, args.seed)
    print(f"flat 10x10@40px render: mean {1000 * np.mean(flat):.1f} ms  max {1000 * max(flat):.1f} ms")
    out = args.outdir / ("gallery.png" if args.renderer == "render" else "synth_gallery.png")
    args.outdir.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), sheet)
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
