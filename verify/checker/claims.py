"""Checks of instance and sweep certificates (``verify-certificate/1``).

This module extends the table ``CLAIMS`` of :mod:`verify.checker.core` and follows its
rules: it imports nothing but the Python standard library (and ``verify.checker.core`` for
its number types and helpers), and decides every fact exactly, with ``Fraction`` for
rationals and :class:`~verify.checker.core.RootSum` for sums of square roots. The formats
are specified in ``docs/certificates.md``.

**Instance certificates** (lemmas 3.1-3.3, theorem 3.4, appendix D and examples C.1-C.3
of Nielsen & Grivas; the four claims of Steck et al.) list the exact instances a
claim's check used (matrices, vectors, translations, inputs) and the facts asserted
about them; every fact is recomputed here from the instance, nothing asserted is
taken on trust. Where a claim's check also proves a symbolic identity (with sympy),
that part cannot be redone with the standard library: the certificate says so in
``evidence.symbolic`` and proves the exact instances only.

**Sweep certificates** (lemma 5.3, theorem 5.6, proposition E.2 over a list of
matrices) hold, for each matrix, the evidence of the single-matrix check of
:mod:`verify.checker.core`, or the reason why the matrix is outside the claim's hypothesis
(a zero row, two equal rows), which is re-verified.

Two facts are used throughout. Softmax is unchanged by adding one constant to every
logit, so two models with ``B_n W' = B_n W`` (equal logit differences
``(w_k - w_l) . x`` for every ``x``) assign the same probabilities to every input.
And ``cos(a, b) = +1`` or ``-1`` iff ``a, b != 0``, ``(a.b)^2 = |a|^2 |b|^2`` (equality
in Cauchy-Schwarz: ``a, b`` parallel) and ``a.b`` has that sign; no square root needed.
"""

from fractions import Fraction
from functools import cmp_to_key, partial
from itertools import combinations
import re

from verify.checker.core import (
    RATIONALS,
    CertificateError,
    braid,
    check_sign_pattern,
    json_index,
    input_matrix,
    json_list,
    json_object,
    shown_json,
    within,
)
from verify.checker.roots import SQUARE_ROOTS, RootSum, check_cosine_claim, cosine_matrix

__all__ = ["CLAIMS", "PAPER"]


# --- numbers, vectors, matrices --------------------------------------------------------

def _sign(x) -> int:
    """The exact sign of a Fraction or a RootSum."""
    return SQUARE_ROOTS.sign(x)


def _number(value, where: str, numbers=RATIONALS):
    return numbers.parse(value, where)


def _vector(value, where: str, numbers=RATIONALS, length=None) -> list:
    """A non-empty list of numbers (of ``length`` entries, if given)."""
    items = json_list(value, where, length)
    if not items:
        raise CertificateError(f"{where}: empty vector")
    return [numbers.parse(x, f"{where}[{k}]") for k, x in enumerate(items)]


def _matrix(value, where: str, numbers=RATIONALS, rows=None, columns=None) -> list:
    """A non-empty rectangular matrix (with the given numbers of rows and columns)."""
    M = input_matrix(value, where, numbers)
    if rows not in (None, len(M)) or columns not in (None, len(M[0])):
        raise CertificateError(f"{where}: expected {rows or len(M)} x {columns or len(M[0])}"
                               f", got {len(M)} x {len(M[0])}")
    return M


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _true(value, where: str) -> None:
    if value is not True:
        raise CertificateError(f"{where}: expected true, got {shown_json(value)}")


def _labels(value, where: str, n: int) -> tuple:
    """Two different labels ``[i, j]`` of ``0 .. n-1``."""
    i, j = (json_index(x, where, n) for x in json_list(value, where, 2))
    if i == j:
        raise CertificateError(f"{where}: the two labels must differ")
    return i, j


def _dot(a, b):
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


def _same(a, b) -> bool:
    """Two numbers, vectors or matrices are equal entry by entry (exactly)."""
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return _sign(a - b) == 0


def _transpose(A) -> list:
    return [list(column) for column in zip(*A)]


def _mul(A, B) -> list:
    columns = list(zip(*B))
    return [[_dot(row, column) for column in columns] for row in A]


def _add(A, B, factor=1) -> list:
    """``A + factor B``."""
    return [[a + factor * b for a, b in zip(r, s)] for r, s in zip(A, B)]


def _scale(A, c) -> list:
    return [[c * a for a in row] for row in A]


def _diag(values) -> list:
    return [[v if i == j else Fraction(0) for j in range(len(values))]
            for i, v in enumerate(values)]


def _identity(n: int) -> list:
    return _diag([Fraction(1)] * n)


def _columns(A, keep) -> list:
    return [[row[j] for j in keep] for row in A]


def _frobenius(A):
    return sum((a * a for row in A for a in row), Fraction(0))


def _is_zero(A) -> bool:
    return all(_sign(a) == 0 for row in A for a in row)


def _is_diagonal(A) -> bool:
    return all(_sign(a) == 0 for i, row in enumerate(A) for j, a in enumerate(row) if i != j)


def _det(A) -> Fraction:
    """The determinant of a square rational matrix, by exact Gaussian elimination."""
    a, det = [list(row) for row in A], Fraction(1)
    for c in range(len(a)):
        p = next((r for r in range(c, len(a)) if a[r][c]), None)
        if p is None:
            return Fraction(0)
        a[c], a[p], det = a[p], a[c], det if p == c else -det
        det *= a[c][c]
        for r in range(c + 1, len(a)):
            f = a[r][c] / a[c][c]
            a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    return det


def _rational(x):
    """``x`` as a Fraction if it is rational (a RootSum with no square root), else None."""
    if isinstance(x, Fraction):
        return x
    return x.terms.get(1, Fraction(0)) if set(x.terms) <= {1} else None


def _sqrt_of(q: Fraction) -> RootSum:
    """The positive square root of a positive rational ``a/b``: ``sqrt(a b) / b``."""
    return RootSum([(q.numerator * q.denominator, Fraction(1, q.denominator))])


def _cosines(M, N=None) -> list:
    """``cos(m_i, n_j)`` for the rows of ``M`` and ``N`` (default ``M``), built as
    :func:`verify.checker.core.cosine_matrix` builds them (every ``|m_i|^2 |n_j|^2`` must be
    rational)."""
    if N is None:
        return cosine_matrix(M)
    return [row[len(M):] for row in cosine_matrix(M + N)[:len(M)]]


def _cosine_is(a, b, target: int) -> bool:
    """``cos(a, b) = target`` (+1 or -1): ``a, b != 0``, ``(a.b)^2 = |a|^2 |b|^2`` and
    ``sign(a.b) = target``."""
    ab, aa, bb = _dot(a, b), _dot(a, a), _dot(b, b)
    return _sign(aa) > 0 and _sign(bb) > 0 and _same(ab * ab, aa * bb) and _sign(ab) == target


