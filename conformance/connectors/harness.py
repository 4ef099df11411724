"""The harness connector: a client library in any language, run through the harness protocol.

A harness is a program that reads JSON lines on stdin and writes JSON lines on stdout
(docs/harness.md, conformance/schemas/harness.schema.json). The suite starts it and says `start`;
the harness answers who it is and which APIs it serves. For each case the suite serves the
scenario on its replay server and sends `run` with the base URL, the model, the prompt, the tools
and the URL the tools get their outputs from; the harness runs its library's real tool loop and
answers `ok`, `skipped` or `errored`. The case is judged on what the library sent, as for any
client. A harness that crashes, hangs or prints garbage gives that case `crash`, `timeout` or
`error`; it is started again for the next case, and the run goes on.
"""

from __future__ import annotations

import itertools
import json
import os
import shlex
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import TYPE_CHECKING, Any

from conformance.connectors.adapters import AdapterSpecError
from conformance.connectors.handoff import with_first_leg
from conformance.connectors.supervisor import Fault, Supervisor
from conformance.corpus.loading import BugCase, Corpus, Scenario
from conformance.engine.outcomes import CaseResult
from conformance.engine.printable import printable
from conformance.replay.continued import HANDOFFS

if TYPE_CHECKING:
    from conformance.connectors.client import ToolLoop
    from conformance.connectors.serving import Listing, ScenarioServer

PROTOCOL_VERSION = 1
HARD_LIMIT_SECONDS = 3600.0  # a case without a time limit of its own still ends
# A bug case's harness may build its library before it greets (a cold Go module cache: minutes).
BUILD_SECONDS = 900.0
REPOSITORY = "https://github.com/toolcall-conformance/toolcall-conformance"


class HarnessFailed(Exception):
    """The library raised inside the harness: its message and stack trace, as the harness reports them."""

    def __init__(self, message: str, detail: str = "") -> None:
        self.detail = detail
        super().__init__(message)


@cache
def _validator(definition: str) -> Any:
    from importlib.resources import files

    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

    schema = json.loads(files("conformance.schemas").joinpath("harness.schema.json").read_text(encoding="utf-8"))
    return Draft202012Validator({**schema, "$ref": f"#/$defs/{definition}"})


def problem(message: Any, definition: str) -> str | None:
    """What is wrong with a message against its definition in the protocol's schema, if anything."""
    error = next(iter(sorted(_validator(definition).iter_errors(message), key=lambda e: list(e.path))), None)
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "the message"
    return f"{where}: {error.message}"


