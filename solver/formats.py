"""Puzzle files: the plain-text grid, JSON, and the seed CSP solver's format.

Text grid: whitespace-separated tokens, one grid row per line. ``#`` black, ``.`` white, a digit
1-9 a white cell holding a given (or solved) digit, ``D\\A`` a clue cell with down sum D and
across sum A (either may be empty: ``23\\``, ``\\16``).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Mapping

from .errors import PuzzleFormatError
from .model import Cell, Clue, Puzzle

__all__ = [
    "parse_text", "format_text", "puzzle_to_json", "puzzle_from_json", "parse_csp_input",
    "parse_puzzle", "load_puzzle", "parse_solution_grid", "format_solution", "grid_tokens",
]

_CLUE = re.compile(r"^(\d*)\\(\d*)$")


def _where(row: int, col: int) -> str:
    return f"row {row + 1}, column {col + 1}"


def _from_tokens(rows: list[list[str]], source: str = "") -> Puzzle:
    prefix = f"{source}: " if source else ""
    if not rows:
        raise PuzzleFormatError(f"{prefix}no grid rows")
    width = len(rows[0])
    for r, tokens in enumerate(rows):
        if len(tokens) != width:
            raise PuzzleFormatError(f"{prefix}row {r + 1} has {len(tokens)} cells but row 1 has {width} "
                                    "(ragged rows)")
    whites: set[Cell] = set()
    clues: list[Clue] = []
    givens: list[tuple[Cell, int]] = []
    for r, tokens in enumerate(rows):
        for c, token in enumerate(tokens):
            if token == "#":
                continue
            if token in (".", "0", "_"):
                whites.add((r, c))
            elif len(token) == 1 and token in "123456789":
                whites.add((r, c))
                givens.append(((r, c), int(token)))
            elif (m := _CLUE.match(token)) and (m.group(1) or m.group(2)):
                down = int(m.group(1)) if m.group(1) else None
                across = int(m.group(2)) if m.group(2) else None
                clues.append(Clue(r, c, down, across))
            elif token == "\\":
                continue  # a black cell drawn with a diagonal and no number
            else:
                raise PuzzleFormatError(f"{prefix}{_where(r, c)}: unknown token {token!r} "
                                        "(expected #, ., a digit 1-9, or D\\A)")
    return Puzzle(len(rows), width, frozenset(whites), tuple(clues), tuple(givens))


def parse_text(text: str, source: str = "") -> Puzzle:
    """Parse the plain-text grid format."""
    rows = [line.split() for line in text.splitlines() if line.strip() and not line.lstrip().startswith(";")]
    return _from_tokens(rows, source)


def grid_tokens(puzzle: Puzzle, values: Mapping[Cell, int] | None = None) -> list[list[str]]:
    """The text format's tokens, row by row; ``values`` fills white cells with digits."""
    values = values or {}
    out = []
    for r in range(puzzle.n_rows):
        row = []
        for c in range(puzzle.n_cols):
            if (r, c) in puzzle.whites:
                digit = values.get((r, c), puzzle.given_at.get((r, c)))
                row.append(str(digit) if digit else ".")
            elif (r, c) in puzzle.clue_at:
                clue = puzzle.clue_at[(r, c)]
                row.append(f"{clue.down or ''}\\{clue.across or ''}")
            else:
                row.append("#")
        out.append(row)
    return out


def format_text(puzzle: Puzzle, values: Mapping[Cell, int] | None = None) -> str:
    """Write the plain-text grid format, columns aligned."""
    rows = grid_tokens(puzzle, values)
    width = max(len(t) for row in rows for t in row) + 1
    return "\n".join("".join(t.ljust(width) for t in row).rstrip() for row in rows) + "\n"


format_solution = format_text


def puzzle_to_json(puzzle: Puzzle) -> dict[str, Any]:
    """``{"rows": R, "cols": C, "grid": [[token, ...], ...]}`` with the text format's tokens."""
    return {"rows": puzzle.n_rows, "cols": puzzle.n_cols, "grid": grid_tokens(puzzle)}


