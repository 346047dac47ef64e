"""`verify.analyze` at scale and at the edges: blocks, memory, exact checks, extremes.

Independent references: Python integers and ``fractions.Fraction`` for every exact
claim, ``decimal`` at 60 digits for cosines, and the helpers of ``test_analyze`` (hull
vertices by Carathéodory, polygon edges) for the answers.
"""

from __future__ import annotations

import json
import tracemalloc
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_analyze import (
    F,
    check_argmax_evidence,
    check_tie_evidence,
    dot,
    reference_argmaxable,
    reference_ties_2d,
)
from verify.analyze import (
    analyze,
    argmaxable_labels,
    is_argmax_certificate,
    is_argmax_witness,
    is_no_tie_certificate,
    is_tie_witness,
    make_head,
    tie_pairs,
    to_json,
)
from verify.analyze import argmax as argmax_module
from verify.analyze import ties as ties_module
from verify.analyze.head import ExactHead
from verify.analyze.head import integer_matrix
from verify.analyze.memory import MemoryBudget
from verify.analyze.ties import NoTieCertificate
from verify.io.errors import TooLargeError
from verify.numbers.rational import exact_from_float


# --- exact integer rows from binary floats ---------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.sampled_from([np.float64, np.float32, np.float16]),
       st.integers(1, 5), st.integers(1, 4), st.integers(-40, 40), st.data())
def test_integer_matrix_is_the_exact_rational_scaling(dtype, n, d, spread, data):
    """The vectorised conversion gives the same primitive integer rows as fmpq arithmetic."""
    mant = data.draw(st.lists(st.integers(-2 ** 10, 2 ** 10), min_size=n * d,
                              max_size=n * d))
    expo = data.draw(st.lists(st.integers(min(0, spread), max(0, spread)),
                              min_size=n * d, max_size=n * d))
    A = np.array([np.ldexp(float(m), e) for m, e in zip(mant, expo)]).reshape(n, d)
    with np.errstate(over="ignore"):
        A = A.astype(dtype)
    if not np.all(np.isfinite(A)):
        return
    fast = ExactHead.from_array(A)
    slow = ExactHead([[exact_from_float(v) for v in row] for row in A.astype(np.float64)])
    assert list(fast.Z) == list(slow.Z)
    assert np.array_equal(fast.F, slow.F)
    # Z is a positive multiple of W.
    nz = [(i, j) for i in range(n) for j in range(d) if A[i, j] != 0]
    if nz:
        i0, j0 = nz[0]
        c = Fraction(fast.Z[i0][j0]) / Fraction(float(A[i0, j0]))
        assert c > 0
        assert all(Fraction(fast.Z[i][j]) == c * Fraction(float(A[i, j]))
                   for i in range(n) for j in range(d))


@pytest.mark.parametrize("bits", [52, 61, 62, 63, 64, 80])
@pytest.mark.parametrize("unit", [1.0, 2.0 ** -30, 2.0 ** 9, -1.0])
@pytest.mark.parametrize("reverse", [False, True])
def test_integer_matrix_at_the_int64_boundary(bits, unit, reverse, monkeypatch):
    """Rows that need exactly ``bits`` bits under one scale: int64 up to
    ``INT64_BITS``, Python integers beyond, the same rows either way; the smallest
    entry in another block of rows than the largest (blocks of two rows), before or
    after it; the largest entry positive or negative."""
    from verify.analyze import head as head_module

    monkeypatch.setattr(head_module, "CONVERT_ROWS", 2)
    A = np.array([[3 * 2.0 ** (bits - 2), 2.0 ** 20], [-(2.0 ** 30), 0.0],
                  [6.0, -12.0], [0.0, 0.0], [-10.0, 1.0]]) * unit
    if reverse:
        A = A[::-1].copy()
    Z = integer_matrix(A)
    exact = [[Fraction(float(v)) for v in row] for row in A]
    top, one = (4, 0) if reverse else (0, 4)
    if bits <= head_module.INT64_BITS:
        assert Z is not None
        # The largest entry needs all the bits; the 1 stays 1 (with the sign of unit).
        assert abs(int(Z[top, 0])) == 3 << (bits - 2) and abs(int(Z[one, 1])) == 1
    else:
        assert Z is None
    head = ExactHead.from_array(A)
    slow = ExactHead([[exact_from_float(v) for v in row] for row in A])
    assert list(head.Z) == list(slow.Z)
    c = Fraction(head.Z[0][0]) / exact[0][0]
    assert all(Fraction(head.Z[i][j]) == c * exact[i][j]
               for i in range(len(A)) for j in range(2))


