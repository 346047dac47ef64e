r"""Softmax probabilities depend only on logit differences (Nielsen & Grivas, §3, App. A, D).

A softmax classifier with unembeddings ``w_0, ..., w_{n-1}`` and embedding ``x = f(input)``
assigns

    p_i(W, x) = exp(w_i . x) / sum_j exp(w_j . x).

**Lemma 3.1 (App. A).**  For every ``u``, ``p_i(W + 1 u^T, x) = p_i(W, x)``: every logit
grows by the same number ``u . x``, and ``exp(u . x)`` cancels between numerator and
denominator.  Equivalently, every logit difference is unchanged:

    (w_k + u) . x - (w_l + u) . x = w_k . x - w_l . x,

which is the form used for Theorem 3.4 (a softmax is a function of the logit
differences: ``p_i = 1 / sum_j exp((w_j - w_i) . x)``).

**App. D (scaling).**  For ``c != 0``, ``W -> cW`` together with ``f -> f/c`` keeps every
logit ``(c w_i) . (x / c) = w_i . x`` and so every probability, while Euclidean
distances between unembeddings scale: ``|c w_i - c w_j|^2 = c^2 |w_i - w_j|^2``.

The proofs below are exact: the exponentials are split with ``exp(a + b) = exp(a)
exp(b)`` and then replaced by independent symbols, so what remains is an identity of
rational functions, decided by cancelling to lowest terms.
"""

from __future__ import annotations

from typing import Callable, Sequence

import sympy

from proofs import Fact, is_zero

__all__ = [
    "add_to_every_row",
    "translation_invariance_general",
    "translation_invariance",
    "logit_differences_invariance",
    "scaling_invariance",
]

Translate = Callable[[Sequence[Sequence], Sequence], list]


def add_to_every_row(rows: Sequence[Sequence], u: Sequence) -> list:
    """The paper's construction: ``w_j -> w_j + u`` for every label ``j``.

    Written with ``+`` only, so the same function acts on sympy expressions and on
    exact rationals (the claim runners use it on both).
    """
    return [[a + b for a, b in zip(row, u)] for row in rows]


def _symbolic_rows(name: str, n: int, d: int) -> list[list[sympy.Symbol]]:
    return [[sympy.Symbol(f"{name}{j}_{k}", real=True) for k in range(d)] for j in range(n)]


def _symbolic_vector(name: str, d: int) -> list[sympy.Symbol]:
    return [sympy.Symbol(f"{name}{k}", real=True) for k in range(d)]


def _softmax(rows, x) -> list:
    logits = [sum(a * b for a, b in zip(row, x)) for row in rows]
    exps = [sympy.exp(t) for t in logits]
    total = sum(exps)
    return [e / total for e in exps]


def _exponentials_as_symbols(expression):
    """Split every ``exp(a + b)`` into ``exp(a) exp(b)``, then name each ``exp(.)``.

    After ``expand`` each exponential has a monomial argument (``exp(w x)``); replacing
    them by fresh symbols turns an identity between exponential expressions into an
    identity between rational functions, which implies the original one (it holds
    for every value of the fresh symbols, in particular for the exponentials).
    """
    expanded = sympy.expand(expression, power_exp=True, mul=True, multinomial=True)
    atoms = sorted(expanded.atoms(sympy.exp), key=sympy.default_sort_key)
    names = {a: sympy.Symbol(f"E{k}", positive=True) for k, a in enumerate(atoms)}
    return expanded.xreplace(names)


def translation_invariance_general() -> list[Fact]:
    """Lemma 3.1 for symbolic ``n`` labels, dimension ``d``, label ``i``, ``x`` and ``u``.

    The sums over labels and coordinates stay unevaluated (``Sum``); sympy's
    ``simplify`` pulls ``exp(sum_k u_k x_k)`` out of the sum over labels and
    cancels it.  Only a result of exactly 0 counts.
    """
    n, d = sympy.symbols("n d", integer=True, positive=True)
    i, j, k = sympy.symbols("i j k", integer=True)
    w, x, u = sympy.IndexedBase("w"), sympy.IndexedBase("x"), sympy.IndexedBase("u")

    def probability(shift):
        def logit(label):
            return sympy.Sum((w[label, k] + shift * u[k]) * x[k], (k, 1, d))
        return sympy.exp(logit(i)) / sympy.Sum(sympy.exp(logit(j)), (j, 1, n))

    difference = sympy.simplify(probability(1) - probability(0))
    return [("p_i(W + 1 u^T, x) - p_i(W, x) simplifies to 0 for symbolic n, d, i, x, u "
             "(sums over labels and coordinates unevaluated)", difference == 0)]


def translation_invariance(n: int = 3, d: int = 2,
                           translate: Translate = add_to_every_row) -> list[Fact]:
    """Lemma 3.1 with every entry of ``W``, ``u`` and ``x`` a symbol (``n`` labels in R^d).

    ``translate(rows, u)`` builds the second model; the paper's is
    :func:`add_to_every_row`.  A construction that moves only some rows fails here.
    """
    W = _symbolic_rows("w", n, d)
    u = _symbolic_vector("u", d)
    x = _symbolic_vector("x", d)
    before = _softmax(W, x)
    after = _softmax(translate(W, u), x)
    holds = all(is_zero(_exponentials_as_symbols(p - q)) for p, q in zip(after, before))
    return [(f"p_i(W + 1 u^T, x) = p_i(W, x) for i = 0..{n - 1}: identity of rational "
             f"functions in the exponentials, W ({n} x {d}), u and x all symbolic", holds)]


def logit_differences_invariance(n: int = 3, d: int = 3,
                                 translate: Translate = add_to_every_row) -> list[Fact]:
    """``(w'_k - w'_l) . x = (w_k - w_l) . x`` for all pairs, ``W' = translate(W, u)``."""
    W = _symbolic_rows("w", n, d)
    u = _symbolic_vector("u", d)
    x = _symbolic_vector("x", d)
    V = translate(W, u)

    def logit(rows, label):
        return sum(a * b for a, b in zip(rows[label], x))

    holds = all(is_zero((logit(V, k) - logit(V, l)) - (logit(W, k) - logit(W, l)))
                for k in range(n) for l in range(k + 1, n))
    return [(f"(w_k + u).x - (w_l + u).x = w_k.x - w_l.x for all pairs k < l "
             f"({n} labels in R^{d}, all entries symbolic)", holds)]


def scaling_invariance(d: int = 3, embedding_scale=None) -> list[Fact]:
    """App. D: ``W -> cW, f -> f/c`` keeps logits and scales distances by ``|c|``.

    ``embedding_scale(c)`` is the factor applied to the embedding (the paper's is
    ``1/c``); any other choice breaks the first identity.
    """
    c = sympy.Symbol("c", nonzero=True, real=True)
    scale = embedding_scale(c) if embedding_scale is not None else 1 / c
    wi, wj = _symbolic_vector("a", d), _symbolic_vector("b", d)
    x = _symbolic_vector("x", d)
    logit_kept = is_zero(sum((c * a) * (scale * t) for a, t in zip(wi, x))
                         - sum(a * t for a, t in zip(wi, x)))
    distance = sum((c * a - c * b) ** 2 for a, b in zip(wi, wj))
    scaled = is_zero(distance - c ** 2 * sum((a - b) ** 2 for a, b in zip(wi, wj)))
    return [
        (f"(c w_i).(s x) = w_i.x with s = {sympy.sstr(scale)} (w_i, x in R^{d}, c symbolic)",
         logit_kept),
        ("|c w_i - c w_j|^2 = c^2 |w_i - w_j|^2 (symbolic)", scaled),
    ]
