"""The web API's contract (README, "Web API"), value by value: every verdict a puzzle can get
(solved, ambiguous, unreadable, answer-key here; invalid and unsolvable in test_web.py), every
documented field of ``/api/read``, ``/api/solve``, ``/api/hint`` and ``/api/check``, and the
one-line JSON errors.

Truths are independent of the program: the transcriptions in ``samples/`` and ``tests/data``
(tokens split from the text as written), the seed boards' published solutions (``*.sol``) and
published difficulty order, a brute-force count of fillings (``checks.py``), run sums and digit
combinations recomputed here, the printed totals of the magazine grid (its README), the images'
own sizes. Uploads, read errors and the oversize limit are in test_web.py.
"""
from __future__ import annotations

import base64
import io
import itertools
import re
import warnings
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

pytest.importorskip("fastapi", reason="the web page needs fastapi (pip install -e .)")
pytest.importorskip("multipart", reason="uploads need python-multipart (pip install -e .)")
pytest.importorskip("httpx", reason="the API tests need httpx")

with warnings.catch_warnings():  # starlette suggests httpx2 for its TestClient; httpx still works
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

from solver.formats import load_puzzle, parse_puzzle, parse_solution_grid  # noqa: E402
from web.app import create_app  # noqa: E402

from checks import count_fillings, filling_problems  # noqa: E402
from conftest import IMAGES, ROOT, SAMPLES, SEEDS, read_tokens  # noqa: E402

#: Every verdict the API gives: the README's statuses, and ``invalid`` for a grid that breaks the rules.
VERDICTS = {"solved", "ambiguous", "unsolvable", "unreadable", "answer-key", "invalid"}


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(), raise_server_exceptions=False) as c:
        yield c


def _upload(client, path: Path):
    with open(path, "rb") as f:
        return client.post("/api/read", files={"file": (path.name, f, "application/octet-stream")})


def _runs(tokens: list[list[str]]) -> set[tuple]:
    """(row, col, direction, total, cells) of every clue, from 1, walked over the tokens."""
    out = set()
    for r, row in enumerate(tokens):
        for c, token in enumerate(row):
            if "\\" not in token:
                continue
            down, across = token.split("\\")
            for total, direction, (dr, dc) in ((down, "down", (1, 0)), (across, "across", (0, 1))):
                if not total:
                    continue
                cells, rr, cc = [], r + dr, c + dc
                while rr < len(tokens) and cc < len(row) and (tokens[rr][cc] == "." or tokens[rr][cc].isdigit()):
                    cells.append((rr + 1, cc + 1))
                    rr, cc = rr + dr, cc + dc
                out.add((r + 1, c + 1, direction, int(total), tuple(cells)))
    return out


def _combos(total: int, length: int) -> list[list[int]]:
    return [list(k) for k in itertools.combinations(range(1, 10), length) if sum(k) == total]


def _values(solution: list[list[int | None]]) -> dict[tuple[int, int], int]:
    return {(r, c): d for r, row in enumerate(solution) for c, d in enumerate(row) if d is not None}


def _png_size(client, url: str) -> tuple[int, int]:
    resp = client.get(url)
    assert resp.status_code == 200 and resp.headers["content-type"] == "image/png"
    image = cv2.imdecode(np.frombuffer(resp.content, np.uint8), cv2.IMREAD_COLOR)
    return image.shape[:2]


def _checks_hold(checks: dict, tokens: list[list[str]]) -> None:
    """``checks`` of a valid grid, against runs, totals and combinations recomputed here."""
    runs = _runs(tokens)
    assert checks["ok"] is True and checks["problems"] == []
    assert (checks["rows"], checks["cols"]) == (len(tokens), len(tokens[0]))
    assert {(r["row"], r["col"], r["direction"], r["total"], tuple(map(tuple, r["cells"]))) for r in checks["runs"]} == runs
    for run in checks["runs"]:
        combos = _combos(run["total"], run["length"])
        assert run["length"] == len(run["cells"]) and run["ok"] is True
        assert (run["combos"], run["n_combos"]) == (combos[:12], len(combos))
    assert checks["across"] == sum(t for _, _, d, t, _ in runs if d == "across")
    assert checks["down"] == sum(t for _, _, d, t, _ in runs if d == "down")


