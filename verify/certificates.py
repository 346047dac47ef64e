"""Certificate files for sign patterns and ranking patterns (``verify-certificate/1``).

A certificate lets a reviewer confirm an enumerated pattern without trusting the
engine: :mod:`verify.checker` reads it with the standard library alone. The format
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
:func:`verify.feasibility.strict_feasibility` returns at most ``rank + 1`` non-zero
multipliers (Carathéodory). They are scaled to a primitive integer vector, which
keeps the file short and deterministic.

Example
-------
>>> cert = pattern_certificate([[1, 0], [0, 1], [1, 1]], kind="sign", affine=False)
>>> cert["assertion"]["count"], len(cert["evidence"]["refutations"])
(6, 2)
>>> from verify.checker import check_certificate
>>> check_certificate(cert)
'sign pattern, 6 cells, complete'
"""

from __future__ import annotations

from math import gcd, lcm

from flint import fmpq

from verify.arrangement import braid_product, ranking_pattern, sign_pattern
from verify.feasibility import Witness, strict_feasibility
from verify.fileio import write_json_atomic
from verify.linalg import group_parallel_rows, primitive_integer_row, to_fmpq_rows
from verify.numbers.rational import format_rational

__all__ = ["FORMAT", "KINDS", "pattern_certificate", "pattern_evidence", "write_certificate"]

FORMAT = "verify-certificate/1"

#: ``kind`` argument -> value of the ``claim`` key.
KINDS = {"sign": "sign pattern", "ranking": "ranking pattern"}


def pattern_certificate(W, *, kind: str, affine: bool) -> dict:
    """The certificate of ``S(W)`` (``kind="sign"``) or ``R(W)`` (``kind="ranking"``).

    Parameters
    ----------
    W : rows of exact rationals (int / Fraction / fmpq), ``n x d`` with ``n, d >= 1``,
        for example as returned by :func:`verify.matrix_io.read_matrix`.
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


def write_certificate(path, obj: dict) -> None:
    """Write a certificate atomically as one line of JSON (same object, same bytes)."""
    write_json_atomic(path, obj)
