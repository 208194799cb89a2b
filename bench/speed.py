"""Where the time of solving a photo goes: a table per stage, per image, with medians.

    .venv/bin/python bench/speed.py [--photos 6] [--seed 0] [--repeat 1]

For each real sample image (``samples/``) and for generated phone photos (published puzzles
drawn by ``synthetic.render``, level ``photo``, scaled to 2000 px), one row: seconds spent in each stage of ``pipeline.solve_image`` on one core
(load, locate, rectify, shadow, classify, read clues, read givens, check, solve, draw; "other"
is the rest of solve_image, mostly re-reads and layout checks outside these stages), then the
whole ``kakuro solve IMAGE`` command in a fresh process (start-up, imports and the written
image included), which is what issue 18's goal counts. A stage that is called several times
(a grid read again) adds up. Times are wall-clock on this machine and vary a little run to
run; nothing here is asserted by the tests.
"""
from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as the goal is stated
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

cv2.setNumThreads(1)

import pipeline  # noqa: E402
import solver.reconcile  # noqa: E402
import vision.read  # noqa: E402
from vision.imageio import load_image  # noqa: E402
from vision.ocr import forget_kept_reads  # noqa: E402

#: (column, module, function name): each stage is timed where the stage before it calls it.
STAGES = (
    ("locate", pipeline, "locate_puzzles"),
    ("rectify", vision.read, "straighten_grid"),
    ("shadow", vision.read, "find_shadow"),
    ("classify", vision.read, "classify_cells"),
    ("clues", vision.read, "read_clues_glyph"),
    ("clues", vision.read, "read_clues_two_readers"),
    ("givens", vision.read, "read_givens"),
    ("check", pipeline, "reconcile_reading"),
    ("solve", solver.reconcile, "solve_puzzle"),
    ("draw", pipeline, "draw_solution"),
)
COLUMNS = ("load",) + tuple(dict.fromkeys(name for name, _, _ in STAGES)) + ("other", "in-process", "command")
#: Stages that run inside another timed stage, and which: their time is taken out of it.
NESTED = {"solve": "check"}


@contextmanager
def timed_stages(spent: dict[str, float]):
    """Wrap each stage function so that its calls add their seconds to ``spent``."""
    originals = []
    for name, module, attr in STAGES:
        original = getattr(module, attr)

        def wrapper(*args, _original=original, _name=name, **kwargs):
            start = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                spent[_name] += time.perf_counter() - start

        originals.append((module, attr, original))
        setattr(module, attr, wrapper)
    try:
        yield
    finally:
        for module, attr, original in originals:
            setattr(module, attr, original)


def stage_times(path: Path | None, image: np.ndarray | None = None) -> dict[str, float]:
    spent: dict[str, float] = defaultdict(float)
    start = time.perf_counter()
    if image is None:
        image = load_image(path)
    spent["load"] = time.perf_counter() - start
    with timed_stages(spent):
        begin = time.perf_counter()
        try:
            results = pipeline.solve_image(image)
        except Exception:  # a grid not found is a time like any other
            results = []
        pipeline.annotate_image(image, results)
        total = time.perf_counter() - begin
    for inner, outer in NESTED.items():
        spent[outer] -= spent[inner]
    spent["other"] = total - sum(spent[name] for name in dict.fromkeys(name for name, _, _ in STAGES))
    spent["in-process"] = total + spent["load"]
    return spent


def compile_project() -> None:
    """Write the project's bytecode before commands are timed, as an install does (pip compiles
    what it installs) and as the first run does. Where bytecode is not written
    (PYTHONDONTWRITEBYTECODE, set on some machines), every command compiled each module changed
    since its bytecode was last written: 0.1-0.15 s of a 5x5 screenshot's 0.6 s."""
    for name in ("vision", "solver"):
        compileall.compile_dir(ROOT / name, quiet=1)
    for path in ROOT.glob("*.py"):
        compileall.compile_file(path, quiet=1)


def command_time(path: Path) -> float:
    """``kakuro solve PATH`` in a fresh process, start-up included."""
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        # As the ``kakuro`` command runs it: cli imported as a module, from its bytecode.
        subprocess.run([sys.executable, "-m", "cli", "-q", "solve", str(path), "-o",
                        str(Path(out) / "solved.jpg")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env={**os.environ, "OMP_NUM_THREADS": "1"}, cwd=ROOT)
        return time.perf_counter() - start


def generated_photos(n: int, seed: int) -> list[tuple[str, np.ndarray]]:
    """Published puzzles (one solution each, as a newspaper's) drawn and photographed."""
    sys.path.insert(0, str(ROOT / "bench"))
    from accuracy import _corpus
    from synthetic.render import photograph, random_style, render_puzzle

    rng = np.random.default_rng([seed, 18])
    pool = _corpus(14)
    out = []
    for k in range(n):
        puzzle, _ = pool[int(rng.integers(len(pool)))]
        size = f"{puzzle.n_rows}x{puzzle.n_cols}"
        image, corners = render_puzzle(puzzle, random_style(rng, int(rng.integers(40, 90))), rng=rng)
        image, _ = photograph(image, corners, rng, "photo")
        # a phone photo is 2 MP or more: scale the shot up to about 2000 px on its long side
        scale = 2000 / max(image.shape[:2])
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        out.append((f"generated photo {k + 1} ({size})", image))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=int, default=6, help="generated photos (default 6)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--samples", default="*.jpg,*.png", help="sample files to time (globs, default all images)")
    args = parser.parse_args()

    rows: list[tuple[str, str, dict[str, float]]] = []
    samples = sorted({p for pattern in args.samples.split(",") for p in (ROOT / "samples").glob(pattern)})
    pipeline.solve_image(load_image(samples[0]))  # warm up: the glyph model and OR-Tools load once
    compile_project()
    forget_kept_reads()  # each image timed as read the first time
    with tempfile.TemporaryDirectory() as tmp:
        for path in samples:
            image = load_image(path)
            megapixels = image.shape[0] * image.shape[1] / 1e6
            spent = stage_times(path)
            spent["command"] = command_time(path)
            rows.append((path.name, f"{megapixels:.1f}", spent))
        for name, image in generated_photos(args.photos, args.seed):
            path = Path(tmp) / "photo.jpg"
            cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
            spent = stage_times(path)
            spent["command"] = command_time(path)
            rows.append((name, f"{image.shape[0] * image.shape[1] / 1e6:.1f}", spent))

    header = ["image", "MP", *COLUMNS]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name, mp, spent in rows:
        print(f"| {name} | {mp} | " + " | ".join(f"{spent[c]:.2f}" for c in COLUMNS) + " |")
    for label, pick in (("median, all", lambda mp: True), ("median, photos of 2 MP or more", lambda mp: mp >= 2)):
        chosen = [spent for _, mp, spent in rows if pick(float(mp))]
        if chosen:
            print(f"| **{label}** ({len(chosen)}) | | "
                  + " | ".join(f"{statistics.median(s[c] for s in chosen):.2f}" for c in COLUMNS) + " |")


if __name__ == "__main__":
    main()
