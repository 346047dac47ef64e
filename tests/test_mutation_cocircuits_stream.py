"""The tope enumeration from cocircuits (``verify/arrangement/cocircuits.py``) and the
streamed patterns (``verify/arrangement/stream.py``) against independent methods.

The reference here recomputes every step from its definition, with FLINT determinants
and Python integers, sharing no code with the engine:

* the lines of ``H`` (``K x r``): for every ``(r-1)``-subset ``S`` in lexicographic
  order, ``v_j = (-1)^j det H[S, all columns but j]`` (FLINT); a non-zero ``v`` spans
  a line, oriented so that the first non-zero entry of ``sign(H v)`` is ``+``; each
  line keeps the vector of the first subset that spans it;
* the topes: every orthant decided by ``tests/reference.py`` (LP witnesses and Gordan
  certificates), or, where that is too slow, by the signs of the sums of conforming
  vertex vectors (a tope is the sign vector of the sum of its extreme rays);
* the witness of a tope ``T``: the primitive sum of the vertex vectors ``s v`` that
  conform to ``T`` (``s sign(H v)`` is ``0`` or ``T_i`` in every entry), step 3 of
  :mod:`verify.arrangement.cocircuits`.

Adversarial inputs: entries beyond ``2^63`` (Python integers through the whole engine
and through the stream's spool), a witness whose entries all lie in ``[2^63, 2^64)``
(numpy would store it as ``uint64``, whose negation wraps), subsets that span no line
before those that do, a limit met exactly.
"""

from fractions import Fraction
from itertools import combinations
from math import comb, gcd

import numpy as np
import pytest
from flint import fmpz_mat
from hypothesis import given, settings
from hypothesis import strategies as st

import verify.arrangement.cocircuits as cocircuit_module
from verify.arrangement.cocircuits import (
    IntegerChirotope,
    _primitive_rows,
    _safe_dtype,
    cocircuits,
    enumerate_topes,
    generalized_cross_product,
    generic_tope_count,
)
from verify.arrangement.sign_pattern import sign_pattern
from verify.arrangement.stream import _plan, reduce_matrix, sign_pattern_blocks
from verify.io.errors import TooLargeError

from reference import brute_force_sign_pattern, generic_central_count, matrix_rank


# --- the reference ----------------------------------------------------------------


def det(rows) -> int:
    """``det`` of a square integer matrix by FLINT (``1`` for the empty matrix)."""
    if not rows:
        return 1
    return int(fmpz_mat([[int(a) for a in row] for row in rows]).det())


def sign(x) -> int:
    return (x > 0) - (x < 0)


def ref_lines(H) -> dict:
    """``{Y: v}``: the cocircuits of ``H`` (first non-zero entry ``+1``) with the vector
    of the first ``(r-1)``-subset spanning each line, in that orientation."""
    H = [[int(a) for a in row] for row in H]
    K, r = len(H), len(H[0])
    lines = {}
    for S in combinations(range(K), r - 1):
        v = [(-1) ** j * det([[H[i][c] for c in range(r) if c != j] for i in S])
             for j in range(r)]
        if not any(v):
            continue
        Y = [sign(sum(h * x for h, x in zip(row, v))) for row in H]
        lead = next(y for y in Y if y)
        Y, v = tuple(lead * y for y in Y), [lead * x for x in v]
        lines.setdefault(Y, v)
    return lines


