"""Symbolic proofs, with sympy, of the identities behind the claims that ``verify`` checks.

Each module covers one topic and each proof is a function that returns a list of
``(description, holds)`` pairs: ``holds`` is ``True`` exactly when sympy reduced the
difference of the two sides of an identity to the zero polynomial (or zero rational
function) in the field of rational functions of its symbols, which proves the identity
for every value of the symbols.  The one exception is Lemma 3.1 for a symbolic number
of labels and dimension, where the sums stay unevaluated and sympy's ``simplify``
(equivalence transformations only) must return exactly 0.  A proof that sympy cannot
finish raises; it never reports ``True`` on a guess.

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
from sympy.polys.matrices import DomainMatrix
from sympy.polys.polyerrors import CoercionFailed, GeneratorsError

__all__ = ["Fact", "is_zero", "is_zero_matrix", "over_rational_functions"]

Fact = tuple  # (description: str, holds: bool)


def is_zero(expression) -> bool:
    """Whether a rational expression in its symbols is identically zero.

    The expression is converted into the field ``Q(symbols)`` of rational functions
    (sympy's sparse polynomial arithmetic, canonical numerator and denominator in
    lowest terms); it is identically zero exactly when it is the zero element there.
    Anything that is not a rational function of its symbols (a square root of a
    symbol, an exponential) raises instead of being guessed.
    """
    expression = sympy.sympify(expression)
    if expression.has(sympy.Float):
        raise ValueError(f"a floating-point number in a proof: {expression}")
    symbols = sorted(expression.free_symbols, key=sympy.default_sort_key)
    if not symbols:
        if not expression.is_Rational:
            raise ValueError(f"not a rational number: {expression}")
        return expression == 0
    field = sympy.QQ.frac_field(*symbols)
    try:
        element = field.from_sympy(expression)
    except (CoercionFailed, GeneratorsError) as error:
        raise ValueError(f"not a rational function of {symbols}: {error}") from None
    return element == field.zero


def is_zero_matrix(matrix) -> bool:
    """Whether every entry of a sympy matrix is identically zero (see :func:`is_zero`)."""
    return all(is_zero(entry) for entry in matrix)


def over_rational_functions(*matrices):
    """The matrices as :class:`DomainMatrix` over one field ``Q(symbols)``: ``(K, [..])``.

    Products computed there are reduced to lowest terms entry by entry, which keeps
    products of several rational matrices small; ``M.is_zero_matrix`` is then an exact
    test.  Scalars enter as ``K.convert(expression)``.
    """
    symbols = set()
    for M in matrices:
        symbols |= sympy.Matrix(M).free_symbols
    field = sympy.QQ.frac_field(*sorted(symbols, key=sympy.default_sort_key))
    converted = [DomainMatrix.from_list_sympy(*sympy.Matrix(M).shape,
                                              sympy.Matrix(M).tolist()).convert_to(field)
                 for M in matrices]
    return field, converted
