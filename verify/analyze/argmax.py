r"""The argmax method: every label of a head decided exactly, with evidence for each.

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
   power of two). A positive common scale changes no answer
   (:mod:`verify.analyze.head`).
2. Candidate witnesses come from the relaxation method (Agmon; Motzkin & Schoenberg
   1954), run on a float copy for all labels at once as a few matrix products. For a
   label that never wins there, non-negative least squares (Lawson & Hanson) looks for
   the convex combination among the rows that beat it and its nearest rows; what is
   still open goes to a cutting-plane linear program (HiGHS, in-process) that
   keeps only a few dozen of the ``n - 1`` rows active at a time
   (:mod:`verify.analyze.proposals`).
3. Every proposed witness is checked **exactly**: ``Z x`` is computed in integer
   arithmetic (limbs of at most 23 bits, multiplied with float64 matrix products whose
   every partial sum is an integer below ``2^53``, hence exact; then carried in int64;
   :meth:`verify.analyze.head.ExactHead.wins`), and its largest entry must be entry
   ``i`` and only entry ``i``.
4. A proposed dependency (the support of a basic solution, at most ``d + 1`` rows) is
   made exact by an integer null-space computation; the multipliers are checked to be
   non-negative and to combine the rows to zero exactly.
5. Whatever fails a check is decided by the exact simplex method of
   :func:`verify.lp.feasibility.strict_feasibility`.

Rows with square roots (:class:`verify.numbers.sqrt_sum.SqrtSum` entries) are decided
by the simplex method over that ordered field
(:func:`verify.lp.field_simplex.strict_feasibility_over`).

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
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np
from flint import fmpq

from verify.analyze.head import ExactHead, FieldHead, _dot, _tick, make_head
from verify.analyze.proposals import (
    EARLY_MARGIN,
    PERCEPTRON_ROUNDS,
    Differences,
    _round_point,
    nnls_support,
    perceptron,
    propose_strict,
    smallest,
)
from verify.analyze.profile import stage
from verify.analyze.screen import SCREEN_PATIENCE, screened_relaxation
from verify.analyze.simplex import SimplexCertificate, strictly_inside
from verify.lp.feasibility import GordanCertificate, Witness, strict_feasibility
from verify.linalg.exact import integer_nullspace
from verify.numbers.int_vector import IntVector

if TYPE_CHECKING:
    from verify.analyze.head import HeadInput, ProgressBar
    from verify.analyze.parallel import Workers
    from verify.numbers.aliases import ExactEntry, ExactRows

__all__ = [
    "ArgmaxAnalysis",
    "argmaxable_labels",
    "is_argmax_certificate",
    "is_argmax_witness",
    "label_certificate",
]

#: Bits of the integer points proposed from float witnesses (retried with more).
POINT_BITS = (3, 8, 26, 52)
#: Bits of the argmax witnesses found by the screen (entries at most 2^16).
SCREEN_POINT_BITS = 16
#: Labels (or pairs) per task of the screen; fixed, so that the output does not
#: depend on the number of workers.
SCREEN_CHUNK = 2048
#: Labels per batch of the per-label methods, between the walks across facets
#: (:func:`_per_label`); fixed, so that the output does not depend on the number of
#: workers.
LABEL_BATCH = 64
#: Labels per task of the near-duplicate pass (small: the cluster witnesses of a few
#: labels can cost far more than the others', on the synthetic 50,257 x 768 head
#: chunks of 256 left one worker idle for 9 of the pass's 20 seconds).
NEAR_CHUNK = 32
#: Nearest labels (by rows) kept for each label of the per-label stage, and how many
#: of them found inside the hull lend their supports to its linear program.
NEAR_LABELS = 32
WARM_NEIGHBOURS = 8
#: Supports of at least this many labels get their convex weights from a square solve
#: by p-adic lifting (:func:`verify.analyze.interior.exact_weights`) before the integer
#: null space (which takes minutes at d = 768).
LIFTING_MIN_SUPPORT = 129


# --- exact checks on the original rows -------------------------------------------------

def is_argmax_witness(W: ExactRows, i: int, point: Sequence[ExactEntry]) -> bool:
    """True iff ``w_i . x > w_k . x`` for every ``k != i``, decided exactly."""
    top = _dot(W[i], point)
    return all(_dot(row, point) < top for k, row in enumerate(W) if k != i)


def is_argmax_certificate(W: ExactRows, i: int,
                          multipliers: Iterable[tuple[int, ExactEntry]]) -> bool:
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

    ``evidence[i]`` is a :class:`~verify.lp.feasibility.Witness` (an input ``x`` whose
    largest logit is label ``i`` alone) or a :class:`~verify.lp.feasibility.GordanCertificate`
    whose multipliers are pairs ``(k, lambda_k)`` over labels ``k != i`` with
    ``lambda >= 0``, ``sum lambda = 1`` and ``w_i = sum_k lambda_k w_k`` (at most
    ``d + 1`` of them), or, for labels inside the hull of a large head, a
    :class:`~verify.analyze.simplex.SimplexCertificate` (``w_i`` strictly inside the
    simplex of ``d + 1`` other rows, proven without computing the weights).
    """

    n: int
    d: int
    evidence: tuple

    @property
    def argmaxable(self) -> list[int]:
        return [i for i, e in enumerate(self.evidence) if isinstance(e, Witness)]

    @property
    def unargmaxable(self) -> list[int]:
        return [i for i, e in enumerate(self.evidence) if not isinstance(e, Witness)]

    def is_argmaxable(self, i: int) -> bool:
        return isinstance(self.evidence[i], Witness)

    def _summary(self) -> tuple[str, list[tuple[str, str]], str]:
        from verify.io.display import first

        rows = [("argmaxable", f"{len(self.argmaxable)} of {self.n}: "
                               + first(self.argmaxable)),
                ("unargmaxable", first(self.unargmaxable))]
        return (f"ArgmaxAnalysis: {self.n} labels in dimension {self.d}", rows,
                ".evidence[i] holds the exact witness input or convex weights of label i")

    def _repr_html_(self) -> str:
        """The summary that Jupyter shows."""
        from verify.io.display import summary_html

        return summary_html(*self._summary())

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """The summary that IPython's pretty printer shows."""
        from verify.io.display import pretty

        pretty(p, cycle, *self._summary())


