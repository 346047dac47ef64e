"""Proposition E.2: ``S(M)`` is the set of open orthants met by the column span of ``M``.

The engine computes ``S(M)`` as the topes of the arrangement with normals the rows of
``M`` (cocircuits, each cell with a witness). The check here is the definition taken
literally: each of the ``2^N`` open orthants ``s`` is decided on its own, by the exact
LP oracle, as met (a point ``z`` with ``s_i (M z)_i > 0``, i.e. ``M z`` in the open
orthant) or not met (a Gordan certificate). Only orthants up to the symmetry
``s -> -s`` (``z -> -z``) are solved. Limited to ``N <= 12`` rows.
"""

from __future__ import annotations

from itertools import product

from verify.arrangement import sign_pattern
from verify.claims.cosine_patterns import MatrixCheck
from verify.lp.feasibility import Witness, strict_feasibility
from verify.linalg.exact import to_fmpq_rows

MAX_ROWS = 12


def orthants_met(M) -> list[str]:
    """Every open orthant met by the column span of ``M``, by one exact LP each."""
    rows = to_fmpq_rows(M)
    met = set()
    for tail in product("+-", repeat=len(rows) - 1):
        s = "+" + "".join(tail)
        system = [row if c == "+" else [-a for a in row] for row, c in zip(rows, s)]
        if isinstance(strict_feasibility(system), Witness):
            met.add(s)
            met.add("".join("-" if c == "+" else "+" for c in s))
    return sorted(met)


def check_matrix(claim_id: str, W, *, stats: dict | None = None, **_) -> MatrixCheck:
    rows = to_fmpq_rows(W)
    if len(rows) > MAX_ROWS:
        return MatrixCheck(status="skipped", reason=f"more than {MAX_ROWS} rows")
    lhs = orthants_met(rows)
    rhs = sign_pattern(rows).patterns
    return MatrixCheck(status="agree" if lhs == rhs else "disagree", lhs=lhs, rhs=rhs)