# ---------------------------------------------------------------------------------------------
# POST /api/read


def test_read_gives_the_transcription_its_one_solution_and_every_field(client):
    path = SAMPLES / "site_7x7.png"
    truth = load_puzzle(SAMPLES / "site_7x7.txt")
    tokens = read_tokens(SAMPLES / "site_7x7.txt")
    assert count_fillings(truth, limit=2) == 1  # the transcription has exactly one solution
    width, height = Image.open(path).size

    resp = _upload(client, path)
    assert resp.status_code == 200, resp.text
    doc = resp.json()
    assert set(doc) == {"input", "seconds", "photo", "annotated", "progress", "puzzles"}
    assert doc["input"] == "site_7x7.png" and isinstance(doc["seconds"], float)
    assert doc["progress"] is None  # nothing written in its white cells: no entries to check
    photo = doc["photo"]
    assert (photo["width"], photo["height"]) == (width, height) and re.fullmatch(r"[0-9a-f]{32}", photo["id"])
    assert photo["preview"].startswith("data:image/jpeg;base64,")
    preview = Image.open(io.BytesIO(base64.b64decode(photo["preview"].split(",", 1)[1])))
    assert preview.format == "JPEG" and preview.size == (width, height)  # under 1600 px: not shrunk
    assert _png_size(client, doc["annotated"]) == (height, width)

    (p,) = doc["puzzles"]
    assert (p["status"], p["kind"], p["unique"]) == ("solved", "puzzle", True)
    assert (p["rows"], p["cols"], p["grid"]) == (len(tokens), len(tokens[0]), tokens)
    values = _values(p["solution"])
    assert filling_problems(truth, values) == []  # a filling of the truth, and it has only one
    assert [[None if (r, c) not in values else values[r, c] for c in range(len(tokens[0]))]
            for r in range(len(tokens))] == p["solution"]
    assert (p["corrections"], p["problems"], p["written"], p["answer_to"], p["suspects"]) == ([], [], [], None, [])
    (tlx, tly), (trx, try_), (brx, bry), (blx, bly) = p["corners"]
    assert tlx < trx and blx < brx and tly < bly and try_ < bry  # TL TR BR BL
    assert all(0 <= x <= width and 0 <= y <= height for x, y in p["corners"])
    assert parse_puzzle(p["text"]) == truth.with_givens(values)
    _checks_hold(p["checks"], tokens)
    _grade_holds(p["grade"], tokens)


@pytest.mark.slow
def test_read_of_a_book_page_gives_its_three_puzzles_and_an_answer_key_that_agrees(client):
    """A real scan: three puzzles (transcribed) and the answer grid of one of them, without its
    clue row and column."""
    transcriptions = [IMAGES / f"book_scan_discs_3puzzles@{k}.txt" for k in (1, 2, 3)]
    resp = _upload(client, IMAGES / "book_scan_discs_3puzzles.jpg")
    assert resp.status_code == 200, resp.text
    puzzles = resp.json()["puzzles"]
    assert sorted(p["kind"] for p in puzzles) == ["answer-key", "puzzle", "puzzle", "puzzle"]
    by_grid = {}
    for k, p in enumerate(puzzles):
        if p["kind"] == "puzzle":
            assert (p["status"], p["unique"], p["answer_to"]) == ("solved", True, None)
            by_grid[str(p["grid"])] = k
    assert sorted(by_grid) == sorted(str(read_tokens(t)) for t in transcriptions)
    for t in transcriptions:
        p = puzzles[by_grid[str(read_tokens(t))]]
        assert filling_problems(load_puzzle(t), _values(p["solution"])) == []

    (key,) = [p for p in puzzles if p["kind"] == "answer-key"]
    assert (key["status"], key["unique"], key["corrections"], key["problems"]) == ("answer-key", None, [], [])
    # The worked example (@2) has one solution; the key is it, one row and one column in.
    example = load_puzzle(transcriptions[1])
    assert count_fillings(example, limit=2) == 1
    solved = _values(puzzles[by_grid[str(read_tokens(transcriptions[1]))]]["solution"])
    assert filling_problems(example, solved) == []
    assert _values(key["solution"]) == {(r - 1, c - 1): d for (r, c), d in solved.items()}
    assert key["answer_to"] == {"puzzle": by_grid[str(read_tokens(transcriptions[1]))] + 1, "agrees": True}


