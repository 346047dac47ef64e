"""Examples C.1, C.2 and C.3 of Nielsen & Grivas (App. C), with the paper's numbers.

* C.1: ``cos(w_0, w_1) = 0.8``; translating every row by Lemma 3.2's ``u`` makes it
  ``-1``, by Lemma 3.3's ``u`` makes it ``+1``; the three models are equivalent (their
  logit differences ``B_n W x`` agree for every input ``x``, since ``B_n (W + 1u^T) =
  B_n W``).
* C.2: a centered ``W`` (its rows sum to 0) with ``cos(w_0, w_1) ≈ 0.32`` and
  ``cos(w_1, w_2) ≈ -0.59``, yet both pairs can be tied for the highest probability;
  ``cos(w_2, w_4) = 0.8``, yet ``w_2, w_4`` cannot (label 3 wins between them). A
  label's nearest cosine neighbours are not the labels it can tie with.
* C.3: a centered ``W`` with unit rows and entries in ``Q(√39)``:
  ``cos(w_0, w_1) = -0.805`` yet they can tie; ``cos(w_1, w_3) = 0.805`` yet they
  cannot.

Cosines are exact (sums of square roots, or rationals); "can be tied for the highest
probability" (some ``x`` with ``w_i.x = w_j.x > w_k.x`` for every other ``k``) is
decided by an exact LP: a witness input, or multipliers proving that no such input
exists (:func:`verify.analyze.ties.tie_pairs`). The paper's approximate values
("≈ 0.32") are checked as exact inequalities on the exact cosines.
"""

from __future__ import annotations

from fractions import Fraction

from verify.analyze.ties import TieWitness, tie_pairs
from verify.arrangement import braid_product
from verify.certificates.writers import exact, exact_rows, instance_certificate
from verify.claims.outcome import ClaimOutcome
from verify.data import paper_example
from verify.numbers.rational import parse_rational
from verify.numbers.sqrt_sum import SqrtSum, cosine_matrix, parse_sqrt_sum
from proofs.cosine import lemma_3_2_translation, lemma_3_3_translation


def _rows(name: str, parse=parse_rational):
    return [[parse(a) for a in row] for row in paper_example(name)["W"]]


def field_cosine(a, b) -> SqrtSum:
    """``a.b / (|a| |b|)`` exactly, for vectors over ``Q(√...)`` with ``|a|^2 |b|^2`` rational."""
    a = [SqrtSum(0) + x for x in a]
    b = [SqrtSum(0) + x for x in b]
    dot = sum((x * y for x, y in zip(a, b)), SqrtSum(0))
    norms = sum((x * x for x in a), SqrtSum(0)) * sum((y * y for y in b), SqrtSum(0))
    return dot / SqrtSum.sqrt(norms.to_rational())


def about(value: SqrtSum, stated: str) -> bool:
    """True iff ``value`` rounds to the paper's decimal ``stated`` (exact comparison)."""
    q = Fraction(stated)
    half_unit = Fraction(1, 2 * 10 ** len(stated.split(".")[1]))
    return SqrtSum.rational(q - half_unit) <= value < SqrtSum.rational(q + half_unit)


def _tie_step(out, W, i, j, expected: bool, analysis):
    evidence = analysis.evidence[(i, j)]
    can = isinstance(evidence, TieWitness)
    if can:
        detail = f"witness x = ({', '.join(str(a) for a in evidence.point)})"
    else:
        terms = ", ".join(f"y_{k} = {y}" for k, y in evidence.multipliers)
        detail = f"certificate: {terms}, t = {evidence.tie}"
    verb = "can" if expected else "cannot"
    out.add(f"labels {i} and {j} {verb} be tied for the highest probability",
            can == expected, detail)
    return evidence


