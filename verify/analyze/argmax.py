r"""Argmaxable labels of a softmax head, decided exactly with evidence for every label.

Mathematics
-----------
Let ``W`` have rows ``w_0, ..., w_{n-1}`` in ``R^d`` (one per label, numbered from 0).
Label ``i`` is *argmaxable* (Grivas et al. 2022) iff some input ``x`` gives it the
strictly largest logit, ``w_i . x > w_k . x`` for every ``k != i``; that is, iff the
strict homogeneous system with the rows ``a_k = w_i - w_k`` (``k != i``) is feasible.
By Gordan's theorem of the alternative exactly one of the following holds:

* a **witness** ``x`` with ``(w_i - w_k) . x > 0`` for every ``k != i``;
* **multipliers** ``y_k >= 0``, not all zero, with ``sum_k y_k (w_i - w_k) = 0``.
  Dividing by ``sum_k y_k`` gives ``w_i = sum_k lambda_k w_k`` with ``lambda >= 0``,
  ``sum lambda = 1``: the row ``w_i`` is a convex combination of the other rows.

**Geometric form.** Label ``i`` is argmaxable iff ``w_i`` is not in
``conv{w_k : k != i}``, iff ``w_i`` is a vertex of the polytope ``P = conv(W)`` and no
other label has the same row. Strict separation of one point from the others by a
linear functional is exactly the definition of an *exposed* point of ``P``, and the
exposed points of a polytope are its vertices (Ziegler, *Lectures on Polytopes*, 1995,
§2.1); a row equal to another row, or inside the hull, is a convex combination of
other rows. There is no bias term: the softmax is unchanged when the same vector is
added to every row (Nielsen & Grivas, Lemma 3.1), and so is this criterion (a
translation moves ``P`` and its vertices together). This is the criterion Grivas et
al. (2022) illustrate for the bias-free softmax, after Demeter et al. (2020) and Cover
(1967): a class whose weight vector lies inside the convex hull of the others can never
be the argmax.

By Carathéodory's theorem the multipliers can be chosen with at most ``d + 1``
non-zero entries; every certificate returned here has that property, so checking it
costs ``O(d^2)`` exact operations.

Algorithm
---------
Floating point proposes, exact arithmetic disposes:

1. The rows are scaled by one positive integer to a matrix ``Z`` of integers (binary
   floats from ``.npy`` or ``.safetensors`` files become integers after scaling by a
   power of two). A positive common scale changes no answer.
2. Candidate witnesses come from the relaxation method (Agmon; Motzkin & Schoenberg
   1954), run on a float copy for all labels at once as a few matrix products. For a
   label that never wins there, non-negative least squares (Lawson & Hanson) looks for
   the convex combination among the rows that beat it and its nearest rows; what is
   still open goes to a cutting-plane linear program (scipy's HiGHS, in-process) that
   keeps only a few dozen of the ``n - 1`` rows active at a time.
3. Every proposed witness is checked **exactly**: ``Z x`` is computed in integer
   arithmetic (limbs of at most 23 bits, multiplied with float64 matrix products whose
   every partial sum is an integer below ``2^53``, hence exact; then carried in int64),
   and its largest entry must be entry ``i`` and only entry ``i``.
4. A proposed dependency (the support of a basic solution, at most ``d + 1`` rows) is
   made exact by an integer null-space computation; the multipliers are checked to be
   non-negative and to combine the rows to zero exactly.
5. Whatever fails a check is decided by the exact simplex method of
   :func:`verify.feasibility.strict_feasibility`.

Rows with square roots (:class:`verify.numbers.sqrt_sum.SqrtSum` entries) are decided
by the simplex method over that ordered field
(:func:`verify.field_simplex.strict_feasibility_over`).

References
----------
D. Grivas, N. Bogoychev, A. Lopez, "Low-Rank Softmax Can Have Unargmaxable Classes in
Theory but Rarely in Practice", ACL 2022. P. Gordan, Math. Ann. 6 (1873).
A. Schrijver, *Theory of Linear and Integer Programming*, 1986, §7.7-7.8.
G. M. Ziegler, *Lectures on Polytopes*, 1995. S. Agmon, "The relaxation method for
linear inequalities", Canad. J. Math. 6 (1954); T. S. Motzkin, I. J. Schoenberg, ibid.
C. L. Lawson, R. J. Hanson, *Solving Least Squares Problems*, 1974. D. Demeter,
G. Kimmel, D. Downey, "Stolen Probability", ACL 2020. T. M. Cover, "The number of
linearly inducible orderings of points in d-space", SIAM J. Appl. Math. 15 (1967).

Example
-------
>>> A = argmaxable_labels([[0, 0], [2, 0], [0, 2], [1, 1]])
>>> A.unargmaxable
[3]
>>> A.evidence[3].multipliers  # w_3 = 1/2 w_1 + 1/2 w_2
((1, 1/2), (2, 1/2))
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd, lcm
from typing import Sequence

import numpy as np
from flint import fmpq

from verify.feasibility import GordanCertificate, Witness, strict_feasibility
from verify.linalg import integer_nullspace

__all__ = [
    "ArgmaxAnalysis",
    "ExactHead",
    "FieldHead",
    "argmaxable_labels",
    "is_argmax_certificate",
    "is_argmax_witness",
    "make_head",
]

#: Bits of the integer points proposed from float witnesses (retried with more).
POINT_BITS = (3, 8, 26, 52)
#: Relaxation rounds before the remaining labels go to the linear program.
PERCEPTRON_ROUNDS = 60
#: Largest head with square-root entries (exact field simplex for every question).
FIELD_MAX_LABELS = 40
#: Over-relaxation factor of the relaxation method (in (0, 2); measured best near 2).
RELAXATION = 1.9


# --- exact checks on the original rows -------------------------------------------------

def _dot(u, v):
    total = 0
    for a, b in zip(u, v):
        total = total + a * b
    return total


def is_argmax_witness(W: Sequence[Sequence], i: int, point: Sequence) -> bool:
    """True iff ``w_i . x > w_k . x`` for every ``k != i``, decided exactly."""
    top = _dot(W[i], point)
    return all(_dot(row, point) < top for k, row in enumerate(W) if k != i)


def is_argmax_certificate(W: Sequence[Sequence], i: int, multipliers) -> bool:
    """True iff ``y >= 0``, ``y != 0`` and ``sum_k y_k (w_i - w_k) = 0`` exactly.

    ``multipliers`` are pairs ``(k, y_k)`` with labels ``k != i``.
    """
    pairs = list(multipliers)
    if not pairs or any(k == i or not 0 <= k < len(W) for k, _ in pairs):
        return False
    if any(y < 0 for _, y in pairs) or all(y == 0 for _, y in pairs):
        return False
    d = len(W[i])
    return all(_dot([y for _, y in pairs], [W[i][c] - W[k][c] for k, _ in pairs]) == 0
               for c in range(d))


# --- results ---------------------------------------------------------------------------

@dataclass(frozen=True)
class ArgmaxAnalysis:
    """Which labels can be the strict argmax, with evidence for every label.

    ``evidence[i]`` is a :class:`~verify.feasibility.Witness` (an input ``x`` whose
    largest logit is label ``i`` alone) or a :class:`~verify.feasibility.GordanCertificate`
    whose multipliers are pairs ``(k, lambda_k)`` over labels ``k != i`` with
    ``lambda >= 0``, ``sum lambda = 1`` and ``w_i = sum_k lambda_k w_k`` (at most
    ``d + 1`` of them).
    """

    n: int
    d: int
    evidence: tuple

    @property
    def argmaxable(self) -> list[int]:
        return [i for i, e in enumerate(self.evidence) if isinstance(e, Witness)]

    @property
    def unargmaxable(self) -> list[int]:
        return [i for i, e in enumerate(self.evidence) if isinstance(e, GordanCertificate)]

    def is_argmaxable(self, i: int) -> bool:
        return isinstance(self.evidence[i], Witness)


# --- input -------------------------------------------------------------------------------

def _is_field_entry(x) -> bool:
    from verify.numbers.sqrt_sum import SqrtSum

    return isinstance(x, SqrtSum) and not x.is_rational()


def make_head(W):
    """An :class:`ExactHead` for rational rows, a :class:`FieldHead` if a square root occurs.

    ``W`` may already be a head (returned unchanged).
    """
    if isinstance(W, (ExactHead, FieldHead)):
        return W
    rows = [list(row) for row in W]
    if not rows or not rows[0]:
        raise ValueError("the matrix needs at least one row and one column")
    d = len(rows[0])
    if any(len(row) != d for row in rows):
        raise ValueError("ragged rows")
    if any(_is_field_entry(x) for row in rows for x in row):
        return FieldHead(rows)
    return ExactHead(rows)


def _to_fmpq(x) -> fmpq:
    from verify.linalg import to_fmpq
    from verify.numbers.sqrt_sum import SqrtSum

    if isinstance(x, SqrtSum):
        return x.to_rational()
    return to_fmpq(x)


# --- exact integer products ------------------------------------------------------------

def _limb_bits(d: int) -> int:
    """Limb width b with ``d * 2^(2b) <= 2^50``: float64 dot products of limbs are exact."""
    return max(1, (50 - max(1, d - 1).bit_length()) // 2)


def _split_limbs(values: np.ndarray, b: int) -> np.ndarray:
    """Signed base-``2^b`` digits of an object array of ints: float64 ``(L,) + shape``.

    ``v = sum_l digit_l * 2^(b l)``, every digit has the sign of ``v`` and
    ``|digit| < 2^b``, so each digit is an exact float64.
    """
    flat = values.ravel()
    sign = np.array([(v > 0) - (v < 0) for v in flat], dtype=np.int64)
    mags = [abs(int(v)) for v in flat]
    bits = max((m.bit_length() for m in mags), default=0)
    L = max(1, -(-bits // b))
    mask = (1 << b) - 1
    out = np.empty((L, flat.size), dtype=np.float64)
    for l in range(L):
        shift = b * l
        out[l] = np.array([(m >> shift) & mask for m in mags], dtype=np.int64) * sign
    return out.reshape((L,) + values.shape)


class ExactHead:
    """The rows of ``W`` as integers under one positive scale, with a float copy.

    Attributes
    ----------
    n, d : shape.
    Z : list of tuples of Python ints, ``Z = c W`` for one rational ``c > 0``.
    F : float64 array close to ``Z / 2^s`` (entries below 1 in magnitude), for proposals.
    rows : the original rows as ``fmpq``.
    """

    def __init__(self, rows):
        self.rows = [[_to_fmpq(x) for x in row] for row in rows]
        self.n, self.d = len(self.rows), len(self.rows[0])
        den = lcm(*(int(q.q) for row in self.rows for q in row))
        Z = [[int(q.p) * (den // int(q.q)) for q in row] for row in self.rows]
        g = gcd(*(v for row in Z for v in row))
        if g > 1:
            Z = [[v // g for v in row] for row in Z]
        self.Z = [tuple(row) for row in Z]
        bits = max(abs(v).bit_length() for row in Z for v in row) or 1
        shift = max(0, bits - 62)
        approx = np.array([[v >> shift for v in row] for row in Z], dtype=np.int64)
        self.F = approx.astype(np.float64) * 2.0 ** -(bits - shift)
        self._b = _limb_bits(self.d)
        self._W_limbs = None

    # -- exact products ------------------------------------------------------------------

    def margin_signs(self, points: Sequence[Sequence[int]], targets: Sequence[int]) -> np.ndarray:
        """``sign((z_t - z_k) . x)`` exactly, for every row ``k`` and every column.

        ``points[c]`` is an integer point ``x_c`` and ``targets[c]`` a label ``t_c``;
        the result is an ``int8`` array of shape ``(n, len(points))``.
        """
        m = len(points)
        out = np.empty((self.n, m), dtype=np.int8)
        if m == 0:
            return out
        if self._W_limbs is None:
            self._W_limbs = _split_limbs(np.array(self.Z, dtype=object), self._b)
        Lw = self._W_limbs.shape[0]
        # Columns per chunk keep the limb arrays near 64 MB.
        X_all = np.array([[int(v) for v in p] for p in points], dtype=object).T
        X_limbs = _split_limbs(X_all, self._b)
        S = Lw + X_limbs.shape[0] - 1
        chunk = max(1, (1 << 23) // max(1, S * self.n))
        for start in range(0, m, chunk):
            stop = min(m, start + chunk)
            out[:, start:stop] = self._signs_chunk(X_limbs[:, :, start:stop],
                                                    np.asarray(targets[start:stop]))
        return out

    def _signs_chunk(self, X_limbs: np.ndarray, targets: np.ndarray) -> np.ndarray:
        b = self._b
        Wl = self._W_limbs
        Lw, Lx = Wl.shape[0], X_limbs.shape[0]
        S = Lw + Lx - 1
        if min(Lw, Lx) > 1 << 10:  # pragma: no cover - numbers of ~20000 bits
            raise OverflowError("integers too long for the limb products")
        m = X_limbs.shape[2]
        G = np.zeros((S, self.n, m), dtype=np.int64)
        for a in range(Lw):
            for c in range(Lx):
                # Exact: |digits| < 2^b and d * 2^(2b) <= 2^50, so every partial sum of
                # this float64 product is an integer below 2^53.
                G[a + c] += (Wl[a] @ X_limbs[c]).astype(np.int64)
        cols = np.arange(m)
        D = G[:, targets, cols][:, None, :] - G
        for s in range(S - 1):
            carry = D[s] >> b  # floor division by 2^b
            D[s] -= carry << b  # now 0 <= D[s] < 2^b
            D[s + 1] += carry
        top = D[S - 1]
        sign = np.sign(top).astype(np.int8)
        if S > 1:
            low = (D[: S - 1] != 0).any(axis=0)
            sign[(top == 0) & low] = 1
        return sign

    # -- argmax -----------------------------------------------------------------------------

    def argmax(self, progress=None) -> ArgmaxAnalysis:
        n, d = self.n, self.d
        evidence: list = [None] * n
        groups: dict[tuple, list[int]] = {}
        for i, row in enumerate(self.Z):
            groups.setdefault(row, []).append(i)
        for members in groups.values():
            if len(members) > 1:
                # Two labels with the same row always tie: neither is ever the strict
                # argmax, and w_i = w_k is the one-term convex combination.
                for i in members:
                    other = next(k for k in members if k != i)
                    evidence[i] = GordanCertificate(multipliers=((other, fmpq(1)),))
        unique = [i for i in range(n) if evidence[i] is None]
        if n == 1:
            evidence[0] = Witness(point=tuple(0 for _ in range(d)))
            unique = []
        _tick(progress, n - len(unique))
        if unique:
            F = self.F
            won, X, rivals = perceptron(F, unique, (F[unique] - F.mean(axis=0)).T)
            points = {i: X[:, c] for c, i in enumerate(unique) if won[c]}
            remaining = self._accept_points(points, evidence, progress)
            column = {i: c for c, i in enumerate(unique)}
            for i in remaining:
                c = column[i]
                evidence[i] = self._decide_label(i, X[:, c], rivals[c])
                _tick(progress, 1)
        return ArgmaxAnalysis(n=n, d=d, evidence=tuple(evidence))

    def _accept_points(self, points: dict, evidence: list, progress) -> list[int]:
        """Certify float candidates exactly; return the labels still undecided."""
        pending = [i for i in points]
        for bits in POINT_BITS:
            if not pending:
                break
            ints = [_round_point(points[i], bits) for i in pending]
            ok = [p is not None for p in ints]
            labels = [i for i, good in zip(pending, ok) if good]
            cands = [p for p in ints if p is not None]
            signs = self.margin_signs(cands, labels)
            passed = set()
            for c, i in enumerate(labels):
                col = signs[:, c]
                if np.count_nonzero(col > 0) == self.n - 1:  # all rows but i itself
                    evidence[i] = Witness(point=tuple(cands[c]))
                    passed.add(i)
            _tick(progress, len(passed))
            pending = [i for i in pending if i not in passed]
        undecided = [i for i in range(self.n) if evidence[i] is None]
        return undecided

    def _decide_label(self, i: int, start, rivals=()) -> Witness | GordanCertificate:
        others = [k for k in range(self.n) if k != i]
        A = self.F[i] - self.F[others]
        # A label that never won is probably inside the hull: look for the convex
        # combination among the labels that beat it and its nearest rows first.
        near = np.argsort(np.linalg.norm(A, axis=1))[: 2 * self.d + 2]
        position = {k: r for r, k in enumerate(others)}
        cand = list(dict.fromkeys([position[k] for k in rivals if k in position]
                                  + [int(r) for r in near]))
        support = nnls_support(A[cand])
        if support is not None:
            cert = self.label_certificate(i, [others[cand[r]] for r in support])
            if cert is not None:
                return cert
        proposal = propose_strict(A, start=start)
        if proposal is not None:
            kind, value = proposal
            if kind == "point":
                for bits in POINT_BITS:
                    p = _round_point(value, bits)
                    if p is not None and np.count_nonzero(
                            self.margin_signs([p], [i])[:, 0] > 0) == self.n - 1:
                        return Witness(point=tuple(p))
            else:
                support = [others[r] for r in value]
                cert = self.label_certificate(i, support)
                if cert is not None:
                    return cert
        return self._exact_label(i)

    def label_certificate(self, i: int, support: Sequence[int]) -> GordanCertificate | None:
        """Exact convex weights ``w_i = sum lambda_k w_k`` on ``support``, if they exist."""
        zi = self.Z[i]
        cols = [[zi[c] - self.Z[k][c] for k in support] for c in range(self.d)]
        basis = integer_nullspace(cols) if support else []
        y = None
        if len(basis) == 1:
            y = basis[0] if sum(basis[0]) > 0 else [-v for v in basis[0]]
            if any(v < 0 for v in y) or not any(y):
                y = None
        if y is None and support:
            # A degenerate support: the exact simplex on these few rows decides.
            ev = strict_feasibility([[zi[c] - self.Z[k][c] for c in range(self.d)]
                                     for k in support])
            if not isinstance(ev, GordanCertificate):
                return None
            y = [fmpq(0)] * len(support)
            for r, v in ev.multipliers:
                y[r] = fmpq(v)
        return _normalised(i, support, y)

    def _exact_label(self, i: int) -> Witness | GordanCertificate:
        others = [k for k in range(self.n) if k != i]
        rows = [[a - b for a, b in zip(self.Z[i], self.Z[k])] for k in others]
        ev = strict_feasibility(rows)
        if isinstance(ev, Witness):
            return Witness(point=_integral(ev.point))
        support = [others[r] for r, _ in ev.multipliers]
        return _normalised(i, support, [y for _, y in ev.multipliers])


def _normalised(i, support, y) -> GordanCertificate:
    total = sum((fmpq(v) for v in y), fmpq(0))
    pairs = sorted((k, fmpq(v) / total) for k, v in zip(support, y) if v != 0)
    return GordanCertificate(multipliers=tuple(pairs))


def _integral(point) -> tuple:
    """A positive multiple of a rational point with coprime integer entries."""
    qs = [fmpq(v) for v in point]
    den = lcm(*(int(q.q) for q in qs)) if qs else 1
    ints = [int(q.p) * (den // int(q.q)) for q in qs]
    g = gcd(*ints) if ints else 1
    return tuple(v // g for v in ints) if g > 1 else tuple(ints)


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


def _tick(progress, k: int) -> None:
    if progress is not None and k:
        progress.update(k)


# --- float proposals ---------------------------------------------------------------------

def perceptron(F: np.ndarray, labels, X0: np.ndarray, *, partners=None, normals=None,
               rounds: int = PERCEPTRON_ROUNDS):
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
    """
    labels = np.asarray(labels)
    m = labels.size
    X = np.array(X0, dtype=np.float64, copy=True)
    won_all = np.zeros(m, dtype=bool)
    rivals: list[list[int]] = [[] for _ in range(m)]
    active = np.arange(m)
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
            S[np.asarray(partners)[active], cols] = -np.inf
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
    return won_all, X, [list(dict.fromkeys(r)) for r in rivals]


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
                   max_rounds: int = 60):
    """Float proposal for ``A z > 0`` (and ``eq . z = 0``): a point or a dependency.

    A cutting-plane linear program: maximise ``t`` subject to ``a_k . z >= t`` for the
    rows ``k`` of an active set, ``eq . z = 0``, ``-1 <= z <= 1``, ``t <= 1``, and add
    the rows the optimum violates until none is. Returns ``("point", z)`` (``z`` a float
    array), ``("support", rows)`` when the active rows admit ``y >= 0``, ``y != 0`` with
    ``sum y_k a_k`` a multiple of ``eq`` (indices into ``A``, at most ``d + 1``), or
    ``None`` if the solver gave up. Nothing returned is trusted: the caller certifies.
    """
    from scipy.optimize import linprog

    N, d = A.shape
    if N == 0:
        return ("point", np.ones(d))
    norms = np.linalg.norm(A, axis=1)
    norms[norms == 0] = 1.0
    An = A / norms[:, None]
    e = None
    if eq is not None:
        ne = float(np.linalg.norm(eq))
        e = eq / ne if ne > 0 else None
    k0 = min(N, max(2 * d + 2, 8))
    if start is not None and np.all(np.isfinite(start)) and np.any(start):
        first = np.argsort(An @ np.asarray(start, dtype=np.float64))[:k0]
    else:
        first = np.argsort(np.linalg.norm(A, axis=1))[:k0]
    active = list(dict.fromkeys(int(r) for r in first))
    c = np.zeros(d + 1)
    c[-1] = -1.0
    bounds = [(-1.0, 1.0)] * d + [(None, 1.0)]
    A_eq = None if e is None else np.concatenate([e, [0.0]])[None, :]
    b_eq = None if e is None else np.zeros(1)
    for _ in range(max_rounds):
        sub = An[active]
        res = linprog(c, A_ub=np.hstack([-sub, np.ones((len(active), 1))]),
                      b_ub=np.zeros(len(active)), A_eq=A_eq, b_eq=b_eq,
                      bounds=bounds, method="highs")
        if res.status != 0:
            return None
        z, t = res.x[:d], res.x[d]
        if t <= 1e-10:
            support = _dependency(sub, e)
            if support is None:
                return None
            return ("support", [active[r] for r in support])
        margins = An @ z
        inside = set(active)
        order = np.argsort(margins)
        new = [int(r) for r in order[: 4 * d + 8]
               if margins[r] < t * (1 - 1e-9) and int(r) not in inside][: max(d, 4)]
        if not new:
            return ("point", z)
        active.extend(new)
    return None