@pytest.mark.slow
def test_read_of_clues_that_contradict_each_other_is_unsolvable_naming_the_totals(client):
    """As printed, the magazine grid's across clues total 222 and its down clues 220 (samples'
    README): no solution exists. The verdict says so and names the clues to check."""
    path = SAMPLES / "magazine_10x10_unbalanced.png"
    width, height = Image.open(path).size
    resp = _upload(client, path)
    assert resp.status_code == 200, resp.text
    doc = resp.json()
    assert _png_size(client, doc["annotated"]) == (height, width)  # the read grid is still drawn
    (p,) = doc["puzzles"]
    assert (p["status"], p["kind"], p["rows"], p["cols"]) == ("unsolvable", "puzzle", 10, 10)
    assert (p["solution"], p["unique"]) == (None, None)
    assert "222" in p["problems"][0] and "220" in p["problems"][0]
    assert p["grade"] is None  # no solution: nothing to grade
    checks = p["checks"]
    assert (checks["ok"], checks["across"], checks["down"]) == (False, 222, 220)
    assert [q["rule"] for q in checks["problems"] if q["row"] is None] == ["totals-differ"]
    assert p["suspects"]
    for s in p["suspects"]:  # each a clue of the grid as read, and named in the message
        side = {"down": 0, "across": 1}[s["direction"]]
        assert p["grid"][s["row"] - 1][s["col"] - 1].split("\\")[side]
        assert f"row {s['row']}, column {s['col']} ({s['direction']})" in p["problems"][0]


# ---------------------------------------------------------------------------------------------
# POST /api/solve and /api/check


def test_solve_an_ambiguous_grid_gives_one_of_its_solutions_and_where_they_differ(client):
    grid = [["#", "3\\", "3\\"], ["\\3", ".", "."], ["\\3", ".", "."]]
    fillings = [(a, b, c, d) for a, b, c, d in itertools.product(range(1, 10), repeat=4)
                if a + b == c + d == a + c == b + d == 3 and a != b and c != d and a != c and b != d]
    assert len(fillings) == 2
    resp = client.post("/api/solve", json={"grid": grid})
    assert resp.status_code == 200
    doc = resp.json()
    assert (doc["status"], doc["kind"], doc["unique"], doc["annotated"]) == ("ambiguous", "puzzle", False, None)
    assert (doc["solution"][1][1], doc["solution"][1][2], doc["solution"][2][1], doc["solution"][2][2]) in fillings
    differ = [(r, c) for r, c in ((2, 2), (2, 3), (3, 2), (3, 3))
              if fillings[0][(r - 2) * 2 + c - 2] != fillings[1][(r - 2) * 2 + c - 2]]
    (problem,) = doc["problems"]
    assert problem.startswith("more than one solution") and all(f"({r},{c})" in problem for r, c in differ)
    _checks_hold(doc["checks"], grid)
    assert doc["grade"] is None  # a grade is how a person reaches the one solution: there is none


def test_solve_a_transcribed_grid_with_an_unknown_photo_solves_it_and_draws_nothing(client):
    tokens = read_tokens(SAMPLES / "site_5x5.txt")
    truth = load_puzzle(SAMPLES / "site_5x5.txt")
    assert count_fillings(truth, limit=2) == 1
    doc = client.post("/api/solve", json={"grid": tokens, "photo": "0" * 32, "index": 0}).json()
    assert (doc["status"], doc["unique"], doc["annotated"], doc["grid"]) == ("solved", True, None, tokens)
    assert filling_problems(truth, _values(doc["solution"])) == []


