"""Atomic writes proved by interruption: a real ``kakuro solve`` and a real ``kakuro batch`` killed
with SIGKILL (no handler runs, no clean-up) at several moments, then every output checked.

The README promises that outputs are written to a temporary file and renamed into place, so a
crash leaves each output whole or absent (or, for a file that existed, the old one whole): never a
half-written file under an output's name. Temporary files a kill leaves behind are hidden
(``.NAME.*``). A re-run of the killed batch finishes it with a summary listing every page.

The moments are found by polling the output folder (a temporary file appears, a page's record
appears), not by sleeping, so the kills land where meant on a slow or busy machine too; a few more
land at fractions of an uninterrupted run's time, wherever that is. Truths: the transcriptions in
``samples/`` (solved by the solver, as in the other image tests), the input image's own size.
"""
from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from solver.formats import grid_tokens, load_puzzle, parse_puzzle
from solver.solve import solve_puzzle

from conftest import ROOT, SAMPLES

PNG_END = b"IEND\xaeB`\x82"
#: The book's pages, in order: each sample's transcription is that page's truth.
PAGE_SAMPLES = ("wikipedia_8x8", "site_7x7") * 4


def _group_alive(pgid: int) -> bool:
    """Whether any process of the group is still running (zombies have closed their files)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            return True
    return False


def _kakuro(argv: list, log: Path) -> subprocess.Popen:
    """``kakuro ARGV`` as its own process group, so that a kill reaches the batch's workers too."""
    with open(log, "ab") as err:
        return subprocess.Popen([sys.executable, str(ROOT / "cli.py"), *map(str, argv)],
                                stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)


def _kill_when(proc: subprocess.Popen, moment) -> bool:
    """SIGKILL the whole process group as soon as ``moment()`` is true; False if it ended first."""
    while proc.poll() is None:
        if moment():
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            # Hang guard only: SIGKILL ends a process at once, a stuck one would hang the suite.
            for _ in range(2000):
                if not _group_alive(proc.pid):
                    break
                time.sleep(0.005)
            assert not _group_alive(proc.pid), "a killed process of the group is still running"
            return True
        time.sleep(0.0005)
    return False


def _hidden(folder: Path, name: str) -> list[Path]:
    """The temporary files of ``name`` in ``folder`` (``.NAME.XXXX.SUFFIX``)."""
    return [p for p in folder.iterdir() if p.name.startswith(f".{name}.")]


def _complete_png(path: Path) -> tuple[int, int]:
    """A PNG whose every chunk is there, decoded in full; its (height, width)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data.endswith(PNG_END), f"{path.name} is not a whole PNG"
    with Image.open(io.BytesIO(data)) as image:
        image.load()  # raises on truncated or corrupt image data
        return image.height, image.width


# ---------------------------------------------------------------------------------------------
# kakuro solve: a large annotated image


@pytest.fixture(scope="module")
def large_photo(tmp_path_factory) -> Path:
    """A real screenshot scaled up five times with a little noise: a PNG of some 6 MB, slow to
    encode and write, and still a readable puzzle."""
    image = cv2.imread(str(SAMPLES / "wikipedia_8x8.png"))
    big = cv2.resize(image, None, fx=5, fy=5, interpolation=cv2.INTER_CUBIC)
    noise = np.random.default_rng(0).integers(-6, 7, big.shape)
    big = np.clip(big.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    path = tmp_path_factory.mktemp("large") / "large.png"
    assert cv2.imwrite(str(path), big)
    return path


@pytest.mark.slow
def test_a_killed_solve_leaves_the_old_output_or_a_whole_new_one(large_photo, tmp_path):
    size = cv2.imread(str(large_photo), cv2.IMREAD_UNCHANGED).shape[:2]
    out = tmp_path / "solved.png"
    old = (SAMPLES / "site_5x5.png").read_bytes()  # an earlier output under the same name
    log = tmp_path / "stderr.txt"

    def check_output() -> str:
        """The output is the old file, untouched, or the whole new image; say which."""
        data = out.read_bytes()
        if data == old:
            return "old"
        assert _complete_png(out) == size
        return "new"

    # An uninterrupted run: the new image, and how long a run takes here (to spread kills over).
    out.write_bytes(old)
    start = time.perf_counter()
    proc = _kakuro(["solve", large_photo, "-o", out], log)
    assert proc.wait() == 0, log.read_text()
    run_s = time.perf_counter() - start
    assert check_output() == "new" and not _hidden(tmp_path, out.name)

    # Killed while the temporary file exists (encoding and writing the image): the old output
    # stays whole. Tried a few times in case a busy machine lets the rename come first.
    killed_mid_write = 0
    for _ in range(3):
        out.write_bytes(old)
        before = out.stat()
        proc = _kakuro(["solve", large_photo, "-o", out], log)
        killed = _kill_when(proc, lambda: _hidden(tmp_path, out.name) or out.stat().st_mtime_ns != before.st_mtime_ns
                            or out.stat().st_size != before.st_size)
        leftovers = _hidden(tmp_path, out.name)
        if check_output() == "old" and killed and leftovers:
            killed_mid_write += 1
        for p in leftovers:
            p.unlink()
        if killed_mid_write:
            break
    assert killed_mid_write, "no kill landed while the output was being written"

    # Killed the moment the output changes (or not at all, if the run ends first): the change is
    # the whole new image.
    out.write_bytes(old)
    inode = out.stat().st_ino
    proc = _kakuro(["solve", large_photo, "-o", out], log)
    _kill_when(proc, lambda: out.stat().st_ino != inode or out.stat().st_size != len(old))
    assert check_output() == "new"

    # Killed at spread moments of a run, wherever it then is (loading, reading, solving, writing).
    for fraction in (0.5, 0.8, 0.95):
        out.write_bytes(old)
        proc = _kakuro(["solve", large_photo, "-o", out], log)
        deadline = time.perf_counter() + fraction * run_s
        _kill_when(proc, lambda: time.perf_counter() >= deadline)
        check_output()
        assert {p.name for p in tmp_path.iterdir() if not p.name.startswith(".")} == {"solved.png", "stderr.txt"}


# ---------------------------------------------------------------------------------------------
# kakuro batch: a book of pages, killed and resumed


@pytest.fixture(scope="module")
def truths() -> dict[str, tuple]:
    """Each page's transcription: the puzzle, its grid tokens and its solution."""
    out = {}
    for stem in set(PAGE_SAMPLES):
        puzzle = load_puzzle(SAMPLES / f"{stem}.txt")
        out[stem] = (puzzle, grid_tokens(puzzle), dict(solve_puzzle(puzzle).values))
    return out


