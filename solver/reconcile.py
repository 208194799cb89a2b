"""Choose a clue reading the puzzle's own rules agree with.

OCR hands over, for every clue a grid's layout requires, a short list of (value, probability)
alternatives. The printed puzzle obeys rules that a misread usually breaks: every clue fits its
run length, across clues and down clues add up to the same total, and the puzzle has exactly one
solution. This module picks the reading that satisfies them and says whether any change to the
reader's first choice was *forced* (the only candidate that works) or a guess (several work), so
that a guess is never presented as solved.
"""
from __future__ import annotations

import logging
import math
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Literal

from . import cpsat
from .combos import allowed_digits_mask, sum_range
from .model import Cell, Clue, Direction, Puzzle, SideKey, SideReading, Solution, run_cells
from .solve import solve_puzzle

__all__ = ["SideReading", "Correction", "Reconciled", "reconcile_reading", "sides_text"]

log = logging.getLogger(__name__)


#: A side read with at least this probability is trusted; the search never changes it.
TRUSTED = 0.97
#: Readings with several solutions examined before the search gives up (a plateau of equally
#: likely readings means the clues do not pin the reading down).
MAX_READINGS = 12
#: Budget for the whole search; past it no correction can be called forced. It is counted in
#: CP-SAT's deterministic time (2-3 s each on one idle core here, with the implied constraints
#: below), not in seconds, so a photo gives the same answer on a busy or slow machine as on an
#: idle one.
SEARCH_BUDGET = 3.0
#: A machine this many times slower than the budget assumes is stopped by the clock all the same.
_WALL_CAP = 5.0
#: A correction to a value the readers found this much less likely than their first choice
#: (odds) is never called forced: the reading it rests on is more likely a misread elsewhere
#: whose true value the readers did not offer at all.
MAX_CORRECTION_ODDS = 30.0
#: All corrections together may make the reading at most this much less likely (odds). Many small
#: doubts that add up mean the cells themselves were probably misread (a clue cell taken for a
#: white one changes the runs, and enough corrections then fit any layout).
MAX_TOTAL_CORRECTION_ODDS = 100.0
#: More corrections than this and the reading is not called solved, however likely: each is sure
#: only among the values the readers offered, and the more clues were misread, the likelier one
#: of them is a misread whose truth was never offered. Measured (bench/accuracy.py, seed 2, 60 per
#: tier): right solves needed 0-3 corrections but for 3 of 290 (4 each); a variant reader once
#: solved two page puzzles wrongly with 4 and 5 cheap corrections (odds 1:2 and 1:3).
MAX_CORRECTIONS = 3
#: A clue the readers' first choice names with less confidence than this, kept as read, is a
#: guess: with the corrections at their limit it counts as one more (see ``_accept``).
WEAK_READ = 0.2
#: How much less likely (natural log of the odds) a rival reading may be and still count: 1 in 20.
RIVAL_ODDS = math.log(20)
#: More clues than this share left illegible, and the search is not tried.
MAX_UNREAD_SHARE = 0.25
#: Costs are -log(probability) in these units, as integers for CP-SAT.
_COST_SCALE = 1000


@dataclass(frozen=True)
class Correction:
    cell: Cell
    direction: Direction
    read: int | None
    used: int
    forced: bool
    #: What set the number used: "rules" (the puzzle's own), or "answer-key" (the page's answer
    #: key, see pipeline._settled_by_answer_key).
    source: str = "rules"

    def describe(self) -> str:
        r, c = self.cell
        seen = "nothing legible" if self.read is None else str(self.read)
        how = ("set by the page's answer key" if self.source == "answer-key"
               else "forced by the puzzle's rules" if self.forced else "a guess")
        return f"row {r + 1}, column {c + 1}, {self.direction}: read {seen}, used {self.used} ({how})"


@dataclass(frozen=True)
class Reconciled:
    """The chosen reading.

    status: ``solved`` (unique solution, every change forced), ``ambiguous`` (the reading has
    several solutions), ``unsolvable`` (no reading within the alternatives has a solution), or
    ``unreadable`` (some clue could not be settled: ``problems`` names it).
    """

    status: Literal["solved", "ambiguous", "unsolvable", "unreadable"]
    puzzle: Puzzle
    solution: Solution | None
    corrections: tuple[Correction, ...] = ()
    problems: tuple[str, ...] = ()
    suspect_runs: tuple[tuple[Cell, Direction], ...] = field(default=())


def _build(n_rows, n_cols, whites, clue_cells, givens, values: dict[tuple[Cell, Direction], int]) -> Puzzle:
    clues = []
    for cell in clue_cells:
        clues.append(Clue(cell[0], cell[1], down=values.get((cell, "down")), across=values.get((cell, "across"))))
    return Puzzle(n_rows, n_cols, whites, tuple(clues), tuple(givens.items()))


def sides_text(keys, most: int = 6) -> str:
    """The first ``most`` of ``keys`` as a user reads them, comma-separated."""
    return ", ".join(_describe_side(k) for k in list(keys)[:most])


def _describe_side(key: tuple[Cell, Direction]) -> str:
    (r, c), direction = key
    return f"row {r + 1}, column {c + 1} ({direction})"


