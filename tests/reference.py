"""Independent reference implementations for sign patterns and ranking patterns.

Nothing here imports ``verify``: these functions are the yardstick the engine is
measured against, so they deliberately use different mathematics and different
code paths.

Notation
--------
For ``M`` in Q^{N x k} the *sign pattern* is

    S(M) = { sign(M z) : z in R^k, (M z)_i != 0 for every i }  subset of {+,-}^N,

written as strings over ``'+'`` / ``'-'``.  Equivalently, S(M) lists the regions
(topes) of the central hyperplane arrangement in R^k whose normals are the rows
of ``M``; parallel rows describe the same hyperplane, and a zero row makes S(M)
empty (no z makes that entry non-zero).

Three independent ways to get at S(M) or |S(M)| are provided:

* :func:`brute_force_sign_pattern` decides every orthant of R^N exactly, each
  with a certificate: a rational witness point from an exact LP (sympy's
  simplex) or a Gordan certificate of emptiness (a conformal signed circuit).
* :func:`zaslavsky_region_count` builds the intersection lattice with exact
  linear algebra and applies Zaslavsky's theorem,
  r(A) = sum_{X in L(A)} |mu(0, X)|  (T. Zaslavsky, "Facing up to arrangements",
  Mem. Amer. Math. Soc. 154, 1975; see also R. P. Stanley, "An introduction to
  hyperplane arrangements", Thm. 2.5).
* :func:`whitney_region_count` uses Whitney's subset expansion of the
  characteristic polynomial, chi(t) = sum_{S} (-1)^{|S|} t^{k - rank S}
  (Stanley, Lemma 2.3), and r = (-1)^k chi(-1).

Closed forms: :func:`generic_central_count` (N generic central hyperplanes) and
:func:`generic_ranking_count` (Cover 1967; Good and Tideman 1977).
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from itertools import combinations
from typing import Any, Iterable, Sequence

__all__ = [
    "to_fraction",
    "as_fraction_matrix",
    "sign_string",
    "braid_rows",
    "product",
    "prepend_ones",
    "matrix_rank",
    "signed_circuits",
    "brute_force_sign_pattern",
    "brute_force_witnesses",
    "primitive_normals",
    "intersection_lattice",
    "characteristic_polynomial",
    "zaslavsky_region_count",
    "whitney_characteristic_polynomial",
    "whitney_region_count",
    "generic_central_count",
    "unsigned_stirling_first",
    "generic_ranking_count",
    "is_strict_total_order",
]

BRUTE_FORCE_MAX_ROWS = 12
WHITNEY_MAX_ROWS = 14


# ---------------------------------------------------------------------------
# Exact number handling
# ---------------------------------------------------------------------------


def to_fraction(x: Any) -> Fraction:
    """Convert an exact rational scalar to :class:`fractions.Fraction`.

    Accepts ``int`` (and numpy integers), ``Fraction``, ``flint.fmpz``,
    ``flint.fmpq``, sympy rationals and strings such as ``"-4/5"``.  Floats are
    refused: a reference that silently rounds would defeat its purpose.
    """
    if isinstance(x, bool):
        return Fraction(int(x))
    if isinstance(x, float):
        raise TypeError(f"refusing inexact float entry {x!r}")
    if isinstance(x, numbers.Rational):
        return Fraction(int(x.numerator), int(x.denominator))
    if isinstance(x, str):
        return Fraction(x)
    # flint.fmpq exposes p/q, flint.fmpz behaves like an integer; sympy
    # Rational exposes p/q as well.
    if hasattr(x, "p") and hasattr(x, "q"):
        return Fraction(int(x.p), int(x.q))
    if hasattr(x, "numerator") and hasattr(x, "denominator"):
        return Fraction(int(x.numerator), int(x.denominator))
    try:
        return Fraction(int(x))
    except (TypeError, ValueError) as exc:  # pragma: no cover - defensive
        raise TypeError(f"not an exact rational: {x!r}") from exc


def as_fraction_matrix(M: Sequence[Sequence[Any]]) -> list[list[Fraction]]:
    """``M`` as a rectangular list of lists of Fractions (ValueError if ragged)."""
    rows = [[to_fraction(x) for x in row] for row in M]
    if rows:
        k = len(rows[0])
        if any(len(r) != k for r in rows):
            raise ValueError("ragged matrix")
    return rows


def _ncols(rows: list[list[Fraction]]) -> int:
    return len(rows[0]) if rows else 0


def sign_string(M: Sequence[Sequence[Any]], z: Sequence[Any]) -> str | None:
    """The exact sign string of ``M z``, or ``None`` if some entry is zero."""
    zf = [to_fraction(x) for x in z]
    out = []
    for row in as_fraction_matrix(M):
        if len(row) != len(zf):
            raise ValueError("dimension mismatch between M and z")
        v = sum((a * b for a, b in zip(row, zf)), Fraction(0))
        if v == 0:
            return None
        out.append("+" if v > 0 else "-")
    return "".join(out)


# ---------------------------------------------------------------------------
# Small matrix helpers (own constructions, not the engine's)
# ---------------------------------------------------------------------------


def braid_rows(n: int) -> list[list[int]]:
    """The braid matrix B_n: rows e_i - e_j for i < j, pairs in lexicographic order.

    B_n has C(n, 2) rows and n columns; row (i, j) of B_n W is w_i - w_j, so the
    sign of (B_n W z)_(i,j) says whether label i scores above label j.
    """
    rows = []
    for i, j in combinations(range(n), 2):
        row = [0] * n
        row[i] = 1
        row[j] = -1
        rows.append(row)
    return rows


def product(A: Sequence[Sequence[Any]], B: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """Matrix product A B by the textbook triple loop (exact for int/Fraction).

    ``B`` must have as many rows as ``A`` has columns.  An empty ``A`` gives an
    empty product.
    """
    if not A:
        return []
    inner = len(A[0])
    if len(B) != inner:
        raise ValueError(f"shape mismatch: A has {inner} columns, B has {len(B)} rows")
    ncols = len(B[0]) if B else 0
    return [
        [sum((A[i][t] * B[t][j] for t in range(inner)), 0) for j in range(ncols)]
        for i in range(len(A))
    ]


def prepend_ones(W: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """[1 | W]: the affine (homogenised) version of a point configuration."""
    return [[1, *row] for row in W]


# ---------------------------------------------------------------------------
# Exact Gaussian elimination (pure Python; the Zaslavsky count uses flint instead)
# ---------------------------------------------------------------------------


def _rref(rows: list[list[Fraction]]) -> tuple[list[list[Fraction]], list[int]]:
    """Reduced row echelon form of a Fraction matrix and its pivot columns."""
    R = [list(r) for r in rows]
    ncols = len(R[0]) if R else 0
    pivots: list[int] = []
    top = 0
    for c in range(ncols):
        p = next((i for i in range(top, len(R)) if R[i][c] != 0), None)
        if p is None:
            continue
        R[top], R[p] = R[p], R[top]
        lead = R[top][c]
        R[top] = [x / lead for x in R[top]]
        for i in range(len(R)):
            if i != top and R[i][c] != 0:
                f = R[i][c]
                R[i] = [x - f * y for x, y in zip(R[i], R[top])]
        pivots.append(c)
        top += 1
        if top == len(R):
            break
    return R[:top], pivots


def _dependencies(vectors: list[list[Fraction]]) -> list[list[Fraction]]:
    """A basis of { lam : sum_i lam_i v_i = 0 } (the left kernel of the rows)."""
    j = len(vectors)
    if j == 0:
        return []
    k = len(vectors[0])
    columns = [[vectors[i][r] for i in range(j)] for r in range(k)]  # k x j
    R, pivots = _rref(columns)
    free = [c for c in range(j) if c not in pivots]
    basis = []
    for f in free:
        lam = [Fraction(0)] * j
        lam[f] = Fraction(1)
        for row, p in zip(R, pivots):
            lam[p] = -row[f]
        basis.append(lam)
    return basis


def solve_fraction(columns, target) -> list[Fraction] | None:
    """The unique solution of sum_k lam_k columns[k] = target, or None (Gauss-Jordan)."""
    N = len(columns)
    A = [[Fraction(columns[k][r]) for k in range(N)] + [Fraction(target[r])]
         for r in range(N)]
    for c in range(N):
        p = next((r for r in range(c, N) if A[r][c] != 0), None)
        if p is None:
            return None
        A[c], A[p] = A[p], A[c]
        for r in range(N):
            if r != c and A[r][c] != 0:
                f = A[r][c] / A[c][c]
                A[r] = [x - f * y for x, y in zip(A[r], A[c])]
    return [A[r][N] / A[r][r] for r in range(N)]


def matrix_rank(M: Sequence[Sequence[Any]]) -> int:
    """Exact rank by Fraction elimination."""
    rows = as_fraction_matrix(M)
    return len(_rref(rows)[1]) if rows else 0


# ---------------------------------------------------------------------------
# 1. Brute force over orthants: exact LP witnesses, Gordan certificates
# ---------------------------------------------------------------------------


def signed_circuits(M: Sequence[Sequence[Any]]) -> list[tuple[tuple[int, ...], tuple[Fraction, ...]]]:
    """The circuits of the row matroid of M with their signed dependencies.

    A circuit is a minimal linearly dependent set C of rows; its dependency
    sum_{i in C} lam_i m_i = 0 is unique up to scale and has every lam_i != 0.
    Returned as ``(C, lam)``, one orientation per circuit (-lam is the other).
    C is a circuit iff the space of dependencies of the rows in C is
    one-dimensional and spanned by a vector of full support.  Circuits have at
    most rank(M) + 1 elements, so only subsets up to that size are examined.
    A zero row is a circuit of size 1 (a loop); two parallel rows form one of
    size 2.  Each dependency is re-checked exactly before it is returned.
    """
    rows = as_fraction_matrix(M)
    r = len(_rref(rows)[1]) if rows else 0
    out = []
    for size in range(1, min(len(rows), r + 1) + 1):
        for C in combinations(range(len(rows)), size):
            deps = _dependencies([rows[i] for i in C])
            if len(deps) != 1 or any(x == 0 for x in deps[0]):
                continue
            lam = tuple(deps[0])
            for col in range(len(rows[0])):
                if sum((l * rows[i][col] for l, i in zip(lam, C)), Fraction(0)) != 0:
                    raise AssertionError("dependency check failed")  # cannot happen
            out.append((C, lam))
    return out


def _circuit_masks(circuits) -> list[tuple[int, int]]:
    """(support bitmask, bitmask of the positive part) for each signed circuit."""
    masks = []
    for C, lam in circuits:
        support = sum(1 << i for i in C)
        positive = sum(1 << i for i, l in zip(C, lam) if l > 0)
        masks.append((support, positive))
    return masks


def _gordan_blocked(plus_mask: int, masks: list[tuple[int, int]]) -> bool:
    """Is there a signed circuit X conformal to s (X_i = s_i on supp X, or X_i = -s_i)?

    ``plus_mask`` has bit i set iff s_i = '+'.  If X = sign(lam) agrees with s
    on C, then y_i = lam_i s_i > 0 on C and sum_i y_i (s_i m_i) = 0, so
    s_i (m_i . z) > 0 for all i is impossible: the orthant is empty.
    """
    for support, positive in masks:
        on_support = plus_mask & support
        if on_support == positive or on_support == support ^ positive:
            return True
    return False


def _orthant_witness(
    rows: list[list[Fraction]], signs: Sequence[int], k: int
) -> tuple[Fraction, ...] | None:
    """A point z with s_i (m_i . z) >= 1 for all i, or None if there is none.

    The open cone {z : s_i (m_i . z) > 0} is non-empty iff the closed system
    s_i (m_i . z) >= 1 is feasible (scale any interior point).  It is decided
    through the exact rational LP (z free, written z = u - w (1,...,1))

        maximise t  subject to  s_i m_i . (u - w 1) >= t  (all i),  t <= 1,
                                u in Q^k, w, t all >= 0,

    passed as ``linprog(c, A, b)`` with c = (0, 0, -1) (minimise -t).  The
    optimum is t = 1 (then z = u - w 1 is a witness) or t = 0 (empty cone).

    Two sympy 1.14 pitfalls shape this formulation:

    * ``bounds=(None, None)`` does not free the variables: they stay
      non-negative (``linprog([0], [[1]], [-1], bounds=(None, None))`` reports
      x <= -1 infeasible), so the free z is substituted by hand.
    * The phase-1 search of sympy's simplex can stop on an oscillation guard
      and then return a point that violates the constraints, or report a
      feasible system as infeasible.  With b >= 0 the origin is feasible, phase
      1 is skipped, and phase 2 uses Bland's rule, which terminates correctly.

    The returned point is re-checked with Fractions anyway.
    """
    from sympy import Matrix, Rational
    from sympy.solvers.simplex import linprog

    if not rows:
        return tuple(Fraction(0) for _ in range(k))
    A_rows = []
    for s, row in zip(signs, rows):
        a = [s * x for x in row]
        coeffs = [-x for x in a] + [sum(a, Fraction(0)), Fraction(1)]
        A_rows.append([Rational(x.numerator, x.denominator) for x in coeffs])
    A_rows.append([0] * (k + 1) + [1])
    A = Matrix(A_rows)
    b = Matrix([0] * len(rows) + [1])
    c = Matrix([[0] * (k + 1) + [-1]])
    optimum, solution = linprog(c, A, b)
    if optimum == 0:
        return None
    if optimum != -1:  # t is capped at 1 and t = 1 is reachable by scaling
        raise AssertionError(f"unexpected LP optimum {optimum}")
    values = [Fraction(int(x.p), int(x.q)) for x in (Rational(v) for v in solution)]
    w = values[k]
    z = tuple(values[i] - w for i in range(k))
    for s, row in zip(signs, rows):
        value = sum((a * b for a, b in zip(row, z)), Fraction(0))
        if s * value < 1:
            raise AssertionError(f"LP returned a point violating its constraints: {z}")
    return z


def _brute_force(M: Sequence[Sequence[Any]], lp_everywhere: bool) -> dict[str, tuple[Fraction, ...]]:
    rows = as_fraction_matrix(M)
    N, k = len(rows), _ncols(rows)
    if N > BRUTE_FORCE_MAX_ROWS:
        raise ValueError(f"brute force is limited to {BRUTE_FORCE_MAX_ROWS} rows, got {N}")
    if N == 0:
        return {"": ()}
    if k == 0:
        # R^0 = {0}: every entry of M z is zero, so no orthant is reached.
        return {}

    # M z only depends on z through the columns of M it combines, and the
    # column space is spanned by the pivot columns; solving in those
    # coordinates keeps the LPs small.  Witnesses are padded back with zeros.
    _, pivot_columns = _rref(rows)
    reduced = [[row[c] for c in pivot_columns] for row in rows]
    masks = _circuit_masks(signed_circuits(rows))

    found: dict[str, tuple[Fraction, ...]] = {}
    for bits in range(1 << (N - 1)):
        # Orthants with s_0 = '+'; z -> -z gives -s for free.
        signs = [1] + [1 if (bits >> i) & 1 else -1 for i in range(N - 1)]
        plus_mask = 1 | (bits << 1)
        blocked = _gordan_blocked(plus_mask, masks)
        if blocked and not lp_everywhere:
            continue
        z_reduced = _orthant_witness(reduced, signs, len(pivot_columns))
        if (z_reduced is None) != blocked:
            raise AssertionError(
                f"exact LP and Gordan certificate disagree on orthant {signs}"
            )
        if z_reduced is None:
            continue
        z = [Fraction(0)] * k
        for c, value in zip(pivot_columns, z_reduced):
            z[c] = value
        s = "".join("+" if x > 0 else "-" for x in signs)
        found[s] = tuple(z)
        found["".join("-" if x > 0 else "+" for x in signs)] = tuple(-x for x in z)
    return found


def brute_force_sign_pattern(M: Sequence[Sequence[Any]], *, lp_everywhere: bool = False) -> set[str]:
    """S(M) by deciding every orthant of R^N exactly, with a certificate (N <= 12).

    Orthant s in {+,-}^N belongs to S(M) iff the open cone
    C_s = {z : s_i (m_i . z) > 0 for all i} is non-empty.  Each of the 2^N
    orthants is settled by one of two exact certificates:

    * non-empty: a rational point z with s_i (m_i . z) >= 1, found by the
      exact LP of :func:`_orthant_witness` (``sympy.solvers.simplex.linprog``)
      and re-checked with Fractions;
    * empty: a Gordan certificate (P. Gordan, Math. Ann. 6 (1873) 23-28): some
      y >= 0, y != 0 with sum_i y_i s_i m_i = 0.  A support-minimal such y is
      supported on a circuit of the row matroid, so it suffices to look for a
      signed circuit conformal to s (see :func:`signed_circuits`).

    By Gordan's alternative exactly one of the two exists; if the LP finds no
    point where no circuit blocks, an AssertionError is raised rather than a
    guess returned.  By default the LP runs only on orthants without a Gordan
    certificate; ``lp_everywhere=True`` runs it on every orthant and demands
    that both methods agree everywhere (slow; meant for N <= 8).  The only
    symmetry used is z -> -z (s in S(M) iff -s in S(M)).

    A zero row is a circuit of size 1, so S(M) = {} without special casing; a
    matrix with no rows has S(M) = {""}.
    """
    return set(_brute_force(M, lp_everywhere))


def brute_force_witnesses(
    M: Sequence[Sequence[Any]], *, lp_everywhere: bool = False
) -> dict[str, tuple[Fraction, ...]]:
    """As :func:`brute_force_sign_pattern`, mapping each sign string to an exact witness z."""
    return _brute_force(M, lp_everywhere)


# ---------------------------------------------------------------------------
# 2. Intersection lattice and Zaslavsky's theorem
# ---------------------------------------------------------------------------


def _primitive(v: Iterable[Fraction | int]) -> tuple[int, ...]:
    """Canonical representative of the line through non-zero v: a primitive
    integer vector whose first non-zero entry is positive."""
    v = [to_fraction(x) for x in v]
    denominator = math.lcm(*(x.denominator for x in v)) if v else 1
    ints = [int(x * denominator) for x in v]
    g = math.gcd(*ints)
    if g == 0:
        raise ValueError("zero vector has no direction")
    lead = next(x for x in ints if x != 0)
    if lead < 0:
        g = -g
    return tuple(x // g for x in ints)


def primitive_normals(M: Sequence[Sequence[Any]]) -> list[tuple[int, ...]] | None:
    """The distinct hyperplanes of the arrangement defined by the rows of M.

    Each non-zero row is replaced by the primitive integer vector on its line
    (first non-zero entry positive), so parallel rows -- equal, negated or
    scaled -- collapse to one hyperplane.  Returns ``None`` if M has a zero row
    (then S(M) is empty).  Order: first occurrence.
    """
    seen: dict[tuple[int, ...], None] = {}
    for row in as_fraction_matrix(M):
        if all(x == 0 for x in row):
            return None
        seen.setdefault(_primitive(row), None)
    return list(seen)


def _annihilator(normals: list[tuple[int, ...]], basis: list[int], k: int):
    """A k x m integer matrix whose columns span span{normals[i] : i in basis}^perp."""
    from flint import fmpz_mat

    if not basis:
        return fmpz_mat([[int(i == j) for j in range(k)] for i in range(k)])
    X, nullity = fmpz_mat([list(normals[i]) for i in basis]).nullspace()
    return fmpz_mat([[X[i, j] for j in range(nullity)] for i in range(k)])


def intersection_lattice(
    M: Sequence[Sequence[Any]],
) -> tuple[list[tuple[int, ...]], list[dict[frozenset[int], list[frozenset[int]]]]]:
    """The intersection lattice L(A) of the central arrangement of M's rows.

    Returns ``(normals, levels)`` where ``normals`` are the distinct hyperplanes
    (see :func:`primitive_normals`) and ``levels[r]`` maps every flat of rank r
    to the list of flats of rank r-1 it covers.  A flat is represented by the
    frozenset of hyperplane indices containing it, i.e. a set of normals closed
    under linear span: X = { j : n_j in span(X) }.  Ordered by inclusion of
    these sets, flats form the (geometric) lattice L(A) ordered by reverse
    inclusion of subspaces.  ``levels[0] = {frozenset(): []}`` is the bottom
    (the whole space), and the unique top flat of rank r = rank(M) is the set of
    all hyperplanes (their common intersection, the centre).

    Construction: every flat of rank j+1 is the closure of (F + one hyperplane
    H) for some flat F of rank j.  The closure is computed exactly: with C_F an
    integer basis of span(F)^perp, the map q(v) = v C_F has kernel span(F), so
    n_j lies in span(F + n_H) iff q(n_j) is parallel to q(n_H) (or zero).
    Grouping the hyperplanes outside F by the direction of q(n_j) therefore
    lists all flats covering F at once.  Ranks are exact (flint integer
    nullspaces), and the result is validated against ``fmpq_mat.rank`` in the
    tests.

    Raises ``ValueError`` if M has a zero row (the arrangement is not defined).
    """
    from flint import fmpz_mat

    normals = primitive_normals(M)
    if normals is None:
        raise ValueError("zero row: no hyperplane")
    bottom: frozenset[int] = frozenset()
    levels: list[dict[frozenset[int], list[frozenset[int]]]] = [{bottom: []}]
    if not normals:
        return normals, levels
    k = len(normals[0])
    h = len(normals)
    N = fmpz_mat([list(n) for n in normals])
    rank = N.rank()
    basis: dict[frozenset[int], list[int]] = {bottom: []}

    for target in range(1, rank):
        covers: dict[frozenset[int], list[frozenset[int]]] = {}
        need_basis = target < rank - 1  # the last proper level is never extended
        for F in levels[-1]:
            C = _annihilator(normals, basis[F], k)
            m = C.ncols()
            entries = [int(x) for x in (N * C).entries()]  # row-major h x m
            groups: dict[tuple[int, ...], list[int]] = {}
            for j in range(h):
                if j in F:
                    continue
                # Canonical direction of q(n_j): divide by the gcd and make
                # the first non-zero entry positive.
                v = entries[j * m : (j + 1) * m]
                g = math.gcd(*v)
                for x in v:
                    if x:
                        break
                if x < 0:
                    g = -g
                groups.setdefault(tuple([x // g for x in v]), []).append(j)
            for members in groups.values():
                G = F.union(members)
                if G not in covers:
                    covers[G] = []
                    if need_basis:
                        basis[G] = basis[F] + [members[0]]
                covers[G].append(F)
        levels.append(covers)
        if not need_basis:
            basis.clear()
    # The only flat of full rank is the closure of everything.
    levels.append({frozenset(range(h)): list(levels[-1])})
    return normals, levels


def _moebius(levels: list[dict[frozenset[int], list[frozenset[int]]]]) -> dict[frozenset[int], int]:
    """mu(0, X) for every flat: mu(0,0) = 1 and mu(0,X) = -sum_{Y < X} mu(0,Y).

    The set of flats strictly below X is the union over the flats F covered by
    X of {F} and everything below F (every Y < X lies under some coatom of the
    interval [0, X]).  Those down-sets are kept only while they are needed.
    """
    mu: dict[frozenset[int], int] = {}
    below: dict[frozenset[int], set[frozenset[int]]] = {}
    top_rank = len(levels) - 1
    for rank, level in enumerate(levels):
        if rank == top_rank and rank > 0:
            (top,) = level
            mu[top] = -sum(mu.values())
            break
        keep = rank < top_rank - 1
        for X, covered in level.items():
            down: set[frozenset[int]] = set()
            for F in covered:
                down.add(F)
                down |= below[F]
            mu[X] = 1 if rank == 0 else -sum(mu[Y] for Y in down)
            if keep:
                below[X] = down
        if rank >= 1:
            for F in levels[rank - 1]:
                below.pop(F, None)
    return mu


def characteristic_polynomial(M: Sequence[Sequence[Any]]) -> list[int]:
    """chi(t) = sum_{X in L(A)} mu(0, X) t^{k - rank X}, as coefficients by power.

    ``result[p]`` is the coefficient of t^p, p = 0..k, where k is the number of
    columns of M.  A zero row (a loop of the matroid) gives chi = 0, matching
    Whitney's formula.
    """
    rows = as_fraction_matrix(M)
    k = _ncols(rows)
    coefficients = [0] * (k + 1)
    if primitive_normals(rows) is None:
        return coefficients
    _, levels = intersection_lattice(rows)
    mu = _moebius(levels)
    for rank, level in enumerate(levels):
        for X in level:
            coefficients[k - rank] += mu[X]
    return coefficients


def zaslavsky_region_count(M: Sequence[Sequence[Any]]) -> int:
    """|S(M)| by Zaslavsky's theorem: r(A) = sum_{X in L(A)} |mu(0, X)|.

    The arrangement has the non-zero rows of M as normals, parallel rows
    merged; a zero row gives 0 (S(M) is empty).  Equivalently
    r(A) = (-1)^k chi_A(-1) (Zaslavsky 1975; Stanley, Thm. 2.5).  Handles ~45
    hyperplanes of rank <= 5 in seconds (the lattice is built level by level
    and the Moebius function computed from the cover relations).
    """
    rows = as_fraction_matrix(M)
    if not rows:
        return 1
    if primitive_normals(rows) is None:
        return 0
    _, levels = intersection_lattice(rows)
    return sum(abs(m) for m in _moebius(levels).values())


# ---------------------------------------------------------------------------
# 3. Whitney's formula
# ---------------------------------------------------------------------------


def whitney_characteristic_polynomial(M: Sequence[Sequence[Any]]) -> list[int]:
    """chi(t) = sum over all subsets S of rows of (-1)^{|S|} t^{k - rank S}.

    Whitney's theorem (Stanley, Lemma 2.3) for a central arrangement.  It is
    applied to the raw rows, without merging parallel rows and without looking
    for zero rows: the characteristic polynomial of a matroid is unchanged by
    parallel elements and is 0 when there is a loop (S and S + loop cancel), so
    both degeneracies are handled by the formula itself.  Ranks come from a
    pure-Python Fraction elimination (no flint), kept incrementally along a
    depth-first walk over subsets.  Limited to 14 rows (2^14 subsets).
    """
    rows = as_fraction_matrix(M)
    N, k = len(rows), _ncols(rows)
    if N > WHITNEY_MAX_ROWS:
        raise ValueError(f"Whitney's formula is limited to {WHITNEY_MAX_ROWS} rows, got {N}")
    coefficients = [0] * (k + 1)

    def reduce(v: list[Fraction], basis: list[tuple[int, list[Fraction]]]) -> list[Fraction]:
        # basis is in reduced row echelon form: each vector has a 1 at its own
        # pivot and 0 at the other pivots, so one pass clears every pivot of v.
        v = list(v)
        for p, b in basis:
            if v[p] != 0:
                f = v[p]
                v = [x - f * y for x, y in zip(v, b)]
        return v

    def visit(i: int, basis: list[tuple[int, list[Fraction]]], size: int) -> None:
        if i == N:
            coefficients[k - len(basis)] += -1 if size % 2 else 1
            return
        visit(i + 1, basis, size)  # row i not in S
        v = reduce(rows[i], basis)
        p = next((c for c, x in enumerate(v) if x != 0), None)
        if p is None:  # row i in span(S): rank unchanged
            visit(i + 1, basis, size + 1)
            return
        pivot = v[p]
        v = [x / pivot for x in v]
        new_basis = []
        for q, b in basis:
            if b[p] != 0:
                f = b[p]
                b = [x - f * y for x, y in zip(b, v)]
            new_basis.append((q, b))
        new_basis.append((p, v))
        visit(i + 1, new_basis, size + 1)

    visit(0, [], 0)
    return coefficients


def whitney_region_count(M: Sequence[Sequence[Any]]) -> int:
    """|S(M)| = sum over subsets S of rows of (-1)^{|S| - rank S}  (<= 14 rows).

    From r(A) = (-1)^k chi(-1) and Whitney's expansion:
    (-1)^k (-1)^{|S|} (-1)^{k - rank S} = (-1)^{|S| - rank S}.  Zero rows and
    parallel rows need no special treatment (see
    :func:`whitney_characteristic_polynomial`).
    """
    chi = whitney_characteristic_polynomial(M)
    k = len(chi) - 1
    return (-1) ** k * sum(c * (-1) ** p for p, c in enumerate(chi))


# ---------------------------------------------------------------------------
# 4.-5. Closed forms
# ---------------------------------------------------------------------------


def generic_central_count(N: int, r: int) -> int:
    """Regions of N central hyperplanes in general position in R^r.

    2 * sum_{k=0}^{r-1} C(N-1, k) (L. Schlaefli; T. Cover, IEEE Trans. Electron.
    Comput. EC-14 (1965), function-counting theorem).  For N = 0 there is one
    region; for N <= r the count is 2^N.
    """
    if N == 0:
        return 1
    return 2 * sum(math.comb(N - 1, k) for k in range(r))


def unsigned_stirling_first(n: int, m: int) -> int:
    """c(n, m) = |s(n, m)|: permutations of n elements with m cycles.

    t(t-1)...(t-n+1) = sum_m s(n, m) t^m with s(n, m) = (-1)^{n-m} c(n, m).
    """
    row = [1]  # c(0, 0) = 1
    for i in range(n):
        # c(i+1, m) = c(i, m-1) + i c(i, m)
        row = [(row[m - 1] if m >= 1 else 0) + (i * row[m] if m < len(row) else 0) for m in range(i + 2)]
    return row[m] if 0 <= m < len(row) else 0


def generic_ranking_count(n: int, d: int) -> int:
    """|R(W)| for W in R^{n x d} in general position: the number of rankings of
    n labels realised as z ranges over R^d.

        Q(n, d) = 2 * sum_{0 <= k <= d-1, k = d-1 (mod 2)} c(n, n-k)
                = 2 * ( c(n, n-d+1) + c(n, n-d+3) + ... ),

    with c the unsigned Stirling numbers of the first kind; Q(n, d) = n! for
    d >= n - 1.  This is T. M. Cover's count of the linearly inducible
    orderings of n points in general position in R^d ("The number of linearly
    inducible orderings of points in d-space", SIAM J. Appl. Math. 15 (1967)
    434-439), which satisfies Q(n, d) = Q(n-1, d) + (n-1) Q(n-1, d-1),
    Q(n, 1) = 2; I. J. Good and T. N. Tideman ("Stirling numbers and a
    geometric structure from voting theory", J. Combin. Theory Ser. A 23
    (1977) 34-45) expressed these counts through Stirling numbers of the first
    kind.  Table: OEIS A071223.

    Derivation.  R(W) is the arrangement with normals w_i - w_j in R^d.  For
    rank W = d it is the braid arrangement A_{n-1} = {x_i = x_j} of R^n cut
    down to V = col(W) (z -> W z is injective).  Every braid hyperplane
    contains the line spanned by 1 = (1,...,1); for generic W, V meets that
    line only in 0 (d <= n-1) and V/1 is a generic d-dimensional subspace of
    the essential space R^n/1 of dimension n-1.  For a generic d-dimensional
    section of an essential central arrangement, the flats of rank < d
    survive with the same Moebius values and everything else collapses to
    the single point 0.  From chi(t) = t(t-1)...(t-n+1), the flats of rank k
    contribute |mu| = c(n, n-k) in total, so

        r = sum_{k<d} c(n, n-k) + | sum_{k<d} (-1)^k c(n, n-k) |
          = 2 * sum_{k<d, k = d-1 (mod 2)} c(n, n-k)

    (the partial alternating sum has sign (-1)^{d-1} because Moebius values
    of the truncated geometric lattice alternate in sign).

    Points in R^d, not R^{d-1}: checked by brute force in
    ``test_reference.py``, a generic W with d columns gives Q(n, d) rankings.
    A column of ones adds nothing: B_n [1|W] = [0 | B_n W], so
    R([1|W]) = R(W) as sets.  Hence n points in R^d written affinely as an
    n x (d+1) matrix [1|W] also give Q(n, d), i.e. an n x D matrix that
    contains a column of ones behaves like points in R^{D-1}.
    Degenerate cases: n <= 1 gives the single empty ranking; d = 0 with
    n >= 2 gives 0 (all points coincide).
    """
    if n < 0 or d < 0:
        raise ValueError("n and d must be non-negative")
    if n <= 1:
        return 1
    if d == 0:
        return 0
    if d >= n - 1:
        return math.factorial(n)
    return 2 * sum(unsigned_stirling_first(n, n - k) for k in range(d - 1, -1, -2))


# ---------------------------------------------------------------------------
# 7. Rankings from sign strings
# ---------------------------------------------------------------------------


def is_strict_total_order(signstring: str, n: int) -> tuple[int, ...] | None:
    """Decode a sign string over the pairs of B_n into a ranking.

    Character number t corresponds to the t-th pair (i, j), i < j, in
    lexicographic order; '+' means label i is above label j (w_i . z > w_j . z).
    Returns the labels from highest to lowest if the relation is a strict total
    order, else ``None``.  A tournament is transitive iff its score sequence
    (number of labels each label beats) is 0, 1, ..., n-1; the decoded order is
    then re-checked pair by pair.
    """
    pairs = list(combinations(range(n), 2))
    if len(signstring) != len(pairs):
        raise ValueError(f"expected {len(pairs)} signs for n = {n}, got {len(signstring)}")
    wins = [0] * n
    for (i, j), c in zip(pairs, signstring):
        if c == "+":
            wins[i] += 1
        elif c == "-":
            wins[j] += 1
        else:
            raise ValueError(f"bad sign character {c!r}")
    if sorted(wins) != list(range(n)):
        return None
    ranking = tuple(sorted(range(n), key=lambda label: -wins[label]))
    position = {label: p for p, label in enumerate(ranking)}
    for (i, j), c in zip(pairs, signstring):
        if (c == "+") != (position[i] < position[j]):
            return None
    return ranking
