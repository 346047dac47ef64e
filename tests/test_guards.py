"""The engine's self-checks fire: each guard is shown a wrong answer and must raise.

The guards re-check, in exact arithmetic, every answer before it becomes a verdict: the
witnesses of :func:`verify.arrangement.sign_pattern`, the evidence of
:func:`verify.lp.feasibility.strict_feasibility` (through :func:`is_witness` and
:func:`is_gordan_certificate`) and the two answers of the field simplex. Correct code
never gives them a wrong answer, so each test injects one (a proposer replaced by one
that lies) or hands the guard a wrong object directly. The guards are real checks, not
``assert`` statements: ``test_guards_fire_under_python_O`` runs this file again under
``python -O``, where ``assert`` statements are removed.
"""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

import verify.lp.feasibility as feasibility
from verify.arrangement import sign_pattern
from verify.arrangement import graph_search
from verify.lp.feasibility import (
    GordanCertificate,
    Witness,
    checked_evidence,
    is_gordan_certificate,
    is_witness,
    strict_feasibility,
)
from verify.lp.field_simplex import checked_certificate, checked_witness, strict_feasibility_over

ROOT = Path(__file__).resolve().parents[1]
SIGN_PATTERN = sys.modules["verify.arrangement.sign_pattern"]

# Three lines through 0 in the plane (six cells), and a system with both answers.
LINES = [[1, 0], [0, 1], [1, 1]]
FEASIBLE = [[1, 0], [0, 1], [1, 1]]        # z = (1, 1)
INFEASIBLE = [[1, 0], [0, 1], [-1, -1]]    # 1 a_0 + 1 a_1 + 1 a_2 = 0


# --- is_witness and is_gordan_certificate: wrong objects are refused ----------------------

def test_is_witness_refuses_points_on_or_beyond_a_hyperplane():
    assert is_witness(FEASIBLE, (1, 1))
    assert is_witness(FEASIBLE, (Fraction(1, 10**30), Fraction(1, 10**30)))
    assert not is_witness(FEASIBLE, (1, 0))        # on the hyperplane of row 1
    assert not is_witness(FEASIBLE, (0, 0))        # on every hyperplane
    assert not is_witness(FEASIBLE, (1, -1))       # row 1 negative, row 2 zero
    assert not is_witness(FEASIBLE, (2, -1))       # row 1 negative only
    assert not is_witness(FEASIBLE, (1,))          # too short: zip would hide row entries
    assert not is_witness([[1, -5]], (1,))


def test_is_gordan_certificate_refuses_each_violated_condition():
    good = ((0, fmpq(1)), (1, fmpq(1)), (2, fmpq(1)))
    assert is_gordan_certificate(INFEASIBLE, good)
    assert is_gordan_certificate(INFEASIBLE, ((0, 2), (1, 2), (2, 2)))
    assert not is_gordan_certificate(INFEASIBLE, ())                          # none
    assert not is_gordan_certificate(INFEASIBLE, ((0, 0), (1, 0), (2, 0)))    # all zero
    assert not is_gordan_certificate(INFEASIBLE, ((0, 1), (1, 1), (2, 2)))    # sum != 0
    assert not is_gordan_certificate(INFEASIBLE, ((0, 1), (1, 1)))            # sum != 0
    # A negative multiplier with an exact zero sum: a_0 - a_0 = 0.
    assert not is_gordan_certificate([[1, 0], [1, 0], [0, 1]], ((0, 1), (1, -1)))
    assert not is_gordan_certificate(INFEASIBLE, ((0, 1), (1, 1), (3, 1)))    # no row 3
    assert not is_gordan_certificate(INFEASIBLE, ((-3, 1), (1, 1), (2, 1)))   # no row -3


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.integers(-3, 3), min_size=2, max_size=2), min_size=1,
                max_size=5),
       st.lists(st.integers(-4, 4), min_size=2, max_size=2))
def test_is_witness_is_the_definition(rows, point):
    expected = all(sum(Fraction(a) * b for a, b in zip(row, point)) > 0 for row in rows)
    assert is_witness(rows, point) == expected


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.integers(-2, 2), min_size=2, max_size=2), min_size=1,
                max_size=4).flatmap(
    lambda rows: st.tuples(st.just(rows), st.lists(
        st.tuples(st.integers(0, len(rows) - 1), st.integers(-2, 2)),
        min_size=1, max_size=len(rows), unique_by=lambda p: p[0]))))
