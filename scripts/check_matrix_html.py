"""Check the matrix page in a real browser: headless Chromium, driven through chromedriver (W3C WebDriver).

    python scripts/check_matrix_html.py                                # reports/matrix.html
    python scripts/check_matrix_html.py path/to/matrix.html
    python scripts/check_matrix_html.py --screenshots DIR              # and save the screenshots there

The page is opened from a file:// URL, as someone would open it offline, and these must hold:

- its inline script ran (it marks `<html data-ready>` with the number of case tables), and it loaded no
  resource besides itself (no stylesheet, script, font or image from anywhere);
- at 1,400 and at 390 px wide, the API x library grid starts above the fold with its first row in view,
  and the page itself does not scroll sideways (the grid scrolls inside its own box);
- at 1,400 px every column of each grid is in view, none behind the grid box's own scroll, and no
  library name in its headers is cut;
- every grid cell says something: a share of the cases run (a number, its colour set), `skip`, or a
  column that does not serve the API (hatched, its tooltip saying so); none is blank, and no tooltip
  has a count missing;
- a `#cell-...` link opens the cell it names: its detail, with the fix hint, shows in the side panel, the
  cell itself is in view and not covered, and opening it leaves the table as wide as it was; a cell
  whose detail the page holds once, in another cell, shows it too;
- after a case table is scrolled sideways and down, its sticky header and case column cover no data cell;
- the filters by API, language, library and outcome and the search by case id show only what they select;
- the page loads within a time bound (its weight and load time are printed).

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
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
]
WIDTHS = ((1400, 900), (390, 844))
LOAD_BOUND_MS = 10_000  # from navigation to the load event, opened from a file
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

    def start(self, browser: str, profile: str) -> None:
        options = {"binary": browser, "args": [*FLAGS, "--window-size=1400,900", f"--user-data-dir={profile}"]}
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": options}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]

    def run(self, script: str, *args: Any) -> Any:
        return self.call("POST", f"/session/{self.session}/execute/sync", {"script": script, "args": list(args)})

    def go(self, url: str) -> None:
        self.call("POST", f"/session/{self.session}/url", {"url": url})

    def click(self, css: str) -> None:
        found = self.call("POST", f"/session/{self.session}/element", {"using": "css selector", "value": css})
        self.call("POST", f"/session/{self.session}/element/{found[ELEMENT]}/click", {})

    def size(self, width: int, height: int) -> None:
        self.call("POST", f"/session/{self.session}/window/rect", {"width": width, "height": height})

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
        with tempfile.TemporaryDirectory() as profile:  # a fresh profile for every check
            client.start(browser, profile)
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
LOAD_MS = "var n = performance.getEntriesByType('navigation')[0]; return n ? n.loadEventEnd - n.startTime : -1"
FIRST_SCREEN = """
var grid = document.querySelector('table.grid'), rows = grid ? grid.tBodies[0].rows : [];
var box = grid ? grid.getBoundingClientRect() : null;
return {width: window.innerWidth, height: window.innerHeight, scrollWidth: document.documentElement.scrollWidth,
        grid: !!grid, top: box ? box.top : -1,
        firstRowBottom: rows.length ? rows[0].getBoundingClientRect().bottom : -1};"""
GRID_FIT = """
var boxes = Array.prototype.map.call(document.querySelectorAll('.gridwrap .scroll'), function (box) {
  return {grid: box.querySelector('table.grid').id, scrollWidth: box.scrollWidth, clientWidth: box.clientWidth}; });
