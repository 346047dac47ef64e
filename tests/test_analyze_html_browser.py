"""``analyze --html`` in a real headless browser (Chromium driven by Playwright).

The page is opened from disk: no console error, no page error, no dialog (a name such
as ``<script>alert(1)</script>`` must stay text), no request but the page itself, and
every number it shows equal to that of the ``--json`` document. The filter boxes (the
page's one script) hide the rows that do not match.

The browser is the system's Chromium (``/usr/bin/chromium``, Debian's package; the CI
installs it where apt is available) or one that Playwright downloaded; the test is
skipped, with the reason, only where no browser can be found or Playwright is not
installed (``pip install -e '.[test]'`` installs it).
"""

from __future__ import annotations

import io
import json
import os
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from verify.analyze.names import show_name
from verify.cli import main

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
TOKENS = ["\n", " the", "<script>alert(1)</script>", '"><img src=x onerror=alert(2)>',
          "\u0120caf\u00e9", "<|endoftext|>\u202e", "\t", "ok"]
HEAD = np.array([[0, 0], [4, 0], [0, 4], [4, 4], [2, 2], [2, 0], [1, 3], [3, 1]],
                dtype=np.float32)


def _browser():
    """``(sync_playwright, executable or None)``; skips the test when there is none."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("no browser test: Playwright is not installed (pip install -e '.[test]')")
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return sync_playwright, found
    if Path("/usr/bin/chromium").exists():
        return sync_playwright, "/usr/bin/chromium"
    cache = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH",
                                Path.home() / ".cache" / "ms-playwright"))
    if any(cache.glob("chromium*")):
        return sync_playwright, None  # Playwright's own download
    pytest.skip("no browser test: no Chromium found (apt-get install chromium, or "
                "python -m playwright install chromium)")


@pytest.fixture(scope="module")
def page_and_json(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("html")
    directory = tmp / "ckpt"
    directory.mkdir()
    save_file({"lm_head.weight": HEAD}, str(directory / "model.safetensors"))
    (directory / "tokenizer.json").write_text(json.dumps(
        {"model": {"type": "BPE", "vocab": {t: i for i, t in enumerate(TOKENS)}}}))
    report = tmp / "report.html"
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["analyze", "--matrix", str(directory), "--json", "--quiet",
                     "--html", str(report), "--neighbours", "3"])
    assert code == 0, err.getvalue()
    return report, json.loads(out.getvalue())


@pytest.fixture(scope="module")
def browser_page(page_and_json):
    sync_playwright, executable = _browser()
    report, _ = page_and_json
    events = {"console": [], "errors": [], "dialogs": [], "requests": []}
    with sync_playwright() as p:
        options = {"executable_path": executable} if executable else {}
        browser = p.chromium.launch(**options)
        try:
            page = browser.new_page()
            page.on("console", lambda m: events["console"].append((m.type, m.text)))
            page.on("pageerror", lambda e: events["errors"].append(str(e)))
            page.on("dialog", lambda d: (events["dialogs"].append(d.message), d.dismiss()))
            page.on("request", lambda r: events["requests"].append(r.url))
            page.goto(report.as_uri())
            page.wait_for_load_state("load")
            yield page, events
        finally:
            browser.close()


def test_no_console_errors_no_dialogs_no_requests(browser_page, page_and_json):
    page, events = browser_page
    report, _ = page_and_json
    assert [m for m in events["console"] if m[0] in ("error", "warning")] == []
    assert events["errors"] == [] and events["dialogs"] == []
    assert events["requests"] == [report.as_uri()]
    assert page.evaluate("document.querySelectorAll('script').length") == 1
    assert page.evaluate("document.querySelectorAll('img').length") == 0


def test_numbers_shown_are_those_of_the_json(browser_page, page_and_json):
    page, _ = browser_page
    _, doc = page_and_json
    shown = page.evaluate(
        "Object.fromEntries(Array.from(document.querySelectorAll('[data-key]'),"
        " e => [e.dataset.key, e.textContent]))")
    assert {"n", "argmaxable", "unargmaxable", "tie_pairs", "pairs_decided",
            "cosine.nearest_not_tie", "cosine.labels_compared",
            "cosine.neighbour_pairs_cannot_tie"} <= set(shown)
    for key, text in shown.items():
        value = doc
        for part in key.split("."):
            value = value[part]
        assert text == str(len(value) if isinstance(value, list) else value), key


def test_unargmaxable_labels_by_name(browser_page, page_and_json):
    page, _ = browser_page
    _, doc = page_and_json
    rows = page.evaluate(
        "Array.from(document.querySelectorAll('#unargmaxable-table tbody tr'),"
        " r => Array.from(r.cells, c => c.textContent))")
    assert [int(r[0]) for r in rows] == doc["unargmaxable"]
    assert [r[1] for r in rows] == [doc["labels_shown"][i] for i in doc["unargmaxable"]]
    assert [r[1] for r in rows] == [show_name(TOKENS[i]) for i in doc["unargmaxable"]]
    assert all(r[2].startswith(f"w_{r[0]} = ") for r in rows)


def test_figure_and_rank_table_match_the_json(browser_page, page_and_json):
    page, _ = browser_page
    _, doc = page_and_json
    expected = {}
    for entry in doc["cosine"]["per_label"]:
        for r, verdict in enumerate(entry["nearest_can_tie"], 1):
            kind = "yes" if verdict else "undecided" if verdict is None else "no"
            expected[f"{r}/{kind}"] = expected.get(f"{r}/{kind}", 0) + 1
    bars = page.evaluate(
        "Object.fromEntries(Array.from(document.querySelectorAll('#rank-figure rect[data-rank]'),"
        " e => [e.dataset.rank + '/' + e.dataset.verdict, Number(e.dataset.count)]))")
    assert bars == expected
    table = page.evaluate(
        "Array.from(document.querySelectorAll('#rank-table tbody tr'), r => "
        "Array.from(r.cells, c => Number(c.textContent)))")
    assert len(table) == doc["cosine"]["k"]
    for rank, yes, no, undecided in table:
        assert (yes, no, undecided) == tuple(expected.get(f"{rank}/{k}", 0)
                                             for k in ("yes", "no", "undecided"))
    box = page.evaluate("(() => { const b = document.getElementById('rank-figure')"
                        ".getBoundingClientRect(); return [b.width, b.height]; })()")
    assert box[0] > 100 and box[1] > 50  # drawn, not collapsed


def test_filter_box(browser_page):
    page, _ = browser_page
    visible = ("Array.from(document.querySelectorAll('#cannot-tie-table tbody tr'))"
               ".filter(r => !r.hidden).length")
    total = page.evaluate(visible)
    assert total >= 2
    page.fill("input[data-filter='cannot-tie-table']", "endoftext")
    filtered = page.evaluate(visible)
    assert 0 < filtered < total
    page.fill("input[data-filter='cannot-tie-table']", "")
    assert page.evaluate(visible) == total
