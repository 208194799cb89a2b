"""Rebuild ``vision/data/number_templates.npz``: the numbers 1-45 that ``vision.templates``
matches small numbers in discs against.

Each number is rendered in every upright training font of ``tools/train_glyphs.py`` (its held-out
families stay out, so tests on them measure fonts never seen), blurred by several amounts
relative to its height (a sharp scan to a soft phone photo), cut where the blur fades below a
quarter of the ink (as the reader cuts a disc's digits) and scaled into the reader's view.

Usage: ``python tools/make_number_templates.py [--out vision/data/number_templates.npz]``
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT, ROOT / "tools"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from train_glyphs import training_fonts  # noqa: E402
from vision.ocr import CLUE_MAX, CLUE_MIN  # noqa: E402
from vision.templates import TEMPLATES_PATH, number_view  # noqa: E402

#: Blur (Gaussian sigma) as a share of the digits' height.
BLURS = (0.03, 0.07, 0.11, 0.15)
#: The share of the ink's strength below which the reader's digit map is empty.
_CUT = 0.25
_SIZE = 120  # pixels the numbers are rendered at before blurring and scaling


def _render(font_path: str, text: str) -> np.ndarray:
    font = ImageFont.truetype(font_path, _SIZE)
    image = Image.new("L", (_SIZE * 3, _SIZE * 2), 0)
    ImageDraw.Draw(image).text((20, _SIZE // 2), text, font=font, fill=255)
    ink = np.asarray(image, np.float32) / 255.0
    ys, xs = np.nonzero(ink > 0.5)
    return ink[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]


def number_rendering(font_path: str, number: int, blur: float) -> np.ndarray:
    """One number as the reader would see it: blurred, cut at :data:`_CUT`, in its view."""
    ink = _render(font_path, str(number))
    sigma = blur * ink.shape[0]
    ink = cv2.GaussianBlur(np.pad(ink, int(4 * sigma) + 2), (0, 0), sigma)
    ink /= ink.max()
    ink[ink < _CUT] = 0.0
    return number_view(ink)


def upright_fonts() -> list[str]:
    return [f for f in training_fonts() if not any(k in Path(f).name for k in ("Italic", "Oblique", "BdIta"))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=TEMPLATES_PATH)
    args = parser.parse_args(argv)
    fonts = upright_fonts()
    if not fonts:
        print("no training fonts found (make setup installs them)", file=sys.stderr)
        return 1
    views = np.stack([np.stack([number_rendering(f, n, b) for f in fonts for b in BLURS])
                      for n in range(CLUE_MIN, CLUE_MAX + 1)])
    np.savez_compressed(args.out, views=np.clip(np.rint(views * 255), 0, 255).astype(np.uint8),
                        fonts=np.array([Path(f).name for f in fonts]), blurs=np.array(BLURS))
    print(f"{views.shape[0]} numbers x {views.shape[1]} renderings ({len(fonts)} fonts) -> {args.out}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
