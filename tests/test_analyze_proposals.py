"""The float proposals of ``propose_strict``: minimum-norm cutting planes (NNLS), and
the HiGHS column program behind them.

Every proposal is only a hint that the analysis certifies exactly; these tests hold
the hints to what the docstring promises, since a wrong hint costs the exact simplex
method on all rows (minutes on a large head)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.analyze import proposals as proposals_module
from verify.analyze.proposals import Differences, propose_strict


def _systems(seed: int, count: int):
    """Random ``A`` (and sometimes ``eq``): many with a common direction (points),
    the rest centred (usually dependencies)."""
    rng = np.random.default_rng(seed)
    for trial in range(count):
        d = int(rng.integers(2, 7))
        N = int(rng.integers(1, 60))
        A = rng.normal(size=(N, d))
        if trial % 2:
            A += 1.5 * rng.normal(size=d)
        eq = rng.normal(size=d) if trial % 3 == 0 else None
        yield A, eq


def _is_dependency(A, eq, rows) -> bool:
    """``sum y_k a_k/|a_k|`` in span(eq) for some ``y >= 0`` with ``sum y = 1``."""
    from scipy.optimize import nnls

    sub = A[rows] / np.linalg.norm(A[rows], axis=1)[:, None]
    d = A.shape[1]
    cols = sub.T if eq is None else np.hstack([sub.T, eq[:, None], -eq[:, None]])
    M = np.vstack([cols, np.r_[np.ones(len(rows)), np.zeros(cols.shape[1] - len(rows))]])
    _, residual = nnls(M, np.r_[np.zeros(d), 1.0])
    return residual < 1e-8


def _min_margin(A, eq, z) -> float:
    """The smallest margin of the unit rows (projected onto eq^perp) at ``z / |z|``."""
    B = A.copy()
    if eq is not None:
        e = eq / np.linalg.norm(eq)
        B -= np.outer(B @ e, e)
    B /= np.linalg.norm(B, axis=1)[:, None]
    return float(np.min(B @ (z / np.linalg.norm(z))))


@pytest.mark.parametrize("method", ["nnls", "columns"])
def test_both_methods_propose_points_or_dependencies(method):
    """Each method alone, on random systems: a point has ``A z > 0`` (and
    ``eq . z = 0``), a support carries a dependency; both kinds occur, and the two
    methods agree on which kind (Gordan's alternative)."""
    kinds = set()
    for A, eq in _systems(11, 80):
        D = proposals_module._Dense(A)
        e = proposals_module._unit_vector(eq)
        active = proposals_module._first_rows(D, e, None, ())
        run = (proposals_module._propose_by_nnls if method == "nnls"
               else proposals_module._propose_by_columns)
        found = run(D, e, active, 60, proposals_module.EARLY_MARGIN)
        assert found is not None
        kind, value = found
        kinds.add(kind)
        if kind == "point":
            assert np.all(A @ value > 0)
            if eq is not None:
                assert abs(eq @ value) < 1e-9 * np.linalg.norm(eq) * np.linalg.norm(value)
        else:
            assert _is_dependency(A, eq, value)
        other = propose_strict(A, eq)
        assert other is not None and other[0] == kind
    assert kinds == {"point", "support"}


def test_the_optimum_maximises_the_smallest_unit_margin():
    """Run to the optimum (``early=None``), the NNLS point is the minimum-norm point
    of the hull of the unit rows: no unit vector has a larger smallest margin. Checked
    against the HiGHS program's optimum (a box, not a ball: its point, normalised, is
    one such unit vector) and against random unit vectors."""
    rng = np.random.default_rng(3)
    compared = 0
    for A, eq in _systems(7, 60):
        found = propose_strict(A, eq, early=None)
        if found[0] != "point":
            continue
        best = _min_margin(A, eq, found[1])
        D = proposals_module._Dense(A)
        e = proposals_module._unit_vector(eq)
        box = proposals_module._propose_by_columns(
            D, e, proposals_module._first_rows(D, e, None, ()), 60, None)
        assert box[0] == "point"
        assert _min_margin(A, eq, box[1]) <= best + 1e-7
        Z = rng.normal(size=(A.shape[1], 200))
        if e is not None:
            Z -= np.outer(e, e @ Z)
        for z in Z.T:
            assert _min_margin(A, eq, z) <= best + 1e-7
        compared += 1
    assert compared >= 10


def test_early_stop_leaves_a_tenth_of_the_margin():
    """Stopped early, every row keeps more than ``EARLY_MARGIN`` of the active
    optimum's margin, which is at least the full optimum's (fewer rows): so the early
    point has more than a tenth of the best smallest unit margin, and no more than
    all of it."""
    early_points = 0
    for A, eq in _systems(5, 200):
        early = propose_strict(A, eq)
        full = propose_strict(A, eq, early=None)
        assert early[0] == full[0]
        if early[0] == "point":
            best = _min_margin(A, eq, full[1])
            assert _min_margin(A, eq, early[1]) <= best + 1e-9
            assert _min_margin(A, eq, early[1]) > proposals_module.EARLY_MARGIN * best
            early_points += not np.allclose(early[1], full[1])
    assert early_points >= 5


def test_a_thin_cone_is_a_point_not_a_dependency():
    """Rows whose hull passes 1e-4 from the origin: a point (of margin about 1e-4),
    not a support, however small the residual of NNLS."""
    for eps in (1e-3, 1e-4, 1e-6):
        A = np.array([[1.0, eps], [-1.0, eps], [0.3, eps], [-0.7, eps]])
        kind, z = propose_strict(A)
        assert kind == "point" and np.all(A @ z > 0)


def test_a_zero_row_or_a_row_along_the_equation_is_the_support():
    """``a_k = 0`` or ``a_k`` parallel to ``eq``: no ``z`` with ``a_k . z > 0`` on
    ``eq^perp``, and that one row is the proposal."""
    A = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    assert propose_strict(A) == ("support", [2])
    eq = np.array([0.0, 0.0, 2.0])
    B = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -3.0]])
    assert propose_strict(B, eq) == ("support", [2])


