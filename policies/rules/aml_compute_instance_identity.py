"""aml-compute-instance-identity: a compute instance's managed identity, which Azure makes optional, holds
Contributor on its workspace, or idle shutdown never stops the instance; with `requireIdentity`, every instance has
one.

Facts (MicrosoftDocs/azure-ai-docs articles/machine-learning/how-to-create-compute-instance.md): assigning a managed
identity to a compute instance is optional ("Assign managed identity"); "If the compute instance is also configured
with a managed identity, the compute instance won't shut down due to inactivity unless the managed identity has
contributor access to the Azure Machine Learning workspace" ("Configure idle shutdown"). So an identity is a choice
with a cost: the instance's identity becomes a workspace Contributor. Advisory by default; one kind of identity
(system XOR user-assigned) is still aml-compute-identity's (mandatory).

The Contributor check (`aml_compute_identity.idle_shutdown`) reads the stack's role assignments; a grant the stack
does not show, or a role or scope unknown until deployment, is reported as unknown, never as a pass.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from amlkit.policies.azure import INSTANCE, compute_of, compute_subject, role_assignment_view
from amlkit.policies.framework import Finding, Rule, StackResource, must
from amlkit.policies.links import workspaces_by_key
from amlkit.policies.rules.aml_compute_identity import Assignments, identity_kinds, idle_shutdown

__all__ = ["NAME", "RULE", "check_stack"]

NAME = "aml-compute-instance-identity"


def check_stack(resources: Sequence[StackResource], config: Mapping[str, Any]) -> Iterator[Finding]:
    required = bool(config.get("requireIdentity", False))
    # indexed once: linear in the stack, not instances x assignments
    assignments = Assignments([r for r in resources if role_assignment_view(r.type, r.props) is not None])
    workspaces = workspaces_by_key(resources)
    for resource in resources:
        compute = compute_of(resource.type, resource.props, INSTANCE)
        if compute is None:
            continue
        subject = compute_subject(resource.name, compute)
        if compute.identity_type is None:
            if required:
                found = "none (the identity is optional in Azure; requireIdentity asks for one)"
                yield Finding(must(subject, "have a managed identity, either SystemAssigned or UserAssigned", found),
                              resource.urn)
            continue
        if identity_kinds(compute.identity_type):  # a malformed identity is aml-compute-identity's finding
            yield from idle_shutdown(subject, resource, compute, assignments, workspaces)


RULE = Rule(
    name=NAME,
    ref="AMLK-0033",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.2.0",
    display_name="Compute instance identity and idle shutdown",
    group="compute",
    stack_key="identity",
    description="A compute instance's managed identity is optional in Azure. When an instance has one, it must hold "
    "Contributor (or Owner) on the workspace, a resource group or subscription above it, or Azure ML never stops "
    "the idle instance (how-to-create-compute-instance.md): checked against the stack's role assignments, unknown "
    "when the stack shows none. With requireIdentity, every instance must have an identity. Advisory by default: "
    "the identity makes the instance a workspace Contributor, a trade-off for the platform team.",
    severity="medium",
    level="advisory",
    tags=("identity", "cost"),
    url="https://learn.microsoft.com/azure/machine-learning/how-to-create-compute-instance#configure-idle-shutdown",
    remediation="Either leave the instance without a managed identity (jobs then use the user's identity), or grant "
    "its identity Contributor on the workspace in the same stack (an authorization.RoleAssignment with principal_id "
    "from the instance or the user-assigned identity and scope = the workspace id; the ComputeInstance component "
    "does it when given workspace_id): Azure ML does not stop an idle instance whose identity lacks it. Set "
    "requireIdentity to report instances without one.",
    check_stack=check_stack,
    config={
        "requireIdentity": {
            "type": "boolean",
            "default": False,
            "description": "Report compute instances without a managed identity (Azure makes it optional).",
        },
    },
)
