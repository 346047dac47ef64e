r"""The matrix-factorisation claims of Steck, Ekanadham & Kallus (§2), checked exactly.

Data ``X`` (m x p) with SVD ``X = U Sigma V^T``, factors ``A, B`` (p x k); item embeddings
are the rows of ``B``, user embeddings the rows of ``XA``.

    (1)  |X - X A B^T|^2 + lambda |A B^T|^2
    (2)  |X - X A B^T|^2 + lambda (|X A|^2 + |B|^2)

* **eq1-invariance** (§2.1, eqs. 3-4): (1) depends on ``A B^T`` only, and
  ``(A D)(B D^-1)^T = A B^T`` for diagonal ``D``; the item-item (rows of ``B D^-1``),
  user-user (rows of ``X A D``) and user-item cosines nevertheless change with ``D``.
* **eq1-closed-form** (§2.2): ``A B^T = V_k diag(1/(1 + lambda/sigma_i^2)) V_k^T``.
  As a function of ``P = A B^T``, (1) is a convex quadratic with gradient
  ``2 (X^T X + lambda I) P - 2 X^T X``; for ``k = p`` the minimiser is unique.
* **full-rank** (§2.2, the two bullet points): with ``A = B = V diag(c)^(1/2)``,
  ``c_i = 1/(1 + lambda/sigma_i^2)``, and ``D = diag(c)^(1/2)``: ``B D^-1 = V`` so the
  item-item cosine matrix is ``V V^T = I``; with ``D^-1``: ``A D^-1 = V``, the user
  embeddings are ``X V`` and, since ``V V^T = I``, their cosines are those of the rows
  of ``X``.
* **eq2-unique** (§2.3, eq. 6): ``A = V_k diag(sqrt(sigma_i^-1 (1 - lambda/sigma_i)_+))``,
  ``B = V_k diag(sqrt(sigma_i (1 - lambda/sigma_i)_+))`` is a minimiser of (2), unique
  up to ``A -> AR, B -> BR`` with ``R`` orthogonal, which keeps every cosine.

**Exact instances.**  Rational orthogonal matrices come from the Cayley transform
``(I - K)(I + K)^-1`` of a rational skew-symmetric ``K`` (``I + K`` is invertible because
the eigenvalues of ``K`` are imaginary), so ``X = U Sigma V^T`` is rational with
known singular values.  The factors of the claims contain square roots of
rationals; they are :class:`~verify.numbers.sqrt_sum.SqrtSum` numbers, whose zero
test is exact, and so is every equality below.  Cosines are ``g_ij / sqrt(g_ii g_jj)``
for the Gram matrix ``g`` of the embeddings, whose diagonal is rational here.
The symbolic side is :mod:`proofs.matrix_factorisation`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import combinations

import sympy
from flint import fmpq, fmpq_mat

from proofs import matrix_factorisation as mf_proofs
from verify.certificates.writers import exact, exact_rows, instance_certificate, symbolic_note
from verify.claims.outcome import ClaimOutcome
from verify.io.errors import InputError
from verify.numbers.rational import format_rational
from verify.numbers.sqrt_sum import SqrtSum, cosine_matrix

__all__ = [
    "Instance",
    "cayley",
    "svd_instance",
    "paper_shrink",
    "check_eq1_invariance",
    "check_eq1_closed_form",
    "check_full_rank",
    "check_eq2_unique",
    "run_eq1_invariance",
    "run_eq1_closed_form",
    "run_full_rank",
    "run_eq2_unique",
]


# --- exact matrices: lists of rows of SqrtSum ---------------------------------------

def matrix(rows) -> list[list[SqrtSum]]:
    return [[x if isinstance(x, SqrtSum) else SqrtSum(x) for x in row] for row in rows]


def transpose(M):
    return [list(column) for column in zip(*M)]


def mul(A, B):
    Bt = transpose(B)
    return [[sum((a * b for a, b in zip(row, column)), SqrtSum(0)) for column in Bt]
            for row in A]


def add(A, B):
    return [[a + b for a, b in zip(r, s)] for r, s in zip(A, B)]


def sub(A, B):
    return [[a - b for a, b in zip(r, s)] for r, s in zip(A, B)]


def scale(M, c):
    c = SqrtSum(c) if not isinstance(c, SqrtSum) else c
    return [[c * a for a in row] for row in M]


def diag(values):
    n = len(values)
    return matrix([[values[i] if i == j else 0 for j in range(n)] for i in range(n)])


def identity(n: int):
    return diag([1] * n)


def first_columns(M, k: int):
    return [row[:k] for row in M]


def frobenius_squared(M) -> SqrtSum:
    return sum((a * a for row in M for a in row), SqrtSum(0))


def is_zero(M) -> bool:
    return all(a.is_zero() for row in M for a in row)


def equal(A, B) -> bool:
    return is_zero(sub(A, B))


def _rational(M) -> fmpq_mat:
    return fmpq_mat([[a.to_rational() for a in row] for row in matrix(M)])


def _from_fmpq_mat(M: fmpq_mat):
    return matrix([[M[i, j] for j in range(M.ncols())] for i in range(M.nrows())])


def determinant(M) -> fmpq:
    return _rational(M).det()


def inverse(M):
    """The inverse of an invertible rational matrix (exact, via flint)."""
    return _from_fmpq_mat(_rational(M).inv())


def _text(M) -> str:
    return "[" + ", ".join("[" + ", ".join(str(a) for a in row) + "]" for row in M) + "]"


def cayley(K):
    """``(I - K)(I + K)^-1``: orthogonal for a rational skew-symmetric K."""
    K = _rational(K)
    n = K.nrows()
    one = fmpq_mat(n, n, [fmpq(int(i == j)) for i in range(n) for j in range(n)])
    return _from_fmpq_mat((one - K) * (one + K).inv())


# --- cosines of embeddings ----------------------------------------------------------

def _squared_norms(M) -> list[fmpq]:
    norms = []
    for index, row in enumerate(M):
        value = sum((a * a for a in row), SqrtSum(0))
        if not value.is_rational():
            raise ValueError(f"row {index}: |row|^2 = {value} is irrational")
        if value.to_rational() == 0:
            raise ValueError(f"row {index} is zero: its cosine is undefined")
        norms.append(value.to_rational())
    return norms


def cross_cosines(M, N):
    """``cos(m_i, n_j) = m_i . n_j / sqrt(|m_i|^2 |n_j|^2)`` for the rows of M and N."""
    gram = mul(M, transpose(N))
    left, right = _squared_norms(M), _squared_norms(N)
    return [[g * SqrtSum.sqrt(1 / (a * b)) for g, b in zip(row, right)]
            for row, a in zip(gram, left)]


def row_cosines(M):
    """The cosine similarity matrix of the rows of M."""
    return cross_cosines(M, M)


def _first_difference(C1, C2) -> str:
    for i, (r, s) in enumerate(zip(C1, C2)):
        for j, (a, b) in enumerate(zip(r, s)):
            if a != b:
                return f"entry ({i}, {j}): {a} versus {b}"
    return "all entries equal"


def _cosine_step(outcome: ClaimOutcome, description: str, compute,
                 expect_equal: bool) -> bool:
    """Add the step "the two cosine matrices ``compute()`` are equal" (or differ).

    A zero row or an irrational squared norm leaves a cosine matrix without an exact
    value here; the step then fails with the reason instead of stopping the check.
    """
    try:
        C1, C2 = compute()
    except ValueError as error:
        return outcome.add(description, False, str(error))
    return outcome.add(description, equal(C1, C2) == expect_equal,
                       _first_difference(C1, C2))


# --- exact instances ----------------------------------------------------------------

@dataclass
class Instance:
    """``X = U diag(sigma) V^T`` with U (m x p) orthonormal columns, V (p x p) orthogonal."""

    X: list
    U: list
    sigma: list
    V: list

    @property
    def p(self) -> int:
        return len(self.V)

    def describe(self) -> str:
        sigmas = ", ".join(format_rational(s) for s in self.sigma)
        return (f"X = U Sigma V^T ({len(self.X)} x {self.p}, U, V Cayley transforms, "
                f"sigma = ({sigmas}))")


# Skew-symmetric K for the Cayley transforms; any rational choice works, these have
# unrelated small fractions so that no entry of U or V vanishes.
_K_U = [[0, 1, 0, fmpq(-1, 2)], [-1, 0, fmpq(1, 3), 0], [0, fmpq(-1, 3), 0, 2],
        [fmpq(1, 2), 0, -2, 0]]
_K_V = [[0, fmpq(1, 2), fmpq(-1, 3)], [fmpq(-1, 2), 0, fmpq(1, 4)],
        [fmpq(1, 3), fmpq(-1, 4), 0]]
_K_R = [[0, 1, 2], [-1, 0, fmpq(1, 2)], [-2, fmpq(-1, 2), 0]]


def svd_instance(sigma) -> Instance:
    """A rational 4 x 3 matrix with prescribed singular values (decreasing, > 0)."""
    sigma = [fmpq(s) if not isinstance(s, fmpq) else s for s in sigma]
    p = len(sigma)
    U = first_columns(cayley(_K_U), p)
    V = cayley(_K_V)
    X = mul(mul(U, diag(sigma)), transpose(V))
    return Instance(X=X, U=U, sigma=sigma, V=V)


def _instance_step(outcome: ClaimOutcome, inst: Instance) -> None:
    p = inst.p
    orthonormal = (equal(mul(transpose(inst.U), inst.U), identity(p))
                   and equal(mul(transpose(inst.V), inst.V), identity(p))
                   and equal(mul(inst.V, transpose(inst.V)), identity(p)))
    ordered = all(s > 0 for s in inst.sigma) and all(
        a > b for a, b in zip(inst.sigma, inst.sigma[1:]))
    product = equal(inst.X, mul(mul(inst.U, diag(inst.sigma)), transpose(inst.V)))
    outcome.add("instance: U^T U = I, V^T V = V V^T = I exactly, sigma decreasing and "
                "positive, so X = U Sigma V^T is an SVD", orthonormal and ordered and product,
                inst.describe() + "; X = " + _text(inst.X))


def _instance_document(inst: Instance, lam, **more) -> dict:
    """The ``input`` of a certificate: the instance, lambda, and the claim's own data
    (``more``, already in certificate form)."""
    return {"X": exact_rows(inst.X), "U": exact_rows(inst.U),
            "sigma": [exact(s) for s in inst.sigma], "V": exact_rows(inst.V),
            "lambda": exact(fmpq(lam)), **more}


def _add_facts(outcome: ClaimOutcome, facts, prefix: str = "symbolic: ") -> None:
    for description, holds in facts:
        outcome.add(prefix + description, holds)


def _finish(outcome: ClaimOutcome, start: float, evidence: str) -> ClaimOutcome:
    outcome.evidence = evidence
    outcome.seconds = time.perf_counter() - start
    return outcome


def _refuse_matrix(options, claim_id: str) -> None:
    if getattr(options, "matrix", None):
        raise InputError(f"{claim_id} is checked on built-in exact instances (X = U Sigma "
                         f"V^T with rational orthogonal U, V); --matrix is not supported")


# --- objectives and gradients -------------------------------------------------------

def objective_1(X, A, B, lam) -> SqrtSum:
    P = mul(A, transpose(B))
    return frobenius_squared(sub(X, mul(X, P))) + SqrtSum(lam) * frobenius_squared(P)


def gradient_1(X, P, lam):
    """``df1/dP = 2 (X^T X + lambda I) P - 2 X^T X`` (see proofs.matrix_factorisation)."""
    gram = mul(transpose(X), X)
    H = add(gram, scale(identity(len(P)), lam))
    return scale(sub(mul(H, P), gram), 2)


def objective_2(X, A, B, lam) -> SqrtSum:
    XA = mul(X, A)
    return (frobenius_squared(sub(X, mul(XA, transpose(B))))
            + SqrtSum(lam) * (frobenius_squared(XA) + frobenius_squared(B)))


def gradients_2(X, A, B, lam):
    """``df2/dA = -2 X^T R B + 2 lambda X^T X A``, ``df2/dB = -2 R^T X A + 2 lambda B``,
    with ``R = X - X A B^T``."""
    XA = mul(X, A)
    residual = sub(X, mul(XA, transpose(B)))
    grad_A = add(scale(mul(mul(transpose(X), residual), B), -2),
                 scale(mul(transpose(X), XA), 2 * lam))
    grad_B = add(scale(mul(transpose(residual), XA), -2), scale(B, 2 * lam))
    return grad_A, grad_B


def paper_shrink(sigma, lam):
    """``1 / (1 + lambda / sigma^2)``, the weights of eq. 5 (works on fmpq and sympy)."""
    return 1 / (1 + lam / sigma ** 2)


def _sympy_matrix(M) -> sympy.Matrix:
    return sympy.Matrix([[sympy.Rational(int(a.to_rational().p), int(a.to_rational().q))
                          for a in row] for row in matrix(M)])


# --- eq1-invariance -----------------------------------------------------------------

def check_eq1_invariance(inst: Instance, lam, k: int, scalings,
                         symbolic: bool = True) -> ClaimOutcome:
    """(1) unchanged by ``A -> AD, B -> BD^-1`` for each D of ``scalings``; cosines of the
    first two differ.  ``A = V_k diag(c)``, ``B = V_k`` is a minimiser of (1)."""
    outcome = ClaimOutcome("steck eq1-invariance")
    lam = fmpq(lam)
    if symbolic:
        _add_facts(outcome, mf_proofs.eq1_rescaling_invariance())
    _instance_step(outcome, inst)
    Vk = first_columns(inst.V, k)
    A = mul(Vk, diag([paper_shrink(s, lam) for s in inst.sigma[:k]]))
    B = Vk
    base = objective_1(inst.X, A, B, lam)
    embeddings = []
    for D in scalings:
        D = matrix(D)
        det = determinant(D)
        name = f"D = {_text(D)}"
        if not outcome.add(f"{name} is invertible", det != 0,
                           f"det D = {format_rational(det)}"):
            continue
        if symbolic:
            _add_facts(outcome, mf_proofs.eq1_rescaling_invariance(k=len(D),
                                                                   D=_sympy_matrix(D)),
                       prefix=f"symbolic, {name}: ")
        AD, BD = mul(A, D), mul(B, inverse(D))
        outcome.add(f"{name}: (A D)(B D^-1)^T = A B^T exactly",
                    equal(mul(AD, transpose(BD)), mul(A, transpose(B))))
        value = objective_1(inst.X, AD, BD, lam)
        outcome.add(f"{name}: objective (1) unchanged", value == base,
                    f"f1 = {value} (before: {base})")
        embeddings.append((name, AD, BD))
    if len(embeddings) < 2:
        outcome.add("two invertible D whose cosines can be compared", False)
        return outcome
    (name1, A1, B1), (name2, A2, B2) = embeddings[:2]
    XA1, XA2 = mul(inst.X, A1), mul(inst.X, A2)
    for what, compute in (
            ("item-item (rows of B D^-1)", lambda: (row_cosines(B1), row_cosines(B2))),
            ("user-user (rows of X A D)", lambda: (row_cosines(XA1), row_cosines(XA2))),
            ("user-item", lambda: (cross_cosines(XA1, B1), cross_cosines(XA2, B2)))):
        _cosine_step(outcome, f"{what} cosines differ between {name1} and {name2}",
                     compute, expect_equal=False)
    return outcome


def run_eq1_invariance(claim, options) -> ClaimOutcome:
    start = time.perf_counter()
    _refuse_matrix(options, claim.id)
    inst = svd_instance([3, 2, 1])
    scalings = [identity(2), diag([fmpq(2), fmpq(1, 3)])]
    outcome = check_eq1_invariance(inst, 1, 2, scalings)
    outcome.claim = claim.id
    if outcome.holds:
        Vk = first_columns(inst.V, 2)
        A = mul(Vk, diag([paper_shrink(s, fmpq(1)) for s in inst.sigma[:2]]))
        outcome.certificate = instance_certificate(
            claim.id,
            _instance_document(inst, 1, A=exact_rows(A), B=exact_rows(Vk),
                               D=[exact_rows(D) for D in scalings]),
            {"objective": exact(objective_1(inst.X, A, Vk, fmpq(1)))},
            {"D_inv": [exact_rows(inverse(D)) for D in scalings],
             "symbolic": symbolic_note(claim.id)})
    return _finish(outcome, start,
                   "lambda = 1, k = 2 on a rational 4 x 3 SVD instance: (1) identical for "
                   "D = I and D = diag(2, 1/3), all three cosine matrices differ")


# --- eq1-closed-form ----------------------------------------------------------------

def _leading_minors(M) -> list[fmpq]:
    Q = _rational(M)
    n = Q.nrows()
    return [fmpq_mat([[Q[i, j] for j in range(r)] for i in range(r)]).det()
            for r in range(1, n + 1)]


def _low_rank_value(sigma, lam, chosen) -> fmpq:
    """``f1`` at ``V_S diag(c_S) V_S^T``: sum over dropped sigma_i^2 plus, over the kept
    ones, ``lambda sigma_i^2 / (sigma_i^2 + lambda)``."""
    return sum((lam * s ** 2 / (s ** 2 + lam) if i in chosen else s ** 2
                for i, s in enumerate(sigma)), fmpq(0))


def _directions(p: int) -> list:
    """Two rational ``p x p`` directions ``E`` in which (1) is seen to rise."""
    return [matrix([[fmpq((-1) ** (i + j) * (i + 2 * j + 1), 3 + i) for j in range(p)]
                    for i in range(p)]),
            matrix([[fmpq(int(i == 0 and j == p - 1), 1) for j in range(p)]
                    for i in range(p)])]


def check_eq1_closed_form(inst: Instance, lam, low_rank: int = 2, shrink=paper_shrink,
                          symbolic: bool = True) -> ClaimOutcome:
    """The closed form ``V_k diag(shrink(sigma_i, lambda)) V_k^T`` minimises (1)."""
    outcome = ClaimOutcome("steck eq1-closed-form")
    lam = fmpq(lam)
    if symbolic:
        _add_facts(outcome, mf_proofs.eq1_gradient())
        _add_facts(outcome, mf_proofs.eq1_closed_form(shrink=shrink))
    _instance_step(outcome, inst)
    X, V, sigma, p = inst.X, inst.V, inst.sigma, inst.p
    weights = [fmpq(shrink(s, lam)) for s in sigma]
    P = mul(mul(V, diag(weights)), transpose(V))
    outcome.add("k = p: the gradient 2 (X^T X + lambda I) P - 2 X^T X of (1) vanishes at "
                "P = V diag(1/(1 + lambda/sigma_i^2)) V^T", is_zero(gradient_1(X, P, lam)),
                "P = " + _text(P))
    H = add(mul(transpose(X), X), scale(identity(p), lam))
    minors = _leading_minors(H)
    outcome.add("X^T X + lambda I is positive definite (leading principal minors > 0): (1) "
                "is strictly convex in P, so the zero of its gradient is the unique "
                "minimiser", all(m > 0 for m in minors),
                "minors " + ", ".join(format_rational(m) for m in minors))
    directions = _directions(p)
    f0 = objective_1(X, P, identity(p), lam)
    rises = [objective_1(X, add(P, E), identity(p), lam) - f0
             == frobenius_squared(mul(X, E)) + SqrtSum(lam) * frobenius_squared(E)
             for E in directions]
    outcome.add(f"exact: f1(P + E) - f1(P) = |X E|^2 + lambda |E|^2 > 0 for {len(directions)} "
                f"rational directions E", all(rises))
    if not outcome.add("the weights are positive (their square roots factor P)",
                       all(w > 0 for w in weights)):
        return outcome
    roots = [SqrtSum.sqrt(w) for w in weights]
    A = mul(V, diag(roots))
    outcome.add("eq. 5: A = B = V diag(1/(1 + lambda/sigma_i^2))^(1/2) gives A B^T = P "
                "exactly", equal(mul(A, transpose(A)), P),
                "A = " + _text(A))
    # rank k < p: P = A B^T is constrained, so test stationarity in A and B.
    k = low_rank
    Ak = first_columns(A, k)
    Pk = mul(Ak, transpose(Ak))
    G = gradient_1(X, Pk, lam)
    outcome.add(f"k = {k}: at A = B = V_k diag(..)^(1/2) both gradients d/dA = G B and "
                f"d/dB = G^T A of (1) vanish (G = df1/dP)",
                is_zero(mul(G, Ak)) and is_zero(mul(transpose(G), Ak)))
    value = objective_1(X, Ak, Ak, lam)
    top = set(range(k))
    expected = _low_rank_value(sigma, lam, top)
    outcome.add(f"k = {k}: f1 = sum_(i > k) sigma_i^2 + sum_(i <= k) lambda sigma_i^2/"
                f"(sigma_i^2 + lambda)", value == expected,
                f"f1 = {value}, formula {format_rational(expected)}")
    others = {S: _low_rank_value(sigma, lam, set(S))
              for S in combinations(range(p), k) if set(S) != top}
    outcome.add(f"k = {k}: every other choice of {k} singular directions gives a larger "
                f"value of (1)", all(v > value for v in others.values()),
                "; ".join(f"{list(S)}: {format_rational(v)}" for S, v in others.items()))
    return outcome


def run_eq1_closed_form(claim, options) -> ClaimOutcome:
    start = time.perf_counter()
    _refuse_matrix(options, claim.id)
    inst, lam, k = svd_instance([3, 2, 1]), fmpq(1), 2
    outcome = check_eq1_closed_form(inst, lam, low_rank=k)
    outcome.claim = claim.id
    if outcome.holds:
        roots = [SqrtSum.sqrt(paper_shrink(s, lam)) for s in inst.sigma]
        Ak = first_columns(mul(inst.V, diag(roots)), k)
        outcome.certificate = instance_certificate(
            claim.id, _instance_document(inst, lam, k=k, directions=[
                exact_rows(E) for E in _directions(inst.p)]),
            {"objective_k": exact(objective_1(inst.X, Ak, Ak, lam))},
            {"roots": [exact(r) for r in roots], "symbolic": symbolic_note(claim.id)})
    return _finish(outcome, start,
                   "lambda = 1, sigma = (3, 2, 1): zero gradient, positive definite "
                   "Hessian (unique for k = p), eq. 5 factors it, k = 2 stationary and best")


# --- full-rank ----------------------------------------------------------------------

class _SortKey:
    """Exact ordering of SqrtSum values for ``sorted`` (ties broken by index there)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __lt__(self, other):
        return self.value < other.value


