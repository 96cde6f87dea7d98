"""The provider modules a project's program really uses, learned from its stacks and kept per project in a cache
file, so the fork server preloads only those (amlkit.review.proc.preload).

Reading a program's imports finds every azure-native module it (or amlkit.components) names, but a program uses
few of them: the samples' `dev` stack names `network` and `containerregistry` and creates nothing of either. So
a review notes the provider module of every resource its stacks register and of every lookup it reports
(`note`), and keeps their union per program in `<cache>/preload/<sha256 of the program path>.json` (`<cache>`:
`AMLKIT_CACHE_DIR`, else `$XDG_CACHE_HOME/amlkit`, else `~/.cache/amlkit`). Later reviews preload exactly those
(and what amlkit's own modules need); a project's first review preloads what its files import, as before.
The same file keeps the resource type and function tokens themselves (`types`): the fork server warms pulumi's
per-class caches for exactly those before it forks (amlkit.review.run.typecache).
The file is used only while its fingerprint holds: the path, size and modification time of every `.py` file
of the program's directory, of amlkit's components and of each installed provider SDK's package. A list is only
a speed hint: a module it misses is loaded by the child that uses it, and a name that is not an installed
provider SDK's module is ignored, so a stale or edited file never changes a review's result.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_TYPES", "cache_file", "fingerprint", "is_provider_module", "keep", "load", "load_types", "modules_of", "note",
    "save",
]

_NAME = re.compile(r"pulumi_[a-z0-9_]+\.[a-z0-9_]+")
_MAX_FILES = 5000  # files of a program fingerprinted (a bigger tree: no cache)
_SKIPPED_DIRS = {"__pycache__", "node_modules", "venv"}
_TOKEN = re.compile(r"[a-z][a-z0-9-]*:[A-Za-z0-9_/.-]+:[A-Za-z_][A-Za-z0-9_]*")
MAX_TYPES = 2000  # tokens kept per program (a bigger set: the first 2000, sorted)


def is_provider_module(name: str) -> bool:
    """A provider SDK's module one level down (`pulumi_azure_native.network`, `pulumi_azure.core`)."""
    return bool(_NAME.fullmatch(name)) and not name.startswith("pulumi_policy.")


def modules_of(tokens: Iterable[str]) -> set[str]:
    """The provider SDK modules of resource type and function tokens (`azure-native:network:PrivateEndpoint` ->
    `pulumi_azure_native.network`, `azure:core/resourceGroup:ResourceGroup` -> `pulumi_azure.core`)."""
    from amlkit.tokens import type_parts

    found = set()
    for token in tokens:
        parts = type_parts(token)
        if parts is not None:
            found.add(f"pulumi_azure_native.{parts[0]}")
            continue
        pieces = token.split(":")
        if len(pieces) == 3 and all(pieces) and pieces[0] != "pulumi":
            package, module = pieces[0].replace("-", "_"), pieces[1].split("/", 1)[0].lower()
            if module != "index":
                found.add(f"pulumi_{package}.{module}")
    return {name for name in found if is_provider_module(name)}


_SEEN: dict[Path, tuple[set[str], set[str]]] = {}  # program -> (provider modules, tokens) its stacks used
_LOCK = threading.Lock()


def note(program: Path, tokens: Iterable[str]) -> None:
    """A stack of `program` registered resources or looked up functions of these tokens."""
    tokens = {token for token in tokens if _TOKEN.fullmatch(token)}
    modules = modules_of(tokens)
    with _LOCK:
        seen = _SEEN.setdefault(program, (set(), set()))
        seen[0].update(modules)
        seen[1].update(token for token in tokens if modules_of([token]))


def keep(program: Path) -> None:
    """At the end of a review: keep what its stacks used for the program's next review (`save`)."""
    with _LOCK:
        modules, tokens = _SEEN.pop(program, (set(), set()))
    if modules:
        save(program, modules, tokens)


