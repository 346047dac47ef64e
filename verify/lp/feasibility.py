"""Exact feasibility of strict homogeneous systems ``A z > 0``, with evidence.

Gordan's theorem of the alternative (1873): for a real matrix ``A`` exactly one of

* there is ``z`` with ``A z > 0`` (every entry strictly positive), or
* there is ``y >= 0``, ``y != 0``, with ``y^T A = 0``

holds. For a sign vector ``s`` and a matrix ``M``, the orthant ``s`` is met by the
column span of ``M`` iff the system with rows ``s_i m_i`` is feasible, so every orthant
question of the engine is a call to :func:`strict_feasibility` on sign-adjusted rows.

The answer is either a :class:`Witness` (a rational point ``z`` with ``A z > 0``) or a
:class:`GordanCertificate` (sparse multipliers ``y``). By Carathéodory's theorem a
certificate needs at most ``rank(A) + 1`` non-zero multipliers; certificates returned
here always have such a minimal support (a basic solution of the simplex method, or a
proposed support whose rows have one dependency).

Small systems are solved by an exact simplex method over Q. For large ones floating
point *proposes*: scipy's HiGHS solves the LP in double precision, its primal point is
rounded to a rational point and its dual support is turned into exact multipliers by an
exact null-space computation. Every answer, proposed or not, is checked in exact
arithmetic before it is returned; a failed proposal falls back to the exact method.

References
----------
P. Gordan, "Ueber die Auflösung linearer Gleichungen mit reellen Coefficienten",
Math. Ann. 6 (1873). A. Schrijver, *Theory of Linear and Integer Programming*, 1986,
§7.8 (Gordan, Farkas) and §7.7 (Carathéodory).

Example
-------
>>> from flint import fmpq
>>> strict_feasibility([[1, 0], [0, 1]])  # the open positive quadrant
Witness(point=(1, 1))
>>> cert = strict_feasibility([[1, 0], [-1, 0]])
>>> cert.multipliers
((0, 1/2), (1, 1/2))
"""

from __future__ import annotations

from math import gcd, lcm
from typing import Sequence

from flint import fmpq

from verify.linalg.exact import dot, integer_nullspace, primitive_integer_row, to_fmpq_rows
from verify.lp.evidence import Evidence, GordanCertificate, Witness


#: Systems with at most this many rows go straight to the exact simplex method.
EXACT_SIMPLEX_MAX_ROWS = 60


# --- exact checks -------------------------------------------------------------------

def is_witness(rows: Sequence[Sequence], point: Sequence) -> bool:
    """True iff ``row . point > 0`` for every row, decided exactly (and ``point`` has
    one coordinate per column)."""
    return all(len(row) == len(point) and dot(row, point) > 0 for row in rows)


def is_gordan_certificate(rows: Sequence[Sequence], multipliers: Sequence) -> bool:
    """True iff the sparse multipliers (pairs ``(row index, y)``, indices in range) are
    >= 0, not all zero and combine the rows to 0."""
    if not multipliers or any(y < 0 for _, y in multipliers):
        return False
    if any(not 0 <= i < len(rows) for i, _ in multipliers):
        return False
    if all(y == 0 for _, y in multipliers):
        return False
    # Here ``rows`` is not empty: every multiplier's index is in range.
    return all(sum((y * rows[i][j] for i, y in multipliers), 0) == 0
               for j in range(len(rows[0])))


# --- the decision procedure ---------------------------------------------------------

def strict_feasibility(rows: Sequence[Sequence]) -> Evidence:
    """Decide ``A z > 0`` exactly; return a witness point or a Gordan certificate.

    Parameters
    ----------
    rows : sequence of rows of int / Fraction / fmpq
        The (sign-adjusted) rows ``a_i`` of ``A``. An empty system is feasible.

    Returns
    -------
    Witness or GordanCertificate
        Checked exactly before being returned.
    """
    A = to_fmpq_rows(rows)
    if not A:
        return Witness(point=())
    # Positive row scaling changes neither feasibility nor the support of a
    # certificate, and integer rows keep the exact checks cheap.
    Z = [primitive_integer_row(row) for row in A]
    zero_rows = [i for i, row in enumerate(Z) if not any(row)]
    if zero_rows:  # rows without columns included: each is a zero row
        return GordanCertificate(multipliers=((zero_rows[0], fmpq(1)),))

    # Measured (benchmarks/bench_feasibility.py): the exact simplex wins on small
    # systems, a float hint plus exact certification on large ones.
    evidence = None
    if len(Z) > EXACT_SIMPLEX_MAX_ROWS:
        evidence = _propose_and_certify(Z)
    if evidence is None:
        evidence = _exact_simplex(Z)
    if isinstance(evidence, GordanCertificate):
        evidence = _rescale_certificate(A, Z, evidence)
    return checked_evidence(A, evidence)


