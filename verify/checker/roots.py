"""Checker, part two: exact sums of square roots, cosine matrices, theorem 5.5.

Standard library only, like :mod:`verify.checker.core`, whose helpers it uses; it is loaded
when a certificate needs it. Read it with ``docs/certificates.md``.

Numbers. A cosine ``m_i . m_j / (|m_i| |m_j|)`` is a rational multiple of the square
root of a rational. :class:`RootSum` holds finite sums ``sum_k q_k sqrt(r_k)`` with
rational ``q_k`` and positive integers ``r_k``, exactly:

* *zero test*: terms whose radicands ``r_k, r_l`` have ``r_k r_l`` a perfect square
  (``math.isqrt``) are multiples of one square root and are folded into one term; square
  roots of radicands in different classes are linearly independent over Q (Besicovitch
  1940), so a sum is zero iff nothing is left after folding; nothing is factored;
* *sign* of a non-zero sum: interval arithmetic with
  ``isqrt(r 4^p) / 2^p <= sqrt(r) < (isqrt(r 4^p) + 1) / 2^p`` at increasing ``p``,
  which terminates because the value is not zero.

Claims. ``lemma 5.3`` / ``theorem 5.6`` on one matrix: the checker builds ``M`` and
``C(M)`` itself and runs the pattern check of :mod:`verify.checker.core` on both, against
the one asserted list: over Q for ``M``, with :data:`SQUARE_ROOTS` for ``C(M)``.
``theorem 5.5``: ``C(W1) = C(W2)`` entry by entry, for rows over ``Q(sqrt ...)``, and
then either a ranking of ``R(W1)`` putting a label first (a witness) while Gordan
multipliers show that no input puts it first for ``W2``, or complete ``R(W1)``,
``R(W2)`` that differ.
"""

import re
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from math import gcd, isqrt

from verify.checker.core import (
    RATIONALS,
    CertificateError,
    braid,
    check_count,
    check_differences,
    check_multipliers,
    check_witness,
    complete_pattern,
    digits_to_int,
    json_index,
    input_matrix,
    json_list,
    json_object,
    ranking_signs,
    shown_json,
    sign_strings,
    within,
    check_pattern,
)


@lru_cache(maxsize=1 << 16)
def _root_of_product(a: int, b: int) -> int:
    """``sqrt(a b)`` if ``a b`` is a perfect square, else 0 (``a, b >= 1``)."""
    s = isqrt(a * b)
    return s if s * s == a * b else 0


def _fold(terms: dict, r: int, q: Fraction) -> None:
    """``terms += q sqrt(r)``, keeping one term per class (see :class:`RootSum`)."""
    if not q:
        return
    if r not in terms:
        s = _root_of_product(r, 1)
        if s:  # r = s^2: a rational
            r, q = 1, q * s
        else:
            for r0 in terms:
                s = _root_of_product(r, r0)
                if s:  # sqrt(r) = sqrt(r r0) / r0 * sqrt(r0)
                    r, q = r0, q * Fraction(s, r0)
                    break
    q = terms.get(r, 0) + q
    if q:
        terms[r] = q
    else:
        terms.pop(r, None)


