"""The stages joined, in order, and the public Python API.

The README's stages, top-down in this module: 1 **load** (``load_input``); 2-5 **locate** every
grid, **even out the light** across it, **classify** its cells and **read** its clues (``read``,
one ``Reading`` per grid); 6-7 **check** the reading against the rules of Kakuro and **solve** it
(``check``, one ``PuzzleResult``); 8 **draw** the solutions onto the original (``annotate_image``).
``solve_image`` runs 2-7 on a numpy array. Nothing here touches argv, output files or exit codes:
the command line (``cli``), the batch engine (``batch``) and the web page (``web``) are clients.
"""
from __future__ import annotations

import dataclasses
import itertools
import logging
import math
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Iterable

import cv2
import numpy as np

from solver.errors import ExitCode, PuzzleFormatError
from solver.formats import grid_tokens, parse_puzzle
from solver.model import Cell, Puzzle, Solution, run_cells
from solver.reconcile import RIVAL_ODDS, Correction, Reconciled, reconcile_reading, sides_text
from solver.solve import solve_puzzle
from solver.techniques import Step, next_step
from solver.validate import MISREAD_ASYMMETRY, check_puzzle, layout_asymmetry, mirror_cell
from vision.cells import diagonal_slants, measure_cells
from vision.errors import GridNotFoundError, ImageLoadError
from vision.grid import GridGeometry, lined_both_ways, locate_in_other_outlines, locate_puzzles
from vision.histograms import percentile
from vision.imageio import IMAGE_SUFFIXES, load_image
from vision.light import divide_out_shadow
from vision.overlay import draw_solution
from vision.written import SURE as WRITTEN_SURE, read_written_digits
from vision.read import (GLANCE_CELLS, GridReading, complete_clue_border, glance_at_grid, lined_darker_than_cells, look_at_grid,
                         number_pad, numbers_in_blocks, read_answer_key, read_numbers, trim_page_margin)

__all__ = ["Status", "PuzzleResult", "Reading", "load_input", "solve_image", "read", "check", "annotate_image",
           "solution_marks", "read_progress", "hint_for", "annotate_hint", "solve_puzzle_file", "worst_exit_code"]

log = logging.getLogger("kakuro")


class Status(StrEnum):
    """What became of one puzzle; a string, so JSON and comparisons with text keep working."""

    solved = "solved"            # one solution, found
    ambiguous = "ambiguous"      # solved, but the clues (as read) allow more than one solution
    unsolvable = "unsolvable"    # the clues contradict each other
    unreadable = "unreadable"    # a clue or the layout could not be read for certain
    answer_key = "answer-key"    # a solved grid with no clues: nothing to solve

    @property
    def exit_code(self) -> ExitCode:
        return _STATUS_EXIT[self]

    @property
    def settled(self) -> bool:
        """Whether it needs nothing more from the user: a solved puzzle, an answer key read."""
        return self in (Status.solved, Status.answer_key)


_STATUS_EXIT = {Status.solved: ExitCode.ok, Status.ambiguous: ExitCode.ambiguous,
                Status.unsolvable: ExitCode.unsolvable, Status.unreadable: ExitCode.unreadable,
                Status.answer_key: ExitCode.ok}
_SEVERITY = [ExitCode.ok, ExitCode.ambiguous, ExitCode.unreadable, ExitCode.unsolvable]


def worst_exit_code(statuses: Iterable[str]) -> ExitCode:
    """The exit code of a run that gave these statuses: the worst of theirs (ok for none)."""
    codes = [Status(s).exit_code for s in statuses]
    return max(codes, key=_SEVERITY.index) if codes else ExitCode.ok


@dataclass(frozen=True, eq=False)
class PuzzleResult:
    """One puzzle from an input, with what became of it.

    ``status`` may be given as text; it is kept as a ``Status``. ``reading`` is None for puzzle files.
    """

    status: Status
    puzzle: Puzzle | None
    solution: Solution | None
    corners_xy: np.ndarray | None = None
    corrections: tuple[Correction, ...] = ()
    problems: tuple[str, ...] = ()
    reading: GridReading | None = None
    suspects: tuple[tuple[tuple[int, int], str], ...] = ()
    seconds: float = 0.0
    #: Digits found written in white cells that the clues alone make unnecessary: the player's
    #: entries, each (cell, digit, agrees with the solution; None where the puzzle is not solved).
    written: tuple[tuple[tuple[int, int], int, bool | None], ...] = ()
    #: For an answer key (status ``answer-key``, its digits in ``solution``): the puzzle of the same
    #: image it answers (0-based) and whether that puzzle's solution agrees with it (None: that
    #: puzzle was not solved).
    answer_to: tuple[int, bool | None] | None = None
    #: Degrees clockwise (0, 90, 180, 270) the grid lay turned from upright on the image, read
    #: turned back.
    turned: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))

    def to_json(self) -> dict[str, Any]:
        puzzle, sol = self.puzzle, self.solution
        solved = self.status in (Status.solved, Status.ambiguous, Status.answer_key) and sol is not None \
            and bool(sol.values)
        solution = None
        if puzzle is not None and solved:
            solution = [[sol.values.get((r, c)) for c in range(puzzle.n_cols)] for r in range(puzzle.n_rows)]
        rows, cols = (puzzle.n_rows, puzzle.n_cols) if puzzle else (
            self.reading.n_rows, self.reading.n_cols) if self.reading else (0, 0)
        return {
            "status": self.status,
            "kind": "answer-key" if self.status == Status.answer_key else "puzzle",
            "rows": rows,
            "cols": cols,
            "grid": grid_tokens(puzzle) if puzzle else None,
            "solution": solution,
            "unique": (self.status == Status.solved) if solved and self.status != Status.answer_key else None,
            "corners": None if self.corners_xy is None else [[round(float(x), 1), round(float(y), 1)]
                                                              for x, y in self.corners_xy],
            "corrections": [{"row": c.cell[0] + 1, "col": c.cell[1] + 1, "direction": c.direction,
                             "read": c.read, "used": c.used, "forced": c.forced, "by": c.source}
                            for c in self.corrections],
            "problems": list(self.problems),
            "written": [{"row": r + 1, "col": c + 1, "digit": d, "correct": ok} for (r, c), d, ok in self.written],
            "answer_to": None if self.answer_to is None else {"puzzle": self.answer_to[0] + 1,
                                                               "agrees": self.answer_to[1]},
            "turned": self.turned,
            "seconds": round(self.seconds, 3),
        }


