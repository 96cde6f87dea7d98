import pytest

from amlkit.policies.rules.aml_compute_instance_same_region import RULE
from tests.policies.compute_fixtures import DELETE, cluster, instance, instance_props, workspace
from tests.policies.examples import Example
from tests.policies.helpers import Public, changed, cluster_props
from tests.policies.workspace_fixtures import stack_messages

PUBLIC = Public("AMLK-0038", "aml-compute-instance-same-region", level="mandatory", kind="stack")

SENTENCE = ("Compute clusters can be created in a different region than your workspace. This functionality is only "
            "available for compute clusters, not compute instances.")
SOURCE = "how-to-create-attach-compute-cluster.md, Limitations"
WS = workspace("mlw-prod")
NO_NETWORK_WS = workspace("mlw-prod", managedNetwork=DELETE)


def far(where: str) -> tuple[str, str]:
    return ("ci-alice", f"Compute instance 'ci-alice' must run in its workspace's region westeurope (workspace "
                        f"'mlw-prod'); found {where} (\"{SENTENCE}\", {SOURCE}).")


CASES = [
    ("same-region", [NO_NETWORK_WS, instance()], []),
    ("other-region-without-managed-network", [NO_NETWORK_WS, instance("ci-alice", changed(instance_props(),
                                                                                           "location", "eastus"))],
     [far("eastus")]),
    ("other-region-under-managed-network", [WS, instance("ci-alice", changed(instance_props(), "location", "eastus"))],
     [far("eastus")]),
    ("compute-location-counts", [NO_NETWORK_WS, instance("ci-alice", changed(
        instance_props(), "properties.computeLocation", "northeurope"))], [far("northeurope")]),
    ("same-region-other-spelling", [NO_NETWORK_WS, instance("ci-alice", changed(instance_props(), "location",
                                                                                  "West Europe"))], []),
    ("a-cluster-may-run-elsewhere", [NO_NETWORK_WS, cluster("cpu-cluster", changed(cluster_props(), "location",
                                                                                    "eastus"))], []),
    ("workspace-not-in-the-stack", [instance("ci-alice", changed(instance_props(), "location", "eastus"))], []),
]

EXAMPLE = Example.of_stacks(CASES, fails="other-region-without-managed-network", passes="same-region")


@pytest.mark.parametrize(("resources", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_compute_instance_same_region(resources, expected):
    assert stack_messages(RULE, resources) == expected