def _symbolic(evidence, claim: str) -> None:
    """``evidence.symbolic``: the fixed note that the sympy part is not re-checked."""
    expected = f"not checked here: re-run python -m verify {claim} (needs sympy)"
    if evidence["symbolic"] != expected:
        raise CertificateError(f"evidence.symbolic: expected {expected!r}")


def _equivalent(W, V, where: str) -> None:
    """``V`` has the shape of ``W`` and ``B_n V = B_n W``: the two models have the same
    logit differences, so the same softmax probabilities, for every input."""
    if len(V) != len(W) or len(V[0]) != len(W[0]):
        raise CertificateError(f"{where}: not of the shape of input.W")
    for (k, l), a, b in zip(combinations(range(len(W)), 2), braid(V), braid(W)):
        if not _same(a, b):
            raise CertificateError(f"{where}: w'_{k} - w'_{l} differs from w_{k} - w_{l}, "
                                   "so some logit difference changes")


_HALF = Fraction(1, 2)


def _lemma_translation(lemma: str, vi, vj) -> list:
    """``u`` of lemma 3.2 (``-(v_i + v_j)/2``) or lemma 3.3 (``-v_i + (v_j - v_i)/2``)."""
    if lemma == "lemma 3.2":
        return [-(a + b) * _HALF for a, b in zip(vi, vj)]
    return [-a + (b - a) * _HALF for a, b in zip(vi, vj)]


# --- lemmas 3.1-3.3, theorem 3.4, appendix D ------------------------------------------

def _check_lemma_31(document, assertion, evidence) -> str:
    """Lemma 3.1 on instances: for every listed ``u`` and ``x``, each logit of
    ``W + 1 u^T`` at ``x`` is the logit of ``W`` plus one constant, the asserted shift;
    so every softmax probability is unchanged."""
    json_object(document, "input", ("W", "translations", "inputs"))
    json_object(assertion, "assertion", ("shifts",))
    json_object(evidence, "evidence", ("symbolic",))
    _symbolic(evidence, "lemma 3.1")
    W = input_matrix(document["W"])
    d = len(W[0])
    us = [_vector(u, f"input.translations[{t}]", length=d)
          for t, u in enumerate(json_list(document["translations"], "input.translations"))]
    xs = [_vector(x, f"input.inputs[{m}]", length=d)
          for m, x in enumerate(json_list(document["inputs"], "input.inputs"))]
    if not us or not xs:
        raise CertificateError("input: no translation or no input")
    shifts = json_list(assertion["shifts"], "assertion.shifts", len(us))
    for t, u in enumerate(us):
        moved = [[a + b for a, b in zip(w, u)] for w in W]
        row = _vector(shifts[t], f"assertion.shifts[{t}]", length=len(xs))
        for m, (x, c) in enumerate(zip(xs, row)):
            if {_dot(v, x) - _dot(w, x) for v, w in zip(moved, W)} != {c}:
                raise CertificateError(f"assertion.shifts[{t}][{m}]: the logits of W + u "
                                       f"at x do not all exceed those of W by {c}")
    return (f"lemma 3.1, softmax unchanged by w_k -> w_k + u: {len(us)} translations x "
            f"{len(xs)} inputs on a {len(W)} x {d} W, each a common logit shift; symbolic "
            "part not checked here")


def _check_translation_lemma(claim: str, target: int, document, assertion,
                             evidence) -> str:
    """Lemma 3.2 (``target = -1``) and lemma 3.3 (``+1``) on instances: for every pair
    with ``v_i != v_j``, ``u`` is the lemma's translation and
    ``cos(v_i + u, v_j + u) = target``; for lemma 3.3 and ``v_i = v_j``, any listed ``u``
    with ``v_i + u != 0`` (then the cosine is +1). Lemma 3.2 refuses ``v_i = v_j``."""
    json_object(document, "input", ("pairs",))
    json_object(assertion, "assertion", ("cosine",))
    json_object(evidence, "evidence", ("translations", "symbolic"))
    _symbolic(evidence, claim)
    if _number(assertion["cosine"], "assertion.cosine") != target:
        raise CertificateError(f"assertion.cosine: {claim} asserts {target}")
    pairs = json_list(document["pairs"], "input.pairs")
    us = json_list(evidence["translations"], "evidence.translations", len(pairs))
    if not pairs:
        raise CertificateError("input.pairs: no pair")
    equal = 0
    for k, (pair, u) in enumerate(zip(pairs, us)):
        where = f"input.pairs[{k}]"
        vi = _vector(json_list(pair, where, 2)[0], f"{where}[0]")
        vj = _vector(pair[1], f"{where}[1]", length=len(vi))
        u = _vector(u, f"evidence.translations[{k}]", length=len(vi))
        if vi == vj:
            if target < 0:
                raise CertificateError(f"{where}: v_i = v_j, outside the hypothesis of "
                                       "lemma 3.2 (v_i != v_j)")
            equal += 1
        elif u != _lemma_translation(claim, vi, vj):
            raise CertificateError(f"evidence.translations[{k}]: not the u of {claim}")
        if not _cosine_is([a + b for a, b in zip(vi, u)], [a + b for a, b in zip(vj, u)],
                          target):
            raise CertificateError(f"{where}: cos(v_i + u, v_j + u) is not {target}")
    return (f"{claim}, cos(v_i + u, v_j + u) = {target}: {len(pairs) - equal} pairs with "
            f"v_i != v_j and the lemma's u" + (f", {equal} with v_i = v_j" if equal else "")
            + "; symbolic part not checked here")


def _check_theorem_34(document, assertion, evidence) -> str:
    """Theorem 3.4 on an instance: for ``w_i != w_j``, two models ``W_minus`` and
    ``W_plus`` with ``B_n W' = B_n W`` (the same probabilities as ``W`` for every input)
    and ``cos(w'_i, w'_j) = -1`` and ``+1``."""
    json_object(document, "input", ("W", "labels"))
    json_object(assertion, "assertion", ("cosines",))
    json_object(evidence, "evidence", ("W_minus", "W_plus", "symbolic"))
    _symbolic(evidence, "theorem 3.4")
    W = input_matrix(document["W"])
    i, j = _labels(document["labels"], "input.labels", len(W))
    if W[i] == W[j]:
        raise CertificateError(f"input.W: w_{i} = w_{j}, outside the hypothesis of "
                               "theorem 3.4")
    if _vector(assertion["cosines"], "assertion.cosines", length=2) != [-1, 1]:
        raise CertificateError('assertion.cosines: theorem 3.4 asserts ["-1", "1"]')
    for key, target in (("W_minus", -1), ("W_plus", 1)):
        V = input_matrix(evidence[key], f"evidence.{key}")
        _equivalent(W, V, f"evidence.{key}")
        if not _cosine_is(V[i], V[j], target):
            raise CertificateError(f"evidence.{key}: cos(w'_{i}, w'_{j}) is not {target}")
    return (f"theorem 3.4, labels {i}, {j}: two models with the probabilities of W for "
            f"every input (B_n W' = B_n W), cos(w'_{i}, w'_{j}) = -1 and +1; symbolic part "
            "not checked here")


