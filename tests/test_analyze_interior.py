"""Convex weights for labels inside the hull (``verify.analyze.interior``).

Cross-checks the simplex walk against a linear program, the exact weights against the
integer null space, the certificates against the exact simplex method and Qhull's
vertices, and checks that wrong proposals are rejected.
"""

from __future__ import annotations

import numpy as np
import pytest
from flint import fmpq
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from verify.analyze import argmax as argmax_module
from verify.analyze import head as head_module
from verify.analyze import interior as interior_module
from verify.analyze.argmax import argmaxable_labels, is_argmax_certificate, label_certificate
from verify.analyze.head import ExactHead, make_head
from verify.analyze.interior import caratheodory_basis, caratheodory_supports, clusters, \
    exact_weights, interior_certificates, positive_weights, simplex_walk
from verify.lp.feasibility import GordanCertificate, strict_feasibility
from verify.analyze.simplex import SimplexCertificate
from reference import solve_fraction


# --- the walk and the exact weights ------------------------------------------------------

def _inside_by_lp(P, t) -> bool:
    from scipy.optimize import linprog

    res = linprog(np.zeros(P.shape[1]), A_eq=P, b_eq=t, bounds=(0, None), method="highs")
    return res.status == 0


def _cloud(seed, d: int, per: int, radius: float):
    """``per (d + 1)`` standard normal points of ``R^d`` as columns with a row of ones,
    and a target (with its 1) at about ``radius`` from the origin; ``seed`` is a seed
    or a generator."""
    rng = np.random.default_rng(seed)
    m = per * (d + 1)
    A = np.vstack([rng.standard_normal((d, m)), np.ones((1, m))])
    return A, np.append(radius * rng.standard_normal(d) / np.sqrt(d), 1.0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 6), st.integers(0, 10 ** 6), st.floats(0.0, 3.0))
def test_the_walk_finds_a_simplex_exactly_when_the_point_is_in_the_hull(d, seed, radius):
    P, target = _cloud(seed, d, 6, radius)
    basis = simplex_walk(P, [target], max_pivots=50 * (d + 1))[0]
    if basis is not None:
        assert len(set(basis)) == d + 1
        lam = np.linalg.solve(P[:, basis], target)
        assert np.all(lam >= -1e-9)
        assert _inside_by_lp(P, target)
    else:
        assert not _inside_by_lp(P, target) or radius > 0.8  # near the boundary: may fail


def test_the_walk_goes_from_target_to_target():
    rng = np.random.default_rng(1)
    d, m = 5, 60
    P = np.vstack([rng.standard_normal((d, m)), np.ones((1, m))])
    targets = [np.append(0.1 * rng.standard_normal(d), 1.0) for _ in range(4)]
    targets.append(np.append(np.full(d, 50.0), 1.0))  # far outside
    out = simplex_walk(P, targets, max_pivots=200)
    for basis, t in zip(out[:4], targets):
        assert basis is not None
        assert np.all(np.linalg.solve(P[:, basis], t) >= -1e-9)
    assert out[4] is None


def test_exact_weights_match_the_null_space(monkeypatch):
    W, planted = _planted_head(6, 160, 6)
    head = make_head(W)
    for i in planted[:6]:
        support = propose_support(head, i)
        monkeypatch.setattr(argmax_module, "LIFTING_MIN_SUPPORT", 1 << 30)
        slow = label_certificate(head, i, support)
        monkeypatch.setattr(argmax_module, "LIFTING_MIN_SUPPORT", 1)
        fast = label_certificate(head, i, support)
        assert fast == slow and fast is not None


