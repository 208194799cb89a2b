"""Cell classification against the transcriptions of real images (samples/, tests/data/images)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.cells import classify_cells
from vision.grid import locate_puzzles, rectify
from vision.imageio import load_image

from conftest import CORPUS, IMAGES, assert_solved_as_transcribed, find_image, read_tokens


def transcribed_kinds(name: str) -> np.ndarray:
    rows = read_tokens(find_image(f"{name}.txt"))
    return np.array([["black" if t == "#" else "white" if t == "." or t.isdigit() else "clue" for t in row]
                     for row in rows])


@pytest.mark.parametrize("filename", [
    "wikipedia_8x8.png",
    "wikipedia_8x8_over_newsprint.png",
    "wikipedia_8x8_transparent.png",
    "site_5x5.png",
    "site_5x5_b.png",
    "site_7x7.png",
    "site_9x9_a.png",
    "site_9x9_b.png",
    "grey_white_digits_14x12.jpg",
    "guardian1244_photo_a.jpg",
    "guardian1244_photo_edited.jpg",
    # Rendered: pale blue-grey clue cells and blocks (no diagonal) on cream paper, a block away
    # from the edges told from paper by its colour alone (its grey tone is the paper's).
    "pale_blue_blocks_without_diagonal_12x10.jpg",
    # Rendered: clue cells on the white paper with only their numbered triangles tinted, and
    # corners of tinted blocks with no white cell near: the white cells' tint is the paper's.
    "tinted_triangles_and_blocks_9x10.jpg",
])
def test_cell_kinds_match_transcription(filename):
    truth = transcribed_kinds(Path(filename).stem)
    image = load_image(find_image(filename))
    geom = next(g for g in locate_puzzles(image) if g.shape == truth.shape)
    warped, _ = rectify(image, geom.quad, 48, geom.shape)
    classes = classify_cells(warped, geom.lattice)
    assert classes.kinds.shape == truth.shape
    wrong = list(zip(*np.nonzero(classes.kinds != truth)))
    assert wrong == []
    assert classes.confidence.shape == truth.shape
    assert 0 <= classes.confidence.min() and classes.confidence.max() <= 1


def test_solved_panel_cells_stay_white():
    # The right panel of the figure has a digit in every white cell; the left one is empty.
    image = load_image(IMAGES / "figure_two_panels_7x7.png")
    left, right = locate_puzzles(image)
    kinds = []
    for geom in (left, right):
        warped, _ = rectify(image, geom.quad, 48, geom.shape)
        kinds.append(classify_cells(warped, geom.lattice).kinds)
    assert (kinds[0] == kinds[1]).all()
    assert (kinds[0] == "white").sum() == 30


@pytest.mark.parametrize("filename", ["site_7x7.png", "guardian1244_photo_a.jpg"])
def test_warm_light_leaves_white_cells_white(filename):
    # Under warm (tungsten) light the white paper is the coloured part of the grid and the
    # black cells stay neutral; colour must count only as a departure from the white cells' tint.
    truth = transcribed_kinds(Path(filename).stem)
    image = load_image(find_image(filename))
    warm = np.clip(image.astype(np.float32) * np.array([0.7, 0.88, 1.0]), 0, 255).astype(np.uint8)
    geom = next(g for g in locate_puzzles(warm) if g.shape == truth.shape)
    warped, _ = rectify(warm, geom.quad, 48, geom.shape)
    wrong = list(zip(*np.nonzero(classify_cells(warped, geom.lattice).kinds != truth)))
    assert wrong == []


def test_light_changing_colour_across_the_page_leaves_white_cells_white():
    """Beige clue cells and blocks as light as the paper, photographed in light that turns the
    paper's tint towards one corner (11 Lab units, as far as a printed pastel): the white cells
    there stood apart from the grid's one paper tint and were taken for clue cells (the layout
    off, unreadable). The paper's tint is now a smooth field over the grid. Rendered from a
    corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "colour_cast_over_tinted_clue_cells_9x9_render.jpg")


def test_shadow_over_clue_cells_printed_on_white_paper():
    # Newspaper style: clue and block cells share the white cells' paper and differ only by their
    # diagonals; a hard shadow across half the grid must not turn the shaded white cells into blocks.
    from synthetic.synth import make_sample

    sample = make_sample(np.random.default_rng([5, 9, ord("p")]), "photo")
    puzzle = sample.puzzles[0]
    truth = np.array([["white" if (r, c) in puzzle.whites else "non-white" for c in range(puzzle.n_cols)]
                      for r in range(puzzle.n_rows)])
    geom = next(g for g in locate_puzzles(sample.image) if g.shape == truth.shape)
    warped, _ = rectify(sample.image, geom.quad, 48, geom.shape)
    kinds = classify_cells(warped, geom.lattice).kinds
    wrong = int(((kinds == "white") != (truth == "white")).sum())
    assert wrong <= 3  # 33 of 150 before clue-on-paper grids ignored grey tones; 2 now


