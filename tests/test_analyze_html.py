"""``analyze --html``: one self-contained page, its numbers those of ``--json``, every
name escaped. The page is read here with :mod:`html.parser`; ``test_analyze_html_browser``
opens it in a real browser."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser

import numpy as np
import pytest
from safetensors.numpy import save_file

from verify.analyze import analyze
from verify.analyze.html import _SCRIPT, domain_section, html_report
from verify.analyze.names import show_name
from verify.io import atomic

HEAD = np.array([[0, 0], [2, 0], [0, 2], [2, 2], [1, 1], [1, 0]], dtype=np.float32)
HOSTILE_TOKENS = ["\n", " the", "<script>alert(1)</script>", '"><img src=x onerror=alert(2)>',
                  "&amp;</td></tr></table><b>", "</style><script>alert(3)</script>"]


class Page(HTMLParser):
    """Tags, ``data-key`` numbers, the text of name cells and the script of a page."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags, self.keys, self.names, self.scripts = [], {}, [], []
        self._open = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        self._open.append((tag, attrs, []))

    def handle_endtag(self, tag):
        while self._open:
            name, attrs, text = self._open.pop()
            content = "".join(text)
            if "data-key" in attrs:
                self.keys[attrs["data-key"]] = content
            if attrs.get("class") == "name":
                self.names.append(content)
            if name == "script":
                self.scripts.append(content)
            if self._open:
                self._open[-1][2].append(content)
            if name == tag:
                break

    def handle_data(self, data):
        if self._open:
            self._open[-1][2].append(data)


def write_checkpoint(tmp_path, tokens):
    directory = tmp_path / "ckpt"
    directory.mkdir()
    save_file({"lm_head.weight": HEAD}, str(directory / "model.safetensors"))
    (directory / "tokenizer.json").write_text(json.dumps(
        {"model": {"type": "BPE", "vocab": {t: i for i, t in enumerate(tokens)}}}))
    return directory


def json_value(doc, key):
    value = doc
    for part in key.split("."):
        value = value[part]
    return len(value) if isinstance(value, list) else value


def test_page_numbers_are_those_of_the_json(tmp_path, run_cli):
    path = write_checkpoint(tmp_path, HOSTILE_TOKENS)
    page = tmp_path / "report.html"
    code, out, err = run_cli(["analyze", "--matrix", path, "--json", "--quiet",
                              "--html", page])
    assert code == 0, err
    assert f"verify: report written to {page}" in err
    doc = json.loads(out)
    parsed = Page(page.read_text(encoding="utf-8"))
    assert set(parsed.keys) >= {"n", "d", "argmaxable", "unargmaxable", "tie_pairs",
                                "pairs_decided", "pairs_total", "cosine.nearest_not_tie",
                                "cosine.neighbour_pairs_cannot_tie"}
    for key, shown in parsed.keys.items():
        assert shown == str(json_value(doc, key)), key
    # the unargmaxable labels by name, with their certificates
    assert doc["unargmaxable"] == [4, 5]
    text = page.read_text(encoding="utf-8")
    assert "w_4 = 1/2 w_1 + 1/2 w_2" in text and "w_5 = 1/2 w_0 + 1/2 w_1" in text
    assert set(parsed.names) <= {show_name(t) for t in HOSTILE_TOKENS} | {
        ", ".join(f"{k} {show_name(HOSTILE_TOKENS[k])}" for k in pair)
        for pair in ((1, 2), (0, 1))}
    assert show_name(HOSTILE_TOKENS[4]) in parsed.names
    assert f"label names from <code>{path / 'tokenizer.json'}</code>" in text


def test_names_cannot_inject_html(tmp_path):
    result = analyze(HEAD.astype(int).tolist(), names=HOSTILE_TOKENS)
    text = html_report(result, source="<b>bold</b>.json")
    parsed = Page(text)
    assert [tag for tag, _ in parsed.tags].count("script") == 1
    assert not [tag for tag, _ in parsed.tags if tag in ("img", "b", "iframe", "object")]
    assert not [attrs for _, attrs in parsed.tags if any(k.startswith("on") for k in attrs)]
    for token in HOSTILE_TOKENS[2:] + ["<b>bold</b>"]:
        assert token not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert parsed.scripts == [_SCRIPT]