class _ReadingSearch:
    """Clue values and digits in one CP-SAT model.

    A reading is one option per side; it is possible when some digit fill satisfies every run
    with those totals. The objective is the readers' own cost of the reading (-log probability
    relative to each side's first choice), so the first feasible answer is the likeliest reading
    that the rules allow, however many clues it changes. Readings already examined are cut off,
    so repeated calls walk down the list of likely readings.
    """

    def __init__(self, whites, givens, runs, options, costs, fixed, work: float):
        cp_model = cpsat.cp_model()  # loaded here: most puzzle files never need it

        self._cp = cp_model
        self.work_left = work
        self._model = model = cp_model.CpModel()
        digit = {cell: (model.NewConstant(givens[cell]) if cell in givens else model.NewIntVar(1, 9, ""))
                 for cell in sorted(whites)}
        self._choices: dict[tuple[Cell, Direction], list[tuple[int, object]]] = {}
        self._fixed = fixed
        terms = []
        totals: dict[Direction, list] = {"across": [], "down": []}
        in_runs: dict[Direction, set[Cell]] = {"across": set(), "down": set()}
        for key, cells in runs.items():
            if key in fixed:
                total = fixed[key]
            else:
                choice = [(v, model.NewBoolVar("")) for v, _ in options[key]]
                model.AddExactlyOne(b for _, b in choice)
                self._choices[key] = choice
                total = sum(v * b for v, b in choice)
                terms.extend(costs[key][v] * b for v, b in choice if costs[key][v])
                # The digits each value's combinations use (a 4 in two cells is 1 and 3): implied
                # by the sum and all-different, but CP-SAT does not see it until digits are placed,
                # and the search then wanders through readings whose runs cannot be filled.
                for v, b in choice:
                    allowed = allowed_digits_mask(v, len(cells))
                    for d in range(1, 10):
                        if not allowed >> d & 1:
                            for c in cells:
                                if c not in givens:
                                    model.Add(digit[c] != d).OnlyEnforceIf(b)
            if len(cells) > 1:
                model.AddAllDifferent([digit[c] for c in cells])
            model.Add(sum(digit[c] for c in cells) == total)
            totals[key[1]].append(total)
            in_runs[key[1]].update(cells)
        # Every white cell's digit counts once across and once down: the across totals and the
        # down totals balance (a cell outside every run of one direction counts on that side
        # alone). Implied too, but it rules out a reading on its clues alone.
        model.Add(sum(totals["across"]) + sum(digit[c] for c in digit if c not in in_runs["across"])
                  == sum(totals["down"]) + sum(digit[c] for c in digit if c not in in_runs["down"]))
        self._cost = sum(terms) if terms else None  # None: every reading costs the same
        if terms:
            model.Minimize(self._cost)

    def next(self, deadline: float) -> tuple[str, dict | None, int]:
        """The likeliest reading not yet excluded: (``found``, values, cost), or (``none`` | ``unknown``, None, 0).

        Each call spends from ``work_left`` (CP-SAT deterministic time); ``deadline`` is the
        wall-clock stop behind it.
        """
        left = deadline - time.perf_counter()
        if left <= 0 or self.work_left <= 0:
            return "unknown", None, 0
        solver = self._cp.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = 0
        # No LP relaxation: it slows each step down about twice on these small-domain sums
        # (times2046: 6 readings in 3 s with it, 12 without).
        solver.parameters.linearization_level = 0
        solver.parameters.max_time_in_seconds = left
        solver.parameters.max_deterministic_time = self.work_left
        status = solver.Solve(self._model)
        self.work_left -= solver.deterministic_time
        if status == self._cp.INFEASIBLE:
            return "none", None, 0
        if status != self._cp.OPTIMAL:
            return "unknown", None, 0
        values = dict(self._fixed)
        for key, choice in self._choices.items():
            values[key] = next(v for v, b in choice if solver.BooleanValue(b))
        return "found", values, 0 if self._cost is None else int(round(solver.ObjectiveValue()))

    def exclude(self, values: dict) -> bool:
        """Cut ``values`` off; False when nothing is open to change (it was the only reading)."""
        chosen = [b for key, choice in self._choices.items() for v, b in choice if v == values[key]]
        if not chosen:
            return False
        self._model.AddBoolOr([b.Not() for b in chosen])
        return True

    def bound(self, max_cost: int, min_cost: int = 0) -> None:
        """From now on only readings that cost at most ``max_cost`` (and at least ``min_cost``)."""
        if self._cost is not None:
            self._model.Add(self._cost <= max_cost)
            if min_cost:
                self._model.Add(self._cost >= min_cost)

    def forbid(self, key: SideKey, value: int) -> None:
        """From now on no reading with ``value`` at side ``key``."""
        for v, b in self._choices.get(key, ()):
            if v == value:
                self._model.Add(b == 0)


