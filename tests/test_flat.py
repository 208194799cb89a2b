"""Solved puzzles drawn flat (issue 22, item 5): ``kakuro solve --flat OUT.svg|pdf|png`` and the
answer key ``kakuro batch --answers`` (answers.pdf).

The truth is independent of the drawing code: a corpus puzzle's digits come from its published
``.sol`` file, a sample image's from solving its hand transcription; the numbers the PDF holds are
its text as pypdfium2 extracts it, and the SVG's are its <text> elements.
"""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image

import cli
from cli import ExitCode
from flat import AnswerEntry, write_answer_key, write_flat
from solver.formats import load_puzzle, parse_solution_grid
from solver.solve import solve_puzzle

from conftest import CORPUS, SAMPLES, SEEDS, load_transcription, read_tokens


def _published(name: str) -> tuple[Path, dict]:
    """A corpus puzzle file and its published solution."""
    return CORPUS / f"{name}.txt", parse_solution_grid((CORPUS / f"{name}.sol").read_text())


def _numbers(transcription: Path, solution: dict) -> list[str]:
    """Every number of the solved grid in reading order, from the transcription's tokens as written:
    a clue cell's down sum, then its across sum; a white cell's digit."""
    out = []
    for r, row in enumerate(read_tokens(transcription)):
        for c, token in enumerate(row):
            if "\\" in token:
                out += [n for n in token.split("\\") if n]
            elif token == "." or token.isdigit():
                out.append(str(solution[(r, c)]) if token == "." else token)
    return out


def _pdf_text(path: Path) -> list[str]:
    """Each page's text, as a PDF reader extracts it."""
    doc = pdfium.PdfDocument(path)
    try:
        return [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
    finally:
        doc.close()


def _compact(text: str) -> str:
    return "".join(text.split())


def _run(argv: list, capsys) -> int:
    code = cli.main(["-q", *map(str, argv)])
    capsys.readouterr()
    return code


def test_the_answer_key_holds_every_published_solution_in_reading_order(tmp_path):
    names = ["krazydad__k10_v1_b1_n1", "paucuesta9__diff2_6_12_0", "marcelgarus__30x30",
             "nikoli__Nikoli_Vol_137_Kakuro_No_5", "krazydad__k6_v1_b1_n1"]
    entries, expected = [], []
    for name in names:
        txt, sol = _published(name)
        entries.append(AnswerEntry("solved", load_puzzle(txt), sol, input=str(txt), index=1))
        expected.append("".join(_numbers(txt, sol)))
    entries.insert(2, AnswerEntry("unreadable", note="could not read row 3, column 5",
                                  input=str(CORPUS / "photo.jpg"), page=4, index=2))
    out = tmp_path / "answers.pdf"
    pages = write_answer_key(entries, out)

    texts = _pdf_text(out)
    assert len(texts) == pages >= 2  # a 30x30 and a 32x22 do not share one A4 page with the rest
    whole = _compact("".join(texts))
    at = [whole.find(numbers) for numbers in expected]
    assert all(i >= 0 for i in at), [n for n, i in zip(names, at) if i < 0]
    assert at == sorted(at)  # reading order of the book
    spaced = " ".join(" ".join(texts).split())
    for name in names:  # labelled by file (relative to the inputs' folder) and index
        assert f"{name}.txt, puzzle 1" in spaced
    assert "photo.jpg, page 4, puzzle 2 unreadable: could not read row 3, column 5" in spaced
    assert spaced.index("krazydad__k10") < spaced.index("photo.jpg") < spaced.index("marcelgarus")

    doc = pdfium.PdfDocument(out)  # every number lies on its page
    for i in range(len(doc)):
        width, height = doc[i].get_size()
        tp = doc[i].get_textpage()
        for k in range(tp.count_chars()):
            left, bottom, right, top = tp.get_charbox(k)
            assert 0 <= left <= right <= width and 0 <= bottom <= top <= height
    doc.close()


def test_solve_flat_draws_the_puzzle_as_pdf_svg_and_png(tmp_path, capsys):
    txt, sol = _published("krazydad__k10_v1_b1_n1")
    numbers = _numbers(txt, sol)
    for suffix in ("pdf", "svg"):
        assert _run(["solve", txt, "--flat", tmp_path / f"k10.{suffix}"], capsys) == ExitCode.ok
    (text,) = _pdf_text(tmp_path / "k10.pdf")
    assert _compact(text) == "".join(numbers)  # the grid alone: no label for one puzzle

    svg = ET.parse(tmp_path / "k10.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    assert [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")] == numbers

    wide, wide_sol = _published("paucuesta9__diff2_6_12_0")  # 6 rows, 12 columns
    assert _run(["solve", wide, "--flat", tmp_path / "wide.png"], capsys) == ExitCode.ok
    with Image.open(tmp_path / "wide.png") as im:
        gray = np.asarray(im.convert("L"))
        dpi = im.info["dpi"]
    rows, cols = np.nonzero(gray < 128)  # the grid: its border, dark clue cells and digits
    height, width = rows.max() - rows.min() + 1, cols.max() - cols.min() + 1
    assert width / height == pytest.approx(12 / 6, rel=0.02)
    assert width / 12 >= 40 and round(dpi[0]) == 200  # cells big enough to read, printed at 6 mm


