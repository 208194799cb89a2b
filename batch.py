"""Batch: folders of photos and PDF puzzle books, one page per unit of work, in parallel.

``run_batch`` solves every page with ``pipeline.solve_image`` in worker processes and writes,
for each page, the annotated image (in the input's format: a PDF page's as PNG), each puzzle's
JSON and text grid, and a record that lets an interrupted batch resume; then
``summary.csv``/``summary.json`` and, if asked, ``solved.pdf`` and ``answers.pdf``.
A page that fails is recorded with its reason and the batch goes on.
"""
from __future__ import annotations

import json
import logging
import multiprocessing
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from outputs import image_suffix, write_atomically, write_image
from pipeline import PuzzleResult, Status, annotate_image, solve_image, worst_exit_code
from solver.errors import ExitCode, KakuroError, PuzzleFormatError, exit_code_for
from solver.formats import format_text
from solver.techniques import grade
from vision.imageio import IMAGE_SUFFIXES, ImageInfo, load_image, read_image_info

__all__ = ["IMAGE_SUFFIXES", "BatchOptions", "PageJob", "PageResult", "expand_inputs", "process_page",
           "run_batch"]

log = logging.getLogger("kakuro")


@dataclass(frozen=True)
class BatchOptions:
    out_dir: Path
    dpi: int = 300
    time_limit_s: float = 10.0
    force: bool = False
    image_format: str | None = None  # a key of outputs.FORMATS; None: each page's image in its input's format


@dataclass(frozen=True)
class PageJob:
    source: Path
    page: int | None  # 0-based page of a PDF; None for an image file

    @property
    def stem(self) -> str:
        return self.source.stem + (f"-p{self.page + 1}" if self.page is not None else "")


@dataclass(frozen=True)
class PageResult:
    """What one page gave: one summary row per puzzle (or one row saying why the page failed)."""

    job: PageJob
    rows: tuple[dict[str, Any], ...]
    error: str | None = None
    exit_code: int = 0
    image: str | None = None  # the annotated page's file name in the out folder; None when none was written


def expand_inputs(inputs: list[str]) -> tuple[list[PageJob], list[PageResult]]:
    """Image files, folders (recursively) and PDFs -> page jobs; inputs that fail at once -> results."""
    from vision.imageio import count_pdf_pages

    jobs: list[PageJob] = []
    failed: list[PageResult] = []
    files: list[Path] = []
    for item in inputs:
        path = Path(item)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*")
                                if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES | {".pdf"}))
        else:
            files.append(path)
    for path in files:
        if path.suffix.lower() == ".pdf":
            try:
                jobs.extend(PageJob(path, i) for i in range(count_pdf_pages(path)))
            except KakuroError as exc:
                failed.append(_failed_page(PageJob(path, None), exc))
        else:
            jobs.append(PageJob(path, None))
    return jobs, failed


def _grade_of(res: PuzzleResult) -> str | None:
    """How hard a solved puzzle is for a person (``kakuro grade``); None for one not solved."""
    return grade(res.puzzle).grade if res.status == Status.solved and res.puzzle is not None else None


def _failed_page(job: PageJob, exc: BaseException) -> PageResult:
    message = str(exc)
    if not message.startswith(str(job.source)):
        message = f"{job.source}: {message}"
    if job.page is not None:
        message = f"{message} (page {job.page + 1})" if "page" not in message else message
    row = {"input": str(job.source), "page": None if job.page is None else job.page + 1, "index": None,
           "status": "error", "unique": None, "grade": None, "corrections": 0, "seconds": 0.0, "error": message}
    return PageResult(job, (row,), message, int(exit_code_for(exc)))


def _result_path(options: BatchOptions, job: PageJob) -> Path:
    return options.out_dir / f"{job.stem}.result.json"


