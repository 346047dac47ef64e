"""Independent checker for certificate files of the format ``verify-certificate/1``.

This module is meant to be read, not trusted: it imports nothing but the Python
standard library, shares no code with the engine that wrote the certificate, and
decides every assertion with exact ``fractions.Fraction`` arithmetic. The format is
specified in ``docs/certificates.md``.

Mathematics
-----------
For ``M`` in ``Q^{N x k}`` the sign pattern is
``S(M) = { sign(M z) : z in R^k, no entry of M z is zero }``, a set of strings over
``+``/``-``; the ranking pattern of ``W`` is ``R(W) = S(B_n W)``, where ``B_n`` has the
rows ``e_i - e_j`` for the pairs ``i < j`` in lexicographic order. A certificate asserts
that a listed set ``L`` of sign vectors is exactly ``S(M)`` and proves it in three parts.

1. **Every listed vector is a cell.** Each comes with a rational point ``z``; the checker
   computes ``M z`` and compares its signs with the listed ones.
2. **Some orthants are empty.** A refutation of the sign vector ``s`` gives multipliers
   ``y >= 0``, not all zero, with ``sum_r y_r s_r M_r = 0``. If some ``z`` had
   ``s_r M_r z > 0`` for every ``r``, then ``0 = sum_r y_r s_r M_r z > 0``; so no cell has
   the sign vector ``s`` (the easy half of Gordan's theorem of the alternative).
3. **Nothing is missing.** Rows that are non-zero multiples of each other (positive or
   negative) lie on the same hyperplane; call such a set of rows a class. For every
   listed vector and every class, flipping the signs of that class must give a vector
   that is listed or refuted. Then ``L = S(M)``: a segment from a point of a listed cell
   to a point of any other cell can be chosen to meet the hyperplanes one at a time, so
   it passes through cells each of which differs from the previous one by the flip of
   one class. The first cell on it that is not listed would be the flip of a listed
   cell, neither listed nor (being a cell) refutable. This needs ``L`` non-empty; an
   empty ``S(M)`` is proven instead by a zero row of ``M``.

The claims ``lemma 5.3`` and ``theorem 5.6`` say ``S(C(M)) = S(M)`` for ``M = W`` (no
zero row) and ``M = B_n W`` (no two equal rows of ``W``), where the cosine matrix
``C(M)_ij = m_i . m_j / (|m_i| |m_j|)`` has entries in ``Q(sqrt 2, sqrt 3, ...)``. The
checker builds ``M`` and ``C(M)`` itself and runs parts 1-3 on both against the one
asserted list: over Q for ``M``, with exact sums of square roots (:class:`RootSum`) for
``C(M)``. Nothing else changes: witnesses and multipliers may be real, and the argument
of part 3 is about real points anyway.

Functions
---------
``check_certificate(obj) -> str``
    Check a parsed certificate; return a one-line summary or raise
    :class:`CertificateError` naming the failed assertion.
``check_pattern(M, patterns, evidence, numbers=RATIONALS, *, ncols=None) -> str``
    Parts 1-3 for an explicit matrix ``M``; reused by every claim built on patterns.
``SQUARE_ROOTS``
    The number domain of the cosine side of ``lemma 5.3`` / ``theorem 5.6``: exact
    sums ``sum_k q_k sqrt(r_k)`` (:class:`RootSum`), usable as ``numbers=`` above.
``main(argv) -> int``
    ``python -m verify check FILE...``: exit 0 if every file is valid, 1 if some
    certificate is invalid, 2 if some file is unreadable or not a known format.
"""

import json
import re
import sys
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from math import gcd, isqrt

__all__ = ["FORMAT", "CertificateError", "UnknownFormat", "RATIONALS", "SQUARE_ROOTS",
           "RootSum", "cosine_matrix", "check_certificate", "check_pattern",
           "parallel_classes", "load_certificate", "main"]

FORMAT = "verify-certificate/1"


class CertificateError(Exception):
    """The certificate does not prove its assertion; the message says which check failed."""


