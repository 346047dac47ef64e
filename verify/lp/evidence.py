"""The two answers of Gordan's alternative, shared by every strict-feasibility method.

For rows ``a_0 ... a_{N-1}`` (entries in Q or in an ordered field) exactly one of

* a :class:`Witness`: a point ``z`` with ``a_i . z > 0`` for every ``i``, or
* a :class:`GordanCertificate`: multipliers ``y >= 0``, not all zero, with
  ``sum_i y_i a_i = 0``

exists (Gordan 1873). :mod:`verify.lp.feasibility` (over Q) and
:mod:`verify.lp.field_simplex` (over any ordered field) both answer with these types,
which live here so that neither of the two modules has to import the other's.

Example
-------
>>> Witness(point=(1, 1))
Witness(point=(1, 1))
>>> GordanCertificate(multipliers=((0, 1), (1, 1))).multipliers
((0, 1), (1, 1))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

__all__ = ["Evidence", "GordanCertificate", "Witness"]


@dataclass(frozen=True)
class Witness:
    """A rational point ``z`` with ``A z > 0``."""

    point: tuple


@dataclass(frozen=True)
class GordanCertificate:
    """Multipliers ``y >= 0``, not all zero, with ``sum_i y_i a_i = 0``.

    ``multipliers`` is the sparse vector as sorted pairs ``(row index, y_i)`` with
    ``y_i > 0``.
    """

    multipliers: tuple


Evidence = Union[Witness, GordanCertificate]
