"""The stages joined, and the ``kakuro`` command line.

This is the only module that touches argv, logging set-up, output files and exit codes.
"""
from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import logging
import multiprocessing
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any, Callable, Iterable

import cv2
import numpy as np
from threadpoolctl import threadpool_limits

from solver.combos import combinations, sum_range
from solver.errors import InvalidPuzzleError, KakuroError, PuzzleFormatError
from solver.formats import format_text, grid_tokens, parse_puzzle, puzzle_to_json
from solver.model import Cell, Puzzle, Solution
from solver.reconcile import Correction, Reconciled, reconcile_reading
from solver.solve import solve_puzzle
from solver.validate import MISREAD_ASYMMETRY, check_puzzle, layout_asymmetry, mirror_cell
from vision.errors import GridNotFoundError, ImageLoadError
from vision.grid import GridGeometry, locate_puzzles
from vision.imageio import load_image
from vision.light import divide_out_shadow
from vision.overlay import draw_solution
from vision.read import GridReading, complete_clue_border, read_answer_key, read_grid, trim_page_margin

__all__ = ["main", "ExitCode", "PuzzleResult", "PageResult", "solve_image", "annotate_image", "process_page"]

log = logging.getLogger("kakuro")


class ExitCode(IntEnum):
    """Documented in README.md; the worst outcome of a run decides."""

    ok = 0                  # solved, solution unique
    ambiguous = 1           # solved, but more than one solution
    bad_args = 2            # command line misused (as argparse)
    input_file = 3          # input missing, unreadable, not an image or puzzle file, truncated
    grid_not_found = 4      # no puzzle grid on the image
    unsolvable = 5          # clues contradict each other: no solution
    partial_batch = 6       # a batch where some inputs failed
    missing_dependency = 7  # tesseract or another required program is missing
    unreadable = 8          # grid found but some clue could not be read for certain
    invalid_puzzle = 9      # a puzzle file that breaks the rules (impossible clue, ...)
    other_error = 15        # a bug: please report it with -v output
    ctrl_c = 130


_STATUS_EXIT = {"solved": ExitCode.ok, "ambiguous": ExitCode.ambiguous, "unsolvable": ExitCode.unsolvable,
                "unreadable": ExitCode.unreadable, "answer-key": ExitCode.ok}
#: Outcomes that need nothing more from the user: a solved puzzle, an answer key read.
_SETTLED = ("solved", "answer-key")
_SEVERITY = [ExitCode.ok, ExitCode.ambiguous, ExitCode.unreadable, ExitCode.unsolvable]


def _worst(codes: Iterable[ExitCode]) -> ExitCode:
    codes = list(codes)
    return max(codes, key=_SEVERITY.index) if codes else ExitCode.ok


def exit_code_for(exc: BaseException) -> ExitCode:
    """The one place that maps errors to exit codes."""
    if isinstance(exc, KeyboardInterrupt):
        return ExitCode.ctrl_c
    if isinstance(exc, GridNotFoundError):
        return ExitCode.grid_not_found
    if isinstance(exc, InvalidPuzzleError):
        return ExitCode.invalid_puzzle
    if isinstance(exc, (ImageLoadError, PuzzleFormatError, OSError)):
        return ExitCode.input_file
    if isinstance(exc, KakuroError):
        return ExitCode.other_error
    return ExitCode.other_error


# ---------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True, eq=False)
class PuzzleResult:
    """One puzzle from an input, with what became of it.

    status: solved | ambiguous | unsolvable | unreadable. ``reading`` is None for puzzle files.
    """

    status: str
    puzzle: Puzzle | None
    solution: Solution | None
    corners_xy: np.ndarray | None = None
    corrections: tuple[Correction, ...] = ()
    problems: tuple[str, ...] = ()
    reading: GridReading | None = None
    suspects: tuple[tuple[tuple[int, int], str], ...] = ()
    seconds: float = 0.0
    #: Digits found written in white cells that the clues alone make unnecessary: the player's
    #: entries, each (cell, digit, agrees with the solution).
    written: tuple[tuple[tuple[int, int], int, bool], ...] = ()
    #: For an answer key (status ``answer-key``, its digits in ``solution``): the puzzle of the same
    #: image it answers (0-based) and whether that puzzle's solution agrees with it (None: that
    #: puzzle was not solved).
    answer_to: tuple[int, bool | None] | None = None

    def to_json(self) -> dict[str, Any]:
        puzzle, sol = self.puzzle, self.solution
        solved = self.status in ("solved", "ambiguous", "answer-key") and sol is not None and bool(sol.values)
        solution = None
        if puzzle is not None and solved:
            solution = [[sol.values.get((r, c)) for c in range(puzzle.n_cols)] for r in range(puzzle.n_rows)]
        rows, cols = (puzzle.n_rows, puzzle.n_cols) if puzzle else (
            self.reading.n_rows, self.reading.n_cols) if self.reading else (0, 0)
        return {
            "status": self.status,
            "kind": "answer-key" if self.status == "answer-key" else "puzzle",
            "rows": rows,
            "cols": cols,
            "grid": grid_tokens(puzzle) if puzzle else None,
            "solution": solution,
            "unique": (self.status == "solved") if solved and self.status != "answer-key" else None,
            "corners": None if self.corners_xy is None else [[round(float(x), 1), round(float(y), 1)]
                                                              for x, y in self.corners_xy],
            "corrections": [{"row": c.cell[0] + 1, "col": c.cell[1] + 1, "direction": c.direction,
                             "read": c.read, "used": c.used, "forced": c.forced} for c in self.corrections],
            "problems": list(self.problems),
            "written": [{"row": r + 1, "col": c + 1, "digit": d, "correct": ok} for (r, c), d, ok in self.written],
            "answer_to": None if self.answer_to is None else {"puzzle": self.answer_to[0] + 1,
                                                               "agrees": self.answer_to[1]},
            "seconds": round(self.seconds, 3),
        }


