"""Hostile and unlucky input files: one line on stderr and exit status 2, or an
INVALID verdict, never a traceback, a hang or an allocation the size of the claim
(issue 28: F1, F2, F3, F8, F9, F10, F12, F14 and the lenient JSONL reader)."""

import json
import os
import struct
import zipfile
from pathlib import Path

import pytest

from verify import cli
from verify.checker import core as checker

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "h1_A.json"


def _mkfifo(path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    os.mkfifo(path)


def one_line(capsys) -> str:
    """The single line written to stderr (and nothing else there)."""
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def pattern(capsys, path, *extra):
    status = cli.main(["pattern", "--matrix", str(path), *extra])
    return status, one_line(capsys)


def check(capsys, *paths):
    status = checker.main([str(p) for p in paths])
    err = capsys.readouterr().err.strip().splitlines()
    return status, err


def npy_with_shape(path: Path, shape: str, data: bytes = b"\0" * 64) -> Path:
    header = f"{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}"
    header += " " * (118 - len(header)) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header))
                     + header.encode("latin1") + data)
    return path


def safetensors(path: Path, header_text: str, data: bytes) -> Path:
    raw = header_text.encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + data)
    return path


# --- F1: .npy headers are checked before numpy allocates -----------------------------

@pytest.mark.parametrize("shape", ["(10000000000000000000, 10000000000000000000)",
                                   f"({'9' * 4000}, {'9' * 4000})", "(100, 100)"],
                         ids=["10^19", "4000-digit", "100"])
@pytest.mark.parametrize("command", [["pattern"], ["theorem", "3.4"], ["analyze"]])
def test_npy_declaring_more_data_than_the_file_holds(tmp_path, capsys, shape, command):
    """Every --matrix command: one line, before numpy maps or allocates the array."""
    path = npy_with_shape(tmp_path / "big.npy", shape)
    status = cli.main([*command, "--matrix", str(path)])
    assert status == 2
    assert one_line(capsys) == (f"verify: error: {path}: not a valid .npy file: the file "
                                "ends inside its data")


def test_check_matrix_refuses_an_impossible_npy(certificates, tmp_path, capsys):
    path = npy_with_shape(tmp_path / "big.npy", "(10000000000000000000, 10)")
    status = cli.check_against_matrix([str(certificates[0]), "--matrix", str(path)])
    assert status == 2
    err = capsys.readouterr().err.strip()
    assert err == f"verify: error: {path}: not a valid .npy file: the file ends inside its data"


def test_npy_with_more_entries_than_the_exact_readers_take(tmp_path, capsys, monkeypatch):
    import numpy as np

    import verify.io.checkpoint as checkpoint

    path = tmp_path / "W.npy"
    np.save(path, np.ones((4, 4)))
    monkeypatch.setattr(checkpoint, "MAX_EXACT_ENTRIES", 15)
    status, line = pattern(capsys, path)
    assert status == 2
    assert line == (f"verify: error: {path}: the array is 4 x 4 = 16 entries; reading it "
                    "exactly (as rationals) takes at most 15")
    monkeypatch.setattr(checkpoint, "MAX_EXACT_ENTRIES", 16)
    assert cli.main(["pattern", "--matrix", str(path), "--count-only"]) == 0


# --- F2, F3: safetensors headers ------------------------------------------------------

def test_safetensors_offsets_with_thousands_of_digits(tmp_path, capsys):
    path = safetensors(tmp_path / "h.safetensors", '{"w":{"dtype":"F32","shape":[2,3],'
                       '"data_offsets":[0,%s]}}' % ("9" * 5000), b"\0" * 24)
    status, line = pattern(capsys, path)
    assert status == 2 and "an integer of 5,000 digits" in line


def _two_tensors(tmp_path, bias_offsets, size=24):
    header = {"lm_head.weight": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
              "lm_head.bias": {"dtype": "F32", "shape": [3], "data_offsets": bias_offsets}}
    return safetensors(tmp_path / "m.safetensors", json.dumps(header), b"\0" * size)


def test_overlapping_safetensors_tensors_are_refused(tmp_path, capsys):
    status, line = pattern(capsys, _two_tensors(tmp_path, [8, 20]))
    assert status == 2
    assert 'tensor "lm_head.bias" at data_offsets [8, 20] overlaps tensor "lm_head.weight"' \
        in line


