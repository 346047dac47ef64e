"""The import contract of ``verify`` (``docs/architecture.md``): layers, one way, no cycles.

Every import of every module under ``verify/`` is read from its syntax tree, including
imports inside functions (deferred imports still make a cycle) and module names given
as strings to ``import_module``. The contract:

1. every module belongs to exactly one layer of ``LAYERS`` or to the checker;
2. a module imports only from its own layer and the layers below it;
3. the checker (``verify/checker/``) imports only the standard library and itself, and
   its modules share only public names; only the top layer may import it;
4. the graph of imports between modules has no cycle but the two of ``KNOWN_CYCLES``.

The detectors are pure functions of a module graph, so the tests below also show them
failing on graphs with a cycle or an upward import, real and synthetic.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Bottom to top; a module may import its own layer and the layers below it.
LAYERS = [
    ("verify.numbers", "verify.data"),
    ("verify.io",),
    ("verify.linalg",),
    ("verify.lp",),
    ("verify.arrangement",),
    ("verify.analyze",),
    ("verify.certificates",),
    ("verify.claims",),
    ("verify", "verify.__main__", "verify.api", "verify.cli"),
]
CHECKER = "verify.checker"
TOP = len(LAYERS) - 1

#: Cycles that stay, each with its reason. The test fails on any other cycle, and when
#: one of these disappears (then delete it here).
KNOWN_CYCLES = [
    # The checker's core loads the modules that build on it by name, when a
    # certificate needs them (core.ELSEWHERE, core.STREAMED), so that a reviewer of a
    # pattern certificate reads core.py alone and nothing else is imported.
    ["verify.checker.analyze", "verify.checker.claims", "verify.checker.core",
     "verify.checker.roots", "verify.checker.stream"],
]


def modules_of(root: Path, package: str = "verify") -> dict[str, Path]:
    """Module name -> file, for every ``.py`` file of ``package`` under ``root``."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module
    base = module.split(".")[: len(module.split(".")) - node.level + is_package]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(modules: dict[str, Path], package: str = "verify"):
    """Module name -> set of (imported module of ``package``, imported names)."""
    graph = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                edges.update((alias.name, ()) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                target = _absolute(node, module, path.name == "__init__.py")
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    edges.add((sub, ()) if sub in modules else (target, (alias.name,)))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                name = node.value.split(":")[0]  # "verify.x.y" or "verify.x.y:function"
                if "." in name and name in modules and name != module:
                    edges.add((name, ()))
        graph[module] = {(target, names) for target, names in edges
                         if target == package or target.startswith(package + ".")}
    return graph


def module_graph(imports) -> dict[str, set[str]]:
    return {module: {target for target, _ in edges if target != module}
            for module, edges in imports.items()}


def layer_of(module: str, layers=LAYERS) -> int | None:
    """Index of the layer of ``module`` (longest matching prefix), None for the checker
    or a module of no layer."""
    best, depth = None, -1
    for index, prefixes in enumerate(layers):
        for prefix in prefixes:
            if prefix == "verify" and module != "verify":
                continue  # the package itself, not everything under it
            if (module == prefix or module.startswith(prefix + ".")) and \
                    len(prefix) > depth:
                best, depth = index, len(prefix)
    return best


def in_checker(module: str) -> bool:
    return module == CHECKER or module.startswith(CHECKER + ".")


def unassigned(graph, layers=LAYERS) -> list[str]:
    return sorted(m for m in graph if not in_checker(m) and layer_of(m, layers) is None)


def upward_imports(graph, layers=LAYERS) -> list[tuple[str, str]]:
    """Imports that run from a lower layer into a higher one, or into the checker from
    anywhere below the top."""
    bad = []
    for module, targets in graph.items():
        if in_checker(module):
            continue
        here = layer_of(module, layers)
        for target in targets:
            there = TOP if in_checker(target) else layer_of(target, layers)
            if here is not None and there is not None and there > here:
                bad.append((module, target))
    return sorted(bad)


def cycles(graph) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan 1972), each
    sorted; every cycle of the graph lies inside one of them."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(found)


def checker_violations(imports) -> list[str]:
    """Checker modules importing outside the standard library and the checker, or
    private names of each other."""
    bad = []
    for module, edges in imports.items():
        if not in_checker(module):
            continue
        for target, names in edges:
            if not in_checker(target):
                bad.append(f"{module} imports {target}")
            bad.extend(f"{module} imports the private name {target}.{name}"
                       for name in names if name.startswith("_"))
    return sorted(bad)


