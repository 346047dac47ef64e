"""Refusing what is not a regular file before it is opened, and files beyond a size.

A FIFO blocks its reader until a writer comes, a device such as ``/dev/zero`` never
ends, and a directory is not a matrix: every reader asks :func:`regular_file_problem`
first and refuses such a path by name (``docs/limits.md``).
"""

import os
import stat

__all__ = ["regular_file_problem", "size_problem"]

_KINDS = ((stat.S_ISDIR, "is a directory"), (stat.S_ISFIFO, "is a FIFO (named pipe)"),
          (stat.S_ISCHR, "is a character device"), (stat.S_ISBLK, "is a block device"),
          (stat.S_ISSOCK, "is a socket"))


def regular_file_problem(path) -> str | None:
    """Why ``path`` cannot be read as a regular file (``"file not found"``,
    ``"cannot read: is a FIFO (named pipe)"``, ...), or None if it can."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "file not found"
    except OSError as exc:
        return f"cannot read: {exc.strerror or type(exc).__name__}"
    if stat.S_ISREG(mode):
        return None
    kind = next((text for test, text in _KINDS if test(mode)), "is not a regular file")
    return f"cannot read: {kind}"


def size_problem(path, limit: int, what: str) -> str | None:
    """Why the regular file ``path`` is too large to read as ``what``, or None."""
    size = os.path.getsize(path)
    if size > limit:
        return (f"{size:,} bytes; {what} is read whole into memory and may have at most "
                f"{limit:,} bytes (docs/limits.md)")
    return None
