"""Gordan's alternative for integer rows by the simplex method with integer pivoting.

The method of :func:`verify.lp.field_simplex.strict_feasibility_over` (phase 1 on the
Gordan system ``E y = b``, ``y >= 0``, ``E = [A^T; 1^T]``, ``b = (0, ..., 0, 1)``; the
artificial variables form the first basis; Bland's rule for the entering and the
leaving variable), specialised to integer rows and run on Python integers without a
single fraction: the *integer-preserving* (fraction-free) tableau of Edmonds.

Mathematics. Keep an integer matrix ``T`` and an integer ``D > 0`` with
``tableau = T / D`` (``D = 1`` at the start, when the tableau is ``[E | I | b]``). A
pivot on the entry ``p = T[l][e] > 0`` gives the next pair

    T'[l] = T[l],     T'[i] = (p T[i] - T[i][e] T[l]) / D   (i != l),     D' = p,

which is the usual pivot written over the common denominator ``p``. The divisions are
exact: every entry of ``T`` is, up to sign, a minor of the integer matrix
``[E | I | b]`` (with the objective row appended), and ``D`` is the determinant of the
current basis (J. Edmonds, "Systems of distinct representatives and linear algebra",
*J. Res. Nat. Bur. Standards* 71B, 1967; the same identity as Bareiss's elimination).
The reduced-cost row is pivoted alike. ``D > 0`` holds throughout because a pivot entry
of the tableau, ``p / D``, is positive; so signs of tableau entries are signs of
entries of ``T``, and ratios ``T[i][-1] / T[i][e]`` are compared by cross
multiplication. In exact arithmetic the two tableaux are the same numbers, so this
method visits the same bases and returns the same answer as the field version, at a
fraction of the cost: no gcd is ever taken, and Python integers are the cheapest
exact numbers there are.

Example
-------
>>> gordan_integer_simplex([[1, 0], [0, 1]])
Witness(point=(1, 1))
>>> gordan_integer_simplex([[1, 0], [-1, 0]]).multipliers
((0, 1/2), (1, 1/2))
"""

from __future__ import annotations

from typing import Sequence

from flint import fmpq

from verify.lp.evidence import GordanCertificate, Witness

__all__ = ["gordan_integer_simplex"]


def gordan_integer_simplex(rows: Sequence[Sequence[int]]) -> Witness | GordanCertificate:
    """Decide ``A z > 0`` for integer rows; the same answer as
    ``strict_feasibility_over(rows, fmpq(1))``.

    Returns a :class:`Witness` (a point with ``fmpq`` coordinates) or a
    :class:`GordanCertificate` (pairs ``(i, y_i)``, ``y_i > 0`` an ``fmpq``, sorted by
    ``i``, at most ``k + 1`` of them). Both are checked exactly before they are returned.
    """
    A = [[int(a) for a in row] for row in rows]
    if not A or not A[0]:
        raise ValueError("gordan_integer_simplex needs at least one row and one column")
    N, k = len(A), len(A[0])
    m = k + 1
    ncol = N + m
    # Rows [E | I | b] of the first tableau (D = 1); artificials s_0 ... s_k are basic.
    T = [[A[j][i] for j in range(N)] + [int(r == i) for r in range(m)] + [0]
         for i in range(k)]
    T.append([1] * N + [int(r == k) for r in range(m)] + [1])
    basis = [N + i for i in range(m)]
    D = 1
    # Reduced costs c_j - c_B B^-1 E_j of the phase-1 objective sum(s), times D.
    reduced = [(0 if j < N else 1) - sum(T[i][j] for i in range(m)) for j in range(ncol)]
    while True:
        entering = next((j for j in range(ncol) if reduced[j] < 0), None)  # Bland
        if entering is None:
            break
        leave = None
        for i in range(m):  # least ratio T[i][-1] / T[i][e]; ties to the smallest basic
            a = T[i][entering]
            if a > 0:
                if leave is None:
                    leave = i
                    continue
                b = T[leave][entering]
                left, right = T[i][-1] * b, T[leave][-1] * a
                if left < right or (left == right and basis[i] < basis[leave]):
                    leave = i
        if leave is None:  # phase 1 is bounded below by 0
            raise ArithmeticError("internal error: an unbounded phase-1 direction")
        pivot_row = T[leave]
        p = pivot_row[entering]
        for i in range(m):
            if i != leave:
                f = T[i][entering]
                T[i] = [(p * x - f * y) // D for x, y in zip(T[i], pivot_row)]
        f = reduced[entering]
        reduced = [(p * x - f * y) // D for x, y in zip(reduced, pivot_row)]
        D = p
        basis[leave] = entering
    if not any(T[i][-1] for i in range(m) if basis[i] >= N):  # phase-1 optimum 0
        y = tuple(sorted((basis[i], fmpq(T[i][-1], D)) for i in range(m)
                         if basis[i] < N and T[i][-1]))
        if not (y and all(v > 0 for _, v in y) and all(
                sum(v * A[i][j] for i, v in y) == 0 for j in range(k))):
            raise ArithmeticError("internal error: the simplex returned invalid multipliers")
        return GordanCertificate(multipliers=y)
    # The reduced cost of artificial r is 1 - pi_r; the witness is z = -pi_z.
    point = tuple(fmpq(reduced[N + r], D) - 1 for r in range(k))
    if not all(sum(a * x for a, x in zip(row, point)) > 0 for row in A):
        raise ArithmeticError("internal error: the simplex returned an invalid witness")
    return Witness(point=point)
