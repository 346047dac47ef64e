"""Independent checker for streamed ranking-pattern certificates,
``verify-certificate-stream/1``: millions of cells in bounded memory.

Like :mod:`verify.checker.core` (whose checks of numbers and multipliers it reuses),
this module imports nothing but the standard library and trusts nothing the writer
says. The format and the proof are in ``docs/certificates.md``, section "Streamed
ranking-pattern certificates".

Mathematics
-----------
For ``W`` (rows ``v_0 … v_{n-1}``, or the rows of ``[1 | W]``) the ranking pattern
``R(W)`` is the sign pattern of ``M = B_n V``, rows ``v_i - v_j`` for the pairs ``i < j``.
A cell is a ranking ``σ`` (labels from the highest logit down). The file lists cells
with witnesses and refuted sign vectors with Gordan multipliers, as the JSON
certificate does; what changes is which flips the checker has to look at.

1. **Witnesses.** A listed ranking ``σ`` with the point ``z``: the logits ``v_i · z``
   strictly decrease along ``σ``; since ``σ`` is a strict total order, this is
   ``sign(M z) = σ``'s sign vector.
2. **Refutations.** ``y >= 0``, not all zero, ``Σ_r y_r s_r M_r = 0``, exactly as in the
   JSON certificate (:func:`verify.checker.core.check_multipliers`).
3. **Completeness: only the adjacent flips.** Let ``C`` be a class of parallel rows and
   ``τ`` the flip of ``σ`` at ``C``.

   * If ``τ`` is not a strict total order, it is not a cell: a tournament without a
     3-cycle is transitive, and a 3-cycle ``a → b → c → a`` of ``τ`` gives the rows
     ``v_a - v_b``, ``v_b - v_c``, ``v_c - v_a`` (with ``τ``'s signs), which sum to zero:
     Gordan multipliers ``1, 1, 1`` that need neither storing nor searching.
   * If ``τ`` is a strict total order, ``C`` contains a pair that is adjacent in
     ``σ``: two different orders differ on some pair adjacent in the first one
     (otherwise transitivity would make them equal), and ``τ`` differs from ``σ``
     exactly on ``C``.

   So only the classes of the ``n - 1`` adjacent pairs ``(σ_p, σ_{p+1})`` need work:
   the checker flips ``σ`` at each of them, and when the flip is a strict total order it
   must be listed or refuted. (For a class of one pair the flip is ``σ`` with two
   neighbours swapped.) With part 1 and 2 this is the completeness argument of the JSON
   certificate: every flip of a listed cell at a class is listed or refuted.
4. **Bounded memory.** Cells and refutations are sorted by their sign strings. The
   checker reads the file once, line by line; the sign vectors to look up are written
   to sorted runs on disk (at most :data:`RUN` in memory), and at the end merged with
   the sorted listed and refuted vectors (:func:`heapq.merge`), so memory does not grow
   with the number of cells.

Example
-------
``python -m verify check FILE`` recognises the format by the first bytes of the file
(:data:`HEAD`); :func:`check_stream_file` checks one file and returns a summary such as
``'ranking pattern, 14 cells, complete (streamed; 5 refutations)'``.
"""

import heapq
import json
import os
import re
import tempfile
from fractions import Fraction
from itertools import combinations
from math import lcm

from verify.checker.core import (CertificateError, UnknownFormat, check_multipliers,
                                 digits_to_int, input_matrix, json_index, json_list,
                                 json_object, parallel_classes, parse_json, shown_json,
                                 shown_number)

__all__ = ["FORMAT", "HEAD", "RUN", "check_stream_file"]

FORMAT = "verify-certificate-stream/1"

#: Every streamed certificate begins with these bytes.
HEAD = b'{"format":"verify-certificate-stream/1"'

#: Sign vectors to look up that are sorted in memory at a time (then written to a run).
RUN = 1 << 17

#: Runs merged at once; more are first merged into one run.
FAN_IN = 32

#: Records read from a run at a time.
CHUNK = 1 << 12

#: Bits of a run record that hold the number of the cell a flip comes from.
_CELL_BITS = 40

_INTEGER = re.compile(r"-?[0-9]+", re.ASCII)
_BITS = str.maketrans("+-", "01")


class Integers:
    """Numbers of the streamed format: integers written as JSON strings (``"-3"``)."""

    @staticmethod
    def parse(value, where: str) -> int:
        if not isinstance(value, str) or _INTEGER.fullmatch(value) is None:
            raise CertificateError(f'{where}: expected an integer written as a string '
                                   f'such as "-3", got {shown_json(value)}')
        digits = value.lstrip("-")
        magnitude = int(digits) if len(digits) < 4000 else digits_to_int(digits)
        return -magnitude if value[0] == "-" else magnitude

    @staticmethod
    def sign(x) -> int:
        return (x > 0) - (x < 0)


