"""The exact strict-feasibility oracle: every answer is evidence, checked independently.

The two internal routes (exact simplex; float hint + exact certification) must agree with
each other, and every answer is re-checked here with ``fractions.Fraction`` arithmetic
that shares no code with the engine.
"""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.feasibility import (
    GordanCertificate,
    Witness,
    _exact_simplex,
    _propose_and_certify,
    reduce_certificate,
    strict_feasibility,
)
from verify.linalg import rank


def fraction_check(rows, evidence) -> bool:
    """Independent check of the evidence with Fractions."""
    rows = [[Fraction(int(a.p), int(a.q)) if hasattr(a, "q") else Fraction(a) for a in r]
            for r in rows]
    if isinstance(evidence, Witness):
        z = [Fraction(int(a.p), int(a.q)) for a in evidence.point]
        return all(sum(a * b for a, b in zip(r, z)) > 0 for r in rows)
    y = {i: Fraction(int(v.p), int(v.q)) for i, v in evidence.multipliers}
    if not y or any(v <= 0 for v in y.values()):
        return False
    return all(sum(v * rows[i][j] for i, v in y.items()) == 0 for j in range(len(rows[0])))


matrices = st.integers(1, 5).flatmap(
    lambda k: st.lists(st.lists(st.integers(-3, 3), min_size=k, max_size=k).filter(any),
                       min_size=1, max_size=12))


@settings(max_examples=300, deadline=None)
@given(matrices)
def test_evidence_is_valid_and_minimal(rows):
    evidence = strict_feasibility(rows)
    assert fraction_check(rows, evidence)
    if isinstance(evidence, GordanCertificate):
        # Carathéodory: at most rank + 1 non-zero multipliers.
        assert len(evidence.multipliers) <= rank(rows) + 1


@settings(max_examples=200, deadline=None)
@given(matrices)
def test_exact_simplex_and_float_hint_agree(rows):
    exact = _exact_simplex(rows)
    hinted = _propose_and_certify(rows)
    assert fraction_check(rows, exact)
    if hinted is not None:  # a hint may fail; it may never be wrong
        assert fraction_check(rows, hinted)
        assert type(hinted) is type(exact)


def test_gordan_alternative_on_known_cases():
    assert isinstance(strict_feasibility([[1, 0], [0, 1]]), Witness)
    cert = strict_feasibility([[1, 0], [-1, 0]])
    assert isinstance(cert, GordanCertificate)
    assert dict(cert.multipliers)[0] == dict(cert.multipliers)[1]
    # three vectors at 120 degrees positively span the plane: infeasible
    assert isinstance(strict_feasibility([[2, 0], [-1, 2], [-1, -2]]), GordanCertificate)
    # a zero row is infeasible by itself
    cert = strict_feasibility([[1, 1], [0, 0]])
    assert cert.multipliers == ((1, 1),)


def test_rational_rows_get_rescaled_multipliers():
    rows = [[Fraction(1, 3), 0], [Fraction(-5, 7), 0]]
    cert = strict_feasibility(rows)
    assert fraction_check(rows, cert)


def test_reduce_certificate_reaches_rank_plus_one():
    rows = [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [-1, -1]]
    big = GordanCertificate(multipliers=tuple((i, 1) for i in range(6)))
    small = reduce_certificate(rows, big)
    assert fraction_check(rows, small)
    assert len(small.multipliers) <= rank(rows) + 1


@pytest.mark.parametrize("N,k", [(150, 4), (300, 6)])
def test_large_systems_take_the_hinted_route(N, k):
    import random

    rng = random.Random(N)
    rows = [[rng.randint(-5, 5) for _ in range(k)] for _ in range(N)]
    rows = [r for r in rows if any(r)]
    # feasible: orient every row towards a fixed point
    z = [rng.randint(1, 9) for _ in range(k)]
    oriented = [r if sum(a * b for a, b in zip(r, z)) > 0 else [-a for a in r] for r in rows
                if sum(a * b for a, b in zip(r, z)) != 0]
    assert isinstance(strict_feasibility(oriented), Witness)
    assert fraction_check(oriented, strict_feasibility(oriented))
    mixed = oriented + [[-a for a in oriented[0]]]
    assert fraction_check(mixed, strict_feasibility(mixed))
    assert isinstance(strict_feasibility(mixed), GordanCertificate)
