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
        if not isinstance(e, Witness):  # convex weights, as the report and files say
            assert sum(v for _, v in e.multipliers) == 1
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


@pytest.mark.parametrize("domain", DOMAINS)
def test_generic_heads_never_need_the_exact_loop(domain, monkeypatch):
    # On heads in general position the float optimum's point (rounded) or its
    # support's exact weights decide every label; a pair reaches the exact loop only
    # when its LP has no optimum (l_i = l_j does not meet the domain). A proposal path
    # that silently fails is caught here, though the exact loop would still answer.
    rng = np.random.default_rng(sum(map(ord, domain)))
    loops = []
    proposals = {}
    original_propose = cp.propose

    def propose(head, i, j=None):
        proposals[(i, j)] = original_propose(head, i, j)
        return proposals[(i, j)]

    monkeypatch.setattr(cp, "propose", propose)
    monkeypatch.setattr(cp, "strict_feasibility", lambda rows: loops.append(rows))
    original_mixed = cp.mixed_feasibility

    def mixed(strict, weak=(), equal=()):
        loops.append(strict)
        return original_mixed(strict, weak, equal)

    for _ in range(3):
        W, b = rng.standard_normal((40, 4)), rng.standard_normal(40)
        loops.clear()
        A = cp.argmaxable_by_cutting_planes(W, domain, b)
        assert not loops and len(A.evidence) == 40
        monkeypatch.setattr(cp, "mixed_feasibility", mixed)
        head = cp.DomainHead(W, b, domain)
        head.argmax = A
        for i in range(40):
            j = (i + 1) % 40
            loops.clear()
            proposals.clear()
            cp.decide_pair(head, min(i, j), max(i, j), A)
            assert not loops or proposals[(min(i, j), max(i, j))] is None, (i, j)


def test_a_thin_region_needs_a_fine_grid(monkeypatch):
    # Label 1 wins only on (1/3, 1/3 + 2^-30) in [0, 1]: the float point rounded to
    # 2^-20 lies outside that interval, and only a checked point may be returned.
    from fractions import Fraction

    a, delta = Fraction(1, 3), Fraction(1, 2 ** 30)
    W = [[0], [1], [2]]
    b = [0, -a, -2 * (a + delta) + delta]
    for domain in ("box:0,1", "nonneg", "all"):
        A = cp.argmaxable_by_cutting_planes(W, domain, b)
        e = A.evidence[1]
        assert isinstance(e, Witness), domain
        assert is_domain_argmax_witness(W, b, 1, e.point, domain)
        x = Fraction(int(e.point[0].p), int(e.point[0].q))
        assert a < x < a + delta
    # The tie of labels 1 and 2 at x = 1/3 + 2^-30: found on the line, exactly.
    T = cp.tie_pairs_by_cutting_planes(W, "box:0,1", b)
    x = T.evidence[(1, 2)].point[0]
    assert T.can_tie(1, 2) and Fraction(int(x.p), int(x.q)) == a + delta


def test_a_thin_tie_segment_needs_a_fine_grid():
    # Labels 0 and 1 tie on x_2 = 0, on top only for 1/3 < x_1 < 1/3 + 2^-30 (labels 2
    # and 3 are steep there): the rounded point of the LP is on the line but not on top.
    from fractions import Fraction

    a, delta, K = Fraction(1, 3), Fraction(1, 2 ** 30), 2 ** 30
    W = [[0, 1], [0, -1], [K, 0], [-K, 0]]
    b = [0, 0, -K * (a + delta), K * a]
    for domain in ("all", "box:-1,1"):
        T = cp.tie_pairs_by_cutting_planes(W, domain, b)
        e = T.evidence[(0, 1)]
        assert isinstance(e, TieWitness), domain
        assert is_domain_tie_witness(W, b, 0, 1, e.point, domain)
        x = Fraction(int(e.point[0].p), int(e.point[0].q))
        assert a < x < a + delta


def test_domain_rows_are_made_when_asked_for():
    from verify.analyze.domain import parse_domain

    for domain in ("nonneg", "box:-1/2,3", "box:1/3,7/5"):
        head = cp.DomainHead([[1, 2, 3], [0, 1, 1]], [1, 0], domain)
        rows = parse_domain(domain).rows(3)
        assert [head.domain_row(r) for r in range(len(rows))] == rows


def test_integer_and_float_arrays_are_lifted_exactly():
    # int64 entries beyond 2^53 beside a float bias must not pass through float64.
    W = np.array([[2 ** 60 + 1, 0], [0, 1], [-(2 ** 60), -1]], dtype=np.int64)
    b = np.array([0.5, 0.0, 0.25], dtype=np.float32)
    head = cp.DomainHead(W, b, "nonneg")
    assert [int(v) for v in head.lifted.Z[0]][:2] == [4 * (2 ** 60 + 1), 0]
    A = cp.argmaxable_by_cutting_planes(W, "nonneg", b)
    from fractions import Fraction

    exact = argmaxable_in_domain(W.tolist(), "nonneg", [Fraction(float(v)) for v in b])
    assert A.argmaxable == exact.argmaxable


def test_points_in_the_domain_and_the_labels_that_beat_one():
    head = cp.DomainHead([[1, 0], [0, 1], [-1, -1]], [0, 0, 1], "box:-1/2,3")
    assert head.in_domain([1, 1, 1]) and head.in_domain([-1, 6, 2])
    assert not head.in_domain([0, 0, 0])  # s = 0 is no input
    assert not head.in_domain([-2, 0, 2]) and not head.in_domain([7, 0, 2])
    assert head.violated_domain_rows([-2, 7, 2]) == [0, 3]
    # At x = (3, 0): l = (3, 0, -2), label 0 alone on top; at x = (0, 0) label 2.
    assert head.beaters(0, [3, 0, 1]) == []
    assert head.beaters(1, [3, 0, 1]) == [0]
    assert head.beaters(0, [0, 0, 1]) == [1, 2]  # l_1 = l_0 counts: a tie is no win


@pytest.mark.parametrize("domain", ["box:1/3,7/5", "box:-2/3,1/7"])
def test_generic_heads_on_boxes_with_bounds_off_the_grid(domain, monkeypatch):
    # Points on the float optimum's bounds round off the box unless clamped exactly.
    test_generic_heads_never_need_the_exact_loop(domain, monkeypatch)
