"""Rebuild ``vision/data/glyphs.npz``: the printed-digit classifier used by ``vision.ocr``.

Digits 0-9 are rendered with every suitable font on this machine (DejaVu, Liberation, FreeFont,
URW base35, Noto; regular, bold, condensed, italic), then degraded the way clue digits are in
photos and scans: stroke thickness, rotation, shear, width, tiny print sizes, blur, noise,
threshold jitter and cuts by the cell border. An eleventh class holds ink that is not one digit:
line fragments, specks, border corners, texture and two digits touching (so the reader knows to
split them).

Font families matching ``HOLDOUT_PATTERNS`` are never used here; ``tests/test_ocr.py`` renders
clue cells with them to measure how the model does on fonts it has not seen.

The network (see ``vision.glyphs``) is trained with PyTorch, which only this tool needs (the CPU
build is enough: ``pip install torch --index-url https://download.pytorch.org/whl/cpu``); the
reader runs the shipped weights in numpy.

Usage: ``python tools/train_glyphs.py [--out vision/data/glyphs.npz] [--per-class 32] [--seed 0]
[--harvest-cache glyphs-harvest.npz]``
"""
from __future__ import annotations

import argparse
import glob
import math
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from synthetic.render import draws_digits  # noqa: E402
from vision.glyphs import N_CLASSES, REJECT, GlyphClassifier, glyph_inputs  # noqa: E402

FONT_GLOBS = [
    "/usr/share/fonts/truetype/**/*.ttf",
    "/usr/share/fonts/opentype/**/*.otf",
]
# Not digits, or not print-like digits (symbols, icons, maths, calligraphy, emoji). Noto is left
# out whole: its script families carry the held-out Noto Sans digits.
EXCLUDE_PATTERNS = ["D050000L", "StandardSymbols", "Z003", "Math", "Noto", "Symbol", "Emoji", "Icons",
                    "awesome", "Dingbat", "OCR", "Bebas", "OpenDyslexic", "Humor", "math", "Sketch",
                    "Hairline", "Thin", "ExtraLight"]
# Families kept out of training so the tests measure generalisation to unseen fonts.
HOLDOUT_PATTERNS = ["NotoSans-", "NotoSerif-", "NotoSansDisplay-", "NotoSerifDisplay-",
                    "URWGothic", "FreeSerif", "FreeMono"]


def _all_font_files() -> list[str]:
    files: list[str] = []
    for pattern in FONT_GLOBS:
        files.extend(sorted(glob.glob(pattern, recursive=True)))
    return [f for f in files if draws_digits(f)]


def holdout_fonts() -> list[str]:
    """Font files reserved for testing (present on this machine)."""
    return [f for f in _all_font_files()
            if any(p in os.path.basename(f) for p in HOLDOUT_PATTERNS)]


def training_fonts() -> list[str]:
    """Font files used for training: every Latin text font found, minus the held-out families."""
    out = []
    for f in _all_font_files():
        name = os.path.basename(f)
        if any(p in name for p in HOLDOUT_PATTERNS) or any(p in name for p in EXCLUDE_PATTERNS):
            continue
        out.append(f)
    return out