# ---------------------------------------------------------------------------------------------
# The grade (/api/read, /api/solve) and POST /api/hint

#: The four boards of the "Evolutionary AI for Kakuro" report, in the difficulty order it publishes.
EVOLUTIONARY = ["evolutionary_easy", "evolutionary_medium", "evolutionary_hard", "evolutionary_expert"]
GRADES = ["easy", "medium", "hard", "expert"]
TECHNIQUES = {"last-cell", "one-combination", "crossing", "common-digits", "pencil-marks", "hidden-single",
              "arrangements", "block-sum", "search"}


def _whites(tokens: list[list[str]]) -> set[tuple[int, int]]:
    """White cells (from 1) of a grid as written: ``.`` or a digit."""
    return {(r + 1, c + 1) for r, row in enumerate(tokens) for c, t in enumerate(row) if t == "." or t.isdigit()}


def _published(name: str) -> dict[tuple[int, int], int]:
    """A seed board's published solution, cells from 1."""
    return {(r + 1, c + 1): d for (r, c), d in parse_solution_grid((SEEDS / f"{name}.sol").read_text()).items()}


def _grade_holds(doc: dict, tokens: list[list[str]]) -> None:
    """A grade document: its fields, and one technique per white cell (each placed one digit)."""
    assert set(doc) == {"grade", "score", "techniques", "needed_search"}
    assert doc["grade"] in GRADES and isinstance(doc["score"], float)
    assert set(doc["techniques"]) <= TECHNIQUES and all(n > 0 for n in doc["techniques"].values())
    assert sum(doc["techniques"].values()) == len(_whites(tokens))
    assert doc["needed_search"] == ("search" in doc["techniques"])
    assert (doc["grade"] == "expert") == doc["needed_search"]


def _hint(client, grid, entries=(), **extra) -> dict:
    resp = client.post("/api/hint", json={"grid": grid, "entries": [{"row": r, "col": c, "digit": d}
                                                                    for (r, c), d in dict(entries).items()], **extra})
    assert resp.status_code == 200, resp.text
    doc = resp.json()
    # Exactly these fields: a hint never carries the rest of the solution.
    assert set(doc) == {"status", "step", "explanation", "wrong", "written", "stuck", "full", "annotated"}
    return doc


def test_the_grade_orders_the_four_evolutionary_boards_as_published(client):
    scores, grades = [], []
    for name in EVOLUTIONARY:
        tokens = read_tokens(SEEDS / f"{name}.txt")
        doc = client.post("/api/solve", json={"grid": tokens}).json()
        assert (doc["status"], doc["unique"]) == ("solved", True)
        assert _values(doc["solution"]) == {(r - 1, c - 1): d for (r, c), d in _published(name).items()}
        _grade_holds(doc["grade"], tokens)
        scores.append(doc["grade"]["score"])
        grades.append(GRADES.index(doc["grade"]["grade"]))
    assert scores == sorted(scores) and len(set(scores)) == 4, scores  # easy < medium < hard < expert
    assert grades == sorted(grades), grades


@pytest.mark.parametrize("name", EVOLUTIONARY)
def test_hints_one_after_another_give_each_board_its_published_solution(client, name):
    """Each hint's digit is the published one at its cell; typing it in and asking again goes on
    until every white cell is filled, one new cell each time."""
    tokens = read_tokens(SEEDS / f"{name}.txt")
    published = _published(name)
    assert set(published) == _whites(tokens)
    entries: dict[tuple[int, int], int] = {}
    while True:
        doc = _hint(client, tokens, entries)
        assert (doc["status"], doc["wrong"], doc["stuck"], doc["annotated"]) == ("solved", [], False, None)
        assert doc["written"] == [{"row": r, "col": c, "digit": d, "correct": True}
                                  for (r, c), d in sorted(entries.items())]
        step = doc["step"]
        if step is None:
            break
        cell = (step["row"], step["col"])
        assert cell not in entries and step["digit"] == published[cell], (cell, step)
        assert step["technique"] in TECHNIQUES - {"search"}
        assert list(cell) in step["cells"] and {tuple(c) for c in step["cells"]} <= _whites(tokens)
        assert doc["explanation"] == step["explanation"]
        assert step["explanation"].startswith(f"row {cell[0]}, column {cell[1]} is {step['digit']}")
        entries[cell] = step["digit"]
    assert entries == published
    assert (doc["full"], doc["explanation"]) == (True, "every white cell is filled in")