def primitive(v) -> tuple:
    g = gcd(*v)
    return tuple(x // g for x in v)


def ref_topes(H, *, brute_force: bool = True) -> dict:
    """``{T: witness}`` over all topes ``T`` of ``H``: the topes from the exact orthant
    decision of ``tests/reference.py`` (or, with ``brute_force=False``, as the signs of
    the vertex sums), the witness as the primitive sum of the conforming vertices."""
    H = [[int(a) for a in row] for row in H]
    lines = ref_lines(H)
    vertices = [(tuple(s * y for y in Y), [s * x for x in v])
                for Y, v in lines.items() for s in (1, -1)]

    def witness(T):
        total = [0] * len(H[0])
        for Y, v in vertices:
            if all(y in (0, t) for y, t in zip(Y, T)):
                total = [a + b for a, b in zip(total, v)]
        return primitive(total)

    if brute_force:
        topes = [tuple(1 if c == "+" else -1 for c in s) for s in brute_force_sign_pattern(H)]
    else:
        found = set()
        for Y, _ in vertices:
            # every tope has a vertex: T = Y o T' for some T' (step 2); enumerate the
            # completions of Y and keep those whose vertex sum realises them
            zeros = [i for i, y in enumerate(Y) if y == 0]
            for fill in range(1 << len(zeros)):
                T = list(Y)
                for bit, i in enumerate(zeros):
                    T[i] = 1 if fill >> bit & 1 else -1
                found.add(tuple(T))
        topes = [T for T in found
                 if [sign(sum(h * x for h, x in zip(row, witness(T)))) for row in H]
                 == list(T)]
    return {T: witness(T) for T in topes}


def full_rank_matrices(max_rows: int, max_cols: int, bound: int):
    """Integer ``K x r`` matrices of rank ``r`` without zero rows; rows may repeat or be
    parallel (the enumeration does not need them merged)."""
    def ok(H):
        return all(any(row) for row in H) and matrix_rank(H) == len(H[0])
    return st.integers(1, max_cols).flatmap(lambda r: st.lists(
        st.lists(st.integers(-bound, bound), min_size=r, max_size=r),
        min_size=r, max_size=max_rows)).filter(ok)


def as_ints(rows) -> list:
    return [[int(a) for a in row] for row in rows]


def is_integer_array(X) -> bool:
    """Exact integers: an integer dtype, or Python integers in an object array."""
    if X.dtype == object:
        return all(type(a) is int for a in X.ravel())
    return X.dtype.kind == "i"


# --- cocircuits.py ----------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(full_rank_matrices(6, 4, 3), st.booleans())
def test_topes_and_witnesses_equal_the_reference(H, python_integers):
    """Signs (sorted, ``int8``) and witnesses (primitive integer sums of the vertices)
    of :func:`enumerate_topes` against the orthant decision and the vertex sums."""
    A = np.array(H, dtype=object if python_integers else np.int64)
    signs, points = enumerate_topes(A)
    expected = ref_topes(H)
    assert signs.dtype == np.int8 and is_integer_array(points)
    rows = [tuple(int(s) for s in row) for row in signs]
    assert rows == sorted(expected)
    assert [tuple(int(a) for a in p) for p in points] == [expected[T] for T in rows]
    alone = enumerate_topes(A, witnesses=False)
    assert isinstance(alone, np.ndarray) and np.array_equal(alone, signs)


@pytest.mark.parametrize("column", [[1], [-3], [2, -5, 7], [-1, -1, 4]])
@pytest.mark.parametrize("python_integers", [False, True])
def test_rank_one_topes_are_two_half_lines(column, python_integers):
    """One hyperplane of the line (given by several rows or one): the topes ``-s`` and
    ``s`` for ``s = sign(H)``, sorted, with the primitive witnesses ``-1`` and ``1``;
    without witnesses, the signs alone."""
    H = np.array([[a] for a in column], dtype=object if python_integers else np.int64)
    s = tuple(sign(a) for a in column)
    minus = tuple(-x for x in s)
    signs, points = enumerate_topes(H)
    assert signs.dtype == np.int8 and is_integer_array(points)
    assert [tuple(row) for row in signs.tolist()] == sorted([s, minus])
    assert {tuple(row): int(p[0]) for row, p in zip(signs.tolist(), points)} == \
        {s: 1, minus: -1}
    alone = enumerate_topes(H, witnesses=False)
    assert isinstance(alone, np.ndarray) and np.array_equal(alone, signs)


def test_huge_entries_give_the_reference_topes_and_witnesses():
    """Entries near ``2^70``: Python integers throughout, the witnesses exact."""
    rng = np.random.default_rng(11)
    H = [[int(a) * 2 ** 60 + int(b) for a, b in zip(rng.integers(-900, 900, 3),
                                                     rng.integers(-9, 9, 3))]
         for _ in range(5)]
    signs, points = enumerate_topes(np.array(H, dtype=object))
    expected = ref_topes(H, brute_force=False)
    assert points.dtype == object and is_integer_array(points)
    rows = [tuple(int(s) for s in row) for row in signs]
    assert rows == sorted(expected)
    assert [tuple(p) for p in points.tolist()] == [expected[T] for T in rows]


@pytest.mark.parametrize("H", [
    [[1, 0, 0], [2, 0, 0], [-3, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]],
    [[1, 1, 0, 0], [2, 2, 0, 0], [1, -1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 2, 3, 4]],
])
@pytest.mark.parametrize("chunk", [1, 2, 3])
def test_lines_after_subsets_that_span_none(monkeypatch, H, chunk):
    """The first subsets are dependent (parallel rows, rows in a plane): a chunk of them
    spans no line, and the lines of the later chunks must still be found."""
    monkeypatch.setattr(cocircuit_module, "_CHUNK", chunk)
    Y, V = cocircuits(np.array(H, dtype=np.int64))
    assert {tuple(y): list(v) for y, v in zip(Y.tolist(), V.tolist())} == ref_lines(H)


@pytest.mark.parametrize("K, r", [(5, 3), (6, 2), (7, 4)])
def test_the_limit_on_subsets_is_met_exactly(monkeypatch, K, r):
    """``C(K, r-1)`` subsets are examined: refused above the limit, not at it, with a
    message that names the counts (the generic count as Zaslavsky gives it)."""
    rng = np.random.default_rng(K * r)
    H = rng.integers(-50, 51, size=(K, r)).astype(np.int64)
    total = comb(K, r - 1)
    monkeypatch.setattr(cocircuit_module, "MAX_SUBSETS", total)
    Y, _ = cocircuits(H)
    assert len(Y) > 0
    monkeypatch.setattr(cocircuit_module, "MAX_SUBSETS", total - 1)
    with pytest.raises(TooLargeError) as error:
        cocircuits(H)
    assert str(error.value) == (
        f"{K} hyperplanes in rank {r} have {total:,} intersection lines to examine "
        f"(limit {total - 1:,}): the pattern has up to about "
        f"{generic_central_count(K, r):,} cells, too many to enumerate")


@pytest.mark.parametrize("K", range(1, 9))
@pytest.mark.parametrize("r", range(1, 5))
def test_generic_count_is_zaslavsky(K, r):
    """``2 sum_{k<r} C(K-1, k)`` against the reference's Zaslavsky count."""
    assert generic_tope_count(K, r) == generic_central_count(K, r)


def test_generic_count_is_the_count_of_a_generic_arrangement():
    """Moment-curve normals ``(1, t, t^2)`` are in general position: the count is the
    number of topes the reference finds."""
    H = [[1, t, t * t] for t in range(-2, 3)]
    assert generic_tope_count(5, 3) == len(ref_topes(H)) == 22


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 5), st.integers(1, 4), st.integers(0, 2 ** 32), st.booleans())
def test_generalised_cross_product_is_the_signed_minors(r, S, seed, huge):
    """``v_j = (-1)^j det(rows without column j)`` against FLINT, ``int64`` and Python
    integers (entries near ``2^80``). (Rank 1, no rows, is never asked: the callers
    treat it apart.)"""
    rng = np.random.default_rng(seed)
    rows = rng.integers(-4, 5, size=(S, r - 1, r)).astype(object)
    if huge:
        rows = rows * (2 ** 80) + rng.integers(-3, 4, size=rows.shape).astype(object)
    else:
        rows = rows.astype(np.int64)
    v = generalized_cross_product(rows)
    assert v.shape == (S, r)
    for batch, got in zip(rows.tolist(), v.tolist()):
        assert [int(a) for a in got] == [
            (-1) ** j * det([[row[c] for c in range(r) if c != j] for row in batch])
            for j in range(r)]


