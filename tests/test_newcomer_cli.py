"""The command line as a user meets it: every command's help, the version, and options
that are unknown or do not apply, each refused in one line with exit status 2."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from verify.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
H1_A = ROOT / "examples" / "h1_A.json"


def run(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "verify", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, env=env)


def commands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return list(sub.choices)


def one_line_error(res) -> str:
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    assert res.stdout == ""
    line, = res.stderr.splitlines()
    assert "Traceback" not in line
    return line


def test_every_command_is_listed_in_the_main_help():
    res = run("--help")
    assert res.returncode == 0 and res.stderr == ""
    listed = re.findall(r"^    (\w+)", res.stdout, flags=re.M)
    assert listed == commands()
    assert {"check", "pattern", "analyze", "all", "list", "search", "steck"} <= set(listed)


@pytest.mark.parametrize("command", commands())
def test_every_command_has_help(command):
    res = run(command, "--help")
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    assert "usage: python -m verify" in res.stdout


def test_version():
    import verify

    res = run("--version")
    assert res.returncode == 0
    assert res.stdout == f"cosine-verify {verify.__version__}\n"


def test_help_of_the_claim_kinds_names_their_claims():
    main_help = run("--help").stdout
    assert "a example" not in main_help and "a appendix" not in main_help
    assert "check an example of Nielsen & Grivas: C.1, C.2 or C.3" in main_help
    steck = run("steck", "--help").stdout
    assert "e.g. 5.6" not in steck
    assert re.search(r"NAME\s+the claim's name: eq1-invariance, eq1-closed-form,\s+"
                     r"full-rank or eq2-unique", steck)
    assert "  steck full-rank: no other options" in steck
    theorem = " ".join(run("theorem", "--help").stdout.split())
    assert "the claim's number: 3.4, 5.5, 5.6 or H.1" in theorem
    assert "theorem 3.4: --matrix, --labels" in theorem


@pytest.mark.parametrize("args, names", [
    (["bogus"], "invalid choice: 'bogus'"),
    (["--bogus"], "required: COMMAND"),
    (["--bogus", "list"], "unrecognized arguments: --bogus"),
    (["pattern", "--matrix", H1_A, "--bogus"], "unrecognized arguments: --bogus"),
    (["pattern"], "required: --matrix"),
    (["list", "--n", "3"], "unrecognized arguments: --n 3"),
    (["all", "--matrix", H1_A], "unrecognized arguments: --matrix"),
    (["search", "theorem", "H.1", "--labels", "0", "1"], "unrecognized arguments"),
    (["analyze", "--matrix", H1_A, "--seed", "1"], "unrecognized arguments: --seed 1"),
    (["steck", "full-rank", "--bogus"], "unrecognized arguments: --bogus"),
    (["theorem", "5.6", "--n", "x"], "argument --n: invalid int value: 'x'"),
    (["check", "c.zip", "--matrix", H1_A, "--bogus"], "unrecognized arguments: --bogus"),
    # options that exist but do not apply to the command
    (["steck", "full-rank", "--n", "9", "--d", "7"],
     "--n, --d are not supported by steck full-rank"),
    (["theorem", "H.1", "--n", "7"], "--n is not supported by theorem H.1"),
    (["steck", "eq2-unique", "--seed", "0"], "--seed is not supported by steck eq2-unique"),
    (["theorem", "5.5", "--matrix", H1_A], "search theorem 5.5"),
    (["example", "C.2", "--exhaustive"], "--exhaustive is not supported by example C.2"),
    (["lemma", "5.3", "--labels", "0", "1"], "--labels is not supported by lemma 5.3"),
    (["theorem", "3.4", "--quiet"], "--quiet is not supported by theorem 3.4"),
    (["appendix", "D", "--jobs", "2"], "--jobs is not supported by appendix D"),
    (["pattern", "--matrix", H1_A, "--json", "--limit", "3"], "--limit applies to the table"),
    (["pattern", "--matrix", H1_A, "--count-only", "--limit", "0"],
     "--limit applies to the table"),
    (["pattern", "--matrix", H1_A, "--output", "out.txt"], "--output writes --format"),
    (["pattern", "--matrix", H1_A, "--count-only", "--output", "c.json"],
     "--output do not apply"),
])
def test_unknown_or_inapplicable_options_are_one_line_and_exit_2(tmp_path, args, names):
    line = one_line_error(run(*args, cwd=tmp_path))
    assert names in line
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.mark.parametrize("args", [
    ["analyze", "W.json"],
    ["analyze", "--json", "W.json"],
    ["analyze", "--bias", "b.txt", "W.json", "--neighbours", "1"],
    ["pattern", "W.json", "--kind", "ranking"],
])
def test_a_matrix_file_given_without_its_option_is_pointed_to(tmp_path, args):
    """A newcomer's ``analyze W.json``: the one-line error says how to give it."""
    (tmp_path / "W.json").write_text("[[1, 0], [0, 1]]")
    (tmp_path / "b.txt").write_text("0\n1\n")
    line = one_line_error(run(*args, cwd=tmp_path))
    assert "required: --matrix; give the matrix file as --matrix W.json" in line


