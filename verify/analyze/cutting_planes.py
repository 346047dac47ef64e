r"""Argmaxable labels and tie pairs over a domain of inputs, at the scale of real heads.

The questions and certificates are those of :mod:`verify.analyze.domain` (Gordan's and
Ville's theorems for labels, Motzkin's for pairs; proofs in docs/analyze.md, "Domains
of inputs"). That module decides each label by the exact simplex method on all ``n``
rows; here each label (and each pair) is decided by **exact cutting planes over a set
of rivals proposed in floating point**, so that the exact work grows with the support
of the answer, not with ``n``.

Mathematics
-----------
Lift the head to the integer rows ``z_k = c (w_k, b_k)`` (``c > 0``) and the input to
``(y, s)``, ``s > 0``, ``x = y / s``. For a set ``S`` of rivals of ``i`` and a set ``R``
of the domain's rows (``y_j >= 0``; ``y_j - L s >= 0``, ``U s - y_j >= 0``), the
*restricted* system ``(z_i - z_k) . (y, s) > 0`` (``k`` in ``S``), ``s > 0``,
``r . (y, s) >= 0`` (``r`` in ``R``) is a relaxation of the full one:

* convex weights ``lambda`` on ``S`` that certify the restricted system infeasible
  certify the full one (a certificate names rows, and every row it names is a row of
  the full system; the domain's support function ``h_D`` is at most that of the
  relaxed domain, so ``h_D(w_i - sum lambda_k w_k) + b_i - sum lambda_k b_k <= 0``);
* a solution of the restricted system is a witness once it lies in the domain and
  ``i`` beats every label there; otherwise a row it violates (a rival that beats or
  ties ``i``, or a domain row) is added, and the restricted system is solved again.
  Each round adds a row, so this ends, at the latest with the full system.

Pairs alike, with the equation ``(z_i - z_j) . (y, s) = 0`` and Motzkin's theorem
(:func:`verify.analyze.domain.mixed_feasibility`).

Algorithm
---------
1. **Float proposal** (HiGHS, ``highspy``): maximise ``t`` subject to
   ``l_i(x) - l_k(x) >= t`` for ``k`` in the active set, ``x`` in the domain (variable
   bounds), ``t <= 1``; every round adds the rivals violated at the optimum (one
   product with the float rows) until none is. For a pair, the row ``l_i = l_j`` too.
2. ``t > 0``: the point, rounded to a dyadic grid inside the domain (for a pair, one
   coordinate then solved exactly for ``l_i = l_j``), is checked exactly
   (:meth:`~verify.analyze.head.ExactHead.wins` on the lifted rows,
   :meth:`~verify.analyze.domain.Domain.contains`).
3. Otherwise the weights of the float optimum's support are solved for exactly (the
   equations ``g_j = 0`` on the coordinates off their bounds, ``sum lambda = 1``: one
   reduced row echelon form) and checked.
4. If that fails too (or rounding did), the exact cutting planes above start from
   ``S`` = the active rivals and ``R`` = the domain rows tight at the float optimum.

Floats only choose ``S`` and ``R`` and a point to try; every answer is checked by the
exact ``is_domain_*`` criteria on the support it names, and every witness against all
labels. Labels and pairs go in fixed blocks to the workers
(:class:`~verify.analyze.parallel.Workers`), so the answers are the same for any
``--jobs``; memory is that of the head (the lifted integer rows and their float copy).

Example
-------
>>> A = argmaxable_by_cutting_planes([[2, -1], [-1, 2], [0, 0]], "nonneg")
>>> A.argmaxable, A.unargmaxable  # on x >= 0, label 2 never wins
([0, 1], [2])
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd, lcm
from typing import Sequence

import numpy as np
from flint import fmpq

from verify.analyze.argmax import ArgmaxAnalysis
from verify.analyze.domain import (
    Domain,
    is_domain_argmax_certificate,
    is_domain_no_tie_certificate,
    mixed_feasibility,
    parse_domain,
)
from verify.analyze.ties import NoTieCertificate, TieAnalysis, TieWitness
from verify.lp.feasibility import GordanCertificate, Witness, strict_feasibility

__all__ = [
    "DomainHead",
    "argmaxable_by_cutting_planes",
    "decide_label",
    "decide_pair",
    "tie_pairs_by_cutting_planes",
]

#: Rivals in the first active set, and at most added per round of the float LP.
START_RIVALS = 32
ADD_RIVALS = 32
#: A point whose every rival is this fraction of the active set's margin below ``i``
#: ends the float LP (as :data:`verify.analyze.proposals.EARLY_MARGIN`).
EARLY_MARGIN = 0.1
#: Rounds of the float LP before the exact cutting planes take over.
FLOAT_ROUNDS = 60
#: Grids ``2^-k`` a witness is rounded to, finest last (then the float itself).
ROUNDING_BITS = (20, 40)
#: Labels (pairs) per task of the workers: fixed, so answers do not depend on --jobs.
TASK_LABELS = 32


# --- the head ------------------------------------------------------------------------------

class DomainHead:
    """The lifted integer rows ``z_k = c (w_k, b_k)`` of ``W x + b`` (an
    :class:`~verify.analyze.head.ExactHead`, ``labels = n``), their float copy, and the
    domain with its integer rows and float bounds."""

    def __init__(self, W, b, domain, *, budget=None):
        from verify.analyze.head import ExactHead

        domain = parse_domain(domain)
        if not isinstance(W, (np.ndarray, list, tuple)) and hasattr(W, "dtype"):
            W = W[0: W.shape[0]]  # a checkpoint's tensor, widened exactly
        dtype = _common_dtype(W, b)
        if dtype is not None:
            n = W.shape[0]
            col = np.zeros((n, 1), dtype=dtype) if b is None else np.asarray(b).reshape(n, 1)
            self.lifted = ExactHead.from_array(np.hstack([W.astype(dtype), col.astype(dtype)]),
                                               budget=budget)
        else:
            from verify.analyze.domain import _exact_bias, _exact_rows

            rows = _exact_rows(W)
            bias = _exact_bias(b, len(rows))
            self.lifted = ExactHead([r + [v] for r, v in zip(rows, bias)], budget=budget)
        self.n, self.d = self.lifted.n, self.lifted.d - 1
        self.domain = domain
        #: The labels' evidence, once decided (no-tie certificates derive from it).
        self.argmax: ArgmaxAnalysis | None = None
        self.positive = [0] * self.d + [1]
        F = self.lifted.F
        self.Fw, self.Fb = np.ascontiguousarray(F[:, : self.d]), np.ascontiguousarray(F[:, self.d])
        inf = float("inf")
        if domain.kind == "box":
            self.lo = np.full(self.d, float(domain.lower))
            self.hi = np.full(self.d, float(domain.upper))
        elif domain.kind == "nonneg":
            self.lo, self.hi = np.zeros(self.d), np.full(self.d, inf)
        else:
            self.lo, self.hi = np.full(self.d, -inf), np.full(self.d, inf)

    # -- exact pieces ----------------------------------------------------------------------

    def difference(self, i: int, k: int) -> list[int]:
        return [a - c for a, c in zip(self.lifted.Z[i], self.lifted.Z[k])]

    @property
    def W(self):
        """The rows ``c w_k`` (integers), read lazily: the exact checks touch only the
        rows a certificate names (the checks are invariant under the scale ``c``)."""
        return _Columns(self.lifted.Z, slice(0, self.d))

    @property
    def b(self):
        return _Columns(self.lifted.Z, self.d)

    def in_domain(self, point: Sequence[int]) -> bool:
        """Whether the homogeneous integer point ``(y, s)``, ``s > 0``, has ``y / s`` in D."""
        return point[-1] > 0 and not self.violated_domain_rows(point)

    def domain_row(self, r: int) -> list[int]:
        """Row ``r`` of :meth:`verify.analyze.domain.Domain.rows` (``nonneg``: ``y_r``;
        ``box``: ``y_r - L s``, then ``U s - y_(r-d)``), made when asked for: all ``2d``
        of them would take ``O(d^2)`` memory."""
        d, dom = self.d, self.domain
        row = [0] * (d + 1)
        if dom.kind == "nonneg":
            row[r] = 1
        elif r < d:
            row[r], row[d] = dom.lower.denominator, -dom.lower.numerator
        else:
            row[r - d], row[d] = -dom.upper.denominator, dom.upper.numerator
        return row

    def violated_domain_rows(self, point: Sequence[int]) -> list[int]:
        """Indices (as in :meth:`domain_row`) of the domain rows negative at ``(y, s)``
        (read off the coordinates: each domain row has one non-zero ``y`` entry)."""
        dom, d, s = self.domain, self.d, point[-1]
        if dom.kind == "nonneg":
            return [j for j in range(d) if point[j] < 0]
        if dom.kind == "box":
            lp, lq = dom.lower.numerator, dom.lower.denominator
            up, uq = dom.upper.numerator, dom.upper.denominator
            low = [j for j in range(d) if lq * point[j] < lp * s]
            return low + [d + j for j in range(d) if uq * point[j] > up * s]
        return []

    def beaters(self, i: int, point: Sequence[int], skip=()) -> list[int]:
        """The labels ``k != i`` (not in ``skip``) with ``l_k >= l_i`` at the point, exactly."""
        signs = self.lifted.margin_signs([list(point)], [i])[:, 0]
        return [int(k) for k in np.flatnonzero(signs <= 0) if k != i and k not in skip]


def _common_dtype(W, b):
    """The numpy type that holds both ``W`` and ``b`` exactly, or None (then the rows
    are taken as exact rationals one by one)."""
    arrays = [a for a in (W, b) if a is not None]
    if not all(isinstance(a, np.ndarray) and a.dtype.kind in "fiu" for a in arrays):
        return None
    dtype = np.result_type(*arrays)
    for a in arrays:
        # Integers widen to float64 exactly only below 2^53 in magnitude.
        if a.dtype.kind in "iu" and dtype.kind == "f" and a.size and (
                int(a.max()) >= 2 ** 53 or int(a.min()) <= -(2 ** 53)):
            return None
    return dtype


class _Columns:
    """``rows[k][cols]`` on demand (a column slice, or one column)."""

    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, k: int):
        return self.rows[k][self.cols]


def _dot(u, v) -> int:
    return sum(int(a) * int(c) for a, c in zip(u, v) if a)


def _primitive(values) -> list[int]:
    """Rationals (or integers) as coprime integers: a positive multiple."""
    if all(type(v) is int for v in values):
        ints = list(values)
    else:
        q = [Fraction(int(v.p), int(v.q)) if isinstance(v, fmpq) else Fraction(v)
             for v in values]
        den = lcm(1, *(v.denominator for v in q))
        ints = [int(v * den) for v in q]
    g = gcd(*ints) or 1
    return [v // g for v in ints]


# --- 1. the float proposal --------------------------------------------------------------

class _MarginLP:
    """``max t`` s.t. ``(f_i - f_k) . x - t >= fb_k - fb_i`` for the active rivals,
    ``lo <= x <= hi``, ``t <= 1`` (and ``(f_i - f_j) . x = fb_j - fb_i`` for a pair),
    in HiGHS, rows added between solves (each solve starts from the last basis)."""

    def __init__(self, head: DomainHead, i: int, j: int | None = None):
        import highspy

        from verify.analyze.proposals import _quiet_highs

        self.head, self.i, self.hs = head, i, highspy
        h = self.h = _quiet_highs(highspy)
        h.setOptionValue("simplex_strategy", 1)
        d = head.d
        inf = highspy.kHighsInf
        lo = np.where(np.isfinite(head.lo), head.lo, -inf)
        hi = np.where(np.isfinite(head.hi), head.hi, inf)
        cost = np.zeros(d + 1)
        cost[d] = -1.0
        h.addVars(d + 1, np.r_[lo, -inf], np.r_[hi, 1.0])
        h.changeColsCost(d + 1, np.arange(d + 1, dtype=np.int32), cost)
        self.active: list[int] = []
        if j is not None:
            a = head.Fw[i] - head.Fw[j]
            nz = np.flatnonzero(a).astype(np.int32)
            rhs = head.Fb[j] - head.Fb[i]
            h.addRow(rhs, rhs, nz.size, nz, a[nz])
            self.fixed = 1
        else:
            self.fixed = 0

    def add(self, rivals: Sequence[int]) -> None:
        head, i, d = self.head, self.i, self.head.d
        k = len(rivals)
        if not k:
            return
        A = head.Fw[i][None, :] - head.Fw[np.asarray(rivals)]
        M = np.hstack([A, -np.ones((k, 1))])
        lower = head.Fb[np.asarray(rivals)] - head.Fb[i]
        self.h.addRows(k, lower, np.full(k, self.hs.kHighsInf), k * (d + 1),
                       (np.arange(k) * (d + 1)).astype(np.int32),
                       np.tile(np.arange(d + 1, dtype=np.int32), k), M.ravel())
        self.active.extend(int(r) for r in rivals)

    def solve(self):
        """``(x, t, duals of the active rows)``, or None without an optimum."""
        h = self.h
        h.run()
        if h.getModelStatus() != self.hs.HighsModelStatus.kOptimal:
            return None
        sol = h.getSolution()
        v = np.array(sol.col_value)
        return v[:-1], float(v[-1]), np.array(sol.row_dual[self.fixed:])


def propose(head: DomainHead, i: int, j: int | None = None):
    """The float cutting planes for label ``i`` (pair ``(i, j)``): ``(x, t, support,
    tight)``, ``support`` the active rivals with a non-zero dual, ``tight`` the domain
    rows tight at ``x``; None if HiGHS fails."""
    skip = {i} if j is None else {i, j}
    lp = _MarginLP(head, i, j)
    start = np.clip(head.Fw[i], head.lo, head.hi)
    scores = head.Fw @ start + head.Fb
    order = [int(k) for k in np.argsort(-scores, kind="stable") if int(k) not in skip]
    lp.add(order[:START_RIVALS])
    result = None
    for _ in range(FLOAT_ROUNDS):
        result = lp.solve()
        if result is None:
            return None
        x, t, _duals = result
        scores = head.Fw @ x + head.Fb
        slack = scores[i] - scores - t
        slack[list(skip)] = np.inf
        slack[lp.active] = np.inf
        scale = 1e-9 * (1.0 + float(np.max(np.abs(scores))))
        bad = np.flatnonzero(slack < -scale)
        if bad.size == 0 or (t > 0 and float(np.min(slack)) >= (EARLY_MARGIN - 1) * t):
            # The optimum, or a point where every rival is below i by a tenth of the
            # active set's margin: enough for a witness (what is left is polish).
            break
        worst = bad[np.argsort(slack[bad], kind="stable")][:ADD_RIVALS]
        lp.add([int(k) for k in worst])
    x, t, duals = result
    support = [k for k, y in zip(lp.active, duals) if abs(y) > 1e-12]
    return x, t, support, _tight_rows(head, x)


def _tight_rows(head: DomainHead, x: np.ndarray) -> list[int]:
    """Indices (as in :meth:`DomainHead.domain_row`) of the bounds ``x`` sits on
    (within 1e-9)."""
    d, kind = head.d, head.domain.kind
    if kind == "nonneg":
        return [int(j) for j in np.flatnonzero(x <= 1e-9)]
    if kind == "box":
        width = 1e-9 * (1.0 + abs(head.hi[0] - head.lo[0]))
        low = [int(j) for j in np.flatnonzero(x - head.lo <= width)]
        high = [d + int(j) for j in np.flatnonzero(head.hi - x <= width)]
        return low + high
    return []


# --- 2. rounding a float point -----------------------------------------------------------

def _grid_point(head: DomainHead, x: np.ndarray, bits: int | None) -> list[int]:
    """``x`` on the grid ``2^-bits`` (None: the floats as they are), clamped into D, as
    a primitive homogeneous integer point ``(y, s)``."""
    dom = head.domain
    if bits is None:
        q = [Fraction(v) for v in x.tolist()]
        unit = lcm(1, *(v.denominator for v in q))
        y = [int(v * unit) for v in q]
    else:
        unit = 2 ** bits
        y = [int(round(v * unit)) for v in x.tolist()]
    if dom.kind == "box":
        s = lcm(unit, dom.lower.denominator, dom.upper.denominator)
        lo, hi = int(dom.lower * s), int(dom.upper * s)
        y = [min(max(v * (s // unit), lo), hi) for v in y]
    else:
        s = unit
        if dom.kind == "nonneg":
            y = [max(v, 0) for v in y]
    return _primitive(y + [s])


def _rounded_witness(head: DomainHead, i: int, x: np.ndarray):
    for bits in ROUNDING_BITS + (None,):
        point = _grid_point(head, x, bits)
        if head.in_domain(point) and head.lifted.wins([point], [i])[0]:
            from verify.analyze.bias import LiftedWitness

            return LiftedWitness(point)
    return None


def _rounded_tie(head: DomainHead, i: int, j: int, x: np.ndarray):
    """A tie witness near ``x``: one coordinate (inside its bounds, largest coefficient
    of ``w_i - w_j``) solved exactly for ``l_i = l_j``."""
    g = head.difference(i, j)
    d = head.d
    inside = (x - head.lo > 1e-6 * (1 + np.abs(x))) & (head.hi - x > 1e-6 * (1 + np.abs(x)))
    candidates = [int(m) for m in np.argsort(-np.abs(np.array(g[:d], dtype=float)),
                                             kind="stable") if g[m] and inside[m]]
    if not candidates:
        return None
    m = candidates[0]
    for bits in ROUNDING_BITS + (None,):
        y = _grid_point(head, x, bits)
        rest = _dot(g, y) - g[m] * y[m]
        # g . y = 0 with y_m = -rest / g_m: scale y by |g_m| to stay in integers.
        sign = 1 if g[m] > 0 else -1
        y = [v * abs(g[m]) for v in y]
        y[m] = -sign * rest
        point = _primitive(y)
        if head.in_domain(point) and head.lifted.wins([point], [i], partners=[j])[0]:
            from verify.analyze.bias import LiftedTieWitness

            return LiftedTieWitness(TieWitness(point=tuple(fmpq(v) for v in point)))
    return None


# --- 3. the support's weights, exactly ---------------------------------------------------

def _free_coordinates(head: DomainHead, tight: Sequence[int]) -> list[int]:
    """The coordinates whose bounds are not tight: ``g_j = 0`` there at an optimum."""
    on_bound = {r % head.d for r in tight}
    return [j for j in range(head.d) if j not in on_bound]


def _basis_multipliers(head: DomainHead, i: int, rivals: Sequence[int],
                       free: Sequence[int], j: int | None = None):
    """Multipliers ``y`` on ``rivals`` (and ``t`` on ``l_i - l_j`` for a pair) with
    ``sum y = 1`` and ``G_c = 0`` on the ``free`` coordinates, by one exact reduced
    row echelon form (the free unknowns set to 0); None if there are none. What the
    float optimum proposes; whether they certify is checked by the caller."""
    from flint import fmpq_mat

    columns = [head.difference(i, k) for k in rivals]
    if j is not None:
        columns.append(head.difference(i, j))
    m = len(columns)
    if not m:
        return None
    rows = [[col[c] for col in columns] + [0] for c in free]
    rows.append([1] * len(rivals) + [0] * (m - len(rivals)) + [1])
    R, rank = fmpq_mat(len(rows), m + 1, [v for row in rows for v in row]).rref()
    y = [fmpq(0)] * m
    for r in range(rank):
        pivot = next(c for c in range(m + 1) if R[r, c] != 0)
        if pivot == m:
            return None  # inconsistent
        y[pivot] = R[r, m]
    return y


# --- 4. exact cutting planes ------------------------------------------------------------

def decide_label(head: DomainHead, i: int):
    """A :class:`~verify.analyze.bias.LiftedWitness` (an input in D where ``i`` alone is
    on top) or a :class:`GordanCertificate` of convex weights of the domain's form."""
    from verify.analyze.bias import LiftedWitness

    proposal = propose(head, i)
    if proposal is not None:
        x, t, support, tight = proposal
        if t > 0:
            e = _rounded_witness(head, i, x)
            if e is not None:
                return e
        else:
            y = _basis_multipliers(head, i, support, _free_coordinates(head, tight))
            if y is not None and all(v >= 0 for v in y):
                weights = tuple((k, v) for k, v in sorted(zip(support, y)) if v != 0)
                if weights and is_domain_argmax_certificate(head.W, head.b, i, weights,
                                                            head.domain):
                    return GordanCertificate(multipliers=weights)
        rivals, rows = list(support), list(tight)
    else:
        rivals, rows = [], []
    if not rivals:
        rivals = [k for k in range(min(head.n, START_RIVALS + 1)) if k != i][:START_RIVALS]
    while True:
        system = ([head.difference(i, k) for k in rivals] + [head.positive]
                  + [head.domain_row(r) for r in rows])
        ev = strict_feasibility(system)
        if isinstance(ev, GordanCertificate):
            y = [(rivals[r], fmpq(v)) for r, v in ev.multipliers
                 if r < len(rivals) and v != 0]
            total = sum((v for _, v in y), fmpq(0))
            cert = GordanCertificate(multipliers=tuple(sorted((k, v / total) for k, v in y)))
            if not is_domain_argmax_certificate(head.W, head.b, i, cert.multipliers,
                                                head.domain):
                raise AssertionError(f"internal error: the weights of label {i} do not hold")
            return cert
        point = _primitive(ev.point)
        outside = head.violated_domain_rows(point)
        beaters = [] if outside else head.beaters(i, point, skip=rivals)
        if not outside and not beaters:
            return LiftedWitness(point)
        rows += [r for r in outside if r not in rows]
        rivals += beaters[:ADD_RIVALS] if beaters else []