class HarnessAdapter:
    """An adapter that is a harness program; started once, and again after each fault."""

    def __init__(self, command: str | Sequence[str], *, cwd: str | None = None, start_timeout: float = 120) -> None:
        from conformance.connectors.serving import ScenarioServer

        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise AdapterSpecError("--harness needs a command")
        self.command = " ".join(argv)
        # The replay server exists before the harness, so that the harness's environment can name it as
        # the proxy for every other host: a library that honours the standard proxy variables and sends
        # traffic past `base_url` is refused and reported, never forwarded.
        self._server: ScenarioServer = ScenarioServer().start()
        self.supervisor = Supervisor(
            argv,
            cwd=cwd,
            env=_sealed_environment(self._server.url),
            name=f"the harness ({self.command})",
            hello={"cmd": "start", "version": PROTOCOL_VERSION},
            check_greeting=_check_started,
            start_timeout=start_timeout,
            reap=True,  # what the harness starts ends with it, however it detached
        )
        greeting = self.supervisor.greet()
        if isinstance(greeting, Fault):
            self._server.stop()
            raise AdapterSpecError(greeting.detail())
        # What the harness says of itself is printed as the run's title, its results' name, the matrix's column.
        self.implementation: dict[str, Any] = _printable_values(greeting["implementation"])
        self._seq = itertools.count(1)

    @property
    def name(self) -> str:
        return str(self.implementation["name"])

    @property
    def version(self) -> str:
        return str(self.implementation["version"])

    @property
    def continues(self) -> frozenset[str]:
        """What the harness can be handed beyond a new conversation (its greeting's `continues`)."""
        return frozenset(self.implementation.get("continues") or ())

    @property
    def apis(self) -> tuple[str, ...]:
        return tuple(self.implementation.get("apis", ()))

    def identity(self) -> dict[str, str]:
        info = {"name": self.name, "version": self.version, "connector": "harness"}
        info["language"] = str(self.implementation.get("language", ""))
        libraries = self.implementation.get("libraries") or {}
        if libraries:
            info["libraries"] = ", ".join(f"{k} {v}" for k, v in sorted(libraries.items()))
        if self.implementation.get("homepage"):
            info["homepage"] = str(self.implementation["homepage"])
        return info

    def _serving(self, corpus: Corpus, profile: str) -> ScenarioServer:
        self._server.corpus = corpus
        self._server.profile = profile
        return self._server

    def run(self, scenario: Scenario, corpus: Corpus, options: Any) -> CaseResult:
        unsupported = self.implementation.get("unsupported") or {}
        if scenario.api not in self.apis:
            reason = unsupported.get(scenario.api) or f"{self.name} serves no {scenario.api}"
            return CaseResult(scenario.id, scenario.api, "skip", summary=reason)
        from conformance.replay.verdicts import codec_only

        reason = codec_only(scenario, self.continues)
        if reason is not None:
            return CaseResult(scenario.id, scenario.api, "skip", summary=reason)
        server = self._serving(corpus, options.profile)
        listing = server.add(scenario)
        case = run_case(scenario, listing, server.loops[scenario.id])
        leg = server.add_first_leg(scenario) if HANDOFFS in self.continues else None
        if leg is not None:
            case["legs"] = [leg_of(leg[0], leg[1], len(leg[2].turns))]
        seq = next(self._seq)
        limit = options.timeout or HARD_LIMIT_SECONDS
        escaped, hostless = server.server.escaped, server.server.hostless_count
        answer = self.supervisor.ask({"cmd": "run", "seq": seq, "case": case}, limit)
        try:
            result = self._outcome(scenario, server, answer, seq, limit)
            if leg is not None and result.outcome in ("pass", "fail", "error"):
                leg_result = server.verdict(leg[0].scenario, ran=True, show_requests=True)
                result = with_first_leg(result, leg_result, leg[2])
        finally:
            server.server.remove(scenario.id)
            if leg is not None:
                server.server.remove(leg[0].scenario)
        count, past = server.server.escapes_since(escaped)
        if count and result.outcome in ("pass", "fail"):
            shown = ", ".join(sorted(set(past)))
            note = f"the library sent {count} request(s) past the replay, to {shown}: refused, never forwarded"
            result.outcome = "fail"
            result.summary = "; ".join(p for p in (result.summary, note) if p)
        count, senders = server.server.hostless_since(hostless)
        if count and result.outcome in ("pass", "fail"):
            # Said, not judged: a tunnel to no host reaches nothing, and a connection the library opens in the
            # background may land in the case after the one that opened it.
            shown = ", ".join(sorted(set(senders)))
            note = f"the library also asked for {count} tunnel(s) naming no host ({shown}): refused; they reach nothing"
            result.summary = "; ".join(p for p in (result.summary, note) if p)
        return result

    def _outcome(
        self, scenario: Scenario, server: ScenarioServer, answer: dict[str, Any] | Fault, seq: int, limit: float
    ) -> CaseResult:
        if isinstance(answer, Fault):
            outcome = {"crash": "crash", "timeout": "timeout", "garbage": "error"}[answer.kind]
            summary = answer.summary
            if answer.kind == "timeout":
                summary = f"the harness gave no answer within {limit:g} s; it was stopped and will be started again"
                # The replay saw what the library sent until then: judged with the timeout, kept for --show-requests.
                result = server.verdict(scenario.id, ran=True, show_requests=True, timed_out=summary)
                result.detail = answer.stderr
                return result
            return CaseResult(scenario.id, scenario.api, outcome, summary=summary, detail=answer.stderr)  # type: ignore[arg-type]
        wrong = problem(answer, "ran")
        if wrong is None and answer.get("seq") != seq:
            wrong = f"seq: {answer.get('seq')!r}, but the command was {seq}"
        if wrong is not None:
            self.supervisor.stop(kill=True)
            summary = f"the harness answered {json.dumps(answer)[:200]}, which is no answer to run: {wrong}"
            return CaseResult(scenario.id, scenario.api, "error", summary=summary)
        if "skipped" in answer:
            declared = printable(str(answer["skipped"]))
            return CaseResult(scenario.id, scenario.api, "skip", summary=f"the harness declares: {declared}")
        fault = None
        if "errored" in answer:
            errored = answer["errored"]
            fault = HarnessFailed(printable(errored["message"]), printable(errored.get("detail", "")))
        # The requests are kept: run_scenario drops them unless --show-requests asked for them.
        return server.verdict(scenario.id, fault, ran=True, show_requests=True)

    def close(self) -> None:
        self.supervisor.tell({"cmd": "stop"})
        self.supervisor.stop()
        self._server.stop()


