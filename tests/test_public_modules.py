"""Every public module of the package declares `__all__` (read with ast, nothing imported): a module whose path
has no `_`-prefixed part (package `__init__`s included, `__main__` excepted), under amlkit/, components/
(amlkit.components) and policies/ (amlkit.policies). Its `__all__` is a list of distinct string literals, each a
name the module binds at its top level or its `__getattr__` answers. (docs/embedding.md: the public API is the
`__all__` of the documented modules.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("amlkit", "components", "policies")  # as installed: amlkit, amlkit.components, amlkit.policies


def public_modules() -> list[Path]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if is_public(path.relative_to(ROOT).with_suffix("").parts):
                found.append(path)
    return found


def is_public(parts: tuple[str, ...]) -> bool:
    """A module path (without .py) is public unless a part is `_`-prefixed (`__init__` aside) or it is a `__main__`."""
    return parts[-1] != "__main__" and not any(p.startswith("_") and p != "__init__" for p in parts)


def declared_all(tree: ast.Module) -> ast.expr | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"]:
            return node.value
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "__all__":
            return node.value
    return None


def bound_names(body: list[ast.stmt]) -> set[str]:
    """Names bound at the top level, in `if` (TYPE_CHECKING included) and `try` blocks too."""
    names: set[str] = set()
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.If):
            names |= bound_names(node.body) | bound_names(node.orelse)
        elif isinstance(node, ast.Try):
            names |= bound_names(node.body) | bound_names(node.orelse)
            for handler in node.handlers:
                names |= bound_names(handler.body)
    return names


def lazy_names(tree: ast.Module) -> set[str]:
    """The names a module-level `__getattr__` (PEP 562) answers: the strings it mentions."""
    return {node.value for function in tree.body
            if isinstance(function, ast.FunctionDef) and function.name == "__getattr__"
            for node in ast.walk(function) if isinstance(node, ast.Constant) and isinstance(node.value, str)}


@pytest.mark.parametrize(("source", "declared", "lazy"), [
    ("x = 1\n", False, set()),
    ("__all__ = ['x']\nx = 1\n", True, set()),
    ("__all__: list[str] = []\n", True, set()),
    ("def __getattr__(name):\n    if name == 'LATE':\n        return 1\n    raise AttributeError(name)\n", False,
     {"LATE"}),
])
def test_what_the_check_reads(source: str, declared: bool, lazy: set[str]) -> None:
    tree = ast.parse(source)
    assert (declared_all(tree) is not None, lazy_names(tree)) == (declared, lazy)


@pytest.mark.parametrize(("parts", "public"), [
    (("amlkit", "review", "proc", "wire"), True),
    (("amlkit", "review", "__init__"), True),
    (("amlkit", "review", "proc", "_wire"), False),
    (("amlkit", "_private", "module"), False),
    (("policies", "__main__"), False),
])
def test_which_modules_are_public(parts: tuple[str, ...], public: bool) -> None:
    assert is_public(parts) is public


def test_the_walk_finds_the_package() -> None:
    found = {str(p.relative_to(ROOT)) for p in public_modules()}
    assert {"amlkit/review/__init__.py", "amlkit/errors.py", "amlkit/program.py", "components/__init__.py",
            "policies/framework.py", "policies/rules/aml_cluster_min_nodes_zero.py", "amlkit/review/proc/wire.py",
            "amlkit/review/children/fork_server.py"} <= found
    assert "policies/__main__.py" not in found
    assert len(found) > 140


@pytest.mark.parametrize("path", public_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_public_module_declares_all(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    value = declared_all(tree)
    assert isinstance(value, ast.List), f"{path.relative_to(ROOT)}: no top-level __all__ = [...]"
    names = [element.value for element in value.elts if isinstance(element, ast.Constant)]
    assert len(names) == len(value.elts) and all(isinstance(n, str) for n in names), "__all__ holds string literals"
    assert len(set(names)) == len(names), f"repeated in __all__: {sorted(n for n in names if names.count(n) > 1)}"
    unbound = set(names) - bound_names(tree.body) - lazy_names(tree)
    assert not unbound, f"in __all__ but not bound in the module: {sorted(unbound)}"
