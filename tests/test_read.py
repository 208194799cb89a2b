"""Reading located grids on real photos: per-line lattice refinement, layout plausibility."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from pipeline import solve_image
from solver.formats import grid_tokens, load_puzzle
from vision.grid import locate_puzzles, refine_lattice_mesh, remap_to_mesh
from vision.imageio import load_image
from vision.ocr import NumberRead
from vision.read import GLANCE_CELLS, _options, glance_at_grid, layout_doubt, read_grid, rectify_for_reading

from conftest import IMAGES, SAMPLES, assert_solved_as_transcribed, find_image, load_transcription


def _truth_sides(name: str) -> dict:
    puzzle = load_puzzle(find_image(f"{name}.txt"))
    sides = {}
    for clue in puzzle.clues:
        if clue.down is not None:
            sides[((clue.row, clue.col), "down")] = clue.down
        if clue.across is not None:
            sides[((clue.row, clue.col), "across")] = clue.across
    return sides


def test_layout_doubt_accepts_every_transcribed_puzzle():
    # The samples' transcriptions and the tests' own (no file is in both folders).
    paths = [p for folder in (SAMPLES, IMAGES) for p in folder.glob("*.txt") if "times2046" not in p.stem]
    assert paths
    for path in paths:
        name = path.stem
        puzzle = load_puzzle(path)
        assert layout_doubt(puzzle.whites, puzzle.n_rows, puzzle.n_cols) is None, name


def test_layout_doubt_rejects_a_sudoku_like_layout():
    # Digits scattered over a plain table: many white cells stand alone in their row or column.
    rng = np.random.default_rng(0)
    whites = frozenset((r, c) for r in range(1, 9) for c in range(1, 9) if rng.random() < 0.5)
    assert layout_doubt(whites, 9, 9) is not None


def test_remap_to_mesh_of_an_even_lattice_keeps_the_image():
    img = np.zeros((200, 300), np.uint8)
    cv2.line(img, (100, 0), (100, 199), 255, 1)
    ys, xs = np.meshgrid(np.arange(3) * 100.0, np.arange(4) * 100.0, indexing="ij")
    corners = np.stack([xs, ys], axis=-1)
    out, lattice = remap_to_mesh(img, corners, 100)
    assert out.shape == img.shape
    assert lattice.col_edges == (0.0, 100.0, 200.0, 300.0)
    assert np.abs(out.astype(int) - img.astype(int)).max() <= 1


def test_mesh_follows_the_lines_of_a_distorted_photo():
    """The edited Guardian photo is bowed: one homography leaves cells a third off."""
    image = cv2.imread(str(SAMPLES / "guardian1244_photo_edited.jpg"))
    geometry = locate_puzzles(image)[0]
    warped, _, lattice = rectify_for_reading(image, geometry)
    corners = refine_lattice_mesh(cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY), lattice)
    assert corners.shape == (15, 13, 2)
    regular, reg_lattice = remap_to_mesh(warped, corners, 72, 18)
    # After remapping, every inner vertical line sits on its lattice column in every row band.
    gray = cv2.cvtColor(regular, cv2.COLOR_BGR2GRAY).astype(np.float32)
    dark = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, np.ones((1, 15), np.uint8))
    x_edges = np.rint(reg_lattice.col_edges).astype(int)
    misses = 0
    for r in range(14):
        y0, y1 = int(reg_lattice.row_edges[r]) + 15, int(reg_lattice.row_edges[r + 1]) - 15
        prof = dark[y0:y1].mean(axis=0)
        for x in x_edges[1:-1]:
            window = prof[x - 20:x + 21]
            if window.max() > 2 * np.median(prof) + 5 and abs(int(np.argmax(window)) - 20) > 6:
                misses += 1
    assert misses <= 3


@pytest.mark.parametrize("name", ["guardian1244_photo_edited", "guardian1244_photo_a"])
def test_guardian_photos_read_every_clue(name):
    path = next(SAMPLES.glob(f"{name}.*[gG]"))
    image = cv2.imread(str(path))
    truth = _truth_sides(name)
    readings = [read_grid(image, g) for g in locate_puzzles(image)]
    kept = [r for r in readings if r.doubt is None]
    # Sudoku and comic panels on the page are found as grids but rejected by their layout.
    assert len(kept) == 1
    reading = kept[0]
    assert (reading.n_rows, reading.n_cols) == (14, 12)
    got = {(s.cell, s.direction): (s.options[0][0] if s.options else None) for s in reading.sides}
    wrong = {k: (got.get(k), v) for k, v in truth.items() if got.get(k) != v}
    assert not wrong


PDF = SAMPLES / "printable_4x7x7_with_givens_a.pdf"


@pytest.mark.slow
def test_printable_pdf_page_reads_givens_and_solves_as_its_answer_page():
    """Page 1: four 7x7 puzzles with printed givens in light grey clue/block cells; page 2: answers.

    The light grey blank cells must be blocks (else a clue side is demanded), and without the
    givens the clues alone have several solutions.
    """
    from pipeline import solve_image
    from vision.imageio import load_pdf_page
    from vision.ocr import read_given
    from vision.read import _cell_crop

    puzzles = solve_image(load_pdf_page(PDF, 0, 300))
    answers = locate_puzzles(answer_page := load_pdf_page(PDF, 1, 300))
    assert len(puzzles) == 4 and len(answers) == 4
    n_givens = 0
    for res, geometry in zip(puzzles, answers):
        assert res.status == "solved", res.problems
        givens = res.reading.givens
        n_givens += len(givens)
        assert dict(res.puzzle.givens) == givens
        answer = read_grid(answer_page, geometry)
        assert answer.whites == res.puzzle.whites
        # The answer page is a filled grid: its digits are not taken as givens.
        assert answer.givens == {}
        printed = {cell: read_given(_cell_crop(answer.rectified, answer.rectified_lattice, *cell)).value
                   for cell in answer.whites}
        assert dict(res.solution.values) == printed
        assert all(printed[cell] == v for cell, v in givens.items())
    assert n_givens == 16
    # Row 7, column 2 and row 7, column 7 of puzzle 1 are light grey blocks, not white cells.
    assert not {(6, 1), (6, 6)} & puzzles[0].puzzle.whites


@pytest.mark.parametrize("name", [
    # Pale yellow clue and block cells on cream paper, of one lightness: in a 7x7 the tinted
    # cells are the most (the whole grid was once taken for blocks).
    "pale_yellow_clues_7x7",
    # Pale green clue triangles on black, and whole green clue cells: the light cells with a
    # diagonal are green, and must not become the white cells' reference tint.
    "pale_green_clues_on_black_9x9",
])
def test_pale_tinted_clue_cells_as_light_as_the_white_ones_are_told_apart_by_tint(name):
    # Crops of rendered book pages. The white cells are the light cells without a diagonal whose
    # tint stands apart from that of the cells with one.
    image = load_image(IMAGES / f"{name}.jpg")
    truth = load_puzzle(IMAGES / f"{name}.txt")
    results = solve_image(image)
    assert [r.status for r in results] == ["solved"]
    assert grid_tokens(results[0].puzzle) == grid_tokens(truth)


def test_cast_shadow_over_clue_cells_printed_on_white_paper():
    # The second renderer's photo of a newspaper-style 8x8 (clue cells are white cells with a
    # diagonal, blocks carry a diagonal only) under a hand's soft shadow: the shadowed white cells
    # are as grey as a printed tone would be. The clue cells beside them are grey alike, so the
    # grey is light, not print. The puzzle has two givens, a heavy "8" and a "9".
    name = "shadow_over_white_clue_cells_8x8"
    truth = load_puzzle(IMAGES / f"{name}.txt")
    results = solve_image(load_image(IMAGES / f"{name}.jpg"))
    assert len(results) == 1 and results[0].puzzle is not None
    assert grid_tokens(results[0].puzzle) == grid_tokens(truth)
    # The renderer's puzzles need not have one solution; this one has several.
    assert results[0].status == "ambiguous"


@pytest.mark.parametrize("filename", [
    # Rendered, heavy white digits on black: in row 2, column 2 the "23" covers so much of its
    # triangle that the reader took the black paper for the ink and saw no digit (best number
    # about 0.02).
    "bold_white_digits_on_black_7x7_render.png",
    # Rendered, bold white digits on mid-grey clue cells: in row 6, column 4 the "30" and in
    # row 8, column 10 the "25" cover their triangles, border band included.
    "heavy_white_digits_on_grey_12x12.jpg",
])
def test_heavy_white_number_covering_its_triangle_is_read_the_other_way_round(filename):
    # Read again with paper and ink swapped, each such half reads as printed.
    truth = load_transcription(IMAGES / filename)
    results = solve_image(load_image(IMAGES / filename))
    assert [r.status for r in results] == ["solved"]
    assert grid_tokens(results[0].puzzle) == grid_tokens(truth)
    assert results[0].corrections == ()


def test_side_read_as_no_digit_at_all_is_left_to_the_rules():
    # Ink the reader took for no digit at all (every number under 5%) offers no values: the
    # puzzle's rules fill the side and say so, rather than choose among values never seen.
    assert _options(NumberRead(8, 0.01, ((8, 0.02), (6, 0.01), (5, 0.01)))) == ()
    assert _options(NumberRead(23, 0.5, ((23, 0.6), (28, 0.2)))) == ((23, 0.6), (28, 0.2))
    assert _options(NumberRead(None, 1.0)) == ()



def test_tiny_bold_digits_are_read_as_printed():
    # Rendered 15x8 at 300 px wide: Nimbus Sans with a pixel of stroke added, digits about 10 px
    # tall in 37 px cells. The ink closes the gaps of every "3", which the glyph reader took for
    # an "8" (15 of 61 clues) until it was trained on digits bolded at their printed size.
    name = "tiny_bold_digits_15x8_render"
    image = load_image(IMAGES / f"{name}.png")
    (geometry,) = locate_puzzles(image)
    reading = read_grid(image, geometry)
    got = {(s.cell, s.direction): (s.options[0][0] if s.options else None) for s in reading.sides}
    truth = _truth_sides(name)
    assert {k: (got.get(k), v) for k, v in truth.items() if got.get(k) != v} == {}


def test_big_black_givens_in_a_grid_with_dark_coloured_blocks_are_read():
    # The second renderer's 10x10: dark green blocks with white clue digits, and five givens
    # printed black, about two thirds of the cell tall. The givens were dropped twice over: the
    # darkest ink of the clue cells is the green of the blocks, so black print looked like a
    # pen of another colour; and the "9" stood taller than a clue digit may.
    name = "black_givens_dark_green_blocks_10x10_render"
    image = load_image(IMAGES / f"{name}.png")
    (geometry,) = locate_puzzles(image)
    reading = read_grid(image, geometry)
    assert reading.givens == dict(load_puzzle(IMAGES / f"{name}.txt").givens)


def test_two_digit_white_numbers_covering_half_their_triangle_are_seen():
    # Rendered and photographed 14x14: white numbers on grey clue cells without a diagonal. A
    # "10" or a "19" covers nearly half of its triangle, so the median grey lay on its strokes'
    # blurred edges: the contrast left looked too weak for ink, and 9 of them read as nothing.
    name = "white_numbers_on_grey_photo_14x14"
    results = solve_image(load_image(IMAGES / f"{name}.jpg"))
    assert [r.status for r in results] == ["solved"]
    assert grid_tokens(results[0].puzzle) == grid_tokens(load_puzzle(IMAGES / f"{name}.txt"))
    assert results[0].corrections == ()


def test_a_grid_read_again_reads_as_it_did_the_first_time():
    # A grid whose layout is in doubt is read again as each variant, and the clue cells' splits,
    # disc searches and reads are kept by their pixels rather than done again: kept or not, the
    # reading must be the same. Read with nothing kept, then again with everything kept (a grid
    # of numbers in discs, so that every kept stage is used), then as a variant with one clue
    # cell's runs taken away.
    from vision import ocr
    from vision.read import look_at_grid, read_numbers

    image = load_image(IMAGES / "discs_grey_blocks_in_corners_13x13_render.jpg")
    look = look_at_grid(image, locate_puzzles(image)[0])

    def fresh(layout=None):
        ocr.forget_kept_reads()
        return read_numbers(look, second_opinion=False, layout=layout)

    def same(a, b):
        # The same numbers, in the same order, as surely: the glyph network's products over a
        # batch of another size may differ in a float32's last places, never more.
        return len(a) == len(b) and all(
            (x.cell, x.direction) == (y.cell, y.direction) and [v for v, _ in x.options] == [v for v, _ in y.options]
            and np.allclose([p for _, p in x.options], [p for _, p in y.options], rtol=0, atol=1e-6)
            and abs(x.confidence - y.confidence) <= 1e-6 for x, y in zip(a, b))

    first = fresh()
    again = read_numbers(look, second_opinion=False)
    assert len(ocr._READ_MEMO._items) > 0 and len(ocr._DISC_MEMO._items) > 0
    assert same(again.sides, first.sides) and again.givens == first.givens
    # a variant: the white cells right of and below one clue cell made blocks
    cell = first.clue_cells[len(first.clue_cells) // 2]
    variant = first.whites - {(cell[0], cell[1] + 1), (cell[0] + 1, cell[1])}
    warm = read_numbers(look, second_opinion=False, layout=variant)
    cold = fresh(variant)
    assert same(warm.sides, cold.sides) and len(cold.sides) > 20


def test_a_column_of_text_found_as_a_lattice_is_dismissed_at_a_glance():
    """A phone photo of a page with a column of text beside the grid: the text is also found as
    a lattice (26x36 cells here), whose full look (lines followed, shadows looked for, cells
    classified at reading size) cost five times the puzzle's own. At a glance its runs are
    mostly single cells, and it is not looked at; the puzzle beside it is still solved.
    Rendered from a corpus puzzle (bench/speed.py's generated photo 4; its transcription),
    stored as WebP."""
    image_path = IMAGES / "text_column_beside_the_grid_found_as_a_lattice_12x10_render.webp"
    image = load_image(image_path)
    truth = load_transcription(image_path)
    geometries = locate_puzzles(image)
    large = [g for g in geometries if g.lattice.shape[0] * g.lattice.shape[1] >= GLANCE_CELLS]
    assert large, "the text column is no longer found as a lattice: the test image no longer tests the glance"
    assert all(glance_at_grid(image, g) is not None for g in large)
    grid = [g for g in geometries if g.lattice.shape == (truth.n_rows, truth.n_cols)]
    assert grid and glance_at_grid(image, grid[0]) is None
    assert_solved_as_transcribed(image_path)


def test_small_grids_beside_the_puzzle_are_dismissed_at_a_glance():
    """A phone photo of a Guardian page: beside the Kakuro lie the lattices of a sudoku's
    solution and of the last Kakuro's solution, found as 4x9 and 14x7 grids. Their full look
    cost a second (a third of the photo's time) only to turn them down; beside another grid
    a small one too is glanced at first, and only the puzzle (its transcription's size) is
    looked at. Alone on a photo, a small grid is looked at in full whatever the glance says."""
    from pipeline import _look_at_grids
    image_path = SAMPLES / "guardian1244_photo_a.jpg"
    image = load_image(image_path)
    truth = load_transcription(image_path)
    geometries = locate_puzzles(image)
    small = [g for g in geometries if g.lattice.shape != (truth.n_rows, truth.n_cols)]
    assert small and all(g.lattice.shape[0] * g.lattice.shape[1] < GLANCE_CELLS for g in small), \
        "the page's other grids are no longer found: the test image no longer tests the glance"
    assert all(glance_at_grid(image, g, any_size=True) is not None for g in small)
    assert [look.lattice.shape for _, look, _ in _look_at_grids(image)] == [(truth.n_rows, truth.n_cols)]
    assert_solved_as_transcribed(image_path)


def test_a_printed_grid_of_900_cells_passes_the_glance():
    """A published 30x30 grid (the corpus's), photographed: at a glance its layout is a
    Kakuro's, so it is looked at in full."""
    image_path = IMAGES / "large_grid_30x30_photo_render.jpg"
    image = load_image(image_path)
    geometries = locate_puzzles(image)
    assert [g.lattice.shape for g in geometries] == [(30, 30)]
    assert glance_at_grid(image, geometries[0]) is None


def test_grid_lines_running_out_of_the_frame_are_followed_again_in_a_wider_one():
    """A photographed book page, numbers in white discs, a first column of black clue cells
    against a thick black border: the outline found was skewed against the grid, and the grid's
    left line, followed in the straightened frame, ran from a third of a cell inside it to a
    quarter of a cell past its edge. Past the edge the cells were filled with the frame's last
    pixels: the first column's clue cells came out stretched sideways, their discs too wide to
    be discs, and "16" and "45" went unread. Lines running out of the frame are followed again
    in a frame half a cell wider. Rendered from a corpus puzzle (bench style discs_black, seed 79,
    #7; its transcription; WebP quality 97)."""
    assert_solved_as_transcribed(IMAGES / "discs_first_column_of_clue_cells_cut_off_by_a_skewed_outline_10x10_render.webp")