def solve_puzzle_file(puzzle: Puzzle, *, time_limit_s: float) -> PuzzleResult:
    start = time.perf_counter()
    check_puzzle(puzzle)
    sol = solve_puzzle(puzzle, time_limit_s=time_limit_s)
    status = {"unique": "solved", "multiple": "ambiguous", "none": "unsolvable"}.get(sol.status, "unsolvable")
    problems = ()
    if sol.status == "none":
        problems = ("no assignment of digits satisfies every clue",)
    elif sol.status == "unknown":
        problems = (f"no answer within the time limit of {time_limit_s:g} s",)
    elif sol.status == "multiple":
        where = ", ".join(f"({r + 1},{c + 1})" for r, c in sol.differing[:12])
        problems = (f"more than one solution; two differ at {where}",)
    return PuzzleResult(status, puzzle, sol, problems=problems, seconds=time.perf_counter() - start)


def solve_image(image: np.ndarray, *, time_limit_s: float = 10.0) -> list[PuzzleResult]:
    """Every puzzle on ``image``: located, read, checked against the rules, solved; reading order.

    Raises
    ------
    GridNotFoundError
        Nothing on the image looks like a puzzle grid.
    """
    try:
        results = _solve_image(image, time_limit_s)
    except GridNotFoundError:
        results = None
    if (results is None or not any(_was_read(r) for r in results)) and _mostly_dark(image, results or []):
        # A screen in dark mode: light lines and digits on dark cells, white cells the darkest.
        # Seen in negative it is a printed grid; the geometry (and so the drawing) is the same.
        try:
            negative = _solve_image(255 - image, time_limit_s)
        except GridNotFoundError:
            negative = []
        if sum(map(_was_read, negative)) > sum(map(_was_read, results or [])):
            log.info("read in negative (light lines on a dark ground)")
            results = negative
    if results is None:
        raise GridNotFoundError()
    return results


def _mostly_dark(image: np.ndarray, results: list[PuzzleResult]) -> bool:
    """Whether most of the grids found, or of the image where none was, is darker than mid-grey
    (a dark ground, as in dark mode).

    The grids decide where there are any: a phone or a dark page photographed on a light desk
    is mostly desk.
    """
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    scale = 256 / max(gray.shape)
    small = cv2.resize(gray, None, fx=min(scale, 1.0), fy=min(scale, 1.0), interpolation=cv2.INTER_AREA)
    inside = np.zeros(small.shape, np.uint8)
    for r in results:
        if r.corners_xy is not None:
            corners = np.asarray(r.corners_xy, np.float64).reshape(-1, 2) * min(scale, 1.0)
            cv2.fillConvexPoly(inside, np.rint(corners).astype(np.int32), 1)
    values = small[inside > 0] if inside.any() else small.ravel()
    return float(np.median(values)) < 128


def _was_read(result: PuzzleResult) -> bool:
    return result.status != "unreadable"


def _solve_image(image: np.ndarray, time_limit_s: float) -> list[PuzzleResult]:
    geometries = locate_puzzles(image)
    if not geometries:
        raise GridNotFoundError()
    results = []
    for geometry in geometries:
        start = time.perf_counter()
        reading = read_grid(image, geometry, second_opinion=False)
        image_read = image
        if reading.shadow:
            image_read, geometry, reading = _relocate_in_even_light(image, geometry, reading)
        geometry, reading = trim_page_margin(image_read, geometry, reading, second_opinion=False)
        geometry, reading = complete_clue_border(image_read, geometry, reading, second_opinion=False)
        key = read_answer_key(reading)
        if key is not None:
            log.info("a %dx%d grid with a digit in every white cell and no clues: an answer key",
                     reading.n_rows, reading.n_cols)
            results.append(PuzzleResult("answer-key", Puzzle(reading.n_rows, reading.n_cols, frozenset(key), ()),
                                        Solution("unique", key), geometry.quad.corners_xy,
                                        reading=reading, seconds=time.perf_counter() - start))
            continue
        if not reading.whites or not reading.sides:
            results.append(PuzzleResult("unreadable", None, None, geometry.quad.corners_xy,
                                        problems=(reading.doubt or "the grid has no white cells or no clues",),
                                        reading=reading,
                                        seconds=time.perf_counter() - start))
            continue
        reading, rec = _check_reading(image_read, geometry, reading, time_limit_s)
        reading, rec = _check_layout(image_read, geometry, reading, rec, time_limit_s)
        rec, written = _entries_apart(reading, rec, time_limit_s)
        results.append(PuzzleResult(rec.status, rec.puzzle, rec.solution, geometry.quad.corners_xy,
                                    rec.corrections, rec.problems, reading, rec.suspect_runs,
                                    time.perf_counter() - start, written))
    results = _check_answer_keys(results)
    # A page of puzzles is worth more than a stray grid-like box: drop unreadable extras when
    # another grid on the image was read.
    if any(r.status != "unreadable" for r in results):
        results = [r for r in results if r.status != "unreadable" or r.puzzle is not None]
    return results


