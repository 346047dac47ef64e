"""Topes of a central hyperplane arrangement from its cocircuits.

Let ``H`` be the ``K x r`` integer matrix of the normals of ``K`` hyperplanes in ``R^r``
with ``rank H = r`` (an *essential* arrangement; callers merge parallel rows first,
which is faster but not needed). Its topes are the sign vectors ``sign(H z)`` with no
zero entry, one per open cell.

Mathematics
-----------
A *cocircuit* is the sign vector ``Y = sign(H v)`` of a line ``v`` that is the
intersection of hyperplanes of rank ``r - 1``; such lines are the null spaces of the
``(r-1)``-subsets of rows of rank ``r - 1``, and ``v`` is given exactly by the signed
maximal minors (the generalised cross product). Write ``Z(Y)`` for its zero set.

1. (Vertices.) The closure of a cell ``T`` is the pointed polyhedral cone
   ``{z : T_i h_i . z >= 0}`` (pointed because ``rank H = r``), hence the conic hull of
   its extreme rays, and these are exactly the cocircuits ``Y`` conforming to ``T``
   (``Y_i in {0, T_i}``). For ``r >= 2`` every cell has at least two of them.
2. (Composition.) If ``Y`` is a vertex of ``T`` then ``T = Y o T'`` where ``T'`` is the
   restriction of ``T`` to ``Z(Y)``, a tope of the localisation ``{h_i : i in Z(Y)}``
   (take ``v + eps z`` for ``z`` in the cell). Conversely ``Y o T'`` is a tope for every
   tope ``T'`` of the localisation. The localisation has rank ``r - 1``; when
   ``|Z(Y)| = r - 1`` its rows are independent and all ``2^(r-1)`` sign vectors occur,
   otherwise its topes are computed by recursion.
3. (Witness.) The sum of the extreme rays of a full-dimensional pointed cone lies in its
   interior: ``T_i h_i . sum_v v >= 0`` with equality only if ``h_i`` vanished on the
   whole cone. So the sum of the vertex vectors of ``T`` is an exact integer point of
   the open cell, and it is found for free while composing.

So the topes are exactly ``{Y o T'}`` over all signed cocircuits, each with its witness.
All arithmetic is on integers; numpy ``int64`` is used only when a Hadamard-type bound
proves that no intermediate value can overflow, and Python integers (``dtype=object``)
otherwise, so every sign is exact.

References
----------
A. Björner, M. Las Vergnas, B. Sturmfels, N. White, G. M. Ziegler, *Oriented Matroids*,
2nd ed., 1999, §3.7 (topes, and the tope graph), §4.1 (faces of realisable oriented
matroids). R. P. Stanley, *An Introduction to Hyperplane Arrangements*, 2004, Lecture 1.

Example
-------
>>> import numpy as np
>>> signs, points = enumerate_topes(np.array([[1, 0], [0, 1], [1, 1]]))
>>> len(signs)
6
"""

from __future__ import annotations

from itertools import chain, combinations, islice
from math import comb

import numpy as np

from verify.io.errors import TooLargeError
from verify.numbers.rational import isqrt

from verify.arrangement.oriented_matroid import (
    FlatMemo,
    _bit_words,
    compose,
    distinct_keys,
    unique_signs,
)

#: Beyond this many ``(r-1)``-subsets the enumeration refuses to start.
MAX_SUBSETS = 20_000_000
_CHUNK = 20_000
_INT64_SAFE = 1 << 62


