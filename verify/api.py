"""The public Python API: what ``from verify import ...`` gives (``docs/api.md``).

Matrices are lists of rows or arrays: a numpy array, or anything with ``__array__``
(a torch tensor on the CPU, for example). Every entry is read exactly: ints,
``fractions.Fraction``, python-flint ``fmpq``, strings such as ``"1/3"`` or ``"0.1"``
(one tenth), and binary floats at their exact binary value (``0.1`` as a float64 is
``3602879701896397/2^55``), the way ``.npy`` files are read. :func:`analyze_head` also
takes square roots (``"5*sqrt(2)/2"``). Every answer comes with its evidence, checked
exactly before it is returned; results have a short ``repr`` and a ``to_json()`` that
gives the JSON of the matching command (``pattern --json``, ``analyze --json``).

Example
-------
>>> from verify import sign_pattern, ranking_pattern, braid_matrix
>>> S = sign_pattern([[1, 0], [0, 1], [1, 1]])
>>> S
SignPattern(3 x 2 matrix, rank 2, 3 hyperplanes, 6 cells: +++, +-+, +--, -++, ...)
>>> S.cells[0].witness
(1, 1)
>>> R = ranking_pattern([[1, 0], [0, 1], [-1, 0]])
>>> R.count, R.rankings[0]
(6, (0, 1, 2))
>>> braid_matrix(3)
[[1, -1, 0], [1, 0, -1], [0, 1, -1]]
"""

from __future__ import annotations

import os
from fractions import Fraction
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

from verify.io.errors import InputError

if TYPE_CHECKING:
    from verify.numbers.aliases import ExactEntry, Matrix
    from verify.analyze.report import HeadAnalysis
    from verify.arrangement.ranking_pattern import RankingPattern
    from verify.arrangement.sign_pattern import SignPattern
    from verify.claims.outcome import ClaimOutcome
    from verify.claims.sweep import SweepReport
    from verify.numbers.sqrt_sum import SqrtSum

# The engine (python-flint, numpy, ...) is imported by the functions that use it, so
# that check_certificate needs the standard library alone, like the checker itself.

__all__ = ["analyze_head", "check_certificate", "check_claim", "cosine_matrix",
           "exact_matrix", "ranking_pattern", "sign_pattern"]


def exact_matrix(M: Matrix, *, square_roots: bool = False) -> list[list[ExactEntry]]:
    """The rows of ``M`` with exact entries (``int``, ``Fraction``, ``fmpq``, or
    :class:`~verify.numbers.sqrt_sum.SqrtSum` when ``square_roots``).

    ``M`` is a list of rows or an array (numpy, or anything with ``__array__``); floats
    are taken at their exact binary value. Raises ``ValueError`` for a ragged or empty
    matrix, one that is not two-dimensional (a flat list of numbers), a bad entry, NaN
    or an infinity, and ``TypeError`` for an entry that is not a number.

    >>> exact_matrix([[1, "1/3"], [0.5, "0.1"]])
    [[1, 1/3], [1/2, 1/10]]
    """
    if hasattr(M, "__array__") and not isinstance(M, (list, tuple)):
        import numpy as np

        array = np.asarray(M)
        if array.ndim != 2:
            raise ValueError(f"expected a matrix (2 dimensions), got shape {array.shape}")
        if array.dtype.kind not in "biufO":
            raise ValueError(f"entries of dtype {array.dtype} are not numbers")
        M = array.tolist()
    if isinstance(M, (str, bytes)) or not hasattr(M, "__iter__"):
        raise ValueError(f"expected a matrix (a list of rows), got {type(M).__name__}")
    rows = []
    for row in M:
        if isinstance(row, (str, bytes)) or not hasattr(row, "__iter__"):
            raise ValueError(f"expected a matrix (a list of rows), got a row {row!r}: "
                             "a vector is a matrix of one row, [[...]]")
        rows.append(list(row))
        if any(isinstance(x, (list, tuple)) for x in rows[-1]):
            raise ValueError("expected a matrix (2 dimensions), got an entry that is a list")
    from flint import fmpq

    from verify.numbers.rational import exact_from_float
    from verify.numbers.sqrt_sum import SqrtSum, parse_entry

    def exact(x):
        if isinstance(x, (fmpq, Fraction)):
            return x
        if isinstance(x, Integral):  # int, bool, numpy integers
            return int(x)
        if isinstance(x, str):
            x = parse_entry(x)  # the one entry syntax of every command
        if isinstance(x, SqrtSum):
            if x.is_rational():
                return x.to_rational()
            if square_roots:
                return x
            raise ValueError(f"{x} is not rational")
        if isinstance(x, fmpq):  # read from text
            return x
        if isinstance(x, Real):  # float, numpy floating: the exact binary value
            return exact_from_float(x)
        raise TypeError(f"not an exact number: {x!r} ({type(x).__name__})")

    rows = [[exact(x) for x in row] for row in rows]
    if not rows or not rows[0]:
        raise ValueError("the matrix needs at least one row and one column")
    if any(len(row) != len(rows[0]) for row in rows):
        raise ValueError("ragged rows: every row needs the same number of entries")
    return rows


