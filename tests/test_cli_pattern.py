"""`python -m verify pattern`: the JSON contract, readable output and bad input."""

import json
import os
import subprocess
import sys
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / "verify" / "data" / "paper_examples.json"  # bundled copy of the papers' data


def run(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True,
                          text=True, cwd=cwd, env=env)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def fr(text):
    return Fraction(text)


def assert_contract(out, kind, n, d, matrix, affine=False):
    """The documented JSON object, with every witness checked exactly here."""
    expected_keys = {"kind", "n", "d", "count", "patterns", "witnesses"}
    if kind == "ranking":
        expected_keys.add("rankings")
    assert set(out) == expected_keys
    assert out["kind"] == kind and out["n"] == n and out["d"] == d
    assert out["count"] == len(out["patterns"]) == len(out["witnesses"])
    assert out["patterns"] == sorted(out["patterns"])  # ASCII order, '+' < '-'
    assert len(set(out["patterns"])) == out["count"]
    rows = [[fr(a) for a in row] for row in matrix]
    if affine:
        rows = [[Fraction(1)] + row for row in rows]
    if kind == "ranking":
        rows = [[a - b for a, b in zip(rows[i], rows[j])]
                for i, j in combinations(range(n), 2)]
    for signs, witness in zip(out["patterns"], out["witnesses"]):
        assert all(isinstance(a, str) for a in witness)
        z = [fr(a) for a in witness]
        values = [sum(a * b for a, b in zip(row, z)) for row in rows]
        assert "".join("+" if v > 0 else "-" if v < 0 else "0" for v in values) == signs
    if kind == "ranking":
        assert len(out["rankings"]) == out["count"]
        for signs, ranking in zip(out["patterns"], out["rankings"]):
            assert sorted(ranking) == list(range(n))
            pos = {label: p for p, label in enumerate(ranking)}
            for (i, j), s in zip(combinations(range(n), 2), signs):
                assert (pos[i] < pos[j]) == (s == "+")


@pytest.mark.parametrize("kind", ["sign", "ranking"])
def test_json_contract_on_theorem_h1(kind):
    data = json.loads(SHARED.read_text())["theorem H.1"]
    for name in ("A", "B"):
        path = ROOT / "examples" / f"h1_{name}.json"
        res = run("pattern", "--matrix", str(path), "--kind", kind, "--affine", "--json")
        assert res.returncode == 0, res.stderr
        out = json.loads(res.stdout)
        assert_contract(out, kind, 5, 2, data[name], affine=True)
    if kind == "sign":
        a = json.loads(run("pattern", "--matrix", str(ROOT / "examples/h1_A.json"),
                           "--affine", "--json").stdout)
        b = json.loads(run("pattern", "--matrix", str(ROOT / "examples/h1_B.json"),
                           "--affine", "--json").stdout)
        assert a["count"] == b["count"] == 20 and a["patterns"] == b["patterns"]


@pytest.mark.parametrize("text,kind,n,d", [
    ("1 0 0\n0 1 0\n0 0 1\n1 1 1\n", "sign", 4, 3),             # generic
    ("1 1\n2 2\n-1 -1\n0 1\n", "sign", 4, 2),                     # parallel rows
    ("1 2 3\n2 4 6\n1 0 1\n", "sign", 3, 3),                      # rank deficient
    ("1 0 1 0 1\n0 1 0 1 1\n", "sign", 2, 5),                     # d > n
    ("0 0\n1 0\n0 1\n1 1\n2 2\n", "ranking", 5, 2),               # collinear points
    ("1,0,0\n0,1,0\n0,0,1\n1,1,0\n", "ranking", 4, 3),
    ("0.5 1/3\n-0.25 2\n1e-1 -1\n", "ranking", 3, 2),             # exact decimals
])
def test_json_contract_on_degenerate_input(tmp_path, text, kind, n, d):
    path = write(tmp_path, "m.txt", text)
    res = run("pattern", "--matrix", path, "--kind", kind, "--json")
    assert res.returncode == 0, res.stderr
    matrix = [line.replace(",", " ").split() for line in text.strip().splitlines()]
    assert_contract(json.loads(res.stdout), kind, n, d, matrix)


