r"""Heads with a bias, ``logits = W x + b``: argmaxable labels and tie pairs, exactly.

Mathematics
-----------
Homogenise: give every label the row ``w~_k = (w_k, b_k)`` in ``R^(d+1)`` and the input
``x~ = (x, s)``; then ``w~_k . x~ = s (w_k . (x / s) + b_k)``, so the inputs are the
``x~`` with ``s > 0`` (a strict inequality, the row ``e = (0, ..., 0, 1)``).

**Argmaxable.** Label ``i`` is the strict argmax at some ``x`` iff the strict system
``(w~_i - w~_k) . x~ > 0`` (``k != i``), ``e . x~ > 0`` is feasible. By Gordan's theorem
exactly one of the following exists:

* a **witness** ``x`` with ``w_i . x + b_i > w_k . x + b_k`` for every ``k != i``;
* **convex weights** ``lambda >= 0``, ``sum lambda = 1`` over ``k != i`` with
  ``w_i = sum_k lambda_k w_k`` and ``b_i <= sum_k lambda_k b_k``. (Gordan multipliers
  ``y`` on the label rows and ``y_e`` on ``e`` with ``sum y_k (w~_i - w~_k) + y_e e = 0``;
  ``y = 0`` would force ``y_e = 0``, so ``sum y > 0`` and ``lambda = y / sum y``.)
  Then ``w_i . x + b_i <= sum_k lambda_k (w_k . x + b_k) <= max_k logit_k`` for every
  ``x``: label ``i`` is never strictly on top.

Geometrically: ``i`` is argmaxable iff ``w~_i`` is a vertex of the *upper hull* of the
lifted points ``w~_k`` (a vertex of ``conv(w~) - cone(e)``, shared by no other label),
i.e. some facet of ``conv(w~)`` through ``w~_i`` has an outward normal with positive last
coordinate. Without a bias (``b = 0``) this is the vertex criterion of
:mod:`verify.analyze.argmax`.

**Ties.** Labels ``i, j`` can be tied on top iff ``(w~_i - w~_j) . x~ = 0``,
``(w~_i - w~_k) . x~ > 0`` (``k != i, j``), ``e . x~ > 0`` is feasible; by Motzkin's
theorem otherwise there are ``y_k >= 0`` and ``t`` with
``sum_k y_k (w_i - w_k) + t (w_i - w_j) = 0`` and
``sum_k y_k (b_i - b_k) + t (b_i - b_j) = -y_e <= 0``, where ``y`` and ``y_e`` are not
both zero (``y = 0`` is possible only when ``w_i = w_j``, ``b_i != b_j``: the two logits
differ by a constant and never tie).

Both systems are decided by the exact simplex method
(:func:`verify.lp.feasibility.strict_feasibility`), a tie system after restricting ``x~`` to
the hyperplane ``(w~_i - w~_j) . x~ = 0`` through an integer basis of it. Meant for
heads of moderate size; every answer carries its evidence and is re-checked by the
``is_bias_*`` functions.

Example
-------
>>> A = argmaxable_with_bias([[0], [1], [2]], [0, 1, 0])
>>> A.argmaxable, A.unargmaxable  # the middle label wins near x = 0
([0, 1, 2], [])
>>> argmaxable_with_bias([[0], [1], [2]], [0, -1, 0]).unargmaxable
[1]
"""

from __future__ import annotations

from typing import Sequence

from flint import fmpq

from verify.analyze.argmax import ArgmaxAnalysis, _dot
from verify.analyze.ties import (
    NoTieCertificate,
    TieAnalysis,
    TieWitness,
    _hyperplane_basis,
    motzkin_sum_vanishes,
)
from verify.lp.feasibility import GordanCertificate, Witness, strict_feasibility
from verify.linalg.exact import to_fmpq

__all__ = [
    "BIAS_MAX_LABELS",
    "analyze_with_bias",
    "argmaxable_with_bias",
    "is_bias_argmax_certificate",
    "is_bias_argmax_witness",
    "is_bias_no_tie_certificate",
    "is_bias_tie_witness",
    "tie_pairs_with_bias",
]


#: Largest head with a bias analysed (one exact simplex run per label and per pair).
BIAS_MAX_LABELS = 400


