"""Certificate files (``verify-certificate/1``) and their standard-library checker.

Fresh certificates must pass the checker, and the patterns they prove must agree with
the independent brute force of ``reference.py``. Every kind of tampering a reviewer
could worry about must be caught, by the check that is meant to catch it (the error
messages are matched). The checker must run with the engine's libraries made
unimportable, and must import nothing outside the standard library.
"""

from __future__ import annotations

import ast
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

from reference import brute_force_sign_pattern, matrix_rank
from strategies import degenerate_matrices, small_int_matrices
from verify.certificates.writers import pattern_certificate, write_certificate
from verify.checker.core import (
    CertificateError,
    UnknownFormat,
    check_certificate,
    check_pattern,
    main,
)

ROOT = Path(__file__).resolve().parents[1]
H1_A = [[Fraction(a) for a in row]
        for row in json.loads((ROOT / "examples" / "h1_A.json").read_text())["W"]]


def fraction_matrix(W, kind, affine):
    """``M`` built here with Fractions, independently of both engine and checker."""
    V = [[Fraction(a) for a in row] for row in W]
    if affine:
        V = [[Fraction(1)] + row for row in V]
    if kind == "ranking":
        V = [[a - b for a, b in zip(V[i], V[j])] for i, j in combinations(range(len(V)), 2)]
    return V


def signs_of(M, z):
    values = [sum(a * Fraction(b) for a, b in zip(row, z)) for row in M]
    return "".join("+" if v > 0 else "-" if v < 0 else "0" for v in values)


@lru_cache(maxsize=None)
def _cached(W_json, kind, affine):
    W = [[Fraction(a) for a in row] for row in json.loads(W_json)]
    return json.dumps(pattern_certificate(W, kind=kind, affine=affine))


def certificate(W, kind, affine=False) -> dict:
    """A fresh (deep) copy of the certificate, generated once per input."""
    W = [[str(a) for a in row] for row in W]
    return json.loads(_cached(json.dumps(W), kind, affine))


def exact(W):
    return [[Fraction(a) for a in row] for row in W]


# --- fresh certificates are accepted ---------------------------------------------------

CASES = {
    # name: (W, kind, affine, expected count)
    "sign three lines": ([[1, 0], [0, 1], [1, 1]], "sign", False, 6),
    "sign parallel rows": ([[1, 2], [2, 4], [-1, -2], [0, 1]], "sign", False, 4),
    "sign rank deficient": ([[1, 2, 3], [2, 4, 6], [1, 0, 1], [0, 1, 1]], "sign", False, 6),
    "sign d > n": ([[1, 2, 3, 4], [0, 1, -1, 2]], "sign", False, 4),
    "sign fractions": ([["1/2", "-3/4"], ["5/3", "2"], ["-1", "1/7"]], "sign", False, 6),
    "sign affine H.1 A": (H1_A, "sign", True, 20),
    "sign zero row": ([[1, 2], [0, 0], [3, 1]], "sign", False, 0),
    "sign single row": ([[0, 3]], "sign", False, 2),
    "ranking H.1 A": (H1_A, "ranking", False, 14),
    "ranking affine H.1 A": (H1_A, "ranking", True, 14),
    "ranking collinear": ([[0, 0], [1, 0], [2, 0], [0, 1]], "ranking", False, 8),
    "ranking d > n": ([[1, 2, 3], [0, -1, 2]], "ranking", False, 2),
    "ranking equal labels": ([[1, 2], [3, 4], [1, 2]], "ranking", False, 0),
    "ranking one label": ([[5, 7]], "ranking", True, 1),
}


@pytest.mark.parametrize("name", list(CASES))
def test_fresh_certificates_are_accepted(name):
    W, kind, affine, count = CASES[name]
    cert = certificate(W, kind, affine)
    summary = check_certificate(cert)
    assert summary.startswith(f"{kind} pattern, {count} cell")
    assert cert["assertion"]["count"] == count
    M = fraction_matrix(W, kind, affine)
    # The proven pattern is the one the independent brute force finds.
    assert set(cert["assertion"]["patterns"]) == brute_force_sign_pattern(M)
    if count == 0:
        assert "empty" in summary
        assert not any(M[cert["evidence"]["zero_row"]])
    else:
        assert summary.endswith("complete")
        # Lean refutations: at most rank(M) + 1 multipliers (Carathéodory).
        bound = matrix_rank(M) + 1
        assert all(len(r["multipliers"]) <= bound for r in cert["evidence"]["refutations"])


