"""The instance and sweep certificates of ``verify.checker.claims``, checked in-process.

``test_all_certificates.py`` checks these certificates as ``verify all`` writes them
(in subprocesses); here each is generated in this process, accepted, and then altered
so that exactly one condition of its claim fails: a translation that is not the
lemma's, a model that changes one logit difference, a decimal that is not the paper's,
a rotation that is not orthogonal, a sweep that skips a matrix inside the hypothesis.
The checker must reject each alteration and name the failed condition. Where an
alteration keeps every equation but one, the independent fact it breaks is computed
here (a logit difference, a norm), not read from the certificate.
"""

from __future__ import annotations

import copy
import json
import re
from fractions import Fraction
from functools import lru_cache

import pytest

from verify.checker.core import CertificateError, check_certificate
from verify.claims.registry import CLAIMS
from verify.claims.run_all import default_options


@lru_cache(maxsize=None)
def _generated(claim: str, **sizes) -> str:
    options = default_options(CLAIMS[claim])
    for key, value in sizes.items():
        setattr(options, key, value)
    return json.dumps(CLAIMS[claim].run(options).certificate)


def fresh(claim: str, **sizes) -> dict:
    """A new copy of the engine's certificate of ``claim`` (as parsed from JSON)."""
    return json.loads(_generated(claim, **sizes))


def rejects(cert: dict, match: str) -> None:
    with pytest.raises(CertificateError, match=match):
        check_certificate(cert)


def F(text: str) -> Fraction:
    return Fraction(text)


def dot(a, b):
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


SYMBOLIC = "not checked here: re-run python -m verify {} (needs sympy)"


# --- lemma 3.1 ---------------------------------------------------------------------------

def test_lemma_31_accepted_with_its_counts():
    cert = fresh("lemma 3.1")
    us, xs = cert["input"]["translations"], cert["input"]["inputs"]
    W = cert["input"]["W"]
    assert check_certificate(cert) == (
        f"lemma 3.1, softmax unchanged by w_k -> w_k + u: {len(us)} translations x "
        f"{len(xs)} inputs on a {len(W)} x {len(W[0])} W, each a common logit shift; "
        "symbolic part not checked here")


def test_lemma_31_shift_is_u_dot_x():
    # Each listed shift must be u . x, computed here independently.
    cert = fresh("lemma 3.1")
    for u, shifts in zip(cert["input"]["translations"], cert["assertion"]["shifts"]):
        for x, c in zip(cert["input"]["inputs"], shifts):
            assert F(c) == dot(map(F, u), map(F, x))
    cert["assertion"]["shifts"][1][2] = str(F(cert["assertion"]["shifts"][1][2]) + 1)
    rejects(cert, r"^assertion\.shifts\[1\]\[2\]: the logits of W \+ u at x do not all "
                  r"exceed those of W by ")


@pytest.mark.parametrize("key", ["translations", "inputs"])
def test_lemma_31_needs_a_translation_and_an_input(key):
    cert = fresh("lemma 3.1")
    cert["input"][key] = []
    if key == "translations":
        cert["assertion"]["shifts"] = []
    rejects(cert, r"^input: no translation or no input$")


def test_lemma_31_shapes_and_note():
    cert = fresh("lemma 3.1")
    cert["input"]["translations"][0].append("1")
    rejects(cert, r"^input\.translations\[0\]: expected 2 entries, got 3$")
    cert = fresh("lemma 3.1")
    cert["input"]["inputs"][1] = ["1"]
    rejects(cert, r"^input\.inputs\[1\]: expected 2 entries, got 1$")
    cert = fresh("lemma 3.1")
    cert["assertion"]["shifts"].pop()
    rejects(cert, r"^assertion\.shifts: expected 3 entries, got 2$")
    cert = fresh("lemma 3.1")
    cert["assertion"]["shifts"][0].pop()
    rejects(cert, r"^assertion\.shifts\[0\]: expected 5 entries, got 4$")
    cert = fresh("lemma 3.1")
    cert["evidence"]["symbolic"] = SYMBOLIC.format("lemma 3.2")
    rejects(cert, r"^evidence\.symbolic: expected 'not checked here: re-run python -m "
                  r"verify lemma 3\.1 \(needs sympy\)'$")


# --- lemmas 3.2 and 3.3 -----------------------------------------------------------------

def small_translation_certificate(claim: str, keep=8) -> dict:
    """The engine's certificate of ``claim`` cut to its first ``keep`` pairs (and, for
    lemma 3.3, one pair with ``v_i = v_j``), still a valid certificate."""
    cert = fresh(claim)
    pairs, us = cert["input"]["pairs"], cert["evidence"]["translations"]
    keep_at = list(range(keep))
    if claim == "lemma 3.3":
        equal = next(k for k, p in enumerate(pairs) if p[0] == p[1])
        keep_at = sorted(set(keep_at) | {equal})
    cert["input"]["pairs"] = [pairs[k] for k in keep_at]
    cert["evidence"]["translations"] = [us[k] for k in keep_at]
    return cert


def lemma_u(claim, vi, vj):
    vi, vj = [F(a) for a in vi], [F(a) for a in vj]
    if claim == "lemma 3.2":
        return [-(a + b) / 2 for a, b in zip(vi, vj)]
    return [-a + (b - a) / 2 for a, b in zip(vi, vj)]


@pytest.mark.parametrize("claim, target", [("lemma 3.2", -1), ("lemma 3.3", 1)])
def test_translation_lemmas_accepted_and_the_u_is_the_lemmas(claim, target):
    cert = small_translation_certificate(claim)
    for (vi, vj), u in zip(cert["input"]["pairs"], cert["evidence"]["translations"]):
        if vi != vj:
            assert [F(a) for a in u] == lemma_u(claim, vi, vj)
    equal = sum(vi == vj for vi, vj in cert["input"]["pairs"])
    assert check_certificate(copy.deepcopy(cert)) == (
        f"{claim}, cos(v_i + u, v_j + u) = {target}: {len(cert['input']['pairs']) - equal} "
        "pairs with v_i != v_j and the lemma's u"
        + (f", {equal} with v_i = v_j" if equal else "") + "; symbolic part not checked here")


@pytest.mark.parametrize("claim, other", [("lemma 3.2", "lemma 3.3"),
                                          ("lemma 3.3", "lemma 3.2")])
def test_translation_lemmas_refuse_the_other_lemmas_u(claim, other):
    cert = small_translation_certificate(claim)
    vi, vj = cert["input"]["pairs"][0]
    cert["evidence"]["translations"][0] = [str(a) for a in lemma_u(other, vi, vj)]
    rejects(cert, rf"^evidence\.translations\[0\]: not the u of {claim}$")


@pytest.mark.parametrize("claim, target", [("lemma 3.2", -1), ("lemma 3.3", 1)])
def test_translation_lemmas_assert_their_cosine(claim, target):
    cert = small_translation_certificate(claim)
    cert["assertion"]["cosine"] = str(-target)
    rejects(cert, rf"^assertion\.cosine: {claim} asserts {target}$")


def test_lemma_32_refuses_equal_vectors():
    cert = small_translation_certificate("lemma 3.2")
    v = cert["input"]["pairs"][2][0]
    cert["input"]["pairs"][2] = [v, list(v)]
    rejects(cert, r"^input\.pairs\[2\]: v_i = v_j, outside the hypothesis of lemma 3\.2 "
                  r"\(v_i != v_j\)$")


def test_lemma_33_equal_vectors_need_a_translation_off_zero():
    cert = small_translation_certificate("lemma 3.3")
    k = next(k for k, (a, b) in enumerate(cert["input"]["pairs"]) if a == b)
    v = [F(a) for a in cert["input"]["pairs"][k][0]]
    cert["evidence"]["translations"][k] = [str(-a) for a in v]  # v + u = 0: no cosine
    rejects(cert, rf"^input\.pairs\[{k}\]: cos\(v_i \+ u, v_j \+ u\) is not 1$")
    # Any other u with v + u != 0 proves cosine +1 for equal vectors.
    cert["evidence"]["translations"][k] = [str(3 - a) for a in v]
    assert check_certificate(cert).startswith("lemma 3.3, cos(v_i + u, v_j + u) = 1")


def test_translation_lemma_structure():
    cert = small_translation_certificate("lemma 3.2")
    cert["input"]["pairs"], cert["evidence"]["translations"] = [], []
    rejects(cert, r"^input\.pairs: no pair$")
    cert = small_translation_certificate("lemma 3.2")
    cert["evidence"]["translations"].pop()
    rejects(cert, r"^evidence\.translations: expected 8 entries, got 7$")
    cert = small_translation_certificate("lemma 3.2")
    cert["input"]["pairs"][1] = [cert["input"]["pairs"][1][0]]
    rejects(cert, r"^input\.pairs\[1\]: expected 2 entries, got 1$")
    cert = small_translation_certificate("lemma 3.2")
    cert["input"]["pairs"][1][1] = ["1"]
    rejects(cert, r"^input\.pairs\[1\]\[1\]: expected 2 entries, got 1$")
    cert = small_translation_certificate("lemma 3.2")
    cert["input"]["pairs"][1][0] = []
    rejects(cert, r"^input\.pairs\[1\]\[0\]: empty vector$")
    cert = small_translation_certificate("lemma 3.2")
    cert["evidence"]["translations"][1] = ["1"]
    rejects(cert, r"^evidence\.translations\[1\]: expected 2 entries, got 1$")
    cert = small_translation_certificate("lemma 3.3")
    cert["evidence"]["symbolic"] = SYMBOLIC.format("lemma 3.2")
    rejects(cert, r"^evidence\.symbolic: expected .*lemma 3\.3")


def test_lemma_32_opposite_vectors_have_no_cosine():
    # v_j = -v_i: the u of lemma 3.2 is 0 and v_i + u = v_i, v_j + u = -v_i: cosine -1.
    # v_i = 0 != v_j: then v_i + u = -v_j/2 and v_j + u = v_j/2, cosine -1 again; the
    # checker must compute it, so a pair whose translated vectors are parallel and of the
    # same direction must fail: no such pair exists for lemma 3.2, so check acceptance.
    cert = small_translation_certificate("lemma 3.2", keep=1)
    cert["input"]["pairs"] = [[["2", "-3"], ["-2", "3"]], [["0", "0"], ["1", "5"]]]
    cert["evidence"]["translations"] = [["0", "0"], ["-1/2", "-5/2"]]
    assert check_certificate(cert).startswith("lemma 3.2, cos(v_i + u, v_j + u) = -1: 2 "
                                              "pairs with v_i != v_j and the lemma's u;")


# --- theorem 3.4 and appendix D -----------------------------------------------------------

def test_theorem_34_accepted():
    cert = fresh("theorem 3.4")
    i, j = cert["input"]["labels"]
    assert check_certificate(cert) == (
        f"theorem 3.4, labels {i}, {j}: two models with the probabilities of W for every "
        f"input (B_n W' = B_n W), cos(w'_{i}, w'_{j}) = -1 and +1; symbolic part not "
        "checked here")


