"""The streamed-certificate checker (:mod:`verify.checker.stream`) piece by piece.

Written so that a change to any check, bound or message of the checker fails a test
(mutation testing, ``docs/testing.md``): the external sort against ``sorted`` with the
number of runs open at once counted; the number and sign-vector helpers against their
definitions; every message named with its place; the summary's words.
"""

from __future__ import annotations

import json
import random
from itertools import combinations, permutations
from pathlib import Path

import pytest

import verify.checker.stream as stream
from verify.certificates.stream import write_ranking_certificate
from verify.checker.core import CertificateError, UnknownFormat
from verify.checker.stream import FORMAT, INTEGERS, check_stream_file


# --- the external sort -------------------------------------------------------------------

@pytest.fixture
def open_runs(monkeypatch):
    """Counts the run files being read at once (``stream._records`` generators alive)."""
    count = {"now": 0, "peak": 0, "opened": 0}
    records = stream._records

    def counted(path, width):
        count["now"] += 1
        count["opened"] += 1
        count["peak"] = max(count["peak"], count["now"])
        try:
            yield from records(path, width)
        finally:
            count["now"] -= 1

    monkeypatch.setattr(stream, "_records", counted)
    return count


@pytest.mark.parametrize("fan_in, run, size", [
    (2, 1, 15), (2, 1, 16), (2, 3, 100), (3, 1, 26), (3, 2, 200), (4, 5, 1000), (5, 1, 400)])
def test_the_external_sort_sorts_with_at_most_fan_in_runs_open(tmp_path, monkeypatch,
                                                               open_runs, fan_in, run, size):
    """With runs of ``run`` values, ``FAN_IN`` bounds the runs read at once both while
    adding (a full level is merged) and in the final merge, where the levels together
    can hold far more than ``FAN_IN`` runs (``(FAN_IN - 1)`` per level)."""
    monkeypatch.setattr(stream, "RUN", run)
    monkeypatch.setattr(stream, "FAN_IN", fan_in)
    monkeypatch.setattr(stream, "CHUNK", 2)
    rng = random.Random(size * fan_in + run)
    values = [rng.randrange(1 << 20) for _ in range(size)]
    sorter = stream._ExternalSort(str(tmp_path), 3)
    for v in values:
        sorter.add(v)
    assert list(sorter) == sorted(values)
    assert open_runs["now"] == 0
    assert open_runs["peak"] <= fan_in, open_runs
    assert open_runs["opened"] >= size // run  # the runs were on disk, not in memory
    # merged runs are removed: what is left are the runs of the last merge
    assert len(list(tmp_path.iterdir())) <= fan_in


def test_the_external_sort_of_nothing_and_of_one_run(tmp_path, open_runs):
    assert list(stream._ExternalSort(str(tmp_path), 2)) == []
    sorter = stream._ExternalSort(str(tmp_path), 2)
    for v in (5, 1, 65535, 0, 5):
        sorter.add(v)
    assert list(sorter) == [0, 1, 5, 5, 65535]
    assert open_runs["peak"] == 1
