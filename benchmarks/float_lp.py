r"""The floating-point argmaxability test of Grivas, Bogoychev and Lopez (2022).

Source: A. Grivas, N. Bogoychev, A. Lopez, "Low-Rank Softmax Can Have Unargmaxable
Classes in Theory but Rarely in Practice", ACL 2022: their exact (as opposed to
approximate) algorithm, an LP per label solved in floating point.

The LP
------
For a head ``logits = W x + b`` (rows ``w_k``, bias ``b_k``) and a label ``i``::

    maximise    t
    subject to  (w_i - w_k) . x + (b_i - b_k) >= t      for every k != i,
                -B <= x_j <= B  (the box; Grivas et al. use B = 100),
                t <= C          (the cap).

Label ``i`` is the strict argmax at some input (in the box, if there is one) iff the
optimum ``t*`` is positive (the constraints hold with a positive margin at the optimal
``x``); if ``i`` is never on top,
convex weights ``lambda`` with ``w_i = sum lambda_k w_k``, ``b_i <= sum lambda_k b_k``
give ``t <= sum lambda_k (b_i - b_k) <= 0`` for every ``x``.

Box and cap. With a box only (``box=100, cap=None``, the paper's setting) the optimum
is typically a single vertex and the cutting planes converge in few rounds, but the
verdict depends on the box: a label that is on top only for inputs outside the box
reads as unargmaxable. Without a box and with the cap ``C = 1`` the question is the
same as the exact one (is the region where ``i`` is on top non-empty?): every label on
top on an unbounded region reaches ``t* = C``, and ``t* <= 0`` exactly for the labels
that are never on top; but then the optimal face is large, the solver's vertex moves
from round to round, and the cutting planes need many more rounds (on a few labels of
an ``18385 x 120`` head: 30 to 50 rounds and 1,200 to 1,700 rivals per label, against
9 to 12 rounds and 240 to 340 rivals in the box, 5 to 10 times the time). At least
one of box and cap must be given (else the LP is unbounded for every argmaxable label).

:func:`float_argmaxable` therefore runs the paper's LP (box ``[-100, 100]^d``, no cap)
for every label and, with ``unbox=True`` (the default), solves the LP once more without
the box and with the cap 1 for the labels the box LP does not find argmaxable, so that
a label on top only far away is not counted as unargmaxable. ``t* > 0`` in the box is a
witness inside the box, hence also an answer to the unboxed question.

Cutting planes
--------------
The full LP has ``n - 1`` rows; it is never built. Start from a small set ``K`` of
rivals (the labels with the largest logits at the input ``x = w_i``), solve the LP over
``k in K`` with ``scipy.optimize.linprog(method="highs")``, compute every logit at the
optimal ``x`` with one matrix product, add the ``add`` most violated rivals
(``(w_i - w_k) . x + b_i - b_k < t``), and repeat until no rival outside ``K`` is
violated by more than ``violation``. The restricted LP is a relaxation, so its optimum
is an upper bound on ``t*``, and it is ``t*`` once its ``x`` satisfies every row.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linprog

__all__ = ["FloatVerdicts", "LabelMargin", "float_argmaxable", "full_lp_margin",
           "label_margin"]


@dataclass
class LabelMargin:
    """The LP of one label: its optimum ``t`` (``nan`` when the solver failed), the
    optimal input ``x``, the number of LPs solved and the final number of rivals."""

    t: float
    x: np.ndarray | None
    rounds: int
    rivals: int
    status: str = "optimal"


@dataclass
class FloatVerdicts:
    """Per label margins and the verdicts at tolerance ``tol``.

    ``margins[i]`` is ``t*`` of the last LP solved for label ``i`` (the unboxed one for
    the labels in ``rechecked``); ``box_margins`` are those of the first LP (``None``
    without a box). ``rounds`` and ``rivals`` add up both LPs. ``solved`` lists the
    labels whose LPs were solved (``None``: all); the others have margin ``nan`` and
    appear in no verdict.
    """

    margins: np.ndarray
    tol: float
    rounds: np.ndarray
    rivals: np.ndarray
    failures: list = field(default_factory=list)
    box_margins: np.ndarray | None = None
    rechecked: list = field(default_factory=list)
    solved: list | None = None

    def _argmaxable(self, m) -> list[int]:
        return [int(i) for i in np.flatnonzero(m > self.tol)]

    @property
    def argmaxable(self) -> list[int]:
        return self._argmaxable(self.margins)

    @property
    def unargmaxable(self) -> list[int]:
        return [int(i) for i in np.flatnonzero(self.margins < -self.tol)]

    @property
    def unsure(self) -> list[int]:
        m = self.margins
        out = np.flatnonzero(~((m > self.tol) | (m < -self.tol)))
        if self.solved is not None:
            out = np.intersect1d(out, self.solved)
        return [int(i) for i in out]

    @property
    def box_argmaxable(self) -> list[int] | None:
        """The verdict of the box LP alone (the paper's), ``None`` without a box."""
        return None if self.box_margins is None else self._argmaxable(self.box_margins)


def _bounds(d: int, box, cap):
    if box is None and cap is None:
        raise ValueError("the LP needs a box on x or a cap on t")
    xb = (None, None) if box is None else (-float(box), float(box))
    return [xb] * d + [(None, None if cap is None else float(cap))]


def _solve(W, b, i, K, bounds):
    """The LP of label ``i`` over the rivals ``K``: ``(t, x)`` or ``None`` on failure."""
    d = W.shape[1]
    # (w_k - w_i) . x + t <= b_i - b_k, variables (x, t), minimise -t.
    A = np.empty((len(K), d + 1))
    A[:, :d] = W[K] - W[i]
    A[:, d] = 1.0
    c = np.zeros(d + 1)
    c[d] = -1.0
    res = linprog(c, A_ub=A, b_ub=b[i] - b[K], bounds=bounds, method="highs")
    if res.status != 0:
        return None, res.message
    return (float(res.x[d]), res.x[:d]), None


def label_margin(W, b, i: int, *, box=None, cap=1.0, start: int = 32, add: int = 32,
                 violation: float = 1e-9, max_rounds: int = 10_000) -> LabelMargin:
    """The optimum ``t*`` of the LP of label ``i`` by cutting planes (module docstring).

    ``W`` is an ``n x d`` float64 array, ``b`` its bias (float64, length ``n``).
    """
    n, d = W.shape
    bounds = _bounds(d, box, cap)
    if n == 1:
        return LabelMargin(t=float("inf") if cap is None else float(cap), x=np.zeros(d),
                           rounds=0, rivals=0)
    logits = W @ W[i] + b
    logits[i] = -np.inf
    m = min(start, n - 1)
    K = np.argpartition(-logits, m - 1)[:m]  # the m largest logits at x = w_i
    active = np.zeros(n, dtype=bool)
    active[K] = True
    rounds = 0
    while True:
        rounds += 1
        sol, message = _solve(W, b, i, np.flatnonzero(active), bounds)
        if sol is None:
            return LabelMargin(t=float("nan"), x=None, rounds=rounds,
                               rivals=int(active.sum()), status=str(message))
        t, x = sol
        z = W @ x + b
        gap = (z[i] - z) - t  # >= 0 where the row of rival k holds
        gap[i] = np.inf
        gap[active] = np.inf
        bad = np.flatnonzero(gap < -violation)
        if bad.size == 0:
            return LabelMargin(t=t, x=x, rounds=rounds, rivals=int(active.sum()))
        if rounds >= max_rounds:
            return LabelMargin(t=float("nan"), x=x, rounds=rounds, rivals=int(active.sum()),
                               status="no convergence")
        if bad.size > add:
            bad = bad[np.argpartition(gap[bad], add - 1)[:add]]
        active[bad] = True


def full_lp_margin(W, b, i: int, *, box=None, cap=1.0) -> float:
    """The optimum ``t*`` of the LP of label ``i`` with all ``n - 1`` rows at once
    (for tests on small heads)."""
    n = W.shape[0]
    sol, _ = _solve(W, b, i, np.array([k for k in range(n) if k != i]),
                    _bounds(W.shape[1], box, cap))
    return float("nan") if sol is None else sol[0]


# --- all labels, optionally in worker processes ------------------------------------------

_SHARED: dict = {}


def _chunk(args):
    labels, options = args
    W, b = _SHARED["W"], _SHARED["b"]
    return [label_margin(W, b, i, **options) for i in labels]


def _margins(W, b, labels, options, jobs: int) -> list[LabelMargin]:
    if jobs <= 1 or len(labels) < 2 * jobs:
        return [label_margin(W, b, i, **options) for i in labels]
    import multiprocessing as mp

    size = max(1, min(256, len(labels) // (8 * jobs)))
    chunks = [(labels[s:s + size], options) for s in range(0, len(labels), size)]
    _SHARED.update(W=W, b=b)
    try:
        with mp.get_context("fork").Pool(jobs) as pool:
            parts = pool.map(_chunk, chunks)
            pool.close()
            pool.join()
    finally:
        _SHARED.clear()
    return [r for part in parts for r in part]


#: The cap of the LP without a box (the recheck of :func:`float_argmaxable`).
UNBOXED_CAP = 1.0


def float_argmaxable(W, b=None, *, tol: float = 1e-6, box=100.0, cap=None,
                     unbox: bool = True, jobs: int = 1, labels=None,
                     **options) -> FloatVerdicts:
    """The LP of every label of ``W x + b`` (float64 copies of the inputs).

    First with the given ``box`` and ``cap`` (default: the paper's box, no cap); then,
    when there is a box and ``unbox`` is true, without the box and with the cap
    :data:`UNBOXED_CAP` for the labels whose first margin is not above ``tol``.
    ``jobs > 1`` splits the labels over forked worker processes. ``labels``: solve
    only these (a sample of a head too large for the LP of every label), each against
    all rows. ``options`` go to :func:`label_margin` (``start``, ``add``,
    ``violation``, ``max_rounds``).
    """
    W = np.ascontiguousarray(W, dtype=np.float64)
    n = W.shape[0]
    b = np.zeros(n) if b is None else np.asarray(b, dtype=np.float64).reshape(n)
    solved = list(range(n)) if labels is None else sorted({int(i) for i in labels})
    first = _margins(W, b, solved, dict(options, box=box, cap=cap), jobs)
    results = [LabelMargin(t=float("nan"), x=None, rounds=0, rivals=0)] * n
    for i, r in zip(solved, first):
        results[i] = r
    margins = np.array([r.t for r in results])
    rounds = np.array([r.rounds for r in results])
    rivals = np.array([r.rivals for r in results])
    box_margins, again = None, []
    if box is not None:
        box_margins = margins.copy()
        if unbox:
            again = [i for i in solved if not margins[i] > tol]
            second = _margins(W, b, again, dict(options, box=None, cap=UNBOXED_CAP), jobs)
            for i, r in zip(again, second):
                results[i] = r
                margins[i] = r.t
                rounds[i] += r.rounds
                rivals[i] = max(rivals[i], r.rivals)
    return FloatVerdicts(
        margins=margins, tol=tol, rounds=rounds, rivals=rivals,
        failures=[(i, r.status) for i, r in enumerate(results) if r.status != "optimal"],
        box_margins=box_margins, rechecked=again,
        solved=None if labels is None else solved)


if __name__ == "__main__":  # pragma: no cover - a quick look at one head
    import sys
    import time

    stem = sys.argv[1]
    W = np.load(stem + "_W.npy")
    b = np.load(stem + "_b.npy") if os.path.exists(stem + "_b.npy") else None
    t0 = time.perf_counter()
    v = float_argmaxable(W, b)
    print(f"{W.shape}: {len(v.argmaxable)} argmaxable "
          f"({len(v.box_argmaxable)} in the box), "
          f"{len(v.unargmaxable)} not, "
          f"{len(v.unsure)} unsure, {time.perf_counter() - t0:.1f} s, "
          f"mean rounds {v.rounds.mean():.1f}, max rivals {v.rivals.max()}")
