"""The walk across the facets of the labels' regions (verify.analyze.facet_walk).

Its witnesses are checked here by the exact definition (``is_argmax_witness`` on the
exact rows), and the per-label stage that uses it is held against the exact method of
the small heads, label by label.
"""

from __future__ import annotations

import numpy as np
import pytest

from verify.analyze import argmax as argmax_module
from verify.analyze import facet_walk
from verify.analyze import head as head_module
from verify.analyze.argmax import argmaxable_labels, is_argmax_certificate, is_argmax_witness
from verify.analyze.facet_walk import crossing_points, walk, walk_from
from verify.analyze.head import ExactHead
from verify.analyze.parallel import Workers
from verify.lp.feasibility import GordanCertificate, Witness


def _cloud_head(seed: int = 0, d: int = 6, far: int = 120, cloud: int = 160) -> np.ndarray:
    """Integer rows: ``far`` points on a sphere of radius 2^20, and a dense ``cloud``
    on a small sphere touching it from inside, whose outer points are hull vertices
    with thin normal cones and whose inner points lie inside the hull."""
    rng = np.random.default_rng(seed)
    U = rng.standard_normal((far, d))
    U /= np.linalg.norm(U, axis=1)[:, None]
    c = np.zeros(d)
    c[0] = 1.0
    V = rng.standard_normal((cloud, d))
    V /= np.linalg.norm(V, axis=1)[:, None]
    rows = np.vstack([U, c * 0.97 + 0.03 * V])
    return np.rint(rows * 2 ** 20).astype(np.int64)


def _witness_of(head, i: int) -> tuple:
    ev = argmax_module._decide_label(head, i, None)
    assert isinstance(ev, Witness)
    return ev.point


def _cloud_sources(seed: int, count: int = 6):
    """The cloud head of ``seed``, witnesses of ``count`` of its cloud's hull vertices
    (the sources) and the cloud's other hull vertices (pending)."""
    W = _cloud_head(seed=seed)
    head = ExactHead.from_array(W)
    analysis = argmaxable_labels(ExactHead.from_array(W))
    vertices = [i for i in analysis.argmaxable if i >= 120]
    sources = [(i, _witness_of(head, i)) for i in vertices[:count]]
    return head, sources, vertices[count:]


def test_a_crossing_point_lies_beyond_the_facet_by_delta_of_the_margin():
    rng = np.random.default_rng(3)
    F = rng.standard_normal((30, 5))
    j = 0
    x = F[j] - F[1:].mean(axis=0)
    pending = np.arange(30)
    labels, X = crossing_points(F, j, x, pending, count=6, deltas=(0.5, 0.05))
    assert labels.size == X.shape[1] == 12 and j not in labels
    margins = (F[j] - F[labels]) @ x
    assert np.all(margins > 0)
    after = np.einsum("ij,ji->i", F[labels] - F[j], X)
    deltas = np.tile([0.5, 0.05], 6)
    np.testing.assert_allclose(after, deltas * margins, rtol=1e-9, atol=1e-12)
    # The rivals come by normalised margin, smallest first.
    norm = (F[j] @ x - F @ x) / np.maximum(np.linalg.norm(F[j] - F, axis=1), 1e-300)
    norm[j] = np.inf
    expected = [k for k in np.argsort(norm, kind="stable") if norm[k] > 0][:6]
    assert list(labels[::2]) == expected


def test_crossing_points_skip_labels_without_a_margin():
    F = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    x = np.array([1.0, 0.0])
    labels, X = crossing_points(F, 0, x, np.arange(4), count=8, deltas=(0.5,))
    # Label 1 has the same row (margin 0), label 2 a float margin, label 3 too.
    assert sorted(labels.tolist()) == [2, 3]
    empty, X0 = crossing_points(F, 0, x, np.array([0]), count=8)
    assert empty.size == 0 and X0.shape == (2, 0)


def test_the_walk_finds_exact_witnesses_of_pending_labels_only():
    W = _cloud_head()
    head = ExactHead.from_array(W)
    rows = head.rows
    analysis = argmaxable_labels(ExactHead.from_array(W))
    vertices = [i for i in analysis.argmaxable if i >= 120]
    assert len(vertices) >= 20
    source = vertices[0]
    pending = vertices[1:]
    found = walk_from(head, [(source, _witness_of(head, source))], pending)
    assert found, "the walk reached no neighbour"
    assert [k for k, _ in found] == sorted(k for k, _ in found)
    for k, point in found:
        assert k in pending and k != source
        assert is_argmax_witness(rows, k, point)
    # Labels not asked for are never returned, even when they are reachable.
    others = [k for k, _ in found]
    again = walk_from(head, [(source, _witness_of(head, source))],
                      [k for k in pending if k not in others[:1]])
    assert others[0] not in [k for k, _ in again]


