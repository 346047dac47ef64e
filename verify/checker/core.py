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

``theorem H.1`` (the sign pattern of a point configuration does not determine its
ranking pattern) is built from the same parts: one list is proven to be both
``S([1|A])`` and ``S([1|B])``; ``R(A)`` and ``R(B)`` are proven complete, and the
asserted rankings only in ``R(A)`` and only in ``R(B)`` must be exactly the two set
differences, not both empty.

Everything else lives in two more standard-library-only modules, imported only when a
certificate needs them (``ELSEWHERE``): ``checker/roots.py`` (exact sums of square
roots; the cosine claims ``lemma 5.3`` / ``theorem 5.6`` on one matrix, where parts 1-3
run on ``M`` and on ``C(M)`` against one asserted list; ``theorem 5.5``) and
``checker/claims.py`` (instance certificates of the other claims, and sweeps). A
reviewer of a sign- or ranking-pattern certificate needs to read this file only.

Functions
---------
``check_certificate(obj) -> str``
    Check a parsed certificate; return a one-line summary or raise
    :class:`CertificateError` naming the failed assertion.
``check_pattern(M, patterns, evidence, numbers=RATIONALS, *, ncols=None) -> str``
    Parts 1-3 for an explicit matrix ``M``; reused by every claim built on patterns.
``main(argv) -> int``
    ``python -m verify check FILE...``: exit 0 if every file is valid, 1 if some
    certificate is invalid, 2 if some file is unreadable or not a known format.
"""

import json
import os
import re
import stat
import sys
import zipfile
from fractions import Fraction
from importlib import import_module
from itertools import combinations

__all__ = ["FORMAT", "CertificateError", "UnknownFormat", "RATIONALS",
           "check_certificate", "check_pattern", "parallel_classes", "load_certificate",
           "parse_json", "check_file", "streamed_checker", "main", "shown_number",
           "file_problem",
           # the parts that verify.checker.roots and verify.checker.claims build on
           "braid", "check_count", "check_differences", "check_multipliers",
           "check_sign_pattern", "check_witness", "complete_pattern", "digits_to_int",
           "input_matrix", "json_index", "json_list", "json_object", "ranking_signs",
           "shown_json", "sign_strings", "within"]

FORMAT = "verify-certificate/1"


class CertificateError(Exception):
    """The certificate does not prove its assertion; the message says which check failed."""


class UnknownFormat(CertificateError):
    """The document is not a certificate this checker knows how to read."""


# --- numbers ---------------------------------------------------------------------------

_NUMBER = re.compile(r"(-?)([0-9]+)(?:/([0-9]+))?", re.ASCII)


def digits_to_int(digits: str) -> int:
    # int() refuses strings of more than 4300 digits (Python >= 3.11); read in chunks.
    value = 0
    for start in range(0, len(digits), 4000):
        chunk = digits[start:start + 4000]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


def shown_json(value) -> str:
    """A JSON value for a one-line message, bounded in length."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


#: Integers up to this many bits are written out in messages; larger ones by their size.
SHOWN_BITS = 200


def _digits(n: int) -> int:
    """The number of decimal digits of ``n != 0``, without converting it to a string
    (Python refuses to convert integers of more than 4300 digits)."""
    n = abs(n)
    k = max(1, (n.bit_length() - 1) * 30103 // 100000 + 1)  # log10(2) ~ 0.30103
    while n >= 10 ** k:
        k += 1
    while k > 1 and n < 10 ** (k - 1):
        k -= 1
    return k


def _shown_integer(n: int) -> str:
    if n.bit_length() <= SHOWN_BITS:
        return str(n)
    return f"a {'negative ' if n < 0 else ''}{_digits(n):,}-digit integer"


def shown_number(x) -> str:
    """An exact number for a one-line message: written out if it is small, otherwise
    described by its size (``"a 1,000,000-digit integer"``), so that a huge number in
    a certificate can neither flood the message nor fail to convert."""
    if isinstance(x, int):
        return _shown_integer(x)
    numerator, denominator = getattr(x, "numerator", None), getattr(x, "denominator", None)
    if isinstance(numerator, int) and isinstance(denominator, int):
        if denominator == 1:
            return _shown_integer(numerator)
        return f"{_shown_integer(numerator)}/{_shown_integer(denominator)}"
    text = str(x)  # another number domain: bounded like any other shown value
    return text if len(text) <= 60 else text[:57] + "..."


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
                                   f'"3/4", got {shown_json(value)}')
        match = _NUMBER.fullmatch(value)
        if match is None:
            raise CertificateError(f"{where}: not an exact rational: {shown_json(value)}")
        numerator = digits_to_int(match[2])
        denominator = digits_to_int(match[3]) if match[3] is not None else 1
        if denominator == 0:
            raise CertificateError(f"{where}: zero denominator: {shown_json(value)}")
        return Fraction(-numerator if match[1] else numerator, denominator)

    @staticmethod
    def sign(x) -> int:
        return (x > 0) - (x < 0)


