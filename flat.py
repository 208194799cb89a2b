"""Solved puzzles drawn flat, as printed: one puzzle (``kakuro solve --flat``) or an answer key
(``kakuro batch --answers``), like the answers at the back of a puzzle book.

A puzzle is drawn from its plain data (``solver.model.Puzzle`` and the solution's digits), not
from the photo: clue cells dark with a diagonal, the down sum lower-left and the across sum
upper-right in white, white cells with their digit centred. PDF and SVG are vector drawings whose
numbers are real text (in reading order: row by row, a clue cell's down sum before its across sum),
so they print sharp and a PDF reader finds and copies the digits; PNG is the PDF page rendered.
A puzzle that was not solved is listed with its status instead of a grid.

The page is laid out once, in millimetres, as a list of shapes (``_Rect``, ``_Line``, ``_Text``);
the PDF (fpdf2, its built-in Helvetica) and the SVG (written as text) draw the same list.
"""
from __future__ import annotations

import io
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape

from outputs import write_atomically
from solver.formats import puzzle_from_json
from solver.model import Cell, Puzzle

if TYPE_CHECKING:
    from pipeline import PuzzleResult

__all__ = ["FLAT_SUFFIXES", "AnswerEntry", "entry_from_result", "entry_from_json", "draw_flat", "write_flat",
           "write_answer_key"]

log = logging.getLogger("kakuro")

#: Suffixes ``draw_flat`` and ``write_flat`` write, each deciding the format.
FLAT_SUFFIXES = (".svg", ".pdf", ".png")

_MM_PER_PT = 25.4 / 72
_CELL = 6.0            # a cell's side in the answer key and flat drawings (mm)
_A4 = (210.0, 297.0)   # the answer key's page (mm)
_MARGIN = 12.0         # the answer key's page margin (mm)
_FLAT_MARGIN = 3.0     # around a flat drawing (mm)
_GAP_X, _GAP_Y = 8.0, 7.0  # between puzzles (mm)
_LABEL = 2.7           # label text size (mm, about 7.7 pt)
_LABEL_H = 4.2         # label line: text and the space under it (mm)
_NOTE = 2.5            # a status note's text size (mm)
_NOTE_W = 62.0         # width of a not-solved puzzle's box (mm)
_NOTE_LINES = 8        # a note is cut after this many lines
_PNG_DPI = 200         # PNG: 6 mm cells of 47 px
_DARK = (43, 43, 43)   # clue and block cells
_DIAGONAL = (150, 150, 150)
_WHITE, _BLACK = (255, 255, 255), (0, 0, 0)
_NOT_SOLVED = {"ambiguous": "more than one solution", "unsolvable": "no solution",
               "unreadable": "could not be read for certain",
               "answer-key": "an answer key (a solved grid), not a puzzle", "error": "the page failed"}


@dataclass(frozen=True, slots=True)
class AnswerEntry:
    """One puzzle of an answer key: drawn with ``values`` when ``status`` is ``solved``, else
    listed with its status and ``note`` (why). ``input``, ``page`` (1-based, None for an image
    file) and ``index`` (1-based puzzle on the page) make its label; all None: no label."""

    status: str
    puzzle: Puzzle | None = None
    values: Mapping[Cell, int] | None = None
    note: str | None = None
    input: str | None = None
    page: int | None = None
    index: int | None = None

    @property
    def drawn(self) -> bool:
        """Whether it is drawn as a grid (solved, every white cell with its digit)."""
        return (self.status == "solved" and self.puzzle is not None and bool(self.values)
                and all(cell in self.values or cell in self.puzzle.given_at for cell in self.puzzle.whites))

    def label(self, base: str | None = None) -> str | None:
        """``FILE, page P, puzzle K`` (parts that are None left out); FILE relative to ``base``."""
        parts = []
        if self.input is not None:
            parts.append(os.path.relpath(self.input, base) if base else self.input)
        if self.page is not None:
            parts.append(f"page {self.page}")
        if self.index is not None:
            parts.append(f"puzzle {self.index}")
        return ", ".join(parts) or None

    def status_text(self) -> str:
        """``STATUS: why``, e.g. ``unreadable: could not read row 3, column 5``."""
        return f"{self.status}: {self.note or _NOT_SOLVED.get(self.status, 'not solved')}"


