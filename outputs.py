"""Output files, written so that none is ever seen half-written: the CLI's, the batch's and the web page's.

Every file is created as any other program creates one (mode ``0666`` less the umask) under a
temporary name in its folder, then renamed into place. Annotated images are written in the
input's format unless told otherwise (``image_suffix``), keeping its resolution and colour
profile but none of its EXIF: the pixels are already upright, and a photo's GPS location is not
the result's to share. ``write_pdf_book`` assembles page images into one PDF a page at a time.
"""
from __future__ import annotations

import io
import logging
import os
import secrets
import struct
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from pipeline import PuzzleResult
from solver.errors import PuzzleFormatError
from vision.imageio import ImageInfo, load_image, read_image_info

__all__ = ["FORMATS", "write_atomically", "image_suffix", "format_of_suffix", "encode_image", "write_image",
           "write_debug", "write_pdf_book"]

log = logging.getLogger("kakuro")

#: ``--format`` choices -> the suffix of the files written.
FORMATS = {"png": ".png", "jpg": ".jpg", "webp": ".webp"}
#: Suffixes an annotated image may be written with -> Pillow's format.
_SUFFIX_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".webp": "WEBP", ".tif": "TIFF",
                   ".tiff": "TIFF", ".bmp": "BMP"}
#: An input's format -> the suffix its annotated image gets. HEIC becomes JPEG (few programs open
#: HEIC); a TIFF scan becomes PNG: as lossless, with its DPI and colour profile, and unlike TIFF
#: shown by every browser and image viewer (``-o NAME.tif`` still writes TIFF).
_FOLLOW = {"JPEG": ".jpg", "HEIF": ".jpg", "AVIF": ".jpg", "WEBP": ".webp", "PNG": ".png", "TIFF": ".png",
           "BMP": ".png", "PDF": ".png"}
#: JPEG quality of annotated images: the input's own where lower (never below the floor, which
#: keeps the drawn digits' edges clean), so the result is not much larger than the photo.
_JPEG_QUALITY, _JPEG_QUALITY_FLOOR = 90, 75


