"""Nearest cosine neighbours (``verify.analyze.neighbours``) of nearly parallel rows.

Trained heads hold blobs of thousands of rows whose cosines with each other are 1
within ``10^-16``; the distances of their unit rows tell them apart. Every answer here
is compared with the exact order of Python integers: ``g |g| / |w_k|^2`` with
``g = w_i . w_k``, larger first, ties by label.
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest

from verify.analyze import head as head_module
from verify.analyze import make_head
from verify.analyze.neighbours import _nearest_by_distance, _unit_errors, _unit_rows, \
    cosine_neighbours


def exact_neighbours(rows: list[list[int]], k: int) -> list[list[int]]:
    """The ``k`` nearest labels of every label by exact cosine (no floats)."""
    out = []
    for i, w in enumerate(rows):
        if not any(w):
            out.append([])
            continue
        keys = []
        for c, v in enumerate(rows):
            if c == i or not any(v):
                continue
            g = sum(a * b for a, b in zip(w, v))
            keys.append((-Fraction(g * abs(g), sum(b * b for b in v)), c))
        out.append([c for _, c in sorted(keys)[:k]])
    return out


def blob(seed: int, n: int) -> list[list[int]]:
    """Rows ``(M, p, q, r)`` with ``M = 10^9 + 7``, many of them of equal norm and equal
    first entry (``p^2 + q^2 + r^2`` with several representations), so that their
    cosines with ``(1, 0, 0, 0)`` and with each other tie exactly while the floats of
    their unit rows round differently; plus multiples, a zero row, random rows."""
    rng = np.random.default_rng(seed)
    M = 10 ** 9 + 7  # not a power of two: the unit rows round
    triples = [t for t in ((p, q, r) for p in range(-9, 10) for q in range(-9, 10)
                           for r in range(-9, 10)) if t != (0, 0, 0)]
    by_norm: dict[int, list] = {}
    for t in triples:
        by_norm.setdefault(sum(v * v for v in t), []).append(t)
    shared = [ts for ts in by_norm.values() if len(ts) >= 6]
    rows = [[1, 0, 0, 0], [3, 0, 0, 0]]
    while len(rows) < n - 12:
        group = shared[rng.integers(len(shared))]
        p, q, r = group[rng.integers(len(group))]
        rows.append([M, int(p), int(q), int(r)])
    rows += [[M, 1, 0, 0]] * 2 + [[2 * M, 2, 0, 0], [0, 0, 0, 0]]
    rows += rng.integers(-50, 50, size=(n - len(rows), 4)).tolist()
    order = rng.permutation(len(rows))
    return [rows[j] for j in order]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 2, 5])
def test_nearly_parallel_rows_in_exact_order(seed, k, monkeypatch):
    rows = blob(seed, 160)
    expected = exact_neighbours(rows, k)
    W = np.array(rows, dtype=np.int64)
    plain = cosine_neighbours(make_head(W), k)
    assert [[c for c, _ in near] for near in plain] == expected
    monkeypatch.setattr(head_module, "SCREEN_MIN_ENTRIES", 0)
    head = make_head(W)
    assert head.screened  # the float32 pass with the distance filter
    screened = cosine_neighbours(head, k)
    assert [[c for c, _ in near] for near in screened] == expected


def test_the_distance_filter_keeps_every_nearest_label_and_drops_far_ones():
    rows = blob(11, 200)
    head = make_head(np.array(rows, dtype=np.int64))
    U, valid = _unit_rows(head)
    errors = _unit_errors(head)
    assert np.all(errors[valid] < 1e-13) and np.isinf(errors[~valid]).all()
    expected = exact_neighbours(rows, 3)
    dropped = 0
    for i in np.flatnonzero(valid):
        cand = np.flatnonzero(valid)
        cand = cand[cand != i]
        keep = _nearest_by_distance(U, int(i), cand, 3, errors)
        assert set(expected[i]) <= set(cand[keep].tolist())
        dropped += int((~keep).sum())
    assert dropped > 0.9 * len(rows) * (len(rows) - 2)


@pytest.mark.parametrize("seed", range(20))
def test_the_distance_filter_holds_for_any_error_within_its_bounds(seed):
    """Unit rows moved by up to their error bound, in the worst directions: the
    ``k`` nearest labels pushed away (and ``i`` moved away from them), every other
    label, among them copies and mirror images of the nearest (equal distance, larger
    label), pulled closer; the filter keeps every label of the exact ``k`` nearest."""
    rng = np.random.default_rng(seed)
    d, k = 5, int(rng.integers(1, 4))
    P = rng.standard_normal((30, d))
    P /= np.linalg.norm(P, axis=1)[:, None]
    # copies (equal distances, ties by label) and mirror images through P[0] (equal
    # distances on the other side of it)
    mirrors = 2 * (P[1:11] @ P[0])[:, None] * P[0] - P[1:11]
    P = np.vstack([P, P[1:11], mirrors])
    i = 0
    cand = np.arange(1, len(P))
    D = np.linalg.norm(P[cand] - P[i], axis=1)  # the "true" distances
    order = sorted(range(len(cand)), key=lambda j: (D[j], cand[j]))
    nearest = {int(cand[j]) for j in order[:k]}
    errors = rng.uniform(1e-4, 1e-3, size=len(P))
    errors[i] *= 0.1
    U = P.copy()
    toward = np.mean([P[c] - P[i] for c in nearest], axis=0)
    U[i] -= 0.999 * errors[i] * toward / np.linalg.norm(toward)
    for j, c in enumerate(cand):
        away = (P[c] - P[i]) / D[j]
        U[c] += (1 if c in nearest else -1) * 0.999 * errors[c] * away
    keep = _nearest_by_distance(U, i, cand, k, errors)
    assert nearest <= set(cand[keep].tolist())


def test_unit_row_errors_bound_the_true_errors():
    """``|u_k - w_k/|w_k||`` against unit rows to 60 digits: below the bound of
    :func:`_unit_errors`, which is not loose by more than a factor ``2^12``."""
    rng = np.random.default_rng(3)
    W = np.vstack([rng.integers(-2 ** 62, 2 ** 62, size=(20, 7)),
                   rng.integers(-9, 10, size=(20, 7)), np.zeros((1, 7), dtype=np.int64)])
    head = make_head(W)
    U, valid = _unit_rows(head)
    errors = _unit_errors(head)
    assert np.isinf(errors[~valid]).all()
    with localcontext() as ctx:
        ctx.prec = 60
        worst = 0.0
        for k in np.flatnonzero(valid):
            z = [Decimal(int(v)) for v in head.Z[k]]
            norm = sum(v * v for v in z).sqrt()
            err = float(sum((Decimal(float(u)) - v / norm) ** 2
                            for u, v in zip(U[k], z)).sqrt())
            assert err <= errors[k]
            worst = max(worst, err / errors[k])
    assert worst > 2.0 ** -12