def _check_answer_keys(results: list[PuzzleResult]) -> list[PuzzleResult]:
    """Each answer key with the puzzle of its layout on the same image, and whether they agree."""
    checked = []
    for res in results:
        if res.status == "answer-key":
            key = dict(res.solution.values)
            for k, other in enumerate(results):
                if other.status == "answer-key" or other.puzzle is None:
                    continue
                # The key printed without the puzzle's clue row and column is one cell up and left.
                shift = next((d for d in (0, 1) if {(r - d, c - d) for r, c in other.puzzle.whites} == set(key)), None)
                if shift is not None:
                    solution = {(r - shift, c - shift): v for (r, c), v in other.solution.values.items()} \
                        if other.status == "solved" else None
                    agrees = None if solution is None else solution == key
                    log.info("answer key %s puzzle %d", {True: "agrees with the solution of", None: "is for the "
                             "unsolved", False: "DIFFERS from the solution of"}[agrees], k + 1)
                    res = dataclasses.replace(res, answer_to=(k, agrees))
                    break
        checked.append(res)
    return checked


def _relocate_in_even_light(image: np.ndarray, geometry: GridGeometry, reading: GridReading
                            ) -> tuple[np.ndarray, GridGeometry, GridReading]:
    """The image with a shadow found across the grid evened out, and the grid found again there.

    The shadow's edge is as strong as a grid line to the locator, and the rows in its shadow as
    weak as text: a grid can come out cut short at the edge. Found again in even light, it has
    its full size.
    """
    relit = divide_out_shadow(image, reading.shadow_in_source())
    if relit is None:
        return image, geometry, reading
    centre = geometry.quad.corners_xy.mean(axis=0)
    again = [g for g in locate_puzzles(relit)
             if cv2.pointPolygonTest(g.quad.corners_xy.reshape(-1, 1, 2), (float(centre[0]), float(centre[1])),
                                     False) >= 0]
    if again and again[0].shape != geometry.shape:
        log.info("grid found again in evened-out light: %dx%d (was %dx%d)", *again[0].shape, *geometry.shape)
        geometry = again[0]
    return relit, geometry, read_grid(relit, geometry, second_opinion=False)


def _check_reading(image: np.ndarray, geometry, reading: GridReading, time_limit_s: float,
                   ) -> tuple[GridReading, Reconciled]:
    """The puzzle's rules applied to a reading (read again with a second opinion where needed)."""
    layout = reading.whites
    # A short search first: a reading that needs a long one is read again with tesseract anyway.
    rec = reconcile_reading(reading.n_rows, reading.n_cols, reading.whites, reading.clue_cells,
                            reading.sides, reading.givens, time_limit_s=min(time_limit_s, 1.0))
    if rec.status != "solved" or rec.corrections:
        # The glyph reader alone did not settle it: read again with tesseract's second opinion
        # on the unsure clues (when the rules accept the first reading, this changes nothing).
        reading = read_grid(image, geometry, second_opinion=True, layout=layout)
        rec = reconcile_reading(reading.n_rows, reading.n_cols, reading.whites, reading.clue_cells,
                                reading.sides, reading.givens, time_limit_s=time_limit_s,
                                resemble=reading.resemble, resemble_digits=reading.resemble_digits)
    return reading, rec


def _entries_apart(reading: GridReading, rec: Reconciled, time_limit_s: float
                   ) -> tuple[Reconciled, tuple[tuple[Cell, int, bool], ...]]:
    """The reading solved from its clues alone when they settle it; the digits in white cells then
    become the player's entries, each checked against that solution.

    Typed or neatly written entries look like printed givens, and one wrong entry makes the
    puzzle unsolvable (or, worse, pulls a clue correction its way). A printed given is there
    because the clues alone leave a choice; where they leave none, a digit in a white cell adds
    nothing to the puzzle and is an entry.
    """
    givens = dict(rec.puzzle.givens) if rec.puzzle is not None else {}
    if not givens:
        return rec, ()
    bare = reconcile_reading(reading.n_rows, reading.n_cols, reading.whites, reading.clue_cells,
                             reading.sides, None, time_limit_s=time_limit_s,
                             resemble=reading.resemble, resemble_digits=reading.resemble_digits)
    if bare.status != "solved" or bare.solution is None:
        return rec, ()
    values = bare.solution.values
    written = tuple((cell, digit, values.get(cell) == digit) for cell, digit in sorted(givens.items()))
    wrong = [cell for cell, _, ok in written if not ok]
    if wrong:
        log.info("the clues alone solve the puzzle; %d of %d digits written in white cells disagree: "
                 "entries, not givens", len(wrong), len(written))
    return bare, written


#: Classification confidence from which a cell off the layout's symmetry is taken as printed.
_SURE_CLASS = 0.8
#: Most layout variants read for one grid (each is a whole reading).
_MAX_VARIANTS = 8
#: A layout further off its symmetry than MISREAD_ASYMMETRY may still be misread where each pair
#: off it (up to this many) has a cell this unsure of its class (0.5: on the split).
_MAX_UNSURE_PAIRS = 8
_UNSURE_CLASS = 0.65
#: Share of the cells off the symmetry that, unsure of their class, make a corrected reading
#: of an asymmetric layout too doubtful to call solved.
_UNSURE_SHARE = 0.25
#: Search budget (CP-SAT deterministic units, about seconds) for each layout variant.
_VARIANT_SEARCH_S = 1.0


