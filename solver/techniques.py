"""Human solving techniques: the next step a person could take, and a difficulty grade.

A *step* places one digit in one cell, proved by one named technique from the puzzle's givens and
the digits already entered. Techniques are tried simplest first; the first that places a digit
anywhere on the board gives the step (within a technique, the first cell in reading order; for
block sums, the block of fewest runs):

``last-cell``
    A run with one open cell left: the clue less the digits placed.
``one-combination``
    The digits still open in a run can be made only one way (16 in two cells is only 7+9), and the
    crossing run allows just one of those digits here.
``crossing``
    The digits the across run still allows (the union of its combinations, less the digits placed
    in it) and those the down run allows share only one digit.
``common-digits``
    A digit that every combination of a run uses, and that no other open cell of the run can take
    because that cell's crossing run does not allow it.
``pencil-marks``
    Every open cell is pencil-marked with the digits both its runs allow, and each run's marks
    are narrowed to the combinations its cells can still make, over and over: one mark is left.
``hidden-single``
    With those pencil marks, a digit every combination a run can still make uses fits only one of
    its cells.
``arrangements``
    Pencil marks narrowed further by how each run's combinations can be *arranged* over its cells
    (naked and hidden pairs and triples, a digit two cells must share): one mark is left.
``block-sum``
    The across clues of a block of rows minus the down clues of a block of columns (or the other
    way round) cover the same cells but one, apart from digits already placed ("innies and
    outies"): that cell is the difference. Where such a block leaves two or three open cells, the
    sum they must make strikes pencil marks (and arrangements narrow the rest again) until a
    cell has one mark left. Blocks are the runs inside a rectangle of up to 9 rows and columns.
``search``
    Only when nothing above applies: a cell whose digit every other candidate of it contradicts,
    proved by the exact solver (``solve_puzzle``). ``next_step`` gives it only with ``force``.

The pencil marks are hidden reasoning (a person keeps them on the page): they are computed afresh
from the placed digits for every step and never placed themselves; a step names the runs and cells
its final placement rests on.

Grade
-----
``grade`` solves the whole puzzle step by step as above and counts each technique. Each technique
has a difficulty (``DIFFICULTY``: 1 for one run or one crossing, 2 for a digit over a whole run,
3-4 for pencil marks, 6 for arrangements, 8 for block sums, 12 for search). The score is

    hardest + work / (work + 20)

where ``hardest`` is the difficulty of the hardest technique the puzzle needed and ``work`` sums
the difficulty of every step except the last-cell fill-ins (the deductions that need thought,
the hard ones weighing more). The second term is under 1, so the hardest technique decides the
band and how often deductions, hard ones most, recur orders puzzles within it (20 is about the
work of a small newspaper puzzle: there the term is one half).

The grade follows from what a solver must know, not from the score's value:

- ``easy``: only one run or one crossing at a time (last-cell, one-combination, crossing).
- ``medium``: also a digit over a whole run (common-digits) or simple pencil marks
  (pencil-marks, hidden-single).
- ``hard``: arrangements of combinations over pencil marks, or a block sum.
- ``expert``: none of these is enough somewhere: search (trial and error) was needed.

Coordinates are ``(row, col)``, 0-based in code; explanations and JSON count from 1.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping

from .combos import combinations
from .model import Cell, Puzzle
from .solve import solve_puzzle

__all__ = [
    "Step", "Grade", "next_step", "grade",
    "LAST_CELL", "ONE_COMBINATION", "CROSSING", "COMMON_DIGITS", "PENCIL_MARKS", "HIDDEN_SINGLE",
    "ARRANGEMENTS", "BLOCK_SUM", "SEARCH", "TECHNIQUES", "DIFFICULTY",
]

log = logging.getLogger(__name__)

LAST_CELL = "last-cell"
ONE_COMBINATION = "one-combination"
CROSSING = "crossing"
COMMON_DIGITS = "common-digits"
PENCIL_MARKS = "pencil-marks"
HIDDEN_SINGLE = "hidden-single"
ARRANGEMENTS = "arrangements"
BLOCK_SUM = "block-sum"
SEARCH = "search"

#: Every technique, simplest first: the order ``next_step`` tries them in.
TECHNIQUES = (LAST_CELL, ONE_COMBINATION, CROSSING, COMMON_DIGITS, PENCIL_MARKS, HIDDEN_SINGLE,
              ARRANGEMENTS, BLOCK_SUM, SEARCH)
#: How hard each technique is (see the module docstring): the score's unit.
DIFFICULTY = {LAST_CELL: 1, ONE_COMBINATION: 1, CROSSING: 1, COMMON_DIGITS: 2, PENCIL_MARKS: 3,
              HIDDEN_SINGLE: 4, ARRANGEMENTS: 6, BLOCK_SUM: 8, SEARCH: 12}
# The work (sum of step difficulties) that adds half a point to the score: about the
# deductions of a small newspaper puzzle.
_WORK_HALF = 20
# The largest block (rows or columns) a block sum looks at.
_BLOCK_SPAN = 9

_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


@dataclass(frozen=True, slots=True)
class Step:
    """One digit placed in one cell, and why.

    row, col : int
        The cell, 0-based.
    digit : int
        The digit the reasoning proves.
    technique : str
        One of ``TECHNIQUES``.
    explanation : str
        One English sentence, rows and columns counted from 1.
    cells : tuple of (int, int)
        The white cells the reasoning used (the runs looked at), 0-based, the placed cell included.
    """

    row: int
    col: int
    digit: int
    technique: str
    explanation: str
    cells: tuple[Cell, ...]

    def to_json(self) -> dict[str, Any]:
        """``{"row", "col", "digit", "technique", "explanation", "cells"}``, counted from 1."""
        return {"row": self.row + 1, "col": self.col + 1, "digit": self.digit,
                "technique": self.technique, "explanation": self.explanation,
                "cells": [[r + 1, c + 1] for r, c in self.cells]}


@dataclass(frozen=True)
class Grade:
    """How hard a puzzle is for a person: see the module docstring for the rule.

    grade : str
        ``easy``, ``medium``, ``hard`` or ``expert``.
    score : float
        Difficulty of the hardest technique needed, plus under 1 for how much thinking the steps
        took (``hardest + work / (work + 20)``).
    techniques : dict of str to int
        How many digits each technique placed (only the techniques used), simplest first.
    needed_search : bool
        Whether some digit could be found only by search.
    """

    grade: str
    score: float
    techniques: Mapping[str, int] = field(default_factory=dict)
    needed_search: bool = False

    def to_json(self) -> dict[str, Any]:
        """``{"grade", "score", "techniques", "needed_search"}``."""
        return {"grade": self.grade, "score": self.score, "techniques": dict(self.techniques),
                "needed_search": self.needed_search}


# --- digits as bitmasks (bits 1..9) ------------------------------------------------------------

def _bits(mask: int) -> list[int]:
    return [d for d in range(1, 10) if mask >> d & 1]


def _single(mask: int) -> int:
    """The digit of a one-digit mask, else 0."""
    return mask.bit_length() - 1 if mask and not mask & (mask - 1) else 0


@lru_cache(maxsize=None)
def _combo_masks(total: int, length: int) -> tuple[int, ...]:
    out = []
    for combo in combinations(total, length):
        mask = 0
        for d in combo:
            mask |= 1 << d
        out.append(mask)
    return tuple(out)


def _open_combos(rest: int, n_open: int, placed: int) -> tuple[int, ...]:
    """Combinations of ``rest`` over ``n_open`` cells that use none of the ``placed`` digits."""
    return tuple(m for m in _combo_masks(rest, n_open) if not m & placed)


@lru_cache(maxsize=1 << 16)
def _filter_by_combos(combos: tuple[int, ...],
                      masks: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Pencil marks: the combinations the cells' marks still allow (each digit on some cell, each
    cell holding one of its digits) and the marks narrowed to them; None when none is left."""
    union = 0
    for m in masks:
        union |= m
    kept = tuple(c for c in combos if not c & ~union and all(m & c for m in masks))
    if not kept:
        return None
    allowed = 0
    for c in kept:
        allowed |= c
    return kept, tuple(m & allowed for m in masks)