def reconcile_reading(
    n_rows: int,
    n_cols: int,
    whites: frozenset[Cell],
    clue_cells: tuple[Cell, ...],
    sides: tuple[SideReading, ...],
    givens: dict[Cell, int] | None = None,
    *,
    time_limit_s: float = 5.0,
    resemble: Callable[[SideKey, SideKey], float | None] | None = None,
    resemble_digits: Callable[[SideKey, int, int, SideKey, int, int], float | None] | None = None,
    look_past_options: bool = True,
) -> Reconciled:
    """Pick the clue values that make the puzzle valid and uniquely solvable.

    The likeliest reading (by the readers' probabilities) that has exactly one solution is taken.
    It is called solved only if no other reading nearly as likely (``RIVAL_ODDS``) also has exactly
    one solution: a correction the rules do not force is reported as a question, not an answer.

    Parameters
    ----------
    n_rows, n_cols : int
        Grid shape.
    whites : frozenset of (row, col)
        White cells.
    clue_cells : tuple of (row, col)
        Every non-white cell that starts a run (the layout says which sides need a number).
    sides : tuple of SideReading
        One per run the layout requires.
    givens : dict, optional
        Digits printed in white cells.
    time_limit_s : float
        Budget for the whole search (capped at ``SEARCH_BUDGET``), in CP-SAT's deterministic
        time, which tracks seconds on one idle core; the clock stops it at ``_WALL_CAP`` times that.
    resemble : callable, optional
        ``resemble(side_a, side_b)``: how alike (0..1) the two sides' printed numbers look, or
        None where they cannot be compared (then that pair says nothing). Two
        numbers in one puzzle's font that look the same are the same number; when a rival
        reading differs only where the readers' first choice looks like clues the readings agree
        on and unlike the rival's, the first choice is confirmed (see ``_appearance_settles``).
    resemble_digits : callable, optional
        ``resemble_digits(side_a, n_a, i_a, side_b, n_b, i_b)``: the same for digit ``i_a`` of
        side A's number read as ``n_a`` digits and digit ``i_b`` of side B's; used where no clue
        elsewhere has the whole disputed value (a "3" is compared with the "3" of a "13").
    look_past_options : bool
        Before corrections are called forced, look for a misread beyond the readers' options that
        would do as well (:func:`_unoffered_rival`). False only for a first, short look whose
        corrections the caller checks again in any case.
    """
    givens = dict(givens or {})
    runs = {(s.cell, s.direction): run_cells(whites, s.cell, s.direction) for s in sides}
    options, raw_first, unread, problems, lost = _side_options(sides, {k: len(cells) for k, cells in runs.items()})
    first = {k: v[0][0] for k, v in options.items() if v}
    if problems:
        return Reconciled("unreadable", _build(n_rows, n_cols, whites, clue_cells, givens, first), None,
                          problems=tuple(problems))
    if len(unread) > max(2, MAX_UNREAD_SHARE * len(sides)):
        # Guessing that many clues from the rules alone is no reading at all.
        return Reconciled("unreadable", _build(n_rows, n_cols, whites, clue_cells, givens, first), None,
                          problems=(f"{len(unread)} of {len(sides)} clues could not be read (is the photo sharp "
                                    "and close enough?): " + sides_text(sorted(unread), 8)
                                    + (", ..." if len(unread) > 8 else ""),),
                          suspect_runs=tuple(sorted(unread)))
    confidence = {(s.cell, s.direction): s.sureness for s in sides if s.options}
    trusted = {k: first[k] for k in options
               if k not in unread and confidence[k] >= TRUSTED and raw_first[k] == first[k]}
    budget = min(time_limit_s, SEARCH_BUDGET)
    ctx = _Context(n_rows, n_cols, whites, clue_cells, givens, raw_first, _costs(options, unread),
                   tuple(sorted((k for k in options if k not in trusted), key=lambda k: confidence.get(k, 0.0))),
                   time.perf_counter() + _WALL_CAP * budget, resemble, resemble_digits,
                   weak=frozenset(k for k in options if k not in unread and confidence.get(k, 0.0) < WEAK_READ),
                   lost=lost, sureness=confidence, runs=runs, look_past_options=look_past_options)

    if not unread and _cannot_have_rival(first, ctx.costs, trusted):
        # The usual case, settled without the search: the readers' first choices have exactly one
        # solution, and no reading within the rival odds can balance the totals.
        solution = ctx.check(first)
        if solution.status == "unique":
            return ctx.reconciled("solved", first, solution, forced=True)

    search = _ReadingSearch(whites, givens, runs, options, ctx.costs, trusted, budget)
    best, several, settled = _walk_readings(ctx, search, first, unread)
    as_read = bool(several) and not unread and several[0][0] == first
    if as_read and (best is None or best[1] > RIVAL_ODDS * _COST_SCALE):
        # The reading the readers were sure of is a valid puzzle with several solutions; a less
        # likely reading with one solution is no reason to doubt them.
        values, _, solution = several[0]
        return ctx.reconciled("ambiguous", values, solution, problems=("the clues as read allow more than one "
                                                                       "solution",), suspects=ctx.suspects)
    if best is None:
        return _nothing_settles(ctx, first, settled, bool(several))
    values, cost, solution = best
    rival = _rival(ctx, search, values, cost)
    if isinstance(rival, dict) and resemble is not None \
            and _appearance_settles(values, rival, raw_first, resemble, resemble_digits):
        log.info("rival reading set aside: the disputed numbers look like others read the same way")
        rival = False
    return _accept(ctx, values, cost, solution, rival, first)


def _side_options(sides: tuple[SideReading, ...], lengths: dict[SideKey, int]
                  ) -> tuple[dict[SideKey, list[tuple[int, float]]], dict[SideKey, int | None], set[SideKey], list[str],
                             dict[SideKey, frozenset[int]]]:
    """Per side: the options its run length allows, best first; the reader's raw first choice;
    the sides where nothing usable was read; runs too long to be a Kakuro run; and, where the
    first choice is a value the run cannot hold, the options the readers hardly offered (under
    ``WEAK_READ``): guesses at what was lost (a "24" read as "2")."""
    options: dict[SideKey, list[tuple[int, float]]] = {}
    raw_first: dict[SideKey, int | None] = {}
    unread: set[SideKey] = set()
    problems: list[str] = []
    lost: dict[SideKey, frozenset[int]] = {}
    for s in sides:
        key = (s.cell, s.direction)
        lo, hi = _run_range(lengths[key])
        raw_first[key] = s.options[0][0] if s.options else None
        feasible = [(v, p) for v, p in s.options if lo <= v <= hi]
        if s.options and not lo <= s.options[0][0] <= hi:
            lost[key] = frozenset(v for v, p in feasible if p < WEAK_READ)
        if not feasible:
            # Nothing usable was read: every value the run allows is a candidate, none preferred.
            span = max(hi - lo + 1, 1)
            feasible = [(v, 0.5 / span) for v in range(lo, hi + 1)]
            unread.add(key)
        options[key] = feasible
        if lengths[key] > 9:
            problems.append(f"{_describe_side(key)}: run of {lengths[key]} cells is longer than 9")
    return options, raw_first, unread, problems, lost


def _costs(options: dict[SideKey, list[tuple[int, float]]], unread: set[SideKey]) -> dict[SideKey, dict[int, int]]:
    """Cost of a value: how much less likely the readers found it than their likeliest, in log odds
    (scaled to integers for CP-SAT); nothing for a side where nothing was read."""
    return {k: {v: 0 if k in unread else
                round(_COST_SCALE * (math.log(max(max(p for _, p in options[k]), 1e-9)) - math.log(max(p, 1e-9))))
                for v, p in options[k]} for k in options}


