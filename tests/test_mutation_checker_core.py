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
import random
import re
from fractions import Fraction

import pytest

from verify.certificates.writers import claim_certificate, pattern_certificate
from verify.checker.core import (CertificateError, check_certificate, load_certificate,
                                 parallel_classes)
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


@pytest.mark.parametrize("kind", ["sign", "ranking"])
def test_the_input_is_named(kind):
    cert = fresh(kind)
    cert["input"] = [[1, 2]]
    rejects(cert, r"^input: expected an object, got \[\[1, 2\]\]$")
    cert = fresh(kind)
    del cert["input"]["affine"]
    rejects(cert, r"^input: missing 'affine'$")
    cert = fresh(kind)
    cert["input"]["scale"] = "1"
    rejects(cert, r"^input: unexpected 'scale'$")
    cert = fresh(kind)
    cert["input"]["affine"] = "no"
    rejects(cert, r'^input\.affine: expected true or false, got "no"$')


def test_a_flip_names_its_rows_one_or_a_parallel_class():
    """Rows 0 and 1 of ``W`` are parallel: a flip across their class names both rows,
    a flip across another line names its one row (classes found here by cross products)."""
    W = [[1, 0], [2, 0], [0, 1], [1, 1], [1, -1]]
    cls = {r: [s for s in range(len(W)) if W[r][0] * W[s][1] == W[r][1] * W[s][0]]
           for r in range(len(W))}
    named = {1: "row {}", 2: "rows {}, {}"}
    cert = fresh("sign", W=W)
    patterns = cert["assertion"]["patterns"]
    sizes = set()
    for t, refutation in enumerate(cert["evidence"]["refutations"]):
        rows = cls[refutation["row"]]
        sizes.add(len(rows))
        text = named[len(rows)].format(*rows)
        bad = copy.deepcopy(cert)
        for pair in bad["evidence"]["refutations"][t]["multipliers"]:
            pair[1] = "0"
        rejects(bad, rf"^refutation {t} \(cell {refutation['cell']} flipped at {text}\): "
                     r"every multiplier is zero$")
        bad = copy.deepcopy(cert)
        del bad["evidence"]["refutations"][t]
        with pytest.raises(CertificateError) as error:
            check_certificate(bad)
        message = str(error.value)
        assert message.startswith("incomplete: cell ")
        flipped = message.split(" gives ")[1].split(",")[0]
        c = int(message.split()[2])
        changed = [r for r in range(len(W)) if flipped[r] != patterns[c][r]]
        assert f" flipped at {named[len(changed)].format(*changed)} gives " in message
        assert changed == cls[changed[0]]
    assert sizes == {1, 2}


def test_parallel_classes_are_the_definition():
    """Rows ``a, b`` share a class iff both are non-zero and ``a = t b`` for some
    ``t != 0`` (rank of ``[a; b]`` below 2, checked on every 2 x 2 minor); classes are
    ordered by their first row, zero rows are in none, whatever their place."""
    rng = random.Random(13)
    for _ in range(200):
        k = rng.randint(1, 3)
        base = [[Fraction(rng.randint(-2, 2)) for _ in range(k)] for _ in range(3)]
        M = [[Fraction(rng.choice([-2, -1, 1, 3]), rng.randint(1, 3)) * a
              for a in rng.choice(base)] for _ in range(rng.randint(1, 7))]
        def parallel(a, b):
            return all(a[i] * b[j] == a[j] * b[i] for i in range(k) for j in range(k))
        nonzero = [r for r, row in enumerate(M) if any(row)]
        expected, class_of = [], [None] * len(M)
        for r in nonzero:
            c = next((c for c, rows in enumerate(expected) if parallel(M[rows[0]], M[r])),
                     None)
            if c is None:
                c = len(expected)
                expected.append([])
            expected[c].append(r)
            class_of[r] = c
        assert parallel_classes(M) == (class_of, expected), M


