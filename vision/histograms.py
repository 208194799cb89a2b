"""Order statistics of 8-bit values from their histograms: every cell of a grid at once.

Grey levels are whole numbers 0..255, so a cell's 256-bin histogram holds all its order
statistics; read off cumulative histograms, medians and percentiles come out as numpy's own,
for many cells in one array operation instead of one call per cell. ``percentile`` is numpy's
own for any values, without the checks that cost more than the work on short arrays.
"""
from __future__ import annotations

import numpy as np

__all__ = ["hist_kth", "hist_median", "hist_percentile", "percentile"]


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


def percentile(values, q):
    """``np.percentile(values, q)`` over all of ``values`` (its "linear" method), to the same
    number and type, at a tenth of the cost on the short arrays a grid's lines and cells give.

    numpy spends about 0.1 ms a call checking and reshaping before it partitions; locating and
    reading one photo calls it some 2000 times. These are numpy's own steps (partition about the
    two neighbours, its ``_lerp`` from the nearer end, weak promotion for a Python number ``q``),
    without the checks. Values holding NaN are left to numpy.
    """
    arr = np.array(values).ravel()
    n = arr.shape[0]
    if n == 0:
        return np.percentile(values, q)
    weak = type(q) in (int, float)
    if weak:
        # One Python number: the same steps on scalars (numpy's arithmetic on its scalars is
        # its arithmetic on 0-d arrays).
        virtual = (n - 1) * (q / 100)
        below = n - 1 if virtual >= n - 1 else 0 if virtual < 0 else int(virtual // 1)
        above = n - 1 if virtual >= n - 1 else 0 if virtual < 0 else below + 1
        arr.partition(sorted({0, n - 1, below, above}))
        if arr.dtype.kind in "fc" and np.isnan(arr[-1]):
            return np.percentile(values, q)
        t = virtual - (-1 if virtual >= n - 1 else below)
        a, b = arr[below], arr[above]
        diff = b - a
        return b - diff * (1 - t) if t >= 0.5 else a + diff * t
    virtual = np.asanyarray((n - 1) * np.true_divide(q, 100))
    below = np.floor(virtual)
    above = below + 1
    below = np.where(virtual >= n - 1, -1, np.where(virtual < 0, 0, below)).astype(np.intp)
    above = np.where(virtual >= n - 1, -1, np.where(virtual < 0, 0, above)).astype(np.intp)
    arr.partition(np.unique(np.concatenate(([0, -1], below.ravel(), above.ravel()))))
    if arr.dtype.kind in "fc" and np.isnan(arr[-1]):
        return np.percentile(values, q)
    a, b = arr[below], arr[above]
    gamma = np.asanyarray(virtual - below, dtype=virtual.dtype)
    t = float(gamma) if weak else gamma
    diff = b - a
    out = np.add(a, diff * t)
    out = np.asanyarray(out)
    np.subtract(b, diff * (1 - t), out=out, where=np.asanyarray(t) >= 0.5, casting="unsafe",
                dtype=type(out.dtype))
    return out[()] if out.ndim == 0 else out