@dataclass
class _Context:
    """What every step of one reconciliation shares: the grid, the reader's first choices and
    costs, the sides least sure first, the clock, and the puzzles already solved."""

    n_rows: int
    n_cols: int
    whites: frozenset[Cell]
    clue_cells: tuple[Cell, ...]
    givens: dict[Cell, int]
    raw_first: dict[SideKey, int | None]
    costs: dict[SideKey, dict[int, int]]
    suspects: tuple[SideKey, ...]
    deadline: float
    resemble: Callable[[SideKey, SideKey], float | None] | None = None
    resemble_digits: Callable[[SideKey, int, int, SideKey, int, int], float | None] | None = None
    checked: dict[tuple, Solution] = field(default_factory=dict)
    #: Sides read, but with less confidence than ``WEAK_READ``.
    weak: frozenset[SideKey] = frozenset()
    #: Sides whose first choice the run cannot hold, and the values offered for them that are
    #: guesses at a lost digit (see ``_side_options``).
    lost: dict[SideKey, frozenset[int]] = field(default_factory=dict)
    #: How sure the readers were of each side's first choice (sides read at all).
    sureness: dict[SideKey, float] = field(default_factory=dict)
    #: The runs, each side's cells.
    runs: dict[SideKey, tuple[Cell, ...]] = field(default_factory=dict)
    #: Whether corrections are checked against misreads beyond the readers' options.
    look_past_options: bool = True

    def prints_as(self, k: SideKey, shown: int, other: int, anchors: list[SideKey], values: dict) -> bool:
        """Whether side ``k``'s print looks like the anchors (besides ``k``) of value ``shown``
        and not like those of ``other`` (:func:`_looks_like`); False with nothing to compare."""
        return self.resemble is not None and _looks_like(k, shown, other, [j for j in anchors if j != k], values,
                                                         self.resemble, self.resemble_digits)

    def build(self, values: dict) -> Puzzle:
        return _build(self.n_rows, self.n_cols, self.whites, self.clue_cells, self.givens, values)

    def check(self, values: dict) -> Solution:
        # The search's first reading is often the one the fast path already solved.
        key = tuple(sorted(values.items()))
        if key not in self.checked:
            self.checked[key] = solve_puzzle(self.build(values),
                                             time_limit_s=max(self.deadline - time.perf_counter(), 0.05))
        return self.checked[key]

    def reconciled(self, status: str, values: dict, solution: Solution | None, *, forced: bool = False,
                   problems: tuple[str, ...] = (), suspects: tuple[SideKey, ...] | list = ()) -> Reconciled:
        """``values`` as a result: a solution only where solved, corrections against the raw reads."""
        corrections = tuple(Correction(k[0], k[1], self.raw_first[k], v, forced)
                            for k, v in sorted(values.items()) if self.raw_first[k] != v)
        return Reconciled(status, self.build(values), solution, corrections=corrections, problems=problems,
                          suspect_runs=tuple(suspects))


def _walk_readings(ctx: _Context, search: _ReadingSearch, first: dict, unread: set
                   ) -> tuple[tuple[dict, int, Solution] | None, list[tuple[dict, int, Solution]], bool]:
    """Down the likely readings the rules allow, to the first with exactly one solution.

    Returns that reading (values, cost, solution) or None, the readings passed on the way that have
    several solutions, and whether the walk ended for a reason (False: out of time or steps).
    """
    several: list[tuple[dict, int, Solution]] = []
    # The readers' first choice costs nothing, so when it is a valid puzzle it is where the search
    # would start; solved directly, it spares CP-SAT finding it (seconds on a big grid whose many
    # unsure clues leave it much to explore).
    as_read_valid = not unread and ctx.check(first).status in ("unique", "multiple")
    for step in range(MAX_READINGS):
        if step == 0 and as_read_valid:
            status, values, cost = "found", first, 0
        else:
            status, values, cost = search.next(ctx.deadline)
        if status == "none":
            return None, several, True
        if status == "unknown":
            return None, several, False
        solution = ctx.check(values)
        if solution.status == "unique":
            return (values, cost, solution), several, True
        if solution.status != "multiple":
            return None, several, False
        several.append((values, cost, solution))
        if not search.exclude(values):
            return None, several, True
        if len(several) == 1 and values == first and not unread:
            # As read, the puzzle has several solutions; only a reading nearly as likely with one
            # solution could say the readers erred (see below), so look no further than that.
            search.bound(round(RIVAL_ODDS * _COST_SCALE))
    return None, several, False


def _nothing_settles(ctx: _Context, first: dict, settled: bool, several: bool) -> Reconciled:
    """No reading has exactly one solution: unreadable when the walk was cut short, else unsolvable,
    with what the reading as seen already shows."""
    across = sum(v for (_, d), v in first.items() if d == "across")
    down = sum(v for (_, d), v in first.items() if d == "down")
    if not settled:
        # Totals that differ mean a clue is wrong, as printed or as read.
        totals = f"as read, the across clues total {across} but the down clues {down}; " if across != down else ""
        # Cut short with readings tried: say what they showed, not only that the search stopped.
        why = ("the likeliest readings of the clues each leave the puzzle several solutions" if several
               else "the clues could not be settled in time")
        return ctx.reconciled("unreadable", first, None, suspects=ctx.suspects,
                              problems=(totals + why + "; check the least certain ones: " + sides_text(ctx.suspects),))
    if across != down:
        reason = f"across clues total {across} but down clues total {down}, so the clues contradict each other"
    elif several:
        reason = "no reading of the clues has exactly one solution"
    else:
        reason = "no solution satisfies every clue as read"
    if ctx.suspects:
        reason += "; least certain: " + sides_text(ctx.suspects)
    return ctx.reconciled("unsolvable", first, None, problems=(reason,), suspects=ctx.suspects)


def _rival(ctx: _Context, search: _ReadingSearch, values: dict, cost: int) -> dict | bool | None:
    """Another reading within ``RIVAL_ODDS`` of ``values`` that also has exactly one solution; False:
    there is none; None: the search could not tell in time."""
    if not search.exclude(values):
        return False
    search.bound(cost + round(RIVAL_ODDS * _COST_SCALE))
    for _ in range(MAX_READINGS):
        status, other, _ = search.next(ctx.deadline)
        if status == "none":
            return False
        if status == "unknown":
            return None
        other_solution = ctx.check(other)
        if other_solution.status == "unique":
            return other
        if other_solution.status != "multiple" or not search.exclude(other):
            return None
    return None