RATIONALS = Rationals()


# --- structure of the JSON document ----------------------------------------------------

def json_object(value, where: str, keys) -> dict:
    """``value`` as a JSON object with exactly the given keys."""
    if not isinstance(value, dict):
        raise CertificateError(f"{where}: expected an object, got {shown_json(value)}")
    missing = [key for key in keys if key not in value]
    extra = sorted(key for key in value if key not in keys)
    if missing or extra:
        parts = ([f"missing {', '.join(map(repr, missing))}"] if missing else []) + \
                ([f"unexpected {', '.join(map(repr, extra))}"] if extra else [])
        raise CertificateError(f"{where}: {'; '.join(parts)}")
    return value


def json_list(value, where: str, length=None) -> list:
    if not isinstance(value, list):
        raise CertificateError(f"{where}: expected a list, got {shown_json(value)}")
    if length is not None and len(value) != length:
        raise CertificateError(f"{where}: expected {length} entries, got {len(value)}")
    return value


def json_index(value, where: str, size: int) -> int:
    """A JSON integer in ``range(size)`` (booleans are not integers here)."""
    if type(value) is not int or not 0 <= value < size:
        raise CertificateError(f"{where}: expected an integer from 0 to {size - 1}, "
                               f"got {shown_json(value)}")
    return value


def sign_strings(patterns, where: str, length: int) -> list:
    """Distinct strings over '+'/'-' of the given length, sorted in ASCII order."""
    json_list(patterns, where)
    for k, signs in enumerate(patterns):
        if not isinstance(signs, str) or len(signs) != length or signs.strip("+-"):
            raise CertificateError(f"{where}[{k}]: expected a string of {length} "
                                   f"'+'/'-', got {shown_json(signs)}")
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


def check_witness(M, signs: str, witness, numbers, where: str, k: int) -> None:
    """``witness`` is a point ``z`` (``k`` numbers) with ``sign(M z) = signs``: no zero."""
    z = [numbers.parse(x, f"{where}: witness[{j}]")
         for j, x in enumerate(json_list(witness, f"{where}: witness", k))]
    got = "".join(_sign_char(numbers.sign(sum(a * b for a, b in zip(row, z))))
                  for row in M)
    if got != signs:
        raise CertificateError(f"{where}: witness gives sign vector {got}, "
                               f"listed {signs}")


def check_multipliers(M, signs: str, pairs, numbers, where: str, k: int) -> None:
    """Gordan multipliers proving that no ``z`` has ``s_r M_r z > 0`` for every row ``r``.

    ``pairs`` lists ``[r, y]`` with distinct rows ``r``, ``y >= 0`` not all zero, and
    ``sum_r y_r s_r M_r = 0`` (``k`` coordinates); such a ``z`` would give
    ``0 = sum_r y_r (s_r M_r z) > 0``. Rows with ``M[r] = None`` are not part of the
    system and may not carry a multiplier.
    """
    pairs = json_list(pairs, f"{where}: multipliers")
    if not pairs:
        raise CertificateError(f"{where}: no multipliers")
    total, seen, nonzero = [0] * k, set(), False
    for m, pair in enumerate(pairs):
        json_list(pair, f"{where}: multipliers[{m}]", 2)
        r = json_index(pair[0], f"{where}: multipliers[{m}] row", len(M))
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
                               f"({', '.join(shown_number(v) for v in total)}), not 0")


