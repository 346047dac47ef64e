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

The counterexample claims are built from the same parts. ``theorem H.1`` (the sign
pattern of a point configuration does not determine its ranking pattern): one list is
proven to be both ``S([1|A])`` and ``S([1|B])``; ``R(A)`` and ``R(B)`` are proven
complete, and the asserted rankings only in ``R(A)`` and only in ``R(B)`` must be
exactly the two set differences, not both empty. ``theorem 5.5`` (the cosine matrix
does not determine the ranking pattern): ``C(W1) = C(W2)`` entry by entry, for rows
over ``Q(sqrt ...)``, and then either a ranking of ``R(W1)`` putting a label first
(a witness) while part 2 shows that no input puts it first for ``W2``, or complete
``R(W1)``, ``R(W2)`` that differ.

Functions
---------
``check_certificate(obj) -> str``
    Check a parsed certificate; return a one-line summary or raise
    :class:`CertificateError` naming the failed assertion.
``check_pattern(M, patterns, evidence, numbers=RATIONALS, *, ncols=None) -> str``
    Parts 1-3 for an explicit matrix ``M``; reused by every claim built on patterns.
``SQUARE_ROOTS``
    The number domain of the cosine side of ``lemma 5.3`` / ``theorem 5.6`` and of
    ``theorem 5.5``: exact sums ``sum_k q_k sqrt(r_k)`` (:class:`RootSum`), usable as
    ``numbers=`` above.
``cosine_matrix(M) -> list``
    ``C(M)`` from its definition, for rows over Q or over ``Q(sqrt ...)``.
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


def _check_witness(M, signs: str, witness, numbers, where: str, k: int) -> None:
    """``witness`` is a point ``z`` (``k`` numbers) with ``sign(M z) = signs``: no zero."""
    z = [numbers.parse(x, f"{where}: witness[{j}]")
         for j, x in enumerate(_list(witness, f"{where}: witness", k))]
    got = "".join(_sign_char(numbers.sign(sum(a * b for a, b in zip(row, z))))
                  for row in M)
    if got != signs:
        raise CertificateError(f"{where}: witness gives sign vector {got}, "
                               f"listed {signs}")


def _check_multipliers(M, signs: str, pairs, numbers, where: str, k: int) -> None:
    """Gordan multipliers proving that no ``z`` has ``s_r M_r z > 0`` for every row ``r``.

    ``pairs`` lists ``[r, y]`` with distinct rows ``r``, ``y >= 0`` not all zero, and
    ``sum_r y_r s_r M_r = 0`` (``k`` coordinates); such a ``z`` would give
    ``0 = sum_r y_r (s_r M_r z) > 0``. Rows with ``M[r] = None`` are not part of the
    system and may not carry a multiplier.
    """
    pairs = _list(pairs, f"{where}: multipliers")
    if not pairs:
        raise CertificateError(f"{where}: no multipliers")
    total, seen, nonzero = [0] * k, set(), False
    for m, pair in enumerate(pairs):
        _list(pair, f"{where}: multipliers[{m}]", 2)
        r = _index(pair[0], f"{where}: multipliers[{m}] row", len(M))
        y = numbers.parse(pair[1], f"{where}: multipliers[{m}] value")
        problem = ("repeated" if r in seen else "has y < 0" if numbers.sign(y) < 0
                   else "is not a row of this system" if M[r] is None else None)
        if problem:
            raise CertificateError(f"{where}: multipliers[{m}]: row {r} {problem}")
        seen.add(r)
        nonzero = nonzero or numbers.sign(y) != 0
        sy = y if signs[r] == "+" else -y  # y_r s_r
        total = [acc + sy * a for acc, a in zip(total, M[r])]
    if not nonzero:
        raise CertificateError(f"{where}: every multiplier is zero")
    if any(numbers.sign(v) for v in total):
        raise CertificateError(f"{where}: sum_r y_r s_r M_r = "
                               f"({', '.join(str(v) for v in total)}), not 0")


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
        _check_witness(M, signs, cell["witness"], numbers, f"cell {c}", k)

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
        _check_multipliers(M, flipped, refutation["multipliers"], numbers, where, k)
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

def _within(where: str, check, *args, **options):
    """``check(*args, **options)``, its errors prefixed with ``where``."""
    try:
        return check(*args, **options)
    except CertificateError as error:
        raise CertificateError(f"{where}: {error}") from None


