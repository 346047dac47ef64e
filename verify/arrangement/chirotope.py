"""Sign patterns of matrices with real algebraic entries, from their chirotope.

The cosine matrix ``C(M)`` has entries ``w_i . w_j / (|w_i| |w_j|)``, square roots of
rationals. Its sign pattern is computed here without ever leaving exact arithmetic and
without the row and column scalings that relate ``C(M)`` to ``M`` (those are the proof
of Lemma 5.3, not a check of it).

Mathematics
-----------
Let ``H`` (``N x k``) have entries in an ordered field ``K`` in which we can decide signs
exactly (here: sums of square roots, :class:`verify.numbers.sqrt_sum.SqrtSum`).

1. A column basis ``B`` of ``H`` is found by exact Gaussian elimination over ``K``;
   ``S(H) = S(H[:, B])``, and ``H[:, B]`` has full column rank ``r``.
2. The *chirotope* ``chi(I) = sign det H[I, B]`` of the rows, for all ``r``-subsets
   ``I``, is computed with every sign certified
   (:mod:`verify.arrangement.field_chirotope`: a rigorous integer filter for the
   non-zero minors, certified linear dependencies for the zero ones).
3. The oriented matroid, and so the sign pattern, is a function of the chirotope: the
   topes are the compositions of its cocircuits with the topes of their localisations
   (:mod:`verify.arrangement.oriented_matroid`; Björner et al., *Oriented Matroids*,
   §3.7).

A witness of a tope is the sum of the exact vertex vectors ``v(S)`` (signed maximal
minors of ``H_S``, ``S`` spanning a line) of its vertices, as in the integer engine;
witnesses are computed on request (``witnesses=True``), since they cost exact
arithmetic over ``K``.
"""

from __future__ import annotations

import numpy as np

from verify.arrangement.field_chirotope import certified_chirotope
from verify.arrangement.oriented_matroid import (
    TableChirotope,
    compose,
    flat_cocircuits,
    topes,
    unique_signs,
)
from verify.numbers.sqrt_sum import SqrtSum, as_sqrt_sum, det


def exact_column_basis(H) -> list[int]:
    """Pivot columns of ``H`` by exact Gaussian elimination over the field of its entries."""
    rows = [[as_sqrt_sum(a) for a in row] for row in H]
    if not rows:
        return []
    pivots = []
    work = [list(row) for row in rows]
    top = 0
    for j in range(len(rows[0])):
        pivot_row = next((i for i in range(top, len(work)) if not work[i][j].is_zero()), None)
        if pivot_row is None:
            continue
        work[top], work[pivot_row] = work[pivot_row], work[top]
        inv = work[top][j].inverse()
        for i in range(top + 1, len(work)):
            if not work[i][j].is_zero():
                f = work[i][j] * inv
                work[i] = [a - f * b for a, b in zip(work[i], work[top])]
        pivots.append(j)
        top += 1
        if top == len(work):
            break
    return pivots


def field_chirotope(H, *, stats: dict | None = None) -> TableChirotope:
    """The certified chirotope of the rows of ``H`` (on a column basis found exactly)."""
    rows = [[as_sqrt_sum(a) for a in row] for row in H]
    basis = exact_column_basis(rows)
    return certified_chirotope([[row[j] for j in basis] for row in rows], stats=stats)


def field_topes(H, *, witnesses: bool = False, stats: dict | None = None):
    """Topes of the arrangement with normals the rows of ``H`` (entries in ``K``).

    Returns a sorted list of sign tuples over the rows of ``H`` (no zero rows allowed:
    the caller reports those), and, if ``witnesses``, a dict tope -> exact point in
    ``K^k`` with ``sign(H z) = tope``.
    """
    rows = [[as_sqrt_sum(a) for a in row] for row in H]
    k = len(rows[0])
    basis = exact_column_basis(rows)
    reduced = [[row[j] for j in basis] for row in rows]
    chi = certified_chirotope(reduced, stats=stats)
    if not witnesses:
        return [tuple(int(s) for s in T) for T in topes(chi)]
    ground = np.arange(chi.size, dtype=np.int64)
    Y, S = flat_cocircuits(chi, ground, chi.rank, ())
    cand, line = compose(chi, Y, ground, chi.rank, ())
    cand = np.concatenate([cand, -cand])
    line = np.concatenate([line, line])
    orientation = np.concatenate([np.ones(len(line) // 2, dtype=np.int64),
                                  -np.ones(len(line) // 2, dtype=np.int64)])
    signs, _, group = unique_signs(cand)
    vertices = [_vertex_vector(reduced, S[l], Y[l]) for l in range(len(Y))]
    sums = [[SqrtSum(0)] * len(basis) for _ in range(len(signs))]
    for g, l, o in zip(group, line, orientation):
        sums[g] = [a + o * b for a, b in zip(sums[g], vertices[l])]
    out, lifted = [], {}
    for T, point in zip(signs, sums):
        T = tuple(int(s) for s in T)
        z = [SqrtSum(0)] * k
        for j, a in zip(basis, point):
            z[j] = a
        out.append(T)
        lifted[T] = z
    return out, lifted


def _vertex_vector(H, S, Y):
    """The exact vector on the line of ``S`` with ``sign(H v) = Y``: signed maximal minors."""
    r = len(H[0])
    rows = [H[i] for i in S]
    v = [(-1) ** j * det([[row[c] for c in range(r) if c != j] for row in rows])
         for j in range(r)]
    i = next(i for i, y in enumerate(Y) if y)
    value = sum((a * b for a, b in zip(H[i], v)), SqrtSum(0))
    return v if value.sign() == Y[i] else [-a for a in v]
