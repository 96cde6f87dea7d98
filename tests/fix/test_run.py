"""amlkit.fix.run and amlkit.fix.plan: a reviewed stack's findings become stack-file edits, printed changes, or
nothing (waived, another pack's, a rule that never remediates), with the pack's own values and config."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from amlkit.errors import ConfigError
from amlkit.fix.run import fix_review, write
from amlkit.policies.framework import PACK_NAME
from amlkit.review.model import Remediation, ResourceRecord, Review, StackReview, Violation

STACK = "urn:pulumi:team::fix-stack::pulumi:pulumi:Stack::fix-stack-team"
ENVIRONMENT = "urn:pulumi:team::fix-stack::amlkit:index:Environment::team"
COMPONENT = "urn:pulumi:team::fix-stack::amlkit:index:Environment$amlkit:index:ComputeCluster::team-cluster-cpu"
COMPUTE = "azure-native:machinelearningservices:Compute"
CLUSTER_URN = f"urn:pulumi:team::fix-stack::amlkit:index:Environment$amlkit:index:ComputeCluster${COMPUTE}::cpu-compute"
PROGRAM_URN = f"urn:pulumi:team::fix-stack::{COMPUTE}::raw-cluster"
STACK_FILE = """\
config:
  azure-native:location: westeurope
  amlkit:environment: team   # the team's
  amlkit:resourceGroup: {name: rg-team}
  amlkit:tags:
    owner: ml-platform
  amlkit:workspace:
    name: mlw-team
    managed_network: {isolation_mode: allow_internet_outbound}
  amlkit:clusters:
    - name: cpu
      size: Standard_D4ds_v5
      min_instances: 2   # warm
      max_instances: 4
      ssh_public_access_enabled: true
