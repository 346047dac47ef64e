"""`verify.io.checkpoint`: heads from safetensors files, sharded checkpoints, directories,
.npy and text files; exact widening of every dtype; blockwise reading; bad input.

Test checkpoints are written with the `safetensors` package itself (``serialize_file``
with raw bit patterns), so the reader is checked against the reference writer, and
values are checked against an independent decoding of the IEEE bit fields.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from safetensors import TensorSpec, safe_open, serialize_file

from verify.io import checkpoint
from verify.io.checkpoint import HEAD_NAMES, HeadSource, LoadedTensor, load_head, load_tensor
from verify.io.errors import InputError, TooLargeError
from verify.io.matrix import read_matrix, read_vector

ROOT = Path(__file__).resolve().parents[1]

#: safetensors dtype name -> (name for TensorSpec, numpy dtype of the raw storage).
STORAGE = {
    "F64": ("float64", "<u8"), "F32": ("float32", "<u4"), "F16": ("float16", "<u2"),
    "BF16": ("bfloat16", "<u2"), "I64": ("int64", "<i8"), "I32": ("int32", "<i4"),
    "I16": ("int16", "<i2"), "I8": ("int8", "i1"), "U32": ("uint32", "<u4"),
    "U16": ("uint16", "<u2"), "U8": ("uint8", "u1"),
}

#: (exponent bits, fraction bits) of the IEEE formats.
FIELDS = {"F16": (5, 10), "BF16": (8, 7), "F32": (8, 23), "F64": (11, 52)}


def write_st(path, tensors: dict) -> str:
    """Write ``{name: (dtype, values)}`` with the safetensors package; ``values`` are
    raw bit patterns for floats (any integer array), numbers for integer dtypes."""
    arrays, specs = [], {}
    for name, (dtype, values) in tensors.items():
        spec_name, storage = STORAGE[dtype]
        array = np.ascontiguousarray(np.asarray(values).astype(storage))
        arrays.append(array)  # keep the buffer alive during serialize_file
        specs[name] = TensorSpec(dtype=spec_name, shape=list(array.shape),
                                 data_ptr=array.ctypes.data, data_len=array.nbytes)
    serialize_file(specs, str(path), None)
    return str(path)


def floats(values, dtype="F32"):
    """Bit patterns of float values (exactly representable in ``dtype``)."""
    values = np.asarray(values, dtype=np.float64)
    if dtype == "F64":
        return values.view("<u8")
    if dtype == "F16":
        return values.astype("<f2").view("<u2")
    bits = values.astype("<f4").view("<u4")
    return bits >> 16 if dtype == "BF16" else bits


def write_sharded(directory: Path, shards: list[dict], *, index_name=None) -> Path:
    """Shards ``model-0000k-of-0000m.safetensors`` and their index."""
    directory.mkdir(parents=True, exist_ok=True)
    weight_map = {}
    for k, tensors in enumerate(shards, 1):
        shard = f"model-{k:05d}-of-{len(shards):05d}.safetensors"
        write_st(directory / shard, tensors)
        weight_map.update({name: shard for name in tensors})
    index = directory / (index_name or "model.safetensors.index.json")
    index.write_text(json.dumps({"metadata": {"total_size": 0}, "weight_map": weight_map}))
    return index


def decode(bits: int, dtype: str) -> Fraction | None:
    """The value of an IEEE bit pattern from its fields (None: infinity or NaN)."""
    e_bits, f_bits = FIELDS[dtype]
    sign = bits >> (e_bits + f_bits)
    exponent = (bits >> f_bits) & ((1 << e_bits) - 1)
    fraction = Fraction(bits & ((1 << f_bits) - 1), 1 << f_bits)
    bias = (1 << (e_bits - 1)) - 1
    if exponent == (1 << e_bits) - 1:
        return None
    if exponent == 0:  # subnormal (and zero)
        value = fraction * Fraction(2) ** (1 - bias)
    else:
        value = (1 + fraction) * Fraction(2) ** (exponent - bias)
    return -value if sign else value


def fractions_of(rows):
    return [[Fraction(int(x.p), int(x.q)) for x in row] for row in rows]


def error_of(fn, *args, **kwargs) -> str:
    with pytest.raises(InputError) as info:
        fn(*args, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    return message


RNG = np.random.default_rng(12)
W = RNG.integers(-8, 9, size=(7, 3)) / 4  # exactly representable in every float dtype


# --- sharded checkpoints and directories -------------------------------------------


@pytest.fixture
def sharded(tmp_path):
    """Three shards: the embeddings and a norm, two layers, the output head and bias."""
    return write_sharded(tmp_path / "ckpt", [
        {"model.embed_tokens.weight": ("F32", floats(W[:, ::-1])),
         "model.norm.weight": ("F32", floats(np.ones(3)))},
        {"model.layers.0.mlp.weight": ("F16", floats(np.ones((3, 3)), "F16"))},
        {"lm_head.weight": ("BF16", floats(W, "BF16")),
         "lm_head.bias": ("F32", floats(np.arange(7)))},
    ])


def test_sharded_checkpoint_finds_the_head_in_its_shard(sharded):
    for path in (sharded, sharded.parent, str(sharded.parent)):
        head = load_head(path)
        assert isinstance(head, HeadSource) and isinstance(head.weights, LoadedTensor)
        t = head.weights
        assert (t.name, t.dtype, t.shape) == ("lm_head.weight", "BF16", (7, 3))
        assert Path(t.source).name == "model-00003-of-00003.safetensors"
        assert head.bias is None and head.shape == (7, 3)
        assert head.description == (f"lm_head.weight of {t.source} (BF16, 7 x 3); no bias")
        assert fractions_of(t.rows()) == [[Fraction(x) for x in row] for row in W]
        assert np.array_equal(t.block(2, 5), W[2:5].astype(np.float32))
        assert t.block(2, 5).dtype == np.float32


def test_sharded_checkpoint_other_tensors_and_bias(sharded):
    head = load_head(sharded.parent, tensor="model.embed_tokens.weight",
                     bias="lm_head.bias")
    assert Path(head.weights.source).name == "model-00001-of-00003.safetensors"
    assert np.array_equal(head.weights.block(0, 7), W[:, ::-1])
    assert head.bias.name == "lm_head.bias" and head.bias.rows() == list(range(7))
    assert "bias lm_head.bias of" in head.description and "(F32, 7)" in head.description
    auto = load_head(sharded.parent, bias="auto")
    assert auto.bias.name == "lm_head.bias"
    # read_matrix takes the same head, so every exact command accepts checkpoints.
    assert read_matrix(sharded.parent) == head_rows(W)
    assert read_matrix(sharded, tensor="model.embed_tokens.weight") == head_rows(W[:, ::-1])


def head_rows(M):
    from flint import fmpq

    return [[fmpq(*Fraction(x).as_integer_ratio()) for x in row] for row in M]


def test_directory_preferences(tmp_path):
    a, b = floats(np.eye(2)), floats(2 * np.eye(2))
    one = tmp_path / "one"
    one.mkdir()
    write_st(one / "weights.safetensors", {"w": ("F32", a)})
    assert load_head(one).weights.name == "w"
    write_st(one / "model.safetensors", {"lm_head.weight": ("F32", b)})
    assert load_head(one).weights.source == str(one / "model.safetensors")
    index = write_sharded(one, [{"lm_head.weight": ("F32", a)}])
    assert load_head(one).weights.source == str(one / "model-00001-of-00001.safetensors")
    # a differently named index, when it is the only one
    two = tmp_path / "two"
    write_sharded(two, [{"lm_head.weight": ("F32", b)}],
                  index_name="diffusion.safetensors.index.json")
    assert np.array_equal(load_head(two).weights.block(0, 2), 2 * np.eye(2))
    assert index.exists()
    three = tmp_path / "three"
    three.mkdir()
    write_st(three / "x.safetensors", {"w": ("F32", a)})
    write_st(three / "y.safetensors", {"w": ("F32", a)})
    assert "2 files *.safetensors (x.safetensors, y.safetensors): name one" in error_of(
        load_head, three)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "without a .safetensors file" in error_of(load_head, empty)


# --- exact values of every dtype ---------------------------------------------------

#: Bit patterns: zero, negative zero, smallest and largest subnormal, smallest normal,
#: one, a value with every fraction bit set, the largest finite (both signs).
EXTREMES = {
    "F16": [0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x3C00, 0x3BFF, 0x7BFF, 0xFBFF, 0x8001],
    "BF16": [0x0000, 0x8000, 0x0001, 0x007F, 0x0080, 0x3F80, 0x3F7F, 0x7F7F, 0xFF7F, 0x8001],
    "F32": [0, 0x80000000, 1, 0x007FFFFF, 0x00800000, 0x3F800000, 0x3F7FFFFF,
            0x7F7FFFFF, 0xFF7FFFFF, 0x80000001],
    "F64": [0, 0x8000000000000000, 1, 0x000FFFFFFFFFFFFF, 0x0010000000000000,
            0x3FF0000000000000, 0x3FEFFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF,
            0xFFEFFFFFFFFFFFFF, 0x8000000000000001],
}
INTEGERS = {"I64": np.iinfo(np.int64), "I32": np.iinfo(np.int32), "I16": np.iinfo(np.int16),
            "I8": np.iinfo(np.int8), "U32": np.iinfo(np.uint32),
            "U16": np.iinfo(np.uint16), "U8": np.iinfo(np.uint8)}


@pytest.mark.parametrize("dtype", sorted(EXTREMES))
def test_float_dtypes_at_their_exact_binary_value(tmp_path, dtype):
    bits = np.array(EXTREMES[dtype], dtype=np.uint64).reshape(2, 5)
    path = write_st(tmp_path / "m.safetensors", {"w": (dtype, bits)})
    t = load_head(path).weights
    expected = [[decode(int(b), dtype) for b in row] for row in bits]
    assert fractions_of(t.rows()) == expected
    block = t.block(0, 2)
    assert block.dtype == (np.float64 if dtype == "F64" else np.float32)
    assert [[Fraction(float(v)) for v in row] for row in block] == expected
    assert np.signbit(block[0, 1]) and not np.signbit(block[0, 0])  # -0 kept in block


@pytest.mark.parametrize("dtype", sorted(INTEGERS))
def test_integer_dtypes_exactly(tmp_path, dtype):
    info = INTEGERS[dtype]
    values = np.array([[info.min, info.max, 0], [1, info.max - 1, info.min + 1]],
                      dtype=np.int64 if dtype != "U32" else np.uint64)
    path = write_st(tmp_path / "m.safetensors", {"w": (dtype, values)})
    t = load_head(path).weights
    assert [[int(x) for x in row] for row in t.rows()] == values.tolist()
    assert t.block(0, 2).dtype == np.int64 and t.block(0, 2).tolist() == values.tolist()


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from(sorted(FIELDS)), data=st.data())
def test_random_bit_patterns_decode_exactly(tmp_path_factory, dtype, data):
    width = 1 + sum(FIELDS[dtype])
    bits = data.draw(st.lists(st.integers(0, 2**width - 1), min_size=6, max_size=6))
    bits = [b for b in bits if decode(b, dtype) is not None] or [0]
    path = tmp_path_factory.mktemp("bits") / "m.safetensors"
    write_st(path, {"w": (dtype, np.array(bits, dtype=np.uint64).reshape(-1, 1))})
    t = load_tensor(path)
    assert fractions_of(t.rows()) == [[decode(b, dtype)] for b in bits]


def test_block_agrees_with_the_safetensors_reader(tmp_path):
    values = RNG.standard_normal((9, 4))
    tensors = {dt: (dt, floats(values, dt)) for dt in ("F16", "F32", "F64")}
    tensors["I32"] = ("I32", RNG.integers(-1000, 1000, size=(9, 4)))
    path = write_st(tmp_path / "m.safetensors", tensors)
    with safe_open(path, framework="np") as reference:
        for name in tensors:
            t = load_tensor(path, name)
            for start, stop in [(0, 9), (3, 4), (5, 9), (2, 2)]:
                got = t.block(start, stop)
                want = reference.get_slice(name)[start:stop]
                assert got.shape == want.shape
                assert np.array_equal(got, want.astype(got.dtype)), (name, start, stop)


@settings(max_examples=40, deadline=None)
@given(dtype=st.sampled_from(["F16", "BF16", "F32", "F64", "I16", "U8"]),
       n=st.integers(1, 40), d=st.integers(1, 5), data=st.data())
def test_any_block_is_the_slice_of_the_whole(tmp_path_factory, dtype, n, d, data):
    """block(a, b) equals rows a..b of the whole tensor, and rows() its exact values."""
    values = RNG.integers(-100, 100, size=(n, d)) / (1 if dtype[0] in "IU" else 16)
    if dtype == "U8":
        values = values + 100
    stored = floats(values, dtype) if dtype in FIELDS else values
    path = write_st(tmp_path_factory.mktemp("blk") / "m.safetensors",
                    {"pad": ("U8", np.zeros(data.draw(st.integers(0, 9)))),  # any alignment
                     "w": (dtype, stored)})
    t = load_tensor(path, "w")
    start = data.draw(st.integers(0, n))
    stop = data.draw(st.integers(start, n))
    assert np.array_equal(t.block(start, stop), values[start:stop])
    assert fractions_of(t.rows()) == [[Fraction(x) for x in row] for row in values]


# --- name detection -----------------------------------------------------------------


def test_head_names_in_order(tmp_path):
    eye = floats(np.eye(2))
    for k in range(len(HEAD_NAMES)):
        present = {name: ("F32", eye) for name in HEAD_NAMES[k:]}
        present["model.layers.0.weight"] = ("F32", floats(np.ones((5, 2))))
        path = write_st(tmp_path / f"m{k}.safetensors", present)
        assert load_head(path).weights.name == HEAD_NAMES[k]
    assert HEAD_NAMES[0] == "lm_head.weight"
    for tied in ("model.embed_tokens.weight", "transformer.wte.weight",
                 "embeddings.word_embeddings.weight"):
        assert HEAD_NAMES.index("lm_head.weight") < HEAD_NAMES.index(tied)


def test_head_without_a_usual_name(tmp_path):
    only_2d = write_st(tmp_path / "a.safetensors", {
        "norm": ("F32", floats(np.ones(3))), "proj": ("F32", floats(np.ones((4, 3))))})
    assert load_head(only_2d).weights.name == "proj"
    single_1d = write_st(tmp_path / "b.safetensors", {"v": ("F32", floats(np.ones(3)))})
    assert "has shape [3]: expected a 2-D tensor" in error_of(load_head, single_1d)
    many = write_st(tmp_path / "c.safetensors", {
        f"t{k}": ("F32", floats(np.ones((k + 1, 2)))) for k in range(8)})
    message = error_of(load_head, many)
    assert message.startswith(many + ": 8 tensors and none has a usual head name")
    # largest first, five shown, the rest counted
    assert '"t7" [8, 2], "t6" [7, 2], "t5" [6, 2], "t4" [5, 2], "t3" [4, 2], ... (3 more)' \
        in message and "--tensor NAME" in message
    assert "no tensor named \"zz\" (2-D tensors: \"t7\" [8, 2]" in error_of(
        load_head, many, tensor="zz")


# --- blockwise reading --------------------------------------------------------------


def mapped_length(array: np.ndarray) -> int | None:
    """Length of the memory map under ``array``, or None if it owns its memory."""
    base = array
    while base is not None:
        if isinstance(base, mmap.mmap):
            return len(base)
        base = getattr(base, "base", None) if not isinstance(base, memoryview) else base.obj
    return None


def test_block_maps_only_the_rows_asked_for(tmp_path):
    n, d = 4096, 256  # 4 MB of F32
    values = np.arange(n * d, dtype=np.float32).reshape(n, d) / 8
    path = write_st(tmp_path / "big.safetensors", {
        "pad": ("F32", floats(np.ones(37))),  # unaligned data offsets
        "lm_head.weight": ("F32", values.view("<u4"))})
    t = load_head(path).weights
    row_bytes = d * 4
    for start, stop in [(1000, 1010), (0, 1), (n - 3, n)]:
        b = t.block(start, stop)
        assert np.array_equal(b, values[start:stop])
        length = mapped_length(b)  # float32: a view of the map, no copy
        assert length is not None and not b.flags.writeable
        assert (stop - start) * row_bytes <= length <= (stop - start) * row_bytes \
            + mmap.ALLOCATIONGRANULARITY
    wide = write_st(tmp_path / "bf.safetensors", {"w": ("BF16", floats(values, "BF16"))})
    b = load_tensor(wide).block(7, 9)
    assert mapped_length(b) is None and b.nbytes == 2 * row_bytes  # a fresh, small copy
    assert t.block(5, 5).shape == (0, d)
    with pytest.raises(IndexError):
        t.block(5, n + 1)


def test_nonfinite_values_found_blockwise(tmp_path):
    n, d = 300, 5
    for dtype, bad in [("F32", np.nan), ("BF16", -np.inf), ("F16", np.inf), ("F64", np.nan)]:
        values = np.ones((n, d))
        values[211, 3] = bad
        values[250, 0] = np.nan  # a later one is not reported
        path = write_st(tmp_path / f"{dtype}.safetensors", {"w": (dtype, floats(values, dtype))})
        t = load_tensor(path)
        assert t.first_nonfinite(block_bytes=64) == (211, 3)  # many small blocks
        assert t.first_nonfinite() == (211, 3)
        message = error_of(load_head, path)
        assert message.startswith(path) and "row 211, column 3: not a finite number" in message
    bias = write_st(tmp_path / "b.safetensors", {
        "lm_head.weight": ("F32", floats(np.ones((3, 2)))),
        "lm_head.bias": ("F32", floats([0, np.inf, 0]))})
    assert "entry 1: not a finite number: inf" in error_of(load_head, bias, bias="auto")
    # rows() checks on its own too (a tensor located with load_tensor is not scanned)
    assert "row 211, column 3: not a finite" in error_of(load_tensor(path).rows)


def test_size_guard_comes_before_reading(tmp_path, monkeypatch):
    path = write_st(tmp_path / "m.safetensors", {"w": ("F32", floats(np.ones((30, 10))))})
    monkeypatch.setattr(checkpoint, "MAX_EXACT_ENTRIES", 299)
    with pytest.raises(TooLargeError) as info:
        read_matrix(path)
    assert "30 x 10 = 300 entries" in str(info.value) and "at most 299" in str(info.value)
    monkeypatch.setattr(checkpoint, "MAX_EXACT_ENTRIES", 300)
    assert len(read_matrix(path)) == 30
    with pytest.raises(TooLargeError):
        load_tensor(path).rows(limit=299)
    # refused before the data is scanned: a NaN in it is not what is reported
    values = np.ones((30, 10))
    values[29, 9] = np.nan
    nan = write_st(tmp_path / "nan.safetensors", {"w": ("F32", floats(values))})
    monkeypatch.setattr(checkpoint, "MAX_EXACT_ENTRIES", 299)
    with pytest.raises(TooLargeError):
        read_matrix(nan)
    with pytest.raises(TooLargeError):
        load_head(nan, max_entries=299)
    assert "row 29, column 9" in error_of(load_head, nan, max_entries=300)


# --- .npy and text files ------------------------------------------------------------


def test_npy_heads(tmp_path):
    cases = {"float16": "F16", "float32": "F32", "float64": "F64", "int8": "I8",
             "int64": "I64", "uint16": "U16", ">f4": "F32", ">i4": "I32"}
    for numpy_dtype, name in cases.items():
        path = tmp_path / f"{numpy_dtype.replace('>', 'be')}.npy"
        values = W * 4 + (8 if name.startswith("U") else 0)  # integers, >= 0 if unsigned
        np.save(path, values.astype(numpy_dtype))
        head = load_head(path)
        assert (head.weights.name, head.weights.dtype, head.weights.shape) == (None, name, (7, 3))
        assert fractions_of(head.weights.rows()) == [[Fraction(x) for x in r] for r in values]
        assert np.array_equal(head.weights.block(1, 4), values[1:4])
    fortran = tmp_path / "f.npy"
    np.save(fortran, np.asfortranarray(W))
    t = load_head(fortran).weights
    assert t.fortran_order and np.array_equal(t.block(2, 6), W[2:6])
    assert t.block(2, 6).flags.c_contiguous


@pytest.mark.parametrize("numpy_dtype", ["float16", "float32", "float64", "int32"])
def test_checkpoint_and_npy_readers_agree(tmp_path, numpy_dtype):
    """The old exact .npy reader and the checkpoint reader, on the same values."""
    values = (RNG.standard_normal((40, 6)) * 1000).astype(numpy_dtype)
    np.save(tmp_path / "w.npy", values)
    dtype = {"float16": "F16", "float32": "F32", "float64": "F64", "int32": "I32"}[numpy_dtype]
    stored = values.view(STORAGE[dtype][1]) if dtype in FIELDS else values
    path = write_st(tmp_path / "w.safetensors", {"lm_head.weight": (dtype, stored)})
    assert read_matrix(path) == read_matrix(tmp_path / "w.npy")
    assert load_head(tmp_path / "w.npy").weights.rows() == read_matrix(tmp_path / "w.npy")


def test_npy_exact_fallback_and_refusals(tmp_path):
    big = tmp_path / "u64.npy"
    np.save(big, np.array([[2**64 - 1, 0]], dtype=np.uint64))
    head = load_head(big)
    assert isinstance(head.weights, list) and head.weights[0][0] == 2**64 - 1
    refused = {
        "o.npy": (np.array([[1, None]], dtype=object), "object arrays"),
        "s.npy": (np.zeros((2, 2), dtype=[("a", "<f4")]), "structured"),
        "c.npy": (np.zeros((2, 2), dtype=np.complex128), "unsupported dtype complex128"),
        "b.npy": (np.zeros((2, 2), dtype=bool), "unsupported dtype bool"),
        "v.npy": (np.zeros(3), "has shape [3]: expected a 2-D"),
        "r.npy": (np.zeros((0, 3)), "no rows"),
        "z.npy": (np.zeros((3, 0)), "zero columns"),
        "n.npy": (np.array([[1.0, 2.0], [np.nan, 0]]), "row 1, column 0: not a finite"),
    }
    for name, (array, needle) in refused.items():
        np.save(tmp_path / name, array, allow_pickle=True)
        message = error_of(load_head, tmp_path / name)
        assert message.startswith(str(tmp_path / name)) and needle in message, message
    truncated = tmp_path / "t.npy"
    np.save(truncated, np.ones((50, 4)))
    truncated.write_bytes(truncated.read_bytes()[:-8])
    assert "ends inside its data" in error_of(load_head, truncated)
    assert "not a valid .npy" in error_of(load_head, _write(tmp_path, "x.npy", b"nope"))
    assert "--tensor does not apply" in error_of(load_head, big, tensor="w")


def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


def test_text_heads_and_vectors(tmp_path):
    head = load_head(_write(tmp_path, "w.csv", "1, 1/3\n0.1, -2\n3, 4\n"),
                     bias=str(_write(tmp_path, "b.json", "[1, 0.5, -2]")))
    assert head.weights == read_matrix(tmp_path / "w.csv")
    assert [str(x) for x in head.bias] == ["1", "1/2", "-2"]
    assert "(3 x 2, exact entries)" in head.description
    assert read_vector(_write(tmp_path, "c.txt", "1\n2\n3\n")) == [1, 2, 3]
    assert read_vector(_write(tmp_path, "r.csv", "1, 2, 3\n")) == [1, 2, 3]
    assert "expected a vector (one row or one column), got 2 x 2" in error_of(
        read_vector, _write(tmp_path, "m.csv", "1,2\n3,4\n"))
    assert "--tensor applies to checkpoints" in error_of(load_head, tmp_path / "w.csv",
                                                         tensor="x")


def test_text_heads_read_square_roots_exactly(tmp_path):
    """The text path of ``load_head`` reads the same entries as the exact commands."""
    from verify.numbers.sqrt_sum import SqrtSum, parse_sqrt_sum

    path = _write(tmp_path, "w.txt", "1 0\nsqrt(2)/2 -sqrt(8)/4\nsqrt(4)/4 0.1\n")
    rows = load_head(path).weights
    assert rows[1] == [parse_sqrt_sum("sqrt(2)/2"), -parse_sqrt_sum("sqrt(2)/2")]
    assert isinstance(rows[1][0], SqrtSum)
    # a square root that is rational is a rational, and a decimal is its exact value
    assert [str(x) for x in rows[2]] == ["1/2", "1/10"]
    assert "not a number: 'sqrt(-2)'" in error_of(
        load_head, _write(tmp_path, "bad.txt", "1 sqrt(-2)\n"))


def test_bias_heads_refuse_irrational_entries_in_one_line(run_cli, tmp_path):
    """A bias head is decided over the rationals: an irrational entry is named, exit 2;
    square roots that are rational change nothing."""
    def run(*args):
        return run_cli(["analyze", *args])

    bias = _write(tmp_path, "b.txt", "0\n0\n1/10\n0\n")
    irrational = _write(tmp_path, "w.txt", "1 0\n0 1\nsqrt(2)/2 sqrt(2)/2\n-1 -1\n")
    code, out, err = run("--matrix", irrational, "--bias", bias)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "row 2, column 0: sqrt(2)/2 is irrational; --bias needs rational" in err
    rooted = _write(tmp_path, "r.txt", "1 0\n0 1\nsqrt(4)/4 sqrt(1/4)\n-1 -1\n")
    plain = _write(tmp_path, "p.txt", "1 0\n0 1\n1/2 0.5\n-1 -1\n")
    results = []
    for head in (rooted, plain):
        code, out, err = run("--matrix", head, "--bias", bias, "--json")
        assert code == 0, err
        document = json.loads(out)
        document.pop("matrix", None)
        document.pop("source", None)
        results.append(document)
    assert results[0] == results[1]


# --- bias ---------------------------------------------------------------------------


def test_bias_sources(tmp_path):
    bert = write_st(tmp_path / "bert.safetensors", {
        "bert.embeddings.word_embeddings.weight": ("F32", floats(W)),
        "cls.predictions.bias": ("F32", floats(np.arange(7) / 2)),
        "bert.pooler.dense.bias": ("F32", floats(np.ones(3))),
        "cls.predictions.transform.dense.weight": ("F32", floats(np.eye(3)))})
    head = load_head(bert, bias="auto")
    assert head.weights.name == "bert.embeddings.word_embeddings.weight"
    assert head.bias.name == "cls.predictions.bias"
    assert [Fraction(int(x.p), int(x.q)) for x in head.bias.rows()] == \
        [Fraction(k, 2) for k in range(7)]
    plain = write_st(tmp_path / "plain.safetensors", {"w": ("F32", floats(W))})
    assert load_head(plain, bias="auto").bias is None
    assert "no bias" in load_head(plain, bias="auto").description
    np.save(tmp_path / "b.npy", np.arange(7, dtype=np.float16))
    assert load_head(plain, bias=str(tmp_path / "b.npy")).bias.dtype == "F16"
    bad = {
        "bert.pooler.dense.bias": (bert, "has 3 entries for 7 labels"),
        "cls.predictions.transform.dense.weight": (bert, "has shape [3, 3]: a bias is 1-D"),
        str(tmp_path / "none.npy"): (plain, "bias: no such file, and no tensor of that name"),
        str(_write(tmp_path, "b6.json", "[1, 2, 3, 4, 5, 6]")): (plain, "6 entries for 7"),
        str(_write(tmp_path, "b8.csv", "1\n2\n3\n4\n5\n6\n7\n8\n")): (plain, "8 entries for 7"),
    }
    np.save(tmp_path / "b8.npy", np.ones(8))
    bad[str(tmp_path / "b8.npy")] = (plain, "has 8 entries for 7 labels")
    np.save(tmp_path / "b2.npy", np.ones((7, 1)))
    bad[str(tmp_path / "b2.npy")] = (plain, "has shape [7, 1]: a bias is 1-D")
    for bias, (path, needle) in bad.items():
        message = error_of(load_head, path, bias=bias)
        assert needle in message, message


# --- bad input: one line, exit code 2 -----------------------------------------------


def bad_checkpoints(tmp_path) -> dict[str, tuple[str, str]]:
    """name -> (path, expected text) for every kind of bad checkpoint."""
    ok = floats(np.eye(2))
    cases = {"missing": (str(tmp_path / "none.safetensors"), "file not found")}
    p = _write(tmp_path, "corrupt.safetensors", struct.pack("<Q", 5) + b"{nope")
    cases["corrupt header"] = (str(p), "invalid JSON")
    p = _write(tmp_path, "long.safetensors", struct.pack("<Q", 10**6) + b"{}")
    cases["header length"] = (str(p), "bad header")
    header = json.dumps({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 99]}})
    p = _write(tmp_path, "offsets.safetensors",
               struct.pack("<Q", len(header)) + header.encode() + bytes(16))
    cases["offsets"] = (str(p), "outside the data")
    d = tmp_path / "noshard"
    index = write_sharded(d, [{"a": ("F32", ok)}, {"lm_head.weight": ("F32", ok)}])
    (d / "model-00002-of-00002.safetensors").unlink()
    cases["missing shard"] = (str(index), 'shard "model-00002-of-00002.safetensors" (of '
                                          'tensor "lm_head.weight") is missing')
    d = tmp_path / "notinshard"
    index = write_sharded(d, [{"a": ("F32", ok)}, {"lm_head.weight": ("F32", ok)}])
    document = json.loads(index.read_text())
    document["weight_map"]["b"] = "model-00001-of-00002.safetensors"
    index.write_text(json.dumps(document))
    cases["tensor not in shard"] = (str(d), 'tensor "b" is not in its shard')
    p = _write(tmp_path / "noshard", "bad.safetensors.index.json", '{"weights": {}}')
    cases["not an index"] = (str(p), 'no "weight_map"')
    p = _write(tmp_path / "noshard", "b2.safetensors.index.json", '{"weight_map": {"a": 1}}')
    cases["shard not a name"] = (str(p), 'no "weight_map"')
    p = _write(tmp_path / "noshard", "b3.safetensors.index.json", '{"weight_map": {')
    cases["index not JSON"] = (str(p), "invalid JSON")
    cases["not 2-D"] = (write_st(tmp_path / "3d.safetensors", {
        "lm_head.weight": ("F32", floats(np.ones((2, 2, 2))))}), "expected a 2-D tensor")
    cases["no rows"] = (write_st(tmp_path / "r.safetensors", {
        "lm_head.weight": ("F32", np.zeros((0, 3), dtype=np.uint32))}), "no rows")
    cases["no columns"] = (write_st(tmp_path / "c.safetensors", {
        "lm_head.weight": ("F32", np.zeros((3, 0), dtype=np.uint32))}), "zero columns")
    p = tmp_path / "f8.safetensors"
    serialize_file({"lm_head.weight": TensorSpec(
        dtype="float8_e4m3fn", shape=[2, 2], data_ptr=np.zeros(4, "u1").ctypes.data,
        data_len=4)}, str(p), None)
    cases["unsupported dtype"] = (str(p), 'unsupported dtype "F8_E4M3"')
    values = np.ones((40, 3))
    values[33, 2] = np.nan
    cases["nan"] = (write_st(tmp_path / "nan.safetensors", {
        "lm_head.weight": ("BF16", floats(values, "BF16"))}), "row 33, column 2: not a finite")
    cases["ambiguous"] = (write_st(tmp_path / "two.safetensors", {
        "a": ("F32", ok), "b": ("F32", ok)}), "choose one with --tensor NAME")
    return cases


def test_bad_checkpoints_are_one_line_input_errors(tmp_path):
    for name, (path, needle) in bad_checkpoints(tmp_path).items():
        message = error_of(load_head, path)
        assert needle in message, (name, message)
        assert message.split(": ")[0].startswith(str(tmp_path)), (name, message)


def test_bad_checkpoints_exit_2_through_the_cli(tmp_path):
    cases = bad_checkpoints(tmp_path)
    huge = write_st(tmp_path / "huge.safetensors", {
        "lm_head.weight": ("F16", np.zeros((2001, 2001), dtype=np.uint16))})
    cases["too large for the exact commands"] = (huge, "4,004,001 entries")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    running = {name: subprocess.Popen(
        [sys.executable, "-m", "verify", "pattern", "--matrix", path], cwd=ROOT, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name, (path, _) in cases.items()}
    for name, proc in running.items():
        out, err = proc.communicate(timeout=120)
        lines = err.strip().splitlines()
        assert proc.returncode == 2 and out == "", (name, err)
        assert len(lines) == 1 and lines[0].startswith("verify: error: "), (name, err)
        assert cases[name][1] in lines[0], (name, lines[0])
