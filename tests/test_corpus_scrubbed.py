"""The corpus's cassettes hold nothing the scrubber would take out today, but for reviewed exceptions."""

from __future__ import annotations

from pathlib import Path

import yaml

from conformance.recordings.recording import scrub_cassette

ROOT = Path(__file__).resolve().parents[1]
MIRASCOPE = "cassettes/recorded/mirascope-mirascope"
_PASSWORDS = (
    "the `password` arguments of Mirascope's secret_retrieval_tool are its test's made-up words (mellon, radiance), "
    "which tell the turn's two calls of one tool apart"
)
# Cassettes the scrubber would change, kept on purpose: path -> why what it would take out is no credential.
REVIEWED = {
    "cassettes/recorded/crewaiinc-crewai/openai-chat/crewai-parallel-native-tool-calling.yaml": (
        "its openai-project header is the placeholder OPENAI-PROJECT-XXX its authors wrote"
    ),
    **{
        f"{MIRASCOPE}/{api}/mirascope-call-with-tools-{mode}.yaml": _PASSWORDS
        for api in ("anthropic-messages", "gemini", "openai-chat", "openai-responses")
        for mode in ("stream", "sync")
    },
}


def _would_change() -> set[str]:
    changed = set()
    for path in sorted((ROOT / "cassettes").rglob("*.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        if isinstance(data, dict) and "interactions" in data and scrub_cassette(data, from_environment=False) != data:
            changed.add(path.relative_to(ROOT).as_posix())
    return changed


def test_no_corpus_cassette_holds_what_the_scrubber_takes_out_but_the_reviewed_ones() -> None:
    changed = _would_change()
    assert changed - REVIEWED.keys() == set(), "re-import these, or review them into REVIEWED with the reason"
    assert REVIEWED.keys() - changed == set(), "no longer changed by the scrubber: take them out of REVIEWED"


def test_the_check_sees_a_credential_in_a_cassette(tmp_path: Path) -> None:
    data = {"interactions": [{"request": {"headers": {"authorization": ["Bearer sk-proj-abcdefghijklmnopqrstuvwx"]}}}]}
    assert scrub_cassette(data, from_environment=False) != data