def test_a_refutation_may_name_any_row_of_its_class():
    W = [[1, 0], [2, 0], [0, 1], [1, 1], [-3, 0]]      # rows 0, 1 and 4 are parallel
    cert = fresh("sign", W=W)
    moved = 0
    for refutation in cert["evidence"]["refutations"]:
        if refutation["row"] in (0, 1, 4):
            refutation["row"] = {0: 4, 1: 0, 4: 1}[refutation["row"]]
            moved += 1
    assert moved
    assert check_certificate(cert).startswith("sign pattern, ")


def test_every_refusal_of_multipliers_names_its_place():
    cert = fresh("sign")
    first = cert["evidence"]["refutations"][0]
    where = rf"^refutation 0 \(cell {first['cell']} flipped at row {first['row']}\): "

    def with_multipliers(multipliers, match):
        bad = copy.deepcopy(cert)
        bad["evidence"]["refutations"][0]["multipliers"] = multipliers
        rejects(bad, where + match)

    with_multipliers({"0": "1"}, r'multipliers: expected a list, got \{"0": "1"\}$')
    with_multipliers([], r"no multipliers$")
    with_multipliers([[0, "2", "1"]], r"multipliers\[0\]: expected 2 entries, got 3$")
    with_multipliers([[0, "2"], "2"], r'multipliers\[1\]: expected a list, got "2"$')
    with_multipliers([[0, "2"], [3, "1"]],
                     r"multipliers\[1\] row: expected an integer from 0 to 2, got 3$")
    with_multipliers([[0, "2"], [1, 5]], r"multipliers\[1\] value: ")
    with_multipliers([[0, "2"], [0, "1"]], r"multipliers\[1\]: row 0 repeated$")
    with_multipliers([[0, "2"], [1, "-5"]], r"multipliers\[1\]: row 1 has y < 0$")
    with_multipliers([[0, "0"], [1, "0"]], r"every multiplier is zero$")
    signs = cert["assertion"]["patterns"][first["cell"]]
    s = [(-1 if (c == "+") == (r == first["row"]) else 1) for r, c in enumerate(signs)]
    total = [2 * s[0] * W3[0][j] + 5 * s[1] * W3[1][j] for j in range(2)]
    with_multipliers([[0, "2"], [1, "5"]],
                     rf"sum_r y_r s_r M_r = \({total[0]}, {total[1]}\), not 0$")


def test_an_empty_pattern_and_its_zero_row():
    W = [[1, 2], [0, 0], [2, -1]]
    cert = fresh("sign", W=W)
    assert cert["evidence"] == {"zero_row": 1}
    assert check_certificate(copy.deepcopy(cert)) == (
        "sign pattern, 0 cells, empty: row 1 of M is zero")
    bad = copy.deepcopy(cert)
    bad["evidence"]["cells"] = []
    rejects(bad, r"^evidence: unexpected 'cells'$")
    bad = copy.deepcopy(cert)
    bad["evidence"]["zero_row"] = 2
    rejects(bad, r"^evidence\.zero_row: row 2 of M is not zero$")
    bad = copy.deepcopy(cert)
    bad["evidence"]["zero_row"] = 3
    rejects(bad, r"^evidence\.zero_row: expected an integer from 0 to 2, got 3$")
    bad = copy.deepcopy(cert)
    bad["assertion"] = {"count": 1, "patterns": ["+-+"]}
    rejects(bad, r"^row 1 of M is zero, so the pattern is empty, but 1 sign vectors are "
                 r"listed$")


def test_a_wrong_count_is_shown():
    for count, shown in ((7, "7"), ("6", '"6"'), (True, "true")):
        cert = fresh("sign")
        assert cert["assertion"]["count"] == 6
        cert["assertion"]["count"] = count
        rejects(cert, rf"^assertion\.count: {shown} is not the number of patterns \(6\)$")


