"""The float32 screen of large heads (``verify.analyze.screen``), ``--jobs``, progress.

The screen is used from ``SCREEN_MIN_ENTRIES`` entries on; the tests lower that
threshold so that small heads go through it, and compare with the path of small heads
and with independent references (Python integers, hull vertices by Carathéodory,
polygon edges).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_analyze import check_argmax_evidence, check_tie_evidence, reference_argmaxable, \
    reference_ties_2d
from conftest import _run_cli
from verify.analyze import analyze, make_head, to_json
from verify.analyze import argmax as argmax_module
from verify.analyze import head as head_module
from verify.analyze import screen as screen_module
from verify.analyze.neighbours import cosine_neighbours
from verify.analyze.screen import exact_dots, screened_relaxation, tie_point
from verify.analyze.ties import ProjectedTieWitness, TieWitness


@pytest.fixture
def screened(monkeypatch):
    """Every head goes through the screen, in chunks of 64 labels."""
    monkeypatch.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
    monkeypatch.setattr(argmax_module, "SCREEN_CHUNK", 64)


def _head(seed: int, n: int, d: int) -> np.ndarray:
    """Gaussian float32 rows with rows inside the hull, a duplicate and a zero row."""
    W = np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32)
    W[:12] = (W[12:24] * 0.25).astype(np.float32)
    W[40] = W[41]
    W[60] = 0
    return W


def _without_screen(W, **kw):
    saved = head_module.SCREEN_MIN_ENTRIES
    head_module.SCREEN_MIN_ENTRIES = 1 << 60
    try:
        return analyze(W, cells=False, rays=0, **kw)
    finally:
        head_module.SCREEN_MIN_ENTRIES = saved


@pytest.mark.parametrize("seed,n,d", [(0, 260, 5), (1, 240, 8), (2, 280, 6)])
def test_screened_heads_answer_like_small_heads(screened, seed, n, d):
    W = _head(seed, n, d)
    fast = analyze(W, cells=False, rays=0)
    assert fast.head.screened
    slow = _without_screen(W)
    assert fast.argmax.argmaxable == slow.argmax.argmaxable
    assert fast.ties.tie_pairs == slow.ties.tie_pairs
    assert fast.ties.non_tie_pairs == slow.ties.non_tie_pairs
    assert to_json(fast)["cosine"] == to_json(slow)["cosine"]
    rows = [list(r) for r in fast.head.Z]  # c W, c > 0: the same answers and evidence
    check_argmax_evidence(rows, fast.argmax)
    check_tie_evidence(rows, fast.ties)
    projected = [e for e in fast.ties.evidence.values() if isinstance(e, ProjectedTieWitness)]
    assert projected  # the tie screen was exercised


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(8, 30), st.integers(0, 10 ** 6))
def test_screened_plane_heads_match_the_polygon(n, seed):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
        W = np.random.default_rng(seed).integers(-9, 10, size=(n, 2)).tolist()
        a = analyze(np.array(W, dtype=np.int64), cells=False)
    assert a.head.screened
    assert set(a.argmax.argmaxable) == reference_argmaxable(W)
    assert set(a.ties.tie_pairs) == reference_ties_2d(W)
    check_argmax_evidence(W, a.argmax)
    check_tie_evidence(W, a.ties)


# --- soundness of the bound: rows that float32 cannot tell apart ------------------------

def _near_cancellation(data, n, d, bits):
    base = data.draw(st.lists(st.integers(-2 ** bits, 2 ** bits), min_size=d, max_size=d))
    Z = [[b + data.draw(st.integers(-3, 3)) for b in base] for _ in range(n)]
    return [[max(-(2 ** 61), min(2 ** 61, v)) for v in row] for row in Z]


def _score(Z, k, x):
    return sum(a * b for a, b in zip(Z[k], x))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 6), st.integers(2, 4), st.integers(20, 61), st.data())
def test_screen_accepts_only_true_witnesses(n, d, bits, data):
    """Every point the screen accepts (one round, no relaxation) is a witness in Python
    integers; rows agree in their high bits, so float32 scores alone often lie."""
    head = make_head(np.array(_near_cancellation(data, n, d, bits), dtype=np.int64))
    if head.Zarr is None:
        return
    Z = [list(r) for r in head.Z]
    points = np.array([[data.draw(st.integers(-2 ** 16, 2 ** 16)) for _ in range(d)]
                       for _ in range(4)], dtype=np.float64).T
    points[0, :] = 2.0 ** 16  # the largest entry is 2^16: the screen keeps the point
    targets = [data.draw(st.integers(0, n - 1)) for _ in range(4)]
    found, _, _ = screened_relaxation(head, targets, lambda cols: points[:, cols], rounds=1)
    for c, x in found.items():
        x = [int(v) for v in x]
        assert x == [int(v) for v in points[:, c]]
        t = targets[c]
        assert all(_score(Z, t, x) > _score(Z, k, x) for k in range(n) if k != t)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 6), st.integers(2, 4), st.integers(20, 61), st.data())
def test_tie_screen_accepts_only_true_tie_witnesses(n, d, bits, data):
    head = make_head(np.array(_near_cancellation(data, n, d, bits), dtype=np.int64))
    if head.Zarr is None:
        return
    Z = [list(r) for r in head.Z]
    pairs = [tuple(data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2,
                                      unique=True))) for _ in range(4)]
    points = np.array([[data.draw(st.integers(-2 ** 20, 2 ** 20)) for _ in range(d)]
                       for _ in range(4)], dtype=np.float64).T
    points[0, :] = 2.0 ** 20
    I = [p[0] for p in pairs]
    J = [p[1] for p in pairs]
    found, _, _ = screened_relaxation(head, I, lambda cols: points[:, cols], partners=J,
                                      rounds=1, bits=20)
    for c, (x, p) in found.items():
        t, j = pairs[c]
        point = tie_point(head, t, j, x, p)
        top = _score(Z, t, point)
        assert _score(Z, j, point) == top
        assert all(_score(Z, k, point) < top for k in range(n) if k not in (t, j))


def test_tie_screen_accounts_for_the_move_onto_the_hyperplane():
    """At x = (1, 5) label 0 beats label 2 (20 > 19), but the tie point
    x' = 20 x - 10 e_0 = (10, 100) gives label 2 the lead (340 > 200 = 200): the screen
    must judge x', not x."""
    head = make_head(np.array([[20, 0], [0, 2], [4, 3]], dtype=np.int64))
    start = np.array([[2.0 ** 20 / 5], [2.0 ** 20]])
    found, _, _ = screened_relaxation(head, [0], lambda cols: start, partners=[1],
                                      rounds=1, bits=20)
    Z = [list(r) for r in head.Z]
    for c, (x, p) in found.items():
        point = tie_point(head, 0, 1, x, p)
        assert _score(Z, 0, point) == _score(Z, 1, point) > _score(Z, 2, point)


