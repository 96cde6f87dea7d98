"""Packaging: the wheel holds every module and data file and works on its own. SLOW (~15-40 s).

The wheel is built from a copy of the working tree (pyproject, README and the three package
directories), so the checkout is not touched, in an isolated build environment (`python -m build`
fetches the build backend pyproject.toml asks for from PyPI or the pip cache). It is installed
with `--no-deps` into a fresh virtualenv created WITHOUT system site packages. The third-party
dependencies are made importable by a path entry to the project's `.venv` site-packages
(installing pulumi-azure-native, 350 MB, would dominate the run). That entry cannot hide a missing
amlkit file: `.venv` holds amlkit only as an editable finder that a plain path entry never
activates, and every imported amlkit module is checked to come from the fresh environment. That
the dependencies are declared is checked separately: every third-party import in the wheel must
come from a declared requirement (or one of its own requirements).
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # whole module: over 2 s on an idle machine

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIRS = {"amlkit": "amlkit", "components": "amlkit/components", "policies": "amlkit/policies"}
DATA_PATTERNS = ["amlkit/data/*.yaml", "amlkit/py.typed", "policies/PulumiPolicy.yaml"]
NOT_IMPORTED = {"amlkit.policies.__main__"}  # builds the PolicyPack, which serves gRPC forever


def _copy_source(target: Path) -> None:
    for item in ROOT.iterdir():
        if item.is_file() and item.suffix in {".toml", ".md", ".txt", ".cfg"} or item.name.startswith("LICENSE"):
            shutil.copy2(item, target / item.name)
    for directory in PACKAGE_DIRS:
        shutil.copytree(ROOT / directory, target / directory, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    source = tmp_path_factory.mktemp("source")
    _copy_source(source)
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(source)],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (built,) = out.glob("amlkit-*.whl")
    return built


def expected_files() -> set[str]:
    """Every module and data file of the source tree, as its path inside the wheel."""
    files: set[str] = set()
    for directory, installed in PACKAGE_DIRS.items():
        for path in (ROOT / directory).rglob("*.py"):
            if "__pycache__" not in path.parts:
                files.add(f"{installed}/{path.relative_to(ROOT / directory).as_posix()}")
    for pattern in DATA_PATTERNS:
        directory, _, rest = pattern.partition("/")
        for path in (ROOT / directory).glob(rest):
            files.add(f"{PACKAGE_DIRS[directory]}/{path.relative_to(ROOT / directory).as_posix()}")
    return files


def test_wheel_contains_every_module_and_data_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert sorted(expected_files() - names) == []
    assert {"amlkit/data/vm_families.yaml", "amlkit/policies/PulumiPolicy.yaml"} <= names


def _requirements(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        (meta,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        text = archive.read(meta).decode()
    requires = [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Requires-Dist:")]
    return [re.split(r"[ ;<>=!~\[]", r, maxsplit=1)[0] for r in requires if "extra ==" not in r]


def _closure(names: list[str]) -> set[str]:
    """Declared distributions plus everything they require (as installed in this environment)."""
    seen: set[str] = set()
    todo = [n.lower().replace("_", "-") for n in names]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [re.split(r"[ ;<>=!~\[(]", r, maxsplit=1)[0].lower().replace("_", "-")
                 for r in requires if "extra ==" not in r]
    return seen


def _third_party_imports(wheel: Path) -> set[str]:
    modules: set[str] = set()
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if not name.endswith(".py"):
                continue
            for node in ast.walk(ast.parse(archive.read(name))):
                if isinstance(node, ast.Import):
                    modules |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules.add(node.module.split(".")[0])
    return {m for m in modules if m not in sys.stdlib_module_names and m not in {"amlkit", "__future__"}}


def test_every_third_party_import_is_a_declared_dependency(wheel):
    declared = _closure(_requirements(wheel))
    providers = metadata.packages_distributions()
    undeclared = {
        module: providers.get(module, ["<not installed>"])
        for module in _third_party_imports(wheel)
        if not {d.lower().replace("_", "-") for d in providers.get(module, [])} & declared
    }
    assert undeclared == {}


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh virtualenv (no system site packages) with the wheel installed; returns its directory."""
    env = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(system_site_packages=False, with_pip=False).create(env)
    python = env / "bin" / "python"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "--quiet",
         str(wheel)], capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "amlkit-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    return env


