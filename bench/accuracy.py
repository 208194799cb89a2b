"""Recognition accuracy and speed, per tier, on synthetic renders and on the real samples.

    .venv/bin/python bench/accuracy.py [--per-tier 20] [--seed 0] [--tiers clean,photo,...]

Synthetic puzzles are real corpus layouts (unique solutions) drawn by synthetic/render.py in random
styles and fonts, then scanned or photographed; "real" is every sample with a transcription,
"reshot" each of them photographed twice more (see ``_real``); "turned" renders scanned or
photographed, then turned a quarter or half turn with their orientation lost; "creased" renders
folded once across the grid (``synthetic.render.fold_crease``), then scanned or photographed. A tier
``style:FAMILY`` draws one style family of ``synthetic.render.STYLE_FAMILIES`` (scanned or
photographed at random); ``styles`` stands for one such tier per family.
Prints one table: puzzles, share of grids read exactly, share of cells right, share solved
correctly, solved WRONG (must be 0), images that crashed with an internal error (must be 0; named
on stderr, never counted as "no grid found"), median and max seconds per image (one core, in-process).
A player's typed digits are not givens, so a grid read with them as givens is not exact; an
answer key read and reported "solved" counts as solved WRONG.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from pipeline import solve_image  # noqa: E402
from solver.formats import grid_tokens, load_puzzle, parse_solution_grid  # noqa: E402
from solver.solve import solve_puzzle  # noqa: E402
from vision.errors import GridNotFoundError  # noqa: E402
from vision.imageio import load_image  # noqa: E402
from synthetic.render import (  # noqa: E402
    STYLE_FAMILIES, photograph, random_style, render_family, render_page, render_puzzle, use_print_fonts,
)

cv2.setNumThreads(1)
CORPUS = ROOT / "tests" / "data" / "puzzles" / "corpus"
SAMPLES = ROOT / "samples"


def _corpus(max_side: int):
    out = []
    for line in (CORPUS / "MANIFEST.tsv").read_text().splitlines()[1:]:
        fields = line.split("\t")
        name, size, verified = fields[0], fields[4], fields[-1]
        rows, cols = (int(v) for v in size.split("x"))
        sol = CORPUS / name.replace(".txt", ".sol")
        if verified == "UNIQUE" and max(rows, cols) <= max_side and sol.exists():
            out.append((load_puzzle(CORPUS / name), parse_solution_grid(sol.read_text())))
    return out


# The synthetic tiers that seed by their index here; a new tier must not move them (their images
# would change), so style families seed apart (see ``_synthetic``).
_SEEDED_TIERS = ("clean", "photo", "hard", "page", "light", "turned", "creased")


def _near(results, truth_xy):
    """The results whose grid is centred on the grid with corners ``truth_xy``."""
    centre = np.asarray(truth_xy).mean(axis=0)
    return [r for r in results if r.corners_xy is not None
            and np.linalg.norm(np.asarray(r.corners_xy).mean(axis=0) - centre)
            < 0.25 * np.linalg.norm(np.ptp(np.asarray(truth_xy), axis=0))]


def _answer_keys_solved(results, answer_keys):
    """How many answer grids were reported as a solved puzzle (each a wrong solution)."""
    return sum(any(r.status == "solved" for r in _near(results, key_xy)) for key_xy in answer_keys)


def _score(results, truths, corners):
    """Per true puzzle: (exact, cells right share, solved correctly, solved wrong)."""
    scores = []
    for (puzzle, values), truth_xy in zip(truths, corners):
        near = _near(results, truth_xy)
        res = near[0] if near else None
        truth_tokens = grid_tokens(puzzle)
        if res is None or res.puzzle is None:
            scores.append((False, 0.0, False, False))
            continue
        if (res.puzzle.n_rows, res.puzzle.n_cols) != (puzzle.n_rows, puzzle.n_cols):
            # Another shape solved (a frame read as a border of blocks, a row lost) is right only
            # where it holds the true white cells, shifted, and their true digits; else wrong.
            solved = res.status == "solved" and res.solution is not None
            right = solved and _shifted_solution_right(res, puzzle, values)
            scores.append((False, 0.0, right, solved and not right))
            continue
        tokens = grid_tokens(res.puzzle)
        cells = [a == b for ra, rb in zip(tokens, truth_tokens) for a, b in zip(ra, rb)]
        solved = res.status == "solved" and res.solution is not None
        right = solved and dict(res.solution.values) == {c: v for c, v in values.items() if c in puzzle.whites}
        scores.append((tokens == truth_tokens, sum(cells) / len(cells), right, solved and not right))
    return scores


def _shifted_solution_right(res, puzzle, values) -> bool:
    """Whether a solution read on a grid of another shape is the true one, shifted."""
    read_whites = set(res.puzzle.whites)
    for dr in range(-puzzle.n_rows, res.puzzle.n_rows + 1):
        for dc in range(-puzzle.n_cols, res.puzzle.n_cols + 1):
            if {(r + dr, c + dc) for r, c in puzzle.whites} == read_whites:
                got = dict(res.solution.values)
                return all(got.get((r + dr, c + dc)) == values[(r, c)] for r, c in puzzle.whites)
    return False


def _report_miss(folder: Path, tier: str, k: int, image: np.ndarray, results) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{tier.replace(':', '-')}-{k}.png"
    cv2.imwrite(str(folder / name), image)
    what = "; ".join(f"{r.status} {r.puzzle.n_rows}x{r.puzzle.n_cols}: {r.problems[0] if r.problems else ''}"
                     if r.puzzle is not None else r.status for r in results) or "no grid found"
    print(f"miss {name}: {what}", file=sys.stderr)


def _synthetic(tier: str, n: int, seed: int, pool):
    """``n`` images of ``tier``: (image, [(puzzle, values)], [corners], [answer key corners])."""
    family = tier[len("style:"):] if tier.startswith("style:") else None
    index = _SEEDED_TIERS.index(tier) if family is None else 100 + STYLE_FAMILIES.index(family)
    rng = np.random.default_rng([seed, index])
    for _ in range(n):
        if family is not None:
            level = str(rng.choice(["clean", "photo"]))
            if family == "answer_key":
                small = [p for p in pool if max(p[0].n_rows, p[0].n_cols) <= 10]
                picks = [small[i] for i in rng.choice(len(small), size=int(rng.integers(1, 3)), replace=False)]
                cell = None
            else:
                picks = [pool[int(rng.integers(len(pool)))]]
                longest = max(picks[0][0].n_rows, picks[0][0].n_cols)
                cell = int(rng.integers(max(24, 300 // longest + 1), min(80, 2000 // longest) + 1))
            image, corners, _, keys = render_family(rng, family, [p for p, _ in picks], [v for _, v in picks],
                                                    cell_px=cell, level=level)
            yield image, picks, corners, keys
        elif tier == "page":
            small = [p for p in pool if max(p[0].n_rows, p[0].n_cols) <= 10]
            picks = [small[i] for i in rng.choice(len(small), size=int(rng.integers(2, 5)), replace=False)]
            style = random_style(rng)
            level = rng.choice(["none", "clean", "photo"])
            image, corners = render_page([p for p, _ in picks], [style] * len(picks), rng,
                                         level=None if level == "none" else str(level))
            yield image, picks, corners, []
        else:
            puzzle, values = pool[int(rng.integers(len(pool)))]
            longest = max(puzzle.n_rows, puzzle.n_cols)
            cell = int(rng.integers(max(24, 300 // longest + 1), min(80, 2000 // longest) + 1))
            image, corners = render_puzzle(puzzle, random_style(rng, cell), rng=rng)
            if tier == "creased":
                # A page folded across the grid and flattened again, then scanned or photographed.
                image, corners = photograph(image, corners, rng, str(rng.choice(["clean", "photo"])), fold=True)
            elif tier == "turned":
                # Scanned or photographed, then turned by a quarter or half turn with its
                # orientation lost (a page fed in sideways, a photo's EXIF stripped).
                image, corners = photograph(image, corners, rng, str(rng.choice(["clean", "photo"])))
                image, corners = _turned(image, corners, int(rng.integers(1, 4)))
            else:
                image, corners = photograph(image, corners, rng, tier)
            yield image, [(puzzle, values)], [corners], []


def _turned(image: np.ndarray, corners: np.ndarray, quarters: int) -> tuple[np.ndarray, np.ndarray]:
    """``image`` turned ``quarters`` quarter turns clockwise, and ``corners`` with it."""
    for _ in range(quarters):
        h = image.shape[0]
        image = np.ascontiguousarray(np.rot90(image, -1))
        corners = np.stack([h - 1 - corners[:, 1], corners[:, 0]], axis=1)
    return image, corners


def _real(reshoot: int = 0, seed: int = 0):
    """Every transcribed sample; with ``reshoot``, that many photos of each, taken anew.

    A reshot sample is the real image printed on a page and photographed again (rotation, tilt,
    desk, light, noise, JPEG): real print and real fonts, seen as the reader has not seen them.
    """
    rng = np.random.default_rng([seed, 99])
    for txt in sorted(SAMPLES.glob("*.txt")):
        images = [p for p in SAMPLES.glob(txt.stem + ".*") if p.suffix.lower() in (".png", ".jpg", ".jpeg")]
        truth = load_puzzle(txt)
        if not images or not truth.whites:  # placeholder transcriptions hold no white cell
            continue
        image = load_image(images[0])
        if not reshoot:
            yield image, [(truth, None)], None, []
        h, w = image.shape[:2]
        frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        for _ in range(reshoot):
            yield photograph(image, frame, rng, "photo")[0], [(truth, None)], None, []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-tier", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--misses", type=Path, default=None, metavar="DIR",
                        help="write each image not read exactly or not solved to DIR (TIER-K.png) and say why on stderr")
    parser.add_argument("--tiers", default="clean,photo,hard,light,page,real,reshot",
                        help="comma-separated: clean, photo, hard, light, page, turned, creased, real, reshot, "
                             "style:FAMILY, or styles (one style:FAMILY row per family)")
    parser.add_argument("--fonts", nargs="+", type=Path, default=None, metavar="PATH",
                        help="draw the synthetic tiers' numbers only in these TTF/OTF files or the fonts under "
                             "these folders (fonts the glyph model never saw, installed for the purpose)")
    args = parser.parse_args()
    if args.fonts:
        files = [[d] if d.is_file() else [f for ext in ("*.ttf", "*.otf") for f in d.rglob(ext)] for d in args.fonts]
        use_print_fonts(sorted(str(f) for group in files for f in group))
    tiers = [t for name in args.tiers.split(",")
             for t in ([f"style:{f}" for f in STYLE_FAMILIES] if name == "styles" else [name])]
    unknown = [t for t in tiers if t not in _SEEDED_TIERS + ("real", "reshot")
               and t not in [f"style:{f}" for f in STYLE_FAMILIES]]
    if unknown:
        parser.error(f"--tiers: unknown {unknown}; families are {', '.join(STYLE_FAMILIES)}")
    pool = _corpus(15)
    rows = []
    for tier in tiers:
        scores, seconds, keys_solved, crashed = [], [], 0, 0
        if tier in ("real", "reshot"):
            source = _real(reshoot=2 if tier == "reshot" else 0, seed=args.seed)
        else:
            source = _synthetic(tier, args.per_tier, args.seed, pool)
        for k, (image, truths, corners, answer_keys) in enumerate(source):
            start = time.perf_counter()
            try:
                results = solve_image(image)
            except GridNotFoundError:
                results = []
            except Exception as exc:  # noqa: BLE001 - a miss is a score of zero, not a crash of the bench
                # An internal error is never a user's "no grid": counted, and named, on its own.
                crashed += 1
                results = []
                print(f"crash {tier} #{k}: {type(exc).__name__}: {exc}", file=sys.stderr)
            seconds.append(time.perf_counter() - start)
            if corners is None:  # real images: match the result of the same shape
                all_results = results
                truth = truths[0][0]
                results = [r for r in results if r.puzzle is not None
                           and (r.puzzle.n_rows, r.puzzle.n_cols) == (truth.n_rows, truth.n_cols)][:1]
                if results:
                    corners = [results[0].corners_xy]
                    values = dict(results[0].solution.values) if results[0].solution else {}
                    true_values = dict(solve_puzzle(truth).values)
                    truths = [(truth, true_values)]
                else:
                    # A shape a row or two off solved (a row of desk read as blocks) is right only
                    # where it holds the true solution, shifted; else it is a wrong answer. (A
                    # page may hold other puzzles, of other shapes.)
                    solved = [r for r in all_results if r.status == "solved" and r.solution is not None
                              and abs(r.puzzle.n_rows - truth.n_rows) <= 2 and abs(r.puzzle.n_cols - truth.n_cols) <= 2]
                    true_values = dict(solve_puzzle(truth).values) if solved else {}
                    right = any(_shifted_solution_right(r, truth, true_values) for r in solved)
                    scores.append((False, 0.0, right, bool(solved) and not right))
                    if args.misses is not None:
                        _report_miss(args.misses, tier, k, image, all_results)
                    continue
            scored = _score(results, truths, corners)
            scores.extend(scored)
            if args.misses is not None and not all(s[0] and s[2] for s in scored):
                _report_miss(args.misses, tier, k, image, results)
            keys_solved += _answer_keys_solved(results, answer_keys)
        n = len(scores)
        rows.append((tier, n, sum(s[0] for s in scores) / n, sum(s[1] for s in scores) / n,
                     sum(s[2] for s in scores) / n, sum(s[3] for s in scores) + keys_solved,
                     crashed, statistics.median(seconds), max(seconds)))
    width = max([7] + [len(tier) + 1 for tier, *_ in rows])
    print(f"{'tier':<{width}}{'puzzles':>8}{'exact':>8}{'cells':>8}{'solved':>8}{'WRONG':>7}{'crashed':>8}"
          f"{'med s':>8}{'max s':>8}")
    for tier, n, exact, cells, solved, wrong, crashed, med, mx in rows:
        print(f"{tier:<{width}}{n:>8}{exact:>8.1%}{cells:>8.1%}{solved:>8.1%}{wrong:>7}{crashed:>8}{med:>8.2f}{mx:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
