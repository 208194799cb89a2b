"""Print styles beyond the plain newspaper grid: typed entries, numbers in discs, a diagonal in
every cell, dark mode, answer keys."""
from __future__ import annotations

import numpy as np
import pytest

from pipeline import Status, solve_image
from solver.formats import grid_tokens, load_puzzle, parse_solution_grid
from solver.solve import solve_puzzle
from vision.imageio import load_image
from vision.read import _obeys_runs

from conftest import CORPUS, IMAGES, SAMPLES, assert_solved_as_transcribed, load_transcription

#: The digits the player typed into the game screenshot, transcribed by eye (row, col from 1).
_TYPED = {(4, 2): 2, (4, 3): 1, (4, 4): 3, (4, 7): 1, (4, 8): 3, (5, 2): 1, (5, 3): 2, (5, 8): 9}


@pytest.mark.slow
def test_typed_entries_in_a_game_screenshot_are_checked_not_taken_for_givens():
    """White clue numbers on black, finished clues greyed, eight digits typed by the player, two of
    them wrong: the puzzle is solved from its clues and the wrong entries are named."""
    truth = load_puzzle(IMAGES / "game_screenshot_entries_8x8.txt")
    solution = solve_puzzle(truth).values
    (res,) = solve_image(load_image(IMAGES / "game_screenshot_entries_8x8.png"))
    assert res.status == "solved", res.problems
    assert grid_tokens(res.puzzle) == grid_tokens(truth)
    assert dict(res.solution.values) == dict(solution)
    written = {(r + 1, c + 1): (digit, ok) for (r, c), digit, ok in res.written}
    assert {cell: digit for cell, (digit, _) in written.items()} == _TYPED
    expected_ok = {cell: solution[(cell[0] - 1, cell[1] - 1)] == digit for cell, digit in _TYPED.items()}
    assert {cell: ok for cell, (_, ok) in written.items()} == expected_ok
    assert sum(not ok for ok in expected_ok.values()) == 2
    rows = res.to_json()["written"]
    assert {(w["row"], w["col"]): w["correct"] for w in rows} == expected_ok


def test_large_typed_entries_in_a_grid_with_a_diagonal_in_every_cell_are_not_clues():
    """A diagonal in every cell, so a clue cell is a light cell with a number in a corner; the
    player's large typed digits, cut by the band along the diagonal, leave a piece in a corner
    too (the bottom bar of a "3", a tenth of the cell high: this fails when such a sliver counts
    as a number). Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "typed_entries_diagonal_in_every_cell_11x11_render.jpg")


def test_bold_typed_entries_whose_blur_darkens_the_cells_paper_are_not_clues():
    """Clue cells a shade darker than the cream paper, and the player's large bold digits typed in
    black in three white cells: their strokes and the blur round them darkened the cells' paper
    tone as far as the clue cells', and the three were taken for clue cells (the layout off its
    symmetry; unreadable). A cell whose frame is light paper all round, lighter than its
    middle, with paper showing between the strokes there, holds an entry: its paper is the
    frame's. A generated photo of a corpus puzzle (bench typed_entries style, seed 66, #10;
    its transcription), stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "bold_typed_entries_on_cream_paper_beside_pale_clue_cells_12x10_render.jpg")


def test_typed_entries_in_a_blurred_photo_are_white_cells_not_grey_blocks():
    """A photographed page, a diagonal in every cell, light grey blocks, the player's large digits
    typed in blue. Blurred, a digit's strokes darkened its cell's paper tone to 0.11-0.13 of the
    way to ink, near the blocks' 0.17-0.20, and the frame round it (the grid's lines and the
    diagonal run through it) came out no lighter than by 5 grey levels: four white cells were
    taken for blocks and two for clues (unreadable). Between the strokes the paper is as light
    as the white cells' own and clearly lighter than the cell's commonest tone, where a grey
    block is grey all over (and a white cell in dimmer light its paper all over): such a cell
    holds an entry.
    Rendered from a corpus puzzle (bench style:typed_entries, seed 81, #10; its transcription),
    stored as JPEG."""
    assert_solved_as_transcribed(
        IMAGES / "typed_entries_blurred_photo_grey_blocks_diagonal_in_every_cell_10x10_render.jpg")


def test_large_typed_entries_cut_in_two_by_the_band_along_the_diagonal_are_not_clues():
    """Hatched blocks, a diagonal in every cell, typed "3"s and "7"s whose top and bottom the band
    along the diagonal parts: each part alone is as tall as a clue number and off the diagonal,
    and sixteen white cells were taken for clues ("not a Kakuro grid"). Together the two parts
    are one glyph, no wider than a digit, centred on the diagonal. Rendered from a corpus puzzle
    (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "typed_entries_hatched_blocks_diagonal_in_every_cell_11x11_render.jpg")


@pytest.mark.parametrize("name", [
    # Clean: typed "5"s, the band along the diagonal cutting each into its bar, its stem's foot
    # and its bowl; the bowl alone is as tall as a clue number.
    "typed_entries_fives_cut_in_three_by_the_band_diagonal_in_every_cell_13x13_render.jpg",
    # A photographed page: a typed "5" in a cell of the last row.
    "typed_entries_photographed_page_diagonal_in_every_cell_7x7_render.jpg",
])
def test_large_typed_entries_cut_in_three_by_the_band_along_the_diagonal_are_not_clues(name):
    """A large entry cut by the band into more pieces than two, each joined only to the next one
    across the band: taken two at a time the pieces were no taller than a clue number, so the
    entries' cells were clue cells (clues contradicting, layout off its symmetry). All the pieces
    reached across the band are one glyph. Rendered from corpus puzzles (their transcriptions)."""
    assert_solved_as_transcribed(IMAGES / name)


#: The digits typed large into the grid below, counted by eye in the picture.
_TYPED_ON_GREY_PAPER = sorted([3, 2, 5, 8, 8, 9, 8, 4, 4, 9, 4, 7, 2, 8, 2])


def test_large_typed_entries_are_white_cells_where_the_clue_cells_are_grey():
    """Clue cells light grey, a player's digits typed large and dark in fifteen white cells: each
    greys its cell as much as a clue cell's paper, and its strokes reach both corners, but it is
    one piece astride the cell's middle, not a number in a corner (this fails when the corners
    are looked at as in a cell with a diagonal line). Rendered from a corpus puzzle (its
    transcription)."""
    truth = load_puzzle(IMAGES / "typed_entries_big_digits_grey_cells_12x12_render.txt")
    (res,) = solve_image(load_image(IMAGES / "typed_entries_big_digits_grey_cells_12x12_render.jpg"))
    assert res.status == "solved", res.problems
    assert grid_tokens(res.puzzle) == grid_tokens(truth)
    assert dict(res.solution.values) == dict(solve_puzzle(truth).values)
    assert all(cell in truth.whites for cell, _, _ in res.written)
    assert sorted(digit for _, digit, _ in res.written) == _TYPED_ON_GREY_PAPER


@pytest.fixture(scope="module")
def book_page():
    return solve_image(load_image(IMAGES / "book_scan_discs_3puzzles.jpg"))


@pytest.mark.slow
def test_numbers_in_discs_on_a_japanese_book_page_are_read(book_page):
    """Every clue number in a small white disc on the black half of its cell; two puzzles, a
    worked example and an answer grid on one scanned page. The three puzzles read exactly and
    solve to their transcriptions' solutions; the answer grid is never reported solved."""
    truths = [load_puzzle(IMAGES / f"book_scan_discs_3puzzles@{k}.txt") for k in (1, 2, 3)]
    results = book_page
    solved = [r for r in results if r.status == "solved"]
    assert len(solved) == 3
    for truth in truths:
        (res,) = [r for r in solved if (r.puzzle.n_rows, r.puzzle.n_cols) == (truth.n_rows, truth.n_cols)]
        assert grid_tokens(res.puzzle) == grid_tokens(truth)
        assert dict(res.solution.values) == dict(solve_puzzle(truth).values)


def test_large_discs_drawn_touching_in_cells_with_two_clues_are_read():
    """A book's style with large discs, over half a cell wide: in a cell with two clues the two
    discs touch where its numbers meet at the diagonal, one piece of ink too large and unround
    for a disc, and half the cell light: such cells passed for white paper, and with the grid's
    discs then too few to count, all 85 clues were unreadable. The two discs are parted where
    the piece's distance to its edge peaks twice; a grey cell holding a number in a disc is a
    clue cell. Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "discs_large_touching_in_two_clue_cells_15x15_render.jpg")


def test_digits_in_discs_as_faint_as_the_discs_on_their_grey_ground_are_read():
    """Light discs on grey clue cells, photographed in dim light: the digits stand out from their
    discs by 50-57 grey levels, as the discs do from the grey, and a disc needed 60 to hold a
    number (22 of 30 clues unreadable). The digits' contrast counts against the disc's own.
    Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "discs_on_grey_digits_faint_in_a_dim_photo_9x9_render.jpg")


def test_grey_digits_in_small_white_discs_on_black_cells_are_read():
    """Small white discs on black clue cells, their digits printed grey: the digits stand 54-59
    levels from their discs, under the 60 a disc needed to hold a number, and 54 of 58 clues
    were unreadable. Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "discs_black_grey_digits_in_small_white_discs_photo_12x12_render.jpg")


def test_digits_in_discs_reaching_over_the_diagonal_are_read_whole():
    """Small discs (12 px in the photo) that reach over the cell's diagonal: looked for within
    their half, they were cut where the half ends, and their digits with them (a "6" left as a
    stub read "1", at two of the three levels), so that the clues fitted several ways. Each
    side now keeps the disc found whole across the cell where it shows more of its digits.
    Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "discs_reaching_over_the_diagonal_cut_with_their_half_12x10_render.jpg")


def test_plain_digits_crossing_the_diagonal_are_read_whole():
    """Large digits in black clue cells, a down number's "0" crossing the light diagonal. Each
    half ends at the diagonal, so the "0" is cut along its top right and what stays reads "6"
    ("10" read "16", twice). The totals correct both to 10, but the correction is refused: the
    cut "0" looks like the "16"s printed elsewhere, whose "6" the diagonal cuts the same way
    (unreadable, honestly). Rendered from a corpus puzzle (its transcription; clean tier, seed 65
    #9, JPEG)."""
    assert_solved_as_transcribed(IMAGES / "digits_crossing_the_diagonal_cut_with_their_half_12x10_render.jpg")


