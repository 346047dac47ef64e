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

import ast
import copy
import hashlib
import io
import json
import time
import zipfile
from fractions import Fraction

import numpy as np
import pytest

import verify.checker.analyze as checker
from verify.analyze import analyze
from verify.analyze.report import analyze_with_bias
from verify.analyze.certificate import write_analyze_certificate
from verify.checker.core import CertificateError, UnknownFormat

from test_analyze_certificate import both, verdict  # both arithmetics must agree

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


# --- the primes of the modular identities ----------------------------------------------------

def trial_division_prime(p: int) -> bool:
    return p >= 2 and all(p % q for q in range(2, int(p ** 0.5) + 1))


def test_is_prime_against_trial_division():
    for p in range(-3, 3000):
        assert checker._is_prime(p) == trial_division_prime(p), p
    # Strong pseudoprimes to the first bases (2047 to base 2, 1373653 to 2 and 3,
    # 25326001 to 2, 3 and 5), Carmichael numbers, squares of primes, and primes.
    # Carmichael numbers prime to 2, 3, 5, 7 (they pass Fermat's test to every base
    # prime to them: only the square roots of 1 reveal them), and strong pseudoprimes to
    # three of the four bases (1024651 to 3, 5 and 7; 2284453 to 2, 3 and 7).
    for p in (2047, 1373653, 25326001, 561, 41041, 825265, 49, 7919 ** 2, 65537 * 3,
              29341, 46657, 75361, 115921, 162401, 1024651, 2284453,
              (1 << 26) - 5, (1 << 26) - 27, 2 ** 31 - 1, 104729 * 104723):
        assert checker._is_prime(p) == trial_division_prime(p), p


def test_primes_are_the_largest_below_2_26_and_just_enough(monkeypatch):
    monkeypatch.setattr(checker, "_PRIMES", [])  # found afresh, not from the cache
    primes = checker.primes_with_product_above(1 << 3000)
    assert primes[0] < 1 << checker.PRIME_BITS
    # Consecutive: every number between two of them, and above the first, is composite.
    expected, p = [], (1 << checker.PRIME_BITS) - 1
    while len(expected) < len(primes):
        if trial_division_prime(p):
            expected.append(p)
        p -= 1
    assert primes == expected
    for bound in (0, 1, 2, primes[0] - 1, primes[0], primes[0] * primes[1] - 1,
                  primes[0] * primes[1], 10 ** 40, 1 << 3000):
        out = checker.primes_with_product_above(bound)
        assert out == primes[:len(out)]
        product = 1
        for q in out:
            product *= q
        assert product > bound
        assert not out or product // out[-1] <= bound  # one prime fewer is not enough
    assert checker.primes_with_product_above(-5) == []
    # Asked in growing steps, the cache is extended, not restarted.
    monkeypatch.setattr(checker, "_PRIMES", [])
    for k in range(1, 6):
        bound = 1
        for q in primes[:k]:
            bound *= q
        assert checker.primes_with_product_above(bound - 1) == primes[:k]
        assert checker._PRIMES == primes[:k]


def test_big_ratios_are_named_by_their_sizes():
    assert checker._ratio(6, 4) == "3/2"
    assert checker._ratio(5, 5) == "1"
    for p, q in ((1 << 199, 3), (3, (1 << 199) + 1), (1 << 250, (1 << 200) + 1),
                 ((1 << 200) - 1, 7)):
        small = max(p.bit_length(), q.bit_length()) < 200
        text = checker._ratio(p, q)
        assert text == (str(Fraction(p, q)) if small else
                        f"a number of {p.bit_length()} bits over {q.bit_length()} bits")


# --- the manifest ------------------------------------------------------------------------------

def _set(*keys_and_value):
    *keys, value = keys_and_value

    def change(doc):
        target = doc
        for key in keys[:-1]:
            target = target[key]
        if value is DELETE:
            del target[keys[-1]]
        else:
            target[keys[-1]] = value
    return change


DELETE = object()
HEX = "0123456789abcdef" * 4

MANIFEST_FORGERIES = [
    (_set("input", "n", 0), "input.n: expected an integer >= 1, got 0"),
    (_set("input", "n", True), "input.n: expected an integer >= 1, got True"),
    (_set("input", "d", 0), "input.d: expected an integer >= 1, got 0"),
    (_set("input", "d", 2.0), "input.d: expected an integer >= 1, got 2.0"),
    (_set("input", "bias", 0), "input.bias: expected true or false"),
    (_set("input", "scale", "1"), 'input.scale: expected a positive rational "p/q"'),
    (_set("input", "scale", 1), 'input.scale: expected a positive rational "p/q"'),
    (_set("input", "scale", "1/2/3"), 'input.scale: expected a positive rational "p/q"'),
    (_set("input", "scale", "-1/2"), 'input.scale: expected a positive rational "p/q"'),
    (_set("input", "scale", "1/-2"), 'input.scale: expected a positive rational "p/q"'),
    (_set("input", "scale", "1/0"), 'input.scale: expected a positive rational "p/q"'),
    (_set("input", "scale", "\u0661/2"), 'input.scale: expected a positive rational "p/q"'),
    (_set("input", "scale", "2/\u0661"), 'input.scale: expected a positive rational "p/q"'),
    (_set("input", "scale", "0/3"), "input.scale: the scale must be positive"),
    (_set("input", "source", "sha256", "A" * 64), "input.source.sha256: expected 64 "
                                                  "lowercase hex digits"),
    (_set("input", "source", "sha256", HEX[:63]), "input.source.sha256: expected 64 "
                                                  "lowercase hex digits"),
    (_set("input", "source", "sha256", 5), "input.source.sha256: expected 64 lowercase "
                                           "hex digits"),
    (_set("input", "sha256", HEX + "0"), "input.sha256: expected 64 lowercase hex digits"),
    (_set("input", "sha256", "g" * 64), "input.sha256: expected 64 lowercase hex digits"),
    # 64 characters, one of them not a hex digit: first, middle or last.
    (_set("input", "sha256", "X" + HEX[1:]), "input.sha256: expected 64 lowercase hex "
                                             "digits"),
    (_set("input", "sha256", HEX[:32] + "G" + HEX[33:]), "input.sha256: expected 64 "
                                                         "lowercase hex digits"),
    (_set("input", "source", "sha256", HEX[:63] + "z"), "input.source.sha256: expected 64 "
                                                        "lowercase hex digits"),
    (_set("input", "source", "tensor", DELETE), "input.source: missing 'tensor'"),
    (_set("input", "extra", 1), "input: unexpected 'extra'"),
    (_set("input", 5), "input: expected an object, got 5"),
    (_set("extra", 1), "manifest.json: unexpected 'extra'"),
    (_set("assertion", DELETE), "manifest.json: missing 'assertion'"),
    (_set("assertion", "argmaxable", -1), "assertion.argmaxable: expected an integer >= 0, "
                                          "got -1"),
    (_set("assertion", "unargmaxable", "1"), "assertion.unargmaxable: expected an integer "
                                             ">= 0, got '1'"),
    (_set("assertion", "tie_pairs", None), "assertion.tie_pairs: expected an integer >= 0, "
                                           "got None"),
    (_set("assertion", "non_tie_pairs", -2), "assertion.non_tie_pairs: expected an integer "
                                             ">= 0, got -2"),
    (_set("assertion", "complete", 1), "assertion.complete: expected true or false"),
    (_set("assertion", "cells", 1), "assertion: unexpected 'cells'"),
    (_set("evidence", "extra", 1), "evidence: unexpected 'extra'"),
    (_set("evidence", "encoding", "bias", "int64"), "evidence.encoding: unexpected 'bias'"),
    (_set("evidence", "encoding", "Z", "int32"), "evidence.encoding.Z: expected 'int64' or "
                                                 "'limbs'"),
    (_set("evidence", "encoding", "hull_labels", "limbs"),
     "evidence.encoding.hull_labels: expected 'int64'"),
    (_set("evidence", "encoding", "non_tie_support", "limbs"),
     "evidence.encoding.non_tie_support: expected 'int64'"),
    (_set("evidence", "encoding", "non_tie_t", "limbs"),
     "archive members: missing non_tie_t.limbs.npy, non_tie_t.sign.npy, "
     "non_tie_t.width.npy; unexpected non_tie_t.npy"),
]


def rewrite_manifest(path, change, out):
    with zipfile.ZipFile(path) as z:
        members = {name: z.read(name) for name in z.namelist()}
    doc = json.loads(members["manifest.json"])
    change(doc)
    members["manifest.json"] = json.dumps(doc).encode()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out


@pytest.mark.parametrize("k", range(len(MANIFEST_FORGERIES)))
def test_each_manifest_field_is_checked_and_named(square, tmp_path, k):
    change, message = MANIFEST_FORGERIES[k]
    out = rewrite_manifest(square.path(), change, tmp_path / "m.zip")
    assert both(out) == ("INVALID", message)


def test_a_biased_manifest_needs_the_bias_array(biased, tmp_path):
    out = rewrite_manifest(biased.path(), _set("evidence", "encoding", "bias", DELETE),
                           tmp_path / "b.zip")
    assert both(out) == ("INVALID", "evidence.encoding: missing 'bias'")
    # A manifest with a bias and a valid hex source hash is read.
    out = rewrite_manifest(biased.path(), _set("input", "source", "sha256", HEX),
                           tmp_path / "s.zip")
    assert both(out)[0] == "OK"


def test_format_and_claim_make_an_archive_unknown(square, tmp_path):
    for change, message in (
            (_set("format", "verify-certificate/2"),
             "manifest.json: not a verify-certificate/1 document"),
            (_set("claim", "ranking"), "manifest.json: unknown claim 'ranking' in an archive"),
            (_set("claim", DELETE), "manifest.json: unknown claim None in an archive")):
        out = rewrite_manifest(square.path(), change, tmp_path / "u.zip")
        with pytest.raises(UnknownFormat) as info:
            checker.check_file(out, backend="python")
        assert str(info.value) == message
    path = tmp_path / "list.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("manifest.json", "[1]")
    with pytest.raises(UnknownFormat, match="^manifest.json: not a verify-certificate/1 "):
        checker.check_file(path)


