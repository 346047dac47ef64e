"""Lemmas 3.1-3.3, Theorem 3.4 and App. D: the checks hold, and each of them can fail."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from flint import fmpq

from proofs import cosine as cosine_proofs
from proofs import softmax as softmax_proofs
from verify.claims import CLAIMS
from verify.claims.translation import (
    EXAMPLE_C1,
    _inputs,
    check_appendix_d,
    check_lemma_3_1,
    check_lemma_3_2,
    check_lemma_3_3,
    check_theorem_3_4,
    cosine_is,
    paper_models,
)
from verify.cli import main
from verify.numbers.rational import parse_rational

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / "verify" / "data" / "paper_examples.json"
IDS = ["lemma 3.1", "lemma 3.2", "lemma 3.3", "theorem 3.4", "appendix D"]


def q(*values):
    return [fmpq(v) if not isinstance(v, str) else parse_rational(v) for v in values]


def translate_first_row_only(rows, u):
    return [[a + b for a, b in zip(rows[0], u)]] + [list(r) for r in rows[1:]]


# --- the exact cosine criterion ------------------------------------------------------

def test_cosine_criterion():
    assert cosine_is(q(1, 2), q(-2, -4), -1)[0]
    assert cosine_is(q(1, 2), q(3, 6), 1)[0]
    assert not cosine_is(q(1, 2), q(3, 6), -1)[0]
    assert not cosine_is(q(1, 2), q(3, 7), 1)[0]            # almost parallel is not parallel
    assert not cosine_is(q(0, 0), q(1, 1), 1)[0]            # no cosine for a zero vector
    assert not cosine_is(q(1, 0), q(0, 1), 1)[0]


# --- each check can fail -----------------------------------------------------------------

def test_lemma_3_1_fails_when_only_some_rows_move():
    outcome = check_lemma_3_1(EXAMPLE_C1, [q("1/2", -3)], _inputs(2),
                              translate=translate_first_row_only, symbolic=False)
    assert outcome.status == "refuted"
    symbolic = softmax_proofs.translation_invariance(translate=translate_first_row_only)
    assert not any(holds for _, holds in symbolic)
    assert not softmax_proofs.logit_differences_invariance(
        translate=translate_first_row_only)[0][1]


def test_lemma_3_1_symbolic_and_exact_hold():
    outcome = check_lemma_3_1(EXAMPLE_C1, [q("1/2", -3), q(0, 0)], _inputs(2))
    assert outcome.status == "verified"
    assert len(outcome.steps) == 3


def wrong_half(vi, vj):
    return [-(a + b) / 3 for a, b in zip(vi, vj)]


def test_lemma_3_2_fails_with_a_wrong_u():
    pairs = [(EXAMPLE_C1[0], EXAMPLE_C1[1]), (q(1, 0, 2), q(0, -1, 1))]
    assert check_lemma_3_2(pairs, symbolic=False).status == "verified"
    outcome = check_lemma_3_2(pairs, construction=wrong_half)
    assert outcome.status == "refuted"
    assert not any(s.holds for s in outcome.steps if s.description.startswith("exact"))


def test_lemma_3_3_fails_with_a_wrong_u():
    pairs = [(EXAMPLE_C1[0], EXAMPLE_C1[1])]
    # Lemma 3.2's u gives cosine -1, not +1
    outcome = check_lemma_3_3(pairs, construction=cosine_proofs.lemma_3_2_translation)
    assert outcome.status == "refuted"
    assert check_lemma_3_3(pairs, construction=wrong_half, symbolic=False).status == "refuted"


def test_lemma_3_3_covers_equal_vectors():
    pairs = [(q(0, 0), q(0, 0)), (q(2, -1), q(2, -1)), (q(1, 2), q(3, 4))]
    outcome = check_lemma_3_3(pairs, symbolic=False)
    assert outcome.status == "verified"
    assert "2 such pairs" in outcome.steps[-1].description


def test_lemma_3_2_without_any_admissible_pair_is_not_verified():
    assert check_lemma_3_2([(q(1, 1), q(1, 1))], symbolic=False).status == "refuted"


def test_theorem_3_4_fails_for_a_perturbed_model():
    def perturbed(W, i, j):
        minus, plus = paper_models(W, i, j)
        minus[3] = [minus[3][0] + fmpq(1, 100), minus[3][1]]    # one other label moved
        return minus, plus

    W = EXAMPLE_C1
    outcome = check_theorem_3_4(W, 0, 1, _inputs(2), models=perturbed, symbolic=False)
    assert outcome.status == "refuted"
    failed = [s.description for s in outcome.steps if not s.holds]
    assert failed and all(d.startswith("model -") for d in failed)
    # the cosines of the pair are untouched by that perturbation, only equivalence broke
    assert any("cos(w'_0, w'_1) = -1" in s.description and s.holds for s in outcome.steps)


def test_theorem_3_4_fails_when_the_pair_is_not_made_antiparallel():
    def scaled(W, i, j):
        minus, plus = paper_models(W, i, j)
        return [[2 * a for a in row] for row in minus], plus   # not a translation of W

    outcome = check_theorem_3_4(EXAMPLE_C1, 0, 1, _inputs(2), models=scaled, symbolic=False)
    assert outcome.status == "refuted"


def test_theorem_3_4_on_other_matrices_and_pairs():
    W = [q(0, 0, 1), q(3, -1, "1/2"), q(-2, 5, 0), q(1, 1, 1)]
    for i, j in [(0, 1), (3, 2), (1, 3)]:
        assert check_theorem_3_4(W, i, j, _inputs(3), symbolic=False).status == "verified"


def test_appendix_d_fails_when_the_scaling_keeps_distances():
    for c in (fmpq(1), fmpq(-1)):
        outcome = check_appendix_d(EXAMPLE_C1, 0, 1, _inputs(2), c=c, symbolic=False)
        assert outcome.status == "refuted"
        assert not outcome.steps[-1].holds


def test_appendix_d_fails_when_embeddings_are_not_rescaled():
    outcome = check_appendix_d(EXAMPLE_C1, 0, 1, _inputs(2), embedding_scale=lambda c: 1)
    assert outcome.status == "refuted"
    failed = [s.description for s in outcome.steps if not s.holds]
    assert any("every logit" in d for d in failed)
    assert any(d.startswith("symbolic: (c w_i)") for d in failed)


def test_cosine_proofs_fail_for_wrong_constructions():
    assert not all(h for _, h in cosine_proofs.lemma_3_2_construction(construction=wrong_half))
    assert not all(h for _, h in cosine_proofs.lemma_3_3_construction(
        construction=cosine_proofs.lemma_3_2_translation))


# --- the registered claims hold --------------------------------------------------------

def test_example_c1_matches_the_shared_data():
    if not SHARED.exists():
        pytest.skip("shared paper data not present")
    data = json.loads(SHARED.read_text())["example C.1"]
    assert [[parse_rational(a) for a in row] for row in data["W"]] == EXAMPLE_C1
    assert tuple(data["pair"]) == (0, 1)


@pytest.mark.parametrize("claim_id", IDS)
def test_claim_verified_from_the_command_line(claim_id, capsys):
    assert claim_id in CLAIMS
    code = main([*claim_id.split(maxsplit=1), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["claim"] == claim_id and out["status"] == "verified"
    assert len(out["steps"]) >= 3 and out["evidence"]


def test_theorem_3_4_with_a_matrix_file_and_labels(tmp_path):
    path = tmp_path / "w.json"
    path.write_text('[[1, 2, 0], [0, 1, 1], ["1/3", -1, 2], [2, 2, 2]]')
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-m", "verify", "theorem", "3.4", "--matrix",
                             str(path), "--labels", "2", "3", "--json"],
                            capture_output=True, text=True, env=env, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["status"] == "verified"
    assert "labels 2, 3" in out["evidence"]


@pytest.mark.parametrize("rows,labels,message", [
    ("[[1, 2], [3, 4]]", ["0", "0"], "two different labels"),
    ("[[1, 2], [3, 4]]", ["0", "2"], "labels are numbered 0..1"),
    ("[[1, 2], [1, 2], [0, 1]]", ["0", "1"], "w_0 = w_1"),
])
@pytest.mark.parametrize("claim", [["theorem", "3.4"], ["appendix", "D"]])
def test_unusable_pairs_are_refused_with_one_line(tmp_path, capsys, rows, labels, message,
                                                  claim):
    path = tmp_path / "w.json"
    path.write_text(rows)
    code = main([*claim, "--matrix", str(path), "--labels", *labels])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.count("\n") == 1


def test_lemma_3_2_refuses_equal_rows_and_lemma_3_3_accepts_them(tmp_path, capsys):
    path = tmp_path / "w.json"
    path.write_text("[[1, 2], [1, 2], [0, 5]]")
    assert main(["lemma", "3.2", "--matrix", str(path), "--labels", "0", "1"]) == 2
    assert "needs v_i != v_j" in capsys.readouterr().err
    assert main(["lemma", "3.3", "--matrix", str(path), "--labels", "0", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "verified"
