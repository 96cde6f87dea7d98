import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.policies.framework import Finding
from amlkit.policies.rules.aml_cluster_same_region import RULE
from tests.policies import preview_fixtures as preview
from tests.policies.compute_fixtures import (
    cluster,
    instance,
    instance_props,
    stack_findings,
    with_unknown,
    workspace,
)
from tests.policies.examples import Example
from tests.policies.helpers import DELETE, Public, changed, cluster_props

PUBLIC = Public("AMLK-0012", "aml-cluster-same-region", level="advisory", kind="stack")

HAPPY = cluster_props()


def in_region(location=None, compute_location=None, props=HAPPY):
    result = props
    if location is not None:
        result = changed(result, "location", location)
    if compute_location is not None:
        result = changed(result, "properties.computeLocation", compute_location)
    return result


def offender(props, found, name="cpu-cluster", ws="mlw", region="westeurope"):
    compute = cluster(name, props=props)
    message = (f"AmlCompute cluster '{name}' must run in its workspace's region {region} (workspace '{ws}'); "
               f"found {found}.")
    return compute, Finding(message, compute.urn)


def case_other_location():
    compute, finding = offender(in_region("northeurope"), "northeurope")
    return [workspace("mlw"), compute], [finding]


def case_compute_location_wins():
    compute, finding = offender(in_region(compute_location="eastus"), "eastus")
    return [workspace("mlw"), compute], [finding]


def case_only_offenders():
    compute, finding = offender(in_region("northeurope"), "northeurope", name="far")
    return [workspace("mlw"), cluster("near"), compute], [finding]


def case_display_name_workspace():
    compute, finding = offender(in_region("North Europe"), "North Europe", region="West Europe")
    return [workspace("mlw", location="West Europe"), compute], [finding]


CASES = [
    ("happy-path", lambda: ([workspace("mlw"), cluster()], [])),
    ("display-name-equals-short-name", lambda: ([workspace("mlw", location="West Europe"), cluster()], [])),
    ("case-insensitive", lambda: ([workspace("mlw"), cluster(props=in_region("WestEurope"))], [])),
    ("other-location", case_other_location),
    ("compute-location-wins-over-location", case_compute_location_wins),
    ("compute-location-same-region", lambda: ([workspace("mlw"), cluster(props=in_region(
        "northeurope", compute_location="west europe"))], [])),
    ("display-names-differ", case_display_name_workspace),
    ("compute-location-omitted-skips", lambda: ([workspace("mlw"), cluster(props=changed(HAPPY, "location",
                                                                                         DELETE))], [])),
    ("workspace-location-omitted-skips", lambda: ([workspace("mlw", location=DELETE),
                                                   cluster(props=in_region("northeurope"))], [])),
    ("workspace-not-in-stack-skips", lambda: ([cluster(props=in_region("northeurope"))], [])),
    ("other-workspace-skips", lambda: ([workspace("x", workspaceName="mlw-other"),
                                        cluster(props=in_region("northeurope"))], [])),
    ("only-offenders", case_only_offenders),
    ("instance-ignored", lambda: ([workspace("mlw"), instance(props=in_region("northeurope",
                                                                               props=instance_props()))], [])),
]


@pytest.mark.parametrize("build", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_cluster_same_region(build):
    resources, expected = build()
    assert stack_findings(RULE, resources) == expected


def test_workspace_found_by_dependency_while_name_unknown():
    ws = workspace("mlw")
    props = with_unknown(in_region("northeurope"), "workspaceName", UNKNOWN_STRING_VALUE)
    compute = cluster(props=props, depends={"workspaceName": [ws.urn]})
    message = ("AmlCompute cluster 'cpu-cluster' must run in its workspace's region westeurope (workspace 'mlw'); "
               "found northeurope.")
    assert stack_findings(RULE, [ws, compute]) == [Finding(message, compute.urn)]


def test_unknown_location_is_unknown_not_a_pass():
    props = with_unknown(HAPPY, "location", UNKNOWN_STRING_VALUE)
    with pytest.raises(UnknownValueError):
        stack_findings(RULE, [workspace("mlw"), cluster(props=props)])


EXAMPLE = Example.of_builders(CASES, fails="other-location", passes="happy-path")


# --- what a real preview knows: unknown ids with graph edges, literal ids of another stack, both providers ------

PREVIEW_WORKSPACE = {}
PREVIEW_CLUSTER = {"location": "northeurope"}
UNKNOWN_LINK = ("compute 'gpu' names workspace <unknown> (resource group <unknown>), and preview cannot tell "
                "whether that is workspace 'mlw' of this stack.")
PREVIEW_CASES = [
    ("graph", [("gpu", "AmlCompute cluster 'gpu' must run in its workspace's region westeurope (workspace 'mlw'); "
               "found northeurope.", False)]),
    ("literal-id-of-another-stack", []),
    ("unknown-and-built-from-nothing-here",
     [("gpu", "AmlCompute cluster 'gpu' must run in its workspace's region; cannot tell: " + UNKNOWN_LINK, True)]),
]


@pytest.mark.parametrize("provider", ["native", "classic"])
@pytest.mark.parametrize(("of", "expected"), PREVIEW_CASES, ids=[c[0] for c in PREVIEW_CASES])
def test_preview_knowledge(provider, of, expected):
    stack = preview.compute_stack(provider, of, PREVIEW_WORKSPACE, PREVIEW_CLUSTER)
    assert preview.verdicts(RULE, stack) == expected
