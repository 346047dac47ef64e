"""Notebook display of results: a compact summary as HTML and as text.

Jupyter shows an object through its ``_repr_html_``, IPython's pretty printer through
its ``_repr_pretty_``. Every result of the public API (``docs/api.md``) has both; they
show a few lines (counts, the first labels) and say where the full evidence is
(``.to_json()``, certificates). A result builds its summary as a title, rows of
``(key, value)`` plain text and a note; this module writes them, escaping every value
for HTML (label names are arbitrary strings: ``<script>``, quotes, control characters).
"""

from __future__ import annotations

import html
from typing import Any, Iterable, Sequence

__all__ = ["first", "summary_html", "summary_text", "pretty"]

#: How many items (labels, pairs, rankings) a summary shows before "... (k more)".
SHOWN = 8


def first(items: Sequence[Any], shown: int = SHOWN, text: Any = str) -> str:
    """The first ``shown`` items as text, then how many more: ``0, 3, 5, ... (12 more)``."""
    head = ", ".join(text(x) for x in items[:shown])
    more = len(items) - shown
    if not items:
        return "none"
    return head + (f", ... ({more} more)" if more > 0 else "")


def summary_html(title: str, rows: Iterable[tuple[str, str]], note: str) -> str:
    """A small table: ``title`` above, one row per ``(key, value)``, ``note`` below."""
    body = "".join(
        f'<tr><th style="text-align:left;padding-right:1em">{html.escape(k)}</th>'
        f'<td style="text-align:left">{html.escape(v)}</td></tr>'
        for k, v in rows)
    return (f'<div class="verify-result"><strong>{html.escape(title)}</strong>'
            f"<table>{body}</table>"
            f"<small>{html.escape(note)}</small></div>")


def summary_text(title: str, rows: Iterable[tuple[str, str]], note: str) -> str:
    """The same summary as lines of text."""
    lines = [title]
    lines += [f"  {k}: {v}" for k, v in rows]
    lines.append(f"  ({note})")
    return "\n".join(lines)


def pretty(printer: Any, cycle: bool, title: str, rows: Iterable[tuple[str, str]],
           note: str) -> None:
    """``_repr_pretty_``: the text summary, line by line, through IPython's printer."""
    if cycle:
        printer.text(f"{title} (...)")
        return
    for k, line in enumerate(summary_text(title, rows, note).split("\n")):
        if k:
            printer.break_()
        printer.text(line)
