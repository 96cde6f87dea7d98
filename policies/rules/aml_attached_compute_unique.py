"""aml-attached-compute-unique: a workspace attaches each existing resource through one compute only."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from amlkit.policies.azure import ATTACHED, ComputeView, compute_of, compute_subject, workspace_of, workspaces_by_key
from amlkit.policies.framework import Finding, Rule, StackResource, must


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    """Every compute of a group attaching the same target is reported, naming the others (the stack's
    registration order says nothing about which attachment Azure would keep)."""
    workspaces = workspaces_by_key(resources)
    groups: dict[tuple[Any, ...], list[tuple[StackResource, ComputeView, str]]] = {}
    for resource in resources:
        compute = compute_of(resource.type, resource.props, ATTACHED)
        if compute is None or not compute.resource_id:
            continue  # nothing attached (aml-no-aks-created-through-aml reports AKS without resourceId)
        workspace, workspace_name = _workspace(resource, compute, workspaces)
        groups.setdefault((workspace, *target_key(compute)), []).append((resource, compute, workspace_name))
    for group in groups.values():
        if len(group) < 2:
            continue
        for resource, compute, workspace_name in group:
            others = ", ".join(sorted(f"'{other.name}'" for other, _, _ in group if other is not resource))
            expectation = f"attach a resource no other compute of workspace '{workspace_name}' attaches"
            found = f"{_target_text(compute)} also attached by {others}"
            yield Finding(must(compute_subject(resource.name, compute), expectation, found), resource.urn)


def target_key(compute: ComputeView) -> tuple[str, ...]:
    """What one attachment takes: the resource id (any casing); a Kubernetes cluster per namespace."""
    resource_id = str(compute.resource_id).lower()
    if compute.compute_type == "Kubernetes":
        return (resource_id, compute.namespace)
    return (resource_id,)


def _target_text(compute: ComputeView) -> str:
    if compute.compute_type == "Kubernetes":
        return f"{compute.resource_id} (namespace {compute.namespace})"
    return str(compute.resource_id)


def _workspace(resource: StackResource, compute: ComputeView,
        workspaces: Mapping[tuple[str, str], Any]) -> tuple[Any, str]:
    """(identity, name) of the compute's workspace: the stack's workspace resource, else its ARM names."""
    workspace = workspace_of(resource, workspaces)
    if workspace is not None:
        return workspace.urn, workspace.name
    group, name = compute.resource_group_name, compute.workspace_name
    return ((group or "").lower(), (name or "").lower()), str(name)


RULE = Rule(
    name="aml-attached-compute-unique",
    ref="AMLK-0031",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="One attachment per resource",
    group="compute",
    description="No two computes of one workspace may attach the same resource (properties.resourceId, compared "
    "case-insensitively; a Kubernetes cluster once per namespace): each new attachment breaks the earlier ones. "
    "Every compute of such a group is reported. Covers every attached compute type (Kubernetes, AKS, "
    "VirtualMachine, SynapseSpark, HDInsight, Databricks, DataFactory, DataLakeAnalytics); a resourceId unknown "
    "at preview makes the rule 'can't be known'.",
    severity="high",
    level="mandatory",
    tags=("reliability", "governance"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-attach-compute-targets#limitations",
    remediation="Attach each resource once per workspace: remove all but one of the computes, or point them at "
    "other resources. To change an attachment's settings, change the one compute: Azure ML needs the old "
    "attachment removed first, which the amlkit attached-compute components do (replace on change, delete before "
    "replace); with raw azure-native resources set replace_on_changes and delete_before_replace yourself. One "
    "Kubernetes cluster may serve several computes of a workspace in different namespaces "
    "(https://learn.microsoft.com/azure/machine-learning/how-to-attach-kubernetes-to-workspace).",
    check_stack=check_stack,
)
