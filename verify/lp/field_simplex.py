"""Gordan's alternative decided exactly over any ordered field, by the simplex method.

For a matrix ``A`` (rows ``a_0 ... a_{N-1}``, entries in an ordered field ``K``) exactly
one of

* there is ``z`` in ``K^k`` with ``a_i . z > 0`` for every ``i``, or
* there is ``y >= 0``, ``y != 0``, with ``sum_i y_i a_i = 0``

holds (Gordan 1873; the proof by linear programming duality works over every ordered
field, since the simplex method only adds, multiplies, divides and compares).
:func:`strict_feasibility_over` decides which, returning a
:class:`verify.lp.evidence.Witness` or a :class:`verify.lp.evidence.GordanCertificate`
with entries in ``K``. It is the method of :func:`verify.lp.feasibility._exact_simplex`
written once for any field: elements only need ``+ - * /``, comparison with the
field's zero, and ``==``. The field used here is that of
:class:`verify.numbers.sqrt_sum.SqrtSum` (cosine matrices), where comparisons are
exact sign decisions; ``fractions.Fraction`` works too.

Phase 1 on the Gordan system ``E y = b``, ``y >= 0``, with ``E = [A^T; 1^T]`` and
``b = (0, ..., 0, 1)``: minimise the sum of artificial variables ``s`` in
``E y + s = b``, entering and leaving variables chosen by Bland's rule (so the method
terminates, and the answer is a deterministic function of the input). If the optimum
is 0, the basic solution is a certificate with at most ``rank(E) <= rank(A) + 1``
non-zero entries (a basic solution: its support columns ``(a_i; 1)`` are linearly
independent, so the dependency among the rows of the support is unique up to scale).
Otherwise the optimal duals ``pi`` satisfy ``pi . E_j <= 0`` for every column and
``pi . b > 0``, that is ``a_j . (-pi_z) >= pi_t > 0``: ``z = -pi_z`` is a witness.
Both answers are checked exactly before they are returned.
"""

from __future__ import annotations

from typing import Sequence

from verify.lp.evidence import GordanCertificate, Witness

__all__ = ["strict_feasibility_over"]


def strict_feasibility_over(rows: Sequence[Sequence], one) -> Witness | GordanCertificate:
    """Decide ``A z > 0`` exactly over the ordered field of ``one`` (its unit element).

    ``rows`` are the rows of ``A`` (``N >= 1`` rows of ``k >= 1`` field elements, or
    integers that combine with them). Returns a :class:`Witness` (a point of ``K^k``)
    or a :class:`GordanCertificate` (pairs ``(i, y_i)`` with ``y_i > 0``, sorted by
    ``i``, at most ``k + 1`` of them).
    """
    zero = one - one
    A = [[zero + a for a in row] for row in rows]
    if not A or not A[0]:
        raise ValueError("strict_feasibility_over needs at least one row and one column")
    N, k = len(A), len(A[0])
    m = k + 1
    # Tableau rows [E | I | b]; the artificials s_0 ... s_k form the first basis.
    T = [[A[j][i] for j in range(N)] + [one if r == i else zero for r in range(m)] + [zero]
         for i in range(k)]
    T.append([one] * N + [one if r == k else zero for r in range(m)] + [one])
    basis = [N + i for i in range(m)]
    ncol = N + m
    # Reduced costs c_j - c_B B^{-1} E_j of the phase-1 objective sum(s).
    reduced = [(zero if j < N else one) - _sum((T[i][j] for i in range(m)), zero)
               for j in range(ncol)]
    objective = _sum((T[i][-1] for i in range(m)), zero)
    while True:
        entering = next((j for j in range(ncol) if reduced[j] < zero), None)  # Bland
        if entering is None:
            break
        candidates = [i for i in range(m) if T[i][entering] > zero]
        ratios = {i: T[i][-1] / T[i][entering] for i in candidates}
        best = candidates[0]
        for i in candidates[1:]:  # least ratio; ties to the smallest basic variable
            if ratios[i] < ratios[best] or (ratios[i] == ratios[best]
                                            and basis[i] < basis[best]):
                best = i
        leave = best
        inverse = one / T[leave][entering]
        T[leave] = [x * inverse for x in T[leave]]
        for i in range(m):
            if i != leave and T[i][entering] != zero:
                f = T[i][entering]
                T[i] = [a - f * b for a, b in zip(T[i], T[leave])]
        f = reduced[entering]
        reduced = [a - f * b for a, b in zip(reduced, T[leave][:ncol])]
        objective = objective + f * T[leave][-1]
        basis[leave] = entering
    if objective == zero:
        return checked_certificate(A, _basic_solution(T, basis, N, zero), zero)
    return checked_witness(A, _dual_point(reduced, N, k, one), zero)


def _basic_solution(T, basis, N: int, zero) -> tuple:
    """The non-zero basic values among ``y_0 ... y_{N-1}``: pairs ``(i, y_i)``, sorted."""
    return tuple(sorted((basis[i], T[i][-1]) for i in range(len(basis))
                        if basis[i] < N and T[i][-1] != zero))


def _dual_point(reduced, N: int, k: int, one) -> tuple:
    """``z = -pi_z`` from the optimal duals: the reduced cost of artificial ``r`` is
    ``1 - pi_r``."""
    return tuple(reduced[N + r] - one for r in range(k))


def checked_certificate(A, multipliers, zero) -> GordanCertificate:
    """``multipliers`` as a :class:`GordanCertificate` of the rows ``A``, after checking
    exactly that they are positive, not empty and combine the rows to 0.

    A guard on the simplex (never skipped, also under ``python -O``): raises
    ``AssertionError`` if the multipliers do not prove ``A z > 0`` infeasible.
    """
    y = tuple(multipliers)
    k = len(A[0])
    if not (y and all(v > zero for _, v in y) and all(
            _sum((v * A[i][j] for i, v in y), zero) == zero for j in range(k))):
        raise AssertionError("internal error: the simplex returned invalid multipliers")
    return GordanCertificate(multipliers=y)


def checked_witness(A, point, zero) -> Witness:
    """``point`` as a :class:`Witness` of the rows ``A``, after checking exactly that
    ``a . point > 0`` for every row ``a``.

    A guard on the simplex (never skipped, also under ``python -O``): raises
    ``AssertionError`` if the point does not prove ``A z > 0`` feasible.
    """
    point = tuple(point)
    if any(len(row) != len(point) for row in A) or not all(_sum((a * x for a, x in zip(row, point)), zero) > zero for row in A):
        raise AssertionError("internal error: the simplex returned an invalid witness")
    return Witness(point=point)


def _sum(values, start):
    total = start
    for v in values:
        total = total + v
    return total
