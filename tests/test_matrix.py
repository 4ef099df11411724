"""`conformance matrix`: results files merged into the compatibility matrix, and the bundled run behind reports/."""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from markupsafe import escape

from conformance.cli import main
from conformance.corpus.loading import Corpus
from conformance.engine.outcomes import OUTCOMES, CaseResult
from conformance.engine.violations import Violation
from conformance.reports.matrix import HTML_FILE, JSON_FILE, MARKDOWN_FILE
from conformance.reports.matrix.badges import adapter_badge, summary_line
from conformance.reports.matrix.document import slug, stable_detail, stable_text
from conformance.reports.matrix.generate import Report, from_bundled
from conformance.running.results import results_document, write_results

REPORTS = ROOT / "reports"
BUG_LINK = "https://github.com/example/adapter/issues/1"
FIX_HINT = "Send back the id the provider issued, byte for byte."
SKIP_REASON = "needs a history of another API, which this client cannot be handed"


def _write(
    path: Path, results: Sequence[CaseResult], *, name: str = "mylib", version: str = "1.0", revision: str
) -> Path:
    adapter = {"name": name, "version": version, "connector": "client"}
    write_results(path, results_document(results, adapter=adapter, corpus_revision=revision, profile="default"))
    return path


def _every_outcome(corpus: Corpus) -> list[CaseResult]:
    """One case per outcome, on real scenarios; the fail carries a violation and a diff."""
    scenarios = sorted(corpus.scenarios.values(), key=lambda s: s.id)[: len(OUTCOMES)]
    results = []
    for scenario, outcome in zip(scenarios, OUTCOMES, strict=True):
        result = CaseResult(scenario.id, scenario.api, outcome, summary=f"what the {outcome} was")
        if outcome == "skip":
            result.summary = SKIP_REASON
        if outcome == "xfail":
            result.link = BUG_LINK
        if outcome == "xpass":
            result.link = "javascript:alert(1)"  # shown, never a link
        if outcome == "fail":
            result.violations = [
                Violation(
                    "roundtrip/id-altered",
                    "error",
                    "request[1].messages[2].tool_call_id",
                    "The result carries 'get_weather' instead of 'call_1'",
                    expected="call_1",
                    received="get_weather",
                    provider_error="messages with role 'tool' must be a response to a preceeding message",
                    hint=FIX_HINT,
                )
            ]
            result.diff = "Value of ['request[1]'][2]['results'][0]['id'] changed from \"call_1\" to \"get_weather\"."
        if outcome == "error":
            result.detail = (
                "Traceback (most recent call last):\n"
                '  File "/home/someone/src/mylib/codec.py", line 12, in encode\n'
                "    return x['function']\n"
                "KeyError: 'function'"
            )
        results.append(result)
    return results


def _json(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / JSON_FILE).read_text(encoding="utf-8"))
    return data