def _input_matrix(W, where: str = "input.W", numbers=RATIONALS) -> list:
    """A non-empty matrix of numbers with rows of equal length (``input.W`` by default)."""
    W = _list(W, where)
    if not W:
        raise CertificateError(f"{where}: the matrix has no rows")
    rows = [[numbers.parse(x, f"{where}[{i}][{j}]")
             for j, x in enumerate(_list(row, f"{where}[{i}]"))] for i, row in enumerate(W)]
    if not rows[0] or any(len(row) != len(rows[0]) for row in rows):
        raise CertificateError(f"{where}: rows must be non-empty and of equal length")
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


def _braid(V) -> list:
    """``B_n V``: the rows ``v_i - v_j`` for the pairs ``i < j`` in lexicographic order."""
    return [[a - b for a, b in zip(V[i], V[j])] for i, j in combinations(range(len(V)), 2)]


def _ranking_signs(ranking, n: int, where: str) -> str:
    """The sign vector over the pairs ``i < j`` of a ranking (labels, highest first)."""
    _list(ranking, where, n)
    if sorted(_index(label, where, n) for label in ranking) != list(range(n)):
        raise CertificateError(f"{where}: not an ordering of the labels 0..{n - 1}")
    position = {label: p for p, label in enumerate(ranking)}
    return "".join("+" if position[i] < position[j] else "-"
                   for i, j in combinations(range(n), 2))


def _check_ranking_pattern(document, assertion, evidence) -> str:
    V = _input_rows(document)
    n = len(V)
    pairs = list(combinations(range(n), 2))
    M = _braid(V)
    _object(assertion, "assertion", ("count", "patterns", "rankings"))
    patterns = _sign_strings(assertion["patterns"], "assertion.patterns", len(pairs))
    _check_count(assertion)
    rankings = _list(assertion["rankings"], "assertion.rankings", len(patterns))
    for k, (ranking, signs) in enumerate(zip(rankings, patterns)):
        where = f"assertion.rankings[{k}]"
        encoded = _ranking_signs(ranking, n, where)
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
        M = _braid(W)
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
        summary = _within(f"evidence.{side}", check_pattern, matrix, patterns,
                          evidence[side], numbers, ncols=ncols)
    return f"{claim}, {shown}: {summary} on both sides"


def _complete_pattern(M, evidence, where: str, numbers=RATIONALS, ncols=None) -> set:
    """The sign pattern of ``M`` proven complete by ``evidence``: its cells' signs."""
    patterns = []
    if isinstance(evidence, dict) and "cells" in evidence:
        cells = _list(evidence["cells"], f"{where}.cells")
        patterns = [_object(cell, f"{where}.cells[{c}]", ("signs", "witness"))["signs"]
                    for c, cell in enumerate(cells)]
        _sign_strings(patterns, f"{where}.cells: signs", len(M))
    _within(where, check_pattern, M, patterns, evidence, numbers, ncols=ncols)
    return set(patterns)


def _ranking_text(signs: str, n: int) -> str:
    """``"2 > 0 > 1"``: the labels of a ranking's sign vector from highest to lowest."""
    wins = [0] * n
    for (i, j), s in zip(combinations(range(n), 2), signs):
        wins[i if s == "+" else j] += 1
    return " > ".join(map(str, sorted(range(n), key=lambda i: -wins[i])))


