"""Theorem 5.5: the cosine matrix ``C(W)`` does not determine the ranking pattern ``R(W)``.

Nielsen & Grivas, App. H.1 and Fig. 3. Seven labels in the plane at the angles
``0, π/4, π/2, 3π/4, π, 5π/4, 7π/4`` (no ``3π/2``). Model 1: every row has length 5.
Model 2: the same, except that label 2 (angle ``π/2``, the paper's "label 3") has length
2. Scaling a row by a positive number changes no cosine, so ``C(W_1) = C(W_2)``; but in
model 1 label 2 is ranked first on an open set of inputs, while in model 2 it is never
ranked first: ``w_2`` lies inside the convex hull of the other rows.

The check, exactly, for the paper's instance (entries in ``Q(√2)``) and for a rational
instance of the same structure:

1. ``C(W_1) = C(W_2)`` entry by entry (cosines computed from the definition, in exact
   arithmetic over ``Q(√2)``);
2. every ranking of ``R(W_1)`` with label 2 first, each with an exact witness input;
3. a Gordan certificate that no input ranks label 2 first in model 2: multipliers
   ``y_k >= 0``, not all zero, with ``sum_k y_k (w_2 - w_k) = 0``.
"""

from __future__ import annotations

from verify.arrangement.first_label import never_first, top_label_rankings
from verify.claims.outcome import ClaimOutcome
from verify.data import paper_example
from verify.numbers.field_cosine import field_cosine_matrix
from verify.numbers.sqrt_sum import parse_sqrt_sum

__all__ = ["RATIONAL_MODEL_1", "RATIONAL_MODEL_2", "check_instance", "field_cosine_matrix",
           "never_first", "run", "top_label_rankings"]

#: A rational instance of the same structure: the same seven directions, rows with
#: rational coordinates; label 2 shortened from (0, 5) to (0, 2).
RATIONAL_MODEL_1 = [[5, 0], [4, 4], [0, 5], [-4, 4], [-5, 0], [-4, -4], [4, -4]]
RATIONAL_MODEL_2 = [[5, 0], [4, 4], [0, 2], [-4, 4], [-5, 0], [-4, -4], [4, -4]]


def check_instance(W1, W2, label: int) -> dict:
    C1, C2 = field_cosine_matrix(W1), field_cosine_matrix(W2)
    return {
        "cosines_equal": C1 == C2,
        "first_in_1": top_label_rankings(W1, label),
        "first_in_2": top_label_rankings(W2, label),
        "certificate_2": never_first(W2, label),
    }


def run(claim, options) -> ClaimOutcome:
    if getattr(options, "matrix", None):
        from verify.io.errors import InputError

        raise InputError("theorem 5.5 checks the paper's instances; use 'python -m "
                         "verify search theorem 5.5' to look for other pairs")
    data = paper_example("theorem 5.5")
    label = data["label"]
    paper = ([[parse_sqrt_sum(a) for a in row] for row in data["model 1"]],
             [[parse_sqrt_sum(a) for a in row] for row in data["model 2"]])
    out = ClaimOutcome(claim=claim.id)
    for name, (W1, W2) in (("paper's instance over Q(sqrt 2)", paper),
                           ("rational instance", (RATIONAL_MODEL_1, RATIONAL_MODEL_2))):
        res = check_instance(W1, W2, label)
        out.add(f"{name}: C(W_1) = C(W_2) exactly", res["cosines_equal"])
        firsts = res["first_in_1"]
        out.add(f"{name}: R(W_1) ranks label {label} first", bool(firsts),
                f"{len(firsts)} rankings, e.g. {' > '.join(map(str, firsts[0][0]))} at "
                f"x = ({', '.join(map(str, firsts[0][1]))})" if firsts else "none")
        cert = res["certificate_2"]
        out.add(f"{name}: no input ranks label {label} first in W_2 (Gordan certificate)",
                cert is not None and not res["first_in_2"],
                "multipliers " + ", ".join(f"y_{i if i < label else i + 1} = {y}"
                                           for i, y in cert.multipliers) if cert else "")
    out.evidence = ("C(W_1) = C(W_2) exactly, label 2 first only in model 1, certified, "
                    "for the Q(sqrt 2) and the rational instance")
    from verify.certificates.writers import theorem55_certificate

    out.certificate = theorem55_certificate(*paper, label)
    return out
