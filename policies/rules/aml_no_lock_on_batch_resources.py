"""aml-no-lock-on-batch-resources: no lock on the service-managed Azure Batch resources of a cluster.

Facts (docs/azure-facts.md, "Resource locks"): Azure ML creates `<GUID>-azurebatch-cloudservicenetworksecuritygroup`,
`<GUID>-azurebatch-cloudservicepublicip` and `<GUID>-azurebatch-cloudserviceloadbalancer` for clusters
and instances (in the VNet's resource group with a customer VNet) and must be able to change and delete
them; never lock them. A lock targets one of them through `ManagementLockAtResourceLevel`
(`resourceName`) or `ManagementLockByScope` (the last segment of a resource `scope`). Names compare
case-insensitively; the docs' misspelling `...networksecurityggroup` is matched too. Locks on a whole
resource group or subscription are `aml-no-resource-group-lock`'s concern.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from amlkit.policies.arm import LOCK_AT_RESOURCE, LOCK_BY_SCOPE, LockView, is_lock
from amlkit.policies.framework import Finding, Rule, StackResource, must

__all__ = ["BATCH_RESOURCE", "RULE", "check_stack", "is_batch_resource"]

BATCH_RESOURCE = re.compile(
    r"^.+-azurebatch-cloudservice(?:networksecurityg?group|publicip|loadbalancer)$", re.IGNORECASE
)


def is_batch_resource(name: str | None) -> bool:
    return name is not None and BATCH_RESOURCE.match(name) is not None


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    for resource in resources:
        if not is_lock(resource):
            continue
        lock = LockView(resource)
        if not (lock.is_type(LOCK_AT_RESOURCE) or lock.is_type(LOCK_BY_SCOPE)):
            continue
        target = lock.target()
        if target is not None and target.kind == "resource" and is_batch_resource(target.resource_name):
            expectation = (
                "not lock a service-managed Azure Batch resource (Azure ML must be able to change and "
                "delete it)"
            )
            yield Finding(must(f"Management lock '{lock.name}'", expectation, f"'{target.resource_name}'"),
                          resource.urn)


RULE = Rule(
    name="aml-no-lock-on-batch-resources",
    ref="AMLK-0017",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="No lock on Azure Batch resources",
    group="locks",
    description="No management lock may target the azurebatch-cloudservice network security group, public "
    "IP or load balancer that Azure ML manages for compute.",
    severity="high",
    level="mandatory",
    tags=("reliability", "governance"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-secure-training-vnet",
    remediation="Delete the lock on the <GUID>-azurebatch-cloudservice* resource; lock the workspace, "
    "storage account and key vault instead, unless the workspace has a managed network: then lock none of them "
    "(how-to-managed-network.md, Limitations: no scope locks on the Azure Machine Learning resources and resource "
    "group; aml-managed-network-no-locks).",
    check_stack=check_stack,
)