def test_a_corner_of_black_cells_is_not_taken_for_paper():
    # Three by three black cells in two corners: no white cell lies within two cells of the
    # corner ones, so a purely local paper reference would call them white.
    from solver.formats import load_puzzle
    from synthetic.render import Style, render_puzzle

    puzzle = load_puzzle(CORPUS / "paucuesta9__diff2_9_10_0.txt")
    image, _ = render_puzzle(puzzle, Style(cell_px=44))
    truth = np.array([["white" if (r, c) in puzzle.whites else "non-white" for c in range(puzzle.n_cols)]
                      for r in range(puzzle.n_rows)])
    geom = next(g for g in locate_puzzles(image) if g.shape == truth.shape)
    warped, _ = rectify(image, geom.quad, 48, geom.shape)
    kinds = classify_cells(warped, geom.lattice).kinds
    assert list(zip(*np.nonzero((kinds == "white") != (truth == "white")))) == []


#: A regional newspaper's look drawn by hand: "#" a hatched block, "c" a clue cell (numbers in
#: its corners), "." a white cell; every cell carries the diagonal.
_HATCHED_LAYOUT = ["#cc#cc",
                   "c..c..",
                   "c.....",
                   "#c..c#",
                   "c.....",
                   "c..#c."]


def _drawn_grid(layout: list[str], side: int, paper: int, line_grey: int, draw_cell) -> np.ndarray:
    """A square grid drawn by hand: ``draw_cell(draw, kind, x0, y0)`` for each cell of ``layout``,
    then the grid lines, 2 px wide."""
    from PIL import Image, ImageDraw

    n = len(layout)
    img = Image.new("L", (n * side + 1, n * side + 1), paper)
    draw = ImageDraw.Draw(img)
    for r, row in enumerate(layout):
        for c, kind in enumerate(row):
            draw_cell(draw, kind, c * side, r * side)
    for k in range(n + 1):
        draw.line([(0, k * side), (n * side, k * side)], fill=line_grey, width=2)
        draw.line([(k * side, 0), (k * side, n * side)], fill=line_grey, width=2)
    return np.asarray(img)


def _classes_of_drawn_grid(image: np.ndarray, side: int) -> np.ndarray:
    from vision.types import Lattice

    edges = tuple(float(v) for v in range(0, image.shape[0], side))
    return classify_cells(image, Lattice(edges, edges)).kinds


def _layout_classes(layout: list[str]) -> np.ndarray:
    return np.array([[{"#": "black", "c": "clue", ".": "white"}[k] for k in row] for row in layout])


