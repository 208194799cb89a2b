"""The FastAPI app behind ``kakuro serve``: one static page and a small JSON API.

Endpoints (every error is ``{"error": "one line"}`` with a 4xx/5xx status):

- ``GET  /``                 the page (``web/static/index.html``; ``/static/*`` its script and style)
- ``POST /api/read``         multipart field ``file``: a photo or scan -> every puzzle on it read and
  solved (the README's JSON contract per puzzle, plus ``text``, ``checks`` and the annotated image)
- ``GET  /api/image/{id}``   an annotated image made by ``/api/read`` or ``/api/solve``, in the upload's
  format as ``kakuro solve`` writes it (JPEG for a JPEG or HEIC photo, WebP for WebP, else PNG)
- ``POST /api/solve``        ``{"grid": [[token, ...], ...], "photo": id?, "index": k?, "entries": [...]?}``
  -> solution, uniqueness, grade, problems and the player's entries checked; with ``photo`` the
  solution is also drawn on that photo
- ``POST /api/hint``         the same body (and ``force``) -> the next step a person could take, and
  why, or which entries are wrong; never the rest of the solution
- ``POST /api/check``        ``{"grid": ...}`` -> the rules each clue, run and cell breaks (for live marks)

The player's entries are digits in white cells that are not part of the puzzle: ``entries``
(``[{"row", "col", "digit"}]``) names them, and a digit in the grid's white cells is one too where
the clues alone have one solution (as ``kakuro solve`` tells a photo's written digits from givens).

Rows and columns in answers count from 1, as in the README's JSON. Heavy work runs in Starlette's
threadpool (plain ``def`` endpoints), so one slow photo does not hold up other requests.
"""
from __future__ import annotations

import base64
import dataclasses
import logging
import os
import re
import tempfile
import threading
import time
import uuid
from collections import OrderedDict
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from fastapi import FastAPI, File, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from outputs import encode_image, image_suffix
from pipeline import (PuzzleResult, Status, annotate_hint, annotate_image, read_progress, solution_marks,
                      solve_image, solve_puzzle_file)
from solver.combos import combinations
from solver.errors import InvalidPuzzleError, KakuroError, Problem
from solver.formats import format_text, puzzle_from_json
from solver.model import Cell, Puzzle
from solver.techniques import Step, grade, next_step
from solver.validate import validate_puzzle
from vision.errors import ImageLoadError
from vision.imageio import ImageInfo, load_image, read_image_info
from vision.overlay import draw_solution

__all__ = ["create_app", "check_grid", "hint_grid", "MAX_UPLOAD_BYTES", "MAX_GRID_SIDE"]

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).parent / "static"
#: Larger uploads get 413: a phone photo is 2-12 MB; a scan this size should be downscaled first.
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
#: Larger grids are refused: printed Kakuro stop near 30x30, and the solver's time grows with size.
MAX_GRID_SIDE = 40
#: The photo preview sent back to the page; the overlay uses full-resolution coordinates anyway.
_PREVIEW_SIDE = 1600
#: Memory kept for recent uploads (decoded photos, to redraw edited solutions) and annotated images.
_PHOTO_BUDGET = 600 * 1024 * 1024
_IMAGE_BUDGET = 200 * 1024 * 1024
_TOKEN = re.compile(r"^(#|\.|[1-9]|\d*\\\d*)$")


class ApiError(Exception):
    """A request the API refuses; ``message`` is shown to the user as is."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class GridRequest(BaseModel):
    """Body of /api/solve and /api/check."""

    grid: list[list[str | int | None]]
    photo: str | None = None
    index: int = Field(0, ge=0)
    time_limit: float = Field(10.0, gt=0, le=60)


class Entry(BaseModel):
    """A digit the player entered in a white cell (row and column from 1)."""

    row: int = Field(ge=1, le=MAX_GRID_SIDE)
    col: int = Field(ge=1, le=MAX_GRID_SIDE)
    digit: int = Field(ge=1, le=9)


class SolveRequest(GridRequest):
    """Body of /api/solve: a grid, and the player's entries to check against its solution."""

    entries: list[Entry] = Field(default_factory=list, max_length=MAX_GRID_SIDE * MAX_GRID_SIDE)