def test_nnls_giving_up_hands_over_to_the_simplex_program(monkeypatch):
    """Where the NNLS cutting planes give up, the HiGHS program proposes instead."""
    calls = []
    real = proposals_module._propose_by_columns

    def spy(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(proposals_module, "_propose_by_nnls", lambda *a: None)
    monkeypatch.setattr(proposals_module, "_propose_by_columns", spy)
    A = np.array([[1.0, 0.2], [0.3, 1.0], [1.0, 1.0]])
    kind, z = propose_strict(A)
    assert kind == "point" and np.all(A @ z > 0)
    C = np.array([[1.0, 0.0], [-1.0, 0.1], [0.0, -1.0]])
    kind, rows = propose_strict(C)
    assert kind == "support" and _is_dependency(C, None, rows)
    assert len(calls) == 2


def test_differences_keep_their_norms_and_match_the_explicit_matrix():
    """``Differences`` without the explicit matrix: products, norms (kept between
    calls) and norms orthogonal to a direction equal those of ``f_i - f_k``."""
    from verify.analyze.head import make_head

    rng = np.random.default_rng(2)
    head = make_head(rng.integers(-9, 10, size=(40, 5)))
    A = Differences(head, 3, skip=(7,))
    A.dense = None  # the streamed path, as on large heads
    explicit = head.F[3] - head.F[[k for k in range(40) if k not in (3, 7)]]
    z = rng.normal(size=5)
    assert np.allclose(A @ z, explicit @ z)
    first = A.norms()
    assert np.allclose(first, np.linalg.norm(explicit, axis=1))
    assert A.norms() is first
    v = rng.normal(size=5)
    along = explicit - np.outer(explicit @ v, v) / (v @ v)
    kept = A.norms(along=v)
    assert np.allclose(kept, np.linalg.norm(along, axis=1))
    assert A.norms() is first
    assert A.norms(along=v / np.linalg.norm(v)) is kept  # the same direction: kept
    w = rng.normal(size=5)
    other = explicit - np.outer(explicit @ w, w) / (w @ w)
    assert np.allclose(A.norms(along=w), np.linalg.norm(other, axis=1))


def test_facet_crossings_are_the_ray_exits_through_the_pairs_own_facet(monkeypatch):
    """The two-product shortcut of ``ties._facet_crossings`` against the ray exits of
    ``ties._ray_exits`` (one search of the first facet per segment), segment by
    segment: the same pairs and the same points wherever a segment leaves through the
    pair's own facet with its next exit well apart (unless an earlier segment gave the
    pair its candidate); every shortcut point lies on its segment, and is a float tie
    of the pair on top."""
    from verify.analyze import ties as ties_module
    from verify.analyze.head import make_head

    rng = np.random.default_rng(8)
    agreed = 0
    for trial in range(6):
        W = rng.standard_normal((60, 4))
        W[: 20] *= 3  # some labels far out, the rest nearer the centre
        head = make_head(np.round(W * 64).astype(np.int64))
        F = head.F
        pairs = [(i, j) for i in range(60) for j in range(i + 1, 60)][trial::7][:200]
        I = np.array([p[0] for p in pairs])
        J = np.array([p[1] for p in pairs])
        # Points where each label wins: its row direction, pushed a little.
        Xi = F[I].T + 0.01 * rng.standard_normal((4, len(pairs)))
        Xj = F[J].T + 0.01 * rng.standard_normal((4, len(pairs)))
        keep = (np.argmax(F @ Xi, axis=0) == I) & (np.argmax(F @ Xj, axis=0) == J)
        I, J, Xi, Xj = I[keep], J[keep], Xi[:, keep], Xj[:, keep]
        column = {}
        for c, (i, j) in enumerate(zip(I, J)):
            column[(int(i), int(j))] = (c, Xi, Xj)
            column[(int(j), int(i))] = (c, Xj, Xi)
        every = [(min(i, j), max(i, j)) for i, j, _ in
                 ties_module._facet_crossings(F, I, J, Xi, Xj)]
        assert len(every) == len(set(every))  # one candidate per pair, the first
        for scale in ties_module.SEGMENT_SCALES:
            monkeypatch.setattr(ties_module, "SEGMENT_SCALES", (scale,))
            crossings = {(i, j): p for i, j, p in
                         ties_module._facet_crossings(F, I, J, Xi, Xj)}
            monkeypatch.undo()
            for (i, j), p in crossings.items():
                sc = F @ p
                assert abs(sc[i] - sc[j]) <= 1e-9 * np.abs(sc).max()
                assert np.delete(sc, [i, j]).max() < sc[i] + 1e-9 * np.abs(sc).max()
                c, A, B = column[(i, j)]
                step, along = p - A[:, c], scale * B[:, c] - A[:, c]
                assert step @ along > 0  # on the segment, not behind its start
                assert np.allclose(step, along * (step @ along) / (along @ along))
            for src, dst, S, T in ((I, J, Xi, Xj), (J, I, Xj, Xi)):
                rival, point, ok = ties_module._ray_exits(F, S, T * scale - S, src)
                for c in np.nonzero(ok & (rival == dst))[0]:
                    key = (int(src[c]), int(dst[c]))
                    if key not in crossings:
                        # Found by the segment the other way: a pair is not tried
                        # again once a segment gave it a candidate.
                        assert key[::-1] in crossings and src is J
                        continue
                    assert np.allclose(crossings[key], point[:, c], rtol=1e-9,
                                       atol=1e-12)
                    agreed += 1
    assert agreed >= 20


def test_quotient_texts_are_the_text_of_fmpq():
    """``bias.quotient_texts`` against ``str(fmpq(y) / s)``: signs, whole numbers,
    common factors, large entries."""
    from flint import fmpq

    from verify.analyze.bias import quotient_texts

    rng = np.random.default_rng(4)
    cases = [(0, 5, -10, 7, 1), (6, -4, 9, 3), (2**70 * 3, -(2**65), 2**64 * 6)]
    for _ in range(200):
        size = int(rng.integers(1, 6))
        bits = int(rng.choice([3, 20, 62, 200]))
        ys = [int(v) for v in rng.integers(-2**20, 2**20, size=size)]
        ys = [v << int(rng.integers(0, bits)) for v in ys]
        s = int(rng.integers(1, 2**20)) << int(rng.integers(0, bits))
        cases.append(tuple(ys) + (s,))
    for lifted in cases:
        s = fmpq(lifted[-1])
        assert quotient_texts(lifted) == [str(fmpq(v) / s) for v in lifted[:-1]]


def test_exact_sum_is_the_sum():
    """``bias.exact_sum`` (numerators added per denominator) against ``Fraction``s."""
    from fractions import Fraction

    from flint import fmpq

    from verify.analyze.bias import exact_sum

    rng = np.random.default_rng(6)
    for _ in range(100):
        S = int(rng.integers(1, 10**6)) * 2**int(rng.integers(0, 200)) + 1
        values = [fmpq(int(rng.integers(0, 10**6)) * 2**int(rng.integers(0, 100)), S)
                  for _ in range(int(rng.integers(0, 12)))]
        values += [fmpq(int(v), 7) for v in rng.integers(-50, 50, size=3)]
        values += [int(v) for v in rng.integers(-5, 5, size=2)]
        got = exact_sum(values)
        want = sum((Fraction(int(fmpq(v).p), int(fmpq(v).q)) for v in values), Fraction(0))
        assert type(got) is fmpq and Fraction(int(got.p), int(got.q)) == want


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0, -1.0, 2.5, np.inf, np.nan, 1e-300]), max_size=40),
       st.integers(-2, 45))
