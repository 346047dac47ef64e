"""Tests for verify.numbers.sqrt_sum: exact arithmetic in Q(sqrt 2, sqrt 3, ...)."""

import copy
import pickle
from fractions import Fraction

import mpmath
import pytest
import sympy
from flint import fmpq, fmpq_mat
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from verify.numbers.sqrt_sum import (
    SqrtSum,
    _det_bird,
    _det_minor_expansion,
    as_sqrt_sum,
    cosine_matrix,
    det,
    dot,
    parse_sqrt_sum,
)

S = SqrtSum.sqrt
R = SqrtSum.rational

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------

rationals = st.builds(fmpq, st.integers(-30, 30), st.integers(1, 12))
nonzero_rationals = rationals.filter(bool)
radicands = st.integers(1, 40)  # not all squarefree: normalisation is exercised
small_radicands = st.sampled_from([1, 2, 3, 5, 6, 7, 10, 12, 15, 18])


def sums(radicand_strategy=radicands, max_terms=4):
    pairs = st.lists(st.tuples(radicand_strategy, rationals), max_size=max_terms)
    return pairs.map(SqrtSum.from_terms)


elements = sums()
small_elements = sums(small_radicands, max_terms=3)


def mp_value(x: SqrtSum, digits: int = 200):
    """Independent high-precision evaluation with mpmath."""
    with mpmath.workdps(digits):
        return mpmath.fsum(
            mpmath.mpf(int(q.p)) / int(q.q) * mpmath.sqrt(r) for r, q in x.terms
        )


# ---------------------------------------------------------------------------
# Canonical form
# ---------------------------------------------------------------------------


def test_canonical_radicands_are_squarefree():
    assert S(8) == 2 * S(2)
    assert S(8).terms == ((2, fmpq(2)),)
    assert S(72).terms == ((2, fmpq(6)),)
    assert S(Fraction(1, 2)).terms == ((2, fmpq(1, 2)),)
    assert S(Fraction(9, 4)) == Fraction(3, 2)
    assert S(Fraction(8, 27)) == 2 * S(6) / 9
    assert S(0) == 0 and S(0).is_zero()


def test_exact_zero_detection():
    assert (S(8) - 2 * S(2)).is_zero()
    assert S(8) - 2 * S(2) == 0
    assert S(2) * S(3) == S(6)
    assert S(Fraction(1, 2)) == S(2) / 2
    assert S(6) * S(10) == 2 * S(15)
    assert (S(2) + S(3)) ** 2 == 5 + 2 * S(6)
    assert S(2) + S(3) != S(5)


@given(st.integers(1, 300), st.integers(1, 300))
@SETTINGS
def test_square_of_binomial_cancels_exactly(a, b):
    x = (S(a) + S(b)) ** 2 - (a + b) - 2 * S(a * b)
    assert x.is_zero() and x.sign() == 0


@given(rationals)
@SETTINGS
def test_sqrt_squares_back(q):
    assume(q >= 0)
    assert S(q) ** 2 == q
    assert S(q).sign() >= 0


def test_sqrt_of_negative_is_rejected():
    with pytest.raises(ValueError):
        S(-1)
    with pytest.raises(ValueError):
        S(Fraction(-1, 4))


def test_rational_conversion():
    assert R(Fraction(3, 4)).to_rational() == fmpq(3, 4)
    assert R(0).to_rational() == 0
    assert (S(2) * S(2)).is_rational()
    with pytest.raises(ValueError):
        S(2).to_rational()
    assert not S(3).is_rational()


def test_floats_are_refused():
    with pytest.raises(TypeError):
        S(2) + 0.5
    with pytest.raises(TypeError):
        0.5 * S(2)
    with pytest.raises(TypeError):
        SqrtSum(0.5)
    with pytest.raises(TypeError):
        as_sqrt_sum(1.0)
    assert (S(2) == 1.4142135623730951) is False


# ---------------------------------------------------------------------------
# Ring laws
# ---------------------------------------------------------------------------


@given(elements, elements, elements)
@SETTINGS
def test_addition_is_associative_and_commutative(x, y, z):
    assert (x + y) + z == x + (y + z)
    assert x + y == y + x


@given(elements, elements, elements)
@SETTINGS
def test_multiplication_is_associative_and_commutative(x, y, z):
    assert (x * y) * z == x * (y * z)
    assert x * y == y * x


@given(elements, elements, elements)
@SETTINGS
def test_distributivity(x, y, z):
    assert x * (y + z) == x * y + x * z
    assert (x - y) * z == x * z - y * z