INTEGERS = Integers()


# --- sorted runs on disk ---------------------------------------------------------------

def _records(path: str, width: int):
    """The integers of a run file (``width`` bytes each, big-endian), in file order."""
    with open(path, "rb") as handle:
        while True:
            chunk = handle.read(CHUNK * width)
            if not chunk:
                return
            for start in range(0, len(chunk), width):
                yield int.from_bytes(chunk[start:start + width], "big")


class _SortedFile:
    """Integers appended in increasing order, written ``width`` bytes each."""

    def __init__(self, path: str, width: int):
        self.path, self.width, self.buffer = path, width, []
        self.handle = open(path, "wb")

    def append(self, value: int) -> None:
        self.buffer.append(value)
        if len(self.buffer) >= RUN:
            self.flush()

    def flush(self) -> None:
        self.handle.write(b"".join(v.to_bytes(self.width, "big") for v in self.buffer))
        self.buffer = []

    def close(self) -> None:
        self.flush()
        self.handle.close()

    def __iter__(self):
        return _records(self.path, self.width)


class _ExternalSort:
    """Integers added in any order, given back sorted, with at most :data:`RUN` in memory
    and at most :data:`FAN_IN` runs open at a time (``FAN_IN >= 2``): runs are merged in
    levels, ``FAN_IN`` runs of one level into one run of the next, and at the end, while
    more than ``FAN_IN`` runs are left, in passes of at most ``FAN_IN`` runs."""

    def __init__(self, directory: str, width: int):
        self.directory, self.width, self.buffer = directory, width, []
        self.levels, self.written = [[]], 0

    def add(self, value: int) -> None:
        self.buffer.append(value)
        if len(self.buffer) >= RUN:
            self._spill()

    def _write_run(self, values) -> str:
        path = os.path.join(self.directory, f"run{self.written}")
        self.written += 1
        with open(path, "wb") as handle:
            batch = []
            for v in values:
                batch.append(v.to_bytes(self.width, "big"))
                if len(batch) >= RUN:
                    handle.write(b"".join(batch))
                    batch = []
            handle.write(b"".join(batch))
        return path

    def _merge(self, paths):
        return heapq.merge(*(_records(p, self.width) for p in paths))

    def _spill(self) -> None:
        self.buffer.sort()
        values, self.buffer = self.buffer, []
        self.levels[0].append(self._write_run(values))
        level = 0
        while len(self.levels[level]) >= FAN_IN:
            full, self.levels[level] = self.levels[level], []
            if level + 1 == len(self.levels):
                self.levels.append([])
            self.levels[level + 1].append(self._write_run(self._merge(full)))
            for path in full:
                os.remove(path)
            level += 1

    def __iter__(self):
        if self.buffer:
            self._spill()
        runs = [path for level in self.levels for path in level]
        # Each level holds fewer than FAN_IN runs, but all levels together may hold more:
        # merge in passes of at most FAN_IN runs, the lowest levels (the shortest runs)
        # first, each pass only as wide as needed to leave FAN_IN runs for the last merge.
        while len(runs) > FAN_IN:
            width = min(FAN_IN, len(runs) - FAN_IN + 1)
            head, runs = runs[:width], runs[width:]
            runs.append(self._write_run(self._merge(head)))
            for path in head:
                os.remove(path)
        return self._merge(runs)


# --- the certificate -------------------------------------------------------------------