class RootSum:
    """An exact real ``sum_k q_k sqrt(r_k)``: rationals ``q_k``, positive integers ``r_k``.

    Radicands ``r, r'`` are in one class iff ``r r'`` is a perfect square (then
    ``sqrt(r) = sqrt(r r') / r' * sqrt(r')``). The terms are kept folded to one per class
    (radicand 1 for the rationals), so distinct radicands have distinct squarefree
    parts, and by Besicovitch's theorem (square roots of distinct squarefree integers
    are linearly independent over Q) the number is 0 iff no term is left. Nothing is
    factored: a class is recognised with ``math.isqrt``.

    The sign of a non-zero number comes from interval arithmetic: with
    ``s = isqrt(r 4^p)``, ``sqrt(r)`` lies in ``[s, s + 1] / 2^p`` (a point if
    ``s^2 = r 4^p``); the sum of the term intervals contains the number, and ``p`` is
    doubled until it excludes 0. That happens at a finite ``p``, as the width is at
    most ``sum_k |q_k| / 2^p`` and the number is known to be non-zero.
    """

    __slots__ = ("terms",)

    def __init__(self, terms=()):
        self.terms = {}
        for r, q in terms:
            _fold(self.terms, r, q)

    @staticmethod
    def of(x):
        return x if isinstance(x, RootSum) else RootSum([(1, Fraction(x))])

    def __add__(self, other):
        total = RootSum()
        total.terms = dict(self.terms)
        for r, q in RootSum.of(other).terms.items():
            _fold(total.terms, r, q)
        return total

    __radd__ = __add__

    def __neg__(self):
        return RootSum((r, -q) for r, q in self.terms.items())

    def __sub__(self, other):
        return self + -RootSum.of(other)

    def __rsub__(self, other):
        return -self + other

    def __mul__(self, other):
        other = RootSum.of(other)
        product = RootSum()
        for r, q in self.terms.items():
            for r2, q2 in other.terms.items():  # sqrt(r) sqrt(r2) = g sqrt(r r2 / g^2)
                g = gcd(r, r2)
                _fold(product.terms, (r // g) * (r2 // g), q * q2 * g)
        return product

    __rmul__ = __mul__

    def sign(self) -> int:
        values = self.terms.values()
        if not values:
            return 0
        if all(q > 0 for q in values) or all(q < 0 for q in values):
            return 1 if next(iter(values)) > 0 else -1
        p = 32
        while True:
            low = high = 0  # bounds of the number times 2^p
            for r, q in self.terms.items():
                s = isqrt(r << 2 * p)
                a, b = q * s, q * (s + (s * s != r << 2 * p))
                low, high = low + min(a, b), high + max(a, b)
            if low > 0 or high < 0:
                return 1 if low > 0 else -1
            p *= 2

    def __str__(self):
        terms = sorted(self.terms.items())
        text = "".join((" - " if q < 0 else " + ") + str(abs(q))
                       + ("" if r == 1 else f"*sqrt({r})") for r, q in terms)
        return ("-" if text.startswith(" - ") else "") + text[3:] if text else "0"


_ROOT_TERM = re.compile(r"(-| \+ | - |)(?:([0-9]+)(?:/([0-9]+))?(?:\*sqrt\(([0-9]+)\))?"
                        r"|sqrt\(([0-9]+)\))", re.ASCII)


class SquareRoots:
    """Numbers of the cosine side of ``lemma 5.3`` / ``theorem 5.6``: :class:`RootSum`.

    A number is a JSON string: terms joined by ``" + "`` or ``" - "`` (one space either
    side), the first optionally preceded by ``"-"``; a term is ``p``, ``p/q``,
    ``p*sqrt(r)``, ``p/q*sqrt(r)`` or ``sqrt(r)`` with ``p, q, r`` digit strings,
    ``q >= 1`` and ``r >= 1``. Every rational of :class:`Rationals` is one.
    """

    @staticmethod
    def parse(value, where: str) -> RootSum:
        if not isinstance(value, str):
            raise CertificateError(f'{where}: a number must be a string such as '
                                   f'"-3/4*sqrt(2) + 1", got {shown_json(value)}')
        terms, position = [], 0
        while position < len(value) or not terms:
            match = _ROOT_TERM.match(value, position)
            if match is None or (match[1] in ("", "-")) != (position == 0):
                raise CertificateError(f"{where}: not an exact sum of square roots: "
                                       f"{shown_json(value)}")
            p, q, r = match[2] or "1", match[3] or "1", match[4] or match[5] or "1"
            p, q, r = digits_to_int(p), digits_to_int(q), digits_to_int(r)
            if q == 0 or r == 0:
                raise CertificateError(f"{where}: zero denominator or radicand: "
                                       f"{shown_json(value)}")
            terms.append((r, Fraction(-p if "-" in match[1] else p, q)))
            position = match.end()
        return RootSum(terms)

    @staticmethod
    def sign(x) -> int:
        return RootSum.of(x).sign()


SQUARE_ROOTS = SquareRoots()


def cosine_matrix(M) -> list:
    """``C(M)`` from its definition, ``C_ij = (m_i . m_j) / sqrt(|m_i|^2 |m_j|^2)``.

    When ``|m_i|^2 |m_j|^2 = a / b`` is rational (in lowest terms),
    ``1 / sqrt(a / b) = sqrt(a b) / a``, so ``C_ij = (m_i . m_j) (1 / a) sqrt(a b)``
    (a rational when ``a b`` is a perfect square, as on the diagonal). That covers
    rational rows (Fractions) and rows over ``Q(sqrt ...)`` (:class:`RootSum`) whose
    products ``|m_i|^2 |m_j|^2`` are rational, which is checked: otherwise, or for a
    zero row, :class:`CertificateError`.
    """
    squares = [sum((a * a for a in m), RootSum()) for m in M]
    zero = next((i for i, u in enumerate(squares) if not u.terms), None)
    if zero is not None:
        raise CertificateError(f"row {zero} is zero (a cosine needs non-zero rows)")
    C = []
    for i, (m, u) in enumerate(zip(M, squares)):
        C.append([])
        for j, (m2, u2) in enumerate(zip(M, squares)):
            n = (u * u2).terms
            if set(n) != {1}:
                raise CertificateError(f"|m_{i}|^2 |m_{j}|^2 = {u * u2} is not rational")
            a, b = n[1].numerator, n[1].denominator
            C[-1].append(sum((x * y for x, y in zip(m, m2)), RootSum())
                         * RootSum([(a * b, Fraction(1, a))]))
    return C


def check_cosine_claim(claim: str, document, assertion, evidence) -> str:
    """``lemma 5.3``: ``S(C(W)) = S(W)`` for ``W`` without zero rows; ``theorem 5.6``:
    ``S(C(B_n W)) = R(W) = S(B_n W)`` for ``W`` without equal rows. Both are checked on
    ``M = W`` or ``M = B_n W`` by proving the one asserted list to be ``S(M)`` (rational
    evidence) and to be ``S(C(M))`` (evidence over ``Q(sqrt ...)``, for the ``C`` built
    here)."""
    json_object(document, "input", ("W",))
    W = input_matrix(document["W"])
    if claim == "lemma 5.3":
        zero = next((i for i, row in enumerate(W) if not any(row)), None)
        if zero is not None:
            raise CertificateError(f"input.W: row {zero} is zero, outside the hypothesis "
                                   "of lemma 5.3 (no zero row)")
        M, shown = W, "S(C(W)) = S(W)"
    else:
        pairs = list(combinations(range(len(W)), 2))
        equal = next(((i, j) for i, j in pairs if W[i] == W[j]), None)
        if equal is not None:
            raise CertificateError(f"input.W: rows {equal[0]} and {equal[1]} are equal, "
                                   "outside the hypothesis of theorem 5.6 (no equal rows)")
        M = braid(W)
        shown = "S(C(B_n W)) = R(W)"
    json_object(assertion, "assertion", ("count", "patterns", "equal"))
    patterns = sign_strings(assertion["patterns"], "assertion.patterns", len(M))
    check_count(assertion)
    if assertion["equal"] is not True:
        raise CertificateError(f"assertion.equal: expected true, got "
                               f"{shown_json(assertion['equal'])}")
    json_object(evidence, "evidence", ("matrix", "cosine"))
    for side, matrix, numbers, ncols in [("matrix", M, RATIONALS, len(W[0])),
                                         ("cosine", cosine_matrix(M), SQUARE_ROOTS, len(M))]:
        summary = within(f"evidence.{side}", check_pattern, matrix, patterns,
                          evidence[side], numbers, ncols=ncols)
    return f"{claim}, {shown}: {summary} on both sides"


def _check_theorem_55(document, assertion, evidence) -> str:
    """Theorem 5.5: the cosine matrix does not determine the ranking pattern. For ``W1``
    and ``W2`` over ``Q(sqrt ...)``: ``C(W1) = C(W2)`` entry by entry, computed here,
    and ``R(W1) != R(W2)``. With ``label``: the listed rankings of ``R(W1)`` put the
    label first (witnesses), and no input puts it first for ``W2``: ``y >= 0``, not
    all zero, with ``sum_k y_k (w_label - w_k) = 0`` over ``W2``. Without: ``R(W1)``
    and ``R(W2)`` are proven complete and ``only_in_W1`` / ``only_in_W2`` are exactly
    their differences, not both empty."""
    json_object(document, "input", ("W1", "W2", "label"))
    V = {key: input_matrix(document[key], f"input.{key}", SQUARE_ROOTS)
         for key in ("W1", "W2")}
    n, label = len(V["W1"]), document["label"]
    if len(V["W2"]) != n:
        raise CertificateError("input: W1 and W2 must have the same number of rows")
    if label is not None:
        json_index(label, "input.label", n)
    C1, C2 = (within(f"input.{key}", cosine_matrix, V[key]) for key in ("W1", "W2"))
    for i, j in ((i, j) for i in range(n) for j in range(n)):
        if (C1[i][j] - C2[i][j]).terms:
            raise CertificateError(f"C(W1) != C(W2): entry ({i}, {j}) is {C1[i][j]} "
                                   f"for W1 and {C2[i][j]} for W2")
    keys = ("cosines_equal",) + (("only_in_W1", "only_in_W2") if label is None
                                 else ("first_in_W1",))
    json_object(assertion, "assertion", keys)
    if assertion["cosines_equal"] is not True:
        raise CertificateError(f"assertion.cosines_equal: expected true, got "
                               f"{shown_json(assertion['cosines_equal'])}")
    d1, d2 = len(V["W1"][0]), len(V["W2"][0])
    if label is None:
        json_object(evidence, "evidence", ("ranking_W1", "ranking_W2"))
        R = {key: complete_pattern(braid(W), evidence[f"ranking_{key}"],
                                    f"evidence.ranking_{key}", SQUARE_ROOTS, len(W[0]))
             for key, W in V.items()}
        a, b = check_differences(("W1", "W2"), V, R, assertion, numbers=SQUARE_ROOTS)
        return (f"theorem 5.5, C(W1) = C(W2) but R(W1) != R(W2): {a} of {len(R['W1'])} "
                f"rankings only in R(W1), {b} of {len(R['W2'])} only in R(W2)")
    json_object(evidence, "evidence", ("witnesses", "multipliers"))
    first = json_list(assertion["first_in_W1"], "assertion.first_in_W1")
    signs = [ranking_signs(r, n, f"assertion.first_in_W1[{k}]")
             for k, r in enumerate(first)]
    if not first or first != sorted(first) or len(set(signs)) != len(signs):
        raise CertificateError("assertion.first_in_W1: empty, not sorted, or a ranking "
                               "is repeated")
    witnesses = json_list(evidence["witnesses"], "evidence.witnesses", len(first))
    for k, (ranking, s, witness) in enumerate(zip(first, signs, witnesses)):
        if ranking[0] != label:
            raise CertificateError(f"assertion.first_in_W1[{k}]: does not rank label "
                                   f"{label} first")
        check_witness(braid(V["W1"]), s, witness, SQUARE_ROOTS,
                       f"evidence.witnesses[{k}]", d1)
    w = V["W2"][label]
    M = [None if k == label else [a - b for a, b in zip(w, row)]
         for k, row in enumerate(V["W2"])]  # rows w_label - w_k of W2
    check_multipliers(M, "+" * n, evidence["multipliers"], SQUARE_ROOTS,
                       "evidence", d2)
    return (f"theorem 5.5, C(W1) = C(W2) but R(W1) != R(W2): label {label} is first in "
            f"{len(first)} rankings of R(W1) and in none of R(W2)")


#: The claims checked here, by the value of ``claim``.
CLAIMS = {
    "lemma 5.3": lambda *parts: check_cosine_claim("lemma 5.3", *parts),
    "theorem 5.6": lambda *parts: check_cosine_claim("theorem 5.6", *parts),
    "theorem 5.5": _check_theorem_55,
}
