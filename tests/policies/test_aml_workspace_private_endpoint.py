import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, unknown_checking_proxy

from amlkit.policies.framework import StackResource
from amlkit.policies.rules.aml_workspace_private_endpoint import RULE
from tests.policies.examples import Example
from tests.policies.helpers import Public
from tests.policies.workspace_fixtures import (
    WORKSPACE_TYPE,
    res,
    stack_messages,
    subnet_id,
    workspace_id,
    workspace_props,
)

PUBLIC = Public("AMLK-0034", "aml-workspace-private-endpoint", level="advisory", kind="stack")

ENDPOINT_TYPE = "azure-native:network:PrivateEndpoint"
REFERENCE_TYPE = "pulumi:pulumi:StackReference"
EXPECTATION = "have a private endpoint (group amlworkspace) when publicNetworkAccess is Disabled"
PROD = res(WORKSPACE_TYPE, "mlw-prod", workspace_props())


def endpoint(name: str = "pe-prod", target=None, group: str = "amlworkspace", manual: bool = False,
             **deps) -> StackResource:
    connection = {"name": "psc", "privateLinkServiceId": workspace_id() if target is None else target,
                  "groupIds": [group]}
    key = "manualPrivateLinkServiceConnections" if manual else "privateLinkServiceConnections"
    props = {"resourceGroupName": "rg-net", "subnet": {"id": subnet_id()}, key: [connection]}
    return res(ENDPOINT_TYPE, name, props, **deps)


def missing(name: str = "mlw-prod") -> tuple[str, str]:
    return name, (f"Workspace '{name}' must {EXPECTATION}; found no private endpoint in the stack (a managed network "
                  "isolates outbound traffic only).")


def unknown(reason: str, name: str = "mlw-prod") -> tuple[str, str]:
    return name, f"Workspace '{name}' must {EXPECTATION}; cannot tell: {reason}."


DEV = res(WORKSPACE_TYPE, "mlw-dev", workspace_props(resourceGroupName="rg-ml-dev", workspaceName="mlw-dev"))
HUB = res(WORKSPACE_TYPE, "hub", workspace_props(kind="Hub", workspaceName="hub"))
PROJECT = res(WORKSPACE_TYPE, "project", workspace_props(kind="Project", workspaceName="project"))
PUBLIC_WS = res(WORKSPACE_TYPE, "mlw-prod", workspace_props(publicNetworkAccess="Enabled"))
DEFAULTS_PUBLIC = res(WORKSPACE_TYPE, "mlw-prod", {k: v for k, v in workspace_props().items()
                                                   if k != "publicNetworkAccess"})

CASES = [
    ("endpoint-by-arm-id", [PROD, endpoint()], []),
    ("endpoint-by-arm-id-other-casing", [PROD, endpoint(target=workspace_id("RG-ML-PROD", "MLW-Prod"))], []),
    ("endpoint-built-from-the-workspace", [PROD, endpoint(target=UNKNOWN_STRING_VALUE,
                                                          privateLinkServiceConnections=PROD.urn)], []),
    ("manual-connection", [PROD, endpoint(manual=True)], []),
    ("no-endpoint", [PROD], [missing()]),
    ("no-endpoint-despite-managed-network", [PROD], [missing()]),
    ("endpoint-of-another-group", [PROD, endpoint(group="blob")], [missing()]),
    ("endpoint-of-another-workspace", [PROD, DEV, endpoint(target=workspace_id("rg-ml-dev", "mlw-dev"))],
     [missing()]),
    ("endpoint-to-a-storage-account", [PROD, endpoint(target=workspace_id().replace(
        "Microsoft.MachineLearningServices/workspaces", "Microsoft.Storage/storageAccounts"))], [missing()]),
    ("public-workspace-needs-none", [PUBLIC_WS], []),
    ("omitted-access-is-public", [DEFAULTS_PUBLIC], []),
    ("hub-is-checked", [HUB], [missing("hub")]),
    ("project-uses-its-hub-endpoint", [PROJECT], []),
    ("stack-reference-may-hold-it", [PROD, res(REFERENCE_TYPE, "network", {"name": "org/network/prod"})],
     [unknown("no private endpoint in this stack, and the stack reads another stack (StackReference 'network') "
              "where one may be declared")]),
    ("classic-provider-endpoint", [PROD, res("azure:privatelink/endpoint:Endpoint", "pe-classic", {
        "subnetId": subnet_id(), "privateServiceConnection": {
            "name": "psc", "privateConnectionResourceId": workspace_id(), "subresourceNames": ["amlworkspace"],
            "isManualConnection": False}})], []),
    ("classic-provider-endpoint-of-another-group", [PROD, res("azure:privatelink/endpoint:Endpoint", "pe-classic", {
        "subnetId": subnet_id(), "privateServiceConnection": {
            "name": "psc", "privateConnectionResourceId": workspace_id(), "subresourceNames": ["blob"]}})],
     [missing()]),
    ("unknown-target", [PROD, StackResource(ENDPOINT_TYPE, "pe-prod", "urn:pe", unknown_checking_proxy(
        endpoint(target=UNKNOWN_STRING_VALUE).props))],
     [unknown("the target of private endpoint 'pe-prod' is unknown at preview")]),
]

EXAMPLE = Example.of_stacks(CASES, fails="no-endpoint", passes="endpoint-by-arm-id")


@pytest.mark.parametrize(("resources", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_workspace_private_endpoint(resources, expected):
    assert stack_messages(RULE, resources) == expected


def test_an_endpoint_built_from_another_workspace_is_not_read_for_this_one():
    other = endpoint(target=UNKNOWN_STRING_VALUE, privateLinkServiceConnections=DEV.urn)
    proxied = StackResource(other.type, other.name, other.urn, unknown_checking_proxy(other.props), None,
                            other.property_dependencies)
    assert stack_messages(RULE, [PROD, DEV, proxied]) == [missing()]