def sign_pattern(M: Matrix, *, method: str = "cocircuits") -> SignPattern:
    """The sign pattern ``S(M)``: every cell of the central arrangement with normals the
    rows of ``M``, each with an exact rational witness (:func:`verify.arrangement.sign_pattern`).

    >>> sign_pattern([[1, -1]]).patterns
    ['+', '-']
    """
    from verify.arrangement import sign_pattern as exact_sign_pattern

    return exact_sign_pattern(exact_matrix(M), method=method)


def ranking_pattern(W: Matrix, *, affine: bool = False,
                    method: str = "cocircuits") -> RankingPattern:
    """The ranking pattern ``R(W) = S(B_n W)``: every ranking of the labels (rows of
    ``W``) that some input produces, with an exact witness input
    (:func:`verify.arrangement.ranking_pattern`). ``affine`` prepends a column of ones.

    >>> import numpy as np
    >>> ranking_pattern(np.array([[1.0, 0.0], [0.0, 1.0]])).rankings
    [(0, 1), (1, 0)]
    """
    from verify.arrangement import ranking_pattern as exact_ranking_pattern

    return exact_ranking_pattern(exact_matrix(W), affine=affine, method=method)


def cosine_matrix(W: Matrix) -> list[list[SqrtSum]]:
    """``C_ij = w_i . w_j / (|w_i| |w_j|)`` exactly, each entry ``q sqrt(r)`` with ``q``
    rational (:func:`verify.numbers.sqrt_sum.cosine_matrix`); rows must be non-zero.

    >>> cosine_matrix([[1, 0], [1, 1]])[0][1]
    sqrt(2)/2
    """
    from verify.numbers.sqrt_sum import cosine_matrix as exact_cosine_matrix

    return exact_cosine_matrix(exact_matrix(W))


def analyze_head(W: Matrix, **options: Any) -> HeadAnalysis:
    """Which labels of the head ``W`` can be the strict argmax, which pairs can tie for
    the top, each label's nearest cosine neighbours and the cell counts
    (:func:`verify.analyze.report.analyze`; ``options`` as there: ``neighbours``,
    ``max_cells``, ``names``, ...). For heads too large for exact rows in memory use
    ``python -m verify analyze``, which reads ``.npy`` and checkpoints in blocks.

    >>> a = analyze_head([[1, 0], [0, 1], [-1, 0], [0, -1], [0, 0]])
    >>> a.argmax.unargmaxable
    [4]
    """
    from verify.analyze.report import analyze

    return analyze(exact_matrix(W, square_roots=True), **options)


def check_claim(claim: str, **options: Any) -> ClaimOutcome | SweepReport:
    """Run one claim of the papers (``python -m verify list`` names them) with the
    options of ``python -m verify all`` changed by ``options`` (``n``, ``d``,
    ``matrices``, ``seed``, ``matrix`` (a file), ...). Returns a
    :class:`~verify.claims.outcome.ClaimOutcome`, or a
    :class:`~verify.claims.sweep.SweepReport` for a claim checked over a family of
    matrices; both have ``holds`` and ``to_json()``.

    >>> check_claim("theorem 5.5")
    ClaimOutcome('theorem 5.5': verified, 6 of 6 steps hold)
    """
    from verify.claims.registry import CLAIMS
    from verify.claims.run_all import default_options

    if claim not in CLAIMS:
        raise InputError(f"unknown claim {claim!r}; known claims: {', '.join(CLAIMS)}")
    chosen = default_options(CLAIMS[claim])
    unknown = sorted(set(options) - set(vars(chosen)))
    if unknown:
        raise TypeError(f"unknown option{'s' if len(unknown) > 1 else ''} "
                        f"{', '.join(unknown)}; known: {', '.join(sorted(vars(chosen)))}")
    vars(chosen).update(options)
    return CLAIMS[claim].run(chosen)


def check_certificate(certificate: dict[str, Any] | str | os.PathLike[str]) -> str:
    """Check a certificate (a parsed JSON object, or the path of a JSON or a streamed
    certificate file) with the independent, standard-library-only checker
    (:mod:`verify.checker.core`); return the one-line summary of what it proves, or raise
    :class:`~verify.checker.core.CertificateError` naming the failed check (also for a
    file that is not a certificate at all); ``OSError`` if the file cannot be read.

    >>> from verify.certificates.writers import pattern_certificate
    >>> check_certificate(pattern_certificate([[1, 0], [0, 1]], kind="sign", affine=False))
    'sign pattern, 4 cells, complete'
    """
    from verify.checker.core import UnknownFormat, check_certificate as check, check_file

    if isinstance(certificate, dict):
        return check(certificate)
    try:
        return check_file(certificate)  # a JSON or a streamed certificate, an archive
    except ValueError as exc:  # not JSON (json.JSONDecodeError), not text, a bad entry
        raise UnknownFormat(f"{certificate}: not a certificate: {exc}") from exc
