"""The command-line and file contract the README promises: exit codes, JSON values, atomic writes,
a resumed batch's summary. Expected values come from the README and from brute force, never from
the program's own output."""
from __future__ import annotations

import csv
import itertools
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import cli
from cli import ExitCode
from pipeline import PuzzleResult, Status
from solver.formats import parse_puzzle
from solver.model import Solution
from solver.reconcile import Correction

from conftest import ROOT, SAMPLES

#: 2x2 puzzles (clue row and column around four white cells): across sums, down sums.
AMBIGUOUS = "#   3\\  3\\\n\\3  .   .\n\\3  .   .\n"
NO_SOLUTION = "#   4\\  4\\\n\\3  .   .\n\\5  .   .\n"
IMPOSSIBLE_CLUE = "#   30\\ 3\\\n\\3  .   .\n\\4  .   .\n"


def _brute_force(across, down):
    """Every filling of a 2x2 block of white cells with these run sums (digits 1-9, distinct in
    each run): the independent truth for the small puzzles above."""
    out = []
    for a, b, c, d in itertools.product(range(1, 10), repeat=4):
        if (a != b and c != d and a != c and b != d and (a + b, c + d) == across and (a + c, b + d) == down):
            out.append(((a, b), (c, d)))
    return out


def run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_the_small_puzzles_are_what_their_names_say():
    assert len(_brute_force((3, 3), (3, 3))) == 2
    assert _brute_force((3, 5), (4, 4)) == []


def test_ambiguous_puzzle_exits_1_with_unique_false_and_one_of_its_solutions(tmp_path, capsys):
    code, out, _ = run(["solve", "--json", _write(tmp_path, "amb.txt", AMBIGUOUS)], capsys)
    assert code == ExitCode.ambiguous == 1
    (doc,) = json.loads(out)["puzzles"]
    assert doc["status"] == "ambiguous" and doc["unique"] is False
    block = tuple(tuple(row[1:]) for row in doc["solution"][1:])
    assert block in _brute_force((3, 3), (3, 3))


def test_puzzle_without_solution_exits_5_with_no_solution(tmp_path, capsys):
    code, out, _ = run(["solve", "--json", _write(tmp_path, "none.txt", NO_SOLUTION)], capsys)
    assert code == ExitCode.unsolvable == 5
    (doc,) = json.loads(out)["puzzles"]
    assert doc["status"] == "unsolvable" and doc["solution"] is None and doc["unique"] is None


def test_puzzle_file_breaking_the_rules_exits_9_naming_file_and_cell(tmp_path, capsys):
    path = _write(tmp_path, "bad.txt", IMPOSSIBLE_CLUE)
    code, _, err = run(["solve", path], capsys)
    assert code == ExitCode.invalid_puzzle == 9
    (line,) = [ln for ln in err.splitlines() if ln.strip()]
    assert str(path) in line and "row 1, column 2" in line and "30" in line


def test_solved_puzzle_exits_0_with_unique_true_and_the_brute_force_solution(tmp_path, capsys):
    text = "#   4\\  3\\\n\\3  .   .\n\\4  .   .\n"
    (truth,) = _brute_force((3, 4), (4, 3))
    code, out, _ = run(["solve", "--json", _write(tmp_path, "one.txt", text)], capsys)
    assert code == ExitCode.ok == 0
    (doc,) = json.loads(out)["puzzles"]
    assert doc["status"] == "solved" and doc["unique"] is True
    assert tuple(tuple(row[1:]) for row in doc["solution"][1:]) == truth


def test_check_says_how_many_solutions(tmp_path, capsys):
    code, out, _ = run(["check", _write(tmp_path, "amb.txt", AMBIGUOUS)], capsys)
    assert code == ExitCode.ambiguous
    assert "more than one solution" in out and "(2,2)" in out
    code, out, _ = run(["check", _write(tmp_path, "none.txt", NO_SOLUTION)], capsys)
    assert code == ExitCode.unsolvable
    code, out, _ = run(["check", _write(tmp_path, "one.txt", "#   4\\  3\\\n\\3  .   .\n\\4  .   .\n")], capsys)
    assert code == ExitCode.ok and "exactly one solution" in out


def test_json_corrections_count_rows_and_columns_from_1():
    puzzle = parse_puzzle(AMBIGUOUS)
    res = PuzzleResult("unreadable", puzzle, None,
                       corrections=(Correction((0, 2), "down", 8, 3, True),))
    (row,) = res.to_json()["corrections"]
    assert (row["row"], row["col"], row["direction"], row["read"], row["used"], row["forced"], row["by"]) == (
        1, 3, "down", 8, 3, True, "rules")


