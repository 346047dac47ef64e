"""The report's first lines and the size threshold of ``--json``.

The cosine summary (the paper's question) is the second line of the text report; its
numbers are recounted here from the JSON's per-label table. Above
``JSON_EVIDENCE_MAX_ENTRIES`` the JSON keeps the sets and summaries, leaves the evidence
to the certificate and says so; below it nothing changes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from verify.analyze import analyze, format_text, to_json
from verify.analyze import report as report_module

ROOT = Path(__file__).resolve().parents[1]


def recount(doc):
    """(labels whose nearest neighbour cannot tie, compared labels, pairs that cannot
    tie, pairs), from the per-label table alone."""
    rows = [r for r in doc["cosine"]["per_label"] if r["nearest"]]
    first = sum(1 for r in rows if r["nearest_can_tie"][0] is False)
    cannot = sum(v is False for r in rows for v in r["nearest_can_tie"])
    return first, len(rows), cannot, sum(len(r["nearest"]) for r in rows)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_cosine_summary_is_the_second_line(seed):
    W = np.random.default_rng(seed).integers(-4, 5, size=(12, 2)).tolist()
    result = analyze(W, cells=False)
    lines = format_text(result, "w").splitlines()
    first, compared, cannot, pairs = recount(to_json(result))
    assert lines[0].startswith("analysis of w: 12 labels in dimension 2")
    assert lines[1].startswith(f"nearest cosine neighbour cannot tie: {first} of {compared} "
                               f"labels; neighbour pairs that cannot tie: {cannot} of {pairs}")
    # Said once, and the per-label table stays below the tie pairs.
    assert sum(line.startswith("nearest cosine neighbour") for line in lines) == 1
    table = next(k for k, line in enumerate(lines) if line.startswith("cosine versus"))
    ties = next(k for k, line in enumerate(lines) if line.startswith("tie pairs"))
    assert 1 < ties < table


def test_example_c2_as_documented():
    run = subprocess.run([sys.executable, "-m", "verify", "analyze", "--matrix",
                          "examples/c2.json"], capture_output=True,
                         text=True, cwd=ROOT)
    doc = (ROOT / "docs" / "analyze.md").read_text()
    block = doc.split("```console\n", 1)[1].split("```", 1)[0]
    assert block.splitlines()[0] == "$ python -m verify analyze --matrix examples/c2.json"
    assert run.stdout.splitlines() == block.splitlines()[1:]


def test_json_above_the_threshold_leaves_evidence_to_the_certificate(monkeypatch):
    W = np.random.default_rng(2).integers(-5, 6, size=(15, 3)).tolist()
    result = analyze(W, cells=False)
    full = to_json(result)
    assert "evidence_omitted" not in full
    assert to_json(result, evidence=True) == full
    monkeypatch.setattr(report_module, "JSON_EVIDENCE_MAX_ENTRIES", 15 * 3 - 1)
    small = to_json(result)
    assert set(full) - set(small) == set(report_module.EVIDENCE_KEYS)
    assert set(small) - set(full) == {"evidence_omitted"}
    assert "--certificate" in small["evidence_omitted"]
    for key in small:
        if key != "evidence_omitted":
            assert small[key] == full[key], key
    monkeypatch.setattr(report_module, "JSON_EVIDENCE_MAX_ENTRIES", 15 * 3)
    assert to_json(result) == full
    json.dumps(small)


def test_exact_keys_by_limbs_equal_the_python_keys():
    """The int64 limb products of ``_exact_keys`` against the plain Python sums, from
    one-bit entries to entries of 63 bits (three limbs at d = 199), both signs."""
    from verify.analyze import neighbours as nb
    from verify.analyze.head import make_head

    rng = np.random.default_rng(11)
    seen_limbs = set()
    for trial in range(40):
        d = int(rng.integers(1, 200))
        n = int(rng.integers(8, 30))
        bits = int(rng.integers(1, 63))
        Z = rng.integers(-(1 << bits) + 1, 1 << bits, size=(n, d), dtype=np.int64)
        Z[0, 0] = (1 << 62) - 1 if trial % 5 == 0 else Z[0, 0]
        head = make_head(Z)
        assert head.Zarr is not None
        seen_limbs.add(len(nb._limbs(head.Zarr, nb._limb_bits(d))))
        cand = list(range(n))
        for i in (0, n // 2, n - 1):
            assert nb._exact_keys(head, i, cand) == [nb._exact_key(head, i, k)
                                                    for k in cand]
    assert {1, 2, 3} <= seen_limbs


def test_json_numbers_are_the_exact_rationals_in_lowest_terms():
    """``_text`` (the numbers of the JSON output) writes FLINT's ``p/q`` directly: the
    same text as :func:`format_rational`, read back exactly, for small, negative,
    integral and 10,000-digit values."""
    from fractions import Fraction

    from flint import fmpq, fmpz

    from verify.analyze.report import _text
    from verify.numbers.rational import format_rational, parse_rational

    rng = np.random.default_rng(2)
    values = [fmpq(int(p), int(q)) for p, q in zip(rng.integers(-10**9, 10**9, 300),
                                                     rng.integers(1, 10**6, 300))]
    values += [fmpq(6, 3), fmpq(-7, 14), fmpz(-5), fmpq(10**10000 + 1, 3), 0, -12,
               Fraction(-3, 9)]
    for v in values:
        text = _text(v)
        assert text == format_rational(v)
        exact = (Fraction(int(v.p), int(v.q)) if isinstance(v, fmpq)
                 else Fraction(int(v)) if isinstance(v, fmpz) else Fraction(v))
        assert parse_rational(text) == fmpq(exact.numerator, exact.denominator)
