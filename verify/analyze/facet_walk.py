r"""Witnesses that spread from a label to its neighbours across the facets of its region.

Mathematics
-----------
Let the (lifted) rows of a head be ``f_0, ..., f_{n-1}`` and let ``x`` be a witness for
label ``j``: ``f_j . x > f_k . x`` for every ``k != j``. The set of such ``x`` is an open
polyhedral cone ``N_j``, the normal cone of the vertex ``f_j`` of the hull; two labels
whose rows are joined by an edge of the hull have cones that share a facet, on the
hyperplane ``(f_j - f_k) . x = 0``. For a rival ``k`` with margin
``m = (f_j - f_k) . x > 0`` the point

    ``x' = x - (1 + delta) m / |f_j - f_k|^2 (f_j - f_k)``

is the reflection of ``x`` across that hyperplane, shortened by ``delta``: there
``f_k . x' - f_j . x' = delta m``, so ``k`` beats ``j``. If the foot of the
perpendicular from ``x`` lies in the relative interior of the shared facet (which is
likely for the rivals of smallest normalised margin ``m / |f_j - f_k|``, the facets
nearest to ``x``), then ``x'`` lies in ``N_k`` for ``delta`` small enough: a witness for
``k`` found by one step, where the relaxation method from afar makes no progress
because ``N_k`` is thin.

Trained heads have such labels in numbers: the rows of rare tokens or characters
gather in a dense cloud, whose vertices of the hull have narrow normal cones next to
one another. On PP-OCRv5's recogniser (18,385 x 120 with its bias) the walk decides
2,046 of the 3,770 labels that the screen leaves (measured; docs/analyze.md), each of
which would otherwise have taken a linear program. Its witnesses lie just beyond a
facet, poor ends for the segments of the tie pairs, so the analysis walks only when it
decides no pairs.

Every point found here is a proposal: the crossing points go through the screen of
:func:`verify.analyze.screen.screened_relaxation`, which proves each witness exactly
(float32 products with rigorous bounds, and the exact check where those do not
decide).

Example
-------
>>> import numpy as np
>>> from verify.analyze.head import make_head
>>> head = make_head(np.array([[4, 0], [3, 2], [2, 3], [0, 4], [-4, -4]]))
>>> found = walk_from(head, [(0, (1, 0))], [1, 2, 3])
>>> [k for k, _ in found]
[1, 2, 3]
>>> head.wins([x for _, x in found], [k for k, _ in found])
[True, True, True]
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from verify.numbers.int_vector import IntVector, float_direction

__all__ = ["crossing_points", "walk", "walk_from"]

#: Rivals per source witness whose facets are crossed (those of smallest normalised
#: margin among the labels still undecided).
CROSSINGS = 8
#: The crossing points go ``delta`` of the margin beyond each facet: far enough to
#: survive rounding, and near enough to stay inside a thin cone.
DELTAS = (0.5, 0.05)
#: Rounds of the screen for the crossing points: 1 screens them and stops. (On
#: PP-OCRv5, 4 rounds of the relaxation method from there proved no label that the
#: first round had not, and cost 7 of the per-label stage's 69 CPU seconds.)
WALK_ROUNDS = 1
#: Source witnesses per task; fixed, so that the output does not depend on the
#: number of workers.
WALK_CHUNK = 32
#: Bits of the integer witnesses (as the screen's; they are checked in float32 with
#: rigorous bounds, or exactly).
WALK_POINT_BITS = 16


def _float_point(point: Sequence[int]) -> np.ndarray:
    """An integer point as floats scaled to largest entry about 1 (integers of any
    size: :func:`verify.numbers.int_vector.float_direction`)."""
    x = float_direction(point)
    scale = float(np.abs(x).max()) if x.size else 0.0
    return x / scale if scale > 0 else x


def crossing_points(F: np.ndarray, j: int, x: np.ndarray, pending: np.ndarray,
                    count: int = CROSSINGS, deltas=DELTAS):
    """The crossing points of the module docstring from the witness ``x`` of ``j``.

    ``F`` holds the float rows, ``pending`` the labels to walk to (``j`` excluded).
    Returns ``(labels, X)``: for each of the ``count`` labels ``k`` of ``pending`` of
    smallest normalised margin ``(f_j - f_k) . x / |f_j - f_k|`` and each ``delta``,
    the label ``k`` and the point ``x'`` as a column of ``X``. Labels with no margin
    in floating point (equal rows, or a float tie) are skipped.
    """
    P = np.asarray(pending, dtype=np.intp)
    P = P[P != j]
    if not P.size:
        return np.zeros(0, dtype=np.intp), np.zeros((x.size, 0))
    rows = F[P]
    fj = F[j]
    margins = fj @ x - rows @ x
    sq = np.einsum("ij,ij->i", rows, rows) - 2.0 * (rows @ fj) + float(fj @ fj)
    good = (margins > 0) & (sq > 0)
    P, rows, margins, sq = P[good], rows[good], margins[good], sq[good]
    order = np.argsort(margins / np.sqrt(sq), kind="stable")[:count]
    labels, columns = [], []
    for r in order:
        step = margins[r] / sq[r]
        a = fj - rows[r]
        for delta in deltas:
            labels.append(int(P[r]))
            columns.append(x - (1.0 + delta) * step * a)
    if not columns:
        return np.zeros(0, dtype=np.intp), np.zeros((x.size, 0))
    return np.asarray(labels, dtype=np.intp), np.stack(columns, axis=1)


def walk_from(head, sources, pending) -> list[tuple[int, IntVector]]:
    """Witnesses for labels of ``pending`` from the crossing points of ``sources``.

    ``sources`` lists ``(j, x)``: a label and its witness (integers). The crossing
    points are screened for their labels (:data:`WALK_ROUNDS`), the first of each
    label, then the others of the labels left. Returns ``(k, point)`` for every label reached, with the first witness
    proved for it (in the order of ``sources`` and of the crossings), by label.
    """
    from verify.analyze.screen import screened_relaxation

    pending = np.asarray(sorted(set(int(k) for k in pending)), dtype=np.intp)
    labels, blocks = [], []
    for j, point in sources:
        ks, X = crossing_points(head.F, int(j), _float_point(point), pending)
        labels.append(ks)
        blocks.append(X)
    if not labels or not sum(k.size for k in labels):
        return []
    labels = np.concatenate(labels)
    X = np.concatenate(blocks, axis=1)
    # Two waves: the first crossing point of each label, then the others of the labels
    # it left (several sources of a chunk cross into the same neighbour: on PP-OCRv5
    # 44,976 points for 11,450 labels, of which one point sufficed for most).
    firsts = np.sort(np.unique(labels, return_index=True)[1])  # each label's first point
    first: dict[int, tuple] = {}
    wave = firsts
    for _ in range(2):
        if not wave.size:
            break
        found, _, _ = screened_relaxation(head, labels[wave],
                                          lambda cols, wave=wave: X[:, wave[cols]],
                                          rounds=WALK_ROUNDS, bits=WALK_POINT_BITS)
        for c in sorted(found):
            first.setdefault(int(labels[wave[c]]), IntVector(found[c]))
        rest = np.ones(labels.size, dtype=bool)
        rest[firsts] = False
        wave = np.flatnonzero(rest & ~np.isin(labels, list(first)))
    return sorted(first.items())


def walk_task(head, task) -> list[tuple[int, IntVector]]:
    """:func:`walk_from` for ``task = (sources, pending)`` (a task of
    :class:`verify.analyze.parallel.Workers`)."""
    sources, pending = task
    return walk_from(head, sources, pending)


def walk(head, sources, pending, workers=None) -> list[tuple[int, IntVector]]:
    """:func:`walk_from` in fixed chunks of :data:`WALK_CHUNK` sources (on ``workers``
    if given); a label reached from several chunks keeps the witness of the first."""
    sources = sorted(sources)
    pending = np.asarray(sorted(set(int(k) for k in pending)), dtype=np.intp)
    tasks = [(sources[lo:lo + WALK_CHUNK], pending)
             for lo in range(0, len(sources), WALK_CHUNK)]
    results = (workers.map(walk_task, tasks) if workers is not None
               else [walk_task(head, task) for task in tasks])
    first: dict[int, tuple] = {}
    for result in results:
        for k, point in result:
            first.setdefault(k, point)
    return sorted(first.items())
