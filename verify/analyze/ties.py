r"""Which pairs of labels can be tied for the highest probability, decided exactly.

Mathematics
-----------
Labels ``i != j`` of ``W`` (rows ``w_0 ... w_{n-1}`` in ``R^d``) *can be tied for the
highest probability* iff some input ``x`` has

    w_i . x = w_j . x > w_k . x      for every other label k.

With ``v = w_i - w_j`` and ``a_k = w_i - w_k`` this is the mixed system
``v . x = 0``, ``a_k . x > 0`` (``k != i, j``). Motzkin's transposition theorem (the
form of Gordan's theorem with one equation; Schrijver 1986, §7.8) says that exactly one
of the following holds:

* a **witness** ``x`` with ``v . x = 0`` and ``a_k . x > 0`` for all ``k != i, j``;
* a **certificate** ``y_k >= 0`` (``k != i, j``), not all zero, and a real ``t`` with
  ``sum_k y_k (w_i - w_k) + t (w_i - w_j) = 0``.

(Taking the dot product of the certificate with a witness would give
``sum_k y_k a_k . x = 0`` with every term ``>= 0`` and one ``> 0``.) Exactly: the
system is decided by restricting ``x`` to the hyperplane ``v . x = 0`` through an
integer basis of it (``B = [v_p e_q - v_q e_p]_{q != p}`` for a ``p`` with
``v_p != 0``), which turns it into a strict system ``(a_k^T B) z > 0`` for
:func:`verify.lp.feasibility.strict_feasibility`; its Gordan multipliers ``y`` give
``sum y_k a_k`` orthogonal to that hyperplane, hence a multiple ``-t v``.

**Geometric form.** Let ``P = conv(W)``. The inputs ``x`` maximised by a set ``S`` of
labels are the normal cone of the face of ``P`` on which ``x`` is maximal, and the
labels of ``S`` are the rows lying on that face. Hence ``i`` and ``j`` can tie iff

* ``w_i != w_j`` and the segment ``[w_i, w_j]`` is an **edge** of ``P`` that contains no
  other row (the argmax regions of ``i`` and ``j`` are adjacent across a facet of the
  normal fan), or
* ``w_i = w_j`` and this point is a vertex of ``P`` that no third label shares.

Equivalently, the line through ``w_i`` and ``w_j`` misses the convex hull of the other
rows (the certificate exhibits a point of that hull on the line). In the plane the tie
pairs are the edges of the convex polygon of the rows, an edge with a row in its
relative interior giving no tie. The *tie graph* (labels as nodes, tie pairs as edges)
is therefore the edge graph (1-skeleton) of ``P`` restricted to the labels that can
win, the graph Grivas et al. (2022) study through the normal fan of the softmax.

**Free certificates.** If label ``i`` is unargmaxable, ``w_i = sum_k lambda_k w_k`` and
``w_i != w_j``, then ``sum_{k != j} lambda_k (w_i - w_k) + lambda_j (w_i - w_j) = 0``
is a certificate for every pair ``(i, j)``; the same holds with the roles swapped
(using ``w_j - w_k = (w_i - w_k) - (w_i - w_j)``).

Algorithm
---------
For ``n <= 200`` labels every pair is decided; above that only the pairs asked for
(the analysis asks for the nearest cosine neighbours) plus the tie pairs found by
*ray shooting*: starting inside the argmax region of label ``i`` (at its exact
witness), a ray leaves that region through the facet shared with some label ``k``; at
the exit point ``i`` and ``k`` are tied above everybody else. Exit points are computed
in floating point, moved exactly onto the hyperplane ``v . x = 0``
(``x' = (v.v) x - (v.x) v`` in integers) and checked exactly; pairs not settled that
way go to a cutting-plane linear program whose answer is again certified exactly, and
anything that fails a check is decided by the exact simplex method.

References
----------
T. S. Motzkin, *Beiträge zur Theorie der linearen Ungleichungen*, 1936. A. Schrijver,
*Theory of Linear and Integer Programming*, 1986. D. Grivas, N. Bogoychev, A. Lopez,
"Low-Rank Softmax Can Have Unargmaxable Classes in Theory but Rarely in Practice",
ACL 2022. Nielsen & Grivas, App. C.2 (the tie claims of the centered example).

Example
-------
>>> T = tie_pairs([[1, 0], [0, 1], [-1, 0], [0, -1], [0, 0]])
>>> T.tie_pairs
[(0, 1), (0, 3), (1, 2), (2, 3)]
>>> T.can_tie(0, 2)
False
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from itertools import combinations
from math import gcd
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np
from flint import fmpq, fmpz_mat

from verify.analyze.argmax import (
    SCREEN_CHUNK,
    ArgmaxAnalysis,
    _cluster_point,
    _integral,
    argmaxable_labels,
)
from verify.analyze.head import ExactHead, FieldHead, _dot, _tick, make_head
from verify.analyze.proposals import (
    Differences,
    _round_point,
    nnls_support,
    perceptron,
    propose_strict,
    smallest,
)
from verify.analyze.profile import stage
from verify.analyze.screen import (
    SCREEN_PATIENCE,
    screened_relaxation,
    tie_dots,
    tie_point,
    tie_point_parts,
)
from verify.analyze.simplex import SimplexCertificate, SimplexNoTie
from verify.lp.feasibility import GordanCertificate, Witness, strict_feasibility
from verify.linalg.exact import integer_nullspace
from verify.numbers.int_vector import float_direction

if TYPE_CHECKING:
    import os

    import networkx

    from verify.analyze.head import HeadInput, ProgressBar
    from verify.analyze.parallel import Workers
    from verify.numbers.aliases import ExactEntry, ExactRows

__all__ = [
    "ALL_PAIRS_MAX_LABELS",
    "NoTieCertificate",
    "TieAnalysis",
    "TieWitness",
    "is_no_tie_certificate",
    "is_tie_witness",
    "tie_graph",
    "tie_pairs",
    "write_graph",
]

#: Up to this many labels every pair is decided; above it, the pairs asked for and
#: the tie pairs found by ray shooting.
ALL_PAIRS_MAX_LABELS = 200
#: Rays shot from the witness of every argmaxable label when not all pairs are decided.
RAYS_PER_LABEL = 8
#: Candidate tie points rounded and checked at a time.
CERTIFY_CHUNK = 4096
#: Relaxation rounds of the screened tie search, and the bits of its points.
SCREEN_TIE_ROUNDS = 30
SCREEN_TIE_BITS = 20
#: Pairs per task of the segment witnesses of screened heads: at most
#: ``SEGMENT_CHUNK``, and fewer pairs are split into up to ``SEGMENT_TASKS`` tasks of at
#: least ``SEGMENT_MIN_CHUNK`` (each task is a pass over all rows: the 50 pairs left on
#: ddddocr took 0.3 s as one task, run in the main process).
SEGMENT_CHUNK = 256
SEGMENT_TASKS = 16
SEGMENT_MIN_CHUNK = 8


@dataclass(frozen=True)
class TieWitness:
    """An input ``x`` with ``w_i . x = w_j . x > w_k . x`` for every other ``k``."""

    point: tuple


@dataclass(frozen=True)
class NoTieCertificate:
    """``y >= 0`` over labels ``k != i, j`` (not all 0) and ``t`` with
    ``sum_k y_k (w_i - w_k) + t (w_i - w_j) = 0`` (normalised to ``sum y = 1``)."""

    multipliers: tuple
    tie: object


class ProjectedTieWitness(TieWitness):
    """A tie witness of a large head, kept short and computed when read.

    The point is ``v_p x - (v . x) e_p`` (``v = z_i - z_j`` of the exact integer
    head, ``x`` a short integer point, ``p`` the index of the largest ``|v_p|``; see
    :func:`verify.analyze.screen.tie_point`): it lies exactly on ``v . x = 0``, and has
    about twice the digits of the head's integers, so thousands of them would fill
    the memory as tuples of Python integers; this keeps ``x`` (``d`` int32 entries).
    """

    def __init__(self, head, i: int, j: int, x, p: int):
        object.__setattr__(self, "_source", (head, i, j, x, p))

    @property
    def point(self) -> tuple:
        return tie_point(*self._source)

    def point_parts(self, vx: int | None = None) -> tuple:
        """``(s, y, p, top)``: the point is ``s y`` except at ``p``, where it is ``top``
        (:func:`verify.analyze.screen.tie_point_parts`, ``vx`` from
        :func:`projected_dots`; for writing certificates)."""
        scale, y, top = tie_point_parts(*self._source, vx=vx)
        return scale, y, self._source[4], top

    def __reduce__(self):
        return (TieWitness, (self.point,))


def projected_dots(witnesses: list) -> list:
    """For each :class:`ProjectedTieWitness` of ``witnesses``, ``v . x`` of its point
    (:func:`verify.analyze.screen.tie_dots`, products of many witnesses at a time;
    None where that does not apply, and for other witnesses)."""
    out: list = [None] * len(witnesses)
    by_head: dict = {}
    for r, e in enumerate(witnesses):
        if isinstance(e, ProjectedTieWitness):
            by_head.setdefault(id(e._source[0]), []).append(r)
    for rows in by_head.values():
        head = witnesses[rows[0]]._source[0]
        dots = tie_dots(head, [witnesses[r]._source[1:4] for r in rows])
        for r, vx in zip(rows, dots):
            out[r] = vx
    return out


def is_tie_witness(W: ExactRows, i: int, j: int, point: Sequence[ExactEntry]) -> bool:
    """True iff ``w_i . x = w_j . x > w_k . x`` for every ``k != i, j``, exactly."""
    top = _dot(W[i], point)
    if _dot(W[j], point) != top:
        return False
    return all(_dot(row, point) < top for k, row in enumerate(W) if k not in (i, j))


def is_no_tie_certificate(W: ExactRows, i: int, j: int, cert: NoTieCertificate) -> bool:
    """True iff ``cert`` proves exactly that ``i`` and ``j`` cannot tie for the top."""
    pairs = list(cert.multipliers)
    if not pairs or any(k in (i, j) or not 0 <= k < len(W) for k, _ in pairs):
        return False
    if any(y < 0 for _, y in pairs) or all(y == 0 for _, y in pairs):
        return False
    return motzkin_sum_vanishes(W, i, j, cert)


def motzkin_sum_vanishes(W: Sequence[Sequence], i: int, j: int, cert) -> bool:
    """``t (w_i - w_j) + sum_k y_k (w_i - w_k) = 0`` exactly, coordinate by coordinate."""
    pairs = list(cert.multipliers)
    t = cert.tie
    for c in range(len(W[i])):
        total = t * (W[i][c] - W[j][c])
        for k, y in pairs:
            total = total + y * (W[i][c] - W[k][c])
        if total != 0:
            return False
    return True


@dataclass
class TieAnalysis:
    """Decided pairs ``(i, j)``, ``i < j``: a :class:`TieWitness`, or a
    :class:`NoTieCertificate` or :class:`~verify.analyze.simplex.SimplexNoTie` (cannot
    tie) each. ``complete`` is True iff every pair is decided."""

    n: int
    evidence: dict = field(default_factory=dict)
    complete: bool = False

    @property
    def tie_pairs(self) -> list[tuple[int, int]]:
        return sorted(p for p, e in self.evidence.items() if isinstance(e, TieWitness))

    @property
    def non_tie_pairs(self) -> list[tuple[int, int]]:
        return sorted(p for p, e in self.evidence.items() if not isinstance(e, TieWitness))

    @property
    def pairs_total(self) -> int:
        return self.n * (self.n - 1) // 2

    def can_tie(self, i: int, j: int) -> bool | None:
        """True / False when decided, None when the pair was not decided."""
        e = self.evidence.get((min(i, j), max(i, j)))
        return None if e is None else isinstance(e, TieWitness)

    def partners(self, i: int) -> list[int]:
        """The labels certified to be able to tie with ``i``."""
        return self._partner_lists().get(i, [])

    def _summary(self) -> tuple[str, list[tuple[str, str]], str]:
        from verify.io.display import first

        def pair(p: tuple[int, int]) -> str:
            return f"{p[0]}-{p[1]}"

        ties, others = self.tie_pairs, self.non_tie_pairs
        rows = [("decided", f"{len(self.evidence)} of {self.pairs_total} pairs"
                            + ("" if self.complete else " (the others not decided)")),
                ("can tie", f"{len(ties)}: " + first(ties, text=pair)),
                ("cannot tie", f"{len(others)}: " + first(others, text=pair))]
        return (f"TieAnalysis: {self.n} labels", rows,
                ".evidence[(i, j)] holds the exact witness input or certificate of each "
                "decided pair")

    def _repr_html_(self) -> str:
        """The summary that Jupyter shows."""
        from verify.io.display import summary_html

        return summary_html(*self._summary())

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """The summary that IPython's pretty printer shows."""
        from verify.io.display import pretty

        pretty(p, cycle, *self._summary())

    def _partner_lists(self) -> dict:
        """``{label: sorted tie partners}``, built once (the evidence does not change
        after the analysis)."""
        key = len(self.evidence)
        cached = self.__dict__.get("_partners")
        if cached is None or cached[0] != key:
            lists: dict = {}
            for (a, b), e in self.evidence.items():
                if isinstance(e, TieWitness):
                    lists.setdefault(a, []).append(b)
                    lists.setdefault(b, []).append(a)
            cached = (key, {k: sorted(v) for k, v in lists.items()})
            self.__dict__["_partners"] = cached
        return cached[1]