def test_is_gordan_certificate_is_the_definition(case):
    rows, multipliers = case
    combination = [sum(y * rows[i][j] for i, y in multipliers) for j in range(2)]
    expected = (all(y >= 0 for _, y in multipliers) and any(y for _, y in multipliers)
                and combination == [0, 0])
    assert is_gordan_certificate(rows, multipliers) == expected


# --- strict_feasibility: a lying solver is caught -----------------------------------------

def test_checked_evidence_refuses_wrong_objects():
    assert checked_evidence(FEASIBLE, Witness(point=(1, 1))) == Witness(point=(1, 1))
    for wrong in (Witness(point=(1, 0)), Witness(point=(0, 0)),
                  GordanCertificate(multipliers=((0, 1), (1, 1))), (1, 1), None):
        with pytest.raises(AssertionError, match="internal error"):
            checked_evidence(FEASIBLE, wrong)
    for wrong in (Witness(point=(1, 1)), GordanCertificate(multipliers=((0, 1), (1, 1))),
                  GordanCertificate(multipliers=((0, -1), (1, -1), (2, -1))),
                  GordanCertificate(multipliers=())):
        with pytest.raises(AssertionError, match="internal error"):
            checked_evidence(INFEASIBLE, wrong)


@pytest.mark.parametrize("rows, lie", [
    (FEASIBLE, Witness(point=(fmpq(1), fmpq(0)))),                   # on a hyperplane
    (FEASIBLE, GordanCertificate(multipliers=((0, fmpq(1)),))),      # not a dependency
    (INFEASIBLE, Witness(point=(fmpq(1), fmpq(1)))),                 # an infeasible system
    (INFEASIBLE, GordanCertificate(multipliers=((0, fmpq(1)), (1, fmpq(1)),
                                                (2, fmpq(2))))),   # sum != 0
    (INFEASIBLE, GordanCertificate(multipliers=((0, fmpq(0)),))),    # zero multipliers
])
def test_strict_feasibility_guard_fires(monkeypatch, rows, lie):
    honest = strict_feasibility(rows)
    assert is_witness(rows, honest.point) if isinstance(honest, Witness) else \
        is_gordan_certificate(rows, honest.multipliers)
    monkeypatch.setattr(feasibility, "_exact_simplex", lambda Z: lie)
    with pytest.raises(AssertionError, match="internal error"):
        strict_feasibility(rows)


def test_strict_feasibility_guard_checks_the_float_proposer_too(monkeypatch):
    # More rows than EXACT_SIMPLEX_MAX_ROWS: the float proposer answers first.
    rows = [[1, k] for k in range(-40, 41)]              # feasible: z = (1, 0)
    assert len(rows) > feasibility.EXACT_SIMPLEX_MAX_ROWS
    assert isinstance(strict_feasibility(rows), Witness)
    monkeypatch.setattr(feasibility, "_propose_and_certify",
                        lambda Z: Witness(point=(fmpq(0), fmpq(1))))   # rows k <= 0 fail
    with pytest.raises(AssertionError, match="internal error"):
        strict_feasibility(rows)


def test_strict_feasibility_guard_checks_the_rescaled_certificate(monkeypatch):
    rows = [[Fraction(1, 3), 0], [0, 2], [-5, -5]]
    assert isinstance(strict_feasibility(rows), GordanCertificate)
    monkeypatch.setattr(feasibility, "_rescale_certificate",
                        lambda A, Z, cert: GordanCertificate(
                            multipliers=tuple((i, fmpq(1)) for i, _ in cert.multipliers)))
    with pytest.raises(AssertionError, match="internal error"):
        strict_feasibility(rows)


# --- the field simplex: both self-checks -------------------------------------------------