def test_tie_point_lies_on_the_hyperplane_in_the_direction_of_x():
    head = make_head(np.array([[7, -3, 2], [1, 4, -9], [0, 0, 1]], dtype=np.int64))
    x = np.array([5, 1, -2])
    for t, j in ((0, 1), (1, 0), (0, 2)):
        v = [a - b for a, b in zip(head.Z[t], head.Z[j])]
        p = int(np.argmax(np.abs(v)))
        point = tie_point(head, t, j, x, p)
        assert sum(a * b for a, b in zip(v, point)) == 0
        # off x only in coordinate p, by a positive multiple
        others = [c for c in range(3) if c != p]
        ratio = {point[c] / x[c] for c in others}
        assert len(ratio) == 1 and ratio.pop() > 0


def _tie_point_reference(Z, t, j, x, p) -> tuple:
    """``|v_p| x - sign(v_p) (v . x) e_p`` divided by the gcd of its entries, written
    out in Python integers (the definition that :func:`tie_point` computes faster)."""
    from math import gcd

    v = [a - b for a, b in zip(Z[t], Z[j])]
    vx = sum(a * b for a, b in zip(v, x))
    point = [abs(v[p]) * a for a in x]
    point[p] -= vx if v[p] > 0 else -vx
    g = gcd(*point)
    return tuple(a // g for a in point) if g > 1 else tuple(point)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 5), st.integers(1, 6), st.sampled_from([3, 30, 61, 90]), st.data())
def test_tie_point_is_the_primitive_projected_point(n, d, bits, data):
    """Against the definition, for int64 heads and heads of Python integers (bits 90),
    points with zeros, common factors and ``v_p = 0``."""
    entry = st.integers(-2 ** bits, 2 ** bits)
    W = [[data.draw(entry) for _ in range(d)] for _ in range(n)]
    head = make_head(W)
    Z = [list(r) for r in head.Z]
    t, j = data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
    factor = data.draw(st.sampled_from([1, 2, 6, 2 ** 10]))
    x = [factor * data.draw(st.integers(-2 ** 8, 2 ** 8)) for _ in range(d)]
    p = data.draw(st.integers(0, d - 1))
    expected = _tie_point_reference(Z, t, j, x, p)
    assert tie_point(head, t, j, np.array(x, dtype=np.float64), p) == expected
    assert tie_point(head, t, j, np.array(x, dtype=np.int32), p) == expected


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8), st.data())
def test_long_points_become_floats_rounded_down_after_a_power_of_two(d, data):
    from verify.analyze.head import _float_points

    entry = st.one_of(st.integers(-3, 3), st.integers(-2 ** 120, 2 ** 120))
    points = [tuple(data.draw(entry) for _ in range(d)) for _ in range(3)]
    X, exact = _float_points(points, d)
    for c, point in enumerate(points):
        top = max(abs(v) for v in point).bit_length()
        e = max(0, top - 53)
        assert exact[c] == (e == 0)
        assert [int(v) for v in X[:, c]] == [v >> e for v in point]  # floor(v / 2^e)


