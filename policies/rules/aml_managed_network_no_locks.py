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

from amlkit.policies.arm import (
    GroupRef,
    LockView,
    is_lock,
    is_resource_group,
    parse_arm_id,
    same_name,
)
from amlkit.policies.azure import workspace_props, workspace_view
from amlkit.policies.framework import Finding, Rule, StackResource, must
from amlkit.policies.hubs import managed_network_of

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

    def locked_by(self, lock: LockView) -> bool:
        if self.resource is not None and (lock.resource.depends_on("scope", self.resource.urn)
                                          or lock.resource.depends_on("resourceName", self.resource.urn)):
            return True
        target = lock.target()
        if target is None or target.kind != "resource":
            return False
        group, name = self.locate()
        return same_name(target.resource_name, name) and same_name(target.resource_group, group)


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    locks = [LockView(r) for r in resources if is_lock(r)]
    if not locks:
        return
    for workspace in resources:
        if workspace_view(workspace.type, workspace.props) is None:
            continue
        network = managed_network_of(workspace, resources)
        if network is None:
            continue
        resources_, groups = _protected(workspace, resources)
        for lock in locks:
            found = _finding(lock, workspace, network, resources_, groups)
            if found is not None:
                yield found


def _finding(lock: LockView, workspace: StackResource, network: StackResource, protected: list[Protected],
             groups: list[GroupRef]) -> Finding | None:
    under = (f"under the managed network of workspace '{network.name}'" if network is workspace else
             f"under the managed network of hub '{network.name}' (workspace '{workspace.name}' is its project)")
    for item in protected:
        if item.locked_by(lock):
            return _message(lock, item.label, "a lock on one resource", under)
    for group in groups:
        target = group.covered_by(lock)
        if target is not None:
            return _message(lock, f"resource group '{group.label()}' of {group.holder}", target.describe(), under)
    return None


def _message(lock: LockView, what: str, found: str, under: str) -> Finding:
    return Finding(must(f"Management lock '{lock.name}'", f"not lock {what} {under}",
                        f"{found} (\"{SENTENCE}\", {SOURCE})"), lock.resource.urn)


def _protected(workspace: StackResource, resources: Sequence[StackResource]) -> tuple[list[Protected], list[GroupRef]]:
    """The workspace, its storage account and key vault, and the groups of those two unless they are the
    workspace's (a stack resource built from the workspace's resource group, or an id naming that group)."""
    view = workspace_props(workspace)
    items = [Protected(f"workspace '{workspace.name}'", workspace, lambda: (view.resource_group_name, view.name))]
    groups: list[GroupRef] = []
    by_urn = {r.urn: r for r in resources}
    rg_urns = {urn for urn, r in by_urn.items() if is_resource_group(r.type)}
    own_rg = set(workspace.property_dependencies.get("resourceGroupName", ())) & rg_urns
    dependents: list[tuple[str, str, Callable[[], str | None]]] = [
        ("storage account", view.storage_account_input, lambda: view.storage_account),
        ("key vault", view.key_vault_input, lambda: view.key_vault),
    ]
    for label, prop, read in dependents:
        source = next((by_urn[u] for u in workspace.property_dependencies.get(prop, ())
                       if u in by_urn and not is_resource_group(by_urn[u].type)), None)
        if source is not None:
            locate = functools.partial(_stack_located, source)
            items.append(Protected(f"its {label} '{source.name}'", source, locate))
            source_rg = set(source.property_dependencies.get("resourceGroupName", ())) & rg_urns
            if not (own_rg and source_rg and source_rg <= own_rg):
                groups.append(GroupRef(f"its {label} '{source.name}'", tuple(source_rg),
                                       functools.partial(_stack_group, source)))
            continue
        parsed = parse_arm_id(read())
        if parsed is None or parsed.kind != "resource":
            continue
        located = (parsed.resource_group, parsed.name)
        items.append(Protected(f"its {label} '{parsed.name}'", None, functools.partial(_known, located)))
        if not same_name(parsed.resource_group, view.resource_group_name):
            groups.append(GroupRef(f"its {label} '{parsed.name}'", (),
                                   functools.partial(_known, (parsed.subscription, parsed.resource_group))))
    return items, groups


def _stack_located(resource: StackResource) -> tuple[str | None, str | None]:
    """(resource group, Azure name) of a storage account or key vault of either provider."""
    props = resource.props
    name = props.get("accountName", props.get("vaultName", props.get("name")))
    group = props.get("resourceGroupName")
    return (None if group is None else str(group)), (None if name is None else str(name))


def _stack_group(resource: StackResource) -> tuple[str | None, str | None]:
    """(subscription, resource group) as GroupRef reads them: the provider's subscription, the group input."""
    return None, _stack_located(resource)[0]


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
