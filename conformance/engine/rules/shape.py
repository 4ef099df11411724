"""format/item-invalid: every tool call and tool result a request sends has the fields its API
requires, of the types it requires.

A provider refuses a request for more than its ids: a `tool_calls` entry without its `type`, a
`tool_use` block without its `input`. What each API requires is data, a JSON Schema fragment per
wire type (`request_schema` in the wire-type cases, taken from the official SDK's request types),
so a changed requirement is a data change. Each sent item is the JSON at its location in the body,
validated against its type's fragment.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from conformance.engine.rules.context import CheckContext
from conformance.engine.violations import Violation
from conformance.engine.wire import History, WireCall, WireResult

# jsonschema is imported when an item fails the quick test or a fragment has a keyword the quick test
# does not read (most runs find every item valid by the quick test, and its import costs a quarter of
# a second): its types here are its validator and error.
Validator = Any
ValidationError = Any

_validators: dict[int, Any] = {}  # id(schema) -> its validator, built once per process, when first needed
_quick: dict[int, tuple[Any, Any]] = {}  # id(schema) -> (the schema, its quick test)


def _schema(ctx: CheckContext, wire_type: str) -> dict[str, Any] | None:
    case = ctx.corpus.wire_types.get(wire_type)
    spec = case.data.get("request_schema") if case is not None else None
    if not isinstance(spec, dict) or not isinstance(spec.get("schema"), dict):
        return None
    schema: dict[str, Any] = spec["schema"]
    return schema


def _fits(schema: dict[str, Any]) -> Check:
    """The quick test of a fragment; where it cannot be built, the full validator's."""
    known = _quick.get(id(schema))
    if known is None or known[0] is not schema:
        test = _compiled(schema) or _validator(schema).is_valid
        known = _quick[id(schema)] = (schema, test)
    check: Check = known[1]
    return check


def _validator(schema: dict[str, Any]) -> Validator:
    found = _validators.get(id(schema))
    if found is None or found.schema is not schema:
        from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

        found = _validators[id(schema)] = Draft202012Validator(schema)
    return found


def _where(error: ValidationError) -> str:
    """The field an error is about, as a path below the item: a missing field is named."""
    steps = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in error.absolute_path)
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = next((k for k in error.validator_value if k not in error.instance), None)
        if missing is not None:
            steps += f".{missing}"
    return steps


_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "null": (type(None),),
}
_SUBSET = frozenset({"type", "required", "properties", "const"})
Check = Callable[[Any], bool]


def _compiled(schema: dict[str, Any]) -> Check | None:
    """A test of whether a value fits a fragment, built from the few keywords fragments use (None
    for another keyword: then jsonschema alone decides). Most items fit, and this costs a small part
    of a validator's walk, which matters at the length of a long history."""
    if not _SUBSET.issuperset(schema):
        return None
    checks: list[Check] = []
    if "const" in schema:
        constant = schema["const"]
        checks.append(lambda v: bool(v == constant))
    if "type" in schema:
        names = (schema["type"],) if isinstance(schema["type"], str) else tuple(schema["type"])
        if any(n not in _TYPES for n in names):
            return None
        kinds = tuple(k for n in names for k in _TYPES[n])
        checks.append(lambda v: type(v) in kinds)
    required = tuple(schema.get("required", ()))
    inner: list[tuple[str, Check]] = []
    for key, sub in schema.get("properties", {}).items():
        found = _compiled(sub)
        if found is None:
            return None
        inner.append((key, found))

    def fits(value: Any) -> bool:
        for check in checks:
            if not check(value):
                return False
        if type(value) is dict:
            for key in required:
                if key not in value:
                    return False
            for key, check in inner:
                if key in value and not check(value[key]):
                    return False
        return True

    return fits


def _errors(validator: Validator, item: Any) -> Iterator[ValidationError]:
    # The shallowest error first: a missing object says more than every field it lacks.
    yield from sorted(validator.iter_errors(item), key=lambda e: (len(e.absolute_path), str(e.message)))


_STEP = re.compile(r"[.\[\]]+")


def _at(body: Any, path: str) -> Any:
    """The JSON at an item's location (`request[1].messages[2].tool_calls[0]`): the rules' own paths,
    names and indices only, so read by one split."""
    node = body
    for step in _STEP.split(path)[2:]:
        if not step:
            continue
        if step.isdigit():
            if type(node) is not list or int(step) >= len(node):
                return None
            node = node[int(step)]
        elif type(node) is dict and step in node:
            node = node[step]
        else:
            return None
    return node


def check_request(ctx: CheckContext, body: Any, history: History) -> list[Violation]:
    out: list[Violation] = []
    items: list[WireCall | WireResult] = [*history.calls(), *history.results()]
    schemas: dict[str, tuple[dict[str, Any], Check] | None] = {}
    for item in items:
        if item.wire_type not in schemas:
            found = _schema(ctx, item.wire_type)
            schemas[item.wire_type] = (found, _fits(found)) if found is not None else None
        known = schemas[item.wire_type]
        if known is None:
            continue
        schema, fits = known
        sent = _at(body, item.path)
        if sent is None or fits(sent):
            continue
        for error in _errors(_validator(schema), sent):
            where = _where(error)
            missing = error.validator == "required"
            if where == f".{item.id_field}":
                continue  # a missing or null id is the id rules' to report (roundtrip/empty-id, pairing/orphan-result)
            what = "lacks the required field" if missing else "has an invalid"
            field_name = where.lstrip(".") or "item"
            violation = ctx.violation(
                "format/item-invalid",
                f"{item.path}{where}",
                f"The {item.wire_type.split('/', 1)[1]} sent at {item.path} {what} {field_name!r}: {error.message}.",
                wire_type=item.wire_type,
                expected=_expected(error),
                received=None if missing else error.instance,
            )
            quoted = violation.provider_error or ""
            if not missing or f".{field_name.rsplit('.', 1)[-1]}'" not in quoted:
                # The quoted error names one missing field; another fault, or another field, has its own text.
                violation = replace(violation, provider_error=None, provider_error_source=None)
            out.append(violation)
            break  # one fault per item: the rest usually follow from it
    return out


def _expected(error: ValidationError) -> Any:
    if error.validator == "required":
        return "the field, as the API's request type requires"
    if error.validator == "const":
        return error.validator_value
    if error.validator == "type":
        return f"a value of type {error.validator_value}"
    return str(error.validator_value)
