"""The public API is typed: mypy checks tests/typed_usage.py against it.

``tests/typed_usage.py`` calls every public function and class the way docs/api.md and
docs/analyze.md do; mypy (configured in pyproject.toml, ``[tool.mypy]``) pins the
documented return types and reports a public parameter that has lost its annotation.
The tests below also break a copy of the package on purpose and see mypy fail, and
check the annotations of every public callable directly.
"""

from __future__ import annotations

import inspect
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import verify
import verify.analyze

ROOT = Path(__file__).resolve().parents[1]
USAGE = ROOT / "tests" / "typed_usage.py"

pytest.importorskip("mypy", reason="mypy is in the test extra: pip install -e '.[test]'")


def mypy(root: Path, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(root / "pyproject.toml"),
         "--cache-dir", str(cache)],
        cwd=root, capture_output=True, text=True, timeout=300)


def test_the_documented_usage_type_checks(tmp_path):
    run = mypy(ROOT, tmp_path / "cache")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success: no issues found in 1 source file" in run.stdout


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    shutil.copytree(ROOT / "verify", root / "verify",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (root / "tests").mkdir()
    shutil.copy(USAGE, root / "tests" / USAGE.name)
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


SIGN = 'def sign_pattern(M: Matrix, *, method: str = "cocircuits") -> SignPattern:'
TIES = 'def tie_pairs(W: HeadInput, argmax: ArgmaxAnalysis | None = None, *,'
REPORT = "def to_json(a: HeadAnalysis, *, evidence: bool | None = None) -> dict[str, Any]:"


@pytest.mark.parametrize("path, before, after, message", [
    # every annotation gone: an untyped call
    ("verify/api.py", SIGN, 'def sign_pattern(M, *, method="cocircuits"):',
     "Call to untyped function \"sign_pattern\""),
    # one parameter's annotation gone: a wrong argument is no longer an error
    ("verify/api.py", SIGN,
     'def sign_pattern(M, *, method: str = "cocircuits") -> SignPattern:',
     'Unused "type: ignore" comment'),
    ("verify/analyze/ties.py", TIES,
     "def tie_pairs(W, argmax: ArgmaxAnalysis | None = None, *,",
     'Unused "type: ignore" comment'),
    # a return type changed
    ("verify/analyze/report.py", REPORT,
     "def to_json(a: HeadAnalysis, *, evidence: bool | None = None) -> dict:",
     "assert-type"),
])
def test_a_broken_public_signature_fails_the_check(tmp_path, path, before, after, message):
    root = _copy(tmp_path)
    source = (root / path).read_text()
    assert source.count(before) == 1, f"{path} no longer has {before!r}"
    (root / path).write_text(source.replace(before, after))
    run = mypy(root, tmp_path / "cache")
    assert run.returncode == 1, run.stdout + run.stderr
    assert message in run.stdout, run.stdout


def _public():
    for module in (verify, verify.analyze):
        for name in module.__all__:
            yield module.__name__, name, getattr(module, name)


def test_every_public_name_is_used_in_the_typed_usage():
    text = USAGE.read_text()
    missing = [f"{m}.{name}" for m, name, _ in _public()
               if not re.search(rf"\b{name}\b", text)
               and name not in {"CertificateError", "InputError", "VerifyError"}]
    assert not missing, f"not called in {USAGE.name}: {missing}"


def test_every_public_callable_is_annotated():
    """Parameters and return of every public function and public method."""
    bare = []
    for module, name, value in _public():
        functions = []
        if inspect.isfunction(value):
            functions.append((name, value))
        elif inspect.isclass(value) and value.__module__.startswith("verify"):
            for attr, member in vars(value).items():
                if attr.startswith("_") and attr not in {"_repr_html_", "_repr_pretty_"}:
                    continue
                if isinstance(member, property):
                    member = member.fget
                if inspect.isfunction(member):
                    functions.append((f"{name}.{attr}", member))
        for label, fn in functions:
            sig = inspect.signature(fn)
            for p in sig.parameters.values():
                if p.name not in {"self", "cls"} and p.annotation is inspect.Parameter.empty:
                    bare.append(f"{module}.{label}: parameter {p.name}")
            if sig.return_annotation is inspect.Signature.empty:
                bare.append(f"{module}.{label}: return")
    assert not bare, "\n".join(bare)


def test_the_typed_usage_runs(tmp_path, monkeypatch):
    """The file mypy checks is real code: it runs (claims and plots aside)."""
    pytest.importorskip("matplotlib")
    import importlib.util

    spec = importlib.util.spec_from_file_location("typed_usage", USAGE)
    usage = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(usage)
    usage.patterns()
    usage.heads(str(tmp_path))
    assert (tmp_path / "W.png").stat().st_size > 0
    assert (tmp_path / "cos.png").stat().st_size > 0
