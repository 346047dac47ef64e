"""Regenerate the counterexample inputs and certificates in this directory.

    python counterexamples/generate.py [--output DIR]

For each counterexample ``X`` it writes the input ``X.json`` (the matrices, one row per
line) and the certificate ``X.cert.json`` (``verify-certificate/1``, one line), after
checking the certificate with :mod:`verify.checker.core`. Everything is computed from the
paper's data bundled with ``verify`` and from two deterministic searches, so a re-run
writes byte-identical files.

* ``theorem-H.1``: the configurations ``A``, ``B`` of Nielsen & Grivas, App. H.2.
* ``theorem-H.1-n4``: the first pair of the search over 4 points in ``[-1, 1]^2``.
* ``theorem-5.5``: the paper's seven rows over ``Q(sqrt 2)`` (App. H.1), label 2.
* ``theorem-5.5-rational``: a rational instance of the same structure, label 2.
* ``theorem-5.5-search``: the first pair of the search over 3 x 2 integer matrices
  with entries in ``[-2, 2]`` that differs in one row, a positive rescaling.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from verify.certificates.writers import h1_certificate, theorem55_certificate, write_certificate
from verify.checker.core import check_certificate
from verify.claims.search import search_55, search_h1
from verify.claims.theorem_55 import RATIONAL_MODEL_1, RATIONAL_MODEL_2
from verify.data import paper_example
from verify.io.atomic import write_text_atomic

HERE = Path(__file__).resolve().parent


def scaled_row_pair():
    """The first 5.5 pair of ``search_55(3, 2, 2)`` whose matrices differ in one row."""
    pairs, _ = search_55(3, 2, 2, limit=20)
    return next((P, Q) for P, Q in pairs if sum(p != q for p, q in zip(P, Q)) == 1)


def certificates() -> dict:
    """Name -> certificate, in the order they are written."""
    h1, p55 = paper_example("theorem H.1"), paper_example("theorem 5.5")
    (P, Q), = search_h1(4, 2, 1, limit=1)[0]
    return {
        "theorem-H.1": h1_certificate(h1["A"], h1["B"]),
        "theorem-H.1-n4": h1_certificate(P, Q),
        "theorem-5.5": theorem55_certificate(p55["model 1"], p55["model 2"], p55["label"]),
        "theorem-5.5-rational": theorem55_certificate(RATIONAL_MODEL_1, RATIONAL_MODEL_2,
                                                      p55["label"]),
        "theorem-5.5-search": theorem55_certificate(*scaled_row_pair(), None),
    }


def input_text(document: dict) -> str:
    """The input object as JSON text, one matrix row per line."""
    lines = []
    for key, value in document.items():
        if isinstance(value, list):
            rows = ",\n".join("    " + json.dumps(row) for row in value)
            lines.append(f"  {json.dumps(key)}: [\n{rows}\n  ]")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=HERE,
                        help="directory to write into (default: this script's directory)")
    args = parser.parse_args(argv)
    args.output.mkdir(parents=True, exist_ok=True)
    for name, cert in certificates().items():
        start = time.perf_counter()
        summary = check_certificate(json.loads(json.dumps(cert)))
        seconds = time.perf_counter() - start
        write_text_atomic(args.output / f"{name}.json", input_text(cert["input"]))
        write_certificate(args.output / f"{name}.cert.json", cert)
        size = (args.output / f"{name}.cert.json").stat().st_size
        print(f"{name}.cert.json: {size:,} bytes, checked in {seconds:.2f} s: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
