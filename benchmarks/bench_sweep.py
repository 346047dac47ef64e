"""Benchmark: sweep throughput with 1 and 2 worker processes and a 2-worker LocalCluster.

    python benchmarks/bench_sweep.py [--n 5] [--d 3] [--matrices 200] [--repeat 3]

Runs `theorem 5.6` over the default family, each configuration in a fresh process, and
prints the sweep's own wall time (family, checks, merge; for the cluster its start-up
too; interpreter start-up and imports excluded), matrices per second and the speed-up
over one worker; the median of ``--repeat`` rounds in which the configurations take
turns, with a pause after each run so that no process of it is still exiting (a
longer one after the cluster). The reports of all runs must be identical.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time

CHILD = r"""
import json, sys, time
from types import SimpleNamespace
from verify.claims.registry import CLAIMS
from verify.claims.run_all import default_options
n, d, m, jobs, scheduler = sys.argv[1:6]
claim = CLAIMS["theorem 5.6"]
opts = default_options(claim)
opts.n, opts.d, opts.matrices, opts.jobs = int(n), int(d), int(m), int(jobs)
opts.scheduler = scheduler or None
import verify.claims.cosine_patterns  # imports outside the timing, as for every configuration
t = time.perf_counter()
report = claim.run(opts)
print(json.dumps({"seconds": time.perf_counter() - t, "report": report.to_json()}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--d", type=int, default=3)
    parser.add_argument("--matrices", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    configs = [("1 worker", "1", ""), ("2 workers", "2", ""),
               ("LocalCluster, 2 workers", "2", "local")]
    reports = set()
    times: dict[str, list[float]] = {name: [] for name, _, _ in configs}
    print(f"theorem 5.6 --n {args.n} --d {args.d} --matrices {args.matrices} "
          f"(median of {args.repeat})")
    # The configurations take turns, so that slow drifts of the machine's speed fall
    # on all of them alike.
    for _ in range(args.repeat):
        for name, jobs, scheduler in configs:
            # a cluster's processes take seconds to go away; a pool's, milliseconds
            time.sleep(0.2)
            out = subprocess.run([sys.executable, "-c", CHILD, str(args.n), str(args.d),
                                  str(args.matrices), jobs, scheduler],
                                 capture_output=True, text=True, check=True)
            result = json.loads(out.stdout.strip().splitlines()[-1])
            times[name].append(result["seconds"])
            reports.add(json.dumps(result["report"]))
            if scheduler:
                time.sleep(3)
    base = statistics.median(times[configs[0][0]])
    for name, _, _ in configs:
        runs = times[name]
        seconds = statistics.median(runs)
        print(f"{name:>24}: {seconds:6.2f} s  {args.matrices / seconds:6.1f} matrices/s  "
              f"speed-up {base / seconds:.2f}x   (runs: {', '.join(f'{t:.2f}' for t in runs)})")
    print("identical reports:", len(reports) == 1)


if __name__ == "__main__":
    main()