def _check_differences(names, V, R, assertion, proofs=None, numbers=RATIONALS) -> list:
    """``assertion.only_in_X`` must be exactly the set difference ``R(X) - R(Y)``, sorted,
    for ``(X, Y)`` the two ``names`` either way round (``V``: the matrices; ``R``: their
    complete ranking patterns). ``proofs`` (the evidence object, if given) holds a
    direct proof of each listed ranking in ``only_in_X``: a witness ``x`` with
    ``sign(B_n X x)`` the ranking, and Gordan multipliers on the rows of ``B_n Y`` with
    the ranking's signs. Returns the two counts."""
    counts = []
    for this, other in (names, names[::-1]):
        where, n = f"assertion.only_in_{this}", len(V[this])
        listed = _list(assertion[f"only_in_{this}"], where)
        signs = [_ranking_signs(r, n, f"{where}[{k}]") for k, r in enumerate(listed)]
        if listed != sorted(listed) or len(set(signs)) != len(signs):
            raise CertificateError(f"{where}: not sorted, or a ranking is repeated")
        wrong = next((s for s in signs if s not in R[this] or s in R[other]), None)
        missing = sorted(R[this] - R[other] - set(signs))
        if wrong or missing:
            raise CertificateError(f"{where}: {_ranking_text(wrong or missing[0], n)} is "
                                   + (f"not in R({this}) \\ R({other})" if wrong else
                                      f"in R({this}) \\ R({other}) but not listed"))
        if proofs is not None:
            at = f"evidence.only_in_{this}"
            for k, (s, proof) in enumerate(zip(signs, _list(proofs[f"only_in_{this}"], at,
                                                            len(signs)))):
                _object(proof, f"{at}[{k}]", ("witness", "multipliers"))
                _check_witness(_braid(V[this]), s, proof["witness"], numbers,
                               f"{at}[{k}]", len(V[this][0]))
                _check_multipliers(_braid(V[other]), s, proof["multipliers"], numbers,
                                   f"{at}[{k}]", len(V[other][0]))
        counts.append(len(signs))
    if not any(counts):
        raise CertificateError(f"R({names[0]}) = R({names[1]}): no ranking is feasible "
                               "for one and not for the other")
    return counts


