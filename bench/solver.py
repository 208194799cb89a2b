"""Time the solver over a corpus of puzzles: model build (parse + validate) and solve + uniqueness proof.

Usage: ``.venv/bin/python bench/solver.py [--corpus DIR] [--repeat N] [--time-limit S]``

Each puzzle is timed ``--repeat`` times and its fastest run kept (as ``timeit`` does: the
other runs measure the machine's other work, not the solver). Prints median and max per size class
(white cells <100, 100-399, >=400), the slowest puzzles, and whether the floors are met.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver.errors import KakuroError  # noqa: E402
from solver.formats import load_puzzle  # noqa: E402
from solver.solve import solve_puzzle  # noqa: E402
from solver.validate import validate_puzzle  # noqa: E402

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "puzzles" / "corpus"
# (name, lowest white-cell count, median floor in ms)
SIZE_CLASSES = (("small (<100)", 0, 5.0), ("medium (100-399)", 100, 15.0), ("large (>=400)", 400, 80.0))
MAX_SECONDS = 1.0
EXCEPTIONS = {"marcelgarus__huge": 5.0}


@dataclass(frozen=True)
class Timing:
    name: str
    whites: int
    build_ms: float
    solve_ms: float
    status: str

    @property
    def total_ms(self) -> float:
        return self.build_ms + self.solve_ms


def _size_class(whites: int) -> str:
    return [name for name, low, _ in SIZE_CLASSES if whites >= low][-1]


def time_puzzle(path: Path, repeat: int, time_limit_s: float) -> Timing | None:
    """Fastest of ``repeat`` runs; None for a puzzle that does not validate (nothing to solve)."""
    best_build = best_solve = float("inf")
    status = ""
    whites = 0
    for i in range(repeat):
        t0 = time.perf_counter()
        puzzle = load_puzzle(path)
        problems = validate_puzzle(puzzle)
        t1 = time.perf_counter()
        if problems:
            return None
        solution = solve_puzzle(puzzle, time_limit_s=time_limit_s)
        t2 = time.perf_counter()
        best_build, best_solve = min(best_build, t1 - t0), min(best_solve, t2 - t1)
        status, whites = solution.status, len(puzzle.whites)
        if t2 - t1 > 1.0:  # one run of a slow puzzle says enough
            break
    return Timing(path.stem, whites, best_build * 1e3, best_solve * 1e3, status)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder of *.txt puzzles")
    parser.add_argument("--repeat", type=int, default=3, help="runs per puzzle; the fastest counts")
    parser.add_argument("--time-limit", type=float, default=30.0, help="solver limit per puzzle, seconds")
    args = parser.parse_args(argv)

    paths = sorted(p for p in args.corpus.glob("*.txt"))
    if not paths:
        parser.error(f"no *.txt puzzles in {args.corpus}")
    timings: list[Timing] = []
    skipped: list[str] = []
    for path in paths:
        try:
            timing = time_puzzle(path, args.repeat, args.time_limit)
        except KakuroError as exc:
            skipped.append(f"{path.name}: {exc}")
            continue
        if timing is None:
            skipped.append(f"{path.name}: invalid puzzle")
        else:
            timings.append(timing)

    ok = True
    print(f"{len(timings)} puzzles from {args.corpus} (fastest of {args.repeat} runs each); "
          f"{len(skipped)} skipped as invalid")
    print()
    header = (f"{'size class':<18} {'n':>3}  {'build med':>9} {'build max':>9}  {'solve med':>9} "
              f"{'solve max':>9}  {'total med':>9} {'total max':>9}  {'floor':>6}")
    print(header)
    print("-" * len(header))
    for name, _, floor in SIZE_CLASSES:
        group = [t for t in timings if _size_class(t.whites) == name]
        if not group:
            continue
        build = [t.build_ms for t in group]
        solve = [t.solve_ms for t in group]
        total = [t.total_ms for t in group]
        med = statistics.median(total)
        verdict = "ok" if med <= floor else "MISSED"
        ok &= med <= floor
        print(f"{name:<18} {len(group):>3}  {statistics.median(build):>9.1f} {max(build):>9.1f}  "
              f"{statistics.median(solve):>9.1f} {max(solve):>9.1f}  {med:>9.1f} {max(total):>9.1f}  "
              f"{floor:>4.0f}ms {verdict}")
    print("(times in ms; total = build + solve, the figure held to the floor)")
    print()
    print("slowest 5:")
    for t in sorted(timings, key=lambda t: t.total_ms, reverse=True)[:5]:
        limit = EXCEPTIONS.get(t.name, MAX_SECONDS)
        over = t.total_ms > limit * 1e3
        print(f"  {t.name:<42} {t.whites:>6} white  build {t.build_ms:>8.1f}  solve {t.solve_ms:>8.1f} ms  "
              f"{t.status:<8} {'OVER ' + str(limit) + ' s' if over else ''}")
    over = [t for t in timings if t.total_ms > EXCEPTIONS.get(t.name, MAX_SECONDS) * 1e3]
    ok &= not over
    for line in skipped:
        print(f"skipped {line}")
    print()
    print("floors met" if ok else f"FLOORS MISSED ({len(over)} puzzle(s) over their limit)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
