"""End to end in a real headless browser: Debian's chromium driven by Playwright against ``kakuro serve``.

Upload a sample photo, wait for the read grid, edit a clue (live check red, then green), solve, and
check the solution shown. Ask for hints one after another (one cell highlighted, its digit right,
the rest of the solution hidden), see the grade; upload a screenshot with the player's digits typed
in and see the wrong ones marked, put them right, reveal. Never downloads a browser: it uses
/usr/bin/chromium (Debian package ``chromium``) and is skipped, saying so, when that is missing.
"""
from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip("Debian's chromium is not installed (/usr/bin/chromium); `apt-get install chromium` "
                "runs the browser test", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test needs playwright (pip install -e '.[test]')")
pytest.importorskip("uvicorn", reason="the server needs uvicorn")

from solver.formats import load_puzzle  # noqa: E402
from solver.solve import solve_puzzle  # noqa: E402
from solver.techniques import grade  # noqa: E402
from web.app import create_app  # noqa: E402

from conftest import IMAGES, SAMPLES  # noqa: E402
from web_server import running_server  # noqa: E402

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def server_url():
    with running_server(create_app()) as url:
        yield url


@pytest.fixture(scope="module")
def page(server_url):
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport={"width": 1100, "height": 900})
            page = context.new_page()
            page.set_default_timeout(30_000)
            page.errors = []
            page.on("pageerror", lambda exc: page.errors.append(str(exc)))
            page.on("console", lambda msg: page.errors.append(msg.text) if msg.type == "error" else None)
            page.goto(server_url + "/")
            yield page
        finally:
            browser.close()


def _cell(page, row: int, col: int):
    return page.locator(f'#grid .cell[data-row="{row}"][data-col="{col}"]')


def test_upload_edit_clue_solve(page):
    page.set_input_files("#file", str(SAMPLES / "site_7x7.png"))
    # The photo is read and solved as it is: grid outlined on the photo, clues in the grid.
    page.wait_for_selector('#verdict[data-status="solved"]')
    assert page.locator("#photo-svg polygon.found").count() == 1
    assert page.locator("#grid .cell").count() == 49
    clue = _cell(page, 3, 5)
    assert clue.input_value() == "24\\5"
    assert _cell(page, 2, 6).input_value() == "1" and _cell(page, 2, 7).input_value() == "7"

    # An impossible clue is marked red by the live check and named under the grid.
    clue.fill("23\\40")
    page.wait_for_selector('#grid .cell.bad[data-row="3"][data-col="5"]')
    assert "across clue 40 cannot fill 2 cell(s)" in page.text_content("#problems")
    assert page.locator("#result").is_hidden()  # the old solution no longer applies

    # A clue that fits turns green; solving gives the new puzzle's one solution.
    clue.fill("23/4")
    page.wait_for_selector('#grid .cell.good[data-row="3"][data-col="5"]')
    assert "corrected" in clue.get_attribute("class")  # differs from what was read
    page.click("#solve")
    page.wait_for_selector('#verdict[data-status="solved"]')
    assert "unique" in page.text_content("#verdict")
    row2 = [_cell(page, 2, c).input_value() for c in range(2, 8)]
    assert row2 == ["1", "3", "10\\", "\\8", "2", "6"]
    assert "solution" in _cell(page, 2, 6).get_attribute("class")
    # The solution is drawn on the photo, and the downloads are offered.
    page.wait_for_function("() => document.getElementById('annotated').complete && "
                           "document.getElementById('annotated').naturalWidth > 0")
    assert page.locator("#annotated").is_visible()
    assert page.get_attribute("#dl-image", "href").startswith("/api/image/")
    assert page.get_attribute("#dl-text", "href").startswith("blob:")
    assert page.errors == []


def _upload(page, path: Path) -> None:
    """Upload ``path`` and wait until the page shows what was read from it (not the last photo's)."""
    page.evaluate("document.getElementById('status').textContent = ''")
    page.set_input_files("#file", str(path))
    page.wait_for_function("name => document.getElementById('status').textContent.startsWith(name + ': ')",
                           arg=path.name)


def _hinted(page) -> tuple[int, int, int]:
    """The one cell a hint highlights: (row, col) from 1, and the digit it shows."""
    page.wait_for_selector("#grid .cell.hint")
    assert page.locator("#grid .cell.hint").count() == 1
    cell = page.locator("#grid .cell.hint")
    digit = cell.get_attribute("data-hint")
    assert cell.get_attribute("placeholder") == digit and cell.input_value() == ""
    return int(cell.get_attribute("data-row")), int(cell.get_attribute("data-col")), int(digit)


def _solution_shown(page) -> dict[tuple[int, int], int]:
    return {(int(el.get_attribute("data-row")), int(el.get_attribute("data-col"))): int(el.input_value())
            for el in page.locator("#grid .cell.solution").all()}


