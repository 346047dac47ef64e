"""The claims of Steck et al.: the checks hold, and each of them can fail."""

import json

import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs import matrix_factorisation as mf_proofs
from verify.claims import CLAIMS
from verify.claims.steck import (
    _K_R,
    cayley,
    check_eq1_closed_form,
    check_eq1_invariance,
    check_eq2_unique,
    check_full_rank,
    diag,
    equal,
    identity,
    mul,
    row_cosines,
    svd_instance,
    transpose,
)
from verify.cli import main
from verify.numbers.sqrt_sum import SqrtSum

IDS = ["steck eq1-invariance", "steck eq1-closed-form", "steck full-rank",
       "steck eq2-unique"]


@pytest.fixture(scope="module")
def eq1_instance():
    return svd_instance([3, 2, 1])


@pytest.fixture(scope="module")
def eq2_instance():
    return svd_instance([5, 3, fmpq(1, 2)])


# --- exact instances -----------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(st.lists(st.fractions(min_value=-5, max_value=5, max_denominator=7),
                min_size=3, max_size=3))
def test_cayley_transform_is_orthogonal(entries):
    a, b, c = (fmpq(x.numerator, x.denominator) for x in entries)
    Q = cayley([[0, a, b], [-a, 0, c], [-b, -c, 0]])
    assert equal(mul(transpose(Q), Q), identity(3))


def test_cayley_of_a_non_skew_matrix_is_not_orthogonal():
    Q = cayley([[0, 1, 0], [fmpq(1, 2), 0, 0], [0, 0, 0]])
    assert not equal(mul(transpose(Q), Q), identity(3))


def test_cosines_of_orthonormal_rows_are_the_identity(eq1_instance):
    assert equal(row_cosines(eq1_instance.V), identity(3))
    scaled = mul(eq1_instance.V, diag([SqrtSum.sqrt(2), 1, 3]))
    assert not equal(row_cosines(scaled), identity(3))


# --- each check can fail ---------------------------------------------------------------

def test_eq1_invariance_fails_for_a_non_diagonal_D(eq1_instance):
    shear = [[1, 1], [0, 1]]
    outcome = check_eq1_invariance(eq1_instance, 1, 2, [identity(2), shear])
    assert outcome.status == "refuted"
    failed = [s.description for s in outcome.steps if not s.holds]
    assert any("objective (1) unchanged" in d and d.startswith("D = ") for d in failed)
    assert any(d.startswith("symbolic, D = ") for d in failed)


def test_eq1_invariance_fails_for_a_singular_D(eq1_instance):
    outcome = check_eq1_invariance(eq1_instance, 1, 2, [identity(2), [[1, 0], [0, 0]]],
                                   symbolic=False)
    assert outcome.status == "refuted"
    assert any("invertible" in s.description and not s.holds for s in outcome.steps)


def test_eq1_invariance_fails_when_D_does_not_change_the_cosines(eq1_instance):
    # D = 3 I rescales every embedding by one positive factor: cosines stay the same
    outcome = check_eq1_invariance(eq1_instance, 1, 2, [identity(2), diag([3, 3])],
                                   symbolic=False)
    assert outcome.status == "refuted"
    assert sum(not s.holds for s in outcome.steps) == 3


def test_eq1_closed_form_fails_without_the_square(eq1_instance):
    def no_square(sigma, lam):
        return 1 / (1 + lam / sigma)

    outcome = check_eq1_closed_form(eq1_instance, 1, shrink=no_square)
    assert outcome.status == "refuted"
    failed = [s.description for s in outcome.steps if not s.holds]
    assert any("gradient" in d and d.startswith("k = p") for d in failed)
    assert any(d.startswith("symbolic: gradient of (1) vanishes") for d in failed)
    assert not mf_proofs.eq1_closed_form(shrink=no_square)[0][1]


def test_eq1_closed_form_fails_with_the_wrong_lambda(eq1_instance):
    # the closed form for lambda = 1 is not a minimiser for lambda = 2
    outcome = check_eq1_closed_form(eq1_instance, 2, symbolic=False,
                                    shrink=lambda s, lam: 1 / (1 + 1 / s ** 2))
    assert outcome.status == "refuted"


def test_full_rank_fails_with_the_wrong_D(eq1_instance):
    outcome = check_full_rank(eq1_instance, 1, root=lambda c: SqrtSum(c), symbolic=False)
    assert outcome.status == "refuted"
    failed = [s.description for s in outcome.steps if not s.holds]
    assert any("B^(D) = B D^-1 = V" in d for d in failed)
    assert any("identity" in d for d in failed)


def test_eq2_unique_fails_for_a_non_orthogonal_rotation(eq2_instance):
    shear = [[1, 1, 0], [0, 1, 0], [0, 0, 1]]
    outcome = check_eq2_unique(eq2_instance, 1, shear, diag([2, fmpq(1, 3), 5]),
                               symbolic=False)
    assert outcome.status == "refuted"
    failed = [s.description for s in outcome.steps if not s.holds]
    assert any("orthogonal" in d for d in failed)
    assert any(d.startswith("f2(A R, B R)") for d in failed)
    assert any("cosines invariant" in d for d in failed)


def test_eq2_unique_fails_when_the_rescaling_is_a_sign_change(eq2_instance):
    # D = diag(1, -1, 1) is orthogonal: (2) does not rise, so "no diagonal freedom" fails
    outcome = check_eq2_unique(eq2_instance, 1, cayley(_K_R), diag([1, -1, 1]),
                               symbolic=False)
    assert outcome.status == "refuted"
    assert [s.description for s in outcome.steps if not s.holds][0].startswith("D = ")


def test_rotation_proof_fails_for_a_non_orthogonal_R():
    facts = mf_proofs.eq2_rotation_invariance(R=[[1, 1], [0, 1]])
    assert [holds for _, holds in facts] == [False, False]
    assert not all(h for _, h in mf_proofs.eq1_rescaling_invariance(D=[[1, 1], [0, 1]]))


# --- the registered claims hold --------------------------------------------------------

@pytest.mark.parametrize("claim_id", IDS)
def test_claim_verified_from_the_command_line(claim_id, capsys):
    assert claim_id in CLAIMS
    code = main([*claim_id.split(maxsplit=1), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["claim"] == claim_id and out["status"] == "verified"
    assert len(out["steps"]) >= 5 and out["evidence"]


def test_steck_claims_refuse_a_matrix_file(tmp_path, capsys):
    path = tmp_path / "x.json"
    path.write_text("[[1, 2], [3, 4]]")
    assert main(["steck", "eq2-unique", "--matrix", str(path)]) == 2
    assert "--matrix is not supported" in capsys.readouterr().err


def test_eq2_unique_fails_for_a_singular_rescaling(eq2_instance):
    outcome = check_eq2_unique(eq2_instance, 1, cayley(_K_R), diag([1, 0, 1]),
                               symbolic=False)
    assert outcome.status == "refuted"
    assert any("diagonal and invertible" in s.description and not s.holds
               for s in outcome.steps)


def test_full_rank_fails_without_crashing_when_norms_become_irrational(eq1_instance):
    outcome = check_full_rank(eq1_instance, 1, root=lambda c: SqrtSum(c) + SqrtSum.sqrt(2),
                              symbolic=False)
    assert outcome.status == "refuted"
