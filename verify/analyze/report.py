r"""The whole analysis of a head, and its text and JSON reports.

:func:`analyze` runs the phases of :mod:`verify.analyze` in order and times each:

1. :mod:`verify.analyze.head`: the rows as one primitive integer matrix (``W`` scaled by
   one positive number, which changes no answer);
2. :mod:`verify.analyze.argmax`: which labels can be the strict argmax (Grivas et al.
   2022), each with an exact witness input or exact convex weights;
3. :mod:`verify.analyze.neighbours`: each label's nearest neighbours by cosine, ordered
   exactly;
4. :mod:`verify.analyze.ties`: which pairs can tie for the highest probability; every
   pair for small heads, else the cosine neighbours' pairs and those found by rays;
5. :mod:`verify.analyze.cells`: the cell counts of the sign and ranking patterns, when
   affordable.

The cosine summary sets the two side by side (Nielsen & Grivas, App. C.2: cosine
neighbours are in general not the labels a label competes with).
:func:`analyze_with_bias` is the same analysis of ``W x + b``
(:mod:`verify.analyze.bias`). :func:`to_json` and :func:`format_text` write the report
(``docs/analyze.md``).

References
----------
Nielsen & Grivas, *What Cosine Similarity of Label Representations Can and Cannot Tell
us*, App. C.2-C.3. D. Grivas, N. Bogoychev, A. Lopez, "Low-Rank Softmax Can Have
Unargmaxable Classes in Theory but Rarely in Practice", ACL 2022.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

from flint import fmpq, fmpz

from verify.analyze.argmax import ArgmaxAnalysis, argmaxable_labels
from verify.analyze.cells import DEFAULT_MAX_CELLS, cell_counts, json_cells, magnitude
from verify.analyze.head import make_head
from verify.analyze.names import show_name
from verify.analyze.neighbours import (
    DEFAULT_NEIGHBOURS,
    CosineSummary,
    _nonzero_rows,
    _summarise,
    cosine_neighbours,
    display_cosine,
)
from verify.analyze.simplex import SimplexCertificate, SimplexNoTie
from verify.analyze.ties import ALL_PAIRS_MAX_LABELS, TieAnalysis, TieWitness, tie_pairs
from verify.lp.feasibility import Witness

if TYPE_CHECKING:
    import os

    from verify.analyze.head import HeadInput, ProgressBar
    from verify.analyze.memory import MemoryBudget
    from verify.numbers.aliases import Vector

__all__ = [
    "DEFAULT_MAX_CELLS",
    "DEFAULT_NEIGHBOURS",
    "HeadAnalysis",
    "analyze",
    "analyze_in_domain",
    "analyze_with_bias",
    "cell_counts",
    "cosine_neighbours",
    "format_text",
    "to_json",
]


# --- the whole analysis ------------------------------------------------------------------

@dataclass
class HeadAnalysis:
    """Everything ``python -m verify analyze`` reports about one head."""

    n: int
    d: int
    argmax: ArgmaxAnalysis
    ties: TieAnalysis
    cosine: CosineSummary
    cells: dict | None
    names: list | None = None
    seconds: dict = field(default_factory=dict)
    head: object = field(default=None, repr=False)
    #: The domain of the inputs (:class:`verify.analyze.domain.Domain`); None: all of R^d.
    domain: object = None

    def __repr__(self) -> str:
        a, t = self.argmax, self.ties
        return (f"HeadAnalysis({self.n} labels, d = {self.d}: {len(a.argmaxable)} "
                f"argmaxable, unargmaxable {a.unargmaxable}, {len(t.tie_pairs)} tie pairs"
                f"{'' if t.complete else ' (not every pair decided)'})")

    def to_json(self) -> dict[str, Any]:
        """The document of ``python -m verify analyze --json`` (docs/analyze.md)."""
        return to_json(self)

    def edge_cosines(self) -> dict:
        """Float cosines (display only) of the certified tie pairs."""
        valid = _nonzero_rows(self.head)
        return {(i, j): display_cosine(self.head, i, j) for i, j in self.ties.tie_pairs
                if valid[i] and valid[j]}

    def _label(self, i: int) -> str:
        return f"{i} {show_name(self.names[i])}" if self.names else str(i)

    def _summary(self) -> tuple[str, list[tuple[str, str]], str]:
        from verify.io.display import first

        a, t, c = self.argmax, self.ties, self.cosine
        bias = getattr(self, "lifted", None) is not None
        scope = (f"all {t.pairs_total} pairs decided" if t.complete else
                 f"{len(t.evidence)} of {t.pairs_total} pairs decided")
        rows = [
            ("argmaxable", f"{len(a.argmaxable)} of {self.n}"),
            ("unargmaxable", first(a.unargmaxable, text=self._label)),
            ("tie pairs", f"{len(t.tie_pairs)} ({scope}): "
                          + first(t.tie_pairs, text=lambda p: f"{p[0]}-{p[1]}")),
            ("cosine", f"the nearest neighbour cannot tie for {c.nearest_not_tie} of "
                       f"{c.labels_compared} labels; {c.neighbour_pairs_cannot_tie} of "
                       f"{c.neighbour_pairs} pairs of the {c.k} nearest cannot tie"),
        ]
        if self.cells is not None:
            for kind in ("sign", "ranking"):
                count = self.cells[kind].get("count")
                if count is not None:
                    rows.append((f"{kind} cells", str(count)))
        title = (f"HeadAnalysis: {self.n} labels in dimension {self.d}"
                 + (" (logits W x + b)" if bias else ""))
        note = ("every verdict has exact evidence: .to_json() holds the witnesses and "
                "certificates; python -m verify analyze --certificate writes a file that "
                "python -m verify check re-checks")
        return title, rows, note

    def _repr_html_(self) -> str:
        """The summary that Jupyter shows (label names escaped)."""
        from verify.io.display import summary_html

        return summary_html(*self._summary())

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """The summary that IPython's pretty printer shows."""
        from verify.io.display import pretty

        pretty(p, cycle, *self._summary())

    def plot(self, path: str | os.PathLike[str] | None = None, *, kind: str = "head",
             **options: Any) -> Any:
        """Draw the head and return the matplotlib ``Figure``; also save it (PNG) if
        ``path`` is given.

        ``kind="head"``: the unembeddings, hull, tie pairs and argmax regions of a head
        of dimension 2 (:func:`verify.analyze.plot.plot_head`; ``ValueError`` for
        another dimension). ``kind="cosine"``: the cosine of every label's nearest
        neighbours against whether the pair can tie, for any dimension
        (:func:`verify.analyze.plot.plot_cosine_ties`). ``options`` go to the function.
        Needs matplotlib (``ImportError`` naming the install command otherwise).
        """
        from verify.analyze.plot import plot_cosine_ties, plot_head

        if kind == "cosine":
            return plot_cosine_ties(self, path, **options)
        if kind != "head":
            raise ValueError(f"kind must be 'head' or 'cosine', not {kind!r}")
        if self.d != 2 or getattr(self, "lifted", None) is not None:
            what = "a bias" if self.d == 2 else f"dimension {self.d}"
            raise ValueError(f"plot(kind='head') draws heads of dimension 2 without a "
                             f"bias; this one has {what}; plot(kind='cosine') draws any "
                             "head")
        options.setdefault("names", self.names)
        return plot_head(self.head, path, argmax=self.argmax, ties=self.ties, **options)