def _lifted(W, b) -> list[list[fmpq]]:
    rows = [[to_fmpq(x) for x in row] for row in W]
    if len(b) != len(rows):
        raise ValueError(f"the bias has {len(b)} entries for {len(rows)} labels")
    return [row + [to_fmpq(v)] for row, v in zip(rows, b)]


def _logit(W, b, k, x):
    return _dot(W[k], x) + b[k]


def is_bias_argmax_witness(W, b, i: int, x: Sequence) -> bool:
    """True iff ``w_i . x + b_i > w_k . x + b_k`` for every ``k != i``, exactly."""
    top = _logit(W, b, i, x)
    return all(_logit(W, b, k, x) < top for k in range(len(W)) if k != i)


def is_bias_argmax_certificate(W, b, i: int, weights) -> bool:
    """True iff ``lambda >= 0``, ``lambda != 0``, ``sum lambda_k (w_i - w_k) = 0`` and
    ``sum lambda_k (b_i - b_k) <= 0`` exactly (``weights``: pairs ``(k, lambda_k)``)."""
    pairs = list(weights)
    if not pairs or any(k == i or not 0 <= k < len(W) for k, _ in pairs):
        return False
    if any(y < 0 for _, y in pairs) or all(y == 0 for _, y in pairs):
        return False
    for c in range(len(W[i])):
        if sum((y * (W[i][c] - W[k][c]) for k, y in pairs), 0) != 0:
            return False
    return sum((y * (b[i] - b[k]) for k, y in pairs), 0) <= 0


def is_bias_tie_witness(W, b, i: int, j: int, x: Sequence) -> bool:
    """True iff ``logit_i(x) = logit_j(x) > logit_k(x)`` for every other ``k``, exactly."""
    top = _logit(W, b, i, x)
    if _logit(W, b, j, x) != top:
        return False
    return all(_logit(W, b, k, x) < top for k in range(len(W)) if k not in (i, j))


def is_bias_no_tie_certificate(W, b, i: int, j: int, cert: NoTieCertificate) -> bool:
    """True iff ``cert`` proves that ``i`` and ``j`` never tie on top (module docstring):
    ``y >= 0`` on labels ``k != i, j``, ``sum y_k (w_i - w_k) + t (w_i - w_j) = 0`` and
    ``slack = sum y_k (b_i - b_k) + t (b_i - b_j) <= 0``, with ``y != 0`` or
    ``slack < 0``."""
    pairs = list(cert.multipliers)
    if any(k in (i, j) or not 0 <= k < len(W) for k, _ in pairs):
        return False
    if any(y < 0 for _, y in pairs):
        return False
    if not motzkin_sum_vanishes(W, i, j, cert):
        return False
    t = cert.tie
    slack = t * (b[i] - b[j]) + sum((y * (b[i] - b[k]) for k, y in pairs), 0)
    if slack > 0:
        return False
    return slack < 0 or any(y != 0 for _, y in pairs)


def _witness_input(point) -> tuple:
    """The input ``x = x~ / s`` of a homogeneous witness ``(x~, s)``, ``s > 0``."""
    s = fmpq(point[-1])
    return tuple(fmpq(v) / s for v in point[:-1])


def argmaxable_with_bias(W, b) -> ArgmaxAnalysis:
    """Decide every label of ``W x + b`` exactly: a witness input or convex weights.

    ``evidence[i]`` is a :class:`Witness` (an input ``x``, rational) or a
    :class:`GordanCertificate` with pairs ``(k, lambda_k)``: ``lambda >= 0``,
    ``sum lambda = 1``, ``w_i = sum lambda_k w_k`` and ``b_i <= sum lambda_k b_k``.
    """
    R = _lifted(W, b)
    n, D = len(R), len(R[0])
    e = [fmpq(0)] * (D - 1) + [fmpq(1)]
    evidence = []
    for i in range(n):
        others = [k for k in range(n) if k != i]
        rows = [[a - c for a, c in zip(R[i], R[k])] for k in others] + [e]
        ev = strict_feasibility(rows)
        if isinstance(ev, Witness):
            evidence.append(Witness(point=_witness_input(ev.point)))
            continue
        y = [(others[r], fmpq(v)) for r, v in ev.multipliers if r < len(others) and v != 0]
        total = sum((v for _, v in y), fmpq(0))
        evidence.append(GordanCertificate(multipliers=tuple(sorted(
            (k, v / total) for k, v in y))))
    return ArgmaxAnalysis(n=n, d=D - 1, evidence=tuple(evidence))