def test_a_puzzle_not_solved_is_listed_with_its_status_not_drawn(tmp_path, capsys):
    puzzle = SEEDS / "montecarlo_5x5.txt"  # two solutions: no answer to draw
    assert _run(["solve", puzzle, "--flat", tmp_path / "two.pdf"], capsys) == ExitCode.ambiguous
    (text,) = _pdf_text(tmp_path / "two.pdf")
    assert " ".join(text.split()).startswith("ambiguous: more than one solution")
    published = "".join(_numbers(puzzle, parse_solution_grid((SEEDS / "montecarlo_5x5.sol").read_text())))
    assert published not in _compact(text)


def test_several_puzzles_on_one_page_are_labelled_in_order(tmp_path):
    entries = []
    for k, name in enumerate(["krazydad__k6_v1_b1_n1", "krazydad__k8_v1_b1_n1"], start=1):
        txt, sol = _published(name)
        entries.append(AnswerEntry("solved", load_puzzle(txt), sol, input="page.jpg", index=k))
    write_flat(entries, tmp_path / "two.svg")
    texts = [t.text for t in ET.parse(tmp_path / "two.svg").getroot().iter("{http://www.w3.org/2000/svg}text")]
    first, second = (_numbers(*_published(n)) for n in ["krazydad__k6_v1_b1_n1", "krazydad__k8_v1_b1_n1"])
    assert texts == ["page.jpg, puzzle 1", *first, "page.jpg, puzzle 2", *second]


def test_batch_answers_lists_every_puzzle_of_every_page_also_when_resumed(tmp_path, capsys):
    inbox = tmp_path / "in"
    inbox.mkdir()
    (inbox / "a_wikipedia_8x8.png").write_bytes((SAMPLES / "wikipedia_8x8.png").read_bytes())
    Image.open(SAMPLES / "site_5x5.png").convert("RGB").save(inbox / "b_book.pdf", resolution=72)
    (inbox / "c_notes.png").write_text("not a picture")
    out = tmp_path / "out"
    argv = ["batch", inbox, "--out", out, "--jobs", "1", "--dpi", "72", "--answers"]
    assert _run(argv, capsys) == ExitCode.partial_batch

    expected = []
    for sample in ("wikipedia_8x8.png", "site_5x5.png"):  # the truth: the transcription, solved
        puzzle = load_transcription(SAMPLES / sample)
        solution = solve_puzzle(puzzle, time_limit_s=30)
        assert solution.status == "unique"
        expected.append("".join(_numbers(SAMPLES / sample.replace(".png", ".txt"), solution.values)))

    def check() -> None:
        (text,) = _pdf_text(out / "answers.pdf")
        spaced, whole = " ".join(text.split()), _compact(text)
        labels = ["a_wikipedia_8x8.png, puzzle 1", "b_book.pdf, page 1, puzzle 1", "c_notes.png error:"]
        assert all(label in spaced for label in labels), spaced
        assert [spaced.index(label) for label in labels] == sorted(spaced.index(label) for label in labels)
        at = [whole.find(numbers) for numbers in expected]
        assert 0 <= at[0] < at[1]
        assert os.stat(out / "answers.pdf").st_mode & 0o777 == 0o666 & ~_umask()

    check()
    records = {p: p.stat().st_mtime_ns for p in out.glob("*.result.json")}
    (out / "answers.pdf").unlink()
    assert _run(argv, capsys) == ExitCode.partial_batch  # every page done: all skipped
    assert {p: p.stat().st_mtime_ns for p in out.glob("*.result.json")} == records
    check()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_a_flat_drawing_needs_svg_pdf_or_png_and_is_refused_before_any_work(tmp_path, capsys):
    txt, _ = _published("krazydad__k6_v1_b1_n1")
    for name in ("answer.jpg", "answer"):
        assert _run(["solve", txt, "--flat", tmp_path / name], capsys) == ExitCode.bad_args
    # the suffix is judged first: a missing input is not even looked for
    assert _run(["solve", tmp_path / "missing.png", "--flat", tmp_path / "a.gif"], capsys) == ExitCode.bad_args
    assert cli.main(["solve", str(txt), "--flat", str(tmp_path / "a.jpeg")]) == ExitCode.bad_args
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and ".svg, .pdf or .png" in err
    assert list(tmp_path.iterdir()) == []