def test_clue_digits_touching_a_dotted_diagonal_are_read_without_its_dots():
    """Tinted clue cells split by a dotted diagonal, numbers printed close against it: a digit
    touching a dot was one piece with it ("45" read "4", "17" and "15" read "1"), and the clues
    fitted only after seven corrections (unreadable). A dotted diagonal is a line, cleared as
    a solid one is. Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "dotted_diagonal_touching_clue_digits_11x11_render.jpg")


def _corpus_puzzles(names):
    out = []
    for name in names:
        puzzle = load_puzzle(CORPUS / name)
        out.append((puzzle, dict(solve_puzzle(puzzle).values)))
    return out


@pytest.mark.slow
def test_a_diagonal_in_every_cell_does_not_make_every_cell_a_clue():
    """A regional newspaper's look: a thin diagonal in every cell, white cells included, clue
    cells on the white paper told apart only by their small numbers, blocks grey or hatched.
    Published puzzles from the corpus, drawn that way (flat and photographed): each is read
    exactly, and none is solved wrongly."""
    from synthetic.render import render_family

    puzzles = _corpus_puzzles(["paucuesta9__diff2_9_10_0.txt", "nikoli__Nikoli_Vol_142_Kakuro_No_4.txt"])
    exact = wrong = 0
    cases = [(k, level) for k in range(3) for level in (None, "photo")]
    for k, level in cases:
        puzzle, values = puzzles[k % len(puzzles)]
        image, _, _, _ = render_family(np.random.default_rng([24, k]), "diagonal_everywhere", [puzzle],
                                       [values], cell_px=44, level=level)
        results = [r for r in solve_image(image) if r.puzzle is not None]
        read = results[0] if results else None
        exact += read is not None and grid_tokens(read.puzzle) == grid_tokens(puzzle)
        wrong += read is not None and read.status == "solved" and dict(read.solution.values) != values
    assert wrong == 0
    assert exact >= len(cases) - 1, f"{exact} of {len(cases)} read exactly"


@pytest.mark.parametrize("name, turn", [
    # Photographed upside down: the blocks, white with a diagonal, looked as white as paper in
    # the first column as it lies (the border witness of a half turn was lost).
    ("upside_down_diagonal_in_every_cell_blocks_white_7x7_render.jpg", False),
    # Turned here: as it lies, the numbers in the corners a clue's number takes made a layout
    # with runs of one cell, no Kakuro's.
    ("diagonal_in_every_cell_light_falling_off_to_a_corner_7x7_render.jpg", True),
])
def test_a_grid_with_a_diagonal_in_every_cell_lying_upside_down_is_read_upright(name, turn):
    """Where every cell carries a diagonal, the clue cells are those with numbers in a clue's
    corners; upside down, a down number lies where an across one would, and the layout as it
    lies is no Kakuro's (unreadable). Such a grid is read turned a half turn as well. Renders of
    a corpus puzzle (its transcription)."""
    import cv2

    truth = load_transcription(IMAGES / name)
    image = load_image(IMAGES / name)
    if turn:
        image = cv2.rotate(image, cv2.ROTATE_180)
    (res,) = solve_image(image)
    assert res.status == "solved", res.problems
    assert grid_tokens(res.puzzle) == grid_tokens(truth)
    assert dict(res.solution.values) == dict(solve_puzzle(truth).values)
    assert res.turned == 180


def _assert_read_upright(name: str, turned: int) -> None:
    """The one puzzle on test image ``name`` is solved as transcribed, read turned ``turned``
    degrees clockwise back to upright."""
    truth = load_transcription(IMAGES / name)
    (res,) = solve_image(load_image(IMAGES / name))
    assert res.status == "solved", res.problems
    assert grid_tokens(res.puzzle) == grid_tokens(truth)
    assert dict(res.solution.values) == dict(solve_puzzle(truth).values)
    assert res.turned == turned


def test_a_grid_lying_a_quarter_turn_whose_diagonals_are_faint_is_read_upright():
    """Green clue cells with a darker green diagonal, 10-16 grey levels from the cell, photographed
    lying a quarter turn from upright. No diagonal reached the 20 levels of a drawn line, so the
    slant was measured from the tone step between the halves, which are one green: no slant
    was seen, and read as it lay, 35 of 49 clues were illegible. A faint line counts where it
    is stronger than the step: about 50 cells rise, none falls. Rendered from a corpus puzzle
    (bench tier turned, seed 70, #8; its transcription), stored as JPEG."""
    _assert_read_upright("turned_a_quarter_green_clue_cells_faint_darker_diagonals_12x12_render.jpg", 270)


def test_a_column_of_text_beside_a_grid_lying_a_quarter_turn_does_not_say_how_it_lies():
    """A page photographed lying a quarter turn from upright, a column of text beside its 9x9
    grid. The lines of text passed for the rows of a larger grid, 9x11, its columns fitted to
    them, and the largest grid decides how the page lies: no diagonal rises in text, so the
    page was read as it lay, and 17 of 18 clues were illegible. A grid located by lines both
    ways now speaks for the page before one whose columns were only fitted to its rows.
    Rendered from a corpus puzzle (bench tier turned, seed 85, #4; its transcription), stored
    as WebP."""
    _assert_read_upright("turned_a_quarter_beside_a_column_of_text_9x9_render.webp", 90)


def test_grey_clue_cells_with_two_white_numbers_over_the_diagonal_are_not_shaded_paper():
    """Grey clue cells with a dark diagonal and bold white numbers, lying a quarter turn from
    upright. A clue cell holding two numbers has them over most of its diagonal: two such cells
    measured plain and lighter than the others (tone 0.2-0.27 against 0.38), and were taken for
    white paper in a soft shade ("grey cells without a diagonal where the blocks carry one"); a
    quarter of their pixels are near white, which paper in a shade never is. Read upright the
    reading was then unreadable, and so was the wrong quarter turn, tried first and kept on the
    tie ("40 of 40 clues could not be read", 9x11 on its side): of two unreadable turns, the
    one with more legible clues stands. Still left: a third such cell is lighter than the split
    itself and is read white (row 3, column 4), and the small numbers leave two readings, so the
    puzzle is honestly unreadable. Rendered from a corpus puzzle (bench tier turned, seed 77,
    #2; its transcription), stored as JPEG."""
    name = "turned_grey_clue_cells_two_large_white_numbers_over_the_diagonal_12x10_render.jpg"
    truth = grid_tokens(load_transcription(IMAGES / name))
    (res,) = solve_image(load_image(IMAGES / name))
    read = grid_tokens(res.puzzle)
    assert (len(read), len(read[0])) == (len(truth), len(truth[0])) == (12, 10)
    for r, c in ((7, 3), (9, 5)):  # "14\21" and "16\24": two numbers over the diagonal
        assert "\\" in truth[r][c] and read[r][c] != "."
    assert res.status != "solved" or dict(res.solution.values) == dict(solve_puzzle(load_transcription(IMAGES / name)).values)


def test_a_faint_colour_cast_over_a_corner_does_not_make_blocks_where_every_cell_has_a_diagonal():
    """A diagonal in every cell and pale hatched blocks: the split between paper and print falls
    low, and a camera's colour cast over the grid's lower left corner (3 Lab units from the
    paper, no plane through the page) put eighteen white and clue cells among the blocks (the
    layout off its symmetry, unreadable). A tint that faint is the light's, not print. Rendered
    from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "diagonal_everywhere_faint_colour_cast_over_a_corner_13x13_render.jpg")


def test_a_grid_line_left_along_a_cells_border_is_not_a_number_where_every_cell_has_a_diagonal():
    """A small photo of a grid with a diagonal in every cell: a light cell is a clue where it
    carries a number in a corner, and the lattice a pixel or two off left the grid line inside
    the last column's cells, broken by gaps into pieces as tall as a number: nine white cells
    were taken for clues. A hairline against the border is a line. Every cell's kind as
    transcribed (its numbers, a few pixels tall, are not all legible)."""
    assert _cells_unlike_transcription("diagonal_everywhere_grid_line_left_in_the_last_column_15x13_render.jpg") == []


def _cells_unlike_transcription(filename: str) -> list[tuple[int, int]]:
    """The cells (1-based) of the image's grid of the transcription's shape whose kind, as looked
    at, is not the transcription's."""
    from vision.grid import locate_puzzles
    from vision.read import look_at_grid

    from test_cells import transcribed_kinds

    truth = transcribed_kinds(filename.rsplit(".", 1)[0])
    image = load_image(IMAGES / filename)
    geometry = next(g for g in locate_puzzles(image) if g.shape == truth.shape)
    kinds = look_at_grid(image, geometry).classes.kinds
    return [(int(r) + 1, int(c) + 1) for r, c in zip(*np.nonzero(kinds != truth))]


def test_hatched_blocks_printed_as_a_screen_of_dots_are_blocks_where_every_cell_has_a_diagonal():
    """A newspaper page, a dotted diagonal in every cell, pale blocks hatched with lines printed as
    a screen of dots. The dots break the lines up: a block's side showed two of its five lines,
    or three with a gap of two, where the hatching test asked for three evenly spaced lines on
    each side. Only 5 of 16 blocks were hatched; the rest, as light as paper, were white cells (a
    run of ten, unreadable). What is left of the lines lies on one lattice, a whole number of
    periods apart on both sides of the diagonal. Rendered from a corpus puzzle (bench
    style:newsprint_dots, seed 81, #9; its transcription), stored as WebP quality 60."""
    assert_solved_as_transcribed(IMAGES / "newsprint_hatching_as_dots_diagonal_in_every_cell_11x11_render.webp")


def test_white_cells_in_light_falling_off_to_a_corner_are_white():
    """A diagonal in every cell, light hatched blocks, and the light falling off towards a
    corner: there the white cells were as grey as the blocks against the whitest paper a few
    cells away, and taken for blocks (four runs of one cell). Against a plane through the white
    paper they are white. Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "diagonal_in_every_cell_light_falling_off_to_a_corner_7x7_render.jpg")


@pytest.mark.parametrize("name, on_desk", [("site_9x9_a.png", False), ("wikipedia_8x8.png", False),
                                           ("grey_white_digits_14x12.jpg", False), ("wikipedia_8x8.png", True)])
def test_a_grid_in_dark_mode_is_read_in_negative(name, on_desk):
    """A screen in dark mode draws light lines and digits on dark cells: real screenshots and a
    real scan turned negative read exactly as the originals' transcriptions; also when the dark
    screen is photographed on a light desk that fills most of the picture."""
    truth = load_transcription(SAMPLES / name)
    image = 255 - load_image(SAMPLES / name)
    if on_desk:
        h, w = image.shape[:2]
        image = np.pad(image, ((h, h), (w, w), (0, 0)), constant_values=215)
    results = solve_image(image)
    assert [r.status for r in results] == ["solved"]
    assert grid_tokens(results[0].puzzle) == grid_tokens(truth)
    assert dict(results[0].solution.values) == dict(solve_puzzle(truth).values)


#: The answer grid printed on the book page (the worked example's solution, without its clue
#: row and column), transcribed by eye; 0 is a black cell.
_BOOK_KEY = ((0, 2, 1, 6, 0), (0, 5, 7, 9, 8), (1, 3, 0, 7, 9), (2, 4, 1, 3, 0), (0, 1, 2, 8, 0))


@pytest.mark.slow
def test_an_answer_grid_on_a_book_page_is_an_answer_key_not_a_puzzle(book_page):
    """The page's answer grid is read as an answer key, not solved, and found to answer the
    worked example (whose transcription's solution is that grid, one row and column in)."""
    (key,) = [r for r in book_page if r.status == "answer-key"]
    expected = {(r, c): d for r, row in enumerate(_BOOK_KEY) for c, d in enumerate(row) if d}
    assert dict(key.solution.values) == expected
    example = load_puzzle(IMAGES / "book_scan_discs_3puzzles@2.txt")
    assert {(r - 1, c - 1): d for (r, c), d in solve_puzzle(example).values.items()} == expected
    (k,) = [k for k, r in enumerate(book_page) if r.puzzle is not None and r.puzzle.n_rows == example.n_rows]
    assert key.answer_to == (k, True)
    doc = key.to_json()
    assert doc["kind"] == "answer-key" and doc["unique"] is None and doc["answer_to"] == {"puzzle": k + 1,
                                                                                          "agrees": True}


@pytest.mark.slow
@pytest.mark.slow
def test_a_sudoku_solution_cut_off_at_the_page_edge_is_neither_a_puzzle_nor_an_answer_key():
    """The Guardian page photographed with the last rows of a sudoku's printed solution at its top
    edge: every cell a digit, its thick box lines beside a third of them passing for the edges of
    clue cells, where a third of the "clue" sides were read weakly as numbers. It was reported
    as an unreadable puzzle (the page's exit code 8), then as a Kakuro's answer key; a key's
    blocks are blank, and only the Kakuro on the page is reported (as transcribed)."""
    results = solve_image(load_image(SAMPLES / "guardian1244_photo_a.jpg"))
    assert [r.status for r in results] == ["solved"]
    assert grid_tokens(results[0].puzzle) == grid_tokens(load_puzzle(SAMPLES / "guardian1244_photo_a.txt"))


def test_a_puzzle_and_its_answer_key_on_one_page_are_checked_against_each_other():
    """A generated book page: a published puzzle and, beside it, its solution as an answer grid
    (clue cells bare). The puzzle is solved, the grid is named an answer key, and the two agree."""
    from synthetic.render import render_family

    (puzzle, values), = _corpus_puzzles(["paucuesta9__diff2_9_10_0.txt"])
    image, corners, _, keys = render_family(np.random.default_rng(7), "answer_key", [puzzle], [values])
    assert len(keys) == 1
    results = solve_image(image)
    assert sorted(r.status for r in results) == ["answer-key", "solved"]
    (key,) = [r for r in results if r.status == "answer-key"]
    (solved,) = [r for r in results if r.status == "solved"]
    assert dict(solved.solution.values) == values
    assert dict(key.solution.values) == values
    assert key.answer_to == (results.index(solved), True)


def test_a_puzzle_whose_clues_two_readings_dispute_is_settled_by_its_answer_key_on_the_page():
    """A generated book page: a puzzle and its answer key beside it. Two readings of the puzzle's
    blurred clues ("27" or "29", "6" or "8") each had one solution, so it was unreadable. The
    key is read apart, from the digits in its white cells; its runs add up to one of the numbers
    the reader offered for every clue, and the puzzle so read has one solution, the key's. A
    corpus puzzle (bench style:answer_key, seed 66, #4; its transcription), stored as JPEG."""
    results = _puzzle_and_key_read(IMAGES / "puzzle_two_readings_apart_beside_its_answer_key_9x10_render.jpg",
                                   ["solved", "answer-key"])
    assert results[1].answer_to == (0, True)
    # The clues the key settled are said to be its, not the rules' (the rules left two readings).
    corrections = results[0].corrections
    assert corrections and all(c.source == "answer-key" and "answer key" in c.describe() for c in corrections)
    assert {row["by"] for row in results[0].to_json()["corrections"]} == {"answer-key"}


def _puzzle_and_key_read(image, statuses: list[str]) -> list:
    """The results of ``image`` (a puzzle and an answer key), asserted to be of ``statuses`` in
    reading order, the puzzle solved as transcribed beside the image."""
    truth = load_transcription(image)
    results = solve_image(load_image(image))
    assert [r.status for r in results] == statuses
    solved = results[statuses.index("solved")]
    assert grid_tokens(solved.puzzle) == grid_tokens(truth)
    assert dict(solved.solution.values) == dict(solve_puzzle(truth).values)
    return results


@pytest.mark.slow
def test_an_answer_grid_one_cell_beside_its_puzzle_is_two_grids():
    """A photographed book page: an answer grid and its puzzle (a diagonal in every cell, grey clue
    cells) of the same height, a cell apart, so that one lattice also runs across both. Each is
    found on its own: the puzzle solved as published, the answer grid named its answer key."""
    image = IMAGES / "answer_grid_beside_its_puzzle_9x9_render.png"
    truth = load_transcription(image)
    published = parse_solution_grid((CORPUS / "krazydad__k8_v9_b98_n8.sol").read_text())
    results = solve_image(load_image(image))
    assert [r.status for r in results] == ["answer-key", "solved"]
    key, solved = results
    assert grid_tokens(solved.puzzle) == grid_tokens(truth)
    assert dict(solved.solution.values) == published
    assert key.answer_to == (1, True)


def _assert_puzzle_solved_then_its_answer_key(image):
    """The puzzle on ``image`` solved as transcribed (NAME.txt), then its answer grid, named its
    answer key and found to agree."""
    truth = load_transcription(image)
    results = solve_image(load_image(image))
    assert [r.status for r in results] == ["solved", "answer-key"]
    solved, key = results
    assert grid_tokens(solved.puzzle) == grid_tokens(truth)
    assert dict(solved.solution.values) == dict(solve_puzzle(truth).values)
    assert key.answer_to == (0, True)


def test_a_puzzle_and_its_answers_printed_a_cell_apart_on_a_photographed_page_are_two_grids():
    """A puzzle and its answer grid of the same height, a cell of white page apart and in line, on
    a photographed page: the page's outline holds one lattice running across both, whose column
    between them no line crosses. Each grid is found on its own: the puzzle solved as transcribed,
    the answers named its answer key and found to agree with its solution."""
    image = IMAGES / "answers_in_line_a_cell_beside_the_puzzle_7x7_render.jpg"
    _assert_puzzle_solved_then_its_answer_key(image)


def test_an_answer_grid_printed_a_row_above_a_puzzle_is_two_grids():
    """A photographed page: an answer grid (to another puzzle) and, a row of page below it under a
    caption, a puzzle of the same width, in line. A quad round both held a 15x7 lattice whose
    eighth row no line crosses, as clear as either grid's own: the two were read as one
    (unreadable), or the puzzle was lost. Each is found on its own: the key named as such, the
    puzzle solved as transcribed. Rendered from a corpus puzzle (its transcription)."""
    _puzzle_and_key_read(IMAGES / "answer_key_above_its_puzzle_a_row_apart_7x7_render.jpg", ["answer-key", "solved"])


def test_a_puzzle_printed_a_row_above_its_answer_key_is_two_grids():
    """The same on another page, the puzzle above and its answer grid below (light blue blocks, a
    diagonal in every one): there the 15x7 quad was its blob's only one, and the clearest. Any
    quad of a blob whose clearest holds two grids is asked too. The puzzle solved as transcribed,
    the key named and found to agree (lossless WebP: a JPEG of it loses the key's last digits)."""
    _assert_puzzle_solved_then_its_answer_key(IMAGES / "puzzle_above_its_answer_key_a_row_apart_7x7_render.webp")


def test_an_app_board_that_draws_every_empty_cell_as_a_zero_is_read():
    """Some apps draw an empty white cell as a large "0" (FACTS.md). The zeros' top and bottom
    strokes are lines a third of a cell apart in every row and column, a finer lattice than the
    grid's (no grid was found). The puzzle is solved as transcribed, and the zeros are no entries.
    Rendered from a corpus puzzle (its transcription)."""
    image = IMAGES / "app_board_empty_cells_drawn_as_zeros_9x9_render.png"
    assert_solved_as_transcribed(image)
    (res,) = solve_image(load_image(image))
    assert res.written == ()


def test_bold_zeros_in_most_white_cells_are_entries_not_a_dashed_diagonal_in_every_cell():
    """An app's 14x14 board in 553 px, blocks and clue cells light blue with a diagonal, a bold
    "0" (or a digit) in every white cell. With most white cells so filled, their paper came out
    only 0.09 of the way to ink darker than the reference (which they pulled down), not looked
    at for a large entry, and their zeros' strokes crossing the diagonal passed for a dashed
    line: "a diagonal in every cell", every cell taken for print, read turned upside down, and
    unreadable ("20 of 34 runs are a single cell"). Cells are looked at for a large entry from
    half as dark, and where a quarter of the light cells hold one with no diagonal line, the
    grid has no diagonal in every cell. Rendered from a corpus puzzle (bench style:zero_cells,
    seed 77, #7; its transcription), stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "zero_cells_bold_zeros_in_a_small_board_light_blue_print_14x14_render.jpg")


def test_bold_zeros_two_thirds_of_a_cell_tall_are_no_grid_lines():
    """A photographed page, green tinted blocks, faint lines between the white cells and a bold
    "0" two thirds of a cell tall in every empty cell: the zeros' sides outshine the grid lines.
    Fitted to the column lines alone, the zeros made a lattice three times as fine (no grid was
    found); followed cell by cell, they pulled every line a third of a cell aside (every clue
    number cut in two). Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "zero_cells_bold_zeros_tinted_page_photo_7x7_render.jpg")


def test_a_column_of_black_blocks_at_the_grid_edge_is_not_cut_off():
    """Large zeros in every empty cell, black blocks, the last column all black: the zeros make
    the columns' lines a finer lattice, and fitted again with cells as long as the rows', five
    columns explained the lines a little better (0.82) than all seven (0.80), and the puzzle was
    read a column short. More cells win a near tie. Rendered from a corpus puzzle (its
    transcription)."""
    assert_solved_as_transcribed(IMAGES / "zero_cells_black_blocks_a_column_of_them_at_the_edge_7x7_render.jpg")


def test_zeros_whose_straight_sides_outline_a_finer_lattice_do_not_add_columns():
    """Rounded app tiles, a thin monospaced "0" in every empty cell: the zeros' straight sides
    are lines as long as the grid's own between tiles, and the columns were fitted as a lattice
    a third of a cell fine (9x10 read for 9x9). Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "zero_cells_thin_mono_zeros_on_rounded_tiles_9x9_render.png")


def test_zeros_on_a_photographed_board_do_not_halve_its_columns():
    """A photographed app board with a "0" in every empty cell: the zeros' sides, half a cell
    apart, made every column two (8x16 read for 8x8). Rendered from a corpus puzzle (its
    transcription)."""
    assert_solved_as_transcribed(IMAGES / "zero_cells_zeros_half_a_cell_apart_photo_8x8_render.jpg")


def test_zeros_two_to_a_cell_do_not_cut_the_board_down_to_its_clearer_part():
    """Rounded grey tiles on a grey board, a "0" in every empty cell, blocks along the first rows
    and columns. Over the whole board the zeros' sides made the columns a lattice twice as fine
    (20 for 10, 0.67) that outscored the ten columns as wide as the rows are tall (0.55), so no
    12x10 grid was found, only a 10x8 part of it clear of the blocks (its first two rows and
    columns lost). A lattice two or three times as fine as the cells is their print, not a rival;
    and a larger lattice continuing the clearest, lined all round, holds it whatever it scores.
    Rendered from a corpus puzzle (bench style:zero_cells, seed 81, #3; its transcription),
    stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "zero_cells_rounded_tiles_two_rows_of_blocks_first_12x10_render.jpg")


def test_a_run_of_nine_headed_by_a_clue_whose_lower_half_is_white_is_not_a_lattice_run_on():
    """Tinted clue triangles on white, a "0" in every empty cell, a row of nine white cells next
    to last: its clue cell's white lower half looked like paper, so the row read as a run of ten,
    which no Kakuro has, and two rows were cut away as a lattice carried on past the grid
    (8x10 read for 10x10). A run's first cell heads it. Rendered from a corpus puzzle (its
    transcription)."""
    assert_solved_as_transcribed(IMAGES / "zero_cells_a_run_of_nine_headed_by_a_half_white_clue_10x10_render.jpg")


def test_a_lost_border_of_light_grey_blocks_is_added_though_they_look_as_white_as_paper():
    """Rounded app tiles whose grey blocks are as light as the gaps between tiles: the lattice
    began a row and a column late (14x14 for 15x15), and the row and column added back hold
    grey blocks that look white, 6 and 8 of 15, where the border found had 11 of 14 white
    cells: the border was not added and the grid read unreadable. Rendered from a corpus puzzle
    (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "rounded_tiles_grey_blocks_as_light_as_the_gaps_lost_border_15x15_render.jpg")


def test_a_board_of_dark_rounded_tiles_is_found_whole_beyond_a_patch_of_white_tiles():
    """An app's board of dark red rounded tiles parted by light grey gaps, photographed on a page:
    plain ink holds no line round the board, and the clearest lattice in it is a 4x6 patch of
    white tiles seven cells in from its top; the gaps bridged, the board's blob reaches that far
    past the patch, which was taken for text round a grid (4x6 read, unreadable). Rendered from
    a corpus puzzle (bench style:rounded_app, seed 37, #8; its transcription), stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "dark_rounded_tiles_white_patch_found_first_11x11_render.jpg")


def test_a_column_of_grey_tiles_parted_by_faint_grey_gaps_is_part_of_the_board():
    """An app's board of rounded tiles photographed on a page: its outer columns and first row
    are mid-grey blocks on a grey board, the gaps between them grey on grey and faint. The
    board's bridged blob was found but refused as not lined all round (tiles taken for text
    beside the grid), and a lattice of 18x9 half a row off was read (unreadable). Blank blocks
    need no line between them, as in a grid's own rows. Rendered from a corpus puzzle (bench
    style:rounded_app, seed 39, #1; its transcription), stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "grey_tiles_round_a_board_gaps_grey_on_grey_9x9_render.jpg")


def test_cells_holding_large_bold_entries_under_a_cursor_tint_are_white():
    """An app's board mid-game: the player's large bold digits fill over half of their cells'
    middles, some under the cursor's beige row and column, so that the ink was the commonest tone
    and the cells were taken for blocks (unreadable, the layout off its symmetry). Their frame
    just inside the grid lines is paper. Rendered from a corpus puzzle (bench style:app_notes,
    seed 39, #1; its transcription), cropped round the grid and stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "large_bold_entries_in_cursor_tinted_cells_7x7_render.jpg")


def test_dark_mode_clue_cells_told_from_white_cells_by_tint_and_light_numbers():
    """An app's dark mode photographed on a dark page: dark teal clue cells with light numbers
    beside dark grey white cells and black blocks. The clue cells are as dark as the white ones,
    their tint apart by less than the blocks' tone, so that they were taken for white, the first
    row's and column's for paper, and the grid was widened by a row and a column of the page (10x10,
    no clue read). A cell of another tint with a number in a corner, light or dark, is a clue.
    Rendered from a corpus puzzle (bench style:dark_mode, seed 40, #2; its transcription), stored
    as JPEG."""
    assert_solved_as_transcribed(IMAGES / "dark_mode_teal_clue_cells_as_dark_as_the_white_cells_9x9_render.jpg")


def test_a_dark_mode_screen_is_one_grid_not_its_clearest_patches_of_blocks():
    """A dark-mode screenshot filling its image: the whole 14x14 grid's lattice scored 0.82 (its
    border on the image's edge), and patches of black blocks inside it, 3 to 5 cells a side,
    scored 1.0, over 1.2 times clearer; each replaced the grid as a grid inside a frame does,
    and nine small grids were read. A part whose lattice the larger one continues (cells of its
    size, held in it), with the rows and columns it adds crossed by that lattice's lines, is a
    part of it (text beside a grid is not crossed by them). Rendered from a corpus puzzle (bench
    style:dark_mode, seed 40, #1; its transcription), stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "dark_mode_screen_patches_of_blocks_clearer_than_the_whole_14x14_render.jpg")


def test_a_cursor_tint_darker_than_pastel_blocks_leaves_its_cells_white():
    """An app's board mid-game: mint blocks and clue cells, the selected cell's row and column
    tinted lilac, a shade darker than the blocks (a tint was looked for only lighter than
    them): the row and column were taken for blocks. Rendered from a corpus puzzle (its
    transcription)."""
    assert_solved_as_transcribed(IMAGES / "selection_tint_darker_than_pastel_blocks_12x10_render.jpg")


def test_light_grey_clue_cells_beside_a_cursor_tinted_row_and_column_stay_clue_cells():
    """An app's board in light grey squares (numbers, no split) and darker blocks, the selected
    cell's row and column tinted beige, typed digits and pencil marks: the tinted cells widened
    the white paper's grain past the clue cells' grey, and clue cells were taken for white (9 of
    14 clues unread). Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "cursor_tint_over_light_grey_clue_cells_7x7_render.webp")


def test_a_pale_cursor_beside_black_blocks_and_two_tone_clue_cells_leaves_its_cells_white():
    """An app's board mid-game on a photographed page: black blocks, clue cells in two pastel
    halves, the selected cell's row and column tinted pale blue. The blue is near the black
    print's grey in hue (it was not taken for a tint unlike the print), and the clue cells'
    pastel halves lie outside the cursor's row and column (they broke the search for it): three
    tinted white cells were taken for print. Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "pale_cursor_beside_black_blocks_and_two_tone_clues_8x12_render.jpg")


def test_cursor_cells_holding_pencilled_candidates_in_their_corners_stay_white():
    """A phone's screenshot of an app board mid-game (cropped round the board): the selected
    cell's row and column tinted blue, the player's pencilled candidates small in the cells'
    corners. Two cursor cells were taken for clue cells, their candidates standing where a clue's
    numbers do, and two are too few to show the cursor's cross (the contradiction left it
    unreadable); with the cells of its tint already taken for white, they show it. Lossless, as
    a JPEG's noise hid the fault. Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "phone_screen_cursor_cells_with_pencil_notes_12x12_render.webp")


def test_beige_blocks_as_light_as_the_paper_do_not_set_its_tint():
    """A photographed page of an app's board: beige blocks and clue cells with dashed diagonals,
    the selected cell's row and column tinted a yellow near the beige. Under the photo's light
    the beige was within a tenth of the paper's tone, and being more of the grid than the white
    cells, set the paper's tint: the white cells stood apart by colour and were taken for clue
    cells (unreadable). Of two tints among the lightest cells, the lighter is the paper's; and a
    cursor's tint, half as far from the print's as another print's, is told by its row and column
    and the layout it mends. Rendered from a corpus puzzle (bench style:app_notes, seed 54, #2;
    its transcription), stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "beige_blocks_as_light_as_paper_under_a_cursor_near_their_tint_10x9_render.jpg")


def test_a_grid_line_that_followed_a_column_of_large_digits_is_followed_again_past_them():
    """A photographed phone screen of an app board mid-game: a large entry in every white cell,
    thin grid lines. One column line, followed down the grid, left its course for the strokes
    of the entries beside it, half a cell off by the bottom row (a clue cell cut in two, its
    number lost, the grid unreadable). Too few crossings to make the mesh irregular as a whole;
    a crossing far off the middle of the lines beside its own now has the lines followed again
    past the entries. Rendered from a corpus puzzle (bench style:phone_screen, seed 55, #11; its
    transcription), stored as lossless WebP (at JPEG or WebP quality 90 the line kept its course
    by chance)."""
    assert_solved_as_transcribed(IMAGES / "large_entries_a_grid_line_followed_down_a_column_of_digits_11x11_render.webp")


def test_a_cursor_cell_read_as_a_clue_cell_is_no_solution_without_it():
    """An app's board mid-game: the cursor's cell, in the corner of the first white run, tinted
    and holding pencilled candidates, was read as a clue cell (its candidates as a "3" and a
    "2"). The runs through it one cell shorter, the puzzle still had one solution, reported
    solved without that cell (a wrong answer); the clues above and left of it, "4" and "3",
    were printed in what the layout made blocks. A number in a block says the cell it points to
    is white: read so, the puzzle is solved with it. Rendered from a corpus puzzle (bench
    style:app_notes, seed 56, #7; its transcription), stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "cursor_cell_with_pencil_marks_read_as_a_clue_cell_11x11_render.jpg")


def test_a_dark_theme_whose_lines_show_only_in_negative_is_read_as_it_is():
    """A phone photographed showing an app's dark theme: light grid lines, white cells the grey
    of the screen round them, blocks and clue cells black. As it is, the cells are one dark mass
    with the screen (no grid found); in negative the lines show the grid, but the blocks are then
    the lightest cells and pass for white. Located in negative and read as it is, it solves.
    Rendered from a corpus puzzle (bench style:phone_screen, seed 57, #0; its transcription),
    stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "dark_theme_phone_grey_cells_black_blocks_15x8_render.jpg")


def test_the_rims_of_white_discs_on_grey_clue_cells_are_no_shadows_edge():
    """A book page photographed, its clue cells and blocks mid-grey, each number small in a white
    disc: the discs' rims, a change of tone inside a cell, were taken for a shadow's edge, and
    eight grey clue cells whose disc reads too small for a number in a corner were taken for
    white paper in that shade (the clues then totalled 223 across, 206 down). A grey cell with
    a number in a disc is print. Rendered from a corpus puzzle (bench style:discs_grey, seed 62,
    #11; its transcription), stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "discs_on_grey_clue_cells_rims_not_a_shadows_edge_12x12_render.jpg")


def test_tints_printed_as_a_newspapers_dots_are_read_as_their_mean_tone():
    """A newspaper prints its light green clue cells and blocks as a screen of dots, bare paper
    between them: each cell's commonest tone is the paper's, and the tinted cells of the bottom
    row passed for white (a layout off its symmetry). A cell's tone is measured on the image
    smoothed too, as a reader's eye sees dots. Rendered from a corpus puzzle (bench
    style:newsprint_dots, seed 61, #11; its transcription), photographed, stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "newsprint_tints_printed_as_dots_9x9_render.jpg")


def test_pale_tints_printed_as_sparse_dots_are_told_from_white_paper_by_their_dots():
    """A newspaper's pale yellow clue cells and blocks, printed as sparse dots: smoothed, such a
    cell is within a tenth of the paper's tone, its screened diagonal barely shows, and seven
    clue cells and blocks passed for white. Their dots still show where the white cells hold
    none: a cell taken for white holding dots as the print does is print. Rendered from a
    corpus puzzle (bench style:newsprint_dots, seed 63, #2; its transcription), photographed,
    stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "newsprint_pale_tints_sparse_dots_taken_for_white_9x9_render.jpg")


def test_a_grid_whose_blocks_are_a_screen_of_dots_with_no_lines_between_them_is_found():
    """A scanned newspaper grid: blocks and clue cells printed as one screen of dots, no line
    between them, the white cells parted by dotted lines. Every line and every boundary between
    a block and a white cell broke into dots too short to count as a line, and no grid was
    found. Where no lattice shows at all, the candidates are looked at again smoothed. A
    generated scan of a corpus puzzle (bench style:newsprint_dots, seed 66, #0; its
    transcription): found in a JPEG of it, and solved in the lossless original."""
    from vision.grid import locate_puzzles

    (grid,) = locate_puzzles(load_image(IMAGES / "newsprint_blocks_as_dots_no_lines_between_them_8x8_render_q92.jpg"))
    assert grid.lattice.shape == (8, 8)
    assert_solved_as_transcribed(IMAGES / "newsprint_blocks_as_dots_no_lines_between_them_8x8_render.png")


def test_large_entries_typed_in_coloured_ink_leave_their_cells_white():
    """Blue digits typed large into small white cells (28 px), blocks and clue cells tinted green:
    a "9", with the blur round its ink, covers over half its cell, and the cell's median colour
    was as blue as the clue cells are green (three "9"s taken for clue cells). A cell's paper
    tint is that of its most common tone. Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "typed_entries_blue_in_small_cells_green_blocks_11x11_render.jpg")


def test_a_block_of_text_beside_a_puzzle_is_not_reported_as_a_grid():
    """A book page with columns of text round a small puzzle: the text's lines and word gaps are
    found as a lattice, whose few "white cells" stand alone in their row and column. No Kakuro
    has such a cell, so it is neither an answer key nor an extra unreadable puzzle."""
    image = IMAGES / "discs_page_with_text_columns_8x12_render.jpg"
    truth = load_puzzle(image.with_suffix(".txt"))
    results = solve_image(load_image(image))
    assert [(r.to_json()["kind"], r.to_json()["rows"], r.to_json()["cols"]) for r in results] == [
        ("puzzle", truth.n_rows, truth.n_cols)]


def test_an_answer_key_has_no_white_cell_alone_in_its_row_and_column():
    published = parse_solution_grid((CORPUS / "krazydad__k8_v9_b98_n8.sol").read_text())
    assert _obeys_runs(set(published), published)
    far = (max(r for r, _ in published) + 2, max(c for _, c in published) + 2)
    assert not _obeys_runs(set(published) | {far}, {**published, far: 5})


def test_white_cells_filled_grey_inside_an_irregular_outline():
    """A generated book's page: no black cells, an irregular outline (bare page inside the grid's
    box), light-grey clue cells, white cells filled dark grey. The bare page is no cell."""
    assert_solved_as_transcribed(IMAGES / "pdf_page_inverted_9x5.png")


def _disc_cell(down: int, across: int, *, side: int = 80, disc: float = 0.42, font_px: int = 16) -> np.ndarray:
    """A Japanese book's clue cell: black, a light diagonal, each number dark in a white disc that
    fills most of its triangle's corner (touching the diagonal)."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("L", (side, side), 10)
    draw = ImageDraw.Draw(img)
    draw.line([(0, 0), (side, side)], fill=200, width=2)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", font_px)
    r = disc * side / 2
    for value, (cx, cy) in ((down, (r + 3, side - r - 3)), (across, (side - r - 3, r + 3))):
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=250)
        draw.text((cx, cy), str(value), fill=20, font=font, anchor="mm")
    return np.asarray(img)


@pytest.mark.parametrize("down, across", [(20, 9), (3, 16), (45, 7)])
def test_a_number_in_a_disc_that_fills_its_triangle_is_read(down, across):
    """The disc covers most of its small triangle, so the triangle alone takes the disc for paper;
    the cell's own black tells them apart."""
    from vision.ocr import read_clue_cell

    d, a = read_clue_cell(_disc_cell(down, across))
    assert (d.value, a.value) == (down, across)


def _faint_cell(down: int, across: int, *, tile: int = 135, ink: int = 195, side: int = 48) -> np.ndarray:
    """An app's clue tile: thin light numbers on a mid-grey tile, a faint diagonal, printed small
    and seen a little blurred (the number stands under 40 grey levels above its tile)."""
    import cv2
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("L", (side, side), tile)
    draw = ImageDraw.Draw(img)
    draw.line([(0, 0), (side, side)], fill=ink, width=1)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", side // 4)
    draw.text((0.72 * side, 0.3 * side), str(across), fill=ink, font=font, anchor="mm")
    draw.text((0.3 * side, 0.72 * side), str(down), fill=ink, font=font, anchor="mm")
    return cv2.GaussianBlur(np.asarray(img), (0, 0), 0.8)


@pytest.mark.parametrize("down, across", [(12, 5), (24, 16), (7, 41)])
def test_thin_light_numbers_on_a_mid_grey_tile_are_read(down, across):
    from vision.ocr import read_clue_cell

    cell = _faint_cell(down, across)
    d, a = read_clue_cell(cell)
    assert (d.value, a.value) == (down, across)


def _small_disc_cell(down: int, across: int, *, side: int, font_px: int, squash: float) -> np.ndarray:
    """A clue cell with each number in a white disc on black, printed small and seen a little
    blurred; ``squash`` < 1 draws the discs as upright ellipses, as a grid seen askew leaves them
    after straightening. Drawn four times larger and shrunk, as a camera sees print."""
    import cv2
    from PIL import Image, ImageDraw, ImageFont

    big = 4 * side
    img = Image.new("L", (big, big), 15)
    draw = ImageDraw.Draw(img)
    draw.line([(0, 0), (big, big)], fill=200, width=8)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 4 * font_px)
    r = 0.2 * big
    for value, (cx, cy) in ((down, (0.3 * big, 0.7 * big)), (across, (0.7 * big, 0.3 * big))):
        draw.ellipse([cx - squash * r, cy - r, cx + squash * r, cy + r], fill=245)
        draw.text((cx, cy), str(value), fill=25, font=font, anchor="mm")
    small = cv2.resize(np.asarray(img), (side, side), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (0, 0), 0.8)


