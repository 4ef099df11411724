"""Record mode never writes a credential: every place one can sit, recorded against a local server.

Each placement sends its own secret, and the server echoes the whole request back in the
response (as JSON, as base64, gzip-compressed with and without a Content-Encoding header, in an
AWS event stream, in a response header and a cookie). The written cassette must hold none of
the secret's exact bytes, nor its base64 or URL-encoded forms, and must still load.
"""

from __future__ import annotations

import base64
import copy
import gzip
import json
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
import yaml

from conformance.corpus.loading import Corpus
from conformance.recordings import eventstream
from conformance.recordings.cassette import load_cassette
from conformance.recordings.recording import SCRUBBED, Scrubber, scrub_cassette, secret_forms, vcr_settings

httpx = pytest.importorskip("httpx")
vcr = pytest.importorskip("vcr")

ENCODINGS = ("plain", "gzip", "gzip-raw", "gzip-members", "deflate", "deflate-raw", "eventstream")


class _Echo(BaseHTTPRequestHandler):
    """Answers every request with the request itself, in the encoding `?encoding=` names."""

    def log_message(self, *args: Any) -> None:
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        sent = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        echo = {"path": self.path, "headers": dict(self.headers.items()), "body": sent}
        raw = json.dumps(echo).encode()
        payload = json.dumps({**echo, "base64": base64.b64encode(raw).decode()}).encode()
        encoding = next((e for e in ENCODINGS if f"encoding={e}" in self.path), "plain")
        self.send_response(200)
        if encoding == "gzip":
            payload = gzip.compress(payload)
            self.send_header("content-encoding", "gzip")
            self.send_header("content-type", "application/json")
        elif encoding == "gzip-raw":
            payload = gzip.compress(payload)
            self.send_header("content-type", "application/octet-stream")
        elif encoding == "gzip-members":  # the secret in the first member, the second must survive whole
            half = len(payload) // 2
            payload = gzip.compress(payload[:half]) + gzip.compress(payload[half:])
            self.send_header("content-encoding", "gzip")
            self.send_header("content-type", "application/json")
        elif encoding in ("deflate", "deflate-raw"):
            wbits = zlib.MAX_WBITS if encoding == "deflate" else -zlib.MAX_WBITS
            compressor = zlib.compressobj(wbits=wbits)
            payload = compressor.compress(payload) + compressor.flush()
            self.send_header("content-encoding", "deflate")
            self.send_header("content-type", "application/json")
        elif encoding == "eventstream":
            payload = eventstream.encode({":event-type": "chunk", ":message-type": "event"}, payload)
            self.send_header("content-type", "application/vnd.amazon.eventstream")
        else:
            self.send_header("content-type", "application/json")
        auth = self.headers.get("authorization") or self.headers.get("x-api-key") or ""
        self.send_header("x-echoed-credential", auth)
        self.send_header("set-cookie", f"session={auth or 'none'}; Path=/")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = _answer
    do_POST = _answer


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@dataclass
class Placement:
    """Where a credential sits in a request, and the secrets that must not reach the cassette."""

    secrets: tuple[str, ...]
    headers: dict[str, str] = field(default_factory=dict)
    path: str = "/v1/chat/completions"
    query: str = ""
    json_body: Any = None
    form_body: str | None = None
    environment: dict[str, str] = field(default_factory=dict)  # the run knows these from its environment
    userinfo: str = ""  # user:password before the host


AKID = "AKIAIOSFODNN7EXAMPLE"
SIGNATURE = "5d672d79c15b13162d9279b88f3d7bbd1e7b4a9d5f2b1d6c3e8a0f9b7c6d5e4f"
SESSION_TOKEN = "FwoGZXIvYXdzEJr//////////wEaDF+session/token+with=specials"
SIGV4 = (
    f"AWS4-HMAC-SHA256 Credential={AKID}/20260101/us-east-1/bedrock/aws4_request, "
    f"SignedHeaders=host;x-amz-date;x-amz-security-token, Signature={SIGNATURE}"
)
BASIC_PASSWORD = "basic-password-0123456789"
SCOPE = "/20260101/us-east-1/bedrock/aws4_request"