def run_c1(claim, options) -> ClaimOutcome:
    data = paper_example("example C.1")
    W = _rows("example C.1")
    i, j = data["pair"]
    out = ClaimOutcome(claim=claim.id)
    C = cosine_matrix(W)
    out.add(f"cos(w_{i}, w_{j}) = 0.8", C[i][j] == SqrtSum.rational(Fraction(4, 5)),
            str(C[i][j]))
    models, translations = {}, {}
    for lemma, construct, target in (("3.2", lemma_3_2_translation, -1),
                                     ("3.3", lemma_3_3_translation, 1)):
        u = construct(W[i], W[j])
        moved = [[a + b for a, b in zip(row, u)] for row in W]
        models[lemma], translations[f"lemma {lemma}"] = moved, [exact(a) for a in u]
        value = cosine_matrix(moved)[i][j]
        out.add(f"translating by Lemma {lemma}'s u = ({', '.join(map(str, u))}) gives "
                f"cos = {target:+d}", value == SqrtSum.rational(target), str(value))
    base = braid_product(W)
    out.add("the three models are equivalent: B_n W is the same matrix for all three, so "
            "every logit difference agrees for every input",
            all(braid_product(m) == base for m in models.values()))
    out.evidence = "cos 4/5 -> -1 (Lemma 3.2) and +1 (Lemma 3.3), equal logit differences"
    if out.holds:
        out.certificate = instance_certificate(
            claim.id, {"W": exact_rows(W), "labels": [i, j]},
            {"cosines": [_cosine_statement(i, j, C[i][j], "0.8", rounded=False)],
             "translated": {"lemma 3.2": "-1", "lemma 3.3": "1"}},
            {"translations": translations})
    return out


def _cosine_statement(i, j, value, paper: str, rounded: bool) -> dict:
    """A cosine of the certificate: ``cos(w_i, w_j)`` exactly and the paper's decimal,
    which is the value itself (``rounded`` false) or the value rounded to its digits."""
    return {"labels": [i, j], "cosine": exact(value), "paper": paper, "rounded": rounded}


def _tie_entries(analysis) -> tuple[dict, dict]:
    """``ties`` and ``no_ties`` of an example certificate, for every decided pair: the
    lists of pairs (assertion) and their proofs (evidence: a witness ``x``, or the
    multipliers ``y`` and ``t``)."""
    decided = analysis.evidence
    ties = [p for p in sorted(decided) if isinstance(decided[p], TieWitness)]
    no_ties = [p for p in sorted(decided) if p not in ties]
    return ({"ties": [list(p) for p in ties], "no_ties": [list(p) for p in no_ties]},
            {"ties": [[exact(a) for a in decided[p].point] for p in ties],
             "no_ties": [{"multipliers": [[k, exact(y)] for k, y in decided[p].multipliers],
                          "t": exact(decided[p].tie)} for p in no_ties]})


def run_c2(claim, options) -> ClaimOutcome:
    W = _rows("example C.2")
    out = ClaimOutcome(claim=claim.id)
    out.add("W is centered (its rows sum to 0)",
            all(sum(col) == 0 for col in zip(*W)))
    C = cosine_matrix(W)
    out.add("cos(w_0, w_1) ≈ 0.32", about(C[0][1], "0.32"), str(C[0][1]))
    out.add("cos(w_1, w_2) ≈ -0.59", about(C[1][2], "-0.59"), str(C[1][2]))
    out.add("cos(w_2, w_4) = 0.8", C[2][4] == SqrtSum.rational(Fraction(4, 5)),
            str(C[2][4]))
    ties = tie_pairs(W)
    _tie_step(out, W, 0, 1, True, ties)
    _tie_step(out, W, 1, 2, True, ties)
    _tie_step(out, W, 2, 4, False, ties)
    between = _between(W, 2, 4, 3)
    out.add(*between[:2])
    mismatched = _nearest_versus_ties(out, C, ties, len(W))
    out.evidence = ("exact cosines; ties (0,1), (1,2) with witnesses, no tie (2,4) by a "
                    "certificate")
    if out.holds:
        assertion = {"centered": True,
                     "cosines": [_cosine_statement(0, 1, C[0][1], "0.32", rounded=True),
                                 _cosine_statement(1, 2, C[1][2], "-0.59", rounded=True),
                                 _cosine_statement(2, 4, C[2][4], "0.8", rounded=False)]}
        pairs, evidence = _tie_entries(ties)
        assertion.update(pairs)
        assertion["between"] = {"labels": [2, 4], "first": 3}
        assertion["nearest"] = [{"label": i, "neighbours": sorted(nearest)}
                                for i, nearest in mismatched]
        evidence["between"] = [exact(a) for a in between[2]]
        out.certificate = instance_certificate(claim.id, {"W": exact_rows(W)}, assertion,
                                               evidence)
    return out


