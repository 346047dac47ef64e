r"""Objectives (1) and (2) of Steck, Ekanadham & Kallus, §2 (symbolic part).

Data ``X`` (m x p), factors ``A, B`` (p x k); item embeddings are the rows of ``B``,
user embeddings the rows of ``XA``.  Frobenius norms throughout.

    (1)  f1(A, B) = |X - X A B^T|^2 + lambda |A B^T|^2
    (2)  f2(A, B) = |X - X A B^T|^2 + lambda (|X A|^2 + |B|^2)

**Rescaling invariance of (1) (§2.1, eq. 3).**  ``f1`` depends on ``A, B`` only through
``P = A B^T``, and for an invertible *diagonal* ``D`` (so ``D^T = D``)
``(A D)(B D^-1)^T = A D D^-1 B^T = A B^T``.

**Gradient and closed form of (1) (§2.2).**  As a function of ``P``,

    f1(P + E) = f1(P) + <G(P), E> + |X E|^2 + lambda |E|^2,
    G(P) = 2 (X^T X + lambda I) P - 2 X^T X,

so ``f1`` is a convex quadratic in ``P``, strictly convex for ``lambda > 0``; its
minimiser solves ``(X^T X + lambda I) P = X^T X``.  With ``X = U Sigma V^T`` this is
``P = V diag(sigma_i^2 / (sigma_i^2 + lambda)) V^T = V diag(1/(1 + lambda/sigma_i^2)) V^T``.

**Objective (2) (§2.3, eq. 6).**  Its gradients are

    df2/dA = -2 X^T (X - X A B^T) B + 2 lambda X^T X A,
    df2/dB = -2 (X - X A B^T)^T X A + 2 lambda B,

and ``A = V diag(sqrt(sigma_i^-1 (1 - lambda/sigma_i)_+))``,
``B = V diag(sqrt(sigma_i (1 - lambda/sigma_i)_+))`` make both vanish, with
``X A B^T = U diag((sigma_i - lambda)_+) V^T``.  For an orthogonal ``R``,
``(AR)(BR)^T = A B^T``, ``|X A R| = |X A|`` and ``|B R| = |B|``, so ``f2(AR, BR) = f2(A, B)``.
A diagonal ``D`` instead changes the regulariser by
``lambda sum_i ((d_i^2 - 1) |X A e_i|^2 + (d_i^-2 - 1) |B e_i|^2)``.

Symbolic orthogonal matrices come from the Cayley transform
``(I - K)(I + K)^-1`` of the skew-symmetric ``K = [[0, t], [-t, 0]]``: the rotation
``[[1 - t^2, -2t], [2t, 1 - t^2]] / (1 + t^2)``, rational in ``t``.
"""

from __future__ import annotations

import sympy

from proofs import Fact, is_zero, is_zero_matrix, over_rational_functions

__all__ = [
    "objective_1",
    "objective_2",
    "cayley_rotation",
    "eq1_rescaling_invariance",
    "eq1_gradient",
    "eq1_closed_form",
    "eq2_gradient",
    "eq2_rotation_invariance",
    "eq2_rescaling",
    "eq2_closed_form",
]

LAMBDA = sympy.Symbol("lambda", positive=True)


def _matrix(name: str, rows: int, columns: int) -> sympy.Matrix:
    return sympy.Matrix(rows, columns,
                        lambda i, j: sympy.Symbol(f"{name}{i}{j}", real=True))


def _frobenius_squared(M: sympy.Matrix):
    return sum(entry ** 2 for entry in M)


def objective_1(X, A, B, lam=LAMBDA):
    """``|X - X A B^T|^2 + lambda |A B^T|^2`` (Steck et al., eq. 1)."""
    P = A * B.T
    return _frobenius_squared(X - X * P) + lam * _frobenius_squared(P)


def objective_2(X, A, B, lam=LAMBDA):
    """``|X - X A B^T|^2 + lambda (|X A|^2 + |B|^2)`` (Steck et al., eq. 2)."""
    return (_frobenius_squared(X - X * A * B.T)
            + lam * (_frobenius_squared(X * A) + _frobenius_squared(B)))


def cayley_rotation(t) -> sympy.Matrix:
    """``(I - K)(I + K)^-1`` for ``K = [[0, t], [-t, 0]]``: orthogonal for every real t."""
    K = sympy.Matrix([[0, t], [-t, 0]])
    identity = sympy.eye(2)
    return ((identity - K) * (identity + K).inv()).applyfunc(sympy.cancel)


