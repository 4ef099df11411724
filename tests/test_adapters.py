"""The adapter contract: what an adapter may be built with, and what an adapter spec may name."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT

from conformance.check import check_corpus
from conformance.cli import main
from conformance.connectors.adapters import (
    AdapterSpecError,
    describe,
    located,
    resolve,
    resolve_adapter,
    resolve_reproduction,
    served_apis,
)
from conformance.connectors.client import ClientAdapter
from conformance.connectors.contract import AdapterDefinitionError, CodecAdapter
from conformance.reference.openai_chat import OpenAIChatCodec


def _loop(loop: Any) -> None:
    pass


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: CodecAdapter(name="x", version="1", codecs={"openai_chat": OpenAIChatCodec()}),
            "CodecAdapter 'x': unknown API key in codecs 'openai_chat' (did you mean 'openai-chat'?); known: ",
        ),
        (lambda: CodecAdapter(name="x", version="1", codecs={}), "CodecAdapter 'x': codecs is empty"),
        (
            lambda: CodecAdapter(
                name="x", version="1", codecs={"openai-chat": OpenAIChatCodec()}, unsupported={"gemni": "no"}
            ),
            "unknown API key in unsupported 'gemni' (did you mean 'gemini'?)",
        ),
        (
            lambda: CodecAdapter(
                name="x", version="1", codecs={"openai-chat": OpenAIChatCodec()}, unsupported={"openai-chat": "no"}
            ),
            "openai-chat both in codecs and declared unsupported",
        ),
        (
            lambda: CodecAdapter(name="x", version="1", codecs={"openai-chat": object()}),  # type: ignore[dict-item]
            "codecs['openai-chat'] is an object without decode or encode",
        ),
        (
            lambda: ClientAdapter(name="y", version="1", clients={"OpenAI": _loop}),
            "ClientAdapter 'y': unknown API key in clients 'OpenAI'",
        ),
        (lambda: ClientAdapter(name="y", version="1", clients={}), "ClientAdapter 'y': clients is empty"),
        (
            lambda: ClientAdapter(name="y", version="1", clients={"gemini": "run"}),  # type: ignore[dict-item]
            "clients['gemini'] is a str, not a callable",
        ),
    ],
)
def test_an_adapter_that_would_skip_everything_silently_cannot_be_built(build: Any, message: str) -> None:
    with pytest.raises(AdapterDefinitionError) as caught:
        build()
    assert message in str(caught.value)


def test_an_adapter_serves_the_apis_of_its_codecs() -> None:
    adapter = CodecAdapter(name="x", version="1", codecs={"openai-chat": OpenAIChatCodec()}, unsupported={"gemini": ""})
    assert served_apis(adapter) == ("openai-chat",)
    assert describe(adapter) == {"name": "x", "version": "1", "connector": "codec", "apis": ["openai-chat"]}
    assert len(served_apis(resolve_adapter("reference"))) == 15


def test_a_syntax_error_is_located_at_its_own_line(tmp_path: Path) -> None:
    try:
        compile("x = (\n", str(tmp_path / "mod.py"), "exec")
    except SyntaxError as exc:
        assert located(exc).startswith(f"{tmp_path / 'mod.py'}:1: SyntaxError: ")
    else:  # pragma: no cover
        raise AssertionError("compiled")


def test_an_exception_is_located_in_the_users_code_not_the_suite_or_a_library(tmp_path: Path) -> None:
    module = tmp_path / "users_module_for_located.py"
    module.write_text("import json\n\ndef load():\n    return json.loads('{')\n", encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        import users_module_for_located  # type: ignore[import-not-found]

        with pytest.raises(ValueError) as caught:
            users_module_for_located.load()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("users_module_for_located", None)
    assert located(
        caught.value
    ) == f"{module}:4: JSONDecodeError: Expecting property name enclosed in double quotes: " + (
        "line 1 column 2 (char 1)"
    )


def test_an_exception_whose_message_raises_still_gets_a_line() -> None:
    class Odd(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    assert located(Odd()) == "Odd: <Odd whose message cannot be shown>"


def test_a_zero_argument_callable_that_raises_is_one_message(tmp_path: Path) -> None:
    (tmp_path / "factory_that_raises.py").write_text(
        "def make():\n    raise KeyError('OPENAI_API_KEY')\n", encoding="utf-8"
    )
    with pytest.raises(AdapterSpecError) as caught:
        resolve("factory_that_raises:make", base=tmp_path)
    assert str(caught.value).startswith("calling 'factory_that_raises:make' for an adapter raised: ")
    assert str(caught.value).endswith("factory_that_raises.py:2: KeyError: 'OPENAI_API_KEY'")


def test_a_missing_module_says_where_it_was_looked_for() -> None:
    with pytest.raises(AdapterSpecError) as caught:
        resolve_adapter("nosuchmodule_xyz:ADAPTER")
    assert "no module 'nosuchmodule_xyz' in the current directory or on sys.path" in str(caught.value)


def test_a_bug_id_resolves_to_its_reproduction_and_the_bug() -> None:
    resolved = resolve("genkit-3247")
    assert resolved.bug is not None and resolved.bug.id == "genkit-3247"
    assert isinstance(resolved.adapter, CodecAdapter)
    assert describe(resolved.adapter, resolved.bug)["name"] == "genkit-3247"


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("sys:exit", "must name an adapter object of the project's reproductions"),
        ("os:abort", "must name an adapter object of the project's reproductions"),
        ("conformance.reproductions.genkit:os.abort", "must name an adapter object"),
        ("conformance.reproductions.genkit:NameAsId", "is a type, not an adapter object"),
        ("conformance.reproductions.genkit:parse_arguments", "is a function, not an adapter object"),
        ("conformance.reference:ADAPTER", "must name an adapter object of the project's reproductions"),
    ],
)
def test_a_reproduction_names_only_an_adapter_object_of_the_projects_reproductions(spec: str, why: str) -> None:
    with pytest.raises(AdapterSpecError, match=why):
        resolve_reproduction(spec)


def _bug_case(tmp_path: Path, reproduction: str) -> Path:
    cases = tmp_path / "cases"
    (cases / "bugs").mkdir(parents=True)
    case = yaml.safe_load((ROOT / "cases" / "bugs" / "genkit-3247.yaml").read_text(encoding="utf-8"))
    case.update(id="demo-1", description="A bug case whose reproduction names sys.exit", reproduction=reproduction)
    (cases / "bugs" / "demo-1.yaml").write_text(yaml.safe_dump(case), encoding="utf-8")
    return cases


def test_check_refuses_a_reproduction_that_is_not_an_adapter_object(tmp_path: Path) -> None:
    report = check_corpus([_bug_case(tmp_path, "sys:exit")], examples=False)
    found = [p for p in report.problems if "demo-1" in p.path]
    assert len(found) == 1 and found[0].rule == "reference" and "sys:exit" in found[0].message


def test_reproduce_refuses_it_instead_of_exiting_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "demo-1", "--cases", str(_bug_case(tmp_path, "sys:exit"))]) == 2
    assert "reproduction 'sys:exit' must name an adapter object" in capsys.readouterr().err
