"""Running a cosine-pattern claim over a family of matrices, and reporting.

The report says how many matrices were checked, how many were skipped (outside the
claim's hypotheses, with the reason), how many agreed, how many cells were compared,
and where the first disagreement was written, if any.

Sweeps are embarrassingly parallel. Matrix ``k`` of a family is always the same matrix
(the family is deterministic), its check is a pure function of it, and results are
merged in the order of ``k``; so the report is identical whether the matrices were
checked by one process, by ``--jobs N`` worker processes, by a Dask cluster
(``--scheduler``), in ``--shard i/k`` parts merged afterwards, or across a crash and a
restart from a ``--checkpoint``.

Checkpoint files are JSON lines: a header naming the claim, the family and the shard,
then one line per finished matrix, flushed to disk as soon as it is known, carrying the
SHA-256 of its content and of the header. A line cut short by a crash, and a record
whose checksum does not match (damaged or edited), are dropped with a note on stderr
when the sweep restarts, and their matrices recomputed: a record is never trusted
without its checksum.

With ``options.certificate_matrices = K > 0`` (``verify all`` sets it) the report of a
sweep that held also carries a sweep certificate of the first ``K`` matrices of the
family (:func:`verify.certificates.writers.sweep_certificate`). It is built on first access of
``report.certificate``, so a run that never writes it costs nothing extra.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from verify.claims.families import enumerated_matrices, exhaustive_matrices
from verify.io.errors import InputError, count_text

CHECKPOINT_FORMAT = "verify-checkpoint/2"

#: The key of a record's checksum (:func:`record_checksum`).
CHECKSUM = "sha256"


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
    shard: str | None = None
    certificate_builder: object = field(default=None, repr=False, compare=False)
    _certificate: dict | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def holds(self) -> bool:
        return self.agreed == self.checked

    @property
    def certificate(self) -> dict | None:
        """The sweep certificate, built by ``certificate_builder`` on first access (None
        when the options asked for none)."""
        if self._certificate is None and self.certificate_builder is not None:
            self._certificate = self.certificate_builder()
        return self._certificate

    def to_json(self) -> dict[str, Any]:
        """The documented JSON object of a claim run."""
        return {"claim": self.claim, "checked": self.checked, "skipped": self.skipped,
                "agreed": self.agreed, "cells": self.cells,
                "counterexample": self.counterexample}

    def _summary(self) -> tuple[str, list[tuple[str, str]], str]:
        rows = [("holds", "yes" if self.holds else "no"),
                ("family", self.family),
                ("checked", f"{self.checked} (agreed {self.agreed}, skipped {self.skipped})"),
                ("cells compared", str(self.cells))]
        if self.counterexample:
            rows.append(("counterexample", self.counterexample))
        return (f"SweepReport {self.claim}", rows,
                ".to_json() gives the counts; .certificate is re-checked by "
                "verify.check_certificate")

    def _repr_html_(self) -> str:
        """The summary that Jupyter shows."""
        from verify.io.display import summary_html

        return summary_html(*self._summary())

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """The summary that IPython's pretty printer shows."""
        from verify.io.display import pretty

        pretty(p, cycle, *self._summary())


# --- the family ----------------------------------------------------------------------

def family_of(claim, options):
    """``(description, identity, list of (label, W))`` for the options of a run.

    ``identity`` is what a checkpoint must match: the claim and everything that
    determines the family.
    """
    if options.matrix:
        from verify.io.matrix import read_matrix

        W = read_matrix(options.matrix, rational=claim.id)
        digest = hashlib.sha256(Path(options.matrix).read_bytes()).hexdigest()
        identity = {"claim": claim.id, "matrix": digest}
        return f"the matrix in {options.matrix}", identity, [(options.matrix, W)]
    n, d = options.n, options.d
    _check_family_size(options)
    if options.exhaustive:
        box = options.box
        row_signs = claim.id == "lemma 5.3"
        symmetries = "row permutations, signed column permutations" + (
            ", row sign changes" if row_signs else "")
        desc = (f"every {n} x {d} integer matrix with entries in [-{box}, {box}] up to "
                f"{symmetries}")
        identity = {"claim": claim.id, "n": n, "d": d, "exhaustive": True, "box": box}
        matrices = [(f"exhaustive #{k}", W) for k, W in
                    enumerate(exhaustive_matrices(n, d, box, row_signs=row_signs))]
        return desc, identity, matrices
    desc = f"{options.matrices} enumerated {n} x {d} integer matrices (seed {options.seed})"
    identity = {"claim": claim.id, "n": n, "d": d, "seed": options.seed,
                "matrices": options.matrices}
    matrices = [(f"#{k} ({kind})", W) for k, (kind, W) in
                enumerate(enumerated_matrices(n, d, seed=options.seed,
                                              count=options.matrices))]
    return desc, identity, matrices