def eq1_rescaling_invariance(p: int = 2, k: int = 2, m: int = 2, D=None) -> list[Fact]:
    """``A D (B D^-1)^T = A B^T`` and ``f1(AD, BD^-1) = f1(A, B)`` for diagonal ``D``.

    ``D`` defaults to ``diag(d_1, ..., d_k)`` with symbolic non-zero ``d_i``; a
    non-diagonal ``D`` (``D^T != D``) makes both identities fail in general.
    """
    X, A, B = _matrix("x", m, p), _matrix("a", p, k), _matrix("b", p, k)
    if D is None:
        D = sympy.diag(*[sympy.Symbol(f"d{i}", nonzero=True, real=True) for i in range(k)])
    D = sympy.Matrix(D)
    D_inv = D.inv()
    product = is_zero_matrix(A * D * (B * D_inv).T - A * B.T)
    objective = is_zero(objective_1(X, A * D, B * D_inv) - objective_1(X, A, B))
    return [
        (f"A D (B D^-1)^T = A B^T (A, B {p} x {k} symbolic, "
         f"D = {sympy.sstr(D.tolist())})", product),
        (f"objective (1) unchanged: f1(A D, B D^-1) = f1(A, B) (X {m} x {p}, lambda "
         f"symbolic)", objective),
    ]


def eq1_gradient(m: int = 2, p: int = 2) -> list[Fact]:
    """The gradient of (1) in ``P`` and the exact second-order expansion."""
    X, P, E = _matrix("x", m, p), _matrix("p", p, p), _matrix("e", p, p)

    def f(Q):
        return _frobenius_squared(X - X * Q) + LAMBDA * _frobenius_squared(Q)

    G = 2 * (X.T * X + LAMBDA * sympy.eye(p)) * P - 2 * X.T * X
    derivative = all(is_zero(sympy.diff(f(P), P[i, j]) - G[i, j])
                     for i in range(p) for j in range(p))
    inner = sum(G[i, j] * E[i, j] for i in range(p) for j in range(p))
    expansion = is_zero(f(P + E) - f(P) - inner - _frobenius_squared(X * E)
                        - LAMBDA * _frobenius_squared(E))
    return [
        (f"df1/dP = 2 (X^T X + lambda I) P - 2 X^T X (X {m} x {p}, P symbolic)", derivative),
        ("f1(P + E) = f1(P) + <G(P), E> + |X E|^2 + lambda |E|^2: f1 is a convex "
         "quadratic in P, strictly convex for lambda > 0", expansion),
    ]


def _svd_2x2():
    """``X = U diag(sigma) V^T`` with symbolic Cayley rotations U, V and sigma_i > 0."""
    s, t = sympy.symbols("s t", real=True)
    sigma = sympy.symbols("sigma0 sigma1", positive=True)
    U, V = cayley_rotation(s), cayley_rotation(t)
    return U, sympy.diag(*sigma), V, sigma


def eq1_closed_form(shrink=None) -> list[Fact]:
    """The gradient of (1) vanishes at ``P = V diag(shrink(sigma_i, lambda)) V^T``.

    ``shrink`` defaults to the paper's ``1 / (1 + lambda / sigma^2)``.  ``X = U Sigma V^T``
    is 2 x 2 with U, V symbolic rotations and symbolic singular values.
    """
    if shrink is None:
        def shrink(sigma, lam):
            return 1 / (1 + lam / sigma ** 2)
    U, S, V, sigma = _svd_2x2()
    K, (U, S, V, W) = over_rational_functions(
        U, S, V, sympy.diag(*[shrink(s, LAMBDA) for s in sigma]))
    X = U * S * V.transpose()
    P = V * W * V.transpose()
    gram = X.transpose() * X
    gradient = (gram * P + P * K.convert(LAMBDA) - gram) * K.convert(2)
    return [("gradient of (1) vanishes at V diag(1/(1 + lambda/sigma_i^2)) V^T for "
             "X = U Sigma V^T (2 x 2; U, V Cayley rotations; sigma_i, lambda symbolic)",
             gradient.is_zero_matrix)]


def _eq2_gradients(X, A, B, lam=LAMBDA):
    residual = X - X * A * B.T
    grad_A = -2 * X.T * residual * B + 2 * lam * X.T * X * A
    grad_B = -2 * residual.T * X * A + 2 * lam * B
    return grad_A, grad_B


def eq2_gradient(m: int = 2, p: int = 2, k: int = 2) -> list[Fact]:
    """The gradients of (2) in ``A`` and ``B`` against sympy's derivatives."""
    X, A, B = _matrix("x", m, p), _matrix("a", p, k), _matrix("b", p, k)
    f = objective_2(X, A, B)
    grad_A, grad_B = _eq2_gradients(X, A, B)
    holds = (all(is_zero(sympy.diff(f, A[i, j]) - grad_A[i, j])
                 for i in range(p) for j in range(k))
             and all(is_zero(sympy.diff(f, B[i, j]) - grad_B[i, j])
                     for i in range(p) for j in range(k)))
    return [(f"df2/dA = -2 X^T (X - XAB^T) B + 2 lambda X^T X A and df2/dB = "
             f"-2 (X - XAB^T)^T X A + 2 lambda B (X {m} x {p}, A, B {p} x {k} "
             f"symbolic)", holds)]


