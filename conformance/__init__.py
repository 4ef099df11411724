"""toolcall-conformance: a conformance suite for how LLM adapters handle tool-call ids.

The public surface for adapter authors is small: `CodecAdapter` (wrap your codecs),
`ClientAdapter` and `ToolLoop` (drive your real client through whole tool loops), and the
neutral message types. Everything else is reached through the pytest plugin and the CLI.
"""

from __future__ import annotations

__version__ = "0.1.0"
# The adapter contract (codec methods, neutral model, results format). Bumped on any change
# that an adapter or a results reader must know about.
CONTRACT_VERSION = 1

__all__ = ["CONTRACT_VERSION", "ClientAdapter", "CodecAdapter", "ToolLoop", "__version__"]


def __getattr__(name: str) -> object:
    # Lazy, so that installing the plugin costs a pytest session nothing until it is used.
    if name == "CodecAdapter":
        from conformance.connectors.contract import CodecAdapter

        return CodecAdapter
    if name in ("ClientAdapter", "ToolLoop"):
        from conformance.connectors import client

        return getattr(client, name)
    raise AttributeError(name)