def write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """Write through a temporary file in the same folder, then rename: never a half-written file.

    The temporary file is created with mode ``0666`` less the umask, as ``open()`` creates any file,
    and ``write`` writes into that file by its name (opening it again keeps the mode).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(100):
        tmp = path.parent / f".{path.name}.{secrets.token_hex(4)}{path.suffix}"
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"{path.parent}: no free temporary name for {path.name}")
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def image_suffix(info: ImageInfo | None, format: str | None = None) -> str:
    """The suffix of an annotated image: ``format`` (a ``FORMATS`` key) if given, else the input's.

    JPEG, HEIC -> ``.jpg``; WebP -> ``.webp``; PNG, TIFF, BMP, a PDF page or anything unknown -> ``.png``.
    """
    if format is not None:
        try:
            return FORMATS[format]
        except KeyError:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {format!r}") from None
    return _FOLLOW.get(info.format if info is not None else None, ".png")


def format_of_suffix(suffix: str) -> str | None:
    """The format (Pillow's name) ``write_image`` writes under a file suffix (``.jpeg``); None for one it cannot."""
    return _SUFFIX_FORMATS.get(suffix.lower())


def encode_image(image: np.ndarray, suffix: str, info: ImageInfo | None = None) -> bytes:
    """Encode a BGR (or grey) uint8 image as the file format ``suffix`` names.

    Parameters
    ----------
    image : (M, N[, 3 or 4]) uint8 ndarray
        BGR, BGRA or grey.
    suffix : str
        ``.png``, ``.jpg``/``.jpeg``, ``.webp``, ``.tif``/``.tiff`` or ``.bmp``.
    info : ImageInfo, optional
        The input's: its DPI and colour profile are kept (the profile when it describes the
        colours written, RGB or grey); a JPEG is written at its quality where lower than 90 and
        with its chroma subsampling; a WebP is lossless when the input was not lossy. No EXIF is
        written (so no orientation to turn the upright pixels again, and no GPS location).

    Returns
    -------
    data : bytes
    """
    fmt = _SUFFIX_FORMATS.get(suffix.lower())
    if fmt is None:
        raise ValueError(f"suffix must be one of {', '.join(sorted(_SUFFIX_FORMATS))}, got {suffix!r}")
    if image.dtype != np.uint8 or image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (3, 4)):
        raise ValueError(f"image must be a uint8 grey, BGR or BGRA array, got {image.dtype} {image.shape}")
    info = info or ImageInfo()
    if image.ndim == 2:
        pil = Image.fromarray(image, "L")
    elif image.shape[2] == 4 and fmt in ("PNG", "WEBP", "TIFF"):
        pil = Image.fromarray(cv2.cvtColor(image, cv2.COLOR_BGRA2RGBA), "RGBA")
    else:
        pil = Image.fromarray(cv2.cvtColor(image[..., :3], cv2.COLOR_BGR2RGB), "RGB")
    options: dict = {}
    if info.dpi is not None and fmt != "WEBP":
        options["dpi"] = info.dpi
    profile = info.icc_profile
    if profile is not None and profile[16:20] == (b"GRAY" if pil.mode == "L" else b"RGB "):
        options["icc_profile"] = profile
    if fmt == "JPEG":
        quality = info.jpeg_quality or _JPEG_QUALITY
        options["quality"] = max(_JPEG_QUALITY_FLOOR, min(_JPEG_QUALITY, quality))
        if info.jpeg_subsampling is not None and pil.mode == "RGB":
            options["subsampling"] = info.jpeg_subsampling
    elif fmt == "PNG":
        options["compress_level"] = 3  # 2-3x faster than Pillow's default (6); photos as small, screenshots 10% larger
    elif fmt == "WEBP":
        if info.format is not None and not info.lossy:
            options["lossless"] = True
        else:
            options["quality"] = _JPEG_QUALITY
        if info.dpi is not None:  # WebP has no resolution field of its own: EXIF's, and only that
            exif = Image.Exif()
            exif[0x011A], exif[0x011B], exif[0x0128] = info.dpi[0], info.dpi[1], 2  # X/YResolution, inch
            options["exif"] = exif.tobytes()
    elif fmt == "TIFF":
        options["compression"] = "tiff_adobe_deflate"
    buf = io.BytesIO()
    pil.save(buf, format=fmt, **options)
    return buf.getvalue()


def write_image(path: Path, image: np.ndarray, info: ImageInfo | None = None) -> None:
    """Write ``image`` (BGR or grey uint8) atomically, in the format ``path``'s suffix names (PNG
    when it has none), keeping what ``info`` (the input's) carries: see ``encode_image``."""
    path = Path(path)
    suffix = path.suffix.lower() or ".png"
    if suffix not in _SUFFIX_FORMATS:
        raise PuzzleFormatError(f"{path}: cannot encode an image with suffix {path.suffix!r}")
    # Encoded inside: the temporary file stands for the output while it is being made.
    write_atomically(path, lambda tmp: tmp.write_bytes(encode_image(image, suffix, info)))


def write_debug(folder: Path, stem: str, image: np.ndarray, results: list[PuzzleResult]) -> None:
    from vision.debug import draw_stages

    readings = [r.reading for r in results if r.reading is not None]
    pictures = draw_stages(image, [r.corners_xy for r in results if r.corners_xy is not None], readings)
    for name, picture in pictures.items():
        write_image(folder / f"{stem}-{name}.png", picture)
    log.info("stage pictures written to %s", folder)


# ---------------------------------------------------------------------------------------------
# The book: page images -> one PDF, written as it goes