class HintRequest(SolveRequest):
    """Body of /api/hint; ``force`` gives a cell proved by search where no technique applies."""

    force: bool = False


@dataclass(frozen=True)
class _Photo:
    """An uploaded photo kept for redrawing solutions of edited grids on it."""

    image: np.ndarray
    results: tuple[PuzzleResult, ...]
    info: ImageInfo = ImageInfo()  # the upload's format, DPI and colour profile: the annotated image keeps them


class _LruStore:
    """A small thread-safe LRU map with a byte budget: photos and images live only while recent."""

    def __init__(self, max_bytes: int):
        self._items: OrderedDict[str, tuple[Any, int]] = OrderedDict()
        self._max_bytes = max_bytes
        self._bytes = 0
        self._lock = threading.Lock()

    def put(self, value: Any, size: int) -> str:
        key = uuid.uuid4().hex
        with self._lock:
            self._items[key] = (value, size)
            self._bytes += size
            # The newest item stays even when it alone is over the budget.
            while self._bytes > self._max_bytes and len(self._items) > 1:
                _, (_, old) = self._items.popitem(last=False)
                self._bytes -= old
        return key

    def get(self, key: str) -> Any | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            return item[0]


# ---------------------------------------------------------------------------------------------
# Grids: tokens in, checks out


def _normalise_token(token: str | int | None) -> str:
    """A cell as typed on the page -> a text-format token (phones lack a backslash key: ``/`` too)."""
    if token is None:
        return "#"
    text = str(token).strip().replace("/", "\\").replace(" ", "")
    if text in ("", "\\"):
        return "#"
    if text in ("0", "_"):
        return "."
    return text


def _grid_from_request(grid: list[list[str | int | None]]) -> tuple[list[list[str]], list[Problem]]:
    """Normalised tokens, with each unknown token replaced by ``#`` and reported as a problem."""
    if not grid or not grid[0]:
        raise ApiError(422, "the grid is empty; give at least one row and one column")
    if len(grid) > MAX_GRID_SIDE or any(len(row) > MAX_GRID_SIDE for row in grid):
        raise ApiError(422, f"the grid is larger than {MAX_GRID_SIDE}x{MAX_GRID_SIDE} cells")
    width = len(grid[0])
    for r, row in enumerate(grid):
        if len(row) != width:
            raise ApiError(422, f"row {r + 1} has {len(row)} cells but row 1 has {width}; every row needs "
                                "the same number of cells")
    tokens, bad = [], []
    for r, row in enumerate(grid):
        out = []
        for c, raw in enumerate(row):
            token = _normalise_token(raw)
            if not _TOKEN.match(token):
                bad.append(Problem(r, c, "bad-token", f"{str(raw)!r} is not a cell: type a clue as 23\\16, "
                                                      "23\\ or \\16, or a digit 1-9"))
                token = "#"
            out.append(token)
        tokens.append(out)
    return tokens, bad


def _problem_json(p: Problem) -> dict[str, Any]:
    return {"row": None if p.row is None else p.row + 1, "col": None if p.col is None else p.col + 1,
            "direction": p.direction, "rule": p.rule, "message": str(p)}


def check_grid(grid: list[list[str | int | None]]) -> dict[str, Any]:
    """The live input checks: every rule the grid breaks, and every run with its digit combinations.

    Parameters
    ----------
    grid : list of list of str
        Text-format tokens, row by row (``#``, ``.``, a digit, ``D\\A``; ``/`` accepted for ``\\``).

    Returns
    -------
    dict
        ``ok`` (no problem at all), ``problems`` (row, col, direction, rule, message; row/col from 1,
        null for whole-grid problems), ``runs`` (row, col, direction, total, length, ``ok``, the first
        combinations) and the ``across``/``down`` totals.

    Raises
    ------
    ApiError
        The grid is empty, ragged or too large.
    """
    tokens, problems = _grid_from_request(grid)
    puzzle = puzzle_from_json({"grid": tokens})
    problems += validate_puzzle(puzzle)
    bad_sides = {(p.row, p.col, p.direction) for p in problems if p.row is not None}
    runs = []
    for run in puzzle.runs:
        r, c = run.clue
        combos = combinations(run.total, len(run.cells)) if 0 < len(run.cells) <= 9 else []
        runs.append({"row": r + 1, "col": c + 1, "direction": run.direction, "total": run.total,
                     "length": len(run.cells), "cells": [[rr + 1, cc + 1] for rr, cc in run.cells],
                     "ok": (r, c, run.direction) not in bad_sides and bool(combos),
                     "combos": [list(k) for k in combos[:12]], "n_combos": len(combos)})
    return {"ok": not problems, "rows": puzzle.n_rows, "cols": puzzle.n_cols,
            "problems": [_problem_json(p) for p in problems], "runs": runs,
            "across": sum(run.total for run in puzzle.runs if run.direction == "across"),
            "down": sum(run.total for run in puzzle.runs if run.direction == "down")}