def check_full_rank(inst: Instance, lam, root=SqrtSum.sqrt,
                    symbolic: bool = True) -> ClaimOutcome:
    """The two choices of D of §2.2 for ``k = p``; ``D = diag(root(c_i))``."""
    outcome = ClaimOutcome("steck full-rank")
    lam = fmpq(lam)
    if symbolic:
        _add_facts(outcome, mf_proofs.eq1_closed_form())
    _instance_step(outcome, inst)
    X, V, p = inst.X, inst.V, inst.p
    c = [paper_shrink(s, lam) for s in inst.sigma]
    A = B = mul(V, diag([SqrtSum.sqrt(ci) for ci in c]))
    gram = mul(transpose(X), X)
    outcome.add("A = B = V diag(c)^(1/2), c_i = 1/(1 + lambda/sigma_i^2), minimise (1): "
                "(X^T X + lambda I) A B^T = X^T X exactly",
                equal(mul(add(gram, scale(identity(p), lam)), mul(A, transpose(B))), gram),
                "A = " + _text(A))
    d = [root(ci) for ci in c]
    d = [x if isinstance(x, SqrtSum) else SqrtSum(x) for x in d]
    D, D_inv = diag(d), diag([1 / x for x in d])
    AD, BD = mul(A, D), mul(B, D_inv)
    outcome.add("D = diag(c)^(1/2): B^(D) = B D^-1 = V", equal(BD, V), "B D^-1 = " + _text(BD))
    outcome.add("D = diag(c)^(1/2): A^(D) = A D = V diag(c)", equal(AD, mul(V, diag(c))))
    _cosine_step(outcome, "item-item cosine matrix of the rows of B^(D) is the identity: "
                 "each item is similar only to itself",
                 lambda: (row_cosines(BD), identity(p)), expect_equal=True)
    users = mul(X, AD)
    scores = mul(users, transpose(BD))

    def cosine_and_normalised_scores():
        user_norms = [SqrtSum.sqrt(n) for n in _squared_norms(users)]
        return (cross_cosines(users, BD),
                [[s / n for s in row] for row, n in zip(scores, user_norms)])

    if _cosine_step(outcome, "user-item cosine = dot product X A B^T divided by the user's "
                    "norm only (item embeddings have norm 1)",
                    cosine_and_normalised_scores, expect_equal=True):
        user_item = cross_cosines(users, BD)
        same_rankings = all(
            sorted(range(p), key=lambda j, r=row_c: _SortKey(r[j]))
            == sorted(range(p), key=lambda j, r=row_s: _SortKey(r[j]))
            for row_c, row_s in zip(user_item, scores))
        outcome.add("so every user ranks the items identically by cosine and by dot "
                    "product", same_rankings)
    # The other choice: D^-1 in place of D.
    AD2, BD2 = mul(A, D_inv), mul(B, D)
    outcome.add("D^-1 instead: A^(D) = A D^-1 = V and B^(D) = B D = V diag(c)",
                equal(AD2, V) and equal(BD2, mul(V, diag(c))))
    raw = cosine_matrix([[a.to_rational() for a in row] for row in X])
    _cosine_step(outcome, "D^-1: user-user cosine (rows of X A^(D) = X V) equals the "
                 "cosine matrix of the rows of X",
                 lambda: (row_cosines(mul(X, AD2)), raw), expect_equal=True)
    _cosine_step(outcome, "D^-1: the item-item cosines are no longer the identity (the "
                 "choice of D decides them)",
                 lambda: (row_cosines(BD2), identity(p)), expect_equal=False)
    return outcome


