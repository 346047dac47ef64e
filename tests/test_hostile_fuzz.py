"""Mutated input files of every format: a result or the project's one-line error,
never another exception (issue 28).

Each test starts from a small valid file (a JSON, CSV, ``.npy`` and ``.safetensors``
matrix; a JSON, JSON Lines and ZIP certificate; a sweep checkpoint), mutates it
(truncates, flips and inserts bytes, inflates numbers and shapes, nests, duplicates
keys) and runs the reader in-process. Readers of the engine must return or raise
:class:`~verify.io.errors.VerifyError`; the checker must exit 0, 1 or 2 with at most
one line on stderr per file.

The examples are derandomized (the same on every run) and few, so that CI stays fast.
For a long run, set ``VERIFY_FUZZ_EXAMPLES`` (and ``VERIFY_FUZZ_RANDOM=1`` to draw new
examples each time)::

    VERIFY_FUZZ_EXAMPLES=5000 VERIFY_FUZZ_RANDOM=1 python -m pytest -q tests/test_hostile_fuzz.py
"""

import io
import json
import os
import re
import struct
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verify.io.errors import VerifyError

EXAMPLES = int(os.environ.get("VERIFY_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                derandomize=not os.environ.get("VERIFY_FUZZ_RANDOM"),
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow], database=None)

W = [[3, -1, 2], [0, 4, -5], [-2, 1, 1], [1, 1, 0]]


# --- mutations --------------------------------------------------------------------------

_NUMBER = re.compile(rb"-?[0-9]+")
_HUGE = [b"99999999999999999999", b"1" + b"0" * 5000, b"-1", b"0", b"18446744073709551616",
         b"1e999999", b"1.5", b"NaN"]


def _truncate(data: bytes, k: int, _value: bytes) -> bytes:
    return data[:k % (len(data) + 1)]


def _flip(data: bytes, k: int, value: bytes) -> bytes:
    if not data:
        return data
    k %= len(data)
    return data[:k] + bytes([data[k] ^ (value[0] if value else 0xFF) or 1]) + data[k + 1:]


def _insert(data: bytes, k: int, value: bytes) -> bytes:
    k %= len(data) + 1
    return data[:k] + value + data[k:]


def _inflate_number(data: bytes, k: int, value: bytes) -> bytes:
    """Replace the ``k``-th run of digits (a number, a shape, an offset) by ``value``."""
    matches = list(_NUMBER.finditer(data))
    if not matches:
        return data
    m = matches[k % len(matches)]
    huge = _HUGE[k % len(_HUGE)] if len(value) < 2 else value
    return data[:m.start()] + huge + data[m.end():]


def _nest(data: bytes, k: int, _value: bytes) -> bytes:
    depth = 1 + k % 3000
    return b"[" * depth + data + b"]" * depth


def _duplicate_key(data: bytes, k: int, _value: bytes) -> bytes:
    """Repeat the first ``"key":`` of a JSON object right after its brace."""
    m = re.search(rb'\{("[^"]*":)', data)
    if m is None:
        return data
    return data[:m.start() + 1] + m.group(1) + b'"x",' + data[m.start() + 1:]


MUTATIONS = [_truncate, _flip, _insert, _inflate_number, _nest, _duplicate_key]


@st.composite
def mutated(draw, seed: bytes):
    """``seed`` after one to three mutations."""
    data = seed
    for _ in range(draw(st.integers(1, 3))):
        mutation = draw(st.sampled_from(MUTATIONS))
        k = draw(st.integers(0, 1 << 20))
        value = draw(st.one_of(st.binary(min_size=1, max_size=8), st.sampled_from(_HUGE)))
        data = mutation(data, k, value)
    return data


# --- seeds --------------------------------------------------------------------------------

def _safetensors(rows) -> bytes:
    weight = np.array(rows, dtype="<f4").tobytes()
    bias = np.arange(len(rows), dtype="<f4").tobytes()
    header = json.dumps({
        "__metadata__": {"format": "pt"},
        "lm_head.weight": {"dtype": "F32", "shape": [len(rows), len(rows[0])],
                           "data_offsets": [0, len(weight)]},
        "lm_head.bias": {"dtype": "F32", "shape": [len(rows)],
                         "data_offsets": [len(weight), len(weight) + len(bias)]},
    }).encode()
    return struct.pack("<Q", len(header)) + header + weight + bias


