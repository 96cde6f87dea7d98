"""The declarative "field must equal / be in" base (policies/value_check.py): what a ValueCheck finds for each
value, and the three runners on computes, workspaces and the workspaces that decide a hub's setting."""

import pytest

from amlkit.policies.framework import ResourceInput
from amlkit.policies.value_check import ValueCheck, compute_check, workspace_check, workspace_stack_check
from tests.policies.compute_fixtures import attached_props, instance_props, resource
from tests.policies.helpers import COMPUTE_TYPE, DELETE, changed, cluster_props
from tests.policies.workspace_fixtures import WORKSPACE_TYPE, workspace_id, workspace_props


def field(**kwargs):
    """A check of the value itself (the view is the value)."""
    return ValueCheck(read=lambda value: value, **{"expectation": "be as required", **kwargs})


def modes(allowed):
    return "have mode " + (" or ".join(allowed) or "(none allowed)")


MODES = {"modes": ["Allow", "Deny"]}

# (id, check, value, config, found: None when the value passes)
CASES = [
    ("bool-equal", field(equals=True), True, {}, None),
    ("bool-other", field(equals=True), False, {}, "false"),
    ("bool-is-not-one", field(equals=True), 1, {}, "1"),
    ("bool-omitted-no-default", field(equals=True), None, {}, "none"),
    ("bool-omitted-azure-default", field(equals=False, default=True), None, {}, "none (Azure then uses true)"),
    ("int-equal", field(equals=0), 0, {}, None),
    ("int-other", field(equals=0), 2, {}, "2"),
    ("int-is-not-false", field(equals=0), False, {}, "false"),
    ("enum-equal", field(equals="Disabled"), "Disabled", {}, None),
    ("enum-ignores-case", field(equals="Disabled"), "disabled", {}, None),
    ("enum-other", field(equals="Disabled"), "Enabled", {}, "Enabled"),
    ("enum-not-a-string", field(equals="Disabled"), 3, {}, "3"),
    ("enum-omitted-azure-default", field(equals="Disabled", default="Enabled"), None, {},
     "none (Azure then uses Enabled)"),
    ("knob-listed", field(one_of="modes", expectation=modes), "Deny", MODES, None),
    ("knob-listed-other-case", field(one_of="modes", expectation=modes), "deny", MODES, None),
    ("knob-not-listed", field(one_of="modes", expectation=modes), "Open", MODES, "Open"),
    ("knob-empty", field(one_of="modes", expectation=modes), "Allow", {"modes": []}, "Allow"),
]


@pytest.mark.parametrize(("check", "value", "config", "found"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_value_check(check, value, config, found):
    assert check.found(value, config) == found


EXPECTATIONS = [
    ("text", field(equals=True), {}, "be as required"),
    ("from-the-knob", field(one_of="modes", expectation=modes), MODES, "have mode Allow or Deny"),
    ("from-an-empty-knob", field(one_of="modes", expectation=modes), {"modes": []}, "have mode (none allowed)"),
]


@pytest.mark.parametrize(("check", "config", "text"), [c[1:] for c in EXPECTATIONS], ids=[c[0] for c in EXPECTATIONS])
def test_expectation(check, config, text):
    assert check.expecting(config) == text


@pytest.mark.parametrize("kwargs", [{}, {"equals": True, "one_of": "modes"}], ids=["neither", "both"])
def test_a_check_takes_exactly_one_expected_value_or_knob(kwargs):
    with pytest.raises(TypeError, match="exactly one of equals= and one_of="):
        field(**kwargs)


PRIORITY = ValueCheck(read=lambda compute: compute.vm_priority, equals="Dedicated", expectation="have vmPriority X")

COMPUTES = [
    ("cluster-passes", cluster_props(), []),
    ("cluster-fails", cluster_props(vmPriority="LowPriority"),
     ["AmlCompute cluster 'c' must have vmPriority X; found LowPriority."]),
    ("omitted-is-the-views-default", changed(cluster_props(), "properties.properties.vmPriority", DELETE), []),
    ("instance-not-of-the-kinds", instance_props(vmPriority="LowPriority"), []),
    ("attached-not-of-the-kinds", attached_props(), []),
]


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in COMPUTES], ids=[c[0] for c in COMPUTES])
def test_compute_check(props, expected):
    check = compute_check(("AmlCompute",), PRIORITY)
    assert [f.message for f in check(ResourceInput(COMPUTE_TYPE, "c", "urn", props), {})] == expected


def test_compute_check_ignores_other_types():
    check = compute_check(("AmlCompute",), PRIORITY)
    assert list(check(ResourceInput("azure-native:storage:StorageAccount", "c", "urn", cluster_props()), {})) == []


HBI = ValueCheck(read=lambda workspace: workspace.hbi_workspace, equals=True, expectation="have hbiWorkspace true")

WORKSPACES = [
    ("passes", workspace_props(), []),
    ("fails", workspace_props(hbiWorkspace=False), ["Workspace 'w' must have hbiWorkspace true; found false."]),
    ("a-project-is-judged-on-its-own-inputs", workspace_props(kind="Project", hbiWorkspace=False),
     ["Workspace 'w' must have hbiWorkspace true; found false."]),
]


@pytest.mark.parametrize(("props", "expected"), [c[1:] for c in WORKSPACES], ids=[c[0] for c in WORKSPACES])
def test_workspace_check(props, expected):
    check = workspace_check(HBI)
    assert [f.message for f in check(ResourceInput(WORKSPACE_TYPE, "w", "urn", props), {})] == expected


def hub(**overrides):
    return resource("hub", workspace_props(**{"workspaceName": "hub", "kind": "Hub", **overrides}), WORKSPACE_TYPE)


def project(**overrides):
    props = workspace_props(workspaceName="proj", kind="Project", hubResourceId=workspace_id(name="hub"), **overrides)
    return resource("proj", props, WORKSPACE_TYPE)


STACKS = [
    ("workspace-passes", [hub(kind="Default")], []),
    ("workspace-fails", [hub(kind="Default", hbiWorkspace=False)],
     [("hub", "Workspace 'hub' must have hbiWorkspace true; found false.", False)]),
    ("the-hub-decides-for-its-project", [hub(hbiWorkspace=False), project(hbiWorkspace=True)],
     [("hub", "Workspace 'hub' must have hbiWorkspace true; found false.", False)]),
    ("a-project-without-its-hub-cannot-be-told", [project(hbiWorkspace=False)],
     [("proj", "Workspace 'proj' must have hbiWorkspace true; cannot tell: a project workspace takes its HBI "
               f"setting from its hub '{workspace_id(name='hub')}', which is not in this stack.", True)]),
]


@pytest.mark.parametrize(("stack", "expected"), [c[1:] for c in STACKS], ids=[c[0] for c in STACKS])
def test_workspace_stack_check(stack, expected):
    check = workspace_stack_check("HBI setting", HBI)
    assert [(f.urn.rsplit("::", 1)[-1], f.message, f.unknown) for f in check(stack, {})] == expected
