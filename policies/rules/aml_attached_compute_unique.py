"""aml-attached-compute-unique: a workspace attaches each existing resource through one compute only.

Facts (`amlkit.azure_facts.MULTI_ATTACH_KINDS`): "Each new attachment will break the previous existing
attachment(s)" holds for the attach-once types (AKS, VirtualMachine, SynapseSpark, HDInsight, Databricks,
DataFactory, DataLakeAnalytics: MicrosoftDocs/azure-ai-docs articles/machine-learning/v1/how-to-attach-compute-
targets.md, "Limitations"). A Kubernetes cluster (the v2 type) may be attached to the same workspace several times,
one compute target per team or namespace (articles/machine-learning/how-to-attach-kubernetes-to-workspace.md,
"Multi-attach and workload isolation"), so Kubernetes computes are not checked here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from amlkit import azure_facts as facts
from amlkit.policies.azure import ATTACHED, ComputeView, compute_of, compute_subject
from amlkit.policies.framework import CannotLink, Change, Finding, Rule, StackResource, must
from amlkit.policies.links import Name, Workspaces, linked, workspaces_by_key

__all__ = ["ATTACH_ONCE", "RULE", "check_stack", "target_key"]

ATTACH_ONCE = tuple(kind for kind in ATTACHED if kind not in facts.MULTI_ATTACH_KINDS)
"""The attached compute types a workspace may attach only once."""


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    """Every compute of a group attaching the same target is reported, naming the others (the stack's
    registration order says nothing about which attachment Azure would keep)."""
    workspaces = workspaces_by_key(resources)
    groups: dict[tuple[Any, ...], list[tuple[StackResource, ComputeView, str]]] = {}
    for resource in resources:
        compute = compute_of(resource.type, resource.props, ATTACH_ONCE)
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
    """What one attachment takes: the resource id (any casing)."""
    return (str(compute.resource_id).lower(),)


def _target_text(compute: ComputeView) -> str:
    return str(compute.resource_id)


def _workspace(resource: StackResource, compute: ComputeView, workspaces: Workspaces) -> tuple[Any, str]:
    """(identity, name) of the compute's workspace: the stack's workspace resource, else its ARM names (as preview
    knows them: a name built from a stack resource is that resource); `CannotLink` when preview cannot tell."""
    workspace, _ = linked(resource, workspaces)
    if workspace is not None:
        return workspace.urn, workspace.name
    ref = workspaces.stack.compute_ref(resource)
    return (_identity(ref.group, resource), _identity(ref.name, resource)), ref.name.shown()


def _identity(name: Name, resource: StackResource) -> str:
    if name.known:
        return (name.text or "").lower()
    if name.sources:
        return min(name.sources)
    raise CannotLink(f"the workspace of compute '{resource.name}' is unknown until deployment")


RULE = Rule(
    name="aml-attached-compute-unique",
    ref="AMLK-0031",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    changed=(
        Change("0.2.0", "Kubernetes computes are no longer checked: a workspace may attach one Kubernetes cluster "
               "several times (how-to-attach-kubernetes-to-workspace.md, 'Multi-attach and workload isolation')"),
    ),
    display_name="One attachment per resource",
    group="compute",
    description="No two computes of one workspace may attach the same resource (properties.resourceId, compared "
    "case-insensitively) when its compute type is attached once: each new attachment breaks the earlier ones (AKS, "
    "VirtualMachine, SynapseSpark, HDInsight, Databricks, DataFactory, DataLakeAnalytics; the v1 attach docs' "
    "limitation). Every compute of such a group is reported. Kubernetes computes are not checked: Azure ML lets "
    "a workspace attach one Kubernetes cluster several times, one compute target per team or namespace "
    "(how-to-attach-kubernetes-to-workspace.md). A resourceId unknown at preview makes the rule 'can't be known'.",
    severity="high",
    level="mandatory",
    tags=("reliability", "governance"),
    url="https://learn.microsoft.com/azure/machine-learning/v1/how-to-attach-compute-targets#limitations",
    remediation="Attach each resource once per workspace: remove all but one of the computes, or point them at "
    "other resources. To change an attachment's settings, change the one compute: Azure ML needs the old "
    "attachment removed first, which the amlkit attached-compute components do (replace on change, delete before "
    "replace); with raw azure-native resources set replace_on_changes and delete_before_replace yourself. A "
    "Kubernetes cluster may serve several computes of a workspace; give each its own namespace to isolate the "
    "workloads (https://learn.microsoft.com/azure/machine-learning/how-to-attach-kubernetes-to-workspace).",
    check_stack=check_stack,
)