def _npy(rows) -> bytes:
    out = io.BytesIO()
    np.save(out, np.array(rows, dtype=np.int64))
    return out.getvalue()


MATRIX_SEEDS = {
    ".json": json.dumps({"W": [[str(a) if a % 2 else a for a in row] for row in W]}).encode(),
    ".csv": b"# W\n" + b"\n".join(b", ".join(b"%d/3" % a for a in row) for row in W) + b"\n",
    ".npy": _npy(W),
    ".safetensors": _safetensors(W),
}


def _cli(argv) -> tuple[int, str]:
    from verify.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, err.getvalue()


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    """Valid certificates and a checkpoint of small inputs, as bytes."""
    directory = tmp_path_factory.mktemp("seeds")
    matrix = directory / "W.json"
    matrix.write_text(json.dumps(W))
    files = {"json": directory / "r.cert.json", "jsonl": directory / "r.cert.jsonl",
             "zip": directory / "a.cert.zip", "checkpoint": directory / "c.jsonl"}
    small = directory / "W3.json"
    small.write_text(json.dumps(W[:3]))
    assert _cli(["pattern", "--matrix", small, "--kind", "ranking", "--count-only",
                 "--certificate", files["json"]])[0] == 0
    assert _cli(["pattern", "--matrix", small, "--kind", "ranking", "--count-only",
                 "--certificate", files["jsonl"], "--certificate-format", "jsonl"])[0] == 0
    assert _cli(["analyze", "--matrix", matrix, "--certificate", files["zip"]])[0] == 0
    assert _cli(["lemma", "5.3", "--n", "3", "--d", "2", "--matrices", "3", "--quiet",
                 "--checkpoint", files["checkpoint"]])[0] == 0
    return {name: path.read_bytes() for name, path in files.items()}


# --- the matrix readers -----------------------------------------------------------------

def _read_matrix(path: Path):
    from verify.io.matrix import read_matrix

    try:
        rows = read_matrix(path)
    except VerifyError as exc:
        assert "\n" not in str(exc)
        return None
    assert rows and all(len(row) == len(rows[0]) for row in rows)
    return rows


@pytest.mark.parametrize("suffix", sorted(MATRIX_SEEDS))
def test_seed_matrices_are_read(tmp_path, suffix):
    path = tmp_path / f"W{suffix}"
    path.write_bytes(MATRIX_SEEDS[suffix])
    assert _read_matrix(path) is not None


@pytest.mark.parametrize("suffix", sorted(MATRIX_SEEDS))
def test_mutated_matrices(tmp_path, suffix):
    path = tmp_path / f"W{suffix}"

    @FUZZ
    @given(data=mutated(MATRIX_SEEDS[suffix]))
    def run(data):
        path.write_bytes(data)
        _read_matrix(path)

    run()


def test_mutated_checkpoint_heads(tmp_path):
    """The head reader of ``analyze`` (blockwise, through numpy memory maps)."""
    from verify.io.checkpoint import load_head

    path = tmp_path / "model.safetensors"

    @FUZZ
    @given(data=mutated(MATRIX_SEEDS[".safetensors"]))
    def run(data):
        path.write_bytes(data)
        try:
            head = load_head(path, bias="auto", max_entries=1000)
        except VerifyError as exc:
            assert "\n" not in str(exc)
            return
        head.weights.rows()

    run()


def test_mutated_npy_heads(tmp_path):
    """The ``.npy`` head reader of ``analyze`` (memory-mapped)."""
    from verify.io.checkpoint import load_head

    path = tmp_path / "W.npy"

    @FUZZ
    @given(data=mutated(MATRIX_SEEDS[".npy"]))
    def run(data):
        path.write_bytes(data)
        try:
            head = load_head(path, max_entries=1000)
        except VerifyError as exc:
            assert "\n" not in str(exc)
            return
        if not isinstance(head.weights, list):
            head.weights.rows()

    run()


# --- the checker ----------------------------------------------------------------------------

def _check(path: Path) -> None:
    from verify.checker.core import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main([str(path)])
    lines = (out.getvalue() + err.getvalue()).splitlines()
    assert status in (0, 1, 2)
    assert len(lines) == 1 and lines[0].startswith(f"{path}: "), lines
    assert (status == 0) == lines[0].startswith(f"{path}: OK")


