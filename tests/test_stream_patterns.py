"""Streamed patterns: the buckets against the whole-pattern engine and the LP method, the
output formats against each other and against the --json contract, determinism across
runs and --jobs, counts against Zaslavsky's formula, bad options."""

import io
import json
import os
import subprocess
import sys
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verify.arrangement import ranking_pattern, sign_pattern
from verify.arrangement.ranking_pattern import braid_product
from verify.arrangement.stream import (
    _plan,
    bucket_topes,
    count_cells,
    reduce_matrix,
    sign_pattern_blocks,
)
from verify.arrangement.zaslavsky import cell_count
from verify.arrangement.cocircuits import cocircuits
from verify.io.pattern_output import rankings_of, write_json

ROOT = Path(__file__).resolve().parents[1]


def run(*args):
    """The command line in a fresh process (for exit codes and stderr)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True,
                          env=env)


@pytest.fixture
def cli(capsysbinary):
    """The command line in this process: ``cli(*args) -> stdout bytes`` (exit code 0)."""
    from verify.cli import main

    def call(*args):
        assert main(list(args)) == 0
        return capsysbinary.readouterr().out
    return call


def text(signs_row) -> str:
    return "".join("+" if s > 0 else "-" for s in signs_row)


def streamed(M, **options):
    blocks = list(sign_pattern_blocks(M, **options))
    patterns = [text(row) for signs, _ in blocks for row in signs]
    witnesses = [tuple(int(a) for a in row) for _, Z in blocks for row in Z]
    return patterns, witnesses


matrices = st.integers(1, 7).flatmap(lambda n: st.integers(1, 4).flatmap(
    lambda d: st.lists(st.lists(st.integers(-3, 3), min_size=d, max_size=d),
                       min_size=n, max_size=n)))


@settings(max_examples=40, deadline=None)
@given(matrices, st.integers(1, 64), st.booleans())
def test_buckets_give_the_cells_and_witnesses_of_the_whole_engine(W, budget, ranking):
    M = braid_product(W) if ranking and len(W) > 1 else W
    whole = sign_pattern(M)
    patterns, witnesses = streamed(M, budget=budget)
    assert patterns == whole.patterns
    assert witnesses == [tuple(int(a) for a in c.witness) for c in whole.cells]


small = st.integers(1, 5).flatmap(lambda n: st.integers(1, 3).flatmap(
    lambda d: st.lists(st.lists(st.integers(-2, 2), min_size=d, max_size=d),
                       min_size=n, max_size=n)))


@settings(max_examples=20, deadline=None)
@given(small)
def test_streamed_cells_equal_the_lp_method_as_sets(W):
    M = braid_product(W) if len(W) > 1 else W
    patterns, witnesses = streamed(M, budget=8)
    assert set(patterns) == set(sign_pattern(M, method="graph").patterns)
    assert len(set(patterns)) == len(patterns)
    # every witness realises its signs (exactly, in integers)
    A = np.array(reduce_matrix(M).ints, dtype=object)
    for signs, z in zip(patterns, witnesses):
        if A.size:
            assert text(np.sign(A.dot(np.array(z, dtype=object)))) == signs


@settings(max_examples=25, deadline=None)
@given(matrices)
def test_counts_agree_with_zaslavsky(W):
    M = braid_product(W) if len(W) > 1 else W
    R = reduce_matrix(M)
    if R.zero_rows or not R.rows:
        assert count_cells(M) == 0
        return
    assert count_cells(M, budget=5) == cell_count(R.H) == sign_pattern(M).count


def test_zaslavsky_gives_up_beyond_its_limit():
    H = reduce_matrix(braid_product([[1, 2, 3], [0, 1, -1], [2, 0, 1], [1, 1, 1],
                                     [3, -1, 0]])).H
    assert cell_count(H) == sign_pattern(braid_product(
        [[1, 2, 3], [0, 1, -1], [2, 0, 1], [1, 1, 1], [3, -1, 0]])).count
    assert cell_count(H, max_flats=5) is None


def test_the_plan_splits_to_the_budget_and_partitions_the_cells():
    W = np.random.default_rng(0).integers(-5, 6, size=(6, 3)).tolist()
    R = reduce_matrix(braid_product(W))
    Y, V = cocircuits(R.H)
    plan = list(_plan(Y, R.H.shape[1], 30))
    assert len(plan) > 4
    prefixes = [p for p, _, _ in plan]
    assert prefixes == sorted(prefixes, key=lambda p: [-s for s in p])  # '+' first
    for a, b in combinations(prefixes, 2):   # prefix-free: the buckets are disjoint
        assert a != b[:len(a)] and b != a[:len(b)]
    found = []
    for prefix, idx, sigma in plan:
        T, _ = bucket_topes(R.H, Y[idx] * sigma[:, None], V[idx] * sigma[:, None], prefix,
                            False)
        assert (T[:, :len(prefix)] == prefix).all()
        found.extend(map(tuple, T))
    assert 2 * len(found) == sign_pattern(braid_product(W)).count
    assert len(set(found)) == len(found)


degenerate = st.integers(4, 6).flatmap(lambda n: st.integers(2, 3).flatmap(
    lambda d: st.lists(st.lists(st.integers(-1, 1), min_size=d, max_size=d),
                       min_size=n, max_size=n)))


@settings(max_examples=30, deadline=None)
@given(degenerate, st.integers(2, 40), st.sampled_from([2, 3, 12]))
@example([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0]], 16, 2)
def test_a_bucket_asks_its_restrictions_only_for_its_prefix(W, budget, limit):
    """A bucket's candidates, with the restrictions asked only for the prefix, are the
    candidates of the whole restrictions that agree with the prefix, vertex by vertex;
    through the brute force and (with a lower ``BRUTE_FORCE_LIMIT``) the recursion."""
    from verify.arrangement import oriented_matroid
    from verify.arrangement.cocircuits import IntegerChirotope
    from verify.arrangement.oriented_matroid import compose

    R = reduce_matrix(braid_product(W))
    K, r = R.H.shape
    if r < 2:
        return
    Y, V = cocircuits(R.H)
    chi = IntegerChirotope(R.H)
    ground = np.arange(K, dtype=np.int64)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(oriented_matroid, "BRUTE_FORCE_LIMIT", limit)
        for prefix, idx, sigma in _plan(Y, r, budget):
            Yb = Y[idx] * sigma[:, None]
            fixed = np.zeros(K, dtype=np.int8)
            fixed[:len(prefix)] = prefix
            asked, vertex = compose(chi, Yb, ground, r, (), fixed)
            every, every_vertex = compose(chi, Yb, ground, r, ())
            agree = ((fixed == 0) | (every == fixed)).all(axis=1)
            assert sorted(zip(map(tuple, asked), vertex.tolist())) == sorted(
                zip(map(tuple, every[agree]), every_vertex[agree].tolist()))


@settings(max_examples=10, deadline=None)
@given(degenerate, st.integers(2, 40))
@example([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0]], 16)
def test_buckets_through_the_recursion_give_the_cells_of_the_whole_engine(W, budget):
    from verify.arrangement import oriented_matroid

    M = braid_product(W)
    whole = sign_pattern(M)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(oriented_matroid, "BRUTE_FORCE_LIMIT", 2)
        patterns, witnesses = streamed(M, budget=budget)
    assert patterns == whole.patterns
    assert witnesses == [tuple(int(a) for a in c.witness) for c in whole.cells]


def test_vectorised_rankings_equal_the_reference_and_refuse_non_orders():
    W = np.random.default_rng(2).integers(-4, 5, size=(6, 3)).tolist()
    R = ranking_pattern(W)
    signs = np.array([[1 if c == "+" else -1 for c in p] for p in R.patterns], dtype=np.int8)
    assert rankings_of(signs, 6).tolist() == [list(r) for r in R.rankings]
    with pytest.raises(ValueError):
        rankings_of(np.array([[1, -1, 1]], dtype=np.int8), 3)   # 0 > 1, 1 > 2, 2 > 0


def old_json(kind, W, affine=False):
    """The --json object as the whole-pattern API and json.dump produced it."""
    from flint import fmpq

    n, d = len(W), len(W[0])
    if kind == "ranking":
        R = ranking_pattern(W, affine=affine)
        cells, rankings = R.cells, [list(r) for r in R.rankings]
    else:
        M = [[fmpq(1)] + [fmpq(a) for a in row] for row in W] if affine else W
        cells, rankings = sign_pattern(M).cells, None
    out = {"kind": kind, "n": n, "d": d, "count": len(cells),
           "patterns": [c.signs for c in cells],
           "witnesses": [[str(int(a)) for a in c.witness] for c in cells]}
    if rankings is not None:
        out["rankings"] = rankings
    return (json.dumps(out, separators=(",", ":")) + "\n").encode()


CASES = [("ranking", np.random.default_rng(0).integers(-5, 6, size=(7, 3)).tolist(), False),
         ("ranking", [[0, 0], [1, 0], [0, 1], [1, 1]], True),
         ("sign", [[1, 0], [0, 1], [1, 1], [2, 2], [-1, 0]], False),
         ("sign", [[1, 2], [3, 4]], True),
         ("ranking", [[1, 2], [1, 2], [0, 1]], False),     # equal rows: empty
         ("ranking", [[3, 4]], False),                      # one label
         ("sign", [[0, 0], [1, 1]], False)]                 # zero row: empty


@pytest.mark.parametrize("kind, W, affine", CASES)
def test_json_bytes_are_those_of_the_whole_pattern_api(cli, tmp_path, kind, W, affine):
    path = tmp_path / "W.json"
    path.write_text(json.dumps(W))
    extra = ["--affine"] if affine else []
    out = cli("pattern", "--kind", kind, "--matrix", str(path), "--json", *extra)
    assert out == old_json(kind, W, affine)
    again = cli("pattern", "--kind", kind, "--matrix", str(path), "--json", "--jobs", "2",
                *extra)
    assert again == out


@pytest.mark.parametrize("kind, W, affine", CASES)
def test_jsonl_and_npz_hold_the_json_pattern(cli, tmp_path, kind, W, affine):
    path = tmp_path / "W.json"
    path.write_text(json.dumps(W))
    extra = ["--affine"] if affine else []
    base = ["pattern", "--kind", kind, "--matrix", str(path), *extra]
    whole = json.loads(cli(*base, "--json"))
    lines = cli(*base, "--format", "jsonl").decode().splitlines()
    cells = [json.loads(line) for line in lines]
    assert [c["signs"] for c in cells] == whole["patterns"]
    assert {c["signs"] for c in cells} == set(whole["patterns"])
    assert [c["witness"] for c in cells] == whole["witnesses"]
    if kind == "ranking":
        assert [c["ranking"] for c in cells] == whole["rankings"]
        assert all(set(c) == {"signs", "witness", "ranking"} for c in cells)
    cli(*base, "--format", "npz", "--output", str(tmp_path / "p.npz"))
    archive = np.load(tmp_path / "p.npz")
    N = int(archive["N"])
    assert int(archive["count"]) == whole["count"] and str(archive["kind"]) == kind
    bits = np.unpackbits(archive["signs"], axis=1, count=N)
    assert ["".join("+" if b else "-" for b in row) for row in bits] == whole["patterns"]
    assert archive["witnesses"].tolist() == [[int(a) for a in w] for w in whole["witnesses"]]
    if kind == "ranking":
        assert archive["rankings"].tolist() == whole["rankings"]
    count = json.loads(cli(*base, "--count-only", "--json"))
    assert count["count"] == whole["count"]


def test_every_format_is_byte_identical_across_runs_and_jobs(tmp_path):
    # fresh processes: nothing may depend on the state of one
    W = np.random.default_rng(5).integers(-5, 6, size=(7, 4)).tolist()
    path = tmp_path / "W.json"
    path.write_text(json.dumps(W))
    base = ["pattern", "--kind", "ranking", "--matrix", str(path)]
    for fmt in ("json", "jsonl"):
        outputs = {run(*base, "--format", fmt, "--jobs", str(j)).stdout for j in (1, 2)}
        assert len(outputs) == 1
    files = []
    for j in (1, 2):
        target = tmp_path / f"p{len(files)}.npz"
        assert run(*base, "--format", "npz", "--output", str(target), "--jobs",
                   str(j)).returncode == 0
        files.append(target.read_bytes())
    assert files[0] == files[1]


def test_blocks_are_the_same_for_any_number_of_workers():
    W = np.random.default_rng(6).integers(-5, 6, size=(6, 4)).tolist()
    M = braid_product(W)
    one = streamed(M, budget=300)
    two = streamed(M, budget=300, jobs=2)
    assert one == two and len(one[0]) == ranking_pattern(W).count


def test_write_json_of_no_blocks_is_the_empty_object():
    out = io.BytesIO()
    write_json(out, [], kind="sign", n=2, d=2)
    assert out.getvalue() == b'{"kind":"sign","n":2,"d":2,"count":0,"patterns":[],' \
                             b'"witnesses":[]}\n'


def test_count_only_reports_zaslavsky(cli, tmp_path):
    path = tmp_path / "W.json"
    path.write_text(json.dumps(np.random.default_rng(1).integers(-3, 4, size=(6, 3)).tolist()))
    out = cli("pattern", "--kind", "ranking", "--matrix", str(path), "--count-only")
    count = ranking_pattern(json.loads(path.read_text())).count
    assert out.decode() == (f"{count} rankings; Zaslavsky's formula (Whitney "
                                   "numbers) gives the same count\n")
    js = json.loads(cli("pattern", "--kind", "ranking", "--matrix", str(path),
                        "--count-only", "--json"))
    assert js["count"] == js["zaslavsky"] == count


@pytest.mark.parametrize("options, message", [
    (["--format", "npz"], "--format npz needs --output FILE"),
    (["--json", "--format", "jsonl"], "--json and --format jsonl disagree"),
    (["--format", "jsonl", "--method", "graph"], "use the cocircuit method"),
    (["--format", "npz", "--output", "/nonexistent/dir/p.npz"], "/nonexistent/dir/p.npz"),
    (["--jobs", "0"], "must be >= 1"),
])
def test_bad_options_give_one_line_and_exit_2(tmp_path, options, message):
    path = tmp_path / "W.json"
    path.write_text("[[1, 0], [0, 1]]")
    out = run("pattern", "--matrix", str(path), *options)
    err = out.stderr.decode()
    assert out.returncode == 2 and message in err
    assert "Traceback" not in err and message in err.strip().splitlines()[-1]


def test_a_failed_npz_leaves_no_file(tmp_path, monkeypatch):
    from verify.io import pattern_output
    from verify.io.atomic import open_atomic

    def broken():
        yield np.ones((1, 2), dtype=np.int8), np.ones((1, 2), dtype=np.int64)
        raise RuntimeError("stop")

    target = tmp_path / "p.npz"
    with pytest.raises(RuntimeError):
        pattern_output.write_npz(target, broken(), kind="sign", n=2, d=2, N=2,
                                 open_output=open_atomic)
    assert list(tmp_path.iterdir()) == []


def test_the_flat_memo_keeps_the_recent_entries_within_its_budget():
    from verify.arrangement.oriented_matroid import FlatMemo

    memo = FlatMemo(budget=10 ** 6)
    memo.put("a", "A", 10)
    memo.budget = 3 * memo.size + memo.size // 2      # room for three such entries
    for key in "bc":
        memo.put(key, key.upper(), 10)
    assert memo.get("a") == "A"                 # now the most recent
    memo.put("d", "D", 10)                      # over budget: "b" leaves first
    assert memo.get("b") is None and [memo.get(k) for k in "acd"] == ["A", "C", "D"]
    assert memo.size <= memo.budget
    memo.put("huge", "H", memo.budget)          # larger than the budget: not kept
    assert memo.get("huge") is None and memo.get("a") == "A"


@settings(max_examples=15, deadline=None)
@given(degenerate, st.integers(2, 40), st.sampled_from([2, 12]))
@example([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0]], 16, 2)
@example([[1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 1, 1], [0, 0, 1]], 8, 12)
def test_the_flat_memo_changes_no_cell_and_no_witness(W, budget, limit):
    """Buckets asked with no memo, with a fresh one, with one that already holds every
    flat, and with one so small that it keeps evicting give the same blocks; a filled
    memo answers every question it is asked."""
    from verify.arrangement import cocircuits as cocircuits_module
    from verify.arrangement import oriented_matroid
    from verify.arrangement.oriented_matroid import FlatMemo

    M = braid_product(W)
    hits = []
    get = FlatMemo.get

    def counted(self, key):
        value = get(self, key)
        hits.append(value is not None)
        return value

    runs = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(oriented_matroid, "BRUTE_FORCE_LIMIT", limit)
        patch.setattr(FlatMemo, "get", counted)
        patch.setattr(cocircuits_module, "_memo_of", lambda H: None)
        runs.append(streamed(M, budget=budget))
        patch.undo()
        patch.setattr(cocircuits_module, "MEMO_MIN_RANK", 0)   # these are of rank <= 3
        patch.setattr(oriented_matroid, "BRUTE_FORCE_LIMIT", limit)
        patch.setattr(FlatMemo, "get", counted)
        cocircuits_module._LAST_MEMO[:] = [None, None]
        runs.append(streamed(M, budget=budget))         # a fresh memo
        asked = len(hits)
        runs.append(streamed(M, budget=budget))         # the same memo, filled
        assert all(hits[asked:])                        # ... answers every question
        patch.setattr(oriented_matroid, "MEMO_BYTES", 300)
        cocircuits_module._LAST_MEMO[:] = [None, None]
        runs.append(streamed(M, budget=budget))         # a memo that keeps evicting
    cocircuits_module._LAST_MEMO[:] = [None, None]
    assert all(run == runs[0] for run in runs[1:])
    assert not hits[:asked] or not all(hits[:asked])   # a fresh memo starts empty


def test_only_chirotopes_of_rank_six_and_more_keep_a_memo():
    from verify.arrangement.cocircuits import MEMO_MIN_RANK, IntegerChirotope

    for r in (MEMO_MIN_RANK - 1, MEMO_MIN_RANK):
        H = np.vstack([np.eye(r, dtype=np.int64), np.ones((1, r), dtype=np.int64)])
        assert (IntegerChirotope(H).memo is None) == (r < MEMO_MIN_RANK)


def test_empty_buckets_of_python_integers_keep_their_width():
    """Entries beyond ``int64`` (Python integers) and a budget of one cell: some prefixes
    of the plan are no cell, and their empty buckets must still lift to ``R^k``; the
    cells are the whole engine's, with its witnesses."""
    from verify.arrangement.cocircuits import _primitive_rows

    for dtype in (np.int64, object):
        assert _primitive_rows(np.zeros((0, 3), dtype=dtype)).shape == (0, 3)
    M = [[2 ** 70, t, t * t] for t in range(-2, 3)]   # five planes in general position
    assert reduce_matrix(M).H.dtype == object
    patterns, witnesses = streamed(M, budget=1)
    whole = sign_pattern(M)
    assert patterns == whole.patterns and len(patterns) == 22
    assert witnesses == [tuple(int(a) for a in c.witness) for c in whole.cells]
