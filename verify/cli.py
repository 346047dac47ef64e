"""Command-line interface: ``python -m verify COMMAND ...``.

Every user error (bad file, bad entry, impossible size, bad option) ends with one line
on stderr and exit code 2; the engine's answers go to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from verify.io.errors import InputError, VerifyError
from verify.io.options import non_negative_int, positive_int

INPUT_HELP = (
    "matrix file: .json (a list of rows, or an object with key \"W\"), .csv/.txt "
    "(comma- or whitespace-separated) or .npy. Entries are exact: integers, decimals "
    "(0.1 is 1/10, also as a JSON number) and fractions p/q. Floats in .npy files are "
    "taken at their exact binary value (0.1 as a float64 is 3602879701896397/2^55). "
    "Also a checkpoint: .safetensors, a sharded model.safetensors.index.json or a "
    "directory holding one; its head (lm_head.weight, else a classification head such "
    "as classifier.weight or score.weight, else the tied input embeddings) is read "
    "exactly (heads of up to a few million entries).")


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (exit status 2): the
    problem and where the usage is, instead of the usage and the problem."""

    def error(self, message: str):
        message = " ".join(message.split()) + self._matrix_hint(message, sys.argv[1:])
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")

    def _matrix_hint(self, message: str, argv: list[str]) -> str:
        """'; give the matrix file as --matrix FILE' where a command that needs
        --matrix was given an existing file without it (``analyze W.npy``), else ''."""
        if "required: --matrix" not in message:
            return ""
        takes_value = {name for name, action in self._option_string_actions.items()
                       if action.nargs != 0}
        for before, arg in zip([""] + argv, argv):
            # A file that is not the value of an option (--bias b.npy) is the matrix.
            if (not arg.startswith("-") and before not in takes_value
                    and os.path.isfile(arg)):
                return f"; give the matrix file as --matrix {arg}"
        return ""


def _version() -> str:
    from verify import __version__

    return f"cosine-verify {__version__}"


CHECK_HELP = ("re-check certificate files with the standard library alone, or an analyze "
              "certificate against the head it was made from ('python -m verify check "
              "--help')")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="python -m verify",
        description="Exact, certificate-producing checks of sign patterns, ranking "
                    "patterns and the claims built on them.")
    parser.add_argument("--version", action="version", version=_version(),
                        help="print the distribution's name and version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND",
                                parser_class=Parser)
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
    p.add_argument("--limit", type=non_negative_int, default=None, metavar="K",
                   help="rows shown in the table (0: all; default 20)")
    p.add_argument("--format", choices=("table", "json", "jsonl", "npz"), default=None,
                   help="table (default); json (the same as --json); jsonl: one JSON "
                        "object per cell, {signs, witness[, ranking]}, written as the "
                        "cells are found (memory does not grow with their number); npz: "
                        "a numpy archive of packed signs, witnesses (int64) and rankings, "
                        "streamed too (needs --output). Cells come in the order of --json")
    p.add_argument("--output", metavar="FILE",
                   help="write the json/jsonl/npz output to FILE (atomically) instead "
                        "of stdout")
    p.add_argument("--count-only", action="store_true",
                   help="count the cells without witnesses; the count is checked against "
                        "Zaslavsky's formula (the lattice of flats) when that lattice is "
                        "small enough")
    p.add_argument("--jobs", type=positive_int, default=1, metavar="N",
                   help="worker processes for the cocircuit method (default 1); the "
                        "output is byte-identical for any N")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="compute on a Dask cluster, as the sweeps do: 'local' starts a "
                        "LocalCluster with --jobs workers, otherwise the scheduler "
                        "address (optional extra: pip install -e '.[dask]')")
    p.add_argument("--certificate", metavar="PATH",
                   help="also write a certificate (witness per cell, Gordan multipliers "
                        "for every empty neighbouring orthant) that 'python -m verify "
                        "check PATH' re-checks with the standard library alone; written "
                        "atomically, byte-identical for the same input")
    p.add_argument("--certificate-format", choices=("json", "jsonl"), default="json",
                   help="json (default): one JSON object, built in memory; jsonl: the "
                        "streamed certificate of a ranking pattern (JSON Lines, cells "
                        "sorted, Gordan multipliers only for the adjacent swaps that are "
                        "not cells), written and checked in bounded memory, for millions "
                        "of cells; uses --jobs and --scheduler")
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

    p = sub.add_parser("check", help=CHECK_HELP, add_help=False,
                       description=CHECK_HELP)
    p.add_argument("arguments", nargs=argparse.REMAINDER)

    from verify.claims.registry import CLAIMS, KINDS

    for kind in KINDS:
        claims = [c for c in CLAIMS.values() if c.kind == kind]
        noun, which = _KIND_NOUNS[kind]
        names = _listing([c.number for c in claims])
        p = sub.add_parser(
            kind, help=f"check {noun}: {names}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
            description=_wrapped(
                f"Check {noun} exactly: 'python -m verify {kind} {which.upper()}' "
                f"({names}; 'python -m verify list' states them). The sweeps (lemma 5.3, "
                "theorem 5.6, proposition E.2) run over enumerated integer matrices "
                "(--n, --d, --seed, --matrices), every small matrix (--exhaustive --box "
                "K) or one matrix (--matrix FILE). An option that does not apply to the "
                "claim is an error."),
            epilog=_claim_options_epilog(claims))
        p.add_argument("number", metavar=which.upper(), help=f"the claim's {which}: {names}")
        _add_claim_options(p)
        p.set_defaults(run=run_claim, kind=kind)
    return parser


