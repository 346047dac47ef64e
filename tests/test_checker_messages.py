"""The checker's error messages name the place of the problem.

A reviewer reads the one line the checker prints; it must say which part of which
certificate is wrong. These tests break one part of a theorem 5.5 certificate at a time
(shapes and keys; the mathematics is tested in ``test_counterexample_certificates.py``)
and run ``main`` on unreadable files.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.checker.core import CertificateError, shown_json, check_certificate, main

ROOT = Path(__file__).resolve().parents[1]


def load(name):
    return json.loads((ROOT / "counterexamples" / f"{name}.cert.json").read_text())


@pytest.fixture(scope="module")
def labelled():
    cert = load("theorem-5.5")
    assert cert["input"]["label"] is not None
    check_certificate(copy.deepcopy(cert))
    return cert


@pytest.fixture(scope="module")
def complete():
    cert = load("theorem-5.5-search")
    assert cert["input"]["label"] is None
    check_certificate(copy.deepcopy(cert))
    return cert


def rejected(cert, message):
    with pytest.raises(CertificateError) as error:
        check_certificate(cert)
    assert str(error.value).startswith(message), str(error.value)


@pytest.mark.parametrize("part", ["input", "assertion", "evidence"])
@pytest.mark.parametrize("name", ["theorem-5.5", "theorem-5.5-search", "theorem-H.1"])
def test_a_missing_key_is_named_with_its_part(name, part):
    cert = load(name)
    del cert[part][next(iter(cert[part]))]
    rejected(cert, f"{part}: ")


def test_rows_of_w1_and_w2_must_match(labelled):
    cert = copy.deepcopy(labelled)
    cert["input"]["W2"] = cert["input"]["W2"][:-1]
    rejected(cert, "input: W1 and W2 must have the same number of rows")


def test_cosines_equal_must_be_true(labelled):
    cert = copy.deepcopy(labelled)
    cert["assertion"]["cosines_equal"] = "yes"
    rejected(cert, 'assertion.cosines_equal: expected true, got "yes"')


def test_first_in_w1_messages(labelled):
    cert = copy.deepcopy(labelled)
    cert["assertion"]["first_in_W1"] = "2 > 1"
    rejected(cert, "assertion.first_in_W1: ")
    cert = copy.deepcopy(labelled)
    cert["assertion"]["first_in_W1"][0] = [0]
    rejected(cert, "assertion.first_in_W1[0]: ")


def test_complete_rankings_need_witnesses_of_the_right_length(complete):
    cert = copy.deepcopy(complete)
    cert["evidence"]["ranking_W1"]["cells"][0]["witness"].append("0")
    rejected(cert, "evidence.ranking_W1: cell 0: witness")
    cert = copy.deepcopy(complete)
    cert["evidence"]["ranking_W2"]["cells"][0]["witness"] = ["sqrt(2)"] * 5
    rejected(cert, "evidence.ranking_W2: cell 0: witness")


def test_shown_bounds_long_values():
    assert shown_json("a" * 38) == json.dumps("a" * 38)                 # 40 characters
    assert shown_json("a" * 39) == json.dumps("a" * 39)[:37] + "..."    # 41 characters
    assert len(shown_json(list(range(100)))) == 40
    assert shown_json(list(range(100))).endswith("...")


def test_main_usage_and_unreadable_files(tmp_path, capsys):
    assert main(["-h"]) == 0 and "usage:" in capsys.readouterr().out
    assert main(["--help"]) == 0 and "usage:" in capsys.readouterr().out
    assert main([]) == 2 and "usage:" in capsys.readouterr().err
    missing = tmp_path / "missing.json"
    assert main([str(missing)]) == 2
    assert capsys.readouterr().err == f"{missing}: ERROR: cannot read: No such file or directory\n"
    empty = tmp_path / "empty.json"
    empty.write_text("")
    assert main([str(empty)]) == 2
    assert capsys.readouterr().err.startswith(f"{empty}: ERROR: not JSON: Expecting value")


def test_first_in_w1_must_be_sorted_unique_and_non_empty(labelled):
    first = labelled["assertion"]["first_in_W1"]
    witnesses = labelled["evidence"]["witnesses"]
    assert len(first) >= 2
    message = "assertion.first_in_W1: empty, not sorted, or a ranking is repeated"
    for rankings, points in ((first[::-1], witnesses[::-1]),      # every witness valid
                             ([first[0], first[0]], [witnesses[0], witnesses[0]]),
                             ([], [])):
        cert = copy.deepcopy(labelled)
        cert["assertion"]["first_in_W1"], cert["evidence"]["witnesses"] = rankings, points
        rejected(cert, message)


def test_every_listed_ranking_needs_a_full_witness(labelled):
    cert = copy.deepcopy(labelled)
    cert["evidence"]["witnesses"] = cert["evidence"]["witnesses"][:-1]
    rejected(cert, "evidence.witnesses: ")
    cert = copy.deepcopy(labelled)
    cert["evidence"]["witnesses"][0] = cert["evidence"]["witnesses"][0][:-1]
    rejected(cert, "evidence.witnesses[0]: witness")
    cert = copy.deepcopy(labelled)       # an extra coordinate, even 0, is malformed
    cert["evidence"]["witnesses"][0] = cert["evidence"]["witnesses"][0] + ["0"]
    rejected(cert, "evidence.witnesses[0]: witness")


def test_only_in_lists_are_named(complete):
    cert = copy.deepcopy(complete)
    cert["assertion"]["only_in_W1"] = "none"
    rejected(cert, "assertion.only_in_W1: ")
    cert = copy.deepcopy(complete)
    cert["assertion"]["only_in_W2"] = [[0]]
    rejected(cert, "assertion.only_in_W2[0]: ")


# --- theorem H.1 ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def h1():
    cert = load("theorem-H.1")
    check_certificate(copy.deepcopy(cert))
    assert cert["assertion"]["only_in_A"] or cert["assertion"]["only_in_B"]
    return cert


def test_h1_shapes_and_patterns_are_named(h1):
    cert = copy.deepcopy(h1)
    cert["input"]["B"] = cert["input"]["B"][:-1]
    rejected(cert, "input: A and B must have the same number of points and the same "
                   "dimension")
    cert = copy.deepcopy(h1)
    cert["input"]["A"][0] = ["1"]
    rejected(cert, "input.A: ")
    cert = copy.deepcopy(h1)
    cert["assertion"]["patterns"][0] = "+"
    rejected(cert, "assertion.patterns")


def test_h1_every_listed_ranking_has_one_direct_proof(h1):
    key = "only_in_A" if h1["assertion"]["only_in_A"] else "only_in_B"
    cert = copy.deepcopy(h1)
    cert["evidence"][key] = cert["evidence"][key][:-1]
    rejected(cert, f"evidence.{key}: ")
    cert = copy.deepcopy(h1)
    cert["evidence"][key][0] = {"witness": cert["evidence"][key][0]["witness"]}
    rejected(cert, f"evidence.{key}[0]: ")
    cert = copy.deepcopy(h1)
    cert["evidence"][key][0]["witness"] = cert["evidence"][key][0]["witness"] + ["0"]
    rejected(cert, f"evidence.{key}[0]: witness")
    cert = copy.deepcopy(h1)
    cert["evidence"]["ranking_A"]["cells"][0]["witness"].append("0")
    rejected(cert, "evidence.ranking_A: cell 0: witness")


def test_h1_mirror_image_has_the_opposite_chirotope_and_is_accepted(h1):
    """Reflecting ``B`` (one coordinate negated) keeps ``S([1|B])`` and ``R(B)`` and
    negates the chirotope of ``[1|B]``: a valid certificate, chirotopes opposite."""
    from verify.certificates.writers import h1_certificate
    from verify.checker.core import _chirotope

    A = [[Fraction(a) for a in row] for row in h1["input"]["A"]]
    B = [[-Fraction(row[0])] + [Fraction(a) for a in row[1:]] for row in h1["input"]["B"]]
    ones = [[[Fraction(1)] + row for row in W] for W in (A, B)]
    assert _chirotope(ones[1]) == [-s for s in _chirotope(ones[0])]
    assert check_certificate(json.loads(json.dumps(h1_certificate(A, B)))).startswith(
        "theorem H.1")


def test_h1_a_ranking_in_both_patterns_is_not_only_in_one(complete):
    # theorem 5.5 in complete form uses the same difference check as H.1, without proofs.
    R1 = {cell["signs"] for cell in complete["evidence"]["ranking_W1"]["cells"]}
    R2 = {cell["signs"] for cell in complete["evidence"]["ranking_W2"]["cells"]}
    shared = sorted(R1 & R2)[0]
    n = len(complete["input"]["W1"])
    wins = [0] * n
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    for (i, j), s in zip(pairs, shared):
        wins[i if s == "+" else j] += 1
    ranking = sorted(range(n), key=lambda i: -wins[i])
    cert = copy.deepcopy(complete)
    cert["assertion"]["only_in_W1"] = sorted(cert["assertion"]["only_in_W1"] + [ranking])
    rejected(cert, "assertion.only_in_W1: " + " > ".join(map(str, ranking))
             + " is not in R(W1) \\ R(W2)")


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 3).flatmap(lambda k: st.lists(
    st.lists(st.integers(-3, 3), min_size=k, max_size=k), min_size=k, max_size=k + 2)))
def test_chirotope_is_the_sign_of_each_maximal_minor(V):
    from itertools import combinations, permutations

    from verify.checker.core import _chirotope

    def det(rows):   # the Leibniz formula, independently of elimination
        k, total = len(rows), 0
        for perm in permutations(range(k)):
            sign = (-1) ** sum(perm[a] > perm[b] for a in range(k) for b in range(a + 1, k))
            term = sign
            for r, c in enumerate(perm):
                term *= rows[r][c]
            total += term
        return total

    V = [[Fraction(a) for a in row] for row in V]
    expected = [(d > 0) - (d < 0) for d in (det(rows) for rows in combinations(V, len(V[0])))]
    assert _chirotope(V) == expected


def test_h1_malformed_ranking_cells_are_named(h1):
    cert = copy.deepcopy(h1)
    cert["evidence"]["ranking_B"]["cells"] = "none"
    rejected(cert, "evidence.ranking_B.cells: ")
    cert = copy.deepcopy(h1)
    del cert["evidence"]["ranking_B"]["cells"][0]["witness"]
    rejected(cert, "evidence.ranking_B.cells[0]: ")
    cert = copy.deepcopy(h1)
    cert["evidence"]["ranking_B"]["cells"][0]["signs"] += "+"
    rejected(cert, "evidence.ranking_B.cells: signs")


def test_55_with_another_label_first(labelled):
    """The same counterexample with the rows permuted (the label to row 0, a row with a
    multiplier to row 2): the multipliers of W2 combine the rows ``w_label - w_k``, each
    with the sign +."""
    from verify.certificates.writers import theorem55_certificate

    label = labelled["input"]["label"]
    weighted = labelled["evidence"]["multipliers"][0][0]   # a row with a multiplier ...
    rest = [k for k in range(len(labelled["input"]["W1"])) if k not in (label, weighted)]
    order = [label, rest[0], weighted] + rest[1:]          # ... moved to row 2
    W1, W2 = ([labelled["input"][key][k] for k in order] for key in ("W1", "W2"))
    cert = json.loads(json.dumps(theorem55_certificate(W1, W2, 0)))
    assert check_certificate(cert).startswith("theorem 5.5")
    assert len(cert["evidence"]["multipliers"]) >= 2


def test_55_an_empty_ranking_pattern_is_proven_by_a_zero_row():
    """Two equal labels in W1 (always tied: R(W1) is empty) and the same two labels at
    different lengths in W2 (same cosines): every ranking of W2 is only in R(W2)."""
    from verify.certificates.writers import theorem55_certificate

    W1, W2 = [[1, 0], [1, 0], [0, 1]], [[1, 0], [2, 0], [0, 1]]
    cert = json.loads(json.dumps(theorem55_certificate(W1, W2, None)))
    assert cert["evidence"]["ranking_W1"] == {"zero_row": 0}
    assert check_certificate(copy.deepcopy(cert)).endswith(
        "0 of 0 rankings only in R(W1), 6 of 6 only in R(W2)")
    cert["evidence"]["ranking_W1"] = {"zero_row": 2}       # w_0 - w_2 is not zero
    rejected(cert, "evidence.ranking_W1: evidence.zero_row: row 2 of M is not zero")
