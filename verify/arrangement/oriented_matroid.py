"""Topes of an oriented matroid, computed from its chirotope alone.

A *chirotope* of rank ``r`` on the ground set ``E = {0, ..., K-1}`` is an alternating map
``chi : E^r -> {-1, 0, +1}``; for vectors ``h_0, ..., h_{K-1}`` spanning ``R^r`` it is
``chi(i_1, ..., i_r) = sign det [h_i1; ...; h_ir]``. Everything below uses the chirotope
only, through one operation::

    chi.signs_with(rest, elements)[..., j] = chi(elements[..., j], *rest)

so the same code serves integer matrices (determinants computed on demand) and matrices
whose entries are irrational (a certified table of signs).

Mathematics
-----------
Let ``F`` be a flat of rank ``k`` and ``X`` a sequence of ``r - k`` elements completing a
basis of ``F`` to a basis of ``E``. Then ``chi_F(T) = chi(T, X)`` (``T`` a ``k``-subset of
``F``) is a chirotope of the restriction to ``F`` (it is the determinant of ``T`` inside
``span F``, up to a fixed non-zero factor). For a ``(k-1)``-subset ``S`` of ``F`` the
sign vector ``Y_i = chi_F(i, S)``, ``i in F``, is zero or a cocircuit of the restriction,
and every cocircuit arises this way (Björner et al., §3.5).

1. (Composition.) The topes of ``F`` are the compositions ``Y o T'`` of its cocircuits
   ``Y`` with the topes ``T'`` of the restriction to the zero set ``Z(Y)`` (a flat of rank
   ``k - 1``): the vertex-and-localisation argument of
   :mod:`verify.arrangement.cocircuits`, written in terms of ``chi``. This recursion in
   the rank is used for flats with more than :data:`BRUTE_FORCE_LIMIT` elements.
2. (Small flats.) Every covector is the composition of the cocircuits conforming to it
   (Björner et al., §3.7; for a realisation: a face of an essential arrangement is the
   relative interior of the cone spanned by its extreme rays, and the sign vector of
   their sum is the composition of theirs). Hence a sign vector ``T`` without zeros is
   a tope iff the cocircuits ``Y <= T`` (``Y_i in {0, T_i}``) cover ``F``: if they do,
   their composition is a covector of full support below ``T``, which is ``T`` itself.
   For a flat with at most :data:`BRUTE_FORCE_LIMIT` elements all ``2^|F|`` sign vectors
   are tested at once with bit masks.
3. (Loops.) An element with ``chi = 0`` on every basis (a zero vector) is zero on every
   covector, so an oriented matroid with a loop has no topes; both methods return none.

Restrictions to flats with ``|F| = k`` elements are free (all ``2^k`` sign vectors);
the others are batched by size.

References
----------
A. Björner, M. Las Vergnas, B. Sturmfels, N. White, G. M. Ziegler, *Oriented Matroids*,
2nd ed., 1999: §3.5 (chirotopes and cocircuits), §3.7 (topes and their faces).

Example
-------
>>> import numpy as np
>>> from verify.arrangement.cocircuits import IntegerChirotope
>>> chi = IntegerChirotope(np.array([[1, 0], [0, 1], [1, 1]]))
>>> len(topes(chi))
6
"""

from __future__ import annotations

from collections import OrderedDict
from itertools import combinations, islice, product
from math import comb
from typing import Protocol, Sequence

import numpy as np

#: Flats with at most this many elements get all their sign vectors tested at once.
BRUTE_FORCE_LIMIT = 12
#: Rows of ``(r-1)``-subsets examined per vectorised step.
_CHUNK = 20_000
#: Entries of a (flats x subsets x sign vectors) block in the brute-force test.
_BLOCK = 1 << 20
#: Bytes of per-flat results a :class:`FlatMemo` keeps.
MEMO_BYTES = 48 << 20


