"""Benchmark: the exact analysis against the floating-point LP on real heads with a bias.

Reads every head ``NAME`` of a directory given on the command line: ``NAME_W.npy`` (the
``labels x d`` weights, float32) and ``NAME_b.npy`` (the bias; a head without one gets
the zero bias). For each head, in this process:

(a) the exact analysis, ``verify.analyze.report.analyze(W, bias=b, cells=False,
    jobs=N, neighbours=2)`` (argmaxable labels and tie pairs with certificates; where
    ``analyze`` has no ``bias`` keyword, :func:`verify.analyze.report.analyze_with_bias`,
    which refuses heads above ``BIAS_MAX_LABELS`` labels: reported as "refused");
(a') the exact labels alone, the question the float LP answers: the lifted head and
    :func:`verify.analyze.argmax.argmaxable_labels` (every label with its witness or
    certificate, no pairs), on the same workers;
(b) the floating-point LP of Grivas et al. (2022) for every label, by cutting planes
    (``benchmarks/float_lp.py``; its docstring states the LP, the box and the cap).

The table (markdown, stdout) gives per head its size, wall clock and CPU time of each
method (CPU time of the process plus that of the worker processes it waited for), the
ratios exact / float (of the whole analysis, and of the labels alone: like for like), the number of argmaxable labels from each, and the agreement
label by label: labels where a *sure* float verdict (``|t*| > tol``) contradicts the
exact one, and labels the float method leaves unsure (``|t*| <= tol`` or a solver
failure; with how many of them the exact analysis finds argmaxable).

    python benchmarks/bench_real_heads.py --heads HEADS_DIR --only g2pM,ja_ginza_ner
    python benchmarks/bench_real_heads.py --heads HEADS_DIR --jobs 2 --json real_heads.json
    python benchmarks/bench_real_heads.py --heads HEADS_DIR --skip-exact --no-unbox
    python benchmarks/bench_real_heads.py --heads HEADS_DIR --float-sample 200

The float LP of every label of PP-OCRv5 (18,385 labels) takes about 20,000 CPU-s;
``--float-sample N`` solves N labels of each larger head (the same ones every run) and
estimates the time of all as ``n / N`` times theirs (each label's LP is solved alone, so
the estimate is the sample's mean time per label); the agreement is then over the sample.

The float LP is by default the paper's (inputs in ``[-100, 100]^d``, no cap on the
margin), followed, for the labels it does not find argmaxable, by the LP without the
box and with the cap ``t <= 1``, which asks the same question as the exact analysis
(``--no-unbox``: the paper's LP alone; the JSON file has both verdicts either way).
Heads run smallest first; the JSON file is rewritten after each head, so a long run
keeps what it has finished.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]  # this checkout's verify, and float_lp
from float_lp import float_argmaxable  # noqa: E402


def find_heads(directory: Path, only=None) -> list[tuple[str, Path, Path | None]]:
    """``(name, weights file, bias file or None)`` of the heads in ``directory``."""
    heads = []
    for w in sorted(directory.glob("*_W.npy")):
        name = w.name[:-len("_W.npy")]
        bias = w.with_name(name + "_b.npy")
        heads.append((name, w, bias if bias.exists() else None))
    if only:
        known = {h[0] for h in heads}
        missing = [x for x in only if x not in known]
        if missing:
            raise SystemExit(f"no head {', '.join(missing)} in {directory} "
                             f"(have: {', '.join(sorted(known))})")
        heads = [h for h in heads if h[0] in only]
    return heads


class Clock:
    """Wall clock and CPU time (this process, and the children it has waited for)."""

    def __enter__(self):
        self.wall0 = time.perf_counter()
        self.cpu0 = time.process_time()
        self.child0 = self._children()
        return self

    @staticmethod
    def _children() -> float:
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        return ru.ru_utime + ru.ru_stime

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.wall0
        self.cpu_self = time.process_time() - self.cpu0
        self.cpu_children = self._children() - self.child0
        self.cpu = self.cpu_self + self.cpu_children
        return False

    def as_dict(self) -> dict:
        return {"wall_s": round(self.wall, 3), "cpu_s": round(self.cpu, 3),
                "cpu_children_s": round(self.cpu_children, 3)}


def exact_analysis(W: np.ndarray, b: np.ndarray, jobs: int):
    """The exact analysis of ``W x + b``: ``analyze(..., bias=b)``, or
    ``analyze_with_bias`` where ``analyze`` has no ``bias`` keyword yet."""
    from verify.analyze.report import analyze

    try:
        return analyze(W, bias=b, cells=False, jobs=jobs, neighbours=2), "analyze"
    except TypeError as exc:
        if "bias" not in str(exc):
            raise
    from verify.analyze.report import analyze_with_bias

    rows = [[Fraction(float(v)) for v in row] for row in W]  # float32 values, exactly
    bias = [Fraction(float(v)) for v in b]
    return analyze_with_bias(rows, bias, neighbours=2), "analyze_with_bias"


def exact_labels(W: np.ndarray, b: np.ndarray, jobs: int):
    """The exact verdict of every label of ``W x + b`` and nothing else (no pairs, no
    cosines): what the float LP decides."""
    from contextlib import nullcontext

    from verify.analyze.argmax import argmaxable_labels
    from verify.analyze.bias import _argmax_of, bias_head
    from verify.analyze.parallel import Workers

    head = bias_head(W, b)
    parallel = head.screened and jobs > 1
    with (Workers(head, jobs) if parallel else nullcontext()) as workers:
        lifted = argmaxable_labels(head, workers=workers)
    return _argmax_of(head, lifted)


def run_head(name: str, W: np.ndarray, b: np.ndarray, args) -> dict:
    n, d = W.shape
    entry: dict = {"head": name, "n": n, "d": d}
    exact_set = None
    if not args.skip_exact:
        with Clock() as clock:
            labels = exact_labels(W, b, args.jobs)
        entry["exact_labels"] = dict(clock.as_dict(), argmaxable=len(labels.argmaxable))
        exact_set = set(labels.argmaxable)
        print(f"  {name}: exact labels {clock.wall:.2f} s", file=sys.stderr, flush=True)
        from verify.io.errors import TooLargeError

        with Clock() as clock:
            try:
                r, route = exact_analysis(W, b, args.jobs)
            except TooLargeError as exc:
                r, route = None, f"refused: {exc}"
            except MemoryError:
                r, route = None, "error: out of memory"
            except Exception as exc:  # noqa: BLE001 - reported, and the next head runs
                r, route = None, f"error: {type(exc).__name__}: {exc}"
        entry["exact"] = dict(clock.as_dict(), route=route)
        if r is not None:
            if set(r.argmax.argmaxable) != exact_set:
                raise AssertionError(f"{name}: the two exact runs disagree")
            entry["exact"].update(argmaxable=len(r.argmax.argmaxable),
                                  unargmaxable=list(r.argmax.unargmaxable),
                                  tie_pairs=len(r.ties.tie_pairs),
                                  all_pairs_decided=bool(r.ties.complete))
        print(f"  {name}: exact {route} {clock.wall:.1f} s", file=sys.stderr, flush=True)
    if not args.skip_float:
        sample = float_sample(n, args.float_sample)
        solved = range(n) if sample is None else sample
        with Clock() as clock:
            v = float_argmaxable(W, b, tol=args.tol, box=args.box, cap=args.cap,
                                 unbox=not args.no_unbox, jobs=args.jobs, labels=sample)
        times = clock.as_dict()
        if sample is not None:
            # The LP of each label is solved alone: the time of all n labels is
            # estimated as n / N times that of the N sampled.
            scale = n / len(sample)
            times = {"wall_s": round(clock.wall * scale, 1),
                     "cpu_s": round(clock.cpu * scale, 1), "estimated": True,
                     "sample": len(sample), "sample_times": times}
        entry["float"] = dict(
            times, box=args.box, cap=args.cap, tol=args.tol,
            unbox=not args.no_unbox,
            argmaxable=len(v.argmaxable), unargmaxable=v.unargmaxable, unsure=v.unsure,
            box_argmaxable=None if v.box_argmaxable is None else len(v.box_argmaxable),
            rechecked_without_box=v.rechecked,
            failures=v.failures, lp_solves=int(v.rounds.sum()),
            mean_rounds=round(float(v.rounds[list(solved)].mean()), 2),
            max_rivals=int(v.rivals.max()),
            smallest_positive_margin=_smallest_positive(v.margins))
        print(f"  {name}: float {clock.wall:.1f} s", file=sys.stderr, flush=True)
        if exact_set is not None:
            unsure = set(v.unsure)
            says = set(v.argmaxable)
            wrong = sorted(i for i in solved if i not in unsure
                           and (i in says) != (i in exact_set))
            entry["agreement"] = {"disagreements": wrong, "unsure": len(unsure),
                                  "unsure_exact_argmaxable": len(unsure & exact_set),
                                  "compared": len(solved),
                                  "exact_argmaxable": len(exact_set.intersection(solved))}
    e, f, lab = entry.get("exact"), entry.get("float"), entry.get("exact_labels")
    if e and f and "argmaxable" in e:
        entry["ratio_wall"] = round(e["wall_s"] / max(f["wall_s"], 1e-9), 3)
        entry["ratio_cpu"] = round(e["cpu_s"] / max(f["cpu_s"], 1e-9), 3)
    if lab and f:
        entry["ratio_labels_wall"] = round(lab["wall_s"] / max(f["wall_s"], 1e-9), 4)
        entry["ratio_labels_cpu"] = round(lab["cpu_s"] / max(f["cpu_s"], 1e-9), 4)
    return entry


def float_sample(n: int, size: int | None) -> list[int] | None:
    """``size`` labels of ``n`` for the float LP, the same for every run (seed 0);
    ``None`` (all labels) when ``size`` is ``None`` or at least ``n``."""
    if size is None or size >= n:
        return None
    return sorted(int(i) for i in np.random.default_rng(0).choice(n, size, replace=False))


def _smallest_positive(m: np.ndarray):
    pos = m[np.isfinite(m) & (m > 0)]
    return float(pos.min()) if pos.size else None


HEADER = ("| head | n × d | exact labels wall s | exact labels CPU s | exact wall s "
          "| exact CPU s | float wall s | float CPU s | labels exact/float CPU "
          "| exact/float wall | exact/float CPU | argmaxable exact | argmaxable float "
          "| disagree | float unsure |")


def table_row(entry: dict) -> str:
    e, f, a = entry.get("exact", {}), entry.get("float", {}), entry.get("agreement")
    lab = entry.get("exact_labels", {})

    def num(x, fmt="{:.2f}"):
        return "–" if x is None else fmt.format(x)

    exact_count = e.get("argmaxable")
    if e and exact_count is None:
        exact_count_s = e["route"].split(":")[0]
    else:
        exact_count_s = num(exact_count, "{}")
    float_count = num(f.get("argmaxable"), "{}")
    if f.get("estimated"):
        float_count += f" of {f['sample']} sampled"
        if a:
            exact_count_s += f" ({a['exact_argmaxable']} of the sample)"
    if f and f.get("box_argmaxable") not in (None, f["argmaxable"]):
        float_count += f" (box: {f['box_argmaxable']})"
    est = "≈ " if f.get("estimated") else ""
    unsure = "–" if not f else (f"{len(f['unsure'])}" + (
        f" ({a['unsure_exact_argmaxable']} argmaxable)" if a and a["unsure"] else ""))
    return (f"| {entry['head']} | {entry['n']} × {entry['d']} "
            f"| {num(lab.get('wall_s'), '{:.3f}')} | {num(lab.get('cpu_s'), '{:.3f}')} "
            f"| {num(e.get('wall_s'))} | {num(e.get('cpu_s'))} "
            f"| {est}{num(f.get('wall_s'))} | {est}{num(f.get('cpu_s'))} "
            f"| {num(entry.get('ratio_labels_cpu'), '{:.3f}')} "
            f"| {num(entry.get('ratio_wall'))} | {num(entry.get('ratio_cpu'))} "
            f"| {exact_count_s} | {float_count} "
            f"| {num(len(a['disagreements']) if a else None, '{}')} | {unsure} |")


def _cap(text: str):
    return None if text.lower() == "none" else float(text)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--heads", required=True, type=Path,
                   help="directory of NAME_W.npy and NAME_b.npy files")
    p.add_argument("--only", help="comma-separated head names (default: all)")
    p.add_argument("--jobs", type=int, default=1,
                   help="worker processes, for both methods (default 1)")
    p.add_argument("--json", type=Path, help="write the results to this file")
    p.add_argument("--skip-exact", action="store_true")
    p.add_argument("--skip-float", action="store_true")
    p.add_argument("--box", type=_cap, default=100.0,
                   help="float LP: inputs in [-BOX, BOX]^d (default 100; 'none': no box)")
    p.add_argument("--cap", type=_cap, default=None,
                   help="float LP: t <= CAP (default none; needed without a box)")
    p.add_argument("--no-unbox", action="store_true",
                   help="float LP: no second LP without the box (the paper's verdict)")
    p.add_argument("--float-sample", type=int, default=None, metavar="N",
                   help="float LP: only N labels of each larger head (seed 0), its time "
                        "for all labels estimated as n/N times theirs (marked ≈)")
    p.add_argument("--tol", type=float, default=1e-6,
                   help="float LP: |t*| <= TOL is unsure (default 1e-6)")
    args = p.parse_args(argv)
    if args.box is None and args.cap is None:
        p.error("the float LP needs --box or --cap")
    only = [x.strip() for x in args.only.split(",")] if args.only else None
    heads = find_heads(args.heads, only)
    loaded = []
    for name, wf, bf in heads:
        W = np.load(wf)
        b = np.load(bf).reshape(-1) if bf is not None else np.zeros(W.shape[0], W.dtype)
        loaded.append((W.shape[0] * W.shape[1], name, W, b))
    loaded.sort(key=lambda h: (h[0], h[1]))
    doc = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                       "load_before": list(os.getloadavg())},
           "options": {"jobs": args.jobs, "box": args.box, "cap": args.cap, "tol": args.tol,
                       "unbox": not args.no_unbox, "float_sample": args.float_sample},
           "heads": []}
    if not args.skip_exact:
        # Imports (FLINT, HiGHS) are not timed, as scipy's are not for the float LP.
        exact_labels(np.eye(2), np.zeros(2), 1)
    print(HEADER)
    print("|" + "---|" * HEADER.count(" | ") + "---|")
    for _, name, W, b in loaded:
        entry = run_head(name, W, b, args)
        doc["heads"].append(entry)
        print(table_row(entry), flush=True)
        if args.json:
            doc["machine"]["load_after"] = list(os.getloadavg())
            args.json.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"\nload average before {doc['machine']['load_before'][0]:.2f}, "
          f"after {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
