"""The pure parts of ``tools/mutate_changed.py``: a diff to the functions mutmut names,
the test files that reach a module, the configuration of the copy, and the table. No
mutmut run: each part is compared with what it must give on small hand-made inputs, and
the function names with those mutmut itself gives where it is installed."""

import importlib.util
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("mutate_changed",
                                               ROOT / "tools" / "mutate_changed.py")
mc = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("mutate_changed", mc)  # dataclasses look their module up
_spec.loader.exec_module(mc)

SOURCE = textwrap.dedent('''\
    """A module."""
    import functools

    LIMIT = 3


    def first(x):
        return x + 1


    @functools.cache
    def second(x):
        def inner(y):
            return y * 2
        return inner(x)


    class Table:
        size = 2

        def __init__(self):
            self.rows = []

        @staticmethod
        def empty():
            return Table()

        class Cell:
            def value(self):
                return 0


    async def third():
        return LIMIT
    ''')
# lines: first 7-8, second 11-15 (decorator 11), Table.__init__ 21-22,
# Table.empty 24-26, Table.Cell.value 29-30, third 33-34


def test_functions_are_named_as_mutmut_names_them():
    found = mc.functions(SOURCE)
    assert [(f.key, f.first, f.last) for f in found] == [
        ("x_first", 7, 8), ("x_second", 11, 15), ("xǁTableǁ__init__", 21, 22),
        ("xǁTableǁempty", 24, 26), ("xǁTable.Cellǁvalue", 29, 30), ("x_third", 33, 34)]
    assert [f.name for f in found] == ["first", "second", "Table.__init__", "Table.empty",
                                       "Table.Cell.value", "third"]


def test_mutmut_gives_the_same_keys():
    file_mutation = pytest.importorskip("mutmut.mutation.file_mutation")
    assert set(file_mutation.compute_function_hashes(SOURCE)) == {
        f.key for f in mc.functions(SOURCE)}


@pytest.mark.parametrize("hunks, expected", [
    ([mc.Hunk(8, 1)], ["first"]),
    ([mc.Hunk(11, 1)], ["second"]),  # the decorator
    ([mc.Hunk(14, 1)], ["second"]),  # a nested function belongs to the outer one
    ([mc.Hunk(4, 1)], []),  # a module constant: no function
    ([mc.Hunk(19, 1)], []),  # a class attribute
    ([mc.Hunk(8, 4)], ["first", "second"]),  # one hunk across two functions
    ([mc.Hunk(26, 5)], ["Table.empty", "Table.Cell.value"]),
    ([mc.Hunk(34, 1), mc.Hunk(7, 1)], ["first", "third"]),  # in file order
    ([mc.Hunk(7, 0)], ["first"]),  # lines deleted between 7 and 8
    ([mc.Hunk(8, 0)], []),  # deleted after the end of first: between functions
    ([mc.Hunk(11, 0)], ["second"]),  # deleted between the decorator and the def
    ([mc.Hunk(10, 0)], []),  # deleted just before the decorator
    ([mc.Hunk(0, 0)], []),
])
def test_changed_lines_select_the_functions_that_hold_them(hunks, expected):
    assert [f.name for f in mc.touched(SOURCE, hunks)] == expected


DIFF = textwrap.dedent('''\
    diff --git a/verify/a.py b/verify/a.py
    index 1111111..2222222 100644
    --- a/verify/a.py
    +++ b/verify/a.py
    @@ -8 +8 @@ def first(x):
    -    return x
    +    return x + 1
    @@ -20,0 +21,2 @@ class Table:
    +        self.rows = []
    +        self.cols = []
    @@ -40,3 +42,0 @@ def x():
    -    a
    -    b
    -    c
    diff --git a/verify/gone.py b/verify/gone.py
    deleted file mode 100644
    --- a/verify/gone.py
    +++ /dev/null
    @@ -1,2 +0,0 @@
    -x = 1
    -y = 2
    diff --git a/verify/old.py b/verify/pkg/new.py
    similarity index 90%
    rename from verify/old.py
    rename to verify/pkg/new.py
    --- a/verify/old.py
    +++ b/verify/pkg/new.py
    @@ -3,0 +4 @@
    +z = 3
    ''')