def _check_appendix_d(document, assertion, evidence) -> str:
    """Appendix D on an instance: two models equivalent to ``W`` (``B_n W' = B_n W``) in
    which ``w_i . w_j`` has opposite signs and the normalised distance
    ``|a/|a| - b/|b||^2 = 2 - 2 cos(a, b)`` differs; ``W -> cW, x -> x/c`` keeps every
    logit at every listed input while ``|w_i - w_j|^2`` changes (``c^2 != 1``)."""
    json_object(document, "input", ("W", "labels", "c", "inputs"))
    json_object(assertion, "assertion", ("dots", "normalised_distances", "distances_squared"))
    json_object(evidence, "evidence", ("W_minus", "W_plus", "symbolic"))
    _symbolic(evidence, "appendix D")
    W = input_matrix(document["W"])
    i, j = _labels(document["labels"], "input.labels", len(W))
    if W[i] == W[j]:
        raise CertificateError(f"input.W: w_{i} = w_{j}, outside the hypothesis")
    c = _number(document["c"], "input.c")
    if c == 0 or c * c == 1:
        raise CertificateError("input.c: the scaling needs c != 0 and c^2 != 1")
    keys = ("W_minus", "W_plus")
    models = [input_matrix(evidence[key], f"evidence.{key}") for key in keys]
    for key, V in zip(keys, models):
        _equivalent(W, V, f"evidence.{key}")
    dots = [_dot(V[i], V[j]) for V in models]
    listed = _vector(assertion["dots"], "assertion.dots", length=2)
    if dots != listed or dots[0] * dots[1] >= 0:
        raise CertificateError(f"assertion.dots: w'_{i}.w'_{j} is {dots[0]} and {dots[1]}, "
                               f"listed {listed[0]}, {listed[1]}; the signs must be opposite")
    distances = [2 - 2 * within(f"evidence.{key}", cosine_matrix, [V[i], V[j]])[0][1]
                 for key, V in zip(keys, models)]
    listed = _vector(assertion["normalised_distances"], "assertion.normalised_distances",
                     SQUARE_ROOTS, 2)
    if not _same(distances, listed) or _same(*distances):
        raise CertificateError("assertion.normalised_distances: not 2 - 2 cos(w'_i, w'_j) "
                               "of the two models, or equal")
    inputs = json_list(document["inputs"], "input.inputs")
    if not inputs:
        raise CertificateError("input.inputs: no input")
    for m, x in enumerate(inputs):
        x = _vector(x, f"input.inputs[{m}]", length=len(W[0]))
        scaled = [_dot([c * a for a in w], [t / c for t in x]) for w in W]
        if scaled != [_dot(w, x) for w in W]:
            raise CertificateError(f"input.inputs[{m}]: c W at x / c changes a logit")
    distances_squared = [sum(((a - b) * f) ** 2 for a, b in zip(W[i], W[j])) for f in (1, c)]
    listed = _vector(assertion["distances_squared"], "assertion.distances_squared", length=2)
    if distances_squared != listed or listed[0] == listed[1]:
        raise CertificateError("assertion.distances_squared: not |w_i - w_j|^2 before and "
                               "after the scaling, or equal")
    return (f"appendix D, labels {i}, {j}: w_{i}.w_{j} = {dots[0]} and {dots[1]} and "
            f"normalised distances {distances[0]} and {distances[1]} in two equivalent "
            f"models; W -> {c} W, x -> x / {c} keeps the logits while |w_{i} - w_{j}|^2 "
            f"goes from {listed[0]} to {listed[1]}; symbolic part not checked here")


# --- examples C.1-C.3 ------------------------------------------------------------------

#: What the paper states in each example, and a certificate must state: cosines as
#: ``[labels, decimal, rounded]`` (in this order), and pairs of labels that can and
#: cannot be tied for the highest probability (at least these).
PAPER = {
    "example C.1": {"cosines": [[[0, 1], "0.8", False]]},
    "example C.2": {"cosines": [[[0, 1], "0.32", True], [[1, 2], "-0.59", True],
                                [[2, 4], "0.8", False]],
                    "ties": [[0, 1], [1, 2]], "no_ties": [[2, 4]],
                    "between": {"labels": [2, 4], "first": 3}},
    "example C.3": {"cosines": [[[0, 1], "-0.805", False], [[1, 3], "0.805", False]],
                    "ties": [[0, 1]], "no_ties": [[1, 3]]},
}

#: The keys of ``input``, ``assertion`` and ``evidence`` of each example.
_EXAMPLE_KEYS = {
    "example C.1": (("W", "labels"), ("cosines", "translated"), ("translations",)),
    "example C.2": (("W",), ("centered", "cosines", "ties", "no_ties", "between", "nearest"),
                    ("ties", "no_ties", "between")),
    "example C.3": (("W",), ("centered", "unit_rows", "cosines", "ties", "no_ties"),
                    ("ties", "no_ties")),
}

_DECIMAL = re.compile(r"-?[0-9]+\.[0-9]+", re.ASCII)


def _check_cosine_statements(C, statements, paper) -> None:
    """Each statement ``{labels, cosine, paper, rounded}``: the exact cosine is the
    listed one, and the paper's decimal is it (``rounded`` false) or it rounded to the
    decimal's digits (``q - h <= cos < q + h``, ``h`` half a unit in the last digit);
    the statements are exactly the paper's."""
    listed = json_list(statements, "assertion.cosines")
    for k, statement in enumerate(listed):
        where = f"assertion.cosines[{k}]"
        json_object(statement, where, ("labels", "cosine", "paper", "rounded"))
        i, j = _labels(statement["labels"], f"{where}.labels", len(C))
        value = _number(statement["cosine"], f"{where}.cosine", SQUARE_ROOTS)
        if not _same(value, C[i][j]):
            raise CertificateError(f"{where}: cos(w_{i}, w_{j}) is {C[i][j]}, not {value}")
        text, rounded = statement["paper"], statement["rounded"]
        if not isinstance(text, str) or not _DECIMAL.fullmatch(text) or \
                not isinstance(rounded, bool):
            raise CertificateError(f"{where}: paper must be a decimal such as \"0.32\" and "
                                   "rounded true or false")
        q, h = Fraction(text), Fraction(1, 2 * 10 ** len(text.split(".")[1]))
        if rounded:
            holds = _sign(value - (q - h)) >= 0 and _sign(value - (q + h)) < 0
        else:
            holds = _same(value, q)
        if not holds:
            raise CertificateError(f"{where}: {value} is not {'about ' if rounded else ''}"
                                   f"{text}")
    if [[s["labels"], s["paper"], s["rounded"]] for s in listed] != paper:
        raise CertificateError(f"assertion.cosines: the paper states {shown_json(paper)}")