def test_smallest_is_the_start_of_the_stable_sort(values, k):
    """``smallest`` against ``np.argsort(kind="stable")``: ties (by index), infinities
    and NaN (last), and every ``k`` from below zero to beyond the length."""
    from verify.analyze.proposals import smallest

    x = np.array(values, dtype=np.float64)
    expected = np.argsort(x, kind="stable")[:max(k, 0)]
    assert smallest(x, k).tolist() == expected.tolist()


def test_each_round_keeps_only_the_rows_of_the_optimum(monkeypatch):
    """The NNLS cutting planes do not accumulate rows: every program after the first
    holds the rows with positive weight in the one before and the new violated rows
    (at most ``max(d, 4)``), and the answer is still a point of positive margin or a
    dependency."""
    import scipy.optimize

    calls = []
    real = scipy.optimize.nnls

    def spy(M, b, **kwargs):
        y, residual = real(M, b, **kwargs)
        calls.append((M.shape[1], int(np.count_nonzero(y > 0))))
        return y, residual

    monkeypatch.setattr(scipy.optimize, "nnls", spy)
    rng = np.random.default_rng(5)
    rounds = 0
    for trial in range(12):
        d = 8
        A = rng.normal(size=(3000, d)) + (1.2 if trial % 2 else 0.0) * rng.normal(size=d)
        calls.clear()
        kind, value = propose_strict(A, early=None)
        if kind == "point":
            assert _min_margin(A, None, value) > 0
        else:
            assert _is_dependency(A, None, value)
        for (_, kept), (columns, _) in zip(calls, calls[1:]):
            assert columns <= kept + max(d, 4)
            rounds += 1
    assert rounds >= 10  # several rounds were taken, so the bound was tested


