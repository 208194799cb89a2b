"""Solve a puzzle and prove its solution unique (or show a second one).

Three stages, each cheaper than the next:

1. Propagation over digit bitmasks (bits 1..9 per white cell): per run, keep only the digits of
   combinations that every cell can still take part in; a digit every remaining combination needs
   and only one cell can hold goes there (hidden single); cells whose masks are a naked pair/triple
   take those digits from the rest of the run. Settles most published puzzles outright.
2. The cells left open split into independent components (no run links two of them). Each
   component is searched depth-first, smallest domain first, propagating after every guess, up to
   two solutions; an exhausted search is a proof.
3. A component whose search exceeds its node budget goes to CP-SAT (one AllDifferent plus one
   linear sum per run, domains pre-cut by stage 1, ``num_workers=1``, enumeration stopping at the
   second solution). CP-SAT proves what the small search cannot; the small search finds solutions of
   loosely constrained grids that CP-SAT's default search wanders in for seconds.

Every stage only removes digits no solution can use, so all of them together are deterministic
and sound: ``unique`` is a proof, never a guess.
"""
from __future__ import annotations

import logging
import time


from . import cpsat
from .combos import _table
from .model import Cell, Puzzle, Solution

__all__ = ["solve_puzzle", "propagate"]

log = logging.getLogger(__name__)

_ALL = 0b1111111110  # bits 1..9
_DIGIT = {1 << d: d for d in range(1, 10)}
# Search nodes per component before handing it to CP-SAT. Measured on the corpus: every component
# that propagation leaves open is settled in far fewer nodes, except in grids built to be hard
# (where CP-SAT's learning wins).
_NODE_BUDGET = 2000
# Components with more open cells than this go straight to CP-SAT: measured on the corpus, the
# search either settles a component in a few hundred guesses or thrashes where CP-SAT learns.
_SEARCH_MAX_CELLS = 400


def _digits(mask: int) -> list[int]:
    return [d for d in range(1, 10) if mask >> d & 1]


class _Grid:
    """The puzzle flattened to integer ids: what the inner loops need and nothing else."""

    __slots__ = ("cells", "run_cells", "run_total", "run_across", "runs_of")

    def __init__(self, puzzle: Puzzle):
        self.cells: list[Cell] = sorted(puzzle.whites)
        index = {cell: i for i, cell in enumerate(self.cells)}
        self.run_cells: list[tuple[int, ...]] = []
        self.run_total: list[int] = []
        self.run_across: list[bool] = []
        self.runs_of: list[list[int]] = [[] for _ in self.cells]
        for run in puzzle.runs:
            if not run.cells:
                continue  # an empty run constrains nothing; validation reports it
            r = len(self.run_cells)
            self.run_cells.append(tuple(index[c] for c in run.cells))
            self.run_total.append(run.total)
            self.run_across.append(run.direction == "across")
            for c in run.cells:
                self.runs_of[index[c]].append(r)


def _propagate(grid: _Grid, masks: list[int], queue: list[int]) -> int:
    """Narrow ``masks`` in place to a fixpoint, starting from the runs in ``queue``.

    Returns -1, or the run found to have no possible filling (no solution below this point).
    """
    table = _table()
    run_cells, run_total, runs_of = grid.run_cells, grid.run_total, grid.runs_of
    queued = set(queue)
    while queue:
        r = queue.pop()
        queued.discard(r)
        fixed = fixed_sum = 0
        free = []
        for i in run_cells[r]:
            m = masks[i]
            if m & (m - 1):
                free.append(i)
            else:
                if fixed & m:
                    return r
                fixed |= m
                fixed_sum += _DIGIT[m]
        if not free:
            if fixed_sum != run_total[r]:
                return r
            continue
        union = 0
        for i in free:
            union |= masks[i]
        allowed = 0
        required = _ALL
        for combo in table.get((run_total[r] - fixed_sum, len(free)), ()):
            # A combination is possible only if no fixed digit is in it, some open cell can hold
            # each of its digits, and each open cell can hold one of its digits.
            if combo & fixed or combo & ~union:
                continue
            for i in free:
                if not masks[i] & combo:
                    break
            else:
                allowed |= combo
                required &= combo
        if not allowed:
            return r
        changed = []
        for i in free:
            new = masks[i] & allowed
            if new != masks[i]:
                if not new:
                    return r
                masks[i] = new
                changed.append(i)
        # Hidden singles: a digit every combination needs, that only one cell can still hold.
        need = required
        while need:
            bit = need & -need
            need ^= bit
            holder = -1
            for i in free:
                if masks[i] & bit:
                    if holder >= 0:
                        break
                    holder = i
            else:
                if holder < 0:
                    return r
                if masks[holder] != bit:
                    masks[holder] = bit
                    changed.append(holder)
        # Naked subsets: k cells whose digits all lie within the same k digits own those digits.
        if len(free) > 2:
            for i in free:
                m = masks[i]
                k = m.bit_count()
                if k == 1 or k >= len(free):
                    continue
                inside = [j for j in free if masks[j] | m == m]
                if len(inside) > k:
                    return r
                if len(inside) == k:
                    for j in free:
                        if masks[j] & m and masks[j] | m != m:
                            new = masks[j] & ~m
                            if not new:
                                return r
                            masks[j] = new
                            changed.append(j)
        for i in changed:
            for r2 in runs_of[i]:
                if r2 not in queued:
                    queued.add(r2)
                    queue.append(r2)
    return -1


