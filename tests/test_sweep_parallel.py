"""Parallel sweeps, checkpoints and shards give exactly the uninterrupted result."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SWEEP = ["theorem", "5.6", "--n", "4", "--d", "2", "--matrices", "24", "--json", "--quiet"]


def run(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True,
                          text=True, cwd=cwd, env=env)


@pytest.fixture(scope="module")
def uninterrupted():
    res = run(*SWEEP)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_jobs_1_and_2_give_identical_json(uninterrupted):
    two = run(*SWEEP, "--jobs", "2")
    assert two.returncode == 0 and two.stdout == uninterrupted
    assert json.loads(uninterrupted)["checked"] > 0


def test_checkpoint_resume_skips_done_work_and_matches(tmp_path, uninterrupted):
    ckpt = tmp_path / "c.jsonl"
    first = run(*SWEEP, "--checkpoint", str(ckpt))
    assert first.stdout == uninterrupted
    lines = ckpt.read_text().splitlines()
    assert json.loads(lines[0])["format"] == "verify-checkpoint/2"
    assert len(lines) == 1 + 24
    # keep the header and 10 records, then cut the next line in half (a crash mid-write)
    partial = "\n".join(lines[:11]) + "\n" + lines[11][: len(lines[11]) // 2]
    ckpt.write_text(partial)
    resumed = run(*SWEEP, "--checkpoint", str(ckpt))
    assert resumed.returncode == 0 and resumed.stdout == uninterrupted
    assert len(ckpt.read_text().splitlines()) == 1 + 24


def test_kill_9_and_resume(tmp_path, uninterrupted):
    ckpt = tmp_path / "k.jsonl"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "verify", *SWEEP, "--checkpoint",
                             str(ckpt)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env)
    deadline = time.time() + 60
    while time.time() < deadline:  # wait until some, not all, matrices are done
        if ckpt.exists() and ckpt.read_text().count("\n") >= 4:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    resumed = run(*SWEEP, "--checkpoint", str(ckpt))
    assert resumed.returncode == 0 and resumed.stdout == uninterrupted


def test_checkpoint_from_other_arguments_is_refused(tmp_path):
    ckpt = tmp_path / "c.jsonl"
    assert run(*SWEEP, "--checkpoint", str(ckpt)).returncode == 0
    other = run("theorem", "5.6", "--n", "4", "--d", "2", "--matrices", "24", "--seed",
                "1", "--json", "--checkpoint", str(ckpt))
    assert other.returncode == 2
    line, = other.stderr.strip().splitlines()
    assert "different arguments" in line
    lemma = run("lemma", "5.3", "--n", "4", "--d", "2", "--matrices", "24",
                "--checkpoint", str(ckpt))
    assert lemma.returncode == 2 and "different arguments" in lemma.stderr


def test_shards_merge_into_the_full_result(tmp_path, uninterrupted):
    parts = []
    for i in (1, 2, 3):
        path = tmp_path / f"s{i}.jsonl"
        res = run(*SWEEP, "--shard", f"{i}/3", "--checkpoint", str(path))
        assert res.returncode == 0, res.stderr
        parts.append(str(path))
    merged = run(*SWEEP, "--merge", *parts)
    assert merged.returncode == 0 and merged.stdout == uninterrupted
    incomplete = run(*SWEEP, "--merge", *parts[:2])
    assert incomplete.returncode == 2 and "finish every shard" in incomplete.stderr


def test_local_dask_cluster_gives_the_same_result(uninterrupted):
    pytest.importorskip("dask.distributed")
    res = run(*SWEEP, "--jobs", "2", "--scheduler", "local")
    assert res.returncode == 0, res.stderr
    assert res.stdout == uninterrupted