#: kind -> (what one claim of that kind is called, what names it)
_KIND_NOUNS = {
    "lemma": ("a lemma of Nielsen & Grivas", "number"),
    "theorem": ("a theorem of Nielsen & Grivas", "number"),
    "proposition": ("a proposition of Nielsen & Grivas", "number"),
    "example": ("an example of Nielsen & Grivas", "number"),
    "appendix": ("an appendix of Nielsen & Grivas", "letter"),
    "steck": ("a claim of Steck et al.", "name"),
}


def _listing(items: list[str]) -> str:
    """``'a'``, ``'a or b'``, ``'a, b or c'``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def _wrapped(text: str) -> str:
    import textwrap

    return textwrap.fill(text, width=88)


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def _claim_options_epilog(claims) -> str:
    """Which options apply to which claim."""
    lines = ["options by claim (every claim also takes --json and --certificate):"]
    for claim in claims:
        taken = ", ".join(_flag(d) for d in claim.options) or "no other options"
        lines.append(_wrapped(f"  {claim.id}: {taken}").replace("\n", "\n      "))
    return "\n".join(lines)


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
    # Every option's default is None (False for flags) in the namespace, so that an
    # option given to a claim it does not apply to is seen; run_claim puts the
    # defaults back.
    defaults = {a.dest: a.default for a in p._actions
                if a.option_strings and a.dest != "help"}
    p.set_defaults(**{dest: None for dest in defaults}, claim_defaults=defaults)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    if argv[:1] == ["check"]:
        return _check(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        _cap_jobs(args)
        _check_npy_matrix(getattr(args, "matrix", None))
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


def _check(argv: list[str]) -> int:
    """``check``: the standard-library checker, or the check against a matrix file."""
    if any(a == "--matrix" or a.startswith("--matrix=") for a in argv):
        return check_against_matrix(argv)
    from verify.checker.core import main as check_main

    return check_main(argv)


def _check_npy_matrix(path) -> None:
    """Refuse, in one line, a ``--matrix`` ``.npy`` file whose header declares more data
    than the file holds, before any command maps or allocates it."""
    from pathlib import Path

    if not isinstance(path, str) or Path(path).suffix.lower() != ".npy":
        return
    from verify.io.files import regular_file_problem
    from verify.io.matrix import npy_header_problem

    problem = regular_file_problem(path) or npy_header_problem(path)
    if problem is not None:
        shown = path.replace("\r", "\\r").replace("\n", "\\n")
        raise InputError(f"{shown}: {problem}")


def _cap_jobs(args) -> None:
    """Cap ``--jobs`` at this machine's CPUs, with a one-line note, when the workers are
    local processes (no remote ``--scheduler``): more only cost memory and forks."""
    from verify.io.options import available_cpus

    jobs = getattr(args, "jobs", None)
    if getattr(args, "scheduler", None) not in (None, "local") or not isinstance(jobs, int):
        return
    cpus = available_cpus()
    if jobs > cpus:
        print(f"verify: note: --jobs {jobs:,} is more than the {cpus} CPUs here: using {cpus}",
              file=sys.stderr)
        args.jobs = cpus


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
    _refuse_options(claim, args)
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


def _refuse_options(claim, args) -> None:
    """Refuse the options given that do not apply to ``claim``; then set every option
    that was not given to its default."""
    # Identity, not equality: --seed 0 is given although 0 == False.
    given = [dest for dest in args.claim_defaults
             if getattr(args, dest) is not None and getattr(args, dest) is not False]
    refused = [_flag(dest) for dest in given if dest not in claim.accepted]
    if refused:
        verb = "is" if len(refused) == 1 else "are"
        why = f" ({claim.fixed})" if claim.fixed else ""
        taken = ", ".join(_flag(d) for d in claim.accepted)
        raise InputError(f"{', '.join(refused)} {verb} not supported by {claim.id}{why}; "
                         f"its options: {taken}")
    for dest, default in args.claim_defaults.items():
        if getattr(args, dest) is None:
            setattr(args, dest, default)


def _write_claim_certificate(claim, args, report) -> None:
    from verify.certificates.writers import write_certificate

    certificate = getattr(report, "certificate", None)
    if certificate is None and claim.sweep:
        if not args.matrix:
            raise InputError(f"--certificate for {claim.id} needs --matrix FILE (one "
                             "certificate per matrix)")
        from verify.certificates.writers import claim_certificate
        from verify.io.matrix import read_matrix

        try:
            certificate = claim_certificate(claim.id, read_matrix(args.matrix,
                                                                rational=claim.id))
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
    if claim.id == "proposition E.2":
        print(f"cells compared: {report.cells} (left side: exact rational engine; right "
              f"side: each open orthant decided on its own by an exact LP, with a witness "
              f"or a Gordan certificate)")
        _print_sweep_verdict(report)
        return
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
    _print_sweep_verdict(report)


def _print_sweep_verdict(report) -> None:
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

    from verify.certificates.writers import write_certificate

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

    from verify.certificates.writers import h1_certificate, theorem55_certificate, write_certificate

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
    from verify.io.matrix import read_matrix

    fmt = args.format or ("json" if args.json else "table")
    if args.json and fmt != "json":
        raise InputError(f"--json and --format {fmt} disagree: give one of them")
    if fmt == "npz" and not args.output:
        raise InputError("--format npz needs --output FILE")
    streamed = fmt in ("jsonl", "npz") or args.count_only
    if args.method != "cocircuits" and (streamed or args.jobs > 1 or args.scheduler):
        raise InputError("--format jsonl/npz, --count-only, --jobs and --scheduler use "
                         "the cocircuit method: leave out --method graph")
    if args.certificate_format != "json" and not args.certificate:
        raise InputError("--certificate-format needs --certificate PATH")
    if args.count_only and (fmt in ("jsonl", "npz") or args.output):
        raise InputError("--count-only prints the count (as JSON with --json): "
                         "--format jsonl/npz and --output do not apply")
    if args.limit is not None and (fmt != "table" or args.count_only):
        raise InputError("--limit applies to the table: leave it out with --json, "
                         "--format and --count-only")
    if args.output and fmt == "table":
        raise InputError("--output writes --format json, jsonl or npz: give one of them")
    args.limit = 20 if args.limit is None else args.limit
    if args.certificate_format == "jsonl" and (args.kind != "ranking" or
                                               args.method != "cocircuits"):
        raise InputError("--certificate-format jsonl is the streamed certificate of a "
                         "ranking pattern: use --kind ranking (and the cocircuit method)")
    rows = read_matrix(args.matrix, rational="pattern")
    n, d = len(rows), len(rows[0])
    _note_tensor(args.matrix)
    source = _pattern_source(args, rows)
    _refuse_too_many_lines(args, source)
    if args.certificate and args.certificate_format == "json":
        from verify.certificates.writers import pattern_certificate, write_certificate

        write_certificate(args.certificate,
                          pattern_certificate(rows, kind=args.kind, affine=args.affine))
        print(f"verify: certificate written to {args.certificate}", file=sys.stderr)
    for w in source.warnings:
        print(f"verify: warning: {w}", file=sys.stderr)
    if not (args.certificate and args.certificate_format == "jsonl"):
        return _write_pattern(args, source, fmt, n, d)
    from verify.certificates.stream import ranking_certificate

    # One enumeration feeds both the certificate and the requested output.
    with ranking_certificate(args.certificate, rows, affine=args.affine, jobs=args.jobs,
                             scheduler=args.scheduler) as certificate:
        if certificate.needs_cells:
            source.tap = certificate.tap
        status = _write_pattern(args, source, fmt, n, d)
    written = certificate.written
    print(f"verify: certificate written to {args.certificate} ({written['cells']} "
          f"cells, {written['refutations']} refutations)", file=sys.stderr)
    return status


def _note_tensor(path) -> None:
    """Which tensor of a checkpoint was read, as a note on stderr (as analyze does)."""
    from verify.io import checkpoint

    if checkpoint.is_checkpoint(path):
        print(f"verify: note: {checkpoint.load_tensor(path).label}", file=sys.stderr)


def _refuse_too_many_lines(args, source) -> None:
    """Refuse, before enumerating, a pattern whose cocircuits cannot be enumerated; its
    size as ``analyze`` states it (``about 10^131.8``)."""
    from math import comb

    from verify.analyze.cells import magnitude
    from verify.arrangement.cocircuits import MAX_SUBSETS, generic_tope_count
    from verify.io.errors import TooLargeError

    if source.result is not None:
        return
    K, r = source.reduced.H.shape
    lines = comb(K, r - 1) if r > 1 else 0
    if lines > MAX_SUBSETS:
        raise TooLargeError(
            f"{args.matrix}: the {args.kind} pattern has up to "
            f"{magnitude(generic_tope_count(K, r))} cells, too many to enumerate: "
            f"{K} distinct hyperplanes in rank {r} meet in up to {magnitude(lines)} "
            f"lines (limit {MAX_SUBSETS})")


def _write_pattern(args, source, fmt: str, n: int, d: int) -> int:
    """The requested output (count, table, JSON, JSON Lines or npz) of ``source``."""
    if args.count_only:
        return _print_count(args, source, n, d)
    if fmt == "table":
        blocks = list(source.blocks(witnesses=True))
        _print_pattern_table(args, source, n, d, blocks)
        return 0
    from verify.io import pattern_output

    # Each format opens its destination only when it writes to it: an atomic writer
    # opened around nothing would replace the file with an empty one (issue 28, F11).
    if fmt == "npz":
        from verify.io.atomic import open_atomic

        pattern_output.write_npz(args.output, source.blocks(witnesses=True),
                                 kind=args.kind, n=n, d=d, N=source.N,
                                 open_output=open_atomic)
    elif fmt == "json":
        blocks = list(source.blocks(witnesses=True))  # enumerated before the file opens
        with _output(args.output) as out:
            pattern_output.write_json(out, blocks, kind=args.kind, n=n, d=d)
    elif fmt == "jsonl":
        with _output(args.output) as out:
            pattern_output.write_jsonl(out, source.blocks(witnesses=True), kind=args.kind,
                                       n=n)
    else:
        raise InputError(f"unknown output format {fmt!r}")
    return 0


def _pattern_source(args, rows):
    """The cells of the requested pattern as a :class:`PatternSource`."""
    from flint import fmpq

    from verify.arrangement.ranking_pattern import braid_product

    V = [[fmpq(1)] + row for row in rows] if args.affine else rows
    M = braid_product(V) if args.kind == "ranking" else V
    return PatternSource(args, rows, M)


class PatternSource:
    """Blocks ``(signs, witnesses)`` of the pattern, from the streaming engine, or from
    the whole-pattern API for ``--method graph`` and for the empty and one-label
    patterns (which carry their own warnings)."""

    def __init__(self, args, rows, M):
        from verify.arrangement.stream import reduce_matrix

        self.args, self.rows, self.M, self.N = args, rows, M, len(M)
        self.reduced = reduce_matrix(M)
        self.result = None
        #: a pass-through for the blocks (a certificate written from the same cells)
        self.tap = None
        if args.method != "cocircuits" or self.reduced.zero_rows or not M:
            self.result = self._whole()
        self.warnings = self.result.warnings if self.result is not None else []

    def _whole(self):
        from verify.arrangement import ranking_pattern, sign_pattern

        if self.args.kind == "ranking":
            return ranking_pattern(self.rows, affine=self.args.affine,
                                   method=self.args.method)
        return sign_pattern(self.M, method=self.args.method)

    @property
    def rank(self) -> int:
        return self.result.signs.rank if hasattr(self.result, "signs") else (
            self.result.rank if self.result is not None else self.reduced.rank)

    @property
    def hyperplanes(self) -> int:
        if self.result is not None:
            sp = getattr(self.result, "signs", self.result)
            return sp.hyperplanes
        return len(self.reduced.H)

    def blocks(self, *, witnesses: bool):
        import numpy as np

        if self.result is not None:
            cells = self.result.cells
            k = len(self.M[0]) if self.M else self.args_width()
            signs = np.array([[1 if c == "+" else -1 for c in cell.signs] for cell in cells],
                             dtype=np.int8).reshape(len(cells), self.N)
            Z = np.array([[int(a) for a in cell.witness] for cell in cells],
                         dtype=object).reshape(len(cells), k)
            yield signs, Z
            return
        from verify.arrangement.stream import sign_pattern_blocks

        if self.tap is not None:  # the certificate needs the witnesses in any case
            yield from self.tap(sign_pattern_blocks(
                self.M, witnesses=True, jobs=self.args.jobs, scheduler=self.args.scheduler,
                reduced=self.reduced))
            return
        yield from sign_pattern_blocks(self.M, witnesses=witnesses, jobs=self.args.jobs,
                                       scheduler=self.args.scheduler, reduced=self.reduced)

    def args_width(self) -> int:
        return len(self.rows[0]) + (1 if self.args.affine else 0)


class _TextSink:
    """Bytes written to a text stream, decoded as UTF-8."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, data: bytes) -> int:
        self.stream.write(bytes(data).decode("utf-8"))
        return len(data)

    def flush(self) -> None:
        self.stream.flush()


