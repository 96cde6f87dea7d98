"""The provider SDK versions a review supports, checked before any program runs.

The rules read the resources of azure-native 3.x and of the classic provider pulumi-azure 6.x
(amlkit.policies.azure). A program runs with the provider SDKs installed next to amlkit, so two things
must hold, or the program dies with a raw `ImportError` / `TypeError` that never says why:

- the installed pulumi-azure-native and pulumi-azure are inside the supported ranges (`SUPPORTED`,
  the same ranges as amlkit's own dependencies in pyproject.toml);
- the project's own pins (`requirements.txt`, or `[project] dependencies` of its `pyproject.toml`)
  accept the installed version: a program written for azure-native 1.x or 2.x (`pulumi-azure-native<3`)
  imports modules and argument types 3.x no longer has.

Either failure is ONE ConfigError (exit 2) naming the package, the installed version and the range.

pulumi-azure (the classic provider) is an extra, `amlkit[classic]`: most platforms use only azure-native, and
the classic SDK is most of a fresh install's size and time. A program that imports it while it is not installed
gets ONE ConfigError (exit 2) saying what to install, instead of a program failure
(`ModuleNotFoundError: No module named 'pulumi_azure'`).
"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from amlkit.errors import ConfigError

__all__ = ["CLASSIC", "DOCS", "SUPPORTED", "check", "check_classic", "installed", "project_requirements"]

SUPPORTED: dict[str, str] = {
    "pulumi-azure-native": ">=3.29,<4",
    "pulumi-azure": ">=6.0,<7",
}
"""Package -> the versions whose resource shapes the rules read (keep in step with pyproject.toml and the
README)."""
DOCS = 'docs/review.md, "Providers and versions"'
CLASSIC = "pulumi-azure"
"""The classic provider: installed with amlkit's extra `amlkit[classic]`, not with amlkit itself."""


def installed(package: str) -> Version | None:
    try:
        return Version(metadata.version(package))
    except metadata.PackageNotFoundError:
        return None


def check(project_dir: Path) -> None:
    """Raise ConfigError when an installed provider is outside `SUPPORTED` or the project pins a provider
    version other than the installed one."""
    for package, supported in SUPPORTED.items():
        version = installed(package)
        if version is not None and version not in SpecifierSet(supported):
            raise ConfigError(None, package, f"{package} {version} is installed; amlkit reviews programs for "
                              f"{package} {supported} ({DOCS})", str(version))
    for file, line, requirement in project_requirements(project_dir):
        name = _normalized(requirement.name)
        if name not in SUPPORTED:
            continue
        version = installed(name)
        if version is not None and requirement.specifier and version not in requirement.specifier:
            where = f"line {line}" if line else "[project] dependencies"
            raise ConfigError(str(file), where, f"the program targets {requirement}, but the installed "
                              f"{name} is {version}, and amlkit reviews programs for {name} {SUPPORTED[name]} "
                              f"({DOCS})", str(requirement))


def check_classic(program: Path) -> None:
    """Raise ConfigError when the program imports the classic provider (`pulumi_azure`) and it is not installed."""
    if installed(CLASSIC) is not None:
        return
    from amlkit.review.proc.preload import importer_of

    importer = importer_of(program, "pulumi_azure")
    if importer is not None:
        raise ConfigError(str(importer), "import pulumi_azure", "the program uses the classic Azure provider "
                          f"pulumi-azure, which is not installed: it comes with amlkit's extra, pip install "
                          f"'amlkit[classic]' (pulumi-azure {SUPPORTED[CLASSIC]})")


def project_requirements(project_dir: Path) -> list[tuple[Path, int, Requirement]]:
    """(file, line, requirement) of each requirement the project pins: `requirements.txt` lines, then
    `[project] dependencies` of `pyproject.toml` (line 0: the file's position is not tracked)."""
    found: list[tuple[Path, int, Requirement]] = []
    requirements = Path(project_dir) / "requirements.txt"
    if requirements.is_file():
        for number, raw in enumerate(requirements.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            text = raw.split(" #", 1)[0].strip()
            if not text or text.startswith(("#", "-")):
                continue
            requirement = _parse(text)
            if requirement is not None:
                found.append((requirements, number, requirement))
    pyproject = Path(project_dir) / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            return found
        for text in data.get("project", {}).get("dependencies", []) or []:
            requirement = _parse(text) if isinstance(text, str) else None
            if requirement is not None:
                found.append((pyproject, 0, requirement))
    return found


def _parse(text: str) -> Requirement | None:
    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
