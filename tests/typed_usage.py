"""The public API called as docs/api.md and docs/analyze.md show it, for mypy.

``tests/test_typing.py`` runs mypy on this file (configured in pyproject.toml). Each
``assert_type`` pins a documented return type; each line marked ``# type: ignore[...]``
passes an argument of a wrong type, and mypy reports the comment as unused
(``warn_unused_ignores``) once the parameter has lost its annotation. Calling a function
that has no annotations at all is an error (``disallow_untyped_calls``). The file is
also imported and run by the test, so that it stays true to the API.
"""

from __future__ import annotations

import os
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Sequence, assert_type

import networkx
import numpy as np

import verify
from verify import (
    Cell,
    ClaimOutcome,
    HeadAnalysis,
    RankingPattern,
    SignPattern,
    SqrtSum,
    SweepReport,
    analyze_head,
    braid_matrix,
    check_certificate,
    check_claim,
    cosine_matrix,
    exact_matrix,
    ranking_pattern,
    sign_pattern,
)
from verify.analyze import (
    ArgmaxAnalysis,
    NoTieCertificate,
    TieAnalysis,
    TieWitness,
    analyze,
    argmaxable_labels,
    cell_counts,
    cosine_neighbours,
    format_text,
    html_report,
    is_argmax_certificate,
    is_argmax_witness,
    is_no_tie_certificate,
    is_tie_witness,
    make_head,
    plot_cosine_ties,
    plot_head,
    show_name,
    tie_graph,
    tie_pairs,
    to_json,
    write_graph,
    write_html,
)
from verify.analyze.head import ExactHead, FieldHead
from verify.numbers.aliases import ExactEntry


def patterns() -> None:
    rows: Sequence[Sequence[int | Fraction]] = [[1, 0], [0, 1], [Fraction(-1), 0]]
    R = ranking_pattern(rows)
    assert_type(R, RankingPattern)
    assert_type(R.count, int)
    assert_type(R.patterns, list[str])
    S = sign_pattern(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), method="graph")
    assert_type(S, SignPattern)
    assert_type(S.cells[0], Cell)
    assert_type(ranking_pattern([["1/3", 0.5]], affine=True), RankingPattern)
    assert_type(braid_matrix(3), list[list[int]])
    assert_type(exact_matrix([[1, "1/3"], [0.5, "0.1"]]), list[list[ExactEntry]])
    assert_type(cosine_matrix([[1, 0], [1, 1]]), list[list[SqrtSum]])
    assert_type(verify.ranking_pattern(rows).to_json(), dict[str, Any])
    # Wrong argument types: errors while the parameters are annotated.
    if TYPE_CHECKING:  # wrong on purpose: checked, never run
        sign_pattern(rows, method=2)  # type: ignore[arg-type]
        ranking_pattern(rows, affine="yes")  # type: ignore[arg-type]
        braid_matrix("3")  # type: ignore[arg-type]
        exact_matrix(rows, square_roots="no")  # type: ignore[arg-type]
        sign_pattern(3)  # type: ignore[arg-type]
        ranking_pattern(3)  # type: ignore[arg-type]
        exact_matrix(3)  # type: ignore[arg-type]
        cosine_matrix(3)  # type: ignore[arg-type]


def claims() -> None:
    outcome = check_claim("theorem 5.5")
    assert_type(outcome, ClaimOutcome | SweepReport)
    assert_type(outcome.holds, bool)
    if isinstance(outcome, ClaimOutcome):
        assert_type(outcome.status, str)
    assert_type(check_certificate("c.json"), str)
    assert_type(check_certificate({"format": "x"}), str)
    assert_type(check_certificate(os.path.join("a", "c.json")), str)
    if TYPE_CHECKING:  # wrong on purpose: checked, never run
        check_claim(5.5)  # type: ignore[arg-type]
        check_certificate(3)  # type: ignore[arg-type]