def _is_tie(W, x, i: int, j: int) -> bool:
    """``w_i . x = w_j . x > w_k . x`` for every other label ``k``."""
    logits = [_dot(w, x) for w in W]
    return _sign(logits[j] - logits[i]) == 0 and all(
        _sign(logits[i] - v) > 0 for k, v in enumerate(logits) if k not in (i, j))


def _check_no_tie(W, i: int, j: int, proof, where: str) -> None:
    """``y_k >= 0`` (labels ``k != i, j``, not all zero) and any ``t`` with
    ``sum_k y_k (w_i - w_k) + t (w_i - w_j) = 0``: an ``x`` with
    ``w_i.x = w_j.x > w_k.x`` would make the left side times ``x`` positive."""
    json_object(proof, where, ("multipliers", "t"))
    t = _number(proof["t"], f"{where}.t", SQUARE_ROOTS)
    total = [(a - b) * t for a, b in zip(W[i], W[j])]
    seen, nonzero = set(), False
    for m, pair in enumerate(json_list(proof["multipliers"], f"{where}.multipliers")):
        at = f"{where}.multipliers[{m}]"
        k = json_index(json_list(pair, at, 2)[0], at, len(W))
        y = _number(pair[1], at, SQUARE_ROOTS)
        if k in (i, j) or k in seen or _sign(y) < 0:
            raise CertificateError(f"{at}: label {k} is i, j or repeated, or y < 0")
        seen.add(k)
        nonzero = nonzero or _sign(y) > 0
        total = [s + y * (a - b) for s, a, b in zip(total, W[i], W[k])]
    if not nonzero:
        raise CertificateError(f"{where}.multipliers: none, or all zero")
    if any(_sign(s) for s in total):
        raise CertificateError(f"{where}: sum_k y_k (w_i - w_k) + t (w_i - w_j) is not 0")


def _check_ties(W, assertion, evidence, paper) -> set:
    """The pairs of ``assertion.ties`` (witnesses) and ``assertion.no_ties`` (no-tie
    certificates), including the paper's; returns the pairs proven unable to tie."""
    proven = {"ties": set(), "no_ties": set()}
    for key in proven:
        pairs = json_list(assertion[key], f"assertion.{key}")
        proofs = json_list(evidence[key], f"evidence.{key}", len(pairs))
        for k, (pair, proof) in enumerate(zip(pairs, proofs)):
            i, j = _labels(pair, f"assertion.{key}[{k}]", len(W))
            where = f"evidence.{key}[{k}]"
            if key == "ties":
                x = _vector(proof, where, SQUARE_ROOTS, len(W[0]))
                if not _is_tie(W, x, i, j):
                    raise CertificateError(f"{where}: x does not give w_{i}.x = w_{j}.x > "
                                           "every other w_k.x")
            else:
                _check_no_tie(W, i, j, proof, where)
            proven[key].add((min(i, j), max(i, j)))
        missing = [p for p in paper[key] if tuple(p) not in proven[key]]
        if missing:
            raise CertificateError(f"assertion.{key}: the paper's pair {missing[0]} is "
                                   "missing")
    return proven["no_ties"]


def _check_between(W, statement, x, paper) -> None:
    """``{"labels": [i, j], "first": k}``: at ``x``, ``w_i.x = w_j.x``, label ``k`` is
    strictly first and ``i, j`` come next, ahead of every other label."""
    if statement != paper:
        raise CertificateError(f"assertion.between: the paper states {shown_json(paper)}")
    (i, j), k = statement["labels"], statement["first"]
    x = _vector(x, "evidence.between", SQUARE_ROOTS, len(W[0]))
    logits = [_dot(w, x) for w in W]
    rest = [v for m, v in enumerate(logits) if m not in (i, j, k)]
    if _sign(logits[i] - logits[j]) or _sign(logits[k] - logits[i]) <= 0 or \
            any(_sign(logits[i] - v) <= 0 for v in rest):
        raise CertificateError(f"evidence.between: x does not rank {k} first and "
                               f"{i}, {j} tied next")


def _check_nearest(C, statements, no_ties) -> None:
    """Each ``{"label": i, "neighbours": [a, b]}``: ``a < b`` are the two labels with the
    largest ``cos(w_i, w_k)`` (strictly ahead of the rest), and one of them is proven
    unable to tie with ``i``. At least one such label."""
    if not json_list(statements, "assertion.nearest"):
        raise CertificateError("assertion.nearest: no label")
    for k, statement in enumerate(statements):
        where = f"assertion.nearest[{k}]"
        json_object(statement, where, ("label", "neighbours"))
        i = json_index(statement["label"], f"{where}.label", len(C))
        order = sorted((m for m in range(len(C)) if m != i),
                       key=cmp_to_key(lambda a, b: _sign(C[i][b] - C[i][a])))
        if len(order) > 2 and _sign(C[i][order[1]] - C[i][order[2]]) <= 0:
            raise CertificateError(f"{where}: the two nearest neighbours are not unique")
        if statement["neighbours"] != sorted(order[:2]):
            raise CertificateError(f"{where}: the two nearest cosine neighbours of {i} are "
                                   f"{sorted(order[:2])}")
        if not any((min(i, m), max(i, m)) in no_ties for m in order[:2]):
            raise CertificateError(f"{where}: no neighbour is proven unable to tie with {i}")


