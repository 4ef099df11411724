"""Recording formats besides vcrpy's: each read by `conformance lint` and `conformance import`, on small
re-voiced copies of real files of that format (tests/data/formats), or refused with the reason."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from conftest import ROOT

from conformance.corpus.loading import Corpus
from conformance.importer import Options, import_cassette
from conformance.importer.formats import ids_redacted, load_recording, requests_held
from conformance.lint import lint_path
from conformance.recordings.cassette import CassetteError

DATA = ROOT / "tests" / "data" / "formats"
RIG = DATA / "cassettes" / "anthropic" / "multi_step_tool_use.yaml"
HTTPRR = DATA / "TestGoogleAIWithTools.httprr"
CHUNKS = DATA / "packages" / "alibaba" / "src" / "__fixtures__" / "alibaba-tool-call.chunks.txt"
BEDROCK_JSON = DATA / "packages" / "amazon-bedrock" / "src" / "__fixtures__" / "amazon-bedrock-json-tool.1.json"


def test_rig_httpmock_is_read_with_the_host_its_folder_names(corpus: Corpus, tmp_path: Path) -> None:
    cassette = load_recording(RIG)
    assert len(cassette) == 3 and all(i.request.uri == "https://api.anthropic.com/v1/messages" for i in cassette)
    assert ids_redacted(cassette)
    report = lint_path(RIG, corpus)
    assert report.checked == {"anthropic-messages": 3} and not report.unreadable
    assert not [v for _, v in report.violations if v.code.startswith("format/id-")]
    imported = import_cassette(RIG, corpus, Options(output=tmp_path, case_id="rig"))
    assert [i.case_id for i in imported.imported] == ["anthropic-messages/recorded/rig"]


def test_langchaingo_httprr_is_read_record_by_record(corpus: Corpus, tmp_path: Path) -> None:
    cassette = load_recording(HTTPRR)
    assert [i.response.status for i in cassette] == [200]
    assert cassette.interactions[0].request.host == "generativelanguage.googleapis.com"
    assert lint_path(HTTPRR, corpus).checked == {"gemini": 1}
    imported = import_cassette(HTTPRR, corpus, Options(output=tmp_path, case_id="httprr"))
    assert [i.case_id for i in imported.imported] == ["gemini/recorded/httprr"], imported.refused


def test_a_cut_httprr_record_is_a_located_error(tmp_path: Path) -> None:
    cut = tmp_path / "cut.httprr"
    cut.write_bytes(HTTPRR.read_bytes()[:-40])
    with pytest.raises(CassetteError, match="runs past the end"):
        load_recording(cut)


def test_vercel_fixtures_are_linted_as_responses_and_refused_as_scenarios(corpus: Corpus, tmp_path: Path) -> None:
    for path, api in ((CHUNKS, "openai-chat"), (BEDROCK_JSON, "bedrock-converse")):
        cassette = load_recording(path)
        assert not requests_held(cassette)
        report = lint_path(path, corpus)
        assert report.checked == {api: 1} and not report.unreadable, (path.name, report.unreadable)
        refused = import_cassette(path, corpus, Options(output=tmp_path))
        assert not refused.imported and "responses only" in refused.refused[0].reason


def test_a_vercel_fixture_of_an_api_without_tool_calls_is_refused_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "packages" / "deepgram" / "src" / "__fixtures__" / "x.json"
    path.parent.mkdir(parents=True)
    path.write_text("{}")
    with pytest.raises(CassetteError, match="deepgram"):
        load_recording(path)


LANGCHAIN = DATA / "test_agent_loop_streaming.yaml.gz"


def test_a_langchain_tests_cassette_pairs_requests_and_responses(corpus: Corpus) -> None:
    cassette = load_recording(LANGCHAIN)
    assert len(cassette) == 2 and all(i.request.host.startswith("bedrock-runtime.") for i in cassette)
    # Its serializer redacted every header value: the redacted headers are dropped, the body tells.
    assert all("content-type" not in i.response.headers for i in cassette)
    report = lint_path(LANGCHAIN, corpus)
    assert report.checked == {"bedrock-converse": 2} and not report.unreadable and not report.violations


def test_a_langchain_tests_cassette_whose_lists_differ_is_refused(tmp_path: Path) -> None:
    odd = tmp_path / "odd.yaml.gz"
    odd.write_bytes(gzip.compress(b"requests: [{uri: 'http://x', method: POST}]\nresponses: []\n"))
    with pytest.raises(CassetteError, match="pair by position"):
        load_recording(odd)


def test_an_httprr_head_ended_by_a_bare_line_feed_is_read(tmp_path: Path) -> None:
    request = b"GET https://en.wikipedia.org/w/api.php?q=1 HTTP/1.1\r\nHost: en.wikipedia.org\r\nUser-Agent: x\n\r\n"
    response = b"HTTP/2.0 200 OK\r\nContent-Type: application/json\r\n\r\n{}"
    path = tmp_path / "t.httprr"
    path.write_bytes(b"httprr trace v1\n" + f"{len(request)} {len(response)}\n".encode() + request + response)
    (interaction,) = load_recording(path)
    assert interaction.request.headers["user-agent"] == ("x",) and interaction.response.body == b"{}"


def test_a_gzipped_cassette_is_read_as_the_cassette_it_holds(corpus: Corpus, tmp_path: Path) -> None:
    plain = next((ROOT / "cassettes" / "recorded").rglob("*.yaml"))
    zipped = tmp_path / "test_tool_calling.yaml.gz"
    zipped.write_bytes(gzip.compress(plain.read_bytes()))
    assert len(load_recording(zipped)) == len(load_recording(plain))
    assert lint_path(zipped, corpus).checked == lint_path(plain, corpus).checked
    broken = tmp_path / "broken.yaml.gz"
    broken.write_bytes(b"not gzip")
    with pytest.raises(CassetteError, match="not gzip"):
        load_recording(broken)


@pytest.mark.parametrize("path", [RIG, HTTPRR, CHUNKS, BEDROCK_JSON, LANGCHAIN], ids=lambda p: p.name)
def test_no_rule_says_the_provider_rejects_a_request_it_answered_in_any_format(corpus: Corpus, path: Path) -> None:
    # The at-scale figure in docs/public-recordings.md, held at 0 on the bundled copies of each format.
    cassette = load_recording(path)
    answered = {i.index for i in cassette if i.response.status < 400}
    claimed = [
        v.location
        for _, v in lint_path(path, corpus).violations
        if v.severity == "error" and v.provider_error and int(v.location.split("]")[0].split("[")[1]) in answered
    ]
    assert claimed == []
