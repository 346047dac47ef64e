"""`verify.analyze`: argmaxable labels, tie pairs, cosine summary, safetensors, CLI.

The references here do not use the engine's method: hull vertices come from
Carathéodory's theorem by brute force over small subsets (exact barycentric
coordinates) or from an exact monotone-chain polygon in the plane; every witness and
certificate is re-checked with ``fractions.Fraction``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import struct
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verify.analyze import (
    analyze,
    argmaxable_labels,
    cell_counts,
    cosine_neighbours,
    make_head,
    tie_graph,
    tie_pairs,
    to_json,
    write_graph,
)
from verify.analyze import argmax as argmax_module
from verify.analyze import proposals as proposals_module
from verify.analyze import ties as ties_module
from verify.analyze.command import add_parser
from verify.io.errors import InputError, VerifyError
from verify.analyze.simplex import SimplexCertificate, SimplexNoTie
from verify.lp.feasibility import Witness
from verify.io.checkpoint import read_safetensors
from verify.io.safetensors_file import list_tensors
from reference import solve_fraction

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = json.loads((ROOT / "verify" / "data" / "paper_examples.json").read_text())


# --- independent references -------------------------------------------------------------

def F(x) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if hasattr(x, "p") and hasattr(x, "q"):  # flint fmpq / fmpz
        return Fraction(int(x.p), int(x.q))
    return Fraction(str(x)) if isinstance(x, str) else Fraction(x)


def rows_fr(W):
    return [[F(x) for x in row] for row in W]


def solve_exact(A, b):
    """A solution of A y = b over Q (Gaussian elimination), or None; A is m x k."""
    m, k = len(A), len(A[0]) if A else 0
    M = [list(A[r]) + [b[r]] for r in range(m)]
    pivots, row = [], 0
    for col in range(k):
        piv = next((r for r in range(row, m) if M[r][col] != 0), None)
        if piv is None:
            continue
        M[row], M[piv] = M[piv], M[row]
        inv = 1 / M[row][col]
        M[row] = [v * inv for v in M[row]]
        for r in range(m):
            if r != row and M[r][col] != 0:
                f = M[r][col]
                M[r] = [a - f * c for a, c in zip(M[r], M[row])]
        pivots.append(col)
        row += 1
    if any(all(v == 0 for v in M[r][:k]) and M[r][k] != 0 for r in range(m)):
        return None
    y = [Fraction(0)] * k
    for r, col in enumerate(pivots):
        y[col] = M[r][k]
    return y


def in_hull(p, points) -> bool:
    """p in conv(points), by Carathéodory: some <= d+1 of them carry p exactly."""
    if not points:
        return False
    d = len(p)
    for size in range(1, min(d + 1, len(points)) + 1):
        for T in combinations(points, size):
            A = [[t[c] for t in T] for c in range(d)] + [[Fraction(1)] * size]
            y = solve_exact(A, list(p) + [Fraction(1)])
            if y is not None and all(v >= 0 for v in y):
                # A basic solution of a consistent system may need another subset if
                # this one is affinely dependent; non-negativity is all that counts.
                return True
    return False


def reference_argmaxable(W) -> set[int]:
    R = rows_fr(W)
    return {i for i in range(len(R))
            if not in_hull(R[i], [R[k] for k in range(len(R)) if k != i])}


def _cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def strict_hull(points):
    """Vertices of the convex polygon, counter-clockwise, collinear points dropped."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts
    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and _cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and _cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def on_segment(p, a, b) -> bool:
    return (_cross(a, b, p) == 0 and min(a[0], b[0]) <= p[0] <= max(a[0], b[0])
            and min(a[1], b[1]) <= p[1] <= max(a[1], b[1]))


def reference_ties_2d(W) -> set[tuple[int, int]]:
    """Tie pairs in the plane from the polygon alone (see ``verify.analyze.ties``)."""
    R = [tuple(row) for row in rows_fr(W)]
    n = len(R)
    mult: dict = {}
    for p in R:
        mult[p] = mult.get(p, 0) + 1
    hull = strict_hull(R)
    edges = set()
    if len(hull) == 2:
        edges.add(frozenset(hull))
    elif len(hull) > 2:
        edges = {frozenset((hull[k], hull[(k + 1) % len(hull)])) for k in range(len(hull))}
    out = set()
    for i, j in combinations(range(n), 2):
        a, b = R[i], R[j]
        if a == b:
            if (a in hull or len(mult) == 1) and mult[a] == 2:
                out.add((i, j))
            continue
        if frozenset((a, b)) not in edges or mult[a] > 1 or mult[b] > 1:
            continue
        if any(on_segment(p, a, b) for p in mult if p not in (a, b)):
            continue
        out.add((i, j))
    return out


def dot(u, v):
    return sum((F(a) * F(b) for a, b in zip(u, v)), Fraction(0))