def process_page(job: PageJob, options: BatchOptions) -> PageResult:
    """Read, solve and write the outputs of every puzzle on one page; never raises for bad input."""
    from vision.imageio import load_pdf_page

    done = _result_path(options, job)
    if done.exists() and not options.force:
        try:
            data = json.loads(done.read_text())
            image_name = data["image"] if "image" in data else _old_image_name(options, job)
            return PageResult(job, tuple(data["rows"]), data.get("error"), data.get("exit_code", 0), image_name)
        except (OSError, ValueError, KeyError):
            pass  # an unreadable record is redone
    start = time.perf_counter()
    image_name = None
    try:
        if job.page is not None:
            image = load_pdf_page(job.source, job.page, options.dpi)
            info = ImageInfo(format="PDF", dpi=(float(options.dpi), float(options.dpi)))
        else:
            image = load_image(job.source)
            info = read_image_info(job.source)
        results = solve_image(image, time_limit_s=options.time_limit_s)
    except (KakuroError, OSError, ValueError) as exc:
        result = _failed_page(job, exc)
    except Exception as exc:  # a bug on one page must not stop the book
        log.debug("page failed", exc_info=True)
        result = _failed_page(job, RuntimeError(f"internal error: {type(exc).__name__}: {exc}"))
        result = PageResult(job, result.rows, result.error, int(ExitCode.other_error))
    else:
        annotated = annotate_image(image, results)
        suffix = image_suffix(info, options.image_format)
        image_name = f"{job.stem}{suffix}"
        write_image(options.out_dir / image_name, annotated, info)
        rows = []
        for k, res in enumerate(results, start=1):
            name = job.stem + (f"-{k}" if len(results) > 1 else "")
            if res.puzzle is not None:
                values = dict(res.solution.values) if res.solution and res.status == Status.solved else None
                text = format_text(res.puzzle, values)
                write_atomically(options.out_dir / f"{name}.txt", lambda t, text=text: t.write_text(text))
            doc = {"input": str(job.source), "page": None if job.page is None else job.page + 1, "index": k,
                   **res.to_json()}
            write_atomically(options.out_dir / f"{name}.json", lambda t, doc=doc: t.write_text(json.dumps(doc)))
            if len(results) > 1 and res.corners_xy is not None:
                x0, y0 = np.maximum(res.corners_xy.min(axis=0) - 20, 0).astype(int)
                x1, y1 = (res.corners_xy.max(axis=0) + 20).astype(int)
                write_image(options.out_dir / f"{name}{suffix}", annotated[y0:y1, x0:x1], info)
            rows.append({"input": str(job.source), "page": doc["page"], "index": k, "status": res.status,
                         "unique": doc["unique"], "grade": _grade_of(res), "corrections": len(res.corrections),
                         "seconds": round(res.seconds, 3), "error": "; ".join(res.problems) or None})
        code = worst_exit_code(r.status for r in results)
        result = PageResult(job, tuple(rows), None, int(code), image_name)
    seconds = round(time.perf_counter() - start, 3)
    record = {"rows": list(result.rows), "error": result.error, "exit_code": result.exit_code, "seconds": seconds,
              "image": result.image}
    write_atomically(done, lambda t: t.write_text(json.dumps(record)))
    return result


def _old_image_name(options: BatchOptions, job: PageJob) -> str | None:
    """The annotated page of a record written before records named it: always a PNG then."""
    name = f"{job.stem}.png"
    return name if (options.out_dir / name).exists() else None


def _init_worker() -> None:
    import cv2

    from vision.glyphs import default_classifier

    cv2.setNumThreads(1)
    # The pool keeps every core busy: numpy threading its matrix products on top oversubscribes
    # them (2 jobs on 2 cores gave 1.39x the pages of 1 job, 1.78x with one thread each).
    threadpool_limits(limits=1)
    # Ctrl-C is the parent's to handle: it cancels the pool, workers just stop.
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    default_classifier()


def _write_summary(out_dir: Path, results: list[PageResult]) -> None:
    import csv
    import io

    rows = [row for r in results for row in r.rows]
    write_atomically(out_dir / "summary.json", lambda t: t.write_text(json.dumps(rows, indent=1)))
    buf = io.StringIO()
    fields = ["input", "page", "index", "status", "unique", "grade", "corrections", "seconds", "error"]
    writer = csv.DictWriter(buf, fieldnames=fields)
    writer.writeheader()
    writer.writerows(rows)
    write_atomically(out_dir / "summary.csv", lambda t: t.write_text(buf.getvalue()))


def _write_book(out_dir: Path, results: list[PageResult]) -> Path | None:
    """``solved.pdf``: every annotated page in page order, a page at a time (see ``outputs.write_pdf_book``);
    None when no page has an annotated image."""
    from outputs import write_pdf_book

    pages = [out_dir / r.image for r in results if r.image is not None and (out_dir / r.image).exists()]
    target = out_dir / "solved.pdf"
    return target if write_pdf_book(target, pages) else None


