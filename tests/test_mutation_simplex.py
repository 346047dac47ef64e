"""Simplex proofs (``verify.analyze.simplex`` and the checker's own in
``verify/checker/analyze.py``), piece by piece and fast.

Written against the mutation run of the simplex proofs (docs/testing.md). The pieces
are compared with their definitions: the fraction-free elimination with python-flint's
exact solve, the dyadic conversions and exact residuals with ``Fraction``. The two float
proofs implement the same documented bound with separate code, so on a fine sweep across
the boundary of what the bound can prove (a point moving towards a facet; an inverse
made worse step by step) they must give the same verdict at every step, both verdicts
must occur, and every proven point must be inside by the exact solve. Small
certificates with simplex evidence (written by the engine in milliseconds) are forged
one condition at a time; both arithmetics must reject each forgery with the same message.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq, fmpq_mat, fmpz_mat

import verify.analyze.simplex as engine
import verify.checker.analyze as checker
from test_analyze_certificate import both, contents, rewrite
from verify.analyze import analyze
from verify.analyze import head as head_module
from verify.analyze import interior as interior_module
from verify.analyze.report import analyze_with_bias
from verify.analyze.certificate import write_analyze_certificate


def exact_weights(columns, target):
    """The exact solution of ``sum_k lambda_k columns[k] = target``, or None if singular."""
    N = len(columns)
    M = fmpz_mat([[int(columns[k][r]) for k in range(N)] for r in range(N)])
    try:
        X = fmpq_mat(M).solve(fmpq_mat(fmpz_mat([[int(v)] for v in target])))
    except ZeroDivisionError:
        return None
    return [X[r, 0] for r in range(N)]


def inside(V, z) -> bool:
    lam = exact_weights([list(map(int, v)) + [1] for v in V], list(map(int, z)) + [1])
    return lam is not None and all(x > 0 for x in lam)


# --- the exact elimination --------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_the_elimination_agrees_with_the_exact_solve(seed):
    # Small entries with many zeros: zero pivots (row swaps), singular systems, negative
    # determinants, weights of every sign and zero weights all occur.
    rng = np.random.default_rng(seed)
    seen = set()
    for _ in range(300):
        N = int(rng.integers(1, 6))
        top = int(rng.choice([1, 2, 3, 1 << 62]))
        cols = rng.integers(-top, top + 1, size=(N, N)).tolist()
        cols = [[c if rng.random() < 0.6 else 0 for c in col] for col in cols]
        kind = rng.random()
        if kind < 0.5:  # a combination of the columns with chosen signs
            w = rng.integers(-1, 4, size=N).tolist()
            target = [sum(w[k] * cols[k][r] for k in range(N)) for r in range(N)]
        else:
            target = rng.integers(-top, top + 1, size=N).tolist()
        lam = exact_weights(cols, target)
        expected = lam is not None and all(x > 0 for x in lam)
        seen.add((lam is None, expected))
        assert checker._positive_solution(cols, target) == expected, (cols, target, lam)
    assert seen == {(True, False), (False, False), (False, True)}


def test_the_elimination_with_row_swaps_and_negative_determinants():
    # Column c has its first nonzero entry only in the last row: every step swaps.
    N = 4
    cols = [[0] * N for _ in range(N)]
    for k in range(N):
        cols[k][N - 1 - k] = 1 + k
        cols[k][(N - k) % N] += 1
    for w in ([1, 1, 1, 1], [1, 2, 3, 4], [1, 1, 0, 1], [1, -1, 1, 1], [5, 1, 1, 2]):
        target = [sum(w[k] * cols[k][r] for k in range(N)) for r in range(N)]
        assert checker._positive_solution(cols, target) == all(x > 0 for x in w)
        negated = [[-v for v in col] for col in cols]  # det of the other sign
        assert checker._positive_solution(negated, [-v for v in target]) == all(x > 0 for x in w)


def test_the_elimination_is_exact_for_large_entries():
    # Weights 1/2^60 and -1/2^60 of vertex 0: floats cannot tell them apart from 0.
    N = 1 << 60
    V = [[0, 0, 0], [N, 0, 0], [0, N, 0], [0, 0, N]]
    cols = [v + [1] for v in V]
    for shift, expected in ((1, True), (0, False), (-1, False), (N // 4, True), (N // 2, False)):
        z = [N // 3, N // 3, N - 2 * (N // 3) - shift] + [1]
        assert checker._positive_solution(cols, z) == expected
        assert inside(V, z[:-1]) == expected


def test_the_elimination_refuses_systems_of_the_wrong_shape():
    assert checker._positive_solution([[1]], [1]) is True
    assert checker._positive_solution([[1]], [-1]) is False
    assert checker._positive_solution([[1, 0], [0]], [1, 1]) is False
    assert checker._positive_solution([[1, 0], [0, 1, 0]], [1, 1]) is False
    assert checker._positive_solution([[1, 0], [0, 1]], [1, 1, 1]) is False
    assert checker._positive_solution([[1, 0], [0, 1]], [1]) is False


# --- dyadic rationals and exact residuals ----------------------------------------------

FLOATS = [0.0, -0.0, 1.0, 3.0, -7.0, 0.5, -0.375, 1e300, -1e-300, 2.0 ** -1074, 0.1,
          -1 / 3, 2.0 ** 60, 123456.789, -2.0 ** -60 * 3]


@pytest.mark.parametrize("convert", [checker._as_dyadic, engine._dyadic])
def test_dyadic_conversions_are_exact(convert):
    rng = np.random.default_rng(1)
    cases = [FLOATS, [3.0], [0.0, 0.0], [5.0, 0.25], [0.25, 5.0], [-0.5, 1.5, -2.0 ** -30],
             list(rng.standard_normal(7) * 10.0 ** rng.integers(-20, 20, size=7))]
    for values in cases:
        a, q = convert(np.array(values))
        assert q >= 0 and all(isinstance(x, int) for x in a)
        assert [Fraction(x, 1 << q) for x in a] == [Fraction(v) for v in values]


def _residual_cases():
    rng = np.random.default_rng(2)
    for _ in range(40):
        N = int(rng.integers(1, 6))
        M = rng.integers(-(1 << 62), 1 << 62, size=(N, N)).astype(object)
        M[rng.random((N, N)) < 0.3] = 0
        t = [int(v) for v in rng.integers(-(1 << 62), 1 << 62, size=N)]
        q = int(rng.integers(0, 90))
        a = [int(v) << int(rng.integers(0, 40)) for v in rng.integers(-(1 << 62), 1 << 62, size=N)]
        exponents = rng.integers(1, 70, size=N)
        yield M, t, a, q, exponents
    # A residual that cancels exactly, and one that is 1 / 2^(q + e).
    M = np.array([[2, 0], [1, 1]], dtype=object)
    yield M, [3, 2], [3, 1], 1, np.array([2, 1])
    yield M, [3, 2], [5, 3], 1, np.array([3, 64])


@pytest.mark.parametrize("which", ["checker", "engine"])
def test_exact_residuals_are_rounded_once(which):
    for M, t, a, q, exponents in _residual_cases():
        if which == "checker":
            got = checker._exact_residual(np, M, t, a, q, [int(e) for e in exponents])
        else:
            got = engine._scaled_residual(M, t, a, q, exponents)
        assert got.dtype == np.float64 and got.shape == (len(t),)
        for r in range(len(t)):
            exact = (Fraction(t[r]) - sum(Fraction(int(M[r, c]) * a[c], 1 << q)
                                          for c in range(len(a)))) / (1 << int(exponents[r]))
            assert got[r] == float(exact), (r, got[r], exact)


# --- the two float proofs against each other and the exact solve -----------------------

def proofs(V, z, inverse=None):
    V = np.asarray(V, dtype=np.int64)
    z = np.asarray(z, dtype=np.int64)
    e = engine.strictly_inside(V, z, inverse=inverse or np.linalg.inv)
    c = checker._verified_inside(np, V, z, inverse=inverse)
    assert e == c, (V, z, e, c)
    if e:
        assert inside(V, z)
    return e


@pytest.mark.parametrize("d", [2, 3, 4])
def test_the_proofs_agree_across_the_facet_boundary(d):
    # z = (w_0 v_0 + W v_1 + ... ) / total with the weight of v_0 from 2^-40 to 1/2 in
    # steps of 1 %, and an inverse R = (1 + 10^-4) M^-1: one refinement leaves a residual
    # of about 10^-8, so the bound proves the large weights only. The two proofs must
    # stop at the same step, and nothing on the facet or beyond it is proven.
    rng = np.random.default_rng(d)
    total = 1 << 40
    V = rng.integers(-(1 << 9), 1 << 9, size=(d + 1, d)).astype(object)
    off = lambda M: np.linalg.inv(M) * (1 + 1e-4)  # noqa: E731
    verdicts = []
    w0 = 1.0
    while w0 < total / 2:
        rest = total - int(w0)
        w = [int(w0)] + [rest // d] * d
        w[1] += rest - sum(w[1:])
        z = sum(w[k] * V[k] for k in range(d + 1))
        verdicts.append(proofs(V * total, z, inverse=off))
        w0 *= 1.01
    assert verdicts[-1] and not verdicts[0]
    assert verdicts == sorted(verdicts)  # proven from some weight on
    for w in ([0] + [total // d] * d, [-1] + [total // d] * d):
        w[1] += total - sum(w)
        z = sum(w[k] * V[k] for k in range(d + 1))
        assert not proofs(V * total, z) and not proofs(V * total, z, inverse=off)


@pytest.mark.parametrize("d", [2, 3, 5])
def test_the_proofs_agree_as_the_inverse_gets_worse(d):
    # R = M^-1 + s x y^T with y orthogonal to t: R t and the refinement are those of the
    # true inverse, so the residual argument holds for every s, and only the bound
    # ||I - R M|| <= alpha <= 1/2 stops the proof. The two proofs must stop at the same s.
    rng = np.random.default_rng(10 + d)
    V = rng.integers(-(1 << 30), 1 << 30, size=(d + 1, d), dtype=np.int64)
    z = V.astype(object).sum(axis=0) // (d + 1)
    M = np.vstack([V.T.astype(np.float64), np.ones((1, d + 1))])
    t = np.append(z.astype(np.float64), 1.0)
    e = np.frexp(np.maximum(np.abs(M).max(axis=1), np.abs(t)))[1]
    t_hat = np.ldexp(t, -e)
    y = rng.standard_normal(d + 1)
    y -= t_hat * (y @ t_hat) / (t_hat @ t_hat)
    x = rng.standard_normal(d + 1)
    verdicts = []
    s = 1e-6
    while s < 10:
        verdicts.append(proofs(V, z, inverse=lambda Mh, s=s: np.linalg.inv(Mh) + s * np.outer(x, y)))
        s *= 1.01
    assert verdicts[0] and not verdicts[-1]
    assert verdicts == sorted(verdicts, reverse=True)


@pytest.mark.parametrize("d", [2, 3])
def test_the_proofs_agree_as_the_simplex_flattens(d):
    # Vertices pulled towards a hyperplane: the condition number grows until the bound
    # (its rounding term (gamma_N + 2u) |R| |M|) fails.
    rng = np.random.default_rng(20 + d)
    base = rng.integers(-(1 << 20), 1 << 20, size=(d + 1, d)).astype(object)
    verdicts = []
    flat = 1.0
    while flat < 2.0 ** 50:
        V = base.copy()
        V[:, -1] = [int(v) // int(flat) for v in base[:, -1]]
        z = V.sum(axis=0) // (d + 1)
        verdicts.append(proofs(V, z))
        flat *= 1.02
    assert verdicts[0] and not all(verdicts)


def test_the_proofs_refuse_bad_shapes_and_bad_inverses():
    V = np.array([[0, 0], [12, 0], [0, 12]], dtype=np.int64)
    z = np.array([3, 3], dtype=np.int64)
    assert proofs(V, z)
    for bad in (lambda M: np.full_like(M, np.nan), lambda M: np.full_like(M, np.inf),
                lambda M: np.zeros_like(M), lambda M: -np.linalg.inv(M)):
        assert not proofs(V, z, inverse=bad)

    def singular(M):
        raise np.linalg.LinAlgError("singular")
    assert not proofs(V, z, inverse=singular)
    # Degenerate simplices: one vertex (no dimension), a point.
    assert not proofs(np.zeros((1, 0), dtype=np.int64), np.zeros(0, dtype=np.int64))
    assert not proofs(np.array([[5]]), np.array([5]))
    assert proofs(np.array([[0], [4]]), np.array([1]))
    assert not proofs(np.array([[0], [4]]), np.array([4]))
    assert not proofs(np.array([[0], [4]]), np.array([0]))
    # The columns of zeros (top 0): every vertex at 0 in one coordinate.
    assert proofs(np.array([[0, 0, 0], [9, 0, 0], [0, 9, 0], [0, 0, 9]]), np.array([2, 2, 2]))
    assert not proofs(np.array([[0, 0], [0, 0], [0, 9]]), np.array([0, 3]))


def test_a_vertex_far_from_the_others_is_within_the_range():
    # Entries near 2^62 and near 1 in one system: the scaling of each row by its own
    # power of two keeps the proof possible (one scale for all rows would not).
    big = 1 << 61
    V = np.array([[0, 0], [big, 0], [0, 3]], dtype=np.int64)
    z = np.array([big // 4, 1], dtype=np.int64)
    assert proofs(V, z)


# --- certificates with simplex evidence ---------------------------------------------------

TRIANGLE = [[0, 0], [12, 0], [0, 12], [3, 3], [2, 5]]


def certify(tmp_path, rows, name="cert.zip", prove=None):
    """The engine's certificate of ``rows``: interior labels by simplices (proven by
    ``prove``, by default the engine's float proof)."""
    W = [[int(v) for v in row] for row in rows]  # exact integers
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
        mp.setattr(interior_module, "SIMPLEX_MIN_DIMENSION", 0)
        if prove is not None:
            mp.setattr(engine, "strictly_inside", prove)
        result = analyze(W, cells=False)
    path = tmp_path / name
    write_analyze_certificate(path, result, W)
    return path