def load_input(path: Path) -> tuple[Puzzle | None, np.ndarray | None]:
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
        try:
            return parse_puzzle(path.read_text(encoding="utf-8-sig"), str(path)), None
        except PuzzleFormatError:
            if path.suffix.lower() not in IMAGE_SUFFIXES:
                raise
            # Named as an image: a page saved in place of the picture, not a puzzle mistyped.
            raise ImageLoadError(path, "not an image: the file holds text; re-export or re-download the image") from None
    return None, load_image(path)


def solve_image(image: np.ndarray, *, time_limit_s: float = 10.0) -> list[PuzzleResult]:
    """Every puzzle on ``image``: located and read (``read``), checked against the rules and solved
    (``check``), in reading order.

    Raises
    ------
    GridNotFoundError
        Nothing on the image looks like a puzzle grid.
    """
    try:
        results = _read_and_check(image, time_limit_s)
    except GridNotFoundError:
        results = None
    unlocated = results is None
    if (results is None or not any(_was_read(r) for r in results)) and _mostly_dark(image, results or []) \
            and not lined_darker_than_cells([r.reading for r in results or [] if r.reading is not None]):
        # A screen in dark mode: light lines and digits on dark cells, white cells the darkest.
        # Seen in negative it is a printed grid; the geometry (and so the drawing) is the same.
        try:
            negative = _read_and_check(255 - image, time_limit_s)
        except GridNotFoundError:
            negative = []
        if sum(map(_was_read, negative)) > sum(map(_was_read, results or [])):
            log.info("read in negative (light lines on a dark ground)")
            results = negative
        if unlocated and (results is None or not any(map(_was_read, results))):
            # Light lines round cells barely lighter than the ground (a phone's dark theme, its
            # white cells the grey of the screen and its blocks black): the lines show the grid
            # only in negative, while the cells' tones read as print (blocks the darkest) only
            # as they are.
            try:
                as_is = _read_and_check(image, time_limit_s, locate_in=255 - image)
            except GridNotFoundError:
                as_is = []
            if sum(map(_was_read, as_is)) > sum(map(_was_read, results or [])):
                log.info("grid located in negative, its cells read as they are")
                results = as_is
    if results is None:
        raise GridNotFoundError()
    return results


def _read_and_check(image: np.ndarray, time_limit_s: float, *, turn: bool = True,
                    locate_in: np.ndarray | None = None) -> list[PuzzleResult]:
    """The puzzles of ``image`` read and checked; their grids located in ``locate_in`` (the image
    itself where None: another rendering of it, pixel for pixel)."""
    looks = _look_at_grids(image, locate_in)
    # The largest grid speaks for the page (a page is scanned turned as a whole), at its first
    # look: a grid lying turned is read upright before its numbers are read as it lies. One
    # whose lines show both ways first: a column of text beside a grid passes for a larger one,
    # its lines of text the rows and its columns fitted to them.
    witness = max(looks, key=lambda item: (lined_both_ways(item[0]), item[1].n_rows * item[1].n_cols))[1]
    turns, sure = turns_to_try(witness) if turn else ((), False)
    turned = _read_turned(image, turns, time_limit_s, locate_in) if sure else None
    if turned is not None and _read_score(turned)[0]:
        return turned
    readings = [_read_grid(image, geometry, look, seconds) for geometry, look, seconds in looks]
    results = [check(reading, time_limit_s=time_limit_s) for reading in readings]
    results = _check_answer_keys([_read_other_outlines(image, geometry, res, time_limit_s)
                                  if res.status == Status.unreadable else res
                                  for (geometry, _, _), res in zip(looks, results)], time_limit_s)
    if turns and not sure and not _read_score(results)[0]:
        turned = _read_turned(image, turns, time_limit_s, locate_in)
    if turned is not None and _read_score(turned) > _read_score(results):
        return turned
    # A page of puzzles is worth more than a stray grid-like box: drop unreadable extras when
    # another grid on the image was read.
    if any(r.status != Status.unreadable for r in results):
        results = [r for r in results if r.status != Status.unreadable or r.puzzle is not None]
        # And an unreadable box whose "clue cells" hold not one legible number: an app's button
        # or panel, an answer grid whose digits failed, not a puzzle worth a failing exit.
        results = [r for r in results if r.status != Status.unreadable or _legible_clues(r)]
    # So is a box whose cells could not be a Kakuro's (a block of text, a sudoku) beside a grid
    # that could, however badly that one was read.
    if any(_kakuro_layout(r) for r in results):
        results = [r for r in results if _kakuro_layout(r) or r.status != Status.unreadable]
    return results


def turns_to_try(reading: GridReading) -> tuple[tuple[int, ...], bool]:
    """The quarter turns clockwise a grid may lie from upright, likeliest first, and whether its
    witnesses are sure of it (then it is read turned before it is checked as it lies).

    Two witnesses, both the puzzle's own structure. A Kakuro's clue cells are split by a
    diagonal falling left to right; where most of the diagonals rise, the grid lies a quarter
    turn either way. And a Kakuro's top row and left column hold no white cell (a run needs a
    clue before it), while its bottom row and right column nearly always do: where the two
    borders free of white cells are others, turned with the page, they say by how much. The
    classifier takes no cell of the first row and column for white, so those that looked white
    count as white here. Where the bottom and right borders are free of the cells classified
    white whatever the others, or the cells as they lie make no Kakuro's layout, the grid may
    lie upside down (or sit in a frame of blocks, or be no puzzle): worth a turned look only
    when it cannot be read as it lies.
    """
    classified = reading.classes.kinds == "white"
    white = classified if reading.classes.looked_white is None else classified | reading.classes.looked_white
    if min(white.shape) < 3:
        return (), False
    # Clockwise from the top: top, right, bottom, left. Upright, the top and left borders are
    # free; each quarter turn moves them one place on.
    free = (not white[0].any(), not white[:, -1].any(), not white[-1].any(), not white[:, 0].any())
    agree = {k: sum(free[side] == (side in {(3 + k) % 4, k % 4}) for side in range(4)) for k in range(4)}
    rising = falling = 0
    if reading.rectified is not None and reading.rectified_lattice is not None:
        falls, rises = diagonal_slants(reading.rectified, reading.rectified_lattice)
        rising = int(np.sum(rises > 2 * falls + _SLANT_LEVELS))
        falling = int(np.sum(falls > 2 * rises + _SLANT_LEVELS))
    if rising >= max(_SLANTED_CELLS, _SLANTED_SHARE * white.size) and rising > 3 * falling:
        return tuple(sorted((1, 3), key=lambda k: -agree[k])), True
    if agree[2] == 4 and falling >= rising:
        return (2,), True
    # The last row and column free of the cells classified white, whatever looked white in the
    # first column: a grid with a diagonal in every cell prints its blocks as white as paper.
    # Or no Kakuro's layout as it lies: there the clue cells are those with numbers in the
    # corners a clue's number takes, and upside down, a down number takes an across one's.
    if (not classified[-1].any() and not classified[:, -1].any()) or reading.doubt is not None:
        return (2,), False
    return (), False