def _dependency(sub: np.ndarray, e) -> list[int] | None:
    """Support of ``y >= 0``, ``sum y = 1``, ``sub^T y + mu e = 0`` (a vertex: <= d+1)."""
    from scipy.optimize import linprog

    N, d = sub.shape
    cols = N + (1 if e is not None else 0)
    A_eq = np.zeros((d + 1, cols))
    A_eq[:d, :N] = sub.T
    if e is not None:
        A_eq[:d, N] = e
    A_eq[d, :N] = 1.0
    b_eq = np.zeros(d + 1)
    b_eq[d] = 1.0
    bounds = [(0, None)] * N + ([(None, None)] if e is not None else [])
    res = linprog(np.zeros(cols), A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
    if res.status != 0:
        return None
    y = res.x[:N]
    top = float(y.max()) if N else 0.0
    if top <= 0:
        return None
    return [r for r in range(N) if y[r] > 1e-9 * top]


# --- rows with square roots ------------------------------------------------------------

class FieldHead:
    """Rows with entries in ``Q(sqrt r_1, sqrt r_2, ...)`` (:class:`SqrtSum`).

    Every question is answered by the exact simplex method over that ordered field;
    meant for the small matrices of the paper's examples.
    """

    def __init__(self, rows):
        from verify.errors import TooLargeError
        from verify.numbers.sqrt_sum import SqrtSum, as_sqrt_sum

        if len(rows) > FIELD_MAX_LABELS:
            raise TooLargeError(
                f"entries with square roots are analysed for at most {FIELD_MAX_LABELS} "
                f"labels (this matrix has {len(rows)}); every question is an exact "
                "simplex run over Q(sqrt ...)")
        self.one = SqrtSum(1)
        self.rows = [[as_sqrt_sum(x) for x in row] for row in rows]
        self.n, self.d = len(self.rows), len(self.rows[0])
        self.F = np.array([[float(x) for x in row] for row in self.rows], dtype=np.float64)

    def strict(self, rows):
        from verify.field_simplex import strict_feasibility_over

        if not rows:
            return Witness(point=tuple(self.one - self.one for _ in range(self.d)))
        if not rows[0]:
            # Zero columns: only z = () exists and every row is 0 . z = 0.
            return GordanCertificate(multipliers=((0, self.one),))
        zero_rows = [r for r, row in enumerate(rows) if all(x == 0 for x in row)]
        if zero_rows:
            return GordanCertificate(multipliers=((zero_rows[0], self.one),))
        return strict_feasibility_over(rows, self.one)

    def argmax(self, progress=None) -> ArgmaxAnalysis:
        evidence = []
        for i in range(self.n):
            others = [k for k in range(self.n) if k != i]
            rows = [[a - b for a, b in zip(self.rows[i], self.rows[k])] for k in others]
            ev = self.strict(rows)
            if isinstance(ev, GordanCertificate):
                support = [others[r] for r, _ in ev.multipliers]
                total = sum((y for _, y in ev.multipliers), self.one - self.one)
                ev = GordanCertificate(multipliers=tuple(
                    (k, y / total) for k, (_, y) in zip(support, ev.multipliers)))
            evidence.append(ev)
            _tick(progress, 1)
        return ArgmaxAnalysis(n=self.n, d=self.d, evidence=tuple(evidence))


def argmaxable_labels(W, *, progress=None) -> ArgmaxAnalysis:
    """Decide for every label whether it can be the strict argmax, with exact evidence.

    Parameters
    ----------
    W : rows of exact numbers (int, Fraction, fmpq, or :class:`SqrtSum`), or a head
        from :func:`make_head`.
    progress : an object with ``update(k)`` (a tqdm bar), or None.

    Returns
    -------
    ArgmaxAnalysis
        Every witness and certificate has been checked exactly.
    """
    return make_head(W).argmax(progress)

