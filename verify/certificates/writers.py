"""Certificate files (``verify-certificate/1``) for sign patterns, ranking patterns and
the claims ``lemma 5.3`` / ``theorem 5.6`` on one matrix (:func:`claim_certificate`:
one list proven to be both ``S(M)`` and ``S(C(M))``, the second over ``Q(sqrt ...)``);
sweep certificates of ``lemma 5.3``, ``theorem 5.6`` and ``proposition E.2`` over a list
of matrices (:func:`sweep_certificate`); and the helpers with which the claim runners
write instance certificates (:func:`instance_certificate`).

A certificate lets a reviewer confirm an enumerated pattern without trusting the
engine: :mod:`verify.checker.core` reads it with the standard library alone. The format
and the argument that makes it a proof are in ``docs/certificates.md``; in short, for
the matrix ``M`` (``W`` or ``[1 | W]`` for a sign pattern, ``B_n W`` or ``B_n [1 | W]``
for a ranking pattern) the certificate lists

* every cell ``s`` of ``S(M)`` with a rational point ``z``, ``sign(M z) = s``;
* for every cell ``T`` and every hyperplane ``H`` (class of parallel rows) such that
  the flip of ``T`` across ``H`` is not a cell, Gordan multipliers proving that
  orthant empty: ``y >= 0``, ``y != 0``, ``sum_r y_r s'_r M_r = 0``. Each empty orthant
  is refuted once, from the first cell (then the first hyperplane) that reaches it.

Finding the multipliers
-----------------------
The flip of ``T`` across ``H`` is empty exactly when ``H`` is not a wall (facet
hyperplane) of ``T``. The closure of the open cone ``T`` is cut out by its walls
alone, so ``T`` equals ``{z : s_w m_w z > 0 for one row m_w of every wall}``; a point
with those inequalities and ``-s_h m_h z > 0`` for a row ``m_h`` of ``H`` would be in
``T`` and off it at once. So this small system (one row per wall, plus one flipped row
of ``H``) is infeasible, and by Gordan's theorem it has multipliers; padded with zeros
they refute the whole flipped orthant. The walls of ``T`` are read off the enumerated
pattern (the hyperplanes whose flip is again a cell), and the exact LP oracle
:func:`verify.lp.feasibility.strict_feasibility` returns at most ``rank + 1`` non-zero
multipliers (Carathéodory). They are scaled to a primitive integer vector, which
keeps the file short and deterministic.

Example
-------
>>> cert = pattern_certificate([[1, 0], [0, 1], [1, 1]], kind="sign", affine=False)
>>> cert["assertion"]["count"], len(cert["evidence"]["refutations"])
(6, 2)
>>> from verify.checker.core import check_certificate
>>> check_certificate(cert)
'sign pattern, 6 cells, complete'
>>> check_certificate(claim_certificate("lemma 5.3", [[1, 0], [0, 1], [1, 1]]))
'lemma 5.3, S(C(W)) = S(W): 6 cells, complete on both sides'
"""

from __future__ import annotations

from math import gcd, lcm

from flint import fmpq

from verify.arrangement import braid_product, ranking_pattern, sign_pattern
from verify.arrangement.chirotope import exact_column_basis, field_topes
from verify.arrangement.sign_pattern import Cell
from verify.lp.feasibility import Witness, strict_feasibility
from verify.lp.field_simplex import strict_feasibility_over
from verify.io.atomic import write_json_atomic
from verify.linalg.exact import group_parallel_rows, primitive_integer_row, to_fmpq_rows
from verify.numbers.rational import format_rational, parse_rational
from verify.numbers.sqrt_sum import ONE, SqrtSum, cosine_matrix

__all__ = ["FORMAT", "KINDS", "COSINE_CLAIMS", "SWEEP_CLAIMS", "pattern_certificate",
           "pattern_evidence", "claim_certificate", "cosine_evidence", "h1_certificate",
           "theorem55_certificate", "sweep_certificate", "instance_certificate",
           "symbolic_note", "exact", "exact_rows", "format_sqrt_sum", "write_certificate"]

