"""The streamed-certificate checker (:mod:`verify.checker.stream`) piece by piece.

Written so that a change to any check, bound or message of the checker fails a test
(mutation testing, ``docs/testing.md``): the external sort against ``sorted`` with the
number of runs open at once counted; the number and sign-vector helpers against their
definitions; every message named with its place; the summary's words.
"""

from __future__ import annotations

import json
import random
import sys
from itertools import combinations, permutations, product
from pathlib import Path

import pytest

import verify.checker.stream as stream
from verify.certificates.stream import write_ranking_certificate
from verify.checker.core import CertificateError, UnknownFormat
from verify.checker.stream import FORMAT, INTEGERS, check_stream_file


# --- the external sort -------------------------------------------------------------------

@pytest.fixture
def open_runs(monkeypatch):
    """Counts the run files being read at once (``stream._records`` generators alive)."""
    count = {"now": 0, "peak": 0, "opened": 0}
    records = stream._records

    def counted(path, width):
        count["now"] += 1
        count["opened"] += 1
        count["peak"] = max(count["peak"], count["now"])
        try:
            yield from records(path, width)
        finally:
            count["now"] -= 1

    monkeypatch.setattr(stream, "_records", counted)
    return count


@pytest.mark.parametrize("fan_in, run, size", [
    (2, 1, 15), (2, 1, 16), (2, 3, 100), (3, 1, 26), (3, 2, 200), (4, 5, 1000), (5, 1, 400)])
def test_the_external_sort_sorts_with_at_most_fan_in_runs_open(tmp_path, monkeypatch,
                                                               open_runs, fan_in, run, size):
    """With runs of ``run`` values, ``FAN_IN`` bounds the runs read at once both while
    adding (a full level is merged) and in the final merge, where the levels together
    can hold far more than ``FAN_IN`` runs (``(FAN_IN - 1)`` per level)."""
    monkeypatch.setattr(stream, "RUN", run)
    monkeypatch.setattr(stream, "FAN_IN", fan_in)
    monkeypatch.setattr(stream, "CHUNK", 2)
    rng = random.Random(size * fan_in + run)
    values = [rng.randrange(1 << 20) for _ in range(size)]
    sorter = stream._ExternalSort(str(tmp_path), 3)
    for v in values:
        sorter.add(v)
    runs = sum(len(level) for level in sorter.levels) + bool(sorter.buffer)
    assert list(sorter) == sorted(values)
    assert open_runs["now"] == 0
    assert open_runs["peak"] <= fan_in, open_runs
    assert open_runs["opened"] >= size // run  # the runs were on disk, not in memory
    # merged runs are removed: what is left are the runs of the last merge, which uses
    # all FAN_IN places when there are that many runs (no pass merges more than needed)
    assert len(list(tmp_path.iterdir())) == min(fan_in, runs)


def test_the_external_sort_of_nothing_and_of_one_run(tmp_path, open_runs):
    assert list(stream._ExternalSort(str(tmp_path), 2)) == []
    sorter = stream._ExternalSort(str(tmp_path), 2)
    for v in (5, 1, 65535, 0, 5):
        sorter.add(v)
    assert list(sorter) == [0, 1, 5, 5, 65535]
    assert open_runs["peak"] == 1