def test_members_missing_or_unexpected_or_twice(square, tmp_path):
    source = square.path()
    with zipfile.ZipFile(source) as z:
        members = {name: z.read(name) for name in z.namelist()}

    def archive(name, items):
        path = tmp_path / name
        with zipfile.ZipFile(path, "w") as z:
            for member, data in items:
                z.writestr(member, data)
        return path
    out = archive("drop.zip", [(k, v) for k, v in members.items() if k != "hull_weights.npy"])
    assert both(out) == ("INVALID", "archive members: missing hull_weights.npy")
    out = archive("extra.zip", [*members.items(), ("notes.txt", b"hi"), ("a.npy", b"")])
    assert both(out) == ("INVALID", "archive members: unexpected a.npy, notes.txt")
    out = archive("both.zip", [(k, v) for k, v in members.items() if k != "Z.npy"]
                  + [("Y.npy", b"")])
    assert both(out) == ("INVALID", "archive members: missing Z.npy; unexpected Y.npy")
    with pytest.warns(UserWarning):
        out = archive("twice.zip", [*members.items(), ("Z.npy", members["Z.npy"])])
    assert both(out) == ("INVALID", "the archive lists a member twice")
    out = archive("nomanifest.zip", [(k, v) for k, v in members.items()
                                     if k != "manifest.json"])
    with pytest.raises(UnknownFormat) as info:
        checker.check_file(out)
    assert str(info.value) == "not a certificate archive: no manifest.json"
    out = archive("text.zip", [("manifest.json", b"{not json")] + list(members.items())[1:])
    with pytest.raises(UnknownFormat, match="^manifest.json: not JSON: "):
        checker.check_file(out)
    (tmp_path / "junk.zip").write_bytes(b"PK\x03\x04" + bytes(40))
    with pytest.raises(UnknownFormat, match="^not a certificate archive: "):
        checker.check_file(tmp_path / "junk.zip")
    with pytest.raises(UnknownFormat, match="^not a certificate archive: "):
        checker.check_file(tmp_path / "absent.zip")


# --- the .npy members and the two encodings -----------------------------------------------

def header(descr="<i8", fortran=False, shape=(2,), major=1, extra="") -> bytes:
    text = (f"{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, {extra}}}"
            .encode("latin-1"))
    size = (2).to_bytes(2, "little") if major == 1 else (2).to_bytes(4, "little")
    length = len(text).to_bytes(2 if major == 1 else 4, "little")
    del size
    return b"\x93NUMPY" + bytes([major, 0]) + length + text


def test_npy_headers_are_checked_and_named():
    good = header() + bytes(16)
    assert checker.parse_npy(good, "a")[0:2] == ("<i8", (2,))
    for major in (2, 3):
        descr, shape, payload = checker.parse_npy(header(major=major) + bytes(16), "a")
        assert (descr, shape, len(payload)) == ("<i8", (2,), 16)
    cases = [
        (b"\x93NUMPX" + good[6:], "a: not a .npy array"),
        (good[:9], "a: not a .npy array"),
        # Ten bytes: the magic string, the version and an empty header.
        (b"\x93NUMPY\x01\x00\x00\x00", "a: unreadable .npy header"),
        (b"\x93NUMPY\x04\x00" + good[8:], "a: unknown .npy version 4"),
        (b"\x93NUMPY\x00\x00" + good[8:], "a: unknown .npy version 0"),
        (header(descr="<f8") + bytes(16), None),
        (header(descr="<i4") + bytes(8), None),
        (header(fortran=True) + bytes(16), None),
        (header(fortran=0) + bytes(16), None),
        (header(shape=[2]) + bytes(16), None),
        (header(shape=(-1,)) + bytes(0), None),
        (header(shape=(True,)) + bytes(8), None),
        (header(shape=(2.0,)) + bytes(16), None),
        (header(extra="'x': 1") + bytes(16), None),
        (b"\x93NUMPY\x01\x00\x05\x00[1, 2" + bytes(16), "a: unreadable .npy header"),
        (b"\x93NUMPY\x01\x00\x04\x00\xff\xfe()" + bytes(16), "a: unreadable .npy header"),
        (header() + bytes(15), "a: 15 data bytes for shape (2,)"),
        (header() + bytes(24), "a: 24 data bytes for shape (2,)"),
        (header(descr="|i1", shape=(2, 3)) + bytes(5), "a: 5 data bytes for shape (2, 3)"),
        (header(descr="<u4", shape=(3,)) + bytes(8), "a: 8 data bytes for shape (3,)"),
    ]
    for data, message in cases:
        with pytest.raises(CertificateError) as info:
            checker.parse_npy(data, "a")
        if message is None:
            assert str(info.value).startswith("a: expected a C-order .npy array of <i8, <u4 "
                                              "or |i1, got header {"), data
        else:
            assert str(info.value) == message, data
    # A header that is not a dictionary.
    with pytest.raises(CertificateError, match=r"^a: expected a C-order .npy array of "
                                               r"<i8, <u4 or \|i1, got header \[1, 2\]$"):
        checker.parse_npy(b"\x93NUMPY\x01\x00\x06\x00[1, 2]", "a")
    # A long header is shown by its first 60 characters only (the message is one line).
    long = header(extra="'x': '" + "y" * 200 + "'")
    shown = str(ast.literal_eval(long[10:].decode("latin-1")))
    assert len(shown) > 200
    with pytest.raises(CertificateError) as info:
        checker.parse_npy(long + bytes(16), "a")
    assert str(info.value) == ("a: expected a C-order .npy array of <i8, <u4 or |i1, got "
                               f"header {shown[:60]}")
    # Payload sizes of each type: |i1 one byte, <u4 four, <i8 eight.
    for descr, size in (("|i1", 1), ("<u4", 4), ("<i8", 8)):
        assert len(checker.parse_npy(header(descr=descr, shape=(2, 3)) + bytes(6 * size),
                                     "a")[2]) == 6 * size


def int_array(values, shape, encoding, name="A"):
    parts = encode(values, shape, encoding)
    members = {suffix: checker.parse_npy(data, name) for suffix, data in parts.items()}
    return checker.IntArray(name, encoding, members)


def test_both_encodings_give_the_same_rows_in_any_range():
    big = [[0, -1, 2 ** 64 + 3], [5, 0, -(2 ** 95)], [0, 0, 0], [1, 2 ** 31, -(2 ** 32)]]
    small = [[0, -1, 7], [5, 0, -9], [0, 0, 0], [1, 2 ** 31, -(2 ** 32)]]
    for rows, encodings in ((big, ("limbs",)), (small, ("int64", "limbs"))):
        for encoding in encodings:
            arr = int_array(rows, (4, 3), encoding)
            assert arr.shape == (4, 3)
            assert arr.rows() == rows
            for lo in range(5):
                for hi in range(lo, 5):
                    assert arr.rows(lo, hi) == rows[lo:hi]
            column = int_array([r[2] for r in rows], (4,), encoding)
            assert column.rows() == [r[2] for r in rows]
            assert column.rows(1, 3) == [r[2] for r in rows[1:3]]
            if encoding == "int64":
                assert arr.numpy(np).tolist() == rows
                assert arr.numpy(np).dtype == np.int64
            else:
                assert arr.numpy(np) is None
    # A limb array of one column per row with rows of different widths.
    arr = int_array([1, 2 ** 40, -(2 ** 70), 0], (4,), "limbs")
    assert arr.rows() == [1, 2 ** 40, -(2 ** 70), 0]
    assert arr.rows(2, 4) == [-(2 ** 70), 0]


def limb_members(signs, widths, limbs, shape):
    return {"sign": checker.parse_npy(npy(signs, "|i1", shape), "s"),
            "width": checker.parse_npy(npy(widths, "<i8", (len(widths),)), "w"),
            "limbs": checker.parse_npy(npy(limbs, "<u4", (len(limbs),)), "l")}


def test_limb_arrays_are_checked_and_named():
    good = limb_members([[1, -1]], [1], [3, 4], (1, 2))
    assert checker.IntArray("A", "limbs", good).rows() == [[3, -4]]
    cases = [
        ({**good, "sign": checker.parse_npy(npy([[1, -1]], "<i8", (1, 2)), "s")},
         "A: limb arrays must be int8, int64, uint32"),
        ({**good, "width": checker.parse_npy(npy([1], "<u4", (1,)), "w")},
         "A: limb arrays must be int8, int64, uint32"),
        ({**good, "limbs": checker.parse_npy(npy([3, 4], "<i8", (2,)), "l")},
         "A: limb arrays must be int8, int64, uint32"),
        (limb_members([[1, -1]], [1, 0], [3, 4], (1, 2)), "A: one limb width per row expected"),
        ({**good, "width": checker.parse_npy(npy([[1]], "<i8", (1, 1)), "w")},
         "A: one limb width per row expected"),
        ({**good, "sign": checker.parse_npy(npy(1, "|i1", ()), "s")},
         "A: one limb width per row expected"),
        (limb_members([[1, -1], [1, 1]], [-1, 2], [3, 4], (2, 2)), "A: negative limb width"),
        (limb_members([[1, -1]], [1], [3, 4, 5], (1, 2)), "A: 3 limbs, the widths need 2"),
        (limb_members([[1, -1]], [2], [3, 4], (1, 2)), "A: 2 limbs, the widths need 4"),
        # Rows of widths 1, 0 and 2 need 2 + 0 + 4 limbs, all rows counted.
        (limb_members([[1, -1], [0, 0], [1, 1]], [1, 0, 2], [3, 4, 5, 6, 7], (3, 2)),
         "A: 5 limbs, the widths need 6"),
        (limb_members([[[1]]], [1], [3], (1, 1, 1)),
         "A: expected a 1-D or 2-D array, got shape (1, 1, 1)"),
    ]
    for members, message in cases:
        with pytest.raises(CertificateError) as info:
            checker.IntArray("A", "limbs", members)
        assert str(info.value) == message
    with pytest.raises(CertificateError) as info:
        checker.IntArray("A", "int64", {"": checker.parse_npy(npy([[1]], "<u4", (1, 1)),
                                                              "a")})
    assert str(info.value) == "A: expected int64 entries"
    with pytest.raises(CertificateError) as info:
        checker.IntArray("A", "int64", {"": checker.parse_npy(npy(1, "<i8", ()), "a")})
    assert str(info.value) == "A: expected a 1-D or 2-D array, got shape ()"
    # A sign that does not match its magnitude, or is not -1, 0, 1.
    for signs, limbs, bad in (([[1, 0]], [3, 4], "sign 0"), ([[0, 1]], [0, 0], "sign 1"),
                              ([[2, 1]], [3, 4], "sign 2"), ([[-2, 1]], [3, 4], "sign -2")):
        arr = checker.IntArray("A", "limbs", limb_members(signs, [1], limbs, (1, 2)))
        with pytest.raises(CertificateError) as info:
            arr.rows()
        assert str(info.value) == f"A[0]: {bad} does not match the magnitude"
    # A zero entry with sign 0 in the second row is named by its own row.
    arr = checker.IntArray("A", "limbs", limb_members([[1, 1], [0, 1]], [1, 1], [1, 1, 5, 6],
                                                      (2, 2)))
    with pytest.raises(CertificateError, match=r"^A\[1\]: sign 0 does not match"):
        arr.rows()
    assert arr.rows(0, 1) == [[1, 1]]
    # Zero-width rows (all entries 0) and empty arrays.
    arr = checker.IntArray("A", "limbs", limb_members([[0, 0], [1, -1]], [0, 1], [2, 3],
                                                      (2, 2)))
    assert arr.rows() == [[0, 0], [2, -3]]
    empty = checker.IntArray("A", "limbs", limb_members(np.zeros((0, 3)), [], [], (0, 3)))
    assert empty.rows() == []


# --- the certificate against the user's matrix ---------------------------------------------