def _chirotope(V) -> list:
    """Signs of the maximal minors ``det V[I]`` over the row sets ``I`` (lexicographic),
    by exact Gaussian elimination."""
    signs = []
    for rows in combinations(V, len(V[0])):
        a, det = [list(row) for row in rows], Fraction(1)
        for c in range(len(a)):
            p = next((r for r in range(c, len(a)) if a[r][c]), None)
            if p is None:
                det = Fraction(0)
                break
            a[c], a[p], det = a[p], a[c], det if p == c else -det
            det *= a[c][c]
            for r in range(c + 1, len(a)):
                f = a[r][c] / a[c][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
        signs.append(RATIONALS.sign(det))
    return signs


def _check_theorem_h1(document, assertion, evidence) -> str:
    """Theorem H.1: the sign pattern of a point configuration does not determine its
    ranking pattern. For the point sets ``A`` and ``B`` (rows): ``S([1|A]) = S([1|B])``
    (one asserted list, proven complete for both), so their chirotopes (signs of the
    maximal minors) agree up to a global sign, which is recomputed; ``R(A)`` and
    ``R(B)`` are proven complete, and the asserted ``only_in_A`` / ``only_in_B`` are
    exactly their differences, not both empty, each ranking with a direct proof."""
    _object(document, "input", ("A", "B"))
    V = {key: _input_matrix(document[key], f"input.{key}") for key in "AB"}
    if len(V["A"]) != len(V["B"]) or len(V["A"][0]) != len(V["B"][0]):
        raise CertificateError("input: A and B must have the same number of points "
                               "and the same dimension")
    _object(assertion, "assertion", ("count", "patterns", "only_in_A", "only_in_B"))
    patterns = _sign_strings(assertion["patterns"], "assertion.patterns", len(V["A"]))
    _check_count(assertion)
    _object(evidence, "evidence", ("sign_A", "sign_B", "ranking_A", "ranking_B",
                                   "only_in_A", "only_in_B"))
    ones = {key: [[Fraction(1)] + row for row in W] for key, W in V.items()}
    for key in "AB":
        _within(f"evidence.sign_{key}", check_pattern, ones[key], patterns,
                evidence[f"sign_{key}"])
    chi_a, chi_b = _chirotope(ones["A"]), _chirotope(ones["B"])
    if chi_b != chi_a and chi_b != [-s for s in chi_a]:
        raise CertificateError("the chirotopes of [1|A] and [1|B] differ by more than "
                               "a global sign")
    R = {key: _complete_pattern(_braid(W), evidence[f"ranking_{key}"],
                                f"evidence.ranking_{key}", ncols=len(W[0]))
         for key, W in V.items()}
    a, b = _check_differences("AB", V, R, assertion, evidence)
    return (f"theorem H.1, S([1|A]) = S([1|B]) ({len(patterns)} sign vectors, chirotopes "
            f"equal up to sign) but R(A) != R(B): {a} of {len(R['A'])} rankings only in "
            f"R(A), {b} of {len(R['B'])} only in R(B)")


def _check_theorem_55(document, assertion, evidence) -> str:
    """Theorem 5.5: the cosine matrix does not determine the ranking pattern. For ``W1``
    and ``W2`` over ``Q(sqrt ...)``: ``C(W1) = C(W2)`` entry by entry, computed here,
    and ``R(W1) != R(W2)``. With ``label``: the listed rankings of ``R(W1)`` put the
    label first (witnesses), and no input puts it first for ``W2``: ``y >= 0``, not
    all zero, with ``sum_k y_k (w_label - w_k) = 0`` over ``W2``. Without: ``R(W1)``
    and ``R(W2)`` are proven complete and ``only_in_W1`` / ``only_in_W2`` are exactly
    their differences, not both empty."""
    _object(document, "input", ("W1", "W2", "label"))
    V = {key: _input_matrix(document[key], f"input.{key}", SQUARE_ROOTS)
         for key in ("W1", "W2")}
    n, label = len(V["W1"]), document["label"]
    if len(V["W2"]) != n:
        raise CertificateError("input: W1 and W2 must have the same number of rows")
    if label is not None:
        _index(label, "input.label", n)
    C1, C2 = (_within(f"input.{key}", cosine_matrix, V[key]) for key in ("W1", "W2"))
    for i, j in ((i, j) for i in range(n) for j in range(n)):
        if (C1[i][j] - C2[i][j]).terms:
            raise CertificateError(f"C(W1) != C(W2): entry ({i}, {j}) is {C1[i][j]} "
                                   f"for W1 and {C2[i][j]} for W2")
    keys = ("cosines_equal",) + (("only_in_W1", "only_in_W2") if label is None
                                 else ("first_in_W1",))
    _object(assertion, "assertion", keys)
    if assertion["cosines_equal"] is not True:
        raise CertificateError(f"assertion.cosines_equal: expected true, got "
                               f"{_shown(assertion['cosines_equal'])}")
    d1, d2 = len(V["W1"][0]), len(V["W2"][0])
    if label is None:
        _object(evidence, "evidence", ("ranking_W1", "ranking_W2"))
        R = {key: _complete_pattern(_braid(W), evidence[f"ranking_{key}"],
                                    f"evidence.ranking_{key}", SQUARE_ROOTS, len(W[0]))
             for key, W in V.items()}
        a, b = _check_differences(("W1", "W2"), V, R, assertion, numbers=SQUARE_ROOTS)
        return (f"theorem 5.5, C(W1) = C(W2) but R(W1) != R(W2): {a} of {len(R['W1'])} "
                f"rankings only in R(W1), {b} of {len(R['W2'])} only in R(W2)")
    _object(evidence, "evidence", ("witnesses", "multipliers"))
    first = _list(assertion["first_in_W1"], "assertion.first_in_W1")
    signs = [_ranking_signs(r, n, f"assertion.first_in_W1[{k}]")
             for k, r in enumerate(first)]
    if not first or first != sorted(first) or len(set(signs)) != len(signs):
        raise CertificateError("assertion.first_in_W1: empty, not sorted, or a ranking "
                               "is repeated")
    witnesses = _list(evidence["witnesses"], "evidence.witnesses", len(first))
    for k, (ranking, s, witness) in enumerate(zip(first, signs, witnesses)):
        if ranking[0] != label:
            raise CertificateError(f"assertion.first_in_W1[{k}]: does not rank label "
                                   f"{label} first")
        _check_witness(_braid(V["W1"]), s, witness, SQUARE_ROOTS,
                       f"evidence.witnesses[{k}]", d1)
    w = V["W2"][label]
    M = [None if k == label else [a - b for a, b in zip(w, row)]
         for k, row in enumerate(V["W2"])]  # rows w_label - w_k of W2
    _check_multipliers(M, "+" * n, evidence["multipliers"], SQUARE_ROOTS,
                       "evidence", d2)
    return (f"theorem 5.5, C(W1) = C(W2) but R(W1) != R(W2): label {label} is first in "
            f"{len(first)} rankings of R(W1) and in none of R(W2)")


#: The claims this checker knows, by the value of the top-level key ``claim``.
CLAIMS = {
    "sign pattern": _check_sign_pattern,
    "ranking pattern": _check_ranking_pattern,
    "lemma 5.3": lambda *parts: _check_cosine_claim("lemma 5.3", *parts),
    "theorem 5.6": lambda *parts: _check_cosine_claim("theorem 5.6", *parts),
    "theorem 5.5": _check_theorem_55,
    "theorem H.1": _check_theorem_h1,
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
