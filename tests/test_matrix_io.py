"""Tests for the exact input layer: rational parsing, matrix files, atomic writes."""

import json
import os
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq, fmpz
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.io import atomic as fileio
from verify.io.errors import InputError
from verify.io.atomic import write_json_atomic, write_text_atomic
from verify.io.matrix import matrix_shape, read_matrix
from verify.io.matrix_file import read_matrix_file
from verify.numbers.rational import (
    MAX_EXPONENT,
    exact_from_float,
    format_rational,
    parse_rational,
)

# --- parse_rational ---------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("3", fmpq(3)),
        ("-3", fmpq(-3)),
        ("+3", fmpq(3)),
        ("  7\t", fmpq(7)),
        ("0.1", fmpq(1, 10)),
        ("-.5", fmpq(-1, 2)),
        ("2.", fmpq(2)),
        ("1e-3", fmpq(1, 1000)),
        ("-2.5E+2", fmpq(-250)),
        (".5e1", fmpq(5)),
        ("3/4", fmpq(3, 4)),
        ("-3/4", fmpq(-3, 4)),
        ("+6/8", fmpq(3, 4)),
        ("-0", fmpq(0)),
        ("0.30000000000000000000000000001", fmpq(30000000000000000000000000001, 10**29)),
    ],
)
def test_parse_rational_exact(text, expected):
    value = parse_rational(text)
    assert isinstance(value, fmpq)
    assert value == expected


def test_parse_rational_is_not_a_float():
    assert parse_rational("0.1") != exact_from_float(0.1)
    assert parse_rational("0.1") + parse_rational("0.2") == parse_rational("0.3")


@pytest.mark.parametrize(
    "text",
    [
        "", "   ", "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "infinity", "+INF",
        "1/0", "-5/0", "0x10", "0b11", "1_000", "1e", "e5", ".", "+", "-", "1.2.3",
        "3/-4", "3/+4", "1/2/3", "1.5/2", "1/2.5", "abc", "1 2", "1,5", "\u0663",
        "1e" + "9" * 5000, f"1e{MAX_EXPONENT + 1}", "(1)", "--1",
    ],
)
def test_parse_rational_rejects(text):
    with pytest.raises(ValueError) as info:
        parse_rational(text)
    assert "\n" not in str(info.value)


def test_parse_rational_long_inputs_are_exact():
    digits = "7" * 6000  # beyond Python's default int-string limit
    assert parse_rational(digits) == fmpq(fmpz(digits))
    assert parse_rational("1e-" + "0" * 5000 + "3") == fmpq(1, 1000)
    assert parse_rational(f"1e{MAX_EXPONENT}") == fmpq(fmpz(10) ** MAX_EXPONENT)


_DECIMAL_TEXT = st.from_regex(
    r"\A[+-]?([0-9]{1,12}(\.[0-9]{0,12})?|\.[0-9]{1,12})([eE][+-]?[0-9]{1,3})?\Z"
)


@given(_DECIMAL_TEXT)
def test_parse_rational_agrees_with_fraction_on_decimals(text):
    value = parse_rational(text)
    expected = Fraction(text)
    assert value == fmpq(expected.numerator, expected.denominator)


@given(st.integers(), st.integers(min_value=1))
def test_format_parse_round_trip(p, q):
    value = fmpq(p, q)
    assert parse_rational(format_rational(value)) == value


def test_format_rational():
    assert format_rational(fmpq(6, -8)) == "-3/4"
    assert format_rational(fmpq(10, 5)) == "2"
    assert format_rational(-7) == "-7"
    assert format_rational(Fraction(3, 9)) == "1/3"
    assert format_rational(fmpz(12)) == "12"
    with pytest.raises(TypeError):
        format_rational(0.5)
    with pytest.raises(TypeError):
        format_rational(True)


