"""aml-workspace-private-endpoint: a workspace closed to public networks is reachable through a private endpoint.

Facts (azure-ai-docs articles/machine-learning/how-to-configure-private-link.md; how-to-managed-network.md,
introduction): with `publicNetworkAccess` Disabled, clients reach a workspace only through a private endpoint
of group `amlworkspace` in a virtual network. A managed network does not provide one: it isolates *outbound*
traffic of the workspace and its managed computes; *inbound* access is "a private endpoint for the workspace
created in your Azure Virtual Network". A `Project` workspace is reached through its hub's endpoint, so only
hubs and default workspaces are checked. Azure Policy 45e05259 ("Azure Machine Learning workspaces should use
private link"), the ALZ audit `Audit-MachineLearning-PrivateEndpointId` and Checkov CKV_AZURE_243 check the
same connection on deployed or declared workspaces.

An endpoint serves a workspace when one of its private link service connections (automatic or manual) has
group id `amlworkspace` and a `privateLinkServiceId` built from the workspace's outputs (a property dependency,
known even at preview) or naming the workspace's ARM id (resource group and name, case-insensitive).

*Cannot tell* (the third outcome) when no endpoint of this stack serves the workspace but the endpoint could
live elsewhere: the stack reads another stack (a `pulumi:pulumi:StackReference`), or an `amlworkspace`
endpoint's target is unknown at preview.

A stack reference is a *read*, and only an audit of a deployed state passes reads to the pack: `pulumi policy
analyze --file` (and `amlkit check --state`) sends every resource of the snapshot, where the engine keeps reads
(pulumi/pulumi pkg/resource/deploy/analyze_snapshot.go). `pulumi preview`/`up` keeps reads apart from the
registered resources and sends AnalyzeStack the registered ones only (step_executor.go, step_generator.go
AnalyzeResources), and the offline review sends what the engine sends: there a workspace whose endpoint another
stack owns is a finding, to be waived with that reason.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from amlkit.policies.azure import (
    STACK_REFERENCE,
    PrivateEndpointView,
    private_endpoint_view,
    read_known,
    workspace_props,
    workspace_view,
)
from amlkit.policies.framework import (
    Finding,
    Rule,
    StackResource,
    alz,
    azure_policy,
    cannot_tell,
    checkov,
    mcsb,
    must,
)
from amlkit.policies.hubs import is_project, kind_unknown
from amlkit.policies.links import Stack

__all__ = ["EXPECTATION", "RULE", "check_stack"]

EXPECTATION = "have a private endpoint (group amlworkspace) when publicNetworkAccess is Disabled"


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    endpoints = [r for r in resources if private_endpoint_view(r.type, r.props) is not None]
    references = [r.name for r in resources if r.type == STACK_REFERENCE]
    workspaces = [r for r in resources if workspace_view(r.type, r.props) is not None]
    others = {w.urn for w in workspaces}
    stack = Stack(resources)
    for workspace in workspaces:
        view = workspace_props(workspace)
        if view.public_network_access.lower() != "disabled":
            continue
        kind = kind_unknown(workspace)
        if kind is None and is_project(workspace):
            continue
        served, unknown = _served(workspace, endpoints, others - {workspace.urn}, stack)
        if served:
            continue
        subject = f"Workspace '{workspace.name}'"
        if kind is not None:  # a project's private endpoint is its hub's
            yield cannot_tell(subject, EXPECTATION, kind, workspace.urn)
            continue
        if unknown:
            yield cannot_tell(subject, EXPECTATION, f"the target of private endpoint '{unknown[0]}' is unknown at "
                              "preview", workspace.urn)
        elif references:
            yield cannot_tell(subject, EXPECTATION, "no private endpoint in this stack, and the stack reads another "
                              f"stack (StackReference '{references[0]}') where one may be declared", workspace.urn)
        else:
            yield Finding(must(subject, EXPECTATION, "no private endpoint in the stack (a managed network isolates "
                               "outbound traffic only)"), workspace.urn)


def _served(workspace: StackResource, endpoints: list[StackResource], others: set[str],
            stack: Stack) -> tuple[bool, list[str]]:
    """(True, []) when an endpoint of the stack serves the workspace; else (False, endpoints whose target is
    unknown, or whose known target preview cannot tell from this workspace). Endpoints built from another
    workspace's outputs are never read for this one."""
    unknown: list[str] = []
    for endpoint in endpoints:
        view = private_endpoint_view(endpoint.type, endpoint.props)
        assert view is not None
        if any(endpoint.depends_on(prop, workspace.urn) for prop in view.connection_inputs):
            return True, []
        if any(endpoint.depends_on(prop, urn) for prop in view.connection_inputs for urn in others):
            continue
        known, targets = read_known(functools.partial(_workspace_targets, view))
        verdicts = [stack.names_workspace(target, workspace) for target in targets] if known else [None]
        if any(verdicts):
            return True, []
        if None in verdicts:
            unknown.append(endpoint.name)
    return False, unknown



def _workspace_targets(view: PrivateEndpointView) -> list[Any]:
    return view.workspace_targets

RULE = Rule(
    name="aml-workspace-private-endpoint",
    ref="AMLK-0034",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.2.0",
    display_name="Private endpoint for a closed workspace",
    group="workspace",
    compliance=mcsb("NS-2", "Secure cloud services with network controls", "mcsb-network-security"),
    equivalents=(
        azure_policy("45e05259-1eb5-4f70-9574-baf73e9d219b",
                     "Azure Machine Learning workspaces should use private link"),
        checkov("CKV_AZURE_243"),
        alz("Audit-MachineLearning-PrivateEndpointId"),
    ),
    stack_key="private_endpoints",
    description="A workspace with public network access disabled must have a private endpoint (group amlworkspace) "
    "in the stack; a managed network isolates outbound traffic only. Project workspaces use their hub's endpoint.",
    severity="medium",
    level="advisory",
    tags=("security", "network"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-configure-private-link",
    remediation="Give the workspace private_endpoints (stack: private_endpoints, each with subnet_resource_id, "
    "private_dns_zone_resource_ids for privatelink.api.azureml.ms and privatelink.notebooks.azure.net), "
    "or declare a network:PrivateEndpoint with a private link service connection of group amlworkspace to"
    " it. When another stack (a network stack) owns the endpoint, waive the finding on this workspace "
    "with that reason: a preview sees only this stack's resources.",
    check_stack=check_stack,
)