def _layout_tokens(result: PuzzleResult) -> list[list[str]] | None:
    """For a grid that could not be read: its white/black layout, so the user can type the clues."""
    reading = result.reading
    if reading is None:
        return None
    return [["." if (r, c) in reading.whites else "#" for c in range(reading.n_cols)]
            for r in range(reading.n_rows)]


def _grade_json(result: PuzzleResult) -> dict[str, Any] | None:
    """How hard the puzzle is (``kakuro grade``): only a puzzle with exactly one solution is graded."""
    if result.status != Status.solved or result.puzzle is None:
        return None
    try:
        return grade(result.puzzle).to_json()
    except ValueError as exc:  # pragma: no cover - the solver proved one solution
        log.warning("not graded: %s", exc)
        return None


def _result_json(result: PuzzleResult) -> dict[str, Any]:
    doc = result.to_json()
    doc["grade"] = _grade_json(result)
    # The clues the reader's rules trust least: where to look first when the grid is not solved.
    doc["suspects"] = [{"row": r + 1, "col": c + 1, "direction": d} for (r, c), d in result.suspects]
    puzzle = result.puzzle
    if puzzle is not None:
        values = dict(result.solution.values) if result.solution and doc["solution"] is not None else None
        doc["text"] = format_text(puzzle, values)
        try:
            doc["checks"] = check_grid(doc["grid"])
        except ApiError:  # a grid too large to edit on the page is still shown as read
            doc["checks"] = None
    else:
        doc["text"] = None
        doc["layout"] = _layout_tokens(result)
    return doc


# ---------------------------------------------------------------------------------------------
# The player's entries: checked against the solution, and the next step from them


def _entries_from_request(entries: list[Entry], puzzle: Puzzle) -> dict[Cell, int]:
    """``entries`` as 0-based cells; each must be a white cell that is not given another digit."""
    out: dict[Cell, int] = {}
    for e in entries:
        cell = (e.row - 1, e.col - 1)
        if cell not in puzzle.whites:
            raise ApiError(422, f"entries: row {e.row}, column {e.col} is not a white cell of the grid")
        given = puzzle.given_at.get(cell)
        if given is not None and given != e.digit:
            raise ApiError(422, f"entries: row {e.row}, column {e.col} is given as {given}, not {e.digit}")
        if given is None:
            out[cell] = e.digit
    return out


def _solve_grid(grid: list[list[str | int | None]], entries: list[Entry], time_limit_s: float
                ) -> tuple[dict[str, Any], list[list[str]], PuzzleResult | None, dict[Cell, int]]:
    """Check and solve a grid apart from the player's entries, and check each entry against the solution.

    A digit in the grid's white cells is a given only where the clues need it: where the clues
    alone have one solution, every digit in a white cell is the player's (as ``kakuro solve``
    tells a photo's written digits from printed givens), and a wrong one breaking a run does not
    make the grid invalid.

    Returns
    -------
    checks : dict
        :func:`check_grid` of the puzzle as solved (without the entries).
    tokens : list of list of str
        The grid's tokens, normalised.
    result : PuzzleResult or None
        None for a grid that breaks the rules; ``written`` holds each entry and whether it is
        right where the puzzle has one solution.
    filled : dict
        Every entry, 0-based.
    """
    checks = check_grid(grid)
    tokens, _ = _grid_from_request(grid)
    digits = any(t.isdigit() for row in tokens for t in row)
    bare_checks = checks
    if not checks["ok"] and digits:
        bare_checks = check_grid([["." if t.isdigit() else t for t in row] for row in tokens])
    if not bare_checks["ok"]:
        return checks, tokens, None, {}
    puzzle = puzzle_from_json({"grid": tokens})
    filled = _entries_from_request(entries, puzzle)
    result = None
    if puzzle.givens:
        bare = solve_puzzle_file(puzzle.with_givens({}), time_limit_s=time_limit_s)
        if bare.status == Status.solved:
            result, filled, checks = bare, {**puzzle.given_at, **filled}, bare_checks
    if result is None:
        if not checks["ok"]:  # the digits break a run and the clues need them: givens, wrong
            return checks, tokens, None, {}
        result = solve_puzzle_file(puzzle, time_limit_s=time_limit_s)
    if filled and result.status == Status.solved and result.solution is not None:
        values = result.solution.values
        written = tuple((cell, digit, values.get(cell) == digit) for cell, digit in sorted(filled.items()))
        result = dataclasses.replace(result, written=written)
    return checks, tokens, result, filled