@settings(max_examples=30, deadline=None)
@given(full_rank_matrices(6, 4, 4), st.integers(0, 2 ** 32), st.booleans())
def test_chirotope_signs_are_signs_of_determinants(H, seed, huge):
    """``signs_with(rest, elements)[..., j] = sign det H[elements[j], *rest]`` against
    FLINT, as ``int8`` (the chirotope protocol), for lists and batches of subsets."""
    A = [[a * 2 ** 70 + 1 for a in row] for row in H] if huge else H
    K, r = len(A), len(A[0])
    chi = IntegerChirotope(np.array(A, dtype=object))
    rng = np.random.default_rng(seed)
    rest = [sorted(rng.choice(K, size=r - 1, replace=False).tolist()) for _ in range(3)]
    elements = rng.integers(0, K, size=(3, 2)).tolist()
    got = chi.signs_with(rest, elements)
    assert got.dtype == np.int8 and got.shape == (3, 2)
    for R, E, g in zip(rest, elements, got.tolist()):
        assert g == [sign(det([A[e]] + [A[i] for i in R])) for e in E]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 4), st.integers(0, 2 ** 32), st.booleans())
def test_primitive_rows_divide_by_the_gcd(n, r, seed, huge):
    """Each row divided by the gcd of its entries (a positive factor), the dtype kept:
    ``int64`` rows stay ``int64``, Python integers stay Python integers."""
    rng = np.random.default_rng(seed)
    base = rng.integers(-6, 7, size=(n, r))
    base[base.any(axis=1) == 0, 0] = 1
    factor = rng.integers(1, 40, size=n)
    if huge:
        points = np.array([[int(a) * int(f) * 3 ** 50 for a in row]
                           for row, f in zip(base.tolist(), factor.tolist())], dtype=object)
    else:
        points = (base * factor[:, None]).astype(np.int64)
    got = _primitive_rows(points)
    assert got.dtype == points.dtype and is_integer_array(got)
    for row, out in zip(points.tolist(), got.tolist()):
        g = gcd(*(int(a) for a in row))
        assert [int(a) for a in out] == [int(a) // g for a in row]


# --- stream.py --------------------------------------------------------------------


def text(row) -> str:
    return "".join("+" if s > 0 else "-" for s in row)


def check_blocks(M, blocks):
    """The blocks as ``[(sign string, witness)]``; every block's signs ``int8`` and its
    witnesses exact integers with ``sign(M z) = signs`` (checked here with Fractions)."""
    rows = [[Fraction(a) for a in row] for row in M]
    cells = []
    for signs, Z in blocks:
        assert signs.dtype == np.int8 and is_integer_array(Z) and len(Z) == len(signs)
        for s, z in zip(signs.tolist(), Z.tolist()):
            z = [int(a) for a in z]
            assert [sign(sum(a * x for a, x in zip(row, z))) for row in rows] == s
            cells.append((text(s), tuple(z)))
    return cells


def whole(M):
    P = sign_pattern(M)
    return [(c.signs, tuple(int(a) for a in c.witness)) for c in P.cells]


def wide_witness_matrix():
    """Rank 2 with the vertices ``u = (2^63 + 1, 1)`` and ``w = (1, 2^63)`` of one cell,
    whose witness ``u + w = (2^63 + 2, 2^63 + 1)`` has every entry in ``[2^63, 2^64)``;
    rows 2 and 3 repeat rows 0 and 1 (negated, scaled), column 2 is redundant."""
    u, w = (2 ** 63 + 1, 1), (1, 2 ** 63)
    h1, h2 = [u[1], -u[0]], [w[1], -w[0]]
    rows = [h1, h2, [-3 * a for a in h1], [5 * a for a in h2]]
    return [row + [row[0] + row[1]] for row in rows]


@pytest.mark.parametrize("budget", [1, 2, 1000])
def test_stream_with_witnesses_beyond_64_bits(budget):
    """Python integers through the buckets and the spool (saved and loaded with
    pickling), and a witness that ``uint64`` could hold but not negate: the streamed
    cells and witnesses are the whole engine's, and the witnesses are the reference's
    (lifted to the columns of ``M``)."""
    M = wide_witness_matrix()
    cells = check_blocks(M, sign_pattern_blocks(M, budget=budget))
    assert cells == whole(M)
    assert (2 ** 63 + 2, 2 ** 63 + 1, 0) in {z for _, z in cells}
    R = reduce_matrix(M)
    assert R.H.dtype == object
    expected = ref_topes(R.H.tolist(), brute_force=False)
    lifted = {}
    for T, p in expected.items():
        z = [0] * R.k
        for j, x in zip(R.basis, p):
            z[j] = x
        lifted[text([T[R.plane[i]] * R.sign[i] for i in range(len(M))])] = tuple(z)
    assert dict(cells) == lifted


@pytest.mark.parametrize("seed", [1, 2])
def test_stream_of_huge_entries_equals_the_whole_engine(seed):
    """A braid-like arrangement with entries near ``2^66``, streamed in small buckets
    through the spool: the cells and witnesses of the whole engine, every block exact."""
    rng = np.random.default_rng(seed)
    W = [[int(a) * 2 ** 64 + int(b) for a, b in zip(rng.integers(-5, 6, 3),
                                                     rng.integers(-5, 6, 3))]
         for _ in range(5)]
    assert reduce_matrix(W).H.dtype == object
    cells = check_blocks(W, sign_pattern_blocks(W, budget=3))
    assert cells == whole(W)


def test_stream_without_witnesses_gives_the_signs_as_int8():
    """Without witnesses the blocks are ``(signs, None)``, ``int8``, the same signs."""
    M = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [1, -2, 3], [-2, -2, -2]]
    blocks = list(sign_pattern_blocks(M, witnesses=False, budget=2))
    assert all(points is None and signs.dtype == np.int8 for signs, points in blocks)
    assert [text(s) for signs, _ in blocks for s in signs.tolist()] == \
        [c for c, _ in whole(M)]


