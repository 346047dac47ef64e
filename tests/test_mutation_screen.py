"""The exact checks of the float32 screen (``verify.analyze.screen``) and the candidate
selection of the float32 cosine pass (``verify.analyze.neighbours``), piece by piece and fast.

Written against the mutation run of ``screen.py`` (docs/testing.md). Every verdict is
compared with its definition in Python integers (``z_t . x > z_k . x`` for all ``k``;
for ties ``z_t . x' = z_j . x' > z_k . x'`` at the tie point ``x'``), on inputs where
floats lie: rows that share their high bits, so that float32 or float64 products say
"wins" where the exact margin is 0 or -1, rows that tie exactly, a third label that
also reaches the top at the tie point, equal rows, the zero point. Wrong proposals are
injected as starting points and must be rejected; clear witnesses must be proved by
the float bounds alone (the exact fall-back is the slow path, not a second chance for
a bound that is too large).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from verify.analyze import head as head_module
from verify.analyze import screen
from verify.analyze.head import make_head
from verify.analyze.neighbours import cosine_neighbours, kth_largest


# --- references in Python integers ------------------------------------------------------

def _score(Z, k, x) -> int:
    return sum(int(a) * int(b) for a, b in zip(Z[k], x))


def _wins(Z, t, x) -> bool:
    top = _score(Z, t, x)
    return all(_score(Z, k, x) < top for k in range(len(Z)) if k != t)


def _ties(Z, t, j, x) -> bool:
    top = _score(Z, t, x)
    return _score(Z, j, x) == top and all(
        _score(Z, k, x) < top for k in range(len(Z)) if k not in (t, j))


def _tie_point_reference(Z, t, j, x, p) -> tuple:
    """``|v_p| x - sign(v_p) (v . x) e_p``, divided by the gcd of its entries."""
    v = [int(a) - int(b) for a, b in zip(Z[t], Z[j])]
    x = [int(a) for a in x]
    vx = sum(a * b for a, b in zip(v, x))
    point = [abs(v[p]) * a for a in x]
    point[p] -= vx if v[p] > 0 else -vx
    g = math.gcd(*point)
    return tuple(a // g for a in point) if g > 1 else tuple(point)


def _first_largest(v) -> int:
    top = max(abs(int(a)) for a in v)
    return next(c for c, a in enumerate(v) if abs(int(a)) == top)


def _head(rows):
    head = make_head(np.array(rows, dtype=np.int64))
    assert head.Zarr is not None
    return head, [list(map(int, r)) for r in head.Z]


def _near_rows(rng, n, d, bits, spread=3):
    """Rows that agree in their ``bits`` high bits: float products cannot order them."""
    base = rng.integers(-2 ** bits, 2 ** bits, size=d, dtype=np.int64) if bits < 62 else \
        rng.integers(-2 ** 61, 2 ** 61, size=d, dtype=np.int64)
    return (base[None, :] + rng.integers(-spread, spread + 1, size=(n, d))).tolist()


def _near_head_with_twins(rng, n, d, bits):
    """A head of :func:`_near_rows` whose last two rows are equal; ``(head, Z)``."""
    rows = _near_rows(rng, n, d, bits)
    rows[n - 1] = list(rows[n - 2])
    return _head(rows)


A53 = 2 ** 53
A24 = 2 ** 24


# --- rounding_error_bounds and Float32Rows.bounds ---------------------------------------

def _documented_bounds(X, d, unit, tiny, absolute_error, exact):
    """``R = 2 (d + 2 + 2 sqrt(d) [inexact]) u |x|_2`` and ``A = 2 d ((e + tiny) (max |x_c|
    + 1) + 2 tiny)``, column by column in Python floats."""
    R, A = [], []
    for c in range(X.shape[1]):
        col = [float(v) for v in X[:, c]]
        norm = math.sqrt(math.fsum(v * v for v in col))
        top = max((abs(v) for v in col), default=0.0)
        factor = d + 2 + (0.0 if exact[c] else 2 * math.sqrt(d))
        R.append(2 * factor * unit * norm)
        A.append(2 * d * ((absolute_error + tiny) * (top + 1) + 2 * tiny))
    return R, A


@pytest.mark.parametrize("d,m", [(1, 3), (2, 4), (7, 5), (0, 2)])
def test_rounding_error_bounds_are_the_documented_formula(d, m):
    rng = np.random.default_rng(d * 10 + m)
    X = rng.integers(-2 ** 20, 2 ** 20 + 1, size=(d, m)).astype(np.float64)
    if d:
        X[:, 0] = 0  # the zero column: only the underflow term
        X[d - 1, -1] = -2.0 ** 20
    exact = np.array([c % 2 == 0 for c in range(m)])
    for unit, tiny, err in ((2.0 ** -53, 2.0 ** -1074, 0.0), (2.0 ** -24, 2.0 ** -150, 2.0 ** -61),
                            (1e-3, 1e-5, 1e-4)):
        R, A = screen.rounding_error_bounds(X, d, unit=unit, tiny=tiny, absolute_error=err,
                                            exact=exact)
        eR, eA = _documented_bounds(X, d, unit, tiny, err, exact)
        assert np.shape(R) == (m,) and np.shape(A) == (m,)
        for c in range(m):
            assert R[c] == pytest.approx(eR[c], rel=1e-12, abs=0)
            assert A[c] == pytest.approx(eA[c], rel=1e-12, abs=0)
        # exact=None: every column is the exact point
        R1, A1 = screen.rounding_error_bounds(X, d, unit=unit, tiny=tiny, absolute_error=err)
        eR1, eA1 = _documented_bounds(X, d, unit, tiny, err, [True] * m)
        assert list(R1) == pytest.approx(eR1, rel=1e-12, abs=0)
        assert list(A1) == pytest.approx(eA1, rel=1e-12, abs=0)
    # the default absolute error is 0
    R2, A2 = screen.rounding_error_bounds(X, d, unit=1e-3, tiny=1e-5)
    eR2, eA2 = _documented_bounds(X, d, 1e-3, 1e-5, 0.0, [True] * m)
    assert list(R2) == pytest.approx(eR2, rel=1e-12, abs=0)
    assert list(A2) == pytest.approx(eA2, rel=1e-12, abs=0)


def _adversarial_rows(rng, n, d):
    """Integer rows with odd low bits beyond float32's 24: every entry rounds."""
    return (rng.integers(2 ** 30, 2 ** 31, size=(n, d)) * rng.choice([-1, 1], size=(n, d))
            | 1).tolist()


