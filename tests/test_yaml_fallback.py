"""The corpus loads, checks and runs with PyYAML's pure-Python loader, the fallback where PyYAML was
built without libyaml. A subprocess hides libyaml before anything imports PyYAML, so the fallback
branches of the loaders are the ones taken, as on such an installation."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from conftest import ROOT

WITHOUT_LIBYAML = """
import sys
sys.modules["yaml._yaml"] = None  # PyYAML then finds no C extension: no CSafeLoader
import yaml
assert not yaml.__with_libyaml__ and not hasattr(yaml, "CSafeLoader")
"""


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_LIBYAML + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )


def test_the_fallback_is_the_pure_python_loader() -> None:
    run = _run(
        """
        from conformance.recordings import yamlio
        # Case files and cassettes both load through yamlio's loaders.
        assert yamlio._BaseLoader is yaml.SafeLoader, yamlio._BaseLoader
        assert issubclass(yamlio._PlainLoader, yaml.SafeLoader)
        print("PURE")
        """
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "PURE"


def test_every_case_and_cassette_loads_and_checks_with_the_fallback() -> None:
    run = _run(
        """
        from conformance.check import check_corpus
        report = check_corpus(examples=False)  # loads every case file and every cassette
        for problem in report.problems:
            print(problem)
        print("scenarios", len(report.corpus.scenarios), "problems", len(report.problems))
        """
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1].endswith("problems 0"), run.stdout


def test_a_plain_scalar_with_a_question_mark_in_a_flow_mapping_needs_quotes_for_the_fallback() -> None:
    """Why the corpus quotes such values: libyaml reads `{q: What?}`, PyYAML's pure loader does not."""
    run = _run(
        """
        from conformance.recordings.yamlio import YamlError, load_text
        assert load_text('{q: "What?"}') == {"q": "What?"}
        try:
            load_text("{q: What?}", "case.yaml")
        except YamlError as exc:
            print(exc)
        """
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("case.yaml:1: invalid YAML"), run.stdout