def test_empty_ranking_pattern_names_the_equal_labels():
    summary = check_certificate(certificate([[1, 2], [3, 4], [1, 2]], "ranking"))
    assert summary == "ranking pattern, 0 cells, empty: labels 0 and 2 have equal rows"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(degenerate_matrices(max_rows=6, max_cols=3))
def test_random_degenerate_sign_certificates(W):
    cert = pattern_certificate(W, kind="sign", affine=False)
    check_certificate(cert)
    assert set(cert["assertion"]["patterns"]) == brute_force_sign_pattern(W)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_int_matrices(max_rows=5, max_cols=3, entries=range(-2, 3), min_rows=2))
def test_random_ranking_certificates(W):
    cert = pattern_certificate(W, kind="ranking", affine=False)
    check_certificate(cert)
    M = fraction_matrix(W, "ranking", False)
    assert set(cert["assertion"]["patterns"]) == brute_force_sign_pattern(M)


# --- tampering is rejected, by the check meant to catch it -----------------------------

def rejected(cert, match):
    with pytest.raises(CertificateError, match=match):
        check_certificate(cert)


def resort(cert):
    """Re-sort patterns (with their cells and rankings) after an edit; renumber cells."""
    a, e = cert["assertion"], cert["evidence"]
    order = sorted(range(len(a["patterns"])), key=lambda k: a["patterns"][k])
    new_index = {old: new for new, old in enumerate(order)}
    a["patterns"] = [a["patterns"][k] for k in order]
    e["cells"] = [e["cells"][k] for k in order]
    if "rankings" in a:
        a["rankings"] = [a["rankings"][k] for k in order]
    for r in e["refutations"]:
        r["cell"] = new_index[r["cell"]]
    a["count"] = len(a["patterns"])


def test_flipped_sign_in_a_listed_cell():
    cert = certificate(H1_A, "sign", True)
    listed = set(cert["assertion"]["patterns"])
    k, signs = next((k, s) for k, s in enumerate(cert["assertion"]["patterns"])
                    if s[:2] + ("-" if s[2] == "+" else "+") + s[3:] not in listed)
    flipped = signs[:2] + ("-" if signs[2] == "+" else "+") + signs[3:]
    cert["assertion"]["patterns"][k] = cert["evidence"]["cells"][k]["signs"] = flipped
    resort(cert)
    rejected(cert, rf"witness gives sign vector [+-]{{5}}, listed {re.escape(flipped)}$")


def test_evidence_signs_must_match_the_assertion():
    cert = certificate(H1_A, "ranking")
    cert["evidence"]["cells"][3]["signs"] = cert["evidence"]["cells"][4]["signs"]
    rejected(cert, "cell 3: signs .* differ from assertion.patterns")


@pytest.mark.parametrize("kind,affine", [("sign", True), ("ranking", False)])
def test_dropped_cell_is_caught_by_completeness(kind, affine):
    cert = certificate(H1_A, kind, affine)
    a, e = cert["assertion"], cert["evidence"]
    k = 5
    for key in ("patterns", "rankings"):
        if key in a:
            del a[key][k]
    del e["cells"][k]
    a["count"] -= 1
    # Refutations from the dropped cell go too; the others are renumbered.
    e["refutations"] = [dict(r, cell=r["cell"] - (r["cell"] > k))
                        for r in e["refutations"] if r["cell"] != k]
    rejected(cert, "incomplete: cell .* neither listed nor refuted")


@pytest.mark.parametrize("kind,affine", [("sign", False), ("ranking", False)])
def test_changed_witness_coordinate_leaving_the_cell(kind, affine):
    W = H1_A
    cert = certificate(W, kind, affine)
    M = fraction_matrix(W, kind, affine)
    cell = cert["evidence"]["cells"][0]
    for j in range(len(cell["witness"])):
        for value in ("0", "1", "-1", "100", "-100"):
            z = list(cell["witness"])
            z[j] = value
            if signs_of(M, z) != cell["signs"]:
                cell["witness"] = z
                rejected(cert, rf"cell 0: witness gives sign vector [+0-]+, "
                                 rf"listed {re.escape(cell['signs'])}$")
                return
    pytest.fail("no single-coordinate change leaves the cell")


