"""The reference methods checked against each other and against closed forms.

These tests do not touch the engine.  They establish that the yardsticks used
by ``test_pattern_crosscheck.py`` are right:

* the certified orthant brute force, Zaslavsky's lattice count and Whitney's
  subset expansion agree on random (including degenerate) matrices;
* the lattice code reproduces known lattices (braid arrangement: flats are set
  partitions, chi(t) = t(t-1)...(t-n+1)) and known counts (generic central
  arrangements);
* ``generic_ranking_count`` matches Cover's recurrence, the OEIS table, and the
  actual ranking patterns of random integer point configurations -- which
  settles that a generic W with d columns behaves like points in R^d, and that
  a column of ones contributes nothing.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations, permutations, product as cartesian

import numpy as np
import pytest
from flint import fmpq, fmpq_mat, fmpz
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference import (
    as_fraction_matrix,
    braid_rows,
    brute_force_sign_pattern,
    brute_force_witnesses,
    characteristic_polynomial,
    generic_central_count,
    generic_ranking_count,
    intersection_lattice,
    is_strict_total_order,
    matrix_rank,
    prepend_ones,
    primitive_normals,
    product,
    sign_string,
    signed_circuits,
    to_fraction,
    unsigned_stirling_first,
    whitney_characteristic_polynomial,
    whitney_region_count,
    zaslavsky_region_count,
)
from strategies import (
    TERNARY,
    degenerate_matrices,
    low_rank_matrices,
    point_configurations,
    random_int_matrix,
    scale_rows,
    small_int_matrices,
)


def examples(n: int):
    """Hypothesis settings: n examples, no deadline, no example database on disk."""
    return settings(
        max_examples=n,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def negate(s: str) -> str:
    return s.translate(str.maketrans("+-", "-+"))


# Theorem H.1 configurations (five labels in R^2).
H1_A = [[Fraction(-4, 5), 1], [Fraction(4, 5), 1], [Fraction(11, 20), Fraction(-1, 2)], [-1, -1], [1, -1]]
H1_B = [[-1, 1], [1, 1], [Fraction(7, 20), Fraction(-1, 2)], [Fraction(-4, 5), -1], [Fraction(4, 5), -1]]

# OEIS A071223: T(n, d) = number of linearly inducible orderings of n points in
# R^d (Cover 1967), rows n = 2..9, d = 1..n-1.
OEIS_A071223 = {
    2: [2],
    3: [2, 6],
    4: [2, 12, 24],
    5: [2, 20, 72, 120],
    6: [2, 30, 172, 480, 720],
    7: [2, 42, 352, 1512, 3600, 5040],
    8: [2, 56, 646, 3976, 14184, 30240, 40320],
    9: [2, 72, 1094, 9144, 45992, 143712, 282240, 362880],
}


# ---------------------------------------------------------------------------
# Helpers: numbers, braid rows, products, rankings
# ---------------------------------------------------------------------------


def test_to_fraction_accepts_exact_scalars_and_refuses_floats():
    assert to_fraction(3) == Fraction(3)
    assert to_fraction(np.int64(-7)) == Fraction(-7)
    assert to_fraction(Fraction(-4, 5)) == Fraction(-4, 5)
    assert to_fraction(fmpq(11, 20)) == Fraction(11, 20)
    assert to_fraction(fmpz(12)) == Fraction(12)
    assert to_fraction("-7/20") == Fraction(-7, 20)
    with pytest.raises(TypeError):
        to_fraction(0.5)


@pytest.mark.parametrize("n", range(0, 7))
def test_braid_rows_definition(n):
    B = braid_rows(n)
    pairs = list(combinations(range(n), 2))
    assert len(B) == len(pairs) == n * (n - 1) // 2
    for row, (i, j) in zip(B, pairs):
        expected = [0] * n
        expected[i], expected[j] = 1, -1
        assert row == expected


@examples(40)
@given(small_int_matrices(4, 4, range(-5, 6)), st.integers(1, 4), st.data())
def test_product_matches_numpy(A, p, data):
    B = data.draw(small_int_matrices(len(A[0]), p, range(-5, 6), min_rows=len(A[0]), min_cols=p))
    assert product(A, B) == (np.array(A, dtype=object) @ np.array(B, dtype=object)).tolist()


def test_product_shape_mismatch():
    with pytest.raises(ValueError):
        product([[1, 2]], [[1, 2]])


def _order_to_signs(order: tuple[int, ...]) -> str:
    position = {label: p for p, label in enumerate(order)}
    n = len(order)
    return "".join("+" if position[i] < position[j] else "-" for i, j in combinations(range(n), 2))


@pytest.mark.parametrize("n", range(1, 6))
def test_is_strict_total_order_decodes_every_permutation(n):
    for order in permutations(range(n)):
        assert is_strict_total_order(_order_to_signs(order), n) == order


def test_is_strict_total_order_counts_transitive_tournaments():
    # Of the 2^C(n,2) tournaments on n labels exactly n! are transitive.
    for n in range(1, 6):
        m = n * (n - 1) // 2
        decoded = [is_strict_total_order("".join(s), n) for s in cartesian("+-", repeat=m)]
        orders = [d for d in decoded if d is not None]
        assert len(orders) == len(set(orders)) == math.factorial(n)


def test_is_strict_total_order_rejects_cycles_and_bad_input():
    # 0 > 1, 1 > 2, 2 > 0: pairs (0,1) '+', (0,2) '-', (1,2) '+'.
    assert is_strict_total_order("+-+", 3) is None
    assert is_strict_total_order("+++", 3) == (0, 1, 2)
    assert is_strict_total_order("---", 3) == (2, 1, 0)
    with pytest.raises(ValueError):
        is_strict_total_order("++", 3)
    with pytest.raises(ValueError):
        is_strict_total_order("+0+", 3)


# ---------------------------------------------------------------------------
# Brute force
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("k", range(1, 5))
def test_brute_force_identity_gives_every_orthant(k):
    identity = [[int(i == j) for j in range(k)] for i in range(k)]
    assert brute_force_sign_pattern(identity) == {"".join(s) for s in cartesian("+-", repeat=k)}


def test_brute_force_small_closed_cases():
    assert brute_force_sign_pattern([]) == {""}  # no rows: one empty sign vector
    assert brute_force_sign_pattern([[3, -1]]) == {"+", "-"}
    assert brute_force_sign_pattern([[0, 0]]) == set()
    assert brute_force_sign_pattern([[1, 2], [0, 0], [2, 1]]) == set()
    assert brute_force_sign_pattern([[]]) == set()  # R^0: M z = 0
    # One column: M z = z * column, two sign vectors unless a zero entry.
    assert brute_force_sign_pattern([[2], [-1], [5]]) == {"+-+", "-+-"}
    # Parallel rows: equal, negated, scaled.
    assert brute_force_sign_pattern([[1, 1], [2, 2], [-1, -1]]) == {"++-", "--+"}
    # Three lines in the plane: 6 regions, the two missing orthants are
    # blocked by the dependency m0 + m1 - m2 = 0.
    P = brute_force_sign_pattern([[1, 0], [0, 1], [1, 1]])
    assert P == {"+++", "---", "+-+", "+--", "-++", "-+-"}


def test_brute_force_needs_negative_coordinates():
    # Orthants whose witnesses need negative z: guards the LP encoding of free
    # variables (sympy's bounds=(None, None) does not free them).
    assert brute_force_sign_pattern([[1, 0], [0, 1]]) == {"++", "+-", "-+", "--"}
    assert brute_force_sign_pattern([[1]]) == {"+", "-"}
    assert len(brute_force_sign_pattern(braid_rows(4))) == 24


def test_brute_force_row_limit():
    with pytest.raises(ValueError):
        brute_force_sign_pattern([[1]] * 13)


@examples(60)
@given(degenerate_matrices(max_rows=7, max_cols=4))
def test_brute_force_witnesses_are_exact_and_symmetric(M):
    witnesses = brute_force_witnesses(M)
    for s, z in witnesses.items():
        assert len(z) == len(M[0])
        assert sign_string(M, z) == s
    assert set(witnesses) == {negate(s) for s in witnesses}


@examples(25)
@given(degenerate_matrices(max_rows=6, max_cols=3))
def test_lp_on_every_orthant_agrees_with_certified_default(M):
    # lp_everywhere=True runs the LP on all 2^N orthants and raises if any
    # verdict disagrees with the Gordan certificates.
    assert brute_force_sign_pattern(M, lp_everywhere=True) == brute_force_sign_pattern(M)


@examples(40)
@given(degenerate_matrices(max_rows=7, max_cols=4))
def test_signed_circuits_are_minimal_dependencies(M):
    rows = as_fraction_matrix(M)
    for C, lam in signed_circuits(M):
        assert all(x != 0 for x in lam)
        for col in range(len(M[0])):
            assert sum(l * rows[i][col] for l, i in zip(lam, C)) == 0
        assert matrix_rank([rows[i] for i in C]) == len(C) - 1
        for drop in range(len(C)):  # every proper subset is independent
            rest = [rows[i] for t, i in enumerate(C) if t != drop]
            assert matrix_rank(rest) == len(rest)


@examples(30)
@given(
    degenerate_matrices(max_rows=6, max_cols=3, allow_zero_rows=False),
    st.lists(st.fractions(min_value=Fraction(-5), max_value=Fraction(5)).filter(lambda f: f != 0), min_size=6, max_size=6),
)
def test_brute_force_row_scaling(M, factors):
    # Scaling row i by c flips coordinate i of every sign vector iff c < 0.
    factors = factors[: len(M)]
    scaled = brute_force_sign_pattern(scale_rows(M, factors))
    expected = {
        "".join(ch if f > 0 else negate(ch) for ch, f in zip(s, factors)) for s in brute_force_sign_pattern(M)
    }
    assert scaled == expected


@examples(30)
@given(degenerate_matrices(max_rows=6, max_cols=3), st.data())
def test_brute_force_invariant_under_invertible_column_change(M, data):
    # S(M G) = S(M) for invertible G: z -> G z is a bijection of R^k.
    k = len(M[0])
    G = data.draw(small_int_matrices(k, k, range(-2, 3), min_rows=k, min_cols=k).filter(lambda G: matrix_rank(G) == k))
    assert brute_force_sign_pattern(product(M, G)) == brute_force_sign_pattern(M)


def test_brute_force_parallel_rows_are_consistent():
    M = [[1, 2, -1], [0, 1, 1], [-2, -4, 2], [3, 6, -3], [1, 0, 2]]
    for s in brute_force_sign_pattern(M):
        assert s[0] != s[2] and s[0] == s[3]


# ---------------------------------------------------------------------------
# Zaslavsky, Whitney and brute force against each other
# ---------------------------------------------------------------------------


@examples(60)
@given(degenerate_matrices(max_rows=7, max_cols=4))
def test_three_region_counts_agree(M):
    count = len(brute_force_sign_pattern(M))
    assert zaslavsky_region_count(M) == count
    assert whitney_region_count(M) == count


@examples(40)
@given(degenerate_matrices(max_rows=11, max_cols=5, max_entry=3))
def test_lattice_and_whitney_characteristic_polynomials_agree(M):
    chi = characteristic_polynomial(M)
    assert chi == whitney_characteristic_polynomial(M)
    # Zaslavsky: r = (-1)^k chi(-1).
    k = len(M[0])
    assert zaslavsky_region_count(M) == (-1) ** k * sum(c * (-1) ** p for p, c in enumerate(chi))


@examples(25)
@given(low_rank_matrices(max_rows=7, max_cols=4))
def test_rank_deficient_counts(M):
    # A rank-r arrangement in R^k has the regions of its essentialisation: the
    # characteristic polynomial is t^(k - r) times that of an essential one.
    chi = characteristic_polynomial(M)
    if primitive_normals(M) is None:
        assert zaslavsky_region_count(M) == 0
        return
    r = matrix_rank(M)
    assert all(c == 0 for c in chi[: len(M[0]) - r])
    assert zaslavsky_region_count(M) == len(brute_force_sign_pattern(M))


def test_zero_row_and_duplicates():
    M = [[1, 0, 2], [0, 1, 1], [1, 1, 0]]
    base = zaslavsky_region_count(M)
    assert base == whitney_region_count(M) == len(brute_force_sign_pattern(M)) == 8
    with_copies = M + [[2, 0, 4], [-1, -1, 0], [0, 3, 3]]
    assert zaslavsky_region_count(with_copies) == whitney_region_count(with_copies) == base
    with_zero = M + [[0, 0, 0]]
    assert zaslavsky_region_count(with_zero) == whitney_region_count(with_zero) == 0
    assert characteristic_polynomial(with_zero) == whitney_characteristic_polynomial(with_zero) == [0] * 4
    assert zaslavsky_region_count([]) == whitney_region_count([]) == 1


@pytest.mark.parametrize("n", range(2, 7))
def test_braid_characteristic_polynomial_is_falling_factorial(n):
    # chi_{B_n}(t) = t (t-1) ... (t-n+1) = sum_m s(n, m) t^m.
    chi = characteristic_polynomial(braid_rows(n))
    expected = [(-1) ** (n - m) * unsigned_stirling_first(n, m) for m in range(n + 1)]
    assert chi == expected
    assert zaslavsky_region_count(braid_rows(n)) == math.factorial(n)
    if n <= 5:
        assert whitney_characteristic_polynomial(braid_rows(n)) == expected


def _stirling_second(n: int, m: int) -> int:
    return sum((-1) ** (m - j) * math.comb(m, j) * j**n for j in range(m + 1)) // math.factorial(m)


@pytest.mark.parametrize("n", range(2, 7))
def test_braid_flats_are_set_partitions(n):
    # Flats of x_i = x_j of rank k <-> partitions of {0..n-1} into n - k blocks.
    _, levels = intersection_lattice(braid_rows(n))
    assert [len(level) for level in levels] == [_stirling_second(n, n - k) for k in range(n)]


@examples(30)
@given(degenerate_matrices(max_rows=8, max_cols=4, allow_zero_rows=False))
def test_lattice_flats_are_closed_with_exact_ranks(M):
    normals, levels = intersection_lattice(M)
    vectors = [[fmpq(x) for x in n] for n in normals]

    def rank(indices):
        return fmpq_mat([vectors[i] for i in indices]).rank() if indices else 0

    for r, level in enumerate(levels):
        for X, covered in level.items():
            assert rank(sorted(X)) == r
            for j in range(len(normals)):  # closed: nothing outside X is in span(X)
                if j not in X:
                    assert rank(sorted(X | {j})) == r + 1
            for F in covered:
                assert F < X and F in levels[r - 1]


@pytest.mark.parametrize("N,r", [(3, 2), (5, 2), (6, 3), (9, 3), (12, 4), (14, 4), (20, 5)])
def test_generic_central_count(N, r):
    for seed in range(3):
        M = random_int_matrix(1000 * N + seed, N, r)
        assert zaslavsky_region_count(M) == generic_central_count(N, r)
        if N <= 14 and seed == 0:
            assert whitney_region_count(M) == generic_central_count(N, r)
    M = random_int_matrix(7, min(N, 8), r, bound=100)
    if N <= 8:
        assert len(brute_force_sign_pattern(M)) == generic_central_count(N, r)


def test_generic_central_count_closed_values():
    assert generic_central_count(0, 3) == 1
    assert generic_central_count(3, 3) == 8  # coordinate hyperplanes of R^3
    assert generic_central_count(4, 2) == 8  # four lines through 0 in the plane
    assert generic_central_count(5, 1) == 2


def test_zaslavsky_handles_45_hyperplanes_of_rank_5():
    # B_10 W for a generic 10 x 5 W: 45 distinct hyperplanes in R^5.
    W = random_int_matrix(2024, 10, 5)
    M = product(braid_rows(10), W)
    assert len(primitive_normals(M)) == 45
    assert zaslavsky_region_count(M) == generic_ranking_count(10, 5) == 128288


# ---------------------------------------------------------------------------
# generic_ranking_count
# ---------------------------------------------------------------------------


def test_unsigned_stirling_first_rows():
    assert [unsigned_stirling_first(5, m) for m in range(6)] == [0, 24, 50, 35, 10, 1]
    for n in range(8):
        assert sum(unsigned_stirling_first(n, m) for m in range(n + 1)) == math.factorial(n)


def test_generic_ranking_count_matches_oeis_a071223():
    for n, row in OEIS_A071223.items():
        assert [generic_ranking_count(n, d) for d in range(1, n)] == row


def test_generic_ranking_count_satisfies_cover_recurrence():
    # Q(n, d) = Q(n-1, d) + (n-1) Q(n-1, d-1), Q(n, 1) = 2, Q(n, d) = n! for d >= n-1.
    for n in range(3, 12):
        assert generic_ranking_count(n, 1) == 2
        for d in range(2, n + 2):
            assert generic_ranking_count(n, d) == generic_ranking_count(n - 1, d) + (n - 1) * generic_ranking_count(
                n - 1, d - 1
            )
        for d in range(n - 1, n + 3):
            assert generic_ranking_count(n, d) == math.factorial(n)
    assert generic_ranking_count(1, 3) == generic_ranking_count(0, 2) == 1
    assert generic_ranking_count(3, 0) == 0


@pytest.mark.parametrize("n,d", [(3, 2), (4, 2), (4, 3), (5, 2), (5, 3), (6, 3), (6, 4), (7, 3)])
def test_generic_ranking_count_against_random_configurations(n, d):
    # Random integer points with a large entry range are in general position
    # with overwhelming probability; every seed must give the closed form.
    expected = generic_ranking_count(n, d)
    for seed in range(5):
        W = random_int_matrix(100 * n + 10 * d + seed, n, d)
        M = product(braid_rows(n), W)
        assert zaslavsky_region_count(M) == expected
        if len(M) <= 10 and seed < 2:
            patterns = brute_force_sign_pattern(M)
            assert len(patterns) == expected
            assert all(is_strict_total_order(s, n) is not None for s in patterns)


@pytest.mark.parametrize("n,d", [(4, 2), (5, 2), (5, 3), (6, 3), (6, 4)])
def test_linear_W_behaves_like_points_in_R_d_not_R_d_minus_1(n, d):
    # The question "R^d or R^{d-1}?" for R(W) without a column of ones: a
    # generic W with d columns realises Q(n, d) rankings, the count of n
    # points in R^d.  The two candidates differ for these (n, d).
    assert generic_ranking_count(n, d) != generic_ranking_count(n, d - 1)
    for seed in range(3):
        W = random_int_matrix(seed, n, d)
        assert zaslavsky_region_count(product(braid_rows(n), W)) == generic_ranking_count(n, d)


@pytest.mark.parametrize("n,d", [(4, 1), (4, 2), (5, 2)])
def test_column_of_ones_adds_nothing(n, d):
    # B_n [1|W] = [0 | B_n W]: R([1|W]) = R(W) as sets, so the n x (d+1)
    # affine matrix of n points in R^d gives Q(n, d), not Q(n, d+1).
    W = random_int_matrix(99, n, d)
    linear = brute_force_sign_pattern(product(braid_rows(n), W))
    affine = brute_force_sign_pattern(product(braid_rows(n), prepend_ones(W)))
    assert affine == linear
    assert len(affine) == generic_ranking_count(n, d) != generic_ranking_count(n, d + 1)


def test_wide_W_realises_every_ranking():
    # d >= n - 1: col(W) + span(1) = R^n generically, all n! orders occur.
    for n, d in [(3, 2), (4, 3), (4, 6), (5, 4)]:
        W = random_int_matrix(n + d, n, d)
        M = product(braid_rows(n), W)
        assert zaslavsky_region_count(M) == math.factorial(n)
    patterns = brute_force_sign_pattern(product(braid_rows(4), random_int_matrix(5, 4, 6)))
    assert {is_strict_total_order(s, 4) for s in patterns} == set(permutations(range(4)))


def test_equal_points_give_empty_ranking_pattern():
    W = [[1, 2], [3, -1], [1, 2], [0, 5]]
    M = product(braid_rows(4), W)  # the row for the pair (0, 2) is zero
    assert brute_force_sign_pattern(M) == set()
    assert zaslavsky_region_count(M) == whitney_region_count(M) == 0


@examples(40)
@given(point_configurations(max_points=4, max_dim=3))
def test_ranking_patterns_of_small_configurations(W):
    n = len(W)
    M = product(braid_rows(n), W)
    patterns = brute_force_sign_pattern(M)
    assert len(patterns) == zaslavsky_region_count(M) == whitney_region_count(M)
    for s in patterns:
        assert is_strict_total_order(s, n) is not None
    if len({tuple(r) for r in W}) < n:
        assert patterns == set()


# ---------------------------------------------------------------------------
# Theorem H.1 configurations
# ---------------------------------------------------------------------------


def test_theorem_h1_affine_sign_patterns_coincide():
    PA = brute_force_sign_pattern(prepend_ones(H1_A))
    PB = brute_force_sign_pattern(prepend_ones(H1_B))
    assert len(PA) == len(PB) == 20
    assert PA == PB
    assert zaslavsky_region_count(prepend_ones(H1_A)) == whitney_region_count(prepend_ones(H1_B)) == 20


def test_theorem_h1_ranking_patterns_differ():
    RA = brute_force_sign_pattern(product(braid_rows(5), H1_A))
    RB = brute_force_sign_pattern(product(braid_rows(5), H1_B))
    assert RA != RB
    assert len(RA) == zaslavsky_region_count(product(braid_rows(5), H1_A))
    assert len(RB) == zaslavsky_region_count(product(braid_rows(5), H1_B))


# ---------------------------------------------------------------------------
# Strategies produce what they promise
# ---------------------------------------------------------------------------


@examples(60)
@given(degenerate_matrices(max_rows=7, max_cols=4))
def test_degenerate_matrices_shape(M):
    assert 1 <= len(M) <= 7
    assert len({len(r) for r in M}) == 1 and 1 <= len(M[0]) <= 4


@examples(40)
@given(degenerate_matrices(max_rows=7, max_cols=4, allow_zero_rows=False))
def test_degenerate_matrices_without_zero_rows(M):
    assert all(any(row) for row in M)


@examples(40)
@given(low_rank_matrices(max_rows=6, max_cols=4))
def test_low_rank_matrices_are_rank_deficient(M):
    assert matrix_rank(M) < len(M[0])


@examples(30)
@given(small_int_matrices(5, 3, TERNARY))
def test_small_int_matrices_entries(M):
    assert all(x in TERNARY for row in M for x in row)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 400), st.integers(1, 500))
def test_the_engines_generic_count_is_the_reference_count(N, r):
    # The engine computes the binomials incrementally (for bounds of thousands of
    # terms); the reference sums them afresh.
    from verify.arrangement.cocircuits import generic_tope_count

    assert generic_tope_count(N, r) == generic_central_count(N, r)