def _layout_doubts(reading: GridReading) -> tuple[tuple[Cell, ...], list[tuple[tuple[Cell, ...], tuple[bool, ...]]]]:
    """The cells off the layout's symmetry, and the groups of cells in doubt with the kinds each
    group may take (True: white).

    Two witnesses say a cell was misread: the symmetry (a pair off it can be both white or both
    not), and a number printed where the layout has no run (the cell it points to is white; its
    mirror too, to keep the symmetry).
    """
    n_rows, n_cols = reading.n_rows, reading.n_cols
    off = layout_asymmetry(n_rows, n_cols, reading.whites)
    pairs = sorted({tuple(sorted([cell, mirror_cell(n_rows, n_cols, cell)])) for cell in off})
    groups: list[tuple[tuple[Cell, ...], tuple[bool, ...]]] = []
    if len(off) <= MISREAD_ASYMMETRY:
        for pair in pairs:
            groups.append((pair, (True, False)))
    elif len(pairs) <= _MAX_UNSURE_PAIRS:
        # Further off, a cell of each pair looked unsure (near the white / non-white split) and
        # its mirror clearly printed: the pair takes the sure cell's kind. Only all such pairs
        # together make a variant (light that misleads the classifier misleads it in one region).
        confidence = reading.classes.confidence
        for a, b in pairs:
            unsure, sure = sorted((a, b), key=lambda cell: confidence[cell])
            if confidence[unsure] > _UNSURE_CLASS or confidence[sure] < confidence[unsure] + 0.15:
                groups = []
                break
            groups.append(((a, b), (sure in reading.whites,)))
    taken = {cell for group, _ in groups for cell in group}
    for (r, c), direction, _ in reading.stray:
        cell = (r + 1, c) if direction == "down" else (r, c + 1)
        if not (1 <= cell[0] < n_rows and 1 <= cell[1] < n_cols) or cell in reading.whites or cell in taken:
            continue
        group = tuple(sorted({cell, mirror_cell(n_rows, n_cols, cell)} - set(reading.whites)))
        groups.append((group, (True,)))
        taken.update(group)
    return off, groups


def _check_layout(image: np.ndarray, geometry, reading: GridReading, rec: Reconciled,
                  time_limit_s: float) -> tuple[GridReading, Reconciled]:
    """Read the layout again where the puzzle's own witnesses doubt it (see ``_layout_doubts``).

    A white cell in a shadow taken for a block can leave a puzzle that still has one solution,
    a wrong one. Each variant of the cells in doubt is read; one the rules solve is taken when it
    is the only one. When none is, a solved reading off the symmetry by one pair (or by two
    that did not look clearly printed) is not called solved.
    """
    off, groups = _layout_doubts(reading)
    unsure = [cell for cell in off if reading.classes.confidence[cell] < _UNSURE_CLASS]
    if rec.status == "solved" and rec.corrections and len(off) > MISREAD_ASYMMETRY \
            and len(unsure) >= _UNSURE_SHARE * len(off):
        # Far off its symmetry, with cells of unsure class, and clues that fit only corrected: a
        # layout misread over a region (a deep soft shadow) can still have one solution.
        problem = (f"the layout is off its symmetry in {len(off)} cells, some of unsure class "
                   f"({_cells_text(unsure[:6])}), and the clues fit it only corrected; check the cells")
        return reading, _not_solved(rec, problem, unsure)
    if not groups:
        return reading, rec
    solved = []
    choices = itertools.product(*(kinds for _, kinds in groups))
    for choice in itertools.islice(choices, _MAX_VARIANTS):
        whites = set(reading.whites)
        for (cells, _), white in zip(groups, choice):
            for cell in cells:
                (whites.add if white else whites.discard)(cell)
        if whites == set(reading.whites):
            continue
        variant = read_grid(image, geometry, second_opinion=False, layout=frozenset(whites))
        if not variant.sides or variant.doubt is not None:
            continue
        # A variant is worth taking when the rules settle it at once: a short search only.
        variant, variant_rec = _check_reading(image, geometry, variant, min(time_limit_s, _VARIANT_SEARCH_S))
        if variant_rec.status == "solved":
            solved.append((variant, variant_rec))
    doubted = tuple(sorted({cell for cells, _ in groups for cell in cells}))
    where = _cells_text(doubted)
    # Far off the symmetry, the printed layout may be asymmetric: the variant only replaces a
    # reading the rules reject.
    near = len(off) <= MISREAD_ASYMMETRY
    if len(solved) == 1 and (near or rec.status != "solved"):
        log.info("layout in doubt at %s: read as the variant the rules solve", where)
        return solved[0]
    if solved and near:
        problem = f"the cells at {where} may be white or not: the puzzle can be solved either way"
    elif rec.status == "solved" and 0 < len(off) <= MISREAD_ASYMMETRY and (len(off) < MISREAD_ASYMMETRY or any(
            reading.classes.confidence[cell] < _SURE_CLASS for cell in off)):
        problem = (f"the layout is symmetric except at {_cells_text(off)}, which usually means a cell was "
                   "misread; check those cells")
        doubted = off
    else:
        return reading, rec
    return reading, _not_solved(rec, problem, doubted)


def _not_solved(rec: Reconciled, problem: str, cells: Iterable[Cell]) -> Reconciled:
    """``rec`` reported unreadable for ``problem``; the doubtful cells join the suspects as whole
    cells (direction "cell"), marked on the image."""
    return dataclasses.replace(rec, status="unreadable", problems=rec.problems + (problem,),
                               suspect_runs=rec.suspect_runs + tuple((cell, "cell") for cell in cells))


