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

* **Proposal.** Non-negative least squares (Lawson-Hanson, :func:`nnls_support`) on the
  differences ``z_i - z_k`` for a set of candidate labels: the rows that beat ``i``
  where the screen looked for a witness, the ``2d + 2`` nearest rows, and a sample of
  ``3 (d + 1)`` rows drawn from a generator seeded with ``i`` (so the proposal depends
  on the head and ``i`` only). A point near the centroid of a head whose rows form a
  Gaussian-like cloud lies in the hull of such a sample: the hull of ``m`` Gaussian
  points in ``R^d`` contains a ball of radius about ``sqrt(2 log(m / d))`` in whitened
  coordinates (Donoho & Tanner 2010).
* **Exact solve** by ``p``-adic lifting (:func:`verify.linalg.dixon.solve_integer_system`):
  ``Y`` and ``D > 0`` with ``M_S Y = D (z_i, 1)`` exactly, so ``lambda = Y / D``, and
  the weights are accepted iff every ``Y_k >= 0``. If the proposed support has fewer
  than ``d + 1`` labels (a point on a lower-dimensional face, or a head of rank below
  ``d``), a non-singular square subsystem is chosen by float QR with column pivoting and
  the solution is then checked exactly against the full system.
* **Shared supports.** Near-duplicate labels (rows within a relative ``1e-4`` of each
  other, found by :func:`clusters`) usually lie in the same simplex: the first label of
  a cluster gets a proposal, and every member is solved with that support in one lifting
  with several right-hand sides (the lifting's cost is a few matrix-vector products per
  step, which become matrix-matrix products at little extra cost); a member whose
  weights come out negative gets its own proposal.

Nothing is trusted that was not checked exactly: the weights ``Y / D`` satisfy the
system exactly (checked in the lifting) and their signs are read off exact integers,
which is exactly what :func:`verify.analyze.argmax.is_argmax_certificate` and the
certificate checker verify again.

Cost at ``d = 768`` (see docs/analyze.md): the proposal a few seconds, the lifting a few
seconds per support, against about 50 s for python-flint's exact solve of the same
system.

Example
-------
>>> import numpy as np
>>> from verify.analyze.argmax import make_head
>>> head = make_head(np.array([[0, 0], [4, 0], [0, 4], [1, 1], [5, 5]]))
>>> certs = interior_certificates(head, [(3, None, ())])
>>> certs[3].multipliers  # w_3 = 4/5 w_0 + 1/5 w_4
((0, 4/5), (4, 1/5))
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from verify.linalg.dixon import solve_integer_system

__all__ = ["clusters", "exact_weights", "interior_certificates", "propose_support"]

#: Rows sampled per dimension for the proposal.
SAMPLE_PER_DIMENSION = 3
#: Relative distance below which two rows count as near-duplicates.
NEAR_DUPLICATE = 1e-4


