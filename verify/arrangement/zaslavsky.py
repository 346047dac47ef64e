"""The number of cells of a central arrangement from its lattice of flats (Zaslavsky).

Mathematics
-----------
A *flat* of the arrangement with normals ``h_0, ..., h_{K-1}`` (rows of ``H``, rank
``r``) is a set ``F`` of hyperplanes that is closed: every ``h_g`` in the span of
``{h_i : i in F}`` belongs to ``F``. Ordered by inclusion the flats form a lattice
graded by rank, from the empty flat (rank 0) to the set of all hyperplanes (rank
``r``). Its Möbius function is ``mu(empty) = 1`` and ``mu(F) = -sum_{G < F} mu(G)``.
Zaslavsky's theorem counts the cells (topes):

    r(A) = sum over flats F of |mu(F)|      (= |chi_A(-1)|).

The flats of rank ``j + 1`` are the closures of ``F + {h}`` for flats ``F`` of rank
``j`` and ``h`` outside ``F``: the hyperplanes ``g`` with ``h_g . N = 0`` for an exact
integer basis ``N`` of the null space of ``{h_i : i in F} + {h}``. Everything is exact
integer arithmetic (null spaces by FLINT, products in Python integers).

This is a check independent of the cocircuit enumeration, but the lattice can be far
larger than ``K``: :func:`cell_count` gives up (returns ``None``) beyond ``max_flats``.

References
----------
T. Zaslavsky, *Facing up to arrangements: face-count formulas for partitions of space
by hyperplanes*, Mem. AMS 154, 1975. R. P. Stanley, *An Introduction to Hyperplane
Arrangements*, 2004, Thm. 2.5.

Example
-------
>>> cell_count([[1, 0], [0, 1], [1, 1]])
6
"""

from __future__ import annotations

import numpy as np

from verify.linalg.exact import integer_nullspace

#: Beyond this many flats the lattice is not built.
MAX_FLATS = 20_000


def cell_count(H, *, max_flats: int = MAX_FLATS) -> int | None:
    """``r(A)`` for the essential arrangement with the distinct, non-zero normals ``H``
    (rows of integers, rank = number of columns), or ``None`` if the lattice has more
    than ``max_flats`` flats."""
    mu = mobius_levels(H, max_flats=max_flats)
    if mu is None:
        return None
    return sum(abs(int(m)) for level in mu for m in level)


def mobius_levels(H, *, max_flats: int = MAX_FLATS):
    """``mu(F)`` for the flats ``F`` of each rank ``0..r`` (in the order of
    :func:`flats`; the last level is the whole arrangement), or ``None`` beyond
    ``max_flats`` flats."""
    H = np.array([[int(a) for a in row] for row in H], dtype=object)
    K, r = H.shape
    levels = flats(H, max_flats=max_flats)
    if levels is None:
        return None
    lower = np.zeros((1, K), dtype=np.int64)      # the empty flat
    mu_lower = np.ones(1, dtype=object)
    found = [mu_lower]
    for masks in levels[1:]:
        F = masks.astype(np.int64)
        # G <= F iff |G n F| = |G|; only flats of lower rank are smaller.
        below = (lower @ F.T) == lower.sum(axis=1)[:, None]
        mu = -(below.astype(object).T @ mu_lower)
        found.append(mu)
        lower = np.concatenate([lower, F])
        mu_lower = np.concatenate([mu_lower, mu])
    return found


def flats(H: np.ndarray, *, max_flats: int = MAX_FLATS):
    """The flats of each rank ``0..r`` as boolean membership rows, or ``None`` beyond
    ``max_flats`` flats in all."""
    K, r = H.shape
    levels = [np.zeros((1, K), dtype=bool)]
    count = 1
    for j in range(r):
        found: dict[bytes, np.ndarray] = {}
        for F in levels[-1]:
            covered = F.copy()
            basis = list(np.nonzero(F)[0][:0]) if j == 0 else _basis(H, F, j)
            for h in range(K):
                if covered[h]:
                    continue
                N = integer_nullspace([list(H[i]) for i in basis + [h]])
                members = (np.ones(K, dtype=bool) if not N else
                           ~(H.dot(np.array(N, dtype=object).T) != 0).any(axis=1))
                covered |= members
                found.setdefault(members.tobytes(), members)
                if count + len(found) > max_flats:
                    return None
        level = np.array(list(found.values()), dtype=bool).reshape(len(found), K)
        count += len(level)
        levels.append(level)
    return levels


def _basis(H, F, j) -> list[int]:
    """``j`` independent rows among the members of the rank-``j`` flat ``F``."""
    from verify.linalg.exact import rank

    chosen: list[int] = []
    for i in np.nonzero(F)[0]:
        if rank([list(H[g]) for g in chosen + [int(i)]]) > len(chosen):
            chosen.append(int(i))
            if len(chosen) == j:
                break
    return chosen
