r"""The certificate of ``python -m verify analyze --certificate PATH``: all the evidence.

The analysis (:mod:`verify.analyze`) decides every label (an argmax witness, or convex
weights) and every decided pair (a tie witness, or a Motzkin certificate). This module
writes that evidence with the head itself, exactly and compactly, as a ZIP archive of
integer ``.npy`` arrays and a small JSON manifest; ``python -m verify check PATH``
re-checks it with :mod:`verify.checker.analyze`. The format is specified in
``docs/certificates.md`` (section "Claim `analyze`").

Integers
--------
Everything is stated for the integer matrix ``Z = c W`` (one rational ``c > 0``, the
manifest's ``scale``): a witness for ``Z`` is one for ``W`` (``c`` multiplies every
logit), and a linear identity between rows of ``W`` holds for ``Z``. With a bias ``b``
the lifted rows ``(w_k, b_k)`` are scaled together (``beta = c b``) and every input ``x``
is written ``(h x, h)`` with an integer ``h > 0`` clearing its denominators. Weights
``lambda_k`` (and the ``t`` of a no-tie certificate) are written over one common
denominator ``D``: ``lambda_k = m_k / D``.

Arrays whose entries all fit in int64 are stored as int64; the others (witness points
projected onto a hyperplane, weights with large denominators) as a sign per entry and
little-endian 32-bit magnitude limbs, one limb width per row.

The archive is deterministic: members in a fixed order, stored (not compressed), with
the timestamp 1980-01-01 00:00 and fixed permissions; it is written atomically.

Example
-------
>>> from verify.analyze import analyze
>>> import tempfile, os
>>> W = [[1, 0], [0, 1], [-1, 0], [0, -1], [0, 0]]
>>> path = os.path.join(tempfile.mkdtemp(), "square.cert.zip")
>>> write_analyze_certificate(path, analyze(W, cells=False), W)
>>> from verify.checker.analyze import check_file
>>> check_file(path, backend="python").split(":")[0]
'analyze, 5 labels in dimension 2'
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from fractions import Fraction
from math import gcd, lcm
from pathlib import Path

import numpy as np
from flint import fmpq

from verify.io.atomic import open_atomic
from verify.lp.evidence import Witness
from verify.numbers.int_vector import IntVector

__all__ = ["CERTIFICATE_FORMAT", "UnsupportedHead", "analyze_certificate_arrays", "encode",
           "write_analyze_certificate", "write_archive"]

CERTIFICATE_FORMAT = "verify-certificate/1"
#: The member timestamp (the earliest a ZIP archive can hold): no clock in the output.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


SQUARE_ROOTS = ("the head has entries with square roots; certificates are written for "
                "rational heads (binary floats, integers, fractions)")


class UnsupportedHead(ValueError):
    """A head whose certificate cannot be written (entries with square roots)."""


# --- exact conversions -------------------------------------------------------------------

def _fraction(x) -> Fraction:
    """An exact rational from ``int``, ``Fraction``, ``fmpq``/``fmpz``, or a binary float."""
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    if isinstance(x, (float, np.floating)):
        return Fraction(float(x))
    if isinstance(x, np.integer):
        return Fraction(int(x))
    if hasattr(x, "p") and hasattr(x, "q"):
        return Fraction(int(x.p), int(x.q))
    if hasattr(x, "is_rational") and x.is_rational():
        return _fraction(x.to_rational())
    raise UnsupportedHead(SQUARE_ROOTS)


def _ratio(x) -> tuple[int, int]:
    """``(p, q)``, ``q > 0`` coprime, with ``x = p / q`` (:func:`_fraction`, without
    building a ``Fraction`` for the usual ``fmpq`` and ``int``)."""
    if type(x) is fmpq:
        return int(x.p), int(x.q)
    if type(x) is int:
        return x, 1
    f = _fraction(x)
    return f.numerator, f.denominator


def _common_denominator(values) -> tuple[list[int], int]:
    """Integers ``m`` and ``D > 0`` with ``values = m / D`` (``D`` the least one)."""
    pq = [_ratio(v) for v in values]
    D = lcm(*(q for _, q in pq)) if pq else 1
    return [p * (D // q) for p, q in pq], D


def _homogeneous(point) -> list[int]:
    """``(h x, h)``: the input ``x`` as coprime integers with a last entry ``h > 0``."""
    ints, h = _common_denominator(point)
    g = gcd(*ints, h)
    return [v // g for v in ints] + [h // g]


# --- the head as integers ----------------------------------------------------------------

def _first_nonzero_entry(head):
    """``(row, column)`` of the first non-zero entry of ``Z``, or None."""
    if head.Zarr is not None:
        flat = np.flatnonzero(head.Zarr.reshape(-1) != 0)
        return None if flat.size == 0 else divmod(int(flat[0]), head.d)
    for r, row in enumerate(head.Z):
        for c, v in enumerate(row):
            if v:
                return r, c
    return None


def _entry(W, r: int, c: int) -> Fraction:
    """The exact entry ``(r, c)`` of the user's matrix (rows, numpy array, or tensor)."""
    if hasattr(W, "shape") and not isinstance(W, np.ndarray) and hasattr(W, "tensor"):
        return _fraction(W[r:r + 1][0][c].item())
    if isinstance(W, np.ndarray):
        return _fraction(W[r, c].item())
    return _fraction(W[r][c])