@lru_cache(maxsize=1 << 16)
def _arrange(combos: tuple[int, ...], masks: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Arrangements: the combinations that can be laid out over the cells (one distinct digit per
    cell, each within its marks) and each cell's marks cut to the digits some layout puts there."""
    n = len(masks)
    out = [0] * n
    kept = []
    for combo in combos:
        forward = [{0}]
        for m in masks:
            nxt = set()
            for used in forward[-1]:
                free = m & combo & ~used
                while free:
                    bit = free & -free
                    free ^= bit
                    nxt.add(used | bit)
            if not nxt:
                break
            forward.append(nxt)
        if len(forward) <= n:
            continue
        kept.append(combo)
        alive = {combo}
        for i in range(n - 1, -1, -1):
            before = set()
            for used in forward[i]:
                free = masks[i] & combo & ~used
                while free:
                    bit = free & -free
                    free ^= bit
                    if used | bit in alive:
                        out[i] |= bit
                        before.add(used)
            alive = before
    if not kept:
        return None
    return tuple(kept), tuple(out)


def _digit_list(mask: int, joiner: str = "or") -> str:
    ds = [str(d) for d in _bits(mask)]
    if len(ds) <= 1:
        return "".join(ds)
    return f"{', '.join(ds[:-1])} {joiner} {ds[-1]}"


def _combo_text(mask: int) -> str:
    return "+".join(str(d) for d in _bits(mask))


def _combos_text(combos: tuple[int, ...]) -> str:
    texts = [_combo_text(c) for c in combos]
    if len(texts) > 4:
        return f"one of {len(texts)} combinations"
    if len(texts) == 1:
        return texts[0]
    return f"{', '.join(texts[:-1])} or {texts[-1]}"


def _where(cell: Cell) -> str:
    return f"row {cell[0] + 1}, column {cell[1] + 1}"


def _cells_word(n: int) -> str:
    return f"{_WORDS[n] if n < len(_WORDS) else n} cell{'' if n == 1 else 's'}"


def _numbers(values: list[int]) -> str:
    """``2``, ``2 and 3``, ``2, 3 and 4``."""
    if len(values) <= 1:
        return "".join(map(str, values))
    return f"{', '.join(map(str, values[:-1]))} and {values[-1]}"


# --- the board ---------------------------------------------------------------------------------

class _Contradiction(Exception):
    """The placed digits break a run (or leave it no filling): no step follows from them."""


class _Board:
    """The puzzle flattened to integer ids, built once per puzzle (cached)."""

    def __init__(self, puzzle: Puzzle):
        self.cells: list[Cell] = sorted(puzzle.whites)
        self.index = {cell: i for i, cell in enumerate(self.cells)}
        self.run_cells: list[tuple[int, ...]] = []
        self.run_total: list[int] = []
        self.run_dir: list[str] = []
        self.run_clue: list[Cell] = []
        self.across_of = [-1] * len(self.cells)
        self.down_of = [-1] * len(self.cells)
        for run in puzzle.runs:
            if not run.cells:
                continue
            r = len(self.run_cells)
            self.run_cells.append(tuple(self.index[c] for c in run.cells))
            self.run_total.append(run.total)
            self.run_dir.append(run.direction)
            self.run_clue.append(run.clue)
            for c in run.cells:
                if run.direction == "across":
                    self.across_of[self.index[c]] = r
                else:
                    self.down_of[self.index[c]] = r
        self._blocks: list[tuple] | None = None

    def runs_of(self, i: int) -> tuple[int, ...]:
        return tuple(r for r in (self.across_of[i], self.down_of[i]) if r >= 0)

    def cross(self, i: int, r: int) -> int:
        """The other run through cell ``i`` than ``r`` (-1: none)."""
        return self.down_of[i] if self.run_dir[r] == "across" else self.across_of[i]

    def run_name(self, r: int) -> str:
        return f"the {self.run_dir[r]} run {self.run_total[r]} in {_cells_word(len(self.run_cells[r]))}"

    def blocks(self) -> list[tuple]:
        """Block-sum candidates: (base runs, [(crossing run, cells inside, cells outside)], lone
        cells), the base runs being every across (or down) run inside a rectangle of at most
        ``_BLOCK_SPAN`` rows and columns; fewest runs first."""
        if self._blocks is None:
            self._blocks = self._find_blocks()
        return self._blocks

    def _find_blocks(self) -> list[tuple]:
        found: dict[frozenset[int], tuple] = {}
        for direction in ("across", "down"):
            # (line, first, last, run): line is the row of an across run, the column of a down
            # run; first and last are the run's first and last column (row).
            spans = []
            for r, cells in enumerate(self.run_cells):
                if self.run_dir[r] != direction:
                    continue
                pos = [self.cells[i] for i in cells]
                if direction == "across":
                    spans.append((pos[0][0], pos[0][1], pos[-1][1], r))
                else:
                    spans.append((pos[0][1], pos[0][0], pos[-1][0], r))
            lines = sorted({s[0] for s in spans})
            for a, line1 in enumerate(lines):
                for line2 in lines[a:]:
                    if line2 - line1 >= _BLOCK_SPAN:
                        break
                    band = [s for s in spans if line1 <= s[0] <= line2]
                    starts = sorted({s[1] for s in band})
                    ends = sorted({s[2] for s in band})
                    for lo in starts:
                        for hi in ends:
                            if hi < lo or hi - lo >= _BLOCK_SPAN:
                                continue
                            base = frozenset(s[3] for s in band if lo <= s[1] and s[2] <= hi)
                            if base and base not in found:
                                found[base] = self._block(base)
        return sorted(found.values(), key=lambda b: (len(b[0]), sorted(b[0])))

    def _block(self, base: frozenset[int]) -> tuple:
        inside = {i for r in base for i in self.run_cells[r]}
        crossing: dict[int, list[int]] = {}
        lone = []
        one_of_base = next(iter(base))
        for i in sorted(inside):
            other = self.cross(i, one_of_base)
            if other < 0:
                lone.append(i)
            else:
                crossing.setdefault(other, []).append(i)
        parts = []
        for other, ins in sorted(crossing.items()):
            outs = tuple(i for i in self.run_cells[other] if i not in inside)
            parts.append((other, tuple(ins), outs))
        return tuple(sorted(base)), tuple(parts), tuple(lone)


@lru_cache(maxsize=16)
def _board(puzzle: Puzzle) -> _Board:
    return _Board(puzzle)


class _State:
    """Placed digits and what each run still needs: the view without pencil marks."""

    def __init__(self, board: _Board, values: list[int]):
        self.board = board
        self.values = values
        n_runs = len(board.run_cells)
        self.rest = [0] * n_runs
        self.placed = [0] * n_runs
        self.open: list[tuple[int, ...]] = []
        self.combos: list[tuple[int, ...]] = []
        self.union = [0] * n_runs
        for r, cells in enumerate(board.run_cells):
            placed = total = 0
            open_cells = []
            for i in cells:
                v = values[i]
                if v:
                    if placed >> v & 1:
                        raise _Contradiction(f"{board.run_name(r)} at {_where(board.run_clue[r])} "
                                             f"holds {v} twice")
                    placed |= 1 << v
                    total += v
                else:
                    open_cells.append(i)
            rest = board.run_total[r] - total
            combos = _open_combos(rest, len(open_cells), placed) if open_cells else ()
            if (open_cells and not combos) or (not open_cells and rest != 0):
                raise _Contradiction(f"{board.run_name(r)} at {_where(board.run_clue[r])} "
                                     "cannot be completed with the digits placed")
            self.rest[r], self.placed[r] = rest, placed
            self.open.append(tuple(open_cells))
            self.combos.append(combos)
            union = 0
            for c in combos:
                union |= c
            self.union[r] = union

    def allowed(self, i: int) -> int:
        """The digits both runs of open cell ``i`` allow, no pencil marks."""
        mask = 0b1111111110
        for r in self.board.runs_of(i):
            mask &= self.union[r]
        return mask

    def describe(self, r: int) -> str:
        """``the across run 24 in three cells`` with `` (9 placed)`` when digits are placed."""
        text = self.board.run_name(r)
        if self.placed[r]:
            text += f" ({_digit_list(self.placed[r], 'and')} placed)"
        return text


# --- the techniques ----------------------------------------------------------------------------

def _step(board: _Board, i: int, digit: int, technique: str, explanation: str,
          runs: tuple[int, ...]) -> Step:
    """The step placing ``digit`` at cell ``i``; its cells are ``i`` and those of ``runs``."""
    used = {i}
    for r in runs:
        used.update(board.run_cells[r])
    row, col = board.cells[i]
    return Step(row, col, digit, technique, f"{_where(board.cells[i])} is {digit}: {explanation}",
                tuple(sorted(board.cells[j] for j in used)))


def _last_cell(state: _State) -> Step | None:
    board = state.board
    last = [(open_cells[0], r) for r, open_cells in enumerate(state.open) if len(open_cells) == 1]
    if not last:
        return None
    i, r = min(last)
    digit = state.rest[r]  # a valid single combination, checked by _State
    why = (f"{state.describe(r)} leaves {digit} for its last open cell"
           if state.placed[r] else f"{board.run_name(r)} is {digit}")
    return _step(board, i, digit, LAST_CELL, why, (r,))


def _excluded_text(state: _State, r: int, digits: int) -> str:
    """Why run ``r`` takes none of ``digits``: ``has no 7``, ``already holds 8``."""
    held = digits & state.placed[r]
    missing = digits & ~held
    parts = []
    if missing:
        n = len(_bits(missing))
        parts.append("has no " + _digit_list(missing) if n == 1 else
                     ("has neither " + _digit_list(missing, "nor") if n == 2 else
                      "has none of " + _digit_list(missing)))
    if held:
        parts.append("already holds " + _digit_list(held, "and"))
    return " and ".join(parts)


def _one_combination(state: _State) -> Step | None:
    board = state.board
    for i, value in enumerate(state.values):
        if value:
            continue
        for r in board.runs_of(i):
            if len(state.combos[r]) != 1:
                continue
            combo = state.combos[r][0]
            other = board.cross(i, r)
            if other < 0:
                continue
            digit = _single(combo & state.union[other])
            if not digit:
                continue
            n_open = len(state.open[r])
            if state.placed[r]:
                first = (f"{state.describe(r)} leaves {state.rest[r]} in {_cells_word(n_open)}, "
                         f"which is only {_combo_text(combo)}")
            else:
                first = f"{board.run_total[r]} in {_cells_word(n_open)} is only {_combo_text(combo)}"
            rest = combo & ~(1 << digit)
            why = f"{first}, and {state.describe(other)} {_excluded_text(state, other, rest)}"
            return _step(board, i, digit, ONE_COMBINATION, why, (r, other))
    return None


def _crossing(state: _State) -> Step | None:
    board = state.board
    for i, value in enumerate(state.values):
        if value or board.across_of[i] < 0 or board.down_of[i] < 0:
            continue
        a, d = board.across_of[i], board.down_of[i]
        digit = _single(state.union[a] & state.union[d])
        if digit:
            why = (f"{state.describe(a)} allows only {_digit_list(state.union[a])} and "
                   f"{state.describe(d)} only {_digit_list(state.union[d])}; {digit} is the only "
                   "digit in both")
            return _step(board, i, digit, CROSSING, why, (a, d))
    return None


def _in_every(combos: tuple[int, ...]) -> int:
    """The digits (a mask) that every one of ``combos`` uses."""
    required = 0b1111111110
    for c in combos:
        required &= c
    return required


def _common_digits(state: _State) -> Step | None:
    board = state.board
    found: list[tuple[int, int, int]] = []  # (cell, run, digit)
    for r, open_cells in enumerate(state.open):
        if len(open_cells) < 2:
            continue
        required = _in_every(state.combos[r])
        for digit in _bits(required):
            bit = 1 << digit
            holders = [i for i in open_cells if state.allowed(i) & bit]
            if len(holders) != 1:
                continue  # none: the contradiction shows as a crossing step or in a later state
            if all(board.cross(j, r) >= 0 for j in open_cells if j != holders[0]):
                found.append((holders[0], r, digit))
    if not found:
        return None
    i, r, digit = min(found)
    bit = 1 << digit
    open_cells = state.open[r]
    others = [j for j in open_cells if j != i]
    crosses = [board.cross(j, r) for j in others]
    if state.placed[r]:
        first = (f"every combination {state.describe(r)} can still make "
                 f"({_full_combos(state, state.combos, r)}) uses {digit}")
    else:
        first = (f"every way to make {board.run_total[r]} in {_cells_word(len(open_cells))} "
                 f"uses {digit} ({_combos_text(state.combos[r])})")
    why = (f"{first}, and no other open cell of it can take {digit}: "
           + "; ".join(f"at {_where(board.cells[j])} {state.describe(x)} "
                       f"{_excluded_text(state, x, bit)}" for j, x in zip(others, crosses)))
    return _step(board, i, digit, COMMON_DIGITS, why, (r, *crosses))


def _full_combos(state: _State, kept: list[tuple[int, ...]], r: int) -> str:
    """The combinations run ``r`` can still make, its placed digits included: ``1+3+7+9``."""
    return _combos_text(tuple(c | state.placed[r] for c in kept[r]))


def _pencil_marks(state: _State, arrange: bool,
                  marks: list[int] | None = None) -> tuple[list[int], list[tuple[int, ...]]]:
    """Every open cell's pencil marks, narrowed run by run to a fixpoint (by combinations, and
    with ``arrange`` by arrangements too), and the combinations each run can still make."""
    board = state.board
    values = state.values
    if marks is None:
        marks = [0 if v else state.allowed(i) for i, v in enumerate(values)]
    else:
        marks = list(marks)
    kept = list(state.combos)
    narrow = _arrange if arrange else _filter_by_combos
    queue = [r for r in range(len(board.run_cells)) if state.open[r]]
    queued = set(queue)
    while queue:
        r = queue.pop(0)
        queued.discard(r)
        cells = state.open[r]
        result = narrow(kept[r], tuple(marks[i] for i in cells))
        if result is None:
            raise _Contradiction(f"{board.run_name(r)} at {_where(board.run_clue[r])} has no "
                                 "combination left that its cells can take")
        kept[r], new = result
        for i, m in zip(cells, new):
            if m != marks[i]:
                if not m:
                    raise _Contradiction(f"{_where(board.cells[i])} has no digit left")
                marks[i] = m
                for r2 in board.runs_of(i):
                    if r2 != r and r2 not in queued:
                        queued.add(r2)
                        queue.append(r2)
    return marks, kept


def _marks_single(state: _State, marks: list[int], kept: list[tuple[int, ...]], technique: str,
                  how: str) -> Step | None:
    board = state.board
    for i, value in enumerate(state.values):
        if value:
            continue
        digit = _single(marks[i])
        if not digit:
            continue
        runs = board.runs_of(i)
        detail = " and ".join(f"{state.describe(r)} can still be only {_full_combos(state, kept, r)}"
                              for r in runs)
        why = f"{how}, only {digit} is left here ({detail})"
        return _step(board, i, digit, technique, why, runs)
    return None


def _hidden_single(state: _State, marks: list[int], kept: list[tuple[int, ...]]) -> Step | None:
    board = state.board
    found: list[tuple[int, int, int]] = []  # (cell, run, digit)
    for r, open_cells in enumerate(state.open):
        if len(open_cells) < 2:
            continue
        required = _in_every(kept[r])
        for digit in _bits(required):
            holders = [i for i in open_cells if marks[i] >> digit & 1]
            if len(holders) == 1:
                found.append((holders[0], r, digit))
    if not found:
        return None
    i, r, digit = min(found)
    why = (f"every combination {state.describe(r)} can still make "
           f"({_full_combos(state, kept, r)}) uses {digit}, and the pencil marks of its "
           f"other open cells rule {digit} out")
    return _step(board, i, digit, HIDDEN_SINGLE, why, (r,))


def _block_difference(state: _State, block: tuple, limit: int) -> tuple | None:
    """The open cells a block sum leaves, each with +1 (inside the base runs) or -1 (outside,
    in a subtracted run), and the runs subtracted; None when more than ``limit`` are left.

    Each crossing run is subtracted when fewer of its open cells lie outside the block than
    inside (the open cells left over are then as few as this block can leave).
    """
    values = state.values
    base, parts, lone = block
    left: list[tuple[int, int]] = [(i, 1) for i in lone if not values[i]]
    subtracted = []
    for other, ins, outs in parts:
        open_in = [i for i in ins if not values[i]]
        open_out = [i for i in outs if not values[i]]
        if len(open_out) < len(open_in) or (len(open_out) == len(open_in) and not open_in):
            subtracted.append(other)
            left.extend((i, -1) for i in open_out)
        else:
            left.extend((i, 1) for i in open_in)
        if len(left) > limit:
            return None
    return left, tuple(subtracted)


def _block_known(state: _State, base: tuple[int, ...], subtracted: tuple[int, ...]) -> int:
    """sum(base clues) - sum(subtracted clues), less the digits placed in the cells that differ:
    what the open cells left over make, counted with their signs."""
    board, values = state.board, state.values
    base_cells = {i for r in base for i in board.run_cells[r]}
    sub_cells = {i for r in subtracted for i in board.run_cells[r]}
    return (sum(board.run_total[r] for r in base) - sum(board.run_total[r] for r in subtracted)
            - sum(values[i] for i in base_cells - sub_cells) + sum(values[i] for i in sub_cells - base_cells))


def _block_text(board: _Board, plus: tuple[int, ...], minus: tuple[int, ...]) -> str:
    """``the across clues of rows 2 and 3 (16+23 = 39) minus the down clues of column 4 (17 = 17)``."""
    def clues(runs: tuple[int, ...]) -> str:
        direction = board.run_dir[runs[0]]
        axis, word = (0, "row") if direction == "across" else (1, "column")
        lines = sorted({board.cells[board.run_cells[r][0]][axis] + 1 for r in runs})
        totals = [board.run_total[r] for r in runs]
        return (f"the {direction} clues of {word}{'s' if len(lines) > 1 else ''} {_numbers(lines)} "
                f"({'+'.join(map(str, totals))} = {sum(totals)})")
    if not minus:
        return clues(plus)
    return f"{clues(plus)} minus {clues(minus)}"


def _block_sum(state: _State) -> Step | None:
    board = state.board
    for block in board.blocks():
        found = _block_difference(state, block, 1)
        if found is None or len(found[0]) != 1:
            continue
        (target, sign), subtracted = found[0][0], found[1]
        base = block[0]
        if len(base) == 1 and not subtracted:
            continue  # one run alone: the last cell, already tried
        digit = sign * _block_known(state, base, subtracted)
        if not 1 <= digit <= 9 or not state.allowed(target) >> digit & 1:
            raise _Contradiction(f"the clues around {_where(board.cells[target])} leave {digit} there")
        placed = ", once the digits already placed are taken off" if any(
            state.values[i] for r in base + subtracted for i in board.run_cells[r]) else ""
        # The cell is inside the base runs (+) or sticks out of the subtracted ones (-).
        plus, minus = (base, subtracted) if sign > 0 else (subtracted, base)
        why = f"{_block_text(board, plus, minus)} leaves this cell{placed}"
        return _step(board, target, digit, BLOCK_SUM, why, base + subtracted)
    return None


def _signed_options(marks: list[int], left: list[tuple[int, int]], known: int) -> list[int]:
    """For each signed open cell, its marks that some choice of the others' marks completes to
    ``known`` (sum of sign * digit)."""
    out = [0] * len(left)
    digits = [_bits(marks[i]) for i, _ in left]

    def walk(k: int, total: int, chosen: list[int]) -> None:
        if k == len(left):
            if total == known:
                for j, d in enumerate(chosen):
                    out[j] |= 1 << d
            return
        sign = left[k][1]
        for d in digits[k]:
            chosen.append(d)
            walk(k + 1, total + sign * d, chosen)
            chosen.pop()

    walk(0, 0, [])
    return out


def _block_marks(state: _State, marks: list[int], kept: list[tuple[int, ...]]) -> Step | None:
    """Block sums that leave two or three open cells: the pencil marks that cannot make the
    block's difference are struck, arrangements narrow the marks again, until a cell has one."""
    board = state.board
    used_blocks: list[tuple] = []
    changed = True
    while changed:
        changed = False
        for block in board.blocks():
            found = _block_difference(state, block, 3)
            if found is None or len(found[0]) < 2:
                continue
            left, subtracted = found
            known = _block_known(state, block[0], subtracted)
            options = _signed_options(marks, left, known)
            for (i, _), m in zip(left, options):
                if m != marks[i]:
                    if not m:
                        raise _Contradiction(f"the clues around {_where(board.cells[i])} leave it no digit")
                    marks[i] = m
                    changed = True
                    used_blocks.append((block[0], subtracted, left, known))
            if changed:
                break
        if changed:
            marks, kept = _pencil_marks(state, arrange=True, marks=marks)
            for i, value in enumerate(state.values):
                if not value and _single(marks[i]):
                    # Name the latest block that narrowed a cell of this cell's runs (else the latest).
                    near = {j for r in board.runs_of(i) for j in board.run_cells[r]}
                    base, subtracted, left, known = next(
                        (b for b in reversed(used_blocks) if near & {j for j, _ in b[2]}), used_blocks[-1])
                    if all(sign < 0 for _, sign in left):
                        left, known, base, subtracted = [(j, 1) for j, _ in left], -known, subtracted, base
                    plus = " and ".join(_where(board.cells[j]) for j, sign in left if sign > 0)
                    minus = " and ".join(_where(board.cells[j]) for j, sign in left if sign < 0)
                    cells_text = f"{plus} less {minus}" if minus else plus
                    placed = ", once the digits already placed are taken off," if any(
                        state.values[j] for r in base + subtracted for j in board.run_cells[r]) else ""
                    why = (f"with pencil marks narrowed by arrangements and by block sums, only "
                           f"{_single(marks[i])} is left here ({_block_text(board, base, subtracted)}"
                           f"{placed} leaves {cells_text} to make {known})")
                    return _step(board, i, _single(marks[i]), BLOCK_SUM, why,
                                 base + subtracted + board.runs_of(i))
    return None


def _search_step(puzzle: Puzzle, board: _Board, state: _State, marks: list[int]) -> Step | None:
    """A cell every other candidate of which has no solution: the exact solver's proof."""
    placed = {board.cells[i]: v for i, v in enumerate(state.values) if v}
    here = puzzle.with_givens(placed)
    solution = solve_puzzle(here)
    if solution.status == "none":
        raise _Contradiction("the digits placed leave the puzzle no solution")
    if not solution.solved:
        return None
    log.debug("no technique applies; searching with %d cells placed", len(placed))
    differing = set(solution.differing)
    order = sorted((i for i, v in enumerate(state.values) if not v),
                   key=lambda i: (marks[i].bit_count(), board.cells[i]))
    for i in order:
        cell = board.cells[i]
        if cell in differing:
            continue
        digit = solution.values[cell]
        others = marks[i] & ~(1 << digit)
        if solution.status != "unique":
            # Prove the others wrong one by one: the solver stops at the first solution.
            if any(solve_puzzle(here.with_givens({**placed, cell: d}), check_unique=False).status != "none"
                   for d in _bits(others)):
                continue
        why = ("no technique finds a next cell here; trying "
               + (f"{_digit_list(others)} instead leads to a contradiction" if others else
                  "every other digit leads to a contradiction"))
        return _step(board, i, digit, SEARCH, why, ())
    return None


def _find_step(puzzle: Puzzle, board: _Board, values: list[int], force: bool) -> Step | None:
    state = _State(board, values)
    for technique in (_last_cell, _one_combination, _crossing, _common_digits):
        step = technique(state)
        if step is not None:
            return step
    marks, kept = _pencil_marks(state, arrange=False)
    step = (_marks_single(state, marks, kept, PENCIL_MARKS,
                          "with every cell pencil-marked and each run narrowed to the combinations its "
                          "cells can still make")
            or _hidden_single(state, marks, kept))
    if step is not None:
        return step
    marks, kept = _pencil_marks(state, arrange=True)
    step = _marks_single(state, marks, kept, ARRANGEMENTS,
                         "with every cell pencil-marked and each run narrowed to the ways its "
                         "combinations can be arranged over its cells")
    if step is not None:
        return step
    step = _block_sum(state) or _block_marks(state, marks, kept)
    if step is not None or not force:
        return step
    return _search_step(puzzle, board, state, marks)


def _start(puzzle: Puzzle, filled: Mapping[Cell, int] | None) -> tuple[_Board, list[int]]:
    board = _board(puzzle)
    values = [0] * len(board.cells)
    entries = list(puzzle.givens) + list((filled or {}).items())
    for cell, digit in entries:
        if cell not in board.index:
            raise ValueError(f"filled: {_where(cell)} is not a white cell")
        if not isinstance(digit, int) or not 1 <= digit <= 9:
            raise ValueError(f"filled: {_where(cell)} holds {digit!r}, not a digit 1-9")
        if puzzle.given_at.get(cell, digit) != digit:
            raise ValueError(f"filled: {_where(cell)} is given as {puzzle.given_at[cell]}, not {digit}")
        values[board.index[cell]] = digit
    return board, values


def next_step(puzzle: Puzzle, filled: Mapping[Cell, int] | None = None, *, force: bool = False) -> Step | None:
    """The next digit a person could place, by the simplest technique that finds one.

    Parameters
    ----------
    puzzle : Puzzle
        A valid puzzle; its givens count as placed.
    filled : mapping of (row, col) to int, optional
        Digits already entered (0-based cells), on top of the givens.
    force : bool
        When no technique applies, give a cell proved by search (technique ``search``).

    Returns
    -------
    Step or None
        None when every white cell is filled, or no technique (and, with ``force``, no search)
        proves a digit.

    Raises
    ------
    ValueError
        ``filled`` names a cell that is not white or a value that is not a digit, or the digits
        placed break a run or leave the puzzle without a solution (the message names where).
    """
    board, values = _start(puzzle, filled)
    if all(values):
        return None
    try:
        return _find_step(puzzle, board, values, force)
    except _Contradiction as exc:
        raise ValueError(f"{'filled' if filled else 'puzzle'}: {exc}") from None


def _grade_name(techniques: Mapping[str, int]) -> str:
    used = set(techniques)
    if SEARCH in used:
        return "expert"
    if used & {ARRANGEMENTS, BLOCK_SUM}:
        return "hard"
    if used & {COMMON_DIGITS, PENCIL_MARKS, HIDDEN_SINGLE}:
        return "medium"
    return "easy"


def grade(puzzle: Puzzle) -> Grade:
    """Solve ``puzzle`` by the techniques, simplest first, and grade it (see the module docstring).

    Raises
    ------
    ValueError
        The puzzle has no solution, or more than one (a grade needs every digit forced).
    """
    board, values = _start(puzzle, None)
    counts = {t: 0 for t in TECHNIQUES}
    try:
        while not all(values):
            step = _find_step(puzzle, board, values, force=True)
            if step is None:
                raise ValueError("puzzle: no cell is forced (more than one solution, or the solver "
                                 "ran out of time); a grade needs one solution")
            counts[step.technique] += 1
            values[board.index[(step.row, step.col)]] = step.digit
        _State(board, values)  # the finished grid obeys every run
    except _Contradiction as exc:
        raise ValueError(f"puzzle: no solution ({exc})") from None
    used = {t: n for t, n in counts.items() if n}
    return Grade(_grade_name(used), _score(used), used, SEARCH in used)


def _score(techniques: Mapping[str, int]) -> float:
    """The hardest technique's difficulty, plus ``work / (work + _WORK_HALF)`` (under 1), where
    work sums the difficulty of every step but the last-cell fill-ins."""
    hardest = max((DIFFICULTY[t] for t in techniques), default=0)
    work = sum(DIFFICULTY[t] * n for t, n in techniques.items() if t != LAST_CELL)
    return round(hardest + work / (work + _WORK_HALF), 3)
