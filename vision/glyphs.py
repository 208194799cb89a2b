"""A small printed-digit classifier for clue numbers and given digits.

One glyph is one connected piece of ink (a single digit) as a 2-D map of ink strength (0 off the
glyph; a binary mask works too, but strength tells a bold "3" whose gaps have run shut, paler than
its strokes, from an "8"). It is cropped to its ink and scaled, aspect ratio kept, into a 32x32
box; a small convolutional network (three 3x3 convolutions with max pooling, one hidden dense
layer that also sees the glyph's aspect ratio) maps it to the ten digits and an eleventh "not a
digit" class (line fragments, specks, border corners), so stray ink lowers confidence instead of
becoming a number. It runs in plain numpy, about 0.4 ms a glyph.

The weights are trained by ``tools/train_glyphs.py`` (PyTorch, needed only there) from digits
rendered in many fonts found on the build machine and shipped in ``vision/data/glyphs.npz``;
nothing is downloaded at run time.
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
    "glyph_inputs",
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

_CANVAS = 32     # normalised glyph box: the network's input
_FIT = 26        # the glyph's longer side inside the box


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


def glyph_inputs(masks: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The network's inputs for glyph masks: normalised images and log aspect ratios.

    Parameters
    ----------
    masks : sequence of (M, N) ndarray
        Glyph masks as accepted by :func:`normalize_glyph`.

    Returns
    -------
    images : (K, 32, 32) uint8 ndarray
    log_aspect : (K,) float32 ndarray
        log(width / height) of each glyph's ink, which the fixed box hides (a "1" from a "7").
    """
    images = np.zeros((len(masks), _CANVAS, _CANVAS), np.uint8)
    log_aspect = np.zeros(len(masks), np.float32)
    for i, mask in enumerate(masks):
        images[i] = normalize_glyph(mask)
        ys, xs = np.nonzero(mask)
        if ys.size:
            log_aspect[i] = np.log((xs.max() - xs.min() + 1) / (ys.max() - ys.min() + 1))
    return images, log_aspect


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

    def predict_inputs(self, images: np.ndarray, log_aspect: np.ndarray) -> np.ndarray:
        """Class probabilities, (K, 11), from inputs made by :func:`glyph_inputs`."""
        p = self._load()
        if len(images) == 0:
            return np.zeros((0, N_CLASSES), np.float32)
        # The binarisation levels often cut the very same glyph: each distinct one is run once.
        keys = np.concatenate([images.reshape(len(images), -1),
                               log_aspect.astype(np.float32).view(np.uint8).reshape(len(images), -1)], axis=1)
        # In the order np.unique(keys, axis=0) gives (the rows' bytes, compared as strings), but
        # by hashing: numpy sorts the rows element by element, a tenth of this reader's time.
        rows = [row.tobytes() for row in keys]
        first_of: dict[bytes, int] = {}
        for k, row in enumerate(rows):
            first_of.setdefault(row, k)
        order = sorted(first_of)
        first = np.array([first_of[row] for row in order], np.int64)
        rank = {row: j for j, row in enumerate(order)}
        inverse = np.array([rank[row] for row in rows], np.int64)
        images, log_aspect = images[first], log_aspect[first]
        probs = []
        for i in range(0, len(images), _BATCH):
            x = _first_conv_relu_pool(images[i: i + _BATCH].astype(np.float32) / 255.0, p["c1_weight"], p["c1_bias"])
            for layer in ("c2", "c3"):
                x = _conv_relu_pool(x, p[f"{layer}_weight"], p[f"{layer}_bias"])
            # Flattened channel-first, as the network was trained.
            x = np.concatenate([x.transpose(0, 3, 1, 2).reshape(len(x), -1),
                                log_aspect[i: i + _BATCH, None].astype(np.float32)], axis=1)
            h = np.maximum(x @ p["f1_weight"].T + p["f1_bias"], 0.0)
            logits = (h @ p["f2_weight"].T + p["f2_bias"]) / float(p["temperature"])
            logits -= logits.max(axis=1, keepdims=True)
            e = np.exp(logits)
            probs.append(e / e.sum(axis=1, keepdims=True))
        return np.concatenate(probs).astype(np.float32)[inverse.ravel()]

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
        probs = self.predict_inputs(*glyph_inputs(glyph_images))
        labels = probs.argmax(axis=1) if len(probs) else np.zeros(0, int)
        return GlyphPrediction(labels=labels, probs=probs)


_BATCH = 32  # glyphs per pass: the unfolded 3x3 patches stay in cache (2-3x faster than 512 at once)


def _first_conv_relu_pool(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(K, H, W) -> (K, H/2, W/2, O): :func:`_conv_relu_pool` of a single input channel, by one
    OpenCV filter per output channel over the images stacked apart (2.5x faster: unfolded, one
    channel makes a product of nine columns only)."""
    k, h, wd = x.shape
    stacked = np.zeros((k, h + 2, wd + 2), np.float32)
    stacked[:, 1:-1, 1:-1] = x
    flat = stacked.reshape(k * (h + 2), wd + 2)
    y = np.empty((w.shape[0], k, h + 2, wd + 2), np.float32)
    for o in range(w.shape[0]):
        cv2.filter2D(flat, cv2.CV_32F, w[o, 0], dst=y[o].reshape(k * (h + 2), wd + 2), delta=float(b[o]),
                     borderType=cv2.BORDER_CONSTANT)
    y = y[:, :, 1:-1, 1:-1]
    # Pooled before the ReLU, which commutes with the maximum, on a quarter of the values.
    pooled = np.maximum(np.maximum(y[:, :, 0::2, 0::2], y[:, :, 0::2, 1::2]),
                        np.maximum(y[:, :, 1::2, 0::2], y[:, :, 1::2, 1::2]))
    np.maximum(pooled, 0.0, out=pooled)
    return pooled.transpose(1, 2, 3, 0)


def _conv_relu_pool(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(K, H, W, C) -> (K, H/2, W/2, O): 3x3 convolution (zero padded), ReLU, 2x2 max pool."""
    k, h, wd, c = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    # The 3x3 neighbourhoods unfolded by nine block copies: faster than reshaping a strided view.
    cols = np.empty((k, h, wd, c, 3, 3), np.float32)
    for dy in range(3):
        for dx in range(3):
            cols[..., dy, dx] = padded[:, dy:dy + h, dx:dx + wd, :]
    y = cols.reshape(k * h * wd, c * 9) @ w.reshape(w.shape[0], -1).T
    y += b
    np.maximum(y, 0.0, out=y)
    y = y.reshape(k, h, wd, -1)
    return np.maximum(np.maximum(y[:, 0::2, 0::2], y[:, 0::2, 1::2]), np.maximum(y[:, 1::2, 0::2], y[:, 1::2, 1::2]))


@functools.cache
def default_classifier() -> GlyphClassifier:
    """The shared classifier backed by the shipped weights (read once, on first use)."""
    return GlyphClassifier()