def shifted(V, u):
    return [[str(F(a) + b) for a, b in zip(row, u)] for row in V]


@pytest.mark.parametrize("claim", ["theorem 3.4", "appendix D"])
@pytest.mark.parametrize("key", ["W_minus", "W_plus"])
def test_an_equivalent_model_that_changes_one_logit_difference(claim, key):
    cert = fresh(claim)
    V = cert["evidence"][key]
    # Adding one vector to every row keeps B_n V: still accepted.
    ok = copy.deepcopy(cert)
    ok["evidence"][key] = shifted(V, [F(0), F(0)])
    assert check_certificate(ok).startswith(claim)
    # Moving the last row alone changes the differences with it.
    V[-1] = [str(F(a) + 1) for a in V[-1]]
    n = len(V)
    rejects(cert, rf"^evidence\.{key}: w'_0 - w'_{n - 1} differs from w_0 - w_{n - 1}, so "
                  r"some logit difference changes$")


@pytest.mark.parametrize("claim", ["theorem 3.4", "appendix D"])
def test_an_equivalent_model_of_another_shape(claim):
    cert = fresh(claim)
    cert["evidence"]["W_minus"].pop()
    rejects(cert, r"^evidence\.W_minus: not of the shape of input\.W$")
    cert = fresh(claim)
    cert["evidence"]["W_plus"] = [row + ["0"] for row in cert["evidence"]["W_plus"]]
    rejects(cert, r"^evidence\.W_plus: not of the shape of input\.W$")


def test_theorem_34_hypothesis_and_assertion():
    cert = fresh("theorem 3.4")
    i, j = cert["input"]["labels"]
    cert["input"]["W"][j] = list(cert["input"]["W"][i])
    rejects(cert, rf"^input\.W: w_{i} = w_{j}, outside the hypothesis of theorem 3\.4$")
    cert = fresh("theorem 3.4")
    cert["assertion"]["cosines"] = ["1", "-1"]
    rejects(cert, r'^assertion\.cosines: theorem 3\.4 asserts \["-1", "1"\]$')
    cert = fresh("theorem 3.4")
    cert["input"]["labels"] = [1, 1]
    rejects(cert, r"^input\.labels: the two labels must differ$")
    cert = fresh("theorem 3.4")
    cert["evidence"]["symbolic"] = "checked"
    rejects(cert, r"^evidence\.symbolic: expected .*theorem 3\.4")


def test_theorem_34_models_swapped():
    # Both are equivalent to W; with the two swapped each cosine is the wrong one.
    cert = fresh("theorem 3.4")
    ev = cert["evidence"]
    ev["W_minus"], ev["W_plus"] = ev["W_plus"], ev["W_minus"]
    i, j = cert["input"]["labels"]
    rejects(cert, rf"^evidence\.W_minus: cos\(w'_{i}, w'_{j}\) is not -1$")
    cert = fresh("theorem 3.4")
    cert["evidence"]["W_plus"] = cert["evidence"]["W_minus"]
    rejects(cert, rf"^evidence\.W_plus: cos\(w'_{i}, w'_{j}\) is not 1$")


def test_appendix_d_accepted_with_its_values():
    cert = fresh("appendix D")
    W = [[F(a) for a in row] for row in cert["input"]["W"]]
    i, j = cert["input"]["labels"]
    c = F(cert["input"]["c"])
    dots = [dot([F(a) for a in cert["evidence"][k][i]], [F(a) for a in cert["evidence"][k][j]])
            for k in ("W_minus", "W_plus")]
    assert [F(a) for a in cert["assertion"]["dots"]] == dots and dots[0] * dots[1] < 0
    before = sum((a - b) ** 2 for a, b in zip(W[i], W[j]))
    assert [F(a) for a in cert["assertion"]["distances_squared"]] == [before, c * c * before]
    summary = check_certificate(cert)
    assert summary.startswith(f"appendix D, labels {i}, {j}: w_{i}.w_{j} = {dots[0]} and "
                              f"{dots[1]} and normalised distances ")
    assert summary.endswith(f"in two equivalent models; W -> {c} W, x -> x / {c} keeps the "
                            f"logits while |w_{i} - w_{j}|^2 goes from {before} to "
                            f"{c * c * before}; symbolic part not checked here")


def test_appendix_d_each_condition():
    def altered(edit):
        cert = fresh("appendix D")
        edit(cert)
        return cert

    i, j = fresh("appendix D")["input"]["labels"]
    rejects(altered(lambda c: c["input"]["W"].__setitem__(j, list(c["input"]["W"][i]))),
            rf"^input\.W: w_{i} = w_{j}, outside the hypothesis$")
    for c in ("0", "1", "-1"):
        rejects(altered(lambda cert: cert["input"].__setitem__("c", c)),
                r"^input\.c: the scaling needs c != 0 and c\^2 != 1$")
    rejects(altered(lambda c: c["assertion"]["dots"].reverse()),
            r"^assertion\.dots: w'_0\.w'_1 is -1/8 and 3/8, listed 3/8, -1/8; the signs "
            r"must be opposite$")
    # Two models with the same signs of w_i . w_j: W_plus for both.
    def same_signs(cert):
        cert["evidence"]["W_minus"] = cert["evidence"]["W_plus"]
        cert["assertion"]["dots"] = [cert["assertion"]["dots"][1]] * 2
    rejects(altered(same_signs), r"^assertion\.dots: .* the signs must be opposite$")
    rejects(altered(lambda c: c["assertion"]["normalised_distances"].reverse()),
            r"^assertion\.normalised_distances: not 2 - 2 cos\(w'_i, w'_j\) of the two "
            r"models, or equal$")
    rejects(altered(lambda c: c["input"].__setitem__("inputs", [])),
            r"^input\.inputs: no input$")
    rejects(altered(lambda c: c["input"]["inputs"].__setitem__(1, ["1"])),
            r"^input\.inputs\[1\]: expected 2 entries, got 1$")
    rejects(altered(lambda c: c["assertion"]["distances_squared"].reverse()),
            r"^assertion\.distances_squared: not \|w_i - w_j\|\^2 before and after the "
            r"scaling, or equal$")
    rejects(altered(lambda c: c["evidence"].__setitem__("symbolic", "")),
            r"^evidence\.symbolic: expected .*appendix D")


def test_appendix_d_a_scaling_by_minus_one_changes_nothing():
    # c = -1 keeps |w_i - w_j|^2, so it cannot show that distances change.
    cert = fresh("appendix D")
    cert["input"]["c"] = "-1"
    d = cert["assertion"]["distances_squared"]
    cert["assertion"]["distances_squared"] = [d[0], d[0]]
    rejects(cert, r"^input\.c: the scaling needs c != 0 and c\^2 != 1$")


def test_appendix_d_equal_normalised_distances_prove_nothing():
    # Two copies of W_plus, with their dots of the right signs forged in: the distances
    # are equal, so the claim that the normalised distance changes is not shown.
    cert = fresh("appendix D")
    ev = cert["evidence"]
    ev["W_minus"] = ev["W_plus"]
    nd = cert["assertion"]["normalised_distances"]
    cert["assertion"]["normalised_distances"] = [nd[1], nd[1]]
    rejects(cert, r"^assertion\.dots")


def test_appendix_d_scaled_logit_must_be_recomputed():
    # x / c with c = 2 keeps every logit; the checker recomputes c w . x / c exactly.
    cert = fresh("appendix D")
    cert["input"]["c"] = "3"
    before = F(cert["assertion"]["distances_squared"][0])
    cert["assertion"]["distances_squared"] = [str(before), str(9 * before)]
    assert "goes from 1/2 to 9/2" in check_certificate(cert)


# --- examples C.1-C.3 ---------------------------------------------------------------------

@pytest.mark.parametrize("claim, facts", [
    ("example C.1", "example C.1: 1 cosine as the paper states; cosines -1 and +1 after the "
                    "translations of lemmas 3.2 and 3.3, same logit differences"),
    ("example C.2", "example C.2: 3 cosines as the paper states; W centered; 5 pairs can "
                    "tie, 5 cannot; label 3 first between 2 and 4; the two nearest cosine "
                    "neighbours of 2 labels not all tie partners"),
    ("example C.3", "example C.3: 2 cosines as the paper states; W centered; unit rows; "
                    "1 pair can tie, 1 cannot"),
])
def test_examples_accepted(claim, facts):
    assert check_certificate(fresh(claim)) == facts


def test_example_cosine_statements():
    def altered(claim, edit):
        cert = fresh(claim)
        edit(cert["assertion"]["cosines"])
        return cert

    def set_key(k, key, value):
        return lambda s: s[k].__setitem__(key, value)

    rejects(altered("example C.2", set_key(0, "cosine", "1/3")),
            r"^assertion\.cosines\[0\]: cos\(w_0, w_1\) is 12/37, not 1/3$")
    # 12/37 = 0.3243...: "0.32" rounded holds, "0.33" and "0.31" do not.
    rejects(altered("example C.2", set_key(0, "paper", "0.33")),
            r"^assertion\.cosines\[0\]: 12/37 is not about 0\.33$")
    rejects(altered("example C.2", set_key(0, "paper", "0.31")),
            r"^assertion\.cosines\[0\]: 12/37 is not about 0\.31$")
    # 4/5 exactly: "0.8" unrounded; "0.80" is the same value, but not the paper's text.
    rejects(altered("example C.2", set_key(2, "paper", "0.80")),
            r"^assertion\.cosines: the paper states ")
    rejects(altered("example C.2", set_key(0, "rounded", False)),
            r"^assertion\.cosines\[0\]: 12/37 is not 0\.32$")
    for bad in ("0,32", ".32", "32", 0.32):
        rejects(altered("example C.2", set_key(0, "paper", bad)),
                r"^assertion\.cosines\[0\]: paper must be a decimal such as \"0\.32\" and "
                r"rounded true or false$")
    rejects(altered("example C.2", set_key(0, "rounded", "yes")),
            r"^assertion\.cosines\[0\]: paper must be a decimal")
    rejects(altered("example C.2", lambda s: s.pop()), r"^assertion\.cosines: the paper "
                                                       r"states \[\[\[0, 1\], ")
    rejects(altered("example C.2", set_key(0, "labels", [1, 1])),
            r"^assertion\.cosines\[0\]\.labels: the two labels must differ$")
    rejects(altered("example C.2", set_key(0, "labels", [0, 5])),
            r"^assertion\.cosines\[0\]\.labels: expected an integer from 0 to 4, got 5$")


