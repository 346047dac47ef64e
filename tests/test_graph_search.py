"""The graph search and its LP oracle on small subsystems, checked independently.

* The integer-pivoting simplex gives exactly the answers of the simplex over Q
  (:func:`verify.lp.field_simplex.strict_feasibility_over`), huge entries included.
* The graph search finds the cocircuit method's cells; every witness satisfies every
  row and every refutation (found on a subsystem, or reused from another cell) is a
  Gordan certificate of the whole flipped orthant, re-checked with Fractions.
"""

import random
from fractions import Fraction
from math import gcd

from flint import fmpq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verify.arrangement.graph_search import decide_orthant, search_topes
from verify.arrangement.sign_pattern import sign_pattern
from verify.lp.feasibility import GordanCertificate, Witness
from verify.lp.field_simplex import strict_feasibility_over
from verify.lp.integer_simplex import gordan_integer_simplex

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

magnitudes = st.sampled_from([1, 1, 10**30, 10**200])
systems = st.integers(1, 6).flatmap(
    lambda k: st.lists(
        st.tuples(st.lists(st.integers(-4, 4), min_size=k, max_size=k), magnitudes).map(
            lambda pair: [a * pair[1] for a in pair[0]]),
        min_size=1, max_size=14))


@SETTINGS
@given(systems)
def test_integer_pivoting_gives_the_answers_of_the_simplex_over_q(rows):
    assert gordan_integer_simplex(rows) == strict_feasibility_over(rows, fmpq(1))


def _fractions(x):
    return Fraction(int(fmpq(x).p), int(fmpq(x).q))


def _holds(H, signs, evidence) -> bool:
    """Independent check with Fractions of a witness or certificate for the orthant."""
    rows = [[s * Fraction(a) for a in h] for s, h in zip(signs, H)]
    if isinstance(evidence, Witness):
        z = [_fractions(a) for a in evidence.point]
        return all(sum(a * b for a, b in zip(row, z)) > 0 for row in rows)
    y = {i: _fractions(v) for i, v in evidence.multipliers}
    return bool(y) and all(v > 0 for v in y.values()) and all(
        sum(v * rows[i][j] for i, v in y.items()) == 0 for j in range(len(H[0])))


def _arrangement(seed, K, r, bound, scale):
    """K distinct primitive hyperplanes in R^r (no two parallel), some rows scaled."""
    rng = random.Random(seed)
    H, seen = [], set()
    while len(H) < K:
        h = [rng.randint(-bound, bound) for _ in range(r)]
        if not any(h):
            continue
        g = gcd(*h)
        h = [a // g for a in h]
        key = tuple(h) if next(a for a in h if a) > 0 else tuple(-a for a in h)
        if key in seen:
            continue
        seen.add(key)
        H.append([a * (scale if rng.random() < 0.5 else 1) for a in h])
    return H


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(3, 16), st.integers(2, 4),
       st.sampled_from([1, 10**30]))
def test_graph_search_evidence_is_complete_and_valid(seed, K, r, scale):
    H = _arrangement(seed, K, r, 3, scale)
    found = search_topes(H)
    expected = {tuple(1 if ch == "+" else -1 for ch in s) for s in sign_pattern(H).patterns}
    assert set(found.cells) == expected
    for tope, point in found.cells.items():
        assert _holds(H, tope, Witness(point=point))
    for (tope, c), certificate in found.refutations.items():
        flipped = tope[:c] + (-tope[c],) + tope[c + 1:]
        assert flipped not in found.cells
        assert _holds(H, flipped, certificate)
    # Every flip of every cell is accounted for: a cell or a refutation.
    for tope in found.cells:
        for c in range(K):
            flipped = tope[:c] + (-tope[c],) + tope[c + 1:]
            assert flipped in found.cells or (tope, c) in found.refutations


def test_decide_orthant_grows_the_subsystem_until_the_witness_holds():
    # On the subsystem {row 0} any point with x > 0 is a witness; rows 1, 2 force y > x.
    H = [[1, 0], [-1, 1], [0, 1], [1, 1]]
    active = [0]
    evidence = decide_orthant(H, (1, 1, 1, 1), active)
    assert isinstance(evidence, Witness) and _holds(H, (1, 1, 1, 1), evidence)
    assert set(active) > {0}
    active = [0]
    evidence = decide_orthant(H, (1, 1, -1, 1), active)  # y < 0 < x + y, y > x > 0
    assert isinstance(evidence, GordanCertificate) and _holds(H, (1, 1, -1, 1), evidence)
