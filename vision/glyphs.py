"""A small printed-digit classifier for clue numbers and given digits.

One glyph is one connected piece of ink (a single digit) as a 2-D map of ink strength (0 off the
glyph; a binary mask works too, but strength tells a bold "3" whose gaps have run shut, paler than
its strokes, from an "8"). It is cropped to its ink, scaled with its aspect ratio kept into a
fixed box, and described by HOG plus a coarse pixel grid; a one-hidden-layer network (plain
numpy) maps that to the ten digits and an eleventh "not a digit" class (line fragments, specks,
border corners), so stray ink lowers confidence instead of becoming a number.

The weights are trained by ``tools/train_glyphs.py`` from digits rendered in many fonts found on
the build machine and shipped in ``vision/data/glyphs.npz``; nothing is downloaded at run time.
"""
from __future__ import annotations

import functools
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

__all__ = [
    "GlyphClassifier",
    "GlyphPrediction",
    "glyph_features",
    "normalize_glyph",
    "default_classifier",
    "MODEL_PATH",
    "REJECT",
    "N_CLASSES",
]

log = logging.getLogger(__name__)

#: Where the trained weights are shipped.
MODEL_PATH = Path(__file__).with_name("data") / "glyphs.npz"
#: Class index meaning "this ink is not a digit".
REJECT = 10
N_CLASSES = 11

