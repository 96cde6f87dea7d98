"""What the warm-start server preloads: the modules a program's child and a pack's child will import,
found by reading the program's files (never running them), and the pack's own modules.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import re
from pathlib import Path

__all__ = [
    "AMLKIT_PROGRAM_MODULES", "azure_modules", "default_pack", "pack_modules", "program_modules", "program_preload",
    "project_program",
]

_SCANNED_FILES = 400  # program files read to find the azure-native modules it imports
AMLKIT_PROGRAM_MODULES = ("amlkit.program", "amlkit.components", "amlkit.vmsizes")


def program_modules(program: Path) -> list[str]:
    """What a program's child would import: the azure-native modules it uses, amlkit's components."""
    found, tops = _scan(program)
    names = _azure_names(found)
    return [*names, *AMLKIT_PROGRAM_MODULES] if "amlkit" in tops else names


def program_preload(program: Path) -> list[str]:
    """What the fork server preloads for a program's children: the provider modules its stacks were seen to use
    (amlkit.review.proc.learned) and amlkit's modules it imports; never seen yet, what its files import
    (`program_modules`)."""
    from amlkit.review.proc import learned

    found = program_modules(program)
    seen = learned.load(program)
    if seen is None:
        return found
    return [*seen, *(name for name in found if not learned.is_provider_module(name))]


def importer_of(program: Path, top: str) -> Path | None:
    """The first file of the program (or of the amlkit modules it uses) found to import package `top`, else None."""
    return _scan(program)[1].get(top)


def azure_modules(program: Path) -> list[str]:
    """The azure-native modules a program imports, in its own files and in the amlkit modules it uses."""
    return _azure_names(_scan(program)[0])


def _azure_names(found: set[str]) -> list[str]:
    return sorted(f"pulumi_azure_native.{name}" for name in found if _is_azure_module(name))


def _scan(program: Path) -> tuple[set[str], dict[str, Path]]:
    """Follow the imports from the program's entry file through its own modules and amlkit's.

    Returns the azure-native submodule names used (imported, or reached through an alias of the
    package) and each top-level package imported with the first file found to import it. Reads at most
    _SCANNED_FILES files, with regular expressions (a guess is enough: a module missed here is imported by
    the child itself).
    """
    entry = program / "__main__.py" if program.is_dir() else program
    root = entry.parent
    found: set[str] = set()
    tops: dict[str, Path] = {}
    todo, seen = [entry], set[Path]()
    while todo and len(seen) < _SCANNED_FILES:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        modules = _imported(text, path, found)
        for name in sorted(modules):
            tops.setdefault(name.split(".")[0], path)
        todo.extend(file for name in modules for file in _source_of(name, root) if file not in seen)
    return found, tops


_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]+)", re.MULTILINE)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#;]+)", re.MULTILINE)


def _imported(text: str, path: Path, found: set[str]) -> set[str]:
    """Module names a file imports (`from a import b` also names `a.b`); azure-native ones go to `found`."""
    modules: set[str] = set()
    aliases = set()
    for match in _IMPORT.finditer(text):
        for item in match[1].split(","):
            name, _, alias = (part.strip() for part in item.partition(" as "))
            modules.add(name)
            if name == "pulumi_azure_native":
                aliases.add(alias or name)
    for match in _FROM_IMPORT.finditer(text):
        base = match[1]
        if base.startswith("."):  # relative: a module of this program
            level = len(base) - len(base.lstrip("."))
            package = path.parents[level - 1]
            base = ".".join(filter(None, [f"/{package}", base.lstrip(".")]))
        names = [item.strip().partition(" as ")[0].strip() for item in match[2].strip("()").split(",")]
        modules.add(base)
        modules.update(f"{base}.{name}" for name in names if name.isidentifier())
    for name in modules:
        parts = name.split(".")
        if parts[0] == "pulumi_azure_native" and len(parts) > 1:
            found.add(parts[1])
    for alias in aliases:
        found.update(re.findall(rf"\b{re.escape(alias)}\.(\w+)", text))
    return modules


def _source_of(name: str, root: Path) -> list[Path]:
    """The file of an imported module of the program (under its directory) or of amlkit, else nothing."""
    if name.startswith("/"):  # a relative import, resolved to a directory path above
        directory, _, rest = name.partition(".")
        return _file_under(Path(directory), rest.split(".") if rest else [])
    parts = name.split(".")
    if parts[0] != "amlkit":
        return _file_under(root, parts)
    # find_spec of `amlkit.x.y` would import amlkit.x (amlkit.program: pydantic and the schema, ~0.3 s in the fork
    # server before its first fork); `amlkit.x` is found without importing it, and what lies below by its files
    origin, locations = _amlkit_spec(".".join(parts[:2]))
    if len(parts) <= 2:
        return [Path(origin)] if origin and origin.endswith(".py") else []
    return _file_under(Path(locations[0]), parts[2:]) if locations else []


@functools.cache
def _amlkit_spec(name: str) -> tuple[str | None, list[str]]:
    """The file and package directories of `amlkit` or of `amlkit.<x>` (amlkit is imported: it imports nothing)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None, []
    return (spec.origin, list(spec.submodule_search_locations or [])) if spec else (None, [])


def _file_under(directory: Path, parts: list[str]) -> list[Path]:
    if not parts:
        return [directory / "__init__.py"] if (directory / "__init__.py").is_file() else []
    base = directory.joinpath(*parts)
    return [file for file in (base.with_suffix(".py"), base / "__init__.py") if file.is_file()]


def _is_azure_module(name: str) -> bool:
    spec = importlib.util.find_spec("pulumi_azure_native")
    if spec is None or not spec.submodule_search_locations:
        return False
    return any((Path(p) / name / "__init__.py").is_file() for p in spec.submodule_search_locations)


def pack_modules(pack: Path) -> list[str]:
    """What the pack's `__main__.py` imports from outside the pack directory (installed packages)."""
    try:
        tree = ast.parse((pack / "__main__.py").read_bytes())
    except (OSError, SyntaxError, ValueError):
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
    return [n for n in dict.fromkeys(names) if _installed_outside(n.split(".")[0], pack)]


def _installed_outside(top: str, pack: Path) -> bool:
    if (pack / top).exists() or (pack / f"{top}.py").exists():
        return False
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return False
    origin = spec.origin if spec else None
    return origin is not None and not Path(origin).resolve().is_relative_to(pack.resolve())


def project_program(hint: Path) -> Path | None:
    """The program of the Pulumi project at or above `hint` (a directory or a stack file)."""
    from amlkit.review.project import find_project_file, load_project

    for directory in [hint, *hint.resolve().parents][:4]:
        if find_project_file(directory) is not None:
            try:
                return load_project(directory).main
            except Exception:  # noqa: BLE001 - only a guess: the review itself reports a bad project
                return None
    return None


def default_pack() -> Path | None:
    spec = importlib.util.find_spec("amlkit.policies")
    return Path(spec.origin).parent if spec and spec.origin else None