def _tree(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Report:
    return from_bundled(tmp_path_factory.mktemp("reports"))


# Merging results files


def test_results_of_different_revisions_are_shown_apart(corpus: Corpus, tmp_path: Path) -> None:
    current = corpus.revision()
    results = _every_outcome(corpus)[:2]
    a = _write(tmp_path / "a.json", results, name="alpha", revision=current)
    b = _write(tmp_path / "b.json", results, name="beta", revision=current)
    old = _write(tmp_path / "old.json", results, name="gamma", revision="sha256:0000000000000000")
    out = tmp_path / "out"
    assert main(["matrix", str(old), str(b), str(a), "--output", str(out)]) == 0
    groups = _json(out)["groups"]
    assert [(g["corpus_revision"], g["current"]) for g in groups] == [
        (current, True),
        ("sha256:0000000000000000", False),
    ]
    assert [c["name"] for c in groups[0]["columns"]] == ["alpha", "beta"]  # side by side, in a stable order
    assert [c["name"] for c in groups[1]["columns"]] == ["gamma"]
    markdown = (out / MARKDOWN_FILE).read_text(encoding="utf-8")
    mine, other = markdown.split("## Other corpus revisions")
    assert "alpha" in mine and "beta" in mine and "gamma" not in mine
    assert "### Corpus `sha256:0000000000000000`" in other and "gamma" in other and "alpha" not in other
    html = (out / HTML_FILE).read_text(encoding="utf-8")
    assert html.count('<section class="group') == 2
    assert 'data-revision="sha256:0000000000000000"' in html and 'id="other-revisions"' in html


def test_no_results_against_this_corpus_puts_the_commonest_revision_first(corpus: Corpus, tmp_path: Path) -> None:
    results = _every_outcome(corpus)[:1]
    files = [
        _write(tmp_path / "x.json", results, name="x", revision="sha256:bbbb"),
        _write(tmp_path / "y.json", results, name="y", revision="sha256:bbbb"),
        _write(tmp_path / "z.json", results, name="z", revision="sha256:aaaa"),
    ]
    assert main(["matrix", *map(str, files), "--output", str(tmp_path / "out")]) == 0
    groups = _json(tmp_path / "out")["groups"]
    assert [g["corpus_revision"] for g in groups] == ["sha256:bbbb", "sha256:aaaa"]
    assert not any(g["current"] for g in groups)
    assert "No results ran against this corpus" in (tmp_path / "out" / MARKDOWN_FILE).read_text(encoding="utf-8")


def test_every_outcome_is_counted_and_visible(corpus: Corpus, tmp_path: Path) -> None:
    results = _every_outcome(corpus)
    source = _write(tmp_path / "mylib.json", results, revision=corpus.revision())
    out = tmp_path / "out"
    assert main(["matrix", str(source), "--output", str(out)]) == 0
    column = _json(out)["groups"][0]["columns"][0]
    expected: dict[str, int] = {**dict.fromkeys(OUTCOMES, 1), "total": len(OUTCOMES)}
    assert column["counts"] == expected
    (api,) = {r.api for r in results}
    assert column["summary"] == (
        f"mylib 1.0: 1/9 pass, {', '.join(f'1 {o}' for o in OUTCOMES if o != 'pass')}, over 1 of 15 APIs ({api}), "
        f"incomplete run (corpus {corpus.revision()})"
    )

    markdown = (out / MARKDOWN_FILE).read_text(encoding="utf-8")
    header = next(line for line in markdown.splitlines() if line.startswith("| adapter | version"))
    assert all(f" {o} |" in header for o in OUTCOMES)
    apis = {r.api for r in results}
    absent = sum(s.api in apis for s in corpus.scenarios.values()) - len(results)  # its APIs' other cases
    assert column["absent"] == absent
    row = next(line for line in markdown.splitlines() if line.startswith("| mylib (incomplete run) | 1.0 |"))
    counted = " | ".join(["1"] * len(OUTCOMES))
    assert row.endswith(f"| {api} | {counted} | {len(OUTCOMES)} | {absent} | 0 | ![mylib](badges/mylib.svg) |")
    assert SKIP_REASON in markdown and BUG_LINK in markdown

    html = (out / HTML_FILE).read_text(encoding="utf-8")
    for outcome in OUTCOMES:
        assert f'<td class="o o-{outcome} k0"' in html, outcome
        assert f'<th class="o-{outcome}">{outcome}</th>' in html  # the outcome table's column
    assert SKIP_REASON in html and f'<a href="{BUG_LINK}">' in html
    assert "javascript:alert(1)" in html and 'href="javascript' not in html
    failing = next(r for r in results if r.outcome == "fail")
    cell = f'id="cell-g1-mylib-{slug(failing.case_id)}"'
    fragment = html[html.index(cell) : html.index("</details>", html.index(cell))]
    for text in (
        "roundtrip/id-altered",
        "request[1].messages[2].tool_call_id",
        "preceeding message",
        "get_weather",
        f"fix: {FIX_HINT}",  # the hint, as the command line shows it
    ):
        assert text in fragment
    assert '<pre class="diff">' in fragment
    # tracebacks lose the machine's paths
    assert "/home/someone" not in html and "codec.py:12 in encode" in html


def test_a_results_file_that_cannot_be_used_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    (tmp_path / "other.json").write_text('{"format": "something-else"}', encoding="utf-8")
    assert main(["matrix", str(tmp_path / "broken.json"), str(tmp_path / "other.json"), "--output", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "broken.json" in err and "other.json: [results] not a toolcall-conformance/results file" in err
    assert not (tmp_path / MARKDOWN_FILE).exists()


def test_wire_types_takes_no_results_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["matrix", "--wire-types", str(tmp_path / "results.json")]) == 2
    assert "--wire-types takes no results files" in capsys.readouterr().err


@pytest.mark.parametrize("change", ["edit", "delete", "extra badge"])
def test_check_names_a_stale_file_and_writes_nothing(
    change: str, corpus: Corpus, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _write(tmp_path / "mylib.json", _every_outcome(corpus), revision=corpus.revision())
    out = tmp_path / "out"
    args = ["matrix", str(source), "--output", str(out)]
    assert main(args) == 0
    assert main([*args, "--check"]) == 0
    if change == "edit":
        stale = out / MARKDOWN_FILE
        stale.write_text(stale.read_text(encoding="utf-8").replace("1/9", "2/9"), encoding="utf-8")
    elif change == "delete":
        stale = out / "badges" / "mylib.svg"
        stale.unlink()
    else:  # the badge of a column an earlier report had
        gone = _write(tmp_path / "gone.json", _every_outcome(corpus), name="gone", revision=corpus.revision())
        assert main(["matrix", str(source), str(gone), "--output", str(out)]) == 0
        stale = out / "badges" / "gone.svg"
        assert stale.is_file()
    before = _tree(out)
    capsys.readouterr()
    assert main([*args, "--check"]) == 1
    printed = capsys.readouterr().out
    why = {"edit": "differs from", "delete": "missing from", "extra badge": "not part of"}[change]
    assert f"{stale}: {why} what `conformance matrix {source}" in printed
    assert (str(out / HTML_FILE) in printed) == (change == "extra badge")
    assert _tree(out) == before
    assert main(args) == 0  # writing puts it right, removing a badge no column has
    assert main([*args, "--check"]) == 0
    assert not (out / "badges" / "gone.svg").exists()


def test_only_badges_the_report_wrote_are_removed(corpus: Corpus, tmp_path: Path) -> None:
    source = _write(tmp_path / "mylib.json", _every_outcome(corpus), revision=corpus.revision())
    out = tmp_path / "out"
    (out / "badges").mkdir(parents=True)
    mine = out / "badges" / "build-status.svg"  # someone else's, in the same folder
    mine.write_text("<svg>mine</svg>", encoding="utf-8")
    args = ["matrix", str(source), "--output", str(out)]
    assert main(args) == 0
    assert main([*args, "--check"]) == 0
    assert main(args) == 0
    assert mine.read_text(encoding="utf-8") == "<svg>mine</svg>"


def _results_main(path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["matrix", str(path), "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and not (tmp_path / "out").exists()
    return err


def test_a_deeply_nested_results_file_is_one_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text('{"format": "toolcall-conformance/results", "cases": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert "nests deeper than 100 levels" in _results_main(deep, tmp_path, capsys)


def test_a_device_as_results_is_refused_unread(tmp_path: Path) -> None:
    def limited() -> None:  # a regression reads /dev/zero until it is out of memory: not the test's memory
        resource.setrlimit(resource.RLIMIT_AS, (768 * 1024 * 1024,) * 2)

    command = [sys.executable, "-m", "conformance.cli", "matrix", "/dev/zero", "--output", str(tmp_path / "out")]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, preexec_fn=limited)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert "/dev/zero: [results] cannot be read: a character device, not a regular file" in run.stderr


def test_an_adapter_name_of_any_length_gets_a_badge(corpus: Corpus, tmp_path: Path) -> None:
    name = "a" * 256
    source = _write(tmp_path / "long.json", _every_outcome(corpus), name=name, revision=corpus.revision())
    assert main(["matrix", str(source), "--output", str(tmp_path / "out")]) == 0
    (badge,) = (tmp_path / "out" / "badges").iterdir()
    assert len(badge.name) <= 68


@pytest.mark.parametrize(
    "name", ["<img src=x onerror=alert(1)>", "x</td><script>alert(1)</script>", "a]( javascript:alert(1))", "```"]
)
def test_adapter_names_reach_the_markdown_as_text(name: str, corpus: Corpus, tmp_path: Path) -> None:
    source = _write(tmp_path / "r.json", _every_outcome(corpus), name=name, revision=corpus.revision())
    assert main(["matrix", str(source), "--output", str(tmp_path / "out")]) == 0
    markdown = (tmp_path / "out" / MARKDOWN_FILE).read_text(encoding="utf-8")
    # Outside the summaries' code block (shown as text, whatever it holds), nothing of the name is markup.
    before, rest = markdown.split("### Summary\n\n", 1)
    fence = rest.split("text\n", 1)[0]
    assert fence == ("````" if "```" in name else "```")
    outside = before + rest.split("\n" + fence + "\n", 1)[1]
    assert "<img" not in outside and "<script" not in outside and "</td>" not in outside
    links = re.findall(r"(?<!\\)\]\(([^)]*)\)", outside)  # a `](` the Markdown did not escape opens a link
    assert all(link.startswith("badges/") or link == HTML_FILE for link in links), links


# The bundled run


def test_the_bundled_run_has_the_reference_and_every_reproduction(corpus: Corpus, bundled: Report) -> None:
    (group,) = bundled.document["groups"]
    assert group["current"] and group["corpus_revision"] == corpus.revision()
    columns = {c["name"]: c for c in group["columns"]}
    assert next(iter(columns)) == "reference"
    assert set(columns) == {"reference", *corpus.bugs}
    reference = columns["reference"]
    assert reference["counts"]["total"] == len(corpus.scenarios) and reference["kind"] == "reference"
    assert reference["badge"] == "badges/reference.svg" and "badges/reference.svg" in bundled.files
    cells = {
        (c["id"], key): cell
        for api in group["apis"]
        for wire in api["wire_types"]
        for c in wire["cases"]
        for key, cell in c["cells"].items()
    }
    for bug in corpus.bugs.values():
        column = columns[bug.id]
        api = corpus.scenarios[bug.scenario].api
        assert column["kind"] == "reproduction" and column["badge"] is None
        # every scenario of its API, not only its own
        assert column["counts"]["total"] == sum(s.api == api for s in corpus.scenarios.values())
        own = cells[(bug.scenario, column["key"])]
        assert own["outcome"] == "xfail", (bug.id, own)
        assert own["link"] == bug.report


def test_the_bundled_run_reads_committed_results(corpus: Corpus, tmp_path: Path) -> None:
    _write(tmp_path / "results" / "mylib.json", _every_outcome(corpus), revision=corpus.revision())
    _write(tmp_path / "results" / "older.json", _every_outcome(corpus), name="older", revision="sha256:0123")
    report = from_bundled(tmp_path)
    first, other = report.document["groups"]
    mylib = next(c for c in first["columns"] if c["name"] == "mylib")
    assert mylib["source"] == "results/mylib.json" and mylib["kind"] == "adapter"
    assert [c["name"] for c in first["columns"]][:2] == ["reference", "mylib"]
    assert [c["name"] for c in other["columns"]] == ["older"] and other["corpus_revision"] == "sha256:0123"
    assert {"badges/reference.svg", "badges/mylib.svg", "badges/older.svg"} <= set(report.files)


def test_two_runs_write_the_same_bytes(corpus: Corpus, tmp_path: Path) -> None:
    for run in ("a", "b"):
        _write(tmp_path / run / "results" / "mylib.json", _every_outcome(corpus), revision=corpus.revision())
        assert main(["matrix", "--output", str(tmp_path / run)]) == 0
    first, second = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    assert first == second
    assert {MARKDOWN_FILE, JSON_FILE, HTML_FILE, "badges/reference.svg", "badges/mylib.svg"} <= set(first)
    text = first[JSON_FILE].decode()
    assert '"duration"' not in text and "run_info" not in text and str(ROOT) not in text
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_the_committed_reports_are_current(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["matrix", "--check", "--output", str(REPORTS)]) == 0, capsys.readouterr().out


# Summaries and badges


def test_summary_line_and_badge() -> None:
    passing: dict[str, int] = {**dict.fromkeys(OUTCOMES, 0), "pass": 90, "skip": 3}
    line = summary_line("reference", "0.1.0", passing, "sha256:abcd")
    assert line == "reference 0.1.0: 90/93 pass, 3 skip (corpus sha256:abcd)"
    badge = adapter_badge(passing, line)
    assert badge == adapter_badge(dict(passing), line)
    assert badge.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and "90/93 pass" in badge
    assert 'fill="#4c1"' in badge and f"<title>{line}</title>" in badge
    failing = {**passing, "fail": 50}
    assert 'fill="#e05d44"' in adapter_badge(failing, "")
    assert 'fill="#dfb317"' in adapter_badge({**passing, "fail": 1}, "")


def test_tracebacks_are_made_independent_of_the_machine() -> None:
    detail = (
        "Traceback (most recent call last):\n"
        '  File "/work/main/conformance/connectors/codec.py", line 42, in _call\n'
        "    return fn(copy.deepcopy(arg))\n"
        "           ^^^^^^^^^^^^^^^^^^^^^^\n"
        '  File "/usr/lib/python3/site-packages/mylib/codec.py", line 7, in encode\n'
        "    pending = x['function']\n"
        '  File "/usr/lib/python3/site-packages/mylib/codec.py", line 7, in <listcomp>\n'
        "    pending = x['function']\n"
        "KeyError: 'function'"
    )  # the comprehension's frame exists before Python 3.12 only
    assert stable_detail(detail) == (
        "Traceback (most recent call last):\n"
        "  conformance/connectors/codec.py:42 in _call\n"
        "    return fn(copy.deepcopy(arg))\n"
        "  mylib/codec.py:7 in encode\n"
        "    pending = x['function']\n"
        "KeyError: 'function'"
    )
    assert stable_detail("plain text\n") == "plain text"
    assert stable_text("Cassette: /work/main/cassettes/gemini/one.yaml (see https://example.com/a/b.yaml)") == (
        "Cassette: cassettes/gemini/one.yaml (see https://example.com/a/b.yaml)"
    )


def test_each_column_shows_its_coverage_beside_its_pass_share_and_its_skips_by_reason(
    corpus: Corpus, tmp_path: Path
) -> None:
    cases = sorted((s for s in corpus.scenarios.values() if s.api == "openai-chat"), key=lambda s: s.id)[:6]
    declared = "the client's request declared no web_search tool; the recorded response[0] uses it"
    outcomes = [
        ("pass", ""),
        ("pass", ""),
        ("fail", "1 violation(s): roundtrip/id-altered"),
        ("skip", f"{declared} (response[0].output[1])"),
        ("skip", f"{declared} (response[0].output[2])"),
        ("skip", SKIP_REASON),
    ]
    results = [
        CaseResult(s.id, s.api, outcome, summary=summary)  # type: ignore[arg-type]
        for s, (outcome, summary) in zip(cases, outcomes, strict=True)
    ]
    source = _write(tmp_path / "mylib.json", results, revision=corpus.revision())
    out = tmp_path / "out"
    assert main(["matrix", str(source), "--output", str(out)]) == 0
    column = _json(out)["groups"][0]["columns"][0]
    served = sum(s.api == "openai-chat" for s in corpus.scenarios.values())  # the cases its results lack count too
    percent = 100 * 3 // served
    assert column["coverage"] == {"cases": served, "judged": 3, "percent": percent, "pass_percent": 66}
    assert column["skips"] == [{"reason": declared, "cases": 2}, {"reason": SKIP_REASON, "cases": 1}]

    markdown = (out / MARKDOWN_FILE).read_text(encoding="utf-8")
    assert f"| mylib | 1 | {served} | 3 | {percent}% | 66% | 3 |" in markdown
    assert "<details><summary>mylib: 3 skipped, by reason</summary>" in markdown
    assert f"| 2 | {declared} |" in markdown and f"| 1 | {SKIP_REASON} |" in markdown
    html = (out / HTML_FILE).read_text(encoding="utf-8")
    table = html[html.index('id="g1-coverage-table"') : html.index("</table>", html.index('id="g1-coverage-table"'))]
    assert f'<td class="num">{served}</td><td class="num">3</td><td class="num">{percent}%</td>' in table
    assert '<td class="num">66%</td>' in table
    skips = html[html.index('id="g1-skips-mylib"') :]
    assert f'<td class="num">2</td><td>{escape(declared)}</td>' in skips[: skips.index("</details>")]


def test_a_column_that_judged_nothing_has_no_pass_share() -> None:
    from conformance.reports.matrix.document import coverage, skip_reason

    assert coverage({"skip": 4, "total": 4}, 5) == {"cases": 5, "judged": 0, "percent": 0, "pass_percent": None}
    assert coverage({"total": 0}, 0)["percent"] is None
    assert skip_reason("") == "no reason given"
    assert skip_reason("declared no tool (response[3].content[0])") == "declared no tool"
    assert skip_reason("the harness declares: X (custom tools)") == "the harness declares: X (custom tools)"
