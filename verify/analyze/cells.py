r"""Cell counts of a head: the sign pattern and the ranking pattern, when affordable.

Mathematics
-----------
The sign pattern ``S(W)`` and the ranking pattern ``R(W) = S(B_n W)``
(:mod:`verify.arrangement`) are enumerated only when affordable. Before enumerating, an
upper bound is computed: ``K`` distinct hyperplanes in rank ``r`` have at most
``2 sum_{k < r} C(K - 1, k)`` cells, with equality in general position (Zaslavsky,
1975; :func:`verify.arrangement.cocircuits.generic_tope_count`). For ``S(W)``, ``K`` is
the number of rows up to positive and negative scaling and ``r = rank W``; for
``R(W)``, ``K`` is the number of distinct directions among the differences
``w_i - w_j`` (at most ``C(n, 2)``, the value used above 300 labels) and ``r`` is
their rank. A zero row empties ``S(W)``; two equal rows empty ``R(W)``.

References
----------
T. Zaslavsky, *Facing up to arrangements*, Mem. AMS 154 (1975).
"""

from __future__ import annotations

from math import comb, log10
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from flint import fmpz_mat

from verify.analyze.head import ExactHead, FieldHead, make_head
from verify.analyze.neighbours import _nonzero_rows

if TYPE_CHECKING:
    from verify.analyze.head import HeadInput

__all__ = [
    "DEFAULT_MAX_CELLS",
    "cell_counts",
    "json_cells",
    "magnitude",
]

DEFAULT_MAX_CELLS = 200_000
#: Above this many entries of W the cell-count bounds use d in place of the exact rank.
EXACT_RANK_MAX_ENTRIES = 10**6
#: Above this many labels the ranking bound uses C(n, 2) hyperplanes.
EXACT_HYPERPLANES_MAX_LABELS = 300


