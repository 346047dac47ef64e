"""Streamed ranking-pattern certificates (``verify-certificate-stream/1``): the same
pattern as the JSON certificate, every kind of forgery rejected, the fallbacks of the
writer, determinism across jobs, the command line, and the checker's memory bounded
independently of the number of cells."""

import json
import os
import subprocess
import sys
import tracemalloc
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import verify
import verify.certificates.stream as writer
import verify.checker.stream as checker
from verify.certificates.stream import write_ranking_certificate
from verify.certificates.writers import pattern_certificate
from verify.checker.core import CertificateError, UnknownFormat, check_certificate, main
from verify.checker.stream import check_stream_file

ROOT = Path(__file__).resolve().parents[1]

CASES = [
    (np.random.default_rng(0).integers(-5, 6, size=(6, 3)).tolist(), False),
    (np.random.default_rng(1).integers(-3, 4, size=(5, 4)).tolist(), True),
    ([[0, 0], [1, 0], [0, 1], [1, 1]], True),
    ([[0, 0], [3, 0], [0, 3], [1, 1]], True),
    ([[0], [1], [2], [5]], True),                          # collinear: classes of pairs
    ([[1, 0], [0, 1], [-1, 0], [0, -1]], False),           # parallel differences
    ([[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1]], True),  # a 3 x 2 grid
    ([[0, 0], [2, 0], [1, 1], [3, 1], [0, 3]], True),        # parallel pairs, refuted
    ([[Fraction(1, 2), 1], [Fraction(-2, 3), 0], [1, Fraction(5, 7)], [0, 0]], False),
    ([[1, 2], [1, 2], [0, 1]], False),                     # equal rows: empty
    ([[3, 4]], False),                                     # one label
]


def lines_of(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def write_lines(path, objects):
    Path(path).write_text("".join(json.dumps(o, separators=(",", ":")) + "\n"
                                  for o in objects))


def cells_of(path):
    return [obj for obj in lines_of(path) if "witness" in obj]


@pytest.mark.parametrize("W, affine", CASES)
def test_the_streamed_and_the_json_certificate_prove_the_same_pattern(tmp_path, W, affine):
    path = tmp_path / "c.jsonl"
    written = write_ranking_certificate(path, W, affine=affine)
    summary = check_stream_file(path)
    cert = pattern_certificate(W, kind="ranking", affine=affine)
    check_certificate(cert)
    cells = cells_of(path)
    assert [c["signs"] for c in cells] == cert["assertion"]["patterns"]
    assert {c["signs"] for c in cells} == set(cert["assertion"]["patterns"])
    assert [c["ranking"] for c in cells] == cert["assertion"]["rankings"]
    assert written["cells"] == cert["assertion"]["count"] == lines_of(path)[-1]["assertion"]["count"]
    assert f"{written['cells']} cell" in summary
    assert main([str(path)]) == 0
    assert verify.check_certificate(str(path)) == summary


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 6), st.integers(1, 3), st.booleans(), st.integers(0, 2 ** 32 - 1))
def test_random_matrices_agree_with_the_json_certificate(tmp_path_factory, n, d, affine,
                                                         seed):
    W = np.random.default_rng(seed).integers(-2, 3, size=(n, d)).tolist()
    path = tmp_path_factory.mktemp("c") / "c.jsonl"
    write_ranking_certificate(path, W, affine=affine)
    check_stream_file(path)
    cert = pattern_certificate(W, kind="ranking", affine=affine)
    assert [c["signs"] for c in cells_of(path)] == cert["assertion"]["patterns"]


def test_refutations_are_the_adjacent_swaps_that_are_not_cells(tmp_path):
    W = np.random.default_rng(0).integers(-5, 6, size=(7, 3)).tolist()
    path = tmp_path / "c.jsonl"
    write_ranking_certificate(path, W, affine=False)
    objects = lines_of(path)
    listed = {tuple(c["ranking"]) for c in objects if "witness" in c}
    swaps = {r[:p] + (r[p + 1], r[p]) + r[p + 2:] for r in listed for p in range(6)}
    n = 7
    pairs = list(combinations(range(n), 2))

    def signs(r):
        at = {label: p for p, label in enumerate(r)}
        return "".join("+" if at[i] < at[j] else "-" for i, j in pairs)

    refuted = [o["signs"] for o in objects if "multipliers" in o]
    assert refuted == sorted({signs(r) for r in swaps - listed})


