"""Where the tests' data lies, and reading a transcription: written once for every test module.

Test modules import these as plain names (``from conftest import SAMPLES, load_transcription``),
as they import checks.py: pytest puts tests/ on sys.path (rootdir conftest, "prepend" import mode).
"""
from __future__ import annotations

from pathlib import Path

from solver.formats import load_puzzle

ROOT = Path(__file__).resolve().parent.parent
#: The product's bundled examples (named by README.md and samples/README.md): real photos, scans and
#: screenshots, each beside its hand transcription NAME.txt. Tests read them here; no copy of a sample
#: is kept under tests/.
SAMPLES = ROOT / "samples"
#: The tests' own images (renders, reshoots, styles), with their transcriptions where they have one.
IMAGES = ROOT / "tests" / "data" / "images"
CORPUS = ROOT / "tests" / "data" / "puzzles" / "corpus"
SEEDS = ROOT / "tests" / "data" / "puzzles" / "seeds"


def find_image(name: str) -> Path:
    """The file called ``name`` (an image or its transcription) in samples/ or tests/data/images/,
    for lists that name files of both folders. No name is in both."""
    found = [folder / name for folder in (SAMPLES, IMAGES) if (folder / name).exists()]
    if len(found) != 1:
        raise FileNotFoundError(f"{name}: expected in exactly one of samples/ and tests/data/images/, "
                                f"found {[str(p) for p in found]}")
    return found[0]


def read_tokens(path: Path) -> list[list[str]]:
    """A transcription's grid as written: its whitespace-separated tokens, row by row (blank lines
    skipped), read without the project's parser."""
    return [line.split() for line in Path(path).read_text().splitlines() if line.strip()]


def load_transcription(image: Path):
    """The puzzle transcribed beside an image: NAME.txt next to NAME.png (or .jpg), parsed."""
    image = Path(image)
    return load_puzzle(image.with_name(image.stem + ".txt"))


def assert_solved_as_transcribed(image: Path) -> None:
    """The one puzzle on ``image`` is solved, read as transcribed beside it (NAME.txt), and its
    solution is the transcription's."""
    from pipeline import solve_image
    from solver.formats import grid_tokens
    from solver.solve import solve_puzzle
    from vision.imageio import load_image

    truth = load_transcription(image)
    (res,) = solve_image(load_image(image))
    assert res.status == "solved", res.problems
    assert grid_tokens(res.puzzle) == grid_tokens(truth)
    assert dict(res.solution.values) == dict(solve_puzzle(truth).values)
