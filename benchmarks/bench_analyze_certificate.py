"""Benchmark: ``python -m verify check`` on an ``analyze`` certificate of a given size.

Running the analysis of a language-model-size head takes long; the check does not
depend on how the evidence was found. This builds a valid certificate directly: the rows
of a Gaussian ``n x d`` matrix scaled to length ``2^30`` and rounded to integers (``Z``),
every label argmaxable with its own row as witness (``z_t . z_t > z_t . z_k``: distinct
rows of nearly equal length; the writer checks a sample exactly). Its check costs what
the argmax witnesses of a real head of that size cost; tie witnesses cost the same per
witness (one column of the product ``Z X`` each).

    python benchmarks/bench_analyze_certificate.py --n 50257 --d 768 --out /tmp/big.zip
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from verify.analyze.certificate import write_archive  # noqa: E402


def sphere_head(n: int, d: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    Z = np.empty((n, d), dtype=np.int64)
    for lo in range(0, n, 4096):
        block = rng.standard_normal((min(n, lo + 4096) - lo, d))
        block /= np.linalg.norm(block, axis=1)[:, None]
        Z[lo:lo + len(block)] = np.rint(block * 2.0 ** 30).astype(np.int64)
    return Z


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=50257)
    p.add_argument("--d", type=int, default=768)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="/tmp/bench-analyze-certificate.zip")
    args = p.parse_args()
    t0 = time.perf_counter()
    Z = sphere_head(args.n, args.d, args.seed)
    sample = Z[: min(args.n, 200)].tolist()
    for t, x in enumerate(sample):  # exact, on a sample: own row wins
        top = sum(a * b for a, b in zip(sample[t], x))
        assert all(sum(a * b for a, b in zip(row, x)) < top
                   for k, row in enumerate(sample) if k != t)
    empty = np.zeros(0, dtype=np.int64)
    arrays = {"Z": Z, "argmax_labels": np.arange(args.n, dtype=np.int64), "argmax_points": Z,
              "hull_labels": empty, "hull_offsets": np.zeros(1, dtype=np.int64),
              "hull_support": empty, "hull_weights": empty, "hull_denominators": empty,
              "tie_pairs": np.zeros((0, 2), dtype=np.int64),
              "tie_points": np.zeros((0, args.d), dtype=np.int64),
              "non_tie_pairs": np.zeros((0, 2), dtype=np.int64),
              "non_tie_offsets": np.zeros(1, dtype=np.int64), "non_tie_support": empty,
              "non_tie_weights": empty, "non_tie_denominators": empty, "non_tie_t": empty}
    facts = {"n": args.n, "d": args.d, "scale": Fraction(1), "bias": False,
             "assertion": {"argmaxable": args.n, "unargmaxable": 0, "tie_pairs": 0,
                           "non_tie_pairs": 0, "complete": args.n == 1}}
    write_archive(args.out, arrays, facts, {"name": None, "sha256": None, "tensor": None})
    written = time.perf_counter() - t0
    print(f"certificate {args.n} x {args.d}: {os.path.getsize(args.out) / 1e6:.0f} MB, "
          f"built and written in {written:.1f} s")
    load = os.getloadavg()
    proc = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "verify", "check",
                           args.out], capture_output=True, text=True)
    wall = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", proc.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    print(proc.stdout.strip() or proc.stderr.strip().splitlines()[0])
    print(f"verify check: {wall.group(1) if wall else '?'} wall clock, peak RSS "
          f"{int(rss.group(1)) / 1e6 if rss else float('nan'):.2f} GB; load average before "
          f"{' '.join(f'{v:.2f}' for v in load)}, after "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())} (on {os.cpu_count()} cores)")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