_DISC_NUMBERS = [(12, 5), (19, 6), (22, 7), (3, 16), (45, 8), (6, 13), (17, 9), (24, 4)]


@pytest.mark.parametrize("side, font_px, squash, at_least", [
    (48, 11, 0.82, 8),  # discs seen askew: ellipses
    (28, 7, 1.0, 7),    # digits 7 pixels high, blurred towards the disc's white
])
def test_small_or_askew_numbers_in_discs_are_read(side, font_px, squash, at_least):
    """Eight clue cells read together, as one grid's cells are; the numbers are known by
    construction."""
    from vision.ocr import read_clues_two_readers

    cells = [_small_disc_cell(d, a, side=side, font_px=font_px, squash=squash) for d, a in _DISC_NUMBERS]
    reads = read_clues_two_readers(cells, second_opinion=False)
    right = sum((d.value, a.value) == pair for (d, a), pair in zip(reads, _DISC_NUMBERS))
    assert right >= at_least, [(d.value, a.value) for d, a in reads]


def test_small_blurred_numbers_in_discs_are_read_with_whole_number_templates():
    """A book page photographed from afar: numbers in discs on black, their digits 6 to 9 pixels
    tall and blurred into one blot, which the glyph reader cuts wrongly ("10" read "19", "6"
    read "4"). The whole-number template reader weighs in where the glyph reader is unsure; with
    it the grid is read exactly and solved, without it the rules find two readings and report it
    unreadable. Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "small_discs_blurred_digits_11x11_render.jpg")


def test_warm_light_across_a_cream_page_does_not_tint_white_cells_into_blocks():
    """A diagonal in every cell, hatched blocks, and warm light falling off across a cream page:
    the paper's tint drifts by 5 Lab units from one side of the grid to the other. With nearly
    every cell light, the split of tone and tint fell inside that drift and took a third of the
    white cells for blocks. Against a plane fitted through the paper's tint, the drift is gone.
    Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "diagonal_in_every_cell_warm_light_across_cream_9x9_render.jpg")


