"""Render synthetic Kakuro clue cells (and given-digit cells) for OCR tests.

Cells are drawn at 4x and downsampled, in the styles found in the wild: white digits on black,
dark digits on grey / light blue / green, newspaper white with a thin diagonal, wikipedia-style
white triangles on black, halves shaded differently. ``degrade`` adds what photos and scans do.
Tests use fonts held out of training (``tools/train_glyphs.HOLDOUT_PATTERNS``).
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[1]
STYLES = ("black", "grey", "blue", "newspaper", "wiki", "two_tone")


def load_trainer():
    """The training script as a module (for its font lists)."""
    spec = importlib.util.spec_from_file_location("train_glyphs", ROOT / "tools" / "train_glyphs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _text(draw, font, text, centre_xy, fill):
    l, t, r, b = draw.textbbox((0, 0), text, font=font)
    cx, cy = centre_xy
    draw.text((cx - (l + r) / 2, cy - (t + b) / 2), text, font=font, fill=fill)


def render_clue_cell(font_path: str, down: int | None, across: int | None, *, side: int = 56,
                     style: str = "grey", digit_h: float = 0.24, rng: np.random.Generator | None = None
                     ) -> np.ndarray:
    """A BGR clue cell of ``side`` pixels (grid lines included) with the given sums."""
    rng = rng or np.random.default_rng(0)
    k = 4
    s = side * k
    bgs = {"black": (0, 0, 0), "grey": (200, 200, 200), "blue": (250, 200, 140),
           "newspaper": (255, 255, 255), "wiki": (0, 0, 0), "two_tone": (120, 120, 120)}
    ink = {"black": (255, 255, 255), "grey": (0, 0, 0), "blue": (30, 30, 30), "newspaper": (0, 0, 0),
           "wiki": (0, 0, 0), "two_tone": (255, 255, 255)}[style]
    line = {"black": (255, 255, 255), "grey": (0, 0, 0), "blue": (0, 0, 0), "newspaper": (0, 0, 0),
            "wiki": (0, 0, 0), "two_tone": (40, 40, 40)}[style]
    im = Image.new("RGB", (s, s), bgs[style][::-1])
    draw = ImageDraw.Draw(im)
    if style == "wiki":  # black cell; a white triangle only where a clue is printed
        if down is not None:
            draw.polygon([(0, 0), (0, s), (s, s)], fill=(255, 255, 255))
        if across is not None:
            draw.polygon([(0, 0), (s, 0), (s, s)], fill=(255, 255, 255))
    if style == "two_tone":
        draw.polygon([(0, 0), (0, s), (s, s)], fill=(90, 90, 90))
    lw = max(1, int(k * rng.uniform(0.6, 2.0)))
    draw.line([(0, 0), (s, s)], fill=line[::-1], width=lw)
    border = max(k, int(k * rng.uniform(1, 3)))
    draw.rectangle([0, 0, s - 1, s - 1], outline=(0, 0, 0) if style != "black" else (255, 255, 255),
                   width=border)
    font = ImageFont.truetype(font_path, 100)
    l, t, r, b = draw.textbbox((0, 0), "8", font=font)
    font = ImageFont.truetype(font_path, max(6, int(100 * digit_h * s / (b - t))))
    fill = ink[::-1]
    if down is not None:
        _text(draw, font, str(down), (s * rng.uniform(0.27, 0.33), s * rng.uniform(0.70, 0.76)), fill)
    if across is not None:
        _text(draw, font, str(across), (s * rng.uniform(0.67, 0.73), s * rng.uniform(0.26, 0.32)), fill)
    arr = np.asarray(im)[:, :, ::-1]
    return cv2.resize(arr, (side, side), interpolation=cv2.INTER_AREA)


def render_given_cell(font_path: str, digit: int | None, *, side: int = 56, digit_h: float = 0.5,
                      ink_bgr=(0, 0, 0), bg_bgr=(255, 255, 255)) -> np.ndarray:
    """A BGR white cell with a printed given digit (or empty)."""
    k = 4
    s = side * k
    im = Image.new("RGB", (s, s), bg_bgr[::-1])
    draw = ImageDraw.Draw(im)
    draw.rectangle([0, 0, s - 1, s - 1], outline=(0, 0, 0), width=2 * k)
    if digit is not None:
        font = ImageFont.truetype(font_path, 100)
        l, t, r, b = draw.textbbox((0, 0), "8", font=font)
        font = ImageFont.truetype(font_path, int(100 * digit_h * s / (b - t)))
        _text(draw, font, str(digit), (s / 2, s / 2), ink_bgr[::-1])
    return cv2.resize(np.asarray(im)[:, :, ::-1], (side, side), interpolation=cv2.INTER_AREA)


def degrade(cell: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Photo/scan damage: lattice misalignment, small rotation, blur, noise, uneven light, JPEG."""
    h, w = cell.shape[:2]
    # A lattice that is a few percent off: shift and rescale the crop window.
    dx, dy = rng.uniform(-0.04, 0.04, 2) * w
    sc = rng.uniform(0.96, 1.04)
    ang = rng.normal(0, 1.5)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), ang, sc)
    m[:, 2] += (dx, dy)
    out = cv2.warpAffine(cell, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
    out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.0))
    out = out.astype(np.float32)
    # Lighting gradient and contrast loss.
    gx = np.linspace(-1, 1, w)[None, :, None]
    out = out * rng.uniform(0.75, 1.0) + rng.uniform(0, 40) + gx * rng.uniform(-20, 20)
    out += rng.normal(0, rng.uniform(2, 9), out.shape)
    out = np.clip(out, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 85))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def random_cells(fonts: list[str], n: int, seed: int, *, degraded: bool = False):
    """``n`` (cell, down, across) triples over random fonts, styles, sizes and sums."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        font = fonts[i % len(fonts)]
        style = STYLES[int(rng.integers(len(STYLES)))]
        down = int(rng.integers(1, 46)) if rng.random() < 0.8 else None
        across = int(rng.integers(1, 46)) if rng.random() < 0.8 else None
        side = int(rng.integers(36, 90))
        cell = render_clue_cell(font, down, across, side=side, style=style,
                                digit_h=float(rng.uniform(0.2, 0.3)), rng=rng)
        if degraded:
            cell = degrade(cell, rng)
        out.append((cell, down, across))
    return out


def digit_accuracy(truth: int | None, read: int | None) -> tuple[int, int]:
    """(correct digits, true digits) for one number, position by position."""
    if truth is None:
        return 0, 0
    t = str(truth)
    r = "" if read is None else str(read)
    if len(r) != len(t):
        return 0, len(t)
    return sum(a == b for a, b in zip(t, r)), len(t)


__all__ = ["render_clue_cell", "render_given_cell", "degrade", "random_cells", "digit_accuracy",
           "load_trainer", "STYLES"]
