"""Benchmark: `python -m verify analyze` on realistic synthetic heads of language-model size.

The synthetic head imitates what trained unembeddings look like: a common offset (every
row shares a mean vector), an anisotropic power-law spectrum (singular values
``k^-alpha`` along random directions), a few low-norm "untrained" rows placed deep
inside the hull (near the centroid, so unargmaxable), some of them in near-duplicate
clusters or exactly duplicated, near-duplicate rows (a trained row plus noise at 1e-6
of its size) and exact duplicates. Entries are rounded to float32 or
to bfloat16 (kept in a float32 ``.npy`` file: every bfloat16 number is a float32
number), and the analysis takes them at their exact binary values.

    python benchmarks/bench_analyze_scale.py --n 5000 --d 64
    python benchmarks/bench_analyze_scale.py --n 50257 --d 768 --memory 4
    python benchmarks/bench_analyze_scale.py --n 50257 --d 768 --memory 4 --jobs 2 \
        --certificate head.cert.zip --phases
    python benchmarks/bench_analyze_scale.py --n 32000 --d 4096 --dtype bf16 --jobs 2

Reports wall clock, CPU time and peak RSS of the command (``/usr/bin/time -v``), the
machine's load average before and after (the machine may be shared), and the analysis
summary.

The "untrained" rows sit near the centroid with noise along the head's own principal
directions (see :func:`synthetic_head_with_plan`), so they lie inside the hull at every
``d`` once ``n`` is a few times ``d``; the benchmark reports how many planted rows of
each kind came out unargmaxable. ``--argmax-only`` measures the argmax phase alone::

    python benchmarks/bench_analyze_scale.py --n 50257 --d 768 --argmax-only --jobs 2
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
                   alpha: float = 0.8, untrained: float = 0.002, near: float = 0.005,
                   duplicates: float = 0.002, radius: float = 0.25) -> np.ndarray:
    """An ``n x d`` head as described in the module docstring (deterministic in ``seed``).

    The rows are ``offset + (g * spectrum) @ mixing`` with ``g`` standard normal, so the
    trained rows are a Gaussian cloud with covariance ``C = mixing^T diag(spectrum^2)
    mixing``; in whitened coordinates (``C^{-1/2}``) they are isotropic at radius about
    ``sqrt(d)``. ``untrained``, ``near`` and ``duplicates`` are the fractions of rows of
    each kind; ``radius`` is the whitened radius of the untrained rows around the
    centroid. See :func:`synthetic_head_with_plan` for where each kind is placed.
    """
    return synthetic_head_with_plan(n, d, seed=seed, dtype=dtype, alpha=alpha,
                                    untrained=untrained, near=near, duplicates=duplicates,
                                    radius=radius)[0]


def synthetic_head_with_plan(n: int, d: int, *, seed: int = 0, dtype: str = "f32",
                             alpha: float = 0.8, untrained: float = 0.002,
                             near: float = 0.005, duplicates: float = 0.002,
                             radius: float = 0.25) -> tuple[np.ndarray, dict]:
    """The head of :func:`synthetic_head` and the rows planted in it.

    Planted rows (the returned dict maps each kind to its sorted row indices):

    * ``interior``: ``int(untrained * n)`` "untrained" rows ``centroid + s (g * spectrum)
      @ mixing`` with ``s = radius / sqrt(d)``: the noise has the head's own principal
      directions and spectrum, shrunk so that its whitened length is about ``radius``.
      The convex hull of ``m`` Gaussian points in ``R^d`` contains the centred ball of
      radius about ``sqrt(2 log(m / d))`` in whitened coordinates (Donoho & Tanner 2010),
      about 2.9 for ``50,257 x 768``, so these rows lie deep inside the hull (and are
      unargmaxable) once ``n`` is a few times ``d``; the analysis decides each of them
      exactly and the benchmark reports how many of them came out unargmaxable. (Isotropic
      noise would not do: at ``d = 768`` even noise ``1e-3`` of the mean entry is large
      against the smallest principal directions and makes such rows hull vertices.)
    * ``interior_near``: near-duplicate clusters among the untrained rows: a quarter of
      them get one to three mates ``row + e (g * spectrum) @ mixing``, the noise again
      along the head's principal directions, ``e`` such that its length is ``1e-6``
      of the row's (about ``10^-3`` of the untrained rows' whitened radius, so the mates
      lie inside the hull with them).
    * ``interior_duplicates``: exact copies of a tenth of the untrained rows.
    * ``near``, ``duplicates``: near-duplicates (relative noise ``1e-6``) and exact
      copies of trained rows (``int(near * n)`` and ``int(duplicates * n)`` of them).

    Planted rows overwrite trained rows at positions drawn from ``seed``.
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
    spots = iter(rng.permutation(n).tolist())
    centre = W.mean(axis=0, dtype=np.float64)
    plan: dict = {kind: [] for kind in ("interior", "interior_near", "interior_duplicates",
                                        "near", "duplicates")}
    shrink = radius / np.sqrt(d)
    for _ in range(k_untrained):
        i = next(spots)
        W[i] = (centre + shrink * ((rng.standard_normal(d) * spectrum) @ mixing)
                ).astype(np.float32)
        plan["interior"].append(i)
    for src in list(plan["interior"][: k_untrained // 4]):
        for _ in range(int(rng.integers(1, 4))):
            dst = next(spots)
            # Noise along the head's own principal directions (as for the untrained
            # rows themselves), of relative length 1e-6. Isotropic noise of that size
            # is about 1 in whitened units at d = 768, four times the untrained
            # rows' own radius, and put many mates outside the hull of a sample.
            noise = (rng.standard_normal(d) * spectrum) @ mixing
            scale = 1e-6 * np.linalg.norm(W[src]) / np.linalg.norm(noise)
            W[dst] = (W[src] + scale * noise).astype(np.float32)
            plan["interior_near"].append(dst)
    for src in list(plan["interior"][k_untrained // 4: k_untrained // 4 + k_untrained // 10]):
        dst = next(spots)
        W[dst] = W[src]
        plan["interior_duplicates"].append(dst)
    for _ in range(k_near):
        src, dst = next(spots), next(spots)
        noise = rng.standard_normal(d) * 1e-6 * np.abs(W[src]).astype(np.float64)
        W[dst] = (W[src] + noise).astype(np.float32)
        plan["near"].append(dst)
    for _ in range(k_dup):
        src, dst = next(spots), next(spots)
        W[dst] = W[src]
        plan["duplicates"].append(dst)
    plan = {kind: sorted(rows) for kind, rows in plan.items()}
    return (to_bfloat16(W) if dtype == "bf16" else W), plan


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


class PhaseLog:
    """A stand-in for the progress bar of ``analyze`` that writes, to stderr, each
    update of a phase with the seconds since the phase began (``phase`` lines)."""

    def __init__(self, description: str, total: int):
        self.description, self.total, self.done = description, total, 0
        self.t0 = time.perf_counter()
        self.cpu0 = time.process_time()

    def update(self, k: int) -> None:
        self.done += k
        print(f"phase {self.description}: {self.done} of {self.total} after "
              f"{time.perf_counter() - self.t0:.1f} s", file=sys.stderr, flush=True)

    def close(self) -> None:
        print(f"phase {self.description} ended: {self.done} in "
              f"{time.perf_counter() - self.t0:.1f} s wall, "
              f"{time.process_time() - self.cpu0:.1f} s CPU of the main process",
              file=sys.stderr, flush=True)


def analyze_with_phases(argv: list[str]) -> int:
    """``python -m verify analyze ARGV`` with :class:`PhaseLog` as its progress bar."""
    import verify.analyze.command as command
    from verify.cli import main as cli_main

    command._progress = lambda quiet: PhaseLog
    return cli_main(["analyze", *argv])


def _rusage(stderr: str) -> tuple[int, float]:
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)",
                                           stderr))
    return (int(rss.group(1)) * 1024 if rss else 0), cpu


def run_check(certificate: str) -> tuple[float, int, float, str]:
    """``python -m verify check CERTIFICATE``: wall clock, peak RSS, CPU, its output."""
    cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "verify", "check", certificate]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    rss, cpu = _rusage(proc.stderr)
    return wall, rss, cpu, (proc.stdout.strip() + f" (exit {proc.returncode})")