#: Grey levels by which a cell's diagonal must stand out from the other one to count as slanted.
_SLANT_LEVELS = 5
#: Cells with rising diagonals that say a grid lies a quarter turn from upright: at least this
#: many, and this share of all its cells (clue cells are a quarter to a third of a grid's; the
#: numbers of clue cells printed without a diagonal line up on a rising one in a few).
_SLANTED_CELLS = 3
_SLANTED_SHARE = 0.15


def _read_turned(image: np.ndarray, turns: tuple[int, ...], time_limit_s: float,
                 locate_in: np.ndarray | None = None) -> list[PuzzleResult] | None:
    """The puzzles of ``image`` read and checked after each of ``turns`` quarter turns back to
    upright: the first reading that solves a puzzle, else the best one; None where no turned
    image holds a grid.

    The results' corners and drawing frames are those of ``image`` itself.
    """
    best = None
    for k in turns:
        log.info("the grid may lie turned %d degrees clockwise: read turned upright", 90 * k)
        try:
            turned_locate_in = None if locate_in is None else np.ascontiguousarray(np.rot90(locate_in, k))
            again = _read_and_check(np.ascontiguousarray(np.rot90(image, k)), time_limit_s, turn=False,
                                    locate_in=turned_locate_in)
        except GridNotFoundError:
            continue
        to_upright = _quarter_turns_matrix(image.shape, k)
        to_image = np.linalg.inv(to_upright)
        turned_back = []
        for res in again:
            corners = None if res.corners_xy is None else cv2.perspectiveTransform(
                np.asarray(res.corners_xy, np.float64).reshape(-1, 1, 2), to_image).reshape(-1, 2)
            reading = None if res.reading is None else dataclasses.replace(res.reading, H=res.reading.H @ to_upright)
            turned_back.append(dataclasses.replace(res, corners_xy=corners, reading=reading, turned=90 * k))
        if best is None or _read_score(turned_back) > _read_score(best):
            best = turned_back
        if _read_score(best)[0]:
            break
    return best


def _read_score(results: list[PuzzleResult]) -> tuple[int, int, int]:
    """How well an image was read: puzzles solved, then puzzles read at all, then clue numbers
    legible (a grid turned the wrong way reads none: "40 of 40 clues could not be read" stood for
    a grid whose right turn read all but two)."""
    legible = sum(bool(side.options) for r in results if r.reading is not None for side in r.reading.sides)
    return sum(r.status == Status.solved for r in results), sum(map(_was_read, results)), legible


def _quarter_turns_matrix(shape: tuple[int, ...], k: int) -> np.ndarray:
    """The homography from an image's pixels to those of ``np.rot90(image, k)``."""
    h, w = shape[:2]
    m = np.eye(3)
    for _ in range(k % 4):
        # One anticlockwise quarter turn: (x, y) -> (y, w - 1 - x); width and height swap.
        m = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, w - 1.0], [0.0, 0.0, 1.0]]) @ m
        h, w = w, h
    return m


def _legible_clues(result: PuzzleResult) -> bool:
    return result.reading is None or any(side.options for side in result.reading.sides)


def _kakuro_layout(result: PuzzleResult) -> bool:
    return result.reading is not None and result.reading.doubt is None and bool(result.reading.whites)


@dataclass(frozen=True, eq=False)
class Reading:
    """One grid as read off an image, before the rules of Kakuro are applied to it.

    ``image`` is what it was read from: the input, or the input with a shadow across the grid
    evened out. ``grid`` holds the lattice, the cell classes and every clue's candidate values.
    """

    image: np.ndarray
    geometry: GridGeometry
    grid: GridReading
    seconds: float = 0.0


def read(image: np.ndarray) -> list[Reading]:
    """Stages 2-5: every grid on ``image`` located, straightened, its cells classified and its
    clues read, in reading order.

    Raises
    ------
    GridNotFoundError
        Nothing on the image looks like a puzzle grid.
    """
    return [_read_grid(image, geometry, look, seconds) for geometry, look, seconds in _look_at_grids(image)]


def _look_at_grids(image: np.ndarray, locate_in: np.ndarray | None = None
                   ) -> list[tuple[GridGeometry, GridReading, float]]:
    """Every grid on ``image`` located (in ``locate_in`` where given) and looked at
    (:func:`look_at_grid`), with the seconds it took."""
    geometries = locate_puzzles(image if locate_in is None else locate_in)
    if not geometries:
        raise GridNotFoundError()

    def look(geometry: GridGeometry, start: float) -> None:
        grid = look_at_grid(image, geometry)
        if not number_pad(grid):
            looks.append((geometry, grid, time.perf_counter() - start))

    looks, passed_over = [], []
    # Beside other grids, a small one too is glanced at first: a newspaper page holds a sudoku,
    # yesterday's solution, a crossword, each a lattice that costs a full look to turn down
    # (0.9 s for a 14x7 solution grid on a Guardian photo, against 0.06 s at a glance).
    any_size = len(geometries) > 1
    for geometry in geometries:
        start = time.perf_counter()
        doubt = glance_at_grid(image, geometry, any_size=any_size)
        if doubt is None:
            look(geometry, start)
            continue
        log.info("grid %dx%d not looked at: %s", *geometry.shape, doubt)
        if geometry.shape[0] * geometry.shape[1] < GLANCE_CELLS:
            passed_over.append(geometry)
    if not looks:
        # No grid passed: the small ones passed over are looked at in full after all, as a
        # lone grid is (the glance, at a third of the size, may misjudge a small one).
        for geometry in passed_over:
            look(geometry, time.perf_counter())
    if not looks:
        raise GridNotFoundError()
    return looks


