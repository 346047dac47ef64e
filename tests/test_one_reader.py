"""Every command reads its matrix through one reader and one entry parser
(:func:`verify.io.matrix.read_matrix`, :func:`verify.numbers.sqrt_sum.parse_entry`):
the same entry gets the same verdict, or the same one-line error, from each of them.
A command that computes over the rationals refuses an irrational entry in one line
naming it; ``analyze`` takes it.  Huge entries are read and decided in time that grows
with their size (F4), and an entry beyond ``MAX_DIGITS`` is refused as it is read.
"""

import json
import random
import time

import pytest
from flint import fmpz

from verify import cli
from verify.numbers import sqrt_sum
from verify.numbers.rational import MAX_DIGITS

#: The commands that read ``--matrix``, and what each calls itself when it refuses an
#: irrational entry (None: it takes irrational entries).
COMMANDS = [
    (["analyze"], None),
    (["pattern"], "pattern"),
    (["pattern", "--kind", "ranking"], "pattern"),
    (["lemma", "5.3"], "lemma 5.3"),
    (["theorem", "5.6"], "theorem 5.6"),
    (["theorem", "3.4"], "theorem 3.4"),
]


def _run(capsys, tmp_path, argv, rows):
    path = tmp_path / "W.json"
    path.write_text(json.dumps(rows))
    capsys.readouterr()
    status = cli.main([*argv, "--matrix", str(path)])
    out, err = capsys.readouterr()
    return status, out, err.strip().splitlines(), path


@pytest.mark.parametrize("argv, needs", COMMANDS)
def test_a_rational_square_root_sum_is_read_by_every_command(capsys, tmp_path, argv, needs):
    # sqrt(4)/2 and 1+-sqrt(9)/3 are the rational numbers 1 and 0: every command takes them
    status, _, err, _ = _run(capsys, tmp_path, argv,
                             [[1, 0], ["sqrt(4)/2", 2], [0, "1+-sqrt(9)/3+1"]])
    assert status == 0, err


@pytest.mark.parametrize("argv, needs", COMMANDS)
def test_an_irrational_entry_is_taken_or_refused_the_same_way(capsys, tmp_path, argv, needs):
    status, _, err, path = _run(capsys, tmp_path, argv,
                                [[1, 0], ["1+-1*sqrt(2)/2", 1], [0, 1]])
    if needs is None:
        assert status == 0, err
        return
    assert status == 2
    assert err == [f"verify: error: {path}: row 1, column 0: 1 - sqrt(2)/2 is "
                   f"irrational; {needs} needs rational entries"]


@pytest.mark.parametrize("entry, reason", [
    ("sqrt(-2)", "not a number: 'sqrt(-2)'"),
    ("1+*sqrt(2)", "not a number: '1+*sqrt(2)'"),
    ("2**3", "not a number: '2**3'"),
    ("nan", "not a finite number: 'nan'"),
    ("1e100001", "exponent too large (limit 100000): '1e100001'"),
])
def test_a_bad_entry_gets_the_same_error_from_every_command(capsys, tmp_path, entry, reason):
    lines = set()
    for argv, _ in COMMANDS:
        status, _, err, path = _run(capsys, tmp_path, argv, [[1, 0], [entry, 1], [0, 1]])
        assert status == 2 and len(err) == 1, (argv, err)
        lines.add(err[0])
    assert lines == {f"verify: error: {path}: row 1, column 0: {reason}"}


def test_a_bias_with_an_irrational_entry_is_refused_in_one_line(capsys, tmp_path):
    bias = tmp_path / "b.json"
    bias.write_text(json.dumps([0, "sqrt(2)", 0]))
    W = tmp_path / "W.json"
    W.write_text(json.dumps([[1, 0], [0, 1], [1, 1]]))
    assert cli.main(["analyze", "--matrix", str(W), "--bias", str(bias)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"verify: error: {bias}: entry 1: sqrt(2) is irrational; a bias needs rational "
        "entries"]


def test_the_python_api_reads_strings_with_the_same_parser():
    from verify.api import exact_matrix

    assert exact_matrix([["1e5000", "sqrt(4)/2"]])[0][1] == 1
    with pytest.raises(ValueError, match="is not rational"):
        exact_matrix([["sqrt(2)"]])
    assert str(exact_matrix([["1+-1*sqrt(2)/2"]], square_roots=True)[0][0]) == \
        "1 - sqrt(2)/2"


# --- F4: huge entries ------------------------------------------------------------------


@pytest.mark.parametrize("argv", [["lemma", "5.3"], ["theorem", "5.6"], ["theorem", "3.4"]])
def test_an_entry_of_20000_digits_is_decided(capsys, tmp_path, argv):
    """3.4 s for theorem 3.4 before (a primality test of the norm's cofactor, hidden
    in factor_smooth, and math.isqrt), 200,000 digits more than a minute; now well
    under a second, and 200,000 digits a few seconds."""
    start = time.perf_counter()
    status, _, err, _ = _run(capsys, tmp_path, argv, [["7" * 20_000, 1], [1, 2]])
    assert status == 0, err
    assert time.perf_counter() - start < 30  # generous: a shared machine


def test_an_entry_beyond_the_digit_limit_is_refused_as_it_is_read(capsys, tmp_path):
    for entry in ("7" * (MAX_DIGITS + 1), "1/" + "3" * MAX_DIGITS, "sqrt(2)*1e100000" +
                  "*1e100000" * 10):
        status, _, err, path = _run(capsys, tmp_path, ["lemma", "5.3"], [[entry, 1]])
        assert status == 2 and len(err) == 1 and len(err[0]) < 300, err
        assert "digits" in err[0] and f"{MAX_DIGITS:,}" in err[0], err


def test_the_square_decomposition_of_large_numbers_agrees_with_the_small_one():
    rng = random.Random(7)
    for _ in range(200):
        smooth = 1
        for _ in range(rng.randint(0, 10)):
            smooth *= rng.choice([2, 3, 5, 7, 11, 32719, 32749]) ** rng.randint(1, 60)
        n = smooth * rng.choice([1, 10**6 + 3, (10**6 + 3) ** 2, (10**6 + 3) ** 4,
                                 2**61 - 1, (2**61 - 1) ** 3])
        s, r = sqrt_sum._square_decomposition_large(fmpz(n))
        assert s * s * r == n
        assert all(r % (p * p) for p in (2, 3, 5, 7, 11, 32719, 32749))
        # the square part of the cofactor is taken out
        assert r % (10**6 + 3) ** 2 or n % (10**6 + 3) ** 4 == 0
    # a perfect square is (root, 1); a power of two of a million bits is split at once
    assert sqrt_sum._square_decomposition_large(fmpz(3**5000) ** 2) == (3**5000, 1)
    assert sqrt_sum._square_decomposition_large(fmpz(2) ** 1_000_001) == (2**500_000, 2)
