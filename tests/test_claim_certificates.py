"""Certificates of ``lemma 5.3`` and ``theorem 5.6`` on one matrix, and their checker.

A certificate proves one asserted list of sign vectors to be both ``S(M)`` (rational
evidence) and ``S(C(M))`` (evidence over ``Q(sqrt ...)``), for ``M = W`` or ``B_n W``.
Fresh certificates must pass the standard-library checker and agree with the
independent brute force of ``reference.py``; tampering must be caught, hypotheses
enforced on both ends, and the checker's own number type must agree with the engine's
:class:`SqrtSum` on signs and exact zeros.
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from pathlib import Path

import pytest

from isolation import run_checker_without_engine
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference import brute_force_sign_pattern, matrix_rank
from verify.certificates.writers import claim_certificate, format_sqrt_sum, write_certificate
from verify.checker.core import CertificateError, check_certificate
from verify.checker.roots import SQUARE_ROOTS, cosine_matrix
from verify.numbers.sqrt_sum import SqrtSum, parse_sqrt_sum
from verify.numbers.sqrt_sum import cosine_matrix as engine_cosine_matrix

ROOT = Path(__file__).resolve().parents[1]


def claim_matrix(claim, W):
    """``M`` built here with Fractions, independently of engine and checker."""
    V = [[Fraction(a) for a in row] for row in W]
    if claim == "theorem 5.6":
        V = [[a - b for a, b in zip(V[i], V[j])] for i, j in combinations(range(len(V)), 2)]
    return V


@lru_cache(maxsize=None)
def _cached(claim, W_json):
    return json.dumps(claim_certificate(claim, [[Fraction(a) for a in row]
                                                for row in json.loads(W_json)]))


def certificate(claim, W) -> dict:
    """A fresh (deep) copy of the certificate, generated once per input."""
    return json.loads(_cached(claim, json.dumps([[str(a) for a in row] for row in W])))


def rejected(cert, match):
    with pytest.raises(CertificateError, match=match):
        check_certificate(cert)


def engine_signs(C, z) -> str:
    """``sign(C z)`` with the engine's numbers (not the checker's)."""
    values = [sum((a * parse_sqrt_sum(x) for a, x in zip(row, z)), SqrtSum(0)) for row in C]
    return "".join("+" if v.sign() > 0 else "-" if v.sign() < 0 else "0" for v in values)


# A 6 x 3 and a 5 x 2 integer matrix with entries in [-3, 3] and distinct rows.
W63 = [[-2, 1, 3], [3, 3, -3], [-1, -3, 0], [3, 0, 0], [2, 0, 3], [-2, -3, 0]]
W52 = [[-1, 2], [3, -2], [1, -3], [-1, -3], [-3, -3]]

CASES = {
    # name: (claim, W)
    "5.3 three lines": ("lemma 5.3", [[1, 0], [0, 1], [1, 1]]),
    "5.3 parallel rows": ("lemma 5.3", [[1, 2], [2, 4], [-1, -2], [0, 1]]),
    "5.3 rank deficient": ("lemma 5.3", [[1, 2, 3], [2, 4, 6], [1, 0, 1], [0, 1, 1]]),
    "5.3 one column": ("lemma 5.3", [[2], [-3], [1]]),
    "5.3 fractions": ("lemma 5.3", [["1/2", "-3/4"], ["5/3", "2"], ["-1", "1/7"]]),
    "5.3 6x3": ("lemma 5.3", W63),
    "5.6 collinear": ("theorem 5.6", [[0, 0], [1, 0], [2, 0], [0, 1]]),
    "5.6 rank deficient": ("theorem 5.6", [[1, 1, 0], [2, 2, 0], [0, 0, 0], [1, -1, 0]]),
    "5.6 d > n": ("theorem 5.6", [[1, 2, 3], [0, -1, 2]]),
    "5.6 one label": ("theorem 5.6", [[5, 7]]),
    "5.6 5x2": ("theorem 5.6", W52),
}


@pytest.mark.parametrize("name", list(CASES))
def test_fresh_certificates_are_accepted(name):
    claim, W = CASES[name]
    cert = certificate(claim, W)
    count = cert["assertion"]["count"]
    summary = check_certificate(cert)
    assert summary.startswith(f"{claim}, S(C(") and summary.endswith(
        f": {count} cell{'s' if count != 1 else ''}, complete on both sides")
    M = claim_matrix(claim, W)
    expected = brute_force_sign_pattern(M) if M else {""}
    assert set(cert["assertion"]["patterns"]) == expected and count == len(expected)
    bound = (matrix_rank(M) if M else 0) + 1  # Carathéodory, on both sides
    for side in ("matrix", "cosine"):
        assert all(len(r["multipliers"]) <= bound
                   for r in cert["evidence"][side]["refutations"])
    # Cosine witnesses really lie in their cells, by the engine's own arithmetic.
    C = engine_cosine_matrix(M) if M else []
    for cell in cert["evidence"]["cosine"]["cells"]:
        assert engine_signs(C, cell["witness"]) == cell["signs"]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.integers(-2, 2), min_size=2, max_size=2), min_size=2,
                max_size=4, unique_by=tuple))
def test_random_theorem_5_6_certificates(W):
    cert = claim_certificate("theorem 5.6", W)
    check_certificate(cert)
    assert set(cert["assertion"]["patterns"]) == brute_force_sign_pattern(
        claim_matrix("theorem 5.6", W))


def test_checker_builds_the_cosine_matrix_of_the_engine():
    M = claim_matrix("theorem 5.6", W52)
    ours, theirs = cosine_matrix(M), engine_cosine_matrix(M)
    for row, other in zip(ours, theirs):
        for a, b in zip(row, other):
            assert (a - SQUARE_ROOTS.parse(format_sqrt_sum(b), "entry")).sign() == 0
    assert ours[3][3].terms == {1: 1}  # the diagonal is exactly 1


# --- hypotheses ------------------------------------------------------------------------

def test_generator_refuses_matrices_outside_the_hypotheses():
    with pytest.raises(ValueError, match="lemma 5.3 needs non-zero rows, but row 1 of W "
                                         "is zero"):
        claim_certificate("lemma 5.3", [[1, 2], [0, 0], [3, 1]])
    with pytest.raises(ValueError, match="theorem 5.6 needs distinct rows, but rows 0 and "
                                         "2 of W are equal"):
        claim_certificate("theorem 5.6", [[1, 2], [3, 4], [1, 2]])
    with pytest.raises(ValueError, match="no claim certificate for 'theorem 5.5'"):
        claim_certificate("theorem 5.5", [[1, 2]])


def test_checker_refuses_matrices_outside_the_hypotheses():
    cert = certificate("lemma 5.3", [[1, 0], [0, 1], [1, 1]])
    cert["input"]["W"][2] = ["0", "0"]
    rejected(cert, r"input.W: row 2 is zero, outside the hypothesis of lemma 5.3")
    cert = certificate("theorem 5.6", W52)
    cert["input"]["W"][4] = list(cert["input"]["W"][1])
    rejected(cert, r"input.W: rows 1 and 4 are equal, outside the hypothesis of "
                   r"theorem 5.6")


# --- tampering is rejected -------------------------------------------------------------

def test_changed_cosine_witness_leaving_its_cell():
    cert = certificate("lemma 5.3", W63)
    C = engine_cosine_matrix(W63)
    cell = cert["evidence"]["cosine"]["cells"][0]
    for j in range(len(cell["witness"])):
        for value in ("0", "-1", "sqrt(2)", "-100*sqrt(3)", "100 - 1/3*sqrt(7)"):
            z = list(cell["witness"])
            z[j] = value
            if engine_signs(C, z) != cell["signs"]:
                cell["witness"] = z
                rejected(cert, rf"evidence.cosine: cell 0: witness gives sign vector "
                               rf"[+0-]+, listed {re.escape(cell['signs'])}$")
                return
    pytest.fail("no single-coordinate change leaves the cell")


@pytest.mark.parametrize("claim,W", [("lemma 5.3", W63), ("theorem 5.6", W52)])
def test_dropped_cell_is_caught(claim, W):
    cert = certificate(claim, W)
    k = 3
    del cert["assertion"]["patterns"][k]
    cert["assertion"]["count"] -= 1
    for side in ("matrix", "cosine"):
        evidence = cert["evidence"][side]
        del evidence["cells"][k]
        evidence["refutations"] = [dict(r, cell=r["cell"] - (r["cell"] > k))
                                   for r in evidence["refutations"] if r["cell"] != k]
    rejected(cert, "evidence.matrix: incomplete: cell .* neither listed nor refuted")
    # With the assertion and the rational side intact, the cosine side must list it too.
    fresh = certificate(claim, W)
    cert["assertion"] = fresh["assertion"]
    cert["evidence"]["matrix"] = fresh["evidence"]["matrix"]
    rejected(cert, "evidence.cosine: evidence.cells: expected")


def test_changed_cosine_multiplier():
    cert = certificate("lemma 5.3", W63)
    pair = cert["evidence"]["cosine"]["refutations"][5]["multipliers"][1]
    pair[1] = pair[1] + " + 1/1000"
    rejected(cert, r"evidence.cosine: refutation 5 \(cell \d+ flipped at rows? [\d, ]+\): "
                   r"sum_r .* not 0")
    cert = certificate("lemma 5.3", W63)
    pair = cert["evidence"]["cosine"]["refutations"][5]["multipliers"][1]
    pair[1] = "-" + pair[1]
    rejected(cert, r"evidence.cosine: refutation 5 .*has y < 0")


def test_changed_rational_multiplier():
    cert = certificate("theorem 5.6", W52)
    pair = cert["evidence"]["matrix"]["refutations"][2]["multipliers"][0]
    pair[1] = str(Fraction(pair[1]) + 1)
    rejected(cert, r"evidence.matrix: refutation 2 .* not 0")


@pytest.mark.parametrize("claim,W", [("lemma 5.3", W63), ("theorem 5.6", W52)])
def test_changed_input_entry(claim, W):
    cert = certificate(claim, W)
    cert["input"]["W"][1][0] = str(Fraction(cert["input"]["W"][1][0]) + 1)
    rejected(cert, "witness gives sign vector|not 0|incomplete")


def test_spliced_pattern_is_rejected():
    # Another matrix of the same shape with another pattern.
    other_W = [[1, 0], [0, 1], [1, 1], [2, -1], [-1, 3]]
    mine, other = certificate("theorem 5.6", W52), certificate("theorem 5.6", other_W)
    assert mine["assertion"]["patterns"] != other["assertion"]["patterns"]
    # The cosine side proves another pattern: not the asserted one.
    cert = copy.deepcopy(mine)
    cert["evidence"]["cosine"] = other["evidence"]["cosine"]
    rejected(cert, "evidence.cosine: ")
    # The assertion and cosine side of the other matrix: the rational side disagrees.
    cert["assertion"] = other["assertion"]
    rejected(cert, "evidence.matrix: ")
    # Equality asserted between the rational side of one and the cosine side of the other.
    cert["evidence"]["matrix"] = other["evidence"]["matrix"]
    rejected(cert, "evidence.matrix: |evidence.cosine: ")


def test_assertion_must_say_equal():
    cert = certificate("lemma 5.3", [[1, 0], [0, 1], [1, 1]])
    cert["assertion"]["equal"] = False
    rejected(cert, "assertion.equal: expected true, got false")
    cert["assertion"]["equal"] = "true"
    rejected(cert, "assertion.equal: expected true")
    del cert["assertion"]["equal"]
    rejected(cert, "assertion: missing 'equal'")


def test_structure_of_claim_certificates():
    cert = certificate("lemma 5.3", [[1, 0], [0, 1], [1, 1]])
    bad = copy.deepcopy(cert)
    bad["input"]["affine"] = False
    rejected(bad, "input: unexpected 'affine'")
    bad = copy.deepcopy(cert)
    del bad["evidence"]["cosine"]
    rejected(bad, "evidence: missing 'cosine'")
    bad = copy.deepcopy(cert)
    bad["input"]["W"][0][0] = "sqrt(2)"  # the input is rational
    rejected(bad, r"input.W\[0\]\[0\]: not an exact rational")
    bad = copy.deepcopy(cert)
    bad["evidence"]["matrix"]["cells"][1]["witness"][0] = "2*sqrt(1)"  # rational side
    rejected(bad, "evidence.matrix: cell 1: witness\\[0\\]: not an exact rational")
    bad = copy.deepcopy(cert)
    bad["evidence"]["cosine"]["cells"][1]["witness"][0] = 1
    rejected(bad, "evidence.cosine: cell 1: witness\\[0\\]: a number must be a string")
    bad = copy.deepcopy(cert)
    bad["evidence"]["cosine"]["cells"][1]["witness"][0] = "1+sqrt(2)"
    rejected(bad, "evidence.cosine: cell 1: witness\\[0\\]: not an exact sum of square roots")


# --- the checker's number type ---------------------------------------------------------

def parse(text):
    return SQUARE_ROOTS.parse(text, "x")


def test_exact_zero_and_near_cancellation():
    assert parse("sqrt(8) - 2*sqrt(2)").terms == {}  # first: a missed zero never decides
    assert parse("sqrt(8) - 2*sqrt(2)").sign() == 0
    assert parse("sqrt(12) + 1/3*sqrt(27) - 3*sqrt(3)").sign() == 0
    assert parse("sqrt(49) - 7").sign() == 0
    assert parse("99*sqrt(2) - 140").sign() == 1
    assert parse("140 - 99*sqrt(2)").sign() == -1
    assert parse("19601 - 13860*sqrt(2)").sign() == 1  # about 2.6e-5
    assert parse("sqrt(2) + sqrt(3) - sqrt(10)").sign() == -1  # 3.146 < 3.162
    assert parse("-1/2*sqrt(3) + 1/2*sqrt(3)").sign() == 0
    x, y = parse("1 + sqrt(2)"), parse("-1 + sqrt(2)")
    assert (x * y - 1).sign() == 0 and (x * x - parse("3 + 2*sqrt(2)")).sign() == 0
    assert (parse("sqrt(6)") - parse("sqrt(2)") * parse("sqrt(3)")).sign() == 0


@pytest.mark.parametrize("text", ["3", "-3/4", "sqrt(2)", "-sqrt(2)", "2*sqrt(3)",
                                  "-2/3*sqrt(5) + 1", "1 - sqrt(2) + 3/7*sqrt(10)",
                                  "0*sqrt(2)", "007/010"])
def test_number_grammar_accepts(text):
    # The checker's value, rebuilt as the engine's number, is what the engine reads.
    value = SqrtSum.from_terms(list(parse(text).terms.items()))
    assert value == parse_sqrt_sum(text)
    # The generator's text of any number reads back to it.
    assert (parse(format_sqrt_sum(value)) - parse(text)).terms == {}


@pytest.mark.parametrize("text", ["", " 1", "1 ", "+1", "1+sqrt(2)", "1 +sqrt(2)",
                                  "--1", "1 - -1", "sqrt(0)", "1/0", "sqrt(2)/3",
                                  "1.5", "sqrt(-2)", "2sqrt(3)", "2*sqrt(3/4)", "sqrt 2",
                                  "1 + ", "\u0661"])
def test_number_grammar_rejects(text):
    with pytest.raises(CertificateError, match="not an exact sum of square roots|zero "
                                               "denominator or radicand"):
        parse(text)


TERMS = st.lists(st.tuples(st.integers(-30, 30), st.integers(1, 12), st.integers(1, 60)),
                 min_size=1, max_size=6)


def term_text(terms):
    pieces = []
    for p, q, r in terms:
        body = f"{abs(p)}/{q}" + (f"*sqrt({r})" if r > 1 else "")
        pieces.append(("-" if p < 0 else "") + body if not pieces
                      else (" - " if p < 0 else " + ") + body)
    return "".join(pieces)


@settings(max_examples=300, deadline=None)
@given(TERMS, TERMS)
def test_signs_agree_with_sqrt_sum(first, second):
    x, y = parse(term_text(first)), parse(term_text(second))
    X = SqrtSum.from_terms([(r, Fraction(p, q)) for p, q, r in first])
    Y = SqrtSum.from_terms([(r, Fraction(p, q)) for p, q, r in second])
    assert x.sign() == X.sign()
    assert (x - y).sign() == (X - Y).sign()
    assert (x * y).sign() == (X * Y).sign()
    assert (x * y - y * x).sign() == 0 and (x - x).sign() == 0


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 10**6), st.integers(1, 10**6), st.integers(2, 10**4))
def test_signs_near_a_square_root(p, q, r):
    # p/q close to sqrt(r): the interval arithmetic must still decide exactly.
    import math
    a = math.isqrt(r * q * q)
    for num in (a, a + 1):
        text = f"{num}/{q} - sqrt({r})"
        assert parse(text).sign() == parse_sqrt_sum(text).sign()


# --- determinism and the checker alone -------------------------------------------------

def test_byte_identical_files(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    write_certificate(first, claim_certificate("theorem 5.6", W52))
    write_certificate(second, claim_certificate("theorem 5.6", W52))
    assert first.read_bytes() == second.read_bytes()


def test_byte_identical_across_processes(tmp_path):
    script = ("import sys; from verify.certificates.writers import claim_certificate, "
              "write_certificate; write_certificate(sys.argv[1], claim_certificate("
              f"'lemma 5.3', {W63!r}))")
    outputs = []
    for seed in ("1", "2"):
        path = tmp_path / f"seed{seed}.json"
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
        subprocess.run([sys.executable, "-c", script, str(path)], check=True, env=env)
        outputs.append(path.read_bytes())
    assert outputs[0] == outputs[1]


def test_checker_runs_without_the_engine_libraries(tmp_path):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    write_certificate(good, claim_certificate("theorem 5.6", W52))
    tampered = certificate("theorem 5.6", W52)
    pair = tampered["evidence"]["cosine"]["refutations"][0]["multipliers"][0]
    pair[1] = pair[1] + " + sqrt(2)"
    write_certificate(bad, tampered)
    run = run_checker_without_engine(tmp_path, str(good))
    assert run.returncode == 0, run.stderr
    count = certificate("theorem 5.6", W52)["assertion"]["count"]
    assert (f"{good}: OK (theorem 5.6, S(C(B_n W)) = R(W): {count} cells, complete on "
            "both sides)") in run.stdout
    assert "outside: []" in run.stdout
    run = run_checker_without_engine(tmp_path, str(bad))
    assert run.returncode == 1
    assert f"{bad}: INVALID: evidence.cosine: refutation 0 " in run.stderr


# --- the exact simplex over an ordered field -------------------------------------------

def test_field_simplex_decides_both_ways():
    from verify.lp.feasibility import GordanCertificate, Witness
    from verify.lp.field_simplex import strict_feasibility_over

    s2 = SqrtSum.sqrt(2)
    # Rows (1, 0), (0, 1), (-1, -sqrt 2): infeasible, y = (1, sqrt 2, 1) up to scale.
    answer = strict_feasibility_over([[1, 0], [0, 1], [-1, -s2]], SqrtSum(1))
    assert isinstance(answer, GordanCertificate)
    y = dict(answer.multipliers)
    assert sorted(y) == [0, 1, 2] and y[1] == s2 * y[0] and y[2] == y[0] and y[0] > 0
    # Rows (1, 0), (0, 1), (-1, sqrt 2): the point must satisfy all three strictly.
    answer = strict_feasibility_over([[1, 0], [0, 1], [-1, s2]], SqrtSum(1))
    assert isinstance(answer, Witness)
    z = answer.point
    assert z[0] > 0 and z[1] > 0 and s2 * z[1] - z[0] > 0
    # Over Q as well.
    answer = strict_feasibility_over([[1, 2], [-2, -4], [3, 1]], Fraction(1))
    assert isinstance(answer, GordanCertificate) and dict(answer.multipliers) == {
        0: Fraction(2, 3), 1: Fraction(1, 3)}