def test_faint_light_digits_on_grainy_grey_clue_cells_are_read_where_the_layout_asks_for_them():
    """Thin light digits on grainy mid-grey clue cells with no diagonal stand 26-28 grey levels
    above the grey, the grain 7: under the contrast a clue half's ink must reach, three across
    numbers were empty paper and the rules left two readings. Where the layout asks for a number
    and the half looked empty, ink as faint as 16 levels counts where it stands three times
    further from the paper than the grain does the other way. Rendered from a corpus puzzle
    (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "faint_light_digits_on_grainy_grey_clue_cells_12x12_render.webp")


def test_a_wide_number_run_on_past_the_diagonal_is_read_whole():
    """Large clue numbers set low in cells that head only a down run: "15" and "23" run on past
    the diagonal, and their last digit was cut off into the across half ("1" and "5"). Where
    the half a cell does not need holds ink on one line with its number's, the number is read
    from both halves' ink: "15" surely; "23" no surer than "2", so both are offered and the rules
    choose. Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "wide_clue_numbers_run_on_past_the_diagonal_12x10_render.jpg")


def test_clue_cells_half_covered_by_two_white_discs_are_no_white_paper_in_a_shade():
    """A book prints both numbers of a clue cell in large white discs on black: together they
    cover half the cell, which is "grey" on average, lighter than the blocks beside it, and its
    digits are too small for the corner-number test. Paper in a shade is evenly grey; such a
    cell is black and white with little between, and stays a clue cell. Two such cells were
    taken for shaded paper and the grid was unreadable. Rendered from a corpus puzzle (its
    transcription)."""
    assert_solved_as_transcribed(IMAGES / "clue_cells_half_covered_by_two_discs_8x12_render.jpg")