FORMAT = "verify-certificate/1"

#: ``kind`` argument -> value of the ``claim`` key.
KINDS = {"sign": "sign pattern", "ranking": "ranking pattern"}

#: Claims with a certificate from :func:`claim_certificate`.
COSINE_CLAIMS = ("lemma 5.3", "theorem 5.6")

#: Claims with a sweep certificate from :func:`sweep_certificate`.
SWEEP_CLAIMS = ("lemma 5.3", "theorem 5.6", "proposition E.2")


def pattern_certificate(W, *, kind: str, affine: bool) -> dict:
    """The certificate of ``S(W)`` (``kind="sign"``) or ``R(W)`` (``kind="ranking"``).

    Parameters
    ----------
    W : rows of exact rationals (int / Fraction / fmpq), ``n x d`` with ``n, d >= 1``,
        for example as returned by :func:`verify.io.matrix.read_matrix`.
    kind : ``"sign"`` or ``"ranking"``.
    affine : prepend a column of ones (the point configuration ``[1 | W]``).

    Returns
    -------
    dict
        The JSON object of the certificate, keys in the documented order; the same
        input always gives the same object.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; choose from {', '.join(KINDS)}")
    rows = to_fmpq_rows(W)
    if not rows or not rows[0] or any(len(row) != len(rows[0]) for row in rows):
        raise ValueError("W must be a non-empty rectangular matrix with at least one column")
    V = [[fmpq(1)] + row for row in rows] if affine else rows
    if kind == "sign":
        M = V
        cells = sign_pattern(M).cells
        assertion = {"count": len(cells), "patterns": [c.signs for c in cells]}
    else:
        M = braid_product(V)
        result = ranking_pattern(rows, affine=affine)
        cells = result.cells
        assertion = {"count": len(cells), "patterns": [c.signs for c in cells],
                     "rankings": [list(r) for r in result.rankings]}
    return {
        "format": FORMAT,
        "claim": KINDS[kind],
        "input": {"W": [[format_rational(a) for a in row] for row in rows],
                  "affine": bool(affine)},
        "assertion": assertion,
        "evidence": pattern_evidence(M, cells),
    }


def pattern_evidence(M, cells) -> dict:
    """The ``evidence`` object for the complete list ``cells`` of the sign pattern of ``M``.

    ``cells`` are the engine's cells (``signs``, ``witness``), sorted by sign string; an
    empty list means that ``M`` has a zero row.
    """
    M = to_fmpq_rows(M)
    ints = [primitive_integer_row(row) for row in M]
    if not cells:
        zero = next((i for i, row in enumerate(ints) if not any(row)), None)
        if zero is None:
            raise ValueError("an empty sign pattern without a zero row")
        return {"zero_row": zero}
    classes: list[list[int]] = []
    if ints:
        # Hyperplanes are numbered by first appearance, so classes come out sorted by
        # their first row, and each class lists its rows in increasing order.
        planes = group_parallel_rows(ints)
        classes = [[] for _ in planes.normals]
        for r, c in enumerate(planes.of_row):
            classes[c].append(r)
    return {
        "cells": [{"signs": c.signs, "witness": [format_rational(a) for a in c.witness]}
                  for c in cells],
        "refutations": _refutations([c.signs for c in cells], classes,
                                    lambda signs, subset: _gordan_multipliers(M, signs,
                                                                              subset)),
    }


def _refutations(patterns: list[str], classes: list[list[int]], multipliers) -> list[dict]:
    """One refutation per flip of a listed pattern at a class that is not listed.

    ``multipliers(signs, subset)`` returns the JSON multipliers refuting the orthant
    ``signs``, trying the rows ``subset`` (the flipped row, then one row per wall) first.
    """
    listed = set(patterns)
    refuted: set[str] = set()
    refutations = []
    for k, signs in enumerate(patterns):
        flips = [_flip(signs, members) for members in classes]
        walls = [members[0] for members, f in zip(classes, flips) if f in listed]
        for members, flipped in zip(classes, flips):
            if flipped in listed or flipped in refuted:
                continue
            refuted.add(flipped)
            refutations.append({"cell": k, "row": members[0],
                                "multipliers": multipliers(flipped, [members[0]] + walls)})
    return refutations


def _flip(signs: str, rows) -> str:
    chars = list(signs)
    for r in rows:
        chars[r] = "-" if chars[r] == "+" else "+"
    return "".join(chars)


def _gordan_multipliers(M, signs: str, subset: list[int]) -> list[list]:
    """Primitive integer ``y >= 0`` on rows of ``M`` with ``sum y_r s_r M_r = 0``.

    Tries the small system on ``subset`` first (see the module docstring), then the
    whole orthant; returns ``[[row, "y"], ...]`` sorted by row.
    """
    def adjusted(r):
        return M[r] if signs[r] == "+" else [-a for a in M[r]]

    evidence = strict_feasibility([adjusted(r) for r in subset])
    if isinstance(evidence, Witness):
        subset = list(range(len(M)))
        evidence = strict_feasibility([adjusted(r) for r in subset])
        if isinstance(evidence, Witness):
            raise AssertionError(f"internal error: the orthant {signs} is not empty")
    pairs = sorted((subset[i], fmpq(y)) for i, y in evidence.multipliers if y != 0)
    den = lcm(*(int(y.q) for _, y in pairs))
    numerators = [int(y.p) * (den // int(y.q)) for _, y in pairs]
    g = gcd(*numerators)
    return [[r, str(v // g)] for (r, _), v in zip(pairs, numerators)]


def claim_certificate(claim_id: str, W) -> dict:
    """The certificate of ``lemma 5.3`` or ``theorem 5.6`` on one matrix ``W``.

    * ``lemma 5.3``: ``S(C(W)) = S(W)``; needs every row of ``W`` non-zero.
    * ``theorem 5.6``: ``S(C(B_n W)) = R(W) = S(B_n W)``; needs no two equal rows.

    With ``M = W`` or ``M = B_n W``, both sides are computed independently: ``S(M)`` by
    the rational engine (:func:`verify.arrangement.sign_pattern`), ``S(C(M))`` from the
    exact cosine matrix over ``Q(sqrt ...)`` by :func:`verify.arrangement.chirotope.
    field_topes`, with witnesses. Refutations of the cosine side are found by the exact
    simplex method over that field (:mod:`verify.lp.field_simplex`). ``W`` holds exact
    rationals (int / Fraction / fmpq), ``n x d`` with ``n, d >= 1``.

    Raises ``ValueError`` for an unknown claim, a malformed matrix, or a matrix outside
    the claim's hypothesis; ``RuntimeError`` if the two sides differ (which would
    contradict the claim). The same input always gives the same object.
    """
    if claim_id not in COSINE_CLAIMS:
        raise ValueError(f"no claim certificate for {claim_id!r}; choose from "
                         f"{', '.join(COSINE_CLAIMS)}")
    rows = to_fmpq_rows(W)
    if not rows or not rows[0] or any(len(row) != len(rows[0]) for row in rows):
        raise ValueError("W must be a non-empty rectangular matrix with at least one column")
    if claim_id == "lemma 5.3":
        zero = next((i for i, row in enumerate(rows) if not any(row)), None)
        if zero is not None:
            raise ValueError(f"lemma 5.3 needs non-zero rows, but row {zero} of W is zero")
        M = rows
    else:
        seen: dict[tuple, int] = {}
        for j, row in enumerate(rows):
            if tuple(row) in seen:
                raise ValueError(f"theorem 5.6 needs distinct rows, but rows "
                                 f"{seen[tuple(row)]} and {j} of W are equal")
            seen[tuple(row)] = j
        M = braid_product(rows)
    if M:
        cells = sign_pattern(M).cells
        C = cosine_matrix(M)
        topes, points = field_topes(C, witnesses=True)
        cosine_cells = sorted(((_sign_string(t), points[t]) for t in topes),
                              key=lambda cell: cell[0])
    else:  # n = 1 for theorem 5.6: no rows, the one (empty) sign vector
        cells, C = [Cell(signs="", witness=(fmpq(0),) * len(rows[0]))], []
        cosine_cells = [("", [])]
    patterns = [c.signs for c in cells]
    if [signs for signs, _ in cosine_cells] != patterns:
        raise RuntimeError(f"{claim_id} fails on this matrix: S(M) has {len(patterns)} "
                           f"sign vectors, S(C(M)) {len(cosine_cells)}, and they differ")
    return {
        "format": FORMAT,
        "claim": claim_id,
        "input": {"W": [[format_rational(a) for a in row] for row in rows]},
        "assertion": {"count": len(patterns), "patterns": patterns, "equal": True},
        "evidence": {"matrix": pattern_evidence(M, cells),
                     "cosine": cosine_evidence(C, cosine_cells)},
    }


def cosine_evidence(C, cells) -> dict:
    """The ``evidence`` of the sign pattern of ``C`` (entries :class:`SqrtSum`).

    ``cells`` are the pairs ``(signs, witness)`` of the complete pattern, sorted by sign
    string, witnesses in ``K^N`` (``K = Q(sqrt ...)``, ``N`` the number of columns).
    Classes of parallel rows are found exactly (all 2x2 minors vanish); Gordan
    multipliers are computed on a column basis of ``C`` (a dependency among the rows
    restricted to a column basis is one among the full rows) and scaled so that the
    first is 1.
    """
    basis = exact_column_basis(C) if C else []
    classes: list[list[int]] = []
    for r, row in enumerate(C):
        for members in classes:
            first = C[members[0]]
            if all((a * first[p] - b * row[p]).is_zero()
                   for a, b in zip(row, first) for p in range(len(row))):
                members.append(r)
                break
        else:
            classes.append([r])

    def multipliers(signs: str, subset: list[int]) -> list[list]:
        def adjusted(r):
            return [C[r][j] if signs[r] == "+" else -C[r][j] for j in basis]

        evidence = strict_feasibility_over([adjusted(r) for r in subset], ONE)
        if isinstance(evidence, Witness):
            subset = list(range(len(C)))
            evidence = strict_feasibility_over([adjusted(r) for r in subset], ONE)
            if isinstance(evidence, Witness):
                raise AssertionError(f"internal error: the orthant {signs} is not empty")
        pairs = sorted((subset[i], y) for i, y in evidence.multipliers)
        scale = pairs[0][1].inverse()
        return [[r, format_sqrt_sum(y * scale)] for r, y in pairs]

    return {
        "cells": [{"signs": signs, "witness": [format_sqrt_sum(a) for a in z]}
                  for signs, z in cells],
        "refutations": _refutations([signs for signs, _ in cells], classes, multipliers),
    }


def h1_certificate(A, B) -> dict:
    """The certificate of theorem H.1 for two point configurations ``A`` and ``B``.

    ``A`` and ``B`` are ``n x d`` matrices of exact rationals (points as rows; strings
    such as ``"-4/5"`` are read exactly). The
    certificate proves ``S([1|A]) = S([1|B])`` (one list, complete evidence for both),
    the complete ranking patterns ``R(A)`` and ``R(B)``, and lists ``R(A) - R(B)`` and
    ``R(B) - R(A)`` (rankings sorted), each ranking with its witness on its own side and
    primitive integer Gordan multipliers on the rows of ``B_n`` of the other side.

    Raises ``ValueError`` if the shapes differ, if ``S([1|A]) != S([1|B])``, or if
    ``R(A) = R(B)`` (then ``A, B`` is no counterexample). Deterministic.
    """
    V = {key: to_fmpq_rows([parse_rational(a) if isinstance(a, str) else a for a in row]
                           for row in W) for key, W in (("A", A), ("B", B))}
    if (not V["A"] or not V["A"][0] or len(V["A"]) != len(V["B"])
            or any(len(row) != len(V["A"][0]) for row in V["A"] + V["B"])):
        raise ValueError("A and B must be non-empty matrices of the same shape")
    ones = {key: [[fmpq(1)] + row for row in W] for key, W in V.items()}
    S = {key: sign_pattern(W).cells for key, W in ones.items()}
    patterns = [c.signs for c in S["A"]]
    if [c.signs for c in S["B"]] != patterns:
        raise ValueError("S([1|A]) != S([1|B]): not a pair for theorem H.1")
    R = {key: ranking_pattern(W) for key, W in V.items()}
    assertion = {"count": len(patterns), "patterns": patterns}
    evidence = {f"sign_{key}": pattern_evidence(ones[key], S[key]) for key in "AB"}
    evidence.update({f"ranking_{key}": pattern_evidence(braid_product(V[key]), R[key].cells)
                     for key in "AB"})
    for this, other in ("AB", "BA"):
        excluded = set(R[other].rankings)
        only = sorted((r, c) for r, c in zip(R[this].rankings, R[this].cells)
                      if r not in excluded)
        M = braid_product(V[other])
        assertion[f"only_in_{this}"] = [list(r) for r, _ in only]
        evidence[f"only_in_{this}"] = [
            {"witness": [format_rational(a) for a in c.witness],
             "multipliers": _gordan_multipliers(M, c.signs, list(range(len(M))))}
            for _, c in only]
    if not assertion["only_in_A"] and not assertion["only_in_B"]:
        raise ValueError("R(A) = R(B): not a pair for theorem H.1")
    return {
        "format": FORMAT,
        "claim": "theorem H.1",
        "input": {key: [[format_rational(a) for a in row] for row in W]
                  for key, W in V.items()},
        "assertion": assertion,
        "evidence": evidence,
    }


def theorem55_certificate(W1, W2, label: int | None) -> dict:
    """The certificate of theorem 5.5 for two matrices with the same cosine matrix.

    ``W1`` and ``W2`` have ``n`` rows of exact numbers: rationals (int / Fraction /
    fmpq), :class:`SqrtSum`, or strings read by
    :func:`verify.numbers.sqrt_sum.parse_sqrt_sum` (``"5*sqrt(2)/2"``); every
    ``|w_i|^2 |w_j|^2`` must be rational.

    * ``label`` an integer: the rankings of ``R(W1)`` that put ``label`` first, each
      with an exact witness (over ``Q(sqrt ...)`` if ``W1`` is), and Gordan multipliers
      ``y_k >= 0`` with ``sum_k y_k (w_label - w_k) = 0`` over ``W2`` (scaled to coprime
      integers if rational, else so that the first is 1).
    * ``label`` None (rational matrices only): complete ranking-pattern evidence of
      ``W1`` and ``W2`` and their two differences, like :func:`h1_certificate`.

    Raises ``ValueError`` if ``C(W1) != C(W2)``, if the label is first somewhere for
    ``W2`` or nowhere for ``W1``, if ``R(W1) = R(W2)``, or for malformed input.
    """
    from verify.arrangement.first_label import never_first, top_label_rankings
    from verify.numbers.field_cosine import field_cosine_matrix
    from verify.numbers.sqrt_sum import parse_sqrt_sum

    def exact(W):
        rows = [[parse_sqrt_sum(a) if isinstance(a, str) else SqrtSum(a) for a in row]
                for row in W]
        if not rows or not rows[0] or any(len(row) != len(rows[0]) for row in rows):
            raise ValueError("W1 and W2 must be non-empty rectangular matrices")
        if all(a.is_rational() for row in rows for a in row):
            return [[a.to_rational() for a in row] for row in rows]
        return rows

    W1, W2 = exact(W1), exact(W2)
    n = len(W1)
    if len(W2) != n:
        raise ValueError("W1 and W2 must have the same number of rows")
    if label is not None and not (type(label) is int and 0 <= label < n):
        raise ValueError(f"label must be an integer from 0 to {n - 1} or None")
    if field_cosine_matrix(W1) != field_cosine_matrix(W2):
        raise ValueError("C(W1) != C(W2): not a pair for theorem 5.5")
    document = {"W1": [[format_sqrt_sum(a) for a in row] for row in W1],
                "W2": [[format_sqrt_sum(a) for a in row] for row in W2],
                "label": label}
    if label is None:
        if any(isinstance(a, SqrtSum) for row in W1 + W2 for a in row):
            raise ValueError("the form without a label needs rational matrices")
        R = {"W1": ranking_pattern(W1), "W2": ranking_pattern(W2)}
        assertion = {"cosines_equal": True}
        for this, other in (("W1", "W2"), ("W2", "W1")):
            excluded = set(R[other].rankings)
            assertion[f"only_in_{this}"] = sorted(list(r) for r in R[this].rankings
                                                  if r not in excluded)
        if not assertion["only_in_W1"] and not assertion["only_in_W2"]:
            raise ValueError("R(W1) = R(W2): not a pair for theorem 5.5")
        evidence = {f"ranking_{key}": pattern_evidence(braid_product(W), R[key].cells)
                    for key, W in (("W1", W1), ("W2", W2))}
    else:
        first = sorted(top_label_rankings(W1, label), key=lambda pair: pair[0])
        refutation = never_first(W2, label)
        if not first or refutation is None:
            raise ValueError(f"label {label} is never first for W1, or first somewhere "
                             "for W2: not a pair of this form")
        others = [k for k in range(n) if k != label]
        assertion = {"cosines_equal": True, "first_in_W1": [list(r) for r, _ in first]}
        evidence = {"witnesses": [[format_sqrt_sum(a) for a in z] for _, z in first],
                    "multipliers": _scaled([(others[i], y)
                                            for i, y in refutation.multipliers])}
    return {
        "format": FORMAT,
        "claim": "theorem 5.5",
        "input": document,
        "assertion": assertion,
        "evidence": evidence,
    }


def _scaled(pairs) -> list[list]:
    """Multipliers ``[[k, y], ...]`` divided by the first; coprime integers if rational."""
    scale = SqrtSum(pairs[0][1]).inverse()
    values = [SqrtSum(y) * scale for _, y in pairs]
    if all(y.is_rational() for y in values):
        rationals = [y.to_rational() for y in values]
        den = lcm(*(int(q.q) for q in rationals))
        numerators = [int(q.p) * (den // int(q.q)) for q in rationals]
        values = [SqrtSum(v // gcd(*numerators)) for v in numerators]
    return [[k, format_sqrt_sum(y)] for (k, _), y in zip(pairs, values)]


def sweep_certificate(claim_id: str, family: str, matrices) -> dict:
    """The sweep certificate of ``claim_id`` on ``matrices`` (a list of rational matrices).

    Per matrix, either the evidence of a single-matrix certificate (its ``assertion`` and
    ``evidence``: :func:`claim_certificate` for ``lemma 5.3`` / ``theorem 5.6``, the sign
    pattern of :func:`pattern_certificate` for ``proposition E.2``), or, outside the
    claim's hypothesis, ``{"skipped": reason, "rows": [...]}`` naming a zero row
    (``lemma 5.3``) or two equal rows (``theorem 5.6``). ``family`` describes where the
    matrices come from. Deterministic; ``RuntimeError`` if the claim fails on a matrix.
    """
    if claim_id not in SWEEP_CLAIMS:
        raise ValueError(f"no sweep certificate for {claim_id!r}; choose from "
                         f"{', '.join(SWEEP_CLAIMS)}")
    rows_of = [to_fmpq_rows(W) for W in matrices]
    results, checked, cells = [], 0, 0
    for rows in rows_of:
        skip = _outside_hypothesis(claim_id, rows)
        if skip is None:
            cert = (pattern_certificate(rows, kind="sign", affine=False)
                    if claim_id == "proposition E.2" else claim_certificate(claim_id, rows))
            skip = {"assertion": cert["assertion"], "evidence": cert["evidence"]}
            checked, cells = checked + 1, cells + cert["assertion"]["count"]
        results.append(skip)
    return {
        "format": FORMAT,
        "claim": claim_id,
        "input": {"family": family,
                  "matrices": [[[format_rational(a) for a in row] for row in rows]
                               for rows in rows_of]},
        "assertion": {"checked": checked, "skipped": len(rows_of) - checked, "cells": cells},
        "evidence": {"results": results},
    }


def _outside_hypothesis(claim_id: str, rows) -> dict | None:
    """``{"skipped": reason, "rows": [...]}`` if ``rows`` violates the claim's hypothesis."""
    if claim_id == "lemma 5.3":
        zero = next((i for i, row in enumerate(rows) if not any(row)), None)
        return None if zero is None else {"skipped": "a zero row", "rows": [zero]}
    if claim_id == "theorem 5.6":
        seen: dict[tuple, int] = {}
        for j, row in enumerate(rows):
            if tuple(row) in seen:
                return {"skipped": "two equal rows", "rows": [seen[tuple(row)], j]}
            seen[tuple(row)] = j
    return None