@given(elements)
@SETTINGS
def test_additive_inverse_and_identities(x):
    assert x + (-x) == 0
    assert (x - x).is_zero()
    assert x + 0 == x
    assert x * 1 == x
    assert (x * 0).is_zero()
    assert -(-x) == x


@given(small_elements)
@SETTINGS
def test_multiplicative_inverse(x):
    assume(not x.is_zero())
    assert x * x.inverse() == 1
    assert x.inverse().inverse() == x
    assert 1 / x == x.inverse()


@given(small_elements, small_elements)
@SETTINGS
def test_division_undoes_multiplication(x, y):
    assume(not y.is_zero())
    assert (x / y) * y == x
    assert (x * y) / y == x


def test_inverse_of_many_primes():
    x = S(2) + S(3) + S(5) + S(7) + S(11) - 1
    assert x * x.inverse() == 1
    assert (S(6) + S(10) + S(15)).inverse() * (S(6) + S(10) + S(15)) == 1


def test_division_by_zero():
    with pytest.raises(ZeroDivisionError):
        SqrtSum(0).inverse()
    with pytest.raises(ZeroDivisionError):
        S(2) / 0
    with pytest.raises(ZeroDivisionError):
        S(2) / (S(8) - 2 * S(2))
    with pytest.raises(ZeroDivisionError):
        SqrtSum(0) ** -1


@given(small_elements, st.integers(0, 5), st.integers(0, 5))
@SETTINGS
def test_powers(x, m, n):
    assert x ** (m + n) == x**m * x**n
    assert x**0 == 1
    if not x.is_zero():
        assert x ** (-m) * x**m == 1


@given(elements, elements)
@SETTINGS
def test_mixed_rational_operands(x, y):
    q = Fraction(3, 7)
    assert x + q == x + R(q) == q + x
    assert x * q == x * fmpq(3, 7) == q * x
    assert x - 2 == -(2 - x)
    assert (x / q) * q == x
    assert x * y - y * x == 0
    assert fmpq(3, 7) + x == x + q and fmpq(3, 7) - x == q - x
    if not x.is_zero():
        assert fmpq(3, 7) / x == q / x == q * x.inverse()
    assert (fmpq(3, 7) < x) == (x > q)


# ---------------------------------------------------------------------------
# Equality and hashing
# ---------------------------------------------------------------------------


@given(elements, elements)
@SETTINGS
def test_equality_is_canonical(x, y):
    assert (x == y) == ((x - y).sign() == 0)
    if x == y:
        assert hash(x) == hash(y)


def test_rationals_compare_and_hash_like_python_numbers():
    assert R(3) == 3 and hash(R(3)) == hash(3)
    assert R(Fraction(1, 2)) == Fraction(1, 2) and hash(R(Fraction(1, 2))) == hash(Fraction(1, 2))
    assert R(fmpq(-2, 3)) == fmpq(-2, 3) and hash(R(fmpq(-2, 3))) == hash(fmpq(-2, 3))
    assert len({S(8), 2 * S(2), S(2) + S(2)}) == 1
    assert S(2) != 2


def test_immutable_and_picklable():
    x = parse_sqrt_sum("1/2 - 5*sqrt(2)/3 + sqrt(39)/20")
    with pytest.raises(AttributeError):
        x._terms = {}
    assert pickle.loads(pickle.dumps(x)) == x
    assert copy.deepcopy(x) == x


# ---------------------------------------------------------------------------
# Sign and order
# ---------------------------------------------------------------------------


@given(elements)
@SETTINGS
def test_sign_agrees_with_200_digit_evaluation(x):
    value = mp_value(x)
    if x.is_zero():
        assert value == 0
    else:
        # Small coefficients and radicands keep |x| far above 10^-150.
        assert abs(value) > mpmath.mpf(10) ** -150
        assert x.sign() == (1 if value > 0 else -1)


@given(elements, elements)
@SETTINGS
def test_sign_is_multiplicative(x, y):
    assert (x * y).sign() == x.sign() * y.sign()
    assert (-x).sign() == -x.sign()


@given(elements, elements)
@SETTINGS
def test_comparisons_follow_the_sign_of_the_difference(x, y):
    d = (x - y).sign()
    assert (x < y) == (d < 0)
    assert (x <= y) == (d <= 0)
    assert (x > y) == (d > 0)
    assert (x >= y) == (d >= 0)
    assert abs(x) >= 0