def test_changed_multiplier():
    cert = certificate(H1_A, "ranking")
    pair = cert["evidence"]["refutations"][7]["multipliers"][0]
    pair[1] = str(Fraction(pair[1]) + 1)
    rejected(cert, r"refutation 7 \(cell \d+ flipped at rows? [\d, ]+\): sum_r .* not 0")


def test_negative_and_zero_multipliers():
    cert = certificate(H1_A, "sign", True)
    refutation = cert["evidence"]["refutations"][0]
    negated = copy.deepcopy(cert)
    for pair in negated["evidence"]["refutations"][0]["multipliers"]:
        pair[1] = str(-Fraction(pair[1]))  # still sums to 0, but y < 0
    rejected(negated, "refutation 0 .*has y < 0")
    for pair in refutation["multipliers"]:
        pair[1] = "0"
    rejected(cert, "refutation 0 .*every multiplier is zero")


def test_multipliers_for_another_flip_are_rejected():
    # Valid multipliers, but attached to a cell whose flip they do not refute.
    cert = certificate(H1_A, "ranking")
    refutations = cert["evidence"]["refutations"]
    first = refutations[0]
    other = next(r for r in refutations if r["cell"] != first["cell"]
                 and r["multipliers"] != first["multipliers"])
    first["multipliers"] = other["multipliers"]
    rejected(cert, "refutation 0 .*not 0")


def test_added_bogus_cell():
    cert = certificate(H1_A, "sign", True)
    listed = set(cert["assertion"]["patterns"])
    bogus = next(s for s in ("+-+-+", "-+-+-", "++--+", "+--++", "-++--") if s not in listed)
    cert["assertion"]["patterns"].append(bogus)
    cert["evidence"]["cells"].append({"signs": bogus,
                                      "witness": cert["evidence"]["cells"][0]["witness"]})
    resort(cert)
    rejected(cert, rf"witness gives sign vector [+-]+, listed {re.escape(bogus)}$")


def test_changed_input_entry():
    cert = certificate(H1_A, "ranking")
    cert["input"]["W"][2][0] = "1"
    rejected(cert, "witness gives sign vector|not 0|incomplete")
    cert = certificate(H1_A, "sign", True)
    cert["input"]["W"][0][1] = "-1"
    rejected(cert, "witness gives sign vector|not 0|incomplete")


def test_affine_flag_is_part_of_the_input():
    cert = certificate(H1_A, "sign", True)
    cert["input"]["affine"] = False
    rejected(cert, "cell 0: witness: expected 2 entries, got 3")


@pytest.mark.parametrize("which", [0, -1])
def test_dropped_refutation(which):
    cert = certificate(H1_A, "ranking")
    del cert["evidence"]["refutations"][which]
    rejected(cert, "incomplete")


def test_ranking_not_matching_its_signs():
    cert = certificate(H1_A, "ranking")
    ranking = cert["assertion"]["rankings"][0]
    ranking[0], ranking[1] = ranking[1], ranking[0]
    rejected(cert, r"assertion.rankings\[0\]: .* has signs .*, assertion.patterns\[0\] is")
    cert = certificate(H1_A, "ranking")
    cert["assertion"]["rankings"][0][0] = cert["assertion"]["rankings"][0][1]
    rejected(cert, "not an ordering of the labels")


@pytest.mark.parametrize("path", [("input", "W", 0, 0), ("evidence", "cells", 2, "witness", 1),
                                  ("evidence", "refutations", 0, "multipliers", 0, 1)])
@pytest.mark.parametrize("value", [0.5, 1, None])
def test_numbers_must_be_strings(path, value):
    cert = certificate(H1_A, "ranking")
    node = cert
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    rejected(cert, 'a number must be a string such as "-3" or "3/4", got ' + json.dumps(value))


@pytest.mark.parametrize("text", ["0.5", "1e3", "+1", "1/0", "3/-4", " 1", "0x10", ""])
def test_number_grammar(text):
    cert = certificate(H1_A, "ranking")
    cert["evidence"]["cells"][0]["witness"][0] = text
    rejected(cert, "not an exact rational|zero denominator")


