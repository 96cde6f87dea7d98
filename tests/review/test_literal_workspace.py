"""The probe of #29 through the real engine: a classic cluster of a workspace in another stack (a literal ARM id),
beside a classic lock on that workspace's resource group, gets aml-no-resource-group-lock's finding; so does the
azure-native twin (tests/fixtures/literal_workspace)."""

from __future__ import annotations

import pytest

from amlkit.review.engine import review
from tests.review.helpers import FIXTURES

pytestmark = pytest.mark.slow

LOCK = ("Management lock 'lock' must not cover resource group 'rg-shared-ml', which holds workspace 'mlw-platform' of "
        "compute 'gpu' (a lock there blocks cluster scaling); lock individual resources instead; found a lock at "
        "resource group scope.")


@pytest.mark.parametrize("provider", ["classic", "native"])
def test_a_lock_on_the_group_of_a_workspace_named_by_literal_id_is_a_finding(provider):
    (stack,) = review(FIXTURES / "literal_workspace" / provider, ["probe"]).stacks
    assert stack.error is None, stack.error
    assert [(v.policy, v.level, v.resource, v.message) for v in stack.violations
            if v.policy == "aml-no-resource-group-lock"] == [("aml-no-resource-group-lock", "mandatory", "lock", LOCK)]
    assert [u for u in stack.unknown if u.policy == "aml-no-resource-group-lock"] == []
