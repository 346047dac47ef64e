"""Lemma 5.3 and Theorem 5.6 as executable checks: they hold, and the check can fail."""

import json
import os
import subprocess
import sys
from itertools import product
from pathlib import Path

import pytest

from verify.claims import CLAIMS
from verify.claims import cosine_patterns
from verify.claims.cosine_patterns import check_matrix, chirotopes_agree
from verify.claims.families import (
    CONSTRUCTIONS,
    enumerated_matrices,
    exhaustive_matrices,
)
from verify.numbers.sqrt_sum import SqrtSum, cosine_matrix

ROOT = Path(__file__).resolve().parents[1]


def run(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True,
                          text=True, cwd=cwd, env=env)


def corrupt_one_entry(C):
    """The cosine matrix with one off-diagonal entry changed (not its mirror image)."""
    C = [list(row) for row in C]
    C[0][1] = C[0][1] + SqrtSum.rational(1) / 3
    return C


# --- the checks can fail ---------------------------------------------------------------

@pytest.mark.parametrize("claim,W", [
    ("lemma 5.3", [[1, 0], [0, 1], [1, 1], [2, -1]]),            # rank 2, four rows
    ("lemma 5.3", [[1, 2, 0], [0, 1, 1], [1, 0, -1], [2, 1, 1], [1, 1, 1]]),
    ("theorem 5.6", [[0, 0], [1, 0], [0, 1], [2, 3]]),
    ("theorem 5.6", [[0, 0, 1], [1, 0, 0], [0, 1, 2], [2, 3, 1], [1, 1, 1]]),
])
def test_corrupted_cosine_matrix_is_a_disagreement(claim, W):
    honest = check_matrix(claim, W)
    assert honest.status == "agree"
    broken = check_matrix(claim, W, cosine=lambda M: corrupt_one_entry(cosine_matrix(M)))
    assert broken.status == "disagree"
    assert set(broken.lhs) != set(broken.rhs)


def negate_row(C, r):
    """The cosine matrix with row ``r`` negated: ``S(D C) = D S(C)`` for the diagonal
    ``D`` flipping coordinate ``r``, so the count of cells is kept and the set is not."""
    return [[-a for a in row] if i == r else list(row) for i, row in enumerate(C)]


def flipped(patterns, r):
    return sorted(s[:r] + ("-" if s[r] == "+" else "+") + s[r + 1:] for s in patterns)


@pytest.mark.parametrize("claim,W,r", [
    ("lemma 5.3", [[1, 0], [0, 1], [1, 1], [2, -1]], 2),
    ("lemma 5.3", [[1, 2, 0], [0, 1, 1], [1, 0, -1], [2, 1, 1], [1, 1, 1]], 0),
    ("theorem 5.6", [[0, 0], [1, 0], [0, 1], [2, 3]], 1),
    ("theorem 5.6", [[0, 0, 1], [1, 0, 0], [0, 1, 2], [2, 3, 1], [1, 1, 1]], 4),
])
def test_corruption_keeping_the_number_of_cells_is_a_disagreement(claim, W, r):
    honest = check_matrix(claim, W)
    assert honest.status == "agree"
    broken = check_matrix(claim, W, cosine=lambda M: negate_row(cosine_matrix(M), r))
    # The cosine side is computed honestly from the corrupted matrix: D S(C(M)) ...
    assert broken.rhs == flipped(honest.rhs, r)
    # ... which has as many cells as S(M) but is another set.
    assert len(broken.rhs) == len(broken.lhs) and set(broken.rhs) != set(broken.lhs)
    assert broken.status == "disagree"


def test_disagreement_exits_1_and_writes_the_counterexample(tmp_path, monkeypatch, capsys):
    from verify.cli import main

    monkeypatch.setattr(cosine_patterns, "cosine_matrix",
                        lambda M: corrupt_one_entry(cosine_matrix(M)))
    path = tmp_path / "w.json"
    path.write_text("[[1, 0], [0, 1], [1, 1], [2, -1]]")
    code = main(["lemma", "5.3", "--matrix", str(path), "--json", "--output-dir",
                 str(tmp_path)])
    out = json.loads(capsys.readouterr().out)
    assert code == 1
    assert out["checked"] == 1 and out["agreed"] == 0
    written = json.loads(Path(out["counterexample"]).read_text())
    assert written["claim"] == "lemma 5.3"
    assert written["only in S(M)"] or written["only in S(C(M))"]


def test_chirotope_comparison_can_fail():
    W = [[1, 0], [0, 1], [1, 1]]
    assert chirotopes_agree(W, cosine_matrix(W))
    assert not chirotopes_agree(W, corrupt_one_entry(cosine_matrix(W)))


# --- the claims hold -----------------------------------------------------------------