def propose_support(head, i: int, rivals: Sequence[int] = (),
                    skip: Sequence[int] = ()) -> list[int] | None:
    """Float proposal: labels ``S`` with ``z_i`` (probably) in ``conv{z_k : k in S}``.

    Candidates are ``rivals``, the ``2d + 2`` rows nearest to ``z_i`` and a sample of
    ``3 (d + 1)`` rows from a generator seeded with ``i``, never ``i`` or a label in
    ``skip``; the support comes from :func:`verify.analyze.argmax.nnls_support` on their
    differences. None if the non-negative least squares residual does not vanish.
    """
    from verify.analyze.argmax import Differences, nnls_support

    A = Differences(head, i, skip)
    others = A.labels
    near = np.argsort(A.norms(), kind="stable")[: 2 * head.d + 2]
    size = min(len(others), SAMPLE_PER_DIMENSION * (head.d + 1))
    sample = np.sort(np.random.default_rng(i).choice(len(others), size, replace=False))
    excluded = {i, *skip}
    cand = list(dict.fromkeys([A.position(k) for k in rivals if k not in excluded]
                              + [int(r) for r in near] + [int(r) for r in sample]))
    support = nnls_support(A.take(cand))
    if support is None:
        return None
    return sorted(others[cand[r]] for r in support)


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
    sum_k Y_ck z_k`` and ``sum_k Y_ck = D_c`` exactly; None where the system has no
    solution, or one with a negative entry, or the exact solver declined, and for a
    label in ``support`` (its weights would be the trivial ``z_i = z_i``).
    """
    support = list(support)
    s = len(support)
    if s == 0 or s > head.d + 1 or head.Zarr is None:
        return [None] * len(labels)
    Z = head.Zarr
    M = np.vstack([Z[support].T, np.ones((1, s), dtype=np.int64)])
    B = np.vstack([Z[list(labels)].T, np.ones((1, len(labels)), dtype=np.int64)])
    # Dividing an equation by the gcd of its coefficients keeps the solutions and
    # shortens the integers of the lifting.
    g = np.gcd.reduce(np.hstack([M, B]), axis=1)
    g[g == 0] = 1
    M, B = M // g[:, None], B // g[:, None]
    rows = np.arange(s) if s == head.d + 1 else _square_rows(M.astype(np.float64))
    found = solve_integer_system(M[rows], B[rows])
    if found is None:
        return [None] * len(labels)
    Y, D = found
    if s < head.d + 1:
        from flint import fmpz_mat

        # The square subsystem was solved: check the equations left out, exactly.
        if fmpz_mat(M.tolist()) * fmpz_mat(Y) != fmpz_mat(B.tolist()) * D:
            return [None] * len(labels)
    out = []
    for c, i in enumerate(labels):
        column = [Y[r][c] for r in range(s)]
        good = i not in support and all(v >= 0 for v in column)
        out.append((column, D) if good else None)
    return out


def clusters(head, labels: Sequence[int]) -> list[list[int]]:
    """``labels`` grouped greedily into near-duplicate clusters (in order of first label).

    A label joins the first cluster whose first row is within ``NEAR_DUPLICATE`` times
    the row's norm of its own row (float distances: only a grouping, never a verdict).
    Quadratic in ``len(labels)`` at worst, which is meant to be small (the labels the
    screen leaves).
    """
    F = head.F
    firsts: list[int] = []
    groups: list[list[int]] = []
    for i in labels:
        if firsts:
            gap = np.linalg.norm(F[firsts] - F[i], axis=1)
            hit = np.flatnonzero(gap <= NEAR_DUPLICATE * float(np.linalg.norm(F[i])))
            if hit.size:
                groups[int(hit[0])].append(i)
                continue
        firsts.append(i)
        groups.append([i])
    return groups


def _near_duplicate(head, i: int, k: int) -> bool:
    gap = float(np.linalg.norm(head.F[i] - head.F[k]))
    return gap <= NEAR_DUPLICATE * float(np.linalg.norm(head.F[i]))


def certify_cluster(head, task) -> dict:
    """Certificates for one cluster: ``task = (labels, rivals of the first label)``.

    Returns ``{label: GordanCertificate}`` for the labels certified (a task of
    :class:`verify.analyze.parallel.Workers`).
    """
    from verify.analyze.argmax import _normalised

    labels, rivals = task
    out: dict = {}
    pending = list(labels)
    for attempt in range(2):
        if not pending:
            break
        lead = pending[0]
        # The cluster's own rows are left out, so that the support serves all of it.
        support = propose_support(head, lead, rivals if attempt == 0 else (), skip=labels)
        if support is None:
            break
        for i, found in zip(pending, exact_weights(head, pending, support)):
            if found is not None:
                out[i] = _normalised(i, support, found[0])
        pending = [i for i in pending if i not in out and i != lead]
    return out


def interior_certificates(head, tasks, workers=None) -> dict:
    """Exact convex weights for the labels of ``tasks`` that lie inside the hull.

    ``tasks`` are ``(i, start, rivals)`` as left by the screen of
    :meth:`verify.analyze.argmax.ExactHead.argmax`. Labels are grouped by
    :func:`clusters`; a cluster whose first label is beaten only by members of its own
    cluster is skipped (it is most likely a hull vertex hidden by a near-duplicate,
    which the per-label methods decide). Returns ``{label: GordanCertificate}`` for the
    labels certified; the others are left to the per-label methods. The result depends
    on the head and the tasks only (not on ``workers``).
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
    for found in workers.map(certify_cluster, jobs):
        out.update(found)
    return out
