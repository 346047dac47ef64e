"""Benchmark: the routes of the strict-feasibility oracle on tiny and larger systems.

Times the exact simplex over Q, the HiGHS hint plus exact certification, and (for
reference) one pulp/CBC call, on feasible and infeasible systems A z > 0 of random
integer rows. The crossover decides ``verify.lp.feasibility.EXACT_SIMPLEX_MAX_ROWS``.

    python benchmarks/bench_feasibility.py
"""

import random
import time

from verify.lp.feasibility import _exact_simplex, _propose_and_certify


def systems(N, k, seed):
    rng = random.Random(seed)
    rows = [r for r in ([rng.randint(-5, 5) for _ in range(k)] for _ in range(N)) if any(r)]
    z = [rng.randint(1, 9) for _ in range(k)]
    feasible = [r if sum(a * b for a, b in zip(r, z)) > 0 else [-a for a in r] for r in rows
                if sum(a * b for a, b in zip(r, z)) != 0]
    infeasible = [[rng.choice((1, -1)) * a for a in r] for r in rows]
    return feasible, infeasible


def per_call(fn, A, repeat):
    t = time.perf_counter()
    for _ in range(repeat):
        fn(A)
    return (time.perf_counter() - t) / repeat * 1e3


def pulp_call(A):
    import pulp

    prob = pulp.LpProblem("strict", pulp.LpMaximize)
    z = [pulp.LpVariable(f"z{j}", -1, 1) for j in range(len(A[0]))]
    t = pulp.LpVariable("t", None, 1)
    prob += t
    for row in A:
        prob += pulp.lpSum(a * v for a, v in zip(row, z)) >= t
    prob.solve(pulp.PULP_CBC_CMD(msg=0))


def main() -> None:
    _propose_and_certify([[1, 0], [0, 1]])  # import scipy outside the timings
    print(f"{'N':>5} {'k':>3} {'system':>10} {'exact ms':>9} {'HiGHS+cert ms':>14} {'pulp ms':>8}")
    for N, k in [(10, 3), (45, 4), (45, 5), (100, 5), (200, 6), (400, 8)]:
        for name, A in zip(("feasible", "infeasible"), systems(N, k, seed=N * k)):
            repeat = 20 if N <= 100 else 3
            exact = per_call(_exact_simplex, A, repeat)
            hinted = per_call(_propose_and_certify, A, repeat)
            pulp_ms = per_call(pulp_call, A, 3) if N <= 45 else float("nan")
            print(f"{N:>5} {k:>3} {name:>10} {exact:>9.2f} {hinted:>14.2f} {pulp_ms:>8.1f}")


if __name__ == "__main__":
    main()
