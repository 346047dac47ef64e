"""The public API of ``verify`` (docs/api.md): lazy exports, array inputs read exactly,
results equal to the command line's JSON, and every docstring example run as a test."""

import doctest
import importlib
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import verify
from isolation import BLOCKED

ROOT = Path(__file__).resolve().parents[1]
H1_A = [[0, 0], [2, 0], [0, 2], [3, 3]]


def _modules_with_examples():
    names = []
    for path in sorted((ROOT / "verify").rglob("*.py")):
        if ">>>" in path.read_text(encoding="utf-8"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            names.append(".".join(parts))
    return names


@pytest.mark.parametrize("name", _modules_with_examples())
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


@pytest.mark.parametrize("name", ["verify", "verify.api"])
def test_the_public_api_has_examples(name):
    assert doctest.testmod(importlib.import_module(name)).attempted >= 3


def test_every_export_resolves():
    for name in verify.__all__:
        assert getattr(verify, name) is not None, name
    assert set(verify.__all__) <= set(dir(verify))
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        verify.nonsense


def _cli_json(tmp_path, W, *args):
    path = tmp_path / "W.json"
    path.write_text(json.dumps(W))
    run = subprocess.run([sys.executable, "-m", "verify", "pattern", "--matrix", str(path),
                          "--json", *args], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_to_json_is_the_command_lines_json(tmp_path):
    W = [[1, 0], [0, 1], [1, 1], [-1, 2]]
    assert verify.sign_pattern(W).to_json() == _cli_json(tmp_path, W)
    assert verify.ranking_pattern(W).to_json() == _cli_json(tmp_path, W, "--kind", "ranking")
    assert verify.ranking_pattern(H1_A, affine=True).to_json() == _cli_json(
        tmp_path, H1_A, "--kind", "ranking", "--affine")


class _Tensor:
    """Stands for a tensor library's array: only ``__array__``."""

    def __init__(self, rows):
        self.rows = rows

    def __array__(self, dtype=None, copy=None):
        return np.array(self.rows, dtype=dtype)


def _fraction(q) -> Fraction:
    return Fraction(int(q.p), int(q.q))


def test_arrays_are_read_exactly():
    exact = [[Fraction(1, 10), 0], [0, 1], [Fraction(1, 3), Fraction(-1, 2)]]
    floats = [[0.1, 0.0], [0.0, 1.0], [1 / 3, -0.5]]
    expected = verify.sign_pattern([[Fraction(x) for x in row] for row in floats])
    for M in (np.array(floats), _Tensor(floats), floats):
        assert verify.sign_pattern(M).to_json() == expected.to_json()
    single = np.array(floats, dtype=np.float32)  # other binary values: other witnesses
    assert _fraction(verify.exact_matrix(single)[2][0]) == Fraction(float(np.float32(1 / 3)))
    assert verify.sign_pattern(single).patterns == expected.patterns
    # 0.1 as a float64 is not 1/10: the matrices differ, and so may their witnesses,
    # but their sign patterns agree here, and the entries are the binary values
    assert _fraction(verify.exact_matrix(np.array(floats))[0][0]) == Fraction(0.1)
    assert _fraction(verify.exact_matrix(np.array(floats))[0][0]) != Fraction(1, 10)
    assert verify.sign_pattern(exact).patterns == expected.patterns
    ints = np.array([[1, 0], [0, 1], [-1, 0]], dtype=np.int16)
    assert verify.ranking_pattern(ints).rankings == verify.ranking_pattern(
        ints.tolist()).rankings


@pytest.mark.parametrize("bad, problem", [
    ([[1, 0], [1]], "ragged"),
    ([], "at least one row"),
    ([[float("nan"), 1]], "finite"),
    ([["1/0", 1]], "zero denominator"),
    (np.zeros((2, 2, 2)), "2 dimensions"),
    (np.array([["a", "b"]]), "not numbers"),
])
def test_bad_matrices_are_refused(bad, problem):
    with pytest.raises(ValueError, match=problem):
        verify.exact_matrix(bad)
    with pytest.raises(TypeError, match="not an exact number"):
        verify.exact_matrix([[object()]])


@pytest.mark.parametrize("bad, problem", [
    ([1, 2, 3], "a list of rows.*a row 1"),
    ((0.5, 1.5), "a list of rows.*a row 0.5"),
    (["12", "34"], "a list of rows.*a row '12'"),
    ("12", "a list of rows.*got str"),
    (7, "a list of rows.*got int"),
    ([[[1, 2]], [[3, 4]]], "2 dimensions"),
])
def test_what_is_not_a_matrix_is_a_value_error(bad, problem):
    for function in (verify.exact_matrix, verify.sign_pattern, verify.ranking_pattern):
        with pytest.raises(ValueError, match=problem):
            function(bad)


def test_rows_may_be_any_iterables():
    assert str(verify.exact_matrix(((1, 2), iter([3, "1/2"])))) == "[[1, 2], [3, 1/2]]"
    assert verify.exact_matrix(iter([np.array([1, 0]), np.array([0, 1])])) == [[1, 0], [0, 1]]


def test_a_file_that_is_no_certificate_is_a_certificate_error(tmp_path):
    for name, data in [("notes.md", b"# a heading\n"), ("latin1.json", b"\xff\xfe{"),
                       ("archive.zip", b"PK\x03\x04 not really"), ("empty.json", b"")]:
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(verify.CertificateError, match="not a certificate"):
            verify.check_certificate(path)
    with pytest.raises(verify.CertificateError, match="unknown format"):
        verify.check_certificate({"format": "something else"})
    with pytest.raises(FileNotFoundError):
        verify.check_certificate(tmp_path / "missing.json")


def test_results_read_well():
    S = verify.sign_pattern([[1, 0], [0, 1], [1, 1], [-1, 2]])
    assert repr(S) == ("SignPattern(4 x 2 matrix, rank 2, 4 hyperplanes, 8 cells: "
                       f"{', '.join(S.patterns[:4])}, ...)")
    assert repr(verify.sign_pattern([[0, 0], [1, 1]])).endswith(", 0 cells: )")
    assert repr(verify.ranking_pattern([[1, 0], [0, 1]])) == (
        "RankingPattern(2 labels, d = 2, 2 rankings: 0 > 1, 1 > 0)")
    head = verify.analyze_head(np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.2, 0.2]]))
    assert repr(head) == ("HeadAnalysis(4 labels, d = 2: 3 argmaxable, unargmaxable [3], "
                          "3 tie pairs)")  # the edges of the triangle
    assert head.to_json()["unargmaxable"] == [3]


