"""Errors that reach the user as one line on stderr (exit code 2), never a traceback."""


class VerifyError(Exception):
    """Base class: the message is complete and fits on one line."""

    exit_code = 2


class InputError(VerifyError):
    """Bad input: a missing or malformed file, a bad entry, an impossible size."""


class TooLargeError(VerifyError):
    """The requested computation would not finish in reasonable time or memory."""


def count_text(count: int) -> str:
    """An integer for a one-line message: with thousands separators up to 15 digits,
    else by its power of ten, ``"more than 10^4,300"`` (Python refuses to write out
    more than 4300 digits, and nobody reads them)."""
    size = abs(count)
    if size < 10 ** 15:
        return f"{count:,}"
    exponent = (size.bit_length() - 1) * 30103 // 100000  # log10(2) ~ 0.30103, low
    while 10 ** (exponent + 1) <= size:
        exponent += 1
    if size == 10 ** exponent:
        return f"{'-' if count < 0 else ''}10^{exponent:,}"
    return f"{'less than -' if count < 0 else 'more than '}10^{exponent:,}"
