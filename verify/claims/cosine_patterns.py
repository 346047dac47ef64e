"""Lemma 5.3 and Theorem 5.6: sign patterns are determined by cosine matrices.

* Lemma 5.3. If the rows of ``W`` are non-zero, ``S(C(W)) = S(W)``.
* Theorem 5.6. If the rows of ``B_n W`` are non-zero, ``S(C(B_n W)) = R(W) = S(B_n W)``.

Both sides are computed exactly and independently:

* ``S(M)`` by the integer engine (:func:`verify.arrangement.sign_pattern`: cocircuits of
  the rational matrix, every cell with a rational witness);
* ``S(C(M))`` from the cosine matrix itself, with entries ``q sqrt(r)`` computed exactly,
  by the chirotope of its column space (:mod:`verify.arrangement.chirotope`): signs of
  determinants over ``Q(sqrt 2, sqrt 3, ...)``, certified by a rigorous integer filter,
  certified linear dependencies or exact determinants, never by the scalings
  ``C = D^-1 M M^T D^-1`` that prove the lemma; then the topes of that chirotope.

Also reported, as in the published check (there in floating point): whether the
chirotopes of ``M`` and ``C(M)`` (signs of all maximal minors of a column basis) agree up
to a global sign.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb

import numpy as np

from verify.arrangement import braid_product, sign_pattern
from verify.arrangement.chirotope import field_chirotope
from verify.arrangement.compound import maximal_minors
from verify.arrangement.field_chirotope import MAX_SIGNS
from verify.arrangement.oriented_matroid import TableChirotope, agree_up_to_sign, topes
from verify.io.errors import TooLargeError
from verify.linalg.exact import column_basis, primitive_integer_row, to_fmpq_rows
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


#: The steps of one check, as reported to a progress display.
STEPS = ("S(M) by the rational engine", "chirotope of C(M)", "topes of C(M)",
         "chirotope of M")


def check_matrix(claim_id: str, W, *, cosine=None, chirotopes: bool = True,
                 stats: dict | None = None, progress=None) -> MatrixCheck:
    """Check one matrix: both sides exactly and independently, then compare.

    ``cosine`` computes the cosine matrix (default :func:`cosine_matrix`, looked up at
    call time); tests replace it by a corrupted one to show that the check can fail.
    ``progress``, if given, is called with each entry of :data:`STEPS` as it starts.
    """
    step = progress or (lambda name: None)
    M, reason = claim_matrix(claim_id, W)
    if M is None:
        return MatrixCheck(status="skipped", reason=reason)
    if not M:
        # n = 1: B_n W and C(B_n W) have no rows; each pattern is the one empty sign
        # vector (one label has one ranking), and both chirotopes are empty.
        return MatrixCheck(status="agree", lhs=[""], rhs=[""], chirotopes_agree=True)
    step(STEPS[0])
    lhs = sign_pattern(M).patterns
    step(STEPS[1])
    C = (cosine or cosine_matrix)(M)
    chi_C = field_chirotope(C, stats=stats)
    step(STEPS[2])
    rhs = _sign_strings(topes(chi_C))
    agree = lhs == rhs
    if chirotopes:
        step(STEPS[3])
    chi = agree_up_to_sign(rational_chirotope(M), chi_C) if chirotopes else None
    return MatrixCheck(status="agree" if agree else "disagree", lhs=lhs, rhs=rhs,
                       chirotopes_agree=chi)


def _sign_strings(signs: np.ndarray) -> list[str]:
    """Rows of +-1 as strings of '+' and '-', sorted (ASCII order: '+' < '-')."""
    if len(signs) == 0:
        return []
    text = np.ascontiguousarray(np.where(signs > 0, ord("+"), ord("-")).astype(np.uint8))
    return sorted(s.decode("ascii") for s in text.view(f"S{signs.shape[1]}").ravel())


def rational_chirotope(M) -> TableChirotope:
    """``sign det M[I, B]`` for every ``r``-subset ``I`` of rows (``B`` a column basis),
    exactly (integer maximal minors of the primitive integer rows)."""
    ints = [primitive_integer_row(row) for row in to_fmpq_rows(M)]
    basis = column_basis(ints)
    if comb(len(ints), len(basis)) > MAX_SIGNS:
        raise TooLargeError(f"{len(ints)} vectors in rank {len(basis)} have "
                            f"{comb(len(ints), len(basis)):,} maximal minors "
                            f"(limit {MAX_SIGNS:,})")
    reduced = np.array([[row[j] for j in basis] for row in ints], dtype=object)
    reduced = reduced.reshape(len(ints), len(basis))
    return TableChirotope(len(ints), len(basis), np.sign(maximal_minors(reduced)))


def chirotopes_agree(M, C) -> bool:
    """True iff the chirotopes of ``M`` and ``C`` are equal or opposite (same rank too)."""
    return agree_up_to_sign(rational_chirotope(M), field_chirotope(C))