class FlatMemo:
    """Per-flat results of one chirotope, kept across calls within a byte budget.

    The buckets of :mod:`verify.arrangement.stream` meet the same flats again (a
    cocircuit that is zero on a prefix hyperplane belongs to several buckets), and
    the cocircuits of a flat depend on the chirotope and the flat only. A chirotope
    with a ``memo`` attribute keeps them here; the least recently used leave first.
    Results are shared: callers must not modify them.
    """

    def __init__(self, budget: int | None = None):
        self.budget = MEMO_BYTES if budget is None else budget
        self.size, self.entries = 0, OrderedDict()

    def get(self, key):
        hit = self.entries.get(key)
        if hit is None:
            return None
        self.entries.move_to_end(key)
        return hit[0]

    def put(self, key: bytes, value, nbytes: int) -> None:
        # The entry's own overhead (its key, the dictionary's node, the objects'
        # headers), about 250 bytes: a flat's masks are often smaller.
        nbytes += len(key) + 250
        if key in self.entries or nbytes > self.budget:
            return
        self.entries[key] = (value, nbytes)
        self.size += nbytes
        while self.size > self.budget:
            _, (_, freed) = self.entries.popitem(last=False)
            self.size -= freed


def _flat_key(kind: int, k: int, flat, extension) -> bytes:
    """One compact key per (kind of result, rank, flat, extension)."""
    flat = np.asarray(flat, dtype=np.int32)
    return (bytes((kind, k)) + len(flat).to_bytes(4, "little") + flat.tobytes()
            + np.asarray(extension, dtype=np.int32).tobytes())


_COCIRCUITS, _MASKS = 0, 1


class Chirotope(Protocol):
    """What the tope enumeration needs to know about an oriented matroid."""

    size: int  # K, the ground set is range(K)
    rank: int  # r

    def signs_with(self, rest: np.ndarray, elements: np.ndarray) -> np.ndarray:
        """``chi(e, *rest)`` for every ``e`` in ``elements[..., :]``.

        ``rest`` has shape ``(..., r - 1)``, ``elements`` ``(..., z)`` with the same
        leading shape; the answer has the shape of ``elements``, ``int8`` in {-1, 0, 1}.
        """


# ---------------------------------------------------------------------------
# A chirotope given by a table of signs
# ---------------------------------------------------------------------------


def binomial_table(K: int, r: int) -> np.ndarray:
    """``B[x, j] = C(x, j)`` for ``0 <= x <= K``, ``0 <= j <= r + 1`` (``int64``)."""
    return np.array([[comb(x, j) for j in range(r + 2)] for x in range(K + 1)], dtype=np.int64)


def colex_combinations(K: int, k: int) -> np.ndarray:
    """All ``k``-subsets of ``range(K)`` as sorted rows, in colexicographic order.

    In this order the subset ``c_0 < ... < c_{k-1}`` has index ``sum_j C(c_j, j + 1)``,
    and the subsets of ``range(m)`` come first, which is what lets minors be built up
    by expansion along the last row (:mod:`verify.arrangement.field_chirotope`).
    """
    if k == 0:
        return np.zeros((1, 0), dtype=np.int64)
    previous = colex_combinations(K, k - 1)
    blocks = [np.column_stack([previous[:comb(m, k - 1)], np.full(comb(m, k - 1), m)])
              for m in range(k - 1, K)]
    if not blocks:
        return np.zeros((0, k), dtype=np.int64)
    return np.concatenate(blocks).astype(np.int64)


def colex_rank(subsets: np.ndarray, binomials: np.ndarray) -> np.ndarray:
    """Index of each sorted row of ``subsets`` in :func:`colex_combinations`."""
    k = subsets.shape[-1]
    out = np.zeros(subsets.shape[:-1], dtype=np.int64)
    for j in range(k):
        out += binomials[subsets[..., j], j + 1]
    return out


