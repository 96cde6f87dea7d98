"""aml-no-resource-group-lock: no management lock covers a resource group a workspace or a compute's
subnet lives in.

Facts (docs/azure-facts.md, "Resource locks"; Azure ML "Secure a training environment with virtual networks"):
a lock on the resource group that holds the workspace blocks cluster scaling (clusters stall resizing
0 -> 0); clusters and instances create an IP address, an NSG and a load balancer, with a customer VNet
in the VNet's resource group, and a lock there makes creation, scale-out or scale-in fail. Lock
individual resources instead (storage account, key vault, workspace).

Where locks hide: a subscription lock (`ManagementLockAtSubscriptionLevel`, or `ManagementLockByScope`
on `/subscriptions/<id>`) and a management-group lock are inherited by every resource group below
them, so they count as resource-group locks. A subscription lock's subscription is the provider's,
never an input, so it always counts; a ByScope subscription or group id counts unless it names
another subscription than a subnet id does. Locks on one resource (`ManagementLockAtResourceLevel`,
ByScope on a resource id) are fine. A resource-group lock whose `resourceGroupName` was built from the
same ResourceGroup resource as the workspace's counts even while the name is unknown at preview.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from amlkit.policies.arm import (
    LOCK_BY_SCOPE,
    GroupRef,
    LockView,
    compute_groups,
    is_lock,
    parse_arm_id,
    subnet_groups,
    workspace_groups,
)
from amlkit.policies.azure import read_known
from amlkit.policies.framework import Finding, Rule, StackResource, cannot_tell, must
from amlkit.policies.links import CannotLink, Stack

__all__ = ["RULE", "check_stack"]


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    locks = [LockView(r) for r in resources if is_lock(r)]
    if not locks:
        return
    stack = Stack(list(resources))
    groups = [*workspace_groups(list(resources), stack), *compute_groups(list(resources), stack),
              *subnet_groups(list(resources), stack)]
    if not groups:
        return
    for lock in locks:
        yield from _unparseable_scope(lock)
        yield from _covered(lock, groups)


def _covered(lock: LockView, groups: list[GroupRef]) -> Iterator[Finding]:
    """One finding per group (and holder) the lock covers; one unknown when preview cannot tell whether it covers
    one."""
    undecided: list[str] = []
    for group in groups:
        try:
            target = group.covered_by(lock)
        except CannotLink as unknown:
            undecided.append(unknown.reason)
            continue
        if target is not None:
            yield Finding(_message(lock, group, target.describe()), lock.resource.urn)
    if undecided:
        expectation = ("not cover the resource group of a workspace or of a compute's subnet (a lock there blocks "
                       "cluster scaling)")
        yield cannot_tell(f"Management lock '{lock.name}'", expectation, undecided[0], lock.resource.urn)


def _unparseable_scope(lock: LockView) -> Iterator[Finding]:
    """Fail closed: a ByScope lock whose scope is not an ARM id might cover anything."""
    known, scope = read_known(lock.scope_text)
    if lock.is_type(LOCK_BY_SCOPE) and known and parse_arm_id(scope) is None:
        expectation = "have an ARM resource id as scope, so that what it locks can be checked"
        yield Finding(must(f"Management lock '{lock.name}'", expectation, repr(scope)), lock.resource.urn)


def _message(lock: LockView, group: GroupRef, found: str) -> str:
    expectation = (
        f"not cover resource group '{group.label()}', which holds {group.holder} (a lock there blocks "
        "cluster scaling); lock individual resources instead"
    )
    return must(f"Management lock '{lock.name}'", expectation, found)


RULE = Rule(
    name="aml-no-resource-group-lock",
    ref="AMLK-0016",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="No lock on the workspace's resource group",
    group="locks",
    description="No management lock may cover the resource group of a workspace or of a compute's subnet "
    "(directly, or inherited from a subscription or management group).",
    severity="high",
    level="mandatory",
    tags=("reliability", "governance"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-secure-training-vnet",
    remediation="Remove the resource-group, subscription or management-group lock and lock the individual "
    "resources instead (ManagementLockAtResourceLevel, or ManagementLockByScope on a resource id): the "
    "storage account, key vault and workspace, unless the workspace has a managed network: then lock none of them "
    "(how-to-managed-network.md, Limitations: no scope locks on the Azure Machine Learning resources and resource "
    "group; aml-managed-network-no-locks). Never lock the service-managed azurebatch resources.",
    check_stack=check_stack,
)
