"""Cross-checks of the pattern engine (``verify/arrangement/``) written to kill mutants.

Each test compares a module with a method that does not share its code: the rankings
with a given label first against one exact LP per ordering of the labels, Gordan
multipliers against their definition, compound matrices and their overflow bound
against determinants computed by FLINT, and so on. The matrices are small and seeded, so
every test takes well under a second.
"""

import random
import re
from fractions import Fraction
from itertools import permutations

import numpy as np
import pytest
from flint import fmpq, fmpz_mat

from reference import brute_force_sign_pattern

from verify.arrangement.compound import compound_matrices, hadamard_bound, maximal_minors
from verify.arrangement.first_label import never_first, top_label_rankings
from verify.arrangement.oriented_matroid import colex_combinations
from verify.arrangement.sign_pattern import Cell, preview, sign_pattern
from verify.lp.evidence import Witness
from verify.lp.feasibility import strict_feasibility
from verify.lp.field_simplex import strict_feasibility_over
from verify.numbers.sqrt_sum import SqrtSum

SQRT2 = SqrtSum.sqrt(2)


def _random_head(seed, n=4, d=2, low=-3, high=3):
    """Distinct rows: with two equal rows no ranking is strict, though a third label
    can still be first."""
    rng = random.Random(seed)
    while True:
        W = [[rng.randint(low, high) for _ in range(d)] for _ in range(n)]
        if len(set(map(tuple, W))) == n:
            return W


def _orders_by_lp(W, label, feasible):
    """The orderings of the labels with ``label`` first (any, for ``None``) that some
    input realises: one exact LP ``(w_a - w_b) . x > 0`` for consecutive ``a, b`` per ordering."""
    found = set()
    for order in permutations(range(len(W))):
        if label is not None and order[0] != label:
            continue
        rows = [[a - b for a, b in zip(W[order[p]], W[order[p + 1]])]
                for p in range(len(W) - 1)]
        if isinstance(feasible(rows), Witness):
            found.add(order)
    return found


def _logits_in_order(W, x, order, zero):
    logits = [sum((a * b for a, b in zip(row, x)), zero) for row in W]
    return all(logits[order[p]] - logits[order[p + 1]] > 0 for p in range(len(order) - 1))


def _check_gordan(W, label, certificate, zero):
    """``y_k >= 0`` (listed ones > 0), not all zero, ``sum y_k (w_label - w_k) = 0``,
    indices over the rows ``k != label`` in order."""
    others = [k for k in range(len(W)) if k != label]
    assert certificate.multipliers
    total = [zero] * len(W[0])
    indices = [i for i, _ in certificate.multipliers]
    assert indices == sorted(set(indices))
    for i, y in certificate.multipliers:
        assert 0 <= i < len(others) and y > 0
        k = others[i]
        total = [t + y * (a - b) for t, a, b in zip(total, W[label], W[k])]
    assert all(t == 0 for t in total)


@pytest.mark.parametrize("seed", range(6))
def test_rankings_with_a_label_first_are_the_orders_an_lp_realises(seed):
    W = _random_head(seed)
    for label in range(len(W)):
        listed = top_label_rankings(W, label)
        assert {r for r, _ in listed} == _orders_by_lp(W, label, strict_feasibility)
        assert len(listed) == len({r for r, _ in listed})
        for order, x in listed:
            assert _logits_in_order(W, [fmpq(a) for a in x], order, fmpq(0))
        certificate = never_first(W, label)
        assert (certificate is None) == bool(listed)
        if certificate is not None:
            _check_gordan([[fmpq(a) for a in row] for row in W], label, certificate, fmpq(0))


def test_a_label_inside_the_hull_is_never_first_and_the_others_are():
    W = [[1, 0], [0, 1], [-1, -1], [0, 0]]
    for label in range(3):
        assert never_first(W, label) is None
        assert top_label_rankings(W, label)
    assert top_label_rankings(W, 3) == []
    _check_gordan([[fmpq(a) for a in row] for row in W], 3, never_first(W, 3), fmpq(0))


def _field_head(seed):
    """A head with entries ``a + b sqrt(2)`` (small integers a, b; some b non-zero)."""
    rng = random.Random(seed)
    W = [[SqrtSum(rng.randint(-2, 2)) + rng.randint(-1, 1) * SQRT2 for _ in range(2)]
         for _ in range(4)]
    W[0][0] = W[0][0] + SQRT2
    return W


@pytest.mark.parametrize("seed", range(3))
def test_field_rankings_with_a_label_first_are_the_orders_the_field_simplex_realises(seed):
    W = _field_head(seed)
    one = SqrtSum(1)
    for label in range(len(W)):
        listed = top_label_rankings(W, label)
        expected = _orders_by_lp(W, label, lambda rows: strict_feasibility_over(rows, one))
        assert {r for r, _ in listed} == expected
        for order, x in listed:
            assert _logits_in_order(W, x, order, SqrtSum(0))
        certificate = never_first(W, label)
        assert (certificate is None) == bool(listed)
        if certificate is not None:
            _check_gordan(W, label, certificate, SqrtSum(0))


def test_a_field_label_inside_the_hull_gets_field_multipliers():
    W = [[SQRT2, SqrtSum(0)], [SqrtSum(0), SQRT2], [-SQRT2, -SQRT2 - 1], [SqrtSum(0)] * 2]
    assert top_label_rankings(W, 3) == []
    certificate = never_first(W, 3)
    _check_gordan(W, 3, certificate, SqrtSum(0))
    assert any(not SqrtSum(y).is_rational() for _, y in certificate.multipliers)


# -- compound matrices -----------------------------------------------------------------


def _hadamard_matrix(k):
    H = np.array([[1]])
    while len(H) < k:
        H = np.block([[H, H], [H, -H]])
    return H