def test_every_part_of_the_pattern_evidence_is_named():
    cert = fresh("sign")
    patterns = cert["assertion"]["patterns"]

    def broken(change, match):
        bad = copy.deepcopy(cert)
        change(bad["evidence"], bad["assertion"])
        rejects(bad, match)

    def empty(evidence, assertion):
        assertion.update(count=0, patterns=[])
    broken(empty, r"^an empty pattern needs the evidence zero_row$")
    broken(lambda e, a: e.update(cells="none"),
           r'^evidence\.cells: expected a list, got "none"$')
    broken(lambda e, a: e["cells"].pop(), r"^evidence\.cells: expected 6 entries, got 5$")
    broken(lambda e, a: e["cells"].__setitem__(1, "x"),
           r'^cell 1: expected an object, got "x"$')
    broken(lambda e, a: e["cells"][1].pop("witness"), r"^cell 1: missing 'witness'$")
    broken(lambda e, a: e["cells"][1].__setitem__("signs", patterns[0]),
           rf'^cell 1: signs "{re.escape(patterns[0])}" differ from assertion\.patterns\[1\] '
           rf"{re.escape(patterns[1])}$")
    witness = cert["evidence"]["cells"][0]["witness"]
    moved = [Fraction(x) for x in witness]
    gives = "".join("+" if sum(a * z for a, z in zip(row, moved)) > 0 else "-" for row in W3)
    broken(lambda e, a: e["cells"][1].__setitem__("witness", witness),
           rf"^cell 1: witness gives sign vector {re.escape(gives)}, "
           rf"listed {re.escape(patterns[1])}$")
    broken(lambda e, a: e.update(refutations={}),
           r"^evidence\.refutations: expected a list, got \{\}$")
    broken(lambda e, a: e["refutations"].__setitem__(0, 3),
           r"^refutation 0: expected an object, got 3$")
    broken(lambda e, a: e["refutations"][0].pop("row"), r"^refutation 0: missing 'row'$")
    broken(lambda e, a: e["refutations"][0].update(cell=6),
           r"^refutation 0: cell: expected an integer from 0 to 5, got 6$")
    broken(lambda e, a: e["refutations"][0].update(row=3),
           r"^refutation 0: row: expected an integer from 0 to 2, got 3$")
    broken(lambda e, a: e.update(zero_row=0, cells=None) or e.pop("cells"),
           r"^evidence: unexpected 'refutations'$")


def test_the_document_is_recognised_before_it_is_checked():
    from verify.checker.core import CLAIMS, ELSEWHERE, FORMAT, UnknownFormat

    def unknown(obj, match):
        with pytest.raises(UnknownFormat, match=match):
            check_certificate(obj)

    unknown([fresh("sign")], r"^not a certificate: the document is not a JSON object$")
    for value, shown in ((None, "null"), ("verify-certificate/2", '"verify-certificate/2"')):
        cert = fresh("sign")
        cert["format"] = value
        unknown(cert, rf"^unknown format {re.escape(shown)} \(this checker reads "
                      rf"'{re.escape(FORMAT)}'\)$")
    known = ", ".join(repr(claim) for claim in [*CLAIMS, *ELSEWHERE])
    for value, shown in (("sign patterns", '"sign patterns"'), (3, "3"), (None, "null")):
        cert = fresh("sign")
        cert["claim"] = value
        unknown(cert, rf"^unknown claim {re.escape(shown)} \(known: {re.escape(known)}\)$")
    cert = fresh("sign")
    del cert["evidence"]
    rejects(cert, r"^certificate: missing 'evidence'$")
    cert = fresh("sign")
    cert["note"] = "x"
    rejects(cert, r"^certificate: unexpected 'note'$")
    cert = fresh("ranking")
    cert["claim"] = "sign pattern"          # a ranking certificate read as a sign pattern
    with pytest.raises(CertificateError):
        check_certificate(cert)


def test_rationals_are_read_exactly_and_named_when_wrong():
    import sys

    from verify.checker.core import RATIONALS, digits_to_int

    for text, value in (("0", 0), ("-0", 0), ("007", 7), ("-3/4", Fraction(-3, 4)),
                        ("6/4", Fraction(3, 2)), ("-12/1", -12)):
        assert RATIONALS.parse(text, "x") == value
    for value, match in ((3, r'^x: a number must be a string such as "-3" or "3/4", got 3$'),
                         ("1.5", r'^x: not an exact rational: "1\.5"$'),
                         ("+1", r'^x: not an exact rational: "\+1"$'),
                         ("1/-2", r'^x: not an exact rational: "1/-2"$'),
                         ("-1/0", r'^x: zero denominator: "-1/0"$')):
        with pytest.raises(CertificateError, match=match):
            RATIONALS.parse(value, "x")
    assert [RATIONALS.sign(Fraction(v)) for v in (-2, 0, Fraction(1, 9))] == [-1, 0, 1]
    limit = sys.get_int_max_str_digits()
    rng = random.Random(5)
    try:
        sys.set_int_max_str_digits(0)
        for length in (1, 3999, 4000, 4001, 8000, 12345):
            digits = str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9))
                                                      for _ in range(length - 1))
            expected = int(digits)
            sys.set_int_max_str_digits(limit)
            assert digits_to_int(digits) == expected
            assert RATIONALS.parse(f"-1/{digits}", "x") == Fraction(-1, expected)
            sys.set_int_max_str_digits(0)
    finally:
        sys.set_int_max_str_digits(limit)


