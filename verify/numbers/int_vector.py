"""Integer vectors kept as int64 arrays and read as tuples of Python integers.

A witness of a large head is an integer point with ``d`` entries (1,024 on an OCR head
of 8,210 labels); the float32 screen finds thousands at once, as int64 arrays. Turned
into tuples of Python ``int`` they cost a pointer per entry (an object per entry too,
unless shared), a loop in the main process over every entry, and pickling entry by
entry between processes. :class:`IntVector` keeps the array (read-only) and behaves as
the tuple of its entries: every entry read is a Python ``int``, so exact arithmetic
downstream never meets a fixed-width integer; it compares equal to that tuple and
hashes like it; ``numpy.asarray`` gets the array without a copy.

Example
-------
>>> import numpy as np
>>> v = IntVector(np.array([3, -1, 2]))
>>> v == (3, -1, 2), hash(v) == hash((3, -1, 2))
(True, True)
>>> [type(x).__name__ for x in v], v[1:]
(['int', 'int', 'int'], (-1, 2))
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["IntVector", "float_direction"]


class IntVector(Sequence):
    """The tuple of the entries of a one-dimensional int64 array."""

    __slots__ = ("array",)

    def __init__(self, values):
        array = np.array(values, dtype=np.int64)
        if array.ndim != 1:
            raise ValueError("an IntVector has one dimension")
        array.setflags(write=False)
        self.array = array

    def __len__(self) -> int:
        return self.array.shape[0]

    def __getitem__(self, k):
        if isinstance(k, slice):
            return tuple(self.array[k].tolist())
        return int(self.array[k])

    def __iter__(self):
        return iter(self.array.tolist())

    def __eq__(self, other):
        if isinstance(other, IntVector):
            return bool(np.array_equal(self.array, other.array))
        if isinstance(other, tuple):
            return tuple(self) == other
        return NotImplemented

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"IntVector({tuple(self)!r})"

    def __array__(self, dtype=None, copy=None):
        if dtype is None or np.dtype(dtype) == self.array.dtype:
            return self.array.copy() if copy else self.array
        return self.array.astype(dtype)

    def __reduce__(self):
        return IntVector, (self.array,)


#: Entries of :func:`float_direction` stay below ``2^FLOAT_DIRECTION_BITS``.
FLOAT_DIRECTION_BITS = 60


def float_direction(point) -> np.ndarray:
    """An integer point of any size as float64 entries in its direction: each entry
    divided by one power of two ``2^e`` (the least that brings them below ``2^60``) and
    truncated toward zero, then rounded to binary64. For proposals only (a direction to
    search along), never for a verdict."""
    if isinstance(point, IntVector):
        a = point.array
        if not a.size or max(int(a.max()), -int(a.min())) < 1 << FLOAT_DIRECTION_BITS:
            return a.astype(np.float64)
    ints = [int(v) for v in point]
    top = max((abs(v).bit_length() for v in ints), default=0)
    shift = max(0, top - FLOAT_DIRECTION_BITS)
    return np.array([float(v >> shift) if v >= 0 else -float((-v) >> shift) for v in ints],
                    dtype=np.float64)
