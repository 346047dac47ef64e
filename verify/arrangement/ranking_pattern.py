"""Ranking patterns ``R(W) = S(B_n W)`` of softmax classifiers.

Mathematics
-----------
The braid matrix ``B_n`` has the rows ``e_i - e_j`` for the pairs ``i < j`` in
lexicographic order ``(0,1), (0,2), ..., (0,n-1), (1,2), ...``. Entry ``(i, j)`` of
``B_n W x`` is ``w_i . x - w_j . x``, so a sign vector of ``B_n W`` says for every pair
which label has the larger logit (``+``: label ``i`` above label ``j``). Every sign
vector in ``R(W)`` is therefore a strict total order of the labels, the ranking the
softmax classifier gives to some input. The rows of ``B_n`` are the normals of the braid
arrangement (Stanley, *An Introduction to Hyperplane Arrangements*, Lecture 1).

Two equal rows of ``W`` give a zero row of ``B_n W``: those labels always tie and
``R(W)`` is empty. With ``affine=True`` a column of ones is prepended (the point
configuration ``[1 | W]``); it cancels in every difference, so the rankings are the same
and only the witnesses gain a coordinate.

Example
-------
>>> R = ranking_pattern([[0, 0], [1, 0], [0, 1]])
>>> R.count, R.rankings[0]
(6, (0, 1, 2))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence
from itertools import combinations

from flint import fmpq

from verify.arrangement.sign_pattern import Cell, SignPattern, preview, sign_pattern
from verify.linalg.exact import to_fmpq_rows


def label_pairs(n: int) -> list[tuple[int, int]]:
    """The pairs ``i < j`` in the row order of ``B_n``."""
    return list(combinations(range(n), 2))


def braid_matrix(n: int) -> list[list[int]]:
    """``B_n``: the ``C(n,2) x n`` matrix with rows ``e_i - e_j``, ``i < j`` lexicographic."""
    rows = []
    for i, j in label_pairs(n):
        row = [0] * n
        row[i], row[j] = 1, -1
        rows.append(row)
    return rows


def braid_product(W) -> list[list[fmpq]]:
    """``B_n W`` computed directly as the row differences ``w_i - w_j``."""
    rows = to_fmpq_rows(W)
    return [[a - b for a, b in zip(rows[i], rows[j])] for i, j in label_pairs(len(rows))]


def ranking_from_signs(signs: str, n: int) -> tuple[int, ...]:
    """The labels from highest to lowest logit for a sign string over the pairs of ``B_n``.

    Raises ``ValueError`` if the signs are not a strict total order.
    """
    wins = [0] * n
    for (i, j), s in zip(label_pairs(n), signs):
        wins[i if s == "+" else j] += 1
    ranking = tuple(sorted(range(n), key=lambda i: -wins[i]))
    if sorted(wins) != list(range(n)):
        raise ValueError(f"{signs} is not a strict total order of {n} labels")
    return ranking


def signs_from_ranking(ranking, n: int | None = None) -> str:
    """Inverse of :func:`ranking_from_signs`."""
    n = len(ranking) if n is None else n
    position = {label: p for p, label in enumerate(ranking)}
    return "".join("+" if position[i] < position[j] else "-" for i, j in label_pairs(n))


@dataclass
class RankingPattern:
    """A ranking pattern: the sign pattern of ``B_n W`` read as rankings."""

    n: int
    d: int
    affine: bool
    signs: SignPattern
    rankings: list[tuple[int, ...]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def cells(self) -> Sequence[Cell]:
        return self.signs.cells

    @property
    def patterns(self) -> list[str]:
        return self.signs.patterns

    @property
    def count(self) -> int:
        return self.signs.count

    def __repr__(self) -> str:
        shown = preview([" > ".join(map(str, r)) for r in self.rankings[:5]])
        return (f"RankingPattern({self.n} labels, d = {self.d}"
                f"{', affine' if self.affine else ''}, {self.count} rankings: {shown})")

    def to_json(self) -> dict[str, Any]:
        """The object that ``python -m verify pattern --kind ranking --json`` prints:
        ``kind``, ``n``, ``d``, ``count``, ``patterns`` (signs over the pairs ``i < j``),
        ``witnesses`` and ``rankings`` (labels from first to last)."""
        return {**self.signs.to_json(), "kind": "ranking", "n": self.n, "d": self.d,
                "rankings": [list(r) for r in self.rankings]}

    def _summary(self) -> tuple[str, list[tuple[str, str]], str]:
        from verify.io.display import first

        rows = [("labels", f"{self.n} in dimension {self.d}"
                           + (" (affine: a column of ones)" if self.affine else "")),
                ("rankings", f"{self.count}: "
                             + first(self.rankings, shown=4,
                                     text=lambda r: " > ".join(map(str, r))))]
        if self.warnings:
            rows.append(("warnings", first(self.warnings, shown=2)))
        return ("RankingPattern R(W)", rows,
                ".cells[k].witness is an exact input producing ranking k; .to_json() gives "
                "them all; python -m verify pattern --kind ranking --certificate writes a "
                "checked certificate")

    def _repr_html_(self) -> str:
        """The summary that Jupyter shows."""
        from verify.io.display import summary_html

        return summary_html(*self._summary())

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """The summary that IPython's pretty printer shows."""
        from verify.io.display import pretty

        pretty(p, cycle, *self._summary())


def ranking_pattern(W, *, affine: bool = False, method: str = "cocircuits") -> RankingPattern:
    """The ranking pattern ``R(W)`` with one exact witness input ``x`` per ranking.

    Parameters
    ----------
    W : sequence of ``n`` rows of length ``d`` (exact rationals).
    affine : prepend a column of ones (point configuration ``[1 | W]``).
    method : enumeration method of :func:`sign_pattern`.
    """
    rows = to_fmpq_rows(W)
    n = len(rows)
    d = len(rows[0]) if rows else 0
    if affine:
        rows = [[fmpq(1)] + row for row in rows]
    equal = _equal_rows(rows)
    M = braid_product(rows)
    if equal:
        described = "; ".join(" = ".join(f"label {i}" for i in group) for group in equal)
        warning = f"equal rows ({described}): those labels always tie, the ranking pattern is empty"
        empty = SignPattern(matrix=M, cells=[], rank=0, hyperplanes=0, warnings=[warning])
        return RankingPattern(n=n, d=d, affine=affine, signs=empty, warnings=[warning])
    if n == 1:
        # One label: the single (empty) ranking, realised by any input.
        from verify.arrangement.sign_pattern import Cell

        cell = Cell(signs="", witness=tuple(fmpq(0) for _ in rows[0]))
        trivial = SignPattern(matrix=M, cells=[cell], rank=0, hyperplanes=0)
        return RankingPattern(n=n, d=d, affine=affine, signs=trivial, rankings=[(0,)])
    pattern = sign_pattern(M, method=method)
    rankings = [ranking_from_signs(c.signs, n) for c in pattern.cells]
    return RankingPattern(n=n, d=d, affine=affine, signs=pattern, rankings=rankings,
                          warnings=list(pattern.warnings))


def _equal_rows(rows) -> list[list[int]]:
    """Groups (of size >= 2) of labels with identical rows, in label order."""
    groups: dict[tuple, list[int]] = {}
    for i, row in enumerate(rows):
        groups.setdefault(tuple(row), []).append(i)
    return [g for g in groups.values() if len(g) > 1]
