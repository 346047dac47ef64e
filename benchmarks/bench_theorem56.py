"""Benchmark: Theorem 5.6 on one generic integer matrix, exact versus the published float check.

The published check (floating point): an SVD column basis of C(B_n W), then all maximal
minors of it and of B_n W, and their signs compared up to a global sign. Ours: the
exact `theorem 5.6 --matrix` check (both patterns exactly, plus the exact chirotopes).

    python benchmarks/bench_theorem56.py [--n 10] [--d 5] [--seed 0] [--skip-float]
"""

import argparse
import time
from itertools import combinations

import numpy as np


def float_method(W: np.ndarray) -> tuple[bool, int]:
    """The published check in floating point: every maximal minor, one at a time.

    Returns (verdict, number of minors whose signs disagree with the majority relation).
    Zero minors (frequent for B_n W, whose rows satisfy w_i - w_k = (w_i - w_j) +
    (w_j - w_k)) come out as rounding noise of either sign, which is why this check
    can report a disagreement where there is none.
    """
    n = len(W)
    M = np.array([W[i] - W[j] for i, j in combinations(range(n), 2)], dtype=float)
    norms = np.linalg.norm(M, axis=1)
    C = (M @ M.T) / np.outer(norms, norms)
    r = np.linalg.matrix_rank(M)
    U, _, _ = np.linalg.svd(C)
    basis = U[:, :r]
    columns = list(range(r)) if M.shape[1] == r else None
    same = opposite = 0
    for I in combinations(range(len(M)), r):
        rows = list(I)
        a = np.sign(np.linalg.det(M[rows] if columns is None else M[rows][:, columns]))
        b = np.sign(np.linalg.det(basis[rows]))
        same += a == b
        opposite += a == -b
    total = same + opposite
    return max(same, opposite) == total, total - max(same, opposite)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--d", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-float", action="store_true")
    args = parser.parse_args()
    W = np.random.default_rng(args.seed).integers(-5, 6, size=(args.n, args.d))
    print(f"W: {args.n} x {args.d}, entries in [-5, 5], seed {args.seed}")
    float_seconds = None
    if not args.skip_float:
        t = time.perf_counter()
        ok, mismatches = float_method(W)
        float_seconds = time.perf_counter() - t
        print(f"published float method: {float_seconds:.1f} s (agree: {ok}; "
              f"{mismatches} minors with inconsistent float signs)")
    from verify.claims.cosine_patterns import check_matrix

    stats, steps = {}, []

    def progress(name):
        steps.append((name, time.perf_counter()))

    t = time.perf_counter()
    result = check_matrix("theorem 5.6", W.tolist(), stats=stats, progress=progress)
    end = time.perf_counter()
    print(f"exact check: {end - t:.1f} s ({result.status}, {result.cells} cells, "
          f"chirotopes agree: {result.chirotopes_agree})")
    for (name, start), (_, stop) in zip(steps, steps[1:] + [("end", end)]):
        print(f"  {name}: {stop - start:.2f} s")
    print(f"  signs of the cosine chirotope: {stats}")
    if float_seconds:
        print(f"exact / float time: {(end - t) / float_seconds:.2f}")


if __name__ == "__main__":
    main()
