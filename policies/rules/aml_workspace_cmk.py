"""aml-workspace-cmk: workspaces encrypt their data with a customer-managed key.

Facts (docs/azure-facts.md, "Workspace settings"; Azure Policy ba769a63 "Azure Machine Learning workspaces should
be encrypted with a customer-managed key"): a customer-managed key is
`encryption.keyVaultProperties.keyIdentifier` with `encryption.status` Enabled; without `encryption`
the workspace uses Microsoft-managed keys.

Scope: like the built-in (v1.1.0, Azure/azure-policy built-in-policies/policyDefinitions/Machine Learning/
Workspace_CMKEnabled_Audit.json, condition `not kind equals project`), workspaces of kind `Project` are
not checked (the Hub workspace a project is created in is checked like any other). Kinds compare
case-insensitively, as Azure Policy's `equals` does; a missing kind means Default.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from amlkit.policies.azure import WorkspaceView, same_value, workspace_view
from amlkit.policies.framework import Finding, ResourceInput, Rule, azure_policy, mcsb, must

__all__ = ["RULE", "check"]


def check(resource: ResourceInput, config: Mapping[str, Any]) -> Iterator[Finding]:
    workspace = workspace_view(resource.type, resource.props)
    if workspace is None or same_value(workspace.kind, "Project"):
        return
    found = _problem(workspace)
    if found is not None:
        yield Finding(must(f"Workspace '{resource.name}'", "be encrypted with a customer-managed key", found))


def _problem(workspace: WorkspaceView) -> str | None:
    if not workspace.cmk_key_identifier:
        return "no encryption.keyVaultProperties.keyIdentifier"
    status = str(workspace.encryption_status or "none")
    return None if status.lower() == "enabled" else f"encryption.status {status}"


RULE = Rule(
    name="aml-workspace-cmk",
    ref="AMLK-0022",  # frozen: never change or reuse (pinned by PUBLIC in the rule's test module)
    since="0.1.0",
    display_name="Workspace customer-managed key",
    group="workspace",
    compliance=mcsb("DP-5",
        "Use customer-managed key option in data at rest encryption when required", "mcsb-data-protection"),
    equivalents=(
        azure_policy("ba769a63-b8cc-4b2d-abf6-ac33c7204be8",
            "Azure Machine Learning workspaces should be encrypted with a customer-managed key"),
    ),
    stack_key="customer_managed_key",
    description="Workspaces must be encrypted with a customer-managed key "
    "(encryption.keyVaultProperties.keyIdentifier, status Enabled). Workspaces of kind Project are not "
    "checked, as in Azure Policy ba769a63; their Hub is.",
    severity="medium",
    level="advisory",
    tags=("security",),
    url="https://github.com/Azure/azure-policy/blob/master/built-in-policies/policyDefinitions/"
    "Machine%20Learning/Workspace_CMKEnabled_Audit.json",
    remediation="Set encryption with status Enabled and key_vault_properties (key_vault_arm_id, key_identifier; "
    "stack: customer_managed_key with key_vault and key_uri) pointing at a key in a key vault with purge "
    "protection. It can only be set at creation. Project workspaces are skipped (as by ba769a63): set it "
    "on their Hub.",
    check=check,
)
