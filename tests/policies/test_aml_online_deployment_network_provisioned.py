import pytest

from amlkit.policies.rules.aml_online_deployment_network_provisioned import RULE
from tests.policies.compute_fixtures import (
    DELETE,
    DEPLOYMENT_TYPE,
    deployment_props,
    instance,
    resource,
    workspace,
)
from tests.policies.examples import Example
from tests.policies.helpers import Public
from tests.policies.workspace_fixtures import stack_messages

PUBLIC = Public("AMLK-0040", "aml-online-deployment-network-provisioned", level="advisory", kind="stack")

SENTENCE = ("To create an online deployment, you must manually provision the managed network, or create a compute "
            "instance first which will automatically provision it.")
SOURCE = "how-to-managed-network.md, Manually provision a managed VNet"
WS = workspace("mlw-prod")
PROVISIONED = workspace("mlw-prod", provisionNetworkNow=True)
NO_NETWORK = workspace("mlw-prod", managedNetwork=DELETE)
CI = instance("ci-alice")
BLUE = resource("blue", deployment_props("Standard_DS3_v2"), DEPLOYMENT_TYPE)
BLUE_AFTER_CI = resource("blue", deployment_props("Standard_DS3_v2"), DEPLOYMENT_TYPE,
                         depends={"endpointName": [CI.urn]})


def advisory(network: str = "mlw-prod") -> tuple[str, str]:
    return "blue", (f"Managed online deployment 'blue' must be created after its managed network is provisioned "
                    f"(workspace '{network}' sets provisionNetworkNow: true, or the deployment is built from a compute "
                    f"instance in it); found neither (\"{SENTENCE}\", {SOURCE}).")


CASES = [
    ("provision-network-now", [PROVISIONED, BLUE], []),
    ("not-provisioned", [WS, BLUE], [advisory()]),
    ("an-instance-in-the-stack-is-not-enough", [WS, CI, BLUE], [advisory()]),
    ("built-from-an-instance", [WS, CI, BLUE_AFTER_CI], []),
    ("no-managed-network", [NO_NETWORK, BLUE], []),
    ("kubernetes-deployment", [WS, resource("blue", deployment_props("x", "Kubernetes"), DEPLOYMENT_TYPE)], []),
    ("workspace-not-in-the-stack", [BLUE], []),
]

EXAMPLE = Example.of_stacks(CASES, fails="not-provisioned", passes="provision-network-now")


@pytest.mark.parametrize(("resources", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_online_deployment_network_provisioned(resources, expected):
    assert stack_messages(RULE, resources) == expected