def analyze(W: HeadInput, *, neighbours: int = DEFAULT_NEIGHBOURS,
            max_cells: int = DEFAULT_MAX_CELLS,
            force: bool = False, cells: bool = True, names: Sequence[str] | None = None,
            rays: int | None = None,
            progress: Callable[[str, int], ProgressBar | None] | None = None,
            budget: MemoryBudget | None = None, jobs: int = 1,
            scheduler: str | None = None, bias: Vector | None = None,
            domain: str | None = None) -> HeadAnalysis:
    """Argmaxable labels, tie pairs, cosine neighbours and cell counts of ``W``.

    ``bias``: the logits are ``W x + b`` (one entry per label; exact numbers or a numpy
    vector): analysed by :func:`analyze_with_bias`, with the same
    blocks and workers and without cell counts.

    ``progress(description, total)`` may return a progress bar (``update``/``close``).
    For ``n <= ALL_PAIRS_MAX_LABELS`` every pair is decided; otherwise the pairs of every
    label with its ``neighbours`` nearest cosine neighbours, plus tie pairs found by ray
    shooting, ``rays`` per argmaxable label (default
    :data:`verify.analyze.ties.RAYS_PER_LABEL`; see :func:`verify.analyze.ties.tie_pairs`).
    ``budget`` (a :class:`~verify.analyze.memory.MemoryBudget`) sizes the blocks; a
    head that cannot fit is refused with :class:`~verify.io.errors.TooLargeError`.
    ``jobs`` worker processes, or the Dask cluster ``scheduler`` (``"local"`` or an
    address), share the chunks of labels and pairs of large heads
    (:mod:`verify.analyze.parallel`); the result is the same for any of them.

    ``domain``: ``"all"`` (the default), ``"nonneg"`` or ``"box:L,U"`` (or a
    :class:`~verify.analyze.domain.Domain`): the inputs ``x`` range over that domain
    only (:func:`analyze_in_domain`, by exact cutting planes).
    """
    from contextlib import nullcontext

    from verify.analyze.parallel import Workers

    if domain is not None:
        from verify.analyze.domain import parse_domain

        domain = parse_domain(domain)
        if not domain.is_all:
            return analyze_in_domain(W, bias, domain, neighbours=neighbours, names=names,
                                     progress=progress, budget=budget, jobs=jobs,
                                     scheduler=scheduler)
    if bias is not None:
        return analyze_with_bias(W, bias, neighbours=neighbours, names=names, rays=rays,
                                 progress=progress, budget=budget, jobs=jobs,
                                 scheduler=scheduler)
    seconds = {}
    t0 = time.perf_counter()
    head = make_head(W, budget)
    parallel = getattr(head, "screened", False) and (jobs > 1 or scheduler)
    if parallel:
        # Computed once here, inherited or received by every worker.
        head.float32_rows()
        head.mahalanobis()
    with (Workers(head, jobs, scheduler) if parallel else nullcontext()) as workers:
        return _analyze(head, workers, neighbours, max_cells, force, cells, names, rays,
                        progress, seconds, t0)


