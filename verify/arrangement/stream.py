"""Sign patterns in sorted order, bucket by bucket, in memory bounded by a budget.

:func:`~verify.arrangement.sign_pattern.sign_pattern` composes every cocircuit at once
and deduplicates all candidate topes together, so its memory grows with the number of
cells (about 2 KB per cell). Here the same topes, with the same witnesses, come out in
blocks, in the order of their sign strings, and no block depends on more than a budget.

Mathematics
-----------
Let ``H`` be the essential arrangement of the distinct hyperplanes, each normal oriented
like the first row of ``M`` on it, so that the sign string of a cell is ordered like
its sign vector ``T`` over ``H`` (``+`` before ``-``, hyperplanes in order of first
appearance; the other rows repeat earlier characters).

1. (Buckets.) For a prefix ``p`` (signs of the first ``b`` hyperplanes) the cells with
   ``T[:b] = p`` are exactly the compositions ``Y o T'`` (:mod:`.cocircuits`, step 2)
   with ``T[:b] = p`` over the signed cocircuits ``Y`` *conforming to* ``p``
   (``Y_i in {0, p_i}`` for ``i < b``): every vertex of such a cell conforms to it, hence
   to ``p``. So each bucket sees all the vertices of its cells, and the witness (the sum
   of the vertex vectors, :mod:`.cocircuits`, step 3) is the same as if every cell were
   computed at once. Distinct prefixes of a prefix-free set partition the cells: no
   bucket shares a cell with another, so nothing is merged but the order. A cocircuit
   that is zero on some of the first ``b`` hyperplanes belongs to several buckets;
   each asks its restriction only for the topes ``T'`` that agree with its prefix
   there, so that the restriction's work is divided among the buckets, not repeated;
   what a flat's restriction needs from the chirotope (its cocircuits, their sign
   masks) depends on the flat alone and, from rank 6 on, is kept across buckets within
   a byte budget (:class:`~verify.arrangement.oriented_matroid.FlatMemo`).
2. (Budget.) A bucket is split at the next hyperplane (a cocircuit that is zero there
   goes to both halves) while the number of candidate topes it may produce, bounded
   by ``2^(r-1)`` per cocircuit with ``r - 1`` zeros and by the generic count
   (Zaslavsky) otherwise, exceeds the budget. The split depends only on the input.
3. (Symmetry.) ``-T`` is a cell iff ``T`` is, with the negated witness. Only prefixes
   starting with ``+`` are computed; the cells starting with ``-`` are the same buckets
   negated, met in mirrored order, each bucket's rows reversed (negation reverses the
   order of sign vectors).

The buckets are pure functions of ``(H, cocircuits, prefix)``, which is what lets
:func:`sign_pattern_blocks` run them in worker processes and still write the same bytes
for any number of workers.

Example
-------
>>> blocks = sign_pattern_blocks([[1, 0], [0, 1], [1, 1]])
>>> [(signs.tolist(), points.tolist()) for signs, points in blocks][0]
([[1, 1, 1], [1, -1, 1], [1, -1, -1]], [[1, 1], [2, -1], [1, -2]])
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from verify.arrangement.cocircuits import (
    IntegerChirotope,
    _primitive_rows,
    _safe_dtype,
    cocircuits,
    generic_tope_count,
)
from verify.arrangement.oriented_matroid import _bit_words, compose, distinct_keys
from verify.linalg.exact import column_basis, group_parallel_rows, primitive_integer_row, to_fmpq_rows

#: Candidate topes (a bound) a bucket may produce before it is split.
BUDGET = 200_000


@dataclass
class Reduced:
    """``M`` reduced to an essential arrangement of oriented, distinct hyperplanes.

    ``H`` (``K x r``) has the normals of the distinct hyperplanes, each oriented like
    the first row of ``M`` on it; row ``i`` of ``M`` is ``H[plane[i]]`` times
    ``sign[i]`` (a positive factor aside) in the coordinates ``basis`` of ``R^k``.
    ``zero_rows`` lists the zero rows (then the pattern is empty).
    """

    rows: list
    ints: list
    H: np.ndarray
    plane: np.ndarray
    sign: np.ndarray
    basis: list
    k: int
    zero_rows: list

    @property
    def rank(self) -> int:
        return len(self.basis)

    def lift(self, T: np.ndarray, points: np.ndarray):
        """Signs over the rows of ``M`` and witnesses in ``R^k`` of topes ``T`` of ``H``."""
        signs = T[:, self.plane] * self.sign
        Z = np.zeros((len(points), self.k), dtype=points.dtype)
        Z[:, self.basis] = points
        return signs, Z


def reduce_matrix(M) -> Reduced:
    """The reduction of :mod:`verify.arrangement.sign_pattern` (primitive rows, a column
    basis, parallel rows merged), with each hyperplane oriented like its first row."""
    rows = to_fmpq_rows(M)
    k = len(rows[0]) if rows else 0
    ints = [primitive_integer_row(row) for row in rows]
    zero_rows = [i for i, row in enumerate(ints) if not any(row)]
    if zero_rows or not rows:
        empty = np.zeros((0, 0), dtype=np.int64)
        return Reduced(rows, ints, empty, np.zeros(0, dtype=np.intp),
                       np.zeros(0, dtype=np.int8), [], k, zero_rows)
    basis = column_basis(ints)
    planes = group_parallel_rows([[row[j] for j in basis] for row in ints])
    of_row = np.array(planes.of_row, dtype=np.intp)
    orientation = np.array(planes.orientation, dtype=np.int8)
    first = np.array([planes.of_row.index(c) for c in range(len(planes.normals))])
    facing = orientation[first]          # orientation of the first row of each plane
    H = np.array(planes.normals, dtype=object) * facing[:, None].astype(object)
    return Reduced(rows, ints, _safe_dtype(H), of_row,
                   (orientation * facing[of_row]).astype(np.int8), basis, k, zero_rows)


def sign_pattern_blocks(M, *, witnesses: bool = True, budget: int = BUDGET,
                        jobs: int = 1, scheduler: str | None = None,
                        reduced: Reduced | None = None) -> Iterator:
    """The cells of ``S(M)`` in the order of their sign strings, in blocks.

    Yields ``(signs, points)``: ``int8`` rows over the rows of ``M`` in {-1, +1} and
    integer witnesses (``int64`` or Python integers) with ``sign(M z) = signs``, checked
    exactly for every block; ``points`` is ``None`` when ``witnesses`` is false. The
    concatenated blocks are the cells of :func:`~verify.arrangement.sign_pattern.
    sign_pattern`, in its order, with its witnesses. ``jobs`` worker processes (or the
    Dask ``scheduler``, as in the sweeps) compute the buckets; the output is the same
    for any ``jobs``.
    """
    R = reduce_matrix(M) if reduced is None else reduced
    if R.zero_rows or not R.rows:
        return
    K, r = R.H.shape
    if r == 1:
        # All rows on one hyperplane: two half-lines.
        T = np.array([[1], [-1]], dtype=np.int8)
        s = 1 if R.H[0, 0] > 0 else -1
        yield _finish(R, T, np.array([[s], [-s]], dtype=np.int64), witnesses)
        return
    Y, V = cocircuits(R.H)
    plan = list(_plan(Y, r, budget))
    tasks = ((R.H, Y[idx] * sigma[:, None], V[idx] * sigma[:, None].astype(V.dtype),
              prefix, witnesses) for prefix, idx, sigma in plan)
    with tempfile.TemporaryDirectory(prefix="verify-pattern-") as spool:
        for number, (T, points) in enumerate(_ordered_map(bucket_topes, tasks, jobs,
                                                          scheduler)):
            _save(spool, number, T, points)
            yield _finish(R, T, points, witnesses)
        # The cells starting with '-': buckets negated, in mirrored order, reversed.
        for number in sorted(range(len(plan)), key=lambda m: list(plan[m][0])):
            T, points = _load(spool, number)
            yield _finish(R, -T[::-1], None if points is None else -points[::-1],
                          witnesses)


def count_cells(M, **options) -> int:
    """``|S(M)|`` from the buckets, without witnesses."""
    R = reduce_matrix(M)
    if R.zero_rows or not R.rows:
        return 0
    total = 0
    for signs, _ in sign_pattern_blocks(M, witnesses=False, reduced=R, **options):
        total += len(signs)
    return total


def bucket_topes(H: np.ndarray, Y: np.ndarray, V: np.ndarray, prefix: tuple,
                 witnesses: bool):
    """The topes ``T`` of ``H`` with ``T[:b] = prefix``, from the signed cocircuits ``Y``
    conforming to ``prefix`` (with their vectors ``V``), sorted ('+' first).

    Returns ``(T, points)``: ``int8`` topes and primitive integer witnesses (``None``
    unless ``witnesses``).
    """
    K, r = H.shape
    b = len(prefix)
    fixed = np.zeros(K, dtype=np.int8)
    fixed[:b] = prefix
    # Only the restrictions' topes that agree with the prefix (step 1): the work of a
    # cocircuit met by several buckets is divided among them, not repeated.
    cand, vertex = compose(IntegerChirotope(H), Y, np.arange(K, dtype=np.int64), r, (),
                           fixed)
    keep = (cand[:, :b] == np.array(prefix, dtype=np.int8)).all(axis=1)
    cand, vertex = cand[keep], vertex[keep]
    # Packed keys of the rows negated (their '-' masks) order '+' first, as the sign
    # strings; topes have no zeros, so the keys are the rows.
    first, group = distinct_keys(_bit_words(cand < 0))
    T = cand[first]
    del cand
    if not witnesses:
        return T, None
    by_group = np.argsort(group, kind="stable")
    starts = np.searchsorted(group[by_group], np.arange(len(T)))
    gens = V[vertex[by_group]]
    points = np.add.reduceat(gens, starts, axis=0) if len(T) else gens[:0]
    return T, _primitive_rows(points)


def _plan(Y: np.ndarray, r: int, budget: int):
    """The buckets ``(prefix, cocircuit rows, their signs)`` of the '+' half, in order."""
    zeros = (Y == 0).sum(axis=1)
    bound = np.array([1 << (r - 1) if z == r - 1 else generic_tope_count(max(int(z), 1), r - 1)
                      for z in range(Y.shape[1] + 1)], dtype=np.float64)
    weight = bound[zeros]
    # Y is normalised (first non-zero entry +1), so Y[l, 0] is 0 or +1.
    idx = np.concatenate([np.arange(len(Y)), np.nonzero(Y[:, 0] == 0)[0]])
    sigma = np.concatenate([np.ones(len(Y), dtype=np.int8),
                            -np.ones(len(idx) - len(Y), dtype=np.int8)])
    stack = [((1,), idx, sigma)]
    while stack:
        prefix, idx, sigma = stack.pop()
        b = len(prefix)
        if weight[idx].sum() <= budget or b == Y.shape[1]:
            yield prefix, idx, sigma
            continue
        y = Y[idx, b] * sigma
        children = []
        for s in (1, -1):
            mine = y != -s
            children.append((prefix + (s,), idx[mine], sigma[mine]))
        stack.extend(reversed(children))   # '+' child first


def _finish(R: Reduced, T: np.ndarray, points, witnesses: bool):
    signs = T[:, R.plane] * R.sign
    if not witnesses:
        return signs, None
    from verify.arrangement.sign_pattern import _check_witnesses

    _, Z = R.lift(T, points)
    _check_witnesses(R.ints, signs, Z)
    return signs, Z


def _save(spool: str, number: int, T: np.ndarray, points) -> None:
    np.save(os.path.join(spool, f"{number}.T.npy"), np.packbits(T > 0, axis=1))
    if points is not None:
        np.save(os.path.join(spool, f"{number}.z.npy"), points, allow_pickle=True)
    with open(os.path.join(spool, f"{number}.K"), "w") as handle:
        handle.write(str(T.shape[1]))


def _load(spool: str, number: int):
    with open(os.path.join(spool, f"{number}.K")) as handle:
        K = int(handle.read())
    bits = np.unpackbits(np.load(os.path.join(spool, f"{number}.T.npy")), axis=1,
                         count=K)
    T = np.where(bits == 1, 1, -1).astype(np.int8)
    path = os.path.join(spool, f"{number}.z.npy")
    points = np.load(path, allow_pickle=True) if os.path.exists(path) else None
    for name in (f"{number}.T.npy", f"{number}.z.npy", f"{number}.K"):
        if os.path.exists(os.path.join(spool, name)):
            os.remove(os.path.join(spool, name))
    return T, points


def _ordered_map(fn, tasks, jobs: int, scheduler: str | None):
    """``fn(*task)`` for every task, in order; at most ``2 jobs`` tasks in flight."""
    if scheduler:
        from verify.io.distributed import ordered_on_dask

        yield from ordered_on_dask(scheduler, fn, tasks, jobs=jobs)
        return
    if jobs <= 1:
        for task in tasks:
            yield fn(*task)
        return
    import multiprocessing
    import sys
    from collections import deque

    ctx = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    with ctx.Pool(jobs) as pool:
        pending = deque()
        for task in tasks:
            pending.append(pool.apply_async(fn, task))
            if len(pending) >= 2 * jobs:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()
