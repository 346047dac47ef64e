"""Forged certificates that are consistent except for one violated condition.

Changing one number of a certificate (as ``test_all_certificates.py`` does) mostly
breaks an equation; a forger would rather keep every equation and break one condition
nobody computes: a negative multiplier with an exact zero sum, multipliers that are all
zero, a witness on a hyperplane, a tie point at which a third label also ties, a sign
decided from a rounded square root. Each forgery here is built to be exactly consistent
in every other respect, and is checked against an independent fact (a witness showing
that the forged statement is false, or an exact sign from the norm of a quadratic
integer), not against a number computed once.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from itertools import count as count_from
from math import isqrt
from pathlib import Path
from types import SimpleNamespace

import pytest

from verify.checker.core import CertificateError, check_certificate, check_pattern
from verify.checker.roots import SQUARE_ROOTS, RootSum
from verify.claims.registry import CLAIMS
from verify.numbers.sqrt_sum import SqrtSum

EXAMPLES = json.loads((Path(__file__).resolve().parents[1] / "verify" / "data"
                       / "paper_examples.json").read_text())


def example_certificate(claim: str) -> dict:
    cert = CLAIMS[claim].run(SimpleNamespace()).certificate
    return json.loads(json.dumps(cert))


@pytest.fixture(scope="module")
def c2():
    cert = example_certificate("example C.2")
    assert check_certificate(copy.deepcopy(cert)).startswith("example C.2")
    return cert


def C2_W():
    return [[Fraction(a) for a in row] for row in EXAMPLES["example C.2"]["W"]]


def logits(W, x):
    return [sum(a * b for a, b in zip(w, x)) for w in W]


def with_proof(cert, key: str, pair, proof) -> dict:
    """``cert`` with ``pair`` moved to (or replaced in) ``assertion[key]`` (``"ties"`` or
    ``"no_ties"``) with ``proof`` in ``evidence[key]``."""
    cert = copy.deepcopy(cert)
    assertion, evidence = cert["assertion"], cert["evidence"]
    for listed in ("ties", "no_ties"):
        if pair in assertion[listed]:
            k = assertion[listed].index(pair)
            del assertion[listed][k], evidence[listed][k]
    assertion[key].append(pair)
    evidence[key].append(proof)
    return cert


def with_no_tie(cert, pair, proof) -> dict:
    return with_proof(cert, "no_ties", pair, proof)


def with_tie(cert, pair, x) -> dict:
    return with_proof(cert, "ties", pair, x)


# --- Motzkin no-tie certificates of example C.2 -----------------------------------------

def test_hand_made_c2_certificate_with_a_negative_multiplier_is_rejected(c2):
    """Pair (0, 4) of C.2 can tie, yet ``y_2 = -31/69, y_3 = 1, t = -41/69`` sums exactly
    to zero: only the sign of ``y_2`` is wrong."""
    W = C2_W()
    y2, y3, t = Fraction(-31, 69), Fraction(1), Fraction(-41, 69)
    total = [y2 * (W[0][c] - W[2][c]) + y3 * (W[0][c] - W[3][c]) + t * (W[0][c] - W[4][c])
             for c in range(2)]
    assert total == [0, 0]
    # Independently: (0, 4) does tie at the top, at x = (-7, -23).
    v = logits(W, (-7, -23))
    assert v[0] == v[4] > max(v[1], v[2], v[3])
    forged = with_no_tie(c2, [0, 4], {"multipliers": [[2, "-31/69"], [3, "1"]],
                                      "t": "-41/69"})
    with pytest.raises(CertificateError, match=r"evidence.no_ties\[\d+\].multipliers\[0\]"):
        check_certificate(forged)
    # The same forgery with the multipliers in the other order and y_2 in another form.
    forged = with_no_tie(c2, [0, 4], {"multipliers": [[3, "69/69"], [2, "-31/69"]],
                                      "t": "-41/69"})
    with pytest.raises(CertificateError, match=r"multipliers\[1\]"):
        check_certificate(forged)


def c2_no_tie_proofs(cert):
    """The genuine no-tie proofs of C.2: (pair, proof) with the pair as a list."""
    return list(zip(cert["assertion"]["no_ties"], cert["evidence"]["no_ties"]))


def test_every_genuine_no_tie_proof_sums_to_zero_with_non_negative_multipliers(c2):
    # The premise of the forgeries below: a real proof, recomputed here with Fractions.
    W = C2_W()
    for (i, j), proof in c2_no_tie_proofs(c2):
        t = Fraction(proof["t"])
        total = [t * (W[i][c] - W[j][c]) for c in range(2)]
        for k, y in proof["multipliers"]:
            assert k not in (i, j) and Fraction(y) >= 0
            total = [s + Fraction(y) * (W[i][c] - W[k][c]) for c, s in enumerate(total)]
        assert total == [0, 0] and any(Fraction(y) > 0 for _, y in proof["multipliers"])


def test_all_zero_multipliers_are_rejected(c2):
    # y = 0 and t = 0 sum to zero exactly; only "not all zero" is violated.
    for pair, proof in c2_no_tie_proofs(c2):
        zeros = {"multipliers": [[k, "0"] for k, _ in proof["multipliers"]], "t": "0"}
        with pytest.raises(CertificateError, match="none, or all zero"):
            check_certificate(with_no_tie(c2, pair, zeros))
        with pytest.raises(CertificateError, match="none, or all zero"):
            check_certificate(with_no_tie(c2, pair, {"multipliers": [], "t": "0"}))


def test_all_zero_multipliers_on_a_pair_that_ties_are_rejected(c2):
    with pytest.raises(CertificateError, match="none, or all zero"):
        check_certificate(with_no_tie(c2, [0, 4], {"multipliers": [[2, "0"], [3, "0"]],
                                                   "t": "0"}))


def test_a_multiplier_on_label_i_or_j_or_repeated_is_rejected(c2):
    (i, j), proof = c2_no_tie_proofs(c2)[0]
    # y_i (w_i - w_i) = 0 adds nothing to the sum: only the rule is broken.
    for k in (i, j):
        bad = {"multipliers": proof["multipliers"] + [[k, "1"]], "t": proof["t"]}
        if k == j:  # y_j (w_i - w_j) changes the sum: compensate in t
            bad["t"] = str(Fraction(proof["t"]) - 1)
        with pytest.raises(CertificateError, match="is i, j or repeated"):
            check_certificate(with_no_tie(c2, [i, j], bad))
    # A multiplier split into two halves of the same label: the sum is unchanged.
    (k, y), *rest = proof["multipliers"]
    half = str(Fraction(y) / 2)
    split = {"multipliers": [[k, half], [k, half]] + rest, "t": proof["t"]}
    with pytest.raises(CertificateError, match="is i, j or repeated"):
        check_certificate(with_no_tie(c2, [i, j], split))


def test_no_tie_proof_with_a_non_zero_sum_is_rejected(c2):
    for pair, proof in c2_no_tie_proofs(c2):
        for change in (Fraction(1, 10**12), Fraction(-1, 10**12)):
            bad = {"multipliers": proof["multipliers"], "t": str(Fraction(proof["t"]) + change)}
            with pytest.raises(CertificateError, match="is not 0"):
                check_certificate(with_no_tie(c2, pair, bad))


def test_tie_point_where_every_label_ties_is_rejected(c2):
    # At x = 0 every logit is 0: w_0.x = w_1.x, but the other labels tie with them.
    with pytest.raises(CertificateError, match="does not give"):
        check_certificate(with_tie(c2, [0, 1], ["0", "0"]))


def test_tie_point_not_at_the_top_or_not_a_tie_is_rejected(c2):
    W = C2_W()
    # (2, 4) tie at x = (-3/5, 0) but label 3 is above them there (the "between" point).
    v = logits(W, (Fraction(-3, 5), 0))
    assert v[2] == v[4] < v[3]
    with pytest.raises(CertificateError, match="does not give"):
        check_certificate(with_tie(c2, [2, 4], ["-3/5", "0"]))
    # A point where 0 is strictly above 1: close to a tie, not a tie.
    for x in (["1", "1/1000000000000"], ["1", "-1/1000000000000"]):
        with pytest.raises(CertificateError, match="does not give"):
            check_certificate(with_tie(c2, [0, 1], x))


def test_a_third_label_tying_at_the_top_is_rejected_by_a_tie_check():
    """A configuration where three labels meet at the top away from 0: ``w_0, w_1, w_2``
    on one vertical line, so at ``x = (1, 0)`` all three tie for first."""
    from verify.checker.claims import _is_tie

    W = [[Fraction(1), Fraction(-1)], [Fraction(1), Fraction(0)], [Fraction(1), Fraction(1)],
         [Fraction(-1), Fraction(0)]]
    assert logits(W, (1, 0))[:3] == [1, 1, 1] and logits(W, (1, 0))[3] == -1
    assert not _is_tie(W, [Fraction(1), Fraction(0)], 0, 2)
    assert _is_tie(W, [Fraction(1), Fraction(0)], 0, 2) == _is_tie(W, [Fraction(1), 0], 2, 0)
    # A genuine tie of 2 and 3 at x = (-1, 2): logits (-3, -1, 1, 1).
    assert logits(W, (-1, 2)) == [-3, -1, 1, 1]
    assert _is_tie(W, [Fraction(-1), Fraction(2)], 2, 3)
    assert not _is_tie(W, [Fraction(-1), Fraction(2)], 1, 2)   # not equal
    assert not _is_tie(W, [Fraction(1), Fraction(-2)], 2, 3)   # equal, at the bottom


# --- signs of square-root sums, far below any fixed precision ----------------------------

def pell(d: int, count: int):
    """The first ``count`` solutions ``(x, y)`` of ``x^2 - d y^2 = +-1`` (``d`` not a
    square), powers of the fundamental unit: ``x - y sqrt(d)`` has size about
    ``1 / (2 x)``."""
    x1, y1 = next((x, y) for y in count_from(1) for e in (-1, 1)
                  if (x := isqrt(d * y * y + e)) ** 2 == d * y * y + e)
    x, y = x1, y1
    for _ in range(count):
        yield x, y
        x, y = x * x1 + d * y * y1, x * y1 + y * x1


def norm_sign(a: int, b: int, d: int) -> int:
    """The sign of ``a + b sqrt(d)`` (integers, ``d`` not a square), from the norm
    ``a^2 - d b^2`` and the signs of ``a, b``: no square root evaluated."""
    if a >= 0 and b >= 0 or a <= 0 and b <= 0:
        return (a > 0 or b > 0) - (a < 0 or b < 0)
    norm = a * a - d * b * b            # != 0 as d is not a square
    bigger = a if norm > 0 else b       # the term of larger absolute value
    return 1 if bigger > 0 else -1


def binomial_text(a: int, b: int, d: int) -> str:
    """``a + b*sqrt(d)`` in the certificate grammar."""
    root = f"{abs(b)}*sqrt({d})"
    return f"{a} {'-' if b < 0 else '+'} {root}"


NEAR_UNITS = [(x, y, d) for d in (2, 3, 5, 7, 13, 61) for x, y in pell(d, 180)]


def test_the_issue_s_pair_is_a_pell_pair():
    assert 9369319 ** 2 - 2 * 6625109 ** 2 == -1
    assert (9369319, 6625109, 2) in NEAR_UNITS
    assert norm_sign(-9369319, 6625109, 2) == 1


@pytest.mark.parametrize("d", [2, 3, 5, 7, 13, 61])
def test_root_sum_signs_of_pell_pairs(d):
    """``x - y sqrt(d)`` and ``y sqrt(d) - x`` for 180 consecutive solutions: sizes from
    about 1/2 down to far below 2^-200; both number types against the norm."""
    for x, y, dd in NEAR_UNITS:
        if dd != d:
            continue
        for a, b in ((x, -y), (-x, y)):
            expected = norm_sign(a, b, d)
            text = binomial_text(a, b, d)
            assert SQUARE_ROOTS.parse(text, "x").sign() == expected, text
            assert SqrtSum.from_terms([(1, a), (d, b)]).sign() == expected, text
    assert min(Fraction(1, 2 * x) for x, y, dd in NEAR_UNITS if dd == d) < Fraction(1, 2**200)


def test_root_sum_signs_at_and_beyond_2_to_the_minus_60():
    checked = 0
    for x, y, d in NEAR_UNITS:
        if Fraction(1, 2 * x) > Fraction(1, 2**60):
            continue
        for a, b in ((x, -y), (-x, y)):
            text = binomial_text(a, b, d)
            assert SQUARE_ROOTS.parse(text, "x").sign() == norm_sign(a, b, d)
            checked += 1
    assert checked > 200


def product_terms(factors):
    """``prod (a_i + b_i sqrt(d_i))`` expanded: (radicand, coefficient) pairs with
    radicands the products of distinct primes (the ``d_i`` are distinct primes)."""
    terms = {1: Fraction(1)}
    for a, b, d in factors:
        out = {}
        for r, q in terms.items():
            out[r] = out.get(r, 0) + q * a
            out[r * d] = out.get(r * d, 0) + q * b
        terms = out
    return sorted(terms.items())


def terms_text(terms) -> str:
    pieces = []
    for r, q in terms:
        body = f"{abs(q.numerator)}" + (f"/{q.denominator}" if q.denominator > 1 else "") \
            + ("" if r == 1 else f"*sqrt({r})")
        pieces.append(("-" if q < 0 else "") + body if not pieces
                      else (" - " if q < 0 else " + ") + body)
    return "".join(pieces)


@pytest.mark.parametrize("k", [3, 8, 20, 40])
def test_signs_with_several_radicands(k):
    """Products of Pell binomials over ``sqrt 2, sqrt 3, sqrt 5`` (the ``k``-th unit of
    each): 4 or 8 terms that cancel to a product of near-units, down to about 2^-200;
    the sign is the product of the signs."""
    units = {d: list(pell(d, 40)) for d in (2, 3, 5)}
    for signs in ((1, 1, 1), (1, -1, 1), (-1, -1, -1), (-1, 1, 1)):
        factors = []
        for d, s in zip((2, 3, 5), signs):
            x, y = units[d][k % len(units[d])]
            factors.append((s * x, -s * y, d))
        expected = 1
        for a, b, d in factors:
            expected *= norm_sign(a, b, d)
        for count in (2, 3):
            terms = product_terms(factors[:count])
            want = 1
            for a, b, d in factors[:count]:
                want *= norm_sign(a, b, d)
            assert SQUARE_ROOTS.parse(terms_text(terms), "x").sign() == want
            assert SqrtSum.from_terms(terms).sign() == want
        assert SqrtSum.from_terms(product_terms(factors)).sign() == expected


@pytest.mark.parametrize("x, y", [(9369319, 6625109)] + list(pell(2, 80))[30:80:10])
def test_false_square_root_sign_pattern_is_rejected(x, y):
    """``M = [[1], [y sqrt 2 - x]]`` over Q(sqrt 2): its sign pattern is {++, --} if the
    second entry is positive, {+-, -+} otherwise. The true list is accepted, the false
    one (with witnesses +-1, complete as a list) is rejected."""
    a = RootSum([(1, Fraction(-x)), (2, Fraction(y))])
    sign = norm_sign(-x, y, 2)
    M = [[RootSum.of(1)], [a]]
    true = ["++", "--"] if sign > 0 else ["+-", "-+"]
    false = ["+-", "-+"] if sign > 0 else ["++", "--"]
    evidence = {"cells": [{"signs": true[0], "witness": ["1"]},
                          {"signs": true[1], "witness": ["-1"]}], "refutations": []}
    assert check_pattern(M, true, evidence, SQUARE_ROOTS) == "2 cells, complete"
    forged = {"cells": [{"signs": false[0], "witness": ["1"]},
                        {"signs": false[1], "witness": ["-1"]}], "refutations": []}
    with pytest.raises(CertificateError, match="witness gives sign vector"):
        check_pattern(M, false, forged, SQUARE_ROOTS)


# --- sign-pattern certificates: one condition violated ------------------------------------

LINES = [[1, 0], [0, 1], [1, 1]]


def lines_certificate():
    """The sign pattern of three lines, written out by hand: six cells."""
    cells = {"++-": None, "+++": ["1", "1"], "+-+": ["2", "-1"], "+--": ["1", "-2"],
             "-++": ["-1", "2"], "-+-": ["-2", "1"], "---": ["-1", "-1"]}
    cells = {s: z for s, z in cells.items() if z is not None}
    patterns = sorted(cells)
    return patterns, {"cells": [{"signs": s, "witness": cells[s]} for s in patterns],
                      "refutations": [{"cell": patterns.index("+++"), "row": 2,
                                       "multipliers": [[0, "1"], [1, "1"], [2, "1"]]},
                                      {"cell": patterns.index("---"), "row": 2,
                                       "multipliers": [[0, "1"], [1, "1"], [2, "1"]]}]}


def rows(M):
    return [[Fraction(a) for a in row] for row in M]


def test_the_hand_written_pattern_is_accepted():
    patterns, evidence = lines_certificate()
    assert check_pattern(rows(LINES), patterns, evidence) == "6 cells, complete"


def test_a_witness_on_a_hyperplane_is_rejected():
    patterns, evidence = lines_certificate()
    c = patterns.index("+-+")
    evidence["cells"][c]["witness"] = ["1", "-1"]        # M z = (1, -1, 0)
    with pytest.raises(CertificateError, match=r"gives sign vector \+-0"):
        check_pattern(rows(LINES), patterns, evidence)


def test_a_refutation_with_a_negative_multiplier_and_zero_sum_is_rejected():
    """``M`` with rows ``e_0, e_0, e_1``: the orthant ``+ - +`` is empty (rows 0, 1 are
    the same), refuted by ``y = (1, 1, 0)``. A forger refutes the non-empty orthant
    ``+ + +`` with ``y = (1, -1, 0)``: the sum is exactly zero."""
    M = rows([[1, 0], [1, 0], [0, 1]])
    patterns = sorted(["++-", "+++", "--+", "---"])
    witnesses = {"+++": ["1", "1"], "++-": ["1", "-1"], "--+": ["-1", "1"],
                 "---": ["-1", "-1"]}
    good = {"cells": [{"signs": s, "witness": witnesses[s]} for s in patterns],
            "refutations": []}
    # Rows 0 and 1 are one class (parallel), so flips never split them: complete.
    assert check_pattern(M, patterns, good) == "4 cells, complete"
    fewer = [s for s in patterns if s != "+++"]
    forged = {"cells": [{"signs": s, "witness": witnesses[s]} for s in fewer],
              "refutations": [{"cell": fewer.index("++-"), "row": 2,
                               "multipliers": [[0, "1"], [1, "-1"]]}]}
    with pytest.raises(CertificateError, match="has y < 0"):
        check_pattern(M, fewer, forged)
    for zeros in ([[0, "0"], [1, "0"]], [[2, "0"]], []):
        forged["refutations"][0]["multipliers"] = zeros
        with pytest.raises(CertificateError, match="every multiplier is zero|no multipliers"):
            check_pattern(M, fewer, forged)


def test_root_sum_subtracted_from_a_rational():
    """``q - x`` with the rational on the left (``RootSum.__rsub__``)."""
    x = SQUARE_ROOTS.parse("sqrt(2)", "x")
    assert (Fraction(3, 2) - x).sign() == 1 and (Fraction(7, 5) - x).sign() == -1
    assert (1 - x).sign() == -1 and (2 - x).sign() == 1
    assert (Fraction(3, 2) - x - (Fraction(3, 2) - x)).sign() == 0


def _c2_rejected(cert, where):
    with pytest.raises(CertificateError) as error:
        check_certificate(cert)
    assert str(error.value).startswith(where), str(error.value)


def test_c2_every_listed_pair_has_one_well_formed_proof(c2):
    cert = copy.deepcopy(c2)
    cert["evidence"]["ties"] = cert["evidence"]["ties"][:-1]
    _c2_rejected(cert, "evidence.ties: expected")
    cert = copy.deepcopy(c2)
    cert["evidence"]["ties"][0] = cert["evidence"]["ties"][0] + ["0"]   # an extra 0
    _c2_rejected(cert, "evidence.ties[0]")
    cert = copy.deepcopy(c2)
    cert["assertion"]["ties"][0] = [0, 9]
    _c2_rejected(cert, "assertion.ties[0]")
    cert = copy.deepcopy(c2)
    cert["evidence"]["ties"][0] = ["1", "x"]
    _c2_rejected(cert, "evidence.ties[0]")
    proof = c2["evidence"]["no_ties"][0]
    for changed, where in (({"multipliers": proof["multipliers"]}, "evidence.no_ties[0]"),
                           ({**proof, "t": "t"}, "evidence.no_ties[0].t"),
                           ({**proof, "multipliers": "y"}, "evidence.no_ties[0].multipliers"),
                           ({**proof, "multipliers": [proof["multipliers"][0] + ["0"]]
                             + proof["multipliers"][1:]},
                            "evidence.no_ties[0].multipliers[0]"),
                           ({**proof, "multipliers": [[proof["multipliers"][0][0], "y"]]
                             + proof["multipliers"][1:]},
                            "evidence.no_ties[0].multipliers[0]"),
                           ({**proof, "multipliers": [[9, "1"]] + proof["multipliers"][1:]},
                            "evidence.no_ties[0].multipliers[0]")):
        cert = copy.deepcopy(c2)
        cert["evidence"]["no_ties"][0] = changed
        _c2_rejected(cert, where)


def test_c2_the_paper_s_pairs_must_be_listed(c2):
    cert = copy.deepcopy(c2)
    k = cert["assertion"]["ties"].index([0, 1])
    del cert["assertion"]["ties"][k], cert["evidence"]["ties"][k]
    _c2_rejected(cert, "assertion.ties: the paper's pair [0, 1] is missing")
    cert = copy.deepcopy(c2)
    k = cert["assertion"]["no_ties"].index([2, 4])
    del cert["assertion"]["no_ties"][k], cert["evidence"]["no_ties"][k]
    _c2_rejected(cert, "assertion.no_ties: the paper's pair [2, 4] is missing")


def test_c2_a_witness_that_is_not_a_tie_is_named(c2):
    cert = with_tie(c2, [0, 1], ["0", "0"])
    _c2_rejected(cert, f"evidence.ties[{len(cert['assertion']['ties']) - 1}]: x does not "
                       "give w_0.x = w_1.x > every other w_k.x")


def test_c2_no_tie_proof_scaled_by_a_square_root_is_accepted(c2):
    """``y`` and ``t`` times ``sqrt 2`` (> 0) prove the same; numbers over Q(sqrt ...)
    are read as such."""
    cert = copy.deepcopy(c2)
    proof = cert["evidence"]["no_ties"][0]
    proof["multipliers"] = [[k, f"{y}*sqrt(2)"] for k, y in proof["multipliers"]]
    proof["t"] = f"{proof['t']}*sqrt(2)"
    assert check_certificate(cert).startswith("example C.2")
    cert["assertion"]["ties"] = "none"
    _c2_rejected(cert, "assertion.ties: ")
