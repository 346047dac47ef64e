"""The engine's sign and ranking patterns checked against the independent references.

Every engine answer is compared with at least one method from ``reference.py``
that shares no code with ``verify``:

* the set of sign vectors with the certified orthant brute force (N <= 12);
* the number of cells with Zaslavsky's lattice count (and Whitney's formula);
* every witness z by recomputing sign(M z) with ``fractions.Fraction``;
* the two engine methods ("cocircuits", the default, and "graph") with each
  other;
* generic ranking counts with Cover's closed form.

Conventions assumed from the engine's documented API: ``patterns`` is sorted
in ASCII order ('+' < '-') without repetitions; ``rankings[i]`` lists labels
from highest to lowest score and belongs to ``patterns[i]``; labels and row
indices in warnings are 0-based, like the labels in rankings.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from itertools import permutations

import pytest
from flint import fmpq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference import (
    braid_rows,
    brute_force_sign_pattern,
    generic_central_count,
    generic_ranking_count,
    is_strict_total_order,
    prepend_ones,
    product,
    sign_string,
    to_fraction,
    whitney_region_count,
    zaslavsky_region_count,
)
from strategies import (
    degenerate_matrices,
    low_rank_matrices,
    point_configurations,
    random_int_matrix,
    scale_rows,
    small_int_matrices,
)
from verify.arrangement import braid_matrix, ranking_pattern, sign_pattern


def examples(n: int):
    """Hypothesis settings: n examples, no deadline, no example database on disk."""
    return settings(
        max_examples=n,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


H1_A = [[Fraction(-4, 5), 1], [Fraction(4, 5), 1], [Fraction(11, 20), Fraction(-1, 2)], [-1, -1], [1, -1]]
H1_B = [[-1, 1], [1, 1], [Fraction(7, 20), Fraction(-1, 2)], [Fraction(-4, 5), -1], [Fraction(4, 5), -1]]


# ---------------------------------------------------------------------------
# Checks shared by the tests
# ---------------------------------------------------------------------------


def check_cells(M, result, ncols: int) -> None:
    """Structural and exact checks of a sign-pattern result for the matrix M.

    patterns: sorted ASCII, no repetition, count = len(patterns); one cell per
    pattern; every witness is a tuple of fmpq of length ncols with
    sign(M z) == its sign string, recomputed with Fractions.
    """
    patterns = list(result.patterns)
    assert patterns == sorted(set(patterns)), "patterns must be sorted and distinct"
    assert result.count == len(patterns)
    assert len(result.cells) == len(patterns)
    assert sorted(cell.signs for cell in result.cells) == patterns
    for cell in result.cells:
        z = cell.witness
        assert isinstance(z, tuple) and len(z) == ncols
        assert all(isinstance(x, fmpq) for x in z)
        assert sign_string(M, z) == cell.signs, f"witness {z} does not realise {cell.signs}"
    assert isinstance(result.warnings, list)
    assert all(isinstance(w, str) for w in result.warnings)


def check_sign_pattern(M, *results, brute: bool = True) -> None:
    """Engine results for M (any number of them) against the references."""
    count = zaslavsky_region_count(M)
    if len(M) <= 14:
        assert whitney_region_count(M) == count  # the references agree first
    expected = sorted(brute_force_sign_pattern(M)) if brute else None
    for result in results:
        check_cells(M, result, len(M[0]))
        assert result.count == count
        if brute:
            assert list(result.patterns) == expected


def check_rankings(W, result, *, affine: bool = False) -> None:
    """Engine ranking result for the points W (rows) against the references."""
    n = len(W)
    columns = prepend_ones(W) if affine else W
    M = product(braid_rows(n), columns)
    check_cells(M, result, len(columns[0]))
    assert len(result.rankings) == len(result.patterns)
    for s, ranking in zip(result.patterns, result.rankings):
        assert tuple(ranking) == is_strict_total_order(s, n)
    for cell in result.cells:
        # The witness ranks the labels by their exact scores w_i . z.
        z = [to_fraction(x) for x in cell.witness]
        scores = [sum((to_fraction(a) * b for a, b in zip(row, z)), Fraction(0)) for row in columns]
        assert len(set(scores)) == n
        by_score = tuple(sorted(range(n), key=lambda i: -scores[i]))
        assert by_score == is_strict_total_order(cell.signs, n)


def mentions(text: str, number: int) -> bool:
    """Does ``text`` contain ``number`` as a standalone integer?"""
    return re.search(rf"(?<![\d/.]){number}(?![\d/.])", text) is not None


# ---------------------------------------------------------------------------
# braid_matrix
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(2, 8))
def test_braid_matrix_matches_reference(n):
    assert [list(row) for row in braid_matrix(n)] == braid_rows(n)


# ---------------------------------------------------------------------------
# sign_pattern
# ---------------------------------------------------------------------------


@examples(40)
@given(degenerate_matrices(max_rows=7, max_cols=4))
def test_sign_pattern_matches_brute_force(M):
    check_sign_pattern(M, sign_pattern(M))


@examples(30)
@given(degenerate_matrices(max_rows=8, max_cols=4))
def test_graph_method_agrees_with_default(M):
    default = sign_pattern(M)
    graph = sign_pattern(M, method="graph")
    check_cells(M, default, len(M[0]))
    check_cells(M, graph, len(M[0]))
    assert graph.patterns == default.patterns
    assert graph.count == default.count == zaslavsky_region_count(M)


@examples(15)
@given(small_int_matrices(6, 3, range(-3, 4)))
def test_cocircuits_is_the_default_method(M):
    assert sign_pattern(M, method="cocircuits").patterns == sign_pattern(M).patterns


@examples(20)
@given(low_rank_matrices(max_rows=7, max_cols=4))
def test_rank_deficient_matrices(M):
    check_sign_pattern(M, sign_pattern(M), sign_pattern(M, method="graph"))


# Seeded larger matrices, N = 9..12: (seed, rows, columns, entry bound, inner
# rank or None).  Small entry bounds force parallel rows and other
# coincidences; an inner rank r < columns gives a product of thin matrices.
SEEDED = [
    (1, 12, 3, 2, None),
    (2, 12, 2, 3, None),
    (3, 11, 3, 1, None),
    (4, 10, 4, 1, None),
    (5, 12, 4, 2, 3),
    (6, 9, 4, 3, None),
    (7, 12, 5, 1, 2),
    (8, 10, 6, 2, 3),
]


@pytest.mark.parametrize("seed,rows,cols,bound,inner", SEEDED)
def test_seeded_larger_matrices(seed, rows, cols, bound, inner):
    if inner is None:
        M = random_int_matrix(seed, rows, cols, bound)
    else:
        M = product(random_int_matrix(seed, rows, inner, bound), random_int_matrix(seed + 100, inner, cols, bound))
    check_sign_pattern(M, sign_pattern(M, method="cocircuits"), sign_pattern(M, method="graph"))


@pytest.mark.parametrize("rows,cols", [(13, 3), (14, 4), (20, 3), (22, 4)])
def test_seeded_generic_counts(rows, cols):
    # Beyond brute-force size: counts against Zaslavsky, Whitney (<= 14 rows)
    # and the closed form for hyperplanes in general position.
    M = random_int_matrix(rows * cols, rows, cols)
    result = sign_pattern(M)
    check_sign_pattern(M, result, brute=False)
    assert result.count == generic_central_count(rows, cols)


@examples(20)
@given(
    degenerate_matrices(max_rows=6, max_cols=3, allow_zero_rows=False),
    st.lists(
        st.fractions(min_value=Fraction(-7, 2), max_value=Fraction(7, 2), max_denominator=9).filter(lambda f: f != 0),
        min_size=6,
        max_size=6,
    ),
)
def test_rational_entries(M, factors):
    # Row i scaled by c_i: the pattern flips coordinate i iff c_i < 0.  The
    # scaled matrix is passed once with Fraction and once with fmpq entries.
    factors = factors[: len(M)]
    expected = sorted(
        "".join(ch if f > 0 else {"+": "-", "-": "+"}[ch] for ch, f in zip(s, factors))
        for s in brute_force_sign_pattern(M)
    )
    as_fractions = scale_rows(M, factors)
    as_fmpq = [[fmpq(x.numerator, x.denominator) for x in row] for row in as_fractions]
    for matrix in (as_fractions, as_fmpq):
        result = sign_pattern(matrix)
        check_cells(as_fractions, result, len(M[0]))
        assert result.patterns == expected


def test_small_closed_cases():
    P = sign_pattern([[5]])
    check_cells([[5]], P, 1)
    assert P.patterns == ["+", "-"]

    M = [[1, 2, 3], [2, 4, 6], [-1, -2, -3]]  # rank 1: one hyperplane, three rows
    P = sign_pattern(M)
    check_cells(M, P, 3)
    assert P.patterns == ["++-", "--+"]

    M = [[1, 0], [0, 1], [1, 1]]
    P = sign_pattern(M)
    check_cells(M, P, 2)
    assert P.patterns == ["+++", "+-+", "+--", "-++", "-+-", "---"]


def test_more_columns_than_rows():
    M = [[1, -2, 0, 3, 1], [2, 1, -1, 0, 4]]  # independent rows in R^5
    P = sign_pattern(M)
    check_sign_pattern(M, P)
    assert P.patterns == ["++", "+-", "-+", "--"]
    M = [[1, -2, 0, 3, 1], [2, 1, -1, 0, 4], [3, -1, -1, 3, 5]]  # row 2 = row 0 + row 1
    P = sign_pattern(M)
    check_sign_pattern(M, P)
    assert P.count == 6


@pytest.mark.parametrize(
    "M,zero_row",
    [
        ([[1, 2], [0, 0], [3, 1]], 1),
        ([[1, 2, 0], [2, -1, 1], [1, 1, 1], [0, 0, 0], [1, 0, 0]], 3),
        ([[0, 0]], 0),
    ],
)
def test_zero_row_gives_empty_pattern_and_a_warning(M, zero_row):
    for method in ("cocircuits", "graph"):
        P = sign_pattern(M, method=method)
        assert P.count == 0
        assert list(P.patterns) == [] and list(P.cells) == []
        assert any(mentions(w, zero_row) for w in P.warnings), P.warnings


# ---------------------------------------------------------------------------
# ranking_pattern
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n,d", [(4, 2), (5, 2), (5, 3), (6, 3), (7, 3)])
@pytest.mark.parametrize("seed", range(3))
def test_generic_ranking_counts(n, d, seed):
    W = random_int_matrix(1000 * seed + 10 * n + d, n, d)
    R = ranking_pattern(W)
    check_rankings(W, R)
    assert R.count == generic_ranking_count(n, d)
    assert R.count == zaslavsky_region_count(product(braid_rows(n), W))
    assert R.patterns == sign_pattern(product(braid_rows(n), W)).patterns


@pytest.mark.parametrize("n,d", [(4, 2), (5, 3)])
def test_affine_ranking_pattern_is_unchanged(n, d):
    # B_n [1|W] = [0 | B_n W]: the column of ones changes nothing.
    W = random_int_matrix(77 + n, n, d)
    linear = ranking_pattern(W)
    affine = ranking_pattern(W, affine=True)
    check_rankings(W, affine, affine=True)
    assert affine.patterns == linear.patterns
    assert [tuple(r) for r in affine.rankings] == [tuple(r) for r in linear.rankings]
    assert affine.count == generic_ranking_count(n, d)


def test_wide_point_configuration_realises_every_ranking():
    W = random_int_matrix(3, 4, 6)  # d > n
    R = ranking_pattern(W)
    check_rankings(W, R)
    assert R.count == math.factorial(4)
    assert {tuple(r) for r in R.rankings} == set(permutations(range(4)))


@examples(30)
@given(point_configurations(max_points=4, max_dim=3))
def test_ranking_pattern_small_configurations(W):
    n = len(W)
    R = ranking_pattern(W)
    check_rankings(W, R)
    assert set(R.patterns) == brute_force_sign_pattern(product(braid_rows(n), W))


@examples(15)
@given(point_configurations(max_points=5, max_dim=3, entries=range(-3, 4), min_points=3))
def test_ranking_pattern_counts_five_points(W):
    R = ranking_pattern(W)
    check_rankings(W, R)
    assert R.count == zaslavsky_region_count(product(braid_rows(len(W)), W))


@pytest.mark.parametrize(
    "W,labels",
    [
        ([[1, 2], [0, 1], [3, 3], [0, 1]], (1, 3)),
        ([[2, -1, 0], [2, -1, 0], [1, 1, 1]], (0, 1)),
        ([[Fraction(1, 2), 1], [5, 5], [Fraction(2, 4), 1]], (0, 2)),
    ],
)
def test_equal_points_give_empty_ranking_pattern_and_a_warning(W, labels):
    for affine in (False, True):
        R = ranking_pattern(W, affine=affine)
        assert R.count == 0
        assert list(R.patterns) == [] and list(R.cells) == [] and list(R.rankings) == []
        assert any(all(mentions(w, label) for label in labels) for w in R.warnings), R.warnings


# ---------------------------------------------------------------------------
# Theorem H.1 configurations
# ---------------------------------------------------------------------------


def test_theorem_h1_affine_sign_patterns_coincide():
    A1, B1 = prepend_ones(H1_A), prepend_ones(H1_B)
    PA, PB = sign_pattern(A1), sign_pattern(B1)
    check_sign_pattern(A1, PA)
    check_sign_pattern(B1, PB)
    assert PA.count == PB.count == 20
    assert PA.patterns == PB.patterns
    assert sign_pattern(A1, method="graph").patterns == PA.patterns


def test_theorem_h1_ranking_patterns_differ():
    RA, RB = ranking_pattern(H1_A), ranking_pattern(H1_B)
    check_rankings(H1_A, RA)
    check_rankings(H1_B, RB)
    assert set(RA.patterns) == brute_force_sign_pattern(product(braid_rows(5), H1_A))
    assert set(RB.patterns) == brute_force_sign_pattern(product(braid_rows(5), H1_B))
    assert RA.patterns != RB.patterns