class UnknownFormat(CertificateError):
    """The document is not a certificate this checker knows how to read."""


# --- numbers ---------------------------------------------------------------------------

_NUMBER = re.compile(r"(-?)([0-9]+)(?:/([0-9]+))?", re.ASCII)


def _digits_to_int(digits: str) -> int:
    # int() refuses strings of more than 4300 digits (Python >= 3.11); read in chunks.
    value = 0
    for start in range(0, len(digits), 4000):
        chunk = digits[start:start + 4000]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


def _shown(value) -> str:
    """A JSON value for a one-line message, bounded in length."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Rationals:
    """The number domain of ``verify-certificate/1``: exact rationals.

    A number is a JSON *string* matching ``-?[0-9]+`` or ``-?[0-9]+/[0-9]+`` with a
    non-zero denominator. JSON numbers are refused: ``0.1`` in JSON is read by most
    tools as a binary float, so it has no place where exactness is the point.

    Another number domain (for example sums of square roots) can be passed to
    :func:`check_pattern` as any object with the same two methods whose values support
    ``+``, ``-`` and ``*`` with each other and with the integer 0.
    """

    @staticmethod
    def parse(value, where: str) -> Fraction:
        if not isinstance(value, str):
            raise CertificateError(f'{where}: a number must be a string such as "-3" or '
                                   f'"3/4", got {_shown(value)}')
        match = _NUMBER.fullmatch(value)
        if match is None:
            raise CertificateError(f"{where}: not an exact rational: {_shown(value)}")
        numerator = _digits_to_int(match[2])
        denominator = _digits_to_int(match[3]) if match[3] is not None else 1
        if denominator == 0:
            raise CertificateError(f"{where}: zero denominator: {_shown(value)}")
        return Fraction(-numerator if match[1] else numerator, denominator)

    @staticmethod
    def sign(x) -> int:
        return (x > 0) - (x < 0)


RATIONALS = Rationals()


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
                                   f'"-3/4*sqrt(2) + 1", got {_shown(value)}')
        terms, position = [], 0
        while position < len(value) or not terms:
            match = _ROOT_TERM.match(value, position)
            if match is None or (match[1] in ("", "-")) != (position == 0):
                raise CertificateError(f"{where}: not an exact sum of square roots: "
                                       f"{_shown(value)}")
            p, q, r = match[2] or "1", match[3] or "1", match[4] or match[5] or "1"
            p, q, r = _digits_to_int(p), _digits_to_int(q), _digits_to_int(r)
            if q == 0 or r == 0:
                raise CertificateError(f"{where}: zero denominator or radicand: "
                                       f"{_shown(value)}")
            terms.append((r, Fraction(-p if "-" in match[1] else p, q)))
            position = match.end()
        return RootSum(terms)

    @staticmethod
    def sign(x) -> int:
        return RootSum.of(x).sign()


SQUARE_ROOTS = SquareRoots()


# --- structure of the JSON document ----------------------------------------------------

def _object(value, where: str, keys) -> dict:
    """``value`` as a JSON object with exactly the given keys."""
    if not isinstance(value, dict):
        raise CertificateError(f"{where}: expected an object, got {_shown(value)}")
    missing = [key for key in keys if key not in value]
    extra = sorted(key for key in value if key not in keys)
    if missing or extra:
        parts = ([f"missing {', '.join(map(repr, missing))}"] if missing else []) + \
                ([f"unexpected {', '.join(map(repr, extra))}"] if extra else [])
        raise CertificateError(f"{where}: {'; '.join(parts)}")
    return value


def _list(value, where: str, length=None) -> list:
    if not isinstance(value, list):
        raise CertificateError(f"{where}: expected a list, got {_shown(value)}")
    if length is not None and len(value) != length:
        raise CertificateError(f"{where}: expected {length} entries, got {len(value)}")
    return value


def _index(value, where: str, size: int) -> int:
    """A JSON integer in ``range(size)`` (booleans are not integers here)."""
    if type(value) is not int or not 0 <= value < size:
        raise CertificateError(f"{where}: expected an integer from 0 to {size - 1}, "
                               f"got {_shown(value)}")
    return value


def _sign_strings(patterns, where: str, length: int) -> list:
    """Distinct strings over '+'/'-' of the given length, sorted in ASCII order."""
    _list(patterns, where)
    for k, signs in enumerate(patterns):
        if not isinstance(signs, str) or len(signs) != length or signs.strip("+-"):
            raise CertificateError(f"{where}[{k}]: expected a string of {length} "
                                   f"'+'/'-', got {_shown(signs)}")
        if k and patterns[k - 1] >= signs:
            raise CertificateError(f"{where}[{k}]: not after {patterns[k - 1]} in ASCII "
                                   "order (the list must be sorted, without repeats)")
    return patterns


# --- the pattern check -----------------------------------------------------------------

def _sign_char(s: int) -> str:
    return "+" if s > 0 else "-" if s < 0 else "0"


def parallel_classes(M, numbers=RATIONALS):
    """Classes of non-zero rows of ``M`` that are non-zero multiples of each other.

    Returns ``(class_of, classes)``: ``classes`` lists the row indices of each class in
    increasing order, classes ordered by their first row; ``class_of[r]`` is the class
    of row ``r`` (``None`` for a zero row). A row ``a`` is a multiple of ``b``, whose
    first non-zero entry is at ``p``, iff ``a_p != 0`` and ``a_j b_p = b_j a_p`` for
    every ``j`` (then ``a = (a_p / b_p) b``).
    """
    class_of, classes, representatives = [None] * len(M), [], []
    for r, row in enumerate(M):
        if not any(numbers.sign(a) for a in row):
            continue
        for c, (b, p) in enumerate(representatives):
            if numbers.sign(row[p]) and not any(
                    numbers.sign(a * b[p] - bj * row[p]) for a, bj in zip(row, b)):
                class_of[r] = c
                classes[c].append(r)
                break
        else:
            class_of[r] = len(classes)
            classes.append([r])
            representatives.append((row, next(j for j, a in enumerate(row)
                                              if numbers.sign(a))))
    return class_of, classes


def _flip(signs: str, rows) -> str:
    chars = list(signs)
    for r in rows:
        chars[r] = "-" if chars[r] == "+" else "+"
    return "".join(chars)


def _rows_text(rows) -> str:
    return f"row {rows[0]}" if len(rows) == 1 else f"rows {', '.join(map(str, rows))}"


def check_pattern(M, patterns, evidence, numbers=RATIONALS, *, ncols=None) -> str:
    """Check that ``patterns`` is exactly the sign pattern of ``M``, as ``evidence`` says.

    ``M`` is a list of rows of numbers of the domain ``numbers``; ``ncols`` (the length
    of a witness) is needed only when ``M`` has no rows. ``evidence`` is the JSON object
    ``{"cells": [...], "refutations": [...]}``, or ``{"zero_row": i}`` for an empty
    pattern. Returns a summary such as ``"20 cells, complete"``.
    """
    N = len(M)
    k = len(M[0]) if N else ncols
    _sign_strings(patterns, "assertion.patterns", N)
    if isinstance(evidence, dict) and "zero_row" in evidence:
        _object(evidence, "evidence", ("zero_row",))
        i = _index(evidence["zero_row"], "evidence.zero_row", N)
        if any(numbers.sign(a) for a in M[i]):
            raise CertificateError(f"evidence.zero_row: row {i} of M is not zero")
        if patterns:
            raise CertificateError(f"row {i} of M is zero, so the pattern is empty, but "
                                   f"{len(patterns)} sign vectors are listed")
        return f"0 cells, empty: row {i} of M is zero"
    _object(evidence, "evidence", ("cells", "refutations"))
    if not patterns:
        raise CertificateError("an empty pattern needs the evidence zero_row")

    # 1. Every listed sign vector is a cell: its witness z has sign(M z) = signs.
    cells = _list(evidence["cells"], "evidence.cells", len(patterns))
    for c, (cell, signs) in enumerate(zip(cells, patterns)):
        _object(cell, f"cell {c}", ("signs", "witness"))
        if cell["signs"] != signs:
            raise CertificateError(f"cell {c}: signs {_shown(cell['signs'])} differ from "
                                   f"assertion.patterns[{c}] {signs}")
        witness = _list(cell["witness"], f"cell {c}: witness", k)
        z = [numbers.parse(x, f"cell {c}: witness[{j}]") for j, x in enumerate(witness)]
        got = "".join(_sign_char(numbers.sign(sum(a * b for a, b in zip(row, z))))
                      for row in M)
        if got != signs:
            raise CertificateError(f"cell {c}: witness gives sign vector {got}, "
                                   f"listed {signs}")

    # 2. Refuted sign vectors: y >= 0, y != 0, sum_r y_r s_r M_r = 0 for the flipped s.
    class_of, classes = parallel_classes(M, numbers)
    refuted = set()
    for t, refutation in enumerate(_list(evidence["refutations"], "evidence.refutations")):
        where = f"refutation {t}"
        _object(refutation, where, ("cell", "row", "multipliers"))
        c = _index(refutation["cell"], f"{where}: cell", len(patterns))
        i = _index(refutation["row"], f"{where}: row", N)
        if class_of[i] is None:
            raise CertificateError(f"{where}: row {i} of M is zero")
        flipped = _flip(patterns[c], classes[class_of[i]])
        where = f"{where} (cell {c} flipped at {_rows_text(classes[class_of[i]])})"
        pairs = _list(refutation["multipliers"], f"{where}: multipliers")
        if not pairs:
            raise CertificateError(f"{where}: no multipliers")
        total, seen, nonzero = [0] * k, set(), False
        for m, pair in enumerate(pairs):
            _list(pair, f"{where}: multipliers[{m}]", 2)
            r = _index(pair[0], f"{where}: multipliers[{m}] row", N)
            y = numbers.parse(pair[1], f"{where}: multipliers[{m}] value")
            if r in seen or numbers.sign(y) < 0:
                raise CertificateError(f"{where}: multipliers[{m}]: row {r} "
                                       + ("repeated" if r in seen else "has y < 0"))
            seen.add(r)
            nonzero = nonzero or numbers.sign(y) != 0
            sy = y if flipped[r] == "+" else -y  # y_r s'_r
            total = [acc + sy * a for acc, a in zip(total, M[r])]
        if not nonzero:
            raise CertificateError(f"{where}: every multiplier is zero")
        if any(numbers.sign(v) for v in total):
            raise CertificateError(f"{where}: sum_r y_r s_r M_r = "
                                   f"({', '.join(str(v) for v in total)}), not 0")
        refuted.add(flipped)

    # 3. Completeness: every flip of a listed cell across one class is listed or refuted.
    listed = set(patterns)
    for c, signs in enumerate(patterns):
        for rows in classes:
            flipped = _flip(signs, rows)
            if flipped not in listed and flipped not in refuted:
                raise CertificateError(f"incomplete: cell {c} ({signs}) flipped at "
                                       f"{_rows_text(rows)} gives {flipped}, which is "
                                       "neither listed nor refuted")
    return f"{len(patterns)} cell{'s' if len(patterns) != 1 else ''}, complete"


# --- claims ----------------------------------------------------------------------------

def _input_matrix(W) -> list:
    """``input.W``: a non-empty matrix of rationals with rows of equal length."""
    W = _list(W, "input.W")
    if not W:
        raise CertificateError("input.W: the matrix has no rows")
    rows = [[RATIONALS.parse(x, f"input.W[{i}][{j}]")
             for j, x in enumerate(_list(row, f"input.W[{i}]"))] for i, row in enumerate(W)]
    if not rows[0] or any(len(row) != len(rows[0]) for row in rows):
        raise CertificateError("input.W: rows must be non-empty and of equal length")
    return rows


def _input_rows(document) -> list:
    """The rows ``v_i`` of ``W``, or of ``[1 | W]`` when ``affine`` is true."""
    _object(document, "input", ("W", "affine"))
    rows = _input_matrix(document["W"])
    if not isinstance(document["affine"], bool):
        raise CertificateError(f"input.affine: expected true or false, "
                               f"got {_shown(document['affine'])}")
    return [[Fraction(1)] + row for row in rows] if document["affine"] else rows


def _check_count(assertion) -> None:
    if type(assertion["count"]) is not int or assertion["count"] != len(assertion["patterns"]):
        raise CertificateError(f"assertion.count: {_shown(assertion['count'])} is not the "
                               f"number of patterns ({len(assertion['patterns'])})")


def _check_sign_pattern(document, assertion, evidence) -> str:
    M = _input_rows(document)
    _object(assertion, "assertion", ("count", "patterns"))
    _list(assertion["patterns"], "assertion.patterns")
    _check_count(assertion)
    return "sign pattern, " + check_pattern(M, assertion["patterns"], evidence)


def _check_ranking_pattern(document, assertion, evidence) -> str:
    V = _input_rows(document)
    n = len(V)
    pairs = list(combinations(range(n), 2))
    M = [[a - b for a, b in zip(V[i], V[j])] for i, j in pairs]  # the rows of B_n V
    _object(assertion, "assertion", ("count", "patterns", "rankings"))
    patterns = _sign_strings(assertion["patterns"], "assertion.patterns", len(pairs))
    _check_count(assertion)
    rankings = _list(assertion["rankings"], "assertion.rankings", len(patterns))
    for k, (ranking, signs) in enumerate(zip(rankings, patterns)):
        where = f"assertion.rankings[{k}]"
        _list(ranking, where, n)
        if sorted(_index(label, where, n) for label in ranking) != list(range(n)):
            raise CertificateError(f"{where}: not an ordering of the labels 0..{n - 1}")
        position = {label: p for p, label in enumerate(ranking)}
        encoded = "".join("+" if position[i] < position[j] else "-" for i, j in pairs)
        if encoded != signs:
            raise CertificateError(f"{where}: {' > '.join(map(str, ranking))} has signs "
                                   f"{encoded}, assertion.patterns[{k}] is {signs}")
    summary = check_pattern(M, patterns, evidence, ncols=len(V[0]))
    if not patterns:  # the zero row of B_n V is a pair of equal labels
        i, j = pairs[evidence["zero_row"]]
        summary = f"0 cells, empty: labels {i} and {j} have equal rows"
    return "ranking pattern, " + summary


def cosine_matrix(M) -> list:
    """``C(M)`` from its definition, ``C_ij = (m_i . m_j) / sqrt(|m_i|^2 |m_j|^2)``.

    For rational rows with ``|m_i|^2 |m_j|^2 = a / b`` in lowest terms,
    ``1 / sqrt(a / b) = sqrt(a b) / a``, so every entry is one term ``(g / a) sqrt(a b)``
    with ``g = m_i . m_j`` (folded to a rational when ``a b`` is a perfect square, as on
    the diagonal). The rows must be non-zero.
    """
    squares = [sum(a * a for a in m) for m in M]
    C = []
    for m, u in zip(M, squares):
        C.append([])
        for m2, u2 in zip(M, squares):
            n = u * u2
            C[-1].append(RootSum([(n.numerator * n.denominator,
                                   sum(a * b for a, b in zip(m, m2)) / n.numerator)]))
    return C


def _check_cosine_claim(claim: str, document, assertion, evidence) -> str:
    """``lemma 5.3``: ``S(C(W)) = S(W)`` for ``W`` without zero rows; ``theorem 5.6``:
    ``S(C(B_n W)) = R(W) = S(B_n W)`` for ``W`` without equal rows. Both are checked on
    ``M = W`` or ``M = B_n W`` by proving the one asserted list to be ``S(M)`` (rational
    evidence) and to be ``S(C(M))`` (evidence over ``Q(sqrt ...)``, for the ``C`` built
    here)."""
    _object(document, "input", ("W",))
    W = _input_matrix(document["W"])
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
        M = [[a - b for a, b in zip(W[i], W[j])] for i, j in pairs]  # the rows of B_n W
        shown = "S(C(B_n W)) = R(W)"
    _object(assertion, "assertion", ("count", "patterns", "equal"))
    patterns = _sign_strings(assertion["patterns"], "assertion.patterns", len(M))
    _check_count(assertion)
    if assertion["equal"] is not True:
        raise CertificateError(f"assertion.equal: expected true, got "
                               f"{_shown(assertion['equal'])}")
    _object(evidence, "evidence", ("matrix", "cosine"))
    for side, matrix, numbers, ncols in [("matrix", M, RATIONALS, len(W[0])),
                                         ("cosine", cosine_matrix(M), SQUARE_ROOTS, len(M))]:
        try:
            summary = check_pattern(matrix, patterns, evidence[side], numbers, ncols=ncols)
        except CertificateError as error:
            raise CertificateError(f"evidence.{side}: {error}") from None
    return f"{claim}, {shown}: {summary} on both sides"


#: The claims this checker knows, by the value of the top-level key ``claim``.
CLAIMS = {
    "sign pattern": _check_sign_pattern,
    "ranking pattern": _check_ranking_pattern,
    "lemma 5.3": lambda *parts: _check_cosine_claim("lemma 5.3", *parts),
    "theorem 5.6": lambda *parts: _check_cosine_claim("theorem 5.6", *parts),
}


def check_certificate(obj) -> str:
    """Check a parsed certificate; return a one-line summary of what it proves.

    Raises :class:`UnknownFormat` for a document that is not a ``verify-certificate/1``
    certificate of a known claim, and :class:`CertificateError` for any failed check.
    """
    if not isinstance(obj, dict):
        raise UnknownFormat("not a certificate: the document is not a JSON object")
    if obj.get("format") != FORMAT:
        raise UnknownFormat(f"unknown format {_shown(obj.get('format'))} "
                            f"(this checker reads {FORMAT!r})")
    claim = obj.get("claim")
    if not isinstance(claim, str) or claim not in CLAIMS:
        raise UnknownFormat(f"unknown claim {_shown(claim)} (known: "
                            f"{', '.join(map(repr, CLAIMS))})")
    _object(obj, "certificate", ("format", "claim", "input", "assertion", "evidence"))
    return CLAIMS[claim](obj["input"], obj["assertion"], obj["evidence"])


# --- files and the command line --------------------------------------------------------

def _unique_keys(pairs) -> dict:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"duplicate key {next(k for k in keys if keys.count(k) > 1)!r}")
    return dict(pairs)


def _no_constant(name):
    raise ValueError(f"{name} is not a JSON value")


def load_certificate(path):
    """Parse the JSON file at ``path`` (UTF-8), refusing duplicate keys and NaN/Infinity.

    Raises ``OSError``/``UnicodeError`` if the file cannot be read, ``ValueError`` (or
    ``RecursionError``) if it is not JSON.
    """
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)


USAGE = ("usage: python -m verify check FILE...\n"
         "Check verify-certificate/1 files with the standard library alone. Exit status: "
         "0 if every file is valid, 1 if a certificate is invalid, 2 if a file cannot be "
         "read or is not a known format.")


def main(argv) -> int:
    """Check every file in ``argv``; one line per file; the exit status described above."""
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    status = 0
    for path in argv:
        try:
            obj = load_certificate(path)
        except OSError as exc:
            print(f"{path}: ERROR: cannot read: {exc.strerror or exc}", file=sys.stderr)
            status = 2
            continue
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            print(f"{path}: ERROR: not JSON: {reason}", file=sys.stderr)
            status = 2
            continue
        try:
            summary = check_certificate(obj)
        except UnknownFormat as exc:
            print(f"{path}: ERROR: {exc}", file=sys.stderr)
            status = 2
        except CertificateError as exc:
            print(f"{path}: INVALID: {exc}", file=sys.stderr)
            status = max(status, 1)
        else:
            print(f"{path}: OK ({summary})")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
