r"""The exact head: the rows of ``W`` as integers under one scale, and exact signs.

Mathematics
-----------
Every question about a head ``W`` (rows ``w_0, ..., w_{n-1}`` in ``R^d``) that
:mod:`verify.analyze` asks (argmax, ties, cells) is homogeneous in the rows: it is
unchanged when every row is multiplied by the same positive number. The rows are
therefore replaced by the primitive integer matrix ``Z = c W`` (one rational
``c > 0``, the gcd of the entries 1). A binary float ``m 2^e`` (odd ``m``) becomes an
integer after scaling by ``2^-min(e)``, so a matrix of binary64, binary32, binary16 or
bfloat16 numbers is converted in vectorised blocks (:func:`integer_matrix`); other
exact numbers go through Python integers.

Next to ``Z`` the head keeps a float64 copy ``F`` close to ``Z / 2^s``. A proposal of
floating point is accepted only through an exact sign: ``sign((z_t - z_k) . x)`` for an
integer point ``x`` is read from the float product ``F X`` wherever the computed margin
exceeds the rigorous bound of :func:`product_error_bounds` (Higham, *Accuracy and
Stability of Numerical Algorithms*, 2002, §3.1), and computed in Python integers
otherwise (ties, near ties, underflow).

Rows with square roots (:class:`verify.numbers.sqrt_sum.SqrtSum` entries) are kept as
they are in a :class:`FieldHead`; :func:`make_head` chooses.

Example
-------
>>> import numpy as np
>>> head = make_head(np.array([[0.5, 1.0], [1.5, -2.0]]))  # binary floats, exactly
>>> [list(row) for row in head.Z]
[[1, 2], [3, -4]]
>>> head.wins([[1, 0], [0, 1]], [1, 1])
[True, False]
"""

from __future__ import annotations

from hashlib import blake2b
from itertools import repeat
from math import gcd, lcm
from operator import rshift
from typing import TYPE_CHECKING, Any, Protocol, Sequence, TypeAlias

import numpy as np
from flint import fmpq

from verify.analyze.screen import (
    MAX_DIMENSION,
    Float32Rows,
    mahalanobis,
    rounding_error_bounds,
)
from verify.lp.feasibility import GordanCertificate, Witness

if TYPE_CHECKING:
    from verify.analyze.memory import MemoryBudget
    from verify.numbers.aliases import ExactRows


class ProgressBar(Protocol):
    """What the analysis reports progress to (a tqdm bar, for example)."""

    def update(self, n: int, /) -> Any: ...

    def close(self) -> Any: ...


#: What the analysis reads: rows of exact numbers, an integer or float numpy matrix
#: (floats at their exact binary value), or a head made by :func:`make_head`.
HeadInput: TypeAlias = "ExactRows | np.ndarray | ExactHead | FieldHead"

__all__ = [
    "ExactHead",
    "FieldHead",
    "IntegerRows",
    "integer_matrix",
    "make_head",
    "product_error_bounds",
]

#: Largest head with square-root entries (exact field simplex for every question).
FIELD_MAX_LABELS = 40
#: Heads with at least this many entries get their witnesses from the float32 screen
#: of :mod:`verify.analyze.screen` (whitened proposals, about one product per label).
SCREEN_MIN_ENTRIES = 1 << 20


def _dot(u, v):
    total = 0
    for a, b in zip(u, v):
        total = total + a * b
    return total


# --- exact integer rows, and exact signs of products with them -------------------------

#: Unit roundoff of IEEE binary64.
UNIT_ROUNDOFF = 2.0 ** -53
#: Largest bit length stored as int64 (products are never formed in int64).
INT64_BITS = 62


class IntegerRows:
    """The rows of an int64 matrix, read as tuples of Python ints (exact at any size).

    ``array`` is the ``n x d`` int64 matrix; ``rows[i]`` is ``tuple`` of Python ints.
    """

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray):
        self.array = array

    def __len__(self) -> int:
        return self.array.shape[0]

    def __getitem__(self, i):
        return tuple(self.array[i].tolist())

    def __iter__(self):
        for row in self.array:
            yield tuple(row.tolist())