@pytest.mark.parametrize("k", [1, 2, 4, 8])
@pytest.mark.parametrize("B", [1, 3, 1000])
def test_the_hadamard_bound_holds_where_hadamard_matrices_attain_it(k, B):
    det = abs(fmpz_mat((B * _hadamard_matrix(k)).tolist()).det())
    assert det == k ** (k // 2) * B ** k      # Hadamard's bound, attained
    assert hadamard_bound(k, B) >= det
    # and it is not a wild overestimate: within the rounding of sqrt(k) B up to an integer
    assert hadamard_bound(k, B) <= (B * k + 1) ** k


def _minors_by_flint(M, k):
    K, r = len(M), len(M[0])
    from itertools import combinations

    return [[int(fmpz_mat([[M[a][b] for b in J] for a in I]).det())
             for J in combinations(range(r), k)] for I in colex_combinations(K, k)]


@pytest.mark.parametrize("seed", range(4))
def test_compound_matrices_near_the_int64_limit_are_exact(seed):
    """Entries chosen so that the largest minors lie around 2^62: whichever arithmetic
    the bound picks, every minor must equal FLINT's determinant."""
    rng = random.Random(seed)
    for r, B in [(3, 2 ** 20), (3, 2 ** 21 - 1), (4, 2 ** 15), (4, 2 ** 16), (2, 2 ** 31)]:
        M = [[rng.choice([-1, 1]) * rng.randint(B // 2, B) for _ in range(r)]
             for _ in range(r + 2)]
        C = compound_matrices(np.array(M, dtype=object), r)
        for k in range(1, r + 1):
            assert C[k - 1].tolist() == _minors_by_flint(M, k)
        assert maximal_minors(np.array(M, dtype=object)).tolist() == [
            row[0] for row in _minors_by_flint(M, r)]


# -- sign_pattern: the parts read by the command line and by people ----------------------


def _sign_of_product(M, z):
    return "".join("+" if v > 0 else "-" if v < 0 else "0"
                   for v in (sum((fmpq(a) * b for a, b in zip(row, z)), fmpq(0)) for row in M))


@pytest.mark.parametrize("M", [
    [[1, 0], [0, 1], [1, 1]],
    [[2, -1, 0], [1, 1, 1], [0, 3, -1], [-4, 2, 0]],         # a row parallel to another
    [[fmpq(1, 2), fmpq(-1, 3)], [1, 1], [0, fmpq(5, 7)]],
])
def test_the_json_of_a_sign_pattern_reads_back_as_witnesses_of_its_signs(M):
    from verify.numbers.rational import parse_rational

    P = sign_pattern(M)
    data = P.to_json()
    assert set(data) == {"kind", "n", "d", "count", "patterns", "witnesses"}
    assert (data["kind"], data["n"], data["d"]) == ("sign", len(M), len(M[0]))
    assert data["count"] == len(data["patterns"]) == len(data["witnesses"]) == P.count > 0
    assert data["patterns"] == sorted(set(data["patterns"]))
    assert set(data["patterns"]) == brute_force_sign_pattern(M)
    for signs, witness in zip(data["patterns"], data["witnesses"]):
        assert _sign_of_product(M, [parse_rational(a) for a in witness]) == signs


def test_the_repr_of_a_sign_pattern_states_its_shape_rank_and_cells():
    P = sign_pattern([[1, 0, 0], [0, 1, 0], [1, 1, 0], [2, 2, 0]])
    text = repr(P)
    assert text.startswith("SignPattern(4 x 3 matrix, rank 2, 3 hyperplanes, 6 cells: ")
    assert text.endswith(preview(P.patterns) + ")")


@pytest.mark.parametrize("length", range(8))
@pytest.mark.parametrize("shown", [1, 4])
def test_preview_shows_the_first_items_and_marks_the_rest(length, shown):
    items = [f"x{i}" for i in range(length)]
    parts = preview(items, shown).split(", ") if length else []
    assert parts[:shown] == items[:shown]
    assert parts[shown:] == (["..."] if length > shown else [])
    if shown == 4:
        assert preview(items) == preview(items, 4)


def test_cell_lists_equal_the_cells_they_hold_and_nothing_else():
    P = sign_pattern([[1, 0], [0, 1], [1, 1]])
    cells = list(P.cells)
    assert P.cells == cells and P.cells == tuple(cells)
    assert not P.cells == cells[:-1]
    changed = cells[:-1] + [Cell(signs=cells[-1].signs, witness=cells[0].witness)]
    assert not P.cells == changed
    assert P.cells.__eq__(5) is NotImplemented
    assert P.cells[1:3] == cells[1:3] and P.cells[-1] == cells[-1]
    assert repr(P.cells) == f"CellList({len(cells)} cells)"


@pytest.mark.parametrize("M", [
    [[1, 2, 3], [0, 0, 0], [2, 4, 6]],
    [[0, 0], [1, 1], [1, -1]],
    [[0, 0, 0], [0, 0, 0]],
    [[1, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 1]],
])
def test_a_zero_row_gives_no_cells_but_the_rank_of_the_matrix(M):
    P = sign_pattern(M)
    assert P.count == 0 and P.hyperplanes == 0 and len(P.warnings) == 1
    assert P.rank == fmpz_mat(M).rank()


# -- zaslavsky: the lattice of flats against all subsets ---------------------------------


def _flats_by_subsets(H):
    """Every closed set of rows (adding any other row raises the rank), by rank, and
    Möbius values computed from the definition over this independent list."""
    from itertools import combinations

    K = len(H)

    def rank(S):
        return fmpz_mat([H[i] for i in S]).rank() if S else 0

    closed = {}
    for size in range(K + 1):
        for S in combinations(range(K), size):
            r = rank(S)
            if all(rank(S + (g,)) > r for g in range(K) if g not in S):
                closed[frozenset(S)] = r
    mu = {}
    for F in sorted(closed, key=len):
        mu[F] = 1 if not F else -sum(mu[G] for G in mu if G < F)
    return closed, mu


@pytest.mark.parametrize("H", [
    [[1, 0], [0, 1], [1, 1]],
    [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 1, 1], [1, -1, 0]],
    [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 1]],
    [[1, -1, 0, 0], [1, 0, -1, 0], [1, 0, 0, -1], [0, 1, -1, 0], [0, 1, 0, -1],
     [0, 0, 1, -1], [1, 1, 1, 1]],
])
def test_flats_and_moebius_values_are_those_of_all_closed_subsets(H):
    from verify.arrangement.zaslavsky import cell_count, flats, mobius_levels

    closed, mu = _flats_by_subsets(H)
    levels = flats(np.array(H, dtype=object))
    r = fmpz_mat(H).rank()
    assert len(levels) == r + 1
    found = {}
    for j, level in enumerate(levels):
        for row in level:
            found[frozenset(np.nonzero(row)[0].tolist())] = j
    assert found == closed and sum(len(level) for level in levels) == len(closed)
    by_level = mobius_levels(H)
    # exact integers, as the lattice can be large (no float rounds a Möbius value)
    assert all(type(m) is int for values in by_level for m in values)
    for level, values in zip(levels, by_level):
        assert [mu[frozenset(np.nonzero(row)[0].tolist())] for row in level] == list(values)
    count = sum(abs(m) for m in mu.values())
    assert cell_count(H) == count == sign_pattern(H).count
    # The lattice is built up to max_flats flats and abandoned beyond.
    assert cell_count(H, max_flats=len(closed)) == count
    assert cell_count(H, max_flats=len(closed) - 1) is None
    assert mobius_levels(H, max_flats=len(closed) - 1) is None


# -- ranking_pattern: orders, their sign strings, and what is reported -------------------


@pytest.mark.parametrize("n", range(1, 6))
def test_sign_strings_of_orders_and_only_those_are_read_as_rankings(n):
    from itertools import product

    from verify.arrangement.ranking_pattern import (
        braid_matrix,
        label_pairs,
        ranking_from_signs,
        signs_from_ranking,
    )

    orders = {}
    for order in permutations(range(n)):
        # the sign over the pair (i, j) is '+' iff i comes before j
        signs = "".join("+" if order.index(i) < order.index(j) else "-"
                        for i, j in label_pairs(n))
        orders[signs] = order
        assert signs_from_ranking(order) == signs_from_ranking(order, n) == signs
    for signs in map("".join, product("+-", repeat=n * (n - 1) // 2)):
        if signs in orders:
            assert ranking_from_signs(signs, n) == orders[signs]
        else:
            with pytest.raises(ValueError, match="not a strict total order"):
                ranking_from_signs(signs, n)
    B = braid_matrix(n)
    assert len(B) == n * (n - 1) // 2
    for (i, j), row in zip(label_pairs(n), B):
        assert row == [1 if c == i else -1 if c == j else 0 for c in range(n)]


@pytest.mark.parametrize("affine", [False, True])
def test_a_ranking_pattern_reports_orders_its_witnesses_realise(affine):
    from verify.arrangement.ranking_pattern import ranking_pattern

    W = [[0, 0], [3, 1], [1, 4], [-2, 2]]
    R = ranking_pattern(W, affine=affine)
    assert (R.n, R.d, R.affine) == (4, 2, affine)
    assert R.count == len(R.rankings) == len(R.patterns) == len(R.cells) > 0
    rows = [[1] + row if affine else row for row in W]
    for order, cell in zip(R.rankings, R.cells):
        assert len(cell.witness) == len(rows[0])
        assert _logits_in_order(rows, cell.witness, order, fmpq(0))
    assert set(R.rankings) == _orders_by_lp(rows, None, strict_feasibility)
    data = R.to_json()
    assert (data["kind"], data["n"], data["d"], data["count"]) == ("ranking", 4, 2, R.count)
    assert data["rankings"] == [list(r) for r in R.rankings]
    assert data["patterns"] == R.patterns
    text = repr(R)
    head = f"RankingPattern(4 labels, d = 2{', affine' if affine else ''}, {R.count} rankings: "
    assert text.startswith(head)
    assert " > ".join(map(str, R.rankings[0])) in text


def test_equal_labels_are_named_and_one_label_has_the_single_ranking():
    from verify.arrangement.ranking_pattern import ranking_pattern

    R = ranking_pattern([[1, 2], [0, 1], [1, 2], [0, 1], [5, 5], [1, 2]])
    assert R.count == 0 and R.rankings == []
    assert R.warnings == R.signs.warnings
    assert len(R.warnings) == 1
    assert R.warnings[0].startswith(
        "equal rows (label 0 = label 2 = label 5; label 1 = label 3): ")
    assert ranking_pattern([[1, 2], [1, 3]]).warnings == []
    for affine in (False, True):
        W = [[1, 2], [0, 1], [1, 2]]
        R = ranking_pattern(W, affine=affine)
        assert (R.n, R.d, R.affine, R.signs.rank, R.signs.hyperplanes) == (3, 2, affine, 0, 0)
        rows = [[1] + row if affine else row for row in W]
        assert R.signs.matrix == [[fmpq(a - b) for a, b in zip(rows[i], rows[j])]
                                  for i, j in ((0, 1), (0, 2), (1, 2))]
        one = ranking_pattern([[fmpq(1, 3), 2, -1]], affine=affine)
        assert one.count == 1 and one.rankings == [(0,)] and one.patterns == [""]
        assert one.cells[0].witness == (0,) * (4 if affine else 3)
        assert (one.n, one.d, one.affine, one.signs.rank, one.signs.hyperplanes) == (
            1, 3, affine, 0, 0)
        assert one.signs.matrix == [] and one.warnings == []


def test_no_labels_and_unknown_methods():
    from verify.arrangement.ranking_pattern import ranking_pattern

    R = ranking_pattern([])
    assert (R.n, R.d, R.count, R.rankings) == (0, 0, 0, [])
    assert R.warnings == sign_pattern([]).warnings == ["the matrix has no rows"]
    with pytest.raises(ValueError, match="^unknown method 'lp'"):
        ranking_pattern([[1, 0], [0, 1]], method="lp")
    W = [[0, 0], [3, 1], [1, 4], [-2, 2]]
    assert ranking_pattern(W, method="graph").rankings == ranking_pattern(W).rankings


# -- sign_pattern: exact integers in the witness guard, and integral witnesses ---------


def _fibonacci_pair(bits):
    """Consecutive Fibonacci numbers ``F_n, F_{n+1}, F_{n+2}`` with ``F_{n+1}`` of about
    ``bits`` bits: ``F_{n+1}^2 - F_n F_{n+2} = (-1)^n``, a cancellation of two products
    of ``2 bits`` bits down to 1."""
    a, b, n = 0, 1, 0
    while b.bit_length() < bits:
        a, b, n = b, a + b, n + 1
    return a, b, a + b, n   # F_n, F_{n+1}, F_{n+2}, n


@pytest.mark.parametrize("bits", [*range(24, 31), 40, 70])
def test_the_witness_guard_decides_nearly_cancelling_signs_exactly(bits):
    """Row ``(F_{n+1}, -F_n)`` at ``z = (F_{n+1}, F_{n+2})`` is ``(-1)^n`` exactly; in
    floating point, or in int64 beyond 2^63, the two products do not cancel to it."""
    from verify.arrangement.sign_pattern import _check_witnesses

    f0, f1, f2, n = _fibonacci_pair(bits)
    ints = [[f1, -f0], [1, 0]]
    assert f1 * f1 - f0 * f2 == (-1) ** n
    Z = np.array([[f1, f2]], dtype=object)
    right = np.array([[(-1) ** n, 1]], dtype=np.int8)
    _check_witnesses(ints, right, Z)
    for claimed in (-right, np.array([[-(-1) ** n, 1]], dtype=np.int8)):
        stated = re.escape(f"internal error: the witness of {claimed[0].tolist()} gives "
                           f"{right[0].tolist()}")
        with pytest.raises(AssertionError, match=f"^{stated}$"):
            _check_witnesses(ints, claimed, Z)
    # of two wrong cells, the first is the one named
    three = np.array([[f1, f2], [-f1, -f2], [f1, f2]], dtype=object)
    claimed = np.array([right[0], right[0], -right[0]], dtype=np.int8)
    stated = re.escape(f"of {right[0].tolist()} gives {(-right[0]).tolist()}")
    with pytest.raises(AssertionError, match=f"{stated}$"):
        _check_witnesses(ints, claimed, three)


@pytest.mark.parametrize("big", [10 ** 12, 2 ** 40 + 1, 10 ** 20])
def test_patterns_of_matrices_with_huge_entries_are_those_of_the_brute_force(big):
    M = [[big, 1], [1, big], [big + 1, big - 1], [big, -big + 1]]
    P = sign_pattern(M)
    assert set(P.patterns) == brute_force_sign_pattern(M)
    for cell in P.cells:
        assert _sign_of_product(M, cell.witness) == cell.signs


def test_integral_points_are_positive_multiples_with_integer_coordinates():
    from verify.arrangement.sign_pattern import _integral

    rng = random.Random(3)
    for _ in range(40):
        point = [fmpq(rng.randint(-30, 30), rng.randint(1, 12)) for _ in range(rng.randint(1, 4))]
        if not any(point):
            continue
        z = _integral(point)
        assert all(isinstance(a, int) for a in z)
        i = next(i for i, a in enumerate(point) if a)
        factor = fmpq(z[i]) / point[i]
        assert factor > 0 and [factor * a for a in point] == [fmpq(a) for a in z]


@pytest.mark.parametrize("M, warning", [
    ([], "the matrix has no rows"),
    ([[], []], "rows 0, 1 are zero: the sign pattern is empty"),
    ([[0, 0]], "row 0 is zero: the sign pattern is empty"),
])
def test_matrices_without_rows_or_columns_have_rank_0_and_no_cells(M, warning):
    P = sign_pattern(M)
    assert (P.count, P.rank, P.hyperplanes, P.warnings) == (0, 0, 0, [warning])
    assert P.matrix == [[fmpq(a) for a in row] for row in M]


def test_an_unknown_method_is_named_with_the_known_ones():
    with pytest.raises(ValueError, match="^unknown method 'lp'; choose from cocircuits, graph$"):
        sign_pattern([[1, 0]], method="lp")



@pytest.mark.parametrize("bits", [30, 62, 70, 100])
@pytest.mark.parametrize("method", ["cocircuits", "graph"])
def test_thin_cells_between_nearly_parallel_hyperplanes_have_exact_witnesses(bits, method):
    """Rows ``(F_{n+1}, -F_n)`` and ``(F_{n+2}, -F_{n+1})`` meet at an angle of about
    ``2^-2bits``: a witness of the cells between them has coordinates of ``bits`` bits
    and values ``M z`` of size 1, so any rounding of it leaves the cell."""
    f0, f1, f2, _ = _fibonacci_pair(bits)
    M = [[f1, -f0], [f2, -f1], [1, 1]]
    P = sign_pattern(M, method=method)
    assert set(P.patterns) == brute_force_sign_pattern(M)
    assert P.count == 6
    for cell in P.cells:
        assert _sign_of_product(M, cell.witness) == cell.signs


# -- chirotope: column bases and topes over Q(sqrt 2, sqrt 3, ...) -----------------------


@pytest.mark.parametrize("R", [
    [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
    [[1, 2, 3, 4], [0, 0, 0, 1]],                  # row 0 is needed for the first pivot
    [[0, 1, 1], [0, 2, 2], [0, 0, 5]],             # a zero column first
    [[0, 0, 1, 2], [0, 0, 2, 4], [0, 0, 3, 7]],
    [[2, 4, 1], [1, 2, 0], [3, 6, 1], [1, 2, 1]],  # rank 2, dependent column 1
    [[1, 1], [1, 1], [2, 2]],
    [[5, 0, 1, 0, 2], [0, 0, 0, 3, 1], [1, 0, 0, 0, 0]],
])
def test_column_bases_over_the_field_are_the_rational_pivot_columns(R):
    """Scaling the rows and the columns by non-zero square roots keeps the pivot columns,
    which FLINT finds for the rational matrix."""
    from verify.arrangement.chirotope import exact_column_basis
    from verify.linalg.exact import column_basis

    roots = [SqrtSum.sqrt(p) for p in (2, 3, 5, 7, 11, 13)]
    scaled = [[roots[i % 6] * roots[(j + 2) % 6] * a for j, a in enumerate(row)]
              for i, row in enumerate(R)]
    assert exact_column_basis(scaled) == column_basis(R)
    assert exact_column_basis([[SqrtSum(a) for a in row] for row in R]) == column_basis(R)


def _rank3_field_matrix():
    from verify.arrangement.ranking_pattern import braid_product
    from verify.numbers.sqrt_sum import cosine_matrix

    return cosine_matrix(braid_product([[0, 0, 1], [3, 1, 0], [1, 4, 2], [-2, 2, 1]]))


def test_field_topes_of_rank_3_with_witnesses_and_statistics():
    """Topes with and without witnesses, the topes of the rational matrix ``B_n W``
    (the cosine matrix is a row and column scaling of it), every witness checked
    exactly, and the statistics of the certified chirotope passed through."""
    from math import comb

    from verify.arrangement.chirotope import exact_column_basis, field_topes
    from verify.arrangement.ranking_pattern import braid_product

    C = _rank3_field_matrix()
    assert len(exact_column_basis(C)) == 3
    plain_stats, stats = {}, {}
    plain = field_topes(C, stats=plain_stats)
    signs, points = field_topes(C, witnesses=True, stats=stats)
    M = braid_product([[0, 0, 1], [3, 1, 0], [1, 4, 2], [-2, 2, 1]])
    rational = {tuple(1 if s == "+" else -1 for s in p) for p in sign_pattern(M).patterns}
    assert plain == signs == sorted(rational)
    for T in signs:
        values = [sum((a * b for a, b in zip(row, points[T])), SqrtSum(0)) for row in C]
        assert tuple(v.sign() for v in values) == T
    for counted in (plain_stats, stats):
        decided = (counted["chirotope_filter"] + counted["chirotope_contains_dependent_set"]
                   + counted["chirotope_closure"] + counted["chirotope_exact"])
        assert decided == comb(len(C), 3)


def test_the_field_chirotope_is_the_signs_of_the_maximal_minors_on_the_column_basis():
    from verify.arrangement.chirotope import exact_column_basis, field_chirotope
    from verify.numbers.sqrt_sum import det

    C = _rank3_field_matrix()
    C = [row + [row[0] + row[1]] for row in C]      # a dependent column, left out
    basis = exact_column_basis(C)
    assert len(basis) == 3
    stats = {}
    chi = field_chirotope(C, stats=stats)
    assert (chi.size, chi.rank) == (len(C), 3)
    expected = [det([[C[i][j] for j in basis] for i in I]).sign()
                for I in colex_combinations(len(C), 3)]
    assert chi.table.tolist() == expected
    assert sum(stats[key] for key in ("chirotope_filter", "chirotope_contains_dependent_set",
                                      "chirotope_closure", "chirotope_exact")) == len(expected)


@pytest.mark.parametrize("seed", [3, 4])
def test_a_head_with_only_irrational_entries_ranks_like_its_rational_multiple(seed):
    """``sqrt(2) W`` (every entry irrational) has the rankings of ``W``: a positive
    multiple of every logit. Its witnesses and multipliers are checked over the field."""
    W = _random_head(seed, low=1, high=4)
    irrational = [[SQRT2 * a for a in row] for row in W]
    assert all(not a.is_rational() for row in irrational for a in row)
    for label in range(len(W)):
        listed = top_label_rankings(irrational, label)
        assert sorted(r for r, _ in listed) == sorted(r for r, _ in top_label_rankings(W, label))
        for order, x in listed:
            assert _logits_in_order(irrational, x, order, SqrtSum(0))
        certificate = never_first(irrational, label)
        assert (certificate is None) == (never_first(W, label) is None) == bool(listed)
        if certificate is not None:
            _check_gordan(irrational, label, certificate, SqrtSum(0))


def test_compounds_of_matrices_without_rows_or_columns():
    """No rows: every compound is empty. No columns: the one maximal minor is the empty
    determinant, the integer 1 (exact integers, as every minor)."""
    C = compound_matrices(np.zeros((0, 3), dtype=np.int64), 3)
    assert [c.shape for c in C] == [(0, 3), (0, 3), (0, 1)]
    minors = maximal_minors(np.zeros((4, 0), dtype=np.int64))
    assert minors.tolist() == [1] and type(minors.tolist()[0]) is int


# --- verify/arrangement/whitney.py -------------------------------------------------


def _essential_braid(n, d, bound, seed):
    from verify.arrangement.ranking_pattern import braid_product
    from verify.arrangement.stream import reduce_matrix

    W = np.random.default_rng(seed).integers(-bound, bound + 1, size=(n, d)).tolist()
    R = reduce_matrix(braid_product(W))
    return None if R.zero_rows or not R.rows else R.H


@pytest.mark.parametrize("n, d, bound, seed", [(5, 4, 1, 0), (5, 5, 2, 3), (6, 4, 1, 7)])
def test_whitney_mobius_of_large_flats_from_their_lattice_equals_the_whole_lattice(
        n, d, bound, seed, monkeypatch):
    """With every flat of rank >= 3 sent to its own lattice of flats (``CROSSCUT_MEMBERS``
    below every flat size), the count still equals Zaslavsky's over the whole lattice."""
    import verify.arrangement.whitney as whitney
    from verify.arrangement.zaslavsky import cell_count

    H = _essential_braid(n, d, bound, seed)
    assert H is not None and H.shape[1] >= 4
    expected = cell_count(H)
    monkeypatch.setattr(whitney, "CROSSCUT_MEMBERS", 0)
    assert whitney.cell_count_by_ranks(H) == expected
    _whitney_numbers_against_the_lattice(H.tolist())


def test_whitney_braid_arrangement_by_lattices_of_flats_has_n_factorial_cells(monkeypatch):
    """The braid arrangement of 5 labels (rank 4): its rank-3 flats of 6 members (the braid
    arrangements of 4 labels) by their own lattices; the count is 5!."""
    import verify.arrangement.whitney as whitney
    from math import factorial

    from verify.arrangement.ranking_pattern import braid_product
    from verify.arrangement.stream import reduce_matrix

    H = reduce_matrix(braid_product(np.eye(5, dtype=int).tolist())).H
    monkeypatch.setattr(whitney, "CROSSCUT_MEMBERS", 3)
    assert whitney.cell_count_by_ranks(H) == factorial(5)


def test_whitney_refuses_a_flat_with_too_many_flats_below_it(monkeypatch):
    import verify.arrangement.whitney as whitney
    from verify.arrangement.ranking_pattern import braid_product
    from verify.arrangement.stream import reduce_matrix

    H = reduce_matrix(braid_product(np.eye(5, dtype=int).tolist())).H
    monkeypatch.setattr(whitney, "CROSSCUT_MEMBERS", 3)
    monkeypatch.setattr(whitney, "MAX_FLATS", 5)
    with pytest.raises(ValueError,
                       match=r"^a flat with [46] members has more than 5 flats below it$"):
        whitney.cell_count_by_ranks(H)


@pytest.mark.parametrize("K", [0, 1])
def test_whitney_no_subsets_no_flats_in_the_packing_of_member_sets(K):
    """Fewer normals than the rank asked: no flats, as an empty array packed like the
    member sets of flats that are found (:func:`_bit_words`)."""
    from verify.arrangement.oriented_matroid import _bit_words
    from verify.arrangement.whitney import flats_of_rank

    keys = flats_of_rank(np.ones((K, 3), dtype=np.int64), 2)
    packed = _bit_words(np.zeros((0, K), dtype=bool))
    assert keys.shape == packed.shape and keys.dtype == packed.dtype == np.uint64


@pytest.mark.parametrize("r", [3, 4])
def test_whitney_as_many_normals_as_the_rank_squared(r):
    """``K = r^2`` normals (a chunk-size formula with ``K - r^2`` would divide by zero),
    against the whole lattice and the closed form of generic arrangements."""
    from math import comb

    from verify.arrangement.whitney import cell_count_by_ranks
    from verify.arrangement.zaslavsky import cell_count

    generic = [[t ** j for j in range(r)] for t in range(1, r * r + 1)]
    assert cell_count_by_ranks(generic) == 2 * sum(comb(r * r - 1, j) for j in range(r))
    rng = np.random.default_rng(r)
    rows = {}                   # distinct hyperplanes: primitive, first non-zero entry > 0
    while len(rows) < r * r:
        row = rng.integers(-2, 3, size=r).tolist()
        g = np.gcd.reduce(row)
        if g:
            row = [a // g for a in row]
            sign = 1 if next(a for a in row if a) > 0 else -1
            rows.setdefault(tuple(sign * a for a in row), row)
    H = np.array(list(rows.values()), dtype=np.int64)
    assert np.linalg.matrix_rank(H) == r
    assert cell_count_by_ranks(H) == cell_count(H.tolist())
    _whitney_numbers_against_the_lattice(H.tolist())


@pytest.mark.parametrize("m", [16, 20, 21, 24, 26, 28, 30])
def test_whitney_products_that_wrap_to_zero_in_64_bits(m):
    """Three independent hyperplanes (8 cells), ``a = 2^m e_1``, ``b = 2^m e_2`` and
    ``h = (1, 1, 2^(64-2m))``: ``h . (a x b) = 2^64``, zero in 64-bit arithmetic, so ``h``
    would join the flat spanned by ``a`` and ``b``. The integer type must be exact."""
    from verify.arrangement.whitney import cell_count_by_ranks
    from verify.arrangement.zaslavsky import cell_count

    H = [[2 ** m, 0, 0], [0, 2 ** m, 0], [1, 1, 2 ** (64 - 2 * m)]]
    assert cell_count_by_ranks(H) == cell_count(H) == 8
    # the same with one more normal in the plane of a and b (rank 2 flat of 3 members)
    H4 = H + [[2 ** m, 2 ** m, 0]]
    assert cell_count_by_ranks(H4) == cell_count(H4)


# --- verify/arrangement/graph_search.py --------------------------------------------


def _fraction(x):
    q = fmpq(x)
    return Fraction(int(q.p), int(q.q))


def _primitive_hyperplanes(seed, K, r, bound=3, scale=1):
    """K hyperplanes in R^r, no two parallel, half of the rows scaled by ``scale``."""
    from test_graph_search import _arrangement

    return _arrangement(seed, K, r, bound, scale)


@pytest.mark.parametrize("seed, K, r, scale", [(0, 4, 2, 1), (1, 6, 3, 1), (2, 7, 3, 10 ** 30),
                                               (3, 5, 4, 1), (4, 8, 3, 1)])
def test_graph_search_cells_edges_and_refutations_against_their_definitions(seed, K, r, scale):
    """The cells are the LP method's; each witness lies in its cell (checked with
    Fractions); the edges are exactly the pairs of cells that differ in one sign, as
    ``(smaller, larger, hyperplane)``; each refutation is a Gordan certificate of
    the flipped orthant, which is no cell."""
    from verify.arrangement.graph_search import search_topes

    H = _primitive_hyperplanes(seed, K, r, scale=scale)
    found = search_topes(H)
    expected = {tuple(1 if ch == "+" else -1 for ch in s) for s in sign_pattern(H).patterns}
    assert set(found.cells) == expected
    for tope, point in found.cells.items():
        z = [_fraction(a) for a in point]
        assert all(s * sum(a * b for a, b in zip(h, z)) > 0 for s, h in zip(tope, H))
    adjacent = {(a, b, c) for a in expected for b in expected if a < b
                for c in range(K) if a[:c] == b[:c] and a[c + 1:] == b[c + 1:]}
    assert set(found.edges) == adjacent
    for (tope, c), certificate in found.refutations.items():
        flipped = tope[:c] + (-tope[c],) + tope[c + 1:]
        assert tope in expected and flipped not in expected
        y = {i: _fraction(v) for i, v in certificate.multipliers}
        assert y and all(v > 0 for v in y.values())
        assert all(sum(v * flipped[i] * H[i][j] for i, v in y.items()) == 0 for j in range(r))
    assert {(t, c) for t in expected for c in range(K)
            if t[:c] + (-t[c],) + t[c + 1:] not in expected} == set(found.refutations)


@pytest.mark.parametrize("H, t", [
    ([[1, 0, 0], [1, 1, 0], [2, -1, 3]], 0),          # (1, 0, 0) is on no hyperplane
    ([[0, 1], [1, 1]], 1),                             # t = 0 is on the first one
    ([[0, 1], [1, -1], [2, -1], [3, -1]], 4),          # t = 0, 1, 2, 3 ruled out
    ([[0, 0, 1], [2, -3, 1]], 3),                      # 2 - 3t + t^2 = 0 at t = 1, 2
])
def test_graph_search_generic_point_is_the_first_on_no_hyperplane(H, t):
    """``(1, t, ..., t^(r-1))`` for the least ``t >= 0`` on no hyperplane, each smaller
    ``t`` checked to lie on one."""
    from verify.arrangement.graph_search import generic_point

    def moment(s):
        return tuple(s ** j for j in range(len(H[0])))

    assert generic_point(H) == moment(t)
    assert all(sum(a * b for a, b in zip(h, moment(t))) != 0 for h in H)
    assert all(any(sum(a * b for a, b in zip(h, moment(s))) == 0 for h in H) for s in range(t))


def test_graph_search_refuses_evidence_that_decides_nothing(monkeypatch):
    from verify.arrangement import graph_search

    monkeypatch.setattr(graph_search, "decide_orthant", lambda H, signs, active: None)
    with pytest.raises(AssertionError, match=r"^internal error: None decides nothing$"):
        graph_search.search_topes([[1, 0], [0, 1]])


@pytest.mark.parametrize("seed, K, r", [(1, 6, 3), (3, 5, 4), (4, 8, 3)])
def test_graph_search_lists_each_edge_once(seed, K, r):
    """An edge between two cells is listed once, whichever cell found the other (both
    cells look across their common wall)."""
    from verify.arrangement.graph_search import search_topes

    edges = search_topes(_primitive_hyperplanes(seed, K, r)).edges
    assert len(edges) == len(set(edges))


@pytest.mark.parametrize("n, d, seed", [(5, 4, 1), (5, 5, 2)])
def test_whitney_columns_scaled_by_large_factors_keep_the_count(n, d, seed):
    """A linear change of coordinates (a dense integer matrix, then column scalings)
    keeps the lattice of flats and the count; with factors near 2^40 the minors and the products with the
    coordinate vectors that complete them exceed 2^53 and need exact integers."""
    from verify.arrangement.whitney import cell_count_by_ranks
    from verify.arrangement.zaslavsky import cell_count

    H = _essential_braid(n, d, 1, seed)
    assert H is not None and H.shape[1] >= 4
    r = H.shape[1]
    rng = random.Random(seed)
    while True:                 # a dense invertible change of coordinates, then scalings
        U = [[rng.randint(-3, 3) for _ in range(r)] for _ in range(r)]
        if fmpz_mat(U).det() != 0:
            break
    factors = [2 ** 40 + 1, 3 ** 25, 2 ** 39 - 7, 5 ** 17, 7 ** 14][:r]
    dense = [[sum(int(h[i]) * U[i][j] for i in range(r)) for j in range(r)]
             for h in H.tolist()]
    scaled = [[a * f for a, f in zip(row, factors)] for row in dense]
    assert cell_count_by_ranks(scaled) == cell_count(H) == cell_count(scaled)
    _whitney_numbers_against_the_lattice(scaled)


def _whitney_numbers_against_the_lattice(H):
    """Each ``b_k`` against the Möbius values of the whole lattice: for an even rank the
    count ``sum b_k + |sum (-1)^k b_k|`` does not depend on the even ``b_k`` (when the
    alternating sum is negative), so the count alone would not see them."""
    from verify.arrangement.whitney import whitney_number
    from verify.arrangement.zaslavsky import mobius_levels

    levels = mobius_levels(H)
    exact = np.array([[int(a) for a in row] for row in H], dtype=object)
    for k in range(2, exact.shape[1]):
        assert whitney_number(exact, k) == sum(abs(int(mu)) for mu in levels[k])


# --- verify/arrangement/field_chirotope.py -----------------------------------------

_CHIROTOPE_STATS = {"chirotope_filter", "chirotope_contains_dependent_set", "chirotope_closure",
                    "chirotope_exact", "chirotope_dependencies_certified"}


@pytest.mark.parametrize("P", [
    [[1, 0], [0, 1], [1, 1]],                                  # the filter decides all
    [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 1]],    # zero minors too
    [[SQRT2, 1], [2, SQRT2], [1, 0]],                          # sqrt 2 (2 - 2 = 0)
])
def test_field_chirotope_statistics_partition_the_minors_and_add_up(P):
    """Every maximal minor is decided once (filter, a dependent subset, closure or an
    exact determinant); the statistics of two calls add up in one dictionary."""
    from math import comb

    from verify.arrangement.field_chirotope import certified_chirotope

    once = {}
    chi = certified_chirotope(P, stats=once)
    assert set(once) == _CHIROTOPE_STATS
    decided = sum(once[k] for k in _CHIROTOPE_STATS if k != "chirotope_dependencies_certified")
    assert decided == comb(len(P), len(P[0])) == len(chi.table)
    if all(s != 0 for s in chi.table.tolist()):
        assert once["chirotope_dependencies_certified"] == 0
    twice = {}
    certified_chirotope(P, stats=twice)
    certified_chirotope(P, stats=twice)
    assert twice == {k: 2 * v for k, v in once.items()}


def test_field_chirotope_refuses_more_minors_than_its_limit_and_no_fewer(monkeypatch):
    from math import comb

    from verify.arrangement import field_chirotope as fc

    P = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [1, 2, 3]]
    monkeypatch.setattr(fc, "MAX_SIGNS", comb(5, 3))
    assert len(fc.certified_chirotope(P).table) == 10
    monkeypatch.setattr(fc, "MAX_SIGNS", comb(5, 3) - 1)
    with pytest.raises(fc.TooLargeError,
                       match=r"^5 vectors in rank 3 have 10 maximal minors \(limit 9\)$"):
        fc.certified_chirotope(P)


@pytest.mark.parametrize("P", [
    [[1, 0, 0], [2, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]],          # parallel rows
    [[0, SQRT2, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1], [1, 0, SQRT2]],  # parallel over Q(sqrt 2)
    [[1, 1, 0, 0], [2, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 1, 1], [0, 1, 1, 1]],
    [[1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 0, 0], [2, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1],
     [0, 0, 1, 1]],                                                # four rows in a plane
])
def test_field_chirotope_dependent_rows_against_exact_determinants(P):
    """Rows with dependent subsets smaller than the rank (each with a single non-zero
    minor, or several): every sign against the determinant over ``Q(sqrt 2)``."""
    from itertools import combinations

    from verify.arrangement.field_chirotope import certified_chirotope
    from verify.numbers.sqrt_sum import as_sqrt_sum

    r = len(P[0])
    chi = certified_chirotope(P)
    for index, I in enumerate(colex_combinations(len(P), r).tolist()):
        M = [[as_sqrt_sum(a) for a in P[i]] for i in I]
        assert chi.table[index] == _det_sign(M)


def _det_sign(M):
    """Sign of a determinant by Laplace expansion along the first row (exact)."""
    if len(M) == 1:
        return M[0][0].sign()
    total = None
    for j, a in enumerate(M[0]):
        minor = [row[:j] + row[j + 1:] for row in M[1:]]
        term = a * _det_value(minor) * (1 if j % 2 == 0 else -1)
        total = term if total is None else total + term
    return total.sign()


def _det_value(M):
    if len(M) == 1:
        return M[0][0]
    total = None
    for j, a in enumerate(M[0]):
        minor = [row[:j] + row[j + 1:] for row in M[1:]]
        term = a * _det_value(minor) * (1 if j % 2 == 0 else -1)
        total = term if total is None else total + term
    return total


# --- verify/arrangement/stream.py ---------------------------------------------------


@pytest.mark.parametrize("M", [[[1, 0], [0, 0], [1, 1]], [[0, 0, 0]], [[1, 2, 3], [0, 0, 0]],
                               [[1, 0], [0, 1], [1, 1]]])
def test_stream_count_with_a_zero_row_is_the_empty_pattern(M):
    """A zero row is never strictly signed: no cells, as the whole engine says; without
    zero rows the count is the engine's too."""
    from verify.arrangement.stream import count_cells

    assert count_cells(M) == sign_pattern(M).count


@pytest.mark.parametrize("column", [0, 1, 2, 3])
@pytest.mark.parametrize("bits", [80, 200])
def test_field_chirotope_near_dependencies_in_every_column(column, bits):
    """Row 2 = row 0 + row 1 except for ``2^-bits sqrt 3`` in one column (and row 5 =
    row 3 + row 4 exactly): the filter cannot tell the near-dependent triple from a
    dependent one, every column of it must be bordered; signs against determinants."""
    from verify.arrangement.field_chirotope import certified_chirotope
    from verify.numbers.sqrt_sum import as_sqrt_sum

    tiny = SqrtSum(fmpq(1, 2 ** bits)) * SqrtSum.sqrt(3)
    a, b = [1, SQRT2, 0, 5], [3, 0, 1, 1]
    near = [x + y for x, y in zip(a, b)]
    near[column] = near[column] + tiny
    c, d = [0, 1, SQRT2, 1], [1, 0, 0, 2]
    P = [a, b, near, c, d, [x + y for x, y in zip(c, d)], [0, 0, 1, 0]]
    chi = certified_chirotope(P)
    for index, I in enumerate(colex_combinations(len(P), 4).tolist()):
        M = [[as_sqrt_sum(x) for x in P[i]] for i in I]
        assert chi.table[index] == _det_sign(M)


# --- verify/arrangement/cocircuits.py ------------------------------------------------


def test_cocircuits_flat_memo_is_kept_for_the_same_matrix_only(monkeypatch):
    """One memo per matrix: the same object for an equal matrix (a copy), a new one for
    another matrix of the same shape or of another shape, and again a new one on
    returning to the first (only the last matrix is remembered). The process-wide cache
    starts empty here, whatever earlier tests left in it."""
    from verify.arrangement import cocircuits

    monkeypatch.setattr(cocircuits, "_LAST_MEMO", [None, None])
    H = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=np.int64)
    first = cocircuits._memo_of(H)
    assert isinstance(first, cocircuits.FlatMemo)
    assert cocircuits._memo_of(H.copy()) is first
    other = H.copy()
    other[3, 2] = 2
    second = cocircuits._memo_of(other)
    assert second is not first and cocircuits._memo_of(other) is second
    third = cocircuits._memo_of(H[:3])
    assert third is not second and third is not first
    assert cocircuits._memo_of(H) is not first
