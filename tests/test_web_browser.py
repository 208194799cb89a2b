"""End to end in a real headless browser: Debian's chromium driven by Playwright against ``kakuro serve``.

Upload a sample photo, wait for the read grid, edit a clue (live check red, then green), solve, and
check the solution shown. Never downloads a browser: it uses /usr/bin/chromium (Debian package
``chromium``) and is skipped, saying so, when that is missing.
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

from web.app import create_app  # noqa: E402

from conftest import SAMPLES  # noqa: E402
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
