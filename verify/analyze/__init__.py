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
* :func:`plot_head`: the pictures for ``d = 2`` (in :mod:`verify.analyze.plot`, which
  imports matplotlib).

The command line is ``python -m verify analyze`` (:mod:`verify.analyze.command`).

References
----------
D. Grivas, N. Bogoychev, A. Lopez, "Low-Rank Softmax Can Have Unargmaxable Classes in
Theory but Rarely in Practice", ACL 2022. Nielsen & Grivas, *What Cosine Similarity of
Label Representations Can and Cannot Tell us*.
"""

from verify.analyze.argmax import (
    ArgmaxAnalysis,
    argmaxable_labels,
    is_argmax_certificate,
    is_argmax_witness,
    make_head,
)
from verify.analyze.report import (
    HeadAnalysis,
    analyze,
    cell_counts,
    cosine_neighbours,
    format_text,
    to_json,
)
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


def plot_head(*args, **kwargs):
    """Draw a two-dimensional head; see :func:`verify.analyze.plot.plot_head`."""
    from verify.analyze.plot import plot_head as _plot_head

    return _plot_head(*args, **kwargs)


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
    "is_argmax_certificate",
    "is_argmax_witness",
    "is_no_tie_certificate",
    "is_tie_witness",
    "make_head",
    "plot_head",
    "tie_graph",
    "tie_pairs",
    "to_json",
    "write_graph",
]
