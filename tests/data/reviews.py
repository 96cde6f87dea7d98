"""Hand-built reviews the report-format tests render: one clean, one with every kind of finding, one failed.

The values mirror what the engine produces (engine-shaped URNs, redacted inputs), so the golden
outputs in the format tests read like real reports.
"""

from __future__ import annotations

import dataclasses

from amlkit.review.model import (
    PackInfo,
    PolicyInfo,
    Remediation,
    ResourceRecord,
    Review,
    StackReview,
    Unknown,
    Violation,
)

COMPUTE = "azure-native:machinelearningservices:Compute"
WORKSPACE = "azure-native:machinelearningservices:Workspace"
SECRET_SIG = "4dabf18193072939515e22adb298388d"
SECRET_VALUE = "s3cr3t-Passw0rd!"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"


def urn(stack: str, type_chain: str, name: str) -> str:
    return f"urn:pulumi:{stack}::amlkit::{type_chain}::{name}"


MIN_NODES = PolicyInfo(
    name="aml-cluster-min-nodes-zero",
    description="AmlCompute clusters scale down to zero nodes when idle.",
    level="mandatory",
    severity="high",
    remediation="Set min_instances: 0 on the cluster in the stack file.",
    url="https://learn.microsoft.com/azure/machine-learning/how-to-create-attach-compute-cluster",
    tags=("cost",),
    ref="AMLK-0001",
    since="0.1.0",
    stack_key="min_instances",
)
SSH = PolicyInfo(
    name="aml-cluster-ssh-disabled",
    description="Cluster SSH ports are explicitly closed.",
    level="advisory",
    severity="high",
    remediation="Set ssh_public_access_enabled: false.",
    url="https://learn.microsoft.com/azure/machine-learning/how-to-secure-training-vnet",
    tags=("security", "network"),
    ref="AMLK-0008",
    since="0.2.0",
    group="compute",
    display_name="No public SSH on compute",
    framework=("Microsoft cloud security benchmark", "v1", "NS-1", "Establish network segmentation boundaries"),
    stack_key="ssh_public_access_enabled",
)
PUBLIC_IP = PolicyInfo(
    name="aml-compute-no-public-ip",
    description="Compute nodes have no public IP address.",
    level="mandatory",
    severity="medium",
    remediation="Set enable_node_public_ip: false and give the cluster a subnet.",
    tags=("network", "security"),
    stack_key="enable_node_public_ip",
)
QUOTA = PolicyInfo(
    name="aml-quota-budget",
    description="Clusters fit the core quota.",
    level="disabled",
    severity="low",
    stack_policy=True,
)
PACK = PackInfo(name="amlkit-guardrails", version="0.1.0", policies=(SSH, MIN_NODES, PUBLIC_IP, QUOTA))


def prod_resources() -> list[ResourceRecord]:
    env = urn("prod", "amlkit:index:Environment", "prod")
    ws_c = urn("prod", "amlkit:index:Environment$amlkit:index:Workspace", "mlw-prod")
    cl_c = urn("prod", "amlkit:index:Environment$amlkit:index:ComputeCluster", "cpu-cluster")
    return [
        ResourceRecord(urn=env, type="amlkit:index:Environment", name="prod", custom=False),
        ResourceRecord(urn=ws_c, type="amlkit:index:Workspace", name="mlw-prod", parent=env, custom=False),
        ResourceRecord(
            urn=urn("prod", "amlkit:index:Environment$amlkit:index:Workspace$" + WORKSPACE, "mlw-prod"),
            type=WORKSPACE,
            name="mlw-prod",
            parent=ws_c,
            inputs={
                "workspaceName": "mlw-prod",
                "publicNetworkAccess": "Disabled",
                "managedNetwork": {"isolationMode": "AllowOnlyApprovedOutbound"},
                "identity": {"type": "SystemAssigned"},
            },
            options={"protect": True},
        ),
        ResourceRecord(
            urn=urn("prod", "amlkit:index:Environment$amlkit:index:Workspace$"
                    "azure-native:authorization:ManagementLockByScope", "mlw-prod-lock"),
            type="azure-native:authorization:ManagementLockByScope",
            name="mlw-prod-lock",
            parent=ws_c,
            inputs={"level": "CanNotDelete", "scope": UNKNOWN},
        ),
        ResourceRecord(urn=cl_c, type="amlkit:index:ComputeCluster", name="cpu-cluster", parent=env, custom=False),
        ResourceRecord(
            urn=cpu_urn(),
            type=COMPUTE,
            name="cpu-cluster",
            parent=cl_c,
            inputs={
                "computeName": "cpu-cluster",
                "identity": {"type": "SystemAssigned"},
                "properties": {
                    "computeType": "AmlCompute",
                    "properties": {
                        "vmSize": "Standard_DS3_v2",
                        "vmPriority": "Dedicated",
                        "scaleSettings": {"minNodeCount": 2.0, "maxNodeCount": 4.0},
                        "subnet": {"id": "/subscriptions/0000/resourceGroups/rg-net/providers/"
                                   "Microsoft.Network/virtualNetworks/vnet-prod/subnets/aml"},
                        "enableNodePublicIp": False,
                        "userAccountCredentials": {
                            "adminUserName": "azureuser",
                            "adminUserPassword": {SECRET_SIG: "1b47061264138c4ac30d75fd1eb44270",
                                                  "value": SECRET_VALUE},
                        },
                    },
                },
            },
        ),
    ]


