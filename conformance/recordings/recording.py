"""vcrpy settings for replaying and recording provider traffic, with every credential scrubbed.

Recording writes whatever went over the wire, so credentials are removed before anything reaches
disk, in two ways:

- by name: request headers that carry credentials (OpenAI and Mistral `Authorization`, Anthropic
  `x-api-key`, Gemini `x-goog-api-key`, Azure `api-key`, cookies, AWS SigV4 headers, gateway
  headers such as Helicone's `helicone-auth`, Portkey's `x-portkey-api-key`, Cloudflare's
  `cf-aig-authorization`, Azure API Management's `Ocp-Apim-Subscription-Key`, and any header whose
  name says auth, token, secret, signature or ends in key), query parameters (`key`,
  `x-goog-api-key`, presigned `X-Amz-Security-Token`, `X-Amz-Credential`, `X-Amz-Signature`, ...;
  names compared without regard to case), a URL's userinfo password, JSON and form body fields
  (`api_key`, `token`, `secret`, `password`, ...) at any depth and inside JSON carried in strings,
  and response cookies;
- by shape: anything shaped like a provider key (`sk-...`, `AIza...`, AWS access key ids, ...) or
  a Bearer token, wherever it stands, known or not;
- by value: every credential the run knows (the provider key variables of the environment, and
  every value seen in one of the places above) is replaced wherever it appears: URL path
  segments, bodies (gzip and event-stream bodies opened, scrubbed and closed again), echoed in a
  response, and in its URL-encoded, JSON-escaped and base64 forms (base64 at any alignment, so a
  key inside a longer encoded value is found too). The cassette's text is scrubbed once more as
  it is written.

The scrubbing cannot be turned off by a user's `vcr_config`; it is merged under it. `Scrubber`
and `scrub_cassette` are what every other writer of cassettes uses (`conformance import`): one
scrubber for every path that writes.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, urlencode, urlsplit, urlunsplit

from conformance.recordings.bounds import MAX_BODY_BYTES
from conformance.recordings.encodings import OPENED, EncodingError, codings, decode, looks_gzip, looks_zlib
from conformance.recordings.encodings import encode as encode_body

SCRUBBED = "<scrubbed>"

SECRET_HEADERS = (
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "x-goog-api-key",
    "api-key",
    "cookie",
    "x-amz-security-token",
    "x-amz-date",
    "openai-organization",
    "openai-project",
    "helicone-auth",
    "x-portkey-api-key",
    "cf-aig-authorization",
)
SECRET_QUERY_PARAMETERS = (
    "key",
    "api_key",
    "api-key",
    "apikey",
    "access_token",
    "token",
    "sig",
    "signature",
    "x-goog-api-key",
    "x-amz-security-token",
    "x-amz-credential",
    "x-amz-signature",
    "client_secret",
    "password",
)
SECRET_RESPONSE_HEADERS = ("set-cookie", "openai-organization", "openai-project", "anthropic-organization-id")
# JSON and form body fields, compared lower-case without `-` and `_`.
SECRET_BODY_FIELDS = (
    "api_key",
    "x-api-key",
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "secret_access_key",
    "aws_secret_access_key",
    "session_token",
    "aws_session_token",
    "password",
    "passwd",
    "token",
    "auth_token",
    "api_token",
    "bearer_token",
    "secret",
    "secret_key",
    "private_key",
    "subscription_key",
    "credentials",
)
# A dummy credential: replays never reach a provider, and recordings scrub whatever is sent.
REPLAY_API_KEY = "conformance-replay-key"

# Where a recording run finds the real credential (a replay needs none; recordings scrub it).
API_KEY_VARIABLES = {
    "openai-chat": "OPENAI_API_KEY",
    "openai-responses": "OPENAI_API_KEY",
    "openresponses": "OPENAI_API_KEY",
    "mistral-responses": "MISTRAL_API_KEY",
    "ollama-responses": "OLLAMA_API_KEY",
    "ollama-messages": "OLLAMA_API_KEY",
    "azure-foundry": "AZURE_OPENAI_API_KEY",
    "anthropic-messages": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "gemini-interactions": "GEMINI_API_KEY",
    "mistral-chat": "MISTRAL_API_KEY",
    "kimi-chat": "MOONSHOT_API_KEY",
    "ollama-chat": "OLLAMA_API_KEY",
    "cohere-v2": "CO_API_KEY",
    "bedrock-converse": "AWS_BEARER_TOKEN_BEDROCK",
}

# Environment variables holding credentials, besides each API's key variable (API_KEY_VARIABLES).
CREDENTIAL_VARIABLES = (
    "OPENAI_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "MISTRAL_API_KEY",
    "MOONSHOT_API_KEY",
    "OLLAMA_API_KEY",
    "CO_API_KEY",
    "COHERE_API_KEY",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "HELICONE_API_KEY",
    "PORTKEY_API_KEY",
    "CF_AIG_TOKEN",
    "OPENROUTER_API_KEY",
)
# Values shorter than this are scrubbed where they sit, never searched for elsewhere: a short
# value would match ordinary text.
MIN_SECRET_LENGTH = 8
# Scrubbed where they sit, but not secrets to search for (a request's timestamp).
_NOT_SECRETS = frozenset({"x-amz-date"})
_CREDENTIAL_NAME = re.compile(
    r"auth|api[-_]?key|token(?!s)|secret|signature|credential|password|cookie|key$", re.IGNORECASE
)
# Shapes of provider keys and tokens: OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), Google (AIza),
# AWS access key ids, GitHub, Groq, Slack, Hugging Face, and bearer tokens. A key starts a token:
# not the middle of a longer base64 run (thought signatures, encrypted content).
KEY_SHAPES = re.compile(
    r"(?<![A-Za-z0-9_+/=-])(?:"
    r"sk-(?:ant-|proj-|svcacct-)?[A-Za-z0-9_-]{20,}"
    r"|AIza[0-9A-Za-z_-]{35}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|gh[pousr]_[A-Za-z0-9]{36,}"
    r"|gsk_[A-Za-z0-9]{40,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"
    r"|hf_[A-Za-z0-9]{30,}"
    r")"
)
_BEARER = re.compile(r"(?i)\b(bearer\s+)(?!<scrubbed>)[A-Za-z0-9._~+/=-]{8,}")
_KEY_SHAPES_BYTES = re.compile(KEY_SHAPES.pattern.encode())
_BEARER_BYTES = re.compile(_BEARER.pattern.encode())

RECORD_MODES = ("none", "once", "new_episodes", "all")


def _field(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "")


_BODY_FIELDS = frozenset(_field(n) for n in SECRET_BODY_FIELDS)
# Names that also mean something else (a logprob's `token`): scrubbed where they sit, but searched
# for elsewhere only when the value looks like a credential, lest a word be cut out of every body.
_AMBIGUOUS_FIELDS = frozenset({"token", "secret"})
# A field's name closed by its quote, plain or escaped inside a string.
_FIELD_KEYS = (*(f'{n}"'.encode() for n in _BODY_FIELDS), *(f'{n}\\"'.encode() for n in _BODY_FIELDS))


def _base64_forms(raw: bytes) -> set[str]:
    """The secret's base64 text, and the text its bytes give at each alignment inside a longer value."""
    forms: set[str] = set()
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(raw).decode("ascii")
        forms |= {whole, whole.rstrip("=")}
        for skip in range(3):
            groups = (len(raw) - skip) // 3
            if groups >= 3:  # at least twelve characters: short cores would match by chance
                forms.add(encode(raw[skip : skip + 3 * groups]).decode("ascii"))
    return forms


