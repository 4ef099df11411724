"""The matrix counts a column over the APIs its adapter serves, and says which."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.connectors.adapters import describe
from conformance.connectors.contract import CodecAdapter
from conformance.corpus.loading import Corpus
from conformance.reference.openai_chat import OpenAIChatCodec
from conformance.reports.matrix import JSON_FILE, MARKDOWN_FILE
from conformance.reports.matrix.badges import message
from conformance.running.results import results_document, write_results
from conformance.running.runner import run_suite

CHAT_ONLY = CodecAdapter(name="chatonly", version="1", codecs={"openai-chat": OpenAIChatCodec()})


@pytest.fixture(scope="module")
def chat_only_document(corpus: Corpus) -> dict[str, Any]:
    results = run_suite(CHAT_ONLY, corpus)
    return results_document(results, adapter=describe(CHAT_ONLY), corpus_revision=corpus.revision(), profile="default")


def _matrix(tmp_path: Path, document: dict[str, Any]) -> dict[str, Any]:
    source = tmp_path / "chatonly.json"
    write_results(source, document)
    assert main(["matrix", str(source), "--output", str(tmp_path / "out")]) == 0
    data: dict[str, Any] = json.loads((tmp_path / "out" / JSON_FILE).read_text(encoding="utf-8"))
    return data


def test_a_single_api_adapter_is_counted_over_its_api(
    corpus: Corpus, chat_only_document: dict[str, Any], tmp_path: Path
) -> None:
    chat = sum(s.api == "openai-chat" for s in corpus.scenarios.values())
    assert chat_only_document["counts"]["skip"] == len(corpus.scenarios) - chat  # the run itself has them all
    matrix = _matrix(tmp_path, chat_only_document)
    (group,) = matrix["groups"]
    (column,) = group["columns"]
    assert column["apis"] == ["openai-chat"]
    assert column["counts"]["total"] == chat and column["counts"]["pass"] == chat and column["counts"]["skip"] == 0
    assert column["summary"].startswith(f"chatonly 1: {chat}/{chat} pass, over 1 of 15 APIs (openai-chat) (corpus")
    not_served = {n["api"]: n for n in column["not_served"]}
    assert len(not_served) == 14 and not_served["gemini"]["reason"] == "chatonly has no codec for gemini"
    assert sum(n["cases"] for n in not_served.values()) == len(corpus.scenarios) - chat
    # the column appears only under the API it serves
    assert [a["api"] for a in group["apis"]] == ["openai-chat"]
    badge = (tmp_path / "out" / "badges" / "chatonly.svg").read_text(encoding="utf-8")
    assert f">{chat}/{chat} pass on 1 API<" in badge and 'fill="#4c1"' in badge
    markdown = (tmp_path / "out" / MARKDOWN_FILE).read_text(encoding="utf-8")
    row = next(line for line in markdown.splitlines() if line.startswith("| chatonly |") and "![chatonly]" in line)
    assert f"| openai-chat | {chat} | 0 |" in row and f"| {len(corpus.scenarios) - chat} | ![chatonly]" in row


def test_a_results_file_without_served_apis_counts_those_it_judged(
    corpus: Corpus, chat_only_document: dict[str, Any], tmp_path: Path
) -> None:
    legacy = {**chat_only_document, "adapter": {k: v for k, v in chat_only_document["adapter"].items() if k != "apis"}}
    (column,) = _matrix(tmp_path, legacy)["groups"][0]["columns"]
    assert column["apis"] == ["openai-chat"]


def test_a_run_narrowed_to_some_apis_counts_only_those(corpus: Corpus, tmp_path: Path) -> None:
    results = run_suite(CHAT_ONLY, corpus, ["openai-chat", "gemini"])
    document = results_document(
        results,
        adapter=describe(CHAT_ONLY),
        corpus_revision=corpus.revision(),
        profile="default",
        apis=["openai-chat", "gemini"],
    )
    (column,) = _matrix(tmp_path, document)["groups"][0]["columns"]
    assert column["apis"] == ["openai-chat"] and [n["api"] for n in column["not_served"]] == ["gemini"]


def test_the_badge_says_how_many_apis() -> None:
    assert message({"pass": 12}, 1) == "12/12 pass on 1 API"
    assert message({"pass": 90, "fail": 3}, 11) == "90/93 pass on 11 APIs"
    assert message({}, 3) == "no results"
