"""Reading one matrix file, exactly: the formats below the checkpoint reader.

A matrix is returned as a list of rows of exact entries, each read by ``parse_entry``
(by default :func:`verify.numbers.entry.parse_entry`: an ``fmpq``, or a
:class:`~verify.numbers.sqrt_sum.SqrtSum` for a sum of square roots).  Supported formats,
chosen by the file extension (case-insensitive):

``.json``
    A list of rows, or an object whose key ``"W"`` holds a list of rows.  Entries
    are JSON numbers or strings.  Numbers are parsed from their decimal text, so
    ``0.1`` is exactly 1/10; ``NaN``/``Infinity``, booleans and ``null`` are
    rejected.  Strings are parsed with ``parse_entry``.
``.csv``, ``.txt``
    One row per line, entries separated by commas and/or whitespace.  Blank lines
    and lines starting with ``#`` are skipped.
``.npy``
    A 2-D numpy array of integers (taken exactly) or binary floats (taken as their
    exact binary value, so float 0.1 is 3602879701896397/2^55, not 1/10).

Checkpoints (``.safetensors``, an index, a directory) are read by
:mod:`verify.io.checkpoint`, which reads text heads and biases with this module;
:func:`verify.io.matrix.read_matrix` is the one entry point above both.

:func:`read_matrix_file` reads a matrix, :func:`read_vector_file` a vector (a bias, say):
a JSON list of numbers, or any of the formats above holding one row or one column.

Every problem is reported as :class:`~verify.io.errors.InputError` with a one-line
message ``"<path>: <problem>"``; rows and columns are counted from 0.
"""

import json
import os
import tokenize
from pathlib import Path
from typing import Callable

from flint import fmpq

from verify.io.errors import InputError, TooLargeError, count_text
from verify.io.files import regular_file_problem, size_problem
from verify.numbers.rational import exact_from_float, parse_rational
from verify.numbers.sqrt_sum import parse_entry as parse_exact_entry

__all__ = ["read_matrix_file", "read_vector_file", "refuse_irrational", "matrix_shape",
           "npy_header_problem",
           "NPY_HEADER_ERRORS", "PICKLE_EXTENSIONS", "pickle_advice", "MAX_TEXT_BYTES",
           "SUPPORTED_EXTENSIONS"]

SUPPORTED_EXTENSIONS = (".json", ".csv", ".txt", ".npy")

#: Extensions of PyTorch checkpoints (pickles): not read, since loading a pickle can
#: run code; :func:`pickle_advice` says how to convert them.
PICKLE_EXTENSIONS = (".pt", ".pth", ".bin", ".ckpt")


def pickle_advice(path) -> str:
    """How to convert the PyTorch checkpoint at ``path`` to ``.safetensors``, next to
    it (one line)."""
    def quoted(p) -> str:
        return "'" + _one_line(os.fspath(p)).replace("\\", "\\\\").replace("'", "\\'") + "'"

    target = Path(path).parent / "model.safetensors"
    return ("a PyTorch checkpoint (a pickle, which is not read: loading it can run code); "
            "convert it to .safetensors, e.g. python -c \"import torch; from "
            "safetensors.torch import save_file; save_file({k: v.clone().contiguous() for "
            f"k, v in torch.load({quoted(path)}, map_location='cpu', weights_only=True)"
            f".items()}}, {quoted(target)})\", or with transformers: save_pretrained(DIR) "
            "writes DIR/model.safetensors")

#: Text matrices (JSON, CSV, text) are read whole: at most this many bytes, room for
#: the 4,000,000 entries of the exact readers' limit at 50 characters each.
MAX_TEXT_BYTES = 200_000_000

ParseEntry = Callable[[str], object]


class _Problem(Exception):
    """A problem inside a file; :func:`read_matrix_file` prefixes it with the path."""


def _one_line(text) -> str:
    """``str(text)`` with line breaks escaped, so that a message stays on one line."""
    return str(text).replace("\r", "\\r").replace("\n", "\\n")


def _shown(text: str) -> str:
    """Offending text for a message: quoted, escaped (so one line), and bounded."""
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _where(i: int, j: int) -> str:
    return f"row {i}, column {j}"


def _parse_text_entry(text: str, i: int, j: int, parse_entry: ParseEntry):
    """Parse one textual entry, naming its position and text if it is bad."""
    try:
        return parse_entry(text)
    except (ValueError, ArithmeticError) as exc:
        reason = _one_line(exc) or "invalid entry"
        shown = _shown(text.strip())
        if shown not in reason:
            reason = f"{reason}: {shown}"
        raise _Problem(f"{_where(i, j)}: {reason}") from None


