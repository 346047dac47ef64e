"""The readers of ``verify/io/`` import one way: formats below, dispatch above.

``matrix_file`` (JSON, CSV, text, ``.npy``) and ``safetensors_file`` (headers) are the
formats; ``checkpoint`` (tensors and heads) reads them; ``matrix`` (``read_matrix``, the
entry point of every command) reads all of them.  Each module is imported alone in a
fresh interpreter (an import cycle fails there whichever module comes first), and every
import of the package, deferred ones inside functions included, is read from the
syntax tree and must run down this order.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IO = ROOT / "verify" / "io"
MODULES = sorted(p.stem for p in IO.glob("*.py") if p.stem != "__init__")

#: Bottom to top: a module imports only modules of ``verify.io`` on lower ranks.
ORDER = [
    ("errors", "files", "options", "atomic", "display"),
    ("matrix_file", "safetensors_file", "distributed", "pattern_output", "vocabulary"),
    ("checkpoint",),
    ("matrix",),
]


def _rank(module: str) -> int:
    (rank,) = [r for r, names in enumerate(ORDER) if module in names]
    return rank


def _io_imports(path: Path) -> set[str]:
    """The modules of ``verify.io`` that ``path`` imports, anywhere in the file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("verify.io."):
                found.add(node.module.split(".")[2])
            elif node.module == "verify.io":
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[2] for alias in node.names
                         if alias.name.startswith("verify.io."))
    return found - {path.stem}


def test_every_module_has_a_rank():
    assert sorted(m for names in ORDER for m in names) == MODULES


@pytest.mark.parametrize("module", MODULES)
def test_imports_run_down(module):
    upward = sorted(t for t in _io_imports(IO / f"{module}.py")
                    if _rank(t) >= _rank(module))
    assert upward == [], f"verify.io.{module} imports {upward} (same rank or above)"


@pytest.mark.parametrize("module", MODULES)
def test_imports_alone_in_a_fresh_interpreter(module):
    done = subprocess.run([sys.executable, "-c", f"import verify.io.{module}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_walk_sees_deferred_imports(tmp_path):
    path = tmp_path / "checkpoint.py"
    path.write_text("def f():\n    from verify.io.matrix import read_matrix\n"
                    "from verify.io import errors\nimport verify.io.files\n")
    assert _io_imports(path) == {"matrix", "errors", "files"}
