"""The number of cells of a central arrangement from its Whitney numbers, flat by flat.

:mod:`verify.arrangement.zaslavsky` builds the whole lattice of flats in exact
arithmetic, which stops being affordable at some 10^4 flats. Here the same theorem is
evaluated with whole-array integer arithmetic, one rank at a time, so that the cell
counts of ranking patterns with millions of cells can be checked against it.

Mathematics
-----------
Let ``H`` (``K x r``) hold the distinct normals of an essential central arrangement
(rank ``r``), and ``b_k = sum |mu(X)|`` over its flats ``X`` of rank ``k`` (the unsigned
Whitney numbers of the first kind; ``mu(X)`` has the sign ``(-1)^k``). Zaslavsky's
theorem counts the cells as ``sum_k b_k``; since ``chi(1) = sum_X mu(X) = 0`` for a
central arrangement, the top term is ``b_r = |sum_{k<r} (-1)^k b_k|``, so

    cells = sum_{k<r} b_k + |sum_{k<r} (-1)^k b_k|,

and only the flats of rank ``k < r`` are needed (Stanley, Thm. 2.5 and Prop. 3.7 for
``chi(1) = 0``).

1. (Flats.) A flat of rank ``k`` is the closure of ``k`` independent normals ``S``:
   the ``h_g`` in ``span S``, i.e. orthogonal to ``span(S)^perp``. That complement is
   spanned by the generalised cross products of ``S`` completed by ``r - 1 - k``
   coordinate vectors, which are all zero exactly when ``S`` is dependent. Closures are
   deduplicated by their packed member sets.
2. (Möbius function.) By the crosscut theorem, ``mu(X) = sum (-1)^|S|`` over the sets
   ``S`` of members of ``X`` that span ``X`` (Rota; Stanley, Cor. 3.9 for the
   version with atoms); ``S`` spans ``X`` iff it contains ``k`` independent members.
   Flats with ``k`` members give ``(-1)^k``, those of rank 2 with ``m`` members
   ``-(m - 1)``; the others are counted by bit masks over their ``2^m`` subsets, or,
   beyond :data:`CROSSCUT_MEMBERS` members, from their own lattice of flats
   (:mod:`verify.arrangement.zaslavsky`).

Everything is integer arithmetic: ``int64`` when the inputs are small enough for every
minor to fit (Hadamard's bound), Python integers otherwise.

The flats of rank ``r - 1`` are the lines, found here from all ``(r-1)``-subsets
independently of :mod:`verify.arrangement.cocircuits` and of the composition of cells,
so the count checks the enumeration of cells by a different argument.

References
----------
T. Zaslavsky, *Facing up to arrangements*, Mem. AMS 154, 1975. R. P. Stanley, *An
Introduction to Hyperplane Arrangements*, 2004 (Thm. 2.5; Lecture 3 for the crosscut
theorem). G.-C. Rota, *On the foundations of combinatorial theory I*, 1964.

Example
-------
>>> cell_count_by_ranks([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]])
12
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np

from verify.arrangement.cocircuits import generalized_cross_product
from verify.arrangement.oriented_matroid import _bit_words, distinct_keys
from verify.numbers.rational import isqrt

#: Flats with at most this many members get ``mu`` from their ``2^m`` subsets at once;
#: larger ones from their own lattice of flats (at most :data:`MAX_FLATS` flats).
CROSSCUT_MEMBERS = 12
MAX_FLATS = 100_000
#: Subsets examined per vectorised step, at most.
_CHUNK = 20_000
#: Entries of a (flats x subsets) block of the crosscut sums.
_BLOCK = 1 << 22


def cell_count_by_ranks(H) -> int:
    """The number of cells of the essential arrangement with the distinct, non-zero
    integer normals ``H`` (rank = number of columns), by the formula above.

    Raises ``ValueError`` if a flat has more than :data:`MAX_FLATS` flats below it.
    """
    H = _exact(np.asarray(H))
    K, r = H.shape
    if r == 1:
        return 2
    b = [1, K]
    for k in range(2, r):
        b.append(whitney_number(H, k))
    return sum(b) + abs(sum((-1) ** k * bk for k, bk in enumerate(b)))


def whitney_number(H: np.ndarray, k: int) -> int:
    """``b_k``: the sum of ``|mu(X)|`` over the flats ``X`` of rank ``k`` (``k >= 1``)."""
    K = H.shape[0]
    keys = flats_of_rank(H, k)
    size = np.bitwise_count(keys).sum(axis=1)
    total = int((size == k).sum())
    for m in np.unique(size[size > k]):
        rows = np.nonzero(_members(keys[size == m], K))[1].reshape(-1, int(m))
        if k == 2:     # a pencil of m lines: mu = m - 1
            total += len(rows) * (int(m) - 1)
        elif m <= CROSSCUT_MEMBERS:
            total += _crosscut_sum(H, rows, k)
        else:
            total += sum(_mobius_of_flat(H[members]) for members in rows)
    return total


def _mobius_of_flat(rows: np.ndarray) -> int:
    """``|mu|`` of a flat from its own lattice (:mod:`verify.arrangement.zaslavsky`), its
    members written in coordinates where they span the whole space (a column basis:
    projecting onto it keeps every linear relation among them)."""
    from verify.arrangement.zaslavsky import mobius_levels
    from verify.linalg.exact import column_basis

    ints = [[int(a) for a in row] for row in rows]
    basis = column_basis(ints)
    mu = mobius_levels([[row[j] for j in basis] for row in ints], max_flats=MAX_FLATS)
    if mu is None:
        raise ValueError(f"a flat with {len(ints)} members has more than {MAX_FLATS} "
                         "flats below it")
    return abs(int(mu[-1][0]))


def flats_of_rank(H: np.ndarray, k: int) -> np.ndarray:
    """The flats of rank ``k``, distinct, in key order, as packed member sets
    (:func:`~verify.arrangement.oriented_matroid._bit_words` rows; :func:`_members`
    unpacks them)."""
    K, r = H.shape
    subsets = combinations(range(K), k)
    # Each subset makes c = C(r, r-1-k) normals of r entries and c x K products with H,
    # and the cross products hold about r^2 entries per normal while they are built.
    per_chunk = max(1, min(_CHUNK, _BLOCK // (comb(r, r - 1 - k) * (K + r * r))))
    found, pending, distinct = [], 0, 0
    while True:
        chunk = np.fromiter((i for S in _take(subsets, per_chunk) for i in S), dtype=np.intp)
        if chunk.size == 0:
            break
        S = chunk.reshape(-1, k)
        normals = complement(H[S])                       # (B, c, r)
        normals = normals[normals.any(axis=2).any(axis=1)]
        # h is in span S iff it is orthogonal to every normal of span S
        members = ~np.einsum("bcr,kr->bkc", normals, H).any(axis=2)
        keys = _bit_words(members)
        found.append(keys[distinct_keys(keys)[0]])
        pending += len(found[-1])
        if pending > 2 * distinct + per_chunk:      # merge now and then: memory follows flats
            found = [_distinct_rows(np.concatenate(found))]
            pending = distinct = len(found[0])
    if not found:
        return np.zeros((0, (K + 63) // 64), dtype=np.uint64)
    return _distinct_rows(np.concatenate(found))


def _distinct_rows(keys: np.ndarray) -> np.ndarray:
    return keys[distinct_keys(keys)[0]]


def _members(keys: np.ndarray, K: int) -> np.ndarray:
    """Boolean member rows of packed member sets."""
    bytes_ = np.ascontiguousarray(keys.astype(">u8")).view(np.uint8)
    return np.unpackbits(bytes_, axis=1, count=K).astype(bool)


def complement(S: np.ndarray) -> np.ndarray:
    """For a batch ``(B, k, r)`` of integer rows, vectors spanning ``span(S)^perp``: the
    generalised cross products of ``S`` completed by every ``r - 1 - k`` coordinate
    vectors, ``(B, C(r, r-1-k), r)``; all zero iff the rows are dependent."""
    B, k, r = S.shape
    extra = list(combinations(range(r), r - 1 - k))
    E = np.zeros((len(extra), r - 1 - k, r), dtype=S.dtype)
    for c, J in enumerate(extra):
        for t, j in enumerate(J):
            E[c, t, j] = 1
    stacked = np.concatenate([np.repeat(S[:, None], len(extra), axis=1),
                              np.broadcast_to(E, (B, *E.shape))], axis=2)
    return generalized_cross_product(stacked.reshape(-1, r - 1, r)).reshape(B, len(extra), r)


def _crosscut_sum(H: np.ndarray, rows: np.ndarray, k: int) -> int:
    """``sum |mu(X)|`` over flats of rank ``k`` with the member rows ``rows`` (``(F, m)``,
    ``m > k``): ``mu(X) = sum (-1)^|S|`` over the subsets ``S`` that contain ``k``
    independent members."""
    F, m = rows.shape
    bases = np.array(list(combinations(range(m), k)), dtype=np.intp)       # (C, k)
    subsets = np.arange(1 << m, dtype=np.int64)
    base_masks = (1 << bases).sum(axis=1)
    contains = (subsets[:, None] & base_masks[None, :]) == base_masks[None, :]
    parity = np.where(np.bitwise_count(subsets.astype(np.uint64)) % 2 == 0, 1, -1)
    total = 0
    # Per flat: the (bases x subsets) products, and the complements of its bases
    # (C(r, r-1-k) normals of r entries each, about r^2 entries while they are built).
    r = H.shape[1]
    per_block = max(1, _BLOCK // (len(bases) * (len(subsets) + comb(r, r - 1 - k) * r * r)))
    for start in range(0, F, per_block):
        block = rows[start:start + per_block]
        independent = complement(H[block[:, bases]].reshape(-1, k, H.shape[1]))
        independent = independent.reshape(len(block), len(bases), -1).any(axis=2)
        spanning = (independent.astype(np.int64) @ contains.T.astype(np.int64)) > 0
        total += int(np.abs(spanning.astype(np.int64) @ parity).sum())
    return total


def _take(iterator, count: int):
    for _, item in zip(range(count), iterator):
        yield item


def _exact(H: np.ndarray) -> np.ndarray:
    """``int64`` if no minor (and no product with a row) can overflow it, else Python
    integers (Hadamard's bound)."""
    K, r = H.shape
    B = max((abs(int(a)) for a in H.ravel()), default=0)
    if r * B * (isqrt(r * B * B) + 1) ** r < 1 << 62:
        return H.astype(np.int64)
    return H.astype(object)
