"""Exact linear algebra over Q and Z for the arrangement engine.

Number domain: rationals are ``flint.fmpq``, integers Python ``int`` (or ``flint.fmpz``
inside flint matrices). Nothing here rounds.

The sign pattern ``S(M) = {sign(Mz)}`` only depends on

* the column span of ``M`` (so we may keep a column basis), and
* each row up to a *positive* factor (so rows may be scaled to primitive integer
  vectors, which keeps all later arithmetic in ``Z``).

Both reductions live here, together with the grouping of parallel rows into
hyperplanes.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import gcd, lcm
from typing import Iterable, Sequence

from flint import fmpq, fmpq_mat, fmpz, fmpz_mat


def to_fmpq(x) -> fmpq:
    """Exact conversion of int, Fraction, fmpz or fmpq to ``fmpq`` (floats refused)."""
    if isinstance(x, fmpq):
        return x
    if isinstance(x, (int, fmpz)):
        return fmpq(x)
    if isinstance(x, Fraction):
        return fmpq(x.numerator, x.denominator)
    if isinstance(x, float):
        # A Python float in a list is refused: 0.1 means 1/10 to its writer, and a
        # binary number near it to Python. A numpy array says which.
        raise TypeError(
            f"not an exact rational: {x!r} (float); write Fraction({str(x)!r}) for the "
            "decimal, or pass a numpy array, whose floats are read at their exact binary "
            "values")
    raise TypeError(f"not an exact rational: {x!r} ({type(x).__name__})")


def to_fmpq_rows(rows: Iterable[Iterable]) -> list[list[fmpq]]:
    """A matrix as a list of rows of ``fmpq``."""
    return [[to_fmpq(x) for x in row] for row in rows]


def primitive_integer_row(row: Sequence[fmpq]) -> list[int]:
    """The positive multiple of ``row`` that is a primitive integer vector.

    The zero row maps to the zero row. Positive scaling keeps every sign of
    ``row . z``, so it does not change any sign pattern.
    """
    den = lcm(*(int(q.q) for q in row)) if row else 1
    ints = [int(q.p) * (den // int(q.q)) for q in row]
    g = gcd(*ints)
    return [a // g for a in ints] if g > 1 else ints


def rank(rows: Sequence[Sequence]) -> int:
    """Exact rank of a rational matrix (0 for an empty one)."""
    if not rows or not rows[0]:
        return 0
    return fmpq_mat(to_fmpq_rows(rows)).rank()


def column_basis(rows: Sequence[Sequence]) -> list[int]:
    """Indices of a set of columns that is a basis of the column space.

    These are the pivot columns of the reduced row echelon form, the
    lexicographically first basis, so the choice is deterministic.
    """
    if not rows or not rows[0]:
        return []
    reduced, r = fmpq_mat(to_fmpq_rows(rows)).rref()
    pivots = []
    ncols = reduced.ncols()
    for i in range(r):
        for j in range(ncols):
            if reduced[i, j] != 0:
                pivots.append(j)
                break
    return pivots


def integer_nullspace(rows: Sequence[Sequence[int]]) -> list[list[int]]:
    """A basis of ``{y : rows . y = 0}`` as primitive integer vectors."""
    mat = fmpz_mat([[int(a) for a in row] for row in rows])
    basis, nullity = mat.nullspace()
    vectors = []
    for j in range(nullity):
        v = [int(basis[i, j]) for i in range(basis.nrows())]
        g = gcd(*v)
        vectors.append([a // g for a in v] if g > 1 else v)
    return vectors


def dot(u: Sequence, v: Sequence):
    """Exact dot product."""
    return sum((a * b for a, b in zip(u, v)), 0)


def canonical_direction(row: Sequence[int]) -> tuple[tuple[int, ...], int]:
    """The representative of the line through ``row`` with first non-zero entry > 0.

    Returns ``(normal, orientation)`` with ``row = orientation * c * normal`` for some
    ``c > 0``. ``row`` must be a non-zero primitive integer vector.
    """
    for a in row:
        if a != 0:
            if a > 0:
                return tuple(row), 1
            return tuple(-b for b in row), -1
    raise ValueError("the zero vector has no direction")


@dataclass(frozen=True)
class Hyperplanes:
    """The distinct hyperplanes of a central arrangement given by non-zero rows.

    ``normals[c]`` is the canonical primitive normal of hyperplane ``c``; row ``i``
    of the input lies on hyperplane ``of_row[i]`` with ``orientation[i]`` in
    ``{+1, -1}``, so ``sign(row_i . z) = orientation[i] * sign(normals[of_row[i]] . z)``.
    Hyperplanes are numbered in order of first appearance.
    """

    normals: tuple[tuple[int, ...], ...]
    of_row: tuple[int, ...]
    orientation: tuple[int, ...]


def group_parallel_rows(int_rows: Sequence[Sequence[int]]) -> Hyperplanes:
    """Group non-zero primitive integer rows into hyperplanes (rows up to sign)."""
    index: dict[tuple[int, ...], int] = {}
    normals, of_row, orientation = [], [], []
    for row in int_rows:
        normal, o = canonical_direction(row)
        c = index.setdefault(normal, len(normals))
        if c == len(normals):
            normals.append(normal)
        of_row.append(c)
        orientation.append(o)
    return Hyperplanes(tuple(normals), tuple(of_row), tuple(orientation))
