"""Azure Machine Learning facts amlkit relies on: defaults, limits, immutable properties, wire paths.

The ONE place these facts live. The schema, the components, the policy rules, the plan and diff, and
the docs generator import them from here; nothing else writes them down again. Each fact names its
source. Wire paths are the engine form (camelCase) of `azure-native:machinelearningservices:Compute`
inputs, as the policy analyzer and the offline review see them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "ADMIN_USERNAME_DEFAULT", "APP_INSIGHTS_NAME", "ATTACHED_KINDS", "ATTACHED_REPLACE_ON_CHANGES",
    "CLUSTER_IDLE_DEFAULT_ISO", "CLUSTER_IDLE_SECONDS_DEFAULT", "CLUSTER_MAX_NODES", "CLUSTER_REPLACE_ON_CHANGES",
    "COMPUTE_LOCATION", "COMPUTE_NAME", "CONTAINER_REGISTRY_NAME", "DISABLE_LOCAL_AUTH", "ENABLE_NODE_PUBLIC_IP",
    "IDLE_TIME_BEFORE_SHUTDOWN", "INSTANCE_IDLE_MINUTES_DEFAULT", "INSTANCE_IDLE_MINUTES_MAX",
    "INSTANCE_IDLE_MINUTES_MIN", "INSTANCE_NAME", "INSTANCE_REPLACE_ON_CHANGES", "KEY_VAULT_NAME",
    "LOCAL_AUTH_DISABLED_DEFAULT", "LOG_ANALYTICS_NAME", "MANAGED_NETWORK_ISOLATION_DEFAULT",
    "MANAGED_NETWORK_ISOLATION_MODES", "MAX_NODE_COUNT", "MIN_NODES_DEFAULT", "MIN_NODE_COUNT", "MULTI_ATTACH_KINDS",
    "NODE_IDLE_TIME", "NODE_PUBLIC_IP_DEFAULT", "NameRule", "PERSONAL_INSTANCE_SETTINGS", "PRIVATE_ENDPOINT_NAME",
    "REGIONAL_COMPUTE_LIMIT_DEFAULT", "REGIONAL_COMPUTE_LIMIT_MAX", "REMOTE_LOGIN", "REMOTE_LOGIN_DEFAULT",
    "REPLACE_ON_CHANGES", "SCALE_SETTINGS", "SCHEDULE_TIME_ZONE_DEFAULT", "SERVERLESS_NO_PUBLIC_IP_DEFAULT",
    "SSH_PUBLIC_ACCESS", "SSH_PUBLIC_ACCESS_DEFAULT", "SSH_SETTINGS", "STORAGE_ACCOUNT_NAME", "SUBNET", "SUBNET_ID",
    "USER_ACCOUNT_CREDENTIALS", "VM_PRIORITIES", "VM_PRIORITY", "VM_PRIORITY_DEFAULT", "VM_SIZE", "WORKSPACE_NAME",
    "WORKSPACE_PRIVATE_LINK_GROUP", "minutes_iso", "node_public_ip", "seconds_iso",
]

# --- Compute wire paths (azure-native Compute inputs, engine form) -----------------------------------
VM_SIZE = "properties.properties.vmSize"
VM_PRIORITY = "properties.properties.vmPriority"
SCALE_SETTINGS = "properties.properties.scaleSettings"
MIN_NODE_COUNT = f"{SCALE_SETTINGS}.minNodeCount"
MAX_NODE_COUNT = f"{SCALE_SETTINGS}.maxNodeCount"
NODE_IDLE_TIME = f"{SCALE_SETTINGS}.nodeIdleTimeBeforeScaleDown"
IDLE_TIME_BEFORE_SHUTDOWN = "properties.properties.idleTimeBeforeShutdown"
SUBNET = "properties.properties.subnet"
SUBNET_ID = f"{SUBNET}.id"
ENABLE_NODE_PUBLIC_IP = "properties.properties.enableNodePublicIp"
REMOTE_LOGIN = "properties.properties.remoteLoginPortPublicAccess"
SSH_SETTINGS = "properties.properties.sshSettings"
SSH_PUBLIC_ACCESS = f"{SSH_SETTINGS}.sshPublicAccess"
USER_ACCOUNT_CREDENTIALS = "properties.properties.userAccountCredentials"
PERSONAL_INSTANCE_SETTINGS = "properties.properties.personalComputeInstanceSettings"
COMPUTE_LOCATION = "properties.computeLocation"
DISABLE_LOCAL_AUTH = "properties.disableLocalAuth"
"""Where each Compute setting sits in the inputs the pack and the plan read (ARM template shape, camelCase).
https://learn.microsoft.com/azure/templates/microsoft.machinelearningservices/workspaces/computes"""