def _check_example(claim: str, document, assertion, evidence) -> str:
    """Examples C.1-C.3 of Nielsen & Grivas on their ``W`` (entries in ``Q(sqrt ...)``):
    the paper's cosines exactly (its decimals as exact values or rounding bounds), the
    pairs that can tie (witness ``x``) and cannot (certificate), and per example: C.1
    the translations of lemmas 3.2 and 3.3 (equivalent models, cosines -1 and +1); C.2
    ``W`` centered, label 3 between 2 and 4, labels whose nearest cosine neighbours are
    not their tie partners; C.3 ``W`` centered with unit rows."""
    keys, paper = _EXAMPLE_KEYS[claim], PAPER[claim]
    json_object(document, "input", keys[0])
    json_object(assertion, "assertion", keys[1])
    json_object(evidence, "evidence", keys[2])
    W = input_matrix(document["W"], "input.W", SQUARE_ROOTS)
    C = within("input.W", cosine_matrix, W)
    _check_cosine_statements(C, assertion["cosines"], paper["cosines"])
    facts = [f"{_count(len(assertion['cosines']), 'cosine')} as the paper states"]
    if "centered" in keys[1]:
        _true(assertion["centered"], "assertion.centered")
        if any(_sign(sum(column, Fraction(0))) for column in zip(*W)):
            raise CertificateError("assertion.centered: the rows of W do not sum to 0")
        facts.append("W centered")
    if "unit_rows" in keys[1]:
        _true(assertion["unit_rows"], "assertion.unit_rows")
        if any(not _same(_dot(w, w), 1) for w in W):
            raise CertificateError("assertion.unit_rows: a row of W is not of length 1")
        facts.append("unit rows")
    if "ties" in keys[1]:
        no_ties = _check_ties(W, assertion, evidence, paper)
        facts.append(f"{_count(len(assertion['ties']), 'pair')} can tie, "
                     f"{len(no_ties)} cannot")
    if "between" in keys[1]:
        _check_between(W, assertion["between"], evidence["between"], paper["between"])
        facts.append("label 3 first between 2 and 4")
    if "nearest" in keys[1]:
        _check_nearest(C, assertion["nearest"], no_ties)
        facts.append(f"the two nearest cosine neighbours of "
                     f"{_count(len(assertion['nearest']), 'label')} not all tie partners")
    if "translated" in keys[1]:
        i, j = _labels(document["labels"], "input.labels", len(W))
        json_object(assertion["translated"], "assertion.translated", ("lemma 3.2", "lemma 3.3"))
        json_object(evidence["translations"], "evidence.translations", ("lemma 3.2", "lemma 3.3"))
        for lemma, target in (("lemma 3.2", -1), ("lemma 3.3", 1)):
            where = f"evidence.translations.{lemma}"
            u = _vector(evidence["translations"][lemma], where, SQUARE_ROOTS, len(W[0]))
            if _number(assertion["translated"][lemma], f"assertion.translated.{lemma}") \
                    != target or not _same(u, _lemma_translation(lemma, W[i], W[j])):
                raise CertificateError(f"{where}: not the u of {lemma}, or the asserted "
                                       f"cosine is not {target}")
            moved = [[a + b for a, b in zip(w, u)] for w in W]
            _equivalent(W, moved, where)
            if not _cosine_is(moved[i], moved[j], target):
                raise CertificateError(f"{where}: cos(w_{i} + u, w_{j} + u) is not {target}")
        facts.append("cosines -1 and +1 after the translations of lemmas 3.2 and 3.3, same "
                     "logit differences")
    return f"{claim}: {'; '.join(facts)}"


# --- Steck et al. ----------------------------------------------------------------------

def _svd_instance(document, keys=()) -> tuple:
    """``input`` with ``X, U, sigma, V, lambda`` (rational) and ``keys``: ``U^T U = I``,
    ``V^T V = V V^T = I``, ``sigma`` positive and strictly decreasing,
    ``X = U diag(sigma) V^T`` (an SVD), ``lambda > 0``."""
    json_object(document, "input", ("X", "U", "sigma", "V", "lambda") + tuple(keys))
    V = _matrix(document["V"], "input.V")
    p = len(V)
    if len(V[0]) != p:
        raise CertificateError("input.V: not square")
    X = _matrix(document["X"], "input.X", columns=p)
    U = _matrix(document["U"], "input.U", rows=len(X), columns=p)
    sigma = _vector(document["sigma"], "input.sigma", length=p)
    lam = _number(document["lambda"], "input.lambda")
    if not (_same(_mul(_transpose(U), U), _identity(p))
            and _same(_mul(_transpose(V), V), _identity(p))
            and _same(_mul(V, _transpose(V)), _identity(p))):
        raise CertificateError("input: U^T U = I and V^T V = V V^T = I do not hold")
    if any(s <= 0 for s in sigma) or any(a <= b for a, b in zip(sigma, sigma[1:])):
        raise CertificateError("input.sigma: not positive and strictly decreasing")
    if not _same(X, _mul(_mul(U, _diag(sigma)), _transpose(V))):
        raise CertificateError("input.X: not U diag(sigma) V^T")
    if lam <= 0:
        raise CertificateError("input.lambda: not positive")
    return X, U, sigma, V, lam


def _objective_1(X, P, lam):
    """(1) as a function of ``P = A B^T``: ``|X - X P|^2 + lambda |P|^2``."""
    return _frobenius(_add(X, _mul(X, P), -1)) + lam * _frobenius(P)


def _gradient_1(X, P, lam) -> list:
    """``d(1)/dP = 2 (X^T X + lambda I) P - 2 X^T X``."""
    gram = _mul(_transpose(X), X)
    return _scale(_add(_mul(_add(gram, _identity(len(P)), lam), P), gram, -1), 2)


def _objective_2(X, A, B, lam):
    """(2): ``|X - X A B^T|^2 + lambda (|X A|^2 + |B|^2)``."""
    XA = _mul(X, A)
    return (_frobenius(_add(X, _mul(XA, _transpose(B)), -1))
            + lam * (_frobenius(XA) + _frobenius(B)))


def _gradients_2(X, A, B, lam) -> tuple:
    """``d(2)/dA = -2 X^T R B + 2 lambda X^T X A`` and ``d(2)/dB = -2 R^T X A +
    2 lambda B``, with ``R = X - X A B^T``."""
    XA = _mul(X, A)
    R = _add(X, _mul(XA, _transpose(B)), -1)
    return (_add(_scale(_mul(_mul(_transpose(X), R), B), -2),
                 _mul(_transpose(X), XA), 2 * lam),
            _add(_scale(_mul(_transpose(R), XA), -2), B, 2 * lam))


def _roots(values, squares, where: str, positive: bool = True) -> list:
    """``values`` (sums of square roots) are the square roots of ``squares``: each
    ``r^2`` equals its square and ``r > 0`` (``r >= 0`` if not ``positive``)."""
    roots = _vector(values, where, SQUARE_ROOTS, len(squares))
    for k, (r, q) in enumerate(zip(roots, squares)):
        if not _same(r * r, q) or _sign(r) < (1 if positive else 0):
            raise CertificateError(f"{where}[{k}]: not the {'positive ' if positive else ''}"
                                   f"square root of {q}")
    return roots


def _three_cosines(users, items) -> list:
    """The item-item, user-user and user-item cosine matrices, with their names."""
    return [("item-item", within("item-item", _cosines, items)),
            ("user-user", within("user-user", _cosines, users)),
            ("user-item", within("user-item", _cosines, users, items))]


def _differ(where: str, first, second) -> None:
    if _same(first, second):
        raise CertificateError(f"{where}: equal, but asserted to differ")


def _agree(where: str, first, second) -> None:
    if not _same(first, second):
        raise CertificateError(f"{where}: not equal")


