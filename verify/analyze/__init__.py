"""Analysis of a real classifier head: what its unembeddings can and cannot do.

For an unembedding matrix ``W`` (rows ``w_0 ... w_{n-1}``, one per label, numbered from
0) of a bias-free softmax classifier ``p(y_i | x) = softmax(W x)_i``:

* :func:`argmaxable_labels`: which labels can be the strict argmax (Grivas et al.
  2022): exactly the labels whose row is a vertex of ``conv(W)`` shared with no other
  label; each decided with an exact witness input or exact convex weights.
* :func:`tie_pairs`: which pairs can be tied for the highest probability: exactly the
  edges of ``conv(W)`` free of other rows; each decided with an exact witness input or
  an exact Motzkin certificate; :func:`tie_graph` gives the networkx graph.
* :func:`analyze`: both, next to each label's nearest neighbours by cosine (Nielsen &
  Grivas, App. C.2: cosine neighbours are not competitors) and the cell counts of the
  sign and ranking patterns when affordable.
* :func:`plot_head`: the pictures for ``d = 2``, and :func:`plot_cosine_ties`: cosine
  of the nearest neighbours against ties, any ``d`` (in :mod:`verify.analyze.plot`,
  which imports matplotlib; also ``HeadAnalysis.plot``).

The command line is ``python -m verify analyze`` (:mod:`verify.analyze.command`).

References
----------
D. Grivas, N. Bogoychev, A. Lopez, "Low-Rank Softmax Can Have Unargmaxable Classes in
Theory but Rarely in Practice", ACL 2022. Nielsen & Grivas, *What Cosine Similarity of
Label Representations Can and Cannot Tell us*.
"""

# Names are loaded on first use (PEP 562), so that registering the subcommand
# (verify.analyze.command) does not import numpy, scipy and flint at start-up.
_EXPORTS = {
    "ArgmaxAnalysis": "argmax",
    "argmaxable_labels": "argmax",
    "is_argmax_certificate": "argmax",
    "is_argmax_witness": "argmax",
    "make_head": "head",
    "HeadAnalysis": "report",
    "analyze": "report",
    "cell_counts": "cells",
    "cosine_neighbours": "neighbours",
    "format_text": "report",
    "to_json": "report",
    "NoTieCertificate": "ties",
    "TieAnalysis": "ties",
    "TieWitness": "ties",
    "is_no_tie_certificate": "ties",
    "is_tie_witness": "ties",
    "tie_graph": "ties",
    "tie_pairs": "ties",
    "write_graph": "ties",
    "plot_head": "plot",
    "plot_cosine_ties": "plot",
    "show_name": "names",
    "html_report": "html",
    "write_html": "html",
}

TYPE_CHECKING = False
if TYPE_CHECKING:  # what type checkers see; at run time the names load on first use
    from verify.analyze.argmax import (
        ArgmaxAnalysis,
        argmaxable_labels,
        is_argmax_certificate,
        is_argmax_witness,
    )
    from verify.analyze.cells import cell_counts
    from verify.analyze.head import make_head
    from verify.analyze.html import html_report, write_html
    from verify.analyze.names import show_name
    from verify.analyze.neighbours import cosine_neighbours
    from verify.analyze.plot import plot_cosine_ties, plot_head
    from verify.analyze.report import HeadAnalysis, analyze, format_text, to_json
    from verify.analyze.ties import (
        NoTieCertificate,
        TieAnalysis,
        TieWitness,
        is_no_tie_certificate,
        is_tie_witness,
        tie_graph,
        tie_pairs,
        write_graph,
    )


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'verify.analyze' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"verify.analyze.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "ArgmaxAnalysis",
    "HeadAnalysis",
    "NoTieCertificate",
    "TieAnalysis",
    "TieWitness",
    "analyze",
    "argmaxable_labels",
    "cell_counts",
    "cosine_neighbours",
    "format_text",
    "html_report",
    "is_argmax_certificate",
    "is_argmax_witness",
    "is_no_tie_certificate",
    "is_tie_witness",
    "make_head",
    "plot_cosine_ties",
    "plot_head",
    "show_name",
    "tie_graph",
    "tie_pairs",
    "to_json",
    "write_graph",
    "write_html",
]