def test_exact_from_float():
    assert exact_from_float(0.1) == fmpq(3602879701896397, 2**55)
    assert exact_from_float(0.1) != fmpq(1, 10)
    assert exact_from_float(-2.5) == fmpq(-5, 2)
    assert exact_from_float(np.float32(0.1)) == fmpq(13421773, 2**27)
    for bad in (float("nan"), float("inf"), -float("inf"), np.float64("nan")):
        with pytest.raises(ValueError):
            exact_from_float(bad)


# --- read_matrix: good input ------------------------------------------------


def _write(tmp_path, name, content):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def test_csv_exact(tmp_path):
    path = _write(tmp_path, "W.csv", "# header comment\n0.1, 1e-3, 3/4\n\n-2 ,+5,-.5\n")
    assert read_matrix(path) == [
        [fmpq(1, 10), fmpq(1, 1000), fmpq(3, 4)],
        [fmpq(-2), fmpq(5), fmpq(-1, 2)],
    ]


def test_txt_whitespace_separated(tmp_path):
    path = _write(tmp_path, "W.TXT", "  1 2\t3\n\n   # indented comment\n4   5 6\n")
    assert read_matrix(path) == [[1, 2, 3], [4, 5, 6]]


def test_csv_accepts_windows_line_endings_and_bom(tmp_path):
    path = _write(tmp_path, "W.csv", "\ufeff1,2\r\n3,4\r\n".encode("utf-8"))
    assert read_matrix(path) == [[1, 2], [3, 4]]


def test_json_numbers_are_exact(tmp_path):
    path = _write(tmp_path, "W.json", '[[0.1, 1e-3, -2.5E+2], [3, "3/4", " -.5 "]]')
    rows = read_matrix(path)
    assert rows == [[fmpq(1, 10), fmpq(1, 1000), fmpq(-250)], [fmpq(3), fmpq(3, 4), fmpq(-1, 2)]]
    assert all(isinstance(x, fmpq) for row in rows for x in row)


def test_json_big_integer_is_exact(tmp_path):
    big = "9" * 5000
    path = _write(tmp_path, "W.json", f"[[{big}, 1]]")
    assert read_matrix(path) == [[fmpq(fmpz(big)), fmpq(1)]]


def test_json_object_with_W(tmp_path):
    path = _write(tmp_path, "m.json", '{"labels": ["a", "b"], "W": [[1, 2], [3, 4]]}')
    assert read_matrix(path) == [[1, 2], [3, 4]]


def test_parse_entry_hook(tmp_path):
    def parse_entry(text):
        text = text.strip()
        if text == "sqrt2":
            return "SQRT2"
        return parse_rational(text)

    path = _write(tmp_path, "W.csv", "1, sqrt2\n")
    assert read_matrix_file(path, max_entries=10, parse_entry=parse_entry) == [[fmpq(1), "SQRT2"]]
    path = _write(tmp_path, "W.json", '[[1, "sqrt2"]]')
    assert read_matrix_file(path, max_entries=10, parse_entry=parse_entry) == [[fmpq(1), "SQRT2"]]


def test_parse_entry_message_names_the_text(tmp_path):
    def parse_entry(text):
        raise ValueError("unsupported")

    path = _write(tmp_path, "W.csv", "1, 2\n")
    with pytest.raises(InputError) as info:
        read_matrix_file(path, max_entries=10, parse_entry=parse_entry)
    message = str(info.value)
    assert "W.csv" in message and "row 0, column 0" in message and "'1'" in message


def test_npy_integers_exact(tmp_path):
    path = tmp_path / "W.npy"
    np.save(path, np.array([[1, -2], [2**62, 0]], dtype=np.int64))
    assert read_matrix(path) == [[1, -2], [fmpq(2**62), 0]]
    np.save(path, np.array([[2**64 - 1]], dtype=np.uint64))
    assert read_matrix(path) == [[fmpq(2**64 - 1)]]


