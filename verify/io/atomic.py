"""Writing files atomically: a reader sees the old file or the new one, never half.

The text goes to a temporary file in the target's directory (same file system, so
the final rename is atomic), is flushed to disk, and is then renamed onto the target.
On any failure the temporary file is removed and the target is left untouched.
"""

import json
import os
import secrets
from contextlib import contextmanager
from pathlib import Path

__all__ = ["write_text_atomic", "write_bytes_atomic", "write_json_atomic", "open_atomic"]


def _create_temporary(directory: Path, name: str) -> tuple[int, Path]:
    """A new, exclusively created file next to the target: ``(fd, path)``.

    Created with os.open(O_EXCL, 0o666) rather than mkstemp so that the result
    gets the usual permissions under the process umask, not mkstemp's 0o600.
    """
    for _ in range(100):
        candidate = directory / f".{name}.{secrets.token_hex(8)}.tmp"
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        return fd, candidate
    raise FileExistsError(f"could not create a temporary file in {directory}")


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte: os.write may write fewer than asked."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable, where the platform allows it."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_text_atomic(path, text: str) -> None:
    """Replace the file at ``path`` by ``text`` (UTF-8, newlines as given), atomically."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path, data: bytes) -> None:
    """Replace the file at ``path`` by ``data``, atomically."""
    with open_atomic(path) as handle:
        _write_all(handle.fileno(), data)


@contextmanager
def open_atomic(path):
    """A binary file to write that replaces ``path`` atomically when the block ends.

    For output too large to hold in memory: write it piece by piece. If the block
    raises, the temporary file is removed and ``path`` is left untouched.
    """
    target = Path(path)
    directory = target.parent
    try:
        fd, temporary = _create_temporary(directory, target.name)
    except OSError as err:  # name the file asked for, not the temporary one
        raise OSError(err.errno, err.strerror, str(target)) from err
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    _sync_directory(directory)


def write_json_atomic(path, obj, *, indent: int | None = None) -> None:
    """Write ``obj`` as JSON (keys in insertion order, trailing newline), atomically.

    With the default ``indent=None`` the document is a single line.

    NaN and infinities are refused (``allow_nan=False``): they are not JSON and
    have no place in an exact certificate.
    """
    text = json.dumps(obj, indent=indent, sort_keys=False, allow_nan=False) + "\n"
    write_text_atomic(path, text)
