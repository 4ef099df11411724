"""Case outcomes and results: what a run produces and the results JSON records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from conformance.engine.quoting import Quote
from conformance.engine.violations import Violation

Outcome = Literal["pass", "fail", "skip", "xfail", "xpass", "error", "crash", "timeout", "not-run"]
OUTCOMES: tuple[Outcome, ...] = ("pass", "fail", "skip", "xfail", "xpass", "error", "crash", "timeout", "not-run")
FAILING: frozenset[str] = frozenset({"fail", "xpass", "error", "crash", "timeout"})
# Outcomes that give no verdict on the adapter's ids: skipped, never run, or the process running it died.
UNJUDGED: frozenset[str] = frozenset({"skip", "not-run", "crash"})
# Outcomes that make a run incomplete: a case it should have judged and did not.
INCOMPLETE: frozenset[str] = frozenset({"not-run", "crash"})
# In a violation's record: its provider error told with the case's ids, and what was put in place of what.
ADAPTED, SUBSTITUTED = "provider_error_for_case", "provider_error_substituted"


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
    # violation index -> its provider error with the case's ids in place of the quoted report's
    quotes: dict[int, Quote] = field(default_factory=dict)
    # judged against a baseline of expected failures: {"expected": codes, "found": codes, "why": text}
    baseline: dict[str, Any] | None = None
    # --show-requests: each turn's request as sent and as recorded ({"turn", "sent", "recorded"})
    requests: list[dict[str, Any]] | None = None
    # The last request was answered by the suite's own closing turn, past a recording that ends on the
    # provider's calls (conformance.replay.closing), not by the provider's recorded response.
    suite_answered: bool = False

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
            "violations": [self._violation_json(i, v) for i, v in enumerate(self.violations)],
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
        if self.baseline is not None:
            data["baseline"] = self.baseline
        if self.requests is not None:
            data["requests"] = self.requests
        if self.suite_answered:
            data["suite_answered"] = True
        data["duration"] = round(self.duration, 4)
        return data

    def _violation_json(self, index: int, violation: Violation) -> dict[str, Any]:
        data = violation.to_json()
        quote = self.quotes.get(index)
        if quote is not None:
            data[ADAPTED] = quote.text
            data[SUBSTITUTED] = quote.to_json()["substituted"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CaseResult:
        violations: list[Violation] = []
        quotes: dict[int, Quote] = {}
        for i, record in enumerate(data.get("violations", [])):
            fields = {k: v for k, v in record.items() if k not in (ADAPTED, SUBSTITUTED)}
            violations.append(Violation(**{**fields, "related": tuple(fields.get("related", ()))}))
            if ADAPTED in record:
                quotes[i] = Quote.from_json({"text": record[ADAPTED], "substituted": record.get(SUBSTITUTED, ())})
        return cls(
            case_id=data["id"],
            api=data["api"],
            outcome=data["outcome"],
            violations=violations,
            summary=data.get("summary", ""),
            diff=data.get("diff"),
            detail=data.get("detail", ""),
            duration=data.get("duration", 0.0),
            expected_codes=tuple(data.get("expected_codes", ())),
            link=data.get("link", ""),
            quotes=quotes,
            baseline=data.get("baseline"),
            requests=data.get("requests"),
            suite_answered=bool(data.get("suite_answered", False)),
        )


def judged(results: list[CaseResult]) -> list[CaseResult]:
    """The cases that gave a verdict on the adapter."""
    return [r for r in results if r.outcome not in UNJUDGED]


def counts(results: list[CaseResult]) -> dict[str, int]:
    tally: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
    for r in results:
        tally[r.outcome] += 1
    return tally