def test_integer_matrix_of_zeros_and_negative_entries():
    assert integer_matrix(np.zeros((3, 2))).tolist() == [[0, 0]] * 3
    assert integer_matrix(np.array([[-0.0, -0.75], [0.5, 0.0]])).tolist() == [[0, -3],
                                                                             [2, 0]]


def test_rows_equal_on_int64_rows_and_on_python_integers():
    rows = [[1, 2, 3], [1, 2, 3], [1, 2, 4], [2, 4, 6]]
    long = [[(1 << 70) + row[0]] + row[1:] for row in rows]
    for head in (make_head(np.array(rows, dtype=np.int64)), make_head(long)):
        got = [[head.rows_equal(i, j) for j in range(4)] for i in range(4)]
        assert got == [[head.Z[i] == head.Z[j] for j in range(4)] for i in range(4)]
        assert got[0][1] and not got[0][2] and not got[0][3]
    assert make_head(long).Zarr is None


@pytest.mark.parametrize("W", [
    np.array([[-1000, 3], [5, 7]], dtype=np.int64),  # the largest entry is negative
    np.array([[1000, 3], [-5, 7]], dtype=np.int64),
    np.array([[-0.75, 0.5], [0.125, 0.0]], dtype=np.float32),
    np.array([[2.0 ** 40, -(2.0 ** 41) + 1]]),
])
def test_float_rows_are_the_integers_over_the_least_power_of_two(W):
    """``F = Z / 2^bits`` entry by entry, exactly, with ``bits`` the largest bit
    length of ``|Z|``: every entry below 1, the largest at least 1/2."""
    head = ExactHead.from_array(W)
    top = max(abs(v) for row in head.Z for v in row)
    assert head.bits == top.bit_length()
    for row, frow in zip(head.Z, head.F):
        assert [Fraction(float(f)) for f in frow] == [Fraction(v, 2 ** head.bits) for v in row]
    assert 0.5 <= np.abs(head.F).max() < 1


def test_integer_matrix_hands_long_rows_to_python_integers():
    assert integer_matrix(np.array([[1e300, 0.0], [1e-300, 1.0]])) is None
    # Scaled to the largest entry, the tiny one would underflow to zero.
    A = np.array([[2.0 ** 200, 2.0 ** -1000]])
    assert integer_matrix(A) is None
    assert ExactHead.from_array(A).Z[0] == (1 << 1200, 1)
    head = ExactHead.from_array(np.array([[1e300, 0.0], [1e-300, 1.0]]))
    assert head.Zarr is None and head.Z[0][0] > 1 << 1900


# --- exact signs of products ----------------------------------------------------------

def test_float_product_with_the_wrong_sign_is_caught():
    """Rounding makes the float margin +212 where the exact one is -43 (units 2^-62)."""
    head = make_head([[2 ** 61 + 257, 2 ** 61], [300, 0]])
    assert head.Zarr is not None
    x = (1, -1)
    float_margin = float(head.F[0] @ np.array(x, float) - head.F[1] @ np.array(x, float))
    assert float_margin > 0  # the float product alone would accept label 0
    assert head.wins([x], [0]) == [False]
    assert head.wins([x], [1]) == [True]
    assert head.margin_signs([x], [0]).ravel().tolist() == [0, -1]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 6), st.integers(1, 4), st.integers(0, 61), st.data())
