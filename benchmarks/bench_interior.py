"""Benchmark: exact convex weights for labels inside the hull, at d = 256, 512, 768.

For the near-duplicate clusters of untrained rows that
:func:`bench_analyze_scale.synthetic_head_with_plan` places inside the hull, measures
the float proposal of a simplex (all labels of the cluster in turn) by positive
weights and Carathéodory's reduction
(:func:`verify.analyze.interior.caratheodory_supports`) and by the simplex walk
(:func:`verify.analyze.interior.simplex_walk`), each followed by the exact weights
(:func:`verify.analyze.interior.exact_weights`, python-flint's Dixon solver, one solve
per support with all the cluster's labels on it as right-hand sides) and, with ``--flint``, python-flint's exact
solve of the first label's system (``fmpq_mat.solve``, Dixon's algorithm) for
comparison; with ``--nnls`` also the non-negative least squares proposal of the
per-label methods (:func:`verify.analyze.proposals.nnls_support` on a sample of ``3 (d +
1)`` rows and the ``2d + 2`` nearest), which both replace.

    python benchmarks/bench_interior.py --d 256 512 768 --clusters 3 --flint
    python benchmarks/bench_interior.py --d 768 --proposal caratheodory

Times are CPU seconds of this process (``time.process_time``), which a shared machine
inflates less than wall clock; BLAS runs with one thread.
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np
from threadpoolctl import threadpool_limits

from bench_analyze_scale import synthetic_head_with_plan


def main() -> None:
    from flint import fmpq_mat, fmpz_mat

    from verify.analyze.argmax import is_argmax_certificate
    from verify.analyze.head import ExactHead
    from verify.analyze.proposals import Differences, nnls_support
    from verify.analyze.interior import WALK_PIVOTS, _pool, caratheodory_supports, \
        clusters, exact_weights, simplex_walk, whitened

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50257)
    parser.add_argument("--d", type=int, nargs="+", default=[256, 512, 768])
    parser.add_argument("--clusters", type=int, default=3, help="clusters per d")
    parser.add_argument("--flint", action="store_true", help="also time fmpq_mat.solve")
    parser.add_argument("--nnls", action="store_true", help="also time the NNLS proposal")
    parser.add_argument("--proposal", choices=("caratheodory", "walk"), nargs="+",
                        default=["caratheodory", "walk"],
                        help="the float proposals to time (default: both)")
    parser.add_argument("--check", action="store_true",
                        help="also re-check each certificate with is_argmax_certificate")
    args = parser.parse_args()
    threadpool_limits(limits=1, user_api="blas")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    for d in args.d:
        W, plan = synthetic_head_with_plan(args.n, d)
        head = ExactHead.from_array(W)
        print(f"d = {d}: {args.n} x {d}, entries up to {head.bits} bits")
        groups = clusters(head, sorted(plan["interior"] + plan["interior_near"]))
        for group in sorted(groups, key=len, reverse=True)[: args.clusters]:
            line = f"  cluster of {len(group)}:"
            for proposal in args.proposal:
                t0 = time.process_time()
                pool = _pool(head, group[0], (), group)
                if proposal == "walk":
                    P = np.vstack([head.F[pool].T, np.ones((1, pool.size))])
                    walks = simplex_walk(P, [np.append(head.F[i], 1.0) for i in group],
                                         WALK_PIVOTS * (d + 1))
                else:
                    walks = caratheodory_supports(whitened(head, pool), whitened(head, group))
                t1 = time.process_time()
                supports: dict = {}
                for i, basis in zip(group, walks):
                    if basis is not None:
                        supports.setdefault(tuple(sorted(int(pool[b]) for b in basis)),
                                            []).append(i)
                certified, bits = 0, 0
                for support, members in supports.items():
                    for i, found in zip(members, exact_weights(head, members, support)):
                        if found is not None:
                            certified += 1
                            bits = max(bits, found[1].bit_length())
                            if args.check:
                                assert is_argmax_certificate(head.rows, i,
                                                             list(zip(support, found[0])))
                t2 = time.process_time()
                line += (f" {proposal} {t1 - t0:.1f} s, {len(supports)} support(s), exact"
                         f" {t2 - t1:.1f} s, certified {certified}"
                         f" (denominators up to {bits} bits);")
            if args.flint and supports:
                support, members = next(iter(supports.items()))
                M = [list(map(int, head.Zarr[k])) + [1] for k in support]
                b = [list(map(int, head.Zarr[members[0]])) + [1]]
                t = time.process_time()
                fmpq_mat(fmpz_mat(M).transpose()).solve(fmpq_mat(fmpz_mat(b).transpose()),
                                                        algorithm="dixon")
                line += f"; flint, one label: {time.process_time() - t:.1f} s"
            if args.nnls:
                t = time.process_time()
                A = Differences(head, group[0], group)
                near = np.argsort(A.norms(), kind="stable")[: 2 * d + 2]
                sample = np.random.default_rng(0).choice(A.shape[0], 3 * (d + 1), replace=False)
                nnls_support(A.take(np.unique(np.concatenate([near, sample]))))
                line += f"; NNLS proposal, one label: {time.process_time() - t:.1f} s"
            print(line, flush=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    print(f"peak RSS {rss:.2f} GB; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
