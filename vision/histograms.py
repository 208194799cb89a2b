"""Order statistics of 8-bit values from their histograms: every cell of a grid at once.

Grey levels are whole numbers 0..255, so a cell's 256-bin histogram holds all its order
statistics; read off cumulative histograms, medians and percentiles come out as numpy's own,
for many cells in one array operation instead of one call per cell.
"""
from __future__ import annotations

import numpy as np

__all__ = ["hist_kth", "hist_median", "hist_percentile"]


def hist_kth(cum: np.ndarray, k: np.ndarray) -> np.ndarray:
    """The ``k``-th smallest value (0-based) of the values counted in cumulative histograms ``cum``."""
    return np.argmax(cum > k[..., None], axis=-1)


def hist_median(hist: np.ndarray) -> np.ndarray:
    """``np.median`` of the values counted in histograms ``hist`` (last axis)."""
    cum = np.cumsum(hist, axis=-1)
    n = cum[..., -1]
    return (hist_kth(cum, (n - 1) // 2) + hist_kth(cum, n // 2)) / 2


def hist_percentile(cum: np.ndarray, q: float) -> np.ndarray:
    """``np.percentile(values, 100 q)`` (its "linear" method) of the values counted in cumulative
    histograms ``cum`` (last axis), to the same float; undefined where a histogram is empty."""
    n = cum[..., -1].astype(np.float64)
    virtual = (n - 1) * q  # numpy's "linear" method: (n - 1) q, between neighbours
    below = np.floor(virtual)
    gamma = virtual - below
    last = np.maximum(n - 1, 0).astype(np.int64)
    a = hist_kth(cum, np.where(virtual >= n - 1, last, below.astype(np.int64))).astype(np.float64)
    b = hist_kth(cum, np.where(virtual >= n - 1, last, below.astype(np.int64) + 1)).astype(np.float64)
    # numpy's _lerp: from the nearer end, as it rounds.
    return np.where(gamma >= 0.5, b - (b - a) * (1 - gamma), a + (b - a) * gamma)