def test_outputs_replace_the_old_file_by_renaming_never_writing_into_it(tmp_path, capsys):
    """An output written in place keeps its inode while it is half-written; the promised
    temporary file and rename gives the name a new file, whole or not at all."""
    src = tmp_path / "in.png"
    shutil.copy(SAMPLES / "site_5x5.png", src)
    out = tmp_path / "out.png"
    out.write_bytes(b"old")
    inode = out.stat().st_ino
    code, _, _ = run(["solve", src, "-o", out], capsys)
    assert code == ExitCode.ok
    assert out.stat().st_ino != inode
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def _summary(out: Path):
    with open(out / "summary.csv", newline="") as f:
        rows = [(r["input"], r["page"], r["index"], r["status"]) for r in csv.DictReader(f)]
    doc = [(r["input"], str(r["page"]), str(r["index"]), r["status"])
           for r in json.loads((out / "summary.json").read_text())]
    return rows, doc


def test_a_resumed_batch_keeps_the_done_pages_in_its_summary(tmp_path):
    inbox = tmp_path / "in"
    inbox.mkdir()
    for name in ("site_5x5.png", "site_7x7.png"):
        shutil.copy(SAMPLES / name, inbox / name)
    out = tmp_path / "out"
    assert cli.main(["batch", str(inbox), "--out", str(out), "--jobs", "1"]) == ExitCode.ok
    first_csv, first_json = _summary(out)
    assert sorted(Path(r[0]).name for r in first_csv) == ["site_5x5.png", "site_7x7.png"]
    assert all(r[3] == "solved" for r in first_csv)
    # A second run skips both pages, as done; its summary still lists them.
    assert cli.main(["batch", str(inbox), "--out", str(out), "--jobs", "1"]) == ExitCode.ok
    assert _summary(out) == (first_csv, first_json)


@pytest.mark.parametrize("status, code", [("solved", 0), ("ambiguous", 1), ("unsolvable", 5), ("unreadable", 8),
                                          ("answer-key", 0)])
def test_every_status_maps_to_its_documented_exit_code(status, code):
    readme = (ROOT / "README.md").read_text()
    assert f"| {code} |" in readme
    assert int(Status(status).exit_code) == code


