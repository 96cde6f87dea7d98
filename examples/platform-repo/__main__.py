"""ACME's ML platform: our own network, identity, role assignment and lock, around amlkit's components.

Per stack (`stacks/Pulumi.<stack>.yaml`, keys `acme-ml-platform:*`, see platform_config.py):
- a network resource group with a spoke VNet and the subnet every compute joins;
- an ML resource group with a user-assigned identity that the workspace uses, allowed to join the
  subnet (Network Contributor on the VNet);
- amlkit's Workspace (storage, key vault, monitoring, registry created for it with secure defaults),
  one ComputeCluster per `clusters` entry and one personal ComputeInstance per `instances` entry, all
  in the subnet, without public IPs;
- with `scoring`, a managed online endpoint and its deployment (azure-native, no amlkit component): a model of the
  workspace served on `instances` instances of `size`; the pack judges the deployment's size like a cluster's and
  counts its reserved quota, ceil(1.2 x instances) x the size's vCPUs;
- with `network.lockResourceGroup: true`, a CanNotDelete lock on the network resource group, which
  the policy pack refuses (aml-no-resource-group-lock): Azure ML puts each compute's load balancer,
  public IP and NSG in the subnet's resource group, and a lock there breaks scaling and deletion.
"""

from __future__ import annotations

import uuid

import platform_config
import pulumi
from platform_config import ClusterConfig, InstanceConfig, PlatformConfig, ScoringConfig
from pulumi_azure_native import authorization, managedidentity, network, resources
from pulumi_azure_native import machinelearningservices as ml

from amlkit.components import ComputeCluster, ComputeInstance, Workspace

# Our stack files say `priority: Dedicated | LowPriority` (ARM's words); the components take az ml's tier.
PRIORITY_TIERS = {"Dedicated": "dedicated", "LowPriority": "low_priority"}
NETWORK_CONTRIBUTOR = "4d97b98b-1d4f-4787-a291-c67834d212e7"  # built-in role definition GUID


def role_definition_id(scope: str, role_guid: str) -> str:
    """A built-in role's definition id in the subscription of `scope` (an ARM id)."""
    subscription = "/".join(scope.split("/")[:3])  # "/subscriptions/<id>"
    return f"{subscription}/providers/Microsoft.Authorization/roleDefinitions/{role_guid}"


def build(config: PlatformConfig, environment: str, location: str) -> None:
    tags = {**config.tags, "environment": environment}
    common = {"location": location, "tags": tags}

    network_rg = resources.ResourceGroup("network-rg", resource_group_name=f"rg-acme-network-{environment}", **common)
    vnet = network.VirtualNetwork(
        "vnet",
        resource_group_name=network_rg.name,
        virtual_network_name=f"vnet-acme-ml-{environment}",
        address_space=network.AddressSpaceArgs(address_prefixes=[str(config.network.addressSpace)]),
        **common,
    )
    subnet = network.Subnet(
        "compute-subnet",
        resource_group_name=network_rg.name,
        virtual_network_name=vnet.name,
        subnet_name="snet-aml-compute",
        address_prefix=str(config.network.computeSubnet),
        default_outbound_access=False,
    )
    endpoint_subnet = None
    if config.network.privateEndpointSubnet is not None:
        endpoint_subnet = network.Subnet(
            "endpoint-subnet",
            resource_group_name=network_rg.name,
            virtual_network_name=vnet.name,
            subnet_name="snet-aml-endpoints",
            address_prefix=str(config.network.privateEndpointSubnet),
            default_outbound_access=False,
        )
    if config.network.lockResourceGroup:
        authorization.ManagementLockAtResourceGroupLevel(
            "network-rg-lock",
            resource_group_name=network_rg.name,
            lock_name="network-cannot-delete",
            level="CanNotDelete",
            notes="Protects the spoke network from accidental deletion.",
        )

    ml_rg = resources.ResourceGroup("ml-rg", resource_group_name=f"rg-acme-ml-{environment}", **common)
    identity = managedidentity.UserAssignedIdentity(
        "workspace-identity", resource_group_name=ml_rg.name, resource_name_=f"id-acme-mlw-{environment}", **common
    )
    join_subnet = authorization.RoleAssignment(
        "workspace-identity-network",
        principal_id=identity.principal_id,
        principal_type="ServicePrincipal",
        scope=vnet.id,
        role_definition_id=vnet.id.apply(lambda scope: role_definition_id(scope, NETWORK_CONTRIBUTOR)),
        role_assignment_name=vnet.id.apply(
            lambda scope: str(uuid.uuid5(uuid.NAMESPACE_URL, f"acme/{scope}/{NETWORK_CONTRIBUTOR}"))
        ),
    )

    workspace = Workspace("mlw", {
        "resource_group_name": ml_rg.name,
        "location": location,
        "name": f"mlw-acme-{environment}",
        "public_network_access": "enabled" if config.workspace.publicNetworkAccess == "Enabled" else "disabled",
        # Computes join our subnet, so no managed network (Azure cannot switch one off again later).
        "managed_network": {"isolation_mode": "disabled"},
        # Clients reach a closed workspace through a private endpoint in our spoke network.
        "private_endpoints": {"spoke": {"subnet_resource_id": endpoint_subnet.id}} if endpoint_subnet else None,
        "serverless_compute": {"custom_subnet": subnet.id, "no_public_ip": True},
        "identity": {"type": "user_assigned", "user_assigned_identities": [{"resource_id": identity.id}]},
        "primary_user_assigned_identity": identity.id,
        "hbi_workspace": config.workspace.hbi,
        "locks": config.workspace.lockResources,
        "protect_data": config.workspace.protectData,
        "tags": tags,
    })
    after_role = pulumi.ResourceOptions(depends_on=[join_subnet])
    for cluster in config.clusters:
        cluster_of(cluster, environment, workspace, subnet.id, tags, after_role)
    for instance in config.instances:
        instance_of(instance, str(config.tenantId), workspace, subnet.id, tags, after_role)
    if config.scoring is not None:
        scoring_of(config.scoring, environment, workspace, location, config.workspace.publicNetworkAccess, tags)

    pulumi.export("resource_group_name", ml_rg.name)
    pulumi.export("workspace_name", workspace.workspace_name)
    pulumi.export("compute_subnet_id", subnet.id)
    pulumi.export("workspace_identity_id", identity.id)