@pytest.fixture
def triangle(tmp_path):
    path = certify(tmp_path, TRIANGLE)
    m, a = contents(path)
    assert a["simplex_labels"] == [3, 4] and a["hull_labels"] == []
    return path


def forge(path, change, name="forged.zip"):
    m, a = contents(path)
    change(m, a)
    width = {"simplex_support": m["input"]["d"] + 1, "non_tie_simplex_pairs": 2}
    for array, w in width.items():  # empty lists as arrays of the right shape
        if array in a and len(a[array]) == 0:
            a[array] = np.zeros((0, w), dtype=np.int64)
    return both(rewrite(path, m, a, path.with_name(name)))


def test_a_valid_certificate_and_its_message(triangle):
    status, message = both(triangle)
    assert status == "OK"
    m, a = contents(triangle)
    n = m["input"]["n"]
    assert (f"{len(a['argmax_labels'])} argmaxable (witnesses), "
            f"{len(a['simplex_labels'])} unargmaxable (0 convex weights, "
            f"{len(a['simplex_labels'])} simplices); {n * (n - 1) // 2} of "
            f"{n * (n - 1) // 2} pairs decided: {len(a['tie_pairs'])} can tie, "
            f"{len(a['non_tie_simplex_pairs'])} cannot") in message


def test_an_interior_point_the_float_proof_cannot_prove(tmp_path):
    # The weight of vertex 0 is 2^-60: only the exact elimination proves it, on both
    # arithmetics (the numpy one falls back to it).
    # The simplex is flat (condition about 2^56), the weight of vertex 0 is 2^-58.
    N = 1 << 58
    rows = [[0, 0], [N, N], [N, N - 4], [N - 1, N - 3], [N // 2, N // 2 - 1]]
    V = np.array(rows[:3], dtype=np.int64)
    assert inside(V, rows[3])
    assert not engine.strictly_inside(V, np.array(rows[3], dtype=np.int64))
    assert not checker._verified_inside(np, V, np.array(rows[3], dtype=np.int64))
    path = certify(tmp_path, rows)  # exact convex weights: the rows 1 to 3 are near
    m, a = contents(path)
    assert a["hull_labels"] == [3, 4]

    def simplices(m, a):  # the convex weights replaced by simplices
        a["simplex_labels"], a["simplex_support"] = [3, 4], [[0, 1, 2], [0, 1, 2]]
        a["non_tie_simplex_pairs"] = np.zeros((0, 2), dtype=np.int64)
        a.update(hull_labels=[], hull_offsets=[0], hull_support=[], hull_weights=[],
                 hull_denominators=[])
    status, message = forge(path, simplices, "simplices.zip")
    assert status == "OK" and "0 convex weights, 2 simplices" in message, message
    path = path.with_name("simplices.zip")
    # Label 3 claimed inside 0, (N, N), (N / 2, N / 2 - 1): beyond its edge.
    def onto(m, a):
        a["simplex_support"][0] = [0, 1, 4]
    status, message = forge(path, onto)
    assert status == "INVALID" and "z_3 is not strictly inside" in message, message


def test_the_numpy_proof_falls_back_to_the_exact_elimination(triangle, monkeypatch):
    monkeypatch.setattr(checker, "_verified_inside", lambda *args: False)
    assert both(triangle)[0] == "OK"


def test_a_point_outside_its_simplex(triangle):
    def outside(m, a):
        a["simplex_support"][1] = [0, 1, 3]  # (2, 5) is not inside 0, (12, 0), (3, 3)
    status, message = forge(triangle, outside)
    assert status == "INVALID"
    assert "simplex[1] of label 4: z_4 is not strictly inside the simplex of its support" \
        in message


@pytest.mark.parametrize("support, words", [
    ([0, 1, 1], "simplex[0] of label 3: a label is listed twice"),
    ([0, 1, 3], "simplex[0] of label 3: support label 3 is not allowed (must be in 0..4, not 3)"),
    ([0, 1, 5], "support label 5 is not allowed"),
    ([-1, 1, 2], "support label -1 is not allowed"),
])
def test_bad_support_labels(triangle, support, words):
    status, message = forge(triangle, lambda m, a: a["simplex_support"].__setitem__(0, support))
    assert status == "INVALID" and words in message, message


def test_a_support_of_the_wrong_size(triangle):
    status, message = forge(triangle, lambda m, a: a.__setitem__(
        "simplex_support", [s[:2] for s in a["simplex_support"]]))
    assert status == "INVALID" and "simplex_support" in message, message


def test_labels_with_two_kinds_of_evidence_or_none(triangle):
    def twice(m, a):  # label 3 also gets an argmax witness (any point)
        a["argmax_labels"].insert(3, 3)
        a["argmax_points"].insert(3, [1, 1])
        m["assertion"]["argmaxable"] += 1
    status, message = forge(triangle, twice)
    assert status == "INVALID" and "label 3 has a simplex and other evidence" in message

    def missing(m, a):
        a["simplex_labels"].pop()
        a["simplex_support"].pop()
        m["assertion"]["unargmaxable"] -= 1
    status, message = forge(triangle, missing)
    assert status == "INVALID" and ("label 4 is not decided (every label needs an argmax "
                                    "witness or convex weights or a simplex)") in message

    def out_of_range(m, a):
        a["simplex_labels"][1] = 5
    status, message = forge(triangle, out_of_range)
    assert status == "INVALID" and "simplex_labels[1]: label 5 is not in 0..4" in message


def test_no_simplex_at_all_names_only_convex_weights(triangle):
    def none(m, a):
        a["simplex_labels"] = []
        a["simplex_support"] = np.zeros((0, 3), dtype=np.int64)
        a["non_tie_simplex_pairs"] = np.zeros((0, 2), dtype=np.int64)
        m["assertion"]["unargmaxable"] = 0
        m["assertion"]["non_tie_pairs"] = 0
        m["assertion"]["complete"] = False
    status, message = forge(triangle, none)
    assert status == "INVALID" and ("label 3 is not decided (every label needs an argmax "
                                    "witness or convex weights)") in message


def test_simplex_pairs(triangle):
    def tie_too(m, a):  # a tie pair also claimed by a simplex: (0, 1), which has none
        a["non_tie_simplex_pairs"].insert(0, [0, 1])
        m["assertion"]["non_tie_pairs"] += 1
    status, message = forge(triangle, tie_too)
    assert status == "INVALID" and "non_tie_simplex_pairs[0]: pair (0, 1) is also listed " \
        "as a tie pair" in message, message

    def unclaimed(m, a):  # a tie pair moved to the simplex pairs
        a["tie_pairs"].pop(0)
        a["tie_points"].pop(0)
        a["non_tie_simplex_pairs"].insert(0, [0, 1])
        m["assertion"]["tie_pairs"] -= 1
        m["assertion"]["non_tie_pairs"] += 1
    status, message = forge(triangle, unclaimed)
    assert status == "INVALID" and "non_tie_simplex_pairs[0]: neither 0 nor 1 has a simplex" \
        in message, message

    def disorder(m, a):
        p = a["non_tie_simplex_pairs"]
        p[0], p[1] = p[1], p[0]
    status, message = forge(triangle, disorder)
    assert status == "INVALID" and "non_tie_simplex_pairs[1]" in message, message

    def reversed_pair(m, a):
        a["non_tie_simplex_pairs"][0] = [3, 0]
    status, message = forge(triangle, reversed_pair)
    assert status == "INVALID" and "non_tie_simplex_pairs[0]: (3, 0) is not a pair" in message

    def miscounted(m, a):
        m["assertion"]["non_tie_pairs"] -= 1
    status, message = forge(triangle, miscounted)
    assert status == "INVALID" and "assertion.non_tie_pairs" in message

    def dropped(m, a):  # one simplex pair fewer: complete must be false
        a["non_tie_simplex_pairs"].pop()
        m["assertion"]["non_tie_pairs"] -= 1
    status, message = forge(triangle, dropped)
    assert status == "INVALID" and "assertion.complete is true, but 9 of 10" in message

    def dropped_honestly(m, a):
        dropped(m, a)
        m["assertion"]["complete"] = False
    status, message = forge(triangle, dropped_honestly)
    assert status == "OK" and "9 of 10 pairs decided: 3 can tie, 6 cannot" in message


def test_a_non_tie_pair_listed_twice(triangle):
    # The same simplex pair twice in a row: out of order, refused at its second place.
    def twice(m, a):
        a["non_tie_simplex_pairs"].insert(1, a["non_tie_simplex_pairs"][0])
        m["assertion"]["non_tie_pairs"] += 1
    status, message = forge(triangle, twice)
    assert status == "INVALID" and "non_tie_simplex_pairs[1]" in message, message


def test_simplex_evidence_with_a_bias_needs_the_drop(tmp_path):
    W = [[0], [1], [2], [1]]
    bias = [0, -1, 0, Fraction(1, 3)]
    result = analyze_with_bias(W, bias)
    path = tmp_path / "bias.zip"
    write_analyze_certificate(path, result, W, bias=bias)
    assert both(path)[0] == "OK"

    def added(m, a):
        a["simplex_labels"], a["simplex_support"], a["non_tie_simplex_pairs"] = [], [], []
    status, message = forge(path, added)
    assert status == "INVALID" and ("evidence.encoding: simplex evidence with a bias needs "
                                    "input.drop (the floor rows)") in message, message


@pytest.mark.parametrize("name", checker.SIMPLEX_ARRAYS)
def test_all_three_simplex_arrays_or_none(triangle, name):
    status, message = forge(triangle, lambda m, a: a.pop(name))
    assert status == "INVALID" and name in message, message


def test_simplex_arrays_must_be_int64(triangle):
    def limbs(m, a):
        a["simplex_labels"] = [3, 1 << 70]  # stored in limbs
    status, message = forge(triangle, limbs)
    assert status == "INVALID" and "simplex_labels" in message, message


def exact_inverse(M_hat):
    """The exact inverse of ``M_hat`` as floats, asserted exact (its entries dyadic)."""
    N = M_hat.shape[0]
    F = fmpq_mat(N, N, [fmpq(Fraction(float(v)).numerator, Fraction(float(v)).denominator)
                        for v in M_hat.ravel().tolist()])
    inv = F.inv()
    R = np.array([[float(Fraction(int(inv[r, c].p), int(inv[r, c].q))) for c in range(N)]
                  for r in range(N)])
    assert all(Fraction(float(R[r, c])) == Fraction(int(inv[r, c].p), int(inv[r, c].q))
               for r in range(N) for c in range(N))
    return R


def test_the_proofs_agree_where_only_the_rounding_term_decides():
    # Vertices 0, (4, 0), (K, 4): a system of determinant 16, so that its row-scaled
    # matrix has an exact float inverse R (dyadic entries of about K / 4), R M^ = I
    # exactly in floats, and z = (v_0 + v_1 + 2 v_2) / 4 has zero residual. What is
    # left of alpha is the rounding term 2 (gamma_N + 2u) |R| |M^| (about 20 u K / 4
    # here): the proof holds up to some K near 2^47 and fails beyond, and both
    # proofs must stop at the same K of a sweep in steps of 2 %.
    verdicts = []
    k = 2.0 ** 44
    while k < 2.0 ** 50:
        K = 2 * int(k / 2)
        V = np.array([[0, 0], [4, 0], [K, 4]], dtype=np.int64)
        z = np.array([1 + K // 2, 2], dtype=np.int64)
        verdicts.append(proofs(V, z, inverse=exact_inverse))
        k *= 1.02
    assert verdicts[0] and not verdicts[-1]
    assert verdicts == sorted(verdicts, reverse=True)


@pytest.mark.parametrize("shift", [(10, 10), (-50, 7)])
def test_a_head_away_from_the_origin(tmp_path, shift):
    # The system has the row of ones: z_i is inside, z_i / 2 (a wrong last entry) is not.
    rows = [[x + shift[0], y + shift[1]] for x, y in TRIANGLE]
    path = certify(tmp_path, rows)
    m, a = contents(path)
    assert a["simplex_labels"] == [3, 4]
    status, message = both(path)
    assert status == "OK", message
    for i, support in zip(a["simplex_labels"], a["simplex_support"]):
        assert checker._positive_solution([rows[k] + [1] for k in support], rows[i] + [1])
        assert not checker._positive_solution([rows[k] + [1] for k in support],
                                              [v // 2 for v in rows[i]] + [1])


def test_the_engine_refuses_vertices_of_the_wrong_shape():
    # Three vertices in 3 dimensions (a triangle, not a simplex of R^3): the system is
    # 4 x 3; a left inverse (pinv) would "prove" the weights (1/2, 1/4, 1/4) of a point
    # of the triangle's plane, but the statement is about N rows of length N - 1.
    V = np.array([[0, 0, 0], [4, 0, 0], [0, 4, 0]], dtype=np.int64)
    z = np.array([1, 1, 0], dtype=np.int64)
    assert not engine.strictly_inside(V, z, inverse=np.linalg.pinv)
    assert not engine.strictly_inside(V[:, :1], z[:1], inverse=np.linalg.pinv)
    assert not engine.strictly_inside(np.array([0, 4, 0]), np.array([1]))
    assert not engine.strictly_inside(np.zeros((3, 2, 1), dtype=np.int64), np.zeros(2))
    assert engine.strictly_inside(V[:, :2], z[:2], inverse=np.linalg.pinv)


def sylvester(n):
    """The Sylvester-Hadamard matrix of order ``n`` (a power of two), its row of ones last."""
    H = np.array([[1]])
    while H.shape[0] < n:
        H = np.block([[H, H], [H, -H]])
    return np.vstack([H[1:], H[:1]])


@pytest.mark.parametrize("m", [1, 2, 3])
def test_products_that_underflow_do_not_shrink_the_error_bound(m):
    # A simplex of R^15 whose scaled inverse has every entry <= 1/4 (the columns of a
    # Hadamard matrix, scaled by 16 and shifted): the origin is on the facet opposite
    # vertex 0, with weights (0, 1/8, 1/16, ..., 1/16). The injected inverse is the exact
    # one with R[0, N] = 2^-1074 * 2m, so lambda~ = lambda + m 2^-1074 e_0: positive,
    # with a residual that rounds to 0 or to +-2^-1074. Every product |R_kc| (|rho_c| +
    # 2^-1074) then underflows to 0, and an error bound made only of them is 0: both
    # proofs used to "prove" lambda_0 > 0 here. The exact weight lambda_0 is 0.
    N = 16
    h = sylvester(N)[:-1].T  # vertex k: column k, in {-1, 1}^15; h[0] = (1, ..., 1)
    V = (16 * h - (h[1] - h[0])).astype(np.int64)
    origin = np.zeros(N - 1, dtype=np.int64)
    lam = exact_weights([list(map(int, v)) + [1] for v in V], [0] * (N - 1) + [1])
    assert lam[0] == 0 and lam[1] == fmpq(1, 8) and all(x == fmpq(1, 16) for x in lam[2:])

    def nudged(M_hat):
        R = exact_inverse(M_hat)
        assert np.abs(R).max() <= 0.25 and R[0, -1] == 0
        R[0, -1] = 2.0 ** -1074 * (2 * m)
        return R
    assert not proofs(V, origin, inverse=nudged)
    assert not proofs(V, origin, inverse=exact_inverse)
    # The same simplex proves its centroid, with the nudged inverse too.
    centroid = -(h[1] - h[0]).astype(np.int64)
    assert proofs(V, centroid) and proofs(V, centroid, inverse=nudged)


@pytest.mark.parametrize("delta", [Fraction(k, 64) for k in (-3, -2, -1, 1, 2, 3)])
def test_a_refinement_coarser_than_the_first_approximation(delta):
    # The origin inside the triangle (-4, -20), (4, -16), (4, 240), weights (1/2, 55/128,
    # 9/128). With z = 0, t^ = (0, 0, 1/2), so lambda~ = R t^ is half the last column of
    # R. R is the exact inverse with row 0 changed by delta (2, 0, 2): then lambda~ =
    # lambda + delta e_0 (denominator 128), and since M^ has -1/2 and 1/2 in column 0,
    # rows 0 and 2, row 0 of R M^ is still e_0 in that column, so the refinement R rho
    # is exactly -delta e_0, with denominator 64 or 32: coarser than lambda~ (q > p).
    # The refined weights are lambda exactly, and both proofs must prove them, with
    # the correction put on the finer grid of lambda~ (shifted left, not right).
    V = np.array([[-4, -20], [4, -16], [4, 240]], dtype=np.int64)
    origin = np.zeros(2, dtype=np.int64)
    assert exact_weights([[-4, -20, 1], [4, -16, 1], [4, 240, 1]], [0, 0, 1]) == \
        [fmpq(1, 2), fmpq(55, 128), fmpq(9, 128)]

    def changed(M_hat):
        assert M_hat[0, 0] == -0.5 and M_hat[2, 0] == 0.5
        R = exact_inverse(M_hat)
        R[0, 0] += 2 * float(delta)
        R[0, 2] += 2 * float(delta)
        return R
    assert proofs(V, origin, inverse=changed)


def test_the_proofs_agree_where_alpha_is_one_half():
    # The segment from -5 to 3 and the origin (weights 3/8, 5/8); the exact inverse with
    # R[0, 0] made worse by 1/4 - j 2^-55: ||I - R M^|| is about 1/4, and the float
    # alpha steps across 1/2 in this sweep (here it is exactly 1/2 for some j, where the
    # proof still holds: alpha <= 1/2 is all the bound needs). Both proofs must agree at
    # every step, and both verdicts must occur.
    V = np.array([[-5], [3]], dtype=np.int64)
    origin = np.zeros(1, dtype=np.int64)
    verdicts = []
    for j in range(0, 48):
        def worse(M_hat, j=j):
            R = exact_inverse(M_hat)
            R[0, 0] += 0.25 - j * 2.0 ** -55
            return R
        verdicts.append(proofs(V, origin, inverse=worse))
    assert not verdicts[0] and verdicts[-1]
    assert verdicts == sorted(verdicts)


@pytest.mark.parametrize("V, z", [([[0, 0], [10, 3], [16, 5]], [13, 4]),
                                  ([[0, 0], [5, 3], [11, 7]], [8, 5]),
                                  ([[0, 0], [15, 4], [7, 2]], [11, 3])])
def test_a_target_on_an_edge_with_the_exact_inverse(V, z):
    # Thin triangles of determinant 2 and the midpoint of an edge: with the exact
    # (dyadic) inverse, lambda~ = R t^ is exactly lambda = (0, 1/2, 1/2) and the residual
    # is 0, so lambda~_0 = 0 and only the sign of the error bound decides. The rows of
    # |R| are large (entries up to 32), so a bound that subtracted the underflow term
    # instead of adding it would be negative and "prove" lambda_0 > 0.
    V, z = np.array(V, dtype=np.int64), np.array(z, dtype=np.int64)
    assert exact_weights([list(map(int, v)) + [1] for v in V], list(map(int, z)) + [1]) == \
        [0, fmpq(1, 2), fmpq(1, 2)]
    assert not proofs(V, z, inverse=exact_inverse) and not proofs(V, z)


def test_a_simplex_pair_also_given_a_no_tie_certificate(triangle):
    # Pair (0, 3) both as a no-tie pair (any certificate: the pairs are checked first)
    # and as a simplex pair: refused at the simplex pair, naming the other list's kind.
    def also(m, a):
        a.update(non_tie_pairs=[[0, 3]], non_tie_offsets=[0, 1], non_tie_support=[1],
                 non_tie_weights=[1], non_tie_denominators=[1], non_tie_t=[1])
        m["assertion"]["non_tie_pairs"] += 1
    status, message = forge(triangle, also)
    assert status == "INVALID" and ("non_tie_simplex_pairs[0]: pair (0, 3) is also listed as "
                                    "a non-tie pair") in message, message


@pytest.mark.parametrize("name, value, words", [
    ("simplex_labels", [[3], [4]], "simplex_labels: shape (2, 1), expected (2,)"),
    ("simplex_support", [[0, 1, 2, 0], [0, 1, 2, 0]], "simplex_support: shape (2, 4), expected (2, 3)"),
    ("simplex_support", [[0, 1, 2]], "simplex_support: shape (1, 3), expected (2, 3)"),
    ("non_tie_simplex_pairs", [[0, 3, 1]] * 7, "non_tie_simplex_pairs: shape (7, 3), expected (7, 2)"),
])
def test_simplex_arrays_of_the_wrong_shape(triangle, name, value, words):
    status, message = forge(triangle, lambda m, a: a.__setitem__(name, value))
    assert status == "INVALID" and words in message, message
