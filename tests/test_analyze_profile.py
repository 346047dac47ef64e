"""``analyze --profile``: wall clock and CPU per phase, and the main process's share."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np

from verify.analyze.head import make_head
from verify.analyze.parallel import Workers, worker_cpu
from verify.analyze.profile import Profile


def _burn(head, seconds):
    """CPU work of about ``seconds`` in the calling process."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return seconds


def test_worker_cpu_counts_the_work_of_worker_processes_only():
    head = make_head(np.eye(2, dtype=np.int64))
    before, main = worker_cpu(), time.process_time()
    with Workers(head, jobs=2) as workers:
        assert workers.map(_burn, [0.2, 0.2, 0.2]) == [0.2, 0.2, 0.2]
    assert worker_cpu() - before >= 0.6
    assert time.process_time() - main < 0.5
    before = worker_cpu()
    with Workers(head, jobs=1) as workers:  # in this process: not worker time
        workers.map(_burn, [0.1])
    assert worker_cpu() == before


def test_profile_splits_main_and_worker_time():
    head = make_head(np.eye(2, dtype=np.int64))
    profile = Profile()
    with profile.phase("work"):
        with Workers(head, jobs=2) as workers:
            workers.map(_burn, [0.3, 0.3])
    with profile.phase("serial"):
        _burn(head, 0.3)
    work, serial = profile.rows
    assert work.worker_cpu >= 0.6 and work.serial_share < 0.5
    assert serial.worker_cpu == 0 and serial.serial_share == 1
    table = profile.table().splitlines()
    assert [line.split()[0] for line in table] == ["phase", "work", "serial", "other",
                                                   "total"]
    total = profile.total()
    assert total.cpu >= work.cpu + serial.cpu


def test_profile_bar_times_a_phase_and_forwards_progress():
    seen = []

    class Inner:
        def __init__(self, description, total):
            seen.append(("open", description, total))

        def update(self, k):
            seen.append(("update", k))

        def close(self):
            seen.append(("close",))

    profile = Profile()
    bar = profile.progress(Inner)("labels", 3)
    bar.update(3)
    bar.close()
    assert seen == [("open", "labels", 3), ("update", 3), ("close",)]
    assert [row.name for row in profile.rows] == ["labels"]


def test_command_line_profile_goes_to_stderr_and_changes_no_output(tmp_path):
    matrix = tmp_path / "W.json"
    matrix.write_text("[[1, 0], [0, 1], [-1, -1], [1, 1], [0, 0]]")
    cmd = [sys.executable, "-m", "verify", "analyze", "--matrix", str(matrix), "--json",
           "--quiet"]
    plain = subprocess.run(cmd, capture_output=True, text=True, check=True)
    profiled = subprocess.run(cmd + ["--profile"], capture_output=True, text=True,
                              check=True)
    assert profiled.stdout == plain.stdout
    lines = [line for line in profiled.stderr.splitlines()
             if line.startswith("verify: profile:")]
    names = [line.split()[2] for line in lines]
    assert names[0] == "phase" and names[-2:] == ["other", "total"]
    assert "labels" in names and "pairs" in names
