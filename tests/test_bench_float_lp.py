"""The float LP of ``benchmarks/float_lp.py`` (Grivas et al. 2022) on small heads with a
bias: its sure verdicts agree with the exact :func:`argmaxable_with_bias`, and the
cutting-plane loop reaches the optimum of the full LP."""

import importlib.util
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from verify.analyze.bias import argmaxable_with_bias

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "float_lp.py"
_spec = importlib.util.spec_from_file_location("float_lp", _PATH)
float_lp = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("float_lp", float_lp)  # workers find its functions by name
_spec.loader.exec_module(float_lp)

#: Float margins closer to 0 than this are not compared with the exact verdict.
CLEAR = 1e-3


def _head(seed: int, n: int = 30, d: int = 3):
    """Random integer rows and bias, with a few rows planted inside the upper hull:
    ``w_i`` a convex combination of other rows and ``b_i`` below theirs (never on
    top), or exactly on it (a tie with a combination, also never strictly on top)."""
    rng = np.random.default_rng(seed)
    W = rng.integers(-9, 10, size=(n, d)).astype(float)
    b = rng.integers(-5, 6, size=n).astype(float)
    for i in rng.choice(n, size=4, replace=False):
        k = [j for j in rng.choice(n, size=3, replace=False) if j != i][:2]
        W[i] = (W[k[0]] + W[k[1]]) / 2
        b[i] = (b[k[0]] + b[k[1]]) / 2 - float(rng.integers(0, 2))
    return W, b


def _exact(W, b):
    rows = [[Fraction(float(v)) for v in row] for row in W]
    return set(argmaxable_with_bias(rows, [Fraction(float(v)) for v in b]).argmaxable)


@pytest.mark.parametrize("seed", range(4))
def test_sure_verdicts_agree_with_the_exact_analysis(seed):
    W, b = _head(seed)
    exact = _exact(W, b)
    v = float_lp.float_argmaxable(W, b, start=4, add=3)  # the box, then no box for some
    assert not v.failures
    compared = 0
    for i, t in enumerate(v.margins):
        if abs(t) > CLEAR:
            assert (t > 0) == (i in exact), (i, t)
            compared += 1
    assert compared >= 20
    assert set(range(len(W))) - exact  # some planted rows are never on top


@pytest.mark.parametrize("seed", range(2))
def test_a_box_only_errs_towards_unargmaxable(seed):
    # In the box of the paper an input witnessing t > 0 is a real witness, but a label
    # on top only outside the box reads as unargmaxable.
    W, b = _head(seed)
    exact = _exact(W, b)
    v = float_lp.float_argmaxable(W, b, box=100.0, cap=None, unbox=False, start=4, add=3)
    assert set(v.argmaxable) <= exact
    assert v.box_argmaxable == v.argmaxable and not v.rechecked
    assert not v.failures


@pytest.mark.parametrize("seed", range(2))
def test_cutting_planes_reach_the_full_lp(seed):
    W, b = _head(seed, n=20)
    for box, cap in [(None, 1.0), (100.0, None), (5.0, 1.0)]:
        for i in range(len(W)):
            cut = float_lp.label_margin(W, b, i, box=box, cap=cap, start=2, add=2)
            full = float_lp.full_lp_margin(W, b, i, box=box, cap=cap)
            assert cut.t == pytest.approx(full, abs=1e-7), (box, cap, i)
            assert cut.rivals <= len(W) - 1


def test_the_cutting_planes_start_small_and_grow():
    W, b = _head(7, n=60)
    m = float_lp.label_margin(W, b, 0, start=2, add=1)
    assert m.rounds == m.rivals - 1  # one rival added per round
    assert m.rivals < len(W) - 1


def test_workers_give_the_same_margins():
    W, b = _head(5)
    one = float_lp.float_argmaxable(W, b)
    two = float_lp.float_argmaxable(W, b, jobs=2)
    assert np.allclose(one.margins, two.margins, atol=1e-9)


def test_one_dimensional_example_with_a_bounded_region():
    # The middle label of [[0], [1], [2]] with bias [0, 1, 0] is on top for |x| < 1
    # only (margin at most 1 at x = 0); with bias [0, -1, 0] it never is.
    W = np.array([[0.0], [1.0], [2.0]])
    v = float_lp.float_argmaxable(W, [0, 1, 0], cap=10.0)
    assert v.margins[1] == pytest.approx(1.0)
    assert v.argmaxable == [0, 1, 2]
    v = float_lp.float_argmaxable(W, [0, -1, 0])
    assert v.unargmaxable == [1]


