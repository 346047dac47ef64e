"""Convex weights for labels inside the hull: p-adic lifting and shared supports.

Cross-checks :func:`verify.linalg.dixon.solve_integer_system` against python-flint's
exact solver, the certificates of :mod:`verify.analyze.interior` against the exact
simplex method (and Qhull's vertices), and checks that wrong proposals are rejected.
"""

from __future__ import annotations

import numpy as np
import pytest
from flint import fmpq, fmpq_mat, fmpz, fmpz_mat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verify.analyze import argmax as argmax_module
from verify.analyze import interior as interior_module
from verify.analyze.argmax import ExactHead, is_argmax_certificate, make_head
from verify.analyze.interior import clusters, exact_weights, interior_certificates, \
    propose_support
from verify.linalg import dixon
from verify.linalg.dixon import lifting_prime, solve_integer_system
from verify.lp.feasibility import GordanCertificate, strict_feasibility


# --- the solver -------------------------------------------------------------------------

def _flint_solution(A, B):
    X = fmpq_mat(fmpz_mat(A)).solve(fmpq_mat(fmpz_mat(B)))
    return [[X[i, c] for c in range(X.ncols())] for i in range(X.nrows())]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 12), st.integers(1, 3), st.integers(1, 58), st.integers(0, 10 ** 6))
def test_lifting_matches_flint(N, r, bits, seed):
    rng = np.random.default_rng(seed)
    top = 2 ** bits
    A = rng.integers(-top, top, (N, N), dtype=np.int64)
    B = rng.integers(-top, top, (N, r), dtype=np.int64)
    found = solve_integer_system(A, B)
    if fmpz_mat(A.tolist()).det() == 0:
        assert found is None
        return
    if (N * int(np.abs(A).max())).bit_length() > 61:
        assert found is None  # beyond the 64-bit residues: declined, never wrong
        return
    Y, D = found
    assert D > 0
    expected = _flint_solution(A.tolist(), B.tolist())
    assert [[fmpq(v, D) for v in row] for row in Y] == expected


def test_lifting_on_a_wide_range_of_entry_sizes_and_many_right_hand_sides():
    rng = np.random.default_rng(7)
    A = rng.integers(-2 ** 40, 2 ** 40, (60, 60)) >> rng.integers(0, 40, (60, 60))
    B = rng.integers(-2 ** 50, 2 ** 50, (60, 9))
    Y, D = solve_integer_system(A, B)
    assert [[fmpq(v, D) for v in row] for row in Y] == _flint_solution(A.tolist(), B.tolist())


def test_lifting_declines_singular_and_rejects_non_square_systems():
    A = np.array([[1, 2, 3], [2, 4, 6], [0, 1, 1]])
    assert solve_integer_system(A, np.array([1, 2, 3])) is None
    with pytest.raises(ValueError):
        solve_integer_system(np.ones((2, 3), dtype=np.int64), np.ones((2, 1), dtype=np.int64))
    assert solve_integer_system([[2 ** 70]], [[1]]) is None  # beyond 64 bits


def test_lifting_is_exact_modulo_the_prime_power():
    rng = np.random.default_rng(3)
    A = rng.integers(-2 ** 30, 2 ** 30, (20, 20))
    B = rng.integers(-2 ** 30, 2 ** 30, (20, 2))
    p = lifting_prime(20)
    C = dixon._inverse_mod(A, p)
    digits, R = dixon._lift(A, B, C, p, 50)
    X = [int(v) for v in dixon._combine(digits.reshape(50, -1), p)]
    m = p ** 50
    # A X = B - p^k R exactly.
    AX = (fmpz_mat(A.tolist()) * fmpz_mat([X[j * 2:(j + 1) * 2] for j in range(20)]))
    assert AX == fmpz_mat(B.tolist()) - fmpz_mat(R.tolist()) * m


def test_a_wrong_reconstruction_is_rejected(monkeypatch):
    rng = np.random.default_rng(5)
    A = rng.integers(-2 ** 20, 2 ** 20, (8, 8))
    B = rng.integers(-2 ** 20, 2 ** 20, (8, 1))
    right = solve_integer_system(A, B)
    assert right is not None
    real = dixon._reconstruct

    def off_by_one(*args):
        found = real(*args)
        if found is None:
            return None
        Y, D = found
        return [Y[0] + 1, *Y[1:]], D

    monkeypatch.setattr(dixon, "_reconstruct", off_by_one)
    assert solve_integer_system(A, B) is None


def test_lifting_primes_keep_float_sums_exact():
    for N in (1, 2, 10, 769, 4097):
        p = lifting_prime(N)
        assert N * (p - 1) ** 2 < 2 ** 53
        assert fmpz(p).is_prime() and p > 2 ** 19


# --- heads with rows inside the hull -----------------------------------------------------

