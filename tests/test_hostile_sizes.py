"""Sizes asked for on the command line are estimated before anything is built: an
impossible or enormous request is one line on stderr and exit status 2 (issue 28:
F5, F7, F13)."""

from pathlib import Path

import pytest

from verify import cli
from verify.io.errors import count_text

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "h1_A.json"
HUGE = "99999999999999999999"


def run(capsys, *argv):
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err.strip().splitlines()


@pytest.mark.parametrize("argv, message", [
    (["lemma", "5.3", "--n", HUGE, "--matrices", "1"],
     "verify: error: --n more than 10^19, --d 2: a sweep's matrices have at most 1,000 "
     "rows and columns"),
    (["theorem", "5.6", "--n", "3", "--d", HUGE, "--matrices", "1"],
     "verify: error: --n 3, --d more than 10^19: a sweep's matrices have at most 1,000 "
     "rows and columns"),
    (["lemma", "5.3", "--n", "3", "--d", "2", "--matrices", HUGE],
     "verify: error: --matrices more than 10^19: a sampled family has at most 1,000,000 "
     "matrices"),
    (["lemma", "5.3", "--n", "3", "--d", "2", "--matrices", "2", "--seed", "-1"],
     "verify: error: --seed must be >= 0 (got -1)"),
    (["lemma", "5.3", "--exhaustive", "--n", "3", "--d", "2", "--box", "9" * 400],
     "verify: error: --exhaustive with n=3, d=2, box=more than 10^399 has more than "
     "10^800 row multisets to examine (limit 2,000,000); use a smaller box or the "
     "sampled family"),
    (["lemma", "5.3", "--exhaustive", "--n", "900", "--d", "3", "--box", "1"],
     "verify: error: --exhaustive with n=900, d=3, box=1 has more than 10^50 row "
     "multisets to examine (limit 2,000,000); use a smaller box or the sampled family"),
])
def test_sweep_sizes_refused_in_one_line(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert (status, out, err) == (2, "", [message])


@pytest.mark.parametrize("argv, message", [
    (["search", "theorem", "5.5", "--n", "50", "--d", "50", "--box", "50"],
     "verify: error: more than 10^90 multisets of 50 rows (limit 3,000,000); use a "
     "smaller box"),
    (["search", "theorem", "5.5", "--n", HUGE, "--d", "2", "--box", "1"],
     "verify: error: --n more than 10^19: a search looks at sets of at most 1,000 points "
     "or rows"),
    (["search", "theorem", "H.1", "--n", "5", "--d", "2", "--box", "9" * 30],
     "verify: error: more than 10^60 sets of 5 points in [-more than 10^29, more than "
     "10^29]^2 (limit 3,000,000); use a smaller box"),
])
def test_search_sizes_estimated_before_building(capsys, monkeypatch, argv, message):
    import verify.claims.search as search

    monkeypatch.setattr(search, "box_points", lambda *a: pytest.fail("points built"))
    status, out, err = run(capsys, *argv)
    assert (status, out, err) == (2, "", [message])


def test_small_search_still_runs(capsys):
    status, out, _ = run(capsys, "search", "theorem", "5.5", "--n", "2", "--d", "2",
                         "--box", "1", "--limit", "1")
    assert status == 0 and "36 matrices examined" in out


def test_count_text():
    assert count_text(0) == "0" and count_text(-5) == "-5"
    assert count_text(10 ** 15 - 1) == "999,999,999,999,999"
    assert count_text(10 ** 15) == "10^15" and count_text(-(10 ** 15)) == "-10^15"
    assert count_text(10 ** 15 + 1) == "more than 10^15"
    assert count_text(10 ** 16 - 1) == "more than 10^15"
    assert count_text(-(10 ** 20) - 1) == "less than -10^20"
    assert count_text(10 ** 10000) == "10^10,000"
    assert count_text(3 * 10 ** 10000) == "more than 10^10,000"


# --- F13: --jobs ----------------------------------------------------------------------

def test_pattern_jobs_capped_at_the_cpus(capsys, monkeypatch):
    import verify.arrangement.stream as stream
    import verify.io.options as options

    seen = []
    real = stream.sign_pattern_blocks

    def recording(*args, **kwargs):
        seen.append(kwargs.get("jobs"))
        return real(*args, **kwargs)

    monkeypatch.setattr(options, "available_cpus", lambda: 3)
    monkeypatch.setattr(stream, "sign_pattern_blocks", recording)
    status, out, err = run(capsys, "pattern", "--matrix", str(EXAMPLE), "--count-only",
                           "--jobs", "100000")
    assert status == 0 and out.startswith("10 cells")
    assert err == ["verify: note: --jobs 100,000 is more than the 3 CPUs here: using 3"]
    assert seen == [3]


def test_sweep_jobs_capped_at_the_cpus(capsys, monkeypatch):
    import verify.claims.sweep as sweep
    import verify.io.options as options

    seen = []
    monkeypatch.setattr(options, "available_cpus", lambda: 1)
    monkeypatch.setattr(sweep, "_execute",
                        lambda tasks, opts, on_result: seen.append(opts.jobs) or [
                            on_result(sweep.check_one(t)) for t in tasks])
    status, out, err = run(capsys, "lemma", "5.3", "--n", "3", "--d", "2", "--matrices",
                           "3", "--jobs", "64", "--json", "--quiet")
    assert status == 0 and '"checked": 3' in out
    assert err == ["verify: note: --jobs 64 is more than the 1 CPUs here: using 1"]
    assert seen == [1]


def test_jobs_within_the_cpus_untouched(capsys, monkeypatch):
    import verify.io.options as options

    monkeypatch.setattr(options, "available_cpus", lambda: 4)
    status, _, err = run(capsys, "pattern", "--matrix", str(EXAMPLE), "--count-only",
                         "--jobs", "4")
    assert status == 0 and err == []
