"""Rows strictly inside a simplex, proven by a verified inverse (``verify.analyze.simplex``
and the checker's own proof in ``verify/checker/analyze.py``).

Every proof is compared with the exact solution of the system (python-flint's rational
solve): a proven point must have every exact weight positive, and points on a facet,
outside, or a vertex must never be proven. The checker's exact path (fractions) must
agree with the exact solve everywhere. End to end, the simplex evidence must give the
same sets as exact convex weights, and its certificate must pass the checker on both
arithmetics and fail it for every single forged condition.
"""

from __future__ import annotations

import numpy as np
import pytest
from flint import fmpq, fmpq_mat, fmpz_mat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_analyze_certificate import both, contents, rewrite
from verify.analyze import analyze
from verify.analyze import argmax as argmax_module
from verify.analyze import head as head_module
from verify.analyze import interior as interior_module
from verify.analyze.certificate import write_analyze_certificate
from verify.analyze.simplex import SimplexCertificate, SimplexNoTie, strictly_inside
from verify.checker import analyze as checker_module


def exact_weights(V, z):
    """The exact solution of ``sum lambda_k (v_k, 1) = (z, 1)``, or None if singular."""
    N = len(V)
    M = fmpz_mat([[int(V[k][r]) for k in range(N)] for r in range(N - 1)] + [[1] * N])
    t = fmpz_mat([[int(v)] for v in z] + [[1]])
    try:
        X = fmpq_mat(M).solve(fmpq_mat(t))
    except ZeroDivisionError:
        return None
    return [X[r, 0] for r in range(N)]


def truth(V, z) -> bool:
    lam = exact_weights(V, z)
    return lam is not None and all(v > 0 for v in lam)


def provers(V, z) -> dict:
    """The verdict of the engine's proof, the checker's numpy proof and its exact path."""
    V = np.asarray(V, dtype=np.int64)
    z = np.asarray(z, dtype=np.int64)
    out = {"engine": strictly_inside(V, z),
           "checker numpy": checker_module._verified_inside(np, V, z)}
    if len(V) <= 64:  # exact elimination in Python integers: cubic, with growing entries
        out["checker exact"] = checker_module._positive_solution(
            [list(map(int, v)) + [1] for v in V], list(map(int, z)) + [1])
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 7), st.integers(0, 2 ** 32 - 1), st.sampled_from([1, 3, 40, 61]),
       st.sampled_from(["inside", "facet", "outside", "vertex", "random"]))
def test_proofs_are_sound_and_the_exact_path_is_exact(d, seed, bits, where):
    rng = np.random.default_rng(seed)
    top = 1 << bits
    V = rng.integers(-top, top, size=(d + 1, d), dtype=np.int64)
    w = rng.integers(1, 1 << 20, size=d + 1).astype(object)
    if where == "facet":
        w[int(rng.integers(d + 1))] = 0
    elif where == "outside":
        w[int(rng.integers(d + 1))] = -1
    elif where == "vertex":
        w[:] = 0
        w[0] = 1
    # z = sum w_k v_k / sum w_k, integral when every vertex is scaled by sum w_k.
    total = int(sum(w)) or 1
    if where == "random":
        z = rng.integers(-top, top, size=d)
    else:
        V = V // max(1, total)  # keep V * total inside int64
        z = sum(int(w[k]) * V[k].astype(object) for k in range(d + 1))
        V = V * total
    if np.abs(V).max() >= 1 << 62 or max(abs(int(v)) for v in z) >= 1 << 62:
        return
    verdicts = provers(V, z)
    exact = truth(V, z)
    assert verdicts["checker exact"] == exact
    for name in ("engine", "checker numpy"):
        if verdicts[name]:
            assert exact, name
    if where in ("facet", "outside", "vertex"):
        assert not any(verdicts.values())