def matrix_shape(rows) -> tuple[int, int]:
    """``(n, d)``: the number of rows and of columns of a rectangular matrix."""
    n = len(rows)
    d = len(rows[0]) if n else 0
    for i, row in enumerate(rows):
        if len(row) != d:
            raise ValueError(f"row {i} has {len(row)} entries, expected {d}")
    return n, d


def _check_rectangular(rows: list) -> list:
    """Reject zero rows, zero columns and ragged rows; return ``rows`` unchanged."""
    if not rows:
        raise _Problem("no rows")
    d = len(rows[0])
    if d == 0:
        raise _Problem("row 0 has no entries (zero columns)")
    for i, row in enumerate(rows):
        if len(row) != d:
            raise _Problem(f"row {i} has {len(row)} entries, expected {d}")
    return rows


# --- text formats -----------------------------------------------------------


def _split_line(line: str) -> list[str]:
    """Entries of one line: separated by commas, whitespace, or both."""
    if "," not in line:
        return line.split()
    # With commas, whitespace around them is padding; an empty field is an error,
    # caught later as an empty entry, rather than silently dropped.
    return [field.strip() for field in line.split(",")]


def _parse_delimited(text: str, parse_entry: ParseEntry) -> list[list]:
    rows = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        i = len(rows)
        fields = _split_line(stripped)
        row = []
        for j, field in enumerate(fields):
            if not field:
                raise _Problem(f"{_where(i, j)}: empty entry")
            row.append(_parse_text_entry(field, i, j, parse_entry))
        rows.append(row)
    return _check_rectangular(rows)


# --- JSON -------------------------------------------------------------------


class _JsonNumber:
    """The source text of a JSON number, kept so that it is never rounded to a float."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


class _JsonConstant:
    """``NaN``, ``Infinity`` or ``-Infinity``: accepted by Python's json, never by us."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


def _load_json(text: str):
    try:
        return json.loads(
            text,
            parse_float=_JsonNumber,
            parse_int=_JsonNumber,
            parse_constant=_JsonConstant,
        )
    except json.JSONDecodeError as exc:
        raise _Problem(f"invalid JSON: {_one_line(exc)}") from None
    except RecursionError:
        raise _Problem("invalid JSON: nested too deeply") from None


def _json_entry(value, i: int, j: int, parse_entry: ParseEntry):
    if isinstance(value, _JsonNumber):
        try:
            return parse_rational(value.text)
        except ValueError as exc:
            raise _Problem(f"{_where(i, j)}: {_one_line(exc)}") from None
    if isinstance(value, str):
        return _parse_text_entry(value, i, j, parse_entry)
    if isinstance(value, _JsonConstant):
        raise _Problem(f"{_where(i, j)}: not a finite number: {value.text}")
    if isinstance(value, bool):
        raise _Problem(f"{_where(i, j)}: a boolean is not a number: {json.dumps(value)}")
    if value is None:
        raise _Problem(f"{_where(i, j)}: null is not a number")
    if isinstance(value, list):
        raise _Problem(f"{_where(i, j)}: nested deeper than 2 levels")
    if isinstance(value, dict):
        raise _Problem(f"{_where(i, j)}: an object is not a number")
    raise _Problem(f"{_where(i, j)}: not a number")  # unreachable for JSON input


def _json_rows(document) -> list:
    """The list of rows in a JSON document: the document itself, or its ``"W"``."""
    if isinstance(document, dict):
        if "W" not in document:
            raise _Problem('JSON object has no key "W"')
        document = document["W"]
    if not isinstance(document, list):
        raise _Problem("expected a list of rows")
    for i, row in enumerate(document):
        if not isinstance(row, list):
            raise _Problem(f"row {i} is not a list (expected a list of rows)")
    return document


def _parse_json(text: str, parse_entry: ParseEntry, *, vector: bool = False) -> list[list]:
    document = _load_json(text)
    if vector and isinstance(document, list) and not any(isinstance(v, list)
                                                         for v in document):
        document = [document]  # a flat list of numbers: one row
    rows = _json_rows(document)
    _check_rectangular(rows)
    return [
        [_json_entry(value, i, j, parse_entry) for j, value in enumerate(row)]
        for i, row in enumerate(rows)
    ]