def run_full_rank(claim, options) -> ClaimOutcome:
    start = time.perf_counter()
    _refuse_matrix(options, claim.id)
    inst, lam = svd_instance([3, 2, 1]), fmpq(1)
    outcome = check_full_rank(inst, lam)
    outcome.claim = claim.id
    if outcome.holds:
        c = [paper_shrink(s, lam) for s in inst.sigma]
        outcome.certificate = instance_certificate(
            claim.id, _instance_document(inst, lam), {"c": [exact(ci) for ci in c]},
            {"roots": [exact(SqrtSum.sqrt(ci)) for ci in c],
             "inverse_roots": [exact(1 / SqrtSum.sqrt(ci)) for ci in c],
             "symbolic": symbolic_note(claim.id)})
    return _finish(outcome, start,
                   "lambda = 1, sigma = (3, 2, 1), c = (9/10, 4/5, 1/2): B D^-1 = V and "
                   "item-item cosine = I; with D^-1 user-user cosine = cos(rows of X)")


# --- eq2-unique ---------------------------------------------------------------------

def _eq2_weights(inst: Instance, lam, kept=None):
    """The diagonals ``a``, ``b`` of eq. 6 with ``k = p``: 0 where ``sigma_i <= lambda``
    (or ``i`` not in ``kept``)."""
    a, b = [], []
    for i, s in enumerate(inst.sigma):
        on = (s > lam) and (kept is None or i in kept)
        a.append(SqrtSum.sqrt((1 - lam / s) / s) if on else SqrtSum(0))
        b.append(SqrtSum.sqrt(s * (1 - lam / s)) if on else SqrtSum(0))
    return a, b


