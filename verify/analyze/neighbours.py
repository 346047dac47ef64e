r"""Nearest neighbours by cosine of every label, next to the labels it can tie with.

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
nearest. Among the others, nearly parallel rows (cosines equal to 1 within the float
error) are sifted by the distances of their unit rows, ``cos = 1 - D^2 / 2``, whose
float values have a small absolute error (:func:`_nearest_by_distance`); the rest are
ordered exactly. Equal cosines are ordered by label.

References
----------
Nielsen & Grivas, *What Cosine Similarity of Label Representations Can and Cannot Tell
us*, App. C.2-C.3. D. Grivas, N. Bogoychev, A. Lopez, "Low-Rank Softmax Can Have
Unargmaxable Classes in Theory but Rarely in Practice", ACL 2022. T. Zaslavsky,
*Facing up to arrangements*, Mem. AMS 154 (1975).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
from flint import fmpq

from verify.analyze.head import ExactHead, FieldHead, make_head
from verify.analyze.ties import TieAnalysis

if TYPE_CHECKING:
    from verify.analyze.head import HeadInput, ProgressBar
    from verify.analyze.parallel import Workers

__all__ = [
    "DEFAULT_NEIGHBOURS",
    "CosineSummary",
    "cosine_neighbours",
    "display_cosine",
    "float32_cosine_band",
    "kth_largest",
]

DEFAULT_NEIGHBOURS = 2
#: Float cosines further than this below the k-th largest are certainly not among the k:
#: the float dot product of two normalised vectors in dimension d is within
#: (d + 4) 2^-53 of the exact cosine (Higham, *Accuracy and Stability of Numerical
#: Algorithms*, §3.1), far below this bound for d < 10^8; rows whose norms leave the
#: normal range, and larger d, are ordered exactly without the filter.
COSINE_FILTER = 1e-6
COSINE_FILTER_MAX_DIMENSION = 10**8


def _exact_key(head, i: int, k: int):
    """A number ordered like ``cos(w_i, w_k)`` over ``k`` (fixed ``i``), exactly."""
    if isinstance(head, ExactHead):
        zi, zk = head.Z[i], head.Z[k]
        g = sum(a * b for a, b in zip(zi, zk))
        nk = sum(b * b for b in zk)
        return fmpq(g * abs(g), nk)
    g = _field_dot(head.rows[i], head.rows[k])
    return g * abs(g) / _field_dot(head.rows[k], head.rows[k])


def _exact_keys(head, i: int, cand: list[int]) -> list:
    """:func:`_exact_key` of ``i`` and every label of ``cand``. For a head held as int64
    integers (``head.Zarr``) the dot products are int64 matrix products of limbs
    (:func:`_limbs`), exact because every sum stays below ``2^62``, instead of a
    Python loop over ``d`` coordinates per label: a blob of thousands of near-identical
    rows has every member among the candidates of each member."""
    Z = getattr(head, "Zarr", None)
    if Z is None or len(cand) < 8:
        return [_exact_key(head, i, k) for k in cand]
    L = _limb_bits(head.d)
    g = _exact_products(_limbs(Z[np.asarray(cand, dtype=np.intp)], L),
                        _limbs(Z[i], L), L)
    norms = _squared_norms(head)
    return [fmpq(gk * abs(gk), norms[k]) for gk, k in zip(g, cand)]


def _limb_bits(d: int) -> int:
    """Limb width ``L``: ``d`` products of two numbers below ``2^L`` sum below ``2^61``."""
    return (61 - int(d).bit_length()) // 2


def _limbs(Z: np.ndarray, L: int) -> list[np.ndarray]:
    """int64 arrays with ``Z = sum_a limbs[a] 2^(a L)`` exactly: every limb but the last
    in ``[0, 2^L)``, the last (the signed rest) of absolute value below ``2^L``."""
    limbs, rest = [], Z
    while rest.size and max(int(rest.max()), -int(rest.min())) >= 1 << L:
        limbs.append(rest & ((1 << L) - 1))
        rest = rest >> L  # floor division: rest 2^L + limb is the number before
    limbs.append(rest)
    return limbs


def _exact_products(A: list[np.ndarray], x: list[np.ndarray], L: int) -> list[int]:
    """``A @ x`` exactly, as Python integers, for ``A`` (rows) and ``x`` (a vector) in
    limbs of width ``L``."""
    total = 0
    for a, Aa in enumerate(A):
        for b, xb in enumerate(x):
            total = total + (Aa @ xb).astype(object) * (1 << (L * (a + b)))
    return [int(v) for v in total]


def _squared_norms(head) -> list[int]:
    """``|z_k|^2`` of every row, exactly (computed once per head)."""
    norms = getattr(head, "_exact_squared_norms", None)
    if norms is None:
        L = _limb_bits(head.d)
        blocks = []
        for lo in range(0, head.n, 4096):
            limbs = _limbs(head.Zarr[lo:lo + 4096], L)
            part = 0
            for a, Za in enumerate(limbs):
                for b, Zb in enumerate(limbs):
                    part = part + np.einsum("ij,ij->i", Za, Zb).astype(object) * (
                        1 << (L * (a + b)))
            blocks.extend(int(v) for v in part)
        norms = head._exact_squared_norms = blocks
    return norms


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
        cand = [int(c) for c in cand]
        keyed = sorted(zip(_exact_keys(head, i, cand), cand), key=_Desc)
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
            run = [c2 for _, c2 in sorted(zip(_exact_keys(head, i, run), run), key=_Desc)]
        out.extend(run)
        if len(out) >= k or c is None:
            break
        run = [c]
    return out[:k]


def cosine_neighbours(W: HeadInput, k: int = DEFAULT_NEIGHBOURS, *,
                      progress: ProgressBar | None = None, workers: Workers | None = None,
                      view: Callable[[Any], Any] | None = None) -> list[list[tuple[int, float]]]:
    """For every label its ``k`` nearest labels by cosine, as ``(label, cosine)``.

    The order is exact (see the module docstring); the cosine values are floats for
    display (:func:`display_cosine`). Labels with a zero row have no cosine and no
    neighbours, and are nobody's neighbour. The float pass runs over blocks of labels,
    in ``O(n)`` memory per label of a block; for large heads it is a float32 pass that
    keeps every label within ``FLOAT32_COSINE_BAND`` of the ``k``-th largest float32
    cosine, whose float64 cosines then go through the same filter as before (so the
    result is the same); with ``workers`` (:class:`verify.analyze.parallel.Workers`)
    it runs in blocks on them, each worker's head mapped to ``W`` by ``view`` (a
    module-level function; None: the workers hold ``W`` itself).
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
        _float32_neighbours(head, U, valid, k, step, out, progress, workers, view)
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
                if cand.size > k:
                    cand = cand[_nearest_by_distance(U, i, cand, k, _unit_errors(head))]
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


