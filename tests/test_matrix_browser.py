"""The matrix page in headless Chromium: the first screen, a deep link, the sticky headers, the filters.

`scripts/check_matrix_html.py` does the checking; these tests run it on the committed page and on a page
broken on purpose, which it must reject.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import ROOT
from toolchains import require

from conformance.reports.matrix import HTML_FILE

INSTALL = "apt-get install -y chromium chromium-driver"
require("chromium", install=INSTALL, unit=None)
require("chromedriver", install=INSTALL, unit=None)

SCRIPT = ROOT / "scripts" / "check_matrix_html.py"
PAGE = ROOT / "reports" / HTML_FILE


def _check(page: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), str(page)], capture_output=True, text=True, timeout=600)


def test_the_committed_page_passes_the_browser_check() -> None:
    done = _check(PAGE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok, checked with headless Chromium through chromedriver" in done.stdout


def test_a_page_whose_details_widen_the_grid_and_whose_grid_is_below_the_fold_fails(tmp_path: Path) -> None:
    html = PAGE.read_text(encoding="utf-8")
    # Details opened inside their cell (no side panel) and a tall block before the grid.
    broken = html.replace("td.o .detail { display: none; }", "td.o details[open] .detail { min-width: 60rem; }")
    broken = broken.replace('<section id="overview">', '<div style="height: 2000px"></div><section id="overview">')
    assert broken != html
    page = tmp_path / HTML_FILE
    page.write_text(broken, encoding="utf-8")
    done = _check(page)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "is not above the fold" in done.stdout
    assert "changed the table's width" in done.stdout


def test_a_page_with_blank_grid_cells_fails(tmp_path: Path) -> None:
    html = PAGE.read_text(encoding="utf-8")
    # What the template made of a column that does not serve an API when it tested `is none` on an Undefined.
    broken, count = re.subn(
        r'<td class="g g-none (k\d+)" title="([^"]*?) does not serve ([^"]*)"></td>',
        r'<td class="g \1" style="--p:" title="\2 on \3: / pass,  fail,  error"><a href="#"><small></small></a></td>',
        html,
    )
    assert count > 0
    page = tmp_path / HTML_FILE
    page.write_text(broken, encoding="utf-8")
    done = _check(page)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{count} grid cells are blank or mislabelled" in done.stdout


def test_a_grid_wider_than_the_screen_or_with_cut_names_fails(tmp_path: Path) -> None:
    html = PAGE.read_text(encoding="utf-8")
    wide = html.replace(
        "table.grid td.g { width: 1.9rem; min-width: 1.9rem;", "table.grid td.g { width: 3rem; min-width: 3rem;"
    )
    cut = wide.replace(
        "max-height: 9rem; white-space: normal; overflow-wrap: anywhere; }",
        "max-height: 5rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }",
    )
    assert html != wide != cut
    page = tmp_path / HTML_FILE
    page.write_text(cut, encoding="utf-8")
    done = _check(page)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "hides columns behind its own scroll" in done.stdout
    assert "library names cut in the grid's headers" in done.stdout
