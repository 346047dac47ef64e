"""The HTML report of ``python -m verify analyze --html REPORT.html``: one page, no network.

:func:`html_report` writes the page from a :class:`~verify.analyze.report.HeadAnalysis`,
:func:`write_html` writes it atomically (:mod:`verify.io.atomic`). The page holds its
CSS, its one small script (a filter box for the tables) and its figure (an SVG written
here, so that the page is the same whether matplotlib is installed or not); a
Content-Security-Policy allows nothing else: no request leaves the page, and no script
runs but the page's own (its SHA-256 is in the policy).

In order:

1. the summary: labels, dimension, argmaxable and unargmaxable labels, tie pairs,
   pairs decided, how often the nearest cosine neighbour cannot tie, cell counts; every
   number is the one of the ``--json`` document (:func:`verify.analyze.report.to_json`),
   marked ``data-key="..."`` with its key (``cosine.nearest_not_tie``; for a list, its
   length);
2. per-domain counts, when the analysis carries them (:func:`domain_section`);
3. the unargmaxable labels by name, each with its certificate (``w_i = Σ λ_k w_k``, or
   the simplex it is proven strictly inside);
4. the figure: for each cosine rank ``r`` (the ``r``-th nearest label by cosine), how
   many (label, neighbour) pairs can tie, cannot, or are not decided;
5. the neighbour pairs that cannot tie, by name.

Names are shown as :func:`verify.analyze.names.show_name` writes them, then escaped for
HTML (``html.escape``); so is every other text from the input (the file name, the
description of the tensor).
"""

from __future__ import annotations

import base64
import hashlib
import html
from dataclasses import asdict, is_dataclass

from verify.analyze.names import show_name
from verify.analyze.simplex import SimplexCertificate

TYPE_CHECKING = False
if TYPE_CHECKING:
    import os

    from verify.analyze.report import HeadAnalysis

__all__ = ["MAX_ROWS", "domain_section", "html_report", "write_html"]

#: Rows shown per table; the rest are counted (``--json`` has them all).
MAX_ROWS = 2000

_SCRIPT = """\
document.querySelectorAll("input[data-filter]").forEach(function (box) {
  var table = document.getElementById(box.getAttribute("data-filter"));
  box.addEventListener("input", function () {
    var query = box.value.toLowerCase();
    table.querySelectorAll("tbody tr").forEach(function (row) {
      row.hidden = query !== "" && row.textContent.toLowerCase().indexOf(query) < 0;
    });
  });
});
"""