def test_a_wrong_entry_is_named_instead_of_a_hint_past_it(client):
    tokens = read_tokens(SEEDS / "evolutionary_hard.txt")
    published = _published("evolutionary_hard")
    (right_cell, right), (wrong_cell, digit) = sorted(published.items())[:2]
    wrong = digit % 9 + 1  # any other digit
    doc = _hint(client, tokens, {right_cell: right, wrong_cell: wrong})
    assert (doc["status"], doc["step"], doc["stuck"], doc["full"]) == ("solved", None, False, False)
    assert doc["wrong"] == [list(wrong_cell)]
    assert doc["written"] == sorted([{"row": r, "col": c, "digit": d, "correct": (r, c) == right_cell}
                                     for (r, c), d in ((right_cell, right), (wrong_cell, wrong))],
                                    key=lambda w: (w["row"], w["col"]))
    assert doc["explanation"].startswith(f"row {wrong_cell[0]}, column {wrong_cell[1]} is wrong")
    assert str(digit) not in doc["explanation"].split("wrong")[1]  # the right digit is not given away


def test_digits_typed_in_the_grid_are_the_players_where_the_clues_alone_decide(client):
    """A hand-entered grid with digits in white cells: the clues alone have one solution, so the
    digits are the player's entries, checked (a wrong one does not make the grid invalid)."""
    tokens = read_tokens(SEEDS / "evolutionary_medium.txt")
    published = _published("evolutionary_medium")
    (a, da), (b, db) = sorted(published.items())[:2]
    typed = [row[:] for row in tokens]
    typed[a[0] - 1][a[1] - 1], typed[b[0] - 1][b[1] - 1] = str(da), str(db % 9 + 1)
    doc = client.post("/api/solve", json={"grid": typed}).json()
    assert (doc["status"], doc["unique"], doc["grid"]) == ("solved", True, tokens)
    assert _values(doc["solution"]) == {(r - 1, c - 1): d for (r, c), d in published.items()}
    assert doc["written"] == [{"row": a[0], "col": a[1], "digit": da, "correct": True},
                              {"row": b[0], "col": b[1], "digit": db % 9 + 1, "correct": False}]
    hint = _hint(client, typed)
    assert (hint["step"], hint["wrong"]) == (None, [list(b)])
    # The same digits sent as entries beside the bare grid: the same answer.
    assert client.post("/api/solve", json={"grid": tokens, "entries": [
        {"row": a[0], "col": a[1], "digit": da}, {"row": b[0], "col": b[1], "digit": db % 9 + 1}]}).json()["written"] \
        == doc["written"]
    # A printed given the clues need stays a given: the 2-solution board plus one cell that settles it.
    grid = [["#", "3\\", "3\\"], ["\\3", "1", "."], ["\\3", ".", "."]]
    doc = client.post("/api/solve", json={"grid": grid}).json()
    assert (doc["status"], doc["written"], doc["grid"][1][1]) == ("solved", [], "1")
    assert doc["solution"] == [[None] * 3, [None, 1, 2], [None, 2, 1]]