def _primitive_direction(row: Sequence[int]) -> tuple | None:
    from math import gcd

    g = gcd(*row)
    if g == 0:
        return None
    v = [a // g for a in row]
    first = next(a for a in v if a != 0)
    return tuple(v) if first > 0 else tuple(-a for a in v)


def _int_rank(rows) -> int:
    if not rows or not rows[0]:
        return 0
    return fmpz_mat([list(r) for r in rows]).rank()


def magnitude(count: int) -> str:
    """``count`` in decimal, or ``about 10^e`` (``e`` to one decimal) when it has more
    than 15 digits: the bound of a language-model head has tens of thousands of
    digits, more than Python converts to a string by default."""
    if count < 10 ** 15:
        return str(count)
    return f"about 10^{log10(count):.1f}"


#: Bounds with more digits are ``null`` in the JSON (a JSON reader in Python refuses
#: integers of more than 4,300 digits by default); the note gives their magnitude.
BOUND_MAX_DIGITS = 4000


def json_cells(cells: dict | None) -> dict | None:
    """The cell counts for the JSON: bounds of more than ``BOUND_MAX_DIGITS`` digits
    as ``null``."""
    if cells is None:
        return None
    return {kind: {**entry, "bound": entry["bound"] if entry["bound"] is None
                   or entry["bound"] < 10 ** BOUND_MAX_DIGITS else None}
            for kind, entry in cells.items()}


def _bound(K: int, r: int) -> int:
    from verify.arrangement.cocircuits import generic_tope_count

    if K == 0:
        return 1
    return generic_tope_count(K, max(r, 1))


def cell_counts(W: HeadInput, *, max_cells: int = DEFAULT_MAX_CELLS,
                force: bool = False) -> dict[str, Any]:
    """Bounds and, when affordable (or forced), exact counts of ``S(W)`` and ``R(W)``.

    Returns ``{"sign": {...}, "ranking": {...}}``, each with ``hyperplanes``, ``rank``,
    ``bound`` (an upper bound on the number of cells), ``count`` (exact, or None when
    not computed) and ``note`` (why not, or why the pattern is empty).
    """
    head = make_head(W)
    if isinstance(head, FieldHead):
        return _field_cell_counts(head, max_cells, force)
    if head.n * head.d > EXACT_RANK_MAX_ENTRIES:
        return _large_cell_counts(head, max_cells, force)
    n = head.n
    Z = head.Z
    out = {}
    # Sign pattern of the rows.
    dirs = [_primitive_direction(r) for r in Z]
    if any(v is None for v in dirs):
        zero = [i for i, v in enumerate(dirs) if v is None]
        out["sign"] = {"hyperplanes": None, "rank": _int_rank(Z), "bound": 0, "count": 0,
                       "note": f"label {zero[0]} has a zero row: the sign pattern is empty"}
    else:
        K, r = len(set(dirs)), _int_rank(Z)
        out["sign"] = _maybe_count(head, "sign", K, r, max_cells, force)
    # Ranking pattern: hyperplanes w_i - w_j.
    seen: dict = {}
    equal = None
    for i, row in enumerate(Z):
        if row in seen:
            equal = (seen[row], i)
            break
        seen[row] = i
    diffs = [[a - b for a, b in zip(Z[i], Z[0])] for i in range(1, n)]
    r = _int_rank(diffs) if diffs else 0
    if equal is not None:
        out["ranking"] = {"hyperplanes": None, "rank": r, "bound": 0, "count": 0,
                          "note": f"labels {equal[0]} and {equal[1]} have equal rows: "
                                  "the ranking pattern is empty"}
    else:
        if n <= EXACT_HYPERPLANES_MAX_LABELS:
            K = len({_primitive_direction([a - b for a, b in zip(Z[i], Z[j])])
                     for i in range(n) for j in range(i + 1, n)})
        else:
            K = comb(n, 2)
        out["ranking"] = _maybe_count(head, "ranking", K, r, max_cells, force)
    return out


def _large_cell_counts(head: ExactHead, max_cells: int, force: bool) -> dict:
    """Cell counts of a head too large for an exact rank: bounds with ``rank <= d``.

    The bound ``2 sum_{k < r} C(K - 1, k)`` grows with ``r``, so ``min(n, d)`` (sign)
    and ``min(n - 1, d)`` (ranking) in place of the rank keep it an upper bound; the
    rank is reported as ``null``. ``K`` is the number of rows up to scaling (sign) and
    ``C(n, 2)`` (ranking).
    """
    n, d = head.n, head.d
    nonzero = _nonzero_rows(head)
    out = {}
    if not nonzero.all():
        zero = int(np.flatnonzero(~nonzero)[0])
        out["sign"] = {"hyperplanes": None, "rank": None, "bound": 0, "count": 0,
                       "note": f"label {zero} has a zero row: the sign pattern is empty"}
    else:
        out["sign"] = _maybe_count(head, "sign", _distinct_directions(head), min(n, d),
                                   max_cells, force, rank=None)
    repeated = [g for g in head.equal_row_groups() if len(g) > 1]
    if repeated:
        a, b = min((g[0], g[1]) for g in repeated)
        out["ranking"] = {"hyperplanes": None, "rank": None, "bound": 0, "count": 0,
                          "note": f"labels {a} and {b} have equal rows: the ranking "
                                  "pattern is empty"}
    else:
        out["ranking"] = _maybe_count(head, "ranking", comb(n, 2), min(n - 1, d),
                                      max_cells, force, rank=None)
    return out


def _distinct_directions(head: ExactHead) -> int:
    """The number of non-zero rows up to scaling by a non-zero number."""
    if head.Zarr is None:
        return len({_primitive_direction(r) for r in head.Z})
    Z = head.Zarr // np.gcd.reduce(head.Zarr, axis=1)[:, None]
    first = Z[np.arange(Z.shape[0]), np.argmax(Z != 0, axis=1)]
    Z *= np.where(first < 0, -1, 1)[:, None]
    # A set of the rows' bytes: np.unique(Z, axis=0) sorts them (3.6 s at 50,257 x 768).
    return len({row.tobytes() for row in Z})


def _maybe_count(head: ExactHead, kind: str, K: int, r: int, max_cells: int,
                 force: bool, rank: int | None = -1) -> dict:
    bound = _bound(K, r)
    entry = {"hyperplanes": K, "rank": r if rank == -1 else rank, "bound": bound,
             "count": None, "note": None}
    if bound > max_cells and not force:
        entry["note"] = (f"not computed: up to {magnitude(bound)} cells (more than --max-cells "
                         f"{max_cells}); --force computes it")
        return entry
    from verify.arrangement import ranking_pattern, sign_pattern

    if kind == "sign":
        entry["count"] = sign_pattern(head.rows).count
    else:
        entry["count"] = ranking_pattern(head.rows).count
    return entry


def _field_cell_counts(head: FieldHead, max_cells: int, force: bool) -> dict:
    """The same for rows with square roots, by the exact chirotope engine.

    The bound uses the number of rows (at least the number of distinct hyperplanes)
    and ``d`` (at least the rank).
    """
    from verify.arrangement.chirotope import field_topes

    n, d, rows = head.n, head.d, head.rows
    out = {}
    zero = [i for i, row in enumerate(rows) if all(x == 0 for x in row)]
    if zero:
        out["sign"] = {"hyperplanes": None, "rank": None, "bound": 0, "count": 0,
                       "note": f"label {zero[0]} has a zero row: the sign pattern is empty"}
    else:
        out["sign"] = _maybe_field(rows, n, d, max_cells, force, field_topes)
    equal = next(((i, j) for i in range(n) for j in range(i + 1, n)
                  if all(a == b for a, b in zip(rows[i], rows[j]))), None)
    if equal is not None:
        out["ranking"] = {"hyperplanes": None, "rank": None, "bound": 0, "count": 0,
                          "note": f"labels {equal[0]} and {equal[1]} have equal rows: "
                                  "the ranking pattern is empty"}
    elif n == 1:
        out["ranking"] = {"hyperplanes": 0, "rank": 0, "bound": 1, "count": 1, "note": None}
    else:
        diffs = [[a - b for a, b in zip(rows[i], rows[j])]
                 for i in range(n) for j in range(i + 1, n)]
        out["ranking"] = _maybe_field(diffs, comb(n, 2), d, max_cells, force, field_topes)
    return out


def _maybe_field(rows, K: int, d: int, max_cells: int, force: bool, topes) -> dict:
    bound = _bound(K, min(d, K))
    entry = {"hyperplanes": None, "rank": None, "bound": bound, "count": None, "note": None}
    if bound > max_cells and not force:
        entry["note"] = (f"not computed: up to {magnitude(bound)} cells (more than --max-cells "
                         f"{max_cells}); --force computes it")
        return entry
    entry["count"] = len(topes(rows))
    return entry