# --- numpy ------------------------------------------------------------------


#: What numpy's reader of ``.npy`` headers raises for a damaged header: it parses the
#: header's Python literal with ``tokenize`` and ``ast``.
NPY_HEADER_ERRORS = (ValueError, EOFError, SyntaxError, TypeError, RecursionError,
                     tokenize.TokenError)


def _npy_header(path: Path) -> tuple[tuple, object, int]:
    """``(shape, dtype, data offset)`` from a ``.npy`` header, before any array exists
    (``ValueError``/``EOFError`` for a damaged one)."""
    import numpy

    fmt = numpy.lib.format
    with path.open("rb") as fh:
        version = fmt.read_magic(fh)
        if version not in ((1, 0), (2, 0), (3, 0)):
            raise ValueError(f"unsupported format version {version}")
        # Versions 2.0 and 3.0 share the header layout (3.0 allows UTF-8 names).
        read = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
        shape, _, dtype = read(fh)
        return shape, dtype, fh.tell()


def npy_header_problem(path) -> str | None:
    """Why the ``.npy`` file at ``path`` cannot hold the array its header declares, or
    None: checked before numpy maps or allocates it (a header declaring 10^19 x 10^19
    entries made numpy fail with MemoryError or OverflowError)."""
    from math import prod

    path = Path(path)
    try:
        shape, dtype, offset = _npy_header(path)
    except NPY_HEADER_ERRORS as exc:
        return f"not a valid .npy file: {_one_line(exc) or type(exc).__name__}"
    if not all(type(s) is int and s >= 0 for s in shape):
        return "not a valid .npy file: the shape is not a list of sizes"
    if offset + prod(shape) * dtype.itemsize > path.stat().st_size:
        return "not a valid .npy file: the file ends inside its data"
    if any(s >= 2 ** 63 for s in shape):  # an empty array with a huge side
        return "not a valid .npy file: a size of the shape exceeds 64 bits"
    return None


def _check_npy_header(path: Path, max_entries: int) -> None:
    """Refuse a ``.npy`` file whose header declares more than ``max_entries`` entries
    (what the exact readers take), or more data than the file holds, before numpy
    allocates the array."""
    from math import prod

    problem = npy_header_problem(path)
    if problem is not None:
        raise _Problem(problem)
    shape, _, _ = _npy_header(path)
    size = prod(shape)
    if size > max_entries:
        shown = " x ".join(count_text(s) for s in shape)
        raise TooLargeError(f"{_one_line(os.fspath(path))}: the array is {shown} = "
                            f"{count_text(size)} entries; reading it exactly (as rationals) "
                            f"takes at most {max_entries:,}")


def _load_npy(path: Path, max_entries: int):
    import numpy

    try:
        _check_npy_header(path, max_entries)
        loaded = numpy.load(path, allow_pickle=False)
    except NPY_HEADER_ERRORS as exc:
        raise _Problem(f"not a valid .npy file: {_one_line(exc)}") from None
    if not isinstance(loaded, numpy.ndarray):
        # numpy.load also opens .npz archives; a matrix file holds one array.
        close = getattr(loaded, "close", None)
        if close is not None:
            close()
        raise _Problem("not a .npy array (an .npz archive?)")
    return loaded


def _parse_npy(path: Path, max_entries: int) -> list[list]:
    import numpy

    array = _load_npy(path, max_entries)
    if array.ndim != 2:
        raise _Problem(f"expected a 2-D array, got {array.ndim}-D with shape {array.shape}")
    n, d = array.shape
    if n == 0:
        raise _Problem("no rows")
    if d == 0:
        raise _Problem("row 0 has no entries (zero columns)")
    kind = array.dtype.kind
    if kind in "iu":
        # tolist() gives Python ints: exact at any width.
        return [[fmpq(v) for v in row] for row in array.tolist()]
    if kind == "f":
        bad = numpy.argwhere(~numpy.isfinite(array))
        if len(bad):
            i, j = (int(k) for k in bad[0])
            raise _Problem(f"{_where(i, j)}: not a finite number: {array[i, j]!r}")
        # Element-wise on numpy scalars, never through tolist(): long doubles must
        # not be rounded to Python floats.
        return [[exact_from_float(array[i, j]) for j in range(d)] for i in range(n)]
    raise _Problem(f"unsupported dtype {array.dtype} (need integers or floats)")


# --- entry point ------------------------------------------------------------


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        # utf-8-sig: tolerate the byte-order mark some editors write.
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _Problem(f"not UTF-8 text (byte {exc.start})") from None


