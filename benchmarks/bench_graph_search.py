"""Benchmark: the graph method (one exact LP per candidate orthant) on hard cases.

Cases: the sign pattern of a random 62 x 3 integer matrix (entries -3..3, 1336 cells)
and the ranking pattern of a 6 x 5 matrix with entries 10^-30 and 10^30 (720 cells).
Times, per case: the cocircuit method (the default), the graph search of
:mod:`verify.arrangement.graph_search` (small subsystems first, certificates reused),
the certificate evidence (a Gordan certificate for every empty neighbouring orthant),
and with ``--baseline`` the search as it was (every orthant decided on all ``K``
rows, with today's LP oracle; minutes).

    PYTHONPATH=. nice -n 10 python benchmarks/bench_graph_search.py [--baseline]

Figures: wall seconds of the command line (``python -m verify pattern ... --method graph``,
and ``--certificate`` for the evidence), before and after these changes, on a shared
2-core machine with a load average of 8 to 10, so +-30 %:

    case               cells   graph before -> after   evidence before -> after
    sign 62x3           1336         158 -> 5.6              30 -> 12.5
    ranking 6x5 1e30     720         101 -> 5.0              29 -> 9.3

The certificates are byte-identical before and after (the integer-pivoting simplex
makes the same pivots as the one over Q). The cocircuit method takes about 0.5 s on both.
"""

import argparse
import random
import time
from collections import deque
from fractions import Fraction

from verify.arrangement.graph_search import generic_point, search_topes
from verify.arrangement.ranking_pattern import braid_product
from verify.arrangement.sign_pattern import sign_pattern
from verify.certificates.writers import pattern_evidence
from verify.lp.feasibility import Witness, strict_feasibility
from verify.linalg.exact import (
    column_basis,
    dot,
    group_parallel_rows,
    primitive_integer_row,
    to_fmpq_rows,
)


def cases():
    rng = random.Random(62)
    sign = [[rng.randint(-3, 3) for _ in range(3)] for _ in range(62)]
    sign = [row if any(row) else [1, 0, 0] for row in sign]
    rng = random.Random(65)
    W = [[Fraction(rng.randint(1, 9)) * Fraction(10) ** rng.choice((-30, 30))
          if rng.random() < 0.5 else Fraction(rng.randint(-9, 9)) for _ in range(5)]
         for _ in range(6)]
    return [("sign 62x3", sign), ("ranking 6x5 1e30", braid_product(W))]


def baseline_search(H) -> int:
    """The breadth-first search deciding every flipped orthant on all K rows."""
    z0 = generic_point(H)
    start = tuple(1 if dot(h, z0) > 0 else -1 for h in H)
    cells, queue = {start}, deque([start])
    while queue:
        tope = queue.popleft()
        for c in range(len(H)):
            flipped = tope[:c] + (-tope[c],) + tope[c + 1:]
            if flipped not in cells:
                rows = [[s * a for a in h] for s, h in zip(flipped, H)]
                if isinstance(strict_feasibility(rows), Witness):
                    cells.add(flipped)
                    queue.append(flipped)
    return len(cells)


def timed(fn, *args):
    started = time.perf_counter()
    value = fn(*args)
    return value, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", action="store_true",
                        help="also time the search on all K rows per orthant (minutes)")
    args = parser.parse_args()
    print(f"{'case':<18} {'cells':>6} {'cocircuits':>11} {'graph':>7} {'evidence':>9}"
          f" {'all K rows':>11}")
    for name, M in cases():
        pattern, t_cocircuits = timed(sign_pattern, M)
        found, t_graph = timed(search_topes, _planes(M))
        assert len(found.cells) == len(pattern.cells)
        _, t_evidence = timed(pattern_evidence, M, pattern.cells)
        baseline = ""
        if args.baseline:
            count, t_baseline = timed(baseline_search, _planes(M))
            assert count == len(pattern.cells)
            baseline = f"{t_baseline:.1f}"
        print(f"{name:<18} {len(pattern.cells):>6} {t_cocircuits:>11.1f} {t_graph:>7.1f}"
              f" {t_evidence:>9.1f} {baseline:>11}", flush=True)


def _planes(M):
    """The distinct hyperplanes of M as the graph method sees them (see sign_pattern)."""
    ints = [primitive_integer_row(row) for row in to_fmpq_rows(M)]
    basis = column_basis(ints)
    return group_parallel_rows([[row[j] for j in basis] for row in ints]).normals


if __name__ == "__main__":
    main()