# --- forgeries ---------------------------------------------------------------------------

@pytest.fixture
def certificate(tmp_path):
    W = np.random.default_rng(0).integers(-5, 6, size=(7, 3)).tolist()
    path = tmp_path / "c.jsonl"
    write_ranking_certificate(path, W, affine=False)
    return path, lines_of(path), W


def rejected(path, objects, match, error=CertificateError):
    write_lines(path, objects)
    with pytest.raises(error, match=match):
        check_stream_file(path)
    assert main([str(path)]) == (2 if error is UnknownFormat else 1)


def test_the_untouched_certificate_passes(certificate):
    path, objects, _ = certificate
    write_lines(path, objects)
    assert check_stream_file(path).startswith("ranking pattern, ")


def test_a_dropped_cell(certificate):
    path, objects, _ = certificate
    cells = [k for k, o in enumerate(objects) if "witness" in o]
    dropped = objects[:cells[10]] + objects[cells[10] + 1:]
    dropped[-1] = {"assertion": {"count": len(cells) - 1}}
    rejected(path, dropped, "incomplete: cell .* neither listed nor refuted")


def test_a_dropped_refutation(certificate):
    path, objects, _ = certificate
    k = next(k for k, o in enumerate(objects) if "multipliers" in o)
    rejected(path, objects[:k] + objects[k + 1:], "incomplete")


def test_a_wrong_count(certificate):
    path, objects, _ = certificate
    objects[-1]["assertion"]["count"] += 1
    rejected(path, objects, "assertion.count")


def test_a_wrong_witness(certificate):
    path, objects, _ = certificate
    objects[5]["witness"] = [str(-int(x)) for x in objects[5]["witness"]]
    rejected(path, objects, "cell 4: witness gives label")


def test_a_witness_that_is_not_an_integer(certificate):
    path, objects, _ = certificate
    objects[5]["witness"][0] = "1/2"
    rejected(path, objects, "expected an integer")


def test_a_ranking_that_does_not_match_its_signs(certificate):
    path, objects, _ = certificate
    r = objects[3]["ranking"]
    r[0], r[1] = r[1], r[0]
    rejected(path, objects, "cell 2: ranking .* has signs")


def test_a_refutation_with_a_negative_multiplier(certificate):
    path, objects, _ = certificate
    k = next(k for k, o in enumerate(objects) if "multipliers" in o)
    objects[k]["multipliers"][0][1] = "-" + objects[k]["multipliers"][0][1]
    rejected(path, objects, "has y < 0")


def test_a_refutation_whose_sum_is_not_zero(certificate):
    path, objects, _ = certificate
    k = next(k for k, o in enumerate(objects) if "multipliers" in o)
    objects[k]["multipliers"][0][1] = str(int(objects[k]["multipliers"][0][1]) + 1)
    rejected(path, objects, "not 0")


def test_an_adjacent_swap_refuted_as_if_it_were_a_3_cycle(certificate):
    """The multipliers 1, 1, 1 of a 3-cycle prove nothing for a flip that is an order."""
    path, objects, _ = certificate
    k = next(k for k, o in enumerate(objects) if "multipliers" in o)
    n = 7
    pairs = list(combinations(range(n), 2))
    row = {pair: r for r, pair in enumerate(pairs)}
    a, b, c = 0, 1, 2
    objects[k]["multipliers"] = [[row[a, b], "1"], [row[b, c], "1"], [row[a, c], "1"]]
    rejected(path, objects, "not 0")


def test_a_listed_non_cell(certificate):
    """A refuted ranking moved into the cells, with a witness of a real cell."""
    path, objects, _ = certificate
    refuted = next(o for o in objects if "multipliers" in o)
    n = 7
    pairs = list(combinations(range(n), 2))
    wins = [0] * n
    for (i, j), s in zip(pairs, refuted["signs"]):
        wins[i if s == "+" else j] += 1
    fake = {"signs": refuted["signs"], "witness": objects[1]["witness"],
            "ranking": sorted(range(n), key=lambda i: -wins[i])}
    cells = [o for o in objects[1:] if "witness" in o]
    merged = sorted(cells + [fake], key=lambda o: o["signs"])
    rest = [o for o in objects[1:] if "multipliers" in o and o is not refuted]
    at = merged.index(fake)
    rejected(path, [objects[0]] + merged + rest +
             [{"assertion": {"count": len(merged)}}], f"cell {at}: witness gives label")


