r"""Witnesses for labels with near-duplicate rows: a shared top point, then a small push.

Why
---
The float32 screen of :mod:`verify.analyze.screen` proves a witness only when every
margin exceeds its rounding bound, about ``2 (d + 2) 2^-24`` relative to the scores. A
label ``i`` whose row has a *near duplicate* ``w_k`` (``|w_i - w_k|`` a millionth of
``|w_i|``, as after a few updates of a rarely seen token) beats it by a margin of that
order at best, so at ``d >= 256`` the screen cannot settle it, and the cutting-plane
linear program, which must separate two almost parallel constraints, takes minutes at
``d = 768``. This module builds such witnesses directly.

Mathematics
-----------
Let ``K`` be the *cluster* of ``i``: the labels whose rows are within a relative
``NEAR_RELATIVE`` of ``w_i`` (and, for a tie witness of ``(i, j)``, of ``w_j``), and
``j`` itself. Write ``V`` for the matrix of the distinct non-zero rows ``z_i - z_k``,
``k`` in ``K``, of the exact integer head ``Z``, and ``b`` for the vector with ``b_k = 1``
(``b_j = 0`` for the partner of a tie). Suppose

* ``x_0`` is an integer point with ``V x_0 = 0`` at which every row of the cluster
  scores strictly above every row outside it (``z_i . x_0 > z_l . x_0``, ``l`` not in
  ``K + {i}``), and
* ``u`` is an integer point with ``V u = c b`` for some ``c > 0``.

Then for every large enough integer ``N`` the point ``x = N x_0 + u`` is a witness:
``(z_i - z_k) . x = c b_k`` is positive for the cluster (zero for the partner ``j``),
and for a row ``l`` outside ``N (z_i - z_l) . x_0 + (z_i - z_l) . u > 0`` as soon as
``N`` exceeds ``|(z_i - z_l) . u| / (z_i - z_l) . x_0``. Such a ``u`` exists iff the
rows of ``V`` are linearly independent; it is found exactly on ``|K|`` pivot coordinates
``P`` with ``V_P`` non-singular (``u_P = V_P^-1 b``, scaled to integers).

``x_0`` comes from a float point at which the cluster is on top (the screen's last
point, or the Mahalanobis direction of ``w_i``): it is projected onto ``V x = 0`` in the
whitened metric, rounded to integers ``X``, and moved exactly onto the subspace on the
pivot coordinates, ``x_0 = D (X - e_P V_P^-1 V X)`` with ``D`` the least positive
integer that clears the denominators (for one row this is the move of
:func:`verify.analyze.screen.tie_point`).

Nothing here is a verdict on its own: :func:`cluster_witness` returns ``x`` only after
the exact check :meth:`verify.analyze.head.ExactHead.wins` has accepted it (the
float64 error bound with the exact integer fallback; the cluster's margins, far below
the float bound, are computed in Python integers there). When a step fails (``V``
degenerate, the cluster not on top at ``x_0``, the check), it returns None and the
caller goes on with its other methods (NNLS, the cutting-plane LP, the exact simplex).
Measured on the synthetic heads of ``benchmarks/bench_analyze_scale.py``: about 0.1 s
per label at ``d = 256`` and 0.4 s at ``d = 768`` (the LP took 30 s and more than
15 minutes).

Example
-------
>>> import numpy as np
>>> from verify.analyze.head import make_head
>>> W = np.array([[4, 0], [0, 4], [-4, 0], [0, -4], [4, 0]], dtype=np.int64) << 20
>>> W[4, 1] = 1  # w_4 = w_0 + (0, 1): a near duplicate, a relative 2^-22 away
>>> head = make_head(W)
>>> near_labels(head, 4)
[0]
>>> x = cluster_witness(head, 4, [0], np.array([1.0, 0.5]))
>>> head.wins([x], [4]), x[1] > 0
([True], True)
"""

from __future__ import annotations

from math import gcd

import numpy as np
from flint import fmpq, fmpq_mat, fmpz_mat

from verify.linalg.exact import primitive_integer_row

__all__ = ["NEAR_RELATIVE", "MAX_CLUSTER", "near_labels", "cluster_witness"]

