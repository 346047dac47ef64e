"""Notebook display of the public results: ``_repr_html_`` and ``_repr_pretty_``.

Each shows a compact summary (counts, the first labels, where the full evidence is);
label names are shown as ``show_name`` writes them and HTML-escaped.
"""

from __future__ import annotations

import re

import pytest

import verify

HOSTILE = ["a", "<b>", "\n", '<script>alert("x")</script> & \u202e']
HEAD = [[1, 0], [0, 1], [-1, 0], [0.2, 0.2]]  # label 3 cannot be the argmax


class FakePrinter:
    """The two methods of IPython's pretty printer that the summaries use."""

    def __init__(self):
        self.out = []

    def text(self, s):
        self.out.append(s)

    def break_(self):
        self.out.append("\n")

    def value(self):
        return "".join(self.out)


def pretty(obj) -> str:
    try:
        from IPython.lib.pretty import pretty as ipython_pretty
    except ImportError:
        p = FakePrinter()
        obj._repr_pretty_(p, False)
        return p.value()
    return ipython_pretty(obj)


@pytest.fixture(scope="module")
def head():
    return verify.analyze_head(HEAD, names=HOSTILE)


def test_head_summary_counts_and_labels(head):
    text = pretty(head)
    assert text.splitlines()[0] == "HeadAnalysis: 4 labels in dimension 2"
    assert "argmaxable: 3 of 4" in text
    assert "tie pairs: 3 (all 6 pairs decided): 0-1, 0-2, 1-2" in text
    assert "sign cells: 6" in text and "ranking cells: 12" in text
    assert ".to_json()" in text and "--certificate" in text


def test_head_html_escapes_hostile_names(head):
    page = head._repr_html_()
    assert "<script>" not in page and "</script> " not in page
    assert "&lt;script&gt;" in page and "&amp;" in page
    # the name as show_name writes it (the override character escaped), then escaped
    assert "\u202e" not in page and "\\u202e" in page
    assert page.startswith('<div class="verify-result">') and page.endswith("</div>")
    # only the markup of the summary itself
    assert set(re.findall(r"</?([a-z]+)", page)) <= {"div", "strong", "table", "tr", "th",
                                                     "td", "small"}


def test_head_text_shows_names_escaped(head):
    text = pretty(head)
    assert 'unargmaxable: 3 "<script>alert(\\"x\\")</script> & \\u202e"' in text
    assert "\u202e" not in text


def test_the_fake_printer_and_ipython_agree(head):
    p = FakePrinter()
    head._repr_pretty_(p, False)
    assert p.value() == pretty(head)
    p = FakePrinter()
    head._repr_pretty_(p, True)
    assert p.value() == "HeadAnalysis: 4 labels in dimension 2 (...)"


def test_many_labels_are_cut_short():
    import numpy as np

    points = np.round(np.random.default_rng(0).standard_normal((40, 2)) * 8).astype(int)
    a = verify.analyze_head(points.tolist())
    text = pretty(a)
    assert "unargmaxable: 0, 1, 2, 3, 4, 5, 7, 8, ... (25 more)" in text
    assert len(a._repr_html_()) < 2000


def test_head_with_a_bias():
    a = verify.analyze_head(HEAD, bias=[0, 0, 0, 5])
    assert "(logits W x + b)" in pretty(a)
    assert "argmaxable: 4 of 4" in pretty(a)


def test_argmax_and_ties(head):
    text = pretty(head.argmax)
    assert text.splitlines()[:3] == ["ArgmaxAnalysis: 4 labels in dimension 2",
                                     "  argmaxable: 3 of 4: 0, 1, 2", "  unargmaxable: 3"]
    text = pretty(head.ties)
    assert "decided: 6 of 6 pairs" in text
    assert "can tie: 3: 0-1, 0-2, 1-2" in text and "cannot tie: 3: 0-3, 1-3, 2-3" in text
    for obj in (head.argmax, head.ties):
        assert obj._repr_html_().startswith('<div class="verify-result">')
        assert ".evidence[" in obj._repr_html_()


def test_patterns():
    R = verify.ranking_pattern([[1, 0], [0, 1], [-1, 0]])
    text = pretty(R)
    assert "rankings: 6: 0 &gt; 1" not in text
    assert "rankings: 6: 0 > 1 > 2, 0 > 2 > 1, 2 > 0 > 1, 1 > 0 > 2, ... (2 more)" in text
    assert "0 &gt; 1 &gt; 2" in R._repr_html_()
    S = verify.sign_pattern([[1, 0], [0, 1]])
    assert "cells: 4: ++, +-, -+, --" in pretty(S)
    assert "rank 2" in S._repr_html_() and ".cells[k].witness" in S._repr_html_()


def test_claims():
    outcome = verify.check_claim("theorem H.1")
    text = pretty(outcome)
    assert text.startswith("ClaimOutcome theorem H.1\n  status: verified")
    assert "verified" in outcome._repr_html_()
    report = verify.check_claim("lemma 5.3", n=3, d=2, matrices=3)
    text = pretty(report)
    assert text.startswith("SweepReport lemma 5.3\n  holds: yes")
    assert f"checked: {report.checked} (agreed {report.agreed}" in text
    assert "holds" in report._repr_html_()