def test_unsorted_and_repeated_cells_and_refutations(certificate):
    path, objects, _ = certificate
    swapped = list(objects)
    swapped[3], swapped[4] = swapped[4], swapped[3]
    rejected(path, swapped, "not after the previous cell")
    repeated = objects[:4] + [objects[3]] + objects[4:]
    rejected(path, repeated, "not after the previous cell")
    k = next(k for k, o in enumerate(objects) if "multipliers" in o)
    repeated = objects[:k + 1] + [objects[k]] + objects[k + 1:]
    rejected(path, repeated, "not after the previous refutation")
    rejected(path, objects[:k] + [objects[k + 1], objects[k]] + objects[k + 2:],
             "not after the previous refutation")


def test_lines_out_of_place(certificate):
    path, objects, _ = certificate
    k = next(k for k, o in enumerate(objects) if "multipliers" in o)
    rejected(path, objects[:k] + [objects[k], objects[1]] + objects[k + 1:],
             "a cell after the refutations")
    rejected(path, objects + [objects[1]], "nothing may follow")
    rejected(path, objects[:-1], "the last line .* is missing")
    rejected(path, objects[:1] + [{"assertion": {"count": 0}}], "needs the evidence zero_row")
    rejected(path, objects[:1] + [{"assertion": {"count": 0}, "evidence": {"zero_row": 0}}],
             "row 0 of M is not zero")


def test_a_changed_input_and_unknown_headers(certificate):
    path, objects, _ = certificate
    changed = [dict(objects[0], input={"W": objects[0]["input"]["W"][::-1],
                                       "affine": False})] + objects[1:]
    rejected(path, changed, "cell 0")
    rejected(path, [dict(objects[0], claim="sign pattern")] + objects[1:], "unknown claim",
             UnknownFormat)
    rejected(path, [dict(objects[0], extra=1)] + objects[1:], "unexpected 'extra'")
    write_lines(path, objects)
    path.write_text(path.read_text().replace("\n", "\nnot json\n", 1))
    with pytest.raises(UnknownFormat, match="line 2: not JSON"):
        check_stream_file(path)
    assert main([str(path)]) == 2


def test_an_empty_pattern_with_cells(tmp_path):
    path = tmp_path / "c.jsonl"
    write_ranking_certificate(path, [[1, 2], [1, 2], [0, 1]], affine=False)
    objects = lines_of(path)
    assert objects[-1] == {"assertion": {"count": 0}, "evidence": {"zero_row": 0}}
    rejected(path, objects[:1] + [{"signs": "+++", "witness": ["1", "0"],
                                   "ranking": [0, 1, 2]}] + objects[1:],
             "witness gives label 0 the logit 1, not above label 1")
    # a refutation that holds (the zero row alone) is still out of place here
    rejected(path, objects[:1] + [{"signs": "+++", "multipliers": [[0, "1"]]}] + objects[1:],
             "the pattern is empty, but 0 cells and 1 refutations are listed")


# --- the writer --------------------------------------------------------------------------

@pytest.mark.parametrize("W, affine", CASES[:4])
def test_the_fallbacks_give_valid_certificates_of_the_same_pattern(tmp_path, monkeypatch,
                                                                   W, affine):
    first = tmp_path / "a.jsonl"
    write_ranking_certificate(first, W, affine=affine)
    monkeypatch.setattr(writer, "_batch_multipliers", lambda V, rankings: None)
    second = tmp_path / "b.jsonl"
    write_ranking_certificate(second, W, affine=affine)
    monkeypatch.setattr(writer, "_chain_multipliers", lambda V, ranking: None)
    third = tmp_path / "c.jsonl"
    write_ranking_certificate(third, W, affine=affine)
    summaries = {check_stream_file(p) for p in (first, second, third)}
    assert len(summaries) == 1
    assert ([o.get("signs") for o in lines_of(first)] == [o.get("signs") for o in lines_of(second)]
            == [o.get("signs") for o in lines_of(third)])