def test_npy_float_is_exact_binary_value_not_decimal(tmp_path):
    path = tmp_path / "W.npy"
    np.save(path, np.array([[0.1, 0.5], [-3.0, 1e-300]]))
    rows = read_matrix(path)
    assert rows[0][0] == fmpq(3602879701896397, 2**55)
    assert rows[0][0] != fmpq(1, 10)
    assert rows[0][1] == fmpq(1, 2)
    assert rows[1][0] == -3
    assert rows[1][1] == exact_from_float(1e-300)


def test_npy_float32_exact(tmp_path):
    path = tmp_path / "W.npy"
    np.save(path, np.array([[0.1]], dtype=np.float32))
    assert read_matrix(path) == [[fmpq(13421773, 2**27)]]


@pytest.mark.skipif(np.finfo(np.longdouble).nmant <= 52, reason="long double is a plain double here")
def test_npy_long_double_not_rounded_to_double(tmp_path):
    third = np.longdouble(1) / np.longdouble(3)
    path = tmp_path / "W.npy"
    np.save(path, np.array([[third]], dtype=np.longdouble))
    (value,) = read_matrix(path)[0]
    assert value == fmpq(*third.as_integer_ratio())
    assert value != exact_from_float(float(third))


def test_matrix_shape():
    assert matrix_shape([[1, 2, 3], [4, 5, 6]]) == (2, 3)
    assert matrix_shape([]) == (0, 0)
    with pytest.raises(ValueError):
        matrix_shape([[1, 2], [3]])


# --- read_matrix: bad input -------------------------------------------------


def _input_error(path, **kwargs) -> str:
    with pytest.raises(InputError) as info:
        read_matrix(path, **kwargs)
    message = str(info.value)
    assert os.fspath(path) in message
    assert "\n" not in message and "\r" not in message
    return message


@pytest.mark.parametrize(
    "name, content, expected",
    [
        ("W.csv", "", "empty file"),
        ("W.json", "", "empty file"),
        ("W.npy", b"", "empty file"),
        ("W.txt", "  \n\n\t\n", "empty file"),
        ("W.csv", "# only a comment\n", "no rows"),
        ("W.json", "[]", "no rows"),
        ("W.json", '{"W": []}', "no rows"),
        ("W.json", "[[]]", "zero columns"),
        ("W.json", "[[], []]", "zero columns"),
        ("W.json", "[[1, 2", "invalid JSON"),
        ("W.json", "[[1, 2]] trailing", "invalid JSON"),
        ("W.json", "[[1, NaN]]", "row 0, column 1"),
        ("W.json", "[[Infinity]]", "not a finite number"),
        ("W.json", "[[-Infinity]]", "not a finite number"),
        ("W.json", "[[1], [true]]", "row 1, column 0"),
        ("W.json", "[[false]]", "boolean"),
        ("W.json", "[[null]]", "null"),
        ("W.json", "[[[1]]]", "nested deeper than 2 levels"),
        ("W.json", "[[1, [2]]]", "row 0, column 1: nested deeper"),
        ("W.json", '[[{"a": 1}]]', "object"),
        ("W.json", "[1, 2, 3]", "row 0 is not a list"),
        ("W.json", "5", "expected a list of rows"),
        ("W.json", '{"V": [[1]]}', '"W"'),
        ("W.json", '[["abc"]]', "'abc'"),
        ("W.json", '[["nan"]]', "row 0, column 0"),
        ("W.json", "[" * 100000 + "]" * 100000, "invalid JSON"),
        ("W.csv", "1,2\n3,x\n", "row 1, column 1"),
        ("W.csv", "1,2\n3,x\n", "'x'"),
        ("W.csv", "1,nan\n", "row 0, column 1"),
        ("W.csv", "inf,1\n", "not a finite number"),
        ("W.csv", "1,,2\n", "row 0, column 1: empty entry"),
        ("W.csv", "1/0\n", "zero denominator"),
        ("W.txt", "1 2 3\n4 5 6\n7 8 9\n1 2\n", "row 3 has 2 entries, expected 3"),
        ("W.csv", "1,2\n3,4,5\n", "row 1 has 3 entries, expected 2"),
        ("W.json", "[[1, 2, 3], [4, 5]]", "row 1 has 2 entries, expected 3"),
        ("W.csv", b"1,\xff\n", "not UTF-8"),
        ("W.xlsx", "1,2\n", "unknown extension"),
        ("W", "1,2\n", "unknown extension"),
        ("W.npy", b"this is not numpy", "not a valid .npy"),
    ],
)
def test_bad_input(tmp_path, name, content, expected):
    path = _write(tmp_path, name, content)
    message = _input_error(path)
    assert expected in message


