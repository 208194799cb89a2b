"""The FastAPI app behind ``kakuro serve``: one static page and a small JSON API.

Endpoints (every error is ``{"error": "one line"}`` with a 4xx/5xx status):

- ``GET  /``                 the page (``web/static/index.html``; ``/static/*`` its script and style)
- ``POST /api/read``         multipart field ``file``: a photo or scan -> every puzzle on it read and
  solved (the README's JSON contract per puzzle, plus ``text``, ``checks`` and the annotated image)
- ``GET  /api/image/{id}``   an annotated image made by ``/api/read`` or ``/api/solve``, in the upload's
  format as ``kakuro solve`` writes it (JPEG for a JPEG or HEIC photo, WebP for WebP, else PNG)
- ``POST /api/solve``        ``{"grid": [[token, ...], ...], "photo": id?, "index": k?}`` -> solution,
  uniqueness and problems; with ``photo`` the solution is also drawn on that photo
- ``POST /api/check``        ``{"grid": ...}`` -> the rules each clue, run and cell breaks (for live marks)

Rows and columns in answers count from 1, as in the README's JSON. Heavy work runs in Starlette's
threadpool (plain ``def`` endpoints), so one slow photo does not hold up other requests.
"""
from __future__ import annotations

import base64
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
from pipeline import PuzzleResult, annotate_image, solve_image, solve_puzzle_file
from solver.combos import combinations
from solver.errors import InvalidPuzzleError, KakuroError, Problem
from solver.formats import format_text, puzzle_from_json
from solver.model import Puzzle
from solver.validate import validate_puzzle
from vision.errors import ImageLoadError
from vision.imageio import ImageInfo, load_image, read_image_info
from vision.overlay import draw_solution

__all__ = ["create_app", "check_grid", "MAX_UPLOAD_BYTES", "MAX_GRID_SIDE"]

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


def _result_json(result: PuzzleResult) -> dict[str, Any]:
    doc = result.to_json()
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
                results = solve_image(image)
            except KakuroError as exc:  # no grid on the image, most often
                raise ApiError(422, f"{name}: {exc}") from exc
            annotated = annotate_image(image, results)
        photo_id = photos.put(_Photo(image, tuple(results), info), image.nbytes)
        encoded = _annotated_bytes(annotated, info)
        image_id = images.put(encoded, len(encoded[0]))
        h, w = image.shape[:2]
        doc = {"input": name, "seconds": round(time.perf_counter() - start, 3),
               "photo": {"id": photo_id, "width": w, "height": h, "preview": _preview_data_url(image)},
               "annotated": f"/api/image/{image_id}",
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
    def solve(body: GridRequest) -> JSONResponse:
        checks = check_grid(body.grid)
        tokens, _ = _grid_from_request(body.grid)
        if not checks["ok"]:
            problems = [p["message"] for p in checks["problems"]]
            return JSONResponse({"status": "invalid", "rows": checks["rows"], "cols": checks["cols"],
                                 "grid": tokens, "solution": None, "unique": None, "corrections": [],
                                 "problems": problems, "checks": checks, "text": None, "annotated": None})
        puzzle = puzzle_from_json({"grid": tokens})
        try:
            result = solve_puzzle_file(puzzle, time_limit_s=body.time_limit)
        except InvalidPuzzleError as exc:  # pragma: no cover - check_grid found these already
            raise ApiError(422, str(exc)) from exc
        doc = _result_json(result)
        doc["annotated"] = None
        photo = photos.get(body.photo) if body.photo else None
        if photo is not None:
            encoded = _draw_on_photo(photo, body.index, puzzle, result)
            if encoded is not None:
                doc["annotated"] = f"/api/image/{images.put(encoded, len(encoded[0]))}"
        return JSONResponse(doc)

    return app


def _draw_on_photo(photo: _Photo, index: int, puzzle: Puzzle, result: PuzzleResult) -> tuple[bytes, str] | None:
    """The edited puzzle's solution drawn on the photo it was read from; None if it no longer fits."""
    if index >= len(photo.results):
        return None
    read = photo.results[index]
    reading = read.reading
    if reading is None or (reading.n_rows, reading.n_cols) != (puzzle.n_rows, puzzle.n_cols):
        return None
    values = dict(result.solution.values) if result.status == "solved" and result.solution else {}
    # Clues that differ from what the reader saw: the reader's own corrections and the user's edits.
    changed = {c.cell for c in read.corrections}
    if read.puzzle is not None:
        before = read.puzzle.clue_at
        changed |= {cell for cell, clue in puzzle.clue_at.items() if before.get(cell) != clue}
    drawn = draw_solution(photo.image, reading.H, reading.lattice, values, corrected=tuple(sorted(changed)))
    return _annotated_bytes(drawn, photo.info)