def test_numbers_in_discs_are_compared_by_their_digits_not_by_their_discs():
    """Where the rules leave two readings, the grid's own print settles them: a disputed number
    must look like the others of its value and not like those of the other. In a grid printed
    with discs every disc looks alike; compared by the digits in them, equal numbers look alike
    (5th percentile of likeness) and unequal ones clearly less (median). Compared as discs with
    holes, as the side's plain ink, they were not told apart (0.98 and 0.996 on this render)."""
    import itertools

    from pipeline import read

    image = IMAGES / "small_discs_blurred_digits_11x11_render.jpg"
    truth = load_transcription(image)
    value = {(run.clue, run.direction): run.total for run in truth.runs}
    (reading,) = read(load_image(image))
    grid = reading.grid
    same, other = [], []
    for a, b in itertools.combinations(sorted(value), 2):
        likeness = grid.resemble(a, b)
        if likeness is not None:
            (same if value[a] == value[b] else other).append(likeness)
    assert len(same) >= 20 and len(other) >= 100
    assert np.percentile(same, 5) >= 0.95 > np.median(other), (np.percentile(same, 5), np.median(other))


@pytest.mark.parametrize("name", ["rounded_app_light_digits_mauve_12x12_render",
                                  "rounded_app_monospace_no_diagonal_14x14_render"])