def _check_eq1_invariance(document, assertion, evidence) -> str:
    """Steck eq1-invariance on an instance: for each listed diagonal ``D`` (with
    ``D D_inv = I``), ``(A D)(B D_inv)^T = A B^T`` and (1) takes the asserted value, as
    at ``(A, B)``; the item-item (rows of ``B D_inv``), user-user (rows of ``X A D``) and
    user-item cosine matrices of the first two ``D`` all differ."""
    X, U, sigma, V, lam = _svd_instance(document, ("A", "B", "D"))
    json_object(assertion, "assertion", ("objective",))
    json_object(evidence, "evidence", ("D_inv", "symbolic"))
    _symbolic(evidence, "steck eq1-invariance")
    A = _matrix(document["A"], "input.A", SQUARE_ROOTS, rows=len(V))
    k = len(A[0])
    B = _matrix(document["B"], "input.B", SQUARE_ROOTS, rows=len(V), columns=k)
    value = _number(assertion["objective"], "assertion.objective", SQUARE_ROOTS)
    P = _mul(A, _transpose(B))
    _agree("assertion.objective: (1) at (A, B)", _objective_1(X, P, lam), value)
    scalings = json_list(document["D"], "input.D")
    inverses = json_list(evidence["D_inv"], "evidence.D_inv", len(scalings))
    if len(scalings) < 2:
        raise CertificateError("input.D: two scalings are needed to compare cosines")
    factors = []
    for t, (D, D_inv) in enumerate(zip(scalings, inverses)):
        D = _matrix(D, f"input.D[{t}]", SQUARE_ROOTS, rows=k, columns=k)
        D_inv = _matrix(D_inv, f"evidence.D_inv[{t}]", SQUARE_ROOTS, rows=k, columns=k)
        if not _is_diagonal(D) or not _same(_mul(D, D_inv), _identity(k)):
            raise CertificateError(f"input.D[{t}]: not diagonal, or D D_inv != I")
        AD, BD = _mul(A, D), _mul(B, D_inv)
        _agree(f"input.D[{t}]: (A D)(B D^-1)^T = A B^T", _mul(AD, _transpose(BD)), P)
        _agree(f"input.D[{t}]: (1) at (A D, B D^-1)",
               _objective_1(X, _mul(AD, _transpose(BD)), lam), value)
        factors.append((AD, BD, _mul(X, AD)))
    (_, B1, XA1), (_, B2, XA2) = factors[:2]
    for (kind, first), (_, second) in zip(_three_cosines(XA1, B1), _three_cosines(XA2, B2)):
        _differ(f"{kind} cosines", first, second)
    return (f"steck eq1-invariance: (1) = {value} for (A, B) and {len(scalings)} diagonal "
            "rescalings (A D, B D^-1); item-item, user-user and user-item cosines differ "
            "between the first two; symbolic part not checked here")


def _check_eq1_closed_form(document, assertion, evidence) -> str:
    """Steck eq1-closed-form on an instance: with ``c_i = 1/(1 + lambda/sigma_i^2)`` and
    ``P = V diag(c) V^T``, the gradient of (1) vanishes at ``P``; ``X^T X + lambda I`` has
    positive leading principal minors (so (1) is strictly convex in ``P`` and ``P`` is
    the unique minimiser); (1) rises by ``|X E|^2 + lambda |E|^2 > 0`` in each listed
    direction ``E``; ``A = V diag(sqrt c)`` gives ``A A^T = P``; for the listed ``k``,
    ``A_k`` (first ``k`` columns) has both gradients ``G A_k``, ``G^T A_k`` zero
    (``G = d(1)/dP`` at ``A_k A_k^T``), (1) takes the asserted value, and every other
    choice of ``k`` singular directions gives a larger value."""
    X, U, sigma, V, lam = _svd_instance(document, ("k", "directions"))
    json_object(assertion, "assertion", ("objective_k",))
    json_object(evidence, "evidence", ("roots", "symbolic"))
    _symbolic(evidence, "steck eq1-closed-form")
    p, k = len(V), document["k"]
    if type(k) is not int or not 1 <= k <= p:
        raise CertificateError(f"input.k: expected an integer from 1 to {p}")
    c = [1 / (1 + lam / (s * s)) for s in sigma]
    P = _mul(_mul(V, _diag(c)), _transpose(V))
    if not _is_zero(_gradient_1(X, P, lam)):
        raise CertificateError("the gradient of (1) does not vanish at V diag(c) V^T")
    H = _add(_mul(_transpose(X), X), _identity(p), lam)
    if any(_det([row[:r] for row in H[:r]]) <= 0 for r in range(1, p + 1)):
        raise CertificateError("X^T X + lambda I is not positive definite")
    for t, E in enumerate(json_list(document["directions"], "input.directions")):
        E = _matrix(E, f"input.directions[{t}]", SQUARE_ROOTS, rows=p, columns=p)
        rise = _objective_1(X, _add(P, E), lam) - _objective_1(X, P, lam)
        if not _same(rise, _frobenius(_mul(X, E)) + lam * _frobenius(E)) or _sign(rise) <= 0:
            raise CertificateError(f"input.directions[{t}]: (1) does not rise by "
                                   "|X E|^2 + lambda |E|^2 > 0")
    A = _mul(V, _diag(_roots(evidence["roots"], c, "evidence.roots")))
    _agree("A A^T = V diag(c) V^T", _mul(A, _transpose(A)), P)
    Ak = _columns(A, range(k))
    G = _gradient_1(X, _mul(Ak, _transpose(Ak)), lam)
    if not (_is_zero(_mul(G, Ak)) and _is_zero(_mul(_transpose(G), Ak))):
        raise CertificateError(f"k = {k}: a gradient of (1) does not vanish at A = B = A_k")
    value = _number(assertion["objective_k"], "assertion.objective_k", SQUARE_ROOTS)
    _agree("assertion.objective_k: (1) at A = B = A_k",
           _objective_1(X, _mul(Ak, _transpose(Ak)), lam), value)
    others = [S for S in combinations(range(p), k) if S != tuple(range(k))]
    for S in others:
        P_S = _mul(_mul(_columns(V, S), _diag([c[i] for i in S])), _transpose(_columns(V, S)))
        if _sign(_objective_1(X, P_S, lam) - value) <= 0:
            raise CertificateError(f"the singular directions {list(S)} give no larger (1)")
    return (f"steck eq1-closed-form: zero gradient of (1) at V diag(1/(1 + lambda/sigma^2)) "
            f"V^T, X^T X + lambda I positive definite (unique minimiser for k = p), A A^T "
            f"equal to it; k = {k}: zero gradients, (1) = {value}, {len(others)} other "
            "choices larger; symbolic part not checked here")


