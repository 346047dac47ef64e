"""``python -m verify all``: every registered claim, with default sizes, as a regression suite.

Each claim ends ``verified`` (every part of its check held; for the counterexample
theorems 5.5 and H.1: the counterexample is certified), ``refuted`` (some part failed)
or ``error`` (the check could not run; the message says why).

Every verified claim's report carries a certificate (``verify all --certificates DIR``
writes them): the sweeps' covers the first :data:`CERTIFICATE_MATRICES` matrices of
their family and is built only when it is asked for.
"""

from __future__ import annotations

import time
import traceback
from types import SimpleNamespace

from verify.claims.registry import CLAIMS

#: Options of the sweep claims in ``verify all``: small but meaningful families.
SWEEP_DEFAULTS = {
    "lemma 5.3": dict(n=5, d=3, matrices=120),
    "theorem 5.6": dict(n=5, d=3, matrices=120),
    "proposition E.2": dict(n=6, d=3, matrices=60),
}

#: Matrices of each sweep covered by its certificate (``verify all --certificates``):
#: the first 8 of the family, a few seconds to generate (theorem 5.6 takes longest).
CERTIFICATE_MATRICES = 8


def default_options(claim) -> SimpleNamespace:
    opts = dict(n=5, d=2, seed=0, matrices=200, exhaustive=False, box=1, matrix=None,
                json=False, quiet=True, output_dir=".", labels=None, certificate=None,
                jobs=1, scheduler=None, checkpoint=None, shard=None, merge=None,
                claim_id=claim.id, certificate_matrices=CERTIFICATE_MATRICES)
    opts.update(SWEEP_DEFAULTS.get(claim.id, {}))
    return SimpleNamespace(**opts)


def one_line(claim, report) -> str:
    if claim.sweep:
        return (f"{report.agreed}/{report.checked} matrices agree ({report.skipped} "
                f"skipped), {report.cells} cells compared")
    return report.evidence


def run_all(progress=None) -> list[dict]:
    rows = []
    for claim in CLAIMS.values():
        start = time.perf_counter()
        try:
            report = claim.run(default_options(claim))
            status = "verified" if report.holds else "refuted"
            evidence = one_line(claim, report)
        except Exception as err:  # a claim that cannot run is reported, not fatal
            status, report = "error", None
            evidence = f"{type(err).__name__}: {err}".splitlines()[0]
            if progress is None:
                traceback.print_exc()
        rows.append({"id": claim.id, "status": status, "evidence": evidence,
                     "seconds": round(time.perf_counter() - start, 2), "report": report})
        if progress:
            progress(rows[-1])
    return rows
