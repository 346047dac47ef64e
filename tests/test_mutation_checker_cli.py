"""The checker's command line, in-process: every kind of file, every exit status.

``python -m verify check`` dispatches on the file's first bytes (a ZIP archive of
``analyze``, a streamed JSON Lines certificate, or a JSON certificate) and reports one
line per file. Here :func:`verify.checker.core.main` is run in this process (so that
mutation testing can trace it) on files of each kind, valid and not, and its lines and
exit status are compared with what the per-kind checkers say about the same files: the
line of a valid file carries exactly the summary of that file's checker, an invalid one
the checker's own message, and the exit status is the worst of the files' statuses
whatever their order.
"""

from __future__ import annotations

import itertools
import json
import tracemalloc
from pathlib import Path

import pytest

import verify.checker.analyze as archive_checker
from verify.analyze import analyze
from verify.certificates.stream import write_ranking_certificate
from verify.certificates.writers import pattern_certificate
from verify.checker.analyze import check_file as check_archive_file
from verify.checker.core import (STREAMED, USAGE, CertificateError, UnknownFormat,
                                 _is_zip, _options, check_certificate, check_file,
                                 load_certificate, main, streamed_checker)
from verify.checker.stream import check_stream_file

W = [[1, 2], [0, 1], [2, -1], [-1, 0]]
SQUARE = [[1, 0], [0, 1], [-1, 0], [0, -1], [0, 0]]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """One file of each kind and outcome: name -> (path, expected status)."""
    from verify.analyze.certificate import write_analyze_certificate

    root = tmp_path_factory.mktemp("check")
    out = {}
    cert = json.loads(json.dumps(pattern_certificate(W, kind="sign", affine=False)))
    (root / "valid.json").write_text(json.dumps(cert))
    out["valid"] = (root / "valid.json", 0)
    cert["evidence"]["cells"][0]["witness"] = ["0"] * len(W[0])
    (root / "invalid.json").write_text(json.dumps(cert))
    out["invalid"] = (root / "invalid.json", 1)
    (root / "unknown.json").write_text(json.dumps({"format": "another/1"}))
    out["unknown"] = (root / "unknown.json", 2)
    (root / "text.json").write_text("not JSON\nat all")
    out["text"] = (root / "text.json", 2)
    out["missing"] = (root / "missing.json", 2)
    write_ranking_certificate(root / "stream.jsonl", W, affine=False)
    out["stream"] = (root / "stream.jsonl", 0)
    lines = (root / "stream.jsonl").read_text().splitlines()
    (root / "stream-cut.jsonl").write_text("\n".join(lines[:-1]) + "\n")
    out["stream-cut"] = (root / "stream-cut.jsonl", 1)
    write_analyze_certificate(root / "square.zip", analyze(SQUARE, cells=False), SQUARE)
    out["archive"] = (root / "square.zip", 0)
    (root / "broken.zip").write_bytes(b"PK\x03\x04" + b"\x00" * 40)
    out["broken-archive"] = (root / "broken.zip", None)
    return out


def own_verdict(path: Path):
    """What the checker of the file's kind says, without the dispatch of ``main``."""
    try:
        head = path.read_bytes()[:64]
    except OSError as exc:
        return 2, f"ERROR: cannot read: {exc.strerror}"
    try:
        if head.startswith(b"PK\x03\x04"):
            return 0, f"OK ({check_archive_file(path)})"
        if head.startswith(b'{"format":"verify-certificate-stream/1"'):
            return 0, f"OK ({check_stream_file(path)})"
        obj = json.loads(path.read_text())
    except ValueError as exc:
        return 2, f"ERROR: not JSON: {str(exc).splitlines()[0]}"
    except UnknownFormat as exc:
        return 2, f"ERROR: {exc}"
    except CertificateError as exc:
        return 1, f"INVALID: {exc}"
    except OSError as exc:
        return 2, f"ERROR: cannot read: {exc.strerror or exc}"
    try:
        return 0, f"OK ({check_certificate(obj)})"
    except UnknownFormat as exc:
        return 2, f"ERROR: {exc}"
    except CertificateError as exc:
        return 1, f"INVALID: {exc}"