def test_tiny_nonzero_values():
    # 99*sqrt(2) = 140.00714..., so the difference is positive.
    assert (99 * S(2) - 140).sign() == 1
    assert (140 - 99 * S(2)).sign() == -1
    assert 99 * S(2) > 140
    # sqrt 2 + sqrt 3 = 3.1462... < sqrt 10 = 3.1622..., as (sqrt 2 + sqrt 3)^2 = 5 + 2 sqrt 6 < 10
    assert S(2) + S(3) < S(10)
    assert ((S(2) + S(3)) ** 2 - 10).sign() == -1
    assert not (S(2) + S(3) >= S(10))


def test_pell_near_cancellation():
    # (1 - sqrt 2)^k = x_k - y_k sqrt 2 has sign (-1)^k and size 0.414^k,
    # far below 2^-256 for k = 300: the precision loop has to run several rounds.
    for k in (1, 2, 10, 51, 100, 300):
        value = (1 - S(2)) ** k
        assert len(value.terms) == 2
        assert value.sign() == (-1) ** k


def test_continued_fraction_convergents_alternate():
    # Convergents p/q of an irrational alpha alternate around it: alpha - p_k/q_k
    # has sign (-1)^k, with |alpha - p_k/q_k| < 1/q_k^2 (near cancellation).
    alpha = S(2) + S(3) + S(5) - S(7)
    with mpmath.workdps(600):
        a = mp_value(alpha, 600)
        partial_quotients = []
        for _ in range(120):
            integer_part = int(mpmath.floor(a))
            partial_quotients.append(integer_part)
            a = 1 / (a - integer_part)
    p_prev, p = 1, partial_quotients[0]
    q_prev, q = 0, 1
    for k in range(120):
        if k > 0:
            p_prev, p = p, partial_quotients[k] * p + p_prev
            q_prev, q = q, partial_quotients[k] * q + q_prev
        difference = alpha - Fraction(p, q)
        assert difference.sign() == (1 if k % 2 == 0 else -1)
    assert q > 10**40


def test_near_cancellation_of_nested_radical_style():
    # sqrt(5 + 2 sqrt 6) = sqrt 2 + sqrt 3: the square matches exactly, and a
    # perturbation by 10^-60 is detected with the right sign.
    x = S(2) + S(3)
    assert x * x - (5 + 2 * S(6)) == 0
    eps = Fraction(1, 10**60)
    assert (x * x - (5 + 2 * S(6)) + eps).sign() == 1
    assert ((x + eps) ** 2 - (5 + 2 * S(6))).sign() == 1
    assert ((x - eps) ** 2 - (5 + 2 * S(6))).sign() == -1


def test_float_is_for_display():
    assert float(S(2)) == pytest.approx(1.4142135623730951)
    assert float(99 * S(2) - 140) == pytest.approx(0.007142674936409, rel=1e-12)
    assert float(SqrtSum(0)) == 0.0
    tiny = (1 - S(2)) ** 100
    assert float(tiny) == pytest.approx(float(mp_value(tiny)), rel=1e-12)


# ---------------------------------------------------------------------------
# Printing and parsing
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("5*sqrt(2)/2", fmpq(5, 2) * S(2)),
        ("-5*sqrt(2)/2", fmpq(-5, 2) * S(2)),
        ("sqrt(39)/20", S(39) / 20),
        ("-sqrt(39)/20", -S(39) / 20),
        ("0.95", R(Fraction(19, 20))),
        ("-1", R(-1)),
        ("1/2 + sqrt(3)", Fraction(1, 2) + S(3)),
        ("2*sqrt(8)", 4 * S(2)),
        ("3/4*sqrt(5)", fmpq(3, 4) * S(5)),
        ("sqrt(1/2)", S(2) / 2),
        ("sqrt(0.5)", S(2) / 2),
        ("  1 -  sqrt( 2 ) ", 1 - S(2)),
        ("(1 + sqrt(2)) * (1 - sqrt(2))", R(-1)),
        ("1/sqrt(2)", S(2) / 2),
        ("1e-3", R(Fraction(1, 1000))),
        ("2.5E2", R(250)),
        (".5", R(Fraction(1, 2))),
        ("+3", R(3)),
        ("0", R(0)),
        ("sqrt(0)", R(0)),
        ("sqrt(2*2)", R(2)),
        ("1 + -2", R(-1)),
        ("1+-1*sqrt(2)/2", 1 - S(2) / 2),
        ("1 - -sqrt(2)", 1 + S(2)),
        ("1 - +sqrt(2)", 1 - S(2)),
        ("2*-3", R(-6)),
        ("2/-sqrt(2)", -S(2)),
    ],
)
def test_parse_examples(text, expected):
    assert parse_sqrt_sum(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "sqrt(-1)",
        "sqrt(-1/4)",
        "nan",
        "inf",
        "-inf",
        "1/0",
        "sqrt(2)/(sqrt(8) - 2*sqrt(2))",
        "sqrt(2",
        "sqrt 2",
        "sqrt()",
        "2**3",
        "2^3",
        "2 3",
        "2sqrt(2)",
        "sqrt(sqrt(2))",
        "1e",
        "1e100001",  # beyond the exponent bound of every number (MAX_EXPONENT)
        "1..2",
        "--1",
        "1 + --2",
        "2 * --3",
        "1 +",
        "x",
        "SQRT(2)",
        "exp(1)",
        "__import__('os')",
        "1,5",
        "\u0663",  # an Arabic-Indic digit: only 0-9 are digits here
        "(" * 200 + "1" + ")" * 200,
    ],
)
def test_parse_rejects(text):
    with pytest.raises(ValueError):
        parse_sqrt_sum(text)


