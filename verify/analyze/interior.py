r"""Exact convex weights for many labels inside the hull of a large head.

Mathematics
-----------
A label ``i`` is unargmaxable iff ``z_i = sum_k lambda_k z_k`` with ``lambda >= 0``,
``sum lambda = 1`` over labels ``k != i`` (:mod:`verify.analyze.argmax`). For a point
``z_i`` in the interior of the hull such weights exist on a *basic* support ``S`` of
``d + 1`` labels (Carathéodory), where they are the unique solution of the square
system

    M_S lambda = (z_i, 1),   M_S = [z_k for k in S; 1 ... 1]   ((d + 1) x (d + 1)),

and the certificate holds iff that solution is non-negative. So one label costs a float
proposal of ``S`` and one exact solve:

* **Proposal by positive weights and Carathéodory's reduction**
  (:func:`caratheodory_supports`). The candidates are the rows that beat ``i`` where
  the screen looked for a witness, the ``d + 1`` rows furthest in ``i``'s whitened
  direction and a sample of ``3 (d + 1)`` rows drawn from a generator seeded with the
  cluster's first label (so the proposal depends on the head and the task only), in
  whitened coordinates (:func:`whitened`). A point near the centroid of a head whose
  rows form a Gaussian-like cloud lies in the hull of such a sample: the hull of
  ``m`` Gaussian points in ``R^d`` contains a ball of radius about
  ``sqrt(2 log(m / d))`` in whitened coordinates (Donoho & Tanner 2010). First
  strictly positive weights on all candidates (:func:`positive_weights`: minimum norm,
  else maximum entropy), then Carathéodory's reduction to ``d + 1`` of them
  (:func:`caratheodory_basis`: move along a null vector until a weight reaches zero,
  one candidate at a time, in batches of matrix products), ``O(d^2 m)`` in all: about
  2 CPU seconds at ``d = 768``.
* **Second proposal by a simplex walk** (:func:`simplex_walk`), up to ``d =
  WALK_MAX_DIMENSION``, for the labels the first proposal did not place: from the
  centroid of ``d + 1`` candidates straight to ``z_i``, exchanging one vertex whenever
  the segment leaves the current simplex (``O(d m)`` per exchange, about ``1.4 d``
  exchanges at ``d = 256``; at ``d = 768`` it gave up on most labels). A label neither
  places is left to the per-label methods of :mod:`verify.analyze.argmax`
  (non-negative least squares, ``O(d^4)``, then a cutting-plane linear program).
* **Exact solve** by Dixon's ``p``-adic lifting (python-flint's ``fmpq_mat.solve``):
  ``Y`` and ``D > 0`` with ``M_S Y = D (z_i, 1)``, checked exactly by one integer
  matrix product, so ``lambda = Y / D``; the weights are accepted iff every
  ``Y_k >= 0``. If the proposed support has fewer than ``d + 1`` labels (a point on a
  lower-dimensional face, or a head of rank below ``d``), a non-singular square
  subsystem is chosen by float QR with column pivoting and the check covers all
  ``d + 1`` equations.
* **Near-duplicate clusters** (rows within a relative ``2^-12`` of each other, as in
  :mod:`verify.analyze.clusters`, found by :func:`clusters`) are one task: each member
  first tries the previous member's simplex (the walk: starts where the previous one
  ended), and members that end on the same simplex are solved together, as
  right-hand sides of one solve.

Nothing is trusted that was not checked exactly: the weights ``Y / D`` satisfy the
system exactly and their signs are read off exact integers, which is what
:func:`verify.analyze.argmax.is_argmax_certificate` and the certificate checker verify
again. The certificates have the form the checker already reads (convex weights on at
most ``d + 1`` labels).

Cost (measured in docs/analyze.md, CPU seconds per label): the proposal about 2 s and
the exact solve about 4 s at ``d = 768``; the non-negative least squares proposal it
replaces took 6-7 s at ``d = 512`` and minutes at ``d = 768``.

Example
-------
>>> import numpy as np
>>> from verify.analyze.head import make_head
>>> head = make_head(np.array([[0, 0], [4, 0], [0, 4], [1, 1], [5, 5]]))
>>> interior_certificates(head, [(3, None, ())])  # w_3 = (2 w_0 + w_1 + w_2) / 4
{3: ((0, 1, 2), [2, 1, 1], 4)}
"""