IMPORT_ALL = """
import importlib, json, pkgutil, sys
import amlkit
prefix = sys.argv[1]
names = ["amlkit"] + [m.name for m in pkgutil.walk_packages(amlkit.__path__, "amlkit.")]
skipped = set(sys.argv[2].split(","))
files = {}
for name in names:
    if name not in skipped:
        files[name] = importlib.import_module(name).__file__
outside = {n: f for n, f in files.items() if not f.startswith(prefix)}
from importlib.resources import files as package_files
pack = package_files("amlkit.policies")
from amlkit.stackfile import load_stack_file
spec = load_stack_file(sys.argv[3])
print(json.dumps({"modules": sorted(files), "outside": outside,
                  "pack": [pack.joinpath("PulumiPolicy.yaml").is_file(), pack.joinpath("config").exists()],
                  "clusters": [c.size for c in spec.clusters]}))
"""


def test_installed_wheel_imports_every_module_from_itself(installed):
    python = installed / "bin" / "python"
    result = subprocess.run(
        [str(python), "-c", IMPORT_ALL, str(installed), ",".join(NOT_IMPORTED),
         str(ROOT / "stacks" / "Pulumi.prod.yaml")],
        capture_output=True, text=True, check=False, cwd=installed,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["outside"] == {}
    expected = {
        ("amlkit." + path[len("amlkit/"):-len(".py")].replace("/", ".")).removesuffix(".__init__").rstrip(".")
        for path in expected_files() if path.endswith(".py")
    }
    expected = {name if name != "amlkit." else "amlkit" for name in expected} - NOT_IMPORTED
    assert {"amlkit.components", "amlkit.policies", "amlkit.components.environment"} <= set(report["modules"])
    assert sorted(expected - set(report["modules"])) == []
    assert report["pack"] == [True, False]  # the pack, without amlkit's sample policy configs (policy-config/)
    assert report["clusters"] == ["Standard_D4ds_v5", "Standard_NC4as_T4_v3"]


def test_installed_console_script_runs(installed):
    result = subprocess.run([str(installed / "bin" / "amlkit"), "--help"], capture_output=True, text=True,
                            check=False, cwd=installed)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Usage: amlkit" in result.stdout


def test_installs_from_a_git_url(tmp_path):
    """`pip install "amlkit @ git+<url>"` (the platform-repo form) builds the same complete package."""
    source = tmp_path / "repo"
    source.mkdir()
    _copy_source(source)
    git = ["git", "-C", str(source), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
        subprocess.run([*git, *command], check=True, capture_output=True)
    out = tmp_path / "dist"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out),
         f"amlkit @ git+file://{source}"],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (built,) = out.glob("amlkit-*.whl")
    assert sorted(expected_files() - set(zipfile.ZipFile(built).namelist())) == []


def test_every_pinned_amlkit_tag_is_the_latest_release() -> None:
    """The pre-commit hook's example rev, the README's install tag and the example platform repo's rev all name
    the latest release in CHANGELOG.md (a heading `## X.Y.Z (date)`, not `(unreleased)`)."""
    released = re.findall(r"^## (\d+\.\d+\.\d+) \((?!unreleased)", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"),
                          flags=re.M)
    latest = f"v{released[0]}"
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    platform = (ROOT / "examples" / "platform-repo" / "README.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.findall(r"rev: (v[\d.]+)", hooks) == [latest]
    assert re.findall(r"rev: (v[\d.]+)", platform) == [latest]
    assert set(re.findall(r"amlkit@(v[\d.]+)", readme)) == {latest}