# --- certificates from the argmax analysis ----------------------------------------------

def _derived_certificate(head, argmax: ArgmaxAnalysis, i: int, j: int):
    """A no-tie certificate for ``(i, j)`` read off a label's convex combination."""
    zero = 0  # adds to fmpq and SqrtSum alike
    for a in (i, j):
        cert = argmax.evidence[a]
        if isinstance(cert, SimplexCertificate):
            # Strictly inside a simplex of d + 1 >= 2 other rows: never on top with
            # another label (verify.analyze.simplex), whatever that label is.
            return SimplexNoTie(inside=a, support=cert.support)
    for a, b in ((i, j), (j, i)):
        cert = argmax.evidence[a]
        if not isinstance(cert, GordanCertificate):
            continue
        lam = dict(cert.multipliers)
        if set(lam) <= {b}:
            continue  # w_a = w_b: the pair is decided on its own
        mult = tuple((k, y) for k, y in sorted(lam.items()) if k != b)
        # The weights of an exact head's ArgmaxAnalysis sum to 1 (normalised where they
        # are made): taken as 1, not added up again, since at d = 768 they are
        # fractions of tens of thousands of digits and adding 769 of them took about a
        # second per pair.
        whole = (fmpq(1) if isinstance(head, ExactHead)
                 else sum((y for _, y in cert.multipliers), zero))
        # For a == j: sum_{k != j} mu_k (w_j - w_k) = sum_{k != i,j} mu_k (w_i - w_k)
        #                                             - (sum_{k != j} mu_k) (w_i - w_j).
        tie = lam.get(j, zero) if a == i else -whole
        total = whole - lam.get(b, zero)      # the weight left off b
        return NoTieCertificate(multipliers=tuple((k, y / total) for k, y in mult),
                                tie=_as_number(head, tie / total))
    return None


