"""Benchmark: exact convex weights for labels inside the hull, at d = 256, 512, 768.

For the untrained rows that :func:`bench_analyze_scale.synthetic_head_with_plan` places
inside the hull, measures per label (or per near-duplicate cluster) the float proposal
of a support (:func:`verify.analyze.interior.propose_support`), the exact weights by
p-adic lifting (:func:`verify.analyze.interior.exact_weights`) and, with ``--flint``,
python-flint's exact solve of the same system (``fmpq_mat.solve``) for comparison.

    python benchmarks/bench_interior.py --d 256 512 768 --labels 3 --flint
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np

from bench_analyze_scale import synthetic_head_with_plan


def main() -> None:
    from flint import fmpq_mat, fmpz_mat

    from verify.analyze.argmax import ExactHead, is_argmax_certificate
    from verify.analyze.interior import clusters, exact_weights, propose_support

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50257)
    parser.add_argument("--d", type=int, nargs="+", default=[256, 512, 768])
    parser.add_argument("--labels", type=int, default=3, help="interior clusters per d")
    parser.add_argument("--flint", action="store_true", help="also time fmpq_mat.solve")
    parser.add_argument("--check", action="store_true",
                        help="also re-check each certificate with is_argmax_certificate")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    for d in args.d:
        W, plan = synthetic_head_with_plan(args.n, d)
        head = ExactHead.from_array(W)
        print(f"d = {d}: {args.n} x {d}, entries up to {head.bits} bits")
        interior = plan["interior"] + plan["interior_near"]
        groups = clusters(head, sorted(interior))
        for group in sorted(groups, key=len, reverse=True)[: args.labels]:
            t0 = time.perf_counter()
            support = propose_support(head, group[0])
            t1 = time.perf_counter()
            if support is None:
                print(f"  label {group[0]}: no proposal ({t1 - t0:.1f} s)")
                continue
            found = exact_weights(head, group, support)
            t2 = time.perf_counter()
            ok = [f is not None for f in found]
            den_bits = max((f[1].bit_length() for f in found if f), default=0)
            line = (f"  labels {group}: support {len(support)}, proposal {t1 - t0:.1f} s, "
                    f"lifting {t2 - t1:.1f} s for {len(group)} right-hand side(s), "
                    f"certified {sum(ok)}, denominator {den_bits} bits")
            if args.check and found[0] is not None:
                Y, D = found[0]
                t = time.perf_counter()
                good = is_argmax_certificate(head.rows, group[0],
                                             [(k, y) for k, y in zip(support, Y)])
                line += f", re-check {good} {time.perf_counter() - t:.1f} s"
            if args.flint and len(support) == d + 1:
                M = [list(map(int, head.Zarr[k])) + [1] for k in support]
                b = [list(map(int, head.Zarr[i])) + [1] for i in group]
                t = time.perf_counter()
                fmpq_mat(fmpz_mat(M).transpose()).solve(fmpq_mat(fmpz_mat(b).transpose()),
                                                        algorithm="dixon")
                line += f", flint (fmpq_mat.solve, dixon) {time.perf_counter() - t:.1f} s"
            print(line, flush=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    print(f"peak RSS {rss:.2f} GB; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