@pytest.mark.parametrize("M", [
    [[1, 2, 0], [2, 4, 0], [-1, 1, 0]],
    [[3, 0, 6, 1], [-1, 1, -2, 0], [0, 2, 0, 1], [-6, 0, -12, -2], [2, 1, 4, 1]],
    [[2 ** 70, 1, 2 ** 71 + 2], [-1, 2 ** 69, -2], [5, 5, 10]],
])
def test_lift_gives_signs_over_the_rows_and_witnesses_in_all_columns(M):
    """:meth:`Reduced.lift` of the topes of the reduced arrangement: ``int8`` signs over
    the rows of ``M`` (parallel and repeated rows, redundant columns) and integer points
    of ``R^k`` with ``sign(M z) = signs``, exactly; zero outside the column basis."""
    R = reduce_matrix(M)
    assert R.zero_rows == []
    T, points = enumerate_topes(R.H)
    signs, Z = R.lift(T, points)
    assert signs.dtype == np.int8 and is_integer_array(Z) and Z.shape == (len(T), R.k)
    rows = [[Fraction(a) for a in row] for row in M]
    for s, z in zip(signs.tolist(), Z.tolist()):
        assert [sign(sum(a * int(x) for a, x in zip(row, z))) for row in rows] == s
        assert all(z[j] == 0 for j in range(R.k) if j not in R.basis)
    assert sorted(text(s) for s in signs.tolist()) == sorted(c for c, _ in whole(M))