def _accept(ctx: _Context, values: dict, cost: int, solution: Solution, rival: dict | bool | None,
            first: dict) -> Reconciled:
    """The likeliest reading with one solution, solved only if no rival stands and its corrections
    are few and plausible enough; otherwise unreadable, naming the clues to check.

    A correction whose number looks like others printed as the corrected value and unlike those
    printed as it was read (:func:`_looks_like`) is confirmed by the print itself: it counts
    against neither limit. Blur turns one digit of a font into another the same way wherever
    it is printed, so misreads come in kind, and the grid's own clean prints tell them apart.
    """
    changed = [k for k in values if values[k] != ctx.raw_first[k]]
    limit = math.log(MAX_CORRECTION_ODDS) * _COST_SCALE
    confirmed = set()
    if rival is False and ctx.resemble is not None and (
            len(changed) > MAX_CORRECTIONS or cost > math.log(MAX_TOTAL_CORRECTION_ODDS) * _COST_SCALE
            or any(ctx.costs[k][values[k]] > limit for k in changed)):
        anchors = [j for j in values if j not in changed]
        confirmed = {k for k in changed if ctx.raw_first[k] is not None
                     and ctx.prints_as(k, values[k], ctx.raw_first[k], anchors, values)}
        confirmed |= _misread_in_kind(ctx, values, [k for k in changed if k not in confirmed], anchors)
        if confirmed:
            log.info("%d of %d corrections confirmed by the print", len(confirmed), len(changed))
    unconfirmed = [k for k in changed if k not in confirmed]
    if rival is False and ctx.resemble is not None:
        contradicted = _print_contradicts(ctx, values, unconfirmed)
        if contradicted:
            where = ", ".join(f"{_describe_side(k)} looks like the {ctx.raw_first[k]} printed elsewhere, not "
                              f"{values[k]}" for k in contradicted)
            others = [k for k in ctx.suspects if k not in contradicted]
            return ctx.reconciled("unreadable", values, None, suspects=contradicted + others,
                                  problems=(f"the clues fit only with corrections the print contradicts ({where}): "
                                            "another clue is probably misread; check the least certain ones: "
                                            + sides_text(ctx.suspects),))
    implausible = [k for k in unconfirmed if ctx.costs[k][values[k]] > limit]
    if rival is False and implausible:
        where = ", ".join(f"{_describe_side(k)} read {ctx.raw_first[k]}, only {values[k]} fits" for k in implausible)
        return ctx.reconciled("unreadable", values, None, suspects=implausible,
                              problems=(f"the clues fit only with unlikely corrections ({where}); check these clues",))
    log.debug("reading accepted at odds 1:%.3g with %d change(s)", math.exp(cost / _COST_SCALE), len(changed))
    cost_left = cost - sum(ctx.costs[k][values[k]] for k in confirmed)
    if rival is False and cost_left > math.log(MAX_TOTAL_CORRECTION_ODDS) * _COST_SCALE:
        return ctx.reconciled("unreadable", values, None, suspects=unconfirmed,
                              problems=(f"the clues fit only after {len(unconfirmed)} corrections that together are "
                                        f"unlikely (1 in {math.exp(cost_left / _COST_SCALE):.0f}); check the cells "
                                        "and these clues: " + sides_text(unconfirmed),))
    if rival is False and len(unconfirmed) > MAX_CORRECTIONS:
        return ctx.reconciled("unreadable", values, None, suspects=unconfirmed,
                              problems=(f"the clues fit only after {len(unconfirmed)} corrections, too many to "
                                        "trust; check the cells and these clues: "
                                        + sides_text(unconfirmed),))
    # Clues kept as read that the readers could hardly make out are guesses the corrections were
    # fitted around: with as many corrections as may be trusted, one more tips it (a blurred grid
    # of small numbers in discs: three corrections and a "38" read at 1 in 20 left one solution,
    # wrong). Fewer corrections with several guesses still solve blurred disc grids rightly.
    guesses = sorted(k for k in ctx.weak if k not in changed)
    if rival is False and guesses and len(unconfirmed) == MAX_CORRECTIONS:
        return ctx.reconciled("unreadable", values, None, suspects=unconfirmed + guesses,
                              problems=(f"the clues fit only after {len(unconfirmed)} corrections, with "
                                        f"{len(guesses)} more read too faintly to trust; check the cells and these "
                                        "clues: " + sides_text(unconfirmed + guesses),))
    # A clue read as a value its run cannot hold ("24" read as "2": a digit lost) changed to one
    # the readers hardly offered is a guess at the lost digit; where another clue, read as a
    # value that could be, had to change beside it, the two may balance the totals around a
    # wrong guess (a "24" taken for "22" and a clear "8" for "6" left one solution, wrong).
    guessed = [k for k in unconfirmed if values[k] in ctx.lost.get(k, ())]
    beside = [k for k in unconfirmed if k not in ctx.lost]
    if rival is False and guessed and beside:
        return ctx.reconciled("unreadable", values, None, suspects=guessed + beside,
                              problems=("the clues fit only with "
                                        + ", ".join(f"{_describe_side(k)} read {ctx.raw_first[k]}, which its run "
                                                    f"cannot hold, taken for {values[k]}" for k in guessed)
                                        + " and with " + sides_text(beside) + " changed too; check these clues",))
    alike, alike_sides = _printed_alike_rival(ctx, values, unconfirmed) if rival is False else (None, [])
    if alike is not None:
        return _two_readings(ctx, values, alike, "; the print does not tell these digits apart")
    if alike_sides and ctx.check({k: v for k, v in values.items() if k not in alike_sides}).status != "unique":
        # Printed as alike as equal digits, they may be any of the digits that print so: the
        # solution must not hang on them (a blurred app board whose "3", "6" and "8" all print
        # 0.97 alike: two "8"s corrected to "6", two more kept, truly "3"s: solved wrongly).
        return ctx.reconciled("unreadable", values, None, suspects=unconfirmed + alike_sides,
                              problems=(f"the clues fit only corrected ({sides_text(unconfirmed)}), and "
                                        f"{sides_text(alike_sides)}, kept as read, print a digit as alike as "
                                        "equal digits to one corrected: the print does not tell these digits "
                                        "apart, and the solution depends on them; check these clues",))
    unseen = _unoffered_rival(ctx, values, cost, unconfirmed) if rival is False and ctx.look_past_options else None
    if unseen is not None:
        suspects, problem = unseen
        return ctx.reconciled("unreadable", values, None, suspects=suspects, problems=(problem,))
    if rival is False:
        if values != first:
            log.info("clue reading corrected: %d change(s)", sum(values[k] != ctx.raw_first[k] for k in values))
        return ctx.reconciled("solved", values, solution, forced=True)
    if rival is None:
        return ctx.reconciled("unreadable", values, None, suspects=ctx.suspects,
                              problems=("the clues could not all be confirmed in time; check the least certain "
                                        "ones: " + sides_text(ctx.suspects),))
    return _two_readings(ctx, values, rival)


def _two_readings(ctx: _Context, values: dict, rival: dict, why: str = "") -> Reconciled:
    """Unreadable: ``values`` and ``rival`` each give the puzzle one solution; the clues they
    dispute are named with both values."""
    disputed = sorted(k for k in values if values[k] != rival[k])
    changes = ", ".join(f"{_describe_side(k)} {values[k]} or {rival[k]}" for k in disputed)
    return ctx.reconciled("unreadable", values, None, suspects=disputed,
                          problems=(f"two readings give a unique solution ({changes}){why}; check these clues",))