var cut = [];
document.querySelectorAll('table.grid th.lib, table.grid th.ver').forEach(function (th) {
  var el = th.querySelector('span') || th;
  if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1) { cut.push(th.textContent.trim()); }
});
return {boxes: boxes, cut: cut};"""
GRID_CELLS = r"""
var bad = [], counted = 0;
document.querySelectorAll('table.grid td.g').forEach(function (td) {
  counted++;
  var text = td.textContent.trim(), title = td.getAttribute('title') || '', style = td.getAttribute('style') || '';
  var ok;
  if (td.classList.contains('g-none')) { ok = /does not serve/.test(title) && !text; }
  else if (td.classList.contains('g-skip')) { ok = text === 'skip'; }
  else { ok = /^\d+/.test(text) && /--p:\s*\d/.test(style) && /: \d+\/\d+ pass, \d+ fail, \d+ error$/.test(title); }
  if (!ok && bad.length < 5) { bad.push({title: title, text: text, style: style, cls: td.className}); }
  if (!ok) { bad.count = (bad.count || 0) + 1; }
});
return {counted: counted, bad: bad, badCount: bad.count || 0};"""
HINTED_CELL = """
var cells = document.querySelectorAll('table.cases td.o-fail'), best = null, bestRank = Infinity;
for (var i = 0; i < cells.length; i++) {
  if (!cells[i].querySelector('.hint') || !cells[i].querySelector('pre.diff')) { continue; }
  var head = cells[i].closest('table').tHead.rows[0].cells[cells[i].cellIndex];
  var rank = (head.getAttribute('data-kind') === 'reproduction' ? 2 : 0) + (cells[i].cellIndex > 8 ? 1 : 0);
  if (rank < bestRank) { best = cells[i].id; bestRank = rank; }
}
return best;"""
SHARED_CELL = """
var details = document.querySelectorAll('table.cases td.o-fail .detail[data-same]');
for (var i = 0; i < details.length; i++) {
  var held = document.getElementById(details[i].getAttribute('data-same'));
  if (held && held.querySelector('.hint')) { return details[i].closest('td').id; }
}
return null;"""
TABLE_WIDTH = "return document.getElementById(arguments[0]).closest('table').offsetWidth"
CELL_STATE = """
var td = document.getElementById(arguments[0]), panel = document.getElementById('panel');
var box = td.getBoundingClientRect(), x = box.left + box.width / 2, y = box.top + box.height / 2;
var hit = document.elementFromPoint(x, y);
var p = panel.getBoundingClientRect();
return {open: td.querySelector('details').open, panel: !panel.hidden && p.height > 0,
        panelWidth: p.width, viewport: window.innerWidth, scrollWidth: document.documentElement.scrollWidth,
        headers: Array.prototype.map.call(panel.querySelectorAll('table.violations th'), function (th) {
          return th.textContent.trim(); }),
        hint: (panel.querySelector('.hint') || {textContent: ''}).textContent,
        diff: (panel.querySelector('pre.diff') || {textContent: ''}).textContent.length,
        inView: y > 0 && y < window.innerHeight && x > 0 && x < window.innerWidth,
        shown: !!hit && (hit === td || td.contains(hit)), hit: hit ? hit.tagName + '.' + hit.className : null,
        width: td.closest('table').offsetWidth};"""
STICKY = """
var table = document.querySelectorAll('table.cases')[arguments[0]], box = table.closest('.scroll');
box.scrollIntoView({block: 'start'});
box.scrollLeft = Math.min(600, box.scrollWidth - box.clientWidth);
box.scrollTop = Math.min(300, box.scrollHeight - box.clientHeight);
var outer = box.getBoundingClientRect();
var head = table.tHead.rows[0].cells[0].getBoundingClientRect();
var first = table.querySelector('tbody th.case').getBoundingClientRect();
// the box's inside, without its scroll bars: a cell under a scroll bar is not covered by the sticky parts
var inner = {right: outer.left + box.clientLeft + box.clientWidth,
             bottom: outer.top + box.clientTop + box.clientHeight};
var view = {left: Math.max(outer.left, 0), top: Math.max(outer.top, 0),
            right: Math.min(inner.right, window.innerWidth), bottom: Math.min(inner.bottom, window.innerHeight)};
var checked = 0, covered = [];
var cells = table.querySelectorAll('tbody td');
for (var i = 0; i < cells.length; i++) {
  var r = cells[i].getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
  // a data cell whose centre is in the box's view and outside the sticky header and case column must be hit
  if (x <= view.left || x >= view.right || y <= view.top || y >= view.bottom) { continue; }
  if (y < head.bottom || x < first.right) { continue; }
  var hit = document.elementFromPoint(x, y);
  checked++;
  if (!hit || (hit !== cells[i] && !cells[i].contains(hit))) { covered.push(cells[i].id || i); }
}
return {scrolledX: box.scrollLeft, scrolledY: box.scrollTop, headerTop: head.top - outer.top,
        checked: checked, covered: covered.slice(0, 5)};"""
SET_FILTER = """
var el = document.getElementById(arguments[0]); el.value = arguments[1];
el.dispatchEvent(new Event(el.tagName === 'INPUT' ? 'input' : 'change'));
return el.value;"""
OPTION = """
var options = document.querySelectorAll('#' + arguments[0] + ' option');
return Array.prototype.map.call(options, function (o) { return o.value; }).filter(Boolean)[arguments[1]] || null;"""
VISIBLE = """
function shown(el) { return el.getClientRects().length > 0; }
var sections = Array.prototype.filter.call(document.querySelectorAll('section.api'), shown).map(function (s) {
  return s.getAttribute('data-api'); });
