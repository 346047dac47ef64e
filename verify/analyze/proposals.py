r"""Float proposals for the strict systems of :mod:`verify.analyze`: points and supports.

Mathematics
-----------
For a label ``i`` the rows ``a_k = f_i - f_k`` (:class:`Differences`, never stored)
define the strict homogeneous system ``A z > 0``. By Gordan's theorem it has either a
solution ``z`` or non-negative multipliers ``y != 0`` with ``sum_k y_k a_k = 0``. This
module only *proposes* one of the two in floating point; :mod:`verify.analyze.argmax`
and :mod:`verify.analyze.ties` certify every proposal exactly.

* :func:`perceptron`: the relaxation method of Agmon and of Motzkin & Schoenberg
  (1954), over-relaxed projections onto the most violated half-space, for many labels
  at once as matrix products;
* :func:`nnls_support`: a dependency ``sum y_k a_k = 0``, ``sum y = 1``, from the
  Lawson-Hanson non-negative least squares method; its support has at most ``d + 1``
  rows (Carathéodory);
* :func:`propose_strict`: cutting planes that maximise the smallest margin over the
  unit ball, each round by NNLS on the active rows (Wolfe's minimum-norm point), with
  the same program over a box solved as its dual by column generation in HiGHS
  (``highspy``, warm from the last basis) behind them: a point, or the support of a
  dependency.

References
----------
S. Agmon, "The relaxation method for linear inequalities", Canad. J. Math. 6 (1954);
T. S. Motzkin, I. J. Schoenberg, ibid. C. L. Lawson, R. J. Hanson, *Solving Least
Squares Problems*, 1974. G. B. Dantzig, P. Wolfe, "Decomposition principle for linear
programs", Oper. Res. 8 (1960). P. Wolfe, "Finding the nearest point in a polytope",
Math. Programming 11 (1976).
"""

from __future__ import annotations

import os
import sys
from math import gcd
from typing import Sequence

import numpy as np

__all__ = [
    "Differences",
    "label_proposal",
    "nnls_support",
    "perceptron",
    "propose_strict",
    "smallest",
]


#: Relaxation rounds before the remaining labels go to the linear program.
PERCEPTRON_ROUNDS = 60
#: Over-relaxation factor of the relaxation method (in (0, 2); measured best near 2).
RELAXATION = 1.9
# propose_strict stops at a point whose every row has at least this fraction of the
# active set's optimal margin: a witness needs no more than a margin that survives
# rounding, and on trained heads the last rounds of the cutting planes (about 50 of
# them, each adding a handful of rows) only polish an optimum nobody uses.
EARLY_MARGIN = 0.1


def smallest(values: np.ndarray, k: int) -> np.ndarray:
    """The indices of the ``k`` smallest ``values`` in increasing order, ties by index:
    ``np.argsort(values, kind="stable")[:k]`` without sorting all of them (the
    per-label programs ask this of an ``n``-vector several times per label; a full
    sort of PP-OCRv5's 18,385 margins costs a millisecond, the partition a tenth).

    >>> smallest(np.array([3.0, 1.0, 2.0, 1.0, 0.5]), 3).tolist()
    [4, 1, 3]
    """
    values = np.asarray(values)
    n = values.size
    k = max(0, min(int(k), n))
    if k == 0:
        return np.zeros(0, dtype=np.intp)
    if k == n:
        return np.argsort(values, kind="stable")
    kth = np.partition(values, k - 1)[k - 1]
    if np.isnan(kth):
        return np.argsort(values, kind="stable")[:k]
    chosen = np.flatnonzero(values <= kth)  # in increasing index: the sort is stable
    return chosen[np.argsort(values[chosen], kind="stable")][:k]