PLACEMENTS = {
    "authorization-bearer": Placement(
        ("sk-bearer-0123456789abcdef",), headers={"Authorization": "Bearer sk-bearer-0123456789abcdef"}
    ),
    "authorization-basic": Placement(
        (BASIC_PASSWORD,),
        headers={"Authorization": "Basic " + base64.b64encode(f"user:{BASIC_PASSWORD}".encode()).decode()},
    ),
    "x-api-key": Placement(
        ("sk-ant-api03-xapikey-0123456789",), headers={"x-api-key": "sk-ant-api03-xapikey-0123456789"}
    ),
    "api-key": Placement(("azure-key-0123456789abcdef",), headers={"api-key": "azure-key-0123456789abcdef"}),
    "x-goog-api-key": Placement(
        ("AIzaSyGoogHeader0123456789abcdefghijk",), headers={"x-goog-api-key": "AIzaSyGoogHeader0123456789abcdefghijk"}
    ),
    "query-key": Placement(
        ("AIzaSyQueryKey0123456789abcdefghijklm",), query="key=AIzaSyQueryKey0123456789abcdefghijklm"
    ),
    "query-key-upper-case": Placement(
        ("AIzaSyUpperKey0123456789abcdefghijklm",), query="KEY=AIzaSyUpperKey0123456789abcdefghijklm"
    ),
    "query-x-goog-api-key": Placement(
        ("AIzaSyGoogQuery0123456789abcdefghijkl",), query="x-goog-api-key=AIzaSyGoogQuery0123456789abcdefghijkl"
    ),
    "aws-sigv4-headers": Placement(
        (AKID, SIGNATURE, SESSION_TOKEN),
        headers={"Authorization": SIGV4, "X-Amz-Security-Token": SESSION_TOKEN, "X-Amz-Date": "20260101T000000Z"},
        path="/model/anthropic.claude/converse",
    ),
    "aws-presigned-query": Placement(
        (AKID, SIGNATURE, SESSION_TOKEN),
        path="/model/anthropic.claude/converse",
        query=(
            f"X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={quote(AKID + SCOPE, safe='')}"
            f"&X-Amz-Security-Token={quote(SESSION_TOKEN, safe='')}&X-Amz-Signature={SIGNATURE}"
        ),
    ),
    "cookie": Placement(
        ("cookie-session-0123456789abcdef",), headers={"Cookie": "session=cookie-session-0123456789abcdef; theme=dark"}
    ),
    "helicone-auth": Placement(
        ("sk-helicone-0123456789abcdef",), headers={"Helicone-Auth": "Bearer sk-helicone-0123456789abcdef"}
    ),
    "x-portkey-api-key": Placement(
        ("pk-portkey-0123456789abcdef",), headers={"x-portkey-api-key": "pk-portkey-0123456789abcdef"}
    ),
    "cf-aig-authorization": Placement(
        ("cf-gateway-token-0123456789",), headers={"cf-aig-authorization": "Bearer cf-gateway-token-0123456789"}
    ),
    "url-path-segment": Placement(
        ("sk-path-0123456789abcdef",),
        path="/v1/keys/sk-path-0123456789abcdef/chat/completions",
        environment={"OPENAI_API_KEY": "sk-path-0123456789abcdef"},
    ),
    "json-request-field": Placement(
        ("sk-json-field-0123456789",), json_body={"model": "m", "api_key": "sk-json-field-0123456789"}
    ),
    "json-request-field-nested": Placement(
        ("sk-nested-field-0123456789",), json_body={"auth": {"apiKey": "sk-nested-field-0123456789"}, "messages": []}
    ),
    "form-request-field": Placement(
        ("form-secret-0123456789abc",), form_body="grant_type=x&client_secret=form-secret-0123456789abc"
    ),
    "echoed-environment-key": Placement(
        ("sk-env-only-0123456789abcdef",),
        json_body={"messages": [{"role": "user", "content": "my key is sk-env-only-0123456789abcdef"}]},
        environment={"ANTHROPIC_API_KEY": "sk-env-only-0123456789abcdef"},
    ),
    "json-request-field-token": Placement(
        ("tok-field-0123456789abcdef",), json_body={"model": "m", "token": "tok-field-0123456789abcdef"}
    ),
    "json-request-field-secret": Placement(
        ("plain-secret-0123456789abc",), json_body={"model": "m", "options": [{"secret": "plain-secret-0123456789abc"}]}
    ),
    "json-request-field-password-deep": Placement(
        ("deep-password-0123456789",),
        json_body={"model": "m", "a": {"b": [{"c": {"d": {"password": "deep-password-0123456789"}}}]}},
    ),
    "json-inside-a-string": Placement(
        ("embedded-api-key-0123456789",),
        json_body={
            "model": "m",
            "messages": [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "login", "arguments": '{"api_key": "embedded-api-key-0123456789"}'},
                        }
                    ],
                }
            ],
        },
    ),
    "ocp-apim-subscription-key": Placement(
        ("apim-subscription-0123456789",), headers={"Ocp-Apim-Subscription-Key": "apim-subscription-0123456789"}
    ),
    "x-upstream-key": Placement(
        ("upstream-key-0123456789abc",), headers={"X-Upstream-Key": "upstream-key-0123456789abc"}
    ),
    "url-userinfo-password": Placement(("userinfo-password-0123456789",), userinfo="user:userinfo-password-0123456789"),
    "unknown-provider-key-shape": Placement(
        ("sk-proj-shapeonly0123456789abcdef",),
        json_body={"messages": [{"role": "user", "content": "use sk-proj-shapeonly0123456789abcdef please"}]},
    ),
    "special-characters": Placement(
        ("wJalrXUtnFEMI/K7MDENG+bPxRfiCY=KEY",), headers={"Authorization": "Bearer wJalrXUtnFEMI/K7MDENG+bPxRfiCY=KEY"}
    ),
}