def run_main(argv, capsys):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err.splitlines()


def test_each_kind_of_file_gets_its_checkers_verdict(files, capsys):
    for name, (path, expected) in files.items():
        status, line = own_verdict(path)
        if expected is not None:
            assert status == expected, (name, line)
        got, out, err = run_main([path], capsys)
        assert got == status, (name, out, err)
        assert (out, err) == (([f"{path}: {line}"], []) if status == 0
                              else ([], [f"{path}: {line}"])), name


def test_the_exit_status_is_the_worst_whatever_the_order(files, capsys):
    names = ["valid", "invalid", "missing", "stream", "archive", "unknown"]
    for pair in itertools.permutations(names, 2):
        paths = [files[n][0] for n in pair]
        status, out, err = run_main(paths, capsys)
        assert status == max(files[n][1] for n in pair), pair
        assert len(out) + len(err) == 2                    # one line per file
        assert all(line.startswith(str(p) + ": ") for line, p in
                   zip(sorted(out + err, key=lambda s: [str(p) for p in paths].index(
                       s.split(": ")[0])), paths))


def test_check_file_agrees_with_main(files, capsys):
    for name in ("valid", "invalid", "stream", "stream-cut", "archive", "unknown"):
        path, expected = files[name]
        status, out, err = run_main([path], capsys)
        try:
            line = f"OK ({check_file(path)})"
        except UnknownFormat as exc:
            line = f"ERROR: {exc}"
        except CertificateError as exc:
            line = f"INVALID: {exc}"
        assert (out + err) == [f"{path}: {line}"], name
    with pytest.raises(OSError):
        check_file(files["missing"][0])
    with pytest.raises(ValueError):
        check_file(files["text"][0])


def test_usage(capsys):
    assert run_main([], capsys) == (2, [], USAGE.splitlines())
    for flag in ("-h", "--help"):
        assert run_main([flag], capsys) == (0, USAGE.splitlines(), [])


def test_arithmetic_option_is_parsed_in_both_spellings():
    for value in ("auto", "python", "numpy"):
        for argv in (["--arithmetic", value, "a", "b"], ["a", f"--arithmetic={value}", "b"],
                     ["a", "b", "--arithmetic", value]):
            assert _options(argv) == (["a", "b"], {"arithmetic": value, "jobs": 1})
    assert _options(["a", "b"]) == (["a", "b"], {"arithmetic": "auto", "jobs": 1})
    message = "--arithmetic expects auto, python or numpy"
    for argv in (["a", "--arithmetic"], ["--arithmetic", "a"], ["--arithmetic=", "a"],
                 ["--arithmetic=fast", "a"], ["--arithmetic", "Python", "a"],
                 ["--arithmetic=python=numpy", "a"]):
        assert _options(argv)[1] == message


def test_jobs_option_is_parsed_in_both_spellings():
    for value in (1, 2, 7, 1024):
        for argv in (["--jobs", str(value), "a", "b"], ["a", f"--jobs={value}", "b"],
                     ["a", "b", "--jobs", str(value)],
                     ["a", "b", "--jobs", str(value), "--arithmetic", "numpy"]):
            assert _options(argv)[0] == ["a", "b"]
            assert _options(argv)[1]["jobs"] == value
    for argv in (["a", "--jobs"], ["--jobs", "a"], ["--jobs=", "a"], ["--jobs=0", "a"],
                 ["--jobs", "-2", "a"], ["--jobs=1025", "a"], ["--jobs=2.5", "a"],
                 ["--jobs=2=3", "a"], ["--jobs", "²", "a"]):
        message = _options(argv)[1]
        assert isinstance(message, str) and message.startswith("--jobs expects a number")


def test_a_bad_option_is_one_line_and_status_2(files, capsys):
    path = files["valid"][0]
    for argv in ([path, "--arithmetic"], ["--arithmetic=fast", path]):
        assert run_main(argv, capsys) == (
            2, [], ["verify check: --arithmetic expects auto, python or numpy"])