def test_blocks_on_a_dask_scheduler_are_the_blocks_in_process():
    """``scheduler``: the buckets computed on a Dask cluster (in-process, one worker)
    come back in order, the same blocks as without one."""
    distributed = pytest.importorskip("dask.distributed")
    M = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [1, -1, 2], [2, 1, -3]]
    here = [(s.tolist(), z.tolist()) for s, z in sign_pattern_blocks(M, budget=3)]
    assert len(here) > 2
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        there = [(s.tolist(), z.tolist()) for s, z in sign_pattern_blocks(
            M, budget=3, scheduler=cluster.scheduler_address, jobs=1)]
    assert there == here


@pytest.mark.parametrize("budget", [2, 5, 40])
def test_each_bucket_asks_its_restrictions_only_for_its_prefix(monkeypatch, budget):
    """Step 1 of :mod:`verify.arrangement.stream`: a bucket's restrictions are asked only
    for the topes that agree with its prefix, so the work of a cocircuit met by several
    buckets is divided among them. Every candidate the composition returns to a bucket
    already has the bucket's prefix (none is computed to be thrown away), and the
    buckets together return each (cell, vertex) pair once."""
    import verify.arrangement.stream as stream_module
    from verify.arrangement.oriented_matroid import compose

    returned = []

    def spy(chi, Y, flat, r, extension, fixed=None):
        cand, vertex = compose(chi, Y, flat, r, extension, fixed)
        returned.append((fixed, cand))
        return cand, vertex

    monkeypatch.setattr(stream_module, "compose", spy)
    M = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]]
    blocks = list(sign_pattern_blocks(M, witnesses=False, budget=budget))
    assert len(returned) > 1
    total = 0
    for fixed, cand in returned:
        assert fixed is not None
        b = int(np.count_nonzero(fixed))
        assert (cand[:, :b] == fixed[:b]).all()
        total += len(cand)
    # each cell of the '+' half has as many candidates as vertices
    H = reduce_matrix(M).H.tolist()
    lines = ref_lines(H)
    plus = [T for T in ref_topes(H) if T[0] == 1]
    assert total == sum(1 for T in plus for Y in lines for s in (1, -1)
                        if all(s * y in (0, t) for y, t in zip(Y, T)))
    assert sum(len(signs) for signs, _ in blocks) == 2 * len(plus)


