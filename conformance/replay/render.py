"""A recorded response in the form a request asks for: the one re-framer every replay path uses.

A client that streams gets a stream even when the recording was made without one, and the other
way round; a Gemini client that asks for server-sent events gets them from a JSON-array recording.
Where the recorded form is the asked one, the recorded bytes go out unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from conformance.engine.wire import Served
from conformance.recordings.cassette import HttpResponse
from conformance.recordings.recording import SCRUBBED
from conformance.replay.transports.base import (
    FRAMING_TYPES,
    JSON_TYPE,
    Answer,
    ReframeError,
    Route,
    Transport,
    events_in,
)

# Headers that describe the recorded bytes, not the ones sent now.
_BYTES_HEADERS = frozenset({"content-type", "content-length", "content-encoding", "transfer-encoding"})


def kept_headers(headers: Mapping[str, tuple[str, ...]]) -> dict[str, str]:
    # A scrubbed value is not what the provider sent, and can be no valid value of its header (a
    # `set-cookie: <scrubbed>` is a cookie without a name, which some HTTP clients refuse outright).
    return {
        name: values[0]
        for name, values in headers.items()
        if values and name not in _BYTES_HEADERS and not any(SCRUBBED in value for value in values)
    }


def render(transport: Transport, recorded: HttpResponse, served: Served, route: Route) -> Answer:
    """Raises ReframeError when the recording cannot be served in the asked form."""
    headers = kept_headers(recorded.headers)
    if recorded.status >= 400:
        # An error the provider served is an error whatever form was asked for.
        content_type = recorded.content_type or JSON_TYPE
        return Answer(recorded.status, recorded.body, {**headers, "content-type": content_type})
    framing = transport.recorded_framing(served.payload, recorded.content_type, recorded.body)
    if framing == route.framing:
        content_type = next(iter(recorded.headers.get("content-type", ())), "") or FRAMING_TYPES[framing]
        return Answer(recorded.status, recorded.body, {**headers, "content-type": content_type})
    if not route.stream:
        body = transport.body_of(served.payload)
        if body is None:
            raise ReframeError("the recorded stream holds no response to serve whole")
        return Answer(
            recorded.status, json.dumps(body, ensure_ascii=False).encode(), {**headers, "content-type": JSON_TYPE}
        )
    # A recorded stream goes out as the same events in another framing; a whole body as the stream
    # the provider sends for it.
    events = events_in(served.payload) if served.stream else transport.events_of(served.payload.get("body"))
    content_type, data = transport.frame(events, route.framing)
    return Answer(recorded.status, data, {**headers, "content-type": content_type})