def _read(path: Path, suffix: str, parse_entry: ParseEntry, max_entries: int, *,
          vector: bool = False) -> list[list]:
    problem = regular_file_problem(path)
    if problem is not None:
        raise _Problem(problem)
    if path.stat().st_size == 0:
        raise _Problem("empty file")
    if suffix == ".npy":
        return _parse_npy(path, max_entries)
    problem = size_problem(path, MAX_TEXT_BYTES, "a text matrix")
    if problem is not None:
        raise TooLargeError(f"{_one_line(os.fspath(path))}: {problem}")
    text = _read_text(path)
    if not text.strip():
        raise _Problem("empty file")
    if suffix == ".json":
        return _parse_json(text, parse_entry, vector=vector)
    return _parse_delimited(text, parse_entry)


def read_matrix_file(path, *, max_entries: int, parse_entry: ParseEntry = parse_exact_entry,
                     vector: bool = False) -> list[list]:
    """The rows of the matrix stored at ``path`` in one of the formats of this module
    (not a checkpoint: :func:`verify.io.matrix.read_matrix` reads every kind).

    ``parse_entry`` turns one textual entry into a number and raises
    :class:`ValueError` on bad text; JSON numbers and ``.npy`` values are always
    exact rationals.  A ``.npy`` array with more than ``max_entries`` entries is
    refused (:class:`~verify.io.errors.TooLargeError`) before it is read.  With
    ``vector``, a flat JSON list is one row.  Any problem raises :class:`InputError`
    ``"<path>: <problem>"``.
    """
    shown_path = _one_line(os.fspath(path))
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        if not path.exists() and suffix not in SUPPORTED_EXTENSIONS:
            raise _Problem("does not exist (no such file or directory)")
        if suffix in PICKLE_EXTENSIONS:
            raise _Problem(pickle_advice(path))
        if suffix not in SUPPORTED_EXTENSIONS:
            raise _Problem(
                f"unknown extension {suffix or '(none)'!s}; "
                f"expected one of {', '.join(SUPPORTED_EXTENSIONS)}"
                + ("" if vector else " or a checkpoint (.safetensors, "
                   "*.safetensors.index.json, a directory)")
            )
        return _read(path, suffix, parse_entry, max_entries, vector=vector)
    except _Problem as problem:
        raise InputError(f"{shown_path}: {problem}") from None
    except PermissionError:
        raise InputError(f"{shown_path}: cannot read: permission denied") from None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InputError(f"{shown_path}: cannot read: {_one_line(reason)}") from None


def read_vector_file(path, *, max_entries: int,
                     parse_entry: ParseEntry = parse_exact_entry) -> list:
    """The entries of the vector stored at ``path``: a JSON list of numbers, or a
    text or ``.npy`` matrix with one row or one column.  Exact, as
    :func:`read_matrix_file`."""
    rows = read_matrix_file(path, max_entries=max_entries, parse_entry=parse_entry,
                            vector=True)
    if len(rows) == 1:
        return rows[0]
    if len(rows[0]) == 1:
        return [row[0] for row in rows]
    raise InputError(f"{_one_line(os.fspath(path))}: expected a vector (one row or one "
                     f"column), got {len(rows)} x {len(rows[0])}")


def refuse_irrational(entries, path, needs: str) -> None:
    """Refuse, in one line naming the first, an irrational entry (a
    :class:`~verify.numbers.sqrt_sum.SqrtSum` that the entry parser did not reduce to a
    rational) of ``entries``: rows of a matrix, or the entries of a vector.  ``needs``
    names what takes rational entries only: ``"<path>: row 1, column 0: 1 - sqrt(2)/2
    is irrational; pattern needs rational entries"``."""
    from verify.numbers.sqrt_sum import SqrtSum

    for i, row in enumerate(entries):
        cells = row if isinstance(row, list) else [row]
        for j, entry in enumerate(cells):
            if isinstance(entry, SqrtSum):
                where = _where(i, j) if isinstance(row, list) else f"entry {i}"
                raise InputError(f"{_one_line(os.fspath(path))}: {where}: "
                                 f"{_shown_entry(entry)} is irrational; {needs} needs "
                                 "rational entries")


def _shown_entry(entry) -> str:
    """An exact entry for a message, bounded like the text of a bad entry."""
    text = str(entry)
    return text if len(text) <= 60 else text[:57] + "..."