def test_confirm_matrix_compares_every_entry_exactly(square, biased, tmp_path):
    path = square.path()
    exact = "Z = 1 W exactly for all 5 x 2 entries"
    assert checker.confirm_matrix(path, rows=SQUARE) == exact
    assert checker.confirm_matrix(path, array=np.array(SQUARE, dtype=np.float64)) == exact
    assert checker.confirm_matrix(path, array=np.array(SQUARE, dtype=np.int64)) == exact
    for r in range(5):
        for c in range(2):
            for delta in (Fraction(1, 2 ** 30), -1):
                rows = [list(map(Fraction, row)) for row in SQUARE]
                rows[r][c] += delta
                with pytest.raises(CertificateError) as info:
                    checker.confirm_matrix(path, rows=rows)
                assert str(info.value) == (f"row {r}, column {c}: Z is {SQUARE[r][c]}, the "
                                           f"scale times the matrix entry is {rows[r][c]}")
                array = np.array(SQUARE, dtype=np.float64)
                array[r, c] += float(delta)
                with pytest.raises(CertificateError, match=f"^row {r}, column {c}: "):
                    checker.confirm_matrix(path, array=array)
    with pytest.raises(CertificateError) as info:
        checker.confirm_matrix(path, rows=SQUARE[:4])
    assert str(info.value) == "the matrix is 4 x 2, the certificate's Z is 5 x 2"
    with pytest.raises(CertificateError) as info:
        checker.confirm_matrix(path, array=np.zeros((5, 3)))
    assert str(info.value) == "the matrix is 5 x 3, the certificate's Z is 5 x 2"
    with pytest.raises(CertificateError) as info:
        checker.confirm_matrix(path, rows=SQUARE, bias=[0] * 5)
    assert str(info.value) == "a bias was given, but the certificate has none"
    # With a bias: scale 3 (the bias 1/3), every entry and every bias entry compared.
    W, b = BIASED
    path = biased.path()
    assert checker.confirm_matrix(path, rows=W, bias=b) == "Z = 3 W exactly for all 4 x 1 entries"
    assert checker.confirm_matrix(path, array=np.array(W, dtype=np.float32), bias=b)
    with pytest.raises(CertificateError) as info:
        checker.confirm_matrix(path, rows=W)
    assert str(info.value) == "the certificate has a bias; give it (--bias)"
    for r in range(4):
        bad = list(b)
        bad[r] += Fraction(1, 7)
        with pytest.raises(CertificateError) as info:
            checker.confirm_matrix(path, rows=W, bias=bad)
        assert str(info.value) == (f"bias entry {r}: the certificate has {3 * b[r]}, the "
                                   f"scale times the bias is {3 * bad[r]}")


def test_confirm_matrix_with_power_of_two_scales_and_the_file_hash(tmp_path):
    rng = np.random.default_rng(5)
    for dtype in (np.float32, np.float64):
        W = rng.standard_normal((9, 3)).astype(dtype)
        W[2] = (W[0] + W[1]) / 2
        path = tmp_path / f"w{dtype.__name__}.zip"
        source = tmp_path / f"w{dtype.__name__}.npy"
        np.save(source, W)
        write_analyze_certificate(path, analyze(W, cells=False), W, source=source)
        manifest, _ = read(path)
        p, q = map(int, manifest["input"]["scale"].split("/"))
        assert p & (p - 1) == 0 and q & (q - 1) == 0  # powers of two
        text = checker.confirm_matrix(path, array=W)
        assert text.startswith("Z = ") and "exactly for all 9 x 3 entries" in text
        assert checker.confirm_matrix(path, rows=[[Fraction(float(x)) for x in row]
                                                  for row in W]) == text
        for r, c in ((0, 0), (8, 2), (2, 1)):
            for change in (np.nextafter(W[r, c], dtype(10)), -W[r, c], W[r, c] * 2):
                other = W.copy()
                other[r, c] = change
                with pytest.raises(CertificateError, match=f"^row {r}, column {c}: Z is "):
                    checker.confirm_matrix(path, array=other)
        assert manifest["input"]["source"]["sha256"] is not None
        if True:
            assert checker.confirm_matrix(path, array=W, file=source).endswith(
                "; SHA-256 of the file matches")
            other = tmp_path / "other.npy"
            np.save(other, W * 2)
            with pytest.raises(CertificateError) as info:
                checker.confirm_matrix(path, array=W, file=other)
            assert str(info.value) == (f"{other}: SHA-256 differs from the certificate's "
                                       "input.source.sha256 (another file)")
        assert checker.file_sha256(source) == hashlib.sha256(source.read_bytes()).hexdigest()


# --- the evidence: shapes, labels, pairs, multipliers ------------------------------------------

def test_every_array_has_its_shape(square, biased):
    def reshape(name, shape):
        return {name: shape}
    a = square.arrays
    cases = [
        ("Z", [[1, 0, 0]] * 5, (5, 3), "Z: shape (5, 3), expected (5, 2)"),
        ("Z", [[1, 0]] * 4, (4, 2), "Z: shape (4, 2), expected (5, 2)"),
        ("argmax_points", a["argmax_points"][:3], None,
         "argmax_points: shape (3, 2), expected (4, 2)"),
        ("tie_points", a["tie_points"] + [[0, 0]], None,
         "tie_points: shape (5, 2), expected (4, 2)"),
        ("tie_pairs", [p + [0] for p in a["tie_pairs"]], (4, 3), "tie_pairs: shape (4, 3), "
                                                                  "expected (4, 2)"),
        ("non_tie_pairs", [x for p in a["non_tie_pairs"] for x in p], (12,),
         "non_tie_pairs: shape (12,), expected (12, 2)"),
        ("non_tie_t", a["non_tie_t"][:5], None, "non_tie_t: shape (5,), expected (6,)"),
        ("non_tie_t", [[t] for t in a["non_tie_t"]], (6, 1),
         "non_tie_t: shape (6, 1), expected (6,)"),
        ("hull_offsets", a["hull_offsets"] + [2], None,
         "hull_offsets: shape (3,), expected (2,)"),
        ("hull_denominators", [2, 2], None, "hull_denominators: shape (2,), expected (1,)"),
        ("non_tie_denominators", a["non_tie_denominators"][:5], None,
         "non_tie_denominators: shape (5,), expected (6,)"),
        ("hull_support", [[0], [2]], (2, 1), "hull_support: shape (2, 1), expected (2,)"),
        ("hull_weights", [1, 1, 0], None, "hull_weights: shape (3,), expected (2,)"),
        ("non_tie_weights", a["non_tie_weights"][:7], None,
         "non_tie_weights: shape (7,), expected (8,)"),
        ("argmax_labels", [[x] for x in a["argmax_labels"]], (4, 1),
         "argmax_labels: shape (4, 1), expected (4,)"),
        ("hull_labels", [[4]], (1, 1), "hull_labels: shape (1, 1), expected (1,)"),
    ]
    for name, value, shape, message in cases:
        def change(arrays, name=name, value=value):
            arrays[name] = value
        assert square.forge(change, shapes=reshape(name, shape) if shape else None) == (
            "INVALID", message), name
    ab = biased.arrays

    def short_bias(arrays):
        arrays["bias"] = arrays["bias"][:3]
    assert biased.forge(short_bias) == ("INVALID", "bias: shape (3,), expected (4,)")

    def no_scale(arrays):
        arrays["argmax_points"] = [p[:1] for p in arrays["argmax_points"]]
    assert biased.forge(no_scale, shapes={"argmax_points": (3, 1)}) == ("INVALID", "argmax_points: shape (3, 1), expected (3, 2)")
    assert len(ab["tie_points"][0]) == 2


def test_offsets_must_increase_from_zero_to_the_support_size(square):
    for offsets in ([1, 1, 2, 3, 5, 6, 8], [0, 1, 2, 3, 5, 6, 7], [0, 2, 1, 3, 5, 6, 8],
                    [0, 1, 2, 3, 5, 6, 9]):
        def change(a, offsets=offsets):
            a["non_tie_offsets"] = offsets
        assert square.forge(change) == ("INVALID", "non_tie_offsets: must increase from 0 "
                                                   "to 8")
    # Equal offsets are an empty support, allowed by the format (a certificate with
    # only T; here its identity fails).

    def empty(a):
        a["hull_offsets"] = [0, 0]
        a["hull_support"], a["hull_weights"] = [], []
        a["hull_denominators"] = [1]
    assert square.forge(empty) == ("INVALID", "convex weights[0]: the weights sum to 0, not 1")


def test_labels_are_in_range_increasing_and_decided_once(square):
    cases = [
        (lambda a: a["argmax_labels"].__setitem__(0, -1),
         "argmax_labels[0]: label -1 is not in 0..4"),
        (lambda a: a["argmax_labels"].__setitem__(3, 5),
         "argmax_labels[3]: label 5 is not in 0..4"),
        (lambda a: a["hull_labels"].__setitem__(0, 5), "hull_labels[0]: label 5 is not in 0..4"),
        (lambda a: a["argmax_labels"].__setitem__(1, 0),
         "argmax_labels[1]: labels must increase (label 0 after 0)"),
        (lambda a: a["argmax_labels"].__setitem__(2, 0),
         "argmax_labels[2]: labels must increase (label 0 after 1)"),
    ]
    for change, message in cases:
        assert square.forge(change) == ("INVALID", message)

    def two_hull(a):
        a["hull_labels"] = [4, 4]
        a["hull_offsets"] = [0, 2, 4]
        a["hull_support"] = [0, 2, 1, 3]
        a["hull_weights"] = [1, 1, 1, 1]
        a["hull_denominators"] = [2, 2]
    assert square.forge(two_hull) == ("INVALID", "hull_labels[1]: labels must increase "
                                                 "(label 4 after 4)")

    def first_twice(a):  # label 0 with a witness and (false) weights: named before all else
        a["hull_labels"] = [0, 4]
        a["hull_offsets"] = [0, 1, 3]
        a["hull_support"] = [1, 0, 2]
        a["hull_weights"] = [1, 1, 1]
        a["hull_denominators"] = [1, 2]
    assert square.forge(first_twice) == ("INVALID", "label 0 has both an argmax witness and "
                                                    "convex weights")

    def missing_two(a):
        a["argmax_labels"] = [0, 3]
        a["argmax_points"] = [a["argmax_points"][0], a["argmax_points"][3]]
    assert square.forge(missing_two) == ("INVALID", "label 1 is not decided (every label "
                                                    "needs an argmax witness or convex "
                                                    "weights)")


def test_pairs_are_in_range_increasing_and_decided_once(square):
    for pair, name in (([-1, 2], "tie_pairs"), ([0, 0], "tie_pairs"), ([3, 5], "tie_pairs"),
                       ([1, 0], "non_tie_pairs"), ([4, 5], "non_tie_pairs")):
        def change(a, pair=pair, name=name):
            a[name][0] = pair
        assert square.forge(change) == (
            "INVALID", f"{name}[0]: ({pair[0]}, {pair[1]}) is not a pair i < j of labels 0..4")

    def descending(a):
        a["non_tie_pairs"][1], a["non_tie_pairs"][2] = a["non_tie_pairs"][2], a["non_tie_pairs"][1]
    assert square.forge(descending) == (
        "INVALID", "non_tie_pairs[2]: pairs must increase ((0, 4) after (1, 3))")

    def both_lists(a):  # (0, 2) also claimed to tie, at a point where it does not
        a["tie_pairs"] = [[0, 1], [0, 2], [0, 3], [1, 2], [2, 3]]
        a["tie_points"] = a["tie_points"][:1] + [[0, 5]] + a["tie_points"][1:]
    assert square.forge(both_lists, _set("assertion", "tie_pairs", 5)) == (
        "INVALID", "non_tie_pairs[0]: pair (0, 2) is also listed as a tie pair")