def check_argmax_evidence(W, result):
    R = rows_fr(W)
    for i, ev in enumerate(result.evidence):
        if isinstance(ev, Witness):
            x = [F(v) for v in ev.point]
            assert all(dot(R[i], x) > dot(R[k], x) for k in range(len(R)) if k != i), i
        elif isinstance(ev, SimplexCertificate):
            # Row i strictly inside the simplex of d + 1 other rows: the weights, solved
            # here over the rationals, are all positive.
            support = list(ev.support)
            assert len(support) == len(R[0]) + 1 and i not in support
            lam = solve_fraction([R[k] + [1] for k in support], R[i] + [1])
            assert lam is not None and all(y > 0 for y in lam), i
        else:
            lam = [(k, F(y)) for k, y in ev.multipliers]
            assert lam and all(y > 0 for _, y in lam) and sum(y for _, y in lam) == 1
            assert all(k != i for k, _ in lam)
            assert len(lam) <= len(R[0]) + 1  # Carathéodory
            for c in range(len(R[0])):
                assert sum(y * R[k][c] for k, y in lam) == R[i][c]


def check_tie_evidence(W, T):
    R = rows_fr(W)
    for (i, j), ev in T.evidence.items():
        assert i < j
        if isinstance(ev, ties_module.TieWitness):
            x = [F(v) for v in ev.point]
            top = dot(R[i], x)
            assert dot(R[j], x) == top
            assert all(dot(R[k], x) < top for k in range(len(R)) if k not in (i, j))
        elif isinstance(ev, SimplexNoTie):
            # One of the two strictly inside a simplex of other rows never ties on top.
            support = list(ev.support)
            assert ev.inside in (i, j) and ev.inside not in support
            assert len(support) == len(R[0]) + 1
            lam = solve_fraction([R[k] + [1] for k in support], R[ev.inside] + [1])
            assert lam is not None and all(v > 0 for v in lam)
        else:
            y = [(k, F(v)) for k, v in ev.multipliers]
            t = F(ev.tie)
            assert y and all(v >= 0 for _, v in y) and any(v > 0 for _, v in y)
            assert all(k not in (i, j) for k, _ in y)
            for c in range(len(R[0])):
                total = t * (R[i][c] - R[j][c]) + sum(v * (R[i][c] - R[k][c]) for k, v in y)
                assert total == 0


# --- CLI harness (the subcommand is registered on a parser of our own) -------------------

def cli(*argv):
    parser = argparse.ArgumentParser(prog="python -m verify")
    sub = parser.add_subparsers(dest="command")
    sub.required = True
    add_parser(sub)
    args = parser.parse_args(list(argv))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = args.run(args)
        except VerifyError as exc:
            print(f"verify: error: {exc}", file=sys.stderr)
            code = exc.exit_code
    return code, out.getvalue(), err.getvalue()


HARNESS = """
import argparse, sys
from verify.analyze.command import add_parser
from verify.io.errors import VerifyError
p = argparse.ArgumentParser(prog='python -m verify')
s = p.add_subparsers(dest='command'); s.required = True
add_parser(s)
a = p.parse_args(sys.argv[1:])
try:
    sys.exit(a.run(a))
except VerifyError as e:
    print(f'verify: error: {e}', file=sys.stderr); sys.exit(e.exit_code)
"""


def cli_subprocess(*argv):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", HARNESS, *argv], capture_output=True,
                          text=True, env=env)


def write_json(tmp_path, name, W):
    path = tmp_path / name
    path.write_text(json.dumps({"W": W}))
    return str(path)


# --- argmaxable labels against the hull ----------------------------------------------------

DEGENERATE = {
    "square with centre": [[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]],
    "collinear": [[0, 0], [1, 1], [2, 2], [3, 3]],
    "collinear unsorted": [[3, 3], [1, 1], [0, 0], [2, 2], [-1, -1]],
    "repeated vertex": [[0, 0], [1, 0], [1, 0], [0, 1]],
    "repeated inside": [[0, 0], [4, 0], [0, 4], [1, 1], [1, 1]],
    "point on an edge": [[0, 0], [2, 0], [1, 0], [0, 2]],
    "all equal": [[1, 2], [1, 2], [1, 2]],
    "two equal": [[1, 2], [1, 2]],
    "one label": [[3, -1]],
    "zero row inside": [[1, 0], [-1, 1], [-1, -1], [0, 0]],
    "triangle in 3d with apex": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]],
    "cube centre 3d": [[a, b, c] for a in (0, 2) for b in (0, 2) for c in (0, 2)] + [[1, 1, 1]],
    "square pyramid face point": [[0, 0, 0], [2, 0, 0], [0, 2, 0], [2, 2, 0], [1, 1, 2],
                                  [1, 1, 0]],
    "d = 1": [[3], [-1], [0], [3]],
    "fractions": [["1/3", "2/7"], ["-5/11", "1/2"], ["0", "-3/13"], ["-1/33", "1/9"]],
}


@pytest.mark.parametrize("name", sorted(DEGENERATE))
def test_argmaxable_matches_hull_on_degenerate_inputs(name):
    W = rows_fr(DEGENERATE[name])
    result = argmaxable_labels(W)
    assert set(result.argmaxable) == reference_argmaxable(W)
    check_argmax_evidence(W, result)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 9), st.integers(1, 3), st.integers(1, 4), st.randoms())
def test_argmaxable_matches_hull_on_random_integer_inputs(n, d, box, rnd):
    W = [[rnd.randint(-box, box) for _ in range(d)] for _ in range(n)]
    result = argmaxable_labels(W)
    assert set(result.argmaxable) == reference_argmaxable(W)
    check_argmax_evidence(W, result)