def test_other_structural_errors():
    base = certificate(H1_A, "ranking")
    cert = copy.deepcopy(base)
    cert["assertion"]["count"] += 1
    rejected(cert, "assertion.count")
    cert = copy.deepcopy(base)
    cert["assertion"]["count"] = True
    rejected(cert, "assertion.count")
    cert = copy.deepcopy(base)
    p = cert["assertion"]["patterns"]
    p[0], p[1] = p[1], p[0]
    rejected(cert, "ASCII order")
    cert = copy.deepcopy(base)
    cert["evidence"]["comment"] = "trust me"
    rejected(cert, "evidence: unexpected 'comment'")
    cert = copy.deepcopy(base)
    del cert["evidence"]["refutations"]
    rejected(cert, "evidence: missing 'refutations'")
    cert = copy.deepcopy(base)
    cert["evidence"]["refutations"][0]["row"] = len(base["assertion"]["patterns"][0])
    rejected(cert, "refutation 0: row: expected an integer from 0 to 9")
    cert = copy.deepcopy(base)
    mult = cert["evidence"]["refutations"][0]["multipliers"]
    mult.append(list(mult[0]))
    rejected(cert, "repeated")


def test_empty_pattern_evidence():
    empty = certificate([[1, 2], [0, 0]], "sign")
    assert empty["evidence"] == {"zero_row": 1}
    cert = copy.deepcopy(empty)
    cert["evidence"]["zero_row"] = 0
    rejected(cert, "evidence.zero_row: row 0 of M is not zero")
    # A non-empty pattern cannot be dismissed by a zero row...
    cert = certificate([[1, 2], [3, 1]], "sign")
    cert["assertion"] = {"count": 0, "patterns": []}
    cert["evidence"] = {"zero_row": 0}
    rejected(cert, "row 0 of M is not zero")
    # ...nor listed as empty without one.
    cert["evidence"] = {"cells": [], "refutations": []}
    rejected(cert, "an empty pattern needs the evidence zero_row")
    # And an empty pattern cannot be dressed up as a non-empty one.
    cert = copy.deepcopy(empty)
    cert["assertion"] = {"count": 1, "patterns": ["++"]}
    cert["evidence"] = {"cells": [{"signs": "++", "witness": ["1", "1"]}], "refutations": []}
    rejected(cert, "cell 0: witness gives sign vector \\+0, listed \\+\\+")


def test_unknown_format_and_claim():
    cert = certificate(H1_A, "ranking")
    for key, value, message in [
            ("format", "verify-certificate/2", "unknown format \"verify-certificate/2\""),
            ("format", None, "unknown format null"),
            ("claim", "theorem 9.9", "unknown claim \"theorem 9.9\" \\(known: 'sign pattern'"),
            ("claim", ["sign pattern"], "unknown claim")]:
        bad = dict(cert, **{key: value})
        with pytest.raises(UnknownFormat, match=message):
            check_certificate(bad)
    with pytest.raises(UnknownFormat, match="not a JSON object"):
        check_certificate([cert])


def test_check_pattern_is_reusable():
    M = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]
    evidence = {"cells": [{"signs": s, "witness": w} for s, w in
                          [("++", ["1", "1"]), ("+-", ["1", "-1"]),
                           ("-+", ["-1", "1"]), ("--", ["-1", "-1"])]],
                "refutations": []}
    assert check_pattern(M, ["++", "+-", "-+", "--"], evidence) == "4 cells, complete"
    evidence["cells"] = evidence["cells"][:3]
    with pytest.raises(CertificateError, match="incomplete"):
        check_pattern(M, ["++", "+-", "-+"], evidence)


# --- files, determinism, command line --------------------------------------------------

def test_byte_identical_files(tmp_path):
    W = [[3, -1, 2], [0, 4, -5], [-2, 2, 1], [1, 1, 1], [5, -3, 0]]
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    write_certificate(first, pattern_certificate(W, kind="ranking", affine=False))
    write_certificate(second, pattern_certificate(W, kind="ranking", affine=False))
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes().endswith(b"}\n") and first.read_bytes().count(b"\n") == 1


def test_byte_identical_across_processes(tmp_path):
    # Set iteration order depends on the hash seed; the file must not.
    script = ("import sys; from verify.certificates.writers import pattern_certificate, "
              "write_certificate; W = [[1, 2], [-3, 1], [0, -2], [2, 2], [1, -1]]; "
              "write_certificate(sys.argv[1], pattern_certificate(W, kind='ranking', "
              "affine=True))")
    outputs = []
    for seed in ("1", "2"):
        path = tmp_path / f"seed{seed}.json"
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
        subprocess.run([sys.executable, "-c", script, str(path)], check=True, env=env)
        outputs.append(path.read_bytes())
    assert outputs[0] == outputs[1]


