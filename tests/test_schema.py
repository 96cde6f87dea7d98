"""The environment schema: every rule with a named failing case and its exact message."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from amlkit.errors import ConfigError
from amlkit.schema import Secret, cron_ok, merged_tags, validate_environment

FILE = "stacks/Pulumi.test.yaml"
SUB = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups"
SUBNET = f"{SUB}/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aml"
IDENTITY = f"{SUB}/rg-id/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-ml"
HUB = f"{SUB}/rg-ml/providers/Microsoft.MachineLearningServices/workspaces/hub"
GUID = "3f2b6c1e-8d4a-4e7b-9c0d-1a2b3c4d5e6f"


def happy() -> dict[str, Any]:
    """A valid environment (keys as under `amlkit:`), changed one field at a time below."""
    return {
        "location": "westeurope",
        "environment": "test",
        "resourceGroup": {"name": "rg-ml-test"},
        "tags": {"owner": "ml-platform"},
        "workspace": {"name": "mlw-test"},
        "clusters": [{"name": "cpu-cluster", "size": "Standard_DS3_v2", "max_instances": 4}],
        "instances": [{"name": "ci-alice", "size": "Standard_DS3_v2"}],
    }


DELETE = object()
SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"


def changed(path: str, value: Any) -> dict[str, Any]:
    """happy() with a dotted path (list indexes as numbers) set to value, or removed with DELETE."""
    raw = happy()
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    target: Any = raw
    for key in parents:
        target = target[key]
    if value is DELETE:
        del target[last]
    else:
        target[last] = copy.deepcopy(value)
    return raw


def error_of(raw: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as caught:
        validate_environment(raw, FILE)
    assert caught.value.file == FILE
    return str(caught.value)


ALLOWED_CI = "3-24 letters, digits and hyphens, starting with a letter, ending with a letter or digit"
ARM_SUBNET = ("an ARM id like /subscriptions/<guid>/resourceGroups/<rg>/providers/Microsoft.Network/"
              "virtualNetworks/<name>/subnets/<name>")

FAILING = [
    # --- top level
    ("location-missing", changed("location", DELETE),
     "azure-native:location: required key is missing"),
    ("location-bad", changed("location", "West Europe"),
     "azure-native:location: got 'West Europe'; allowed: an Azure public region name such as westeurope, or a name "
     "listed in amlkit:extraRegions; did you mean 'westeurope'?"),
    ("unknown-top-level-key", changed("clusterz", []),
     "amlkit:clusterz: unknown key 'clusterz' (did you mean 'clusters'?); allowed keys: amlkit:environment, "
     "amlkit:resourceGroup, amlkit:tags, "
     "amlkit:workspace, amlkit:clusters, amlkit:instances, amlkit:attached, amlkit:protectData, "
     "amlkit:prodLikeEnvironments, amlkit:extraRegions, "
     "azure-native:location"),
    ("environment-bad", changed("environment", "Prod!"),
     "amlkit:environment: got 'Prod!'; allowed: 1-63 lowercase letters, digits, '-' or '_'"),
    ("resource-group-missing", changed("resourceGroup", DELETE),
     "amlkit:resourceGroup: required key is missing"),
    ("resource-group-not-mapping", changed("resourceGroup", "rg-ml"),
     "amlkit:resourceGroup: got 'rg-ml'; allowed: a mapping with keys name, existing"),
    ("resource-group-name-dot", changed("resourceGroup.name", "rg."),
     "amlkit:resourceGroup.name: got 'rg.'; allowed: 1-90 letters, digits, '-', '_', '.', '(' or ')', "
     "not ending with '.'"),
    ("resource-group-existing-text", changed("resourceGroup.existing", "yes"),
     "amlkit:resourceGroup.existing: got 'yes'; allowed: true or false"),
    ("tag-value-number", changed("tags", {"cost-center": 4711}),
     "amlkit:tags.cost-center: got 4711; allowed: text of up to 256 characters (quote numbers: \"4711\")"),
    ("tag-name-slash", changed("tags", {"a/b": "x"}),
     "amlkit:tags.a/b: got 'a/b'; allowed: a tag name of 1-512 characters without < > % & \\ ? /"),
    ("protect-data-text", changed("protectData", "true"),
     "amlkit:protectData: got 'true'; allowed: true or false"),
    ("clusters-not-list", changed("clusters", {"name": "x"}),
     "amlkit:clusters: got a mapping; allowed: a list"),
    # --- workspace
    ("workspace-missing", changed("workspace", DELETE), "amlkit:workspace: required key is missing"),
    ("workspace-name-short", changed("workspace.name", "ml"),
     "amlkit:workspace.name: got 'ml'; allowed: 3-33 letters, digits, hyphens and underscores, starting with a letter "
     "or digit"),
    ("workspace-unknown-key", changed("workspace.public_access", "disabled"),
     "amlkit:workspace.public_access: unknown key 'public_access' (did you mean 'public_network_access'?); "
     "allowed keys: name, kind, hub_id, display_name, description, "
     "public_network_access, managed_network, image_build_compute, private_endpoints, serverless_compute, identity, "
     "primary_user_assigned_identity, "
     "hbi_workspace, customer_managed_key, storage_account, key_vault, application_insights, "
     "log_analytics_workspace, container_registry, locks, tags, projects"),
    ("workspace-kind", changed("workspace.kind", "featurestore"),
     "amlkit:workspace.kind: got 'featurestore'; allowed: default | hub | project"),
    ("project-needs-hub", changed("workspace.kind", "project"),
     "amlkit:workspace.hub_id: required when kind is project (the hub workspace's ARM id)"),
    ("hub-id-without-project", changed("workspace.hub_id", HUB),
     "amlkit:workspace.kind: got 'default'; allowed: project (hub_id is only read for projects)"),
    ("public-network-access", changed("workspace.public_network_access", "private"),
     "amlkit:workspace.public_network_access: got 'private'; allowed: enabled | disabled"),
    ("isolation-mode", changed("workspace.managed_network", {"isolation_mode": "approved"}),
     "amlkit:workspace.managed_network.isolation_mode: got 'approved'; allowed: disabled | "
     "allow_internet_outbound | allow_only_approved_outbound"),
    ("serverless-subnet-not-arm", changed("workspace.serverless_compute", {"custom_subnet": "snet-aml"}),
     f"amlkit:workspace.serverless_compute.custom_subnet: got 'snet-aml'; allowed: {ARM_SUBNET}"),
    ("user-assigned-needs-ids", changed("workspace.identity", {"type": "user_assigned"}),
     "amlkit:workspace.identity.user_assigned_identities: required when type is user_assigned "
     "(a list of {resource_id: <identity ARM id>})"),
    ("ids-need-user-assigned",
     changed("workspace.identity",
             {"type": "system_assigned", "user_assigned_identities": [{"resource_id": IDENTITY}]}),
     "amlkit:workspace.identity.type: got 'system_assigned'; allowed: user_assigned "
     "(user_assigned_identities are only read with it)"),
    ("identity-id-wrong-type",
     changed("workspace.identity", {"type": "user_assigned", "user_assigned_identities": [{"resource_id": SUBNET}]}),
     f"amlkit:workspace.identity.user_assigned_identities[0].resource_id: got '{SUBNET[:77]}...'; allowed: an "
     "ARM id like /subscriptions/<guid>/resourceGroups/<rg>/providers/Microsoft.ManagedIdentity/"
     "userAssignedIdentities/<name>"),
    ("workspace-identity-none", changed("workspace.identity", {"type": "none"}),
     "amlkit:workspace.identity.type: got 'none'; allowed: system_assigned | user_assigned "
     "(a workspace needs an identity)"),
    ("primary-identity-not-listed", changed("workspace.primary_user_assigned_identity", IDENTITY),
     f"amlkit:workspace.primary_user_assigned_identity: got '{IDENTITY[:77]}...'; "
     "allowed: one of identity.user_assigned_identities"),
    ("cmk-key-uri", changed("workspace.customer_managed_key", {
        "key_vault": f"{SUB}/rg/providers/Microsoft.KeyVault/vaults/kv", "key_uri": "kv/keys/k"}),
     "amlkit:workspace.customer_managed_key.key_uri: got 'kv/keys/k'; allowed: a key identifier, "
     "e.g. https://kv-name.vault.azure.net/keys/key-name[/version]"),
    ("registry-yes", changed("workspace.container_registry", "yes"),
     "amlkit:workspace.container_registry: got 'yes'; allowed: true (create one), false (none) or an existing "
     "registry's ARM id like /subscriptions/<guid>/resourceGroups/<rg>/providers/Microsoft.ContainerRegistry/"
     "registries/<name>"),
    ("storage-not-arm", changed("workspace.storage_account", "stmlprod"),
     "amlkit:workspace.storage_account: got 'stmlprod'; allowed: an ARM id like /subscriptions/<guid>/"
     "resourceGroups/<rg>/providers/Microsoft.Storage/storageAccounts/<name>"),
    ("locks-text", changed("workspace.locks", "on"), "amlkit:workspace.locks: got 'on'; allowed: true or false"),
    # --- clusters
    ("cluster-max-above-platform", changed("clusters.0.max_instances", 70000),
     "amlkit:clusters[0].max_instances: got 70000; allowed: an integer from 1 to 65000"),
    ("cluster-max-zero", changed("clusters.0.max_instances", 0),
     "amlkit:clusters[0].max_instances: got 0; allowed: an integer from 1 to 65000"),
    ("cluster-max-text", changed("clusters.0.max_instances", "4"),
     "amlkit:clusters[0].max_instances: got '4'; allowed: an integer from 1 to 65000"),
    ("cluster-max-bool", changed("clusters.0.max_instances", True),
     "amlkit:clusters[0].max_instances: got true; allowed: an integer from 1 to 65000"),
    ("cluster-min-negative", changed("clusters.0.min_instances", -1),
     "amlkit:clusters[0].min_instances: got -1; allowed: an integer from 0 to 65000"),
    ("cluster-min-above-max", changed("clusters.0.min_instances", 5),
     "amlkit:clusters[0].min_instances: got 5; allowed: at most max_instances (4)"),
    ("cluster-idle-negative", changed("clusters.0.idle_time_before_scale_down", -30),
     "amlkit:clusters[0].idle_time_before_scale_down: got -30; allowed: a whole number of seconds of at least 0"),
    ("cluster-idle-fraction", changed("clusters.0.idle_time_before_scale_down", 1.5),
     "amlkit:clusters[0].idle_time_before_scale_down: got 1.5; allowed: a whole number of seconds of at least 0"),
    ("cluster-size-unknown", changed("clusters.0.size", "Standard_Foo9"),
     "amlkit:clusters[0].size: got 'Standard_Foo9'; allowed: a known Azure VM size name, e.g. Standard_D4ds_v5"),
    ("cluster-size-number", changed("clusters.0.size", 3),
     "amlkit:clusters[0].size: got 3; allowed: a known Azure VM size name, e.g. Standard_D4ds_v5"),
    ("cluster-size-missing", changed("clusters.0.size", DELETE), "amlkit:clusters[0].size: required key is missing"),
    ("cluster-tier", changed("clusters.0.tier", "spot"),
     "amlkit:clusters[0].tier: got 'spot'; allowed: dedicated | low_priority"),
    ("cluster-name-long", changed("clusters.0.name", "a-very-long-cluster-name"),
     "amlkit:clusters[0].name: got 'a-very-long-cluster-name'; allowed: 2-16 letters, digits and hyphens, "
     "starting with a letter"),
    ("cluster-type", changed("clusters.0.type", "kubernetes"),
     "amlkit:clusters[0].type: got 'kubernetes'; allowed: amlcompute"),
    ("cluster-subnet-not-arm", changed("clusters.0.network_settings", {"subnet": "snet-aml"}),
     f"amlkit:clusters[0].network_settings.subnet: got 'snet-aml'; allowed: {ARM_SUBNET}"),
    ("cluster-vnet-name", changed("clusters.0.network_settings", {"subnet": SUBNET, "vnet_name": "vnet"}),
     "amlkit:clusters[0].network_settings.vnet_name: unknown key 'vnet_name'; allowed keys: subnet"),
    ("cluster-identity-none", changed("clusters.0.identity", {"type": "none"}),
     "amlkit:clusters[0].identity.type: got 'none'; allowed: system_assigned | user_assigned"),
    ("cluster-local-auth-text", changed("clusters.0.local_auth_enabled", "yes"),
     "amlkit:clusters[0].local_auth_enabled: got 'yes'; allowed: true or false"),
    ("cluster-ssh-without-credential", changed("clusters.0.ssh_settings", {"admin_username": "azureuser"}),
     "amlkit:clusters[0].ssh_settings.ssh_key_value: required: ssh_key_value (or a secret admin_password) when "
     "ssh_settings is given"),
    ("cluster-ssh-key-private", changed("clusters.0.ssh_settings", {"ssh_key_value": "AAAAB3NzaC1yc2E"}),
     "amlkit:clusters[0].ssh_settings.ssh_key_value: got 'AAAAB3NzaC1yc2E'; allowed: an OpenSSH public key "
     "line, e.g. 'ssh-ed25519 AAAA... user@host'"),
    ("cluster-location-bad", changed("clusters.0.location", "EU West"),
     "amlkit:clusters[0].location: got 'EU West'; allowed: an Azure public region name such as westeurope, or a "
     "name listed in amlkit:extraRegions; did you mean 'ukwest'?"),
    ("compute-names-unique", changed("instances.0.name", "CPU-cluster"),
     "amlkit:instances[0].name: got 'CPU-cluster'; allowed: a compute name not used elsewhere in the workspace "
     "(clusters[0] has it)"),
    # --- networking: no public IP needs a network
    ("no-public-ip-without-network",
     {**changed("clusters.0.enable_node_public_ip", False),
      "workspace": {"name": "mlw-test", "managed_network": {"isolation_mode": "disabled"}}},
     "amlkit:clusters[0].enable_node_public_ip: got false; allowed: true, or false together with "
     "network_settings.subnet or a workspace managed_network (nodes without public IPs need a network)"),
    ("public-ip-unset-without-network",
     {**happy(), "workspace": {"name": "mlw-test", "managed_network": {"isolation_mode": "disabled"}}},
     "amlkit:clusters[0].enable_node_public_ip: required when there is no network_settings.subnet and no "
     "workspace managed_network: allowed: true (nodes then get public IPs), or add network_settings.subnet"),
    # --- instances
    ("instance-name-short", changed("instances.0.name", "ci"),
     f"amlkit:instances[0].name: got 'ci'; allowed: {ALLOWED_CI}"),
    # the stack file refuses what the ComputeInstance component refuses (one rule: azure_facts.INSTANCE_NAME)
    ("instance-name-ends-with-hyphen", changed("instances.0.name", "ci-alice-"),
     f"amlkit:instances[0].name: got 'ci-alice-'; allowed: {ALLOWED_CI}"),
    ("instance-idle-too-short", changed("instances.0.idle_time_before_shutdown_minutes", 10),
     "amlkit:instances[0].idle_time_before_shutdown_minutes: got 10; allowed: whole minutes "
     "from 15 to 4320"),
    ("instance-idle-too-long", changed("instances.0.idle_time_before_shutdown_minutes", 5000),
     "amlkit:instances[0].idle_time_before_shutdown_minutes: got 5000; allowed: whole minutes from 15 to 4320"),
    ("instance-other-region", changed("instances.0.location", "northeurope"),
     "amlkit:instances[0].location: got 'northeurope'; allowed: the workspace's location (westeurope): an "
     "instance cannot live in another region"),
    ("instance-assigned-user-guid", changed("instances.0.assigned_user", {"object_id": "alice", "tenant_id": GUID}),
     "amlkit:instances[0].assigned_user.object_id: got 'alice'; allowed: a GUID, "
     "e.g. 00000000-0000-0000-0000-000000000000"),
    ("instance-assigned-user-tenant-missing", changed("instances.0.assigned_user", {"object_id": GUID}),
     "amlkit:instances[0].assigned_user.tenant_id: required key is missing"),
    ("instance-ssh-key-needs-public-access", changed("instances.0.ssh_settings", {"ssh_key_value": "ssh-ed25519 AAAA"}),
     "amlkit:instances[0].ssh_settings: only read when ssh_public_access_enabled is true"),
    ("instance-public-ssh-needs-key", changed("instances.0.ssh_public_access_enabled", True),
     "amlkit:instances[0].ssh_settings: required when ssh_public_access_enabled is true "
     "({ssh_key_value: <OpenSSH public key>})"),
    ("instance-tier-unknown", changed("instances.0.tier", "low_priority"),
     "amlkit:instances[0].tier: unknown key 'tier'; allowed keys: name, type, size, idle_time_before_shutdown_minutes, "
     "assigned_user, schedules, identity, location, network_settings, enable_node_public_ip, "
     "ssh_public_access_enabled, ssh_settings, description, tags"),
    # --- schedules
    ("cron-not-cron", changed("instances.0.schedules", [
        {"action": "stop", "trigger": {"type": "cron", "expression": "every evening"}}]),
     "amlkit:instances[0].schedules[0].trigger.expression: got 'every evening'; allowed: a five-field cron "
     "expression 'minute hour day-of-month month day-of-week', e.g. '0 19 * * 1-5'"),
    ("cron-hour-25", changed("instances.0.schedules", [
        {"action": "stop", "trigger": {"type": "cron", "expression": "0 25 * * *"}}]),
     "amlkit:instances[0].schedules[0].trigger.expression: got '0 25 * * *'; allowed: a five-field cron "
     "expression 'minute hour day-of-month month day-of-week', e.g. '0 19 * * 1-5'"),
    ("cron-missing-expression", changed("instances.0.schedules", [{"action": "stop", "trigger": {"type": "cron"}}]),
     "amlkit:instances[0].schedules[0].trigger.expression: required when type is cron"),
    ("recurrence-missing-frequency", changed("instances.0.schedules", [
        {"action": "start", "trigger": {"type": "recurrence", "interval": 1}}]),
     "amlkit:instances[0].schedules[0].trigger.frequency: required when type is recurrence"),
    ("recurrence-hour-24", changed("instances.0.schedules", [
        {"action": "start", "trigger": {"type": "recurrence", "frequency": "day", "interval": 1,
                                        "schedule": {"hours": [24]}}}]),
     "amlkit:instances[0].schedules[0].trigger.schedule.hours[0]: got 24; allowed: an hour from 0 to 23"),
    ("schedule-action", changed("instances.0.schedules", [
        {"action": "restart", "trigger": {"type": "cron", "expression": "0 8 * * *"}}]),
     "amlkit:instances[0].schedules[0].action: got 'restart'; allowed: start | stop; did you mean 'start'?"),
    ("schedule-start-time", changed("instances.0.schedules", [
        {"action": "stop", "trigger": {"type": "cron", "expression": "0 8 * * *", "start_time": "tomorrow"}}]),
     "amlkit:instances[0].schedules[0].trigger.start_time: got 'tomorrow'; allowed: a local time "
     "'yyyy-MM-ddTHH:mm:ss', e.g. '2026-01-05T08:00:00'"),
    ("five-schedules", changed("instances.0.schedules", [
        {"action": "stop", "trigger": {"type": "cron", "expression": f"0 {h} * * *"}} for h in range(5)]),
     "amlkit:instances[0].schedules: got '5 items'; allowed: at most 4"),
    # --- secrets and credentials
    ("password-plain",
     changed("clusters.0.ssh_settings", {"admin_username": "azureuser", "admin_password": "hunter2!"}),
     "amlkit:clusters[0].ssh_settings.admin_password: a plain-text credential is not allowed in stack config; "
     "store it as a Pulumi secret: pulumi config set --secret --path "
     "'amlkit:clusters[0].ssh_settings.admin_password' <value>"),
    ("connection-string-in-tag", changed("tags", {"conn": "DefaultEndpointsProtocol=https;AccountKey=abc=="}),
     "amlkit:tags.conn: a plain-text credential is not allowed in stack config; store it as a Pulumi secret: "
     "pulumi config set --secret --path 'amlkit:tags.conn' <value>"),
    ("sas-in-description", changed("clusters.0.description", "SharedAccessSignature=sv=2020&sig=x"),
     "amlkit:clusters[0].description: a plain-text credential is not allowed in stack config; store it as a "
     "Pulumi secret: pulumi config set --secret --path 'amlkit:clusters[0].description' <value>"),
    ("pem-private-key", changed("workspace.description", "-----BEGIN RSA PRIVATE KEY-----\nMIIE"),
     "amlkit:workspace.description: a plain-text credential is not allowed in stack config; store it as a "
     "Pulumi secret: pulumi config set --secret --path 'amlkit:workspace.description' <value>"),
    ("image-build-compute-names-no-compute", changed("workspace.image_build_compute", "gpu-cluster"),
     "amlkit:workspace.image_build_compute: got 'gpu-cluster'; allowed: the name of one of amlkit:clusters or "
     "amlkit:instances (cpu-cluster, ci-alice)"),
    ("private-endpoint-bad-key", changed("workspace.private_endpoints", {"a b": {"subnet_resource_id": SUBNET}}),
     "amlkit:workspace.private_endpoints.a b.[key]: got 'a b'; allowed: 1-32 letters, digits, '-' or '_', starting "
     "with a letter or digit"),
    ("private-endpoint-no-subnet", changed("workspace.private_endpoints", {"hub": {"name": "pe-x"}}),
     "amlkit:workspace.private_endpoints.hub.subnet_resource_id: required key is missing"),
    ("private-endpoint-not-a-mapping", changed("workspace.private_endpoints", [SUBNET]),
     "amlkit:workspace.private_endpoints: got a list; allowed: a mapping of key (1-32 letters, digits, '-' or '_', "
     "starting with a letter or digit) -> entry"),
    ("private-endpoint-on-a-project", changed("workspace", {
        "name": "proj", "kind": "project", "hub_id": HUB,
        "private_endpoints": {"hub": {"subnet_resource_id": SUBNET}}}),
     "amlkit:workspace.private_endpoints: not allowed when kind is project (a project is reached through its hub's "
     "private endpoint)"),
    ("secret-where-not-read", changed("workspace.name", Secret(None)),
     "amlkit:workspace.name: holds a secret, which amlkit does not read here (offline it cannot be decrypted); "
     "allowed: a plain value (secrets are read only at amlkit:clusters[].ssh_settings.admin_password, "
     "amlkit:attached[].ssh_settings.admin_password, amlkit:attached[].ssh_settings.ssh_private_key)"),
]


@pytest.mark.parametrize(("raw", "expected"), [c[1:] for c in FAILING], ids=[c[0] for c in FAILING])
def test_schema_rejects(raw, expected):
    assert error_of(raw) == f"{FILE}: {expected}"


def test_image_build_compute_may_name_a_cluster_or_an_instance_in_any_casing():
    for name in ("cpu-cluster", "CI-Alice"):
        spec = validate_environment(changed("workspace.image_build_compute", name), FILE)
        assert spec.workspace.image_build_compute == name


def test_private_endpoints_keep_their_keys_and_default_dns_zone_group():
    zone = f"{SUB}/rg-dns/providers/Microsoft.Network/privateDnsZones/privatelink.api.azureml.ms"
    spec = validate_environment(changed("workspace.private_endpoints", {
        "hub": {"subnet_resource_id": SUBNET, "private_dns_zone_resource_ids": [zone]}}), FILE)
    endpoint = spec.workspace.private_endpoints["hub"]
    assert (endpoint.subnet_resource_id, endpoint.private_dns_zone_resource_ids, endpoint.private_dns_zone_group_name,
            endpoint.name) == (SUBNET, [zone], "default", None)


def test_happy_path_defaults_are_the_secure_ones():
    spec = validate_environment(happy(), FILE)
    cluster, instance = spec.clusters[0], spec.instances[0]
    assert (cluster.min_instances, cluster.idle_time_before_scale_down, cluster.tier) == (0, 120, "dedicated")
    assert (cluster.ssh_public_access_enabled, cluster.enable_node_public_ip) == (False, None)
    assert (instance.idle_time_before_shutdown_minutes, instance.ssh_public_access_enabled) == (60, False)
    assert spec.workspace.public_network_access == "disabled"
    assert spec.workspace.managed_network.isolation_mode == "allow_only_approved_outbound"
    assert spec.workspace.identity.type == "system_assigned"
    assert (spec.workspace.container_registry, spec.workspace.locks) == (False, False)
    assert spec.resource_group.existing is False


@pytest.mark.parametrize(("settings", "expected"), [
    ({}, False),
    ({"local_auth_enabled": True}, True),
    ({"local_auth_enabled": False}, False),
    ({"ssh_settings": {"ssh_key_value": SSH_KEY}}, True),
])
def test_local_auth_is_off_unless_asked_for(settings, expected):
    raw = happy()
    raw["clusters"][0].update(settings)
    assert validate_environment(raw, FILE).clusters[0].local_auth is expected


def test_ssh_settings_without_local_auth_is_refused():
    raw = happy()
    raw["clusters"][0].update(ssh_settings={"ssh_key_value": SSH_KEY}, local_auth_enabled=False)
    assert error_of(raw) == (
        f"{FILE}: amlkit:clusters[0].local_auth_enabled: got false; allowed: true or unset (ssh_settings logs in "
        "with local authentication)"
    )


@pytest.mark.parametrize(("spelling", "expected"), [
    ("low_priority", "low_priority"), ("LowPriority", "low_priority"), ("low-priority", "low_priority"),
    ("Dedicated", "dedicated"),
])
def test_enums_accept_az_ml_and_arm_spellings(spelling, expected):
    assert validate_environment(changed("clusters.0.tier", spelling), FILE).clusters[0].tier == expected


@pytest.mark.parametrize(("environment", "protect", "expected"), [
    ("prod", None, True), ("production", None, True), ("dev", None, False), ("dev", True, True),
    ("prod", False, False),
])
def test_protect_data_defaults_to_prod_like(environment, protect, expected):
    raw = changed("environment", environment)
    if protect is not None:
        raw["protectData"] = protect
    assert validate_environment(raw, FILE).protect_data is expected


def test_prod_like_environments_are_configurable():
    raw = {**changed("environment", "live"), "prodLikeEnvironments": ["live"]}
    assert validate_environment(raw, FILE).protect_data is True


def test_secret_admin_password_is_kept_as_a_secret_marker():
    raw = changed("clusters.0.ssh_settings", {"admin_password": Secret(None)})
    password = validate_environment(raw, FILE).clusters[0].ssh_settings.admin_password
    assert isinstance(password, Secret) and not password.known and password.reveal() is None
    spec = validate_environment(changed("clusters.0.ssh_settings", {"admin_password": Secret("hunter2")}), FILE)
    assert "hunter" not in repr(spec) and repr(Secret("hunter2")) == "Secret([secret])"


def test_values_of_secret_keys_are_redacted_in_messages():
    raw = changed("clusters.0.max_instances", 70000)
    with pytest.raises(ConfigError) as caught:
        validate_environment(raw, FILE, secret_keys=["clusters"])
    assert str(caught.value) == (f"{FILE}: amlkit:clusters[0].max_instances: got a secret value; "
                                 "allowed: an integer from 1 to 65000")


def test_no_public_ip_is_fine_with_a_subnet_or_managed_network():
    with_subnet = changed("clusters.0.network_settings", {"subnet": SUBNET})
    with_subnet["workspace"]["managed_network"] = {"isolation_mode": "disabled"}
    del with_subnet["instances"]
    assert validate_environment(with_subnet, FILE).clusters[0].network_settings.subnet == SUBNET
    assert validate_environment(changed("clusters.0.enable_node_public_ip", False), FILE)


def test_az_ml_schedule_form_is_accepted():
    entry = {"action": "stop", "trigger": {"type": "cron", "expression": "0 19 * * 1-5"}}
    spec = validate_environment(changed("instances.0.schedules", {"compute_start_stop": [entry]}), FILE)
    assert spec.instances[0].schedules[0].trigger.expression == "0 19 * * 1-5"


@pytest.mark.parametrize(("expression", "ok"), [
    ("0 19 * * 1-5", True), ("*/15 8-18 * * MON-FRI", True), ("0 0 1 JAN,JUL *", True), ("30 7 * * 0", True),
    ("0 19 * *", False), ("60 * * * *", False), ("0 0 0 * *", False), ("0 0 * 13 *", False),
    ("0 0 * * 7", False), ("*/0 * * * *", False), ("a b c d e", False),
])
def test_cron(expression, ok):
    assert cron_ok(expression) is ok


def test_merged_tags_resource_wins_and_environment_is_authoritative():
    tags = merged_tags({"owner": "platform", "tier": "a", "environment": "x"}, {"tier": "b"}, environment="prod")
    assert tags == {"owner": "platform", "tier": "b", "environment": "prod"}
