import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.policies.framework import ResourceInput
from amlkit.policies.rules.aml_cluster_ssh_disabled import RULE
from tests.policies.compute_fixtures import attached_props, instance_props, with_unknown
from tests.policies.examples import Example
from tests.policies.helpers import COMPUTE_TYPE, DELETE, Public, changed, cluster_props, messages

PUBLIC = Public("AMLK-0008", "aml-cluster-ssh-disabled", level="mandatory", kind="resource")

HAPPY = cluster_props()
INSTANCE_HAPPY = instance_props()
LOGIN = "properties.properties.remoteLoginPortPublicAccess"
CREDENTIALS = "properties.properties.userAccountCredentials"
SSH = "properties.properties.sshSettings"
SUBNET = "properties.properties.subnet"
CLUSTER = "AmlCompute cluster 'cpu-cluster'"
INSTANCE = "Compute instance 'cpu-cluster'"
SECRET = "Sup3r-Secret!"
PASSWORD = f"{CLUSTER} must not set an admin password in userAccountCredentials; found a password (value not shown)."

CASES = [
    ("happy-path", HAPPY, []),
    # NotSpecified (the default) closes port 22 in a VNet and opens it otherwise: still not an explicit Disabled
    ("login-omitted-in-subnet", changed(HAPPY, LOGIN, DELETE),
     [f"{CLUSTER} must set remoteLoginPortPublicAccess explicitly to Disabled; found none (Azure then uses "
      "NotSpecified: port 22 closed only because the cluster is in a VNet subnet)."]),
    ("login-omitted-no-subnet", changed(changed(HAPPY, LOGIN, DELETE), SUBNET, DELETE),
     [f"{CLUSTER} must set remoteLoginPortPublicAccess explicitly to Disabled; found none (Azure then uses "
      "NotSpecified: no subnet is set, so port 22 is open on every node with a public IP)."]),
    ("login-not-specified-in-subnet", changed(HAPPY, LOGIN, "NotSpecified"),
     [f"{CLUSTER} must set remoteLoginPortPublicAccess explicitly to Disabled; found NotSpecified (port 22 "
      "closed only because the cluster is in a VNet subnet)."]),
    ("login-not-specified-no-subnet", changed(changed(HAPPY, LOGIN, "notspecified"), SUBNET, DELETE),
     [f"{CLUSTER} must set remoteLoginPortPublicAccess explicitly to Disabled; found notspecified (no subnet "
      "is set, so port 22 is open on every node with a public IP)."]),
    ("login-disabled-no-subnet", changed(HAPPY, SUBNET, DELETE), []),
    ("login-enabled", changed(HAPPY, LOGIN, "Enabled"),
     [f"{CLUSTER} must set remoteLoginPortPublicAccess explicitly to Disabled; found Enabled."]),
    ("login-disabled-lower-case", changed(HAPPY, LOGIN, "disabled"), []),
    ("admin-password", changed(HAPPY, CREDENTIALS, {"adminUserName": "azureuser", "adminUserPassword": SECRET}),
     [PASSWORD]),
    ("admin-password-secret-wire-form", changed(HAPPY, CREDENTIALS, {
        "adminUserName": "azureuser",
        "adminUserPassword": {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
                              "value": SECRET}}), [PASSWORD]),
    ("admin-ssh-key-only", changed(HAPPY, CREDENTIALS, {"adminUserName": "azureuser",
                                                        "adminUserSshPublicKey": "ssh-rsa AAAA"}), []),
    ("admin-password-empty", changed(HAPPY, CREDENTIALS, {"adminUserName": "azureuser", "adminUserPassword": ""}),
     []),
    ("instance-happy", INSTANCE_HAPPY, []),
    ("instance-ssh-enabled", changed(INSTANCE_HAPPY, f"{SSH}.sshPublicAccess", "Enabled"),
     [f"{INSTANCE} must set sshSettings.sshPublicAccess to Disabled; found Enabled."]),
    ("instance-ssh-omitted-is-arm-default-disabled", changed(INSTANCE_HAPPY, f"{SSH}.sshPublicAccess", DELETE), []),
    ("instance-ssh-settings-omitted", changed(INSTANCE_HAPPY, SSH, DELETE), []),
    ("attached-ignored", attached_props(), []),
]

EXAMPLE = Example.of_cases(CASES, fails="login-enabled", passes="happy-path")


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_cluster_ssh_disabled(props, expected):
    assert messages(RULE, props) == expected


def test_password_never_appears_in_messages():
    props = changed(changed(HAPPY, LOGIN, "Enabled"), CREDENTIALS,
                    {"adminUserName": "azureuser", "adminUserPassword": SECRET})
    found = messages(RULE, props)
    assert len(found) == 2 and all(SECRET not in message for message in found)


def test_other_resource_types_are_ignored():
    assert messages(RULE, changed(HAPPY, LOGIN, "Enabled"), type_="azure-native:storage:StorageAccount") == []


@pytest.mark.parametrize(("props", "path"), [
    (HAPPY, LOGIN),
    (HAPPY, f"{CREDENTIALS}.adminUserPassword"),
    (INSTANCE_HAPPY, f"{SSH}.sshPublicAccess"),
], ids=["login", "password", "instance-ssh"])
def test_unknown_field_is_unknown_not_a_pass(props, path):
    with pytest.raises(UnknownValueError):
        RULE.evaluate(ResourceInput(COMPUTE_TYPE, "cpu-cluster", "urn", with_unknown(props, path,
                                                                                     UNKNOWN_STRING_VALUE)))