def _head_scale(head, W) -> Fraction:
    """The ``c > 0`` with ``Z = c W`` (read off one non-zero entry; 1 if ``W = 0``)."""
    where = _first_nonzero_entry(head)
    if where is None:
        return Fraction(1)
    r, c = where
    return Fraction(int(head.Z[r][c])) / _entry(W, r, c)


def _split_lifted(head, W, bias) -> tuple[np.ndarray | list, np.ndarray | list, Fraction]:
    """``(Z, beta, c)`` from the first ``n`` rows of a lifted head
    (:func:`verify.analyze.bias.bias_head`), ``c`` read off one non-zero entry."""
    n, d = head.labels, head.d - 1
    if head.Zarr is not None:
        L = head.Zarr[:n]
        Z, beta = np.ascontiguousarray(L[:, :d]), np.ascontiguousarray(L[:, d])
        flat = np.flatnonzero(L.reshape(-1) != 0)
        where = None if flat.size == 0 else divmod(int(flat[0]), d + 1)
    else:
        L = [head.Z[k] for k in range(n)]
        Z, beta = [list(row[:d]) for row in L], [row[d] for row in L]
        where = next(((r, c) for r, row in enumerate(L) for c, v in enumerate(row) if v),
                     None)
    if where is None:
        return Z, beta, Fraction(1)
    r, c = where
    value = _entry(W, r, c) if c < d else _fraction(
        bias[r].item() if isinstance(bias, np.ndarray) else bias[r])
    return Z, beta, Fraction(int(L[r][c])) / value


