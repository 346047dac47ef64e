"""``analyze --json`` written piece by piece (``write_json``): the bytes of
``json.dumps(to_json(...))`` for every kind of document, without holding it whole."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from verify.analyze import analyze
from verify.analyze import report as report_module
from verify.analyze.report import analyze_with_bias, to_json, write_json


def _expected(result, extra=None, **kw) -> str:
    doc = to_json(result, **kw)
    doc.update(extra or {})
    return json.dumps(doc, separators=(",", ":")) + "\n"


def _written(result, extra=None, chunk=None, **kw) -> str:
    out = io.StringIO()
    if chunk is not None:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(report_module._Chunked.__init__, "__defaults__", (chunk,))
            write_json(result, out, extra=extra, **kw)
    else:
        write_json(result, out, extra=extra, **kw)
    return out.getvalue()


def _results():
    rng = np.random.default_rng(0)
    W = rng.integers(-6, 7, size=(9, 2))
    W[3] = (W[0] + W[1]) // 2  # perhaps inside the hull
    W[5] = W[4]  # equal rows: a certificate
    b = rng.integers(-3, 4, size=9)
    yield analyze(W, cells=True, names=[f"tok{i}" for i in range(9)])
    yield analyze_with_bias(W, b)
    yield analyze(W, domain="nonneg", cells=False)


@pytest.mark.parametrize("chunk", [None, 1, 7])
def test_written_json_is_the_dumped_document(chunk):
    results = list(_results())
    assert any(r.argmax.unargmaxable for r in results)
    assert any(r.ties.non_tie_pairs for r in results)
    for result in results:
        extra = {"source": "W.npy", "labels_file": None}
        assert _written(result, extra, chunk) == _expected(result, extra)
        assert _written(result, chunk=chunk, evidence=False) == _expected(result,
                                                                         evidence=False)
        doc = json.loads(_written(result, chunk=chunk))
        assert doc["argmax_witnesses"] and "evidence_omitted" not in doc

