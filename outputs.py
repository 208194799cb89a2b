"""Output files, written so that none is ever seen half-written: the CLI's and the batch's."""
from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from pipeline import PuzzleResult
from solver.errors import PuzzleFormatError

__all__ = ["write_atomically", "write_image", "write_debug"]

log = logging.getLogger("kakuro")


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


def write_image(path: Path, image: np.ndarray) -> None:
    def write(tmp: Path) -> None:
        ok, buf = cv2.imencode(path.suffix or ".png", image)
        if not ok:
            raise PuzzleFormatError(f"{path}: cannot encode an image with suffix {path.suffix!r}")
        tmp.write_bytes(buf.tobytes())

    write_atomically(path, write)


def write_debug(folder: Path, stem: str, image: np.ndarray, results: list[PuzzleResult]) -> None:
    from vision.debug import draw_stages

    readings = [r.reading for r in results if r.reading is not None]
    pictures = draw_stages(image, [r.corners_xy for r in results if r.corners_xy is not None], readings)
    for name, picture in pictures.items():
        write_image(folder / f"{stem}-{name}.png", picture)
    log.info("stage pictures written to %s", folder)
