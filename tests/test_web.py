"""The web API (``kakuro serve``) against the real pipeline: real images, real reader, real solver."""
from __future__ import annotations

import io
import subprocess
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the web page needs fastapi (pip install -e .)")
pytest.importorskip("multipart", reason="uploads need python-multipart (pip install -e .)")
httpx = pytest.importorskip("httpx", reason="the API tests need httpx")
pytest.importorskip("uvicorn", reason="the server needs uvicorn")

with warnings.catch_warnings():  # starlette suggests httpx2 for its TestClient; httpx still works
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

import cli  # noqa: E402
from solver.formats import grid_tokens, load_puzzle, parse_text  # noqa: E402
from solver.solve import solve_puzzle  # noqa: E402
from web.app import create_app  # noqa: E402

from checks import filling_problems  # noqa: E402
from conftest import IMAGES, ROOT, SAMPLES  # noqa: E402

#: The digits the player typed into the game screenshot, transcribed by eye (row, col from 1; as in
#: test_styles.py): two of them are wrong.
TYPED = {(4, 2): 2, (4, 3): 1, (4, 4): 3, (4, 7): 1, (4, 8): 3, (5, 2): 1, (5, 3): 2, (5, 8): 9}
from web_server import free_port, running_server  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def read_5x5(client):
    with open(SAMPLES / "site_5x5.png", "rb") as f:
        resp = client.post("/api/read", files={"file": ("site_5x5.png", f, "image/png")})
    assert resp.status_code == 200, resp.text
    return resp.json()


def _png(image: np.ndarray) -> bytes:
    return cv2.imencode(".png", image)[1].tobytes()


def _sums_hold(grid: list[list[str]], solution: list[list[int | None]]) -> bool:
    """Every clue equals the sum of its run, and no run repeats a digit."""
    rows, cols = len(grid), len(grid[0])
    for r in range(rows):
        for c in range(cols):
            token = grid[r][c]
            if "\\" not in token:
                continue
            down, across = token.split("\\")
            for total, (dr, dc) in ((down, (1, 0)), (across, (0, 1))):
                if not total:
                    continue
                digits, rr, cc = [], r + dr, c + dc
                while rr < rows and cc < cols and solution[rr][cc] is not None:
                    digits.append(solution[rr][cc])
                    rr, cc = rr + dr, cc + dc
                if sum(digits) != int(total) or len(set(digits)) != len(digits):
                    return False
    return True


def test_page_and_assets_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "<title>Kakuro solver</title>" in page.text
    assert 'capture="environment"' in page.text
    for asset in ("/static/app.js", "/static/style.css"):
        assert client.get(asset).status_code == 200


def test_read_sample_photo_is_solved_and_annotated(client, read_5x5):
    truth = parse_text((SAMPLES / "site_5x5.txt").read_text())
    [puzzle] = read_5x5["puzzles"]
    assert puzzle["status"] == "solved" and puzzle["unique"] is True
    assert puzzle["grid"] == grid_tokens(truth)
    assert _sums_hold(puzzle["grid"], puzzle["solution"])
    assert len(puzzle["corners"]) == 4
    assert puzzle["checks"]["ok"] and puzzle["text"].count("\n") == 5
    photo = read_5x5["photo"]
    assert photo["preview"].startswith("data:image/jpeg;base64,") and photo["width"] > 100
    image = client.get(read_5x5["annotated"])
    assert image.status_code == 200 and image.headers["content-type"] == "image/png"
    decoded = cv2.imdecode(np.frombuffer(image.content, np.uint8), cv2.IMREAD_COLOR)
    assert decoded.shape[:2] == (photo["height"], photo["width"])


@pytest.mark.parametrize("name, content, expected", [
    ("junk.png", b"this is not an image at all" * 40, "not an image file"),
    ("empty.jpg", b"", "empty"),
    ("blank.png", _png(np.full((400, 600, 3), 255, np.uint8)), "no puzzle grid found"),
    ("tiny.png", _png(np.zeros((20, 20, 3), np.uint8)), "too small"),
])
def test_bad_uploads_get_a_one_line_reason(client, name, content, expected):
    resp = client.post("/api/read", files={"file": (name, content, "image/png")})
    assert resp.status_code == 422
    error = resp.json()["error"]
    assert error.startswith(name) and expected in error and "\n" not in error
    assert "/tmp" not in error  # the server's temporary file is no business of the user's