def entry_from_result(result: "PuzzleResult", *, input: str | None = None, page: int | None = None,
                      index: int | None = None) -> AnswerEntry:
    """An ``AnswerEntry`` from a ``pipeline.PuzzleResult``."""
    status = str(result.status)
    values = dict(result.solution.values) if result.solution is not None and status == "solved" else None
    note = "; ".join(result.problems) or None
    if result.answer_to is not None:
        note = _answers_note(result.answer_to[0] + 1, result.answer_to[1])
    return AnswerEntry(status, result.puzzle, values, note, input, page, index)


def _answers_note(puzzle: int, agrees: bool | None) -> str:
    """What an answer key found beside a puzzle says (``PuzzleResult.answer_to``, 1-based)."""
    verdict = {True: "agrees with its solution", False: "does NOT agree with its solution",
               None: "which was not solved"}[agrees]
    return f"an answer key (a solved grid) to puzzle {puzzle}, {verdict}"


def entry_from_json(doc: Mapping[str, Any]) -> AnswerEntry:
    """An ``AnswerEntry`` from a batch's per-puzzle JSON (``PuzzleResult.to_json`` plus ``input``,
    ``page``, ``index``) or summary row (``status`` and ``error`` only: listed, not drawn)."""
    status = str(doc.get("status", "error"))
    note = "; ".join(doc.get("problems") or []) or doc.get("error") or None
    if note and doc.get("input") and note.startswith(f"{doc['input']}: "):  # the label names the file
        note = note[len(doc["input"]) + 2:]
    if doc.get("answer_to"):
        note = _answers_note(doc["answer_to"]["puzzle"], doc["answer_to"]["agrees"])
    puzzle, values = None, None
    if doc.get("grid"):
        puzzle = puzzle_from_json(doc)
        solution = doc.get("solution")
        if status == "solved" and solution:
            values = {(r, c): int(d) for r, row in enumerate(solution) for c, d in enumerate(row) if d}
    return AnswerEntry(status, puzzle, values, note, doc.get("input"), doc.get("page"), doc.get("index"))


def draw_flat(puzzle: Puzzle, values: Mapping[Cell, int], path: Path) -> None:
    """Draw one solved puzzle flat into ``path``: SVG, PDF or PNG by its suffix, no label.

    Raises
    ------
    ValueError
        ``path``'s suffix is none of ``FLAT_SUFFIXES``.
    """
    write_flat([AnswerEntry("solved", puzzle, dict(values))], path)