def test_projected_witnesses_pickle_as_plain_witnesses(screened):
    W = _head(4, 200, 4)
    a = analyze(W, cells=False, rays=0)
    projected = [e for e in a.ties.evidence.values() if isinstance(e, ProjectedTieWitness)]
    assert projected
    e = projected[0]
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is TieWitness and back.point == e.point and back == TieWitness(e.point)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 4), st.integers(1, 1100), st.data())
def test_exact_dots_match_python_integers(m, d, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32)))
    V = rng.integers(-2 ** 63 + 1, 2 ** 63 - 1, size=(m, d), dtype=np.int64)
    X = rng.integers(-2 ** 20, 2 ** 20 + 1, size=(d, m), dtype=np.int64)
    V[:, 0] = data.draw(st.sampled_from([-2 ** 63 + 1, 2 ** 63 - 1, 0, -1]))
    X[0, :] = data.draw(st.sampled_from([-2 ** 20, 2 ** 20, 0]))
    expected = [sum(int(a) * int(b) for a, b in zip(V[c], X[:, c])) for c in range(m)]
    assert exact_dots(V, X) == expected


# --- cosine neighbours through the float32 pre-filter -----------------------------------

def test_float32_cosine_prefilter_changes_nothing(monkeypatch):
    rng = np.random.default_rng(7)
    W = rng.standard_normal((1500, 6)).astype(np.float32)
    W[10:20] = W[0] * np.arange(1, 11, dtype=np.float32)[:, None]  # equal cosines
    W[30] = 0
    W[31] = -W[32]
    # integer rows closer to each other than float32 can resolve: their cosines with
    # each other differ from 1 by about 1e-12, far below the float32 error 1e-6
    close = rng.integers(-2 ** 30, 2 ** 30, size=6) + rng.integers(-2 ** 10, 2 ** 10,
                                                                  size=(40, 6))
    far = rng.integers(-2 ** 30, 2 ** 30, size=(400, 6))
    for rows in (W, np.vstack([close, far]).astype(np.int64)):
        reference = cosine_neighbours(make_head(rows), 3)
        with monkeypatch.context() as mp:
            mp.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
            head = make_head(rows)
            assert head.screened
            assert cosine_neighbours(head, 3) == reference


