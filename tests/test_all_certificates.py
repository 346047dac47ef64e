"""``python -m verify all --certificates DIR``: one certificate per claim, all checked
by the standard-library checker.

Two runs of the real command line (side by side, in two processes) must write the
same 17 files byte for byte; ``verify.checker.core.main`` must accept every file, also with
the engine's libraries blocked; changing one number of any certificate must be caught,
and so must a sweep certificate that drops a matrix's evidence or skips a matrix that
is inside the claim's hypothesis.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import pytest

from isolation import run_checker_without_engine
from verify.checker.core import CertificateError, check_certificate, load_certificate, main
from verify.claims.registry import CLAIMS

ROOT = Path(__file__).resolve().parents[1]
NAMES = {claim: f"{claim.replace(' ', '-')}.cert.json" for claim in CLAIMS}
SWEEPS = ("lemma 5.3", "theorem 5.6", "proposition E.2")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The certificate directories of two runs of ``python -m verify all``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    places = [tmp_path_factory.mktemp(f"run{k}") for k in (1, 2)]
    processes = [subprocess.Popen([sys.executable, "-m", "verify", "all", "--certificates",
                                   str(place / "certs")], cwd=place, env=env, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for place in places]
    for process in processes:
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, out + err
        assert "17 of 17 claims verified" in out
    return [place / "certs" for place in places]


def certificate(runs, claim) -> dict:
    return load_certificate(runs[0] / NAMES[claim])


def test_one_certificate_per_claim(runs):
    assert len(CLAIMS) == 17
    assert sorted(p.name for p in runs[0].iterdir()) == sorted(NAMES.values())
    for claim, name in NAMES.items():
        assert load_certificate(runs[0] / name)["claim"] == claim


def test_checker_main_accepts_every_certificate(runs, capsys):
    files = [str(runs[0] / name) for name in NAMES.values()]
    assert main(files) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(": OK (")[0] for line in lines] == files


def test_certificates_are_byte_identical_across_runs(runs):
    for name in NAMES.values():
        assert (runs[0] / name).read_bytes() == (runs[1] / name).read_bytes(), name


def test_checked_without_the_engine(runs, tmp_path):
    files = [runs[0] / name for name in NAMES.values()]
    run = run_checker_without_engine(tmp_path, *files)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "outside: []"
    assert sum(": OK (" in line for line in run.stdout.splitlines()) == 17


def test_python_m_verify_checker_knows_every_claim(runs):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    files = [str(runs[0] / NAMES[claim]) for claim in ("example C.2", "lemma 5.3")]
    run = subprocess.run([sys.executable, "-m", "verify.checker", *files], env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "example C.2: 3 cosines as the paper states" in run.stdout
    assert "lemma 5.3 on 8 matrices (the first 8 of 120 enumerated" in run.stdout


# --- tampering ---------------------------------------------------------------------------

#: Per claim, places of one number whose change the checker must notice.
TAMPER = {
    "lemma 3.1": [("assertion", "shifts", 1, 3)],
    "lemma 3.2": [("evidence", "translations", 5, 0), ("input", "pairs", 7, 1, 0)],
    "lemma 3.3": [("evidence", "translations", 5, 1)],
    "theorem 3.4": [("evidence", "W_minus", 2, 0), ("input", "W", 1, 1)],
    "appendix D": [("assertion", "dots", 0), ("assertion", "normalised_distances", 1),
                   ("assertion", "distances_squared", 1), ("evidence", "W_plus", 4, 1)],
    "proposition E.2": [("evidence", "results", 1, "evidence", "refutations", 0,
                         "multipliers", 0, 1)],
    "lemma 5.3": [("evidence", "results", 0, "evidence", "matrix", "refutations", 0,
                   "multipliers", 0, 1), ("input", "matrices", 2, 0, 0)],
    "theorem 5.5": [("evidence", "multipliers", 1, 1)],
    "theorem 5.6": [("evidence", "results", 0, "evidence", "cosine", "refutations", 0,
                     "multipliers", 1, 1)],
    "theorem H.1": [("evidence", "only_in_A", 0, "multipliers", 0, 1)],
    "example C.1": [("evidence", "translations", "lemma 3.3", 0),
                    ("assertion", "cosines", 0, "cosine")],
    "example C.2": [("evidence", "no_ties", 0, "t"), ("assertion", "cosines", 1, "cosine"),
                    ("evidence", "between", 0), ("input", "W", 2, 1)],
    "example C.3": [("evidence", "no_ties", 0, "multipliers", 0, 1),
                    ("assertion", "cosines", 0, "cosine")],
    "steck eq1-invariance": [("evidence", "D_inv", 1, 0, 0), ("assertion", "objective")],
    "steck eq1-closed-form": [("evidence", "roots", 2), ("assertion", "objective_k"),
                              ("input", "X", 0, 0)],
    "steck full-rank": [("evidence", "inverse_roots", 0), ("assertion", "c", 1)],
    "steck eq2-unique": [("input", "R", 0, 0), ("evidence", "b", 1),
                         ("assertion", "increase")],
}


def test_tamper_table_covers_every_claim():
    assert set(TAMPER) == set(CLAIMS)


def _bumped(value: str) -> str:
    """Another exact number: the rational plus 1, or the sum of square roots plus 1."""
    try:
        return str(Fraction(value) + 1)
    except ValueError:
        return value + " + 1"


@pytest.mark.parametrize("claim, path", [(claim, path) for claim, paths in TAMPER.items()
                                         for path in paths],
                         ids=lambda value: (value if isinstance(value, str)
                                            else ".".join(map(str, value))))
def test_changing_one_number_is_rejected(runs, claim, path):
    cert = certificate(runs, claim)
    *parents, last = path
    holder = cert
    for key in parents:
        holder = holder[key]
    holder[last] = _bumped(holder[last])
    with pytest.raises(CertificateError):
        check_certificate(cert)


@pytest.mark.parametrize("claim", SWEEPS)
def test_sweep_without_a_matrix_evidence_is_rejected(runs, claim):
    cert = certificate(runs, claim)
    assert check_certificate(copy.deepcopy(cert)).startswith(f"{claim} on 8 matrices")
    del cert["evidence"]["results"][3]
    with pytest.raises(CertificateError, match="evidence.results: expected 8 entries"):
        check_certificate(cert)


@pytest.mark.parametrize("claim", SWEEPS)
def test_sweep_counts_must_match(runs, claim):
    cert = certificate(runs, claim)
    cert["assertion"]["cells"] += 1
    with pytest.raises(CertificateError, match="assertion.cells"):
        check_certificate(cert)


WRONG_SKIPS = {"lemma 5.3": {"skipped": "a zero row", "rows": [0]},
               "theorem 5.6": {"skipped": "two equal rows", "rows": [0, 1]},
               "proposition E.2": {"skipped": "a zero row", "rows": [0]}}


@pytest.mark.parametrize("claim", SWEEPS)
def test_sweep_skipping_a_matrix_inside_the_hypothesis_is_rejected(runs, claim):
    cert = certificate(runs, claim)
    result = cert["evidence"]["results"][0]
    cert["assertion"]["checked"] -= 1
    cert["assertion"]["skipped"] += 1
    cert["assertion"]["cells"] -= result["assertion"]["count"]
    cert["evidence"]["results"][0] = WRONG_SKIPS[claim]
    with pytest.raises(CertificateError, match="wrongly skipped|no matrix is skipped"):
        check_certificate(cert)


@pytest.mark.parametrize("claim, reason", [("lemma 5.3", "a zero row"),
                                           ("theorem 5.6", "two equal rows")])
def test_sweep_skips_are_reverified(runs, claim, reason):
    cert = certificate(runs, claim)
    results, matrices = cert["evidence"]["results"], cert["input"]["matrices"]
    k = next(k for k, r in enumerate(results) if "skipped" in r)
    assert results[k]["skipped"] == reason
    assert f"1 skipped (1 with {reason})" in check_certificate(copy.deepcopy(cert))
    # The same skip on a matrix inside the hypothesis: the first one checked.
    matrices[k] = matrices[0]
    with pytest.raises(CertificateError, match="wrongly skipped"):
        check_certificate(cert)


def test_a_matrix_outside_the_hypothesis_cannot_be_checked(runs):
    cert = certificate(runs, "lemma 5.3")
    matrices = cert["input"]["matrices"]
    k = next(k for k, r in enumerate(cert["evidence"]["results"]) if "skipped" in r)
    matrices[0] = matrices[k]  # a zero row, with the evidence of another matrix
    with pytest.raises(CertificateError, match="matrix 0: input.W: row .* is zero"):
        check_certificate(cert)


def test_sweep_certificate_only_when_asked():
    from verify.claims.sweep import run_cosine_claim

    options = SimpleNamespace(n=3, d=2, seed=0, matrices=4, exhaustive=False, box=1,
                              matrix=None, quiet=True, output_dir=".", jobs=1,
                              scheduler=None, checkpoint=None, shard=None, merge=None)
    claim = CLAIMS["theorem 5.6"]
    assert run_cosine_claim(claim, options).certificate is None
    report = run_cosine_claim(claim, SimpleNamespace(**vars(options), certificate_matrices=2))
    assert report.certificate_builder is not None
    cert = report.certificate
    assert cert["input"]["family"] == ("the first 2 of 4 enumerated 3 x 2 integer matrices "
                                       "(seed 0)")
    assert check_certificate(json.loads(json.dumps(cert))).startswith(
        "theorem 5.6 on 2 matrices")