def test_zero_row_gives_empty_pattern_with_warning(tmp_path):
    path = write(tmp_path, "z.csv", "1,2\n0,0\n3,1\n")
    res = run("pattern", "--matrix", path, "--json")
    assert res.returncode == 0
    out = json.loads(res.stdout)
    assert out["count"] == 0 and out["patterns"] == [] and out["witnesses"] == []
    assert "row 1" in res.stderr and "warning" in res.stderr


def test_equal_labels_give_empty_ranking_pattern_with_warning(tmp_path):
    path = write(tmp_path, "e.json", '[[1, 2], [0, 1], ["1", "2"], [0.5, 1]]')
    res = run("pattern", "--matrix", path, "--kind", "ranking", "--json")
    assert res.returncode == 0
    out = json.loads(res.stdout)
    assert out["count"] == 0 and out["rankings"] == []
    assert "label 0" in res.stderr and "label 2" in res.stderr


def test_readable_table(tmp_path):
    path = write(tmp_path, "w.txt", "0 0\n1 0\n0 1\n")
    res = run("pattern", "--matrix", path, "--kind", "ranking")
    assert res.returncode == 0
    assert "6 feasible rankings" in res.stdout
    assert "0 > 1 > 2" in res.stdout


@pytest.mark.parametrize("name,text,problem", [
    ("ragged.csv", "1,2\n3\n", "row 1"),
    ("empty.json", "", "empty"),
    ("nan.txt", "1 nan\n", "nan"),
    ("inf.json", "[[1, Infinity]]", "Infinity"),
    ("text.csv", "a,b\n", "not a number"),
    ("zero.json", "[]", "no rows"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, name, text, problem):
    path = write(tmp_path, name, text)
    res = run("pattern", "--matrix", path)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert name in lines[0]
    assert problem.lower() in lines[0].lower()
    assert "Traceback" not in res.stderr


def test_missing_file():
    res = run("pattern", "--matrix", "does-not-exist.json")
    assert res.returncode == 2
    assert "does-not-exist.json" in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_methods_agree_through_the_cli(tmp_path):
    path = write(tmp_path, "w.txt", "1 0 2\n0 1 -1\n1 1 1\n2 -1 0\n")
    a = json.loads(run("pattern", "--matrix", path, "--kind", "ranking", "--json").stdout)
    b = json.loads(run("pattern", "--matrix", path, "--kind", "ranking", "--json",
                       "--method", "graph").stdout)
    assert a["patterns"] == b["patterns"] and a["rankings"] == b["rankings"]


def test_output_is_deterministic(tmp_path):
    path = write(tmp_path, "w.txt", "3 1 -2\n0 5 1\n-4 2 2\n1 1 1\n2 -3 0\n")
    outs = {run("pattern", "--matrix", path, "--kind", "ranking", "--json").stdout
            for _ in range(2)}
    assert len(outs) == 1


@pytest.mark.parametrize("args", [
    ["pattern", "--matrix", "{w}", "--certificate", "{missing}/c.json"],
    ["theorem", "5.6", "--n", "3", "--d", "2", "--matrices", "2", "--checkpoint",
     "{missing}/c.jsonl"],
    ["lemma", "5.3", "--matrix", "{w}", "--certificate", "{missing}/c.json"],
])
def test_unwritable_output_is_one_line_exit_2(tmp_path, args):
    w = write(tmp_path, "w.txt", "1 0\n0 1\n1 1\n")
    missing = str(tmp_path / "no" / "such" / "dir")
    res = run(*[a.format(w=w, missing=missing) for a in args])
    assert res.returncode == 2
    line, = res.stderr.strip().splitlines()
    assert missing in line and "Traceback" not in res.stderr
