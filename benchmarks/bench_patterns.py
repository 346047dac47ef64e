"""Benchmark: complete exact ranking patterns R(W) of random integer W.

W has entries uniform in [-5, 5] from a fixed seed. Each case runs in a fresh process so
that its peak memory (max RSS) is its own. Every cell comes with its exact witness,
which the engine checks before returning.

    python benchmarks/bench_patterns.py [--seed 0] [--cases 8x3,10x4,8x5] [--method cocircuits]
"""

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
import numpy as np
from verify.arrangement import ranking_pattern
n, d, seed, method = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
W = np.random.default_rng(seed).integers(-5, 6, size=(n, d)).tolist()
t = time.perf_counter()
R = ranking_pattern(W, method=method)
seconds = time.perf_counter() - t
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"n": n, "d": d, "cells": R.count, "seconds": seconds, "peak_mb": peak_kb / 1024}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", default="8x3,10x4,8x5")
    parser.add_argument("--method", default="cocircuits", choices=("cocircuits", "graph"))
    args = parser.parse_args()
    print(f"{'n':>3} {'d':>3} {'cells':>8} {'seconds':>9} {'cells/s':>10} {'peak MB':>8}")
    for case in args.cases.split(","):
        n, d = map(int, case.split("x"))
        out = subprocess.run([sys.executable, "-c", CHILD, str(n), str(d), str(args.seed),
                              args.method], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        print(f"{n:>3} {d:>3} {r['cells']:>8} {r['seconds']:>9.2f} "
              f"{r['cells'] / r['seconds']:>10.0f} {r['peak_mb']:>8.0f}")


if __name__ == "__main__":
    main()
