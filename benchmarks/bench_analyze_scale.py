"""Benchmark: `python -m verify analyze` on realistic synthetic heads of language-model size.

The synthetic head imitates what trained unembeddings look like: a common offset (every
row shares a mean vector), an anisotropic power-law spectrum (singular values
``k^-alpha`` along random directions), a few low-norm "untrained" rows placed deep
inside the hull (near the centroid, so unargmaxable), near-duplicate rows (a trained row
plus noise at 1e-6 of its size) and exact duplicates. Entries are rounded to float32 or
to bfloat16 (kept in a float32 ``.npy`` file: every bfloat16 number is a float32
number), and the analysis takes them at their exact binary values.

    python benchmarks/bench_analyze_scale.py --n 5000 --d 64
    python benchmarks/bench_analyze_scale.py --n 50257 --d 768 --memory 4
    python benchmarks/bench_analyze_scale.py --n 32000 --d 4096 --dtype bf16 --jobs 2

Reports wall clock, CPU time and peak RSS of the command (``/usr/bin/time -v``), the
machine's load average before and after (the machine may be shared), and the analysis
summary.

At ``d = 768`` the "untrained" rows of this generator are mostly *not* inside the hull:
their noise (``1e-3`` of the mean entry in every coordinate) is large against the
smallest principal directions of the head, so in whitened coordinates they lie about
as far out as the trained rows (measured on 50,257 x 768: 48 % of them win at their
own Mahalanobis direction at once, all but one after relaxation). The unargmaxable
labels of that head are the exact duplicates and that one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np


def to_bfloat16(a: np.ndarray) -> np.ndarray:
    """Round float32 values to the nearest bfloat16 (ties to even), as float32."""
    bits = a.astype(np.float32).view(np.uint32)
    rounding = ((bits >> 16) & 1) + np.uint32(0x7FFF)
    return ((bits + rounding) & np.uint32(0xFFFF0000)).view(np.float32)


def synthetic_head(n: int, d: int, *, seed: int = 0, dtype: str = "f32",
                   alpha: float = 0.8, untrained: float = 0.01, near: float = 0.005,
                   duplicates: float = 0.002) -> np.ndarray:
    """An ``n x d`` head as described in the module docstring (deterministic in ``seed``).

    ``untrained``, ``near`` and ``duplicates`` are the fractions of rows of each kind.
    """
    rng = np.random.default_rng(seed)
    spectrum = np.arange(1, d + 1, dtype=np.float64) ** -alpha
    mixing = rng.standard_normal((d, d)) / np.sqrt(d)
    offset = rng.standard_normal(d) * 0.5
    W = np.empty((n, d), dtype=np.float32)
    step = 4096
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        block = (rng.standard_normal((hi - lo, d)) * spectrum) @ mixing + offset
        W[lo:hi] = block.astype(np.float32)
    k_untrained, k_near, k_dup = (int(f * n) for f in (untrained, near, duplicates))
    rows = rng.permutation(n)
    spots = iter(rows)
    centre = W.mean(axis=0, dtype=np.float64)
    scale = float(np.abs(W).mean())
    for _ in range(k_untrained):
        W[next(spots)] = (centre + rng.standard_normal(d) * 1e-3 * scale).astype(np.float32)
    for _ in range(k_near):
        src, dst = next(spots), next(spots)
        noise = rng.standard_normal(d) * 1e-6 * np.abs(W[src]).astype(np.float64)
        W[dst] = (W[src] + noise).astype(np.float32)
    for _ in range(k_dup):
        src, dst = next(spots), next(spots)
        W[dst] = W[src]
    return to_bfloat16(W) if dtype == "bf16" else W


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def run(path: str, extra: list[str]) -> tuple[float, int, float, dict, str]:
    """Wall clock, peak RSS, CPU seconds (user + system), the JSON, the notes."""
    cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "verify", "analyze", "--matrix",
           path, "--json", "--quiet", *extra]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)",
                                           proc.stderr))
    doc = json.loads(proc.stdout) if proc.returncode == 0 else {}
    notes = "\n".join(line for line in proc.stderr.splitlines() if line.startswith("verify"))
    return wall, int(rss.group(1)) * 1024 if rss else 0, cpu, doc, notes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--d", type=int, default=64)
    parser.add_argument("--dtype", choices=["f32", "bf16"], default="f32")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--neighbours", type=int, default=2)
    parser.add_argument("--rays", type=int, default=0)
    parser.add_argument("--memory", type=float, default=None, help="--memory GB")
    parser.add_argument("--jobs", type=int, default=1, help="--jobs N")
    parser.add_argument("--keep", metavar="FILE.npy", help="keep the head in this file")
    args = parser.parse_args()

    t0 = time.perf_counter()
    W = synthetic_head(args.n, args.d, seed=args.seed, dtype=args.dtype)
    made = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or os.path.join(tmp, "head.npy")
        np.save(path, W)
        del W
        extra = ["--neighbours", str(args.neighbours), "--rays", str(args.rays)]
        if args.memory is not None:
            extra += ["--memory", str(args.memory)]
        if args.jobs > 1:
            extra += ["--jobs", str(args.jobs)]
        before = _load()
        wall, rss, cpu, doc, notes = run(path, extra)
        after = _load()
    print(f"head {args.n} x {args.d} {args.dtype} (seed {args.seed}), generated in "
          f"{made:.1f} s")
    print(f"analyze: {wall:.1f} s wall clock, {cpu:.1f} s CPU, peak RSS {rss / 1e9:.2f} GB; "
          f"load average before {before}, after {after} (on {os.cpu_count()} cores)")
    if not doc:
        print(notes or "analyze failed")
        return
    c = doc["cosine"]
    print(f"argmaxable {len(doc['argmaxable'])}, unargmaxable {len(doc['unargmaxable'])} "
          f"(all {doc['n']} decided with exact evidence)")
    print(f"pairs decided {doc['pairs_decided']} ({len(doc['tie_pairs'])} can tie, "
          f"{len(doc['non_tie_pairs'])} cannot)")
    print(f"nearest cosine neighbour cannot tie: {c['nearest_not_tie']} of "
          f"{c['labels_compared']}; neighbour pairs that cannot tie: "
          f"{c['neighbour_pairs_cannot_tie']} of {c['neighbour_pairs']}, undecided "
          f"{c['neighbour_pairs_undecided']}")


if __name__ == "__main__":
    main()
