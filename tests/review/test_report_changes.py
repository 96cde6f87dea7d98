# ruff: noqa: E501 - the expected table keeps its real line width
"""The plan in each format: exact table text (markers, tree, diffs, errors, outputs, summary), JSON steps
and changeSummary, Markdown with destructive changes first."""

from __future__ import annotations

import json

from amlkit.review.model import ResourceRecord, Review, StackReview, Violation
from amlkit.review.plan.diff import Change, Plan, Step
from amlkit.review.report import changes
from amlkit.review.report import json as report_json
from amlkit.review.report import markdown as report_markdown

P = "urn:pulumi:prod::acme::"
STACK = f"{P}pulumi:pulumi:Stack::acme-prod"
RG = f"{P}azure-native:resources:ResourceGroup::ml-rg"
CLUSTER = f"{P}amlkit:index:ComputeCluster::cpu"
COMPUTE = f"{P}amlkit:index:ComputeCluster$azure-native:machinelearningservices:Compute::cpu-compute"
OLD = f"{P}azure-native:machinelearningservices:Compute::old-compute"
VAULT = f"{P}azure-native:keyvault:Vault::old-vault"
LOCK = f"{P}azure-native:authorization:ManagementLockAtResourceGroupLevel::rg-lock"
WHY = "Azure cannot change properties.properties.vmSize of an existing AmlCompute"
REFUSED = f'unable to delete resource "{VAULT}"\nas it is currently marked for protection.'


def plan() -> Plan:
    steps = (
        Step("update", RG, "azure-native:resources:ResourceGroup", "ml-rg",
             changes=(Change("tags.owner", "update", "data-team", "ml-platform"),)),
        Step("same", CLUSTER, "amlkit:index:ComputeCluster", "cpu", custom=False),
        Step("replace", COMPUTE, "azure-native:machinelearningservices:Compute", "cpu-compute", parent=CLUSTER,
             changes=(Change("properties.properties.vmSize", "update", "Standard_D2ds_v4", "Standard_D4ds_v4", WHY),
                      Change("tags.token", "update", "[secret]", "[secret]")),
             delete_before_replace=True),
        Step("delete", OLD, "azure-native:machinelearningservices:Compute", "old-compute", retain_on_delete=True),
        Step("delete", VAULT, "azure-native:keyvault:Vault", "old-vault", protect=True, error=REFUSED),
        Step("create", LOCK, "azure-native:authorization:ManagementLockAtResourceGroupLevel", "rg-lock"),
    )
    outputs = (Change("newOne", "add", None, 3.0), Change("password", "update", "[secret]", "[secret]"),
               Change("workspaceId", "same", "/ws", "/ws"))
    return Plan("state prod.json", tuple(sorted(steps, key=lambda s: s.urn)), STACK, "same", outputs)


def stack() -> StackReview:
    lock = ResourceRecord(LOCK, "azure-native:authorization:ManagementLockAtResourceGroupLevel", "rg-lock",
                          inputs={"level": "CanNotDelete", "resourceGroupName": "rg-ml"})
    violation = Violation("aml-no-resource-group-lock", "mandatory", "high", LOCK,
                          "azure-native:authorization:ManagementLockAtResourceGroupLevel", "rg-lock", "no locks")
    return StackReview("prod", "acme", "prod", "stacks/Pulumi.prod.yaml", resources=[lock], violations=[violation],
                       plan=plan())


TABLE = """\
Plan against state prod.json:
     Type                                                              Name         Plan     Info
     pulumi:pulumi:Stack                                               acme-prod
     ├─ amlkit:index:ComputeCluster                                    cpu
 +-  │  └─ azure-native:machinelearningservices:Compute                cpu-compute  replace  [diff: ~properties.properties.vmSize ~tags.token]; delete before replace
 +   ├─ azure-native:authorization:ManagementLockAtResourceGroupLevel  rg-lock      create   lock CanNotDelete on resource group rg-ml; ✖ aml-no-resource-group-lock
 -   ├─ azure-native:keyvault:Vault                                    old-vault    delete   protect; REFUSED: protected
 -   ├─ azure-native:machinelearningservices:Compute                   old-compute  delete   retain on delete (stays in Azure)
 ~   └─ azure-native:resources:ResourceGroup                           ml-rg        update   [diff: ~tags.owner]

Changes:
  +- azure-native:machinelearningservices:Compute: (replace) cpu-compute
      [urn=urn:pulumi:prod::acme::amlkit:index:ComputeCluster$azure-native:machinelearningservices:Compute::cpu-compute]
    ~ properties.properties.vmSize: "Standard_D2ds_v4" => "Standard_D4ds_v4"
        replaces: Azure cannot change properties.properties.vmSize of an existing AmlCompute
    ~ tags.token: [secret] => [secret]
  - azure-native:keyvault:Vault: (delete) old-vault
      [urn=urn:pulumi:prod::acme::azure-native:keyvault:Vault::old-vault]
  - azure-native:machinelearningservices:Compute: (delete) old-compute
      [urn=urn:pulumi:prod::acme::azure-native:machinelearningservices:Compute::old-compute]
  ~ azure-native:resources:ResourceGroup: (update) ml-rg
      [urn=urn:pulumi:prod::acme::azure-native:resources:ResourceGroup::ml-rg]
    ~ tags.owner: "data-team" => "ml-platform"

Errors (the engine refuses these steps; `pulumi up` would fail):
    azure-native:keyvault:Vault (old-vault):
      error: unable to delete resource "urn:pulumi:prod::acme::azure-native:keyvault:Vault::old-vault"
      as it is currently marked for protection.

Outputs:
  + newOne     : 3
  ~ password   : [secret] => [secret]
    workspaceId: "/ws"

Resources:
    + 1 to create
    ~ 1 to update
    +-1 to replace
    - 2 to delete
    5 changes. 2 unchanged
"""