def test_multipliers_are_checked_and_named(square, biased):
    cases = [
        (lambda a: a["hull_support"].__setitem__(1, 0),
         "convex weights[0]: a label is listed twice in the support"),
        (lambda a: a["hull_support"].__setitem__(1, 5),
         "convex weights[0]: support label 5 is not allowed (must be in 0..4, not 4)"),
        (lambda a: a["hull_support"].__setitem__(0, -1),
         "convex weights[0]: support label -1 is not allowed (must be in 0..4, not 4)"),
        (lambda a: a["non_tie_support"].__setitem__(0, 0),
         "no-tie certificate[0]: support label 0 is not allowed (must be in 0..4, not 0 or 2)"),
        (lambda a: a["non_tie_support"].__setitem__(1, 4),
         "no-tie certificate[1]: support label 4 is not allowed (must be in 0..4, not 0 or 4)"),
        (lambda a: a["non_tie_support"].__setitem__(4, 0),
         "no-tie certificate[3]: a label is listed twice in the support"),
        (lambda a: a["hull_weights"].__setitem__(0, -1),
         "convex weights[0]: negative weight -1"),
        (lambda a: a["non_tie_weights"].__setitem__(3, -3),
         "no-tie certificate[3]: negative weight -3"),
        (lambda a: a["hull_denominators"].__setitem__(0, -2),
         "convex weights[0]: the denominator must be positive, got -2"),
        (lambda a: a["non_tie_denominators"].__setitem__(5, 0),
         "no-tie certificate[5]: the denominator must be positive, got 0"),
        (lambda a: a["hull_denominators"].__setitem__(0, 3),
         "convex weights[0]: the weights sum to 2/3, not 1"),
        (lambda a: a["non_tie_denominators"].__setitem__(0, 3),
         "no-tie certificate[0]: the weights sum to 2/3, not 1"),
        (lambda a: a["non_tie_denominators"].__setitem__(0, 1),
         "no-tie certificate[0]: the weights sum to 2, not 1"),
    ]
    for change, message in cases:
        assert square.forge(change) == ("INVALID", message), message
    # A huge sum is named by its size.

    def huge(a):
        a["hull_weights"] = [1 << 300, 1 << 300]
        a["hull_denominators"] = [(1 << 301) + 1]
    assert square.forge(huge, encodings={"hull_weights": "limbs",
                                         "hull_denominators": "limbs"}) == ("INVALID", "convex weights[0]: the weights sum to a number "
                                             "of 302 bits over 302 bits, not 1")
    # With a bias, no-tie weights may sum to less than D, not more; convex weights to D.
    b = biased.arrays
    r = 1
    lo, hi = b["non_tie_offsets"][r], b["non_tie_offsets"][r + 1]
    assert sum(b["non_tie_weights"][lo:hi]) <= b["non_tie_denominators"][r]

    def more(a):
        a["non_tie_denominators"][r] = sum(a["non_tie_weights"][lo:hi]) - 1
    total = sum(b["non_tie_weights"][lo:hi])
    assert biased.forge(more) == ("INVALID", f"no-tie certificate[{r}]: the weights sum to "
                                             f"{Fraction(total, total - 1)}, more than 1")

    def less(a):
        a["non_tie_denominators"][r] += 5
    assert biased.forge(less)[0] == "OK"

    def equal(a):
        a["non_tie_denominators"][r] = sum(a["non_tie_weights"][lo:hi])
    assert biased.forge(equal)[0] == "OK"

    def hull_less(a):
        a["hull_denominators"][0] += 1
    D = b["hull_denominators"][0]
    assert biased.forge(hull_less) == ("INVALID", "convex weights[0]: the weights sum to "
                                                  f"{Fraction(D, D + 1)}, not 1")


# --- the assertion, the hash, the scale h ------------------------------------------------------

def members_digest(path, names) -> str:
    h = hashlib.sha256()
    with zipfile.ZipFile(path) as z:
        manifest = json.loads(z.read("manifest.json"))
        for name in names:
            enc = manifest["evidence"]["encoding"][name]
            for m in ([f"{name}.npy"] if enc == "int64" else
                      [f"{name}.{p}.npy" for p in ("sign", "width", "limbs")]):
                h.update(z.read(m))
    return h.hexdigest()


def test_the_hash_covers_the_matrix_and_the_bias(square, biased):
    for base, names, text in ((square, ["Z"], "Z"), (biased, ["Z", "bias"], "Z and bias")):
        for encodings in (None, {"Z": "limbs"}, {"Z": "limbs", "bias": "limbs"}):
            if encodings and "bias" in encodings and base is square:
                continue
            path = base.path(None, _set("input", "sha256", "0" * 64), encodings,
                             rehash=False)
            digest = members_digest(path, names)
            assert both(path) == ("INVALID", f"input.sha256 does not match the stored matrix "
                                             f"({text}): {digest}")
    if True:
        # The bias alone changed: the hash no longer matches.
        path = biased.path(lambda a: a["bias"].__setitem__(0, 1), rehash=False)
        with zipfile.ZipFile(path) as z:
            doc = json.loads(z.read("manifest.json"))
        doc["input"]["sha256"] = members_digest(path, ["Z"])
        out = rewrite_manifest(path, lambda m: m.update(input=doc["input"]),
                               path.with_name("z-only.zip"))
        status, message = both(out)
        assert status == "INVALID" and message.startswith("input.sha256 does not match")


def test_the_assertion_counts_and_completeness(square):
    a = square.arrays
    for key, value in (("argmaxable", 4), ("unargmaxable", 1), ("tie_pairs", 4),
                       ("non_tie_pairs", 6)):
        for wrong in (value - 1, value + 1):
            assert square.forge(None, _set("assertion", key, wrong)) == (
                "INVALID", f"assertion.{key} is {wrong}, the evidence has {value}")
    assert square.forge(None, _set("assertion", "complete", False)) == (
        "INVALID", "assertion.complete is false, but 10 of 10 pairs are decided")

    def drop_tie(arrays):
        arrays["tie_pairs"].pop(2)
        arrays["tie_points"].pop(2)

    def fewer(m):
        m["assertion"]["tie_pairs"] = 3
    assert square.forge(drop_tie, fewer) == (
        "INVALID", "assertion.complete is true, but 9 of 10 pairs are decided")

    def incomplete(m):
        fewer(m)
        m["assertion"]["complete"] = False
    status, summary = square.forge(drop_tie, incomplete)
    assert status == "OK" and summary.endswith("9 of 10 pairs decided: 3 can tie, 6 cannot")
    assert len(a["tie_pairs"]) == 4


def test_the_scale_h_of_every_point_must_be_positive(biased):
    b = biased.arrays
    for r, t in enumerate(b["argmax_labels"]):
        for h in (0, -1):
            def change(a, r=r, h=h):
                a["argmax_points"][r] = [a["argmax_points"][r][0] * abs(h), h]
            assert biased.forge(change) == (
                "INVALID", f"argmax witness of label {t}: the scale h = {h} of the input "
                           "must be positive")

        def scaled(a, r=r):  # (k x, k h): the same input
            a["argmax_points"][r] = [7 * v for v in a["argmax_points"][r]]
        assert biased.forge(scaled)[0] == "OK"
    for r, (i, j) in enumerate(b["tie_pairs"]):
        def change(a, r=r):
            a["tie_points"][r] = [-v for v in a["tie_points"][r]]
        assert biased.forge(change) == (
            "INVALID", f"tie witness of labels {i} and {j}: the scale h = "
                       f"{-b['tie_points'][r][-1]} of the input must be positive")


# --- witnesses near cancellation: both arithmetics against the definition ---------------------

def circle(n, radius):
    """``n`` integer points near a circle, in convex position (every label argmaxable),
    primitive as a certificate's head is (the first moved out by 1 if need be)."""
    from math import cos, gcd, pi, sin
    Z = [[int(radius * cos(2 * pi * k / n)), int(radius * sin(2 * pi * k / n))]
         for k in range(n)]
    if gcd(*(v for z in Z for v in z)) > 1:
        Z[0][0] += 1
    return Z


def circle_certificate(n, radius, root, name, encodings=None):
    Z = circle(n, radius)
    manifest = {
        "format": "verify-certificate/1", "claim": "analyze",
        "input": {"n": n, "d": 2, "bias": False, "scale": "1/1",
                  "source": {"name": None, "sha256": None, "tensor": None},
                  "sha256": "0" * 64},
        "assertion": {"argmaxable": n, "unargmaxable": 0, "tie_pairs": 0,
                      "non_tie_pairs": 0, "complete": False},
        "evidence": {"encoding": {k: ("limbs" if k in ("argmax_points", "tie_points")
                                      else "int64") for k in ORDER if k != "bias"}}}
    arrays = {"Z": Z, "argmax_labels": list(range(n)), "argmax_points": [list(z) for z in Z],
              "hull_labels": [], "hull_offsets": [0], "hull_support": [],
              "hull_weights": [], "hull_denominators": [], "tie_pairs": [], "tie_points": [],
              "non_tie_pairs": [], "non_tie_offsets": [0], "non_tie_support": [],
              "non_tie_weights": [], "non_tie_denominators": [], "non_tie_t": []}
    base = Base(root, name, manifest, arrays)
    assert base.forge(encodings=encodings)[0] == "OK"
    return base


def scores(Z, x):
    return [sum(a * b for a, b in zip(z, x)) for z in Z]


@pytest.mark.parametrize("radius", [2 ** 20, 2 ** 40, 2 ** 61])
def test_witnesses_near_cancellation_against_the_definition(tmp_path, radius):
    """Points on the bisector of two neighbours ``t, k`` (``x0 . (z_t - z_k) = 0``,
    entries far beyond ``2^53``), moved by a unit vector: the margin of ``t`` over ``k``
    is then an entry of ``z_t - z_k``, far below float64's resolution of the scores.
    Every verdict must be the definition's, in both arithmetics."""
    n = 7
    base = circle_certificate(n, radius, tmp_path, "c")
    Z = base.arrays["Z"]
    for t in range(n):
        for k in ((t + 1) % n, (t - 1) % n):
            v = [p - q for p, q in zip(Z[t], Z[k])]
            y = [p + q for p, q in zip(Z[t], Z[k])]
            vv, vy = sum(p * p for p in v), sum(p * q for p, q in zip(v, y))
            x0 = [vv * p - vy * q for p, q in zip(y, v)]
            for e in ([0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]):
                x = [p + q for p, q in zip(x0, e)]
                s = scores(Z, x)
                rivals = [j for j in range(n) if j != t and s[j] >= s[t]]

                def argmax(a, x=x, t=t):
                    a["argmax_points"][t] = x
                expected = ("OK" if not rivals else
                            f"argmax witness of label {t}: label {rivals[0]} scores at least "
                            "as high at the point")
                status, message = base.forge(argmax)
                assert (message if status == "INVALID" else "OK") == expected

                i, j = min(t, k), max(t, k)
                others = [m for m in range(n) if m not in (i, j) and s[m] >= s[i]]

                def tie(a, x=x, i=i, j=j):
                    a["tie_pairs"], a["tie_points"] = [[i, j]], [x]

                def one_pair(m):
                    m["assertion"]["tie_pairs"] = 1
                status, message = base.forge(tie, one_pair)
                if s[i] != s[j]:
                    expected = f"tie witness of {i} and {j}: labels {i} and {j} do not score equally at the point"
                elif others:
                    expected = (f"tie witness of {i} and {j}: label {others[0]} scores at "
                                "least as high at the point")
                else:
                    expected = "OK"
                assert (message if status == "INVALID" else "OK") == expected