def test_a_hint_where_no_technique_applies_says_so_and_force_proves_a_cell_by_search(client):
    """A 12x12 board that needs trial and error: hints run until no technique applies, then
    ``force`` gives a cell by search; the cells so filled make a filling of the transcription."""
    path = IMAGES / "typed_entries_big_digits_grey_cells_12x12_render.txt"
    tokens, truth = read_tokens(path), load_puzzle(path)
    entries: dict[tuple[int, int], int] = {}
    searched = 0
    while True:
        doc = _hint(client, tokens, entries)
        if doc["stuck"]:
            assert doc["step"] is None and "no step follows from the techniques alone" in doc["explanation"]
            doc = _hint(client, tokens, entries, force=True)
            assert doc["step"]["technique"] == "search"
            searched += 1
        if doc["step"] is None:
            break
        entries[(doc["step"]["row"], doc["step"]["col"])] = doc["step"]["digit"]
    assert doc["full"] and searched >= 1
    assert set(entries) == _whites(tokens)
    assert filling_problems(truth, {(r - 1, c - 1): d for (r, c), d in entries.items()}) == []
    graded = client.post("/api/solve", json={"grid": tokens}).json()["grade"]
    assert graded["needed_search"] and graded["grade"] == "expert"


@pytest.mark.parametrize("grid, entries, status, words", [
    ([["#", "4\\", "3\\"], ["\\3", ".", "."], ["\\40", ".", "."]], [], "invalid", "breaks the rules"),
    ([["#", "3\\", "17\\"], ["\\3", ".", "."], ["\\17", ".", "."]], [], "unsolvable", "no hint"),
])
def test_no_hint_for_a_grid_that_breaks_the_rules_or_has_no_solution(client, grid, entries, status, words):
    doc = _hint(client, grid, entries)
    assert (doc["status"], doc["step"], doc["wrong"]) == (status, None, [])
    assert words in doc["explanation"]


@pytest.mark.parametrize("entry, words", [
    ({"row": 1, "col": 2, "digit": 3}, "row 1, column 2 is not a white cell"),
    ({"row": 2, "col": 2, "digit": 10}, "digit"),
    ({"row": 0, "col": 2, "digit": 1}, "row"),
])
def test_entries_outside_white_cells_or_not_digits_are_422(client, entry, words):
    grid = [["#", "4\\", "3\\"], ["\\3", ".", "."], ["\\4", ".", "."]]
    for url in ("/api/hint", "/api/solve"):
        resp = client.post(url, json={"grid": grid, "entries": [entry]})
        assert resp.status_code == 422 and words in resp.json()["error"], resp.text


def test_check_of_a_transcription_lists_every_run_with_its_combinations(client):
    tokens = read_tokens(SAMPLES / "site_9x9_a.txt")
    resp = client.post("/api/check", json={"grid": tokens})
    assert resp.status_code == 200
    _checks_hold(resp.json(), tokens)


def test_the_page_has_a_verdict_for_every_status_the_api_gives():
    script = (ROOT / "web" / "static" / "app.js").read_text()
    block = re.search(r"const VERDICTS = \{(.*?)\};", script, re.S).group(1)
    assert set(re.findall(r'^\s*"?([a-z-]+)"?:', block, re.M)) == VERDICTS


# ---------------------------------------------------------------------------------------------
# Errors: {"error": "one line"}


@pytest.mark.parametrize("method, url, body, status, words", [
    ("get", "/api/image/0123456789abcdef", None, 404, "expired"),
    ("get", "/api/read", None, 405, "not allowed"),
    ("get", "/no/such/page", None, 404, "not found"),
    ("post", "/api/solve", {"grid": [["#"]], "time_limit": 0}, 422, "time_limit"),
    ("post", "/api/solve", {"grid": [["#"]], "time_limit": 61}, 422, "time_limit"),
    ("post", "/api/solve", {"grid": [["#"]], "index": -1}, 422, "index"),
    ("post", "/api/check", {"grid": [["#", 12.5]]}, 422, "grid"),
])
def test_errors_are_one_line_json(client, method, url, body, status, words):
    resp = client.request(method.upper(), url, json=body)
    assert resp.status_code == status
    doc = resp.json()
    assert list(doc) == ["error"] and words in doc["error"].lower() and "\n" not in doc["error"]


def test_a_truncated_photo_is_a_422_naming_the_file(client):
    data = (SAMPLES / "site_9x9_a.png").read_bytes()[:2000]
    resp = client.post("/api/read", files={"file": ("cut.png", data, "image/png")})
    assert resp.status_code == 422
    error = resp.json()["error"]
    assert error.startswith("cut.png: ") and "\n" not in error