def test_rounding_bounds_are_half_a_unit_in_the_last_digit():
    # -8/185*sqrt(185) = -0.58817...: rounds to -0.59 (two digits) and -0.588 (three),
    # and its bounds are exclusive above: a value exactly at q + h is not "about q".
    from verify.checker.claims import _check_cosine_statements
    from verify.checker.roots import RootSum

    value = RootSum([(185, Fraction(-8, 185))])
    for text, holds in (("-0.59", True), ("-0.588", True), ("-0.58", False),
                        ("-0.5882", True), ("-0.5881", False), ("-0.6", True)):
        statements = [{"labels": [0, 1], "cosine": "-8/185*sqrt(185)", "paper": text,
                       "rounded": True}]
        paper = [[[0, 1], text, True]]
        C = [[1, value], [value, 1]]
        if holds:
            _check_cosine_statements(C, statements, paper)
        else:
            with pytest.raises(CertificateError, match="is not about"):
                _check_cosine_statements(C, statements, paper)
    # The bounds [q - h, q + h) are closed below and open above: 1/4 is "about 0.3"
    # ([0.25, 0.35)) and not "about 0.2" ([0.15, 0.25)).
    C = [[1, Fraction(1, 4)], [Fraction(1, 4), 1]]
    stated = {"labels": [0, 1], "cosine": "1/4", "paper": "0.3", "rounded": True}
    _check_cosine_statements(C, [stated], [[[0, 1], "0.3", True]])
    with pytest.raises(CertificateError, match="is not about 0.2"):
        _check_cosine_statements(C, [{**stated, "paper": "0.2"}], [[[0, 1], "0.2", True]])


def test_examples_centered_and_unit_rows():
    cert = fresh("example C.2")
    cert["input"]["W"][0][0] = "3/2"
    rejects(cert, r"^assertion\.cosines\[0\]")  # the cosine changes first
    cert = fresh("example C.3")
    cert["assertion"]["centered"] = False
    rejects(cert, r"^assertion\.centered: expected true, got false$")
    cert = fresh("example C.3")
    cert["assertion"]["unit_rows"] = "true"
    rejects(cert, r"^assertion\.unit_rows: expected true, got \"true\"$")


def test_example_c3_scaled_rows_are_not_unit():
    # Scaling every row by 2 keeps every cosine and the centering, not the unit length.
    cert = fresh("example C.3")
    W = cert["input"]["W"]
    from verify.checker.roots import SQUARE_ROOTS

    cert["input"]["W"] = [[str(SQUARE_ROOTS.parse(a, "") * 2) for a in row] for row in W]
    for k, x in enumerate(cert["evidence"]["ties"]):
        cert["evidence"]["ties"][k] = x  # a tie point stays a tie point
    rejects(cert, r"^assertion\.unit_rows: a row of W is not of length 1$")


def test_example_c2_uncentered_rows():
    # Scaling one row by 2 keeps every cosine (and every cosine statement) but not the
    # centering.
    cert = fresh("example C.2")
    cert["input"]["W"][0] = [str(2 * F(a)) for a in cert["input"]["W"][0]]
    rejects(cert, r"^assertion\.centered: the rows of W do not sum to 0$")


def test_example_c2_between_and_nearest():
    cert = fresh("example C.2")
    cert["assertion"]["between"] = {"labels": [2, 4], "first": 0}
    rejects(cert, r'^assertion\.between: the paper states \{"labels": \[2, 4\], "first": 3\}$')
    # A point where 3 is first and 2, 4 tie, but only label 0 is ahead of them? The
    # checker computes the logits; x = 0 ties everything.
    for x in (["0", "0"], ["3/5", "0"], ["-3/5", "1/10"]):
        cert = fresh("example C.2")
        cert["evidence"]["between"] = x
        rejects(cert, r"^evidence\.between: x does not rank 3 first and 2, 4 tied next$")
    cert = fresh("example C.2")
    cert["evidence"]["between"] = ["-3/5"]
    rejects(cert, r"^evidence\.between: expected 2 entries, got 1$")
    cert = fresh("example C.2")
    cert["assertion"]["nearest"] = []
    rejects(cert, r"^assertion\.nearest: no label$")
    cert = fresh("example C.2")
    cert["assertion"]["nearest"][0]["neighbours"] = [1, 3]
    rejects(cert, r"^assertion\.nearest\[0\]: the two nearest cosine neighbours of 2 are "
                  r"\[3, 4\]$")
    cert = fresh("example C.2")
    cert["assertion"]["nearest"][1]["neighbours"] = [3, 2]
    rejects(cert, r"^assertion\.nearest\[1\]: the two nearest cosine neighbours of 4 are "
                  r"\[2, 3\]$")


def test_example_c2_between_checks_every_label():
    # w_2 = (-9/10, 3/10) and w_4 = (-9/10, -3/10) tie exactly on the line x_2 = 0; there
    # the logits are 7t/5 (labels 0, 1), -9t/10 (labels 2, 4) and -t (label 3), so 3 is
    # first with 2, 4 next iff t < 0. Off the line 2 and 4 do not tie.
    for x, holds in ((["-3/5", "0"], True), (["-7", "0"], True), (["1/2", "0"], False),
                     (["-3/5", "1/100"], False), (["-3/5", "-1/100"], False)):
        cert = fresh("example C.2")
        cert["evidence"]["between"] = x
        if holds:
            assert "label 3 first between 2 and 4" in check_certificate(cert)
        else:
            rejects(cert, r"^evidence\.between: x does not rank 3 first and 2, 4 tied next$")


def test_example_c2_nearest_needs_a_proven_no_tie():
    # Keep the nearest statements, drop the no-tie proofs of the pairs they rely on:
    # (2, 3), (2, 4) for label 2 are not proven unable to tie. (2, 4) is the paper's.
    cert = fresh("example C.2")
    a, e = cert["assertion"], cert["evidence"]
    keep = [k for k, p in enumerate(a["no_ties"]) if 2 not in p or 4 in p]
    keep = [k for k in keep if a["no_ties"][k] != [2, 4]] + \
        [a["no_ties"].index([2, 4])]
    a["no_ties"] = [a["no_ties"][k] for k in keep]
    e["no_ties"] = [e["no_ties"][k] for k in keep]
    assert check_certificate(copy.deepcopy(cert))
    a["nearest"] = [{"label": 3, "neighbours": [2, 4]}]
    rejects(cert, r"^assertion\.nearest\[0\]: ")


def test_example_c1_translations():
    cert = fresh("example C.1")
    cert["evidence"]["translations"]["lemma 3.2"], cert["evidence"]["translations"][
        "lemma 3.3"] = (cert["evidence"]["translations"]["lemma 3.3"],
                        cert["evidence"]["translations"]["lemma 3.2"])
    rejects(cert, r"^evidence\.translations\.lemma 3\.2: not the u of lemma 3\.2, or the "
                  r"asserted cosine is not -1$")
    cert = fresh("example C.1")
    cert["assertion"]["translated"]["lemma 3.3"] = "-1"
    rejects(cert, r"^evidence\.translations\.lemma 3\.3: not the u of lemma 3\.3, or the "
                  r"asserted cosine is not 1$")
    cert = fresh("example C.1")
    cert["input"]["labels"] = [1, 0]  # the u of lemma 3.2 is symmetric, that of 3.3 not
    rejects(cert, r"^evidence\.translations\.lemma 3\.3: not the u of lemma 3\.3")
    cert = fresh("example C.1")
    cert["evidence"]["translations"]["lemma 3.2"] = ["0"]
    rejects(cert, r"^evidence\.translations\.lemma 3\.2: expected 2 entries, got 1$")
    cert = fresh("example C.1")
    del cert["assertion"]["translated"]["lemma 3.3"]
    rejects(cert, r"^assertion\.translated: missing 'lemma 3\.3'$")
    cert = fresh("example C.1")
    cert["evidence"]["translations"]["lemma 3.4"] = []
    rejects(cert, r"^evidence\.translations: unexpected 'lemma 3\.4'$")
    cert = fresh("example C.1")
    cert["input"]["labels"] = [0, 0]
    rejects(cert, r"^input\.labels: the two labels must differ$")


def test_example_c1_labels_whose_translations_give_no_cosine():
    # Labels 0 and 1 swapped with rows equal: the u of lemma 3.2 is what it must be for
    # those rows; the cosines are then computed and must be -1 and +1.
    cert = fresh("example C.1")
    W = cert["input"]["W"]
    W[1] = list(W[0])  # w_0 = w_1: u of 3.2 is -w_0, both rows translate to zero
    u32 = [str(-F(a)) for a in W[0]]
    cert["evidence"]["translations"] = {"lemma 3.2": u32, "lemma 3.3": u32}
    from verify.checker.roots import SQUARE_ROOTS, cosine_matrix

    C = cosine_matrix([[SQUARE_ROOTS.parse(a, "") for a in row] for row in W])
    cert["assertion"]["cosines"][0]["cosine"] = str(C[0][1])
    cert["assertion"]["cosines"][0]["paper"] = "1.0"
    rejects(cert, r"^assertion\.cosines: the paper states|is not 1\.0")


# --- ties of examples C.2, C.3 (paths the adversarial tests do not reach) ----------------

def test_tie_lists_name_their_problem():
    cert = fresh("example C.2")
    cert["evidence"]["ties"].pop()
    rejects(cert, r"^evidence\.ties: expected 5 entries, got 4$")
    cert = fresh("example C.2")
    cert["evidence"]["ties"][0] = ["1"]
    rejects(cert, r"^evidence\.ties\[0\]: expected 2 entries, got 1$")
    cert = fresh("example C.2")
    cert["evidence"]["ties"][0] = ["0", "0"]  # every label ties at 0
    rejects(cert, r"^evidence\.ties\[0\]: x does not give w_0\.x = w_1\.x > every other "
                  r"w_k\.x$")
    cert = fresh("example C.3")
    cert["assertion"]["ties"] = []
    cert["evidence"]["ties"] = []
    rejects(cert, r"^assertion\.ties: the paper's pair \[0, 1\] is missing$")
    cert = fresh("example C.3")
    cert["assertion"]["no_ties"] = []
    cert["evidence"]["no_ties"] = []
    rejects(cert, r"^assertion\.no_ties: the paper's pair \[1, 3\] is missing$")
    cert = fresh("example C.2")
    cert["assertion"]["no_ties"][0] = [0, 0]
    rejects(cert, r"^assertion\.no_ties\[0\]: the two labels must differ$")


def test_no_tie_proof_messages():
    cert = fresh("example C.3")
    proof = cert["evidence"]["no_ties"][0]
    proof["multipliers"] = []
    rejects(cert, r"^evidence\.no_ties\[0\]\.multipliers: none, or all zero$")
    cert = fresh("example C.3")
    proof = cert["evidence"]["no_ties"][0]
    proof["multipliers"].append(list(proof["multipliers"][0]))
    rejects(cert, r"^evidence\.no_ties\[0\]\.multipliers\[2\]: label 0 is i, j or repeated, "
                  r"or y < 0$")
    cert = fresh("example C.3")
    cert["evidence"]["no_ties"][0]["t"] = "0"
    rejects(cert, r"^evidence\.no_ties\[0\]: sum_k y_k \(w_i - w_k\) \+ t \(w_i - w_j\) is "
                  r"not 0$")
    cert = fresh("example C.3")
    cert["evidence"]["no_ties"][0]["multipliers"][0] = [0]
    rejects(cert, r"^evidence\.no_ties\[0\]\.multipliers\[0\]: expected 2 entries, got 1$")
    cert = fresh("example C.3")
    cert["evidence"]["no_ties"][0]["multipliers"][0][0] = 6
    rejects(cert, r"^evidence\.no_ties\[0\]\.multipliers\[0\]: expected an integer from 0 "
                  r"to 5, got 6$")


