import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.aml_workspace_serverless_no_public_ip import RULE
from tests.policies.compute_fixtures import with_unknown
from tests.policies.examples import Example
from tests.policies.helpers import DELETE, Public, changed, messages
from tests.policies.workspace_fixtures import WORKSPACE_TYPE, subnet_id, workspace_props

PUBLIC = Public("AMLK-0021", "aml-workspace-serverless-no-public-ip", level="advisory", kind="resource")

SETTINGS = "serverlessComputeSettings"
NO_PUBLIC_IP = f"{SETTINGS}.serverlessComputeNoPublicIP"
# the case the setting is for: no managed network, serverless compute in a custom subnet of the workspace's VNet
HAPPY = workspace_props(managedNetwork={"isolationMode": "Disabled"},
                        serverlessComputeSettings={"serverlessComputeCustomSubnet": subnet_id(),
                                                   "serverlessComputeNoPublicIP": True})
MANAGED = workspace_props()
MESSAGE = ("Workspace 'mlw-prod' must have serverlessComputeSettings.serverlessComputeNoPublicIP true for "
           "serverless compute in its custom subnet; found {}.")

CASES = [
    ("happy-path", HAPPY, []),
    ("false", changed(HAPPY, NO_PUBLIC_IP, False), [MESSAGE.format("false")]),
    ("missing-defaults-to-false", changed(HAPPY, NO_PUBLIC_IP, DELETE),
     [MESSAGE.format("none (Azure then uses false)")]),
    ("managed-network-omitted-is-disabled", changed(changed(HAPPY, "managedNetwork", DELETE), NO_PUBLIC_IP, False),
     [MESSAGE.format("false")]),
    ("isolation-mode-lower-case-disabled", changed(changed(HAPPY, "managedNetwork.isolationMode", "disabled"),
                                                   NO_PUBLIC_IP, False), [MESSAGE.format("false")]),
    # not applicable: a managed network isolates serverless compute (the setting is for a custom VNet)
    ("managed-network-happy", MANAGED, []),
    ("managed-network-false-not-checked", changed(MANAGED, NO_PUBLIC_IP, False), []),
    ("managed-network-settings-missing-not-checked", changed(MANAGED, SETTINGS, DELETE), []),
    ("internet-outbound-with-subnet-false-not-checked",
     changed(changed(HAPPY, "managedNetwork.isolationMode", "AllowInternetOutbound"), NO_PUBLIC_IP, False), []),
    # not applicable: no custom subnet, so no custom VNet for the flag to act in
    ("no-custom-subnet-not-checked", changed(changed(HAPPY, f"{SETTINGS}.serverlessComputeCustomSubnet", DELETE),
                                             NO_PUBLIC_IP, False), []),
    ("no-settings-not-checked", changed(HAPPY, SETTINGS, DELETE), []),
]

EXAMPLE = Example.of_cases(CASES, fails="false", passes="happy-path", type_=WORKSPACE_TYPE)


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_workspace_serverless_no_public_ip(props, expected):
    assert messages(RULE, props, name="mlw-prod", type_=WORKSPACE_TYPE) == expected


def test_other_resource_types_are_ignored():
    props = changed(HAPPY, NO_PUBLIC_IP, False)
    assert messages(RULE, props, type_="azure-native:storage:StorageAccount") == []


def test_unknown_custom_subnet_is_unknown_not_a_pass():
    props = with_unknown(changed(HAPPY, NO_PUBLIC_IP, False), f"{SETTINGS}.serverlessComputeCustomSubnet",
                         UNKNOWN_STRING_VALUE)
    with pytest.raises(UnknownValueError):
        RULE.evaluate(ResourceInput(WORKSPACE_TYPE, "mlw-prod", "urn", props))