def test_walking_in_chunks_keeps_the_first_witness_and_any_number_of_workers_agrees(
        monkeypatch):
    head, sources, pending = _cloud_sources(seed=1)
    monkeypatch.setattr(facet_walk, "WALK_CHUNK", 2)
    alone = walk(head, sources, pending)
    with Workers(head, jobs=2) as workers:
        shared = walk(head, sources, pending, workers)
    assert alone == shared and alone
    by_chunk = [walk_from(head, sources[lo:lo + 2], pending) for lo in (0, 2, 4)]
    first = {}
    for result in by_chunk:
        for k, point in result:
            first.setdefault(k, point)
    assert alone == sorted(first.items())


def _force_per_label(monkeypatch):
    """Screen every head, with one round of the relaxation method only, so that the
    thin cones of the cloud reach the per-label stage."""
    monkeypatch.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
    monkeypatch.setattr(argmax_module, "PERCEPTRON_ROUNDS", 1)
    monkeypatch.setattr(argmax_module, "LABEL_BATCH", 8)


@pytest.mark.parametrize("seed", [0, 2])
def test_the_per_label_stage_with_the_walk_agrees_with_the_exact_method(monkeypatch, seed):
    W = _cloud_head(seed=seed)
    reference = argmaxable_labels(ExactHead.from_array(W))
    _force_per_label(monkeypatch)
    walked, programs = [], []
    real_walk, real_decide = facet_walk.walk, argmax_module.decide_label

    def counted_walk(*args, **kwargs):
        out = real_walk(*args, **kwargs)
        walked.extend(k for k, _ in out)
        return out

    def counted_decide(head, task):
        programs.append(task[0])
        return real_decide(head, task)

    monkeypatch.setattr(facet_walk, "walk", counted_walk)
    monkeypatch.setattr(argmax_module, "decide_label", counted_decide)
    head = ExactHead.from_array(W)
    assert head.screened
    result = argmaxable_labels(head)
    assert result.unargmaxable == reference.unargmaxable
    for i, ev in enumerate(result.evidence):
        if isinstance(ev, Witness):
            assert is_argmax_witness(head.rows, i, ev.point)
        elif isinstance(ev, GordanCertificate):
            assert is_argmax_certificate(head.rows, i, ev.multipliers)
    # The walk decided labels that would otherwise each have needed a program.
    assert walked and not set(walked) & set(programs)
    assert all(isinstance(result.evidence[k], Witness) for k in walked)


def test_the_per_label_stage_is_the_same_for_any_number_of_workers(monkeypatch):
    W = _cloud_head(seed=4)
    _force_per_label(monkeypatch)
    head = ExactHead.from_array(W)
    one = argmaxable_labels(head)
    with Workers(head, jobs=2) as workers:
        two = argmaxable_labels(head, workers=workers)
    assert one.evidence == two.evidence


def test_nearest_labels_agree_with_brute_force():
    rng = np.random.default_rng(6)
    F = rng.standard_normal((50, 4))
    labels = [int(k) for k in rng.choice(50, 30, replace=False)]
    for block in (1, 7, 1024):
        near = argmax_module._nearest_labels(F, labels, 5, block=block)
        assert set(near) == set(labels)
        for i in labels:
            others = [k for k in labels if k != i]
            dist = {k: float(np.sum((F[i] - F[k]) ** 2)) for k in others}
            expected = sorted(others, key=lambda k: (dist[k], labels.index(k)))[:5]
            assert [round(dist[k], 9) for k in near[i]] == [round(dist[k], 9)
                                                            for k in expected]
    assert argmax_module._nearest_labels(F, [3], 5) == {}
    everyone = argmax_module._nearest_labels(F, [1, 2, 3], 9)
    assert sorted(everyone[1]) == [2, 3]


