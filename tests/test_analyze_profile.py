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


def test_stages_are_listed_under_their_phase_and_not_counted_twice():
    from verify.analyze.profile import stage

    head = make_head(np.eye(2, dtype=np.int64))
    with stage("nowhere"):  # no active profile: nothing recorded, no error
        pass
    profile = Profile().activate()
    try:
        bar = profile.progress()("labels", 2)
        with stage("screen"):
            _burn(head, 0.1)
        with stage("per label"):
            _burn(head, 0.1)
        bar.close()
        bar = profile.progress()("pairs", 0)
        with stage("per pair"):
            pass
        bar.close()
    finally:
        profile.deactivate()
    with stage("after"):
        pass
    assert [(r.name, r.level) for r in profile.rows] == [
        ("labels", 0), ("screen", 1), ("per label", 1), ("pairs", 0), ("per pair", 1)]
    names = [line.split()[0] for line in profile.table().splitlines()]
    assert names == ["phase", "labels", "screen", "per-label", "pairs", "per-pair",
                     "other", "total"]
    labels, screen, per_label = profile.rows[:3]
    assert labels.main_cpu >= screen.main_cpu + per_label.main_cpu
    other = profile.table().splitlines()[-2].split()
    # "other" is the total less the top-level phases only
    assert float(other[2]) < labels.cpu


def test_command_line_profile_lists_the_stages_of_a_large_head(tmp_path, monkeypatch):
    """A head screened in float32 (the entry threshold lowered) shows its stages."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    import verify.analyze.head as head_module
    from verify.cli import main

    monkeypatch.setattr(head_module, "SCREEN_MIN_ENTRIES", 1)
    rng = np.random.default_rng(3)
    W = rng.integers(-50, 50, size=(60, 4))
    path = tmp_path / "W.npy"
    np.save(path, W)
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        assert main(["analyze", "--matrix", str(path), "--quiet", "--profile",
                     "--neighbours", "1"]) == 0
    names = [line.split()[2] for line in err.getvalue().splitlines()
             if line.startswith("verify: profile:")]
    assert names[:2] == ["phase", "labels"]
    for name in ("blobs", "screen", "per-label", "pairs", "other", "total"):
        assert name in names


def test_a_stage_run_twice_in_a_phase_is_one_row():
    """The pair screen runs before and after the segments on some heads: one row,
    the times added; a stage of the same name in another phase keeps its own row."""
    from verify.analyze.profile import stage

    profile = Profile().activate()
    try:
        for phase in ("labels", "pairs"):
            bar = profile.progress()(phase, 0)
            for name in ("screen", "segments", "screen"):
                with stage(name):
                    _burn(None, 0.05)
            bar.close()
    finally:
        profile.deactivate()
    names = [(r.level, r.name) for r in profile.rows]
    assert names == [(0, "labels"), (1, "screen"), (1, "segments"),
                     (0, "pairs"), (1, "screen"), (1, "segments")]
    for r in profile.rows:
        if r.name == "screen":
            assert r.main_cpu >= 0.1 - 0.01  # both runs
        if r.name == "segments":
            assert r.main_cpu < 0.1 - 0.01