def _initial_masks(grid: _Grid, puzzle: Puzzle) -> list[int] | None:
    masks = [_ALL] * len(grid.cells)
    index = {cell: i for i, cell in enumerate(grid.cells)}
    for cell, digit in puzzle.givens:
        if cell in index:
            masks[index[cell]] = 1 << digit if 1 <= digit <= 9 else 0
    if 0 in masks:
        return None
    if _propagate(grid, masks, list(range(len(grid.run_cells)))) >= 0:
        return None
    return masks


def propagate(puzzle: Puzzle) -> dict[Cell, int] | None:
    """Narrow each white cell's digits by its runs' combinations; None when a cell runs dry.

    Returns a mask (bits 1..9) per white cell. Cheap, and enough to settle most puzzles.
    """
    grid = _Grid(puzzle)
    masks = _initial_masks(grid, puzzle)
    if masks is None:
        return None
    return dict(zip(grid.cells, masks))


def _components(grid: _Grid, masks: list[int], cells: list[int]) -> list[list[int]]:
    """The open ``cells`` grouped so that no run has open cells in two groups; smallest first."""
    parent = {i: i for i in cells if masks[i] & (masks[i] - 1)}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in parent:
        root = find(i)
        for r in grid.runs_of[i]:
            for j in grid.run_cells[r]:
                if j != i and j in parent:
                    other = find(j)
                    if other != root:
                        parent[other] = root
    groups: dict[int, list[int]] = {}
    for i in parent:
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values(), key=len)


class _OutOfBudget(Exception):
    pass


class _Budget:
    """Guesses left, the deadline, and each run's failure count (steers the choice of cell)."""

    __slots__ = ("nodes", "deadline", "weights")

    def __init__(self, nodes: int, deadline: float, n_runs: int):
        self.nodes = nodes
        self.deadline = deadline
        self.weights = [1] * n_runs

    def spend(self) -> None:
        self.nodes -= 1
        if self.nodes < 0 or (self.nodes & 255 == 0 and time.perf_counter() > self.deadline):
            raise _OutOfBudget


def _search(grid: _Grid, masks: list[int], cells: list[int], limit: int, budget: _Budget) -> list[dict[int, int]]:
    """Up to ``limit`` solutions (digits of ``cells``) below ``masks``, already propagated.

    Fewer than ``limit`` comes back only after the search is exhausted: then that is all there
    are. Raises _OutOfBudget when ``budget`` runs out. (Splitting the open cells into independent
    parts at every node was tried: on the corpus its cost outweighed the guesses it saved.)
    """
    fixed = {i: _DIGIT[masks[i]] for i in cells if not masks[i] & (masks[i] - 1)}
    if len(fixed) == len(cells):
        return [fixed]
    # Fewest digits per failure of the cell's runs ("dom/wdeg"): guesses go where conflicts were.
    weights, runs_of = budget.weights, grid.runs_of
    best, best_score = -1, 10.0
    for i in cells:
        m = masks[i]
        if m & (m - 1):
            score = m.bit_count() / (sum(weights[r] for r in runs_of[i]) or 1)
            if score < best_score:
                best, best_score = i, score
    solutions: list[dict[int, int]] = []
    todo = masks[best]
    while todo:
        bit = todo & -todo
        todo ^= bit
        budget.spend()
        child = masks.copy()
        child[best] = bit
        failed = _propagate(grid, child, list(runs_of[best]))
        if failed >= 0:
            weights[failed] += 1
        else:
            for found in _search(grid, child, cells, limit - len(solutions), budget):
                found.update(fixed)
                solutions.append(found)
            if len(solutions) >= limit:
                break
    return solutions


