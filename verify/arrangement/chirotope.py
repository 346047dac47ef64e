"""Sign patterns of matrices with real algebraic entries, from their chirotope.

The cosine matrix ``C(M)`` has entries ``w_i . w_j / (|w_i| |w_j|)``, square roots of
rationals. Its sign pattern is computed here without ever leaving exact arithmetic and
without the row and column scalings that relate ``C(M)`` to ``M`` (those are the proof
of Lemma 5.3, not a check of it).

Mathematics
-----------
Let ``H`` (``N x k``) have entries in an ordered field ``K`` in which we can decide signs
exactly (here: sums of square roots, :class:`verify.numbers.sqrt_sum.SqrtSum`).

1. A column basis ``B`` of ``H`` is found by exact Gaussian elimination over ``K``;
   ``S(H) = S(H[:, B])``, and ``H[:, B]`` has full column rank ``r``.
2. Parallel rows are one hyperplane (proportionality decided exactly).
3. The *chirotope* of the row configuration is ``chi(I) = sign det H[I, B]`` for
   ``r``-subsets ``I``. For an ``(r-1)``-subset ``S`` of independent rows, the
   cocircuit through the line ``span(H_S)^perp`` has entries
   ``Y_i = sign det [h_i ; H_S] = chi(i, S)``. The topes are the compositions ``Y o T'``
   of cocircuits with the topes ``T'`` of their localisations, exactly as in
   :mod:`verify.arrangement.cocircuits` (Björner et al., *Oriented Matroids*, §3.7).
   Only signs of determinants are used: the oriented matroid, and so the sign pattern,
   is a function of the chirotope.

Deciding a sign: each determinant is first enclosed in a ball with ``arb`` (rigorous
ball arithmetic: the true value is inside); a ball that excludes 0 decides the sign.
A ball containing 0 is decided by the exact determinant over ``K`` (division-free),
whose zero test is exact because square roots of distinct squarefree integers are
linearly independent over Q. No floating-point number decides anything.

A witness of a tope is the sum of the exact vertex vectors ``v(S)`` (signed maximal
minors of ``H_S``) of its vertices, as in the integer engine; witnesses are computed on
request (``witnesses=True``), since they cost exact arithmetic over ``K``.
"""

from __future__ import annotations

from itertools import combinations, product

from flint import arb_mat, ctx

from verify.numbers.sqrt_sum import SqrtSum, as_sqrt_sum, det

#: Working precision (bits) of the ball-arithmetic filter.
FILTER_PRECISION = 128


def exact_sign(x) -> int:
    return x.sign() if isinstance(x, SqrtSum) else (x > 0) - (x < 0)


def exact_column_basis(H) -> list[int]:
    """Pivot columns of ``H`` by exact Gaussian elimination over the field of its entries."""
    rows = [[as_sqrt_sum(a) for a in row] for row in H]
    if not rows:
        return []
    pivots = []
    work = [list(row) for row in rows]
    top = 0
    for j in range(len(rows[0])):
        pivot_row = next((i for i in range(top, len(work)) if not work[i][j].is_zero()), None)
        if pivot_row is None:
            continue
        work[top], work[pivot_row] = work[pivot_row], work[top]
        inv = work[top][j].inverse()
        for i in range(top + 1, len(work)):
            if not work[i][j].is_zero():
                f = work[i][j] * inv
                work[i] = [a - f * b for a, b in zip(work[i], work[top])]
        pivots.append(j)
        top += 1
        if top == len(work):
            break
    return pivots


class ChirotopeOracle:
    """Signs of ``det [rows I]`` of a fixed ``N x r`` matrix over ``K``, memoised.

    Balls first (:data:`FILTER_PRECISION` bits), the exact determinant when the ball
    contains 0. Counts of both kinds are kept for reporting.
    """

    def __init__(self, H):
        self.H = [[as_sqrt_sum(a) for a in row] for row in H]
        self.r = len(self.H[0])
        with ctx.workprec(FILTER_PRECISION):
            self.balls = [[a._enclosure(FILTER_PRECISION) for a in row] for row in self.H]
        self.memo: dict[tuple[int, ...], int] = {}
        self.exact_calls = 0
        self.ball_calls = 0

    def sign(self, rows: tuple[int, ...]) -> int:
        """``sign det H[rows]`` for an ordered tuple of ``r`` row indices."""
        key = tuple(sorted(rows))
        if len(set(key)) < len(key):
            return 0
        parity = _permutation_parity(rows, key)
        s = self.memo.get(key)
        if s is None:
            s = self._decide(key)
            self.memo[key] = s
        return -s if parity else s

    def _decide(self, key) -> int:
        self.ball_calls += 1
        with ctx.workprec(FILTER_PRECISION):
            ball = arb_mat([self.balls[i] for i in key]).det()
        if ball > 0:
            return 1
        if ball < 0:
            return -1
        self.exact_calls += 1
        return det([self.H[i] for i in key]).sign()


