"""The memory budget of ``analyze``: block sizes, and a refusal when a head cannot fit.

Every large product of the analysis (rows times candidate points, rows times ray
directions, cosines of a block of labels against all labels) is computed for a block of
columns at a time, so that its temporaries take ``bytes_per_column * columns`` bytes.
What stays in memory for the whole run grows like the head, ``n * d``:

* the exact integer rows ``Z`` (int64) and their float copy ``F`` (float64),
* the unit-scaled witness points of the argmaxable labels (float64, ``d`` per label),
* the witnesses themselves (tuples of ``d`` small integers per label).

:func:`resident_bytes` estimates that at ``RESIDENT_BYTES_PER_ENTRY`` bytes per entry of
``W``; a head whose resident part alone exceeds the budget is refused with one line
(:class:`verify.io.errors.TooLargeError`, exit code 2) before anything is computed.

Example
-------
>>> budget = MemoryBudget(1 << 30)
>>> budget.columns(bytes_per_column=8 * 50_000) >= 1
True
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from verify.io.errors import TooLargeError

__all__ = [
    "DEFAULT_FRACTION",
    "MemoryBudget",
    "available_bytes",
    "default_budget",
    "resident_bytes",
]

#: Share of the available memory used when ``--memory`` is not given.
DEFAULT_FRACTION = 0.5
#: Bytes kept per entry of ``W`` for the whole run (see the module docstring).
RESIDENT_BYTES_PER_ENTRY = 40
#: Share of what the resident part leaves that one block of temporaries may use.
BLOCK_SHARE = 0.25
#: Bounds on the bytes of one block: small enough to stay in a shared machine's
#: memory, large enough for efficient matrix products.
MIN_BLOCK_BYTES = 16 << 20
MAX_BLOCK_BYTES = 128 << 20


def available_bytes() -> int:
    """Memory available to new processes (``MemAvailable`` of ``/proc/meminfo``).

    Falls back to the free physical pages, then to 4 GB when neither is known.
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 4 << 30


def resident_bytes(n: int, d: int) -> int:
    """Bytes the analysis of an ``n x d`` head keeps for the whole run (an estimate)."""
    return RESIDENT_BYTES_PER_ENTRY * n * d


@dataclass(frozen=True)
class MemoryBudget:
    """A memory budget in bytes; hands out block sizes.

    ``resident`` is the part reserved for what stays in memory (set by
    :meth:`for_head`); blocks share what is left.
    """

    total: int
    resident: int = 0

    def for_head(self, n: int, d: int, source: str = "the head") -> "MemoryBudget":
        """This budget with the head's resident part reserved; refuse if it cannot fit."""
        need = resident_bytes(n, d)
        if need + MIN_BLOCK_BYTES > self.total:
            raise TooLargeError(
                f"{source}: analysing {n} labels in dimension {d} needs about "
                f"{_gigabytes(need + MIN_BLOCK_BYTES)} GB of memory even in blocks; the "
                f"budget is {_gigabytes(self.total)} GB (raise it with --memory GB)")
        return MemoryBudget(self.total, need)

    @property
    def block_bytes(self) -> int:
        free = max(0, self.total - self.resident)
        return int(min(MAX_BLOCK_BYTES, max(MIN_BLOCK_BYTES, BLOCK_SHARE * free)))

    def columns(self, bytes_per_column: int, limit: int | None = None) -> int:
        """How many columns of ``bytes_per_column`` bytes one block may hold (>= 1)."""
        k = max(1, self.block_bytes // max(1, bytes_per_column))
        return k if limit is None else max(1, min(k, limit))


def _gigabytes(b: int) -> str:
    return f"{b / 1e9:.2f}"


def default_budget() -> MemoryBudget:
    """``DEFAULT_FRACTION`` of the available memory."""
    return MemoryBudget(int(DEFAULT_FRACTION * available_bytes()))