def secret_forms(secret: str) -> list[str]:
    """Every form of a secret that is searched for: itself, URL-encoded (either case of hex),
    JSON-escaped, base64; longest first, so that no form leaves a piece of a longer one."""
    raw = secret.encode("utf-8", "surrogatepass")
    forms = {secret, quote(secret, safe=""), quote(secret), quote_plus(secret)}
    forms |= {re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), f) for f in list(forms)}
    forms |= {json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}
    forms |= _base64_forms(raw)
    return sorted((f for f in forms if len(f) >= MIN_SECRET_LENGTH), key=len, reverse=True)


def environment_secrets() -> set[str]:
    """The credentials the environment holds for the providers."""

    names = {*CREDENTIAL_VARIABLES, *API_KEY_VARIABLES.values()}
    return {value for name in names if (value := os.environ.get(name, "").strip())}


class Scrubber:
    """Removes credentials by name and by value; learns every credential it removes by name, so
    that it is removed by value everywhere else too. One scrubber per recording: what it learns
    from a request also scrubs the responses and the requests after it."""

    def __init__(self, secrets: Iterable[str] = (), *, from_environment: bool = True) -> None:
        self._secrets: set[str] = set()
        self._forms: list[str] = []
        self._forms_bytes: list[bytes] = []
        for secret in [*secrets, *(environment_secrets() if from_environment else ())]:
            self.learn(secret)

    @property
    def secrets(self) -> frozenset[str]:
        return frozenset(self._secrets)

    def learn(self, value: str) -> None:
        """A credential to remove wherever it appears, with the pieces it is made of (a Bearer
        token, a Basic pair's password, a SigV4 header's access key and signature)."""
        for secret in _pieces(value.strip()):
            if len(secret) >= MIN_SECRET_LENGTH and secret not in self._secrets and secret != SCRUBBED:
                self._secrets.add(secret)
                forms = set(self._forms) | set(secret_forms(secret))
                self._forms = sorted(forms, key=len, reverse=True)
                self._forms_bytes = [f.encode("utf-8", "surrogatepass") for f in self._forms]

    # --- text and bytes ---------------------------------------------------------------------

    def text(self, text: str) -> str:
        for shaped in KEY_SHAPES.findall(text):  # a provider key nobody named: its encoded forms go too
            self.learn(shaped)
        for form in self._forms:
            if form in text:
                text = text.replace(form, SCRUBBED)
        return _BEARER.sub(lambda m: m.group(1) + SCRUBBED, KEY_SHAPES.sub(SCRUBBED, text))

    def data(self, data: bytes, content_type: str = "", encoding: str = "") -> bytes:
        """A body's bytes (`encoding`: its Content-Encoding): a compressed body is opened, scrubbed (fields by
        name, then every value) and closed again, so that it stays readable; one that cannot be opened is
        never written as it is, but replaced by a line saying why."""
        if not data:
            return data
        try:
            opened = _opened(data, encoding)
        except EncodingError as exc:
            return f"{SCRUBBED} a {encoding or 'gzip'} body the scrubber could not open: {exc}".encode()
        if opened is None:
            return self._plain(data, content_type)
        coding, inflated = opened
        scrubbed = self._plain(inflated, content_type)
        return data if scrubbed == inflated else encode_body(scrubbed, coding)

    def _plain(self, data: bytes, content_type: str) -> bytes:
        fields = self._fields(data, content_type)
        if fields is not None:
            data = fields
        if "amazon.eventstream" in content_type:
            framed = self._event_stream(data)
            if framed is not None:
                return framed
        return self._bytes(data)

    def _bytes(self, data: bytes) -> bytes:
        replacement = SCRUBBED.encode()
        for shaped in _KEY_SHAPES_BYTES.findall(data):
            self.learn(shaped.decode("ascii"))
        for form in self._forms_bytes:
            if form in data:
                data = data.replace(form, replacement)
        data = _KEY_SHAPES_BYTES.sub(replacement, data)
        return _BEARER_BYTES.sub(lambda m: m.group(1) + replacement, data)

    def _event_stream(self, data: bytes) -> bytes | None:
        from conformance.recordings import eventstream

        try:
            messages = eventstream.decode(data)
        except eventstream.EventStreamError:
            return None
        return b"".join(
            eventstream.encode(
                {k: self.text(v) if isinstance(v, str) else v for k, v in m.headers.items()},
                self._bytes(m.payload),
            )
            for m in messages
        )

    def value(self, value: Any) -> Any:
        """JSON-like data (a parsed body): credential fields by name, every string by value."""
        if isinstance(value, dict):
            out: dict[Any, Any] = {}
            for key, item in value.items():
                if isinstance(key, str) and _field(key) in _BODY_FIELDS and isinstance(item, str):
                    if _field(key) not in _AMBIGUOUS_FIELDS or _credential_like(item):
                        self.learn(item)
                    out[key] = SCRUBBED
                else:
                    out[self.text(key) if isinstance(key, str) else key] = self.value(item)
            return out
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if isinstance(value, str):
            return self.text(self._embedded(value))
        if isinstance(value, bytes):
            return self.data(value)
        return value

    def _embedded(self, value: str) -> str:
        """JSON carried in a string (tool arguments, a serialized config), its credential fields scrubbed."""
        if value.lstrip()[:1] not in ("{", "[") or not _names_a_field(value.lower().encode("utf-8", "replace")):
            return value
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            return value
        scrubbed = self.value(parsed)
        return value if scrubbed == parsed else json.dumps(scrubbed, ensure_ascii=False)

    # --- the places credentials sit ------------------------------------------------------------

    def uri(self, uri: str) -> str:
        """Key query parameters by name (any case), then every known credential by value."""
        try:
            parts = urlsplit(uri)
            pairs = parse_qsl(parts.query, keep_blank_values=True)
            password = parts.password
        except ValueError:
            return self.text(uri)
        if password:
            self.learn(password)
            userinfo, _, host = parts.netloc.rpartition("@")
            user = userinfo.partition(":")[0]
            parts = parts._replace(netloc=f"{user}:{SCRUBBED}@{host}")
            uri = urlunsplit(parts)
        if any(_secret_parameter(name) for name, _ in pairs):
            for name, value in pairs:
                if _secret_parameter(name):
                    self.learn(value)
            query = urlencode([(n, SCRUBBED if _secret_parameter(n) else v) for n, v in pairs])
            uri = urlunsplit(parts._replace(query=query))
        return self.text(uri)

    def headers(self, headers: Mapping[str, Any], *, response: bool = False) -> dict[str, Any]:
        """Credential headers by name (learning their values), then every value by value."""
        out: dict[str, Any] = {}
        for name, value in headers.items():
            values = value if isinstance(value, list) else [value]
            if _secret_header(str(name), response):
                for v in values:
                    if isinstance(v, str) and str(name).lower() not in _NOT_SECRETS:
                        self.learn(_cookie_value(v) if str(name).lower() == "set-cookie" else v)
                    if isinstance(v, str) and str(name).lower() == "cookie":  # each cookie's value on its own
                        for pair in v.split(";"):
                            self.learn(pair.partition("=")[2])
                out[name] = [SCRUBBED] * len(values) if isinstance(value, list) else SCRUBBED
            else:
                out[name] = [self.text(v) if isinstance(v, str) else v for v in values]
                if not isinstance(value, list):
                    out[name] = out[name][0]
        return out

    def body(self, body: Any, content_type: str = "", encoding: str = "") -> Any:
        """A request or response body as vcrpy holds it (bytes, text, or None)."""
        if body is None:
            return None
        if isinstance(body, str):
            scrubbed = self.body(body.encode("utf-8", "surrogatepass"), content_type, encoding)
            return scrubbed.decode("utf-8", "surrogatepass")
        if not isinstance(body, bytes):
            return body
        return self.data(body, content_type, encoding)

    def _fields(self, body: bytes, content_type: str) -> bytes | None:
        """A JSON or form body with its credential fields scrubbed by name; None when it has none."""
        if "x-www-form-urlencoded" in content_type:
            try:
                pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True)
            except (UnicodeDecodeError, ValueError):
                return None
            if not any(_field(n) in _BODY_FIELDS or _secret_parameter(n) for n, _ in pairs):
                return None
            for name, value in pairs:
                if _field(name) in _BODY_FIELDS or _secret_parameter(name):
                    self.learn(value)
            secret = {n for n, _ in pairs if _field(n) in _BODY_FIELDS or _secret_parameter(n)}
            return urlencode([(n, SCRUBBED if n in secret else v) for n, v in pairs]).encode()
        if body.lstrip()[:1] not in (b"{", b"["):
            return None
        if not _names_a_field(body.lower()):
            return None  # the common case: no credential field, no parse
        try:
            parsed = json.loads(body)
            scrubbed = self.value(parsed)
        except (ValueError, RecursionError):
            return None
        if scrubbed == parsed:
            return None
        return json.dumps(scrubbed, ensure_ascii=False).encode("utf-8", "surrogatepass")

    def request(self, request: Any) -> Any:
        """A vcrpy Request, scrubbed in place (vcrpy hands the hooks a copy)."""
        request.headers = self.headers(dict(request.headers))
        content_type = _content_type(request.headers)
        encoding = _header(request.headers, "content-encoding")
        body = request.body
        if hasattr(body, "getvalue"):
            body = body.getvalue()
        if isinstance(body, bytes | str):
            request.body = self.body(body, content_type, encoding)
        request.uri = self.uri(request.uri)
        request.headers = self.headers(dict(request.headers))  # values learned from the body and the URI
        return request

    def response(self, response: dict[str, Any]) -> dict[str, Any]:
        """A vcrpy response dict ({"status", "headers", "body": {"string"}})."""
        headers = response.get("headers")
        if isinstance(headers, Mapping):
            response["headers"] = self.headers(headers, response=True)
        content_type = _content_type(response.get("headers"))
        encoding = _header(response.get("headers"), "content-encoding")
        body = response.get("body")
        if isinstance(body, dict) and "string" in body:
            response["body"] = {**body, "string": self.body(body["string"], content_type, encoding)}
        return response

    def interaction(self, interaction: Mapping[str, Any]) -> dict[str, Any]:
        """One interaction of a cassette as it is stored ({"request": {...}, "response": {...}})."""
        out = dict(interaction)
        request = dict(out.get("request") or {})
        if isinstance(request.get("headers"), Mapping):
            request["headers"] = self.headers(request["headers"])
        content_type = _content_type(request.get("headers"))
        encoding = _header(request.get("headers"), "content-encoding")
        if isinstance(request.get("uri"), str):
            request["uri"] = self.uri(request["uri"])
        if "parsed_body" in request:
            request["parsed_body"] = self.value(request["parsed_body"])
        body = request.get("body")
        if isinstance(body, dict) and "string" in body:
            request["body"] = {**body, "string": self.body(body["string"], content_type, encoding)}
        else:
            request["body"] = self.body(body, content_type, encoding)
        out["request"] = request
        response = dict(out.get("response") or {})
        if "parsed_body" in response:
            response["parsed_body"] = self.value(response["parsed_body"])
        out["response"] = self.response(response)
        return out