def _decide_pair(R, i: int, j: int):
    n, D = len(R), len(R[0])
    others = [k for k in range(n) if k not in (i, j)]
    e = [fmpq(0)] * (D - 1) + [fmpq(1)]
    A = [[a - c for a, c in zip(R[i], R[k])] for k in others] + [e]
    v = [a - c for a, c in zip(R[i], R[j])]
    if all(x == 0 for x in v):
        basis, p = None, None
        reduced = A
    else:
        p, basis = _hyperplane_basis(v, fmpq(1))
        reduced = [[_dot(a, col) for col in basis] for a in A]
    ev = strict_feasibility(reduced)
    if isinstance(ev, Witness):
        z = list(ev.point)
        point = z if basis is None else [
            sum((col[c] * zc for col, zc in zip(basis, z)), fmpq(0)) for c in range(D)]
        return TieWitness(point=_witness_input(point))
    mult = [(r, fmpq(y)) for r, y in ev.multipliers if y != 0]
    t = fmpq(0)
    if basis is not None:
        # sum y_r A_r is orthogonal to the hyperplane, hence lambda v; then t = -lambda.
        s_p = sum((y * A[r][p] for r, y in mult), fmpq(0))
        t = -(s_p / v[p])
    total = sum((y for _, y in mult), fmpq(0))
    labels = tuple(sorted((others[r], y / total) for r, y in mult if r < len(others)))
    return NoTieCertificate(multipliers=labels, tie=t / total)


def tie_pairs_with_bias(W, b, pairs=None) -> TieAnalysis:
    """Decide which pairs of ``W x + b`` can be tied on top (all pairs by default).

    Witnesses are inputs ``x`` (rational); certificates are :class:`NoTieCertificate`
    with the bias condition of :func:`is_bias_no_tie_certificate`.
    """
    R = _lifted(W, b)
    n = len(R)
    if pairs is None:
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    wanted = sorted({(min(i, j), max(i, j)) for i, j in pairs if i != j})
    evidence = {(i, j): _decide_pair(R, i, j) for i, j in wanted}
    return TieAnalysis(n=n, evidence=evidence, complete=len(wanted) == n * (n - 1) // 2)


def analyze_with_bias(W, b, *, neighbours: int = 2, names=None, source: str = "the head"):
    """The analysis of ``python -m verify analyze --bias``: a
    :class:`~verify.analyze.report.HeadAnalysis` of ``W x + b``.

    Every label is decided; every pair too for at most ``ALL_PAIRS_MAX_LABELS`` labels,
    otherwise the pairs of each label with its ``neighbours`` nearest labels by cosine
    (cosines of the rows ``w_k``, the bias aside). Cell counts are not computed (they
    are defined for heads without a bias). Heads above :data:`BIAS_MAX_LABELS` labels
    are refused (:class:`~verify.io.errors.TooLargeError`).
    """
    from verify.analyze.argmax import make_head
    from verify.analyze.report import HeadAnalysis, _summarise, cosine_neighbours
    from verify.analyze.ties import ALL_PAIRS_MAX_LABELS
    from verify.io.errors import TooLargeError

    rows = [[to_fmpq(x) for x in row] for row in W]
    bias = [to_fmpq(v) for v in b]
    n = len(rows)
    if n > BIAS_MAX_LABELS:
        raise TooLargeError(f"{source}: heads with a bias are analysed for at most "
                            f"{BIAS_MAX_LABELS} labels (this one has {n}); each label is "
                            "an exact simplex run")
    head = make_head(rows)
    argmax = argmaxable_with_bias(rows, bias)
    near = cosine_neighbours(head, neighbours)
    pairs = None
    if n > ALL_PAIRS_MAX_LABELS:
        pairs = sorted({(min(i, c), max(i, c)) for i, lst in enumerate(near) for c, _ in lst})
    ties = tie_pairs_with_bias(rows, bias, pairs)
    return HeadAnalysis(n=n, d=len(rows[0]), argmax=argmax, ties=ties,
                        cosine=_summarise(near, ties, neighbours), cells=None,
                        names=list(names) if names is not None else None, head=head)