def _check_full_rank(document, assertion, evidence) -> str:
    """Steck full-rank on an instance: ``c_i = 1/(1 + lambda/sigma_i^2)`` as asserted;
    ``A = B = V diag(sqrt c)`` minimises (1) (``(X^T X + lambda I) A B^T = X^T X``, a
    zero gradient of a strictly convex function); with ``D = diag(sqrt c)``:
    ``B D^-1 = V``, ``A D = V diag(c)``, item-item cosine ``I``, and every user's
    cosines to the items are its scores ``X A D (B D^-1)^T`` divided by its norm (the
    same ranking); with ``D^-1``: ``A D^-1 = V``, ``B D = V diag(c)``, user-user cosine
    of ``X V`` equal to the cosine matrix of the rows of ``X``, item-item cosine not
    ``I``."""
    X, U, sigma, V, lam = _svd_instance(document)
    json_object(assertion, "assertion", ("c",))
    json_object(evidence, "evidence", ("roots", "inverse_roots", "symbolic"))
    _symbolic(evidence, "steck full-rank")
    p = len(V)
    c = [1 / (1 + lam / (s * s)) for s in sigma]
    if _vector(assertion["c"], "assertion.c", length=p) != c:
        raise CertificateError("assertion.c: not 1/(1 + lambda/sigma_i^2)")
    roots = _roots(evidence["roots"], c, "evidence.roots")
    inverse = _vector(evidence["inverse_roots"], "evidence.inverse_roots", SQUARE_ROOTS, p)
    if not _same([r * s for r, s in zip(roots, inverse)], [1] * p):
        raise CertificateError("evidence.inverse_roots: not the inverses of the roots")
    A = B = _mul(V, _diag(roots))
    D, D_inv = _diag(roots), _diag(inverse)
    gram = _mul(_transpose(X), X)
    _agree("(X^T X + lambda I) A B^T = X^T X",
           _mul(_add(gram, _identity(p), lam), _mul(A, _transpose(B))), gram)
    AD, BD = _mul(A, D), _mul(B, D_inv)
    _agree("B D^-1 = V", BD, V)
    _agree("A D = V diag(c)", AD, _mul(V, _diag(c)))
    _agree("item-item cosines of B D^-1 = I", within("item-item", _cosines, BD),
           _identity(p))
    users = _mul(X, AD)
    scores, cosines = _mul(users, _transpose(BD)), within("user-item", _cosines, users, BD)
    for i, user in enumerate(users):
        norm = _rational(_dot(user, user))
        if norm is None or norm <= 0:
            raise CertificateError(f"user {i}: |u|^2 is not a positive rational")
        _agree(f"user {i}: cosines to the items = scores / |u|",
               [x * _sqrt_of(norm) for x in cosines[i]], scores[i])
    _agree("A D^-1 = V", _mul(A, D_inv), V)
    _agree("B D = V diag(c)", _mul(B, D), _mul(V, _diag(c)))
    _agree("user-user cosines of X A D^-1 = cosines of the rows of X",
           within("user-user", _cosines, _mul(X, _mul(A, D_inv))),
           within("input.X", _cosines, X))
    _differ("item-item cosines of B D and I", within("item-item", _cosines, _mul(B, D)),
            _identity(p))
    return ("steck full-rank: A = B = V diag(c)^(1/2) minimises (1); D = diag(c)^(1/2): "
            "B D^-1 = V, item-item cosine I, user-item cosine = score / |user|; D^-1: "
            "A D^-1 = V, user-user cosine = cosine of the rows of X, item-item cosine not "
            "I; symbolic part not checked here")


def _check_eq2_unique(document, assertion, evidence) -> str:
    """Steck eq2-unique on an instance: ``a_i = sqrt((sigma_i - lambda)_+ / sigma_i^2)``,
    ``b_i = sqrt((sigma_i - lambda)_+)`` (non-negative roots), ``A = V diag(a)``,
    ``B = V diag(b)``: both gradients of (2) vanish; ``X A B^T = U diag((sigma -
    lambda)_+) V^T``; ``|X A e_i|^2 = |B e_i|^2 = (sigma_i - lambda)_+``; (2) takes the
    asserted value ``sum_i (2 lambda sigma_i - lambda^2`` if ``sigma_i > lambda`` else
    ``sigma_i^2)``, below every stationary point that drops singular directions; the
    diagonal ``D`` raises (2) by the asserted ``lambda sum_i (sigma_i - lambda)_+
    (d_i - 1/d_i)^2 > 0``; ``R`` is orthogonal, ``(A R, B R)`` has the same value and
    zero gradients, and the item-item, user-user and user-item cosines are unchanged."""
    X, U, sigma, V, lam = _svd_instance(document, ("R", "D"))
    json_object(assertion, "assertion", ("objective", "increase"))
    json_object(evidence, "evidence", ("a", "b", "D_inv", "symbolic"))
    _symbolic(evidence, "steck eq2-unique")
    p = len(V)
    soft = [max(s - lam, Fraction(0)) for s in sigma]
    a = _roots(evidence["a"], [t / (s * s) for t, s in zip(soft, sigma)], "evidence.a", False)
    b = _roots(evidence["b"], soft, "evidence.b", False)
    A, B = _mul(V, _diag(a)), _mul(V, _diag(b))
    if not all(_is_zero(G) for G in _gradients_2(X, A, B, lam)):
        raise CertificateError("a gradient of (2) does not vanish at (A, B)")
    XA = _mul(X, A)
    _agree("X A B^T = U diag((sigma - lambda)_+) V^T", _mul(XA, _transpose(B)),
           _mul(_mul(U, _diag(soft)), _transpose(V)))
    for i in range(p):
        _agree(f"|X A e_{i}|^2 = |B e_{i}|^2 = (sigma_{i} - lambda)_+",
               [_frobenius(_columns(XA, [i])), _frobenius(_columns(B, [i]))], [soft[i]] * 2)
    value = _number(assertion["objective"], "assertion.objective", SQUARE_ROOTS)
    _agree("assertion.objective: (2) at (A, B)", _objective_2(X, A, B, lam), value)
    _agree("assertion.objective: the formula", value,
           sum((2 * lam * s - lam * lam if s > lam else s * s for s in sigma), Fraction(0)))
    active = [i for i in range(p) if sigma[i] > lam]
    dropped = [kept for r in range(len(active)) for kept in combinations(active, r)]
    for kept in dropped:
        on = [Fraction(1 if i in kept else 0) for i in range(p)]
        value_kept = _objective_2(X, _mul(A, _diag(on)), _mul(B, _diag(on)), lam)
        if _sign(value_kept - value) <= 0:
            raise CertificateError(f"keeping only the directions {list(kept)} gives no "
                                   "larger (2)")
    D = _matrix(document["D"], "input.D", SQUARE_ROOTS, rows=p, columns=p)
    D_inv = _matrix(evidence["D_inv"], "evidence.D_inv", SQUARE_ROOTS, rows=p, columns=p)
    if not _is_diagonal(D) or not _same(_mul(D, D_inv), _identity(p)):
        raise CertificateError("input.D: not diagonal, or D D_inv != I")
    increase = _number(assertion["increase"], "assertion.increase", SQUARE_ROOTS)
    _agree("assertion.increase: (2) at (A D, B D^-1) minus (2) at (A, B)",
           _objective_2(X, _mul(A, D), _mul(B, D_inv), lam) - value, increase)
    _agree("assertion.increase: lambda sum_i (sigma_i - lambda)_+ (d_i - 1/d_i)^2", increase,
           lam * sum((t * (D[i][i] - D_inv[i][i]) * (D[i][i] - D_inv[i][i])
                      for i, t in enumerate(soft)), Fraction(0)))
    if _sign(increase) <= 0:
        raise CertificateError("assertion.increase: not positive")
    R = _matrix(document["R"], "input.R", SQUARE_ROOTS, rows=p, columns=p)
    _agree("R^T R = I", _mul(_transpose(R), R), _identity(p))
    AR, BR = _mul(A, R), _mul(B, R)
    _agree("(2) at (A R, B R)", _objective_2(X, AR, BR, lam), value)
    if not all(_is_zero(G) for G in _gradients_2(X, AR, BR, lam)):
        raise CertificateError("a gradient of (2) does not vanish at (A R, B R)")
    XAR = _mul(X, AR)
    for (kind, first), (_, second) in zip(_three_cosines(XA, B), _three_cosines(XAR, BR)):
        _agree(f"{kind} cosines under R", first, second)
    return (f"steck eq2-unique: zero gradients of (2) at eq. 6, (2) = {value}, "
            f"{len(dropped)} stationary points dropping directions larger, D raises (2) by "
            f"{increase}, the rotation R keeps (2), stationarity and all three cosine "
            "matrices; symbolic part not checked here")