from __future__ import annotations

from math import lcm
from typing import Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from verify.analyze.clusters import NEAR_RELATIVE

__all__ = ["caratheodory_basis", "caratheodory_supports", "clusters", "exact_weights",
           "interior_certificates", "positive_weights", "simplex_walk", "whitened"]

#: Rows sampled per dimension for the proposal.
SAMPLE_PER_DIMENSION = 3
#: Pivots of :func:`simplex_walk` per dimension before it gives up.
WALK_PIVOTS = 4
#: Dimensions up to which the simplex walk is tried for the labels that Carathéodory's
#: reduction does not place (at d = 768 it gave up on most planted labels after
#: 11-14 s each, so there it would only delay the per-label methods).
WALK_MAX_DIMENSION = 512
#: Dimensions from which a label's interior position in its simplex is proven by a
#: verified inverse (:mod:`verify.analyze.simplex`, about 0.4 s at d = 768) rather than
#: by exact weights (python-flint's Dixon solve, about 4 s there, and as long again for
#: the certificate checker): below it exact weights are cheap and show in the output.
SIMPLEX_MIN_DIMENSION = 128
#: Relative distance below which two rows count as near-duplicates: the same notion as
#: the witnesses of near-duplicate rows (:mod:`verify.analyze.clusters`).
NEAR_DUPLICATE = NEAR_RELATIVE
# interior_certificates tries its first INTERIOR_PROBE clusters, and the rest only if
# these certified at least INTERIOR_MIN_SHARE of their labels.
INTERIOR_PROBE = 32
INTERIOR_MIN_SHARE = 1 / 8


def _pool(head, lead: int, rivals: Sequence[int], skip: Sequence[int]) -> np.ndarray:
    """Candidate labels for the walk, never ``lead`` or a label in ``skip``: ``rivals``,
    the ``d + 1`` rows furthest in the direction of ``lead`` seen from the centroid in
    the whitened metric (they extend the candidates' hull towards ``z_lead``), and a
    sample of ``3 (d + 1)`` rows from a generator seeded with ``lead`` (first); of
    equal float rows only the first."""
    excluded = set(skip) | {lead}
    keep = np.ones(head.n, dtype=bool)
    keep[list(excluded)] = False
    others = np.flatnonzero(keep)
    size = min(len(others), SAMPLE_PER_DIMENSION * (head.d + 1))
    sample = np.sort(np.random.default_rng(lead).choice(len(others), size, replace=False))
    direction = head.mahalanobis().directions(head.F[[lead]])[:, 0]
    scores = (head.F @ direction)[others]  # not F[others]: a copy of the whole head
    far = others[np.argsort(-scores, kind="stable")[: head.d + 1]]
    # The sample first: the walk starts from the first d + 1 (random, well spread).
    pool = np.array(list(dict.fromkeys(others[sample].tolist() + sorted(far.tolist())
                                       + [int(k) for k in rivals if k not in excluded])),
                    dtype=np.intp)
    # One label per distinct float row: equal rows (exact copies are common in real
    # heads) would make the starting simplex singular and add nothing to the hull.
    first: dict = {}
    for k in pool.tolist():
        # Bytes of the row (+ 0.0: -0.0 is 0.0): np.unique would sort the rows.
        first.setdefault((head.F[k] + 0.0).tobytes(), k)
    return np.array(list(first.values()), dtype=np.intp)