def heads(path: str) -> None:
    a = analyze_head([[1, 0], [0, 1], [-1, 0], [0.2, 0.2]])
    assert_type(a, HeadAnalysis)
    assert_type(a.argmax, ArgmaxAnalysis)
    assert_type(a.argmax.unargmaxable, list[int])
    assert_type(a.ties, TieAnalysis)
    assert_type(a.ties.tie_pairs, list[tuple[int, int]])
    assert_type(a.ties.can_tie(0, 1), bool | None)
    assert_type(a.to_json(), dict[str, Any])
    assert_type(a.plot(os.path.join(path, "head.png")), Any)
    assert_type(a._repr_html_(), str)
    W: list[list[int | Fraction]] = [[Fraction(7, 5), -1], [Fraction(7, 5), 1], [-1, 0]]
    head = make_head(W)
    assert_type(head, ExactHead | FieldHead)
    A = argmaxable_labels(W)
    assert_type(A, ArgmaxAnalysis)
    T = tie_pairs(W, A)
    assert_type(T, TieAnalysis)
    assert_type(tie_graph(T, A), networkx.Graph)
    report = analyze(W, neighbours=2, names=["a", "b", "c"], bias=[0, 0, 1])
    assert_type(report, HeadAnalysis)
    assert_type(to_json(report), dict[str, Any])
    assert_type(format_text(report, "W"), str)
    assert_type(html_report(report, source="W"), str)
    assert_type(cell_counts(W), dict[str, Any])
    assert_type(cosine_neighbours(W, 2), list[list[tuple[int, float]]])
    assert_type(show_name(" the"), str)
    assert_type(is_argmax_witness(W, 0, (1, 0)), bool)
    assert_type(is_argmax_certificate(W, 2, [(0, Fraction(1, 2))]), bool)
    assert_type(is_tie_witness(W, 0, 1, (1, 0)), bool)
    assert_type(is_no_tie_certificate(W, 0, 1, NoTieCertificate(((2, 1),), 1)), bool)
    write_html(os.path.join(path, "r.html"), report, source="W")
    write_graph(tie_graph(T), os.path.join(path, "g.json"))
    plot_head(W, os.path.join(path, "W.png"), title="W")
    plot_cosine_ties(report, os.path.join(path, "cos.png"))
    if TYPE_CHECKING:  # wrong on purpose: checked, never run
        analyze(W, neighbours="2")  # type: ignore[arg-type]
        analyze(3)  # type: ignore[arg-type]
        analyze_head(3)  # type: ignore[arg-type]
        argmaxable_labels(3)  # type: ignore[arg-type]
        tie_pairs(3)  # type: ignore[arg-type]
        tie_pairs(W, A, pairs=3)  # type: ignore[arg-type]
        make_head(3)  # type: ignore[arg-type]
        cosine_neighbours(W, "2")  # type: ignore[arg-type]
        cell_counts(W, max_cells="9")  # type: ignore[arg-type]
        tie_graph(A)  # type: ignore[arg-type]
        html_report(W, source="W")  # type: ignore[arg-type]
        write_html(3, report, source="W")  # type: ignore[arg-type]
        write_graph(tie_graph(T), 3)  # type: ignore[arg-type]
        plot_head(W, 3)  # type: ignore[arg-type]
        plot_cosine_ties(W)  # type: ignore[arg-type]
        a.plot(kind=3)  # type: ignore[arg-type]
        is_argmax_witness(W, "0", (1, 0))  # type: ignore[arg-type]
        is_argmax_certificate(W, 2, 3)  # type: ignore[arg-type]
        is_no_tie_certificate(W, 0, 1, (1, 2))  # type: ignore[arg-type]
        analyze_head(W).to_json(evidence="all")  # type: ignore[call-arg]
        is_tie_witness(W, "0", 1, (1, 0))  # type: ignore[arg-type]
        format_text(report, 3)  # type: ignore[arg-type]
        show_name(3)  # type: ignore[arg-type]