_STYLE = """\
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 64em;
       padding: 0 1em; color: #222; background: #fff; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
code, .name { font-family: ui-monospace, monospace; white-space: pre; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { text-align: left; padding: .2em 1.2em .2em 0; vertical-align: top; }
thead th { border-bottom: 1px solid #888; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.summary th { font-weight: normal; color: #444; }
.summary td { font-weight: 600; }
.note { color: #555; font-size: .92em; }
input[data-filter] { font: inherit; padding: .15em .4em; margin: .3em 0; }
.yes { fill: #4c956c; } .no { fill: #c0392b; } .undecided { fill: #aaa; }
svg text { font: 12px system-ui, sans-serif; fill: #222; }
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _name(names, i: int) -> str:
    """Label ``i`` with its name, escaped for HTML."""
    if names is None:
        return f"<td class=\"num\">{i}</td><td></td>"
    return f"<td class=\"num\">{i}</td><td class=\"name\">{_e(show_name(names[i]))}</td>"


def _short(names, i: int) -> str:
    return str(i) if names is None else f"{i} {show_name(names[i])}"


def _number(x) -> str:
    from flint import fmpq, fmpz

    from verify.numbers.rational import format_rational

    return format_rational(x) if isinstance(x, (int, fmpq, fmpz)) else str(x)


def _certificate(result, i: int, bias: bool) -> str:
    """The certificate of unargmaxable label ``i`` in words (plain text)."""
    e = result.argmax.evidence[i]
    if isinstance(e, SimplexCertificate):
        rows = "lifted and floor rows" if bias else "other rows"
        return (f"{'(w_%d, b_%d)' % (i, i) if bias else 'w_%d' % i} is strictly inside "
                f"the simplex of {len(e.support)} {rows} (proven by a verified inverse; "
                "with --certificate)")
    terms = []
    for k, y in e.multipliers:
        text = _number(y)
        terms.append(f"{'(' + text + ')' if any(c in text for c in ' +-') else text} w_{k}")
    text = f"w_{i} = " + " + ".join(terms)
    if bias:
        text += f" (and the same combination of b is at least b_{i})"
    return text


def _support(result, i: int, names) -> str:
    e = result.argmax.evidence[i]
    labels = (e.support if isinstance(e, SimplexCertificate)
              else [k for k, _ in e.multipliers])
    shown = [_short(names, k) for k in labels if k < result.n]
    if isinstance(e, SimplexCertificate) and len(shown) < len(labels):
        shown.append(f"{len(labels) - len(shown)} floor rows")
    return ", ".join(shown)


def _rank_counts(result) -> list[dict]:
    """Per cosine rank ``r`` (from 1): the (label, neighbour) pairs that can tie,
    cannot, and are not decided."""
    counts = []
    for i, near in enumerate(result.cosine.neighbours):
        for r, (k, _) in enumerate(near):
            while len(counts) <= r:
                counts.append({"yes": 0, "no": 0, "undecided": 0})
            verdict = result.ties.can_tie(i, k)
            counts[r]["yes" if verdict else "undecided" if verdict is None else "no"] += 1
    return counts


def _figure(counts: list[dict]) -> str:
    """Inline SVG: one stacked bar per cosine rank (can tie, cannot, not decided)."""
    if not counts:
        return "<p class=\"note\">No cosine neighbours were computed (--neighbours 0).</p>"
    left, width, bar, gap, top, right = 150, 420, 24, 10, 34, 190
    height = top + len(counts) * (bar + gap) + 30
    total = max(sum(c.values()) for c in counts) or 1
    parts = [f"<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"rank-figure\" role=\"img\" "
             f"width=\"{left + width + right}\" height=\"{height}\" "
             f"viewBox=\"0 0 {left + width + right} {height}\">",
             "<title>Cosine rank of each neighbour against whether the pair can tie</title>"]
    x = left
    for kind, text in (("yes", "can tie"), ("no", "cannot tie"), ("undecided", "not decided")):
        parts.append(f"<rect class=\"{kind}\" x=\"{x}\" y=\"8\" width=\"12\" height=\"12\"/>"
                     f"<text x=\"{x + 16}\" y=\"18\">{text}</text>")
        x += 110
    for r, c in enumerate(counts):
        y = top + r * (bar + gap)
        parts.append(f"<text x=\"{left - 8}\" y=\"{y + bar / 2 + 4}\" text-anchor=\"end\">"
                     f"rank {r + 1} neighbour</text>")
        x = left
        for kind in ("yes", "no", "undecided"):
            w = width * c[kind] / total
            if c[kind]:
                parts.append(
                    f"<rect class=\"{kind}\" x=\"{x:.2f}\" y=\"{y}\" width=\"{w:.2f}\" "
                    f"height=\"{bar}\" data-rank=\"{r + 1}\" data-verdict=\"{kind}\" "
                    f"data-count=\"{c[kind]}\"><title>rank {r + 1}: {c[kind]} "
                    f"{kind if kind != 'yes' else 'can tie'}</title></rect>")
            x += w
        parts.append(f"<text x=\"{x + 6:.2f}\" y=\"{y + bar / 2 + 4}\">{c['no']} of "
                     f"{sum(c.values())} cannot tie</text>")
    parts.append(f"<text x=\"{left}\" y=\"{height - 8}\">(label, neighbour) pairs, "
                 f"per rank of the neighbour by cosine</text>")
    parts.append("</svg>")
    return "".join(parts)


def _rank_table(counts: list[dict]) -> str:
    if not counts:
        return ""
    rows = "".join(
        f"<tr data-rank=\"{r + 1}\"><td class=\"num\">{r + 1}</td>"
        f"<td class=\"num\" data-verdict=\"yes\">{c['yes']}</td>"
        f"<td class=\"num\" data-verdict=\"no\">{c['no']}</td>"
        f"<td class=\"num\" data-verdict=\"undecided\">{c['undecided']}</td></tr>"
        for r, c in enumerate(counts))
    return ("<table id=\"rank-table\"><thead><tr><th class=\"num\">cosine rank</th>"
            "<th class=\"num\">can tie</th><th class=\"num\">cannot tie</th>"
            f"<th class=\"num\">not decided</th></tr></thead><tbody>{rows}</tbody></table>")


def _plain(value):
    if hasattr(value, "to_json"):
        value = value.to_json()
    elif is_dataclass(value) and not isinstance(value, type):
        value = asdict(value)
    return value


def domain_section(domain) -> str:
    """The per-domain counts of an analysis, as an HTML section ("" when there are none).

    ``domain`` is what the analysis carries under ``domain`` (the JSON key, else the
    attribute of the result): a mapping (each key a row; a nested mapping a row of
    ``key: value`` pairs), an object with ``to_json()`` or a dataclass (read as its
    mapping), or anything else (shown as text). Every text is escaped.
    """
    domain = _plain(domain)
    if domain is None:
        return ""
    if isinstance(domain, dict):
        rows = []
        for key, value in domain.items():
            value = _plain(value)
            if isinstance(value, dict):
                cell = "; ".join(f"{_e(k)}: <span data-domain-count=\"{_e(key)}/{_e(k)}\">"
                                 f"{_e(v)}</span>" for k, v in value.items())
            elif isinstance(value, (list, tuple)):
                cell = _e(", ".join(map(str, value)))
            else:
                cell = f"<span data-domain-count=\"{_e(key)}\">{_e(value)}</span>"
            rows.append(f"<tr><th>{_e(key)}</th><td>{cell}</td></tr>")
        body = f"<table class=\"summary\">{''.join(rows)}</table>"
    else:
        body = f"<p>{_e(domain)}</p>"
    return f"<section id=\"domain\"><h2>Per-domain counts</h2>{body}</section>"


def _summary(doc: dict, labels_file) -> str:
    c = doc["cosine"]

    def num(key, value):
        return f"<span data-key=\"{key}\">{value}</span>"

    frac = c["fraction_cannot_tie"]
    rows = [
        ("labels", num("n", doc["n"])),
        ("dimension", num("d", doc["d"])),
        ("argmaxable labels", num("argmaxable", len(doc["argmaxable"]))),
        ("unargmaxable labels", num("unargmaxable", len(doc["unargmaxable"]))),
        ("pairs decided exactly",
         f"{num('pairs_decided', doc['pairs_decided'])} of "
         f"{num('pairs_total', doc['pairs_total'])}"
         + (" (all)" if doc["tie_pairs_complete"] else " (the others are not decided)")),
        ("pairs that can tie", num("tie_pairs", len(doc["tie_pairs"]))),
        ("pairs that cannot tie", num("non_tie_pairs", len(doc["non_tie_pairs"]))),
        ("nearest cosine neighbour cannot tie",
         f"{num('cosine.nearest_not_tie', c['nearest_not_tie'])} of "
         f"{num('cosine.labels_compared', c['labels_compared'])} labels"),
        (f"neighbour pairs ({c['k']} nearest per label) that cannot tie",
         f"{num('cosine.neighbour_pairs_cannot_tie', c['neighbour_pairs_cannot_tie'])} of "
         f"{num('cosine.neighbour_pairs', c['neighbour_pairs'])}"
         + (f" ({100 * frac:.1f}% of those decided)" if frac is not None else "")
         + f"; not decided: "
           f"{num('cosine.neighbour_pairs_undecided', c['neighbour_pairs_undecided'])}"),
    ]
    cells = doc.get("cells")
    for kind, title in (("sign", "cells of the sign pattern S(W)"),
                        ("ranking", "cells of the ranking pattern R(W)")):
        if cells and cells.get(kind, {}).get("count") is not None:
            rows.append((title, num(f"cells.{kind}.count", cells[kind]["count"])))
    body = "".join(f"<tr><th>{title}</th><td>{value}</td></tr>" for title, value in rows)
    where = (f"label names from <code>{_e(labels_file)}</code>, shown quoted with escapes"
             if labels_file else "labels by number")
    return (f"<section id=\"summary\"><h2>Summary</h2><table class=\"summary\">{body}"
            f"</table><p class=\"note\">Labels are numbered from 0; {where}.</p></section>")


def _unargmaxable(result, names, bias: bool) -> str:
    un = result.argmax.unargmaxable
    if not un:
        return ("<section id=\"unargmaxable\"><h2>Unargmaxable labels</h2>"
                "<p>None: every label is the strict argmax at some input (each with an "
                "exact witness).</p></section>")
    rows = "".join(
        f"<tr data-label=\"{i}\">{_name(names, i)}<td><code>"
        f"{_e(_certificate(result, i, bias))}</code></td>"
        f"<td class=\"name\">{_e(_support(result, i, names))}</td></tr>"
        for i in un[:MAX_ROWS])
    more = (f"<p class=\"note\">... {len(un) - MAX_ROWS} more (--json gives all).</p>"
            if len(un) > MAX_ROWS else "")
    return ("<section id=\"unargmaxable\"><h2>Unargmaxable labels</h2>"
            "<p>These labels are never the strict argmax, whatever the input: each row "
            "of W is a convex combination of other rows (exact weights; checked by "
            "<code>python -m verify check</code> with --certificate).</p>"
            "<input type=\"search\" data-filter=\"unargmaxable-table\" "
            "placeholder=\"filter\" aria-label=\"filter the unargmaxable labels\">"
            "<table id=\"unargmaxable-table\"><thead><tr><th class=\"num\">label</th>"
            "<th>name</th><th>certificate</th><th>labels of the certificate</th></tr>"
            f"</thead><tbody>{rows}</tbody></table>{more}</section>")


def _cannot_tie(result, names) -> str:
    found = []
    for i, near in enumerate(result.cosine.neighbours):
        for r, (k, cos) in enumerate(near):
            if result.ties.can_tie(i, k) is False:
                found.append((i, r, k, cos))
    if not found:
        return ("<section id=\"cannot-tie\"><h2>Neighbour pairs that cannot tie</h2>"
                "<p>None.</p></section>")
    rows = "".join(
        f"<tr>{_name(names, i)}<td class=\"num\">{r + 1}</td>{_name(names, k)}"
        f"<td class=\"num\">{cos:+.3f}</td></tr>" for i, r, k, cos in found[:MAX_ROWS])
    more = (f"<p class=\"note\">... {len(found) - MAX_ROWS} more (--json gives all).</p>"
            if len(found) > MAX_ROWS else "")
    return ("<section id=\"cannot-tie\"><h2>Neighbour pairs that cannot tie</h2>"
            "<p>A label and one of its nearest labels by cosine that can never be tied "
            "for the highest probability (an exact Motzkin certificate each).</p>"
            "<input type=\"search\" data-filter=\"cannot-tie-table\" placeholder=\"filter\" "
            "aria-label=\"filter the neighbour pairs\">"
            "<table id=\"cannot-tie-table\"><thead><tr><th class=\"num\">label</th>"
            "<th>name</th><th class=\"num\">rank</th><th class=\"num\">neighbour</th>"
            "<th>name</th><th class=\"num\">cosine</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>{more}</section>")


def html_report(result: HeadAnalysis, *, source: str, labels_file: str | None = None) -> str:
    """The page, as text (see the module docstring)."""
    from verify.analyze.report import to_json

    doc = to_json(result, evidence=False)
    names = result.names
    bias = getattr(result, "lifted", None) is not None
    domain = doc.get("domain")
    if domain is None:
        domain = getattr(result, "domain", None)
    digest = base64.b64encode(hashlib.sha256(_SCRIPT.encode("utf-8")).digest()).decode()
    policy = (f"default-src 'none'; style-src 'unsafe-inline'; "
              f"script-src 'sha256-{digest}'; img-src data:")
    counts = _rank_counts(result)
    kind = "W x + b" if bias else "W x"
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
        "<meta name=\"generator\" content=\"python -m verify analyze --html\">",
        f"<title>analysis of {_e(source)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>Analysis of <code>{_e(source)}</code></h1>",
        f"<p>A softmax head with logits <code>{kind}</code>: which labels can be the "
        "argmax, which pairs can be tied for the highest probability, and whether the "
        "nearest labels by cosine are the ones that compete. Every answer is exact and "
        "has a witness or a certificate (<code>--json</code>, "
        "<code>--certificate</code>).</p>",
        _summary(doc, labels_file),
        domain_section(domain),
        _unargmaxable(result, names, bias),
        "<section id=\"figure\"><h2>Cosine rank against ties</h2>"
        "<p>For each label, its nearest labels by cosine (rank 1 the nearest): can the "
        "pair be tied for the highest probability?</p>",
        _figure(counts),
        _rank_table(counts),
        "</section>",
        _cannot_tie(result, names),
        f"<script>{_SCRIPT}</script></body></html>\n",
    ])


def write_html(path: str | os.PathLike[str], result: HeadAnalysis, *, source: str,
               labels_file: str | None = None) -> None:
    """Write :func:`html_report` to ``path`` atomically."""
    from verify.io.atomic import write_text_atomic

    write_text_atomic(path, html_report(result, source=source, labels_file=labels_file))