def _check_batch_outputs(out: Path, truths) -> set[int]:
    """Every output present under its own name is whole and right; the pages recorded done."""
    done = set()
    for path in out.iterdir():
        name = path.name
        if name.startswith("."):
            continue  # a temporary file the kill left behind
        if name in ("summary.csv", "summary.json"):
            continue  # written at the end of a run: checked after the last run
        stem, suffix = name.split(".", 1)
        page = int(stem.rsplit("-p", 1)[1])
        puzzle, grid, values = truths[PAGE_SAMPLES[page - 1]]
        if suffix == "png":
            height, width = _complete_png(path)
            assert (height, width) == Image.open(SAMPLES / f"{PAGE_SAMPLES[page - 1]}.png").size[::-1]
        elif suffix == "txt":  # the puzzle as read, the solution filled in at every white cell
            assert parse_puzzle(path.read_text()) == puzzle.with_givens(values)
        elif suffix == "json":
            doc = json.loads(path.read_text())
            assert (doc["page"], doc["status"], doc["grid"]) == (page, "solved", grid)
            assert {(r, c): d for r, row in enumerate(doc["solution"]) for c, d in enumerate(row)
                    if d is not None} == values
        elif suffix == "result.json":
            record = json.loads(path.read_text())
            assert [(row["page"], row["status"]) for row in record["rows"]] == [(page, "solved")]
            done.add(page)
        else:
            raise AssertionError(f"unexpected output {name}")
    return done


@pytest.mark.slow
def test_a_killed_batch_leaves_whole_outputs_and_a_rerun_completes_it(tmp_path, truths):
    pages = [Image.open(SAMPLES / f"{stem}.png").convert("RGB") for stem in PAGE_SAMPLES]
    book = tmp_path / "book.pdf"
    pages[0].save(book, format="PDF", save_all=True, append_images=pages[1:], resolution=72)
    out = tmp_path / "out"
    log = tmp_path / "stderr.txt"
    argv = ["batch", book, "--out", out, "--jobs", "2", "--dpi", "72"]

    def records() -> int:
        return len(list(out.glob("*.result.json"))) if out.exists() else 0

    def temporary_file() -> bool:
        return out.exists() and any(p.name.startswith(".") for p in out.iterdir())

    # 1. Killed as soon as the first page is recorded done (other pages are being written).
    assert _kill_when(_kakuro(argv, log), lambda: records() >= 1), log.read_text()
    done = _check_batch_outputs(out, truths)
    assert 1 <= len(done) < len(PAGE_SAMPLES) and not (out / "summary.csv").exists()
    # 2. Resumed, killed the moment a temporary file appears: mid-write of some output.
    assert _kill_when(_kakuro(argv, log), temporary_file), log.read_text()
    done = _check_batch_outputs(out, truths)
    # 3. Resumed, killed the moment a new output appears under its own name (a file written in
    #    place would be there half-written, or empty).
    before = {p.name for p in out.iterdir()}
    assert _kill_when(_kakuro(argv, log), lambda: any(not p.name.startswith(".") and p.name not in before
                                                      for p in out.iterdir())), log.read_text()
    done = _check_batch_outputs(out, truths)
    # 4. Resumed, killed after two more pages are done.
    target = len(done) + 2
    assert _kill_when(_kakuro(argv, log), lambda: records() >= target), log.read_text()
    done = _check_batch_outputs(out, truths)
    assert len(done) < len(PAGE_SAMPLES)

    # The last run finishes the book: every page in the summary, in order, each solved right.
    proc = _kakuro(argv, log)
    assert proc.wait() == 0, log.read_text()
    assert _check_batch_outputs(out, truths) == set(range(1, len(PAGE_SAMPLES) + 1))
    for page in range(1, len(PAGE_SAMPLES) + 1):  # a page recorded done has all its outputs
        assert {p.suffix for p in out.glob(f"book-p{page}.*")} == {".png", ".txt", ".json"}
    with open(out / "summary.csv", newline="") as f:
        rows = [(Path(r["input"]).name, r["page"], r["index"], r["status"]) for r in csv.DictReader(f)]
    expected = [("book.pdf", str(page), "1", "solved") for page in range(1, len(PAGE_SAMPLES) + 1)]
    assert rows == expected
    summary = json.loads((out / "summary.json").read_text())
    assert [(Path(r["input"]).name, str(r["page"]), str(r["index"]), r["status"]) for r in summary] == expected
