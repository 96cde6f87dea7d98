"""azure_facts: the Azure facts amlkit relies on, checked against what Azure documents (docs/azure-facts.md)."""

from __future__ import annotations

import pytest

from amlkit import azure_facts as facts


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


def test_wire_paths_are_the_engine_form_of_compute_inputs() -> None:
    assert (facts.VM_SIZE, facts.NODE_IDLE_TIME, facts.SSH_PUBLIC_ACCESS) == (
        "properties.properties.vmSize",
        "properties.properties.scaleSettings.nodeIdleTimeBeforeScaleDown",
        "properties.properties.sshSettings.sshPublicAccess",
    )


def test_defaults_and_limits_as_azure_documents_them() -> None:
    assert facts.CLUSTER_IDLE_DEFAULT_ISO == "PT120S"
    assert (facts.INSTANCE_IDLE_MINUTES_MIN, facts.INSTANCE_IDLE_MINUTES_MAX) == (15, 3 * 24 * 60)
    assert facts.NODE_PUBLIC_IP_DEFAULT is True
    assert (facts.REGIONAL_COMPUTE_LIMIT_DEFAULT, facts.REGIONAL_COMPUTE_LIMIT_MAX) == (500, 2500)
    assert facts.minutes_iso(60) == "PT60M"
    assert (facts.INSTANCE_IDLE_MINUTES_DEFAULT, facts.ADMIN_USERNAME_DEFAULT, facts.SCHEDULE_TIME_ZONE_DEFAULT) == (
        60, "azureuser", "UTC")


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