def _cells_said(cells: list[Cell]) -> str:
    said = [f"row {r + 1}, column {c + 1}" for r, c in cells]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def hint_grid(grid: list[list[str | int | None]], entries: list[Entry] = (), *, force: bool = False,
              time_limit_s: float = 10.0) -> tuple[dict[str, Any], PuzzleResult | None, Step | None]:
    """The next step a person could take in ``grid`` with the player's ``entries``, as ``kakuro hint``.

    Returns
    -------
    doc : dict
        ``status`` (the puzzle's verdict, ``invalid`` for a grid that breaks the rules), ``step``
        (``{row, col, digit, technique, explanation, cells}`` from 1, or None), ``explanation``
        (the step's sentence, or why there is none), ``wrong`` (entries that disagree with the
        solution: then no step is given, the player puts them right first), ``written`` (every
        entry, right or not, as in ``/api/read``), ``stuck`` (no technique applies; ``force`` gives
        a cell proved by search) and ``full`` (every white cell is filled).
    result, step
        The solved puzzle (None for an invalid grid) and the step, to draw on a photo.
    """
    doc: dict[str, Any] = {"status": "invalid", "step": None, "explanation": "", "wrong": [], "written": [],
                           "stuck": False, "full": False}
    checks, _, result, filled = _solve_grid(grid, list(entries), time_limit_s)
    if result is None:
        doc["explanation"] = "no hint: the grid breaks the rules (" + checks["problems"][0]["message"] + \
            "); fix the cells marked red first"
        return doc, None, None
    doc["status"] = str(result.status)
    doc["written"] = result.to_json()["written"]
    if result.status not in (Status.solved, Status.ambiguous):
        why = result.problems[0] if result.problems else "the clues have no solution"
        doc["explanation"] = f"no hint: {why}; check the clues first"
        return doc, result, None
    wrong = [cell for cell, _, ok in result.written if ok is False]
    if wrong:
        # A hint past a wrong digit would build on it: name it (not its right digit) instead.
        doc["wrong"] = [[r + 1, c + 1] for r, c in wrong]
        is_, it = ("is", "it") if len(wrong) == 1 else ("are", "them")
        doc["explanation"] = f"{_cells_said(wrong)} {is_} wrong: clear {it} or put {it} right, then ask for a hint again"
        return doc, result, None
    try:
        step = next_step(result.puzzle, filled, force=force)
    except ValueError as exc:  # entries in a puzzle with several solutions that break a run
        doc["explanation"] = f"no hint: the digits entered contradict the clues ({exc})"
        return doc, result, None
    if step is not None:
        doc["step"] = step.to_json()
        doc["explanation"] = step.explanation
    elif result.puzzle.whites <= set(result.puzzle.given_at) | set(filled):
        doc["full"] = True
        doc["explanation"] = "every white cell is filled in"
    else:
        doc["stuck"] = True
        doc["explanation"] = "no step follows from the techniques alone; ask again with force for a cell " \
                             "proved by search"
    return doc, result, step


# ---------------------------------------------------------------------------------------------
# Images


_MEDIA_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".webp": "image/webp"}


def _annotated_bytes(image: np.ndarray, info: ImageInfo) -> tuple[bytes, str]:
    """The annotated image encoded as ``kakuro solve`` writes it for this upload, and its suffix."""
    suffix = image_suffix(info)
    return encode_image(image, suffix, info), suffix