# --- Defaults Azure applies when a property is omitted ------------------------------------------------
CLUSTER_IDLE_SECONDS_DEFAULT = 120
"""`nodeIdleTimeBeforeScaleDown` omitted: nodes are released after 120 s (CLI and SDK default).
https://learn.microsoft.com/azure/machine-learning/how-to-create-attach-compute-cluster"""

MIN_NODES_DEFAULT = 0
"""`scaleSettings.minNodeCount` omitted: the cluster scales to zero.
https://learn.microsoft.com/rest/api/azureml/compute/create-or-update#scalesettings"""

NODE_PUBLIC_IP_DEFAULT = True
"""`enableNodePublicIp` omitted: nodes get public IPs (SDK and Azure default).
https://learn.microsoft.com/azure/machine-learning/how-to-secure-training-vnet#compute-cluster"""

LOCAL_AUTH_DISABLED_DEFAULT = False
"""`disableLocalAuth` omitted: local authentication stays on (what built-in policy e96a9a5f audits).
https://github.com/Azure/azure-policy/blob/master/built-in-policies/policyDefinitions/Machine%20Learning/DisableLocalAuth_Audit.json"""

SERVERLESS_NO_PUBLIC_IP_DEFAULT = False
"""Workspaces: `serverlessComputeSettings.serverlessComputeNoPublicIP` omitted: serverless nodes get public IPs
(azure-ai-ml loads a missing flag as false).
https://github.com/Azure/azure-sdk-for-python/blob/main/sdk/ml/azure-ai-ml/azure/ai/ml/_schema/workspace/serverless_compute.py"""

MANAGED_NETWORK_ISOLATION_MODES = ("Disabled", "AllowInternetOutbound", "AllowOnlyApprovedOutbound")
"""Workspaces: the `managedNetwork.isolationMode` values; once a managed network is on, it cannot be turned off.
https://learn.microsoft.com/azure/machine-learning/how-to-managed-network"""

MANAGED_NETWORK_ISOLATION_DEFAULT = MANAGED_NETWORK_ISOLATION_MODES[0]
"""Workspaces: `managedNetwork.isolationMode` omitted: no managed network.
https://learn.microsoft.com/azure/machine-learning/how-to-managed-network"""

VM_PRIORITIES = ("Dedicated", "LowPriority")
"""The `vmPriority` values of a cluster. https://learn.microsoft.com/azure/machine-learning/how-to-use-low-priority-batch"""

VM_PRIORITY_DEFAULT = VM_PRIORITIES[0]
"""`vmPriority` omitted. https://learn.microsoft.com/azure/machine-learning/how-to-use-low-priority-batch"""

REMOTE_LOGIN_DEFAULT = "NotSpecified"
"""`remoteLoginPortPublicAccess` omitted: closed with a subnet, OPEN on public nodes; fixed after creation.
https://learn.microsoft.com/rest/api/azureml/compute/create-or-update#remoteloginportpublicaccess"""

SSH_PUBLIC_ACCESS_DEFAULT = "Disabled"
"""Instances: `sshSettings.sshPublicAccess` omitted (ARM default).
https://learn.microsoft.com/rest/api/azureml/compute/create-or-update#sshpublicaccess"""

# --- Defaults of the az ml vocabulary (the stack file and the components apply the same ones) ---------
INSTANCE_IDLE_MINUTES_DEFAULT = 60
"""amlkit's idle shutdown of a compute instance when none is given: without `idleTimeBeforeShutdown` the
instance runs, and bills, until it is stopped.
https://learn.microsoft.com/azure/machine-learning/how-to-create-compute-instance#configure-idle-shutdown"""