def decide_pair(head: DomainHead, i: int, j: int, argmax: ArgmaxAnalysis | None = None):
    """A :class:`~verify.analyze.bias.LiftedTieWitness` (``l_i = l_j`` on top at an input
    in D) or a :class:`NoTieCertificate` of the domain's form."""
    from verify.analyze.bias import LiftedTieWitness
    from verify.analyze.domain import _Lifted

    if argmax is not None:
        for cert in _Lifted._derived(i, j, argmax):
            if is_domain_no_tie_certificate(head.W, head.b, i, j, cert, head.domain):
                return cert
    proposal = propose(head, i, j)
    rivals: list[int] = []
    rows: list[int] = []
    if proposal is not None:
        x, t, support, tight = proposal
        if t > 0:
            e = _rounded_tie(head, i, j, x)
            if e is not None:
                return e
        else:
            y = _basis_multipliers(head, i, support, _free_coordinates(head, tight), j)
            if y is not None and all(v >= 0 for v in y[:-1]):
                cert = NoTieCertificate(multipliers=tuple(
                    (k, v) for k, v in sorted(zip(support, y)) if v != 0), tie=y[-1])
                if is_domain_no_tie_certificate(head.W, head.b, i, j, cert, head.domain):
                    return cert
        rivals, rows = list(support), list(tight)
    equal = [head.difference(i, j)]
    while True:
        strict = [head.difference(i, k) for k in rivals] + [head.positive]
        answer = mixed_feasibility(strict, [head.domain_row(r) for r in rows], equal)
        if answer[0] == "point":
            point = _primitive(answer[1])
            outside = head.violated_domain_rows(point)
            beaters = [] if outside else head.beaters(i, point, skip=rivals + [j])
            if not outside and not beaters:
                return LiftedTieWitness(TieWitness(point=tuple(fmpq(v) for v in point)))
            rows += [r for r in outside if r not in rows]
            rivals += beaters[:ADD_RIVALS]
            continue
        u, t = answer[1], answer[3][0]
        y = [(rivals[r], v) for r, v in enumerate(u[: len(rivals)]) if v != 0]
        total = sum((v for _, v in y), fmpq(0))
        scale = total if total != 0 else abs(t)
        cert = NoTieCertificate(multipliers=tuple(sorted((k, v / scale) for k, v in y)),
                                tie=t / scale)
        if not is_domain_no_tie_certificate(head.W, head.b, i, j, cert, head.domain):
            raise AssertionError(f"internal error: the evidence of ({i}, {j}) does not hold")
        return cert