# --- the argmax method ------------------------------------------------------------------

def _exact_argmax(head: ExactHead, progress=None, workers=None,
                  walk: bool = True) -> ArgmaxAnalysis:
    """Decide the labels ``0 .. labels - 1`` of an exact head (every row but the floor
    rows)."""
    n, d = head.labels, head.d
    evidence: list = [None] * n
    for members in head.equal_row_groups():
        if len(members) > 1:
            # Two rows that are equal always score alike: neither label is ever the
            # strict argmax, and w_i = w_k is the one-term convex combination.
            for i in members:
                if i < n:
                    other = next(k for k in members if k != i)
                    evidence[i] = GordanCertificate(multipliers=((other, fmpq(1)),))
    unique = [i for i in range(n) if evidence[i] is None]
    if head.n == 1:
        evidence[0] = Witness(point=tuple(0 for _ in range(d)))
        unique = []
    _tick(progress, n - len(unique))
    if unique and head.screened:
        _screened_argmax(head, unique, evidence, progress, workers, walk)
    elif unique:
        F = head.F
        won, X, rivals = perceptron(F, unique, (F[unique] - F.mean(axis=0)).T,
                                    block=head.perceptron_block())
        points = {i: X[:, c] for c, i in enumerate(unique) if won[c]}
        remaining = _accept_points(head, points, evidence, progress)
        column = {i: c for c, i in enumerate(unique)}
        for i in remaining:
            c = column[i]
            evidence[i] = _decide_label(head, i, X[:, c], rivals[c])
            _tick(progress, 1)
    return ArgmaxAnalysis(n=n, d=d, evidence=tuple(evidence))


def _screened_argmax(head: ExactHead, unique: list[int], evidence: list, progress,
                     workers=None, walk: bool = True) -> None:
    """Large heads: whitened proposals screened in float32 (chunks of
    ``SCREEN_CHUNK`` labels, on ``workers`` if given), then the rest one by one."""
    from verify.analyze.parallel import Workers

    workers = workers or Workers(head)
    with stage("blobs"):
        unique = _blob_labels(head, unique, evidence, progress, workers)
    rows = np.asarray(unique, dtype=np.intp)
    chunks = [rows[lo:lo + SCREEN_CHUNK] for lo in range(0, rows.size, SCREEN_CHUNK)]
    with stage("screen"):
        results = workers.map(screen_labels, chunks,
                              lambda r: _tick(progress, len(r[0])))
    tasks = []
    for chunk, (found, left, rivals) in zip(chunks, results):
        for c, point in found.items():
            evidence[int(chunk[c])] = Witness(point=IntVector(point))
        tasks.extend((int(chunk[c]), x, rivals[c]) for c, x in left.items())
    with stage("near duplicates"):
        tasks = _near_duplicate_labels(head, tasks, evidence, progress, workers)
    with stage("interior"):
        tasks = _interior_labels(head, tasks, evidence, progress, workers)
    with stage("per label"):
        _per_label(head, tasks, evidence, progress, workers, walk)


