"""azure-native's modules loaded member by member: a program that uses `machinelearningservices.Compute` imports the
file that defines it (with the module's shared `_enums`, `_inputs` and `outputs`), not the ~140 files of the module.

pulumi_azure_native makes each of its modules lazy (`_utilities.lazy_import` -> `pulumi._utils.lazy_import`, an
`importlib.util.LazyLoader`): the module's `__init__.py` runs on its first attribute access, and it imports every
resource and function of the module (`from .compute import *`, ...). That was most of a program child's CPU (the
sample stacks: machinelearningservices, monitor and authorization alone ~70% of their imports).

With `install()` (the `provider-modules` patch of amlkit.patches, applied where its code is verified), a lazy
azure-native module is a `MemberModule` instead: its first access of a name reads the module's `__init__.py` and
the `__all__` of each file it star-imports (never running them), then imports only the file that binds that name,
the last one in the `__init__.py`'s order, as `import *` binds it. The value is the very object the whole module
would hold. Anything else (a name no file exports, a module's `__init__.py` of another shape, `__all__` asked by
`from module import *`, `dir()`) runs the module's own `__init__.py` first, as the lazy module would, and the
module is then an ordinary one. Only which files are imported, and when, changes; `vars(module)` of a module not
loaded whole holds only the names used so far.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import re
import sys
import threading
import types
from pathlib import Path
from typing import Any

__all__ = ["MemberModule", "PACKAGE", "install"]

PACKAGE = "pulumi_azure_native"
_LOCK = threading.RLock()  # the SDK registers resources on several threads
_STAR = re.compile(r"from \.([A-Za-z_][A-Za-z0-9_]*) import \*")
_SUBMODULE = re.compile(r"from \. import ([A-Za-z_][A-Za-z0-9_]*)")
_PLAIN = ("import builtins as _builtins", "from .. import _utilities", "import typing")
_ALL = re.compile(r"^__all__ = \[(.*?)\]", re.MULTILINE | re.DOTALL)
_NAME = re.compile(r"'([A-Za-z_][A-Za-z0-9_]*)'")
_INDEX_KEY = "_amlkit_members_"  # where a MemberModule keeps its index (dropped when it loads whole)


class MemberModule(types.ModuleType):
    """A lazy azure-native module that imports, per name asked, the one file that binds it (see the module doc)."""

    def __getattr__(self, name: str) -> Any:
        with _LOCK:
            found = self.__dict__.get(name, _MISSING)
            if found is not _MISSING:
                return found
            index = _index(self)
            where = None if index is None or name.startswith("__") else index[0].get(name)
            if index is None or where is None:
                return _whole(self, name)
            _bind(self, where[0], index)
            return self.__dict__[name]

    def __dir__(self) -> list[str]:
        with _LOCK:
            if isinstance(self, MemberModule):
                _load(self)
        return list(self.__dict__)


_MISSING = object()


def _whole(module: types.ModuleType, name: str) -> Any:
    _load(module)
    return getattr(module, name)  # an ordinary module now: its own AttributeError when there is no such name


def _load(module: types.ModuleType) -> None:
    """Run the module's `__init__.py` in it, as the LazyLoader would, leaving an ordinary module (or the class its
    code sets, as pulumi_azure_native.config does)."""
    module.__dict__.pop(_INDEX_KEY, None)
    module.__class__ = types.ModuleType
    spec = module.__spec__
    assert spec is not None and spec.loader is not None
    spec.loader.exec_module(module)


_Index = tuple[dict[str, tuple[str, bool]], dict[str, list[str]]]


def _bind(module: types.ModuleType, file: str, index: _Index) -> None:
    """Import `file` and bind on the module the names whose last binding in its `__init__.py` comes from it; unbind
    a submodule the import bound over a name that another file binds last."""
    names, files = index
    imported = importlib.import_module(f"{module.__name__}.{file}")
    bound = module.__dict__
    for name in files[file]:
        bound[name] = imported if names[name][1] else getattr(imported, name)
    for name, value in list(bound.items()):
        if isinstance(value, types.ModuleType) and name in names and not names[name][1]:
            del bound[name]


def _index(module: types.ModuleType) -> _Index | None:
    """Name -> (file, whether it is the file itself), as the module's `__init__.py` binds them last, and per file the
    names it binds last; None when the `__init__.py` is not made only of star imports of its files (and the generated
    boilerplate)."""
    if _INDEX_KEY in module.__dict__:
        found: _Index | None = module.__dict__[_INDEX_KEY]
        return found
    index = _read_index(Path(module.__file__ or "").parent)
    module.__dict__[_INDEX_KEY] = index
    return index


def _read_index(directory: Path) -> _Index | None:
    try:
        lines = (directory / "__init__.py").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    names: dict[str, tuple[str, bool]] = {}
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#") or line in _PLAIN:
            continue
        star, submodule = _STAR.fullmatch(line), _SUBMODULE.fullmatch(line)
        file = star.group(1) if star else submodule.group(1) if submodule else None
        if file is None or not (directory / f"{file}.py").is_file():
            return None  # another shape: the module loads whole
        names[file] = (file, True)  # importing a submodule binds it on its package
        if star:
            exported = _exported(directory / f"{file}.py")
            if exported is None:
                return None
            names.update((name, (file, False)) for name in exported)
    files: dict[str, list[str]] = {}
    for name, (file, _) in names.items():
        files.setdefault(file, []).append(name)
    return names, files


def _exported(path: Path) -> list[str] | None:
    """A generated file's `__all__` (a literal list near its top), read without running it; None without one."""
    try:
        with path.open(encoding="utf-8") as source:
            head: list[str] = []
            for line in source:
                if head or line.startswith("__all__ = ["):
                    head.append(line)
                    if line.rstrip().endswith("]"):
                        break
    except OSError:
        return None
    found = _ALL.search("".join(head))
    return _NAME.findall(found.group(1)) if found else None


_ORIGINAL: dict[str, Any] = {}


def install() -> None:
    """From now on, a lazy azure-native module this process creates is a `MemberModule` (once per process)."""
    import pulumi._utils as utils

    if _ORIGINAL:
        return
    original: Any = utils.lazy_import
    _ORIGINAL["lazy_import"] = original

    @functools.wraps(original)  # amlkit.patches hashes the code it replaces (inspect unwraps)
    def lazy_import(fullname: str) -> Any:
        package, _, rest = fullname.partition(".")
        if package != PACKAGE or not rest or "." in rest:
            return original(fullname)
        return _member_module(fullname, original)

    utils.lazy_import = lazy_import


def _member_module(fullname: str, original: Any) -> Any:
    """What `pulumi._utils.lazy_import` returns, a `MemberModule` in place of its `_LazyModule`."""
    found = sys.modules.get(fullname)
    if found is not None:
        return found
    from amlkit.patches import off_reason

    if off_reason("provider-modules") is not None:
        return original(fullname)
    spec = importlib.util.find_spec(fullname)
    found = sys.modules.get(fullname)
    if found is not None:
        return found
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        return original(fullname)
    module = importlib.util.module_from_spec(spec)
    module.__class__ = MemberModule
    sys.modules[fullname] = module
    return module