def test_safetensors_with_a_gap_or_slack_is_refused(tmp_path, capsys):
    status, line = pattern(capsys, _two_tensors(tmp_path, [28, 40], size=40))
    assert status == 2 and "leaves a gap" in line
    status, line = pattern(capsys, _two_tensors(tmp_path, [24, 36], size=40))
    assert status == 2 and "the tensors end at byte 36 of the data, which has 40" in line


def test_tiled_safetensors_are_read(tmp_path, capsys):
    path = _two_tensors(tmp_path, [24, 36], size=36)
    assert cli.main(["pattern", "--matrix", str(path), "--count-only"]) == 0


# --- F8, F12: only regular files ------------------------------------------------------

@pytest.fixture
def fifo(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return path


def test_pattern_refuses_a_fifo_by_name(fifo, capsys):
    status, line = pattern(capsys, fifo)
    assert status == 2 and line.endswith("pipe.json: cannot read: is a FIFO (named pipe)")


def test_safetensors_fifo_is_refused(tmp_path, capsys):
    path = tmp_path / "pipe.safetensors"
    _mkfifo(path)
    status, line = pattern(capsys, path)
    assert status == 2 and line.endswith("cannot read: is a FIFO (named pipe)")


def test_checkpoint_readers_refuse_fifos(tmp_path):
    """A FIFO as a sharded index, as a shard, or as a .npy head: refused by name."""
    from verify.io.checkpoint import load_head, load_tensor
    from verify.io.errors import InputError

    index = tmp_path / "model.safetensors.index.json"
    _mkfifo(index)
    with pytest.raises(InputError, match="index.json: cannot read: is a FIFO"):
        load_head(index)
    index.unlink()
    index.write_text(json.dumps({"weight_map": {"lm_head.weight": "shard.safetensors"}}))
    os.mkfifo(tmp_path / "shard.safetensors")
    with pytest.raises(InputError, match="shard.safetensors: cannot read: is a FIFO"):
        load_head(index)
    head = tmp_path / "W.npy"
    os.mkfifo(head)
    with pytest.raises(InputError, match="W.npy: cannot read: is a FIFO"):
        load_tensor(head)
    with pytest.raises(InputError, match="W.npy: cannot read: is a FIFO"):
        load_head(head)


@pytest.mark.parametrize("name, kind", [("/dev/zero", "is a character device"),
                                        ("/dev/null", "is a character device")])
def test_check_refuses_devices(capsys, name, kind):
    if not os.path.exists(name):
        pytest.skip(f"no {name}")
    status, err = check(capsys, name)
    assert status == 2
    assert err == [f"{name}: ERROR: cannot read: {kind}, not a regular file"]


def test_check_refuses_a_fifo_and_a_directory(fifo, tmp_path, capsys):
    status, err = check(capsys, fifo, tmp_path)
    assert status == 2
    assert err == [f"{fifo}: ERROR: cannot read: is a FIFO (named pipe), not a regular file",
                   f"{tmp_path}: ERROR: cannot read: Is a directory"]


# --- F9, F10: messages about huge numbers ---------------------------------------------

@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    """A JSON and a JSONL ranking-pattern certificate of the bundled example."""
    directory = tmp_path_factory.mktemp("certs")
    plain, streamed = directory / "r.cert.json", directory / "r.cert.jsonl"
    assert cli.main(["pattern", "--matrix", str(EXAMPLE), "--kind", "ranking",
                     "--count-only", "--certificate", str(plain)]) == 0
    assert cli.main(["pattern", "--matrix", str(EXAMPLE), "--kind", "ranking",
                     "--count-only", "--certificate", str(streamed),
                     "--certificate-format", "jsonl"]) == 0
    return plain, streamed


MILLION = "1" + "0" * 1_000_000


def test_json_certificate_with_a_million_digit_multiplier(certificates, tmp_path, capsys):
    document = json.loads(certificates[0].read_text())
    document["evidence"]["refutations"][0]["multipliers"][0][1] = MILLION
    path = tmp_path / "huge.cert.json"
    path.write_text(json.dumps(document))
    capsys.readouterr()
    status, err = check(capsys, path)
    assert status == 1 and len(err) == 1
    assert "INVALID" in err[0] and "1,000,001-digit integer" in err[0]
    assert len(err[0]) < 300


def _streamed_lines(certificates):
    return certificates[1].read_text().split("\n")


def test_jsonl_certificate_with_a_million_digit_witness(certificates, tmp_path, capsys):
    lines = _streamed_lines(certificates)
    cell = json.loads(lines[1])
    cell["witness"][0] = "-" + MILLION
    lines[1] = json.dumps(cell, separators=(",", ":"))
    path = tmp_path / "huge.cert.jsonl"
    path.write_text("\n".join(lines))
    capsys.readouterr()
    status, err = check(capsys, path)
    assert status == 1 and len(err) == 1
    assert "INVALID: cell 0: witness gives label" in err[0] and "-digit integer" in err[0]


def test_jsonl_certificate_with_a_million_digit_multiplier(certificates, tmp_path, capsys):
    lines = _streamed_lines(certificates)
    k = next(k for k, line in enumerate(lines) if '"multipliers"' in line)
    refutation = json.loads(lines[k])
    refutation["multipliers"][0][1] = MILLION
    lines[k] = json.dumps(refutation, separators=(",", ":"))
    path = tmp_path / "huge.cert.jsonl"
    path.write_text("\n".join(lines))
    capsys.readouterr()
    status, err = check(capsys, path)
    assert status == 1 and len(err) == 1 and "1,000,00" in err[0]


@pytest.mark.parametrize("value, shown", [
    (12345, "12345"), (-7, "-7"), (10 ** 60, str(10 ** 60)),
    (10 ** 1000, "a 1,001-digit integer"), (-(10 ** 999), "a negative 1,000-digit integer"),
    (10 ** 1000 - 1, "a 1,000-digit integer")])
def test_shown_number_counts_digits_exactly(value, shown):
    assert checker.shown_number(value) == shown


def test_shown_number_of_a_fraction():
    from fractions import Fraction

    assert checker.shown_number(Fraction(3, 4)) == "3/4"
    assert checker.shown_number(Fraction(10 ** 5000, 3)) == "a 5,001-digit integer/3"


# --- the lenient JSONL reader: the final newline --------------------------------------

def test_jsonl_certificate_without_its_final_newline_is_refused(certificates, tmp_path,
                                                                capsys):
    text = certificates[1].read_text()
    assert text.endswith("}\n")
    path = tmp_path / "cut.cert.jsonl"
    path.write_text(text[:-1])
    capsys.readouterr()
    status, err = check(capsys, certificates[1], path)
    assert status == 1
    assert err == [f"{path}: INVALID: line {text.count(chr(10))}: the file does not end "
                   "with a newline (cut short?)"]


# --- F14: ZIP bombs and large text files ----------------------------------------------

def test_zip_bomb_is_refused_before_reading(tmp_path, capsys):
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("manifest.json", "w", force_zip64=True) as member:
            block = b"\0" * (1 << 20)
            for _ in range(300):
                member.write(block)
    assert path.stat().st_size < 1 << 20
    status, err = check(capsys, path)
    assert status == 2 and len(err) == 1
    assert "members declare 314,572,800 bytes uncompressed" in err[0]
    assert "refused before reading" in err[0]


def test_zip_member_longer_than_declared_is_not_inflated(tmp_path, capsys):
    """A member whose stream inflates beyond its declared size fails its CRC check:
    Python's zipfile never returns more than the declared size."""
    path = tmp_path / "liar.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", b"{}" + b" " * (1 << 22))
    data = bytearray(path.read_bytes())
    # Shrink the declared size (local header and central directory) to 2 bytes.
    declared = struct.pack("<I", 2 + (1 << 22))
    for start in [i for i in range(len(data)) if data[i:i + 4] == declared]:
        data[start:start + 4] = struct.pack("<I", 2)
    path.write_bytes(bytes(data))
    with zipfile.ZipFile(path) as archive:
        assert sum(info.file_size for info in archive.infolist()) == 2
    status, err = check(capsys, path)
    assert status in (1, 2) and len(err) == 1 and "Traceback" not in err[0]


def test_text_matrix_above_the_size_limit_is_refused_before_reading(tmp_path, capsys,
                                                                   monkeypatch):
    import verify.io.matrix_file as matrix_file

    path = tmp_path / "W.csv"
    path.write_text("1, 2\n3, 4\n" * 100)
    monkeypatch.setattr(matrix_file, "MAX_TEXT_BYTES", 999)
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail("read"))
    status, line = pattern(capsys, path)
    assert status == 2
    assert line.endswith("W.csv: 1,000 bytes; a text matrix is read whole into memory and "
                         "may have at most 999 bytes (docs/limits.md)")