def _output(path):
    """stdout (binary) or an atomic file."""
    from contextlib import nullcontext

    if path is None:
        sys.stdout.flush()
        # A text stream without a byte buffer (a notebook, redirect_stdout) gets text.
        buffer = getattr(sys.stdout, "buffer", None)
        return nullcontext(buffer if buffer is not None else _TextSink(sys.stdout))
    from verify.io.atomic import open_atomic

    return open_atomic(path)


def _print_count(args, source, n, d) -> int:
    """``--count-only``: the count, and Zaslavsky's count of the same arrangement."""
    count = sum(len(signs) for signs, _ in source.blocks(witnesses=False))
    zaslavsky = None
    if source.result is None:
        from verify.arrangement.whitney import cell_count_by_ranks
        from verify.arrangement.zaslavsky import cell_count

        # The Whitney numbers one rank at a time cost less than the whole lattice of
        # flats on every benchmark case (9 x 6: 7.6 against 19 CPU-s); the lattice is
        # the fallback when a flat has too many flats below it.
        try:
            zaslavsky = cell_count_by_ranks(source.reduced.H)
        except ValueError:
            zaslavsky = cell_count(source.reduced.H)
    if args.json or args.format == "json":
        json.dump({"kind": args.kind, "n": n, "d": d, "count": count,
                   "zaslavsky": zaslavsky}, sys.stdout, separators=(",", ":"))
        sys.stdout.write("\n")
    else:
        what = "ranking" if args.kind == "ranking" else "cell"
        check = ("Zaslavsky's formula (Whitney numbers) gives the same count"
                 if zaslavsky == count else
                 "the lattice of flats is too large for Zaslavsky's check"
                 if zaslavsky is None else f"Zaslavsky's formula gives {zaslavsky}")
        print(f"{count} {what}{'s' if count != 1 else ''}"
              + ("" if source.result is not None else f"; {check}"))
    if zaslavsky is not None and zaslavsky != count:
        print(f"verify: error: internal error: {count} cells enumerated, Zaslavsky's "
              f"formula gives {zaslavsky}", file=sys.stderr)
        return 1
    return 0