def _as_number(head, x):
    return fmpq(x) if isinstance(head, ExactHead) else head.one * x


# --- exact decisions, one pair ----------------------------------------------------------

def _hyperplane_basis(v: Sequence, one=1) -> tuple[int, list[list]]:
    """``(p, B)``: columns ``v_p e_q - v_q e_p`` (``q != p``), a basis of ``v^perp``."""
    d = len(v)
    p = next(c for c in range(d) if v[c] != 0)
    zero = one - one
    cols = []
    for q in range(d):
        if q == p:
            continue
        col = [zero] * d
        col[q] = v[p]
        col[p] = -v[q]
        cols.append(col)
    return p, cols


def _exact_pair(rows, i: int, j: int, strict, zero, one):
    """Decide ``(i, j)`` by the exact simplex method (rows: fmpq/int or field)."""
    n, d = len(rows), len(rows[0])
    others = [k for k in range(n) if k not in (i, j)]
    ri, rj = rows[i], rows[j]
    A = [[a - b for a, b in zip(ri, rows[k])] for k in others]
    v = [a - b for a, b in zip(ri, rj)]
    if not others:
        return TieWitness(point=tuple(zero for _ in range(d)))
    if all(x == 0 for x in v):
        ev = strict(A)
        if isinstance(ev, Witness):
            return TieWitness(point=tuple(ev.point))
        return _certificate(others, ev.multipliers, zero, zero)
    p, B = _hyperplane_basis(v, one)
    reduced = [[_dot(a, col) for col in B] for a in A]
    ev = strict(reduced)
    if isinstance(ev, Witness):
        z = list(ev.point) if ev.point else [zero] * len(B)
        x = [_dot([col[c] for col in B], z) if B else zero for c in range(d)]
        return TieWitness(point=tuple(x))
    # sum y_k a_k is orthogonal to v^perp, so it is lambda v; then t = -lambda.
    s = [sum((y * A[r][c] for r, y in ev.multipliers), zero) for c in range(d)]
    return _certificate(others, ev.multipliers, -(s[p] / v[p]), zero)


def _certificate(others, multipliers, t, zero) -> NoTieCertificate:
    total = sum((y for _, y in multipliers), zero)
    mult = tuple(sorted((others[r], y / total) for r, y in multipliers if y != 0))
    return NoTieCertificate(multipliers=mult, tie=t / total)


# --- the rational engine ----------------------------------------------------------------

def _exact_pair_int(head: ExactHead, i: int, j: int):
    ev = _exact_pair(head.Z, i, j, strict_feasibility, fmpq(0), fmpq(1))
    if isinstance(ev, TieWitness):
        return TieWitness(point=_integral(ev.point) if any(ev.point) else
                          tuple(0 for _ in ev.point))
    return ev


