"""Batch throughput on a generated puzzle book: pages per second with 1 and 2 jobs.

    .venv/bin/python bench/batch.py [--pages 24] [--dpi 150]

The book is a PDF of flat pages, two published 10x10 puzzles each drawn by synthetic/render.py, written to a
temporary folder. Each run is the command a user types, `kakuro batch BOOK --jobs N --force`, in a
fresh process, so both pay the same start-up (imports, worker processes). Prints one table.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from solver.formats import load_puzzle  # noqa: E402
from synthetic.render import random_style, render_page  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "puzzles" / "corpus"


def make_book(path: Path, pages: int, seed: int = 0) -> None:
    """Two published 10x10 puzzles (unique solutions) per page, in varied styles."""
    rng = np.random.default_rng(seed)
    pool = [load_puzzle(p) for p in sorted(CORPUS.glob("krazydad__k10_*.txt"))]
    images = []
    for _ in range(pages):
        puzzles = [pool[i] for i in rng.choice(len(pool), size=2, replace=False)]
        style = random_style(rng)
        image, _ = render_page(puzzles, [style, style], rng)
        images.append(Image.fromarray(image[..., ::-1]))
    images[0].save(path, format="PDF", save_all=True, append_images=images[1:], resolution=150)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=24)
    parser.add_argument("--dpi", type=int, default=150)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        book = Path(tmp) / "book.pdf"
        make_book(book, args.pages)
        rows = []
        for jobs in (1, 2):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import sys, cli; sys.exit(cli.main())",
                            "-q", "batch", str(book), "--out", str(Path(tmp) / f"out{jobs}"), "--jobs", str(jobs),
                            "--dpi", str(args.dpi), "--force"], cwd=ROOT, check=False)
            seconds = time.perf_counter() - start
            rows.append((jobs, seconds, args.pages / seconds))
    base = rows[0][2]
    print(f"{'jobs':>4}{'pages':>7}{'seconds':>9}{'pages/s':>9}{'speed-up':>9}")
    for jobs, seconds, rate in rows:
        print(f"{jobs:>4}{args.pages:>7}{seconds:>9.2f}{rate:>9.2f}{rate / base:>9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