def test_screened_tie_points_are_exact_tie_witnesses(monkeypatch):
    """``ties._screened_points`` (the check of the segments' and the per-pair float tie
    points on screened heads): every witness it returns is an exact tie witness of its
    pair on the integer rows, one per pair, for pairs of the candidates only, and it
    finds most of them. Small integer rows, so that many differences ``z_i - z_j`` have
    zero entries: the point must be moved along the coordinate it was proved for."""
    from verify.analyze import head as head_module
    from verify.analyze import ties as ties_module
    from verify.analyze.head import make_head

    monkeypatch.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
    rng = np.random.default_rng(9)
    W = rng.integers(-4, 5, size=(60, 4))
    W[:20] *= 3
    head = make_head(W)
    assert head.screened
    F = head.F
    pairs = [(i, j) for i in range(60) for j in range(i + 1, 60)][::5]
    I = np.array([p[0] for p in pairs])
    J = np.array([p[1] for p in pairs])
    Xi = F[I].T + 0.01 * rng.standard_normal((4, len(pairs)))
    Xj = F[J].T + 0.01 * rng.standard_normal((4, len(pairs)))
    keep = (np.argmax(F @ Xi, axis=0) == I) & (np.argmax(F @ Xj, axis=0) == J)
    cands = ties_module._facet_crossings(F, I[keep], J[keep], Xi[:, keep], Xj[:, keep])
    found = ties_module._screened_points(head, cands)
    wanted = {(min(i, j), max(i, j)) for i, j, _ in cands}
    assert set(found) <= wanted and len(found) >= len(wanted) // 2
    for (i, j), witness in found.items():
        assert ties_module.is_tie_witness(head.Z, i, j, witness.point)