def test_app_tiles_parted_by_light_gaps_are_read(name):
    """An app's board: rounded tiles on a light backing, the gaps between them its only lines,
    light digits on mid or dark tiles. The gaps are the cell boundaries (a boundary on a tile's
    edge cuts the digits printed against the next gap), and the light gap in the band along a
    tile's border is not the paper of its light digits. Rendered from corpus puzzles (their
    transcriptions). With lattice boundaries on the tiles' edges the monospace grid fails; with
    the border band deciding polarity alone the mauve one does."""
    assert_solved_as_transcribed(IMAGES / f"{name}.jpg")


def test_clue_cells_too_pale_to_tell_from_white_are_found_by_their_numbers():
    """Two-tone clue cells tinted so pale (beige and lavender halves on white paper, no drawn
    diagonal) that tone alone takes them for white cells: the runs then grow longer than nine,
    which no Kakuro has, and the light cells with a number in a corner are the clue cells.
    Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "two_tone_pale_tints_11x11_render.jpg")


def test_clue_cells_whose_halves_are_two_pale_tints_are_clue_cells():
    """Two-tone clue cells (blue across halves, green down halves, no drawn diagonal) so pale that
    six of them were taken for white cells; no run grows past nine, so only what sets them apart
    tells: their two triangles are two prints, and they carry a number in a corner. Rendered
    from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "two_tone_halves_pale_tints_no_diagonal_9x9_render.jpg")