def test_the_arithmetic_reaches_the_archive_checker(files, capsys, monkeypatch):
    seen = []

    def recording(path, *, backend="auto", jobs=1):
        seen.append((Path(path), backend) if jobs == 1 else (Path(path), backend, jobs))
        return "recorded"

    monkeypatch.setattr(archive_checker, "check_file", recording)
    path = files["archive"][0]
    for value in ("python", "numpy", "auto"):
        assert run_main(["--arithmetic", value, path], capsys) == (
            0, [f"{path}: OK (recorded)"], [])
    assert run_main([path], capsys)[0] == 0
    assert run_main(["--jobs", "3", path], capsys)[0] == 0
    assert seen == [(path, "python"), (path, "numpy"), (path, "auto"), (path, "auto"),
                    (path, "auto", 3)]


def test_the_kind_is_read_from_the_first_bytes(files, tmp_path):
    assert _is_zip(files["archive"][0]) and _is_zip(files["broken-archive"][0])
    for name in ("valid", "stream", "text", "missing"):
        assert not _is_zip(files[name][0]), name
    assert not _is_zip(tmp_path)                          # a directory: not an archive
    (tmp_path / "pk").write_bytes(b"PK\x03")                # a prefix of the signature
    assert not _is_zip(tmp_path / "pk")
    (tmp_path / "lower").write_bytes(b"pk\x03\x04" + b"\x00" * 8)
    assert not _is_zip(tmp_path / "lower")
    assert streamed_checker(files["stream"][0]) == "verify.checker.stream"
    for name in ("valid", "text", "archive"):
        assert streamed_checker(files[name][0]) is None, name
    start = next(iter(STREAMED))
    (tmp_path / "short").write_bytes(start[:-1])
    assert streamed_checker(tmp_path / "short") is None
    with pytest.raises(OSError):
        streamed_checker(files["missing"][0])


def test_the_kind_is_found_without_reading_the_whole_file(tmp_path):
    """A streamed certificate may be far larger than memory: only its start is read."""
    path = tmp_path / "large.jsonl"
    start = next(iter(STREAMED))
    path.write_bytes(start + b" " * (8 << 20))
    tracemalloc.start()
    try:
        assert streamed_checker(path) == "verify.checker.stream"
        assert not _is_zip(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_an_unreadable_path_is_named_with_the_reason(tmp_path, capsys):
    status, out, err = run_main([tmp_path], capsys)         # a directory
    assert status == 2 and out == []
    assert err == [f"{tmp_path}: ERROR: cannot read: Is a directory"]


def test_not_json_shows_the_first_line_of_the_reason(files, tmp_path, capsys):
    path = files["text"][0]
    try:
        load_certificate(path)
    except ValueError as exc:
        reason = str(exc).splitlines()[0]
    assert reason
    assert run_main([path], capsys) == (2, [], [f"{path}: ERROR: not JSON: {reason}"])
    dup = tmp_path / "dup.json"
    dup.write_text('{"a": 1,\n "a": 2}')
    assert run_main([dup], capsys) == (2, [], [f"{dup}: ERROR: not JSON: duplicate key 'a'"])


@pytest.mark.parametrize("error, shown", [
    (FileNotFoundError(2, "No such file or directory"), "No such file or directory"),
    (OSError("the disk went away"), "the disk went away")])
def test_a_read_error_while_checking_is_status_2(files, capsys, monkeypatch, error, shown):
    """A file that becomes unreadable after its kind was read (removed, a failing disk)."""
    import verify.checker.stream as stream_checker

    def failing(path):
        raise error

    monkeypatch.setattr(stream_checker, "check_stream_file", failing)
    path, invalid = files["stream"][0], files["invalid"][0]
    line = f"{path}: ERROR: cannot read: {shown}"
    assert run_main([path], capsys) == (2, [], [line])
    status, out, err = run_main([path, invalid], capsys)
    assert status == 2 and err[0] == line and err[1].startswith(f"{invalid}: INVALID: ")