def _read_grid(image: np.ndarray, geometry: GridGeometry, look: GridReading, seconds: float = 0.0) -> Reading:
    """One grid looked at, its outline settled and its numbers read."""
    start = time.perf_counter() - seconds
    # The grid is looked at (straightened, its cells classified) as often as its outline is
    # in question, and its numbers, which cost most, are read once, on the look kept.
    image_read = image
    if look.shadow:
        image_read, geometry, look = _relocate_in_even_light(image, geometry, look)
    # The classifier leaves the first row and column out of the layout, where margins and lost
    # clue rows show. A layout no Kakuro has (single-cell runs everywhere: a block of text, a
    # striped desk taken for a lattice) is not mended by a row or column more or less at its
    # border, and looked at again, such a box cost seconds; but a title printed in the page's
    # margin can make a margin taken in look like none (trim_page_margin sees to that case).
    geometry, look = trim_page_margin(image_read, geometry, look)
    if look.doubt is None:
        geometry, look = complete_clue_border(image_read, geometry, look)
    grid = read_numbers(look, second_opinion=False)
    return Reading(image_read, geometry, grid, time.perf_counter() - start)


def check(reading: Reading, *, time_limit_s: float = 10.0) -> PuzzleResult:
    """Stages 6-7: a reading checked against the rules of Kakuro (clues re-read with a second
    opinion, or the layout questioned, where the rules disagree with it) and solved.

    An answer key (a digit in every white cell, no clue numbers) comes back as such, not solved.
    """
    start = time.perf_counter() - reading.seconds
    geometry, grid = reading.geometry, reading.grid
    key = read_answer_key(grid)
    if key is not None:
        log.info("a %dx%d grid with a digit in every white cell and no clues: an answer key", grid.n_rows, grid.n_cols)
        return PuzzleResult(Status.answer_key, Puzzle(grid.n_rows, grid.n_cols, frozenset(key), ()),
                            Solution("unique", key), geometry.quad.corners_xy, reading=grid,
                            seconds=time.perf_counter() - start)
    if not grid.whites or not grid.sides:
        # A layout too odd to read (runs of one cell) may be an app's tinted cells taken for
        # print, as in a layout the rules reject (see _tinted_paper_variant).
        tinted = _tinted_paper_variant(grid, time_limit_s) if grid.doubt is not None else None
        if tinted is None:
            return PuzzleResult(Status.unreadable, None, None, geometry.quad.corners_xy,
                                problems=(grid.doubt or "the grid has no white cells or no clues",), reading=grid,
                                seconds=time.perf_counter() - start)
        grid, rec = tinted
    else:
        grid, rec = _check_reading(grid, time_limit_s)
        grid, rec = _check_layout(grid, rec, time_limit_s)
        rec = _unsure_not_unsolvable(grid, _faint_not_unsolvable(grid, rec))
    if rec.status == "solved":
        grid, rec = _numbers_in_blocks(grid, rec, time_limit_s)
    rec, written = _entries_apart(grid, rec, time_limit_s)
    return PuzzleResult(rec.status, rec.puzzle, rec.solution, geometry.quad.corners_xy, rec.corrections,
                        rec.problems, grid, rec.suspect_runs, time.perf_counter() - start, written)


def _read_other_outlines(image: np.ndarray, geometry: GridGeometry, result: PuzzleResult,
                         time_limit_s: float) -> PuzzleResult:
    """``result`` (an unreadable grid), or the grid read in another of its outlines where that
    reading is solved.

    The outline taken is the largest of those nearly as clear as the clearest, since a tight one
    may cut off a row; a title above the frame, or the page beside it, can pass for that row.
    Read in a smaller outline, a grid that lost a row of white cells cannot be solved (its
    down clues then total more than its across clues), nor one that lost its clue row or column
    (its runs lack clues): a solution there is the grid's own.
    """
    for other in locate_in_other_outlines(image, geometry):
        look = look_at_grid(image, other)
        if number_pad(look) or look.doubt is not None:
            continue
        reading = _read_grid(image, other, look)
        if reading.grid.doubt is not None or not all(side.options for side in reading.grid.sides):
            continue  # no solution to be had: checked, it would only cost time
        again = check(reading, time_limit_s=time_limit_s)
        if again.status == Status.solved:
            log.info("read in another outline: %dx%d (was %dx%d, unreadable)", *other.shape, *geometry.shape)
            return again
    return result


def _check_answer_keys(results: list[PuzzleResult], time_limit_s: float = 10.0) -> list[PuzzleResult]:
    """Each answer key with the puzzle of its layout on the same image, and whether they agree.

    A puzzle whose clues could not be settled (two readings each with one solution, say) is
    settled by its answer key where the key's digits add up, run by run, to a number its reader
    offered for every clue, and the puzzle so read has one solution, the key's: the key is read
    apart (digits in white cells), and the two readers agree."""
    results = list(results)
    for res in results:
        if res.status != Status.answer_key:
            continue
        key = dict(res.solution.values)
        for k, other in enumerate(results):
            if other.status != Status.unreadable or other.puzzle is None or other.reading is None:
                continue
            shift = _key_shift(other.puzzle, key)
            if shift is not None:
                settled = _settled_by_answer_key(other, {(r + shift, c + shift): v for (r, c), v in key.items()},
                                                 time_limit_s)
                if settled is not None:
                    results[k] = settled
    checked = []
    for res in results:
        if res.status == Status.answer_key:
            key = dict(res.solution.values)
            for k, other in enumerate(results):
                if other.status == Status.answer_key or other.puzzle is None:
                    continue
                shift = _key_shift(other.puzzle, key)
                if shift is not None:
                    solution = {(r - shift, c - shift): v for (r, c), v in other.solution.values.items()} \
                        if other.status == Status.solved else None
                    agrees = None if solution is None else solution == key
                    log.info("answer key %s puzzle %d", {True: "agrees with the solution of", None: "is for the "
                             "unsolved", False: "DIFFERS from the solution of"}[agrees], k + 1)
                    res = dataclasses.replace(res, answer_to=(k, agrees))
                    break
        checked.append(res)
    return checked


def _key_shift(puzzle: Puzzle, key: dict[Cell, int]) -> int | None:
    """How many cells up and left an answer key's digits lie from ``puzzle``'s white cells (0, or
    1 for a key printed without the puzzle's clue row and column); None where its layout is not
    the puzzle's."""
    return next((d for d in (0, 1) if {(r - d, c - d) for r, c in puzzle.whites} == set(key)), None)