def test_hint_highlights_one_cell_with_its_digit_and_the_grade_is_shown(page):
    truth = load_puzzle(SAMPLES / "site_7x7.txt")
    solution = {(r + 1, c + 1): d for (r, c), d in solve_puzzle(truth).values.items()}
    assert len(solution) == len(truth.whites)
    graded = grade(truth)
    _upload(page, SAMPLES / "site_7x7.png")
    page.wait_for_selector('#verdict[data-status="solved"]')
    assert _solution_shown(page) == solution  # a photo with nothing written: solved at once
    assert page.locator("#grade").is_visible()
    assert page.text_content("#grade") == f"{graded.grade} — score {graded.score:.2f}"

    # Hint: one cell highlighted with its digit, the cells its reasoning uses tinted, the sentence
    # shown; the solution's digits are hidden now.
    page.click("#hint")
    row, col, digit = _hinted(page)
    assert digit == solution[(row, col)]
    used = {(int(el.get_attribute("data-row")), int(el.get_attribute("data-col")))
            for el in page.locator("#grid .cell.hint-used").all()}
    assert (row, col) in used and len(used) >= 2 and used <= set(solution)
    assert page.text_content("#hint-text").startswith(f"Hint: row {row}, column {col} is {digit}:")
    assert _solution_shown(page) == {}
    assert all(_cell(page, r, c).input_value() == "" for r, c in solution)
    assert page.locator("#reveal").is_visible() and page.text_content("#reveal") == "Reveal solution"

    # The player types that digit: the highlight goes; the next hint is another cell, also right.
    _cell(page, row, col).fill(str(digit))
    assert page.locator("#grid .cell.hint").count() == 0
    assert "entry" in _cell(page, row, col).get_attribute("class")
    page.click("#hint")
    page.wait_for_function(f"() => {{ const c = document.querySelector('#grid .cell.hint'); "
                           f"return c && (c.dataset.row !== '{row}' || c.dataset.col !== '{col}'); }}")
    row2, col2, digit2 = _hinted(page)
    assert (row2, col2) != (row, col) and digit2 == solution[(row2, col2)]

    # Reveal: the rest of the solution, around the digit typed.
    page.click("#reveal")
    shown = _solution_shown(page)
    assert shown == {cell: d for cell, d in solution.items() if cell != (row, col)}
    assert page.locator("#grid .cell.hint").count() == 0
    assert page.errors == []


def test_check_my_progress_marks_the_wrong_entries_and_keeps_the_solution_hidden(page):
    """The game screenshot has eight digits typed by the player, two of them wrong."""
    typed = {(4, 2): 2, (4, 3): 1, (4, 4): 3, (4, 7): 1, (4, 8): 3, (5, 2): 1, (5, 3): 2, (5, 8): 9}  # by eye
    truth = load_puzzle(IMAGES / "game_screenshot_entries_8x8.txt")
    solution = {(r + 1, c + 1): d for (r, c), d in solve_puzzle(truth).values.items()}
    wrong = {cell for cell, d in typed.items() if solution[cell] != d}
    assert len(wrong) == 2
    _upload(page, IMAGES / "game_screenshot_entries_8x8.png")
    page.wait_for_selector('#verdict[data-status="solved"]')

    def marked(kind: str) -> set[tuple[int, int]]:
        return {(int(el.get_attribute("data-row")), int(el.get_attribute("data-col")))
                for el in page.locator(f"#grid .cell.{kind}").all()}

    # The typed digits are in their cells, the wrong ones red, the right ones ticked; nothing else
    # of the solution is shown, and the photo shows the entries checked, not the solution.
    assert {cell: int(_cell(page, *cell).input_value()) for cell in typed} == typed
    assert marked("entry-wrong") == wrong and marked("entry-right") == set(typed) - wrong
    assert _solution_shown(page) == {}
    assert page.text_content("#progress") == "Your digits: 6 right, 2 wrong (" + \
        "; ".join(f"row {r}, column {c}" for r, c in sorted(wrong)) + ")."
    assert "hidden" in page.text_content("#verdict")
    assert page.locator("#annotated").is_visible()
    assert page.get_attribute("#annotated", "src") != page.get_attribute("#dl-image", "href")  # not the solved photo
    assert page.text_content("#grade").startswith(grade(truth).grade)

    # A hint names the wrong entries rather than building on them.
    page.click("#hint")
    page.wait_for_selector("#hint-box.wrong")
    (r1, c1), (r2, c2) = sorted(wrong)
    assert page.text_content("#hint-text").startswith(f"Row {r1}, column {c1} and row {r2}, column {c2} are wrong")
    assert page.locator("#grid .cell.hint").count() == 0

    # Put them right and check again: all eight right, the solution still hidden.
    for cell in wrong:
        _cell(page, *cell).fill(str(solution[cell]))
        assert "entry-wrong" not in _cell(page, *cell).get_attribute("class")
    page.click("#check-progress")
    page.wait_for_function("() => document.getElementById('progress').textContent.includes('all 8 right')")
    assert marked("entry-right") == set(typed) and marked("entry-wrong") == set()
    assert _solution_shown(page) == {}
    page.click("#hint")
    row, col, digit = _hinted(page)
    assert (row, col) not in typed and digit == solution[(row, col)]

    # Reveal: every other white cell shows its digit.
    page.click("#reveal")
    assert _solution_shown(page) == {cell: d for cell, d in solution.items() if cell not in typed}
    assert page.errors == []
