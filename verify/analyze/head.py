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
"""

from __future__ import annotations

from itertools import repeat
from math import gcd, lcm
from operator import rshift
from typing import Sequence

import numpy as np

from verify.analyze.screen import rounding_error_bounds


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


def _row_blocks(n: int, step: int = CONVERT_ROWS):
    for lo in range(0, n, step):
        yield lo, min(n, lo + step)


def _exponent_range(block: np.ndarray) -> tuple[int, int] | None:
    """``(lowest, highest)``: every non-zero entry is an odd multiple of ``2^e`` with
    ``e >= lowest``, and below ``2^highest`` in magnitude; None if all are zero."""
    a = block[block != 0]
    if not a.size:
        return None
    mant, expo = np.frexp(a)
    m = np.ldexp(mant, 53).astype(np.int64)  # exact: 53-bit integer mantissas
    low = np.log2((m & -m).astype(np.float64)).astype(np.int64)  # trailing zero bits
    return int((expo - 53 + low).min()), int(expo.max())


def integer_matrix(array: np.ndarray) -> np.ndarray | None:
    """The primitive int64 matrix ``Z = c W`` (one ``c > 0``) of a binary-float matrix.

    ``W`` is an integer or floating numpy array (or memory map) of finite numbers
    (binary64 or narrower: every binary32, binary16 and bfloat16 number is a binary64
    number). Each non-zero entry is ``m 2^e`` with an odd integer ``m``; scaling by
    ``2^-min(e)`` makes every entry an integer, and dividing by the gcd of the entries
    makes the matrix primitive: the same ``Z`` as the exact rational path. Returns None
    when an entry would need more than ``INT64_BITS`` bits (the caller then uses Python
    integers). Works in blocks of rows: the temporaries stay small.
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
    ranges = [r for lo, hi in _row_blocks(n)
              if (r := _exponent_range(np.asarray(array[lo:hi], dtype=np.float64)))]
    if not ranges:
        Z[:] = 0
        return Z
    e_min, e_max = min(r[0] for r in ranges), max(r[1] for r in ranges)
    if e_max - e_min > INT64_BITS:
        return None
    for lo, hi in _row_blocks(n):
        # Exact: a * 2^-e_min is an integer below 2^62, a binary64 number.
        Z[lo:hi] = np.ldexp(np.asarray(array[lo:hi], dtype=np.float64), -e_min)
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
    top = int(np.abs(values).max()) if values.size else 0
    return top.bit_length()


def _tick(progress, k: int) -> None:
    if progress is not None and k:
        progress.update(k)
