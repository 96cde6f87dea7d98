"""The documented defaults of the components trip no mandatory rule (issue 10, case 6).

tests/fixtures/minimal_components builds a Workspace, a ComputeCluster and a ComputeInstance with only
their required arguments. Reviewed through the real engine under the pack's defaults (stack `minimal`
has no config of its own in the pack), it shows exactly the advisories docs/components.md lists.
Before: `aml-quota-budget` also reported "must set location (or computeLocation)" on each compute.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from amlkit.review.engine import review
from amlkit.review.model import StackReview
from amlkit.review.options import ReviewOptions
from tests.review.statefiles import deployed_state

ROOT = Path(__file__).resolve().parents[2]
MINIMAL = ROOT / "tests" / "fixtures" / "minimal_components"
REFERENCE = ROOT / "docs" / "components.md"

ADVISORIES = {
    ("aml-workspace-cmk", "advisory", "mlw-workspace",
     "Workspace 'mlw-workspace' must be encrypted with a customer-managed key; found no "
     "encryption.keyVaultProperties.keyIdentifier."),
    ("aml-workspace-user-assigned-identity", "advisory", "mlw-workspace",
     "Workspace 'mlw-workspace' must use a user-assigned identity (identity type including UserAssigned and "
     "primaryUserAssignedIdentity set to one of identity.userAssignedIdentities); found identity type "
     "SystemAssigned."),
    ("aml-workspace-private-endpoint", "advisory", "mlw-workspace",
     "Workspace 'mlw-workspace' must have a private endpoint (group amlworkspace) when publicNetworkAccess is "
     "Disabled; found no private endpoint in the stack (a managed network isolates outbound traffic only)."),
}


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> StackReview:
    """Against the program's own state export: the instance's role assignment is scoped to the deployed
    workspace id (in a first preview that id is unknown, see `test_a_first_preview_cannot_tell_the_grant`)."""
    state = deployed_state(MINIMAL, "minimal", tmp_path_factory.mktemp("state"))
    (stack,) = review(MINIMAL, ["minimal"], options=ReviewOptions(states=[state])).stacks
    return stack


def test_the_minimal_program_has_only_the_documented_advisories(reviewed: StackReview) -> None:
    assert reviewed.error is None
    assert {(v.policy, v.level, v.resource, v.message) for v in reviewed.violations} == ADVISORIES
    assert reviewed.unknown == ()
    assert reviewed.outcome == "warnings"
    assert reviewed.plan is not None and {step.op for step in reviewed.plan.steps} == {"same"}


def test_a_first_preview_cannot_tell_the_grant() -> None:
    """Before deployment the workspace id the grant is scoped to is unknown, as in `pulumi preview`: the same
    advisories, and the instance's identity rule is unknown, never a pass."""
    (stack,) = review(MINIMAL, ["minimal"]).stacks
    assert {(v.policy, v.level, v.resource, v.message) for v in stack.violations} == ADVISORIES
    assert [u.policy for u in stack.unknown] == ["aml-compute-instance-identity"]


def test_the_instance_gets_contributor_on_its_workspace_from_the_workspace_argument(reviewed: StackReview) -> None:
    grants = [r for r in reviewed.resources if r.type == "azure-native:authorization:RoleAssignment"]
    assert [(r.name, r.inputs["scope"].rsplit("/", 2)[-2:]) for r in grants] == [
        ("dev-workspace-contributor", ["workspaces", "mlw"])]


def test_every_compute_says_its_region(reviewed: StackReview) -> None:
    computes = [r for r in reviewed.resources if r.type == "azure-native:machinelearningservices:Compute"]
    assert sorted((r.name, r.inputs["location"]) for r in computes) == [
        ("cpu-compute", "westeurope"), ("dev-compute", "westeurope")]


def test_the_component_reference_lists_exactly_these_advisories() -> None:
    section = REFERENCE.read_text(encoding="utf-8").split("## Defaults and their advisories\n")[1].split("\n## ")[0]
    listed = {line.split("|")[1].strip().strip("`") for line in section.splitlines() if line.startswith("| `aml-")}
    assert listed == {policy for policy, *_ in ADVISORIES}