def forbidden_forms(secret: str) -> set[str]:
    """The secret's exact text, its base64 (either alphabet, padded or not) and URL-encoded forms."""
    raw = secret.encode()
    forms = {secret, quote(secret, safe=""), quote_plus(secret)}
    for encoded in (base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()):
        forms |= {encoded, encoded.rstrip("=")}
    return forms


def _record(placement: Placement, server: str, path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    for name, value in placement.environment.items():
        monkeypatch.setenv(name, value)
    settings = vcr_settings("once", {})
    with vcr.VCR(**settings["vcr"]).use_cassette(str(path), **settings["cassette"]), httpx.Client() as client:
        for encoding in ENCODINGS:
            query = "&".join(q for q in (placement.query, f"encoding={encoding}") if q)
            url = f"{server}{placement.path}?{query}"
            if placement.userinfo:
                url = url.replace("://", f"://{placement.userinfo}@", 1)
            if placement.form_body is not None:
                headers = {**placement.headers, "content-type": "application/x-www-form-urlencoded"}
                client.post(url, content=placement.form_body, headers=headers)
            else:
                client.post(url, json=placement.json_body or {"model": "m"}, headers=placement.headers)
    return path.read_text()


@pytest.mark.parametrize("name", sorted(PLACEMENTS))
def test_no_credential_reaches_the_cassette(
    name: str, server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    placement = PLACEMENTS[name]
    path = tmp_path / f"{name}.yaml"
    text = _record(placement, server, path, monkeypatch)
    for secret in placement.secrets:
        found = sorted(form for form in forbidden_forms(secret) if form in text)
        assert not found, f"{name}: {secret!r} reached the cassette as {found}"
    assert SCRUBBED in text
    cassette = load_cassette(path)  # still a cassette
    assert len(cassette) == len(ENCODINGS)
    stream = cassette.interactions[ENCODINGS.index("eventstream")].response
    assert [m.payload[:1] for m in eventstream.decode(stream.body)] == [b"{"]  # re-framed, CRCs intact
    for encoding in ("gzip-raw", "gzip-members", "deflate", "deflate-raw"):
        assert json.loads(cassette.interactions[ENCODINGS.index(encoding)].response.body)["path"], encoding


def test_a_recording_run_scrubs_the_key_the_client_sends_and_the_server_echoes(
    tmp_path: Path, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole record path of a client run: the provider key comes from the environment."""
    secret = "sk-proj-recorded-run-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    settings = vcr_settings("all", {"filter_headers": ["x-team-token"]})
    path = tmp_path / "run.yaml"
    with vcr.VCR(**settings["vcr"]).use_cassette(str(path), **settings["cassette"]), httpx.Client() as client:
        client.post(f"{server}/v1/chat/completions?encoding=gzip", json={"note": f"echo {secret}"})
    text = path.read_text()
    assert not [f for f in forbidden_forms(secret) if f in text]


def test_the_user_hooks_see_scrubbed_requests(tmp_path: Path, server: str) -> None:
    seen: list[str] = []

    def hook(request: Any) -> Any:
        seen.append(str(request.headers.get("authorization")))
        return request

    settings = vcr_settings("once", {"before_record_request": hook})
    path = tmp_path / "hooked.yaml"
    with vcr.VCR(**settings["vcr"]).use_cassette(str(path), **settings["cassette"]), httpx.Client() as client:
        client.post(f"{server}/v1/chat/completions", json={}, headers={"Authorization": "Bearer sk-hook-0123456789"})
    assert seen and all(s == SCRUBBED for s in seen)


def test_a_replay_scrubs_by_name_only_and_writes_nothing(tmp_path: Path) -> None:
    settings = vcr_settings("none", {})
    assert settings["vcr"]["record_mode"] == "none"
    assert {h for h, _ in settings["vcr"]["filter_headers"]} >= {
        "authorization",
        "helicone-auth",
        "cf-aig-authorization",
    }


# --- the scrubber on its own: what another writer of cassettes calls -------------------------


def test_every_form_of_a_learned_secret_is_scrubbed() -> None:
    secret = "sk-unit-0123456789abcdef+/="
    scrubber = Scrubber([secret], from_environment=False)
    for form in forbidden_forms(secret):
        assert SCRUBBED in scrubber.text(f"before {form} after"), form
    embedded = base64.b64encode(b"xy:" + secret.encode() + b":tail").decode()
    assert embedded != scrubber.text(embedded)  # found inside a longer base64 value
    assert scrubber.text(json.dumps({"k": secret})) == json.dumps({"k": SCRUBBED})


def test_short_values_are_scrubbed_where_they_sit_but_not_searched_for() -> None:
    scrubber = Scrubber(["abc"], from_environment=False)
    assert scrubber.secrets == frozenset()
    assert scrubber.headers({"Authorization": "abc"}) == {"Authorization": SCRUBBED}
    assert scrubber.text("abcdef") == "abcdef"


def test_a_credential_header_teaches_its_pieces() -> None:
    scrubber = Scrubber(from_environment=False)
    scrubber.headers({"Authorization": SIGV4})
    assert {AKID, SIGNATURE} <= scrubber.secrets
    assert all(s not in scrubber.text(f"{AKID} {SIGNATURE}") for s in (AKID, SIGNATURE))


def test_secret_forms_are_longest_first() -> None:
    forms = secret_forms("sk-0123456789/abc")
    assert forms == sorted(forms, key=len, reverse=True)


def test_scrub_cassette_learns_from_every_interaction_before_scrubbing_any() -> None:
    late = "sk-late-0123456789abcdef"
    data = {
        "interactions": [
            {
                "request": {"method": "POST", "uri": "https://api.example.com/v1/x", "headers": {}, "body": "{}"},
                "response": {"status": {"code": 200}, "headers": {}, "body": {"string": f'{{"echo": "{late}"}}'}},
            },
            {
                "request": {
                    "method": "POST",
                    "uri": f"https://api.example.com/v1/x?key={late}",
                    "headers": {"authorization": [f"Bearer {late}"]},
                    "parsed_body": {"api_key": late, "messages": []},
                },
                "response": {"status": {"code": 200}, "headers": {"set-cookie": [f"s={late}"]}, "body": {"string": ""}},
            },
        ]
    }
    scrubbed = scrub_cassette(data, from_environment=False)
    text = yaml.safe_dump(scrubbed)
    assert late not in text
    assert scrubbed["interactions"][1]["request"]["parsed_body"] == {"api_key": SCRUBBED, "messages": []}
    assert data["interactions"][0]["response"]["body"]["string"].count(late) == 1  # the input is left alone


# --- `conformance import`: the same placements in a third-party recording -------------------


def _placed(interaction: dict[str, Any], placement: Placement) -> dict[str, Any]:
    """The bundled interaction with the placement's credential where the placement puts it."""
    from interactions import request_body, with_request_body

    body = request_body(interaction)
    for key, value in (placement.json_body or {}).items():
        if key == "messages":
            body["messages"] = [*body["messages"], *value]
        elif key != "model":
            body[key] = value
    placed = with_request_body(interaction, body)
    request = placed["request"]
    for name, value in placement.headers.items():
        request["headers"][name] = [value]
    if placement.query:
        request["uri"] += ("&" if "?" in request["uri"] else "?") + placement.query
    if placement.userinfo:
        request["uri"] = request["uri"].replace("://", f"://{placement.userinfo}@", 1)
    return placed


IMPORTABLE = sorted(n for n, p in PLACEMENTS.items() if p.form_body is None and p.path == "/v1/chat/completions")


@pytest.mark.parametrize("name", IMPORTABLE)
def test_import_writes_no_credential_either(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, corpus: Corpus
) -> None:
    from interactions import bundled_interactions

    from conformance.importer import Options, import_cassette

    placement = PLACEMENTS[name]
    for variable, value in placement.environment.items():
        monkeypatch.setenv(variable, value)
    first, second = bundled_interactions("openai-chat/one-call.yaml")
    source = tmp_path / "source.yaml"
    # The credential in the later interaction: learned there, scrubbed from the earlier one too.
    echoed = copy.deepcopy(first)
    echoed["response"]["body"]["string"] = echoed["response"]["body"]["string"].replace(
        '"content": null', f'"content": "echo {" ".join(placement.secrets)}"', 1
    )
    source.write_text(yaml.safe_dump({"interactions": [echoed, _placed(second, placement)], "version": 1}))
    # A user's own recording, imported as it is: the scrubber alone stands between it and the disk.
    report = import_cassette(source, corpus, Options(output=tmp_path / "out", revoice=False))
    assert report.imported, report
    text = report.imported[0].cassette_path.read_text()
    for secret in placement.secrets:
        found = sorted(form for form in forbidden_forms(secret) if form in text)
        assert not found, f"{name}: {secret!r} reached the imported cassette as {found}"
    assert SCRUBBED in text


# --- compressed bodies: every coding, every member, every size ------------------------------

ENCODED_SECRET = "field-only-secret-0123456789abcdef"  # no provider key shape: found by name only


def _deflate(data: bytes, wbits: int) -> bytes:
    compressor = zlib.compressobj(wbits=wbits)
    return compressor.compress(data) + compressor.flush()


def _opened_text(body: bytes) -> str:
    """Everything a body holds, whatever coding it is in: what a reader of the cassette could recover."""
    out = body
    for wbits in (zlib.MAX_WBITS | 16, zlib.MAX_WBITS, -zlib.MAX_WBITS):
        try:
            stream = zlib.decompressobj(wbits)
            out = body
            pieces = []
            while out:
                stream = zlib.decompressobj(wbits)
                pieces.append(stream.decompress(out))
                out = stream.unused_data
            return b"".join(pieces).decode("utf-8", "replace") + body.decode("latin-1")
        except zlib.error:
            continue
    return body.decode("latin-1")


def _interaction(request_body: bytes, request_coding: str, response_body: bytes, response_coding: str) -> Any:
    return {
        "request": {
            "method": "POST",
            "uri": "https://api.example.com/v1/chat/completions",
            "headers": {"content-type": ["application/json"], "content-encoding": [request_coding]},
            "body": request_body,
        },
        "response": {
            "status": {"code": 200},
            "headers": {"content-type": ["application/json"], "content-encoding": [response_coding]},
            "body": {"string": response_body},
        },
    }


PLAIN_REQUEST = json.dumps({"model": "m", "api_key": ENCODED_SECRET, "messages": []}).encode()
ECHO = json.dumps({"echo": f"the key was {ENCODED_SECRET}", "tail": "kept-after-the-secret"}).encode()
CODED = {
    "gzip": gzip.compress,
    "gzip-members": lambda b: gzip.compress(b[: len(b) // 2]) + gzip.compress(b[len(b) // 2 :]),
    "deflate": lambda b: _deflate(b, zlib.MAX_WBITS),
    "deflate-raw": lambda b: _deflate(b, -zlib.MAX_WBITS),
}


@pytest.mark.parametrize("coding", sorted(CODED))
def test_a_compressed_body_is_opened_scrubbed_by_field_and_value_and_kept_whole(coding: str) -> None:
    header = "gzip" if coding.startswith("gzip") else "deflate"
    raw = _interaction(CODED[coding](PLAIN_REQUEST), header, CODED[coding](ECHO), header)
    scrubbed = scrub_cassette({"interactions": [raw]}, from_environment=False)["interactions"][0]
    request, response = scrubbed["request"]["body"], scrubbed["response"]["body"]["string"]
    for body in (request, response):
        found = [form for form in forbidden_forms(ENCODED_SECRET) if form in _opened_text(body)]
        assert not found, f"{coding}: the secret survived as {found}"
    # Still readable, and nothing after the secret was lost (a second member, the rest of the stream).
    assert json.loads(_opened_text(response).partition("}")[0] + "}")["tail"] == "kept-after-the-secret"


def test_a_compressed_body_past_the_bound_or_cut_off_is_never_written_as_it_is() -> None:
    from conformance.recordings.bounds import MAX_BODY_BYTES

    huge = gzip.compress(ECHO + b" " * (MAX_BODY_BYTES + 1), compresslevel=1)
    cut = gzip.compress(ECHO * 50)[:-20]
    for body in (huge, cut):
        scrubbed = Scrubber([ENCODED_SECRET], from_environment=False).data(body, "application/json", "gzip")
        assert scrubbed.startswith(SCRUBBED.encode()), scrubbed[:80]
        assert ENCODED_SECRET.encode() not in scrubbed