def _primitive_int64(Z: np.ndarray) -> np.ndarray:
    """``Z`` divided (in place) by the gcd of its entries (unchanged if all are zero)."""
    g = 0
    for lo, hi in _row_blocks(Z.shape[0]):
        g = int(np.gcd(g, np.gcd.reduce(Z[lo:hi], axis=None)))
        if g == 1:
            return Z
    if g > 1:
        for lo, hi in _row_blocks(Z.shape[0]):
            Z[lo:hi] //= g
    return Z


#: Rows per block when converting a matrix (a few MB of temporaries per block).
CONVERT_ROWS = 4096
#: Entries of each row that :func:`equal_rows` compares before whole rows.
EQUAL_ROWS_PREFIX = 8


def _row_blocks(n: int, step: int = CONVERT_ROWS):
    for lo in range(0, n, step):
        yield lo, min(n, lo + step)


def _top_exponent(array: np.ndarray) -> int | None:
    """The least ``e`` with every entry below ``2^e`` in magnitude (None if all are
    zero), in blocks of rows."""
    top = 0.0
    for lo, hi in _row_blocks(array.shape[0]):
        block = np.asarray(array[lo:hi], dtype=np.float64)
        if block.size:
            top = max(top, float(block.max()), -float(block.min()))
    return int(np.frexp(top)[1]) if top > 0 else None


def integer_matrix(array: np.ndarray) -> np.ndarray | None:
    """The primitive int64 matrix ``Z = c W`` (one ``c > 0``) of a binary-float matrix.

    ``W`` is an integer or floating numpy array (or memory map) of finite numbers
    (binary64 or narrower: every binary32, binary16 and bfloat16 number is a binary64
    number). With every entry below ``2^e`` in magnitude, ``2^(INT64_BITS - e) W``
    has entries below ``2^INT64_BITS``; it is an integer matrix exactly when every
    entry fits in ``INT64_BITS`` bits under one scale (each non-zero entry is
    ``m 2^k`` with an odd integer ``m``, and ``e - min(k) <= INT64_BITS``). Dividing by
    the gcd of the entries (first the common power of two) makes it primitive: the
    same ``Z`` as the exact rational path. Returns None when an entry would need more
    than ``INT64_BITS`` bits (the caller then uses Python integers). Works in blocks
    of rows: the temporaries stay small.
    """
    n = array.shape[0]
    Z = np.empty(array.shape, dtype=np.int64)
    if array.dtype.kind in "iu":
        for lo, hi in _row_blocks(n):
            block = np.asarray(array[lo:hi])
            if block.size and (int(block.max()) >= 1 << INT64_BITS
                               or int(block.min()) <= -(1 << INT64_BITS)):
                return None
            Z[lo:hi] = block
        return _primitive_int64(Z)
    top = _top_exponent(array)
    if top is None:
        Z[:] = 0
        return Z
    scale = INT64_BITS - top
    common = 0
    for lo, hi in _row_blocks(n):
        block = np.asarray(array[lo:hi], dtype=np.float64)
        # Scaling by a power of two, to below 2^62, is exact except where a number
        # scaled down underflows (entries of 2^62 and more beside tiny ones); a
        # non-zero result is then below 1, and one rounded to zero is counted.
        S = np.ldexp(block, scale)
        if scale < 0 and np.count_nonzero(S) != np.count_nonzero(block):
            return None
        Z[lo:hi] = S
        # Z holds S truncated, a binary64 number too: equal exactly when S is integral.
        if not np.array_equal(Z[lo:hi], S):
            return None
        common |= int(np.bitwise_or.reduce(Z[lo:hi], axis=None))
    # The common power of two: the trailing zeros of the OR of all entries (in two's
    # complement -v has those of v).
    shift = (common & -common).bit_length() - 1
    if shift > 0:
        for lo, hi in _row_blocks(n):
            Z[lo:hi] >>= shift
    return _primitive_int64(Z)