def enumerate_topes(H: np.ndarray, *, witnesses: bool = True):
    """All topes of the essential arrangement ``H`` (``K x r``, rank ``r``).

    Parameters
    ----------
    H : integer array (``int64`` or ``object``) of non-zero rows, of full column rank.
    witnesses : also return one integer interior point per tope.

    Returns
    -------
    signs : ``int8`` array ``(C, K)`` of topes in {-1, +1}, sorted lexicographically.
    points : integer array ``(C, r)`` (only if ``witnesses``), ``sign(H p) = signs``.
    """
    K, r = H.shape
    if r == 1:
        # One hyperplane (the origin of a line): two half-lines.
        s = np.sign(H[:, 0]).astype(np.int8)
        signs = np.array([s, -s], dtype=np.int8)
        points = np.array([[1], [-1]], dtype=H.dtype)
        order = np.lexsort(signs.T[::-1])
        return (signs[order], points[order]) if witnesses else signs[order]
    H = _safe_dtype(H)
    Y, V = cocircuits(H)
    cand, gens = _compose(H, Y, V)
    # Each signed cocircuit contributes to a tope at most once: negate for -v.
    cand = np.concatenate([cand, -cand])
    gens = np.concatenate([gens, -gens])
    signs, _, group = unique_signs(cand)   # sorted lexicographically
    if not witnesses:
        return signs
    by_group = np.argsort(group, kind="stable")
    starts = np.searchsorted(group[by_group], np.arange(len(signs)))
    points = np.add.reduceat(gens[by_group], starts, axis=0)
    return signs, _primitive_rows(points)


def cocircuits(H: np.ndarray):
    """The cocircuits of ``H``, one per line, with an integer vector on each line.

    Returns ``(Y, V)``: ``Y`` is ``int8`` ``(L, K)`` with first non-zero entry ``+1``,
    distinct, in :func:`~verify.arrangement.oriented_matroid.sign_keys` order; ``V[l]``
    spans the line and ``sign(H V[l]) = Y[l]``. An arrangement without intersection
    lines (no columns, or rank below ``r - 1``) has none: ``L = 0``.
    """
    K, r = H.shape
    if r == 0:
        return np.zeros((0, K), dtype=np.int8), np.zeros((0, 0), dtype=H.dtype)
    total = comb(K, r - 1)
    if total > MAX_SUBSETS:
        raise TooLargeError(
            f"{K} hyperplanes in rank {r} have {total:,} intersection lines to examine "
            f"(limit {MAX_SUBSETS:,}): the pattern has up to about "
            f"{generic_tope_count(K, r):,} cells, too many to enumerate")
    subsets = combinations(range(K), r - 1)
    lines = _LineTable(K)
    while True:
        chunk = np.fromiter(chain.from_iterable(islice(subsets, _CHUNK)), dtype=np.intp)
        if chunk.size == 0:
            break
        idx = chunk.reshape(-1, r - 1)
        v = generalized_cross_product(H[idx])
        spans = np.any(v != 0, axis=1)
        if not spans.any():
            continue
        idx, v = idx[spans], v[spans]
        Y = np.sign(v @ H.T).astype(np.int8)
        lead = Y[np.arange(len(Y)), np.argmax(Y != 0, axis=1)]
        lines.add(_line_keys(Y * lead[:, None]), idx, lead)
    keys, idx, lead = lines.merged()
    return _signs_of_keys(keys, K), _line_vectors(H, idx, lead)