def _where_am_i(label):
    """The address of the Dask worker running this task (``label`` passed through)."""
    from distributed import get_worker

    return label, get_worker().address


def test_ordered_map_runs_on_the_given_scheduler_in_order_with_its_bound():
    """``_ordered_map`` with a scheduler: every task runs on that cluster's worker, the
    results come back in task order, and at most ``2 jobs`` tasks are taken from the
    iterable before the first result is yielded (bounded memory)."""
    distributed = pytest.importorskip("dask.distributed")
    from verify.arrangement.stream import _ordered_map

    taken = []

    def tasks():
        for label in range(7):
            taken.append(label)
            yield (label,)

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        worker = next(iter(cluster.scheduler.workers))
        results = _ordered_map(_where_am_i, tasks(), 1, cluster.scheduler_address)
        first = next(results)
        assert len(taken) == 2
        assert [first, *results] == [(label, worker) for label in range(7)]


@pytest.mark.parametrize("jobs", [1, 2])
def test_ordered_map_in_processes_keeps_its_bound(jobs):
    """Without a scheduler: in order, and at most ``2 jobs`` tasks taken before the first
    result (one task at a time in this process for ``jobs = 1``)."""
    from verify.arrangement.stream import _ordered_map

    taken = []

    def tasks():
        for label in range(9):
            taken.append(label)
            yield (label, 2)

    results = _ordered_map(pow, tasks(), jobs, None)
    first = next(results)
    assert len(taken) == (1 if jobs == 1 else 2 * jobs)
    assert [first, *results] == [label ** 2 for label in range(9)]