#: Labels per task of the float32 pass when it runs on workers.
COSINE_TASK_LABELS = 1024


def _float32_neighbours(head, U: np.ndarray, valid: np.ndarray, k: int, step: int,
                        out: list, progress, workers=None, view=None) -> None:
    """The neighbours of :func:`cosine_neighbours` through a float32 pre-filter; with
    ``workers``, blocks of ``COSINE_TASK_LABELS`` labels on the workers, whose head
    ``view`` maps to ``head`` (None: the same head)."""
    n = head.n
    if workers is not None and (workers.jobs > 1 or workers.scheduler):
        step = min(step, COSINE_TASK_LABELS)
        tasks = [(view, lo, min(n, lo + step), k) for lo in range(0, n, step)]
        results = workers.map(neighbour_block, tasks,
                              lambda r: progress.update(len(r)) if progress else None)
        for (_, lo, hi, _), block in zip(tasks, results):
            out[lo:hi] = block
        return
    head._cosine_rows = (U, valid)
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        out[lo:hi] = _float32_block(head, lo, hi, k)
        if progress is not None:
            progress.update(hi - lo)


def neighbour_block(worker_head, task) -> list:
    """Labels ``lo .. hi - 1`` of the float32 pass, a task of
    :class:`verify.analyze.parallel.Workers`: ``task = (view, lo, hi, k)``, the cosine
    head being ``view(worker_head)`` (or the worker's head itself)."""
    view, lo, hi, k = task
    head = worker_head if view is None else view(worker_head)
    return _float32_block(head, lo, hi, k)


