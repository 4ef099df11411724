"""Construct cassettes for scenarios whose provenance is `constructed`.

No one on the project can reach a live provider, so the bundled cassettes are built from each
scenario's declared turns, in the shapes of the providers' published references and of real
recordings. The scenario is the source of truth; the cassette is derived, deterministically:
running this twice writes the same bytes.

    python scripts/construct_cassettes.py            # every constructed scenario
    python scripts/construct_cassettes.py --check    # exit 1 if a cassette is out of date
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conformance.corpus import Scenario, load_corpus  # noqa: E402

JSON = "application/json"
SSE = "text/event-stream; charset=utf-8"


def _seed(scenario: Scenario, turn: int) -> str:
    return hashlib.sha256(f"{scenario.id}#{turn}".encode()).hexdigest()


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _split(text: str, parts: int = 3) -> list[str]:
    if len(text) < parts:
        return [text]
    step = -(-len(text) // parts)
    return [text[i : i + step] for i in range(0, len(text), step)]


# --- OpenAI Chat Completions --------------------------------------------------------------------


def _chat_request(scenario: Scenario, upto: int) -> dict[str, Any]:
    """The request a correct client sends before response `upto`."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": scenario.prompt}]
    for turn in scenario.turns[:upto]:
        if not turn.calls:
            messages.append({"role": "assistant", "content": turn.text})
            continue
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": _compact(c.arguments)},
                    }
                    for c in turn.calls
                ],
            }
        )
        answered = list(turn.calls)
        if scenario.answer_order == "reversed":
            answered.reverse()
        messages.extend({"role": "tool", "tool_call_id": c.id, "content": c.output} for c in answered)
    body: dict[str, Any] = {"model": scenario.model, "messages": messages}
    body["tools"] = [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t.get("description", ""),
                "parameters": t["parameters"],
            },
        }
        for t in scenario.tools
    ]
    if scenario.stream:
        body["stream"] = True
    return body


def _chat_response(scenario: Scenario, index: int) -> tuple[str, str]:
    turn = scenario.turns[index]
    seed = _seed(scenario, index)
    completion_id = f"chatcmpl-{seed[:29]}"
    created = 1767225600 + int(seed[:6], 16) % 86400
    model = f"{scenario.model}-2024-07-18" if scenario.model == "gpt-4o-mini" else scenario.model
    finish = "tool_calls" if turn.calls else "stop"
    if not scenario.stream:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text if not turn.calls else None}
        if turn.calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": _compact(c.arguments)}}
                for c in turn.calls
            ]
        message["refusal"] = None
        message["annotations"] = []
        body = {
            "id": completion_id,
            "object": "chat.completion",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "usage": {"prompt_tokens": 80 + 40 * index, "completion_tokens": 18, "total_tokens": 98 + 40 * index},
            "service_tier": "default",
            "system_fingerprint": "fp_560af6e559",
        }
        return JSON, json.dumps(body, indent=2, ensure_ascii=False) + "\n"

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        data = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "service_tier": "default",
            "system_fingerprint": "fp_560af6e559",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
        }
        return f"data: {_compact(data)}\n\n"

    events = [chunk({"role": "assistant", "content": None if turn.calls else "", "refusal": None})]
    for k, call in enumerate(turn.calls):
        opening = {"index": k, "id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}
        events.append(chunk({"tool_calls": [opening]}))
        for piece in _split(_compact(call.arguments)):
            events.append(chunk({"tool_calls": [{"index": k, "function": {"arguments": piece}}]}))
    if not turn.calls and turn.text:
        for piece in _split(turn.text, 4):
            events.append(chunk({"content": piece}))
    events.append(chunk({}, finish))
    events.append("data: [DONE]\n\n")
    return SSE, "".join(events)


def _chat(scenario: Scenario) -> list[dict[str, Any]]:
    interactions = []
    for index in range(len(scenario.turns)):
        content_type, body = _chat_response(scenario, index)
        interactions.append(
            {
                "request": {
                    "body": _compact(_chat_request(scenario, index)),
                    "headers": {"accept": [JSON], "content-type": [JSON], "host": ["api.openai.com"]},
                    "method": "POST",
                    "uri": "https://api.openai.com/v1/chat/completions",
                },
                "response": {
                    "body": {"string": body},
                    "headers": {"content-type": [content_type]},
                    "status": {"code": 200, "message": "OK"},
                },
            }
        )
    return interactions


BUILDERS: dict[str, Callable[[Scenario], list[dict[str, Any]]]] = {"openai-chat": _chat}


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def render(scenario: Scenario) -> str:
    document = {
        "provenance": {
            "kind": "constructed",
            "scenario": scenario.id,
            "how": "Built by scripts/construct_cassettes.py from the scenario's turns, in the shapes of "
            "the provider's published API reference and SDK types; no live provider was called.",
        },
        "interactions": BUILDERS[scenario.api](scenario),
        "version": 1,
    }
    return yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="report stale cassettes, write nothing")
    args = parser.parse_args(argv)
    corpus = load_corpus()
    stale = []
    for scenario in sorted(corpus.scenarios.values(), key=lambda s: s.id):
        if scenario.provenance != "constructed" or scenario.api not in BUILDERS:
            continue
        target = ROOT / "cassettes" / scenario.cassette
        text = render(scenario)
        if target.exists() and target.read_text(encoding="utf-8") == text:
            continue
        stale.append(target)
        if not args.check:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    for path in stale:
        print(("stale: " if args.check else "wrote: ") + str(path.relative_to(ROOT)))
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    raise SystemExit(main())