def check_pattern(M, patterns, evidence, numbers=RATIONALS, *, ncols=None) -> str:
    """Check that ``patterns`` is exactly the sign pattern of ``M``, as ``evidence`` says.

    ``M`` is a list of rows of numbers of the domain ``numbers``; ``ncols`` (the length
    of a witness) is needed only when ``M`` has no rows. ``evidence`` is the JSON object
    ``{"cells": [...], "refutations": [...]}``, or ``{"zero_row": i}`` for an empty
    pattern. Returns a summary such as ``"20 cells, complete"``.
    """
    N = len(M)
    k = len(M[0]) if N else ncols
    sign_strings(patterns, "assertion.patterns", N)
    if isinstance(evidence, dict) and "zero_row" in evidence:
        json_object(evidence, "evidence", ("zero_row",))
        i = json_index(evidence["zero_row"], "evidence.zero_row", N)
        if any(numbers.sign(a) for a in M[i]):
            raise CertificateError(f"evidence.zero_row: row {i} of M is not zero")
        if patterns:
            raise CertificateError(f"row {i} of M is zero, so the pattern is empty, but "
                                   f"{len(patterns)} sign vectors are listed")
        return f"0 cells, empty: row {i} of M is zero"
    json_object(evidence, "evidence", ("cells", "refutations"))
    if not patterns:
        raise CertificateError("an empty pattern needs the evidence zero_row")

    # 1. Every listed sign vector is a cell: its witness z has sign(M z) = signs.
    cells = json_list(evidence["cells"], "evidence.cells", len(patterns))
    for c, (cell, signs) in enumerate(zip(cells, patterns)):
        json_object(cell, f"cell {c}", ("signs", "witness"))
        if cell["signs"] != signs:
            raise CertificateError(f"cell {c}: signs {shown_json(cell['signs'])} differ from "
                                   f"assertion.patterns[{c}] {signs}")
        check_witness(M, signs, cell["witness"], numbers, f"cell {c}", k)

    # 2. Refuted sign vectors: y >= 0, y != 0, sum_r y_r s_r M_r = 0 for the flipped s.
    class_of, classes = parallel_classes(M, numbers)
    refuted = set()
    for t, refutation in enumerate(json_list(evidence["refutations"], "evidence.refutations")):
        where = f"refutation {t}"
        json_object(refutation, where, ("cell", "row", "multipliers"))
        c = json_index(refutation["cell"], f"{where}: cell", len(patterns))
        i = json_index(refutation["row"], f"{where}: row", N)
        if class_of[i] is None:
            raise CertificateError(f"{where}: row {i} of M is zero")
        flipped = _flip(patterns[c], classes[class_of[i]])
        where = f"{where} (cell {c} flipped at {_rows_text(classes[class_of[i]])})"
        check_multipliers(M, flipped, refutation["multipliers"], numbers, where, k)
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

def within(where: str, check, *args, **options):
    """``check(*args, **options)``, its errors prefixed with ``where``."""
    try:
        return check(*args, **options)
    except CertificateError as error:
        raise CertificateError(f"{where}: {error}") from None


def input_matrix(W, where: str = "input.W", numbers=RATIONALS) -> list:
    """A non-empty matrix of numbers with rows of equal length (``input.W`` by default)."""
    W = json_list(W, where)
    if not W:
        raise CertificateError(f"{where}: the matrix has no rows")
    rows = [[numbers.parse(x, f"{where}[{i}][{j}]")
             for j, x in enumerate(json_list(row, f"{where}[{i}]"))] for i, row in enumerate(W)]
    if not rows[0] or any(len(row) != len(rows[0]) for row in rows):
        raise CertificateError(f"{where}: rows must be non-empty and of equal length")
    return rows


def _input_rows(document) -> list:
    """The rows ``v_i`` of ``W``, or of ``[1 | W]`` when ``affine`` is true."""
    json_object(document, "input", ("W", "affine"))
    rows = input_matrix(document["W"])
    if not isinstance(document["affine"], bool):
        raise CertificateError(f"input.affine: expected true or false, "
                               f"got {shown_json(document['affine'])}")
    return [[Fraction(1)] + row for row in rows] if document["affine"] else rows


def check_count(assertion) -> None:
    if type(assertion["count"]) is not int or assertion["count"] != len(assertion["patterns"]):
        raise CertificateError(f"assertion.count: {shown_json(assertion['count'])} is not the "
                               f"number of patterns ({len(assertion['patterns'])})")