def _unit_rows(head) -> tuple[np.ndarray, np.ndarray]:
    """The float64 rows scaled to unit length and the mask of non-zero rows (computed
    once per head and process)."""
    cached = getattr(head, "_cosine_rows", None)
    if cached is None:
        valid = _nonzero_rows(head)
        F = np.asarray(head.F, dtype=np.float64)
        norms = np.linalg.norm(F, axis=1)
        cached = head._cosine_rows = (F / np.where(norms > 0, norms, 1.0)[:, None], valid)
    return cached


def _unit_errors(head) -> np.ndarray:
    """For every row, a bound on ``|u_k - w_k / |w_k||`` for its float unit row ``u_k``
    (computed once per head and process).

    The float row is ``w_k`` with a relative error ``2^-53`` per entry plus an absolute
    one ``e`` (``head._absolute_error``, truncated low bits); its norm is within
    ``(d/2 + 2) 2^-53`` relative, and the division adds ``2^-53`` per entry. Doubled for
    the second-order terms: ``(2 d + 10) 2^-53 + 2 e sqrt(d) / |w_k|`` (the float pass
    takes only rows with ``e sqrt(d) / |w_k| < 10^-8``); zero rows: infinite.
    """
    cached = getattr(head, "_unit_errors", None)
    if cached is None:
        F = np.asarray(head.F, dtype=np.float64)
        norms = np.linalg.norm(F, axis=1)
        e = getattr(head, "_absolute_error", 0.0)
        with np.errstate(divide="ignore"):
            cached = (2 * head.d + 10) * 2.0 ** -53 + np.where(
                norms > 0, 2 * e * np.sqrt(head.d) / np.where(norms > 0, norms, 1.0), np.inf)
        head._unit_errors = cached
    return cached


def _nearest_by_distance(U: np.ndarray, i: int, cand: np.ndarray, k: int,
                         errors: np.ndarray) -> np.ndarray:
    """The mask of the labels of ``cand`` that can be among the ``k`` nearest to ``i``
    by cosine, by the distances of the unit rows.

    ``cos(w_i, w_c) = 1 - D_c^2 / 2`` with ``D_c = |w_i/|w_i| - w_c/|w_c||``: the
    largest cosines are the smallest distances. For nearly parallel rows the float
    cosine cannot tell them apart (all are 1 within ``10^-16`` in a blob of trained
    rows), while ``D_c`` is the norm of a difference, known to a small *absolute*
    error: ``|D_c - |u_i - u_c|| <= E_i + E_c`` (``errors``, :func:`_unit_errors`), and
    the float norm of the float difference adds ``(d + 3) 2^-53`` relative (doubled,
    ``2^-53 D`` for the subtraction within it). With ``t`` the ``k``-th smallest upper
    bound, every label of the ``k`` nearest (ties included) has ``D_c <= t``, so its
    lower bound is at most ``t``; the others may be dropped.
    """
    diff = U[cand] - U[i]
    D = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    spread = errors[cand] + errors[i] + (2 * U.shape[1] + 8) * 2.0 ** -53 * D
    upper = D + spread
    t = np.partition(upper, k - 1)[k - 1]
    return D - spread <= t


def _float32_block(head, lo: int, hi: int, k: int) -> list:
    """The neighbour lists of labels ``lo .. hi - 1`` by the float32 pre-filter."""
    U, valid = _unit_rows(head)
    U32 = getattr(head, "_cosine_rows32", None)
    if U32 is None:
        U32 = head._cosine_rows32 = U.astype(np.float32)
    band = float32_cosine_band(head.d)
    others_count = int(valid.sum())
    block: list = [[] for _ in range(lo, hi)]
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
        if cand.size > k:
            keep = _nearest_by_distance(U, i, cand, k, _unit_errors(head))
            cand, cos64 = cand[keep], cos64[keep]
        cos = dict(zip(cand.tolist(), cos64.tolist()))
        top = _top_exact(head, i, cand, cos, k)
        block[r] = [(c, display_cosine(head, i, c)) for c in top]
    return block


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