def simplex_walk(P: np.ndarray, targets: Sequence[np.ndarray], max_pivots: int):
    r"""Float proposal of a simplex of columns of ``P`` around each target, in turn.

    ``P`` is ``N x m`` (columns ``(f_k, 1)``), each target an ``N``-vector ``(f_i, 1)``.
    Starting from the first ``N`` columns at their centroid (weights ``1/N``), the
    current point ``q`` moves along the segment to the target; the weights
    ``lambda = B^{-1} q`` of the basis ``B`` change linearly, and when one of them,
    ``lambda_r``, reaches zero the walk leaves the simplex through the facet opposite
    vertex ``r``: a column ``j`` with ``(B^{-1} P_j)_r < 0`` (beyond that facet; the
    one furthest beyond) replaces it, which keeps every weight non-negative and lets
    ``lambda_j`` grow along the segment (a step of the parametric dual simplex method
    with zero costs). The point never moves back, so no simplex is visited twice. If
    no column lies beyond the facet, the target is outside the hull of the columns.
    The next target starts where the previous one ended (near-duplicates cost a few
    pivots). Returns one entry per target: the column indices of ``B`` or None.
    """
    N, m = P.shape
    basis = list(range(N))
    try:
        Binv = np.linalg.inv(P[:, basis])
    except np.linalg.LinAlgError:
        return [None] * len(targets)
    q = P[:, basis].mean(axis=1)
    out = []
    for target in targets:
        found = None
        for pivot in range(max_pivots):
            if pivot % 64 == 63:  # refresh the inverse against drift
                try:
                    Binv = np.linalg.inv(P[:, basis])
                except np.linalg.LinAlgError:
                    break  # a singular basis: give up (the walk only proposes)
            lam = Binv @ q
            if lam.min() < -1e-6:
                break  # the float basis has drifted (ill-conditioned): give up
            delta = Binv @ (target - q)
            falling = delta < 0
            steps = np.full(N, np.inf)
            steps[falling] = np.maximum(lam[falling], 0.0) / -delta[falling]
            r = int(np.argmin(steps))
            if steps[r] >= 1.0:
                found = list(basis)
                q = target.copy()
                break
            q = q + steps[r] * (target - q)
            alpha = Binv[r] @ P
            alpha[basis] = 0.0
            j = int(np.argmin(alpha))
            if not alpha[j] < -1e-12 * float(np.abs(alpha).max()):
                break  # nothing beyond the facet: the target is outside
            column = Binv @ P[:, j]
            pivot_row = Binv[r] / column[r]
            Binv -= np.outer(column, pivot_row)
            Binv[r] = pivot_row
            basis[r] = j
        out.append(found)
        if found is None:
            break
    return out + [None] * (len(targets) - len(out))


# --- the proposal by positive weights and Caratheodory's reduction ------------------------

#: Columns eliminated per batch of :func:`caratheodory_basis` (one BLAS-3 product each).
REDUCTION_BATCH = 64
#: Batches between fresh inverses of the basis (against the drift of the updates).
REDUCTION_REFRESH = 16
#: Newton steps of the maximum-entropy fit before :func:`positive_weights` gives up.
ENTROPY_STEPS = 40
#: Dimensions from which the Newton steps of :func:`positive_weights` are found by
#: conjugate gradients on Hessian-vector products (``O(d m)`` each) instead of forming
#: the ``d x d`` Hessian (``O(d^2 m)``): at ``d = 4096`` a formed Hessian costs about
#: 0.5 TFLOP per step.
NEWTON_CG_MIN_DIMENSION = 512
#: Conjugate-gradient iterations per Newton step, at most.
NEWTON_CG_ITERATIONS = 200


def whitened(head, labels) -> np.ndarray:
    """Columns ``(L^T (f_k - mu), 1)`` for ``k`` in ``labels``, ``L L^T = C^{-1}``: the
    affine map that makes the rows' covariance the identity (convex weights are
    invariant under affine maps, so they may be sought in these coordinates)."""
    metric = head.mahalanobis()
    L = getattr(head, "_whitening", None)
    if L is None:  # once per head and process: O(d^3)
        try:
            L = np.linalg.cholesky(metric.precision)
        except np.linalg.LinAlgError:
            L = np.eye(head.d)
        head._whitening = L
    Y = L.T @ (head.F[list(labels)] - metric.mean).T
    return np.vstack([Y, np.ones((1, Y.shape[1]))])


