"""Happy-path workspace, lock and diagnostic-setting inputs in the engine's wire form, and a small
builder for stack-rule fixtures (StackResource with URNs and property dependencies)."""

from __future__ import annotations

from typing import Any

from amlkit.policies.framework import StackResource

WORKSPACE_TYPE = "azure-native:machinelearningservices:Workspace"
COMPUTE_TYPE = "azure-native:machinelearningservices:Compute"
RESOURCE_GROUP_TYPE = "azure-native:resources:ResourceGroup"
SUBNET_TYPE = "azure-native:network:Subnet"
LOCK_RG_TYPE = "azure-native:authorization:ManagementLockAtResourceGroupLevel"
LOCK_SUB_TYPE = "azure-native:authorization:ManagementLockAtSubscriptionLevel"
LOCK_RESOURCE_TYPE = "azure-native:authorization:ManagementLockAtResourceLevel"
LOCK_SCOPE_TYPE = "azure-native:authorization:ManagementLockByScope"
DIAGNOSTIC_TYPE = "azure-native:monitor:DiagnosticSetting"
LEGACY_DIAGNOSTIC_TYPE = "azure-native:insights:DiagnosticSetting"

SUB = "00000000-0000-0000-0000-000000000001"
OTHER_SUB = "00000000-0000-0000-0000-000000000002"
IDENTITY_ID = (f"/subscriptions/{SUB}/resourceGroups/rg-ml-prod/providers/"
               "Microsoft.ManagedIdentity/userAssignedIdentities/id-mlw-prod")
KEY_ID = "https://kv-ml-prod.vault.azure.net/keys/cmk/0123456789abcdef0123456789abcdef"
BATCH_GUID = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"


def workspace_props(**overrides: Any) -> dict[str, Any]:
    """A compliant workspace's inputs (every workspace rule passes); keyword args override top-level keys."""
    props: dict[str, Any] = {
        "resourceGroupName": "rg-ml-prod",
        "workspaceName": "mlw-prod",
        "location": "westeurope",
        "kind": "Default",
        "publicNetworkAccess": "Disabled",
        "allowPublicAccessWhenBehindVnet": False,
        "managedNetwork": {"isolationMode": "AllowOnlyApprovedOutbound"},
        "serverlessComputeSettings": {"serverlessComputeNoPublicIP": True},
        "encryption": {
            "status": "Enabled",
            "keyVaultProperties": {
                "keyIdentifier": KEY_ID,
                "keyVaultArmId": f"/subscriptions/{SUB}/resourceGroups/rg-ml-prod/providers/"
                                 "Microsoft.KeyVault/vaults/kv-ml-prod",
            },
        },
        "hbiWorkspace": True,
        "identity": {"type": "UserAssigned", "userAssignedIdentities": [IDENTITY_ID]},
        "primaryUserAssignedIdentity": IDENTITY_ID,
        "tags": {"owner": "ml-platform", "costCenter": "cc-1234"},
    }
    props.update(overrides)
    return props


def rg_lock_props(group: str = "rg-ml-prod") -> dict[str, Any]:
    return {"resourceGroupName": group, "level": "CanNotDelete", "notes": "keep"}


def subscription_lock_props() -> dict[str, Any]:
    return {"level": "CanNotDelete"}


def resource_lock_props(name: str, group: str = "rg-ml-prod",
                        namespace: str = "Microsoft.Storage", type_: str = "storageAccounts") -> dict[str, Any]:
    return {
        "resourceGroupName": group,
        "resourceName": name,
        "resourceProviderNamespace": namespace,
        "resourceType": type_,
        "parentResourcePath": "",
        "level": "CanNotDelete",
    }


def scope_lock_props(scope: str) -> dict[str, Any]:
    return {"scope": scope, "level": "ReadOnly"}


def rg_id(group: str, sub: str = SUB) -> str:
    return f"/subscriptions/{sub}/resourceGroups/{group}"


def workspace_id(group: str = "rg-ml-prod", name: str = "mlw-prod", sub: str = SUB) -> str:
    return f"{rg_id(group, sub)}/providers/Microsoft.MachineLearningServices/workspaces/{name}"


def subnet_id(group: str = "rg-net", sub: str = SUB) -> str:
    return f"{rg_id(group, sub)}/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aml"


def diagnostic_props(resource_uri: str | None = None) -> dict[str, Any]:
    """A diagnostic setting sending every workspace log to Log Analytics."""
    return {
        "name": "diag-mlw-prod",
        "resourceUri": resource_uri or workspace_id(),
        "workspaceId": f"{rg_id('rg-ops')}/providers/Microsoft.OperationalInsights/workspaces/log-ops",
        "logs": [{"categoryGroup": "allLogs", "enabled": True}],
    }


def cluster_in_subnet(subnet: str | None = None, workspace: str = "mlw-prod",
                      group: str = "rg-ml-prod") -> dict[str, Any]:
    """A cluster's inputs with the parts the lock rules read (workspace, group, subnet id)."""
    inner: dict[str, Any] = {"vmSize": "Standard_DS3_v2", "scaleSettings": {"maxNodeCount": 4.0}}
    if subnet is not None:
        inner["subnet"] = {"id": subnet}
    return {
        "resourceGroupName": group,
        "workspaceName": workspace,
        "properties": {"computeType": "AmlCompute", "properties": inner},
    }


def urn(type_: str, name: str) -> str:
    return f"urn:pulumi:prod::amlkit::{type_}::{name}"


def res(type_: str, name: str, props: dict[str, Any], **deps: str | tuple[str, ...]) -> StackResource:
    """A StackResource; keyword args are property dependencies (input name -> URN or URNs)."""
    dependencies = {key: (value,) if isinstance(value, str) else tuple(value) for key, value in deps.items()}
    return StackResource(type_, name, urn(type_, name), props, None, dependencies)


def stack_messages(rule, resources, config=None) -> list[tuple[str, str | None]]:
    """(logical name of the finding's URN, message) pairs, in the rule's order."""
    findings = rule.evaluate_stack(resources, config)
    return [(f.urn.rsplit("::", 1)[-1] if f.urn else None, f.message) for f in findings]
