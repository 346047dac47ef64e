"""Certified chirotopes over Q(sqrt 2, sqrt 3, ...) (verify.arrangement.field_chirotope).

Every sign of the certified table is compared with the exact determinant of the same
rows over the field (division-free expansion, exact zero test), which is the slow
method the filter, the certified dependencies and the closure replace. The matrices
are built to exercise each way a sign gets decided: planted dependencies with
irrational coefficients (zero minors with many-term entries), minors far below the
filter's resolution that are not zero, and the cosine matrices of braid products.
"""

from __future__ import annotations

import numpy as np
import pytest
from flint import fmpq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verify.arrangement import braid_product
from verify.arrangement.chirotope import exact_column_basis, field_topes
from verify.arrangement.field_chirotope import FIXED_POINT_BITS, certified_chirotope
from verify.arrangement.oriented_matroid import agree_up_to_sign, colex_combinations, topes
from verify.claims.cosine_patterns import rational_chirotope
from verify.numbers.sqrt_sum import SqrtSum, cosine_matrix, det

SETTINGS = settings(max_examples=60, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

S = SqrtSum.sqrt


def exact_table(P) -> list[int]:
    """``sign det P[I]`` over all ``r``-subsets in colexicographic order, one at a time."""
    K, r = len(P), len(P[0])
    return [det([P[i] for i in I]).sign() for I in colex_combinations(K, r)]


def column_reduced(C):
    basis = exact_column_basis(C)
    return [[row[j] for j in basis] for row in C]


coefficients = st.builds(lambda q, s: SqrtSum(fmpq(*q)) * S(s),
                         st.tuples(st.integers(-4, 4), st.integers(1, 3)),
                         st.sampled_from([1, 2, 3, 5, 6]))


@st.composite
def planted_matrices(draw):
    """Rows in Q(sqrt)^r: free rows, then combinations of earlier rows with irrational
    coefficients (exact dependencies whose entries are sums of several roots)."""
    r = draw(st.integers(1, 4))
    free = draw(st.lists(st.lists(coefficients, min_size=r, max_size=r), min_size=r,
                         max_size=r + 2))
    rows = list(free)
    for _ in range(draw(st.integers(0, 3))):
        a, b = draw(st.sampled_from(range(len(rows)))), draw(st.sampled_from(range(len(rows))))
        x, y = draw(coefficients), draw(coefficients)
        rows.append([x * u + y * v for u, v in zip(rows[a], rows[b])])
    return rows


@SETTINGS
@given(planted_matrices())
def test_certified_signs_equal_exact_determinants(P):
    if len(exact_column_basis(P)) < len(P[0]):
        return  # rank-deficient: no chirotope of this rank to compare
    stats = {}
    chi = certified_chirotope(P, stats=stats)
    assert chi.table.tolist() == exact_table(P)
    decided = (stats["chirotope_filter"] + stats["chirotope_contains_dependent_set"]
               + stats["chirotope_closure"] + stats["chirotope_exact"])
    assert decided == len(chi.table)


def test_a_minor_below_the_filter_resolution_is_decided_exactly():
    tiny = SqrtSum(fmpq(1, 2 ** (FIXED_POINT_BITS + 30))) * S(2)
    P = [[1, 1], [1, 1 + tiny], [S(2), S(2)], [1, -1]]
    stats = {}
    chi = certified_chirotope(P, stats=stats)
    assert chi.table.tolist() == exact_table(P)
    assert chi.table.tolist()[0] == 1            # det [[1,1],[1,1+tiny]] = tiny > 0
    assert stats["chirotope_exact"] >= 2         # the tiny one and the exact zero


def test_a_near_dependency_is_not_mistaken_for_one(monkeypatch):
    """Row 2 = row 0 + row 1 up to 2^-100: the filter suspects the three rows of being
    dependent, and the bordered minors refute it exactly."""
    from verify.arrangement import field_chirotope as fc

    outcomes = []
    certify = fc._certify_dependent
    monkeypatch.setattr(fc, "_certify_dependent",
                        lambda *args: outcomes.append(certify(*args)) or outcomes[-1])
    tiny = SqrtSum(fmpq(1, 2 ** 100)) * S(3)
    a, b = [1, S(2), 0, S(5)], [S(3), 0, 1, 1]
    near = [x + y for x, y in zip(a, b)]
    near[1] = near[1] + tiny
    P = [a, b, near, [1, 0, 0, 0], [0, 0, 1, 1], [0, 1, 1, 0]]
    chi = certified_chirotope(P)
    assert chi.table.tolist() == exact_table(P)
    assert False in outcomes      # the suspected dependency {0, 1, 2} was refuted


@pytest.mark.parametrize("n, d, seed", [(5, 3, 0), (6, 4, 1), (6, 3, 2)])
def test_cosine_matrices_of_braid_products(n, d, seed):
    rng = np.random.default_rng(seed)
    W = rng.integers(-3, 4, size=(n, d)).tolist()
    M = braid_product(W)
    P = column_reduced(cosine_matrix(M))
    stats = {}
    chi = certified_chirotope(P, stats=stats)
    assert chi.table.tolist() == exact_table(P)
    assert agree_up_to_sign(chi, rational_chirotope(M))
    if len(P[0]) >= 4:   # triangles are certified, larger cycles follow by closure
        assert stats["chirotope_dependencies_certified"] > 0
        assert stats["chirotope_contains_dependent_set"] > 0
        assert stats["chirotope_closure"] > 0


def test_field_topes_with_and_without_witnesses():
    W = [[0, 0], [3, 1], [1, 4], [-2, 2]]
    C = cosine_matrix(braid_product(W))
    plain = field_topes(C)
    signs, points = field_topes(C, witnesses=True)
    assert plain == signs == sorted(signs)
    for T in signs:
        values = [sum((a * b for a, b in zip(row, points[T])), SqrtSum(0)) for row in C]
        assert tuple(v.sign() for v in values) == T


def test_topes_of_the_cosine_side_match_the_chirotope_of_the_rational_side():
    rng = np.random.default_rng(5)
    W = rng.integers(-4, 5, size=(6, 3)).tolist()
    M = braid_product(W)
    a = topes(certified_chirotope(column_reduced(cosine_matrix(M))))
    b = topes(rational_chirotope(M))
    assert np.array_equal(a, b)


def test_rank_one():
    P = [[S(2)], [-S(3)], [SqrtSum(fmpq(1, 3))], [0]]
    assert certified_chirotope(P).table.tolist() == [1, -1, 1, 0]


def test_rows_of_very_different_sizes():
    """One power of two per row: a huge row does not blind the filter to the others."""
    huge = SqrtSum(10 ** 40)
    P = [[huge * S(2), huge], [1, S(3)], [S(5), -1], [2, 1]]
    stats = {}
    chi = certified_chirotope(P, stats=stats)
    assert chi.table.tolist() == exact_table(P)
    assert stats["chirotope_filter"] == len(chi.table)


def _pell_gap():
    """``sqrt 2 - p/q`` for the first convergent with ``q > 10^12``: about ``3 10^-25``,
    far below what the filter resolves in a row whose terms are about 1."""
    p, q = 1, 1
    while q <= 10 ** 12:
        p, q = p + 2 * q, p + q
    return S(2) - SqrtSum(fmpq(p, q))


def test_rows_the_filter_cannot_resolve_are_not_taken_as_dependent(monkeypatch):
    """Two rows that are tiny multiples of independent vectors: the filter proves none
    of their minors non-zero, so no row of the pair is proved independent and the pair is
    not certified dependent (its maximal minors go to exact determinants)."""
    from verify.arrangement import field_chirotope as fc

    outcomes = []
    certify = fc._certify_dependent
    monkeypatch.setattr(fc, "_certify_dependent",
                        lambda *args: outcomes.append(certify(*args)) or outcomes[-1])
    e = _pell_gap()
    assert e.sign() != 0
    P = [[e, 2 * e, 3 * e], [e, -e, 5 * e], [1, 1, 7], [1, 0, 0], [0, S(3), 1]]
    chi = certified_chirotope(P)
    assert chi.table.tolist() == exact_table(P)
    assert chi.table.tolist()[0] == -1  # det = -10 e^2
    assert outcomes and not any(outcomes)  # the pair was suspected, and not certified
