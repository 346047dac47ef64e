"""Command-line interface: ``python -m verify COMMAND ...``.

Every user error (bad file, bad entry, impossible size, bad option) ends with one line
on stderr and exit code 2; the engine's answers go to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys

from verify.errors import InputError, VerifyError

INPUT_HELP = (
    "matrix file: .json (a list of rows, or an object with key \"W\"), .csv/.txt "
    "(comma- or whitespace-separated) or .npy. Entries are exact: integers, decimals "
    "(0.1 is 1/10, also as a JSON number) and fractions p/q. Floats in .npy files are "
    "taken at their exact binary value (0.1 as a float64 is 3602879701896397/2^55). "
    "Also a checkpoint: .safetensors, a sharded model.safetensors.index.json or a "
    "directory holding one; its head (lm_head.weight, else the tied input embeddings) "
    "is read exactly (heads of up to a few million entries).")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m verify",
        description="Exact, certificate-producing checks of sign patterns, ranking "
                    "patterns and the claims built on them.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser(
        "pattern",
        help="sign pattern S(M) or ranking pattern R(W) = S(B_n W) of a matrix",
        description="Enumerate the sign pattern S(M) (cells of the central arrangement "
                    "with normals the rows of M) or the ranking pattern R(W) = S(B_n W) "
                    "(the rankings a softmax head W can produce), each cell with an "
                    "exact rational witness point. Labels are numbered from 0.")
    p.add_argument("--matrix", required=True, metavar="FILE", help=INPUT_HELP)
    p.add_argument("--kind", choices=("sign", "ranking"), default="sign",
                   help="sign: S(M) of the rows; ranking: R(W), labels high to low "
                        "(default: sign)")
    p.add_argument("--affine", action="store_true",
                   help="prepend a column of ones (the point configuration [1 | W])")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object: kind, n, d, count, patterns (sorted, "
                        "'+' < '-'), witnesses, rankings (ranking only)")
    p.add_argument("--method", choices=("cocircuits", "graph"), default="cocircuits",
                   help="cocircuits: topes as compositions of cocircuits (fast); graph: "
                        "search of the arrangement graph with one exact LP per "
                        "candidate orthant (default: cocircuits)")
    p.add_argument("--limit", type=non_negative_int, default=20, metavar="K",
                   help="rows shown in the table (0: all; default 20)")
    p.add_argument("--certificate", metavar="PATH",
                   help="also write a certificate (witness per cell, Gordan multipliers "
                        "for every empty neighbouring orthant) that 'python -m verify "
                        "check PATH' re-checks with the standard library alone; written "
                        "atomically, byte-identical for the same input")
    p.set_defaults(run=run_pattern)

    p = sub.add_parser("list", help="list the claims that can be checked",
                       description="List every registered claim with its statement.")
    p.add_argument("--json", action="store_true",
                   help="a JSON list of objects with id, statement, hypotheses")
    p.set_defaults(run=run_list)

    from verify.analyze.command import add_parser as add_analyze_parser

    add_analyze_parser(sub)

    p = sub.add_parser(
        "all", help="check every claim (the regression suite)",
        description="Run every registered claim with its default size and print a table "
                    "(claim, status, evidence, time). Exit 0 only if every claim is "
                    "verified.")
    p.add_argument("--json", action="store_true",
                   help="a JSON list of {id, status, evidence, seconds}")
    p.add_argument("--certificates", metavar="DIR",
                   help="write one certificate per claim into DIR")
    p.set_defaults(run=run_all_claims)

    p = sub.add_parser(
        "search", help="search small integer matrices for counterexamples "
                       "(theorem 5.5, theorem H.1)",
        description="Search every small integer matrix for new counterexamples: for "
                    "theorem H.1, labelled point configurations (n distinct points in "
                    "[-K, K]^2, collinear sets left out) with equal sign patterns "
                    "S([1|P]) = S([1|Q]) and different ranking patterns; for theorem "
                    "5.5, integer matrices with distinct non-zero rows and equal exact "
                    "cosine matrices but different ranking patterns. Every reported "
                    "pair is confirmed by the exact engine and printed with certified "
                    "differing rankings.")
    p.add_argument("kind", choices=("theorem",), help="theorem")
    p.add_argument("number", choices=("5.5", "H.1"), help="5.5 or H.1")
    p.add_argument("--n", type=int, default=4, help="rows / points (default 4)")
    p.add_argument("--d", type=int, default=2, help="dimension (default 2)")
    p.add_argument("--box", type=int, default=1, help="entries in [-K, K] (default 1)")
    p.add_argument("--limit", type=int, default=3, help="pairs to report (default 3)")
    p.add_argument("--certificates", metavar="DIR",
                   help="write a certificate for every pair found into DIR "
                        "(pair-K.cert.json), checkable with 'python -m verify check'")
    p.add_argument("--json", action="store_true", help="print the pairs as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run_search)

    from verify.claims.registry import KINDS

    for kind in KINDS:
        p = sub.add_parser(
            kind, help=f"check a {kind} of the papers, e.g. "
                       f"'python -m verify {kind} NUMBER' (see 'list')",
            description=f"Check one {kind} of the papers exactly. For the claims about "
                        "cosine and sign patterns (lemma 5.3, theorem 5.6) the check "
                        "runs over enumerated integer matrices (--n, --d, --seed, "
                        "--matrices), every small matrix (--exhaustive --box K) or one "
                        "matrix (--matrix FILE).")
        p.add_argument("number", help="the claim's number, e.g. 5.6")
        _add_claim_options(p)
        p.set_defaults(run=run_claim, kind=kind)
    return parser


def _add_claim_options(p) -> None:
    p.add_argument("--n", type=int, default=5, help="labels (rows of W; default 5)")
    p.add_argument("--d", type=int, default=2, help="dimension (columns of W; default 2)")
    p.add_argument("--seed", type=int, default=0, help="seed of the family (default 0)")
    p.add_argument("--matrices", type=int, default=200,
                   help="how many enumerated matrices (default 200); they mix entry "
                        "ranges [-1,1], [-2,2], [-5,5] with repeated and parallel rows, "
                        "rank-deficient matrices and collinear points")
    p.add_argument("--exhaustive", action="store_true",
                   help="every integer matrix with entries in [-K, K] (--box K), up to "
                        "symmetries that provably preserve both sides: row "
                        "permutations and signed column permutations (orthogonal: "
                        "same column span, same cosines), and for lemma 5.3 also row "
                        "sign changes (S(DW) = D S(W), C(DW) = D C(W) D)")
    p.add_argument("--box", type=int, default=1, help="entry bound K for --exhaustive")
    p.add_argument("--matrix", metavar="FILE", help="check one matrix. " + INPUT_HELP)
    p.add_argument("--json", action="store_true",
                   help="print {claim, checked, skipped, agreed, cells, counterexample}")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--output-dir", metavar="DIR", default=".",
                   help="where a counterexample file is written (default: .)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="worker processes for a sweep (default 1); the result is the "
                        "same for any N")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the sweep on a Dask cluster: 'local' starts a LocalCluster "
                        "with --jobs workers on 127.0.0.1, otherwise the scheduler "
                        "address, e.g. tcp://host:8786 (optional extra: pip install -e "
                        "'.[dask]')")
    p.add_argument("--checkpoint", metavar="FILE",
                   help="append each finished matrix to FILE (JSON lines, flushed); "
                        "restarting with the same arguments skips what is done")
    p.add_argument("--shard", metavar="I/K",
                   help="check only part I of K (matrices k with k mod K = I-1)")
    p.add_argument("--merge", nargs="+", metavar="FILE",
                   help="report the sweep from the checkpoints of all its shards")
    p.add_argument("--labels", type=int, nargs=2, metavar=("I", "J"),
                   help="a pair of labels (0-based) for claims about one pair, e.g. "
                        "theorem 3.4")
    p.add_argument("--certificate", metavar="PATH",
                   help="write the evidence as a certificate for 'python -m verify check'")


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0: {text}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except VerifyError as err:
        print(f"verify: error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("verify: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. "| head"): stop quietly, as Unix tools do.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as err:
        # A file we were asked to write (or a directory for it) cannot be used.
        where = f"{err.filename}: " if err.filename else ""
        print(f"verify: error: {where}{err.strerror or err}", file=sys.stderr)
        return 2


# --- claims -------------------------------------------------------------------------

def run_list(args) -> int:
    from verify.claims.registry import CLAIMS

    if args.json:
        json.dump([{"id": c.id, "statement": c.statement, "hypotheses": c.hypotheses,
                    "establishes": c.establishes} for c in CLAIMS.values()],
                  sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    width = max(len(c) for c in CLAIMS)
    for claim in CLAIMS.values():
        print(f"{claim.id:<{width}}  {claim.statement}")
    return 0


def run_claim(args) -> int:
    from verify.claims.registry import get_claim

    claim = get_claim(args.kind, args.number)
    args.claim_id = claim.id
    report = claim.run(args)
    if args.certificate:
        _write_claim_certificate(claim, args, report)
    if args.json:
        json.dump(report.to_json(), sys.stdout)
        sys.stdout.write("\n")
    elif claim.sweep:
        _print_sweep_report(claim, report)
    else:
        _print_outcome(claim, report)
    return 0 if report.holds else 1


def _write_claim_certificate(claim, args, report) -> None:
    from verify.certificates import write_certificate

    certificate = getattr(report, "certificate", None)
    if certificate is None and claim.sweep:
        if not args.matrix:
            raise InputError(f"--certificate for {claim.id} needs --matrix FILE (one "
                             "certificate per matrix)")
        from verify.certificates import claim_certificate
        from verify.matrix_io import read_matrix

        try:
            certificate = claim_certificate(claim.id, read_matrix(args.matrix))
        except ValueError as err:  # outside the claim's hypotheses
            raise InputError(f"{args.matrix}: {err}") from None
    if certificate is None:
        raise InputError(f"{claim.id} does not produce a certificate yet")
    write_certificate(args.certificate, certificate)
    print(f"verify: certificate written to {args.certificate}", file=sys.stderr)


def _print_outcome(claim, outcome) -> None:
    print(f"{claim.id}: {claim.statement}")
    for step in outcome.steps:
        mark = "ok  " if step.holds else "FAIL"
        print(f"  [{mark}] {step.description}" + (f": {step.detail}" if step.detail else ""))
    print(f"{outcome.status.upper()} ({outcome.seconds:.1f} s)"
          + (f": {outcome.evidence}" if outcome.evidence else ""))


def _print_sweep_report(claim, report) -> None:
    print(f"{claim.id}: {claim.statement}")
    print(f"matrices: {report.family}")
    skipped = ", ".join(f"{count} with {reason}" for reason, count in
                        sorted(report.skip_reasons.items()))
    print(f"checked {report.checked}, skipped {report.skipped}"
          + (f" (outside the hypotheses: {skipped})" if skipped else ""))
    print(f"cells compared: {report.cells} (left side: exact rational engine; right "
          f"side: exact chirotope of the cosine matrix)")
    stats = report.stats
    if stats:
        zero = stats.get("chirotope_contains_dependent_set", 0) + stats.get("chirotope_closure", 0)
        print(f"cosine-side maximal minors: {stats.get('chirotope_filter', 0)} signed by the "
              f"certified integer filter, {zero} proved zero from "
              f"{stats.get('chirotope_dependencies_certified', 0)} certified linear "
              f"dependencies, {stats.get('chirotope_exact', 0)} decided by exact "
              f"determinants over Q(sqrt ...)")
    print(f"chirotopes agree up to a global sign: {report.chirotopes_agreed} of "
          f"{report.checked}")
    if report.holds:
        which = ("the checked matrix" if report.checked == 1
                 else f"all {report.checked} checked matrices")
        print(f"HOLDS: both sides agree on {which} ({report.seconds:.1f} s)")
    else:
        print(f"FAILS: {report.checked - report.agreed} of {report.checked} matrices "
              f"disagree; the first is written to {report.counterexample} "
              f"({report.seconds:.1f} s)")


# --- all ----------------------------------------------------------------------------

def run_all_claims(args) -> int:
    from verify.claims.run_all import run_all

    def progress(row):
        if not args.json:
            print(f"{row['id']:<24} {row['status']:<9} {row['seconds']:>7.1f} s  "
                  f"{row['evidence']}", flush=True)

    if not args.json:
        print(f"{'claim':<24} {'status':<9} {'time':>9}  evidence")
    rows = run_all(progress=progress)
    if args.certificates:
        _write_all_certificates(args.certificates, rows)
    if args.json:
        json.dump([{k: v for k, v in row.items() if k != "report"} for row in rows],
                  sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        bad = [row["id"] for row in rows if row["status"] != "verified"]
        total = sum(row["seconds"] for row in rows)
        print(f"{len(rows) - len(bad)} of {len(rows)} claims verified in {total:.1f} s"
              + (f"; not verified: {', '.join(bad)}" if bad else ""))
    return 0 if all(row["status"] == "verified" for row in rows) else 1


def _write_all_certificates(directory, rows) -> None:
    from pathlib import Path

    from verify.certificates import write_certificate

    Path(directory).mkdir(parents=True, exist_ok=True)
    for row in rows:
        cert = getattr(row["report"], "certificate", None)
        if cert is not None:
            write_certificate(Path(directory) / f"{row['id'].replace(' ', '-')}.cert.json",
                              cert)


# --- search -------------------------------------------------------------------------

def run_search(args) -> int:
    import time

    from verify.claims.search import search_55, search_h1
    from verify.claims.theorem_h1 import ranking_differences

    if args.n < 1 or args.d < 1 or args.box < 0 or args.limit < 1:
        raise InputError("--n, --d, --limit must be >= 1 and --box >= 0")
    start = time.perf_counter()
    search = search_h1 if args.number == "H.1" else search_55
    pairs, examined = search(args.n, args.d, args.box, limit=args.limit)
    seconds = time.perf_counter() - start
    results = [(P, Q, ranking_differences(P, Q)) for P, Q in pairs]
    if args.certificates:
        _write_pair_certificates(args, pairs)
    if args.json:
        json.dump({"claim": f"theorem {args.number}", "n": args.n, "d": args.d,
                   "box": args.box, "examined": examined, "seconds": round(seconds, 2),
                   "pairs": [{"P": P, "Q": Q,
                              "only_in_P": [list(r) for r, _, _ in res["only_in_A"]],
                              "only_in_Q": [list(r) for r, _, _ in res["only_in_B"]]}
                             for P, Q, res in results]}, sys.stdout)
        sys.stdout.write("\n")
        return 0
    what = ("labelled point configurations with equal sign patterns S([1|P]) = "
            "S([1|Q])" if args.number == "H.1" else "matrices with equal cosine matrices")
    print(f"search theorem {args.number}: {what} and different ranking patterns")
    print(f"n = {args.n}, d = {args.d}, entries in [-{args.box}, {args.box}]: "
          f"{examined} {'point sets' if args.number == 'H.1' else 'matrices'} examined "
          f"in {seconds:.1f} s; {len(pairs)} pair{'s' if len(pairs) != 1 else ''} found")
    for k, (P, Q, res) in enumerate(results):
        print(f"pair {k}: P = {P}")
        print(f"        Q = {Q}")
        for side, name in (("A", "P"), ("B", "Q")):
            for ranking, witness, cert in res[f"only_in_{side}"]:
                from verify.numbers.rational import format_rational

                print(f"  only in R({name}): {' > '.join(map(str, ranking))}  "
                      f"x = ({', '.join(format_rational(a) for a in witness)}); "
                      f"Gordan certificate on the other side "
                      f"({len(cert.multipliers)} multipliers)")
    return 0


def _write_pair_certificates(args, pairs) -> None:
    from pathlib import Path

    from verify.certificates import h1_certificate, theorem55_certificate, write_certificate

    directory = Path(args.certificates)
    directory.mkdir(parents=True, exist_ok=True)
    slug = args.number.replace(".", "")
    for k, (P, Q) in enumerate(pairs):
        cert = (h1_certificate(P, Q) if args.number == "H.1"
                else theorem55_certificate(P, Q, None))
        write_certificate(directory / f"theorem-{slug}-pair-{k}.cert.json", cert)
    if pairs:
        print(f"verify: {len(pairs)} certificate{'s' if len(pairs) != 1 else ''} written "
              f"to {directory}", file=sys.stderr)


# --- pattern -------------------------------------------------------------------------

def run_pattern(args) -> int:
    from flint import fmpq

    from verify.arrangement import ranking_pattern, sign_pattern
    from verify.matrix_io import read_matrix
    from verify.numbers.rational import format_rational

    rows = read_matrix(args.matrix)
    n, d = len(rows), len(rows[0])
    if args.kind == "ranking":
        result = ranking_pattern(rows, affine=args.affine, method=args.method)
        cells, warnings = result.cells, result.warnings
        rankings = result.rankings
    else:
        M = [[fmpq(1)] + row for row in rows] if args.affine else rows
        result = sign_pattern(M, method=args.method)
        cells, warnings, rankings = result.cells, result.warnings, None
    for w in warnings:
        print(f"verify: warning: {w}", file=sys.stderr)
    if args.certificate:
        from verify.certificates import pattern_certificate, write_certificate

        write_certificate(args.certificate,
                          pattern_certificate(rows, kind=args.kind, affine=args.affine))
        print(f"verify: certificate written to {args.certificate}", file=sys.stderr)
    witnesses = [[format_rational(a) for a in c.witness] for c in cells]
    if args.json:
        out = {"kind": args.kind, "n": n, "d": d, "count": len(cells),
               "patterns": [c.signs for c in cells], "witnesses": witnesses}
        if rankings is not None:
            out["rankings"] = [list(r) for r in rankings]
        json.dump(out, sys.stdout, separators=(",", ":"))
        sys.stdout.write("\n")
        return 0
    _print_pattern_table(args, result, n, d, cells, witnesses, rankings)
    return 0


def _print_pattern_table(args, result, n, d, cells, witnesses, rankings) -> None:
    shown = cells if args.limit == 0 else cells[: args.limit]
    affine = " with a column of ones" if args.affine else ""
    if rankings is not None:
        print(f"ranking pattern R(W) of {args.matrix}: {n} labels in dimension {d}{affine}")
        print(f"{len(cells)} feasible ranking{'s' if len(cells) != 1 else ''} "
              f"(labels from 0, highest logit first; witness x gives the logits W x)")
        header, col = "ranking", [" > ".join(map(str, r)) for r in rankings[: len(shown)]]
    else:
        sp = result
        print(f"sign pattern S(M) of {args.matrix}: {n} x {d}{affine}, rank {sp.rank}, "
              f"{sp.hyperplanes} distinct hyperplane{'s' if sp.hyperplanes != 1 else ''}")
        print(f"{len(cells)} cell{'s' if len(cells) != 1 else ''} "
              f"(signs of M z in row order; witness z)")
        header, col = "signs", [c.signs for c in shown]
    if not cells:
        return
    width = max(len(header), *(len(c) for c in col))
    print(f"{'#':>6}  {header:<{width}}  witness")
    for k, (text, w) in enumerate(zip(col, witnesses)):
        print(f"{k:>6}  {text:<{width}}  ({', '.join(w)})")
    if len(shown) < len(cells):
        print(f"  ... {len(cells) - len(shown)} more (--limit 0 shows all; --json gives "
              f"everything)")