def test_the_diff_gives_the_new_lines_of_each_file():
    assert mc.parse_diff(DIFF) == {
        "verify/a.py": [mc.Hunk(8, 1), mc.Hunk(21, 2), mc.Hunk(42, 0)],
        "verify/pkg/new.py": [mc.Hunk(4, 1)]}
    assert mc.parse_diff("") == {}
    with pytest.raises(ValueError, match="not a hunk header"):
        mc.parse_diff("+++ b/x.py\n@@ nonsense @@\n")


def test_module_names_and_patterns():
    assert mc.module_name("verify/arrangement/whitney.py") == "verify.arrangement.whitney"
    assert mc.module_name("verify/arrangement/__init__.py") == "verify.arrangement"
    method = mc.functions(SOURCE)[2]
    assert mc.pattern("verify.m", method) == "verify.m.xǁTableǁ__init____mutmut_*"


def test_tests_that_import_a_module_directly_or_through_helpers_and_packages():
    tests = {
        "test_direct.py": "from verify.arrangement.whitney import whitney_number\n",
        "test_module.py": "import verify.arrangement.whitney as w\n",
        "test_from_package.py": "from verify.arrangement import whitney\n",
        "test_helper.py": "from helper import thing\n",
        "test_tests_helper.py": "import tests.helper\n",
        "test_reexport.py": "from verify.arrangement import sign_pattern\n",
        "test_other.py": "from verify.lp import feasibility\nimport whitney\n",
        "test_nested.py": "def f():\n    from verify.arrangement.whitney import x\n",
        "helper.py": "from deeper import y\n",
        "deeper.py": "import verify.arrangement.whitney\n",
        "conftest.py": "import verify.arrangement.whitney\n",  # not a test file
    }
    packages = {"verify.arrangement": "from verify.arrangement.zaslavsky import cell_count\n",
                "verify": ""}
    assert mc.reaching_tests({"verify.arrangement.whitney"}, tests, packages) == [
        "test_direct.py", "test_from_package.py", "test_helper.py", "test_module.py",
        "test_nested.py", "test_tests_helper.py"]
    # zaslavsky is reached through the package that re-exports from it
    assert mc.reaching_tests({"verify.arrangement.zaslavsky"}, tests, packages) == [
        "test_from_package.py", "test_reexport.py"]
    assert mc.reaching_tests({"verify.lp.feasibility"}, tests, packages) == ["test_other.py"]
    assert mc.reaching_tests({"verify.nothing"}, tests, packages) == []


def test_the_copy_differs_only_in_what_is_mutated_and_the_tests():
    text = textwrap.dedent('''\
        [project]
        name = "x"

        [tool.mutmut]
        source_paths = ["verify"]
        only_mutate = ["verify/*.py"]
        pytest_add_cli_args = ["-p", "no:cacheprovider", "-k", "not slow"]
        timeout_multiplier = 3.0
        pytest_add_cli_args_test_selection = ["tests/test_a.py"]

        [tool.other]
        key = "ǁ"
        ''')
    config = tomllib.loads(text)["tool"]["mutmut"]
    section = mc.mutmut_section(config, ["verify/b.py"], ["tests/test_b.py"], "not big")
    new = tomllib.loads(mc.replace_section(text, section))
    assert new["project"] == {"name": "x"} and new["tool"]["other"] == {"key": "ǁ"}
    assert new["tool"]["mutmut"] == {
        "source_paths": ["verify"], "only_mutate": ["verify/b.py"],
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-k", "(not slow) and (not big)"],
        "timeout_multiplier": 3.0, "pytest_add_cli_args_test_selection": ["tests/test_b.py"]}
    plain = mc.mutmut_section({"pytest_add_cli_args": []}, [], [], "not big")
    assert tomllib.loads(plain)["tool"]["mutmut"]["pytest_add_cli_args"] == ["-k", "not big"]
    unchanged = mc.mutmut_section(config, ["verify/b.py"], [], None)
    assert tomllib.loads(unchanged)["tool"]["mutmut"]["pytest_add_cli_args"] == \
        config["pytest_add_cli_args"]


