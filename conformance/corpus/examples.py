"""Wire-type examples validated against the official SDKs' models (test dependencies only).

`module:Attribute` names a pydantic model or a TypedDict/Union; a missing SDK is reported as a
note naming how many examples went unchecked, never as a silent pass.
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Mapping
from typing import Any

from conformance.corpus.loading import Corpus, LoadedFile
from conformance.corpus.problems import Problem
from conformance.recordings.yamlio import line_of, to_plain


def _examples(document: Mapping[str, Any]) -> list[tuple[list[str | int], Mapping[str, Any]]]:
    found: list[tuple[list[str | int], Mapping[str, Any]]] = []
    if isinstance(document.get("example"), Mapping):
        found.append((["example"], document["example"]))
    for i, variant in enumerate(document.get("variants") or []):
        if isinstance(variant, Mapping) and isinstance(variant.get("example"), Mapping):
            found.append((["variants", i, "example"], variant["example"]))
    return found


def validate_example(spec: str, value: Any) -> str | None:
    """None when `value` validates against the model `spec`; else the validation error."""
    module_name, _, attribute = spec.partition(":")
    model: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        model = getattr(model, part)
    import pydantic

    try:
        if isinstance(model, type) and issubclass(model, pydantic.BaseModel):
            model.model_validate(value)
        else:
            pydantic.TypeAdapter(model).validate_python(value)
    except pydantic.ValidationError as exc:
        return (
            str(exc).splitlines()[0]
            + ": "
            + "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3])
        )
    return None


def check_examples(corpus: Corpus, docs: Mapping[str, LoadedFile]) -> tuple[list[Problem], list[str]]:
    problems: list[Problem] = []
    missing: Counter[str] = Counter()
    validated = 0
    for case_id in sorted(corpus.wire_types):
        loaded = docs[case_id]
        for path, example in _examples(loaded.document):
            spec = example.get("sdk_model")
            if not spec:
                continue
            root = spec.split(":", 1)[0].split(".", 1)[0]
            try:
                error = validate_example(spec, to_plain(example["json"]))
            except ImportError:
                missing[root] += 1
                continue
            except AttributeError as exc:
                error = f"no such model {spec!r}: {exc}"
            validated += 1
            if error:
                problems.append(
                    Problem(str(loaded.path), line_of(loaded.document, [*path, "json"]), "example", f"{spec}: {error}")
                )
    notes = [f"{validated} example(s) validated against official SDK models"]
    notes += [
        f"{n} example(s) not validated: the {sdk!r} package is not installed" for sdk, n in sorted(missing.items())
    ]
    return problems, notes
