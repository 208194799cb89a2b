"""Clue and given-digit reading: the shipped glyph model and real tesseract, no mocks.

Synthetic cells use font families held out of training (see tools/train_glyphs.py), so the
accuracy floors below measure generalisation to unseen fonts. Real cells are cut from clean
renders by an equal-spaced lattice inside the grid's dark outer frame.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import ocr
from vision.glyphs import MODEL_PATH, REJECT, GlyphClassifier, default_classifier
from vision.imageio import load_image
from vision.types import NumberRead

from synthetic.clue_cells import (degrade, digit_accuracy, load_trainer, random_cells, render_clue_cell,
                       render_given_cell)

from conftest import IMAGES, SAMPLES, load_transcription, read_tokens

REAL = ["site_7x7.png", "site_5x5.png", "wikipedia_8x8.png", "grey_white_digits_14x12.jpg"]
HAS_TESSERACT = shutil.which("tesseract") is not None


@pytest.fixture(scope="module")
def heldout_fonts() -> list[str]:
    fonts = load_trainer().holdout_fonts()
    if len(fonts) < 4:
        pytest.skip("held-out test fonts (Noto, URW Gothic, FreeSerif/FreeMono) not installed")
    return fonts


# ---------------------------------------------------------------------------- real cells


def _load_bgr(path: Path) -> np.ndarray:
    im = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if im.ndim == 3 and im.shape[2] == 4:  # flatten transparency onto white
        alpha = im[:, :, 3:4].astype(np.float32) / 255.0
        im = (im[:, :, :3] * alpha + 255.0 * (1.0 - alpha)).astype(np.uint8)
    return im


def real_clue_cells(name: str):
    """(cell, down, across) for every clue cell of a clean render, from its transcription."""
    image = _load_bgr(SAMPLES / name)
    grid = read_tokens((SAMPLES / name).with_suffix(".txt"))
    n_rows, n_cols = len(grid), len(grid[0])
    dark = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) < 100
    rows = np.nonzero(dark.mean(1) > 0.5)[0]   # the outer frame: the first and last full lines
    cols = np.nonzero(dark.mean(0) > 0.5)[0]
    ys = np.linspace(rows[0], rows[-1], n_rows + 1)
    xs = np.linspace(cols[0], cols[-1], n_cols + 1)
    out = []
    for r in range(n_rows):
        for c in range(n_cols):
            tok = grid[r][c]
            if "\\" not in tok:
                continue
            d, a = (int(t) if t else None for t in tok.split("\\"))
            cell = image[round(ys[r]): round(ys[r + 1]) + 1, round(xs[c]): round(xs[c + 1]) + 1]
            out.append((cell, d, a))
    return out


@pytest.mark.parametrize("name", REAL)
def test_real_clue_cells_are_read_exactly(name):
    cells = real_clue_cells(name)
    reads = ocr.GlyphReader().read_cells([c for c, _, _ in cells])
    wrong = [(d, a, rd.value, ra.value) for (_, d, a), (rd, ra) in zip(cells, reads)
             if (rd.value, ra.value) != (d, a)]
    assert not wrong, f"{name}: (truth down, across, read down, across): {wrong}"
    assert min(r.confidence for pair in reads for r in pair) > 0.5


@pytest.mark.skipif(not HAS_TESSERACT, reason="tesseract-ocr not installed")
def test_tesseract_reads_a_whole_puzzle_in_one_call():
    class CountingReader(ocr.TesseractReader):
        calls = 0

        def _run(self, line_images):
            CountingReader.calls += 1
            return super()._run(line_images)

    cells = real_clue_cells("site_7x7.png") + real_clue_cells("grey_white_digits_14x12.jpg")
    reads = CountingReader().read_cells([c for c, _, _ in cells])
    assert CountingReader.calls == 1
    truth = [v for _, d, a in cells for v in (d, a)]
    got = [r.value for pair in reads for r in pair]
    assert np.mean([g == t for g, t in zip(got, truth)]) >= 0.95


# ---------------------------------------------------------------------------- synthetic cells


def _score(cells, reads):
    n_ok = n = d_ok = d_n = confident_wrong = 0
    for (_, d, a), pair in zip(cells, reads):
        for truth, r in zip((d, a), pair):
            n += 1
            n_ok += r.value == truth
            confident_wrong += r.value != truth and r.confidence > 0.9
            ok, tot = digit_accuracy(truth, r.value)
            d_ok, d_n = d_ok + ok, d_n + tot
    return n_ok / n, d_ok / d_n, confident_wrong / n


def test_heldout_fonts_are_not_trained_on():
    tr = load_trainer()
    assert not set(tr.holdout_fonts()) & set(tr.training_fonts())


def test_synthetic_cells_in_unseen_fonts(heldout_fonts):
    cells = random_cells(heldout_fonts, 150, seed=11)
    reads = ocr.GlyphReader().read_cells([c for c, _, _ in cells])
    numbers, digits, confident_wrong = _score(cells, reads)
    assert numbers >= 0.97 and digits >= 0.97
    assert confident_wrong <= 0.01
    # Speed per cell: bench/ocr.py.


def test_degraded_synthetic_cells_in_unseen_fonts(heldout_fonts):
    cells = random_cells(heldout_fonts, 150, seed=12, degraded=True)
    reads = ocr.GlyphReader().read_cells([c for c, _, _ in cells])
    numbers, digits, confident_wrong = _score(cells, reads)
    assert numbers >= 0.88 and digits >= 0.88
    assert confident_wrong <= 0.03
    # Confidence must mean something: numbers read wrong are much less sure than right ones.
    # (A half too faint to hold any ink reads as empty, which says nothing about the classifier.)
    truth = [v for _, d, a in cells for v in (d, a)]
    flat = [r for pair in reads for r in pair]
    right = [r.confidence for r, t in zip(flat, truth) if r.value == t]
    wrong = [r.confidence for r, t in zip(flat, truth) if r.value != t and r.value is not None]
    assert len(wrong) <= 0.03 * len(flat)
    if wrong:
        assert np.mean(wrong) < np.mean(right) - 0.3


@pytest.mark.skipif(not HAS_TESSERACT, reason="tesseract-ocr not installed")
def test_two_readers_never_worse_and_agreement_is_trusted(heldout_fonts):
    cells = random_cells(heldout_fonts, 60, seed=13, degraded=True)
    glyph = ocr.GlyphReader().read_cells([c for c, _, _ in cells])
    both = ocr.read_clues_two_readers([c for c, _, _ in cells])
    g_numbers, _, _ = _score(cells, glyph)
    b_numbers, _, b_confident_wrong = _score(cells, both)
    assert b_numbers >= g_numbers
    assert b_confident_wrong <= 0.03


def test_empty_and_one_sided_cells(heldout_fonts):
    for style in ("black", "grey", "newspaper", "wiki", "blue", "two_tone"):
        cell = render_clue_cell(heldout_fonts[0], None, None, style=style)
        d, a = ocr.read_clue_cell(cell)
        assert (d.value, a.value) == (None, None), style
        assert d.confidence > 0.9 and a.confidence > 0.9
        d, a = ocr.read_clue_cell(render_clue_cell(heldout_fonts[1], None, 16, style=style))
        assert (d.value, a.value) == (None, 16), style
        d, a = ocr.read_clue_cell(render_clue_cell(heldout_fonts[2], 23, None, style=style))
        assert (d.value, a.value) == (23, None), style


def test_split_normalises_polarity_and_removes_lines(heldout_fonts):
    masks = []
    for style in ("black", "newspaper"):  # white-on-black and black-on-white: same ink
        down, across = ocr.split_clue_cell(render_clue_cell(heldout_fonts[0], 17, 8, style=style, side=72))
        assert down.dtype == np.uint8 and down.shape == (ocr.CELL_SIDE, ocr.CELL_SIDE)
        masks.append((down > 0, across > 0))
    for (d1, a1), (d2, a2) in [masks]:
        assert abs(int(d1.sum()) - int(d2.sum())) < 0.25 * d1.sum()
        assert abs(int(a1.sum()) - int(a2.sum())) < 0.25 * a1.sum()
    # No line survives: the ink of "17" is far less than a diagonal or border would leave.
    assert masks[0][0].sum() < 0.08 * ocr.CELL_SIDE ** 2
    assert len(ocr.segment_digits(masks[0][0].astype(np.uint8) * 255)) == 2
    assert len(ocr.segment_digits(masks[0][1].astype(np.uint8) * 255)) == 1


def test_split_keeps_ink_strength(heldout_fonts):
    # A blurred digit: its stroke centres are full ink, its rims partial; the reader is given both
    # (a bold digit's shut gaps are told from strokes this way), in either polarity.
    for style in ("black", "newspaper"):
        cell = cv2.GaussianBlur(render_clue_cell(heldout_fonts[0], 8, None, style=style, side=72), (0, 0), 1.2)
        down, _ = ocr.split_clue_cell(cell)
        ink = down > 0
        assert down.max() == 255 and down[ink].min() < 160, style
        centre = cv2.erode(ink.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        rim = ink & ~centre
        assert down[centre].mean() > down[rim].mean() + 40, style


def test_number_alternatives_are_valid_clues(heldout_fonts):
    cells = random_cells(heldout_fonts, 40, seed=14, degraded=True)
    for d, a in ocr.GlyphReader().read_cells([c for c, _, _ in cells]):
        for r in (d, a):
            values = [v for v, _ in r.alternatives]
            assert len(values) == len(set(values))
            assert all(ocr.CLUE_MIN <= v <= ocr.CLUE_MAX for v in values)
            assert list(r.alternatives) == sorted(r.alternatives, key=lambda vp: -vp[1])
            if r.value is not None:
                assert r.alternatives[0][0] == r.value and 0.0 <= r.confidence <= 1.0


def test_combine_keeps_disagreement_uncertain():
    g = NumberRead(17, 0.7, ((17, 0.7), (11, 0.2)))
    agree = ocr._combine(g, NumberRead(17, 0.8, ((17, 0.8),)))
    assert agree.value == 17 and agree.confidence > 0.85
    disagree = ocr._combine(g, NumberRead(11, 0.9, ((11, 0.9),)))
    assert disagree.value == 17 and disagree.confidence <= 0.4
    assert {v for v, _ in disagree.alternatives} >= {17, 11}


# ---------------------------------------------------------------------------- givens, classifier


def test_read_given_digits(heldout_fonts):
    rng = np.random.default_rng(5)
    ok = n = 0
    for i, font in enumerate(heldout_fonts):
        for digit in (1, 2, 3, 4, 5, 6, 7, 8, 9):
            cell = render_given_cell(font, digit, side=int(rng.integers(32, 80)))
            if i % 2:
                cell = degrade(cell, rng)
            r = ocr.read_given(cell)
            ok += r.value == digit
            n += 1
    assert ok / n >= 0.95
    empty = ocr.read_given(render_given_cell(heldout_fonts[0], None))
    assert empty.value is None and empty.confidence > 0.9


@pytest.mark.skipif(not HAS_TESSERACT, reason="tesseract not installed")
def test_lone_heavy_given_is_confirmed_by_tesseract(heldout_fonts):
    # Tesseract's block layout reads no text on a mosaic of this lone bold "8" (NotoSansDisplay
    # Bold); a given needs both readers, so it is read again on its own as one character.
    font = next((f for f in heldout_fonts if f.endswith("NotoSansDisplay-Bold.ttf")), None)
    if font is None:
        pytest.skip("NotoSansDisplay-Bold not installed")
    cells = [render_given_cell(font, None) for _ in range(5)] + [render_given_cell(font, 8, digit_h=0.6)]
    reads = ocr.read_givens(cells)
    assert [r.value for r in reads] == [None] * 5 + [8]


def test_classifier_batches_and_rejects_non_digits():
    clf = GlyphClassifier(MODEL_PATH)
    line = np.zeros((30, 30), np.uint8)
    cv2.line(line, (0, 0), (29, 29), 255, 2)
    blob = np.zeros((12, 12), np.uint8)
    cv2.circle(blob, (6, 6), 5, 255, -1)
    labels, probs = clf.classify([line, blob])
    assert probs.shape == (2, 11) and np.allclose(probs.sum(1), 1.0, atol=1e-4)
    assert list(labels) == [REJECT, REJECT]
    assert default_classifier() is default_classifier()
    assert MODEL_PATH.stat().st_size < 2 * 1024 * 1024


def test_a_stricter_level_that_lost_a_digit_counts_for_less():
    # A thin serif "12" at three binarisation levels: the loosest reads both digits, the stricter
    # ones lose the faint "2" and read "1" (measured on a FreeSerif photo). A stricter threshold
    # only removes ink, so the two-digit reading wins; "1" stays an alternative.
    loose = ocr.NumberRead(12, 0.85, ((12, 0.89), (11, 0.09)))
    lost = [ocr.NumberRead(1, 0.9, ((1, 0.95), (3, 0.01))), ocr.NumberRead(1, 0.5, ((1, 0.53), (4, 0.02)))]
    merged = ocr._merge_levels([loose, *lost])
    assert merged.value == 12 and 1 in dict(merged.alternatives)
    # Plain averaging where the loose level is unsure of its two digits ...
    unsure = ocr.NumberRead(12, 0.4, ((12, 0.5), (11, 0.3)))
    assert ocr._merge_levels([unsure, *lost]).value == 1
    # ... or where the stricter level's digit is not one of them.
    other = [ocr.NumberRead(7, 0.9, ((7, 0.95),)), ocr.NumberRead(7, 0.9, ((7, 0.9),))]
    assert ocr._merge_levels([loose, *other]).value == 7


def test_paper_level_is_the_commonest_grey_when_a_number_covers_half_the_triangle():
    # Grey paper (110) on 45% of the pixels, pale strokes (190) on 35% and their blurred edges
    # between: the median lands on the edges, the commonest grey is the paper's.
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.normal(110, 3, 450), rng.normal(190, 6, 350), rng.uniform(110, 190, 200)])
    assert float(np.median(values)) > 125
    assert abs(ocr._paper_level(values) - 110) <= 3


@pytest.mark.parametrize("channels", [3, 1])
def test_network_layers_match_a_plain_convolution(channels):
    # The reader unfolds 3x3 patches to run the trained network in numpy, and filters its one
    # input channel with OpenCV; the channel order of the unfolded patches must be the one the
    # weights were trained with (PyTorch's), and both must be a correlation with zero padding.
    from vision.glyphs import _conv_relu_pool, _first_conv_relu_pool

    rng = np.random.default_rng(0)
    x = rng.random((2, 6, 8, channels)).astype(np.float32)  # K, H, W, C
    w = rng.normal(size=(4, channels, 3, 3)).astype(np.float32)  # O, C, kh, kw
    b = rng.normal(size=4).astype(np.float32)
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    conv = np.zeros((2, 6, 8, 4), np.float32)
    for y in range(6):
        for xx in range(8):
            patch = padded[:, y:y + 3, xx:xx + 3, :]  # K, 3, 3, C
            conv[:, y, xx, :] = np.einsum("kijc,ocij->ko", patch, w) + b
    want = np.maximum(conv, 0).reshape(2, 3, 2, 4, 2, 4).max(axis=(2, 4))
    assert np.allclose(_conv_relu_pool(x, w, b), want, atol=1e-5)
    if channels == 1:
        assert np.allclose(_first_conv_relu_pool(x[..., 0], w, b), want, atol=1e-5)


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="cell_gray"):
        ocr.split_clue_cell(np.zeros((2, 2), np.uint8))
    with pytest.raises(ValueError, match="half"):
        ocr.segment_digits(np.zeros((4, 4, 3), np.uint8))


def test_a_diagonal_split_down_its_middle_is_still_a_line():
    """An app's clue cell (light digits and a light diagonal on a grey tile) cut from a rendered
    board, its lattice a pixel off: most of the diagonal lay in the across half, too short
    there to pass for a line, and joined to the "3" it touches it made a tall stroke read as
    no digit; "35" read as "3". The lines are looked for past the diagonal too. (The render's
    transcription has 35 across in this cell.)"""
    crop = cv2.imread(str(Path(__file__).parent / "data" / "images" /
                          "clue_cell_35_touching_a_light_diagonal_app_render.png"))
    down, across = ocr.read_clues_glyph([crop]).reads[0]
    assert down.value is None
    assert across.value == 35 and across.confidence > 0.5


@pytest.mark.parametrize("name, down, across", [("book_page_curl_reshot_dim_clue_cell_r3c7_across_42", None, 42),
                                                 ("book_page_curl_reshot_dim_clue_cell_r12c4_down_7", 7, None)])
def test_faint_digits_as_grey_as_the_lines_of_a_dim_photo_are_not_a_tiles_gap(name, down, across):
    """Clue cells cut from a dim re-photographed page (book_page_curl_photo; the numbers are its
    transcription's): the faint digits are as grey as the lines and look as flat, a third tone
    reaching in from the cell's edge like the gap round an app's tile. Taken out as one, the "4"
    of "42" lost its strokes (read "12"), and a "7" beside the lines was read "17"."""
    d, a = ocr.read_clue_cell(load_image(IMAGES / f"{name}.png"))
    assert (d.value, a.value) == (down, across)


@pytest.mark.parametrize("name, down", [("serif_page_clue_cell_17_down_bar_of_the_7_parted_7x7_r3c7", 17),
                                        ("serif_page_clue_cell_17_down_bar_of_the_7_parted_7x7_r1c5", 17),
                                        ("serif_page_clue_cell_37_down_bar_of_the_7_parted_9x9_r1c8", 37)])
def test_the_bar_of_a_serif_seven_parted_from_its_stroke_is_read_with_it(name, down):
    """Clue cells of a rendered page of four puzzles in a thin serif print (the numbers are the
    rendered puzzles'): the "7"'s bar comes apart from its slanted stroke where they meet, too
    short alone to be a digit, and was dropped ("17" read "11", "37" read "31")."""
    d, a = ocr.read_clue_cell(load_image(IMAGES / f"{name}.png"))
    assert (d.value, a.value) == (down, None)


def test_a_piece_too_short_for_a_digit_joins_only_the_digit_it_nearly_touches():
    # A "1" and, 8 px to its right, a "7" drawn as a bar parted by 2 px from its stroke, which
    # starts at the bar's right end and slants down to the left (they overlap by 3 px across).
    half = np.zeros((96, 96), np.uint8)
    half[48:83, 20:26] = 255                      # the "1"
    half[48:55, 34:45] = 255                      # the bar, 7 px: shorter than any digit
    for y in range(57, 83):
        x = 52 - (y - 57) * 8 // 26
        half[y, x - 2:x + 2] = 255
    pieces = ocr.segment_digits(half)
    assert [p.shape for p in pieces] == [(35, 6), (35, 20)]
    # Far from every digit, the same bar is still no digit of its own.
    half[:, 30:] = 0
    half[10:17, 70:84] = 255
    assert [p.shape for p in ocr.segment_digits(half)] == [(35, 6)]


@pytest.mark.parametrize("diagonal", [True, False])
@pytest.mark.parametrize("left", [8, 10])
def test_a_digit_crossing_the_diagonal_is_kept_whole_in_its_half(diagonal, left):
    """A down number whose "0" crosses the cell's diagonal (a drawn line, or none, as where clue
    cells carry no diagonal). Each half ends at the diagonal, so the "0" was cut: its part past
    the line lost (or left in the across half), and what stayed read "6". The part past the
    diagonal goes back to the digit it belongs to; the across half stays empty."""
    side = ocr.CELL_SIDE
    digits = np.zeros((side, side), np.uint8)
    cv2.putText(digits, "10", (left, 76), cv2.FONT_HERSHEY_SIMPLEX, 1.5, 255, 5, cv2.LINE_AA)
    line = np.zeros((side, side), np.uint8)
    if diagonal:
        cv2.line(line, (0, 0), (side - 1, side - 1), 255, 3, cv2.LINE_AA)
    cell = (235 - np.maximum(digits, line).astype(np.float32) * 215 / 255).astype(np.uint8)
    yy, xx = np.mgrid[0:side, 0:side]
    # The digits' own pixels past the diagonal, away from the line's blurred width.
    past = (digits > 127) & (xx > yy) & ~(cv2.dilate(line, np.ones((5, 5), np.uint8)) > 0)
    assert past.sum() > 8  # the "0" does cross
    down, across = ocr.split_clue_cell(cell)
    assert (down[past] > 0).mean() > 0.9
    assert not (across > 0).any()
    assert ocr.read_clue_cell(cell)[0].value == 10


def test_numbers_on_a_newspapers_screen_of_dots_are_read_smoothed():
    """A newspaper's grid: clue numbers in white discs on clue cells whose grey is printed as a
    screen of dots, photographed. The dots cut the digits' edges and the discs' outlines; read as
    they are, not one of the 32 clue numbers was read surely (0.7 or more). Where most numbers
    read unsure, the grid is read again smoothed over a dot or two. Rendered from a corpus puzzle
    (bench style newsprint_dots, seed 79, #6; its transcription; JPEG quality 90)."""
    from vision.grid import locate_puzzles
    from vision.read import look_at_grid

    path = IMAGES / "newsprint_numbers_in_discs_on_dotted_grey_9x9_render.jpg"
    truth = load_transcription(path)
    wanted = {(c.row, c.col): (c.down, c.across) for c in truth.clues}
    image = load_image(path)
    look = look_at_grid(image, locate_puzzles(image)[0])
    assert set(look.clue_cells) == set(wanted)
    reads = ocr.read_clues_glyph([look.cell_image(cell) for cell in look.clue_cells]).reads
    sides = [(want, read) for cell, pair in zip(look.clue_cells, reads) for want, read in zip(wanted[cell], pair)
             if want is not None]
    surely_right = sum(read.value == want and read.confidence >= 0.7 for want, read in sides)
    surely_wrong = sum(read.value != want and read.confidence >= 0.7 for want, read in sides)
    assert len(sides) == 32
    assert surely_right >= 24 and surely_wrong == 0
