"""Benchmark: ``analyze --certificate`` against ``verify check`` for every dtype the engine reads.

One Gaussian head (``numpy.random.default_rng(SEED).standard_normal((n, d))``) in six
forms: float64, float32 and float16 ``.npy`` files, a bf16 ``.safetensors`` file (the
float32 values rounded to bfloat16), an integer ``.npy`` file (``rint(1000 W)``) and a
text file of fractions ``p/q`` (``q`` drawn from 1..49, ``p = rint(q W)``; ``Z`` is then
the least common multiple of the denominators times ``W``). For each: the wall time of
``python -m verify analyze --matrix FILE --certificate C --quiet --json``, then of
``python -m verify check C`` with one process and with ``--jobs 2``, the checks
repeated ``--repeat`` times, alternately, and their medians printed (the machine may
be shared: compare medians).

    python benchmarks/bench_check_dtypes.py --n 3000 --d 64 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zipfile

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DTYPES = ("float64", "float32", "float16", "bf16", "integer", "rational")


def to_bfloat16_bits(a: np.ndarray) -> np.ndarray:
    """float32 values rounded to the nearest bfloat16 (ties to even), as uint16 bits."""
    bits = a.astype(np.float32).view(np.uint32)
    rounding = ((bits >> 16) & 1) + np.uint32(0x7FFF)
    return ((bits + rounding) >> 16).astype("<u2")


def write_head(W: np.ndarray, dtype: str, folder: str, seed: int) -> str:
    if dtype in ("float64", "float32", "float16"):
        path = os.path.join(folder, f"{dtype}.npy")
        np.save(path, W.astype(dtype))
    elif dtype == "integer":
        path = os.path.join(folder, "integer.npy")
        np.save(path, np.rint(W * 1000).astype(np.int64))
    elif dtype == "bf16":
        path = os.path.join(folder, "bf16.safetensors")
        raw = to_bfloat16_bits(W).tobytes()
        header = json.dumps({"lm_head.weight": {"dtype": "BF16", "shape": list(W.shape),
                                                "data_offsets": [0, len(raw)]}}).encode()
        with open(path, "wb") as f:
            f.write(struct.pack("<Q", len(header)) + header + raw)
    else:
        path = os.path.join(folder, "rational.txt")
        rng = np.random.default_rng(seed + 1)
        q = rng.integers(1, 50, size=W.shape)
        p = np.rint(W * q).astype(np.int64)
        with open(path, "w") as f:
            for prow, qrow in zip(p.tolist(), q.tolist()):
                f.write(" ".join(f"{a}/{b}" for a, b in zip(prow, qrow)) + "\n")
    return path


def timed(args) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "verify", *args], cwd=ROOT,
                          capture_output=True, text=True)
    return time.perf_counter() - t0, proc


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=3000)
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--dtypes", default=",".join(DTYPES))
    p.add_argument("--folder", default=None, help="keep the heads and certificates here")
    args = p.parse_args()
    W = np.random.default_rng(args.seed).standard_normal((args.n, args.d))
    folder = args.folder or tempfile.mkdtemp(prefix="bench-check-dtypes-")
    os.makedirs(folder, exist_ok=True)
    print(f"head {args.n} x {args.d}, seed {args.seed}; {os.cpu_count()} cores, load "
          f"average {' '.join(f'{v:.2f}' for v in os.getloadavg())}; files in {folder}")
    print("| dtype | Z | tie witnesses | certificate | analyze --certificate | check | "
          "check --jobs 2 |")
    print("|---|---|---|---|---|---|---|")
    for dtype in args.dtypes.split(","):
        head = write_head(W, dtype, folder, args.seed)
        cert = os.path.join(folder, f"{dtype}.zip")
        written, proc = timed(["analyze", "--matrix", head, "--certificate", cert,
                               "--quiet", "--json"])
        if proc.returncode != 0:
            print(f"| {dtype} | analyze failed: {proc.stderr.strip()[-200:]} |")
            continue
        checks = {1: [], 2: []}
        for _ in range(args.repeat):
            for jobs in (1, 2):
                seconds, proc = timed(["check", cert] + (["--jobs", "2"] if jobs == 2 else []))
                if proc.returncode != 0:
                    raise SystemExit(f"{dtype}: check failed: {proc.stderr.strip()}")
                checks[jobs].append(seconds)
        with zipfile.ZipFile(cert) as z:
            manifest = json.loads(z.read("manifest.json"))
        enc = manifest["evidence"]["encoding"]["Z"]
        print(f"| {dtype} | {enc} | {manifest['assertion']['tie_pairs']:,} | "
              f"{os.path.getsize(cert) / 1e6:.1f} MB | {written:.1f} s | "
              f"{statistics.median(checks[1]):.1f} s | {statistics.median(checks[2]):.1f} s |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
