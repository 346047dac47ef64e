"""The checker enforces that an analyze certificate stores the head as primitive
integers (docs/certificates.md: ``Z`` is "the head as primitive integers, Z = c W"; with a
bias, ``Z`` and ``beta`` together), and the engine writes it so.  A damaged archive is
the checker's own error through the Python API too, never ``zipfile``'s.
"""

import copy
import io
import zipfile
from fractions import Fraction

import pytest

from test_analyze_certificate import SQUARE, both, certify, contents, rewrite
from verify.checker.analyze import Archive, check_file
from verify.checker.core import CertificateError, UnknownFormat

BIAS_HEAD = [[2, 0], [0, 3], [-1, -1], [1, 1]]
BIAS = [Fraction(1), Fraction(1, 2), Fraction(0), Fraction(-3)]


def _doubled(path, manifest, arrays, factor=2):
    """The certificate with ``Z`` (and ``bias``) multiplied by ``factor`` and the scale
    with it, so that ``Z = c W`` still holds: only primitivity is broken."""
    manifest, arrays = copy.deepcopy(manifest), copy.deepcopy(arrays)
    arrays["Z"] = [[factor * v for v in row] for row in arrays["Z"]]
    if "bias" in arrays:
        arrays["bias"] = [factor * v for v in arrays["bias"]]
    p, q = manifest["input"]["scale"].split("/")
    scale = Fraction(int(p), int(q)) * factor
    manifest["input"]["scale"] = f"{scale.numerator}/{scale.denominator}"
    return rewrite(path, manifest, arrays)


@pytest.mark.parametrize("W, bias", [(SQUARE, None), (BIAS_HEAD, BIAS)])
def test_the_engine_writes_primitive_heads(tmp_path, W, bias):
    path, _ = certify(tmp_path, W, bias=bias)
    assert both(path)[0] == "OK"
    _, arrays = contents(path)
    from math import gcd

    entries = [v for row in arrays["Z"] for v in row] + list(arrays.get("bias", []))
    assert gcd(*entries) == 1


@pytest.mark.parametrize("W, bias", [(SQUARE, None), (BIAS_HEAD, BIAS)])
def test_a_head_multiplied_by_two_is_refused(tmp_path, W, bias):
    path, _ = certify(tmp_path, W, bias=bias)
    manifest, arrays = contents(path)
    status, message = both(_doubled(path, manifest, arrays))
    also = " and of bias" if bias is not None else ""
    assert status == "INVALID"
    assert message == (f"Z is not primitive: every entry of Z{also} is divisible by 2 (Z "
                       "is c W with the least c that makes it an integer matrix)")
    assert "\n" not in message


def test_a_head_with_a_huge_common_factor_is_refused_in_one_short_line(tmp_path):
    path, _ = certify(tmp_path, SQUARE)
    manifest, arrays = contents(path)
    status, message = both(_doubled(path, manifest, arrays, factor=3 ** 400))
    assert status == "INVALID" and "Z is not primitive" in message and len(message) < 300


def test_the_command_line_refuses_it_in_one_line(tmp_path, capsys):
    from verify.checker.core import main

    path, _ = certify(tmp_path, SQUARE)
    forged = _doubled(path, *contents(path))
    assert main([str(forged)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{forged}: INVALID: Z is not primitive: every entry of Z is divisible "
                   "by 2 (Z is c W with the least c that makes it an integer matrix)"]


# --- damaged archives through the Python API --------------------------------------------

def test_archive_of_a_damaged_or_foreign_file_raises_the_checkers_error(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("manifest.json", "{}" * 100)
    data = bytearray(buffer.getvalue())
    start = data.find(b"{}{}")
    data[start:start + 4] = b"XXXX"  # the member no longer matches its CRC
    crc = tmp_path / "crc.zip"
    crc.write_bytes(bytes(data))
    foreign = tmp_path / "foreign.zip"
    foreign.write_bytes(b"PK\x03\x04 not a zip file")
    text = tmp_path / "text.zip"
    text.write_text("not a zip file\n")
    for path, reason in ((crc, "damaged archive: Bad CRC-32 for file 'manifest.json'"),
                         (foreign, "not a certificate archive: File is not a zip file"),
                         (text, "not a certificate archive: File is not a zip file")):
        with pytest.raises(UnknownFormat) as info:
            Archive(path)
        assert str(info.value) == reason
        with pytest.raises(CertificateError):
            check_file(path)