def _planted_head(seed: int, n: int, d: int):
    """Gaussian float32 rows; rows 0..5 near the centroid, 6..8 near-duplicates of row
    0, row 9 an exact copy of row 1; returns the head's array and the planted rows."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((n, d)).astype(np.float32)
    centre = W[10:].mean(axis=0)
    for i in range(6):
        W[i] = (centre + 0.05 * rng.standard_normal(d)).astype(np.float32)
    for i in (6, 7, 8):
        W[i] = (W[0] * (1 + 1e-6 * rng.standard_normal(d))).astype(np.float32)
    W[9] = W[1]
    return W, list(range(10))


def _exact_simplex_says_inside(head, i) -> bool:
    rows = [[a - b for a, b in zip(head.Z[i], head.Z[k])] for k in range(head.n) if k != i]
    return isinstance(strict_feasibility(rows), GordanCertificate)


@pytest.mark.parametrize("seed,n,d", [(0, 120, 4), (1, 200, 6), (2, 300, 8)])
def test_planted_interior_rows_get_exact_convex_weights(seed, n, d):
    from scipy.spatial import ConvexHull

    W, planted = _planted_head(seed, n, d)
    head = make_head(W)
    vertices = set(ConvexHull(W.astype(np.float64)).vertices.tolist())
    tasks = [(i, None, ()) for i in range(n)]
    certs = interior_certificates(head, tasks)
    for i, cert in certs.items():
        assert is_argmax_certificate(head.rows, i, cert.multipliers)
        assert sum(v for _, v in cert.multipliers) == 1
        assert len(cert.multipliers) <= d + 1
        assert i not in vertices
    # Every planted row is inside the hull (the exact simplex method agrees), and the
    # rows near the centroid are all certified.
    for i in planted:
        assert _exact_simplex_says_inside(head, i)
    assert set(range(6)) <= set(certs)
    # Hull vertices never get weights, whatever else is certified.
    assert not vertices & set(certs)


def test_near_duplicate_interior_rows_share_a_cluster_and_a_support():
    W, _ = _planted_head(4, 200, 5)
    head = make_head(W)
    groups = clusters(head, list(range(12)))
    assert [0, 6, 7, 8] in groups
    assert [1, 9] in groups
    support = propose_support(head, 0)
    found = exact_weights(head, [0, 6, 7, 8], support)
    assert found[0] is not None
    for i, f in zip([0, 6, 7, 8], found):
        if f is not None:
            Y, D = f
            assert is_argmax_certificate(head.rows, i, list(zip(support, Y)))


def test_a_wrong_support_is_rejected():
    W, _ = _planted_head(5, 150, 4)
    head = make_head(W)
    support = propose_support(head, 0)
    assert support is not None
    # The support of label 0 does not hold a hull vertex: negative weights, rejected.
    F = W.astype(np.float64)
    far = int(np.argmax(np.linalg.norm(F - F.mean(axis=0), axis=1)))
    assert exact_weights(head, [far], support) == [None]
    # Nor a support that misses the point: the rows closest to the far vertex.
    near = [k for k in np.argsort(np.linalg.norm(F - F[far], axis=1)).tolist()
            if k != 0][: head.d + 1]
    assert exact_weights(head, [0], near) == [None]


def test_lifting_gives_the_same_certificates_as_the_null_space(monkeypatch):
    W, planted = _planted_head(6, 160, 6)
    head = make_head(W)
    for i in planted[:6]:
        support = propose_support(head, i)
        monkeypatch.setattr(argmax_module, "LIFTING_MIN_SUPPORT", 1 << 30)
        slow = head.label_certificate(i, support)
        monkeypatch.setattr(argmax_module, "LIFTING_MIN_SUPPORT", 1)
        fast = head.label_certificate(i, support)
        assert fast == slow and fast is not None


def test_screened_heads_certify_interior_rows_through_the_lifting(monkeypatch):
    monkeypatch.setattr(argmax_module, "SCREEN_MIN_ENTRIES", 0)
    monkeypatch.setattr(argmax_module, "SCREEN_CHUNK", 64)
    W, planted = _planted_head(8, 240, 6)
    calls = []
    real = interior_module.exact_weights

    def counted(*args):
        out = real(*args)
        calls.append(out)
        return out

    monkeypatch.setattr(interior_module, "exact_weights", counted)
    head = ExactHead.from_array(W)
    assert head.screened
    result = head.argmax()
    assert set(planted) <= set(result.unargmaxable)
    assert any(any(f is not None for f in out) for out in calls)
    for i in result.unargmaxable:
        assert is_argmax_certificate(head.rows, i, result.evidence[i].multipliers)
    monkeypatch.setattr(argmax_module, "SCREEN_MIN_ENTRIES", 1 << 60)
    small = ExactHead.from_array(W).argmax()
    assert small.unargmaxable == result.unargmaxable
