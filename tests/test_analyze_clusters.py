"""Witnesses for labels with near-duplicate rows (``verify.analyze.clusters``).

Heads with planted clusters of rows a relative ``2^-20`` apart (below the float32
bound, so the screen cannot settle them) are analysed through the screen and compared
with the path of small heads and with independent references (Python integers, hull
membership by exact linear programming); wrong proposals must be refused by the exact
check.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from test_analyze import check_argmax_evidence, check_tie_evidence
from verify.analyze import analyze, make_head
from verify.analyze import argmax as argmax_module
from verify.analyze import head as head_module
from verify.analyze import clusters as clusters_module
from verify.analyze.clusters import cluster_witness, near_labels
from verify.analyze.ties import is_tie_witness
from verify.analyze.argmax import is_argmax_witness
from verify.lp.feasibility import Witness, strict_feasibility


def _clustered_head(seed: int, n: int, d: int, sizes=(2, 2, 3)) -> np.ndarray:
    """Integer rows ``2^20 g`` (``g`` Gaussian, rounded), clusters of rows a few units
    (a relative ``2^-20`` or so) from a first member, an exact copy of a cluster member
    and a row inside the hull."""
    rng = np.random.default_rng(seed)
    W = np.rint(rng.standard_normal((n, d)) * 64).astype(np.int64) << 20
    spot = 0
    for size in sizes:
        base = W[spot] * 4  # far out: a vertex of the hull
        W[spot] = base
        for member in range(1, size):
            W[spot + member] = base + rng.integers(-3, 4, size=d)
        spot += size
    W[spot] = W[spot - 1]  # an exact duplicate of a cluster member
    W[spot + 1] = (W[spot + 2] + W[spot + 3]) // 2  # inside: on a segment
    return W


def _screened_and_plain(W):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
        mp.setattr(argmax_module, "SCREEN_CHUNK", 32)
        fast = analyze(W, cells=False, rays=0)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(head_module, "SCREEN_MIN_ENTRIES", 1 << 60)
        slow = analyze(W, cells=False, rays=0)
    return fast, slow


class _Spy:
    """Counts what :func:`cluster_witness` returns."""

    def __init__(self, fn):
        self.fn, self.found, self.calls = fn, 0, 0

    def __call__(self, *args, **kw):
        out = self.fn(*args, **kw)
        self.calls += 1
        self.found += out is not None
        return out


@pytest.mark.parametrize("seed,n,d", [(0, 220, 8), (1, 240, 6), (2, 230, 10)])
def test_near_duplicate_clusters_answer_like_the_exact_path(monkeypatch, seed, n, d):
    W = _clustered_head(seed, n, d)
    spy = _Spy(clusters_module.cluster_witness)
    monkeypatch.setattr(clusters_module, "cluster_witness", spy)
    fast, slow = _screened_and_plain(W)
    assert fast.head.screened and not slow.head.screened
    assert spy.found > 0  # the cluster path decided labels or pairs
    rows = [[int(v) for v in r] for r in W]
    for i in range(12):  # the clusters, the duplicate, the row inside: exact simplex
        exact = strict_feasibility([[a - b for a, b in zip(rows[i], rows[k])]
                                    for k in range(n) if k != i])
        assert fast.argmax.is_argmaxable(i) == isinstance(exact, Witness), i
    assert fast.argmax.argmaxable == slow.argmax.argmaxable
    assert fast.ties.tie_pairs == slow.ties.tie_pairs
    assert fast.ties.non_tie_pairs == slow.ties.non_tie_pairs
    check_argmax_evidence(rows, fast.argmax)
    check_tie_evidence(rows, fast.ties)


def _one_cluster(d: int = 6, seed: int = 3):
    """A head whose first three rows form a near-duplicate cluster at a vertex."""
    rng = np.random.default_rng(seed)
    W = np.rint(rng.standard_normal((40, d)) * 64).astype(np.int64) << 20
    W[0] = np.abs(W[0]) * 4  # far out: a vertex
    W[1] = W[0] + rng.integers(-3, 4, size=d)
    W[2] = W[0] + rng.integers(-3, 4, size=d)
    return W


def _start(head, i):
    return head.mahalanobis().directions(head.F[[i]])[:, 0]


def test_every_member_of_a_cluster_gets_an_exact_witness():
    W = _one_cluster()
    head = make_head(W)
    rows = [[int(v) for v in r] for r in W]
    for i in range(3):
        cluster = near_labels(head, i)
        assert sorted(cluster) == sorted({0, 1, 2} - {i})
        x = cluster_witness(head, i, cluster, _start(head, i))
        assert x is not None
        assert is_argmax_witness(rows, i, x)
    # and tie witnesses for each pair of the cluster, and with a partner outside it
    for i, j in ((0, 1), (1, 2), (0, 2)):
        x = cluster_witness(head, i, near_labels(head, i), _start(head, i), partner=j)
        assert x is not None and is_tie_witness(rows, i, j, x)


def test_rows_far_from_every_other_have_no_cluster():
    head = make_head(_one_cluster())
    assert near_labels(head, 5) == []
    assert near_labels(head, 0, limit=1) == near_labels(head, 0)[:1]


@pytest.mark.parametrize("wrong", ["backwards", "tie", "no_push"])
def test_a_wrong_proposal_is_refused_by_the_exact_check(monkeypatch, wrong):
    """Points whose float scores cannot tell ``i`` from its near duplicates (the
    margins are a few units in 2^40) but that are not witnesses: the exact check must
    refuse them, so cluster_witness returns None."""
    W = _one_cluster()
    head = make_head(W)
    rows = [[int(v) for v in r] for r in W]
    real = clusters_module._pushed

    def corrupted(head_, i, partner, cluster, x0, u):
        good = real(head_, i, partner, cluster, x0, u)
        assert good and is_argmax_witness(rows, i, good[0])
        shift = (max(abs(v) for v in good[0]).bit_length()
                 - max(abs(v) for v in u).bit_length())
        if wrong == "backwards":  # N x0 - u: i loses to its cluster by a hair
            return [tuple((a << shift) - b for a, b in zip(x0, u))]
        if wrong == "tie":  # N x0: i only ties with its cluster
            return [tuple(a << shift for a in x0)]
        return [u]  # the push alone: the cluster beaten, the others not

    monkeypatch.setattr(clusters_module, "_pushed", corrupted)
    assert cluster_witness(head, 0, near_labels(head, 0), _start(head, 0)) is None


def test_a_row_inside_its_cluster_gets_no_witness():
    """``w_3`` on the segment between two near duplicates: the differences are linearly
    dependent, no push exists, and the label is indeed not argmaxable."""
    W = _one_cluster()
    W[3] = (W[1] + W[2]) // 2
    W[1] = 2 * W[3] - W[2]  # exactly the midpoint
    head = make_head(W)
    cluster = near_labels(head, 3)
    assert {1, 2} <= set(cluster)
    assert cluster_witness(head, 3, cluster, _start(head, 3)) is None
    rows = [[int(v) for v in r] for r in W]
    exact = strict_feasibility([[a - b for a, b in zip(rows[3], row)]
                                for k, row in enumerate(rows) if k != 3])
    assert not isinstance(exact, Witness)


def test_exact_duplicates_tie_when_no_third_row_shares_the_point():
    W = _one_cluster()
    W[2] = W[1]
    head = make_head(W)
    rows = [[Fraction(int(v)) for v in r] for r in W]
    x = cluster_witness(head, 1, [], _start(head, 1), partner=2)
    # the rows near 1 (label 0) must also be beaten: with the cluster it works
    x = x or cluster_witness(head, 1, near_labels(head, 1), _start(head, 1), partner=2)
    assert x is not None and is_tie_witness(rows, 1, 2, x)


def test_near_duplicate_labels_are_decided_before_the_interior_walk(monkeypatch):
    """The labels the screen leaves with near-duplicate rows get their witnesses from
    the cluster path first; the interior walk sees only the labels that path leaves,
    and the verdicts agree with the path of small heads and with the exact simplex."""
    from verify.analyze import interior as interior_module

    W = _clustered_head(4, 230, 8)
    walked = []
    real = interior_module.certify_cluster

    def spy(head, task):
        walked.extend(task[0])
        return real(head, task)

    monkeypatch.setattr(interior_module, "certify_cluster", spy)
    cluster_spy = _Spy(clusters_module.cluster_witness)
    monkeypatch.setattr(clusters_module, "cluster_witness", cluster_spy)
    fast, slow = _screened_and_plain(W)
    assert cluster_spy.found > 0
    decided_by_cluster = [i for i in range(7) if fast.argmax.is_argmaxable(i)]
    assert decided_by_cluster  # the cluster members at hull vertices
    assert not set(walked) & set(decided_by_cluster)
    assert fast.argmax.argmaxable == slow.argmax.argmaxable
    rows = [[int(v) for v in r] for r in W]
    for i in range(9):
        exact = strict_feasibility([[a - b for a, b in zip(rows[i], rows[k])]
                                    for k in range(len(rows)) if k != i])
        assert fast.argmax.is_argmaxable(i) == isinstance(exact, Witness), i
    check_argmax_evidence(rows, fast.argmax)


def test_near_duplicate_witnesses_on_workers_give_the_same_output(monkeypatch):
    """The cluster witnesses of the labels the screen leaves run as tasks of the
    workers: byte-identical JSON for one and two processes."""
    import json

    from verify.analyze import to_json

    monkeypatch.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
    monkeypatch.setattr(argmax_module, "SCREEN_CHUNK", 32)
    W = _clustered_head(5, 220, 6)
    one = json.dumps(to_json(analyze(W, cells=False, rays=0)))
    two = json.dumps(to_json(analyze(W, cells=False, rays=0, jobs=2)))
    assert one == two


def test_near_label_lists_are_the_near_labels_of_each():
    """The blocked lists against :func:`near_labels` one label at a time, on rows with
    near duplicates (within ``2^-20``), exact copies and lone rows, in blocks of 3."""
    from verify.analyze.clusters import near_label_lists, near_labels

    rng = np.random.default_rng(4)
    F = rng.standard_normal((60, 5)).astype(np.float32)
    F[10:14] = F[9] * (1 + np.float32(2.0 ** -20) * np.arange(1, 5, dtype=np.float32))[:, None]
    F[20] = F[21]
    head = make_head(F)
    labels = [9, 10, 20, 21, 0, 33, 13]
    expected = [near_labels(head, i) for i in labels]
    assert expected[0] == [10, 11, 12, 13] and expected[2] == [21] and expected[4] == []
    assert near_label_lists(head, labels) == expected

    class Threes:
        def columns(self, bytes_per_column, limit=None):
            return 3

    head.budget = Threes()  # blocks of 3 labels
    assert near_label_lists(head, labels) == expected
