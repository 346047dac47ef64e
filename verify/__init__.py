"""verify: exact, certificate-producing checks of what cosine similarity of label
representations can and cannot tell about a classifier.

Layers (data flows one way; ``docs/architecture.md``):
numbers -> exact linear algebra -> LP and certificates -> arrangements and patterns
-> claims -> CLI and certificate files.

The public API (``docs/api.md``) is loaded on first use (PEP 562), so that
``import verify`` and ``python -m verify check`` need the standard library alone:

>>> import verify
>>> verify.ranking_pattern([[1, 0], [0, 1], [-1, 0]]).count
6
>>> verify.check_claim("theorem H.1").holds
True
"""

__version__ = "0.1.0"

# name -> the module that defines it
_EXPORTS = {
    "analyze_head": "verify.api",
    "check_certificate": "verify.api",
    "check_claim": "verify.api",
    "cosine_matrix": "verify.api",
    "exact_matrix": "verify.api",
    "ranking_pattern": "verify.api",
    "sign_pattern": "verify.api",
    "braid_matrix": "verify.arrangement.ranking_pattern",
    "Cell": "verify.arrangement.sign_pattern",
    "SignPattern": "verify.arrangement.sign_pattern",
    "RankingPattern": "verify.arrangement.ranking_pattern",
    "HeadAnalysis": "verify.analyze.report",
    "ClaimOutcome": "verify.claims.outcome",
    "SweepReport": "verify.claims.sweep",
    "SqrtSum": "verify.numbers.sqrt_sum",
    "CertificateError": "verify.checker.core",
    "InputError": "verify.io.errors",
    "VerifyError": "verify.io.errors",
}

__all__ = sorted(_EXPORTS)

TYPE_CHECKING = False
if TYPE_CHECKING:  # what type checkers see; at run time the names load on first use
    from verify.analyze.report import HeadAnalysis
    from verify.api import (
        analyze_head,
        check_certificate,
        check_claim,
        cosine_matrix,
        exact_matrix,
        ranking_pattern,
        sign_pattern,
    )
    from verify.arrangement.ranking_pattern import RankingPattern, braid_matrix
    from verify.arrangement.sign_pattern import Cell, SignPattern
    from verify.checker.core import CertificateError
    from verify.claims.outcome import ClaimOutcome
    from verify.claims.sweep import SweepReport
    from verify.io.errors import InputError, VerifyError
    from verify.numbers.sqrt_sum import SqrtSum


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'verify' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
