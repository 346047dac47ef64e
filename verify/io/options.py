"""Values of command-line options, parsed for ``argparse`` (``type=...``).

Shared by the main parser (:mod:`verify.cli`) and the subcommands that register
themselves on it (:mod:`verify.analyze.command`), so that neither imports the other.

Example
-------
>>> non_negative_int("3")
3
>>> non_negative_int("-1")
Traceback (most recent call last):
    ...
argparse.ArgumentTypeError: must be >= 0: -1
"""

from __future__ import annotations

import argparse
import os

__all__ = ["available_cpus", "non_negative_int", "positive_int"]


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0: {text}")
    return value


def positive_int(text: str) -> int:
    value = non_negative_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1: {text}")
    return value


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the platform has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