"""


def _cluster(min_nodes: int = 2, access: str = "Enabled", **extra: Any) -> dict[str, Any]:
    return {"computeName": "cpu", "properties": {"computeType": "AmlCompute", "properties": {
        "vmSize": "Standard_D4ds_v5", "scaleSettings": {"minNodeCount": min_nodes, "maxNodeCount": 4},
        "remoteLoginPortPublicAccess": access, **extra}}, "tags": {"owner": "ml-platform", "environment": "team"}}


RESOURCES = [
    ResourceRecord(urn=ENVIRONMENT, type="amlkit:index:Environment", name="team", parent=STACK, custom=False),
    ResourceRecord(urn=COMPONENT, type="amlkit:index:ComputeCluster", name="team-cluster-cpu", parent=ENVIRONMENT,
                   custom=False),
    ResourceRecord(urn=CLUSTER_URN, type=COMPUTE, name="cpu-compute", parent=COMPONENT, inputs=_cluster()),
    ResourceRecord(urn=PROGRAM_URN, type=COMPUTE, name="raw-cluster", parent=STACK, inputs=_cluster(),
                   source_file="/project/__main__.py", source_line=12),
]


def _finding(policy: str, urn: str = CLUSTER_URN, level: str = "mandatory", pack: str = PACK_NAME) -> Violation:
    return Violation(policy=policy, level=level, severity="high", urn=urn, type=COMPUTE,  # type: ignore[arg-type]
                     resource=urn.rsplit("::", 1)[-1], message=f"{policy} finding", pack=pack)


def _fix(tmp_path: Path, findings: list[Violation], config: dict[str, Any] | None = None,
         text: str = STACK_FILE) -> tuple[list[str], str]:
    (tmp_path / "Pulumi.team.yaml").write_text(text, encoding="utf-8")
    if config is not None:
        (tmp_path / "policy-config").mkdir()
        (tmp_path / "policy-config" / "team.json").write_text(json.dumps(config), encoding="utf-8")
    stack = StackReview(stack="team", project="fix-stack", environment="team", stack_file="Pulumi.team.yaml",
                        resources=RESOURCES, violations=findings)
    outcome = fix_review(Review(stacks=[stack]), tmp_path, None)
    after = outcome.files[0].after if outcome.files else text
    return [change.text().replace(f"{tmp_path}{os.sep}", "") for change in outcome.changes], after


def test_three_findings_become_three_key_changes(tmp_path: Path) -> None:
    tags = {"aml-required-tags": {"requiredTags": ["owner", "cost-center"],
                                  "defaultTagValues": {"cost-center": "4711"}}}
    lines, after = _fix(tmp_path, [_finding("aml-cluster-min-nodes-zero"), _finding("aml-cluster-ssh-disabled"),
                                   _finding("aml-required-tags", level="advisory")], tags)
    assert lines == [
        "Pulumi.team.yaml:13: amlkit:clusters[cpu].min_instances: 2 -> 0 (aml-cluster-min-nodes-zero, resource "
        "cpu-compute)",
        "Pulumi.team.yaml:15: amlkit:clusters[cpu].ssh_public_access_enabled: true -> false (aml-cluster-ssh-disabled, "
        "resource cpu-compute)",
        "Pulumi.team.yaml:5: amlkit:tags.cost-center: (unset) -> \"4711\" (aml-required-tags, resource cpu-compute)",
    ]
    assert after == STACK_FILE.replace("min_instances: 2", "min_instances: 0").replace(
        "ssh_public_access_enabled: true", "ssh_public_access_enabled: false").replace(
        "    owner: ml-platform\n", "    owner: ml-platform\n    cost-center: '4711'\n")


def test_idle_scale_down_is_set_to_the_configured_limit(tmp_path: Path) -> None:
    RESOURCES[2].inputs["properties"]["properties"]["scaleSettings"]["nodeIdleTimeBeforeScaleDown"] = "PT30M"
    try:
        lines, after = _fix(tmp_path, [_finding("aml-cluster-idle-scale-down")],
                            {"aml-cluster-idle-scale-down": {"maxIdleSeconds": 300}},
                            STACK_FILE + "      idle_time_before_scale_down: 1800\n")
    finally:
        del RESOURCES[2].inputs["properties"]["properties"]["scaleSettings"]["nodeIdleTimeBeforeScaleDown"]
    assert lines == ["Pulumi.team.yaml:16: amlkit:clusters[cpu].idle_time_before_scale_down: 1800 -> 300 "
                     "(aml-cluster-idle-scale-down, resource cpu-compute)"]
    assert after.endswith("      idle_time_before_scale_down: 300\n")


@pytest.mark.parametrize(
    ("finding", "lines"),
    [
        pytest.param(_finding("aml-cluster-min-nodes-zero", level="waived"), [], id="waived-is-left-alone"),
        pytest.param(_finding("aml-cluster-min-nodes-zero", pack="other-pack"), [], id="another-packs-finding"),
        pytest.param(_finding("aml-cluster-max-nodes"), [], id="a-rule-that-never-remediates"),
        pytest.param(_finding("aml-cluster-min-nodes-zero", urn=PROGRAM_URN),
                     ["/project/__main__.py:12: set properties.properties.scaleSettings.minNodeCount to 0 "
                      "(aml-cluster-min-nodes-zero, resource raw-cluster) (not changed: a program file: amlkit fix "
                      "edits stack files only)"], id="program-file-is-only-printed"),
        pytest.param(_finding("aml-required-tags", level="advisory"), [
            "Pulumi.team.yaml:11: aml-required-tags finding (aml-required-tags, resource cpu-compute) (not changed: "
            "no safe value: it needs a human choice)"], id="required-tag-without-a-default-value"),
    ],
)
def test_what_is_not_changed(tmp_path: Path, finding: Violation, lines: list[str]) -> None:
    config = {"aml-required-tags": {"requiredTags": ["owner", "cost-center"]}}
    assert _fix(tmp_path, [finding], config) == (lines, STACK_FILE)


def test_admin_password_finding_needs_a_human(tmp_path: Path) -> None:
    RESOURCES[2].inputs["properties"]["properties"]["remoteLoginPortPublicAccess"] = "Disabled"
    try:
        lines, after = _fix(tmp_path, [_finding("aml-cluster-ssh-disabled")])
    finally:
        RESOURCES[2].inputs["properties"]["properties"]["remoteLoginPortPublicAccess"] = "Enabled"
    assert lines == ["Pulumi.team.yaml:15: aml-cluster-ssh-disabled finding (aml-cluster-ssh-disabled, resource "
                     "cpu-compute) (not changed: no safe value: it needs a human choice)"]
    assert after == STACK_FILE


def test_node_public_ip_is_turned_off_where_the_compute_has_a_network(tmp_path: Path) -> None:
    lines, after = _fix(tmp_path, [_finding("aml-compute-no-public-ip")])
    assert lines == ["Pulumi.team.yaml:11: amlkit:clusters[cpu].enable_node_public_ip: (unset) -> false "
                     "(aml-compute-no-public-ip, resource cpu-compute)"]
    assert after == STACK_FILE.replace("    - name: cpu\n", "    - name: cpu\n      enable_node_public_ip: false\n")


def test_an_edit_the_schema_refuses_is_printed_with_the_schema_message(tmp_path: Path) -> None:
    without_network = STACK_FILE.replace("isolation_mode: allow_internet_outbound", "isolation_mode: disabled")
    lines, after = _fix(tmp_path, [_finding("aml-compute-no-public-ip")], text=without_network)
    assert lines == [
        "Pulumi.team.yaml:11: amlkit:clusters[cpu].enable_node_public_ip: (unset) -> false (aml-compute-no-public-ip, "
        "resource cpu-compute) (not changed: the stack file would be invalid: amlkit:clusters[0].enable_node_public_ip:"
        " got false; allowed: true, or false together with network_settings.subnet or a workspace managed_network "
        "(nodes without public IPs need a network))"]
    assert after == without_network


def test_write_keeps_the_files_mode(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.team.yaml").write_text(STACK_FILE, encoding="utf-8")
    os.chmod(tmp_path / "Pulumi.team.yaml", 0o640)
    stack = StackReview(stack="team", project="fix-stack", environment="team", stack_file="Pulumi.team.yaml",
                        resources=RESOURCES, violations=[_finding("aml-cluster-min-nodes-zero")])
    write(fix_review(Review(stacks=[stack]), tmp_path, None))
    assert (tmp_path / "Pulumi.team.yaml").read_text(encoding="utf-8") == STACK_FILE.replace(
        "min_instances: 2", "min_instances: 0")
    assert oct((tmp_path / "Pulumi.team.yaml").stat().st_mode & 0o777) == oct(0o640)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["Pulumi.team.yaml"]


def test_a_stack_file_linking_out_of_the_project_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text(STACK_FILE, encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.team.yaml").symlink_to(outside)
    stack = StackReview(stack="team", project="fix-stack", environment="team", stack_file="Pulumi.team.yaml",
                        resources=RESOURCES, violations=[_finding("aml-cluster-min-nodes-zero")])
    with pytest.raises(ConfigError) as refused:
        fix_review(Review(stacks=[stack]), project, None)
    assert str(refused.value) == (f"{project / 'Pulumi.team.yaml'}: a symbolic link to {outside}, outside the "
                                  f"project; allowed: a file inside the project ({project})")
    assert outside.read_text(encoding="utf-8") == STACK_FILE


INSTANCE_URN = (f"urn:pulumi:team::fix-stack::amlkit:index:Environment$amlkit:index:ComputeInstance${COMPUTE}"
                "::ci-alice-compute")


def test_local_auth_and_instance_idle_shutdown_take_the_pack_values(tmp_path: Path) -> None:
    instance = ResourceRecord(urn=INSTANCE_URN, type=COMPUTE, name="ci-alice-compute", parent=ENVIRONMENT, inputs={
        "computeName": "ci-alice", "properties": {"computeType": "ComputeInstance", "disableLocalAuth": True,
                                                  "properties": {"vmSize": "Standard_D4ds_v5",
                                                                 "idleTimeBeforeShutdown": "PT240M"}}})
    RESOURCES.append(instance)
    try:
        lines, after = _fix(tmp_path, [_finding("aml-compute-local-auth-disabled", level="advisory"),
                                       _finding("aml-compute-instance-idle-shutdown", urn=INSTANCE_URN)],
                            {"aml-compute-instance-idle-shutdown": {"maxIdleMinutes": 120}},
                            STACK_FILE + "      local_auth_enabled: true\n  amlkit:instances:\n    - name: ci-alice\n"
                            "      size: Standard_D4ds_v5\n      idle_time_before_shutdown_minutes: 240\n")
    finally:
        RESOURCES.remove(instance)
    assert lines == [  # the review's order: mandatory findings first
        "Pulumi.team.yaml:20: amlkit:instances[ci-alice].idle_time_before_shutdown_minutes: 240 -> 60 "
        "(aml-compute-instance-idle-shutdown, resource ci-alice-compute)",
        "Pulumi.team.yaml:16: amlkit:clusters[cpu].local_auth_enabled: true -> false "
        "(aml-compute-local-auth-disabled, resource cpu-compute)",
    ]
    assert after.endswith("      local_auth_enabled: false\n  amlkit:instances:\n    - name: ci-alice\n"
                          "      size: Standard_D4ds_v5\n      idle_time_before_shutdown_minutes: 60\n")


def test_what_a_remediate_level_set_is_fixed_in_the_source_too(tmp_path: Path) -> None:
    remediated = Remediation(policy="aml-cluster-min-nodes-zero", urn=CLUSTER_URN, type=COMPUTE, resource="cpu-compute",
                             property="properties.properties.scaleSettings.minNodeCount", before=2, after=0,
                             pack=PACK_NAME)
    (tmp_path / "Pulumi.team.yaml").write_text(STACK_FILE, encoding="utf-8")
    stack = StackReview(stack="team", project="fix-stack", environment="team", stack_file="Pulumi.team.yaml",
                        resources=RESOURCES, remediations=(remediated,))
    outcome = fix_review(Review(stacks=[stack]), tmp_path, None)
    assert [change.text().replace(f"{tmp_path}{os.sep}", "") for change in outcome.changes] == [
        "Pulumi.team.yaml:13: amlkit:clusters[cpu].min_instances: 2 -> 0 (aml-cluster-min-nodes-zero, resource "
        "cpu-compute)"]
    assert outcome.files[0].after == STACK_FILE.replace("min_instances: 2", "min_instances: 0")