def _python_integers(rows) -> list[list[int]]:
    """The primitive integer matrix ``c W`` (one rational ``c > 0``) of ``fmpq`` rows."""
    den = lcm(*(int(q.q) for row in rows for q in row))
    Z = [[int(q.p) * (den // int(q.q)) for q in row] for row in rows]
    g = gcd(*(v for row in Z for v in row))
    return [[v // g for v in row] for row in Z] if g > 1 else Z


def _float_points(points: Sequence[Sequence[int]], d: int) -> tuple[np.ndarray, np.ndarray]:
    """Integer points as float64 columns ``X`` (``d x m``) and which are exact.

    A point with entries below ``2^53`` is converted exactly; a longer one is first
    divided by a power of two ``2^e`` (which changes no sign of a product) and rounded
    down, so that each entry is off by less than 1 while the largest is at least
    ``2^52``.
    """
    m = len(points)
    if m == 0:
        return np.zeros((d, 0)), np.ones(0, dtype=bool)
    try:
        ints = np.array(points, dtype=np.int64).reshape(m, d)
        if ints.size == 0 or int(np.abs(ints).max()) < 1 << 53:
            return ints.T.astype(np.float64), np.ones(m, dtype=bool)
    except OverflowError:
        pass
    X = np.empty((d, m), dtype=np.float64)
    exact = np.ones(m, dtype=bool)
    for c, p in enumerate(points):
        p = list(map(int, p))
        top = max(max(p, default=0), -min(p, default=0)).bit_length()
        e = max(0, top - 53)
        # v >> e is the floor of v / 2^e, below 2^53: converted exactly.
        X[:, c] = list(map(float, map(rshift, p, repeat(e, len(p)))))
        exact[c] = e == 0
    return X, exact


def product_error_bounds(row_norms: np.ndarray, X: np.ndarray, d: int,
                         absolute_error: float, exact: np.ndarray):
    r"""Bounds ``(R, A)`` with ``|(F X)_kc - (omega_k . xi_c)| <= R_k[c] row_norms_k + A_c``.

    Here ``omega_k`` is the exact row ``z_k / 2^s`` whose float copy is ``F_k``, ``xi_c``
    the exact point (scaled by a power of two) whose float copy is ``X[:, c]``, and the
    product is any float64 evaluation (BLAS, any order of summation, with or without
    fused multiply-adds). Returned as ``R = SAFETY (d + 2 + 2 sqrt(d) [xi inexact]) u
    |X_c|_2`` (a vector over columns) and ``A``.

    Argument (Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, §3.1;
    ``u = 2^-53``): the computed dot product of the float vectors ``f`` and ``x`` is
    within ``gamma_d sum |f_c x_c| <= gamma_d |f|_2 |x|_2`` of their exact dot product,
    ``gamma_d = d u / (1 - d u)``; the float row is within ``u |omega|`` of the exact
    one entry-wise (plus ``absolute_error`` for rows stored with truncated low bits), and
    a rounded point within 1 per entry while its largest entry is at least ``2^52``,
    which adds ``|omega|_1 <= sqrt(d) |omega|_2 <= 2 sqrt(d) u |omega|_2 |x|_2``.
    Gradual underflow adds at most ``2^-1074`` per operation, ``A`` collects it. The
    factor ``SAFETY = 2`` covers ``gamma_d <= 1.01 d u`` (``d u < 0.01``) and the
    rounding of the norms and of the bound itself, each a relative ``O(d u)``.
    """
    return rounding_error_bounds(X, d, unit=UNIT_ROUNDOFF, tiny=2.0 ** -1074,
                                 absolute_error=absolute_error, exact=exact)


def _bit_length(values: np.ndarray) -> int:
    """Largest bit length of the absolute values of an int64 array."""
    if not values.size:
        return 0
    return max(int(values.max()), -int(values.min())).bit_length()


def _tick(progress, k: int) -> None:
    if progress is not None and k:
        progress.update(k)


# --- input -------------------------------------------------------------------------------

def _is_field_entry(x) -> bool:
    from verify.numbers.sqrt_sum import SqrtSum

    return isinstance(x, SqrtSum) and not x.is_rational()


def make_head(W: HeadInput, budget: MemoryBudget | None = None) -> ExactHead | FieldHead:
    """An :class:`ExactHead` for rational rows, a :class:`FieldHead` if a square root occurs.

    ``W`` may already be a head (returned unchanged).
    """
    if isinstance(W, (ExactHead, FieldHead)):
        return W
    if isinstance(W, np.ndarray) and W.ndim == 2 and W.size and W.dtype.kind in "iuf" \
            and W.dtype.itemsize <= 8:
        return ExactHead.from_array(W, budget=budget)
    rows = [list(row) for row in W]
    if not rows or not rows[0]:
        raise ValueError("the matrix needs at least one row and one column")
    d = len(rows[0])
    if any(len(row) != d for row in rows):
        raise ValueError("ragged rows")
    if any(_is_field_entry(x) for row in rows for x in row):
        return FieldHead(rows)
    return ExactHead(rows, budget=budget)


def _to_fmpq(x) -> fmpq:
    from verify.linalg.exact import to_fmpq
    from verify.numbers.sqrt_sum import SqrtSum

    if isinstance(x, SqrtSum):
        return x.to_rational()
    return to_fmpq(x)


# --- the head ---------------------------------------------------------------------------

class ExactHead:
    """The rows of ``W`` as integers under one positive scale, with a float copy.

    Attributes
    ----------
    n, d : shape.
    Z : the rows of ``Z = c W`` (one rational ``c > 0``, ``Z`` primitive) as tuples of
        Python ints: an :class:`IntegerRows` view of ``Zarr`` when every entry fits in
        ``INT64_BITS`` bits, else a list of tuples.
    Zarr : the int64 matrix, or None.
    F : float64 array close to ``Z / 2^s`` (entries below 1 in magnitude), for proposals.
    rows : the original rows as ``fmpq`` (computed on first use).
    budget : the :class:`~verify.analyze.memory.MemoryBudget` that sizes blocks.
    """

    def __init__(self, rows, *, budget=None, _integers=None):
        from verify.analyze.memory import default_budget

        budget = budget or default_budget()
        if _integers is None:
            self._rows = [[_to_fmpq(x) for x in row] for row in rows]
            Z = _python_integers(self._rows)
            bits = max(abs(v).bit_length() for row in Z for v in row) or 1
            if bits <= INT64_BITS:
                _integers = np.array(Z, dtype=np.int64)
            else:
                self.Z, self.Zarr = [tuple(row) for row in Z], None
        else:
            self._rows = None
        if _integers is not None:
            self.Zarr = _integers
            self.Z = IntegerRows(_integers)
            bits = _bit_length(_integers) or 1
        self.n, self.d = len(self.Z), len(self.Z[0])
        self.bits = bits
        self.budget = budget if budget.resident else budget.for_head(self.n, self.d)
        if self.Zarr is not None:
            self.F = np.empty(self.Zarr.shape, dtype=np.float64)
            for lo, hi in _row_blocks(self.n):
                # One pass: int64 -> float64 rounds as astype would, the power of two
                # scales exactly.
                np.multiply(self.Zarr[lo:hi], 2.0 ** -bits, out=self.F[lo:hi])
            #: Largest error of an entry of F beyond its relative rounding (none here).
            self._absolute_error = 0.0
        else:
            shift = max(0, bits - 62)
            approx = np.array([[v >> shift for v in row] for row in self.Z], dtype=np.int64)
            self.F = np.ldexp(approx.astype(np.float64), shift - bits)
            self._absolute_error = 2.0 ** -61  # the truncated low bits, in units of F
        self._row_squares = None
        self._row_norms = None
        self._float32 = None
        self._mahalanobis = None
        #: The rows ``0 .. labels - 1`` are the labels decided by
        #: :func:`verify.analyze.argmax.argmaxable_labels`; the
        #: rows after them only compete (the floor rows of a head with a bias,
        #: :mod:`verify.analyze.bias`).
        self.labels = self.n
        #: The drop ``M`` of the floor rows of a head with a bias (row ``labels + k`` is
        #: row ``k`` with ``M`` less in its last entry), else None.
        self.drop = None
        #: Whether witnesses are searched by the float32 screen (large heads).
        self.screened = (self.Zarr is not None and self.n * self.d >= SCREEN_MIN_ENTRIES
                         and self.d <= MAX_DIMENSION)

    def float32_rows(self) -> Float32Rows:
        """The float32 copy of ``F`` for :mod:`verify.analyze.screen` (cached)."""
        if self._float32 is None:
            self._float32 = Float32Rows(self.F, self._absolute_error)
        return self._float32

    def mahalanobis(self):
        """Mean and inverse covariance of the rows of ``F`` (cached). Computed with one
        BLAS thread: the same floats on every machine, and on two cores a second
        thread took as long in wall time and twice the CPU (0.25 against 0.5 s at
        8,210 x 1,025), in the main process before the workers start."""
        if self._mahalanobis is None:
            from threadpoolctl import threadpool_limits

            n = self.labels
            with threadpool_limits(limits=1, user_api="blas"):
                if self.drop is not None and self.n == 2 * n:
                    # The floor rows are the label rows moved down in the last coordinate.
                    self._mahalanobis = mahalanobis(
                        self.F[:n], floor_shift=float(self.F[0, -1] - self.F[n, -1]))
                else:
                    self._mahalanobis = mahalanobis(self.F)
        return self._mahalanobis

    @classmethod
    def from_array(cls, array: np.ndarray, *, budget=None,
                   source: str = "the head") -> "ExactHead":
        """The head of a numpy matrix of binary floats or integers, taken exactly.

        Vectorised: no Python number per entry unless an entry needs more than
        ``INT64_BITS`` bits after scaling. The budget is checked first (a head that
        cannot fit is refused before anything is allocated).
        """
        from verify.analyze.memory import default_budget

        n, d = array.shape
        budget = (budget or default_budget()).for_head(n, d, source)
        Z = integer_matrix(array)
        if Z is None:
            from verify.numbers.rational import exact_from_float

            a = np.asarray(array)
            rows = ([[fmpq(int(v)) for v in row] for row in a.tolist()] if a.dtype.kind in "iu"
                    else [[exact_from_float(v) for v in row] for row in a.astype(np.float64)])
            return cls(rows, budget=budget)
        return cls(None, budget=budget, _integers=Z)

    @property
    def rows(self):
        if self._rows is None:
            self._rows = [[fmpq(v) for v in row] for row in self.Z]
        return self._rows

    def row_squares(self) -> np.ndarray:
        """Float squared norms of the rows of ``F`` (cached)."""
        if self._row_squares is None:
            self._row_squares = np.einsum("ij,ij->i", self.F, self.F)
        return self._row_squares

    def rows_equal(self, i: int, j: int) -> bool:
        """Whether rows ``i`` and ``j`` are equal (on the int64 matrix when there is
        one: no tuples of Python ints made for the comparison)."""
        if self.Zarr is not None:
            return bool(np.array_equal(self.Zarr[i], self.Zarr[j]))
        return self.Z[i] == self.Z[j]

    def row_norms(self) -> np.ndarray:
        """Float norms of the rows of ``F`` (cached)."""
        if self._row_norms is None:
            self._row_norms = np.sqrt(self.row_squares())
        return self._row_norms

    # -- exact products ------------------------------------------------------------------

    def exact_scores(self, rows, point: Sequence[int]) -> list[int]:
        """``z_k . x`` for the listed rows ``k``, in Python integers."""
        return [_dot(self.Z[k], point) for k in rows]

    def _sign_block(self, points, targets) -> np.ndarray:
        """Exact ``sign((z_t - z_k) . x)`` for one block of columns: ``(n, m)`` int8.

        The float product decides every entry whose computed margin exceeds the error
        bound of :func:`product_error_bounds` for both scores; the others (ties, near
        ties, rows lost to underflow) are computed in Python integers.
        """
        X, exact = _float_points(points, self.d)
        S = self.F @ X
        R, A = product_error_bounds(self.row_norms(), X, self.d, self._absolute_error,
                                    exact)
        m = len(points)
        cols = np.arange(m)
        t = np.asarray(targets, dtype=np.intp)
        D = S[t, cols][None, :] - S
        norms = self.row_norms()
        # |error of D| <= R (N_t + N_k) + 2 A; the last factor covers rounding of B.
        B = (np.outer(norms, R) + (norms[t] * R + 2 * A)[None, :]) * (1 + 2.0 ** -40)
        sign = np.zeros(D.shape, dtype=np.int8)
        sign[D > B] = 1
        sign[D < -B] = -1
        # Row t against itself: the margin is exactly 0, no need to compute it.
        settled = sign != 0
        settled[t, cols] = True
        unsure = np.nonzero(~settled)
        by_column: dict = {}
        for k, c in zip(*unsure):
            by_column.setdefault(int(c), []).append(int(k))
        for c, ks in by_column.items():
            top = _dot(self.Z[targets[c]], points[c])
            for k, s in zip(ks, self.exact_scores(ks, points[c])):
                sign[k, c] = (top > s) - (top < s)
        return sign

    def margin_signs(self, points: Sequence[Sequence[int]], targets: Sequence[int]) -> np.ndarray:
        """``sign((z_t - z_k) . x)`` exactly, for every row ``k`` and every column.

        ``points[c]`` is an integer point ``x_c`` and ``targets[c]`` a label ``t_c``;
        the result is an ``int8`` array of shape ``(n, len(points))`` (meant for a few
        columns; :meth:`wins` checks many without that array).
        """
        m = len(points)
        out = np.empty((self.n, m), dtype=np.int8)
        step = self.budget.columns(32 * self.n)
        for start in range(0, m, step):
            stop = min(m, start + step)
            out[:, start:stop] = self._sign_block(points[start:stop], targets[start:stop])
        return out

    def wins(self, points: Sequence[Sequence[int]], targets: Sequence[int],
             partners: Sequence[int] | None = None, progress=None) -> list[bool]:
        """Exactly: does label ``t_c`` alone score highest at ``x_c`` (every column ``c``)?

        With ``partners``, the question is whether ``t_c`` and ``p_c`` score equally and
        strictly above every other label: a tie witness. Columns go in blocks sized by
        the budget, so no ``n x len(points)`` array is formed.
        """
        m = len(points)
        out = []
        step = self.budget.columns(32 * self.n)
        for start in range(0, m, step):
            stop = min(m, start + step)
            block = points[start:stop]
            signs = self._sign_block(block, targets[start:stop])
            for c in range(stop - start):
                col = signs[:, c]
                if partners is None:
                    out.append(int(np.count_nonzero(col > 0)) == self.n - 1)
                    continue
                p = partners[start + c]
                # Both signs are exact: sign 0 at p means z_t . x == z_p . x.
                out.append(int(col[p]) == 0
                           and int(np.count_nonzero(col > 0)) == self.n - 2)
            _tick(progress, stop - start)
        return out

    # -- blocks and groups ----------------------------------------------------------------

    def perceptron_block(self) -> int:
        """Columns per block of :func:`perceptron` (about five ``n``-vectors each)."""
        return self.budget.columns(48 * self.n)

    def equal_row_groups(self) -> list[list[int]]:
        """The labels grouped by equal rows (each group increasing, groups by first label)."""
        if self.Zarr is None:
            groups: dict[tuple, list[int]] = {}
            for i, row in enumerate(self.Z):
                groups.setdefault(row, []).append(i)
            return list(groups.values())
        return equal_rows(self.Zarr)


def prefix_columns(width: int) -> np.ndarray:
    """The ``EQUAL_ROWS_PREFIX`` columns (fewer if the rows are shorter) that
    :func:`equal_rows` compares first, spread from the first to the last."""
    return np.unique(np.linspace(0, width - 1, EQUAL_ROWS_PREFIX).astype(np.intp))


def equal_rows(A: np.ndarray) -> list[list[int]]:
    """The row indices of the 2-D array ``A`` grouped by equal rows: each group
    increasing, groups in order of first index (``-0.0`` and ``0.0`` must not both
    occur: rows are told apart by their bytes first).

    Rows are first grouped by ``EQUAL_ROWS_PREFIX`` of their entries, spread over the
    row from the first to the last (the floor rows of a head with a bias share all
    entries with their label's row but the last); only rows that share those are
    bucketed by a digest of their bytes and then compared within a bucket. No lexicographic sort of the rows is needed (``np.unique(A, axis=0)`` took
    1.8 s of the main process on ddddocr's 16,420 lifted rows of 1,025 entries, the
    digests of all rows 0.3 s).
    """
    n = A.shape[0]
    if n == 0:
        return []
    columns = prefix_columns(A.shape[1])
    prefix = np.ascontiguousarray(A[:, columns])
    by_prefix: dict[bytes, list[int]] = {}
    for i, key in enumerate(map(bytes, prefix)):
        by_prefix.setdefault(key, []).append(i)
    groups: list[list[int]] = []
    for members in by_prefix.values():
        if len(members) == 1 or columns.size == A.shape[1]:
            groups.append(members)
            continue
        buckets: dict[bytes, list[list[int]]] = {}
        for i in members:
            row = A[i]
            bucket = buckets.setdefault(blake2b(row.tobytes(), digest_size=16).digest(), [])
            for group in bucket:
                if np.array_equal(A[group[0]], row):
                    group.append(i)
                    break
            else:
                bucket.append([i])
        groups.extend(g for bucket in buckets.values() for g in bucket)
    return sorted(groups, key=lambda g: g[0])


# --- rows with square roots ------------------------------------------------------------

class FieldHead:
    """Rows with entries in ``Q(sqrt r_1, sqrt r_2, ...)`` (:class:`SqrtSum`).

    Every question is answered by the exact simplex method over that ordered field;
    meant for the small matrices of the paper's examples.
    """

    def __init__(self, rows):
        from verify.io.errors import TooLargeError
        from verify.numbers.sqrt_sum import SqrtSum, as_sqrt_sum

        if len(rows) > FIELD_MAX_LABELS:
            raise TooLargeError(
                f"entries with square roots are analysed for at most {FIELD_MAX_LABELS} "
                f"labels (this matrix has {len(rows)}); every question is an exact "
                "simplex run over Q(sqrt ...)")
        self.one = SqrtSum(1)
        self.rows = [[as_sqrt_sum(x) for x in row] for row in rows]
        self.n, self.d = len(self.rows), len(self.rows[0])
        self.labels = self.n
        self.F = np.array([[float(x) for x in row] for row in self.rows], dtype=np.float64)

    def strict(self, rows):
        from verify.lp.field_simplex import strict_feasibility_over

        if not rows:
            return Witness(point=tuple(self.one - self.one for _ in range(self.d)))
        if not rows[0]:
            # Zero columns: only z = () exists and every row is 0 . z = 0.
            return GordanCertificate(multipliers=((0, self.one),))
        zero_rows = [r for r, row in enumerate(rows) if all(x == 0 for x in row)]
        if zero_rows:
            return GordanCertificate(multipliers=((zero_rows[0], self.one),))
        return strict_feasibility_over(rows, self.one)