def test_wins_match_python_integers_near_cancellation(n, d, bits, data):
    """Rows that share a huge common part and differ in low bits: the float product
    cannot tell them apart, the exact fallback must."""
    base = data.draw(st.lists(st.integers(-2 ** bits, 2 ** bits), min_size=d, max_size=d))
    small = st.integers(-3, 3)
    Z = [[b + data.draw(small) for b in base] for _ in range(n)]
    Z = [[max(-(2 ** 61), min(2 ** 61, v)) for v in row] for row in Z]
    point_entry = st.one_of(st.integers(-3, 3), st.integers(-2 ** 70, 2 ** 70))
    points = [tuple(data.draw(point_entry) for _ in range(d)) for _ in range(3)]
    targets = [data.draw(st.integers(0, n - 1)) for _ in points]
    partners = [data.draw(st.integers(0, n - 1)) for _ in points]
    head = make_head(Z)
    Zh = [list(r) for r in head.Z]  # the primitive rows the head works with

    def score(k, x):
        return sum(a * b for a, b in zip(Zh[k], x))

    wins = head.wins(points, targets)
    ties = head.wins(points, targets, partners=partners)
    for c, (x, t, p) in enumerate(zip(points, targets, partners)):
        assert wins[c] == all(score(t, x) > score(k, x) for k in range(n) if k != t)
        if p == t:
            continue
        assert ties[c] == (score(t, x) == score(p, x) and all(
            score(t, x) > score(k, x) for k in range(n) if k not in (t, p)))


# --- blocks change nothing; memory stays O(n d) ----------------------------------------

def _fixed_columns(k):
    return lambda self, bytes_per_column, limit=None: k


@pytest.mark.parametrize("columns", [1, 3, 64])
def test_block_size_does_not_change_any_answer(monkeypatch, columns):
    rng = np.random.default_rng(11)
    A = rng.integers(-30, 31, size=(240, 3))
    reference = json.dumps(to_json(analyze(A, cells=False, rays=2)))
    monkeypatch.setattr(MemoryBudget, "columns", _fixed_columns(columns))
    assert json.dumps(to_json(analyze(A, cells=False, rays=2))) == reference


def test_no_array_grows_like_n_squared():
    """4000 labels: an n x n float64 array would be 128 MB; the peak stays far below."""
    rng = np.random.default_rng(5)
    A = rng.standard_normal((4000, 3))
    tracemalloc.start()
    try:
        result = analyze(A, cells=False, rays=0, budget=MemoryBudget(64 << 20))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.argmax.n == 4000
    assert peak < 8 * 4000 * 4000 // 3
    assert result.cosine.neighbour_pairs_undecided == 0


def test_ray_shooting_keeps_no_n_by_pairs_array():
    """Rows on a sphere: every label is a vertex, thousands of pairs go to ray
    shooting; an index array of all n x (pairs) exits once stayed alive (81 MB here)."""
    A = np.random.default_rng(5).standard_normal((2500, 5))
    A /= np.linalg.norm(A, axis=1)[:, None]
    tracemalloc.start()
    try:
        result = analyze(A, cells=False, rays=0, budget=MemoryBudget(64 << 20))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(result.argmax.argmaxable) == 2500
    assert peak < 8 * 2500 * 2500 * 4 // 5  # 40 MB; n x n float64 would be 50 MB


def test_head_beyond_the_budget_is_refused_in_one_line(run_cli, tmp_path):
    path = tmp_path / "w.npy"
    np.save(path, np.zeros((3000, 64), dtype=np.float32))
    code, out, err = run_cli(["analyze", "--matrix", str(path), "--memory", "0.01"])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--memory" in err and "3000 labels" in err
    with pytest.raises(TooLargeError):
        MemoryBudget(10 ** 6).for_head(3000, 64)


@pytest.mark.parametrize("value", ["0", "-1", "abc", "inf", "nan"])
def test_bad_memory_option(run_cli, tmp_path, value):
    path = tmp_path / "w.json"
    path.write_text("[[1, 0], [0, 1]]")
    code, _, err = run_cli(["analyze", "--matrix", str(path), "--memory", value])
    assert code == 2 and "--memory" in err and "Traceback" not in err


def test_npy_is_memory_mapped_and_exact(tmp_path):
    rng = np.random.default_rng(2)
    A = (rng.standard_normal((60, 3)) * 2.0 ** -30).astype(np.float32)
    path = tmp_path / "w.npy"
    np.save(path, A)
    from verify.analyze.command import read_head

    array = read_head(str(path))
    assert isinstance(array, np.memmap)
    W = [[exact_from_float(v) for v in row] for row in A.astype(np.float64)]
    assert to_json(analyze(array)) == to_json(analyze(W))


# --- extreme magnitudes: no traceback, right cosines ----------------------------------

def _true_cosine(u, v) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 60
        g = dot(u, v)
        nu, nv = dot(u, u), dot(v, v)
        value = (Decimal(g.numerator) / Decimal(g.denominator)) / (
            (Decimal(nu.numerator) / Decimal(nu.denominator)).sqrt()
            * (Decimal(nv.numerator) / Decimal(nv.denominator)).sqrt())
        return value