def test_no_tie_proof_with_a_scaled_t_and_multipliers_is_accepted():
    # The conditions are homogeneous: multiplying every y and t by 7 is still a proof.
    cert = fresh("example C.3")
    proof = cert["evidence"]["no_ties"][0]
    proof["t"] = str(F(proof["t"]) * 7)
    proof["multipliers"] = [[k, str(F(y) * 7)] for k, y in proof["multipliers"]]
    assert check_certificate(cert).endswith("1 pair can tie, 1 cannot")


# --- Steck et al. ---------------------------------------------------------------------------

STECK = ("steck eq1-invariance", "steck eq1-closed-form", "steck full-rank",
         "steck eq2-unique")


def test_steck_accepted():
    assert check_certificate(fresh("steck eq1-invariance")) == (
        "steck eq1-invariance: (1) = 27/10 for (A, B) and 2 diagonal rescalings (A D, B "
        "D^-1); item-item, user-user and user-item cosines differ between the first two; "
        "symbolic part not checked here")
    cert = fresh("steck eq1-closed-form")
    assert check_certificate(cert) == (
        "steck eq1-closed-form: zero gradient of (1) at V diag(1/(1 + lambda/sigma^2)) V^T, "
        "X^T X + lambda I positive definite (unique minimiser for k = p), A A^T equal to "
        "it; k = 2: zero gradients, (1) = 27/10, 2 other choices larger; symbolic part not "
        "checked here")
    assert check_certificate(fresh("steck full-rank")).startswith(
        "steck full-rank: A = B = V diag(c)^(1/2) minimises (1); D = diag(c)^(1/2): B D^-1 "
        "= V, item-item cosine I, user-item cosine = score / |user|; D^-1: A D^-1 = V, "
        "user-user cosine = cosine of the rows of X, item-item cosine not I;")
    assert check_certificate(fresh("steck eq2-unique")) == (
        "steck eq2-unique: zero gradients of (2) at eq. 6, (2) = 57/4, 3 stationary points "
        "dropping directions larger, D raises (2) by 209/9, the rotation R keeps (2), "
        "stationarity and all three cosine matrices; symbolic part not checked here")


def _objective_1(X, P, lam):
    """(1) of Steck et al., ``|X - X P|^2 + lambda |P|^2``, computed here."""
    XP = [[dot(row, col) for col in zip(*P)] for row in X]
    return (sum((a - b) ** 2 for r, s in zip(X, XP) for a, b in zip(r, s))
            + lam * sum(a * a for row in P for a in row))


def test_steck_closed_form_value_is_the_objective():
    cert = fresh("steck eq1-closed-form")
    inp = cert["input"]
    X = [[F(a) for a in row] for row in inp["X"]]
    V = [[F(a) for a in row] for row in inp["V"]]
    lam, k = F(inp["lambda"]), inp["k"]
    c = [1 / (1 + lam / (F(s) ** 2)) for s in inp["sigma"]]
    P = [[sum(V[a][m] * c[m] * V[b][m] for m in range(k)) for b in range(3)]
         for a in range(3)]
    assert _objective_1(X, P, lam) == F(cert["assertion"]["objective_k"])
    cert["assertion"]["objective_k"] = str(F(cert["assertion"]["objective_k"]) + 1)
    rejects(cert, r"^assertion\.objective_k: \(1\) at A = B = A_k: not equal$")


def steck(claim, edit):
    cert = fresh(claim)
    edit(cert)
    return cert


def _set(*path_and_value):
    *path, key, value = path_and_value

    def edit(cert):
        holder = cert
        for p in path:
            holder = holder[p]
        holder[key] = value
    return edit


@pytest.mark.parametrize("claim", STECK)
def test_steck_svd_instance_conditions(claim):
    rejects(steck(claim, _set("input", "V", 0, 0, "1")),
            r"^input: U\^T U = I and V\^T V = V V\^T = I do not hold$")
    rejects(steck(claim, _set("input", "U", 0, 0, "1")),
            r"^input: U\^T U = I and V\^T V = V V\^T = I do not hold$")
    rejects(steck(claim, _set("input", "X", 0, 0, "1")), r"^input\.X: not U diag\(sigma\) V\^T$")
    rejects(steck(claim, _set("input", "lambda", "0")), r"^input\.lambda: not positive$")
    rejects(steck(claim, _set("input", "lambda", "-1")), r"^input\.lambda: not positive$")
    rejects(steck(claim, lambda c: c["input"]["V"].pop()), r"^input\.V: not square$")
    rejects(steck(claim, lambda c: [row.pop() for row in c["input"]["X"]]),
            r"^input\.X: expected 4 x 3, got 4 x 2$")
    rejects(steck(claim, lambda c: c["input"]["U"].pop()),
            r"^input\.U: expected 4 x 3, got 3 x 3$")
    rejects(steck(claim, _set("input", "sigma", ["3", "2"])),
            r"^input\.sigma: expected 3 entries, got 2$")
    rejects(steck(claim, _set("evidence", "symbolic", "")),
            rf"^evidence\.symbolic: expected .*{claim}")


@pytest.mark.parametrize("claim", STECK)
def test_steck_sigma_must_decrease_strictly_and_be_positive(claim):
    # A permutation of an SVD is still a factorisation X = U diag(sigma) V^T; only the
    # order of sigma breaks, so only that condition is violated.
    def swap(cert, a, b):
        inp = cert["input"]
        inp["sigma"][a], inp["sigma"][b] = inp["sigma"][b], inp["sigma"][a]
        for M in (inp["U"], inp["V"]):
            for row in M:
                row[a], row[b] = row[b], row[a]

    rejects(steck(claim, lambda c: swap(c, 0, 1)),
            r"^input\.sigma: not positive and strictly decreasing$")
    rejects(steck(claim, lambda c: swap(c, 1, 2)),
            r"^input\.sigma: not positive and strictly decreasing$")

    # A negative singular value with its column of U negated: the same product.
    def negate_last(cert):
        inp = cert["input"]
        inp["sigma"][2] = str(-F(inp["sigma"][2]))
        for row in inp["U"]:
            row[2] = str(-F(row[2]))
    rejects(steck(claim, negate_last), r"^input\.sigma: not positive and strictly decreasing$")


def test_steck_equal_singular_values_are_not_strictly_decreasing():
    from verify.checker.claims import _svd_instance

    I = [["1", "0"], ["0", "1"]]
    doc = {"X": [["2", "0"], ["0", "2"]], "U": I, "sigma": ["2", "2"], "V": I, "lambda": "1"}
    with pytest.raises(CertificateError, match="not positive and strictly decreasing"):
        _svd_instance(doc)
    doc.update(X=[["2", "0"], ["0", "1"]], sigma=["2", "1"])
    assert _svd_instance(doc)[2] == [2, 1]
    doc.update(X=[["1", "0"], ["0", "0"]], sigma=["1", "0"])
    with pytest.raises(CertificateError, match="not positive and strictly decreasing"):
        _svd_instance(doc)
    # V with V^T V = I but not square is impossible; V V^T = I is checked on its own:
    # a V whose columns are orthonormal but rows are not needs more rows than columns.
    doc.update(X=[["1", "0"], ["0", "0"]], sigma=["1", "1/2"],
               V=[["1", "0"], ["0", "0"]])
    with pytest.raises(CertificateError, match="do not hold"):
        _svd_instance(doc)


def test_steck_eq1_invariance_conditions():
    claim = "steck eq1-invariance"
    rejects(steck(claim, _set("assertion", "objective", "1")),
            r"^assertion\.objective: \(1\) at \(A, B\): not equal$")
    rejects(steck(claim, lambda c: (c["input"]["D"].pop(), c["evidence"]["D_inv"].pop())),
            r"^input\.D: two scalings are needed to compare cosines$")
    rejects(steck(claim, lambda c: c["evidence"]["D_inv"].pop()),
            r"^evidence\.D_inv: expected 2 entries, got 1$")
    rejects(steck(claim, _set("evidence", "D_inv", 1, 0, 0, "1")),
            r"^input\.D\[1\]: not diagonal, or D D_inv != I$")
    # A non-diagonal D with its true inverse: D D_inv = I holds, A B^T changes.
    def shear(cert):
        cert["input"]["D"][1] = [["1", "1"], ["0", "1"]]
        cert["evidence"]["D_inv"][1] = [["1", "-1"], ["0", "1"]]
    rejects(steck(claim, shear), r"^input\.D\[1\]: not diagonal, or D D_inv != I$")
    # The same diagonal twice: the cosines do not differ.
    def same(cert):
        cert["input"]["D"][1] = cert["input"]["D"][0]
        cert["evidence"]["D_inv"][1] = cert["evidence"]["D_inv"][0]
    rejects(steck(claim, same), r"^item-item cosines: equal, but asserted to differ$")
    rejects(steck(claim, lambda c: c["input"]["A"].pop()),
            r"^input\.A: expected 3 x 2, got 2 x 2$")
    rejects(steck(claim, lambda c: [r.pop() for r in c["input"]["B"]]),
            r"^input\.B: expected 3 x 2, got 3 x 1$")
    rejects(steck(claim, _set("input", "D", 1, [["2", "0"]])),
            r"^input\.D\[1\]: expected 2 x 2, got 1 x 2$")
    rejects(steck(claim, _set("evidence", "D_inv", 1, [["1/2"], ["3"]])),
            r"^evidence\.D_inv\[1\]: expected 2 x 2, got 2 x 1$")


def test_steck_eq1_invariance_a_third_scaling_is_checked():
    claim = "steck eq1-invariance"
    ok = steck(claim, lambda c: (c["input"]["D"].append([["-1", "0"], ["0", "-1"]]),
                                 c["evidence"]["D_inv"].append([["-1", "0"], ["0", "-1"]])))
    assert check_certificate(ok).startswith("steck eq1-invariance: (1) = 27/10 for (A, B) "
                                            "and 3 diagonal rescalings")
    bad = steck(claim, lambda c: (c["input"]["D"].append([["1", "0"], ["0", "1"]]),
                                  c["evidence"]["D_inv"].append([["1", "0"], ["0", "2"]])))
    rejects(bad, r"^input\.D\[2\]: not diagonal, or D D_inv != I$")


