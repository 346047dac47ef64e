"""Symbolic proofs, with sympy, of the identities behind the claims that ``verify`` checks.

Each module covers one topic and each proof is a function that returns a list of
``(description, holds)`` pairs: ``holds`` is ``True`` exactly when sympy reduced the
difference of the two sides of an identity to the zero polynomial (or zero rational
function), which proves the identity for every value of the symbols.  A proof that
sympy cannot finish raises; it never reports ``True`` on a guess.

* :mod:`proofs.softmax` -- translation invariance of softmax probabilities (Nielsen &
  Grivas, Lemma 3.1 and App. A), invariance of logit differences (Theorem 3.4), and
  the scaling ``W -> cW, f -> f/c`` of App. D.
* :mod:`proofs.cosine` -- when a cosine is exactly -1 or +1 (the equality case of
  Cauchy-Schwarz, through Lagrange's identity) and the translations of Lemmas 3.2
  and 3.3 (Nielsen & Grivas, App. B).
* :mod:`proofs.matrix_factorisation` -- objectives (1) and (2) of Steck et al.: the
  diagonal rescaling and rotation invariances, the gradients, and the closed forms.

The runners in :mod:`verify.claims.translation` and :mod:`verify.claims.steck` put
these proofs next to exact checks on rational instances.
"""

from __future__ import annotations

import sympy

__all__ = ["Fact", "is_zero", "is_zero_matrix"]

Fact = tuple  # (description: str, holds: bool)


def is_zero(expression) -> bool:
    """Whether a rational expression in the symbols is identically zero.

    ``cancel`` brings it to one fraction p/q of polynomials in lowest terms; the
    expression is identically zero exactly when p is the zero polynomial.
    """
    return sympy.cancel(sympy.together(sympy.expand(expression))) == 0


def is_zero_matrix(matrix) -> bool:
    """Whether every entry of a sympy matrix is identically zero (see :func:`is_zero`)."""
    return all(is_zero(entry) for entry in matrix)
