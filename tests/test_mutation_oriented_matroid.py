"""Cross-checks of ``verify/arrangement/oriented_matroid.py`` written to kill mutants.

Every expected value comes from a method that shares no code with the module:
determinants by FLINT, subsets and permutations by ``itertools``, the parity of a
permutation by its cycles, the topes of rank-2 arrangements by sorting the directions
of their lines exactly, the certified orthant brute force of ``reference.py``,
cocircuits as the signs of an exact null vector, and orders and distinct rows by
Python's own sorting. The tests that change a module constant (the chunk of subsets,
the block of the brute force, the size limit of the brute force) compare the answer
with the one the default constants give and with a reference. All matrices are small
and seeded; the file runs in a few seconds.
"""

from __future__ import annotations

import random
from functools import cmp_to_key
from itertools import combinations, permutations, product
from math import comb

import numpy as np
import pytest
from flint import fmpz_mat

from reference import brute_force_sign_pattern, generic_central_count, matrix_rank
from verify.arrangement import oriented_matroid as om


# ---------------------------------------------------------------------------
# Independent references
# ---------------------------------------------------------------------------


def colex(K: int, k: int) -> list[tuple[int, ...]]:
    """The ``k``-subsets of ``range(K)`` in colexicographic order (largest element first)."""
    return sorted(combinations(range(K), k), key=lambda s: s[::-1])


def det_sign(rows) -> int:
    d = fmpz_mat([list(map(int, r)) for r in rows]).det() if rows else 1
    return (d > 0) - (d < 0)


def chirotope_of(M) -> om.TableChirotope:
    """The table of ``sign det`` of the ``r``-subsets of the rows of a ``K x r`` matrix."""
    K, r = len(M), len(M[0])
    table = [det_sign([M[i] for i in I]) for I in colex(K, r)]
    return om.TableChirotope(K, r, np.array(table, dtype=np.int8))


def random_full_rank(rng: random.Random, K: int, r: int, low=-3, high=3):
    """A ``K x r`` integer matrix of rank ``r`` with parallel rows and zero entries."""
    while True:
        M = [[rng.randint(low, high) for _ in range(r)] for _ in range(K)]
        for i in range(K):   # parallel copies: large flats, repeated lines
            if rng.random() < 0.3 and i:
                j = rng.randrange(i)
                f = rng.choice([1, -1, 2, -3])
                M[i] = [f * x for x in M[j]]
        if all(any(row) for row in M) and matrix_rank(M) == r:
            return M


_PATTERNS: dict = {}


def pattern(M) -> set[str]:
    """:func:`brute_force_sign_pattern`, computed once per matrix in this file."""
    key = tuple(map(tuple, M))
    if key not in _PATTERNS:
        _PATTERNS[key] = brute_force_sign_pattern(M)
    return _PATTERNS[key]


def strings(signs) -> set[str]:
    return {"".join("+" if s > 0 else "-" for s in row) for row in signs}