var rows = Array.prototype.filter.call(document.querySelectorAll('table.cases tr.case'), shown);
var heads = Array.prototype.filter.call(document.querySelectorAll('table.cases thead th[class^="k"]'), shown);
var meta = JSON.parse(document.getElementById('columns-data').textContent);
function metaOf(th) { return meta[th.closest("[class*='in-g']").className.match(/in-(g\\d+)/)[1]][th.className] || {}; }
return {sections: sections, rows: rows.length, cases: rows.map(function (r) { return r.getAttribute('data-case'); }),
        columns: heads.map(metaOf),
        outcomes: rows.map(function (r) {
          return Array.prototype.filter.call(r.querySelectorAll('td.o'), shown).map(function (td) {
            return td.className.split(' ')[1]; }); })};"""
FILTER = """
var rows = document.querySelectorAll('table.cases tr.case');
var hidden = 0, problems = 0, shownProblems = 0;
for (var i = 0; i < rows.length; i++) {
  var shown = rows[i].getClientRects().length > 0;
  if (!shown) { hidden++; }
  if (rows[i].classList.contains('problem')) { problems++; if (shown) { shownProblems++; } }
}
return {rows: rows.length, hidden: hidden, problems: problems, shownProblems: shownProblems};"""


def _first_screens(wd: WebDriver, url: str, shots: Path | None) -> list[str]:
    problems = []
    for width, height in WIDTHS:
        wd.size(width, height)
        wd.go(url)
        screen = wd.run(FIRST_SCREEN)
        where = f"at {width} px"
        if not screen["grid"]:
            problems.append(f"{where}: no grid (table.grid)")
        elif not 0 <= screen["top"] < screen["height"] or not 0 < screen["firstRowBottom"] <= screen["height"]:
            problems.append(f"{where}: the grid's first row is not above the fold: {screen}")
        if screen["scrollWidth"] > screen["width"]:
            problems.append(f"{where}: the page overflows sideways ({screen['scrollWidth']} > {screen['width']})")
        if shots is not None:
            (shots / f"matrix-{width}.png").write_bytes(wd.screenshot())
    return problems


def _grid(wd: WebDriver, url: str) -> list[str]:
    """At 1,400 px: each grid whole in view, its names whole, every cell saying what it holds."""
    wd.size(*WIDTHS[0])
    wd.go(url)
    problems = []
    fit = wd.run(GRID_FIT)
    for box in fit["boxes"]:
        if box["scrollWidth"] > box["clientWidth"]:
            problems.append(
                f"at {WIDTHS[0][0]} px: grid {box['grid']} hides columns behind its own scroll "
                f"({box['scrollWidth']} > {box['clientWidth']} px)"
            )
    if fit["cut"]:
        problems.append(f"at {WIDTHS[0][0]} px: library names cut in the grid's headers: {fit['cut'][:5]}")
    cells = wd.run(GRID_CELLS)
    if not cells["counted"]:
        problems.append("the grid has no cells (td.g)")
    if cells["badCount"]:
        problems.append(f"{cells['badCount']} grid cells are blank or mislabelled, e.g. {cells['bad'][:2]}")
    return problems


def _deep_link(wd: WebDriver, url: str, shots: Path | None) -> tuple[list[str], str | None]:
    problems = []
    wd.size(*WIDTHS[0])
    wd.go(url)
    cell = wd.run(HINTED_CELL)
    if cell is None:
        return ["no failing cell with a fix hint and a diff"], None
    shared = wd.run(SHARED_CELL)  # a cell whose detail the page holds once, in another cell
    if shared is not None:
        wd.go("about:blank")
        wd.go(f"{url}#{shared}")
        state = wd.run(CELL_STATE, shared)
        if not (state["open"] and state["panel"] and state["hint"].startswith("fix: ")):
            problems.append(f"#{shared}: the panel does not show the detail held in another cell: {state}")
    wd.go(url)
    width = wd.run(TABLE_WIDTH, cell)
    for size in WIDTHS:
        wd.size(*size)
        wd.go("about:blank")
        wd.go(f"{url}#{cell}")
        state = wd.run(CELL_STATE, cell)
        where = f"#{cell} at {size[0]} px"
        if not (state["open"] and state["panel"]):
            problems.append(f"{where}: the link did not open the cell's detail: {state}")
        if not (state["inView"] and state["shown"]):
            problems.append(f"{where}: the cell is not in view or is covered (by {state['hit']})")
        if state["headers"][:4] != ["code", "location", "message", "provider error"] or not state["diff"]:
            problems.append(f"{where}: the panel does not show the violations and the diff: {state}")
        if not state["hint"].startswith("fix: "):
            problems.append(f"{where}: the panel does not show the fix hint")
        if state["panelWidth"] > state["viewport"] or state["scrollWidth"] > state["viewport"]:
            problems.append(f"{where}: the detail widens the page: {state}")
        if size == WIDTHS[0] and state["width"] != width:
            problems.append(f"{where}: opening the detail changed the table's width from {width} to {state['width']}")
        if shots is not None:
            (shots / f"matrix-cell-{size[0]}.png").write_bytes(wd.screenshot())
    return problems, cell


def _sticky(wd: WebDriver, url: str) -> list[str]:
    wd.size(*WIDTHS[0])
    wd.go(url)
    problems = []
    for index in range(wd.run(CASE_TABLES)):
        state = wd.run(STICKY, index)
        if state["covered"]:
            problems.append(f"case table {index}: the sticky header or case column covers cells {state['covered']}")
        if abs(state["headerTop"]) > 1 and state["scrolledY"]:
            problems.append(f"case table {index}: the header does not stick to the top: {state}")
    return problems


def _filters(wd: WebDriver, url: str) -> list[str]:
    wd.size(*WIDTHS[0])
    problems = []
    wd.go(url)
    everything = wd.run(VISIBLE)
    api = wd.run(OPTION, "f-api", 0)
    wd.run(SET_FILTER, "f-api", api)
    seen = wd.run(VISIBLE)
    if set(seen["sections"]) != {api} or not 0 < seen["rows"] < everything["rows"]:
        problems.append(f"the API filter ({api}) shows {seen['sections']}, {seen['rows']} rows")
    for field in ("language", "library"):
        wd.go(url)
        value = wd.run(OPTION, f"f-{field}", 1)
        wd.run(SET_FILTER, f"f-{field}", value)
        seen = wd.run(VISIBLE)
        if not seen["columns"] or any(c.get(field) != value for c in seen["columns"]):
            problems.append(f"the {field} filter ({value}) shows columns {seen['columns'][:5]}")
    wd.go(url)
    wd.run(SET_FILTER, "f-outcome", "fail")
    seen = wd.run(VISIBLE)
    if not seen["rows"] or any("o-fail" not in row for row in seen["outcomes"]):
        problems.append("the outcome filter (fail) shows rows without a fail")
    wd.go(url)
    query = everything["cases"][len(everything["cases"]) // 2].split("/")[-1]
    wd.run(SET_FILTER, "f-case", query)
    seen = wd.run(VISIBLE)
    if not seen["rows"] or any(query not in case for case in seen["cases"]):
        problems.append(f"the search for {query!r} shows {seen['cases'][:5]}")
    wd.go(url)
    wd.click("#only-problems")
    shown = wd.run(FILTER)
    if shown["shownProblems"] != shown["problems"] or shown["hidden"] != shown["rows"] - shown["problems"]:
        problems.append(f"the filter for cases with a cell other than pass misbehaves: {shown}")
    return problems


def check_live(browser: str, driver: str, page: Path, shots: Path | None) -> list[str]:
    problems: list[str] = []
    url = page.resolve().as_uri()
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
    with webdriver(browser, driver) as wd:
        wd.go(url)
        load = wd.run(LOAD_MS)
        tables = wd.run(CASE_TABLES)
        if not tables:
            problems.append("no case table (table.cases) in the page")
        if wd.run(READY) != str(tables):
            problems.append(f"the inline script did not run: data-ready is {wd.run(READY)!r}, expected {tables}")
        loaded = wd.run(RESOURCES)
        if loaded:
            problems.append(f"the page loaded other resources: {', '.join(loaded)}")
        print(f"{page}: {page.stat().st_size:,} bytes, loaded in {load:.0f} ms, {tables} case tables")
        if load > LOAD_BOUND_MS:
            problems.append(f"the page took {load:.0f} ms to load (bound {LOAD_BOUND_MS} ms)")
        problems += _first_screens(wd, url, shots)
        problems += _grid(wd, url)
        found, _ = _deep_link(wd, url, shots)
        problems += found
        problems += _sticky(wd, url)
        problems += _filters(wd, url)
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
    match = re.search(r'<td class="o o-fail k\d+" id="([^"]+)"><details>', first)
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
    parser.add_argument("--screenshots", metavar="DIR", help="also save the screenshots (first screens, a cell opened)")
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
        problems = check_live(browser, driver, page, Path(args.screenshots) if args.screenshots else None)
        how = "headless Chromium through chromedriver"
    else:
        if args.screenshots:
            print("--screenshots needs chromedriver (Debian: apt-get install chromium-driver)", file=sys.stderr)
            return 2
        problems = check_dom(browser, page)
        how = "headless Chromium's --dump-dom (no chromedriver: the DOM only)"
    for problem in problems:
        print(f"{page}: {problem}")
    print(f"{page}: {'FAILED' if problems else 'ok'}, checked with {how}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
