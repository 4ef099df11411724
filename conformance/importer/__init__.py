"""`conformance import`: a recorded cassette turned into scenarios of the corpus
(conformance.importer.importing). Its names are imported when first used: lint reads recordings
through `importer.formats` and needs none of the importing machinery."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conformance.importer.importing import (
        Imported,
        Options,
        Refusal,
        Report,
        Source,
        import_cassette,
        import_paths,
        slug,
    )

__all__ = ["Imported", "Options", "Refusal", "Report", "Source", "import_cassette", "import_paths", "slug"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from conformance.importer import importing

        return getattr(importing, name)
    raise AttributeError(name)
