"""Load images from disk into BGR uint8 arrays, and downscale them for detection."""
from __future__ import annotations

import logging
import os
import warnings
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageOps, JpegImagePlugin, UnidentifiedImageError

from .errors import ImageLoadError

__all__ = ["load_image", "ImageInfo", "read_image_info", "downscale_for_detection", "count_pdf_pages",
           "load_pdf_page", "MAX_PIXELS", "MIN_SIDE", "IMAGE_SUFFIXES"]

log = logging.getLogger(__name__)

#: Refuse anything larger: a decompression bomb, or a scan far finer than a grid needs.
MAX_PIXELS = 200_000_000
#: Below this a grid of even 5x5 cells has too few pixels per cell to read digits.
MIN_SIDE = 64
#: Names of the image files read (a folder's images in a batch).
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".tif", ".tiff", ".bmp", ".heic", ".heif"}


def _know_heif(path: str) -> None:
    """Teach Pillow HEIC/HEIF (phones' photos; the optional ``pi_heif``) where ``path`` is one: an
    ISO media file ("ftyp" box first). Only then: the import costs every command 10-15 ms."""
    global _heif_known
    if _heif_known:
        return
    try:
        with open(path, "rb") as f:
            head = f.read(12)
    except OSError:
        return
    if head[4:8] != b"ftyp":
        return
    _heif_known = True
    try:
        import pi_heif
    except ImportError:  # pragma: no cover - depends on the environment
        return
    pi_heif.register_heif_opener()


_heif_known = False


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
    _know_heif(path)
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


@dataclass(frozen=True, slots=True)
class ImageInfo:
    """What an image file carries besides its pixels, as ``load_image`` returns them (upright).

    Attributes
    ----------
    format : str or None
        Pillow's name for the file format (``"JPEG"``, ``"PNG"``, ``"WEBP"``, ``"TIFF"``, ``"BMP"``,
        ``"HEIF"``), ``"PDF"`` for a rasterised PDF page; None when unknown.
    dpi : (float, float) or None
        Horizontal and vertical resolution of the upright image; None when the file gives none.
    icc_profile : bytes or None
        The embedded colour profile.
    lossy : bool
        The pixels went through lossy compression (JPEG, HEIF, lossy WebP).
    jpeg_quality : int or None
        A JPEG's quality (1-100) as estimated from its luminance quantization table.
    jpeg_subsampling : int or None
        A JPEG's chroma subsampling as Pillow names it: 0 (4:4:4), 1 (4:2:2), 2 (4:2:0).
    orientation : int
        The EXIF orientation (1-8) that ``load_image`` applied; 1 when none.
    """

    format: str | None = None
    dpi: tuple[float, float] | None = None
    icc_profile: bytes | None = None
    lossy: bool = False
    jpeg_quality: int | None = None
    jpeg_subsampling: int | None = None
    orientation: int = 1


#: The IJG standard luminance quantization table (quality 50), summed: the reference for estimating quality.
_IJG_LUMA_SUM = 3688


def read_image_info(path) -> ImageInfo:
    """The format, resolution, colour profile and JPEG settings of an image file, without decoding it.

    Parameters
    ----------
    path : str or os.PathLike
        An image file ``load_image`` reads.

    Returns
    -------
    info : ImageInfo
        What the file says; a file Pillow cannot open gives ``ImageInfo()`` (nothing known): the
        pixels are what matter, and ``load_image`` reports unreadable files.
    """
    path = os.fspath(path)
    _know_heif(path)
    try:
        with Image.open(path) as im:
            return _info_of(im, path)
    except Exception as exc:  # metadata is a nicety: never fail a solve over it
        log.debug("%s: no image information (%s)", path, exc)
        return ImageInfo()


def _info_of(im: Image.Image, path: str) -> ImageInfo:
    # Pillow decodes a whole PNG to look for an eXIf chunk after its pixels: only one before them is read.
    orientation = im.getexif().get(0x0112, 1) if im.format != "PNG" or "exif" in im.info else 1
    orientation = orientation if isinstance(orientation, int) and 1 <= orientation <= 8 else 1
    dpi = None
    raw = im.info.get("dpi")
    if isinstance(raw, tuple) and len(raw) == 2:
        try:
            x, y = round(float(raw[0]), 2), round(float(raw[1]), 2)
        except (TypeError, ValueError):
            x = y = 0.0
        if 10 <= x <= 100_000 and 10 <= y <= 100_000:  # below: no unit (a TIFF's 1 "dpi" says unknown)
            # orientations 5-8 turn the image a quarter: its columns were the file's rows
            dpi = (y, x) if orientation >= 5 else (x, y)
    icc = im.info.get("icc_profile") or None
    fmt = im.format
    quality = subsampling = None
    lossy = fmt in ("JPEG", "MPO", "HEIF", "AVIF")
    if fmt in ("JPEG", "MPO"):
        fmt = "JPEG"
        tables = getattr(im, "quantization", None) or {}
        if 0 in tables and len(tables[0]) == 64:
            scale = 100.0 * sum(tables[0]) / _IJG_LUMA_SUM
            quality = round((200 - scale) / 2 if scale <= 100 else 5000 / scale)
            quality = min(100, max(1, quality))
        sampling = JpegImagePlugin.get_sampling(im)
        subsampling = sampling if sampling in (0, 1, 2) else None
    elif fmt == "WEBP":
        lossy = not _webp_is_lossless(path)
    return ImageInfo(format=fmt, dpi=dpi, icc_profile=icc if isinstance(icc, bytes) else None, lossy=lossy,
                     jpeg_quality=quality, jpeg_subsampling=subsampling, orientation=orientation)


def _webp_is_lossless(path: str) -> bool:
    """Whether a WebP file holds a lossless (VP8L) image: its RIFF chunks, read up to the image's."""
    with open(path, "rb") as f:
        head = f.read(12)
        if head[:4] != b"RIFF" or head[8:12] != b"WEBP":
            return False
        for _ in range(64):  # VP8X, ICCP, ANIM, EXIF ... then the image; a few chunks at most
            chunk = f.read(8)
            if len(chunk) < 8:
                return False
            kind, size = chunk[:4], int.from_bytes(chunk[4:], "little")
            if kind in (b"VP8 ", b"VP8L"):
                return kind == b"VP8L"
            if kind == b"ANMF":  # an animation frame holds its image's chunk after a 16-byte header
                f.seek(16, os.SEEK_CUR)
                continue
            f.seek(size + (size & 1), os.SEEK_CUR)
    return False


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
