"""aml-no-aks-created-through-aml: AKS / Kubernetes computes attach an existing cluster, never create one."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.azure import compute_subject, compute_view, same_value
from amlkit.policies.framework import Finding, ResourceInput, Rule, alz, must

__all__ = ["KUBERNETES_TYPES", "RULE", "check"]

KUBERNETES_TYPES = ("AKS", "Kubernetes")


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    compute = compute_view(resource.type, resource.props)
    if compute is None:
        return
    if not any(same_value(compute.compute_type, kind) for kind in KUBERNETES_TYPES):
        return
    if not compute.resource_id:
        yield Finding(must(compute_subject(resource.name, compute),
                           "attach an existing cluster through resourceId, not have Azure ML create one",
                           "no resourceId"))


RULE = Rule(
    name="aml-no-aks-created-through-aml",
    ref="AMLK-0015",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="No AKS created through Azure ML",
    group="compute",
    equivalents=(
        alz("Deny-MachineLearning-Aks"),
    ),
    description="AKS and Kubernetes computes must attach an existing cluster (properties.resourceId set); "
    "Azure ML must not create AKS clusters. ALZ Deny-MachineLearning-Aks.",
    severity="medium",
    level="advisory",
    tags=("governance", "security"),
    url="https://github.com/Azure/Enterprise-Scale/blob/main/src/resources/Microsoft.Authorization/"
    "policyDefinitions/Deny-MachineLearning-Aks.json",
    remediation="Create the AKS cluster with its own governed definition (network, identity, upgrades, "
    "policies), install the Azure ML extension, then attach it: set properties.resource_id to the cluster's "
    "ARM id. A cluster created through Azure ML escapes the platform's AKS controls.",
    check=check,
)
