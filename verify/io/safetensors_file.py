"""The ``.safetensors`` format: the header of a file, validated, without the library.

The format (https://huggingface.co/docs/safetensors) is, in order:

1. ``N``: 8 bytes, an unsigned little-endian 64-bit integer, the length of the header;
2. the header: ``N`` bytes of UTF-8 JSON, an object mapping each tensor name to
   ``{"dtype": str, "shape": [int, ...], "data_offsets": [begin, end]}`` and optionally
   ``"__metadata__"`` to an object of strings;
3. the byte buffer: the tensors' data, little-endian, row-major, tensor ``t`` occupying
   bytes ``begin <= b < end`` of the buffer (offsets counted from the buffer's start).

Supported dtypes: ``F64``, ``F32``, ``F16``, ``BF16`` (the upper half of an IEEE
single), ``I64``, ``I32``, ``I16``, ``I8``, ``U32``, ``U16``, ``U8``. Floats are taken at their exact
binary value (every one of these formats widens exactly to float64, whose value is a
dyadic rational); integers exactly. The header is validated as a whole (every entry's
dtype, shape and offsets); :mod:`verify.io.checkpoint` reads the tensors' data
(:func:`verify.io.checkpoint.read_safetensors`: one 2-D tensor, exactly).

Every problem is an :class:`~verify.io.errors.InputError` with the one-line message
``"<path>: <problem>"``; rows and columns are counted from 0.

Example
-------
>>> header, start = read_header("head.safetensors")  # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
import struct
from math import prod
from pathlib import Path

from verify.io.errors import InputError
from verify.io.files import regular_file_problem

__all__ = ["DTYPES", "list_tensors", "read_header", "select_tensor"]

#: dtype name -> (numpy dtype, bytes per element); BF16 is decoded by hand.
DTYPES = {
    "F64": ("<f8", 8),
    "F32": ("<f4", 4),
    "F16": ("<f2", 2),
    "BF16": ("<u2", 2),
    "I64": ("<i8", 8),
    "I32": ("<i4", 4),
    "I16": ("<i2", 2),
    "I8": ("i1", 1),
    "U32": ("<u4", 4),
    "U16": ("<u2", 2),
    "U8": ("u1", 1),
}

#: The format caps the header at 100 MB; a larger length field means a corrupt file.
MAX_HEADER_BYTES = 100_000_000

#: Integers of the header (offsets, sizes) have at most this many digits: 2^64 has 20.
MAX_HEADER_DIGITS = 20


class _Problem(Exception):
    """A problem inside the file; the public functions prefix it with the path."""


def _shown(name) -> str:
    text = json.dumps(name, ensure_ascii=True)
    return text if len(text) <= 60 else text[:56] + '..."'


def _names(header: dict, limit: int = 5) -> str:
    names = [_shown(k) for k in header]
    more = len(names) - limit
    return ", ".join(names[:limit]) + (f", ... ({more} more)" if more > 0 else "")


def _read_header(path: Path) -> tuple[dict, int, int]:
    """``(entries, buffer_start, buffer_length)`` after validating the whole header."""
    problem = regular_file_problem(path)
    if problem is not None:
        raise _Problem(problem)
    size = path.stat().st_size
    if size == 0:
        raise _Problem("empty file")
    if size < 8:
        raise _Problem(f"bad header: {size} bytes is too short for the 8-byte header length")
    with path.open("rb") as fh:
        (length,) = struct.unpack("<Q", fh.read(8))
        if length > MAX_HEADER_BYTES or length > size - 8:
            raise _Problem(f"bad header: header length {length} exceeds the file "
                           f"({size} bytes)")
        raw = fh.read(length)
    try:
        header = json.loads(raw.decode("utf-8"), parse_int=_header_int)
    except UnicodeDecodeError as exc:
        raise _Problem(f"bad header: not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise _Problem(f"bad header: invalid JSON: {exc.msg} (char {exc.pos})") from None
    except RecursionError:
        raise _Problem("bad header: JSON nested too deeply") from None
    if not isinstance(header, dict):
        raise _Problem("bad header: the JSON header is not an object")
    header.pop("__metadata__", None)
    buffer_start = 8 + length
    buffer_length = size - buffer_start
    for name, entry in header.items():
        _check_entry(name, entry, buffer_length)
    _check_layout(header, buffer_length)
    return header, buffer_start, buffer_length


def _header_int(text: str) -> int:
    """A JSON integer of the header: offsets and sizes fit in 64 bits, so more digits
    mean a corrupt file (and ``int`` refuses more than 4300 of them)."""
    if len(text.lstrip("-")) > MAX_HEADER_DIGITS:
        raise _Problem(f"bad header: an integer of {len(text.lstrip('-')):,} digits "
                       f"(offsets and sizes have at most {MAX_HEADER_DIGITS})")
    return int(text)


def _check_layout(header: dict, buffer_length: int) -> None:
    """The tensors tile the data buffer, as the safetensors library requires: sorted by
    offset, each begins where the previous one ends, the first at 0 and the last at the
    buffer's end; so no two tensors share a byte."""
    position, previous = 0, None
    for name, entry in sorted(header.items(), key=lambda item: item[1]["data_offsets"]):
        begin, end = entry["data_offsets"]
        if begin != position:
            what = (f"overlaps tensor {_shown(previous)}" if begin < position else
                    f"leaves a gap after {_shown(previous)}" if previous is not None else
                    "does not begin the data at offset 0")
            raise _Problem(f"bad header: tensor {_shown(name)} at data_offsets [{begin}, "
                           f"{end}] {what} (the tensors must tile the data)")
        position, previous = end, name
    if position != buffer_length:
        raise _Problem(f"bad header: the tensors end at byte {position} of the data, which "
                       f"has {buffer_length} bytes (the tensors must tile the data)")


