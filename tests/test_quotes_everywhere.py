"""A provider error quoted from a public report is told with the case's own ids wherever it is shown:
`lint` and `proxy` as `run`, pytest and `serve` do, and the replay's own 400 to a client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli import main
from conformance.corpus.loading import Corpus
from conformance.lint import lint_path

ROOT = Path(__file__).resolve().parent.parent
SERVED = "call_Vq3XbR0LkS8mJ2tN6yPw4cDe"  # openai-chat/one-call's call


def _without_results(tmp_path: Path) -> Path:
    """openai-chat/one-call's cassette with the tool message dropped from its second request."""
    data: Any = yaml.safe_load((ROOT / "cassettes/openai-chat/one-call.yaml").read_text(encoding="utf-8"))
    request = data["interactions"][1]["request"]
    body = json.loads(request["body"])
    body["messages"] = [m for m in body["messages"] if m["role"] != "tool"]
    request["body"] = json.dumps(body)
    path = tmp_path / "no-results.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_lint_quotes_the_cassettes_own_id(tmp_path: Path, corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    path = _without_results(tmp_path)
    report = lint_path(path, corpus)
    [(_, missing)] = [(a, v) for a, v in report.violations if v.code == "pairing/missing-result"]
    assert missing.provider_error and SERVED not in missing.provider_error  # the report's id, verbatim
    quote = report.quote(missing)
    assert quote is not None and SERVED in quote.text
    main(["lint", str(path)])
    out = capsys.readouterr().out
    assert f"did not have response messages: {SERVED}" in " ".join(out.split())
    assert "with this case's" in out


def test_the_replays_400_names_the_clients_own_id(corpus: Corpus) -> None:
    from conformance.connectors.client import ClientAdapter, ToolLoop
    from conformance.running.runner import run_scenario

    openai = pytest.importorskip("openai")
    from conformance.clients.official_sdks.common import chat_tool

    seen: list[Any] = []

    def no_results(loop: ToolLoop) -> None:
        client = openai.OpenAI(base_url=loop.base_url, api_key=loop.api_key, max_retries=0)
        tools: Any = [chat_tool(t) for t in loop.tools]
        messages: list[Any] = [{"role": "user", "content": loop.prompt}]
        message = client.chat.completions.create(model=loop.model, messages=messages, tools=tools).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        try:
            client.chat.completions.create(model=loop.model, messages=messages, tools=tools)
        except openai.BadRequestError as exc:
            seen.append(exc)
            raise

    adapter = ClientAdapter(name="no-results", version="0", clients={"openai-chat": no_results})
    result = run_scenario(adapter, corpus.scenarios["openai-chat/one-call"], corpus)
    assert "pairing/missing-result" in {v.code for v in result.errors}
    assert seen and SERVED in str(seen[0].body)


def test_the_proxy_quotes_the_exchanges_own_id(tmp_path: Path, corpus: Corpus) -> None:
    from conformance.proxy import Recorder

    data: Any = yaml.safe_load(_without_results(tmp_path).read_text(encoding="utf-8"))
    printed: list[str] = []
    recorder = Recorder("https://api.openai.com", tmp_path / "out.yaml", corpus, report=printed.append)
    for interaction in data["interactions"]:
        recorder.add(interaction)
    said = " ".join(" ".join(printed).split())
    assert f"did not have response messages: {SERVED}" in said, said