def test_a_support_of_d_plus_one_rows_is_proved_as_a_simplex_on_screened_heads(
        monkeypatch):
    """``label_certificate`` on a screened head: a row strictly inside the simplex of
    ``d + 1`` rows gets a :class:`SimplexCertificate` (its weights, solved here over
    the rationals, all positive); a row on a facet of it (a zero weight) and a
    support of fewer rows get exact weights, as every support does on a head that is
    not screened."""
    W = np.array([[0, 0, 0], [8, 0, 0], [0, 8, 0], [0, 0, 8], [1, 2, 3], [0, 2, 3],
                  [2, 2, 0], [-9, -9, -9]])
    monkeypatch.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
    head = make_head(W)
    assert head.screened
    inside = label_certificate(head, 4, [0, 1, 2, 3])
    assert isinstance(inside, SimplexCertificate) and inside.support == (0, 1, 2, 3)
    lam = solve_fraction([list(W[k]) + [1] for k in inside.support], list(W[4]) + [1])
    assert all(v > 0 for v in lam)
    on_facet = label_certificate(head, 5, [0, 1, 2, 3])
    assert isinstance(on_facet, GordanCertificate)
    assert is_argmax_certificate(head.rows, 5, on_facet.multipliers)
    assert sorted(k for k, _ in on_facet.multipliers) == [0, 2, 3]  # weight 0 on row 1
    short = label_certificate(head, 6, [0, 1, 2])
    assert isinstance(short, GordanCertificate)
    assert is_argmax_certificate(head.rows, 6, short.multipliers)
    monkeypatch.setattr(head_module, "SCREEN_MIN_ENTRIES", 1 << 60)
    plain = label_certificate(make_head(W), 4, [0, 1, 2, 3])
    assert isinstance(plain, GordanCertificate)
    assert is_argmax_certificate(head.rows, 4, plain.multipliers)


def test_exact_weights_check_every_equation_of_a_short_support():
    # Three rows spanning the plane z = 0 in R^3 and a target off that plane: the
    # square subsystem has a solution, the left-out equation does not hold.
    head = make_head(np.array([[0, 0, 0], [4, 0, 0], [0, 4, 0], [1, 1, 1], [1, 1, 0],
                               [0, 0, 9], [9, 9, 9]]))
    assert exact_weights(head, [3], [0, 1, 2]) == [None]
    (Y, D), = exact_weights(head, [4], [0, 1, 2])
    assert is_argmax_certificate(head.rows, 4, list(zip([0, 1, 2], Y)))
    assert [fmpq(y, D) for y in Y] == [fmpq(1, 2), fmpq(1, 4), fmpq(1, 4)]



# --- positive weights and Caratheodory's reduction ------------------------------------

@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 7), st.integers(0, 10 ** 6), st.floats(0.0, 3.0),
       st.sampled_from([3, 5, 8]))
def test_positive_weights_and_the_reduction_agree_with_a_linear_program(d, seed, radius,
                                                                          per):
    A, t = _cloud(seed, d, per, radius)
    inside = _inside_by_lp(A, t)
    lam = positive_weights(A, t)
    if lam is not None:
        assert np.all(lam > 0) and np.allclose(A @ lam, t, atol=1e-6)
        assert inside
        basis = caratheodory_basis(A, t, lam)
        if basis is not None:
            assert len(set(basis)) == d + 1
            assert np.all(np.linalg.solve(A[:, basis], t) >= -1e-9)
    elif radius < 0.3 and per >= 5:
        assert not inside  # deep inside a cloud of 5 (d + 1) points: must be found
    if not inside:
        assert lam is None or lam.min() < 1e-12  # (floats: on the boundary at most)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 40), st.integers(0, 10 ** 6), st.floats(0.0, 1.0))
# The formed Hessian's line search once gave up here one step before convergence,
# where the conjugate gradients took the full step that shrinks the gradient.
@example(d=22, seed=4696, radius=0.8658386488672518)
def test_newton_steps_by_conjugate_gradients_find_the_same_weights(d, seed, radius):
    # The maximum-entropy weights are unique (a strictly convex objective), so the
    # truncated Newton method must find the weights of the formed Hessian, and both
    # must agree with a linear program on whether the target is inside.
    A, t = _cloud(seed, d, 4, radius)
    formed = positive_weights(A, t)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(interior_module, "NEWTON_CG_MIN_DIMENSION", 0)
        by_cg = positive_weights(A, t)
    assert (formed is None) == (by_cg is None)
    if by_cg is not None:
        assert np.all(by_cg > 0) and np.allclose(A @ by_cg, t, atol=1e-8)
        assert np.allclose(by_cg, formed, rtol=1e-6, atol=1e-12)
        assert _inside_by_lp(A, t)


