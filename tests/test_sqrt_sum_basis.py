"""The normal form of verify.numbers.sqrt_sum without prime factorisations.

Radicands are products of distinct elements of a coprime basis of non-squares, refined
by gcds as numbers meet.  These tests compare it with the factoring (Besicovitch) form,
computed here from exponent vectors over known primes, and show that huge radicands
(10^60 + 1, products of two 100-digit primes) cost milliseconds, not a factorisation.
"""

import json
import subprocess
import sys
import time
from fractions import Fraction
from math import gcd, isqrt, prod

import pytest
import sympy
from flint import fmpq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sympy.solvers.diophantine.diophantine import cornacchia

from verify.claims.cosine_patterns import check_matrix
from verify.numbers.sqrt_sum import (
    SqrtSum,
    _coprime_basis,
    _non_square_basis,
    _square_decomposition,
    cosine_matrix,
    det,
)

S = SqrtSum.sqrt
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Small primes (found by trial division), primes near 2^15 and 2^16, and 40-digit primes
# (far beyond trial division): every radicand below is built from these.
PRIMES = [2, 3, 5, 7, 32749, 65521] + [int(sympy.nextprime(10**39 * k)) for k in (3, 5, 7)]


def _reference_form(x: SqrtSum) -> dict:
    """The factoring normal form {squarefree radicand: coefficient} of x, by trial
    division over PRIMES (every radicand here is a product of them)."""
    form = {}
    for r, q in x.terms:
        square_root, squarefree = 1, 1
        for p in PRIMES:
            e = 0
            while r % p == 0:
                r //= p
                e += 1
            square_root *= p ** (e // 2)
            squarefree *= p ** (e % 2)
        assert r == 1, "a radicand outside the known primes"
        form[squarefree] = form.get(squarefree, 0) + Fraction(int(q.p), int(q.q)) * square_root
    return {r: q for r, q in form.items() if q}


def _reference_sqrt(exponents) -> dict:
    """The factoring form of sqrt(prod PRIMES^exponents)."""
    square_root = prod(p ** (e // 2) for p, e in zip(PRIMES, exponents))
    squarefree = prod(p ** (e % 2) for p, e in zip(PRIMES, exponents))
    return {squarefree: Fraction(square_root)}


def _reference_add(a, b):
    total = dict(a)
    for r, q in b.items():
        total[r] = total.get(r, 0) + q
    return {r: q for r, q in total.items() if q}


def _reference_mul(a, b):
    total = {}
    for r, q in a.items():
        for s, t in b.items():
            g = gcd(r, s)
            key = (r // g) * (s // g)
            total[key] = total.get(key, 0) + q * t * g
    return {r: q for r, q in total.items() if q}


exponent_vectors = st.lists(st.integers(0, 3), min_size=len(PRIMES), max_size=len(PRIMES))
coefficients = st.fractions(min_value=-5, max_value=5, max_denominator=6).filter(bool)
roots = st.tuples(exponent_vectors, coefficients)


def _number(exponents, coefficient):
    """coefficient * sqrt(prod PRIMES^exponents), and its factoring form."""
    n = prod(p**e for p, e in zip(PRIMES, exponents))
    reference = {r: q * coefficient for r, q in _reference_sqrt(exponents).items()}
    return S(n) * fmpq(coefficient.numerator, coefficient.denominator), reference


@SETTINGS
@given(st.lists(roots, min_size=1, max_size=4), st.lists(roots, min_size=1, max_size=3))
def test_arithmetic_agrees_with_the_factoring_form(left, right):
    """(sum of roots) * (sum of roots) + (sum of roots): the normal form, read in the
    factoring form, equals the factoring form computed independently; zero tests, ==
    and hash agree with it."""
    x, ref_x = SqrtSum(0), {}
    for exponents, q in left:
        value, ref = _number(exponents, q)
        x, ref_x = x + value, _reference_add(ref_x, ref)
    y, ref_y = SqrtSum(0), {}
    for exponents, q in right:
        value, ref = _number(exponents, q)
        y, ref_y = y + value, _reference_add(ref_y, ref)
    assert _reference_form(x) == ref_x
    assert _reference_form(x * y) == _reference_mul(ref_x, ref_y)
    assert _reference_form(x * y + x) == _reference_add(_reference_mul(ref_x, ref_y), ref_x)
    assert _reference_form(x - y) == _reference_add(ref_x, {r: -q for r, q in ref_y.items()})
    assert (x == y) == (ref_x == ref_y)
    assert (x - y).is_zero() == (ref_x == ref_y)
    # The same number built another way has another basis but is equal, hash included.
    z = SqrtSum(0)
    for r, q in sorted(ref_x.items()):
        z = z + S(r) * fmpq(q.numerator, q.denominator)
    assert z == x and hash(z) == hash(x)
    if x:
        assert _reference_form(x * x.inverse()) == {1: 1}
        assert _reference_form(y / x * x) == ref_y


def test_square_parts_of_large_primes_are_found_when_numbers_meet():
    p, q, r = PRIMES[-3:]
    x = S(p * p * q)  # p is beyond trial division: the radicand keeps its square
    y = p * S(q)
    assert x == y and hash(x) == hash(y) and (x - y).is_zero()
    assert S(p * q) * S(p * r) == p * S(q * r)
    assert S(p**3 * q) - p * S(p * q) == 0
    assert (S(p) + S(q)) ** 2 == p + q + 2 * S(p * q)
    assert (S(p * p * q) + S(q)).inverse() * (p + 1) * S(q) == 1
    assert det([[S(p * p * q), S(q)], [S(q), S(q)]]) == (p - 1) * q
    assert S(p**4) == p * p
    # Alone, sqrt(p^4 q^2 r^3) may keep its radicand; met with sqrt(r) it is p^2 q r sqrt(r).
    assert S(p**4 * q**2 * r**3) == p * p * q * r * S(r)
    assert (S(p**4 * q**2 * r**3) + S(r)).terms == ((r, fmpq(p * p * q * r + 1)),)


def test_repeated_prime_factors_are_merged():
    """A square of a prime above trial division, with small primes beside it.

    flint's ``fmpz.factor`` may list such a prime twice with exponent 1 (seen for
    2 * 11311 * 106823 * 134609^2); reading those entries as odd exponents made the
    radicand non-squarefree and two equal cosine minors compare unequal.
    """
    n = 2 * 11311 * 106823 * 134609**2
    s, r = _square_decomposition(n)
    assert (s, r) == (134609, 2 * 11311 * 106823)
    assert S(n) == 134609 * S(r) and S(n) - 134609 * S(r) == 0
    rows = [[0, 0, 0, 0, 1], [0, 1, Fraction(2, 5), Fraction(1, 3), 7],
            [0, 0, Fraction(1, 3), Fraction(3, 11), 14], [0, Fraction(1, 10), Fraction(1, 3), 12, Fraction(7, 3)]]
    c = cosine_matrix(rows)
    minor = det([[c[i][j] for j in (0, 3, 1)] for i in (0, 2, 3)])
    gram = sympy.Matrix([[sum(Fraction(a) * b for a, b in zip(rows[i], rows[j])) for j in (0, 3, 1)]
                         for i in (0, 2, 3)]).det()
    norms = prod(sum(Fraction(a) ** 2 for a in rows[k]) for k in (0, 2, 3, 0, 3, 1))
    expected = Fraction(int(sympy.numer(gram)), int(sympy.denom(gram))) / S(Fraction(norms))
    assert minor == expected


@SETTINGS
@given(st.integers(1, 2**45 - 1))
def test_square_decomposition_is_squarefree_below_2_to_45(n):
    """Below 2^45 the normal form is the factoring form: the radicand is squarefree."""
    s, r = _square_decomposition(n)
    assert s * s * r == n
    assert all(e == 1 for e in sympy.factorint(r).values())


@SETTINGS
@given(st.lists(st.integers(1, 10**6), min_size=1, max_size=6), st.integers(1, 4))
def test_coprime_basis_properties(numbers, power):
    """Pairwise coprime, every number a product of powers of the elements, and no
    element to spare (each divides some number); without squares in the non-square form."""
    numbers = [n**power for n in numbers]
    for basis in (_coprime_basis(numbers), _non_square_basis(numbers)):
        assert all(b > 1 for b in basis)
        assert all(gcd(a, b) == 1 for i, a in enumerate(basis) for b in basis[i + 1:])
        for n in numbers:
            for b in basis:
                while n % b == 0:
                    n //= b
            assert n == 1
        assert all(any(n % b == 0 for n in numbers) for b in basis)
    assert all(isqrt(b) ** 2 != b for b in _non_square_basis(numbers))


# ---------------------------------------------------------------------------
# Huge radicands: milliseconds, not a factorisation
# ---------------------------------------------------------------------------


def _two_squares_prime(start: int) -> tuple[int, int, int]:
    """A prime P = a^2 + b^2 (P = 1 mod 4) at least `start`."""
    p = sympy.nextprime(start)
    while p % 4 != 1:
        p = sympy.nextprime(p)
    ((a, b),) = cornacchia(1, 1, p)
    return int(p), int(a), int(b)


def test_semiprime_squared_norms_take_milliseconds():
    """Rows with |w|^2 = P, Q, PQ (a 200-digit semiprime, by Brahmagupta-Fibonacci) and
    10^60 + 1: the cosine matrix is exact and found without factoring PQ.  Each C_ij is
    checked against C_ij^2 = (w_i.w_j)^2 / (|w_i|^2 |w_j|^2) and the sign of w_i.w_j;
    the claim checks of lemma 5.3 and theorem 5.6 run on the same rows."""
    p, a, b = _two_squares_prime(3 * 10**99)
    q, c, d = _two_squares_prime(7 * 10**99)
    rows = [[a, b], [c, d], [a * c - b * d, a * d + b * c], [10**60 + 1, 1], [1, 10**60]]
    assert sum(x * x for x in rows[2]) == p * q
    started = time.perf_counter()
    C = cosine_matrix(rows)
    for i, u in enumerate(rows):
        for j, v in enumerate(rows):
            inner = sum(x * y for x, y in zip(u, v))
            norms = sum(x * x for x in u) * sum(x * x for x in v)
            assert C[i][j] * C[i][j] == fmpq(inner * inner, norms)
            assert C[i][j].sign() == (inner > 0) - (inner < 0)
    for claim in ("lemma 5.3", "theorem 5.6"):
        assert check_matrix(claim, rows[:3]).status == "agree"
        assert check_matrix(claim, rows[2:]).status == "agree"
    elapsed = time.perf_counter() - started
    assert elapsed < 10, f"{elapsed:.1f} s: huge radicands must not be factored"


@pytest.mark.parametrize(
    "command, rows",
    [
        ("lemma 5.3", [[10**60 + 1, 1]]),
        ("lemma 5.3", [[10**45 + 1, 1], [0, 1]]),
        ("theorem 5.6", [[10**60 + 1, 1], [0, 0]]),
    ],
)
def test_commands_on_huge_norms_finish_fast(tmp_path, command, rows):
    """The commands of the bug report (they factored 10^60 + 1 for minutes): exit 0
    with the claim holding, well within a timeout of a minute (a second when quiet)."""
    matrix = tmp_path / "W.json"
    matrix.write_text(json.dumps(rows))
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "verify", *command.split(), "--matrix",
                             str(matrix)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "HOLDS" in result.stdout
    assert time.perf_counter() - started < 30


def test_numbers_beyond_4300_digits_print_and_read_back():
    """str(int) refuses more than 4300 digits; the text form must not."""
    from verify.numbers.sqrt_sum import parse_sqrt_sum

    x = fmpq(7 * 10**9000 + 1, 3 * 10**8000 + 1) * S(2) - fmpq(10**5000)
    assert parse_sqrt_sum(str(x)) == x