def test_the_first_failing_witness_and_the_first_rival_are_named(tmp_path):
    n = 9
    base = circle_certificate(n, 1000, tmp_path, "f")
    Z = base.arrays["Z"]
    for bad in ([2, 5], [0, 8], [6, 7]):
        def change(a, bad=bad):
            for r in bad:
                a["argmax_points"][r] = [0, 0]  # every label scores 0
        assert base.forge(change) == ("INVALID", f"argmax witness of label {bad[0]}: label "
                                                 f"{1 if bad[0] == 0 else 0} scores at least "
                                                 "as high at the point")
    # Label 4's witness moved to label 6's: labels 5, 6, 7 beat it; 5 is named first...
    # unless the first rival in label order is another: the definition decides.
    for t, src in ((4, 6), (0, 3), (8, 2)):
        s = scores(Z, Z[src])
        first = next(j for j in range(n) if j != t and s[j] >= s[t])

        def change(a, t=t, src=src):
            a["argmax_points"][t] = list(Z[src])
        assert base.forge(change) == ("INVALID", f"argmax witness of label {t}: label "
                                                 f"{first} scores at least as high at the "
                                                 "point")
    assert Z[0] != Z[1]


def test_blocks_of_witnesses_of_any_width(tmp_path, monkeypatch):
    """Many witnesses, checked in blocks of every width, fail where the definition says."""
    n = 300  # more than one block of 256 witnesses in Python integers
    base = circle_certificate(n, 2 ** 30, tmp_path, "b")
    Z = base.arrays["Z"]
    for r in (0, 255, 256, 257, 299):
        def change(a, r=r):
            a["argmax_points"][r] = list(Z[(r + 1) % n])
        s = scores(Z, Z[(r + 1) % n])
        first = next(j for j in range(n) if j != r and s[j] >= s[r])
        want = ("INVALID", f"argmax witness of label {r}: label {first} scores at least as "
                           "high at the point")
        path = base.path(change)
        assert verdict(path, "python") == want
        for width in (None, 1, 2, 3, 256, 1000):
            if width is not None:
                monkeypatch.setattr(checker.NumpyArithmetic, "_block_columns",
                                    lambda self, width=width: width)
            assert verdict(path, "numpy") == want, width
        monkeypatch.undo()
    block = checker.NumpyArithmetic._block_columns
    for rows in (1, 2, 1000, 10 ** 6, 10 ** 8):
        probe = type("P", (), {"F": np.zeros((rows, 1))})()
        assert block(probe) == max(1, min(4096, (256 << 20) // (48 * rows)))


@pytest.mark.parametrize("jobs", [2, 3])
def test_worker_processes_name_the_first_failure_in_block_order(tmp_path, monkeypatch,
                                                                  jobs):
    """Blocks shared among forked processes: the verdict and the message are those of
    one process and of Python integers, whichever block fails first or alone, and a
    valid certificate passes; the blocks run in the workers, not in the parent."""
    n = 60
    base = circle_certificate(n, 2 ** 30, tmp_path, "j")
    Z = base.arrays["Z"]
    calls, slow = [], [False]
    run_block = checker.NumpyArithmetic.block_failure

    def block_failure(self, points, targets, partners, lo, hi):
        calls.append(1)
        if lo == 0 and slow[0]:
            time.sleep(0.3)  # the first block finishes last: its failure still wins
        return run_block(self, points, targets, partners, lo, hi)

    monkeypatch.setattr(checker.NumpyArithmetic, "block_failure", block_failure)
    for bad in ((), (0,), (7,), (59,), (33, 8), (40, 41, 52), (0, 30)):
        slow[0] = bad == (0, 30)

        def change(a, bad=bad):
            for r in bad:
                a["argmax_points"][r] = list(Z[(r + 1) % n])
        path = base.path(change)
        want = verdict(path, "python")
        assert want[0] == ("INVALID" if bad else "OK")
        if bad:
            r = min(bad)
            assert want[1].startswith(f"argmax witness of label {r}: label ")
        for width in (1, 4, 7):
            monkeypatch.setattr(checker.NumpyArithmetic, "_block_columns",
                                lambda self, width=width: width)
            try:
                got = "OK", checker.check_file(path, backend="numpy", jobs=jobs)
            except CertificateError as exc:
                got = "INVALID", str(exc)
            assert got == want, (bad, width)
    assert not calls  # every block was checked in a forked worker


# --- identities: modulo primes against Python integers ----------------------------------------

def arithmetics(Z, bias=None):
    """Both arithmetics over the head ``Z`` (int64 entries)."""
    ev = type("Ev", (), {})()
    n, d = len(Z), len(Z[0])
    ev.n, ev.d, ev.beta = n, d, bias
    ev.Z = int_array(Z, (n, d), "int64", "Z")
    return checker.PythonArithmetic(ev), checker.NumpyArithmetic(ev, np)


def first_nonzero(Z, labels, coefficients):
    d = len(Z[0])
    values = [sum(a * Z[k][c] for a, k in zip(coefficients, labels)) for c in range(d)]
    return next((c for c, v in enumerate(values) if v), None)


def test_identities_modulo_primes_against_the_definition():
    p = checker.primes_with_product_above(1 << 200)
    M = 1 << 63
    # Rows whose combinations vanish modulo some of the primes used, not all: a
    # coordinate is nonzero but a multiple of one prime, or of two.
    Z = [[p[0] * p[1], p[0], p[1], p[2], 0, -M, M - 1],
         [0, 0, 0, 0, 0, 0, 0],
         [1, 1, 1, 1, 1, 1, 1],
         [-p[0] * p[1], -p[0], -p[1], -p[2], 0, M - 1, -M]]
    python, numpy = arithmetics(Z)
    cases = [([0, 1], [1, -1]), ([0, 3], [1, 1]), ([0, 1, 2], [1, 5, 0]),
             ([3, 1], [-1, 7]), ([1, 2], [3, 0]), ([0, 2], [1, -1]), ([2], [0]),
             ([0, 3, 2], [2, 2, 1]), ([0, 3], [p[1], p[1]]), ([0, 3], [M, M])]
    for labels, coefficients in cases:
        want = first_nonzero(Z, labels, coefficients)
        assert python.nonzero_coordinate(labels, coefficients) == want
        assert numpy.nonzero_coordinate(labels, coefficients) == want, (labels, coefficients)
    assert numpy.nonzero_coordinate([], []) is None
    # Single coordinates that are multiples of each prime used, of pairs of them.
    for values in ([p[0], 0, 0], [0, p[1], 0], [0, 0, p[2]], [0, 0, p[0] * p[2]],
                   [0, p[1] * p[2], 5], [0, 0, 0]):
        Z = [values, [0, 0, 0], [0, 0, 1]]
        python, numpy = arithmetics(Z)
        for coefficients in ([1, 1, 0], [1, 2 ** 40, 0], [-3, 1, 0]):
            want = first_nonzero(Z, [0, 1, 2], coefficients)
            assert python.nonzero_coordinate([0, 1, 2], coefficients) == want
            assert numpy.nonzero_coordinate([0, 1, 2], coefficients) == want


def test_identities_of_many_rows_in_blocks(monkeypatch):
    rng = np.random.default_rng(11)
    n = 2 * checker.SUM_ROWS + 7
    Z = rng.integers(-(2 ** 62), 2 ** 62, size=(n, 3)).tolist()
    python, numpy = arithmetics(Z)
    labels = list(range(n))
    coefficients = rng.integers(-(2 ** 30), 2 ** 30, size=n).tolist()
    # Make coordinate 1 vanish exactly: the last coefficient's row absorbs the sum.
    Z[-1] = [0, 1, 0]
    total = sum(a * z[1] for a, z in zip(coefficients[:-1], Z[:-1]))
    coefficients[-1] = -total
    Z[-1][1] = 1
    python, numpy = arithmetics(Z)
    for cs in (coefficients, [0] * (n - 1) + [1], [1] + [0] * (n - 1)):
        want = first_nonzero(Z, labels, cs)
        assert python.nonzero_coordinate(labels, cs) == want
        assert numpy.nonzero_coordinate(labels, cs) == want
    # Coordinate 0 nonzero only through rows of the last block.
    Z2 = [[0, 1, 1]] * (n - 1) + [[5, 0, 0]]
    python, numpy = arithmetics(Z2)
    cs = [1] * n
    assert numpy.nonzero_coordinate(labels, cs) == python.nonzero_coordinate(labels, cs) == 0
    Z3 = [[5, 0, 0]] + [[0, 1, 1]] * (n - 1)
    python, numpy = arithmetics(Z3)
    cs = [1] + [0] * (n - 1)
    assert numpy.nonzero_coordinate(labels, cs) == 0
    # Beyond MAX_PRIMES primes the identity is computed in Python integers, same answer.
    big = [1 << 7000, 1]
    python, numpy = arithmetics([[1, 2], [3, 4], [5, 6]])
    for cs in ([big[0], -big[0], 0], [1, 1, -1]):
        assert numpy.nonzero_coordinate([0, 1, 2], cs) == first_nonzero(
            [[1, 2], [3, 4], [5, 6]], [0, 1, 2], cs)
    called = []
    monkeypatch.setattr(checker.PythonArithmetic, "nonzero_coordinate",
                        lambda self, labels, cs: called.append(len(labels)) or 0)
    assert numpy.nonzero_coordinate([0, 1], [1 << 7000, 1]) == 0 and called == [2]
    assert numpy.nonzero_coordinate([0, 1], [1 << 6000, 1]) is not None and called == [2]


def test_products_with_large_points_against_python_integers():
    """The float screen with points beyond 2^53 (scaled down by 2^e) and beyond int64."""
    rng = np.random.default_rng(2)
    Z = rng.integers(-(2 ** 62), 2 ** 62, size=(6, 3)).tolist()
    python, numpy = arithmetics(Z)
    for bits in (10, 52, 53, 54, 62, 63, 64, 100, 300):
        for _ in range(3):
            x = [int(v) << max(0, bits - 30) for v in rng.integers(-(2 ** 30), 2 ** 30, 3)]
            s = scores(Z, x)
            t = max(range(6), key=lambda k: s[k])
            for target in (t, (t + 1) % 6):
                rows = [x]
                encoding = "limbs" if max(map(abs, x)) >= 1 << 63 else "int64"
                points = int_array(rows, (1, 3), encoding)
                want = next(((0, k) for k in range(6) if k != target and s[k] >= s[target]),
                            None)
                assert python.first_failure(points, [target]) == want
                assert numpy.first_failure(points, [target]) == want
    X, exact = numpy._float_points([[1, -(2 ** 63), 0], [2 ** 53, 3, 0],
                                    [2 ** 53 - 1, 0, 0]])
    assert exact.tolist() == [False, False, True]  # e = 11, 1, 0
    assert X[:, 0].tolist() == [0.0, float(-(2 ** 63) >> 11), 0.0]
    X, exact = numpy._float_points([[1, -(2 ** 63), 0], [5, 3, 0]])
    assert exact.tolist() == [True, True]  # -2^63 is a float64
    assert X.tolist() == [[1.0, 5.0], [-(2.0 ** 63), 3.0], [0.0, 0.0]]
    X, exact = numpy._float_points([[2 ** 70 + 1, 1, -5], [2 ** 53 + 1, 2 ** 60, 0]])
    assert exact.tolist() == [False, False]
    assert X[:, 0].tolist() == [float((2 ** 70 + 1) >> 18), float(1 >> 18), float(-5 >> 18)]
    assert X[:, 1].tolist() == [float((2 ** 53 + 1) >> 8), float(2 ** 60 >> 8), 0.0]
    X, exact = numpy._float_points([[3, 1, 0], [2 ** 53 - 1, 2, 0]])
    assert exact.tolist() == [True, True]
    assert X.tolist() == [[3.0, 2.0 ** 53 - 1], [1.0, 2.0], [0.0, 0.0]]


# --- the bias conditions, and the choice of arithmetic ----------------------------------------

def halfway(a):
    """Label 1's convex weights as z_1 = (z_0 + z_2) / 2 (valid: beta_1 = -3 <= 0), which
    the forgeries below then break through the bias alone."""
    a["hull_support"], a["hull_weights"] = [0, 2], [1, 1]
    a["hull_offsets"], a["hull_denominators"] = [0, 2], [2]


def test_bias_conditions_of_convex_weights_and_no_tie_certificates(biased):
    b = biased.arrays
    assert b["hull_labels"] == [1] and b["bias"][1] < 0
    assert biased.forge(halfway)[0] == "OK"

    def equal(a):  # beta_1 = the combination exactly: still never alone on top
        halfway(a)
        a["bias"][1] = 0
    assert biased.forge(equal)[0] == "OK"

    def above(a):  # beta_0 = -1: 2 beta_1 = 0 > -1 = 1 beta_0 + 1 beta_2
        halfway(a)
        a["bias"][1], a["bias"][0] = 0, -1
        a["argmax_points"][0] = [-2, 1]  # label 0 still wins at x = -2
        a["tie_points"][0] = [-2, 3]  # 0 and 3 tie on top at x = -2/3
    status, message = biased.forge(above)
    assert (status, message) == ("INVALID", "convex weights[0] of label 1: the bias of label 1 "
                                            "exceeds the combination of the others")
    # No-tie certificates: sigma = sum m_k (beta_i - beta_k) + T (beta_i - beta_j).
    for r, (i, j) in enumerate(b["non_tie_pairs"]):
        lo, hi = b["non_tie_offsets"][r], b["non_tie_offsets"][r + 1]
        labels, weights = b["non_tie_support"][lo:hi], b["non_tie_weights"][lo:hi]
        T = b["non_tie_t"][r]
        beta = b["bias"]
        sigma = sum(w * (beta[i] - beta[k]) for k, w in zip(labels, weights)) + T * (
            beta[i] - beta[j])
        assert sigma <= 0 and (any(weights) or sigma < 0)
        # Raise beta_i by just enough to make sigma positive (or zero): i and j can then
        # tie, or the certificate proves nothing.
        coefficient = sum(weights) + T  # d sigma / d beta_i
        if coefficient == 0:
            continue
        for target in (0, 1):
            step = Fraction(target - sigma, coefficient)
            if step.denominator != 1:
                continue

            def change(a, i=i, step=step):
                a["bias"][i] += int(step)
            status, message = biased.forge(change)
            if status == "OK":
                continue  # another check of the forged head failed first, or none
            if message.startswith(f"no-tie certificate[{r}]"):
                kind = "positive" if target > 0 else "zero with no weight"
                assert target == 1 or not any(weights)
                assert message == (f"no-tie certificate[{r}] of {i} and {j}: the bias term is "
                                   f"{kind}")


def test_a_no_tie_certificate_with_zero_slack_needs_a_weight(tmp_path):
    # Labels 0, 1 with equal rows and biases 0 and 1 never tie (T alone: sigma = -T < 0
    # for T > 0); labels 1, 2 with equal rows and the same bias tie everywhere.
    W, b = [[1], [1], [0]], [0, 1, 0]
    root = tmp_path
    write_analyze_certificate(root / "z.zip", analyze_with_bias(W, b), W, bias=b)
    base = Base(root, "z", *read(root / "z.zip"))
    a = base.arrays
    r = a["non_tie_pairs"].index([0, 1])
    assert base.forge()[0] == "OK"

    def only_t(arrays, T):
        lo, hi = arrays["non_tie_offsets"][r], arrays["non_tie_offsets"][r + 1]
        for k in range(lo, hi):
            arrays["non_tie_weights"][k] = 0
        arrays["non_tie_t"][r] = T
    sigma = {T: T * (a["bias"][0] - a["bias"][1]) for T in (-1, 0, 1, 2)}
    for T in (-1, 0, 1, 2):
        status, message = base.forge(lambda arrays, T=T: only_t(arrays, T))
        if sigma[T] < 0:
            assert status == "OK"
        else:
            kind = "positive" if sigma[T] > 0 else "zero with no weight"
            assert (status, message) == ("INVALID", f"no-tie certificate[{r}] of 0 and 1: "
                                                    f"the bias term is {kind}")


def test_the_arithmetic_is_chosen_as_documented(square, tmp_path, monkeypatch):
    path = square.path()
    archive = checker.Archive(path)
    ev = checker.Evidence(archive, checker.read_manifest(archive))
    assert type(checker.choose_backend(ev, "python")) is checker.PythonArithmetic
    assert type(checker.choose_backend(ev, "numpy")) is checker.NumpyArithmetic
    assert type(checker.choose_backend(ev, "auto")) is checker.PythonArithmetic  # 10 entries
    # One process unless more are asked for (the documented default of --jobs).
    assert checker.choose_backend(ev, "numpy").jobs == 1
    assert checker.choose_backend(ev, "numpy", 3).jobs == 3
    assert checker.NumpyArithmetic(ev, np).jobs == 1
    seen = []
    choose = checker.choose_backend
    monkeypatch.setattr(checker, "choose_backend",
                        lambda ev, backend, jobs=None: seen.append(jobs) or choose(ev, backend))
    checker.check_file(path)
    checker.check_file(path, jobs=4)
    checker.check_archive(checker.Archive(path))
    assert seen == [1, 4, 1]
    monkeypatch.undo()
    with pytest.raises(ValueError, match="unknown backend 'fast'"):
        checker.choose_backend(ev, "fast")
    with pytest.raises(ValueError, match="unknown backend 'fast'"):
        checker.check_file(path, backend="fast")
    monkeypatch.setattr(checker, "NUMPY_MIN_ENTRIES", 10)
    assert type(checker.choose_backend(ev, "auto")) is checker.NumpyArithmetic
    monkeypatch.setattr(checker, "NUMPY_MIN_ENTRIES", 11)
    assert type(checker.choose_backend(ev, "auto")) is checker.PythonArithmetic
    monkeypatch.setattr(checker, "NUMPY_MIN_ENTRIES", 10)
    # Z in limbs: the wide float copy (identities in Python integers).
    limbs = square.path(encodings={"Z": "limbs"})
    archive = checker.Archive(limbs)
    ev_limbs = checker.Evidence(archive, checker.read_manifest(archive))
    assert type(checker.choose_backend(ev_limbs, "numpy")) is checker.WideNumpyArithmetic
    assert type(checker.choose_backend(ev_limbs, "auto")) is checker.WideNumpyArithmetic
    assert type(checker.choose_backend(ev_limbs, "python")) is checker.PythonArithmetic
    # Without numpy: auto uses Python integers; numpy asked for is an error.
    monkeypatch.setattr(checker, "numpy_or_none", lambda: None)
    assert type(checker.choose_backend(ev, "auto")) is checker.PythonArithmetic
    with pytest.raises(CertificateError) as info:
        checker.choose_backend(ev, "numpy")
    assert str(info.value) == "the numpy path was asked for, but numpy cannot be imported"
    monkeypatch.undo()
    assert checker.numpy_or_none() is np
    monkeypatch.setattr(checker, "import_module", lambda name: (_ for _ in ()).throw(
        ImportError(name)))
    assert checker.numpy_or_none() is None


def test_a_bias_beyond_int64_is_checked_with_the_wide_float_copy(biased):
    b = biased.arrays
    huge = 1 << 63

    def shift(a):  # adding the same constant to every bias changes no verdict
        a["bias"] = [v - huge for v in a["bias"]]
    path = biased.path(shift, encodings={"bias": "limbs"})
    archive = checker.Archive(path)
    ev = checker.Evidence(archive, checker.read_manifest(archive))
    assert type(checker.choose_backend(ev, "numpy")) is checker.WideNumpyArithmetic
    assert both(path)[0] == "OK"
    for value in (huge - 1, -(huge - 1)):
        def near(a, value=value):
            a["bias"] = [v + value for v in a["bias"]]
        path = biased.path(near, encodings={"bias": "limbs"})
        archive = checker.Archive(path)
        ev = checker.Evidence(archive, checker.read_manifest(archive))
        arith = checker.choose_backend(ev, "numpy")
        fits = all(abs(v) < huge for v in ev.beta)
        assert type(arith) is (checker.NumpyArithmetic if fits else checker.WideNumpyArithmetic)
        assert both(path)[0] == "OK"
    assert max(map(abs, b["bias"])) < 8
    # The numpy arithmetic's rows carry the bias last, exactly.
    archive = checker.Archive(biased.path())
    ev = checker.Evidence(archive, checker.read_manifest(archive))
    arith = checker.NumpyArithmetic(ev, np)
    for k in range(4):
        assert arith._row(k) == b["Z"][k] + [b["bias"][k]]
        assert arith.z_row(k) == b["Z"][k]
        assert arith.F[k].tolist() == [float(v) for v in b["Z"][k] + [b["bias"][k]]]
        assert arith.N[k] == pytest.approx(float(sum(v * v for v in arith._row(k))) ** 0.5)
    python = checker.PythonArithmetic(ev)
    assert python.H == [z + [beta] for z, beta in zip(b["Z"], b["bias"])]
    assert python.z_row(2) == b["Z"][2]


def scaled_archive(path, Z, scale: str, encoding=None):
    """An archive holding only ``Z`` and ``scale`` that ``confirm_matrix`` reads (the
    evidence arrays empty: this is not a valid certificate, and need not be); ``Z`` in
    ``encoding``, by default int64 if every entry is below ``2^63`` in size."""
    n, d = len(Z), len(Z[0])
    manifest = {
        "format": "verify-certificate/1", "claim": "analyze",
        "input": {"n": n, "d": d, "bias": False, "scale": scale,
                  "source": {"name": None, "sha256": None, "tensor": None},
                  "sha256": "0" * 64},
        "assertion": {"argmaxable": 0, "unargmaxable": 0, "tie_pairs": 0,
                      "non_tie_pairs": 0, "complete": False},
        "evidence": {"encoding": {k: "int64" for k in ORDER if k != "bias"}}}
    arrays = {k: [] for k in ORDER if k != "bias"}
    arrays["Z"] = Z
    if encoding is None:
        encoding = "limbs" if max(abs(z) for row in Z for z in row) >> 63 else "int64"
    manifest["evidence"]["encoding"]["Z"] = encoding
    return write(path, manifest, arrays, shapes={"argmax_points": (0, d),
                                                 "tie_points": (0, d)})


@pytest.mark.parametrize("scale", ["1/1", "2/1", "1/4", "8/1", "3/1", "1/3", "3/4", "4/3",
                                   "12/1"])
def test_confirm_matrix_against_the_definition_for_every_scale(tmp_path, scale):
    """``Z = scale W'`` exactly, or the first entry where it fails is named: for the
    matrix itself and for matrices that agree with ``Z`` only up to another power of two,
    up to rounding, or up to a fraction of a unit."""
    p, q = map(int, scale.split("/"))
    c = Fraction(p, q)
    Z = [[12 * p, -24 * p, 0], [36 * p, 6 * p, -(2 ** 40) * 12 * p], [1 * 12, 0, 3 * 4]]
    path = scaled_archive(tmp_path / "s.zip", Z, scale)
    W = [[Fraction(z) / c for z in row] for row in Z]
    candidates = {"W": W}
    for k in (-2, -1, 1, 2):
        candidates[f"Z / 2^{k}"] = [[Fraction(z) / Fraction(2) ** k for z in row] for row in Z]
    candidates["Z"] = [[Fraction(z) for z in row] for row in Z]
    candidates["W + 1/4"] = [[w + Fraction(1, 4) if (r, col) == (2, 1) else w
                              for col, w in enumerate(row)] for r, row in enumerate(W)]
    candidates["W + 1/2^30"] = [[w + Fraction(1, 2 ** 30) if (r, col) == (1, 2) else w
                                 for col, w in enumerate(row)] for r, row in enumerate(W)]
    for name, rows in candidates.items():
        bad = [(r, col) for r, row in enumerate(rows) for col, w in enumerate(row)
               if Fraction(Z[r][col]) != c * w]
        floats = all(float(w) == w for row in rows for w in row)
        forms = [("rows", dict(rows=rows))]
        if floats:
            forms.append(("float64", dict(array=np.array([[float(w) for w in row]
                                                         for row in rows]))))
        for form, kwargs in forms:
            if not bad:
                assert checker.confirm_matrix(path, **kwargs) == (
                    f"Z = {c} W exactly for all 3 x 3 entries"), (name, form)
            else:
                r, col = bad[0]
                with pytest.raises(CertificateError) as info:
                    checker.confirm_matrix(path, **kwargs)
                assert str(info.value) == (f"row {r}, column {col}: Z is {Z[r][col]}, the "
                                           f"scale times the matrix entry is "
                                           f"{c * rows[r][col]}"), (name, form)


def test_confirm_matrix_checks_every_block_of_rows(tmp_path):
    n = 2 * 4096 + 10
    Z = [[k % 7 - 3] for k in range(n)]
    path = scaled_archive(tmp_path / "long.zip", Z, "2/1")
    W = np.array(Z, dtype=np.float64) / 2
    assert checker.confirm_matrix(path, array=W).startswith("Z = 2 W exactly for all")
    rows = [[Fraction(z, 2) for z in row] for row in Z]
    for r in (0, 4095, 4096, 8191, 8192, n - 1):
        other = W.copy()
        other[r, 0] += 1
        with pytest.raises(CertificateError, match=f"^row {r}, column 0: "):
            checker.confirm_matrix(path, array=other)
        changed = [list(row) for row in rows]
        changed[r][0] += 1
        with pytest.raises(CertificateError, match=f"^row {r}, column 0: "):
            checker.confirm_matrix(path, rows=changed)


def test_confirm_matrix_fast_path_does_not_round_or_wrap(tmp_path):
    """The power-of-two path compares in int64: a float beyond int64 (2^63 wraps to
    -2^63) or an int64 beyond 2^53 (compared as a float it would round) must not match."""
    M = 1 << 63
    for Z, W in (([[-M, 1]], [[2.0 ** 63, 1.0]]), ([[2 ** 53 + 1, 1]], [[2.0 ** 53, 1.0]]),
                 ([[M - 1, 0]], [[2.0 ** 63, 0.0]]), ([[-(2 ** 60) - 1, 3]], [[-(2.0 ** 60), 3.0]])):
        path = scaled_archive(tmp_path / "w.zip", Z, "1/1")
        with pytest.raises(CertificateError, match="^row 0, column 0: "):
            checker.confirm_matrix(path, array=np.array(W))
        exact = [[Fraction(z) for z in row] for row in Z]
        assert checker.confirm_matrix(path, rows=exact).startswith("Z = 1 W exactly")
    path = scaled_archive(tmp_path / "m.zip", [[-M, 2 ** 60]], "1/1")
    assert checker.confirm_matrix(path, array=np.array([[-(2.0 ** 63), 2.0 ** 60]]))
    # -2^63 stored as int64 (it fits) against the float 2^63, which the cast to int64
    # would wrap to -2^63: compared exactly, and refused, in either encoding.
    for encoding in ("int64", "limbs"):
        path = scaled_archive(tmp_path / f"{encoding}.zip", [[-M, 1]], "1/1", encoding)
        for W in ([[2.0 ** 63, 1.0]], [[-(2.0 ** 63), 1.0]]):
            given = np.array(W)
            if W[0][0] > 0:
                with pytest.raises(CertificateError, match="^row 0, column 0: Z is "):
                    checker.confirm_matrix(path, array=given)
            else:
                assert checker.confirm_matrix(path, array=given).startswith("Z = 1 W")


def test_confirm_matrix_fast_path_only_for_float64_values_of_float_arrays(tmp_path):
    # An int64 array beyond 2^53 is compared exactly, not through float64 (2^53 + 1 would
    # round to 2^53).
    path = scaled_archive(tmp_path / "i.zip", [[2 ** 53, 1]], "1/1")
    with pytest.raises(CertificateError, match="^row 0, column 0: Z is 9007199254740992, "):
        checker.confirm_matrix(path, array=np.array([[2 ** 53 + 1, 1]], dtype=np.int64))
    assert checker.confirm_matrix(path, array=np.array([[2 ** 53, 1]], dtype=np.int64))
    # A float32 array is scaled in float64: 2^-149 / 2 is not 0 there (it is in float32).
    path = scaled_archive(tmp_path / "u.zip", [[0, 1]], "1/2")
    tiny = np.array([[2.0 ** -149, 2.0]], dtype=np.float32)
    with pytest.raises(CertificateError, match="^row 0, column 0: Z is 0, "):
        checker.confirm_matrix(path, array=tiny)
    assert checker.confirm_matrix(path, array=np.array([[0, 2]], dtype=np.float32))
    # Z beyond int64 (stored in limbs) with a power-of-two scale: compared exactly.
    path = scaled_archive(tmp_path / "l.zip", [[2 ** 70, -(2 ** 80)]], "4/1")
    with zipfile.ZipFile(path) as z:
        assert "Z.limbs.npy" in z.namelist()
    W = np.array([[2.0 ** 68, -(2.0 ** 78)]])
    assert checker.confirm_matrix(path, array=W).startswith("Z = 4 W exactly")
    with pytest.raises(CertificateError, match="^row 0, column 1: "):
        checker.confirm_matrix(path, array=np.array([[2.0 ** 68, -(2.0 ** 77)]]))
    with pytest.raises(CertificateError, match="^row 0, column 0: "):  # small, in int64
        checker.confirm_matrix(path, array=np.array([[1.0, 2.0]]))


def test_a_float_margin_of_the_wrong_sign_is_not_trusted():
    """``z_0 = (2^60 + 129, 2^60)`` rounds to ``(2^60 + 256, 2^60)`` in float64: at
    ``x = (1, -1)`` the float score of label 0 is 256, the exact one 129, and label 1
    scores 200. The float margin 56 > 0 has the wrong sign; it must stay below the
    error bound (about 2^11 here), so that the exact products decide."""
    Z = [[2 ** 60 + 129, 2 ** 60], [200, 0], [0, -(2 ** 40)]]
    python, numpy = arithmetics(Z)
    for x, target in (([1, -1], 0), ([1, -1], 1), ([3, -3], 0), ([-1, 1], 2)):
        points = int_array([x], (1, 2), "int64")
        s = scores(Z, x)
        want = next(((0, k) for k in range(3) if k != target and s[k] >= s[target]), None)
        assert python.first_failure(points, [target]) == want
        assert numpy.first_failure(points, [target]) == want, (x, target)
    assert scores(Z, [1, -1])[:2] == [129, 200]


def test_the_scale_h_is_checked_in_every_block_of_points(tmp_path):
    """``n = 2100`` labels on a parabola (``z_k = (2k, 0)``, ``beta_k = -k^2``; label
    ``k`` wins at ``(k, 1)`` with ``h = 1``), more than two blocks of 1024 points, in
    dimension 2 so that ``h`` is not the second entry: a non-positive ``h`` is found in
    every block and named by its own label."""
    n = 2100
    manifest = {
        "format": "verify-certificate/1", "claim": "analyze",
        "input": {"n": n, "d": 2, "bias": True, "scale": "1/1",
                  "source": {"name": None, "sha256": None, "tensor": None},
                  "sha256": "0" * 64},
        "assertion": {"argmaxable": n, "unargmaxable": 0, "tie_pairs": 0,
                      "non_tie_pairs": 0, "complete": False},
        "evidence": {"encoding": {k: "int64" for k in ORDER}}}
    arrays = {k: [] for k in ORDER}
    arrays.update({"Z": [[2 * k, 0] for k in range(n)], "bias": [-k * k for k in range(n)],
                   "argmax_labels": list(range(n)),
                   "argmax_points": [[k, 1, 1] for k in range(n)],
                   "hull_offsets": [0], "non_tie_offsets": [0]})
    base = Base(tmp_path, "parabola", manifest, arrays)
    for r in (0, 1023, 1024, 2047, 2048, 2099):
        for h in (0, -1):
            def change(a, r=r, h=h):
                a["argmax_points"][r] = [r, 1, h]
            path = base.path(change, shapes={"tie_points": (0, 3)})
            assert verdict(path, "python") == (
                "INVALID", f"argmax witness of label {r}: the scale h = {h} of the input "
                           "must be positive")


def test_many_witnesses_in_python_blocks(tmp_path):
    n = 530  # beyond two blocks of 256 witnesses
    base = circle_certificate(n, 2 ** 30, tmp_path, "p")
    Z = base.arrays["Z"]
    for r in (300, 511, 529):
        def change(a, r=r):
            a["argmax_points"][r] = list(Z[(r + 1) % n])
        s = scores(Z, Z[(r + 1) % n])
        first = next(j for j in range(n) if j != r and s[j] >= s[r])
        assert verdict(base.path(change), "python") == (
            "INVALID", f"argmax witness of label {r}: label {first} scores at least as high "
                       "at the point")


def test_python_is_python_for_every_size(square, monkeypatch):
    archive = checker.Archive(square.path())
    ev = checker.Evidence(archive, checker.read_manifest(archive))
    monkeypatch.setattr(checker, "NUMPY_MIN_ENTRIES", 1)
    assert type(checker.choose_backend(ev, "python")) is checker.PythonArithmetic
    assert type(checker.choose_backend(ev, "auto")) is checker.NumpyArithmetic


def test_load_archive_reads_the_archive(square):
    path = square.path()
    assert checker.load_archive(path).manifest == checker.Archive(path).manifest


# --- the numpy arithmetic's own copy of the head ----------------------------------------------

def test_the_float_copy_covers_every_block_of_rows():
    """More rows than two blocks of the float copy (2^14 rows each): every row is
    copied, and a rival beyond the first blocks still beats a false witness."""
    n = (1 << 15) + 3
    Z = [[0, 1] for _ in range(n)]
    Z[0], Z[-1] = [1, 0], [5, 0]
    python, numpy = arithmetics(Z)
    assert numpy.F.shape == (n, 2)
    assert numpy.F[:, 0].tolist() == [float(z[0]) for z in Z]
    assert numpy.F[:, 1].tolist() == [float(z[1]) for z in Z]
    assert numpy.N.tolist() == [float(max(map(abs, z))) for z in Z]  # one non-zero entry
    # x = (1, 0): label 0 scores 1, the last label 5; x = (1, -1) makes label 0 win.
    for arith in (python, numpy):
        assert arith.first_failure(int_array([[1, 0]], (1, 2), "int64", "P"), [0]) == (0, n - 1)
        assert arith.first_failure(int_array([[1, -1]], (1, 2), "int64", "P"), [n - 1]) is None


def test_the_numpy_arithmetic_keeps_a_bias_near_two_to_the_62_exactly():
    Z = [[1, 0], [0, 1]]
    bias = [(1 << 62) + 1, -(1 << 62) - 3]
    python, numpy = arithmetics(Z, bias)
    for k in range(2):
        assert numpy._row(k) == Z[k] + [bias[k]] == python.H[k]
        assert all(type(v) is int for v in numpy._row(k))


def test_the_numpy_arithmetic_refuses_what_int64_cannot_hold():
    """The guards that send such heads to Python integers (choose_backend) say why."""
    ev = type("Ev", (), {})()
    ev.n, ev.d, ev.beta = 2, 1, None
    ev.Z = int_array([[1 << 70], [1]], (2, 1), "limbs", "Z")
    with pytest.raises(ValueError, match=r"^Z is not int64$"):
        checker.NumpyArithmetic(ev, np)
    assert type(checker.choose_backend(ev, "numpy")) is checker.WideNumpyArithmetic
    ev.Z, ev.beta = int_array([[1], [2]], (2, 1), "int64", "Z"), [0, -(1 << 63)]
    with pytest.raises(ValueError, match=r"^bias beyond int64$"):
        checker.NumpyArithmetic(ev, np)
    assert type(checker.choose_backend(ev, "numpy")) is checker.WideNumpyArithmetic


def test_check_archive_defaults_to_the_automatic_backend(square):
    archive = checker.Archive(square.path())
    assert checker.check_archive(archive) == checker.check_archive(archive, "auto")


def test_completeness_is_counted_in_pairs_of_labels(biased):
    """``C(n, 2)`` pairs (the square head has n = 5, where C(5, 2) = C(5, 3))."""
    m, a = biased.manifest, biased.arrays
    n = len(a["Z"])
    total = n * (n - 1) // 2
    decided = len(a["tie_pairs"]) + len(a["non_tie_pairs"])
    assert n != 5 and m["assertion"]["complete"] == (decided == total)
    flipped = not m["assertion"]["complete"]
    assert biased.forge(None, _set("assertion", "complete", flipped)) == (
        "INVALID", f"assertion.complete is {str(flipped).lower()}, but {decided} of "
                   f"{total} pairs are decided")


def test_confirm_matrix_compares_the_whole_stored_matrix_and_bias(square, biased, tmp_path):
    """The stored ``Z`` and bias, and the given matrix and bias, must all have the
    certificate's sizes: entries compared pairwise would otherwise leave some out, and
    a head with a row or column the certificate never saw would be confirmed."""
    # A stored Z with a column more than the manifest's d, its first d columns right.
    wide = scaled_archive(tmp_path / "wide.zip", [[1, 0, 5], [0, 1, 5], [2, 2, 5]], "1/1")
    wide = rewrite_manifest(wide, _set("input", "d", 2), tmp_path / "wide2.zip")
    with pytest.raises(CertificateError) as info:
        checker.confirm_matrix(wide, rows=[[1, 0], [0, 1], [2, 2]])
    assert str(info.value) == "Z: shape (3, 3), expected (3, 2)"
    # A stored Z with a row fewer than n: the given head's last row is in no certificate.
    short = scaled_archive(tmp_path / "short.zip", [[1, 0], [0, 1]], "1/1")
    short = rewrite_manifest(short, _set("input", "n", 3), tmp_path / "short2.zip")
    for given in ([[1, 0], [0, 1], [7, 7]], np.array([[1, 0], [0, 1], [7, 7]], float)):
        with pytest.raises(CertificateError) as info:
            checker.confirm_matrix(short, rows=given) if isinstance(given, list) else \
                checker.confirm_matrix(short, array=given)
        assert str(info.value) == "Z: shape (2, 2), expected (3, 2)"
    # A stored Z of no columns (its rows are empty lists) in either encoding.
    for encoding in ("int64", "limbs"):
        empty = scaled_archive(tmp_path / "e.zip", [[], []], "1/1", encoding)
        empty = rewrite_manifest(empty, _set("input", "d", 2), tmp_path / f"e{encoding}.zip")
        with pytest.raises(CertificateError) as info:
            checker.confirm_matrix(empty, rows=[[0, 0], [0, 0]])
        assert str(info.value) == "Z: shape (2, 0), expected (2, 2)"
    # The given rows: ragged, or none.
    path = square.path()
    for rows, size in (([[1, 0], [0], [-1, 0], [0, -1], [0, 0]], "5 x ragged"),
                       ([[1, 0, 9], [0, 1], [-1, 0], [0, -1], [0, 0]], "5 x ragged"),
                       ([], "0 x 0")):
        with pytest.raises(CertificateError) as info:
            checker.confirm_matrix(path, rows=rows)
        assert str(info.value) == f"the matrix is {size}, the certificate's Z is 5 x 2"
    with pytest.raises(CertificateError) as info:
        checker.confirm_matrix(path, array=np.zeros(10))
    assert str(info.value) == "the matrix is of shape (10,), the certificate's Z is 5 x 2"
    # The bias: stored with an entry fewer, or given with one fewer or one more.
    W, b = BIASED
    with pytest.raises(CertificateError) as info:
        checker.confirm_matrix(biased.path(lambda a: a["bias"].pop()), rows=W, bias=b[:3])
    assert str(info.value) == "bias: shape (3,), expected (4,)"
    path = biased.path()
    for given in (b[:3], [*b, 0]):
        with pytest.raises(CertificateError) as info:
            checker.confirm_matrix(path, rows=W, bias=given)
        assert str(info.value) == f"the bias has {len(given)} entries, the certificate's has 4"
    assert checker.confirm_matrix(path, rows=W, bias=b) == "Z = 3 W exactly for all 4 x 1 entries"


def replace_member(path, member, data, out):
    with zipfile.ZipFile(path) as z:
        members = {name: z.read(name) for name in z.namelist()}
    assert member in members
    members[member] = data
    with zipfile.ZipFile(out, "w") as z:
        for name, value in members.items():
            z.writestr(name, value)
    return out


def test_a_broken_npy_member_is_named_by_its_file(square, tmp_path):
    """Each member of the archive, in either encoding, is read as a .npy array and a
    broken one is named by its own file name."""
    limbs = square.path(encodings={"argmax_points": "limbs", "hull_weights": "limbs"})
    for member in ("hull_weights.npy", "tie_pairs.npy", "non_tie_t.npy"):
        out = replace_member(square.path(), member, b"not an array", tmp_path / "b.zip")
        assert both(out) == ("INVALID", f"{member}: not a .npy array")
    for member in ("argmax_points.sign.npy", "argmax_points.width.npy",
                   "hull_weights.limbs.npy"):
        out = replace_member(limbs, member, npy([1.5], "<f8"), tmp_path / "l.zip")
        verdict_, message = both(out)
        assert verdict_ == "INVALID" and message.startswith(
            f"{member}: expected a C-order .npy array of <i8, <u4 or |i1, got header "), message
    # Readable members of the wrong kind are named by their array.
    _, arrays = read(square.path())
    count = len(arrays["non_tie_t"])
    out = replace_member(square.path(), "non_tie_t.npy", npy([0] * count, "|i1"),
                         tmp_path / "t.zip")
    assert both(out) == ("INVALID", "non_tie_t: expected int64 entries")
    rows = len(arrays["argmax_points"])
    out = replace_member(limbs, "argmax_points.width.npy", npy([-1] * rows, "<i8"),
                         tmp_path / "w.zip")
    assert both(out) == ("INVALID", "argmax_points: negative limb width")
    # A member listed but unreadable (its stored bytes altered: the CRC fails).
    path = square.path()
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("hull_weights.npy")
        assert info.compress_type == zipfile.ZIP_STORED
        start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    data = bytearray(path.read_bytes())
    data[start + info.file_size - 1] ^= 1
    (tmp_path / "crc.zip").write_bytes(bytes(data))
    verdict_, message = both(tmp_path / "crc.zip")
    assert verdict_ == "INVALID" and message.startswith("hull_weights.npy: cannot read: "), \
        message


def test_the_workers_start_whatever_threadpoolctl_does(tmp_path, monkeypatch):
    """An initializer that raises would make the pool restart its workers for ever:
    a missing or failing threadpoolctl only costs speed."""
    base = circle_certificate(12, 2 ** 30, tmp_path, "t")
    path = base.path()
    monkeypatch.setattr(checker.NumpyArithmetic, "_block_columns", lambda self: 3)
    for failure in (ImportError("no threadpoolctl"), TypeError("broken"),
                    ValueError("no such API")):
        def failing(name, failure=failure):
            raise failure
        monkeypatch.setattr(checker, "import_module", failing)
        checker._one_blas_thread()  # does not raise
        monkeypatch.setattr(checker, "numpy_or_none", lambda: np)
        assert checker.check_file(path, backend="numpy", jobs=2).startswith("analyze, 12 ")
