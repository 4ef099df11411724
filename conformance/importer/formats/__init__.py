"""Recording formats besides vcrpy's, read into the suite's `Cassette` for `import` and `lint`.

| format | told by | module |
|---|---|---|
| vcrpy YAML, pydantic-ai's `parsed_body` form | anything else | `conformance.recordings.cassette` |
| go-vcr YAML, cassette versions 1 and 2 | requests with `url:`, not `uri:` | `govcr` |
| HTTP Archives (LangChain.js's net-mocks, Polly.js) | a name ending `.har`, or `{"log":` | `har` |
| langchain-tests' gzipped cassettes | a name ending `.yaml.gz` | `langchain_gz` |
| rig's httpmock YAML (ids redacted as `call_REDACTED_n`) | documents of `when:`/`then:` | `httpmock` |
| langchaingo's httprr traces | a first line `httprr trace v1` | `httprr` |
| WireMock stub mappings its recorder wrote (Java suites) | keys only a stub has (`bodyPatterns`, ...) | `wiremock` |
| the Vercel AI SDK's fixtures (responses only) | `__fixtures__/*.json`, `*.chunks.txt` | `vercel_fixtures` |

A format that cannot give what a conversation needs says so: the Vercel AI SDK's fixtures hold no
requests, so they can be linted (each response on its own) but not imported as scenarios.
"""

from __future__ import annotations

from pathlib import Path

from conformance.importer.formats.text import read_text
from conformance.recordings.bounds import BoundsError, read_file
from conformance.recordings.cassette import Cassette, CassetteError, cassette_from_data, load_cassette_data


def load_recording(path: Path) -> Cassette:
    """Any recording format the suite reads; raises CassetteError (located) when it cannot."""
    from conformance.importer.formats import govcr, har, httpmock, httprr, langchain_gz, vercel_fixtures, wiremock

    name = path.name
    if name.endswith(".yaml.gz") or name.endswith(".yml.gz"):
        return langchain_gz.load(path)
    if vercel_fixtures.is_fixture(path):
        return vercel_fixtures.load(path)
    # Read through the bounded reader, which refuses FIFOs and devices without blocking on them.
    try:
        text = read_file(path)
    except BoundsError as exc:
        raise CassetteError(str(path), str(exc)) from None
    head = text[:4096]
    if head.startswith(httprr.MAGIC):
        return httprr.load(path)
    if httpmock.looks_like(head):
        return httpmock.load(path)
    if har.looks_like(name, head):
        return har.parse(text, str(path))
    if wiremock.looks_like(head):
        return wiremock.parse(text, path)
    data = load_cassette_data(text, str(path))
    if govcr.is_govcr(data):
        return govcr.from_data(data, str(path))
    return cassette_from_data(data, str(path))


def ids_redacted(cassette: Cassette) -> bool:
    """Whether the recorder replaced the provider's ids (rig's `call_REDACTED_1`): the rules on an id's
    shape and length cannot judge them; pairing and round trips still can."""
    return bool(cassette.provenance.get("ids_redacted"))


def requests_held(cassette: Cassette) -> bool:
    """Whether a recording holds the client's requests (a fixture of responses alone does not)."""
    return not cassette.provenance.get("responses_only")


__all__ = ["ids_redacted", "load_recording", "read_text", "requests_held"]