def _eq2_factors(inst: Instance, lam, kept=None):
    """Eq. 6 with ``k = p``: ``A = V diag(a)``, ``B = V diag(b)``."""
    a, b = _eq2_weights(inst, lam, kept)
    return mul(inst.V, diag(a)), mul(inst.V, diag(b))


def check_eq2_unique(inst: Instance, lam, rotation, rescaling,
                     symbolic: bool = True) -> ClaimOutcome:
    """Eq. 6 minimises (2); ``rotation`` keeps (2) and the cosines; ``rescaling`` (a
    diagonal D) does not keep (2)."""
    outcome = ClaimOutcome("steck eq2-unique")
    lam = fmpq(lam)
    if symbolic:
        _add_facts(outcome, mf_proofs.eq2_gradient())
        _add_facts(outcome, mf_proofs.eq2_closed_form())
        _add_facts(outcome, mf_proofs.eq2_rescaling())
        _add_facts(outcome, mf_proofs.eq2_rotation_invariance())
    _instance_step(outcome, inst)
    X, U, V, sigma, p = inst.X, inst.U, inst.V, inst.sigma, inst.p
    A, B = _eq2_factors(inst, lam)
    grad_A, grad_B = gradients_2(X, A, B, lam)
    outcome.add("eq. 6: df2/dA = 0 and df2/dB = 0 exactly (square roots exact)",
                is_zero(grad_A) and is_zero(grad_B),
                "A = " + _text(A) + ", B = " + _text(B))
    soft = [max(s - lam, fmpq(0)) for s in sigma]
    outcome.add("X A B^T = U diag((sigma_i - lambda)_+) V^T (soft-thresholded SVD)",
                equal(mul(mul(X, A), transpose(B)), mul(mul(U, diag(soft)), transpose(V))))
    XA = mul(X, A)
    balanced = all(frobenius_squared([[row[i]] for row in XA]) == soft[i]
                   == frobenius_squared([[row[i]] for row in B]) for i in range(p))
    outcome.add("|X A e_i|^2 = |B e_i|^2 = (sigma_i - lambda)_+ for every column",
                balanced)
    value = objective_2(X, A, B, lam)
    formula = sum((s ** 2 if s <= lam else 2 * lam * s - lam ** 2 for s in sigma), fmpq(0))
    outcome.add("f2 = sum_i (2 lambda sigma_i - lambda^2 if sigma_i > lambda else "
                "sigma_i^2)", value == formula, f"f2 = {value}")
    active = [i for i, s in enumerate(sigma) if s > lam]
    others = []
    for r in range(len(active)):
        for kept in combinations(active, r):
            Ak, Bk = _eq2_factors(inst, lam, set(kept))
            others.append((kept, objective_2(X, Ak, Bk, lam)))
    outcome.add("every stationary point that drops singular directions has a larger "
                "value of (2)", all(v > value for _, v in others),
                "; ".join(f"kept {list(kept)}: {v}" for kept, v in others))
    # A diagonal rescaling is not a symmetry of (2).
    D = matrix(rescaling)
    d = [D[i][i] for i in range(p)]
    if not outcome.add(f"D = {_text(D)} is diagonal and invertible",
                       all(D[i][j].is_zero() for i in range(p) for j in range(p) if i != j)
                       and all(not x.is_zero() for x in d)):
        return outcome
    change = objective_2(X, mul(A, D), mul(B, inverse(D)), lam) - value
    predicted = SqrtSum(lam) * sum((SqrtSum(si) * (di - 1 / di) ** 2
                                    for si, di in zip(soft, d)), SqrtSum(0))
    outcome.add(f"D = {_text(D)}: f2(A D, B D^-1) - f2(A, B) = lambda sum_i (sigma_i - "
                f"lambda)_+ (d_i - 1/d_i)^2 > 0: no diagonal freedom in (2)",
                change == predicted and change > 0, f"increase {change}")
    # Rotation.
    R = matrix(rotation)
    outcome.add(f"R = {_text(R)} is orthogonal: R^T R = I exactly",
                equal(mul(transpose(R), R), identity(len(R))))
    AR, BR = mul(A, R), mul(B, R)
    rotated = objective_2(X, AR, BR, lam)
    outcome.add("f2(A R, B R) = f2(A, B)", rotated == value, f"f2(AR, BR) = {rotated}")
    gAR, gBR = gradients_2(X, AR, BR, lam)
    outcome.add("(A R, B R) is again a zero of both gradients", is_zero(gAR) and is_zero(gBR))
    XAR = mul(X, AR)
    for what, compute in (
            ("item-item (rows of B)", lambda: (row_cosines(B), row_cosines(BR))),
            ("user-user (rows of X A)", lambda: (row_cosines(XA), row_cosines(XAR))),
            ("user-item", lambda: (cross_cosines(XA, B), cross_cosines(XAR, BR)))):
        _cosine_step(outcome, f"{what} cosines invariant under R (exact)", compute,
                     expect_equal=True)
    return outcome