# --- --jobs and --scheduler: the same bytes ---------------------------------------------

def _digest(result) -> str:
    """The JSON output's SHA-256 (a failing comparison of two long strings is slow)."""
    return hashlib.sha256(json.dumps(to_json(result)).encode()).hexdigest()


def test_jobs_give_byte_identical_output(screened):
    W = _head(3, 300, 6)
    reference = _digest(analyze(W, cells=False, rays=0))
    for jobs in (2, 3):
        assert _digest(analyze(W, cells=False, rays=0, jobs=jobs)) == reference


def test_cosine_blocks_on_workers_give_the_same_neighbours(screened, monkeypatch):
    """The float32 cosine pass in blocks of 16 labels on two workers, with and without a
    bias (whose workers hold the lifted head and take its rows by ``view``): the same
    output as in one process. A blob of near-identical rows makes every member a
    candidate of every other (the exact keys by limbs)."""
    import verify.analyze.neighbours as neighbours_module
    from verify.analyze.report import analyze_with_bias

    monkeypatch.setattr(neighbours_module, "COSINE_TASK_LABELS", 16)
    W = _head(8, 200, 5)
    W[100:130] = W[99] + np.float32(1e-6) * np.arange(30, dtype=np.float32)[:, None]
    b = np.random.default_rng(9).standard_normal(200).astype(np.float32)
    reference = _digest(analyze(W, cells=False, rays=0, neighbours=3))
    assert _digest(analyze(W, cells=False, rays=0, neighbours=3, jobs=2)) == reference
    one = analyze_with_bias(W, b, neighbours=3, rays=0)
    two = analyze_with_bias(W, b, neighbours=3, rays=0, jobs=2)
    assert json.dumps(to_json(one)) == json.dumps(to_json(two))
    assert one.cosine.neighbours == analyze(W, cells=False, rays=0,
                                            neighbours=3).cosine.neighbours


def test_jobs_on_the_command_line(screened, tmp_path):
    path = tmp_path / "w.npy"
    np.save(path, _head(5, 260, 5))
    outputs = []
    for extra in ([], ["--jobs", "2"]):
        code, out, err = _run_cli(["analyze", "--matrix", str(path), "--json", *extra])
        assert code == 0, err
        outputs.append(out)
    assert hashlib.sha256(outputs[0].encode()).digest() == \
        hashlib.sha256(outputs[1].encode()).digest()
    code, _, err = _run_cli(["analyze", "--matrix", str(path), "--jobs", "0"])
    assert code == 2 and "must be >= 1" in err


def _blas_threads(head, task) -> list[int]:
    """The thread counts of the BLAS libraries loaded in the process running a task."""
    from threadpoolctl import threadpool_info

    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_forked_workers_run_one_blas_thread_each():
    from threadpoolctl import threadpool_limits

    from verify.analyze.parallel import Workers

    head = make_head(np.eye(3, dtype=np.int64))
    # Even when the parent allows several threads, each worker limits itself to one.
    with threadpool_limits(limits=2, user_api="blas"):
        assert any(t > 1 for t in _blas_threads(head, None)) or os.cpu_count() == 1
        with Workers(head, jobs=2) as workers:
            counts = workers.map(_blas_threads, range(4))
        assert any(t > 1 for t in _blas_threads(head, None)) or os.cpu_count() == 1
    assert all(c and all(t == 1 for t in c) for c in counts), counts


def test_dask_scheduler_gives_the_same_output(screened):
    pytest.importorskip("dask.distributed")
    W = _head(6, 220, 5)
    reference = _digest(analyze(W, cells=False, rays=0))
    assert _digest(analyze(W, cells=False, rays=0, jobs=2, scheduler="local")) == reference


# --- progress ---------------------------------------------------------------------------

class _Bar:
    def __init__(self, description, total):
        self.description, self.total, self.count, self.closed = description, total, 0, False

    def update(self, k):
        self.count += k

    def close(self):
        self.closed = True