def _hatched_grid(hatch_grey: int, spacing: int, side: int = 48) -> np.ndarray:
    from PIL import ImageFont

    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", side // 4)

    def draw_cell(draw, kind: str, x0: int, y0: int) -> None:
        if kind == "#":
            for k in range(-side + spacing // 2, side, spacing):
                a, b = (max(0, -k), max(0, k)), (min(side, side - k), min(side, side + k))
                draw.line([(x0 + a[0], y0 + a[1]), (x0 + b[0], y0 + b[1])], fill=hatch_grey, width=1)
        elif kind == "c":
            draw.text((x0 + 0.72 * side, y0 + 0.28 * side), "17", fill=0, font=font, anchor="mm")
            draw.text((x0 + 0.28 * side, y0 + 0.72 * side), "4", fill=0, font=font, anchor="mm")
        draw.line([(x0, y0), (x0 + side, y0 + side)], fill=90, width=1)

    return _drawn_grid(_HATCHED_LAYOUT, side, 255, 0, draw_cell)


@pytest.mark.parametrize("hatch_grey, spacing", [(0, 5), (110, 4), (190, 5), (200, 6), (210, 4)])
def test_light_hatched_blocks_in_a_grid_with_a_diagonal_in_every_cell(hatch_grey, spacing):
    """Fine hatching is as light as paper and its short lines in the corners look like numbers;
    it is a block all the same, and the other cells keep their classes."""
    kinds = _classes_of_drawn_grid(_hatched_grid(hatch_grey, spacing), 48)
    truth = _layout_classes(_HATCHED_LAYOUT)
    # A hatched block beside a white cell heads its run: a clue cell with no number, by layout.
    truth[(truth == "black") & _beside_white(truth)] = "clue"
    assert (kinds == truth).all(), f"read:\n{kinds}\ntruth:\n{truth}"


def _beside_white(kinds: np.ndarray) -> np.ndarray:
    white = kinds == "white"
    beside = np.zeros_like(white)
    beside[:, :-1] |= white[:, 1:]
    beside[:-1, :] |= white[1:, :]
    return beside


#: A puzzle magazine's look drawn by hand: "#" a mid-grey block, "c" a light grey clue cell with
#: its numbers in the corners and no diagonal, "." a white cell.
_THREE_TONES = ["##cc#",
                "#c..c",
                "c....",
                "c..c.",
                "#c..#"]


@pytest.mark.parametrize("clue_grey, block_grey", [(200, 130), (215, 150), (190, 110)])
def test_light_grey_clue_cells_between_white_cells_and_grey_blocks(clue_grey, block_grey):
    """Three tones: the split may fall between clues and blocks, leaving the clue cells with the
    white ones; their numbers in the corners say they are clue cells."""
    from PIL import ImageFont

    side = 56
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf", side // 4)

    def draw_cell(draw, kind: str, x0: int, y0: int) -> None:
        if kind == "#":
            draw.rectangle([x0, y0, x0 + side, y0 + side], fill=block_grey)
        elif kind == "c":
            draw.rectangle([x0, y0, x0 + side, y0 + side], fill=clue_grey)
            draw.text((x0 + 0.72 * side, y0 + 0.25 * side), "23", fill=20, font=font, anchor="mm")
            draw.text((x0 + 0.3 * side, y0 + 0.75 * side), "16", fill=20, font=font, anchor="mm")

    kinds = _classes_of_drawn_grid(_drawn_grid(_THREE_TONES, side, 245, 40, draw_cell), side)
    truth = _layout_classes(_THREE_TONES)
    assert (kinds == truth).all(), f"read:\n{kinds}\ntruth:\n{truth}"


def test_grey_blocks_stay_blocks_where_a_lattice_a_little_off_makes_some_look_drawn_with_a_diagonal():
    """A grid of light-grey clue cells and plain light-grey blocks, read with its lattice lines
    moved by up to 3.4 px (as a bowed page or a border found a little off moves them): some
    blocks then measure a diagonal from the lines beside them, as in a grid that draws its
    blocks with one. The plain blocks are still blocks: they look like the others, where a
    white cell in a shade would not."""
    from vision.read import straighten_grid
    from vision.types import Lattice

    truth = transcribed_kinds("site_9x9_b")
    image = load_image(find_image("site_9x9_b.png"))
    warped, _, _, lattice = straighten_grid(image, locate_puzzles(image)[0])
    moved = Lattice(
        tuple(y + d for y, d in zip(lattice.row_edges, (3.3, 2.3, -0.5, 3.3, 3.2, 0.0, 1.7, 2.8, -0.2, 2.5))),
        tuple(x + d for x, d in zip(lattice.col_edges, (1.4, -1.4, 1.8, 0.5, -2.8, -0.7, -2.9, -0.2, -0.5, -0.5))))
    classes = classify_cells(warped, moved)
    assert list(zip(*np.nonzero((classes.kinds == "white") != (truth == "white")))) == []


#: A 7x7 layout ("#" a block, "c" a clue cell, "." white) whose left half a soft shadow greys.
_SOFT_SHADOW_LAYOUT = ["##cc###",
                       "#c..cc#",
                       "#c....c",
                       "c..c...",
                       "c...c..",
                       "#c....#",
                       "###c..#"]


@pytest.mark.parametrize("depth, soft", [(0.5, 1.5), (0.55, 2.0), (0.6, 3.0)])
def test_white_cells_in_a_broad_soft_shadow_are_told_from_blocks_by_their_neighbours(depth, soft):
    """Dark grey blocks and clue cells (light numbers, no diagonal) on white paper, the left half
    in a shadow ``depth`` deep whose edge is about ``soft`` cells wide: its white cells are as
    dark as the lit blocks a few cells away. Beside each other, paper and print keep their
    contrast in any shade."""
    from PIL import ImageFont

    side = 48
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", side // 3)

    def draw_cell(draw, kind: str, x0: int, y0: int) -> None:
        if kind in "#c":
            draw.rectangle([x0, y0, x0 + side, y0 + side], fill=100)
        if kind == "c":
            draw.text((x0 + 0.7 * side, y0 + 0.3 * side), "15", fill=235, font=font, anchor="mm")

    image = _drawn_grid(_SOFT_SHADOW_LAYOUT, side, 240, 150, draw_cell).astype(np.float32)
    x = np.arange(image.shape[1], dtype=np.float32) / side
    light = 1 - depth / (1 + np.exp((x - 3.5) / (soft / 4)))
    shaded = np.clip(image * light[None, :], 0, 255).astype(np.uint8)
    kinds = _classes_of_drawn_grid(shaded, side)
    truth = _layout_classes(_SOFT_SHADOW_LAYOUT)
    assert ((kinds == "white") == (truth == "white")).all(), f"read:\n{kinds}\ntruth:\n{truth}"


def test_lab_conversion_agrees_with_opencv_over_every_colour():
    """``bgr_to_lab`` stands in for OpenCV's (whose first call costs 0.1 s of tables): every
    one of the 2^24 colours lands within three levels of OpenCV's interpolated result, and
    nearly all within one."""
    import cv2

    from vision.colour import bgr_to_lab

    codes = np.arange(256, dtype=np.uint8)
    every = np.stack(np.meshgrid(codes, codes, codes, indexing="ij"), axis=-1).reshape(4096, 4096, 3)
    off = np.abs(bgr_to_lab(every).astype(np.int16) - cv2.cvtColor(every, cv2.COLOR_BGR2LAB))
    assert off.max() <= 3
    assert (off > 1).mean() < 1e-3