class Differences:
    """The rows ``f_i - f_k`` (``k != i``, or ``k`` not in ``skip``) of a head, never stored.

    What the float proposals need of the ``(n - 1) x d`` matrix ``A`` of differences,
    in ``O(n + d)`` memory besides the head: the row norms, products ``A z``, and a few
    rows at a time (``take``). Row ``r`` of ``A`` is label ``labels[r]``.
    """

    def __init__(self, head, i: int, skip=()):
        self.F, self.i = head.F, i
        self._squares = getattr(head, "row_squares", None)
        self._norms = self._squares_kept = self._along = None
        # The labels left out, in order: row r is label r + (number left out <= it).
        self._excluded = np.array(sorted({int(i), *(int(k) for k in skip)}), dtype=np.intp)
        self._index = np.delete(np.arange(head.n, dtype=np.intp), self._excluded)
        self.labels = self._index.tolist()
        self.shape = (len(self.labels), head.d)
        # Small heads keep the matrix (the same floats as forming it explicitly).
        small = 8 * head.n * head.d <= head.budget.block_bytes // 4
        self.dense = self.F[i] - self.F[self._index] if small else None

    def position(self, k: int) -> int:
        """The row of label ``k`` (a label not left out)."""
        before = int(np.searchsorted(self._excluded, k))
        if before < self._excluded.size and self._excluded[before] == k:
            raise KeyError(k)
        return int(k) - before

    def take(self, rows) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.intp)
        if self.dense is not None:
            return self.dense[rows]
        return self.F[self.i] - self.F[self._index[rows]]

    def __matmul__(self, z) -> np.ndarray:
        z = np.asarray(z, dtype=np.float64)
        if self.dense is not None:
            return self.dense @ z
        return (self.F[self.i] @ z) - (self.F @ z)[self._index]

    def norms(self, along=None) -> np.ndarray:
        """Norms of the rows, or of their components orthogonal to ``along``.

        ``|f_i - f_k|^2 = |f_i|^2 - 2 f_i . f_k + |f_k|^2`` loses accuracy to
        cancellation for nearly equal rows; these norms only rank candidates.
        """
        if self.dense is not None:
            A = self.dense
            vv = None if along is None else float(along @ along)
            if vv:
                A = A - np.outer(A @ along, along) / vv
            return np.linalg.norm(A, axis=1)
        if self._squares_kept is None:
            Fi = self.F[self.i]
            squares = (self._squares() if self._squares is not None
                       else np.einsum("ij,ij->i", self.F, self.F))
            self._squares_kept = (squares[self._index] - 2.0 * (self.F @ Fi)[self._index]
                                  + float(Fi @ Fi))
            self._norms = np.sqrt(np.maximum(self._squares_kept, 0.0))
        vv = None if along is None else float(along @ along)
        if not (vv and np.isfinite(vv)):
            return self._norms
        # The norms are asked for again and again, orthogonal to the same direction
        # too (three times per pair, the direction normalised on the way, so equal
        # up to rounding): the last ones are kept.
        u = np.asarray(along, dtype=np.float64) / np.sqrt(vv)
        if self._along is None or not np.allclose(u, self._along[0], rtol=0.0,
                                                  atol=1e-15):
            out = self._squares_kept - (self @ u) ** 2
            self._along = (u, np.sqrt(np.maximum(out, 0.0)))
        return self._along[1]