class _LineTable:
    """The distinct lines met so far, each with the first ``(r-1)``-subset that spans it.

    A line is kept as its packed key (:func:`_line_keys`, ``2 ceil(K/64)`` words), the
    subset (``r - 1`` small integers) and the sign that orients its vector, about 40
    bytes for ``K = 78`` against 120 for the sign row and the vector: the vectors are
    computed again, once, for the distinct lines only (:func:`_line_vectors`). Subsets
    arrive in lexicographic order and every merge is stable, so each line keeps the
    first subset that meets it, as if all were deduplicated at once.
    """

    def __init__(self, K: int):
        self.K = K
        self.keys, self.idx, self.lead, self.rows, self.distinct = [], [], [], 0, 0
        # the smallest integer type that holds the element ids
        self.ids = np.uint8 if K <= 1 << 8 else np.uint16 if K <= 1 << 16 else np.intp

    def add(self, keys: np.ndarray, idx: np.ndarray, lead: np.ndarray) -> None:
        first = distinct_keys(keys)[0]
        self.keys.append(keys[first])
        self.idx.append(idx[first].astype(self.ids))
        self.lead.append(lead[first])
        self.rows += len(first)
        if self.rows > 2 * self.distinct + _CHUNK:
            # A line is met by many subsets: merge now and then, so that memory follows
            # the number of lines.
            self.merged()

    def merged(self):
        """``(keys, subsets, signs)`` of the distinct lines, in key order."""
        if not self.keys:  # no subset spans a line
            return (np.zeros((0, 2 * (-(-self.K // 64))), dtype=np.uint64),
                    np.zeros((0, 0), dtype=self.ids), np.zeros(0, dtype=np.int8))
        keys = np.concatenate(self.keys)
        first = distinct_keys(keys)[0]
        self.keys = [keys[first]]
        del keys
        self.idx = [np.concatenate(self.idx)[first]]
        self.lead = [np.concatenate(self.lead)[first]]
        self.rows = self.distinct = len(first)
        return self.keys[0], self.idx[0], self.lead[0]


def _line_keys(Y: np.ndarray) -> np.ndarray:
    """:func:`~verify.arrangement.oriented_matroid.sign_keys` of rows that all have a zero
    (as cocircuits do): the words of the ``+`` mask, then those of the ``-`` mask."""
    return np.concatenate([_bit_words(Y > 0), _bit_words(Y < 0)], axis=1)


def _signs_of_keys(keys: np.ndarray, K: int) -> np.ndarray:
    """The ``int8`` sign rows of :func:`_line_keys` rows (its inverse), by chunks."""
    words = keys.shape[1] // 2
    Y = np.empty((len(keys), K), dtype=np.int8)
    for start in range(0, len(keys), _CHUNK):
        part = keys[start:start + _CHUNK]
        plus, minus = (np.unpackbits(np.ascontiguousarray(half.astype(">u8")).view(np.uint8),
                                     axis=1, count=K).view(np.int8)
                       for half in (part[:, :words], part[:, words:]))
        Y[start:start + _CHUNK] = plus - minus
    return Y


def _line_vectors(H: np.ndarray, idx: np.ndarray, lead: np.ndarray) -> np.ndarray:
    """The generalised cross products of the subsets ``idx``, times ``lead``, by chunks."""
    parts = [generalized_cross_product(H[idx[start:start + _CHUNK].astype(np.intp)])
             * lead[start:start + _CHUNK, None].astype(H.dtype)
             for start in range(0, len(idx), _CHUNK)]
    return np.concatenate(parts) if parts else np.zeros((0, H.shape[1]), dtype=H.dtype)


def generalized_cross_product(rows: np.ndarray) -> np.ndarray:
    """For a batch ``(S, r-1, r)`` of integer matrices, the vectors orthogonal to their rows.

    ``v_j = (-1)^j det(rows without column j)``; ``v = 0`` iff the rows are dependent.
    The minors are built up by Laplace expansion along the last row, so the batch
    shares every step (exact integer arithmetic, no division).
    """
    S, k, r = rows.shape
    if k == 0:
        # No rows (r = 1): the determinant of the empty matrix, 1, spans R^1.
        return np.ones((S, r), dtype=rows.dtype)
    minors = {(c,): rows[:, 0, c] for c in range(r)}
    for t in range(1, k):
        x = rows[:, t, :]
        grown = {}
        for J in combinations(range(r), t + 1):
            acc = None
            for pos, c in enumerate(J):
                term = x[:, c] * minors[J[:pos] + J[pos + 1:]]
                if (t + pos) % 2:
                    term = -term
                acc = term if acc is None else acc + term
            grown[J] = acc
        minors = grown
    cols = []
    for j in range(r):
        m = minors[tuple(c for c in range(r) if c != j)]
        cols.append(-m if j % 2 else m)
    return np.stack(cols, axis=1)


def _compose(H, Y, V):
    """Candidate topes ``Y o T'`` over the cocircuits ``Y`` (one sign each), with generators.

    Localisations are computed from the chirotope of ``H`` (:mod:`oriented_matroid`),
    batched over the lines and once per flat.
    """
    K, r = H.shape
    cand, line = compose(IntegerChirotope(H), Y, np.arange(K, dtype=np.int64), r, ())
    return cand, V[line]


class IntegerChirotope:
    """``chi(I) = sign det H[I]`` of an integer matrix ``H`` (``K x r``), on demand.

    ``signs_with(rest, elements)`` computes the generalised cross product of the rows
    ``rest`` once and takes its products with the rows ``elements`` (Laplace expansion
    along the first row), exactly: ``H`` is ``int64`` only when :func:`_safe_dtype`
    proves that nothing overflows, Python integers otherwise.
    """

    def __init__(self, H: np.ndarray):
        self.H = _safe_dtype(np.asarray(H))
        self.size, self.rank = self.H.shape
        self.memo = _memo_of(self.H) if self.rank >= MEMO_MIN_RANK else None

    def signs_with(self, rest, elements):
        rest = np.asarray(rest, dtype=np.intp)
        elements = np.asarray(elements, dtype=np.intp)
        lead = elements.shape[:-1]
        if self.rank == 1:
            return np.sign(self.H[elements, 0]).astype(np.int8)
        v = generalized_cross_product(self.H[rest.reshape(-1, self.rank - 1)])
        v = v.reshape(*lead, 1, self.rank)
        values = (self.H[elements] * v).sum(axis=-1)
        return np.sign(values).astype(np.int8)


#: From this rank on, chirotopes keep their per-flat results (a :class:`FlatMemo`): in
#: rank 5 a restriction costs about as much to compute again as to look up (13 x 5:
#: the same CPU time, 54 MB more memory), in rank 6 it does not (10 x 6: 47 CPU-s with
#: the memo, 66 with a memo of 4 MB).
MEMO_MIN_RANK = 6

#: The matrix whose per-flat results the process keeps, and its memo: the buckets of a
#: streamed pattern build one chirotope each, of the same matrix.
_LAST_MEMO: list = [None, None]


def _memo_of(H: np.ndarray) -> FlatMemo:
    """The process's :class:`FlatMemo` for ``H`` (a new one when ``H`` changes)."""
    last, memo = _LAST_MEMO
    if last is None or last.shape != H.shape or not np.array_equal(last, H):
        last, memo = H.copy(), FlatMemo()
        _LAST_MEMO[:] = [last, memo]
    return memo


def generic_tope_count(K: int, r: int) -> int:
    """Cells of ``K`` central hyperplanes in general position in ``R^r``: an upper bound
    for any essential arrangement of ``K`` hyperplanes in rank ``r`` (Zaslavsky)."""
    # C(K-1, k+1) = C(K-1, k) (K-1-k) / (k+1), exactly: one product and one exact
    # division per term (a binomial computed afresh for each k took 22 s for the
    # ranking bound of a 32,000 x 4,096 head).
    total, term = 0, 1
    for k in range(min(r, K)):
        total += term
        term = term * (K - 1 - k) // (k + 1)
    return 2 * total


def _safe_dtype(H: np.ndarray) -> np.ndarray:
    """``int64`` if no value computed from ``H`` can overflow it, else Python integers.

    Minors of ``r - 1`` rows are bounded by Hadamard's inequality, ``|v| <= (sqrt(r) B)^(r-1)``
    with ``B = max |H|``; the products ``H v`` and the witness sums (at most
    ``2 C(K, r-1)`` generators) are bounded from there.
    """
    K, r = H.shape
    B = max((abs(int(a)) for a in H.ravel()), default=0)
    vmax = (isqrt(r * B * B) + 1) ** (r - 1)
    witness_max = 2 * comb(K, max(r - 1, 0)) * vmax
    if r * B * witness_max < _INT64_SAFE:
        return H.astype(np.int64)
    return H.astype(object)


def _primitive_rows(points: np.ndarray) -> np.ndarray:
    """Divide each integer row by the gcd of its entries (a positive factor)."""
    if points.dtype == object:
        from math import gcd

        rows = [[a // g for a in row] for row in points
                for g in [gcd(*(int(a) for a in row)) or 1]]
        # reshape: no rows (a bucket of the stream without cells) keep their width
        return np.array(rows, dtype=object).reshape(points.shape)
    g = np.gcd.reduce(points, axis=1)
    g[g == 0] = 1
    return points // g[:, None]
