"""Labels and pairs over a domain by exact cutting planes, against the exact simplex method.

The reference is :func:`verify.analyze.domain.argmaxable_in_domain` and
:func:`~verify.analyze.domain.tie_pairs_in_domain` (the exact simplex method over Q on
all rows, an independent method); every piece of the cutting planes is also switched
off in turn (the float proposal, the rounding of its point, the exact weights of its
support), so that each remaining path must give the same answers on its own.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from verify.analyze import cutting_planes as cp
from verify.analyze.domain import (
    argmaxable_in_domain,
    is_domain_argmax_certificate,
    is_domain_argmax_witness,
    is_domain_no_tie_certificate,
    is_domain_tie_witness,
    tie_pairs_in_domain,
)
from verify.analyze.ties import TieWitness
from verify.lp.feasibility import Witness

DOMAINS = ["all", "nonneg", "box:0,1", "box:-1/2,3", "box:1,2"]


def random_heads(count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        n, d = rng.randint(2, 8), rng.randint(1, 4)
        W = [[rng.randint(-3, 3) for _ in range(d)] for _ in range(n)]
        b = [rng.randint(-2, 2) for _ in range(n)] if rng.random() < 0.7 else None
        if n >= 3 and rng.random() < 0.4:
            W[-1] = list(W[0])  # equal rows (up to the bias)
            if b is not None and rng.random() < 0.5:
                b[-1] = b[0]
        yield W, b, rng.choice(DOMAINS)


def assert_same_as_simplex(W, b, domain):
    A = cp.argmaxable_by_cutting_planes(W, domain, b)
    T = cp.tie_pairs_by_cutting_planes(W, domain, b, A)
    A0 = argmaxable_in_domain(W, domain, b)
    T0 = tie_pairs_in_domain(W, domain, b, A0)
    assert A.argmaxable == A0.argmaxable, (W, b, domain)
    assert T.tie_pairs == T0.tie_pairs and T.complete, (W, b, domain)
    for i, e in enumerate(A.evidence):
        assert (is_domain_argmax_witness(W, b, i, e.point, domain) if isinstance(e, Witness)
                else is_domain_argmax_certificate(W, b, i, e.multipliers, domain)), (W, b, i)
    for (i, j), e in T.evidence.items():
        assert (is_domain_tie_witness(W, b, i, j, e.point, domain)
                if isinstance(e, TieWitness)
                else is_domain_no_tie_certificate(W, b, i, j, e, domain)), (W, b, i, j)


def test_the_cutting_planes_agree_with_the_simplex_method():
    for W, b, domain in random_heads(120, seed=1):
        assert_same_as_simplex(W, b, domain)


@pytest.mark.parametrize("off", ["propose", "_rounded_witness", "_rounded_tie",
                                 "_basis_multipliers"])
def test_each_path_alone_agrees(off, monkeypatch):
    monkeypatch.setattr(cp, off, lambda *args, **kw: None)
    for W, b, domain in random_heads(60, seed=2):
        assert_same_as_simplex(W, b, domain)


def test_the_exact_loop_adds_domain_rows_and_rivals():
    # Without proposals the loop starts from a few rivals and no domain rows: on the
    # box [1, 2] the restricted solution lies outside and rows must be added.
    calls = []
    original = cp.strict_feasibility

    def counted(rows):
        calls.append(len(rows))
        return original(rows)

    W = [[0], [1], [2], [3], [4], [5]] + [[k] for k in range(6, 40)]
    b = [0] * len(W)
    cp_mp = pytest.MonkeyPatch()
    cp_mp.setattr(cp, "propose", lambda *args, **kw: None)
    cp_mp.setattr(cp, "strict_feasibility", counted)
    try:
        A = cp.argmaxable_by_cutting_planes(W, "box:1,2", b)
    finally:
        cp_mp.undo()
    # On x in [1, 2] only the largest row wins.
    assert A.argmaxable == [len(W) - 1]
    assert max(calls) > min(calls)  # some system grew


def test_float_and_integer_inputs_give_the_same_answers():
    rng = np.random.default_rng(0)
    W = rng.standard_normal((40, 3)).astype(np.float32)
    b = rng.standard_normal(40).astype(np.float32)
    A = cp.argmaxable_by_cutting_planes(W, "nonneg", b)
    exact = [[float(v) for v in row] for row in W.tolist()]
    from fractions import Fraction

    rows = [[Fraction(v) for v in row] for row in exact]
    bias = [Fraction(float(v)) for v in b.tolist()]
    A0 = argmaxable_in_domain(rows, "nonneg", bias)
    assert A.argmaxable == A0.argmaxable
    for i, e in enumerate(A.evidence):
        assert (is_domain_argmax_witness(rows, bias, i, e.point, "nonneg")
                if isinstance(e, Witness)
                else is_domain_argmax_certificate(rows, bias, i, e.multipliers, "nonneg"))


def test_a_label_that_wins_only_far_away_is_argmaxable_over_all():
    # Label 2 wins only for x > 10^6: the float LP's cap still finds it.
    from fractions import Fraction

    W = [[0], [1], [1 + Fraction(1, 10 ** 6)]]
    b = [0, 0, -1]
    A = cp.argmaxable_by_cutting_planes(W, "all", b)
    assert A.argmaxable == [0, 1, 2]
    # On [0, 6] label 0 (logit 0) only ties label 1 at x = 0.
    assert cp.argmaxable_by_cutting_planes(W, "box:0,6", b).argmaxable == [1]
