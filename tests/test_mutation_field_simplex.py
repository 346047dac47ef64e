"""The simplex method over an ordered field against the integer oracle, on random systems.

``strict_feasibility_over`` (run here over ``fractions.Fraction``) and
``strict_feasibility`` (the integer simplex and its float proposer) are independent
implementations of Gordan's alternative: they must agree on every system, and each
answer is checked here against its definition. The certificate must be a basic
solution: positive entries on at most ``k + 1`` rows, sorted, whose rows have a
one-dimensional space of dependencies.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from flint import fmpq
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verify.linalg.exact import rank
from verify.lp.evidence import GordanCertificate, Witness
from verify.lp.feasibility import strict_feasibility
from verify.lp.field_simplex import strict_feasibility_over

ONE = Fraction(1)


@st.composite
def systems(draw):
    k = draw(st.integers(1, 4))
    n = draw(st.integers(1, 8))
    return [[Fraction(draw(st.integers(-4, 4)), draw(st.integers(1, 3))) for _ in range(k)]
            for _ in range(n)]


def is_witness(rows, point) -> bool:
    return all(len(row) == len(point) and sum(a * x for a, x in zip(row, point)) > 0
               for row in rows)


def is_basic_certificate(rows, multipliers) -> bool:
    indices = [i for i, _ in multipliers]
    if not multipliers or indices != sorted(set(indices)):
        return False
    if any(y <= 0 for _, y in multipliers):
        return False
    k = len(rows[0])
    if any(sum(y * rows[i][j] for i, y in multipliers) != 0 for j in range(k)):
        return False
    # a basic solution: at most k + 1 rows, dependencies among them one-dimensional
    sub = [[fmpq(rows[i][j].numerator, rows[i][j].denominator) for j in range(k)]
           for i in indices]
    return len(indices) <= k + 1 and rank(sub) == len(indices) - 1


@settings(max_examples=150, deadline=None)
@given(systems())
def test_field_simplex_agrees_with_the_integer_oracle(rows):
    over = strict_feasibility_over(rows, ONE)
    oracle = strict_feasibility(rows)
    assert type(over) is type(oracle)
    if isinstance(over, Witness):
        assert is_witness(rows, over.point)
    else:
        assert is_basic_certificate(rows, over.multipliers)
    assert strict_feasibility_over(rows, ONE) == over  # Bland's rule: deterministic


@settings(max_examples=100, deadline=None)
@given(systems(), st.data())
def test_an_infeasible_system_made_so_by_a_combination(rows, data):
    # Append minus a non-negative combination of the rows: certainly infeasible.
    weights = [data.draw(st.integers(0, 2)) for _ in rows]
    weights[data.draw(st.integers(0, len(rows) - 1))] += 1
    last = [-sum(w * row[j] for w, row in zip(weights, rows)) for j in range(len(rows[0]))]
    system = rows + [last]
    over = strict_feasibility_over(system, ONE)
    assert isinstance(over, GordanCertificate)
    assert is_basic_certificate(system, over.multipliers)


@settings(max_examples=100, deadline=None)
@given(systems(), st.data())
def test_a_feasible_system_made_so_by_orientation(rows, data):
    z = [Fraction(data.draw(st.integers(-3, 3))) for _ in rows[0]]
    oriented = []
    for row in rows:
        v = sum(a * b for a, b in zip(row, z))
        if v:
            oriented.append(row if v > 0 else [-a for a in row])
    if not oriented:
        return
    over = strict_feasibility_over(oriented, ONE)
    assert isinstance(over, Witness)
    assert is_witness(oriented, over.point)


def test_small_systems_by_hand():
    assert strict_feasibility_over([[1]], ONE) == Witness(point=(Fraction(1),))
    cert = strict_feasibility_over([[1], [-2]], ONE)
    assert cert.multipliers == ((0, Fraction(2, 3)), (1, Fraction(1, 3)))
    cert = strict_feasibility_over([[1, 0], [0, 1], [-1, -1]], ONE)
    assert cert.multipliers == ((0, Fraction(1, 3)), (1, Fraction(1, 3)),
                                (2, Fraction(1, 3)))
    # a zero row alone is infeasible
    assert strict_feasibility_over([[1, 2], [0, 0]], ONE).multipliers == ((1, ONE),)
    point = strict_feasibility_over([[1, 0], [0, 1], [1, 1]], ONE).point
    assert is_witness([[1, 0], [0, 1], [1, 1]], point)


@pytest.mark.parametrize("rows", [[], [[]], [[], []]])
def test_empty_systems_are_refused(rows):
    with pytest.raises(ValueError, match="at least one row and one column"):
        strict_feasibility_over(rows, ONE)


# Degenerate systems (many ties in the ratio test): small entries, repeated and
# parallel rows, zero rows.
degenerate_systems = st.integers(1, 4).flatmap(
    lambda k: st.lists(st.lists(st.integers(-1, 1), min_size=k, max_size=k),
                       min_size=1, max_size=9))


@settings(max_examples=200, deadline=None)
@given(degenerate_systems)
@example([[1, 1]])  # every ratio of the first pivot is 0: a tie among all rows
@example([[1, 0], [1, 0], [0, 1], [-1, -1], [0, 0]])
def test_field_simplex_takes_the_steps_of_the_integer_pivoting_simplex(rows):
    # gordan_integer_simplex is a separate implementation of the same method (phase 1,
    # Bland's rule for entering and leaving, fraction-free pivots): in exact arithmetic
    # it visits the same bases, so both must return the very same evidence. A different
    # but valid answer means one of them left Bland's rule (and may cycle).
    from verify.lp.integer_simplex import gordan_integer_simplex

    over = strict_feasibility_over(rows, fmpq(1))
    assert over == gordan_integer_simplex(rows)
    # over Fraction too: the same numbers, in another type
    fractions = strict_feasibility_over(rows, ONE)
    if isinstance(over, Witness):
        assert [fmpq(a.numerator, a.denominator) for a in fractions.point] == list(over.point)
    else:
        assert [(i, fmpq(y.numerator, y.denominator)) for i, y in fractions.multipliers] \
            == list(over.multipliers)


def test_the_refusals_and_the_guards_say_what_went_wrong():
    from verify.lp.field_simplex import checked_certificate, checked_witness

    with pytest.raises(ValueError) as refused:
        strict_feasibility_over([[]], ONE)
    assert str(refused.value) == \
        "strict_feasibility_over needs at least one row and one column"
    rows = [[ONE, 0 * ONE], [-ONE, 0 * ONE]]
    with pytest.raises(AssertionError) as refused:
        checked_certificate(rows, ((0, ONE),), 0 * ONE)
    assert str(refused.value) == "internal error: the simplex returned invalid multipliers"
    with pytest.raises(AssertionError) as refused:
        checked_witness(rows, (ONE, ONE), 0 * ONE)
    assert str(refused.value) == "internal error: the simplex returned an invalid witness"
