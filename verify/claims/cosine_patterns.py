"""Lemma 5.3 and Theorem 5.6: sign patterns are determined by cosine matrices.

* Lemma 5.3. If the rows of ``W`` are non-zero, ``S(C(W)) = S(W)``.
* Theorem 5.6. If the rows of ``B_n W`` are non-zero, ``S(C(B_n W)) = R(W) = S(B_n W)``.

Both sides are computed exactly and independently:

* ``S(M)`` by the integer engine (:func:`verify.arrangement.sign_pattern`: cocircuits of
  the rational matrix, every cell with a rational witness);
* ``S(C(M))`` from the cosine matrix itself, with entries ``q sqrt(r)`` computed exactly,
  by the chirotope of its column space (:mod:`verify.arrangement.chirotope`): signs of
  determinants over ``Q(sqrt 2, sqrt 3, ...)``, decided by rigorous ball arithmetic or
  exact arithmetic, never by the scalings ``C = D^-1 M M^T D^-1`` that prove the lemma.

Also reported, as in the published check (there in floating point): whether the
chirotopes of ``M`` and ``C(M)`` (signs of all maximal minors of a column basis) agree up
to a global sign.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from flint import fmpz_mat

from verify.arrangement import braid_product, sign_pattern
from verify.arrangement.chirotope import ChirotopeOracle, exact_column_basis, field_topes
from verify.linalg import column_basis, primitive_integer_row, to_fmpq_rows
from verify.numbers.sqrt_sum import cosine_matrix


@dataclass
class MatrixCheck:
    """The outcome for one matrix."""

    status: str                       # "agree", "disagree" or "skipped"
    reason: str = ""                  # why skipped
    lhs: list = field(default_factory=list)   # S(M) as sorted sign strings
    rhs: list = field(default_factory=list)   # S(C(M)) as sorted sign strings
    chirotopes_agree: bool | None = None

    @property
    def cells(self) -> int:
        return len(self.lhs)


def claim_matrix(claim_id: str, W) -> tuple[list | None, str]:
    """The matrix ``M`` the claim is about, or ``None`` and the reason it is outside the
    claim's hypotheses."""
    rows = to_fmpq_rows(W)
    if claim_id == "lemma 5.3":
        zero = [i for i, row in enumerate(rows) if not any(row)]
        if zero:
            return None, "a zero row"
        return rows, ""
    if claim_id == "theorem 5.6":
        seen = {}
        for i, row in enumerate(rows):
            if tuple(row) in seen:
                return None, "two equal rows"
            seen[tuple(row)] = i
        return braid_product(rows), ""
    raise ValueError(f"not a cosine-pattern claim: {claim_id}")


def check_matrix(claim_id: str, W, *, cosine=None, chirotopes: bool = True,
                 stats: dict | None = None) -> MatrixCheck:
    """Check one matrix: both sides exactly and independently, then compare.

    ``cosine`` computes the cosine matrix (default :func:`cosine_matrix`, looked up at
    call time); tests replace it by a corrupted one to show that the check can fail.
    """
    M, reason = claim_matrix(claim_id, W)
    if M is None:
        return MatrixCheck(status="skipped", reason=reason)
    lhs = sign_pattern(M).patterns
    C = (cosine or cosine_matrix)(M)
    rhs = sorted("".join("+" if s > 0 else "-" for s in T)
                 for T in field_topes(C, stats=stats))
    agree = lhs == rhs
    chi = chirotopes_agree(M, C) if chirotopes else None
    return MatrixCheck(status="agree" if agree else "disagree", lhs=lhs, rhs=rhs,
                       chirotopes_agree=chi)


def rational_chirotope(M) -> dict[tuple[int, ...], int]:
    """``sign det M[I, B]`` for every ``r``-subset ``I`` of rows (``B`` a column basis)."""
    ints = [primitive_integer_row(row) for row in to_fmpq_rows(M)]
    basis = column_basis(ints)
    r = len(basis)
    reduced = [[row[j] for j in basis] for row in ints]
    out = {}
    for I in combinations(range(len(reduced)), r):
        det = fmpz_mat([reduced[i] for i in I]).det() if r else 1
        out[I] = (det > 0) - (det < 0)
    return out


def field_chirotope(C) -> dict[tuple[int, ...], int]:
    """The same for a matrix over ``Q(sqrt ...)`` (exact column basis, exact signs)."""
    basis = exact_column_basis(C)
    reduced = [[row[j] for j in basis] for row in C]
    oracle = ChirotopeOracle(reduced)
    return {I: oracle.sign(I) for I in combinations(range(len(reduced)), len(basis))}


def chirotopes_agree(M, C) -> bool:
    """True iff the chirotopes of ``M`` and ``C`` are equal or opposite (same rank too)."""
    a, b = rational_chirotope(M), field_chirotope(C)
    if set(a) != set(b):
        return False  # different ranks
    if all(a[I] == b[I] for I in a):
        return True
    return all(a[I] == -b[I] for I in a)
