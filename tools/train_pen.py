"""Rebuild ``vision/data/pen_glyphs.npz``: the handwritten-digit classifier of ``vision.written``.

No handwriting data set can be downloaded here (only the package registries are reachable), so
the digits are made, from four sources:

* **pen strokes**: each digit drawn as spline strokes through jittered control points, in the
  variants people write (a "1" with or without flag and foot, an open or closed "4", a "7" with a
  crossbar, an "8" as two loops or one twisted stroke, a "9" with a straight or curled tail, ...);
* **Hershey stroke fonts**: every face OpenCV draws with ``cv2.putText`` (simplex, plain, duplex,
  complex, triplex, small, script simplex and script complex; upright and italic), at random
  thickness;
* **handwriting-like fonts** found on this machine (``PEN_FONT_PATTERNS``: Debian's
  fonts-humor-sans, fonts-comic-neue, fonts-breip, fonts-femkeklaver, fonts-dancingscript, used
  where installed);
* **real handwriting**: the 1,797 8x8 digits that scikit-learn ships inside its wheel
  (``sklearn.datasets.load_digits``; used where scikit-learn is installed), scaled up and
  re-inked.

Each digit is then jittered (rotation, shear, scale, aspect, elastic distortion, stroke width
and pressure) and drawn in a white cell as a photo shows one: pen colours (black, blue, grey
pencil, red) on paper tones with uneven light, the cell's border lines at random offsets and
widths, a neighbouring clue cell's tint and diagonal at an edge, off-centre placement and digits
running over a border, pencilled notes in a corner, blur, noise, JPEG loss, and a small source
cell scaled up as the rectified grid is. The cell is cut by ``vision.written.cut_written_glyph``,
exactly as the reader cuts it, and that glyph is the training sample. An eleventh class holds ink
that is not one digit: scribbles, crossed-out digits, two digits overwritten or side by side,
blots, border and diagonal fragments, specks on an empty cell.

``HOLDOUT_FONT`` (Z003, a chancery hand, the pen font of ``synthetic/``) is never used here:
``tests/test_written.py`` draws half-filled cells with it to measure the reader on a hand it has
not seen.

The network is the one of ``vision.glyphs`` (``tools/train_glyphs.py`` trains and saves it the
same way), so ``vision.glyphs.GlyphClassifier`` runs these weights. PyTorch is needed only here:
``pip install torch --index-url https://download.pytorch.org/whl/cpu``; scikit-learn and the
font packages are optional extra sources.

Usage: ``python tools/train_pen.py [--out vision/data/pen_glyphs.npz] [--cells 80000] [--epochs 12]
[--seed 0] [--jobs 2] [--threads 1] [--cache pen-cells.npz]``
"""
from __future__ import annotations

import argparse
import glob
import math
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT, ROOT / "tools"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from vision.glyphs import REJECT, GlyphClassifier, glyph_inputs  # noqa: E402
from vision.written import cut_written_glyph  # noqa: E402

#: Handwriting-like font files used for training where installed.
PEN_FONT_PATTERNS = ["Humor-Sans", "ComicNeue-", "Breip", "breipfont", "femkeklaver", "DancingScript-"]
#: The hand kept out of training: the tests draw cells with it.
HOLDOUT_FONT = "Z003"
HERSHEY_FACES = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_DUPLEX,
                 cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX_SMALL,
                 cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SCRIPT_COMPLEX]

_H = 100  # height digits are drawn at before they are jittered and scaled into a cell


# --------------------------------------------------------------------------------------------
# Sources of digit shapes: float ink maps (1 = ink), about _H pixels tall, cropped with a margin


def _ellipse(cx: float, cy: float, rx: float, ry: float, start: float = -0.5, turns: float = 1.08
             ) -> list[tuple[float, float]]:
    t = np.linspace(start * math.pi, (start + 2 * turns) * math.pi, 14)
    return [(cx + rx * math.cos(a), cy + ry * math.sin(a)) for a in t]


