"""The exact strict-feasibility oracle: every answer is evidence, checked independently.

The two internal routes (exact simplex; float hint + exact certification) must agree with
each other, and every answer is re-checked here with ``fractions.Fraction`` arithmetic
that shares no code with the engine.
"""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.lp.feasibility import (
    GordanCertificate,
    Witness,
    _exact_simplex,
    _propose_and_certify,
    strict_feasibility,
)
from verify.linalg.exact import rank


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


# --- the float proposer: answers where it should, never wrongly ---------------------------

def _oriented_system(N, k, seed):
    """``N`` random integer rows in ``R^k`` turned towards a random point: feasible."""
    import random

    rng = random.Random(seed)
    z = [rng.randint(1, 9) for _ in range(k)]
    rows = []
    while len(rows) < N:
        r = [rng.randint(-5, 5) for _ in range(k)]
        s = sum(a * b for a, b in zip(r, z))
        if s:
            rows.append(r if s > 0 else [-a for a in r])
    return rows


@pytest.mark.parametrize("seed", range(4))
def test_the_hint_answers_generic_large_systems(seed):
    """On generic systems the float proposal is certified (no fallback): a witness for a
    feasible system, and after one row is negated a certificate, both checked here."""
    rows = _oriented_system(80, 3, seed)
    hint = _propose_and_certify(rows)
    assert isinstance(hint, Witness) and fraction_check(rows, hint)
    mixed = rows + [[-a for a in rows[0]]]
    hint = _propose_and_certify(mixed)
    assert isinstance(hint, GordanCertificate) and fraction_check(mixed, hint)


@settings(max_examples=300, deadline=None)
@given(matrices, st.data())
def test_certificate_on_a_support_is_valid_or_none(rows, data):
    """``_certificate_on_support`` answers exactly when the rows of the support have one
    dependency up to scale and it has one sign (zeros allowed); the answer is checked."""
    from verify.lp.feasibility import _certificate_on_support
    from verify.linalg.exact import integer_nullspace

    support = sorted(data.draw(st.sets(st.integers(0, len(rows) - 1))))
    cert = _certificate_on_support(rows, support)
    if not support:
        assert cert is None
        return
    transposed = [[rows[i][j] for i in support] for j in range(len(rows[0]))]
    basis = integer_nullspace(transposed)
    one_signed = len(basis) == 1 and (all(a >= 0 for a in basis[0])
                                      or all(a <= 0 for a in basis[0]))
    assert (cert is not None) == one_signed
    if cert is not None:
        assert fraction_check(rows, cert)
        assert {i for i, _ in cert.multipliers} <= set(support)
        assert len(cert.multipliers) == sum(a != 0 for a in basis[0])


def test_certificate_on_a_support_examples():
    from verify.lp.feasibility import _certificate_on_support

    rows = [[1, 0], [-1, 0], [0, 1], [1, 1], [-2, 0]]
    assert _certificate_on_support(rows, []) is None
    assert _certificate_on_support(rows, [0, 2]) is None               # independent
    assert _certificate_on_support(rows, [0, 3]) is None               # independent
    assert dict(_certificate_on_support(rows, [0, 1]).multipliers) == {0: 1, 1: 1}
    assert dict(_certificate_on_support(rows, [0, 4]).multipliers) == {0: 2, 4: 1}
    assert _certificate_on_support(rows, [1, 4]) is None               # same direction
    assert _certificate_on_support(rows, [0, 1, 4]) is None            # two dependencies
    # A row of the support outside the dependency gets no multiplier (zeros allowed).
    assert dict(_certificate_on_support(rows, [0, 1, 2]).multipliers) == {0: 1, 1: 1}


def test_empty_system_is_feasible_at_the_empty_point():
    assert strict_feasibility([]) == Witness(point=())


def test_rows_without_columns_are_zero_rows():
    """Rows of no entries are zero rows: ``y = e_0`` combines them to 0, and is checked
    like any certificate; with no rows at all there is nothing to combine."""
    from verify.lp.feasibility import is_gordan_certificate

    for rows in ([[]], [[], []]):
        evidence = strict_feasibility(rows)
        assert evidence == GordanCertificate(multipliers=((0, 1),))
        assert is_gordan_certificate(rows, evidence.multipliers)
    assert not is_gordan_certificate([], [(0, 1)])  # an index out of range
    assert not is_gordan_certificate([[1, 0], [0, 0]], [(0, 0), (1, 0)])  # all zero
    assert is_gordan_certificate([[1, 0], [0, 0]], [(1, 3)])