def test_newton_steps_by_conjugate_gradients_converge_below_the_rounding_of_the_objective(
        monkeypatch):
    # A target for which, one step before convergence, no step shortening shows a
    # decrease of the objective in floating point (the gradient is 1.5e-9, above the
    # tolerance of 1e-9): the truncated Newton method must still converge.
    rng = np.random.default_rng(247)
    d, radius = int(rng.integers(2, 41)), float(rng.uniform(0, 1.0))
    A, t = _cloud(rng, d, 4, radius)  # default_rng(rng) is rng itself: the same draws
    formed = positive_weights(A, t)
    monkeypatch.setattr(interior_module, "NEWTON_CG_MIN_DIMENSION", 0)
    by_cg = positive_weights(A, t)
    assert formed is not None and by_cg is not None
    assert np.allclose(by_cg, formed, rtol=1e-6, atol=1e-12)


def test_the_reduction_works_in_batches_and_refreshes(monkeypatch):
    # Small batches and frequent fresh inverses give the same (or an equally valid)
    # basis as one batch: the product form of the inverse is right.
    rng = np.random.default_rng(3)
    d, m = 12, 200
    A = np.vstack([rng.standard_normal((d, m)), np.ones((1, m))])
    t = np.append(0.1 * rng.standard_normal(d), 1.0)
    lam = positive_weights(A, t)
    monkeypatch.setattr(interior_module, "REDUCTION_BATCH", 1000)
    whole = caratheodory_basis(A, t, lam)
    for batch, refresh in ((1, 1), (3, 2), (7, 5)):
        monkeypatch.setattr(interior_module, "REDUCTION_BATCH", batch)
        monkeypatch.setattr(interior_module, "REDUCTION_REFRESH", refresh)
        basis = caratheodory_basis(A, t, lam)
        assert basis is not None and len(set(basis)) == d + 1
        assert np.all(np.linalg.solve(A[:, basis], t) >= -1e-9)
        assert sorted(basis) == sorted(whole)  # the same exchanges, exact or not


def test_the_reduction_takes_a_fresh_inverse_at_most_once_per_n_columns(monkeypatch):
    # A fresh inverse costs O(N^3): with batches of 4 columns and a refresh asked for
    # after every batch, N = 13 rows still get one only every 13 columns or more, and
    # the basis found is valid.
    A, t = _cloud(11, 12, 16, 0.1)
    N, m = A.shape
    lam = positive_weights(A, t)
    monkeypatch.setattr(interior_module, "REDUCTION_BATCH", 4)
    monkeypatch.setattr(interior_module, "REDUCTION_REFRESH", 1)
    calls = []
    inverse = np.linalg.inv
    monkeypatch.setattr(np.linalg, "inv", lambda M: calls.append(1) or inverse(M))
    basis = caratheodory_basis(A, t, lam)
    assert basis is not None and np.all(np.linalg.solve(A[:, basis], t) >= -1e-9)
    assert 2 <= len(calls) <= 1 + (m - N) // N + 1


def test_the_reduction_gives_up_outside_and_on_singular_columns():
    A = np.vstack([np.zeros((2, 8)), np.ones((1, 8))])
    t = np.array([0.0, 0.0, 1.0])
    assert caratheodory_basis(A, t, np.full(8, 1 / 8)) is None
    assert positive_weights(np.ones((3, 2)), t) is None  # fewer columns than rows
    rng = np.random.default_rng(0)
    A = np.vstack([rng.standard_normal((3, 20)), np.ones((1, 20))])
    far = np.array([40.0, 0.0, 0.0, 1.0])
    assert positive_weights(A, far) is None
    assert caratheodory_supports(A, far[:, None]) == [None]


def test_wrong_proposals_are_rejected_by_the_exact_check(monkeypatch):
    """The float proposal decides nothing: whatever supports it returns (a hull
    vertex's, random ones, a label's own row), only exact convex weights come out, and
    the labels it cannot place are left to the per-label methods."""
    from scipy.spatial import ConvexHull

    W, planted = _planted_head(11, 160, 5)
    head = make_head(W)
    vertices = sorted(set(ConvexHull(W.astype(np.float64)).vertices.tolist()))
    rng = np.random.default_rng(0)

    def wrong(A, targets):
        m = A.shape[1]
        return [rng.choice(m, A.shape[0], replace=False).tolist() if c % 3 else
                list(range(A.shape[0])) for c in range(targets.shape[1])]

    monkeypatch.setattr(interior_module, "caratheodory_supports", wrong)
    monkeypatch.setattr(interior_module, "WALK_MAX_DIMENSION", 0)  # no second proposal
    tasks = [(i, None, ()) for i in planted + vertices]
    certs = interior_certificates(head, tasks)
    for i, (support, Y, D) in certs.items():
        assert i not in vertices and i not in support
        assert is_argmax_certificate(head.rows, i, list(zip(support, Y)))
    # Supports that contain the label itself, or a hull vertex's own simplex.
    own = lambda A, targets: [None] * targets.shape[1]
    monkeypatch.setattr(interior_module, "caratheodory_supports", own)
    assert interior_certificates(head, tasks) == {}
    for v in vertices[:3]:
        support = sorted(rng.choice([k for k in range(head.n) if k != v], head.d + 1,
                                    replace=False).tolist())
        assert exact_weights(head, [v], support) == [None]
        assert exact_weights(head, [v], sorted(support[1:] + [v])) == [None]


