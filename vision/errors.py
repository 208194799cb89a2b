"""Domain errors raised by the vision stages.

Each message is one line that says what went wrong and what to try next; each class carries the
exit code a command ends with (see ``solver.errors.ExitCode``).
"""
from __future__ import annotations

from solver.errors import ExitCode, KakuroError

__all__ = ["VisionError", "ImageLoadError", "GridNotFoundError", "ClueReadError"]


class VisionError(KakuroError):
    """Base class of every error raised by ``vision``."""


class ImageLoadError(VisionError):
    """The input file could not be turned into an image.

    Parameters
    ----------
    path : str or os.PathLike
        The file that failed.
    reason : str
        One line saying why, and what to do next.
    """

    exit_code = ExitCode.input_file

    def __init__(self, path, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class GridNotFoundError(VisionError):
    """No puzzle grid was found on the image."""

    exit_code = ExitCode.grid_not_found

    def __init__(self, message: str = "no puzzle grid found; crop closer to the grid or photograph it flatter"):
        super().__init__(message)


class ClueReadError(VisionError):
    """The second clue reader (tesseract) is missing or failed. The pipeline reads on without its
    opinion (a warning says so); only a caller that asks tesseract directly sees this."""

    exit_code = ExitCode.missing_dependency