def _printable_values(value: Any) -> Any:
    """The harness's own words, every string of them neutralised for a terminal (names on one line)."""
    if isinstance(value, str):
        return printable(value, one_line=True)
    if isinstance(value, dict):
        return {printable(str(k), one_line=True): _printable_values(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_printable_values(v) for v in value]
    return value


# Parts of a variable's name (split at `_`) that say it holds a credential.
_CREDENTIAL_PARTS = {"KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "CREDENTIALS"}


def _credential(name: str) -> bool:
    from conformance.recordings.recording import CREDENTIAL_VARIABLES

    return name.upper() in CREDENTIAL_VARIABLES or bool(_CREDENTIAL_PARTS & set(name.upper().split("_")))


def _sealed_environment(proxy: str) -> dict[str, str]:
    """The harness's environment: the suite's own without its credentials (a harness is handed the
    replay's key in each case; a provider's real key has nothing to do there), with every standard proxy
    variable naming the replay server (Node 24's fetch reads them with NODE_USE_ENV_PROXY), loopback
    exempted."""
    env = {name: value for name, value in os.environ.items() if not _credential(name)}
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = env[name.lower()] = proxy
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost,::1"
    env["NODE_USE_ENV_PROXY"] = "1"
    return env


def _check_started(answer: dict[str, Any]) -> str | None:
    if answer.get("version") != PROTOCOL_VERSION and isinstance(answer.get("version"), int):
        return f"it speaks protocol version {answer['version']}; this suite speaks {PROTOCOL_VERSION}"
    return problem(answer, "started")


def run_case(scenario: Scenario, listing: Listing, loop: ToolLoop) -> dict[str, Any]:
    """The `case` of a `run` command: where the scenario is served and what the library is asked."""
    return {
        "id": scenario.id,
        "api": scenario.api,
        "base_url": listing.base_url,
        "api_key": loop.api_key,
        "model": scenario.model,
        "prompt": scenario.prompt,
        "stream": scenario.stream,
        "tools": loop.tools,
        "server_tools": loop.server_tools,
        "recorded_tools": loop.recorded_tools,
        "settings": {
            "body": dict(loop.settings.body),
            "headers": dict(loop.settings.headers),
            "query": dict(loop.settings.query),
            "api_version": loop.settings.api_version,
        },
        "tools_url": listing.tools_url,
        "history": loop.history,
        "history_api": loop.history_api,
        "history_wire": loop.history_wire,
        "runs": loop.runs,
        "interrupted": [{"name": name, "arguments": dict(arguments)} for name, arguments in loop.interrupted],
    }


def leg_of(listing: Listing, loop: ToolLoop, steps: int) -> dict[str, Any]:
    """A first leg of a hand-off, for the case's `legs`: where that API's turns are served, and how many
    steps (model responses, each with calls the harness runs) the leg is."""
    return {
        "api": listing.api,
        "model": loop.model,
        "base_url": listing.base_url,
        "tools_url": listing.tools_url,
        "stream": loop.stream,
        "steps": steps,
        "recorded_tools": loop.recorded_tools,
        "settings": {
            "body": dict(loop.settings.body),
            "headers": dict(loop.settings.headers),
            "query": dict(loop.settings.query),
            "api_version": loop.settings.api_version,
        },
    }


@dataclass(frozen=True)
class BugHarness:
    """A bug case's harness, started: the library itself at the version with the bug."""

    adapter: HarnessAdapter
    bug: BugCase  # with the codes the released version shows, where the case gives its own


def bug_harness(bug: BugCase, corpus: Corpus) -> tuple[BugHarness | None, str]:
    """The harness a bug case names (`harness: {command, toolchain}`), started from the checkout that
    holds the case, with what runs the reproduction said in words. Where the case names none, its
    toolchain is not on PATH, or the harness is not in this installation, the reproduction adapter
    stands in for the library (None)."""
    spec = bug.data.get("harness")
    if not spec:
        return None, bug.reproduction
    fallback = f"{bug.reproduction} (a fallback: %s, so the reproduction adapter stands in for the library)"
    if shutil.which(spec["toolchain"]) is None:
        return None, fallback % f"{spec['toolchain']} is not on PATH; with it there, the library itself runs"
    root = next((r.parent for r in corpus.case_roots if bug.path.resolve().is_relative_to(r.resolve())), None)
    program = shlex.split(spec["command"])[0]
    if root is None or not (root / program).exists():
        # An installed package (a wheel) ships the cases but not the harnesses, which build the library.
        needed = (
            f"the harness {program} is not in this installation: harnesses ship with the repository, not with "
            f"the package; in a clone of it ({REPOSITORY}), with {spec['toolchain']} on PATH, "
            f"`conformance reproduce {bug.id}` runs the library itself"
        )
        return None, fallback % needed
    adapter = HarnessAdapter(spec["command"], cwd=str(root), start_timeout=BUILD_SECONDS)
    if "expected" in spec:
        bug = replace(bug, expected=tuple(spec["expected"]))
    return BugHarness(adapter, bug), f"the harness {spec['command']} ({adapter.name} {adapter.version})"