def test_bold_zeros_in_a_grid_without_discs_are_not_read_as_discs():
    """White bold numbers on grey app tiles: a "0" seen a little askew is as round as a disc and its
    hole as large as a digit, so alone it would read "10" as "1". No other number of the grid sits
    in a disc, so none is read as one. Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "rounded_app_bold_zeros_9x9_render.jpg")


def test_large_light_digits_reaching_a_dark_tiles_border_are_not_its_paper():
    """An app's dark rounded tiles with large light numbers and no diagonal, the down numbers
    reaching the tile's lower left border. The band along a half's border, which says which
    way round paper and ink are where a heavy number covers most of the half, held the digits'
    blurred edges and the light gap round the tile: its level (150 between the tile's 29 and the
    digits' 201) was taken for paper, the tile for ink, and "45", "39" and "38" were read "8",
    "9" and "8". Paper lies at an end of a half's tones: a level between is a third tone.
    Rendered from a corpus puzzle (bench style rounded_app, seed 85, #4; its transcription),
    stored as WebP."""
    assert_solved_as_transcribed(IMAGES / "rounded_app_large_light_digits_reaching_the_tiles_border_11x11_render.webp")


def test_paper_round_a_heavy_number_in_a_dark_mode_board_read_in_negative_is_still_paper():
    """A dark-mode board read in negative: where a heavy number covers most of a half, the band
    along its border says which tone is paper. There the band's level lies 0.21 of the half's
    range from its end (grain, and the number's edges reaching the band); a first bar of 0.2
    for "a tone between", set for the light digits of rounded tiles (0.25 and more), took it
    for a third tone: a "10" and a "23" read less surely, and two readings were left. Rendered
    from a corpus puzzle (bench style dark_mode, seed 86, #5; its transcription), stored as
    JPEG."""
    assert_solved_as_transcribed(
        IMAGES / "dark_mode_light_numbers_read_in_negative_paper_round_a_heavy_number_14x14_render.jpg")


def test_the_gap_round_a_rounded_tile_is_no_part_of_a_number_against_its_corner():
    """Light digits on green rounded tiles with light grey gaps between them: an across "10" set
    against the tile's rounded corner, where the gap's light grey, at the looser binarisation
    levels, joined its "0" into a "6" (six "10"s read "16", too many corrections to trust). The
    gap is a third tone that reaches in from the cell's edge, and is left out. Rendered from a
    corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "rounded_app_tens_against_the_tile_corner_13x13_render.jpg")


@pytest.mark.parametrize("name", ["dark_page_lighter_clue_cells_9x9_render",
                                  "dark_mode_bold_light_digits_12x13_render",
                                  "dark_mode_blue_clue_cells_8x15_render",
                                  "discs_grey_blocks_in_corners_13x13_render"])
def test_white_cells_found_where_they_are_not_the_lightest(name):
    """Cells whose paper tone misleads, rendered from corpus puzzles (their transcriptions):
    - a dark page photographed on a light desk, its clue cells and blocks a lighter blue than
      its near-black white cells (read in negative, or by paper colour: each alone suffices);
    - dark mode with two bold light numbers covering half a black clue cell (its median is
      lighter than the dark grey white cells; the tone most of it shares is not);
    - a dark-mode app whose blue clue cells and blocks are as light as its purple white cells,
      in either polarity: the one class of paper colour that lays out a Kakuro is white;
    - grey blocks in a corner of blocks, no white paper near enough to compare them with: a
      cell with no white cell beside it is no white cell.
    The last three each fail with their rule off."""
    assert_solved_as_transcribed(IMAGES / f"{name}.jpg")


def test_app_grid_whose_border_is_grey_blocks_is_found_whole():
    """A small app screenshot: grey blocks and dark clue tiles all round the border blur its outer
    lines, so that the white tiles inside make the clearest lattice (4x10 of a 6x12). The whole
    grid continues that lattice with cells of the same size and is taken."""
    assert_solved_as_transcribed(IMAGES / "rounded_app_grey_blocks_round_the_border_6x12_render.png")


@pytest.mark.parametrize("name", ["rounded_app_tiles_fill_the_screenshot_7x7_render",
                                  "rounded_app_on_a_page_no_line_round_the_tiles_7x7_render"])
def test_an_app_grid_of_tiles_with_no_line_round_them_is_found_whole(name):
    """Dark and white tiles parted by light gaps, with no line round the whole: no blob of ink
    holds the grid, and its inner 5x5 (or 5x4) was read alone. With the gaps bridged, a quad
    round all the tiles continues that lattice, lined all round, and is taken."""
    assert_solved_as_transcribed(IMAGES / f"{name}.jpg")


@pytest.mark.slow
def test_a_lattice_across_a_puzzle_and_its_answer_key_gives_way_to_both():
    """A photographed book page: a puzzle and its answer grid side by side at different heights.
    A lattice also runs from the middle of the puzzle across the answer grid, as clear as each;
    it cuts the puzzle's grid in two, so it is no grid around them: each is found on its own."""
    image = IMAGES / "answer_key_beside_its_puzzle_lattice_across_both_7x7_render.jpg"
    _assert_puzzle_solved_then_its_answer_key(image)


def test_a_puzzles_lattice_run_on_into_its_answer_key_gives_way_to_the_puzzle():
    """A photographed page with a puzzle and, beside it and higher, its answer grid. The page's
    outline counted a 9x14 lattice (0.70 clear) from the puzzle's left edge into the answer
    grid's fifth column; continuing the puzzle's own 9x9 (1.00), it was kept as the grid holding
    it and read with 26 of 44 clues lost. A lattice reaching into another grid found beside it,
    clearer than it, holds no more of one grid. Rendered from a corpus puzzle (bench style
    answer_key, seed 79, #11; its transcription; WebP quality 95)."""
    image = IMAGES / "puzzle_beside_its_answer_key_a_lattice_run_on_into_the_key_9x9_render.webp"
    _assert_puzzle_solved_then_its_answer_key(image)


@pytest.mark.parametrize("name", ["app_board_cursor_row_and_column_tinted_11x11_render",
                                  "app_board_pencil_marks_selected_cell_deeper_12x12_render"])
def test_white_cells_an_app_tints_round_the_selected_cell_are_white(name):
    """An app's board mid-game: the white cells of the selected cell's row and column tinted (the
    selected one deeper), the player's typed digits, and pencilled candidates that sit in the
    corners as clue numbers do. The tinted cells were taken for clue cells; as paper (no
    diagonal, far lighter than the clue cells) the layout turns symmetric and the rules solve
    it. Rendered from corpus puzzles (their transcriptions)."""
    assert_solved_as_transcribed(IMAGES / f"{name}.jpg")


def test_white_cells_an_app_tints_in_the_selected_row_and_column_unlike_any_print_are_white():
    """An app's board with pencilled candidates, grey blocks and clue cells, and the selected
    cell's row and column tinted lilac: lighter than the grey print, and of a colour no print has,
    the tinted cells were taken for print all the same (runs of one cell: "not a Kakuro grid").
    Cells so tinted that lie in one row and one column are white where that gives a layout a
    Kakuro can have. Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "app_notes_selected_row_and_column_tinted_6x12_render.png")


def test_a_green_selection_over_lilac_print_in_the_last_row_and_column_is_white():
    """Lilac blocks and clue cells, and the selection green in the grid's last row and column:
    less colourful than the lilac print, the green cells were not "unlike any print" by colour
    alone, and lost at the border, they left only a few runs of one cell (a layout plausible
    enough to keep, and wrong). Unlike the print's hue, lying in one row and one column, and
    with fewer runs of one cell as white, they are white; so is the selected cell where they
    cross, tinted deeper and holding a large entry. Rendered from a corpus puzzle (its
    transcription)."""
    assert_solved_as_transcribed(IMAGES / "app_selection_green_over_lilac_print_last_row_and_column_15x15_render.jpg")


@pytest.mark.parametrize("name", ["app_board_yellow_cursor_cross_clue_cells_white_with_diagonal_9x9_render",
                                  "app_board_pink_cursor_column_clue_cells_white_with_diagonal_11x11_render"])
def test_tinted_cells_are_paper_where_the_clue_cells_are_paper_too(name):
    """An app's board whose clue cells are white with a diagonal, blocks black, and the cursor's
    row and column tinted: beside clue cells of no tone at all, the tinted cells are not lighter
    than half the clues' tone, but they are far lighter than the blocks'; as paper the layout
    turns symmetric and the rules solve it. Unreadable while only the clues' tone was weighed.
    Rendered from corpus puzzles (their transcriptions)."""
    assert_solved_as_transcribed(IMAGES / f"{name}.jpg")


def test_tinted_cells_that_make_runs_of_one_cell_are_paper():
    """An app's board whose clue cells have one triangle tinted and whose cursor tints a column
    as deeply: the tinted cells were taken for print, leaving runs of one cell, and the grid was
    given up as not a Kakuro before the rules were asked. The tinted-paper variant is tried there
    too (the layout turns symmetric and the rules solve it). Rendered from a corpus puzzle (its
    transcription)."""
    assert_solved_as_transcribed(IMAGES / "app_board_cursor_column_as_tinted_as_half_tinted_clues_7x7_render.jpg")


def test_rows_a_wider_outline_adds_are_the_only_ones_it_must_show_lined():
    """An app's board ringed by pale grey tiles parted by pale gaps, its last row tinted lavender
    by the cursor. The clearest outline left out the first row and column; the outline one row
    and column wider was refused because its last row showed weak lines, a row the narrower one
    has too. Only the rows an outline adds must show lines crossing them. Rendered from a corpus
    puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "app_board_grey_tiles_round_the_edge_15x15_render.jpg")


def test_a_number_read_in_a_cell_whose_own_kind_is_in_doubt_witnesses_nothing():
    """The selected cell of an app's board, tinted deeper and holding pencilled candidates, was
    taken for a clue cell: its candidates read as an across 13 and a down 4. That down 4 pointed
    at a clue cell below, as if it headed a run, and every layout tried made that cell white. The
    selected cell is off the symmetry, its kind in doubt, so its numbers witness nothing: the
    layout with it white and the cell below left a clue solves. Rendered from a corpus puzzle
    (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "app_board_selected_cell_candidates_read_as_numbers_9x9_render.jpg")


def test_blocks_of_the_clue_cells_pink_are_print_beside_a_green_cursor():
    """An app's board whose blocks and clue cells are one pink, light as a pastel, the cursor's
    row and column tinted green: the blocks (no diagonal) fell under the split the clue cells'
    diagonals pushed up, and the green cells, as far from the white paper, widened its spread
    past them, so they stayed white (the layout off its symmetry in eight pairs, unreadable).
    The paper is judged on the cells of its own tint, and only cells of the clue cells' tint
    are their print. Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(IMAGES / "app_board_pink_blocks_beside_a_green_cursor_9x9_render.jpg")


def test_grey_tiles_each_with_a_faint_diagonal_are_print_not_white_paper_in_a_shade():
    """An app's board of mid-grey tiles, each with a thin diagonal a shade lighter, numbers in
    small white discs, pencil marks in the white cells: an edge in the middle of the board
    passed for a shadow's, and the grey tiles round it (discs too small to count as
    numbers) were taken for white paper in its shade (21 of 50 clues unreadable). A shadow's
    edge may run along one cell's diagonal, not along most cells' of a group: such a group is
    print. Rendered from a corpus puzzle (its transcription); lossless, as JPEG's noise hid the
    diagonals' own weakness."""
    assert_solved_as_transcribed(
        IMAGES / "app_board_grey_tiles_each_with_a_faint_diagonal_beside_a_dark_edge_12x12_render.webp")


@pytest.mark.parametrize("name", ["app_screen_number_pad_in_three_rows_beside_a_dark_board_9x9_render.webp",
                                  "app_screen_number_pad_in_one_row_below_the_board_9x10_render.webp"])
def test_an_apps_number_pad_is_neither_a_puzzle_nor_an_answer_key(name):
    """A phone's screenshot of an app: the board, and below it a number pad, the digits 1 to 9 in
    buttons. Three rows of three (dark mode) were reported as a 4x4 answer key beside the puzzle
    solved; one button of a row of nine, its edges taken for a 3x3 lattice, as a puzzle whose
    clues could not be read, so the command failed (exit 8) on a puzzle it had solved. The
    digits 1 to 9 in order are a number pad, and a box whose clue cells hold no legible number
    beside a puzzle read is no puzzle: one result, the puzzle, solved. Rendered from corpus
    puzzles (their transcriptions)."""
    assert_solved_as_transcribed(IMAGES / name)


def test_a_dark_screen_past_the_boards_frame_is_no_lost_row_of_clues():
    """A phone's screenshot of a dark app board, the selected cell's row and column tinted olive:
    the first column's clue cells looked like paper, so the grid was taken to have lost its clue
    row and column, and was widened by a row and a column of the dark screen past the frame (as
    dark as blocks): every cell then read a row and a column off (22 of 22 clues unreadable). A
    lost row of clues carries their numbers; the screen holds none. Rendered from a corpus puzzle
    (its transcription), photographed."""
    assert_solved_as_transcribed(
        IMAGES / "app_screen_dark_board_framed_on_a_dark_screen_no_clue_row_past_the_frame_9x9_render.jpg")


def test_a_first_column_of_blocks_only_is_the_screen_past_the_board():
    """A phone's screenshot of a dark app board (typed entries): the dark paper left of the board
    was read as one more column of cells, all blocks, and the puzzle was solved as 12x14 with an
    empty first column (its text and JSON a column off the board). A first column (row) holds the
    clues; one of blocks only, no line parting its cells and no paper past it, is the page past
    the grid, trimmed where the look without it keeps its first column free of white cells.
    Rendered from a corpus puzzle (its transcription)."""
    assert_solved_as_transcribed(
        IMAGES / "app_screen_dark_paper_past_the_first_column_read_as_blocks_12x13_render.webp")


def test_a_board_drawn_to_the_screens_edge_keeps_its_last_column_whole():
    """A phone's screenshot whose board runs to the right edge of the screen, a large "0" in
    every empty cell: the grid's outline was found right, but its right line lay at the very
    edge of the frame the lines are followed in, half out of sight, and was taken at the zeros'
    right-hand strokes a third of a cell inside. The last column, stretched half as wide again,
    read "29" as "28" and "23" as "22". An outer line followed well inside the outline is followed
    again in a frame half a cell wider. Rendered from a corpus puzzle (bench style:phone_screen,
    seed 61, #10; its transcription), stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "phone_screen_board_drawn_to_the_screens_edge_12x10_render.jpg")


def test_clue_numbers_in_cells_misjudged_white_make_no_answer_key():
    """A phone's screenshot of a dark board, misjudged as a grid with a diagonal in every cell:
    the six cells taken for white held clue numbers, read as digits, and the puzzle was reported
    as a 7x7 answer key (exit 0, "not a puzzle"). Their layout, runs of one cell, is no Kakuro's:
    no answer key, and the board is said to be unreadable rather than passed over. The render
    holds a puzzle (its transcription), not an answer key."""
    image = load_image(IMAGES / "app_screen_dark_board_misread_as_a_diagonal_in_every_cell_7x7_render.jpg")
    results = solve_image(image)
    assert results and all(r.status != Status.answer_key for r in results)


def test_a_lone_selected_cell_tinted_unlike_the_print_is_white():
    """A dark app board mid-game whose row and column tint is too near its cells' own grey to
    see: only the selected cell shows, blue, holding a typed 8. One tinted cell was not taken for
    a selection (three were needed, a row and a column), so it stood as a clue cell and its 8 as
    a clue. A lone cell tinted unlike any print, lighter than it, whose being white leaves fewer
    runs of one cell, is the selection. Every cell's kind as transcribed (the board's light
    digits, haloed, are not all read right: the puzzle itself stays unreadable)."""
    assert _cells_unlike_transcription("app_board_dark_a_lone_selected_cell_tinted_blue_12x12_render.jpg") == []


def test_a_skewed_outline_a_column_short_loses_the_tie_to_the_outlines_that_agree():
    """An app's screenshot of rounded tiles parted by light gaps: of the four outlines fitted to
    the board, one skewed across the lattice (its lower right corner a column in) found lines as
    clear as the rest, a column short. Clear lines score alike, and the first fitted was taken:
    the grid was read 12x9. Of outlines tied at the top the shape most of them agree on is
    taken. Rendered from a corpus puzzle (bench style:rounded_app, seed 63, #3; its
    transcription), stored as lossless WebP (as JPEG the tie fell the other way)."""
    assert_solved_as_transcribed(
        IMAGES / "rounded_app_a_skewed_outline_a_column_short_ties_the_others_12x10_render.webp")


def test_a_quad_reaching_off_the_screen_is_not_the_grid_and_a_pad_of_wide_keys_is_no_puzzle():
    """A dark app board on a phone's screenshot, with a number pad of wide keys below it. The
    board's lines are clear to the screen's edges, so a quad two columns wider, reaching off the
    screen, scored as well as the board's own and, the larger, was taken: read 8x14, the grid was
    turned down at a glance. Columns past the picture's edge are not seen, so such a quad is not
    chosen. The pad's lattice then cut each key in two, its digits on the lines between cells,
    and it was reported as a second puzzle that could not be read; its glyphs are read where
    they stand. Rendered from a corpus puzzle (bench style:phone_screen, seed 64, #9; its
    transcription), stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "phone_screen_board_with_a_number_pad_of_wide_keys_8x12_render.jpg")


