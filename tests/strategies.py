"""Hypothesis strategies and seeded generators for small exact matrices.

Matrices are lists of rows of Python ints (or Fractions where stated).  Sizes
stay small on purpose: every generated matrix must be cheap enough for the
brute-force reference (N <= 12 rows, and much fewer in property tests).

The degenerate families are the ones that break naive sign-pattern code:
zero rows, repeated rows, parallel rows (negated or scaled copies),
rank-deficient matrices (products of thin matrices, so the hyperplanes do
not span R^k) and wide matrices (more columns than rows, d > n).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Sequence

from hypothesis import strategies as st

TERNARY = (-1, 0, 1)

__all__ = [
    "TERNARY",
    "small_int_matrices",
    "low_rank_matrices",
    "degenerate_matrices",
    "point_configurations",
    "random_int_matrix",
    "scale_rows",
]


@st.composite
def small_int_matrices(
    draw,
    max_rows: int = 6,
    max_cols: int = 3,
    entries: Sequence[int] = TERNARY,
    min_rows: int = 1,
    min_cols: int = 1,
) -> list[list[int]]:
    """An N x k integer matrix, min_rows <= N <= max_rows, min_cols <= k <= max_cols,
    with entries drawn from ``entries`` (a sequence of allowed values)."""
    k = draw(st.integers(min_cols, max_cols))
    row = st.lists(st.sampled_from(list(entries)), min_size=k, max_size=k)
    return draw(st.lists(row, min_size=min_rows, max_size=max_rows))


@st.composite
def low_rank_matrices(
    draw, max_rows: int = 6, max_cols: int = 4, max_entry: int = 2, min_rows: int = 1
) -> list[list[int]]:
    """A rank-deficient N x k matrix L R with L: N x r, R: r x k and r < k.

    Its rows span at most an r-dimensional subspace, so the hyperplanes share
    a common line (or more) and S(M) is that of an r-column matrix.
    """
    k = draw(st.integers(2, max_cols))
    r = draw(st.integers(1, k - 1))
    values = list(range(-max_entry, max_entry + 1))
    left = draw(small_int_matrices(max_rows, r, values, min_rows=min_rows, min_cols=r))
    right = draw(small_int_matrices(r, k, values, min_rows=r, min_cols=k))
    return [[sum(a * b for a, b in zip(row, col)) for col in zip(*right)] for row in left]


@st.composite
def degenerate_matrices(
    draw,
    max_rows: int = 7,
    max_cols: int = 4,
    max_entry: int = 2,
    allow_zero_rows: bool = True,
) -> list[list[int]]:
    """A small integer matrix mixing the usual degeneracies.

    A base matrix is drawn from one of: ternary entries {-1, 0, 1}; entries in
    [-max_entry, max_entry]; a rank-deficient product of thin matrices; a wide
    matrix (more columns than rows).  Then, up to the row budget, rows are
    appended that are exact copies, negated copies or scaled copies (factor
    +-2, +-3) of existing rows, optionally a zero row, and finally the rows
    are shuffled.  At most ``max_rows`` rows in total.  With
    ``allow_zero_rows=False`` no row is zero (zero rows of the base matrix are
    dropped too).
    """
    values = list(range(-max_entry, max_entry + 1))
    base_rows = draw(st.integers(1, max_rows))
    kind = draw(st.sampled_from(["ternary", "small", "low_rank", "wide"]))
    if kind == "ternary":
        M = draw(small_int_matrices(base_rows, max_cols, TERNARY, min_rows=1))
    elif kind == "small":
        M = draw(small_int_matrices(base_rows, max_cols, values, min_rows=1))
    elif kind == "low_rank":
        M = draw(low_rank_matrices(base_rows, max(2, max_cols), max_entry))
    else:
        rows = draw(st.integers(1, max(1, min(base_rows, max_cols - 1))))
        M = draw(small_int_matrices(rows, max_cols, values, min_rows=rows, min_cols=min(max_cols, rows + 1)))

    if not allow_zero_rows:
        k = len(M[0])
        M = [row for row in M if any(row)] or [[1] + [0] * (k - 1)]

    extra = draw(st.integers(0, max_rows - len(M)))
    for _ in range(extra):
        source = M[draw(st.integers(0, len(M) - 1))]
        factor = draw(st.sampled_from([1, -1, 2, -2, 3, -3]))
        M.append([factor * x for x in source])
    if allow_zero_rows and len(M) < max_rows and draw(st.booleans()):
        M.append([0] * len(M[0]))
    return draw(st.permutations(M))


@st.composite
def point_configurations(
    draw,
    max_points: int = 4,
    max_dim: int = 3,
    entries: Sequence[int] = (-2, -1, 0, 1, 2),
    min_points: int = 2,
    allow_equal_points: bool = True,
) -> list[list[int]]:
    """n points in Z^d (the rows of W) for ranking patterns R(W) = S(B_n W).

    Small entry ranges make coincidences likely: collinear points, points on
    a common line through the origin, and (if allowed) repeated points, for
    which R(W) is empty.
    """
    W = draw(small_int_matrices(max_points, max_dim, entries, min_rows=min_points))
    if not allow_equal_points:
        seen = []
        for row in W:
            if row not in seen:
                seen.append(row)
        W = seen
    return W


def random_int_matrix(seed: int, rows: int, cols: int, bound: int = 10**6) -> list[list[int]]:
    """A seeded rows x cols matrix with independent uniform entries in [-bound, bound].

    With a large bound the matrix is in general position with overwhelming
    probability (every polynomial condition defining a degeneracy has few
    integer zeros in the box), so closed-form "generic" counts apply.
    """
    rng = random.Random(seed)
    return [[rng.randint(-bound, bound) for _ in range(cols)] for _ in range(rows)]


def scale_rows(M: Sequence[Sequence[int]], factors: Sequence[Fraction]) -> list[list[Fraction]]:
    """Row i of M times factors[i] (as Fractions).

    Scaling a row by c > 0 leaves S(M) unchanged; c < 0 flips that coordinate
    of every sign vector.
    """
    return [[Fraction(x) * f for x in row] for row, f in zip(M, factors)]