def test_every_phase_reports_progress_to_its_total(screened):
    bars = []

    def progress(description, total):
        bars.append(_Bar(description, total))
        return bars[-1]

    W = _head(8, 250, 5)
    analyze(W, cells=False, rays=0, progress=progress)
    assert [b.description for b in bars] == ["labels", "cosine", "pairs"]
    for bar in bars:
        assert bar.closed and bar.total > 0 and bar.count == bar.total, bar.description


def test_large_heads_shoot_no_rays_unless_asked(screened):
    """Heads of at least 2^20 entries decide the neighbour pairs only by default (8 rays
    per label would cost 16 n^2 d multiply-adds); --rays still adds tie pairs."""
    W = _head(4, 260, 5)
    default = analyze(W, cells=False)
    assert _digest(default) == _digest(analyze(W, cells=False, rays=0))
    more = analyze(W, cells=False, rays=2)
    assert set(more.ties.tie_pairs) > set(default.ties.tie_pairs)
    check_tie_evidence([list(r) for r in more.head.Z], more.ties)


# --- the float64 check of the columns the float32 bound leaves open ----------------------

def _tie_parameters_of(head, X, t, j):
    from verify.analyze.screen import _tie_parameters

    return _tie_parameters(head, head.float32_rows(), X, np.asarray(t), np.asarray(j))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 7), st.integers(1, 4), st.sampled_from([2, 20, 45, 61]), st.data())
def test_float64_check_agrees_with_the_definitions(n, d, bits, data):
    """Every column's verdict (argmax, and tie at the projected point) is the exact one,
    both ways: rows that share up to 61 high bits (float64 cannot tell them apart, the
    integer path decides), small rows (exact ties and zero margins), and columns that
    are multiples of a unit vector (tie point 0)."""
    from verify.analyze.screen import _float64_check

    head = make_head(np.array(_near_cancellation(data, n, d, bits), dtype=np.int64))
    if head.Zarr is None:
        return
    Z = [list(r) for r in head.Z]
    m = 5
    X = np.array([[data.draw(st.one_of(st.integers(-2, 2), st.integers(-2 ** 20, 2 ** 20)))
                   for _ in range(m)] for _ in range(d)], dtype=np.float64)
    X[:, 0] = 0
    X[data.draw(st.integers(0, d - 1)), 0] = 2.0 ** 20
    t = np.array([data.draw(st.integers(0, n - 1)) for _ in range(m)])
    j = np.array([data.draw(st.integers(0, n - 1).filter(lambda k, a=a: k != a)) for a in t])
    wins = _float64_check(head, X, t, None)
    for c in range(m):
        x = [int(v) for v in X[:, c]]
        assert bool(wins[c]) == all(_score(Z, t[c], x) > _score(Z, k, x)
                                    for k in range(n) if k != t[c])
    p, gamma, _, _ = _tie_parameters_of(head, X, t, j)
    finite = np.isfinite(gamma)
    if not finite.any():
        return
    cs = np.flatnonzero(finite)
    ties = _float64_check(head, X[:, cs], t[cs], (j[cs], p[cs], gamma[cs]))
    for r, c in enumerate(cs):
        point = tie_point(head, int(t[c]), int(j[c]), X[:, c], int(p[c]))
        top = _score(Z, t[c], point)
        expected = (_score(Z, j[c], point) == top
                    and all(_score(Z, k, point) < top for k in range(n) if k not in (t[c], j[c])))
        assert bool(ties[r]) == expected


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(1, 1100), st.data())
def test_exact_row_dots_match_python_integers(m, d, data):
    from verify.analyze.screen import exact_row_dots

    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32)))
    Z = rng.integers(-2 ** 63 + 1, 2 ** 63 - 1, size=(m, d), dtype=np.int64)
    x = rng.integers(-2 ** 20, 2 ** 20 + 1, size=d, dtype=np.int64)
    Z[:, 0] = data.draw(st.sampled_from([-2 ** 63 + 1, 2 ** 63 - 1, 0, -1]))
    x[0] = data.draw(st.sampled_from([-2 ** 20, 2 ** 20, 0]))
    expected = [sum(int(a) * int(b) for a, b in zip(Z[k], x)) for k in range(m)]
    assert exact_row_dots(Z, x) == expected
    assert exact_row_dots(Z, x.astype(np.float64)) == expected


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 6), st.integers(1, 14), st.data())
def test_kth_largest_is_the_partition_value_and_leaves_the_block(m, n, data):
    """Against ``np.partition`` on rows with repeats and ``-inf`` (the masked labels),
    for every ``k`` (by maxima up to ``KTH_BY_MAXIMA``, by partition above); the block
    is unchanged afterwards."""
    from verify.analyze.neighbours import kth_largest

    value = st.one_of(st.integers(-3, 3).map(float), st.just(-np.inf))
    C = np.array([[data.draw(value) for _ in range(n)] for _ in range(m)], dtype=np.float32)
    k = data.draw(st.integers(1, n))
    before = C.copy()
    got = kth_largest(C, k)
    assert np.array_equal(C, before)
    assert np.array_equal(got, np.partition(before, n - k, axis=1)[:, n - k])


