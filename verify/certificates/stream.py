"""Streamed ranking-pattern certificates (``verify-certificate-stream/1``), written in
memory bounded by a budget, for patterns with millions of cells.

The format and the proof are in ``docs/certificates.md`` ("Streamed ranking-pattern
certificates"); the checker is :mod:`verify.checker.stream`. The file is JSON Lines: a
header with the input, the cells (the lines of ``pattern --format jsonl``, sorted by
sign string), the refuted sign vectors (sorted, each once) and a last line with the
count.

Mathematics
-----------
A flip of a ranking ``σ`` at a class of parallel rows of ``B_n V`` that is again a strict
total order contains a pair adjacent in ``σ``; every other flip has a 3-cycle and is
refuted by the multipliers ``1, 1, 1``, which the checker knows without being told. So
the writer looks only at the flips of each cell at the classes of its ``n - 1`` adjacent
pairs (a swap of two neighbours when the class is one pair):

1. The cells come from :func:`verify.arrangement.stream.sign_pattern_blocks`, in the
   order of their sign strings, and are written as they come. Their flips that are
   orders go to sorted runs on disk (:class:`_Runs`), at most :data:`RUN` at a time.
2. The runs are merged with the listed sign vectors (both sorted); a flip that is not
   listed is not a cell (the list is complete), so its orthant is empty.
3. For such a ranking ``τ``, Gordan's theorem gives ``y >= 0``, not all zero, with
   ``Σ_p y_p (v_{τ_p} - v_{τ_{p+1}}) = 0`` on its chain rows (the orthant of ``τ`` is cut
   out by them). ``scipy.optimize.nnls`` proposes ``y`` in floating point (the least
   ``|Σ y_p u_p|`` with ``Σ y_p = 1``); the exact multipliers are the integer kernel of
   the proposed support (python-flint), accepted only if one-dimensional and of one
   sign, and otherwise found by the exact LP oracle
   :func:`verify.lp.feasibility.strict_feasibility`. The checker re-checks them all.

Memory holds one block of cells, one run and a chunk of each run while merging, so it
does not grow with the number of cells. The file is written atomically
(:func:`verify.io.atomic.open_atomic`) and is the same for the same input and any
``jobs``.

Example
-------
>>> import os, tempfile
>>> from verify.checker.stream import check_stream_file
>>> path = os.path.join(tempfile.mkdtemp(), "square.cert.jsonl")
>>> write_ranking_certificate(path, [[0, 0], [3, 0], [0, 3], [1, 1]], affine=True)
{'cells': 12, 'refutations': 12}
>>> check_stream_file(path)
'ranking pattern, 12 cells, complete (streamed; 12 refutations)'
"""

from __future__ import annotations

import heapq
import json
import os
import tempfile
from contextlib import contextmanager
from itertools import combinations
from math import gcd, lcm

import numpy as np
from flint import fmpq, fmpz_mat

from verify.arrangement.ranking_pattern import braid_product
from verify.arrangement.stream import _ordered_map, sign_pattern_blocks
from verify.certificates.writers import _gordan_multipliers
from verify.io.atomic import open_atomic
from verify.io.pattern_output import rankings_of, sign_text, write_jsonl
from verify.linalg.exact import group_parallel_rows, primitive_integer_row, to_fmpq_rows
from verify.numbers.rational import format_rational

__all__ = ["FORMAT", "write_ranking_certificate", "ranking_certificate", "refutation_lines"]

FORMAT = "verify-certificate-stream/1"

#: Flips sorted in memory at a time before they go to a run on disk.
RUN = 1 << 19

#: Rankings refuted per task (a task of ``jobs`` worker processes).
BATCH = 4096

#: Cells whose flips are formed at a time.
SLICE = 1 << 15

#: Records of a run read at a time while merging.
CHUNK = 1 << 13