@pytest.mark.parametrize("seed,n,d", [(0, 6, 2), (1, 5, 9), (2, 4, 40)])
def test_float32_bounds_cover_the_float32_product(seed, n, d):
    """``|fl32(F x) - omega_k . x| <= R |f_k| + A`` for the float32 product the screen
    uses, against the exact product of the integer rows (``omega = z / 2^s``)."""
    rng = np.random.default_rng(seed)
    head, Z = _head(_adversarial_rows(rng, n, d))
    rows = head.float32_rows()
    X = rng.integers(-2 ** 16, 2 ** 16 + 1, size=(d, 5)).astype(np.float64)
    X[:, 0] = 2.0 ** 16  # aligned with rounding of one sign: the errors add up
    S = rows.F @ X.astype(np.float32)
    R, A = rows.bounds(X)
    scale = Fraction(1, 2 ** head.bits)
    worst = 0.0
    for k in range(n):
        for c in range(X.shape[1]):
            exact = _score(Z, k, X[:, c]) * scale
            err = abs(Fraction(float(S[k, c])) - exact)
            bound = Fraction(float(R[c])) * Fraction(float(rows.norms[k])) + Fraction(float(A[c]))
            assert err <= bound
            worst = max(worst, float(err / bound))
    assert worst > 1e-3  # the bound is not vacuous: float32 errors reach a part of it
    _check_float32_rows(head, rows)


def _check_float32_rows(head, rows):
    """The float32 copy of ``F``, the norms of its rows, their largest, and the largest
    ``|f_kp|`` of the float64 rows in each column."""
    assert rows.F.dtype == np.float32 and np.array_equal(rows.F, head.F.astype(np.float32))
    assert np.allclose(rows.norms, np.linalg.norm(rows.F.astype(np.float64), axis=1),
                       rtol=1e-15, atol=0)
    assert rows.norm_max == rows.norms.max()
    assert np.array_equal(rows.column_max, np.abs(head.F).max(axis=0))
    assert rows.F64 is head.F and rows.d == head.d
    assert rows.absolute_error == head._absolute_error


def test_float32_bounds_are_those_of_unit_u_plus_u64():
    """``unit = 2^-24 + 2^-53`` (float32 arithmetic on float64 rows), ``tiny = 2^-150``,
    the head's absolute error."""
    rng = np.random.default_rng(9)
    head, _ = _head(_adversarial_rows(rng, 4, 3))
    X = rng.integers(-2 ** 16, 2 ** 16, size=(3, 4)).astype(np.float64)
    for err in (0.0, 2.0 ** -61):
        rows = screen.Float32Rows(head.F, err)
        R, A = rows.bounds(X)
        eR, eA = _documented_bounds(X, 3, 2.0 ** -24 + 2.0 ** -53, 2.0 ** -150, err, [True] * 4)
        assert list(R) == pytest.approx(eR, rel=1e-15, abs=0)
        assert list(A) == pytest.approx(eA, rel=1e-15, abs=0)


@pytest.mark.parametrize("block", [1, 2, 3, 4096])
def test_float32_rows_in_blocks_of_any_height(block):
    rng = np.random.default_rng(block)
    head, _ = _head(_adversarial_rows(rng, 7, 3))
    _check_float32_rows(head, screen.Float32Rows(head.F, head._absolute_error, block=block))
    rows = screen.Float32Rows(head.F, 2.0 ** -61, block=block)
    assert rows.absolute_error == 2.0 ** -61


# --- _integer_columns, exact dot products -------------------------------

@pytest.mark.parametrize("bits", [1, 16, 20])
def test_integer_columns_scale_the_largest_entry_to_2_to_the_bits(bits):
    X = np.array([[0.3, 0.0, -5e-9, 1e6, 2.5],
                  [-0.6, 0.0, 1e-9, -3e6, 0.5],
                  [0.1, 0.0, 0.0, 1.0, -2.5]])
    Xi = screen._integer_columns(X, bits)
    assert Xi.shape == X.shape
    assert np.all(Xi == np.rint(Xi))
    top = 2.0 ** bits
    for c in range(X.shape[1]):
        m = np.abs(X[:, c]).max()
        if m == 0:
            assert np.all(Xi[:, c] == 0)
            continue
        assert np.abs(Xi[:, c]).max() == top
        assert np.all(np.abs(Xi[:, c] - X[:, c] * (top / m)) <= 0.5)
        assert np.all(np.sign(Xi[:, c]) * np.sign(X[:, c]) >= 0)


@pytest.mark.parametrize("d", [1, 2, 511, 512, 513, 1100])
def test_exact_dots_of_extreme_entries_are_the_integer_dots(d):
    rng = np.random.default_rng(d)
    m = 4
    V = rng.integers(-2 ** 63 + 1, 2 ** 63 - 1, size=(m, d), dtype=np.int64)
    X = rng.integers(-2 ** 20, 2 ** 20 + 1, size=(d, m), dtype=np.int64)
    V[0, :] = 2 ** 63 - 1  # every product of one sign at the largest sizes
    X[:, 0] = 2 ** 20
    V[1, :] = -2 ** 63 + 1
    X[:, 1] = 2 ** 20
    V[2, :] = -1
    X[:, 2] = -2 ** 20
    expected = [sum(int(a) * int(b) for a, b in zip(V[c], X[:, c])) for c in range(m)]
    got = screen.exact_dots(V, X)
    assert got == expected and all(type(v) is int for v in got)
    expected_rows = [sum(int(a) * int(b) for a, b in zip(V[k], X[:, 0])) for k in range(m)]
    got_rows = screen.exact_row_dots(V, X[:, 0])
    assert got_rows == expected_rows and all(type(v) is int for v in got_rows)
    assert screen.exact_row_dots(V, X[:, 1].astype(np.float64)) == \
        [sum(int(a) * int(b) for a, b in zip(V[k], X[:, 1])) for k in range(m)]


# --- tie_point and the tie parameters ----------------------------------------------------

