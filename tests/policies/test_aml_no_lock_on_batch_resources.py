import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError, unknown_checking_proxy

from amlkit.policies.rules.aml_no_lock_on_batch_resources import RULE
from tests.policies.examples import Example
from tests.policies.helpers import Public
from tests.policies.workspace_fixtures import (
    BATCH_GUID,
    LOCK_RESOURCE_TYPE,
    LOCK_RG_TYPE,
    LOCK_SCOPE_TYPE,
    LOCK_SUB_TYPE,
    WORKSPACE_TYPE,
    res,
    resource_lock_props,
    rg_id,
    rg_lock_props,
    scope_lock_props,
    stack_messages,
    subscription_lock_props,
    workspace_id,
    workspace_props,
)

PUBLIC = Public("AMLK-0017", "aml-no-lock-on-batch-resources", level="mandatory", kind="stack")

NSG = f"{BATCH_GUID}-azurebatch-cloudservicenetworksecuritygroup"
PIP = f"{BATCH_GUID}-azurebatch-cloudservicepublicip"
LB = f"{BATCH_GUID}-azurebatch-cloudserviceloadbalancer"


def net_id(type_: str, name: str) -> str:
    return f"{rg_id('rg-net')}/providers/Microsoft.Network/{type_}/{name}"


HAPPY = [
    res(WORKSPACE_TYPE, "mlw-prod", workspace_props()),
    res(LOCK_RESOURCE_TYPE, "lock-storage", resource_lock_props("stmlprod")),
    res(LOCK_SCOPE_TYPE, "lock-workspace", scope_lock_props(workspace_id())),
    res(LOCK_SCOPE_TYPE, "lock-own-nsg", scope_lock_props(net_id("networkSecurityGroups", "nsg-aml"))),
    res(LOCK_RG_TYPE, "lock-rg", rg_lock_props("rg-shared")),
    res(LOCK_SUB_TYPE, "lock-sub", subscription_lock_props()),
]


def expect(lock: str, name: str) -> tuple[str, str]:
    return lock, (f"Management lock '{lock}' must not lock a service-managed Azure Batch resource (Azure ML "
                  f"must be able to change and delete it); found '{name}'.")


CASES = [
    ("happy-path", [], []),
    ("resource-lock-on-nsg",
     [res(LOCK_RESOURCE_TYPE, "lock-nsg", resource_lock_props(NSG, "rg-net", "Microsoft.Network",
                                                              "networkSecurityGroups"))],
     [expect("lock-nsg", NSG)]),
    ("resource-lock-on-public-ip-uppercase",
     [res(LOCK_RESOURCE_TYPE, "lock-pip", resource_lock_props(PIP.upper(), "rg-net", "Microsoft.Network",
                                                              "publicIPAddresses"))],
     [expect("lock-pip", PIP.upper())]),
    ("scope-lock-on-load-balancer",
     [res(LOCK_SCOPE_TYPE, "lock-lb", scope_lock_props(net_id("loadBalancers", LB)))],
     [expect("lock-lb", LB)]),
    ("scope-lock-on-docs-misspelled-nsg",
     [res(LOCK_SCOPE_TYPE, "lock-nsg", scope_lock_props(
         net_id("networkSecurityGroups", f"{BATCH_GUID}-azurebatch-cloudservicenetworksecurityggroup")))],
     [expect("lock-nsg", f"{BATCH_GUID}-azurebatch-cloudservicenetworksecurityggroup")]),
    ("name-without-guid-prefix-is-not-batch",
     [res(LOCK_RESOURCE_TYPE, "lock-x", resource_lock_props("azurebatch-cloudservicepublicip"))], []),
    ("batch-suffix-not-at-end-is-not-batch",
     [res(LOCK_RESOURCE_TYPE, "lock-x", resource_lock_props(f"{PIP}-copy"))], []),
    ("group-named-like-batch-is-other-rule",
     [res(LOCK_SCOPE_TYPE, "lock-x", scope_lock_props(rg_id(f"{BATCH_GUID}-azurebatch-cloudservicepublicip")))], []),
    ("scope-not-an-arm-id", [res(LOCK_SCOPE_TYPE, "lock-x", scope_lock_props(PIP))], []),
]


@pytest.mark.parametrize(("extra", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_no_lock_on_batch_resources(extra, expected):
    assert stack_messages(RULE, [*HAPPY, *extra]) == expected


def test_several_locks_each_reported():
    locks = [res(LOCK_RESOURCE_TYPE, "lock-pip", resource_lock_props(PIP)),
             res(LOCK_SCOPE_TYPE, "lock-nsg", scope_lock_props(net_id("networkSecurityGroups", NSG)))]
    assert stack_messages(RULE, [*HAPPY, *locks]) == [expect("lock-pip", PIP), expect("lock-nsg", NSG)]


def test_unknown_resource_name_is_unknown_not_a_pass():
    lock = res(LOCK_RESOURCE_TYPE, "lock-x", unknown_checking_proxy(resource_lock_props(UNKNOWN_STRING_VALUE)))
    with pytest.raises(UnknownValueError):
        RULE.evaluate_stack([*HAPPY, lock])


def test_is_a_mandatory_stack_rule():
    assert RULE.is_stack_rule
    assert (RULE.name, RULE.level) == ("aml-no-lock-on-batch-resources", "mandatory")


EXAMPLE = Example.of_stacks(CASES, fails="resource-lock-on-nsg", passes="happy-path", base=HAPPY)
