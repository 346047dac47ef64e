r"""Exact arithmetic with finite sums of rational multiples of square roots.

An element of this module is a real number

    x = sum_k  q_k * sqrt(r_k),        q_k in Q \ {0},

with distinct positive integer radicands r_k (r = 1 carries the rational part).  Every
such sum lies in the field K = Q(sqrt(2), sqrt(3), sqrt(5), ...).

**Normal form without factoring.**  Deciding squarefreeness is as hard as factoring, so
radicands are not made squarefree.  Instead the radicands of a number are *basis
products*: there is a set B of pairwise coprime integers b > 1, none a perfect square,
such that every radicand is a product of distinct elements of B (r = 1 the empty
product).  Such a B is a coprime (gcd-free) basis; it is built and refined with gcds
only, never with a prime factorisation (see :func:`_coprime_basis`).

**Theorem (Besicovitch 1940).**  The square roots of distinct squarefree positive
integers are linearly independent over Q.

**Corollary.**  Over one such B, the square roots of distinct basis products are
linearly independent over Q.  *Proof.*  Write sf(n) for the squarefree part of n (the
product of the primes dividing n to an odd power), so sqrt(n) = (rational) * sqrt(sf(n)).
Each sf(b) > 1 because b is not a square, and the sf(b) are pairwise coprime because
the b are.  For a basis product r = prod_{b in S} b, coprimality gives
sf(r) = prod_{b in S} sf(b), so distinct sets S give distinct squarefree sf(r); apply
the theorem.  []

Hence, for two numbers written over one common basis, ``x == y`` exactly when their
dictionaries {r_k: q_k} are equal, and ``x == 0`` exactly when the dictionary is empty.
When two numbers with different bases meet, the union of their radicands is refined to
a common basis first (:func:`_common_form`); a radicand r = prod b^e over the refined
basis becomes prod b^(e // 2) * sqrt(prod_{e odd} b).  No floating-point number is
ever consulted for an equality.

What is canonical for *every* normal form, whatever its basis: each term q sqrt(r) is
the unique term of its class sf(r) in the Besicovitch form, so the number of terms,
the rational part (the term r = 1; no other basis product is a square) and the signed
squares sign(q) q^2 r of the terms are invariants of the number; hashing uses them.
The radicands themselves are squarefree, as in the Besicovitch form, except when a
square p^2 of a prime p >= 2^15 divides a radicand without being detected (never for
radicands below 2^45): prime factors below 2^15 are split off by trial division so that
numbers of everyday size print in the usual form (``2*sqrt(2)``, not ``sqrt(8)``).
Everything costs a polynomial in the bit size of the inputs.

Multiplication stays inside the normal form: for basis products a, b over one basis
with g = gcd(a, b) (the product of their common elements), (a/g)(b/g) is the product
of the elements in exactly one of them, so

    sqrt(a) * sqrt(b) = g * sqrt((a/g) * (b/g))

is again of the form rational * sqrt(basis product).

**Inverses.**  For a prime p the map sigma_p : sqrt(p) -> -sqrt(p) (fixing the square
roots of all other primes) is a field automorphism of K.  If d = A + B*sqrt(p) with
A, B free of sqrt(p), then d * sigma_p(d) = A^2 - p*B^2 is free of sqrt(p), and it is
non-zero when d is, because sigma_p is injective.  Multiplying numerator and
denominator by sigma_p(d) for one class of primes after another makes the denominator
rational after at most (number of basis elements in its radicands) steps.

**Signs.**  The sign of a non-zero x is decided with ball arithmetic (``arb``): the
value is enclosed in an interval that is guaranteed to contain it, at 64, 128, 256,
... bits of working precision, until the interval excludes 0.  Because x != 0 is
already known exactly, the radius shrinks below |x| at some finite precision, so
the loop terminates, and because the enclosure is rigorous, the answer is exact.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from math import gcd
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from flint import arb, ctx, fmpq, fmpz

from verify.numbers.rational import isqrt

if TYPE_CHECKING:
    import sympy

__all__ = [
    "SqrtSum",
    "as_sqrt_sum",
    "parse_sqrt_sum",
    "parse_entry",
    "dot",
    "det",
    "cosine_matrix",
]

# A term dictionary in normal form: radicand (Python int, a basis product, 1 = rational
# part) -> non-zero fmpq coefficient.  Python ints hash faster than fmpz.
Terms = dict

_RATIONAL_TYPES = (int, fmpz, fmpq, Fraction)


# ---------------------------------------------------------------------------
# Integer helpers
# ---------------------------------------------------------------------------


# Prime factors below 2**_TRIAL_DIVISION_BITS are split off by trial division (so that
# radicands of everyday size come out squarefree); larger parts are only split by gcds.
_TRIAL_DIVISION_BITS = 15


def _coprime_basis(numbers: Iterable[int]) -> list[int]:
    """A coprime (gcd-free) basis of the integers > 1 among ``numbers``.

    Returns pairwise coprime integers b > 1 such that every input is a product of
    powers of them.  Factor refinement (Bach, Driscoll and Shallit, J. Algorithms 1993)
    in its plainest form: a pending number a that meets a basis element b with
    g = gcd(a, b) > 1 is dropped if a = b, and otherwise a and b are replaced by the
    pending numbers b/g, g, a/g.  Invariants: every input is a product of powers of
    basis and pending numbers; the basis is pairwise coprime (a joins it only when
    coprime to all of it).  Each step divides the product of all basis and pending
    numbers by g >= 2 (by a >= 2 when a repeats b), so there are at most
    log2(product of the inputs) steps of at most len(basis) gcds each: polynomial in
    the bit size, whatever the prime factors.

    >>> sorted(_coprime_basis([12, 18]))
    [2, 3]
    >>> sorted(_coprime_basis([6 * (10**6 + 3), 10, 15]))
    [2, 3, 5, 1000003]
    """
    basis: list[int] = []
    pending = [n for n in numbers if n > 1]
    while pending:
        a = pending.pop()
        for index, b in enumerate(basis):
            g = gcd(a, b)
            if g > 1:
                if a != b:
                    del basis[index]
                    pending.extend(m for m in (b // g, g, a // g) if m > 1)
                break
        else:
            basis.append(a)
    return basis


def _non_square_root(b: int) -> int:
    """The c with b = c**(2**k) for some k >= 0 and c not a perfect square (b > 1)."""
    while True:
        c = isqrt(b)
        if c * c != b:
            return b
        b = c


def _non_square_basis(numbers: Iterable[int]) -> tuple[int, ...]:
    """A coprime basis of the numbers (as :func:`_coprime_basis`) without squares, sorted.

    Replacing each element b = c**(2**k) by c keeps the elements pairwise coprime and
    every number a product of powers of them, and makes every element a non-square.
    """
    return tuple(sorted(_non_square_root(b) for b in _coprime_basis(numbers)))


def _split_over(n: int, basis: Sequence[int]) -> tuple[int, int]:
    """(s, r) with n = s**2 * r and r a product of distinct basis elements.

    ``n`` must be a product of powers of the (pairwise coprime) basis elements:
    with n = prod b^e, s = prod b^(e // 2) and r = prod_{e odd} b.
    """
    s = r = 1
    rest = n
    for b in basis:
        exponent = 0
        while rest % b == 0:
            rest //= b
            exponent += 1
        if exponent:
            s *= b ** (exponent // 2)
            if exponent % 2:
                r *= b
    if rest != 1:
        raise ArithmeticError(f"{n} is not a product of powers of the basis {basis}")
    return s, r


@lru_cache(maxsize=1 << 16)
def _square_decomposition(n: int) -> tuple[int, int]:
    """Return (s, r) with n = s**2 * r and r a basis product (see the module docstring),
    for an integer n >= 1; r = 1 exactly when n is a perfect square.

    The basis is the non-square coprime basis of the prime factors of n below 2^15
    (trial division) and of the cofactor, which is not factored.  Cost: polynomial in
    the bit size of n.

    >>> _square_decomposition(72)
    (6, 2)
    >>> _square_decomposition((10**60 + 1)**2 * 7)
    (1000000000000000000000000000000000000000000000000000000000001, 7)
    """
    if n < 1:
        raise ValueError(f"square decomposition needs a positive integer, got {n}")
    if n.bit_length() > _SMOOTH_FACTOR_MAX_BITS:
        return _square_decomposition_large(fmpz(n))
    atoms = [int(p) for p, _ in fmpz(n).factor_smooth(_TRIAL_DIVISION_BITS)]
    return _split_over(n, _non_square_basis(atoms))


# FLINT's factor_smooth splits off more than the primes below 2^15 (it finds larger
# factors of everyday numbers, which then print as 1000003*sqrt(7), not sqrt(...)), but
# its time grows faster than the square of the bit size: 6 s for 130,000 bits, minutes
# beyond.  Larger numbers are split by a gcd with the product of the primes below 2^15
# instead, in time quasi-linear in their bit size (the same basis, up to the factors
# above 2^15 that factor_smooth would have found).
_SMOOTH_FACTOR_MAX_BITS = 4096


@lru_cache(maxsize=1)
def _small_primorial() -> fmpz:
    """The product of the primes below 2^_TRIAL_DIVISION_BITS."""
    return fmpz.primorial_ui(1 << _TRIAL_DIVISION_BITS)


def _remove_power(n: fmpz, p: fmpz) -> tuple[fmpz, int]:
    """``(m, e)`` with ``n = m * p**e`` and ``p`` not dividing ``m`` (``p > 1``), with
    O(log e) divisions: by p, p^2, p^4, ... while they divide, then back down."""
    powers, exponent = [], 0
    power = p
    while n % power == 0:
        n //= power
        exponent += 1 << len(powers)
        powers.append(power)
        power = power * power
    for k in reversed(range(len(powers))):
        if n % powers[k] == 0:
            n //= powers[k]
            exponent += 1 << k
    return n, exponent


def _square_decomposition_large(n: fmpz) -> tuple[int, int]:
    """:func:`_square_decomposition` of a number of more than
    ``_SMOOTH_FACTOR_MAX_BITS`` bits: its primes below 2^15 found by one gcd, their
    powers removed by repeated squaring, and the cofactor c (not factored) replaced by
    its root c^(1/2^k) that is not a square; every step is a product, a quotient or a
    square root of numbers at most the size of ``n``."""
    s = r = fmpz(1)
    rest = n
    for p, _ in n.gcd(_small_primorial()).factor():
        rest, exponent = _remove_power(rest, p)
        s *= p ** (exponent // 2)
        if exponent % 2:
            r *= p
    if rest > 1:
        halvings = 0
        while rest.is_square():
            rest = rest.isqrt()
            halvings += 1
        if halvings:
            s *= rest ** (1 << (halvings - 1))
        else:
            r *= rest
    return int(s), int(r)


def _to_fmpq(value) -> fmpq:
    """Coerce an exact rational (int, fmpz, fmpq, Fraction, rational SqrtSum) to fmpq."""
    if isinstance(value, fmpq):
        return value
    if isinstance(value, (int, fmpz)):
        return fmpq(value)
    if isinstance(value, Fraction):
        return fmpq(value.numerator, value.denominator)
    if isinstance(value, SqrtSum):
        return value.to_rational()
    raise TypeError(
        f"expected an exact rational (int, Fraction or fmpq), got {type(value).__name__}"
    )


# ---------------------------------------------------------------------------
# Operations on canonical term dictionaries
# ---------------------------------------------------------------------------


def _multiply_radicands(a: int, b: int) -> tuple[int, int]:
    """sqrt(a) * sqrt(b) = factor * sqrt(radicand) for basis products a, b over one basis."""
    if a == 1:
        return 1, b
    if b == 1:
        return 1, a
    g = gcd(a, b)
    return g, (a // g) * (b // g)


def _add_product(acc: Terms, a: Terms, b: Terms, negate: bool = False) -> None:
    """acc += a * b  (or acc -= a * b), in place; zeros are left for _clean."""
    for ra, qa in a.items():
        if negate:
            qa = -qa
        for rb, qb in b.items():
            factor, radicand = _multiply_radicands(ra, rb)
            coefficient = qa * qb if factor == 1 else qa * qb * factor
            previous = acc.get(radicand)
            acc[radicand] = coefficient if previous is None else previous + coefficient


def _add_into(acc: Terms, a: Terms, negate: bool = False) -> None:
    """acc += a  (or acc -= a), in place."""
    for r, q in a.items():
        if negate:
            q = -q
        previous = acc.get(r)
        acc[r] = q if previous is None else previous + q


def _clean(acc: Terms) -> Terms:
    """Drop the zero coefficients, making the dictionary canonical."""
    return {r: q for r, q in acc.items() if q}


def _scale(a: Terms, factor: fmpq) -> Terms:
    if not factor:
        return {}
    return {r: q * factor for r, q in a.items()}


def _splitting_radicand(radicands: Iterable[int]) -> int:
    """Return b > 1 such that every radicand r is divisible by b or coprime to b.

    For basis products over one basis (module docstring) b is then a product of a set
    T of basis elements that every radicand contains entirely or not at all.  Take a
    prime p with an odd exponent in some element of T (it is not a square): sqrt(r)
    changes sign under sigma_p exactly when b divides r, so negating the terms whose
    radicand is divisible by b is the automorphism sigma_p -- without knowing p.  The
    loop keeps the invariant because b only ever shrinks to a divisor of itself: a
    radicand s already seen had gcd(b_old, s) in {1, b_old}, hence gcd(b, s) in {1, b}.
    """
    b = 0
    for s in radicands:
        if s == 1:
            continue
        if b == 0:
            b = s
        else:
            g = gcd(b, s)
            if g != 1:
                b = g
    return b


def _conjugate(a: Terms, b: int) -> Terms:
    """Apply sigma_p for a prime p as in _splitting_radicand."""
    return {r: (-q if r % b == 0 else q) for r, q in a.items()}


@lru_cache(maxsize=1 << 14)
def _rewriting(radicands: frozenset) -> dict | None:
    """How basis products from several normal forms read over one common basis.

    Returns {r: (s, r')} with sqrt(r) = s * sqrt(r') and r' a basis product over the
    non-square coprime basis of all the radicands, for the radicands that change; None
    when none does (the radicands are already basis products over one basis).
    """
    basis = _non_square_basis(radicands)
    changes = {}
    for r in radicands:
        s, new = _split_over(r, basis)
        if new != r:
            changes[r] = (s, new)
    return changes or None


def _rewrite(a: Terms, changes: dict) -> Terms:
    """The terms of `a` with their radicands rewritten by `changes` (see _rewriting)."""
    acc: Terms = {}
    for r, q in a.items():
        change = changes.get(r)
        if change is not None:
            s, r = change
            q = q * s
        previous = acc.get(r)
        acc[r] = q if previous is None else previous + q
    return _clean(acc)


def _common_forms(dictionaries: Sequence[Terms]) -> list[Terms]:
    """The same numbers in normal form over one common basis (module docstring).

    A set of radicands containing those of all the others is already such a basis
    (each dictionary is in normal form); otherwise the union is refined by gcds.
    """
    largest = max(dictionaries, key=len, default={})
    if all(d.keys() <= largest.keys() for d in dictionaries):
        return list(dictionaries)
    changes = _rewriting(frozenset().union(*dictionaries))
    if changes is None:
        return list(dictionaries)
    return [_rewrite(d, changes) for d in dictionaries]


def _common_form(a: Terms, b: Terms) -> tuple[Terms, Terms]:
    """Two numbers over one common basis (see _common_forms)."""
    if a.keys() <= b.keys() or b.keys() <= a.keys():
        return a, b
    changes = _rewriting(frozenset(a.keys() | b.keys()))
    if changes is None:
        return a, b
    return _rewrite(a, changes), _rewrite(b, changes)


# ---------------------------------------------------------------------------
# The number type
# ---------------------------------------------------------------------------


class SqrtSum:
    """An exact real number sum_k q_k * sqrt(r_k) in canonical form.

    Immutable and hashable.  Equal numbers have equal canonical forms, so ``==``
    and ``hash`` are exact; a rational SqrtSum equals (and hashes like) the same
    int, Fraction or fmpq.  Floats are refused everywhere.
    """

    __slots__ = ("_terms", "_hash")

    def __init__(self, value=0):
        if isinstance(value, SqrtSum):
            terms = value._terms
        else:
            q = _to_fmpq(value)
            terms = {1: q} if q else {}
        object.__setattr__(self, "_terms", terms)
        object.__setattr__(self, "_hash", None)

    @classmethod
    def _from_terms(cls, terms: Terms) -> SqrtSum:
        """Wrap an already canonical dictionary (no checks, no copy)."""
        x = object.__new__(cls)
        object.__setattr__(x, "_terms", terms)
        object.__setattr__(x, "_hash", None)
        return x

    def __setattr__(self, name, value):
        raise AttributeError("SqrtSum is immutable")

    def __delattr__(self, name):
        raise AttributeError("SqrtSum is immutable")

    # -- constructors ------------------------------------------------------

    @classmethod
    def rational(cls, q) -> SqrtSum:
        """The rational number q (int, Fraction or fmpq)."""
        return cls(q)

    @classmethod
    def sqrt(cls, q) -> SqrtSum:
        """The non-negative square root of a rational q >= 0.

        sqrt(n/d) with n, d coprime: write n = s^2 r and d = t^2 u (r, u basis
        products, see _square_decomposition); the bases of n and d are coprime to each
        other, so sqrt(n/d) = s*sqrt(r*u) / (t*u) with r*u a basis product over their
        union.
        """
        q = _to_fmpq(q)
        if q < 0:
            raise ValueError(f"square root of the negative number {q}")
        if not q:
            return ZERO
        s, r = _square_decomposition(int(q.p))
        t, u = _square_decomposition(int(q.q))
        return cls._from_terms({r * u: fmpq(s, t * u)})

    @classmethod
    def from_terms(cls, terms: Mapping | Iterable) -> SqrtSum:
        """sum coefficient * sqrt(radicand) over a mapping (or pairs) radicand -> coefficient.

        Radicands are rationals >= 0 and need not be squarefree or distinct.
        """
        items = terms.items() if isinstance(terms, Mapping) else terms
        total = ZERO
        for radicand, coefficient in items:
            total = total + cls.sqrt(radicand) * _to_fmpq(coefficient)
        return total

    # -- inspection ----------------------------------------------------------

    @property
    def terms(self) -> tuple[tuple[int, fmpq], ...]:
        """The normal form as pairs (radicand, coefficient), by radicand.

        Radicands are basis products (module docstring): squarefree for everyday
        sizes, and in any case of distinct squarefree parts.
        """
        return tuple(sorted(self._terms.items()))

    def is_zero(self) -> bool:
        return not self._terms

    def is_rational(self) -> bool:
        return not self._terms or (len(self._terms) == 1 and 1 in self._terms)

    def to_rational(self) -> fmpq:
        """The value as an fmpq; ValueError if the number is irrational."""
        if not self.is_rational():
            raise ValueError(f"{self} is not rational")
        return self._terms.get(1, fmpq(0))

    def __bool__(self) -> bool:
        return bool(self._terms)

    # -- ring operations -----------------------------------------------------

    def __add__(self, other):
        other = as_sqrt_sum(other, strict=False)
        if other is None:
            return NotImplemented
        a, b = _common_form(self._terms, other._terms)
        acc = dict(a)
        _add_into(acc, b)
        return SqrtSum._from_terms(_clean(acc))

    __radd__ = __add__

    def __neg__(self) -> SqrtSum:
        return SqrtSum._from_terms({r: -q for r, q in self._terms.items()})

    def __pos__(self) -> SqrtSum:
        return self

    def __sub__(self, other):
        other = as_sqrt_sum(other, strict=False)
        if other is None:
            return NotImplemented
        a, b = _common_form(self._terms, other._terms)
        acc = dict(a)
        _add_into(acc, b, negate=True)
        return SqrtSum._from_terms(_clean(acc))

    def __rsub__(self, other):
        other = as_sqrt_sum(other, strict=False)
        if other is None:
            return NotImplemented
        return other - self

    def __mul__(self, other):
        other = as_sqrt_sum(other, strict=False)
        if other is None:
            return NotImplemented
        if other.is_rational():
            return SqrtSum._from_terms(_scale(self._terms, other.to_rational()))
        if self.is_rational():
            return SqrtSum._from_terms(_scale(other._terms, self.to_rational()))
        a, b = _common_form(self._terms, other._terms)
        acc: Terms = {}
        _add_product(acc, a, b)
        return SqrtSum._from_terms(_clean(acc))

    __rmul__ = __mul__

    def __pow__(self, exponent):
        """Integer powers by repeated squaring; negative exponents invert first."""
        if not isinstance(exponent, int) or isinstance(exponent, bool):
            return NotImplemented
        base = self if exponent >= 0 else self.inverse()
        n = abs(exponent)
        result = ONE
        while n:
            if n & 1:
                result = result * base
            n >>= 1
            if n:
                base = base * base
        return result

    def inverse(self) -> SqrtSum:
        """1/self, exactly, by rationalising the denominator (see module docstring)."""
        terms = self._terms
        if not terms:
            raise ZeroDivisionError("division by zero (exact SqrtSum 0)")
        if len(terms) == 1:
            # 1/(q*sqrt(r)) = sqrt(r)/(q*r)
            ((r, q),) = terms.items()
            return SqrtSum._from_terms({r: 1 / (q * r)})
        numerator: Terms = {1: fmpq(1)}
        denominator = terms
        while not (len(denominator) == 1 and 1 in denominator):
            conjugate = _conjugate(denominator, _splitting_radicand(denominator))
            product: Terms = {}
            _add_product(product, denominator, conjugate)
            denominator = _clean(product)
            product = {}
            _add_product(product, numerator, conjugate)
            numerator = _clean(product)
        return SqrtSum._from_terms(_scale(numerator, 1 / denominator[1]))

    def __truediv__(self, other):
        other = as_sqrt_sum(other, strict=False)
        if other is None:
            return NotImplemented
        return self * other.inverse()

    def __rtruediv__(self, other):
        other = as_sqrt_sum(other, strict=False)
        if other is None:
            return NotImplemented
        return other * self.inverse()

    # -- sign and order ------------------------------------------------------

    def _enclosure(self, bits: int) -> arb:
        """A ball certainly containing the value, computed at `bits` of precision."""
        with ctx.workprec(bits):
            total = arb(0)
            for r, q in self._terms.items():
                term = arb(q) if r == 1 else arb(q) * arb(r).sqrt()
                total += term
            return total

    def fixed_point(self, bits: int) -> tuple[int, int]:
        """Integers ``(m, e)`` with ``|x * 2**bits - m| <= e``, by integer square roots.

        Each term ``(a/b) sqrt(r)`` contributes ``+-floor(isqrt(a^2 r 4^bits) / b)``
        (for ``bits < 0``: ``+-floor(isqrt(a^2 r) / (b 2^-bits))``), within 1 of its
        value since ``floor(floor(x) / b) = floor(x / b)``; ``e`` is the number of terms.
        """
        m = 0
        for r, q in self._terms.items():
            a, b = int(q.p), int(q.q)
            if bits >= 0:
                f = isqrt(a * a * r << (2 * bits)) // b
            else:
                f = isqrt(a * a * r) // (b << -bits)
            m += f if a > 0 else -f
        return m, len(self._terms)

    def sign(self) -> int:
        """-1, 0 or 1, exactly (see module docstring)."""
        terms = self._terms
        if not terms:
            return 0
        # Terms of one sign cannot cancel: no numerics needed.
        if all(q > 0 for q in terms.values()):
            return 1
        if all(q < 0 for q in terms.values()):
            return -1
        bits = 64
        while True:
            ball = self._enclosure(bits)
            if ball > 0:
                return 1
            if ball < 0:
                return -1
            # The ball still contains 0, but the value is known to be non-zero:
            # more precision shrinks the radius below |value| eventually.
            bits *= 2

    def __abs__(self) -> SqrtSum:
        return -self if self.sign() < 0 else self

    def _compare(self, other) -> int | None:
        other = as_sqrt_sum(other, strict=False)
        if other is None:
            return None
        return (self - other).sign()

    def __lt__(self, other):
        s = self._compare(other)
        return NotImplemented if s is None else s < 0

    def __le__(self, other):
        s = self._compare(other)
        return NotImplemented if s is None else s <= 0

    def __gt__(self, other):
        s = self._compare(other)
        return NotImplemented if s is None else s > 0

    def __ge__(self, other):
        s = self._compare(other)
        return NotImplemented if s is None else s >= 0

    def __eq__(self, other):
        other = as_sqrt_sum(other, strict=False)
        if other is None:
            return NotImplemented
        a, b = self._terms, other._terms
        if a == b:
            return True
        if len(a) != len(b):  # the number of terms is an invariant (module docstring)
            return False
        a, b = _common_form(a, b)
        return a == b

    def __hash__(self) -> int:
        if self._hash is None:
            if self.is_rational():
                # Agree with hash(int), hash(Fraction) and hash(fmpq) of equal value.
                value = hash(self.to_rational())
            else:
                # The signed squares of the terms do not depend on the basis.
                value = hash(frozenset(q * q * r if q > 0 else -(q * q * r)
                                       for r, q in self._terms.items()))
            object.__setattr__(self, "_hash", value)
        return self._hash

    # -- conversions -----------------------------------------------------------

    def __float__(self) -> float:
        """A double close to the value, for display only; never used for decisions."""
        if not self._terms:
            return 0.0
        bits = 64
        while True:
            ball = self._enclosure(bits)
            if ball.rel_accuracy_bits() >= 53:
                return float(ball.mid())
            bits *= 2

    def to_sympy(self) -> sympy.Expr:
        """The same number as a sympy expression (sympy is imported lazily)."""
        import sympy

        return sympy.Add(
            *(
                sympy.Rational(int(q.p), int(q.q)) * sympy.sqrt(r)
                for r, q in sorted(self._terms.items())
            )
        )

    def __str__(self) -> str:
        """Canonical text, readable back by parse_sqrt_sum: e.g. ``1/2 - 5*sqrt(2)/3``.

        Terms appear by increasing radicand; each term is printed as
        ``p*sqrt(r)/q`` with the factors equal to 1 left out.
        """
        if not self._terms:
            return "0"
        pieces = []
        for index, (r, q) in enumerate(sorted(self._terms.items())):
            negative = q < 0
            body = _format_term(r, abs(int(q.p)), int(q.q))
            if index == 0:
                pieces.append("-" + body if negative else body)
            else:
                pieces.append((" - " if negative else " + ") + body)
        return "".join(pieces)

    __repr__ = __str__

    def __reduce__(self):
        pairs = tuple((r, int(q.p), int(q.q)) for r, q in sorted(self._terms.items()))
        return (_from_integer_triples, (pairs,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _format_term(radicand: int, numerator: int, denominator: int) -> str:
    """|q| * sqrt(radicand) with |q| = numerator/denominator, as p*sqrt(r)/q.

    Integers are printed through fmpz: str(int) refuses more than 4300 digits.
    """
    numerator, denominator = str(fmpz(numerator)), str(fmpz(denominator))
    if radicand == 1:
        text = numerator
    elif numerator == "1":
        text = f"sqrt({fmpz(radicand)})"
    else:
        text = f"{numerator}*sqrt({fmpz(radicand)})"
    return text if denominator == "1" else f"{text}/{denominator}"


def _from_integer_triples(pairs) -> SqrtSum:
    """Rebuild a pickled SqrtSum from (radicand, numerator, denominator) triples."""
    return SqrtSum._from_terms({r: fmpq(p, q) for r, p, q in pairs})


ZERO = SqrtSum._from_terms({})
ONE = SqrtSum._from_terms({1: fmpq(1)})


def as_sqrt_sum(value, strict: bool = True) -> SqrtSum | None:
    """Coerce a SqrtSum, int, fmpz, fmpq or Fraction to a SqrtSum.

    Anything else (floats in particular) raises TypeError, or gives None when
    strict is False (the arithmetic operators then return NotImplemented).
    """
    if isinstance(value, SqrtSum):
        return value
    if isinstance(value, _RATIONAL_TYPES):
        q = _to_fmpq(value)
        return SqrtSum._from_terms({1: q} if q else {})
    if strict:
        raise TypeError(
            f"expected an exact number (SqrtSum, int, Fraction or fmpq), "
            f"got {type(value).__name__}"
        )
    return None


# ---------------------------------------------------------------------------
# Parser
# ---------------------------------------------------------------------------
#
#   sum     := [sign] product (sign [sign] product)*   sign := '+' | '-'
#   product := factor (('*' | '/') [sign] factor)*
#   factor  := number | 'sqrt' '(' sum ')' | '(' sum ')'
#   number  := digits ['.' digits] [('e' | 'E') [sign] digits]   (read exactly)
#
# The argument of sqrt must evaluate to a rational >= 0.  A sign may follow a binary
# operator (``1+-sqrt(2)/2`` = ``1-sqrt(2)/2``, ``2*-3`` = -6), but a sum starts with at
# most one sign (``--1`` is refused as a likely typo).

_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<symbol>[-+*/()])"
    r")",
    re.ASCII,  # digits are 0-9 only
)

# A bound that keeps hostile input from exhausting the Python stack (numbers are bounded
# by the rational reader's exponent limit).
_MAX_NESTING = 100


def _shown(text: str) -> str:
    """Text for a message: quoted, escaped (so one line), and bounded."""
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _tokenize(text: str) -> list[tuple[str, str, int]]:
    tokens = []
    position = 0
    end = len(text.rstrip())
    while position < end:
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise ValueError(f"cannot parse {_shown(text)}: unexpected character at "
                             f"position {position}")
        kind = match.lastgroup
        tokens.append((kind, match.group(kind), match.start(kind)))
        position = match.end()
    return tokens


def _decimal_to_fmpq(literal: str) -> fmpq:
    """Read a decimal literal such as 0.95 or 1e-3 exactly (0.95 = 19/20), as
    :func:`verify.numbers.rational.parse_rational` reads it (one syntax for numbers,
    with its bound on the exponent)."""
    from verify.numbers.rational import parse_rational

    return parse_rational(literal)


class _Parser:
    """Recursive descent over the grammar above; evaluates as it parses."""

    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokenize(text)
        self.index = 0
        self.depth = 0

    def error(self, message: str, position: int | None = None) -> ValueError:
        """A ValueError pointing at `position`, by default the current token."""
        if position is None and self.index < len(self.tokens):
            position = self.tokens[self.index][2]
        where = "at the end" if position is None else f"at position {position}"
        return ValueError(f"cannot parse {_shown(self.text)}: {message} {where}")

    def peek(self) -> str | None:
        return self.tokens[self.index][1] if self.index < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str, int]:
        if self.index >= len(self.tokens):
            raise self.error(f"expected {expected!r}" if expected else "unexpected end")
        token = self.tokens[self.index]
        if expected is not None and token[1] != expected:
            raise self.error(f"expected {expected!r}")
        self.index += 1
        return token

    def parse(self) -> SqrtSum:
        if not self.tokens:
            raise ValueError("cannot parse an empty string as a number")
        value = self.sum()
        if self.index != len(self.tokens):
            raise self.error(f"unexpected {self.peek()!r}")
        return value

    def sum(self) -> SqrtSum:
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise self.error("too deeply nested")
        negative = False
        if self.peek() in ("+", "-"):
            negative = self.take()[1] == "-"
        value = self.product()
        if negative:
            value = -value
        while self.peek() in ("+", "-"):
            negative = self.take()[1] == "-"
            if self.peek() in ("+", "-"):
                negative ^= self.take()[1] == "-"
            term = self.product()
            value = value - term if negative else value + term
        self.depth -= 1
        return value

    def product(self) -> SqrtSum:
        value = self.factor()
        while self.peek() in ("*", "/"):
            _, operator, position = self.take()
            negative = False
            if self.peek() in ("+", "-"):
                negative = self.take()[1] == "-"
            operand = self.factor()
            if negative:
                operand = -operand
            if operator == "*":
                value = value * operand
            elif operand.is_zero():
                raise self.error("division by zero", position)
            else:
                value = value / operand
            self.check_size(value, position)
        return value

    def check_size(self, value: SqrtSum, position: int) -> None:
        """Refuse a product whose terms hold more digits than one number may have
        (:data:`verify.numbers.rational.MAX_DIGITS`): each literal is bounded, but
        ``1e100000*1e100000*...`` is not."""
        from verify.numbers.rational import MAX_DIGITS, TooManyDigits

        bits = sum(fmpz(q.p).bit_length() + fmpz(q.q).bit_length() + r.bit_length()
                   for r, q in value._terms.items())
        if bits > MAX_DIGITS * 3.33 + 64:  # log2(10) < 3.33
            error = self.error(f"a number of more than {MAX_DIGITS:,} digits", position)
            raise TooManyDigits(str(error))

    def factor(self) -> SqrtSum:
        if self.index >= len(self.tokens):
            raise self.error("expected a number")
        kind, text, position = self.tokens[self.index]
        if kind == "number":
            self.take()
            return SqrtSum.rational(_decimal_to_fmpq(text))
        if text == "sqrt":
            self.take()
            self.take("(")
            argument = self.sum()
            self.take(")")
            if not argument.is_rational():
                raise self.error(f"sqrt of the irrational number {argument}", position)
            if argument.sign() < 0:
                raise self.error(f"sqrt of the negative number {argument}", position)
            return SqrtSum.sqrt(argument.to_rational())
        if text == "(":
            self.take()
            value = self.sum()
            self.take(")")
            return value
        raise self.error(f"unexpected {text!r}")


def parse_sqrt_sum(text: str) -> SqrtSum:
    """Read a sum of terms such as ``5*sqrt(2)/2``, ``-sqrt(39)/20``, ``0.95``, ``1/2 + sqrt(3)``.

    Decimals are read exactly.  Anything outside the grammar (documented above
    _TOKEN) raises ValueError; nothing is ever passed to eval.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_sqrt_sum expects a string, got {type(text).__name__}")
    return _Parser(text).parse()


def parse_entry(text: str):
    """One matrix entry read exactly: an ``fmpq``, or a :class:`SqrtSum` if it needs one.

    The rational grammar is tried first, so ``0.1`` is ``1/10`` and an entry such as
    ``sqrt(4)/2`` comes back as the rational ``1``.  Text that is neither raises the
    rational parser's ValueError, which names the text.

    >>> parse_entry("0.1"), parse_entry("5*sqrt(2)/2")
    (1/10, 5*sqrt(2)/2)
    """
    from verify.numbers.rational import TooManyDigits, parse_rational

    try:
        return parse_rational(text)
    except ValueError as first:
        if "sqrt" not in text or isinstance(first, TooManyDigits):
            raise
        try:
            value = parse_sqrt_sum(text)
        except TooManyDigits:
            raise
        except (ValueError, ArithmeticError):
            raise first from None
        return value.to_rational() if value.is_rational() else value


# ---------------------------------------------------------------------------
# Linear algebra
# ---------------------------------------------------------------------------


def dot(u: Sequence, v: Sequence) -> SqrtSum:
    """sum_i u_i * v_i for equal-length vectors of exact numbers."""
    if len(u) != len(v):
        raise ValueError(f"dot product of vectors of lengths {len(u)} and {len(v)}")
    entries = _common_forms([as_sqrt_sum(x)._terms for x in (*u, *v)])
    acc: Terms = {}
    for a, b in zip(entries[: len(u)], entries[len(u):]):
        _add_product(acc, a, b)
    return SqrtSum._from_terms(_clean(acc))


# Up to this size the determinant is expanded over column subsets (n * 2^(n-1)
# products); beyond it Bird's O(n^4) algorithm takes over.
_MINOR_EXPANSION_LIMIT = 8


def det(matrix: Sequence[Sequence]) -> SqrtSum:
    """Determinant of a square matrix of exact numbers, without any division.

    For n <= 8: Laplace expansion along rows with memoised minors.  After row k
    the minors of rows 0..k on every (k+1)-subset of columns are known; each is
    used once per column that can be added.  Cost: sum_k C(n, k) (n - k) =
    n * 2^(n-1) ring multiplications (80 for n = 5, 192 for n = 6), memory
    C(n, n/2) minors.  For larger n: Bird's division-free algorithm (Bird 2011),
    n - 1 products with an upper triangular matrix, O(n^4) ring multiplications.
    The 0 x 0 determinant is 1.
    """
    rows = [[as_sqrt_sum(entry)._terms for entry in row] for row in matrix]
    n = len(rows)
    for i, row in enumerate(rows):
        if len(row) != n:
            raise ValueError(f"det needs a square matrix: row {i} has {len(row)} entries, expected {n}")
    entries = iter(_common_forms([entry for row in rows for entry in row]))
    rows = [[next(entries) for _ in row] for row in rows]
    if n == 0:
        return ONE
    if n <= _MINOR_EXPANSION_LIMIT:
        return SqrtSum._from_terms(_det_minor_expansion(rows))
    return SqrtSum._from_terms(_det_bird(rows))


def _det_minor_expansion(rows: list[list[Terms]]) -> Terms:
    """Row-by-row Laplace expansion, minors indexed by column bitmask.

    Expanding the minor on rows 0..k, columns S, along its last row k:
        M(S) = sum_{j in S} (-1)^{#(elements of S greater than j)} a[k][j] M(S - {j}),
    since j sits at position k - #(greater elements) of the sorted S.
    """
    n = len(rows)
    minors: dict[int, Terms] = {0: {1: fmpq(1)}}
    for row in rows:
        extended: dict[int, Terms] = {}
        for columns, minor in minors.items():
            for j in range(n):
                bit = 1 << j
                if columns & bit or not row[j]:
                    continue
                negate = (columns >> (j + 1)).bit_count() % 2 == 1
                _add_product(extended.setdefault(columns | bit, {}), row[j], minor, negate)
        minors = {}
        for columns, acc in extended.items():
            minor = _clean(acc)
            if minor:  # zero minors contribute nothing further
                minors[columns] = minor
        if not minors:
            return {}
    return minors.get((1 << n) - 1, {})


def _det_bird(a: list[list[Terms]]) -> Terms:
    """Bird's division-free determinant (R. S. Bird, Inform. Process. Lett. 2011).

    With mu(X) the upper triangular matrix that keeps X above the diagonal, has
    mu(X)_ii = -(X_{i+1,i+1} + ... + X_{n-1,n-1}) on it and 0 below, iterate
    X <- mu(X) A starting from X = A; after n - 1 steps det A = (-1)^(n-1) X_00.
    """
    n = len(a)
    x = a
    for step in range(n - 1):
        diagonal: list[Terms] = [{}] * n
        tail: Terms = {}
        for i in range(n - 1, -1, -1):
            diagonal[i] = {r: -q for r, q in _clean(tail).items()}
            _add_into(tail, x[i][i])
        size = 1 if step == n - 2 else n  # the last step only needs X_00
        new_x = []
        for i in range(size):
            new_row = []
            for j in range(size):
                acc: Terms = {}
                _add_product(acc, diagonal[i], a[i][j])
                for k in range(i + 1, n):
                    _add_product(acc, x[i][k], a[k][j])
                new_row.append(_clean(acc))
            new_x.append(new_row)
        x = new_x
    result = x[0][0]
    return result if n % 2 == 1 else {r: -q for r, q in result.items()}


def _primitive_integer_row(row: Sequence, index: int) -> list[int]:
    """A positive rational multiple of the row with coprime integer entries.

    Cosine similarity is invariant under scaling a row by a positive number, so
    the rows may be replaced by these; norms then become integers.
    """
    try:
        entries = [_to_fmpq(x) for x in row]
    except (TypeError, ValueError) as error:
        raise type(error)(f"row {index}: {error}") from None
    common_denominator = 1
    for q in entries:
        d = int(q.q)
        common_denominator = common_denominator * d // gcd(common_denominator, d)
    integers = [int(q.p) * (common_denominator // int(q.q)) for q in entries]
    content = 0
    for m in integers:
        content = gcd(content, m)
    if content > 1:
        integers = [m // content for m in integers]
    return integers


def cosine_matrix(rows: Sequence[Sequence]) -> list[list[SqrtSum]]:
    """C_ij = w_i.w_j / (|w_i| |w_j|) exactly, for rows w_i with rational entries.

    With integer rows (see _primitive_integer_row), |w_i|^2 = s_i^2 r_i with the r_i
    basis products over one common basis (module docstring), g = gcd(r_i, r_j) and
    R = (r_i/g)(r_j/g) again a basis product:
        C_ij = (w_i.w_j) / (s_i s_j g sqrt(R)) = (w_i.w_j) / (s_i s_j g R) * sqrt(R),
    one term q*sqrt(R).  Only the n norms are decomposed, by gcds and trial division
    (never factored).  The diagonal is exactly 1.

    Since C = D^-1 G D^-1 with G the Gram matrix and D = diag(|w_i|), every minor
    is a single term as well: det C[I, J] = det G[I, J] / (prod_I |w_i| prod_J |w_j|).
    """
    vectors = [_primitive_integer_row(row, i) for i, row in enumerate(rows)]
    if vectors:
        width = len(vectors[0])
        for i, v in enumerate(vectors):
            if len(v) != width:
                raise ValueError(f"row {i} has {len(v)} entries but row 0 has {width}")
    decompositions = []
    for i, v in enumerate(vectors):
        norm_squared = sum(m * m for m in v)
        if norm_squared == 0:
            raise ValueError(f"row {i} is the zero vector: its cosine similarity is undefined")
        decompositions.append(_square_decomposition(norm_squared))
    changes = _rewriting(frozenset(r for _, r in decompositions))
    if changes is not None:
        for i, (s, r) in enumerate(decompositions):
            if r in changes:
                t, r = changes[r]
                decompositions[i] = (s * t, r)

    n = len(vectors)
    matrix: list[list[SqrtSum]] = [[ONE] * n for _ in range(n)]
    for i in range(n):
        s_i, r_i = decompositions[i]
        for j in range(i + 1, n):
            s_j, r_j = decompositions[j]
            inner = sum(a * b for a, b in zip(vectors[i], vectors[j]))
            if inner == 0:
                entry = ZERO
            else:
                g = gcd(r_i, r_j)
                radicand = (r_i // g) * (r_j // g)
                entry = SqrtSum._from_terms({radicand: fmpq(inner, s_i * s_j * g * radicand)})
            matrix[i][j] = matrix[j][i] = entry
    return matrix