def test_missing_file_field_is_a_clear_422(client):
    resp = client.post("/api/read", data={"photo": "x"})
    assert resp.status_code == 422 and "file" in resp.json()["error"]


def test_oversize_upload_is_refused_with_413(client):
    resp = client.post("/api/read", files={"file": ("big.jpg", b"\xff" * (21 * 1024 * 1024), "image/jpeg")})
    assert resp.status_code == 413 and "larger than 20 MB" in resp.json()["error"]
    # A body just under the header check but a file over the limit is caught while reading it.
    with TestClient(create_app(max_upload_bytes=10_000)) as small:
        resp = small.post("/api/read", files={"file": ("photo.png", b"\x89PNG" * 5000, "image/png")})
    assert resp.status_code == 413 and "larger than" in resp.json()["error"]


def test_solve_edited_grid_gives_the_new_unique_solution_and_redraws_the_photo(client, read_5x5):
    grid = [row[:] for row in read_5x5["puzzles"][0]["grid"]]
    original = read_5x5["puzzles"][0]["solution"]
    # Two clues changed together (totals stay equal): a different puzzle with one solution.
    assert grid[4][0] == "\\16" and grid[1][1] == "10\\"
    grid[4][0], grid[1][1] = "\\17", "11/"  # phones type "/" for "\"
    resp = client.post("/api/solve", json={"grid": grid, "photo": read_5x5["photo"]["id"], "index": 0})
    assert resp.status_code == 200, resp.text
    doc = resp.json()
    assert doc["status"] == "solved" and doc["unique"] is True and doc["problems"] == []
    assert doc["grid"][1][1] == "11\\"
    assert doc["solution"] != original and _sums_hold(doc["grid"], doc["solution"])
    assert doc["annotated"] and client.get(doc["annotated"]).status_code == 200


def test_solve_reports_invalid_and_unsolvable_grids(client):
    bad = [["#", "4\\", "3\\"], ["\\3", ".", "."], ["\\40", ".", "."]]
    doc = client.post("/api/solve", json={"grid": bad}).json()
    assert doc["status"] == "invalid" and doc["solution"] is None
    assert any("row 3, column 1" in p for p in doc["problems"])
    # Every clue fits its run and the totals agree, yet 3 down cannot meet 17 across (8+9).
    unsolvable = [["#", "3\\", "17\\"], ["\\3", ".", "."], ["\\17", ".", "."]]
    doc = client.post("/api/solve", json={"grid": unsolvable}).json()
    assert doc["status"] == "unsolvable" and doc["unique"] is None and doc["problems"]
    good = [["#", "4\\", "3\\"], ["\\3", ".", "."], ["\\4", ".", "."]]
    doc = client.post("/api/solve", json={"grid": good}).json()
    assert doc["status"] == "solved" and doc["solution"] == [[None] * 3, [None, 1, 2], [None, 3, 1]]
    assert doc["annotated"] is None and doc["text"].splitlines()[1].split() == ["\\3", "1", "2"]


def test_check_marks_a_bad_clue_by_row_and_col(client, read_5x5):
    grid = [row[:] for row in read_5x5["puzzles"][0]["grid"]]
    assert grid[2][0] == "\\20"
    grid[2][0] = "\\50"  # four cells sum to 10..30
    grid[3][0] = "\\1x"
    doc = client.post("/api/check", json={"grid": grid}).json()
    assert doc["ok"] is False
    found = {(p["row"], p["col"], p["direction"], p["rule"]) for p in doc["problems"]}
    assert (3, 1, "across", "clue-out-of-range") in found
    assert (4, 1, None, "bad-token") in found
    runs = {(r["row"], r["col"], r["direction"]): r for r in doc["runs"]}
    assert runs[(3, 1, "across")]["ok"] is False
    assert runs[(1, 4, "down")]["ok"] is True and runs[(1, 4, "down")]["combos"]
    assert doc["across"] != doc["down"]
    assert any(p["rule"] == "totals-differ" and p["row"] is None for p in doc["problems"])