#: Likeness (0..1) a disputed number must reach with one printed the same elsewhere, and how many
#: times further (in unlikeness, 1 - likeness) it must stay from every one printed as the rival
#: reading has it. Measured on 30 rendered puzzles (bench clean and photo tiers): equal numbers
#: 0.99 alike (median; 0.95 at the 5th percentile), a "3" and an "8", a "6" and an "8", a "5"
#: and a "6" or a "1" and a "7" of one font 0.90-0.93 (median).
_SAME_LOOK = 0.95
_LOOK_RATIO = 3.0


def _appearance_settles(values: dict, rival: dict, raw_first: dict,
                        resemble: Callable[[SideKey, SideKey], float | None],
                        resemble_digits: Callable[[SideKey, int, int, SideKey, int, int], float | None] | None = None
                        ) -> bool:
    """Whether every side the two readings dispute looks like what ``values`` has there.

    For a disputed side (``a`` in ``values``, ``b`` in the rival), the anchors are undisputed
    sides the readers read first as what both readings use: the side must look like a printed
    ``a`` and not like a printed ``b`` among them (:func:`_looks_like`). Where the readers' first
    choice was neither, it must look unlike that too: the print then overrules the readers, and
    only where the grid shows each of the numbers in question.
    """
    disputed = [k for k in values if values[k] != rival.get(k)]
    anchors = [j for j in values if j not in disputed and values[j] == raw_first.get(j)]
    for k in disputed:
        if not _looks_like(k, values[k], rival[k], anchors, values, resemble, resemble_digits):
            return False
        if values[k] != raw_first.get(k) and (
                raw_first.get(k) is None
                or not _looks_like(k, values[k], raw_first[k], anchors, values, resemble, resemble_digits)):
            log.debug("%s: the readers' first choice was %s, not %s", _describe_side(k), raw_first.get(k), values[k])
            return False
    return bool(disputed)


def _looks_like(k: SideKey, a: int, b: int, anchors: list[SideKey], values: dict,
                resemble: Callable[[SideKey, SideKey], float | None],
                resemble_digits: Callable[[SideKey, int, int, SideKey, int, int], float | None] | None) -> bool:
    """Whether side ``k``'s printed number looks like the anchors of value ``a`` (``_SAME_LOOK``)
    and clearly more so than like every anchor of value ``b`` (``_LOOK_RATIO``).

    Without anchors of both values, each digit where ``a`` and ``b`` differ is compared in the
    same way with that digit wherever it is printed in an anchor (given ``resemble_digits``).
    Without anchors for both that can be compared, it is not: a bold "8" may look much like a
    "3" when no "8" is at hand.
    """

    def nearest(likeness: list[float | None]) -> float | None:
        known = [v for v in likeness if v is not None]
        return max(known) if known else None

    sa, sb = str(a), str(b)
    same = [j for j in anchors if values[j] == a]
    other = [j for j in anchors if values[j] == b]
    looks: list[tuple[float | None, float | None]] = []
    if same and other:
        looks = [(nearest([resemble(k, j) for j in same]), nearest([resemble(k, j) for j in other]))]
    if (not looks or None in looks[0]) and resemble_digits is not None and len(sa) == len(sb):
        looks = []
        places = [(j, q, str(values[j])) for j in anchors for q in range(len(str(values[j])))]
        for i in (i for i in range(len(sa)) if sa[i] != sb[i]):
            same_at = [(j, q, len(v)) for j, q, v in places if v[q] == sa[i]]
            other_at = [(j, q, len(v)) for j, q, v in places if v[q] == sb[i]]
            if not same_at or not other_at:
                looks = []
                break
            looks.append((nearest([resemble_digits(k, len(sa), i, j, n, q) for j, q, n in same_at]),
                          nearest([resemble_digits(k, len(sa), i, j, n, q) for j, q, n in other_at])))
    if not looks or any(None in look for look in looks):
        log.debug("%s: nothing printed as %s and as %s to compare with", _describe_side(k), sa, sb)
        return False
    for look_same, look_other in looks:
        log.debug("%s looks %.2f like a %s, %.2f like a %s", _describe_side(k), look_same, sa, look_other, sb)
        if look_same < _SAME_LOOK or look_other >= look_same \
                or 1.0 - look_other < _LOOK_RATIO * (1.0 - look_same):
            return False
    return True


def _misread_in_kind(ctx: _Context, values: dict, changed: list[SideKey], anchors: list[SideKey]) -> set[SideKey]:
    """Corrections that repeat one: ``_IN_KIND`` or more sides the rules set to one value, whose
    numbers all print alike (``_SAME_LOOK``) and more alike than any of them to a side kept as
    read with another value, are one number misread wherever it is printed (a font's "17" read
    "14", "1" and "11" in turn): all of them but one.

    Each of those values is set by runs of its own, apart from the others: where no clean print
    of that number is left to compare them with (:func:`_looks_like`), they confirm one another."""
    groups: dict[int, list[SideKey]] = {}
    for k in changed:
        groups.setdefault(values[k], []).append(k)
    confirmed: set[SideKey] = set()
    for value, group in groups.items():
        if len(group) < _IN_KIND:
            continue
        looks = [ctx.resemble(a, b) for i, a in enumerate(group) for b in group[i + 1:]]
        if any(look is None or look < _SAME_LOOK for look in looks):
            continue
        others = [ctx.resemble(a, j) for a in group for j in anchors if values[j] != value]
        if any(look is not None and look >= min(looks) for look in others):
            continue
        log.info("%d sides corrected to %d print alike: one number misread in kind", len(group), value)
        confirmed.update(sorted(group)[1:])
    return confirmed


#: Sides corrected to one value and printed alike that confirm one another (:func:`_misread_in_kind`).
_IN_KIND = 3


