"""The docs: generated pages are current, the README is short and its links resolve, the `tools/gen_docs.py`
command checks and writes the pages. The makers of each page are tested in tests/tools/."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from amlkit.policies import ALL_RULES
from tests.components.documented import default_advisories
from tools import gen_docs
from tools.docs.components import component_reference

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
README_LIMIT = 20 * 1024


# --- generated pages are current, the README is short, links resolve ---------------------------------


def test_every_generated_page_is_current() -> None:
    stale = gen_docs.stale_pages(ROOT)
    assert stale == {}, "".join(stale.values()) + "\nstale generated pages: run `make docs` and commit docs/"


@pytest.mark.slow
def test_check_command_passes_on_the_committed_pages() -> None:
    result = subprocess.run([sys.executable, "tools/gen_docs.py", "--check"], capture_output=True, text=True,
                            check=False, cwd=ROOT)
    assert (result.returncode, result.stderr, result.stdout) == (0, "", "generated pages are up to date\n")


def test_the_readme_stays_under_20_kb() -> None:
    assert README.stat().st_size <= README_LIMIT, "README.md is over 20 KB: move detail into a docs/ page"


_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _markdown_files() -> list[Path]:
    return [README, *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("page", _markdown_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    """Each relative link of the README and the docs names a file (and, with #anchor, a heading) that exists."""
    broken = []
    for target in _LINK.findall(page.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists() or anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(target)
    assert broken == []


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lowercase, punctuation dropped, spaces to dashes."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def test_every_rule_url_is_its_generated_page() -> None:
    pages = gen_docs.generated_pages()
    for rule in ALL_RULES:
        assert rule.docs_url == f"https://github.com/amlkit/amlkit/blob/main/docs/rules/{rule.name}.md"
        assert f"docs/rules/{rule.name}.md" in pages
        assert f"<{rule.url}>" in pages[f"docs/rules/{rule.name}.md"]  # the Azure source stays on the page


def test_the_readme_links_the_docs() -> None:
    text = README.read_text(encoding="utf-8")
    for page in ("docs/configuration.md", "docs/rules/README.md", "docs/cli.md", "docs/components.md",
                 "docs/architecture.md",
                 "docs/waivers.md", "docs/offline-limits.md"):
        assert f"]({page})" in text, page
    assert "pip install" in text and "make preview" in text and "make test" in text


def test_benchmark_figures_live_only_in_bench_readme() -> None:
    figures = re.compile(r"\d+(\.\d+)? / \d+(\.\d+)? / \d+(\.\d+)? s")
    assert [str(p.relative_to(ROOT)) for p in _markdown_files() if figures.search(p.read_text(encoding="utf-8"))] == []


# --- the command ---------------------------------------------------------------------------------------


def test_check_reports_a_stale_page_with_a_diff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "components.md").write_text("# C\n\nwritten\n\n<!-- BEGIN GENERATED: component-reference -->\n"
                                                    "old\n<!-- END GENERATED: component-reference -->\n\nafter\n")
    (tmp_path / "docs" / "azure-facts.md").write_text("<!-- BEGIN GENERATED: azure-facts -->\n"
                                                     "<!-- END GENERATED: azure-facts -->\n")
    assert gen_docs.main(["--write", "--root", str(tmp_path)]) == 0
    assert (tmp_path / "docs" / "components.md").read_text() == (
        "# C\n\nwritten\n\n<!-- BEGIN GENERATED: component-reference -->\n\n" + component_reference()
        + "\n\n<!-- END GENERATED: component-reference -->\n\nafter\n")  # only the block changes
    (tmp_path / "docs" / "cli.md").write_text("old\n", encoding="utf-8")
    (tmp_path / "docs" / "rules" / "aml-retired-rule.md").write_text("gone\n", encoding="utf-8")
    capsys.readouterr()
    assert gen_docs.main(["--check", "--root", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "\n-old\n" in out and "docs/rules/aml-retired-rule.md: a page for no current rule" in out
    assert out.endswith("2 generated page(s) stale: docs/cli.md, docs/rules/aml-retired-rule.md; run: make docs\n")
    assert gen_docs.main(["--write", "--root", str(tmp_path)]) == 0
    assert not (tmp_path / "docs" / "rules" / "aml-retired-rule.md").exists()
    assert gen_docs.main(["--check", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out.endswith("generated pages are up to date\n")


def test_a_mode_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        gen_docs.main([])
    assert caught.value.code == 2
    assert "one of the arguments --write --check is required" in capsys.readouterr().err


def test_the_code_cites_only_pages_that_exist() -> None:
    """Docstrings and comments cite public sources or pages of this repository, never a missing file."""
    missing = "domain" + ".md"  # a notes file that is not part of the repository
    cited: list[tuple[str, str]] = []
    for folder in ("amlkit", "components", "policies", "tests", "tools", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == Path(__file__).resolve():
                continue  # this file names made-up pages on purpose
            text = path.read_text(encoding="utf-8")
            cited += [(str(path.relative_to(ROOT)), page) for page in re.findall(r"\bdocs/[\w/.-]+\.md\b", text)]
            assert missing not in text, f"{path.relative_to(ROOT)} cites {missing}: cite the public source"
    assert cited, "the rules cite docs/azure-facts.md"
    assert [(path, page) for path, page in cited if not (ROOT / page).is_file()] == []


@pytest.mark.slow
def test_the_readme_one_minute_check_runs_as_written(one_minute: OneMinute) -> None:
    """The README's first commands, run as written in an empty directory, give the outcome it describes."""
    _, lines, results = one_minute
    commands = [line.split("  #", 1)[0].strip() for line in lines][:4]  # project, init, check
    assert commands[-1] == "amlkit check"
    assert [r.returncode for r in results[:4]] == [0, 0, 0, 0], results[3].stderr
    assert "Policy config: pack defaults" in results[3].stdout
    documented = [policy for policy, _ in default_advisories()]  # README: docs/components.md lists them
    assert f"Summary: 1 stack, 0 mandatory, {len(documented)} advisory, 0 waived, 1 unknown" in results[3].stdout
    assert FIRST_PREVIEW_UNKNOWN in results[3].stdout
    assert [policy for policy in documented if policy not in results[3].stdout] == []


# --- docs/architecture.md names only code that exists ----------------------------------------------------

ARCHITECTURE = ROOT / "docs" / "architecture.md"
_PY_FILE = re.compile(r"(?<![\w/.-])((?:[\w-]+/)*[\w-]+\.py)\b")
_DOTTED = re.compile(r"\bamlkit(?:\.\w+)+")
_TABLE_NAME = re.compile(r"^\| `([\w/]+\.py)` `([\w.]+)` \|", re.MULTILINE)


def _resolves(dotted: str) -> bool:
    """`amlkit.review.engine.review`: the longest importable module prefix, then attributes."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(value, name):
                return False
            value = getattr(value, name)
        return True
    return False


def _module_of(path: str) -> str:
    """`amlkit/review/run/mocks.py` -> `amlkit.review.run.mocks`; `policies/pack.py` -> `amlkit.policies.pack`."""
    parts = path.removesuffix(".py").split("/")
    return ".".join(["amlkit", *parts] if parts[0] in ("policies", "components") else parts)


def test_architecture_names_only_modules_files_and_names_that_exist() -> None:
    """Every `.py` file docs/architecture.md names exists (from the repository root, or under amlkit/review/ for
    the sub-package paths its picture uses), every dotted `amlkit.` name imports, and every name its
    workaround table pins in a module is defined there."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    files = sorted({path for path in _PY_FILE.findall(text) if "<" not in path})
    missing = [path for path in files
               if not (ROOT / path).is_file() and not (ROOT / "amlkit" / "review" / path).is_file()]
    dotted = sorted({name for name in _DOTTED.findall(text)})
    unresolved = [name for name in dotted if not _resolves(name)]
    pinned = _TABLE_NAME.findall(text)
    undefined = [f"{path} {name}" for path, name in pinned if not _resolves(f"{_module_of(path)}.{name}")]
    assert (missing, unresolved, undefined) == ([], [], [])
    assert len(files) > 20 and len(dotted) > 5 and len(pinned) > 5  # the page still cites the code


# --- the README's one-minute check, as written ------------------------------------------------------


FIRST_PREVIEW_UNKNOWN = (  # README "A one-minute check" and docs/components.md "Defaults and their advisories"
    "Unknown at preview (not a pass):\n"
    "        - aml-workspace-image-build-compute  (pulumi:pulumi:Stack: ml-platform-dev)\n")


def one_minute_check() -> list[str]:
    """The command lines of the README's "A one-minute check" block."""
    section = README.read_text(encoding="utf-8").split("## A one-minute check", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, flags=re.S)
    assert block is not None
    return [line for line in block[1].splitlines() if line.strip()]


OneMinute = tuple[Path, list[str], list["subprocess.CompletedProcess[str]"]]


@pytest.fixture(scope="module")
def one_minute(tmp_path_factory: pytest.TempPathFactory) -> OneMinute:
    """(the directory, the block's lines, each line's run): each line run once, in order, in an empty directory
    with what a user has (amlkit on PATH, no Pulumi CLI, no Azure account); the two tests below read this one run
    (each ran the block itself before: four amlkit processes more)."""
    directory = tmp_path_factory.mktemp("one-minute")
    path = os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"])
    assert shutil.which("pulumi", path=path) is None
    env = {**os.environ, "PATH": path, "NO_COLOR": "1"}
    lines = one_minute_check()
    results = [subprocess.run(["bash", "-c", line], cwd=directory, env=env, capture_output=True, text=True,
                              timeout=600, check=False) for line in lines]
    return directory, lines, results


@pytest.mark.slow
def test_the_readme_one_minute_check_runs_as_written_in_an_empty_directory(one_minute: OneMinute) -> None:
    """Each line in an empty directory with what a user has: amlkit on PATH, no Pulumi CLI, no Azure account."""
    directory, lines, results = one_minute
    for line, done in zip(lines, results, strict=True):
        assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
    outputs = [done.stdout for done in results]
    advisories = len(default_advisories())  # README: docs/components.md lists them
    assert f"Summary: 1 stack, 0 mandatory, {advisories} advisory, 0 waived, 1 unknown\n" in outputs[3]
    assert FIRST_PREVIEW_UNKNOWN in outputs[3]
    assert sorted(p.name for p in directory.iterdir()) == ["Pulumi.dev.yaml", "Pulumi.yaml", "__main__.py",
                                                           "amlkit.md", "amlkit.sarif"]