ADMIN_USERNAME_DEFAULT = "azureuser"
"""az ml's administrator account of a cluster's nodes (`ssh_settings.admin_username` omitted).
https://learn.microsoft.com/azure/machine-learning/reference-yaml-compute-aml"""

SCHEDULE_TIME_ZONE_DEFAULT = "UTC"
"""az ml's time zone of an instance's start/stop schedule (`trigger.time_zone` omitted).
https://learn.microsoft.com/azure/machine-learning/reference-yaml-compute-instance"""

# --- Resource names -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NameRule:
    """Azure's rule for one resource type's name: a pattern the whole name matches, the longest name
    (derived names are cut to it) and the rule in words (error messages and docs say it)."""

    pattern: str
    max_length: int
    allowed: str

    def fits(self, name: object) -> bool:
        return isinstance(name, str) and re.fullmatch(self.pattern, name) is not None

    def __str__(self) -> str:
        return f"{self.pattern} ({self.allowed})"


WORKSPACE_NAME = NameRule(r"[A-Za-z0-9][A-Za-z0-9_-]{2,32}", 33,
                          "3-33 letters, digits, hyphens and underscores, starting with a letter or digit")
COMPUTE_NAME = NameRule(r"[A-Za-z][A-Za-z0-9-]{1,15}", 16, "2-16 letters, digits and hyphens, starting with a letter")
INSTANCE_NAME = NameRule(
    r"[A-Za-z][A-Za-z0-9-]{1,22}[A-Za-z0-9]", 24,
    "3-24 letters, digits and hyphens, starting with a letter, ending with a letter or digit")
"""Names of a workspace, of a cluster or attached compute (in its workspace) and of a compute instance
(unique in its region).
https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules#microsoftmachinelearningservices"""

STORAGE_ACCOUNT_NAME = NameRule(r"[a-z0-9]{3,24}", 24, "3-24 lowercase letters and digits")
KEY_VAULT_NAME = NameRule(
    r"(?!.*--)[A-Za-z][A-Za-z0-9-]{1,22}[A-Za-z0-9]", 24,
    "3-24 letters, digits and single hyphens, starting with a letter, ending with a letter or digit")
CONTAINER_REGISTRY_NAME = NameRule(r"[A-Za-z0-9]{5,50}", 50, "5-50 letters and digits")
LOG_ANALYTICS_NAME = NameRule(r"[A-Za-z0-9][A-Za-z0-9-]{2,61}[A-Za-z0-9]", 63,
                              "4-63 letters, digits and hyphens, starting and ending with a letter or digit")
APP_INSIGHTS_NAME = NameRule(r"[A-Za-z0-9()_.-]{1,255}", 255, "1-255 letters, digits and ()_.-")
PRIVATE_ENDPOINT_NAME = NameRule(
    r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}[A-Za-z0-9_]", 64,
    "2-64 letters, digits, underscores, periods and hyphens, starting with a letter or digit, ending with a "
    "letter, digit or underscore")
"""Names of the workspace's dependencies (storage account, key vault, registry, Log Analytics workspace,
Application Insights component) and of its private endpoints (Microsoft.Network privateEndpoints).
https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules"""

WORKSPACE_PRIVATE_LINK_GROUP = "amlworkspace"
"""The private link group id (sub-resource) of a workspace's inbound private endpoint.
https://learn.microsoft.com/azure/machine-learning/how-to-configure-private-link"""

# --- Limits --------------------------------------------------------------------------------------------
INSTANCE_IDLE_MINUTES_MIN = 15
INSTANCE_IDLE_MINUTES_MAX = 3 * 24 * 60
"""`idleTimeBeforeShutdown` of a compute instance: 15 minutes to 3 days.
https://learn.microsoft.com/azure/machine-learning/how-to-create-compute-instance#configure-idle-shutdown"""

CLUSTER_MAX_NODES = 65_000
"""Most nodes a (non-MPI) cluster can be raised to by a support ticket (100 by default).
https://learn.microsoft.com/azure/machine-learning/how-to-manage-quotas#azure-machine-learning-compute"""

