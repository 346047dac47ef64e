"""Every fenced code block of README.md and docs/*.md runs as it is written.

Each document runs top to bottom in its own temporary directory holding a copy of
``examples/`` and an empty ``docs/figures/``:

* ```` ```bash ````, ```` ```sh ```` and ```` ```console ```` blocks command by command
  (in ``console`` blocks the lines after ``$ ``; a trailing ``\\`` continues a command).
  A command must start with ``python``, which runs this interpreter with this checkout
  first on ``PYTHONPATH``. Its exit status must be 0, or 2 where the block shows
  ``verify: error:``, or 1 where it shows ``INVALID``; every output line a ``console``
  block shows must appear, in order, in what the command prints (stdout and stderr;
  ``...`` and ``…`` stand for anything, and so do timings such as ``(0.7 s)``).
* ```` ```python ```` blocks in one namespace per document: with ``>>>`` through
  :mod:`doctest` (``ELLIPSIS``), otherwise executed as a script.
* A block preceded by ``<!-- not run: REASON -->`` is not run (a command that takes
  minutes, or needs data outside the repository); ``NOT_RUN_BLOCKS`` lists them all.
* Other blocks (``json``, ``text``, unlabelled) show formats and outputs; they are not
  code.
"""

import doctest
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = {"bash", "sh", "console"}
PYTHON = {"python", "py", "pycon"}
SHOWN = {"", "json", "jsonl", "text", "csv"}  # formats and outputs: not code
NOT_RUN = re.compile(r"<!--\s*not run:\s*(.*?)\s*-->")
COMMAND_TIMEOUT = 300


@dataclass
class Block:
    path: Path
    line: int  # of the opening fence, from 1
    lang: str
    text: str
    not_run: str | None  # the reason, if the block is marked

    @property
    def where(self) -> str:
        return f"{self.path.name}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found, k = [], 0
    while k < len(lines):
        fence = re.match(r"^( *)(`{3,}|~{3,})\s*([\w+-]*)", lines[k])
        if not fence:
            k += 1
            continue
        indent, marks, lang = fence.groups()
        start, body, k = k, [], k + 1
        while k < len(lines) and not lines[k].strip().startswith(marks):
            line = lines[k]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            k += 1
        if k == len(lines):
            raise AssertionError(f"{path.name}:{start + 1}: unclosed code block")
        before = start - 1
        while before >= 0 and not lines[before].strip():
            before -= 1
        marker = NOT_RUN.search(lines[before]) if before >= 0 else None
        found.append(Block(path, start + 1, lang.lower(), "\n".join(body) + "\n",
                           marker.group(1) if marker else None))
        k += 1
    return found


@dataclass
class Command:
    line: int
    text: str
    shown: list[str]  # output lines the block shows after it


def commands(block: Block) -> list[Command]:
    """The commands of a shell block, each with the output the block shows for it."""
    found, pending = [], None
    for k, raw in enumerate(block.text.splitlines()):
        line = block.line + 1 + k
        if pending is not None:  # a continued command
            pending.text += " " + raw.strip()
        elif block.lang == "console" and not raw.startswith("$ "):
            if raw.strip():
                if not found:
                    raise AssertionError(f"{block.path.name}:{line}: output before any "
                                         "'$ ' command")
                found[-1].shown.append(raw)
            continue
        else:
            text = raw[2:] if block.lang == "console" else raw
            if not text.strip() or text.lstrip().startswith("#"):
                continue
            pending = Command(line, text.strip(), [])
        if pending.text.endswith("\\"):
            pending.text = pending.text[:-1].rstrip()
        else:
            found.append(pending)
            pending = None
    if pending is not None:
        raise AssertionError(f"{block.where}: the block ends inside a continued command")
    return found


def _pattern(shown: str) -> re.Pattern:
    """A shown output line as a pattern: ``...``/``…`` and timings match anything."""
    parts = re.split(r"(\.\.\.|…|\d+(?:\.\d+)? (?:s|ms|min)\b)", shown.strip())
    return re.compile(".*".join(re.escape(p) for p in parts[::2]))


def _expected_status(shown: list[str]) -> int:
    if any(line.startswith("verify: error:") for line in shown):
        return 2
    if any(": INVALID" in line for line in shown):
        return 1
    return 0


def _environment(workdir: Path) -> dict:
    bin_dir = workdir / ".bin"
    bin_dir.mkdir(exist_ok=True)
    python = bin_dir / "python"
    if not python.exists():
        python.symlink_to(sys.executable)
    return dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
                PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
                MPLBACKEND="Agg", COLUMNS="100")