def test_field_simplex_guards_refuse_wrong_answers():
    one, zero = Fraction(1), Fraction(0)
    A = [[Fraction(a) for a in row] for row in INFEASIBLE]
    assert checked_certificate(A, ((0, one), (1, one), (2, one)), zero).multipliers
    for wrong in ((), ((0, one), (1, one)), ((0, one), (1, one), (2, 2 * one)),
                  ((0, zero), (1, zero), (2, zero)), ((0, -one), (1, -one), (2, -one))):
        with pytest.raises(AssertionError, match="invalid multipliers"):
            checked_certificate(A, wrong, zero)
    B = [[Fraction(a) for a in row] for row in FEASIBLE]
    assert checked_witness(B, (one, one), zero).point == (one, one)
    for wrong in ((one, zero), (zero, zero), (one, -one), (one,), (one, one, one)):
        with pytest.raises(AssertionError, match="invalid witness"):
            checked_witness(B, wrong, zero)


def test_field_simplex_guards_fire_in_place(monkeypatch):
    import verify.lp.field_simplex as field_simplex

    one = Fraction(1)
    assert isinstance(strict_feasibility_over(FEASIBLE, one), Witness)
    assert isinstance(strict_feasibility_over(INFEASIBLE, one), GordanCertificate)
    monkeypatch.setattr(field_simplex, "_dual_point",
                        lambda reduced, N, k, one: tuple(-one for _ in range(k)))
    with pytest.raises(AssertionError, match="invalid witness"):
        strict_feasibility_over(FEASIBLE, one)
    monkeypatch.setattr(field_simplex, "_basic_solution",
                        lambda T, basis, N, zero: ((0, Fraction(1)),))
    with pytest.raises(AssertionError, match="invalid multipliers"):
        strict_feasibility_over(INFEASIBLE, one)


# --- sign_pattern: the final re-check of every witness -----------------------------------

def _lying_topes(real):
    """``enumerate_topes`` with the witnesses of the first two cells swapped."""
    def enumerate_topes(H):
        signs, points = real(H)
        points = points.copy()
        points[[0, 1]] = points[[1, 0]]
        return signs, points
    return enumerate_topes


def _topes_on_a_hyperplane(real):
    """``enumerate_topes`` with the first witness moved to 0 (on every hyperplane)."""
    def enumerate_topes(H):
        signs, points = real(H)
        points = points.copy()
        points[0] = 0
        return signs, points
    return enumerate_topes


@pytest.mark.parametrize("liar", [_lying_topes, _topes_on_a_hyperplane])
def test_sign_pattern_witness_guard_fires(monkeypatch, liar):
    assert sign_pattern(LINES).count == 6
    monkeypatch.setattr(SIGN_PATTERN, "enumerate_topes", liar(SIGN_PATTERN.enumerate_topes))
    with pytest.raises(AssertionError, match="internal error: the witness of"):
        sign_pattern(LINES)


def test_sign_pattern_witness_guard_fires_for_the_graph_method(monkeypatch):
    real = SIGN_PATTERN.search_topes

    def search_topes(H):
        found = real(H)
        first = next(iter(found.cells))
        found.cells[first] = tuple(-a for a in found.cells[first])   # the opposite cell
        return found

    assert sign_pattern(LINES, method="graph").count == 6
    monkeypatch.setattr(SIGN_PATTERN, "search_topes", search_topes)
    with pytest.raises(AssertionError, match="internal error: the witness of"):
        sign_pattern(LINES, method="graph")


def test_graph_search_refuses_an_answer_that_decides_nothing(monkeypatch):
    monkeypatch.setattr(graph_search, "strict_feasibility", lambda rows: None)
    with pytest.raises(AssertionError, match="decides nothing"):
        graph_search.search_topes([[1, 0], [0, 1]])


# --- the same guards under python -O ------------------------------------------------------

@pytest.mark.skipif(sys.flags.optimize > 0, reason="already running under python -O")
def test_guards_fire_under_python_O():
    """``assert`` statements vanish under ``-O``; the guards must not."""
    run = subprocess.run([sys.executable, "-O", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(Path(__file__)), "-k", "fire or refuse"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    probe = subprocess.run([sys.executable, "-O", "-c",
                            "import sys; assert False; print(sys.flags.optimize)"],
                           capture_output=True, text=True)
    assert probe.stdout.strip() == "1"   # the subprocess really drops assert statements
    assert " passed" in run.stdout and " failed" not in run.stdout
