"""The files an import writes: the case file and the cassette, as YAML a reviewer can read.

The cassette holds only the conversation's interactions, in vcrpy's form: text bodies as text
(decompressed; JSON kept byte for byte as the recorder stored it), binary bodies (AWS event
streams) as `!!binary`, credentials scrubbed, and a `provenance` block naming the source.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

import yaml

from conformance.recordings.cassette import Interaction
from conformance.recordings.recording import Scrubber

# Headers that described the stored bytes as they were on the wire; the copy is decompressed.
_TRANSPORT_HEADERS = ("content-encoding", "content-length", "transfer-encoding")


class _Dumper(yaml.SafeDumper):
    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        # Sequences indented under their key, as the corpus's hand-written files are.
        super().increase_indent(flow, False)


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and not value.startswith((" ", "\n")) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _short(value: Any) -> bool:
    """A mapping or list small enough to read on one line (`{city: Paris}`)."""
    if isinstance(value, dict):
        return all(_short(v) for v in value.values()) and len(json.dumps(value, ensure_ascii=False)) <= 72
    if isinstance(value, list):
        return all(_short(v) for v in value) and len(json.dumps(value, ensure_ascii=False)) <= 72
    return not (isinstance(value, str) and "\n" in value)


def _dict(dumper: yaml.SafeDumper, value: dict[str, Any]) -> yaml.MappingNode:
    return dumper.represent_mapping("tag:yaml.org,2002:map", value, flow_style=_short(value) and bool(value))


def _list(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.SequenceNode:
    flow = bool(value) and _short(value) and not any(isinstance(v, dict) for v in value)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flow)


_Dumper.add_representer(str, _str)
_Dumper.add_representer(dict, _dict)
_Dumper.add_representer(list, _list)


class _CassetteDumper(yaml.SafeDumper):
    pass


_CassetteDumper.add_representer(str, _str)


def dump_case(document: dict[str, Any], schema_path: str) -> str:
    body = yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)
    return f"# yaml-language-server: $schema={schema_path}\n{body}"


def _text_or_bytes(body: bytes) -> str | bytes:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body


def plain_interaction(interaction: Interaction) -> dict[str, Any]:
    """An interaction as vcrpy writes one, decompressed; `dump_cassette` scrubs it."""
    request = interaction.request
    response = interaction.response
    try:
        message = HTTPStatus(response.status).phrase
    except ValueError:
        message = ""
    raw = {
        "request": {
            "body": _text_or_bytes(request.body),
            "headers": {name: list(values) for name, values in request.headers.items()},
            "method": request.method,
            "uri": request.uri,
        },
        "response": {
            "body": {"string": _text_or_bytes(response.body)},
            "headers": {
                name: list(values) for name, values in response.headers.items() if name not in _TRANSPORT_HEADERS
            },
            "status": {"code": response.status, "message": message},
        },
    }
    return raw


def dump_cassette(provenance: dict[str, Any], interactions: list[dict[str, Any]]) -> str:
    # Recording's scrubber, over the whole conversation at once: a credential seen in a late
    # interaction is removed from the early ones too, and from the text as it is written. The
    # provenance is the suite's own words, not the recording's: an account name a header carried
    # (`openai-organization: traceloop`) is scrubbed from the traffic, not from the source's name.
    scrubber = Scrubber()
    for interaction in interactions:
        scrubber.interaction(interaction)  # learn
    traffic = {"interactions": [scrubber.interaction(i) for i in interactions], "version": 1}
    return _dump({"provenance": provenance}) + scrubber.text(_dump(traffic))


def _dump(document: dict[str, Any]) -> str:
    return yaml.dump(document, Dumper=_CassetteDumper, sort_keys=False, allow_unicode=True, width=100)