def test_steck_eq1_invariance_a_scaling_that_changes_the_product():
    # D = diag(2, 1/3) with D_inv = diag(1/2, 3): fine; with A itself scaled (A D) and B
    # left, A B^T changes; the asserted (1) is recomputed for the new A B^T.
    from verify.checker.claims import _mul, _transpose

    cert = fresh("steck eq1-invariance")
    inp = cert["input"]
    A = [[F(a) for a in row] for row in inp["A"]]
    A = [[2 * row[0], row[1]] for row in A]
    inp["A"] = [[str(a) for a in row] for row in A]
    X = [[F(a) for a in row] for row in inp["X"]]
    B = [[F(a) for a in row] for row in inp["B"]]
    P = _mul(A, _transpose(B))
    cert["assertion"]["objective"] = str(_objective_1(X, P, F(inp["lambda"])))
    assert check_certificate(copy.deepcopy(cert))  # still a valid instance
    cert["evidence"]["D_inv"][1][1][1] = "1/3"
    rejects(cert, r"^input\.D\[1\]: not diagonal, or D D_inv != I$")


def test_steck_closed_form_conditions():
    claim = "steck eq1-closed-form"
    for k in (0, 4, "2", True):
        rejects(steck(claim, _set("input", "k", k)),
                r"^input\.k: expected an integer from 1 to 3$")
    rejects(steck(claim, _set("evidence", "roots", 0, "1")),
            r"^evidence\.roots\[0\]: not the positive square root of 9/10$")
    rejects(steck(claim, _set("evidence", "roots", 1, "-2/5*sqrt(5)")),
            r"^evidence\.roots\[1\]: not the positive square root of 4/5$")
    rejects(steck(claim, _set("input", "directions", 1, [["0", "0", "0"]] * 3)),
            r"^input\.directions\[1\]: \(1\) does not rise by \|X E\|\^2 \+ lambda "
            r"\|E\|\^2 > 0$")
    rejects(steck(claim, _set("input", "directions", 0, [["1"]])),
            r"^input\.directions\[0\]: expected 3 x 3, got 1 x 1$")
    # Every k is accepted, with the number of other choices C(3, k) - 1.
    for k, others in ((1, 2), (2, 2), (3, 0)):
        cert = fresh(claim)
        cert["input"]["k"] = k
        inp = cert["input"]
        X = [[F(a) for a in row] for row in inp["X"]]
        V = [[F(a) for a in row] for row in inp["V"]]
        lam = F(inp["lambda"])
        c = [1 / (1 + lam / (F(s) ** 2)) for s in inp["sigma"]]
        P = [[sum(V[a][m] * c[m] * V[b][m] for m in range(k)) for b in range(3)]
             for a in range(3)]
        cert["assertion"]["objective_k"] = str(_objective_1(X, P, lam))
        assert f"k = {k}: zero gradients, (1) = {cert['assertion']['objective_k']}, " \
               f"{others} other choices larger" in check_certificate(cert)


def test_steck_closed_form_wrong_lambda_moves_the_minimiser():
    # With another lambda the input is still an SVD, but the objective's value changes;
    # the stated objective_k is recomputed for the new lambda before it is compared.
    cert = fresh("steck eq1-closed-form")
    cert["input"]["lambda"] = "2"
    rejects(cert, r"^evidence\.roots\[0\]: not the positive square root of 9/11$")


def test_steck_closed_form_roots_for_a_smaller_lambda():
    # lambda = 1/2: c = 18/19, 8/9, 2/3; the roots are recomputed here.
    from verify.checker.roots import RootSum

    cert = fresh("steck eq1-closed-form")
    cert["input"]["lambda"] = "1/2"
    lam = F("1/2")
    c = [1 / (1 + lam / (F(s) ** 2)) for s in cert["input"]["sigma"]]
    roots = [RootSum([(q.numerator * q.denominator, Fraction(1, q.denominator))]) for q in c]
    cert["evidence"]["roots"] = [str(r) for r in roots]
    inp = cert["input"]
    X = [[F(a) for a in row] for row in inp["X"]]
    V = [[F(a) for a in row] for row in inp["V"]]
    P = [[sum(V[a][m] * c[m] * V[b][m] for m in range(2)) for b in range(3)]
         for a in range(3)]
    cert["assertion"]["objective_k"] = str(_objective_1(X, P, lam))
    assert "k = 2: zero gradients" in check_certificate(cert)


def test_steck_full_rank_conditions():
    claim = "steck full-rank"
    rejects(steck(claim, _set("assertion", "c", 0, "1")),
            r"^assertion\.c: not 1/\(1 \+ lambda/sigma_i\^2\)$")
    rejects(steck(claim, _set("evidence", "inverse_roots", 0, "sqrt(10)")),
            r"^evidence\.inverse_roots: not the inverses of the roots$")
    rejects(steck(claim, _set("evidence", "roots", 2, "-1/2*sqrt(2)")),
            r"^evidence\.roots\[2\]: not the positive square root of 1/2$")
    rejects(steck(claim, _set("evidence", "inverse_roots", ["1"])),
            r"^evidence\.inverse_roots: expected 3 entries, got 1$")


def test_steck_full_rank_at_another_lambda():
    # The same X with lambda = 2: c changes and every fact is recomputed; an honest
    # certificate for it is accepted, the old c is refused.
    from verify.checker.roots import RootSum

    cert = fresh("steck full-rank")
    cert["input"]["lambda"] = "2"
    rejects(copy.deepcopy(cert), r"^assertion\.c: not 1/\(1 \+ lambda/sigma_i\^2\)$")
    c = [1 / (1 + 2 / (F(s) ** 2)) for s in cert["input"]["sigma"]]
    cert["assertion"]["c"] = [str(q) for q in c]
    cert["evidence"]["roots"] = [
        str(RootSum([(q.numerator * q.denominator, Fraction(1, q.denominator))])) for q in c]
    cert["evidence"]["inverse_roots"] = [
        str(RootSum([(q.numerator * q.denominator, Fraction(1, q.numerator))])) for q in c]
    assert check_certificate(cert).startswith("steck full-rank")


def test_steck_full_rank_user_norms(monkeypatch):
    # The user norms |u|^2 are rationals here; a user at the origin has no cosine.
    from verify.checker import claims

    cert = fresh("steck full-rank")
    real = claims._rational
    monkeypatch.setattr(claims, "_rational", lambda x: None)
    rejects(copy.deepcopy(cert), r"^user 0: \|u\|\^2 is not a positive rational$")
    monkeypatch.setattr(claims, "_rational", lambda x: Fraction(0))
    rejects(copy.deepcopy(cert), r"^user 0: \|u\|\^2 is not a positive rational$")
    monkeypatch.setattr(claims, "_rational", lambda x: real(x) * 4)
    rejects(copy.deepcopy(cert), r"^user 0: cosines to the items = scores / \|u\|: not equal$")


def test_rational_part_of_a_root_sum():
    from verify.checker.claims import _rational
    from verify.checker.roots import RootSum

    assert _rational(Fraction(3, 4)) == Fraction(3, 4)
    assert _rational(RootSum([(1, Fraction(5, 2))])) == Fraction(5, 2)
    assert _rational(RootSum()) == 0
    assert _rational(RootSum([(2, Fraction(1))])) is None
    assert _rational(RootSum([(1, Fraction(1)), (3, Fraction(1))])) is None


def test_steck_eq2_unique_conditions():
    claim = "steck eq2-unique"
    rejects(steck(claim, _set("assertion", "objective", "14")),
            r"^assertion\.objective: \(2\) at \(A, B\): not equal$")
    rejects(steck(claim, _set("evidence", "a", 2, "1")),
            r"^evidence\.a\[2\]: not the square root of 0$")
    rejects(steck(claim, _set("evidence", "b", 1, "-sqrt(2)")),
            r"^evidence\.b\[1\]: not the square root of 2$")
    rejects(steck(claim, _set("assertion", "increase", "1")),
            r"^assertion\.increase: \(2\) at \(A D, B D\^-1\) minus \(2\) at \(A, B\): "
            r"not equal$")
    rejects(steck(claim, _set("evidence", "D_inv", 0, 0, "1")),
            r"^input\.D: not diagonal, or D D_inv != I$")
    rejects(steck(claim, _set("input", "R", 0, 0, "3/5")), r"^R\^T R = I: not equal$")
    rejects(steck(claim, _set("input", "D", [["1"]])), r"^input\.D: expected 3 x 3, got 1 x 1$")
    rejects(steck(claim, _set("evidence", "D_inv", [["1"]])),
            r"^evidence\.D_inv: expected 3 x 3, got 1 x 1$")
    rejects(steck(claim, _set("input", "R", [["1"]])), r"^input\.R: expected 3 x 3, got 1 x 1$")


