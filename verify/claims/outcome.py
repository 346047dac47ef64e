"""The outcome of checking one claim that is not a sweep over matrices.

A claim is ``verified`` when every part of its check held, ``refuted`` when some part
failed (the check found the claim false, or a construction did not do what the claim
says), and ``error`` when the check could not be carried out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

STATUSES = ("verified", "refuted", "error")


@dataclass
class Step:
    """One part of a check: what was established and whether it held."""

    description: str
    holds: bool
    detail: str = ""


@dataclass
class ClaimOutcome:
    claim: str
    steps: list[Step] = field(default_factory=list)
    evidence: str = ""          # one line for tables
    certificate: dict | None = None
    seconds: float = 0.0
    json: dict | None = None    # a claim's own documented JSON object, if it has one

    def __repr__(self) -> str:
        held = sum(s.holds for s in self.steps)
        return (f"ClaimOutcome({self.claim!r}: {self.status}, {held} of {len(self.steps)} "
                "steps hold)")

    def add(self, description: str, holds: bool, detail: str = "") -> bool:
        self.steps.append(Step(description, bool(holds), detail))
        return bool(holds)

    @property
    def status(self) -> str:
        return "verified" if self.steps and all(s.holds for s in self.steps) else "refuted"

    @property
    def holds(self) -> bool:
        return self.status == "verified"

    def to_json(self) -> dict[str, Any]:
        if self.json is not None:
            return self.json
        return {"claim": self.claim, "status": self.status, "evidence": self.evidence,
                "steps": [{"description": s.description, "holds": s.holds,
                           "detail": s.detail} for s in self.steps],
                "seconds": round(self.seconds, 3)}

    def _summary(self) -> tuple[str, list[tuple[str, str]], str]:
        held = sum(s.holds for s in self.steps)
        rows = [("status", self.status),
                ("steps", f"{held} of {len(self.steps)} hold")]
        rows += [("fails", s.description) for s in self.steps if not s.holds][:3]
        if self.evidence:
            rows.append(("evidence", self.evidence))
        return (f"ClaimOutcome {self.claim}", rows,
                ".steps and .to_json() give every step; .certificate is re-checked by "
                "verify.check_certificate")

    def _repr_html_(self) -> str:
        """The summary that Jupyter shows."""
        from verify.io.display import summary_html

        return summary_html(*self._summary())

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """The summary that IPython's pretty printer shows."""
        from verify.io.display import pretty

        pretty(p, cycle, *self._summary())