def _check_entry(name: str, entry, buffer_length: int) -> None:
    where = f"tensor {_shown(name)}"
    if not isinstance(entry, dict):
        raise _Problem(f"bad header: {where} is not an object")
    for key in ("dtype", "shape", "data_offsets"):
        if key not in entry:
            raise _Problem(f"bad header: {where} has no {key!r}")
    dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
    if not isinstance(dtype, str):
        raise _Problem(f"bad header: {where}: dtype is not a string")
    if not (isinstance(shape, list) and all(type(s) is int and s >= 0 for s in shape)):
        raise _Problem(f"bad header: {where}: shape is not a list of non-negative integers")
    if not (isinstance(offsets, list) and len(offsets) == 2
            and all(type(o) is int for o in offsets)):
        raise _Problem(f"bad header: {where}: data_offsets is not a pair of integers")
    begin, end = offsets
    if not 0 <= begin <= end <= buffer_length:
        raise _Problem(f"bad header: {where}: data_offsets [{begin}, {end}] outside the "
                       f"data ({buffer_length} bytes)")
    if dtype in DTYPES:
        expected = prod(shape) * DTYPES[dtype][1]
        if end - begin != expected:
            raise _Problem(f"bad header: {where}: {end - begin} bytes of data for shape "
                           f"{shape} of {dtype} (expected {expected})")


def _select(header: dict, tensor: str | None) -> str:
    """The name of the tensor to read: ``tensor``, or the file's only one."""
    if tensor is not None:
        if tensor not in header:
            known = _names(header) if header else "none"
            raise _Problem(f"no tensor named {_shown(tensor)} (tensors: {known})")
        return tensor
    if not header:
        raise _Problem("no tensors in the file")
    if len(header) > 1:
        raise _Problem(f"{len(header)} tensors ({_names(header)}); choose one with "
                       "--tensor NAME")
    return next(iter(header))


def _wrap(path, fn):
    shown = os.fspath(path).replace("\n", "\\n").replace("\r", "\\r")
    try:
        return fn(Path(path))
    except _Problem as problem:
        raise InputError(f"{shown}: {problem}") from None
    except PermissionError:
        raise InputError(f"{shown}: cannot read: permission denied") from None
    except OSError as exc:
        raise InputError(f"{shown}: cannot read: {exc.strerror or type(exc).__name__}") from None


def read_header(path) -> tuple[dict, int]:
    """``(entries, data_start)``: the validated header (``"__metadata__"`` removed) and
    the byte offset in the file where the tensors' data begins."""
    def run(p: Path):
        header, start, _ = _read_header(p)
        return header, start

    return _wrap(path, run)


def list_tensors(path) -> dict[str, tuple[str, list[int]]]:
    """``{name: (dtype, shape)}`` for every tensor of the file (header validated)."""
    header, _ = read_header(path)
    return {name: (e["dtype"], list(e["shape"])) for name, e in header.items()}


def select_tensor(path, header: dict, tensor: str | None) -> str:
    """The name of the tensor of the file at ``path`` (with ``header``, a mapping from
    the names of its tensors) to read: ``tensor``, or the file's only one; one-line
    :class:`InputError` otherwise."""
    return _wrap(path, lambda p: _select(header, tensor))
