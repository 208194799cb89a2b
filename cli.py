"""The ``kakuro`` command line: argv in, text or JSON out, an exit code back.

A thin client of ``pipeline`` (the stages) and ``batch`` (folders and books). This is the only
module that touches argv and sets up logging; every error ends the command with the exit code
its class carries (``solver.errors.ExitCode``, documented in README.md).
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path

import numpy as np

from outputs import FORMATS, format_of_suffix, image_suffix, write_debug, write_image
from pipeline import (PuzzleResult, Status, annotate_hint, annotate_image, hint_for, load_input, read_progress,
                      solve_image, solve_puzzle_file, worst_exit_code)
from solver.combos import combinations, sum_range
from solver.errors import ExitCode, KakuroError, MissingDependencyError, PuzzleFormatError, exit_code_for
from solver.formats import format_text
from solver.techniques import grade
from vision.errors import GridNotFoundError
from vision.imageio import read_image_info

__all__ = ["main", "build_parser", "ExitCode"]

log = logging.getLogger("kakuro")


def _print_result_text(res: PuzzleResult, index: int, total: int, *, reveal: bool = True) -> None:
    head = f"puzzle {index + 1} of {total}: " if total > 1 else ""
    if res.puzzle is not None:
        values = res.solution.values if res.solution and res.status in (Status.solved, Status.ambiguous,
                                                                          Status.answer_key) else {}
        # Not revealed: the grid with what the player wrote, no more.
        sys.stdout.write(format_text(res.puzzle, values if reveal else {cell: d for cell, d, _ in res.written}))
    if res.written and not reveal:
        wrong = [cell for cell, _, ok in res.written if ok is False]
        log.info("%s%d digit(s) written: %d right, %d wrong%s", head, len(res.written),
                 sum(1 for *_, ok in res.written if ok), len(wrong),
                 " (" + "; ".join(f"row {r + 1}, column {c + 1}" for r, c in wrong) + ")" if wrong else "")
    summary = {"solved": "solved; the solution is unique", "ambiguous": "solved, but NOT unique",
               "unsolvable": "no solution", "unreadable": "could not be read for certain",
               "answer-key": "an answer key (a solved grid), not a puzzle"}[res.status]
    log.info("%s%s%s", head, summary, f" (the grid lay turned {res.turned} degrees clockwise)" if res.turned else "")
    for c in res.corrections:
        log.warning("%scorrected clue: %s", head, c.describe())
    for p in res.problems:
        (log.info if res.status == Status.solved else log.warning)("%s%s", head, p)


def _output_problem(out: Path, format: str | None) -> str | None:
    """What is wrong with ``-o OUT`` (with ``--format``), checked before any work; None when nothing."""
    fmt = format_of_suffix(out.suffix)
    if fmt is None:
        return f"-o {out}: name the image .png, .jpg, .webp or .tif (its suffix decides its format)"
    if format is not None and fmt != format_of_suffix(FORMATS[format]):
        return f"-o {out} and --format {format} disagree; give one of them"
    return None


def cmd_solve(args: argparse.Namespace) -> int:
    if args.flat:  # only then: its imports cost a twentieth of a second
        from flat import FLAT_SUFFIXES, entry_from_result, write_flat

    path = Path(args.input)
    start = time.perf_counter()
    out = Path(args.output) if args.output else None
    problem = _output_problem(out, args.format) if out is not None else None
    if problem is None and args.flat and Path(args.flat).suffix.lower() not in FLAT_SUFFIXES:
        problem = f"--flat {args.flat}: name it .svg, .pdf or .png (its suffix decides its format)"
    if problem is not None:
        log.error("%s", problem)
        return int(ExitCode.bad_args)
    puzzle, image = load_input(path)
    reveal = args.reveal or not args.progress
    if puzzle is not None:
        results = [solve_puzzle_file(puzzle, time_limit_s=args.time_limit)]
    else:
        try:
            results = solve_image(image, time_limit_s=args.time_limit)
        except GridNotFoundError:
            if args.debug:
                write_debug(Path(args.debug), path.stem, image, [])
            raise
        if args.progress:
            results = [read_progress(r) for r in results]
        info = read_image_info(path)
        out = out or Path(f"{path.stem}.solved{image_suffix(info, args.format)}")
        write_image(out, annotate_image(image, results, progress=args.progress, reveal=reveal), info)
        log.info("annotated image written to %s", out)
        if args.debug:
            write_debug(Path(args.debug), path.stem, image, results)
    if args.flat:  # every puzzle of the input on one page, labelled when there are several
        several = len(results) > 1
        write_flat([entry_from_result(r, input=path.name if several else None, index=k if several else None)
                    for k, r in enumerate(results, start=1)], Path(args.flat))
        log.info("flat drawing written to %s", args.flat)
    if args.json:
        doc = {"input": str(path), "puzzles": [r.to_json() for r in results],
               "seconds": round(time.perf_counter() - start, 3)}
        sys.stdout.write(json.dumps(doc) + "\n")
    else:
        for i, res in enumerate(results):
            _print_result_text(res, i, len(results), reveal=reveal or puzzle is not None)
    return int(worst_exit_code(r.status for r in results))


def _results_of(path: Path, time_limit_s: float) -> tuple[list[PuzzleResult], np.ndarray | None]:
    """Every puzzle of an input, read and solved: one for a puzzle file, each grid for an image."""
    puzzle, image = load_input(path)
    if puzzle is not None:
        return [solve_puzzle_file(puzzle, time_limit_s=time_limit_s)], None
    return solve_image(image, time_limit_s=time_limit_s), image


def _not_settled(path: Path, k: int, res: PuzzleResult, several: bool) -> None:
    where = f"puzzle {k}: " if several else ""
    log.error("%s: %s%s%s", path, where, res.status, f": {res.problems[0]}" if res.problems else "")


def cmd_hint(args: argparse.Namespace) -> int:
    path = Path(args.input)
    out = Path(args.output) if args.output else None
    problem = _output_problem(out, None) if out is not None else None
    if problem is not None:
        log.error("%s", problem)
        return int(ExitCode.bad_args)
    results, image = _results_of(path, args.time_limit)
    if image is not None:  # the player's digits, handwritten ones too, count
        results = [read_progress(r) for r in results]
    puzzles = [(k, r) for k, r in enumerate(results, start=1) if r.status != Status.answer_key]
    several = len(puzzles) > 1
    picture, hinted = image, False
    for k, res in puzzles:
        if res.status not in (Status.solved, Status.ambiguous):
            _not_settled(path, k, res, several)
            continue
        try:
            step = hint_for(res, force=args.force)
        except ValueError as exc:  # digits entered that break a run
            raise PuzzleFormatError(f"{path}: {exc}") from None
        wrong = [(r, c) for (r, c), _, ok in res.written if ok is False]
        if step is None:
            known = set(res.puzzle.given_at) | {cell for cell, _, ok in res.written if ok}
            said = ("every white cell is filled in" if res.puzzle.whites <= known else
                    "no step follows from the techniques alone; --force gives a cell proved by search")
            doc = {"row": None, "col": None, "digit": None, "technique": None, "explanation": said, "cells": []}
        else:
            doc = step.to_json()
            said = step.explanation
            if picture is not None:
                picture, hinted = annotate_hint(picture, res, step), True
        if wrong:
            doc["wrong"] = [[r + 1, c + 1] for r, c in wrong]
            said += "; first put right the wrong entr" + ("y" if len(wrong) == 1 else "ies") + " at " + \
                ", ".join(f"row {r + 1}, column {c + 1}" for r, c in wrong)
        if several:
            doc = {"puzzle": k, **doc}
        if args.json:
            sys.stdout.write(json.dumps(doc) + "\n")
        else:
            print(f"puzzle {k}: {said}" if several else said)
    if hinted:
        info = read_image_info(path)
        out = out or Path(f"{path.stem}.hint{image_suffix(info, None)}")
        write_image(out, picture, info)
        log.info("hint drawn in %s", out)
    return int(worst_exit_code(r.status for _, r in puzzles)) if puzzles else int(ExitCode.ok)


def cmd_grade(args: argparse.Namespace) -> int:
    path = Path(args.input)
    results, _ = _results_of(path, args.time_limit)
    puzzles = [(k, r) for k, r in enumerate(results, start=1) if r.status != Status.answer_key]
    several = len(puzzles) > 1
    for k, res in puzzles:
        if res.status != Status.solved:
            # A grade is how a person reaches the one solution: there must be exactly one.
            _not_settled(path, k, res, several)
            continue
        found = grade(res.puzzle)
        if args.json:
            doc = found.to_json()
            sys.stdout.write(json.dumps({"puzzle": k, **doc} if several else doc) + "\n")
        else:
            used = ", ".join(f"{name} {n}" for name, n in found.techniques.items() if n)
            print(f"{'puzzle %d: ' % k if several else ''}{found.grade} (score {found.score:.2f}): {used}")
    return int(worst_exit_code(r.status for _, r in puzzles)) if puzzles else int(ExitCode.ok)


def cmd_check(args: argparse.Namespace) -> int:
    path = Path(args.input)
    puzzle, image = load_input(path)
    if puzzle is None:
        raise PuzzleFormatError(f"{path}: `kakuro check` takes a puzzle file (text, JSON or CSP), not an image")
    res = solve_puzzle_file(puzzle, time_limit_s=args.time_limit)
    sol = res.solution
    print(f"{path}: valid, {len(puzzle.whites)} white cells, {len(puzzle.runs)} runs")
    if res.status == Status.solved:
        print("exactly one solution:")
        print(format_text(puzzle, sol.values), end="")
    elif res.status == Status.ambiguous:
        print("more than one solution; two of them:")
        print(format_text(puzzle, sol.values), end="")
        print()
        print(format_text(puzzle, sol.other or {}), end="")
        print("they differ at (row, column): " + ", ".join(f"({r + 1},{c + 1})" for r, c in sol.differing))
    else:
        print(res.problems[0] if res.problems else "no solution")
    return int(res.status.exit_code)


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


def cmd_batch(args: argparse.Namespace) -> int:
    from batch import BatchOptions, run_batch  # here: a single solve need not load the batch engine

    options = BatchOptions(Path(args.out), dpi=args.dpi, time_limit_s=args.time_limit, force=args.force,
                           image_format=args.format)
    report = run_batch(args.inputs, options, jobs=max(1, args.jobs or os.cpu_count() or 1), pdf=args.pdf,
                       answers=args.answers, fail_fast=args.fail_fast,
                       show_progress=sys.stderr.isatty() and not args.quiet)
    if report.book is not None:
        log.info("book written to %s", report.book)
    if report.answers is not None:
        log.info("answer key written to %s", report.answers)
    puzzles = [row for row in report.rows if row["index"]]
    log.info("%d page(s), %d puzzle(s): %d solved, %d not solved, %d page(s) failed; summary in %s",
             len(report.pages), len(puzzles), sum(1 for row in puzzles if row["status"] == Status.solved),
             sum(1 for row in puzzles if not Status(row["status"]).settled), report.failed_pages,
             options.out_dir / "summary.csv")
    if args.json:
        sys.stdout.write(json.dumps({"out": str(options.out_dir), "rows": report.rows}) + "\n")
    return int(report.exit_code)


def cmd_serve(args: argparse.Namespace) -> int:
    """The local web page (``web/``): upload a photo, fix clues, solve; until Ctrl-C."""
    try:
        import uvicorn

        from web.app import create_app
    except ImportError as exc:
        raise MissingDependencyError(f"`kakuro serve` needs fastapi, uvicorn and python-multipart ({exc}); "
                                     "install the project again with pip install -e .") from exc
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
    p.add_argument("-o", "--output", help="annotated image to write, in the format its suffix names: .png, .jpg, "
                                          ".webp, .tif (default: ./STEM.solved.EXT, EXT the input's format)")
    p.add_argument("--format", choices=list(FORMATS), help="the annotated image's format (default: the input's: "
                                                           "JPEG for a JPEG or HEIC photo, WebP for WebP, else PNG)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--progress", action="store_true", help="a half-filled puzzle: read the digits written in it "
                                                           "and mark each right (ticked) or wrong (circled)")
    p.add_argument("--reveal", action="store_true", help="with --progress: draw the solution too")
    p.add_argument("--flat", metavar="OUT", help="also draw the solved puzzle flat, as printed, into OUT: .svg, "
                                                ".pdf (digits as text) or .png (several puzzles of one image: "
                                                "all in one file; one not solved: its status instead)")
    p.add_argument("--debug", metavar="DIR", help="write one picture per stage into DIR")
    p.add_argument("--time-limit", type=float, default=10.0, metavar="S", help="solver time limit (default 10)")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("batch", help="solve folders of photos and PDF puzzle books, in parallel")
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="image files, folders (recursive) and PDFs")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for the outputs and summary.csv/json")
    p.add_argument("-j", "--jobs", type=int, default=0, metavar="N", help="worker processes (default: cores)")
    p.add_argument("--dpi", type=int, default=300, help="PDF rasterisation resolution (default 300)")
    p.add_argument("--pdf", action="store_true", help="also assemble the annotated pages into OUT/solved.pdf")
    p.add_argument("--answers", action="store_true", help="also write OUT/answers.pdf: an answer key, every "
                                                          "solved puzzle drawn flat and small, labelled")
    p.add_argument("--format", choices=list(FORMATS), help="the annotated pages' format (default: each input's: "
                                                           "JPEG for a JPEG or HEIC photo, WebP for WebP, else PNG)")
    p.add_argument("--force", action="store_true", help="redo pages already done in OUT")
    p.add_argument("--fail-fast", action="store_true", help="stop at the first page that fails")
    p.add_argument("--json", action="store_true", help="print one JSON object with every summary row")
    p.add_argument("--time-limit", type=float, default=10.0, metavar="S")
    p.set_defaults(func=cmd_batch)

    p = sub.add_parser("hint", help="the next step a person could take, and why (image or puzzle file)")
    p.add_argument("input", help="image or puzzle file; digits already entered count (givens in a puzzle file)")
    p.add_argument("--json", action="store_true", help="one JSON object per puzzle on stdout")
    p.add_argument("--force", action="store_true", help="where no technique gives a step, a cell proved by search")
    p.add_argument("-o", "--output", help="with an image: the hint drawn on it (default: ./STEM.hint.EXT)")
    p.add_argument("--time-limit", type=float, default=10.0, metavar="S")
    p.set_defaults(func=cmd_hint)

    p = sub.add_parser("grade", help="how hard a puzzle is for a person: the techniques it needs")
    p.add_argument("input", help="image or puzzle file")
    p.add_argument("--json", action="store_true", help="one JSON object per puzzle on stdout")
    p.add_argument("--time-limit", type=float, default=10.0, metavar="S")
    p.set_defaults(func=cmd_grade)

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