def _write_answers(out_dir: Path, results: list[PageResult]) -> Path | None:
    """``answers.pdf``: every puzzle in page order, solved ones drawn flat, the others (and failed
    pages) listed with their status (see ``flat.write_answer_key``). Each puzzle comes from its JSON
    file in ``out_dir``, so pages skipped as done on a resumed run are in it too. None when no row."""
    from flat import entry_from_json, write_answer_key

    entries = []
    for r in results:
        for row in r.rows:
            doc = dict(row)
            if row["index"] is not None:
                name = r.job.stem + (f"-{row['index']}" if len(r.rows) > 1 else "")
                try:
                    doc = {**json.loads((out_dir / f"{name}.json").read_text()), **row}
                except (OSError, ValueError) as exc:
                    log.warning("%s.json: %s; listed in the answer key without its grid", name, exc)
                    doc["error"] = f"{name}.json could not be read" + (f"; {row['error']}" if row["error"] else "")
            try:
                entries.append(entry_from_json(doc))
            except KakuroError as exc:  # a per-puzzle file edited by hand into something else
                entries.append(entry_from_json({**row, "grid": None, "problems": [str(exc)]}))
    target = out_dir / "answers.pdf"
    return target if write_answer_key(entries, target) else None


@dataclass(frozen=True)
class BatchReport:
    """What a batch did: one ``PageResult`` per page in input order, and the book and answer key
    if asked for."""

    pages: tuple[PageResult, ...]
    book: Path | None = None
    answers: Path | None = None

    @property
    def rows(self) -> list[dict[str, Any]]:
        """Every summary row: one per puzzle, or one per failed page."""
        return [row for r in self.pages for row in r.rows]

    @property
    def failed_pages(self) -> int:
        return sum(1 for r in self.pages if r.error)

    @property
    def exit_code(self) -> ExitCode:
        everything_fine = self.failed_pages == 0 and all(Status(row["status"]).settled
                                                         for row in self.rows if row["status"] != "error")
        return ExitCode.ok if everything_fine else ExitCode.partial_batch


def run_batch(inputs: list[str], options: BatchOptions, *, jobs: int = 1, pdf: bool = False,
              answers: bool = False, fail_fast: bool = False, show_progress: bool = False) -> BatchReport:
    """Solve every page of ``inputs`` (image files, folders searched recursively, PDFs) with
    ``jobs`` worker processes, writing each page's outputs and the summary into ``options.out_dir``.

    Raises
    ------
    PuzzleFormatError
        ``inputs`` hold no image and no PDF.
    """
    from concurrent.futures import ProcessPoolExecutor, as_completed

    options.out_dir.mkdir(parents=True, exist_ok=True)
    page_jobs, results = expand_inputs(inputs)
    for r in results:
        log.warning("%s", r.error)
    if not page_jobs and not results:
        raise PuzzleFormatError("no images or PDFs found in " + ", ".join(inputs))
    progress = None
    if show_progress:
        from rich.progress import Progress

        progress = Progress(transient=False)
        progress.add_task("pages", total=len(page_jobs))
        progress.start()
    try:
        if jobs <= 1 or len(page_jobs) == 1:
            _init_worker_parent()
            with threadpool_limits(limits=1):  # one job is one core, as in each worker
                for job in page_jobs:
                    results.append(_report(process_page(job, options), progress, fail_fast))
        else:
            # "spawn": forking a parent whose OpenCV/OR-Tools threads may hold locks can hang a worker.
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(min(jobs, len(page_jobs)), mp_context=context,
                                     initializer=_init_worker) as pool:
                futures = [pool.submit(process_page, job, options) for job in page_jobs]
                try:
                    for fut in as_completed(futures):
                        results.append(_report(fut.result(), progress, fail_fast))
                except BaseException:
                    for f in futures:
                        f.cancel()
                    raise
    except _FailFast as stop:
        results.append(stop.result)
    finally:
        if progress is not None:
            progress.stop()
    order = {job: i for i, job in enumerate(page_jobs)}
    results.sort(key=lambda r: (order.get(r.job, -1), str(r.job.source)))
    _write_summary(options.out_dir, results)
    book = _write_book(options.out_dir, results) if pdf else None
    answer_key = _write_answers(options.out_dir, results) if answers else None
    return BatchReport(tuple(results), book, answer_key)


class _FailFast(Exception):
    """The first page that failed, with --fail-fast: it still goes into the summary."""

    def __init__(self, result: PageResult):
        super().__init__(str(result.job.source))
        self.result = result


def _init_worker_parent() -> None:
    from vision.glyphs import default_classifier

    default_classifier()


def _report(result: PageResult, progress, fail_fast: bool) -> PageResult:
    where = str(result.job.source) + (f" page {result.job.page + 1}" if result.job.page is not None else "")
    if result.error:
        log.warning("%s", result.error)
    else:
        for row in result.rows:
            if not Status(row["status"]).settled:
                log.warning("%s puzzle %s: %s%s", where, row["index"], row["status"],
                            f": {row['error']}" if row["error"] else "")
    if progress is not None:
        progress.advance(progress.task_ids[0])
    if fail_fast and (result.error or any(not Status(row["status"]).settled for row in result.rows)):
        raise _FailFast(result)
    return result