def check_sign_pattern(document, assertion, evidence) -> str:
    M = _input_rows(document)
    json_object(assertion, "assertion", ("count", "patterns"))
    json_list(assertion["patterns"], "assertion.patterns")
    check_count(assertion)
    return "sign pattern, " + check_pattern(M, assertion["patterns"], evidence)


def braid(V) -> list:
    """``B_n V``: the rows ``v_i - v_j`` for the pairs ``i < j`` in lexicographic order."""
    return [[a - b for a, b in zip(V[i], V[j])] for i, j in combinations(range(len(V)), 2)]


def ranking_signs(ranking, n: int, where: str) -> str:
    """The sign vector over the pairs ``i < j`` of a ranking (labels, highest first)."""
    json_list(ranking, where, n)
    if sorted(json_index(label, where, n) for label in ranking) != list(range(n)):
        raise CertificateError(f"{where}: not an ordering of the labels 0..{n - 1}")
    position = {label: p for p, label in enumerate(ranking)}
    return "".join("+" if position[i] < position[j] else "-"
                   for i, j in combinations(range(n), 2))


def _check_ranking_pattern(document, assertion, evidence) -> str:
    V = _input_rows(document)
    n = len(V)
    pairs = list(combinations(range(n), 2))
    M = braid(V)
    json_object(assertion, "assertion", ("count", "patterns", "rankings"))
    patterns = sign_strings(assertion["patterns"], "assertion.patterns", len(pairs))
    check_count(assertion)
    rankings = json_list(assertion["rankings"], "assertion.rankings", len(patterns))
    for k, (ranking, signs) in enumerate(zip(rankings, patterns)):
        where = f"assertion.rankings[{k}]"
        encoded = ranking_signs(ranking, n, where)
        if encoded != signs:
            raise CertificateError(f"{where}: {' > '.join(map(str, ranking))} has signs "
                                   f"{encoded}, assertion.patterns[{k}] is {signs}")
    summary = check_pattern(M, patterns, evidence, ncols=len(V[0]))
    if not patterns:  # the zero row of B_n V is a pair of equal labels
        i, j = pairs[evidence["zero_row"]]
        summary = f"0 cells, empty: labels {i} and {j} have equal rows"
    return "ranking pattern, " + summary


def complete_pattern(M, evidence, where: str, numbers=RATIONALS, ncols=None) -> set:
    """The sign pattern of ``M`` proven complete by ``evidence``: its cells' signs."""
    patterns = []
    if isinstance(evidence, dict) and "cells" in evidence:
        cells = json_list(evidence["cells"], f"{where}.cells")
        patterns = [json_object(cell, f"{where}.cells[{c}]", ("signs", "witness"))["signs"]
                    for c, cell in enumerate(cells)]
        sign_strings(patterns, f"{where}.cells: signs", len(M))
    within(where, check_pattern, M, patterns, evidence, numbers, ncols=ncols)
    return set(patterns)


def _ranking_text(signs: str, n: int) -> str:
    """``"2 > 0 > 1"``: the labels of a ranking's sign vector from highest to lowest."""
    wins = [0] * n
    for (i, j), s in zip(combinations(range(n), 2), signs):
        wins[i if s == "+" else j] += 1
    return " > ".join(map(str, sorted(range(n), key=lambda i: -wins[i])))