def _credential_like(value: str) -> bool:
    return len(value) >= 16 and not any(c.isspace() for c in value)


def _names_a_field(lowered: bytes) -> bool:
    """Whether JSON text (or JSON escaped inside it) may hold a credential field: a cheap test before parsing."""
    squeezed = lowered.replace(b"_", b"").replace(b"-", b"")
    return any(name in squeezed for name in _FIELD_KEYS)


def _pieces(value: str) -> list[str]:
    """A credential's value and the credentials inside it."""
    pieces = [value]
    if value.endswith("/aws4_request"):  # a SigV4 credential scope: the access key id comes first
        pieces.append(value.partition("/")[0])
    scheme, _, rest = value.partition(" ")
    rest = rest.strip()
    if rest:
        pieces.append(rest)
        if scheme.lower() == "basic":
            try:
                pair = base64.b64decode(rest, validate=True).decode("utf-8")
            except (ValueError, UnicodeDecodeError):
                pair = ""
            pieces += [pair, pair.partition(":")[2]] if pair else []
        for item in rest.split(","):  # SigV4: Credential=AKID/date/region/service/aws4_request, ..., Signature=...
            key, _, item_value = item.strip().partition("=")
            if key.lower() in ("credential", "signature"):
                pieces += [item_value, item_value.partition("/")[0]]
    return pieces