def render_text(font_path: str, text: str, size: int = 96, spacing: int = 0) -> np.ndarray:
    """Render ``text`` as a float ink mask (1 = ink) cropped to its ink, with a small margin."""
    font = ImageFont.truetype(font_path, size)
    w = size * (len(text) + 1) + 40
    im = Image.new("L", (w, size * 2), 0)
    draw = ImageDraw.Draw(im)
    x = 20
    for ch in text:
        draw.text((x, size // 3), ch, font=font, fill=255)
        x += font.getbbox(ch)[2] + spacing
    a = np.asarray(im, np.float32) / 255.0
    ys, xs = np.nonzero(a > 0.05)
    if ys.size == 0:
        return np.zeros((8, 8), np.float32)
    pad = 6
    return a[max(0, ys.min() - pad): ys.max() + pad + 1, max(0, xs.min() - pad): xs.max() + pad + 1]


def degrade(ink: np.ndarray, rng: np.random.Generator, *, heavy: bool = False) -> np.ndarray:
    """Turn a large clean ink mask into a small, plausibly printed/photographed glyph: uint8 ink
    strength where a threshold finds ink, 0 elsewhere."""
    a = ink.copy()
    # Stroke thickness (at render scale).
    k = int(rng.integers(-3, 4)) if heavy or rng.random() < 0.6 else 0
    if k:
        ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(k) + 1, 2 * abs(k) + 1))
        a = cv2.dilate(a, ker) if k > 0 else cv2.erode(a, ker)
    # Rotation, shear (italic / perspective) and width (condensed / extended).
    h, w = a.shape
    pad = int(0.3 * max(h, w))
    a = cv2.copyMakeBorder(a, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    h, w = a.shape
    ang = math.radians(rng.normal(0, 2.5 if not heavy else 4.0))
    shear = rng.normal(0, 0.08 if not heavy else 0.14)
    sx = float(np.exp(rng.normal(0, 0.12)))
    c, s = math.cos(ang), math.sin(ang)
    m = np.array([[c * sx, -s + shear, 0], [s * sx, c, 0]], np.float32)
    centre = np.array([w / 2, h / 2], np.float32)
    m[:, 2] = centre - m[:, :2] @ centre
    a = cv2.warpAffine(a, m, (w, h), flags=cv2.INTER_LINEAR)
    ys, xs = np.nonzero(a > 0.05)
    if ys.size == 0:
        return np.zeros((4, 4), np.uint8)
    a = a[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]
    a = cv2.copyMakeBorder(a, 4, 4, 4, 4, cv2.BORDER_CONSTANT, value=0)
    # Print size: clue digits are often only 7..15 px tall.
    target_h = float(np.exp(rng.uniform(np.log(7), np.log(40))))
    scale = target_h / (a.shape[0] - 8)
    nh, nw = max(3, round(a.shape[0] * scale)), max(3, round(a.shape[1] * scale))
    a = cv2.resize(a, (nw, nh), interpolation=cv2.INTER_AREA)
    if rng.random() < (0.3 if heavy else 0.15):
        # Ink spread at print size: a bold stroke or ink bleeding into newsprint adds about a pixel
        # all round whatever the digit's height, which closes the gaps of a small "3" or "5".
        a = cv2.dilate(cv2.copyMakeBorder(a, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0),
                       cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    blur = rng.uniform(0, 0.9 if heavy else 0.6)
    if blur > 0.2:
        a = cv2.GaussianBlur(a, (0, 0), blur)
    a = a + rng.normal(0, rng.uniform(0, 0.2 if heavy else 0.1), a.shape).astype(np.float32)
    mask = a > rng.uniform(0.3, 0.65)
    # The reader sees each ink pixel's strength relative to the darkest ink (vision.ocr._ink_mask).
    soft = np.where(mask, np.clip(np.rint(255.0 * a / max(float(a.max()), 1e-3)), 1, 255), 0).astype(np.uint8)
    # Cut by the cell border or the diagonal.
    if rng.random() < (0.3 if heavy else 0.12):
        ys, xs = np.nonzero(mask)
        if ys.size:
            side = rng.integers(4)
            frac = rng.uniform(0.03, 0.12)
            if side == 0:
                mask[: ys.min() + int(frac * (ys.max() - ys.min() + 1)) + 0, :] = False
            elif side == 1:
                mask[ys.max() - int(frac * (ys.max() - ys.min() + 1)) + 1:, :] = False
            elif side == 2:
                mask[:, : xs.min() + int(frac * (xs.max() - xs.min() + 1))] = False
            else:
                mask[:, xs.max() - int(frac * (xs.max() - xs.min() + 1)) + 1:] = False
    return np.where(mask, soft, 0).astype(np.uint8)


def _reject_sample(rng: np.random.Generator, fonts: list[str], cache: dict) -> np.ndarray:
    """Ink that must not be read as one digit."""
    kind = rng.integers(6)
    size = 64
    img = np.zeros((size, size), np.uint8)
    t = int(rng.integers(1, 7))
    if kind == 0:  # a straight fragment (diagonal, border), never near-vertical like a "1"
        ang = rng.choice([0.0, 45.0, -45.0, 30.0, -30.0, 60.0, -60.0]) + rng.normal(0, 6)
        ln = rng.uniform(10, 60)
        dx, dy = ln / 2 * math.cos(math.radians(ang)), ln / 2 * math.sin(math.radians(ang))
        cv2.line(img, (int(32 - dx), int(32 - dy)), (int(32 + dx), int(32 + dy)), 255, t)
    elif kind == 1:  # speck / blot
        ax = (int(rng.integers(2, 14)), int(rng.integers(2, 14)))
        cv2.ellipse(img, (32, 32), ax, float(rng.uniform(0, 180)), 0, 360, 255, -1)
    elif kind == 2:  # a border corner or junction
        x0, y0 = int(rng.integers(10, 30)), int(rng.integers(10, 30))
        cv2.line(img, (x0, y0), (60, y0), 255, t)
        cv2.line(img, (x0, y0), (x0, 60), 255, t)
        if rng.random() < 0.5:
            cv2.line(img, (x0, y0), (60, 60), 255, t)
    elif kind == 3:  # a wedge where the diagonal meets a border
        pts = np.array([[4, 4], [60, 4], [int(rng.integers(20, 60)), int(rng.integers(8, 30))]], np.int32)
        cv2.fillPoly(img, [pts], 255)
    elif kind == 4:  # texture (hatching, paper grain)
        noise = rng.random((16, 16)).astype(np.float32)
        img = (cv2.resize(noise, (size, size)) > rng.uniform(0.55, 0.75)).astype(np.uint8) * 255
    else:  # two digits touching: the reader must split them
        font = fonts[int(rng.integers(len(fonts)))]
        pair = f"{rng.integers(1, 5)}{rng.integers(0, 10)}"
        key = (font, pair)
        if key not in cache:
            cache[key] = render_text(font, pair, spacing=-int(rng.integers(6, 14)))
        return degrade(cache[key], rng)
    return degrade(img.astype(np.float32) / 255.0, rng)


def make_dataset(fonts: list[str], per_class: int, rng: np.random.Generator, *, heavy_frac: float = 0.35,
                 reject_frac: float = 1.5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Render and degrade ``per_class`` samples of each digit per font, plus rejects: the network's
    inputs (images, log aspect ratios) and labels."""
    masks, labels = [], []
    base = {(f, d): render_text(f, str(d)) for f in fonts for d in range(10)}
    for (f, d), ink in base.items():
        for _ in range(per_class):
            masks.append(degrade(ink, rng, heavy=rng.random() < heavy_frac))
            labels.append(d)
    cache: dict = {}
    n_rej = int(reject_frac * per_class * len(fonts))
    for _ in range(n_rej):
        masks.append(_reject_sample(rng, fonts, cache))
        labels.append(REJECT)
    keep = [i for i, m in enumerate(masks) if m.any()]
    images, log_aspect = glyph_inputs([masks[i] for i in keep])
    return images, log_aspect, np.array([labels[i] for i in keep], np.int64)


def _harvest_one(args: tuple[int, list[str]]) -> tuple[list[np.ndarray], list[int]]:
    """Glyphs cut by the real pipeline from one rendered, photographed puzzle, labelled by its truth."""
    seed, fonts = args
    import dataclasses

    from vision import ocr
    from vision.grid import locate_puzzles
    from vision.read import _cell_crop, straighten_grid
    from synthetic.render import photograph, random_puzzle, random_style, render_puzzle

    rng = np.random.default_rng([seed, 7])
    rows, cols = int(rng.integers(5, 16)), int(rng.integers(5, 16))
    level = str(rng.choice(["clean", "photo", "photo", "hard"]))
    try:
        if seed % 3 == 2:
            # The print styles of the world (numbers in discs, grey and tinted cells, dark mode,
            # app tiles, ...), each glyph cut as the reader cuts it from that look.
            from synthetic import render
            from synthetic.render import STYLE_FAMILIES, render_family

            # Only the training fonts: the held-out ones measure generalisation.
            printed, pen = render.available_fonts()
            allowed = set(fonts)
            render.available_fonts = lambda: (tuple(p for p in printed if p in allowed) or tuple(fonts),
                                              tuple(p for p in pen if p in allowed) or tuple(fonts))
            families = [f for f in STYLE_FAMILIES if f != "answer_key"]
            family = families[int(rng.integers(len(families)))]
            puzzle, values = random_puzzle(rng, rows, cols)
            longest = max(rows, cols)
            cell_px = int(rng.integers(max(30, 300 // longest + 1), min(80, 1600 // longest) + 1))
            image, _, _, _ = render_family(rng, family, [puzzle], [values], cell_px=cell_px,
                                           level=None if level == "clean" else level)
        elif seed % 2:
            # The other renderer: its own styles, layouts, givens and pen marks.
            from synthetic import synth

            style = synth.random_style(rng, fonts=fonts)
            puzzle, values = synth.random_puzzle(rng, rows, cols)
            puzzle, pen = synth._decorate(rng, puzzle, values)
            image, corners = synth.render_puzzle(puzzle, style, values=pen)
            image, corners = synth.photograph(image, corners, rng, level=level)
        else:
            puzzle, _ = random_puzzle(rng, rows, cols)
            longest = max(rows, cols)
            style = random_style(rng, int(rng.integers(max(22, 300 // longest + 1), min(80, 1600 // longest) + 1)))
            style = dataclasses.replace(style, font_path=fonts[int(rng.integers(len(fonts)))])
            image, corners = render_puzzle(puzzle, style, rng=rng)
            image, corners = photograph(image, corners, rng, level)
    except Exception:  # noqa: BLE001 - a layout the generator could not fill: skip it
        return [], []
    masks: list[np.ndarray] = []
    labels: list[int] = []
    for geometry in locate_puzzles(image):
        if geometry.lattice.shape != (puzzle.n_rows, puzzle.n_cols):
            continue
        # Not read: the glyphs are cut as the reader cuts them, whatever model is shipped now.
        warped, _, _, read_lattice = straighten_grid(image, geometry)
        cells = []
        for clue in puzzle.clues:
            crop = _cell_crop(warped, read_lattice, clue.row, clue.col)
            if min(crop.shape[:2]) < 8:
                continue
            split = [ocr._split_levels(crop, (level,))[0] for level in ocr.WEAK_LEVELS]
            found = [ocr._disc_digits(crop, halves, level) for halves, level in zip(split, ocr.WEAK_LEVELS)]
            cells.append((clue, split, found))
        # As the reader does, a grid's numbers are in discs throughout or not at all (a bold "0"
        # alone can pass for a disc).
        numbered = [any(f[j] is not None for f in found) for clue, _, found in cells
                    for j, value in enumerate((clue.down, clue.across)) if value is not None]
        in_discs = bool(numbered) and sum(numbered) >= ocr._DISC_GRID_SHARE * len(numbered)
        for clue, split, found in cells:
            cut = []
            for j, value in enumerate((clue.down, clue.across)):
                # A number in a disc is read from the disc's digits, which come out the same at
                # every level where the disc is found: those once. Where a level missed the disc,
                # its half holds the disc as one blot, which is no digit of the clue's.
                discs = [f[j] for f in found if f[j] is not None] if in_discs else []
                if discs:
                    cut.append((discs[0], value))
                    # The disc whole, as a level that missed it cuts it: a blot with holes,
                    # which must lose to the digits read inside it.
                    for halves, f in zip(split, found):
                        if f[j] is None and len(blot := ocr._segment(halves[j])) == 1:
                            masks.append(blot[0].mask)
                            labels.append(REJECT)
                elif not in_discs:
                    cut.extend((halves[j], value) for halves in split)
                # (a half of a grid printed with discs where none was found holds the disc as a
                # blot, its digits too faint to tell: no glyph to learn from)
            for half, value in cut:
                glyphs = ocr._segment(half)
                digits = [] if value is None else [int(ch) for ch in str(value)]
                if len(glyphs) == len(digits):
                    masks.extend(g.mask for g in glyphs)
                    labels.extend(digits)
                elif value is None or (len(glyphs) == 1 and len(digits) == 2):
                    # Stray ink in an empty half, or two digits run together: not one digit.
                    masks.extend(g.mask for g in glyphs)
                    labels.extend([REJECT] * len(glyphs))
        break
    return masks, labels


def harvest_pipeline_glyphs(fonts: list[str], n_images: int, seed: int, jobs: int = 2
                            ) -> tuple[list[np.ndarray], np.ndarray]:
    """Glyph masks as the reader really sees them (after locating, rectifying, splitting and line
    removal), from puzzles drawn in the training fonts by ``synthetic.render``, ``synthetic.synth`` and
    ``synthetic.render``'s style families (numbers in discs, grey and tinted cells, dark mode, app
    tiles; one image in three) and photographed."""
    import multiprocessing

    tasks = [(seed * 100000 + i, fonts) for i in range(n_images)]
    masks: list[np.ndarray] = []
    labels: list[int] = []
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        for m, y in pool.imap_unordered(_harvest_one, tasks, chunksize=4):
            masks.extend(m)
            labels.extend(y)
    return masks, np.array(labels, np.int64)


def train_network(images: np.ndarray, log_aspect: np.ndarray, y: np.ndarray, *, epochs: int = 8,
                  seed: int = 0, threads: int = 2) -> dict[str, np.ndarray]:
    """Train the network of ``vision.glyphs`` with PyTorch (AdamW, one-cycle rate, shifts of up to
    two pixels, light label smoothing); about a minute an epoch on two cores for 300k glyphs."""
    try:
        import torch
        import torch.nn.functional as F
        from torch import nn
    except ImportError as exc:
        raise SystemExit("training the glyph network needs PyTorch: pip install torch "
                         "--index-url https://download.pytorch.org/whl/cpu") from exc
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    gen = np.random.default_rng(seed)

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.c1 = nn.Conv2d(1, 16, 3, padding=1)
            self.c2 = nn.Conv2d(16, 32, 3, padding=1)
            self.c3 = nn.Conv2d(32, 64, 3, padding=1)
            self.f1 = nn.Linear(64 * 4 * 4 + 1, 128)
            self.f2 = nn.Linear(128, N_CLASSES)
            self.drop = nn.Dropout(0.3)

        def forward(self, x, aspect):
            for conv in (self.c1, self.c2, self.c3):
                x = F.max_pool2d(F.relu(conv(x)), 2)
            x = torch.cat([x.flatten(1), aspect], 1)
            return self.f2(self.drop(F.relu(self.f1(x))))

    x = torch.tensor(images, dtype=torch.float32).unsqueeze(1) / 255.0
    a = torch.tensor(log_aspect, dtype=torch.float32).unsqueeze(1)
    t = torch.tensor(y, dtype=torch.long)
    net = Net()
    bs = 256
    steps = epochs * (len(t) // bs)
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps)
    for epoch in range(epochs):
        order = torch.randperm(len(t))
        for i in range(0, len(t) - bs + 1, bs):
            idx = order[i: i + bs]
            dy, dx = (int(v) for v in gen.integers(-2, 3, 2))
            batch = torch.roll(x[idx], (dy, dx), (2, 3))  # the glyph box never fills the canvas edge
            loss = F.cross_entropy(net(batch, a[idx]), t[idx], label_smoothing=0.03)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        print(f"epoch {epoch + 1}/{epochs}: loss {loss.item():.3f}", file=sys.stderr)
    params = {k.replace(".", "_"): v.detach().numpy().astype(np.float32) for k, v in net.state_dict().items()}
    params["temperature"] = np.array(1.0, np.float32)
    return params


def calibrate_temperature(params: dict[str, np.ndarray], images: np.ndarray, log_aspect: np.ndarray,
                          y: np.ndarray) -> float:
    """Temperature minimising negative log-likelihood on held-out samples."""
    params["temperature"] = np.array(1.0, np.float32)
    p1 = GlyphClassifier.from_params(params).predict_inputs(images, log_aspect)
    logits = np.log(np.maximum(p1, 1e-30))  # logits up to a constant per glyph
    best_t, best_nll = 1.0, np.inf
    for t in np.exp(np.linspace(np.log(0.5), np.log(4.0), 36)):
        z = logits / t
        z -= z.max(axis=1, keepdims=True)
        nll = float(np.mean(np.log(np.exp(z).sum(axis=1)) - z[np.arange(len(y)), y]))
        if nll < best_nll:
            best_t, best_nll = float(t), nll
    params["temperature"] = np.array(best_t, np.float32)
    return best_t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "vision" / "data" / "glyphs.npz"))
    ap.add_argument("--per-class", type=int, default=32, help="samples per digit per font")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--harvest", type=int, default=600,
                    help="rendered puzzles whose glyphs, as the pipeline cuts them, join the training set")
    ap.add_argument("--harvest-cache", type=Path, default=None, metavar="NPZ",
                    help="keep the harvested glyphs here, and reuse them when the file exists (the "
                         "harvest is most of a retrain's time; delete the file after changing how "
                         "the reader cuts glyphs)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)

    t0 = time.time()
    fonts = training_fonts()
    print(f"{len(fonts)} training fonts, {len(holdout_fonts())} held out", file=sys.stderr)
    rng = np.random.default_rng(args.seed)
    x, a, y = make_dataset(fonts, args.per_class, rng)
    xv, av, yv = make_dataset(fonts, max(4, args.per_class // 8), rng)
    if args.harvest:
        if args.harvest_cache is not None and args.harvest_cache.exists():
            with np.load(args.harvest_cache) as cached:
                xh, ah, yh = cached["images"], cached["log_aspect"], cached["labels"]
            print(f"{len(yh)} pipeline glyphs from {args.harvest_cache}", file=sys.stderr)
        else:
            masks, labels = harvest_pipeline_glyphs(fonts, args.harvest, args.seed, args.jobs)
            keep = [i for i, m in enumerate(masks) if m.any()]
            (xh, ah), yh = glyph_inputs([masks[i] for i in keep]), labels[keep]
            print(f"harvested {len(yh)} pipeline glyphs ({time.time() - t0:.0f} s)", file=sys.stderr)
            if args.harvest_cache is not None:
                np.savez_compressed(args.harvest_cache, images=xh, log_aspect=ah, labels=yh)
        # Twice: they are what the reader meets, the rendered digits are what it must generalise from.
        x, a, y = np.concatenate([x, xh, xh]), np.concatenate([a, ah, ah]), np.concatenate([y, yh, yh])
    print(f"train {len(y)} / val {len(yv)} glyphs ({time.time() - t0:.0f} s)", file=sys.stderr)
    params = train_network(x, a, y, epochs=args.epochs, seed=args.seed, threads=args.jobs)
    t = calibrate_temperature(params, xv, av, yv)
    clf = GlyphClassifier.from_params(params)
    acc_v = float((clf.predict_inputs(xv, av).argmax(1) == yv).mean())
    xo, ao, yo = make_dataset(holdout_fonts(), 6, rng, reject_frac=0.0)
    acc_h = float((clf.predict_inputs(xo, ao).argmax(1) == yo).mean())
    print(f"temperature {t:.2f}; val acc {acc_v:.4f}; held-out-font acc {acc_h:.4f} "
          f"({time.time() - t0:.0f} s)", file=sys.stderr)
    save_weights(params, Path(args.out))
    return 0


def save_weights(params: dict[str, np.ndarray], out: Path) -> None:
    """Write a network's weights as the reader loads them (weights in float16, the rest as they are)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, **{k: (v.astype(np.float16) if k.endswith("weight") else v)
                                for k, v in params.items()})
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB)", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