def _settled_by_answer_key(result: PuzzleResult, digits: dict[Cell, int], time_limit_s: float
                           ) -> PuzzleResult | None:
    """``result`` (an unreadable puzzle) solved with the clues its answer key's ``digits`` (in the
    puzzle's cells) add up to, where every one of them is among its reader's options and the
    puzzle so read has exactly the key's solution; else None."""
    grid, puzzle = result.reading, result.puzzle
    totals: dict[tuple[Cell, str], int] = {}
    for side in grid.sides:
        run = run_cells(puzzle.whites, side.cell, side.direction)
        if not run or any(x not in digits for x in run):
            return None
        total = sum(digits[x] for x in run)
        if total not in {value for value, _ in side.options}:
            return None
        totals[(side.cell, side.direction)] = total
    clues = tuple(dataclasses.replace(clue, down=totals.get(((clue.row, clue.col), "down"), clue.down),
                                      across=totals.get(((clue.row, clue.col), "across"), clue.across))
                  for clue in puzzle.clues)
    keyed = dataclasses.replace(puzzle, clues=clues)
    solution = solve_puzzle(keyed, time_limit_s=time_limit_s)
    if solution.status != "unique" or dict(solution.values) != digits:
        return None
    firsts = {(side.cell, side.direction): side.options[0][0] for side in grid.sides}
    corrections = tuple(Correction(cell, direction, firsts[(cell, direction)], total, True, "answer-key")
                        for (cell, direction), total in totals.items() if firsts[(cell, direction)] != total)
    log.info("clues settled by the page's answer key: %s", ", ".join(c.describe() for c in corrections) or "none")
    return dataclasses.replace(result, status=Status.solved, puzzle=keyed, solution=solution,
                               corrections=corrections, problems=(), suspects=())


def _relocate_in_even_light(image: np.ndarray, geometry: GridGeometry, reading: GridReading
                            ) -> tuple[np.ndarray, GridGeometry, GridReading]:
    """The image with a shadow found across the grid evened out, and the grid found and looked at
    (:func:`look_at_grid`) again there.

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
    return relit, geometry, look_at_grid(relit, geometry)


def _check_reading(reading: GridReading, time_limit_s: float) -> tuple[GridReading, Reconciled]:
    """The puzzle's rules applied to a reading (read again with a second opinion where needed)."""
    layout = reading.whites
    # A short search first: a reading that needs a long one, or any correction, is read again
    # with tesseract anyway, and its corrections are checked then.
    rec = reconcile_reading(reading.n_rows, reading.n_cols, reading.whites, reading.clue_cells,
                            reading.sides, reading.givens, time_limit_s=min(time_limit_s, 1.0),
                            look_past_options=False)
    if rec.status != "solved" or rec.corrections:
        # The glyph reader alone did not settle it: read again with tesseract's second opinion
        # on the unsure clues (when the rules accept the first reading, this changes nothing).
        reading = read_numbers(reading, second_opinion=True, layout=layout)
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
#: Search budget (CP-SAT deterministic units) for each layout variant: a short search, which the
#: reconciliation's implied constraints made go ten times as far; at 1.0 a grid whose variants
#: none settled took 20 s (light seed 20 #4).
_VARIANT_SEARCH_S = 0.3


def _layout_doubts(reading: GridReading, rejected: bool = False
                   ) -> tuple[tuple[Cell, ...], list[tuple[tuple[Cell, ...], tuple[bool, ...]]]]:
    """The cells off the layout's symmetry, and the groups of cells in doubt with the kinds each
    group may take (True: white).

    Two witnesses say a cell was misread: the symmetry (a pair off it can be both white or both
    not), and a number printed where the layout has no run (the cell it points to is white; its
    mirror too, to keep the symmetry). A third, when the rules ``rejected`` the reading: then a
    few pairs off the symmetry may each go either way, however sure their cells looked (grey
    print showing through from the reverse page looks like a block to the classifier).
    """
    n_rows, n_cols = reading.n_rows, reading.n_cols
    off = layout_asymmetry(n_rows, n_cols, reading.whites)
    pairs = sorted({tuple(sorted([cell, mirror_cell(n_rows, n_cols, cell)])) for cell in off})
    groups: list[tuple[tuple[Cell, ...], tuple[bool, ...]]] = []
    if len(off) <= MISREAD_ASYMMETRY or (rejected and 2 ** len(pairs) <= _MAX_VARIANTS):
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
    if rejected and not groups:
        # Far off the symmetry (an asymmetric layout, or a misread region), the symmetry names no
        # cell; the rules rejected the reading, and the blocks least sure of their class (a white
        # cell a shadow's corner crosses, half lit and half shaded, is grey) may each be white.
        groups = [((cell,), (True, False)) for cell in _unsure_blocks(reading)]
    taken = {cell for group, _ in groups for cell in group}
    doubted = set(taken)
    for (r, c), direction, _ in reading.stray:
        cell = _pointed_cell((r, c), direction)
        if not (1 <= cell[0] < n_rows and 1 <= cell[1] < n_cols) or cell in reading.whites or cell in taken:
            continue
        group = tuple(sorted({cell, mirror_cell(n_rows, n_cols, cell)} - set(reading.whites)))
        # A number read in a cell whose own kind is in doubt (a white cell taken for a clue, its
        # pencilled candidates for numbers) witnesses nothing: its run may go either way.
        groups.append((group, (True, False) if (r, c) in doubted else (True,)))
        taken.update(group)
    return off, groups


#: Classification confidence under which a block is unsure of its class (a block among blocks
#: and paper measures 1.0, a grey cell half way between them 0.5), and the most of those asked.
_UNSURE_BLOCK = 0.7
_MAX_UNSURE_BLOCKS = 3


def _unsure_blocks(reading: GridReading) -> list[Cell]:
    """The blocks (past the first row and column) least sure of their class, most unsure first."""
    classes = reading.classes
    cells = [(float(classes.confidence[r, c]), (r, c)) for r, c in zip(*np.nonzero(classes.kinds == "black"))
             if r > 0 and c > 0 and classes.confidence[r, c] < _UNSURE_BLOCK]
    return [(int(r), int(c)) for _, (r, c) in sorted(cells)[:_MAX_UNSURE_BLOCKS]]


def _pointed_cell(cell: Cell, direction: str) -> Cell:
    """The cell a number printed in ``cell`` for ``direction`` heads the run from."""
    r, c = cell
    return (r + 1, c) if direction == "down" else (r, c + 1)