def test_neighbour_supports_join_the_weights_of_the_nearest_labels_inside(monkeypatch):
    monkeypatch.setattr(argmax_module, "WARM_NEIGHBOURS", 2)
    evidence = [None] * 8
    evidence[1] = GordanCertificate(multipliers=((4, 1), (5, 1)))
    evidence[2] = Witness(point=(1, 0))
    evidence[3] = GordanCertificate(multipliers=((0, 1), (6, 1)))
    evidence[7] = GordanCertificate(multipliers=((7, 1),))
    near = {0: [2, 1, 3, 7]}
    assert argmax_module._neighbour_supports(0, near, evidence) == (4, 5, 6)
    assert argmax_module._neighbour_supports(5, near, evidence) == ()


def test_the_programs_of_labels_inside_start_from_their_neighbours_supports(monkeypatch):
    W = _cloud_head(seed=5, cloud=200)
    reference = argmaxable_labels(ExactHead.from_array(W))
    _force_per_label(monkeypatch)
    starts = []
    real = argmax_module.propose_strict

    def spy(A, *args, initial=(), **kwargs):
        starts.append(len(initial))
        return real(A, *args, initial=initial, **kwargs)

    monkeypatch.setattr(argmax_module, "propose_strict", spy)
    result = argmaxable_labels(ExactHead.from_array(W))
    assert result.unargmaxable == reference.unargmaxable
    assert any(starts), "no program started from a neighbour's support"


def test_a_warm_start_that_fails_falls_back_to_the_plain_program(monkeypatch):
    W = _cloud_head(seed=5, cloud=200)
    reference = argmaxable_labels(ExactHead.from_array(W))
    _force_per_label(monkeypatch)
    real = argmax_module._program_evidence
    warm, cold = [], []

    def failing_when_warm(head, A, i, start, initial):
        if initial:
            warm.append(i)
            return None
        cold.append(i)
        return real(head, A, i, start, initial)

    def forbidden(head, i):
        raise AssertionError("the exact method was not needed")

    monkeypatch.setattr(argmax_module, "_program_evidence", failing_when_warm)
    monkeypatch.setattr(argmax_module, "_exact_label", forbidden)
    result = argmaxable_labels(ExactHead.from_array(W))
    assert warm and set(warm) <= set(cold)
    assert result.unargmaxable == reference.unargmaxable


@pytest.mark.parametrize("neighbours, walks", [(0, True), (2, False)])
def test_the_analysis_walks_only_when_it_decides_no_pairs(monkeypatch, neighbours, walks):
    """The walk's witnesses lie near a facet, poor ends for the segments of the tie
    pairs: an analysis that decides pairs does without it."""
    from verify.analyze.report import analyze, decides_pairs

    W = _cloud_head(seed=0)
    reference = argmaxable_labels(ExactHead.from_array(W))
    _force_per_label(monkeypatch)
    calls = []
    real = facet_walk.walk

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(facet_walk, "walk", counted)
    result = analyze(W, neighbours=neighbours, rays=0, cells=False)
    assert bool(calls) == walks
    assert result.argmax.unargmaxable == reference.unargmaxable
    assert decides_pairs(len(W), neighbours, 0) != walks
    assert decides_pairs(len(W), 0, 3) and decides_pairs(200, 0, 0)
    assert decides_pairs(201, 1, None) and not decides_pairs(201, 0, None)


def test_the_walk_finds_every_label_with_a_winning_crossing_point():
    """``walk_from`` screens the first crossing point of each label, then the others of
    the labels left: the labels it returns are exactly those with some crossing point
    that wins, rounded as the screen rounds it and checked here by the exact
    ``wins`` one point at a time; among them are labels whose first point loses."""
    head, sources, pending = _cloud_sources(seed=2)
    found = dict(walk_from(head, sources, pending))
    winners, first_lost = set(), set()
    first_seen = set()
    for j, point in sources:
        ks, X = crossing_points(head.F, j, facet_walk._float_point(point),
                                np.asarray(pending))
        X = np.rint(X * (2.0 ** facet_walk.WALK_POINT_BITS / np.abs(X).max(axis=0)))
        for c, k in enumerate(ks.tolist()):
            won = head.wins([tuple(int(v) for v in X[:, c])], [k])[0]
            if k not in first_seen:
                first_seen.add(k)
                if not won:
                    first_lost.add(k)
            if won:
                winners.add(k)
    assert set(found) == winners and winners
    assert first_lost & winners  # the second wave found something
    for k, point in found.items():
        assert is_argmax_witness(head.rows, k, point)
