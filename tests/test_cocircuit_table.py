"""The intersection lines of an arrangement, kept as packed keys while they are found,
against all ``(r-1)``-subsets deduplicated at once."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import verify.arrangement.cocircuits as cocircuit_module
from verify.arrangement.cocircuits import cocircuits, generalized_cross_product
from verify.arrangement.oriented_matroid import unique_signs
from verify.arrangement.ranking_pattern import braid_product
from verify.arrangement.stream import reduce_matrix


def all_at_once(H):
    """Every subset in lexicographic order, one vector per line (the first subset's),
    normalised and deduplicated in a single pass."""
    K, r = H.shape
    idx = np.array(list(combinations(range(K), r - 1)), dtype=np.intp)
    v = generalized_cross_product(H[idx])
    v = v[np.any(v != 0, axis=1)]
    Y = np.sign(v @ H.T).astype(np.int8)
    lead = Y[np.arange(len(Y)), np.argmax(Y != 0, axis=1)]
    Y, first, _ = unique_signs(Y * lead[:, None])
    return Y, (v * lead[:, None].astype(v.dtype))[first]


def essential(W):
    return reduce_matrix(braid_product(W)).H


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 8), st.integers(2, 5), st.integers(1, 4), st.integers(0, 10 ** 6),
       st.sampled_from([1, 7, 50]))
def test_packed_lines_equal_the_lines_found_at_once(n, d, bound, seed, chunk):
    W = np.random.default_rng(seed).integers(-bound, bound + 1, size=(n, d)).tolist()
    if len({tuple(row) for row in W}) < n:
        return
    H = essential(W)
    if H.shape[1] < 2:
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cocircuit_module, "_CHUNK", chunk)   # many merges
        Y, V = cocircuits(H)
    Y0, V0 = all_at_once(H)
    assert Y.dtype == np.int8 and np.array_equal(Y, Y0)
    assert V.dtype == V0.dtype and np.array_equal(V, V0)
    assert np.array_equal(np.sign(V @ H.T), Y)


def test_large_entries_keep_python_integers():
    W = np.random.default_rng(5).integers(-10 ** 6, 10 ** 6, size=(6, 4)).tolist()
    H = essential(W)
    assert H.dtype == object
    Y, V = cocircuits(H)
    Y0, V0 = all_at_once(H)
    assert V.dtype == object and np.array_equal(Y, Y0) and (V == V0).all()
    assert all(type(a) is int for a in V.ravel())


def test_more_than_256_hyperplanes_get_wider_ids():
    # 24 labels in general position: C(24, 2) = 276 hyperplanes in rank 3.
    W = np.random.default_rng(3).integers(-1000, 1001, size=(24, 3)).tolist()
    H = essential(W)
    assert H.shape[0] > 256
    Y, V = cocircuits(H)
    Y0, V0 = all_at_once(H)
    assert np.array_equal(Y, Y0) and np.array_equal(V, V0)


def test_generalized_cross_product_of_no_rows_spans_the_line():
    """Rank 1: the batch holds matrices with no rows; the orthogonal complement of
    nothing in R^1 is spanned by (1), the sign the cocircuits of rank 1 need."""
    from verify.arrangement.cocircuits import generalized_cross_product

    v = generalized_cross_product(np.zeros((3, 0, 1), dtype=np.int64))
    assert v.shape == (3, 1) and (v == 1).all()
    # and it agrees with the one-row case one dimension up: (a, b) -> (b, -a)
    w = generalized_cross_product(np.array([[[2, 5]]], dtype=np.int64))
    assert w.tolist() == [[5, -2]]


@pytest.mark.parametrize("H", [
    np.zeros((0, 2), dtype=np.int64),      # no hyperplanes
    np.zeros((3, 2), dtype=np.int64),      # rank 0
    np.array([[1, 2, 0], [2, 4, 0]]),      # rank 1 in R^3: no two independent rows
    np.zeros((3, 0), dtype=np.int64),      # no columns
])
def test_an_arrangement_without_lines_has_no_cocircuits(H):
    Y, V = cocircuits(H)
    K, r = H.shape
    assert Y.shape == (0, K) and Y.dtype == np.int8
    assert V.shape[0] == 0 and V.dtype == H.dtype
    if K and r:  # every subset at once finds no line either
        assert len(all_at_once(H)[0]) == 0