def test_the_project_configuration_round_trips():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    config = data["tool"]["mutmut"]
    copy = tomllib.loads(mc.replace_section(text, mc.mutmut_section(
        config, config["only_mutate"], config["pytest_add_cli_args_test_selection"], None)))
    assert copy == data


def test_the_table_counts_each_outcome_and_names_the_survivors():
    functions = mc.functions(SOURCE)
    codes = {
        "verify.m.x_first__mutmut_1": 1, "verify.m.x_first__mutmut_2": 0,
        "verify.m.x_first__mutmut_10": 0, "verify.m.x_first__mutmut_3": 36,
        "verify.m.x_first__mutmut_4": 3, "verify.m.x_firstly__mutmut_1": 0,  # not first
        "verify.m.xǁTableǁ__init____mutmut_1": 33, "verify.m.xǁTableǁ__init____mutmut_2": None,
        "verify.m.xǁTableǁ__init____mutmut_3": -11,
    }
    rows = mc.summarise("verify.m", [functions[0], functions[2], functions[5]], codes)
    assert [(r.function, r.mutants, r.counts, r.survivors) for r in rows] == [
        ("verify.m.first", 5, {"killed": 2, "survived": 2, "timeout": 1}, [2, 10]),
        ("verify.m.Table.__init__", 3, {"no tests": 1, "not run": 1, "other": 1}, []),
        ("verify.m.third", 0, {}, [])]
    assert mc.format_table(rows).splitlines() == [
        "| function | mutants | killed | timeout | survived | other |",
        "|---|---|---|---|---|---|",
        "| verify.m.first | 5 | 2 | 1 | 2 (2, 10) |  |",
        "| verify.m.Table.__init__ | 3 | 0 | 0 | 0 | 1 no tests, 1 not run, 1 other |",
        "| verify.m.third | 0 | 0 | 0 | 0 |  |",
        "| **all** | 8 | 2 | 1 | 2 | 1 no tests, 1 not run, 1 other |"]


def test_module_paths_are_taken_relative_to_the_repository(monkeypatch, tmp_path):
    assert mc.repository_path(str(ROOT / "verify" / "api.py")) == "verify/api.py"
    assert mc.repository_path("verify/api.py") == "verify/api.py"
    monkeypatch.chdir(ROOT / "verify")
    assert mc.repository_path("api.py") == "verify/api.py"
    monkeypatch.chdir(tmp_path)  # not a file here: relative to the root
    assert mc.repository_path("verify/lp/feasibility.py") == "verify/lp/feasibility.py"


def test_only_and_function_narrow_the_changed_functions():
    found = mc.functions(SOURCE)
    chosen = {"verify/a.py": found, "verify/b.py": found[:2]}
    names = lambda kept: {p: [f.name for f in fs] for p, fs in kept.items()}  # noqa: E731
    assert mc.narrow(chosen, [], []) == chosen
    assert names(mc.narrow(chosen, ["verify/b.py"], [])) == {"verify/b.py": ["first", "second"]}
    assert names(mc.narrow(chosen, [], ["Table.*"])) == {
        "verify/a.py": ["Table.__init__", "Table.empty", "Table.Cell.value"]}
    assert names(mc.narrow(chosen, ["verify/a.py"], ["third", "s*"])) == {
        "verify/a.py": ["second", "third"]}
    assert names(mc.narrow(chosen, [], ["Third"])) == {}  # case counts
    assert mc.narrow(chosen, ["verify/c.py"], []) == {}


def test_only_and_function_on_the_command_line(capsys):
    assert mc.main(["--module", "verify/arrangement/zaslavsky.py", "--module",
                    "verify/arrangement/whitney.py", "--only",
                    "verify/arrangement/zaslavsky.py", "--function", "cell_*",
                    "--tests", "tests/test_whitney_count.py", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "verify/arrangement/zaslavsky.py: cell_count\n" in out
    assert "whitney.py" not in out
    assert "patterns:\n  verify.arrangement.zaslavsky.x_cell_count__mutmut_*\n" in out
    assert mc.main(["--module", "verify/arrangement/zaslavsky.py", "--function", "nothing",
                    "--dry-run"]) == 0
    assert "no changed function to mutate" in capsys.readouterr().out
