"""Hypothesis profiles: ``mutation`` (for ``mutmut``, see ``docs/testing.md``) draws the
same examples on every run and has no deadline, so that a mutant that is only slower is
not counted as killed."""

import io
from contextlib import redirect_stderr, redirect_stdout

import pytest
from hypothesis import settings

settings.register_profile("mutation", deadline=None, derandomize=True)


def _run_cli(args) -> tuple[int, str, str]:
    from verify.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="session")
def run_cli():
    """``run_cli(args) -> (exit code, stdout, stderr)`` of ``python -m verify ARGS``,
    in-process (so that coverage and mutation tools see the code it runs)."""
    return _run_cli