# --- sweeps ----------------------------------------------------------------------------

#: Claim -> (reason, number of rows named) of a matrix outside its hypothesis.
_SKIPS = {"lemma 5.3": ("a zero row", 1), "theorem 5.6": ("two equal rows", 2)}


def _check_skip(claim: str, W, result, where: str) -> str:
    """A skipped matrix: ``{"skipped": reason, "rows": [...]}`` naming a zero row
    (lemma 5.3) or two equal rows ``i < j`` (theorem 5.6), re-verified on ``W``."""
    json_object(result, where, ("skipped", "rows"))
    if claim not in _SKIPS:
        raise CertificateError(f"{where}: {claim} has no hypothesis, no matrix is skipped")
    reason, count = _SKIPS[claim]
    if result["skipped"] != reason:
        raise CertificateError(f"{where}: the reason for {claim} is {reason!r}")
    rows = [json_index(r, f"{where}.rows", len(W))
            for r in json_list(result["rows"], f"{where}.rows", count)]
    if count == 2 and rows[0] >= rows[1]:
        raise CertificateError(f"{where}.rows: expected i < j")
    outside = not any(W[rows[0]]) if count == 1 else W[rows[0]] == W[rows[1]]
    if not outside:
        raise CertificateError(f"{where}: wrongly skipped, {shown_json(result['rows'])} is not "
                               f"{reason}")
    return reason


def _check_one_matrix(claim: str, W_raw, assertion, evidence) -> int:
    """The single-matrix check of ``claim`` on ``W``; returns the number of cells."""
    if claim == "proposition E.2":
        check_sign_pattern({"W": W_raw, "affine": False}, assertion, evidence)
    else:
        check_cosine_claim(claim, {"W": W_raw}, assertion, evidence)
    return assertion["count"]


def _check_sweep(claim: str, document, assertion, evidence) -> str:
    """A sweep of ``claim`` over the listed matrices: every matrix has the evidence of
    its single-matrix certificate (lemma 5.3, theorem 5.6: the one list of sign vectors
    proven to be ``S(M)`` and ``S(C(M))``; proposition E.2: the complete sign pattern,
    which is exactly the set of open orthants met by the column span) or is skipped
    for a reason re-verified here; the counts are as asserted."""
    json_object(document, "input", ("family", "matrices"))
    json_object(assertion, "assertion", ("checked", "skipped", "cells"))
    json_object(evidence, "evidence", ("results",))
    if not isinstance(document["family"], str):
        raise CertificateError("input.family: expected a string")
    matrices = json_list(document["matrices"], "input.matrices")
    results = json_list(evidence["results"], "evidence.results", len(matrices))
    if not matrices:
        raise CertificateError("input.matrices: no matrix")
    counts, reasons = {"checked": 0, "skipped": 0, "cells": 0}, {}
    for k, (raw, result) in enumerate(zip(matrices, results)):
        W = input_matrix(raw, f"input.matrices[{k}]")
        where = f"evidence.results[{k}]"
        if isinstance(result, dict) and "skipped" in result:
            reason = _check_skip(claim, W, result, where)
            counts["skipped"] += 1
            reasons[reason] = reasons.get(reason, 0) + 1
            continue
        json_object(result, where, ("assertion", "evidence"))
        counts["cells"] += within(f"matrix {k}", _check_one_matrix, claim, raw,
                                   result["assertion"], result["evidence"])
        counts["checked"] += 1
    for key, value in counts.items():
        if type(assertion[key]) is not int or assertion[key] != value:
            raise CertificateError(f"assertion.{key}: {shown_json(assertion[key])}, but the "
                                   f"results give {value}")
    skipped = ", ".join(f"{n} with {reason}" for reason, n in reasons.items())
    return (f"{claim} on {len(matrices)} matrices ({document['family']}): "
            f"{counts['checked']} checked, {counts['cells']} cells, {counts['skipped']} "
            f"skipped" + (f" ({skipped})" if skipped else ""))


def _cosine_claim_or_sweep(claim: str, document, assertion, evidence) -> str:
    """``lemma 5.3`` / ``theorem 5.6``: a sweep if ``input`` lists ``matrices``, else the
    single-matrix certificate of :mod:`verify.checker.core`."""
    if isinstance(document, dict) and "matrices" in document:
        return _check_sweep(claim, document, assertion, evidence)
    return check_cosine_claim(claim, document, assertion, evidence)


#: The claims checked here, by the value of the top-level key ``claim``.
CLAIMS = {
    "lemma 3.1": _check_lemma_31,
    "lemma 3.2": partial(_check_translation_lemma, "lemma 3.2", -1),
    "lemma 3.3": partial(_check_translation_lemma, "lemma 3.3", 1),
    "theorem 3.4": _check_theorem_34,
    "appendix D": _check_appendix_d,
    "proposition E.2": partial(_check_sweep, "proposition E.2"),
    "lemma 5.3": partial(_cosine_claim_or_sweep, "lemma 5.3"),
    "theorem 5.6": partial(_cosine_claim_or_sweep, "theorem 5.6"),
    "example C.1": partial(_check_example, "example C.1"),
    "example C.2": partial(_check_example, "example C.2"),
    "example C.3": partial(_check_example, "example C.3"),
    "steck eq1-invariance": _check_eq1_invariance,
    "steck eq1-closed-form": _check_eq1_closed_form,
    "steck full-rank": _check_full_rank,
    "steck eq2-unique": _check_eq2_unique,
}
