"""The plugin's options and ini keys: one table, read command line first, then the ini file."""

from __future__ import annotations

from typing import Any

import pytest

PROPERTY = "conformance_result"
PREFIX = "conformance::"
GENERATED_PREFIX = "conformance-generated::"  # the generated scenarios' items, one per API
# Mirrors the case schema's `api` vocabulary (a test holds the two equal); kept literal so that
# registering markers does not load the schema.
APIS = (
    "openai-chat",
    "openai-responses",
    "anthropic-messages",
    "gemini",
    "gemini-interactions",
    "azure-foundry",
    "mistral-chat",
    "kimi-chat",
    "bedrock-converse",
    "ollama-chat",
    "openresponses",
    "mistral-responses",
    "ollama-responses",
    "ollama-messages",
    "cohere-v2",
)
SETTINGS = {
    # option/ini name: (help, ini type)
    "adapter": (
        "adapter under test: 'reference', a bug id (its reproduction, its own scenario expected to fail), "
        "module:object or path/to/file.py:object (the invocation directory is importable)",
        "string",
    ),
    "harness": ("a client in any language: the command that starts its harness (docs/harness.md)", "string"),
    "api": (
        "only run cases of these APIs (repeatable); an unknown name is a usage error listing the known ones",
        "args",
    ),
    "profile": ("rule profile: default, or strict (every violation an error)", "string"),
    "report": (
        "write the results JSON here, relative to the invocation directory (default: "
        ".pytest_cache/d/conformance/results.json; not written when the cache is disabled); a partial run "
        "never replaces a complete file",
        "string",
    ),
    "cases": ("extra case directories (repeatable)", "args"),
    "cassettes": ("extra cassette directories (repeatable)", "args"),
    "timeout": ("seconds a case may run before it is a timeout (default 60; 0: no limit)", "string"),
    "base-url": ("client adapters: the base URL the client is pointed at (default: the recorded one)", "string"),
    "replay": ("client adapters: in-process (vcrpy, the default) or server (the replay server over HTTP)", "string"),
    "isolate": (
        "run the adapter in a supervised worker process, judged here (the default): its exits, crashes and hangs "
        "become outcomes, and it cannot change its own verdict",
        "bool",
    ),
    "in-process": (
        "run the adapter in pytest's own process instead (for debugging it: there it can end the run or change "
        "its own verdict)",
        "bool",
    ),
    "fail-on-warnings": (
        "fail the run (exit 1) when a case has a warning-severity violation; cases keep their verdicts",
        "bool",
    ),
    "baseline": (
        "a file of expected failures (YAML or JSON, docs/plugin.md): listed failures are xfail, new ones fail, "
        "and an entry whose case passes fails the run as stale",
        "string",
    ),
    "update-baseline": (
        "rewrite the --conformance-baseline file from this run: stale entries dropped, new failures added",
        "bool",
    ),
    "show-requests": ("print every request the adapter sent in a failing case beside the recorded one", "bool"),
    "generated": (
        "also run N generated scenarios per API the adapter serves, drawn and shrunk by hypothesis (the "
        "`generated` extra; docs/generated.md); a failure is written as a case file with the command that reruns it",
        "string",
    ),
    "seed": (
        "the seed --conformance-generated draws with (default 0): the same seed draws the same scenarios",
        "string",
    ),
}
# Short forms the issue tracker and the docs use; the --conformance- form is always there too.
ALIASES = {"show-requests": ("--show-requests",), "update-baseline": ("--update-baseline",)}

# The tally pytest's last line shows, so that a run failed by the conformance gate is not shown green.
GATE = "conformance gate failed"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "tool-call id conformance")
    for name, (text, kind) in SETTINGS.items():
        flag = f"--conformance-{name}"
        dest = f"conformance_{name.replace('-', '_')}"
        if kind == "args":
            group.addoption(flag, action="append", dest=dest, default=None, metavar=name.upper(), help=text)
        elif kind == "bool":
            group.addoption(flag, *ALIASES.get(name, ()), action="store_true", dest=dest, default=None, help=text)
        elif name == "profile":
            group.addoption(flag, dest=dest, default=None, choices=("default", "strict"), help=text)
        elif name == "replay":
            group.addoption(flag, dest=dest, default=None, choices=("in-process", "server"), help=text)
        elif kind == "bool":
            group.addoption(flag, dest=dest, action="store_true", default=None, help=text)
        else:
            group.addoption(flag, dest=dest, default=None, metavar=name.upper(), help=text)
        parser.addini(dest, f"{text} (ini form of {flag})", type=kind, default=None)  # type: ignore[arg-type]


def setting(config: pytest.Config, name: str) -> Any:
    """Command line first, then the ini file."""
    dest = f"conformance_{name.replace('-', '_')}"
    value = config.getoption(dest)
    if value is None:
        value = config.getini(dest) or None
    return value


def count(raw: Any, option: str, *, minimum: int) -> int | None:
    """A whole-number option, or None when not given; anything else is a usage error."""
    if raw is None or raw == "":
        return None
    try:
        value = int(str(raw))
    except ValueError:
        raise pytest.UsageError(f"{option}: {raw!r} is not a whole number") from None
    if value < minimum:
        raise pytest.UsageError(f"{option}: {value} is less than {minimum}")
    return value