def test_blocks_on_a_dask_scheduler_run_there():
    """``sign_pattern_blocks(..., scheduler=...)`` hands its buckets to that scheduler:
    the cluster's worker executes one task per bucket of the '+' half (and the blocks
    are those computed here)."""
    distributed = pytest.importorskip("dask.distributed")

    M = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [1, -1, 2]]
    here = [(s.tolist(), z.tolist()) for s, z in sign_pattern_blocks(M, budget=3)]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        there = [(s.tolist(), z.tolist()) for s, z in sign_pattern_blocks(
            M, budget=3, scheduler=cluster.scheduler_address, jobs=1)]
        (worker,) = cluster.workers.values()
        executed = worker.state.executed_count
    assert there == here
    assert executed == len(here) // 2


def plan_bound(Y, r) -> list:
    """Step 2 of :mod:`verify.arrangement.stream`, from its statement: a signed cocircuit
    with ``z`` zeros yields at most ``2^(r-1)`` candidates if ``z = r - 1`` (its
    localisation is a coordinate arrangement), else at most the generic count of ``z``
    hyperplanes in rank ``r - 1`` (Zaslavsky, computed by the reference)."""
    out = []
    for row in Y.tolist():
        z = row.count(0)
        out.append(2 ** (r - 1) if z == r - 1 else generic_central_count(z, r - 1))
    return out


@pytest.mark.parametrize("W, exact", [
    ([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]], False),
    ([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]], True),
    ([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 1, 1, 1], [1, -1, 0, 0],
      [0, 0, 1, -1], [1, 2, 3, 4]], False),
    ([[1, 0], [0, 1], [1, 1], [1, -1], [2, 1]], False),
    # four planes through the line of (0, 0, 1): a cocircuit with r + 1 zeros
    ([[1, 0, 0], [0, 1, 0], [1, 1, 0], [1, -1, 0], [0, 0, 1], [1, 1, 1], [1, 2, 3]], False),
])
def test_the_plan_splits_exactly_while_the_bound_exceeds_the_budget(W, exact):
    """Every bucket's bound is within the budget (or the prefix is complete) and its
    parent's exceeds it, so no bucket is split needlessly; a bucket holds the signed
    cocircuits conforming to its prefix (the '+' half: first sign ``+``), each once.
    With ``exact``, the budget is the bound of one bucket of the plan for a budget one
    lower, so that some bucket meets the budget exactly (and must not be split)."""
    R = reduce_matrix(W)
    Y, _ = cocircuits(R.H)
    K, r = R.H.shape
    signed = [(tuple(y), s) for y in Y.tolist() for s in (1, -1)]
    bound = dict(zip((tuple(y) for y in Y.tolist()), plan_bound(Y, r)))

    def members(prefix):
        return sorted((y, s) for y, s in signed
                      if all(s * y[i] in (0, p) for i, p in enumerate(prefix)))

    def weight(prefix):
        return sum(bound[y] for y, _ in members(prefix))

    budgets = [b for b in (3, 8, 20, 50) if b < weight((1,))]   # the root is split
    if exact:
        plan = list(_plan(Y, r, 19))
        budgets = [weight(p) for p, _, _ in plan if len(p) > 1 and weight(p) > 1]
    assert budgets
    for budget in budgets:
        plan = list(_plan(Y, r, budget))
        for prefix, idx, sigma in plan:
            assert members(prefix) == sorted(zip(map(tuple, Y[idx].tolist()),
                                                 sigma.tolist()))
            assert weight(prefix) <= budget or len(prefix) == K
            assert weight(prefix[:-1]) > budget


@pytest.mark.parametrize("budget", [1, 1000])
def test_stream_of_normals_between_2_63_and_2_64(budget):
    """Normals whose entries are all non-negative and reach ``[2^63, 2^64)``: numpy
    would read them as ``uint64`` or ``float64``; the reduction keeps Python integers,
    and the streamed cells and witnesses are the whole engine's, exact."""
    M = [[2 ** 63, 1], [1, 2 ** 63 + 1], [2 ** 63 + 3, 2 ** 63 + 1], [-(2 ** 63), -1]]
    R = reduce_matrix(M)
    assert R.H.dtype == object and all(type(a) is int for a in R.H.ravel())
    cells = check_blocks(M, sign_pattern_blocks(M, budget=budget))
    assert cells == whole(M) and len(cells) == 6