def cache_file(program: Path) -> Path:
    root = os.environ.get("AMLKIT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "amlkit")
    digest = hashlib.sha256(str(program.resolve()).encode()).hexdigest()[:32]
    return Path(root) / "preload" / f"{digest}.json"


def fingerprint(program: Path) -> str | None:
    """What the learned list depends on (see the module doc); None when the program's tree is too big."""
    entry = program.resolve()
    directory = entry if entry.is_dir() else entry.parent
    files = _python_files(directory)
    if files is None:
        return None
    packages = [spec for spec in (_package_dir(name) for name in ("amlkit.components", *_providers())) if spec]
    for package in packages:
        files.extend(sorted(package.glob("*.py")))
    digest = hashlib.sha256(str(entry).encode())
    for path in files:
        with contextlib.suppress(OSError):
            stat = path.stat()
            digest.update(f"\0{path}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


def _python_files(directory: Path) -> list[Path] | None:
    found: list[Path] = []
    for root, dirs, names in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        found.extend(Path(root) / name for name in sorted(names) if name.endswith(".py"))
        if len(found) > _MAX_FILES:
            return None
    return found


def _providers() -> list[str]:
    """The installed provider SDK packages (top-level `pulumi_*` packages but pulumi_policy): what
    `pkgutil.iter_modules()` lists, read from the directories on sys.path by name (iter_modules looks at every
    module of every entry: ~20 ms, run after every review)."""
    seen: dict[str, bool] = {}  # name -> a package (the first entry of sys.path that has it wins)
    for entry in sys.path:
        directory = entry or "."
        if not os.path.exists(directory):  # no module there (python3XX.zip, usually)
            continue
        if not os.path.isdir(directory):  # a zip file or another importer: pkgutil's own listing
            import pkgutil

            for module in pkgutil.iter_modules([entry]):
                seen.setdefault(module.name, module.ispkg)
            continue
        with contextlib.suppress(OSError):
            for name in sorted(os.listdir(directory)):
                found = _module(directory, name) if name.startswith("pulumi_") else None
                if found is not None:
                    seen.setdefault(*found)
    return sorted(name for name, package in seen.items() if package and name != "pulumi_policy")


def _module(directory: str, name: str) -> tuple[str, bool] | None:
    """The top-level module (its name, whether a package) that file `name` of `directory` is, as pkgutil lists
    them (a directory is a package when it holds an `__init__` module), else None."""
    path = os.path.join(directory, name)
    if not os.path.isdir(path):
        module = _module_name(name)
        return (module, False) if module and module != "__init__" and "." not in module else None
    if _module_name(name) is not None or "." in name:
        return None
    with contextlib.suppress(OSError):
        if any(_module_name(entry) == "__init__" for entry in os.listdir(path)):
            return name, True
    return None


def _module_name(file: str) -> str | None:
    """inspect.getmodulename (inspect itself takes ~20 ms to import): the name without its longest module suffix."""
    import importlib.machinery

    for suffix in sorted(importlib.machinery.all_suffixes(), key=len, reverse=True):
        if file.endswith(suffix):
            return file[:-len(suffix)]
    return None


def _package_dir(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) if locations else None


def load(program: Path) -> list[str] | None:
    """The learned provider modules of `program`, or None (never learned, or its fingerprint changed)."""
    return _modules_in(_read(program))


def _modules_in(data: dict[str, Any] | None) -> list[str] | None:
    return None if data is None else sorted(name for name in data["modules"] if isinstance(name, str) and
                                             _installed(name))


def load_types(program: Path) -> list[str]:
    """The learned resource type and function tokens of `program` whose provider module is installed (none when
    never learned or its fingerprint changed): what the fork server warms (amlkit.review.run.typecache)."""
    return _types_in(_read(program))


def _types_in(data: dict[str, Any] | None) -> list[str]:
    types = data.get("types") if data is not None else None
    if not isinstance(types, list):
        return []
    wanted = [token for token in types if isinstance(token, str) and _TOKEN.fullmatch(token)][:MAX_TYPES]
    return sorted(token for token in wanted if all(_installed(name) for name in modules_of([token])))


def _read(program: Path, stamp: str | None = None) -> dict[str, Any] | None:
    """The cache file's data when its fingerprint is the program's (`stamp`, when the caller computed it)."""
    try:
        data = json.loads(cache_file(program).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("fingerprint") != (stamp or fingerprint(program)):
        return None
    return data if isinstance(data.get("modules"), list) else None


def _installed(name: str) -> bool:
    if not is_provider_module(name):
        return False
    top, _, sub = name.partition(".")
    package = _package_dir(top)
    return package is not None and (package / sub / "__init__.py").is_file()


def save(program: Path, modules: Iterable[str], tokens: Iterable[str] = ()) -> None:
    """Keep `modules` and `tokens` (with those already learned under the same fingerprint) for `program`; never
    fails a review."""
    wanted = {name for name in modules if is_provider_module(name)}
    types = {token for token in tokens if _TOKEN.fullmatch(token)}
    stamp = fingerprint(program) if wanted else None  # once: it walks the program's tree and the SDKs' files
    if stamp is None:
        return
    learned = _read(program, stamp)
    known = _modules_in(learned) or []
    known_types = _types_in(learned)
    if wanted <= set(known) and types <= set(known_types):
        return
    target = cache_file(program)
    with contextlib.suppress(OSError):
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        data = json.dumps({"program": str(program.resolve()), "fingerprint": stamp,
                           "modules": sorted(wanted | set(known)),
                           "types": sorted(types | set(known_types))[:MAX_TYPES]}, indent=1)
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".preload-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(data + "\n")
            os.replace(temporary, target)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