def write_ranking_certificate(path, W, *, affine: bool, jobs: int = 1,
                              scheduler: str | None = None) -> dict:
    """Write the streamed certificate of ``R(W)`` to ``path`` (atomically).

    Parameters
    ----------
    path : the file to write.
    W : rows of exact rationals (int / Fraction / fmpq), ``n x d`` with ``n, d >= 1``.
    affine : prepend a column of ones (the point configuration ``[1 | W]``).
    jobs, scheduler : worker processes (or a Dask scheduler) for the enumeration and the
        refutations, as in :func:`~verify.arrangement.stream.sign_pattern_blocks`; the
        file is the same for any value.

    Returns ``{"cells": count, "refutations": count}``.
    """
    with ranking_certificate(path, W, affine=affine, jobs=jobs,
                             scheduler=scheduler) as certificate:
        if certificate.needs_cells:
            for _ in certificate.tap(sign_pattern_blocks(certificate.M, jobs=jobs,
                                                         scheduler=scheduler)):
                pass
    return certificate.written


@contextmanager
def ranking_certificate(path, W, *, affine: bool, jobs: int = 1,
                        scheduler: str | None = None):
    """The streamed certificate of ``R(W)``, written from cells that pass through.

    Yields a :class:`_CertificateStream`: if its ``needs_cells`` is true, the blocks of
    :func:`~verify.arrangement.stream.sign_pattern_blocks` of its ``M`` (``B_n V``) must go
    through :meth:`~_CertificateStream.tap`, which writes them and hands them on, so
    that another output can be made from the same enumeration. The refutations and the
    last line are written when the ``with`` block ends (``written`` then has the counts);
    on an exception nothing is written. Parameters as in
    :func:`write_ranking_certificate`.
    """
    rows = to_fmpq_rows(W)
    if not rows or not rows[0] or any(len(row) != len(rows[0]) for row in rows):
        raise ValueError("W must be a non-empty rectangular matrix with at least one column")
    V = [[fmpq(1)] + row for row in rows] if affine else rows
    header = {"format": FORMAT, "claim": "ranking pattern",
              "input": {"W": [[format_rational(a) for a in row] for row in rows],
                        "affine": bool(affine)}}
    with open_atomic(path) as out, \
            tempfile.TemporaryDirectory(prefix="verify-certificate-") as spool:
        out.write(_line(header))
        certificate = _CertificateStream(out, spool, V)
        try:
            yield certificate
            certificate.finish(jobs, scheduler)
        finally:
            certificate.close()


class _CertificateStream:
    """The cells of the certificate as they come (steps 1 and 2 of the module docstring),
    then the refutations (step 3)."""

    def __init__(self, out, spool: str, V):
        self.out, self.V = out, V
        self.n, self.M = len(V), braid_product(V)
        self.zero = next((r for r, row in enumerate(self.M) if not any(row)), None)
        self.needs_cells = self.zero is None and self.n > 1
        self.count, self.complete, self.written = 0, False, None
        if self.needs_cells:
            self.flips = _AdjacentFlips(self.M, self.n)
            self.runs = _Runs(spool, self.flips.width)
            self.listed = os.path.join(spool, "listed")
            self.keys = open(self.listed, "wb")

    def tap(self, blocks):
        """Write every block ``(signs, witnesses)`` as its cell lines and yield it on."""
        for signs, Z in blocks:
            self.count += write_jsonl(self.out, [(signs, Z)], kind="ranking", n=self.n)
            for start in range(0, len(signs), SLICE):
                part = signs[start:start + SLICE]
                packed = np.packbits(part < 0, axis=1)
                self.keys.write(packed.tobytes())
                self.runs.add(self.flips.of(packed, rankings_of(part, self.n)))
            yield signs, Z
        self.complete = True

    def close(self) -> None:
        if self.needs_cells:
            self.keys.close()

    def finish(self, jobs: int, scheduler: str | None) -> None:
        out = self.out
        if self.zero is not None:
            out.write(_line({"assertion": {"count": 0}, "evidence": {"zero_row": self.zero}}))
            self.written = {"cells": 0, "refutations": 0}
            return
        if self.n == 1:  # no rows: the one ranking [0]
            out.write(_line({"signs": "", "witness": ["0"] * len(self.V[0]),
                             "ranking": [0]}))
            out.write(_line({"assertion": {"count": 1}}))
            self.written = {"cells": 1, "refutations": 0}
            return
        if not self.complete:
            raise AssertionError("internal error: the certificate did not receive every "
                                 "cell of the pattern")
        self.keys.close()
        missing = _not_listed(self.runs.merged(), _records(self.listed, self.flips.width))
        integers = _integer_rows(self.V)
        tasks = ((np.frombuffer(b"".join(batch), dtype=np.uint8)
                  .reshape(len(batch), self.flips.width), integers)
                 for batch in _batches(missing, BATCH))
        refuted = 0
        for lines, number in _ordered_map(refutation_lines, tasks, jobs, scheduler):
            out.write(lines)
            refuted += number
        out.write(_line({"assertion": {"count": self.count}}))
        self.written = {"cells": self.count, "refutations": refuted}