def check_differences(names, V, R, assertion, proofs=None, numbers=RATIONALS) -> list:
    """``assertion.only_in_X`` must be exactly the set difference ``R(X) - R(Y)``, sorted,
    for ``(X, Y)`` the two ``names`` either way round (``V``: the matrices; ``R``: their
    complete ranking patterns). ``proofs`` (the evidence object, if given) holds a
    direct proof of each listed ranking in ``only_in_X``: a witness ``x`` with
    ``sign(B_n X x)`` the ranking, and Gordan multipliers on the rows of ``B_n Y`` with
    the ranking's signs. Returns the two counts."""
    counts = []
    for this, other in (names, names[::-1]):
        where, n = f"assertion.only_in_{this}", len(V[this])
        listed = json_list(assertion[f"only_in_{this}"], where)
        signs = [ranking_signs(r, n, f"{where}[{k}]") for k, r in enumerate(listed)]
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
            for k, (s, proof) in enumerate(zip(signs, json_list(proofs[f"only_in_{this}"], at,
                                                            len(signs)))):
                json_object(proof, f"{at}[{k}]", ("witness", "multipliers"))
                check_witness(braid(V[this]), s, proof["witness"], numbers,
                               f"{at}[{k}]", len(V[this][0]))
                check_multipliers(braid(V[other]), s, proof["multipliers"], numbers,
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
    json_object(document, "input", ("A", "B"))
    V = {key: input_matrix(document[key], f"input.{key}") for key in "AB"}
    if len(V["A"]) != len(V["B"]) or len(V["A"][0]) != len(V["B"][0]):
        raise CertificateError("input: A and B must have the same number of points "
                               "and the same dimension")
    json_object(assertion, "assertion", ("count", "patterns", "only_in_A", "only_in_B"))
    patterns = sign_strings(assertion["patterns"], "assertion.patterns", len(V["A"]))
    check_count(assertion)
    json_object(evidence, "evidence", ("sign_A", "sign_B", "ranking_A", "ranking_B",
                                   "only_in_A", "only_in_B"))
    ones = {key: [[Fraction(1)] + row for row in W] for key, W in V.items()}
    for key in "AB":
        within(f"evidence.sign_{key}", check_pattern, ones[key], patterns,
                evidence[f"sign_{key}"])
    chi_a, chi_b = _chirotope(ones["A"]), _chirotope(ones["B"])
    if chi_b != chi_a and chi_b != [-s for s in chi_a]:
        raise CertificateError("the chirotopes of [1|A] and [1|B] differ by more than "
                               "a global sign")
    R = {key: complete_pattern(braid(W), evidence[f"ranking_{key}"],
                                f"evidence.ranking_{key}", ncols=len(W[0]))
         for key, W in V.items()}
    a, b = check_differences("AB", V, R, assertion, evidence)
    return (f"theorem H.1, S([1|A]) = S([1|B]) ({len(patterns)} sign vectors, chirotopes "
            f"equal up to sign) but R(A) != R(B): {a} of {len(R['A'])} rankings only in "
            f"R(A), {b} of {len(R['B'])} only in R(B)")


#: The claims this checker knows, by the value of the top-level key ``claim``.
CLAIMS = {
    "sign pattern": check_sign_pattern,
    "ranking pattern": _check_ranking_pattern,
    "theorem H.1": _check_theorem_h1,
}

#: Claims checked by the standard-library-only modules beside this one, imported only
#: when such a certificate is read: square roots (cosine matrices, theorem 5.5) in
#: ``checker/roots.py``; instance and sweep certificates in ``checker/claims.py``.
ELSEWHERE = {
    "theorem 5.5": "verify.checker.roots",
    **{claim: "verify.checker.claims" for claim in (
        "lemma 5.3", "theorem 5.6", "proposition E.2", "lemma 3.1", "lemma 3.2",
        "lemma 3.3", "theorem 3.4", "appendix D", "example C.1", "example C.2",
        "example C.3", "steck eq1-invariance", "steck eq1-closed-form",
        "steck full-rank", "steck eq2-unique")},
}


def _claim_check(claim: str):
    if claim in CLAIMS:
        return CLAIMS[claim]
    return import_module(ELSEWHERE[claim]).CLAIMS[claim]


def check_certificate(obj) -> str:
    """Check a parsed certificate; return a one-line summary of what it proves.

    Raises :class:`UnknownFormat` for a document that is not a ``verify-certificate/1``
    certificate of a known claim, and :class:`CertificateError` for any failed check.
    """
    if not isinstance(obj, dict):
        raise UnknownFormat("not a certificate: the document is not a JSON object")
    if obj.get("format") != FORMAT:
        raise UnknownFormat(f"unknown format {shown_json(obj.get('format'))} "
                            f"(this checker reads {FORMAT!r})")
    claim = obj.get("claim")
    if not isinstance(claim, str) or (claim not in CLAIMS and claim not in ELSEWHERE):
        raise UnknownFormat(f"unknown claim {shown_json(claim)} (known: "
                            f"{', '.join(map(repr, [*CLAIMS, *ELSEWHERE]))})")
    json_object(obj, "certificate", ("format", "claim", "input", "assertion", "evidence"))
    return _claim_check(claim)(obj["input"], obj["assertion"], obj["evidence"])


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
    return parse_json(text)


def parse_json(text):
    """JSON text (``str`` or UTF-8 ``bytes``) parsed, refusing duplicate keys and
    NaN/Infinity (``ValueError``)."""
    return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)