MAGNITUDE = st.builds(lambda m, e: fmpq(m) * fmpq(10) ** e if e >= 0
                      else fmpq(m, 10 ** -e),
                      st.integers(-9, 9), st.integers(-8000, 8000))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 4), st.integers(1, 3), st.data())
def test_extreme_magnitudes_are_decided_exactly_with_true_cosines(n, d, data):
    """Entries from 1e-8000 to 1e8000: exact evidence, and every printed cosine within
    1e-12 of the truth (issue: the float copy used to round the small rows to 0)."""
    W = [[data.draw(st.one_of(MAGNITUDE, st.integers(-3, 3).map(fmpq)))
          for _ in range(d)] for _ in range(n)]
    a = analyze(W, max_cells=0)
    check_argmax_evidence(W, a.argmax)
    check_tie_evidence(W, a.ties)
    assert set(a.argmax.argmaxable) == reference_argmaxable(W)
    rows = [[F(x) for x in row] for row in W]
    for i, near in enumerate(a.cosine.neighbours):
        for k, shown in near:
            assert abs(Decimal(shown) - _true_cosine(rows[i], rows[k])) < Decimal("1e-12")
    for (i, j), shown in a.edge_cosines().items():
        assert abs(Decimal(shown) - _true_cosine(rows[i], rows[j])) < Decimal("1e-12")


@pytest.mark.parametrize("W, cosine", [
    ([["1e8000", 0], [0, 1], [1, 1]], 0.7071067811865476),
    ([["1e19", 0], [0, 1], [1, 1]], 0.7071067811865476),
    ([["1e-30", 0], [0, 1], [1, 1]], 0.7071067811865476),
])
def test_reported_extreme_heads(run_cli, tmp_path, W, cosine):
    path = tmp_path / "w.json"
    path.write_text(json.dumps(W))
    code, out, err = run_cli(["analyze", "--matrix", str(path), "--json"])
    assert code == 0, err
    doc = json.loads(out)
    nearest = dict((k, c) for k, c in doc["cosine"]["per_label"][0]["nearest"])
    assert abs(nearest[2] - cosine) < 1e-12
    assert doc["argmaxable"] == [0, 1, 2]


# --- forged evidence and bad proposals are rejected ------------------------------------

def test_argmax_certificate_conditions_one_at_a_time():
    W = [[0, 0], [1, 0], [3, 0], [1, 1]]
    # 2 (w_2 - w_0) - 3 (w_2 - w_1) = 0: sums to zero, but a weight is negative.
    assert not is_argmax_certificate(W, 2, [(0, 2), (1, -3)])
    assert not is_argmax_certificate(W, 2, [(0, 0), (1, 0)])  # all zero
    assert not is_argmax_certificate(W, 2, [])
    assert not is_argmax_certificate(W, 1, [(1, 1), (2, 1)])  # i itself
    assert not is_argmax_certificate(W, 1, [(0, 2), (9, 1)])  # no such label
    assert not is_argmax_certificate(W, 1, [(0, 1), (2, 2)])  # weights do not combine
    assert is_argmax_certificate(W, 1, [(0, 2), (2, 1)])  # w_1 = 2/3 w_0 + 1/3 w_2
    assert is_argmax_certificate(W, 1, [(0, Fraction(2, 3)), (2, Fraction(1, 3))])


def test_argmax_witness_rejects_a_shared_top():
    W = [[1, 0], [0, 1], [1, 1]]
    assert not is_argmax_witness(W, 2, (1, 0))  # label 0 ties label 2 at the top
    assert is_argmax_witness(W, 2, (1, 1))


def test_tie_witness_conditions_one_at_a_time():
    W = [[2, 0], [0, 2], [1, 1], [-5, -5]]
    assert is_tie_witness(W, 0, 3, (5, -7))  # 10 = 10 > -14, -2
    assert not is_tie_witness(W, 0, 1, (1, 1))  # a three-way tie: label 2 also on top
    assert not is_tie_witness(W, 0, 3, (5, -6))  # 10 > 5: not tied
    assert not is_tie_witness(W, 0, 3, (-5, 7))  # tied at -10, but label 1 has 14
    assert not is_tie_witness(W, 0, 3, (0, 0))  # everybody ties


