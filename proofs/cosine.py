r"""Translations that make a cosine -1 or +1 (Nielsen & Grivas, Lemmas 3.2, 3.3, App. B).

**When is a cosine exactly -1 or +1?**  For non-zero ``a, b`` in R^d, Lagrange's identity

    |a|^2 |b|^2 - (a . b)^2 = sum_{k < l} (a_k b_l - a_l b_k)^2

shows ``(a . b)^2 <= |a|^2 |b|^2`` with equality exactly when every 2x2 minor of
``[a b]`` vanishes, i.e. when ``a`` and ``b`` are parallel.  Since
``cos(a, b) = a . b / (|a| |b|)`` and ``|a| |b| > 0``:

    cos(a, b) = -1  iff  (a . b)^2 = |a|^2 |b|^2  and  a . b < 0,
    cos(a, b) = +1  iff  (a . b)^2 = |a|^2 |b|^2  and  a . b > 0.

Both conditions are rational in the entries, so no square root is needed to check
them on rational vectors.

**Lemma 3.2.**  With ``u = -(v_i + v_j)/2``: ``a = v_i + u = (v_i - v_j)/2`` and
``b = v_j + u = -a``.  For ``v_i != v_j``, ``a != 0`` and ``a . b = -|a|^2 < 0``, so the
cosine is -1.

**Lemma 3.3.**  With ``u = -v_i + (v_j - v_i)/2``: ``a = (v_j - v_i)/2`` and
``b = 3 (v_j - v_i)/2 = 3a``; for ``v_i != v_j``, ``a . b = 3|a|^2 > 0``, so the cosine is +1.
If ``v_i = v_j``, any ``u`` with ``v_i + u != 0`` gives ``a = b != 0`` and cosine +1.
"""

from __future__ import annotations

from typing import Callable, Sequence

import sympy

from proofs import Fact, is_zero

__all__ = [
    "lemma_3_2_translation",
    "lemma_3_3_translation",
    "lagrange_identity",
    "lemma_3_2_construction",
    "lemma_3_3_construction",
]

Construction = Callable[[Sequence, Sequence], list]


def lemma_3_2_translation(vi: Sequence, vj: Sequence) -> list:
    """``u = -(v_i + v_j)/2`` (works on sympy expressions and on exact rationals alike)."""
    return [-(a + b) / 2 for a, b in zip(vi, vj)]


def lemma_3_3_translation(vi: Sequence, vj: Sequence) -> list:
    """``u = -v_i + (v_j - v_i)/2`` (works on sympy expressions and exact rationals)."""
    return [-a + (b - a) / 2 for a, b in zip(vi, vj)]


def _vector(name: str, d: int) -> list:
    return [sympy.Symbol(f"{name}{k}", real=True) for k in range(d)]


def _dot(a, b):
    return sum(s * t for s, t in zip(a, b))


def lagrange_identity(d: int = 3) -> list[Fact]:
    """``|a|^2 |b|^2 - (a.b)^2 = sum_{k<l} (a_k b_l - a_l b_k)^2`` for symbolic a, b in R^d."""
    a, b = _vector("a", d), _vector("b", d)
    minors = sum((a[k] * b[l] - a[l] * b[k]) ** 2 for k in range(d) for l in range(k + 1, d))
    holds = is_zero(_dot(a, a) * _dot(b, b) - _dot(a, b) ** 2 - minors)
    return [(f"Lagrange's identity |a|^2|b|^2 - (a.b)^2 = sum of squared 2x2 minors of "
             f"[a b] (a, b in R^{d} symbolic): equality in Cauchy-Schwarz iff a, b "
             f"parallel", holds)]


def _translated(construction: Construction, d: int):
    vi, vj = _vector("v", d), _vector("w", d)
    u = construction(vi, vj)
    a = [s + t for s, t in zip(vi, u)]
    b = [s + t for s, t in zip(vj, u)]
    return vi, vj, a, b


def lemma_3_2_construction(d: int = 3,
                           construction: Construction = lemma_3_2_translation) -> list[Fact]:
    """For symbolic ``v_i, v_j``: ``b = -a`` and ``a = (v_i - v_j)/2``, so cos = -1."""
    vi, vj, a, b = _translated(construction, d)
    return [
        (f"a + b = 0 where a = v_i + u, b = v_j + u (v_i, v_j in R^{d} symbolic)",
         all(is_zero(s + t) for s, t in zip(a, b))),
        ("a = (v_i - v_j)/2, non-zero exactly when v_i != v_j",
         all(is_zero(s - (p - q) / 2) for s, p, q in zip(a, vi, vj))),
        ("a.b = -|a|^2 and (a.b)^2 = |a|^2 |b|^2",
         is_zero(_dot(a, b) + _dot(a, a))
         and is_zero(_dot(a, b) ** 2 - _dot(a, a) * _dot(b, b))),
    ]


def lemma_3_3_construction(d: int = 3,
                           construction: Construction = lemma_3_3_translation) -> list[Fact]:
    """For symbolic ``v_i, v_j``: ``b = 3a`` and ``a = (v_j - v_i)/2``, so cos = +1."""
    vi, vj, a, b = _translated(construction, d)
    return [
        (f"b = 3a where a = v_i + u, b = v_j + u (v_i, v_j in R^{d} symbolic)",
         all(is_zero(t - 3 * s) for s, t in zip(a, b))),
        ("a = (v_j - v_i)/2, non-zero exactly when v_i != v_j",
         all(is_zero(s - (q - p) / 2) for s, p, q in zip(a, vi, vj))),
        ("a.b = 3|a|^2 and (a.b)^2 = |a|^2 |b|^2",
         is_zero(_dot(a, b) - 3 * _dot(a, a))
         and is_zero(_dot(a, b) ** 2 - _dot(a, a) * _dot(b, b))),
    ]
