"""Sweep checkpoints that detect damage (issue 28: the trusted row, and F6).

Every record carries the SHA-256 of its content and of the run's parameters; a record
that is damaged, edited, or copied from another run is not trusted: it is noted on
stderr and its matrix recomputed, so the sweep's totals stay right.
"""

import json
import os

import pytest

from verify import cli

SWEEP = ["lemma", "5.3", "--n", "3", "--d", "2", "--matrices", "6", "--json", "--quiet"]


def _mkfifo(path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    os.mkfifo(path)


def run(capsys, *argv):
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err.strip().splitlines()


@pytest.fixture
def uninterrupted(capsys):
    status, out, err = run(capsys, *SWEEP)
    assert status == 0 and err == []
    return json.loads(out)


@pytest.fixture
def checkpoint(tmp_path, capsys):
    path = tmp_path / "c.jsonl"
    status, _, _ = run(capsys, *SWEEP, "--checkpoint", str(path))
    assert status == 0
    return path


def edit_line(path, number, edit):
    lines = path.read_bytes().split(b"\n")
    lines[number - 1] = edit(lines[number - 1])
    path.write_bytes(b"\n".join(lines))


def resume(capsys, path):
    status, out, err = run(capsys, *SWEEP, "--checkpoint", str(path))
    return status, json.loads(out) if out else None, err


def test_records_carry_checksums(checkpoint):
    lines = checkpoint.read_text().splitlines()
    assert json.loads(lines[0])["format"] == "verify-checkpoint/2"
    assert len(lines) == 7
    assert all(len(json.loads(line)["sha256"]) == 64 for line in lines[1:])


def test_an_edited_record_is_recomputed(checkpoint, uninterrupted, capsys):
    def inflate(line):
        record = json.loads(line)
        record["cells"] += 1_000_000
        return json.dumps(record, separators=(",", ":")).encode()

    edit_line(checkpoint, 3, inflate)
    status, report, err = resume(capsys, checkpoint)
    assert status == 0 and report == uninterrupted
    assert err == [f"verify: note: {checkpoint}: 1 damaged or incomplete line (3) not "
                   "trusted: their matrices are recomputed"]
    # The file was repaired: the next resume trusts every line and says nothing.
    status, report, err = resume(capsys, checkpoint)
    assert status == 0 and report == uninterrupted and err == []
    assert len(checkpoint.read_text().splitlines()) == 7


def test_undecodable_and_flipped_bytes_are_recomputed(checkpoint, uninterrupted, capsys):
    edit_line(checkpoint, 2, lambda line: b"\xff\xfe" + line)
    edit_line(checkpoint, 5, lambda line: line.replace(b'"agree"', b'"agreE"'))
    edit_line(checkpoint, 6, lambda line: line[:-3])
    status, report, err = resume(capsys, checkpoint)
    assert status == 0 and report == uninterrupted
    assert err == [f"verify: note: {checkpoint}: 3 damaged or incomplete lines (2, 5, 6) "
                   "not trusted: their matrices are recomputed"]


def test_a_record_from_another_run_is_not_trusted(tmp_path, checkpoint, uninterrupted,
                                                  capsys):
    other = tmp_path / "other.jsonl"
    status, _, _ = run(capsys, *SWEEP[:-2], "--seed", "1", "--json", "--quiet",
                       "--checkpoint", str(other))
    assert status == 0
    foreign = other.read_bytes().split(b"\n")[1]
    edit_line(checkpoint, 2, lambda line: foreign)
    status, report, err = resume(capsys, checkpoint)
    assert status == 0 and report == uninterrupted
    assert len(err) == 1 and "1 damaged or incomplete line (2)" in err[0]


@pytest.mark.parametrize("header, message", [
    (b"\xff\xfe{}", "not a verify checkpoint"),
    (b'{"format":"verify-checkpoint/1","family":{},"shard":null}',
     "a checkpoint of an earlier version, without checksums: remove it to start again"),
])
def test_a_bad_header_is_one_line(checkpoint, capsys, header, message):
    edit_line(checkpoint, 1, lambda line: header)
    status, report, err = resume(capsys, checkpoint)
    assert (status, report, err) == (2, None, [f"verify: error: {checkpoint}: {message}"])


def test_a_fifo_checkpoint_is_refused(tmp_path, capsys):
    path = tmp_path / "pipe.jsonl"
    _mkfifo(path)
    status, report, err = resume(capsys, path)
    assert (status, report, err) == (
        2, None, [f"verify: error: {path}: cannot read: is a FIFO (named pipe)"])


def test_merge_leaves_damaged_records_out(tmp_path, uninterrupted, capsys):
    parts = []
    for i in (1, 2):
        path = tmp_path / f"s{i}.jsonl"
        assert run(capsys, *SWEEP, "--shard", f"{i}/2", "--checkpoint", str(path))[0] == 0
        parts.append(str(path))
    status, out, err = run(capsys, *SWEEP, "--merge", *parts)
    assert status == 0 and json.loads(out) == uninterrupted
    edit_line(tmp_path / "s2.jsonl", 2, lambda line: line.replace(b'"cells":', b'"cells":9'))
    status, out, err = run(capsys, *SWEEP, "--merge", *parts)
    assert status == 2 and out == ""
    assert err[0] == (f"verify: note: {parts[1]}: 1 damaged or incomplete line (2) not "
                      "trusted: their matrices are missing from the merge")
    assert "finish every shard first" in err[1] and len(err) == 2
