"""What `/_conformance/scenarios` says of each served scenario: enough to play it with curl.

The prompt, the model and the tools a client is to send, and the first request as recorded, which a
person can send as it is (`curl -d @first.json`) and then edit turn by turn.
"""

from __future__ import annotations

import json
from typing import Any

from conformance.replay.session import ReplaySession


def scenario_entry(session: ReplaySession, root: str, base_url: str, tools_url: str) -> dict[str, Any]:
    """`root` is the server's URL; each scenario is served under `root/<scenario id>`."""
    scenario = session.scenario
    return {
        "id": scenario.id,
        "api": scenario.api,
        "base_url": base_url,
        "tools_url": tools_url,
        "description": scenario.description,
        "model": scenario.model,
        "prompt": scenario.prompt,
        "stream": scenario.stream,
        "tools": [dict(t) for t in scenario.tools],
        "server_tools": [dict(t) for t in scenario.server_tools],
        # The turns served: the recording's, and the suite's closing answer where it ends on calls.
        "turns": len(session.interactions),
        "closing": len(session.interactions) > len(session.recorded.interactions),
        "first_request": _first_request(session, f"{root}/{scenario.id}"),
    }


def _first_request(session: ReplaySession, prefix: str) -> dict[str, Any] | None:
    """The first recorded request: its method, the URL to send it to here, and its JSON body."""
    interactions = session.recorded.interactions
    if not interactions:
        return None
    request = interactions[0].request
    try:
        body: Any = json.loads(request.body) if request.body else None
    except (ValueError, UnicodeDecodeError):
        body = None
    return {"method": request.method, "url": f"{prefix}{request.path}", "body": body}