def test_equal_rows_among_the_candidates_do_not_stop_the_reduction(monkeypatch):
    # Every row four times, in a row: the sample's first d + 1 candidates would hold
    # equal rows (a singular starting simplex) if the pool kept them.
    rng = np.random.default_rng(5)
    d = 5
    base = rng.standard_normal((60, d)).astype(np.float32)
    base[0] = base[1:].mean(axis=0)  # near the centroid: inside
    W = np.repeat(base, 4, axis=0)
    W = np.vstack([W[:1], W[4:]])  # label 0 alone (its copies would be its support)
    head = make_head(W)
    pool = interior_module._pool(head, 0, (), [0])
    assert len({tuple(head.F[k]) for k in pool}) == pool.size
    monkeypatch.setattr(interior_module, "WALK_MAX_DIMENSION", 0)  # Carathéodory alone
    certs = interior_certificates(head, [(0, None, ())])
    support, Y, D = certs[0]
    assert is_argmax_certificate(head.rows, 0, list(zip(support, Y)))


def test_interior_certificates_are_the_same_for_any_number_of_jobs():
    from verify.analyze.parallel import Workers

    W, planted = _planted_head(12, 220, 6)
    head = make_head(W)
    tasks = [(i, None, ()) for i in range(30)]
    one = interior_certificates(head, tasks)
    assert set(range(6)) <= set(one)
    for jobs in (2, 3):
        with Workers(head, jobs=jobs) as workers:
            assert interior_certificates(head, tasks, workers) == one


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


def propose_support(head, i: int, skip=()) -> list[int]:
    """The support the walk finds for label ``i`` (left out: ``skip``)."""
    found = interior_certificates(head, [(i, None, ())] + [(k, None, ()) for k in skip])
    return list(found[i][0])


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
    for i, (support, Y, D) in certs.items():
        assert is_argmax_certificate(head.rows, i, list(zip(support, Y)))
        assert sum(Y) == D > 0
        assert len(support) <= d + 1
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
    support = propose_support(head, 0, skip=[6, 7, 8])
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
    # Nor a label's own row among its support (the trivial z_i = z_i).
    assert exact_weights(head, [support[0]], support) == [None]


def test_screened_heads_certify_interior_rows_before_the_per_label_methods(monkeypatch):
    monkeypatch.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
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
    result = argmaxable_labels(head)
    assert set(planted) <= set(result.unargmaxable)
    assert any(any(f is not None for f in out) for out in calls)
    for i in result.unargmaxable:
        ev = result.evidence[i]
        if isinstance(ev, SimplexCertificate):  # a simplex proved by the per-label stage
            lam = solve_fraction([list(head.Z[k]) + [1] for k in ev.support],
                                 list(head.Z[i]) + [1])
            assert lam is not None and all(v > 0 for v in lam)
        else:
            assert is_argmax_certificate(head.rows, i, ev.multipliers)
    monkeypatch.setattr(head_module, "SCREEN_MIN_ENTRIES", 1 << 60)
    small = argmaxable_labels(ExactHead.from_array(W))
    assert small.unargmaxable == result.unargmaxable


def test_the_walk_gives_up_on_a_singular_start():
    P = np.vstack([np.zeros((2, 6)), np.ones((1, 6))])
    assert simplex_walk(P, [np.array([0.0, 0.0, 1.0])] * 2, max_pivots=10) == [None, None]


# --- no-tie certificates read off convex weights -------------------------------------------

