"""Mutate what you changed: mutmut on the functions a git diff touches.

    python -m tools.mutate_changed                  # uncommitted changes (against HEAD)
    python -m tools.mutate_changed --base main      # everything since the branch left main
    python -m tools.mutate_changed --module verify/arrangement/whitney.py   # a whole module
    python -m tools.mutate_changed --base main --dry-run   # what would run, without running
    python -m tools.mutate_changed --base main --only verify/checker/analyze.py \
        --function '_domain*' --function 'Evidence.*'   # part of a diff

The functions are found by the changed lines of ``git diff -U0`` (and every function of
a new, untracked module), mapped onto the top-level functions and the methods of classes
of the new code, which is what mutmut 3 mutates one at a time: the mutants of function
``f`` of ``verify/a/b.py`` are ``verify.a.b.x_f__mutmut_N``, those of method ``C.m``
``verify.a.b.xǁCǁm__mutmut_N``. Only modules of ``only_mutate`` in ``[tool.mutmut]`` are
taken (``--any-module`` lifts that). ``--only PATH`` keeps the changed functions of the
modules named, ``--function GLOB`` those whose name (``f``, ``C.m``) matches.

The tests are the test files that import a changed module, directly, through a helper
module of ``tests/`` or through a package that re-exports it (``--tests`` names them
instead); the ``-k`` deselection of ``[tool.mutmut]`` still applies (tests that start
Python in a subprocess), and ``-k`` adds to it. mutmut then runs, for each mutant, only
those of them that reach its function (it traces them once first).

mutmut runs in a copy of the working tree (``--workdir``, by default
``.mutate-changed/`` in the repository, emptied first) whose ``[tool.mutmut]`` differs
from ``pyproject.toml`` only in ``only_mutate`` and the test selection; ``mutmut show
NAME`` and ``mutmut results`` work there afterwards. At the end a table gives, per
function, its mutants, how many were killed, timed out (mutmut's time limit, counted as
detected) and survived, and the numbers of the survivors.

Run it under ``nice`` on a shared machine; ``--max-children`` (default 1) is mutmut's.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEPARATOR = "ǁ"  # mutmut's separator of class and method in mutant names

#: mutmut 3's exit codes of a mutant's test run, by what they mean for the table.
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests",
          34: "skipped", 36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout",
          255: "timeout", None: "not run"}


# -- The diff: which lines of which files changed ------------------------------------

@dataclass(frozen=True)
class Hunk:
    """Lines ``start .. start + count - 1`` of the new file; ``count == 0`` is a
    deletion after line ``start``."""

    start: int
    count: int


def parse_diff(text: str) -> dict[str, list[Hunk]]:
    """The hunks of ``git diff -U0`` output, by the new file's path (deleted files
    left out)."""
    hunks: dict[str, list[Hunk]] = {}
    path = None
    for line in text.splitlines():
        if line.startswith("+++ "):
            target = line[4:].strip()
            path = target[2:] if target.startswith("b/") else None
            if path is not None:
                hunks.setdefault(path, [])
        elif line.startswith("@@") and path is not None:
            match = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", line)
            if match is None:
                raise ValueError(f"not a hunk header: {line!r}")
            start, count = int(match.group(1)), match.group(2)
            hunks[path].append(Hunk(start, 1 if count is None else int(count)))
    return hunks


# -- The functions of a module, as mutmut names them ----------------------------------

@dataclass(frozen=True)
class Function:
    key: str  # mutmut's name within the module: x_f, xǁCǁm, xǁC.Dǁm
    first: int  # first line, decorators included
    last: int

    @property
    def name(self) -> str:
        """``f`` or ``C.m``, as a reader writes it."""
        if self.key.startswith("x_"):
            return self.key[2:]
        _, cls, method = self.key.split(SEPARATOR)
        return f"{cls}.{method}"


def functions(source: str) -> list[Function]:
    """The top-level functions and the methods of (nested) classes of ``source``, in
    order; a function defined inside another belongs to the outer one."""
    found = []

    def visit(body, cls):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                key = (f"x_{node.name}" if cls is None
                       else f"x{SEPARATOR}{cls}{SEPARATOR}{node.name}")
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                found.append(Function(key, first, node.end_lineno))
            elif isinstance(node, ast.ClassDef):
                visit(node.body, node.name if cls is None else f"{cls}.{node.name}")

    visit(ast.parse(source).body, None)
    return found


def touched(source: str, hunks: list[Hunk]) -> list[Function]:
    """The functions of ``source`` (the new code) that a hunk changes: one that holds a
    changed line, or both lines around a deletion."""
    found = functions(source)

    def holder(line):
        return next((f for f in found if f.first <= line <= f.last), None)

    hit = set()
    for hunk in hunks:
        if hunk.count == 0:
            before, after = holder(hunk.start), holder(hunk.start + 1)
            if before is not None and before == after:
                hit.add(before)
        else:
            hit.update(f for f in found
                       if f.first <= hunk.start + hunk.count - 1 and hunk.start <= f.last)
    return [f for f in found if f in hit]


def narrow(chosen: dict[str, list[Function]], only: list[str],
           globs: list[str]) -> dict[str, list[Function]]:
    """``chosen`` (functions by module path) restricted to the paths ``only`` (all when
    empty) and to the functions whose name (``f``, ``C.m``) matches one of ``globs``
    (all when empty); a module left with no function is dropped."""
    kept = {}
    for path, found in chosen.items():
        if only and path not in only:
            continue
        found = [f for f in found
                 if not globs or any(fnmatch.fnmatchcase(f.name, g) for g in globs)]
        if found:
            kept[path] = found
    return kept


def module_name(path: str) -> str:
    """``verify/a/b.py`` -> ``verify.a.b``; a package's ``__init__.py`` is the package."""
    parts = list(Path(path).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def pattern(module: str, function: Function) -> str:
    """The mutmut pattern of every mutant of ``function``."""
    return f"{module}.{function.key}__mutmut_*"


# -- Which test files reach a module --------------------------------------------------

def imported_modules(source: str) -> set[str]:
    """Every module name an import of ``source`` may refer to (``from a import b`` gives
    ``a`` and ``a.b``, since ``b`` may be a module)."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def reaching_tests(modules: set[str], tests: dict[str, str],
                   packages: dict[str, str]) -> list[str]:
    """The test files (``test_*.py`` among ``tests``, by file name -> source) that import
    one of ``modules``, directly, through a helper module of ``tests`` (imported as
    ``helper`` or ``tests.helper``), or through a package (``packages``, by name ->
    source of its ``__init__.py``) that imports it."""
    helpers = {Path(name).stem for name in tests}

    def local(name):
        stem = name[len("tests."):] if name.startswith("tests.") else name
        return stem if stem in helpers and not name.startswith("verify") else None

    imports = {Path(name).stem: imported_modules(source) for name, source in tests.items()}
    package_imports = {name: imported_modules(source) for name, source in packages.items()}
    found = []
    for name in sorted(tests):
        if not (Path(name).name.startswith("test_") and name.endswith(".py")):
            continue
        seen, todo, reached = set(), [Path(name).stem], set()
        while todo:  # the closure over helper modules and re-exporting packages
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            for imported in imports.get(current, package_imports.get(current, ())):
                reached.add(imported)
                helper = local(imported)
                if helper is not None:
                    todo.append(helper)
                elif imported in package_imports:
                    todo.append(imported)
        if reached & modules:
            found.append(name)
    return found


# -- The table ---------------------------------------------------------------------------

@dataclass
class Row:
    function: str
    mutants: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    survivors: list[int] = field(default_factory=list)


def mutant_number(name: str) -> int:
    return int(name.rpartition("__mutmut_")[2])


def summarise(module: str, chosen: list[Function],
              exit_code_by_key: dict[str, int | None]) -> list[Row]:
    """One row per chosen function of ``module`` from mutmut's exit codes (the
    ``exit_code_by_key`` of its ``.meta`` file)."""
    rows = []
    for function in chosen:
        prefix = f"{module}.{function.key}__mutmut_"
        row = Row(f"{module}.{function.name}")
        for name in sorted((k for k in exit_code_by_key if k.startswith(prefix)),
                           key=mutant_number):
            status = STATUS.get(exit_code_by_key[name], "other")
            row.mutants += 1
            row.counts[status] = row.counts.get(status, 0) + 1
            if status == "survived":
                row.survivors.append(mutant_number(name))
        rows.append(row)
    return rows


def format_table(rows: list[Row]) -> str:
    """A Markdown table: function, mutants, killed, timeout, survived (with the numbers
    of the survivors), and any other outcome (no tests, not run, ...)."""
    lines = ["| function | mutants | killed | timeout | survived | other |",
             "|---|---|---|---|---|---|"]
    total = Row("**all**")
    for row in rows + [total]:
        if row is not total:
            total.mutants += row.mutants
            for status, count in row.counts.items():
                total.counts[status] = total.counts.get(status, 0) + count
        survived = str(row.counts.get("survived", 0))
        if row.survivors and row is not total:
            survived += " (" + ", ".join(map(str, row.survivors)) + ")"
        other = ", ".join(f"{count} {status}" for status, count in sorted(row.counts.items())
                          if status not in ("killed", "timeout", "survived"))
        lines.append(f"| {row.function} | {row.mutants} | {row.counts.get('killed', 0)} | "
                     f"{row.counts.get('timeout', 0)} | {survived} | {other} |")
    return "\n".join(lines)


# -- Running it ----------------------------------------------------------------------------

def toml_value(value) -> str:
    """A string or a list of strings as TOML (JSON's strings are TOML's basic strings)."""
    return json.dumps(value)


def mutmut_section(config: dict, only_mutate: list[str], tests: list[str],
                   keyword: str | None) -> str:
    """``[tool.mutmut]`` of ``config``, with ``only_mutate`` and the test selection
    replaced, and ``keyword`` added to its ``-k`` expression."""
    config = dict(config, only_mutate=only_mutate, pytest_add_cli_args_test_selection=tests)
    args = list(config.get("pytest_add_cli_args", []))
    if keyword:
        if "-k" in args:
            k = args.index("-k") + 1
            args[k] = f"({args[k]}) and ({keyword})"
        else:
            args += ["-k", keyword]
    config["pytest_add_cli_args"] = args
    lines = ["[tool.mutmut]"]
    for key, value in config.items():
        if isinstance(value, (bool, int, float)) and not isinstance(value, str):
            lines.append(f"{key} = {json.dumps(value)}")
        else:
            lines.append(f"{key} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


def replace_section(text: str, section: str) -> str:
    """``text`` (a pyproject.toml) with its ``[tool.mutmut]`` table replaced by
    ``section``."""
    out, skipping = [], False
    for line in text.splitlines(keepends=True):
        if re.match(r"\s*\[", line):
            skipping = line.strip() == "[tool.mutmut]"
        if not skipping:
            out.append(line)
    return "".join(out).rstrip("\n") + "\n\n" + section


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout


def changed(base: str, sources: list[str]) -> dict[str, list[Hunk] | None]:
    """Changed Python files under ``sources``, with their hunks (``None``: a new file,
    every line)."""
    start = git("merge-base", base, "HEAD").strip()
    diff = git("diff", "-U0", "--no-color", "--no-ext-diff", start, "--", *sources)
    files: dict[str, list[Hunk] | None] = dict(parse_diff(diff))
    for path in git("ls-files", "--others", "--exclude-standard", "--", *sources).split():
        files[path] = None
    return {path: hunks for path, hunks in files.items() if path.endswith(".py")}


def repository_path(path: str) -> str:
    """``path`` (absolute, relative to the working directory, or to the repository's
    root) relative to the repository's root."""
    given = Path(path)
    if not given.is_absolute() and (Path.cwd() / given).is_file():
        given = Path.cwd() / given
    if given.is_absolute():
        return given.resolve().relative_to(ROOT).as_posix()
    return given.as_posix()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="HEAD",
                        help="compare the working tree with the merge base of this ref and "
                             "HEAD (default HEAD: the uncommitted changes)")
    parser.add_argument("--module", action="append", default=[],
                        help="mutate every function of this module instead (repeatable)")
    parser.add_argument("--only", action="append", default=[], metavar="PATH",
                        help="keep only the functions of this module (repeatable)")
    parser.add_argument("--function", action="append", default=[], metavar="GLOB",
                        help="keep only the functions whose name (f, C.m) matches this "
                             "pattern (repeatable)")
    parser.add_argument("--tests", nargs="+", help="these test files instead")
    parser.add_argument("-k", dest="keyword", help="a pytest -k expression added to the "
                        "deselection of [tool.mutmut]")
    parser.add_argument("--any-module", action="store_true",
                        help="also modules outside only_mutate")
    parser.add_argument("--max-children", type=int, default=1)
    parser.add_argument("--workdir", type=Path, default=ROOT / ".mutate-changed")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the functions, patterns and tests; run nothing")
    options = parser.parse_args(argv)

    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    config = tomllib.loads(pyproject)["tool"]["mutmut"]
    sources = config.get("source_paths", ["verify"])
    if options.module:
        files = {repository_path(path): None for path in options.module}
    else:
        files = changed(options.base, sources)
    only = [repository_path(path) for path in options.only]
    chosen: dict[str, list[Function]] = {}
    for path, hunks in sorted(files.items()):
        if only and path not in only:
            continue
        if not options.any_module and not any(
                fnmatch.fnmatch(path, glob) for glob in config.get("only_mutate", ["*"])):
            print(f"skipped (not in only_mutate; --any-module takes it): {path}")
            continue
        source = (ROOT / path).read_text(encoding="utf-8")
        found = functions(source) if hunks is None else touched(source, hunks)
        if found:
            chosen[path] = found
    chosen = narrow(chosen, only, options.function)
    if not chosen:
        print("no changed function to mutate")
        return 0

    modules = {module_name(path) for path in chosen}
    if options.tests:
        tests = options.tests
    else:
        test_sources = {p.name: p.read_text(encoding="utf-8")
                        for p in sorted((ROOT / "tests").glob("*.py"))}
        packages = {module_name(str(p.relative_to(ROOT))): p.read_text(encoding="utf-8")
                    for source in sources for p in (ROOT / source).rglob("__init__.py")}
        tests = [f"tests/{name}" for name in reaching_tests(modules, test_sources, packages)]
    patterns = [pattern(module_name(path), f) for path, found in chosen.items() for f in found]
    for path, found in chosen.items():
        print(f"{path}: {', '.join(f.name for f in found)}")
    print(f"tests: {' '.join(tests) or '(none)'}")
    if not tests:
        print("no test file imports the changed modules")
        return 1
    if options.dry_run:
        print("patterns:", *patterns, sep="\n  ")
        return 0

    work = options.workdir.resolve()
    if work.exists():
        shutil.rmtree(work)
    for path in git("ls-files", "--cached", "--others", "--exclude-standard", "-z").split("\0"):
        if path and (ROOT / path).is_file():
            (work / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / path, work / path)
    section = mutmut_section(config, sorted(chosen), tests, options.keyword)
    (work / "pyproject.toml").write_text(replace_section(pyproject, section), encoding="utf-8")
    command = [sys.executable, "-c",
               "import sys; from mutmut.__main__ import cli; sys.argv[0] = 'mutmut'; cli()",
               "run", "--max-children", str(options.max_children), *patterns]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run(command, cwd=work, env=env)

    rows = []
    for path, found in chosen.items():
        meta = work / "mutants" / f"{path}.meta"
        codes = json.loads(meta.read_text())["exit_code_by_key"] if meta.exists() else {}
        rows += summarise(module_name(path), found, codes)
    print()
    print(format_table(rows))
    print(f"\nin {work}: `mutmut show NAME` prints a mutant, e.g. "
          f"{module_name(next(iter(chosen)))}.{next(iter(chosen.values()))[0].key}__mutmut_1")
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