def test_python_floats_are_refused_with_the_two_exact_readings():
    """0.1 in a list of rows is 1/10 to its writer and a binary number to Python: the
    error names both ways to say which (Fraction, or a numpy array)."""
    from fractions import Fraction

    with pytest.raises(TypeError, match=r"0\.1 \(float\); write Fraction\('0\.1'\).*numpy"):
        analyze([[0.1, 1], [1, 0], [0, 1]], cells=False)
    decimal = analyze([[Fraction("0.1"), 1], [1, 0], [0, 1]], cells=False)
    binary = analyze(np.array([[0.1, 1], [1, 0], [0, 1]]), cells=False)
    assert decimal.argmax.argmaxable == binary.argmax.argmaxable == [0, 1, 2]


def test_argmaxable_on_binary_floats_in_16_dimensions():
    rng = np.random.default_rng(5)
    A = rng.standard_normal((120, 16))
    A[:30] *= 0.2  # shrunk rows: many inside the hull
    A[40] = A[41]  # a repeated row
    from verify.numbers.rational import exact_from_float

    W = [[exact_from_float(v) for v in row] for row in A]
    result = argmaxable_labels(W)
    check_argmax_evidence(W, result)
    assert 40 in result.unargmaxable and 41 in result.unargmaxable
    # Independent float check (unambiguous on this data): w_i in conv(others) by LP.
    from scipy.optimize import linprog

    for i in range(0, 120, 7):
        others = np.delete(A, i, axis=0)
        res = linprog(np.zeros(119), A_eq=np.vstack([others.T, np.ones((1, 119))]),
                      b_eq=np.r_[A[i], 1.0], bounds=(0, None), method="highs")
        assert (res.status == 0) == (i in result.unargmaxable)


def test_exact_fallback_when_every_float_proposal_is_wrong(monkeypatch):
    """Garbage proposals must never change an answer: the exact simplex decides."""
    W = DEGENERATE["square with centre"] + [[3, 1], [1, 3]]
    monkeypatch.setattr(argmax_module, "perceptron",
                        lambda F, labels, X0, **kw: (np.ones(len(labels), bool),
                                                     -np.asarray(X0, float),
                                                     [[] for _ in labels]))
    monkeypatch.setattr(argmax_module, "nnls_support", lambda A, eq=None: [0])
    monkeypatch.setattr(argmax_module, "propose_strict",
                        lambda A, eq=None, start=None, **kw: ("point", np.ones(A.shape[1])))
    monkeypatch.setattr(ties_module, "nnls_support", lambda A, eq=None: [0])
    monkeypatch.setattr(ties_module, "propose_strict",
                        lambda A, eq=None, start=None, **kw: ("support", [0]))
    monkeypatch.setattr(ties_module, "perceptron",
                        lambda F, labels, X0, **kw: (np.ones(len(labels), bool),
                                                     np.asarray(X0, float) * 0,
                                                     [[] for _ in labels]))
    monkeypatch.setattr(ties_module, "_segment_witnesses", lambda head, a, pairs: {})
    result = argmaxable_labels(W)
    assert set(result.argmaxable) == reference_argmaxable(W)
    check_argmax_evidence(W, result)
    T = tie_pairs(W, result)
    assert set(T.tie_pairs) == reference_ties_2d(W)
    check_tie_evidence(W, T)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(-2 ** 80, 2 ** 80), min_size=3, max_size=3),
                min_size=2, max_size=6),
       st.lists(st.lists(st.integers(-2 ** 200, 2 ** 200), min_size=3, max_size=3),
                min_size=1, max_size=4), st.data())
def test_exact_limb_products_match_python_integers(Z, points, data):
    head = make_head(Z)
    targets = [data.draw(st.integers(0, len(Z) - 1)) for _ in points]
    signs = head.margin_signs(points, targets)
    for c, (x, t) in enumerate(zip(points, targets)):
        zt = sum(a * b for a, b in zip(head.Z[t], x))
        for k in range(len(Z)):
            zk = sum(a * b for a, b in zip(head.Z[k], x))
            assert signs[k, c] == (zt > zk) - (zt < zk)


# --- tie pairs against hull edges -------------------------------------------------------------

TIE_CASES = {
    "square": [[1, 0], [0, 1], [-1, 0], [0, -1]],
    "square with centre": [[1, 0], [0, 1], [-1, 0], [0, -1], [0, 0]],
    "point on an edge": [[0, 0], [2, 0], [1, 0], [0, 2]],
    "collinear": [[0, 0], [1, 1], [2, 2], [3, 3]],
    "two points": [[0, 0], [1, 2]],
    "two equal": [[1, 2], [1, 2]],
    "three equal": [[1, 2], [1, 2], [1, 2]],
    "repeated vertex": [[0, 0], [1, 0], [1, 0], [0, 1]],
    "double vertex with third": [[0, 0], [0, 0], [3, 1]],
    "paper C.2": EXAMPLES["example C.2"]["W"],
    "theorem H.1 A": EXAMPLES["theorem H.1"]["A"],
    "theorem H.1 B": EXAMPLES["theorem H.1"]["B"],
}


@pytest.mark.parametrize("name", sorted(TIE_CASES))
def test_tie_pairs_match_polygon_edges(name):
    W = rows_fr(TIE_CASES[name])
    T = tie_pairs(W)
    assert T.complete and len(T.evidence) == T.pairs_total
    assert set(T.tie_pairs) == reference_ties_2d(W)
    check_tie_evidence(W, T)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 10), st.integers(1, 3), st.randoms())
