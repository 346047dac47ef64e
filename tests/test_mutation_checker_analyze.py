"""The checker of ``analyze`` archives (:mod:`verify.checker.analyze`), condition by condition.

Written against the mutation run of that module (docs/testing.md). Small valid
certificates are written once per module by the engine; each test rewrites one of them
with a single violated condition (the stored matrix's SHA-256 recomputed, so that only
that condition is wrong) and checks that both arithmetics (Python integers, and numpy:
float64 products under an error bound, identities modulo primes) reject it with the
message that names that condition. The arithmetic helpers are compared with their
definitions: the primes with trial division, the float screening with exact products
near cancellation, blocks of any width with one block.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import zipfile
from fractions import Fraction

import numpy as np
import pytest

import verify.checker.analyze as checker
from verify.analyze import analyze
from verify.analyze.bias import analyze_with_bias
from verify.analyze.certificate import write_analyze_certificate
from verify.checker.core import CertificateError, UnknownFormat

SQUARE = [[1, 0], [0, 1], [-1, 0], [0, -1], [0, 0]]
BIASED = ([[0], [1], [2], [1]], [0, -1, 0, Fraction(1, 3)])
ORDER = checker.ARRAYS


# --- writing archives by hand ------------------------------------------------------------

def npy(values, dtype, shape=None, version=(1, 0)) -> bytes:
    arr = np.array(values, dtype=dtype)
    if shape is not None:
        arr = arr.reshape(shape)
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, arr, version=version, allow_pickle=False)
    return buffer.getvalue()


def encode(values, shape, encoding) -> dict:
    """``{suffix: .npy bytes}`` of an integer array in one of the two encodings."""
    if encoding == "int64":
        return {"": npy(values, "<i8", shape)}
    rows = values if len(shape) == 2 else [[v] for v in values]
    signs = [[(v > 0) - (v < 0) for v in row] for row in rows]
    widths = [max([(abs(v).bit_length() + 31) // 32 for v in row] or [0]) for row in rows]
    limbs = []
    for row, w in zip(rows, widths):
        for v in row:
            limbs += [(abs(v) >> (32 * k)) & 0xFFFFFFFF for k in range(w)]
    return {"sign": npy(signs, "|i1", shape), "width": npy(widths, "<i8", (len(rows),)),
            "limbs": npy(limbs, "<u4", (len(limbs),))}


def shape_of(name, values, manifest) -> tuple:
    width = manifest["input"]["d"] + manifest["input"]["bias"]
    if name in ("Z", "argmax_points", "tie_points"):
        return (len(values), manifest["input"]["d"] if name == "Z" else width)
    if name in ("tie_pairs", "non_tie_pairs"):
        return (len(values), 2)
    return (len(values),)


def write(path, manifest, arrays, encodings=None, *, rehash=True, shapes=None):
    """The archive of ``arrays`` (Python ints) with ``manifest``; the hash recomputed."""
    manifest = copy.deepcopy(manifest)
    encodings = dict(manifest["evidence"]["encoding"], **(encodings or {}))
    members, digest = {}, hashlib.sha256()
    for name in ORDER:
        if name not in arrays:
            continue
        shape = (shapes or {}).get(name) or shape_of(name, arrays[name], manifest)
        parts = encode(arrays[name], shape, encodings[name])
        for suffix in ("", "sign", "width", "limbs"):
            if suffix in parts:
                member = f"{name}.{suffix}.npy" if suffix else f"{name}.npy"
                members[member] = parts[suffix]
                if name in ("Z", "bias"):
                    digest.update(parts[suffix])
    manifest["evidence"]["encoding"] = {k: encodings[k] for k in ORDER if k in arrays}
    if rehash:
        manifest["input"]["sha256"] = digest.hexdigest()
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("manifest.json", json.dumps(manifest))
        for member, data in members.items():
            z.writestr(member, data)
    return path


def read(path) -> tuple[dict, dict]:
    archive = checker.Archive(path)
    m = checker.read_manifest(archive)
    return archive.manifest, {k: archive.array(k, e).rows() for k, e in m["encoding"].items()}


def verdict(path, backend):
    try:
        return "OK", checker.check_file(path, backend=backend)
    except CertificateError as exc:
        return "INVALID", str(exc)


def both(path):
    python, numpy = verdict(path, "python"), verdict(path, "numpy")
    assert python == numpy, (python, numpy)
    return python


class Base:
    """A valid certificate: ``forge(change, manifest_change)`` -> the verdict of both."""

    def __init__(self, root, name, manifest, arrays):
        self.root, self.name = root, name
        self.manifest, self.arrays = manifest, arrays
        self.count = 0

    def path(self, change=None, manifest_change=None, encodings=None, **options):
        m, a = copy.deepcopy(self.manifest), copy.deepcopy(self.arrays)
        if change:
            change(a)
        if manifest_change:
            manifest_change(m)
        self.count += 1
        return write(self.root / f"{self.name}-{self.count}.zip", m, a, encodings, **options)

    def forge(self, change=None, manifest_change=None, encodings=None, **options):
        return both(self.path(change, manifest_change, encodings, **options))


@pytest.fixture(scope="module")
def square(tmp_path_factory):
    root = tmp_path_factory.mktemp("square")
    write_analyze_certificate(root / "square.zip", analyze(SQUARE, cells=False), SQUARE)
    return Base(root, "square", *read(root / "square.zip"))


@pytest.fixture(scope="module")
def biased(tmp_path_factory):
    root = tmp_path_factory.mktemp("biased")
    W, b = BIASED
    write_analyze_certificate(root / "biased.zip", analyze_with_bias(W, b), W, bias=b)
    return Base(root, "biased", *read(root / "biased.zip"))


ALL_LIMBS = {k: "limbs" for k in ORDER if k not in checker.INDEX_ARRAYS}


def test_the_bases_are_valid_in_both_encodings(square, biased):
    n_pairs = {"square": 10, "biased": 6}
    for base in (square, biased):
        status, summary = base.forge()
        assert status == "OK"
        a = base.arrays
        bias = " with a bias" if base is biased else ""
        n, d = len(a["Z"]), len(a["Z"][0])
        assert summary == (
            f"analyze, {n} labels in dimension {d}{bias}: {len(a['argmax_labels'])} "
            f"argmaxable (witnesses), {len(a['hull_labels'])} unargmaxable (convex "
            f"weights); {n_pairs[base.name]} of {n_pairs[base.name]} pairs decided: "
            f"{len(a['tie_pairs'])} can tie, {len(a['non_tie_pairs'])} cannot")
        assert base.forge(encodings=ALL_LIMBS) == (status, summary)
        # .npy format versions 2.0 and 3.0 are read as 1.0 is.
        for version in ((2, 0), (3, 0)):
            path = base.path()
            with zipfile.ZipFile(path) as z:
                members = {name: z.read(name) for name in z.namelist()}
            for name, data in members.items():
                if name.endswith(".npy"):
                    arr = np.load(io.BytesIO(data))
                    out = io.BytesIO()
                    np.lib.format.write_array(out, arr, version=version)
                    members[name] = out.getvalue()
            doc = json.loads(members["manifest.json"])
            doc["input"]["sha256"] = hashlib.sha256(
                b"".join(members[f"{k}.npy"] for k in ("Z", "bias") if f"{k}.npy" in members)
            ).hexdigest()
            members["manifest.json"] = json.dumps(doc).encode()
            with zipfile.ZipFile(path, "w") as z:
                for name, data in members.items():
                    z.writestr(name, data)
            assert both(path) == (status, summary)


# --- a soundness bug: |-2^63| in int64 -------------------------------------------------------

def test_an_entry_of_minus_two_to_the_63_does_not_shrink_the_prime_bound(tmp_path):
    """``Z = [[-2^63], [0]]``: label 0 wins at ``x = -1``. Convex weights ``z_0 = z_1`` are
    false (``-2^63 != 0``); with ``|Z|`` computed in int64 (``abs(-2^63) = -2^63``) the
    numpy path took the bound as 0, used no prime and accepted the identity."""
    M = -(1 << 63)
    manifest = {
        "format": "verify-certificate/1", "claim": "analyze",
        "input": {"n": 2, "d": 1, "bias": False, "scale": "1/1",
                  "source": {"name": None, "sha256": None, "tensor": None},
                  "sha256": "0" * 64},
        "assertion": {"argmaxable": 1, "unargmaxable": 1, "tie_pairs": 1,
                      "non_tie_pairs": 0, "complete": True},
        "evidence": {"encoding": {k: "int64" for k in ORDER if k != "bias"}}}
    arrays = {"Z": [[M], [0]], "argmax_labels": [1], "argmax_points": [[1]],
              "hull_labels": [0], "hull_offsets": [0, 1], "hull_support": [1],
              "hull_weights": [1], "hull_denominators": [1], "tie_pairs": [[0, 1]],
              "tie_points": [[0]], "non_tie_pairs": [], "non_tie_offsets": [0],
              "non_tie_support": [], "non_tie_weights": [], "non_tie_denominators": [],
              "non_tie_t": []}
    path = write(tmp_path / "min.zip", manifest, arrays)
    assert both(path) == ("INVALID", "convex weights[0] of label 0: D z_0 - sum m_k z_k "
                                     "is not 0 in coordinate 0")
