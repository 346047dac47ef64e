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

Algorithm: the floor
-------------------
Both systems are the bias-free questions of :mod:`verify.analyze.argmax` and
:mod:`verify.analyze.ties` for a head of ``2n`` rows in ``R^(d+1)``: the lifted rows
``w~_k`` and, below each, its **floor row** ``w~_k - M e`` (one integer ``M > 0``, the
*drop*). A floor row is a rival of every label but never a label itself. For an input
``x~ = (x, s)`` label ``i`` beats its own floor row iff ``M s > 0``, i.e. ``s > 0``; and
once ``s > 0``, a label that beats ``w~_k`` beats ``w~_k - M e`` too. So:

* ``w~_i`` is strictly on top of all ``2n`` rows at ``x~`` iff ``s > 0`` and label ``i``
  is the strict argmax of ``W x + b`` at ``x = x~ / s``: the argmax witnesses of the
  bias-free engine, restricted to the first ``n`` rows, are exactly those of the head
  with a bias, and so are the tie witnesses of two labels;
* a bias-free certificate on the ``2n`` rows folds into the certificate above: weights
  ``lambda_k`` on ``w~_k`` and ``mu_k`` on ``w~_k - M e`` give the weights
  ``lambda_k + mu_k`` on label ``k`` and lower the bias side by ``M sum mu >= 0``
  (a weight ``mu_i`` on the label's own floor row is moved to the left and divided
  out, ``mu_i < 1``); Motzkin multipliers fold the same way, a floor row of ``j``
  adding to ``t``.

A label strictly inside the simplex of ``d + 2`` rows of the ``2n`` (a
:class:`~verify.analyze.simplex.SimplexCertificate`, proven without its weights) keeps
its support as it is, a support index ``n + k`` standing for the floor row of label
``k``; the certificate format records ``M``. Every ``M > 0`` gives the same answers;
``M`` is chosen near the spread of the bias column, which keeps the float proposals of
the bias-free engine well scaled. So the heads with a bias go through the same blocked
screen, interior certificates, tie pairs and workers as those without, at the same
scale.

