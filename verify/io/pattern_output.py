"""Writing enumerated patterns: whole JSON, JSON Lines and ``.npz``, formatted by numpy.

The blocks come from :func:`verify.arrangement.stream.sign_pattern_blocks` (``int8``
signs over the rows of ``M``, integer witnesses). Formatting one entry at a time cost
more than enumerating (1.2 CPU-s against 0.26 s for a 10 x 4 ranking pattern), so every
block is turned into bytes with whole-array operations: the sign strings are a view of
a ``uint8`` array, the numbers go through ``astype(str)`` and ``numpy.strings.add``.

Formats
-------
``json``
    ``{"kind", "n", "d", "count", "patterns", "witnesses"[, "rankings"]}`` on one line,
    byte for byte what ``json.dump(..., separators=(",", ":"))`` writes for the same
    lists (the ``pattern --json`` output). Needs the count first, so the blocks are
    kept (as compact arrays) until the end.
``jsonl``
    One line per cell, ``{"signs":"+-","witness":["1","-2"]}`` with ``"ranking":[2,0,1]``
    added for a ranking pattern; cells in the order of ``json``. Written as the blocks
    come: memory does not grow with the number of cells.
``npz``
    A numpy archive (``numpy.load``): ``signs`` (``uint8``, ``numpy.packbits`` of
    ``signs == '+'`` along each row; unpack with ``count=N``), ``witnesses`` (``int64``),
    ``rankings`` (ranking patterns), and the scalars ``kind``, ``n``, ``d``, ``N``,
    ``count``. Each array is streamed to a temporary file and copied into the archive
    at the end, so memory stays bounded here too.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from itertools import combinations

import numpy as np

from verify.io.errors import InputError
from verify.numbers.rational import format_rational

_PLUS, _MINUS, _QUOTE, _COMMA = ord("+"), ord("-"), ord('"'), ord(",")


# --- pieces ---------------------------------------------------------------------------

def sign_text(signs: np.ndarray) -> np.ndarray:
    """``uint8`` rows of '+'/'-' for rows of ``+-1``."""
    return np.where(signs > 0, _PLUS, _MINUS).astype(np.uint8)


def quoted_signs(signs: np.ndarray) -> bytes:
    """``"+-+","--+"`` : the rows as JSON strings separated by commas."""
    C, N = signs.shape
    if C == 0:
        return b""
    out = np.empty((C, N + 3), dtype=np.uint8)
    out[:, 0] = out[:, N + 1] = _QUOTE
    out[:, 1:N + 1] = sign_text(signs)
    out[:, N + 2] = _COMMA
    return out.tobytes()[:-1]


def number_strings(Z: np.ndarray) -> np.ndarray:
    """Decimal strings of an integer array (``int64`` by numpy, Python integers by str)."""
    if Z.dtype != object:
        return Z.astype(np.int64).astype(str)
    # format_rational prints through fmpz: str(int) refuses more than 4300 digits.
    return np.array([[format_rational(int(a)) for a in row] for row in Z], dtype=str).reshape(Z.shape)


def _join_rows(cells: np.ndarray, open_: str, sep: str, close: str) -> np.ndarray:
    """``open_ + c0 + sep + c1 ... + close`` for every row of a string array."""
    add = np.strings.add
    if cells.shape[1] == 0:
        return np.full(cells.shape[0], open_ + close)
    row = add(open_, cells[:, 0])
    for j in range(1, cells.shape[1]):
        row = add(add(row, sep), cells[:, j])
    return add(row, close)


def witness_json(Z: np.ndarray) -> np.ndarray:
    """``["1","-2"]`` for every row of witnesses."""
    return _join_rows(number_strings(Z), '["', '","', '"]')


def rankings_of(signs: np.ndarray, n: int) -> np.ndarray:
    """Labels from highest to lowest logit for sign rows over the pairs of ``B_n``
    (:func:`verify.arrangement.ranking_pattern.ranking_from_signs`, for a whole block).

    Raises ``ValueError`` if a row is not a strict total order.
    """
    pairs = np.array(list(combinations(range(n), 2)), dtype=np.intp).reshape(-1, 2)
    wins = np.zeros((len(signs), n), dtype=np.int64)
    plus = signs > 0
    for p, (i, j) in enumerate(pairs):
        wins[:, i] += plus[:, p]
        wins[:, j] += ~plus[:, p]
    if not (np.sort(wins, axis=1) == np.arange(n)).all():
        raise ValueError("a sign vector is not a strict total order")
    return np.argsort(-wins, axis=1, kind="stable")


def ranking_json(rankings: np.ndarray) -> np.ndarray:
    return _join_rows(rankings.astype(str), "[", ",", "]")


def _joined(rows: np.ndarray) -> bytes:
    return ",".join(rows.tolist()).encode("ascii")


# --- whole JSON -----------------------------------------------------------------------

def write_json(out, blocks, *, kind: str, n: int, d: int) -> None:
    """The ``pattern --json`` object for ``blocks`` (a list: the count comes first)."""
    count = sum(len(signs) for signs, _ in blocks)
    out.write(f'{{"kind":"{kind}","n":{n},"d":{d},"count":{count},"patterns":['
              .encode("ascii"))
    _sections(out, [quoted_signs(signs) for signs, _ in blocks])
    out.write(b'],"witnesses":[')
    _sections(out, (_joined(witness_json(Z)) for _, Z in _slices(blocks)))
    if kind == "ranking":
        out.write(b'],"rankings":[')
        _sections(out, (_joined(ranking_json(rankings_of(signs, n)))
                        for signs, _ in _slices(blocks)))
    out.write(b"]}\n")


def _slices(blocks, rows: int = 8192):
    """The non-empty blocks cut into pieces of at most ``rows`` cells: the string arrays
    of one piece take a few MB, however large the block."""
    for signs, Z in blocks:
        for start in range(0, len(signs), rows):
            yield signs[start:start + rows], Z[start:start + rows]


def _sections(out, pieces) -> None:
    first = True
    for piece in pieces:
        if not piece:
            continue
        if not first:
            out.write(b",")
        out.write(piece)
        first = False


# --- JSON Lines -----------------------------------------------------------------------

def write_jsonl(out, blocks, *, kind: str, n: int) -> int:
    """One line per cell (see the module docstring); returns the number of cells."""
    add = np.strings.add
    count = 0
    for signs, Z in _slices(blocks):
        text = sign_text(signs)
        strings = np.ascontiguousarray(text).view(f"S{signs.shape[1]}").ravel().astype(str) \
            if signs.shape[1] else np.full(len(signs), "")
        line = add(add(add('{"signs":"', strings), '","witness":'), witness_json(Z))
        if kind == "ranking":
            line = add(add(line, ',"ranking":'), ranking_json(rankings_of(signs, n)))
        out.write(("}\n".join(line.tolist()) + "}\n").encode("ascii"))
        count += len(signs)
    return count


# --- npz ------------------------------------------------------------------------------

def write_npz(path, blocks, *, kind: str, n: int, d: int, N: int, open_output) -> int:
    """The ``.npz`` archive (see the module docstring) at ``path``; returns the count.

    ``open_output(path)`` opens the destination (an atomic writer).
    """
    with tempfile.TemporaryDirectory(prefix="verify-npz-") as spool:
        parts = {name: open(os.path.join(spool, name), "wb")
                 for name in ("signs", "witnesses", "rankings")}
        count, width, dtypes = 0, None, {}
        try:
            for signs, Z in blocks:
                if len(signs) == 0:
                    continue
                if Z.dtype == object:
                    try:
                        Z = Z.astype(np.int64)
                    except OverflowError:
                        raise InputError("a witness coordinate does not fit in 64 bits: "
                                         "use --format jsonl or --json") from None
                width = Z.shape[1]
                parts["signs"].write(np.packbits(signs > 0, axis=1).tobytes())
                parts["witnesses"].write(Z.astype("<i8").tobytes())
                if kind == "ranking":
                    parts["rankings"].write(rankings_of(signs, n).astype("<i2").tobytes())
                count += len(signs)
        finally:
            for handle in parts.values():
                handle.close()
        width = width if width is not None else 0
        shapes = {"signs": ((count, (N + 7) // 8), "|u1"),
                  "witnesses": ((count, width), "<i8"),
                  "rankings": ((count, n), "<i2")}
        with open_output(path) as raw, zipfile.ZipFile(raw, "w", zipfile.ZIP_STORED,
                                                       allowZip64=True) as archive:
            for name in ("signs", "witnesses") + (("rankings",) if kind == "ranking" else ()):
                shape, dtype = shapes[name]
                with archive.open(f"{name}.npy", "w", force_zip64=True) as member, \
                        open(os.path.join(spool, name), "rb") as data:
                    np.lib.format.write_array_header_2_0(
                        member, {"descr": dtype, "fortran_order": False, "shape": shape})
                    shutil.copyfileobj(data, member, 1 << 20)
            for name, value in (("kind", np.array(kind)), ("n", np.array(n)),
                                ("d", np.array(d)), ("N", np.array(N)),
                                ("count", np.array(count))):
                with archive.open(f"{name}.npy", "w") as member:
                    np.lib.format.write_array(member, value, allow_pickle=False)
    return count
