"""Generated scenarios as pytest items, `conformance-generated::<api>` (docs/generated.md): each draws the
API's scenarios through the adapter and fails with the shrunk one written as a case file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conformance.plugin.state import SessionState


class GeneratedCollector(pytest.Collector):
    def __init__(self, *, session_plugin: SessionState, apis: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session_plugin = session_plugin
        self.apis = apis

    def collect(self) -> list[pytest.Item]:
        return [
            GeneratedItem.from_parent(self, name=api, api=api, session_plugin=self.session_plugin) for api in self.apis
        ]


class GeneratedFailed(Exception):
    pass


class GeneratedItem(pytest.Item):
    """One API's generated scenarios: `--conformance-generated` of them, drawn from its grammar."""

    def __init__(self, *, api: str, session_plugin: SessionState, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.api = api
        self.session_plugin = session_plugin
        self.add_marker("conformance")
        self.add_marker(api.replace("-", "_"))

    def runtest(self) -> None:
        from conformance.generated.report import failure_text
        from conformance.generated.search import search

        plugin = self.session_plugin
        base = Path(plugin.config.invocation_params.dir)
        out = plugin.generated_dir() / self.api
        found = search(
            plugin.adapter,
            plugin.corpus,
            self.api,
            plugin.generated,
            seed=plugin.seed,
            profile=plugin.profile,
            out=out,
        )
        rate = found.examples / found.seconds if found.seconds else 0.0
        self.user_properties.append(
            (
                "conformance_generated",
                json.dumps(
                    {
                        "api": self.api,
                        "examples": found.examples,
                        "seconds": round(found.seconds, 3),
                        "per_second": round(rate, 1),
                    }
                ),
            )
        )
        if found.failure is not None:
            raise GeneratedFailed(
                failure_text(found, plugin.adapter_spec.strip(), plugin.seed, base, harness=plugin.harness)
            )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, GeneratedFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return Path(self.session_plugin.config.invocation_params.dir), 0, f"conformance generated: {self.api}"