@pytest.mark.parametrize("bits", [4, 40, 61, 90])
def test_tie_point_is_the_primitive_projected_point_in_integers(bits):
    rng = np.random.default_rng(bits)
    d, n = 5, 4
    W = [[int(v) for v in rng.integers(-2 ** min(bits, 62), 2 ** min(bits, 62), size=d)]
         for _ in range(n)]
    if bits > 62:
        W = [[v << (bits - 62) | 1 for v in row] for row in W]
    W[3] = list(W[2])  # equal rows: v = 0
    W[1][0] = W[0][0]  # v_0 = 0 for the pair (0, 1)
    head = make_head(W)
    Z = [list(map(int, r)) for r in head.Z]
    cases = 0
    for t, j in ((0, 1), (1, 0), (0, 2), (2, 3), (3, 1)):
        for x in ([6, -4, 2, 10, 8], [0, 0, 0, 0, 0], [1, 0, 0, 0, 0], [3, 5, -7, 1, 2],
                  [2 ** 20, -2 ** 20, 4, 2 ** 19, -12]):
            for p in range(d):
                expected = _tie_point_reference(Z, t, j, x, p)
                for arr in (np.array(x, dtype=np.float64), np.array(x, dtype=np.int32)):
                    got = screen.tie_point(head, t, j, arr, p)
                    assert got == expected and all(type(v) is int for v in got)
                cases += 1
    assert cases


def test_tie_parameters_are_their_definitions():
    """``p`` the first index of the largest ``|v_p|``, ``gamma`` the float of
    ``sign(v_p) (v . x) / |v_p|`` (within ``3.2 u |gamma|``), infinite for equal rows;
    ``ftp`` the float64 entry of row ``t`` in column ``p``, ``colmax`` the largest
    ``|f_kp|``."""
    rng = np.random.default_rng(5)
    rows = rng.integers(-2 ** 61, 2 ** 61, size=(6, 4)).tolist()
    rows[1] = [r - 2 ** 40 * (c == 2) for c, r in enumerate(rows[0])]  # v = 2^40 e_2
    rows[2] = [r + 3 * (c == 3) - 3 * (c == 0) for c, r in enumerate(rows[0])]  # |v_0| = |v_3|
    rows[5] = list(rows[4])
    head, Z = _head(rows)
    t = np.array([0, 1, 0, 2, 4, 3, 5])
    j = np.array([1, 0, 2, 0, 5, 4, 1])
    X = rng.integers(-2 ** 20, 2 ** 20 + 1, size=(4, t.size)).astype(np.float64)
    X[:, 1] = [2 ** 20, 1, 0, -2 ** 20]
    p, gamma, ftp, colmax = screen._tie_parameters(head, head.float32_rows(), X, t, j)
    for c in range(t.size):
        v = [a - b for a, b in zip(Z[t[c]], Z[j[c]])]
        if not any(v):
            assert gamma[c] == np.inf
            continue
        assert p[c] == _first_largest(v)
        vp = v[p[c]]
        exact = Fraction(sum(a * int(b) for a, b in zip(v, X[:, c])) * (1 if vp > 0 else -1),
                         abs(vp))
        assert abs(Fraction(float(gamma[c])) - exact) <= Fraction(3.2 * 2.0 ** -53) * abs(exact)
        assert ftp[c] == head.F[t[c], p[c]]
        assert colmax[c] == np.abs(head.F[:, p[c]]).max()


# --- _exact_margins ----------------------------------------------------------------------

@pytest.mark.parametrize("tp,jp", [(4, 1), (1, 0), (0, 1)])
def test_exact_margins_against_the_definitions(tp, jp):
    """Argmax: an exact tie is no win, a margin of 1 is. Ties (both signs of ``v_p``,
    ``|v_p| = 1`` and ``3``, the third row with an entry at ``p``): a third label that
    reaches the top at the tie point, or passes it by 1, refuses the pair; 1 below
    accepts it. Equal rows have no hyperplane."""
    A = A53
    rows = [[A + 3, 0, 0, tp],  # t
            [A + 3, 0, 0, jp],  # j: v = (tp - jp) e_3
            [A + 1, 2, 1, 7],  # k: at x' ties with t when x_2 = 0
            [-A, 1, 1, 1]]
    head, Z = _head(rows)
    for x2 in (-1, 0, 1):
        x = np.array([2 ** 20, 2 ** 20, x2, 5])
        for t, j in ((0, 1), (1, 0)):
            p = 3
            point = _tie_point_reference(Z, t, j, x, p)
            expected = _ties(Z, t, j, point)
            assert expected == (x2 == -1)
            got = screen._exact_margins(head, x, t, np.array([2, 3]), (j, p))
            assert got == expected
        # argmax of t over k alone, at x: (t - k) . x = 2^21 - 2^21 - x2 - 7 * 5 + 15
    for x, expected in (([2 ** 20, 2 ** 20, 0, 0], False), ([2 ** 20, 2 ** 20, -1, 0], True),
                        ([2 ** 20, 2 ** 20, 1, 0], False)):
        assert _wins([Z[0], Z[2]], 0, x) == expected
        assert screen._exact_margins(head, np.array(x), 0, np.array([2]), None) == expected
    # equal rows (t and its copy 1): no hyperplane, whatever the other rows
    head, Z = _head([[A + 3, 0, 0, tp], [A + 3, 0, 0, tp], [-A, 1, 1, 1]])
    assert _wins(Z, 0, [1, 0, 0, 0]) is False
    assert screen._exact_margins(head, np.array([1, 2, 3, 4]), 0, np.array([2]), (1, 0)) is False
    # a row that ties in argmax mode is no win, also among rows that lose
    assert screen._exact_margins(head, np.array([1, 1, 1, 1]), 0, np.array([2, 1]), None) is False
    assert screen._exact_margins(head, np.array([1, 1, 1, 1]), 0, np.array([2]), None) is True


# --- _float64_check ----------------------------------------------------------------------

def _near_rounding_head():
    """Rows on which float64 products lie: ``2^53 + 3`` rounds to ``2^53 + 4`` and
    ``2^53 + 1`` to ``2^53``.

    At ``x = (2^20, 2^20, x_2)``: row 0 against row 1 has the exact margin ``-x_2``
    (float64: ``+2^21``); row 2 against row 0 has ``+x_2 + ...``; rows 3, 4 are far below.
    """
    A = A53
    return _head([[A + 3, 0, 0],
                  [A + 1, 2, 1],
                  [A + 1, 2, 0],
                  [-A, 5, 5],
                  [0, -A, 0]])


