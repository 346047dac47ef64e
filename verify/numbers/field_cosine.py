"""Cosine matrices of rows over ``Q(√...)``, exactly, when the square roots are exact.

For rows ``w_i`` with entries in a field of square-root sums,
``C_ij = w_i.w_j / sqrt(|w_i|^2 |w_j|^2)``. If every product ``|w_i|^2 |w_j|^2`` is
rational (true for the rows of Nielsen & Grivas, theorem 5.5, at the angles
``k π/4``), its square root is a single square-root term and ``C`` is exact in the
same field. (:func:`verify.numbers.sqrt_sum.cosine_matrix` covers rational rows.)

Example
-------
>>> from verify.numbers.sqrt_sum import parse_sqrt_sum
>>> W = [[5, 0], [parse_sqrt_sum("5*sqrt(2)/2"), parse_sqrt_sum("5*sqrt(2)/2")]]
>>> C = field_cosine_matrix(W)
>>> C[0][1] == parse_sqrt_sum("sqrt(2)/2")
True
"""

from __future__ import annotations

from verify.numbers.sqrt_sum import SqrtSum

__all__ = ["field_cosine_matrix"]


def field_cosine_matrix(W) -> list[list[SqrtSum]]:
    """``C_ij = w_i.w_j / sqrt(|w_i|^2 |w_j|^2)`` for rows over ``Q(√...)``.

    Needs every ``|w_i|^2 |w_j|^2`` rational (true for the paper's rows); the square
    root is then exact.
    """
    rows = [[SqrtSum(0) + a for a in row] for row in W]
    norms = [sum((a * a for a in row), SqrtSum(0)) for row in rows]
    C = []
    for i, wi in enumerate(rows):
        out = []
        for j, wj in enumerate(rows):
            product = norms[i] * norms[j]
            if not product.is_rational():
                raise ValueError(f"|w_{i}|^2 |w_{j}|^2 = {product} is not rational")
            dot = sum((a * b for a, b in zip(wi, wj)), SqrtSum(0))
            out.append(dot / SqrtSum.sqrt(product.to_rational()))
        C.append(out)
    return C