def _derived_reference(argmax, i, j):
    """The certificate of the docstring of ``_derived_certificate``, with both sums
    computed (the code takes them from ``sum lambda = 1``)."""
    from verify.analyze.ties import NoTieCertificate

    for a, b in ((i, j), (j, i)):
        cert = argmax.evidence[a]
        if not isinstance(cert, GordanCertificate):
            continue
        lam = dict(cert.multipliers)
        if set(lam) <= {b}:
            continue
        mult = [(k, y) for k, y in sorted(lam.items()) if k != b]
        tie = lam.get(j, fmpq(0)) if a == i else -sum(lam.values(), fmpq(0))
        total = sum((y for _, y in mult), fmpq(0))
        return NoTieCertificate(multipliers=tuple((k, y / total) for k, y in mult),
                                tie=fmpq(tie) / total)
    return None


@pytest.mark.parametrize("seed,n,d", [(0, 120, 4), (3, 90, 3)])
def test_certificates_from_convex_weights_match_the_sums(seed, n, d):
    from verify.analyze.ties import _derived_certificate, is_no_tie_certificate

    W, planted = _planted_head(seed, n, d)
    W[11] = W[12]  # equal rows: the one-term weights
    head = make_head(W)
    argmax = argmaxable_labels(head)
    assert set(planted) <= set(argmax.unargmaxable)
    rows = [list(r) for r in head.Z]
    seen = 0
    for i in argmax.unargmaxable:
        for j in range(n):
            if j == i:
                continue
            a, b = min(i, j), max(i, j)
            got = _derived_certificate(head, argmax, a, b)
            assert got == _derived_reference(argmax, a, b), (a, b)
            if got is not None:
                assert sum((y for _, y in got.multipliers), fmpq(0)) == 1
                assert is_no_tie_certificate(rows, a, b, got)
                seen += 1
    assert seen > n


def test_equal_rows_inside_the_hull_cannot_tie_without_a_linear_program(monkeypatch):
    """Equal rows near the centroid: the interior pass, run without their copies, gives
    the no-tie certificate (the general method is an LP over all rows); equal rows at a
    hull vertex still tie."""
    from verify.analyze import ties as ties_module
    from verify.analyze.ties import NoTieCertificate, TieWitness, is_no_tie_certificate

    monkeypatch.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
    W, _ = _planted_head(8, 240, 6)
    W[11] = W[1]                                    # a third copy of the inner row 1
    top = int(np.argmax(np.linalg.norm(W[20:], axis=1))) + 20
    W[12] = W[top]                                  # a copy of a hull vertex
    head = ExactHead.from_array(W)
    assert head.screened

    def forbidden(*args, **kwargs):
        raise AssertionError("the general method was not needed")

    monkeypatch.setattr(ties_module, "nnls_support", forbidden)
    monkeypatch.setattr(ties_module, "propose_strict", forbidden)
    skipped = []
    real_pool = interior_module._pool

    def pool(head, lead, rivals, skip):
        skipped.append(set(skip) | {lead})
        return real_pool(head, lead, rivals, skip)

    monkeypatch.setattr(interior_module, "_pool", pool)
    ev = ties_module._decide_one(head, 1, 9, None, ())
    assert skipped == [{1, 9, 11}]  # every copy of the row is left out of the candidates
    assert isinstance(ev, NoTieCertificate) and ev.tie == 0
    assert is_no_tie_certificate(head.Z, 1, 9, ev)
    assert sum(y for _, y in ev.multipliers) == 1
    assert not {1, 9, 11} & {k for k, _ in ev.multipliers}
    # Independently: no point puts row 1 strictly above every row that differs from it.
    rows = [[a - b for a, b in zip(head.Z[1], head.Z[k])] for k in range(head.n)
            if head.Z[k] != head.Z[1]]
    assert isinstance(strict_feasibility(rows), GordanCertificate)
    # A vertex and its copy tie on top.
    vertex = ties_module._decide_one(head, 12, top, None, ())
    assert isinstance(vertex, TieWitness)
    assert ties_module.is_tie_witness(head.Z, 12, top, vertex.point)