def _preview_data_url(image: np.ndarray) -> str:
    h, w = image.shape[:2]
    scale = min(1.0, _PREVIEW_SIDE / max(h, w))
    small = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA) \
        if scale < 1 else image
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")


def _load_upload(data: bytes, filename: str) -> tuple[np.ndarray, ImageInfo]:
    """Decode uploaded bytes with the CLI's loader (EXIF orientation, HEIC, size limits); and what the
    file carries besides its pixels."""
    suffix = Path(filename).suffix.lower()[:8] if filename else ""
    fd, tmp = tempfile.mkstemp(prefix="kakuro-upload-", suffix=suffix if re.match(r"^\.\w+$", suffix) else "")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return load_image(tmp), read_image_info(tmp)
    finally:
        Path(tmp).unlink(missing_ok=True)


# ---------------------------------------------------------------------------------------------
# The app


def create_app(*, max_upload_bytes: int = MAX_UPLOAD_BYTES, max_concurrent_reads: int = 2) -> FastAPI:
    """Build the app. ``max_concurrent_reads`` photos are read at once; further uploads wait their turn."""
    @asynccontextmanager
    async def lifespan(app: FastAPI):
        # The glyph classifier loads its weights on first use; pay that before the first photo.
        from vision.glyphs import default_classifier

        threading.Thread(target=default_classifier, daemon=True).start()
        yield

    app = FastAPI(title="kakuro", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    photos = _LruStore(_PHOTO_BUDGET)
    images = _LruStore(_IMAGE_BUDGET)
    reads = threading.BoundedSemaphore(max_concurrent_reads)
    limit_mb = max_upload_bytes / (1024 * 1024)
    too_large = f"the file is larger than {limit_mb:g} MB; send a smaller photo (a phone photo is 2-12 MB)"

    @app.middleware("http")
    async def _refuse_large_bodies(request: Request, call_next):
        # Refuse before the body is read (the multipart parser would spool all of it to disk first).
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > max_upload_bytes + 64 * 1024:
            return JSONResponse({"error": too_large}, status_code=413, headers={"Connection": "close"})
        return await call_next(request)

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError):
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()) if x != "body")
        message = f"{where}: {first.get('msg', 'invalid request')}" if where else first.get("msg", "invalid request")
        return JSONResponse({"error": message}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception):
        log.exception("internal error on %s", request.url.path)
        return JSONResponse({"error": f"internal error: {type(exc).__name__}: {exc}"}, status_code=500)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.post("/api/read")
    def read(file: UploadFile = File(...)) -> JSONResponse:
        start = time.perf_counter()
        name = Path(file.filename or "upload").name[:120] or "upload"
        data = file.file.read(max_upload_bytes + 1)
        if len(data) > max_upload_bytes:
            raise ApiError(413, too_large)
        if not data:
            raise ApiError(422, f"{name}: the file is empty (0 bytes); choose a photo or scan of a puzzle")
        try:
            image, info = _load_upload(data, name)
        except ImageLoadError as exc:
            raise ApiError(422, f"{name}: {exc.reason}") from exc
        with reads:
            try:
                # Digits written in by hand are the player's too: checked, as `kakuro solve --progress`.
                results = [read_progress(r) for r in solve_image(image)]
            except KakuroError as exc:  # no grid on the image, most often
                raise ApiError(422, f"{name}: {exc}") from exc
            annotated = annotate_image(image, results)
            checked = _progress_image(image, results)
        photo_id = photos.put(_Photo(image, tuple(results), info), image.nbytes)
        encoded = _annotated_bytes(annotated, info)
        image_id = images.put(encoded, len(encoded[0]))
        progress = None
        if checked is not None:
            encoded = _annotated_bytes(checked, info)
            progress = f"/api/image/{images.put(encoded, len(encoded[0]))}"
        h, w = image.shape[:2]
        doc = {"input": name, "seconds": round(time.perf_counter() - start, 3),
               "photo": {"id": photo_id, "width": w, "height": h, "preview": _preview_data_url(image)},
               "annotated": f"/api/image/{image_id}", "progress": progress,
               "puzzles": [_result_json(r) for r in results]}
        return JSONResponse(doc)

    @app.get("/api/image/{image_id}")
    def image(image_id: str) -> Response:
        encoded = images.get(image_id)
        if encoded is None:
            raise ApiError(404, "this image has expired; upload the photo again")
        data, suffix = encoded
        # The page's download link names the file; the name given here (with its suffix) overrides it.
        return Response(data, media_type=_MEDIA_TYPES[suffix],
                        headers={"Cache-Control": "private, max-age=3600",
                                 "Content-Disposition": f'inline; filename="kakuro-solved{suffix}"'})

    @app.post("/api/check")
    def check(body: GridRequest) -> JSONResponse:
        return JSONResponse(check_grid(body.grid))

    @app.post("/api/solve")
    def solve(body: SolveRequest) -> JSONResponse:
        try:
            checks, tokens, result, _ = _solve_grid(body.grid, body.entries, body.time_limit)
        except InvalidPuzzleError as exc:  # pragma: no cover - check_grid found these already
            raise ApiError(422, str(exc)) from exc
        if result is None:
            problems = [p["message"] for p in checks["problems"]]
            return JSONResponse({"status": "invalid", "rows": checks["rows"], "cols": checks["cols"],
                                 "grid": tokens, "solution": None, "unique": None, "corrections": [],
                                 "problems": problems, "written": [], "grade": None, "checks": checks,
                                 "text": None, "annotated": None})
        doc = _result_json(result)
        doc["annotated"] = None
        photo = photos.get(body.photo) if body.photo else None
        if photo is not None:
            encoded = _draw_on_photo(photo, body.index, result)
            if encoded is not None:
                doc["annotated"] = f"/api/image/{images.put(encoded, len(encoded[0]))}"
        return JSONResponse(doc)

    @app.post("/api/hint")
    def hint(body: HintRequest) -> JSONResponse:
        doc, result, step = hint_grid(body.grid, body.entries, force=body.force, time_limit_s=body.time_limit)
        doc["annotated"] = None
        photo = photos.get(body.photo) if body.photo else None
        if photo is not None and step is not None and _fits(photo, body.index, result.puzzle):
            drawn = annotate_hint(photo.image, photo.results[body.index], step)
            encoded = _annotated_bytes(drawn, photo.info)
            doc["annotated"] = f"/api/image/{images.put(encoded, len(encoded[0]))}"
        return JSONResponse(doc)

    return app