# --- blocks on the workers ------------------------------------------------------------

def _label_task(head: DomainHead, labels) -> list:
    return [decide_label(head, i) for i in labels]


def _pair_task(head: DomainHead, pairs) -> list:
    return [decide_pair(head, i, j, head.argmax) for i, j in pairs]


def _in_blocks(head: DomainHead, task, items: list, progress, workers) -> list:
    """``task(head, block)`` over fixed blocks of ``TASK_LABELS`` items, in this
    process or on ``workers``, the results concatenated in order."""
    blocks = [items[a: a + TASK_LABELS] for a in range(0, len(items), TASK_LABELS)]

    def tick(result):
        if progress is not None:
            progress.update(len(result))

    if workers is None:
        results = []
        for block in blocks:
            results.append(task(head, block))
            tick(results[-1])
    else:
        results = workers.map(task, blocks, on_result=tick)
    return [e for part in results for e in part]


def argmaxable_by_cutting_planes(W, domain=None, bias=None, *, head: DomainHead | None = None,
                                 progress=None, workers=None) -> ArgmaxAnalysis:
    """Decide every label of ``W x + b`` over ``domain`` (module docstring); evidence as
    in :func:`verify.analyze.domain.argmaxable_in_domain`."""
    head = head or DomainHead(W, bias, domain)
    evidence = _in_blocks(head, _label_task, list(range(head.n)), progress, workers)
    return ArgmaxAnalysis(n=head.n, d=head.d, evidence=tuple(evidence))


def tie_pairs_by_cutting_planes(W, domain=None, bias=None, argmax=None, *, pairs=None,
                                head: DomainHead | None = None, progress=None,
                                workers=None) -> TieAnalysis:
    """Decide the ``pairs`` (all pairs by default) of ``W x + b`` over ``domain``:
    evidence as in :func:`verify.analyze.domain.tie_pairs_in_domain`. ``workers`` must
    be started after ``head.argmax`` is set (forked workers inherit the head)."""
    head = head or DomainHead(W, bias, domain)
    if argmax is None:
        argmax = argmaxable_by_cutting_planes(W, domain, bias, head=head)
    head.argmax = argmax
    n = head.n
    wanted = ([(i, j) for i in range(n) for j in range(i + 1, n)] if pairs is None else
              sorted({(min(i, j), max(i, j)) for i, j in pairs if i != j}))
    evidence = dict(zip(wanted, _in_blocks(head, _pair_task, wanted, progress, workers)))
    return TieAnalysis(n=n, evidence=evidence, complete=len(evidence) == n * (n - 1) // 2)
