"""Errors that reach the user as one line on stderr (exit code 2), never a traceback."""


class VerifyError(Exception):
    """Base class: the message is complete and fits on one line."""

    exit_code = 2


class InputError(VerifyError):
    """Bad input: a missing or malformed file, a bad entry, an impossible size."""


class TooLargeError(VerifyError):
    """The requested computation would not finish in reasonable time or memory."""