def permutation_parity(order: np.ndarray) -> np.ndarray:
    """Parity (0 or 1) of each permutation in the last axis (number of inversions mod 2)."""
    k = order.shape[-1]
    parity = np.zeros(order.shape[:-1], dtype=np.int64)
    for a in range(k):
        for b in range(a + 1, k):
            parity += order[..., a] > order[..., b]
    return parity & 1


class TableChirotope:
    """A chirotope stored as one sign per ``r``-subset (``int8``, colexicographic order)."""

    def __init__(self, size: int, rank: int, table: np.ndarray):
        if len(table) != comb(size, rank):
            raise ValueError(f"a chirotope of rank {rank} on {size} elements has "
                             f"{comb(size, rank)} values, got {len(table)}")
        self.size, self.rank = size, rank
        self.table = np.asarray(table, dtype=np.int8)
        self.binomials = binomial_table(size, rank)

    def signs_with(self, rest, elements):
        rest = np.asarray(rest, dtype=np.int64)
        elements = np.asarray(elements, dtype=np.int64)
        if self.rank == 1:
            return self.table[elements]
        # det[h_e; H_rest] = (-1)^(sort parity of rest) (-1)^(position of e) chi(sorted).
        if (rest[..., 1:] > rest[..., :-1]).all():   # already increasing: parity 0
            ordered, parity = rest, None
        else:
            order = np.argsort(rest, axis=-1, kind="stable")
            ordered = np.take_along_axis(rest, order, axis=-1)
            parity = permutation_parity(order)[..., None]
        B = self.binomials
        index = np.zeros(elements.shape, dtype=np.int64)
        smaller = np.zeros(elements.shape, dtype=np.int64)   # rest elements below e
        repeated = np.zeros(elements.shape, dtype=bool)
        for j in range(self.rank - 1):
            s = ordered[..., j:j + 1]
            below = s < elements
            # sorted position of s in rest + e: j if s < e, j + 1 if s > e
            index += np.where(below, B[s, j + 1], B[s, j + 2])
            smaller += below
            repeated |= s == elements
        if self.rank > 2:   # a repeated row in rest itself
            repeated |= (ordered[..., 1:] == ordered[..., :-1]).any(axis=-1)[..., None]
        index += B[elements, smaller + 1]
        values = self.table[np.where(repeated, 0, index)]
        flip = smaller & 1 if parity is None else (smaller + parity) & 1
        values = np.where(flip == 1, -values, values)
        values[repeated] = 0
        return values.astype(np.int8)

    def __eq__(self, other) -> bool:
        return (isinstance(other, TableChirotope) and self.size == other.size
                and self.rank == other.rank and np.array_equal(self.table, other.table))


def agree_up_to_sign(a: TableChirotope, b: TableChirotope) -> bool:
    """True iff ``a = b`` or ``a = -b`` (same rank and ground set)."""
    if a.size != b.size or a.rank != b.rank:
        return False
    return bool(np.array_equal(a.table, b.table) or np.array_equal(a.table, -b.table))


# ---------------------------------------------------------------------------
# Cocircuits and topes
# ---------------------------------------------------------------------------


def flat_cocircuits(chi: Chirotope, flat: np.ndarray, k: int, extension: Sequence[int]):
    """The cocircuits of the restriction to ``flat`` (rank ``k``), one per sign pair.

    Returns ``(Y, S)``: ``Y`` (``int8``, one row per cocircuit over the positions of
    ``flat``, first non-zero entry ``+1``, distinct, in :func:`sign_keys` order) and
    ``S``, for each row, a ``(k-1)``-subset of ``flat`` (element ids) whose span is the
    cocircuit's zero set.
    """
    memo = getattr(chi, "memo", None)
    key = _flat_key(_COCIRCUITS, k, flat, extension)
    if memo is not None and (hit := memo.get(key)) is not None:
        return hit
    Y, S = _flat_cocircuits(chi, flat, k, extension)
    if memo is not None:
        memo.put(key, (Y, S), Y.nbytes + S.nbytes)
    return Y, S


