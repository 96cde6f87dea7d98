"""The amlkit guardrails policy pack: every module of `amlkit.policies.rules`, each exposing `RULE`.

A rule is its module: `policies/rules/<rule_name>.py` defining `RULE = Rule(...)` is in the pack, with no
list to edit. A module there without a `RULE`, or whose `RULE` is named otherwise, stops the pack from
loading (the review fails; it never runs a partial pack). Modules whose name starts with `_` are shared
code, not rules.

The order is the order of reports and of `amlkit rules`: by `Rule.group` (compute, locks, workspace,
general), then by `Rule.ref` within a group.

Importing this package imports no rule: `ALL_RULES` is discovered on first use and kept (module
`__getattr__`), so `amlkit.policies.framework`, the import-free rule model the review engine and the
reports read, costs nothing more than itself.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from types import ModuleType
from typing import Any

from amlkit.policies import rules as _rules
from amlkit.policies.framework import GROUPS, Rule
from amlkit.policies.rule_baseline import FIRST_RELEASE, BaselineError, check_release, newer, pack_release, release


class RuleModuleError(ImportError):
    """A module under `amlkit.policies.rules` is not a well-formed rule module."""


def _rule_of(package: ModuleType, module_name: str) -> Rule:
    module = importlib.import_module(f"{package.__name__}.{module_name}")
    rule = getattr(module, "RULE", None)
    if not isinstance(rule, Rule):
        raise RuleModuleError(f"{module.__file__}: a rule module must define RULE = Rule(...) (found no RULE)")
    if rule.group not in GROUPS:
        raise RuleModuleError(f"{module.__file__}: RULE.group is {rule.group!r}; allowed: {', '.join(GROUPS)}")
    problem = _release_problem(rule)
    if problem:
        raise RuleModuleError(f"{module.__file__}: {problem}")
    if rule.name.replace("-", "_") != module_name:
        raise RuleModuleError(f"{module.__file__}: RULE is named {rule.name!r}; a rule module is named after "
                              f"its rule ({rule.name.replace('-', '_')}.py)")
    return rule


def _release_problem(rule: Rule) -> str | None:
    """What is wrong with the rule's `since` and `changed` releases (rule baselines read them), or None."""
    try:
        check_release(rule.since)
    except BaselineError:
        return (f"RULE.since is {rule.since!r}; it must name the amlkit release the rule arrives in, from "
                f"{FIRST_RELEASE} to {pack_release()}")
    versions = [change.version for change in rule.changed]
    for version in versions:
        try:
            check_release(version)
        except BaselineError:
            return f"RULE.changed has release {version!r}; allowed: a release from {FIRST_RELEASE} to {pack_release()}"
    if any(not newer(version, rule.since) for version in versions) or versions != sorted(versions, key=release):
        return f"RULE.changed must list releases after RULE.since ({rule.since}), oldest first; found {versions}"
    return None


def discover(package: ModuleType = _rules) -> tuple[Rule, ...]:
    """The rule of every module of `package`, in report order (group, then ref)."""
    names = [info.name for info in pkgutil.iter_modules(package.__path__) if not info.name.startswith("_")]
    rules = [_rule_of(package, name) for name in names]
    return tuple(sorted(rules, key=lambda rule: (GROUPS.index(rule.group), rule.ref)))


@functools.cache
def all_rules() -> tuple[Rule, ...]:
    """Every rule of the pack, in report order: discovered on the first call, then kept."""
    return discover()


@functools.cache
def _by_name() -> dict[str, Rule]:
    return {rule.name: rule for rule in all_rules()}


def rule_named(name: str) -> Rule | None:
    """The rule of this pack with that public name, or None (e.g. a policy of another pack)."""
    return _by_name().get(name)


def __getattr__(name: str) -> Any:
    if name == "ALL_RULES":  # `from amlkit.policies import ALL_RULES`: the rules load here, once
        return all_rules()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ALL_RULES", "Rule", "RuleModuleError", "all_rules", "discover", "rule_named"]