def _print_contradicts(ctx: _Context, values: dict, changed: list[SideKey]) -> list[SideKey]:
    """The corrected sides whose printed number looks like others printed as the readers read it
    and unlike those printed as corrected (:func:`_looks_like`, the other way round).

    One clue misread with confidence (its true value not among the readers' options) unbalances
    the totals; a second, doubtful clue corrected by the same amount balances them again and can
    leave one solution, wrong (a "33" read "32", and a "16" beside it taken for "15"). The
    corrected clue's own print is a witness the readers' probabilities are not: where it looks
    like the puzzle's other prints of what was read, the correction fits a misread elsewhere.
    """
    anchors = [j for j in values if values[j] == ctx.raw_first[j]]
    return [k for k in changed if ctx.raw_first[k] is not None
            and ctx.prints_as(k, ctx.raw_first[k], values[k], anchors, values)]


def _printed_alike_rival(ctx: _Context, values: dict, corrected: list[SideKey]
                         ) -> tuple[dict | None, list[SideKey]]:
    """Another reading with exactly one solution, in which the digits printed like a corrected
    digit, kept as read elsewhere, are corrected the same way (None where there is none); and
    the sides kept as read that print such a digit.

    A font's digit is misread the same way wherever it is printed: where a bold "3" reads as
    "8", the rules can force back some of them (those whose runs the totals single out) while
    others, kept as "8", balance each other and leave one solution, wrong (three "3"s of one
    print read "8", two corrected). A digit kept as read that looks as much like the corrected
    digit as equal numbers do (``_SAME_LOOK``) is as likely misread; all of them corrected
    together is a rival reading the readers' odds never weighed. Where the rules corrected one
    digit the same way twice or more, the print misreads it in kind: the sides returned are
    those that print a digit so alike to one of those (one correction alone is an ordinary
    misread, and a blurred "0" prints 0.96 like the true "6"s beside it).
    """
    if ctx.resemble_digits is None or not corrected:
        return None, []
    kept = [j for j in values if j not in corrected and values[j] == ctx.raw_first.get(j)]
    trial = dict(values)
    alike: set[SideKey] = set()
    in_kind = Counter((str(ctx.raw_first[k])[i], str(values[k])[i]) for k in corrected
                      if ctx.raw_first.get(k) is not None and len(str(ctx.raw_first[k])) == len(str(values[k]))
                      for i in range(len(str(values[k]))) if str(ctx.raw_first[k])[i] != str(values[k])[i])
    for k in corrected:
        read, used = ctx.raw_first.get(k), values[k]
        if read is None or len(str(read)) != len(str(used)):
            continue
        for i in (i for i in range(len(str(read))) if str(read)[i] != str(used)[i]):
            was, now = str(read)[i], str(used)[i]
            for j in kept:
                text = str(trial[j])
                for q in (q for q in range(len(text)) if text[q] == was):
                    likeness = ctx.resemble_digits(k, len(str(read)), i, j, len(text), q)
                    if likeness is not None and likeness >= _SAME_LOOK:
                        text = text[:q] + now + text[q + 1:]
                        if in_kind[was, now] >= 2:
                            alike.add(j)
                if text != str(trial[j]) and _in_range(int(text), len(ctx.runs[j])):
                    trial[j] = int(text)
    if trial == values or ctx.check(trial).status != "unique":
        return None, sorted(alike)
    log.info("digits printed like the corrected ones, corrected too, also leave one solution")
    return trial, sorted(alike)


#: How long each reading that a misread outside the readers' options would give is searched for a
#: solution at least (seconds): cut short, it counts as a rival.
_UNSEEN_CHECK_S = 0.5


def _unoffered_rival(ctx: _Context, values: dict, cost: int, corrected: list[SideKey]
                     ) -> tuple[list[SideKey], str] | None:
    """A reading as good as ``values`` that keeps the corrected sides as read and has one other
    side misread beyond anything the readers offered (one digit of a clue they were not sure of
    read wrongly): the clues to check and why; None where there is none.

    One confident misread whose truth the readers never offered unbalances the totals; a doubtful
    clue corrected by the same amount balances them again and can leave one solution, wrong (a
    "33" read "32" at 0.65, and a "16" beside it corrected to "15"). The search cannot see that
    reading, since the truth was not offered; here it is looked for: the corrections are undone
    and each unsure clue kept as read tries every value one digit away (changed, lost or added),
    where its misread, as likely as the readers left room for (1 - sureness), is nearly as likely
    as the corrections (the rival odds). If one of those readings has exactly one solution, the
    corrections are not forced, unless the clue's print looks like the grid's other prints of what
    was read and not of the other value (:func:`_looks_like`).
    """
    if not corrected:
        return None
    undone = [k for k in corrected if ctx.raw_first.get(k) is not None
              and _in_range(ctx.raw_first[k], len(ctx.runs[k]))]
    # A clue read as nothing, or as a value its run cannot hold, was set by the rules alone: it
    # takes whatever value the other reading needs, of those it could take before.
    free = [k for k in corrected if k not in undone]
    base = dict(values)
    for k in undone:
        base[k] = ctx.raw_first[k]
    anchors = [j for j in values if j not in corrected and values[j] == ctx.raw_first[j]]
    if free:
        return _unoffered_rival_searched(ctx, base, cost, free, anchors, undone)
    gap = _totals_gap(ctx, base)
    for k in sorted(values, key=lambda j: ctx.sureness.get(j, 1.0)):
        read = values[k]
        if k in corrected or ctx.raw_first.get(k) != read or ctx.sureness.get(k, 1.0) >= TRUSTED:
            continue
        if _misread_cost(ctx, k) > cost + round(RIVAL_ODDS * _COST_SCALE):
            continue  # read too surely for a misread to be nearly as likely as the corrections
        for other in _one_digit_away(read):
            if not _in_range(other, len(ctx.runs[k])) or (gap is not None and other - read != gap[k[1]]):
                continue
            if ctx.prints_as(k, read, other, anchors, base):
                continue  # its print looks like the grid's other prints of what was read
            trial = dict(base)
            trial[k] = other
            solution = solve_puzzle(ctx.build(trial), time_limit_s=max(
                ctx.deadline - time.perf_counter(), _UNSEEN_CHECK_S))
            if solution.status in ("unique", "unknown"):
                log.info("%s read %d could be %d with the corrections undone: %s", _describe_side(k), read,
                         other, solution.status)
                return [k] + undone, _misread_instead(k, read, other, undone, [])
    return None


def _misread_cost(ctx: _Context, k: SideKey) -> int:
    """How unlikely the readers found it that side ``k`` is not what they read first (log odds,
    scaled as the costs): a misread beyond their options is at most that likely."""
    return round(-math.log(max(1.0 - ctx.sureness.get(k, 1.0), 1e-9)) * _COST_SCALE)


