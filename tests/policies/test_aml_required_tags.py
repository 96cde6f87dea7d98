import jsonschema
import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError, unknown_checking_proxy

from amlkit.policies.rules.aml_required_tags import CLASSIC_TAGGABLE_TYPES, RULE, TAGGABLE_TYPES
from tests.policies.examples import Example
from tests.policies.helpers import DELETE, Public, changed, messages
from tests.policies.workspace_fixtures import WORKSPACE_TYPE, workspace_props

PUBLIC = Public("AMLK-0026", "aml-required-tags", level="advisory", kind="resource")

HAPPY = workspace_props()
REQUIRED = {"requiredTags": ["owner", "costCenter"]}
MESSAGE = "Resource 'mlw-prod' (machinelearningservices:Workspace) must carry the tags owner, costCenter; found {}."

CASES = [
    ("happy-path", HAPPY, REQUIRED, []),
    ("default-config-checks-nothing", changed(HAPPY, "tags", DELETE), None, []),
    ("one-missing", changed(HAPPY, "tags.costCenter", DELETE), REQUIRED, [MESSAGE.format("no value for costCenter")]),
    ("empty-value", changed(HAPPY, "tags.owner", "  "), REQUIRED, [MESSAGE.format("no value for owner")]),
    ("null-value", changed(HAPPY, "tags.owner", None), REQUIRED, [MESSAGE.format("no value for owner")]),
    ("tags-missing-on-taggable-type", changed(HAPPY, "tags", DELETE), REQUIRED,
     [MESSAGE.format("no value for owner, costCenter")]),
    ("tags-empty", changed(HAPPY, "tags", {}), REQUIRED, [MESSAGE.format("no value for owner, costCenter")]),
    ("key-case-insensitive", changed(HAPPY, "tags", {"OWNER": "a", "costcenter": "b"}), REQUIRED, []),
    ("config-repeats-collapse", changed(HAPPY, "tags.owner", DELETE), {"requiredTags": ["owner", "Owner"]},
     ["Resource 'mlw-prod' (machinelearningservices:Workspace) must carry the tags owner; found no value for owner."]),
]

EXAMPLE = Example.of_cases(CASES, fails="one-missing", passes="happy-path", type_=WORKSPACE_TYPE)


@pytest.mark.parametrize(("props", "config", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_required_tags(props, config, expected):
    assert messages(RULE, props, config, name="mlw-prod", type_=WORKSPACE_TYPE) == expected


TYPE_CASES = [
    ("storage-account-without-tags", "azure-native:storage:StorageAccount", {"accountName": "st"},
     ["Resource 'r' (storage:StorageAccount) must carry the tags owner, costCenter; "
      "found no value for owner, costCenter."]),
    ("resource-group-explicit-version", "azure-native:resources/v20240301:ResourceGroup", {},
     ["Resource 'r' (resources:ResourceGroup) must carry the tags owner, costCenter; "
      "found no value for owner, costCenter."]),
    ("unknown-type-with-tags", "azure-native:web:WebApp", {"tags": {"owner": "a"}},
     ["Resource 'r' (web:WebApp) must carry the tags owner, costCenter; found no value for costCenter."]),
    ("other-provider-with-tags", "aws:s3/bucket:Bucket", {"tags": {}},
     ["Resource 'r' (aws:s3/bucket:Bucket) must carry the tags owner, costCenter; "
      "found no value for owner, costCenter."]),
    ("untaggable-type-without-tags", "azure-native:authorization:RoleAssignment", {"principalId": "p"}, []),
    ("subnet-without-tags", "azure-native:network:Subnet", {"subnetName": "aml"}, []),
    ("classic-cluster-without-tags", "azure:machinelearning/computeCluster:ComputeCluster", {"vmSize": "DS3"},
     ["Resource 'r' (azure:machinelearning/computeCluster:ComputeCluster) must carry the tags owner, costCenter; "
      "found no value for owner, costCenter."]),
    ("classic-resource-group-without-tags", "azure:core/resourceGroup:ResourceGroup", {"location": "westeurope"},
     ["Resource 'r' (azure:core/resourceGroup:ResourceGroup) must carry the tags owner, costCenter; "
      "found no value for owner, costCenter."]),
    ("classic-subnet-without-tags", "azure:network/subnet:Subnet", {"name": "aml"}, []),
]


@pytest.mark.parametrize(("type_", "props", "expected"), [c[1:] for c in TYPE_CASES], ids=[c[0] for c in TYPE_CASES])
def test_taggable_resources(type_, props, expected):
    assert messages(RULE, props, REQUIRED, name="r", type_=type_) == expected


def test_taggable_types_are_module_and_name():
    assert len(set(TAGGABLE_TYPES)) == len(TAGGABLE_TYPES)
    assert all(kind.count(":") == 1 for kind in TAGGABLE_TYPES)


@pytest.mark.parametrize("token", sorted(CLASSIC_TAGGABLE_TYPES))
def test_classic_taggable_types_are_sdk_resources_that_take_tags(token):
    """Each classic type is a resource of the installed pulumi-azure whose class takes a `tags` argument."""
    import importlib
    import inspect
    import sys
    import warnings
    from pathlib import Path

    module_path, name = token.split(":")[1].split("/")[0], token.rsplit(":", 1)[1]
    with warnings.catch_warnings():  # the SDK's modules warn about their own deprecated classes at import
        warnings.simplefilter("ignore", DeprecationWarning)
        cls = getattr(importlib.import_module(f"pulumi_azure.{module_path}"), name)
    assert f"'{token}'" in Path(sys.modules[cls.__module__].__file__).read_text()
    assert "tags" in inspect.signature(cls._internal_init).parameters


def test_unknown_tag_value_is_unknown_not_a_violation():
    props = unknown_checking_proxy(changed(HAPPY, "tags.owner", UNKNOWN_STRING_VALUE))
    with pytest.raises(UnknownValueError):
        messages(RULE, props, REQUIRED, name="mlw-prod", type_=WORKSPACE_TYPE)


def test_config_schema():
    schema = {"type": "object", "properties": dict(RULE.config)}
    assert RULE.defaults() == {"requiredTags": [], "defaultTagValues": {}}
    jsonschema.validate(REQUIRED, schema)
    jsonschema.validate({**REQUIRED, "defaultTagValues": {"owner": "ml-platform"}}, schema)
    for bad in ({"owner": ""}, {"owner": 1}, {"owner": "x" * 257}, ["owner"]):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"defaultTagValues": bad}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"requiredTags": [""]}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"requiredTags": "owner"}, schema)