def test_float64_check_where_float64_products_lie():
    head, Z = _near_rounding_head()
    X = np.array([[2 ** 20] * 6, [2 ** 20] * 6, [1, 0, -1, 1, 0, -1]], dtype=np.float64)
    t = np.array([0, 0, 0, 1, 1, 1])
    got = screen._float64_check(head, X, t, None)
    expected = [_wins(Z, int(t[c]), X[:, c]) for c in range(X.shape[1])]
    assert list(got) == expected
    assert expected.count(True) >= 1 and expected.count(False) >= 3
    # the float64 scores order rows 0 and 1 the other way round than the integers
    S = head.F @ X
    assert S[0, 0] > S[1, 0] and _score(Z, 0, X[:, 0]) < _score(Z, 1, X[:, 0])


def test_float64_check_rejects_the_zero_point_and_ties_and_accepts_clear_witnesses(monkeypatch):
    head, Z = _head([[4, 0], [0, 4], [-4, 0], [0, -4], [1, 1]])
    X = np.array([[0, 1, 1, 2 ** 20, -3, 1], [0, 1, 0, 1, -2 ** 20, 2 ** 20]], dtype=np.float64)
    t = np.array([4, 0, 0, 0, 3, 0])
    calls = []
    real = screen._exact_margins
    monkeypatch.setattr(screen, "_exact_margins",
                        lambda *a: calls.append(a[2]) or real(*a))
    got = screen._float64_check(head, X, t, None)
    assert list(got) == [_wins(Z, int(t[c]), X[:, c]) for c in range(6)] == \
        [False, False, True, True, True, False]
    # the clear columns (2 to 5, won or lost by far) are settled by the float64 bound
    assert calls == [4, 0]


def _tie_block(head, X, t, j):
    p, gamma, _, _ = screen._tie_parameters(head, head.float32_rows(), X, t, j)
    return p, gamma


def _tie_reference(head, Z, X, t, j, p):
    out = []
    for c in range(X.shape[1]):
        point = screen.tie_point(head, int(t[c]), int(j[c]), X[:, c], int(p[c]))
        out.append(_ties(Z, int(t[c]), int(j[c]), point))
    return out


