"""Rankings that put one label first: all of them with witnesses, or a proof of none.

For a head ``W`` (rows ``w_0 ... w_{n-1}``, entries in Q or in ``Q(√...)``) label ``l``
is ranked first at ``x`` iff ``(w_l - w_k) . x > 0`` for every ``k != l``.
:func:`top_label_rankings` lists the rankings of ``R(W)`` with ``l`` first, each with an
exact witness ``x``; :func:`never_first` returns Gordan multipliers ``y_k >= 0``, not
all zero, with ``sum_k y_k (w_l - w_k) = 0`` when no ``x`` exists (Gordan 1873). These
are the two sides of theorem 5.5 (Nielsen & Grivas, App. H.1).

Example
-------
>>> [r for r, _ in top_label_rankings([[1, 0], [0, 1], [-1, 0]], 1)]
[(1, 0, 2), (1, 2, 0)]
>>> never_first([[1, 0], [0, 0], [-1, 0]], 1).multipliers
((0, 1/2), (1, 1/2))
"""

from __future__ import annotations

from verify.arrangement import ranking_from_signs, ranking_pattern
from verify.arrangement.chirotope import field_topes
from verify.lp.feasibility import GordanCertificate, strict_feasibility
from verify.lp.field_simplex import strict_feasibility_over
from verify.numbers.sqrt_sum import SqrtSum

__all__ = ["braid_product_field", "never_first", "top_label_rankings"]


def top_label_rankings(W, label: int):
    """Rankings of ``R(W)`` with ``label`` first, with exact witnesses (any exact field)."""
    field = any(isinstance(a, SqrtSum) and not a.is_rational() for row in W for a in row)
    n = len(W)
    if field:
        topes, points = field_topes(braid_product_field(W), witnesses=True)
        # field_topes lists sign tuples over the pairs i < j, like B_n W
        pairs = [(ranking_from_signs("".join("+" if s > 0 else "-" for s in t), n),
                  points[t]) for t in topes]
    else:
        R = ranking_pattern(W)
        pairs = [(r, c.witness) for r, c in zip(R.rankings, R.cells)]
    return [(r, z) for r, z in pairs if r[0] == label]


def braid_product_field(W):
    from itertools import combinations

    return [[a - b for a, b in zip(W[i], W[j])] for i, j in combinations(range(len(W)), 2)]


def never_first(W, label: int) -> GordanCertificate | None:
    """Gordan multipliers proving that ``label`` is never ranked first, or None."""
    rows = [[a - b for a, b in zip(W[label], W[k])] for k in range(len(W)) if k != label]
    field = any(isinstance(a, SqrtSum) and not a.is_rational() for row in W for a in row)
    evidence = (strict_feasibility_over(rows, SqrtSum(1)) if field
                else strict_feasibility(rows))
    return evidence if isinstance(evidence, GordanCertificate) else None