_CANVAS = 32     # normalised glyph box; HOG window
_FIT = 26        # the glyph's longer side inside the box, leaving room for HOG's border cells
_CELL = 8        # HOG cell side; 2x2-cell blocks with a one-cell stride
_BINS = 9        # unsigned orientation bins
_GRID = 16       # side of the coarse ink grid: fine enough for the notches of a bold "3"
_N_FEATURES = ((_CANVAS // _CELL - 1) ** 2) * 4 * _BINS + _GRID * _GRID + 1


def _hog(batch: np.ndarray) -> np.ndarray:
    """Dalal-Triggs HOG of a (K, 32, 32) float batch, vectorised (OpenCV 5 moved its HOG out)."""
    k = batch.shape[0]
    gx = np.zeros_like(batch)
    gy = np.zeros_like(batch)
    gx[:, :, 1:-1] = batch[:, :, 2:] - batch[:, :, :-2]
    gy[:, 1:-1, :] = batch[:, 2:, :] - batch[:, :-2, :]
    mag = np.hypot(gx, gy)
    ang = np.mod(np.degrees(np.arctan2(gy, gx)), 180.0) / (180.0 / _BINS) - 0.5
    lo = np.floor(ang)
    w_hi = ang - lo
    lo = lo.astype(np.int64) % _BINS
    hi = (lo + 1) % _BINS
    nc = _CANVAS // _CELL
    cell_idx = (np.arange(_CANVAS) // _CELL)
    cell_of = (cell_idx[:, None] * nc + cell_idx[None, :]).ravel()
    width = nc * nc * _BINS
    base = (np.arange(k)[:, None] * width + (cell_of * _BINS)[None, :]).reshape(-1)
    m = mag.reshape(-1)
    w_hi = w_hi.reshape(-1)
    hist = (np.bincount(base + lo.reshape(-1), weights=m * (1 - w_hi), minlength=k * width)
            + np.bincount(base + hi.reshape(-1), weights=m * w_hi, minlength=k * width))
    hist = hist.astype(np.float32).reshape(k, nc, nc, _BINS)
    blocks = np.concatenate([hist[:, :-1, :-1], hist[:, :-1, 1:], hist[:, 1:, :-1], hist[:, 1:, 1:]], axis=3)
    blocks = blocks.reshape(k, (nc - 1) ** 2, 4 * _BINS)
    blocks /= np.sqrt((blocks ** 2).sum(-1, keepdims=True) + 1e-6)
    blocks = np.minimum(blocks, 0.2)
    blocks /= np.sqrt((blocks ** 2).sum(-1, keepdims=True) + 1e-6)
    return blocks.reshape(k, -1)


def normalize_glyph(mask: np.ndarray) -> np.ndarray:
    """Crop a glyph to its ink and scale it, aspect ratio kept, into a 32x32 box.

    Parameters
    ----------
    mask : (M, N) ndarray
        Ink is nonzero (bool, or uint8 where larger means more ink).

    Returns
    -------
    (32, 32) uint8 ndarray
        Ink 255 on 0, centred.
    """
    if mask.ndim != 2:
        raise ValueError(f"mask: expected a 2-D glyph mask, got shape {mask.shape}")
    m = mask.astype(np.float32)
    if mask.dtype == bool or m.max() <= 1.0:
        m *= 255.0
    ys, xs = np.nonzero(m > 0)
    out = np.zeros((_CANVAS, _CANVAS), np.uint8)
    if ys.size == 0:
        return out
    m = m[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]
    h, w = m.shape
    scale = _FIT / max(h, w)
    nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    small = cv2.resize(m, (nw, nh), interpolation=interp)
    y0, x0 = (_CANVAS - nh) // 2, (_CANVAS - nw) // 2
    out[y0: y0 + nh, x0: x0 + nw] = np.clip(small, 0, 255).astype(np.uint8)
    return out


def glyph_features(masks: Sequence[np.ndarray]) -> np.ndarray:
    """Feature vectors of glyph masks: HOG, a 16x16 ink grid and the log aspect ratio.

    Parameters
    ----------
    masks : sequence of (M, N) ndarray
        Glyph masks as accepted by :func:`normalize_glyph`.

    Returns
    -------
    (len(masks), D) float32 ndarray
    """
    if len(masks) == 0:
        return np.zeros((0, _N_FEATURES), np.float32)
    norms, extra = [], []
    for mask in masks:
        norm = normalize_glyph(mask)
        norms.append(norm)
        grid = cv2.resize(norm, (_GRID, _GRID), interpolation=cv2.INTER_AREA).astype(np.float32).ravel() / 255.0
        ys, xs = np.nonzero(mask)
        aspect = np.log((xs.max() - xs.min() + 1) / (ys.max() - ys.min() + 1)) if ys.size else 0.0
        extra.append(np.concatenate([grid, [aspect]]))
    hog = _hog(np.stack(norms).astype(np.float32) / 255.0)
    return np.concatenate([hog, np.asarray(extra, np.float32)], axis=1).astype(np.float32)


@dataclass(frozen=True, slots=True)
class GlyphPrediction:
    """Batched classifier output.

    Attributes
    ----------
    labels : (K,) int ndarray
        Best class per glyph: 0..9, or ``REJECT`` (10) for "not a digit".
    probs : (K, 11) float ndarray
        Class probabilities (softmax, temperature-calibrated on held-out renders).
    """

    labels: np.ndarray
    probs: np.ndarray

    def top_digits(self, k: int = 3) -> list[list[tuple[int, float]]]:
        """Per glyph, the ``k`` likeliest digits (reject class excluded) with probabilities."""
        out = []
        for p in self.probs:
            order = np.argsort(p[:10])[::-1][:k]
            out.append([(int(d), float(p[d])) for d in order])
        return out


class GlyphClassifier:
    """Digit classifier: glyph masks in, class probabilities out.

    Parameters
    ----------
    path : path-like, optional
        A weights file written by ``tools/train_glyphs.py``; the shipped one by default.
        The file is read on first use.
    """

    def __init__(self, path: str | Path = MODEL_PATH):
        self.path = Path(path)
        self._params: dict[str, np.ndarray] | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_params(cls, params: dict[str, np.ndarray]) -> "GlyphClassifier":
        """Wrap in-memory weights (used by the trainer to evaluate before saving)."""
        obj = cls.__new__(cls)
        obj.path = Path("<memory>")
        obj._params = dict(params)
        obj._lock = threading.Lock()
        return obj

    def _load(self) -> dict[str, np.ndarray]:
        if self._params is None:
            with self._lock:
                if self._params is None:
                    if not self.path.exists():
                        raise FileNotFoundError(
                            f"{self.path}: glyph model missing; run `python tools/train_glyphs.py` to rebuild it")
                    with np.load(self.path) as z:
                        self._params = {k: z[k].astype(np.float32) for k in z.files}
                    log.debug("loaded glyph model %s", self.path)
        return self._params

    def predict_features(self, feats: np.ndarray) -> np.ndarray:
        """Class probabilities, (K, 11), from feature vectors made by :func:`glyph_features`."""
        p = self._load()
        if len(feats) == 0:
            return np.zeros((0, N_CLASSES), np.float32)
        x = (feats - p["mean"]) / p["std"]
        h = np.maximum(x @ p["W1"] + p["b1"], 0.0)
        logits = (h @ p["W2"] + p["b2"]) / float(p["temperature"])
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)

    def classify(self, glyph_images: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Classify a batch of glyph masks.

        Parameters
        ----------
        glyph_images : sequence of (M, N) ndarray
            One digit each, ink nonzero.

        Returns
        -------
        labels : (K,) int ndarray
            0..9, or ``REJECT`` (10) when the ink is not a digit.
        probs : (K, 11) float32 ndarray
            Probabilities per class; ``probs[:, :10]`` are the digits.
        """
        pred = self.predict(glyph_images)
        return pred.labels, pred.probs

    def predict(self, glyph_images: Sequence[np.ndarray]) -> GlyphPrediction:
        """Like :meth:`classify`, returned as a :class:`GlyphPrediction` (with top-k helpers)."""
        probs = self.predict_features(glyph_features(glyph_images))
        labels = probs.argmax(axis=1) if len(probs) else np.zeros(0, int)
        return GlyphPrediction(labels=labels, probs=probs)


@functools.cache
def default_classifier() -> GlyphClassifier:
    """The shared classifier backed by the shipped weights (read once, on first use)."""
    return GlyphClassifier()
