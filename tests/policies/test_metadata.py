"""amlkit.policies.metadata: the tags amlkit's pack reports for each rule, and how any pack's tags are read back."""

from __future__ import annotations

import pytest

from amlkit.policies import ALL_RULES, rule_named
from amlkit.policies.framework import Change, Equivalent
from amlkit.policies.metadata import PolicyMeta, policy_tags, read_tags


def test_the_tags_of_one_rule_as_pulumi_cloud_shows_them():
    assert policy_tags(rule_named("aml-compute-local-auth-disabled")) == [
        "security", "identity", "ref:AMLK-0010", "group:compute", "since:0.1.0", "remediates:yes",
        "stack-key:local_auth_enabled",
        "equivalent:Azure Policy:/providers/Microsoft.Authorization/policyDefinitions/"
        "e96a9a5f-07ca-471b-9bc5-6a0f33cbd68f:Azure Machine Learning Computes should have local authentication "
        "methods disabled",
        "equivalent:PSRule for Azure:AZR-000404:Azure.ML.DisableLocalAuth",
        "equivalent:Checkov:CKV_AZURE_142",
    ]


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.name)
def test_every_rules_tags_read_back_to_its_metadata(rule):
    assert read_tags(policy_tags(rule)) == PolicyMeta(
        tags=rule.tags, ref=rule.ref, group=rule.group, since=rule.since,
        levels_before=tuple((c.version, c.level) for c in rule.changed if c.level), remediates=rule.remediates,
        stack_key=rule.stack_key, equivalents=rule.equivalents)


def test_a_changed_default_level_is_a_level_before_tag():
    rule = rule_named("aml-cluster-max-nodes")
    changed = type(rule)(**{**rule.__dict__, "changed": (Change("0.2.0", "facts", config={"maxNodes": 1}),
                                                         Change("0.3.0", "stricter", level="advisory"))})
    assert [t for t in policy_tags(changed) if t.startswith("level-before:")] == ["level-before:0.3.0:advisory"]
    assert read_tags(policy_tags(changed)).levels_before == (("0.3.0", "advisory"),)


@pytest.mark.parametrize(("tags", "expected"), [
    pytest.param([], PolicyMeta(), id="none"),
    pytest.param(["cost", "team:ml", "remediates"], PolicyMeta(tags=("cost", "team:ml", "remediates")),
                 id="another pack's own tags stay tags"),
    pytest.param(["ref:X-1", "group:net", "stack-key:size", "remediates:no"],
                 PolicyMeta(ref="X-1", group="net", stack_key="size"), id="another pack's metadata reads the same"),
    pytest.param(["equivalent:Checkov:CKV_AZURE_1", "equivalent:Other tool:id-1:A title: with a colon"],
                 PolicyMeta(equivalents=(
                     Equivalent("Checkov", "CKV_AZURE_1", "", "https://www.checkov.io/5.Policy%20Index/terraform.html"),
                     Equivalent("Other tool", "id-1", "A title: with a colon", ""))),
                 id="an equivalent's url follows from its tool, none for another tool"),
])
def test_read_tags(tags, expected):
    assert read_tags(tags) == expected
