"""Topes from chirotopes (verify.arrangement.oriented_matroid) and compound matrices.

References used here share no code with the engine: the certified orthant brute force
of ``reference.py`` (one exact LP or Gordan certificate per sign vector), flint's
determinants, Cover/Zaslavsky closed-form counts for generic configurations, and the
two localisation methods of the engine against each other.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from flint import fmpz_mat
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from reference import brute_force_sign_pattern, generic_central_count, matrix_rank
from strategies import degenerate_matrices, random_int_matrix, small_int_matrices
from verify.arrangement import oriented_matroid as om
from verify.arrangement.cocircuits import IntegerChirotope
from verify.arrangement.compound import column_subsets, compound_matrices, maximal_minors
from verify.linalg.exact import column_basis

SETTINGS = settings(max_examples=80, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def table_chirotope(M) -> om.TableChirotope:
    """The chirotope of the rows of an integer matrix, on a column basis, as a table."""
    basis = column_basis(M)
    reduced = np.array([[row[j] for j in basis] for row in M], dtype=object)
    reduced = reduced.reshape(len(M), len(basis))
    return om.TableChirotope(len(M), len(basis), np.sign(maximal_minors(reduced)))


def strings(signs) -> set[str]:
    return {"".join("+" if s > 0 else "-" for s in row) for row in signs}


# ---------------------------------------------------------------------------
# Compound matrices
# ---------------------------------------------------------------------------


@SETTINGS
@given(small_int_matrices(max_rows=7, max_cols=4, entries=range(-9, 10), min_rows=1))
def test_compound_matrices_are_the_minors(M):
    A = np.array(M, dtype=object)
    K, r = A.shape
    compounds = compound_matrices(A, r)
    for k in range(1, r + 1):
        rows = list(om.colex_combinations(K, k))
        assert compounds[k - 1].shape == (len(rows), len(column_subsets(r, k)))
        for i, I in enumerate(rows):
            for j, J in enumerate(column_subsets(r, k)):
                expected = fmpz_mat([[M[a][b] for b in J] for a in I]).det()
                assert compounds[k - 1][i, j] == expected


def test_compound_matrices_switch_to_python_integers_when_int64_could_overflow():
    big = 10 ** 15
    M = [[big, 1, 2], [3, big, 5], [7, 11, big], [big, -big, big]]
    minors = maximal_minors(np.array(M, dtype=object))
    assert minors.dtype == object
    for i, I in enumerate(om.colex_combinations(4, 3)):
        assert minors[i] == fmpz_mat([M[a] for a in I]).det()


def test_colex_order_and_rank():
    K, k = 7, 3
    subsets = om.colex_combinations(K, k)
    assert sorted(map(tuple, subsets), key=lambda s: s[::-1]) == list(map(tuple, subsets))
    assert len(subsets) == 35
    ranks = om.colex_rank(subsets, om.binomial_table(K, k))
    assert ranks.tolist() == list(range(35))


# ---------------------------------------------------------------------------
# Chirotope access
# ---------------------------------------------------------------------------


@SETTINGS
@given(st.integers(0, 2 ** 32 - 1))
def test_table_signs_are_the_alternating_determinant_signs(seed):
    rng = np.random.default_rng(seed)
    K, r = int(rng.integers(3, 8)), int(rng.integers(1, 4))
    assume(K >= r)
    M = rng.integers(-3, 4, size=(K, r)).tolist()
    assume(matrix_rank(M) == r)
    chi = om.TableChirotope(K, r, np.sign(maximal_minors(np.array(M, dtype=object))))
    integer = IntegerChirotope(np.array(M))
    rest = rng.integers(0, K, size=(20, r - 1))      # repeats allowed: then 0
    elements = rng.integers(0, K, size=(20, 4))
    got = chi.signs_with(rest, elements)
    assert np.array_equal(got, integer.signs_with(rest, elements))
    for m in range(20):
        for j in range(4):
            rows = [M[elements[m, j]]] + [M[i] for i in rest[m]]
            d = fmpz_mat(rows).det()
            assert got[m, j] == (d > 0) - (d < 0)


def test_chirotopes_agree_up_to_sign():
    M = [[1, 0], [0, 1], [1, 1]]
    a = table_chirotope(M)
    b = om.TableChirotope(3, 2, -a.table)
    assert om.agree_up_to_sign(a, b) and a != b
    c = om.TableChirotope(3, 2, np.array([1, 1, 1]))
    assert not om.agree_up_to_sign(a, c)
    assert not om.agree_up_to_sign(a, table_chirotope([[1], [2], [3]]))


@SETTINGS
@given(st.lists(st.lists(st.sampled_from([-1, 1]), min_size=7, max_size=7), max_size=30))
def test_unique_signs_sorts_like_python(rows):
    signs = np.array(rows, dtype=np.int8).reshape(len(rows), 7)
    unique, first, inverse = om.unique_signs(signs)
    assert [tuple(r) for r in unique] == sorted(set(map(tuple, rows)))
    assert np.array_equal(unique[inverse], signs)
    assert np.array_equal(signs[first], unique)


# ---------------------------------------------------------------------------
# Topes
# ---------------------------------------------------------------------------


def topes_with_limit(chi, limit):
    """Topes with flats of more than ``limit`` elements composed by recursion."""
    saved = om.BRUTE_FORCE_LIMIT
    try:
        om.BRUTE_FORCE_LIMIT = limit
        return om.topes(chi)
    finally:
        om.BRUTE_FORCE_LIMIT = saved


@SETTINGS
@given(degenerate_matrices(max_rows=8, max_cols=4, allow_zero_rows=True),
       st.sampled_from([0, 2, 12]))
def test_topes_of_the_chirotope_are_the_sign_pattern(M, limit):
    """Against the certified orthant brute force (one LP or certificate per orthant),
    with each localisation method; zero rows (loops) leave no topes."""
    expected = brute_force_sign_pattern(M)
    chi = table_chirotope(M)
    assert strings(topes_with_limit(chi, limit)) == expected
    integer = IntegerChirotope(np.array([[row[j] for j in column_basis(M)] for row in M]))
    assert strings(topes_with_limit(integer, limit)) == expected


@SETTINGS
@given(degenerate_matrices(max_rows=11, max_cols=4, allow_zero_rows=True),
       st.sampled_from([0, 1, 2, 3]))
def test_both_localisation_methods_agree(M, limit):
    """Brute force over sign vectors (default) against composition by recursion."""
    chi = table_chirotope(M)
    assert np.array_equal(om.topes(chi), topes_with_limit(chi, limit))


def test_a_loop_leaves_no_topes_on_either_path():
    for M in ([[1, 0]] * 13 + [[0, 1], [0, 0]], [[1, 0], [0, 1], [0, 0]]):
        for limit in (0, 12):
            assert len(topes_with_limit(table_chirotope(M), limit)) == 0


@pytest.mark.parametrize("K, r, seed", [(9, 3, 0), (10, 4, 1), (12, 4, 2), (14, 5, 3)])
def test_generic_configurations_have_the_closed_form_count(K, r, seed):
    M = random_int_matrix(seed, K, r, bound=10 ** 6)
    chi = table_chirotope(M)
    assert (chi.table != 0).all()   # general position (checked, not assumed)
    T = om.topes(chi)
    assert len(T) == generic_central_count(K, r)
    assert np.array_equal(T, om._sorted_rows(T))


def test_braid_configuration_against_the_brute_force():
    """Many parallel differences and large flats: B_n W for 5 points in the plane."""
    W = [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1]]
    M = [[a - b for a, b in zip(W[i], W[j])] for i, j in combinations(range(5), 2)]
    expected = brute_force_sign_pattern(M)
    assert strings(om.topes(table_chirotope(M))) == expected

