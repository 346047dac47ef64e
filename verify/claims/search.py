"""Searching small integer matrices for new counterexamples to "X determines R(W)".

* Theorem H.1 pairs: two labelled point configurations ``P, Q`` (``n`` distinct points
  in ``[-K, K]^d``) with ``S([1|P]) = S([1|Q])`` (the same labelled oriented matroid,
  i.e. chirotopes equal up to a global sign) but ``R(P) != R(Q)``.
* Theorem 5.5 pairs: two integer matrices with exactly equal cosine matrices
  ``C(W_1) = C(W_2)`` but ``R(W_1) != R(W_2)``.

Method for H.1. Labels are arbitrary, so configurations are enumerated as *sets* of
points. For each set the chirotope of every labelling is computed at once from the
tensor of orientations ``sign det [1 p_a; 1 p_b; 1 p_c]`` (exact integers), normalised
to a global sign, and the lexicographically least one is the set's canonical oriented
matroid; the labellings attaining it form a coset of its automorphism group. Two sets
with the same canonical oriented matroid, in canonical labellings ``λ_P, λ_Q``, have
equal sign patterns, and they form a pair unless ``R(Q λ_Q α) = R(P λ_P)`` for every
automorphism ``α``; the search compares the ranking pattern of ``P`` with those of
``Q`` under all canonical labellings and reports the first that differs. Both ranking
patterns are computed exactly by the engine, and the reported pair is then certified
like Theorem H.1 itself (witnesses on one side, Gordan certificates on the other).

Method for 5.5. ``C(W)`` is determined by the signed squared cosines
``sign(w_i.w_j) (w_i.w_j)^2 / (|w_i|^2 |w_j|^2)``, which are rational: matrices are
grouped by that exact fingerprint and ranking patterns compared within each group.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from itertools import combinations, permutations, product

import numpy as np

from verify.arrangement import ranking_pattern
from verify.io.errors import InputError, TooLargeError, count_text

MAX_SETS = 3_000_000

#: A search looks at sets of at most this many points or rows.
MAX_N = 1000


def box_count(d: int, box: int) -> int:
    """The number of points of ``[-box, box]^d``, or a lower bound above ``2^64`` when
    it is larger: exact powers of that size would take the memory of the answer."""
    bits = ((2 * box + 1).bit_length() - 1) * d  # (2 box + 1)^d >= 2^bits
    return 2 ** bits if bits > 64 else (2 * box + 1) ** d


def _box_text(box: int) -> str:
    return str(box) if box < 10 ** 15 else count_text(box)


def _refuse_large_n(n: int) -> None:
    if n > MAX_N:
        raise TooLargeError(f"--n {count_text(n)}: a search looks at sets of at most "
                            f"{MAX_N:,} points or rows")


def box_points(d: int, box: int) -> list[tuple[int, ...]]:
    return list(product(range(-box, box + 1), repeat=d))


def orientation_tensor(sets: np.ndarray) -> np.ndarray:
    """``sign det [1 p_a; 1 p_b; 1 p_c]`` for all ordered triples, for planar point sets.

    ``sets``: integer array ``(S, n, 2)``; returns ``int8`` ``(S, n, n, n)``.
    """
    x, y = sets[..., 0].astype(np.int64), sets[..., 1].astype(np.int64)
    dx = x[:, None, :] - x[:, :, None]   # dx[s, a, b] = x_b - x_a
    dy = y[:, None, :] - y[:, :, None]
    # det = (b - a) x (c - a)
    det = dx[:, :, :, None] * dy[:, :, None, :] - dy[:, :, :, None] * dx[:, :, None, :]
    return np.sign(det).astype(np.int8)


def canonical_labellings(tensor: np.ndarray, n: int):
    """For each set: (canonical chirotope key, list of labellings attaining it)."""
    perms = np.array(list(permutations(range(n))), dtype=np.intp)
    triples = np.array(list(combinations(range(n), 3)), dtype=np.intp)
    a, b, c = (perms[:, triples[:, k]] for k in range(3))
    S = len(tensor)
    chi = tensor[np.arange(S)[:, None, None], a[None], b[None], c[None]]  # (S, P, T)
    lead = chi[np.arange(S)[:, None], np.arange(len(perms))[None, :],
               np.argmax(chi != 0, axis=2)]
    chi = chi * np.where(lead == 0, 1, lead)[..., None]
    codes = (chi + 1).astype(np.int64)
    keys = np.zeros(codes.shape[:2], dtype=object)
    for t in range(codes.shape[2]):  # base-3 integer code of the chirotope tuple
        keys = keys * 3 + codes[:, :, t]
    out = []
    for s in range(S):
        row = keys[s]
        best = min(row)
        out.append((best, [tuple(perms[p]) for p in np.nonzero(row == best)[0]]))
    return out


def search_h1(n: int, d: int, box: int, *, limit: int = 3, progress=None):
    """Pairs of labelled configurations with equal sign patterns, different rankings."""
    if d != 2:
        raise InputError("search theorem H.1 is implemented for point configurations in "
                         "the plane (--d 2)")
    if n < 3:
        raise InputError("--n must be at least 3")
    _refuse_large_n(n)
    from math import comb

    count = box_count(d, box)
    # The estimate comes before the points are built (issue 28, F7).
    total = count if count > MAX_SETS else comb(count, n)
    if total > MAX_SETS:
        raise TooLargeError(f"{count_text(total)} sets of {n} points in "
                            f"[-{_box_text(box)}, {_box_text(box)}]^2 (limit "
                            f"{MAX_SETS:,}); use a smaller box")
    points = box_points(d, box)
    groups = defaultdict(list)
    chunk = []
    for subset in combinations(points, n):
        chunk.append(subset)
        if len(chunk) == 20000:
            _group(chunk, n, groups)
            chunk = []
    if chunk:
        _group(chunk, n, groups)
    found = []
    for key in sorted(groups, key=lambda k: (len(groups[k]), k)):
        members = groups[key]
        if len(members) < 2:
            continue
        patterns = {}
        for subset, labellings in members:
            if progress:
                progress()
            base = [list(subset[i]) for i in labellings[0]]
            patterns[subset] = set(ranking_pattern(base).rankings)
        first_subset, first_labellings = members[0]
        for subset, labellings in members[1:]:
            for lab in labellings:
                Q = [list(subset[i]) for i in lab]
                RQ = set(ranking_pattern(Q).rankings)
                if RQ != patterns[first_subset]:
                    P = [list(first_subset[i]) for i in first_labellings[0]]
                    if not is_h1_pair(P, Q):
                        raise AssertionError(f"internal error: {P}, {Q} is not a pair")
                    found.append((P, Q))
                    break
            if len(found) >= limit:
                return found, total
    return found, total


def _group(chunk, n, groups) -> None:
    """Group sets by canonical chirotope, leaving out collinear sets.

    For collinear points every ``3 x 3`` minor vanishes, so the triple chirotope is not
    their oriented matroid; they cannot give a pair anyway: their rankings are the order
    along the line and its reverse, which the sign pattern determines.
    """
    sets = np.array(chunk, dtype=np.int64)
    tensor = orientation_tensor(sets)
    collinear = ~tensor.reshape(len(chunk), -1).any(axis=1)
    keep = [s for s, c in zip(chunk, collinear) if not c]
    if not keep:
        return
    tensor = tensor[~collinear]
    for subset, (key, labellings) in zip(keep, canonical_labellings(tensor, n)):
        groups[key].append((subset, labellings))


def is_h1_pair(P, Q) -> bool:
    """Exact confirmation with the engine: equal sign patterns, different rankings."""
    from verify.arrangement import sign_pattern
    from verify.claims.theorem_h1 import affine

    return (sign_pattern(affine(P)).patterns == sign_pattern(affine(Q)).patterns
            and set(ranking_pattern(P).rankings) != set(ranking_pattern(Q).rankings))


def is_55_pair(W1, W2) -> bool:
    """Exact confirmation: equal cosine matrices (exact, over Q(sqrt ...)), different R."""
    from verify.numbers.sqrt_sum import cosine_matrix

    return (cosine_matrix(W1) == cosine_matrix(W2)
            and set(ranking_pattern(W1).rankings) != set(ranking_pattern(W2).rankings))


def cosine_fingerprint(W) -> tuple | None:
    """Signed squared cosines (exact rationals); ``None`` if ``W`` has a zero row."""
    norms = [sum(a * a for a in row) for row in W]
    if 0 in norms:
        return None
    out = []
    for i in range(len(W)):
        for j in range(i + 1, len(W)):
            g = sum(a * b for a, b in zip(W[i], W[j]))
            out.append((g > 0) - (g < 0))
            out.append(Fraction(g * g, norms[i] * norms[j]))
    return tuple(out)


def search_55(n: int, d: int, box: int, *, limit: int = 3, progress=None):
    """Pairs of integer matrices with equal cosine matrices and different rankings."""
    _refuse_large_n(n)
    from math import comb

    # The size is estimated before the rows are built (issue 28, F7): the non-zero
    # rows number (2 box + 1)^d - 1, and there are at least as many multisets.
    count = box_count(d, box) - 1
    total = count if count > MAX_SETS else comb(count + n - 1, n) if n <= count else 0
    if total > MAX_SETS:
        raise TooLargeError(f"{count_text(total)} multisets of {n} rows (limit "
                            f"{MAX_SETS:,}); use a smaller box")
    rows = [r for r in box_points(d, box) if any(r)]
    groups = defaultdict(list)
    for multiset in combinations(rows, n):  # distinct rows: R(W) is empty otherwise
        W = [list(r) for r in multiset]
        key = cosine_fingerprint(W)
        groups[key].append(W)
    found = []
    for key in sorted(groups, key=lambda k: str(k)):
        members = groups[key]
        if len(members) < 2:
            continue
        seen = {}
        for W in members:
            if progress:
                progress()
            R = frozenset(ranking_pattern(W).rankings)
            for other, RO in seen.items():
                if RO != R:
                    pair = ([list(r) for r in other], W)
                    if not is_55_pair(*pair):
                        raise AssertionError(f"internal error: {pair} is not a pair")
                    found.append(pair)
                    break
            seen.setdefault(tuple(map(tuple, W)), R)
            if len(found) >= limit:
                return found, total
    return found, total