def _between(W, i, j, k):
    """"Label k wins between labels i and j": on one of the two half-lines where
    ``w_i.x = w_j.x`` (``d = 2``), label ``k`` is strictly on top and ``i, j`` come next.
    Returns the step's description, whether it holds, and such an ``x`` (or None)."""
    v = [a - b for a, b in zip(W[i], W[j])]
    found = []
    for x in ([-v[1], v[0]], [v[1], -v[0]]):
        logits = [sum(a * b for a, b in zip(row, x)) for row in W]
        rest = [logits[m] for m in range(len(W)) if m not in (i, j, k)]
        if logits[k] > logits[i] and all(logits[i] > r for r in rest):
            found.append(x)
    return (f"label {k} wins between labels {i} and {j}: on a half-line where "
            f"w_{i}.x = w_{j}.x, label {k} is strictly first and {i}, {j} come next "
            "(on the other half-line other labels lead)", bool(found),
            found[0] if found else None)


def _nearest_versus_ties(out, C, ties, n) -> list:
    """For each label: its two nearest cosine neighbours against its tie partners.
    Returns the pairs ``(label, nearest)`` where they differ."""
    mismatched = []
    for i in range(n):
        others = sorted((k for k in range(n) if k != i), key=lambda k: C[i][k],
                        reverse=True)
        nearest = others[:2]
        if not set(nearest) <= set(ties.partners(i)):
            mismatched.append((i, nearest))
    out.add("for some label the two nearest cosine neighbours are not the labels it can "
            "tie with", bool(mismatched),
            "; ".join(f"label {i}: nearest {nearest}, ties with {ties.partners(i)}"
                      for i, nearest in mismatched))
    return mismatched


def run_c3(claim, options) -> ClaimOutcome:
    W = _rows("example C.3", parse=parse_sqrt_sum)
    out = ClaimOutcome(claim=claim.id)
    out.add("W is centered and its rows have unit length",
            all(sum(col, SqrtSum(0)).is_zero() for col in zip(*W))
            and all(sum((a * a for a in row), SqrtSum(0)) == 1 for row in W))
    c01, c13 = field_cosine(W[0], W[1]), field_cosine(W[1], W[3])
    out.add("cos(w_0, w_1) = -0.805", c01 == SqrtSum.rational(Fraction(-805, 1000)),
            str(c01))
    out.add("cos(w_1, w_3) = 0.805", c13 == SqrtSum.rational(Fraction(805, 1000)),
            str(c13))
    ties = tie_pairs(W, pairs=[(0, 1), (1, 3)])
    _tie_step(out, W, 0, 1, True, ties)
    _tie_step(out, W, 1, 3, False, ties)
    out.evidence = "exact in Q(sqrt 39): -0.805 but can tie; 0.805 but cannot"
    if out.holds:
        assertion = {"centered": True, "unit_rows": True,
                     "cosines": [_cosine_statement(0, 1, c01, "-0.805", rounded=False),
                                 _cosine_statement(1, 3, c13, "0.805", rounded=False)]}
        pairs, evidence = _tie_entries(ties)
        assertion.update(pairs)
        out.certificate = instance_certificate(claim.id, {"W": exact_rows(W)}, assertion,
                                               evidence)
    return out
