"""The probe of #29 through the real engine: a classic cluster of a workspace in another stack (a literal ARM id),
beside a classic lock on that workspace's resource group, gets aml-no-resource-group-lock's finding
(tests/fixtures/literal_workspace). Its azure-native twin names the workspace and the lock's group by literal path
inputs, which azure-native's outputs (what AnalyzeStack gets) do not carry: a first preview cannot place either
(unknown, never a pass); against the deployed state their ids do, and the finding is the classic one."""

from __future__ import annotations

import pytest

from amlkit.review.engine import review
from amlkit.review.options import ReviewOptions
from tests.review.helpers import FIXTURES
from tests.review.statefiles import deployed_state

pytestmark = pytest.mark.slow

LOCK = ("Management lock 'lock' must not cover resource group 'rg-shared-ml', which holds workspace 'mlw-platform' of "
        "compute 'gpu' (a lock there blocks cluster scaling); lock individual resources instead; found a lock at "
        "resource group scope.")
NATIVE_UNKNOWN = (
    "can't run policy 'aml-no-resource-group-lock' from policy pack 'amlkit-guardrails@v0.3.0' during preview: "
    "Management lock "
    "'lock' must not cover the resource group of a workspace or of a compute's subnet (a lock there blocks cluster "
    "scaling); cannot tell: preview cannot tell whether it locks resource group <unknown> or <unknown>, which holds "
    "workspace '<unknown>' of compute 'gpu'.")


def lock_verdicts(stack):
    return ([(v.policy, v.level, v.resource, v.message) for v in stack.violations
             if v.policy == "aml-no-resource-group-lock"],
            [u.message for u in stack.unknown if u.policy == "aml-no-resource-group-lock"])


def test_a_classic_lock_on_the_group_of_a_workspace_named_by_literal_id_is_a_finding():
    (stack,) = review(FIXTURES / "literal_workspace" / "classic", ["probe"]).stacks
    assert stack.error is None, stack.error
    assert lock_verdicts(stack) == ([("aml-no-resource-group-lock", "mandatory", "lock", LOCK)], [])


def test_the_native_twin_is_unknown_in_a_first_preview_and_a_finding_against_its_state(tmp_path):
    program = FIXTURES / "literal_workspace" / "native"
    (first,) = review(program, ["probe"]).stacks
    assert first.error is None, first.error
    assert lock_verdicts(first) == ([], [NATIVE_UNKNOWN])
    state = deployed_state(program, "probe", tmp_path)
    (again,) = review(program, ["probe"], options=ReviewOptions(states=[state])).stacks
    assert lock_verdicts(again) == ([("aml-no-resource-group-lock", "mandatory", "lock", LOCK)], [])
