"""aml-workspace-user-assigned-identity: workspaces run as a user-assigned managed identity.

Facts (docs/azure-facts.md, "Workspace settings" and "Identity"; Azure Policy 5f0c7d88 "Azure Machine
Learning Workspaces should use user-assigned managed identity", PSRule AZR-000407): the identity type
must include UserAssigned (`UserAssigned` or `SystemAssigned,UserAssigned`) and
`primaryUserAssignedIdentity` must name the one the workspace uses. Serverless compute cannot use a
system-assigned identity. Type names compare case-insensitively.

`primaryUserAssignedIdentity` is "the user assigned identity resource id that represents the workspace
identity" (ARM schema, as shipped in pulumi-azure-native 3.29 machinelearningservices/workspace.py), so
it must be one of the identities the workspace is given in `identity.userAssignedIdentities`; PSRule
Azure.ML.UserManagedIdentity (AZR-000407, Azure/PSRule.Rules.Azure src/PSRule.Rules.Azure/rules/
Azure.ML.Rule.yaml) requires that list as well. ARM ids compare case-insensitively.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.azure import WorkspaceView, workspace_view
from amlkit.policies.framework import Finding, ResourceInput, Rule, azure_policy, mcsb, must, psrule

__all__ = ["EXPECTATION", "RULE", "check"]

EXPECTATION = ("use a user-assigned identity (identity type including UserAssigned and primaryUserAssignedIdentity "
               "set to one of identity.userAssignedIdentities)")


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    workspace = workspace_view(resource.type, resource.props)
    if workspace is None:
        return
    found = _problem(workspace)
    if found is not None:
        yield Finding(must(f"Workspace '{resource.name}'", EXPECTATION, found))


def _problem(workspace: WorkspaceView) -> str | None:
    kind = workspace.identity_type
    if kind is None:
        return "no identity"
    if "userassigned" not in {part.strip().lower() for part in kind.split(",")}:
        return f"identity type {kind}"
    primary = workspace.primary_user_assigned_identity
    if not primary:
        return "no primaryUserAssignedIdentity"
    listed = workspace.user_assigned_identities
    if not listed:
        return f"primaryUserAssignedIdentity {primary} but no identity.userAssignedIdentities"
    if str(primary).lower() not in {str(identity).lower() for identity in listed}:
        count = f"{len(listed)} listed" if len(listed) > 1 else "1 listed"
        return f"primaryUserAssignedIdentity {primary}, which is not one of identity.userAssignedIdentities ({count})"
    return None


RULE = Rule(
    name="aml-workspace-user-assigned-identity",
    ref="AMLK-0024",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Workspace user-assigned identity",
    group="workspace",
    compliance=mcsb("IM-3", "Manage application identities securely and automatically", "mcsb-identity-management"),
    equivalents=(
        azure_policy("5f0c7d88-c7de-45b8-ac49-db49e72eaa78",
            "Azure Machine Learning Workspaces should use user-assigned managed identity"),
        psrule("AZR-000407", "Azure.ML.UserManagedIdentity"),
    ),
    stack_key="identity",
    description="Workspaces must use a user-assigned managed identity as their primary identity: identity "
    "type including UserAssigned, and primaryUserAssignedIdentity set to one of identity.userAssignedIdentities.",
    severity="medium",
    level="advisory",
    tags=("identity", "security"),
    url="https://github.com/Azure/azure-policy/blob/master/built-in-policies/policyDefinitions/"
    "Machine%20Learning/Workspace_UAIEnabled_Audit.json",
    remediation="Set identity.type to UserAssigned (stack: identity.type: user_assigned) with the identity's ARM id "
    "in user_assigned_identities, and primary_user_assigned_identity to that same id (one of the listed "
    "identities); grant it the roles the workspace needs first.",
    check=check,
)
