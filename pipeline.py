"""The stages joined, and the ``kakuro`` command line.

This is the only module that touches argv, logging set-up, output files and exit codes.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from solver.combos import combinations, sum_range
from solver.errors import InvalidPuzzleError, KakuroError, PuzzleFormatError
from solver.formats import format_text, grid_tokens, parse_puzzle, puzzle_to_json
from solver.model import Puzzle, Solution
from solver.reconcile import Correction, reconcile_reading
from solver.solve import solve_puzzle
from solver.validate import check_puzzle
from vision.errors import GridNotFoundError, ImageLoadError
from vision.grid import locate_puzzles
from vision.imageio import load_image
from vision.overlay import draw_solution
from vision.read import GridReading, read_grid

__all__ = ["main", "ExitCode", "PuzzleResult", "solve_image", "annotate_image"]

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
                "unreadable": ExitCode.unreadable}
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

    def to_json(self) -> dict[str, Any]:
        puzzle, sol = self.puzzle, self.solution
        solved = self.status in ("solved", "ambiguous") and sol is not None and bool(sol.values)
        solution = None
        if puzzle is not None and solved:
            solution = [[sol.values.get((r, c)) for c in range(puzzle.n_cols)] for r in range(puzzle.n_rows)]
        rows, cols = (puzzle.n_rows, puzzle.n_cols) if puzzle else (
            self.reading.n_rows, self.reading.n_cols) if self.reading else (0, 0)
        return {
            "status": self.status,
            "rows": rows,
            "cols": cols,
            "grid": grid_tokens(puzzle) if puzzle else None,
            "solution": solution,
            "unique": (self.status == "solved") if solved else None,
            "corners": None if self.corners_xy is None else [[round(float(x), 1), round(float(y), 1)]
                                                              for x, y in self.corners_xy],
            "corrections": [{"row": c.cell[0] + 1, "col": c.cell[1] + 1, "direction": c.direction,
                             "read": c.read, "used": c.used, "forced": c.forced} for c in self.corrections],
            "problems": list(self.problems),
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
    geometries = locate_puzzles(image)
    if not geometries:
        raise GridNotFoundError()
    results = []
    for geometry in geometries:
        start = time.perf_counter()
        reading = read_grid(image, geometry)
        if not reading.whites or not reading.sides:
            results.append(PuzzleResult("unreadable", None, None, geometry.quad.corners_xy,
                                        problems=("the grid has no white cells or no clues",), reading=reading,
                                        seconds=time.perf_counter() - start))
            continue
        rec = reconcile_reading(reading.n_rows, reading.n_cols, reading.whites, reading.clue_cells,
                                reading.sides, time_limit_s=time_limit_s)
        results.append(PuzzleResult(rec.status, rec.puzzle, rec.solution, geometry.quad.corners_xy,
                                    rec.corrections, rec.problems, reading, rec.suspect_runs,
                                    time.perf_counter() - start))
    # A page of puzzles is worth more than a stray grid-like box: drop unreadable extras when
    # another grid on the image was read.
    if any(r.status != "unreadable" for r in results):
        results = [r for r in results if r.status != "unreadable" or r.puzzle is not None]
    return results


def annotate_image(image: np.ndarray, results: list[PuzzleResult]) -> np.ndarray:
    """The original image with each puzzle's solution, corrections and trouble spots drawn on it."""
    out = image
    for res in results:
        if res.reading is None:
            continue
        values = dict(res.solution.values) if res.status == "solved" and res.solution else {}
        corrected = tuple(sorted({c.cell for c in res.corrections}))
        conflicts: tuple = ()
        unreadable: tuple = ()
        if res.status == "unsolvable" and res.puzzle is not None:
            runs = {(run.clue, run.direction): run.cells for run in res.puzzle.runs}
            conflicts = tuple((cell, runs.get((cell, d), ())) for cell, d in res.suspects)
        elif res.status in ("unreadable", "ambiguous"):
            unreadable = tuple(sorted({cell for cell, _ in res.suspects}))
        out = draw_solution(out, res.reading.H, res.reading.lattice, values, corrected=corrected,
                            conflicts=conflicts, unreadable=unreadable)
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
        values = res.solution.values if res.solution and res.status in ("solved", "ambiguous") else {}
        sys.stdout.write(format_text(res.puzzle, values))
    summary = {"solved": "solved; the solution is unique", "ambiguous": "solved, but NOT unique",
               "unsolvable": "no solution", "unreadable": "could not be read for certain"}[res.status]
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
        results = solve_image(image, time_limit_s=args.time_limit)
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

    p = sub.add_parser("check", help="validate a puzzle file and report whether its solution is unique")
    p.add_argument("input")
    p.add_argument("--time-limit", type=float, default=30.0, metavar="S")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("combos", help="digit combinations for a sum over a run length")
    p.add_argument("sum", type=int)
    p.add_argument("length", type=int)
    p.set_defaults(func=cmd_combos)
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