def test_table() -> None:
    assert changes.render(stack()).plain == TABLE


def test_table_colours_by_op() -> None:
    text = changes.render(stack())
    styles = {text.plain[span.start:span.end].split()[0]: span.style for span in text.spans
              if text.plain[span.start:span.end].startswith((" +", " ~", " -"))}
    assert styles == {"+-": "magenta", "+": "green", "-": "red", "~": "yellow"}


def test_json_steps_and_change_summary() -> None:
    (data,) = json.loads(report_json.render(Review([stack()])))["stacks"]
    assert data["planBase"] == "state prod.json"
    assert data["changeSummary"] == {"create": 1, "update": 1, "replace": 1, "delete": 2, "same": 2}
    steps = {s["urn"]: s for s in data["steps"]}
    assert steps[COMPUTE] == {
        "op": "replace", "urn": COMPUTE, "type": "azure-native:machinelearningservices:Compute",
        "diffReasons": ["properties", "tags"],
        "detailedDiff": {
            "properties.properties.vmSize": {"kind": "update-replace", "inputDiff": True, "old": "Standard_D2ds_v4",
                                             "new": "Standard_D4ds_v4"},
            "tags.token": {"kind": "update", "inputDiff": True, "old": "[secret]", "new": "[secret]"},
        },
        "replaceReasons": ["properties"], "replaceWhy": {"properties.properties.vmSize": WHY},
        "deleteBeforeReplace": True, "protect": False, "retainOnDelete": False,
    }
    assert steps[VAULT] == {"op": "delete", "urn": VAULT, "type": "azure-native:keyvault:Vault", "protect": True,
                            "retainOnDelete": False, "error": REFUSED}
    assert steps[CLUSTER] == {"op": "same", "urn": CLUSTER, "type": "amlkit:index:ComputeCluster", "protect": False,
                              "retainOnDelete": False}


def test_markdown_puts_destructive_changes_first() -> None:
    text = report_markdown.render(Review([stack()]))
    assert ("**Plan** against state prod.json: Resources: + 1 to create, ~ 1 to update, +-1 to replace, - 2 to "
            "delete, 5 changes. 2 unchanged\n\n"
            "| Change | Resource | Type | Why |\n|---|---|---|---|\n"
            "| ⛔ delete (protected) | `old-vault` | `azure-native:keyvault:Vault` | REFUSED by the engine: "
            "protected |\n"
            f"| replace | `cpu-compute` | `azure-native:machinelearningservices:Compute` | "
            f"properties.properties.vmSize: {WHY} |\n"
            "| delete (retained) | `old-compute` | `azure-native:machinelearningservices:Compute` |  |\n"
            "| create | `rg-lock` | `azure-native:authorization:ManagementLockAtResourceGroupLevel` |  |\n"
            "| update | `ml-rg` | `azure-native:resources:ResourceGroup` | ~tags.owner |\n") in text


def test_markdown_keeps_every_destructive_change_within_the_size_limit() -> None:
    text = report_markdown.render(Review([stack()]), max_chars=100)
    assert "| ⛔ delete (protected) | `old-vault` |" in text
    assert "| replace | `cpu-compute` |" in text and "| delete (retained) | `old-compute` |" in text
    assert "| create | `rg-lock` |" not in text and "| update | `ml-rg` |" not in text
    assert "item(s) left out to keep this comment within GitHub's size limit" in text


def test_a_created_project_shows_its_network_as_its_hubs_against_a_state() -> None:
    """`preview --state`: a project being created next to its hub shows the hub's network settings (a project obtains
    the hub's; concept-hub-workspace.md), not Azure's defaults for its own omitted inputs."""
    workspace = "azure-native:machinelearningservices:Workspace"
    hub_urn, project_urn = f"{P}{workspace}::hub", f"{P}{workspace}::project"
    hub = ResourceRecord(hub_urn, workspace, "hub", inputs={
        "resourceGroupName": "rg-ml", "workspaceName": "mlw-hub", "kind": "Hub", "publicNetworkAccess": "Disabled",
        "managedNetwork": {"isolationMode": "AllowOnlyApprovedOutbound"}})
    project = ResourceRecord(project_urn, workspace, "project", inputs={
        "resourceGroupName": "rg-ml", "workspaceName": "proj", "kind": "Project", "hubResourceId": "[unknown]"},
        options={"propertyDependencies": {"hubResourceId": [hub_urn]}})
    steps = (Step("same", hub_urn, workspace, "hub"), Step("create", project_urn, workspace, "project"))
    review = StackReview("prod", "acme", "prod", "stacks/Pulumi.prod.yaml", resources=[hub, project],
                         plan=Plan("state prod.json", steps, STACK, "same", ()))
    (line,) = [line for line in changes.render(review).plain.splitlines() if " project " in line]
    assert line.split("create", 1)[1].strip() == (
        "kind Project; public network access Disabled (from hub 'hub'); managed network AllowOnlyApprovedOutbound "
        "(from hub 'hub')")
