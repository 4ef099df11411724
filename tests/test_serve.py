"""`conformance serve`: scenarios over HTTP to any client; curl is enough."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


class Served:
    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "conformance.cli", "serve", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.first = self.process.stdout.readline().strip()
        self.listing = [self.process.stdout.readline().split() for _ in range(args.count("--api") or 1)]

    def base_url(self, scenario_id: str) -> str:
        return next(url for sid, _api, url in self.listing if sid == scenario_id)

    def stop(self, how: str = "stdin") -> tuple[int, str]:
        if how == "stdin":
            assert self.process.stdin is not None
            self.process.stdin.close()
        else:
            self.process.send_signal(getattr(signal, how))
        self.process.wait(timeout=30)
        assert self.process.stderr is not None
        return self.process.returncode, self.process.stderr.read()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    server = Served("openai-chat/one-call", "--report", str(tmp_path / "results.json"))
    yield server
    if server.process.poll() is None:
        server.process.kill()


def _curl(*args: str) -> str:
    curl = shutil.which("curl")
    assert curl, "curl is the client this test drives the server with"
    return subprocess.run([curl, "-sS", *args], capture_output=True, text=True, check=True, timeout=30).stdout


def _recorded_requests(cassette: str) -> list[str]:
    data = yaml.safe_load((ROOT / "cassettes" / cassette).read_text())
    return [i["request"]["body"] for i in data["interactions"]]


def test_the_first_line_says_where_it_listens(served: Served) -> None:
    assert served.first.startswith("listening on http://127.0.0.1:")
    scenario, api, base_url = served.listing[0]
    assert (scenario, api) == ("openai-chat/one-call", "openai-chat")
    assert base_url == served.first.removeprefix("listening on ") + "/openai-chat/one-call/v1"


def test_curl_plays_the_scenario_and_the_report_judges_it(served: Served, tmp_path: Path) -> None:
    base = served.base_url("openai-chat/one-call")
    first, second = _recorded_requests("openai-chat/one-call.yaml")
    answer = json.loads(
        _curl("-X", "POST", f"{base}/chat/completions", "-H", "content-type: application/json", "-d", first)
    )
    assert answer["choices"][0]["message"]["tool_calls"][0]["id"] == "call_Vq3XbR0LkS8mJ2tN6yPw4cDe"
    # The same scenario streams when the request asks for it, whatever form it was recorded in.
    again = json.loads(second)
    again["stream"] = True
    streamed = _curl(f"{base}/chat/completions", "-H", "content-type: application/json", "-d", json.dumps(again))
    assert streamed.startswith("data: ") and streamed.rstrip().endswith("data: [DONE]")
    code, err = served.stop()
    assert code == 0, err
    report = json.loads((tmp_path / "results.json").read_text())
    assert report["adapter"]["connector"] == "server"
    assert [(c["id"], c["outcome"]) for c in report["cases"]] == [("openai-chat/one-call", "pass")]


def test_a_request_the_provider_rejects_gets_its_error_and_fails_the_report(served: Served, tmp_path: Path) -> None:
    base = served.base_url("openai-chat/one-call")
    first, second = _recorded_requests("openai-chat/one-call.yaml")
    _curl(f"{base}/chat/completions", "-d", first)
    # The result goes back under another id than its call's (the tool's name): an orphan OpenAI rejects.
    broken = second.replace('"tool_call_id":"call_Vq3XbR0LkS8mJ2tN6yPw4cDe"', '"tool_call_id":"get_weather"')
    assert broken != second
    answer = json.loads(_curl(f"{base}/chat/completions", "-d", broken))
    assert "error" in answer and answer["error"]["type"] == "invalid_request_error"
    code, _ = served.stop("SIGTERM")
    assert code == 1
    report = json.loads((tmp_path / "results.json").read_text())
    assert report["cases"][0]["outcome"] == "fail"
    assert {v["code"] for v in report["cases"][0]["violations"]} >= {"pairing/orphan-result"}


def test_a_scenario_no_client_came_to_is_not_run(served: Served, tmp_path: Path) -> None:
    code, err = served.stop("SIGINT")
    assert code == 1  # it judged nothing: never a green step
    assert "FAILED: no case was judged: of 1 case, 1 not run" in err
    report = json.loads((tmp_path / "results.json").read_text())
    assert report["cases"][0]["outcome"] == "not-run"


def test_side_requests_and_the_control_listing(served: Served) -> None:
    root = served.first.removeprefix("listening on ")
    listing = json.loads(_curl(f"{root}/_conformance/scenarios"))
    assert listing["scenarios"][0]["id"] == "openai-chat/one-call"
    model = json.loads(_curl(f"{served.base_url('openai-chat/one-call')}/models/gpt-4o-mini"))
    assert model == {"id": "gpt-4o-mini", "object": "model", "created": 1735689600, "owned_by": "openai"}
    served.stop()


def test_every_scenario_of_an_api_at_once() -> None:
    server = Served("--api", "gemini")
    try:
        assert server.first.startswith("listening on")
        assert server.listing[0][1] == "gemini"
    finally:
        server.stop()


def test_an_unknown_scenario_is_refused() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "serve", "openai-chat/no-such"], capture_output=True, text=True
    )
    assert completed.returncode == 2
    assert "no scenario 'openai-chat/no-such'" in completed.stderr


def test_the_listing_holds_what_curl_needs_to_play_the_scenario(tmp_path: Path) -> None:
    server = Served("openai-chat/one-call", "--report", str(tmp_path / "results.json"), "--show-requests")
    try:
        root = server.first.removeprefix("listening on ")
        entry = json.loads(_curl(f"{root}/_conformance/scenarios"))["scenarios"][0]
        assert entry["prompt"] == "What is the weather in Paris?" and entry["model"] == "gpt-4o-mini"
        assert [t["name"] for t in entry["tools"]] == ["get_weather"]
        assert entry["server_tools"] == []  # a function-tools-only scenario declares no provider tool
        first = entry["first_request"]
        assert first["url"] == server.base_url("openai-chat/one-call") + "/chat/completions"
        # A body that is no request of the API: the provider's 400 at once, and no turn spent.
        refused = json.loads(_curl(first["url"], "-d", '{"messages": 5}'))
        assert refused["error"]["type"] == "invalid_request_error"
        assert "not an openai-chat request" in refused["error"]["message"]
        body = tmp_path / "first.json"
        body.write_text(json.dumps(first["body"]))
        answer = json.loads(_curl(first["url"], "-d", f"@{body}"))
        assert answer["choices"][0]["message"]["tool_calls"][0]["id"] == "call_Vq3XbR0LkS8mJ2tN6yPw4cDe"
        _, second = _recorded_requests("openai-chat/one-call.yaml")
        orphan = second.replace('"tool_call_id":"call_Vq3XbR0LkS8mJ2tN6yPw4cDe"', '"tool_call_id":"get_weather"')
        _curl(first["url"], "-d", orphan)
    finally:
        code, err = server.stop()
    assert code == 1
    # The violations themselves at stop, not counts only; and the requests beside the recorded ones.
    assert "[x] pairing/orphan-result (error) at request[1].messages[2].tool_call_id" in err
    assert "openai-chat/one-call: the requests received" in err
    assert "request[1] as recorded (- as sent, + as recorded):" in err
    report = json.loads((tmp_path / "results.json").read_text())
    assert report["cases"][0]["outcome"] == "fail"