def positive_weights(A: np.ndarray, t: np.ndarray, gram=None) -> np.ndarray | None:
    r"""Float weights ``lambda > 0`` with ``A lambda ~ t`` (the last row of ``A`` and of
    ``t`` all ones), or None.

    First the minimum-norm solution ``lambda = A^T (A A^T)^{-1} t``; in whitened
    coordinates, for a target near the centroid of many Gaussian candidates, it is
    close to the uniform weights ``1/m`` and often positive (on the candidates of the
    benchmark head at ``d = 768`` it never was: the fit below did the work). Otherwise the maximum-entropy
    weights ``lambda_k \propto exp(theta . a_k)``: ``theta`` minimises the convex
    function ``log sum_k exp(theta . a_k) - theta . y`` (``a_k``, ``y`` without the row
    of ones), whose gradient is the weighted mean minus ``y`` and whose Hessian is the
    weighted covariance; Newton's method with a backtracking line search (from ``d =
    NEWTON_CG_MIN_DIMENSION`` on, each step by conjugate gradients: :func:`_newton_step`). The
    minimum exists iff ``y`` is interior to the hull of the ``a_k``. Floats only: the
    weights merely propose a support. ``gram`` is ``A A^T`` if already computed.
    """
    N, m = A.shape
    if m < N:
        return None
    try:
        lam = A.T @ np.linalg.solve(A @ A.T if gram is None else gram, t)
    except np.linalg.LinAlgError:
        return None
    if lam.min() > 0:
        return lam
    Y, y = A[:-1], t[:-1]
    scale = max(float(np.abs(Y).max()), 1e-300)
    Y, y = Y / scale, y / scale  # theta then lives on the scale of 1

    def objective(theta):
        s = theta @ Y
        top = float(s.max())
        return top + np.log(np.exp(s - top).sum()) - float(theta @ y)

    theta = np.zeros(N - 1)
    value = objective(theta)
    for _ in range(ENTROPY_STEPS):
        s = theta @ Y
        p = np.exp(s - s.max())
        p /= p.sum()
        mean = Y @ p
        gradient = mean - y
        if float(np.abs(gradient).max()) < 1e-12:
            break
        step = _newton_step(Y, p, mean, gradient)
        if step is None:
            return None
        size = 1.0
        while size > 1e-8:
            trial = objective(theta - size * step)
            if trial <= value - 1e-4 * size * float(gradient @ step):
                break
            size /= 2
        else:
            # Near the optimum the decrease is below the rounding of the objective and
            # no step passes the test: a full step that shrinks the gradient is taken.
            if not _shrinks_gradient(Y, y, theta - step, gradient):
                break
            size, trial = 1.0, objective(theta - step)
        theta, value = theta - size * step, trial
    s = theta @ Y
    p = np.exp(s - s.max())
    p /= p.sum()
    # Not converged (the target outside the candidates' hull, or on its boundary):
    # the weights must reproduce the target.
    if not (p.min() > 0 and float(np.abs(Y @ p - y).max()) < 1e-9):
        return None
    return p


def _shrinks_gradient(Y: np.ndarray, y: np.ndarray, theta: np.ndarray,
                      gradient: np.ndarray) -> bool:
    """Whether the gradient of the maximum-entropy objective at ``theta`` is smaller
    (in the maximum norm) than ``gradient``."""
    s = theta @ Y
    p = np.exp(s - s.max())
    p /= p.sum()
    return float(np.abs(Y @ p - y).max()) < float(np.abs(gradient).max())


