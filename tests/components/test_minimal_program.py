"""The documented defaults of the components trip no mandatory rule (issue 10, case 6).

tests/fixtures/minimal_components builds a Workspace, a ComputeCluster and a ComputeInstance with only
their required arguments. Reviewed through the real engine under the pack's defaults (stack `minimal`
has no config of its own in the pack), it shows exactly the advisories docs/components.md lists.
Before: `aml-quota-budget` also reported "must set location (or computeLocation)" on each compute.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from amlkit.policies import rule_named
from amlkit.review.engine import review
from amlkit.review.model import StackReview
from amlkit.review.options import ReviewOptions
from tests.components.documented import default_advisories
from tests.review.statefiles import deployed_state

ROOT = Path(__file__).resolve().parents[2]
MINIMAL = ROOT / "tests" / "fixtures" / "minimal_components"
RESOURCES = {"the workspace": "mlw-workspace", "the cluster": "cpu-compute", "the instance": "dev-compute"}
"""The program's resource that docs/components.md's table means."""

MESSAGES = {
    "aml-workspace-cmk":
    "Workspace 'mlw-workspace' must be encrypted with a customer-managed key; found no "
    "encryption.keyVaultProperties.keyIdentifier.",
    "aml-workspace-user-assigned-identity":
    "Workspace 'mlw-workspace' must use a user-assigned identity (identity type including UserAssigned and "
    "primaryUserAssignedIdentity set to one of identity.userAssignedIdentities); found identity type "
    "SystemAssigned.",
    "aml-workspace-private-endpoint":
    "Workspace 'mlw-workspace' must have a private endpoint (group amlworkspace) when publicNetworkAccess is "
    "Disabled; found no private endpoint in the stack (a managed network isolates outbound traffic only).",
}
"""The exact messages of the documented advisories (a rule's own messages are pinned in its test module)."""


def advisories() -> set[tuple[str, str, str]]:
    """The advisories docs/components.md documents, each at its rule's default level (the rule's metadata)."""
    return {(policy, rule_named(policy).level, RESOURCES[resource]) for policy, resource in default_advisories()}


def findings(stack: StackReview) -> set[tuple[str, str, str]]:
    assert {v.policy: v.message for v in stack.violations if v.policy in MESSAGES} == MESSAGES
    return {(v.policy, v.level, v.resource) for v in stack.violations}


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> StackReview:
    """Against the program's own state export: the instance's role assignment is scoped to the deployed
    workspace id (in a first preview that id is unknown, see `test_a_first_preview_cannot_tell_the_grant`)."""
    state = deployed_state(MINIMAL, "minimal", tmp_path_factory.mktemp("state"))
    (stack,) = review(MINIMAL, ["minimal"], options=ReviewOptions(states=[state])).stacks
    return stack


@pytest.mark.slow
def test_the_minimal_program_has_only_the_documented_advisories(reviewed: StackReview) -> None:
    assert reviewed.error is None
    assert findings(reviewed) == advisories()
    assert reviewed.unknown == ()
    assert reviewed.outcome == "warnings"
    assert reviewed.plan is not None and {step.op for step in reviewed.plan.steps} == {"same"}


@pytest.mark.slow
def test_a_first_preview_cannot_tell_the_grant() -> None:
    """Before deployment the workspace id the grant is scoped to is unknown, as in `pulumi preview`: the same
    advisories, and the instance's identity rule is unknown, never a pass; so is the image-build compute, as the
    workspace sets no imageBuildCompute and AnalyzeStack's outputs of a workspace being created leave it unknown."""
    (stack,) = review(MINIMAL, ["minimal"]).stacks
    assert findings(stack) == advisories()
    assert [u.policy for u in stack.unknown] == ["aml-compute-instance-identity", "aml-workspace-image-build-compute"]


@pytest.mark.slow
def test_the_instance_gets_contributor_on_its_workspace_from_the_workspace_argument(reviewed: StackReview) -> None:
    grants = [r for r in reviewed.resources if r.type == "azure-native:authorization:RoleAssignment"]
    assert [(r.name, r.inputs["scope"].rsplit("/", 2)[-2:]) for r in grants] == [
        ("dev-workspace-contributor", ["workspaces", "mlw"])]


@pytest.mark.slow
def test_every_compute_says_its_region(reviewed: StackReview) -> None:
    computes = [r for r in reviewed.resources if r.type == "azure-native:machinelearningservices:Compute"]
    assert sorted((r.name, r.inputs["location"]) for r in computes) == [
        ("cpu-compute", "westeurope"), ("dev-compute", "westeurope")]


def test_the_documented_advisories_are_advisory_rules() -> None:
    """The components' defaults pass every mandatory rule (docs/components.md): each advisory it lists is a rule
    of the pack whose default level is advisory, on a resource of the program."""
    documented = default_advisories()
    assert {policy for policy, _ in documented} >= set(MESSAGES)
    assert {level for _, level, _ in advisories()} == {"advisory"}