def test_ragged_message_exact(tmp_path):
    path = _write(tmp_path, "W.csv", "1,2,3\n4,5,6\n7,8,9\n1,2\n")
    assert _input_error(path) == f"{path}: row 3 has 2 entries, expected 3"


def test_missing_file(tmp_path):
    assert "not found" in _input_error(tmp_path / "missing.csv")


def test_directory_is_unreadable(tmp_path):
    (tmp_path / "W.csv").mkdir()
    assert "cannot read" in _input_error(tmp_path / "W.csv")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a non-root POSIX user")
def test_permission_denied(tmp_path):
    path = _write(tmp_path, "W.csv", "1,2\n")
    path.chmod(0)
    try:
        assert "permission denied" in _input_error(path)
    finally:
        path.chmod(0o600)


def test_path_with_newline_stays_one_line(tmp_path):
    path = _write(tmp_path, "bad\nname.csv", "1,x\n")
    with pytest.raises(InputError) as info:
        read_matrix(path)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "array, expected",
    [
        (np.array([1.0, 2.0]), "2-D"),
        (np.ones((2, 2, 2)), "2-D"),
        (np.zeros((0, 3)), "no rows"),
        (np.zeros((3, 0)), "zero columns"),
        (np.array([[1.0, np.nan]]), "row 0, column 1"),
        (np.array([[1.0], [np.inf]]), "row 1, column 0"),
        (np.array([[True, False]]), "dtype"),
        (np.array([[1 + 2j]]), "dtype"),
        (np.array([["a", "b"]]), "dtype"),
        (np.array([["2020-01-01"]], dtype="datetime64[D]"), "dtype"),
    ],
)
def test_bad_npy(tmp_path, array, expected):
    path = tmp_path / "W.npy"
    np.save(path, array)
    assert expected in _input_error(path)


def test_npy_object_array_rejected(tmp_path):
    path = tmp_path / "W.npy"
    np.save(path, np.array([[1, "a"]], dtype=object), allow_pickle=True)
    _input_error(path)


def test_npy_truncated_rejected(tmp_path):
    path = tmp_path / "W.npy"
    np.save(path, np.ones((50, 50)))
    path.write_bytes(path.read_bytes()[:300])
    _input_error(path)


def test_npz_archive_rejected(tmp_path):
    archive = tmp_path / "W.npz"
    np.savez(archive, W=np.ones((2, 2)))
    path = tmp_path / "W.npy"
    path.write_bytes(archive.read_bytes())
    assert "npz" in _input_error(path)


# --- round trips ------------------------------------------------------------

_RATIONALS = st.builds(
    lambda p, q: fmpq(p, q),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.integers(min_value=1, max_value=10**30),
)


@st.composite
def _matrices(draw):
    n = draw(st.integers(min_value=1, max_value=6))
    d = draw(st.integers(min_value=1, max_value=6))
    return [[draw(_RATIONALS) for _ in range(d)] for _ in range(n)]


def _as_csv(rows):
    return "".join(", ".join(format_rational(x) for x in row) + "\n" for row in rows)


def _as_txt(rows):
    return "# a comment\n\n" + "".join(" ".join(format_rational(x) for x in row) + "\n" for row in rows)


def _json_entry(x):
    # Integers as JSON numbers, other rationals as "p/q" strings.
    return int(x.p) if x.q == 1 else format_rational(x)


def _as_json(rows):
    return json.dumps([[_json_entry(x) for x in row] for row in rows])