def test_no_matrix_hint_without_a_file(tmp_path):
    (tmp_path / "b.txt").write_text("0\n1\n")
    for args in (["analyze", "missing.npy"], ["analyze", "--bias", "b.txt"]):
        line = one_line_error(run(*args, cwd=tmp_path))
        assert "required: --matrix" in line and "give the matrix" not in line


def test_a_refused_option_names_the_options_that_apply():
    line = one_line_error(run("theorem", "3.4", "--seed", "3"))
    assert line.endswith("its options: --json, --certificate, --matrix, --labels")


def test_options_that_apply_are_taken(run_cli):
    code, out, err = run_cli(["theorem", "3.4", "--labels", "0", "2", "--json"])
    assert code == 0, err
    assert json.loads(out)["status"] == "verified"
    code, out, _ = run_cli(["lemma", "5.3", "--n", "4", "--d", "3", "--matrices", "3",
                            "--seed", "2", "--json"])
    assert code == 0 and json.loads(out)["checked"] == 3
    code, out, _ = run_cli(["steck", "full-rank"])
    assert code == 0 and "VERIFIED" in out


def test_defaults_are_restored_for_the_options_not_given(run_cli, monkeypatch):
    from verify.claims import registry

    seen = {}

    def record(claim, options):
        seen.update(vars(options))
        raise registry.InputError("stop")

    monkeypatch.setattr(registry.Claim, "run", record)
    assert run_cli(["lemma", "5.3", "--d", "3"])[0] == 2
    assert (seen["n"], seen["d"], seen["matrices"], seen["jobs"]) == (5, 3, 200, 1)
    assert (seen["exhaustive"], seen["output_dir"], seen["matrix"]) == (False, ".", None)


def test_proposition_e2_reports_its_orthant_lps_and_no_chirotopes():
    res = run("proposition", "E.2", "--n", "5", "--d", "2", "--matrices", "4")
    assert res.returncode == 0, res.stderr
    assert "chirotope" not in res.stdout
    assert "right side: each open orthant decided on its own by an exact LP" in res.stdout
    assert res.stdout.splitlines()[-1].startswith("HOLDS: both sides agree on all 4 ")
    # the cosine claims keep their chirotope lines
    res = run("lemma", "5.3", "--matrices", "2")
    assert "right side: exact chirotope of the cosine matrix" in res.stdout
    assert "chirotopes agree up to a global sign: 2 of 2" in res.stdout


def test_pattern_states_a_refused_size_as_analyze_does(tmp_path):
    import numpy as np

    W = np.random.default_rng(2).integers(-9, 10, size=(200, 10)).tolist()
    path = tmp_path / "W.json"
    path.write_text(json.dumps(W))
    line = one_line_error(run("pattern", "--matrix", path))
    assert re.search(r"the sign pattern has up to about 10\^15\.\d cells, too many to "
                     r"enumerate: 200 distinct hyperplanes in rank 10 meet in up to about "
                     r"10\^15\.\d lines \(limit 20000000\)$", line)
    assert not re.search(r"\d{16}", line)


def test_the_console_script_entry_point_dispatches_check(tmp_path, run_cli):
    from verify.certificates.writers import pattern_certificate, write_certificate

    code, out, _ = run_cli(["check", "--help"])
    assert code == 0 and out.startswith("usage: python -m verify check")
    cert = tmp_path / "p.cert.json"
    write_certificate(cert, pattern_certificate([[1, 0], [0, 1]], kind="sign", affine=False))
    code, out, err = run_cli(["check", cert])
    assert code == 0, err
    assert out.startswith(f"{cert}: OK")