def test_no_tie_certificate_conditions_one_at_a_time():
    W = [[2, 0], [0, 2], [1, 1], [-5, -5]]
    # 0 and 1 cannot tie: w_2 is the midpoint, (w_0 - w_2) + 1/2 ... exactly:
    # y_2 (w_0 - w_2) + t (w_0 - w_1) = 0 with y_2 = 1, t = -1/2.
    good = NoTieCertificate(multipliers=((2, fmpq(1)),), tie=fmpq(-1, 2))
    assert is_no_tie_certificate(W, 0, 1, good)
    negative = NoTieCertificate(multipliers=((2, fmpq(-1)),), tie=fmpq(1, 2))
    assert not is_no_tie_certificate(W, 0, 1, negative)  # exact zero sum, y < 0
    zero = NoTieCertificate(multipliers=((2, fmpq(0)),), tie=fmpq(0))
    assert not is_no_tie_certificate(W, 0, 1, zero)
    own = NoTieCertificate(multipliers=((1, fmpq(1)),), tie=fmpq(-1))
    assert not is_no_tie_certificate(W, 0, 1, own)  # multiplier on j itself
    off = NoTieCertificate(multipliers=((2, fmpq(1)),), tie=fmpq(-1, 3))
    assert not is_no_tie_certificate(W, 0, 1, off)
    # 0 and 3 can tie (an edge of the triangle): the zero combination
    # (w_0 - w_1) - 2 (w_0 - w_2) = 0 has a negative multiplier and must be rejected.
    mixed = NoTieCertificate(multipliers=((1, fmpq(1)), (2, fmpq(-2))), tie=fmpq(0))
    assert not is_no_tie_certificate(W, 0, 3, mixed)
    assert not is_no_tie_certificate(
        W, 0, 3, NoTieCertificate(multipliers=((1, fmpq(1, 3)), (2, fmpq(2, 3))),
                                  tie=fmpq(0)))


def test_injected_wrong_support_and_negative_weights_are_rejected(monkeypatch):
    """Float proposals that point at the wrong rows must not become certificates."""
    W = [[0, 0], [4, 0], [0, 4], [1, 1], [3, 0]]
    head = make_head(W)
    # w_1 is a vertex: on the support {0, 4} the only dependency,
    # (w_1 - w_0) - 4 (w_1 - w_4) = 0, has a negative weight; no certificate.
    assert argmax_module.label_certificate(head, 1, [0, 4]) is None
    assert argmax_module.label_certificate(head, 4, [0, 1]) is not None
    wrong = {"support": [2, 3]}  # rows 2 and 3 never carry w_4
    monkeypatch.setattr(argmax_module, "nnls_support", lambda A, eq=None: wrong["support"])
    monkeypatch.setattr(argmax_module, "propose_strict",
                        lambda A, eq=None, start=None, **kw: ("support", [1, 2]))
    monkeypatch.setattr(argmax_module, "perceptron",
                        lambda F, labels, X0, **kw: (np.zeros(len(labels), bool),
                                                     np.asarray(X0, float),
                                                     [[] for _ in labels]))
    result = argmaxable_labels(W)
    assert set(result.argmaxable) == reference_argmaxable(W)
    check_argmax_evidence(W, result)


def test_injected_three_way_tie_point_is_rejected(monkeypatch):
    """The float search proposes x = (1, 1), where labels 0, 1 and 2 all score 2."""
    W = [[2, 0], [0, 2], [1, 1], [-5, -5]]
    head = make_head(W)
    assert ties_module._certify_points(head, [(0, 1, np.array([1.0, 1.0]))]) == {}
    # 0 and 3 can tie; on the support {1, 2} the only dependency is
    # (w_0 - w_1) - 2 (w_0 - w_2) = 0, with a negative multiplier: no certificate.
    assert ties_module._motzkin_on_support(head, 0, 3, [1, 2]) is None
    cert = ties_module._motzkin_on_support(head, 0, 1, [2])
    assert cert is not None and is_no_tie_certificate(W, 0, 1, cert)
    monkeypatch.setattr(ties_module, "perceptron",
                        lambda F, labels, X0, **kw: (np.ones(len(labels), bool),
                                                     np.ones((F.shape[1], len(labels))),
                                                     [[] for _ in labels]))
    monkeypatch.setattr(ties_module, "_segment_witnesses", lambda head, a, pairs: {})
    monkeypatch.setattr(ties_module, "propose_strict",
                        lambda A, eq=None, start=None, **kw: ("point", np.ones(A.shape[1])))
    monkeypatch.setattr(ties_module, "nnls_support", lambda A, eq=None: None)
    T = tie_pairs(W)
    assert T.can_tie(0, 1) is False
    assert set(T.tie_pairs) == reference_ties_2d(W)
    check_tie_evidence(W, T)