def _as_json_object(rows):
    return json.dumps({"W": [[format_rational(x) for x in row] for row in rows]})


@settings(max_examples=60, deadline=None)
@given(_matrices(), st.sampled_from(["csv", "txt", "json", "json-object"]))
def test_round_trip(tmp_path_factory, rows, fmt):
    directory = tmp_path_factory.mktemp("round_trip")
    writer = {"csv": _as_csv, "txt": _as_txt, "json": _as_json, "json-object": _as_json_object}[fmt]
    path = directory / ("W." + fmt.split("-")[0])
    write_text_atomic(path, writer(rows))
    assert read_matrix(path) == rows
    assert matrix_shape(read_matrix(path)) == (len(rows), len(rows[0]))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=3, max_size=3), min_size=1, max_size=4))
def test_npy_round_trip_is_exact_binary(tmp_path_factory, values):
    path = tmp_path_factory.mktemp("npy") / "W.npy"
    np.save(path, np.array(values, dtype=np.float64))
    assert read_matrix(path) == [[exact_from_float(x) for x in row] for row in values]


# --- atomic writes ----------------------------------------------------------


def test_write_text_atomic_writes_and_replaces(tmp_path):
    path = tmp_path / "out.txt"
    write_text_atomic(path, "first\n")
    write_text_atomic(path, "second\nline\n")
    assert path.read_bytes() == b"second\nline\n"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_write_json_atomic_deterministic(tmp_path):
    obj = {"b": [1, "3/4"], "a": {"z": None, "y": True}}
    first, second = tmp_path / "one.json", tmp_path / "two.json"
    write_json_atomic(first, obj)
    write_json_atomic(second, obj)
    text = first.read_text(encoding="utf-8")
    assert text == second.read_text(encoding="utf-8")
    assert text.endswith("\n") and text.count("\n") == 1
    assert text.index('"b"') < text.index('"a"')  # insertion order kept
    assert json.loads(text) == obj
    assert sorted(os.listdir(tmp_path)) == ["one.json", "two.json"]


def test_write_json_atomic_refuses_nan(tmp_path):
    path = tmp_path / "out.json"
    with pytest.raises(ValueError):
        write_json_atomic(path, {"x": float("nan")})
    assert os.listdir(tmp_path) == []


def test_failure_mid_write_keeps_old_target(tmp_path, monkeypatch):
    path = tmp_path / "out.txt"
    write_text_atomic(path, "old content\n")

    def half_then_fail(fd, data):
        os.write(fd, data[: len(data) // 2])
        raise OSError("disk full")

    monkeypatch.setattr(fileio, "_write_all", half_then_fail)
    with pytest.raises(OSError, match="disk full"):
        write_text_atomic(path, "new content that is much longer\n" * 100)
    assert path.read_text() == "old content\n"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_failure_mid_write_creates_no_target(tmp_path, monkeypatch):
    path = tmp_path / "out.json"

    def half_then_fail(fd, data):
        os.write(fd, data[:5])
        raise KeyboardInterrupt

    monkeypatch.setattr(fileio, "_write_all", half_then_fail)
    with pytest.raises(KeyboardInterrupt):
        write_json_atomic(path, {"W": [[1, 2], [3, 4]]})
    assert os.listdir(tmp_path) == []


def test_failure_at_fsync_or_replace_leaves_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "out.txt"
    write_text_atomic(path, "old\n")

    def fail(*args, **kwargs):
        raise OSError("simulated failure")

    for name in ("fsync", "replace"):
        with monkeypatch.context() as patch:
            patch.setattr(fileio.os, name, fail)
            with pytest.raises(OSError, match="simulated"):
                write_text_atomic(path, "new\n")
        assert path.read_text() == "old\n"
        assert os.listdir(tmp_path) == ["out.txt"]


def test_write_text_atomic_permissions_follow_umask(tmp_path):
    path = tmp_path / "out.txt"
    write_text_atomic(path, "x")
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
