"""Running a cosine-pattern claim over a family of matrices, and reporting.

The report says how many matrices were checked, how many were skipped (outside the
claim's hypotheses, with the reason), how many agreed, how many cells were compared,
and where the first disagreement was written, if any.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from verify.claims.families import (
    enumerated_matrices,
    exhaustive_count_bound,
    exhaustive_matrices,
)
from verify.errors import InputError


@dataclass
class SweepReport:
    claim: str
    family: str
    checked: int = 0
    skipped: int = 0
    agreed: int = 0
    cells: int = 0
    chirotopes_agreed: int = 0
    skip_reasons: Counter = field(default_factory=Counter)
    counterexample: str | None = None
    seconds: float = 0.0
    stats: dict = field(default_factory=dict)

    @property
    def holds(self) -> bool:
        return self.agreed == self.checked

    def to_json(self) -> dict:
        """The documented JSON object of a claim run."""
        return {"claim": self.claim, "checked": self.checked, "skipped": self.skipped,
                "agreed": self.agreed, "cells": self.cells,
                "counterexample": self.counterexample}


def family_of(claim, options):
    """``(description, total, iterator of (label, W))`` for the options of a run."""
    if options.matrix:
        from verify.matrix_io import read_matrix

        W = read_matrix(options.matrix)
        return f"the matrix in {options.matrix}", 1, iter([(options.matrix, W)])
    n, d = options.n, options.d
    if n < 1 or d < 1:
        raise InputError(f"--n and --d must be at least 1 (got n={n}, d={d})")
    if options.exhaustive:
        box = options.box
        if box < 0:
            raise InputError(f"--box must be >= 0 (got {box})")
        row_signs = claim.id == "lemma 5.3"
        gen = exhaustive_matrices(n, d, box, row_signs=row_signs)
        symmetries = "row permutations, signed column permutations" + (
            ", row sign changes" if row_signs else "")
        desc = (f"every {n} x {d} integer matrix with entries in [-{box}, {box}] up to "
                f"{symmetries}")
        return desc, None, ((f"exhaustive #{k}", W) for k, W in enumerate(gen))
    if options.matrices < 1:
        raise InputError(f"--matrices must be at least 1 (got {options.matrices})")
    desc = f"{options.matrices} enumerated {n} x {d} integer matrices (seed {options.seed})"
    gen = enumerated_matrices(n, d, seed=options.seed, count=options.matrices)
    return desc, options.matrices, ((f"#{k} ({kind})", W) for k, (kind, W) in enumerate(gen))


def run_cosine_claim(claim, options) -> SweepReport:
    """Check lemma 5.3 or theorem 5.6 on every matrix of the requested family."""
    from verify.claims.cosine_patterns import check_matrix

    desc, total, matrices = family_of(claim, options)
    report = SweepReport(claim=claim.id, family=desc)
    start = time.perf_counter()
    with _progress(total, options) as bar:
        for label, W in matrices:
            result = check_matrix(claim.id, W, stats=report.stats)
            bar.update(1)
            if result.status == "skipped":
                report.skipped += 1
                report.skip_reasons[result.reason] += 1
                continue
            report.checked += 1
            report.cells += result.cells
            report.chirotopes_agreed += bool(result.chirotopes_agree)
            if result.status == "agree":
                report.agreed += 1
            elif report.counterexample is None:
                report.counterexample = _write_counterexample(claim, label, W, result,
                                                              options)
    report.seconds = time.perf_counter() - start
    return report


def _progress(total, options):
    from tqdm import tqdm

    quiet = getattr(options, "quiet", False) or not sys.stderr.isatty()
    return tqdm(total=total, disable=quiet, delay=2, file=sys.stderr, unit="matrix",
                desc=options.claim_id if hasattr(options, "claim_id") else None)


def _write_counterexample(claim, label, W, result, options) -> str:
    from verify.fileio import write_json_atomic
    from verify.numbers.rational import format_rational
    from verify.linalg import to_fmpq_rows

    directory = Path(getattr(options, "output_dir", None) or ".")
    slug = claim.id.replace(" ", "-")
    path = directory / f"counterexample-{slug}.json"
    lhs, rhs = set(result.lhs), set(result.rhs)
    write_json_atomic(path, {
        "claim": claim.id,
        "matrix": label,
        "W": [[format_rational(a) for a in row] for row in to_fmpq_rows(W)],
        "S(M)": result.lhs,
        "S(C(M))": result.rhs,
        "only in S(M)": sorted(lhs - rhs),
        "only in S(C(M))": sorted(rhs - lhs),
    })
    return str(path)