# --- checkpoints and biases through the command line ----------------------------------

def _sharded_checkpoint(tmp_path, W: np.ndarray, b: np.ndarray):
    """A directory with a two-shard checkpoint: the head (bf16) in one shard, an
    embedding, the bias (f32) and a 1-D norm in the other."""
    from test_analyze import bf16_bytes, write_safetensors

    folder = tmp_path / "model"
    folder.mkdir()
    write_safetensors(folder / "model-00001-of-00002.safetensors",
                      {"lm_head.weight": ("BF16", W.shape, bf16_bytes(W))})
    emb = np.ones((W.shape[0], W.shape[1]), dtype=np.float32)
    write_safetensors(folder / "model-00002-of-00002.safetensors",
                      {"model.embed_tokens.weight": ("F32", emb.shape, emb.tobytes()),
                       "lm_head.bias": ("F32", b.shape, b.astype("<f4").tobytes()),
                       "model.norm.weight": ("F32", (W.shape[1],),
                                             np.ones(W.shape[1], "<f4").tobytes())})
    index = {"metadata": {}, "weight_map": {
        "lm_head.weight": "model-00001-of-00002.safetensors",
        "model.embed_tokens.weight": "model-00002-of-00002.safetensors",
        "lm_head.bias": "model-00002-of-00002.safetensors",
        "model.norm.weight": "model-00002-of-00002.safetensors"}}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    return folder


def test_sharded_checkpoint_directory_with_and_without_bias(run_cli, tmp_path):
    rng = np.random.default_rng(4)
    W = (rng.integers(-8, 9, size=(12, 3)) / 4).astype(np.float32)  # exact in bf16
    b = (rng.integers(-8, 9, size=12) / 2).astype(np.float32)
    folder = _sharded_checkpoint(tmp_path, W, b)
    code, out, err = run_cli(["analyze", "--matrix", str(folder), "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert "lm_head.weight" in doc["source"] and "BF16" in doc["source"]
    assert "lm_head.weight" in err
    rows = W.astype(np.float64).tolist()
    assert doc == {**to_json(analyze([[Fraction(v) for v in r] for r in rows])),
                   "source": doc["source"], "labels_file": None}
    # With the bias: the exact bias engine, checked against its own certificates.
    code, out, err = run_cli(["analyze", "--matrix", str(folder), "--bias", "auto",
                               "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert "lm_head.bias" in doc["source"]
    from verify.analyze.bias import argmaxable_with_bias

    Wf = [[Fraction(v) for v in r] for r in rows]
    bf = [Fraction(float(v)) for v in b]
    assert doc["argmaxable"] == argmaxable_with_bias(Wf, bf).argmaxable
    for i, x in doc["argmax_witnesses"].items():
        z = [sum(Fraction(a) * Fraction(c) for a, c in zip(r, x)) + bk
             for r, bk in zip(Wf, bf)]
        assert all(z[int(i)] > z[k] for k in range(len(z)) if k != int(i))
    code, out, err = run_cli(["analyze", "--matrix", str(folder), "--tensor",
                               "model.embed_tokens.weight", "--json"])
    assert code == 0 and "model.embed_tokens.weight" in json.loads(out)["source"]


@pytest.mark.parametrize("extra, needle", [
    (["--tensor", "nope"], "no tensor named"),
    (["--tensor", "model.norm.weight"], "2-D"),
    (["--bias", "model.norm.weight"], "entries for 12 labels"),
    (["--bias", "missing.npy"], "no such file"),
])
def test_checkpoint_errors_are_one_line(run_cli, tmp_path, extra, needle):
    W = np.ones((12, 3), dtype=np.float32)
    folder = _sharded_checkpoint(tmp_path, W, np.zeros(12, dtype=np.float32))
    code, out, err = run_cli(["analyze", "--matrix", str(folder), *extra])
    assert code == 2 and out == "" and err.count("\n") == 1 and needle in err, err