@pytest.mark.parametrize("body, expected", [
    ({"grid": []}, "empty"),
    ({"grid": [["#", "."], ["."]]}, "row 2 has 1 cells"),
    ({"grid": [["."] * 50] * 2}, "larger than"),
    ({"rows": 3}, "grid"),
])
def test_malformed_grids_get_422(client, body, expected):
    resp = client.post("/api/check", json=body)
    assert resp.status_code == 422 and expected in resp.json()["error"]


def _decoded(client, url: str) -> np.ndarray:
    resp = client.get(url)
    assert resp.status_code == 200
    return cv2.imdecode(np.frombuffer(resp.content, np.uint8), cv2.IMREAD_COLOR)


def test_a_hint_on_a_read_photo_is_drawn_on_it(client, read_5x5):
    [puzzle] = read_5x5["puzzles"]
    assert _sums_hold(puzzle["grid"], puzzle["solution"])
    doc = client.post("/api/hint", json={"grid": puzzle["grid"], "photo": read_5x5["photo"]["id"], "index": 0}).json()
    step = doc["step"]
    assert step["digit"] == puzzle["solution"][step["row"] - 1][step["col"] - 1]
    assert [step["row"], step["col"]] in step["cells"] and doc["wrong"] == []
    photo = read_5x5["photo"]
    assert _decoded(client, doc["annotated"]).shape[:2] == (photo["height"], photo["width"])
    # The grade of the puzzle read: graded by the techniques, every white cell one step.
    whites = sum(token == "." for row in puzzle["grid"] for token in row)
    assert sum(puzzle["grade"]["techniques"].values()) == whites and puzzle["grade"]["grade"] in (
        "easy", "medium", "hard", "expert")


@pytest.fixture(scope="module")
def read_entries(client):
    """The game screenshot with eight digits typed by the player."""
    with open(IMAGES / "game_screenshot_entries_8x8.png", "rb") as f:
        resp = client.post("/api/read", files={"file": ("entries.png", f, "image/png")})
    assert resp.status_code == 200, resp.text
    return resp.json()


def test_check_my_progress_on_a_photo_with_typed_entries(client, read_entries):
    truth = load_puzzle(IMAGES / "game_screenshot_entries_8x8.txt")
    [p] = read_entries["puzzles"]
    assert (p["status"], p["grid"]) == ("solved", grid_tokens(truth))  # the entries are not in the puzzle
    solution = {(r + 1, c + 1): d for r, row in enumerate(p["solution"]) for c, d in enumerate(row) if d}
    assert filling_problems(truth, {(r - 1, c - 1): d for (r, c), d in solution.items()}) == []
    right = {cell: solution[cell] == digit for cell, digit in TYPED.items()}
    assert sum(not ok for ok in right.values()) == 2
    assert {(w["row"], w["col"]): (w["digit"], w["correct"]) for w in p["written"]} == \
        {cell: (TYPED[cell], right[cell]) for cell in TYPED}
    assert p["grade"] is not None  # the clues alone have one solution: graded without the entries
    # The photo with the entries checked and nothing of the solution, as large as the photo.
    photo = read_entries["photo"]
    assert _decoded(client, read_entries["progress"]).shape[:2] == (photo["height"], photo["width"])

    entries = [{"row": r, "col": c, "digit": d} for (r, c), d in TYPED.items()]
    wrong = sorted([r, c] for (r, c), ok in right.items() if not ok)
    body = {"grid": p["grid"], "entries": entries, "photo": photo["id"], "index": 0}
    doc = client.post("/api/hint", json=body).json()
    assert (doc["step"], doc["wrong"], doc["annotated"]) == (None, wrong, None)
    # With the wrong ones put right, the hint is the next step, drawn on the photo.
    fixed = [{**e, "digit": solution[(e["row"], e["col"])]} for e in entries]
    doc = client.post("/api/hint", json={**body, "entries": fixed}).json()
    step = doc["step"]
    assert doc["wrong"] == [] and all(w["correct"] for w in doc["written"])
    assert (step["row"], step["col"]) not in TYPED and step["digit"] == solution[(step["row"], step["col"])]
    assert _decoded(client, doc["annotated"]).shape[:2] == (photo["height"], photo["width"])
    # Solving the grid with the entries checks them the same way, and redraws the photo.
    doc = client.post("/api/solve", json=body).json()
    assert (doc["status"], doc["written"], doc["grade"]) == ("solved", p["written"], p["grade"])
    assert _decoded(client, doc["annotated"]).shape[:2] == (photo["height"], photo["width"])