def puzzle_from_json(data: Mapping[str, Any], source: str = "") -> Puzzle:
    """Inverse of :func:`puzzle_to_json`; also accepts a result object that holds a ``grid``."""
    prefix = f"{source}: " if source else ""
    if "puzzles" in data and data["puzzles"]:
        data = data["puzzles"][0]
    grid = data.get("grid")
    if not isinstance(grid, list) or not all(isinstance(row, list) for row in grid):
        raise PuzzleFormatError(f"{prefix}JSON has no \"grid\" list of rows")
    rows = [[str(t) for t in row] for row in grid]
    puzzle = _from_tokens(rows, source)
    for key, actual in (("rows", puzzle.n_rows), ("cols", puzzle.n_cols)):
        if key in data and data[key] != actual:
            raise PuzzleFormatError(f"{prefix}\"{key}\" says {data[key]} but the grid has {actual}")
    return puzzle


def parse_csp_input(text: str, source: str = "") -> Puzzle:
    """The seed MAC/CSP solver's format: ``rows=``, ``columns=``, then Horizontal and Vertical grids
    of comma-separated cells (``#`` block, ``0`` white, a number: the sum of the run it starts)."""
    prefix = f"{source}: " if source else ""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    try:
        n_rows = int(next(ln for ln in lines if ln.lower().startswith("rows=")).split("=", 1)[1])
        n_cols = int(next(ln for ln in lines if ln.lower().startswith("columns=")).split("=", 1)[1])
        h = [ln.lower() for ln in lines].index("horizontal")
        v = [ln.lower() for ln in lines].index("vertical")
    except (StopIteration, ValueError) as exc:
        raise PuzzleFormatError(f"{prefix}not a CSP puzzle file (needs rows=, columns=, Horizontal, Vertical)") from exc
    horizontal = [ln.split(",") for ln in lines[h + 1:h + 1 + n_rows]]
    vertical = [ln.split(",") for ln in lines[v + 1:v + 1 + n_rows]]
    if len(horizontal) != n_rows or len(vertical) != n_rows or any(
            len(row) != n_cols for row in horizontal + vertical):
        raise PuzzleFormatError(f"{prefix}grids do not match rows={n_rows}, columns={n_cols}")
    whites, clues = set(), []
    for r in range(n_rows):
        for c in range(n_cols):
            a, d = horizontal[r][c].strip(), vertical[r][c].strip()
            if a == "0" or d == "0":
                whites.add((r, c))
                continue
            across = int(a) if a.isdigit() else None
            down = int(d) if d.isdigit() else None
            if across or down:
                clues.append(Clue(r, c, down, across))
    # The format also writes a run's sum on the cell after it in the other grid; keep a clue
    # side only where it really starts a run.
    cleaned = []
    for clue in clues:
        down = clue.down if (clue.row + 1, clue.col) in whites else None
        across = clue.across if (clue.row, clue.col + 1) in whites else None
        if down or across:
            cleaned.append(Clue(clue.row, clue.col, down, across))
    return Puzzle(n_rows, n_cols, frozenset(whites), tuple(cleaned))


def parse_puzzle(text: str, source: str = "") -> Puzzle:
    """Parse any supported format, recognised by its content."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PuzzleFormatError(f"{source + ': ' if source else ''}invalid JSON: {exc}") from exc
        return puzzle_from_json(data, source)
    if re.match(r"(?i)rows\s*=", stripped):
        return parse_csp_input(text, source)
    return parse_text(text, source)


def load_puzzle(path: str | Path) -> Puzzle:
    """Read a puzzle file of any supported format."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise PuzzleFormatError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PuzzleFormatError(f"{path}: not a text puzzle file") from exc
    return parse_puzzle(text, str(path))


def parse_solution_grid(text: str) -> dict[Cell, int]:
    """A ``.sol`` file: one line per row, a digit per white cell, ``#`` elsewhere (tokens or packed)."""
    values: dict[Cell, int] = {}
    for r, line in enumerate(ln for ln in text.splitlines() if ln.strip()):
        tokens = line.split() if " " in line.strip() or "\t" in line else list(line.strip())
        for c, token in enumerate(tokens):
            if token.isdigit():
                values[(r, c)] = int(token)
    return values
