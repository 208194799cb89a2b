"""Colour conversions that cost no start-up.

OpenCV's first RGB-to-Lab conversion in a process builds its bit-exact lookup tables (about
0.1 s on one core, whatever the image's size); a command that reads one photo pays that once,
which is a tenth of the whole command's time budget (issue 18). The same conversion in numpy
costs only its pixels.
"""
from __future__ import annotations

import cv2
import numpy as np

# sRGB's transfer curve, 8-bit code to linear light.
_CODES = np.arange(256, dtype=np.float64) / 255.0
_LINEAR = np.where(_CODES <= 0.04045, _CODES / 12.92,
                   ((_CODES + 0.055) / 1.055) ** 2.4).astype(np.float32)[:, None]  # (256, 1): cv2.LUT's table
# Linear BGR to XYZ (D65), each row divided by the white point's X, Y or Z; the columns are
# B, G, R to take OpenCV's channel order as it is.
_BGR_TO_XYZ_WHITE = (np.array([[0.180423, 0.357580, 0.412453],
                               [0.072169, 0.715160, 0.212671],
                               [0.950227, 0.119193, 0.019334]], np.float64)
                     / np.array([[0.950456], [1.0], [1.088754]])).astype(np.float32)
_EPSILON = 0.008856


def bgr_to_lab(image: np.ndarray) -> np.ndarray:
    """BGR to Lab, as ``cv2.cvtColor(image, cv2.COLOR_BGR2LAB)`` gives it: 8-bit here (within
    three levels: OpenCV interpolates its own from a table), other pixel types by OpenCV.

    Parameters
    ----------
    image : (..., 3) ndarray
        BGR.

    Returns
    -------
    lab : (..., 3) ndarray
        For 8-bit, L scaled to 0..255 and a and b offset by 128, as OpenCV stores 8-bit Lab.
    """
    if image.ndim < 1 or image.shape[-1] != 3:
        raise ValueError(f"image must be a (..., 3) BGR array, got {image.dtype} {image.shape}")
    shape = image.shape
    pixels = np.ascontiguousarray(image).reshape(-1, 1, 3)
    if image.dtype != np.uint8:
        return cv2.cvtColor(pixels, cv2.COLOR_BGR2LAB).reshape(shape)
    xyz = cv2.transform(cv2.LUT(pixels, _LINEAR), _BGR_TO_XYZ_WHITE)
    # Lab's f: a cube root above epsilon, a straight line below that meets it there (and
    # 116 f(Y) - 16 is then Lab's lightness on both sides).
    # (OpenCV's power, not numpy's cube root: ten times faster in float32, and one level apart
    # from it in 805 of the 50 million values of all 8-bit colours.)
    f = cv2.pow(np.maximum(xyz, _EPSILON), 1.0 / 3.0) + np.minimum(xyz - _EPSILON, 0.0) * 7.787
    lab = cv2.merge([f[..., 1] * (116.0 * 2.55) - 16.0 * 2.55, (f[..., 0] - f[..., 1]) * 500.0 + 128.0,
                     (f[..., 1] - f[..., 2]) * 200.0 + 128.0])
    return cv2.convertScaleAbs(lab).reshape(shape)  # rounded and saturated; no value is below -0.5
