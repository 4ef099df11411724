"""A newcomer's first hour, from a fresh clone or an installed package: the docs' commands work as
written, `conformance run` says what it runs and what to do next and can run one case, an import keeps
the user's own words, a reproduction says what it needs, and a baseline still holding its placeholders
is said to be one."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from conftest import ROOT
from interactions import bundled_interactions

from conformance.cli import main
from conformance.connectors.harness import bug_harness
from conformance.corpus.loading import Corpus
from conformance.reports.matrix.layout import share
from conformance.reports.matrix.render_md import tally_text

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
GENERATED = re.compile(r"<!-- BEGIN generated: .*?<!-- END generated: [^>]*-->", re.S)

FAILING = """
from conformance import CodecAdapter
from conformance.reference.openai_chat import OpenAIChatCodec

class NameAsId(OpenAIChatCodec):
    def call_id(self, part):
        return part["name"]

ADAPTER = CodecAdapter(name="name-as-id", version="1", codecs={"openai-chat": NameAsId()})
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    (tmp_path / "mine.py").write_text(FAILING, encoding="utf-8")
    return tmp_path


def _text(page: Path) -> str:
    return GENERATED.sub("", page.read_text(encoding="utf-8"))


def test_the_proxy_is_given_the_providers_origin_and_the_client_the_proxys_v1_everywhere() -> None:
    upstreams = [(p.name, u) for p in PAGES for u in re.findall(r"--upstream (\S+)", _text(p))]
    assert {name for name, _ in upstreams} >= {"README.md", "importing.md"}
    # The proxy appends the client's path: an upstream with a path doubles it (`/v1/v1/chat/completions`).
    assert [(n, u) for n, u in upstreams if urlsplit(u).path not in ("", "/")] == []
    for page in (ROOT / "README.md", ROOT / "docs" / "importing.md"):
        assert re.search(r"OPENAI_BASE_URL=http://127\.0\.0\.1:\d+/v1 ", page.read_text(encoding="utf-8")), page


def test_replay_server_is_offered_with_the_command_that_reads_it() -> None:
    # `--replay=server` is `conformance run`'s; pytest reads `--conformance-replay=server` only.
    offered = [
        (p.name, span)
        for p in PAGES
        for span in re.findall(r"`([^`]*--replay\b[^`]*)`", _text(p))
        if not span.startswith("conformance ")
    ]
    assert offered == []


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_run_selects_cases_by_id_and_by_a_pytest_k_expression(
    here: Path, capsys: pytest.CaptureFixture[str], corpus: Corpus
) -> None:
    code, _, _ = _run(capsys, "-k", "parallel and not gemini", "--report", "k.json")
    ran = [r["id"] for r in json.loads((here / "k.json").read_text())["cases"]]
    expected = sorted(i for i in corpus.scenarios if "parallel" in i.lower() and "gemini" not in i.lower())
    assert code == 0 and sorted(ran) == expected and len(ran) > 3
    code, _, _ = _run(capsys, "openai-chat/one-call", "anthropic-messages/one-call", "--report", "ids.json")
    ran = [r["id"] for r in json.loads((here / "ids.json").read_text())["cases"]]
    assert code == 0 and sorted(ran) == ["anthropic-messages/one-call", "openai-chat/one-call"]
    code, _, err = _run(capsys, "openai-chat/one-cal")
    assert code == 2 and "no case 'openai-chat/one-cal' in the corpus (did you mean openai-chat/one-call" in err
    code, _, err = _run(capsys, "-k", "parallel and")
    assert code == 2 and "-k 'parallel and' is not an expression pytest's -k reads" in err
    docs = (ROOT / "docs" / "plugin.md").read_text(encoding="utf-8")
    assert "conformance run -k" in docs and "CASE_ID" in docs


def test_runs_first_line_says_what_runs_and_its_last_what_to_do_next(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, "--api", "kimi-chat")
    lines = out.splitlines()
    assert code == 0
    assert lines[0].startswith("conformance run: reference 0.1.0, in a worker process, on 7 cases of the 1 selected")
    assert lines[-1].startswith("next: run it in CI")
    code, out, _ = _run(capsys, "--adapter", "./mine.py:ADAPTER", "--api", "openai-chat")
    lines = out.splitlines()
    assert code == 1 and lines[0].startswith("conformance run: name-as-id 1, in a worker process, on ")
    rerun = next(line for line in lines if line.startswith("next: "))
    case_id = re.search(r"--adapter ./mine.py:ADAPTER (\S+) --show-requests", rerun)
    assert case_id is not None, rerun
    assert any("--baseline conformance-baseline.yaml --update-baseline" in line for line in lines)
    # The command it prints reruns that case, and only that one.
    code, out, _ = _run(capsys, "--adapter", "./mine.py:ADAPTER", case_id.group(1), "--report", "one.json")
    assert [r["id"] for r in json.loads((here / "one.json").read_text())["cases"]] == [case_id.group(1)]