@given(st.integers(0, 2 ** 32 - 1), st.sampled_from([8, 20, 21, 40]),
       st.sampled_from([1, 30, 61]), st.booleans())
@settings(max_examples=150, deadline=None)
def test_tie_point_is_the_primitive_projection(seed, xbits, zbits, common_factor):
    """``tie_point`` against its definition in Python integers: the primitive positive
    multiple of ``|v_p| x - sign(v_p) (v . x) e_p``, on both of its paths (int64 dots
    for ``|x| <= 2^20``, Python integers beyond)."""
    from math import gcd

    from verify.analyze.screen import tie_point

    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 9))
    Z = rng.integers(-(1 << zbits), 1 << zbits, size=(3, d), dtype=np.int64)
    head = make_head(Z)
    x = rng.integers(-(1 << xbits), (1 << xbits) + 1, size=d, dtype=np.int64)
    if common_factor:
        x = x * 6  # a common factor of the x_c, c != p, that the gcd must take out
    t, j = 0, 1
    v = [int(a) - int(b) for a, b in zip(head.Z[t], head.Z[j])]
    p = max(range(d), key=lambda c: abs(v[c]))
    got = tie_point(head, t, j, x, p)
    vx = sum(a * int(b) for a, b in zip(v, x))
    want = [abs(v[p]) * int(b) for b in x]
    want[p] -= vx if v[p] > 0 else -vx
    g = 0
    for a in want:
        g = gcd(g, a)
    want = [a // g for a in want] if g else want
    assert list(got) == want
    assert sum(a * b for a, b in zip(v, got)) == 0


@pytest.mark.parametrize("patience, gap", [(1, False), (2, False), (2, True), (3, True)])
def test_patience_stops_the_rounds_after_rounds_that_prove_nothing(monkeypatch, patience,
                                                                   gap):
    """``screened_relaxation(patience=p)`` runs rounds until ``p`` rounds in a row after
    the first have proved nothing, and no longer; what it proves is what the same
    rounds prove without ``patience``. (Random starts, so that the relaxation method
    proves labels after round 0; labels inside the hull are never proved, so without
    ``patience`` every round runs. With ``gap`` the float32 screen of round 1 is made
    to prove nothing, so that an idle round comes between rounds that prove.)"""
    rng = np.random.default_rng(4)
    W = np.rint(rng.standard_normal((60, 4)) * 2 ** 10).astype(np.int64)
    W[:10] //= 8  # rows near the centre: inside the hull
    head = make_head(W)
    labels = np.arange(60)
    starts = rng.standard_normal((4, 60))
    rounds_seen = []
    real = screen_module._screen

    def counted(*args, **kwargs):
        rounds_seen.append(None)
        out = real(*args, **kwargs)
        if gap and len(rounds_seen) == 2:
            none = np.zeros_like(out[0])
            out = (none, none) + tuple(out[2:])
        return out

    class Proofs:
        def __init__(self):
            self.rounds = []

        def update(self, k):
            self.rounds.append(len(rounds_seen) - 1)

    monkeypatch.setattr(screen_module, "_screen", counted)
    proofs = Proofs()
    found, left, _ = screened_relaxation(head, labels, lambda cols: starts[:, cols],
                                         rounds=40, patience=patience, progress=proofs)
    ran = len(rounds_seen)
    assert 1 < ran < 40 and left  # stopped early with columns left
    assert any(r > 0 for r in proofs.rounds)  # the relaxation method proved some
    if gap:
        assert 1 not in proofs.rounds and any(r > 1 for r in proofs.rounds)
    idle = [r for r in range(1, ran) if r not in proofs.rounds]
    assert idle[-patience:] == list(range(ran - patience, ran))
    runs, streak = [], 0
    for r in range(1, ran):
        streak = streak + 1 if r in idle else 0
        runs.append(streak)
    assert max(runs[:-1], default=0) < patience  # no earlier stop was due
    rounds_seen.clear()
    same, _, _ = screened_relaxation(head, labels, lambda cols: starts[:, cols],
                                     rounds=ran)
    assert sorted(same) == sorted(found)
    assert all(np.array_equal(same[c], found[c]) for c in found)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 40), st.integers(1, 5), st.integers(0, 10 ** 6), st.booleans(),
       st.integers(1, 3))
