r"""Exact solutions of square integer systems by p-adic (Dixon) lifting, checked exactly.

Mathematics
-----------
Let ``A`` be a non-singular ``N x N`` integer matrix and ``B`` an ``N x r`` integer
matrix. By Cramer's rule ``X = A^{-1} B = Y / D`` with ``D = |det A|`` and integers
``Y``; Hadamard's inequality bounds ``D <= H_D = prod_j |a_j|`` (the columns, or the
rows, whichever product is smaller) and every ``|Y_jc| <= H_N = H_D max_c |b_c| /
min_j |a_j|``.

**Lifting** (Dixon 1982). For a prime ``p`` not dividing ``det A`` let ``C = A^{-1} mod
p``. Starting from ``R_0 = B``, each step takes the ``p``-adic digit ``X_j = C R_j mod
p`` and the exact quotient ``R_{j+1} = (R_j - A X_j) / p``; by induction
``A (X_0 + X_1 p + ... + X_{k-1} p^{k-1}) = B - p^k R_k``, so the digits give ``X``
modulo ``p^k``. The residues stay small: ``|R_{j+1}| <= |R_j| / p + N max|A|``.

**Rational reconstruction** (Wang 1981; von zur Gathen & Gerhard, *Modern Computer
Algebra*, §5.10). Once ``p^k > 2 H_N H_D``, each entry ``Y/D`` is the unique fraction
with ``|numerator| <= H_N``, ``0 < denominator <= H_D`` congruent to the ``p``-adic
value, found by the extended Euclidean algorithm stopped half-way. All entries share the
denominator ``D``, so one reconstruction usually serves all: an entry is first tried
with the denominator found so far (Monagan 2004, "maximal quotient" idea, here simply
the common-denominator test).

**Exactness.** Nothing above is trusted: the result ``(Y, D)`` is returned only after
``A Y = D B`` has been checked exactly in integer arithmetic (python-flint's ``fmpz_mat``
product). The floats only carry residues modulo ``p``, where they are exact:

* ``C R mod p``: entries of ``C`` and of ``R mod p`` lie in ``[0, p)``, so every partial
  sum of the float64 product is an integer at most ``N (p - 1)^2 < 2^53`` (``p`` is
  chosen so) and is computed exactly;
* ``A X_j``: ``A`` is split into limbs of ``L`` bits (``|limb| < 2^L``) with
  ``N 2^L p < 2^53``, so each limb product is exact in float64; the limbs are put
  together in wrapping 64-bit integer arithmetic, i.e. modulo ``2^64``. ``R_j - A X_j``
  is divisible by ``p`` (odd), so its quotient is its product with ``p^{-1} mod 2^64``,
  and since that quotient lies in ``(-2^63, 2^63)`` (checked in advance from the bound
  above) the wrapped value is the true one.

Cost: one inverse modulo ``p`` (python-flint ``nmod_mat``, ``O(N^3)``) and
``k ~ (log2 H_N + log2 H_D) / log2 p`` steps of ``O(N^2 r)`` float64 work; for ``N =
769`` with 40-bit entries, ``p ~ 2^21`` and ``k ~ 3,500``.

References
----------
J. D. Dixon, "Exact solution of linear equations using p-adic expansions", Numer. Math.
40 (1982). P. S. Wang, "A p-adic algorithm for univariate partial fractions", SYMSAC
1981. J. von zur Gathen, J. Gerhard, *Modern Computer Algebra*, 3rd ed., 2013.

Example
-------
>>> import numpy as np
>>> Y, D = solve_integer_system(np.array([[2, 1], [1, 3]]), np.array([[1], [2]]))
>>> Y, D
([[1], [3]], 5)
"""

from __future__ import annotations

from math import ceil, isqrt, log2

import numpy as np
from flint import fmpz, fmpz_mat, nmod_mat
from threadpoolctl import threadpool_limits

__all__ = ["solve_integer_system", "lifting_prime"]

#: Largest |entry| of the residues ``R_j`` allowed (their quotient must fit in int64).
_RESIDUE_BITS = 62
#: Primes tried before ``A`` is taken to be singular (a non-singular ``A`` is singular
#: modulo at most ``log2 |det A| / 20`` primes of 21 bits; these are the largest ones).
_PRIMES_TRIED = 3