#: Files that begin with these bytes are streamed certificates, checked line by line by
#: the module named (``docs/certificates.md``, "Streamed ranking-pattern certificates").
STREAMED = {b'{"format":"verify-certificate-stream/1"': "verify.checker.stream"}


def streamed_checker(path):
    """The module that checks the file at ``path`` if it is a streamed certificate, else
    None (``OSError`` if it cannot be read)."""
    with open(path, "rb") as handle:
        head = handle.read(max(map(len, STREAMED)))
    return next((module for start, module in STREAMED.items() if head.startswith(start)),
                None)


#: A certificate archive's members may declare at most this many bytes more, in all,
#: than the archive's own size: ``analyze`` stores its members uncompressed, so only a
#: hand-made (or hostile) archive comes near it. Python's ``zipfile`` never inflates a
#: member beyond its declared size (a longer stream fails its CRC check), so checking
#: the declared sizes bounds what reading the archive can take.
MAX_INFLATION = 256 * 2**20

_KINDS = ((stat.S_ISDIR, "Is a directory"), (stat.S_ISFIFO, "is a FIFO (named pipe)"),
          (stat.S_ISCHR, "is a character device"), (stat.S_ISBLK, "is a block device"),
          (stat.S_ISSOCK, "is a socket"))


def file_problem(path):
    """Why the file at ``path`` is refused before it is opened, or None: it must be a
    regular file (a FIFO would block, a device such as /dev/zero never ends), and an
    archive must not declare more than :data:`MAX_INFLATION` bytes beyond its size."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # opening it fails, and says why
    if not stat.S_ISREG(mode):
        kind = next((text for test, text in _KINDS if test(mode)), "is not a regular file")
        # A directory is named as open() names it; the other kinds are not files at all.
        return f"cannot read: {kind}" + ("" if stat.S_ISDIR(mode) else ", not a regular file")
    if not _is_zip(path):
        return None
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except NotImplementedError as exc:  # e.g. "zip file version 8.4"
        return f"unsupported archive: {exc}"
    except (zipfile.BadZipFile, OSError, ValueError):
        return None  # not readable as an archive: the archive checker says why
    for info in members:  # what Python's zipfile would refuse only when reading
        if info.flag_bits & 0x41:
            return f"archive member {info.filename!r} is encrypted"
        if info.flag_bits & 0x20:
            return f"archive member {info.filename!r} is compressed patched data"
        if info.extract_version > zipfile.MAX_EXTRACT_VERSION:
            return (f"archive member {info.filename!r} needs ZIP version "
                    f"{info.extract_version / 10} (this reads up to "
                    f"{zipfile.MAX_EXTRACT_VERSION / 10})")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            return (f"archive member {info.filename!r} uses compression method "
                    f"{info.compress_type} (stored or deflated only)")
    declared = sum(info.file_size for info in members)
    size = os.path.getsize(path)
    if declared > size + MAX_INFLATION:
        return (f"the archive's members declare {declared:,} bytes uncompressed, more than "
                f"its size ({size:,} bytes) plus {MAX_INFLATION:,}: refused before reading")
    return None


def check_file(path) -> str:
    """Check the certificate file at ``path`` (a JSON certificate, a streamed one, or an
    ``analyze`` archive); return the summary. Raises ``OSError`` if it cannot be read,
    ``ValueError`` if it is not JSON, :class:`UnknownFormat` for what
    :func:`file_problem` refuses (not a regular file, an archive too large or of a kind
    this module cannot read), and :class:`CertificateError` (or :class:`UnknownFormat`)
    as :func:`check_certificate` does."""
    problem = file_problem(path)
    if problem is not None:
        raise UnknownFormat(problem)
    if _is_zip(path):  # an analyze certificate archive: checker/analyze.py
        return import_module("verify.checker.analyze").check_file(path)
    module = streamed_checker(path)
    if module is not None:
        return import_module(module).check_stream_file(path)
    return check_certificate(load_certificate(path))


USAGE = ("usage: python -m verify check [--arithmetic auto|python|numpy] [--jobs N] "
         "FILE...\n"
         "       python -m verify check CERT.zip --matrix FILE [--tensor NAME] "
         "[--bias NAME|FILE] [--jobs N]\n"
         "Check verify-certificate/1 files (JSON, streamed JSON Lines, or analyze archives) "
         "with the standard library alone (analyze "
         "archives of large heads with numpy if it is importable; --arithmetic chooses; "
         "--jobs N shares their witness products among N processes). "
         "--matrix confirms that an analyze certificate's Z is the scale times the "
         "head read from FILE. Exit status: 0 if every file is valid, 1 if a "
         "certificate is invalid, 2 if a file cannot be read or is not a known format.")


def _option_value(argv, k: int, name: str):
    """``(value, next k)`` if ``argv[k]`` is ``--name VALUE`` or ``--name=VALUE`` (the
    value None when it is missing), else None."""
    arg = argv[k]
    if arg.startswith(f"--{name}="):
        return arg.split("=", 1)[1], k + 1
    if arg == f"--{name}":
        return (argv[k + 1] if k + 1 < len(argv) else None), k + 2
    return None


def _options(argv):
    """``(files, {"arithmetic": ..., "jobs": ...})``, or an error message for a bad
    option."""
    files, options, k = [], {"arithmetic": "auto", "jobs": 1}, 0
    while k < len(argv):
        jobs, arithmetic = _option_value(argv, k, "jobs"), _option_value(argv, k, "arithmetic")
        if jobs is not None:
            value, k = jobs
            # isdigit alone admits "²", which int() refuses.
            if (value is None or not (value.isascii() and value.isdigit())
                    or not 1 <= int(value) <= 1024):
                return files, f"--jobs expects a number of processes from 1 to 1024, got {value!r}"
            options["jobs"] = int(value)
        elif arithmetic is not None:
            value, k = arithmetic
            if value not in ("auto", "python", "numpy"):
                return files, "--arithmetic expects auto, python or numpy"
            options["arithmetic"] = value
        else:
            files.append(argv[k])
            k += 1
    return files, options


#: Every character that ``str.splitlines`` breaks a line at, escaped.
_LINE_BREAKS = {ord(c): c.encode("unicode_escape").decode("ascii")
                for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"}


def one_line(message) -> str:
    """``str(message)`` with line breaks escaped: a name read from a damaged file (an
    archive member's, say) may hold any character, and a message is one line."""
    return str(message).translate(_LINE_BREAKS)


def _is_zip(path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def main(argv) -> int:
    """Check every file in ``argv``; one line per file; the exit status described above."""
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    argv, options = _options(argv)
    if isinstance(options, str):
        print(f"verify check: {options}", file=sys.stderr)
        return 2
    status = 0
    for path in argv:
        problem = file_problem(path)
        if problem is not None:
            print(f"{path}: ERROR: {one_line(problem)}", file=sys.stderr)
            status = 2
            continue
        try:
            archive = _is_zip(path)  # an analyze certificate: checker/analyze.py
            streamed = None if archive else streamed_checker(path)
            obj = None if archive or streamed else load_certificate(path)
        except OSError as exc:
            print(f"{path}: ERROR: cannot read: {one_line(exc.strerror or exc)}",
                  file=sys.stderr)
            status = 2
            continue
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            print(f"{path}: ERROR: not JSON: {reason}", file=sys.stderr)
            status = 2
            continue
        try:
            if archive:
                summary = import_module("verify.checker.analyze").check_file(
                    path, backend=options["arithmetic"], jobs=options["jobs"])
            elif streamed is not None:
                summary = import_module(streamed).check_stream_file(path)
            else:
                summary = check_certificate(obj)
        except OSError as exc:
            print(f"{path}: ERROR: cannot read: {one_line(exc.strerror or exc)}",
                  file=sys.stderr)
            status = 2
        except UnknownFormat as exc:
            print(f"{path}: ERROR: {one_line(exc)}", file=sys.stderr)
            status = 2
        except CertificateError as exc:
            print(f"{path}: INVALID: {one_line(exc)}", file=sys.stderr)
            status = max(status, 1)
        except (zipfile.BadZipFile, EOFError) as exc:
            # zipfile's words for a member longer than declared (bad CRC) or cut short
            print(f"{path}: ERROR: damaged archive: {one_line(exc or 'a member ends early')}",
                  file=sys.stderr)
            status = 2
        else:
            print(f"{path}: OK ({summary})")
    return status


if __name__ == "__main__":
    from verify.checker.core import main as _main  # the module, with every claim registered

    sys.exit(_main(sys.argv[1:]))