def _cookie_value(value: str) -> str:
    return value.split(";", 1)[0].partition("=")[2]


def _secret_header(name: str, response: bool) -> bool:
    lowered = name.lower()
    if response:
        return lowered in SECRET_RESPONSE_HEADERS
    return lowered in SECRET_HEADERS or _CREDENTIAL_NAME.search(lowered) is not None


def _secret_parameter(name: str) -> bool:
    lowered = name.lower()
    return lowered in SECRET_QUERY_PARAMETERS or _CREDENTIAL_NAME.search(lowered) is not None


def _content_type(headers: Any) -> str:
    return _header(headers, "content-type").lower()


def _header(headers: Any, wanted: str) -> str:
    if not isinstance(headers, Mapping):
        return ""
    for name, value in headers.items():
        if str(name).lower() == wanted:
            values = value if isinstance(value, list) else [value]
            return str(values[0]) if values else ""
    return ""


def _opened(data: bytes, encoding: str) -> tuple[str, bytes] | None:
    """The coding a body is in and its opened bytes; None for a body in none (or opened already: recorders
    disagree on whether a stored body is still compressed, so the bytes are trusted over the header).
    EncodingError when it is compressed but cannot be opened: such a body is never written as it is."""
    named = codings(encoding)
    coding = named[-1] if named else ""
    if looks_gzip(data):
        coding = "gzip"
    elif coding == "gzip" or (not coding and not looks_zlib(data)):
        return None  # no coding, or a gzip header over bytes that are not gzip: stored opened already
    elif not coding or (coding == "deflate" and not looks_zlib(data)):
        # zlib-shaped bytes under no header, or raw deflate (which has no header to recognise it by):
        # opened when they open whole, else plain bytes.
        try:
            return "deflate", decode(data, "deflate", MAX_BODY_BYTES)
        except EncodingError:
            return None
    elif coding not in OPENED and _utf8(data):
        return None  # a coding not opened here over text: stored opened already
    return coding, decode(data, coding, MAX_BODY_BYTES)


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def scrub_cassette(
    data: Mapping[str, Any], secrets: Iterable[str] = (), *, from_environment: bool = True
) -> dict[str, Any]:
    """A whole cassette (as loaded from YAML) with every credential removed: the credentials of all
    its interactions are learned first, so that one seen late is removed from the early ones too."""
    scrubber = Scrubber(secrets, from_environment=from_environment)
    interactions = [i for i in data.get("interactions") or () if isinstance(i, Mapping)]
    for interaction in interactions:  # first pass: learn
        scrubber.interaction(interaction)
    return {**data, "interactions": [scrubber.interaction(i) for i in interactions]}