def test_an_incomplete_enumeration_is_caught_by_the_writer(tmp_path, monkeypatch):
    """If the engine dropped a cell, its orthant is not empty and no multipliers exist."""
    from verify.arrangement import stream as engine

    W = np.random.default_rng(0).integers(-5, 6, size=(5, 2)).tolist()
    blocks = engine.sign_pattern_blocks

    def dropping(*args, **options):
        for k, (signs, Z) in enumerate(blocks(*args, **options)):
            yield (signs[1:], Z[1:]) if k == 0 else (signs, Z)
    monkeypatch.setattr(writer, "sign_pattern_blocks", dropping)
    with pytest.raises(AssertionError, match="not empty"):
        write_ranking_certificate(tmp_path / "c.jsonl", W, affine=False)
    assert not (tmp_path / "c.jsonl").exists()


def test_small_runs_and_several_workers_give_the_same_bytes(tmp_path, monkeypatch):
    W = np.random.default_rng(5).integers(-5, 6, size=(7, 4)).tolist()
    write_ranking_certificate(tmp_path / "a.jsonl", W, affine=False)
    monkeypatch.setattr(writer, "RUN", 100)
    monkeypatch.setattr(writer, "BATCH", 37)
    monkeypatch.setattr(writer, "CHUNK", 3)
    write_ranking_certificate(tmp_path / "b.jsonl", W, affine=False, jobs=2)
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_the_command_line(tmp_path):
    W = np.random.default_rng(0).integers(-5, 6, size=(6, 3)).tolist()
    matrix = tmp_path / "W.json"
    matrix.write_text(json.dumps(W))
    env = dict(os.environ, PYTHONPATH=str(ROOT))

    def run(*args):
        return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True,
                              env=env, text=True)
    target = tmp_path / "c.cert.jsonl"
    done = run("pattern", "--kind", "ranking", "--matrix", str(matrix), "--count-only",
               "--certificate", str(target), "--certificate-format", "jsonl", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    assert "certificate written" in done.stderr
    checked = run("check", str(target))
    assert checked.returncode == 0 and "complete (streamed;" in checked.stdout
    for bad in (["--kind", "sign", "--certificate", str(tmp_path / "s"),
                 "--certificate-format", "jsonl"],
                ["--kind", "ranking", "--certificate-format", "jsonl"]):
        refused = run("pattern", "--matrix", str(matrix), *bad)
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    # the JSON certificate is unchanged by the new option
    assert run("pattern", "--kind", "ranking", "--matrix", str(matrix), "--certificate",
               str(tmp_path / "j.json")).returncode == 0
    assert json.loads((tmp_path / "j.json").read_text()) == \
        pattern_certificate(W, kind="ranking", affine=False)


# --- memory ------------------------------------------------------------------------------

def peak_of_check(path) -> int:
    tracemalloc.start()
    try:
        check_stream_file(path)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_checker_memory_does_not_grow_with_the_number_of_cells(tmp_path, monkeypatch):
    """With runs of at most 256 flips, the peak of Python allocations while checking a
    certificate of 120 cells and one of 1,512 cells stays under 1.5 MB for both
    (the lines themselves, the parsed input, one run, one chunk per run)."""
    monkeypatch.setattr(checker, "RUN", 256)
    monkeypatch.setattr(checker, "FAN_IN", 4)
    monkeypatch.setattr(checker, "CHUNK", 64)
    peaks, counts = [], []
    for n in (5, 7):
        W = np.random.default_rng(3).integers(-5, 6, size=(n, 4)).tolist()
        path = tmp_path / f"c{n}.jsonl"
        counts.append(write_ranking_certificate(path, W, affine=False)["cells"])
        peaks.append(peak_of_check(path))
    assert counts[1] > 10 * counts[0]
    assert max(peaks) < 1_500_000, peaks
    assert peaks[1] < 1.5 * peaks[0], peaks


@pytest.mark.parametrize("W, affine", [
    ([[0, 0], [3, 0], [0, 3], [1, 1]], True),
    ([[0, 0], [2, 0], [1, 1], [3, 1], [0, 3]], True),                 # 2 of 14 flips
    ([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [2, 1, 1]], False)])  # 8 of 72
def test_every_dropped_refutation_is_missed(tmp_path, W, affine):
    """Each refutation is needed (the writer writes no more than the flips ask for), so
    dropping any one leaves a flip neither listed nor refuted. In the last two
    configurations some refuted rankings are flips only at classes of several parallel
    pairs (not swaps of two neighbours): the counts in the comments."""
    path = tmp_path / "c.jsonl"
    write_ranking_certificate(path, W, affine=affine)
    objects = lines_of(path)
    refutations = [k for k, o in enumerate(objects) if "multipliers" in o]
    assert refutations
    for k in refutations:
        rejected(path, objects[:k] + objects[k + 1:], "incomplete")


def test_the_multiplier_finders_propose_nothing_for_cells(tmp_path):
    """For rankings that are cells no multipliers exist: the batch simplex and the
    per-ranking kernel must give none (their exact checks reject the floating-point
    proposals), and for the refuted rankings what they give must be exact."""
    W = np.random.default_rng(0).integers(-5, 6, size=(6, 3)).tolist()
    path = tmp_path / "c.jsonl"
    write_ranking_certificate(path, W, affine=False)
    objects = lines_of(path)
    cells = np.array([o["ranking"] for o in objects if "witness" in o])
    assert not writer._batch_multipliers(W, cells).any()
    assert all(writer._chain_multipliers(W, r) is None for r in cells.tolist())
    n = len(W)
    pairs = list(combinations(range(n), 2))
    refuted = []
    for o in objects:
        if "multipliers" in o:
            wins = [0] * n
            for (i, j), s in zip(pairs, o["signs"]):
                wins[i if s == "+" else j] += 1
            refuted.append(sorted(range(n), key=lambda i: -wins[i]))
    found = writer._batch_multipliers(W, np.array(refuted))
    V = np.array(W)
    for ranking, y in zip(refuted, found):
        chain = V[ranking[:-1]] - V[ranking[1:]]
        assert (y >= 0).all() and y.any() and not (y @ chain).any()
        exact = writer._chain_multipliers(W, ranking)
        assert exact is not None and min(exact) >= 0 and not (np.array(exact) @ chain).any()


# --- one enumeration for the certificate and the output ---------------------------------

@pytest.mark.parametrize("W, affine", [CASES[0], CASES[1], CASES[7], CASES[9], CASES[10]])
@pytest.mark.parametrize("output", [["--count-only", "--json"], ["--json"], [],
                                    ["--format", "jsonl"], ["--format", "npz"]])
def test_the_certificate_and_the_output_come_from_one_enumeration(
        tmp_path, monkeypatch, capsysbinary, W, affine, output):
    import verify.arrangement.stream as engine
    from verify.cli import main as cli

    matrix = tmp_path / "W.json"
    matrix.write_text(json.dumps([[str(a) for a in row] for row in W]))
    base = ["pattern", "--kind", "ranking", "--matrix", str(matrix)]
    base += ["--affine"] if affine else []
    if "npz" in output:
        output = output + ["--output", str(tmp_path / "p.npz")]
    assert cli(base + output) == 0
    alone = capsysbinary.readouterr().out
    alone_npz = (tmp_path / "p.npz").read_bytes() if "npz" in output else None
    write_ranking_certificate(tmp_path / "alone.jsonl", W, affine=affine)

    calls = []
    original = engine.sign_pattern_blocks

    def counted(*args, **kwargs):
        calls.append(kwargs.get("witnesses", True))
        yield from original(*args, **kwargs)
    monkeypatch.setattr(engine, "sign_pattern_blocks", counted)
    monkeypatch.setattr(writer, "sign_pattern_blocks", counted)
    assert cli(base + output + ["--certificate", str(tmp_path / "c.jsonl"),
                                "--certificate-format", "jsonl"]) == 0
    captured = capsysbinary.readouterr()
    assert captured.out == alone
    assert b"certificate written" in captured.err
    if alone_npz is not None:
        assert (tmp_path / "p.npz").read_bytes() == alone_npz
    assert (tmp_path / "c.jsonl").read_bytes() == (tmp_path / "alone.jsonl").read_bytes()
    trivial = len(W) == 1 or len({tuple(row) for row in W}) < len(W)
    assert len(calls) == (0 if trivial else 1)


def test_a_certificate_whose_cells_were_not_all_seen_is_not_written(tmp_path):
    W = CASES[0][0]
    target = tmp_path / "c.jsonl"
    with pytest.raises(AssertionError, match="every cell"):
        with writer.ranking_certificate(target, W, affine=False) as certificate:
            tapped = certificate.tap(writer.sign_pattern_blocks(certificate.M))
            next(tapped)
    assert not target.exists()