def test_cosine_matrix_and_analyze_take_square_roots():
    C = verify.cosine_matrix(np.array([[1, 0], [1, 1]]))
    assert str(C[0][1]) == "sqrt(2)/2" and C[0][0] == 1
    head = verify.analyze_head([["5*sqrt(2)/2", "5*sqrt(2)/2"], [5, 0], [0, 5],
                                ["3", "3"]])  # inside the triangle of the others
    assert head.argmax.unargmaxable == [3]


def test_check_claim_and_check_certificate(tmp_path):
    outcome = verify.check_claim("theorem 5.5")
    assert outcome.holds and outcome.to_json()["status"] == "verified"
    path = tmp_path / "t55.json"
    path.write_text(json.dumps(outcome.certificate))
    assert verify.check_certificate(str(path)).startswith("theorem 5.5, C(W1) = C(W2)")
    assert verify.check_certificate(outcome.certificate) == verify.check_certificate(path)
    outcome.certificate["input"]["label"] = 3
    with pytest.raises(verify.CertificateError):
        verify.check_certificate(outcome.certificate)
    with pytest.raises(verify.InputError, match="unknown claim"):
        verify.check_claim("theorem 9.9")
    with pytest.raises(TypeError, match="unknown option colour"):
        verify.check_claim("theorem 5.5", colour=1)


def test_import_verify_and_check_need_only_the_standard_library(tmp_path):
    """With the engine's libraries unimportable, ``import verify`` and
    ``verify.check_certificate`` work and import nothing outside the standard library;
    an engine function fails only when it is used."""
    from verify.certificates.writers import pattern_certificate, write_certificate

    cert = tmp_path / "c.json"
    write_certificate(cert, pattern_certificate(H1_A, kind="sign", affine=True))
    stubs = tmp_path / "stubs"
    for name in BLOCKED:
        (stubs / name).mkdir(parents=True)
        (stubs / name / "__init__.py").write_text('raise ImportError("blocked")\n')
    script = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import verify\n"
        "print(verify.check_certificate(sys.argv[1]))\n"
        "outside = sorted(m for m in set(sys.modules) - before\n"
        "                 if m.split('.')[0] not in sys.stdlib_module_names\n"
        "                 and m.split('.')[:2] not in (['verify'], ['verify', 'checker'],\n"
        "                                              ['verify', 'api'], ['verify', 'io']))\n"
        "print('outside:', outside)\n"
        "try:\n"
        "    verify.sign_pattern([[1]])\n"
        "except ImportError:\n"
        "    print('engine blocked')\n")
    run = subprocess.run([sys.executable, "-c", script, str(cert)], capture_output=True,
                         text=True, cwd=tmp_path,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(stubs),
                                                                          str(ROOT)])))
    assert run.returncode == 0, run.stderr
    summary = verify.check_certificate(cert)  # here, with the engine importable
    assert summary.startswith("sign pattern, ")
    assert run.stdout.splitlines() == [summary, "outside: []", "engine blocked"]
