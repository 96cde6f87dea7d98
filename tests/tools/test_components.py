"""tools/docs/components.py: the component reference block of docs/components.md."""

from __future__ import annotations

from tools.docs.components import all_components, argument_rows, component_reference
from tools.docs.markdown import REQUIRED


def test_a_component_argument_row() -> None:
    from amlkit.components import compute_cluster

    rows = {row[0]: row for row in argument_rows(compute_cluster.ComputeClusterArgs, compute_cluster.ARGS)}
    assert rows["`tier`"] == [
        "`tier`", "`'dedicated' | 'low_priority'`", "`dedicated`",
        "VM priority: `low_priority` nodes are cheaper but can be evicted at any time.",
        "properties.properties.vmPriority (`Dedicated` | `LowPriority`)",
    ]
    assert rows["`size`"][2] == REQUIRED
    assert rows["`name`"][3] == ("Azure name of the compute. Allowed: 2-16 letters, digits and hyphens, starting "
                                 "with a letter.")
    assert rows["`workspace_managed_network`"][4] == "(component behaviour)"


def test_every_component_argument_and_nested_key_has_a_row() -> None:
    from amlkit.components.args import fields, nested_types

    reference = component_reference()
    for component, args_type, _ in all_components():
        section = reference.split(f"### `{component.__name__}`\n")[1].split("\n### ")[0]
        for name in fields(args_type):
            assert f"\n| `{name}` | " in section, (component.__name__, name)
        for spec_type in nested_types(args_type):
            assert f"\n`{spec_type.__name__}`: " in section
            for name in fields(spec_type):
                assert f"\n| `{name}` | " in section, (spec_type.__name__, name)


def test_the_component_outputs_are_listed() -> None:
    outputs = ("Outputs: `compute_id` (`Output[str]`), `compute_name` (`Output[str]`), "
               "`principal_id` (`Output[str | None]`).")
    reference = component_reference()
    assert reference.count(outputs) == 4  # clusters, instances, Kubernetes, Synapse Spark
    assert reference.count("Outputs: `compute_id` (`Output[str]`), `compute_name` (`Output[str]`).") == 1  # VM


def test_an_attached_component_row_gives_its_arm_input() -> None:
    from amlkit.components import kubernetes_compute

    rows = {row[0]: row for row in argument_rows(kubernetes_compute.KubernetesComputeArgs,
                                                      kubernetes_compute.ARGS)}
    assert rows["`namespace`"] == ["`namespace`", "`str`", "`default`", "Kubernetes namespace the jobs run in.",
                                   "properties.properties.namespace"]
    assert rows["`resource_id`"][2:] == [REQUIRED, rows["`resource_id`"][3], "properties.resourceId"]
    assert [component.__name__ for component, _, _ in all_components()] == [
        "Workspace", "ComputeCluster", "ComputeInstance", "KubernetesCompute", "VirtualMachineCompute",
        "SynapseSparkCompute"]
