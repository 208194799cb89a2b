"""`kakuro batch`: folders and PDF books, in parallel, a summary, bad pages recorded, re-runs skip."""
from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from PIL import Image

import cli
from cli import ExitCode

from conftest import ROOT, SAMPLES


def _book(path: Path) -> None:
    """A 3-page PDF: two real puzzle screenshots and a blank page between them."""
    pages = [Image.open(SAMPLES / "wikipedia_8x8.png").convert("RGB"),
             Image.new("RGB", (600, 800), "white"),
             Image.open(SAMPLES / "site_7x7.png").convert("RGB")]
    pages[0].save(path, format="PDF", save_all=True, append_images=pages[1:], resolution=72)


@pytest.fixture
def inbox(tmp_path):
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(SAMPLES / "site_5x5.png", folder / "site_5x5.png")
    _book(folder / "sub" / "book.pdf")
    (folder / "truncated.png").write_bytes((SAMPLES / "site_9x9_a.png").read_bytes()[:2000])
    (folder / "notes.jpg").write_text("not a photo")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj garbage")
    return folder


def _rows(out: Path):
    with open(out / "summary.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_batch_reports_every_failure_and_carries_on(inbox, tmp_path, capsys):
    out = tmp_path / "out"
    before = {p: p.read_bytes() for p in inbox.rglob("*") if p.is_file()}
    code = cli.main(["batch", str(inbox), "--out", str(out), "--jobs", "2", "--dpi", "72", "--pdf"])
    assert code == ExitCode.partial_batch
    rows = _rows(out)
    by_input = {}
    for row in rows:
        by_input.setdefault(Path(row["input"]).name, []).append(row)
    assert [r["status"] for r in by_input["site_5x5.png"]] == ["solved"]
    book = sorted(by_input["book.pdf"], key=lambda r: int(r["page"]))
    assert [(r["page"], r["status"]) for r in book] == [("1", "solved"), ("2", "error"), ("3", "solved")]
    assert "grid" in book[1]["error"]
    for bad in ("truncated.png", "notes.jpg", "broken.pdf"):
        (row,) = by_input[bad]
        assert row["status"] == "error" and bad in row["error"]
    summary = json.loads((out / "summary.json").read_text())
    assert [(r["input"], r["status"]) for r in summary] == [(r["input"], r["status"]) for r in rows]
    for name in ("site_5x5.png", "site_5x5.txt", "site_5x5.json", "book-p1.png", "book-p3.json", "solved.pdf"):
        assert (out / name).exists(), name
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary leftovers
    assert {p: p.read_bytes() for p in inbox.rglob("*") if p.is_file()} == before  # inputs untouched
    solved = json.loads((out / "book-p3.json").read_text())
    assert solved["status"] == "solved" and solved["page"] == 3 and solved["unique"] is True


def test_rerun_skips_done_pages_unless_forced(inbox, tmp_path):
    out = tmp_path / "out"
    args = ["batch", str(inbox / "site_5x5.png"), "--out", str(out), "--jobs", "1"]
    assert cli.main(args) == ExitCode.ok
    record = out / "site_5x5.result.json"
    first = record.stat().st_mtime_ns
    assert cli.main(args) == ExitCode.ok
    assert record.stat().st_mtime_ns == first
    assert cli.main(args + ["--force"]) == ExitCode.ok
    assert record.stat().st_mtime_ns != first


@pytest.mark.slow
def test_real_printable_book_has_four_puzzles_per_page(tmp_path):
    out = tmp_path / "out"
    cli.main(["batch", str(SAMPLES / "printable_4x7x7_with_givens_a.pdf"), "--out", str(out),
                   "--dpi", "150", "--jobs", "2"])
    rows = _rows(out)
    for page in ("1", "2"):
        puzzles = [r for r in rows if r["page"] == page]
        assert [r["index"] for r in puzzles] == ["1", "2", "3", "4"]
        for r in puzzles:
            doc = json.loads((out / f"printable_4x7x7_with_givens_a-p{page}-{r['index']}.json").read_text())
            assert (doc["rows"], doc["cols"]) == (7, 7)


@pytest.mark.slow
def test_ctrl_c_stops_cleanly(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    # Enough pages that the batch is still running when the first result appears, however fast.
    pages = [Image.open(SAMPLES / name).convert("RGB") for name in ("wikipedia_8x8.png", "site_7x7.png") * 50]
    book = tmp_path / "book.pdf"
    pages[0].save(book, format="PDF", save_all=True, append_images=pages[1:], resolution=72)
    out = tmp_path / "out"
    # A test run started in the background of a shell ignores Ctrl-C, and a child inherits that
    # (Python then installs no handler): the batch gets Ctrl-C as a terminal would send it.
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "batch", str(book), "--out", str(out),
                             "--jobs", "2", "--dpi", "72"], stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 60
    while time.time() < deadline and not list(out.glob("*.result.json")):
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == ExitCode.ctrl_c, err
    assert "interrupted" in err
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no half-written files
    for record in out.glob("*.result.json"):
        json.loads(record.read_text())  # every record that exists is complete
    assert len(list(out.glob("*.result.json"))) < len(pages)  # it did stop early
