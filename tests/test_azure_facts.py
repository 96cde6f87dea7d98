"""azure_facts: the Azure facts amlkit relies on, checked against what Azure documents (docs/azure-facts.md)."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from amlkit import azure_facts as facts
from amlkit.components import ComputeCluster, ComputeInstance
from tests.components.harness import run


@pytest.mark.parametrize(("kind", "path"), [
    ("AmlCompute", "properties.properties.vmSize"),
    ("AmlCompute", "properties.properties.vmPriority"),
    ("AmlCompute", "properties.properties.enableNodePublicIp"),
    ("AmlCompute", "properties.properties.remoteLoginPortPublicAccess"),
    ("AmlCompute", "properties.computeLocation"),
    ("ComputeInstance", "properties.properties.vmSize"),
    ("ComputeInstance", "properties.properties.sshSettings"),
    ("ComputeInstance", "properties.properties.subnet"),
])
def test_what_azure_sets_at_creation_is_immutable(kind: str, path: str) -> None:
    assert path in facts.REPLACE_ON_CHANGES[kind]


@pytest.mark.parametrize(("kind", "path"), [
    ("AmlCompute", "properties.properties.scaleSettings"),  # ClusterUpdateParameters: scale settings only
    ("AmlCompute", "properties.properties.scaleSettings.maxNodeCount"),
    ("ComputeInstance", "properties.properties.idleTimeBeforeShutdown"),
    ("ComputeInstance", "properties.properties.schedules"),
    ("AmlCompute", "tags"),
    ("AmlCompute", "identity"),
])
def test_what_azure_updates_in_place_is_not(kind: str, path: str) -> None:
    assert path not in facts.REPLACE_ON_CHANGES[kind]


SUBNET = "/subscriptions/0000/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/aml"
WIRE_PATHS = [  # (component, one argument, its wire path, the value the registered Compute holds there)
    (ComputeCluster, {"size": "Standard_NC6s_v3"}, facts.VM_SIZE, "Standard_NC6s_v3"),
    (ComputeCluster, {"idle_time_before_scale_down": 300}, facts.NODE_IDLE_TIME, "PT300S"),
    (ComputeInstance, {"ssh_public_access_enabled": True, "ssh_settings": {"ssh_key_value": "ssh-rsa K"}},
     facts.SSH_PUBLIC_ACCESS, "Enabled"),
]


@pytest.mark.parametrize(("component", "argument", "path", "value"), WIRE_PATHS,
                         ids=["vm-size", "node-idle-time", "ssh-public-access"])
def test_wire_paths_are_the_engine_form_of_compute_inputs(
        component: Any, argument: dict[str, Any], path: str, value: Any) -> None:
    """A wire path leads to the value in the inputs the engine (and so the pack and the plan) gets."""
    args = {"resource_group_name": "rg-ml", "workspace_name": "mlw", "workspace_location": "westeurope",
            "size": "Standard_DS3_v2", "max_instances": 4, "network_settings": {"subnet": SUBNET}, **argument}
    if component is ComputeInstance:
        del args["max_instances"]

    def program() -> None:
        component("c1", args)

    [compute] = run(program).of_type("azure-native:machinelearningservices:Compute")
    assert functools.reduce(lambda found, key: found[key], path.split("."), compute.inputs) == value


def test_defaults_and_limits_as_azure_documents_them() -> None:
    """Each value as its source writes it. The defaults that only matter through what they make the code do
    are tested there, with literal values: NODE_PUBLIC_IP_DEFAULT by tests/policies/test_aml_compute_no_public_ip.py
    (cluster-/instance-omitted-is-true), INSTANCE_IDLE_MINUTES_DEFAULT, ADMIN_USERNAME_DEFAULT and
    SCHEDULE_TIME_ZONE_DEFAULT by the components' inputs (tests/components/test_compute_instance.py
    test_default_instance_inputs_are_secure and the schedules test, test_compute_cluster.py
    test_ssh_settings_turn_local_auth_on)."""
    # MicrosoftDocs/azure-docs articles/machine-learning/reference-yaml-compute-aml.md: `idle_time_before_scale_down`,
    # "Node idle time in seconds before scaling down the cluster", default `120`
    assert facts.CLUSTER_IDLE_DEFAULT_ISO == "PT120S"
    # MicrosoftDocs/azure-ai-docs articles/machine-learning/how-to-create-compute-instance.md, Configure idle
    # shutdown: "compute instance must be inactive for a minimum of 15 mins and a maximum of three days"
    assert (facts.INSTANCE_IDLE_MINUTES_MIN, facts.INSTANCE_IDLE_MINUTES_MAX) == (15, 3 * 24 * 60)
    # MicrosoftDocs/azure-ai-docs articles/machine-learning/how-to-manage-quotas.md: "Total compute limit per region
    # has a default limit of 500 [...] You can increase this limit up to a maximum value of 2,500 per region"
    assert (facts.REGIONAL_COMPUTE_LIMIT_DEFAULT, facts.REGIONAL_COMPUTE_LIMIT_MAX) == (500, 2500)
    assert facts.minutes_iso(60) == "PT60M"


@pytest.mark.parametrize(("explicit", "private", "sent"), [
    (True, False, True),
    (None, False, None),   # no network and no choice: amlkit asks for one
    (False, False, None),  # no public IP needs a network
    (None, True, False),   # a private network: no public IP by default
    (True, True, True),
    (False, True, False),
])
def test_node_public_ip(explicit: bool | None, private: bool, sent: bool | None) -> None:
    assert facts.node_public_ip(explicit, private) is sent


NAME_RULES = {name: rule for name, rule in vars(facts).items() if isinstance(rule, facts.NameRule)}


@pytest.mark.parametrize("name", sorted(NAME_RULES))
def test_a_name_rule_takes_names_up_to_its_max_length_and_no_longer(name: str) -> None:
    rule = NAME_RULES[name]
    first = "a" if rule.fits("a" * rule.max_length) else "A"  # storage accounts: lowercase only
    assert rule.fits(first * rule.max_length)
    assert not rule.fits(first * (rule.max_length + 1))
    assert str(rule.max_length) in rule.allowed


@pytest.mark.parametrize(("rule", "name", "fits"), [
    (facts.COMPUTE_NAME, "cpu-1", True),
    (facts.COMPUTE_NAME, "1cpu", False),
    (facts.INSTANCE_NAME, "ci-alice", True),
    (facts.INSTANCE_NAME, "ci-alice-", False),
    (facts.WORKSPACE_NAME, "mlw_prod", True),
    (facts.KEY_VAULT_NAME, "kv--x", False),
    (facts.STORAGE_ACCOUNT_NAME, "stMixed", False),
    (facts.COMPUTE_NAME, None, False),
])
def test_name_rules(rule: facts.NameRule, name: str | None, fits: bool) -> None:
    assert rule.fits(name) is fits
