"""Batch on a generated puzzle book: pages per second with 1 and 2 jobs, or the memory `solved.pdf` takes.

    .venv/bin/python bench/batch.py [--pages 24] [--dpi 150]
    .venv/bin/python bench/batch.py --book-memory 200 [--dpi 150] [--page-format png|jpg]

The book is a PDF of flat pages, two published 10x10 puzzles each drawn by synthetic/render.py, written to a
temporary folder. Each run is the command a user types, `kakuro batch BOOK --jobs N --force`, in a
fresh process, so both pay the same start-up (imports, worker processes). Prints one table.

`--book-memory PAGES` measures only the end of `kakuro batch --pdf`: a folder of PAGES annotated
pages (letter size at `--dpi`, eight generated pages over and over, as batch writes them: PNG for a
PDF book's pages, JPEG for photos) is assembled into `solved.pdf` by `batch._write_book` in a fresh
process, which prints its resident memory before and its peak during (Linux: /proc/self/status),
for PAGES and for a tenth of them: memory that grows with the page count shows as a difference.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from solver.formats import load_puzzle  # noqa: E402
from synthetic.render import random_style, render_page  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "puzzles" / "corpus"

#: Run in a fresh process: peak RSS of assembling the book from the page files in argv[1]. The peak is
#: the kernel's (VmHWM), first set back to the present RSS (clear_refs): a forked child's ru_maxrss
#: starts at its parent's RSS, which here holds the generated pages.
_ASSEMBLE = """
import json, sys, time
from pathlib import Path
import batch

def status(field):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith(field))

out = Path(sys.argv[1])
results = []
for name in json.loads(sys.argv[2]):
    job = batch.PageJob(Path("book.pdf"), int(name.rsplit("-p", 1)[1].split(".")[0]) - 1)
    fields = batch.PageResult.__dataclass_fields__
    results.append(batch.PageResult(job, (), **({"image": name} if "image" in fields else {})))
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
before = status("VmRSS:")
start = time.perf_counter()
book = batch._write_book(out, results)
seconds = time.perf_counter() - start
print(json.dumps({"before_mib": before, "peak_mib": status("VmHWM:"), "seconds": seconds,
                  "pdf_mib": book.stat().st_size / 2**20}))
"""


def _rendered_pages(rng: np.random.Generator, count: int) -> Iterator[Image.Image]:
    """``count`` flat book pages, two published 10x10 puzzles (unique solutions) each, in varied styles."""
    pool = [load_puzzle(p) for p in sorted(CORPUS.glob("krazydad__k10_*.txt"))]
    for _ in range(count):
        puzzles = [pool[i] for i in rng.choice(len(pool), size=2, replace=False)]
        style = random_style(rng)
        image, _ = render_page(puzzles, [style, style], rng)
        yield Image.fromarray(image[..., ::-1])


def make_pages(rng: np.random.Generator, count: int, dpi: int) -> list[np.ndarray]:
    """``count`` flat book pages (RGB arrays), scaled to letter size at ``dpi``."""
    size = (round(8.5 * dpi), round(11 * dpi))
    return [np.asarray(page.resize(size, Image.Resampling.LANCZOS)) for page in _rendered_pages(rng, count)]


def make_book(path: Path, pages: int, seed: int = 0) -> None:
    """A PDF book of ``pages`` generated pages."""
    images = list(_rendered_pages(np.random.default_rng(seed), pages))
    images[0].save(path, format="PDF", save_all=True, append_images=images[1:], resolution=150)


def book_memory(pages: int, dpi: int, page_format: str) -> int:
    """Peak RSS of ``batch._write_book`` for ``pages`` pages and for a tenth of them."""
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        distinct = []
        for k, rgb in enumerate(make_pages(rng, 8, dpi)):
            path = out / f"distinct-{k}.{page_format}"
            Image.fromarray(rgb).save(path, dpi=(dpi, dpi), **({"quality": 90} if page_format == "jpg" else {}))
            distinct.append(path)
        names = [f"book-p{i + 1}.{page_format}" for i in range(pages)]
        for i, name in enumerate(names):
            shutil.copy(distinct[i % len(distinct)], out / name)
        page_mib = sum(p.stat().st_size for p in distinct) / len(distinct) / 2**20
        print(f"{pages} pages of {round(8.5 * dpi)}x{round(11 * dpi)} px ({dpi} dpi letter), "
              f"{page_format.upper()} files of {page_mib:.2f} MiB on average")
        print(f"{'pages':>6}{'RSS before MiB':>16}{'peak RSS MiB':>14}{'growth MiB':>12}{'seconds':>9}{'PDF MiB':>9}")
        for count in (max(1, pages // 10), pages):
            proc = subprocess.run([sys.executable, "-c", _ASSEMBLE, str(out), json.dumps(names[:count])],
                                  cwd=ROOT, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                print(proc.stderr, file=sys.stderr)
                return 1
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            print(f"{count:>6}{r['before_mib']:>16.0f}{r['peak_mib']:>14.0f}"
                  f"{r['peak_mib'] - r['before_mib']:>12.0f}{r['seconds']:>9.1f}{r['pdf_mib']:>9.1f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=24)
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--book-memory", type=int, metavar="PAGES",
                        help="instead: peak RSS of assembling solved.pdf from PAGES annotated pages (e.g. 200)")
    parser.add_argument("--page-format", choices=["png", "jpg"], default="png",
                        help="with --book-memory: the annotated pages' format (default png, as for a PDF book)")
    args = parser.parse_args()
    if args.book_memory:
        return book_memory(args.book_memory, args.dpi, args.page_format)
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
