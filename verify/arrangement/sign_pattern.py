"""The sign pattern ``S(M) = {sign(M z) : M z has no zero entry}`` of a rational matrix.

Mathematics
-----------
``S(M)`` is the set of open orthants of ``R^N`` met by the column span of ``M``
(Nielsen & Grivas, Prop. E.2), equivalently the topes of the central arrangement in
``R^k`` whose normals are the rows of ``M``. Three reductions keep the computation
exact and small, none of which changes ``S(M)``:

* each row is replaced by its primitive positive integer multiple;
* ``M`` is replaced by a column basis (same column span), so the arrangement becomes
  essential; witnesses are lifted back with zeros in the other coordinates;
* parallel rows (same or opposite direction) are one hyperplane; the sign of a row is
  its orientation times the sign of its hyperplane.

A zero row makes ``S(M)`` empty (its entry of ``M z`` is always 0), reported with a
warning naming the row.

Two independent enumeration methods are available: ``"cocircuits"`` (default, fast:
topes as compositions of cocircuits, see :mod:`verify.arrangement.cocircuits`) and
``"graph"`` (breadth-first search of the arrangement graph with one exact LP per
candidate orthant, see :mod:`verify.arrangement.graph_search`).

Example
-------
>>> P = sign_pattern([[1, 0], [0, 1], [1, 1]])
>>> P.count, P.patterns[:2]
(6, ['+++', '+-+'])
>>> P.cells[0].witness
(1, 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from flint import fmpq

from verify.arrangement.cocircuits import enumerate_topes
from verify.arrangement.graph_search import search_topes
from verify.linalg import (
    column_basis,
    group_parallel_rows,
    primitive_integer_row,
    to_fmpq_rows,
)

METHODS = ("cocircuits", "graph")


@dataclass(frozen=True)
class Cell:
    """One sign vector of a pattern and a rational point realising it exactly."""

    signs: str
    witness: tuple


@dataclass
class SignPattern:
    """The sign pattern of ``matrix``: its cells sorted by sign string (ASCII: '+' < '-').

    ``rank`` is the rank of the matrix and ``hyperplanes`` the number of distinct
    hyperplanes (parallel rows merged).
    """

    matrix: list
    cells: list
    rank: int
    hyperplanes: int
    warnings: list = field(default_factory=list)

    @property
    def patterns(self) -> list[str]:
        return [c.signs for c in self.cells]

    @property
    def count(self) -> int:
        return len(self.cells)

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.matrix), (len(self.matrix[0]) if self.matrix else 0)


def sign_pattern(M, *, method: str = "cocircuits") -> SignPattern:
    """The sign pattern of ``M`` with one exact witness per cell.

    Parameters
    ----------
    M : sequence of rows of int / Fraction / fmpq (``N x k``, ``N >= 1``).
    method : ``"cocircuits"`` or ``"graph"``.

    Every witness ``z`` satisfies ``sign(M z) == cell.signs`` exactly; this is checked
    before the pattern is returned.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    rows = to_fmpq_rows(M)
    N = len(rows)
    k = len(rows[0]) if rows else 0
    ints = [primitive_integer_row(row) for row in rows]
    zero_rows = [i for i, row in enumerate(ints) if not any(row)]
    if zero_rows or N == 0:
        names = ", ".join(str(i) for i in zero_rows)
        warning = (f"row{'s' if len(zero_rows) > 1 else ''} {names} "
                   f"{'are' if len(zero_rows) > 1 else 'is'} zero: "
                   "the sign pattern is empty") if zero_rows else "the matrix has no rows"
        return SignPattern(matrix=rows, cells=[], rank=_rank(ints), hyperplanes=0,
                           warnings=[warning])
    basis = column_basis(ints)
    reduced = [[row[j] for j in basis] for row in ints]
    planes = group_parallel_rows(reduced)
    H = planes.normals
    if method == "cocircuits":
        signs, points = enumerate_topes(np.array(H, dtype=object))
        topes = [tuple(int(s) for s in row) for row in signs]
        local_points = [tuple(int(a) for a in p) for p in points]
    else:
        found = search_topes(H)
        topes = list(found.cells)
        local_points = [_integral(found.cells[t]) for t in topes]
    cells = []
    for tope, u in zip(topes, local_points):
        z = [fmpq(0)] * k
        for j, a in zip(basis, u):
            z[j] = fmpq(a)
        signs_str = "".join("+" if o * tope[c] > 0 else "-"
                            for c, o in zip(planes.of_row, planes.orientation))
        cells.append(Cell(signs=signs_str, witness=tuple(z)))
    cells.sort(key=lambda c: c.signs)
    _check_witnesses(ints, cells)
    return SignPattern(matrix=rows, cells=cells, rank=len(basis), hyperplanes=len(H))


def _integral(point) -> tuple[int, ...]:
    """A positive multiple of a rational point with integer coordinates."""
    from math import lcm

    q = [fmpq(a) for a in point]
    den = lcm(*(int(a.q) for a in q))
    return tuple(int(a * den) for a in q)


def _rank(ints) -> int:
    from verify.linalg import rank

    return rank(ints) if ints and ints[0] else 0


def _check_witnesses(ints, cells) -> None:
    """Exact check ``sign(M z) == signs`` for every cell (a guard, never skipped)."""
    if not cells:
        return
    A = np.array(ints, dtype=object)
    Z = np.array([[int(a) for a in c.witness] for c in cells], dtype=object).T
    values = A @ Z
    for j, cell in enumerate(cells):
        got = "".join("+" if v > 0 else ("-" if v < 0 else "0") for v in values[:, j])
        if got != cell.signs:
            raise AssertionError(f"internal error: witness of {cell.signs} gives {got}")