def _newton_step(Y: np.ndarray, p: np.ndarray, mean: np.ndarray, gradient: np.ndarray):
    r"""The Newton step ``H^{-1} g`` of :func:`positive_weights`, or None if ``H`` is
    singular. ``H = Y diag(p) Y^T - mean mean^T`` is the covariance of the columns of
    ``Y`` under the weights ``p``; its product with a vector costs ``O(d m)``.

    Below ``NEWTON_CG_MIN_DIMENSION`` the Hessian is formed and solved. From there on
    the step is found by conjugate gradients on those products (a truncated Newton
    method: the residual is reduced by the forcing factor ``min(1/2, sqrt(|g|))``,
    which keeps the outer iteration superlinear; Nocedal & Wright 2006, §7.1). In
    whitened coordinates and near the centroid ``H`` is close to a multiple of the
    identity, so few iterations are needed. Floats only: a poor step costs a longer
    line search, never a wrong verdict.
    """
    d = Y.shape[0]
    if d < NEWTON_CG_MIN_DIMENSION:
        hessian = (Y * p) @ Y.T - np.outer(mean, mean)
        try:
            return np.linalg.solve(hessian + 1e-14 * np.eye(d), gradient)
        except np.linalg.LinAlgError:
            return None

    def hessian_times(v):
        return Y @ (p * (v @ Y)) - mean * float(mean @ v) + 1e-14 * v

    norm = float(np.linalg.norm(gradient))
    goal = min(0.5, np.sqrt(norm)) * norm
    x = np.zeros(d)
    r = gradient.copy()
    direction = r.copy()
    rr = float(r @ r)
    for _ in range(NEWTON_CG_ITERATIONS):
        Hd = hessian_times(direction)
        curvature = float(direction @ Hd)
        if not curvature > 0:
            # H is positive semidefinite: zero curvature means a singular Hessian.
            return x if x.any() else None
        alpha = rr / curvature
        x += alpha * direction
        r -= alpha * Hd
        rr_next = float(r @ r)
        if np.sqrt(rr_next) <= goal:
            break
        direction = r + (rr_next / rr) * direction
        rr = rr_next
    return x