def checked_evidence(rows: Sequence[Sequence], evidence: Evidence) -> Evidence:
    """``evidence`` itself, after checking it exactly against ``rows``.

    The guard on every answer of :func:`strict_feasibility` (a real check, kept under
    ``python -O``): raises ``AssertionError`` unless ``evidence`` is a :class:`Witness`
    with :func:`is_witness` or a :class:`GordanCertificate` with
    :func:`is_gordan_certificate`.
    """
    if isinstance(evidence, GordanCertificate):
        valid = is_gordan_certificate(rows, evidence.multipliers)
    else:
        valid = isinstance(evidence, Witness) and is_witness(rows, evidence.point)
    if not valid:
        raise AssertionError(f"internal error: {evidence!r} is not valid evidence")
    return evidence


def _rescale_certificate(A, Z, cert: GordanCertificate) -> GordanCertificate:
    """Translate multipliers for the primitive rows ``Z`` back to the rows of ``A``.

    ``Z_i = c_i A_i`` with ``c_i > 0``, so ``sum y_i Z_i = sum (y_i c_i) A_i``.
    """
    out = []
    for i, y in cert.multipliers:
        j = next(j for j, a in enumerate(A[i]) if a != 0)
        out.append((i, fmpq(y) * fmpq(Z[i][j]) / A[i][j]))
    return GordanCertificate(multipliers=tuple(out))


def _propose_and_certify(Z: list[list[int]]) -> Evidence | None:
    """Ask HiGHS (floating point) for a hint and certify it exactly, or return None."""
    try:
        import numpy as np
        from scipy.optimize import linprog
    except ImportError:  # pragma: no cover - scipy is a dependency
        return None
    A = np.array(Z, dtype=float)
    N, k = A.shape
    # max t  s.t.  A z >= t,  -1 <= z <= 1,  t <= 1
    c = np.zeros(k + 1)
    c[-1] = -1.0
    res = linprog(c, A_ub=np.hstack([-A, np.ones((N, 1))]), b_ub=np.zeros(N),
                  bounds=[(-1, 1)] * k + [(None, 1)], method="highs")
    if res.status != 0:
        return None
    if res.x[-1] > 1e-9:
        point = _round_to_witness(Z, res.x[:-1])
        if point is not None:
            return Witness(point=point)
    # Ask for a vertex of {y >= 0, A^T y = 0, sum y = 1}: at most rank+1 non-zeros.
    res = linprog(np.zeros(N), A_eq=np.vstack([A.T, np.ones((1, N))]),
                  b_eq=np.concatenate([np.zeros(k), [1.0]]),
                  bounds=[(0, None)] * N, method="highs")
    if res.status != 0:
        return None
    support = [i for i in range(N) if res.x[i] > 1e-12]
    return _certificate_on_support(Z, support)


def _round_to_witness(Z, x) -> tuple | None:
    """Try rational roundings of a float point, coarse to fine; check each exactly."""
    scale = max(abs(float(v)) for v in x) or 1.0
    for bits in (4, 8, 16, 26, 40, 52):
        cand = [int(round(float(v) / scale * (1 << bits))) for v in x]
        if any(cand) and all(dot(row, cand) > 0 for row in Z):
            return _primitive_point(cand)
    return None


def _primitive_point(v: Sequence[int]) -> tuple:
    g = gcd(*v)
    return tuple(fmpq(a // g) for a in v)


def _certificate_on_support(Z, support: list[int]) -> GordanCertificate | None:
    """Exact non-negative dependency among the rows in ``support``, if there is one."""
    if not support:
        return None
    sub = [Z[i] for i in support]
    # Null space of sub^T: y with sum_i y_i Z_i = 0.
    transposed = [[sub[i][j] for i in range(len(sub))] for j in range(len(Z[0]))]
    basis = integer_nullspace(transposed)
    if len(basis) != 1:
        # A degenerate hint: the exact simplex method decides instead.
        return None
    y = basis[0]
    if all(a <= 0 for a in y):
        y = [-a for a in y]
    if any(a < 0 for a in y) or not any(y):
        return None
    mult = tuple((support[i], fmpq(a)) for i, a in enumerate(y) if a != 0)
    return GordanCertificate(multipliers=mult)


def _exact_simplex(Z: list[list[int]]) -> Evidence:
    """Decide exactly by the simplex method over Q (phase 1 on the Gordan system).

    The method of :func:`verify.lp.field_simplex.strict_feasibility_over`, run on integers
    by :func:`verify.lp.integer_simplex.gordan_integer_simplex` (same answers, no
    fractions): a basic solution
    of ``{y >= 0, A^T y = 0, sum y = 1}`` has at most ``rank(A) + 1`` non-zeros; if there
    is none, the optimal phase-1 duals give the witness. (sympy's ``linprog`` returned
    a feasible point for an infeasible system in our tests, and cddlib's exact build
    needs a system library, hence this small method; its answers are checked exactly
    like any other.)
    """
    from verify.lp.integer_simplex import gordan_integer_simplex

    evidence = gordan_integer_simplex(Z)
    if isinstance(evidence, GordanCertificate):
        # Already minimal, no reduction needed: the support columns (a_i; 1) of a basic
        # solution are linearly independent, so no y != 0 on the support has
        # sum y_i a_i = 0 and sum y_i = 0, and the dependencies of the support rows
        # form a space of dimension <= 1: the support is minimal (Carathéodory).
        return evidence
    point = [fmpq(a) for a in evidence.point]
    den = lcm(*(int(x.q) for x in point))
    return Witness(point=_primitive_point([int(x * den) for x in point]))
