"""The comparison of Lemma 5.3 and Theorem 5.6 on one matrix, in-process.

``check_matrix`` must skip exactly the matrices outside a claim's hypothesis (with the
reason), handle one label, report the steps it runs, and compare the two sides (and
the chirotopes) as sets, recomputed here independently with ``Fraction``.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

from verify.arrangement.field_chirotope import MAX_SIGNS
from verify.claims import cosine_patterns
from verify.claims.cosine_patterns import (
    STEPS,
    _sign_strings,
    check_matrix,
    chirotopes_agree,
    claim_matrix,
    rational_chirotope,
)
from verify.io.errors import TooLargeError
from verify.numbers.sqrt_sum import cosine_matrix

from reference import brute_force_sign_pattern


def braid(W):
    V = [[Fraction(a) for a in row] for row in W]
    return [[a - b for a, b in zip(V[i], V[j])] for i, j in combinations(range(len(V)), 2)]


def test_claim_matrix_is_the_claim_s_matrix_or_the_reason_to_skip():
    assert claim_matrix("lemma 5.3", [[1, 2], [0, 0]]) == (None, "a zero row")
    assert claim_matrix("theorem 5.6", [[1, 2], [3, 4], [1, 2]]) == (None, "two equal rows")
    M, reason = claim_matrix("lemma 5.3", [[1, 2], [3, 4]])
    assert reason == "" and M == [[1, 2], [3, 4]]
    W = [[1, 2], [3, -4], [0, 5]]
    M, reason = claim_matrix("theorem 5.6", W)
    assert reason == "" and [[Fraction(str(a)) for a in row] for row in M] == braid(W)
    # A zero row is inside the hypothesis of 5.6 (only equal rows are not).
    M, reason = claim_matrix("theorem 5.6", [[0, 0], [1, 1]])
    assert reason == "" and M == [[-1, -1]]
    with pytest.raises(ValueError, match="not a cosine-pattern claim: lemma 3.1"):
        claim_matrix("lemma 3.1", W)


@pytest.mark.parametrize("claim, W, reason", [
    ("lemma 5.3", [[1, 0], [0, 0], [1, 1]], "a zero row"),
    ("theorem 5.6", [[1, 0], [2, 2], [1, 0]], "two equal rows"),
])
def test_outside_the_hypothesis_is_skipped_with_the_reason(claim, W, reason):
    result = check_matrix(claim, W)
    assert (result.status, result.reason, result.cells) == ("skipped", reason, 0)
    assert result.chirotopes_agree is None


def test_one_label_has_one_ranking():
    result = check_matrix("theorem 5.6", [[3, -1]])
    assert (result.status, result.lhs, result.rhs, result.chirotopes_agree) == \
        ("agree", [""], [""], True)
    assert result.cells == 1


@pytest.mark.parametrize("claim, W", [
    ("lemma 5.3", [[1, 0], [0, 1], [1, 1], [2, -1]]),
    ("theorem 5.6", [[0, 0], [1, 0], [0, 1], [2, 3]]),
])
def test_both_sides_are_the_brute_force_pattern_and_steps_are_reported(claim, W):
    seen, stats = [], {}
    result = check_matrix(claim, W, progress=seen.append, stats=stats)
    expected = sorted(brute_force_sign_pattern(claim_matrix(claim, W)[0]))
    assert result.lhs == result.rhs == expected
    assert (result.status, result.chirotopes_agree) == ("agree", True)
    assert seen == list(STEPS)
    assert stats and all(key.startswith("chirotope_") for key in stats)
    assert sum(stats.values()) > 0
    seen.clear()
    quick = check_matrix(claim, W, progress=seen.append, chirotopes=False)
    assert seen == list(STEPS[:3]) and quick.chirotopes_agree is None
    assert quick.lhs == expected


def test_chirotopes_of_a_corrupted_cosine_matrix_disagree():
    W = [[1, 0], [0, 1], [1, 1], [2, -1]]
    C = cosine_matrix(W)
    negated = [[-a for a in row] if i == 2 else row for i, row in enumerate(C)]
    assert chirotopes_agree(W, C)
    assert chirotopes_agree(W, [[-a for a in row] for row in C])     # a global sign
    assert not chirotopes_agree(W, negated)
    result = check_matrix("lemma 5.3", W, cosine=lambda M: negated)
    assert result.status == "disagree" and result.chirotopes_agree is False


def test_sign_strings_of_rows_of_signs():
    assert _sign_strings(np.zeros((0, 3), dtype=np.int8)) == []
    signs = np.array([[-1, 1, 1], [1, -1, -1], [1, 1, 1]], dtype=np.int8)
    assert _sign_strings(signs) == ["+++", "+--", "-++"]
    assert _sign_strings(np.array([[-1]], dtype=np.int8)) == ["-"]


def test_rational_chirotope_signs_and_size_limit(monkeypatch):
    M = [[1, 0], [0, 1], [1, 1], [Fraction(1, 2), -3]]
    chi = rational_chirotope(M)
    # det of rows (i, j) with Fractions, independently; the table is in colex order.
    pairs = sorted(combinations(range(4), 2), key=lambda pair: pair[::-1])
    for (i, j), value in zip(pairs, chi.table):
        det = Fraction(M[i][0]) * M[j][1] - Fraction(M[i][1]) * M[j][0]
        assert value == (det > 0) - (det < 0)
    assert (chi.size, chi.rank) == (4, 2)
    monkeypatch.setattr(cosine_patterns, "MAX_SIGNS", 6)   # C(4, 2) = 6 is allowed
    rational_chirotope(M)
    monkeypatch.setattr(cosine_patterns, "MAX_SIGNS", 5)
    with pytest.raises(TooLargeError, match="4 vectors in rank 2 have 6 maximal minors "
                                            r"\(limit 5\)"):
        rational_chirotope(M)
    assert MAX_SIGNS > 6


def test_rational_chirotope_of_large_entries():
    """Minors beyond 64 bits: the exact determinants, not wrapped machine integers."""
    big = 10**12 + 39
    M = [[big, 1], [1, big], [big + 1, big - 1]]
    pairs = sorted(combinations(range(3), 2), key=lambda pair: pair[::-1])
    for (i, j), value in zip(pairs, rational_chirotope(M).table):
        det = M[i][0] * M[j][1] - M[i][1] * M[j][0]
        assert value == (det > 0) - (det < 0)
