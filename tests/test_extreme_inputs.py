"""No input the parser accepts ends in a traceback: entries from 10^-8000 to 10^8000.

Every ``--matrix`` command except ``analyze`` (pattern sign/ranking with both methods,
the lemmas and theorems that take a matrix) is run in-process on small matrices whose
entries span 16,000 orders of magnitude. Each run either answers (exit 0; a claim of the
papers holds, so exit 1 would be a wrong answer) or refuses with exactly one line
``verify: error: ...`` (exit 2); any other exception fails the test. Pattern witnesses
are re-checked with Fractions, independently of the engine.
"""

import contextlib
import io
import json
import subprocess
import sys
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verify.cli import main
from verify.numbers.rational import parse_rational

COMMANDS = [
    ["pattern", "--json"],
    ["pattern", "--json", "--kind", "ranking"],
    ["pattern", "--json", "--method", "graph"],
    ["pattern", "--json", "--kind", "ranking", "--method", "graph"],
    ["lemma", "3.1"],
    ["lemma", "3.2"],
    ["lemma", "3.3"],
    ["theorem", "3.4"],
    ["appendix", "D"],
    ["proposition", "E.2"],
    ["lemma", "5.3"],
    ["theorem", "5.6"],
]

extreme = st.builds(lambda m, e: f"{m}e{e}", st.sampled_from(["1", "-1", "7", "-3.5", "0.25"]),
                    st.integers(-8000, 8000))
entries = st.one_of(st.just(0), st.integers(-3, 3), extreme,
                    st.builds(lambda p, q: f"{p}/{q}", st.integers(-9, 9), st.integers(1, 9)))
matrices = st.integers(1, 3).flatmap(
    lambda d: st.lists(st.lists(entries, min_size=d, max_size=d), min_size=1, max_size=4))


def run(argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _fraction(text: str) -> Fraction:
    q = parse_rational(text)
    return Fraction(int(q.p), int(q.q))


def _check_pattern_witnesses(rows, output, ranking: bool) -> None:
    """Each witness realises its pattern: signs of W z, or logits W x in ranking order."""
    W = [[_fraction(str(a)) for a in row] for row in rows]
    result = json.loads(output)
    assert result["count"] == len(result["witnesses"])
    for k, witness in enumerate(result["witnesses"]):
        z = [_fraction(a) for a in witness]
        values = [sum(a * b for a, b in zip(row, z)) for row in W]
        if ranking:
            order = result["rankings"][k]
            assert all(values[a] > values[b] for a, b in zip(order, order[1:]))
        else:
            signs = "".join("+" if v > 0 else "-" for v in values)
            assert all(v != 0 for v in values) and signs == result["patterns"][k]


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(matrices, st.sampled_from(COMMANDS))
def test_every_matrix_command_answers_or_refuses_in_one_line(tmp_path_factory, rows, command):
    path = tmp_path_factory.mktemp("extreme") / "W.json"
    path.write_text(json.dumps(rows))
    code, out, err = run([*command, "--matrix", str(path)])
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("verify: error: "), err
        return
    assert code == 0, (code, err[-500:])
    if command[0] == "pattern":
        _check_pattern_witnesses(rows, out, ranking="ranking" in command)


def _cli(*argv, matrix_text, tmp_path):
    path = tmp_path / "W.json"
    path.write_text(matrix_text)
    return subprocess.run([sys.executable, "-m", "verify", *argv, "--matrix", str(path)],
                          capture_output=True, text=True, timeout=120)


def test_cli_refuses_bad_extreme_inputs_with_one_line(tmp_path):
    cases = [
        (("pattern",), '[["1e200000", 1]]'),            # exponent beyond the parser's bound
        (("theorem", "3.4"), '[["1e8000", "1e-8000"]]'),  # one label
        (("lemma", "5.3", "--certificate", str(tmp_path / "c.json")), '[[0, 0], [1, 1]]'),
    ]
    for argv, text in cases:
        result = _cli(*argv, matrix_text=text, tmp_path=tmp_path)
        assert result.returncode == 2, (argv, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("verify: error: "), result.stderr


def test_cli_answers_extreme_magnitudes(tmp_path):
    text = '[["1e8000", 0], [0, "1e-8000"], ["1e-8000", "-7e8000"]]'
    for argv in (("theorem", "3.4"), ("lemma", "5.3"), ("pattern", "--kind", "ranking")):
        result = _cli(*argv, matrix_text=text, tmp_path=tmp_path)
        assert result.returncode == 0, (argv, result.stderr[-500:])


def test_witnesses_beyond_4300_digits_are_printed(tmp_path):
    """A witness entry with more digits than str(int) allows, into a text stream: the
    cell z_2 > 0 > z_1 + 10^4300 z_2 has integer points only with |z_1| > 10^4300."""
    rows = [[0, 0, 1], [0, 1, "1e4300"]]
    path = tmp_path / "W.json"
    path.write_text(json.dumps(rows))
    code, out, err = run(["pattern", "--matrix", str(path), "--json"])
    assert code == 0 and err == ""
    result = json.loads(out)
    assert max(len(a) for w in result["witnesses"] for a in w) > 4300
    _check_pattern_witnesses(rows, out, ranking=False)