def test_float64_tie_check_where_float64_products_lie(monkeypatch):
    """The tie columns of :func:`test_exact_margins_against_the_definitions` (float64
    cannot tell the third row from the top), the three-way tie of a small head, and
    the move onto the hyperplane that hands the lead to a third label."""
    A = A53
    head, Z = _head([[A + 3, 0, 0, 3], [A + 3, 0, 0, 0], [A + 1, 2, 1, 7], [-A, 1, 1, 1]])
    X = np.array([[2 ** 20] * 6, [2 ** 20] * 6, [-1, 0, 1, -1, 0, 1], [5, 5, 5, -9, -9, -9]],
                 dtype=np.float64)
    t = np.array([0, 0, 0, 1, 1, 1])
    j = np.array([1, 1, 1, 0, 0, 0])
    p, gamma = _tie_block(head, X, t, j)
    expected = _tie_reference(head, Z, X, t, j, p)
    assert expected == [True, False, False, True, False, False]
    assert list(screen._float64_check(head, X, t, (j, p, gamma))) == expected

    # three labels meet on the whole line x_0 = x_1: never a tie witness of (0, 1)
    head, Z = _head([[1, 0], [0, 1], [2, -1], [-1, -1]])
    X = np.array([[3, 2 ** 20, -5, 7], [2 ** 20, 3, -2 ** 20, 7]], dtype=np.float64)
    t, j = np.array([0, 1, 0, 0]), np.array([1, 0, 1, 2])
    p, gamma = _tie_block(head, X, t, j)
    expected = _tie_reference(head, Z, X, t, j, p)
    assert expected[:3] == [False] * 3
    assert list(screen._float64_check(head, X, t, (j, p, gamma))) == expected

    # at x = (2^20 / 5, 2^20) label 0 beats label 2, at x' label 2 leads
    head, Z = _head([[20, 0], [0, 2], [4, 3]])
    X = np.array([[2 ** 20 // 5, 2 ** 20, -2 ** 17], [2 ** 20, 2 ** 20 // 5, -2 ** 20]],
                 dtype=np.float64)
    t, j = np.array([0, 0, 1]), np.array([1, 1, 0])
    p, gamma = _tie_block(head, X, t, j)
    expected = _tie_reference(head, Z, X, t, j, p)
    assert expected[0] is False and _wins(Z, 0, X[:, 0])
    assert list(screen._float64_check(head, X, t, (j, p, gamma))) == expected
    assert True in expected


def test_float64_tie_check_counts_the_rounding_of_gamma(monkeypatch):
    """``v = (3, 1)``, ``x = (2^20, x_1)``: ``gamma = 2^20 + x_1 / 3`` is rounded to a
    multiple of ``2^-32``, so ``Y_0 = x_0 - gamma`` is off by up to ``2^-33`` while
    ``|Y|`` is about ``x_1``: the error of ``Y_p`` (``delta``) dominates ``R``. At the tie
    point ``(-x_1, 3 x_1)`` the row ``k = (-30, -10)`` (ten times the norm of ``t``) ties
    with ``t`` and ``j``: its float margin is that error times ``|f_t - f_k|``, above the
    bound without ``delta`` (or with ``|f_k|`` left out), so only the whole bound sends it
    to the exact check. Clear tie columns need no exact check."""
    head, Z = _head([[3, 1], [0, 0], [-30, -10], [-5, -5]])
    x1 = np.array([1, 2, 4, 5, 7, 8, 10, 11])
    X = np.array([[2 ** 20] * x1.size, x1], dtype=np.float64)
    t, j = np.zeros(x1.size, dtype=int), np.ones(x1.size, dtype=int)
    p, gamma = _tie_block(head, X, t, j)
    assert np.all(gamma != np.rint(gamma))
    expected = _tie_reference(head, Z, X, t, j, p)
    assert expected == [False] * x1.size
    assert list(screen._float64_check(head, X, t, (j, p, gamma))) == expected
    # a long row 3 x_1 below at the tie point: its margin at xi, x_1 / 2^42, is below
    # delta |f_k|; the pair ties (the bound must not go negative and call it lost)
    head, Z = _head([[3, 1], [0, 0], [-3 * 2 ** 40, -2 ** 40 - 1]])
    p, gamma = _tie_block(head, X, t, j)
    expected = _tie_reference(head, Z, X, t, j, p)
    assert expected == [True] * x1.size
    assert list(screen._float64_check(head, X, t, (j, p, gamma))) == expected
    # clear ties (gamma of both signs, not integers): settled by the float64 bound
    calls = []
    real = screen._exact_margins
    monkeypatch.setattr(screen, "_exact_margins", lambda *a: calls.append(a[2]) or real(*a))
    head, Z = _head([[4, 0, 1], [0, 4, 1], [-4, -4, 0], [0, 0, -9], [1, 1, 0]])
    X = np.array([[2 ** 20] * 4, [2 ** 20 - 1, 2 ** 20 + 1, 2 ** 20 - 7, 3], [0, 1, -1, 0]],
                 dtype=np.float64)
    t, j = np.array([0, 1, 0, 0]), np.array([1, 0, 1, 1])
    p, gamma = _tie_block(head, X, t, j)
    assert np.all(gamma != 0)
    expected = _tie_reference(head, Z, X, t, j, p)
    assert list(screen._float64_check(head, X, t, (j, p, gamma))) == expected
    assert expected[:3] == [True] * 3 and calls == []


@pytest.mark.parametrize("seed,bits", [(0, 2), (1, 20), (2, 45), (3, 61), (4, 61), (5, 52)])
def test_float64_check_agrees_with_the_definitions_on_near_rows(seed, bits):
    rng = np.random.default_rng(seed)
    n, d, m = 6, 3, 40
    head, Z = _near_head_with_twins(rng, n, d, bits)
    X = rng.integers(-2 ** 20, 2 ** 20 + 1, size=(d, m)).astype(np.float64)
    X[:, :8] = rng.integers(-2, 3, size=(d, 8))
    t = rng.integers(0, n, size=m)
    j = (t + rng.integers(1, n, size=m)) % n
    got = screen._float64_check(head, X, t, None)
    assert list(got) == [_wins(Z, int(t[c]), X[:, c]) for c in range(m)]
    p, gamma = _tie_block(head, X, t, j)
    cs = np.flatnonzero(np.isfinite(gamma))
    got = screen._float64_check(head, X[:, cs], t[cs], (j[cs], p[cs], gamma[cs]))
    assert list(got) == _tie_reference(head, Z, X[:, cs], t[cs], j[cs], p[cs])


# --- _exact_check ------------------------------------------------------------------------

@pytest.mark.parametrize("seed,bits,block", [(0, 61, 256), (1, 3, 2), (2, 61, 3), (3, 30, 1)])
def test_exact_check_gives_the_exact_verdict_of_every_unsure_column(monkeypatch, seed, bits,
                                                                    block):
    """Columns picked out of a block (not its first ones), in blocks of any width, argmax
    and ties, with equal rows (no hyperplane: decided at the tie point by ``wins``)."""
    monkeypatch.setattr(screen, "FLOAT64_CHECK_COLUMNS", block)
    rng = np.random.default_rng(seed)
    n, d, m = 5, 3, 30
    head, Z = _near_head_with_twins(rng, n, d, bits)
    Xi = rng.integers(-2 ** 20, 2 ** 20 + 1, size=(d, m)).astype(np.float64)
    Xi[:, 1] = 0
    t = rng.integers(0, n, size=m)
    partners = (t + rng.integers(1, n, size=m)) % n
    for c in range(4, m, 2):  # every other column: the top two labels at x
        scores = sorted(((_score(Z, k, Xi[:, c]), k) for k in range(n)), reverse=True)
        t[c], partners[c] = scores[0][1], scores[1][1]
    t[:4], partners[:4] = [3, 4, 3, 0], [4, 3, 4, 3]
    cols = np.arange(m)
    unsure = np.array(sorted(rng.choice(np.arange(1, m), size=17, replace=False).tolist()
                             + [0, 1, 2]))
    got = screen._exact_check(head, Xi, t, unsure, None, cols, None)
    expected = [_wins(Z, int(t[c]), Xi[:, c]) for c in unsure]
    assert list(got) == expected and True in expected and False in expected
    tie = screen._tie_parameters(head, head.float32_rows(), Xi, t, partners)
    widths = []
    real64 = screen._float64_check
    monkeypatch.setattr(screen, "_float64_check",
                        lambda h, X, *a: widths.append(X.shape[1]) or real64(h, X, *a))
    wins = []
    real = head.wins
    monkeypatch.setattr(head, "wins", lambda points, targets, partners: (
        wins.extend(zip(targets, partners)) or real(points, targets, partners=partners)))
    got = screen._exact_check(head, Xi, t, unsure, partners, cols, tie)
    # only the pairs of equal rows (no hyperplane) are decided by ``wins``
    assert sorted(wins) == sorted((int(t[c]), int(partners[c])) for c in unsure
                                  if not np.isfinite(tie[1][c]))
    assert wins
    # the float64 products go in blocks of FLOAT64_CHECK_COLUMNS columns (the memory peak)
    assert sum(widths) + len(wins) == unsure.size
    assert all(w == block for w in widths[:-1]) and 0 < widths[-1] <= block
    expected = _tie_reference(head, Z, Xi[:, unsure], t[unsure], partners[unsure],
                              tie[0][unsure])
    assert list(got) == expected and True in expected and False in expected


def test_equal_rows_tie_only_when_no_other_label_exists():
    """Two equal rows tie everywhere: with no third label every point is a tie witness
    (the tie point 0 included), with one there is no hyperplane to put it on."""
    for rows, expected in (([[2, 1], [2, 1]], True), ([[2, 1], [2, 1], [-1, 0]], False)):
        head, Z = _head(rows)
        Xi = np.array([[3.0, 0.0], [5.0, 0.0]])
        t, j = np.array([0, 1]), np.array([1, 0])
        tie = screen._tie_parameters(head, head.float32_rows(), Xi, t, j)
        assert np.all(np.isinf(tie[1]))
        got = screen._exact_check(head, Xi, t, np.array([0, 1]), j, np.arange(2), tie)
        assert list(got) == [expected] * 2 == _tie_reference(head, Z, Xi, t, j, tie[0])


# --- the screen: accept only proofs --------------------------------------------------------

def _run(head, targets, X, partners=None, rounds=1, bits=16):
    X = np.asarray(X, dtype=np.float64)
    return screen.screened_relaxation(head, targets, lambda cols: X[:, cols],
                                      partners=partners, rounds=rounds, bits=bits)


def _check_found(head, Z, found, targets, partners=None):
    for c, w in found.items():
        if partners is None:
            assert _wins(Z, targets[c], [int(v) for v in w]), (c, w)
        else:
            x, p = w
            t, j = targets[c], partners[c]
            assert p == _first_largest([a - b for a, b in zip(Z[t], Z[j])])
            assert _ties(Z, t, j, screen.tie_point(head, t, j, x, p)), (c, w)


def _count_exact_checks(monkeypatch):
    calls = []
    real = screen._exact_check

    def counting(head, Xi, t, unsure, *rest):
        calls.extend(int(c) for c in unsure)
        return real(head, Xi, t, unsure, *rest)

    monkeypatch.setattr(screen, "_exact_check", counting)
    return calls


def test_float32_wins_that_the_integers_refute_are_rejected(monkeypatch):
    """At ``x = (2^16, 2^16, 1)`` float32 puts row 0 (``2^24 + 3`` rounds to ``2^24 + 4``)
    above row 1 (``2^24 + 1`` rounds to ``2^24``) by ``2^17``; exactly row 0 ties with row 1
    at ``x_2 = 0`` and loses by 1 at ``x_2 = 1``. A large row far below makes the largest
    row norm useless, so the entry-by-entry bound is tried too."""
    head, Z = _head([[A24 + 3, 0, 0], [A24 + 1, 2, 1], [-2 ** 40, 0, 0], [0, 0, 0]])
    rows = head.float32_rows()
    X = np.array([[2 ** 16] * 4, [2 ** 16] * 4, [1, 0, -1, 2]], dtype=np.float64)
    S = rows.F @ X.astype(np.float32)
    assert all(S[0, c] > S[1, c] for c in range(4))  # float32 calls row 0 the winner
    expected = [_wins(Z, 0, X[:, c]) for c in range(4)]
    assert expected == [False, False, True, False]
    calls = _count_exact_checks(monkeypatch)
    found, left, rivals = _run(head, [0] * 4, X)
    assert sorted(found) == [2]
    assert calls == [0, 1, 2, 3]  # each float win went to the exact check
    assert sorted(left) == [0, 1, 3] and all(r == [1] for r in (rivals[0], rivals[1]))
    _check_found(head, Z, found, [0] * 4)


def test_clear_witnesses_are_proved_by_the_float32_bound(monkeypatch):
    """Witnesses with margins far above the error bound need no exact check; one row of
    norm 2^30 times the others makes the largest norm too coarse, so the entry-by-entry
    bound proves them."""
    head, Z = _head([[1, 0], [0, 1], [-2 ** 30, -2 ** 30]])
    rows = head.float32_rows()
    calls = _count_exact_checks(monkeypatch)
    X = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.1]])
    Xi = screen._integer_columns(X, 16)
    R, A = rows.bounds(Xi)
    assert 2.0 ** -15 < R[0] * rows.norm_max  # the margin 2^16 / 2^31 is below this bound
    found, left, _ = _run(head, [0, 1, 0], X)
    assert sorted(found) == [0, 1, 2] and not left and calls == []
    _check_found(head, Z, found, [0, 1, 0])
    assert [int(v) for v in found[2]] == [2 ** 16, round(0.1 * 2 ** 16)]
    # row 2 wins at (-1, -1) by far: the largest norm is its own
    found, left, _ = _run(head, [2], np.array([[-1.0], [-1.0]]))
    assert sorted(found) == [0] and calls == []
    assert [int(v) for v in found[0]] == [-2 ** 16, -2 ** 16]


