"""A realistic `pulumi stack export` of a large Azure ML platform stack, for the state-audit benchmark.

`python bench/auditstate.py OUT.json --resources 100000` writes one stack's state (deployment version 3,
indented as `pulumi stack export` writes it) with the root Stack, the default azure-native provider and
then environments of 20 resources each, shaped like what amlkit's components deploy (the `dev` sample
stack's registrations, `amlkit check -s dev`): the Environment, Workspace, ComputeCluster and
ComputeInstance components; a resource group, Log Analytics, Application Insights (its connection string
an encrypted secret, as an export without `--show-secrets` has it), key vault, storage account, workspace
and its diagnostic setting, four clusters, a compute instance and its role assignment. Inputs are what the
components send; outputs what Azure returns (ids, names, provisioning state, system data; no ARM path
parameters). Every 10th cluster keeps two nodes, so the audit has findings. The file is written
resource by resource: generating 100,000 resources needs little memory.
"""

from __future__ import annotations

import argparse
import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PROJECT = "ml-platform"
STACK = "prod"
SUBSCRIPTION = "00000000-0000-0000-0000-000000000000"
TENANT = "11111111-1111-1111-1111-111111111111"
PROVIDER_ID = "4b0e9a49-2c55-4d8b-8c35-1f0a2d7c6e11"
PER_ENVIRONMENT = 20
ENCRYPTED = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
             "ciphertext": "v1:9nE1Dqk4eGkzQ0qX:Zm9vYmFyYmF6cXV4Y29ubmVjdGlvbnN0cmluZw=="}


def urn(chain: str, name: str) -> str:
    return f"urn:pulumi:{STACK}::{PROJECT}::{chain}::{name}"


ROOT = urn("pulumi:pulumi:Stack", f"{PROJECT}-{STACK}")
PROVIDER = urn("pulumi:providers:azure-native", "default_3_29_0")
ENV = "amlkit:index:Environment"
WS = f"{ENV}$amlkit:index:Workspace"
CLUSTER = f"{ENV}$amlkit:index:ComputeCluster"
INSTANCE = f"{ENV}$amlkit:index:ComputeInstance"
MLS = "azure-native:machinelearningservices"


class _Env:
    """Names and ids of environment number `index`."""

    def __init__(self, index: int) -> None:
        self.env = f"env{index:05d}"
        self.rg = f"rg-ml-{self.env}"
        self.group_id = f"/subscriptions/{SUBSCRIPTION}/resourceGroups/{self.rg}"
        self.tags = {"cost-center": f"{4000 + index % 900}", "environment": self.env, "owner": "ml-platform"}
        self.index = index

    def arm(self, provider_path: str) -> str:
        return f"{self.group_id}/providers/{provider_path}"


def _custom(chain: str, name: str, parent: str, inputs: dict[str, Any], outputs: dict[str, Any],
            depends: dict[str, list[str]], rid: str, **extra: Any) -> dict[str, Any]:
    """A custom resource as the engine stores it (ResourceV3)."""
    dependencies = sorted({u for urns in depends.values() for u in urns})
    created = "2026-10-01T08:00:00.0000000Z"
    system = {"createdAt": created, "createdBy": "ml-platform-deployer", "createdByType": "Application",
              "lastModifiedAt": created, "lastModifiedBy": "ml-platform-deployer", "lastModifiedByType": "Application"}
    full = {"azureApiVersion": "2024-10-01", "id": rid, "name": rid.rsplit("/", 1)[-1],
            "provisioningState": "Succeeded", "systemData": system, **outputs}
    return {"urn": urn(chain, name), "custom": True, "id": rid, "type": chain.rsplit("$", 1)[-1],
            "inputs": inputs, "outputs": full, "parent": parent, "dependencies": dependencies,
            "provider": f"{PROVIDER}::{PROVIDER_ID}",
            "propertyDependencies": {key: depends.get(key, []) for key in inputs}, **extra}


def _component(chain: str, name: str, parent: str) -> dict[str, Any]:
    return {"urn": urn(chain, name), "custom": False, "type": chain.rsplit("$", 1)[-1], "parent": parent}