def _per_label(head: ExactHead, tasks: list, evidence: list, progress, workers,
               walk: bool = True) -> None:
    """The labels left by the passes before: the per-label methods in batches of
    ``LABEL_BATCH`` labels (in task order); after each batch the witnesses found spread
    to the labels still undecided across the facets of their regions
    (:mod:`verify.analyze.facet_walk`), and so on from the witnesses that walk finds,
    until it finds none, before the next batch (unless ``walk`` is false). Every step
    depends on the task list alone, not on the number of workers."""
    from verify.analyze import facet_walk

    pending = {task[0]: task for task in tasks}
    near = _nearest_labels(head.F, list(pending), NEAR_LABELS)
    sources: list = []
    while pending:
        while sources:
            found = facet_walk.walk(head, sources, pending, workers)
            for k, point in found:
                evidence[k] = Witness(point=point)
                del pending[k]
            _tick(progress, len(found))
            sources = found
        batch = [task + (_neighbour_supports(task[0], near, evidence),)
                 for task in list(pending.values())[:LABEL_BATCH]]
        for (i, *_), ev in zip(batch, workers.map(decide_label, batch,
                                                  lambda r: _tick(progress, 1))):
            evidence[i] = ev
            del pending[i]
            if walk and isinstance(ev, Witness):
                sources.append((i, ev.point))


def _neighbour_supports(i: int, near: dict, evidence: list) -> tuple:
    """The labels of the convex weights (or simplices) of the ``WARM_NEIGHBOURS``
    nearest labels to ``i`` (among ``near[i]``) already found inside the hull: where a label inside the
    hull is a convex combination of the vertices of a face, its neighbours inside
    the hull usually are too (on a sample of 30 such labels of PP-OCRv5 this start
    took the program from 4.5 rounds to 1.4, and its time from 10.5 s to 4.3 s)."""
    out: dict = {}
    used = 0
    for k in near.get(i, ()):
        ev = evidence[k]
        if isinstance(ev, GordanCertificate):
            out.update((m, None) for m, _ in ev.multipliers)
        elif isinstance(ev, SimplexCertificate):
            out.update((m, None) for m in ev.support)
        else:
            continue
        used += 1
        if used == WARM_NEIGHBOURS:
            break
    out.pop(i, None)
    return tuple(out)