#: Each digit's ways of writing it: strokes of control points in a unit box (x right, y down);
#: a stroke is a smooth curve through its points, corners are where two strokes meet.
STROKES: dict[int, list[list[list[tuple[float, float]]]]] = {
    0: [[_ellipse(0.5, 0.5, 0.42, 0.5)], [_ellipse(0.5, 0.5, 0.36, 0.5, start=-0.6, turns=1.0)]],
    1: [[[(0.5, 0.0), (0.5, 1.0)]],
        [[(0.45, 0.0), (0.53, 0.5), (0.48, 1.0)]],
        [[(0.15, 0.3), (0.55, 0.0)], [(0.55, 0.0), (0.52, 1.0)]],
        [[(0.15, 0.3), (0.55, 0.0)], [(0.55, 0.0), (0.55, 1.0)], [(0.15, 1.0), (0.9, 1.0)]]],
    2: [[[(0.12, 0.28), (0.3, 0.05), (0.6, 0.0), (0.85, 0.2), (0.8, 0.45), (0.45, 0.75), (0.1, 1.0)],
         [(0.1, 1.0), (0.9, 0.98)]],
        [[(0.12, 0.28), (0.35, 0.02), (0.7, 0.02), (0.85, 0.25), (0.7, 0.5), (0.2, 0.9), (0.15, 1.0),
          (0.3, 0.86), (0.5, 0.93), (0.9, 1.0)]],
        [[(0.12, 0.2), (0.4, 0.0), (0.8, 0.1), (0.75, 0.35), (0.1, 1.0)], [(0.1, 1.0), (0.9, 1.0)]],
        [[(0.15, 0.25), (0.45, 0.0), (0.8, 0.15), (0.7, 0.45), (0.2, 0.95)],
         [(0.2, 0.95), (0.5, 0.9), (0.9, 1.0)]],
        # a curl at the start, a loop at the bottom and a long diagonal tail, no base
        [[(0.22, 0.4), (0.1, 0.2), (0.3, 0.02), (0.6, 0.05), (0.62, 0.3), (0.25, 0.7), (0.15, 0.8), (0.3, 0.75),
          (0.55, 0.8), (0.95, 1.0)]]],
    3: [[[(0.12, 0.15), (0.45, 0.0), (0.8, 0.12), (0.78, 0.35), (0.4, 0.48)],
         [(0.4, 0.48), (0.8, 0.58), (0.88, 0.82), (0.55, 1.0), (0.12, 0.88)]],
        [[(0.12, 0.0), (0.85, 0.0)], [(0.85, 0.0), (0.4, 0.42)],
         [(0.4, 0.42), (0.8, 0.52), (0.9, 0.78), (0.55, 1.0), (0.12, 0.88)]],
        [[(0.15, 0.12), (0.5, 0.0), (0.8, 0.15), (0.7, 0.4), (0.45, 0.5), (0.85, 0.65), (0.8, 0.9),
          (0.45, 1.0), (0.1, 0.85)]]],
    4: [[[(0.72, 1.0), (0.72, 0.0)], [(0.72, 0.0), (0.05, 0.68)], [(0.05, 0.68), (0.95, 0.68)]],
        [[(0.3, 0.0), (0.12, 0.62)], [(0.12, 0.62), (0.92, 0.6)], [(0.7, 0.2), (0.7, 1.0)]],
        [[(0.25, 0.0), (0.1, 0.55), (0.2, 0.6)], [(0.2, 0.6), (0.9, 0.55)], [(0.72, 0.1), (0.75, 1.0)]],
        [[(0.3, 0.0), (0.1, 0.65)], [(0.1, 0.65), (0.75, 0.62)], [(0.75, 0.62), (0.9, 0.5)],
         [(0.65, 0.3), (0.68, 1.0)]]],
    5: [[[(0.85, 0.0), (0.25, 0.02)], [(0.25, 0.02), (0.2, 0.45)],
         [(0.2, 0.45), (0.55, 0.38), (0.85, 0.6), (0.82, 0.88), (0.45, 1.0), (0.1, 0.88)]],
        [[(0.3, 0.05), (0.22, 0.45)], [(0.22, 0.45), (0.55, 0.38), (0.85, 0.62), (0.78, 0.9), (0.45, 1.0),
                                         (0.12, 0.85)], [(0.36, 0.0), (0.9, 0.0)]],
        [[(0.88, 0.05), (0.4, 0.05)], [(0.4, 0.05), (0.3, 0.45)],
         [(0.3, 0.45), (0.7, 0.45), (0.82, 0.75), (0.5, 1.0), (0.2, 0.9)]]],
    6: [[[(0.75, 0.0), (0.4, 0.2), (0.18, 0.6), (0.3, 0.95), (0.65, 0.98), (0.85, 0.75), (0.7, 0.5),
          (0.35, 0.52), (0.2, 0.7)]],
        [[(0.65, 0.0), (0.25, 0.6), (0.3, 0.95), (0.65, 0.98), (0.82, 0.72), (0.6, 0.5), (0.3, 0.6)]],
        [[(0.8, 0.05), (0.5, 0.0), (0.25, 0.3), (0.2, 0.7), (0.45, 1.0), (0.8, 0.85), (0.75, 0.55),
          (0.4, 0.5), (0.22, 0.65)]]],
    7: [[[(0.1, 0.0), (0.9, 0.0)], [(0.9, 0.0), (0.4, 1.0)]],
        [[(0.1, 0.0), (0.9, 0.0)], [(0.9, 0.0), (0.45, 1.0)], [(0.3, 0.52), (0.85, 0.5)]],
        [[(0.08, 0.15), (0.1, 0.0), (0.9, 0.02)], [(0.9, 0.02), (0.6, 0.5), (0.5, 1.0)]],
        [[(0.1, 0.05), (0.85, 0.0)], [(0.85, 0.0), (0.6, 0.45), (0.55, 1.0)], [(0.2, 0.6), (0.9, 0.55)]]],
    8: [[[(0.78, 0.15), (0.5, 0.0), (0.2, 0.15), (0.3, 0.38), (0.7, 0.6), (0.82, 0.85), (0.5, 1.0),
          (0.18, 0.85), (0.3, 0.6), (0.7, 0.38), (0.8, 0.15), (0.55, 0.0)]],
        [_ellipse(0.5, 0.24, 0.3, 0.24), _ellipse(0.5, 0.72, 0.38, 0.28)],
        [[(0.75, 0.05), (0.35, 0.0), (0.2, 0.2), (0.3, 0.45), (0.6, 0.7), (0.7, 0.9), (0.5, 1.0), (0.35, 0.85),
          (0.5, 0.6), (0.7, 0.3), (0.72, 0.0)]],
        # one stroke with a big top loop and the bottom loop closed to a blob
        [[(0.8, 0.05), (0.35, 0.05), (0.12, 0.3), (0.35, 0.55), (0.6, 0.8), (0.58, 0.98), (0.45, 0.92),
          (0.55, 0.72), (0.75, 0.35), (0.8, 0.05)]]],
    9: [[[(0.82, 0.2), (0.55, 0.0), (0.2, 0.12), (0.18, 0.38), (0.5, 0.5), (0.8, 0.35)], [(0.82, 0.05), (0.8, 1.0)]],
        [[(0.82, 0.2), (0.55, 0.0), (0.2, 0.12), (0.18, 0.38), (0.5, 0.5), (0.8, 0.3), (0.82, 0.1), (0.8, 0.5),
          (0.7, 0.85), (0.45, 1.0)]],
        [[(0.8, 0.15), (0.5, 0.0), (0.2, 0.15), (0.25, 0.42), (0.55, 0.45), (0.8, 0.2), (0.78, 0.6),
          (0.75, 1.0)]],
        # a small loop on a long stem
        [[(0.85, 0.12), (0.55, 0.0), (0.25, 0.08), (0.25, 0.3), (0.55, 0.35), (0.85, 0.15)],
         [(0.85, 0.05), (0.82, 1.0)]]],
}


