"""Type aliases of the public API (``docs/api.md``): what an entry and a matrix may be.

Annotations only: the names are strings resolved by type checkers, so importing this
module imports nothing but the standard library.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol, Sequence, TypeAlias

if TYPE_CHECKING:
    from flint import fmpq
    from verify.numbers.sqrt_sum import SqrtSum

__all__ = ["Entry", "ExactEntry", "ExactRows", "Matrix", "SupportsArray", "Vector"]


class SupportsArray(Protocol):
    """An array: a numpy array, or anything with ``__array__`` (a torch tensor on the CPU)."""

    def __array__(self) -> Any: ...


#: An entry read exactly: ``int`` (and ``bool``), ``Fraction``, ``fmpq``, a string such
#: as ``"1/3"``, ``"0.1"`` or ``"5*sqrt(2)/2"``, a binary float at its exact value, or
#: an element of ``Q(√…)``.
Entry: TypeAlias = "int | float | Fraction | str | fmpq | SqrtSum"
#: An exact entry, as the exact rows of :func:`verify.exact_matrix` hold them.
ExactEntry: TypeAlias = "int | Fraction | fmpq | SqrtSum"
#: A matrix: a list of rows of entries, or an array (numpy, anything with ``__array__``).
Matrix: TypeAlias = "Sequence[Sequence[Entry]] | SupportsArray"
#: A vector (a bias, for example): a list of entries or a one-dimensional array.
Vector: TypeAlias = "Sequence[Entry] | SupportsArray"
#: Rows of exact entries.
ExactRows: TypeAlias = "Sequence[Sequence[ExactEntry]]"
