"""The checker names what is wrong, and a certificate over one label is still checked.

A reviewer reads only the checker's one-line message, so each refusal must name the
part of the certificate that fails (``assertion.rankings[0]``, not some other place),
and the value it shows must be the one in the file. A head with a single label has a
braid matrix ``B_1 W`` without rows: its one sign vector is the empty string, and the
witness must still have one coordinate per column of ``W`` (the only place where the
checker needs the number of columns from elsewhere).
"""

from __future__ import annotations

import copy
import json

import pytest

from verify.certificates.writers import claim_certificate, pattern_certificate
from verify.checker.core import CertificateError, check_certificate, load_certificate
from verify.checker.roots import SQUARE_ROOTS

W3 = [[1, 2], [0, 1], [2, -1]]


def fresh(kind: str, W=W3, affine=False) -> dict:
    return json.loads(json.dumps(pattern_certificate(W, kind=kind, affine=affine)))


def rejects(cert, match):
    with pytest.raises(CertificateError, match=match):
        check_certificate(cert)


@pytest.mark.parametrize("kind", ["sign", "ranking"])
def test_the_assertion_and_its_patterns_are_named(kind):
    claim = f"{kind} pattern"
    cert = fresh(kind)
    assert check_certificate(copy.deepcopy(cert)).startswith(f"{claim}, ")
    cert["assertion"] = ["+++"]
    rejects(cert, r'^assertion: expected an object, got \["\+\+\+"\]$')
    cert = fresh(kind)
    cert["assertion"]["patterns"] = "+++"
    rejects(cert, r'^assertion\.patterns: expected a list, got "\+\+\+"$')
    cert = fresh(kind)
    cert["assertion"]["patterns"][1] = "+"
    rejects(cert, r"^assertion\.patterns\[1\]: expected a string of 3 '\+'/'-', got \"\+\"$")


def test_ranking_lists_are_named():
    cert = fresh("ranking")
    cert["assertion"]["rankings"].pop()
    rejects(cert, r"^assertion\.rankings: expected 6 entries, got 5$")
    cert = fresh("ranking")
    cert["assertion"]["rankings"] = {"0": [0, 1, 2]}
    rejects(cert, r'^assertion\.rankings: expected a list, got \{"0": \[0, 1, 2\]\}$')
    cert = fresh("ranking")
    cert["assertion"]["rankings"][0] = [0, 1]
    rejects(cert, r"^assertion\.rankings\[0\]: expected 3 entries, got 2$")
    cert = fresh("ranking")
    cert["assertion"]["rankings"][2] = [0, 1, 5]
    rejects(cert, r"^assertion\.rankings\[2\]: expected an integer from 0 to 2, got 5$")
    cert = fresh("ranking")
    cert["assertion"]["rankings"][3] = [1, 1, 2]
    rejects(cert, r"^assertion\.rankings\[3\]: not an ordering of the labels 0\.\.2$")
    cert = fresh("ranking")
    rankings = cert["assertion"]["rankings"]
    rankings[0], rankings[1] = rankings[1], rankings[0]
    rejects(cert, r"^assertion\.rankings\[0\]: 0 > 2 > 1 has signs \+\+-, "
                  r"assertion\.patterns\[0\] is \+\+\+$")


def test_a_single_label_has_one_ranking_with_a_full_witness():
    cert = fresh("ranking", W=[[1, 2]])
    assert cert["assertion"]["patterns"] == [""]
    assert check_certificate(copy.deepcopy(cert)) == "ranking pattern, 1 cell, complete"
    for witness in (["0"], ["0", "0", "0"]):
        bad = copy.deepcopy(cert)
        bad["evidence"]["cells"][0]["witness"] = witness
        rejects(bad, rf"^cell 0: witness: expected 2 entries, got {len(witness)}$")


def test_theorem_56_on_a_single_label():
    cert = json.loads(json.dumps(claim_certificate("theorem 5.6", [[1, 2]])))
    assert check_certificate(copy.deepcopy(cert)) == (
        "theorem 5.6, S(C(B_n W)) = R(W): 1 cell, complete on both sides")
    bad = copy.deepcopy(cert)
    bad["evidence"]["matrix"]["cells"][0]["witness"] = ["0"]
    rejects(bad, r"^evidence\.matrix: cell 0: witness: expected 2 entries, got 1$")
    bad = copy.deepcopy(cert)
    bad["evidence"]["cosine"]["cells"][0]["witness"] = ["0"]
    rejects(bad, r"^evidence\.cosine: cell 0: witness: expected 0 entries, got 1$")


def test_cosine_claims_name_their_patterns():
    cert = json.loads(json.dumps(claim_certificate("lemma 5.3", W3)))
    assert check_certificate(copy.deepcopy(cert)).startswith(
        "lemma 5.3, S(C(W)) = S(W): ")
    cert["assertion"]["patterns"] = "+"
    rejects(cert, r'^assertion\.patterns: expected a list, got "\+"$')


def test_duplicate_keys_are_named(tmp_path):
    path = tmp_path / "dup.json"
    path.write_text('{"a": 1, "b": 2, "c": 3, "b": 4}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"^duplicate key 'b'$"):
        load_certificate(path)


def test_square_root_numbers_show_the_value_refused():
    with pytest.raises(CertificateError, match=r'^x: a number must be a string such as '
                                               r'"-3/4\*sqrt\(2\) \+ 1", got 3$'):
        SQUARE_ROOTS.parse(3, "x")
    with pytest.raises(CertificateError,
                       match=r'^x: not an exact sum of square roots: "1\+sqrt\(2\)"$'):
        SQUARE_ROOTS.parse("1+sqrt(2)", "x")
    with pytest.raises(CertificateError,
                       match=r'^x: zero denominator or radicand: "1/0"$'):
        SQUARE_ROOTS.parse("1/0", "x")
    with pytest.raises(CertificateError,
                       match=r'^x: zero denominator or radicand: "2\*sqrt\(0\)"$'):
        SQUARE_ROOTS.parse("2*sqrt(0)", "x")


def test_files_are_read_as_utf8_whatever_the_locale(tmp_path, monkeypatch):
    # A reader that falls back to Latin-1 when no encoding is given (as a Latin-1
    # locale would): the certificate's non-ASCII text must still come back unchanged.
    import builtins

    from verify.checker import core

    real_open = builtins.open

    def latin1_locale_open(file, mode="r", *args, encoding=None, **kwargs):
        return real_open(file, mode, *args, encoding=encoding or "latin-1", **kwargs)

    path = tmp_path / "family.json"
    path.write_text('{"family": "Zaslavsky \u2013 n \u2264 5"}', encoding="utf-8")
    monkeypatch.setattr(core, "open", latin1_locale_open, raising=False)
    assert load_certificate(path) == {"family": "Zaslavsky \u2013 n \u2264 5"}