def _lifted_integers(W, bias) -> tuple[list[list[int]], list[int], Fraction]:
    """``(Z, beta, c)``: the primitive integer matrix ``c [W | b]`` split in two."""
    rows = [[_fraction(x) for x in row] + [_fraction(b)] for row, b in zip(W, bias)]
    den = lcm(*(x.denominator for row in rows for x in row))
    ints = [[int(x * den) for x in row] for row in rows]
    g = gcd(*(v for row in ints for v in row)) or 1
    ints = [[v // g for v in row] for row in ints]
    return [row[:-1] for row in ints], [row[-1] for row in ints], Fraction(den, g)


# --- the arrays ----------------------------------------------------------------------------

def _combinations(certs, pair_of=None) -> dict:
    """Offsets, support labels, numerators and denominators of a list of certificates.

    ``certs`` are ``(multipliers, t)`` with ``multipliers`` pairs ``(k, y_k)`` and ``t``
    None (convex weights, ``sum y = 1``) or a number (no-tie certificates).
    """
    offsets, support, weights, dens, ts = [0], [], [], [], []
    for multipliers, t in certs:
        labels = [int(k) for k, _ in multipliers]
        values = [y for _, y in multipliers] + ([] if t is None else [t])
        ints, D = _common_denominator(values)
        if t is not None:
            ts.append(ints.pop())
        support.extend(labels)
        weights.extend(ints)
        dens.append(D)
        offsets.append(len(support))
    return {"offsets": offsets, "support": support, "weights": weights,
            "denominators": dens, "t": ts}


def analyze_certificate_arrays(result, W, bias=None) -> tuple[dict, dict]:
    """``(arrays, facts)`` of the certificate of the analysis ``result`` of ``W``.

    ``arrays`` maps every array name of the format to a numpy int64 array or a list of
    (lists of) Python ints; ``facts`` holds ``n``, ``d``, ``scale`` and ``bias``.
    Raises :class:`UnsupportedHead` for heads with square roots.
    """
    from verify.analyze.head import ExactHead

    n, d = result.n, result.d
    lifted = getattr(result, "lifted", None)
    drop = None
    domain = getattr(result, "domain", None)
    domain = None if domain is None or domain.is_all else domain
    if domain is not None:
        # The lifted rows c [W | b] (b = 0, and no bias array, without a bias); the
        # witnesses are homogeneous integer points (y, s), s > 0.
        lifted = result.domain_head.lifted
        Z, beta, scale = _split_lifted(lifted, W, bias)
        point = None
    elif bias is None:
        head = result.head
        if not isinstance(head, ExactHead):
            raise UnsupportedHead(SQUARE_ROOTS)
        Z = head.Zarr if head.Zarr is not None else [list(row) for row in head.Z]
        beta, scale = None, _head_scale(head, W)
        point = None  # the witnesses' own integer points
    elif lifted is not None:
        # The lifted head's first n rows are the primitive c [W | b]; its witnesses are
        # homogeneous integer points (x, h), h > 0.
        Z, beta, scale = _split_lifted(lifted, W, bias)
        drop, point = lifted.drop, None
    else:
        Z, beta, scale = _lifted_integers(W, bias)
        point = _homogeneous
    from verify.analyze.simplex import SimplexCertificate, SimplexNoTie
    from verify.analyze.ties import TieWitness

    argmax_labels, argmax_points, hull_labels, hull = [], [], [], []
    simplex_labels, simplex_support = [], []
    for i, e in enumerate(result.argmax.evidence):
        if isinstance(e, Witness):
            argmax_labels.append(i)
            argmax_points.append(Witness(point=e.lifted) if lifted is not None else e)
        elif isinstance(e, SimplexCertificate):
            simplex_labels.append(i)
            simplex_support.append(list(e.support))
        else:
            hull_labels.append(i)
            hull.append((e.multipliers, None))
    tie_pairs, tie_points, non_tie_pairs, non_tie, simplex_pairs = [], [], [], [], []
    for (i, j), e in sorted(result.ties.evidence.items()):
        if isinstance(e, TieWitness):
            tie_pairs.append([i, j])
            tie_points.append(e.inner if lifted is not None else e)
        elif isinstance(e, SimplexNoTie):
            simplex_pairs.append([i, j])
        else:
            non_tie_pairs.append([i, j])
            non_tie.append((e.multipliers, e.tie))
    if (simplex_labels or simplex_pairs) and beta is not None and drop is None:
        raise RuntimeError("simplex evidence for a head with a bias, without floor rows")
    h, nt = _combinations(hull), _combinations(non_tie)
    for r, (labels_sum, D) in enumerate(zip(_sums(h), h["denominators"])):
        if labels_sum != D:
            raise RuntimeError(f"convex weights of label {hull_labels[r]} do not sum to 1")
    width = d + (beta is not None)
    arrays = {
        "Z": Z,
        "bias": beta,
        "argmax_labels": np.array(argmax_labels, dtype=np.int64),
        "argmax_points": _matrix(PointRows(argmax_points, point, width), width),
        "hull_labels": np.array(hull_labels, dtype=np.int64),
        "hull_offsets": np.array(h["offsets"], dtype=np.int64),
        "hull_support": np.array(h["support"], dtype=np.int64),
        "hull_weights": h["weights"],
        "hull_denominators": h["denominators"],
        "tie_pairs": np.array(tie_pairs, dtype=np.int64).reshape(-1, 2),
        "tie_points": _matrix(PointRows(tie_points, point, width), width),
        "non_tie_pairs": np.array(non_tie_pairs, dtype=np.int64).reshape(-1, 2),
        "non_tie_offsets": np.array(nt["offsets"], dtype=np.int64),
        "non_tie_support": np.array(nt["support"], dtype=np.int64),
        "non_tie_weights": nt["weights"],
        "non_tie_denominators": nt["denominators"],
        "non_tie_t": nt["t"],
    }
    if beta is None or (domain is not None and not result.has_bias):
        del arrays["bias"]
    if simplex_labels or simplex_pairs:  # absent otherwise: older files stay the same
        arrays["simplex_labels"] = np.array(simplex_labels, dtype=np.int64)
        arrays["simplex_support"] = np.array(simplex_support, dtype=np.int64).reshape(
            len(simplex_labels), width + 1)
        arrays["non_tie_simplex_pairs"] = np.array(simplex_pairs,
                                                   dtype=np.int64).reshape(-1, 2)
    facts = {"n": n, "d": d, "scale": scale, "bias": "bias" in arrays, "drop": drop,
             "domain": domain,
             "assertion": {"argmaxable": len(argmax_labels),
                           "unargmaxable": len(hull_labels) + len(simplex_labels),
                           "tie_pairs": len(tie_pairs),
                           "non_tie_pairs": len(non_tie_pairs) + len(simplex_pairs),
                           "complete": (len(tie_pairs) + len(non_tie_pairs) + len(simplex_pairs)
                                        == n * (n - 1) // 2)}}
    return arrays, facts


def _sums(h: dict) -> list[int]:
    off, w = h["offsets"], h["weights"]
    return [sum(w[a:b]) for a, b in zip(off, off[1:])]


def _matrix(rows, width: int):
    """Rows of Python ints: an empty ``(0, width)`` array, or the rows as they are."""
    return rows if rows else np.zeros((0, width), dtype=np.int64)


# --- encoding ------------------------------------------------------------------------------

def _as_int64(values):
    """``values`` as an int64 array, or None if an entry does not fit."""
    if isinstance(values, np.ndarray):
        return values.astype(np.int64, copy=False)
    try:
        return np.array(values, dtype=np.int64)
    except OverflowError:
        return None


def _limbs(values) -> dict:
    """Sign (int8), limb width per row (int64) and limbs (uint32) of rows of ints."""
    matrix = bool(values) and isinstance(values[0], (list, tuple))
    rows = values if matrix else [[v] for v in values]
    signs = np.array([[(v > 0) - (v < 0) for v in row] for row in rows], dtype=np.int8)
    widths, chunks = [], []
    for row in rows:
        w = (max(abs(v).bit_length() for v in row) + 31) // 32 if row else 0
        widths.append(w)
        chunks.append(b"".join(abs(v).to_bytes(4 * w, "little") for v in row))
    limbs = np.frombuffer(b"".join(chunks), dtype="<u4")
    return {"sign": signs if matrix else signs.reshape(-1),
            "width": np.array(widths, dtype=np.int64), "limbs": limbs}


#: Magnitudes below this fit an int64 entry (``-2^63`` does too, but is kept apart so
#: that every int64 magnitude is one).
INT64_BOUND = 1 << 63


class PointRows:
    """The points of witnesses as rows of integers, computed one at a time.

    At 50,257 x 768 the points of the tie witnesses, held as Python integers, would
    take gigabytes (each is computed from a short stored form,
    :class:`verify.analyze.ties.ProjectedTieWitness`). :meth:`encode` gives exactly
    what :func:`encode` gives for the list of rows, in at most two passes over the
    witnesses, with only the output arrays in memory. ``point`` maps a witness's point
    to its row; None means the point as it is (integers), which lets a projected tie
    witness hand over its point as an int64 vector and one large entry.
    """

    def __init__(self, witnesses: list, point, width: int):
        self.witnesses, self.point, self.width = witnesses, point, width
        self._dots = None

    def _dot(self, r: int):
        """``v . x`` of witness ``r`` if it is a projected tie witness (computed for all
        of them at once, on first use), else None."""
        if self.point is not None:
            return None
        if self._dots is None:
            from verify.analyze.ties import projected_dots

            self._dots = projected_dots(self.witnesses)
        return self._dots[r]

    def __len__(self) -> int:
        return len(self.witnesses)

    def __iter__(self):
        return (self._row(e) for e in self.witnesses)

    def _row(self, e) -> list[int]:
        return [int(v) for v in e.point] if self.point is None else self.point(e.point)

    def _parts(self, r: int, e) -> tuple[np.ndarray, dict]:
        """The row of witness ``r``, ``e``, as int64 entries of magnitude below
        ``2^63``, with the other entries set to 0 and given apart, ``{column: value}``."""
        if self.point is None and hasattr(e, "point_parts"):
            scale, y, p, top = e.point_parts(self._dot(r))
            if scale < INT64_BOUND and scale * int(np.abs(y).max(initial=0)) < INT64_BOUND:
                row = y * scale
                row[p] = top if abs(top) < INT64_BOUND else 0
                return row, ({} if abs(top) < INT64_BOUND else {p: top})
        values = self._row(e)
        big = {c: v for c, v in enumerate(values) if abs(v) >= INT64_BOUND}
        small = [0 if c in big else v for c, v in enumerate(values)] if big else values
        return np.array(small, dtype=np.int64).reshape(len(values)), big

    def _int64_rows(self) -> np.ndarray | None:
        """All rows as one int64 array, or None if an entry does not fit in int64 (then
        :meth:`encode` goes entry by entry). Only rows of Python ``int`` are assigned
        directly (or an IntVector's int64 array): numpy would truncate other numbers
        silently."""
        m, w = len(self), self.width
        out = np.empty((m, w), dtype=np.int64)
        for r, e in enumerate(self.witnesses):
            if self.point is None and isinstance(e.point, IntVector):
                out[r] = e.point.array
            elif (self.point is None and not hasattr(e, "point_parts")
                    and set(map(type, e.point)) == {int}):
                try:
                    out[r] = e.point  # OverflowError beyond int64
                except OverflowError:
                    return None
            else:
                row, big = self._parts(r, e)
                if big:
                    return None
                out[r] = row
        return out

    def encode(self) -> tuple[str, dict]:
        out = self._int64_rows()
        if out is not None:
            return "int64", {"": out}
        m, w = len(self), self.width
        out = np.empty((m, w), dtype=np.int64)
        signs = np.empty((m, w), dtype=np.int8)
        widths = np.empty(m, dtype=np.int64)
        for r, e in enumerate(self.witnesses):
            row, big = self._parts(r, e)
            sign = np.sign(row).astype(np.int8)
            bits = int(np.abs(row).max(initial=0)).bit_length()
            for c, v in big.items():
                sign[c] = (v > 0) - (v < 0)
                bits = max(bits, abs(v).bit_length())
            signs[r], widths[r] = sign, (bits + 31) // 32
            if out is not None:
                if all(v == -INT64_BOUND for v in big.values()):
                    row[list(big)] = -INT64_BOUND
                    out[r] = row
                else:  # as np.array(rows, dtype=np.int64) would overflow
                    out = None
        if out is not None:
            return "int64", {"": out}
        limbs = np.empty(int(widths.sum()) * w, dtype="<u4")
        at = 0
        for r, e in enumerate(self.witnesses):
            row, big = self._parts(r, e)
            k = int(widths[r])
            # Little-endian 32-bit limbs, entry by entry: at most two for |row| < 2^63.
            block = np.zeros((w, k), dtype="<u4")
            magnitude = np.abs(row).astype(np.uint64)
            for q in range(min(k, 2)):
                block[:, q] = (magnitude >> np.uint64(32 * q)) & np.uint64(0xFFFFFFFF)
            for c, v in big.items():
                block[c] = np.frombuffer(abs(v).to_bytes(4 * k, "little"), dtype="<u4")
            limbs[at:at + w * k] = block.reshape(-1)
            at += w * k
        return "limbs", {"sign": signs, "width": widths, "limbs": limbs}


def encode(values) -> tuple[str, dict]:
    """``(encoding, {suffix: array})`` of an integer array (see the module docstring)."""
    if isinstance(values, PointRows):
        return values.encode()
    arr = _as_int64(values)
    if arr is not None:
        return "int64", {"": arr}
    return "limbs", _limbs(values)


class _Hashing:
    """A writable wrapper that also feeds a hash."""

    def __init__(self, handle, digest):
        self.handle, self.digest = handle, digest

    def write(self, data):
        self.digest.update(data)
        return self.handle.write(data)


def _zip_info(name: str) -> zipfile.ZipInfo:
    """A member stored uncompressed, with a fixed date and permissions (determinism)."""
    info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
    info.compress_type = zipfile.ZIP_STORED
    info.create_system = 3
    info.external_attr = 0o644 << 16
    return info


def _member(zf: zipfile.ZipFile, name: str, array: np.ndarray, digest=None) -> None:
    info = _zip_info(name)
    array = np.ascontiguousarray(array)
    big = array.nbytes > (1 << 31) - (1 << 20)
    with zf.open(info, "w", force_zip64=big) as handle:
        out = handle if digest is None else _Hashing(handle, digest)
        np.lib.format.write_array(out, array, allow_pickle=False)


def _source(path, tensor) -> dict:
    sha = None
    if path is not None and Path(path).is_file():
        h = hashlib.sha256()
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                h.update(chunk)
        sha = h.hexdigest()
    return {"name": None if path is None else Path(path).name, "sha256": sha,
            "tensor": tensor}


def write_analyze_certificate(path, result, W, *, bias=None, source=None,
                              tensor=None) -> None:
    """Write the certificate of the analysis ``result`` of ``W`` (and ``bias``) to ``path``.

    ``W`` is the head as it was analysed (exact rows, a numpy array, or the rows of a
    checkpoint tensor), used for the scale ``c`` of ``Z = c W``; ``source`` the file it
    came from (its SHA-256 is recorded) and ``tensor`` the tensor's name in it.
    Atomic and deterministic. Raises :class:`UnsupportedHead` for heads with square roots.
    """
    arrays, facts = analyze_certificate_arrays(result, W, bias)
    write_archive(path, arrays, facts, _source(source, tensor))


def _text_rational(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def write_archive(path, arrays: dict, facts: dict, source: dict) -> None:
    """Write ``arrays`` (by name, in the format's order) and the manifest built from
    ``facts`` (``n``, ``d``, ``scale``, ``bias``, ``assertion``) and ``source``.

    The SHA-256 of the stored ``Z`` (and ``bias``) members is computed here.
    """
    encodings = {}
    digest = hashlib.sha256()
    with open_atomic(path) as handle, zipfile.ZipFile(handle, "w") as zf:
        for name, values in arrays.items():
            enc, parts = encode(values)
            encodings[name] = enc
            hashed = digest if name in ("Z", "bias") else None
            for suffix, arr in parts.items():
                _member(zf, f"{name}.npy" if not suffix else f"{name}.{suffix}.npy", arr,
                        hashed)
        scale = facts["scale"]
        manifest = {
            "format": CERTIFICATE_FORMAT,
            "claim": "analyze",
            "input": {"n": facts["n"], "d": facts["d"], "bias": facts["bias"],
                      "scale": f"{scale.numerator}/{scale.denominator}",
                      "source": source, "sha256": digest.hexdigest()},
            "assertion": facts["assertion"],
            "evidence": {"encoding": encodings},
        }
        if facts.get("domain") is not None:
            # The inputs' domain (absent: all of R^d); points are then (h x, h).
            dom = facts["domain"]
            manifest["input"]["domain"] = (
                {"kind": "box", "lower": _text_rational(dom.lower),
                 "upper": _text_rational(dom.upper)} if dom.kind == "box"
                else {"kind": dom.kind})
        if facts.get("drop") is not None:
            # The floor rows (z_k, beta_k - drop) of simplex supports (index n + k).
            manifest["input"]["drop"] = facts["drop"]
        zf.writestr(_zip_info("manifest.json"), json.dumps(manifest, indent=1) + "\n")