#: Rows within this relative distance of ``w_i`` form its cluster (the float32 bound
#: is about ``2 (d + 2) 2^-24``, ``10^-4`` at ``d = 768``; farther rows are screened).
NEAR_RELATIVE = 2.0 ** -12
#: Largest cluster tried (the nearest rows first).
MAX_CLUSTER = 16
#: Attempts with ever larger ``N`` (each a factor ``2^16`` above the last).
PUSH_ATTEMPTS = 3


def near_labels(head, i: int, relative: float = NEAR_RELATIVE,
                limit: int = MAX_CLUSTER) -> list[int]:
    """The labels ``k != i`` with ``|f_k - f_i| <= relative |f_i|`` (float rows ``F``),
    nearest first, at most ``limit`` of them; equal rows included.

    One product ``F f_i``; ``|f_k - f_i|^2`` is formed from it, and its cancellation
    error (a relative ``10^-16`` of ``|f|^2``) is far below ``relative^2``. Only a
    choice of candidates: nothing is decided from it.
    """
    F = head.F
    fi = F[i]
    sq = head.row_norms() ** 2
    dist = sq - 2.0 * (F @ fi) + float(fi @ fi)
    dist[i] = np.inf
    radius = (relative ** 2) * float(fi @ fi)
    close = np.flatnonzero(dist <= radius)
    close = close[np.argsort(dist[close], kind="stable")][:limit]
    return [int(k) for k in close]


def near_label_lists(head, labels, relative: float = NEAR_RELATIVE,
                     limit: int = MAX_CLUSTER) -> list[list[int]]:
    """:func:`near_labels` of every label of ``labels``, by one matrix product per
    block of labels (one product ``F f_i`` per label streams all rows from memory for
    a single column). The floats may differ from those of :func:`near_labels` in the
    last bits: a choice of candidates, like it."""
    labels = list(labels)
    F = head.F
    sq = head.row_norms() ** 2
    step = head.budget.columns(16 * head.n, limit=256)
    out: list[list[int]] = []
    for lo in range(0, len(labels), step):
        block = np.asarray(labels[lo:lo + step], dtype=np.intp)
        # One row per label of the block: each label's distances are contiguous.
        D = F[block] @ F.T
        D *= -2.0
        D += sq[None, :]
        D += sq[block][:, None]
        for c, i in enumerate(block):
            dist = D[c]
            dist[i] = np.inf
            close = np.flatnonzero(dist <= (relative ** 2) * float(sq[i]))
            close = close[np.argsort(dist[close], kind="stable")][:limit]
            out.append([int(k) for k in close])
    return out


def _differences(head, i: int, labels) -> tuple[list[int], list[tuple]]:
    """The labels of ``labels`` whose rows differ from ``z_i`` and from each other's
    differences, with the rows ``z_i - z_k`` (Python integers)."""
    zi = head.Z[i]
    kept, rows, seen = [], [], set()
    for k in labels:
        v = tuple(a - b for a, b in zip(zi, head.Z[k]))
        if any(v) and v not in seen:
            seen.add(v)
            kept.append(k)
            rows.append(v)
    return kept, rows


def _pivots(V: np.ndarray) -> list[int] | None:
    """``m`` columns where the float rows ``V`` are best conditioned (QR with column
    pivoting), or None when ``V`` has fewer columns than rows."""
    from scipy.linalg import qr

    m, d = V.shape
    if m > d:
        return None
    scale = np.abs(V).max(axis=1, keepdims=True)
    scale[scale == 0] = 1.0
    _, _, perm = qr(V / scale, mode="economic", pivoting=True)
    return sorted(int(c) for c in perm[:m])


def _primitive(values) -> tuple:
    """The positive multiple of a rational vector with coprime integer entries."""
    return tuple(primitive_integer_row([fmpq(v) for v in values]))


def _on_subspace(rows, pivots, inverse, X) -> tuple | None:
    """``X - e_P V_P^-1 (V X)`` scaled to coprime integers: exactly ``V x = 0``."""
    r = fmpq_mat([[sum(a * int(b) for a, b in zip(row, X))] for row in rows])
    delta = inverse * r
    point = [fmpq(int(v)) for v in X]
    for s, c in enumerate(pivots):
        point[c] -= delta[s, 0]
    out = _primitive(point)
    return out if any(out) else None


