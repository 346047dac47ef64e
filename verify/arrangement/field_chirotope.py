"""The chirotope of a matrix over ``Q(sqrt 2, sqrt 3, ...)``, every sign certified.

Given ``P`` (``K x r``, rank ``r``) with entries :class:`~verify.numbers.sqrt_sum.SqrtSum`,
compute ``chi(I) = sign det P[I]`` for all ``C(K, r)`` row subsets ``I`` exactly, and
fast, without any knowledge of where ``P`` came from.

Mathematics
-----------
1. (Non-zero minors: a rigorous integer filter.) Let ``A`` be integers with
   ``|2^(p_i) P_ij - A_ij| <= delta`` (:meth:`SqrtSum.fixed_point`, integer square
   roots; one power of two per row, chosen so that every row of ``A`` has entries of
   about ``2^48``), and ``B >= |A_ij|``. Scaling rows by positive numbers changes no
   sign of a minor. For a ``k x k`` submatrix, multilinearity in the rows and
   Hadamard's inequality give

       |det(D P[I, J]) - det A[I, J]| <= k^(k/2) ((B + delta)^k - B^k) =: E_k

   (``D = diag(2^(p_i))``), so ``|det A[I, J]| > E_k`` decides
   ``sign det P[I, J] = sign det A[I, J]``. All
   minors of ``A`` of every size come exactly, and at once, from its compound matrices
   (:mod:`verify.arrangement.compound`).
2. (Zero minors: dependencies, certified and propagated.) A minor the filter cannot
   decide is usually exactly zero. Sets ``D`` of ``k < r`` rows whose ``k``-minors are
   all undecided are taken smallest first; one already implied by the rules below is
   dependent at no cost. Otherwise take the first ``x in D`` for which the filter
   proves some ``det P[D - x, J] != 0`` (``J``: ``k - 1`` columns; if there is none,
   ``D`` is left alone); then ``rank P[D] = k - 1`` iff the ``r - k + 1`` bordered
   minors ``det P[D, J + c]`` vanish, decided by exact determinants over the field
   (zero test exact by Besicovitch's theorem). A ``D`` so certified gives the rules
   ``D - y => y`` (``y`` lies in the span of ``D - y``) for every ``y`` with ``D - y``
   proved independent. Rules come only from such certified sets and from the exact
   zero determinants of step 3.
3. An undecided ``r``-subset ``I`` is zero if it contains a certified dependent set, or
   if ``I`` lies in the closure of an independent ``(r-1)``-subset ``S`` of ``I`` under
   the rules (forward chaining; every element of the closure is in ``span P[S]``, so
   every ``r``-subset of it has determinant 0, and all of them are marked at once).
   Whatever remains is decided by its exact ``r x r`` determinant; a zero one is a
   certified dependent set like those of step 2, and adds its rules.

No floating-point number decides anything: the filter is integer arithmetic with a
proved error bound, and the rest is exact algebra. Counts of each kind of decision are
reported in ``stats``.

References
----------
A. S. Besicovitch, On the linear independence of fractional powers of integers,
J. London Math. Soc. 15 (1940). For the filter: the floating-point filters of exact
geometric computation (Fortune & Van Wyk 1996), here with integers instead of floats.

Example
-------
>>> from verify.numbers.sqrt_sum import SqrtSum
>>> r2 = SqrtSum.sqrt(2)
>>> chi = certified_chirotope([[1, 0], [0, 1], [r2, r2], [1, 1]])
>>> chi.table.tolist()        # {0,1}, {0,2}, {1,2}, {0,3}, {1,3}, {2,3}
[1, 1, -1, 1, -1, 0]
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations
from math import comb

import numpy as np

from verify.arrangement.compound import column_subsets, compound_matrices
from verify.arrangement.oriented_matroid import TableChirotope, binomial_table, colex_rank
from verify.io.errors import TooLargeError
from verify.numbers.rational import isqrt
from verify.numbers.sqrt_sum import as_sqrt_sum, det

#: Bits of the fixed-point approximation of the filter.
FIXED_POINT_BITS = 48
#: Refuse chirotopes with more signs than this (memory: about 80 bytes per sign).
MAX_SIGNS = 12_000_000


def certified_chirotope(P, *, stats: dict | None = None) -> TableChirotope:
    """``sign det P[I]`` for every ``r``-subset ``I`` of rows of ``P`` (``K x r``,
    rank ``r``), exactly. See the module docstring for the method."""
    rows = [[as_sqrt_sum(a) for a in row] for row in P]
    K, r = len(rows), len(rows[0])
    if comb(K, r) > MAX_SIGNS:
        raise TooLargeError(f"{K} vectors in rank {r} have {comb(K, r):,} maximal minors "
                            f"(limit {MAX_SIGNS:,})")
    filt = _Filter(rows)
    table = np.sign(filt.minors[r][:, 0]).astype(np.int8)
    undecided = ~filt.decided[r][:, 0]
    table[undecided] = 0
    counts = {"filter": int((~undecided).sum()), "contains_dependent_set": 0,
              "closure": 0, "exact": 0, "dependencies_certified": 0}
    if undecided.any():
        _decide_rest(rows, filt, table, undecided, counts)
    if stats is not None:
        for key, value in counts.items():
            stats[f"chirotope_{key}"] = stats.get(f"chirotope_{key}", 0) + value
    return TableChirotope(K, r, table)


class _Filter:
    """All minors of the fixed-point matrix, and which of them the filter decides."""

    def __init__(self, rows):
        K, r = len(rows), len(rows[0])
        # Row i is approximated at its own scale 2^shift_i, so that its largest entry
        # is about 2^FIXED_POINT_BITS: det of the scaled rows is a positive multiple of
        # det P[I] (same sign), and one bound B then serves rows of any size.
        shifts = [FIXED_POINT_BITS - _row_magnitude(row) for row in rows]
        approx = [[a.fixed_point(shift) for a in row] for row, shift in zip(rows, shifts)]
        A = np.array([[m for m, _ in row] for row in approx], dtype=object)
        delta = max(e for row in approx for _, e in row)
        bound = max(abs(int(a)) for a in A.ravel())
        self.K, self.r = K, r
        self.minors = [None] + compound_matrices(A, r)
        self.decided = [None]
        for k in range(1, r + 1):
            error = (isqrt(k ** k) + 1) * ((bound + delta) ** k - bound ** k)
            self.decided.append(np.abs(self.minors[k]) > error)
        self.columns = [None] + [column_subsets(r, k) for k in range(1, r + 1)]
        self.binomials = binomial_table(K, r)

    def rank_of(self, subset) -> int:
        return int(colex_rank(np.array(subset, dtype=np.int64), self.binomials))

    def independent(self, subset) -> tuple[int, ...] | None:
        """Columns of a minor of ``P[subset]`` that the filter proves non-zero, if any."""
        k = len(subset)
        if k == 0:
            return ()
        hits = np.nonzero(self.decided[k][self.rank_of(subset)])[0]
        return self.columns[k][hits[0]] if len(hits) else None


def _row_magnitude(row) -> int:
    """An integer close to ``log2 max |a|`` over the row (0 for a zero row), from bit
    lengths only; it sets a precision, so it need not be exact."""
    sizes = [int(q.p).bit_length() - int(q.q).bit_length() + r.bit_length() // 2
             for a in row for r, q in a.terms]
    return max(sizes, default=0)


class _Rules:
    """Rules ``premise => conclusion`` (conclusion in the span of the premise), and
    closure by forward chaining."""

    def __init__(self):
        self.rules: list[tuple[tuple[int, ...], int]] = []
        self.watch: dict[int, list[int]] = defaultdict(list)
        self.loops: set[int] = set()

    def add(self, premise, conclusion) -> None:
        self.rules.append((tuple(premise), conclusion))
        for p in premise:
            self.watch[p].append(len(self.rules) - 1)
        if not premise:   # a zero vector: in every span
            self.loops.add(conclusion)

    def closure(self, start) -> set[int]:
        closed = set(start) | self.loops
        queue = list(closed)
        missing: dict[int, int] = {}
        while queue:
            x = queue.pop()
            for i in self.watch.get(x, ()):
                premise, conclusion = self.rules[i]
                left = missing.get(i, len(premise)) - 1
                missing[i] = left
                if left == 0 and conclusion not in closed:
                    closed.add(conclusion)
                    queue.append(conclusion)
        return closed


def _decide_rest(rows, filt: _Filter, table, undecided, counts) -> None:
    K, r = filt.K, filt.r
    rules = _Rules()
    dependent = [None] + [np.zeros(comb(K, k), dtype=bool) for k in range(1, r)]
    # Step 2: sets of k < r rows whose k-minors are all undecided, smallest first.
    for k in range(2, r):
        suspects = np.nonzero(~filt.decided[k].any(axis=1))[0]
        if len(suspects) == 0:
            continue
        subsets = _subsets_at(K, k, suspects)
        contained = _contains_dependent(subsets, dependent, filt.binomials)
        for index, D, inside in zip(suspects, subsets, contained):
            D = tuple(int(x) for x in D)
            if inside or _implied(D, rules):
                dependent[k][index] = True
                continue
            if _certify_dependent(rows, filt, D):
                counts["dependencies_certified"] += 1
                dependent[k][index] = True
                for y in D:
                    rest = tuple(x for x in D if x != y)
                    if filt.independent(rest) is not None:
                        rules.add(rest, y)
    # Step 3: the undecided maximal minors.
    todo = np.nonzero(undecided)[0]
    subsets = _subsets_at(K, r, todo)
    contained = _contains_dependent(subsets, dependent, filt.binomials)
    counts["contains_dependent_set"] = int(contained.sum())
    zero = np.zeros(len(table), dtype=bool)
    zero[todo[contained]] = True
    for index, I in zip(todo, subsets):
        if zero[index]:
            continue
        I = tuple(int(x) for x in I)
        basis = next((S for S in combinations(I, r - 1) if filt.independent(S) is not None),
                     None)
        if basis is not None:
            closed = rules.closure(basis)
            if set(I) <= closed:
                marked = _mark_all(sorted(closed), r, filt, zero)
                counts["closure"] += marked
                continue
        counts["exact"] += 1
        value = det([rows[i] for i in I]).sign()
        if value:
            table[index] = value
            continue
        zero[index] = True
        counts["dependencies_certified"] += 1
        # I is dependent: y is in the span of I - y whenever I - y is independent
        for y in I:
            rest = tuple(x for x in I if x != y)
            if filt.independent(rest) is not None:
                rules.add(rest, y)
        if basis is not None:
            counts["closure"] += _mark_all(sorted(rules.closure(basis)), r, filt, zero)


def _mark_all(closed, r, filt: _Filter, zero) -> int:
    """Mark every ``r``-subset of ``closed`` (a set of rank < r) as zero; count new ones."""
    found = list(combinations(closed, r))
    subsets = np.array(found, dtype=np.int64).reshape(len(found), r)
    ranks = colex_rank(subsets, filt.binomials)
    if filt.decided[r][ranks, 0].any():
        raise AssertionError("internal error: a minor proved non-zero lies in a "
                             "proved dependent set")
    new = int((~zero[ranks]).sum())
    zero[ranks] = True
    return new


def _implied(D, rules: _Rules) -> bool:
    """True if some element of ``D`` is in the closure of the others."""
    return any(y in rules.closure(tuple(x for x in D if x != y)) for y in D)


def _certify_dependent(rows, filt: _Filter, D) -> bool:
    """Exact proof that ``rank P[D] < |D|`` by bordered minors (module docstring, 2)."""
    for y in D:
        rest = tuple(x for x in D if x != y)
        J = filt.independent(rest)
        if J is None:
            continue
        for c in range(filt.r):
            if c in J:
                continue
            cols = sorted(J + (c,))
            if det([[rows[i][j] for j in cols] for i in D]).sign() != 0:
                return False
        return True
    return False


def _subsets_at(K, k, ranks) -> np.ndarray:
    """The ``k``-subsets with the given colexicographic indices (sorted rows)."""
    out = np.zeros((len(ranks), k), dtype=np.int64)
    rest = np.array(ranks, dtype=np.int64)
    binomials = binomial_table(K, k)
    for j in range(k, 0, -1):
        # the largest c with C(c, j) <= rest
        c = np.searchsorted(binomials[:, j], rest, side="right") - 1
        out[:, j - 1] = c
        rest = rest - binomials[c, j]
    return out


def _contains_dependent(subsets: np.ndarray, dependent, binomials) -> np.ndarray:
    """For each row, whether some proper subset is marked in ``dependent``."""
    n, size = subsets.shape
    found = np.zeros(n, dtype=bool)
    for k in range(2, size):
        if not dependent[k].any():
            continue
        for positions in combinations(range(size), k):
            found |= dependent[k][colex_rank(subsets[:, list(positions)], binomials)]
    return found