def eq2_rotation_invariance(R=None) -> list[Fact]:
    """``f2(A R, B R) = f2(A, B)`` for the symbolic rotation R (2 x 2 Cayley)."""
    if R is None:
        R = cayley_rotation(sympy.Symbol("t", real=True))
    R = sympy.Matrix(R)
    X, A, B = _matrix("x", 2, 2), _matrix("a", 2, 2), _matrix("b", 2, 2)
    return [
        (f"R^T R = I for R = {sympy.sstr(R.tolist())}",
         is_zero_matrix(R.T * R - sympy.eye(2))),
        ("objective (2) unchanged: f2(A R, B R) = f2(A, B) (X, A, B 2 x 2 symbolic)",
         is_zero(objective_2(X, A * R, B * R) - objective_2(X, A, B))),
    ]


def eq2_rescaling(m: int = 2, p: int = 2, k: int = 2) -> list[Fact]:
    """How a diagonal ``D`` changes (2): only the regulariser moves, column by column."""
    X, A, B = _matrix("x", m, p), _matrix("a", p, k), _matrix("b", p, k)
    d = [sympy.Symbol(f"d{i}", nonzero=True, real=True) for i in range(k)]
    D = sympy.diag(*d)
    change = LAMBDA * sum(
        (d[i] ** 2 - 1) * _frobenius_squared((X * A)[:, i])
        + (d[i] ** -2 - 1) * _frobenius_squared(B[:, i]) for i in range(k))
    holds = is_zero(objective_2(X, A * D, B * D.inv()) - objective_2(X, A, B) - change)
    return [("f2(A D, B D^-1) - f2(A, B) = lambda sum_i ((d_i^2 - 1)|XA e_i|^2 + "
             "(d_i^-2 - 1)|B e_i|^2) (symbolic): with |XA e_i| = |B e_i| this is "
             "lambda sum_i |B e_i|^2 (d_i - 1/d_i)^2 >= 0", holds)]


def eq2_closed_form() -> list[Fact]:
    """Both gradients of (2) vanish at eq. 6 (2 x 2, all singular values above lambda).

    Writing ``sigma_i = lambda + r_i^2`` with ``r_i > 0`` keeps ``(1 - lambda/sigma_i)_+``
    positive and makes the square roots rational functions:
    ``sqrt(sigma_i^-1 (1 - lambda/sigma_i)) = sqrt(r_i^2 / sigma_i^2) = r_i / sigma_i`` and
    ``sqrt(sigma_i (1 - lambda/sigma_i)) = sqrt(r_i^2) = r_i`` (all quantities positive).
    """
    s, t = sympy.symbols("s t", real=True)
    r = sympy.symbols("r0 r1", positive=True)
    sigma = [LAMBDA + ri ** 2 for ri in r]
    U, V = cayley_rotation(s), cayley_rotation(t)
    X = U * sympy.diag(*sigma) * V.T
    radicands_A = [sigma[i] ** -1 * (1 - LAMBDA / sigma[i]) for i in range(2)]
    radicands_B = [sigma[i] * (1 - LAMBDA / sigma[i]) for i in range(2)]
    # r_i / sigma_i and r_i are positive and square to the radicands, so they are the
    # square roots: the proof never asks sympy to simplify a square root.
    named_A = [r[i] / sigma[i] for i in range(2)]
    named_B = [r[i] for i in range(2)]
    roots = all(is_zero(a ** 2 - ra) and is_zero(b ** 2 - rb)
                for a, ra, b, rb in zip(named_A, radicands_A, named_B, radicands_B))
    K, (U, V, S, DA, DB, T) = over_rational_functions(
        U, V, sympy.diag(*sigma), sympy.diag(*named_A), sympy.diag(*named_B),
        sympy.diag(*[ri ** 2 for ri in r]))
    X = U * S * V.transpose()
    A, B = V * DA, V * DB
    residual = X - X * A * B.transpose()
    two, two_lambda = K.convert(2), K.convert(2 * LAMBDA)
    grad_A = X.transpose() * residual * B * (-two) + X.transpose() * X * A * two_lambda
    grad_B = residual.transpose() * X * A * (-two) + B * two_lambda
    soft = U * T * V.transpose()
    return [
        ("with sigma_i = lambda + r_i^2 (r_i > 0): sqrt(sigma_i^-1 (1 - lambda/sigma_i)) "
         "= r_i/sigma_i and sqrt(sigma_i (1 - lambda/sigma_i)) = r_i (positive roots "
         "of the radicands)", roots),
        ("df2/dA = 0 and df2/dB = 0 at A = V diag(sqrt(sigma_i^-1 (1 - lambda/sigma_i))), "
         "B = V diag(sqrt(sigma_i (1 - lambda/sigma_i))) (2 x 2, U, V Cayley rotations, "
         "sigma_i > lambda symbolic)", grad_A.is_zero_matrix and grad_B.is_zero_matrix),
        ("X A B^T = U diag(sigma_i - lambda) V^T (soft-thresholded singular values)",
         (X * A * B.transpose() - soft).is_zero_matrix),
    ]