def test_clue_cells_lighter_than_the_white_cells_on_a_dark_screen_are_clues():
    """An app's dark mode: blue clue cells with light numbers, a little lighter than the dark
    grey white cells, and black blocks. The paper is measured on the lightest cells, so the clue
    cells passed for paper and the white cells, tinted against them by just under the split
    (0.34 against 0.35), were taken for white with them: 16 of 20 clues could not be read.
    Where the cells taken for white are two tints, and the fewer carry numbers in their corners
    while the others carry none, those are clue cells. Rendered from a corpus puzzle (bench
    style:dark_mode, seed 64, #8; its transcription), stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "dark_mode_blue_clue_cells_lighter_than_grey_white_cells_9x9_render.jpg")


def test_light_diagonals_on_a_dark_screen_mark_its_clue_cells():
    """An app's dark mode: blue clue cells a little lighter than the dark grey white cells, split
    by a light diagonal, and black blocks. The diagonals were looked for as dark lines only, so
    the clue cells, measured as the paper, passed for white cells: 12 of 21 clues unread. In
    negative the black blocks are the lightest cells, so that reading fails too. A light line
    on a cell's diagonal now counts as one (paper being the lightest there is, no white cell
    shows one). Rendered from a corpus puzzle (bench style:dark_mode, seed 85, #4; its
    transcription), stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "dark_mode_light_diagonals_only_mark_the_clue_cells_9x9_render.jpg")


def test_grey_clue_cells_with_light_numbers_are_not_paper_in_a_shade():
    """Mid-grey clue cells with thin light numbers and no diagonal, beside black blocks with a
    green cast. The blocks' hue, noise over next to no light, made them "tinted blocks", and the
    grey clue cells, of the paper's hue, were taken for white paper in a soft shade among them:
    10 of 14 clues could not be read. Only a block lighter than black shows its tint, and paper
    in a shade carries no number, light or dark. Rendered from a corpus puzzle (bench
    style:no_diagonal, seed 64, #5; its transcription), stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "no_diagonal_light_numbers_on_grey_beside_green_black_blocks_7x7_render.jpg")


def test_light_grey_blocks_bounded_by_the_lattice_are_blocks_where_clues_are_on_white_paper():
    """A puzzle page whose clue cells carry their diagonal on the white paper, and whose blocks
    are a light grey without one, as grey as the clue cells (tone 0.08-0.11). With the clue
    cells on white paper a grey tone is taken for a shade, so the blocks passed for white cells:
    the layout was off its symmetry and the clues contradicted it. A group of evenly grey cells
    with no diagonal and no number, whose grey stops at the lattice's lines with every white cell
    beside it clearly lighter, is print: a shade does not end at a cell's border on every side.
    Rendered from a corpus puzzle (bench style:answer_key, seed 64, #11, its third grid cut out;
    its transcription), stored as lossless WebP."""
    assert_solved_as_transcribed(IMAGES / "puzzle_page_light_grey_blocks_beside_clue_cells_on_white_paper_9x9_render.webp")


def test_pale_tinted_blocks_bounded_by_the_lattice_are_blocks_where_clue_cells_are_as_pale():
    """A puzzle-book page: blocks and clue cells the same pale green (tone 0.06 against the cream
    white cells), the clue cells told by their diagonal. The image's split of the cells' scores
    fell between the diagonals and everything else, so the blocks passed for white cells (off
    its symmetry; the clues contradicted it). Groups of evenly grey cells bounded by the
    lattice, as grey as the clue cells, are blocks whatever paper the clue cells are printed on.
    Rendered from a corpus puzzle (bench tier page, seed 76, #0, its first grid cut out; its
    transcription)."""
    assert_solved_as_transcribed(IMAGES / "pale_green_blocks_and_clue_cells_on_cream_paper_7x7_render.png")


def test_a_number_pad_taken_in_as_rows_under_the_board_gives_way_to_the_boards_own_outline():
    """A phone's screen photographed askew: the outline of the board and the number pad under
    it (keys parted by gaps, each key's edges lines) scored as clear as the board's own, and the
    larger one was taken, 12x9, its last rows the pad's keys (16 clues unreadable). The board's
    own outline, dropped as a part of it, is now kept to read the grid in where the larger
    one cannot be read. A generated photo of a corpus puzzle (bench phone_screen style, seed
    66, #0; its transcription), stored as lossless WebP."""
    assert_solved_as_transcribed(IMAGES / "number_pad_under_the_board_taken_in_as_rows_9x9_render.webp")


def test_pencilled_candidates_in_a_tinted_selection_are_not_clue_numbers():
    """An app's board mid-game: black clue cells with a light diagonal and white numbers, white
    cells holding the player's small blue candidates, the selected column tinted light blue and
    one cell grey. Candidates sit in a cell's corners where clue numbers would, so five tinted
    or grey cells holding them were taken for clue cells (unreadable, off its symmetry). Where
    the clue cells seen so far all carry a diagonal (light or dark), a cell with none is no clue
    cell of that print. Rendered from a corpus puzzle (bench style:app_notes, seed 75, #9; its
    transcription), stored as JPEG."""
    assert_solved_as_transcribed(IMAGES / "app_notes_pencilled_candidates_in_a_tinted_selection_are_not_clues_15x8_render.jpg")


def test_clue_cells_with_one_half_pale_yellow_on_cream_paper_are_clue_cells():
    """A clear photo of a 7x7 with clue cells of two tints, no diagonal drawn: one half of each is
    light blue or pale yellow, the other the page's cream, and two typed entries in white cells.
    The yellow halves stand 19-20 Lab units from the cream, the white cells' halves 0-2.2 from
    each other; eight robust deviations of those set a bar of 26, so the yellow clue cells
    were taken for white and 6 of 17 clues looked for in blocks (unreadable). A cell whose
    halves stand apart several times as far as most white cells' do is two-toned too. Rendered
    from a corpus puzzle (bench style:typed_entries, seed 75, #3; its transcription), stored as
    JPEG."""
    assert_solved_as_transcribed(IMAGES / "pale_yellow_and_blue_clue_halves_on_cream_paper_typed_entries_7x7_render.jpg")