# One signed term q*sqrt(r), spelled in the ways the grammar allows.
signed_terms = st.tuples(st.integers(-9, 9), st.integers(1, 5), st.integers(1, 12))


def _spell_term(numerator, denominator, radicand, style):
    """|numerator|/denominator*sqrt(radicand) (sign left out), in one of several spellings."""
    a = abs(numerator)
    return [
        f"{a}*sqrt({radicand})/{denominator}",
        f"{a}/{denominator}*sqrt({radicand})",
        f"sqrt({radicand})*{a}/{denominator}",
        f"({a}*sqrt({radicand}))/{denominator}",
    ][style % 4]


def _joint(negative, style):
    """The text between two terms for a term of the given sign."""
    if negative:
        return [" - ", "+-", " + -", "-", "+ -1*"][style % 5]
    return [" + ", "+", " - -", "- -", "+ +"][style % 5]


@given(st.lists(st.tuples(signed_terms, st.integers(0, 19)), min_size=1, max_size=5))
@SETTINGS
def test_parse_signed_spellings_agree(terms):
    """``a + -b``, ``a+-1*b``, ``a - b``, ``a - -c`` ... all read as the same number,
    which sympy (an independent parser) also reads from the same text."""
    expected = SqrtSum(0)
    text = ""
    for index, ((numerator, denominator, radicand), style) in enumerate(terms):
        expected += fmpq(numerator, denominator) * S(radicand)
        body = _spell_term(numerator, denominator, radicand, style)
        if index == 0:
            text = ("-" if numerator < 0 else "") + body
        else:
            text += _joint(numerator < 0, style // 4) + body
    value = parse_sqrt_sum(text)
    assert value == expected
    assert sympy.simplify(sympy.sympify(text) - value.to_sympy()) == 0


def test_parse_rejects_non_strings():
    with pytest.raises(TypeError):
        parse_sqrt_sum(3)


def test_canonical_printing():
    assert str(fmpq(5, 2) * S(2)) == "5*sqrt(2)/2"
    assert str(-S(39) / 20) == "-sqrt(39)/20"
    assert str(Fraction(1, 2) + S(3)) == "1/2 + sqrt(3)"
    assert str(S(3) - Fraction(1, 2)) == "-1/2 + sqrt(3)"
    assert str(fmpq(3, 4) * S(5) - S(2)) == "-sqrt(2) + 3*sqrt(5)/4"
    assert str(SqrtSum(0)) == "0"
    assert str(R(-7)) == "-7"
    assert repr(S(8)) == "2*sqrt(2)"


@given(elements)
@SETTINGS
def test_parser_round_trip(x):
    assert parse_sqrt_sum(str(x)) == x
    assert parse_sqrt_sum(repr(x)) == x


# ---------------------------------------------------------------------------
# Determinants and dot products
# ---------------------------------------------------------------------------


def sympy_det(matrix):
    return sympy.Matrix([[as_sqrt_sum(e).to_sympy() for e in row] for row in matrix]).det(
        method="berkowitz"
    )


def square_matrices(entries, min_size=1, max_size=4):
    return st.integers(min_size, max_size).flatmap(
        lambda n: st.lists(st.lists(entries, min_size=n, max_size=n), min_size=n, max_size=n)
    )


@given(square_matrices(sums(small_radicands, max_terms=2)))
@SLOW_SETTINGS
def test_det_against_sympy(matrix):
    ours = det(matrix)
    assert sympy.expand(ours.to_sympy() - sympy_det(matrix)) == 0


@given(square_matrices(sums(small_radicands, max_terms=2), max_size=6))
@SLOW_SETTINGS
def test_bird_agrees_with_minor_expansion(matrix):
    terms = [[e._terms for e in row] for row in matrix]
    assert SqrtSum._from_terms(_det_bird(terms)) == SqrtSum._from_terms(
        _det_minor_expansion(terms)
    )


@given(square_matrices(rationals, max_size=7))
@SETTINGS
def test_det_of_rational_matrix_matches_flint(matrix):
    assert det(matrix) == fmpq_mat(matrix).det()


def test_det_large_rational_uses_bird_and_matches_flint():
    n = 11
    matrix = [[fmpq((3 * i * i + 7 * j + i * j) % 13 - 6, 1 + (i + j) % 4) for j in range(n)] for i in range(n)]
    assert det(matrix) == fmpq_mat(matrix).det()


def test_det_large_irrational_bird_matches_minor_expansion():
    n = 9
    radicals = [1, 2, 3, 5, 6, 7]
    matrix = [
        [fmpq((i * 5 + j * 3) % 7 - 3, 1 + j % 3) * S(radicals[(i + 2 * j) % 6]) for j in range(n)]
        for i in range(n)
    ]
    terms = [[e._terms for e in row] for row in matrix]
    assert det(matrix) == SqrtSum._from_terms(_det_minor_expansion(terms))


@given(square_matrices(small_elements, min_size=2, max_size=4), st.data())
@SLOW_SETTINGS
def test_det_vanishes_on_repeated_rows_and_flips_on_swaps(matrix, data):
    n = len(matrix)
    i, j = data.draw(st.sampled_from([(a, b) for a in range(n) for b in range(n) if a != b]))
    repeated = [list(row) for row in matrix]
    repeated[j] = repeated[i]
    assert det(repeated).is_zero()
    swapped = [list(row) for row in matrix]
    swapped[i], swapped[j] = swapped[j], swapped[i]
    assert det(swapped) == -det(matrix)


def test_det_edge_cases():
    assert det([]) == 1
    assert det([[S(2)]]) == S(2)
    assert det([[1, S(2)], [S(2), 1]]) == -1
    with pytest.raises(ValueError):
        det([[1, 2], [3]])
    with pytest.raises(ValueError):
        det([[1, 2]])


def test_paper_style_determinant():
    matrix = [
        [1, parse_sqrt_sum("5*sqrt(2)/8"), parse_sqrt_sum("sqrt(39)/20")],
        [parse_sqrt_sum("5*sqrt(2)/8"), 1, parse_sqrt_sum("-1/2")],
        [parse_sqrt_sum("sqrt(39)/20"), parse_sqrt_sum("-1/2"), 1],
    ]
    assert sympy.expand(det(matrix).to_sympy() - sympy_det(matrix)) == 0


@given(st.integers(0, 6).flatmap(lambda n: st.tuples(st.lists(elements, min_size=n, max_size=n), st.lists(elements, min_size=n, max_size=n))))
@SETTINGS
def test_dot(pair):
    u, v = pair
    expected = SqrtSum(0)
    for a, b in zip(u, v):
        expected = expected + a * b
    assert dot(u, v) == expected


def test_dot_length_mismatch():
    with pytest.raises(ValueError):
        dot([1, 2], [1])


# ---------------------------------------------------------------------------
# Cosine matrices
# ---------------------------------------------------------------------------


def rational_rows(max_rows=5, max_dim=4):
    return st.tuples(st.integers(1, max_rows), st.integers(1, max_dim)).flatmap(
        lambda shape: st.lists(
            st.lists(rationals, min_size=shape[1], max_size=shape[1]).filter(any),
            min_size=shape[0],
            max_size=shape[0],
        )
    )


def rational_dot(u, v):
    return sum((fmpq(a) * fmpq(b) for a, b in zip(u, v)), fmpq(0))


@given(rational_rows())
@SETTINGS
def test_cosine_matrix_properties(rows):
    c = cosine_matrix(rows)
    n = len(rows)
    for i in range(n):
        assert c[i][i] == 1
        for j in range(n):
            assert c[i][j] == c[j][i]
            assert len(c[i][j].terms) <= 1  # a single term q*sqrt(r)
            inner = rational_dot(rows[i], rows[j])
            expected_square = inner**2 / (rational_dot(rows[i], rows[i]) * rational_dot(rows[j], rows[j]))
            assert c[i][j] ** 2 == expected_square
            assert c[i][j].sign() == (inner > 0) - (inner < 0)
            assert -1 <= c[i][j] <= 1


@given(rational_rows(), st.data())
@SETTINGS
def test_cosine_matrix_is_scale_invariant(rows, data):
    factors = data.draw(st.lists(rationals.filter(lambda q: q > 0), min_size=len(rows), max_size=len(rows)))
    scaled = [[f * x for x in row] for f, row in zip(factors, rows)]
    assert cosine_matrix(scaled) == cosine_matrix(rows)


def test_cosine_matrix_examples():
    c = cosine_matrix([[1, 0], [1, 1], [Fraction(3, 10), Fraction(4, 10)], [0, -2]])
    assert c[0][1] == S(2) / 2
    assert c[0][2] == Fraction(3, 5)
    assert c[1][2] == 7 * S(2) / 10
    assert c[0][3] == 0
    assert c[1][3] == -S(2) / 2
    assert cosine_matrix([]) == []


def test_cosine_matrix_accepts_exact_types_only():
    c = cosine_matrix([[fmpq(1, 3), Fraction(2, 3), 2], [R(1), 0, 0]])
    assert c[0][1] == Fraction(1, 3) / S(Fraction(1, 9) + Fraction(4, 9) + 4)
    with pytest.raises(TypeError, match="row 1"):
        cosine_matrix([[1, 2], [0.5, 1]])
    with pytest.raises(ValueError, match="row 0"):
        cosine_matrix([[S(2), 1], [1, 1]])


def test_cosine_matrix_names_the_zero_row():
    with pytest.raises(ValueError, match="row 2"):
        cosine_matrix([[1, 2], [3, 4], [0, Fraction(0)]])
    with pytest.raises(ValueError):
        cosine_matrix([[1, 2], [3]])


def test_cosine_determinant_matches_sympy():
    rows = [[1, 2, 0, 1, 3], [2, -1, 1, 0, 1], [0, 1, 3, -2, 1], [1, 1, 1, 1, 1], [3, 0, -1, 2, 2]]
    c = cosine_matrix(rows)
    d = det(c)
    reference = sympy.Matrix(rows)
    gram = reference * reference.T
    cos = sympy.Matrix(5, 5, lambda i, j: gram[i, j] / sympy.sqrt(gram[i, i] * gram[j, j]))
    assert sympy.expand(d.to_sympy() - cos.det(method="berkowitz")) == 0


@given(rational_rows(max_rows=6, max_dim=6), st.data())
@SLOW_SETTINGS
def test_cosine_minors_are_gram_minors_over_norms(rows, data):
    n = len(rows)
    k = data.draw(st.integers(1, n))
    rows_i = data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k, unique=True))
    cols_j = data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k, unique=True))
    c = cosine_matrix(rows)
    minor = det([[c[i][j] for j in cols_j] for i in rows_i])
    gram_minor = fmpq_mat([[rational_dot(rows[i], rows[j]) for j in cols_j] for i in rows_i]).det()
    norms = fmpq(1)
    for index in rows_i + cols_j:
        norms *= rational_dot(rows[index], rows[index])
    assert len(minor.terms) <= 1
    assert minor == gram_minor / S(norms)


# ---------------------------------------------------------------------------
# Fixed-point approximation (the integer filter of the chirotope rests on it)
# ---------------------------------------------------------------------------


@SETTINGS
@given(elements, st.integers(-40, 80))
def test_fixed_point_is_within_its_error_bound(x, bits):
    m, e = x.fixed_point(bits)
    scaled = x * (fmpq(2) ** bits)
    # exact sign decisions, independent of the integer square roots used inside
    assert (scaled - (m - e)).sign() >= 0
    assert ((m + e) - scaled).sign() >= 0
    assert e == len(x.terms)
    with mpmath.workdps(200):
        assert abs(mp_value(x) * mpmath.mpf(2) ** bits - m) <= e


def test_fixed_point_of_rationals_and_zero():
    assert SqrtSum(0).fixed_point(30) == (0, 0)
    assert R(fmpq(3, 4)).fixed_point(2) == (3, 1)
    assert R(-1).fixed_point(10) == (-1024, 1)
    assert S(2).fixed_point(0) == (1, 1)