def test_solve_without_o_writes_stem_solved_png_in_the_current_folder(tmp_path, capsys, monkeypatch):
    src = tmp_path / "photos" / "grid.png"
    src.parent.mkdir()
    shutil.copy(SAMPLES / "site_5x5.png", src)
    monkeypatch.chdir(tmp_path)
    code, _, _ = run(["solve", src], capsys)
    assert code == ExitCode.ok
    assert (tmp_path / "grid.solved.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in src.parent.iterdir()) == ["grid.png"]  # nothing beside the input


def test_quiet_leaves_only_errors_and_verbose_adds_detail(tmp_path, capsys):
    puzzle = _write(tmp_path, "one.txt", "#   4\\  3\\\n\\3  .   .\n\\4  .   .\n")
    code, out, err = run(["-q", "solve", puzzle], capsys)
    assert code == ExitCode.ok and err == "" and "\\3" in out
    code, _, err = run(["solve", puzzle], capsys)
    assert "solved; the solution is unique" in err
    code, _, err = run(["-q", "solve", _write(tmp_path, "bad.txt", IMPOSSIBLE_CLUE)], capsys)
    assert code == ExitCode.invalid_puzzle and "bad.txt" in err  # errors still show
    image = tmp_path / "in.png"
    shutil.copy(SAMPLES / "site_5x5.png", image)
    _, _, plain = run(["solve", image, "-o", tmp_path / "a.png"], capsys)
    _, _, detailed = run(["-v", "solve", image, "-o", tmp_path / "b.png"], capsys)
    assert len(detailed.splitlines()) > len(plain.splitlines())


def test_batch_json_lists_every_row_and_fail_fast_stops_at_the_first_failure(tmp_path, capsys):
    inbox = tmp_path / "in"
    inbox.mkdir()
    shutil.copy(SAMPLES / "site_5x5.png", inbox / "a.png")
    (inbox / "b.png").write_text("not an image")
    shutil.copy(SAMPLES / "site_7x7.png", inbox / "c.png")
    code, out, _ = run(["batch", inbox, "--out", tmp_path / "all", "--jobs", "1", "--json"], capsys)
    assert code == ExitCode.partial_batch == 6
    doc = json.loads(out)
    assert doc["out"] == str(tmp_path / "all")
    assert [(Path(r["input"]).name, r["status"]) for r in doc["rows"]] == [
        ("a.png", "solved"), ("b.png", "error"), ("c.png", "solved")]
    code, _, _ = run(["batch", inbox, "--out", tmp_path / "fast", "--jobs", "1", "--fail-fast"], capsys)
    assert code == ExitCode.partial_batch
    with open(tmp_path / "fast" / "summary.csv", newline="") as f:
        assert [Path(r["input"]).name for r in csv.DictReader(f)] == ["a.png", "b.png"]


def test_a_tiny_time_limit_still_answers_a_small_puzzle(tmp_path, capsys):
    puzzle = _write(tmp_path, "one.txt", "#   4\\  3\\\n\\3  .   .\n\\4  .   .\n")
    code, out, _ = run(["solve", "--json", "--time-limit", "0.01", puzzle], capsys)
    assert code == ExitCode.ok and json.loads(out)["puzzles"][0]["status"] == "solved"


def _solution_rows(text: str) -> list[list[str]]:
    """The white cells' digits of a printed grid, row by row (the clue row and column dropped)."""
    return [line.split()[1:] for line in text.strip().splitlines()[1:]]


def test_check_prints_the_solutions_and_the_cells_where_they_differ(tmp_path, capsys):
    """`kakuro check` for setters: the grid's size, then the solution, or two solutions and where
    they differ (rows and columns from 1), or why there is none; its exit code as `solve`'s."""
    code, out, _ = run(["check", _write(tmp_path, "one.txt", "#   4\\  3\\\n\\3  .   .\n\\4  .   .\n")], capsys)
    head, verdict, *grid = out.splitlines()
    assert code == 0 and head.endswith("one.txt: valid, 4 white cells, 4 runs") and verdict == "exactly one solution:"
    (truth,) = _brute_force((3, 4), (4, 3))
    assert _solution_rows("\n".join(grid)) == [[str(d) for d in row] for row in truth]

    code, out, _ = run(["check", _write(tmp_path, "amb.txt", AMBIGUOUS)], capsys)
    lines = out.splitlines()
    assert code == 1 and lines[1] == "more than one solution; two of them:"
    first, second = "\n".join(lines[2:5]), "\n".join(lines[6:9])
    fillings = {tuple(tuple(str(d) for d in row) for row in f) for f in _brute_force((3, 3), (3, 3))}
    assert {tuple(map(tuple, _solution_rows(first))), tuple(map(tuple, _solution_rows(second)))} == fillings
    assert lines[9] == "they differ at (row, column): (2,2), (2,3), (3,2), (3,3)"

    code, out, _ = run(["check", _write(tmp_path, "none.txt", NO_SOLUTION)], capsys)
    assert code == 5 and out.splitlines()[1:] == ["no assignment of digits satisfies every clue"]
    code, _, err = run(["check", _write(tmp_path, "bad.txt", IMPOSSIBLE_CLUE)], capsys)
    assert code == 9 and "bad.txt" in err
    code, out, err = run(["check", SAMPLES / "site_5x5.png"], capsys)
    assert code == 3 and out == "" and "site_5x5.png" in err and "puzzle file" in err


def test_json_problems_say_why_a_puzzle_file_is_not_solved(tmp_path, capsys):
    """`problems`: empty when solved; otherwise the reason, naming cells from 1."""
    docs = {}
    for name, text in (("one", "#   4\\  3\\\n\\3  .   .\n\\4  .   .\n"), ("amb", AMBIGUOUS), ("none", NO_SOLUTION)):
        _, out, _ = run(["solve", "--json", _write(tmp_path, f"{name}.txt", text)], capsys)
        (docs[name],) = json.loads(out)["puzzles"]
    assert docs["one"]["problems"] == []
    (ambiguous,) = docs["amb"]["problems"]
    assert ambiguous.startswith("more than one solution") and ambiguous.endswith("(2,2), (2,3), (3,2), (3,3)")
    (none,) = docs["none"]["problems"]
    assert "no assignment of digits" in none
    assert [d["kind"] for d in docs.values()] == ["puzzle"] * 3
    assert all(d["corners"] is None and d["corrections"] == [] and d["written"] == [] for d in docs.values())
    assert [(d["rows"], d["cols"]) for d in docs.values()] == [(3, 3)] * 3
    assert docs["one"]["grid"] == [["#", "4\\", "3\\"], ["\\3", ".", "."], ["\\4", ".", "."]]


@pytest.mark.parametrize("total, length", [(16, 2), (5, 2), (8, 3), (23, 3), (20, 4), (45, 9), (7, 1)])
def test_combos_lists_every_combination_and_the_digits_common_to_all(total, length, capsys):
    truth = [k for k in itertools.combinations(range(1, 10), length) if sum(k) == total]
    code, out, _ = run(["combos", total, length], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0] == f"{total} in {length}: {len(truth)} combination(s)"
    assert [tuple(int(d) for d in line.split()) for line in lines[1:-1]] == truth
    common = sorted(set(truth[0]).intersection(*truth[1:]))
    assert lines[-1] == "in every combination: " + (" ".join(map(str, common)) if common else "none")


@pytest.mark.parametrize("total, length, code", [(10, 1, 5), (2, 2, 5), (46, 9, 5), (5, 0, 3), (50, 10, 3)])
def test_combos_of_an_impossible_sum_or_length_says_so(total, length, code, capsys):
    got, out, err = run(["combos", total, length], capsys)
    assert got == code
    if code == 5:  # the smallest and largest sums of that many distinct digits, by brute force
        sums = [sum(k) for k in itertools.combinations(range(1, 10), length)]
        assert out.strip() == f"{total} in {length}: impossible (a run of {length} sums to {min(sums)}..{max(sums)})"
    else:
        assert out == "" and len(err.strip().splitlines()) == 1 and "1 to 9" in err


def test_the_json_output_solves_again_as_a_puzzle_file(tmp_path, capsys):
    """A misread clue is fixed by editing the JSON and solving that file (README): the output of
    `solve --json` is itself a puzzle file, its first puzzle the one solved."""
    _, out, _ = run(["solve", "--json", _write(tmp_path, "one.txt", "#   4\\  3\\\n\\3  .   .\n\\4  .   .\n")], capsys)
    doc = json.loads(out)
    doc["puzzles"][0]["grid"][1][0] = "\\4"  # edited: across 4 and 3 instead of 3 and 4
    doc["puzzles"][0]["grid"][2][0] = "\\3"
    (truth,) = _brute_force((4, 3), (4, 3))
    code, out, _ = run(["solve", "--json", _write(tmp_path, "edited.json", json.dumps(doc))], capsys)
    assert code == 0
    (again,) = json.loads(out)["puzzles"]
    assert tuple(tuple(row[1:]) for row in again["solution"][1:]) == truth


def test_json_of_an_answer_key_and_of_a_page_with_written_entries():
    """The README's JSON fields an image gives, value by value: an answer key (its digits in
    `solution`, `unique` null, `answer_to` counting puzzles from 1), corners in pixels to 0.1,
    the player's `written` digits with rows and columns from 1."""
    puzzle = parse_puzzle("#   4\\  3\\\n\\3  .   .\n\\4  .   .\n")
    (truth,) = _brute_force((3, 4), (4, 3))
    values = {(r + 1, c + 1): d for r, row in enumerate(truth) for c, d in enumerate(row)}
    corners = np.array([[10.36, 20.06], [110.0, 20.0], [110.0, 120.0], [10.0, 120.0]], np.float32)
    key = PuzzleResult("answer-key", puzzle, Solution("unique", values), corners_xy=corners,
                       answer_to=(2, True)).to_json()
    assert (key["status"], key["kind"], key["unique"]) == ("answer-key", "answer-key", None)
    assert key["solution"] == [[None, None, None], [None, *truth[0]], [None, *truth[1]]]
    assert key["answer_to"] == {"puzzle": 3, "agrees": True}
    assert key["corners"] == [[10.4, 20.1], [110.0, 20.0], [110.0, 120.0], [10.0, 120.0]]
    assert (key["rows"], key["cols"]) == (3, 3)
    page = PuzzleResult("solved", puzzle, Solution("unique", values), seconds=0.12345,
                        written=(((1, 2), 2, True), ((2, 1), 9, False))).to_json()
    assert (page["kind"], page["unique"], page["answer_to"], page["seconds"]) == ("puzzle", True, None, 0.123)
    assert page["written"] == [{"row": 2, "col": 3, "digit": 2, "correct": True},
                               {"row": 3, "col": 2, "digit": 9, "correct": False}]


def test_solve_prints_the_grid_with_its_solution_and_says_the_verdict(tmp_path, capsys):
    """Without --json, stdout is the puzzle in the text format with the solution filled in (one
    of them when ambiguous, none when there is none); stderr says which it is."""
    one = _write(tmp_path, "one.txt", "#   4\\  3\\\n\\3  .   .\n\\4  .   .\n")
    (truth,) = _brute_force((3, 4), (4, 3))
    code, out, err = run(["solve", one], capsys)
    assert code == 0 and "the solution is unique" in err
    assert parse_puzzle(out) == parse_puzzle(one.read_text()).with_givens(
        {(r + 1, c + 1): d for r, row in enumerate(truth) for c, d in enumerate(row)})
    code, out, err = run(["solve", _write(tmp_path, "amb.txt", AMBIGUOUS)], capsys)
    filled = parse_puzzle(out)
    assert code == 1 and "NOT unique" in err
    block = tuple(tuple(filled.given_at[r, c] for c in (1, 2)) for r in (1, 2))
    assert block in _brute_force((3, 3), (3, 3))
    code, out, err = run(["solve", _write(tmp_path, "none.txt", NO_SOLUTION)], capsys)
    assert code == 5 and parse_puzzle(out) == parse_puzzle(NO_SOLUTION) and "no solution" in err
    assert "no assignment of digits" in err  # the reason, as a warning


def test_json_names_the_input_and_a_time_in_seconds(tmp_path, capsys):
    path = _write(tmp_path, "one.txt", "#   4\\  3\\\n\\3  .   .\n\\4  .   .\n")
    _, out, _ = run(["solve", "--json", path], capsys)
    doc = json.loads(out)
    assert set(doc) == {"input", "seconds", "puzzles"} and doc["input"] == str(path)
    assert isinstance(doc["seconds"], float) and isinstance(doc["puzzles"][0]["seconds"], float)


def test_errors_name_the_file_once_and_minus_vv_adds_the_traceback(tmp_path, capsys):
    bad = _write(tmp_path, "bad.txt", IMPOSSIBLE_CLUE)
    code, _, err = run(["solve", bad], capsys)
    (line,) = err.splitlines()
    assert code == 9 and line.count(str(bad)) == 1
    code, _, err = run(["-vv", "solve", bad], capsys)
    assert code == 9 and "Traceback" in err and err.splitlines()[0] == line
    code, _, err = run(["-v", "solve", bad], capsys)
    assert code == 9 and "Traceback" not in err
    code, _, err = run(["solve", tmp_path], capsys)  # a folder
    assert code == 3 and err.count(str(tmp_path)) == 1 and "kakuro batch" in err
    code, _, err = run(["combos", "5", "0"], capsys)  # no file involved: none named
    assert code == 3 and err.startswith("kakuro: length 0")


def test_help_exits_0(capsys):
    assert cli.main(["--help"]) == 0 and "solve" in capsys.readouterr().out


def test_a_puzzle_file_saved_with_a_byte_order_mark_is_read(tmp_path, capsys):
    path = tmp_path / "bom.txt"
    path.write_bytes("#   4\\  3\\\n\\3  .   .\n\\4  .   .\n".encode("utf-8-sig"))
    assert path.read_bytes()[:3] == b"\xef\xbb\xbf"
    code, _, _ = run(["solve", path], capsys)
    assert code == 0


def test_a_broken_json_puzzle_file_exits_3_naming_the_file(tmp_path, capsys):
    bad = _write(tmp_path, "bad.json", '{"grid": [["#", "3\\\\"]')
    code, _, err = run(["solve", bad], capsys)
    (line,) = err.splitlines()
    assert code == 3 and line.count(str(bad)) == 1 and "invalid JSON" in line


@pytest.mark.parametrize("name, problem", [("missing.png", "file not found; check the path"),
                                           ("folder", "is a folder; use `kakuro batch` for folders"),
                                           ("book.pdf", "is a PDF; use `kakuro batch FILE.pdf --out DIR` for PDF pages")])
def test_inputs_solve_cannot_take_are_named_with_what_to_do(tmp_path, capsys, name, problem):
    path = tmp_path / name
    if name == "folder":
        path.mkdir()
    elif name == "book.pdf":
        shutil.copy(SAMPLES / "printable_4x7x7_with_givens_a.pdf", path)
    code, out, err = run(["solve", path], capsys)
    assert code == 3 and out == "" and err == f"kakuro: {path}: {problem}\n"


def test_the_readmes_python_example_runs_on_an_array_and_prints_the_published_digit(tmp_path, monkeypatch, capsys):
    # The README's "Python API" block, run as written, from a folder of its own so that its output
    # lands there. The truth: the published solution of Wikipedia's example puzzle (this sample)
    # has 9 in row 2, column 2.
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Python API"):]
    start = section.index("```python") + len("```python")
    code = section[start: section.index("```", start)]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "samples").symlink_to(SAMPLES)
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.split() == ["9"]
    assert (tmp_path / "annotated.png").stat().st_size > 1000
