"""locate: the stack-file line a finding points at, through the resource's parent chain, on the key its policy's
`PolicyInfo.stack_key` names (the review's pack info: the reports read no rule)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from amlkit.packs import own_pack_info
from amlkit.review.model import PackInfo, PolicyInfo, ResourceRecord, StackReview
from amlkit.review.packdir import default_pack_dir
from amlkit.review.report.locate import (
    Entry,
    ancestry,
    children_index,
    find_line,
    index_stack_file,
    locate,
    related_names,
)

STACK = """\
config:
  azure-native:location: westeurope
  amlkit:environment: prod
  amlkit:workspace:
    name: mlw-prod
    public_network_access: disabled
  amlkit:clusters:
    - name: cpu-cluster
      size: Standard_DS3_v2
      min_instances: 2
      max_instances: 4
    - name: gpu
      size: Standard_NC6
  amlkit:instances:
    - name: ci-alice
      size: Standard_DS3_v2
  amlkit:attached:
    - name: aks-batch
      type: kubernetes
      identity:
        type: system_assigned
"""

ENV = ResourceRecord(urn="urn:env", type="amlkit:index:Environment", name="prod", custom=False)
WS_COMPONENT = ResourceRecord(urn="urn:wsc", type="amlkit:index:Workspace", name="mlw-prod", parent="urn:env",
                              custom=False)
WS = ResourceRecord(urn="urn:ws", type="azure-native:machinelearningservices:Workspace", name="mlw-prod-ws",
                    parent="urn:wsc")
STORAGE = ResourceRecord(urn="urn:st", type="azure-native:storage:StorageAccount", name="mlw-prod-storage",
                         parent="urn:wsc")
CPU_COMPONENT = ResourceRecord(urn="urn:cpuc", type="amlkit:index:ComputeCluster", name="cpu-cluster",
                               parent="urn:env", custom=False)
CPU = ResourceRecord(urn="urn:cpu", type="azure-native:machinelearningservices:Compute", name="cpu-cluster-compute",
                     parent="urn:cpuc")
GPU = ResourceRecord(urn="urn:gpu", type="azure-native:machinelearningservices:Compute", name="prod-gpu",
                     parent="urn:env")
ALICE = ResourceRecord(urn="urn:ci", type="azure-native:machinelearningservices:Compute", name="instance-1",
                       parent="urn:env", inputs={"computeName": "ci-alice"})
WS2_COMPONENT = ResourceRecord(urn="urn:wsc2", type="amlkit:index:Workspace", name="prod-workspace",
                               parent="urn:env", custom=False)
WS2 = ResourceRecord(urn="urn:ws2", type="azure-native:machinelearningservices:Workspace",
                     name="prod-workspace-workspace", parent="urn:wsc2", inputs={"workspaceName": "mlw-prod"})
VAULT2 = ResourceRecord(urn="urn:kv2", type="azure-native:keyvault:Vault", name="prod-workspace-keyvault",
                        parent="urn:wsc2")
LOCK = ResourceRecord(urn="urn:lock", type="azure-native:authorization:ManagementLockAtResourceGroupLevel",
                      name="rg-lock", parent="urn:env")
AKS_COMPONENT = ResourceRecord(urn="urn:aksc", type="amlkit:index:KubernetesCompute", name="prod-attached-aks-batch",
                               parent="urn:env", custom=False)
AKS = ResourceRecord(urn="urn:aks", type="azure-native:machinelearningservices:Compute",
                     name="prod-attached-aks-batch-compute", parent="urn:aksc",
                     inputs={"computeName": "aks-batch", "workspaceName": "mlw-prod"})
# policy -> stack-file key, as a review of amlkit's pack carries it (each rule's `stack_key`, through its PolicyInfo)
KEYS = StackReview("prod", "amlkit", "prod", "Pulumi.prod.yaml",
                   packs=(own_pack_info(default_pack_dir()),)).stack_keys()
RESOURCES = [ENV, WS_COMPONENT, WS, STORAGE, CPU_COMPONENT, CPU, GPU, ALICE, LOCK, WS2_COMPONENT, WS2, VAULT2,
             AKS_COMPONENT, AKS]


@pytest.fixture
def stack_file(tmp_path: Path) -> Path:
    path = tmp_path / "Pulumi.prod.yaml"
    path.write_text(STACK, encoding="utf-8")
    return path


def test_index_lists_every_named_entry_with_its_lines(stack_file: Path) -> None:
    entries = index_stack_file(stack_file)
    assert {name: e.line for name, e in entries.items()} == {
        "mlw-prod": 5, "cpu-cluster": 8, "gpu": 12, "ci-alice": 15, "aks-batch": 18,
    }
    assert dict(entries["cpu-cluster"].keys) == {"name": 8, "size": 9, "min_instances": 10, "max_instances": 11}


@pytest.mark.parametrize(
    ("urn", "policy", "line"),
    [
        pytest.param("urn:cpu", "aml-cluster-min-nodes-zero", 10, id="child-of-component-points-at-the-key"),
        pytest.param("urn:cpu", "aml-compute-approved-vm-family", 9, id="size-rule-points-at-size"),
        pytest.param("urn:cpu", "aml-compute-no-public-ip", 8, id="key-left-to-default-points-at-name"),
        pytest.param("urn:cpu", "some-future-policy", 8, id="unmapped-policy-points-at-name"),
        pytest.param("urn:cpuc", "aml-cluster-max-nodes", 11, id="the-component-itself"),
        pytest.param("urn:ws", "aml-workspace-public-network-disabled", 6, id="workspace-child"),
        pytest.param("urn:st", "", 5, id="workspace-dependency"),
        pytest.param("urn:gpu", "aml-compute-retired-vm-series", 13, id="environment-prefixed-name"),
        pytest.param("urn:ci", "", 15, id="matched-by-compute-name-input"),
        pytest.param("urn:kv2", "", 5, id="sibling-of-the-ml-workspace-in-a-nested-component"),
        pytest.param("urn:ws2", "aml-workspace-public-network-disabled", 6, id="matched-by-workspace-name-input"),
        pytest.param("urn:lock", "aml-no-resource-group-lock", 1, id="root-component-children-do-not-count"),
        pytest.param("urn:aks", "", 18, id="attached-compute-at-its-entry-not-the-workspace"),
        pytest.param("urn:aks", "aml-compute-identity", 20, id="attached-compute-at-its-entrys-key"),
        pytest.param("urn:aksc", "", 18, id="attached-component"),
        pytest.param("urn:nowhere", "", 1, id="unknown-urn-falls-back-to-line-1"),
    ],
)
def test_locate(stack_file: Path, urn: str, policy: str, line: int) -> None:
    assert locate(stack_file, urn, RESOURCES, KEYS.get(policy, "")) == line


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(None, id="missing-file"),
        pytest.param("config: [unclosed\n", id="invalid-yaml"),
        pytest.param("- just\n- a list\n", id="not-a-mapping"),
        pytest.param("config:\n  amlkit:clusters:\n    - size: x\n    - 3\n", id="entries-without-names"),
    ],
)
def test_unreadable_or_odd_files_fall_back_to_line_1(tmp_path: Path, text: str | None) -> None:
    path = tmp_path / "Pulumi.x.yaml"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    assert locate(path, "urn:cpu", RESOURCES, "min_instances") == 1


def test_ancestry_walks_up_and_stops_on_cycles() -> None:
    assert [r.urn for r in ancestry("urn:cpu", RESOURCES)] == ["urn:cpu", "urn:cpuc", "urn:env"]
    a = ResourceRecord(urn="a", type="t", name="a", parent="b")
    b = ResourceRecord(urn="b", type="t", name="b", parent="a")
    assert [r.urn for r in ancestry("a", [a, b])] == ["a", "b"]


def test_exact_name_anywhere_in_the_chain_beats_a_fuzzy_match() -> None:
    entries = {"gpu": Entry(line=3, keys={"name": 3}), "prod-gpu": Entry(line=7, keys={"name": 7})}
    assert find_line(entries, ancestry("urn:gpu", RESOURCES)) == 7


def test_longest_fuzzy_match_wins() -> None:
    entries = {"gpu": Entry(line=3, keys={"name": 3}), "big-gpu": Entry(line=7, keys={"name": 7})}
    record = ResourceRecord(urn="u", type="t", name="prod-big-gpu")
    assert find_line(entries, [record]) == 7


def test_ancestry_accepts_a_urn_index() -> None:
    by_urn = {r.urn: r for r in RESOURCES}
    assert ancestry("urn:cpu", by_urn) == ancestry("urn:cpu", RESOURCES)


def test_children_of_a_component_under_the_stack_resource_do_not_count() -> None:
    stack_urn = "urn:pulumi:prod::amlkit::pulumi:pulumi:Stack::amlkit-prod"
    env = dataclasses.replace(ENV, parent=stack_urn)
    root = ResourceRecord(urn=stack_urn, type="pulumi:pulumi:Stack", name="amlkit-prod", custom=False)
    entries = {"cpu-cluster": Entry(line=8, keys={"name": 8})}
    resources = [root, env, CPU_COMPONENT, LOCK]
    chain = ancestry("urn:lock", resources)
    assert find_line(entries, chain, "", related_names(chain, children_index(resources))) == 1


def test_stack_keys_come_from_the_packs_policy_info() -> None:
    from amlkit.policies import ALL_RULES

    assert KEYS["aml-cluster-min-nodes-zero"] == "min_instances"
    assert "aml-required-tags" not in KEYS  # no stack_key: the finding points at the entry's name
    assert {rule.name: rule.stack_key for rule in ALL_RULES if rule.stack_key} == KEYS


def test_another_packs_policy_info_places_its_findings_the_same_way(stack_file: Path) -> None:
    acme = PackInfo("acme", "1.0.0", (PolicyInfo("acme-size", "Sizes are approved.", "mandatory", "low",
                                                 stack_key="size"),
                                      PolicyInfo("acme-tags", "Tagged.", "advisory", "low")))
    keys = StackReview("prod", "amlkit", "prod", "Pulumi.prod.yaml", packs=(acme,)).stack_keys()
    assert keys == {"acme-size": "size"}
    assert [locate(stack_file, "urn:cpu", RESOURCES, keys.get(policy, "")) for policy in ("acme-size", "acme-tags")] \
        == [9, 8]


def test_every_stack_key_is_a_key_of_the_schema() -> None:
    from amlkit.policies import ALL_RULES
    from amlkit.schema import ClusterSpec, InstanceSpec, WorkspaceSpec

    fields = {*ClusterSpec.model_fields, *InstanceSpec.model_fields, *WorkspaceSpec.model_fields}
    assert [rule.name for rule in ALL_RULES if rule.stack_key and rule.stack_key not in fields] == []
