"""A client that asks again after the recorded final answer: the requests it sent are judged, what it
did is named, and the outcome is the same whether it raised on the replay's 400 or swallowed it."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from conformance.clients.official_sdks.common import chat_tool
from conformance.connectors.client import ClientAdapter, ToolLoop
from conformance.corpus.loading import Corpus
from conformance.running.runner import RunOptions, run_scenario


def _post(url: str, body: Any) -> Any:
    headers = {"content-type": "application/json", "authorization": "Bearer x"}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def asks_again(*, swallow: bool, placeholder: bool = False) -> Callable[[ToolLoop], None]:
    """A Chat Completions loop that, given the final answer, asks once more (as a ReAct loop that waits
    for a `finish` call does)."""

    def run(loop: ToolLoop) -> None:
        messages: list[Any] = [{"role": "user", "content": loop.prompt}]
        tools = [chat_tool(t) for t in loop.tools]
        for _ in range(4):
            try:
                message = _post(
                    f"{loop.base_url}/chat/completions", {"model": loop.model, "messages": messages, "tools": tools}
                )
            except urllib.error.HTTPError:
                if swallow:
                    return
                raise
            message = message["choices"][0]["message"]
            messages.append(message)
            for call in message.get("tool_calls") or []:
                output = loop.call_tool(call["function"]["name"], json.loads(call["function"]["arguments"]))
                content = "No result provided" if placeholder else output
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
            if not message.get("tool_calls"):
                messages.append({"role": "user", "content": "Go on."})

    return run


def _run(corpus: Corpus, fn: Callable[[ToolLoop], None]) -> Any:
    adapter = ClientAdapter(name="asks-again", version="0", clients={"openai-chat": fn})
    return run_scenario(
        adapter, corpus.scenarios["openai-chat/one-call"], corpus, options=RunOptions(show_requests=True)
    )


@pytest.mark.parametrize("swallow", [False, True])
def test_asking_again_after_the_final_answer_is_one_outcome_named(corpus: Corpus, swallow: bool) -> None:
    result = _run(corpus, asks_again(swallow=swallow))
    assert result.outcome == "fail", result.summary
    assert "asked again after the final answer (response[1])" in result.summary
    assert result.requests is not None and len(result.requests) == 2


@pytest.mark.parametrize("swallow", [False, True])
def test_the_requests_before_it_are_judged(corpus: Corpus, swallow: bool) -> None:
    result = _run(corpus, asks_again(swallow=swallow, placeholder=True))
    assert result.outcome == "fail"
    assert "pairing/output-lost" in {v.code for v in result.errors}
    assert "asked again after the final answer" in result.summary


def test_show_requests_prints_the_requests_of_every_outcome(tmp_path: Any) -> None:
    command = [sys.executable, "-m", "conformance", "run", "--adapter", "conformance.clients.openai_sdk:ADAPTER"]
    command += ["--show-requests", "--api", "openai-chat", "--report", str(tmp_path / "r.json")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert "openai-chat/one-call: the requests sent" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]
    assert "request[1] as sent:" in done.stdout


def test_show_requests_in_pytest_shows_a_passing_cases_requests_too(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(
        "--conformance-adapter=reference", "conformance::openai-chat/one-call", "--show-requests", "-rP"
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*request[[]1[]] as sent:*"])