def _project(head: ExactHead, i: int, j: int, x: list[int]) -> tuple:
    """The integer point ``(v.v) x - (v.x) v`` on the hyperplane ``v . x = 0``."""
    v = [a - b for a, b in zip(head.Z[i], head.Z[j])]
    vv = sum(a * a for a in v)
    if vv == 0:
        return tuple(x)
    vx = sum(a * b for a, b in zip(v, x))
    y = [vv * a - vx * b for a, b in zip(x, v)]
    g = gcd(*y)
    return tuple(a // g for a in y) if g > 1 else tuple(y)


def _certify_points(head: ExactHead, cands: list) -> dict:
    """Exactly check float tie points ``[(i, j, p), ...]``; return ``{(i, j): witness}``.

    Each ``p`` is rounded (with a few precisions, coarse first so that simple inputs
    get short witnesses) and projected exactly onto ``(w_i - w_j) . x = 0``.
    """
    out: dict = {}
    seen, pending = set(), []
    for i, j, p in cands:
        key = (min(i, j), max(i, j))
        if key not in seen:
            seen.add(key)
            pending.append((i, j, p))
    for bits in (8, 26, 52):
        if not pending:
            break
        # A chunk at a time: the exact points (tuples of Python integers) of only a
        # few thousand candidates exist at once. Each pair occurs once in ``pending``.
        for start in range(0, len(pending), CERTIFY_CHUNK):
            pts, labels, keys = [], [], []
            for i, j, p in pending[start:start + CERTIFY_CHUNK]:
                r = _round_point(p, bits)
                if r is None:
                    continue
                x = _project(head, i, j, r)
                if not any(x):
                    continue
                pts.append(x)
                labels.append(i)
                keys.append((i, j))
            tied = head.wins(pts, labels, partners=[j for _, j in keys])
            for c, (i, j) in enumerate(keys):
                if tied[c]:
                    out.setdefault((min(i, j), max(i, j)), TieWitness(point=pts[c]))
        pending = [(i, j, p) for i, j, p in pending if (min(i, j), max(i, j)) not in out]
    return out


def _screened_points(head: ExactHead, cands: list) -> dict:
    """Float tie points ``[(i, j, p), ...]`` of a screened head, checked as the pair
    screen checks its own: each ``p`` rounded to integers of ``SCREEN_TIE_BITS`` bits and
    moved along its largest coordinate onto the pair's hyperplane
    (:func:`verify.analyze.screen.tie_point`), then proved by the float32 bound or the
    float64 check of :func:`verify.analyze.screen.screened_relaxation` (one round, no
    relaxation step). Returns ``{(i, j): witness}`` for the pairs whose first candidate
    is proved; the others go on to the next method.

    The exact products of :func:`_certify_points` cost about forty times as much per
    point on PP-OCRv5's segments (their projected points have twice the head's digits),
    and of the 909 points of 8,000 pairs that the screen left they proved 4.
    """
    first: dict = {}
    for i, j, p in cands:
        first.setdefault((min(i, j), max(i, j)), (i, j, p))
    if not first:
        return {}
    picked = list(first.values())
    I = np.array([c[0] for c in picked], dtype=np.intp)
    J = np.array([c[1] for c in picked], dtype=np.intp)
    P = np.stack([np.asarray(c[2], dtype=np.float64) for c in picked], axis=1)
    found, _, _ = screened_relaxation(head, I, lambda cols: P[:, cols], partners=J,
                                      rounds=1, bits=SCREEN_TIE_BITS)
    out = {}
    for c, (x, p) in found.items():
        out[(min(int(I[c]), int(J[c])), max(int(I[c]), int(J[c])))] = ProjectedTieWitness(
            head, int(I[c]), int(J[c]), x, p)
    return out


def _equal_rows_inside(head: ExactHead, i: int, j: int):
    """A no-tie certificate for equal rows ``z_i = z_j`` inside the hull of the rows
    that differ from them, or None.

    Both labels then hold only the certificate "equal to my twin", from which
    :func:`_derived_certificate` can read nothing, and the general method is a linear
    program over all rows (minutes and gigabytes at ``50,257 x 768``). Convex weights
    ``z_i = sum_k lambda_k z_k`` on rows other than the copies, found by the interior
    pass (:func:`verify.analyze.interior.certify_cluster`, exact), are the certificate
    ``y = lambda``, ``t = 0``: ``sum_k y_k (w_i - w_k) = 0``.
    """
    from verify.analyze.interior import certify_cluster

    copies = np.flatnonzero((head.F == head.F[i]).all(axis=1))
    copies = [int(k) for k in copies if k not in (i, j) and head.rows_equal(int(k), i)]
    found = certify_cluster(head, ([i], [], [j] + copies), exact=True).get(i)
    if found is None:
        return None
    support, Y, D = found
    # The check, in integers (fmpq sums of 769 weights of tens of thousands of digits,
    # as is_no_tie_certificate would do them, take minutes at d = 768):
    # sum_k Y_k z_k = D z_i, sum_k Y_k = D > 0, Y >= 0, i and j not in the support; then
    # y = Y / D, t = 0 satisfy the definition of is_no_tie_certificate.
    if (D <= 0 or sum(Y) != D or any(y < 0 for y in Y) or i in support or j in support
            or len(set(support)) != len(support)):
        return None
    # exact_weights found them, so the head has its int64 array (read row by row through
    # head.Z, the 769 x 768 entries took 38 s).
    ZS = fmpz_mat(head.Zarr[list(support)].T.tolist())
    if ZS * fmpz_mat([[int(y)] for y in Y]) != fmpz_mat([[D * v] for v in head.Zarr[i].tolist()]):
        return None
    mult = tuple(sorted((int(k), fmpq(int(y), int(D))) for k, y in zip(support, Y) if y))
    return NoTieCertificate(multipliers=mult, tie=fmpq(0))


def _motzkin_on_support(head: ExactHead, i: int, j: int, support: list[int]):
    """Exact ``y >= 0`` on ``support`` and ``t`` with ``sum y a_k + t v = 0``, or None."""
    zi, zj = head.Z[i], head.Z[j]
    v = [a - b for a, b in zip(zi, zj)]
    diffs = [[a - b for a, b in zip(zi, head.Z[k])] for k in support]
    cols = [list(col) + [v[c]] for c, col in enumerate(zip(*diffs))] if diffs else \
        [[v[c]] for c in range(head.d)]
    basis = integer_nullspace(cols)
    if len(basis) == 1:
        vec = basis[0]
        y, t = vec[:-1], vec[-1]
        if all(a <= 0 for a in y):
            y, t = [-a for a in y], -t
        if any(y) and all(a >= 0 for a in y):
            return _certificate(support, list(enumerate(y)), fmpq(t), fmpq(0))
    # Degenerate support: decide the pair on these rows alone, exactly.
    sub = [head.Z[i], head.Z[j]] + [head.Z[k] for k in support]
    ev = _exact_pair(sub, 0, 1, strict_feasibility, fmpq(0), fmpq(1))
    if isinstance(ev, NoTieCertificate):
        mult = tuple((support[k - 2], y) for k, y in ev.multipliers)
        return NoTieCertificate(multipliers=mult, tie=ev.tie)
    return None


def _ray_exits(F: np.ndarray, starts: np.ndarray, dirs: np.ndarray, labels: np.ndarray,
               block: int | None = None):
    """Where rays ``x_c + s u_c`` (``s >= 0``) leave the argmax region of ``labels[c]``.

    Returns ``(rival, point, ok)``: the label whose logit catches up first, the exit
    point, and whether that exit is clear of a third label (float judgement only).
    Columns go ``block`` at a time (default: all at once).
    """
    m = starts.shape[1]
    step = block or max(1, m)
    if m > step:
        parts = [_ray_exits(F, starts[:, lo:lo + step], dirs[:, lo:lo + step],
                            labels[lo:lo + step]) for lo in range(0, m, step)]
        return (np.concatenate([p[0] for p in parts]), np.hstack([p[1] for p in parts]),
                np.concatenate([p[2] for p in parts]))
    cols = np.arange(m)
    M = F @ starts
    G = F @ dirs
    margin = M[labels, cols][None, :] - M  # > 0 inside the region
    slope = G[labels, cols][None, :] - G  # d margin / ds
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(slope < 0, margin / -slope, np.inf)
    s[labels, cols] = np.inf
    # The two smallest exit values per column (no full sort of the n x m array).
    order = np.argpartition(s, 1, axis=0)[:2] if s.shape[0] > 1 else np.argsort(s, axis=0)
    # Copies: a view would keep the whole n x m index array alive with the result.
    order = order.copy()
    rival = order[0]
    first = s[rival, cols]
    second = s[order[1], cols] if F.shape[0] > 2 else np.full(m, np.inf)
    ok = np.isfinite(first) & (second > first * (1 + 1e-7) + 1e-300)
    point = starts + dirs * np.where(np.isfinite(first), first, 0.0)[None, :]
    return rival, point, ok


def _ray_block(head: ExactHead) -> int:
    """Columns per block of :func:`_ray_exits` (about seven ``n``-vectors each)."""
    return head.budget.columns(64 * head.n)


def _witness_matrix(argmax: ArgmaxAnalysis, labels) -> np.ndarray:
    """The witnesses of ``labels`` as unit float columns (directions, for proposals)."""
    X = np.array([float_direction(argmax.evidence[i].point) for i in labels],
                 dtype=np.float64).reshape(len(labels), argmax.d).T
    norms = np.linalg.norm(X, axis=0)
    norms[norms == 0] = 1.0
    return X / norms


def _decide_rational(head: ExactHead, argmax: ArgmaxAnalysis, pairs: list, progress,
                     bonus: bool = False, workers=None) -> dict:
    """Decide ``pairs`` exactly; with ``bonus`` also keep other tie pairs met on the way."""
    out: dict = {}
    open_pairs, single = [], []
    for i, j in pairs:
        ev = _derived_certificate(head, argmax, i, j)
        if ev is not None:
            out[(i, j)] = ev
        elif head.rows_equal(i, j) or not (argmax.is_argmaxable(i)
                                            and argmax.is_argmaxable(j)):
            single.append((i, j, None, ()))
        else:
            open_pairs.append((i, j))
    _tick(progress, len(out))
    if single:
        # Equal rows of large heads take an exact solve each: on the workers too.
        if head.screened:
            from verify.analyze.parallel import Workers

            workers = workers or Workers(head)
            decided = workers.map(decide_pair, single, lambda r: _tick(progress, 1))
        else:
            decided = [decide_pair(head, task) for task in single]
            _tick(progress, len(single))
        out.update((task[:2], ev) for task, ev in zip(single, decided))
    if not open_pairs:
        return out
    wanted = set(open_pairs)
    rivals: dict = {}
    starts: dict = {}
    extra: dict = {}
    if head.screened:
        # Large heads: whitened proposals on the hyperplanes, screened in float32,
        # then one pair at a time (both on the workers, if any).
        from verify.analyze.parallel import Workers

        workers = workers or Workers(head)

        def screen(part, chunk=SCREEN_CHUNK):
            with stage("pair screen"):
                found, part_rivals, part_starts = _screened_plane_witnesses(
                    head, part, progress, workers, chunk)
            rivals.update(part_rivals)
            starts.update(part_starts)
            _settle(out, found, wanted, None)

        # A probe of the pairs, spread over them (labels are often in order of
        # frequency), chooses the order of the two cheap methods: the screen first,
        # unless it certifies few of the probe (module constants).
        stride = max(1, len(open_pairs) // SEGMENTS_PROBE)
        probe = open_pairs[::stride][:SEGMENTS_PROBE]
        probed = set(probe)
        others = [p for p in open_pairs if p not in probed]
        screen(probe)
        segments_first = (bool(others) and sum(p in out for p in probe)
                          < SEGMENTS_FIRST_BELOW * len(probe))
        if not segments_first and others:
            screen(others)
        # The segments between the two labels' own witnesses (as for small heads).
        rest = [p for p in open_pairs if p not in out]
        if rest:
            with stage("pair segments"):
                found = _screened_segment_witnesses(head, argmax, rest, workers)
            _settle(out, found, wanted, progress)
        if segments_first:
            rest = [p for p in others if p not in out]
            if rest:
                # Few pairs: chunks of the segments' size, so that they still go to
                # the workers (a single task runs in the main process).
                screen(rest, SEGMENT_CHUNK)
        tasks = [(p[0], p[1], starts.get(p), rivals.get(p, ())) for p in open_pairs
                 if p not in out]
        with stage("per pair"):
            for task, ev in zip(tasks, workers.map(decide_pair, tasks,
                                                   lambda r: _tick(progress, 1))):
                out[task[:2]] = ev
    else:
        # 1. Rays between the two labels' own witnesses.
        found = _segment_witnesses(head, argmax, open_pairs)
        extra = {p: e for p, e in found.items() if p not in wanted and p not in out}
        _settle(out, found, wanted, progress)
        # 2. A perceptron confined to the hyperplane w_i . x = w_j . x.
        rest = [p for p in open_pairs if p not in out]
        if rest:
            found, rivals, starts = _plane_witnesses(head, argmax, rest)
            _settle(out, found, wanted, progress)
    # 3. One pair at a time: a dependency by NNLS, else the LP, else exact simplex.
    for p in open_pairs:
        if p not in out:
            out[p] = _decide_one(head, p[0], p[1], starts.get(p), rivals.get(p, ()))
            _tick(progress, 1)
    if bonus:
        for p, e in extra.items():
            out.setdefault(p, e)
    return out


def _settle(out: dict, found: dict, wanted: set, progress) -> None:
    new = [p for p in found if p in wanted and p not in out]
    for p in new:
        out[p] = found[p]
    _tick(progress, len(new))


def _screened_plane_witnesses(head: ExactHead, pairs: list, progress, workers,
                              chunk: int = SCREEN_CHUNK):
    """Tie witnesses from :func:`verify.analyze.screen.screened_relaxation`, in chunks
    of ``chunk`` pairs (tasks of ``workers``). Returns ``(found, rivals, starts)`` like
    :func:`_plane_witnesses`, the last two for the pairs left open."""
    I = np.array([p[0] for p in pairs], dtype=np.intp)
    J = np.array([p[1] for p in pairs], dtype=np.intp)
    chunks = [(I[lo:lo + chunk], J[lo:lo + chunk]) for lo in range(0, len(pairs), chunk)]
    results = workers.map(screen_pairs, chunks, lambda r: _tick(progress, len(r[0])))
    witnesses, rivals, starts = {}, {}, {}
    for lo, (found, left, chunk_rivals) in zip(range(0, len(pairs), chunk), results):
        for c, (x, p) in found.items():
            witnesses[pairs[lo + c]] = ProjectedTieWitness(head, int(I[lo + c]),
                                                           int(J[lo + c]), x, p)
        for c, x in left.items():
            starts[pairs[lo + c]] = x
            rivals[pairs[lo + c]] = chunk_rivals[c]
    return witnesses, rivals, starts


def screen_pairs(head: ExactHead, chunk):
    """One chunk ``(I, J)`` of pairs: tie witnesses on the hyperplanes
    ``(w_i - w_j) . x = 0``, from the Mahalanobis direction of the midpoint,
    ``C^-1 ((w_i + w_j)/2 - mu)`` projected onto the hyperplane. Returns ``(found,
    left, rivals)`` of :func:`verify.analyze.screen.screened_relaxation`."""
    I, J = chunk
    directions = head.mahalanobis()

    def normals(rows) -> np.ndarray:
        v = head.F[I[rows]] - head.F[J[rows]]
        nv = np.linalg.norm(v, axis=1)
        nv[nv == 0] = 1.0
        return v / nv[:, None]

    def starts(cols) -> np.ndarray:
        v = normals(cols)
        x = directions.directions((head.F[I[cols]] + head.F[J[cols]]) / 2)
        return x - v.T * np.sum(x * v.T, axis=0)[None, :]

    from threadpoolctl import threadpool_limits

    # One BLAS thread, in this process as on the workers: with the BLAS threads of the
    # main process (--jobs 1) a few of ddddocr's 11,404 tie points differed from those
    # of --jobs 2 (the same verdicts, other witnesses).
    with threadpool_limits(limits=1, user_api="blas"):
        found, left, rivals = screened_relaxation(head, I, starts, partners=J,
                                                  normals=_Rows(normals),
                                                  rounds=SCREEN_TIE_ROUNDS,
                                                  patience=SCREEN_PATIENCE,
                                                  bits=SCREEN_TIE_BITS)
    return found, left, {c: rivals[c] for c in left}


def decide_pair(head: ExactHead, task):
    """The pair of ``task = (i, j, start, rivals)`` by the per-pair methods."""
    i, j, start, rivals = task
    return _decide_one(head, i, j, start, rivals)


class _Rows:
    """``rows[index]`` computed on demand by a function of the index array."""

    def __init__(self, fn):
        self.fn = fn

    def __getitem__(self, index):
        return self.fn(np.asarray(index, dtype=np.intp))


def _plane_witnesses(head: ExactHead, argmax: ArgmaxAnalysis, pairs: list):
    """Tie points from :func:`perceptron` on the hyperplanes ``(w_i - w_j) . x = 0``."""
    I = np.array([p[0] for p in pairs])
    J = np.array([p[1] for p in pairs])
    V = head.F[I] - head.F[J]
    nv = np.linalg.norm(V, axis=1)
    nv[nv == 0] = 1.0
    V /= nv[:, None]
    X0 = _witness_matrix(argmax, I) + _witness_matrix(argmax, J)
    X0 -= V.T * np.sum(X0 * V.T, axis=0)[None, :]
    won, X, rivals = perceptron(head.F, I, X0, partners=J, normals=V,
                                block=head.perceptron_block())
    cands = [(int(I[c]), int(J[c]), X[:, c]) for c in np.nonzero(won)[0]]
    found = _certify_points(head, cands)
    return (found, {p: rivals[c] for c, p in enumerate(pairs)},
            {p: X[:, c] for c, p in enumerate(pairs)})


def _segment_witnesses(head: ExactHead, argmax: ArgmaxAnalysis, pairs: list) -> dict:
    """Tie witnesses found on the segments between the two labels' own witnesses.

    The ray from ``x_i`` towards ``x_j`` leaves the region of ``i`` through the facet
    shared with some label ``k``; the exit point is a candidate for the pair
    ``(i, k)``, the wanted one when ``k = j``. Scalings of the two witnesses give
    different segments (regions are cones).
    """
    I = np.array([p[0] for p in pairs])
    J = np.array([p[1] for p in pairs])
    cands = _segment_candidates(head, I, J, _witness_matrix(argmax, I),
                                _witness_matrix(argmax, J))
    return _certify_points(head, cands)


#: The tie screen of a large head takes these many open pairs first, spread evenly over
#: them (two of its chunks, one per worker on two cores). If it certifies fewer than
#: ``SEGMENTS_FIRST_BELOW`` of them, the segments go before the screen for the other
#: pairs. A pair the screen fails costs it all ``SCREEN_TIE_ROUNDS`` rounds, one it
#: certifies one or two, and a pair's segments about eight products of the same size;
#: the segments certify about nine in ten of the pairs they are given, so going first
#: they pay when the screen certifies fewer than about three quarters (PP-OCRv5: the
#: screen 48 % of the probe, the segments 93 % of all pairs; on the 50,257 x 768
#: benchmark head the screen certifies almost every pair, and the segments come after).
SEGMENTS_PROBE = 2 * SCREEN_CHUNK
SEGMENTS_FIRST_BELOW = 0.75
#: The segments of :func:`_segment_witnesses`: from ``x_i`` towards ``scale x_j`` and
#: from ``x_j`` towards ``scale x_i`` (regions are cones, so each scaling is another
#: segment between the two regions).
SEGMENT_SCALES = (1.0, 0.25, 4.0)


def _segment_candidates(head: ExactHead, I, J, Xi, Xj) -> list:
    """The exit points of :func:`_segment_witnesses` as candidates ``(i, k, point)``."""
    cands = []
    for scale in SEGMENT_SCALES:
        for src, dst, S, T in ((I, J, Xi, Xj), (J, I, Xj, Xi)):
            rival, point, ok = _ray_exits(head.F, S, T * scale - S, src,
                                          block=_ray_block(head))
            # An exit towards another label than dst is a tie pair too (towards a
            # floor row of a head with a bias, none).
            for c in np.nonzero(ok)[0]:
                i, k = int(src[c]), int(rival[c])
                if k < head.labels:
                    cands.append((i, k, point[:, c]))
    return cands


def _facet_crossings(F: np.ndarray, I, J, Xi, Xj) -> list:
    """Candidates ``(i, j, point)``: where the segments of :func:`_segment_witnesses`
    between the witnesses ``x_i``, ``x_j`` (columns of ``Xi``, ``Xj``) cross the pair's
    own hyperplane ``(f_i - f_j) . x = 0`` with no third label above the two there (in
    floating point). Along ``x(s) = a + s (c b - a)`` every score is
    ``(1 - s) f_k . a + s c f_k . b``, so the two products ``F Xi`` and ``F Xj`` serve
    every segment: no ``n x m`` product per segment, and no search for the first facet
    a segment crosses, only the check of the one that matters."""
    # One row per column of Xi, Xj: the maxima over the head's rows run along
    # contiguous memory, and the pairs still open are a gather of rows.
    MI, MJ = Xi.T @ F.T, Xj.T @ F.T
    # Only the first candidate of a pair is ever checked (_screened_points), so each
    # segment is tried only for the pairs that no segment before gave one.
    open_ = np.arange(I.size)
    buffer = np.empty_like(MI)
    cands = []
    for scale in SEGMENT_SCALES:
        for src, dst, MA, MB, A, B in ((I, J, MI, MJ, Xi, Xj), (J, I, MJ, MI, Xj, Xi)):
            if not open_.size:
                return cands
            rows = np.arange(open_.size)
            if open_.size < I.size:
                src, dst = src[open_], dst[open_]
                MA, MB, A, B = MA[open_], MB[open_], A[:, open_], B[:, open_]
            margin = MA[rows, src] - MA[rows, dst]
            # The slope of the margin along the segment.
            slope = scale * (MB[rows, src] - MB[rows, dst]) - margin
            cross = (margin > 0) & (slope < 0)
            s = np.zeros(rows.size)
            s[cross] = margin[cross] / -slope[cross]
            # The scores at the crossing, (1 - s) MA + s scale MB, in two passes.
            scores = np.multiply(MB, (scale * s)[:, None], out=buffer[:rows.size])
            scores += MA * (1.0 - s)[:, None]
            top = scores[rows, src].copy()
            scores[rows, src] = -np.inf
            scores[rows, dst] = -np.inf
            clear = cross & (scores.max(axis=1) < top)
            point = A + (scale * B - A) * s[None, :]
            cands.extend((int(src[c]), int(dst[c]), point[:, c])
                         for c in np.nonzero(clear)[0])
            open_ = open_[~clear]
    return cands


def _screened_segment_witnesses(head: ExactHead, argmax: ArgmaxAnalysis, pairs: list,
                                workers) -> dict:
    """:func:`_segment_witnesses` for the pairs of a screened head that the pair screen
    left, in chunks of :func:`segment_chunk` pairs (tasks of ``workers``), keeping only
    the exits through the facet of the pair itself. Returns ``{pair: witness}``."""
    tasks = []
    size = segment_chunk(len(pairs))
    for lo in range(0, len(pairs), size):
        chunk = pairs[lo:lo + size]
        tasks.append((chunk, _witness_matrix(argmax, [p[0] for p in chunk]),
                      _witness_matrix(argmax, [p[1] for p in chunk])))
    found: dict = {}
    for part in workers.map(segment_pairs, tasks):
        found.update(part)
    return found


def segment_chunk(m: int) -> int:
    """Pairs per segment task for ``m`` pairs (module constants; a function of ``m``
    alone, so the tasks are the same for any number of workers)."""
    tasks = max(1, min(SEGMENT_TASKS, m // SEGMENT_MIN_CHUNK))
    return max(1, min(SEGMENT_CHUNK, -(-m // tasks)))


def segment_pairs(head: ExactHead, task) -> dict:
    """One chunk ``(pairs, Xi, Xj)`` of :func:`_screened_segment_witnesses`: the
    certified witnesses of those pairs, found on the segments between the columns of
    ``Xi`` and ``Xj`` (the labels' own witnesses, unit float columns)."""
    from threadpoolctl import threadpool_limits

    pairs, Xi, Xj = task
    I = np.array([p[0] for p in pairs], dtype=np.intp)
    J = np.array([p[1] for p in pairs], dtype=np.intp)
    # One BLAS thread, in this process as on the workers: the same floats for any
    # number of jobs.
    with threadpool_limits(limits=1, user_api="blas"):
        found = _screened_points(head, _facet_crossings(head.F, I, J, Xi, Xj))
        # Pairs whose segments left through another facet: the feet of the
        # perpendiculars from the two witnesses onto the pair's hyperplane.
        for S, src, dst in ((Xi, I, J), (Xj, J, I)):
            rest = np.array([c for c, p in enumerate(pairs) if p not in found],
                            dtype=np.intp)
            if rest.size:
                feet = _feet(head.F, S[:, rest], src[rest], dst[rest])
                found.update(_screened_points(head, [
                    (int(src[c]), int(dst[c]), feet[:, r]) for r, c in enumerate(rest)]))
    return found


def _feet(F: np.ndarray, X: np.ndarray, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The feet of the perpendiculars from the columns ``x_c`` of ``X`` onto the
    hyperplanes ``(f_src - f_dst) . x = 0``: where ``src`` and ``dst`` tie nearest to
    ``x_c`` (a tie witness when no third label scores higher there)."""
    V = (F[src] - F[dst]).T
    vv = np.sum(V * V, axis=0)
    vv[vv == 0] = 1.0
    return X - V * (np.sum(V * X, axis=0) / vv)[None, :]


def _decide_one(head: ExactHead, i: int, j: int, start, rivals):
    """One pair: NNLS dependency, then the cutting-plane LP, then the exact simplex."""
    if head.n <= 2:
        return TieWitness(point=tuple(0 for _ in range(head.d)))
    if head.screened:
        point = _cluster_point(head, i, start, partner=j)
        if point is not None:
            return TieWitness(point=point)
        if head.rows_equal(i, j):
            cert = _equal_rows_inside(head, i, j)
            if cert is not None:
                return cert
    A = Differences(head, i, skip=(j,))
    others = A.labels
    equal = head.rows_equal(i, j)
    v = None if equal else head.F[i] - head.F[j]
    # Rows close to the line through w_i and w_j are the likely members of a point of
    # conv(other rows) on that line, which is what a certificate exhibits.
    near = smallest(A.norms(along=v), 2 * head.d + 2)
    cand = list(dict.fromkeys([A.position(k) for k in rivals if k not in (i, j)]
                              + [int(r) for r in near]))
    support = nnls_support(A.take(cand), v)
    if support is not None:
        cert = _motzkin_on_support(head, i, j, [others[cand[r]] for r in support])
        if cert is not None:
            return cert
    proposal = propose_strict(A, v, start=start)
    if proposal is not None:
        kind, value = proposal
        if kind == "point":
            # The screen's check first (one float32 product), the exact one if it fails.
            found = _screened_points(head, [(i, j, value)]) if head.screened else {}
            if (i, j) not in found:
                found = _certify_points(head, [(i, j, value)])
            if (i, j) in found:
                return found[(i, j)]
        else:
            support = [others[r] for r in value]
            cert = _motzkin_on_support(head, i, j, support)
            if cert is not None:
                return cert
    return _exact_pair_int(head, i, j)


def _discover(head: ExactHead, argmax: ArgmaxAnalysis, rays: int, progress=None,
              seed: int = 0) -> dict:
    """Tie pairs found by shooting ``rays`` random rays from every label's witness.

    The random directions come from a fixed seed, so the output is reproducible.
    """
    labels = argmax.argmaxable
    if not labels or rays <= 0 or head.n < 2:
        return {}
    if progress is not None and hasattr(progress, "total"):
        progress.total = (progress.total or 0) + rays * len(labels)
        if hasattr(progress, "set_description"):
            progress.set_description("pairs and rays")
    rng = np.random.default_rng(seed)
    X = _witness_matrix(argmax, labels)
    L = np.array(labels)
    found: dict = {}
    seen: set = set()
    for _ in range(rays):
        U = rng.standard_normal(X.shape)
        rival, point, ok = _ray_exits(head.F, X, U, L, block=_ray_block(head))
        # Certified one round at a time (the exit points of a round are d x labels
        # floats); as before, each pair is tried with the first exit that meets it.
        cands = []
        for c in np.nonzero(ok)[0]:
            i, k = int(L[c]), int(rival[c])
            if k >= head.labels:
                continue  # a floor row of a head with a bias
            key = (min(i, k), max(i, k))
            if key not in seen:
                seen.add(key)
                cands.append((i, k, point[:, c]))
        found.update(_certify_points(head, cands))
        del point, cands
        _tick(progress, len(labels))
    return found


# --- the field engine (square roots) ----------------------------------------------------

def _decide_field(head: FieldHead, argmax: ArgmaxAnalysis, pairs: list, progress) -> dict:
    out = {}
    zero = head.one - head.one
    for i, j in pairs:
        ev = _derived_certificate(head, argmax, i, j)
        if ev is None:
            ev = _exact_pair(head.rows, i, j, head.strict, zero, head.one)
        out[(i, j)] = ev
        _tick(progress, 1)
    return out


# --- entry points -----------------------------------------------------------------------

def tie_pairs(W: HeadInput, argmax: ArgmaxAnalysis | None = None, *,
              pairs: Iterable[tuple[int, int]] | None = None,
              rays_per_label: int | None = None, progress: ProgressBar | None = None,
              workers: Workers | None = None) -> TieAnalysis:
    """Decide which pairs of labels can be tied for the highest probability.

    Parameters
    ----------
    W : rows of exact numbers, or a head from :func:`verify.analyze.head.make_head`.
    argmax : the :class:`ArgmaxAnalysis` of ``W`` (computed if omitted).
    pairs : pairs to decide. Default: all pairs if ``n <= ALL_PAIRS_MAX_LABELS``,
        otherwise none besides those found by ray shooting.
    rays_per_label : rays shot from every argmaxable label to find further tie pairs
        (default: none when all pairs are decided or the head is screened, i.e. has
        at least 2^20 entries, ``RAYS_PER_LABEL`` otherwise).
    progress : an object with ``update(k)`` (a tqdm bar) or None.
    workers : a :class:`verify.analyze.parallel.Workers` for the chunks and single
        pairs of large heads (default: this process).

    Every returned witness and certificate has been checked exactly.
    """
    head = make_head(W)
    if argmax is None:
        argmax = argmaxable_labels(head)
    n = head.labels  # the floor rows of a head with a bias are no labels
    if pairs is None:
        pairs = list(combinations(range(n), 2)) if n <= ALL_PAIRS_MAX_LABELS else []
    wanted = sorted({(min(i, j), max(i, j)) for i, j in pairs if i != j})
    complete = len(wanted) == n * (n - 1) // 2
    if rays_per_label is None:
        # Large heads: 8 rays per label would cost 16 n^2 d multiply-adds.
        rays_per_label = 0 if complete or getattr(head, "screened", False) \
            else RAYS_PER_LABEL
    if progress is not None and hasattr(progress, "total"):
        progress.total = (progress.total or 0) + len(wanted)
        if hasattr(progress, "refresh"):
            progress.refresh()
    if isinstance(head, FieldHead):
        evidence = _decide_field(head, argmax, wanted, progress)
    else:
        evidence = _decide_rational(head, argmax, wanted, progress,
                                    bonus=rays_per_label > 0, workers=workers)
        if rays_per_label and not complete:
            for key, ev in _discover(head, argmax, rays_per_label, progress).items():
                evidence.setdefault(key, ev)
    return TieAnalysis(n=n, evidence=dict(sorted(evidence.items())), complete=complete)


def tie_graph(analysis: TieAnalysis, argmax: ArgmaxAnalysis | None = None,
              names: Sequence[str] | None = None,
              cosines: dict[tuple[int, int], float] | None = None) -> networkx.Graph:
    """The tie graph as a :class:`networkx.Graph`.

    Nodes are the labels ``0 ... n-1`` (attributes ``name`` and ``argmaxable`` when
    known); edges are the certified tie pairs (attribute ``cosine``, a float for
    display, when ``cosines`` maps pairs to values). The graph attribute ``complete``
    says whether every pair was decided (otherwise a missing edge means "not decided
    or cannot tie"; :attr:`TieAnalysis.non_tie_pairs` lists the certified non-edges).
    """
    import networkx as nx

    G = nx.Graph(complete=analysis.complete)
    for i in range(analysis.n):
        attrs = {}
        if names is not None:
            attrs["name"] = names[i]
        if argmax is not None:
            attrs["argmaxable"] = argmax.is_argmaxable(i)
        G.add_node(i, **attrs)
    for i, j in analysis.tie_pairs:
        attrs = {}
        if cosines is not None and (i, j) in cosines:
            attrs["cosine"] = float(cosines[(i, j)])
        G.add_edge(i, j, **attrs)
    return G


#: Characters that XML 1.0 cannot hold, not even escaped (a label name may have them).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def write_graph(G: networkx.Graph, path: str | os.PathLike[str]) -> None:
    """Write ``G`` atomically: GraphML for ``.graphml``, node-link JSON for ``.json``.

    GraphML is XML 1.0, which cannot hold control characters other than tab, newline
    and carriage return: in a node's text attributes (``name``) each is written as its
    escape ``\\xHH`` (node-link JSON keeps every name as it is)."""
    import networkx as nx

    from verify.io.atomic import write_text_atomic

    suffix = str(path).lower().rsplit(".", 1)[-1] if "." in str(path) else ""
    if suffix == "graphml":
        if any(isinstance(v, str) and _NOT_XML.search(v)
               for _, attrs in G.nodes(data=True) for v in attrs.values()):
            G = G.copy()
            for _, attrs in G.nodes(data=True):
                for key, v in attrs.items():
                    if isinstance(v, str):
                        attrs[key] = _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}"
                                                  if ord(m.group()) < 0x100
                                                  else f"\\u{ord(m.group()):04x}", v)
        text = "\n".join(nx.generate_graphml(G)) + "\n"
    elif suffix == "json":
        try:
            data = nx.node_link_data(G, edges="edges")
        except TypeError:  # networkx < 3.4 has no ``edges`` keyword
            data = nx.node_link_data(G)
        text = json.dumps(data, indent=1) + "\n"
    else:
        raise ValueError(f"unknown graph format {suffix or '(none)'!r}; use .graphml or .json")
    write_text_atomic(path, text)