def _flat_cocircuits(chi: Chirotope, flat: np.ndarray, k: int, extension: Sequence[int]):
    z = len(flat)
    ext = np.asarray(extension, dtype=np.int64)
    subsets = combinations(range(z), k - 1)
    Ys, Ss = [], []
    while chunk := list(islice(subsets, _CHUNK)):
        positions = np.array(chunk, dtype=np.int64).reshape(len(chunk), k - 1)
        S = flat[positions]
        rest = np.concatenate([S, np.broadcast_to(ext, (len(S), len(ext)))], axis=1)
        Y = chi.signs_with(rest, np.broadcast_to(flat, (len(S), z)))
        keep = Y.any(axis=1)
        Y, S = _normalise(Y[keep]), S[keep]
        if len(Y):
            Y, first, _ = unique_signs(Y)
            Ys.append(Y)
            Ss.append(S[first])
    if not Ys:
        return np.zeros((0, z), dtype=np.int8), np.zeros((0, k - 1), dtype=np.int64)
    Y, S = np.concatenate(Ys), np.concatenate(Ss)
    Y, first, _ = unique_signs(Y)
    return Y, S[first]


def compose(chi: Chirotope, Y: np.ndarray, flat: np.ndarray, k: int,
            extension: Sequence[int], fixed: np.ndarray | None = None):
    """Candidate topes ``Y o T'`` for every cocircuit row of ``Y`` (rank-``k`` ``flat``).

    Returns ``(candidates, vertex)``: ``candidates[m]`` is ``Y[vertex[m]] o T'`` for a
    tope ``T'`` of the restriction to ``Z(Y[vertex[m]])``. (At the top level the
    cocircuits are the lines of the arrangement, the vertices of its cells.) Only the
    sign of ``Y`` given is used; callers add the negatives (``-Y o -T'``).

    ``fixed`` (``int8`` over the positions of ``flat``, ``0`` where free) asks only for
    the candidates that agree with it where it is non-zero; the rows of ``Y`` must
    conform to it (``Y_i in {0, fixed_i}``). Then only the topes ``T'`` that agree with
    ``fixed`` on ``Z(Y)`` are computed, so that work follows the candidates asked for
    (a bucket of :mod:`verify.arrangement.stream` asks for one prefix).
    """
    z = len(flat)
    zero = Y == 0
    nzero = zero.sum(axis=1)
    ext = np.asarray(extension, dtype=np.int64)
    parts, vertices = [], []
    # Cocircuits with zero sets of the same size are handled together.
    for size in np.unique(nzero):
        index = np.nonzero(nzero == size)[0]
        Zpos = np.nonzero(zero[index])[1].reshape(len(index), size)
        # an element outside the zero set completes a basis of the smaller flat
        off = flat[np.argmax(Y[index] != 0, axis=1)]
        extensions = np.column_stack([off, np.broadcast_to(ext, (len(index), len(ext)))])
        local_fixed = None if fixed is None else fixed[Zpos]
        local, owner = _equal_flats_topes(chi, flat[Zpos], k - 1, extensions, local_fixed)
        cand = Y[index[owner]]
        cand[np.arange(len(owner))[:, None], Zpos[owner]] = local
        parts.append(cand)
        vertices.append(index[owner])
    if not parts:
        return np.zeros((0, z), dtype=np.int8), np.zeros(0, dtype=np.int64)
    return np.concatenate(parts), np.concatenate(vertices)


def topes(chi: Chirotope) -> np.ndarray:
    """All topes (``int8`` rows over ``range(K)``), sorted lexicographically (-1 < +1)."""
    if chi.rank == 0:  # every element is a loop: no topes, unless there are no elements
        return np.zeros((0 if chi.size else 1, chi.size), dtype=np.int8)
    ground = np.arange(chi.size, dtype=np.int64)[None, :]
    found, _ = _equal_flats_topes(chi, ground, chi.rank, np.zeros((1, 0), dtype=np.int64))
    return _sorted_rows(found)