def _round_point(x, bits: int):
    """The float point scaled to ``2^bits`` and rounded to integers (None if zero)."""
    x = np.asarray(x, dtype=np.float64)
    scale = float(np.max(np.abs(x))) if x.size else 0.0
    if not np.isfinite(scale) or scale == 0.0:
        return None
    ints = [int(v) for v in np.rint(x / scale * 2.0 ** bits)]
    if not any(ints):
        return None
    g = gcd(*ints)
    return [v // g for v in ints] if g > 1 else ints


def label_proposal(head, i: int, skip: Sequence[int] = (), start=None,
                   basic: bool = False):
    """The cutting planes of :func:`propose_strict` for label ``i`` against the rows
    other than ``i`` and ``skip``: ``("point", x)``, ``("support", labels)`` or None.
    ``basic``: by the simplex method (a basic solution, whose support usually has
    ``d + 1`` rows where the minimum-norm point may lie on a smaller face). A float
    proposal only."""
    A = Differences(head, i, skip=skip)
    found = propose_strict(A, start=start, method="columns" if basic else "nnls")
    if found is not None and found[0] == "support":
        return ("support", [A.labels[r] for r in found[1]])
    return found


# --- float proposals ---------------------------------------------------------------------

def perceptron(F: np.ndarray, labels, X0: np.ndarray, *, partners=None, normals=None,
               rounds: int = PERCEPTRON_ROUNDS, block: int | None = None):
    """Float inputs under which ``labels[c]`` seems to win, for many columns at once.

    The relaxation method of Agmon and of Motzkin & Schoenberg (1954) per column ``c``:
    while some label ``k`` scores at least as high as ``i = labels[c]`` at ``x_c``,
    reflect ``x_c`` across the hyperplane ``(w_i - w_k) . x = 0`` of the most violated
    inequality (over-relaxed projection, factor ``RELAXATION``). With
    ``partners`` (a second label ``j`` per column, ignored as a rival) and ``normals``
    (unit vectors ``v_c``) the points stay on the hyperplanes ``v_c . x = 0`` (every step
    is projected onto them): that searches for inputs where ``i`` and ``j`` tie on top.

    Returns ``(won, X, rivals)``: a boolean array (the column's label won in floating
    point at ``X[:, c]``), the final points, and per column the list of labels that beat
    it on the way (candidates for a dependency when it never wins). It only proposes;
    the caller certifies every point exactly.

    Columns are independent: they are processed ``block`` at a time (default: all), so
    the products take ``O(n block)`` memory.
    """
    labels = np.asarray(labels)
    m = labels.size
    X = np.array(X0, dtype=np.float64, copy=True)
    won_all = np.zeros(m, dtype=bool)
    rivals: list[list[int]] = [[] for _ in range(m)]
    if partners is not None:
        partners = np.asarray(partners)
    step = m if not block else block
    for lo in range(0, m, max(1, step)):
        _relax(F, labels, X, np.arange(lo, min(m, lo + step)), won_all, rivals, partners,
               normals, rounds)
    return won_all, X, [list(dict.fromkeys(r)) for r in rivals]


def _relax(F, labels, X, active, won_all, rivals, partners, normals, rounds) -> None:
    """The rounds of :func:`perceptron` for the columns ``active`` (updated in place)."""
    for _ in range(rounds):
        if not active.size:
            break
        lab = labels[active]
        S = F @ X[:, active]
        cols = np.arange(active.size)
        own = S[lab, cols].copy()
        scale = np.abs(S).max(axis=0)
        S[lab, cols] = -np.inf
        if partners is not None:
            S[partners[active], cols] = -np.inf
        rival = S.argmax(axis=0)
        best = S[rival, cols]
        won = best < own - 1e-12 * scale
        won_all[active[won]] = True
        for a, r in zip(active[~won], rival[~won]):
            rivals[a].append(int(r))
        keep = ~won
        # A small push keeps exact ties (excess 0) from stalling.
        excess = (best - own + 1e-9 * scale)[keep]
        active, rival = active[keep], rival[keep]
        if not active.size:
            break
        lab = labels[active]
        g = F[lab] - F[rival]
        if normals is not None:
            V = normals[active]
            g -= V * np.sum(g * V, axis=1)[:, None]
        gg = np.sum(g * g, axis=1)
        # A rival parallel to the constraint plane gives no direction: no step.
        flat = gg <= 1e-24
        gg[flat] = 1.0
        excess[flat] = 0.0
        # Over-relaxed projection onto the violated half-space g . x >= 0.
        Y = X[:, active] + (g * (RELAXATION * excess / gg)[:, None]).T
        # The problem is homogeneous: rescaling keeps the numbers tame.
        norms = np.linalg.norm(Y, axis=0)
        good = np.isfinite(norms) & (norms > 0)
        Y[:, good] /= norms[good]
        X[:, active[good]] = Y[:, good]


def nnls_support(A: np.ndarray, eq: np.ndarray | None = None) -> list[int] | None:
    """Float proposal of a dependency ``sum y_k a_k + t eq = 0``, ``y >= 0``, ``sum y = 1``.

    The rows are projected onto ``eq^perp`` (which removes ``t``) and scaled to unit
    length (a positive scaling keeps the support of a dependency); then the
    Lawson-Hanson non-negative least squares method (scipy's ``nnls``) minimises
    ``|sum y_k a_k|^2 + (sum y_k - 1)^2``. A zero residual gives a solution whose
    support has linearly independent columns, so at most ``d + 1`` rows. Returns the
    support (indices into ``A``) or None.
    """
    from scipy.optimize import nnls

    if A.shape[0] == 0:
        return None
    B = np.array(A, dtype=np.float64, copy=True)
    if eq is not None:
        ne = float(np.linalg.norm(eq))
        if ne > 0:
            e = eq / ne
            B -= np.outer(B @ e, e)
    norms = np.linalg.norm(B, axis=1)
    zero = np.nonzero(norms == 0)[0]
    if zero.size:
        return [int(zero[0])]
    B /= norms[:, None]
    M = np.vstack([B.T, np.ones((1, B.shape[0]))])
    b = np.zeros(M.shape[0])
    b[-1] = 1.0
    try:
        y, residual = nnls(M, b, maxiter=50 * M.shape[1])
    except RuntimeError:  # pragma: no cover - iteration limit
        return None
    if residual > 1e-9 or not np.any(y > 0):
        return None
    top = float(y.max())
    return [r for r in range(y.size) if y[r] > 1e-9 * top]


def propose_strict(A: np.ndarray, eq: np.ndarray | None = None, start=None,
                   max_rounds: int = 60, early: float | None = EARLY_MARGIN,
                   initial: Sequence[int] = (), method: str = "nnls"):
    """Float proposal for ``A z > 0`` (and ``eq . z = 0``): a point or a dependency.

    Cutting planes over the rows ``b_k`` of an active set: the rows ``a_k`` projected
    onto ``eq^perp`` and scaled to unit length. Each round the Lawson-Hanson method
    (scipy's ``nnls``) minimises

        ``|p|^2 + (sum_k y_k - 1)^2``,   ``p = sum_k y_k b_k``,  ``y >= 0``

    over the active set. Its optimality conditions say ``b_k . p >= s`` for every
    active row, with equality where ``y_k > 0``, and ``s = 1 - sum y = |p|^2 / sum y``:
    so ``p`` is a point of margin ``s > 0`` on the active rows (the nearest point to
    the origin of their convex hull, scaled: Wolfe's minimum-norm point), or, at
    residual zero, ``y`` is a dependency ``sum y_k b_k = 0`` (a Gordan certificate in
    floating point) whose support has linearly independent rows, so at most ``d + 1``.
    The next active set is the rows with ``y_k > 0`` and the rows of ``A`` that ``p``
    leaves below ``s`` (the ``max(d, 4)`` most violated), until none is left, or until
    every row has a margin of at least ``early`` times ``s`` (None: only at the optimum);
    the HiGHS method keeps every row it has added. The active set starts with
    the rows ``initial`` (indices into ``A``) and the rows of smallest margin at
    ``start`` (or of smallest norm).

    This is the dual of the linear program that maximises the smallest margin, with
    the unit ball in place of a box: the same points and supports, and on trained heads
    about four times faster than the same cutting planes in a simplex solver (measured
    on PP-OCRv5: one NNLS of a few hundred columns against a warm re-solve in HiGHS).
    Where NNLS gives up, or with ``method="columns"``, the cutting planes run in HiGHS
    (:func:`_propose_by_columns`).

    Returns ``("point", z)`` (``z`` a float array), ``("support", rows)`` (indices into
    ``A``, at most ``d + 1``), or ``None`` if both gave up. Nothing returned is
    trusted: the caller certifies.
    """
    N, d = A.shape
    if N == 0:
        return ("point", np.ones(d))
    if isinstance(A, np.ndarray):
        A = _Dense(A)
    e = _unit_vector(eq)
    active = _first_rows(A, e, start, initial)
    found = (_propose_by_nnls(A, e, active, max_rounds, early) if method == "nnls"
             else None)
    if found is None:
        found = _propose_by_columns(A, e, active, max_rounds, early)
    return found


def _unit_vector(eq):
    if eq is None:
        return None
    ne = float(np.linalg.norm(eq))
    return eq / ne if ne > 0 else None


def _first_rows(A, e, start, initial) -> list[int]:
    """The starting active set of :func:`propose_strict`: ``initial``, then the
    ``max(2 d + 2, 8)`` rows of smallest normalised margin at ``start`` (or of
    smallest norm)."""
    N, d = A.shape
    norms = _projected_norms(A, e)
    k0 = min(N, max(2 * d + 2, 8))
    if start is not None and np.all(np.isfinite(start)) and np.any(start):
        first = smallest((A @ np.asarray(start, dtype=np.float64)) / norms, k0)
    else:
        first = smallest(norms, k0)
    return list(dict.fromkeys([int(r) for r in initial] + [int(r) for r in first]))


def _projected_norms(A, e) -> np.ndarray:
    """Norms of the rows of ``A`` orthogonal to ``e`` (zeros made 1: they only rank)."""
    norms = A.norms() if e is None else A.norms(along=e)
    norms = np.array(norms, dtype=np.float64)
    norms[~(norms > 0)] = 1.0
    return norms


def _propose_by_nnls(A, e, active: list[int], max_rounds: int, early):
    """The cutting planes of :func:`propose_strict` with NNLS; None if it gives up."""
    from scipy.optimize import nnls

    N, d = A.shape
    norms = _projected_norms(A, e)
    active = list(active)
    rhs = np.zeros(d + 1)
    rhs[d] = 1.0
    for _ in range(max_rounds):
        B = np.array(A.take(active), dtype=np.float64)
        if e is not None:
            B -= np.outer(B @ e, e)
        lengths = np.linalg.norm(B, axis=1)
        zero = np.flatnonzero(lengths == 0)
        if zero.size:
            # a_k = 0, or a_k parallel to eq: no z has a_k . z > 0.
            return ("support", [active[int(zero[0])]])
        B /= lengths[:, None]
        M = np.vstack([B.T, np.ones((1, len(active)))])
        try:
            y, residual = nnls(M, rhs, maxiter=50 * M.shape[1])
        except RuntimeError:  # pragma: no cover - iteration limit
            return None
        if not np.all(np.isfinite(y)) or not np.any(y > 0):
            return None
        if residual <= 1e-9:
            top = float(y.max())
            return ("support", [active[r] for r in range(y.size) if y[r] > 1e-9 * top])
        z = B.T @ y
        new = _violated_rows((A @ z) / norms, 1.0 - float(y.sum()), active, d, early)
        if new is None:
            return ("point", z)
        # The next round keeps the rows of the optimum and adds the violated ones:
        # each new row would lower the objective (its gradient s - b_k . p is
        # positive), so the objective falls strictly from round to round and no
        # active set comes back, while the program stays a few hundred columns
        # smaller than the union of all rounds (NNLS costs grow with the columns).
        active = [active[r] for r in np.flatnonzero(y > 0)] + new
    return None


def _violated_rows(margins: np.ndarray, t: float, active: list[int], d: int, early):
    """One step of the cutting planes at a point with unit margins ``margins`` over all
    rows and active optimum ``t``: None when the point is the proposal (every row has
    ``early`` times ``t``, or none falls short of ``t``), else the ``max(d, 4)`` most
    violated rows outside ``active``."""
    if early is not None and margins.min() > early * t:
        return None
    inside = set(active)
    order = smallest(margins, 4 * d + 8)
    new = [int(r) for r in order[: 4 * d + 8]
           if margins[r] < t * (1 - 1e-9) and int(r) not in inside][: max(d, 4)]
    return new or None


def _propose_by_columns(A, e, active: list[int], max_rounds: int, early):
    """The cutting planes of :func:`propose_strict` as a linear program: maximise
    ``t`` subject to ``a_k . z >= t`` (unit rows), ``eq . z = 0``, ``-1 <= z <= 1``,
    ``t <= 1``, solved as its dual,

        minimise  sum_j (p_j + q_j) + s
        subject to  p - q - sum_k y_k a_k - mu eq = 0,   sum_k y_k + s = 1,
                    y, p, q, s >= 0  (mu free),

    whose ``d + 1`` rows keep the simplex basis small however many rows are active; a
    new row of the cutting planes is a new column here, so HiGHS's simplex starts each
    round from the last basis (Dantzig & Wolfe's column generation). The point ``z``
    is the dual value of the first ``d`` rows, the optimum ``t`` the objective; at
    ``t <= 0`` the weights ``y`` are a dependency ``sum y_k a_k + mu eq = 0``.
    """
    N, d = A.shape
    raw_norms = A.norms()
    norms = raw_norms.copy()
    norms[norms == 0] = 1.0
    # The rows scaled to unit length; kept only when A itself is.
    An = None if A.dense is None else A.dense / norms[:, None]

    def unit_products(z):
        return An @ z if An is not None else (A @ z) / norms

    active = list(active)
    lp = _ColumnProgram(d, e)
    lp.add(An[active] if An is not None else A.take(active) / norms[active][:, None])
    for _ in range(max_rounds):
        found = lp.solve()
        if found is None:
            return None
        z, t, y = found
        if t <= 1e-10:
            top = float(y.max()) if y.size else 0.0
            if top <= 0:
                return None
            return ("support", [active[r] for r in range(y.size) if y[r] > 1e-9 * top])
        new = _violated_rows(unit_products(z), t, active, d, early)
        if new is None:
            return ("point", z)
        active.extend(new)
        lp.add(An[new] if An is not None else A.take(new) / norms[new][:, None])
    return None


_HIGHS_GREETED = False


def _quiet_highs(highspy):
    """A ``highspy.Highs`` with its log off. Its constructor writes a banner to file
    descriptor 1, once per process and before any option can be set: that first
    construction runs with descriptor 1 on ``/dev/null``, so that no output of ours
    (a JSON report on stdout, say) ever carries it."""
    global _HIGHS_GREETED
    if _HIGHS_GREETED:
        h = highspy.Highs()
    else:
        sys.stdout.flush()
        saved = os.dup(1)
        try:
            with open(os.devnull, "wb") as null:
                os.dup2(null.fileno(), 1)
                h = highspy.Highs()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        _HIGHS_GREETED = True
    h.setOptionValue("output_flag", False)
    return h


class _ColumnProgram:
    """The dual program of :func:`propose_strict` in HiGHS (``highspy``), one column
    ``y_k`` per active row, kept between rounds so that each solve starts from the
    last basis."""

    def __init__(self, d: int, e):
        import highspy

        self.highspy, self.d = highspy, d
        h = self.h = _quiet_highs(highspy)
        # New columns leave the last basis primal feasible, yet HiGHS's dual simplex
        # re-solves about twice as fast as its primal one on trained heads (measured).
        h.setOptionValue("simplex_strategy", 1)
        inf = highspy.kHighsInf
        rhs = np.zeros(d + 1)
        rhs[d] = 1.0
        h.addRows(d + 1, rhs, rhs, 0, np.zeros(d + 1, dtype=np.int32),
                  np.zeros(0, dtype=np.int32), np.zeros(0))
        # p_j (+1 in row j), q_j (-1 in row j), s (+1 in row d), and mu (e, free).
        rows = np.r_[np.arange(d), np.arange(d), d].astype(np.int32)
        vals = np.r_[np.ones(d), -np.ones(d), 1.0]
        k = 2 * d + 1
        h.addCols(k, np.ones(k), np.zeros(k), np.full(k, inf), k,
                  np.arange(k, dtype=np.int32), rows, vals)
        self.fixed = k
        if e is not None:
            nz = np.flatnonzero(e).astype(np.int32)
            h.addCols(1, np.zeros(1), np.full(1, -inf), np.full(1, inf), nz.size,
                      np.zeros(1, dtype=np.int32), nz, -e[nz])
            self.fixed += 1

    def add(self, rows: np.ndarray) -> None:
        """Columns ``(-a_k, 1)`` for the unit rows ``a_k`` of ``rows``."""
        k, d = rows.shape[0], self.d
        M = np.hstack([-rows, np.ones((k, 1))])
        self.h.addCols(k, np.zeros(k), np.zeros(k), np.full(k, self.highspy.kHighsInf),
                       k * (d + 1), (np.arange(k) * (d + 1)).astype(np.int32),
                       np.tile(np.arange(d + 1, dtype=np.int32), k), M.ravel())

    def solve(self):
        """``(z, t, y)`` at the optimum, or None if HiGHS did not reach one."""
        h = self.h
        h.run()
        if h.getModelStatus() != self.highspy.HighsModelStatus.kOptimal:
            return None
        sol = h.getSolution()
        z = np.array(sol.row_dual[: self.d])
        y = np.array(sol.col_value[self.fixed:])
        return z, float(h.getInfo().objective_function_value), y


class _Dense:
    """An explicit matrix with the interface of :class:`Differences`."""

    def __init__(self, A: np.ndarray):
        self.dense, self.shape = A, A.shape

    def take(self, rows) -> np.ndarray:
        return self.dense[np.asarray(rows, dtype=np.intp)]

    def __matmul__(self, z) -> np.ndarray:
        return self.dense @ z

    def norms(self, along=None) -> np.ndarray:
        A = self.dense
        vv = None if along is None else float(along @ along)
        if vv:
            A = A - np.outer(A @ along, along) / vv
        return np.linalg.norm(A, axis=1)