def _misread_instead(k: SideKey, read: int, other: int, undone: list[SideKey], free: list[SideKey]) -> str:
    """Why a corrected reading is not called solved: ``k`` misread instead would do as well."""
    changed = []
    if undone:
        changed.append(f"{sides_text(undone)} corrected")
    if free:
        changed.append(f"{sides_text(free)} set by the totals")
    return (f"the clues fit with {' and '.join(changed)}, and as well if {_describe_side(k)}, read {read}, is a "
            f"{other}; check these clues")


#: CP-SAT deterministic time for the search of a reading with a misread beyond the readers'
#: options where some corrected clue was set by the rules alone (see ``_unoffered_rival``).
_UNSEEN_SEARCH_WORK = 1.0
#: The cost of a misread beyond the readers' options in that search: above any reading's own.
_MISREAD_COST = 10**6


def _unoffered_rival_searched(ctx: _Context, base: dict, cost: int, free: list[SideKey], anchors: list[SideKey],
                              undone: list[SideKey]) -> tuple[list[SideKey], str] | None:
    """The rival of :func:`_unoffered_rival` where some corrected sides (``free``) take any value
    the readers offered for them: each unsure clue's values one digit away are choices in one
    CP-SAT model, exactly one of them taken, the misread and the free sides' values together no
    less likely than the reading (``cost``) by more than the rival odds; the readings it finds are
    checked for one solution. A search cut short counts as a rival (None is said only where none
    was found)."""
    options: dict[SideKey, list[tuple[int, float]]] = {}
    costs: dict[SideKey, dict[int, int]] = {}
    fixed: dict[SideKey, int] = {}
    for k, value in base.items():
        length = len(ctx.runs[k])
        if k in free:  # what the readers offered that the run can hold (any such value: nothing read)
            options[k] = [(v, 1.0) for v in sorted(ctx.costs[k])]
            costs[k] = dict(ctx.costs[k])
        elif k not in undone and ctx.raw_first.get(k) == value and ctx.sureness.get(k, 1.0) < TRUSTED:
            others = [v for v in _one_digit_away(value) if _in_range(v, length)]
            options[k] = [(value, 1.0)] + [(v, 0.0) for v in others]
            costs[k] = {value: 0, **{v: _MISREAD_COST + _misread_cost(ctx, k) for v in others}}
        else:
            fixed[k] = value
    if not any(len(c) > 1 for k, c in costs.items() if k not in free):
        return None
    search = _ReadingSearch(ctx.whites, ctx.givens, ctx.runs, options, costs, fixed, _UNSEEN_SEARCH_WORK)
    # One clue misread, no more, and that with the illegible clues' values nearly as likely as the
    # reading (the rival odds).
    search.bound(_MISREAD_COST + cost + round(RIVAL_ODDS * _COST_SCALE), _MISREAD_COST)
    deadline = time.perf_counter() + _WALL_CAP * _UNSEEN_SEARCH_WORK
    for _ in range(4 * MAX_READINGS):
        status, trial, _ = search.next(deadline)
        if status == "none":
            return None
        # A search cut short finds no reading to look at.
        changed = None if status == "unknown" else next(
            (k for k in trial if k not in free and trial[k] != base[k]), None)
        if changed is None:
            return free + undone, (f"the clues fit with {sides_text(free + undone)} set by the rules, but a "
                                   "misread elsewhere could not be ruled out in time; check these clues")
        read, other = base[changed], trial[changed]
        if ctx.prints_as(changed, read, other, anchors, base):
            search.forbid(changed, other)
            continue
        solution = solve_puzzle(ctx.build(trial), time_limit_s=max(deadline - time.perf_counter(), _UNSEEN_CHECK_S))
        if solution.status in ("unique", "unknown"):
            log.info("%s read %d could be %d with %s set again: %s", _describe_side(changed), read, other,
                     sides_text(free), solution.status)
            return [changed] + free + undone, _misread_instead(changed, read, other, undone, free)
        search.exclude(trial)
    return None


def _run_range(length: int) -> tuple[int, int]:
    """The totals a run of ``length`` cells can have; an empty range for a run longer than nine."""
    return sum_range(length) if length <= 9 else (1, 0)


def _in_range(value: int, length: int) -> bool:
    lo, hi = _run_range(length)
    return lo <= value <= hi


def _one_digit_away(value: int) -> list[int]:
    """Numbers printed with one digit of ``value`` changed, lost or added (a "33" read "32",
    a "24" read "4", a "3" read "13"): the misreads a reader makes of one digit."""
    text = str(value)
    out = set()
    for i in range(len(text) + 1):
        if i < len(text):
            out.add(text[:i] + text[i + 1:])
        for d in "0123456789":
            out.add(text[:i] + d + text[i:])
            if i < len(text):
                out.add(text[:i] + d + text[i + 1:])
    return sorted(int(t) for t in out if t and t[0] != "0" and t != text)


def _totals_gap(ctx: _Context, values: dict) -> dict[Direction, int] | None:
    """How much an across clue must grow (or a down clue shrink) for the totals of ``values`` to
    balance, by direction; None where some white cell lies outside an across or a down run (its
    digit counts on one side only, so the totals alone say nothing)."""
    covered = {"across": set(), "down": set()}
    for (cell, direction), cells in ctx.runs.items():
        covered[direction].update(cells)
    if covered["across"] != ctx.whites or covered["down"] != ctx.whites:
        return None
    across = sum(v for (_, d), v in values.items() if d == "across")
    down = sum(v for (_, d), v in values.items() if d == "down")
    return {"across": down - across, "down": across - down}


def _cannot_have_rival(first: dict, costs: dict, trusted: dict) -> bool:
    """No other reading within ``RIVAL_ODDS`` of ``first`` keeps the across and down totals equal.

    One changed clue unbalances them, so any rival changes two sides or more: if the two
    cheapest changes on different sides already cost too much, there is none.
    """
    cheapest = sorted(min(c for v, c in by_value.items() if v != first[key])
                      for key, by_value in costs.items() if key not in trusted and len(by_value) > 1)
    return len(cheapest) < 2 or cheapest[0] + cheapest[1] > RIVAL_ODDS * _COST_SCALE
