"""The registry of claims: one object per claim of the seed papers.

Each claim has an id as printed in ``../shared/CLAIMS.md`` (``lemma 5.3``,
``theorem 5.6``, ...), its statement, its hypotheses, what a check establishes, and
the runner that checks it. Runners are named as ``module:function`` and imported only
when the claim is run, so listing claims is cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module

from verify.errors import InputError


@dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    hypotheses: str
    establishes: str
    runner: str
    sweep: bool = False  # checked over families of enumerated matrices

    @property
    def kind(self) -> str:
        return self.id.split()[0]

    @property
    def number(self) -> str:
        return self.id.split(maxsplit=1)[1]

    def run(self, options):
        module, function = self.runner.split(":")
        return getattr(import_module(module), function)(self, options)


CLAIMS: dict[str, Claim] = {c.id: c for c in [
    Claim(
        id="lemma 5.3",
        statement="If the rows of W are non-zero, S(C(W)) = S(W): the cosine matrix "
                  "determines the sign pattern (the decision regions of a sigmoid head).",
        hypotheses="every row of W is non-zero",
        establishes="S(W) by the exact rational engine (every cell with a rational "
                    "witness) and S(C(W)) from the exact chirotope of the cosine "
                    "matrix over Q(sqrt ...), computed independently and compared, "
                    "for every enumerated matrix",
        runner="verify.claims.sweep:run_cosine_claim",
        sweep=True),
    Claim(
        id="theorem 5.6",
        statement="If the rows of B_n W are non-zero, S(C(B_n W)) = R(W): the cosines "
                  "of the differences of unembeddings determine the ranking pattern "
                  "of a softmax head.",
        hypotheses="no two rows of W are equal",
        establishes="R(W) = S(B_n W) with rational witnesses and S(C(B_n W)) from the "
                    "exact chirotope of the cosine matrix of B_n W, computed "
                    "independently and compared, for every enumerated matrix",
        runner="verify.claims.sweep:run_cosine_claim",
        sweep=True),
]}

KINDS = ("lemma", "theorem", "proposition", "example", "appendix", "steck")


def get_claim(kind: str, number: str) -> Claim:
    claim_id = f"{kind} {number}"
    if claim_id not in CLAIMS:
        known = ", ".join(CLAIMS)
        raise InputError(f"unknown claim {claim_id!r}; known claims: {known}")
    return CLAIMS[claim_id]