def test_steck_eq2_unique_identity_d_raises_nothing():
    # D = I raises (2) by 0: the asserted increase must be positive.
    def identity(cert):
        one = [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]]
        cert["input"]["D"], cert["evidence"]["D_inv"] = one, one
        cert["assertion"]["increase"] = "0"
    rejects(steck("steck eq2-unique", identity), r"^assertion\.increase: not positive$")

    # D that scales only the dropped direction (sigma_3 < lambda) raises nothing either.
    def dropped_only(cert):
        cert["input"]["D"] = [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "5"]]
        cert["evidence"]["D_inv"] = [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1/5"]]
        cert["assertion"]["increase"] = "0"
    rejects(steck("steck eq2-unique", dropped_only), r"^assertion\.increase: not positive$")


def test_steck_eq2_unique_increase_is_the_formula():
    cert = fresh("steck eq2-unique")
    lam = F(cert["input"]["lambda"])
    soft = [max(F(s) - lam, 0) for s in cert["input"]["sigma"]]
    d = [F(cert["input"]["D"][i][i]) for i in range(3)]
    increase = lam * sum(t * (x - 1 / x) ** 2 for t, x in zip(soft, d))
    assert F(cert["assertion"]["increase"]) == increase
    value = sum(2 * lam * F(s) - lam * lam if F(s) > lam else F(s) ** 2
                for s in cert["input"]["sigma"])
    assert F(cert["assertion"]["objective"]) == value


def test_steck_eq2_unique_a_reflection_is_an_orthogonal_r():
    def reflect(cert):
        cert["input"]["R"] = [["-1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]]
    assert check_certificate(steck("steck eq2-unique", reflect)).startswith("steck eq2-unique")

    # A non-orthogonal R with R^T R = I fails nowhere else first: scale R by 2.
    def doubled(cert):
        cert["input"]["R"] = [[str(2 * F(a)) for a in row] for row in cert["input"]["R"]]
    rejects(steck("steck eq2-unique", doubled), r"^R\^T R = I: not equal$")


def test_steck_eq2_lambda_above_every_sigma_but_one():
    # lambda = 4: only sigma_1 = 5 is active; a, b are recomputed, (2) as the formula.
    from verify.checker.claims import _check_eq2_unique

    cert = fresh("steck eq2-unique")
    cert["input"]["lambda"] = "4"
    cert["evidence"]["a"] = ["1/5", "0", "0"]
    cert["evidence"]["b"] = ["1", "0", "0"]
    sigma = [F(s) for s in cert["input"]["sigma"]]
    lam = F(4)
    cert["assertion"]["objective"] = str(sum(2 * lam * s - lam * lam if s > lam else s * s
                                             for s in sigma))
    d = [F(cert["input"]["D"][i][i]) for i in range(3)]
    cert["assertion"]["increase"] = str(lam * 1 * (d[0] - 1 / d[0]) ** 2)
    summary = _check_eq2_unique(cert["input"], cert["assertion"], cert["evidence"])
    assert "1 stationary points dropping directions larger" in summary


# --- sweeps -------------------------------------------------------------------------------

SWEEPS = ("lemma 5.3", "theorem 5.6", "proposition E.2")
SMALL = dict(n=3, d=2, matrices=4, certificate_matrices=4)


def sweep(claim):
    return fresh(claim, **SMALL)


@pytest.mark.parametrize("claim", SWEEPS)
def test_small_sweeps_accepted(claim):
    cert = sweep(claim)
    cells = sum(r["assertion"]["count"] for r in cert["evidence"]["results"])
    assert check_certificate(cert) == (
        f"{claim} on 4 matrices ({cert['input']['family']}): 4 checked, {cells} cells, "
        "0 skipped")


def with_skip(cert, claim, k, reason, rows, matrix):
    cert["input"]["matrices"][k] = matrix
    dropped = cert["evidence"]["results"][k]
    cert["evidence"]["results"][k] = {"skipped": reason, "rows": rows}
    cert["assertion"]["checked"] -= 1
    cert["assertion"]["skipped"] += 1
    cert["assertion"]["cells"] -= dropped["assertion"]["count"]
    return cert


ZERO_ROW = [["1", "2"], ["0", "0"], ["-1", "1"]]
EQUAL_ROWS = [["1", "2"], ["0", "1"], ["1", "2"]]


def test_sweep_skips_are_reverified_and_counted():
    cert = with_skip(sweep("lemma 5.3"), "lemma 5.3", 1, "a zero row", [1], ZERO_ROW)
    assert check_certificate(copy.deepcopy(cert)).endswith("1 skipped (1 with a zero row)")
    cert2 = with_skip(copy.deepcopy(cert), "lemma 5.3", 2, "a zero row", [1], ZERO_ROW)
    assert check_certificate(cert2).endswith("2 skipped (2 with a zero row)")
    bad = copy.deepcopy(cert)
    bad["evidence"]["results"][1]["rows"] = [0]
    rejects(bad, r"^evidence\.results\[1\]: wrongly skipped, \[0\] is not a zero row$")
    bad = copy.deepcopy(cert)
    bad["evidence"]["results"][1]["skipped"] = "two equal rows"
    rejects(bad, r"^evidence\.results\[1\]: the reason for lemma 5\.3 is 'a zero row'$")
    bad = copy.deepcopy(cert)
    bad["evidence"]["results"][1]["rows"] = [1, 2]
    rejects(bad, r"^evidence\.results\[1\]\.rows: expected 1 entries, got 2$")
    bad = copy.deepcopy(cert)
    bad["evidence"]["results"][1]["rows"] = [3]
    rejects(bad, r"^evidence\.results\[1\]\.rows: expected an integer from 0 to 2, got 3$")
    bad = copy.deepcopy(cert)
    bad["evidence"]["results"][1]["why"] = "x"
    rejects(bad, r"^evidence\.results\[1\]: unexpected 'why'$")


def test_theorem_56_skips_name_two_equal_rows_in_order():
    cert = with_skip(sweep("theorem 5.6"), "theorem 5.6", 0, "two equal rows", [0, 2],
                     EQUAL_ROWS)
    assert check_certificate(copy.deepcopy(cert)).endswith("1 skipped (1 with two equal "
                                                           "rows)")
    for rows in ([2, 0], [0, 0]):
        bad = copy.deepcopy(cert)
        bad["evidence"]["results"][0]["rows"] = rows
        rejects(bad, r"^evidence\.results\[0\]\.rows: expected i < j$")
    bad = copy.deepcopy(cert)
    bad["evidence"]["results"][0]["rows"] = [0, 1]
    rejects(bad, r"^evidence\.results\[0\]: wrongly skipped, \[0, 1\] is not two equal "
                 r"rows$")
    bad = copy.deepcopy(cert)
    bad["evidence"]["results"][0]["rows"] = [1, 2]
    rejects(bad, r"^evidence\.results\[0\]: wrongly skipped, \[1, 2\] is not two equal "
                 r"rows$")


def test_proposition_e2_skips_nothing():
    cert = with_skip(sweep("proposition E.2"), "proposition E.2", 0, "a zero row", [1],
                     ZERO_ROW)
    rejects(cert, r"^evidence\.results\[0\]: proposition E\.2 has no hypothesis, no matrix "
                  r"is skipped$")


@pytest.mark.parametrize("claim", SWEEPS)
@pytest.mark.parametrize("key", ["checked", "skipped", "cells"])
def test_sweep_counts(claim, key):
    cert = sweep(claim)
    right = cert["assertion"][key]
    cert["assertion"][key] = right + 1
    rejects(copy.deepcopy(cert), rf"^assertion\.{key}: {right + 1}, but the results give "
                                 rf"{right}$")
    cert["assertion"][key] = float(right)
    rejects(cert, rf"^assertion\.{key}: {float(right)}, but the results give {right}$")


@pytest.mark.parametrize("claim", SWEEPS)
def test_sweep_structure(claim):
    cert = sweep(claim)
    cert["input"]["family"] = 3
    rejects(cert, r"^input\.family: expected a string$")
    cert = sweep(claim)
    cert["input"]["matrices"], cert["evidence"]["results"] = [], []
    rejects(cert, r"^input\.matrices: no matrix$")
    cert = sweep(claim)
    cert["evidence"]["results"][2]["extra"] = 1
    rejects(cert, r"^evidence\.results\[2\]: unexpected 'extra'$")
    cert = sweep(claim)
    cert["input"]["matrices"][3] = [["1", "2"], ["3"]]
    rejects(cert, r"^input\.matrices\[3\]: rows must be non-empty and of equal length$")


@pytest.mark.parametrize("claim", SWEEPS)
def test_sweep_evidence_belongs_to_its_matrix(claim):
    # Two results swapped: each is a valid certificate, of the other matrix.
    cert = sweep(claim)
    results = cert["evidence"]["results"]
    k = next(k for k in range(1, 4) if results[k]["assertion"] != results[0]["assertion"]
             or cert["input"]["matrices"][k] != cert["input"]["matrices"][0])
    results[0], results[k] = results[k], results[0]
    rejects(cert, r"^matrix 0: ")


def test_single_matrix_cosine_certificates_are_not_sweeps():
    from verify.checker.claims import CLAIMS as CHECKS

    cert = sweep("lemma 5.3")
    one = {"W": cert["input"]["matrices"][0]}
    result = cert["evidence"]["results"][0]
    assert CHECKS["lemma 5.3"](one, result["assertion"], result["evidence"]).startswith(
        "lemma 5.3, S(C(W)) = S(W):")
    with pytest.raises(CertificateError, match=r"^input: expected an object, got \[\]$"):
        CHECKS["theorem 5.6"]([], result["assertion"], result["evidence"])


# --- every place is named --------------------------------------------------------------

INSTANCE_CLAIMS = ("lemma 3.1", "lemma 3.2", "lemma 3.3", "theorem 3.4", "appendix D",
                   "example C.1", "example C.2", "example C.3") + STECK


def instance_certificate(claim):
    if claim in ("lemma 3.2", "lemma 3.3"):
        return small_translation_certificate(claim, keep=3)
    return fresh(claim)


def _leaves(obj, path):
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _leaves(value, path + [key])
    elif isinstance(obj, list):
        for k, value in enumerate(obj):
            yield from _leaves(value, path + [k])
    else:
        yield path, obj


def _place(path) -> str:
    """A path as the checker writes it: ``evidence.no_ties[0].t``."""
    return path[0] + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path[1:])


@pytest.mark.parametrize("claim", INSTANCE_CLAIMS)
def test_a_number_that_is_not_a_string_is_named_by_its_place(claim):
    cert = instance_certificate(claim)
    for part in ("input", "assertion", "evidence"):
        for path, value in _leaves(cert[part], [part]):
            if not isinstance(value, str):
                continue
            # A statement's decimal and a no-tie multiplier are named by their holder.
            named = path[:-1] if path[-1] == "paper" or (
                len(path) > 3 and path[-3] == "multipliers") else path
            altered = copy.deepcopy(cert)
            holder = altered
            for key in path[:-1]:
                holder = holder[key]
            holder[path[-1]] = 7
            with pytest.raises(CertificateError) as error:
                check_certificate(altered)
            assert str(error.value).startswith(_place(named) + ": "), (path, error.value)


@pytest.mark.parametrize("claim", INSTANCE_CLAIMS)
def test_missing_and_unexpected_keys_are_named_with_their_part(claim):
    cert = instance_certificate(claim)
    for part in ("input", "assertion", "evidence"):
        for key in cert[part]:
            altered = copy.deepcopy(cert)
            del altered[part][key]
            rejects(altered, rf"^{part}: missing '{re.escape(key)}'$")
        altered = copy.deepcopy(cert)
        altered[part]["zz"] = "1"
        rejects(altered, rf"^{part}: unexpected 'zz'$")
        altered = copy.deepcopy(cert)
        altered[part] = []
        rejects(altered, rf"^{part}: expected an object, got \[\]$")


def _lists(obj, path):
    """The paths of every list in ``obj`` (outermost first)."""
    if isinstance(obj, list):
        yield path
    items = obj.items() if isinstance(obj, dict) else \
        enumerate(obj) if isinstance(obj, list) else ()
    for key, value in items:
        yield from _lists(value, path + [key])


@pytest.mark.parametrize("claim", INSTANCE_CLAIMS)
def test_a_list_that_is_not_a_list_is_named_by_its_place(claim):
    cert = instance_certificate(claim)
    for part in ("input", "assertion", "evidence"):
        for path in _lists(cert[part], [part]):
            altered = copy.deepcopy(cert)
            holder = altered
            for key in path[:-1]:
                holder = holder[key]
            holder[path[-1]] = {}
            # The statement "between" is compared with the paper's as a whole, and
            # the neighbours of a label with the two it has.
            named = path[:2] if path[:2] == ["assertion", "between"] else \
                path[:-1] if path[-1] == "neighbours" else path
            with pytest.raises(CertificateError) as error:
                check_certificate(altered)
            assert str(error.value).startswith(_place(named) + ": "), (path, error.value)


#: The lists whose length the format fixes (by the instance: a pair of labels, a vector
#: of the dimension of W, one entry per listed item), ``[k]`` for any index (the second
#: vector of a pair has the length of the first).
FIXED_LENGTH = {
    "lemma 3.1": ["assertion.shifts", "assertion.shifts[k]", "input.inputs[k]",
                  "input.translations[k]"],
    "lemma 3.2": ["evidence.translations", "evidence.translations[k]", "input.pairs[k]",
                  "input.pairs[k][1]"],
    "lemma 3.3": ["evidence.translations", "evidence.translations[k]", "input.pairs[k]",
                  "input.pairs[k][1]"],
    "theorem 3.4": ["assertion.cosines", "input.labels"],
    "appendix D": ["assertion.distances_squared", "assertion.dots",
                   "assertion.normalised_distances", "input.inputs[k]", "input.labels"],
    "example C.1": ["assertion.cosines[k].labels", "evidence.translations.lemma 3.2",
                    "evidence.translations.lemma 3.3", "input.labels"],
    "example C.2": ["assertion.cosines[k].labels", "assertion.no_ties[k]",
                    "assertion.ties[k]", "evidence.between", "evidence.no_ties",
                    "evidence.no_ties[k].multipliers[k]", "evidence.ties",
                    "evidence.ties[k]"],
    "example C.3": ["assertion.cosines[k].labels", "assertion.no_ties[k]",
                    "assertion.ties[k]", "evidence.no_ties",
                    "evidence.no_ties[k].multipliers[k]", "evidence.ties",
                    "evidence.ties[k]"],
    "steck eq1-invariance": ["evidence.D_inv", "input.sigma"],
    "steck eq1-closed-form": ["evidence.roots", "input.sigma"],
    "steck full-rank": ["assertion.c", "evidence.inverse_roots", "evidence.roots",
                        "input.sigma"],
    "steck eq2-unique": ["evidence.a", "evidence.b", "input.sigma"],
}


@pytest.mark.parametrize("claim", INSTANCE_CLAIMS)
def test_a_list_of_fixed_length_with_one_more_entry_is_named_by_its_place(claim):
    cert = instance_certificate(claim)
    seen = set()
    for part in ("input", "assertion", "evidence"):
        for path in _lists(cert[part], [part]):
            place = _place(path)
            fixed = [f for f in FIXED_LENGTH[claim]
                     if re.fullmatch(re.escape(f).replace(r"\[k\]", r"\[\d+\]"), place)]
            if not fixed:
                continue
            seen.update(fixed)
            altered = copy.deepcopy(cert)
            holder = altered
            for key in path[:-1]:
                holder = holder[key]
            n = len(holder[path[-1]])
            holder[path[-1]].append(copy.deepcopy(holder[path[-1]][-1]))
            rejects(altered, rf"^{re.escape(place)}: expected {n} entries, got {n + 1}$")
    assert seen == set(FIXED_LENGTH[claim])


def test_appendix_d_a_zero_dot_product_has_no_sign():
    # W_plus moved by u = -w'_i: still equivalent to W, and w'_i = 0, so w'_i . w'_j = 0,
    # listed as such. Zero is neither sign: the dots are not of opposite signs.
    cert = fresh("appendix D")
    i, j = cert["input"]["labels"]
    V = cert["evidence"]["W_plus"]
    cert["evidence"]["W_plus"] = shifted(V, [-F(a) for a in V[i]])
    assert all(F(a) == 0 for a in cert["evidence"]["W_plus"][i])
    cert["assertion"]["dots"][1] = "0"
    rejects(cert, rf"^assertion\.dots: w'_{i}\.w'_{j} is -?[0-9/]+ and 0, listed .*; the "
                  r"signs must be opposite$")


def test_appendix_d_summary_shows_both_normalised_distances():
    # The two distances differ (the claim needs it), so each must appear in its place.
    cert = fresh("appendix D")
    first, second = cert["assertion"]["normalised_distances"]
    assert first != second
    assert f"normalised distances {first} and {second} in two equivalent models" in \
        check_certificate(cert)


def test_lemma_33_counts_every_pair_with_equal_vectors():
    cert = small_translation_certificate("lemma 3.3")
    pairs, us = cert["input"]["pairs"], cert["evidence"]["translations"]
    equal = next(k for k, (vi, vj) in enumerate(pairs) if vi == vj)
    for _ in range(2):
        pairs.append(copy.deepcopy(pairs[equal]))
        us.append(copy.deepcopy(us[equal]))
    same = sum(1 for vi, vj in pairs if list(map(F, vi)) == list(map(F, vj)))
    assert same == 3
    assert check_certificate(cert) == (
        f"lemma 3.3, cos(v_i + u, v_j + u) = 1: {len(pairs) - same} pairs with v_i != v_j "
        f"and the lemma's u, {same} with v_i = v_j; symbolic part not checked here")


def test_between_each_condition_alone():
    # The check of "label k first, i and j tied next" on logits chosen directly: W in one
    # dimension and x = 1, so w_m . x = w_m. Each forgery breaks one condition only.
    from verify.checker.claims import _check_between

    between = {"labels": [2, 4], "first": 3}

    def check(logits):
        _check_between([[F(v)] for v in logits], copy.deepcopy(between), ["1"], between)

    check(["0", "-1", "1", "2", "1"])
    check(["-5", "1/2", "1", "3/2", "1"])
    for logits in (["0", "0", "1", "1/2", "1"],   # k below the tie (and of the same sign)
                   ["0", "0", "1", "1", "1"],     # k tied with i and j
                   ["1", "0", "1", "2", "1"],     # another label tied with i and j
                   ["3/2", "0", "1", "2", "1"],   # another label ahead of i and j
                   ["0", "0", "1", "2", "1/2"]):  # i and j not tied
        with pytest.raises(CertificateError, match=r"^evidence\.between: x does not rank "
                                                   r"3 first and 2, 4 tied next$"):
            check(logits)


def test_nearest_neighbours_must_be_unique_and_one_proven_unable_to_tie():
    # The check of the two nearest cosine neighbours on a cosine matrix chosen directly:
    # row 0 is (1, 9/10, c, d, 0); the two nearest of 0 are 1 and whichever of 2, 3 has
    # the larger cosine, unique only if c != d.
    from verify.checker.claims import _check_nearest

    def C(c, d):
        row = [F("1"), F("9/10"), F(c), F(d), F("0")]
        M = [[Fraction(int(a == b)) for b in range(5)] for a in range(5)]
        M[0] = row
        for m in range(5):
            M[m][0] = row[m]
        return M

    proven = {(0, 1)}
    _check_nearest(C("1/2", "1/3"), [{"label": 0, "neighbours": [1, 2]}], proven)
    _check_nearest(C("1/3", "1/2"), [{"label": 0, "neighbours": [1, 3]}], proven)
    _check_nearest(C("-1/3", "-1/2"), [{"label": 0, "neighbours": [1, 4]}], proven)
    for c in ("1/2", "0", "9/10"):
        for neighbours in ([1, 2], [1, 3]):
            with pytest.raises(CertificateError, match=r"^assertion\.nearest\[0\]: the two "
                                                       r"nearest neighbours are not unique$"):
                _check_nearest(C(c, c), [{"label": 0, "neighbours": neighbours}], proven)
    with pytest.raises(CertificateError, match=r"^assertion\.nearest\[0\]: no neighbour is "
                                               r"proven unable to tie with 0$"):
        _check_nearest(C("1/2", "1/3"), [{"label": 0, "neighbours": [1, 2]}], {(0, 3)})


def _objects(obj, path):
    """The paths of every object below the top level of ``obj``."""
    items = obj.items() if isinstance(obj, dict) else \
        enumerate(obj) if isinstance(obj, list) else ()
    for key, value in items:
        if isinstance(value, dict):
            yield path + [key]
        yield from _objects(value, path + [key])


@pytest.mark.parametrize("claim", INSTANCE_CLAIMS)
def test_an_object_or_an_index_of_the_wrong_type_is_named_by_its_place(claim):
    cert = instance_certificate(claim)
    altered_paths = [(path, []) for part in ("input", "assertion", "evidence")
                     for path in _objects(cert[part], [part])]
    altered_paths += [(path, "1") for part in ("input", "assertion", "evidence")
                      for path, value in _leaves(cert[part], [part])
                      if type(value) is int]
    for path, value in altered_paths:
        altered = copy.deepcopy(cert)
        holder = altered
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = value
        # "between" is compared with the paper's statement as a whole, a label's
        # neighbours with the two it has; a label in a pair is named by the pair.
        named = path[:2] if path[:2] == ["assertion", "between"] else \
            path[:path.index("neighbours")] if "neighbours" in path else \
            path[:-1] if value == "1" and isinstance(path[-1], int) else path
        with pytest.raises(CertificateError) as error:
            check_certificate(altered)
        assert str(error.value).startswith(_place(named) + ": "), (path, error.value)


@pytest.mark.parametrize("claim", SWEEPS)
def test_sweep_parts_and_lists_are_named_by_their_place(claim):
    for part, keys in (("input", ["family", "matrices"]),
                       ("assertion", ["checked", "skipped", "cells"]),
                       ("evidence", ["results"])):
        cert = sweep(claim)
        cert[part] = []
        rejects(cert, rf"^{part}: expected an object, got \[\]$")
        cert = sweep(claim)
        del cert[part][keys[0]]
        rejects(cert, rf"^{part}: missing '{keys[0]}'$")
    for part, key in (("input", "matrices"), ("evidence", "results")):
        cert = sweep(claim)
        cert[part][key] = {}
        rejects(cert, rf"^{part}\.{key}: expected a list, got \{{\}}$")
    cert = sweep(claim)
    n = len(cert["input"]["matrices"])
    cert["evidence"]["results"].append(cert["evidence"]["results"][0])
    rejects(cert, rf"^evidence\.results: expected {n} entries, got {n + 1}$")
    cert = sweep(claim)
    cert["evidence"]["results"].pop()
    rejects(cert, rf"^evidence\.results: expected {n} entries, got {n - 1}$")


@pytest.mark.parametrize("claim", ["example C.1", "example C.2", "example C.3"])
def test_example_cosines_need_non_zero_rows(claim):
    cert = fresh(claim)
    W = cert["input"]["W"]
    W[-1] = ["0"] * len(W[-1])
    rejects(cert, rf"^input\.W: row {len(W) - 1} is zero \(a cosine needs non-zero rows\)$")


def test_determinants_against_the_permutation_expansion():
    # The checker's Gaussian elimination against the Leibniz formula, on matrices that
    # need row swaps, are singular, or have a zero first column.
    from itertools import permutations
    from random import Random

    from verify.checker.claims import _det

    def leibniz(A):
        total = Fraction(0)
        for perm in permutations(range(len(A))):
            sign = (-1) ** sum(1 for a in range(len(perm)) for b in range(a)
                               if perm[b] > perm[a])
            term = Fraction(sign)
            for r, c in enumerate(perm):
                term *= A[r][c]
            total += term
        return total

    rng = Random(7)
    cases = [[[F("0"), F("1")], [F("1"), F("0")]], [[F("0"), F("2")], [F("0"), F("3")]],
             [[F("2"), F("4")], [F("1"), F("2")]], [[F("5")]]]
    for n in (1, 2, 3, 4):
        for _ in range(15):
            cases.append([[Fraction(rng.randint(-3, 3), rng.randint(1, 3)) for _ in range(n)]
                          for _ in range(n)])
    for A in cases:
        assert _det(A) == leibniz(A), A


def test_gradient_of_objective_1_is_its_derivative():
    # (1) is quadratic in P, so f(P + E) - f(P - E) = 2 <grad f(P), E> exactly.
    from verify.checker.claims import _gradient_1, _objective_1 as objective

    X = [[F("1"), F("2")], [F("0"), F("-1")], [F("3"), F("1/2")]]
    P = [[F("1/3"), F("-1")], [F("2"), F("1/5")]]
    lam = F("3/7")
    G = _gradient_1(X, P, lam)
    for E in ([[F("1"), F("0")], [F("0"), F("0")]], [[F("0"), F("2")], [F("-1"), F("1/2")]]):
        plus = [[p + e for p, e in zip(r, s)] for r, s in zip(P, E)]
        minus = [[p - e for p, e in zip(r, s)] for r, s in zip(P, E)]
        inner = sum(g * e for r, s in zip(G, E) for g, e in zip(r, s))
        assert objective(X, plus, lam) - objective(X, minus, lam) == 2 * inner


def test_three_cosine_matrices_against_their_definitions():
    # Rows with integer norms (3-4-5, 5-12-13), so every cosine is rational.
    from verify.checker.claims import _rational, _three_cosines

    users = [[F("3"), F("4")], [F("0"), F("-2")]]
    items = [[F("1"), F("0")], [F("5"), F("12")], [F("0"), F("7")]]

    def cos(a, b):
        return dot(a, a) and dot(a, b) / (dot(a, a) * dot(b, b)) ** Fraction(1, 2)

    def norm(a):
        return {25: 5, 4: 2, 1: 1, 169: 13, 49: 7}[dot(a, a)]

    expected = [("item-item", items, items), ("user-user", users, users),
                ("user-item", users, items)]
    got = _three_cosines(users, items)
    assert [name for name, _ in got] == [name for name, _, _ in expected]
    for (_, C), (_, rows, cols) in zip(got, expected):
        assert [[_rational(c) for c in row] for row in C] == \
            [[dot(a, b) / (norm(a) * norm(b)) for b in cols] for a in rows]
    with pytest.raises(CertificateError, match=r"^item-item: row 2 is zero"):
        _three_cosines(users, items[:2] + [[F("0"), F("0")]])
    with pytest.raises(CertificateError, match=r"^user-user: row 0 is zero"):
        _three_cosines([[F("0"), F("0")]] + users, items)


def test_steck_closed_form_on_a_scaled_instance():
    # X / 10 has the SVD U diag(sigma / 10) V^T; with lambda / 100 every c_i is the same,
    # and (1) scales by 1/100. X^T X + lambda I then has leading minors below 1, still
    # positive: the instance is as valid as the engine's.
    cert = fresh("steck eq1-closed-form")
    inp = cert["input"]
    inp["X"] = [[str(F(a) / 10) for a in row] for row in inp["X"]]
    inp["sigma"] = [str(F(s) / 10) for s in inp["sigma"]]
    inp["lambda"] = str(F(inp["lambda"]) / 100)
    value = F(cert["assertion"]["objective_k"]) / 100
    cert["assertion"]["objective_k"] = str(value)
    X = [[F(a) for a in row] for row in inp["X"]]
    assert dot([r[0] for r in X], [r[0] for r in X]) + F(inp["lambda"]) < 1
    assert f"(1) = {value}," in check_certificate(cert)


def test_example_c1_labels_of_equal_rows_give_no_cosine_after_translation():
    # Two equal rows appended and named by the labels: the u of lemma 3.2 is then -w_i,
    # and w_i + u = 0 has no cosine.
    cert = fresh("example C.1")
    W = cert["input"]["W"]
    n = len(W)
    W += [["1", "2"], ["1", "2"]]
    cert["input"]["labels"] = [n, n + 1]
    cert["evidence"]["translations"] = {"lemma 3.2": ["-1", "-2"], "lemma 3.3": ["-1", "-2"]}
    rejects(cert, rf"^evidence\.translations\.lemma 3\.2: cos\(w_{n} \+ u, w_{n + 1} \+ u\) "
                  r"is not -1$")


def test_steck_scalings_must_be_square():
    # A column or a row too many: D D_inv can still be I on the part that zip reads.
    cert = fresh("steck eq1-invariance")
    cert["input"]["D"][0] = [row + ["0"] for row in cert["input"]["D"][0]]
    rejects(cert, r"^input\.D\[0\]: expected 2 x 2, got 2 x 3$")
    cert = fresh("steck eq1-invariance")
    cert["evidence"]["D_inv"][1].append(["0", "0"])
    rejects(cert, r"^evidence\.D_inv\[1\]: expected 2 x 2, got 3 x 2$")
    cert = fresh("steck eq1-invariance")
    cert["input"]["B"].append(cert["input"]["B"][0])
    rejects(cert, r"^input\.B: expected 3 x 2, got 4 x 2$")


def test_steck_full_rank_a_user_without_ratings_has_no_cosine():
    # A zero row appended to X and U keeps U^T U = I and X = U diag(sigma) V^T: a valid
    # SVD, but that user has no cosine to any item.
    cert = fresh("steck full-rank")
    n = len(cert["input"]["X"])
    for key in ("X", "U"):
        cert["input"][key].append(["0"] * len(cert["input"][key][0]))
    rejects(cert, rf"^user-item: row {n} is zero")


#: The numbers that may be sums of square roots (``[k]`` for any index); every other
#: number of these certificates is rational.
ROOT_PLACES = {
    "appendix D": ["assertion.normalised_distances[k]"],
    "example C.1": ["assertion.cosines[k].cosine", "evidence.translations.lemma 3.2[k]",
                    "evidence.translations.lemma 3.3[k]", "input.W[k][k]"],
    "example C.2": ["assertion.cosines[k].cosine", "evidence.between[k]",
                    "evidence.no_ties[k].multipliers[k][k]", "evidence.no_ties[k].t",
                    "evidence.ties[k][k]", "input.W[k][k]"],
    "example C.3": ["assertion.cosines[k].cosine", "evidence.no_ties[k].multipliers[k][k]",
                    "evidence.no_ties[k].t", "evidence.ties[k][k]", "input.W[k][k]"],
    "steck eq1-invariance": ["assertion.objective", "evidence.D_inv[k][k][k]",
                             "input.A[k][k]", "input.B[k][k]", "input.D[k][k][k]"],
    "steck eq1-closed-form": ["assertion.objective_k", "input.directions[k][k][k]"],
    "steck eq2-unique": ["assertion.increase", "assertion.objective", "evidence.D_inv[k][k]",
                         "evidence.a[k]", "evidence.b[k]", "input.D[k][k]", "input.R[k][k]"],
}


@pytest.mark.parametrize("claim", INSTANCE_CLAIMS)
def test_rationals_written_as_root_sums_are_read_where_roots_are_allowed(claim):
    # q*sqrt(1) is q: accepted where a sum of square roots may stand, refused elsewhere.
    cert = instance_certificate(claim)
    for part in ("input", "assertion", "evidence"):
        for path, value in _leaves(cert[part], [part]):
            if not isinstance(value, str) or not re.fullmatch(r"-?\d+(/\d+)?", value):
                continue
            altered = copy.deepcopy(cert)
            holder = altered
            for key in path[:-1]:
                holder = holder[key]
            holder[path[-1]] = value + "*sqrt(1)"
            if re.sub(r"\[\d+\]", "[k]", _place(path)) in ROOT_PLACES.get(claim, ()):
                assert check_certificate(altered) == check_certificate(cert), path
            else:
                with pytest.raises(CertificateError):
                    check_certificate(altered)


@pytest.mark.parametrize("claim", [c for c in INSTANCE_CLAIMS if not c.startswith("example")])
def test_the_summary_says_the_symbolic_part_is_not_checked(claim):
    # Every claim whose check also proves a symbolic identity says so in its summary.
    cert = instance_certificate(claim)
    assert cert["evidence"]["symbolic"] == SYMBOLIC.format(claim)
    summary = check_certificate(cert)
    assert summary.startswith(claim) and summary.endswith("; symbolic part not checked here")


def test_steck_full_rank_with_v_the_identity_has_orthogonal_items():
    # V = I and X = U diag(sigma) is an SVD too, and then B D = diag(c) has orthogonal
    # rows: its item-item cosine is I, so the claim that it is not I fails.
    cert = fresh("steck full-rank")
    inp = cert["input"]
    p = len(inp["V"])
    inp["V"] = [[str(int(a == b)) for b in range(p)] for a in range(p)]
    inp["X"] = [[str(F(u) * F(s)) for u, s in zip(row, inp["sigma"])] for row in inp["U"]]
    rejects(cert, r"^item-item cosines of B D and I: equal, but asserted to differ$")


def test_steck_eq2_lambda_equal_to_a_singular_value():
    # lambda = sigma_1 = 3: (sigma_1 - lambda)_+ = 0, so direction 1 is not active, and
    # dropping it changes nothing; only sigma_0 = 5 is active (a_0 = sqrt(2)/5, b_0 =
    # sqrt(2)). The one stationary point that drops directions drops direction 0.
    from verify.checker.claims import _check_eq2_unique

    cert = fresh("steck eq2-unique")
    sigma = [F(s) for s in cert["input"]["sigma"]]
    assert sigma[1] == 3 and sigma[0] - 3 == 2
    lam = F(3)
    cert["input"]["lambda"] = "3"
    cert["evidence"]["a"] = ["1/5*sqrt(2)", "0", "0"]
    cert["evidence"]["b"] = ["sqrt(2)", "0", "0"]
    cert["assertion"]["objective"] = str(sum(2 * lam * s - lam * lam if s > lam else s * s
                                             for s in sigma))
    d = [F(cert["input"]["D"][i][i]) for i in range(3)]
    cert["assertion"]["increase"] = str(lam * 2 * (d[0] - 1 / d[0]) ** 2)
    summary = _check_eq2_unique(cert["input"], cert["assertion"], cert["evidence"])
    assert "1 stationary points dropping directions larger" in summary


@pytest.mark.parametrize("claim", STECK)
def test_steck_u_with_a_column_too_many(claim):
    cert = fresh(claim)
    U = cert["input"]["U"]
    n, p = len(U), len(U[0])
    cert["input"]["U"] = [row + ["0"] for row in U]
    rejects(cert, rf"^input\.U: expected {n} x {p}, got {n} x {p + 1}$")