def run_eq2_unique(claim, options) -> ClaimOutcome:
    start = time.perf_counter()
    _refuse_matrix(options, claim.id)
    inst, lam = svd_instance([5, 3, fmpq(1, 2)]), fmpq(1)
    R, D = cayley(_K_R), diag([2, fmpq(1, 3), 5])
    outcome = check_eq2_unique(inst, lam, R, D)
    outcome.claim = claim.id
    if outcome.holds:
        a, b = _eq2_weights(inst, lam)
        A, B = _eq2_factors(inst, lam)
        value = objective_2(inst.X, A, B, lam)
        outcome.certificate = instance_certificate(
            claim.id, _instance_document(inst, lam, R=exact_rows(R), D=exact_rows(D)),
            {"objective": exact(value),
             "increase": exact(objective_2(inst.X, mul(A, D), mul(B, inverse(D)), lam)
                               - value)},
            {"a": [exact(x) for x in a], "b": [exact(x) for x in b],
             "D_inv": exact_rows(inverse(D)), "symbolic": symbolic_note(claim.id)})
    return _finish(outcome, start,
                   "lambda = 1, sigma = (5, 3, 1/2) (one direction cut by (.)_+): zero "
                   "gradients at eq. 6, rotation by a Cayley R keeps (2) and all cosines, "
                   "D = diag(2, 1/3, 5) raises (2)")