def _cells_text(cells: Iterable[Cell]) -> str:
    return ", ".join(f"row {r + 1}, column {c + 1}" for r, c in cells)


def annotate_image(image: np.ndarray, results: list[PuzzleResult]) -> np.ndarray:
    """The original image with each puzzle's solution, corrections and trouble spots drawn on it."""
    out = image
    for res in results:
        if res.reading is None or res.status == "answer-key":
            continue
        values = dict(res.solution.values) if res.status == "solved" and res.solution else {}
        # The player's entries stay as written; a wrong one is circled with the right digit beside it.
        wrong = tuple((cell, values[cell]) for cell, _, ok in res.written if not ok and cell in values)
        for cell, _, _ in res.written:
            values.pop(cell, None)
        corrected = tuple(sorted({c.cell for c in res.corrections}))
        conflicts: tuple = ()
        unreadable: tuple = ()
        if res.status == "unsolvable" and res.puzzle is not None:
            runs = {(run.clue, run.direction): run.cells for run in res.puzzle.runs}
            conflicts = tuple((cell, runs.get((cell, d), ())) for cell, d in res.suspects)
        elif res.status in ("unreadable", "ambiguous"):
            unreadable = tuple(sorted({cell for cell, _ in res.suspects}))
        out = draw_solution(out, res.reading.H, res.reading.lattice, values, corrected=corrected,
                            conflicts=conflicts, unreadable=unreadable, wrong=wrong)
    return out


# ---------------------------------------------------------------------------------------------
# Files