def symbolic_note(claim_id: str) -> str:
    """The ``evidence.symbolic`` string of an instance certificate: the sympy part of a
    claim's check cannot be re-done with the standard library."""
    return f"not checked here: re-run python -m verify {claim_id} (needs sympy)"


def instance_certificate(claim_id: str, document: dict, assertion: dict,
                         evidence: dict) -> dict:
    """An instance certificate: the exact data a claim's check used (``document``), the
    facts asserted about it, and the evidence; see ``docs/certificates.md``."""
    return {"format": FORMAT, "claim": claim_id, "input": document,
            "assertion": assertion, "evidence": evidence}


def exact(x) -> str:
    """A rational (int / Fraction / fmpq) or :class:`SqrtSum` as a certificate number:
    ``"p/q"`` for a rational, else the grammar of :func:`format_sqrt_sum`."""
    return format_sqrt_sum(x)


def exact_rows(M) -> list[list[str]]:
    """A matrix (or a list of vectors) with every entry written by :func:`exact`."""
    return [[exact(a) for a in row] for row in M]


def format_sqrt_sum(x) -> str:
    """``x`` (a :class:`SqrtSum`) in the number grammar of the cosine side.

    Terms by increasing squarefree radicand, each ``p/q*sqrt(r)`` (``p`` for ``r = 1``,
    ``/q`` left out when ``q = 1``, ``p*`` when ``p/q = 1``), joined by ``" + "`` and
    ``" - "``, a leading ``"-"`` for a negative first term; ``"0"`` for zero.
    """
    pieces = []
    for r, q in SqrtSum(x).terms:
        magnitude = format_rational(abs(q))
        term = magnitude if r == 1 else (f"sqrt({r})" if magnitude == "1"
                                         else f"{magnitude}*sqrt({r})")
        pieces.append(("-" if q < 0 else "") + term if not pieces
                      else (" - " if q < 0 else " + ") + term)
    return "".join(pieces) or "0"


def _sign_string(tope) -> str:
    return "".join("+" if s > 0 else "-" for s in tope)


def write_certificate(path, obj: dict) -> None:
    """Write a certificate atomically as one line of JSON (same object, same bytes)."""
    write_json_atomic(path, obj)