def test_page_needs_no_network(tmp_path):
    text = html_report(analyze(HEAD.astype(int).tolist()), source="W.json")
    parsed = Page(text)
    assert not [tag for tag, _ in parsed.tags if tag in ("link", "img", "iframe")]
    assert not [attrs for _, attrs in parsed.tags if "src" in attrs or "href" in attrs]
    # the only URL is the SVG namespace, which is a name, not a request
    assert set(re.findall(r"https?://[^\"' <]+", text)) == {"http://www.w3.org/2000/svg"}
    policy = next(a["content"] for t, a in parsed.tags
                  if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    digest = base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
    assert "default-src 'none'" in policy and f"'sha256-{digest}'" in policy


def test_figure_counts_per_cosine_rank(tmp_path, run_cli):
    path = write_checkpoint(tmp_path, [f"t{i}" for i in range(6)])
    page = tmp_path / "r.html"
    code, out, _ = run_cli(["analyze", "--matrix", path, "--json", "--html", page,
                            "--neighbours", "3"])
    assert code == 0
    doc = json.loads(out)
    expected = {}
    for entry in doc["cosine"]["per_label"]:
        for r, verdict in enumerate(entry["nearest_can_tie"], 1):
            kind = "yes" if verdict else "undecided" if verdict is None else "no"
            expected[r, kind] = expected.get((r, kind), 0) + 1
    text = page.read_text(encoding="utf-8")
    bars = {(int(r), kind): int(count) for r, kind, count in re.findall(
        r'<rect [^>]*data-rank="(\d+)" data-verdict="(\w+)" data-count="(\d+)"', text)}
    assert bars == expected
    assert sum(v for (r, k), v in bars.items() if k == "no") == \
        doc["cosine"]["neighbour_pairs_cannot_tie"]


def test_without_names_and_without_neighbours():
    text = html_report(analyze([[1, 0], [0, 1], [-1, -1]], neighbours=0), source="W")
    assert "labels by number" in text and "--neighbours 0" in text
    assert "None: every label is the strict argmax" in text


def test_head_with_a_bias(tmp_path, run_cli):
    matrix, bias = tmp_path / "W.json", tmp_path / "b.json"
    matrix.write_text("[[2, 0], [0, 2], [1, 1]]")
    bias.write_text("[0, 0, -1]")
    page = tmp_path / "r.html"
    code, out, err = run_cli(["analyze", "--matrix", matrix, "--bias", bias, "--json",
                              "--html", page])
    assert code == 0, err
    doc, text = json.loads(out), page.read_text(encoding="utf-8")
    assert doc["unargmaxable"] and "logits <code>W x + b</code>" in text
    assert "b is at least b_" in text or "floor rows" in text


def test_domain_hook():
    assert domain_section(None) == ""
    shown = domain_section({"code": {"labels": 3, "unargmaxable": 1}, "<i>prose</i>": 7})
    assert "Per-domain counts" in shown and "&lt;i&gt;prose&lt;/i&gt;" in shown
    assert 'data-domain-count="code/unargmaxable">1<' in shown
    # An analysis with --domain carries it (the JSON key "domain"): the page says which.
    result = analyze([[1, 0], [0, 1], [-1, -1]], domain="nonneg")
    text = html_report(result, source="W")
    assert text.index("id=\"summary\"") < text.index("id=\"domain\"") < \
        text.index("id=\"unargmaxable\"")
    assert "<p>nonneg</p>" in text
    assert "id=\"domain\"" not in html_report(analyze([[1, 0], [0, 1], [-1, -1]]),
                                               source="W")


def test_written_atomically(tmp_path, run_cli, monkeypatch):
    matrix = tmp_path / "W.json"
    matrix.write_text("[[1, 0], [0, 1], [-1, -1]]")
    page = tmp_path / "r.html"
    page.write_text("old")

    def fail(handle, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic, "_write_all", fail)
    code, _, err = run_cli(["analyze", "--matrix", matrix, "--html", page])
    assert code == 2 and err.strip().endswith(
        f"{page}: cannot write --html: No space left on device")
    assert page.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == [
        "W.json", "r.html"]
    monkeypatch.undo()
    code, _, err = run_cli(["analyze", "--matrix", matrix, "--html", page])
    assert code == 0 and page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("where, message", [
    ("missing/r.html", "cannot write --html: no directory"),
    (".", "cannot write --html: is a directory"),
])
def test_bad_output_path_is_refused_before_the_analysis(tmp_path, run_cli, where, message):
    matrix = tmp_path / "W.json"
    matrix.write_text("[[1, 0], [0, 1], [-1, -1]]")
    code, out, err = run_cli(["analyze", "--matrix", matrix, "--html", tmp_path / where])
    assert code == 2 and message in err and out == ""