def test_the_sort_writes_its_runs_only_in_its_directory(tmp_path, monkeypatch):
    """The runs go to the directory given (the checker's temporary directory, removed
    afterwards), not to the working directory."""
    spool, elsewhere = tmp_path / "spool", tmp_path / "cwd"
    spool.mkdir()
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setattr(stream, "RUN", 2)
    monkeypatch.setattr(stream, "FAN_IN", 2)
    sorter = stream._ExternalSort(str(spool), 2)
    for v in range(40, 0, -1):
        sorter.add(v)
    assert len(list(spool.iterdir())) >= 2
    assert list(sorter) == list(range(1, 41))
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("run", [1, 2, 3, 7])
def test_memory_holds_fewer_than_run_values(tmp_path, monkeypatch, run):
    """The buffers of the sort and of the sorted files never reach ``RUN`` values, and no
    level of the sort reaches ``FAN_IN`` runs; what is read back is what was added."""
    monkeypatch.setattr(stream, "RUN", run)
    monkeypatch.setattr(stream, "FAN_IN", 3)
    monkeypatch.setattr(stream, "CHUNK", 1)
    rng = random.Random(run)
    values = [rng.randrange(1 << 24) for _ in range(50)]
    sorter = stream._ExternalSort(str(tmp_path), 4)
    kept = stream._SortedFile(str(tmp_path / "kept"), 4)
    for v in values:
        sorter.add(v)
        assert len(sorter.buffer) < run
        assert all(len(level) < 3 for level in sorter.levels)
    for v in sorted(values):
        kept.append(v)
        assert len(kept.buffer) < run
    kept.close()
    assert (tmp_path / "kept").stat().st_size == 4 * len(values)
    assert list(kept) == sorted(values) == list(sorter)


@pytest.mark.parametrize("width, chunk", [(1, 1), (3, 1), (3, 2), (5, 1000)])
def test_records_are_read_back_big_endian_in_chunks(tmp_path, monkeypatch, width, chunk):
    monkeypatch.setattr(stream, "CHUNK", chunk)
    values = [0, 1, 255, (1 << 8 * width) - 1, 7 << 8 * (width - 1)] * 3 + [256] * (width > 1)
    (tmp_path / "r").write_bytes(b"".join(v.to_bytes(width, "big") for v in values))
    assert list(stream._records(str(tmp_path / "r"), width)) == values


# --- numbers and sign vectors --------------------------------------------------------------

def test_integers_are_read_exactly_and_named_when_wrong():
    """Against ``int`` with Python's limit on digits lifted: up to 9,000 digits, around
    the checker's switch to its own conversion at 4,000 and ``int``'s limit at 4,300."""
    texts = ("0", "-0", "7", "-7", "1234567890123456789012345", "-" + "9" * 3999,
             "4" * 4000, "-" + "3" * 4001, "5" * 4300, "5" * 4301, "-" + "6" * 9000)
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        expected = [int(text) for text in texts]
    finally:
        sys.set_int_max_str_digits(limit)
    assert [INTEGERS.parse(text, "x") for text in texts] == expected
    for value in (3, -3, 1.5, None, True, ["1"], "1.5", "+3", "", "-", "--3", "3 ", " 3",
                  "3x", "x3", "1/2", "0x10", "1e3", "٣"):
        with pytest.raises(CertificateError) as info:
            INTEGERS.parse(value, "cell 2: witness[1]")
        assert str(info.value) == ('cell 2: witness[1]: expected an integer written as a '
                                   f'string such as "-3", got {json.dumps(value)}')
    for x, s in ((5, 1), (-5, -1), (0, 0), (10 ** 50, 1), (-(10 ** 50), -1)):
        assert INTEGERS.sign(x) == s


def header(W, affine=False):
    return {"format": FORMAT, "claim": "ranking pattern",
            "input": {"W": [[str(a) for a in row] for row in W], "affine": affine}}