def write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """Write through a temporary file in the same folder, then rename: never a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_image(path: Path, image: np.ndarray) -> None:
    import cv2

    def write(tmp: Path) -> None:
        ok, buf = cv2.imencode(path.suffix or ".png", image)
        if not ok:
            raise PuzzleFormatError(f"{path}: cannot encode an image with suffix {path.suffix!r}")
        tmp.write_bytes(buf.tobytes())

    write_atomically(path, write)


def _write_debug(folder: Path, stem: str, image: np.ndarray, results: list[PuzzleResult]) -> None:
    from vision.debug import draw_stages

    readings = [r.reading for r in results if r.reading is not None]
    pictures = draw_stages(image, [r.corners_xy for r in results if r.corners_xy is not None], readings)
    for name, picture in pictures.items():
        _write_image(folder / f"{stem}-{name}.png", picture)
    log.info("stage pictures written to %s", folder)


def _load_input(path: Path) -> tuple[Puzzle | None, np.ndarray | None]:
    """A puzzle file (text, JSON, CSP) or an image, told apart by content."""
    if not path.exists():
        raise ImageLoadError(path, "file not found; check the path")
    if path.is_dir():
        raise ImageLoadError(path, "is a folder; use `kakuro batch` for folders")
    head = path.open("rb").read(4096)
    if head.startswith(b"%PDF"):
        raise ImageLoadError(path, "is a PDF; use `kakuro batch FILE.pdf --out DIR` for PDF pages")
    try:
        text_head = head.decode("utf-8-sig")
    except UnicodeDecodeError:
        text_head = None
    if text_head is not None and head and b"\x00" not in head:
        return parse_puzzle(path.read_text(encoding="utf-8-sig"), str(path)), None
    return None, load_image(path)


# ---------------------------------------------------------------------------------------------
# Commands


def _print_result_text(res: PuzzleResult, index: int, total: int) -> None:
    head = f"puzzle {index + 1} of {total}: " if total > 1 else ""
    if res.puzzle is not None:
        values = res.solution.values if res.solution and res.status in ("solved", "ambiguous", "answer-key") else {}
        sys.stdout.write(format_text(res.puzzle, values))
    summary = {"solved": "solved; the solution is unique", "ambiguous": "solved, but NOT unique",
               "unsolvable": "no solution", "unreadable": "could not be read for certain",
               "answer-key": "an answer key (a solved grid), not a puzzle"}[res.status]
    log.info("%s%s", head, summary)
    for c in res.corrections:
        log.warning("%scorrected clue: %s", head, c.describe())
    for p in res.problems:
        (log.info if res.status == "solved" else log.warning)("%s%s", head, p)


def cmd_solve(args: argparse.Namespace) -> int:
    path = Path(args.input)
    start = time.perf_counter()
    puzzle, image = _load_input(path)
    if puzzle is not None:
        results = [solve_puzzle_file(puzzle, time_limit_s=args.time_limit)]
    else:
        try:
            results = solve_image(image, time_limit_s=args.time_limit)
        except GridNotFoundError:
            if args.debug:
                _write_debug(Path(args.debug), path.stem, image, [])
            raise
        out = Path(args.output) if args.output else Path(f"{path.stem}.solved.png")
        _write_image(out, annotate_image(image, results))
        log.info("annotated image written to %s", out)
        if args.debug:
            _write_debug(Path(args.debug), path.stem, image, results)
    if args.json:
        doc = {"input": str(path), "puzzles": [r.to_json() for r in results],
               "seconds": round(time.perf_counter() - start, 3)}
        sys.stdout.write(json.dumps(doc) + "\n")
    else:
        for i, res in enumerate(results):
            _print_result_text(res, i, len(results))
    return int(_worst(_STATUS_EXIT[r.status] for r in results))


def cmd_check(args: argparse.Namespace) -> int:
    path = Path(args.input)
    puzzle, image = _load_input(path)
    if puzzle is None:
        raise PuzzleFormatError(f"{path}: `kakuro check` takes a puzzle file (text, JSON or CSP), not an image")
    res = solve_puzzle_file(puzzle, time_limit_s=args.time_limit)
    sol = res.solution
    print(f"{path}: valid, {len(puzzle.whites)} white cells, {len(puzzle.runs)} runs")
    if res.status == "solved":
        print("exactly one solution:")
        print(format_text(puzzle, sol.values), end="")
    elif res.status == "ambiguous":
        print("more than one solution; two of them:")
        print(format_text(puzzle, sol.values), end="")
        print()
        print(format_text(puzzle, sol.other or {}), end="")
        print("they differ at (row, column): " + ", ".join(f"({r + 1},{c + 1})" for r, c in sol.differing))
    else:
        print(res.problems[0] if res.problems else "no solution")
    return int(_STATUS_EXIT[res.status])


def cmd_combos(args: argparse.Namespace) -> int:
    total, length = args.sum, args.length
    if not 1 <= length <= 9:
        raise PuzzleFormatError(f"length {length}: a run has 1 to 9 cells")
    lo, hi = sum_range(length)
    combos = combinations(total, length)
    if not combos:
        print(f"{total} in {length}: impossible (a run of {length} sums to {lo}..{hi})")
        return int(ExitCode.unsolvable)
    common = set(combos[0]).intersection(*combos[1:])
    print(f"{total} in {length}: {len(combos)} combination(s)")
    for combo in combos:
        print("  " + " ".join(str(d) for d in combo))
    print("in every combination: " + (" ".join(str(d) for d in sorted(common)) if common else "none"))
    return int(ExitCode.ok)


# ---------------------------------------------------------------------------------------------
# Batch: folders and PDF books, one page per unit of work

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".tif", ".tiff", ".bmp", ".heic", ".heif"}


@dataclass(frozen=True)
class BatchOptions:
    out_dir: Path
    dpi: int = 300
    time_limit_s: float = 10.0
    force: bool = False


@dataclass(frozen=True)
class PageJob:
    source: Path
    page: int | None  # 0-based page of a PDF; None for an image file

    @property
    def stem(self) -> str:
        return self.source.stem + (f"-p{self.page + 1}" if self.page is not None else "")


@dataclass(frozen=True)
class PageResult:
    """What one page gave: one summary row per puzzle (or one row saying why the page failed)."""

    job: PageJob
    rows: tuple[dict[str, Any], ...]
    error: str | None = None
    exit_code: int = 0


def expand_inputs(inputs: list[str]) -> tuple[list[PageJob], list[PageResult]]:
    """Image files, folders (recursively) and PDFs -> page jobs; inputs that fail at once -> results."""
    from vision.imageio import count_pdf_pages

    jobs: list[PageJob] = []
    failed: list[PageResult] = []
    files: list[Path] = []
    for item in inputs:
        path = Path(item)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*")
                                if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES | {".pdf"}))
        else:
            files.append(path)
    for path in files:
        if path.suffix.lower() == ".pdf":
            try:
                jobs.extend(PageJob(path, i) for i in range(count_pdf_pages(path)))
            except KakuroError as exc:
                failed.append(_failed_page(PageJob(path, None), exc))
        else:
            jobs.append(PageJob(path, None))
    return jobs, failed


def _failed_page(job: PageJob, exc: BaseException) -> PageResult:
    message = str(exc)
    if not message.startswith(str(job.source)):
        message = f"{job.source}: {message}"
    if job.page is not None:
        message = f"{message} (page {job.page + 1})" if "page" not in message else message
    row = {"input": str(job.source), "page": None if job.page is None else job.page + 1, "index": None,
           "status": "error", "unique": None, "corrections": 0, "seconds": 0.0, "error": message}
    return PageResult(job, (row,), message, int(exit_code_for(exc)))


def _result_path(options: BatchOptions, job: PageJob) -> Path:
    return options.out_dir / f"{job.stem}.result.json"


def process_page(job: PageJob, options: BatchOptions) -> PageResult:
    """Read, solve and write the outputs of every puzzle on one page; never raises for bad input."""
    from vision.imageio import load_pdf_page

    done = _result_path(options, job)
    if done.exists() and not options.force:
        try:
            data = json.loads(done.read_text())
            return PageResult(job, tuple(data["rows"]), data.get("error"), data.get("exit_code", 0))
        except (OSError, ValueError, KeyError):
            pass  # an unreadable record is redone
    start = time.perf_counter()
    try:
        image = load_pdf_page(job.source, job.page, options.dpi) if job.page is not None else load_image(job.source)
        results = solve_image(image, time_limit_s=options.time_limit_s)
    except (KakuroError, OSError, ValueError) as exc:
        result = _failed_page(job, exc)
    except Exception as exc:  # a bug on one page must not stop the book
        log.debug("page failed", exc_info=True)
        result = _failed_page(job, RuntimeError(f"internal error: {type(exc).__name__}: {exc}"))
        result = PageResult(job, result.rows, result.error, int(ExitCode.other_error))
    else:
        annotated = annotate_image(image, results)
        _write_image(options.out_dir / f"{job.stem}.png", annotated)
        rows = []
        for k, res in enumerate(results, start=1):
            name = job.stem + (f"-{k}" if len(results) > 1 else "")
            if res.puzzle is not None:
                values = dict(res.solution.values) if res.solution and res.status == "solved" else None
                text = format_text(res.puzzle, values)
                write_atomically(options.out_dir / f"{name}.txt", lambda t, text=text: t.write_text(text))
            doc = {"input": str(job.source), "page": None if job.page is None else job.page + 1, "index": k,
                   **res.to_json()}
            write_atomically(options.out_dir / f"{name}.json", lambda t, doc=doc: t.write_text(json.dumps(doc)))
            if len(results) > 1 and res.corners_xy is not None:
                x0, y0 = np.maximum(res.corners_xy.min(axis=0) - 20, 0).astype(int)
                x1, y1 = (res.corners_xy.max(axis=0) + 20).astype(int)
                _write_image(options.out_dir / f"{name}.png", annotated[y0:y1, x0:x1])
            rows.append({"input": str(job.source), "page": doc["page"], "index": k, "status": res.status,
                         "unique": doc["unique"], "corrections": len(res.corrections),
                         "seconds": round(res.seconds, 3), "error": "; ".join(res.problems) or None})
        code = _worst(_STATUS_EXIT[r.status] for r in results)
        result = PageResult(job, tuple(rows), None, int(code))
    seconds = round(time.perf_counter() - start, 3)
    record = {"rows": list(result.rows), "error": result.error, "exit_code": result.exit_code, "seconds": seconds}
    write_atomically(done, lambda t: t.write_text(json.dumps(record)))
    return result


def _init_worker() -> None:
    import cv2

    from vision.glyphs import default_classifier

    cv2.setNumThreads(1)
    # The pool keeps every core busy: numpy threading its matrix products on top oversubscribes
    # them (2 jobs on 2 cores gave 1.39x the pages of 1 job, 1.78x with one thread each).
    threadpool_limits(limits=1)
    # Ctrl-C is the parent's to handle: it cancels the pool, workers just stop.
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    default_classifier()


def _write_summary(out_dir: Path, results: list[PageResult]) -> None:
    import csv
    import io

    rows = [row for r in results for row in r.rows]
    write_atomically(out_dir / "summary.json", lambda t: t.write_text(json.dumps(rows, indent=1)))
    buf = io.StringIO()
    fields = ["input", "page", "index", "status", "unique", "corrections", "seconds", "error"]
    writer = csv.DictWriter(buf, fieldnames=fields)
    writer.writeheader()
    writer.writerows(rows)
    write_atomically(out_dir / "summary.csv", lambda t: t.write_text(buf.getvalue()))


def _write_book(out_dir: Path, results: list[PageResult]) -> Path:
    from PIL import Image

    pages = []
    for r in results:
        path = out_dir / f"{r.job.stem}.png"
        if path.exists():
            pages.append(Image.open(path).convert("RGB"))
    target = out_dir / "solved.pdf"
    if pages:
        write_atomically(target, lambda t: pages[0].save(t, format="PDF", save_all=True, append_images=pages[1:]))
    return target


def cmd_batch(args: argparse.Namespace) -> int:
    from concurrent.futures import ProcessPoolExecutor, as_completed

    options = BatchOptions(Path(args.out), dpi=args.dpi, time_limit_s=args.time_limit, force=args.force)
    options.out_dir.mkdir(parents=True, exist_ok=True)
    jobs, results = expand_inputs(args.inputs)
    for r in results:
        log.warning("%s", r.error)
    if not jobs and not results:
        raise PuzzleFormatError("no images or PDFs found in " + ", ".join(args.inputs))
    jobs_n = max(1, args.jobs or os.cpu_count() or 1)
    progress = None
    if sys.stderr.isatty() and not args.quiet:
        from rich.progress import Progress

        progress = Progress(transient=False)
        task = progress.add_task("pages", total=len(jobs))
        progress.start()
    try:
        if jobs_n == 1 or len(jobs) == 1:
            _init_worker_parent()
            with threadpool_limits(limits=1):  # one job is one core, as in each worker
                for job in jobs:
                    results.append(_report(process_page(job, options), progress, args.fail_fast))
        else:
            # "spawn": forking a parent whose OpenCV/OR-Tools threads may hold locks can hang a worker.
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(min(jobs_n, len(jobs)), mp_context=context, initializer=_init_worker) as pool:
                futures = [pool.submit(process_page, job, options) for job in jobs]
                try:
                    for fut in as_completed(futures):
                        results.append(_report(fut.result(), progress, args.fail_fast))
                except BaseException:
                    for f in futures:
                        f.cancel()
                    raise
    except _FailFast as stop:
        results.append(stop.result)
    finally:
        if progress is not None:
            progress.stop()
    order = {job: i for i, job in enumerate(jobs)}
    results.sort(key=lambda r: (order.get(r.job, -1), str(r.job.source)))
    _write_summary(options.out_dir, results)
    if args.pdf:
        log.info("book written to %s", _write_book(options.out_dir, results))
    puzzles = [row for r in results for row in r.rows]
    solved = sum(1 for row in puzzles if row["status"] == "solved")
    failed_pages = sum(1 for r in results if r.error)
    log.info("%d page(s), %d puzzle(s): %d solved, %d not solved, %d page(s) failed; summary in %s",
             len(results), sum(1 for row in puzzles if row["index"]), solved,
             sum(1 for row in puzzles if row["index"] and row["status"] not in _SETTLED), failed_pages,
             options.out_dir / "summary.csv")
    if args.json:
        sys.stdout.write(json.dumps({"out": str(options.out_dir), "rows": puzzles}) + "\n")
    everything_fine = failed_pages == 0 and all(row["status"] in _SETTLED for row in puzzles)
    return int(ExitCode.ok if everything_fine else ExitCode.partial_batch)


class _FailFast(Exception):
    """The first page that failed, with --fail-fast: it still goes into the summary."""

    def __init__(self, result: PageResult):
        super().__init__(str(result.job.source))
        self.result = result


def _init_worker_parent() -> None:
    from vision.glyphs import default_classifier

    default_classifier()


def _report(result: PageResult, progress, fail_fast: bool) -> PageResult:
    where = str(result.job.source) + (f" page {result.job.page + 1}" if result.job.page is not None else "")
    if result.error:
        log.warning("%s", result.error)
    else:
        for row in result.rows:
            if row["status"] not in _SETTLED:
                log.warning("%s puzzle %s: %s%s", where, row["index"], row["status"],
                            f": {row['error']}" if row["error"] else "")
    if progress is not None:
        progress.advance(progress.task_ids[0])
    if fail_fast and (result.error or any(row["status"] not in _SETTLED for row in result.rows)):
        raise _FailFast(result)
    return result


def cmd_serve(args: argparse.Namespace) -> int:
    """The local web page (``web/``): upload a photo, fix clues, solve; until Ctrl-C."""
    try:
        import uvicorn

        from web.app import create_app
    except ImportError as exc:
        log.error("`kakuro serve` needs fastapi, uvicorn and python-multipart (%s); "
                  "install the project again with pip install -e .", exc)
        return int(ExitCode.missing_dependency)
    import socket

    try:  # uvicorn would only log a bind failure and exit 1; say what to do instead
        family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
        with socket.create_server((args.host, args.port), family=family):
            pass
    except OSError as exc:
        log.error("cannot listen on %s:%d (%s); choose another --port or --host", args.host, args.port,
                  exc.strerror or exc)
        return int(ExitCode.bad_args)
    log.info("open http://%s:%d/ in a browser (Ctrl-C stops)", args.host, args.port)
    uvicorn.run(create_app(), host=args.host, port=args.port, log_level="warning")
    return int(ExitCode.ok)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kakuro", description="Read, check and solve Kakuro puzzles.",
                                     fromfile_prefix_chars="@")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more detail (tracebacks with -vv)")
    parser.add_argument("-q", "--quiet", action="store_true", help="only errors on stderr")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("solve", help="solve a photo, scan or puzzle file")
    p.add_argument("input", help="image (JPEG, PNG, WebP, TIFF, HEIC) or puzzle file (text, JSON, CSP)")
    p.add_argument("-o", "--output", help="annotated image to write (default: ./STEM.solved.png)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--debug", metavar="DIR", help="write one picture per stage into DIR")
    p.add_argument("--time-limit", type=float, default=10.0, metavar="S", help="solver time limit (default 10)")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("batch", help="solve folders of photos and PDF puzzle books, in parallel")
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="image files, folders (recursive) and PDFs")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for the outputs and summary.csv/json")
    p.add_argument("-j", "--jobs", type=int, default=0, metavar="N", help="worker processes (default: cores)")
    p.add_argument("--dpi", type=int, default=300, help="PDF rasterisation resolution (default 300)")
    p.add_argument("--pdf", action="store_true", help="also assemble the annotated pages into OUT/solved.pdf")
    p.add_argument("--force", action="store_true", help="redo pages already done in OUT")
    p.add_argument("--fail-fast", action="store_true", help="stop at the first page that fails")
    p.add_argument("--json", action="store_true", help="print one JSON object with every summary row")
    p.add_argument("--time-limit", type=float, default=10.0, metavar="S")
    p.set_defaults(func=cmd_batch)

    p = sub.add_parser("check", help="validate a puzzle file and report whether its solution is unique")
    p.add_argument("input")
    p.add_argument("--time-limit", type=float, default=30.0, metavar="S")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("combos", help="digit combinations for a sum over a run length")
    p.add_argument("sum", type=int)
    p.add_argument("length", type=int)
    p.set_defaults(func=cmd_combos)

    p = sub.add_parser("serve", help="a local web page: upload a photo, fix clues, solve")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.set_defaults(func=cmd_serve)
    return parser


def _setup_logging(verbose: int, quiet: bool) -> None:
    level = logging.ERROR if quiet else logging.DEBUG if verbose >= 2 else logging.INFO
    root = logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "_kakuro", False):
            root.removeHandler(h)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("kakuro: %(message)s"))
    handler._kakuro = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)
    # Library chatter below warnings is noise for a user unless asked for.
    for name in ("vision", "solver"):
        logging.getLogger(name).setLevel(logging.DEBUG if verbose else logging.WARNING)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on misuse, 0 on --help
        return int(exc.code or 0)
    _setup_logging(args.verbose, args.quiet)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        log.error("interrupted")
        return int(ExitCode.ctrl_c)
    except (KakuroError, OSError) as exc:
        message = str(exc)
        source = getattr(args, "input", None)
        if source and not message.startswith(str(source)):
            message = f"{source}: {message}"
        log.error("%s", message)
        if args.verbose >= 2:
            log.exception("details")
        return int(exit_code_for(exc))
    except Exception as exc:  # a bug: say so in one line; the traceback with -vv
        log.error("internal error: %s: %s (run with -vv and report it)", type(exc).__name__, exc)
        if args.verbose >= 2:
            log.exception("details")
        return int(ExitCode.other_error)


if __name__ == "__main__":
    sys.exit(main())