def _print_pattern_table(args, source, n, d, blocks) -> None:
    from verify.io import pattern_output

    count = sum(len(signs) for signs, _ in blocks)
    limit = count if args.limit == 0 else min(args.limit, count)
    signs, Z = _first_rows(blocks, limit)
    witnesses = pattern_output.number_strings(Z).tolist() if limit else []
    affine = " with a column of ones" if args.affine else ""
    if args.kind == "ranking":
        print(f"ranking pattern R(W) of {args.matrix}: {n} labels in dimension {d}{affine}")
        print(f"{count} feasible ranking{'s' if count != 1 else ''} "
              f"(labels from 0, highest logit first; witness x gives the logits W x)")
        rankings = (pattern_output.rankings_of(signs, n).tolist() if n > 1 and limit
                    else [[0]] * limit)
        header, col = "ranking", [" > ".join(map(str, r)) for r in rankings]
    else:
        print(f"sign pattern S(M) of {args.matrix}: {n} x {d}{affine}, rank {source.rank}, "
              f"{source.hyperplanes} distinct hyperplane"
              f"{'s' if source.hyperplanes != 1 else ''}")
        print(f"{count} cell{'s' if count != 1 else ''} "
              f"(signs of M z in row order; witness z)")
        header = "signs"
        col = [bytes(row).decode("ascii") for row in pattern_output.sign_text(signs)]
    if not count:
        return
    width = max(len(header), *(len(c) for c in col))
    print(f"{'#':>6}  {header:<{width}}  witness")
    for k, (text, w) in enumerate(zip(col, witnesses)):
        print(f"{k:>6}  {text:<{width}}  ({', '.join(w)})")
    if limit < count:
        print(f"  ... {count - limit} more (--limit 0 shows all; --json gives "
              f"everything)")