def test_the_zero_point_and_losing_points_are_never_witnesses(monkeypatch):
    """Points where float32 calls a tie or a loss are failed proposals: they go back to
    the relaxation, not to the exact check."""
    head, Z = _head([[3, 1], [1, 3], [-2, -2]])
    X = np.array([[0, 1, -1, 1, 1e-300], [0, 1, -1, -1, 0]], dtype=np.float64)
    targets = [0, 0, 0, 0, 1]
    calls = _count_exact_checks(monkeypatch)
    with np.errstate(invalid="ignore"):
        found, left, rivals = _run(head, targets, X)
    assert calls == []
    _check_found(head, Z, found, targets)
    assert 0 not in found and 1 not in found and 2 not in found and 3 in found
    assert 4 not in found  # (2^16, 0): label 0 leads
    assert rivals[0] and rivals[2] == [2] and rivals[4] == [0]


def test_tie_screen_rejects_three_way_ties_and_the_move_to_a_third_label(monkeypatch):
    # three labels meet on x_0 = x_1
    head, Z = _head([[1, 0], [0, 1], [2, -1], [-1, -1]])
    X = np.array([[1, 2 ** 20, 1], [1, 3, -1]], dtype=np.float64) * 2.0 ** -4
    found, _, _ = _run(head, [0, 1, 0], X, partners=[1, 0, 1], bits=20)
    assert not found
    # x = (0, -10) is 40 above label 2; the tie point (1, -10) of (0, 1) lies at gamma = -1
    # along e_0, where label 2 gains 30 + 20 (the largest |f_k0| and |f_t0|) and leads
    head, Z = _head([[-20, 0], [0, 2], [30, 4]])
    found, _, _ = _run(head, [0, 1], np.array([[0.0, 0.0], [-1.0, -1.0]]), partners=[1, 0],
                       bits=20)
    assert not found
    assert _ties(Z, 0, 1, screen.tie_point(head, 0, 1, [0, -2 ** 20], 0)) is False
    # label 2 takes the lead at the tie point of (0, 1), not at x
    head, Z = _head([[20, 0], [0, 2], [4, 3]])
    X = np.array([[1.0, 1.0], [5.0, 0.05]])
    found, _, _ = _run(head, [0, 0], X, partners=[1, 1], bits=20)
    assert 0 not in found
    _check_found(head, Z, found, [0, 0], [1, 1])