def brute_force_is_order(n, signs):
    pairs = list(combinations(range(n), 2))
    for order in permutations(range(n)):
        position = {label: p for p, label in enumerate(order)}
        if "".join("+" if position[i] < position[j] else "-" for i, j in pairs) == signs:
            return True
    return False


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_sign_vectors_as_integers(n):
    """``key`` and ``signs_of`` are inverse, keep the ASCII order, and ``is_order`` is
    'some ranking has these signs'; the width is the fewest bytes holding ``N`` bits."""
    I = stream._Input(header([[i, i * i] for i in range(n)]))
    N = n * (n - 1) // 2
    assert (I.n, I.N, I.k) == (n, N, 2)
    assert I.width == max(1, -(-N // 8))
    strings = sorted("".join(bits) for bits in product("+-", repeat=N))
    keys = [I.key(s) for s in strings]
    assert keys == list(range(2 ** N))  # ASCII order is the order of the integers
    assert [I.signs_of(key) for key in keys] == strings
    assert [I.is_order(key) for key in keys] == [brute_force_is_order(n, s)
                                                for s in strings]


def test_widths_of_larger_inputs():
    for n, N, width in ((4, 6, 1), (5, 10, 2), (17, 136, 17), (18, 153, 20)):
        I = stream._Input(header([[i, 1] for i in range(n)]))
        assert (I.N, I.width) == (N, width)
        assert I.signs_of(I.key("-" * N)) == "-" * N
        assert I.signs_of(1) == "+" * (N - 1) + "-"


def test_the_input_is_scaled_to_integers_and_made_affine():
    I = stream._Input({"format": FORMAT, "claim": "ranking pattern",
                       "input": {"W": [["1/2", "1"], ["-2/3", "0"], ["1", "5/7"]],
                                 "affine": False}})
    assert I.V == [[21, 42], [-28, 0], [42, 30]]  # times lcm(2, 3, 7) = 42
    assert I.M == [[49, 42], [-21, 12], [-70, -30]]
    I = stream._Input(header([[2, 0], [0, 4]], affine=True))
    assert I.V == [[1, 2, 0], [1, 0, 4]] and I.M == [[0, 2, -4]] and I.k == 3
    assert I.pair_row == {(0, 1): 0, (1, 0): 0}
    for W in ([[1, 0], [0, 1], [-1, 0], [0, -1]], [[0, 0], [2, 0], [1, 1], [3, 1], [0, 3]]):
        I = stream._Input(header(W))
        for r, s in combinations(range(I.N), 2):  # one class iff proportional rows
            (a, b), (c, d) = I.M[r], I.M[s]
            assert (I.class_of[r] == I.class_of[s]) is (a * d - b * c == 0)
        for c, rows in enumerate(I.classes):
            assert all(I.class_of[r] == c for r in rows)
            assert I.masks[c] == sum(1 << I.N - 1 - r for r in rows)
            flipped = I.signs_of(I.masks[c])  # the mask flips exactly the class's rows
            assert [r for r in range(I.N) if flipped[r] == "-"] == sorted(rows)


def test_sign_strings_are_named_when_malformed():
    I = stream._Input(header([[0], [1], [2]]))
    assert I.sign_string("+-+", "x") == "+-+"
    for value in ("+-", "+-+-", "+0+", "+ +", "+X+", "XXX", "-x-", 3, None,
                  ["+", "-", "+"], "---+"[:2]):
        with pytest.raises(CertificateError) as info:
            I.sign_string(value, "refutation 0: signs")
        assert str(info.value) == ("refutation 0: signs: expected a string of 3 '+'/'-', "
                                   f"got {json.dumps(value)}")


def test_headers_that_are_not_this_claim_or_input():
    good = header([[0], [1]])
    for change, error, text in (
            ({"format": "verify-certificate-stream/2"}, UnknownFormat,
             "line 1: unknown format \"verify-certificate-stream/2\""),
            ({"claim": "sign pattern"}, UnknownFormat,
             "line 1: unknown claim \"sign pattern\" for verify-certificate-stream/1 "
             "(known: 'ranking pattern')"),
            ({"input": {"W": [["0"], ["1"]], "affine": 1}}, CertificateError,
             "input.affine: expected true or false, got 1"),
            ({"input": {"W": [["0"], ["1"]]}}, CertificateError,
             "input: missing 'affine'"),
            ({"extra": 1}, CertificateError, "line 1: unexpected 'extra'")):
        with pytest.raises(error) as info:
            stream._Input({**good, **change})
        assert str(info.value) == text


# --- the cells ---------------------------------------------------------------------------

def reference_flips(I, ranking):
    """The flips of ``ranking`` at the classes of its adjacent pairs that are orders,
    by definition: every row of the class changes sign, then 'some ranking has these
    signs' by brute force."""
    position = {label: p for p, label in enumerate(ranking)}
    signs = ["+" if position[i] < position[j] else "-" for i, j in I.pairs]
    flips = []
    for p in range(len(ranking) - 1):
        c = I.class_of[I.pair_row[ranking[p], ranking[p + 1]]]
        flipped = "".join(("-" if s == "+" else "+") if r in I.classes[c] else s
                          for r, s in enumerate(signs))
        if brute_force_is_order(I.n, flipped) and I.key(flipped) not in flips:
            flips.append(I.key(flipped))
    return "".join(signs), flips


@pytest.mark.parametrize("W, affine", [
    ([[0, 0], [3, 0], [0, 3], [1, 1]], True),
    ([[0, 0], [2, 0], [1, 1], [3, 1], [0, 3]], True),
    ([[1, 0], [0, 1], [-1, 0], [0, -1]], False),
    ([[0], [1], [2], [5]], True),
    ([[3, 4]], False)])
def test_each_cell_asks_for_the_flips_that_are_orders(tmp_path, W, affine):
    path = tmp_path / "c.jsonl"
    write_ranking_certificate(path, W, affine=affine)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    I = stream._Input(lines[0])
    cells = [o for o in lines if "witness" in o]
    for c, cell in enumerate(cells):
        signs, flips = reference_flips(I, cell["ranking"])
        key, lookups = stream._check_cell(cell, c, I)
        assert (I.signs_of(key), sorted(lookups)) == (signs, sorted(flips))


def cell_error(I, cell, c=3):
    with pytest.raises(CertificateError) as info:
        stream._check_cell(cell, c, I)
    return str(info.value)


def test_cells_are_named_when_wrong():
    I = stream._Input(header([[0, 0], [3, 0], [0, 3], [1, 1]], affine=True))
    good = {"signs": "+++++-", "witness": ["0", "-1", "-3"], "ranking": [0, 1, 3, 2]}
    assert stream._check_cell(good, 0, I)[0] == I.key("+++++-")
    assert cell_error(I, {**good, "ranking": [0, 1, 1, 2]}) == \
        "cell 3: ranking is not an ordering of the labels 0..3"
    assert cell_error(I, {**good, "ranking": [0, 1, 3]}) == \
        "cell 3: ranking: expected 4 entries, got 3"
    assert cell_error(I, {**good, "ranking": [0, 1, 4, 2]}) == \
        "cell 3: ranking: expected an integer from 0 to 3, got 4"
    assert cell_error(I, {**good, "ranking": [0, 3, 1, 2]}) == \
        "cell 3: ranking 0 > 3 > 1 > 2 has signs ++++--, listed +++++-"
    assert cell_error(I, {**good, "signs": "+++++"}) == \
        "cell 3: signs: expected a string of 6 '+'/'-', got \"+++++\""
    assert cell_error(I, {**good, "witness": ["0", "-1"]}) == \
        "cell 3: witness: expected 3 entries, got 2"
    assert cell_error(I, {**good, "witness": ["0", "-1", 3]}) == \
        'cell 3: witness[2]: expected an integer written as a string such as "-3", got 3'
    # logits of z = (0, -1, -1): labels 0..3 get 0, -3, -3, -2
    assert cell_error(I, {**good, "witness": ["0", "-1", "-1"]}) == \
        ("cell 3: witness gives label 1 the logit -3, not above label 3's -2 "
         "(scaled to integers)")
    # z = (0, 0, 0): a tie of labels 0 and 1 is not 'above'
    assert cell_error(I, {**good, "witness": ["0", "0", "0"]}) == \
        "cell 3: witness gives label 0 the logit 0, not above label 1's 0 (scaled to integers)"
    assert cell_error(I, {**good, "extra": 1}) == "cell 3: unexpected 'extra'"
    # logits 0, z_0, z_1: z = (-1, -1) orders every adjacent pair but the last one
    plane = stream._Input(header([[0, 0], [1, 0], [0, 1]]))
    assert cell_error(plane, {"signs": "+++", "witness": ["-1", "-1"],
                              "ranking": [0, 1, 2]}) == \
        "cell 3: witness gives label 1 the logit -1, not above label 2's -1 (scaled to integers)"
    # a witness that orders the labels strictly, but differently: the first adjacent pair
    # in the wrong order is named
    assert cell_error(I, {**good, "witness": ["0", "-3", "-1"]}).startswith(
        "cell 3: witness gives label ")


# --- whole files -------------------------------------------------------------------------

def write(path, objects):
    Path(path).write_text("".join(json.dumps(o, separators=(",", ":")) + "\n"
                                  for o in objects))
    return path


def check(path, objects):
    return check_stream_file(write(path, objects))


def error(path, objects, kind=CertificateError):
    write(path, objects)
    with pytest.raises(kind) as info:
        check_stream_file(path)
    assert type(info.value) is kind
    return str(info.value)


COLLINEAR = header([[0], [1], [2]], affine=True)  # M rows (0,-1), (0,-2), (0,-1)
UP = {"signs": "+++", "witness": ["0", "-1"], "ranking": [0, 1, 2]}
DOWN = {"signs": "---", "witness": ["0", "1"], "ranking": [2, 1, 0]}
# +-+ is not a cell: 2 (v0 - v1) - (v0 - v2) = 0
NOT_A_CELL = {"signs": "+-+", "multipliers": [[0, "2"], [1, "1"]]}


def test_the_summary_counts_cells_and_refutations(tmp_path):
    p = tmp_path / "c.jsonl"
    assert check(p, [COLLINEAR, UP, DOWN, {"assertion": {"count": 2}}]) == \
        "ranking pattern, 2 cells, complete (streamed; 0 refutations)"
    assert check(p, [COLLINEAR, UP, DOWN, NOT_A_CELL, {"assertion": {"count": 2}}]) == \
        "ranking pattern, 2 cells, complete (streamed; 1 refutation)"
    refuted_too = {"signs": "-+-", "multipliers": [[0, "2"], [1, "1"]]}
    assert check(p, [COLLINEAR, UP, DOWN, NOT_A_CELL, refuted_too,
                     {"assertion": {"count": 2}}]) == \
        "ranking pattern, 2 cells, complete (streamed; 2 refutations)"
    one = header([[3, 4]])
    assert check(p, [one, {"signs": "", "witness": ["0", "0"], "ranking": [0]},
                     {"assertion": {"count": 1}}]) == \
        "ranking pattern, 1 cell, complete (streamed; 0 refutations)"
    equal = header([[1, 2], [0, 1], [1, 2]])
    assert check(p, [equal, {"assertion": {"count": 0}, "evidence": {"zero_row": 1}}]) == \
        "ranking pattern, 0 cells, empty: labels 0 and 2 have equal rows"


def test_the_first_refutation_may_come_before_the_last_cell(tmp_path):
    """Cells and refutations are each sorted; a refutation's sign vector is compared
    with the previous refutation's only, and the all-'+' cell (key 0) may come first."""
    p = tmp_path / "c.jsonl"
    early = {"signs": "+-+", "multipliers": [[0, "2"], [1, "1"]]}
    assert I_key("+-+") < I_key("---")
    assert check(p, [COLLINEAR, UP, DOWN, early, {"assertion": {"count": 2}}]).endswith(
        "(streamed; 1 refutation)")


def I_key(signs):
    return int(signs.translate(str.maketrans("+-", "01")), 2)


def test_files_out_of_order_or_shape_are_named_by_line(tmp_path):
    p = tmp_path / "c.jsonl"
    end = {"assertion": {"count": 2}}
    assert error(p, [COLLINEAR, UP, DOWN, end, end]) == \
        "line 5: nothing may follow the line with the assertion"
    assert error(p, [COLLINEAR, UP, DOWN, end, UP]) == \
        "line 5: nothing may follow the line with the assertion"
    assert error(p, [COLLINEAR, UP, [1], DOWN, end]) == "line 3: expected an object, got [1]"
    assert error(p, [COLLINEAR, UP, NOT_A_CELL, DOWN, end]) == \
        "line 4: a cell after the refutations (cells come first)"
    assert error(p, [COLLINEAR, DOWN, UP, end]) == \
        ("line 3: cell 1 (+++) is not after the previous cell in ASCII order (the cells "
         "must be sorted, without repeats)")
    assert error(p, [COLLINEAR, UP, UP, DOWN, end]) == \
        ("line 3: cell 1 (+++) is not after the previous cell in ASCII order (the cells "
         "must be sorted, without repeats)")
    second = {"signs": "-+-", "multipliers": [[0, "2"], [1, "1"]]}
    assert error(p, [COLLINEAR, UP, DOWN, second, NOT_A_CELL, end]) == \
        ("line 5: refutation 1 (+-+) is not after the previous refutation in ASCII order "
         "(sorted, without repeats)")
    assert error(p, [COLLINEAR, UP, DOWN, NOT_A_CELL, NOT_A_CELL, end]) == \
        ("line 5: refutation 1 (+-+) is not after the previous refutation in ASCII order "
         "(sorted, without repeats)")
    assert error(p, [COLLINEAR, UP, DOWN]) == "the last line (the assertion) is missing"
    assert error(p, [COLLINEAR, UP, DOWN, {**NOT_A_CELL, "x": 1}, end]) == \
        "line 4: refutation 0: unexpected 'x'"
    assert error(p, [COLLINEAR, UP, DOWN, {**NOT_A_CELL, "signs": "+-"}, end]) == \
        "line 4: refutation 0: signs: expected a string of 3 '+'/'-', got \"+-\""
    assert error(p, [COLLINEAR, UP, DOWN, {**NOT_A_CELL, "multipliers": [[0, "1"],
                                                                         [1, "1"]]}, end]) \
        == "line 4: refutation 0 (+-+): sum_r y_r s_r M_r = (0, 1), not 0"
    assert error(p, [COLLINEAR, UP, DOWN, {**NOT_A_CELL, "multipliers": [[0, "-2"],
                                                                         [1, "-1"]]}, end]) \
        == "line 4: refutation 0 (+-+): multipliers[0]: row 0 has y < 0"
    assert error(p, [COLLINEAR, UP, DOWN, {**NOT_A_CELL, "multipliers": [[0, "0"],
                                                                         [1, "0"]]}, end]) \
        == "line 4: refutation 0 (+-+): every multiplier is zero"
    assert error(p, [COLLINEAR, UP, DOWN, {**NOT_A_CELL, "multipliers": [[0, 2], [1, "1"]]},
                     end]) == ('line 4: refutation 0 (+-+): multipliers[0] value: expected '
                               'an integer written as a string such as "-3", got 2')
    assert error(p, [COLLINEAR, {**UP, "witness": ["0", "1"]}, DOWN, end]) == \
        "cell 0: witness gives label 0 the logit 0, not above label 1's 1 (scaled to integers)"


def test_headers_and_lines_that_are_not_json(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_text("")
    with pytest.raises(UnknownFormat) as info:
        check_stream_file(p)
    assert str(info.value) == "line 1: not a verify-certificate-stream/1 header"
    for first in ([1], {"format": "verify-certificate/1"}, "x"):
        assert error(p, [first], UnknownFormat) == \
            "line 1: not a verify-certificate-stream/1 header"
    p.write_text(json.dumps(COLLINEAR) + "\n" + json.dumps(UP) + "\n{oops\n")
    with pytest.raises(UnknownFormat) as info:
        check_stream_file(p)
    assert str(info.value) == ("line 3: not JSON: Expecting property name enclosed in "
                               "double quotes: line 1 column 2 (char 1)")
    p.write_text(json.dumps(COLLINEAR) + "\n" + "[" * 100000 + "\n")
    with pytest.raises(UnknownFormat) as info:
        check_stream_file(p)
    assert str(info.value).startswith("line 2: not JSON: maximum recursion depth exceeded")
    assert "\n" not in str(info.value)


def test_the_assertion_and_the_evidence_of_an_empty_pattern(tmp_path):
    p = tmp_path / "c.jsonl"
    equal = header([[1, 2], [0, 1], [1, 2]])  # rows of M: v0-v1, v0-v2 = 0, v1-v2
    for count in (1, "2", True, 2.0, None):
        assert error(p, [COLLINEAR, UP, DOWN, {"assertion": {"count": count}}]) == \
            f"assertion.count: {json.dumps(count)} is not the number of cells (2)"
    assert error(p, [COLLINEAR, UP, DOWN, {"assertion": {"count": 2}, "x": 0}]) == \
        "last line: unexpected 'x'"
    assert error(p, [COLLINEAR, UP, DOWN, {"assertion": {"count": 2, "n": 1}}]) == \
        "assertion: unexpected 'n'"
    assert error(p, [equal, {"assertion": {"count": 0}}]) == \
        "an empty pattern needs the evidence zero_row"
    assert error(p, [equal, {"assertion": {"count": 0}, "evidence": {"zero_row": 0}}]) == \
        "evidence.zero_row: row 0 of M is not zero"
    assert error(p, [equal, {"assertion": {"count": 0}, "evidence": {"zero_row": 3}}]) == \
        "evidence.zero_row: expected an integer from 0 to 2, got 3"
    assert error(p, [equal, {"assertion": {"count": 0}, "evidence": {"zero_row": 1,
                                                                     "y": 2}}]) == \
        "evidence: unexpected 'y'"
    assert error(p, [equal, {"assertion": {"count": 0}, "evidence": {}, "x": 1}]) == \
        "last line: unexpected 'x'"
    refuted = {"signs": "+++", "multipliers": [[1, "1"]]}  # row 1 is zero
    assert error(p, [equal, refuted, {"assertion": {"count": 0},
                                      "evidence": {"zero_row": 1}}]) == \
        "row 1 of M is zero, so the pattern is empty, but 0 cells and 1 refutations are listed"
    assert error(p, [COLLINEAR, UP, DOWN, {"assertion": {"count": 2},
                                           "evidence": {"zero_row": 0}}]) == \
        "evidence.zero_row: row 0 of M is not zero"


def test_a_missing_flip_names_the_cell_and_the_flip(tmp_path):
    """The grid ``[[0,0],[3,0],[0,3],[1,1]]`` (affine): drop each cell and each refutation
    alone; the message names a listed cell whose adjacent flip is the dropped vector."""
    path = tmp_path / "c.jsonl"
    write_ranking_certificate(path, [[0, 0], [3, 0], [0, 3], [1, 1]], affine=True)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    I = stream._Input(lines[0])
    cells = [o for o in lines if "witness" in o]
    dropped_some = 0
    for drop in range(1, len(lines) - 1):
        objects = lines[:drop] + lines[drop + 1:]
        count = sum("witness" in o for o in objects)
        objects[-1] = {"assertion": {"count": count}}
        kept = [o for o in objects if "witness" in o]
        listed = {o["signs"] for o in objects[1:-1]}
        expected = sorted((flip, c) for c, cell in enumerate(kept)
                          for flip in reference_flips(I, cell["ranking"])[1]
                          if I.signs_of(flip) not in listed)
        if not expected:
            assert check(path, objects).startswith(f"ranking pattern, {count} cells")
            continue
        flip, c = expected[0]
        assert error(path, objects) == (f"incomplete: cell {c} flipped at an adjacent pair "
                                        f"gives {I.signs_of(flip)}, which is neither listed "
                                        "nor refuted")
        dropped_some += 1
    assert dropped_some >= len(cells)


def test_more_cells_than_the_record_can_number(tmp_path, monkeypatch):
    monkeypatch.setattr(stream, "_CELL_BITS", 0)
    p = tmp_path / "c.jsonl"
    assert error(p, [COLLINEAR, UP, DOWN, {"assertion": {"count": 2}}]) == \
        "line 3: more than 2^0 cells"
    monkeypatch.setattr(stream, "_CELL_BITS", 1)
    assert check(p, [COLLINEAR, UP, DOWN, {"assertion": {"count": 2}}]).startswith(
        "ranking pattern, 2 cells")


def test_a_large_certificate_with_tiny_runs(tmp_path, monkeypatch, open_runs):
    """Every part of the sort on disk at once: runs of 3 flips, 2 merged at a time,
    records read 1 at a time; the verdict is that of the default sizes."""
    path = tmp_path / "c.jsonl"
    W = [[0, 0], [2, 0], [1, 1], [3, 1], [0, 3]]
    write_ranking_certificate(path, W, affine=True)
    expected = check_stream_file(path)
    lines = path.read_text().splitlines()
    monkeypatch.setattr(stream, "RUN", 3)
    monkeypatch.setattr(stream, "FAN_IN", 2)
    monkeypatch.setattr(stream, "CHUNK", 1)
    assert check_stream_file(path) == expected
    # the runs of the flips, and the sorted cells and refutations merged beside them
    assert open_runs["peak"] <= 2 + 2 and open_runs["opened"] > 10
    # a dropped refutation is still found
    path.write_text("\n".join(lines[:1] + [line for line in lines[1:] if '"multipliers"'
                                           not in line][:-1] +
                              [json.dumps({"assertion": {"count": 16}})]) + "\n")
    with pytest.raises(CertificateError, match="^incomplete: cell "):
        check_stream_file(path)


def test_lines_end_at_newline_only(tmp_path):
    """The file is read as bytes and split at ``\\n`` only: a carriage return is JSON
    whitespace inside a line (and a ``\\r\\n`` ending is accepted), not a line break."""
    p = tmp_path / "c.jsonl"
    text = "".join(json.dumps(o, separators=(",", ":")) + "\n"
                   for o in (COLLINEAR, UP, DOWN))
    p.write_bytes(text.encode() + b'{"assertion":\r{"count":\r2}}\r\n')
    assert check_stream_file(p) == "ranking pattern, 2 cells, complete (streamed; 0 refutations)"
    p.write_bytes(text.encode() + b'{"assertion":\r{"count":\r3}}\n')
    with pytest.raises(CertificateError) as info:
        check_stream_file(p)
    assert str(info.value) == "assertion.count: 3 is not the number of cells (2)"


def test_the_checker_writes_only_in_its_temporary_directory(tmp_path, monkeypatch):
    """Cells, refutations and flips are spooled to a temporary directory that is removed
    afterwards: the working directory stays empty, also with tiny runs."""
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    path = tmp_path / "c.jsonl"
    write_ranking_certificate(path, [[0, 0], [3, 0], [0, 3], [1, 1]], affine=True)
    monkeypatch.chdir(elsewhere)
    monkeypatch.setattr(stream, "RUN", 2)
    monkeypatch.setattr(stream, "FAN_IN", 2)
    assert check_stream_file(path).startswith("ranking pattern, 12 cells")
    assert list(elsewhere.iterdir()) == []