def _first_rows(blocks, limit):
    """The first ``limit`` cells of ``blocks`` as one block."""
    import numpy as np

    signs, Z, taken = [], [], 0
    for s, z in blocks:
        if taken >= limit:
            break
        signs.append(s[:limit - taken])
        Z.append(z[:limit - taken])
        taken += len(signs[-1])
    if not signs:
        return np.zeros((0, 0), dtype=np.int8), np.zeros((0, 0), dtype=np.int64)
    return np.concatenate(signs), np.concatenate(Z)


# --- check an analyze certificate against the user's head ------------------------------

def check_against_matrix(argv: list[str]) -> int:
    """``python -m verify check CERT --matrix FILE [--tensor NAME] [--bias NAME|FILE]``.

    Checks the certificate (:mod:`verify.checker.analyze`), then confirms that its
    ``Z`` is its scale times the head read from ``FILE`` exactly as ``analyze`` reads
    it, and that ``FILE``'s SHA-256 is the recorded one.
    """
    from verify.checker.analyze import confirm_matrix
    from verify.checker.core import CertificateError, UnknownFormat
    from verify.checker.core import main as check_main

    p = Parser(prog="python -m verify check")
    p.add_argument("certificate", metavar="CERT")
    p.add_argument("--matrix", required=True, metavar="FILE")
    p.add_argument("--tensor", metavar="NAME")
    p.add_argument("--bias", metavar="NAME|FILE")
    p.add_argument("--arithmetic", choices=("auto", "python", "numpy"), default="auto")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="processes that share the witness products (numpy path)")
    args = p.parse_args(argv)
    status = check_main(["--arithmetic", args.arithmetic, "--jobs", str(args.jobs),
                         args.certificate])
    if status:
        return status
    try:
        _check_npy_matrix(args.matrix)
        from verify.analyze.command import TensorRows, load_source

        rows, bias, _, _ = load_source(args.matrix, args.tensor, args.bias)
        if isinstance(rows, list):
            from verify.io.matrix import refuse_irrational

            refuse_irrational(rows, args.matrix, "check --matrix")
        if isinstance(rows, TensorRows):
            rows = rows.tensor.block(0, rows.shape[0])
        import numpy as np

        exact = None if isinstance(rows, np.ndarray) else [
            [_fraction_of(x, args.matrix) for x in row] for row in rows]
        b = None if bias is None else [_fraction_of(x, args.matrix) for x in bias]
        summary = confirm_matrix(args.certificate, rows=exact,
                                 array=rows if exact is None else None, bias=b,
                                 file=args.matrix)
    except VerifyError as err:
        print(f"verify: error: {err}", file=sys.stderr)
        return err.exit_code
    except UnknownFormat as exc:
        print(f"{args.certificate}: ERROR: {exc}", file=sys.stderr)
        return 2
    except CertificateError as exc:
        print(f"{args.certificate}: INVALID for {args.matrix}: {exc}", file=sys.stderr)
        return 1
    print(f"{args.certificate}: OK for {args.matrix} ({summary})")
    return 0


def _fraction_of(x, source: str):
    from fractions import Fraction

    from verify.numbers.sqrt_sum import SqrtSum

    if isinstance(x, SqrtSum):
        if not x.is_rational():
            raise InputError(f"{source}: entries with square roots have no analyze "
                             "certificate")
        x = x.to_rational()
    if hasattr(x, "p") and hasattr(x, "q"):
        return Fraction(int(x.p), int(x.q))
    if hasattr(x, "dtype"):  # a numpy scalar (a bias read from .npy): its exact value
        return Fraction(x.item())
    return Fraction(x)
