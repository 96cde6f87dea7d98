"""aml-managed-network-no-locks: nothing locks a managed-network workspace, its storage, key vault or their groups.

Fact (azure-ai-docs articles/machine-learning/how-to-managed-network.md, "Limitations", ms.date 2025-05-23): "Make
sure there are no scope locks on the Azure Machine Learning resources and resource group. Internal operations
related to managed virtual network might be blocked." So under a managed network (the workspace's own, or a
project's hub's) no management lock may cover the workspace, the storage account and key vault it names
(`storageAccount`, `keyVault`; classic `storageAccountId`, `keyVaultId`), or their resource groups when they are
not the workspace's. The workspace's own resource group is aml-no-resource-group-lock's finding already (every
workspace: cluster scaling), so it is not repeated here. A lock on a resource counts when it was built from that
resource (a property dependency, known at preview) or names it (resource group and name; a ByScope lock's id).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from amlkit.policies.arm import LOCK_AT_RESOURCE, GroupRef, LockView, is_lock, parse_arm_id, same_name
from amlkit.policies.azure import workspace_props
from amlkit.policies.framework import Finding, Rule, StackResource, cannot_tell, must
from amlkit.policies.hubs import kind_unknown, managed_network_of
from amlkit.policies.links import CannotLink, Name, Stack, is_group

__all__ = ["Protected", "RULE", "SENTENCE", "SOURCE", "check_stack"]

SOURCE = "how-to-managed-network.md, Limitations"
SENTENCE = ("Make sure there are no scope locks on the Azure Machine Learning resources and resource group. Internal "
            "operations related to managed virtual network might be blocked.")


@dataclass(frozen=True)
class Protected:
    """A resource a managed network needs unlocked: how messages name it, the stack resource it is (None when only
    its ARM id is known) and `locate`, which reads its (resource group, Azure name) only when a lock needs them."""

    label: str
    resource: StackResource | None
    locate: Callable[[], tuple[str | None, str | None]]

    def locked_by(self, lock: LockView, stack: Stack) -> bool:
        if self.resource is not None and (lock.resource.depends_on("scope", self.resource.urn)
                                          or lock.resource.depends_on("resourceName", self.resource.urn)):
            return True
        target = lock.target() if lock.is_type(LOCK_AT_RESOURCE) else lock.resolved(stack)
        if target is None or target.kind != "resource" or target.resource_name is None:
            return False
        group, name = self.locate()
        return same_name(target.resource_name, name) and same_name(target.resource_group, group)


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    locks = [LockView(r) for r in resources if is_lock(r)]
    if not locks:
        return
    stack = Stack(list(resources))
    for workspace in stack.workspaces:
        kind = kind_unknown(workspace)  # a project is under its hub's network: unknown where a lock would hit it
        network = managed_network_of(workspace, resources)
        if network is None:
            continue
        protected, groups = _protected(workspace, stack)
        under = (f"under the managed network of workspace '{network.name}'" if network is workspace else
                 f"under the managed network of hub '{network.name}' (workspace '{workspace.name}' is its project)")
        for lock in locks:
            try:
                found = _finding(lock, stack, protected, groups, under)
            except CannotLink as unknown:
                expectation = (f"not lock workspace '{workspace.name}', its storage account, key vault or their "
                               f"resource groups {under}")
                yield cannot_tell(f"Management lock '{lock.name}'", expectation, unknown.reason, lock.resource.urn)
                continue
            if found is not None and kind is not None:
                yield cannot_tell(f"Management lock '{lock.name}'", f"not lock workspace '{workspace.name}', its "
                                  "storage account, key vault or their resource groups if under a managed network",
                                  kind, lock.resource.urn)
            elif found is not None:
                yield found


def _finding(lock: LockView, stack: Stack, protected: list[Protected], groups: list[GroupRef],
             under: str) -> Finding | None:
    for item in protected:
        if item.locked_by(lock, stack):
            return _message(lock, item.label, "a lock on one resource", under)
    for group in groups:
        target = group.covered_by(lock)
        if target is not None:
            return _message(lock, f"resource group '{group.label()}' of {group.holder}", target.describe(), under)
    return None


def _message(lock: LockView, what: str, found: str, under: str) -> Finding:
    return Finding(must(f"Management lock '{lock.name}'", f"not lock {what} {under}",
                        f"{found} (\"{SENTENCE}\", {SOURCE})"), lock.resource.urn)


def _protected(workspace: StackResource, stack: Stack) -> tuple[list[Protected], list[GroupRef]]:
    """The workspace, its storage account and key vault, and the groups of those two unless they are the
    workspace's (preview can tell they are: the same known name, or built from the same ResourceGroup)."""
    view = workspace_props(workspace)
    items = [Protected(f"workspace '{workspace.name}'", workspace, lambda: (view.resource_group_name, view.name))]
    own_group = stack.name_at(workspace, "resourceGroupName", is_group)
    groups: list[GroupRef] = []
    dependents: list[tuple[str, str, Callable[[], str | None]]] = [
        ("storage account", view.storage_account_input, lambda: view.storage_account),
        ("key vault", view.key_vault_input, lambda: view.key_vault),
    ]
    for label, prop, read in dependents:
        source = stack.owner(workspace, prop, lambda r: not is_group(r))
        if source is not None:
            items.append(Protected(f"its {label} '{source.name}'", source, functools.partial(_stack_located, source)))
            group = stack.name_at(source, "resourceGroupName", is_group)
            if group.same(own_group) is not True:
                groups.append(GroupRef(f"its {label} '{source.name}'", group, None, stack))
            continue
        parsed = parse_arm_id(read())
        if parsed is None or parsed.kind != "resource":
            continue
        located = (parsed.resource_group, parsed.name)
        items.append(Protected(f"its {label} '{parsed.name}'", None, functools.partial(_known, located)))
        if Name(parsed.resource_group).same(own_group) is not True:
            groups.append(GroupRef(f"its {label} '{parsed.name}'", Name(parsed.resource_group), parsed.subscription,
                                   stack))
    return items, groups


def _stack_located(resource: StackResource) -> tuple[str | None, str | None]:
    """(resource group, Azure name) of a storage account or key vault of either provider."""
    props = resource.props
    name = props.get("accountName", props.get("vaultName", props.get("name")))
    group = props.get("resourceGroupName")
    return (None if group is None else str(group)), (None if name is None else str(name))


def _known(pair: tuple[str | None, str | None]) -> tuple[str | None, str | None]:
    return pair


RULE = Rule(
    name="aml-managed-network-no-locks",
    ref="AMLK-0039",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.3.0",
    display_name="No locks under a managed network",
    group="locks",
    description="Under a workspace's managed network (a project's: its hub's), no management lock may cover the "
    "workspace, the storage account or key vault it uses, or their resource groups (directly, or inherited from a "
    f"subscription or management group): \"{SENTENCE}\" ({SOURCE}). The workspace's own resource group is "
    "aml-no-resource-group-lock's finding.",
    severity="high",
    level="mandatory",
    tags=("reliability", "network"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-managed-network#limitations",
    remediation="Remove locks from a managed-network workspace, its storage account and key vault and their "
    "resource groups; protect them with RBAC (who may delete or change them) and Azure Policy instead. Locks on "
    "individual resources remain the advice for workspaces without a managed network.",
    check_stack=check_stack,
)