def third_party_in_checker(modules) -> list[str]:
    bad = []
    for module, path in modules.items():
        if not in_checker(module):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0
                     else [])
            bad.extend(f"{module} imports {name}" for name in names
                       if name.split(".")[0] not in sys.stdlib_module_names
                       and name.split(".")[0] not in ("__future__", "verify"))
    return bad


MODULES = modules_of(ROOT)
IMPORTS = imports_of(MODULES)
GRAPH = module_graph(IMPORTS)


# --- the contract, on the package as it is ------------------------------------------


def test_the_walk_sees_the_package():
    assert "verify.cli" in GRAPH and "verify.checker.core" in GRAPH
    assert "verify.lp.feasibility" in GRAPH["verify.arrangement.graph_search"]
    # a deferred import inside a function is an edge too
    assert "verify.analyze.command" in GRAPH["verify.cli"]


def test_every_module_has_a_layer():
    assert unassigned(GRAPH) == []


def test_no_import_runs_up_the_layers():
    assert upward_imports(GRAPH) == []


def test_no_import_cycle():
    assert cycles(GRAPH) == KNOWN_CYCLES


def test_the_checker_stands_apart():
    assert checker_violations(IMPORTS) == []
    assert third_party_in_checker(MODULES) == []
    importers = sorted(m for m, targets in GRAPH.items() if not in_checker(m)
                       and any(in_checker(t) for t in targets))
    assert all(layer_of(m) == TOP for m in importers), importers


# --- the detectors fail when the contract is broken ---------------------------------


def test_a_cycle_introduced_into_the_package_is_found():
    # every import of the package, reversed, closes a cycle that the detector sees
    edges = sorted((m, t) for m, targets in GRAPH.items() for t in targets)
    assert len(edges) > 100
    for module, target in edges:
        broken = {m: set(t) for m, t in GRAPH.items()}
        broken[target].add(module)
        assert any({module, target} <= set(c) for c in cycles(broken)), (module, target)
    broken = {m: set(t) for m, t in GRAPH.items()}
    broken["verify.numbers.rational"].add("verify.cli")  # through every layer
    (component,) = [c for c in cycles(broken) if c not in KNOWN_CYCLES]
    assert {"verify.numbers.rational", "verify.cli"} <= set(component)
    assert ("verify.numbers.rational", "verify.cli") in upward_imports(broken)


def test_detectors_on_synthetic_graphs():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}) == [["a", "b"],
                                                                      ["c", "d"]]
    layers = [("verify.low",), ("verify.high",)]
    graph = {"verify.low.x": {"verify.high.y"}, "verify.high.y": {"verify.low.z"},
             "verify.low.z": set(), "verify.odd": set()}
    assert upward_imports(graph, layers) == [("verify.low.x", "verify.high.y")]
    assert unassigned(graph, layers) == ["verify.odd"]
    assert upward_imports({"verify.low.x": {"verify.checker.core"}}, layers) == [
        ("verify.low.x", "verify.checker.core")]


def test_the_walk_finds_a_cycle_written_in_files(tmp_path):
    """A package on disk whose two modules import each other, one of them only inside a
    function and one by a relative import; a checker module that imports a private
    name of another and one that imports the engine."""
    package = tmp_path / "verify"
    (package / "lp").mkdir(parents=True)
    (package / "checker").mkdir()
    for init in (package, package / "lp", package / "checker"):
        (init / "__init__.py").write_text("")
    (package / "lp" / "a.py").write_text("from .b import g\n")
    (package / "lp" / "b.py").write_text("def g():\n    from verify.lp.a import f\n")
    (package / "checker" / "one.py").write_text("from verify.checker.two import _hidden\n")
    (package / "checker" / "two.py").write_text("import json\nfrom verify.lp import a\n")
    imports = imports_of(modules_of(tmp_path))
    assert cycles(module_graph(imports)) == [["verify.lp.a", "verify.lp.b"]]
    assert checker_violations(imports) == [
        "verify.checker.one imports the private name verify.checker.two._hidden",
        "verify.checker.two imports verify.lp.a"]


@pytest.mark.parametrize("module", sorted(m for m in MODULES if in_checker(m)))
def test_checker_module_parses_without_the_engine(module):
    """Each checker module names only the standard library and ``verify.checker``."""
    assert third_party_in_checker({module: MODULES[module]}) == []
