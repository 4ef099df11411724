"""A recorded response served with another body: the same status and headers, the body built into the
recorded framing (one JSON body, or the API's stream: SSE, a JSON array, NDJSON, AWS event-stream).

The suite's closing answer (conformance.replay.closing) and a turn served under the names the client
declared its tools by (conformance.replay.renaming) are both a recorded response with its body changed.
"""

from __future__ import annotations

import json
from typing import Any

from conformance.recordings.cassette import HttpResponse
from conformance.replay.transports.base import Transport

# Headers that describe the recorded bytes, not the ones served now.
_BYTES_HEADERS = frozenset({"content-length", "content-encoding", "transfer-encoding"})


def rebuilt_response(recorded: HttpResponse, payload: Any, body: dict[str, Any], transport: Transport) -> HttpResponse:
    """`recorded` with `body` in its place, framed as `recorded` was (`payload` is what the dialect read
    of it). Raises ReframeError or ValueError where the body has no form in that framing."""
    framing = transport.recorded_framing(payload, recorded.content_type, recorded.body)
    if framing == "json":
        content_type, data = "application/json", json.dumps(body, ensure_ascii=False).encode()
    else:
        content_type, data = transport.frame(transport.events_of(body), framing)
    headers = {k: v for k, v in recorded.headers.items() if k not in _BYTES_HEADERS}
    headers.setdefault("content-type", (content_type,))
    return HttpResponse(status=recorded.status, headers=headers, body=data)
