"""How the checker writes sums of square roots: ``str(RootSum)`` is read back exactly.

The checker's messages show numbers over ``Q(sqrt ...)`` with ``str``; the text must be
in the grammar of :class:`verify.checker.roots.SquareRoots` and denote the same
number, so that a reviewer can paste it into a certificate. Checked by reading the text
back and comparing exactly (the difference has no term left), on random sums and on the
edge cases: zero, one term, terms below 1 in absolute value, a negative first term.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from verify.checker.roots import SQUARE_ROOTS, RootSum

terms = st.lists(st.tuples(st.integers(1, 30),
                           st.fractions(min_value=-5, max_value=5, max_denominator=7)),
                 max_size=5)


@settings(max_examples=300, deadline=None)
@given(terms)
def test_text_reads_back_as_the_same_number(pairs):
    x = RootSum(pairs)
    text = str(x)
    back = SQUARE_ROOTS.parse(text, "x")
    assert not (back - x).terms
    assert (text == "0") is (not x.terms)
    assert text.startswith("-") is (bool(x.terms) and x.terms[min(x.terms)] < 0)


def test_edge_cases_of_the_text():
    assert str(RootSum()) == "0"
    assert str(RootSum([(2, Fraction(1)), (2, Fraction(-1))])) == "0"
    assert str(RootSum([(1, Fraction(1, 2))])) == "1/2"
    assert str(RootSum([(1, Fraction(-1, 2))])) == "-1/2"
    assert str(RootSum([(2, Fraction(1, 3))])) == "1/3*sqrt(2)"
    assert str(RootSum([(1, Fraction(1, 2)), (3, Fraction(1, 4))])) == "1/2 + 1/4*sqrt(3)"
    assert str(RootSum([(1, Fraction(-1, 2)), (3, Fraction(-1, 4))])) == \
        "-1/2 - 1/4*sqrt(3)"
    assert str(RootSum([(1, Fraction(3)), (5, Fraction(-2))])) == "3 - 2*sqrt(5)"
    # sqrt(9) is the rational 3; sqrt(8) and sqrt(2) are one class, kept as sqrt(8)
    assert str(RootSum([(8, Fraction(1)), (2, Fraction(1))])) == "3/2*sqrt(8)"
    assert str(RootSum([(9, Fraction(1, 2))])) == "3/2"
