"""A second reader for small numbers in discs: the whole number matched against rendered ones.

A clue number printed in a disc a few millimetres wide, photographed from across a table, has
digits 6 to 9 pixels tall: blur joins them and fills their holes, so that cutting the ink into
digits (what :mod:`vision.glyphs` reads) goes wrong before any digit is read. Matching needs no
cut: the number's ink, scaled to a fixed height, is compared with every number 1-45 rendered in
many fonts and blurred by several amounts, allowing a pixel's shift; each number scores its best
match. The scores are turned into probabilities that :mod:`vision.ocr` mixes with the glyph
reader's where that one is unsure, so that where the two readers disagree the puzzle's
constraints get both candidates.

The rendered numbers are built by ``tools/make_number_templates.py`` from the fonts on the build
machine (the glyph model's training fonts: its held-out families are left out here too) and
shipped in ``vision/data/number_templates.npz``; nothing is rendered at run time.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

__all__ = ["TEMPLATES_PATH", "VIEW", "number_view", "NumberTemplates", "default_templates"]

#: Where the rendered numbers are shipped.
TEMPLATES_PATH = Path(__file__).with_name("data") / "number_templates.npz"
#: Side of the square a number is compared in, and the height its ink is scaled to there.
VIEW = 32
_HEIGHT = 20
#: Shifts (pixels of the view) tried between a number and each rendering: scaling by the ink's
#: box leaves a blurred number's placement a pixel off either way.
_SHIFTS = tuple((dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1))
#: Softness of the scores' conversion to probabilities (scores are correlations, 0..1).
_TEMPERATURE = 0.01


def number_view(strength: np.ndarray) -> np.ndarray | None:
    """A number's ink (0 off the ink, more where darker) scaled to :data:`_HEIGHT` pixels tall,
    width in proportion (at most the view), centred in a :data:`VIEW`-pixel square; None if it
    has no ink."""
    ys, xs = np.nonzero(strength > 0)
    if ys.size == 0:
        return None
    ink = strength[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1].astype(np.float32)
    ink /= max(float(ink.max()), 1e-6)
    h, w = ink.shape
    width = max(1, min(VIEW, round(w * _HEIGHT / h)))
    interp = cv2.INTER_AREA if h > _HEIGHT else cv2.INTER_LINEAR
    out = np.zeros((VIEW, VIEW), np.float32)
    y0, x0 = (VIEW - _HEIGHT) // 2, (VIEW - width) // 2
    out[y0: y0 + _HEIGHT, x0: x0 + width] = cv2.resize(ink, (width, _HEIGHT), interpolation=interp)
    return out


def _unit(rows: np.ndarray) -> np.ndarray:
    rows = rows - rows.mean(axis=1, keepdims=True)
    return rows / (np.linalg.norm(rows, axis=1, keepdims=True) + 1e-6)


class NumberTemplates:
    """The rendered numbers 1..N, and their match with numbers seen."""

    def __init__(self, path: Path = TEMPLATES_PATH):
        with np.load(path) as data:
            views = data["views"].astype(np.float32) / 255.0   # (numbers, renderings, VIEW, VIEW)
        self.numbers = np.arange(1, views.shape[0] + 1)
        n, k = views.shape[:2]
        self._bank = _unit(views.reshape(n * k, -1)).T.copy()  # (VIEW*VIEW, numbers*renderings)
        self._shape = (n, k)

    def probabilities(self, strengths: Sequence[np.ndarray]) -> np.ndarray:
        """For each number's ink (a uint8 or float map, 0 off the ink), the probability of each
        of 1..N: rows of shape (N,), all zero where the map holds no ink."""
        out = np.zeros((len(strengths), len(self.numbers)), np.float32)
        views = [number_view(s) for s in strengths]
        have = [i for i, v in enumerate(views) if v is not None]
        if not have:
            return out
        shifted = np.stack([np.roll(views[i], shift, axis=(0, 1)) for i in have for shift in _SHIFTS])
        scores = _unit(shifted.reshape(len(shifted), -1)) @ self._bank
        best = scores.reshape(len(have), len(_SHIFTS), *self._shape).max(axis=(1, 3))
        p = np.exp((best - best.max(axis=1, keepdims=True)) / _TEMPERATURE)
        out[have] = p / p.sum(axis=1, keepdims=True)
        return out


@functools.cache
def default_templates() -> NumberTemplates:
    """The shared templates from the shipped file (read once, on first use)."""
    return NumberTemplates()