def _nearest_labels(F: np.ndarray, labels: list[int], k: int, block: int = 1024) -> dict:
    """For each of ``labels``, the ``k`` others of ``labels`` with the nearest rows of
    ``F`` (float distances, ties by position; blocks of rows, so no ``m x m`` array)."""
    m = len(labels)
    if m < 2:
        return {}
    idx = np.asarray(labels, dtype=np.intp)
    X = F[idx]
    block = max(1, min(block, (1 << 23) // m))  # blocks of at most 64 MB
    sq = np.einsum("ij,ij->i", X, X)
    k = min(k, m - 1)
    out = {}
    for lo in range(0, m, block):
        D = sq[lo:lo + block, None] - 2.0 * (X[lo:lo + block] @ X.T) + sq[None, :]
        rows = np.arange(D.shape[0])
        D[rows, lo + rows] = np.inf
        part = np.argpartition(D, k - 1, axis=1)[:, :k] if k < m - 1 else \
            np.argsort(D, axis=1, kind="stable")[:, :k]
        for r in rows:
            cand = part[r][np.lexsort((part[r], D[r, part[r]]))]
            out[int(idx[lo + r])] = [int(idx[c]) for c in cand]
    return out


def _blob_labels(head: ExactHead, unique: list[int], evidence: list, progress, workers) -> list:
    """Blobs of near-identical rows inside the hull, one support for each blob
    (:mod:`verify.analyze.blobs`), before the screen, which would spend all its
    rounds on each member; returns the labels still undecided."""
    from verify.analyze.blobs import BLOB_MIN_SIZE, certify_blobs, near_duplicate_groups

    groups = near_duplicate_groups(head, unique, BLOB_MIN_SIZE)
    if not groups:
        return unique
    found = certify_blobs(head, groups, workers, rest=unique)
    for i, support in found.items():
        evidence[i] = SimplexCertificate(support=support)
    _tick(progress, len(found))
    return [i for i in unique if evidence[i] is None]


def _near_duplicate_labels(head: ExactHead, tasks: list, evidence: list, progress,
                           workers) -> list:
    """Witnesses for the labels left by the screen whose rows have near duplicates
    (:mod:`verify.analyze.clusters`); returns the tasks still undecided.

    This comes before the interior pass: a label with a near-duplicate row is
    usually a hull vertex next to its twin, for which the simplex walk of
    :mod:`verify.analyze.interior` can only fail, after ``4 (d + 1)`` exchanges
    (about 16 CPU seconds per label at ``d = 768``), while the cluster witness
    costs a few products. A label it decides is argmaxable, so no convex weights
    exist for it: the verdicts are those of the other order.
    """
    # Chunks of fixed size on the workers (the near rows too: on PP-OCRv5 they cost
    # the main process 2.7 s).
    chunks = [[task[:3] for task in tasks[lo:lo + NEAR_CHUNK]]
              for lo in range(0, len(tasks), NEAR_CHUNK)]
    found = {task[0]: point for chunk, points in zip(chunks, workers.map(cluster_labels,
                                                                          chunks))
             for task, point in zip(chunk, points)}
    left = []
    for task in tasks:
        point = found.get(task[0])
        if point is None:
            left.append(task)
        else:
            evidence[task[0]] = Witness(point=point)
    _tick(progress, len(tasks) - len(left))
    return left


def _interior_labels(head: ExactHead, tasks: list, evidence: list, progress, workers) -> list:
    """Convex weights for the labels left by the screen that lie inside the hull
    (:mod:`verify.analyze.interior`); returns the tasks still undecided."""
    from verify.analyze.interior import interior_certificates

    inside = interior_certificates(head, tasks, workers) if tasks else {}
    for i, (support, weights, _) in inside.items():
        evidence[i] = (SimplexCertificate(support=tuple(support)) if weights is None
                       else _normalised(i, support, weights))
    _tick(progress, len(inside))
    return [task for task in tasks if task[0] not in inside]


def _accept_points(head: ExactHead, points: dict, evidence: list, progress) -> list[int]:
    """Certify float candidates exactly; return the labels still undecided."""
    pending = [i for i in points]
    for bits in POINT_BITS:
        if not pending:
            break
        ints = [_round_point(points[i], bits) for i in pending]
        ok = [p is not None for p in ints]
        labels = [i for i, good in zip(pending, ok) if good]
        cands = [p for p in ints if p is not None]
        passed = set()
        for c, (i, won) in enumerate(zip(labels, head.wins(cands, labels))):
            if won:
                evidence[i] = Witness(point=tuple(cands[c]))
                passed.add(i)
        _tick(progress, len(passed))
        pending = [i for i in pending if i not in passed]
    return [i for i in range(head.labels) if evidence[i] is None]


def _decide_label(head: ExactHead, i: int, start, rivals=(),
                  initial=()) -> Witness | GordanCertificate | SimplexCertificate:
    # (Labels of screened heads with near-duplicate rows were tried by
    # cluster_labels before they got here.) ``initial``: labels the linear program
    # starts with (the supports of neighbouring labels inside the hull).
    A = Differences(head, i)
    others = A.labels
    initial = [A.position(k) for k in initial if k != i]
    # A label that never won is probably inside the hull: look for the convex
    # combination among the labels that beat it and its nearest rows first.
    near = smallest(A.norms(), 2 * head.d + 2)
    cand = list(dict.fromkeys([A.position(k) for k in rivals if k != i]
                              + [int(r) for r in near]))
    support = nnls_support(A.take(cand))
    if support is not None:
        cert = label_certificate(head, i, [others[cand[r]] for r in support])
        if cert is not None:
            return cert
    # A start from the neighbours' supports that fails to certify gets the plain
    # start before the exact method, which costs far more than a second program (on
    # PP-OCRv5 one label went on to the exact simplex method on all 36,770 rows).
    for warm in ((initial, ()) if initial else ((),)):
        ev = _program_evidence(head, A, i, start, warm)
        if ev is not None:
            return ev
    return _exact_label(head, i)


def _program_evidence(head: ExactHead, A: Differences, i: int, start,
                      initial) -> Witness | GordanCertificate | SimplexCertificate | None:
    """Label ``i`` from the cutting-plane program (its point rounded and checked, or
    its support made exact), or None."""
    others = A.labels
    proposal = propose_strict(A, start=start, initial=initial)
    if proposal is None and start is not None:
        # The rows that fail at the screen's point can lead the active set astray
        # (measured on a trained head: the program then gave up where the plain
        # start finds a witness in a few seconds).
        proposal = propose_strict(A, initial=initial)
    for early in (EARLY_MARGIN, None):
        if proposal is None or proposal[0] != "point":
            break
        for bits in POINT_BITS:
            p = _round_point(proposal[1], bits)
            if p is not None and head.wins([p], [i])[0]:
                return Witness(point=tuple(p))
        if early is not None:
            # A point short of the optimum did not survive rounding: the optimum.
            proposal = propose_strict(A, start=start, early=None, initial=initial)
    if proposal is not None:
        kind, value = proposal
        if kind == "support":
            support = [others[r] for r in value]
            return label_certificate(head, i, support)
    return None
    return _exact_label(head, i)


def label_certificate(head: ExactHead, i: int, support: Sequence[int]
                      ) -> GordanCertificate | SimplexCertificate | None:
    """Exact convex weights ``w_i = sum lambda_k w_k`` on ``support``, if they exist.

    On a screened head a support of ``d + 1`` rows is first tried as a simplex with
    ``w_i`` strictly inside (:func:`verify.analyze.simplex.strictly_inside`, a
    :class:`~verify.analyze.simplex.SimplexCertificate`): the proof costs a float
    inverse and two exact residuals, the weights an integer null space whose entries
    have ``d`` times the head's digits (on PP-OCRv5's 1,013 such labels, 8 ms against
    48 ms per label; 149 of 150 sampled were proved).
    """
    if (head.screened and len(support) == head.d + 1 and head.Zarr is not None
            and strictly_inside(head.Zarr[list(support)], head.Zarr[i])):
        return SimplexCertificate(support=tuple(int(k) for k in support))
    if len(support) >= LIFTING_MIN_SUPPORT:
        from verify.analyze.interior import exact_weights

        # The same weights as the null space when the system has one solution.
        found = exact_weights(head, [i], support)[0]
        if found is not None:
            return _normalised(i, support, found[0])
    zi = head.Z[i]
    diffs = [[a - b for a, b in zip(zi, head.Z[k])] for k in support]
    cols = [list(col) for col in zip(*diffs)]
    basis = integer_nullspace(cols) if support else []
    y = None
    if len(basis) == 1:
        y = basis[0] if sum(basis[0]) > 0 else [-v for v in basis[0]]
        if any(v < 0 for v in y) or not any(y):
            y = None
    if y is None and support:
        # A degenerate support: the exact simplex on these few rows decides.
        ev = strict_feasibility(diffs)
        if not isinstance(ev, GordanCertificate):
            return None
        y = [fmpq(0)] * len(support)
        for r, v in ev.multipliers:
            y[r] = fmpq(v)
    return _normalised(i, support, y)


def _exact_label(head: ExactHead, i: int) -> Witness | GordanCertificate:
    others = [k for k in range(head.n) if k != i]
    zi = head.Z[i]
    rows = [[a - b for a, b in zip(zi, head.Z[k])] for k in others]
    ev = strict_feasibility(rows)
    if isinstance(ev, Witness):
        return Witness(point=_integral(ev.point))
    support = [others[r] for r, _ in ev.multipliers]
    return _normalised(i, support, [y for _, y in ev.multipliers])


def _cluster_point(head: ExactHead, i: int, start, partner: int | None = None,
                   near: list[int] | None = None):
    """An exactly checked witness of :func:`verify.analyze.clusters.cluster_witness` for
    ``i`` (and ``partner``) and the rows near them, from ``start`` and then from the
    Mahalanobis direction; None if there are no such rows or it fails. ``near``: the
    near labels of ``i``, if known (``partner`` None)."""
    from verify.analyze.clusters import cluster_witness, near_labels

    ends = (i,) if partner is None else (i, partner)
    lists = [near] if near is not None and partner is None else [near_labels(head, e)
                                                                 for e in ends]
    cluster = list(dict.fromkeys(k for found in lists for k in found
                                 if k not in ends))
    if not cluster and (partner is None or not head.rows_equal(i, partner)):
        return None
    middle = head.F[list(ends)].mean(axis=0)[None, :]
    for x in (start, head.mahalanobis().directions(middle)[:, 0]):
        if x is not None:
            point = cluster_witness(head, i, cluster, x, partner=partner)
            if point is not None:
                return point
    return None


def screen_labels(head: ExactHead, labels: np.ndarray):
    """One chunk of :func:`argmaxable_labels` for large heads (a task of
    :class:`verify.analyze.parallel.Workers`): ``(found, left, rivals)`` of
    :func:`verify.analyze.screen.screened_relaxation`, ``rivals`` only for ``left``."""
    directions = head.mahalanobis()
    found, left, rivals = screened_relaxation(
        head, labels, lambda cols: directions.directions(head.F[labels[cols]]),
        rounds=PERCEPTRON_ROUNDS, bits=SCREEN_POINT_BITS, patience=SCREEN_PATIENCE)
    return found, left, {c: rivals[c] for c in left}


def cluster_labels(head: ExactHead, tasks: list) -> list:
    """A chunk of tasks ``(i, start, rivals)`` (a task of
    :class:`verify.analyze.parallel.Workers`): for each label an exactly checked
    witness from the shared top point of ``i`` and its near-duplicate rows
    (:func:`verify.analyze.clusters.near_label_lists`; :func:`_cluster_point`), or None
    (no such rows, or the construction fails)."""
    from verify.analyze.clusters import near_label_lists

    near = near_label_lists(head, [task[0] for task in tasks])
    return [_cluster_point(head, i, start, near=cluster) if cluster else None
            for (i, start, _), cluster in zip(tasks, near)]


def decide_label(head: ExactHead, task) -> Witness | GordanCertificate | SimplexCertificate:
    """Label ``i`` of ``task = (i, start, rivals)`` or ``(i, start, rivals, initial)``
    by the per-label methods."""
    return _decide_label(head, *task)


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


# --- rows with square roots ------------------------------------------------------------

def _field_argmax(head: FieldHead, progress=None) -> ArgmaxAnalysis:
    """Every label of a head with square roots, by the exact simplex method over its
    field (:meth:`verify.analyze.head.FieldHead.strict`)."""
    evidence = []
    for i in range(head.n):
        others = [k for k in range(head.n) if k != i]
        rows = [[a - b for a, b in zip(head.rows[i], head.rows[k])] for k in others]
        ev = head.strict(rows)
        if isinstance(ev, GordanCertificate):
            support = [others[r] for r, _ in ev.multipliers]
            total = sum((y for _, y in ev.multipliers), head.one - head.one)
            ev = GordanCertificate(multipliers=tuple(
                (k, y / total) for k, (_, y) in zip(support, ev.multipliers)))
        evidence.append(ev)
        _tick(progress, 1)
    return ArgmaxAnalysis(n=head.n, d=head.d, evidence=tuple(evidence))


def argmaxable_labels(W: HeadInput, *, progress: ProgressBar | None = None,
                      workers: Workers | None = None, walk: bool = True) -> ArgmaxAnalysis:
    """Decide for every label whether it can be the strict argmax, with exact evidence.

    Parameters
    ----------
    W : rows of exact numbers (int, Fraction, fmpq, or :class:`SqrtSum`), or a head
        from :func:`make_head`.
    progress : an object with ``update(k)`` (a tqdm bar), or None.
    workers : the :class:`~verify.analyze.parallel.Workers` that share the chunks of a
        large head, or None (made here when needed).
    walk : whether witnesses spread across facets in the per-label stage of large
        heads (:mod:`verify.analyze.facet_walk`). Its witnesses lie near a facet, which
        makes them poor ends for the segments of the tie pairs: the analysis turns it
        off when it decides pairs.

    Returns
    -------
    ArgmaxAnalysis
        Every witness and certificate has been checked exactly.
    """
    head = make_head(W)
    if isinstance(head, FieldHead):
        return _field_argmax(head, progress)
    return _exact_argmax(head, progress, workers, walk)