def test_a_well_placed_point_is_proven_and_the_centre_of_a_large_simplex():
    rng = np.random.default_rng(7)
    for d in (2, 10, 60, 200):
        V = rng.integers(-(1 << 40), 1 << 40, size=(d + 1, d), dtype=np.int64)
        z = V.astype(object).sum(axis=0) // (d + 1)
        assert truth(V, z)
        verdicts = provers(V, z)
        assert verdicts["engine"] and verdicts["checker numpy"], d


@pytest.mark.parametrize("shift", [1, 2, 1 << 20])
def test_points_just_outside_or_on_a_facet_are_never_proven(shift):
    # The simplex 0, N e_1, ..., N e_d (N = 2^60) and points at or just beyond the
    # facet x_1 + ... + x_d = N: float weights of these points round to positive.
    d, N = 5, 1 << 60
    V = np.vstack([np.zeros(d, dtype=np.int64), N * np.eye(d, dtype=np.int64)])
    inside = np.full(d, N // (d + 1), dtype=np.int64)
    assert all(provers(V, inside).values())
    on = np.array([N // d] * (d - 1) + [N - (d - 1) * (N // d)], dtype=np.int64)
    beyond = on.copy()
    beyond[0] += shift
    near = on.copy()
    near[0] -= shift  # strictly inside, by a relative 2^-60 or so
    assert not any(provers(V, on).values())
    assert not any(provers(V, beyond).values())
    assert truth(V, near)
    assert provers(V, near)["checker exact"]
    # Soundness only: the float proofs may decline so thin a margin.
    for name in ("engine", "checker numpy"):
        assert provers(V, near)[name] in (True, False)


@pytest.mark.parametrize("factor", [0.4, 1.6])
def test_a_poor_inverse_is_not_trusted(factor):
    # With R = factor M^-1, ||I - R M|| = 0.6: the bound of (R M)^-1 fails, so no proof
    # may rest on it, though the refined weights of this point come out positive.
    rng = np.random.default_rng(11)
    d = 8
    V = rng.integers(-(1 << 30), 1 << 30, size=(d + 1, d), dtype=np.int64)
    z = V.astype(object).sum(axis=0) // (d + 1)
    assert truth(V, z) and provers(V, z)["engine"]
    poor = lambda M: factor * np.linalg.inv(M)  # noqa: E731
    assert not strictly_inside(V, z, inverse=poor)
    assert not checker_module._verified_inside(np, V, z, inverse=poor)
    good = lambda M: np.linalg.inv(M) * (1 + 1e-9)  # noqa: E731
    assert strictly_inside(V, z, inverse=good)
    assert checker_module._verified_inside(np, V, z, inverse=good)


def test_a_residual_that_rounds_to_zero_still_counts():
    # z = 0 is the midpoint of the edge v_0 v_2: weights (1/2, 0, 1/2), not inside.
    # The inverse R below (good enough: ||I - R M^|| is about 2^-20) steers the refined
    # weights to (1/2, 15 2^-1074, 1/2 - 15 2^-1074), every step exact in float64: the
    # residual of R t^ is -s (31/64, 1/2, 1/2) and R times it is (0, 15 2^-1074 - s,
    # -15 2^-1074). Their exact residual, (30 2^-1080, 0, 0), rounds to 0, so a bound
    # built from the rounded residual alone (3 2^-1074, times 4) would prove the middle
    # weight positive. Only the 2^-1074 per rounded entry keeps the proof honest.
    V = np.array([[-33, -1], [31, 1], [33, 1]], dtype=np.int64)
    z = np.array([0, 0], dtype=np.int64)
    assert exact_weights(V, z) == [fmpq(1, 2), 0, fmpq(1, 2)]
    s = 2.0 ** -1048
    R = np.array([[0.0, -1.0, 1.0],
                  [-32.0, 33.0 - 15 * 2.0 ** -25, 2 * s],
                  [32.0, -32.0 + 15 * 2.0 ** -25, 1.0]])
    scaled = np.array([[-33 / 64, 31 / 64, 33 / 64], [-1 / 2, 1 / 2, 1 / 2], [1 / 2] * 3])

    def steered(M):
        assert np.array_equal(M, scaled)  # the row scaling the construction assumes
        return R

    assert not strictly_inside(V, z, inverse=steered)
    assert not checker_module._verified_inside(np, V, z, inverse=steered)


def _scaled(V, z):
    """The row-scaled float system of the proofs (powers of two, as they scale it)."""
    M = np.vstack([V.T.astype(np.float64), np.ones((1, len(V)))])
    t = np.append(z.astype(np.float64), 1.0)
    e = np.frexp(np.maximum(np.abs(M).max(axis=1), np.abs(t)))[1]
    return np.ldexp(M, -e[:, None]), np.ldexp(t, -e)


def test_no_proof_rests_on_an_inverse_that_fails_the_bound():
    # R = M^-1 + 5 u v^T with v orthogonal to t: R t and the refinement are those of
    # the true inverse, so the weights come out right and the residual tiny, but
    # ||I - R M|| is far above 1/2, where the error estimate is no longer valid; the
    # proofs must refuse it, even for a point that is inside.
    rng = np.random.default_rng(5)
    d = 12
    V = rng.integers(-(1 << 30), 1 << 30, size=(d + 1, d), dtype=np.int64)
    z = V.astype(object).sum(axis=0) // (d + 1)
    M_hat, t_hat = _scaled(V, z)
    v = rng.standard_normal(d + 1)
    v -= t_hat * (v @ t_hat) / (t_hat @ t_hat)
    u = rng.standard_normal(d + 1)
    off = lambda M: np.linalg.inv(M) + 5 * np.outer(u, v)  # noqa: E731
    assert truth(V, z)
    assert np.abs(np.eye(d + 1) - off(M_hat) @ M_hat).sum(axis=1).max() > 1
    assert not strictly_inside(V, z, inverse=off)
    assert not checker_module._verified_inside(np, V, z, inverse=off)


def test_singular_and_malformed_simplices_are_not_proven():
    V = np.array([[0, 0], [2, 2], [4, 4]], dtype=np.int64)  # collinear
    assert not any(provers(V, np.array([2, 2])).values())
    assert not strictly_inside(np.zeros((3, 3), dtype=np.int64), np.zeros(3, dtype=np.int64))
    huge = np.array([[0, 0], [1 << 2000, 0], [0, 1]], dtype=object)
    assert not strictly_inside(huge, np.array([1, 0], dtype=object))


# --- the analysis and its certificate ----------------------------------------------------

def _planted(seed: int, n: int, d: int):
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((n, d)).astype(np.float32)
    centre = W[8:].mean(axis=0)
    for i in range(6):
        W[i] = (centre + 0.05 * rng.standard_normal(d)).astype(np.float32)
    W[7] = W[1]  # an exact copy of an interior row
    return W


@pytest.fixture(scope="module")
def simplex_analysis():
    """An analysis of a planted head whose interior rows get simplices (and, for
    comparison, the analysis with exact convex weights)."""
    W = _planted(3, 80, 6)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
        mp.setattr(argmax_module, "SCREEN_CHUNK", 64)
        mp.setattr(interior_module, "SIMPLEX_MIN_DIMENSION", 10 ** 6)
        exact = analyze(W, cells=False, neighbours=3, rays=0)
        mp.setattr(interior_module, "SIMPLEX_MIN_DIMENSION", 0)
        result = analyze(W, cells=False, neighbours=3, rays=0)
    return W, result, exact


def test_simplex_evidence_gives_the_same_answers_as_convex_weights(simplex_analysis):
    W, result, exact = simplex_analysis
    kinds = {type(e).__name__ for e in result.argmax.evidence}
    assert "SimplexCertificate" in kinds
    assert result.argmax.unargmaxable == exact.argmax.unargmaxable
    assert set(range(6)) <= set(result.argmax.unargmaxable)
    assert result.ties.tie_pairs == exact.ties.tie_pairs
    assert result.ties.non_tie_pairs == exact.ties.non_tie_pairs
    simplex_pairs = [p for p, e in result.ties.evidence.items() if isinstance(e, SimplexNoTie)]
    assert simplex_pairs
    for (i, j) in simplex_pairs:
        e = result.ties.evidence[(i, j)]
        assert e.inside in (i, j)
        assert isinstance(result.argmax.evidence[e.inside], SimplexCertificate)
        assert e.support == result.argmax.evidence[e.inside].support
    for i, e in enumerate(result.argmax.evidence):
        if isinstance(e, SimplexCertificate):
            assert len(e.support) == result.d + 1 and i not in e.support
            rows = result.head.Zarr
            assert truth(rows[list(e.support)], rows[i])


def test_simplex_certificates_pass_and_forgeries_fail(simplex_analysis, tmp_path):
    W, result, _ = simplex_analysis
    path = tmp_path / "cert.zip"
    write_analyze_certificate(path, result, W)
    status, message = both(path)
    assert status == "OK" and "simplices" in message, message
    manifest, arrays = contents(path)
    labels, supports = arrays["simplex_labels"], arrays["simplex_support"]
    i = labels[0]
    hull_vertex = next(k for k in range(result.n) if result.argmax.is_argmaxable(k)
                       and k not in supports[0])

    def forged(change, name):
        m, a = contents(path)
        change(m, a)
        return both(rewrite(path, m, a, tmp_path / name))

    # The label itself in its support.
    status, message = forged(lambda m, a: a["simplex_support"][0].__setitem__(0, i), "own")
    assert status == "INVALID" and "not allowed" in message
    # A support label listed twice.
    status, message = forged(lambda m, a: a["simplex_support"][0].__setitem__(
        1, a["simplex_support"][0][0]), "twice")
    assert status == "INVALID" and "listed twice" in message
    # A hull vertex claimed inside a simplex (its argmax witness removed).
    def vertex(m, a):
        r = a["argmax_labels"].index(hull_vertex)
        a["argmax_labels"].pop(r)
        a["argmax_points"].pop(r)
        at = next((s for s, k in enumerate(a["simplex_labels"]) if k > hull_vertex),
                  len(a["simplex_labels"]))
        a["simplex_labels"].insert(at, hull_vertex)
        a["simplex_support"].insert(at, list(supports[0]))
        m["assertion"]["argmaxable"] -= 1
        m["assertion"]["unargmaxable"] += 1
    status, message = forged(vertex, "vertex")
    assert status == "INVALID" and f"z_{hull_vertex} is not strictly inside" in message
    # A support that is a simplex, but not around the label: one vertex swapped.
    def swapped(m, a):
        a["simplex_support"][0][-1] = hull_vertex
    status, message = forged(swapped, "swapped")
    assert status == "INVALID" and f"z_{i} is not strictly inside" in message
    # A pair claimed by a simplex that neither of its labels has.
    inside = set(labels)
    pair = next(list(p) for p in result.ties.tie_pairs if not set(p) & inside)

    def claimed(m, a):  # a tie pair moved to the simplex pairs
        r = a["tie_pairs"].index(pair)
        a["tie_pairs"].pop(r)
        a["tie_points"].pop(r)
        a["non_tie_simplex_pairs"] = sorted(a["non_tie_simplex_pairs"] + [pair])
        m["assertion"]["tie_pairs"] -= 1
        m["assertion"]["non_tie_pairs"] += 1
    status, message = forged(claimed, "claimed")
    assert status == "INVALID" and "has a simplex" in message
    # Counts: the assertion must count simplices among the unargmaxable labels.
    def miscounted(m, a):
        m["assertion"]["unargmaxable"] -= 1
    status, message = forged(miscounted, "count")
    assert status == "INVALID" and "assertion.unargmaxable" in message


def test_the_numpy_proof_falls_back_to_exact_fractions(simplex_analysis, tmp_path,
                                                       monkeypatch):
    W, result, _ = simplex_analysis
    path = tmp_path / "cert.zip"
    write_analyze_certificate(path, result, W)
    monkeypatch.setattr(checker_module, "_verified_inside", lambda *args: False)
    assert both(path)[0] == "OK"
