"""Output files survive failed and killed runs (issue 28, F11).

A run that fails, or is killed with SIGKILL at any moment, leaves its ``--output``
file either as it was or complete: never empty, never half written.
"""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verify import cli

ROOT = Path(__file__).resolve().parents[1]
OLD = b"the previous output, which must survive\n"


def _matrix_file(tmp_path) -> Path:
    """10 labels in dimension 4: about 19,000 rankings, long enough to be killed
    while the output is written."""
    rng = random.Random(1)
    path = tmp_path / "W.json"
    path.write_text(json.dumps([[rng.randint(-9, 9) for _ in range(4)] for _ in range(10)]))
    return path


def _command(matrix, fmt, output):
    return [sys.executable, "-m", "verify", "pattern", "--matrix", str(matrix),
            "--kind", "ranking", "--format", fmt, "--output", str(output)]


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT))


@pytest.mark.parametrize("fmt", ["npz", "json", "jsonl"])
def test_failed_run_leaves_previous_output(tmp_path, monkeypatch, capsys, fmt):
    """An enumeration that fails after its first block leaves the old file untouched."""
    import verify.arrangement.stream as stream

    real = stream.sign_pattern_blocks

    def failing(*args, **kwargs):
        blocks = real(*args, **kwargs)
        yield next(blocks)
        from verify.io.errors import InputError

        raise InputError("injected failure")

    monkeypatch.setattr(stream, "sign_pattern_blocks", failing)
    target = tmp_path / f"out.{fmt}"
    target.write_bytes(OLD)
    status = cli.main(["pattern", "--matrix", str(_matrix_file(tmp_path)), "--kind",
                       "ranking", "--format", fmt, "--output", str(target)])
    err = capsys.readouterr().err
    assert status == 2
    assert err.strip() == "verify: error: injected failure"
    assert target.read_bytes() == OLD
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("fmt", ["npz", "json", "jsonl"])
def test_killed_run_leaves_old_or_complete_output(tmp_path, fmt):
    """SIGKILL at seeded random moments: the target is the old file or the whole new one."""
    matrix = _matrix_file(tmp_path)
    reference = tmp_path / f"reference.{fmt}"
    start = time.perf_counter()
    subprocess.run(_command(matrix, fmt, reference), env=_env(), check=True,
                   capture_output=True, timeout=120)
    duration = time.perf_counter() - start
    expected = reference.read_bytes()
    assert expected and expected != OLD
    for seed in range(4):
        target = tmp_path / f"out-{seed}.{fmt}"
        target.write_bytes(OLD)
        # Kills spread over the second half of a run, where the output is produced.
        delay = random.Random(seed).uniform(0.4, 1.1) * duration
        process = subprocess.Popen(_command(matrix, fmt, target), env=_env(),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        got = target.read_bytes()
        assert got in (OLD, expected), (seed, delay, len(got))
    # A final uninterrupted run into the same directory completes the file.
    target = tmp_path / f"out-final.{fmt}"
    target.write_bytes(OLD)
    subprocess.run(_command(matrix, fmt, target), env=_env(), check=True,
                   capture_output=True, timeout=120)
    assert target.read_bytes() == expected