def _outputs(inputs: dict[str, Any], *path_parameters: str) -> dict[str, Any]:
    """What Azure returns for the inputs: the same body, without the ARM path parameters."""
    return {key: copy.deepcopy(value) for key, value in inputs.items()
            if key not in ("resourceGroupName", *path_parameters)}


def environment(index: int) -> list[dict[str, Any]]:
    """The 20 resources of one environment, parents before children."""
    e = _Env(index)
    env_urn = urn(ENV, e.env)
    ws_component = urn(WS, f"{e.env}-workspace")
    rg_urn = urn(f"{ENV}$azure-native:resources:ResourceGroup", f"{e.env}-rg")
    on_rg = {"resourceGroupName": [rg_urn]}
    suffix = f"{index:06x}"
    logs = e.arm(f"Microsoft.OperationalInsights/workspaces/log-{e.env}")
    appi = e.arm(f"Microsoft.Insights/components/appi-{e.env}")
    vault = e.arm(f"Microsoft.KeyVault/vaults/kv-{e.env}-{suffix}")
    storage = e.arm(f"Microsoft.Storage/storageAccounts/st{e.env}{suffix}")
    workspace = e.arm(f"Microsoft.MachineLearningServices/workspaces/mlw-{e.env}")
    logs_urn = urn(f"{WS}$azure-native:operationalinsights:Workspace", f"{e.env}-workspace-logs")
    appi_urn = urn(f"{WS}$azure-native:applicationinsights:Component", f"{e.env}-workspace-appinsights")
    vault_urn = urn(f"{WS}$azure-native:keyvault:Vault", f"{e.env}-workspace-keyvault")
    storage_urn = urn(f"{WS}$azure-native:storage:StorageAccount", f"{e.env}-workspace-storage")
    ws_urn = urn(f"{WS}${MLS}:Workspace", f"{e.env}-workspace-workspace")
    on_ws = {**on_rg, "workspaceName": [ws_urn]}
    located = {"location": "westeurope", "tags": e.tags}

    rg_in = {"resourceGroupName": e.rg, **located}
    logs_in = {"resourceGroupName": e.rg, "workspaceName": f"log-{e.env}", "sku": {"name": "PerGB2018"},
               "retentionInDays": 30, **located}
    appi_in = {"resourceGroupName": e.rg, "resourceName": f"appi-{e.env}", "kind": "web", "applicationType": "web",
               "flowType": "Bluefield", "requestSource": "rest", "ingestionMode": "LogAnalytics",
               "workspaceResourceId": logs, "publicNetworkAccessForIngestion": "Enabled",
               "publicNetworkAccessForQuery": "Enabled", **located}
    vault_in = {"resourceGroupName": e.rg, "vaultName": f"kv-{e.env}-{suffix}", **located, "properties": {
        "tenantId": TENANT, "sku": {"family": "A", "name": "standard"}, "enableRbacAuthorization": True,
        "enablePurgeProtection": True, "enableSoftDelete": True, "softDeleteRetentionInDays": 90,
        "enabledForDeployment": False, "enabledForDiskEncryption": False, "enabledForTemplateDeployment": False,
        "publicNetworkAccess": "disabled"}}
    storage_in = {"resourceGroupName": e.rg, "accountName": f"st{e.env}{suffix}", "kind": "StorageV2",
                  "sku": {"name": "Standard_ZRS"}, "minimumTlsVersion": "TLS1_2", "allowBlobPublicAccess": False,
                  "allowSharedKeyAccess": False, "allowCrossTenantReplication": False,
                  "defaultToOAuthAuthentication": True, "enableHttpsTrafficOnly": True, "isHnsEnabled": False,
                  "publicNetworkAccess": "Disabled", **located}
    ws_in = {"resourceGroupName": e.rg, "workspaceName": f"mlw-{e.env}", "kind": "Default",
             "identity": {"type": "SystemAssigned"}, "storageAccount": storage, "keyVault": vault,
             "applicationInsights": appi, "publicNetworkAccess": "Disabled", "hbiWorkspace": False,
             "allowPublicAccessWhenBehindVnet": False, "systemDatastoresAuthMode": "identity",
             "managedNetwork": {"isolationMode": "AllowOnlyApprovedOutbound", "enableNetworkMonitor": False},
             "serverlessComputeSettings": {"serverlessComputeNoPublicIP": True}, **located}
    diag_in = {"name": "to-log-analytics", "resourceUri": workspace, "workspaceId": logs,
               "logs": [{"categoryGroup": "allLogs", "enabled": True}],
               "metrics": [{"category": "AllMetrics", "enabled": True}]}
    principal = f"{index:08x}-0d1b-57a3-9e90-565622a50e65"
    listed = [
        _component(ENV, e.env, ROOT),
        _custom(f"{ENV}$azure-native:resources:ResourceGroup", f"{e.env}-rg", env_urn, rg_in,
                _outputs(rg_in) | {"name": e.rg}, {}, e.group_id, protect=True),
        _component(WS, f"{e.env}-workspace", env_urn),
        _custom(f"{WS}$azure-native:operationalinsights:Workspace", f"{e.env}-workspace-logs", ws_component, logs_in,
                _outputs(logs_in, "workspaceName") | {"customerId": principal}, on_rg, logs),
        _custom(f"{WS}$azure-native:applicationinsights:Component", f"{e.env}-workspace-appinsights", ws_component,
                appi_in, _outputs(appi_in, "resourceName") | {"appId": principal, "connectionString": ENCRYPTED,
                                                             "instrumentationKey": ENCRYPTED},
                {**on_rg, "workspaceResourceId": [logs_urn]}, appi,
                additionalSecretOutputs=["connectionString", "instrumentationKey"]),
        _custom(f"{WS}$azure-native:keyvault:Vault", f"{e.env}-workspace-keyvault", ws_component, vault_in,
                _outputs(vault_in, "vaultName"), on_rg, vault, protect=True),
        _custom(f"{WS}$azure-native:storage:StorageAccount", f"{e.env}-workspace-storage", ws_component, storage_in,
                _outputs(storage_in, "accountName") | {"primaryEndpoints": {
                    "blob": f"https://st{e.env}{suffix}.blob.core.windows.net/",
                    "dfs": f"https://st{e.env}{suffix}.dfs.core.windows.net/"}},
                on_rg, storage, protect=True, retainOnDelete=True),
        _custom(f"{WS}${MLS}:Workspace", f"{e.env}-workspace-workspace", ws_component, ws_in,
                _outputs(ws_in, "workspaceName") | {"identity": {"type": "SystemAssigned", "principalId": principal,
                                                                 "tenantId": TENANT}, "workspaceId": principal},
                {**on_rg, "storageAccount": [storage_urn], "keyVault": [vault_urn], "applicationInsights": [appi_urn]},
                workspace, protect=True),
        _custom(f"{WS}$azure-native:monitor:DiagnosticSetting", f"{e.env}-workspace-diagnostics", ws_component,
                diag_in, _outputs(diag_in, "resourceUri"), {"resourceUri": [ws_urn], "workspaceId": [logs_urn]},
                f"{workspace}/providers/Microsoft.Insights/diagnosticSettings/to-log-analytics"),
    ]
    for number in range(4):
        cluster = index * 4 + number
        name = f"{e.env}-cluster-c{number}"
        inputs = {"resourceGroupName": e.rg, "workspaceName": f"mlw-{e.env}", "computeName": f"c{number}",
                  "identity": {"type": "SystemAssigned"}, **located, "properties": {
                      "computeType": "AmlCompute", "description": "Training cluster", "disableLocalAuth": True,
                      "properties": {"vmSize": "Standard_D4ds_v5", "vmPriority": "LowPriority", "osType": "Linux",
                                     "enableNodePublicIp": False, "remoteLoginPortPublicAccess": "Disabled",
                                     "scaleSettings": {"minNodeCount": 2 if cluster % 10 == 9 else 0,
                                                       "maxNodeCount": 4,
                                                       "nodeIdleTimeBeforeScaleDown": "PT120S"}}}}
        listed += [_component(CLUSTER, name, env_urn),
                   _custom(f"{CLUSTER}${MLS}:Compute", f"{name}-compute", urn(CLUSTER, name), inputs,
                           _outputs(inputs, "workspaceName", "computeName"), on_ws,
                           f"{workspace}/computes/c{number}")]
    instance = f"{e.env}-instance-ci-owner"
    instance_urn = urn(f"{INSTANCE}${MLS}:Compute", f"{instance}-compute")
    ci_in = {"resourceGroupName": e.rg, "workspaceName": f"mlw-{e.env}", "computeName": f"ci-{e.env}",
             "identity": {"type": "SystemAssigned"}, **located, "properties": {
                 "computeType": "ComputeInstance", "disableLocalAuth": True, "properties": {
                     "vmSize": "Standard_D4ds_v5", "enableNodePublicIp": False, "enableSSO": True,
                     "applicationSharingPolicy": "Personal", "computeInstanceAuthorizationType": "personal",
                     "idleTimeBeforeShutdown": "PT30M", "sshSettings": {"sshPublicAccess": "Disabled"},
                     "personalComputeInstanceSettings": {"assignedUser": {"objectId": principal, "tenantId": TENANT}},
                     "schedules": {"computeStartStop": [{"action": "Stop", "status": "Enabled", "triggerType": "Cron",
                                                         "cron": {"expression": "0 19 * * *",
                                                                  "timeZone": "W. Europe Standard Time"}}]}}}}
    role_in = {"principalId": principal, "principalType": "ServicePrincipal", "scope": workspace,
               "roleAssignmentName": f"{index:08x}-7ed9-5492-a148-f9b60c5b993a",
               "roleDefinitionId": f"/subscriptions/{SUBSCRIPTION}/providers/Microsoft.Authorization/roleDefinitions/"
                                   "b24988ac-6180-42a0-ab88-20f7382dd24c"}
    listed += [
        _component(INSTANCE, instance, env_urn),
        _custom(f"{INSTANCE}${MLS}:Compute", f"{instance}-compute", urn(INSTANCE, instance), ci_in,
                _outputs(ci_in, "workspaceName", "computeName"), on_ws, f"{workspace}/computes/ci-{e.env}"),
        _custom(f"{INSTANCE}$azure-native:authorization:RoleAssignment", f"{instance}-workspace-contributor",
                urn(INSTANCE, instance), role_in, _outputs(role_in, "roleAssignmentName"),
                {"scope": [ws_urn], "principalId": [instance_urn]},
                f"{workspace}/providers/Microsoft.Authorization/roleAssignments/{role_in['roleAssignmentName']}"),
    ]
    assert len(listed) == PER_ENVIRONMENT
    return listed


