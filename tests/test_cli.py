"""The command line: exit codes, JSON contract, outputs, one-line errors."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import cv2
import numpy as np
import pytest

import cli
from cli import ExitCode

from conftest import ROOT, SAMPLES


def run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_image_writes_annotated_image_and_json(tmp_path, capsys):
    src = tmp_path / "in.png"
    shutil.copy(SAMPLES / "site_7x7.png", src)
    before = src.read_bytes()
    out_png = tmp_path / "solved.png"
    code, out, err = run(["solve", src, "-o", out_png, "--json"], capsys)
    assert code == ExitCode.ok, err
    doc = json.loads(out)  # stdout carries exactly one JSON object
    assert doc["input"] == str(src)
    (puzzle,) = doc["puzzles"]
    assert puzzle["status"] == "solved" and puzzle["unique"] is True
    assert (puzzle["rows"], puzzle["cols"]) == (7, 7)
    assert len(puzzle["grid"]) == 7 and len(puzzle["solution"]) == 7
    assert len(puzzle["corners"]) == 4
    for r, row in enumerate(puzzle["grid"]):
        for c, token in enumerate(row):
            assert (token == ".") == (puzzle["solution"][r][c] is not None)
    drawn = cv2.imread(str(out_png))
    original = cv2.imread(str(src))
    assert drawn.shape == original.shape
    assert np.abs(drawn.astype(int) - original.astype(int)).sum() > 0  # digits were drawn
    assert src.read_bytes() == before  # the input is never modified
    assert not list(tmp_path.glob(".*"))  # no temporary files left behind


def test_debug_writes_one_picture_per_stage(tmp_path, capsys):
    code, _, err = run(["solve", SAMPLES / "wikipedia_8x8.png", "-o", tmp_path / "o.png", "--debug", tmp_path / "dbg"],
                       capsys)
    assert code == ExitCode.ok, err
    names = sorted(p.name for p in (tmp_path / "dbg").iterdir())
    for stage in ("grids", "lattice", "classes", "clues"):
        assert any(stage in n for n in names), names


def test_debug_without_a_grid_shows_the_ink_the_locator_searched(tmp_path, capsys):
    src = tmp_path / "paper.png"
    rng = np.random.default_rng(0)
    cv2.imwrite(str(src), (200 + rng.integers(0, 40, (300, 400, 3))).astype(np.uint8))
    code, _, err = run(["solve", src, "-o", tmp_path / "o.png", "--debug", tmp_path / "dbg"], capsys)
    assert code == ExitCode.grid_not_found
    assert "no puzzle grid found" in err
    names = sorted(p.name for p in (tmp_path / "dbg").iterdir())
    assert names == ["paper-1-grids.png", "paper-1-ink.png"]
    assert not (tmp_path / "o.png").exists()


def test_inconsistent_clues_exit_unsolvable(tmp_path, capsys):
    code, out, err = run(["solve", SAMPLES / "magazine_10x10_unbalanced.png", "-o", tmp_path / "o.png", "--json"],
                         capsys)
    doc = json.loads(out)
    (puzzle,) = doc["puzzles"]
    # As printed, the across clues total 222 and the down clues 220 (../shared/images/README.md):
    # no solution exists, and the verdict says so (every clue read clearly, no reading the rules
    # allow), with the totals.
    assert puzzle["status"] == "unsolvable" and code == ExitCode.unsolvable
    assert "222" in puzzle["problems"][0] and "220" in puzzle["problems"][0]
    assert (tmp_path / "o.png").exists()  # the read grid is still shown, with the trouble marked


@pytest.mark.parametrize("content, expected", [
    (b"", ExitCode.input_file),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", ExitCode.input_file),  # truncated PNG
    (bytes(range(256)) * 8, ExitCode.input_file),  # binary junk
])
def test_bad_files_get_one_line_errors(tmp_path, capsys, content, expected):
    bad = tmp_path / "bad.png"
    bad.write_bytes(content)
    code, out, err = run(["solve", bad, "-o", tmp_path / "o.png"], capsys)
    assert code == expected
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and str(bad) in lines[0], err
    assert not (tmp_path / "o.png").exists()


def test_text_saved_under_an_image_name_is_called_no_image(tmp_path, capsys):
    """A web page or an error message saved as PHOTO.jpg: the message says the file is no image
    (it used to quote the text's first word as a puzzle's unknown token)."""
    bad = tmp_path / "photo.jpg"
    bad.write_text("<html><body>404 Not Found</body></html>\n")
    code, _, err = run(["solve", bad, "-o", tmp_path / "o.png"], capsys)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == ExitCode.input_file
    assert len(lines) == 1 and str(bad) in lines[0] and "not an image" in lines[0], err
    assert not (tmp_path / "o.png").exists()


def test_missing_file(tmp_path, capsys):
    code, _, err = run(["solve", tmp_path / "nope.jpg"], capsys)
    assert code == ExitCode.input_file and "nope.jpg" in err


def test_image_of_something_else_says_no_grid(tmp_path, capsys):
    rng = np.random.default_rng(0)
    noise = cv2.GaussianBlur((rng.random((400, 600, 3)) * 255).astype(np.uint8), (9, 9), 0)
    cv2.circle(noise, (300, 200), 120, (20, 20, 20), -1)
    path = tmp_path / "photo.jpg"
    cv2.imwrite(str(path), noise)
    code, _, err = run(["solve", path, "-o", tmp_path / "o.png"], capsys)
    assert code == ExitCode.grid_not_found
    assert "photo.jpg" in err and "grid" in err


def test_puzzle_files(capsys, tmp_path):
    code, out, _ = run(["solve", SAMPLES / "evolutionary_easy.txt"], capsys)
    assert code == ExitCode.ok and "\\17" in out
    code, out, _ = run(["solve", "--json", SAMPLES / "evolutionary_easy.txt"], capsys)
    assert json.loads(out)["puzzles"][0]["unique"] is True
    bad = tmp_path / "bad.txt"
    bad.write_text("#  3\\\n\\4 . .\n")
    code, _, err = run(["solve", bad], capsys)
    assert code == ExitCode.input_file and "row 2 has 3 cells" in err


def test_combos(capsys):
    code, out, _ = run(["combos", "16", "2"], capsys)
    assert code == ExitCode.ok and "7 9" in out
    code, out, _ = run(["combos", "51", "2"], capsys)
    assert code == ExitCode.unsolvable and "3..17" in out


def test_bad_args(capsys):
    assert cli.main(["solve"]) == ExitCode.bad_args


def test_console_script_smoke(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "cli.py"), "solve", str(SAMPLES / "site_5x5.png"),
                           "-o", str(tmp_path / "o.png"), "--json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["puzzles"][0]["status"] == "solved"


def test_huge_image_is_refused_before_decoding(tmp_path, capsys):
    import struct
    import zlib

    # A PNG header claiming 30000 x 30000 pixels (900 MP): refused from the header, never decoded.
    ihdr = struct.pack(">IIBBBBB", 30000, 30000, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    data = b"IDAT" + zlib.compress(b"\x00" * 64)
    png = (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk + struct.pack(">I", zlib.crc32(chunk))
           + struct.pack(">I", len(data) - 4) + data + struct.pack(">I", zlib.crc32(data)))
    path = tmp_path / "huge.png"
    path.write_bytes(png)
    code, _, err = run(["solve", path, "-o", tmp_path / "o.png"], capsys)
    assert code == ExitCode.input_file
    assert "huge.png" in err and "too large" in err


def test_pdf_goes_to_batch(capsys):
    code, _, err = run(["solve", SAMPLES / "printable_4x7x7_with_givens_a.pdf"], capsys)
    assert code == ExitCode.input_file and "kakuro batch" in err


def test_cp_sat_loads_without_pandas_and_pandas_stays_importable():
    # OR-Tools' cp_model imports pandas (half a second of every command) for helpers the solver
    # never calls. Loaded through solver.cpsat it must solve without pandas, and leave a later
    # ``import pandas`` the real one.
    code = """
import sys
from solver.cpsat import cp_model
cp = cp_model()
model = cp.CpModel()
x, y = model.NewIntVar(1, 9, "x"), model.NewIntVar(1, 9, "y")
model.Add(x + y == 17)
model.AddAllDifferent([x, y])
solver = cp.CpSolver()
assert solver.Solve(model) == cp.OPTIMAL
print(sorted([solver.Value(x), solver.Value(y)]), "pandas" in sys.modules)
import pandas
print(callable(pandas.DataFrame), pandas.DataFrame({"a": [1, 2]})["a"].sum())
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["[8, 9] False", "True 3"]