def _check_layout(reading: GridReading, rec: Reconciled, time_limit_s: float) -> tuple[GridReading, Reconciled]:
    """Read the layout again where the puzzle's own witnesses doubt it (see ``_layout_doubts``).

    A white cell in a shadow taken for a block can leave a puzzle that still has one solution,
    a wrong one. Each variant of the cells in doubt is read; one the rules solve is taken when it
    is the only one. When none is, a solved reading off the symmetry by one pair (or by two
    that did not look clearly printed) is not called solved.
    """
    rejected = rec.status in ("unsolvable", "unreadable")
    off, groups = _layout_doubts(reading, rejected=rejected)
    if rejected and len(off) > MISREAD_ASYMMETRY:
        tinted = _tinted_paper_variant(reading, time_limit_s)
        if tinted is not None:
            return tinted
    unsure = [cell for cell in off if reading.classes.confidence[cell] < _UNSURE_CLASS]
    if rec.status == "solved" and rec.corrections and len(off) > MISREAD_ASYMMETRY \
            and len(unsure) >= _UNSURE_SHARE * len(off):
        # Far off its symmetry, with cells of unsure class, and clues that fit only corrected: a
        # layout misread over a region (a deep soft shadow) can still have one solution.
        problem = (f"the layout is off its symmetry in {len(off)} cells, some of unsure class "
                   f"({_cells_text(unsure[:6])}), and the clues fit it only corrected; check the cells")
        return reading, _not_solved(rec, problem, unsure)
    if not groups:
        return reading, _misread_not_unsolvable(rec, off)
    solved = []
    choices = itertools.product(*(kinds for _, kinds in groups))
    for choice in itertools.islice(choices, _MAX_VARIANTS):
        whites = set(reading.whites)
        for (cells, _), white in zip(groups, choice):
            for cell in cells:
                (whites.add if white else whites.discard)(cell)
        if whites == set(reading.whites):
            continue
        variant = read_numbers(reading, second_opinion=False, layout=frozenset(whites))
        if not variant.sides or variant.doubt is not None:
            continue
        # A variant is worth taking when the rules settle it at once: a short search only.
        variant, variant_rec = _check_reading(variant, min(time_limit_s, _VARIANT_SEARCH_S))
        if variant_rec.status == "solved":
            solved.append((variant, variant_rec))
    if len(solved) > 1:
        # Several layouts solve: one whose clues fit as read, where every other needs corrections
        # the readers found far less likely (the rival odds of the rules' check), is the reading.
        costs = [_corrections_cost(variant, variant_rec) for variant, variant_rec in solved]
        best = min(range(len(solved)), key=costs.__getitem__)
        if all(cost - costs[best] > RIVAL_ODDS for k, cost in enumerate(costs) if k != best):
            solved = [solved[best]]
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
        return reading, _misread_not_unsolvable(rec, off)
    return reading, _not_solved(rec, problem, doubted)


def _numbers_in_blocks(reading: GridReading, rec: Reconciled, time_limit_s: float) -> tuple[GridReading, Reconciled]:
    """A solved reading checked for numbers printed in its blocks (:func:`numbers_in_blocks`).

    Each says the cell it points to is white: the layout with those cells white is read as any
    layout in doubt is (:func:`_check_layout`) and taken where the rules solve it with no number
    left in a block; otherwise the puzzle is not called solved. A puzzle may have one solution
    with a white cell taken for a clue cell (the two runs through it become one cell shorter,
    the clues read there fitting them); that solution leaves the cell out, and is no answer.
    """
    printed = numbers_in_blocks(reading)
    if not printed:
        return reading, rec
    doubted = dataclasses.replace(reading, stray=reading.stray + printed)
    again, again_rec = _check_layout(doubted, rec, time_limit_s)
    if again is not doubted and again_rec.status == "solved" and not numbers_in_blocks(again):
        log.info("numbers printed in blocks: read with the cells they point to white")
        return again, again_rec
    pointed = sorted({_pointed_cell(cell, direction) for cell, direction, _ in printed})
    blocks = sorted({cell for cell, _, _ in printed})
    problem = (f"numbers are printed where the layout has no run ({_cells_text(blocks)}); "
               f"check the cells at {_cells_text(pointed)}")
    return reading, _not_solved(rec, problem, pointed)


#: Share of the print's tone (the clue cells') below which a cell without a diagonal may be
#: paper, whatever its tint.
_PAPER_SHARE = 0.5
#: Diagonal measure below which a cell has none: a clue cell's measures 0.07 or more even where
#: it is faint and dashed.
_PAPER_DIAGONAL = 0.05


def _tinted_paper_variant(reading: GridReading, time_limit_s: float) -> tuple[GridReading, Reconciled] | None:
    """The reading with every cell taken for print that is paper, tinted, made white: where the
    rules then solve it and its layout is symmetric, which the reading's was not.

    An app tints the white cells of the selected cell's row and column (a pale colour, the
    selected cell deeper), and the classifier takes them for tinted clue cells; the player's
    pencilled candidates in them pass for clue numbers. Without a diagonal, and lighter than
    half the clue cells' tone (grey blocks are about as dark as the clues), they may be paper;
    where the clues are paper with a diagonal, lighter than half the blocks' tone. Two
    witnesses decide: the layout becomes symmetric, as most printed layouts are, and the
    rules solve it.
    """
    if reading.rectified is None or reading.rectified_lattice is None:
        return None
    feats = reading.classes.features if reading.classes is not None else None
    if feats is None:
        feats = measure_cells(reading.rectified, reading.rectified_lattice)
    n_rows, n_cols = reading.n_rows, reading.n_cols
    # The print's own tone: that of the cells with a diagonal (the clues), else of all not white;
    # and, where the clues are white paper with a diagonal, the darkest print's (the blocks').
    printed = np.array([[(r, c) not in reading.whites for c in range(n_cols)] for r in range(n_rows)])
    diagonal = printed & (feats.diagonal >= _PAPER_DIAGONAL)
    print_tones = (float(np.median(feats.tone[diagonal if diagonal.sum() >= 3 else printed])),
                   float(percentile(feats.tone[printed], 90)))
    tried: set[frozenset[Cell]] = set()
    for print_tone in print_tones:
        paper = frozenset((r, c) for r in range(1, n_rows) for c in range(1, n_cols)
                          if printed[r, c] and feats.tone[r, c] < _PAPER_SHARE * print_tone
                          and feats.diagonal[r, c] < _PAPER_DIAGONAL)
        if paper and paper not in tried:
            tried.add(paper)
            found = _paper_variant(reading, paper, time_limit_s)
            if found is not None:
                return found
    return None


