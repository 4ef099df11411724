"""The in-process replay path: vcrpy's patches of the Python HTTP libraries, answered by a session.

vcrpy patches http.client, requests, urllib3, boto3/botocore, httplib2, tornado, aiohttp, httpx
and httpx2 so that each request asks a cassette whether it can be played. Here the "cassette" is
a bridge to a `ReplaySession`: every request can be played, and the session answers it, so the
in-process path and the HTTP server share one matcher, one re-framer and one judgement, and no
request reaches the network through a patched library.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from http import HTTPStatus
from typing import Any

from conformance.replay.session import ReplaySession
from conformance.replay.transports.base import Request

_names = itertools.count()


class _Bridge:
    """What vcrpy's stubs ask of a cassette (see vcr/stubs), answered by the session."""

    custom_patches: tuple[Any, ...] = ()
    skip_patchers: tuple[str, ...] = ()
    write_protected = True

    def __init__(self, session: ReplaySession) -> None:
        self.session = session
        self._path = f"ConformanceReplay{next(_names)}"  # names vcrpy's patched connection classes

    def can_play_response_for(self, request: Any) -> bool:
        return True  # everything is answered here: nothing goes out

    def play_response(self, request: Any) -> dict[str, Any]:
        answer = self.session.handle(Request.of(request.method, request.uri, dict(request.headers), request.body))
        try:
            reason = HTTPStatus(answer.status).phrase
        except ValueError:
            reason = ""
        headers = {name: [value] for name, value in answer.headers.items()}
        headers["content-length"] = [str(len(answer.body))]
        return {
            "status": {"code": answer.status, "message": reason},
            "headers": headers,
            "body": {"string": answer.body},
        }

    def filter_request(self, request: Any) -> Any:
        return request

    def find_requests_with_most_matches(self, request: Any) -> list[Any]:
        return []

    def append(self, request: Any, response: Any) -> None:
        raise RuntimeError("a replay records nothing")


@contextlib.contextmanager
def intercepted(session: ReplaySession) -> Iterator[None]:
    """Every request the patched libraries make goes to the session while the block runs."""
    from vcr.patch import CassettePatcherBuilder  # type: ignore[import-untyped]  # lazy: client runs only

    with contextlib.ExitStack() as stack:
        for patcher in CassettePatcherBuilder(_Bridge(session)).build():
            stack.enter_context(patcher)
        yield