def _line(obj) -> bytes:
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode("ascii")


class _AdjacentFlips:
    """The flips of rankings at the classes of their adjacent pairs that are orders, as
    packed sign vectors (bit 1 for '-', :func:`numpy.packbits` order)."""

    def __init__(self, M, n: int):
        self.n, self.N = n, len(M)
        self.width = (self.N + 7) // 8
        of_row = np.array(group_parallel_rows([primitive_integer_row(r) for r in M]).of_row)
        self.pair_row = np.zeros((n, n), dtype=np.intp)
        for r, (i, j) in enumerate(combinations(range(n), 2)):
            self.pair_row[i, j] = self.pair_row[j, i] = r
        classes = of_row.max() + 1
        members = np.zeros((classes, self.N), dtype=bool)
        members[of_row, np.arange(self.N)] = True
        self.masks = np.packbits(members, axis=1)
        self.single = members.sum(axis=1) == 1
        self.class_of = of_row

    def of(self, packed: np.ndarray, rankings: np.ndarray) -> np.ndarray:
        out = []
        for p in range(self.n - 1):
            c = self.class_of[self.pair_row[rankings[:, p], rankings[:, p + 1]]]
            flipped = packed ^ self.masks[c]
            several = ~self.single[c]
            if several.any():  # keep the flips at classes of several pairs that are orders
                keep = self.single[c].copy()
                keep[several] = _is_order(flipped[several], self.N, self.n)
                flipped = flipped[keep]
            out.append(flipped)
        return np.concatenate(out)


def _is_order(packed: np.ndarray, N: int, n: int) -> np.ndarray:
    """Which packed sign vectors are strict total orders (their wins a permutation)."""
    plus = np.unpackbits(packed, axis=1, count=N) == 0
    wins = np.zeros((len(packed), n), dtype=np.int64)
    for r, (i, j) in enumerate(combinations(range(n), 2)):
        wins[:, i] += plus[:, r]
        wins[:, j] += ~plus[:, r]
    return (np.sort(wins, axis=1) == np.arange(n)).all(axis=1)


class _Runs:
    """Packed sign vectors added in any order; :meth:`merged` gives them back sorted,
    without repeats, as ``bytes``, with at most :data:`RUN` rows in memory."""

    def __init__(self, directory: str, width: int):
        self.directory, self.width, self.pending, self.size, self.paths = \
            directory, width, [], 0, []

    def add(self, rows: np.ndarray) -> None:
        self.pending.append(rows)
        self.size += len(rows)
        if self.size >= RUN:
            self._spill()

    def _spill(self) -> None:
        rows = _sorted_unique(np.concatenate(self.pending))
        path = os.path.join(self.directory, f"run{len(self.paths)}")
        rows.tofile(path)
        self.paths.append(path)
        self.pending, self.size = [], 0

    def merged(self):
        if self.pending:
            self._spill()
        previous = None
        for key in heapq.merge(*(_records(p, self.width) for p in self.paths)):
            if key != previous:
                yield key
                previous = key


def _sorted_unique(rows: np.ndarray) -> np.ndarray:
    """The distinct rows of a ``uint8`` array in the order of their bytes."""
    width = rows.shape[1]
    padded = np.zeros((len(rows), width + (-width) % 8), dtype=np.uint8)
    padded[:, :width] = rows
    words = padded.view(">u8")                      # big-endian: the order of the bytes
    rows = rows[np.lexsort(words.T[::-1])]
    fresh = np.ones(len(rows), dtype=bool)
    fresh[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    return rows[fresh]


def _records(path: str, width: int):
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK * width):
            for start in range(0, len(chunk), width):
                yield chunk[start:start + width]


def _not_listed(flips, listed):
    """The sorted ``flips`` that are not in the sorted ``listed``."""
    have = next(listed, None)
    for key in flips:
        while have is not None and have < key:
            have = next(listed, None)
        if have != key:
            yield key