def run(path: str, extra: list[str], phases: bool = False
        ) -> tuple[float, int, float, dict, str]:
    """Wall clock, peak RSS, CPU seconds (user + system), the JSON, the notes (with
    ``phases``, also the ``phase`` lines of :class:`PhaseLog`)."""
    if phases:
        cmd = ["/usr/bin/time", "-v", sys.executable, os.path.abspath(__file__),
               "--phases", "--matrix", path, "--json", *extra]
    else:
        cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "verify", "analyze",
               "--matrix", path, "--json", "--quiet", *extra]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)",
                                           proc.stderr))
    doc = json.loads(proc.stdout) if proc.returncode == 0 else {}
    keep = ("verify", "phase") if phases else ("verify",)
    notes = "\n".join(line for line in proc.stderr.splitlines() if line.startswith(keep))
    if proc.returncode != 0:
        notes += "\n" + proc.stderr[-3000:]
    return wall, int(rss.group(1)) * 1024 if rss else 0, cpu, doc, notes


def decide_labels(path: str, jobs: int) -> None:
    """The argmax phase alone on the head in ``path`` (run under ``/usr/bin/time``):
    prints a JSON line with the unargmaxable labels and the phase's wall clock."""
    from verify.analyze.argmax import argmaxable_labels
    from verify.analyze.head import ExactHead
    from verify.analyze.parallel import Workers

    W = np.load(path, mmap_mode="r")
    t0 = time.perf_counter()
    head = ExactHead.from_array(W)
    with Workers(head, jobs) as workers:
        result = argmaxable_labels(head, workers=workers)
    print(json.dumps({"n": head.n, "unargmaxable": result.unargmaxable,
                      "seconds": time.perf_counter() - t0}))