def decides_pairs(n: int, neighbours: int, rays: int | None) -> bool:
    """Whether an analysis of ``n`` labels decides any tie pairs: all of them up to
    ``ALL_PAIRS_MAX_LABELS`` labels, above those of the cosine neighbours and of the
    rays (a large head's default is no rays)."""
    return n <= ALL_PAIRS_MAX_LABELS or neighbours > 0 or bool(rays)


def _analyze(head, workers, neighbours, max_cells, force, cells, names, rays, progress,
             seconds, t0) -> HeadAnalysis:
    bar = progress("labels", head.n) if progress else None
    argmax = argmaxable_labels(head, progress=bar, workers=workers,
                               walk=not decides_pairs(head.n, neighbours, rays))
    if bar is not None:
        bar.close()
    seconds["argmax"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    bar = progress("cosine", head.n) if progress and getattr(head, "screened", False) else None
    near = cosine_neighbours(head, neighbours, progress=bar, workers=workers)
    if bar is not None:
        bar.close()
    seconds["cosine"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    if head.n <= ALL_PAIRS_MAX_LABELS:
        pairs = None
    else:
        pairs = sorted({(min(i, c), max(i, c)) for i, lst in enumerate(near) for c, _ in lst})
    bar = progress("pairs", 0) if progress else None
    ties = tie_pairs(head, argmax, pairs=pairs, rays_per_label=rays, progress=bar,
                     workers=workers)
    if bar is not None:
        bar.close()
    seconds["ties"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    counts = cell_counts(head, max_cells=max_cells, force=force) if cells else None
    seconds["cells"] = time.perf_counter() - t0
    return HeadAnalysis(n=head.n, d=head.d, argmax=argmax, ties=ties,
                        cosine=_summarise(near, ties, neighbours), cells=counts,
                        names=list(names) if names is not None else None, seconds=seconds,
                        head=head)


def analyze_with_bias(W, b, *, neighbours: int = 2, names=None, source: str = "the head",
                      rays: int | None = None, progress=None, budget=None, jobs: int = 1,
                      scheduler: str | None = None, domain=None):
    """The analysis of ``python -m verify analyze --bias``: a :class:`HeadAnalysis` of
    ``W x + b`` (:mod:`verify.analyze.bias`: the lifted rows and their floor rows).
    ``domain`` as for :func:`analyze`.

    Every label is decided; every pair too for at most ``ALL_PAIRS_MAX_LABELS`` labels,
    otherwise the pairs of each label with its ``neighbours`` nearest labels by cosine
    (cosines of the rows ``w_k``, the bias aside), plus those found by ray shooting.
    Cell counts are not computed (they are defined for heads without a bias). Blocks,
    workers and memory as for heads without a bias
    (:func:`verify.analyze.report.analyze`).
    """
    import time
    from contextlib import nullcontext

    from verify.analyze.bias import (
        _argmax_of,
        _lifted_ties,
        _ties_of,
        bias_free_view,
        bias_head,
    )
    from verify.analyze.parallel import Workers

    if domain is not None:
        from verify.analyze.domain import parse_domain

        domain = parse_domain(domain)
        if not domain.is_all:
            return analyze_in_domain(W, b, domain, neighbours=neighbours, names=names,
                                     progress=progress, budget=budget, jobs=jobs,
                                     scheduler=scheduler)
    seconds = {}
    t0 = time.perf_counter()
    head = bias_head(W, b, budget=budget, source=source)
    n = head.labels
    rows = bias_free_view(head)
    parallel = head.screened and (jobs > 1 or scheduler)
    if parallel:
        head.float32_rows()
        head.mahalanobis()
    with (Workers(head, jobs, scheduler) if parallel else nullcontext()) as workers:
        bar = progress("labels", n) if progress else None
        lifted = argmaxable_labels(head, progress=bar, workers=workers,
                                   walk=not decides_pairs(n, neighbours, rays))
        if bar is not None:
            bar.close()
        seconds["argmax"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        bar = progress("cosine", n) if progress and rows.screened else None
        near = cosine_neighbours(rows, neighbours, progress=bar, workers=workers,
                                 view=bias_free_view)
        if bar is not None:
            bar.close()
        seconds["cosine"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        pairs = None if n <= ALL_PAIRS_MAX_LABELS else sorted(
            {(min(i, c), max(i, c)) for i, lst in enumerate(near) for c, _ in lst})
        if rays is None:
            rays = 0 if pairs is None or head.screened else None
        bar = progress("pairs", 0) if progress else None
        ties = _lifted_ties(head, lifted, pairs, rays, bar, workers)
        if bar is not None:
            bar.close()
        seconds["ties"] = time.perf_counter() - t0
    argmax, ties = _argmax_of(head, lifted), _ties_of(head, ties)
    result = HeadAnalysis(n=n, d=head.d - 1, argmax=argmax, ties=ties,
                          cosine=_summarise(near, ties, neighbours), cells=None,
                          names=list(names) if names is not None else None,
                          seconds=seconds, head=rows)
    result.lifted = head
    return result


def analyze_in_domain(W, bias, domain, *, neighbours: int = DEFAULT_NEIGHBOURS, names=None,
                      progress=None, budget=None, jobs: int = 1,
                      scheduler: str | None = None) -> HeadAnalysis:
    """The analysis of ``analyze --domain``: ``W x + b`` (``bias`` None: ``b = 0``) with
    the inputs in ``domain``, by exact cutting planes
    (:mod:`verify.analyze.cutting_planes`): every label decided; every pair too for at
    most ``ALL_PAIRS_MAX_LABELS`` labels, otherwise the pairs of each label with its
    ``neighbours`` nearest labels by cosine (of the rows ``w_k``); no cell counts (they
    count the regions of all of ``R^d``). Blocks of labels and pairs go to ``jobs``
    workers (or the Dask ``scheduler``); the answers do not depend on them."""
    from contextlib import nullcontext

    from verify.analyze.bias import bias_free_head
    from verify.analyze.cutting_planes import (
        DomainHead,
        argmaxable_by_cutting_planes,
        tie_pairs_by_cutting_planes,
    )
    from verify.analyze.domain import parse_domain
    from verify.analyze.parallel import Workers

    domain = parse_domain(domain)
    seconds = {}
    t0 = time.perf_counter()
    head = DomainHead(W, bias, domain, budget=budget)
    n = head.n
    parallel = jobs > 1 or bool(scheduler)

    def workers():
        return Workers(head, jobs, scheduler) if parallel else nullcontext()

    with workers() as pool:
        bar = progress("labels", n) if progress else None
        argmax = argmaxable_by_cutting_planes(None, head=head, progress=bar, workers=pool)
        if bar is not None:
            bar.close()
    seconds["argmax"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    rows = bias_free_head(head.lifted)
    near = cosine_neighbours(rows, neighbours)
    seconds["cosine"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    pairs = None if n <= ALL_PAIRS_MAX_LABELS else sorted(
        {(min(i, c), max(i, c)) for i, lst in enumerate(near) for c, _ in lst})
    head.argmax = argmax  # before the workers fork: they derive no-tie certificates
    with workers() as pool:
        total = n * (n - 1) // 2 if pairs is None else len(pairs)
        bar = progress("pairs", total) if progress else None
        ties = tie_pairs_by_cutting_planes(None, argmax=argmax, pairs=pairs, head=head,
                                           progress=bar, workers=pool)
        if bar is not None:
            bar.close()
    seconds["ties"] = time.perf_counter() - t0
    result = HeadAnalysis(n=n, d=head.d, argmax=argmax, ties=ties,
                          cosine=_summarise(near, ties, neighbours), cells=None,
                          names=list(names) if names is not None else None,
                          seconds=seconds, head=rows, domain=domain)
    result.domain_head = head
    result.has_bias = bias is not None
    return result


# --- output ---------------------------------------------------------------------------------

def _text(x) -> str:
    if type(x) is fmpq or type(x) is fmpz:
        # FLINT's own "p/q" in lowest terms (no digit limit): format_rational's text,
        # without its conversions (a witness of a wide head has thousands of entries).
        return str(x)
    if type(x) is int and x.bit_length() < 4000:
        return str(x)  # the common case, fast (str has a digit limit for longer ints)
    if isinstance(x, (int, fmpq, fmpz)):
        from verify.numbers.rational import format_rational

        return format_rational(x)
    return str(x)


def _coefficient(y) -> str:
    text = _text(y)
    return f"({text})" if any(op in text for op in " +-") else text


#: Above this many entries of ``W`` (``n d``) the JSON document leaves the per-label and
#: per-pair evidence to the certificate (``--certificate``): at that size it would be
#: gigabytes of decimal strings.
JSON_EVIDENCE_MAX_ENTRIES = 4_000_000
#: The keys of the JSON document that hold evidence, one entry per label or pair.
EVIDENCE_KEYS = ("argmax_witnesses", "argmax_certificates", "tie_witnesses",
                 "non_tie_certificates")


def to_json(a: HeadAnalysis, *, evidence: bool | None = None) -> dict[str, Any]:
    """The JSON document of ``--json`` (see docs/analyze.md for every key).

    ``evidence``: include the witnesses and certificates (``EVIDENCE_KEYS``); by default
    only for heads of at most ``JSON_EVIDENCE_MAX_ENTRIES`` entries. Without them the
    document has the key ``evidence_omitted`` saying where the evidence is.
    """
    doc = _json_document(a, evidence)
    for key, value in doc.items():
        if isinstance(value, _Streamed):
            doc[key] = value.build()
    return doc


def write_json(a: HeadAnalysis, stream, *, extra: dict | None = None,
               evidence: bool | None = None) -> None:
    """Write ``to_json(a)`` with the keys of ``extra`` added, compactly (separators
    ``,`` and ``:``) and followed by a newline, to the text ``stream``: the bytes of
    ``json.dumps``, but the witnesses and certificates are encoded one at a time, so
    that the document (a gigabyte of decimal strings for a large head) is never held
    in memory as a whole."""
    doc = _json_document(a, evidence)
    doc.update(extra or {})
    out = _Chunked(stream)
    out.write("{")
    for n, (key, value) in enumerate(doc.items()):
        out.write(("," if n else "") + json.dumps(key) + ":")
        if isinstance(value, _Streamed):
            value.write(out)
        else:
            out.write(_dumps(value))
    out.write("}\n")
    out.flush()


def _dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"))


class _Chunked:
    """Pieces of text gathered and written to ``stream`` about a megabyte at a time
    (one write per piece would be slow)."""

    def __init__(self, stream, size: int = 1 << 20):
        self.stream, self.size, self.parts, self.length = stream, size, [], 0

    def write(self, text: str) -> None:
        self.parts.append(text)
        self.length += len(text)
        if self.length >= self.size:
            self.flush()

    def flush(self) -> None:
        self.stream.write("".join(self.parts))
        self.parts, self.length = [], 0


class _Streamed:
    """A list (``pairs`` false) or object (``pairs`` true: items ``(key, value)``) of
    the document, produced by ``items()`` when it is built or written."""

    def __init__(self, items, pairs: bool):
        self.items, self.pairs = items, pairs

    def build(self):
        return dict(self.items()) if self.pairs else list(self.items())

    def write(self, out: _Chunked) -> None:
        out.write("{" if self.pairs else "[")
        for n, item in enumerate(self.items()):
            if self.pairs:
                key, item = item
                out.write(("," if n else "") + json.dumps(key) + ":" + _dumps(item))
            else:
                out.write(("," if n else "") + _dumps(item))
        out.write("}" if self.pairs else "]")


def _json_document(a: HeadAnalysis, evidence: bool | None) -> dict:
    """The document with its evidence (if any) as :class:`_Streamed` entries."""
    if evidence is None:
        evidence = a.n * a.d <= JSON_EVIDENCE_MAX_ENTRIES

    from verify.analyze.bias import LiftedTieWitness, LiftedWitness, quotient_texts

    def point_texts(e) -> list[str]:
        if isinstance(e, (LiftedWitness, LiftedTieWitness)):
            # An input of W x + b, kept as homogeneous integers.
            return quotient_texts(e.lifted)
        return [_text(v) for v in e.point]

    def witnesses():
        for i, e in enumerate(a.argmax.evidence):
            if isinstance(e, Witness):
                yield str(i), point_texts(e)

    def certificates():
        for i, e in enumerate(a.argmax.evidence):
            if isinstance(e, SimplexCertificate):
                yield str(i), {"strictly_inside_simplex": list(e.support)}
            elif not isinstance(e, Witness):
                yield str(i), {str(k): _text(y) for k, y in e.multipliers}

    def tie_witnesses():
        for e in a.ties.evidence.values():
            if isinstance(e, TieWitness):
                yield point_texts(e)

    def non_tie_certificates():
        for e in a.ties.evidence.values():
            if isinstance(e, TieWitness):
                continue
            if isinstance(e, SimplexNoTie):
                yield {"strictly_inside_simplex": e.inside}
            else:
                yield {"multipliers": {str(k): _text(y) for k, y in e.multipliers},
                       "tie": _text(e.tie)}

    tie_pairs_, non_tie = [], []
    for (i, j), e in a.ties.evidence.items():
        (tie_pairs_ if isinstance(e, TieWitness) else non_tie).append([i, j])
    c = a.cosine
    per_label = []
    for i, near in enumerate(c.neighbours):
        per_label.append({
            "label": i,
            "nearest": [[k, round(cos, 12)] for k, cos in near],
            "nearest_can_tie": [a.ties.can_tie(i, k) for k, _ in near],
            "tie_partners": a.ties.partners(i),
        })
    doc = {
        "n": a.n,
        "d": a.d,
        "labels": a.names,
        "labels_shown": [show_name(x) for x in a.names] if a.names is not None else None,
        "argmaxable": a.argmax.argmaxable,
        "unargmaxable": a.argmax.unargmaxable,
        "tie_pairs": tie_pairs_,
        "tie_pairs_complete": a.ties.complete,
        "pairs_decided": len(a.ties.evidence),
        "pairs_total": a.ties.pairs_total,
        "non_tie_pairs": non_tie,
        "argmax_witnesses": _Streamed(witnesses, pairs=True),
        "argmax_certificates": _Streamed(certificates, pairs=True),
        "tie_witnesses": _Streamed(tie_witnesses, pairs=False),
        "non_tie_certificates": _Streamed(non_tie_certificates, pairs=False),
        "cosine": {
            "k": c.k,
            "labels_compared": c.labels_compared,
            "nearest_not_tie": c.nearest_not_tie,
            "neighbour_pairs": c.neighbour_pairs,
            "neighbour_pairs_cannot_tie": c.neighbour_pairs_cannot_tie,
            "neighbour_pairs_undecided": c.neighbour_pairs_undecided,
            "fraction_cannot_tie": c.fraction_cannot_tie,
            "per_label": per_label,
        },
        "cells": json_cells(a.cells),
    }
    if a.domain is not None and not a.domain.is_all:
        doc["domain"] = str(a.domain)
    if not evidence:
        for key in EVIDENCE_KEYS:
            del doc[key]
        doc["evidence_omitted"] = (
            f"the head has {a.n * a.d} entries, more than {JSON_EVIDENCE_MAX_ENTRIES}: "
            f"{', '.join(EVIDENCE_KEYS)} are left out; --certificate PATH writes all the "
            "evidence, checked by 'python -m verify check PATH'")
    return doc


def _name(a: HeadAnalysis, i: int) -> str:
    return f"{i} {show_name(a.names[i])}" if a.names else str(i)


def _list(a: HeadAnalysis, labels, limit: int = 20) -> str:
    shown = ", ".join(_name(a, i) for i in labels[:limit])
    more = len(labels) - limit
    return shown + (f", ... ({more} more)" if more > 0 else "") if labels else "none"


def format_text(a: HeadAnalysis, source: str, *, limit: int = 20) -> str:
    """The readable report printed without ``--json``."""
    lines = [f"analysis of {source}: {a.n} label{'s' if a.n != 1 else ''} in dimension "
             f"{a.d} (labels from 0)"]
    c = a.cosine
    frac = c.fraction_cannot_tie
    # The paper's question first: does the nearest label by cosine compete?
    lines.append(f"nearest cosine neighbour cannot tie: {c.nearest_not_tie} of "
                 f"{c.labels_compared} labels; neighbour pairs that cannot tie: "
                 f"{c.neighbour_pairs_cannot_tie} of {c.neighbour_pairs}"
                 + (f" ({100 * frac:.1f}%)" if frac is not None else ""))
    un = a.argmax.unargmaxable
    bias = getattr(a, "lifted", None) is not None
    domain = a.domain if a.domain is not None and not a.domain.is_all else None
    if domain is not None:
        lines[0] += f", inputs {domain.describe()} (--domain {domain})"
        lines.append(f"argmaxable in the domain: {a.n - len(un)} of {a.n} labels, each with "
                     "an exact witness input x in the domain (label i alone has the "
                     "largest logit w_i . x + b_i)"
                     + ("; each unargmaxable label with exact convex weights lambda such "
                        "that sum lambda_k (w_k . x + b_k) >= w_i . x + b_i for every x "
                        "in the domain" if un else ""))
    elif bias:
        lines.append(f"argmaxable: {a.n - len(un)} of {a.n} labels, each with an exact "
                     "witness input x (label i alone has the largest logit w_i . x + b_i)"
                     + ("; each unargmaxable label with exact convex weights (w_i = sum "
                        "lambda_k w_k and b_i <= sum lambda_k b_k) or its lifted row "
                        "(w_i, b_i) proven strictly inside a simplex of lifted and floor "
                        "rows" if un else ""))
    else:
        lines.append(f"argmaxable: {a.n - len(un)} of {a.n} labels, each with an exact "
                     "witness input x (label i alone has the largest logit w_i . x)"
                     + ("; each unargmaxable label with exact convex weights (w_i in the "
                        "hull of the other rows) or proven strictly inside a simplex of "
                        "other rows" if un else ""))
    lines.append(f"unargmaxable: {_list(a, un, limit)}")
    for i in un[:limit]:
        e = a.argmax.evidence[i]
        if isinstance(e, SimplexCertificate):
            rows = "lifted and floor rows" if bias else "other rows"
            lines.append(f"  {'(w_%d, b_%d)' % (i, i) if bias else 'w_%d' % i} is strictly "
                         f"inside the simplex of {len(e.support)} {rows} (proven by a "
                         "verified inverse; with --certificate)")
            continue
        combo = " + ".join(f"{_coefficient(y)} w_{k}" for k, y in e.multipliers)
        if len(combo) > 160:
            support = ", ".join(f"w_{k}" for k, _ in e.multipliers)
            combo = (f"a convex combination of {support} (exact weights with --json)")
        if domain is not None:
            terms = " + ".join(f"{_coefficient(y)} l_{k}" for k, y in e.multipliers)
            if len(terms) > 160:
                terms = "a convex combination of the logits of " + ", ".join(
                    str(k) for k, _ in e.multipliers) + " (exact weights with --json)"
            lines.append(f"  l_{i} <= {terms} on the domain (l_k = w_k . x + b_k)")
            continue
        lines.append(f"  w_{i} = {combo}" + (" (and the same combination of b is at least b_%d)" % i
                                             if bias else ""))
    t = a.ties
    ties = t.tie_pairs
    if t.complete:
        scope = f"all {t.pairs_total} pairs decided exactly"
    else:
        scope = (f"{len(t.evidence)} of {t.pairs_total} pairs decided exactly (the "
                 f"nearest cosine neighbours and pairs found by ray shooting); the other "
                 "pairs are not decided")
    lines.append(f"tie pairs (can be tied for the highest probability"
                 f"{' in the domain' if domain is not None else ''}): {len(ties)} "
                 f"({scope})")
    shown = ties[: limit * 2]
    if shown:
        lines.append("  " + ", ".join(f"{i}-{j}" for i, j in shown)
                     + (f", ... ({len(ties) - len(shown)} more)" if len(ties) > len(shown)
                        else ""))
    lines.append(f"cosine versus competition ({c.k} nearest by cosine; 'no' = certified "
                 "unable to tie, '?' = not decided):")
    width = max((len(_name(a, i)) for i in range(min(a.n, limit))), default=5)
    width = max(width, 5)
    lines.append(f"  {'label':<{width}}  nearest by cosine                     can tie with")
    for i, near in enumerate(c.neighbours[:limit]):
        cells = []
        for k, cos in near:
            verdict = t.can_tie(i, k)
            mark = "yes" if verdict else ("?" if verdict is None else "no")
            cells.append(f"{k} ({cos:+.3f}, {mark})")
        partners = t.partners(i)
        ptxt = ", ".join(map(str, partners[:8])) + (" ..." if len(partners) > 8 else "")
        if not t.complete:
            ptxt += " (certified so far)" if partners else "(none certified)"
        lines.append(f"  {_name(a, i):<{width}}  {'; '.join(cells) or '-':<36}  "
                     f"{ptxt or 'none'}")
    if a.n > limit:
        lines.append(f"  ... {a.n - limit} more labels (--json gives all)")
    if a.cells is not None:
        for kind, title in (("sign", "sign pattern S(W)"), ("ranking", "ranking pattern R(W)")):
            e = a.cells[kind]
            if e["count"] is not None:
                txt = f"{e['count']} cells"
                if e.get("bound"):
                    txt += f" (upper bound {magnitude(e['bound'])})"
                if e.get("note"):
                    txt += f": {e['note']}"
            else:
                txt = e["note"]
            lines.append(f"{title}: {txt}")
    return "\n".join(lines)