def _batches(items, size: int):
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _integer_rows(V) -> list[list[int]]:
    """``V`` times the common denominator: the same signs and the same dependencies."""
    scale = lcm(*(int(a.q) for row in V for a in row))
    return [[int(a * scale) for a in row] for row in V]


def refutation_lines(packed: np.ndarray, V: list[list[int]]) -> tuple[bytes, int]:
    """The refutation lines of the rankings ``packed`` (sorted packed sign vectors over the
    pairs of ``B_n``; their orthants must be empty) for the integer rows ``V``.

    Returns the lines and their number; raises ``AssertionError`` if an orthant is not
    empty (then the enumerated pattern was not complete).
    """
    add = np.strings.add
    n = len(V)
    N = n * (n - 1) // 2
    signs = np.where(np.unpackbits(packed, axis=1, count=N) == 1, -1, 1).astype(np.int8)
    rankings = rankings_of(signs, n)
    strings = np.ascontiguousarray(sign_text(signs)).view(f"S{N}").ravel().astype(str)
    pair_row = np.zeros((n, n), dtype=np.intp)
    for r, (i, j) in enumerate(combinations(range(n), 2)):
        pair_row[i, j] = pair_row[j, i] = r
    chains = pair_row[rankings[:, :-1], rankings[:, 1:]]
    found = _batch_multipliers(V, rankings)
    if found is None:
        found = np.zeros(chains.shape, dtype=np.int64)
    # [row,"y"] for the non-zero multipliers, by increasing row.
    order = np.argsort(chains, axis=1)
    rows = np.take_along_axis(chains, order, axis=1)
    y = np.take_along_axis(found, order, axis=1)
    entries = np.where(y > 0, add(add(add(add("[", rows.astype(str)), ',"'), y.astype(str)),
                                  '"],'), "")
    joined = entries[:, 0]
    for p in range(1, entries.shape[1]):
        joined = add(joined, entries[:, p])
    lines = add(add(add(add('{"signs":"', strings), '","multipliers":['),
                    np.strings.rstrip(joined, ",")), "]}\n")
    for t in np.nonzero(~(found > 0).any(axis=1))[0]:
        ranking, chain = rankings[t].tolist(), chains[t].tolist()
        exact = _chain_multipliers(V, ranking)
        pairs = (sorted([r, str(v)] for r, v in zip(chain, exact) if v) if exact is not None
                 else _gordan_multipliers(_braid_rows(V), str(strings[t]), chain))
        lines[t] = (f'{{"signs":"{strings[t]}","multipliers":'
                    f'{json.dumps(pairs, separators=(",", ":"))}}}\n')
    return "".join(lines.tolist()).encode("ascii"), len(lines)


def _braid_rows(V):
    return braid_product([[fmpq(a) for a in row] for row in V])