@pytest.fixture(scope="module")
def live_server():
    """A real uvicorn server in a thread, as ``kakuro serve`` runs it."""
    with running_server(create_app()) as url:
        yield url


def test_concurrent_requests_are_served_while_a_photo_is_read(live_server):
    photo = (SAMPLES / "site_7x7.png").read_bytes()
    grid = [["#", "4\\", "3\\"], ["\\3", ".", "."], ["\\4", ".", "."]]

    finished: list[str] = []

    def read(name: str) -> httpx.Response:
        resp = httpx.post(f"{live_server}/api/read", files={"file": (name, photo, "image/png")}, timeout=60)
        finished.append(name)
        return resp

    with ThreadPoolExecutor(4) as pool:
        reads = [pool.submit(read, "site_7x7.png"), pool.submit(read, "copy.png")]
        junk = pool.submit(lambda: httpx.post(f"{live_server}/api/read", timeout=60,
                                              files={"file": ("junk.jpg", io.BytesIO(b"junk" * 99), "image/jpeg")}))
        # The junk upload is turned away at once, and the photos, sent first, are being read.
        assert junk.result().status_code == 422
        check = httpx.post(f"{live_server}/api/check", json={"grid": grid}, timeout=60)
        finished.append("check")
        # The live check did not queue behind the photos (they run in the threadpool): it was
        # answered before either photo was.
        assert check.status_code == 200 and check.json()["ok"]
        for fut in reads:
            resp = fut.result()
            assert resp.status_code == 200 and resp.json()["puzzles"][0]["status"] == "solved"
    assert finished[0] == "check", finished
    assert httpx.get(f"{live_server}/", timeout=10).status_code == 200


def test_kakuro_serve_answers_and_a_busy_port_is_a_clear_error(capsys):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "cli.py", "serve", "--port", str(port)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()
            try:
                page = httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "kakuro serve did not answer within 30 s"
                time.sleep(0.1)
        assert page.status_code == 200 and "Kakuro solver" in page.text
        # The port is taken now: a second server says so and exits with the misuse code.
        assert cli.main(["serve", "--port", str(port)]) == cli.ExitCode.bad_args
        assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
    finally:
        proc.terminate()
        proc.wait(10)


def test_check_my_progress_on_a_puzzle_filled_in_pen(client):
    """Digits written by hand are read and checked too: each one marked is a digit a person sees in
    that cell (transcribed by eye), judged against the transcribed puzzle's solution."""
    rows = [line.split() for line in (ROOT / "tests" / "data" / "times2046_handfilled_written.txt").read_text()
            .splitlines() if line.strip() and not line.startswith(";")]
    seen = {(r + 1, c + 1): int(t) for r, row in enumerate(rows) for c, t in enumerate(row) if t.isdigit()}
    truth = solve_puzzle(load_puzzle(SAMPLES / "times2046_photo_handfilled.txt")).values
    with open(SAMPLES / "times2046_photo_handfilled.png", "rb") as f:
        resp = client.post("/api/read", files={"file": ("pen.png", f, "image/png")})
    assert resp.status_code == 200, resp.text
    [p] = resp.json()["puzzles"]
    marked = {(w["row"], w["col"]): (w["digit"], w["correct"]) for w in p["written"]}
    assert len(marked) >= 0.5 * len(seen) and resp.json()["progress"] is not None
    for (r, c), (digit, correct) in marked.items():
        assert digit == seen[(r, c)] and correct == (truth[(r - 1, c - 1)] == digit)