def test_a_label_on_top_only_outside_the_box():
    # Label 2 of 2x - 300 against x and 0 is on top for x > 300 only.
    W, b = np.array([[0.0], [1.0], [2.0]]), np.array([0.0, 0.0, -300.0])
    assert float_lp.float_argmaxable(W, b, unbox=False).unargmaxable == [2]
    v = float_lp.float_argmaxable(W, b)
    assert v.argmaxable == [0, 1, 2] and v.box_argmaxable == [0, 1] and v.rechecked == [2]
    assert float_lp.float_argmaxable(W, b, box=None, cap=1.0).argmaxable == [0, 1, 2]
    assert _exact(W, b) == {0, 1, 2}


def test_an_exact_duplicate_is_unsure():
    W = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    v = float_lp.float_argmaxable(W, np.zeros(4))
    assert v.unsure == [0, 1]
    assert v.argmaxable == [2, 3]


def test_the_lp_needs_a_box_or_a_cap():
    with pytest.raises(ValueError):
        float_lp.label_margin(np.eye(2), np.zeros(2), 0, box=None, cap=None)


def test_the_benchmark_on_a_directory_of_small_heads(tmp_path, capsys):
    import json

    spec = importlib.util.spec_from_file_location(
        "bench_real_heads", _PATH.parent / "bench_real_heads.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    W, b = _head(3, n=12, d=2)
    np.save(tmp_path / "tiny_W.npy", W.astype(np.float32))
    np.save(tmp_path / "tiny_b.npy", b.astype(np.float32))
    np.save(tmp_path / "nobias_W.npy", np.eye(3, dtype=np.float32))
    out = tmp_path / "out.json"
    assert bench.main(["--heads", str(tmp_path), "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    tiny = {h["head"]: h for h in doc["heads"]}["tiny"]
    assert tiny["exact"]["argmaxable"] == len(_exact(W, b))
    assert tiny["agreement"]["disagreements"] == []
    assert "| tiny | 12 × 2 |" in capsys.readouterr().out
    assert bench.main(["--heads", str(tmp_path), "--only", "nobias", "--skip-exact"]) == 0
    assert "| nobias | 3 × 3 |" in capsys.readouterr().out


def test_a_sample_of_labels_gets_the_margins_of_the_full_run():
    W, b = _head(2)
    full = float_lp.float_argmaxable(W, b)
    sample = [3, 0, 17, 3, 29]
    part = float_lp.float_argmaxable(W, b, labels=sample)
    assert part.solved == [0, 3, 17, 29]
    assert np.allclose(part.margins[part.solved], full.margins[part.solved], atol=1e-9)
    others = [i for i in range(len(W)) if i not in part.solved]
    assert np.isnan(part.margins[others]).all()
    assert set(part.argmaxable) == set(full.argmaxable) & set(part.solved)
    assert set(part.unsure) <= set(part.solved)
    assert set(part.rechecked) <= set(part.solved)


def test_the_benchmark_estimates_the_float_lp_from_a_sample(tmp_path, capsys):
    import json

    spec = importlib.util.spec_from_file_location(
        "bench_real_heads", _PATH.parent / "bench_real_heads.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.float_sample(10, None) is None and bench.float_sample(10, 10) is None
    assert bench.float_sample(30, 6) == bench.float_sample(30, 6)  # seeded
    W, b = _head(4, n=24, d=2)
    np.save(tmp_path / "tiny_W.npy", W.astype(np.float32))
    np.save(tmp_path / "tiny_b.npy", b.astype(np.float32))
    out = tmp_path / "out.json"
    assert bench.main(["--heads", str(tmp_path), "--json", str(out),
                       "--float-sample", "6"]) == 0
    f = json.loads(out.read_text())["heads"][0]
    sample = bench.float_sample(24, 6)
    assert f["float"]["estimated"] and f["float"]["sample"] == 6
    assert f["float"]["cpu_s"] == pytest.approx(f["float"]["sample_times"]["cpu_s"] * 4,
                                                abs=0.1)
    assert f["agreement"] == {"disagreements": [], "unsure": 0, "unsure_exact_argmaxable": 0,
                              "compared": 6,
                              "exact_argmaxable": len(_exact(W, b) & set(sample))}
    assert f["float"]["argmaxable"] == f["agreement"]["exact_argmaxable"]
    assert "of 6 sampled" in capsys.readouterr().out
