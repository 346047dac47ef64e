"""Benchmark: complete exact ranking patterns R(W) of random integer W.

W has entries uniform in [-5, 5] from a fixed seed. Each case runs in a fresh process so
that its peak memory (max RSS) is its own. Every cell comes with its exact witness,
which the engine checks before returning.

    python benchmarks/bench_patterns.py [--seed 0] [--cases 8x3,10x4,8x5] [--method cocircuits]

With ``--modes`` the same matrices go through the command line as well, each run under
``/usr/bin/time -v`` (wall time, CPU time = user + system, peak RSS):

    python benchmarks/bench_patterns.py --cases 12x5,13x5 --modes api,json,npz,count [--jobs 2]

``api`` is ``ranking_pattern`` in a child process; ``json`` is ``pattern --json``,
``jsonl``/``npz`` the streamed formats (to a file in a temporary directory), ``count``
is ``--count-only``, ``cert`` is ``--count-only`` with the streamed certificate
(``--certificate-format jsonl``) and ``check`` is ``python -m verify check`` of that
certificate (after ``cert``). The last column is CPU time over the API's. The machine is
shared, so compare CPU seconds rather than wall time.

The largest patterns (about 10^7 rankings at d = 5, 5 * 10^6 at d = 6) are the rows

    python benchmarks/bench_patterns.py --cases 16x5,12x6 --modes count

where ``--count-only`` checks the count against Zaslavsky's formula, from the Whitney
numbers rank by rank (:mod:`verify.arrangement.whitney`) and from the whole lattice of
flats where they give up; a disagreement stops the benchmark.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

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


def matrix(n: int, d: int, seed: int) -> list:
    import numpy as np

    return np.random.default_rng(seed).integers(-5, 6, size=(n, d)).tolist()


def timed(command: list[str]) -> dict:
    """Run ``command`` under ``/usr/bin/time -v``: wall and CPU seconds, peak MB."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True,
                         text=True, env=env)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])

    def field(name):
        return re.search(rf"{re.escape(name)}: (.*)", out.stderr)[1].strip()

    wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")
    seconds = sum(float(x) * 60 ** k for k, x in enumerate(reversed(wall)))
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    return {"wall": seconds, "cpu": cpu, "peak_mb": int(field("Maximum resident set size "
                                                              "(kbytes)")) / 1024,
            "stdout": out.stdout}


def run_modes(args) -> None:
    print(f"{'n':>3} {'d':>3} {'mode':>6} {'cells':>10} {'wall s':>8} {'CPU s':>8} "
          f"{'peak MB':>8} {'CPU/API':>8}")
    for case in args.cases.split(","):
        n, d = map(int, case.split("x"))
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "W.json"
            path.write_text(json.dumps(matrix(n, d, args.seed)))
            api_cpu, cells = None, None
            cert = Path(tmp) / "W.cert.jsonl"
            for mode in args.modes.split(","):
                base = [sys.executable, "-m", "verify", "pattern", "--kind", "ranking",
                        "--matrix", str(path), "--jobs", str(args.jobs)]
                if mode == "api":
                    command = [sys.executable, "-c", CHILD, str(n), str(d), str(args.seed),
                               "cocircuits"]
                elif mode == "json":
                    command = base + ["--json", "--output", str(Path(tmp) / "p.json")]
                elif mode in ("jsonl", "npz"):
                    command = base + ["--format", mode, "--output", str(Path(tmp) / f"p.{mode}")]
                elif mode == "count":
                    command = base + ["--count-only", "--json"]
                elif mode == "cert":
                    command = base + ["--count-only", "--json", "--certificate", str(cert),
                                      "--certificate-format", "jsonl"]
                elif mode == "check":
                    command = [sys.executable, "-m", "verify", "check", str(cert)]
                else:
                    raise SystemExit(f"unknown mode {mode}")
                r = timed(command)
                if mode == "api":
                    api_cpu, cells = r["cpu"], json.loads(r["stdout"])["cells"]
                elif mode in ("count", "cert"):
                    got = json.loads(r["stdout"])
                    cells = got["count"]
                    if got["zaslavsky"] not in (None, cells):
                        raise RuntimeError(f"count {cells} != Zaslavsky {got['zaslavsky']}")
                elif mode == "check":
                    cells = int(re.search(r"OK \(ranking pattern, (\d+) cell", r["stdout"])[1])
                elif mode == "npz":
                    import numpy as np

                    cells = int(np.load(Path(tmp) / "p.npz")["count"])
                ratio = f"{r['cpu'] / api_cpu:8.2f}" if api_cpu else f"{'':>8}"
                print(f"{n:>3} {d:>3} {mode:>6} {cells if cells is not None else '':>10} "
                      f"{r['wall']:>8.2f} {r['cpu']:>8.2f} {r['peak_mb']:>8.0f} {ratio}",
                      flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", default="8x3,10x4,8x5")
    parser.add_argument("--method", default="cocircuits", choices=("cocircuits", "graph"))
    parser.add_argument("--modes", help="api,json,jsonl,npz,count,cert,check: time the "
                                        "command line")
    parser.add_argument("--jobs", type=int, default=1, help="--jobs for the command line")
    args = parser.parse_args()
    if args.modes:
        run_modes(args)
        return
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