def cpu_urn() -> str:
    return urn("prod", "amlkit:index:Environment$amlkit:index:ComputeCluster$" + COMPUTE, "cpu-cluster")


def prod_stack() -> StackReview:
    cpu = cpu_urn()
    return StackReview(
        stack="prod",
        project="amlkit",
        environment="prod",
        stack_file="stacks/Pulumi.prod.yaml",
        policy_config="policy-config/prod.json",
        pack=PACK,
        resources=prod_resources(),
        violations=[
            Violation(policy="aml-compute-no-public-ip", level="waived", severity="medium", urn=cpu, type=COMPUTE,
                      resource="cpu-cluster", message="Cluster cpu-cluster must not give nodes a public IP.",
                      pack="amlkit-guardrails", waiver_reason="Migration to the hub network, ticket NET-42",
                      waiver_expires="2026-12-31", waiver="cpu-cluster", waiver_via="entry"),
            Violation(policy="aml-cluster-ssh-disabled", level="advisory", severity="high", urn=cpu, type=COMPUTE,
                      resource="cpu-cluster",
                      message="Cluster cpu-cluster must close the SSH port explicitly; found NotSpecified.",
                      pack="amlkit-guardrails"),
            Violation(policy="aml-cluster-min-nodes-zero", level="mandatory", severity="high", urn=cpu,
                      type=COMPUTE, resource="cpu-cluster",
                      message="Cluster cpu-cluster must scale down to 0 nodes; found minNodeCount 2.\n"
                              "Idle nodes are billed.",
                      pack="amlkit-guardrails"),
        ],
        unknown=[
            Unknown(policy="aml-cluster-same-region", urn=cpu, type=COMPUTE, resource="cpu-cluster",
                    message="can't be known during preview", pack="amlkit-guardrails"),
        ],
    )


def dev_stack() -> StackReview:
    return StackReview(stack="dev", project="amlkit", environment="dev", stack_file="stacks/Pulumi.dev.yaml",
                       pack=PACK)


def failed_stack() -> StackReview:
    return StackReview(stack="staging", project="amlkit", environment="staging",
                       stack_file="stacks/Pulumi.staging.yaml", pack=None,
                       error="program failed: ValueError: bad subnet", error_kind="program")


def config_error_stack() -> StackReview:
    """A component argument error: the stack's own error, with every field of the ConfigError."""
    return StackReview(
        stack="wrongtype", project="platform", environment="wrongtype", stack_file="stacks/Pulumi.wrongtype.yaml",
        error="stack wrongtype: stacks/Pulumi.wrongtype.yaml: component cpu-cluster (amlkit:index:ComputeCluster): "
              "max_nodes: must be a whole number >= 1 (got 'four')",
        error_kind="config",
        error_detail={"file": "stacks/Pulumi.wrongtype.yaml", "key_path": "max_nodes",
                      "problem": "must be a whole number >= 1", "value": "four", "kind": "config",
                      "stack": "wrongtype", "component": "amlkit:index:ComputeCluster::cpu-cluster"},
    )


def full_review() -> Review:
    """Stacks deliberately out of order: every format sorts them."""
    return Review(stacks=[prod_stack(), failed_stack(), dev_stack()])


TAGS = PolicyInfo(name="acme-tags", description="Resources carry an owner tag.", level="mandatory", severity="low")
EXTRA = PackInfo(name="acme-extra", version="2.0.0", policies=(TAGS,), directory="/packs/acme",
                 policy_config="acme.json")


def two_pack_stack() -> StackReview:
    """prod with a second pack, acme-extra (its own config), that finds one more mandatory violation."""
    stack = prod_stack()
    own = dataclasses.replace(PACK, directory="/site-packages/amlkit/policies", policy_config=stack.policy_config)
    extra = Violation(policy="acme-tags", level="mandatory", severity="low", urn=cpu_urn(), type=COMPUTE,
                      resource="cpu-cluster", pack="acme-extra", message="Cluster cpu-cluster must carry an owner tag.")
    return dataclasses.replace(stack, packs=(own, EXTRA), pack=own, violations=(*stack.violations, extra))


REMEDIATE_PACK = dataclasses.replace(PACK, policies=tuple(
    dataclasses.replace(p, level="remediate", remediates=True) if p.name in ("aml-cluster-min-nodes-zero",
                                                                             "aml-cluster-ssh-disabled") else p
    for p in PACK.policies))


def remediated_stack() -> StackReview:
    """prod with min nodes and SSH at level remediate: two remediations on cpu-cluster (one from an omitted value),
    one on a secret (shown as [secret]), and the waived finding left."""
    stack = prod_stack()
    cpu = cpu_urn()
    return dataclasses.replace(
        stack, pack=REMEDIATE_PACK, unknown=(), violations=tuple(v for v in stack.violations if v.level == "waived"),
        remediations=(
            Remediation("aml-cluster-min-nodes-zero", cpu, COMPUTE, "cpu-cluster",
                        "properties.properties.scaleSettings.minNodeCount", 2, 0, pack="amlkit-guardrails"),
            Remediation("aml-cluster-ssh-disabled", cpu, COMPUTE, "cpu-cluster",
                        "properties.properties.remoteLoginPortPublicAccess", None, "Disabled",
                        pack="amlkit-guardrails"),
            Remediation("aml-cluster-ssh-disabled", cpu, COMPUTE, "cpu-cluster",
                        "properties.properties.userAccountCredentials.adminUserName", "[secret]", "azureuser",
                        pack="amlkit-guardrails"),
        ))
