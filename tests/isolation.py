"""Run the certificate checker in a subprocess where the engine's libraries are blocked.

Stub packages named like the engine's dependencies come first on ``PYTHONPATH`` and
raise ``ImportError``; the script also reports every non-standard-library module that
got imported besides ``verify`` and the checker's modules
(expected: none).
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCKED = ("flint", "numpy", "sympy", "pulp", "networkx", "scipy")

_SCRIPT = (
    "import sys\n"
    "before = set(sys.modules)\n"
    f"for name in {BLOCKED!r}:\n"
    "    try:\n"
    "        __import__(name)\n"
    "    except ImportError:\n"
    "        pass\n"
    "    else:\n"
    "        sys.exit(f'{name} is importable')\n"
    "from verify.checker.core import main\n"
    "status = main(sys.argv[1:])\n"
    "outside = sorted(m for m in set(sys.modules) - before if m.split('.')[0] not in "
    "sys.stdlib_module_names and m not in ('verify', 'verify.checker', 'verify.checker.core', "
    "'verify.checker.roots', 'verify.checker.claims', 'verify.checker.analyze'))\n"
    "print('outside:', outside)\n"
    "sys.exit(status)\n")


def run_checker_without_engine(tmp_path: Path, *files) -> subprocess.CompletedProcess:
    """``verify.checker.core.main(files)`` with flint, numpy, sympy, pulp, networkx, scipy
    unimportable; stdout ends with the line ``outside: [...]``."""
    stubs = tmp_path / "blocked-stubs"
    for name in BLOCKED:
        (stubs / name).mkdir(parents=True, exist_ok=True)
        (stubs / name / "__init__.py").write_text('raise ImportError("blocked")\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(stubs), str(ROOT)]))
    return subprocess.run([sys.executable, "-c", _SCRIPT, *map(str, files)], env=env,
                          capture_output=True, text=True, cwd=tmp_path)
