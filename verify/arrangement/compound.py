"""Compound matrices: every ``k x k`` minor of a ``K x r`` integer matrix, exactly.

The ``k``-th compound matrix ``C_k(A)`` has one row per ``k``-subset ``I`` of the rows of
``A`` (colexicographic order, :func:`~verify.arrangement.oriented_matroid.
colex_combinations`) and one column per ``k``-subset ``J`` of its columns
(lexicographic order, :func:`column_subsets`); its entries are the minors
``det A[I, J]``.

Mathematics
-----------
Expanding along the last row ``i`` of ``I`` (Laplace),

    det A[I, J] = sum over positions p of c in J of (-1)^(k-1+p) A[i, c] det A[I - i, J - c],

and in colexicographic order ``I - i`` is the ``(k-1)``-subset with index
``colex(I) - C(i, k)``. So ``C_k`` is ``k C(r, k)`` vector operations on ``C_{k-1}``,
each over all row subsets at once: ``sum_k k C(K, k) C(r, k)`` multiplications in all,
every minor computed once and shared by all the larger minors that contain it.

Arithmetic is exact: ``int64`` when Hadamard's inequality proves that no minor (and no
partial sum of the expansion) can overflow, Python integers otherwise.

Example
-------
>>> import numpy as np
>>> C = compound_matrices(np.array([[1, 2], [3, 4], [5, 6]]), 2)
>>> C[1][:, 0].tolist()      # rows {0,1}, {0,2}, {1,2}: the 2 x 2 minors
[-2, -4, -2]
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from verify.arrangement.oriented_matroid import binomial_table, colex_combinations
from verify.numbers.rational import isqrt

_INT64_SAFE = 1 << 62


def column_subsets(r: int, k: int) -> list[tuple[int, ...]]:
    """The ``k``-subsets of ``range(r)`` in the column order of ``C_k``."""
    return list(combinations(range(r), k))


def hadamard_bound(k: int, entry_bound: int) -> int:
    """An integer ``>= |det|`` for every ``k x k`` matrix with entries in ``[-B, B]``:
    ``(sqrt(k) B)^k``."""
    return (isqrt(k * entry_bound * entry_bound) + 1) ** k


def compound_matrices(A: np.ndarray, top: int) -> list[np.ndarray]:
    """``[C_1(A), ..., C_top(A)]`` for an integer matrix ``A`` (``K x r``, ``top <= r``)."""
    A = np.asarray(A)
    K, r = A.shape
    bound = max((abs(int(a)) for a in A.ravel()), default=0)
    # Partial sums of the expansion of a k-minor are bounded by k times a (k-1)-minor
    # bound times B, itself below the k-minor Hadamard bound times k.
    safe = top * hadamard_bound(top, bound) * (bound + 1) < _INT64_SAFE
    A = A.astype(np.int64) if safe else A.astype(object)
    binomials = binomial_table(K, top)
    out = [A.copy()]
    index = {1: {(c,): c for c in range(r)}}
    for k in range(2, top + 1):
        subsets = colex_combinations(K, k)
        last = subsets[:, -1]
        prefix = np.arange(len(subsets), dtype=np.int64) - binomials[last, k]
        previous = out[-1]
        columns = column_subsets(r, k)
        index[k] = {J: j for j, J in enumerate(columns)}
        Ck = np.zeros((len(subsets), len(columns)), dtype=A.dtype)
        rows_of_last = A[last]
        gathered = {J: previous[prefix, index[k - 1][J]] for J in index[k - 1]}
        for j, J in enumerate(columns):
            acc = None
            for p, c in enumerate(J):
                term = rows_of_last[:, c] * gathered[J[:p] + J[p + 1:]]
                if (k - 1 + p) % 2:
                    term = -term
                acc = term if acc is None else acc + term
            Ck[:, j] = acc
        out.append(Ck)
    return out


def maximal_minors(A: np.ndarray) -> np.ndarray:
    """``det A[I]`` for every ``r``-subset ``I`` of rows of ``A`` (``K x r``), colex order."""
    A = np.asarray(A)
    return compound_matrices(A, A.shape[1])[-1][:, 0] if A.shape[1] else np.ones(1, dtype=np.int64)