def test_tie_pairs_match_polygon_edges_on_random_inputs(n, box, rnd):
    W = [[rnd.randint(-box, box), rnd.randint(-box, box)] for _ in range(n)]
    T = tie_pairs(W)
    assert set(T.tie_pairs) == reference_ties_2d(W)
    check_tie_evidence(W, T)


def test_tie_pairs_in_three_dimensions_are_checked_exactly():
    W = DEGENERATE["square pyramid face point"] + [[1, 3, 1]]
    T = tie_pairs(W)
    check_tie_evidence(W, T)
    # (0, 3) is a diagonal of the base square: its midpoint is the row (1, 1, 0).
    assert T.can_tie(0, 3) is False
    assert T.can_tie(0, 1) is True


def test_partial_mode_for_large_heads_decides_what_it_reports():
    rng = np.random.default_rng(3)
    A = rng.integers(-50, 51, size=(230, 4))
    W = A.tolist()
    a = analyze(W, cells=False)
    assert not a.ties.complete and a.ties.pairs_total == 230 * 229 // 2
    assert a.cosine.neighbour_pairs_undecided == 0  # every neighbour pair is decided
    check_argmax_evidence(W, a.argmax)
    check_tie_evidence(W, a.ties)
    assert set(a.argmax.argmaxable) == {i for i in range(230)
                                        if not _lp_in_hull(A, i)}


def _lp_in_hull(A, i) -> bool:
    from scipy.optimize import linprog

    others = np.delete(A, i, axis=0).astype(float)
    res = linprog(np.zeros(len(others)), A_eq=np.vstack([others.T, np.ones((1, len(others)))]),
                  b_eq=np.r_[A[i].astype(float), 1.0], bounds=(0, None), method="highs")
    return res.status == 0


# --- the paper's examples ---------------------------------------------------------------------

def test_example_c2_facts():
    W = rows_fr(EXAMPLES["example C.2"]["W"])
    a = analyze(W)
    assert a.ties.can_tie(0, 1) and a.ties.can_tie(1, 2)
    assert a.ties.can_tie(2, 4) is False
    check_tie_evidence(W, a.ties)
    # cos(w_2, w_4) = 0.8 exactly; the nearest by cosine of label 2 are 3 and 4, while
    # the labels 2 can tie with are 1 and 3.
    assert dot(W[2], W[4]) ** 2 == Fraction(64, 100) * dot(W[2], W[2]) * dot(W[4], W[4])
    assert [k for k, _ in a.cosine.neighbours[2]] == [3, 4]
    assert a.ties.partners(2) == [1, 3]
    assert a.argmax.unargmaxable == []


def test_example_c3_with_square_roots():
    from verify.numbers.sqrt_sum import parse_entry as _parse_entry

    W = [[_parse_entry(x) for x in row] for row in EXAMPLES["example C.3"]["W"]]
    a = analyze(W)
    assert a.ties.can_tie(0, 1) is True and a.ties.can_tie(1, 3) is False
    assert a.argmax.unargmaxable == []
    from verify.numbers.sqrt_sum import SqrtSum

    ev = a.ties.evidence[(0, 1)]
    top = sum((W[0][c] * ev.point[c] for c in range(2)), SqrtSum(0))
    assert top == sum((W[1][c] * ev.point[c] for c in range(2)), SqrtSum(0))
    cert = a.ties.evidence[(1, 3)]
    assert ties_module.is_no_tie_certificate(W, 1, 3, cert)


def test_theorem_55_models_differ_in_argmaxable_labels():
    from verify.numbers.sqrt_sum import parse_entry as _parse_entry

    m1 = [[_parse_entry(x) for x in row] for row in EXAMPLES["theorem 5.5"]["model 1"]]
    m2 = [[_parse_entry(x) for x in row] for row in EXAMPLES["theorem 5.5"]["model 2"]]
    assert argmaxable_labels(m1).unargmaxable == []
    a2 = argmaxable_labels(m2)
    assert a2.unargmaxable == [2]
    assert argmax_module.is_argmax_certificate(m2, 2, a2.evidence[2].multipliers)


# --- cosine neighbours and cell counts ----------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.integers(-3, 3), min_size=2, max_size=2), min_size=2, max_size=8),
       st.integers(1, 3))
def test_cosine_neighbours_exact_order(W, k):
    near = cosine_neighbours(W, k)
    R = rows_fr(W)
    for i, row in enumerate(R):
        if not any(row):
            assert near[i] == []
            continue
        keys = []
        for j, other in enumerate(R):
            if j == i or not any(other):
                continue
            g = dot(row, other)
            keys.append((-(g * abs(g) / dot(other, other)), j))
        expected = [j for _, j in sorted(keys)[:k]]
        assert [j for j, _ in near[i]] == expected


def test_cell_counts_match_the_pattern_engine_and_respect_the_budget():
    from verify.arrangement import ranking_pattern, sign_pattern

    W = rows_fr(EXAMPLES["example C.2"]["W"])
    counts = cell_counts(W)
    assert counts["ranking"]["count"] == ranking_pattern(W).count
    assert counts["sign"]["count"] == sign_pattern(W).count
    assert counts["ranking"]["count"] <= counts["ranking"]["bound"]
    refused = cell_counts(W, max_cells=3)
    assert refused["ranking"]["count"] is None and "--force" in refused["ranking"]["note"]
    forced = cell_counts(W, max_cells=3, force=True)
    assert forced["ranking"]["count"] == counts["ranking"]["count"]
    assert cell_counts([[1, 0], [1, 0]])["ranking"]["count"] == 0