@pytest.mark.parametrize("kind", ["json", "jsonl", "zip"])
def test_seed_certificates_are_valid(tmp_path, seeds, kind):
    from verify.checker.core import main

    path = tmp_path / f"c.{kind}"
    path.write_bytes(seeds[kind])
    assert main([str(path)]) == 0


@pytest.mark.parametrize("kind", ["json", "jsonl", "zip"])
def test_mutated_certificates(tmp_path, seeds, kind):
    path = tmp_path / f"c.{kind}"

    @FUZZ
    @given(data=mutated(seeds[kind]))
    def run(data):
        path.write_bytes(data)
        _check(path)

    run()


def _central(data: bytes, name: bytes) -> int:
    """The offset of the central directory entry of member ``name``."""
    at = data.index(b"PK\x01\x02")
    while data[at + 46:at + 46 + len(name)] != name:
        at = data.index(b"PK\x01\x02", at + 4)
    return at


def _zip_version_84(data: bytes) -> bytes:
    at = _central(data, b"Z.npy") + 6  # "version needed to extract"
    return data[:at] + struct.pack("<H", 84) + data[at + 2:]


def _zip_member_past_the_end(data: bytes) -> bytes:
    at = _central(data, b"Z.npy") + 20  # compressed and uncompressed sizes
    return data[:at] + struct.pack("<II", 1 << 20, 1 << 20) + data[at + 8:]


def _zip_name_with_newline(data: bytes) -> bytes:
    at = _central(data, b"argmax_points.npy") + 46
    return data[:at] + b"argmax_poin\ns.npy" + data[at + 17:]


def _zip_name_with_form_feed(data: bytes) -> bytes:
    at = _central(data, b"hull_offsets.npy") + 46
    return data[:at] + b"hull_off\x0cets.npy" + data[at + 16:]


def _zip_encrypted(data: bytes) -> bytes:
    at = _central(data, b"Z.npy") + 8  # general purpose flags
    return data[:at] + struct.pack("<H", 1) + data[at + 2:]


@pytest.mark.parametrize("mutation", [_zip_version_84, _zip_member_past_the_end,
                                      _zip_name_with_newline, _zip_name_with_form_feed,
                                      _zip_encrypted])
def test_damaged_archives_found_by_fuzzing(tmp_path, seeds, mutation):
    """Archives the fuzzing above once turned into tracebacks or two-line messages."""
    path = tmp_path / "c.zip"
    path.write_bytes(mutation(seeds["zip"]))
    _check(path)


@pytest.mark.parametrize("old, new", [
    (b"'<i8'", b"'<i1000"),                 # the header's literal does not parse
    (b"(4, 3)", b"(0, 100000000000000000000)"),  # a size beyond 64 bits
    (b"(4, 3)", b"(-4, 3)"),
])
@pytest.mark.parametrize("reader", ["matrix", "head"])
def test_damaged_npy_headers_found_by_fuzzing(tmp_path, old, new, reader):
    from verify.io.checkpoint import load_head
    from verify.io.matrix import read_matrix

    path = tmp_path / "W.npy"
    assert old in MATRIX_SEEDS[".npy"]
    path.write_bytes(MATRIX_SEEDS[".npy"].replace(old, new))
    with pytest.raises(VerifyError, match="not a valid .npy file"):
        read_matrix(path) if reader == "matrix" else load_head(path)


# --- sweep checkpoints -----------------------------------------------------------------------

def test_mutated_checkpoints(tmp_path, seeds):
    """A mutated checkpoint is refused in one line or read; what is read is only ever
    records whose checksum matches (so never a mutated one)."""
    from verify.claims.sweep import read_checkpoint

    original = {json.loads(line)["sha256"]: json.loads(line)
                for line in seeds["checkpoint"].splitlines()[1:]}
    path = tmp_path / "c.jsonl"

    @FUZZ
    @given(data=mutated(seeds["checkpoint"]))
    def run(data):
        path.write_bytes(data)
        try:
            checkpoint = read_checkpoint(path)
        except VerifyError as exc:
            assert "\n" not in str(exc)
            return
        for record in checkpoint.records.values():
            assert record == original.get(record["sha256"])

    run()
