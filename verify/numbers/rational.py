"""Exact rationals from text, and back to text.

Every number that enters the engine passes through :func:`parse_rational`, so the
text ``0.1`` means exactly 1/10, never the nearest binary float.  The accepted
grammar (after stripping surrounding whitespace) is::

    integer   [+-]? digits                       3   -3   +3
    decimal   [+-]? (digits . digits? | . digits) (e/E [+-]? digits)?
                                                 0.1   -.5   2.   1e-3   -2.5E+2
    fraction  [+-]? digits / digits               3/4   -3/4

Digits are ASCII ``0-9`` only.  A sign on the denominator (``3/-4``) is rejected:
one sign per number, in front, keeps the grammar unambiguous.  ``nan``, ``inf``,
``infinity``, hexadecimal, underscores (``1_000``) and a zero denominator are
rejected with :class:`ValueError`.
"""

import math
import re
from fractions import Fraction

from flint import fmpq, fmpz

__all__ = ["parse_rational", "format_rational", "exact_from_float", "isqrt",
           "MAX_EXPONENT", "MAX_DIGITS", "TooManyDigits"]

# A bound on |exponent| in scientific notation: ``1e999999999`` is a valid-looking
# string whose exact value has a billion digits.  Rejecting it is honest; trying to
# build it would hang.
MAX_EXPONENT = 100_000

# A bound on the digits of one number (numerator and denominator together): the exact
# claims spend on an entry time and memory that grow with its size (a 1,000,000-digit
# entry of a 2 x 2 matrix takes 15 s in lemma 5.3, 200,000 digits 2 s); beyond this the
# entry is refused as it is read, before any of that work (docs/limits.md).
MAX_DIGITS = 1_000_000

_INTEGER = re.compile(r"(?P<sign>[+-]?)(?P<digits>[0-9]+)", re.ASCII)
_DECIMAL = re.compile(
    r"(?P<sign>[+-]?)"
    r"(?:(?P<int>[0-9]+)\.(?P<frac>[0-9]*)|\.(?P<frac_only>[0-9]+)|(?P<int_only>[0-9]+))"
    r"(?:[eE](?P<exp>[+-]?[0-9]+))?",
    re.ASCII,
)
_FRACTION = re.compile(r"(?P<sign>[+-]?)(?P<num>[0-9]+)/(?P<den>[0-9]+)", re.ASCII)
_NON_FINITE = re.compile(r"[+-]?(nan|inf|infinity)", re.ASCII | re.IGNORECASE)


def _signed(sign: str, magnitude: fmpz) -> fmpz:
    return -magnitude if sign == "-" else magnitude


class TooManyDigits(ValueError):
    """A number of more than :data:`MAX_DIGITS` digits."""


def _check_digits(count: int, shown: str) -> None:
    if count > MAX_DIGITS:
        raise TooManyDigits(f"a number of {count:,} digits (limit {MAX_DIGITS:,}): {shown}")


def _parse_fraction(match: re.Match, shown: str) -> fmpq:
    _check_digits(len(match["num"]) + len(match["den"]), shown)
    den = fmpz(match["den"])
    if den == 0:
        raise ValueError(f"zero denominator: {shown}")
    return fmpq(_signed(match["sign"], fmpz(match["num"])), den)


def _exponent(text: str, shown: str) -> int:
    """The exponent written as ``text`` (signed digits), within +-MAX_EXPONENT."""
    sign = -1 if text.startswith("-") else 1
    # Leading zeros are stripped before int(): Python refuses very long digit strings.
    digits = text.lstrip("+-").lstrip("0") or "0"
    if len(digits) > len(str(MAX_EXPONENT)) or int(digits) > MAX_EXPONENT:
        raise ValueError(f"exponent too large (limit {MAX_EXPONENT}): {shown}")
    return sign * int(digits)


def _parse_decimal(match: re.Match, shown: str) -> fmpq:
    # value = (integer digits followed by fraction digits) * 10^(exp - #fraction digits)
    int_part = match["int"] or match["int_only"] or ""
    frac_part = match["frac"] or match["frac_only"] or ""
    _check_digits(len(int_part) + len(frac_part), shown)
    exponent = _exponent(match["exp"] or "0", shown)
    # fmpz parses long digit strings directly, avoiding Python's int-string limit.
    mantissa = _signed(match["sign"], fmpz((int_part + frac_part) or "0"))
    shift = exponent - len(frac_part)
    if shift >= 0:
        return fmpq(mantissa * fmpz(10) ** shift)
    return fmpq(mantissa, fmpz(10) ** (-shift))


def _shown(text: str) -> str:
    """The offending text for an error message: quoted, escaped, and not too long."""
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def parse_rational(text: str) -> fmpq:
    """The exact rational written as ``text``; :class:`ValueError` if it is not one."""
    if not isinstance(text, str):
        raise ValueError(f"not a number: {_shown(str(text))}")
    stripped = text.strip()
    shown = _shown(stripped)
    if not stripped:
        raise ValueError("not a number: empty text")
    if _NON_FINITE.fullmatch(stripped):
        raise ValueError(f"not a finite number: {shown}")
    if match := _INTEGER.fullmatch(stripped):
        _check_digits(len(match["digits"]), shown)
        return fmpq(_signed(match["sign"], fmpz(match["digits"])))
    if match := _FRACTION.fullmatch(stripped):
        return _parse_fraction(match, shown)
    if match := _DECIMAL.fullmatch(stripped):
        return _parse_decimal(match, shown)
    raise ValueError(f"not a number: {shown}")


def _numerator_denominator(q) -> tuple:
    if isinstance(q, bool):
        raise TypeError("format_rational: a bool is not a number")
    if isinstance(q, fmpq):
        return fmpz(q.p), fmpz(q.q)
    if isinstance(q, (int, fmpz)):
        return fmpz(q), fmpz(1)
    if isinstance(q, Fraction):
        return fmpz(q.numerator), fmpz(q.denominator)
    raise TypeError(f"format_rational: not an exact rational: {type(q).__name__}")


def format_rational(q) -> str:
    """``"p/q"`` in lowest terms with q > 0, or ``"p"`` when q = 1.

    Accepts fmpq, fmpz, int and Fraction; the output is read back exactly by
    :func:`parse_rational`.
    """
    num, den = _numerator_denominator(q)
    # str(fmpz) has no digit limit, unlike str(int) in Python >= 3.11.
    return str(num) if den == 1 else f"{num}/{den}"


def exact_from_float(x) -> fmpq:
    """The exact value of a finite binary float (``0.1`` gives 3602879701896397/2^55).

    Works for Python floats and numpy floating scalars of any width, since both
    expose ``as_integer_ratio``.  NaN and infinities raise :class:`ValueError`.
    """
    if isinstance(x, float) and not math.isfinite(x):
        raise ValueError(f"not a finite number: {x!r}")
    try:
        num, den = x.as_integer_ratio()
    except (OverflowError, ValueError):
        raise ValueError(f"not a finite number: {x!r}") from None
    except AttributeError:
        raise ValueError(f"not a float: {x!r}") from None
    return fmpq(fmpz(num), fmpz(den))


def isqrt(n: int) -> int:
    """``math.isqrt(n)``, through FLINT for large ``n``: ``math.isqrt`` of a
    million-bit integer takes about a second (Python's multiplication), FLINT's a few
    milliseconds."""
    if n < 0 or n.bit_length() <= 4096:
        return math.isqrt(n)
    return int(fmpz(n).isqrt())
