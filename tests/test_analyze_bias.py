"""Heads with a bias (``W x + b``): exact answers against independent criteria.

References: the upper-hull criterion on the lifted points ``(w_k, b_k)`` (scipy's Qhull,
floating point, on random integer points in general position), linear programs for the
tie pairs (scipy's HiGHS), the bias-free engine for ``b = 0``, and every witness and
certificate re-checked here with ``fractions.Fraction``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verify.analyze import argmaxable_labels
from verify.analyze.bias import (
    argmaxable_with_bias,
    is_bias_argmax_certificate,
    is_bias_no_tie_certificate,
    is_bias_tie_witness,
    tie_pairs_with_bias,
)
from verify.analyze.ties import NoTieCertificate, TieWitness
from verify.lp.feasibility import Witness


def Fr(x) -> Fraction:
    return Fraction(int(x.p), int(x.q)) if hasattr(x, "p") else Fraction(x)


def logits(W, b, x):
    return [sum(Fr(a) * Fr(c) for a, c in zip(row, x)) + Fr(bk) for row, bk in zip(W, b)]


def check_evidence(W, b, A, T):
    n = len(W)
    for i, ev in enumerate(A.evidence):
        if isinstance(ev, Witness):
            z = logits(W, b, ev.point)
            assert all(z[i] > z[k] for k in range(n) if k != i)
        else:
            lam = [(k, Fr(y)) for k, y in ev.multipliers]
            assert lam and all(y > 0 for _, y in lam) and sum(y for _, y in lam) == 1
            for c in range(len(W[0])):
                assert sum(y * W[k][c] for k, y in lam) == W[i][c]
            assert b[i] <= sum(y * b[k] for k, y in lam)
    for (i, j), ev in T.evidence.items():
        if isinstance(ev, TieWitness):
            z = logits(W, b, ev.point)
            assert z[i] == z[j] and all(z[i] > z[k] for k in range(n) if k not in (i, j))
        else:
            assert is_bias_no_tie_certificate(W, b, i, j, ev)
            y = [(k, Fr(v)) for k, v in ev.multipliers]
            assert all(v >= 0 for _, v in y)


def upper_hull_argmaxable(W, b) -> set[int]:
    """Vertices of conv(w~) on a facet whose outward normal has a positive last entry."""
    from scipy.spatial import ConvexHull

    P = np.array([list(row) + [bk] for row, bk in zip(W, b)], dtype=float)
    hull = ConvexHull(P)
    out = set()
    for simplex, eq in zip(hull.simplices, hull.equations):
        if eq[-2] > 1e-9:  # the normal's last coordinate (eq = [normal, offset])
            out.update(int(v) for v in simplex)
    return out


def lp_can_tie(W, b, i, j) -> bool:
    from scipy.optimize import linprog

    W = np.array(W, float)
    b = np.array(b, float)
    n, d = W.shape
    others = [k for k in range(n) if k not in (i, j)]
    # maximise m: (w_i - w_k) x + (b_i - b_k) >= m, (w_i - w_j) x + b_i - b_j = 0, with x
    # free (a pair of an integer head may tie only far from the origin; m <= 1 bounds it).
    c = np.zeros(d + 1)
    c[-1] = -1
    A_ub = np.array([np.r_[-(W[i] - W[k]), 1.0] for k in others]).reshape(-1, d + 1)
    b_ub = np.array([b[i] - b[k] for k in others])
    res = linprog(c, A_ub=A_ub if others else None, b_ub=b_ub if others else None,
                  A_eq=np.r_[W[i] - W[j], 0.0][None, :], b_eq=[b[j] - b[i]],
                  bounds=[(None, None)] * d + [(None, 1.0)], method="highs")
    return res.status == 0 and res.x[-1] > 1e-7


@settings(max_examples=30, deadline=None)
@given(st.integers(5, 9), st.integers(0, 10 ** 6))
@example(6, 236)  # pairs (0, 2) and (0, 4) tie only at |x| > 10^4
def test_bias_argmaxable_matches_the_upper_hull(n, seed):
    rng = np.random.default_rng(seed)
    W = rng.integers(-1000, 1001, size=(n, 2)).tolist()
    b = rng.integers(-1000, 1001, size=n).tolist()
    A = argmaxable_with_bias(W, b)
    assert set(A.argmaxable) == upper_hull_argmaxable(W, b)
    T = tie_pairs_with_bias(W, b)
    assert set(T.tie_pairs) == {(i, j) for i in range(n) for j in range(i + 1, n)
                                if lp_can_tie(W, b, i, j)}
    check_evidence(W, b, A, T)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.integers(-4, 4), min_size=2, max_size=2), min_size=1,
                max_size=7))
def test_zero_bias_is_the_bias_free_criterion(W):
    A = argmaxable_with_bias(W, [0] * len(W))
    assert A.argmaxable == argmaxable_labels(W).argmaxable
    check_evidence(W, [0] * len(W), A, tie_pairs_with_bias(W, [0] * len(W)))


def test_equal_rows_with_different_biases():
    W = [[1, 0], [1, 0], [-1, 0]]
    A = argmaxable_with_bias(W, [0, 1, 0])
    assert A.argmaxable == [1, 2]  # label 0 is always one below label 1
    T = tie_pairs_with_bias(W, [0, 1, 0])
    assert T.can_tie(0, 1) is False and T.can_tie(1, 2) is True
    check_evidence(W, [0, 1, 0], A, T)


def test_forged_bias_certificates_are_rejected():
    W, b = [[0], [1], [2]], [0, 1, 0]
    # w_1 = (w_0 + w_2) / 2 but b_1 = 1 > 0 = (b_0 + b_2) / 2: label 1 can win.
    assert not is_bias_argmax_certificate(W, b, 1, [(0, fmpq(1, 2)), (2, fmpq(1, 2))])
    assert is_bias_argmax_certificate(W, [0, 0, 0], 1, [(0, fmpq(1, 2)), (2, fmpq(1, 2))])
    assert not is_bias_argmax_certificate(W, [0, 0, 0], 1,
                                          [(0, fmpq(3, 2)), (2, fmpq(-1, 2))])
    # 0 and 2 cannot tie on top with b = (0, 1, 0): at x = 0 label 1 is above.
    cert = NoTieCertificate(multipliers=((1, fmpq(1)),), tie=fmpq(-1, 2))
    assert is_bias_no_tie_certificate(W, b, 0, 2, cert)
    assert not is_bias_no_tie_certificate(W, [0, -1, 0], 0, 2, cert)  # slack > 0
    # y >= 0 and slack < 0, but t (w_0 - w_2) + y_1 (w_0 - w_1) = 1/2 - 1 is not zero.
    assert not is_bias_no_tie_certificate(
        W, b, 0, 2, NoTieCertificate(multipliers=((1, fmpq(1)),), tie=fmpq(-1, 4)))
    assert not is_bias_no_tie_certificate(
        W, b, 0, 2, NoTieCertificate(multipliers=((1, fmpq(-1)),), tie=fmpq(1, 2)))
    assert not is_bias_tie_witness(W, b, 0, 2, (0,))
    assert is_bias_tie_witness(W, [0, -1, 0], 0, 2, (0,))


def test_bias_of_the_wrong_length():
    with pytest.raises(ValueError, match="2 entries for 3 labels"):
        argmaxable_with_bias([[0], [1], [2]], [0, 1])