def caratheodory_basis(A: np.ndarray, t: np.ndarray, lam: np.ndarray):
    r"""Carathéodory's reduction of positive weights ``lam`` (``A lam ~ t``) to a basis.

    Returns ``N`` column indices ``S`` of ``A`` (``N x m``, rank ``N``) with float
    weights ``A_S^{-1} t >= 0``, or None. The first ``N`` columns start as the basis
    ``B``; every other column ``j`` is eliminated in turn along the null vector
    ``a_j - B tau`` (``tau = B^{-1} a_j``): ``lambda_j`` decreases by ``s`` and the
    basic weights change by ``s tau``, keeping ``A lambda`` fixed, until ``lambda_j``
    reaches zero (``j`` is dropped) or a basic weight does (that column is dropped and
    ``j`` takes its place in ``B``). All weights stay non-negative throughout.

    The columns go in batches of ``REDUCTION_BATCH``: ``B^{-1} A_J`` by one product,
    the exchanges inside the batch by rank-one updates of that small tableau, and the
    exchanges composed into ``B^{-1} <- B^{-1} - X B^{-1}_R`` (``R`` the rows
    exchanged; product form of the inverse), so the cost is ``O(N^2 m)`` in matrix
    products. The inverse is recomputed every ``REDUCTION_REFRESH`` batches (or every
    ``N`` columns, if that is more: an inverse costs ``O(N^3)``) and the basic weights
    with it, from ``B^{-1} (t - A_{rest} lambda_{rest})`` (the columns
    not yet eliminated keep their weights).
    """
    N, m = A.shape
    if m < N:
        return None
    basis = np.arange(N)
    try:
        Binv = np.linalg.inv(A[:, basis])
    except np.linalg.LinAlgError:
        return None
    lam = np.asarray(lam, dtype=np.float64).copy()
    lamB = lam[:N].copy()
    # A fresh inverse costs O(N^3): at least N columns between two of them keeps the
    # refreshes within the O(N^2 m) of the updates (at d = 4096 ten inverses took
    # half the reduction's time).
    refresh = max(REDUCTION_REFRESH, -(-N // REDUCTION_BATCH))
    for batch_number, lo in enumerate(range(N, m, REDUCTION_BATCH)):
        J = np.arange(lo, min(m, lo + REDUCTION_BATCH))
        if batch_number % refresh == refresh - 1:
            try:
                Binv = np.linalg.inv(A[:, basis])
            except np.linalg.LinAlgError:
                return None
            lamB = Binv @ (t - A[:, lo:] @ lam[lo:])
            if lamB.min() < -1e-9 * float(np.abs(lamB).max()):
                return None  # drifted: give up (floats only propose)
            np.maximum(lamB, 0.0, out=lamB)
        T = Binv @ A[:, J]
        rows: list[int] = []          # the rows of B^{-1} exchanged in this batch
        X = np.zeros((N, len(J)))     # product form: B^{-1}_new = B^{-1} - X B^{-1}[rows]
        for c, j in enumerate(J):
            tau = T[:, c]
            weight = lam[j]
            falling = tau < 0
            if falling.any():
                ratios = lamB[falling] / -tau[falling]
                r_local = int(np.argmin(ratios))
                step = float(ratios[r_local])
            else:
                step = np.inf
            if step >= weight:  # lambda_j reaches zero first: drop column j
                lamB += weight * tau
                continue
            r = int(np.flatnonzero(falling)[r_local])
            lamB += step * tau
            lamB[r] = weight - step
            # Pivot: column j replaces basic r (tableau rows of this batch, and the
            # eta u = (tau - e_r) / tau_r composed into X).
            u = tau / tau[r]
            u[r] -= 1.0 / tau[r]
            u = u.copy()
            pivot_row = T[r, c + 1:].copy()
            T[:, c + 1:] -= np.outer(tau * (1.0 / tau[r]), pivot_row)
            T[r, c + 1:] = pivot_row / tau[r]
            if rows:
                X[:, :len(rows)] -= np.outer(u, X[r, :len(rows)])
            if r in rows:
                X[:, rows.index(r)] += u
            else:
                X[:, len(rows)] = u
                rows.append(r)
            basis[r] = j
        if rows:
            Binv = Binv - X[:, :len(rows)] @ Binv[rows]
    try:
        weights = np.linalg.solve(A[:, basis], t)
    except np.linalg.LinAlgError:
        return None
    if not weights.min() >= -1e-12 * float(np.abs(weights).max()):
        return None
    return basis.tolist()


def caratheodory_supports(A: np.ndarray, targets: np.ndarray) -> list:
    """Float proposal of a basis of columns of ``A`` (whitened, see :func:`whitened`)
    for each column of ``targets``: :func:`positive_weights` then
    :func:`caratheodory_basis`; a target whose weights on the previous target's basis
    are already non-negative (a near-duplicate row) keeps that basis. One entry per
    target: column indices or None."""
    out: list = []
    last = None
    gram = A @ A.T  # shared by the targets (one product of O(N^2 m))
    for c in range(targets.shape[1]):
        t = targets[:, c]
        if last is not None:
            try:
                if np.linalg.solve(A[:, last], t).min() >= 0:
                    out.append(last)
                    continue
            except np.linalg.LinAlgError:
                pass
        lam = positive_weights(A, t, gram)
        basis = caratheodory_basis(A, t, lam) if lam is not None else None
        out.append(basis)
        if basis is not None:
            last = basis
    return out


def _square_rows(M: np.ndarray) -> np.ndarray | None:
    """Indices of ``M.shape[1]`` rows of the tall float matrix ``M`` that are (by float
    QR with column pivoting of ``M^T``) linearly independent; None if ``M`` is wide."""
    from scipy.linalg import qr

    rows, cols = M.shape
    if cols > rows:
        return None
    _, _, pivots = qr(M.T, mode="economic", pivoting=True)
    return np.sort(pivots[:cols])


def exact_weights(head, labels: Sequence[int], support: Sequence[int]) -> list:
    """Exact convex weights of each label on ``support``: ``(Y_c, D_c)`` or None.

    ``Y_c`` (integers, one per support label) and ``D_c > 0`` satisfy ``D_c z_i =
    sum_k Y_ck z_k`` and ``sum_k Y_ck = D_c`` exactly (checked by one integer matrix
    product); None where the system has no solution, or one with a negative entry, and
    for a label in ``support`` (its weights would be the trivial ``z_i = z_i``).
    The square system is solved by python-flint's Dixon solver (``fmpq_mat.solve``,
    p-adic lifting), all labels as right-hand sides of one solve.
    """
    from flint import fmpq_mat, fmpz_mat

    support = list(support)
    s = len(support)
    if not labels:
        return []  # nothing to solve (every label of the support proven inside)
    if s == 0 or s > head.d + 1 or head.Zarr is None:
        return [None] * len(labels)
    Z = head.Zarr
    M = np.vstack([Z[support].T, np.ones((1, s), dtype=np.int64)])
    B = np.vstack([Z[list(labels)].T, np.ones((1, len(labels)), dtype=np.int64)])
    rows = np.arange(s) if s == head.d + 1 else _square_rows(M.astype(np.float64))
    try:
        X = fmpq_mat(fmpz_mat(M[rows].tolist())).solve(fmpq_mat(fmpz_mat(B[rows].tolist())),
                                                       algorithm="dixon")
    except ZeroDivisionError:  # a singular square system: no unique weights here
        return [None] * len(labels)
    exact_M = fmpz_mat(M.tolist())
    out = []
    for c, i in enumerate(labels):
        column = [X[r, c] for r in range(s)]
        D = lcm(*(int(v.q) for v in column))
        Y = [int(v.p) * (D // int(v.q)) for v in column]
        # The equations, all of them (the square subsystem may have left some out).
        holds = exact_M * fmpz_mat([[v] for v in Y]) == fmpz_mat(B[:, [c]].tolist()) * D
        good = holds and i not in support and all(v >= 0 for v in Y)
        out.append((Y, D) if good else None)
    return out


def clusters(head, labels: Sequence[int]) -> list[list[int]]:
    """``labels`` grouped greedily into near-duplicate clusters (in order of first label).

    A label joins the first cluster whose first row is within ``NEAR_DUPLICATE`` times
    the row's norm of its own row (float distances: only a grouping, never a verdict).
    The first rows within twice that distance of each label are found first, by
    products in blocks (``|f_k|^2 - 2 f_k . f_i + |f_i|^2``, whose rounding is far
    below the radius); only those are measured as the greedy rule measures them. (The
    rule alone compares every label with every first row: on PP-OCRv5's 3,800 labels
    left by the screen, 2.4 s in the main process.)
    """
    labels = list(labels)
    m = len(labels)
    if not m:
        return []
    X = head.F[np.asarray(labels, dtype=np.intp)]
    sq = np.einsum("ij,ij->i", X, X)
    earlier: list[list[int]] = [[] for _ in range(m)]
    block = max(1, min(1024, (1 << 23) // m))  # blocks of at most 64 MB
    for lo in range(0, m, block):
        D = sq[lo:lo + block, None] - 2.0 * (X[lo:lo + block] @ X.T) + sq[None, :]
        limit = (2.0 * NEAR_DUPLICATE) ** 2 * sq[lo:lo + block, None]
        for r, c in zip(*np.nonzero(D <= limit)):
            if c < lo + r:
                earlier[lo + r].append(int(c))
    group_of: dict[int, int] = {}  # position of a first row -> its cluster
    groups: list[list[int]] = []
    for p, i in enumerate(labels):
        leads = [c for c in earlier[p] if c in group_of]
        if leads:
            gap = np.linalg.norm(X[leads] - X[p], axis=1)
            hit = np.flatnonzero(gap <= NEAR_DUPLICATE * float(np.linalg.norm(X[p])))
            if hit.size:
                groups[group_of[leads[int(hit[0])]]].append(i)
                continue
        group_of[p] = len(groups)
        groups.append([i])
    return groups


def _near_duplicate(head, i: int, k: int) -> bool:
    gap = float(np.linalg.norm(head.F[i] - head.F[k]))
    return gap <= NEAR_DUPLICATE * float(np.linalg.norm(head.F[i]))


def certify_cluster(head, task, exact: bool = False) -> dict:
    """Convex weights for one cluster: ``task = (labels, rivals of the first label)``,
    or ``(labels, rivals, skip)`` with labels that must not be in any support either.

    The supports are proposed over the candidates of :func:`_pool` by
    :func:`caratheodory_supports` (all labels of the cluster in turn), and for the
    labels whose exact weights on that support fail, up to ``d = WALK_MAX_DIMENSION``,
    by :func:`simplex_walk`; labels with the same support are solved together by
    :func:`exact_weights`. Returns ``{label: (support, Y, D)}`` for the labels certified
    (a task of :class:`verify.analyze.parallel.Workers`); the others are left to the
    per-label methods. From ``d = SIMPLEX_MIN_DIMENSION`` on, unless ``exact``, a label
    whose support of ``d + 1`` labels :func:`verify.analyze.simplex.strictly_inside`
    proves to hold it in the interior gets ``Y = D = None`` (weights not computed).
    """
    labels, rivals, *skip = task
    pool = _pool(head, labels[0], rivals, list(labels) + list(skip[0] if skip else ()))
    out: dict = {}
    if pool.size < head.d + 1:
        return out
    # Matrix-vector sized products: BLAS threads only contend on a shared machine.
    with threadpool_limits(limits=1, user_api="blas"):
        proposals = caratheodory_supports(whitened(head, pool), whitened(head, labels))
    _solve_supports(head, pool, labels, proposals, out, exact)
    left = [i for i in labels if i not in out]
    if left and head.d <= WALK_MAX_DIMENSION:
        P = np.vstack([head.F[pool].T, np.ones((1, pool.size))])
        targets = [np.append(head.F[i], 1.0) for i in left]
        with threadpool_limits(limits=1, user_api="blas"):
            walks = simplex_walk(P, targets, max_pivots=WALK_PIVOTS * (head.d + 1))
        _solve_supports(head, pool, left, walks, out, exact)
    return out


def _solve_supports(head, pool, labels, proposals, out: dict, exact: bool = False) -> None:
    """Exact weights (:func:`exact_weights`) of each label on its proposed basis
    (positions in ``pool``, or None); labels with the same support are solved
    together. Adds ``{label: (support, Y, D)}`` to ``out`` for those certified, and
    ``(support, None, None)`` for those whose interior position
    :func:`verify.analyze.simplex.strictly_inside` proves (see :func:`certify_cluster`)."""
    from verify.analyze.simplex import strictly_inside

    by_support: dict = {}
    for i, basis in zip(labels, proposals):
        if basis is not None:
            by_support.setdefault(tuple(sorted(int(pool[b]) for b in basis)), []).append(i)
    proves = (not exact and head.d >= SIMPLEX_MIN_DIMENSION and head.Zarr is not None)
    for support, members in by_support.items():
        if proves and len(support) == head.d + 1:
            with threadpool_limits(limits=1, user_api="blas"):
                inside = [i for i in members
                          if strictly_inside(head.Zarr[list(support)], head.Zarr[i])]
            for i in inside:
                out[i] = (support, None, None)
            members = [i for i in members if i not in out]
        for i, found in zip(members, exact_weights(head, members, support)):
            if found is not None:
                out[i] = (support, *found)


def interior_certificates(head, tasks, workers=None) -> dict:
    """Exact convex weights for the labels of ``tasks`` that lie inside the hull.

    ``tasks`` are ``(i, start, rivals)`` as left by the screen of
    :func:`verify.analyze.argmax.argmaxable_labels`. Labels are grouped by
    :func:`clusters`; a cluster whose first label was beaten in the screen only by its
    own near-duplicates is skipped (it is most likely a hull vertex hidden by a twin,
    which the per-label methods decide). Returns ``{label: (support, Y, D)}`` (the
    weights ``Y / D`` on ``support``, as :func:`exact_weights`) for the labels
    certified; the others are left to the per-label methods. The result depends
    on the head and the tasks only (not on ``workers``).

    The first ``INTERIOR_PROBE`` clusters are a probe: if they certify less than
    ``INTERIOR_MIN_SHARE`` of their labels, the rest are left to the per-label methods
    at once. On a head whose undecided labels are hull vertices with narrow normal
    cones, or points just inside the hull's faces (measured on a trained OCR head:
    3,770 labels, none certified here, 0.07 CPU-s each), the walk only fails.
    """
    from verify.analyze.parallel import Workers

    rivals = {i: list(r) for i, _, r in tasks}
    jobs = []
    for group in clusters(head, [i for i, _, _ in tasks]):
        lead = group[0]
        outside = [k for k in rivals[lead] if not _near_duplicate(head, lead, k)]
        if outside or not rivals[lead]:
            jobs.append((group, outside))
    workers = workers or Workers(head)
    out: dict = {}
    probe, rest = jobs[:INTERIOR_PROBE], jobs[INTERIOR_PROBE:]
    for found in workers.map(certify_cluster, probe):
        out.update(found)
    tried = sum(len(group) for group, _ in probe)
    if rest and len(out) >= INTERIOR_MIN_SHARE * tried:
        for found in workers.map(certify_cluster, rest):
            out.update(found)
    return out