REGIONAL_COMPUTE_LIMIT_DEFAULT = 500
REGIONAL_COMPUTE_LIMIT_MAX = 2500
"""Computes per region (clusters, instances, managed online deployments): 500 by default, up to 2,500.
https://learn.microsoft.com/azure/machine-learning/how-to-manage-quotas#azure-machine-learning-compute"""

# --- Properties Azure cannot change on an existing compute (a change replaces it) ---------------------
CLUSTER_REPLACE_ON_CHANGES = (
    "location",
    COMPUTE_LOCATION,
    DISABLE_LOCAL_AUTH,
    VM_SIZE,
    VM_PRIORITY,
    SUBNET,
    ENABLE_NODE_PUBLIC_IP,
    REMOTE_LOGIN,
    USER_ACCOUNT_CREDENTIALS,
)
"""Clusters: set at creation (size, priority, network, public IP, SSH, admin user, local auth, region).
https://learn.microsoft.com/azure/machine-learning/how-to-create-attach-compute-cluster"""
INSTANCE_REPLACE_ON_CHANGES = (
    "location",
    DISABLE_LOCAL_AUTH,
    VM_SIZE,
    SUBNET,
    ENABLE_NODE_PUBLIC_IP,
    SSH_SETTINGS,
    PERSONAL_INSTANCE_SETTINGS,
)
"""Compute instances: set at creation (size, network, public IP, SSH, assigned user, local auth, region).
https://learn.microsoft.com/azure/machine-learning/how-to-create-compute-instance"""
ATTACHED_KINDS = ("Kubernetes", "VirtualMachine", "SynapseSpark")
ATTACHED_REPLACE_ON_CHANGES = ("location", "identity", "properties")
"""Attached computes: any change but tags re-attaches them (the old attachment is removed first).
https://learn.microsoft.com/azure/machine-learning/how-to-attach-compute-targets#limitations"""
MULTI_ATTACH_KINDS = ("Kubernetes",)
"""Attached compute types one workspace may attach several times: "For the same Kubernetes cluster, you can attach it
to the same workspace multiple times and create multiple compute targets" (a namespace per target isolates the
workloads). Every other attached type (AKS, VirtualMachine, SynapseSpark, HDInsight, Databricks, ...) is attached
once: "Each new attachment will break the previous existing attachment(s)" (the v1 attach docs' limitation).
https://learn.microsoft.com/azure/machine-learning/how-to-attach-kubernetes-to-workspace#multi-attach-and-workload-isolation
https://learn.microsoft.com/azure/machine-learning/v1/how-to-attach-compute-targets#limitations"""
REPLACE_ON_CHANGES = {
    "AmlCompute": CLUSTER_REPLACE_ON_CHANGES,
    "ComputeInstance": INSTANCE_REPLACE_ON_CHANGES,
    **dict.fromkeys(ATTACHED_KINDS, ATTACHED_REPLACE_ON_CHANGES),
}
"""computeType -> its immutable input paths (the tuples above)."""


def seconds_iso(seconds: int) -> str:
    """ISO-8601 duration in seconds, as Azure ML expects it (`PT120S`)."""
    return f"PT{seconds}S"


def minutes_iso(minutes: int) -> str:
    """ISO-8601 duration in minutes, as Azure ML expects it (`PT60M`)."""
    return f"PT{minutes}M"


CLUSTER_IDLE_DEFAULT_ISO = seconds_iso(CLUSTER_IDLE_SECONDS_DEFAULT)


def node_public_ip(explicit: bool | None, private_network: bool) -> bool | None:
    """The `enableNodePublicIp` amlkit sends: the explicit choice, else False on a private network (a
    customer subnet or the workspace's managed network). None when there is no valid value: nodes without
    public IPs need a private network, and without one amlkit wants an explicit choice rather than Azure's
    silent default (`NODE_PUBLIC_IP_DEFAULT`, every node public).
    https://learn.microsoft.com/azure/machine-learning/how-to-secure-training-vnet#compute-cluster"""
    if not private_network:
        return True if explicit else None
    return False if explicit is None else bool(explicit)