def test_tie_screen_accepts_clear_ties_on_both_sides(monkeypatch):
    """Points on or near the hyperplane with a clear lead over the rest: proved, by the
    float32 bound when ``x`` is on the hyperplane (``gamma = 0``) and exactly otherwise;
    ``x`` beside the hyperplane on either side (``gamma`` of both signs, ``v_p`` of both
    signs)."""
    head, Z = _head([[4, 0, 1], [0, 4, 1], [-4, -4, 0], [0, 0, -9]])
    calls = _count_exact_checks(monkeypatch)
    X = np.array([[1, 1, 1, 1, 1], [1, 1, 0.99, 1.01, 1], [0, 0, 0, 0, 0.5]])
    targets, partners = [0, 1, 0, 1, 0], [1, 0, 1, 0, 1]
    found, left, _ = _run(head, targets, X, partners=partners, bits=20)
    assert sorted(found) == [0, 1, 2, 3, 4]
    _check_found(head, Z, found, targets, partners)
    assert 0 not in calls and 1 not in calls and 4 not in calls  # gamma = 0
    # the points found are the integer proposals
    assert [int(v) for v in found[2][0]] == [2 ** 20, round(0.99 * 2 ** 20), 0]


def test_tie_screen_with_equal_rows():
    """Equal rows tie everywhere and have no hyperplane: with a third label there is no
    tie witness; a head of two equal rows is its own tie witness everywhere."""
    head, Z = _head([[0, 1], [0, 1], [0, -1]])  # column p = 0 of the rows is zero
    found, _, _ = _run(head, [0, 1], np.array([[1.0, 2.0], [1.0, -1.0]]), partners=[1, 0])
    assert not found
    head, Z = _head([[2, 1], [2, 1], [-1, 0]])
    found, _, _ = _run(head, [0], np.array([[1.0], [1.0]]), partners=[1])
    assert not found
    head, Z = _head([[2, 1], [2, 1]])
    found, _, _ = _run(head, [0, 1], np.array([[1.0, 2.0], [1.0, -1.0]]), partners=[1, 0])
    assert sorted(found) == [0, 1]
    _check_found(head, Z, found, [0, 1], [1, 0])


@pytest.mark.parametrize("seed,bits", [(0, 61), (1, 40), (2, 24), (3, 3), (4, 55)])
def test_screen_accepts_only_proofs_on_near_rows(seed, bits):
    """Rows agreeing in their high bits: float32 scores order them at random. Every
    accepted witness (argmax and tie, one round and several) is checked in integers, and
    a proposal whose integer column is a witness by the definition is not lost in the
    first round (it is a float32 win or proved exactly)."""
    rng = np.random.default_rng(seed)
    n, d, m = 7, 3, 24
    rows = _near_rows(rng, n, d, bits, spread=2)
    head, Z = _head(rows)
    X = rng.standard_normal((d, m))
    targets = rng.integers(0, n, size=m).tolist()
    partners = [(a + int(b)) % n for a, b in zip(targets, rng.integers(1, n, size=m))]
    for rounds in (1, 3):
        found, left, _ = _run(head, targets, X, rounds=rounds)
        assert set(found) | set(left) == set(range(m)) and not set(found) & set(left)
        _check_found(head, Z, found, targets)
        found, left, _ = _run(head, targets, X, partners=partners, rounds=rounds, bits=20)
        assert set(found) | set(left) == set(range(m))
        _check_found(head, Z, found, targets, partners)
    Xi = screen._integer_columns(X, 16)
    found, _, _ = _run(head, targets, X)
    for c in range(m):
        if _wins(Z, targets[c], Xi[:, c]):
            S = head.float32_rows().F @ Xi[:, c].astype(np.float32)
            if S[targets[c]] == S.max() and np.count_nonzero(S == S.max()) == 1:
                assert c in found


# --- the float32 candidates of the cosine neighbours -------------------------------------

@pytest.mark.parametrize("m,n,k", [(3, 1, 1), (3, 5, 2), (4, 9, 3), (3, 12, 8), (3, 12, 9),
                                   (3, 12, 12), (4, 3, 3)])
