"""The import direction (#34): imports read with `ast` from every module of amlkit, components and policies,
function-level and TYPE_CHECKING imports included (an import inside a function is still a dependency).

LAYERS (lowest first) is the layering docs/architecture.md draws; a module may import its own layer and
the layers below it. The whole graph is asserted, with no exceptions list: no module imports a module of a
higher layer, and no import circle exists anywhere (within a layer either), between modules or between
packages (`packages`). `python tests/test_layers.py` prints what goes against it."""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"amlkit": "amlkit", "components": "amlkit.components", "policies": "amlkit.policies"}

# lowest first; a module belongs to the layer of the longest prefix naming it (`amlkit` names the package
# itself only: every top-level module is placed by name)
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("amlkit", "amlkit.errors", "amlkit.tokens", "amlkit.suggest", "amlkit.azure_facts",
                    "amlkit.regions", "amlkit.vmsizes", "amlkit.vmmodel", "amlkit.vmload", "amlkit.vmcache",
                    "amlkit.schema", "amlkit.yamlfile", "amlkit.namespace", "amlkit.patches",
                    "amlkit.review.secrets", "amlkit.review.urns", "amlkit.review.arm")),
    # the Pulumi project as the CLI reads it, and amlkit's stack files: read by the review and by the program
    ("project", ("amlkit.stackfile", "amlkit.review.project", "amlkit.review.packdir")),
    ("components", ("amlkit.components",)),
    ("policies", ("amlkit.policies",)),
    ("review.proc", ("amlkit.review.proc",)),
    # a deployed state and the engine's step against it: the runner answers `same` and `update` from it
    ("review.plan", ("amlkit.review.plan",)),
    ("review.run", ("amlkit.review.run",)),
    ("review.model", ("amlkit.review.model", "amlkit.review.options", "amlkit.review.shard")),
    ("review.pack", ("amlkit.review.pack",)),
    ("review.report", ("amlkit.review.report",)),
    ("orchestration", ("amlkit.review", "amlkit.review.engine", "amlkit.review.state_audit")),
    # the mains of the fork server and of a program worker it forks (`python -m amlkit.review.children.fork_server`)
    ("child processes", ("amlkit.review.children",)),
    ("entry points", ("amlkit.cli", "amlkit.commands", "amlkit.server", "amlkit.server_process",
                      "amlkit.launch", "amlkit.program", "amlkit.fix_cmd", "amlkit.provider", "amlkit.fix",
                      "amlkit.guard",
                      "amlkit.importer", "amlkit.import_attached", "amlkit.merge_cmd", "amlkit.scaffold",
                      "amlkit.sizes_cmd", "amlkit.cli_output", "amlkit.cli_options", "amlkit.rules_cmd",
                      "amlkit.server_cmd", "amlkit.prestart", "amlkit.packs")),
)


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for top, package in PACKAGES.items():
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT / top).with_suffix("").parts)
            if "data" in parts[:-1] or "__pycache__" in parts:
                continue
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _known(name: str, known: dict[str, Path]) -> str | None:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


@functools.cache
def imports() -> dict[str, set[str]]:
    """module -> the amlkit modules it imports (anywhere in its file)."""
    known = modules()
    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package
                    for _ in range(node.level - 1):
                        anchor = anchor.rpartition(".")[0]
                    base = f"{anchor}.{base}" if base else anchor
                targets = [f"{base}.{alias.name}" for alias in node.names]
            for target in targets:
                found = _known(target, known)
                if found and found != name:
                    edges[name].add(found)
    return edges


def layer(module: str) -> int:
    best = max(((len(prefix), index) for index, (_, prefixes) in enumerate(LAYERS) for prefix in prefixes
                if module == prefix or (prefix != "amlkit" and module.startswith(prefix + "."))), default=None)
    assert best is not None, f"{module}: in no layer (add it to LAYERS)"
    return best[1]


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(set(edges) | {b for targets in edges.values() for b in targets}):
        if node not in index:
            visit(node)
    return found


def package(module: str) -> str:
    """A module's package for the package-level graph: its sub-package (or module) of amlkit.review, else its
    top-level module (amlkit.policies.rules.x -> amlkit.policies, amlkit.review.proc.warm -> amlkit.review.proc)."""
    parts = module.split(".")
    return ".".join(parts[:3] if module.startswith("amlkit.review.") else parts[:2])


