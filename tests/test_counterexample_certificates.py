"""Certificates of the counterexample theorems H.1 and 5.5, and ``counterexamples/``.

Every committed certificate must pass the standard-library checker (also with the
engine's libraries made unimportable), the generator must reproduce the directory byte
for byte, the claim runners must produce the committed certificates of the paper's
instances, and each kind of tampering must be caught by the check meant to catch it
(the error messages are matched).
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from itertools import combinations
from pathlib import Path
from types import SimpleNamespace

import pytest

from isolation import run_checker_without_engine

from verify.arrangement import ranking_pattern
from verify.certificates.writers import h1_certificate, theorem55_certificate
from verify.checker.core import CertificateError, check_certificate, load_certificate
from verify.claims.registry import Claim

ROOT = Path(__file__).resolve().parents[1]
DIR = ROOT / "counterexamples"
NAMES = ("theorem-H.1", "theorem-H.1-n4", "theorem-5.5", "theorem-5.5-rational",
         "theorem-5.5-search")
SUMMARIES = {
    "theorem-H.1": "theorem H.1, S([1|A]) = S([1|B]) (20 sign vectors, chirotopes equal "
                   "up to sign) but R(A) != R(B): 2 of 14 rankings only in R(A), 2 of 14 "
                   "only in R(B)",
    "theorem-H.1-n4": "theorem H.1, S([1|A]) = S([1|B]) (14 sign vectors, chirotopes "
                      "equal up to sign) but R(A) != R(B): 0 of 8 rankings only in R(A), "
                      "2 of 10 only in R(B)",
    "theorem-5.5": "theorem 5.5, C(W1) = C(W2) but R(W1) != R(W2): label 2 is first in 2 "
                   "rankings of R(W1) and in none of R(W2)",
    "theorem-5.5-rational": "theorem 5.5, C(W1) = C(W2) but R(W1) != R(W2): label 2 is "
                            "first in 2 rankings of R(W1) and in none of R(W2)",
    "theorem-5.5-search": "theorem 5.5, C(W1) = C(W2) but R(W1) != R(W2): 0 of 2 rankings "
                          "only in R(W1), 4 of 6 only in R(W2)",
}


def committed(name: str) -> dict:
    """A fresh copy of the committed certificate ``name``."""
    return load_certificate(DIR / f"{name}.cert.json")


def rejected(cert: dict, message: str) -> None:
    with pytest.raises(CertificateError, match=message):
        check_certificate(cert)


# --- the committed files ---------------------------------------------------------------

def test_the_directory_holds_inputs_and_certificates():
    assert sorted(p.name for p in DIR.glob("*.cert.json")) == sorted(
        f"{name}.cert.json" for name in NAMES)
    for name in NAMES:  # the input file is the certificate's input
        assert json.loads((DIR / f"{name}.json").read_text()) == committed(name)["input"]


@pytest.mark.parametrize("name", NAMES)
def test_committed_certificates_are_accepted(name):
    assert check_certificate(committed(name)) == SUMMARIES[name]


def test_generator_reproduces_the_directory_byte_for_byte(tmp_path):
    run = subprocess.run([sys.executable, str(DIR / "generate.py"), "--output", str(tmp_path)],
                         capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(p.name for p in DIR.glob("*.json"))
    for name in written:
        assert (tmp_path / name).read_bytes() == (DIR / name).read_bytes(), name


def test_the_runners_produce_the_committed_paper_certificates():
    from verify.claims.theorem_55 import run as run_55
    from verify.claims.theorem_h1 import run as run_h1

    for run, claim_id, name in ((run_h1, "theorem H.1", "theorem-H.1"),
                                (run_55, "theorem 5.5", "theorem-5.5")):
        claim = Claim(id=claim_id, statement="", hypotheses="", establishes="", runner="")
        out = run(claim, SimpleNamespace(matrix=None))
        assert out.holds
        assert json.loads(json.dumps(out.certificate)) == committed(name)


def rankings(W) -> set:
    return set(ranking_pattern([[Fraction(a) for a in row] for row in W]).rankings)


@pytest.mark.parametrize("name", ["theorem-H.1", "theorem-H.1-n4"])
def test_h1_differences_agree_with_the_engine(name):
    cert = committed(name)
    RA, RB = rankings(cert["input"]["A"]), rankings(cert["input"]["B"])
    assert cert["assertion"]["only_in_A"] == sorted(map(list, RA - RB))
    assert cert["assertion"]["only_in_B"] == sorted(map(list, RB - RA))


def test_the_search_pairs_are_the_small_ones():
    h1 = committed("theorem-H.1-n4")["input"]
    assert len(h1["A"]) == 4 and all(abs(Fraction(a)) <= 1 for W in h1.values()
                                      for row in W for a in row)
    pair = committed("theorem-5.5-search")["input"]
    (i,) = [k for k, (p, q) in enumerate(zip(pair["W1"], pair["W2"])) if p != q]
    p, q = ([Fraction(a) for a in W[i]] for W in (pair["W1"], pair["W2"]))
    factor = q[0] / p[0] if p[0] else q[1] / p[1]
    assert factor > 0 and q == [factor * a for a in p]  # one row rescaled


# --- theorem H.1: tampering ------------------------------------------------------------

def test_h1_ranking_moved_to_the_other_side():
    cert = committed("theorem-H.1")
    ranking = cert["assertion"]["only_in_A"].pop(0)
    proof = cert["evidence"]["only_in_A"].pop(0)
    cert["assertion"]["only_in_B"].append(ranking)
    cert["evidence"]["only_in_B"].append(proof)
    order = sorted(range(len(cert["assertion"]["only_in_B"])),
                   key=lambda k: cert["assertion"]["only_in_B"][k])
    for key in ("assertion", "evidence"):
        cert[key]["only_in_B"] = [cert[key]["only_in_B"][k] for k in order]
    rejected(cert, r"assertion\.only_in_A: 3 > 0 > 2 > 1 > 4 is in R\(A\) \\ R\(B\) but "
                   "not listed")
    cert["assertion"]["only_in_A"].insert(0, ranking)  # listed on both sides
    cert["evidence"]["only_in_A"].insert(0, proof)
    rejected(cert, r"assertion\.only_in_B: 3 > 0 > 2 > 1 > 4 is not in R\(B\) \\ R\(A\)")


def test_h1_ranking_dropped():
    cert = committed("theorem-H.1")
    del cert["assertion"]["only_in_B"][1], cert["evidence"]["only_in_B"][1]
    rejected(cert, r"assertion\.only_in_B: 1 > 4 > 2 > 3 > 0 is in R\(B\) \\ R\(A\) but "
                   "not listed")


def test_h1_unsorted_or_repeated_rankings():
    cert = committed("theorem-H.1")
    for key in ("assertion", "evidence"):
        cert[key]["only_in_A"].reverse()
    rejected(cert, r"assertion\.only_in_A: not sorted, or a ranking is repeated")


def test_h1_witness_that_does_not_realise_its_ranking():
    cert = committed("theorem-H.1")
    proofs = cert["evidence"]["only_in_A"]
    proofs[0]["witness"] = proofs[1]["witness"]
    rejected(cert, r"evidence\.only_in_A\[0\]: witness gives sign vector")
    cert = committed("theorem-H.1")
    cert["evidence"]["only_in_B"][0]["witness"] = ["0", "0"]
    rejected(cert, r"evidence\.only_in_B\[0\]: witness gives sign vector 0000000000")


def test_h1_bogus_gordan_multipliers():
    for change, message in [
        (lambda m: m[0].__setitem__(1, "2"), r"sum_r y_r s_r M_r = \(.*\), not 0"),
        (lambda m: [pair.__setitem__(1, "0") for pair in m], "every multiplier is zero"),
        (lambda m: m[0].__setitem__(1, "-1"), "has y < 0"),
        (lambda m: m.append(list(m[0])), "repeated"),
        (lambda m: m.clear(), "no multipliers"),
    ]:
        cert = committed("theorem-H.1")
        change(cert["evidence"]["only_in_A"][1]["multipliers"])
        rejected(cert, r"evidence\.only_in_A\[1\]: .*" + message)


def test_h1_changed_input_point():
    cert = committed("theorem-H.1")
    cert["input"]["A"][1] = ["1", "1"]
    rejected(cert, r"evidence\.sign_A: (cell|refutation) \d+")
    cert = committed("theorem-H.1")
    cert["input"]["B"][2] = ["11/20", "-1/2"]  # B's middle point moved to A's
    rejected(cert, r"evidence\.sign_B: ")


def test_h1_other_lists_and_shapes():
    cert = committed("theorem-H.1")
    cert["assertion"]["patterns"].pop()
    cert["assertion"]["count"] -= 1
    rejected(cert, r"evidence\.sign_A: evidence\.cells: expected 19 entries, got 20")
    cert = committed("theorem-H.1")
    cert["evidence"]["ranking_B"]["refutations"].pop()
    rejected(cert, r"evidence\.ranking_B: incomplete: cell \d+")
    cert = committed("theorem-H.1")
    cert["input"]["B"].pop()
    rejected(cert, "input: A and B must have the same number of points")


def test_h1_equal_ranking_patterns_prove_nothing():
    cert = committed("theorem-H.1")
    cert["input"]["B"] = cert["input"]["A"]
    for key in ("sign", "ranking"):
        cert["evidence"][f"{key}_B"] = cert["evidence"][f"{key}_A"]
    for key in ("assertion", "evidence"):
        cert[key]["only_in_A"] = cert[key]["only_in_B"] = []
    rejected(cert, r"R\(A\) = R\(B\): no ranking is feasible for one and not for the other")


def test_h1_chirotopes_are_recomputed():
    from verify.checker.core import _chirotope

    cert = committed("theorem-H.1")
    chirotopes = {}
    for key in "AB":
        V = [[Fraction(1)] + [Fraction(a) for a in row] for row in cert["input"][key]]
        expected = []
        for a, b, c in combinations(V, 3):  # 3 x 3 determinants by the rule of Sarrus
            det = (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                   + a[2] * (b[0] * c[1] - b[1] * c[0]))
            expected.append((det > 0) - (det < 0))
        assert _chirotope(V) == expected
        chirotopes[key] = expected
    mirrored = [[Fraction(1), Fraction(a), -Fraction(b)] for a, b in cert["input"]["A"]]
    assert _chirotope(mirrored) == [-s for s in chirotopes["A"]]  # a reflection flips signs


def test_h1_differing_chirotopes_are_rejected(monkeypatch):
    # Equal sign patterns force equal chirotopes up to sign, so only a faulty minor
    # computation can reach this check; it must still reject.
    import verify.checker.core as checker

    real, calls = checker._chirotope, []

    def flipped_after_the_first(V):
        calls.append(V)
        chi = real(V)
        return chi if len(calls) == 1 else chi[:1] + [-s for s in chi[1:]]

    monkeypatch.setattr(checker, "_chirotope", flipped_after_the_first)
    rejected(committed("theorem-H.1"), r"the chirotopes of \[1\|A\] and \[1\|B\] differ")


def test_h1_generator_refuses_non_pairs():
    cert = committed("theorem-H.1")
    A, B = cert["input"]["A"], cert["input"]["B"]
    with pytest.raises(ValueError, match=r"R\(A\) = R\(B\)"):
        h1_certificate(A, A)
    with pytest.raises(ValueError, match=r"S\(\[1\|A\]\) != S\(\[1\|B\]\)"):
        h1_certificate(A, [["0", "0"]] + B[1:])


# --- theorem 5.5: tampering ------------------------------------------------------------

@pytest.mark.parametrize("name", ["theorem-5.5", "theorem-5.5-rational"])
def test_55_label_row_changed_so_cosines_differ(name):
    cert = committed(name)
    cert["input"]["W2"][2] = ["1", "2"]
    rejected(cert, r"C\(W1\) != C\(W2\): entry \(0, 2\)")


@pytest.mark.parametrize("name", ["theorem-5.5", "theorem-5.5-rational"])
def test_55_witness_that_does_not_put_the_label_first(name):
    cert = committed(name)
    cert["evidence"]["witnesses"][0] = ["1", "0"]  # label 0 first
    rejected(cert, r"evidence\.witnesses\[0\]: witness gives sign vector")
    cert = committed(name)
    first = cert["assertion"]["first_in_W1"]
    first[0] = first[0][1:] + first[0][:1]
    first.sort()
    rejected(cert, r"assertion\.first_in_W1\[0\]: does not rank label 2 first")


@pytest.mark.parametrize("name", ["theorem-5.5", "theorem-5.5-rational"])
def test_55_multipliers_that_do_not_sum_to_zero(name):
    cert = committed(name)
    cert["evidence"]["multipliers"][0][1] = "2"
    rejected(cert, r"evidence: sum_r y_r s_r M_r = \(.*\), not 0")
    cert = committed(name)
    cert["evidence"]["multipliers"].append([2, "1"])  # w_2 - w_2 = 0 is not a row
    rejected(cert, r"multipliers\[3\]: row 2 is not a row of this system")
    cert = committed(name)
    cert["evidence"]["multipliers"][1][1] = "-1"
    rejected(cert, "has y < 0")


def test_55_the_assertion_and_the_input():
    cert = committed("theorem-5.5")
    cert["assertion"]["cosines_equal"] = False
    rejected(cert, "assertion.cosines_equal: expected true")
    cert = committed("theorem-5.5")
    cert["input"]["W1"][1] = ["1 + sqrt(2)", "0"]  # |w_0|^2 |w_1|^2 = 25 (3 + 2 sqrt 2)
    rejected(cert, r"input\.W1: \|m_0\|\^2 \|m_1\|\^2 = 75 \+ 50\*sqrt\(2\) is not rational")
    cert = committed("theorem-5.5")
    cert["input"]["W2"][0] = ["0", "0"]
    rejected(cert, r"input\.W2: row 0 is zero")
    cert = committed("theorem-5.5")
    cert["input"]["label"] = 7
    rejected(cert, r"input\.label: expected an integer from 0 to 6, got 7")
    cert = committed("theorem-5.5")
    cert["input"]["W1"][0] = ["5.0", "0"]
    rejected(cert, r"input\.W1\[0\]\[0\]: not an exact sum of square roots")


def test_55_search_form_tampering():
    cert = committed("theorem-5.5-search")
    cert["assertion"]["only_in_W2"].pop()
    rejected(cert, r"assertion\.only_in_W2: .* is in R\(W2\) \\ R\(W1\) but not listed")
    cert = committed("theorem-5.5-search")
    cert["evidence"]["ranking_W2"]["cells"].pop()
    rejected(cert, r"evidence\.ranking_W2: incomplete")
    cert = committed("theorem-5.5-search")
    cert["input"]["W2"][1] = ["2", "-1"]  # rows 1 and 2 equal: C changes
    rejected(cert, r"C\(W1\) != C\(W2\)")


def test_55_equal_ranking_patterns_prove_nothing():
    cert = committed("theorem-5.5-search")
    cert["input"]["W2"] = cert["input"]["W1"]
    cert["evidence"]["ranking_W2"] = cert["evidence"]["ranking_W1"]
    cert["assertion"]["only_in_W1"] = cert["assertion"]["only_in_W2"] = []
    rejected(cert, r"R\(W1\) = R\(W2\): no ranking is feasible")


def test_55_generator_refuses_non_pairs():
    cert = committed("theorem-5.5-rational")
    W1, W2 = cert["input"]["W1"], cert["input"]["W2"]
    with pytest.raises(ValueError, match="is never first for W1, or first somewhere"):
        theorem55_certificate(W1, W1, 2)
    with pytest.raises(ValueError, match=r"C\(W1\) != C\(W2\)"):
        theorem55_certificate(W1, [["1", "2"]] + W2[1:], 2)
    with pytest.raises(ValueError, match=r"R\(W1\) = R\(W2\)"):
        theorem55_certificate(W1, W1, None)


# --- the checker alone -----------------------------------------------------------------

def test_checker_runs_without_the_engine_libraries(tmp_path):
    bad = tmp_path / "bad.cert.json"
    tampered = committed("theorem-5.5")
    tampered["evidence"]["multipliers"][0][1] = "2"
    bad.write_text(json.dumps(tampered))
    files = [str(DIR / f"{name}.cert.json") for name in NAMES]
    run = run_checker_without_engine(tmp_path, *files)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [f"{path}: OK ({SUMMARIES[name]})"
                                       for path, name in zip(files, NAMES)] + ["outside: []"]
    run = run_checker_without_engine(tmp_path, str(bad))
    assert run.returncode == 1
    assert f"{bad}: INVALID: evidence: sum_r y_r s_r M_r" in run.stderr
