"""Cell counts from the Whitney numbers, one rank at a time, against the lattice of flats
(Zaslavsky, :mod:`verify.arrangement.zaslavsky`), the cocircuit enumeration and closed
forms."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.arrangement import sign_pattern
from verify.arrangement.ranking_pattern import braid_product
from verify.arrangement.stream import count_cells, reduce_matrix
from verify.arrangement.whitney import cell_count_by_ranks, whitney_number
from verify.arrangement.zaslavsky import cell_count


def essential(M):
    R = reduce_matrix(M)
    return None if R.zero_rows or not R.rows else R.H


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 7), st.integers(2, 5), st.integers(1, 3), st.integers(0, 10 ** 6),
       st.sampled_from([None, 1, 300]))
def test_ranking_patterns_against_the_lattice_and_the_enumeration(n, d, bound, seed, block):
    """... also when the flats and the crosscut sums are taken a few subsets (or flats)
    at a time (``block``: the entries a vectorised step may hold)."""
    import verify.arrangement.whitney as whitney

    W = np.random.default_rng(seed).integers(-bound, bound + 1, size=(n, d)).tolist()
    M = braid_product(W)
    H = essential(M)
    if H is None:
        return
    with pytest.MonkeyPatch.context() as patch:
        if block is not None:
            patch.setattr(whitney, "_BLOCK", block)
        by_ranks = cell_count_by_ranks(H)
    assert by_ranks == cell_count(H) == count_cells(M)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 9), st.integers(1, 4), st.integers(1, 2), st.integers(0, 10 ** 6))
def test_sign_patterns_against_the_lattice_and_the_enumeration(K, k, bound, seed):
    M = np.random.default_rng(seed).integers(-bound, bound + 1, size=(K, k)).tolist()
    H = essential(M)
    if H is None:
        return
    assert cell_count_by_ranks(H) == cell_count(H) == sign_pattern(M).count


@pytest.mark.parametrize("K, r", [(3, 3), (6, 3), (7, 4), (9, 5)])
def test_generic_arrangements_have_the_closed_form(K, r):
    # points on the moment curve: every r normals independent
    H = [[t ** j for j in range(r)] for t in range(1, K + 1)]
    assert cell_count_by_ranks(H) == 2 * sum(math.comb(K - 1, j) for j in range(r))


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_the_braid_arrangement_has_n_factorial_cells_and_stirling_whitney_numbers(n):
    # B_n restricted to the sum-zero space: the partition lattice
    H = essential(braid_product(np.eye(n, dtype=int).tolist()))
    assert cell_count_by_ranks(H) == math.factorial(n)
    stirling = {(3, 1): 3, (3, 2): 2, (4, 2): 11, (4, 3): 6, (5, 2): 35, (5, 3): 50,
                (6, 2): 85, (6, 3): 225, (6, 4): 274}
    for k in range(2, n - 1):          # the ranks below the top (rank n - 1)
        if (n, k) in stirling:
            assert whitney_number(H, k) == stirling[n, k]


def test_large_entries_use_python_integers():
    W = np.random.default_rng(1).integers(-10 ** 9, 10 ** 9, size=(5, 4)).tolist()
    M = braid_product(W)
    H = essential(M)
    assert cell_count_by_ranks(H) == cell_count(H) == count_cells(M)


def test_count_only_checks_by_ranks_then_by_the_lattice(tmp_path, capsys, monkeypatch):
    """``--count-only`` checks the count by the Whitney numbers; where they give up, by
    the whole lattice of flats; where both give up it says so; a count either formula
    contradicts exits 1."""
    import json

    import verify.arrangement.whitney as whitney
    import verify.arrangement.zaslavsky as lattice
    from verify.cli import main

    W = np.random.default_rng(0).integers(-5, 6, size=(9, 4)).tolist()
    path = tmp_path / "W.json"
    path.write_text(json.dumps(W))
    expected = count_cells(braid_product(W))

    def count(*options):
        code = main(["pattern", "--kind", "ranking", "--matrix", str(path), "--count-only",
                     *options])
        out, err = capsys.readouterr()
        return code, out, err

    def refuse(H):
        raise ValueError("a flat has too many flats below it")

    asked = []
    monkeypatch.setattr(lattice, "cell_count", lambda H: asked.append(H) or None)
    code, out, _ = count("--json")
    assert code == 0 and json.loads(out)["zaslavsky"] == expected and not asked
    monkeypatch.setattr(whitney, "cell_count_by_ranks", refuse)
    code, out, _ = count()
    assert code == 0 and asked and "too large for Zaslavsky's check" in out
    monkeypatch.setattr(lattice, "cell_count", lambda H: expected)
    code, out, _ = count("--json")
    assert code == 0 and json.loads(out)["zaslavsky"] == expected
    monkeypatch.setattr(lattice, "cell_count", lambda H: expected + 2)
    code, _, err = count("--json")
    assert code == 1 and f"Zaslavsky's formula gives {expected + 2}" in err
    monkeypatch.setattr(whitney, "cell_count_by_ranks", lambda H: 1)
    code, _, err = count("--json")
    assert code == 1 and "Zaslavsky's formula gives 1" in err


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 7), st.integers(3, 5), st.integers(1, 2), st.integers(0, 10 ** 6),
       st.sampled_from([0, 64]))
def test_large_flats_from_their_own_lattice_or_all_their_subsets(n, d, bound, seed, limit):
    import verify.arrangement.whitney as whitney

    W = np.random.default_rng(seed).integers(-bound, bound + 1, size=(n, d)).tolist()
    H = essential(braid_product(W))
    if H is None:
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(whitney, "CROSSCUT_MEMBERS", limit)
        assert cell_count_by_ranks(H) == cell_count(H)