def packages(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The import graph with each module collapsed to its package (imports within a package dropped)."""
    collapsed: dict[str, set[str]] = defaultdict(set)
    for a, targets in edges.items():
        collapsed[package(a)].update(package(b) for b in targets if package(b) != package(a))
    return collapsed


def upward(edges: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} ({LAYERS[layer(a)][0]}) -> {b} ({LAYERS[layer(b)][0]})"
                  for a, targets in edges.items() for b in targets if layer(b) > layer(a))


def test_every_module_has_a_layer() -> None:
    for module in modules():
        layer(module)


def test_no_import_circle_anywhere() -> None:
    assert circles(imports()) == []


def test_no_import_circle_between_packages() -> None:
    assert circles(packages(imports())) == []


def test_no_module_imports_a_higher_layer() -> None:
    assert upward(imports()) == []


def test_the_checks_find_a_circle_and_an_upward_import() -> None:
    # the report layer importing the pack is fine; the pack importing a report is upward; two modules of one
    # layer importing each other is a circle
    edges = {"amlkit.review.report.sarif": {"amlkit.review.pack.multi"},
             "amlkit.review.pack.snapshot": {"amlkit.review.report.locate"},
             "amlkit.review.plan.diff": {"amlkit.review.plan.state"},
             "amlkit.review.plan.state": {"amlkit.review.plan.diff"}}
    assert upward(edges) == ["amlkit.review.pack.snapshot (review.pack) -> amlkit.review.report.locate (review.report)"]
    assert circles(edges) == [["amlkit.review.plan.diff", "amlkit.review.plan.state"]]


def test_the_package_check_finds_a_circle_no_module_circle_shows() -> None:
    # as before the children's mains left proc (proc.warm_server -> run.runner, run.client -> proc.warm): no
    # module circle, but the packages proc and run import each other; modules of one package importing each
    # other are no package circle
    edges = {"amlkit.review.proc.warm_server": {"amlkit.review.run.runner", "amlkit.review.proc.wire"},
             "amlkit.review.run.client": {"amlkit.review.proc.warm", "amlkit.review.run.runner"},
             "amlkit.review.proc.warm": {"amlkit.review.proc.wire", "amlkit.errors"},
             "amlkit.policies.rules.x": {"amlkit.policies.framework", "amlkit.vmsizes"}}
    assert circles(edges) == []
    assert dict(packages(edges)) == {"amlkit.review.proc": {"amlkit.review.run", "amlkit.errors"},
                                     "amlkit.review.run": {"amlkit.review.proc"},
                                     "amlkit.policies": {"amlkit.vmsizes"}}
    assert circles(packages(edges)) == [["amlkit.review.proc", "amlkit.review.run"]]


def test_components_import_neither_the_reviewer_nor_the_pack() -> None:
    wrong = sorted(f"{a} -> {b}" for a, targets in imports().items() if a.startswith("amlkit.components")
                   for b in targets if b.startswith(("amlkit.review", "amlkit.policies")))
    assert wrong == []


def test_the_policy_pack_never_imports_the_reviewer() -> None:
    wrong = sorted(f"{a} -> {b}" for a, targets in imports().items() if a.startswith("amlkit.policies")
                   for b in targets if b.startswith("amlkit.review"))
    assert wrong == []


def test_docs_architecture_draws_these_layers() -> None:
    """The picture in docs/architecture.md names the layers of LAYERS, highest first."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    picture = text.split("## The offline review: layers", 1)[1].split("```", 2)[1]
    drawn = [line[1:18].strip() for line in picture.splitlines() if line[1:2].strip()]
    assert drawn == [name for name, _ in reversed(LAYERS)]


def test_the_reviewer_imports_no_rule() -> None:
    """Rule metadata reaches the reviewer only through the pack's GetAnalyzerInfo answer (PolicyInfo, its tags read by
    `amlkit.policies.metadata.read_tags`), for amlkit's pack and another pack alike: no module of `amlkit.review`
    (reports included) imports `amlkit.policies` itself (ALL_RULES, all_rules, rule_named) or a rule module. Only
    entry points may (`amlkit.packs` for `amlkit rules`, `amlkit.fix`)."""
    wrong = sorted(f"{a} -> {b}" for a, targets in imports().items() if a.startswith("amlkit.review")
                   for b in targets if b == "amlkit.policies" or b.startswith("amlkit.policies.rules"))
    assert wrong == []


def test_the_rule_check_sees_a_rule_import() -> None:
    """The check above reads `from amlkit.policies import rule_named` as an import of `amlkit.policies`."""
    assert "amlkit.policies" in imports()["amlkit.fix.run"]


def test_writing_every_report_loads_no_rule() -> None:
    program = (
        "import sys\n"
        "from pathlib import Path\n"
        "from tests.data.reviews import full_review\n"
        "from amlkit.review.report import json, markdown, resources, sarif, table\n"
        "review = full_review()\n"
        "sarif.render(review, Path('.')), json.render(review), markdown.render(review), table.render(review)\n"
        "[resources.render_plan(stack) for stack in review.stacks]\n"
        "print(sorted(m for m in sys.modules if m.startswith(('amlkit.policies.rules.', 'amlkit.vmsizes'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"


def test_the_reader_sees_function_level_imports() -> None:
    # amlkit.packs imports the engine inside pack_info only (for another pack)
    assert "amlkit.review.engine" in imports()["amlkit.packs"]


@pytest.mark.slow
def test_a_check_loads_no_rule_in_the_reviewers_process(tmp_path: Path) -> None:
    """`amlkit check` of the sample stacks, writing every report format, in a fresh interpreter: the reviewer's own
    process loads no rule module and builds no VM catalogue (the pack's process does: the reports still carry each
    rule's ref and risk tags, from the pack's GetAnalyzerInfo)."""
    formats = ("sarif", "json", "markdown", "table")
    program = (
        "import sys\n"
        "from amlkit.cli import main\n"
        f"sys.argv = ['amlkit', 'check', *{[a for f in formats for a in ('-f', f, '-o', str(tmp_path / f))]!r}]\n"
        "try:\n    main()\nexcept SystemExit as end:\n    print('exit', end.code)\n"
        "print(sorted(m for m in sys.modules if m.startswith('amlkit.policies.rules.')))\n"
        "vmload = sys.modules.get('amlkit.vmload')\n"  # the CLI may import it; only a rule builds the catalogue
        "print('catalogue built:', bool(vmload and vmload.packaged.cache_info().currsize))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-3:] == ["exit 0", "[]", "catalogue built: False"], done.stdout + done.stderr
    rules = {r["name"]: r for r in json.loads((tmp_path / "sarif").read_text())["runs"][0]["tool"]["driver"]["rules"]}
    ours = rules["aml-compute-local-auth-disabled"]
    assert (ours["id"], ours["properties"]["tags"]) == ("AMLK-0010", ["security", "identity"])
    assert all((tmp_path / f).stat().st_size for f in formats)


if __name__ == "__main__":
    graph = imports()
    print("module circles:", *circles(graph), sep="\n  ")
    print("package circles:", *circles(packages(graph)), sep="\n  ")
    print("upward imports:", *upward(graph), sep="\n  ")