def write_pdf_book(path: Path, pages: Iterable[Path]) -> int:
    """Assemble image files into one PDF, a page each, at their own print size (their DPI; 72 when none).

    A JPEG, and a PNG of 8-bit grey or RGB (as ``write_image`` writes them), goes into the PDF as it is,
    copied from its file a megabyte at a time; any other image is decoded and compressed one page at
    a time. So memory stays that of one page whatever the number of pages. A page that cannot be read
    is left out with a warning. Nothing is written when no page could be read.

    Returns
    -------
    count : int
        The number of pages in the PDF.
    """
    count = 0

    def write(tmp: Path) -> None:
        nonlocal count
        with open(tmp, "wb") as f:
            pdf = _PdfWriter(f)
            for page in pages:
                try:
                    image = _pdf_image(Path(page))
                except Exception as exc:  # an unreadable page must not cost the whole book
                    log.warning("%s: left out of the book (%s)", page, exc)
                    continue
                pdf.add_page(image)
            pdf.close()
            count = len(pdf.pages)
        if count == 0:
            raise _NoPages

    try:
        write_atomically(Path(path), write)
    except _NoPages:
        pass
    return count


class _NoPages(Exception):
    pass


@dataclass(frozen=True, slots=True)
class _PdfImage:
    """One page's image XObject: its dictionary entries and where its stream's bytes come from."""

    width: int
    height: int
    dpi: tuple[float, float]
    colors: int  # 1 grey, 3 RGB
    entries: str  # /BitsPerComponent, /Filter, /DecodeParms
    length: int
    chunks: Callable[[], Iterable[bytes]]  # the stream's bytes, read when the page is written
    icc: bytes | None


def _pdf_image(path: Path) -> _PdfImage:
    info = read_image_info(path)
    dpi, icc = info.dpi or (72.0, 72.0), info.icc_profile
    with Image.open(path) as im:
        fmt, mode, (width, height) = im.format, im.mode, im.size
    if fmt == "JPEG" and mode in ("L", "RGB") and info.orientation == 1:
        colors, size = (1 if mode == "L" else 3), path.stat().st_size
        return _PdfImage(width, height, dpi, colors, "/BitsPerComponent 8 /Filter /DCTDecode", size,
                         lambda: _file_chunks(path, [(0, size)]), icc)
    if fmt == "PNG":
        idat = _png_idat(path)
        if idat is not None:
            colors = 1 if mode == "L" else 3
            decode = f"/DecodeParms << /Predictor 15 /Colors {colors} /BitsPerComponent 8 /Columns {width} >>"
            return _PdfImage(width, height, dpi, colors, f"/BitsPerComponent 8 /Filter /FlateDecode {decode}",
                             sum(n for _, n in idat), lambda: _file_chunks(path, idat), icc)
    # Anything else (WebP, TIFF, 16-bit, transparent, ...): decoded as the pipeline reads it, this
    # one page only, and compressed.
    rgb = cv2.cvtColor(load_image(path), cv2.COLOR_BGR2RGB)
    height, width = rgb.shape[:2]
    data = zlib.compress(rgb.tobytes(), 6)
    del rgb
    return _PdfImage(width, height, dpi, 3, "/BitsPerComponent 8 /Filter /FlateDecode", len(data), lambda: [data],
                     icc)