def test_bounds_of_language_model_size_are_given_by_their_magnitude():
    # A 32,000 x 4,096 head has a ranking bound of some 22,000 digits: Python refuses
    # to print it (or to read it back from JSON) by default. The note gives its
    # magnitude, checked here against bounds by log-gamma: C(K-1, r-1) <= bound <=
    # 2 r C(K-1, r-1) (the binomials grow with k below K/2).
    import json
    from math import comb, lgamma, log

    from verify.analyze.cells import _maybe_count, json_cells

    def log10_binomial(a, b):
        return (lgamma(a + 1) - lgamma(b + 1) - lgamma(a - b + 1)) / log(10)

    head = make_head([[1, 0], [0, 1]])
    for n, d in ((32000, 4096), (1500, 1499), (60, 10)):
        K, r = comb(n, 2), min(n - 1, d)
        entry = _maybe_count(head, "ranking", K, r, 200000, False, rank=None)
        assert entry["count"] is None and "--force" in entry["note"]
        low = log10_binomial(K - 1, r - 1)
        exponent = float(entry["note"].split("about 10^")[1].split()[0])
        assert low - 0.05 <= exponent <= low + log(2 * r, 10) + 0.05
        cells = json_cells({"ranking": entry})
        assert (cells["ranking"]["bound"] is None) == (low > 4000)
        if low <= 4000:
            assert cells["ranking"]["bound"] == entry["bound"]
        assert json.loads(json.dumps(cells)) == cells
    entry = _maybe_count(head, "ranking", 12, 3, 100, False, rank=None)
    assert entry["bound"] == 2 * sum(comb(11, k) for k in range(3))
    assert f"up to {entry['bound']} cells" in entry["note"]


# --- JSON contract and CLI -------------------------------------------------------------------------

def test_json_contract(tmp_path):
    path = write_json(tmp_path, "c2.json", EXAMPLES["example C.2"]["W"])
    code, out, err = cli("analyze", "--matrix", path, "--json", "--quiet")
    assert code == 0
    doc = json.loads(out)
    for key, kind in {"n": int, "d": int, "unargmaxable": list, "tie_pairs": list,
                      "tie_pairs_complete": bool, "pairs_decided": int, "pairs_total": int,
                      "argmaxable": list, "non_tie_pairs": list, "argmax_witnesses": dict,
                      "argmax_certificates": dict, "tie_witnesses": list,
                      "non_tie_certificates": list, "cosine": dict, "cells": dict}.items():
        assert isinstance(doc[key], kind), key
    assert doc["n"] == 5 and doc["d"] == 2 and doc["labels"] is None
    assert doc["unargmaxable"] == []
    assert [0, 1] in doc["tie_pairs"] and [1, 2] in doc["tie_pairs"]
    assert [2, 4] in doc["non_tie_pairs"]
    W = rows_fr(EXAMPLES["example C.2"]["W"])
    for (i, j), x in zip(doc["tie_pairs"], doc["tie_witnesses"]):
        x = [Fraction(v) for v in x]
        assert dot(W[i], x) == dot(W[j], x)
    for label, x in doc["argmax_witnesses"].items():
        i, x = int(label), [Fraction(v) for v in x]
        assert all(dot(W[i], x) > dot(W[k], x) for k in range(5) if k != i)
    for (i, j), cert in zip(doc["non_tie_pairs"], doc["non_tie_certificates"]):
        t = Fraction(cert["tie"])
        for c in range(2):
            assert t * (W[i][c] - W[j][c]) + sum(
                Fraction(y) * (W[i][c] - W[int(k)][c])
                for k, y in cert["multipliers"].items()) == 0
    cos = doc["cosine"]
    assert cos["k"] == 2 and cos["neighbour_pairs"] == 10
    assert cos["per_label"][2]["nearest"][1][0] == 4
    assert cos["per_label"][2]["nearest_can_tie"] == [True, False]
    assert doc["cells"]["ranking"]["count"] == 18


def test_json_certificates_for_unargmaxable_labels(tmp_path):
    path = write_json(tmp_path, "h1.json", EXAMPLES["theorem H.1"]["A"])
    doc = json.loads(cli("analyze", "--matrix", path, "--json")[1])
    assert doc["unargmaxable"] == [2]
    weights = {int(k): Fraction(v) for k, v in doc["argmax_certificates"]["2"].items()}
    assert weights == {0: Fraction(1, 4), 4: Fraction(3, 4)}


