r"""What cosine similarity says about a softmax head next to what the head can do.

Mathematics
-----------
For each label ``i`` with a non-zero row, its *nearest neighbours by cosine* are the
labels ``k`` with the largest ``cos(w_i, w_k) = w_i . w_k / (|w_i| |w_k|)``. Nielsen &
Grivas (App. C.2) observe that these are in general not the labels that ``i`` *competes
with*: the labels it can be tied with for the highest probability (its neighbours in
the tie graph, :mod:`verify.analyze.ties`). Cosine similarity is not invariant under
translating every row by the same vector, which leaves every probability unchanged
(their Lemma 3.1 and Theorem 3.4), while the tie graph depends only on the
probabilities. The summary counts

* the labels whose nearest cosine neighbour cannot tie with them, and
* among the ``n k`` (label, one of its ``k`` nearest cosine neighbours) pairs, those
  that cannot tie,

each "cannot tie" backed by a Motzkin certificate.

**Exact ordering.** For a fixed ``i`` the map ``k -> cos(w_i, w_k)`` is ordered like
``k -> sign(g_k) g_k^2 / |w_k|^2`` with ``g_k = w_i . w_k`` (``t -> sign(t) t^2`` is
increasing and ``|w_i|`` is common), a rational number: cosines are compared without
square roots. For large heads a float evaluation selects the candidates first: the
float cosine of rows rounded to double precision is within ``(2 d + 10) 2^-53`` of
the true value (standard dot-product error analysis, Higham, *Accuracy and Stability of
Numerical Algorithms*, 2002, §3.1), so every label whose float cosine is more than
``10^-6`` below the ``k``-th largest float cosine is certainly not among the ``k``
nearest; all others are ordered exactly. Equal cosines are ordered by label.

**Cell counts.** The sign pattern ``S(W)`` and the ranking pattern ``R(W) = S(B_n W)``
(:mod:`verify.arrangement`) are enumerated only when affordable. Before enumerating, an
upper bound is computed: ``K`` distinct hyperplanes in rank ``r`` have at most
``2 sum_{k < r} C(K - 1, k)`` cells, with equality in general position (Zaslavsky,
1975; :func:`verify.arrangement.cocircuits.generic_tope_count`). For ``S(W)``, ``K`` is
the number of rows up to positive and negative scaling and ``r = rank W``; for
``R(W)``, ``K`` is the number of distinct directions among the differences
``w_i - w_j`` (at most ``C(n, 2)``, the value used above 300 labels) and ``r`` is
their rank. A zero row empties ``S(W)``; two equal rows empty ``R(W)``.

References
----------
Nielsen & Grivas, *What Cosine Similarity of Label Representations Can and Cannot Tell
us*, App. C.2-C.3. D. Grivas, N. Bogoychev, A. Lopez, "Low-Rank Softmax Can Have
Unargmaxable Classes in Theory but Rarely in Practice", ACL 2022. T. Zaslavsky,
*Facing up to arrangements*, Mem. AMS 154 (1975).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from math import comb, log10
from typing import Sequence

import numpy as np
from flint import fmpq, fmpz, fmpz_mat

from verify.analyze.argmax import ArgmaxAnalysis, ExactHead, FieldHead, make_head
from verify.analyze.simplex import SimplexCertificate, SimplexNoTie
from verify.analyze.ties import ALL_PAIRS_MAX_LABELS, TieAnalysis, TieWitness, tie_pairs
from verify.lp.feasibility import Witness

__all__ = [
    "DEFAULT_MAX_CELLS",
    "DEFAULT_NEIGHBOURS",
    "HeadAnalysis",
    "analyze",
    "analyze_with_bias",
    "cell_counts",
    "cosine_neighbours",
    "format_text",
    "to_json",
]

DEFAULT_MAX_CELLS = 200_000
DEFAULT_NEIGHBOURS = 2
#: Float cosines further than this below the k-th largest are certainly not among the k:
#: the float dot product of two normalised vectors in dimension d is within
#: (d + 4) 2^-53 of the exact cosine (Higham, *Accuracy and Stability of Numerical
#: Algorithms*, §3.1), far below this bound for d < 10^8; rows whose norms leave the
#: normal range, and larger d, are ordered exactly without the filter.
COSINE_FILTER = 1e-6
COSINE_FILTER_MAX_DIMENSION = 10**8
#: Above this many entries of W the cell-count bounds use d in place of the exact rank.
EXACT_RANK_MAX_ENTRIES = 10**6
#: Above this many labels the ranking bound uses C(n, 2) hyperplanes.
EXACT_HYPERPLANES_MAX_LABELS = 300


# --- cosine neighbours -----------------------------------------------------------------

def _exact_key(head, i: int, k: int):
    """A number ordered like ``cos(w_i, w_k)`` over ``k`` (fixed ``i``), exactly."""
    if isinstance(head, ExactHead):
        zi, zk = head.Z[i], head.Z[k]
        g = sum(a * b for a, b in zip(zi, zk))
        nk = sum(b * b for b in zk)
        return fmpq(g * abs(g), nk)
    g = _field_dot(head.rows[i], head.rows[k])
    return g * abs(g) / _field_dot(head.rows[k], head.rows[k])


def _field_dot(u, v):
    total = u[0] * v[0]
    for a, b in zip(u[1:], v[1:]):
        total = total + a * b
    return total


def _nonzero_rows(head) -> np.ndarray:
    if isinstance(head, ExactHead):
        if head.Zarr is not None:
            return np.any(head.Zarr != 0, axis=1)
        return np.array([any(row) for row in head.Z], dtype=bool)
    return np.array([any(x != 0 for x in row) for row in head.rows], dtype=bool)


def display_cosine(head, i: int, k: int) -> float:
    """``cos(w_i, w_k)`` as a float within ``1e-12`` of the truth, for display.

    Each row is scaled by its own power of two before it is rounded to floats, so rows
    of very different magnitudes (entries from ``1e-8000`` to ``1e8000``) keep their
    precision: the result is off by ``O(d u)`` (``u = 2^-53``) plus ``2^-50 sqrt(d)``
    for rows longer than 62 bits, whose low bits are dropped. Exactly orthogonal pairs
    show 0.
    """
    if isinstance(head, FieldHead):
        return float(np.clip(_field_cosine(head, i, k), -1.0, 1.0))
    u, v = _scaled_row(head, i), _scaled_row(head, k)
    nu, nv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
    value = float(np.clip(float(u @ v) / (nu * nv), -1.0, 1.0))
    # Far above the float error, the value cannot hide an exact 0.
    if abs(value) <= COSINE_FILTER and _exact_key(head, i, k) == 0:
        return 0.0
    return value


def _scaled_row(head: ExactHead, i: int) -> np.ndarray:
    """Row ``i`` of ``Z`` times a power of two, as floats with the largest entry near 1."""
    if head.Zarr is not None:
        return head.Zarr[i].astype(np.float64)  # rounding: a relative 2^-53 per entry
    row = head.Z[i]
    bits = max(abs(v) for v in row).bit_length()
    shift = max(0, bits - 62)
    return np.ldexp(np.array([v >> shift for v in row], dtype=np.int64).astype(np.float64),
                    -(bits - shift))


def _field_cosine(head, i: int, k: int) -> float:
    F = head.F
    return float(F[i] @ F[k] / (np.linalg.norm(F[i]) * np.linalg.norm(F[k])))


def _cosine_block(head) -> int:
    """Labels per block of the float cosine pass (three ``n``-vectors each)."""
    budget = getattr(head, "budget", None)
    return budget.columns(24 * head.n) if budget is not None else head.n


def _top_exact(head, i: int, cand, cos, k: int) -> list[int]:
    """The ``k`` labels of ``cand`` with the largest cosine with ``i``, in exact order.

    ``cos`` are float cosines within ``COSINE_FILTER / 2`` of the truth (or None: then
    every comparison is exact). Sorted by float, candidates whose float cosines are more
    than ``COSINE_FILTER`` apart are in the right order; runs of closer ones are ordered
    by the exact key, ties by label.
    """
    if cos is None:
        keyed = sorted(((_exact_key(head, i, int(c)), int(c)) for c in cand), key=_Desc)
        return [c for _, c in keyed[:k]]
    cand = [int(c) for c in cand]
    cand.sort(key=lambda c: (-cos[c], c))
    out: list[int] = []
    run = [cand[0]] if cand else []
    for c in cand[1:] + [None]:
        if c is not None and cos[run[-1]] - cos[c] <= COSINE_FILTER:
            run.append(c)
            continue
        if len(run) > 1:
            run = [c2 for _, c2 in sorted(((_exact_key(head, i, r), r) for r in run),
                                          key=_Desc)]
        out.extend(run)
        if len(out) >= k or c is None:
            break
        run = [c]
    return out[:k]


def cosine_neighbours(W, k: int = DEFAULT_NEIGHBOURS, *,
                      progress=None) -> list[list[tuple[int, float]]]:
    """For every label its ``k`` nearest labels by cosine, as ``(label, cosine)``.

    The order is exact (see the module docstring); the cosine values are floats for
    display (:func:`display_cosine`). Labels with a zero row have no cosine and no
    neighbours, and are nobody's neighbour. The float pass runs over blocks of labels,
    in ``O(n)`` memory per label of a block; for large heads it is a float32 pass that
    keeps every label within ``FLOAT32_COSINE_BAND`` of the ``k``-th largest float32
    cosine, whose float64 cosines then go through the same filter as before (so the
    result is the same).
    """
    head = make_head(W)
    n = head.n
    valid = _nonzero_rows(head)
    F = np.asarray(head.F, dtype=np.float64)
    norms = np.linalg.norm(F, axis=1)
    # Rows stored with truncated low bits (absolute error e per entry) must be long
    # enough for the float cosine to stay within COSINE_FILTER / 2.
    floor = max(1e-150, getattr(head, "_absolute_error", 0.0) * 1e8 * np.sqrt(head.d))
    usable = valid & (norms > floor)
    exact_only = (isinstance(head, FieldHead) or bool(np.any(valid & ~usable))
                  or F.shape[1] >= COSINE_FILTER_MAX_DIMENSION)
    U = F / np.where(norms > 0, norms, 1.0)[:, None]
    others_count = int(valid.sum())
    out: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    if k <= 0:
        return out
    step = _cosine_block(head)
    if not exact_only and getattr(head, "screened", False):
        _float32_neighbours(head, U, valid, k, step, out, progress)
        return out
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        C = U[lo:hi] @ U.T
        C[:, ~valid] = -np.inf
        C[np.arange(hi - lo), np.arange(lo, hi)] = -np.inf
        for r, i in enumerate(range(lo, hi)):
            if not valid[i] or others_count <= 1:
                continue
            cos = C[r]
            if exact_only or others_count - 1 <= k:
                cand = np.flatnonzero(valid)
                cand = cand[cand != i]
            else:
                m = n - k
                kth = np.partition(cos, m)[m]
                cand = np.flatnonzero(cos >= kth - COSINE_FILTER)
            top = _top_exact(head, i, cand, None if exact_only else cos, k)
            out[i] = [(c, display_cosine(head, i, c)) for c in top]
    return out


#: Up to this ``k``, :func:`kth_largest` picks maxima instead of partitioning.
KTH_BY_MAXIMA = 8


def kth_largest(C: np.ndarray, k: int) -> np.ndarray:
    """The ``k``-th largest entry of each row of ``C`` (repeats counted), i.e.
    ``np.partition(C, n - k, axis=1)[:, n - k]`` for rows without NaN.

    For small ``k`` by ``k`` row maxima, each taken out (set to ``-inf``) before the
    next and put back afterwards: ``k`` passes over the block instead of a selection,
    which took an eighth of the cosine phase on a 20,000 x 768 head.
    """
    n = C.shape[1]
    if k > KTH_BY_MAXIMA or k > n:
        return np.partition(C, n - k, axis=1)[:, n - k]
    rows = np.arange(C.shape[0])
    taken = []
    for _ in range(k):
        at = C.argmax(axis=1)
        value = C[rows, at]
        taken.append((at, value))
        C[rows, at] = -np.inf
    # In reverse: a column taken twice (a row of -inf) gets its first value back last.
    for at, value in reversed(taken):
        C[rows, at] = value
    return taken[-1][1].copy() if taken else np.empty(0, dtype=C.dtype)


def float32_cosine_band(d: int) -> float:
    """Labels whose float32 cosine is within this of the ``k``-th largest are kept.

    A float32 cosine of unit float64 rows is within ``e_32 = (2 d + 10) 2^-24`` of the
    true cosine (the dot-product bound of the module docstring with the float32 unit
    roundoff, plus the rounding of the rows to float32), a float64 one within
    ``e_64 = (2 d + 10) 2^-53``. A label that the float64 filter keeps has a float64
    cosine at least ``kth_64 - COSINE_FILTER``, hence a float32 cosine at least
    ``kth_32 - 2 e_32 - 2 e_64 - COSINE_FILTER``: the band keeps all of them, and the
    ``k`` largest float64 cosines lie in it, so the float64 filter on the band selects
    what it selects on all labels.
    """
    return 2 * (2 * d + 10) * (2.0 ** -24 + 2.0 ** -53) + COSINE_FILTER


def _float32_neighbours(head, U: np.ndarray, valid: np.ndarray, k: int, step: int,
                        out: list, progress) -> None:
    """The neighbours of :func:`cosine_neighbours` through a float32 pre-filter."""
    n = head.n
    U32 = U.astype(np.float32)
    band = float32_cosine_band(head.d)
    others_count = int(valid.sum())
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        C = U32[lo:hi] @ U32.T
        C[:, ~valid] = -np.inf
        C[np.arange(hi - lo), np.arange(lo, hi)] = -np.inf
        if others_count - 1 > k:
            kth = kth_largest(C, k)
        for r, i in enumerate(range(lo, hi)):
            if not valid[i] or others_count <= 1:
                continue
            if others_count - 1 <= k:
                cand = np.flatnonzero(valid)
                cand = cand[cand != i]
            else:
                cand = np.flatnonzero(C[r] >= kth[r] - band)
            cos64 = U[cand] @ U[i]
            if others_count - 1 > k:
                # The float64 filter of cosine_neighbours, on the band only.
                m = cand.size - k
                keep = cos64 >= np.partition(cos64, m)[m] - COSINE_FILTER
                cand, cos64 = cand[keep], cos64[keep]
            cos = dict(zip(cand.tolist(), cos64.tolist()))
            top = _top_exact(head, i, cand, cos, k)
            out[i] = [(c, display_cosine(head, i, c)) for c in top]
        if progress is not None:
            progress.update(hi - lo)


class _Desc:
    """Sort key: larger exact key first, then smaller label."""

    __slots__ = ("key", "label")

    def __init__(self, item):
        self.key, self.label = item

    def __lt__(self, other):
        if self.key != other.key:
            return self.key > other.key
        return self.label < other.label


@dataclass
class CosineSummary:
    """Nearest cosine neighbours next to tie partners (``None``: not decided)."""

    k: int
    neighbours: list
    nearest_not_tie: int = 0
    labels_compared: int = 0
    neighbour_pairs: int = 0
    neighbour_pairs_cannot_tie: int = 0
    neighbour_pairs_undecided: int = 0

    @property
    def fraction_cannot_tie(self) -> float | None:
        decided = self.neighbour_pairs - self.neighbour_pairs_undecided
        return None if decided == 0 else self.neighbour_pairs_cannot_tie / decided


def _summarise(neighbours, ties: TieAnalysis, k: int) -> CosineSummary:
    s = CosineSummary(k=k, neighbours=neighbours)
    for i, near in enumerate(neighbours):
        if not near:
            continue
        s.labels_compared += 1
        if ties.can_tie(i, near[0][0]) is False:
            s.nearest_not_tie += 1
        for c, _ in near:
            s.neighbour_pairs += 1
            verdict = ties.can_tie(i, c)
            if verdict is None:
                s.neighbour_pairs_undecided += 1
            elif verdict is False:
                s.neighbour_pairs_cannot_tie += 1
    return s


# --- cell counts ---------------------------------------------------------------------------

def _primitive_direction(row: Sequence[int]) -> tuple | None:
    from math import gcd

    g = gcd(*row)
    if g == 0:
        return None
    v = [a // g for a in row]
    first = next(a for a in v if a != 0)
    return tuple(v) if first > 0 else tuple(-a for a in v)


def _int_rank(rows) -> int:
    if not rows or not rows[0]:
        return 0
    return fmpz_mat([list(r) for r in rows]).rank()


def magnitude(count: int) -> str:
    """``count`` in decimal, or ``about 10^e`` (``e`` to one decimal) when it has more
    than 15 digits: the bound of a language-model head has tens of thousands of
    digits, more than Python converts to a string by default."""
    if count < 10 ** 15:
        return str(count)
    return f"about 10^{log10(count):.1f}"


#: Bounds with more digits are ``null`` in the JSON (a JSON reader in Python refuses
#: integers of more than 4,300 digits by default); the note gives their magnitude.
BOUND_MAX_DIGITS = 4000


def json_cells(cells: dict | None) -> dict | None:
    """The cell counts for the JSON: bounds of more than ``BOUND_MAX_DIGITS`` digits
    as ``null``."""
    if cells is None:
        return None
    return {kind: {**entry, "bound": entry["bound"] if entry["bound"] is None
                   or entry["bound"] < 10 ** BOUND_MAX_DIGITS else None}
            for kind, entry in cells.items()}


def _bound(K: int, r: int) -> int:
    from verify.arrangement.cocircuits import generic_tope_count

    if K == 0:
        return 1
    return generic_tope_count(K, max(r, 1))


def cell_counts(W, *, max_cells: int = DEFAULT_MAX_CELLS, force: bool = False) -> dict:
    """Bounds and, when affordable (or forced), exact counts of ``S(W)`` and ``R(W)``.

    Returns ``{"sign": {...}, "ranking": {...}}``, each with ``hyperplanes``, ``rank``,
    ``bound`` (an upper bound on the number of cells), ``count`` (exact, or None when
    not computed) and ``note`` (why not, or why the pattern is empty).
    """
    head = make_head(W)
    if isinstance(head, FieldHead):
        return _field_cell_counts(head, max_cells, force)
    if head.n * head.d > EXACT_RANK_MAX_ENTRIES:
        return _large_cell_counts(head, max_cells, force)
    n = head.n
    Z = head.Z
    out = {}
    # Sign pattern of the rows.
    dirs = [_primitive_direction(r) for r in Z]
    if any(v is None for v in dirs):
        zero = [i for i, v in enumerate(dirs) if v is None]
        out["sign"] = {"hyperplanes": None, "rank": _int_rank(Z), "bound": 0, "count": 0,
                       "note": f"label {zero[0]} has a zero row: the sign pattern is empty"}
    else:
        K, r = len(set(dirs)), _int_rank(Z)
        out["sign"] = _maybe_count(head, "sign", K, r, max_cells, force)
    # Ranking pattern: hyperplanes w_i - w_j.
    seen: dict = {}
    equal = None
    for i, row in enumerate(Z):
        if row in seen:
            equal = (seen[row], i)
            break
        seen[row] = i
    diffs = [[a - b for a, b in zip(Z[i], Z[0])] for i in range(1, n)]
    r = _int_rank(diffs) if diffs else 0
    if equal is not None:
        out["ranking"] = {"hyperplanes": None, "rank": r, "bound": 0, "count": 0,
                          "note": f"labels {equal[0]} and {equal[1]} have equal rows: "
                                  "the ranking pattern is empty"}
    else:
        if n <= EXACT_HYPERPLANES_MAX_LABELS:
            K = len({_primitive_direction([a - b for a, b in zip(Z[i], Z[j])])
                     for i in range(n) for j in range(i + 1, n)})
        else:
            K = comb(n, 2)
        out["ranking"] = _maybe_count(head, "ranking", K, r, max_cells, force)
    return out


def _large_cell_counts(head: ExactHead, max_cells: int, force: bool) -> dict:
    """Cell counts of a head too large for an exact rank: bounds with ``rank <= d``.

    The bound ``2 sum_{k < r} C(K - 1, k)`` grows with ``r``, so ``min(n, d)`` (sign)
    and ``min(n - 1, d)`` (ranking) in place of the rank keep it an upper bound; the
    rank is reported as ``null``. ``K`` is the number of rows up to scaling (sign) and
    ``C(n, 2)`` (ranking).
    """
    n, d = head.n, head.d
    nonzero = _nonzero_rows(head)
    out = {}
    if not nonzero.all():
        zero = int(np.flatnonzero(~nonzero)[0])
        out["sign"] = {"hyperplanes": None, "rank": None, "bound": 0, "count": 0,
                       "note": f"label {zero} has a zero row: the sign pattern is empty"}
    else:
        out["sign"] = _maybe_count(head, "sign", _distinct_directions(head), min(n, d),
                                   max_cells, force, rank=None)
    repeated = [g for g in head.equal_row_groups() if len(g) > 1]
    if repeated:
        a, b = min((g[0], g[1]) for g in repeated)
        out["ranking"] = {"hyperplanes": None, "rank": None, "bound": 0, "count": 0,
                          "note": f"labels {a} and {b} have equal rows: the ranking "
                                  "pattern is empty"}
    else:
        out["ranking"] = _maybe_count(head, "ranking", comb(n, 2), min(n - 1, d),
                                      max_cells, force, rank=None)
    return out


def _distinct_directions(head: ExactHead) -> int:
    """The number of non-zero rows up to scaling by a non-zero number."""
    if head.Zarr is None:
        return len({_primitive_direction(r) for r in head.Z})
    Z = head.Zarr // np.gcd.reduce(head.Zarr, axis=1)[:, None]
    first = Z[np.arange(Z.shape[0]), np.argmax(Z != 0, axis=1)]
    Z *= np.where(first < 0, -1, 1)[:, None]
    return int(np.unique(Z, axis=0).shape[0])


def _maybe_count(head: ExactHead, kind: str, K: int, r: int, max_cells: int,
                 force: bool, rank: int | None = -1) -> dict:
    bound = _bound(K, r)
    entry = {"hyperplanes": K, "rank": r if rank == -1 else rank, "bound": bound,
             "count": None, "note": None}
    if bound > max_cells and not force:
        entry["note"] = (f"not computed: up to {magnitude(bound)} cells (more than --max-cells "
                         f"{max_cells}); --force computes it")
        return entry
    from verify.arrangement import ranking_pattern, sign_pattern

    if kind == "sign":
        entry["count"] = sign_pattern(head.rows).count
    else:
        entry["count"] = ranking_pattern(head.rows).count
    return entry


def _field_cell_counts(head: FieldHead, max_cells: int, force: bool) -> dict:
    """The same for rows with square roots, by the exact chirotope engine.

    The bound uses the number of rows (at least the number of distinct hyperplanes)
    and ``d`` (at least the rank).
    """
    from verify.arrangement.chirotope import field_topes

    n, d, rows = head.n, head.d, head.rows
    out = {}
    zero = [i for i, row in enumerate(rows) if all(x == 0 for x in row)]
    if zero:
        out["sign"] = {"hyperplanes": None, "rank": None, "bound": 0, "count": 0,
                       "note": f"label {zero[0]} has a zero row: the sign pattern is empty"}
    else:
        out["sign"] = _maybe_field(rows, n, d, max_cells, force, field_topes)
    equal = next(((i, j) for i in range(n) for j in range(i + 1, n)
                  if all(a == b for a, b in zip(rows[i], rows[j]))), None)
    if equal is not None:
        out["ranking"] = {"hyperplanes": None, "rank": None, "bound": 0, "count": 0,
                          "note": f"labels {equal[0]} and {equal[1]} have equal rows: "
                                  "the ranking pattern is empty"}
    elif n == 1:
        out["ranking"] = {"hyperplanes": 0, "rank": 0, "bound": 1, "count": 1, "note": None}
    else:
        diffs = [[a - b for a, b in zip(rows[i], rows[j])]
                 for i in range(n) for j in range(i + 1, n)]
        out["ranking"] = _maybe_field(diffs, comb(n, 2), d, max_cells, force, field_topes)
    return out


def _maybe_field(rows, K: int, d: int, max_cells: int, force: bool, topes) -> dict:
    bound = _bound(K, min(d, K))
    entry = {"hyperplanes": None, "rank": None, "bound": bound, "count": None, "note": None}
    if bound > max_cells and not force:
        entry["note"] = (f"not computed: up to {magnitude(bound)} cells (more than --max-cells "
                         f"{max_cells}); --force computes it")
        return entry
    entry["count"] = len(topes(rows))
    return entry


# --- the whole analysis ------------------------------------------------------------------

@dataclass
class HeadAnalysis:
    """Everything ``python -m verify analyze`` reports about one head."""

    n: int
    d: int
    argmax: ArgmaxAnalysis
    ties: TieAnalysis
    cosine: CosineSummary
    cells: dict | None
    names: list | None = None
    seconds: dict = field(default_factory=dict)
    head: object = field(default=None, repr=False)

    def __repr__(self) -> str:
        a, t = self.argmax, self.ties
        return (f"HeadAnalysis({self.n} labels, d = {self.d}: {len(a.argmaxable)} "
                f"argmaxable, unargmaxable {a.unargmaxable}, {len(t.tie_pairs)} tie pairs"
                f"{'' if t.complete else ' (not every pair decided)'})")

    def to_json(self) -> dict:
        """The document of ``python -m verify analyze --json`` (docs/analyze.md)."""
        return to_json(self)

    def edge_cosines(self) -> dict:
        """Float cosines (display only) of the certified tie pairs."""
        valid = _nonzero_rows(self.head)
        return {(i, j): display_cosine(self.head, i, j) for i, j in self.ties.tie_pairs
                if valid[i] and valid[j]}


def analyze(W, *, neighbours: int = DEFAULT_NEIGHBOURS, max_cells: int = DEFAULT_MAX_CELLS,
            force: bool = False, cells: bool = True, names: Sequence[str] | None = None,
            rays: int | None = None, progress=None, budget=None, jobs: int = 1,
            scheduler: str | None = None, bias=None) -> HeadAnalysis:
    """Argmaxable labels, tie pairs, cosine neighbours and cell counts of ``W``.

    ``bias``: the logits are ``W x + b`` (one entry per label; exact numbers or a numpy
    vector): analysed by :func:`analyze_with_bias`, with the same
    blocks and workers and without cell counts.

    ``progress(description, total)`` may return a progress bar (``update``/``close``).
    For ``n <= ALL_PAIRS_MAX_LABELS`` every pair is decided; otherwise the pairs of every
    label with its ``neighbours`` nearest cosine neighbours, plus tie pairs found by ray
    shooting, ``rays`` per argmaxable label (default
    :data:`verify.analyze.ties.RAYS_PER_LABEL`; see :func:`verify.analyze.ties.tie_pairs`).
    ``budget`` (a :class:`~verify.analyze.memory.MemoryBudget`) sizes the blocks; a
    head that cannot fit is refused with :class:`~verify.io.errors.TooLargeError`.
    ``jobs`` worker processes, or the Dask cluster ``scheduler`` (``"local"`` or an
    address), share the chunks of labels and pairs of large heads
    (:mod:`verify.analyze.parallel`); the result is the same for any of them.
    """
    from contextlib import nullcontext

    from verify.analyze.parallel import Workers

    if bias is not None:
        return analyze_with_bias(W, bias, neighbours=neighbours, names=names, rays=rays,
                                 progress=progress, budget=budget, jobs=jobs,
                                 scheduler=scheduler)
    seconds = {}
    t0 = time.perf_counter()
    head = make_head(W, budget)
    parallel = getattr(head, "screened", False) and (jobs > 1 or scheduler)
    if parallel:
        # Computed once here, inherited or received by every worker.
        head.float32_rows()
        head.mahalanobis()
    with (Workers(head, jobs, scheduler) if parallel else nullcontext()) as workers:
        return _analyze(head, workers, neighbours, max_cells, force, cells, names, rays,
                        progress, seconds, t0)


def _analyze(head, workers, neighbours, max_cells, force, cells, names, rays, progress,
             seconds, t0) -> HeadAnalysis:
    bar = progress("labels", head.n) if progress else None
    argmax = head.argmax(bar, workers) if workers is not None else head.argmax(bar)
    if bar is not None:
        bar.close()
    seconds["argmax"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    bar = progress("cosine", head.n) if progress and getattr(head, "screened", False) else None
    near = cosine_neighbours(head, neighbours, progress=bar)
    if bar is not None:
        bar.close()
    seconds["cosine"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    if head.n <= ALL_PAIRS_MAX_LABELS:
        pairs = None
    else:
        pairs = sorted({(min(i, c), max(i, c)) for i, lst in enumerate(near) for c, _ in lst})
    bar = progress("pairs", 0) if progress else None
    ties = tie_pairs(head, argmax, pairs=pairs, rays_per_label=rays, progress=bar,
                     workers=workers)
    if bar is not None:
        bar.close()
    seconds["ties"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    counts = cell_counts(head, max_cells=max_cells, force=force) if cells else None
    seconds["cells"] = time.perf_counter() - t0
    return HeadAnalysis(n=head.n, d=head.d, argmax=argmax, ties=ties,
                        cosine=_summarise(near, ties, neighbours), cells=counts,
                        names=list(names) if names is not None else None, seconds=seconds,
                        head=head)


def analyze_with_bias(W, b, *, neighbours: int = 2, names=None, source: str = "the head",
                      rays: int | None = None, progress=None, budget=None, jobs: int = 1,
                      scheduler: str | None = None):
    """The analysis of ``python -m verify analyze --bias``: a :class:`HeadAnalysis` of
    ``W x + b`` (:mod:`verify.analyze.bias`: the lifted rows and their floor rows).

    Every label is decided; every pair too for at most ``ALL_PAIRS_MAX_LABELS`` labels,
    otherwise the pairs of each label with its ``neighbours`` nearest labels by cosine
    (cosines of the rows ``w_k``, the bias aside), plus those found by ray shooting.
    Cell counts are not computed (they are defined for heads without a bias). Blocks,
    workers and memory as for heads without a bias
    (:func:`verify.analyze.report.analyze`).
    """
    import time
    from contextlib import nullcontext

    from verify.analyze.bias import (
        _argmax_of,
        _lifted_ties,
        _ties_of,
        bias_free_head,
        bias_head,
    )
    from verify.analyze.parallel import Workers

    seconds = {}
    t0 = time.perf_counter()
    head = bias_head(W, b, budget=budget, source=source)
    n = head.labels
    rows = bias_free_head(head)
    parallel = head.screened and (jobs > 1 or scheduler)
    if parallel:
        head.float32_rows()
        head.mahalanobis()
    with (Workers(head, jobs, scheduler) if parallel else nullcontext()) as workers:
        bar = progress("labels", n) if progress else None
        lifted = head.argmax(bar, workers) if workers is not None else head.argmax(bar)
        if bar is not None:
            bar.close()
        seconds["argmax"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        bar = progress("cosine", n) if progress and rows.screened else None
        near = cosine_neighbours(rows, neighbours, progress=bar)
        if bar is not None:
            bar.close()
        seconds["cosine"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        pairs = None if n <= ALL_PAIRS_MAX_LABELS else sorted(
            {(min(i, c), max(i, c)) for i, lst in enumerate(near) for c, _ in lst})
        if rays is None:
            rays = 0 if pairs is None or head.screened else None
        bar = progress("pairs", 0) if progress else None
        ties = _lifted_ties(head, lifted, pairs, rays, bar, workers)
        if bar is not None:
            bar.close()
        seconds["ties"] = time.perf_counter() - t0
    argmax, ties = _argmax_of(head, lifted), _ties_of(head, ties)
    result = HeadAnalysis(n=n, d=head.d - 1, argmax=argmax, ties=ties,
                          cosine=_summarise(near, ties, neighbours), cells=None,
                          names=list(names) if names is not None else None,
                          seconds=seconds, head=rows)
    result.lifted = head
    return result



# --- output ---------------------------------------------------------------------------------

def _text(x) -> str:
    from verify.numbers.rational import format_rational

    if type(x) is int and x.bit_length() < 4000:
        return str(x)  # the common case, fast (str has a digit limit for longer ints)
    if isinstance(x, (int, fmpq, fmpz)):
        return format_rational(x)
    return str(x)


def _coefficient(y) -> str:
    text = _text(y)
    return f"({text})" if any(op in text for op in " +-") else text


#: Above this many entries of ``W`` (``n d``) the JSON document leaves the per-label and
#: per-pair evidence to the certificate (``--certificate``): at that size it would be
#: gigabytes of decimal strings.
JSON_EVIDENCE_MAX_ENTRIES = 4_000_000
#: The keys of the JSON document that hold evidence, one entry per label or pair.
EVIDENCE_KEYS = ("argmax_witnesses", "argmax_certificates", "tie_witnesses",
                 "non_tie_certificates")


def to_json(a: HeadAnalysis, *, evidence: bool | None = None) -> dict:
    """The JSON document of ``--json`` (see docs/analyze.md for every key).

    ``evidence``: include the witnesses and certificates (``EVIDENCE_KEYS``); by default
    only for heads of at most ``JSON_EVIDENCE_MAX_ENTRIES`` entries. Without them the
    document has the key ``evidence_omitted`` saying where the evidence is.
    """
    if evidence is None:
        evidence = a.n * a.d <= JSON_EVIDENCE_MAX_ENTRIES
    if not evidence:
        doc = _json_document(a, with_evidence=False)
        doc["evidence_omitted"] = (
            f"the head has {a.n * a.d} entries, more than {JSON_EVIDENCE_MAX_ENTRIES}: "
            f"{', '.join(EVIDENCE_KEYS)} are left out; --certificate PATH writes all the "
            "evidence, checked by 'python -m verify check PATH'")
        return doc
    return _json_document(a, with_evidence=True)


def _json_document(a: HeadAnalysis, with_evidence: bool) -> dict:
    witnesses, certificates = {}, {}
    for i, e in enumerate(a.argmax.evidence if with_evidence else ()):
        if isinstance(e, Witness):
            witnesses[str(i)] = [_text(v) for v in e.point]
        elif isinstance(e, SimplexCertificate):
            certificates[str(i)] = {"strictly_inside_simplex": list(e.support)}
        else:
            certificates[str(i)] = {str(k): _text(y) for k, y in e.multipliers}
    tie_pairs_, tie_witnesses, non_tie, non_tie_certs = [], [], [], []
    for (i, j), e in a.ties.evidence.items():
        if isinstance(e, TieWitness):
            tie_pairs_.append([i, j])
            if with_evidence:
                tie_witnesses.append([_text(v) for v in e.point])
        else:
            non_tie.append([i, j])
            if with_evidence and isinstance(e, SimplexNoTie):
                non_tie_certs.append({"strictly_inside_simplex": e.inside})
            elif with_evidence:
                non_tie_certs.append({"multipliers": {str(k): _text(y)
                                                      for k, y in e.multipliers},
                                      "tie": _text(e.tie)})
    c = a.cosine
    per_label = []
    for i, near in enumerate(c.neighbours):
        per_label.append({
            "label": i,
            "nearest": [[k, round(cos, 12)] for k, cos in near],
            "nearest_can_tie": [a.ties.can_tie(i, k) for k, _ in near],
            "tie_partners": a.ties.partners(i),
        })
    doc = {
        "n": a.n,
        "d": a.d,
        "labels": a.names,
        "argmaxable": a.argmax.argmaxable,
        "unargmaxable": a.argmax.unargmaxable,
        "tie_pairs": tie_pairs_,
        "tie_pairs_complete": a.ties.complete,
        "pairs_decided": len(a.ties.evidence),
        "pairs_total": a.ties.pairs_total,
        "non_tie_pairs": non_tie,
        "argmax_witnesses": witnesses,
        "argmax_certificates": certificates,
        "tie_witnesses": tie_witnesses,
        "non_tie_certificates": non_tie_certs,
        "cosine": {
            "k": c.k,
            "labels_compared": c.labels_compared,
            "nearest_not_tie": c.nearest_not_tie,
            "neighbour_pairs": c.neighbour_pairs,
            "neighbour_pairs_cannot_tie": c.neighbour_pairs_cannot_tie,
            "neighbour_pairs_undecided": c.neighbour_pairs_undecided,
            "fraction_cannot_tie": c.fraction_cannot_tie,
            "per_label": per_label,
        },
        "cells": json_cells(a.cells),
    }
    if not with_evidence:
        for key in EVIDENCE_KEYS:
            del doc[key]
    return doc


def _name(a: HeadAnalysis, i: int) -> str:
    return f"{i} ({a.names[i]})" if a.names else str(i)


def _list(a: HeadAnalysis, labels, limit: int = 20) -> str:
    shown = ", ".join(_name(a, i) for i in labels[:limit])
    more = len(labels) - limit
    return shown + (f", ... ({more} more)" if more > 0 else "") if labels else "none"


def format_text(a: HeadAnalysis, source: str, *, limit: int = 20) -> str:
    """The readable report printed without ``--json``."""
    lines = [f"analysis of {source}: {a.n} label{'s' if a.n != 1 else ''} in dimension "
             f"{a.d} (labels from 0)"]
    c = a.cosine
    frac = c.fraction_cannot_tie
    # The paper's question first: does the nearest label by cosine compete?
    lines.append(f"nearest cosine neighbour cannot tie: {c.nearest_not_tie} of "
                 f"{c.labels_compared} labels; neighbour pairs that cannot tie: "
                 f"{c.neighbour_pairs_cannot_tie} of {c.neighbour_pairs}"
                 + (f" ({100 * frac:.1f}%)" if frac is not None else ""))
    un = a.argmax.unargmaxable
    bias = getattr(a, "lifted", None) is not None
    if bias:
        lines.append(f"argmaxable: {a.n - len(un)} of {a.n} labels, each with an exact "
                     "witness input x (label i alone has the largest logit w_i . x + b_i)"
                     + ("; each unargmaxable label with exact convex weights (w_i = sum "
                        "lambda_k w_k and b_i <= sum lambda_k b_k) or its lifted row "
                        "(w_i, b_i) proven strictly inside a simplex of lifted and floor "
                        "rows" if un else ""))
    else:
        lines.append(f"argmaxable: {a.n - len(un)} of {a.n} labels, each with an exact "
                     "witness input x (label i alone has the largest logit w_i . x)"
                     + ("; each unargmaxable label with exact convex weights (w_i in the "
                        "hull of the other rows) or proven strictly inside a simplex of "
                        "other rows" if un else ""))
    lines.append(f"unargmaxable: {_list(a, un, limit)}")
    for i in un[:limit]:
        e = a.argmax.evidence[i]
        if isinstance(e, SimplexCertificate):
            rows = "lifted and floor rows" if bias else "other rows"
            lines.append(f"  {'(w_%d, b_%d)' % (i, i) if bias else 'w_%d' % i} is strictly "
                         f"inside the simplex of {len(e.support)} {rows} (proven by a "
                         "verified inverse; with --certificate)")
            continue
        combo = " + ".join(f"{_coefficient(y)} w_{k}" for k, y in e.multipliers)
        if len(combo) > 160:
            support = ", ".join(f"w_{k}" for k, _ in e.multipliers)
            combo = (f"a convex combination of {support} (exact weights with --json)")
        lines.append(f"  w_{i} = {combo}" + (" (and the same combination of b is at least b_%d)" % i
                                             if bias else ""))
    t = a.ties
    ties = t.tie_pairs
    if t.complete:
        scope = f"all {t.pairs_total} pairs decided exactly"
    else:
        scope = (f"{len(t.evidence)} of {t.pairs_total} pairs decided exactly (the "
                 f"nearest cosine neighbours and pairs found by ray shooting); the other "
                 "pairs are not decided")
    lines.append(f"tie pairs (can be tied for the highest probability): {len(ties)} "
                 f"({scope})")
    shown = ties[: limit * 2]
    if shown:
        lines.append("  " + ", ".join(f"{i}-{j}" for i, j in shown)
                     + (f", ... ({len(ties) - len(shown)} more)" if len(ties) > len(shown)
                        else ""))
    lines.append(f"cosine versus competition ({c.k} nearest by cosine; 'no' = certified "
                 "unable to tie, '?' = not decided):")
    width = max((len(_name(a, i)) for i in range(min(a.n, limit))), default=5)
    width = max(width, 5)
    lines.append(f"  {'label':<{width}}  nearest by cosine                     can tie with")
    for i, near in enumerate(c.neighbours[:limit]):
        cells = []
        for k, cos in near:
            verdict = t.can_tie(i, k)
            mark = "yes" if verdict else ("?" if verdict is None else "no")
            cells.append(f"{k} ({cos:+.3f}, {mark})")
        partners = t.partners(i)
        ptxt = ", ".join(map(str, partners[:8])) + (" ..." if len(partners) > 8 else "")
        if not t.complete:
            ptxt += " (certified so far)" if partners else "(none certified)"
        lines.append(f"  {_name(a, i):<{width}}  {'; '.join(cells) or '-':<36}  "
                     f"{ptxt or 'none'}")
    if a.n > limit:
        lines.append(f"  ... {a.n - limit} more labels (--json gives all)")
    if a.cells is not None:
        for kind, title in (("sign", "sign pattern S(W)"), ("ranking", "ranking pattern R(W)")):
            e = a.cells[kind]
            if e["count"] is not None:
                txt = f"{e['count']} cells"
                if e.get("bound"):
                    txt += f" (upper bound {magnitude(e['bound'])})"
                if e.get("note"):
                    txt += f": {e['note']}"
            else:
                txt = e["note"]
            lines.append(f"{title}: {txt}")
    return "\n".join(lines)