def test_wrong_weights_for_equal_rows_are_rejected(monkeypatch):
    """The no-tie certificate of equal rows is checked exactly before it is used."""
    from verify.analyze import ties as ties_module

    monkeypatch.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
    W, _ = _planted_head(8, 240, 6)
    head = ExactHead.from_array(W)
    real = interior_module.certify_cluster
    good = real(head, ([1], [], [9]))[1]
    assert ties_module._equal_rows_inside(head, 1, 9) is not None
    support, weights, D = good
    shifted = [w + 1 if c == 0 else w for c, w in enumerate(weights)]
    cases = [(support, shifted, D + 1),                              # off the row
             (support, [-w if c == 0 else w for c, w in enumerate(weights)], D),  # negative
             (support, weights, D + 1),                              # not summing to D
             (support, [0] * len(weights), 0),                       # all zero
             ((9,) + tuple(support[1:]), weights, D)]                # the partner in it
    # Weights that satisfy every equation but one is negative: add a multiple of a null
    # vector of [z_k; 1] on one label more.
    from flint import fmpz_mat
    extra = next(k for k in range(20, head.n) if k not in support)
    wider = tuple(support) + (extra,)
    M = fmpz_mat([[head.Z[k][c] for k in wider] for c in range(head.d)] + [[1] * len(wider)])
    null, rank = M.nullspace()
    vec = [int(null[r, 0]) for r in range(len(wider))]
    assert any(vec) and sum(vec) == 0
    scale = 1 + sum(abs(v) for v in vec)
    skewed = [scale * int(y) for y in weights] + [0]
    skewed = [y + scale * D * v for y, v in zip(skewed, vec)]
    assert min(skewed) < 0 and sum(skewed) == scale * D
    cases.append((wider, skewed, scale * D))
    for bad in cases:
        monkeypatch.setattr(interior_module, "certify_cluster",
                            lambda head, task, exact=False, bad=bad: {1: bad})
        assert ties_module._equal_rows_inside(head, 1, 9) is None, bad


def test_the_probe_decides_whether_the_rest_is_tried(monkeypatch):
    """``interior_certificates`` tries the clusters after the first ``INTERIOR_PROBE``
    only if the probe certified at least ``INTERIOR_MIN_SHARE`` of its labels: with a
    probe of one cluster, planted interior labels first, the rest is certified as
    without a probe; with an unreachable share, only the probe's labels are."""
    W, planted = _planted_head(11, 160, 5)
    head = make_head(W)
    tasks = [(i, None, ()) for i in planted]
    full = interior_certificates(head, tasks)
    assert len(full) > 1
    monkeypatch.setattr(interior_module, "INTERIOR_PROBE", 1)
    assert interior_certificates(head, tasks).keys() == full.keys()
    monkeypatch.setattr(interior_module, "INTERIOR_MIN_SHARE", 2)
    probed = interior_certificates(head, tasks)
    assert 0 < len(probed) < len(full) and probed.keys() <= full.keys()


def _greedy_clusters(F, labels):
    """The grouping rule of ``clusters`` as it reads: each label against every first
    row so far."""
    firsts, groups = [], []
    for i in labels:
        if firsts:
            gap = np.linalg.norm(F[firsts] - F[i], axis=1)
            hit = np.flatnonzero(gap <= interior_module.NEAR_DUPLICATE
                                 * float(np.linalg.norm(F[i])))
            if hit.size:
                groups[int(hit[0])].append(i)
                continue
        firsts.append(i)
        groups.append([i])
    return groups


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10 ** 6), st.integers(2, 6), st.integers(1, 60))
def test_clusters_follow_the_greedy_rule(seed, d, m):
    """``clusters`` (blocked candidate distances first) against the greedy rule itself,
    on rows in chains of near duplicates at distances around the radius (relative
    ``NEAR_DUPLICATE``), with equal rows, in a random order of the labels."""
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((max(1, m // 4), d)) * 2 ** 20
    rows = []
    for _ in range(m):
        b = base[int(rng.integers(len(base)))]
        scale = interior_module.NEAR_DUPLICATE * float(np.linalg.norm(b))
        step = rng.standard_normal(d)
        step *= rng.choice([0.0, 0.3, 0.9, 1.1, 2.5]) * scale / np.linalg.norm(step)
        rows.append(np.rint(b + step))
    head = make_head(np.array(rows, dtype=np.int64))
    order = [int(k) for k in rng.permutation(m)]
    assert clusters(head, order) == _greedy_clusters(head.F, order)