#: A sweep's matrices have at most this many rows and columns; far larger ones would
#: not finish, and numpy refuses to build some of them.
MAX_SIDE = 1000

#: A sampled family has at most this many matrices (they are built up front).
MAX_MATRICES = 1_000_000


def _check_family_size(options) -> None:
    """Refuse (one line) a family that is impossible or too large, before building it."""
    from verify.claims.families import MAX_EXHAUSTIVE, exhaustive_count_bound
    from verify.io.errors import TooLargeError

    n, d = options.n, options.d
    if n < 1 or d < 1:
        raise InputError(f"--n and --d must be at least 1 (got n={n}, d={d})")
    if n > MAX_SIDE or d > MAX_SIDE:
        raise TooLargeError(f"--n {count_text(n)}, --d {count_text(d)}: a sweep's matrices "
                            f"have at most {MAX_SIDE:,} rows and columns")
    if not options.exhaustive:
        if options.matrices < 1:
            raise InputError(f"--matrices must be at least 1 (got {options.matrices})")
        if options.matrices > MAX_MATRICES:
            raise TooLargeError(f"--matrices {count_text(options.matrices)}: a sampled "
                                f"family has at most {MAX_MATRICES:,} matrices")
        if options.seed < 0:
            raise InputError(f"--seed must be >= 0 (got {count_text(options.seed)})")
        return
    box = options.box
    if box < 0:
        raise InputError(f"--box must be >= 0 (got {box})")
    # At least (2 box + 1)^d row multisets: compare exponents before any large power.
    if ((2 * box + 1).bit_length() - 1) * d > MAX_EXHAUSTIVE.bit_length():
        total = 2 ** (((2 * box + 1).bit_length() - 1) * d)
    else:
        total = exhaustive_count_bound(n, d, box)
    if total > MAX_EXHAUSTIVE:
        raise TooLargeError(f"--exhaustive with n={n}, d={d}, box={count_text(box)} has "
                            f"{count_text(total)} row multisets to examine (limit "
                            f"{MAX_EXHAUSTIVE:,}); use a smaller box or the sampled family")


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``"i/k"`` -> ``(i, k)`` with ``1 <= i <= k``; matrix ``m`` belongs to part
    ``m % k + 1``."""
    if not text:
        return None
    try:
        i, k = (int(x) for x in text.split("/"))
    except ValueError:
        raise InputError(f"--shard must look like i/k, e.g. 2/4 (got {text!r})") from None
    if not 1 <= i <= k:
        raise InputError(f"--shard {text}: need 1 <= i <= k")
    return i, k


# --- checking one matrix (a pure function, run anywhere) ------------------------------

#: claim id -> "module:function" checking one matrix (returns a ``MatrixCheck``).
MATRIX_CHECKS = {
    "lemma 5.3": "verify.claims.cosine_patterns:check_matrix",
    "theorem 5.6": "verify.claims.cosine_patterns:check_matrix",
    "proposition E.2": "verify.claims.orthants:check_matrix",
}


def check_one(task, progress=None) -> dict:
    """Check matrix ``index`` of the family: a JSON-ready record (picklable, pure).

    ``progress`` (optional) is told the steps of the check as they start.
    """
    claim_id, index, W = task
    from importlib import import_module

    module, function = MATRIX_CHECKS[claim_id].split(":")
    check_matrix = getattr(import_module(module), function)
    stats: dict = {}
    extra = {"progress": progress} if progress is not None else {}
    result = check_matrix(claim_id, W, stats=stats, **extra)
    record = {"index": index, "status": result.status, "reason": result.reason,
              "cells": result.cells, "chirotopes_agree": result.chirotopes_agree,
              "stats": stats}
    if result.status == "disagree":
        record["lhs"], record["rhs"] = result.lhs, result.rhs
    return record


# --- checkpoints ---------------------------------------------------------------------

def _header(identity: dict, shard) -> dict:
    return {"format": CHECKPOINT_FORMAT, "family": identity,
            "shard": f"{shard[0]}/{shard[1]}" if shard else None}


def _canonical(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode("utf-8")


def record_checksum(header: dict, record: dict) -> str:
    """The SHA-256 of the run's parameters (the header) and of a record's content: a
    record damaged on disk, edited by hand or copied from another run no longer
    matches it. (It detects accidents and edits, not a forger who recomputes it.)"""
    content = {key: value for key, value in record.items() if key != CHECKSUM}
    return hashlib.sha256(_canonical(header) + b"\n" + _canonical(content)).hexdigest()


def _is_count(value) -> bool:
    return type(value) is int and value >= 0


def _record_problem(header: dict, record) -> str | None:
    """Why a parsed checkpoint line is not a record of this run, or None."""
    if not isinstance(record, dict):
        return "not a JSON object"
    if record.get(CHECKSUM) != record_checksum(header, record):
        return "checksum mismatch"
    if not (_is_count(record.get("index")) and _is_count(record.get("cells"))
            and record.get("status") in ("agree", "disagree", "skipped")
            and isinstance(record.get("stats"), dict)
            and all(_is_count(v) for v in record["stats"].values())
            and isinstance(record.get("reason"), str)
            and (record["status"] != "disagree"
                 or isinstance(record.get("lhs"), list) and isinstance(record.get("rhs"),
                                                                        list))):
        return "not a record"
    return None


def _parse_line(raw: bytes):
    """A checkpoint line parsed, or None if it is not UTF-8 JSON."""
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None


@dataclass
class Checkpoint:
    """What a checkpoint file holds: its header, the records that can be trusted (index
    -> record), the raw lines they came from, and the numbers of the lines dropped
    (damaged, edited, or cut short by a crash)."""

    header: dict
    records: dict
    lines: list
    dropped: list


def read_checkpoint(path: Path) -> Checkpoint:
    """Parse a checkpoint, checking every record's checksum; never raises for a damaged
    record (it is dropped, to be recomputed), only for a file that is no checkpoint."""
    from verify.io.files import regular_file_problem

    problem = regular_file_problem(path)
    if problem is not None:
        raise InputError(f"{path}: {problem}")
    data = path.read_bytes()
    lines = data.split(b"\n")
    complete, tail = lines[:-1], lines[-1]  # only lines ending in a newline are whole
    header = _parse_line(complete[0]) if complete else None
    if not isinstance(header, dict) or header.get("format") != CHECKPOINT_FORMAT:
        older = isinstance(header, dict) and header.get("format") == "verify-checkpoint/1"
        raise InputError(f"{path}: " + ("a checkpoint of an earlier version, without "
                                        "checksums: remove it to start again" if older
                                        else "not a verify checkpoint"))
    records, kept, dropped = {}, [complete[0]], []
    for number, raw in enumerate(complete[1:], start=2):
        record = _parse_line(raw)
        if _record_problem(header, record) is not None:
            dropped.append(number)
            continue
        records[record["index"]] = record
        kept.append(raw)
    if tail:
        dropped.append(len(complete) + 1)
    return Checkpoint(header, records, kept, dropped)


def _note_dropped(path: Path, checkpoint: Checkpoint, what: str) -> None:
    """One line on stderr naming the lines of ``path`` that were not trusted."""
    if not checkpoint.dropped:
        return
    shown = ", ".join(map(str, checkpoint.dropped[:5])) + (
        ", ..." if len(checkpoint.dropped) > 5 else "")
    count = len(checkpoint.dropped)
    print(f"verify: note: {path}: {count} damaged or incomplete line"
          f"{'s' if count != 1 else ''} ({shown}) not trusted: {what}", file=sys.stderr)


def load_checkpoint(path: Path, identity: dict | None, shard) -> tuple[dict, dict]:
    """The header and the trusted records of a checkpoint (index -> record).

    A checkpoint made with other arguments is refused (``identity`` None: accept any,
    for merging). With ``identity``, lines that cannot be trusted (a crash cut the last
    one short; damage or an edit broke a checksum) are noted on stderr and removed from
    the file, atomically, so that their matrices are recomputed.
    """
    checkpoint = read_checkpoint(path)
    header = checkpoint.header
    if identity is not None and header != _header(identity, shard):
        raise InputError(f"{path}: checkpoint from different arguments "
                         f"({_describe(header)}), refusing to mix it with this run")
    if identity is None:
        _note_dropped(path, checkpoint, "their matrices are missing from the merge")
    elif checkpoint.dropped:
        from verify.io.atomic import write_bytes_atomic

        _note_dropped(path, checkpoint, "their matrices are recomputed")
        write_bytes_atomic(path, b"".join(line + b"\n" for line in checkpoint.lines))
    return header, checkpoint.records


def _describe(header: dict) -> str:
    family = header.get("family")
    fam = ", ".join(f"{k}={v}" for k, v in family.items()) if isinstance(family, dict) else ""
    return fam + (f", shard {header['shard']}" if header.get("shard") else "")


class _CheckpointWriter:
    """Appends the header (for a new file) and then one checksummed record per line,
    each flushed and synced as soon as it is written."""

    def __init__(self, path: Path | None, header: dict, fresh: bool):
        self.file, self.header = None, header
        if path is None:
            return
        self.file = open(path, "a" if not fresh else "w", encoding="utf-8")
        if fresh:
            self._line(header)

    def write(self, record: dict) -> None:
        if self.file is None:
            return
        self._line({**record, CHECKSUM: record_checksum(self.header, record)})

    def _line(self, obj: dict) -> None:
        self.file.write(json.dumps(obj, separators=(",", ":")) + "\n")
        self.file.flush()
        os.fsync(self.file.fileno())

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


# --- executing -----------------------------------------------------------------------

def _execute(tasks, options, on_result) -> None:
    """Run ``check_one`` on every task, calling ``on_result`` as results arrive."""
    jobs = getattr(options, "jobs", 1) or 1
    scheduler = getattr(options, "scheduler", None)
    if scheduler:
        from verify.io.distributed import run_on_dask

        run_on_dask(scheduler, check_one, tasks, on_result, jobs=jobs)
    elif jobs > 1 and len(tasks) > 1:
        import multiprocessing
        from importlib import import_module

        # Import the check and run the first task in the parent: forked workers inherit
        # the modules and everything the first check set up (caches, first-call costs:
        # 40 ms of a worker's first eight 5 ms checks, measured), instead of paying for
        # them each.
        for claim_id in {task[0] for task in tasks}:
            import_module(MATRIX_CHECKS[claim_id].split(":")[0])
        on_result(check_one(tasks[0]))
        tasks = tasks[1:]
        ctx = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
        # Tasks are milliseconds long: a few per message keeps the parent from waking
        # for every result (measured: 1.5x with one, 1.8x with 4 to 10 per message),
        # and at least 8 chunks per worker keep the load balanced.
        chunk = max(1, min(8, len(tasks) // (8 * jobs)))
        with ctx.Pool(jobs) as pool:
            # Completion order does not matter: the report is assembled by index.
            for record in pool.imap_unordered(check_one, tasks, chunksize=chunk):
                on_result(record)
    else:
        for task in tasks:
            on_result(check_one(task))


def run_cosine_claim(claim, options) -> SweepReport:
    """Check lemma 5.3 or theorem 5.6 on every matrix of the requested family."""
    if getattr(options, "merge", None):
        return merge_checkpoints(claim, options)
    desc, identity, matrices = family_of(claim, options)
    shard = parse_shard(getattr(options, "shard", None))
    jobs = getattr(options, "jobs", 1)
    if jobs is not None and jobs < 1:
        raise InputError(f"--jobs must be at least 1 (got {jobs})")
    indices = [k for k in range(len(matrices)) if shard is None or k % shard[1] == shard[0] - 1]
    checkpoint = Path(options.checkpoint) if getattr(options, "checkpoint", None) else None
    done: dict[int, dict] = {}
    fresh = True
    if checkpoint is not None and os.path.lexists(checkpoint):
        from verify.io.files import regular_file_problem

        problem = regular_file_problem(checkpoint)  # a FIFO would block the writer
        if problem is not None:
            raise InputError(f"{checkpoint}: {problem}")
        if checkpoint.stat().st_size:
            _, done = load_checkpoint(checkpoint, identity, shard)
            fresh = False
    writer = _CheckpointWriter(checkpoint, _header(identity, shard), fresh)
    tasks = [(claim.id, k, matrices[k][1]) for k in indices if k not in done]
    records = dict(done)
    start = time.perf_counter()
    try:
        if len(indices) == 1 and len(tasks) == 1:
            # One matrix (--matrix): show the steps of its check instead.
            with _step_progress(options) as advance:
                record = check_one(tasks[0], progress=advance)
            records[record["index"]] = record
            writer.write(record)
        else:
            with _progress(len(indices), options, initial=len(indices) - len(tasks)) as bar:
                def on_result(record):
                    records[record["index"]] = record
                    writer.write(record)
                    bar.update(1)

                _execute(tasks, options, on_result)
    finally:
        writer.close()
    report = _report(claim, desc, matrices, [records[k] for k in indices], options)
    report.seconds = time.perf_counter() - start
    report.shard = f"{shard[0]}/{shard[1]}" if shard else None
    _offer_certificate(report, claim, desc, matrices, options)
    return report


def _offer_certificate(report, claim, desc, matrices, options) -> None:
    """Let ``report`` build the sweep certificate of the first
    ``options.certificate_matrices`` matrices of the family, if asked and if it held."""
    count = getattr(options, "certificate_matrices", 0) or 0
    if count < 1 or not report.holds:
        return
    from verify.certificates.writers import sweep_certificate

    chosen = [W for _, W in matrices[:count]]
    family = desc if len(chosen) == len(matrices) else f"the first {count} of {desc}"
    report.certificate_builder = lambda: sweep_certificate(claim.id, family, chosen)


def merge_checkpoints(claim, options) -> SweepReport:
    """The report of a sweep from the checkpoints of all its shards."""
    desc, identity, matrices = family_of(claim, options)
    records: dict[int, dict] = {}
    shards = set()
    for path in options.merge:
        header, part = load_checkpoint(Path(path), None, None)
        if header["family"] != identity:
            raise InputError(f"{path}: checkpoint from different arguments "
                             f"({_describe(header)})")
        if header["shard"] in shards:
            raise InputError(f"{path}: shard {header['shard']} given twice")
        shards.add(header["shard"])
        records.update(part)
    missing = [k for k in range(len(matrices)) if k not in records]
    if missing:
        raise InputError(f"the checkpoints cover {len(matrices) - len(missing)} of "
                         f"{len(matrices)} matrices (first missing: #{missing[0]}); "
                         "finish every shard first")
    report = _report(claim, desc, matrices, [records[k] for k in range(len(matrices))],
                     options)
    _offer_certificate(report, claim, desc, matrices, options)
    return report


def _report(claim, desc, matrices, records, options) -> SweepReport:
    report = SweepReport(claim=claim.id, family=desc)
    for record in records:
        for key, value in record.get("stats", {}).items():
            report.stats[key] = report.stats.get(key, 0) + value
        if record["status"] == "skipped":
            report.skipped += 1
            report.skip_reasons[record["reason"]] += 1
            continue
        report.checked += 1
        report.cells += record["cells"]
        report.chirotopes_agreed += bool(record["chirotopes_agree"])
        if record["status"] == "agree":
            report.agreed += 1
        elif report.counterexample is None:
            label, W = matrices[record["index"]]
            report.counterexample = _write_counterexample(claim, label, W, record, options)
    return report


def _progress(total, options, initial=0):
    quiet = getattr(options, "quiet", False) or not sys.stderr.isatty()
    return tqdm(total=total, initial=initial, disable=quiet, delay=2, file=sys.stderr,
                unit="matrix", desc=getattr(options, "claim_id", None))


@contextmanager
def _step_progress(options):
    """A progress display over the named steps of one matrix's check."""
    quiet = getattr(options, "quiet", False) or not sys.stderr.isatty()
    with tqdm(total=None, disable=quiet, delay=2, file=sys.stderr, unit="step",
              bar_format="{desc} [{elapsed}]") as bar:
        started = [False]

        def advance(name: str) -> None:
            if started[0]:
                bar.update(1)
            started[0] = True
            claim = getattr(options, "claim_id", None)
            bar.set_description_str(f"{claim}: {name}" if claim else name)

        yield advance


def _write_counterexample(claim, label, W, record, options) -> str:
    from verify.io.atomic import write_json_atomic
    from verify.linalg.exact import to_fmpq_rows
    from verify.numbers.rational import format_rational

    directory = Path(getattr(options, "output_dir", None) or ".")
    path = directory / f"counterexample-{claim.id.replace(' ', '-')}.json"
    lhs, rhs = set(record["lhs"]), set(record["rhs"])
    write_json_atomic(path, {
        "claim": claim.id,
        "matrix": label,
        "W": [[format_rational(a) for a in row] for row in to_fmpq_rows(W)],
        "S(M)": record["lhs"],
        "S(C(M))": record["rhs"],
        "only in S(M)": sorted(lhs - rhs),
        "only in S(C(M))": sorted(rhs - lhs),
    })
    return str(path)