def test_a_baseline_still_holding_its_placeholders_is_warned_of_and_fails_on_warnings(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    adapter = ("--adapter", "./mine.py:ADAPTER", "--api", "openai-chat", "--baseline", "b.yaml")
    assert _run(capsys, *adapter, "--update-baseline")[0] == 1
    code, out, _ = _run(capsys, *adapter)
    document = yaml.safe_load((here / "b.yaml").read_text())
    entries = document["expected_failures"]
    assert code == 0 and entries
    assert f"WARNING: {len(entries)} of the baseline's {len(entries)} entries still give the generated reason" in out
    code, out, _ = _run(capsys, *adapter, "--fail-on-warnings")
    assert code == 1 and "give no reason but the generated placeholder" in out
    for entry in entries:
        entry["reason"] = "the library sends the tool's name as the id (issue 12)"
    (here / "b.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    code, out, _ = _run(capsys, *adapter, "--fail-on-warnings")
    assert code == 0 and "WARNING" not in out
    assert "placeholder" in (ROOT / "docs" / "plugin.md").read_text(encoding="utf-8")


def test_an_import_keeps_the_users_own_words_unless_asked_to_revoice(tmp_path: Path, corpus: Corpus) -> None:
    source = tmp_path / "weather.yaml"
    source.write_text(yaml.safe_dump({"interactions": bundled_interactions("openai-chat/one-call.yaml")}))
    prompt = corpus.scenarios["openai-chat/one-call"].prompt
    assert main(["import", str(source), "--output", str(tmp_path / "mine"), "--id", "w"]) == 0
    case = yaml.safe_load((tmp_path / "mine/cases/scenarios/openai-chat/recorded/w.yaml").read_text())
    assert case["prompt"] == prompt and "revoiced" not in case.get("source", {})
    assert main(["import", str(source), "--output", str(tmp_path / "voiced"), "--id", "w", "--revoice"]) == 0
    voiced = yaml.safe_load((tmp_path / "voiced/cases/scenarios/openai-chat/recorded/w.yaml").read_text())
    assert voiced["prompt"] != prompt and voiced["source"]["revoiced"]
    # The contribution flow re-voices, and says so.
    for page in (ROOT / "docs" / "importing.md", ROOT / "docs" / "public-recordings.md"):
        flows = re.findall(r"conformance import [^\n]*--source-repo", page.read_text(encoding="utf-8"))
        assert flows and all("--revoice" in flow for flow in flows), page


def test_a_reproduction_from_an_installation_without_harnesses_says_what_runs_the_library(
    tmp_path: Path, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A wheel's corpus: the bug case without the harnesses beside it, with Go on PATH.
    bug = corpus.bugs["genkit-3247"]
    cases = tmp_path / "site-packages" / "conformance" / "_corpus" / "cases"
    (cases / "bugs").mkdir(parents=True)
    copy = cases / "bugs" / bug.path.name
    shutil.copy(bug.path, copy)
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    harness, said = bug_harness(dataclasses.replace(bug, path=copy), dataclasses.replace(corpus, case_roots=(cases,)))
    assert harness is None
    assert "harnesses ship with the repository, not with the package" in said
    assert "with go on PATH, `conformance reproduce genkit-3247` runs the library itself" in said


def test_the_matrix_counts_a_case_tables_all_row_as_its_grid_cell() -> None:
    counts = {"pass": 6, "fail": 1, "error": 1, "skip": 4, "total": 12}
    cell = share(counts)
    assert cell is not None and tally_text(counts).startswith(f"{cell['pass']}/{cell['ran']}, ")
    assert tally_text({"skip": 3, "total": 3}) == "3 skip"


def test_the_committed_matrix_has_no_blank_grid_cell() -> None:
    html = (ROOT / "reports" / "matrix.html").read_text(encoding="utf-8")
    assert 'style="--p:"' not in html and ": / pass" not in html
    assert 'class="g g-none' in html
