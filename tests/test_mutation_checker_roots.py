"""How the checker writes sums of square roots: ``str(RootSum)`` is read back exactly.

The checker's messages show numbers over ``Q(sqrt ...)`` with ``str``; the text must be
in the grammar of :class:`verify.checker.roots.SquareRoots` and denote the same
number, so that a reviewer can paste it into a certificate. Checked by reading the text
back and comparing exactly (the difference has no term left), on random sums and on the
edge cases: zero, one term, terms below 1 in absolute value, a negative first term.
"""

from __future__ import annotations

from fractions import Fraction
from math import isqrt

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


# --- signs with coefficients below one ------------------------------------------------------

def _sign(x) -> int:
    return (x > 0) - (x < 0)


def _sign_of_r_plus_s_sqrt(r: Fraction, s: Fraction, m: int) -> int:
    """``sign(r + s sqrt(m))`` for ``m >= 1`` by squaring: when ``r`` and ``s`` have
    opposite signs the larger of ``r^2`` and ``s^2 m`` wins (all in integers of Q)."""
    if _sign(r) * _sign(s) >= 0:
        return _sign(r) or _sign(s)
    return _sign(r) * _sign(r * r - s * s * m)


def _sign_of_two_roots(a: Fraction, p: int, b: Fraction, q: int) -> int:
    """``sign(a sqrt(p) + b sqrt(q))`` by squaring: ``a^2 p`` against ``b^2 q``."""
    if _sign(a) * _sign(b) >= 0:
        return _sign(a) or _sign(b)
    return _sign(a) * _sign(a * a * p - b * b * q)


def _sign_of_two_roots_and_a_rational(a, p, b, q, c) -> int:
    """``sign(u + c)`` for ``u = a sqrt(p) + b sqrt(q)``: the common sign if ``u`` and
    ``c`` agree, else the sign of ``u`` times that of ``u^2 - c^2``, which is
    ``a^2 p + b^2 q - c^2 + 2ab sqrt(pq)``."""
    su = _sign_of_two_roots(a, p, b, q)
    if su * _sign(c) >= 0:
        return su or _sign(c)
    return su * _sign_of_r_plus_s_sqrt(a * a * p + b * b * q - c * c, 2 * a * b, p * q)


def _units(x: int, y: int, d: int, count: int):
    """The first ``count`` powers ``x_k + y_k sqrt(d)`` of the unit ``x + y sqrt(d)``."""
    xk, yk = x, y
    for _ in range(count):
        yield xk, yk
        xk, yk = xk * x + d * yk * y, xk * y + yk * x


def test_signs_of_near_units_with_coefficients_below_one():
    """``(y sqrt(d) - x) / N`` for the solutions of ``x^2 - d y^2 = +-1`` (``|y sqrt(d) -
    x| < 1 / (2x)``) scaled by ``N`` beyond ``x`` so that every coefficient is a fraction
    below 1, down to differences near ``2^-400``; moved by rationals of the size of the
    difference; and ``(a sqrt(2) - b sqrt(3)) / N`` with ``3 b^2 - 2 a^2 = 1``, plus a
    rational. Each sign is the one found by squaring in exact rationals, never from a
    numerical value, and is checked for the sum and its negation."""
    signs = {1: 0, -1: 0}
    for d, x1, y1 in ((2, 1, 1), (3, 2, 1), (5, 2, 1), (6, 5, 2), (7, 8, 3), (13, 18, 5)):
        for k, (x, y) in enumerate(_units(x1, y1, d, 60)):
            for N in (x + 1, 1 << x.bit_length() + 5):
                for t in (Fraction(1), Fraction(k + 1, k + 2)):
                    a, b = t * Fraction(y, N), t * Fraction(x, N)
                    assert 0 < a < 1 and 0 < b < 1
                    for shift in (Fraction(0), Fraction(1, N * (2 * x + 1)),
                                  -Fraction(1, N * (2 * x + 1)), Fraction(1, 4 * N * x * x),
                                  Fraction(1, N * x), -Fraction(1, N * x)):
                        c = shift - b
                        expected = _sign_of_r_plus_s_sqrt(c, a, d)
                        assert expected != 0
                        number = RootSum([(d, a), (1, c)])
                        assert number.sign() == expected, (d, k, N, t, shift)
                        assert (-number).sign() == -expected
                        signs[expected] += 1
    # sqrt(3) b - sqrt(2) a = 1 / (sqrt(3) b + sqrt(2) a); the unit 5 + 2 sqrt(6) keeps
    # 3 b^2 - 2 a^2 = 1: (a, b) -> (5a + 6b, 4a + 5b)
    a0, b0 = 1, 1
    for k in range(50):
        N = 1 << (b0.bit_length() + 3)
        a, b = Fraction(a0, N), Fraction(b0, N)
        for c in (Fraction(0), Fraction(1, N * 5 * b0), -Fraction(1, N * 5 * b0),
                  Fraction(1, N * N), -Fraction(1, 2 * N * 3 * b0)):
            expected = _sign_of_two_roots_and_a_rational(a, 2, -b, 3, c)
            number = RootSum([(2, a), (3, -b), (1, c)])
            assert number.sign() == expected != 0, (k, c)
            assert (-number).sign() == -expected
            # the same number written with sqrt(8) = 2 sqrt(2) and sqrt(12) = 2 sqrt(3)
            assert RootSum([(8, a / 2), (12, -b / 2), (1, c)]).sign() == expected
            signs[expected] += 1
        a0, b0 = 5 * a0 + 6 * b0, 4 * a0 + 5 * b0
    assert min(signs.values()) > 2000, signs  # both signs, many times


def test_signs_against_the_binary_expansions_of_square_roots():
    """``q sqrt(r) - floor(q sqrt(r) 2^k) / 2^k`` is positive and ``q sqrt(r) -
    ceil(q sqrt(r) 2^k) / 2^k`` negative, for every precision ``k`` up to 300: the
    truncated expansion makes the lower (upper) end of an interval bound exactly 0 at
    some precision, where only a strict comparison decides correctly. ``floor`` comes
    from ``isqrt`` of the integer ``q^2 r 4^k`` and is checked by squaring."""
    for r in (2, 7, 1001):
        for q in (Fraction(1), Fraction(1, 3), Fraction(5, 4)):
            for k in range(301):
                # floor(q sqrt(r) 2^k) = floor(sqrt(q^2 r 4^k)) = isqrt of its floor
                m = isqrt(int(q * q * r * 4 ** k))
                assert m * m <= q * q * r * 4 ** k < (m + 1) ** 2
                low, high = Fraction(m, 2 ** k), Fraction(m + 1, 2 ** k)
                assert RootSum([(r, q), (1, -low)]).sign() == 1, (r, q, k)
                assert RootSum([(r, q), (1, -high)]).sign() == -1, (r, q, k)
                assert RootSum([(r, -q), (1, low)]).sign() == -1, (r, q, k)