def test_text_report_labels_graph_and_plot(tmp_path):
    path = write_json(tmp_path, "c2.json", EXAMPLES["example C.2"]["W"])
    names = tmp_path / "names.txt"
    names.write_text("cat\ndog\nfish\nbird\nfrog\n")
    graphml, nodelink, png = tmp_path / "g.graphml", tmp_path / "g.json", tmp_path / "c2.png"
    code, out, err = cli("analyze", "--matrix", path, "--labels", str(names),
                         "--graph", str(graphml), "--plot", str(png))
    assert code == 0, err
    assert "tie pairs" in out and '2 "fish"' in out
    import networkx as nx

    G = nx.read_graphml(graphml)
    assert {tuple(sorted(map(int, e))) for e in G.edges} == {(0, 1), (0, 4), (1, 2),
                                                              (2, 3), (3, 4)}
    assert G.nodes["2"]["name"] == "fish"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, _ = cli("analyze", "--matrix", path, "--graph", str(nodelink), "--quiet")
    data = json.loads(nodelink.read_text())
    try:
        H = nx.node_link_graph(data, edges="edges")
    except TypeError:  # older networkx
        H = nx.node_link_graph(data)
    assert H.number_of_edges() == 5
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_graph_of_partial_analysis_says_incomplete(tmp_path):
    T = tie_pairs([[0, 0], [1, 0], [0, 1]], pairs=[(0, 1)], rays_per_label=0)
    G = tie_graph(T)
    assert G.graph["complete"] is False and list(G.edges) == [(0, 1)]
    path = tmp_path / "g.graphml"
    write_graph(G, path)
    assert path.exists()
    with pytest.raises(ValueError):
        write_graph(G, tmp_path / "g.txt")


def test_cell_budget_note_and_force(tmp_path):
    path = write_json(tmp_path, "c2.json", EXAMPLES["example C.2"]["W"])
    code, out, err = cli("analyze", "--matrix", path, "--max-cells", "5", "--json")
    assert code == 0
    lines = [l for l in err.splitlines() if l]
    assert len(lines) == 1 and "--max-cells 5" in lines[0] and "--force" in lines[0]
    assert json.loads(out)["cells"]["ranking"]["count"] is None
    code, out, err = cli("analyze", "--matrix", path, "--max-cells", "5", "--force", "--json")
    assert json.loads(out)["cells"]["ranking"]["count"] == 18 and err == ""


def test_cell_budget_note_gives_large_bounds_by_their_magnitude(tmp_path):
    # 40 labels in R^12: the ranking bound 2 sum_{k<12} C(779, k) has 25 digits, the
    # sign bound 2 sum_{k<12} C(39, k) ten. The note gives the first by its magnitude,
    # the second in full; the JSON gives both exactly.
    from math import comb, log10

    W = np.random.default_rng(5).integers(-9, 10, size=(40, 12))
    path = tmp_path / "w.npy"
    np.save(path, W)
    code, out, err = cli("analyze", "--matrix", str(path), "--json", "--quiet")
    assert code == 0, err
    ranking = 2 * sum(comb(779, k) for k in range(12))
    sign = 2 * sum(comb(39, k) for k in range(12))
    cells = json.loads(out)["cells"]
    assert cells["ranking"]["bound"] == ranking and cells["sign"]["bound"] == sign
    assert f"sign pattern up to {sign}" in err
    assert f"ranking pattern up to about 10^{log10(ranking):.1f}" in err
    assert str(ranking) not in err


def _bad_inputs(tmp_path):
    np.save(tmp_path / "nan.npy", np.array([[1.0, np.nan], [0.0, 1.0]]))
    np.save(tmp_path / "inf.npy", np.array([[1.0, np.inf], [0.0, 1.0]]))
    cases = {
        "missing": (str(tmp_path / "nope.json"), "file not found"),
        "ragged": (str(_w(tmp_path, "ragged.csv", "1,2\n3\n")), "row 1"),
        "nan text": (str(_w(tmp_path, "nan.csv", "1,nan\n2,3\n")), "not a finite number"),
        "inf text": (str(_w(tmp_path, "inf.txt", "1 inf\n2 3\n")), "not a finite number"),
        "words": (str(_w(tmp_path, "words.csv", "1,dog\n2,3\n")), "not a number"),
        "empty": (str(_w(tmp_path, "empty.csv", "")), "empty file"),
        "nan npy": (str(tmp_path / "nan.npy"), "not a finite number"),
        "inf npy": (str(tmp_path / "inf.npy"), "not a finite number"),
        "bad sqrt": (str(_w(tmp_path, "sq.json", '[["sqrt(-2)", "1"]]')), "row 0, column 0"),
    }
    return cases