def lifting_prime(N: int, below: int | None = None) -> int:
    """The largest prime ``p`` (below ``below`` if given) with ``N (p - 1)^2 < 2^53``."""
    p = isqrt((2 ** 53 - 1) // N) + 1
    if below is not None:
        p = min(p, below)
    p -= 1
    while p > 2 and not fmpz(p).is_prime():
        p -= 1
    if p < 3:
        raise ValueError(f"no lifting prime for {N} equations")
    return p


def _log2_norms(M: np.ndarray, axis: int) -> np.ndarray:
    """``log2`` of the Euclidean norms along ``axis`` of an integer matrix (float; a
    relative error far below the margin that :func:`_steps` adds)."""
    F = M.astype(np.float64)
    return 0.5 * np.log2(np.maximum(np.einsum("ij,ij->" + ("j" if axis == 0 else "i"), F, F),
                                    1.0))


def _bounds(A: np.ndarray, B: np.ndarray) -> tuple[int, int]:
    """Bit lengths of Hadamard bounds ``H_D`` on ``|det A|`` and ``H_N`` on the
    numerators of ``A^{-1} B`` (each rounded up, plus a margin)."""
    cols, rows = _log2_norms(A, 0), _log2_norms(A, 1)
    det_bits = min(cols.sum(), rows.sum())
    rhs = float(_log2_norms(B, 0).max()) if B.size else 0.0
    num_bits = det_bits + max(0.0, rhs - float(min(cols.min(), rows.min())))
    return int(ceil(det_bits)) + 4, int(ceil(num_bits)) + 4


def _limbs(A: np.ndarray, bits: int) -> list[tuple[np.ndarray, np.uint64]]:
    """``A = sum_t A_t 2^(t bits)`` with float64 limbs ``|A_t| <= 2^bits``, each with its
    factor ``2^(t bits) mod 2^64``."""
    out, rest, shift = [], A.astype(np.int64), 0
    mask = (1 << bits) - 1
    while np.any(rest):
        low = rest & mask  # in [0, 2^bits)
        rest = rest >> bits  # floor division: the sign stays in the top limb
        factor = np.uint64((1 << shift) % (1 << 64))
        if np.all((rest == 0) | (rest == -1)):
            # The last limb: low + rest 2^bits lies in [-2^bits, 2^bits).
            out.append(((low + (rest << bits)).astype(np.float64), factor))
            break
        out.append((low.astype(np.float64), factor))
        shift += bits
    return out


def _inverse_mod(A: np.ndarray, p: int) -> np.ndarray | None:
    """``A^{-1} mod p`` as a float64 matrix with entries in ``[0, p)``, None if singular."""
    try:
        inv = nmod_mat(np.mod(A, p).tolist(), p).inv()
    except ZeroDivisionError:
        return None
    return np.array([[int(v) for v in row] for row in inv.tolist()], dtype=np.float64)


def _lift(A: np.ndarray, R: np.ndarray, C: np.ndarray, p: int, steps: int):
    """``steps`` more ``p``-adic digits of ``A^{-1} R``: ``(digits, R')`` with digits of
    shape ``(steps, N, r)`` (int64) and the residue ``R'`` to continue from."""
    N = A.shape[0]
    limbs = _limbs(A, 53 - (N * p).bit_length() - 1)
    stacked = np.vstack([limb for limb, _ in limbs])
    factors = [factor for _, factor in limbs]
    p_inverse = np.uint64(pow(p, -1, 1 << 64))
    out = np.empty((steps,) + R.shape, dtype=np.int64)
    for j in range(steps):
        Xf = np.mod(C @ np.mod(R, p).astype(np.float64), p)
        out[j] = Xf
        # R - A X modulo 2^64 (unsigned arithmetic wraps), from exact limb products.
        products = (stacked @ Xf).astype(np.int64).view(np.uint64)
        T = R.view(np.uint64).copy()
        for t, factor in enumerate(factors):
            T -= products[t * N:(t + 1) * N] * factor
        R = (T * p_inverse).view(np.int64)  # the exact quotient (R - A X) / p, see above
    return out, R


_to_fmpz = np.frompyfunc(fmpz, 1, 1)


def _combine(digits: np.ndarray, p: int) -> np.ndarray:
    """``sum_j digits[j] p^j`` for every column of a ``(steps, m)`` array (``fmpz``)."""
    if digits.shape[0] % 2:
        digits = np.concatenate([digits, np.zeros((1,) + digits.shape[1:], dtype=np.int64)])
    # Pairs of digits first, in int64 (below p^2 < 2^53), then a tree in fmpz.
    level = _to_fmpz(digits[0::2] + digits[1::2] * p)
    power = fmpz(p) ** 2
    while level.shape[0] > 1:
        if level.shape[0] % 2:
            level = np.concatenate([level, _to_fmpz(np.zeros((1,) + level.shape[1:],
                                                             dtype=np.int64))])
        level = level[0::2] + level[1::2] * power
        power = power * power
    return level[0]


def _half_gcd_fraction(u, m, num_bound, den_bound):
    """The fraction ``a / b`` with ``a = b u mod m``, ``|a| <= num_bound``,
    ``0 < b <= den_bound``, or None (extended Euclid stopped half-way)."""
    r0, r1, t0, t1 = m, u % m, fmpz(0), fmpz(1)
    while r1 > num_bound:
        q = r0 // r1
        r0, r1 = r1, r0 - q * r1
        t0, t1 = t1, t0 - q * t1
    if t1 == 0 or abs(t1) > den_bound:
        return None
    return (r1, t1) if t1 > 0 else (-r1, -t1)


def _reconstruct(values, m, num_bound, den_bound):
    """Integers ``Y`` and one denominator ``D > 0`` with ``Y / D = values (mod m)``,
    ``|Y| <= num_bound``, ``D <= den_bound``; None if there are none."""
    D, Y = fmpz(1), []
    half = m // 2
    for u in values:
        y = (D * u) % m
        y = y - m if y > half else y
        if abs(y) > num_bound:
            frac = _half_gcd_fraction(y, m, num_bound, den_bound)
            if frac is None:
                return None
            a, b = frac
            D *= b
            if D > den_bound:
                return None
            Y = [v * b for v in Y]
            y = a
        Y.append(y)
    return Y, D


#: Fractions of the Hadamard number of steps at which the lifting tries to stop early
#: (the bound is loose for ill-conditioned matrices: by about half on the synthetic
#: heads). An early answer is accepted only after the exact check, like any other.
CHECKPOINTS = (0.3, 0.4, 0.5, 0.6, 0.75, 1.0)


def solve_integer_system(A, B, *, prime: int | None = None):
    """``(Y, D)`` with ``A Y = D B`` exactly, ``D > 0``, ``Y`` an ``N x r`` list of ints.

    ``A`` is a square integer matrix and ``B`` an integer matrix with as many rows
    (numpy int64 arrays or nested lists of ints). ``Y / D`` is ``A^{-1} B``, with ``D``
    the least common denominator of its entries. Returns None when ``A`` is singular
    (modulo every prime tried, and then over the rationals with overwhelming likelihood,
    but a caller must not read None as a proof of singularity) or when its entries are
    too large for the 64-bit residues (``N max|A| >= 2^61``); callers then use a
    general exact method.
    """
    A, B = _int64_matrix(A), _int64_matrix(B)
    if B is not None and B.ndim == 1:
        B = B[:, None]
    if A is None or B is None:
        return None  # entries beyond 64 bits
    N = A.shape[0]
    if A.ndim != 2 or A.shape != (N, N) or B.shape[0] != N or N == 0:
        raise ValueError(f"a square system is needed, got {A.shape} and {B.shape}")
    top_a, top_b = int(np.abs(A).max()), int(np.abs(B).max()) if B.size else 0
    if (N * top_a).bit_length() > _RESIDUE_BITS - 1 or top_b.bit_length() > _RESIDUE_BITS:
        return None
    # Matrix-vector sized products: BLAS threads only contend (measured ten times
    # slower with two threads on a shared two-core machine).
    with threadpool_limits(limits=1, user_api="blas"):
        return _solve(A, B, prime)


def _int64_matrix(M) -> np.ndarray | None:
    """``M`` as an int64 array, or None if an entry does not fit (|entry| < 2^63)."""
    if isinstance(M, np.ndarray) and M.dtype == np.int64:
        return M
    M = np.asarray(M, dtype=object)
    if M.size and max(abs(int(v)) for v in M.flat) >= 1 << 63:
        return None
    return M.astype(np.int64)


def _solve(A: np.ndarray, B: np.ndarray, prime: int | None):
    """:func:`solve_integer_system` for int64 ``A`` and ``B`` within the bounds."""
    N = A.shape[0]
    det_bits, num_bits = _bounds(A, B)
    p = None
    for _ in range(_PRIMES_TRIED):
        p = lifting_prime(N, below=p) if prime is None else prime
        C = _inverse_mod(A, p)
        if C is not None:
            break
        if prime is not None:
            return None
    else:
        return None
    steps = int(ceil((det_bits + num_bits + 2) / log2(p)))
    exact_A, exact_B = fmpz_mat(A.tolist()), fmpz_mat(B.tolist())
    r = B.shape[1]
    R, values, done = B, None, 0
    for fraction in CHECKPOINTS:
        target = max(done + 1, int(ceil(fraction * steps)))
        digits, R = _lift(A, R, C, p, target - done)
        part = _combine(digits.reshape(target - done, -1), p)
        values = part if values is None else values + part * fmpz(p) ** done
        done = target
        m = fmpz(p) ** done
        if done < steps:
            # Balanced bounds: a fraction found here is only a candidate.
            num_bound = den_bound = (m // 2).isqrt()
        else:
            num_bound, den_bound = fmpz(1) << num_bits, fmpz(1) << det_bits
        found = _reconstruct(values.tolist(), m, num_bound, den_bound)
        if found is None:
            continue
        flat, D = found
        Y = fmpz_mat([flat[j * r:(j + 1) * r] for j in range(N)])
        # The exact check that makes the answer exact, whatever happened above.
        if exact_A * Y == exact_B * D:
            return [[int(v) for v in flat[j * r:(j + 1) * r]] for j in range(N)], int(D)
    return None