def _equal_flats_topes(chi, Zs: np.ndarray, k: int, ext: np.ndarray,
                       fixed: np.ndarray | None = None):
    """Topes of ``L`` flats of rank ``k`` with ``z`` elements each (rows of ``Zs``).

    Returns ``(T, owner)``: the topes of flat ``f`` are the rows ``T[owner == f]``, over
    the positions of the flat; with ``fixed`` (``(L, z)``, ``0`` where free) only those
    that agree with ``fixed[f]`` where it is non-zero.
    """
    L, z = Zs.shape
    if z == k:  # independent: every sign vector
        every = _all_signs(k)
        T, owner = np.tile(every, (L, 1)), np.repeat(np.arange(L), len(every))
        if fixed is not None:
            keep = _agrees(T, fixed[owner])
            T, owner = T[keep], owner[keep]
        return T, owner
    if z <= BRUTE_FORCE_LIMIT:
        return _brute_force(chi, Zs, k, ext, fixed)
    parts, owners = [], []
    for f in range(L):
        T = _recursive(chi, Zs[f], k, ext[f], None if fixed is None else fixed[f])
        parts.append(T)
        owners.append(np.full(len(T), f))
    return np.concatenate(parts), np.concatenate(owners)


def _agrees(T: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    """Rows of ``T`` equal to ``fixed`` wherever ``fixed`` is non-zero."""
    return ((fixed == 0) | (T == fixed)).all(axis=-1)


def _conforms(Y: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    """Rows of ``Y`` that are zero or equal to ``fixed`` wherever ``fixed`` is non-zero."""
    return ((fixed == 0) | (Y == 0) | (Y == fixed)).all(axis=-1)


def _recursive(chi, flat, k, extension, fixed=None) -> np.ndarray:
    """Topes of one (large) flat by composition over its cocircuits (those that agree
    with ``fixed`` where it is non-zero, if given)."""
    if k == 1:
        ext = np.asarray(extension, dtype=np.int64)
        Y = chi.signs_with(ext[None, :], flat[None, :])
        if (Y == 0).any():  # a loop: no topes
            return np.zeros((0, len(flat)), dtype=np.int8)
        T = np.concatenate([Y, -Y])
        return T if fixed is None else T[_agrees(T, fixed)]
    Y, _ = flat_cocircuits(chi, flat, k, extension)
    if fixed is None:
        cand, _ = compose(chi, Y, flat, k, extension)
        return _unique_rows(np.concatenate([cand, -cand]))
    # Every vertex of a tope that agrees with ``fixed`` conforms to it: compose those
    # cocircuits (of either sign) only, asking their restrictions for ``fixed`` too.
    Y = np.concatenate([Y, -Y])
    Y = Y[_conforms(Y, fixed)]
    cand, _ = compose(chi, Y, flat, k, extension, fixed)
    return _unique_rows(cand)


def _brute_force(chi, Zs, k, ext, fixed=None):
    """Topes of equally sized small flats: every sign vector against the cocircuits.

    With ``fixed`` (``(L, z)``) only the sign vectors that agree with it are tested:
    flats with the same number of fixed positions are handled together, each with its
    own ``2^(z - f)`` candidates.
    """
    if fixed is not None:
        nfixed = (fixed != 0).sum(axis=1)
        tope_parts, owner_parts = [], []
        for f in np.unique(nfixed):
            group = np.nonzero(nfixed == f)[0]
            T, owner = _brute_force_masks(chi, Zs[group], k, ext[group],
                                          _fixed_candidates(fixed[group]))
            tope_parts.append(T)
            owner_parts.append(group[owner])
        T, owner = np.concatenate(tope_parts), np.concatenate(owner_parts)
        order = np.argsort(owner, kind="stable")   # flats in order, as without ``fixed``
        return T[order], owner[order]
    L_all, z = Zs.shape
    candidates = np.arange(1 << z).astype(np.uint16 if z <= 16 else np.uint32)
    return _brute_force_masks(chi, Zs, k, ext, np.broadcast_to(candidates,
                                                               (L_all, len(candidates))))


def _fixed_candidates(fixed: np.ndarray) -> np.ndarray:
    """For rows of ``fixed`` with the same number ``f`` of non-zero entries, the
    ``2^(z - f)`` bit masks (bit ``i`` set: ``+`` at position ``i``) that agree with each."""
    L, z = fixed.shape
    mask_type = np.uint16 if z <= 16 else np.uint32
    weights = (1 << np.arange(z)).astype(np.int64)
    base = np.where(fixed > 0, weights, 0).sum(axis=1)
    free = np.argsort(fixed != 0, axis=1, kind="stable")[:, :z - int((fixed[0] != 0).sum())]
    t = np.arange(1 << free.shape[1], dtype=np.int64)
    bits = (t[:, None] >> np.arange(free.shape[1])) & 1          # (2^(z-f), z-f)
    masks = base[:, None] + weights[free] @ bits.T                # (L, 2^(z-f))
    return masks.astype(mask_type)


def _brute_force_masks(chi, Zs, k, ext, candidates):
    """The test of :func:`_brute_force` on ``candidates[f]`` (bit masks) of flat ``f``."""
    L_all, z = Zs.shape
    subsets = list(combinations(range(z), k - 1))
    positions = np.array(subsets, dtype=np.int64).reshape(len(subsets), k - 1)
    c = len(positions)
    if z > 24:
        raise ValueError(f"{z} elements are too many for testing all sign vectors")
    mask_type = np.uint16 if z <= 16 else np.uint32
    weights = (1 << np.arange(z)).astype(mask_type)
    full = (1 << z) - 1
    per_block = max(1, _BLOCK // (c * max(1, candidates.shape[1])))
    tope_parts, owner_parts = [], []
    for start in range(0, L_all, per_block):
        Zb, Eb = Zs[start:start + per_block], ext[start:start + per_block]
        Cb = candidates[start:start + per_block][:, None, :]   # bit i set: + at position i
        L = len(Zb)
        plus, minus = _cocircuit_masks(chi, Zb, Eb, k, positions, weights)
        support = plus | minus
        # Y <= T: Y's + inside T's +, Y's - inside T's -; the same for -Y (Y = 0 covers
        # nothing).
        cover = np.zeros((L, candidates.shape[1]), dtype=mask_type)
        for p, m in ((plus, minus), (minus, plus)):
            conform = ((p[..., None] & ~Cb) == 0) & ((m[..., None] & Cb) == 0)
            cover |= np.bitwise_or.reduce(np.where(conform, support[..., None], 0)
                                          .astype(mask_type), axis=1)
        f, t = np.nonzero(cover == full)
        bits = (Cb[f, 0, t].astype(np.int64)[:, None] >> np.arange(z)) & 1
        tope_parts.append(np.where(bits == 1, 1, -1).astype(np.int8))
        owner_parts.append(f + start)
    return np.concatenate(tope_parts), np.concatenate(owner_parts)


def _cocircuit_masks(chi, Zs, ext, k, positions, weights):
    """For each flat ``Zs[f]`` (rank ``k``, completed by ``ext[f]``), the ``+`` and ``-``
    bit masks of ``chi(., S, ext[f])`` over the subsets ``S`` at ``positions``."""
    L, z = Zs.shape
    mask_type = weights.dtype
    plus = np.empty((L, len(positions)), dtype=mask_type)
    minus = np.empty_like(plus)
    memo = getattr(chi, "memo", None)
    keys = [_flat_key(_MASKS, k, Zs[f], ext[f]) for f in range(L)] if memo is not None else None
    missing = []
    for f in range(L):
        hit = memo.get(keys[f]) if memo is not None else None
        if hit is None:
            missing.append(f)
        else:
            plus[f], minus[f] = np.frombuffer(hit, dtype=mask_type).reshape(2, -1)
    if missing:
        missing = np.array(missing, dtype=np.intp)
        Zm, Em = Zs[missing], ext[missing]
        c = len(positions)
        rest = np.concatenate([Zm[:, positions],
                               np.broadcast_to(Em[:, None, :], (len(Zm), c, Em.shape[1]))],
                              axis=2)
        Y = chi.signs_with(rest, np.broadcast_to(Zm[:, None, :], (len(Zm), c, z)))
        plus[missing] = np.bitwise_or.reduce(np.where(Y > 0, weights, 0).astype(mask_type),
                                             axis=2)
        minus[missing] = np.bitwise_or.reduce(np.where(Y < 0, weights, 0).astype(mask_type),
                                              axis=2)
        if memo is not None:
            for f in missing.tolist():
                value = plus[f].tobytes() + minus[f].tobytes()
                memo.put(keys[f], value, len(value))
    return plus, minus


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------


def _all_signs(m: int) -> np.ndarray:
    """All ``2^m`` vectors of ``+-1`` (``int8``, shape ``(2^m, m)``)."""
    return np.array(list(product((1, -1), repeat=m)), dtype=np.int8).reshape(1 << m, m)


def _normalise(Y: np.ndarray) -> np.ndarray:
    """Multiply each non-zero row by the sign of its first non-zero entry."""
    if len(Y) == 0:
        return Y
    lead = Y[np.arange(len(Y)), np.argmax(Y != 0, axis=1)]
    return Y * lead[:, None]


def _bit_words(mask: np.ndarray) -> np.ndarray:
    """Boolean rows as big-endian 64-bit words: the first entry is the top bit, so the
    words compare like the rows (lexicographically, False < True)."""
    packed = np.packbits(mask, axis=1)
    pad = (-packed.shape[1]) % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    return np.ascontiguousarray(packed).view(">u8").astype(np.uint64)


def sign_keys(signs: np.ndarray) -> np.ndarray:
    """Integer keys of sign rows, one row of 64-bit words each.

    Rows of ``+-1`` compare like the rows themselves (-1 < +1); rows with zeros get
    a canonical order (their ``+`` and ``-`` masks).
    """
    words = _bit_words(signs > 0)
    if (signs == 0).any():
        words = np.concatenate([words, _bit_words(signs < 0)], axis=1)
    return words


def unique_signs(signs: np.ndarray):
    """Distinct rows of ``signs`` in key order, with the index of each one's first
    occurrence and, for every row, the position of its distinct row.

    Returns ``(unique_rows, first, inverse)``.
    """
    if len(signs) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return signs, empty, empty
    first, inverse = distinct_keys(sign_keys(signs))
    return signs[first], first, inverse


def distinct_keys(keys: np.ndarray):
    """For rows of 64-bit words (:func:`sign_keys`, or packed masks compared the same
    way): the index of the first occurrence of each distinct row, in key order, and for
    every row the position of its distinct row. Returns ``(first, inverse)``."""
    order = _key_order(keys)
    ordered = keys[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    del ordered
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return order[new], inverse


def _unique_rows(signs: np.ndarray) -> np.ndarray:
    return unique_signs(signs)[0]


def _sorted_rows(signs: np.ndarray) -> np.ndarray:
    """Rows of ``+-1`` sorted lexicographically (-1 < +1)."""
    if len(signs) < 2:
        return signs
    return signs[_key_order(sign_keys(signs))]


def _key_order(keys: np.ndarray) -> np.ndarray:
    """The stable order of rows of 64-bit words, compared word by word."""
    if keys.shape[1] == 1:
        return np.argsort(keys[:, 0], kind="stable")
    return np.lexsort(keys.T[::-1])