def resources(count: int) -> Iterator[dict[str, Any]]:
    """`count` resources: the root Stack, the provider, then whole environments (the last one cut short)."""
    head = [{"urn": ROOT, "custom": False, "type": "pulumi:pulumi:Stack", "outputs": {}},
            {"urn": PROVIDER, "custom": True, "id": PROVIDER_ID, "type": "pulumi:providers:azure-native",
             "inputs": {"version": "3.29.0"}, "outputs": {"version": "3.29.0"}, "parent": ROOT}]
    produced = 0
    index = 0
    while produced < count:
        for resource in head if index == 0 else ():
            if produced < count:
                yield resource
                produced += 1
        for resource in environment(index):
            if produced == count:
                return
            yield resource
            produced += 1
        index += 1


def write(path: Path, count: int) -> int:
    """Write the state of `count` resources to `path`; returns the file's size in bytes."""
    header = {"manifest": {"time": "2026-11-20T10:00:00.000000000Z", "magic": "0" * 64, "version": "v3.272.0"},
              "secrets_providers": {"type": "passphrase", "state": {"salt": "v1:c2FsdA==:v1:AAAA"}}}
    with Path(path).open("w", encoding="utf-8") as out:
        out.write('{\n    "version": 3,\n    "deployment": {\n')
        for key, value in header.items():
            out.write(f"        {json.dumps(key)}: " + _indented(value, 8) + ",\n")
        out.write('        "resources": [\n')
        for number, resource in enumerate(resources(count)):
            out.write((",\n" if number else "") + " " * 12 + _indented(resource, 12))
        out.write("\n        ]\n    }\n}\n")
    return Path(path).stat().st_size


def _indented(value: Any, depth: int) -> str:
    return json.dumps(value, indent=4).replace("\n", "\n" + " " * depth)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--resources", type=int, default=100_000)
    args = parser.parse_args()
    size = write(args.out, args.resources)
    print(f"{args.out}: {args.resources} resources, {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