def _paper_variant(reading: GridReading, paper: frozenset[Cell], time_limit_s: float
                   ) -> tuple[GridReading, Reconciled] | None:
    """The reading with the cells ``paper`` white, where its layout is then symmetric and the
    rules solve it (see :func:`_tinted_paper_variant`)."""
    whites = frozenset(reading.whites | paper)
    if len(layout_asymmetry(reading.n_rows, reading.n_cols, whites)) > MISREAD_ASYMMETRY:
        return None
    variant = read_numbers(reading, second_opinion=False, layout=whites)
    if not variant.sides or variant.doubt is not None:
        return None
    variant, variant_rec = _check_reading(variant, min(time_limit_s, _VARIANT_SEARCH_S))
    if variant_rec.status != "solved":
        # The selected cell, tinted deeper, may still be off the symmetry: its pair is in doubt
        # as any misread pair is.
        variant, variant_rec = _check_layout(variant, variant_rec, time_limit_s)
    if variant_rec.status != "solved":
        return None
    log.info("%d tinted cells taken for print are paper: read as white, the layout is symmetric and solves",
             len(paper))
    return variant, variant_rec


def _corrections_cost(reading: GridReading, rec: Reconciled) -> float:
    """How much less likely the readers found the clues as corrected than as read (natural log of
    the odds); a clue read as nothing legible costs nothing, as in the rules' check.

    Against the reads themselves, not the rules' own costs: those weigh only the values a layout
    allows, so a layout whose run cannot hold a clearly read 12 would take its 3 for free.
    """
    options = {(side.cell, side.direction): dict(side.options) for side in reading.sides}
    cost = 0.0
    for c in rec.corrections:
        offered = options.get((c.cell, c.direction), {})
        if c.read is None or offered.get(c.read, 0.0) <= 0:
            continue  # nothing legible, or a read the readers gave no weight: no odds to weigh
        used = offered.get(c.used, 0.0)
        cost += math.log(offered[c.read] / used) if used > 0 else math.inf
    return cost


def _misread_not_unsolvable(rec: Reconciled, off: tuple[Cell, ...]) -> Reconciled:
    """``rec``, unless it says the clues contradict each other where the layout is off its
    symmetry: then a cell is more likely misread than the puzzle misprinted (no printed puzzle
    seen had no solution, FACTS.md), and it is reported unreadable with the cells to check."""
    if rec.status != "unsolvable" or not off:
        return rec
    problem = (f"the clues as read contradict each other, and the layout is off its symmetry at "
               f"{_cells_text(off, most=8)}: a cell may be misread; check those cells")
    return dataclasses.replace(_not_solved(rec, problem, off), problems=(problem,) + rec.problems)


#: A clue read with less confidence than this in its first choice is not sure enough to blame the
#: print for a contradiction it takes part in. Saying a printed puzzle has no solution is a strong
#: claim (no printed puzzle seen had none but two misprinted on purpose, FACTS.md), made only where
#: every clue was read surely: clues printed clearly are read at 0.93 or more (the misprinted
#: magazine puzzle's), and a dark screen's "12" read "1" at 0.65 had made a puzzle "unsolvable".
_CLEAR_READ = 0.9


def _faint_not_unsolvable(reading: GridReading, rec: Reconciled) -> Reconciled:
    """``rec``, unless it says the clues contradict each other where some were read too faintly
    to trust (their first reading less sure than ``_CLEAR_READ``):
    then a clue is more likely misread than the puzzle misprinted, and it is reported unreadable
    with those clues to check."""
    if rec.status != "unsolvable":
        return rec
    faint = sorted((s.cell, s.direction) for s in reading.sides if s.options and s.sureness < _CLEAR_READ)
    if not faint:
        return rec
    problem = (f"the clues as read contradict each other, and {len(faint)} of them were read too faintly to "
               "trust: a clue may be misread; check " + sides_text(faint))
    return dataclasses.replace(rec, status="unreadable", problems=(problem,) + rec.problems,
                               suspect_runs=rec.suspect_runs + tuple(k for k in faint if k not in rec.suspect_runs))


def _unsure_not_unsolvable(reading: GridReading, rec: Reconciled) -> Reconciled:
    """``rec``, unless it says the clues contradict each other where the layout rests on cells
    whose class was unsure (under ``_UNSURE_CLASS``): then a cell is more likely misread than
    the puzzle misprinted (a crease's shade greying white cells to the clue cells' tone), and it
    is reported unreadable with those cells to check. The misprinted magazine puzzle's cells are
    classified at 0.86 or more."""
    if rec.status != "unsolvable":
        return rec
    unsure = [(int(r), int(c)) for r, c in zip(*np.nonzero(reading.classes.confidence < _UNSURE_CLASS))]
    if not unsure:
        return rec
    problem = (f"the clues as read contradict each other, and {len(unsure)} cells looked neither clearly white "
               f"nor clearly printed: a cell may be misread; check {_cells_text(unsure, most=8)}")
    return dataclasses.replace(_not_solved(rec, problem, unsure), problems=(problem,) + rec.problems)


def _not_solved(rec: Reconciled, problem: str, cells: Iterable[Cell]) -> Reconciled:
    """``rec`` reported unreadable for ``problem``; the doubtful cells join the suspects as whole
    cells (direction "cell"), marked on the image."""
    return dataclasses.replace(rec, status="unreadable", problems=rec.problems + (problem,),
                               suspect_runs=rec.suspect_runs + tuple((cell, "cell") for cell in cells))


def _cells_text(cells: Iterable[Cell], most: int | None = None) -> str:
    """The cells as "row R, column C", the first ``most`` of them and "..." where there are more."""
    cells = list(cells)
    shown = cells if most is None else cells[:most]
    return ", ".join(f"row {r + 1}, column {c + 1}" for r, c in shown) + (", ..." if len(shown) < len(cells) else "")