@pytest.mark.parametrize("claim", ["lemma 5.3", "theorem 5.6"])
@pytest.mark.parametrize("n,d", [(3, 2), (4, 3), (5, 2), (4, 4)])
def test_claim_holds_on_the_default_family(claim, n, d):
    res = run(claim.split()[0], claim.split()[1], "--n", str(n), "--d", str(d),
              "--matrices", "40", "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    out = json.loads(res.stdout)
    assert set(out) == {"claim", "checked", "skipped", "agreed", "cells", "counterexample"}
    assert out["claim"] == claim and out["counterexample"] is None
    assert out["checked"] + out["skipped"] == 40
    assert out["agreed"] == out["checked"] > 0 and out["cells"] > 0


@pytest.mark.parametrize("claim", ["lemma 5.3", "theorem 5.6"])
@pytest.mark.parametrize("n,d", [(1, 2), (2, 2), (3, 2), (3, 3), (4, 2)])
def test_claim_holds_exhaustively_on_box_1(claim, n, d):
    res = run(*claim.split(), "--n", str(n), "--d", str(d), "--exhaustive", "--box", "1",
              "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    out = json.loads(res.stdout)
    assert out["agreed"] == out["checked"] > 0


def test_matrix_outside_the_hypotheses_is_skipped(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("1,2\n0,0\n1,2\n")
    lemma = json.loads(run("lemma", "5.3", "--matrix", str(path), "--json").stdout)
    assert (lemma["checked"], lemma["skipped"], lemma["agreed"]) == (0, 1, 0)
    theorem = json.loads(run("theorem", "5.6", "--matrix", str(path), "--json").stdout)
    assert (theorem["checked"], theorem["skipped"]) == (0, 1)
    text = run("theorem", "5.6", "--matrix", str(path)).stdout
    assert "two equal rows" in text


def test_single_matrix_json(tmp_path):
    path = tmp_path / "w.json"
    path.write_text('{"W": [["0.5", "1/3"], [2, -1], [0, 1], [-1, -1]]}')
    out = json.loads(run("theorem", "5.6", "--matrix", str(path), "--json").stdout)
    assert (out["checked"], out["agreed"], out["skipped"]) == (1, 1, 0)


# --- families ------------------------------------------------------------------------

def test_enumerated_family_is_deterministic_and_mixed():
    a = list(enumerated_matrices(5, 3, seed=4, count=40))
    b = list(enumerated_matrices(5, 3, seed=4, count=40))
    c = list(enumerated_matrices(5, 3, seed=5, count=40))
    assert a == b and a != c
    assert {kind for kind, _ in a} == set(CONSTRUCTIONS)
    for kind, W in a:
        assert len(W) == 5 and all(len(row) == 3 for row in W)
        if kind == "repeated rows":
            assert W[-1] == W[0]
        if kind == "a zero row":
            assert any(not any(row) for row in W)


@pytest.mark.parametrize("row_signs", [False, True])
def test_exhaustive_representatives_cover_every_matrix_once(row_signs):
    """Every 3 x 2 matrix over {-1,0,1} lies in the orbit of exactly one representative."""
    n, d = 3, 2
    reps = [tuple(map(tuple, W)) for W in exhaustive_matrices(n, d, 1, row_signs=row_signs)]
    maps = [((0, 1), s) for s in product((1, -1), repeat=2)] + \
           [((1, 0), s) for s in product((1, -1), repeat=2)]

    def canonical_orbit_key(W):
        images = []
        for perm, signs in maps:
            rows = [tuple(signs[j] * r[perm[j]] for j in range(d)) for r in W]
            if row_signs:
                rows = [tuple(-a for a in r) if next((a for a in r if a), 0) < 0 else r
                        for r in rows]
            images.append(tuple(sorted(rows)))
        return min(images)

    keys = [canonical_orbit_key(W) for W in reps]
    assert len(set(keys)) == len(keys)  # no two representatives share an orbit
    every = product(product((-1, 0, 1), repeat=d), repeat=n)
    assert {canonical_orbit_key(W) for W in every} == set(keys)  # every orbit is covered


# --- registry and CLI ----------------------------------------------------------------

def test_list_json_shows_the_registered_claims():
    out = json.loads(run("list", "--json").stdout)
    ids = [c["id"] for c in out]
    assert "lemma 5.3" in ids and "theorem 5.6" in ids
    assert all(c["statement"] for c in out)
    assert ids == list(CLAIMS)


def test_unknown_claim_is_one_line_listing_the_known_ones():
    res = run("theorem", "9.9")
    assert res.returncode == 2
    line, = res.stderr.strip().splitlines()
    assert "theorem 9.9" in line and "theorem 5.6" in line


def test_bad_sizes_are_refused():
    res = run("lemma", "5.3", "--n", "0")
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1
    res = run("lemma", "5.3", "--n", "9", "--d", "3", "--exhaustive", "--box", "3")
    assert res.returncode == 2
    assert "limit" in res.stderr and len(res.stderr.strip().splitlines()) == 1