def _batch_multipliers(V, rankings: np.ndarray) -> np.ndarray | None:
    """Multipliers on the chain rows of many rankings at once: a basic solution of
    ``Σ y_p u_p = 0, Σ y_p = 1, y >= 0`` by a phase-one simplex method in floating point
    for the whole batch (Bland's rule), scaled by the basis determinant to integers,
    rounded, and kept only where ``y >= 0``, ``y != 0`` and ``Σ y_p u_p = 0`` hold exactly
    (in ``int64``, within a bound that rules out overflow). Rows of zeros where this
    fails; None if the entries are too large for the bound."""
    Vi = np.array(V, dtype=object)
    big = max(abs(int(a)) for a in Vi.ravel())
    n, k = Vi.shape
    m, p = k + 1, n - 1
    # Hadamard: |det| <= (sqrt(m) * 2 big)^m; then |y| |u| p must stay below 2^62.
    bound = (m ** 0.5 * max(2 * big, 1)) ** m
    if bound > 2.0 ** 50 or bound * 2 * big * p > 2.0 ** 62:
        return None
    Vint = Vi.astype(np.int64)
    U = Vint[rankings[:, :-1]] - Vint[rankings[:, 1:]]            # (B, p, k)
    B = len(U)
    A = np.concatenate([np.transpose(U, (0, 2, 1)).astype(np.float64),
                        np.ones((B, 1, p))], axis=1)                # (B, m, p)
    T = np.concatenate([A, np.broadcast_to(np.eye(m), (B, m, m)), np.zeros((B, m, 1))],
                       axis=2)
    T[:, -1, -1] = 1.0
    basis = np.tile(np.arange(p, p + m), (B, 1))
    cost = np.concatenate([np.zeros(p), np.ones(m)])
    active = np.ones(B, dtype=bool)
    every = np.arange(B)
    for _ in range(20 * m):
        reduced = cost - np.einsum("bi,bij->bj", cost[basis], T[:, :, :p + m])
        entering = (reduced < -1e-9) & active[:, None]
        active &= entering.any(axis=1)
        if not active.any():
            break
        j = np.argmax(entering, axis=1)                          # Bland: first index
        column = T[every, :, j]
        positive = column > 1e-9
        ratio = np.where(positive, T[:, :, -1] / np.where(positive, column, 1.0), np.inf)
        least = ratio.min(axis=1)
        active &= np.isfinite(least)
        tie = ratio <= least[:, None] + 1e-12
        leave = np.argmin(np.where(tie, basis, p + m), axis=1)   # Bland: first variable
        if not active.any():
            break
        # Pivot every problem at once; a finished one pivots on nothing (factor 0).
        at = column[every, leave]
        pivot = T[every, leave, :] / np.where(active, at, 1.0)[:, None]
        T -= (column * active[:, None])[:, :, None] * pivot[:, None, :]
        T[every, leave, :] = np.where(active[:, None], pivot, T[every, leave, :])
        basis[every, leave] = np.where(active, j, basis[every, leave])
    # The basic solution times |det| of its basis is an integer vector (Cramer).
    full = np.concatenate([A, np.broadcast_to(np.eye(m), (B, m, m))], axis=2)
    det = np.abs(np.round(np.linalg.det(np.take_along_axis(full, basis[:, None, :],
                                                           axis=2))))
    y = np.zeros((B, p + m))
    np.put_along_axis(y, basis, T[:, :, -1], axis=1)
    Y = np.round(y[:, :p] * det[:, None])
    Y[(Y < 0).any(axis=1) | active | (np.abs(Y) >= 2.0 ** 50).any(axis=1)] = 0
    Y = Y.astype(np.int64)
    exact = ~np.einsum("bp,bpk->bk", Y, U).any(axis=1) & (Y >= 0).all(axis=1)
    Y[~exact] = 0
    g = np.gcd.reduce(Y, axis=1)
    return Y // np.maximum(g, 1)[:, None]


def _chain_multipliers(V, ranking: list[int]) -> list[int] | None:
    """Primitive integers ``y >= 0``, not all zero, with ``Σ_p y_p (v_{τ_p} - v_{τ_{p+1}})
    = 0`` for the ranking ``τ``, from a floating-point proposal made exact; None if the
    proposal does not give one."""
    from scipy.optimize import nnls

    Vf = np.array(V, dtype=np.float64)
    U = Vf[ranking[:-1]] - Vf[ranking[1:]]          # the chain rows, (n-1) x k
    scale = max(1.0, float(np.abs(U).max()))
    A = np.vstack([U.T, np.full((1, len(U)), scale)])
    b = np.zeros(A.shape[0])
    b[-1] = scale
    try:
        proposal, _ = nnls(A, b)
    except RuntimeError:
        return None
    support = [p for p, v in enumerate(proposal) if v > 1e-9 * proposal.max()]
    if not support:
        return None
    columns = [[V[ranking[p]][c] - V[ranking[p + 1]][c] for p in support]
               for c in range(len(V[0]))]
    kernel, nullity = fmpz_mat(columns).nullspace()
    if nullity != 1:
        return None
    y = [int(kernel[i, 0]) for i in range(len(support))]
    if all(v <= 0 for v in y):
        y = [-v for v in y]
    if any(v < 0 for v in y) or not any(y):
        return None
    g = gcd(*y)
    full = [0] * len(U)
    for p, v in zip(support, y):
        full[p] = v // g
    # The kernel is exact; the sum is checked once more because it is the whole proof.
    if any(sum(full[p] * (V[ranking[p]][c] - V[ranking[p + 1]][c]) for p in support)
           for c in range(len(V[0]))):
        return None
    return full
