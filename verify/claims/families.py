"""Families of small integer matrices over which claims are checked.

Two kinds:

* :func:`enumerated_matrices`: a deterministic sample from a seed, mixing entry ranges
  and degenerate constructions (repeated and parallel rows, rank deficiency, collinear
  points, zero and equal rows), because degenerate matrices are where floating-point
  checks break.
* :func:`exhaustive_matrices`: every integer matrix with entries in ``[-K, K]``, up to
  symmetries that provably preserve both sides of the claim being checked:

  - permutations of the rows (all claims): ``S(PM) = P S(M)`` and
    ``C(PM) = P C(M) P^T``, so both sides are permuted alike;
  - signed permutations ``Q`` of the columns (all claims): ``Q`` is orthogonal, so the
    column span of ``WQ`` is that of ``W`` and ``(WQ)(WQ)^T = W W^T`` leaves every
    cosine unchanged; the same holds for ``B_n W Q``;
  - sign changes of rows (Lemma 5.3 only): for a diagonal ``D`` of signs,
    ``S(DW) = D S(W)`` and ``C(DW) = D C(W) D``, whose sign pattern is
    ``D S(C(W) D) = D S(C(W))`` (a column sign change keeps the column span).
    Not for Theorem 5.6, where negating a row changes the differences ``w_i - w_j``.
"""

from __future__ import annotations

from itertools import combinations_with_replacement, permutations, product
from math import comb

import numpy as np

from verify.io.errors import TooLargeError
from verify.linalg.exact import rank as exact_rank

#: Exhaustive sweeps refuse to start beyond this many row multisets.
MAX_EXHAUSTIVE = 2_000_000

CONSTRUCTIONS = ("entries in [-1, 1]", "entries in [-2, 2]", "entries in [-5, 5]",
                 "parallel rows", "rank deficient", "collinear points", "repeated rows",
                 "a zero row")


def enumerated_matrices(n: int, d: int, *, seed: int = 0, count: int = 200):
    """Yield ``(description, W)`` for ``count`` integer ``n x d`` matrices from ``seed``.

    The constructions cycle through :data:`CONSTRUCTIONS`; entries come from
    ``numpy.random.default_rng(seed)``, so the family is the same on every machine.
    Rows are drawn without repetition where the construction allows it, so that equal
    and zero rows (outside the hypotheses of Theorem 5.6 and Lemma 5.3) come from the
    two constructions made for them, not by accident.
    """
    rng = np.random.default_rng(seed)
    for k in range(count):
        kind = CONSTRUCTIONS[k % len(CONSTRUCTIONS)]
        yield kind, _construct(kind, n, d, rng)


def _distinct_rows(rng, n: int, d: int, box: int) -> np.ndarray:
    """``n`` non-zero rows with entries in ``[-box, box]``, distinct when the grid allows."""
    base = 2 * box + 1
    m = base ** d
    zero = (m - 1) // 2  # the index whose digits are all equal to box, i.e. the zero row
    if n <= m - 1 and m < 2**62:
        picks = rng.choice(m - 1, size=n, replace=False)
        picks = picks + (picks >= zero)  # skip the zero row
        digits = [(picks // (2 * box + 1) ** j) % (2 * box + 1) - box for j in range(d)]
        return np.stack(digits, axis=1)
    return rng.integers(-box, box + 1, size=(n, d))


def _construct(kind: str, n: int, d: int, rng) -> list[list[int]]:
    if kind == "entries in [-1, 1]":
        W = _distinct_rows(rng, n, d, 1)
    elif kind == "entries in [-2, 2]":
        W = _distinct_rows(rng, n, d, 2)
    elif kind == "entries in [-5, 5]":
        W = _distinct_rows(rng, n, d, 5)
    elif kind == "parallel rows":
        base = _distinct_rows(rng, max(1, (n + 1) // 2), d, 3)
        base[~base.any(axis=1)] = 1  # no zero base row
        factors = np.array([1, -1, 2, -2, 3, -3])
        pairs = rng.permutation(len(base) * len(factors))[:n]
        W = base[pairs % len(base)] * factors[pairs // len(base)][:, None]
    elif kind == "rank deficient":
        # X Y with Y of full row rank q < d: distinct non-zero rows of X stay distinct
        # and non-zero in X Y.
        q = max(1, min(d - 1, n - 1))
        box = 2
        while (2 * box + 1) ** q - 1 < n:
            box += 1
        Y = rng.integers(-2, 3, size=(q, d))
        while exact_rank(Y.tolist()) < q:
            Y = rng.integers(-2, 3, size=(q, d))
        W = _distinct_rows(rng, n, q, box) @ Y
    elif kind == "collinear points":
        a = rng.integers(-3, 4, size=d)
        b = rng.integers(-2, 3, size=d)
        b[rng.integers(0, d)] = rng.choice([-1, 1])  # a non-zero direction
        t = rng.permutation(np.arange(-(n // 2) - 2, n - n // 2 + 2))[:n]
        W = a[None, :] + t[:, None] * b[None, :]
    elif kind == "repeated rows":
        W = _distinct_rows(rng, n, d, 2)
        W[-1] = W[0]
    else:  # a zero row
        W = _distinct_rows(rng, n, d, 2)
        W[rng.integers(0, n)] = 0
    return [[int(x) for x in row] for row in W]


def exhaustive_count_bound(n: int, d: int, box: int) -> int:
    """Number of row multisets examined: ``C(m + n - 1, n)`` with ``m = (2K+1)^d``."""
    m = (2 * box + 1) ** d
    return comb(m + n - 1, n)


def exhaustive_matrices(n: int, d: int, box: int, *, row_signs: bool):
    """Every integer ``n x d`` matrix with entries in ``[-box, box]`` up to symmetry.

    Yields one representative per orbit of the group generated by row permutations,
    signed column permutations and (if ``row_signs``) row sign changes: the
    lexicographically least sorted row tuple of its orbit.
    """
    total = exhaustive_count_bound(n, d, box)
    if total > MAX_EXHAUSTIVE:
        raise TooLargeError(
            f"--exhaustive with n={n}, d={d}, box={box} has {total:,} row multisets to "
            f"examine (limit {MAX_EXHAUSTIVE:,}); use a smaller box or the sampled family")
    values = range(-box, box + 1)
    rows = [r for r in product(values, repeat=d)]
    if row_signs:
        rows = sorted({_row_up_to_sign(r) for r in rows})
    column_maps = [(perm, signs) for perm in permutations(range(d))
                   for signs in product((1, -1), repeat=d)]
    for multiset in combinations_with_replacement(rows, n):
        if _is_canonical(multiset, column_maps, row_signs):
            yield [list(r) for r in multiset]


def _row_up_to_sign(row):
    lead = next((a for a in row if a != 0), 0)
    return tuple(-a for a in row) if lead < 0 else tuple(row)


def _is_canonical(multiset, column_maps, row_signs) -> bool:
    for perm, signs in column_maps:
        image = [tuple(signs[j] * row[perm[j]] for j in range(len(perm))) for row in multiset]
        if row_signs:
            image = [_row_up_to_sign(r) for r in image]
        if tuple(sorted(image)) < multiset:
            return False
    return True
