"""Load images from disk into BGR uint8 arrays, and downscale them for detection."""
from __future__ import annotations

import logging
import os
import warnings

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from .errors import ImageLoadError

__all__ = ["load_image", "downscale_for_detection", "count_pdf_pages", "load_pdf_page", "MAX_PIXELS", "MIN_SIDE"]

log = logging.getLogger(__name__)

#: Refuse anything larger: a decompression bomb, or a scan far finer than a grid needs.
MAX_PIXELS = 200_000_000
#: Below this a grid of even 5x5 cells has too few pixels per cell to read digits.
MIN_SIDE = 64

try:  # HEIC/HEIF from phones; optional
    import pi_heif

    pi_heif.register_heif_opener()
except ImportError:  # pragma: no cover - depends on the environment
    pi_heif = None


def load_image(path) -> np.ndarray:
    """Read an image file as a BGR uint8 array, upright as the camera saw it.

    Parameters
    ----------
    path : str or os.PathLike
        JPEG, PNG, WebP, TIFF, BMP, or HEIC when ``pi_heif`` is installed.

    Returns
    -------
    image : (M, N, 3) uint8 ndarray
        BGR. EXIF orientation is applied; transparency is composited on white; 16-bit,
        grayscale and palette images are converted.

    Raises
    ------
    ImageLoadError
        The file is missing, empty, not an image, truncated, too large or too small.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ImageLoadError(path, "file not found; check the path")
    if os.path.isdir(path):
        raise ImageLoadError(path, "is a folder, not an image file")
    if os.path.getsize(path) == 0:
        raise ImageLoadError(path, "file is empty (0 bytes); re-export or re-download the image")
    old_limit = Image.MAX_IMAGE_PIXELS
    try:
        # Pillow warns above MAX_IMAGE_PIXELS and raises above twice that; make both an error at ours.
        Image.MAX_IMAGE_PIXELS = MAX_PIXELS
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as im:
                w, h = im.size
                if w * h > MAX_PIXELS:
                    raise ImageLoadError(path, f"image is too large to decode ({w}x{h} = {w * h / 1e6:.0f} MP, "
                                               f"limit {MAX_PIXELS / 1e6:.0f} MP); downscale it first")
                im.load()
                im = ImageOps.exif_transpose(im)
                array = _to_bgr(im)
    except ImageLoadError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageLoadError(path, f"image is too large to decode (limit {MAX_PIXELS / 1e6:.0f} MP); "
                                   "downscale it first") from exc
    except UnidentifiedImageError as exc:
        hint = " (HEIC needs the optional pi-heif package)" if path.lower().endswith((".heic", ".heif")) else ""
        raise ImageLoadError(path, f"not an image file Pillow can read{hint}; "
                                   "use JPEG, PNG, WebP or TIFF") from exc
    except (OSError, SyntaxError, ValueError) as exc:
        raise ImageLoadError(path, f"image file is truncated or corrupt ({exc}); re-export or re-download it") from exc
    finally:
        Image.MAX_IMAGE_PIXELS = old_limit
    h, w = array.shape[:2]
    if min(h, w) < MIN_SIDE:
        raise ImageLoadError(path, f"image is too small ({w}x{h} px, need at least {MIN_SIDE} px a side); "
                                   "use a larger photo or scan")
    return array


def _to_bgr(im: Image.Image) -> np.ndarray:
    """Convert any Pillow mode to 8-bit BGR, compositing transparency on white."""
    if im.mode == "P":
        im = im.convert("RGBA" if "transparency" in im.info else "RGB")
    if im.mode in ("I;16", "I;16B", "I;16L", "I;16N", "I"):
        a = np.asarray(im, dtype=np.float64)
        hi = a.max() if a.size else 1.0
        # 16-bit files often use only part of the range; stretch by what is there.
        scale = 255.0 / (65535.0 if hi > 255 else max(hi, 1.0))
        gray = np.clip(a * scale + 0.5, 0, 255).astype(np.uint8)
        return cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)
    if im.mode == "F":
        a = np.asarray(im, dtype=np.float64)
        lo, hi = float(np.nanmin(a)), float(np.nanmax(a))
        gray = ((a - lo) / max(hi - lo, 1e-9) * 255 + 0.5).astype(np.uint8)
        return cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR)
    if im.mode in ("LA", "PA", "RGBa", "La") or (im.mode == "RGBA"):
        rgba = np.asarray(im.convert("RGBA"), dtype=np.float32)
        alpha = rgba[..., 3:4] / 255.0
        rgb = rgba[..., :3] * alpha + 255.0 * (1.0 - alpha)
        return cv2.cvtColor(np.clip(rgb + 0.5, 0, 255).astype(np.uint8), cv2.COLOR_RGB2BGR)
    if im.mode in ("1", "L"):
        return cv2.cvtColor(np.asarray(im.convert("L")), cv2.COLOR_GRAY2BGR)
    return cv2.cvtColor(np.asarray(im.convert("RGB")), cv2.COLOR_RGB2BGR)


def downscale_for_detection(image: np.ndarray, max_side: int = 1600) -> tuple[np.ndarray, float]:
    """Shrink an image so its longer side is at most ``max_side``.

    Parameters
    ----------
    image : (M, N[, 3]) uint8 ndarray
    max_side : int
        Longest side of the result, in pixels.

    Returns
    -------
    small : ndarray
        The shrunk image (the input itself when already small enough).
    scale : float
        ``small`` pixels per source pixel (<= 1); divide small coordinates by it to get source ones.
    """
    if image.ndim not in (2, 3):
        raise ValueError(f"image must be 2-D or 3-D, got shape {image.shape}")
    if max_side < 16:
        raise ValueError(f"max_side must be at least 16, got {max_side}")
    h, w = image.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    if scale >= 1.0:
        return image, 1.0
    size_xy = (max(1, round(w * scale)), max(1, round(h * scale)))
    small = cv2.resize(image, size_xy, interpolation=cv2.INTER_AREA)
    return small, size_xy[0] / w


def count_pdf_pages(path) -> int:
    """Number of pages in a PDF; raises :class:`ImageLoadError` when it cannot be opened."""
    import pypdfium2 as pdfium

    path = os.fspath(path)
    try:
        pdf = pdfium.PdfDocument(path)
    except Exception as exc:  # pdfium raises its own PdfiumError with a terse code
        raise ImageLoadError(path, f"not a readable PDF ({exc}); re-export or re-download it") from exc
    try:
        return len(pdf)
    finally:
        pdf.close()


def load_pdf_page(path, index: int, dpi: int = 300) -> np.ndarray:
    """Rasterise page ``index`` (0-based) of a PDF at ``dpi`` as a BGR uint8 array."""
    import pypdfium2 as pdfium

    path = os.fspath(path)
    if not 36 <= dpi <= 1200:
        raise ValueError(f"dpi must be between 36 and 1200, got {dpi}")
    try:
        pdf = pdfium.PdfDocument(path)
    except Exception as exc:
        raise ImageLoadError(path, f"not a readable PDF ({exc}); re-export or re-download it") from exc
    try:
        page = pdf[index]
        w_pt, h_pt = page.get_size()
        if w_pt * h_pt * (dpi / 72) ** 2 > MAX_PIXELS:
            raise ImageLoadError(path, f"page {index + 1} is too large at {dpi} dpi; use a lower --dpi")
        bitmap = page.render(scale=dpi / 72, fill_color=(255, 255, 255, 255))
        rgb = np.asarray(bitmap.to_pil().convert("RGB"))
    except ImageLoadError:
        raise
    except Exception as exc:
        raise ImageLoadError(path, f"page {index + 1} cannot be rendered ({exc})") from exc
    finally:
        pdf.close()
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