class ScrubbingPersister:
    """vcrpy's filesystem persister, scrubbing the cassette's text once more as it is written."""

    def __init__(self, scrubber: Scrubber) -> None:
        self.scrubber = scrubber

    def load_cassette(self, cassette_path: Any, serializer: Any) -> Any:
        from vcr.persisters.filesystem import FilesystemPersister  # type: ignore[import-untyped]

        return FilesystemPersister.load_cassette(cassette_path, serializer)

    def save_cassette(self, cassette_path: Any, cassette_dict: Any, serializer: Any) -> None:
        from vcr.serialize import serialize  # type: ignore[import-untyped]

        text = self.scrubber.text(serialize(cassette_dict, serializer))
        path = Path(cassette_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def vcr_settings(
    record_mode: str,
    user_config: Mapping[str, Any],
    *,
    before: Callable[[Any], Any] | None = None,
    secrets: Iterable[str] = (),
) -> dict[str, dict[str, Any]]:
    """Keyword arguments for `vcr.VCR(...)` and for `use_cassette(...)`.

    `user_config` is a pytest-recording `vcr_config`: its filters are added to the suite's, its
    hooks run after the suite's scrubbing, and it cannot change how interactions are matched.
    `secrets` are credentials to scrub besides those of the environment. A replay (`none`)
    writes nothing, so it scrubs by name only.
    """
    if record_mode not in RECORD_MODES:
        raise ValueError(f"record mode {record_mode!r}: use one of {', '.join(RECORD_MODES)}")

    recording = record_mode != "none"
    scrubber = Scrubber(secrets, from_environment=recording)
    # A recording scrubbed a key out of a URL path; a replay's client puts the replay key there, and
    # scrubbing it alike lets the paths match.
    replay_keys = Scrubber([REPLAY_API_KEY], from_environment=False)
    user = dict(user_config)

    def learned(key: str, value: Any, request: Any) -> str:  # vcrpy's filters replace through this
        if isinstance(value, str) and key.lower() not in _NOT_SECRETS:
            scrubber.learn(value)
        return SCRUBBED

    headers: list[tuple[str, Any]] = [(h, learned) for h in SECRET_HEADERS]
    headers += [h if isinstance(h, tuple) else (h, SCRUBBED) for h in user.pop("filter_headers", ())]
    query: list[tuple[str, Any]] = [(q, learned) for q in SECRET_QUERY_PARAMETERS]
    query += [q if isinstance(q, tuple) else (q, SCRUBBED) for q in user.pop("filter_query_parameters", ())]
    user_request_hook = user.pop("before_record_request", None)
    user_response_hook = user.pop("before_record_response", None)
    for ignored in ("match_on", "record_mode", "allow_playback_repeats", "persister"):
        user.pop(ignored, None)

    def request_hook(request: Any) -> Any:
        if before is not None:
            request = before(request)
        if recording and request is not None:
            request = scrubber.request(request)
        elif request is not None:
            request.uri = replay_keys.text(request.uri)
        if user_request_hook is not None and request is not None:
            request = user_request_hook(request)
        return request

    def response_hook(response: dict[str, Any]) -> dict[str, Any]:
        response = scrubber.response(response) if recording else _scrub_response_headers(response)
        return user_response_hook(response) if user_response_hook is not None else response

    return {
        "vcr": {
            **user,
            "record_mode": record_mode,
            # In order, by method and path: the host differs when a client is pointed at a proxy.
            "match_on": ("method", "path"),
            "filter_headers": headers,
            "filter_query_parameters": query,
            "decode_compressed_response": True,
        },
        "cassette": {
            "before_record_request": request_hook,
            "before_record_response": response_hook,
            "allow_playback_repeats": False,
            "persister": ScrubbingPersister(scrubber),
        },
    }


def _scrub_response_headers(response: dict[str, Any]) -> dict[str, Any]:
    headers = response.get("headers") or {}
    for name in list(headers):
        if name.lower() in SECRET_RESPONSE_HEADERS:
            headers[name] = [SCRUBBED]
    return response
