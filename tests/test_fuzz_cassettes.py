"""`conformance lint` on broken cassettes: it answers, it never crashes.

Every bundled cassette (and the real recordings beside the checkout, when present) is mutated:
truncated, bit-flipped, a value anywhere replaced by one of another type, bodies made wrong
(JSON types, SSE streams, gzip, deflate, brotli, base64), `!!python/*` and other tags, alias
bombs, deep nesting, megabyte ids. Lint's contract on each: exit 0 (clean), 1 (violations) or 2
(unreadable input) with a located message, no traceback, the rest of the files still linted,
in bounded time and memory, and no tag ever run.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
import time
from pathlib import Path
from typing import Any
from unittest import mock

import yaml
from conftest import REAL_TRAFFIC, ROOT
from fuzzing import (
    MAX_RSS_BYTES,
    SECONDS,
    examples,
    mutate_body,
    mutate_yaml,
    paths,
    peak_rss,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance import cli
from conformance.commands import lint as lint_command
from conformance.corpus.loading import Corpus, load_corpus

SEEDS = sorted((ROOT / "cassettes").rglob("*.yaml")) + sorted(REAL_TRAFFIC.glob("*/*.yaml"))
CLEAN = ROOT / "cassettes" / "openai-chat" / "one-call.yaml"
_CORPUS: list[Corpus] = []


def _corpus() -> Corpus:
    if not _CORPUS:
        _CORPUS.append(load_corpus())
    return _CORPUS[0]


def lint_contract(path: Path, content: str | bytes, marker: Path) -> None:
    """Lint `content` (written to `path`) and a clean cassette after it; assert lint's contract."""
    path.write_bytes(content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content)
    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    with (
        mock.patch.object(lint_command, "corpus_of", lambda args, **kwargs: _corpus()),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = cli.main(["lint", str(path), str(CLEAN)])
    elapsed = time.perf_counter() - started
    text = out.getvalue() + err.getvalue()
    assert code in (0, 1, 2), text[:2000]
    assert "Traceback" not in text, text[:5000]
    assert "the suite failed" not in text, text[:5000]  # a safety net caught a crash: a bug to fix
    assert text.startswith(f"{path}: "), text[:500]
    if code == 2:
        assert f"{path}: unreadable" in text or "\n  unreadable: " in text, text[:2000]
    assert f"{CLEAN}: 2 interaction(s); checked openai-chat (2): clean" in text  # the run went on
    assert len(text) < 20 * len(content) + 1_000_000
    assert elapsed < SECONDS, f"{elapsed:.1f} s"
    assert peak_rss() < MAX_RSS_BYTES
    assert not marker.exists(), "a !!python tag ran"


@settings(max_examples=examples(1.5))
@given(st.sampled_from(SEEDS), st.data())
def test_lint_answers_every_broken_cassette_file(seed: Path, data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        marker = Path(tmp) / "ran"
        lint_contract(Path(tmp) / "fuzzed.yaml", mutate_yaml(data, seed.read_text(), str(marker)), marker)


def _bodies(document: dict[str, Any]) -> list[tuple[int, str]]:
    found = []
    for i, interaction in enumerate(document.get("interactions") or []):
        for side in ("request", "response"):
            if isinstance(interaction.get(side), dict) and "body" in interaction[side]:
                found.append((i, side))
    return found


@settings(max_examples=examples(1.5))
@given(st.sampled_from(SEEDS), st.data())
def test_lint_answers_every_broken_body(seed: Path, data: st.DataObject) -> None:
    document = yaml.safe_load(seed.read_text())
    bodies = _bodies(document)
    if not bodies:
        return
    index, side = data.draw(st.sampled_from(bodies), label="body")
    holder = document["interactions"][index][side]
    body = holder["body"]
    string = body.get("string") if isinstance(body, dict) else body
    headers = holder.get("headers") or {}
    content_type = str((headers.get("content-type") or headers.get("Content-Type") or [""])[0])
    new, more_headers = mutate_body(data, string, content_type)
    holder["body"] = {"string": new} if side == "response" else new
    holder["headers"] = {**headers, **more_headers}
    with tempfile.TemporaryDirectory() as tmp:
        marker = Path(tmp) / "ran"
        lint_contract(Path(tmp) / "fuzzed.yaml", yaml.safe_dump(document, sort_keys=False), marker)


@settings(max_examples=examples(0.5))
@given(st.sampled_from(SEEDS), st.data())
def test_lint_answers_wrong_types_anywhere_in_an_interaction(seed: Path, data: st.DataObject) -> None:
    """A value of the cassette's own structure (status, headers, uri, method, body) of a wrong type."""
    from fuzzing import json_junk, replaced

    document = yaml.safe_load(seed.read_text())
    where = data.draw(st.sampled_from([p for p in paths(document) if p[:1] == ("interactions",)] or [()]))
    document = replaced(document, where, data.draw(json_junk(), label="junk"))
    with tempfile.TemporaryDirectory() as tmp:
        marker = Path(tmp) / "ran"
        lint_contract(Path(tmp) / "fuzzed.yaml", yaml.safe_dump(document, sort_keys=False), marker)