def run_argmax_phase(path: str, jobs: int) -> tuple[float, int, float, dict]:
    """Wall clock, peak RSS, CPU seconds and the JSON of :func:`decide_labels`."""
    cmd = ["/usr/bin/time", "-v", sys.executable, os.path.abspath(__file__), "--decide",
           path, "--jobs", str(jobs)]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [root, *filter(None, [os.environ.get("PYTHONPATH")])]))
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)",
                                           proc.stderr))
    doc = json.loads(proc.stdout.splitlines()[-1]) if proc.returncode == 0 else {}
    if not doc:
        print(proc.stderr[-2000:])
    return wall, int(rss.group(1)) * 1024 if rss else 0, cpu, doc


def report_planted(plan: dict, unargmaxable: list[int]) -> None:
    """How many planted rows of each kind came out unargmaxable."""
    found = set(unargmaxable)
    for kind, rows in plan.items():
        print(f"  planted {kind}: {len(rows)}, unargmaxable {len(found & set(rows))}")
    planted = set().union(*map(set, plan.values()))
    print(f"  other unargmaxable labels: {len(found - planted)}")


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
    parser.add_argument("--argmax-only", action="store_true",
                        help="measure the argmax phase alone (every label decided)")
    parser.add_argument("--certificate", metavar="PATH",
                        help="also write the certificate (--certificate PATH) and run "
                             "`python -m verify check PATH` on it")
    parser.add_argument("--phases", action="store_true",
                        help="report the time of each phase (labels, cosine, pairs)")
    parser.add_argument("--decide", metavar="FILE.npy", help=argparse.SUPPRESS)
    if sys.argv[1:2] == ["--phases"] and "--matrix" in sys.argv:
        sys.exit(analyze_with_phases(sys.argv[2:]))
    args = parser.parse_args()
    if args.decide:
        decide_labels(args.decide, args.jobs)
        return

    t0 = time.perf_counter()
    W, plan = synthetic_head_with_plan(args.n, args.d, seed=args.seed, dtype=args.dtype)
    made = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or os.path.join(tmp, "head.npy")
        np.save(path, W)
        del W
        if args.argmax_only:
            before = _load()
            wall, rss, cpu, doc = run_argmax_phase(path, args.jobs)
            after = _load()
            print(f"head {args.n} x {args.d} {args.dtype} (seed {args.seed}), argmax phase "
                  f"with --jobs {args.jobs}: {wall:.1f} s wall clock, {cpu:.1f} s CPU, peak "
                  f"RSS {rss / 1e9:.2f} GB; load average before {before}, after {after} "
                  f"(on {os.cpu_count()} cores)")
            if doc:
                print(f"all {doc['n']} labels decided, {len(doc['unargmaxable'])} "
                      "unargmaxable with exact convex weights")
                report_planted(plan, doc["unargmaxable"])
            return
        extra = ["--neighbours", str(args.neighbours), "--rays", str(args.rays)]
        if args.memory is not None:
            extra += ["--memory", str(args.memory)]
        if args.jobs > 1:
            extra += ["--jobs", str(args.jobs)]
        if args.certificate:
            extra += ["--certificate", args.certificate]
        before = _load()
        wall, rss, cpu, doc, notes = run(path, extra, args.phases)
        after = _load()
    print(f"head {args.n} x {args.d} {args.dtype} (seed {args.seed}), generated in "
          f"{made:.1f} s")
    print(f"analyze: {wall:.1f} s wall clock, {cpu:.1f} s CPU, peak RSS {rss / 1e9:.2f} GB; "
          f"load average before {before}, after {after} (on {os.cpu_count()} cores)")
    if args.phases:
        for line in notes.splitlines():
            if line.startswith("phase"):
                print(" ", line)
    if not doc:
        print(notes or "analyze failed")
        return
    c = doc["cosine"]
    print(f"argmaxable {len(doc['argmaxable'])}, unargmaxable {len(doc['unargmaxable'])} "
          f"(all {doc['n']} decided with exact evidence)")
    report_planted(plan, doc["unargmaxable"])
    print(f"pairs decided {doc['pairs_decided']} ({len(doc['tie_pairs'])} can tie, "
          f"{len(doc['non_tie_pairs'])} cannot)")
    print(f"nearest cosine neighbour cannot tie: {c['nearest_not_tie']} of "
          f"{c['labels_compared']}; neighbour pairs that cannot tie: "
          f"{c['neighbour_pairs_cannot_tie']} of {c['neighbour_pairs']}, undecided "
          f"{c['neighbour_pairs_undecided']}")
    if args.certificate:
        size = os.path.getsize(args.certificate) / 1e6
        before = _load()
        wall, rss, cpu, out = run_check(args.certificate)
        print(f"verify check ({size:.0f} MB certificate): {out}; {wall:.1f} s wall clock, "
              f"{cpu:.1f} s CPU, peak RSS {rss / 1e9:.2f} GB; load average before "
              f"{before}, after {_load()}")


if __name__ == "__main__":
    main()