Example
-------
>>> A = argmaxable_with_bias([[0], [1], [2]], [0, 1, 0])
>>> A.argmaxable, A.unargmaxable  # the middle label wins near x = 0
([0, 1, 2], [])
>>> argmaxable_with_bias([[0], [1], [2]], [0, -1, 0]).unargmaxable
[1]
"""

from __future__ import annotations

from itertools import combinations
from math import gcd
from typing import Sequence

import numpy as np
from flint import fmpq

from verify.analyze.argmax import ArgmaxAnalysis, argmaxable_labels
from verify.analyze.head import (
    INT64_BITS,
    ExactHead,
    _bit_length,
    _dot,
    _python_integers,
    _row_blocks,
    integer_matrix,
)
from verify.analyze.simplex import SimplexCertificate, SimplexNoTie
from verify.analyze.ties import (
    ALL_PAIRS_MAX_LABELS,
    NoTieCertificate,
    TieAnalysis,
    TieWitness,
    motzkin_sum_vanishes,
    tie_pairs,
)
from verify.lp.feasibility import GordanCertificate, Witness
from verify.linalg.exact import to_fmpq
from verify.numbers.int_vector import IntVector

__all__ = [
    "LiftedTieWitness",
    "LiftedWitness",
    "bias_head",
    "argmaxable_with_bias",
    "is_bias_argmax_certificate",
    "is_bias_argmax_witness",
    "is_bias_no_tie_certificate",
    "is_bias_tie_witness",
    "tie_pairs_with_bias",
]


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


# --- the head with its floor rows ----------------------------------------------------------

def _binary_array(W, b) -> np.ndarray | None:
    """The lifted matrix ``[W | b]`` as float64, exactly, when ``W`` is a numpy matrix
    (or a row-sliceable stand-in) of binary floats or small integers and ``b`` a vector
    of such numbers; None otherwise (then the rows are taken as exact numbers)."""
    dtype = getattr(W, "dtype", None)
    if dtype is None or getattr(W, "ndim", 0) != 2 or dtype.kind not in "iuf" \
            or dtype.itemsize > 8:
        return None
    b = np.asarray(b) if isinstance(b, np.ndarray) else None
    if b is None or b.dtype.kind not in "iuf" or b.dtype.itemsize > 8:
        return None
    n, d = W.shape
    if b.shape != (n,):
        raise ValueError(f"the bias has {b.size} entries for {n} labels")
    L = np.empty((n, d + 1), dtype=np.float64)
    for lo, hi in _row_blocks(n):
        block = np.asarray(W[lo:hi])
        if block.dtype.kind in "iu" and block.size and int(np.abs(block).max()) >= 1 << 53:
            return None  # an integer float64 would round
        L[lo:hi, :d] = block
    if b.dtype.kind in "iu" and b.size and int(np.abs(b).max()) >= 1 << 53:
        return None
    L[:, d] = b
    return L


def _exact_rows(W) -> list[list[fmpq]]:
    """The rows of ``W`` as ``fmpq``: exact rows as they are, a numpy matrix (or a
    row-sliceable stand-in) entry by entry at its exact binary value."""
    if getattr(W, "dtype", None) is None:
        return [[to_fmpq(x) for x in row] for row in W]
    from verify.numbers.rational import exact_from_float

    a = np.asarray(W[0:W.shape[0]])
    if a.dtype.kind in "iu":
        return [[fmpq(int(v)) for v in row] for row in a.tolist()]
    return [[exact_from_float(v) for v in row] for row in a.astype(np.float64)]


def lifted_integers(W, b):
    """The primitive integer matrix ``c [W | b]`` (one rational ``c > 0``): an int64
    array when every entry fits in ``INT64_BITS`` bits, else a list of tuples of
    Python ints."""
    L = _binary_array(W, b)
    if L is not None:
        Z = integer_matrix(L)
        if Z is not None:
            return Z
        from verify.numbers.rational import exact_from_float

        rows = [[exact_from_float(v) for v in row] for row in L]
    else:
        rows = _exact_rows(W)
        if len(b) != len(rows):
            raise ValueError(f"the bias has {len(b)} entries for {len(rows)} labels")
        rows = [row + [to_fmpq(v)] for row, v in zip(rows, b)]
    Z = _python_integers(rows)
    bits = max(abs(v).bit_length() for row in Z for v in row)
    if bits <= INT64_BITS:
        return np.array(Z, dtype=np.int64)
    return [tuple(row) for row in Z]


def floor_drop(beta) -> int:
    """The drop ``M > 0`` of the floor rows: the spread of the integer bias column,
    rounded up to a power of two (1 for a constant bias)."""
    if isinstance(beta, np.ndarray):
        spread = int(beta.max()) - int(beta.min()) if beta.size else 0
    else:
        spread = max(beta) - min(beta)
    return 1 << max(0, spread - 1).bit_length()


def bias_head(W, b, *, budget=None, source: str = "the head") -> ExactHead:
    """The head of ``W x + b`` for the bias-free engine: the ``n`` lifted rows, then
    their ``n`` floor rows (module docstring); ``head.labels = n`` and ``head.drop``
    is ``M``. ``head.Z[:n]`` is the primitive integer matrix ``c [W | b]``."""
    from verify.analyze.memory import default_budget

    Z = lifted_integers(W, b)
    n = len(Z)
    if n == 0:
        raise ValueError("the matrix needs at least one row")
    budget = (budget or default_budget()).for_head(2 * n, len(Z[0]), source)
    if isinstance(Z, np.ndarray):
        M = floor_drop(Z[:, -1])
        if _bit_length(Z) < INT64_BITS and M < 1 << (INT64_BITS - 1):
            Z2 = np.concatenate([Z, Z])
            Z2[n:, -1] -= M
            if _bit_length(Z2[n:, -1]) <= INT64_BITS:
                head = ExactHead(None, budget=budget, _integers=Z2)
                head.labels, head.drop = n, M
                return head
        Z = [tuple(row) for row in Z.tolist()]
    M = floor_drop([row[-1] for row in Z])
    floors = [row[:-1] + (row[-1] - M,) for row in Z]
    head = ExactHead([[fmpq(v) for v in row] for row in Z + floors], budget=budget)
    head.labels, head.drop = n, M
    return head


# --- evidence of the lifted head, in the terms of W x + b ----------------------------------

def quotient_texts(lifted) -> list[str]:
    """The entries of ``x = y / s`` for homogeneous integers ``lifted = (y, s)``,
    ``s > 0``, as the text ``str(fmpq)`` gives (``p/q`` in lowest terms, or ``p``), from
    Python integers: one ``gcd`` (of usually machine-sized numbers) per entry where
    ``fmpq`` would convert and divide (the JSON document of a large head has millions)."""
    s = int(lifted[-1])
    out = []
    for v in lifted[:-1]:
        v = int(v)
        g = gcd(v, s)
        q = s // g
        out.append(str(v // g) if q == 1 else f"{v // g}/{q}")
    return out


def exact_sum(values) -> fmpq:
    """``sum(values)`` of rationals, adding the numerators of equal denominators as
    integers: one reduction per denominator instead of one per term (the weights of a
    label at ``d = 120`` are 122 fractions of about 3,700 bits, with a few distinct
    denominators, and each reduction is a ``gcd`` of that size)."""
    numerators: dict = {}
    for y in values:
        y = fmpq(y) if type(y) is not fmpq else y
        q = y.q
        numerators[q] = numerators.get(q, 0) + y.p
    return sum((fmpq(p, q) for q, p in numerators.items()), fmpq(0))


class LiftedWitness(Witness):
    """An input ``x`` of ``W x + b``, kept as homogeneous integers ``(y, s)``, ``s > 0``,
    ``x = y / s`` (:attr:`lifted`); :attr:`point` is ``x``, computed when read."""

    def __init__(self, lifted):
        # An IntVector stays one (its entries are read as Python ints anyway).
        object.__setattr__(self, "lifted",
                           lifted if isinstance(lifted, IntVector) else tuple(lifted))

    @property
    def point(self) -> tuple:
        s = fmpq(self.lifted[-1])
        return tuple(fmpq(v) / s for v in self.lifted[:-1])

    def __reduce__(self):
        return (LiftedWitness, (self.lifted,))


class LiftedTieWitness(TieWitness):
    """A tie witness of ``W x + b``: the homogeneous tie witness ``inner`` of the lifted
    head (its point ``(y, s)``, ``s > 0``, is :attr:`lifted`); :attr:`point` is
    ``x = y / s``."""

    def __init__(self, inner: TieWitness):
        object.__setattr__(self, "inner", inner)

    @property
    def lifted(self) -> tuple:
        return tuple(self.inner.point)

    @property
    def point(self) -> tuple:
        y = self.lifted
        s = fmpq(y[-1])
        return tuple(fmpq(v) / s for v in y[:-1])

    def __reduce__(self):
        return (LiftedTieWitness, (TieWitness(point=self.lifted),))


def _fold_weights(i: int, n: int, multipliers) -> GordanCertificate:
    """Convex weights on the ``2n`` rows (module docstring) as weights on the labels."""
    folded: dict = {}
    own = fmpq(0)
    for k, y in multipliers:
        k = int(k)
        if k == n + i:
            own += y
        elif y != 0:
            y = y if type(y) is fmpq else fmpq(y)
            folded[k % n] = folded[k % n] + y if k % n in folded else y
    total = exact_sum(folded.values())
    return GordanCertificate(multipliers=tuple(
        (k, y if total == 1 else y / total) for k, y in sorted(folded.items())))


def _fold_no_tie(i: int, j: int, n: int, cert: NoTieCertificate) -> NoTieCertificate:
    """Motzkin multipliers on the ``2n`` rows as multipliers on the labels and ``t``."""
    folded: dict = {}
    t = fmpq(cert.tie)
    whole = exact_sum(y for _, y in cert.multipliers)
    for k, y in cert.multipliers:
        k, y = int(k), (y if type(y) is fmpq else fmpq(y))
        if k == n + j:
            t += y
        elif k != n + i and y != 0:
            # A label and its floor row both in the support: their weights add up.
            folded[k % n] = folded[k % n] + y if k % n in folded else y
    if whole > 1:  # keep sum y <= 1 (the certificate format's convention)
        folded = {k: y / whole for k, y in folded.items()}
        t /= whole
    return NoTieCertificate(multipliers=tuple(sorted(folded.items())), tie=t)


def label_evidence(head: ExactHead, i: int, e):
    """The evidence of label ``i`` of the lifted ``head``, for ``W x + b``."""
    if isinstance(e, Witness):
        return LiftedWitness(e.point)
    if isinstance(e, SimplexCertificate):
        return e
    return _fold_weights(i, head.labels, e.multipliers)


def pair_evidence(head: ExactHead, i: int, j: int, e):
    """The evidence of the pair ``(i, j)`` of the lifted ``head``, for ``W x + b``."""
    if isinstance(e, TieWitness):
        return LiftedTieWitness(e)
    if isinstance(e, SimplexNoTie):
        return e
    return _fold_no_tie(i, j, head.labels, e)


def _argmax_of(head: ExactHead, lifted: ArgmaxAnalysis) -> ArgmaxAnalysis:
    return ArgmaxAnalysis(n=head.labels, d=head.d - 1, evidence=tuple(
        label_evidence(head, i, e) for i, e in enumerate(lifted.evidence)))


def _ties_of(head: ExactHead, lifted: TieAnalysis) -> TieAnalysis:
    n = head.labels
    evidence = {p: pair_evidence(head, p[0], p[1], e) for p, e in lifted.evidence.items()
                if p[1] < n}
    return TieAnalysis(n=n, evidence=evidence,
                       complete=len(evidence) == n * (n - 1) // 2)


def argmaxable_with_bias(W, b) -> ArgmaxAnalysis:
    """Decide every label of ``W x + b`` exactly: a witness input or convex weights.

    ``evidence[i]`` is a :class:`LiftedWitness` (an input ``x``, rational, whose largest
    logit is label ``i`` alone), a :class:`GordanCertificate` with pairs
    ``(k, lambda_k)``: ``lambda >= 0``, ``sum lambda = 1``, ``w_i = sum lambda_k w_k``
    and ``b_i <= sum lambda_k b_k``, or (large heads) a
    :class:`~verify.analyze.simplex.SimplexCertificate` on the lifted rows and floor
    rows (module docstring).
    """
    head = W if isinstance(W, ExactHead) else bias_head(W, b)
    return _argmax_of(head, argmaxable_labels(head))


def tie_pairs_with_bias(W, b, pairs=None) -> TieAnalysis:
    """Decide which pairs of ``W x + b`` can be tied on top (all pairs by default).

    Witnesses are inputs ``x`` (rational, :class:`LiftedTieWitness`); certificates are
    :class:`NoTieCertificate` with the bias condition of
    :func:`is_bias_no_tie_certificate`, or :class:`~verify.analyze.simplex.SimplexNoTie`.
    """
    head = W if isinstance(W, ExactHead) else bias_head(W, b)
    return _ties_of(head, _lifted_ties(head, argmaxable_labels(head), pairs))


def _lifted_ties(head: ExactHead, argmax: ArgmaxAnalysis, pairs, rays=None,
                 progress=None, workers=None) -> TieAnalysis:
    n = head.labels
    if pairs is None:
        pairs = combinations(range(n), 2)
    wanted = sorted({(min(i, j), max(i, j)) for i, j in pairs if i != j})
    return tie_pairs(head, argmax, pairs=wanted, rays_per_label=rays, progress=progress,
                     workers=workers)


def bias_free_view(head: ExactHead) -> ExactHead:
    """:func:`bias_free_head` of ``head``, computed once per head and process (the
    cosine pass of worker processes asks for it with every block)."""
    rows = getattr(head, "_bias_free", None)
    if rows is None:
        rows = head._bias_free = bias_free_head(head)
    return rows


def bias_free_head(head: ExactHead) -> ExactHead:
    """The head of the rows ``w_k`` alone (for cosines), from the lifted ``head``."""
    n, d = head.labels, head.d - 1
    if head.Zarr is not None:
        return ExactHead(None, budget=head.budget,
                         _integers=np.ascontiguousarray(head.Zarr[:n, :d]))
    return ExactHead([[fmpq(v) for v in head.Z[k][:d]] for k in range(n)],
                     budget=head.budget)