def cluster_of(cluster: ClusterConfig, environment: str, workspace: Workspace, subnet_id: pulumi.Output[str],
               tags: dict[str, str], opts: pulumi.ResourceOptions) -> ComputeCluster:
    return ComputeCluster(f"{cluster.name}-cluster", {
        "workspace": workspace,  # its resource group, name and region
        "size": cluster.size,
        "max_instances": cluster.maxNodes,
        "name": f"{cluster.name}-{environment}"[:16],
        "tier": PRIORITY_TIERS[cluster.priority],
        "idle_time_before_scale_down": cluster.idleSeconds,
        "network_settings": {"subnet": subnet_id},
        "tags": tags,
    }, opts)


def instance_of(instance: InstanceConfig, tenant_id: str, workspace: Workspace, subnet_id: pulumi.Output[str],
                tags: dict[str, str], opts: pulumi.ResourceOptions) -> ComputeInstance:
    return ComputeInstance(f"{instance.name}-instance", {
        # its resource group, name and region, and its id: the instance's identity gets Contributor on the
        # workspace, without which idle shutdown never stops the instance
        "workspace": workspace,
        "size": instance.size,
        "name": instance.name,
        "idle_time_before_shutdown_minutes": instance.idleMinutes,
        "schedules": [{"action": "stop", "trigger": {"type": "cron", "expression": "0 19 * * *",
                                                     "time_zone": "W. Europe Standard Time"}}],
        "assigned_user": {"object_id": str(instance.objectId), "tenant_id": tenant_id},
        "network_settings": {"subnet": subnet_id},
        "tags": tags,
    }, opts)


def scoring_of(scoring: ScoringConfig, environment: str, workspace: Workspace, location: str,
               public_network_access: str, tags: dict[str, str]) -> ml.OnlineDeployment:
    """A managed online endpoint, as open as the workspace (a closed one is scored through its private endpoint),
    and one managed deployment of the model on `scoring.instances` instances of `scoring.size`."""
    endpoint_name = f"acme-scoring-{environment}"  # unique in the Azure region
    endpoint = ml.OnlineEndpoint(
        "scoring-endpoint",
        endpoint_name=endpoint_name,
        resource_group_name=workspace.resource_group_name,
        workspace_name=workspace.workspace_name,
        location=location,
        identity=ml.ManagedServiceIdentityArgs(type="SystemAssigned"),
        properties=ml.OnlineEndpointPropertiesArgs(auth_mode="Key", public_network_access=public_network_access),
        tags=tags,
    )
    model, version = scoring.model.split(":")
    return ml.OnlineDeployment(
        "scoring-blue",
        deployment_name="blue",
        endpoint_name=endpoint_name,
        resource_group_name=workspace.resource_group_name,
        workspace_name=workspace.workspace_name,
        location=location,
        properties=ml.ManagedOnlineDeploymentArgs(
            endpoint_compute_type="Managed",
            instance_type=scoring.size,
            model=workspace.workspace_id.apply(lambda ws: f"{ws}/models/{model}/versions/{version}"),
        ),
        sku=ml.SkuArgs(name="Default", capacity=scoring.instances),
        tags=tags,
        opts=pulumi.ResourceOptions(depends_on=[endpoint]),
    )


build(platform_config.load(), pulumi.get_stack(), platform_config.location())
