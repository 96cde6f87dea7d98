"""End to end over the analyzer protocol: the review sends Remediate before Analyze, as the engine does
(amlkit.review.pack.remediate), on a platform team's own program (raw azure-native and a classic pulumi-azure
cluster, tests/fixtures/remediate_platform) and on amlkit's own stack file; the verdict is that of the
remediated resources, what `pulumi up --policy-pack` would deploy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from amlkit.review.engine import review
from amlkit.review.options import ReviewOptions
from tests.review.helpers import FIXTURES, record_pack_calls

PLATFORM = FIXTURES / "remediate_platform"
ROOT = Path(__file__).resolve().parents[2]
CONFIG = json.loads((PLATFORM / "pack-config.json").read_text(encoding="utf-8"))
FIXERS = set(CONFIG)
NATIVE, CLASSIC = "properties.properties.", ""
EXPECTED = [  # (policy, resource, property, before, after): resources in urn order, each in the pack's order
    ("aml-compute-instance-idle-shutdown", "ci", f"{NATIVE}idleTimeBeforeShutdown", None, "PT45M"),
    ("aml-cluster-min-nodes-zero", "cpu", f"{NATIVE}scaleSettings.minNodeCount", 2, 0),
    ("aml-cluster-idle-scale-down", "cpu", f"{NATIVE}scaleSettings.nodeIdleTimeBeforeScaleDown", "PT1H", "PT600S"),
    ("aml-cluster-ssh-disabled", "cpu", f"{NATIVE}remoteLoginPortPublicAccess", "Enabled", "Disabled"),
    ("aml-compute-no-public-ip", "cpu", f"{NATIVE}enableNodePublicIp", True, False),
    ("aml-compute-local-auth-disabled", "cpu", "properties.disableLocalAuth", False, True),
    ("aml-required-tags", "cpu", "tags.cost-center", None, "unassigned"),
    ("aml-cluster-min-nodes-zero", "classic-cpu", "scaleSettings.minNodeCount", 1, 0),
    ("aml-cluster-ssh-disabled", "classic-cpu", "sshPublicAccessEnabled", True, False),
    ("aml-compute-local-auth-disabled", "classic-cpu", "localAuthEnabled", True, False),
]


def _config(tmp_path: Path, level: str) -> Path:
    path = tmp_path / f"{level}.json"
    path.write_text(json.dumps({name: {**entry, "enforcementLevel": level} for name, entry in CONFIG.items()}),
                    encoding="utf-8")
    return path


@pytest.mark.slow
def test_the_platform_program_is_remediated_then_analyzed_on_both_providers(tmp_path, monkeypatch):
    sent = record_pack_calls(monkeypatch)
    stack = review(PLATFORM, ["dev"], options=ReviewOptions(policy_pack_config=PLATFORM / "pack-config.json",
                                                            reuse_packs=False)).stacks[0]
    assert stack.error is None
    assert [(r.policy, r.resource, r.property, r.before, r.after) for r in stack.remediations] == EXPECTED
    assert [v for v in stack.violations if v.policy in FIXERS] == []  # remediated: nothing left to find
    assert {p.name: p.level for p in stack.pack.policies if p.name in FIXERS} == dict.fromkeys(FIXERS, "remediate")
    assert len(sent["Remediate"]) == len(stack.resources)  # one Remediate per registration, before its Analyze
    # AnalyzeStack sees the remediated inputs too (what the engine deploys and then analyzes)
    [stack_request] = sent["AnalyzeStack"]
    [cpu] = [r for r in stack_request.resources if r.name == "cpu"]
    assert cpu.properties["properties"]["properties"]["scaleSettings"]["minNodeCount"] == 0


@pytest.mark.slow
def test_the_same_program_at_mandatory_fails_on_what_remediate_fixes(tmp_path):
    options = ReviewOptions(policy_pack_config=_config(tmp_path, "mandatory"))
    stack = review(PLATFORM, ["dev"], options=options).stacks[0]
    assert stack.remediations == ()
    found = sorted({(v.policy, v.resource) for v in stack.violations if v.policy in FIXERS})
    assert found == sorted({(policy, resource) for policy, resource, *_ in EXPECTED})
    assert {v.level for v in stack.violations if v.policy in FIXERS} == {"mandatory"}


@pytest.mark.slow
def test_a_stack_file_with_min_two_nodes_public_ssh_and_a_missing_tag_passes_with_its_remediations(tmp_path):
    """The done-when of issue 35 (pack side): amlkit's own stack file, three rules at remediate."""
    project = tmp_path / "project"
    (project / "stacks").mkdir(parents=True)
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(ROOT / name, project / name)
    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8")
    text = text.replace("      min_instances: 0\n", "      min_instances: 2\n", 1)
    text = text.replace("      ssh_public_access_enabled: false\n      description",
                        "      ssh_public_access_enabled: true\n      description", 1)
    text = text.replace('    cost-center: "4711"\n', "", 1)
    (project / "stacks" / "Pulumi.dev.yaml").write_text(text, encoding="utf-8")
    config = project / "remediate.json"
    config.write_text(json.dumps({
        "aml-cluster-min-nodes-zero": {"enforcementLevel": "remediate"},
        "aml-cluster-ssh-disabled": {"enforcementLevel": "remediate"},
        "aml-required-tags": {"enforcementLevel": "remediate", "requiredTags": ["owner", "cost-center"],
                              "defaultTagValues": {"cost-center": "4711"}},
    }), encoding="utf-8")
    result = review(project, ["dev"], options=ReviewOptions(policy_pack_config=config))
    stack = result.stacks[0]
    assert stack.error is None and stack.count("mandatory") == 0
    cluster = "dev-cluster-cpu-cluster-compute"
    by_rule = {r.policy for r in stack.remediations}
    assert by_rule == {"aml-cluster-min-nodes-zero", "aml-cluster-ssh-disabled", "aml-required-tags"}
    assert [(r.policy, r.property, r.before, r.after) for r in stack.remediations if r.resource == cluster] == [
        ("aml-cluster-min-nodes-zero", "properties.properties.scaleSettings.minNodeCount", 2, 0),
        ("aml-cluster-ssh-disabled", "properties.properties.remoteLoginPortPublicAccess", "Enabled", "Disabled"),
        ("aml-required-tags", "tags.cost-center", None, "4711"),
    ]
    tagged = {r.resource for r in stack.remediations if r.policy == "aml-required-tags"}
    assert tagged == {r.name for r in stack.resources if r.custom and "tags" in r.inputs}  # every taggable one
    assert [v for v in stack.violations if v.policy in by_rule] == []


@pytest.mark.slow
@pytest.mark.parametrize("ours_first", [True, False], ids=["amlkit-then-echo", "echo-then-amlkit"])
def test_every_pack_analyzes_the_remediated_inputs_whatever_the_pack_order(tmp_path, ours_first):
    from amlkit.review.pack.info import default_pack_dir
    from tests.review.helpers import PACKS

    empty = tmp_path / "empty.json"
    empty.write_text("{}", encoding="utf-8")
    packs = [(default_pack_dir(), PLATFORM / "pack-config.json"), (PACKS / "echo", empty)]
    packs = packs if ours_first else packs[::-1]
    options = ReviewOptions(policy_pack=[p for p, _ in packs], policy_pack_config=[c for _, c in packs])
    stack = review(PLATFORM, ["dev"], options=options).stacks[0]
    assert stack.error is None
    assert [(r.policy, r.resource, r.property) for r in stack.remediations] == [e[:3] for e in EXPECTED]
    [echoed] = [v.message for v in stack.violations if v.policy == "echo-inputs" and v.resource == "cpu"]
    assert "Disabled" in echoed and "Enabled" not in echoed  # the other pack saw remoteLoginPortPublicAccess fixed