def annotate_image(image: np.ndarray, results: list[PuzzleResult], *, progress: bool = False,
                   reveal: bool = True) -> np.ndarray:
    """The original image with each puzzle's solution, corrections and trouble spots drawn on it.

    The player's entries stay as written; a wrong one is circled, with the right digit beside it
    where the solution is revealed. With ``progress``, right entries are ticked, and the solution
    is drawn only where ``reveal``.
    """
    out = image
    for res in results:
        if res.reading is None or res.status == Status.answer_key:
            continue
        values, wrong = solution_marks(res, reveal=reveal)
        ticked = tuple(cell for cell, _, ok in res.written if ok) if progress else ()
        corrected = tuple(sorted({c.cell for c in res.corrections}))
        conflicts: tuple = ()
        unreadable: tuple = ()
        if res.status == Status.unsolvable and res.puzzle is not None:
            runs = {(run.clue, run.direction): run.cells for run in res.puzzle.runs}
            conflicts = tuple((cell, runs.get((cell, d), ())) for cell, d in res.suspects)
        elif res.status in (Status.unreadable, Status.ambiguous):
            unreadable = tuple(sorted({cell for cell, _ in res.suspects}))
        out = draw_solution(out, res.reading.H, res.reading.lattice, values, corrected=corrected,
                            conflicts=conflicts, unreadable=unreadable, wrong=wrong, ticked=ticked)
    return out


def solution_marks(result: PuzzleResult, *, reveal: bool = True
                   ) -> tuple[dict[Cell, int], tuple[tuple[Cell, int | None], ...]]:
    """What is drawn of a solved result's solution: the digits of the white cells the player left
    empty (none unless ``reveal``), and each wrong entry with the right digit (None unless ``reveal``).
    The player's entries themselves stay as written."""
    values = dict(result.solution.values) if result.status == Status.solved and result.solution else {}
    wrong = tuple((cell, values[cell] if reveal else None) for cell, _, ok in result.written
                  if ok is False and cell in values)
    for cell, _, _ in result.written:
        values.pop(cell, None)
    return (values if reveal else {}), wrong


def read_progress(result: PuzzleResult) -> PuzzleResult:
    """A half-filled puzzle's written digits (pen, pencil or typed), each compared with the solution.

    The digits ``check`` already took for the player's entries stay; every other white cell that
    is not a printed given is read for a handwritten digit, and a digit read surely joins
    ``written``. Two equal digits written in one run, and a run written in full to a wrong sum,
    are named in ``problems`` whether or not the puzzle was solved.
    """
    grid, puzzle = result.reading, result.puzzle
    if grid is None or puzzle is None or result.status == Status.answer_key:
        return result
    values = dict(result.solution.values) if result.status == Status.solved and result.solution else {}
    written = {cell: digit for cell, digit, _ in result.written}
    open_cells = sorted(set(puzzle.whites) - set(puzzle.given_at) - set(written))
    unsure = []
    for cell, read in zip(open_cells, read_written_digits([grid.cell_image(cell) for cell in open_cells])):
        if read.value is not None and read.confidence >= WRITTEN_SURE:
            written[cell] = int(read.value)
        elif read.alternatives:  # ink with a digit's look, not read for sure
            unsure.append(cell)
    if unsure:
        log.info("digits written but not read for sure at %s: left unmarked", _cells_text(unsure))
    marked = tuple((cell, digit, values[cell] == digit if values else None)
                   for cell, digit in sorted(written.items()))
    return dataclasses.replace(result, written=marked,
                               problems=result.problems + _written_conflicts(puzzle, written))


def _written_conflicts(puzzle: Puzzle, written: dict[Cell, int]) -> tuple[str, ...]:
    """Runs the written digits break by the rules alone: a digit twice, or a full run's wrong sum."""
    found = []
    digits = {**puzzle.given_at, **written}
    for run in puzzle.runs:
        seen: dict[int, Cell] = {}
        for cell in (cell for cell in run.cells if cell in digits):
            first = seen.setdefault(digits[cell], cell)
            if first != cell and (first in written or cell in written):
                found.append(f"{_cells_text((first, cell))} both hold {digits[cell]} in one {run.direction} run")
        if all(cell in digits for cell in run.cells) and any(cell in written for cell in run.cells) \
                and sum(digits[cell] for cell in run.cells) != run.total:
            found.append(f"the {run.direction} run of {run.total} from {_cells_text(run.cells[:1])} is written "
                         f"in full but sums to {sum(digits[cell] for cell in run.cells)}")
    return tuple(found)


def hint_for(result: PuzzleResult, *, force: bool = False) -> Step | None:
    """The next step a person could take in a puzzle read or loaded: found by human techniques,
    simplest first (:func:`solver.techniques.next_step`), from its givens and the player's entries
    that are right (a wrong entry is left out, as if erased). None where the puzzle is full, or
    where no technique applies and not ``force``.

    Raises
    ------
    ValueError
        The puzzle was not solved (unreadable, unsolvable): there is nothing sure to reason from.
    """
    if result.puzzle is None or result.status not in (Status.solved, Status.ambiguous):
        raise ValueError(f"the puzzle is {result.status}: no hint from a puzzle not read and solved")
    entries = {cell: digit for cell, digit, ok in result.written if ok}
    return next_step(result.puzzle, entries, force=force)


def annotate_hint(image: np.ndarray, result: PuzzleResult, step: Step) -> np.ndarray:
    """The original image with a hint drawn on it: its digit in its cell, and the cells its
    reasoning uses outlined; nothing else of the solution."""
    if result.reading is None:
        return image
    return draw_solution(image, result.reading.H, result.reading.lattice, {(step.row, step.col): step.digit},
                         marked=tuple(dict.fromkeys(((step.row, step.col),) + step.cells)))


def solve_puzzle_file(puzzle: Puzzle, *, time_limit_s: float) -> PuzzleResult:
    start = time.perf_counter()
    check_puzzle(puzzle)
    sol = solve_puzzle(puzzle, time_limit_s=time_limit_s)
    status = {"unique": Status.solved, "multiple": Status.ambiguous}.get(sol.status, Status.unsolvable)
    problems = ()
    if sol.status == "none":
        problems = ("no assignment of digits satisfies every clue",)
    elif sol.status == "unknown":
        problems = (f"no answer within the time limit of {time_limit_s:g} s",)
    elif sol.status == "multiple":
        where = ", ".join(f"({r + 1},{c + 1})" for r, c in sol.differing[:12])
        problems = (f"more than one solution; two differ at {where}",)
    return PuzzleResult(status, puzzle, sol, problems=problems, seconds=time.perf_counter() - start)


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
    return result.status != Status.unreadable