class _Input:
    """What the header fixes: the integer rows of ``V``, ``M = B_n V``, its classes."""

    def __init__(self, header):
        json_object(header, "line 1", ("format", "claim", "input"))
        if header["format"] != FORMAT:
            raise UnknownFormat(f"line 1: unknown format {shown_json(header['format'])}")
        if header["claim"] != "ranking pattern":
            raise UnknownFormat(f"line 1: unknown claim {shown_json(header['claim'])} for "
                                f"{FORMAT} (known: 'ranking pattern')")
        document = json_object(header["input"], "input", ("W", "affine"))
        rows = input_matrix(document["W"])
        if not isinstance(document["affine"], bool):
            raise CertificateError(f"input.affine: expected true or false, "
                                   f"got {shown_json(document['affine'])}")
        if document["affine"]:
            rows = [[Fraction(1)] + row for row in rows]
        # A positive common factor changes no sign of M z and no sum being zero.
        scale = lcm(*(a.denominator for row in rows for a in row))
        self.V = [[int(a * scale) for a in row] for row in rows]
        self.n, self.k = len(self.V), len(self.V[0])
        self.pairs = list(combinations(range(self.n), 2))
        self.N = len(self.pairs)
        self.M = [[a - b for a, b in zip(self.V[i], self.V[j])] for i, j in self.pairs]
        self.pair_row = {}
        for r, (i, j) in enumerate(self.pairs):
            self.pair_row[i, j] = self.pair_row[j, i] = r
        self.class_of, self.classes = parallel_classes(self.M)
        # Sign vectors as integers: bit N-1-r is 1 when row r has '-', so that the order
        # of the integers is the ASCII order of the strings.
        self.masks = [sum(1 << (self.N - 1 - r) for r in rows) for rows in self.classes]
        self.width = max(1, (self.N + 7) // 8)

    def key(self, signs: str) -> int:
        return int(signs.translate(_BITS), 2) if signs else 0

    def signs_of(self, key: int) -> str:
        return format(key, f"0{self.N}b").translate(str.maketrans("01", "+-")) \
            if self.N else ""

    def sign_string(self, value, where: str) -> str:
        if not isinstance(value, str) or len(value) != self.N or value.strip("+-"):
            raise CertificateError(f"{where}: expected a string of {self.N} '+'/'-', "
                                   f"got {shown_json(value)}")
        return value

    def is_order(self, key: int) -> bool:
        """Whether the sign vector ``key`` is a strict total order (no 3-cycle)."""
        wins = [0] * self.n
        for (i, j), bit in zip(self.pairs, format(key, f"0{self.N}b")):
            wins[i if bit == "0" else j] += 1
        return sorted(wins) == list(range(self.n))


def _check_cell(cell, c: int, I: _Input) -> tuple[int, list]:
    """Checks 1 and the flips of check 3 for cell ``c``: its key and the keys to look up."""
    where = f"cell {c}"
    json_object(cell, where, ("signs", "witness", "ranking"))
    signs = I.sign_string(cell["signs"], f"{where}: signs")
    ranking = json_list(cell["ranking"], f"{where}: ranking", I.n)
    position = [None] * I.n
    for p, label in enumerate(ranking):
        json_index(label, f"{where}: ranking", I.n)
        position[label] = p
    if None in position:
        raise CertificateError(f"{where}: ranking is not an ordering of the labels "
                               f"0..{I.n - 1}")
    encoded = "".join(["+" if position[i] < position[j] else "-" for i, j in I.pairs])
    if encoded != signs:
        raise CertificateError(f"{where}: ranking {' > '.join(map(str, ranking))} has signs "
                               f"{encoded}, listed {signs}")
    z = [INTEGERS.parse(x, f"{where}: witness[{j}]")
         for j, x in enumerate(json_list(cell["witness"], f"{where}: witness", I.k))]
    logits = [sum(a * b for a, b in zip(row, z)) for row in I.V]
    for p in range(I.n - 1):
        if not logits[ranking[p]] > logits[ranking[p + 1]]:
            raise CertificateError(f"{where}: witness gives label {ranking[p]} the logit "
                                   f"{shown_number(logits[ranking[p]])}, not above label "
                                   f"{ranking[p + 1]}'s {shown_number(logits[ranking[p + 1]])} "
                                   "(scaled to integers)")
    key = I.key(signs)
    lookups, seen = [], set()
    for p in range(I.n - 1):
        c_ = I.class_of[I.pair_row[ranking[p], ranking[p + 1]]]
        if c_ in seen:
            continue
        seen.add(c_)
        flipped = key ^ I.masks[c_]
        # A class of one adjacent pair swaps two neighbours: always an order.
        if len(I.classes[c_]) == 1 or I.is_order(flipped):
            lookups.append(flipped)
    return key, lookups


def _lines(handle):
    """``(number, parsed line)``; every line, the last included, must end in a newline:
    a file without its final newline may have been cut short."""
    for number, line in enumerate(handle, start=1):
        if not line.endswith(b"\n"):
            raise CertificateError(f"line {number}: the file does not end with a newline "
                                   "(cut short?)")
        try:
            yield number, parse_json(line)
        except (ValueError, RecursionError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise UnknownFormat(f"line {number}: not JSON: {reason}") from None


def check_stream_file(path) -> str:
    """Check the streamed certificate at ``path``; return a one-line summary.

    Raises :class:`~verify.checker.core.CertificateError` for a failed check,
    :class:`~verify.checker.core.UnknownFormat` for a file that is not this format, and
    ``OSError`` if it cannot be read.
    """
    with open(path, "rb") as handle, \
            tempfile.TemporaryDirectory(prefix="verify-check-") as spool:
        lines = _lines(handle)
        number, header = next(lines, (1, None))
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise UnknownFormat(f"line 1: not a {FORMAT} header")
        I = _Input(header)
        cells = _SortedFile(os.path.join(spool, "cells"), I.width)
        refuted = _SortedFile(os.path.join(spool, "refuted"), I.width)
        lookups = _ExternalSort(spool, I.width + _CELL_BITS // 8)
        count = refutations = 0
        previous, trailer = -1, None
        for number, obj in lines:
            where = f"line {number}"
            if trailer is not None:
                raise CertificateError(f"{where}: nothing may follow the line with the "
                                       "assertion")
            if not isinstance(obj, dict):
                raise CertificateError(f"{where}: expected an object, got {shown_json(obj)}")
            if "witness" in obj:  # a cell
                if refutations:
                    raise CertificateError(f"{where}: a cell after the refutations (cells "
                                           "come first)")
                if count >= 1 << _CELL_BITS:
                    raise CertificateError(f"{where}: more than 2^{_CELL_BITS} cells")
                key, flips = _check_cell(obj, count, I)
                if key <= previous:
                    raise CertificateError(f"{where}: cell {count} ({obj['signs']}) is not "
                                           "after the previous cell in ASCII order (the "
                                           "cells must be sorted, without repeats)")
                previous = key
                cells.append(key)
                for flipped in flips:
                    lookups.add(flipped << _CELL_BITS | count)
                count += 1
            elif "multipliers" in obj:  # a refutation
                at = f"{where}: refutation {refutations}"
                json_object(obj, at, ("signs", "multipliers"))
                signs = I.sign_string(obj["signs"], f"{at}: signs")
                key = I.key(signs)
                if refutations and key <= previous:
                    raise CertificateError(f"{at} ({signs}) is not after the previous "
                                           "refutation in ASCII order (sorted, without "
                                           "repeats)")
                previous = key
                check_multipliers(I.M, signs, obj["multipliers"], INTEGERS,
                                  f"{at} ({signs})", I.k)
                refuted.append(key)
                refutations += 1
            else:
                trailer = obj
        if trailer is None:
            raise CertificateError("the last line (the assertion) is missing")
        cells.close()
        refuted.close()
        summary = _check_trailer(trailer, I, count, refutations)
        if count:
            _check_lookups(lookups, iter(heapq.merge(iter(cells), iter(refuted))), I)
        return summary


def _check_trailer(trailer, I: _Input, count: int, refutations: int) -> str:
    if "evidence" in trailer:
        json_object(trailer, "last line", ("assertion", "evidence"))
        json_object(trailer["evidence"], "evidence", ("zero_row",))
        r = json_index(trailer["evidence"]["zero_row"], "evidence.zero_row", I.N)
        if any(I.M[r]):
            raise CertificateError(f"evidence.zero_row: row {r} of M is not zero")
        if count or refutations:
            raise CertificateError(f"row {r} of M is zero, so the pattern is empty, but "
                                   f"{count} cells and {refutations} refutations are listed")
    else:
        json_object(trailer, "last line", ("assertion",))
    json_object(trailer["assertion"], "assertion", ("count",))
    if type(trailer["assertion"]["count"]) is not int or \
            trailer["assertion"]["count"] != count:
        raise CertificateError(f"assertion.count: {shown_json(trailer['assertion']['count'])}"
                               f" is not the number of cells ({count})")
    if not count and "evidence" not in trailer:
        raise CertificateError("an empty pattern needs the evidence zero_row")
    if not count:
        i, j = I.pairs[trailer["evidence"]["zero_row"]]
        return f"ranking pattern, 0 cells, empty: labels {i} and {j} have equal rows"
    return (f"ranking pattern, {count} cell{'s' if count != 1 else ''}, complete "
            f"(streamed; {refutations} refutation{'s' if refutations != 1 else ''})")


def _check_lookups(lookups, available, I: _Input) -> None:
    """Every flip to look up is listed or refuted: a merge of two sorted streams."""
    have = next(available, None)
    low = (1 << _CELL_BITS) - 1
    for record in lookups:
        flipped = record >> _CELL_BITS
        while have is not None and have < flipped:
            have = next(available, None)
        if have != flipped:
            raise CertificateError(f"incomplete: cell {record & low} flipped at an adjacent "
                                   f"pair gives {I.signs_of(flipped)}, which is neither "
                                   "listed nor refuted")
