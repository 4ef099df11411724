"""Case outcomes and results: what a run produces and the results JSON records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from conformance.violations import Violation

Outcome = Literal["pass", "fail", "skip", "xfail", "xpass", "error", "crash", "timeout", "not-run"]
OUTCOMES: tuple[Outcome, ...] = ("pass", "fail", "skip", "xfail", "xpass", "error", "crash", "timeout", "not-run")
FAILING: frozenset[str] = frozenset({"fail", "xpass", "error", "crash", "timeout"})


@dataclass
class CaseResult:
    case_id: str
    api: str
    outcome: Outcome
    violations: list[Violation] = field(default_factory=list)
    summary: str = ""
    diff: str | None = None
    detail: str = ""  # a short traceback for errors
    duration: float = 0.0
    expected_codes: tuple[str, ...] = ()  # bug reproductions only
    link: str = ""  # xfail and xpass: the report of the known bug that makes the case expected to fail

    @property
    def errors(self) -> list[Violation]:
        return [v for v in self.violations if v.severity == "error"]

    @property
    def warnings(self) -> list[Violation]:
        return [v for v in self.violations if v.severity == "warning"]

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.case_id,
            "api": self.api,
            "outcome": self.outcome,
            "violations": [v.to_json() for v in self.violations],
        }
        if self.summary:
            data["summary"] = self.summary
        if self.diff:
            data["diff"] = self.diff
        if self.detail:
            data["detail"] = self.detail
        if self.expected_codes:
            data["expected_codes"] = list(self.expected_codes)
        if self.link:
            data["link"] = self.link
        data["duration"] = round(self.duration, 4)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CaseResult:
        return cls(
            case_id=data["id"],
            api=data["api"],
            outcome=data["outcome"],
            violations=[Violation(**{**v, "related": tuple(v.get("related", ()))}) for v in data.get("violations", [])],
            summary=data.get("summary", ""),
            diff=data.get("diff"),
            detail=data.get("detail", ""),
            duration=data.get("duration", 0.0),
            expected_codes=tuple(data.get("expected_codes", ())),
            link=data.get("link", ""),
        )


def counts(results: list[CaseResult]) -> dict[str, int]:
    tally: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
    for r in results:
        tally[r.outcome] += 1
    return tally