def _cpsat(grid: _Grid, masks: list[int], cells: list[int], limit: int,
           time_limit_s: float) -> tuple[list[dict[int, int]], bool]:
    """CP-SAT over one component's open cells: up to ``limit`` solutions, and whether the
    search space was exhausted (so fewer than ``limit`` is all there are)."""
    # Loaded here: most puzzles never reach CP-SAT.
    cp_model = cpsat.cp_model()

    class _StopAt(cp_model.CpSolverSolutionCallback):
        def __init__(self, variables: dict, limit: int):
            super().__init__()
            self._variables = variables
            self._limit = limit
            self.found: list[dict[int, int]] = []

        def on_solution_callback(self) -> None:
            self.found.append({i: int(self.Value(v)) for i, v in self._variables.items()})
            if len(self.found) >= self._limit:
                self.StopSearch()

    runs = {r for i in cells for r in grid.runs_of[i]}
    rests = {r: grid.run_total[r] - sum(_DIGIT[masks[i]] for i in grid.run_cells[r]
                                        if not masks[i] & (masks[i] - 1)) for r in runs}
    # Every open cell counted once across and once down: the across rests and the down rests sum
    # to the same digits. Without the LP relaxation (off below) CP-SAT may search for seconds
    # before it sees that two totals disagree, so that is checked here.
    if all(sum(grid.run_across[r] for r in grid.runs_of[i]) == 1 == sum(not grid.run_across[r] for r in grid.runs_of[i])
           for i in cells):
        if sum(rests[r] for r in runs if grid.run_across[r]) != sum(rests[r] for r in runs if not grid.run_across[r]):
            return [], True
    model = cp_model.CpModel()
    variables = {i: model.NewIntVarFromDomain(cp_model.Domain.FromValues(_digits(masks[i])), f"x{i}")
                 for i in cells}
    for r in sorted(runs):
        # Fixed cells' digits are already out of the open cells' masks; only their sum matters.
        open_vars = [variables[i] for i in grid.run_cells[r] if masks[i] & (masks[i] - 1)]
        if len(open_vars) > 1:
            model.AddAllDifferent(open_vars)
        model.Add(sum(open_vars) == rests[r])
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    # No LP relaxation: sums over a few small-domain distinct digits gain nothing from it, and
    # building it is most of the time on big components (marcelgarus__huge: 3.3-4.3 s -> 1.1-1.4 s
    # over four seeds; the rest of the corpus unchanged within noise).
    solver.parameters.linearization_level = 0
    solver.parameters.max_time_in_seconds = max(time_limit_s, 0.001)
    solver.parameters.enumerate_all_solutions = limit > 1
    callback = _StopAt(variables, limit)
    status = solver.Solve(model, callback)
    exhausted = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE) and (limit > 1 or not callback.found)
    return callback.found, exhausted


def solve_puzzle(puzzle: Puzzle, *, time_limit_s: float = 10.0, check_unique: bool = True) -> Solution:
    """Solve ``puzzle``; with ``check_unique`` also prove there is no second solution.

    Parameters
    ----------
    puzzle : Puzzle
        A puzzle that passed validation (runs of 1..9 cells, clues in range).
    time_limit_s : float
        Wall-clock limit; on expiry the status is ``unknown``.
    check_unique : bool
        Search on for a second solution after the first.

    Returns
    -------
    Solution
        ``unique``, ``multiple`` (with ``other`` and ``differing``), ``none`` or ``unknown``.
    """
    start = time.perf_counter()
    deadline = start + time_limit_s
    grid = _Grid(puzzle)
    masks = _initial_masks(grid, puzzle)
    if masks is None:
        return Solution("none", seconds=time.perf_counter() - start)

    values = {i: _DIGIT[m] for i, m in enumerate(masks) if not m & (m - 1)}
    other: dict[int, int] | None = None
    proven = True
    for cells in _components(grid, masks, list(range(len(masks)))):
        limit = 2 if check_unique and other is None else 1
        try:
            if len(cells) > _SEARCH_MAX_CELLS:
                raise _OutOfBudget
            found = _search(grid, masks, cells, limit, _Budget(_NODE_BUDGET, deadline, len(grid.run_cells)))
            exhausted = True
        except (_OutOfBudget, RecursionError):
            log.debug("component of %d cells left to CP-SAT", len(cells))
            found, exhausted = _cpsat(grid, masks, cells, limit, deadline - time.perf_counter())
        if not found:
            status = "none" if exhausted else "unknown"
            return Solution(status, seconds=time.perf_counter() - start)
        values.update(found[0])
        if len(found) >= 2:
            other = found[1]
        elif not exhausted or limit == 1:
            proven = False
    seconds = time.perf_counter() - start
    first = {grid.cells[i]: d for i, d in values.items()}
    if other is not None:
        second = dict(first)
        second.update({grid.cells[i]: d for i, d in other.items()})
        differing = tuple(sorted(c for c in first if first[c] != second[c]))
        return Solution("multiple", first, second, differing, seconds)
    # Without the uniqueness proof (or when time ran out during it) a solution is all we know.
    return Solution("unique" if proven else "unknown", first, seconds=seconds)
