"""Blobs of near-identical rows (:mod:`verify.analyze.blobs`): one support per blob.

A blob inside the hull is decided member by member with one support; a blob that
reaches the hull is left to the screen. Both are held against the path of small heads
(which never groups labels), the exact simplex run of the reference, and the checker.
"""

from __future__ import annotations

import numpy as np
import pytest

from verify.analyze import head as head_module
import verify.analyze.blobs as blobs_module
from verify.analyze.report import analyze_with_bias
from verify.analyze.blobs import BLOB_MIN_SIZE, near_duplicate_groups
from verify.analyze.certificate import write_analyze_certificate
from verify.analyze.report import analyze
from verify.analyze.simplex import SimplexCertificate
from verify.checker.analyze import check_file


def head_with_blobs(seed: int, n: int = 50, d: int = 4, size: int = 12):
    """Gaussian float32 rows, a blob of ``size`` rows a few units in the last place
    apart at the centroid (inside the hull) and another at a far vertex."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((n + 2 * size, d)).astype(np.float32)
    centre = W[2 * size:].mean(axis=0).astype(np.float32)
    vertex = (W[2 * size:].max(axis=0) * 3).astype(np.float32)
    for b, base in enumerate((centre, vertex)):
        for m in range(size):
            row = base.copy()
            for _ in range(m):  # m steps of one unit in the last place, varied coordinates
                c = int(rng.integers(d))
                row[c] = np.nextafter(row[c], np.float32(np.inf) if rng.integers(2) else
                                      np.float32(-np.inf))
            W[b * size + m] = row
    return W


class Spy:
    def __init__(self, fn):
        self.fn, self.proved, self.labels = fn, 0, set()

    def __call__(self, *args, **kwargs):
        out = self.fn(*args, **kwargs)
        self.proved += len(out)
        self.labels |= set(out)
        return out


def test_groups_are_the_blobs():
    W = head_with_blobs(0)
    head = head_module.make_head(W)
    groups = near_duplicate_groups(head, list(range(len(W))), BLOB_MIN_SIZE)
    # Only rows of the blobs are grouped (the one at the centroid here in one cell; a
    # blob can also be cut by a cell boundary, or spread over several cells where its
    # units in the last place exceed the side, as the far one does).
    members = sorted(i for g in groups for i in g)
    assert set(members) <= set(range(24))
    assert [list(range(12))] == [g for g in groups if g[0] < 12]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_blobs_inside_are_proven_with_one_support_and_agree_with_the_small_path(seed,
                                                                                tmp_path):
    W = head_with_blobs(seed)
    spy = Spy(blobs_module.prove_members)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
        mp.setattr(blobs_module, "prove_members", spy)
        fast = analyze(W, cells=False, rays=0)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(head_module, "SCREEN_MIN_ENTRIES", 1 << 60)
        slow = analyze(W, cells=False, rays=0)
    assert fast.argmax.argmaxable == slow.argmax.argmaxable
    inside = [i for i in range(12) if isinstance(fast.argmax.evidence[i], SimplexCertificate)]
    assert spy.proved >= 8 and len(inside) >= 8  # the blob at the centroid
    # No member of the blob at the vertex is proven inside by its blob: it reaches the
    # hull. (Members inside the hull may be proven later, one by one.)
    assert not spy.labels & set(range(12, 24))
    path = tmp_path / "c.zip"
    write_analyze_certificate(path, fast, W)
    assert "simplices" in check_file(path, backend="numpy")


def test_a_blob_with_a_bias_is_proven_with_floor_rows(tmp_path):
    W = head_with_blobs(5)
    b = np.zeros(len(W), dtype=np.float32)
    b[:12] = -1.0  # the inside blob lowered: still unargmaxable, now below floor level
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
        result = analyze_with_bias(W, b, neighbours=2)
    assert set(range(12)) <= set(result.argmax.unargmaxable)
    path = tmp_path / "c.zip"
    write_analyze_certificate(path, result, W, bias=b)
    for backend in ("python", "numpy"):
        assert "with a bias" in check_file(path, backend=backend)


def test_a_support_that_is_not_a_simplex_proves_nothing():
    W = head_with_blobs(0)
    head = head_module.make_head(W)
    group = near_duplicate_groups(head, list(range(len(W))), BLOB_MIN_SIZE)[0]
    support = blobs_module.blob_support(head, group)
    assert support is not None and len(support) == head.d + 1
    # A support missing a vertex, or holding a member of the blob, proves no member.
    assert blobs_module.prove_members(head, (support[:-1] + (support[0],), group)) == {}
    far = tuple(sorted(set(support[:-1]) | {group[0]}))
    assert group[0] not in blobs_module.prove_members(head, (far, group))


def test_a_blob_that_reaches_the_hull_gets_no_support():
    W = head_with_blobs(1)
    head = head_module.make_head(W)
    assert blobs_module.blob_support(head, list(range(12, 24))) is None  # at a vertex
    assert blobs_module.certify_blob(head, list(range(12, 24))) == {}
    assert blobs_module.blob_support(head, list(range(12, 12 + BLOB_MIN_SIZE - 1))) is None
    support = blobs_module.blob_support(head, list(range(12)))  # at the centroid
    assert support is not None and not set(support) & set(range(12))


def test_members_cut_off_from_their_blob_are_proven_on_its_support():
    from verify.analyze.parallel import Workers

    W = head_with_blobs(2)
    head = head_module.make_head(W)
    group = list(range(3, 12))  # labels 0, 1, 2 are left out of the group
    rest = list(range(len(W)))
    found = blobs_module.certify_blobs(head, [group], Workers(head), rest=rest)
    assert {0, 1, 2} <= set(found) and set(found) <= set(range(12))
    assert len({found[i] for i in found}) == 1  # one support for all of them
    assert blobs_module.certify_blobs(head, [group], Workers(head)).keys() == set(group)


@pytest.mark.parametrize("seed", range(4))
def test_near_duplicate_groups_are_the_grid_cells_of_whole_rows(seed):
    """Rows that share the cells of the compared columns and differ in another column
    are told apart; the groups are those of the cells of whole rows."""
    from verify.analyze.head import prefix_columns

    rng = np.random.default_rng(seed)
    d = 20
    base = rng.standard_normal((6, d))
    picks = rng.integers(0, 6, size=60)
    W = base[picks].copy()
    hidden = [c for c in range(d) if c not in set(prefix_columns(d).tolist())]
    for r in range(len(W)):  # some rows move in a column outside the prefix
        if rng.integers(3) == 0:
            W[r, int(rng.choice(hidden))] += 0.5
    head = head_module.make_head(W)
    labels = sorted(rng.choice(len(W), size=45, replace=False).tolist())
    scale = float(np.median(head.row_norms()[labels])) * blobs_module.BLOB_RELATIVE
    cells: dict = {}
    for i in labels:
        cells.setdefault(tuple(np.floor(head.F[i] / scale).tolist()), []).append(i)
    for min_size in (2, 3):
        expected = sorted((g for g in cells.values() if len(g) >= min_size),
                          key=lambda g: g[0])
        assert near_duplicate_groups(head, labels, min_size) == expected
