"""Benchmark: sweep throughput with 1 and 2 worker processes and a 2-worker LocalCluster.

    python benchmarks/bench_sweep.py [--n 5] [--d 3] [--matrices 200]

Runs `theorem 5.6` over the default family in a fresh process per configuration and
prints matrices per second and the speed-up over one worker. The JSON reports of all
configurations must be identical.
"""

import argparse
import subprocess
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--d", type=int, default=3)
    parser.add_argument("--matrices", type=int, default=200)
    args = parser.parse_args()
    base = [sys.executable, "-m", "verify", "theorem", "5.6", "--n", str(args.n), "--d",
            str(args.d), "--matrices", str(args.matrices), "--json", "--quiet"]
    configs = [("1 worker", ["--jobs", "1"]), ("2 workers", ["--jobs", "2"]),
               ("LocalCluster, 2 workers", ["--jobs", "2", "--scheduler", "local"])]
    outputs, first = set(), None
    print(f"theorem 5.6 --n {args.n} --d {args.d} --matrices {args.matrices}")
    for name, extra in configs:
        t = time.perf_counter()
        out = subprocess.run(base + extra, capture_output=True, text=True, check=True)
        seconds = time.perf_counter() - t
        outputs.add(out.stdout)
        first = first or seconds
        print(f"{name:>24}: {seconds:6.2f} s  {args.matrices / seconds:6.1f} matrices/s  "
              f"speed-up {first / seconds:.2f}x")
    print("identical reports:", len(outputs) == 1)


if __name__ == "__main__":
    main()