def _png_idat(path: Path) -> list[tuple[int, int]] | None:
    """Offsets and lengths of a PNG's IDAT chunks when its pixel data can go into a PDF as it is
    (8-bit grey or RGB, not interlaced); None otherwise."""
    spans = []
    with open(path, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            return None
        while True:
            head = f.read(8)
            if len(head) < 8:
                return None
            length, kind = struct.unpack(">I4s", head)
            if kind == b"IHDR":
                ihdr = f.read(length)
                depth, color, interlace = ihdr[8], ihdr[9], ihdr[12]
                if depth != 8 or color not in (0, 2) or interlace != 0:
                    return None
                f.seek(4, os.SEEK_CUR)
                continue
            if kind == b"IDAT":
                spans.append((f.tell(), length))
            elif kind == b"IEND":
                return spans or None
            f.seek(length + 4, os.SEEK_CUR)


def _file_chunks(path: Path, spans: list[tuple[int, int]], size: int = 1 << 20) -> Iterable[bytes]:
    with open(path, "rb") as f:
        for offset, length in spans:
            f.seek(offset)
            while length > 0:
                chunk = f.read(min(size, length))
                if not chunk:
                    raise OSError(f"{path}: file shorter than when it was read")
                length -= len(chunk)
                yield chunk


class _PdfWriter:
    """A PDF written front to back: objects as they come, the page tree and cross-reference table
    at the end (object 1 the catalogue, 2 the page tree)."""

    def __init__(self, f):
        self.f = f
        self.offsets: dict[int, int] = {}
        self.pages: list[int] = []
        self.next = 3
        f.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")

    def _begin(self, num: int | None = None) -> int:
        if num is None:
            num, self.next = self.next, self.next + 1
        self.offsets[num] = self.f.tell()
        self.f.write(f"{num} 0 obj\n".encode())
        return num

    def _object(self, body: str, num: int | None = None) -> int:
        num = self._begin(num)
        self.f.write(body.encode() + b"\nendobj\n")
        return num

    def _stream(self, entries: str, length: int, chunks: Iterable[bytes]) -> int:
        num = self._begin()
        self.f.write(f"<< {entries} /Length {length} >>\nstream\n".encode())
        written = 0
        for chunk in chunks:
            self.f.write(chunk)
            written += len(chunk)
        if written != length:
            raise OSError(f"stream of {written} bytes where {length} were announced")
        self.f.write(b"\nendstream\nendobj\n")
        return num

    def add_page(self, image: _PdfImage) -> None:
        space = "/DeviceGray" if image.colors == 1 else "/DeviceRGB"
        icc = image.icc
        if icc is not None and icc[16:20] == (b"GRAY" if image.colors == 1 else b"RGB "):
            data = zlib.compress(icc)
            profile = self._stream(f"/N {image.colors} /Alternate {space} /Filter /FlateDecode", len(data), [data])
            space = f"[/ICCBased {profile} 0 R]"
        xobject = self._stream(f"/Type /XObject /Subtype /Image /Width {image.width} /Height {image.height} "
                               f"/ColorSpace {space} {image.entries}", image.length, image.chunks())
        w_pt, h_pt = image.width * 72 / image.dpi[0], image.height * 72 / image.dpi[1]
        shrink = min(1.0, 14400 / max(w_pt, h_pt))  # PDF viewers stop at 200 inches a side
        w_pt, h_pt = max(3.0, w_pt * shrink), max(3.0, h_pt * shrink)
        content = f"q {w_pt:.3f} 0 0 {h_pt:.3f} 0 0 cm /Im0 Do Q".encode()
        contents = self._stream("", len(content), [content])
        self.pages.append(self._object(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w_pt:.3f} {h_pt:.3f}] "
            f"/Resources << /XObject << /Im0 {xobject} 0 R >> >> /Contents {contents} 0 R >>"))

    def close(self) -> None:
        self._object("<< /Type /Catalog /Pages 2 0 R >>", 1)
        kids = " ".join(f"{n} 0 R" for n in self.pages)
        self._object(f"<< /Type /Pages /Kids [{kids}] /Count {len(self.pages)} >>", 2)
        start = self.f.tell()
        size = self.next
        lines = [b"xref\n", f"0 {size}\n".encode(), b"0000000000 65535 f \n"]
        lines += [f"{self.offsets[n]:010d} 00000 n \n".encode() for n in range(1, size)]
        self.f.write(b"".join(lines))
        self.f.write(f"trailer\n<< /Size {size} /Root 1 0 R >>\nstartxref\n{start}\n%%EOF\n".encode())