def _whitened_projection(head, V: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``x - P V^T (V P V^T)^-1 V x`` (``P`` the head's inverse covariance): the point of
    ``V y = 0`` nearest to ``x`` in the whitened metric (floats, a proposal)."""
    P = head.mahalanobis().precision
    PV = P @ V.T
    coeff, *_ = np.linalg.lstsq(V @ PV, V @ x, rcond=None)
    return x - PV @ coeff


def cluster_witness(head, i: int, cluster, start, partner: int | None = None,
                    bits: int = 20):
    """A witness ``x = N x_0 + u`` for label ``i`` (a tie witness with ``partner``),
    checked exactly, or None; see the module docstring.

    ``cluster`` lists the labels to be beaten by a hair, ``start`` a float point at
    which they, ``i`` (and ``partner``) score above every other label. The point is
    returned only when :meth:`~verify.analyze.head.ExactHead.wins` accepts it.
    """
    x = np.asarray(start, dtype=np.float64)
    if not (np.all(np.isfinite(x)) and np.any(x)):
        return None
    members = [k for k in dict.fromkeys(cluster) if k not in (i, partner)]
    if partner is not None:
        members.append(partner)
    labels, rows = _differences(head, i, members)
    if not labels:  # only rows equal to w_i: any point where they lead
        scaled = np.rint(x * (2.0 ** bits / float(np.abs(x).max())))
        return _checked(head, i, partner, [_primitive([int(v) for v in scaled])])
    V = head.F[i][None, :] - head.F[labels]
    pivots = _pivots(V)
    if pivots is None:
        return None
    M = fmpz_mat([[row[c] for c in pivots] for row in rows])
    if M.det() == 0:
        return None
    inverse = fmpq_mat(M).inv()
    y = _whitened_projection(head, V, x)
    top = float(np.abs(y).max())
    if not (np.isfinite(top) and top > 0):
        return None
    x0 = _on_subspace(rows, pivots, inverse, np.rint(y * (2.0 ** bits / top)))
    if x0 is None:
        return None
    u_pivots = inverse * fmpq_mat([[0 if k == partner else 1] for k in labels])
    u = [0] * head.d
    for s, c in enumerate(pivots):
        u[c] = u_pivots[s, 0]
    return _checked(head, i, partner, _pushed(head, i, partner, members, x0, _primitive(u)))


def _checked(head, i: int, partner, candidates: list) -> tuple | None:
    """The first candidate that the exact check accepts, or None."""
    if not candidates or not any(map(any, candidates)):
        return None
    k = len(candidates)
    verdicts = head.wins(candidates, [i] * k,
                         partners=None if partner is None else [partner] * k)
    return next((x for x, ok in zip(candidates, verdicts) if ok), None)


def _pushed(head, i, partner, cluster, x0, u) -> list[tuple]:
    """``N x_0 + u`` for a few powers of two ``N``, the first one that the float scores
    say is large enough for every label outside the cluster (proposals)."""
    x0f = _scaled_float(x0)
    uf = _scaled_float(u)
    s0 = head.F @ x0f[0]
    su = head.F @ uf[0]
    outside = np.ones(head.n, dtype=bool)
    outside[[i, *cluster]] = False
    if partner is not None:
        outside[partner] = False
    m0 = (s0[i] - s0)[outside]
    mu = (su[i] - su)[outside]
    if m0.size and not np.all(m0 > 0):
        return []
    # x0 and u were scaled by 2^-e0 and 2^-eu: N x0 + u in those units.
    ratio = float(np.max(np.maximum(-mu, 0.0) / m0)) if m0.size else 0.0
    shift = uf[1] - x0f[1] + max(0, int(np.ceil(np.log2(ratio + 1.0)))) + 16
    candidates = []
    for attempt in range(PUSH_ATTEMPTS):
        n_bits = max(0, shift + 16 * attempt)
        point = tuple((a << n_bits) + c for a, c in zip(x0, u))
        g = gcd(*point)
        candidates.append(tuple(v // g for v in point) if g > 1 else point)
    return candidates


def _scaled_float(point) -> tuple[np.ndarray, int]:
    """A float copy of an integer point divided by ``2^e`` (entries below ``2^53``)."""
    top = max(abs(v) for v in point).bit_length()
    e = max(0, top - 53)
    return np.array([float(v >> e) for v in point]), e