def _permutation_parity(order, sorted_order) -> int:
    """Parity (0 even, 1 odd) of the permutation taking ``sorted_order`` to ``order``."""
    position = {x: i for i, x in enumerate(sorted_order)}
    perm = [position[x] for x in order]
    parity, seen = 0, [False] * len(perm)
    for i in range(len(perm)):
        if not seen[i]:
            j, length = i, 0
            while not seen[j]:
                seen[j] = True
                j = perm[j]
                length += 1
            parity ^= (length - 1) & 1
    return parity


def field_topes(H, *, witnesses: bool = False, stats: dict | None = None):
    """Topes of the arrangement with normals the rows of ``H`` (entries in ``K``).

    Returns a sorted list of sign tuples over the rows of ``H`` (no zero rows allowed:
    the caller reports those), and, if ``witnesses``, a dict tope -> exact point in
    ``K^k`` with ``sign(H z) = tope``.
    """
    rows = [[as_sqrt_sum(a) for a in row] for row in H]
    k = len(rows[0])
    basis = exact_column_basis(rows)
    reduced = [[row[j] for j in basis] for row in rows]
    normals, of_row, orientation = _parallel_classes(reduced)
    topes, points = _essential_topes(normals, witnesses, stats)
    out, lifted = [], {}
    for t in topes:
        signs = tuple(o * t[c] for c, o in zip(of_row, orientation))
        out.append(signs)
        if witnesses:
            z = [SqrtSum(0)] * k
            for j, a in zip(basis, points[t]):
                z[j] = a
            lifted[signs] = z
    out.sort()
    return (out, lifted) if witnesses else out


def _parallel_classes(rows):
    """Group rows that are multiples of each other (exactly); orientation = sign of factor."""
    normals, of_row, orientation = [], [], []
    for row in rows:
        lead = next(j for j, a in enumerate(row) if not a.is_zero())
        for c, normal in enumerate(normals):
            if normal[lead].is_zero():
                continue
            # row = (row[lead] / normal[lead]) * normal iff all 2x2 minors vanish
            if all((row[j] * normal[lead] - normal[j] * row[lead]).is_zero()
                   for j in range(len(row))):
                of_row.append(c)
                orientation.append(row[lead].sign() * normal[lead].sign())
                break
        else:
            of_row.append(len(normals))
            orientation.append(1)
            normals.append(row)
    return normals, of_row, orientation


def _essential_topes(H, witnesses: bool, stats):
    """Topes (over the rows of ``H``, ``K x r`` of rank ``r``, pairwise non-parallel)."""
    K, r = len(H), len(H[0])
    if r == 1:
        s = tuple(a[0].sign() for a in H)
        neg = tuple(-x for x in s)
        pts = {s: [SqrtSum(1)], neg: [SqrtSum(-1)]}
        return [s, neg], pts
    chi = ChirotopeOracle(H)
    lines: dict[tuple[int, ...], tuple[int, ...]] = {}  # cocircuit -> a subset S defining it
    for S in combinations(range(K), r - 1):
        if not _independent(chi, S, K):
            continue
        Y = [0] * K
        for i in range(K):
            if i not in S:
                Y[i] = chi.sign((i,) + S)
        lead = next(y for y in Y if y)
        Y = tuple(Y) if lead > 0 else tuple(-y for y in Y)
        lines.setdefault(Y, S)
    if stats is not None:
        stats["ball_determinants"] = stats.get("ball_determinants", 0) + chi.ball_calls
        stats["exact_determinants"] = stats.get("exact_determinants", 0) + chi.exact_calls
    topes: dict[tuple[int, ...], list] = {}
    for Y, S in sorted(lines.items()):
        Z = [i for i, y in enumerate(Y) if y == 0]
        if len(Z) == r - 1:
            local = list(product((1, -1), repeat=r - 1))
        else:
            local = field_topes([H[i] for i in Z], stats=stats)
        v = _vertex_vector(H, S, Y) if witnesses else None
        for sign_of_line in (1, -1):
            for t in local:
                T = [sign_of_line * y for y in Y]
                for i, s in zip(Z, t):
                    T[i] = s
                T = tuple(T)
                gens = topes.setdefault(T, [])
                if witnesses:
                    gens.append([sign_of_line * a for a in v])
    order = sorted(topes)
    if not witnesses:
        return order, None
    points = {T: [sum(col, SqrtSum(0)) for col in zip(*topes[T])] for T in order}
    return order, points


def _independent(chi: ChirotopeOracle, S, K) -> bool:
    """True iff the rows ``S`` (``r - 1`` of them) are linearly independent.

    They are iff some ``det [h_i ; H_S]`` is non-zero, because the rows span ``K^r``.
    """
    return any(chi.sign((i,) + S) != 0 for i in range(K) if i not in S)


def _vertex_vector(H, S, Y):
    """The exact vector on the line of ``S`` with ``sign(H v) = Y``: signed maximal minors."""
    r = len(H[0])
    rows = [H[i] for i in S]
    v = [(-1) ** j * det([[row[c] for c in range(r) if c != j] for row in rows])
         for j in range(r)]
    i = next(i for i, y in enumerate(Y) if y)
    value = sum((a * b for a, b in zip(H[i], v)), SqrtSum(0))
    return v if value.sign() == Y[i] else [-a for a in v]