def _spline(points: np.ndarray, per_segment: int = 12) -> np.ndarray:
    """A Catmull-Rom curve through ``points`` (K, 2)."""
    if len(points) < 3:
        t = np.linspace(0, 1, per_segment)[:, None]
        return points[0] * (1 - t) + points[-1] * t
    p = np.vstack([2 * points[0] - points[1], points, 2 * points[-1] - points[-2]])
    out = []
    t = np.linspace(0, 1, per_segment, endpoint=False)[:, None]
    for i in range(1, len(p) - 2):
        p0, p1, p2, p3 = p[i - 1], p[i], p[i + 1], p[i + 2]
        out.append(0.5 * (2 * p1 + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t ** 2
                          + (-p0 + 3 * p1 - 3 * p2 + p3) * t ** 3))
    out.append(p[-2][None])
    return np.vstack(out)


def stroke_digit(rng: np.random.Generator, digit: int, variant: int | None = None) -> np.ndarray:
    """A digit written with spline strokes through jittered control points."""
    variants = STROKES[digit]
    strokes = variants[int(rng.integers(len(variants))) if variant is None else variant]
    width = rng.uniform(0.32, 0.8) * _H if digit != 1 else rng.uniform(0.25, 0.6) * _H
    thick = float(np.exp(rng.uniform(np.log(0.03), np.log(0.11)))) * _H
    scale = 4  # drawn large, then reduced: smooth edges
    margin = int(thick) + 6
    canvas = np.zeros(((_H + 2 * margin) * scale // 2, (int(width) + 2 * margin) * scale // 2), np.uint8)
    jit = rng.uniform(0.015, 0.05)
    shared = {}
    for stroke in strokes:
        pts = []
        for x, y in stroke:
            # Shared corners move together so strokes stay joined.
            key = (round(x, 3), round(y, 3))
            if key not in shared:
                shared[key] = rng.normal(0, jit, 2)
            dx, dy = shared[key]
            pts.append(((x + dx) * width + margin, (y + dy) * _H + margin))
        curve = _spline(np.array(pts, np.float64)) * (scale / 2)
        # Pen pressure: the width drifts along the stroke.
        widths = thick * np.exp(np.cumsum(rng.normal(0, 0.05, len(curve))).clip(-0.4, 0.4))
        for a, b, w in zip(curve[:-1], curve[1:], widths):
            cv2.line(canvas, (int(a[0] * 8), int(a[1] * 8)), (int(b[0] * 8), int(b[1] * 8)), 255,
                     max(1, int(round(w * scale / 2))), cv2.LINE_AA, shift=3)
    small = cv2.resize(canvas, (canvas.shape[1] * 2 // scale, canvas.shape[0] * 2 // scale),
                       interpolation=cv2.INTER_AREA)
    return small.astype(np.float32) / 255.0


def hershey_digit(rng: np.random.Generator, digit: int) -> np.ndarray:
    """A digit in one of OpenCV's Hershey stroke fonts, upright or italic, at random thickness."""
    face = int(rng.choice(HERSHEY_FACES)) | (cv2.FONT_ITALIC if rng.random() < 0.4 else 0)
    (w, h), _ = cv2.getTextSize(str(digit), face, 1.0, 1)
    scale = _H / max(h, 1)
    thick = max(1, int(round(float(np.exp(rng.uniform(np.log(0.03), np.log(0.1)))) * _H)))
    pad = thick + 10
    img = np.zeros((int(_H * 1.5) + 2 * pad, int(w * scale * 1.3) + 2 * pad + _H // 3), np.uint8)
    cv2.putText(img, str(digit), (pad, pad + _H), face, scale, 255, thick, cv2.LINE_AA)
    return _crop(img.astype(np.float32) / 255.0)


_FONT_CACHE: dict[tuple[str, int], np.ndarray] = {}


def pen_font_files(include_holdout: bool = False) -> list[str]:
    """Handwriting-like font files on this machine (the held-out one only when asked)."""
    files = sorted(glob.glob("/usr/share/fonts/**/*.[ot]tf", recursive=True))
    patterns = [HOLDOUT_FONT] if include_holdout else PEN_FONT_PATTERNS
    return [f for f in files if any(os.path.basename(f).startswith(p) for p in patterns)]


def font_digit(path: str, digit: int) -> np.ndarray:
    """A digit drawn with a font file, about _H pixels tall."""
    key = (path, digit)
    if key not in _FONT_CACHE:
        font = ImageFont.truetype(path, int(_H * 1.4))
        im = Image.new("L", (int(_H * 2.5), int(_H * 2.5)), 0)
        ImageDraw.Draw(im).text((_H // 2, _H // 3), str(digit), font=font, fill=255)
        ink = _crop(np.asarray(im, np.float32) / 255.0)
        f = _H / max(1, ink.shape[0] - 12)
        _FONT_CACHE[key] = cv2.resize(ink, (max(4, round(ink.shape[1] * f)), max(4, round(ink.shape[0] * f))),
                                      interpolation=cv2.INTER_AREA)
    return _FONT_CACHE[key]


_SKLEARN: dict[int, np.ndarray] | None = None


def sklearn_digits() -> dict[int, np.ndarray]:
    """scikit-learn's 8x8 handwritten digits by label (empty where scikit-learn is missing)."""
    global _SKLEARN
    if _SKLEARN is None:
        try:
            from sklearn.datasets import load_digits
        except ImportError:
            _SKLEARN = {}
        else:
            data = load_digits()
            _SKLEARN = {d: data.images[data.target == d].astype(np.float32) / 16.0 for d in range(10)}
    return _SKLEARN


def sklearn_digit(rng: np.random.Generator, digit: int) -> np.ndarray:
    """One of scikit-learn's 8x8 handwritten digits, scaled up smoothly and re-inked at a random
    threshold (its strokes' width)."""
    pool = sklearn_digits()[digit]
    small = pool[int(rng.integers(len(pool)))]
    big = cv2.resize(np.pad(small, 1), (10 * 12, 10 * 12), interpolation=cv2.INTER_CUBIC)
    big = cv2.GaussianBlur(big, (0, 0), 2.0)
    level = rng.uniform(0.45, 0.7) * float(big.max())
    ink = np.clip((big - level) / 0.08, 0, 1).astype(np.float32)
    return _crop(ink)


def _crop(ink: np.ndarray, pad: int = 6) -> np.ndarray:
    ys, xs = np.nonzero(ink > 0.05)
    if ys.size == 0:
        return np.zeros((8, 8), np.float32)
    return np.pad(ink[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1], pad)


def any_digit(rng: np.random.Generator, digit: int, fonts: list[str]) -> np.ndarray:
    """A digit from a source drawn at random (pen strokes most often)."""
    r = rng.random()
    have_sk = bool(sklearn_digits())
    if r < 0.5 or (r >= 0.9 and not have_sk) or (0.7 <= r < 0.9 and not fonts):
        return stroke_digit(rng, digit)
    if r < 0.7:
        return hershey_digit(rng, digit)
    if r < 0.9:
        return font_digit(fonts[int(rng.integers(len(fonts)))], digit)
    return sklearn_digit(rng, digit)


# --------------------------------------------------------------------------------------------
# Jitter


def jitter(ink: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """Rotation, shear, aspect, elastic distortion and stroke width of one digit's ink."""
    a = ink
    k = int(rng.integers(-2, 3)) if rng.random() < 0.4 else 0
    if k:
        ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(k) + 1, 2 * abs(k) + 1))
        thinner = cv2.erode(a, ker) if k < 0 else cv2.dilate(a, ker)
        if k > 0 or thinner.max() > 0.5:
            a = thinner
    pad = int(0.35 * max(a.shape))
    a = cv2.copyMakeBorder(a, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    h, w = a.shape
    ang = math.radians(rng.uniform(-15, 15) * strength)
    shear = rng.uniform(-0.35, 0.35) * strength
    sx = float(np.exp(rng.normal(0, 0.15)))
    c, s = math.cos(ang), math.sin(ang)
    m = np.array([[c * sx, -s + shear, 0], [s * sx, c, 0]], np.float32)
    centre = np.array([w / 2, h / 2], np.float32)
    m[:, 2] = centre - m[:, :2] @ centre
    a = cv2.warpAffine(a, m, (w, h), flags=cv2.INTER_LINEAR)
    if rng.random() < 0.7:
        # Elastic: a smooth random displacement field.
        alpha = rng.uniform(1.5, 5.0) * strength * _H / 100
        grid = max(3, int(rng.integers(3, 7)))
        dx = cv2.resize(rng.normal(0, 1, (grid, grid)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        dy = cv2.resize(rng.normal(0, 1, (grid, grid)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = cv2.remap(a, xx + alpha * dx, yy + alpha * dy, cv2.INTER_LINEAR)
    return _crop(a)


# --------------------------------------------------------------------------------------------
# A white cell as photographed


_PAPER_TINTS = [(0, 0, 0), (-6, 0, 6), (6, 2, -4), (-10, -4, 2)]
_CLUE_FILLS = [(150, 210, 160), (200, 200, 200), (120, 120, 120), (40, 40, 40), (210, 190, 150), (170, 220, 230)]


def _ink_colour(rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """A pen's colour (BGR) and opacity."""
    r = rng.random()
    if r < 0.35:    # black / dark ballpoint
        v = rng.uniform(10, 70)
        return np.array([v + rng.uniform(0, 25), v, v], np.float32), rng.uniform(0.75, 1.0)
    if r < 0.7:     # blue pen
        return np.array([rng.uniform(110, 210), rng.uniform(30, 110), rng.uniform(5, 60)], np.float32), \
            rng.uniform(0.7, 1.0)
    if r < 0.88:    # pencil
        v = rng.uniform(50, 120)
        return np.array([v, v, v], np.float32), rng.uniform(0.55, 0.9)
    if r < 0.95:    # red
        return np.array([rng.uniform(20, 70), rng.uniform(20, 60), rng.uniform(150, 220)], np.float32), \
            rng.uniform(0.75, 1.0)
    return np.array([rng.uniform(60, 120), rng.uniform(90, 140), rng.uniform(10, 50)], np.float32), \
        rng.uniform(0.75, 1.0)  # green


def _place(canvas_a: np.ndarray, ink: np.ndarray, cx: float, cy: float, height: float) -> None:
    """Add ``ink`` scaled to ``height`` pixels, centred at (cx, cy), into the alpha map."""
    f = height / max(1, ink.shape[0] - 12)
    nh, nw = max(2, round(ink.shape[0] * f)), max(2, round(ink.shape[1] * f))
    g = cv2.resize(ink, (nw, nh), interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)
    y0, x0 = int(round(cy - nh / 2)), int(round(cx - nw / 2))
    H, W = canvas_a.shape
    ys, xs = max(0, y0), max(0, x0)
    ye, xe = min(H, y0 + nh), min(W, x0 + nw)
    if ye <= ys or xe <= xs:
        return
    part = canvas_a[ys:ye, xs:xe]
    np.maximum(part, g[ys - y0: ye - y0, xs - x0: xe - x0], out=part)


def draw_cell(rng: np.random.Generator, glyphs: list[tuple[np.ndarray, float, float, float]],
              *, marks: list[np.ndarray] = ()) -> np.ndarray:
    """A white cell photographed, BGR uint8, holding ``glyphs`` in one pen.

    ``glyphs``: (ink, centre x, centre y, height), positions and height as shares of the cell's
    side. ``marks``: extra ink maps already at the cell's frame (scribbles), in the same pen.
    """
    src = int(rng.integers(16, 90))            # the cell's side in the photo
    big = 2 * src                              # drawn at twice that, then reduced
    tint = np.array(_PAPER_TINTS[int(rng.integers(len(_PAPER_TINTS)))], np.float32)
    level = rng.uniform(140, 250)
    paper = np.full((big, big, 3), level, np.float32) + tint
    # Uneven light across the cell.
    gy, gx = np.mgrid[0:big, 0:big].astype(np.float32) / big - 0.5
    ang = rng.uniform(0, 2 * math.pi)
    paper += (rng.uniform(0, 25) * (gx * math.cos(ang) + gy * math.sin(ang)))[..., None]
    img = paper
    # Neighbouring clue cell showing at an edge (the lattice a little off), and its diagonal.
    if rng.random() < 0.25:
        fill = np.array(_CLUE_FILLS[int(rng.integers(len(_CLUE_FILLS)))], np.float32)
        side = int(rng.integers(4))
        width = int(rng.uniform(0.02, 0.12) * big)
        sl = [(slice(0, width), slice(None)), (slice(big - width, big), slice(None)),
              (slice(None), slice(0, width)), (slice(None), slice(big - width, big))][side]
        img[sl] = fill
    # Border lines at the edges, a little in or out.
    line_v = rng.uniform(15, 100)
    for side in range(4):
        if rng.random() < 0.12:
            continue
        off = rng.uniform(-0.03, 0.07) * big
        t = max(1, int(round(rng.uniform(0.01, 0.05) * big)))
        p = int(round(off))
        tilt = int(round(rng.normal(0, 0.01) * big))
        if side == 0:
            cv2.line(img, (0, p), (big, p + tilt), (line_v,) * 3, t)
        elif side == 1:
            cv2.line(img, (0, big - 1 - p), (big, big - 1 - p + tilt), (line_v,) * 3, t)
        elif side == 2:
            cv2.line(img, (p, 0), (p + tilt, big), (line_v,) * 3, t)
        else:
            cv2.line(img, (big - 1 - p, 0), (big - 1 - p + tilt, big), (line_v,) * 3, t)
    if rng.random() < 0.08:
        # A diagonal's end at a corner (the neighbouring clue cell's).
        c = int(rng.integers(4))
        ln = int(rng.uniform(0.05, 0.2) * big)
        corners = [((0, 0), (ln, ln)), ((big, big), (big - ln, big - ln)), ((big, 0), (big - ln, -ln + ln)),
                   ((0, big), (ln, big))]
        a, b = corners[c]
        cv2.line(img, a, b, (line_v,) * 3, max(1, int(0.02 * big)))
    # The pen.
    alpha = np.zeros((big, big), np.float32)
    for ink, cx, cy, h in glyphs:
        _place(alpha, ink, cx * big, cy * big, h * big)
    for m in marks:
        np.maximum(alpha, cv2.resize(m, (big, big), interpolation=cv2.INTER_AREA), out=alpha)
    colour, opacity = _ink_colour(rng)
    a = (np.clip(alpha, 0, 1) * opacity)[..., None]
    img = img * (1 - a) + colour * a
    # The photo: blur, the cell's size, noise, JPEG, and the rectified grid's scaling up.
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.6))
    img = cv2.resize(img, (src, src), interpolation=cv2.INTER_AREA)
    img = img + rng.normal(0, rng.uniform(0, 7), img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 95))])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    out = int(src * rng.uniform(0.9, 2.6))
    return cv2.resize(img, (out, out), interpolation=cv2.INTER_CUBIC if out > src else cv2.INTER_AREA)


def _main_position(rng: np.random.Generator) -> tuple[float, float, float]:
    """Centre x, centre y and height (shares of the cell) of a written digit."""
    h = float(np.exp(rng.uniform(np.log(0.38), np.log(0.9))))
    spread = 0.1 if rng.random() < 0.85 else 0.2
    cx = 0.5 + float(np.clip(rng.normal(0, 0.06), -spread, spread))
    cy = 0.5 + float(np.clip(rng.normal(0, 0.05), -spread, spread))
    return cx, cy, h


def _notes(rng: np.random.Generator, fonts: list[str]) -> list[tuple[np.ndarray, float, float, float]]:
    """Small pencilled candidates in a corner."""
    out = []
    x = rng.uniform(0.12, 0.2)
    y = rng.uniform(0.12, 0.22)
    if rng.random() < 0.3:
        y = rng.uniform(0.78, 0.88)
    for _ in range(int(rng.integers(1, 4))):
        h = rng.uniform(0.12, 0.25)
        out.append((jitter(any_digit(rng, int(rng.integers(1, 10)), fonts), rng), x, y, h))
        x += h * 0.6
    return out


def digit_cell(rng: np.random.Generator, digit: int, fonts: list[str]) -> np.ndarray:
    """A white cell with ``digit`` written in it (now and then with notes beside it)."""
    ink = jitter(any_digit(rng, digit, fonts), rng)
    glyphs = [(ink, *_main_position(rng))]
    if rng.random() < 0.12:
        glyphs += _notes(rng, fonts)
    return draw_cell(rng, glyphs)


def _scribble(rng: np.random.Generator, size: int = 128) -> np.ndarray:
    img = np.zeros((size, size), np.uint8)
    n = int(rng.integers(4, 14))
    pts = np.column_stack([rng.uniform(0.2, 0.8, n), rng.uniform(0.2, 0.8, n)]) * size
    curve = _spline(pts, 8)
    cv2.polylines(img, [np.round(curve).astype(np.int32)], False, 255, int(rng.integers(2, 8)), cv2.LINE_AA)
    return img.astype(np.float32) / 255.0


def reject_cell(rng: np.random.Generator, fonts: list[str]) -> np.ndarray:
    """A white cell whose ink is not one digit."""
    kind = int(rng.integers(8))
    if kind == 0:  # a scribble
        return draw_cell(rng, [], marks=[_scribble(rng)])
    if kind == 1:  # a digit crossed out or hatched over
        d = int(rng.integers(1, 10))
        cx, cy, h = _main_position(rng)
        lines = np.zeros((128, 128), np.float32)
        t = int(rng.integers(3, 9))
        for _ in range(int(rng.integers(1, 4)) if rng.random() < 0.6 else int(rng.integers(4, 9))):
            y0, y1 = rng.uniform(0.15, 0.85, 2) * 128
            x0, x1 = rng.uniform(0.05, 0.3) * 128, rng.uniform(0.7, 0.95) * 128
            if rng.random() < 0.5:
                cv2.line(lines, (int(x0), int(y0)), (int(x1), int(y1)), 1.0, t, cv2.LINE_AA)
            else:
                cv2.line(lines, (int(y0), int(x0)), (int(y1), int(x1)), 1.0, t, cv2.LINE_AA)
        return draw_cell(rng, [(jitter(any_digit(rng, d, fonts), rng), cx, cy, h)], marks=[lines])
    if kind == 2:  # two digits written over each other
        a, b = rng.choice(np.arange(1, 10), 2, replace=False)
        cx, cy, h = _main_position(rng)
        return draw_cell(rng, [(jitter(any_digit(rng, int(a), fonts), rng), cx, cy, h),
                               (jitter(any_digit(rng, int(b), fonts), rng), cx + rng.normal(0, 0.05),
                                cy + rng.normal(0, 0.05), h * rng.uniform(0.85, 1.15))])
    if kind == 3:  # two digits side by side (candidates, a two-digit mistake)
        h = rng.uniform(0.3, 0.6)
        cy = 0.5 + rng.normal(0, 0.08)
        gap = rng.uniform(0.18, 0.32)
        return draw_cell(rng, [(jitter(any_digit(rng, int(rng.integers(1, 10)), fonts), rng), 0.5 - gap, cy, h),
                               (jitter(any_digit(rng, int(rng.integers(1, 10)), fonts), rng), 0.5 + gap * 0.8,
                                cy, h)])
    if kind == 4:  # a blot or a smudge
        m = np.zeros((128, 128), np.float32)
        ax = (int(rng.integers(5, 30)), int(rng.integers(5, 30)))
        cv2.ellipse(m, (int(rng.integers(30, 98)), int(rng.integers(30, 98))), ax, float(rng.uniform(0, 180)),
                    0, 360, 1.0, -1)
        return draw_cell(rng, [], marks=[cv2.GaussianBlur(m, (0, 0), rng.uniform(0.5, 4))])
    if kind == 5:  # a border fragment or a corner inside the cell
        m = np.zeros((128, 128), np.float32)
        t = int(rng.integers(2, 7))
        x0, y0 = int(rng.integers(8, 40)), int(rng.integers(8, 40))
        if rng.random() < 0.5:
            cv2.line(m, (x0, y0), (int(rng.integers(60, 120)), y0), 1.0, t)
        if rng.random() < 0.7:
            cv2.line(m, (x0, y0), (x0, int(rng.integers(60, 120))), 1.0, t)
        else:
            cv2.line(m, (x0, y0), (x0 + 60, y0 + 60), 1.0, t)
        return draw_cell(rng, [], marks=[m])
    if kind == 6:  # specks and paper dirt on an empty cell
        m = np.zeros((128, 128), np.float32)
        for _ in range(int(rng.integers(1, 6))):
            cv2.circle(m, (int(rng.integers(10, 118)), int(rng.integers(10, 118))), int(rng.integers(1, 6)), 1.0, -1)
        return draw_cell(rng, [], marks=[m])
    # a digit's fragment: a short stroke or part of a digit only
    ink = jitter(any_digit(rng, int(rng.integers(0, 10)), fonts), rng)
    h, w = ink.shape
    keep = rng.uniform(0.25, 0.45)
    if rng.random() < 0.5:
        ink = ink[: int(h * keep)] if rng.random() < 0.5 else ink[int(h * (1 - keep)):]
    else:
        ink = ink[:, : int(w * keep)] if rng.random() < 0.5 else ink[:, int(w * (1 - keep)):]
    cx, cy, hh = _main_position(rng)
    return draw_cell(rng, [(_crop(ink), cx, cy, hh * keep)])


# --------------------------------------------------------------------------------------------
# Data set and training


def _samples(args: tuple[int, int, int, list[str]]) -> tuple[list[np.ndarray], list[int]]:
    """Cut glyphs and labels of ``n`` cells (seeded), as the reader cuts them."""
    seed, n, reject_share_x100, fonts = args
    rng = np.random.default_rng(seed)
    masks, labels = [], []
    for _ in range(n):
        if rng.random() < reject_share_x100 / 100:
            cell, label = reject_cell(rng, fonts), REJECT
        else:
            d = int(rng.integers(1, 10)) if rng.random() < 0.94 else 0
            cell, label = digit_cell(rng, d, fonts), d
        cut = cut_written_glyph(cell)
        # Where the cutter set a second piece aside (two digits side by side), the reader's
        # doubt comes from that stray ink, not from the glyph, which may be a clean digit.
        if cut.glyph is not None and cut.glyph.any() and not (label == REJECT and cut.stray > 0.25):
            masks.append(cut.glyph)
            labels.append(label)
    return masks, labels


def make_dataset(n_cells: int, seed: int, fonts: list[str], jobs: int = 1, reject_share: float = 0.22
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n_cells`` drawn cells cut into the network's inputs and labels."""
    chunk = 500
    tasks = [(seed * 1_000_003 + i, min(chunk, n_cells - i * chunk), int(100 * reject_share), fonts)
             for i in range((n_cells + chunk - 1) // chunk)]
    masks: list[np.ndarray] = []
    labels: list[int] = []
    if jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            results = pool.map(_samples, tasks)
    else:
        results = [_samples(t) for t in tasks]
    for m, y in results:
        masks.extend(m)
        labels.extend(y)
    images, log_aspect = glyph_inputs(masks)
    return images, log_aspect, np.array(labels, np.int64)


def holdout_cells(n: int, seed: int, *, empty_share: float = 0.3) -> tuple[list[np.ndarray], list[int | None]]:
    """Half-filled cells written in the held-out hand (``HOLDOUT_FONT``): BGR cells and the digit
    in each (None: empty). The tests draw theirs with this."""
    fonts = pen_font_files(include_holdout=True)
    if not fonts:
        raise FileNotFoundError(f"no {HOLDOUT_FONT} font file under /usr/share/fonts (Debian: fonts-urw-base35)")
    rng = np.random.default_rng(seed)
    cells, truth = [], []
    for _ in range(n):
        if rng.random() < empty_share:
            cells.append(draw_cell(rng, []))
            truth.append(None)
        else:
            d = int(rng.integers(1, 10))
            ink = jitter(font_digit(fonts[0], d), rng, strength=0.6)
            cells.append(draw_cell(rng, [(ink, *_main_position(rng))]))
            truth.append(d)
    return cells, truth


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "vision" / "data" / "pen_glyphs.npz"))
    ap.add_argument("--cells", type=int, default=80000, help="drawn cells (digits and rejects) to train on")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2, help="processes drawing cells")
    ap.add_argument("--threads", type=int, default=1, help="PyTorch threads training")
    ap.add_argument("--cache", type=Path, default=None, metavar="NPZ",
                    help="keep the drawn training set here and reuse it when the file exists")
    args = ap.parse_args(argv)

    from train_glyphs import calibrate_temperature, save_weights, train_network

    t0 = time.time()
    fonts = pen_font_files()
    print(f"pen fonts: {[os.path.basename(f) for f in fonts]}; scikit-learn digits: "
          f"{sum(len(v) for v in sklearn_digits().values())}; held out: {HOLDOUT_FONT}", file=sys.stderr)
    if args.cache is not None and args.cache.exists():
        with np.load(args.cache) as z:
            x, a, y = z["images"], z["log_aspect"], z["labels"]
    else:
        x, a, y = make_dataset(args.cells, args.seed, fonts, args.jobs)
        if args.cache is not None:
            np.savez_compressed(args.cache, images=x, log_aspect=a, labels=y)
    xv, av, yv = make_dataset(max(2000, args.cells // 15), args.seed + 1, fonts, args.jobs)
    print(f"train {len(y)} / val {len(yv)} glyphs; classes {np.bincount(y, minlength=11).tolist()} "
          f"({time.time() - t0:.0f} s)", file=sys.stderr)
    params = train_network(x, a, y, epochs=args.epochs, seed=args.seed, threads=args.threads)
    t = calibrate_temperature(params, xv, av, yv)
    clf = GlyphClassifier.from_params(params)
    acc_v = float((clf.predict_inputs(xv, av).argmax(1) == yv).mean())
    from vision.written import read_written_digits

    cells, truth = holdout_cells(1500, args.seed + 2)
    reads = read_written_digits(cells, pen_classifier=clf)
    written = [(r, d) for r, d in zip(reads, truth) if d is not None]
    right = sum(r.value == d for r, d in written)
    wrong = sum(r.value is not None and r.value != d for r, d in written)
    print(f"temperature {t:.2f}; val acc {acc_v:.4f}; held-out hand ({HOLDOUT_FONT}): of {len(written)} "
          f"written cells {right} read right and {wrong} wrong at vision.written.SURE "
          f"({time.time() - t0:.0f} s)", file=sys.stderr)
    save_weights(params, Path(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
