"""What a policy's tags say beyond its risk tags: the rule metadata the analyzer protocol has no field for.

Pulumi's `PolicyInfo` (GetAnalyzerInfo) carries a policy's name, description, level, severity, remediation
steps, url, compliance framework, config schema and free-form `tags`. amlkit's pack also says, in tags of the
form `key:value` (a risk tag such as `cost` has no colon):

- `ref:AMLK-0001`: the rule's stable opaque reference;
- `group:compute`: what the rule is about (compute, locks, workspace, general), the order of reports;
- `since:0.1.0`: the amlkit release the rule arrived in (a rule baseline older than it runs it as advisory);
- `level-before:0.2.0:advisory`: the default level the rule had before that release, when one changed it;
- `remediates:yes`: the rule has a fix its level `remediate` applies;
- `stack-key:min_instances`: the stack-file key the rule is about (reports point a finding at it);
- `equivalent:<tool>:<id>[:<title>]`: the same check in a peer tool, e.g. `equivalent:Checkov:CKV_AZURE_150`.

The offline review reads a policy's metadata only from these answers (`read_tags`), for amlkit's pack and any
other pack alike, so it never imports a rule. Pulumi Cloud shows every tag; docs/architecture.md lists them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from amlkit.policies.framework import Equivalent, equivalent

if TYPE_CHECKING:
    from amlkit.policies.framework import Rule

__all__ = ["KEYS", "PolicyMeta", "policy_tags", "read_tags"]

KEYS = ("ref", "group", "since", "level-before", "remediates", "stack-key", "equivalent")
"""The metadata tags' keys (`key:value`); any other tag is a plain tag, as a report shows it."""


@dataclass(frozen=True)
class PolicyMeta:
    """A policy's tags read: its plain tags and the metadata the other tags carry (empty when absent)."""

    tags: tuple[str, ...] = ()
    ref: str = ""
    group: str = ""
    since: str = ""
    levels_before: tuple[tuple[str, str], ...] = ()  # (release, the default level before it), oldest first
    remediates: bool = False
    stack_key: str = ""
    equivalents: tuple[Equivalent, ...] = ()


def policy_tags(rule: Rule) -> list[str]:
    """The tags amlkit's pack reports for `rule`: its risk tags, then its metadata (see the module docstring)."""
    tags = [*rule.tags, f"ref:{rule.ref}", f"group:{rule.group}", f"since:{rule.since}"]
    tags += [f"level-before:{change.version}:{change.level}" for change in rule.changed if change.level]
    tags += ["remediates:yes"] if rule.remediates else []
    tags += [f"stack-key:{rule.stack_key}"] if rule.stack_key else []
    tags += [":".join(("equivalent", e.tool, e.id, *((e.title,) if e.title else ()))) for e in rule.equivalents]
    return tags


def read_tags(tags: tuple[str, ...] | list[str]) -> PolicyMeta:
    """A policy's tags as GetAnalyzerInfo reports them, read back (the inverse of `policy_tags`)."""
    plain: list[str] = []
    found: dict[str, str] = {}
    levels: list[tuple[str, str]] = []
    equivalents: list[Equivalent] = []
    for tag in tags:
        key, colon, value = tag.partition(":")
        if not colon or key not in KEYS:
            plain.append(tag)
        elif key == "level-before":
            release, _, level = value.partition(":")
            levels.append((release, level))
        elif key == "equivalent":
            tool, _, rest = value.partition(":")
            id_, _, title = rest.partition(":")
            equivalents.append(equivalent(tool, id_, title))
        else:
            found[key] = value
    return PolicyMeta(
        tags=tuple(plain), ref=found.get("ref", ""), group=found.get("group", ""), since=found.get("since", ""),
        levels_before=tuple(levels), remediates=found.get("remediates") == "yes",
        stack_key=found.get("stack-key", ""), equivalents=tuple(equivalents),
    )