def test_main_exit_codes_and_messages(tmp_path, capsys):
    good = tmp_path / "good.json"
    write_certificate(good, pattern_certificate(H1_A, kind="ranking", affine=False))
    bad_cert = certificate(H1_A, "ranking")
    del bad_cert["evidence"]["refutations"][0]
    bad = tmp_path / "bad.json"
    write_certificate(bad, bad_cert)
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps(dict(bad_cert, claim="theorem 9.9")))
    not_json = tmp_path / "not.json"
    not_json.write_text("{\"format\": ")
    duplicate = tmp_path / "dup.json"
    duplicate.write_text('{"format": "x", "format": "verify-certificate/1"}')
    nan = tmp_path / "nan.json"
    nan.write_text('{"format": NaN}')

    assert main([str(good)]) == 0
    out, err = capsys.readouterr()
    assert out == f"{good}: OK (ranking pattern, 14 cells, complete)\n" and err == ""

    assert main([str(good), str(bad)]) == 1
    out, err = capsys.readouterr()
    assert out.startswith(f"{good}: OK")
    assert err.startswith(f"{bad}: INVALID: incomplete: cell ") and err.count("\n") == 1

    for path, message in [(unknown, "ERROR: unknown claim"), (not_json, "ERROR: not JSON"),
                          (duplicate, "ERROR: not JSON: duplicate key 'format'"),
                          (nan, "ERROR: not JSON: NaN is not a JSON value"),
                          (tmp_path / "missing.json", "ERROR: cannot read")]:
        assert main([str(path), str(bad)]) == 2
        out, err = capsys.readouterr()
        assert err.startswith(f"{path}: {message}")
        assert err.count("\n") == 2

    assert main([]) == 2
    assert "usage" in capsys.readouterr().err
    assert main(["--help"]) == 0
    assert "usage" in capsys.readouterr().out


def test_checker_runs_without_the_engine_libraries(tmp_path):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    write_certificate(good, pattern_certificate(H1_A, kind="sign", affine=True))
    tampered = certificate(H1_A, "sign", True)
    tampered["evidence"]["cells"][0]["witness"][0] = "-1000"
    write_certificate(bad, tampered)
    run = run_checker_without_engine(tmp_path, str(good))
    assert run.returncode == 0, run.stderr
    assert f"{good}: OK (sign pattern, 20 cells, complete)" in run.stdout
    assert "outside: []" in run.stdout
    run = run_checker_without_engine(tmp_path, str(bad))
    assert run.returncode == 1
    assert f"{bad}: INVALID: cell 0: witness gives sign vector" in run.stderr


@pytest.mark.parametrize("module,allowed", [
    ("checker/core", {"verify.checker.core"}),  # itself, in its __main__ block
    ("checker/roots", {"verify.checker.core"}),
    ("checker/claims", {"verify.checker.core", "verify.checker.roots"}),
])
def test_checker_imports_only_the_standard_library(module, allowed):
    """The checker modules import the standard library and each other, nothing else."""
    tree = ast.parse((ROOT / "verify" / f"{module}.py").read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative import in the checker"
            imported.add(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            pytest.fail("dynamic import in the checker")
    assert imported, "the parse found no imports at all"
    outside = {m for m in imported if m.split(".")[0] not in sys.stdlib_module_names
               and m != "__future__"}
    assert outside == allowed, outside
    if module == "checker/core":  # the modules it loads on demand, by name
        from verify.checker.core import ELSEWHERE

        assert set(ELSEWHERE.values()) == {"verify.checker.roots", "verify.checker.claims"}


def test_python_m_verify_check(tmp_path):
    good = tmp_path / "good.json"
    write_certificate(good, pattern_certificate(H1_A, kind="ranking", affine=False))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-m", "verify", "check", str(good)], env=env,
                         capture_output=True, text=True)
    if "invalid choice: 'check'" in run.stderr:
        pytest.skip("python -m verify does not dispatch 'check' yet")
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"{good}: OK (ranking pattern, 14 cells, complete)\n"