def _fits(photo: _Photo, index: int, puzzle: Puzzle) -> bool:
    """Whether ``puzzle`` can be drawn on the photo's puzzle ``index``: read there, of the same size."""
    if index >= len(photo.results):
        return False
    reading = photo.results[index].reading
    return reading is not None and (reading.n_rows, reading.n_cols) == (puzzle.n_rows, puzzle.n_cols)


def _draw_on_photo(photo: _Photo, index: int, result: PuzzleResult) -> tuple[bytes, str] | None:
    """The edited puzzle's solution drawn on the photo it was read from; None if it no longer fits.

    As ``kakuro solve`` draws it: the player's entries stay as written, a wrong one circled with
    the right digit beside it."""
    puzzle = result.puzzle
    if not _fits(photo, index, puzzle):
        return None
    read = photo.results[index]
    reading = read.reading
    values, wrong = solution_marks(result)
    # Clues that differ from what the reader saw: the reader's own corrections and the user's edits.
    changed = {c.cell for c in read.corrections}
    if read.puzzle is not None:
        before = read.puzzle.clue_at
        changed |= {cell for cell, clue in puzzle.clue_at.items() if before.get(cell) != clue}
    drawn = draw_solution(photo.image, reading.H, reading.lattice, values, corrected=tuple(sorted(changed)),
                          wrong=wrong)
    return _annotated_bytes(drawn, photo.info)


def _progress_image(image: np.ndarray, results: list[PuzzleResult]) -> np.ndarray | None:
    """The photo with the player's entries checked and nothing of the solution (``kakuro solve
    --progress`` without ``--reveal``): a wrong entry circled in red, a right one ticked in green.
    None where no puzzle on the photo has entries."""
    if not any(res.written for res in results):
        return None
    return annotate_image(image, results, progress=True, reveal=False)
