r"""A row strictly inside a simplex of other rows, proven without computing its weights.

Mathematics
-----------
Let ``z_k`` (``k`` in ``S``, ``|S| = d + 1``) and ``z_i`` be integer rows of a head, and

    M = [z_k for k in S; 1 ... 1]   ((d + 1) x (d + 1)),    t = (z_i, 1).

If ``M`` is non-singular and every entry of ``lambda = M^{-1} t`` is positive, then
``z_i = sum_k lambda_k z_k`` with ``lambda > 0``, ``sum lambda = 1``: ``z_i`` lies in the
interior of the simplex ``conv{z_k : k in S}``. This proves two things about the head
(for ``i`` not in ``S``):

* **Label ``i`` is unargmaxable**: ``z_i . x = sum lambda_k z_k . x <= max_k z_k . x``
  for every ``x`` (Gordan's theorem, easy half), the same conclusion as exact convex
  weights (:func:`verify.analyze.argmax.is_argmax_certificate`).
* **Label ``i`` ties with no label ``j`` for the top**: at an ``x`` where ``z_i . x =
  z_j . x`` is above every other ``z_k . x``, some ``k`` in ``S`` other than ``j``
  (``|S| >= 2``) has ``z_k . x < z_i . x`` and ``lambda_k > 0``, so ``sum lambda_k z_k
  . x < z_i . x``: a contradiction.

Exact weights of such a point have about ``d`` times the bits of the head's entries
(some 19,000 bits each at ``d = 768``; python-flint's Dixon solver takes about 4 s per
label, and checking the identity in Python integers as long again), and at ``d = 4096``
they are out of reach. Positivity needs much less: an *approximate inverse* ``R``
(any matrix: here LAPACK's float inverse) and an *exact residual*.

**Proof of positivity** (Rump's verification of linear systems; Higham, *Accuracy and
Stability of Numerical Algorithms*, 2nd ed., §3.1 and §3.5). Scale each row of ``M``
and ``t`` by a power of two (``M' = P M``, ``t' = P t``: the same ``lambda``, exactly),
and let ``M^`` be ``M'`` rounded to float64 (``|M^ - M'| <= u |M'|``, ``u = 2^-53``).
For any float ``R`` and float evaluation ``G`` of ``R M^`` (BLAS, any order of
summation, with or without fused multiply-add),

    |I - R M'| <= |I - G| + |G - R M^| + |R| |M^ - M'|
               <= |I - G| + (gamma_N + u (1 + u)) |R| |M^|,   gamma_N = N u / (1 - N u),

so ``alpha``, an upper bound of the largest row sum of the right side, bounds
``||I - R M'||_inf``. If ``alpha <= 1/2``, then ``R M'`` (hence ``M``) is non-singular and
``||(R M')^{-1}||_inf <= 1 / (1 - alpha) <= 2``. For any rational ``lambda~`` and the
exact residual ``rho = t' - M' lambda~`` (computed in Python integers),
``lambda - lambda~ = (R M')^{-1} R rho``, so

    |lambda_k - lambda~_k| <= 2 ||R rho||_inf <= 2 ||(|R| |rho|)||_inf    for every k.

Hence ``lambda~_k > err >= 2 || |R| |rho| ||_inf`` for every ``k`` proves ``lambda > 0``.
The float sums that bound ``alpha`` and ``err`` are themselves rounded: each is
evaluated in float64 and multiplied by ``SAFETY = 2``, which covers the factor
``(1 + gamma_N)^2 (1 + u)`` of their rounding while ``N u <= 2^-10``
(:data:`MAX_ORDER`). Underflow is covered by absolute terms: ``N^2 2^-1074`` added to
``alpha``, and for ``err``, ``2^-1074`` added to each ``|rho_r|`` (an entry rounded to 0)
and ``N 2^-1074`` to each row of ``|R| (|rho| + 2^-1074)`` (a product ``|R_kc| 2^-1074``
below ``2^-1075`` rounds to 0, so without it ``err`` could be 0 when ``|R| <= 1/2``).
``lambda~`` is ``R t'`` refined once, ``lambda~ + fl(R rho)``, kept as an exact dyadic
rational, so that ``rho`` is tiny and ``err`` far below the smallest weight (at
``d = 768`` on the benchmark head: weights from ``5e-7``, ``err`` near ``1e-12``).

Nothing here is trusted that the argument does not cover: every float quantity enters
only through an upper bound, the residual is exact, and the comparison
``lambda~_k > err`` is exact (rationals). A label whose proof fails (the simplex too
flat, or ``z_i`` on or too near its boundary) keeps the exact solve of
:mod:`verify.analyze.interior`. The certificate checker proves the same statement with
its own code (``verify/checker/analyze.py``; docs/certificates.md).

Cost: one LU inverse and one matrix product of order ``d + 1`` in float64, two exact
residuals (``(d + 1)^2`` Python-integer products each): about 0.3 s at ``d = 768``.

Example
-------
>>> import numpy as np
>>> strictly_inside(np.array([[0, 0], [4, 0], [0, 4]]), np.array([1, 1]))
True
>>> strictly_inside(np.array([[0, 0], [4, 0], [0, 4]]), np.array([2, 2]))  # an edge
False
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = ["MAX_ORDER", "SAFETY", "SimplexCertificate", "SimplexNoTie", "strictly_inside"]

#: Unit roundoff of float64.
UNIT = 2.0 ** -53
#: Factor on every rounded bound (see the module docstring).
SAFETY = 2.0
#: Largest order ``N`` of the system for which ``SAFETY`` covers the rounding of the
#: bounds (``N u <= 2^-10``).
MAX_ORDER = 1 << 43
#: Smallest positive float64 (the absolute error of an underflowing product).
TINY = 2.0 ** -1074


@dataclass(frozen=True)
class SimplexCertificate:
    """Label ``i`` is strictly inside the simplex of the rows of ``support`` (``d + 1``
    labels other than ``i``): ``z_i = sum_k lambda_k z_k``, every ``lambda_k > 0``,
    ``sum lambda = 1``, proven by :func:`strictly_inside` (the weights themselves are
    not computed)."""

    support: tuple


@dataclass(frozen=True)
class SimplexNoTie:
    """The pair cannot tie for the top: its label ``inside`` is strictly inside the
    simplex of ``support`` (a :class:`SimplexCertificate`, see the module docstring)."""

    inside: int
    support: tuple


def _dyadic(values: np.ndarray) -> tuple[list[int], int]:
    """Integers ``a`` and ``q`` with ``values = a / 2^q`` exactly (finite floats)."""
    ratios = [Fraction(float(v)) for v in values.tolist()]
    q = max(r.denominator for r in ratios).bit_length() - 1
    return [r.numerator * ((1 << q) // r.denominator) for r in ratios], q


def _scaled_residual(M_int: np.ndarray, t_int: list[int], a: list[int], q: int,
                     exponents: np.ndarray) -> np.ndarray:
    """``P (t - M a / 2^q)`` rounded to float64 once per entry (``P = diag(2^-e_r)``),
    from the exact residual in Python integers."""
    products = M_int.dot(np.array(a, dtype=object))
    out = np.empty(len(t_int))
    for r, (tr, mr) in enumerate(zip(t_int, products.tolist())):
        out[r] = float(Fraction((tr << q) - mr, 1 << (q + int(exponents[r]))))
    return out


def strictly_inside(vertices: np.ndarray, target: np.ndarray,
                    inverse=np.linalg.inv) -> bool:
    """True only if ``target`` is in the interior of the simplex of ``vertices`` (``N``
    integer rows of length ``N - 1``), proven as in the module docstring.

    False means "not proven": the simplex is singular or badly conditioned, or
    ``target`` is outside, on the boundary, or too near it for the bound. ``inverse``
    computes the approximate inverse ``R``; the proof trusts nothing about it.
    """
    vertices = np.asarray(vertices)
    N = vertices.shape[0]
    if N < 2 or vertices.ndim != 2 or vertices.shape[1] != N - 1 or N > MAX_ORDER:
        return False
    M_int = np.vstack([vertices.T.astype(object), np.ones((1, N), dtype=object)])
    t_int = [int(v) for v in np.asarray(target).tolist()] + [1]
    try:  # each entry rounded once (|M^ - M'| <= u |M'|); huge integers overflow
        M_float = M_int.astype(np.float64)
        t_float = np.array([float(v) for v in t_int])
    except OverflowError:
        return False
    if not (np.all(np.isfinite(M_float)) and np.all(np.isfinite(t_float))):
        return False
    # Rows scaled by powers of two (exact): any exponents are valid, these equilibrate.
    top = np.maximum(np.abs(M_float).max(axis=1), np.abs(t_float))
    exponents = np.frexp(np.where(top > 0, top, 1.0))[1].astype(np.int64)
    M_hat = np.ldexp(M_float, -exponents[:, None])
    t_hat = np.ldexp(t_float, -exponents)
    try:
        R = inverse(M_hat)
    except np.linalg.LinAlgError:
        return False
    if not np.all(np.isfinite(R)):
        return False
    gamma = N * UNIT / (1 - N * UNIT)
    absR = np.abs(R)
    G = R @ M_hat
    off = np.abs(np.eye(N) - G).sum(axis=1)
    spread = absR @ np.abs(M_hat).sum(axis=1)
    alpha = SAFETY * float((off + (gamma + 2 * UNIT) * spread).max() + N * N * TINY)
    if not alpha <= 0.5:
        return False
    # lambda~ = R t', refined once with the exact residual; kept as a / 2^q.
    a, q = _dyadic(R @ t_hat)
    rho = _scaled_residual(M_int, t_int, a, q, exponents)
    b, p = _dyadic(R @ rho)
    q2 = max(q, p)
    a = [x * (1 << (q2 - q)) + y * (1 << (q2 - p)) for x, y in zip(a, b)]
    rho = _scaled_residual(M_int, t_int, a, q2, exponents)
    # TINY inside covers rho rounded to 0, N TINY outside the products that underflow.
    err = 2 * SAFETY * float((absR @ (np.abs(rho) + TINY)).max() + N * TINY)
    if not math.isfinite(err):
        return False
    bound = Fraction(err)
    return all(Fraction(x, 1 << q2) > bound for x in a)
