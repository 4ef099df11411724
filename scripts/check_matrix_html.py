"""Check the matrix page in a real browser: headless Chromium, driven through chromedriver (W3C WebDriver).

    python scripts/check_matrix_html.py                                # reports/matrix.html
    python scripts/check_matrix_html.py path/to/matrix.html
    python scripts/check_matrix_html.py --screenshot docs/matrix.png   # and take the documentation's screenshot

The page is opened from a file:// URL, as someone would open it offline, and these must hold:

- its inline script ran (it marks `<html data-ready>` with the number of case tables);
- it loaded no resource besides itself (no stylesheet, script, font or image from anywhere);
- the outcome tables have a column for each of the nine outcomes, and the case tables have rows;
- clicking a failing cell with a diff (an adapter's rather than a bug reproduction's, with at most two
  violations, where there is one) opens its details: the violations (code, location, message,
  provider error) and the diff;
- a `#<cell id>` link opens the cell it names;
- "only cases with a cell other than pass" hides the cases every column passes.

Without chromedriver the DOM alone is checked, through `chromium --dump-dom`. Exit 0 when every check
holds, 1 naming each that does not, 2 when no Chromium is found.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUTCOMES = ("pass", "fail", "skip", "xfail", "xpass", "error", "crash", "timeout", "not-run")
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ["--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--window-size=1600,1000"]
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


def find_browser() -> str | None:
    return next((path for name in BROWSERS if (path := shutil.which(name))), None)


class WebDriver:
    """Just enough of the W3C WebDriver protocol, over the standard library."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.session = ""

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read() or b"{}").get("value")
        except urllib.error.HTTPError as exc:
            value = json.loads(exc.read() or b"{}").get("value") or {}
            raise RuntimeError(f"{method} {path}: {value.get('error')}: {value.get('message', '')[:300]}") from None

    def start(self, browser: str) -> None:
        options = {"binary": browser, "args": FLAGS}
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": options}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]

    def run(self, script: str, *args: Any) -> Any:
        return self.call("POST", f"/session/{self.session}/execute/sync", {"script": script, "args": list(args)})

    def go(self, url: str) -> None:
        self.call("POST", f"/session/{self.session}/url", {"url": url})

    def click(self, css: str) -> None:
        found = self.call("POST", f"/session/{self.session}/element", {"using": "css selector", "value": css})
        self.call("POST", f"/session/{self.session}/element/{found[ELEMENT]}/click", {})

    def screenshot(self) -> bytes:
        return base64.b64decode(self.call("GET", f"/session/{self.session}/screenshot"))

    def quit(self) -> None:
        if self.session:
            self.call("DELETE", f"/session/{self.session}")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def webdriver(browser: str, driver: str) -> Iterator[WebDriver]:
    port = _free_port()
    process = subprocess.Popen([driver, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = WebDriver(port)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if client.call("GET", "/status").get("ready"):
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("chromedriver did not become ready")
            time.sleep(0.1)
        client.start(browser)
        yield client
    finally:
        with suppress(OSError, RuntimeError):
            client.quit()
        process.terminate()
        process.wait(timeout=20)


# Run in the page; each returns what the check compares.
CASE_TABLES = "return document.querySelectorAll('table.cases').length"
READY = "return document.documentElement.getAttribute('data-ready')"
RESOURCES = "return performance.getEntriesByType('resource').map(function (e) { return e.name; })"
OUTCOME_HEADERS = """
var heads = document.querySelectorAll('table.outcomes thead th');
return Array.prototype.map.call(heads, function (th) { return th.textContent.trim(); });"""
CASE_ROWS = "return document.querySelectorAll('table.cases tr.case').length"
FAILING_CELL = """
var cells = document.querySelectorAll('table.cases td.o-fail'), best = null, bestRank = Infinity;
for (var i = 0; i < cells.length; i++) {
  if (!cells[i].querySelector('pre.diff')) { continue; }
  var head = cells[i].closest('table').tHead.rows[0].cells[cells[i].cellIndex];
  var many = cells[i].querySelectorAll('table.violations tbody tr').length > 2;
  var rank = (head.getAttribute('data-kind') === 'reproduction' ? 2 : 0) + (many ? 1 : 0);
  if (rank < bestRank) { best = cells[i].id; bestRank = rank; }
}
return best;"""
CELL_STATE = """
var td = document.getElementById(arguments[0]);
var details = td.querySelector('details');
return {open: details.open, violations: td.querySelectorAll('table.violations tbody tr').length,
        headers: Array.prototype.map.call(td.querySelectorAll('table.violations th'), function (th) {
          return th.textContent.trim(); }),
        diff: td.querySelector('pre.diff').textContent.length,
        visible: td.querySelector('.detail').getBoundingClientRect().height > 0};"""
FILTER = """
var rows = document.querySelectorAll('table.cases tr.case');
var hidden = 0, problems = 0, shownProblems = 0;
for (var i = 0; i < rows.length; i++) {
  var shown = rows[i].getClientRects().length > 0;
  if (!shown) { hidden++; }
  if (rows[i].classList.contains('problem')) { problems++; if (shown) { shownProblems++; } }
}
return {rows: rows.length, hidden: hidden, problems: problems, shownProblems: shownProblems};"""
SHOW_CELL = """
var td = document.getElementById(arguments[0]);
document.querySelectorAll('td.o details').forEach(function (d) { d.open = false; });
td.querySelector('details').open = true;
var box = td.getBoundingClientRect();
var x = box.left + window.scrollX, y = box.top + window.scrollY;
var first = td.closest('table').querySelector('th.case').offsetWidth;
window.scrollTo(x + 700 > window.innerWidth ? Math.max(0, x - first - 180) : 0, Math.max(0, y - 260));
return td.id;"""


def check_live(browser: str, driver: str, page: Path, screenshot: Path | None) -> list[str]:
    problems: list[str] = []
    url = page.resolve().as_uri()
    with webdriver(browser, driver) as wd:
        wd.go(url)
        tables = wd.run(CASE_TABLES)
        if not tables:
            problems.append("no case table (table.cases) in the page")
        if wd.run(READY) != str(tables):
            problems.append(f"the inline script did not run: data-ready is {wd.run(READY)!r}, expected {tables}")
        loaded = wd.run(RESOURCES)
        if loaded:
            problems.append(f"the page loaded other resources: {', '.join(loaded)}")
        headers = wd.run(OUTCOME_HEADERS)
        missing = [o for o in OUTCOMES if o not in headers]
        if missing:
            problems.append(f"the outcome table has no column for: {', '.join(missing)}")
        if not wd.run(CASE_ROWS):
            problems.append("the case tables have no rows")
        cell = wd.run(FAILING_CELL)
        if cell is None:
            problems.append("no failing cell with a diff to open")
        else:
            wd.click(f'[id="{cell}"] details > summary')
            state = wd.run(CELL_STATE, cell)
            if not (state["open"] and state["visible"]):
                problems.append(f"clicking cell {cell} did not open its details")
            if not state["violations"] or state["headers"][:4] != ["code", "location", "message", "provider error"]:
                problems.append(f"cell {cell} does not show its violations: {state}")
            if not state["diff"]:
                problems.append(f"cell {cell} does not show its diff")
            wd.go("about:blank")
            wd.go(f"{url}#{cell}")
            if not wd.run(CELL_STATE, cell)["open"]:
                problems.append(f"the link #{cell} did not open the cell")
        wd.go(url)
        wd.click("#only-problems")
        shown = wd.run(FILTER)
        if shown["shownProblems"] != shown["problems"] or shown["hidden"] != shown["rows"] - shown["problems"]:
            problems.append(f"the filter for cases with a cell other than pass misbehaves: {shown}")
        if screenshot is not None and cell is not None:
            wd.go(url)
            wd.run(SHOW_CELL, cell)
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            screenshot.write_bytes(wd.screenshot())
            print(f"screenshot: {screenshot} (cell {cell} opened)")
    return problems


def dump_dom(browser: str, url: str) -> str:
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    return done.stdout


def check_dom(browser: str, page: Path) -> list[str]:
    """The DOM after the page's script ran, with a failing cell named in the URL."""
    problems: list[str] = []
    first = dump_dom(browser, page.resolve().as_uri())
    match = re.search(r'<td class="o o-fail" id="([^"]+)"><details>', first)
    tables = len(re.findall(r'<table class="cases"', first))
    if not tables:
        problems.append("no case table (table.cases) in the page")
    if f'data-ready="{tables}"' not in first:
        problems.append("the inline script did not run (no data-ready on <html>)")
    if match is None:
        problems.append("no failing cell to open")
        return problems
    cell = match.group(1)
    opened = dump_dom(browser, f"{page.resolve().as_uri()}#{cell}")
    if f'id="{cell}"><details open=""' not in opened:
        problems.append(f"the link #{cell} did not open the cell")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", nargs="?", default=str(ROOT / "reports" / "matrix.html"), help="the page to check")
    parser.add_argument("--screenshot", metavar="PNG", help="also save a screenshot with a failing cell opened")
    args = parser.parse_args(argv)
    page = Path(args.page)
    browser = find_browser()
    if browser is None:
        print("no Chromium found (Debian: apt-get install chromium chromium-driver)", file=sys.stderr)
        return 2
    if not page.is_file():
        print(f"{page}: no such file; run `conformance matrix`", file=sys.stderr)
        return 2
    driver = shutil.which("chromedriver")
    if driver:
        problems = check_live(browser, driver, page, Path(args.screenshot) if args.screenshot else None)
        how = "headless Chromium through chromedriver"
    else:
        if args.screenshot:
            print("--screenshot needs chromedriver (Debian: apt-get install chromium-driver)", file=sys.stderr)
            return 2
        problems = check_dom(browser, page)
        how = "headless Chromium's --dump-dom (no chromedriver: the DOM only)"
    for problem in problems:
        print(f"{page}: {problem}")
    print(f"{page}: {'FAILED' if problems else 'ok'}, checked with {how}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
