"""JUnit XML of a run, for `conformance run --junitxml`: one testcase per case, as CI systems read it.

The shape is the one pytest's own `--junitxml` writes (its `xunit2` family): a `testsuites` root
holding one `testsuite`; a failing case has a `failure` (or an `error` for the outcomes that are not
the adapter's verdict on ids), skipped and expected failures a `skipped` element. Case ids keep their
slashes in `name`; `classname` is `conformance.<api>`, so CI pages group the cases by API.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from conformance.engine.outcomes import CaseResult
from conformance.reports.textreport import case_text

_ERRORS = frozenset({"error", "crash", "timeout"})
_SKIPS = frozenset({"skip", "not-run", "xfail"})


def junit_document(results: Sequence[CaseResult], adapter: str, suite: str = "conformance") -> ET.Element:
    root = ET.Element("testsuites")
    failures = sum(r.outcome in ("fail", "xpass") for r in results)
    errors = sum(r.outcome in _ERRORS for r in results)
    skipped = sum(r.outcome in _SKIPS for r in results)
    total_time = sum(r.duration for r in results)
    node = ET.SubElement(
        root,
        "testsuite",
        name=suite,
        tests=str(len(results)),
        failures=str(failures),
        errors=str(errors),
        skipped=str(skipped),
        time=f"{total_time:.3f}",
    )
    ET.SubElement(ET.SubElement(node, "properties"), "property", name="adapter", value=adapter)
    for result in results:
        case = ET.SubElement(
            node,
            "testcase",
            classname=f"conformance.{result.api}",
            name=result.case_id,
            time=f"{result.duration:.3f}",
        )
        message = result.summary or result.outcome
        if result.outcome in ("fail", "xpass"):
            ET.SubElement(case, "failure", message=message, type=result.outcome).text = case_text(result, adapter)
        elif result.outcome in _ERRORS:
            ET.SubElement(case, "error", message=message, type=result.outcome).text = case_text(result, adapter)
        elif result.outcome in _SKIPS:
            label = "expected failure" if result.outcome == "xfail" else result.outcome
            ET.SubElement(case, "skipped", type=result.outcome, message=f"{label}: {message}")
    return root


def write_junit(path: Path, results: Sequence[CaseResult], adapter: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tree = ET.ElementTree(junit_document(results, adapter))
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)