def test_kth_largest_with_repeats_and_masked_entries(m, n, k):
    rng = np.random.default_rng(m * 100 + n * 10 + k)
    C = rng.integers(-3, 4, size=(m, n)).astype(np.float32)
    C[0, : n // 2] = -np.inf
    C[1, 1:] = -np.inf  # taken again once its one finite entry is gone
    C[-1, :] = 2.0
    before = C.copy()
    got = kth_largest(C, k)
    assert np.array_equal(C, before)
    assert got.dtype == C.dtype
    for r in range(m):
        assert got[r] == sorted(before[r].tolist(), reverse=True)[k - 1]


def _cosine_reference(Z, k):
    """The ``k`` labels of largest ``cos(z_i, z_c)``, exactly (``sign(g) g^2 / |z_c|^2``,
    ties by label); zero rows have none and are nobody's."""
    n = len(Z)
    valid = [any(r) for r in Z]
    out = []
    for i in range(n):
        if not valid[i]:
            out.append([])
            continue

        def key(c):
            g = _score(Z, i, Z[c])
            return Fraction(g * abs(g), _score(Z, c, Z[c]))

        others = sorted((c for c in range(n) if c != i and valid[c]), key=lambda c: (-key(c), c))
        out.append(others[:k])
    return out


def _screened_head(monkeypatch, rows):
    monkeypatch.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
    head = make_head(np.array(rows, dtype=np.int64))
    assert head.screened
    return head


def _check_display(head, Z, near):
    for i, row in enumerate(near):
        for c, value in row:
            g = _score(Z, i, Z[c])
            exact = g / math.sqrt(_score(Z, i, Z[i]) * _score(Z, c, Z[c]))
            assert abs(value - exact) <= 1e-12


class _Bar:
    def __init__(self):
        self.count = 0

    def update(self, k):
        self.count += k


@pytest.mark.parametrize("seed,k,width", [(0, 1, None), (1, 2, 7), (2, 3, None), (3, 9, 5),
                                          (4, 5, 1)])
def test_float32_cosine_candidates_keep_the_exact_neighbours(monkeypatch, seed, k, width):
    """Rows closer to each other than float32 resolves (their cosines differ from 1 by
    about 1e-12), multiples of one row (equal cosines, ordered by label), a negated
    row, zero rows and spread-out rows with gaps between consecutive cosines."""
    rng = np.random.default_rng(seed)
    d = 4
    close = rng.integers(-2 ** 30, 2 ** 30, size=d) + rng.integers(-2 ** 8, 2 ** 8, size=(14, d))
    far = rng.integers(-2 ** 30, 2 ** 30, size=(30, d))
    base = rng.integers(-50, 50, size=d)
    multiples = base[None, :] * np.arange(1, 6)[:, None] * 2 ** 20
    rows = np.vstack([close, far, multiples, -multiples[:1], np.zeros((2, d), dtype=np.int64)])
    head = _screened_head(monkeypatch, rows.tolist())
    if width is not None:
        head.budget = _Budget(width)  # blocks of labels: the diagonal of each block
    Z = [list(map(int, r)) for r in head.Z]
    bar = _Bar()
    near = cosine_neighbours(head, k, progress=bar)
    assert [[c for c, _ in row] for row in near] == _cosine_reference(Z, k)
    assert bar.count == head.n
    _check_display(head, Z, near)


@pytest.mark.parametrize("n_valid,k", [(1, 1), (2, 1), (2, 2), (2, 3), (3, 2), (3, 3), (3, 4),
                                       (4, 2), (4, 3), (5, 3)])
def test_float32_cosine_candidates_of_few_labels(monkeypatch, n_valid, k):
    """Fewer other labels than ``k``, exactly ``k``, and more; the ``k``-th largest
    cosine well apart from the ``(k-1)``-th; zero rows first and last."""
    rows = [[0, 0, 0]] + [[10, 1, 0], [9, 3, 1], [1, 10, -2], [-10, 2, 1], [0, -3, 10]][:n_valid]
    rows += [[0, 0, 0]]
    head = _screened_head(monkeypatch, rows)
    Z = [list(map(int, r)) for r in head.Z]
    near = cosine_neighbours(head, k)
    assert [[c for c, _ in row] for row in near] == _cosine_reference(Z, k)
    _check_display(head, Z, near)


class _Budget:
    """A memory budget that hands out blocks of ``width`` columns."""

    def __init__(self, width):
        self.width = width

    def columns(self, bytes_per_column, limit=None):
        return self.width


@pytest.mark.parametrize("width", [1, 2, 5])
def test_screen_in_blocks_of_any_width(width):
    """Every column ends up found or left, each once; one-round witnesses are the
    integer proposals; all are proved."""
    rng = np.random.default_rng(width)
    n, d, m = 6, 3, 11
    rows = rng.integers(-2 ** 40, 2 ** 40, size=(n, d))
    rows[1:3] = rows[0] + rng.integers(-2, 3, size=(2, d))  # near rows
    head, Z = _head(rows.tolist())
    head.budget = _Budget(width)
    X = rng.standard_normal((d, m))
    X[:, 0] = [1.0, 0.0, 0.0]
    targets = rng.integers(0, n, size=m).tolist()
    partners = [(a + 1) % n for a in targets]
    Xi = screen._integer_columns(X, 16)
    seen = []
    for rounds in (1, 4):
        found, left, rivals = _run(head, targets, X, rounds=rounds)
        assert sorted(set(found) | set(left)) == list(range(m)) and not set(found) & set(left)
        assert len(rivals) == m
        _check_found(head, Z, found, targets)
        if rounds == 1:
            for c, x in found.items():
                assert x.dtype == np.int32 and np.array_equal(x, Xi[:, c])
        seen.append(len(found))
        found, left, _ = _run(head, targets, X, partners=partners, rounds=rounds, bits=20)
        assert sorted(set(found) | set(left)) == list(range(m)) and not set(found) & set(left)
        _check_found(head, Z, found, targets, partners)
        assert all(x.dtype == np.int32 for x, _ in found.values())
        seen.append(len(found))
    assert max(seen) > 0


def test_relaxation_finds_later_witnesses_and_reports_progress():
    """Proposals that lose are moved by the relaxation; a witness found in a later round
    leaves ``left``; rivals are listed once each; the progress bar counts every proof;
    more rounds than needed change nothing."""
    head, Z = _head([[4, 0], [0, 4], [-4, 0], [0, -4], [1, 1]])
    X = np.array([[0.2, 1.0, 1.0, -1.0], [1.0, 0.0, -0.3, -1.0]])
    targets = [0, 0, 3, 4]  # label 4 is inside the hull: never a witness
    bar = _Bar()
    found, left, rivals = screen.screened_relaxation(
        head, targets, lambda cols: X[:, cols], rounds=8, progress=bar)
    assert sorted(found) == [0, 1, 2] and sorted(left) == [3]
    assert bar.count == 3
    _check_found(head, Z, found, targets)
    assert rivals[0] == [1] and rivals[1] == [] and rivals[3]
    assert all(len(set(r)) == len(r) for r in rivals)
    assert left[3].shape == (2,) and np.all(np.isfinite(left[3]))
    # all proved in round 0: the later rounds have nothing to do
    found, left, rivals = screen.screened_relaxation(
        head, [0, 1], lambda cols: np.eye(2)[:, cols], rounds=3)
    assert sorted(found) == [0, 1] and not left and rivals == [[], []]


@pytest.mark.parametrize("seed,d", [(0, 16), (1, 24), (2, 32)])
def test_screen_on_long_near_rows_of_entries_near_1(seed, d):
    """Rows that differ by about one float32 unit (``2^38`` on entries near ``2^61``, so
    every entry of ``F`` is near 1), each column proposed for the label the float32
    product puts on top: the scores are about ``d 2^16``, and their float32 rounding and
    summation decide that label, often wrongly. A bound that divides by the row norms
    (about ``sqrt(d)`` each) instead of multiplying accepts those wrong wins."""
    rng = np.random.default_rng(seed)
    n, m = 6, 60
    base = rng.integers(2 ** 60, 2 ** 61, size=d) * rng.choice([-1, 1], size=d)
    rows = base[None, :] + rng.integers(-2 ** 38, 2 ** 38, size=(n, d))
    head, Z = _head(rows.tolist())
    X = rng.standard_normal((d, m)) + np.sign(base)[:, None] * 2.0
    Xi = screen._integer_columns(X, 16)
    S = head.float32_rows().F @ Xi.astype(np.float32)
    targets = [int(np.argmax(S[:, c])) for c in range(m)]
    lying = [c for c in range(m) if not _wins(Z, targets[c], Xi[:, c])]
    assert lying  # float32 calls columns wins that are not
    found, _, _ = _run(head, targets, X)
    _check_found(head, Z, found, targets)
    assert not set(found) & set(lying) and found