def test_sign_strings_and_matrices_are_named_when_malformed():
    from verify.checker.core import input_matrix, sign_strings

    assert sign_strings(["+-", "-+"], "p", 2) == ["+-", "-+"]
    for patterns, match in (("+-", r'^p: expected a list, got "\+-"$'),
                            (["+-", 3], r"^p\[1\]: expected a string of 2 '\+'/'-', got 3$"),
                            (["+0"], r"^p\[0\]: expected a string of 2 '\+'/'-', got \"\+0\"$"),
                            (["X-"], r"^p\[0\]: expected a string of 2 '\+'/'-', got \"X-\"$"),
                            (["+"], r"^p\[0\]: expected a string of 2 '\+'/'-', got \"\+\"$"),
                            (["-+", "+-"], r"^p\[1\]: not after -\+ in ASCII order \(the "
                                           r"list must be sorted, without repeats\)$"),
                            (["+-", "+-"], r"^p\[1\]: not after \+- in ASCII order ")):
        with pytest.raises(CertificateError, match=match):
            sign_strings(patterns, "p", 2)
    assert input_matrix([["1", "-2/3"], ["0", "4"]]) == [[1, Fraction(-2, 3)], [0, 4]]
    for W, match in (("1", r'^input\.W: expected a list, got "1"$'),
                     ([], r"^input\.W: the matrix has no rows$"),
                     ([["1"], "2"], r'^input\.W\[1\]: expected a list, got "2"$'),
                     ([["1", "2"], ["3", 4]], r"^input\.W\[1\]\[1\]: a number must be a "),
                     ([["1", "2"], ["3"]], r"^input\.W: rows must be non-empty and of equal "
                                           r"length$"),
                     ([[], []], r"^input\.W: rows must be non-empty and of equal length$")):
        with pytest.raises(CertificateError, match=match):
            input_matrix(W)
    with pytest.raises(CertificateError, match=r"^A: the matrix has no rows$"):
        input_matrix([], "A")


def test_a_witness_on_a_hyperplane_shows_its_zero():
    cert = fresh("sign")
    # z = (2, -1) lies on the line of row 0, (1, 2): that row must read "0".
    z = [2, -1]
    gives = "".join("+" if v > 0 else "-" if v < 0 else "0"
                    for v in (sum(a * b for a, b in zip(row, z)) for row in W3))
    assert gives[0] == "0"
    cert["evidence"]["cells"][0]["witness"] = [str(v) for v in z]
    rejects(cert, rf"^cell 0: witness gives sign vector {re.escape(gives)}, listed "
                  rf"{re.escape(cert['assertion']['patterns'][0])}$")
    cert["evidence"]["cells"][0]["witness"] = ["2", "-1", "0"]
    rejects(cert, r"^cell 0: witness: expected 2 entries, got 3$")
    cert["evidence"]["cells"][0]["witness"] = ["2", "x"]
    rejects(cert, r'^cell 0: witness\[1\]: not an exact rational: "x"$')


def test_missing_and_unexpected_keys_together():
    cert = fresh("sign")
    del cert["input"]["affine"]
    cert["input"]["bias"] = "0"
    cert["input"]["a"] = "0"
    rejects(cert, r"^input: missing 'affine'; unexpected 'a', 'bias'$")
    cert = fresh("sign")
    cert["evidence"] = {}
    rejects(cert, r"^evidence: missing 'cells', 'refutations'$")