def run_command(command: Command, block: Block, workdir: Path) -> None:
    where = f"{block.path.name}:{command.line}"
    if not re.match(r"python\d*(\s|$)", command.text):
        raise AssertionError(f"{where}: only python commands run here: {command.text!r}; "
                             "mark the block <!-- not run: REASON --> if it is not to run")
    shlex.split(command.text)  # a command that does not parse is a documentation bug
    run = subprocess.run(command.text, shell=True, executable="/bin/bash", cwd=workdir,
                         env=_environment(workdir), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=COMMAND_TIMEOUT)
    expected = _expected_status(command.shown)
    if run.returncode != expected:
        raise AssertionError(f"{where}: {command.text!r} exited with {run.returncode}, "
                             f"expected {expected}:\n{run.stdout[-3000:]}")
    printed = [line.strip() for line in run.stdout.splitlines()]
    k = 0
    for shown in command.shown:
        pattern = _pattern(shown)
        while k < len(printed) and not pattern.fullmatch(printed[k]):
            k += 1
        if k == len(printed):
            raise AssertionError(f"{where}: {command.text!r} did not print (in this order) "
                                 f"{shown.strip()!r}; it printed:\n{run.stdout[-3000:]}")
        k += 1


def run_python(block: Block, namespace: dict) -> None:
    if ">>>" in block.text:
        test = doctest.DocTestParser().get_doctest(block.text, namespace, block.where,
                                                   str(block.path), block.line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        out = []
        runner.run(test, out=out.append, clear_globs=False)
        namespace.update(test.globs)
        if runner.failures:
            raise AssertionError("".join(out))
    else:
        exec(compile(block.text, f"{block.where}", "exec"), namespace)


def run_document(path: Path, workdir: Path) -> dict:
    """Run every block of ``path`` in ``workdir``; return the counts by what was done."""
    shutil.copytree(ROOT / "examples", workdir / "examples", dirs_exist_ok=True)
    (workdir / "docs" / "figures").mkdir(parents=True, exist_ok=True)
    namespace = {"__name__": "__main__"}
    counts = {"commands": 0, "python": 0, "not run": 0, "shown": 0}
    here = Path.cwd()
    os.chdir(workdir)
    try:
        for block in blocks(path):
            if block.lang not in SHELL | PYTHON | SHOWN:
                raise AssertionError(f"{block.where}: unknown block language {block.lang!r}")
            if block.not_run is not None:
                counts["not run"] += 1
            elif block.lang in SHELL:
                for command in commands(block):
                    run_command(command, block, workdir)
                    counts["commands"] += 1
            elif block.lang in PYTHON:
                run_python(block, namespace)
                counts["python"] += 1
            else:
                counts["shown"] += 1
    finally:
        os.chdir(here)
    return counts


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_document_runs(path, tmp_path):
    counts = run_document(path, tmp_path)
    print(f"{path.name}: {counts}")


# Every block that is not run, by document and reason: a new one is added here on purpose.
NOT_RUN_BLOCKS = {
    ("README.md", "installs the package and runs the whole test suite (.ci/run runs these "
                  "two commands)"),
    ("README.md", "needs the trained head's W and b saved from its package"),
    ("README.md", "needs the same trained head, over its inputs x >= 0"),
    ("checkpoints.md", "needs the bert-base-uncased checkpoint"),
    ("testing.md", "runs the test suite, which takes minutes"),
    ("testing.md", "a mutation run takes hours"),
}


def test_blocks_not_run():
    """The blocks that are not run are few, each with its reason, and listed above."""
    marked = [block for path in DOCUMENTS for block in blocks(path)
              if block.not_run is not None]
    for block in marked:
        print(f"not run: {block.where} ({block.lang}): {block.not_run}")
        assert block.lang in SHELL | PYTHON, f"{block.where}: only code is marked"
    assert {(block.path.name, block.not_run) for block in marked} == NOT_RUN_BLOCKS
    assert len(marked) == len(NOT_RUN_BLOCKS)


def test_every_document_runs_code():
    runnable = {path.name: sum(b.lang in SHELL | PYTHON and b.not_run is None
                               for b in blocks(path)) for path in DOCUMENTS}
    for name in ("README.md", "api.md", "analyze.md", "certificates.md"):
        assert runnable[name] > 0, runnable


# The runner itself: each kind of mistake in a document is caught.

def _document(tmp_path, text: str) -> Path:
    path = tmp_path / "doc.md"
    path.write_text(text)
    return path


@pytest.mark.parametrize("text, problem", [
    ("```console\n$ python -c 'import sys; sys.exit(3)'\n```\n", "exited with 3, expected 0"),
    ("```console\n$ python -c 'print(1)'\n2\n```\n", "did not print"),
    ("```console\n$ python -c 'print(2); print(1)'\n1\n2\n```\n", "did not print"),
    ("```console\n$ python -c 'print(1)'\nverify: error: x\n```\n", "expected 2"),
    ("```bash\nls\n```\n", "only python commands"),
    ("```bash\npython -c 'raise SystemExit(1)'\n```\n", "exited with 1"),
    ("```console\noutput first\n```\n", "output before any"),
    ("```python\nx = 1\n```\n```python\n>>> x + 1\n3\n```\n", "Expected:\n    3"),
    ("```python\nraise RuntimeError('wrong')\n```\n", "wrong"),
    ("```python\nundefined_name\n```\n", "undefined_name"),
    ("```rust\nfn main() {}\n```\n", "unknown block language"),
    ("```console\n$ python -c 'print(1)' \\\n```\n", "inside a continued command"),
    ("```python\nx = 1\n", "unclosed"),
    ("* a list item:\n\n  ```console\n  $ python -c 'print(1)'\n  2\n  ```\n", "did not print"),
])
def test_the_runner_catches(tmp_path, text, problem):
    with pytest.raises(Exception, match=re.escape(problem)):
        run_document(_document(tmp_path, text), tmp_path / "run")


def test_the_runner_passes_and_skips(tmp_path):
    text = ("```console\n$ python -c 'print(\"took 0.4 s\"); print(\"a b c\")' \\\n"
            "    > out.txt\n$ python -c 'print(open(\"out.txt\").read())'\ntook 9.1 s\n"
            "a ... c\n$ python -m verify pattern --matrix missing.json\n"
            "verify: error: ...\n```\n"
            "<!-- not run: takes a week -->\n\n```bash\npython -c 'raise SystemExit(1)'\n```\n"
            "```python\n>>> y = 2\n```\n```python\nassert y == 2\n```\n```json\n{...}\n```\n")
    (tmp_path / "run").mkdir()
    counts = run_document(_document(tmp_path, text), tmp_path / "run")
    assert counts == {"commands": 3, "python": 2, "not run": 1, "shown": 1}
    assert [b.not_run for b in blocks(tmp_path / "doc.md")] == [None, "takes a week", None,
                                                                 None, None]


# Links: every relative link of a document leads to a file of the repository, and an
# anchor to a heading of that file.

def _anchors(path: Path) -> set[str]:
    anchors, seen = set(), {}
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if re.match(r"^ *(`{3,}|~{3,})", line):
            in_code = not in_code
        heading = None if in_code else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            slug = re.sub(r"[^\w\- ]", "", heading.group(1).lower()).replace(" ", "-")
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            anchors.add(slug if count == 0 else f"{slug}-{count}")
            anchors.add(slug.strip("-"))  # renderers differ on punctuation at the ends
    return anchors


def links(path: Path) -> list[tuple[int, str]]:
    found, in_code = [], False
    for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if re.match(r"^ *(`{3,}|~{3,})", line):
            in_code = not in_code
        if not in_code:
            found += [(k, target) for target in re.findall(r"\]\(([^)\s]+)\)", line)]
    return found


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    broken = []
    for line, target in links(path):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        resolved = (path.parent / file).resolve() if file else path
        if root not in resolved.parents and resolved != root:
            broken.append(f"{path.name}:{line}: {target} leaves the repository")
        elif not resolved.exists():
            broken.append(f"{path.name}:{line}: {target} does not exist")
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(f"{path.name}:{line}: {target}: no heading #{anchor}")
    return broken


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_lead_somewhere_in_the_repository(path):
    assert broken_links(path) == []
    text = path.read_text(encoding="utf-8")
    assert "../shared" not in text and "CLAIMS.md" not in text


def test_broken_links_are_found(tmp_path):
    doc = tmp_path / "docs" / "doc.md"
    doc.parent.mkdir()
    (tmp_path / "docs" / "other.md").write_text("# Title\n## Size and time\n## Size and time\n")
    (tmp_path.parent / "outside.md").write_text("# Outside\n")
    doc.write_text("[a](other.md#size-and-time-1) [b](other.md#title) [c](https://x.org)\n"
                   "[d](missing.md) [e](other.md#nothing) [f](#here) [g](#there)\n# Here\n"
                   "```\n[h](inside-code.md)\n```\n[i](../../outside.md)\n")
    assert broken_links(doc, root=tmp_path) == [
        "doc.md:2: missing.md does not exist", "doc.md:2: other.md#nothing: no heading #nothing",
        "doc.md:2: #there: no heading #there", "doc.md:7: ../../outside.md leaves the repository"]


def test_the_readme_starts_with_the_commands_ci_runs():
    """The README's first block is the set-up command (which also runs the main job) and
    the test command; `.ci/run` runs the same two."""
    first = blocks(ROOT / "README.md")[0]
    setup, test = [line.strip() for line in first.text.splitlines() if line.strip()]
    install, _, main_job = setup.partition(" && ")
    assert install == "python -m pip install -e '.[test]'"
    assert main_job.startswith("python -m verify ")
    assert test == "python -m pytest -q"
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert any(line.startswith("python -m pip install") and line.endswith("-e '.[test]'")
               for line in ci), ci
    assert any(line.startswith(test) for line in ci), ci


def test_the_claims_page_covers_every_claim_in_order():
    from verify.claims.registry import ORDER

    text = (ROOT / "docs" / "claims.md").read_text(encoding="utf-8")
    table = text[text.index("## Every claim at a glance"):]
    rows = re.findall(r"^\| ([a-zA-Z][^|]*?) \| .* \| `python -m verify ([^`\[]*?)\s*(?:\[.*)?` \|$",
                      table, flags=re.M)
    assert [claim for claim, _ in rows] == list(ORDER)
    assert all(command == claim or command.startswith(claim + " ") for claim, command in rows)
    explained = text[:text.index("## Every claim at a glance")]
    for claim in ORDER:  # and each is explained above the table, in bold
        name = claim.split()[-1] if claim.startswith("steck") else claim[0].upper() + claim[1:]
        assert f"**{name}." in explained or f"**{name}**" in explained, claim
