"""Theorems 5.5 and H.1: certified counterexamples, and the search for new ones."""

from fractions import Fraction
from types import SimpleNamespace

import pytest

from verify.arrangement import ranking_pattern, sign_pattern
from verify.claims.registry import Claim
from verify.claims.search import is_55_pair, is_h1_pair, search_55, search_h1
from verify.claims.theorem_55 import (
    RATIONAL_MODEL_1,
    RATIONAL_MODEL_2,
    check_instance,
    field_cosine_matrix,
    never_first,
)
from verify.claims.theorem_h1 import (
    affine,
    compare_configurations,
    rational_matrix,
)
from verify.data import paper_example
from verify.numbers.sqrt_sum import SqrtSum, parse_sqrt_sum


def claim(id_):
    return Claim(id=id_, statement="", hypotheses="", establishes="", runner="")


def paper_55():
    data = paper_example("theorem 5.5")
    return ([[parse_sqrt_sum(a) for a in row] for row in data["model 1"]],
            [[parse_sqrt_sum(a) for a in row] for row in data["model 2"]])


def fraction_rows(W):
    return [[Fraction(int(a.p), int(a.q)) for a in row] for row in W]


# --- theorem 5.5 ---------------------------------------------------------------------

@pytest.mark.parametrize("instance", ["paper", "rational"])
def test_theorem_55_instances(instance):
    W1, W2 = paper_55() if instance == "paper" else (RATIONAL_MODEL_1, RATIONAL_MODEL_2)
    res = check_instance(W1, W2, 2)
    assert res["cosines_equal"]
    assert res["first_in_1"] and not res["first_in_2"]
    cert = res["certificate_2"]
    # re-check the Gordan certificate independently: sum_k y_k (w_2 - w_k) = 0, y >= 0
    others = [k for k in range(7) if k != 2]
    total = [SqrtSum(0), SqrtSum(0)]
    for i, y in cert.multipliers:
        assert y > 0
        k = others[i]
        for c in range(2):
            total[c] = total[c] + y * (SqrtSum(0) + W2[2][c] - W2[k][c])
    assert all(t.is_zero() for t in total)
    # every witness really ranks label 2 first in model 1, exactly
    for ranking, x in res["first_in_1"]:
        logits = [sum((SqrtSum(0) + a) * b for a, b in zip(row, x)) for row in W1]
        assert all(logits[2] > logits[k] for k in others)


def test_theorem_55_check_can_fail():
    # without shortening label 2 it stays first somewhere: no certificate exists
    assert never_first(RATIONAL_MODEL_1, 2) is None
    res = check_instance(RATIONAL_MODEL_1, RATIONAL_MODEL_1, 2)
    assert res["certificate_2"] is None and res["first_in_2"]
    # a row moved off its direction changes the cosine matrix
    moved = [row[:] for row in RATIONAL_MODEL_2]
    moved[2] = [1, 2]
    assert field_cosine_matrix(RATIONAL_MODEL_1) != field_cosine_matrix(moved)


def test_theorem_55_runner_verifies():
    from verify.claims.theorem_55 import run

    out = run(claim("theorem 5.5"), SimpleNamespace(matrix=None))
    assert out.status == "verified" and len(out.steps) == 6


# --- theorem H.1 ---------------------------------------------------------------------

def test_theorem_h1_paper_example():
    data = paper_example("theorem H.1")
    A, B = rational_matrix(data["A"]), rational_matrix(data["B"])
    res = compare_configurations(A, B)
    assert res["sign_patterns_equal"] and res["sign_pattern_count"] == 20
    assert res["chirotopes_equal"]
    assert res["only_in_A"] and res["only_in_B"]
    RA, RB = set(ranking_pattern(A).rankings), set(ranking_pattern(B).rankings)
    assert {r for r, _, _ in res["only_in_A"]} == RA - RB
    assert {r for r, _, _ in res["only_in_B"]} == RB - RA
    for side, W in (("A", B), ("B", A)):  # the certificate refutes on the other side
        for ranking, witness, cert in res[f"only_in_{side}"]:
            assert ranking not in set(ranking_pattern(W).rankings)
            assert cert.multipliers


def test_theorem_h1_runner_json_contract():
    from verify.claims.theorem_h1 import run

    out = run(claim("theorem H.1"), SimpleNamespace(matrix=None))
    assert out.status == "verified"
    assert set(out.json) == {"claim", "sign_pattern_count", "only_in_A", "only_in_B"}
    assert out.json["sign_pattern_count"] == 20
    for ranking in out.json["only_in_A"] + out.json["only_in_B"]:
        assert sorted(ranking) == list(range(5))


def test_equal_configurations_give_no_difference():
    data = paper_example("theorem H.1")
    A = rational_matrix(data["A"])
    res = compare_configurations(A, A)
    assert not res["only_in_A"] and not res["only_in_B"]


# --- search --------------------------------------------------------------------------

def test_search_h1_finds_a_pair_with_four_points_and_none_with_three():
    pairs, _ = search_h1(4, 2, 1, limit=2)
    assert pairs
    for P, Q in pairs:
        assert is_h1_pair(P, Q)
        assert sign_pattern(affine(P)).patterns == sign_pattern(affine(Q)).patterns
        assert set(ranking_pattern(P).rankings) != set(ranking_pattern(Q).rankings)
    assert search_h1(3, 2, 1, limit=1)[0] == []


def test_search_55_finds_one_row_scalings():
    pairs, _ = search_55(3, 2, 2, limit=400)
    assert pairs
    assert all(is_55_pair(P, Q) for P, Q in pairs[:20])
    scaled = [(P, Q) for P, Q in pairs if sum(p != q for p, q in zip(P, Q)) == 1]
    assert scaled  # the structure of the theorem: one row rescaled
    for P, Q in scaled:
        (i,) = [k for k in range(3) if P[k] != Q[k]]
        # parallel, same direction
        assert P[i][0] * Q[i][1] == P[i][1] * Q[i][0]
        assert P[i][0] * Q[i][0] + P[i][1] * Q[i][1] > 0


def test_pair_checks_reject_non_pairs():
    P = [[0, 0], [1, 0], [0, 1], [1, 1]]
    assert not is_h1_pair(P, P)
    assert not is_55_pair(P[1:], P[1:])
    # equal rankings but different cosines: not a 5.5 pair either
    assert not is_55_pair([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [2, 1]])


def test_search_command_writes_checkable_certificates(tmp_path):
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root))

    def run(*args):
        return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True,
                              text=True, env=env)

    res = run("search", "theorem", "H.1", "--n", "4", "--box", "1", "--limit", "1",
              "--json", "--certificates", str(tmp_path))
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["claim"] == "theorem H.1" and len(out["pairs"]) == 1
    pair = out["pairs"][0]
    assert pair["only_in_P"] or pair["only_in_Q"]
    res = run("search", "theorem", "5.5", "--n", "3", "--box", "1", "--limit", "1",
              "--certificates", str(tmp_path))
    assert res.returncode == 0 and "1 pair found" in res.stdout
    files = sorted(tmp_path.glob("*.cert.json"))
    assert len(files) == 2
    check = run("check", *map(str, files))
    assert check.returncode == 0, check.stderr
    assert check.stdout.count(": OK (") == 2
    assert run("search", "theorem", "H.1", "--n", "3", "--box", "1").stdout.count("0 pairs found") == 1