def _w(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_bad_inputs_give_one_line_and_exit_2(tmp_path):
    for name, (path, needle) in _bad_inputs(tmp_path).items():
        code, out, err = cli("analyze", "--matrix", path)
        assert code == 2, name
        assert out == "", name
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("verify: error: "), (name, err)
        assert needle in lines[0] and Path(path).name in lines[0], (name, lines[0])


def test_bad_options_give_one_line_and_exit_2(tmp_path):
    c2 = write_json(tmp_path, "c2.json", EXAMPLES["example C.2"]["W"])
    d3 = write_json(tmp_path, "d3.json", [[1, 0, 0], [0, 1, 0]])
    names = _w(tmp_path, "names.txt", "a\nb\n")
    cases = [
        (("--matrix", c2, "--labels", str(names)), "2 label names for 5 labels"),
        (("--matrix", c2, "--labels", str(tmp_path / "none.txt")), "file not found"),
        (("--matrix", d3, "--plot", str(tmp_path / "x.png")), "dimension 2"),
        (("--matrix", c2, "--graph", str(tmp_path / "g.txt")), ".graphml or .json"),
        (("--matrix", c2, "--graph", str(tmp_path / "no" / "g.json")), "no directory"),
        (("--matrix", c2, "--tensor", "w"), ".safetensors files only"),
    ]
    for argv, needle in cases:
        code, out, err = cli("analyze", *argv)
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and needle in lines[0], (argv, err)


def test_no_traceback_in_a_real_process(tmp_path):
    bad = _w(tmp_path, "bad.csv", "1,2\n3\n")
    proc = cli_subprocess("analyze", "--matrix", str(bad))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    good = write_json(tmp_path, "c2.json", EXAMPLES["example C.2"]["W"])
    proc = cli_subprocess("analyze", "--matrix", good, "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["n"] == 5
    assert proc.stderr == ""  # not a terminal: no progress bar


# --- safetensors -------------------------------------------------------------------------------------

def write_safetensors(path, tensors: dict, *, metadata=None, header_override=None):
    """A minimal writer: {name: (dtype, shape, raw little-endian bytes)}."""
    header, blobs, offset = {}, [], 0
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    if metadata is not None:
        header["__metadata__"] = metadata
    text = json.dumps(header_override if header_override is not None else header)
    data = text.encode()
    Path(path).write_bytes(struct.pack("<Q", len(data)) + data + b"".join(blobs))
    return str(path)


def bf16_bytes(values: np.ndarray) -> bytes:
    """Truncate float32 to bfloat16 (values chosen exactly representable)."""
    bits = values.astype("<f4").view("<u4") >> 16
    return bits.astype("<u2").tobytes()


def test_safetensors_round_trip_every_dtype(tmp_path):
    rng = np.random.default_rng(0)
    base = rng.integers(-100, 100, size=(3, 4))
    floats = base / 8.0 + 0.1  # 0.1 is not dyadic: its float rounding must be kept
    tensors = {
        "f64": ("F64", (3, 4), floats.astype("<f8").tobytes()),
        "f32": ("F32", (3, 4), floats.astype("<f4").tobytes()),
        "f16": ("F16", (3, 4), floats.astype("<f2").tobytes()),
        "bf16": ("BF16", (3, 4), bf16_bytes((base / 8.0).astype(np.float32))),
        "i64": ("I64", (3, 4), base.astype("<i8").tobytes()),
        "i32": ("I32", (3, 4), base.astype("<i4").tobytes()),
        "i16": ("I16", (3, 4), base.astype("<i2").tobytes()),
        "i8": ("I8", (3, 4), base.astype("i1").tobytes()),
        "u8": ("U8", (3, 4), (base + 100).astype("u1").tobytes()),
    }
    path = write_safetensors(tmp_path / "m.safetensors", tensors, metadata={"format": "pt"})
    assert set(list_tensors(path)) == set(tensors)
    expected = {
        "f64": floats, "f32": floats.astype(np.float32), "f16": floats.astype(np.float16),
        "bf16": (base / 8.0), "i64": base, "i32": base, "i16": base, "i8": base,
        "u8": base + 100,
    }
    for name, want in expected.items():
        rows = read_safetensors(path, name)
        got = [[F(x) for x in row] for row in rows]
        exact = [[Fraction(*np.asarray(v).item().as_integer_ratio()) if np.asarray(v).dtype.kind == "f"
                  else Fraction(int(v)) for v in row] for row in np.asarray(want)]
        assert got == exact, name
    assert F(read_safetensors(path, "f64")[0][0]) != Fraction(str(floats[0, 0]))  # binary value


def test_safetensors_through_the_cli(tmp_path):
    W = np.array(EXAMPLES["example C.2"]["W"], dtype=float)
    one = write_safetensors(tmp_path / "one.safetensors",
                            {"lm_head.weight": ("F64", W.shape, W.astype("<f8").tobytes())})
    code, out, err = cli("analyze", "--matrix", one, "--json")
    assert code == 0 and json.loads(out)["tie_pairs"][:2] == [[0, 1], [0, 4]]
    two = write_safetensors(tmp_path / "two.safetensors", {
        "a": ("F64", W.shape, W.astype("<f8").tobytes()),
        "b": ("F32", (2, 2), np.eye(2).astype("<f4").tobytes())})
    code, out, err = cli("analyze", "--matrix", two, "--tensor", "b", "--json")
    assert code == 0 and json.loads(out)["n"] == 2
    code, out, err = cli("analyze", "--matrix", two)
    assert code == 2 and "--tensor NAME" in err and "two.safetensors" in err


def test_bad_safetensors_files(tmp_path):
    ok = np.eye(2).astype("<f4").tobytes()
    cases = {}
    cases["unknown tensor"] = (write_safetensors(tmp_path / "a.safetensors",
                                                 {"w": ("F32", (2, 2), ok)}), "x",
                               "no tensor named")
    cases["1-D"] = (write_safetensors(tmp_path / "b.safetensors",
                                      {"w": ("F32", (4,), ok)}), None, "expected a 2-D")
    cases["3-D"] = (write_safetensors(tmp_path / "c.safetensors",
                                      {"w": ("F32", (1, 2, 2), ok)}), None, "expected a 2-D")
    nan = np.array([[1, np.nan], [0, 1]], dtype="<f4").tobytes()
    cases["nan"] = (write_safetensors(tmp_path / "d.safetensors",
                                      {"w": ("F32", (2, 2), nan)}), None, "not a finite")
    inf = bf16_bytes(np.array([[1, np.inf], [0, 1]], dtype=np.float32))
    cases["inf bf16"] = (write_safetensors(tmp_path / "e.safetensors",
                                           {"w": ("BF16", (2, 2), inf)}), None, "not a finite")
    cases["unknown dtype"] = (write_safetensors(tmp_path / "f.safetensors",
                                                {"w": ("F8_E4M3", (2, 2), ok)}), None,
                              "unsupported dtype")
    cases["wrong size"] = (write_safetensors(tmp_path / "g.safetensors",
                                             {"w": ("F64", (2, 2), ok)}), None, "bad header")
    p = tmp_path / "h.safetensors"
    p.write_bytes(struct.pack("<Q", 10 ** 6) + b"{}")
    cases["long header"] = (str(p), None, "bad header")
    p = tmp_path / "i.safetensors"
    p.write_bytes(struct.pack("<Q", 5) + b"{nope")
    cases["bad json"] = (str(p), None, "invalid JSON")
    p = tmp_path / "j.safetensors"
    p.write_bytes(b"\x01\x02")
    cases["short"] = (str(p), None, "bad header")
    cases["offsets"] = (write_safetensors(tmp_path / "k.safetensors", {"w": ("F32", (2, 2), ok)},
                                          header_override={"w": {"dtype": "F32", "shape": [2, 2],
                                                                 "data_offsets": [0, 99]}}),
                        None, "outside the data")
    cases["not object"] = (write_safetensors(tmp_path / "l.safetensors", {},
                                             header_override=[1, 2]), None, "not an object")
    cases["empty file"] = (str(_w(tmp_path, "m.safetensors", "")), None, "empty file")
    cases["missing"] = (str(tmp_path / "none.safetensors"), None, "file not found")
    for name, (path, tensor, needle) in cases.items():
        with pytest.raises(InputError) as info:
            read_safetensors(path, tensor)
        message = str(info.value)
        assert needle in message and "\n" not in message, (name, message)
        assert message.startswith(path), (name, message)
        argv = ["analyze", "--matrix", path] + (["--tensor", tensor] if tensor else [])
        code, out, err = cli(*argv)
        assert code == 2 and len(err.strip().splitlines()) == 1, (name, err)


# --- JSON of the analysis object, and the API's consistency --------------------------------------

def test_to_json_round_trips_through_json():
    a = analyze([[0, 0], [2, 0], [0, 2], [1, 1], [1, 1]])
    doc = json.loads(json.dumps(to_json(a)))
    # (1, 1) lies on the edge [(2, 0), (0, 2)], twice: that edge is no tie pair.
    assert doc["unargmaxable"] == [3, 4]
    assert sorted(map(tuple, doc["tie_pairs"])) == [(0, 1), (0, 2)]
    assert doc["tie_pairs_complete"] is True
    assert doc["pairs_decided"] == doc["pairs_total"] == 10


def test_float_proposal_is_a_point_or_a_dependency():
    """``propose_strict`` (NNLS cutting planes, HiGHS behind) on random systems: a point has
    ``A z > 0`` (and ``eq . z = 0``); a support carries ``y >= 0``, ``sum y = 1`` with
    ``sum y_k a_k`` a multiple of ``eq``. Both kinds occur."""
    from scipy.optimize import nnls

    rng = np.random.default_rng(5)
    kinds = set()
    for trial in range(60):
        d = int(rng.integers(2, 6))
        N = int(rng.integers(1, 40))
        A = rng.normal(size=(N, d))
        if trial % 2:
            A += rng.normal(size=d)  # a common direction: usually a point
        eq = rng.normal(size=d) if trial % 3 == 0 else None
        found = proposals_module.propose_strict(A, eq)
        assert found is not None
        kind, value = found
        kinds.add(kind)
        if kind == "point":
            assert np.all(A @ value > 0)
            if eq is not None:
                assert abs(eq @ value) < 1e-9
        else:
            sub = A[value] / np.linalg.norm(A[value], axis=1)[:, None]
            cols = sub.T if eq is None else np.hstack([sub.T, eq[:, None], -eq[:, None]])
            M = np.vstack([cols, np.r_[np.ones(len(value)), np.zeros(cols.shape[1] - len(value))]])
            _, residual = nnls(M, np.r_[np.zeros(d), 1.0])
            assert residual < 1e-8
    assert kinds == {"point", "support"}


def test_the_lp_solver_writes_nothing_to_stdout():
    """HiGHS greets on file descriptor 1 when its first model is made; a JSON report on
    stdout must not carry that line."""
    code = ("import numpy as np\n"
            "from verify.analyze.proposals import propose_strict\n"
            "propose_strict(np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]),\n"
            "               method='columns')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout == ""


def test_distinct_directions_of_integer_arrays_match_primitive_rows():
    """The count of rows up to scaling, from the int64 array (a set of the rows'
    bytes) against the primitive rows of Python integers, one by one."""
    from verify.analyze.cells import _distinct_directions, _primitive_direction

    rng = np.random.default_rng(6)
    Z = rng.integers(-4, 5, size=(60, 3))
    Z[60 // 2:] = Z[:60 // 2] * rng.choice([-3, -1, 2, 5], size=(30, 1))  # scaled copies
    Z[Z.sum(axis=1) == 0] += 1
    head = make_head(Z.astype(np.int64))
    assert head.Zarr is not None
    expected = {_primitive_direction([int(v) for v in row]) for row in Z} - {None}
    assert _distinct_directions(head) == len(expected) < 60