def rank2_topes(M) -> set[str]:
    """Topes of non-zero vectors in the plane: one exact witness in each sector between
    consecutive directions of the lines ``h . x = 0`` (sorted by angle with exact cross
    products); the sum of two consecutive directions lies inside their sector."""
    dirs = set()
    for a, b in M:
        for d in ((-b, a), (b, -a)):
            g = np.gcd(abs(d[0]), abs(d[1]))
            dirs.add((d[0] // g, d[1] // g))

    def half(d):
        return 0 if (d[1] > 0 or (d[1] == 0 and d[0] > 0)) else 1

    def cmp(p, q):
        if half(p) != half(q):
            return half(p) - half(q)
        cross = p[0] * q[1] - p[1] * q[0]
        return -1 if cross > 0 else (1 if cross < 0 else 0)

    order = sorted(dirs, key=cmp_to_key(cmp))
    found = set()
    for p, q in zip(order, order[1:] + order[:1]):
        x = (p[0] + q[0], p[1] + q[1])
        values = [a * x[0] + b * x[1] for a, b in M]
        assert all(values)
        found.add("".join("+" if v > 0 else "-" for v in values))
    return found


def with_limit(monkeypatch, limit):
    monkeypatch.setattr(om, "BRUTE_FORCE_LIMIT", limit)


# ---------------------------------------------------------------------------
# Subsets, binomials, parities
# ---------------------------------------------------------------------------


def test_colex_subsets_and_their_ranks_against_itertools():
    for K in range(0, 8):
        B = om.binomial_table(K, 4)
        assert B.shape == (K + 1, 6) and B.dtype == np.int64
        assert B.tolist() == [[comb(x, j) for j in range(6)] for x in range(K + 1)]
        for k in range(0, K + 2):
            got = om.colex_combinations(K, k)
            assert got.dtype == np.int64 and got.shape == (comb(K, k), k)
            assert list(map(tuple, got.tolist())) == colex(K, k)
            if k and len(got):
                ranks = om.colex_rank(got, om.binomial_table(K, k))
                assert ranks.tolist() == list(range(comb(K, k)))


def test_permutation_parity_against_cycles():
    def parity(p):
        seen, odd = set(), 0
        for s in range(len(p)):
            length = 0
            while s not in seen:
                seen.add(s)
                s = p[s]
                length += 1
            odd += length and (length - 1)
        return odd & 1

    for n in range(0, 6):
        perms = list(permutations(range(n)))
        got = om.permutation_parity(np.array(perms, dtype=np.int64).reshape(len(perms), n))
        assert got.tolist() == [parity(p) for p in perms]
    # any leading shape, values not 0..n-1 (the orders argsort returns for ``rest``)
    rng = np.random.default_rng(4)
    values = rng.permuted(np.tile(np.arange(10, 60, 10), (6, 2, 1)), axis=-1)
    got = om.permutation_parity(values)
    assert got.shape == (6, 2)
    for idx in np.ndindex(6, 2):
        ranks = np.argsort(np.argsort(values[idx]))
        assert got[idx] == parity(list(ranks))


def test_all_signs_are_every_vector_of_signs_once():
    for m in range(0, 6):
        got = om._all_signs(m)
        assert got.dtype == np.int8 and got.shape == (1 << m, m)
        assert sorted(map(tuple, got.tolist())) == sorted(product((-1, 1), repeat=m))


# ---------------------------------------------------------------------------
# The table chirotope
# ---------------------------------------------------------------------------


def test_a_table_of_the_wrong_length_is_refused_with_the_expected_length():
    with pytest.raises(ValueError) as error:
        om.TableChirotope(5, 2, np.zeros(9, dtype=np.int8))
    assert str(error.value) == "a chirotope of rank 2 on 5 elements has 10 values, got 9"


@pytest.mark.parametrize("r", [1, 2, 3, 4, 5])
def test_table_signs_against_determinants_sorted_unsorted_and_repeated(r):
    """``chi(e, *rest)`` against FLINT for every kind of ``rest``: increasing (no
    sort), in any order (the sort's parity), with a repeat (0), containing ``e`` (0)."""
    rng = random.Random(r)
    K = r + 4
    M = random_full_rank(rng, K, r, -4, 4)
    chi = chirotope_of(M)
    assert chi.table.dtype == np.int8 and chi.size == K and chi.rank == r
    cases = []
    for _ in range(60):
        rest = [rng.randrange(K) for _ in range(r - 1)]
        cases.append(rest)
        cases.append(sorted(set(rest)) + [K - 1 - j for j in range(r - 1 - len(set(rest)))])
    for batch in (cases[0::2], cases[1::2], [sorted(c) for c in cases[1::2]], cases):
        rest = np.array(batch, dtype=np.int64).reshape(len(batch), r - 1)
        elements = np.array([[rng.randrange(K) for _ in range(5)] for _ in batch])
        got = chi.signs_with(rest, elements)
        assert got.dtype == np.int8 and got.shape == elements.shape
        for m, row in enumerate(batch):
            for j in range(5):
                assert got[m, j] == det_sign([M[elements[m, j]]] + [M[i] for i in row])
    # leading dimensions beyond one
    rest = np.array(cases[:12], dtype=np.int64).reshape(3, 4, r - 1)
    elements = np.array([[rng.randrange(K) for _ in range(K)] for _ in range(12)]).reshape(3, 4, K)
    got = chi.signs_with(rest, elements)
    for a, b in np.ndindex(3, 4):
        for j in range(K):
            rows = [M[elements[a, b, j]]] + [M[i] for i in rest[a, b]]
            assert got[a, b, j] == det_sign(rows)


def test_table_equality_needs_the_same_size_rank_and_table():
    # the table is kept as int8 whatever it is given as (lists, int64, Python integers)
    for given in ([1, -1, 0], np.array([1, -1, 0]), np.array([1, -1, 0], dtype=object)):
        table = om.TableChirotope(3, 2, given).table
        assert table.dtype == np.int8 and table.tolist() == [1, -1, 0]
    a = chirotope_of([[1, 0], [0, 1], [1, 1]])
    assert a == om.TableChirotope(3, 2, a.table.copy())
    assert not a == om.TableChirotope(3, 2, -a.table)
    assert not a == om.TableChirotope(3, 1, np.array([1, 1, 1]))
    assert not a == a.table
    b = om.TableChirotope(3, 1, np.array([1, -1, 1]))
    assert not b == om.TableChirotope(4, 1, np.array([1, -1, 1, 1]))
    assert not om.TableChirotope(3, 3, np.array([1])) == om.TableChirotope(3, 0, np.array([1]))


def test_agreement_up_to_sign_against_its_definition():
    rng = random.Random(7)
    for _ in range(40):
        K, r = rng.randint(2, 5), rng.randint(1, 2)
        if r > K:
            continue
        t = np.array([rng.choice([-1, 0, 1]) for _ in range(comb(K, r))], dtype=np.int8)
        a = om.TableChirotope(K, r, t)
        for u in (t, -t, t.copy()):
            assert om.agree_up_to_sign(a, om.TableChirotope(K, r, u))
        other = t.copy()
        other[0] = 1 if t[0] != 1 else -1
        expect = np.array_equal(other, -t)
        assert om.agree_up_to_sign(a, om.TableChirotope(K, r, other)) == expect
    a = om.TableChirotope(3, 1, np.array([1, 1, 1]))
    assert not om.agree_up_to_sign(a, om.TableChirotope(3, 3, np.array([1])))
    assert not om.agree_up_to_sign(om.TableChirotope(2, 1, np.array([1, 1])),
                                   om.TableChirotope(2, 2, np.array([1])))
    assert not om.agree_up_to_sign(a, om.TableChirotope(4, 1, np.array([1, 1, 1, 1])))
    # the same table read with another size: comb(4, 1) == comb(4, 3)
    four = om.TableChirotope(4, 1, np.array([1, -1, 1, 1]))
    assert not om.agree_up_to_sign(four, om.TableChirotope(4, 3, np.array([1, -1, 1, 1])))


# ---------------------------------------------------------------------------
# Sign keys, distinct rows, orders
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("width", [1, 7, 8, 9, 63, 64, 65, 130])
def test_distinct_rows_and_their_order_against_python(width):
    rng = np.random.default_rng(width)
    for values in ((-1, 1), (-1, 0, 1)):
        base = rng.choice(values, size=(12, width)).astype(np.int8)
        rows = base[rng.integers(0, 12, size=40)]
        unique, first, inverse = om.unique_signs(rows)
        as_tuples = [tuple(r) for r in rows.tolist()]
        assert sorted(map(tuple, unique.tolist())) == sorted(set(as_tuples))
        assert len(unique) == len(set(as_tuples))
        assert np.array_equal(unique[inverse], rows)
        assert np.array_equal(rows[first], unique)
        # the first occurrence of each distinct row
        assert first.tolist() == [as_tuples.index(tuple(u)) for u in unique.tolist()]
        keys = om.sign_keys(rows)
        assert keys.dtype == np.uint64
        # the keys separate rows exactly as the rows differ
        key_tuples = [tuple(k) for k in keys.tolist()]
        for i in range(len(rows)):
            for j in range(len(rows)):
                assert (key_tuples[i] == key_tuples[j]) == (as_tuples[i] == as_tuples[j])
        # unique rows come in key order
        ukeys = [tuple(k) for k in om.sign_keys(unique).tolist()]
        if values == (-1, 1):
            assert [tuple(u) for u in unique.tolist()] == sorted(set(as_tuples))
            ordered = om._sorted_rows(rows)
            assert [tuple(r) for r in ordered.tolist()] == sorted(as_tuples)
        else:
            assert om.sign_keys(rows).shape[1] == 2 * ((width + 63) // 64)
            keyed = [tuple(k) for k in om.sign_keys(unique).tolist()]
            assert keyed == sorted(keyed) == ukeys


def test_bit_words_compare_like_boolean_rows():
    rng = np.random.default_rng(3)
    for width in (1, 5, 64, 65, 100, 129):
        mask = rng.integers(0, 2, size=(30, width)).astype(bool)
        words = om._bit_words(mask)
        assert words.dtype == np.uint64 and words.shape == (30, (width + 63) // 64)
        as_ints = [int("".join("1" if b else "0" for b in row), 2) for row in mask]
        word_ints = [sum(int(w) << (64 * (len(row) - 1 - i)) for i, w in enumerate(row))
                     for row in words.tolist()]
        # big-endian: the row padded with zeros on the right to whole words
        pad = 64 * words.shape[1] - width
        assert word_ints == [v << pad for v in as_ints]


def test_stable_order_of_keys_and_the_first_of_equal_keys():
    keys = np.array([[3, 1], [1, 9], [3, 0], [1, 9], [0, 5], [3, 1]], dtype=np.uint64)
    assert om._key_order(keys).tolist() == [4, 1, 3, 2, 0, 5]
    first, inverse = om.distinct_keys(keys)
    assert first.tolist() == [4, 1, 2, 0]
    assert inverse.tolist() == [3, 1, 2, 1, 0, 3]
    one = np.array([[5], [2], [5], [1]], dtype=np.uint64)
    assert om._key_order(one).tolist() == [3, 1, 0, 2]
    first, inverse = om.distinct_keys(one)
    assert first.tolist() == [3, 1, 0] and inverse.tolist() == [2, 1, 2, 0]
    big = np.array([[2 ** 64 - 1], [2 ** 63], [1]], dtype=np.uint64)
    assert om._key_order(big).tolist() == [2, 1, 0]


def test_sorting_and_normalising_edge_cases():
    empty = np.zeros((0, 3), dtype=np.int8)
    assert om._sorted_rows(empty).shape == (0, 3)
    one = np.array([[1, -1, 1]], dtype=np.int8)
    assert om._sorted_rows(one).tolist() == [[1, -1, 1]]
    two = np.array([[1, -1], [-1, 1]], dtype=np.int8)
    assert om._sorted_rows(two).tolist() == [[-1, 1], [1, -1]]
    unique, first, inverse = om.unique_signs(empty)
    assert unique.shape == (0, 3) and len(first) == 0 and len(inverse) == 0
    assert om._normalise(empty).shape == (0, 3)
    Y = np.array([[0, -1, 1], [1, 0, -1], [0, 0, -1], [-1, -1, 0]], dtype=np.int8)
    assert om._normalise(Y).tolist() == [[0, 1, -1], [1, 0, -1], [0, 0, 1], [1, 1, 0]]
    assert om._unique_rows(np.array([[1, 1], [-1, 1], [1, 1]], dtype=np.int8)).tolist() \
        == [[-1, 1], [1, 1]]


# ---------------------------------------------------------------------------
# The per-flat memo
# ---------------------------------------------------------------------------


def test_flat_memo_keeps_the_least_recently_used_within_its_budget():
    assert om.FlatMemo().budget == om.MEMO_BYTES
    memo = om.FlatMemo(3 * (100 + 3 + 250))
    assert memo.get(b"abc") is None
    for key in (b"k01", b"k02", b"k03"):
        memo.put(key, key.upper(), 100)
    assert memo.size == 3 * 353 and len(memo.entries) == 3
    memo.put(b"k01", b"other", 100)           # already there: unchanged
    assert memo.get(b"k01") == b"K01" and memo.size == 3 * 353
    memo.put(b"k04", b"K04", 100)             # over budget: the least recently used goes
    assert memo.get(b"k02") is None
    assert [memo.get(k) for k in (b"k01", b"k03", b"k04")] == [b"K01", b"K03", b"K04"]
    assert memo.size == 3 * 353
    memo.put(b"k05", b"K05", 100 + 353)       # needs two places: the two oldest go
    assert memo.get(b"k01") is None and memo.get(b"k03") is None
    assert memo.get(b"k04") == b"K04" and memo.get(b"k05") == b"K05"
    assert memo.size == 353 + 353 + 353
    # an entry larger than the whole budget is not kept, and nothing leaves for it
    memo.put(b"big", b"B", 3 * 353 - 250 - 3 + 1)
    assert memo.get(b"big") is None and memo.size == 3 * 353
    exact = om.FlatMemo(1000)
    exact.put(b"xy", "v", 1000 - 250 - 2)
    assert exact.get(b"xy") == "v" and exact.size == 1000
    # values that are false (empty bytes) are kept too
    exact = om.FlatMemo(10_000)
    exact.put(b"e", b"", 0)
    assert exact.get(b"e") == b"" and exact.size == 251


def test_flat_keys_tell_kind_rank_flat_and_extension_apart():
    inputs = [(0, 2, [1, 2], [3]), (0, 2, [1, 2, 3], []), (1, 2, [1, 2], [3]),
              (0, 3, [1, 2], [3]), (0, 2, [1, 3], [2]), (0, 2, [], [1, 2, 3]),
              (0, 2, [1, 2], [4]), (0, 2, [258, 2], [3]), (0, 2, [1, 2], [])]
    keys = [om._flat_key(*x) for x in inputs]
    assert len(set(keys)) == len(keys)
    for (kind, k, flat, ext), key in zip(inputs, keys):
        assert om._flat_key(kind, k, np.array(flat, dtype=np.int64), tuple(ext)) == key
        assert isinstance(key, bytes)


class Counting:
    """A table chirotope that counts the signs it is asked for, with an optional memo."""

    def __init__(self, chi, memo=None):
        self.chi, self.size, self.rank = chi, chi.size, chi.rank
        self.calls = self.rank_one = 0
        if memo is not None:
            self.memo = memo

    def signs_with(self, rest, elements):
        self.calls += 1
        # one row of one flat: the rank-1 restrictions of the recursion, never memoised
        self.rank_one += np.ndim(elements) == 2 and len(elements) == 1
        return self.chi.signs_with(rest, elements)


@pytest.mark.parametrize("limit", [0, 2, 12])
def test_topes_with_a_memo_are_those_without_and_come_from_it_the_second_time(
        monkeypatch, limit):
    with_limit(monkeypatch, limit)
    for seed in range(3):
        M = random_full_rank(random.Random(seed), 7, 3)
        chi = chirotope_of(M)
        expected = pattern(M)
        plain = Counting(chi)
        first_topes = om.topes(plain)
        assert strings(first_topes) == expected
        counted = Counting(chi, om.FlatMemo())
        assert np.array_equal(om.topes(counted), first_topes)
        assert counted.calls == plain.calls
        # the memo's account: each result's bytes, its key and 250 bytes of overhead
        entries = counted.memo.entries.items()
        assert counted.memo.size == sum(len(key) + 250 + (
            len(value) if isinstance(value, bytes) else value[0].nbytes + value[1].nbytes)
            for key, (value, _) in entries)
        assert all(len(value) == 2 and value[0].dtype == np.int8 and value[1].dtype == np.int64
                   for _, (value, _) in entries if not isinstance(value, bytes))
        counted.calls = 0
        assert np.array_equal(om.topes(counted), first_topes)   # every flat from the memo
        assert counted.calls == plain.rank_one
        assert limit < 12 or counted.calls == 0
        # a memo too small for anything: the same topes, every flat computed again
        tiny = Counting(chi, om.FlatMemo(10))
        assert np.array_equal(om.topes(tiny), first_topes)
        tiny.calls = 0
        assert np.array_equal(om.topes(tiny), first_topes)
        assert tiny.calls == plain.calls


def test_a_memo_shared_by_two_chirotopes_of_one_matrix_gives_each_its_own_flats():
    """Masks of 16 and of 17 positions are stored as bytes of different widths."""
    rng = random.Random(11)
    M = random_full_rank(rng, 17, 2, -5, 5)
    chi = chirotope_of(M)
    memo = om.FlatMemo()
    for limit in (20, 20):
        saved = om.BRUTE_FORCE_LIMIT
        om.BRUTE_FORCE_LIMIT = limit
        try:
            assert strings(om.topes(Counting(chi, memo))) == rank2_topes(M)
            sub = om.TableChirotope(16, 2, chirotope_of(M[:16]).table)
            assert strings(om.topes(Counting(sub, memo))) == rank2_topes(M[:16])
        finally:
            om.BRUTE_FORCE_LIMIT = saved


# ---------------------------------------------------------------------------
# Cocircuits
# ---------------------------------------------------------------------------


def cocircuits_by_null_vectors(M) -> set[tuple[int, ...]]:
    """Sign vectors ``sign(M x)`` for ``x`` spanning the null space of ``r - 1``
    independent rows, normalised to a first non-zero ``+``."""
    K, r = len(M), len(M[0])
    found = set()
    for S in combinations(range(K), r - 1):
        if r > 1 and matrix_rank([M[i] for i in S]) < r - 1:
            continue
        if r == 1:
            x = [1]
        else:
            null, nullity = fmpz_mat([M[i] for i in S]).nullspace()
            assert nullity == 1
            x = [null[j, 0] for j in range(r)]
        v = [sum(a * b for a, b in zip(row, x)) for row in M]
        s = [(e > 0) - (e < 0) for e in v]
        lead = next(e for e in s if e)
        found.add(tuple(lead * e for e in s))
    return found


@pytest.mark.parametrize("chunk", [1, 2, 5, 20_000])
def test_cocircuits_against_null_vectors_in_chunks_of_any_size(monkeypatch, chunk):
    monkeypatch.setattr(om, "_CHUNK", chunk)
    rng = random.Random(chunk)
    for K, r in ((6, 2), (7, 3), (6, 4), (4, 1)):
        M = random_full_rank(rng, K, r)
        chi = chirotope_of(M)
        flat = np.arange(K, dtype=np.int64)
        Y, S = om.flat_cocircuits(chi, flat, r, [])
        assert Y.dtype == np.int8 and S.shape == (len(Y), r - 1) and S.dtype == np.int64
        assert set(map(tuple, Y.tolist())) == cocircuits_by_null_vectors(M)
        assert len(Y) == len(set(map(tuple, Y.tolist())))
        keys = [tuple(k) for k in om.sign_keys(Y).tolist()]
        assert keys == sorted(keys)
        for y, s in zip(Y.tolist(), S.tolist()):
            assert matrix_rank([M[i] for i in s]) == r - 1 if r > 1 else s == []
            assert all(y[i] == 0 for i in s)


def test_a_flat_inside_a_larger_space_has_the_cocircuits_of_its_rows():
    """A flat of rank 2 (rows in a plane of R^3), completed by an element outside it."""
    M = [[1, 0, 0], [0, 1, 0], [1, 1, 0], [2, -1, 0], [1, 2, 0], [0, 0, 1], [1, 1, 1]]
    chi = chirotope_of(M)
    flat = np.array([0, 1, 2, 3, 4], dtype=np.int64)
    for ext in ([5], [6]):
        Y, S = om.flat_cocircuits(chi, flat, 2, ext)
        assert set(map(tuple, Y.tolist())) == cocircuits_by_null_vectors(
            [row[:2] for row in M[:5]])
    # no cocircuits at all: a flat of loops
    loops = om.TableChirotope(3, 1, np.array([0, 0, 1], dtype=np.int8))
    Y, S = om.flat_cocircuits(loops, np.array([0, 1]), 1, [])
    assert Y.shape == (0, 2) and Y.dtype == np.int8 and S.shape == (0, 0)
    Y, S = om._flat_cocircuits(chirotope_of([[0, 0], [0, 0], [1, 0]]),
                               np.array([0, 1]), 2, [])
    assert Y.shape == (0, 2) and Y.dtype == np.int8 and S.shape == (0, 1) and S.dtype == np.int64


# ---------------------------------------------------------------------------
# Topes
# ---------------------------------------------------------------------------


def test_rank_0_has_one_empty_tope_without_elements_and_none_with():
    assert om.topes(om.TableChirotope(0, 0, np.array([1]))).shape == (1, 0)
    for K in (1, 3):
        T = om.topes(om.TableChirotope(K, 0, np.array([1])))
        assert T.shape == (0, K) and T.dtype == np.int8


@pytest.mark.parametrize("limit", [0, 1, 2, 12])
def test_rank_1_topes_and_loops(monkeypatch, limit):
    with_limit(monkeypatch, limit)
    chi = om.TableChirotope(4, 1, np.array([1, -1, -1, 1], dtype=np.int8))
    assert om.topes(chi).tolist() == [[-1, 1, 1, -1], [1, -1, -1, 1]]
    loop = om.TableChirotope(4, 1, np.array([1, 0, -1, 1], dtype=np.int8))
    T = om.topes(loop)
    assert T.shape == (0, 4) and T.dtype == np.int8


@pytest.mark.parametrize("limit", [0, 2, 3, 12])
def test_topes_of_rank_2_against_the_directions_of_the_lines(monkeypatch, limit):
    with_limit(monkeypatch, limit)
    rng = random.Random(limit)
    for K in (3, 5, 9, 14):
        M = random_full_rank(rng, K, 2, -4, 4)
        T = om.topes(chirotope_of(M))
        assert T.dtype == np.int8
        assert strings(T) == rank2_topes(M) and len(T) == len(strings(T))
        assert [tuple(t) for t in T.tolist()] == sorted(tuple(t) for t in T.tolist())


def test_flats_of_17_to_25_elements_with_wider_masks_or_the_recursion(monkeypatch):
    with_limit(monkeypatch, 30)
    rng = random.Random(5)
    for K in (16, 17, 18):
        M = random_full_rank(rng, K, 2, -6, 6)
        assert strings(om.topes(chirotope_of(M))) == rank2_topes(M)
    # 25 elements are refused (tested with a prefix, where the refusal costs nothing
    # if it fails: test_a_flat_of_24_elements_is_the_largest_tested_at_once); with a
    # limit of 24 they go to the recursion instead
    M = random_full_rank(rng, 25, 2, -6, 6)
    with_limit(monkeypatch, 24)
    assert strings(om.topes(chirotope_of(M))) == rank2_topes(M)


@pytest.mark.parametrize("block", [1, 7, 1 << 20])
def test_the_brute_force_in_blocks_of_any_size(monkeypatch, block):
    """Blocks of one flat or a few flats (the restrictions of the recursion come in
    groups of equal size): the same topes as the reference."""
    monkeypatch.setattr(om, "_BLOCK", block)
    rng = random.Random(block)
    for limit in (3, 12):
        with_limit(monkeypatch, limit)
        for K, r in ((7, 3), (7, 4)):
            M = random_full_rank(rng, K, r)
            assert strings(om.topes(chirotope_of(M))) == pattern(M)


@pytest.mark.parametrize("limit", [0, 3, 12])
def test_generic_and_degenerate_topes_against_counts_and_the_brute_force(monkeypatch, limit):
    with_limit(monkeypatch, limit)
    rng = random.Random(100 + limit)
    for K, r in ((8, 3), (7, 4), (6, 5)):
        M = [[rng.randint(-10 ** 4, 10 ** 4) for _ in range(r)] for _ in range(K)]
        chi = chirotope_of(M)
        assert (chi.table != 0).all()
        assert len(om.topes(chi)) == generic_central_count(K, r)
    for K, r in ((7, 3), (8, 3), (6, 4)):
        M = random_full_rank(rng, K, r, -2, 2)
        assert strings(om.topes(chirotope_of(M))) == pattern(M)


def agreeing(T, fixed):
    return {t for t in strings(T)
            if all(f == 0 or (f > 0) == (c == "+") for f, c in zip(fixed, t))}


@pytest.mark.parametrize("limit", [0, 2, 12])
def test_topes_asked_for_a_prefix_are_the_topes_that_agree_with_it(monkeypatch, limit):
    """``_recursive`` and ``_equal_flats_topes`` with ``fixed``: exactly the topes that
    agree with it, for flats with different numbers of fixed positions together."""
    with_limit(monkeypatch, limit)
    rng = random.Random(limit)
    for K, r in ((6, 2), (7, 3), (8, 3), (7, 4)):
        M = random_full_rank(rng, K, r)
        chi = chirotope_of(M)
        every = pattern(M)
        ground = np.arange(K, dtype=np.int64)
        fixeds = []
        for _ in range(5):
            f = np.array([rng.choice([-1, 0, 0, 1]) for _ in range(K)], dtype=np.int8)
            fixeds.append(f)
        fixeds.append(np.zeros(K, dtype=np.int8))
        fixeds.append(np.array([1 if s == "+" else -1 for s in sorted(every)[0]], dtype=np.int8))
        for f in fixeds:
            want = {t for t in every
                    if all(v == 0 or (v > 0) == (c == "+") for v, c in zip(f, t))}
            got = om._recursive(chi, ground, r, np.zeros(0, dtype=np.int64), f)
            assert strings(got) == want and len(got) == len(want)
        F = np.array(fixeds)
        T, owner = om._equal_flats_topes(chi, np.tile(ground, (len(F), 1)), r,
                                         np.zeros((len(F), 0), dtype=np.int64), F)
        assert owner.tolist() == sorted(owner.tolist())
        for i, f in enumerate(fixeds):
            want = {t for t in every
                    if all(v == 0 or (v > 0) == (c == "+") for v, c in zip(f, t))}
            assert strings(T[owner == i]) == want and (owner == i).sum() == len(want)


def test_independent_flats_asked_for_a_prefix():
    """Flats of ``k`` elements have every sign vector; with ``fixed`` those that agree."""
    chi = chirotope_of([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
    Zs = np.array([[0, 1, 2], [1, 2, 3], [0, 1, 3]], dtype=np.int64)
    ext = np.zeros((3, 0), dtype=np.int64)
    T, owner = om._equal_flats_topes(chi, Zs, 3, ext)
    assert owner.tolist() == [0] * 8 + [1] * 8 + [2] * 8
    for f in range(3):
        assert sorted(map(tuple, T[owner == f].tolist())) == sorted(product((-1, 1), repeat=3))
    fixed = np.array([[1, 0, 0], [0, -1, 1], [0, 0, 0]], dtype=np.int8)
    T, owner = om._equal_flats_topes(chi, Zs, 3, ext, fixed)
    for f in range(3):
        got = sorted(map(tuple, T[owner == f].tolist()))
        assert got == sorted(t for t in product((-1, 1), repeat=3)
                             if all(v == 0 or v == c for v, c in zip(fixed[f], t)))


def test_fixed_candidates_are_the_masks_that_agree():
    rng = np.random.default_rng(9)
    for z in (3, 8, 16, 17):
        for nfixed in (0, 1, z // 2, z):
            fixed = np.zeros((4, z), dtype=np.int8)
            for row in fixed:
                where = rng.choice(z, size=nfixed, replace=False)
                row[where] = rng.choice([-1, 1], size=nfixed)
            masks = om._fixed_candidates(fixed)
            assert masks.dtype == (np.uint16 if z <= 16 else np.uint32)
            assert masks.shape == (4, 1 << (z - nfixed))
            every = np.arange(1 << z)
            for row, got in zip(fixed, masks):
                # bit i of a mask is + at position i: the fixed bits are those of row
                fixed_bits = sum(1 << i for i, v in enumerate(row.tolist()) if v)
                plus_bits = sum(1 << i for i, v in enumerate(row.tolist()) if v > 0)
                want = every[(every & fixed_bits) == plus_bits]
                assert sorted(got.tolist()) == want.tolist()


def test_compose_gives_every_tope_from_its_vertices():
    """Each candidate ``Y[v] o T'`` is a tope that conforms to ``Y[v]``; together with
    the negatives they are every tope."""
    rng = random.Random(21)
    for K, r in ((6, 3), (7, 3), (6, 4)):
        M = random_full_rank(rng, K, r)
        chi = chirotope_of(M)
        every = pattern(M)
        ground = np.arange(K, dtype=np.int64)
        Y, _ = om.flat_cocircuits(chi, ground, r, [])
        cand, vertex = om.compose(chi, Y, ground, r, [])
        assert len(cand) == len(vertex)
        assert strings(cand) | strings(-cand) == every
        for c, v in zip(cand.tolist(), vertex.tolist()):
            assert all(y == 0 or y == e for y, e in zip(Y[v].tolist(), c))
        none, where = om.compose(chi, Y[:0], ground, r, [])
        assert none.shape == (0, K) and none.dtype == np.int8
        assert where.shape == (0,) and where.dtype == np.int64   # an index array


def test_a_flat_of_24_elements_is_the_largest_tested_at_once(monkeypatch):
    """With ``fixed`` only ``2^free`` sign vectors are tested, so 24 elements are cheap
    here: the topes that agree with a prefix, against the rank-2 reference; 25 refused."""
    with_limit(monkeypatch, 30)
    rng = random.Random(24)
    for K in (24, 25):
        M = random_full_rank(rng, K, 2, -9, 9)
        every = sorted(rank2_topes(M))
        chi = chirotope_of(M)
        fixed = np.array([1 if c == "+" else -1 for c in every[len(every) // 2]], dtype=np.int8)
        fixed[rng.sample(range(K), 4)] = 0
        ground = np.arange(K, dtype=np.int64)[None, :]
        ext = np.zeros((1, 0), dtype=np.int64)
        if K == 25:
            with pytest.raises(ValueError, match="^25 elements are too many for testing all "
                                                 "sign vectors$"):
                om._equal_flats_topes(chi, ground, 2, ext, fixed[None, :])
            continue
        T, owner = om._equal_flats_topes(chi, ground, 2, ext, fixed[None, :])
        assert strings(T) == agreeing([[1 if c == "+" else -1 for c in t] for t in every],
                                      fixed) and len(T) == len(strings(T))
        assert (owner == 0).all()


@pytest.mark.parametrize("block", [1, 2, 1 << 20])
def test_several_flats_in_blocks_keep_their_owners(monkeypatch, block):
    """Flats of equal size brute-forced together, one or two per block: the topes owned
    by flat ``f`` are those of its rows (the orthant brute force of the submatrix)."""
    monkeypatch.setattr(om, "_BLOCK", block)
    rng = random.Random(block)
    M = random_full_rank(rng, 8, 3)
    chi = chirotope_of(M)
    subsets = [S for S in combinations(range(8), 5) if matrix_rank([M[i] for i in S]) == 3]
    subsets = rng.sample(subsets, 5)
    Zs = np.array(subsets, dtype=np.int64)
    T, owner = om._equal_flats_topes(chi, Zs, 3, np.zeros((5, 0), dtype=np.int64))
    assert owner.tolist() == sorted(owner.tolist())
    for f, S in enumerate(subsets):
        assert strings(T[owner == f]) == pattern([M[i] for i in S])
        assert (owner == f).sum() == len(pattern([M[i] for i in S]))


def test_sign_keys_are_the_plus_mask_then_for_rows_with_zeros_the_minus_mask():
    """The key format other modules rely on (``cocircuits._line_keys`` builds the keys
    of rows with zeros itself): big-endian words of the ``+`` positions, followed, when
    some entry is 0, by those of the ``-`` positions. Rows without any ``+`` (only
    ``-`` and 0) are told apart by the second half alone."""
    def words(bits):
        width = (len(bits) + 63) // 64
        value = int("".join("1" if b else "0" for b in bits), 2) << (64 * width - len(bits))
        return [(value >> (64 * (width - 1 - i))) & (2 ** 64 - 1) for i in range(width)]

    rng = np.random.default_rng(70)
    for width in (2, 9, 70):
        topes = rng.choice([-1, 1], size=(6, width)).astype(np.int8)
        assert om.sign_keys(topes).tolist() == [words(row > 0) for row in topes]
        zeros = rng.choice([-1, 0, 1], size=(6, width)).astype(np.int8)
        zeros[:, 0] = 0
        assert om.sign_keys(zeros).tolist() == [words(row > 0) + words(row < 0) for row in zeros]
        no_plus = -np.abs(zeros)
        no_plus[0, 1], no_plus[1, 1] = -1, 0
        no_plus[0, -1], no_plus[1, -1] = 0, -1
        unique, _, _ = om.unique_signs(no_plus)
        assert len(unique) == len({tuple(r) for r in no_plus.tolist()})