def write_flat(entries: Sequence[AnswerEntry], path: Path) -> None:
    """Draw ``entries`` (puzzles of one input) on one page sized to them: SVG, PDF or PNG by
    ``path``'s suffix. A single entry gets no label; several are labelled and laid out in rows
    as wide as an A4 page's text (a wider puzzle is drawn at its size).

    Raises
    ------
    ValueError
        ``path``'s suffix is none of ``FLAT_SUFFIXES``, or ``entries`` is empty.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FLAT_SUFFIXES:
        raise ValueError(f"path: {path}: name it .svg, .pdf or .png (its suffix decides the format)")
    if not entries:
        raise ValueError("entries: nothing to draw")
    boxes = [_box(e, None if len(entries) == 1 else e.label(_common_base(entries)), fit=None)
             for e in entries]
    width = max(_A4[0] - 2 * _MARGIN, max(b.width for b in boxes))
    (shapes, used_w, used_h), = _pack(boxes, width, None)
    page = _Page(used_w + 2 * _FLAT_MARGIN, used_h + 2 * _FLAT_MARGIN,
                 [s.moved(_FLAT_MARGIN, _FLAT_MARGIN) for s in shapes])
    if suffix == ".svg":
        text = _svg(page)
        write_atomically(path, lambda t: t.write_text(text, encoding="utf-8"))
    elif suffix == ".pdf":
        data = _pdf([page], title="Kakuro solution")
        write_atomically(path, lambda t: t.write_bytes(data))
    else:
        data = _png(_pdf([page], title="Kakuro solution"))
        write_atomically(path, lambda t: t.write_bytes(data))


def write_answer_key(entries: Sequence[AnswerEntry], path: Path, *, title: str = "Answers") -> int:
    """The answer key: A4 pages, ``entries`` in reading order (left to right, then down), each
    labelled with its input (relative to the inputs' common folder), page and index, solved
    puzzles drawn small (6 mm cells; a puzzle too large for the page is drawn smaller, alone on
    it), the others listed with their status. Nothing is written for no entries.

    Returns
    -------
    pages : int
        The number of pages written.
    """
    if not entries:
        return 0
    base = _common_base(entries)
    width, height = _A4[0] - 2 * _MARGIN, _A4[1] - 2 * _MARGIN - _LABEL_H * 1.5
    boxes = [_box(e, e.label(base), fit=(width, height)) for e in entries]
    pages = []
    laid_out = _pack(boxes, width, height)
    for number, (shapes, _, _) in enumerate(laid_out, start=1):
        head = [_Text(_MARGIN, _MARGIN + _LABEL, _LABEL * 1.15, _clean(title), "start", _BLACK, bold=True),
                _Text(_A4[0] - _MARGIN, _MARGIN + _LABEL, _LABEL, f"page {number} of {len(laid_out)}", "end",
                      _BLACK)]
        pages.append(_Page(*_A4, head + [s.moved(_MARGIN, _MARGIN + _LABEL_H * 1.5) for s in shapes]))
    data = _pdf(pages, title=f"Kakuro {title.lower()}")
    write_atomically(Path(path), lambda t: t.write_bytes(data))
    return len(pages)


# ---------------------------------------------------------------------------------------------
# Layout: shapes in millimetres, y downwards


@dataclass(frozen=True, slots=True)
class _Rect:
    x: float
    y: float
    w: float
    h: float
    fill: tuple[int, int, int] | None
    stroke: tuple[int, int, int] | None = None
    line_w: float = 0.0

    def moved(self, dx: float, dy: float) -> "_Rect":
        return _Rect(self.x + dx, self.y + dy, self.w, self.h, self.fill, self.stroke, self.line_w)


@dataclass(frozen=True, slots=True)
class _Line:
    x1: float
    y1: float
    x2: float
    y2: float
    color: tuple[int, int, int]
    line_w: float

    def moved(self, dx: float, dy: float) -> "_Line":
        return _Line(self.x1 + dx, self.y1 + dy, self.x2 + dx, self.y2 + dy, self.color, self.line_w)


@dataclass(frozen=True, slots=True)
class _Text:
    x: float  # the anchor point on the baseline
    y: float
    size: float  # em, mm
    text: str
    anchor: str  # start, middle, end
    color: tuple[int, int, int]
    bold: bool = False

    def moved(self, dx: float, dy: float) -> "_Text":
        return _Text(self.x + dx, self.y + dy, self.size, self.text, self.anchor, self.color, self.bold)


_Shape = _Rect | _Line | _Text


@dataclass(frozen=True, slots=True)
class _Box:
    """One entry laid out at (0, 0): its shapes and extent."""

    width: float
    height: float
    shapes: tuple[_Shape, ...]


@dataclass(frozen=True, slots=True)
class _Page:
    width: float
    height: float
    shapes: list[_Shape]


def _common_base(entries: Sequence[AnswerEntry]) -> str | None:
    """The folder every entry's input lies in (labels name inputs relative to it); None: none."""
    parents = [os.path.dirname(os.path.abspath(e.input)) for e in entries if e.input]
    if not parents:
        return None
    try:
        return os.path.commonpath(parents)
    except ValueError:  # different drives
        return None


def _clean(text: str) -> str:
    """Text the PDF's built-in Helvetica can show (Latin-1): other characters become '?'."""
    return text.encode("latin-1", "replace").decode("latin-1")


_measurer = None


def _text_width(text: str, size: float, bold: bool = False) -> float:
    """Width in mm of ``text`` in Helvetica of ``size`` mm (fpdf2's metrics, shared by SVG)."""
    global _measurer
    if _measurer is None:
        from fpdf import FPDF

        _measurer = FPDF(unit="mm")
    _measurer.set_font("helvetica", "B" if bold else "", size / _MM_PER_PT)
    return _measurer.get_string_width(_clean(text))


def _fit(text: str, size: float, width: float, bold: bool = False) -> str:
    """``text`` cut at its start ("...tail") to fit ``width``: a label's end names the puzzle."""
    if _text_width(text, size, bold) <= width:
        return text
    for start in range(1, len(text)):
        cut = "..." + text[start:]
        if _text_width(cut, size, bold) <= width:
            return cut
    return "..."


def _wrap(text: str, size: float, width: float) -> list[str]:
    """``text`` in lines no wider than ``width`` (a word too long is cut), at most ``_NOTE_LINES``."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        while _text_width(word, size) > width and len(word) > 1:  # a long word (a path) is split
            cut = len(word) - 1
            while cut > 1 and _text_width(word[:cut], size) > width:
                cut -= 1
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:cut])
            word = word[cut:]
        candidate = f"{line} {word}" if line else word
        if _text_width(candidate, size) <= width:
            line = candidate
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    if len(lines) > _NOTE_LINES:
        lines = lines[:_NOTE_LINES - 1] + [_fit(lines[_NOTE_LINES - 1] + " ...", size, width)]
    return lines


def _box(entry: AnswerEntry, label: str | None, fit: tuple[float, float] | None) -> _Box:
    """``entry`` laid out at (0, 0): the label on top, then the grid or the status note.
    ``fit``: the (width, height) the box must fit in (cells shrink to fit); None: no limit."""
    shapes: list[_Shape] = []
    top = _LABEL_H if label else 0.0
    if entry.drawn:
        p = entry.puzzle
        cell = _CELL
        if fit is not None:
            cell = min(cell, fit[0] / p.n_cols, (fit[1] - top) / p.n_rows)
        grid_w = cell * p.n_cols
        width = grid_w
        if label:
            limit = fit[0] if fit else max(grid_w, _A4[0] - 2 * _MARGIN)
            width = max(grid_w, min(_text_width(label, _LABEL), limit))
        shapes += _grid_shapes(p, entry.values or {}, 0.0, top, cell)
        height = top + cell * p.n_rows
    else:
        width = _NOTE_W
        if label:
            width = max(width, min(_text_width(label, _LABEL), fit[0] if fit else 120.0))
        lines = _wrap(_clean(entry.status_text()), _NOTE, width)
        y = top
        for line in lines:
            y += _NOTE * 1.25
            shapes.append(_Text(0.0, y, _NOTE, line, "start", _BLACK))
        height = y + _NOTE * 0.4
    if label:
        shapes.insert(0, _Text(0.0, _LABEL, _LABEL, _fit(_clean(label), _LABEL, width), "start", _BLACK))
    return _Box(width, height, tuple(shapes))


def _grid_shapes(p: Puzzle, values: Mapping[Cell, int], x0: float, y0: float, s: float) -> list[_Shape]:
    """A grid of side ``s`` mm cells at (x0, y0): fills, lines, then the numbers in reading order."""
    thin, thick = max(0.08, s * 0.025), max(0.2, s * 0.06)
    shapes: list[_Shape] = []
    texts: list[_Shape] = []
    digit, small = s * 0.62, s * 0.31
    for r in range(p.n_rows):
        for c in range(p.n_cols):
            x, y = x0 + c * s, y0 + r * s
            if (r, c) in p.whites:
                shapes.append(_Rect(x, y, s, s, _WHITE))
                d = values.get((r, c), p.given_at.get((r, c)))
                if d:
                    texts.append(_Text(x + s / 2, y + s / 2 + digit * 0.36, digit, str(d), "middle", _BLACK))
                continue
            shapes.append(_Rect(x, y, s, s, _DARK))
            clue = p.clue_at.get((r, c))
            if clue is None:
                continue
            shapes.append(_Line(x, y, x + s, y + s, _DIAGONAL, thin * 1.5))
            if clue.down is not None:
                texts.append(_Text(x + s * 0.30, y + s * 0.72 + small * 0.36, small, str(clue.down), "middle", _WHITE))
            if clue.across is not None:
                texts.append(_Text(x + s * 0.70, y + s * 0.30 + small * 0.36, small, str(clue.across), "middle",
                                   _WHITE))
    w, h = p.n_cols * s, p.n_rows * s
    for r in range(1, p.n_rows):
        shapes.append(_Line(x0, y0 + r * s, x0 + w, y0 + r * s, _BLACK, thin))
    for c in range(1, p.n_cols):
        shapes.append(_Line(x0 + c * s, y0, x0 + c * s, y0 + h, _BLACK, thin))
    shapes.append(_Rect(x0, y0, w, h, None, _BLACK, thick))
    return shapes + texts


def _pack(boxes: list[_Box], width: float, height: float | None) -> list[tuple[list[_Shape], float, float]]:
    """Boxes in rows (left to right, rows top-aligned) no wider than ``width``, rows onto pages no
    taller than ``height`` (None: one page). Per page: its shapes, used width and height."""
    pages: list[tuple[list[_Shape], float, float]] = []
    shapes: list[_Shape] = []
    x = y = row_h = used_w = 0.0
    for box in boxes:
        if x > 0 and x + box.width > width + 1e-6:  # next row
            x, y, row_h = 0.0, y + row_h + _GAP_Y, 0.0
        if height is not None and y > 0 and y + box.height > height + 1e-6:  # next page
            pages.append((shapes, used_w, y - _GAP_Y))
            shapes, x, y, row_h, used_w = [], 0.0, 0.0, 0.0, 0.0
        shapes += [s.moved(x, y) for s in box.shapes]
        used_w = max(used_w, x + box.width)
        row_h = max(row_h, box.height)
        x += box.width + _GAP_X
    pages.append((shapes, used_w, y + row_h))
    return pages


# ---------------------------------------------------------------------------------------------
# Drawing: PDF (fpdf2), SVG (text), PNG (the PDF rendered by pypdfium2)


def _pdf(pages: list[_Page], *, title: str) -> bytes:
    from fpdf import FPDF

    pdf = FPDF(unit="mm", format=(pages[0].width, pages[0].height))
    pdf.set_auto_page_break(False)
    pdf.set_margins(0, 0, 0)
    pdf.set_title(title)
    pdf.set_creator("kakuro")
    for page in pages:
        pdf.add_page(format=(page.width, page.height))
        for s in page.shapes:
            if isinstance(s, _Rect):
                style = ("F" if s.fill else "") + ("D" if s.stroke else "")
                if s.fill:
                    pdf.set_fill_color(*s.fill)
                if s.stroke:
                    pdf.set_draw_color(*s.stroke)
                    pdf.set_line_width(s.line_w)
                pdf.rect(s.x, s.y, s.w, s.h, style=style)
            elif isinstance(s, _Line):
                pdf.set_draw_color(*s.color)
                pdf.set_line_width(s.line_w)
                pdf.line(s.x1, s.y1, s.x2, s.y2)
            else:
                pdf.set_font("helvetica", "B" if s.bold else "", s.size / _MM_PER_PT)
                pdf.set_text_color(*s.color)
                text = _clean(s.text)
                w = pdf.get_string_width(text)
                x = s.x - (w / 2 if s.anchor == "middle" else w if s.anchor == "end" else 0.0)
                pdf.text(x, s.y, text)
    return bytes(pdf.output())


def _svg(page: _Page) -> str:
    def color(rgb: tuple[int, int, int]) -> str:
        return "#%02x%02x%02x" % rgb

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{page.width:.2f}mm" height="{page.height:.2f}mm" '
           f'viewBox="0 0 {page.width:.3f} {page.height:.3f}" '
           'font-family="Helvetica, Arial, \'Liberation Sans\', sans-serif">',
           f'<rect width="{page.width:.3f}" height="{page.height:.3f}" fill="#ffffff"/>']
    for s in page.shapes:
        if isinstance(s, _Rect):
            paint = f'fill="{color(s.fill)}"' if s.fill else 'fill="none"'
            if s.stroke:
                paint += f' stroke="{color(s.stroke)}" stroke-width="{s.line_w:.3f}"'
            out.append(f'<rect x="{s.x:.3f}" y="{s.y:.3f}" width="{s.w:.3f}" height="{s.h:.3f}" {paint}/>')
        elif isinstance(s, _Line):
            out.append(f'<line x1="{s.x1:.3f}" y1="{s.y1:.3f}" x2="{s.x2:.3f}" y2="{s.y2:.3f}" '
                       f'stroke="{color(s.color)}" stroke-width="{s.line_w:.3f}"/>')
        else:
            weight = ' font-weight="bold"' if s.bold else ""
            out.append(f'<text x="{s.x:.3f}" y="{s.y:.3f}" font-size="{s.size:.3f}" text-anchor="{s.anchor}" '
                       f'fill="{color(s.color)}"{weight}>{escape(s.text)}</text>')
    out.append("</svg>\n")
    return "\n".join(out)


def _png(pdf: bytes) -> bytes:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        image = doc[0].render(scale=_PNG_DPI / 72).to_pil().convert("RGB")
    finally:
        doc.close()
    buf = io.BytesIO()
    image.save(buf, format="PNG", dpi=(_PNG_DPI, _PNG_DPI), optimize=True)
    return buf.getvalue()
