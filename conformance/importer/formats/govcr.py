"""go-vcr cassettes (Go's recorder), at each cassette version its releases write.

- go-vcr v1 writes `version: 1`: each interaction a `request` (`body`, `form`, `headers`, `url`,
  `method`) and a `response` (`body`, `headers`, `status: "200 OK"`, `code: 200`);
- v1.1 and v2 write `version: 1` with the response's `duration` (`"1.2s"`) too;
- v3 and v4 write `version: 2`: an `id`, and Go's request and response fields beside those (`proto`,
  `content_length`, `host`, `transfer_encoding`, `trailer`, `remote_addr`, `request_uri`;
  `uncompressed`, `duration`).

Headers are Go's `http.Header`, a name and a list of values; bodies are YAML strings (`!!binary` where
they are not text). A cassette tells itself from vcrpy's by its requests' `url` (vcrpy writes `uri`)
and its responses' `code` beside a status line (vcrpy writes `status: {code, message}`). The YAML is
read within the bounds every cassette is read within, and the bodies decompressed within the same
budget (conformance/recordings/bounds.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.recordings.cassette import (
    BodyBudget,
    BodyError,
    Cassette,
    CassetteError,
    Interaction,
    recorded_exchange,
)

VERSIONS = (1, 2)


def is_govcr(data: Any) -> bool:
    """Whether a cassette's YAML data is go-vcr's: an interaction's request has a `url` and no `uri`."""
    if not isinstance(data, Mapping) or not isinstance(data.get("interactions"), list):
        return False
    for raw in data["interactions"]:
        request = raw.get("request") if isinstance(raw, Mapping) else None
        if isinstance(request, Mapping):
            return "url" in request and "uri" not in request
    return False


def _code(response: Mapping[str, Any]) -> int:
    code = response.get("code")
    if isinstance(code, bool) or not isinstance(code, int):
        # A status line alone (`200 OK`) still says the code.
        status = response.get("status")
        head = status.split(" ", 1)[0] if isinstance(status, str) else ""
        if not head.isdigit():
            raise BodyError(f"the response has no `code` and its status {str(status)[:40]!r} does not start with one")
        code = int(head)
    return code


def _text(raw: Mapping[str, Any], key: str, what: str) -> str:
    value = raw.get(key, "")
    if not isinstance(value, str):
        raise BodyError(f"the {what}'s `{key}` is a {type(value).__name__}, not a string")
    return value


def from_data(data: Mapping[str, Any], path: str) -> Cassette:
    version = data.get("version")
    if version not in VERSIONS:
        raise CassetteError(path, f"go-vcr cassette version {str(version)[:20]}: versions 1 and 2 are read")
    budget = BodyBudget()
    interactions: list[Interaction] = []
    for index, raw in enumerate(data["interactions"]):
        request, response = (raw.get(k) if isinstance(raw, Mapping) else None for k in ("request", "response"))
        if not isinstance(request, Mapping) or not isinstance(response, Mapping):
            raise CassetteError(path, "a go-vcr interaction holds a `request` and a `response` mapping", index)
        try:
            sent, received = recorded_exchange(
                (
                    _text(request, "method", "request") or "GET",
                    _text(request, "url", "request"),
                    request.get("headers"),
                    request.get("body"),
                ),
                (_code(response), response.get("headers"), response.get("body")),
                budget,
            )
        except BodyError as exc:
            raise CassetteError(path, str(exc), index) from None
        interactions.append(Interaction(index=index, request=sent, response=received))
    return Cassette(path=path, interactions=tuple(interactions))
