"""The compatibility matrix: results files merged into one report, adapters (columns) by cases (rows).

`conformance matrix RESULTS.json...` merges results files; `conformance matrix` alone runs the bundled
adapters (the reference, and every bug reproduction over the scenarios of its API) and reads the
committed results files of client adapters under `reports/results/`. One module per job:

- `merge`: results files read into columns, grouped by corpus revision
- `bundled`: the bundled adapters run into results documents
- `document`: the report as plain data (what `matrix.json` holds)
- `layout`: the first screen: columns by language and library, the API x library grid, versions side by side
- `render_md`, `render_html`: the Markdown file and the self-contained HTML page
- `badges`: the one-line summary and the SVG badge of each adapter
- `outputs`: every file of the report, written or checked against what is on disk
- `generate`: the two ways in (results files, or the bundled run) put together
"""

from __future__ import annotations

FORMAT = "toolcall-conformance/matrix"
VERSION = 1
COMMAND = "conformance matrix"
MARKDOWN_FILE, JSON_FILE, HTML_FILE = "matrix.md", "matrix.json", "matrix.html"
BADGE_DIR = "badges"
# Under the output directory: the committed results files of client adapters, read and never re-run.
RESULTS_DIR = "results"
