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

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from flint import fmpq

from verify.arrangement.cocircuits import enumerate_topes
from verify.arrangement.graph_search import search_topes
from verify.linalg.exact import (
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
    witness: tuple[Any, ...]


@dataclass
class SignPattern:
    """The sign pattern of ``matrix``: its cells sorted by sign string (ASCII: '+' < '-').

    ``rank`` is the rank of the matrix and ``hyperplanes`` the number of distinct
    hyperplanes (parallel rows merged).
    """

    matrix: list[list[Any]]
    cells: Sequence[Cell]
    rank: int
    hyperplanes: int
    warnings: list[str] = field(default_factory=list)

    @property
    def patterns(self) -> list[str]:
        if isinstance(self.cells, CellList):
            return list(self.cells.signs)
        return [c.signs for c in self.cells]

    @property
    def count(self) -> int:
        return len(self.cells)

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.matrix), (len(self.matrix[0]) if self.matrix else 0)

    def __repr__(self) -> str:
        n, k = self.shape
        return (f"SignPattern({n} x {k} matrix, rank {self.rank}, {self.hyperplanes} "
                f"hyperplanes, {self.count} cells: {preview(self.patterns)})")

    def to_json(self) -> dict[str, Any]:
        """The object that ``python -m verify pattern --json`` prints for ``matrix``:
        ``kind``, ``n``, ``d``, ``count``, ``patterns`` and ``witnesses`` (exact
        rationals as strings)."""
        from verify.numbers.rational import format_rational

        n, d = self.shape
        return {"kind": "sign", "n": n, "d": d, "count": self.count,
                "patterns": self.patterns,
                "witnesses": [[format_rational(a) for a in c.witness] for c in self.cells]}

    def _summary(self) -> tuple[str, list[tuple[str, str]], str]:
        from verify.io.display import first

        n, d = self.shape
        rows = [("matrix", f"{n} x {d}, rank {self.rank}, {self.hyperplanes} hyperplanes"),
                ("cells", f"{self.count}: " + first(self.patterns))]
        if self.warnings:
            rows.append(("warnings", first(self.warnings, shown=2)))
        return ("SignPattern S(M)", rows,
                ".cells[k].witness is an exact point of each cell; .to_json() gives them "
                "all; python -m verify pattern --certificate writes a checked certificate")

    def _repr_html_(self) -> str:
        """The summary that Jupyter shows."""
        from verify.io.display import summary_html

        return summary_html(*self._summary())

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """The summary that IPython's pretty printer shows."""
        from verify.io.display import pretty

        pretty(p, cycle, *self._summary())


def preview(items, shown: int = 4) -> str:
    """The first few items of a long list, for a one-line ``repr``."""
    return ", ".join(map(str, items[:shown])) + (", ..." if len(items) > shown else "")


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
    else:
        found = search_topes(H)
        signs = np.array(list(found.cells), dtype=np.int8).reshape(-1, len(H))
        points = np.array([_integral(p) for p in found.cells.values()],
                          dtype=object).reshape(len(signs), -1)
    # Lift to the rows of M (orientation times the sign of the hyperplane) and to R^k.
    full = signs[:, planes.of_row] * np.array(planes.orientation, dtype=np.int8)
    Z = np.zeros((len(points), k), dtype=object)
    Z[:, basis] = points
    _check_witnesses(ints, full, Z)
    text = np.ascontiguousarray(np.where(full > 0, ord("+"), ord("-")).astype(np.uint8))
    strings = text.view(f"S{N}").ravel()
    order = np.argsort(strings, kind="stable")
    cells = CellList([b.decode("ascii") for b in strings[order]], Z[order])
    return SignPattern(matrix=rows, cells=cells, rank=len(basis), hyperplanes=len(H))


class CellList(Sequence):
    """The cells of a pattern, built on access from the sign strings and an integer
    array of witnesses (a pattern can have 10^5 cells; most uses need only the signs)."""

    def __init__(self, signs: list[str], witnesses: np.ndarray):
        self.signs, self.witnesses = signs, witnesses

    def __len__(self) -> int:
        return len(self.signs)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return Cell(signs=self.signs[index],
                    witness=tuple(fmpq(int(a)) for a in self.witnesses[index]))

    def __eq__(self, other) -> bool:
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented

    def __repr__(self) -> str:
        return f"CellList({len(self)} cells)"


def _integral(point) -> tuple[int, ...]:
    """A positive multiple of a rational point with integer coordinates."""
    from math import lcm

    q = [fmpq(a) for a in point]
    den = lcm(*(int(a.q) for a in q))
    return tuple(int(a * den) for a in q)


def _rank(ints) -> int:
    from verify.linalg.exact import rank

    return rank(ints) if ints and ints[0] else 0


def _check_witnesses(ints, signs: np.ndarray, Z: np.ndarray) -> None:
    """Exact check ``sign(M z) == signs`` for every cell (a guard, never skipped).

    Row ``c`` of ``Z`` is the witness of row ``c`` of ``signs``. ``int64`` is used only
    when the products provably fit; Python integers otherwise.
    """
    if len(signs) == 0:
        return
    A = np.array(ints, dtype=object)
    bound = _max_abs(A) * _max_abs(Z) * A.shape[1]
    if bound < 1 << 62:
        A, Z = A.astype(np.int64), Z.astype(np.int64)
    got = np.sign(Z @ A.T).astype(np.int8)
    bad = np.nonzero((got != signs).any(axis=1))[0]
    if len(bad):
        c = bad[0]
        raise AssertionError(f"internal error: the witness of {signs[c].tolist()} gives "
                             f"{got[c].tolist()}")


def _max_abs(X: np.ndarray) -> int:
    """``max |x|`` over an integer array (Python integers: exact for any size)."""
    if X.size == 0:
        return 0
    return max(abs(int(X.max())), abs(int(X.min())))