@pytest.mark.parametrize("M", [[], [[0, 0, 0]], [[1, 2, 3], [0, 0, 0], [2, 4, 6]],
                               [[0, 0], [0, 0], [5, -1]]])
def test_the_reduction_of_a_matrix_with_a_zero_row_is_empty(M):
    """A zero row (or no row at all) leaves no arrangement: no hyperplanes, rank 0,
    nothing to orient; the rows, their primitive integer rows and the number of columns
    are kept, and the zero rows are listed (none for no rows). Such a pattern is empty,
    and the stream yields no block."""
    from verify.linalg.exact import primitive_integer_row, to_fmpq_rows

    R = reduce_matrix(M)
    rows = to_fmpq_rows(M)
    assert R.rows == rows and R.ints == [primitive_integer_row(row) for row in rows]
    assert R.k == (len(M[0]) if M else 0)
    assert R.zero_rows == [i for i, row in enumerate(M) if not any(row)]
    assert R.H.shape == (0, 0) and len(R.plane) == 0 and len(R.sign) == 0
    assert R.basis == [] and R.rank == 0
    assert list(sign_pattern_blocks(M)) == []


def test_entries_near_2_31_in_rank_2_need_python_integers():
    """Twelve lines of ``R^2`` with entries near ``2^31.3``: the products ``h . v`` of a
    normal with a line's vector reach ``2^63``, so ``int64`` would wrap; the overflow
    bound must choose Python integers, and the topes and witnesses are the reference's."""
    rng = np.random.default_rng(7)
    B = 2_643_056_000   # about 2^31.3, so 2 B^2 > 2^63 and 0.5 B^2 < 2^62
    H = [[int(s) * (B - int(a)) for s, a in zip(rng.choice([-1, 1], 2),
                                                 rng.integers(0, 2 ** 20, 2))]
         for _ in range(12)]
    assert max(abs(sum(h * x for h, x in zip(row, v))) for row in H
               for v in ref_lines(H).values()) >= 2 ** 63
    signs, points = enumerate_topes(np.array(H, dtype=object))
    expected = ref_topes(H, brute_force=False)
    rows = [tuple(int(s) for s in row) for row in signs]
    assert rows == sorted(expected)
    assert [tuple(int(a) for a in p) for p in points] == [expected[T] for T in rows]


@pytest.mark.parametrize("rank", [cocircuit_module.MEMO_MIN_RANK - 1,
                                  cocircuit_module.MEMO_MIN_RANK,
                                  cocircuit_module.MEMO_MIN_RANK + 1])
def test_integer_chirotopes_share_the_flat_memo_of_their_matrix_from_its_rank_on(
        monkeypatch, rank):
    # From MEMO_MIN_RANK on, a chirotope keeps the process's flat memo of its matrix
    # (the same object for an equal matrix); below it, none. Its signs are those of
    # FLINT's determinants either way.
    monkeypatch.setattr(cocircuit_module, "_LAST_MEMO", [None, None])
    H = np.random.default_rng(rank).integers(-5, 6, size=(rank + 2, rank)).astype(np.int64)
    chirotope = IntegerChirotope(H)
    if rank >= cocircuit_module.MEMO_MIN_RANK:
        assert chirotope.memo is not None
        assert chirotope.memo is cocircuit_module._memo_of(H.copy())
        assert IntegerChirotope(H.copy()).memo is chirotope.memo
    else:
        assert chirotope.memo is None
    rest = list(range(rank - 1))
    signs = chirotope.signs_with(rest, [rank - 1, rank, rank + 1])
    for element, sign in zip([rank - 1, rank, rank + 1], np.asarray(signs).ravel()):
        expected = fmpz_mat(H[[element] + rest].tolist()).det()
        assert int(sign) == (expected > 0) - (expected < 0)