def test_equal_row_groups_are_the_groups_of_equal_rows(n, d, seed, collide, prefix):
    """``ExactHead.equal_row_groups`` (rows grouped by a few of their entries, then
    bucketed by a digest of their bytes and compared) against the definition, on rows
    drawn from a few distinct ones (with a row differing from another in one entry
    only), with 1 to 3 entries compared first, also with a digest that puts every row
    in one bucket: each group increasing, groups by first label."""
    class Same:
        def __init__(self, *args, **kwargs):
            pass

        def digest(self):
            return b"same"

    rng = np.random.default_rng(seed)
    distinct = rng.integers(-3, 4, size=(max(1, n // 3), d))
    Z = distinct[rng.integers(len(distinct), size=n)]
    Z[0, -1] += 1  # a row one unit from a row it may have equalled
    head = make_head(Z)
    assert head.Zarr is not None
    expected: dict = {}
    for i, row in enumerate(Z.tolist()):
        expected.setdefault(tuple(row), []).append(i)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(head_module, "EQUAL_ROWS_PREFIX", prefix)
        if collide:
            mp.setattr(head_module, "blake2b", Same)
        assert head.equal_row_groups() == sorted(expected.values(), key=lambda g: g[0])


@pytest.mark.parametrize("seed", range(3))
def test_mahalanobis_of_floor_rows_without_forming_them(seed):
    """The moments of rows and their copies moved down in the last coordinate, from the
    rows alone, against those of the stacked matrix (a head with a bias)."""
    rng = np.random.default_rng(seed)
    F = rng.standard_normal((40, 5)) * [1.0, 2.0, 0.5, 3.0, 0.25]
    s = float(rng.uniform(0.5, 4.0))
    floors = F.copy()
    floors[:, -1] -= s
    stacked = screen_module.mahalanobis(np.vstack([F, floors]))
    shifted = screen_module.mahalanobis(F, floor_shift=s)
    assert np.allclose(shifted.mean, stacked.mean, rtol=1e-12, atol=1e-12)
    assert np.allclose(shifted.precision, stacked.precision, rtol=1e-9, atol=1e-12)
    plain = screen_module.mahalanobis(F)
    assert not np.allclose(plain.precision, stacked.precision)


def test_a_head_with_a_bias_whitens_its_floor_rows_too():
    from verify.analyze.bias import bias_head

    rng = np.random.default_rng(5)
    W = rng.standard_normal((30, 4)).astype(np.float32)
    b = rng.standard_normal(30).astype(np.float32)
    head = bias_head(W, b)
    assert head.drop is not None and head.n == 2 * head.labels
    reference = screen_module.mahalanobis(head.F)
    assert np.allclose(head.mahalanobis().precision, reference.precision, rtol=1e-9)
    assert np.allclose(head.mahalanobis().mean, reference.mean, atol=1e-15)
