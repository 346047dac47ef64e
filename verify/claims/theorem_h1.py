"""Theorem H.1: the sign pattern of a point configuration does not determine its rankings.

Björner et al., *Oriented Matroids*, §1.10 (Figs. 1.10.1, 1.10.2), used by Nielsen &
Grivas, App. H.2. Two configurations ``A`` and ``B`` of five points in the plane have
the same oriented matroid as point configurations, ``S([1|A]) = S([1|B])``, yet
``R(A) != R(B)``: a linear functional can rank the points of one in an order that no
functional realises on the other.

The check, all exact:

1. ``S([1|A])`` and ``S([1|B])`` are enumerated completely (each cell with a rational
   witness; completeness certified by Gordan multipliers for every neighbouring empty
   orthant) and compared;
2. their chirotopes (signs of the ``3 x 3`` minors) agree up to a global sign;
3. ``R(A)`` and ``R(B)`` are enumerated; every ranking feasible on one side and not on
   the other is listed with its witness on the feasible side and a Gordan certificate
   of infeasibility on the other.
"""

from __future__ import annotations

from flint import fmpq

from verify.arrangement import braid_product, ranking_pattern, sign_pattern
from verify.arrangement.ranking_pattern import signs_from_ranking
from verify.claims.outcome import ClaimOutcome
from verify.data import paper_example
from verify.lp.feasibility import GordanCertificate, strict_feasibility
from verify.numbers.rational import format_rational, parse_rational


def rational_matrix(rows) -> list[list[fmpq]]:
    return [[parse_rational(a) for a in row] for row in rows]


def affine(W) -> list[list[fmpq]]:
    return [[fmpq(1)] + list(row) for row in W]


def ranking_refutation(W, ranking) -> GordanCertificate:
    """Gordan multipliers proving that no input ranks the labels of ``W`` as ``ranking``."""
    n = len(W)
    signs = signs_from_ranking(ranking, n)
    rows = [row if s == "+" else [-a for a in row] for row, s in zip(braid_product(W), signs)]
    evidence = strict_feasibility(rows)
    if not isinstance(evidence, GordanCertificate):
        raise AssertionError(f"ranking {ranking} is feasible")
    return evidence


def ranking_differences(A, B) -> dict:
    """Rankings only in ``R(A)`` and only in ``R(B)``, each ``(ranking, witness on its own
    side, Gordan certificate on the other side)``."""
    RA, RB = ranking_pattern(A), ranking_pattern(B)
    witness_a = dict(zip(RA.rankings, (c.witness for c in RA.cells)))
    witness_b = dict(zip(RB.rankings, (c.witness for c in RB.cells)))
    return {
        "rankings_a": RA.count, "rankings_b": RB.count,
        "only_in_A": [(r, witness_a[r], ranking_refutation(B, r))
                      for r in sorted(set(RA.rankings) - set(RB.rankings))],
        "only_in_B": [(r, witness_b[r], ranking_refutation(A, r))
                      for r in sorted(set(RB.rankings) - set(RA.rankings))],
    }


def compare_configurations(A, B) -> dict:
    """Everything the theorem is about, for two point configurations ``A`` and ``B``."""
    from verify.arrangement.oriented_matroid import agree_up_to_sign
    from verify.claims.cosine_patterns import rational_chirotope

    SA, SB = sign_pattern(affine(A)), sign_pattern(affine(B))
    chirotopes_equal = agree_up_to_sign(rational_chirotope(affine(A)),
                                        rational_chirotope(affine(B)))
    return {
        "sign_patterns_equal": SA.patterns == SB.patterns,
        "sign_pattern_count": SA.count,
        "sign_count_b": SB.count,
        "chirotopes_equal": chirotopes_equal,
        **ranking_differences(A, B),
    }


def run(claim, options) -> ClaimOutcome:
    data = paper_example("theorem H.1")
    A, B = rational_matrix(data["A"]), rational_matrix(data["B"])
    if getattr(options, "matrix", None):
        from verify.io.errors import InputError

        raise InputError("theorem H.1 checks the paper's configurations A and B; use "
                         "'python -m verify search theorem H.1' for other matrices")
    result = compare_configurations(A, B)
    out = ClaimOutcome(claim=claim.id)
    out.add("S([1|A]) = S([1|B]), both enumerated completely with witnesses",
            result["sign_patterns_equal"],
            f"{result['sign_pattern_count']} and {result['sign_count_b']} sign vectors")
    out.add("the chirotopes of [1|A] and [1|B] agree up to a global sign",
            result["chirotopes_equal"])
    differ = bool(result["only_in_A"] or result["only_in_B"])
    out.add("R(A) != R(B)", differ,
            f"{result['rankings_a']} and {result['rankings_b']} rankings")
    for side, other in (("A", "B"), ("B", "A")):
        for ranking, witness, cert in result[f"only_in_{side}"]:
            out.add(f"ranking {' > '.join(map(str, ranking))} only in R({side})", True,
                    f"x = ({', '.join(format_rational(a) for a in witness)}) on {side}; "
                    f"Gordan multipliers on {len(cert.multipliers)} rows of B_n {other}")
    out.evidence = (f"{result['sign_pattern_count']} equal sign vectors; "
                    f"{len(result['only_in_A'])} rankings only in R(A), "
                    f"{len(result['only_in_B'])} only in R(B), each certified")
    from verify.certificates.writers import h1_certificate

    out.certificate = h1_certificate(A, B)
    out.json = {"claim": claim.id, "sign_pattern_count": result["sign_pattern_count"],
                "only_in_A": [list(r) for r, _, _ in result["only_in_A"]],
                "only_in_B": [list(r) for r, _, _ in result["only_in_B"]]}
    return out
