"""aml-workspace-user-assigned-identity: workspaces run as a user-assigned managed identity.

Facts (domain.md, workspace settings and "Serverless compute"; Azure Policy 5f0c7d88 "Azure Machine
Learning Workspaces should use user-assigned managed identity", PSRule AZR-000407): the identity type
must include UserAssigned (`UserAssigned` or `SystemAssigned,UserAssigned`) and
`primaryUserAssignedIdentity` must name the one the workspace uses. Serverless compute cannot use a
system-assigned identity. Type names compare case-insensitively.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.azure import WORKSPACE, WorkspaceView, is_type
from amlkit.policies.framework import Finding, ResourceInput, Rule, must

EXPECTATION = "use a user-assigned identity (identity type including UserAssigned and primaryUserAssignedIdentity set)"


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    if not is_type(resource.type, WORKSPACE):
        return
    found = _problem(WorkspaceView(resource.props))
    if found is not None:
        yield Finding(must(f"Workspace '{resource.name}'", EXPECTATION, found))


def _problem(workspace: WorkspaceView) -> str | None:
    kind = workspace.identity_type
    if kind is None:
        return "no identity"
    if "userassigned" not in {part.strip().lower() for part in kind.split(",")}:
        return f"identity type {kind}"
    if not workspace.primary_user_assigned_identity:
        return "no primaryUserAssignedIdentity"
    return None


RULE = Rule(
    name="aml-workspace-user-assigned-identity",
    description="Workspaces must use a user-assigned managed identity as their primary identity.",
    severity="medium",
    level="advisory",
    tags=("identity", "security"),
    url="https://learn.microsoft.com/azure/machine-learning/policy-reference",
    remediation="Set identity.type to UserAssigned with the identity's ARM id in user_assigned_identities, "
    "and primary_user_assigned_identity to that id; grant it the roles the workspace needs first.",
    check=check,
)
