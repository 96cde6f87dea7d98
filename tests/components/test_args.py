"""`amlkit.components.args`: strict typed arguments, help() text, and one vocabulary with the stack file."""

from __future__ import annotations

import pydoc
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, NotRequired, Required, TypedDict

import pulumi
import pytest
from pydantic import BaseModel

from amlkit import azure_facts as facts
from amlkit import schema
from amlkit.components import (
    AssignedUserSpec,
    ClusterSshSettings,
    ComputeClusterArgs,
    ComputeInstanceArgs,
    CustomerManagedKey,
    IdentitySpec,
    InstanceSshSettings,
    ManagedNetwork,
    NetworkSettings,
    RecurrenceScheduleSpec,
    ScheduleSpec,
    ServerlessCompute,
    TriggerSpec,
    UserAssignedIdentity,
    Workspace,
    WorkspaceArgs,
    compute_cluster,
    compute_instance,
    kubernetes_compute,
    placement,
    synapse_spark_compute,
    virtual_machine_compute,
    workspace,
)
from amlkit.components.args import (
    ArgInfo,
    check,
    closest_key,
    describe,
    document,
    field_docs,
    fields,
    typed_bases,
)
from amlkit.components.attached import AttachedComputeArgs
from amlkit.components.kubernetes_compute import InstanceTypeArgs, InstanceTypeResourcesArgs, KubernetesComputeArgs
from amlkit.components.placement import WorkspacePlacementArgs, WorkspaceRefArgs
from amlkit.components.synapse_spark_compute import SynapseSparkComputeArgs
from amlkit.components.virtual_machine_compute import VirtualMachineComputeArgs, VmSshSettingsArgs
from amlkit.errors import ComponentArgError, ConfigError

ARGS_TYPES = [(WorkspaceArgs, workspace.ARGS), (ComputeClusterArgs, compute_cluster.ARGS),
              (ComputeInstanceArgs, compute_instance.ARGS), (KubernetesComputeArgs, kubernetes_compute.ARGS),
              (VirtualMachineComputeArgs, virtual_machine_compute.ARGS),
              (SynapseSparkComputeArgs, synapse_spark_compute.ARGS)]
NESTED = [UserAssignedIdentity, IdentitySpec, ManagedNetwork, ServerlessCompute, CustomerManagedKey, NetworkSettings,
          ClusterSshSettings, RecurrenceScheduleSpec, TriggerSpec, ScheduleSpec, AssignedUserSpec,
          InstanceSshSettings, InstanceTypeArgs, InstanceTypeResourcesArgs, VmSshSettingsArgs]


# --- help() ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("args_type", "infos"), ARGS_TYPES, ids=lambda t: getattr(t, "__name__", ""))
def test_help_lists_every_field_with_its_type_default_doc_and_arm_input(
    args_type: type, infos: Mapping[str, ArgInfo],
) -> None:
    text = pydoc.render_doc(args_type, renderer=pydoc.plaintext)
    docs = field_docs(args_type)
    assert set(docs) == set(fields(args_type)) == set(infos)
    for name, (_, required) in fields(args_type).items():
        default = "required" if required else f"default: {infos[name].default}"
        assert f"|      {name} (" in text and f"; {default})" in text, name
        for line in docs[name].splitlines():
            assert f"|          {line}" in text, name
        if infos[name].allowed:
            assert f"|          Allowed: {infos[name].allowed}" in text, name
        if infos[name].arm:
            assert f"|          ARM: {infos[name].arm}" in text, name
        assert not re.search(r"\d+ ?(-|to) ?\d+( chars)?\b", docs[name]), (
            f"{name}: a limit written in the doc; put what Azure allows in its ArgInfo(allowed=...) from azure_facts")


def test_help_of_the_cluster_args_shows_a_field_exactly() -> None:
    text = pydoc.render_doc(ComputeClusterArgs, renderer=pydoc.plaintext)
    assert (" |      min_instances (int; default: 0)\n"
            " |          Nodes kept running (and billed) when idle; 0 scales to zero.\n"
            " |          ARM: properties.properties.scaleSettings.minNodeCount\n") in text


def test_help_shows_what_azure_allows_from_azure_facts() -> None:
    text = pydoc.render_doc(ComputeInstanceArgs, renderer=pydoc.plaintext)
    assert (" |      name (str; default: derived (`ci-<name>-<hash>`))\n"
            " |          Azure name of the instance, unique in the region.\n"
            f" |          Allowed: {facts.INSTANCE_NAME.allowed}\n"
            " |          ARM: computeName\n") in text
    assert " |          Allowed: whole minutes from 15 to 4320\n" in text


@pytest.mark.parametrize("spec_type", NESTED, ids=lambda t: t.__name__)
def test_help_of_a_nested_type_lists_every_key_and_its_doc(spec_type: type) -> None:
    text = pydoc.render_doc(spec_type, renderer=pydoc.plaintext)
    for name, doc in field_docs(spec_type).items():
        assert f"|      {name} (" in text and f"|          {doc.splitlines()[0]}" in text
    assert set(field_docs(spec_type)) == set(fields(spec_type))


def test_an_undocumented_field_fails_at_import() -> None:
    class Args(TypedDict, total=False):
        """Inputs."""

        size: Required[str]
        """Documented."""
        count: int

    with pytest.raises(TypeError) as caught:
        document(Args, {"size": ArgInfo("required", "vmSize"), "extra": ArgInfo("1", "")})
    assert str(caught.value) == "Args: fields without doc or ArgInfo ['count'], ArgInfo without field ['extra']"


# --- inherited fields (components/placement.py) ---------------------------------------------------


class BaseArgs(TypedDict, total=False):
    """A base of test Args: its `total=False` applies to its own fields only."""

    region: str
    """Region of the thing."""
    group: Required[str]
    """Group of the thing."""


class ChildArgs(BaseArgs):
    """Inputs of a test component deriving from BaseArgs (total: its own fields are required)."""

    size: str
    """Size of the thing."""
    count: NotRequired[int]
    """Count of the things."""


def test_inherited_fields_are_fields_with_the_base_s_requiredness_required_first() -> None:
    assert fields(ChildArgs) == {"group": (str, True), "size": (str, True), "region": (str, False),
                                 "count": (int, False)}
    assert list(fields(ChildArgs)) == ["group", "size", "region", "count"]
    assert typed_bases(ChildArgs) == (BaseArgs,) and typed_bases(BaseArgs) == ()


def test_inherited_fields_are_documented_like_own_ones() -> None:
    assert field_docs(ChildArgs) == {"region": "Region of the thing.", "group": "Group of the thing.",
                                     "size": "Size of the thing.", "count": "Count of the things."}
    document(ChildArgs, {"group": ArgInfo("required", "group"), "size": ArgInfo("required", "size"),
                         "region": ArgInfo("the group's", "location"), "count": ArgInfo("1", "")})
    assert (ChildArgs.__doc__ or "").split("Fields:\n")[1] == (
        "    group (str; required)\n        Group of the thing.\n        ARM: group\n"
        "    size (str; required)\n        Size of the thing.\n        ARM: size\n"
        "    region (str; default: the group's)\n        Region of the thing.\n        ARM: location\n"
        "    count (int; default: 1)\n        Count of the things.")


CH = 'Child "c": '
# the same mistake on an inherited field (region, group) and on an own one (size): the same message
INHERITED_CHECKS = [
    ("inherited-type", {"region": 3}, CH + "region: must be a string, got 3", None),
    ("own-type", {"size": 3}, CH + "size: must be a string, got 3", None),
    ("inherited-typo", {"regoin": "x"},
     CH + "regoin: unknown argument; did you mean region? (help(ChildArgs) lists every argument)", "region"),
    ("own-typo", {"sise": "x"},
     CH + "sise: unknown argument; did you mean size? (help(ChildArgs) lists every argument)", "size"),
    ("inherited-missing", {"group": None}, CH + "group: is required", None),
    ("own-missing", {"size": None}, CH + "size: is required", None),
]


@pytest.mark.parametrize(("bad", "message", "closest"), [c[1:] for c in INHERITED_CHECKS],
                         ids=[c[0] for c in INHERITED_CHECKS])
def test_an_inherited_field_is_checked_like_an_own_one(bad: dict[str, Any], message: str, closest: str | None) -> None:
    with pytest.raises(ComponentArgError) as caught:
        check(ChildArgs, 'Child "c"', {"group": "g", "size": "s", **bad})
    assert (str(caught.value), caught.value.closest) == (message, closest)


COMPUTE_ARGS = [(ComputeClusterArgs, "ComputeCluster", compute_cluster.ARGS),
                (ComputeInstanceArgs, "ComputeInstance", compute_instance.ARGS),
                (KubernetesComputeArgs, "KubernetesCompute", kubernetes_compute.ARGS),
                (VirtualMachineComputeArgs, "VirtualMachineCompute", virtual_machine_compute.ARGS),
                (SynapseSparkComputeArgs, "SynapseSparkCompute", synapse_spark_compute.ARGS)]


@pytest.mark.parametrize(("args_type", "component", "infos"), COMPUTE_ARGS, ids=[c[1] for c in COMPUTE_ARGS])
def test_every_compute_takes_the_workspace_fields_from_one_base(
    args_type: type, component: str, infos: Mapping[str, ArgInfo],
) -> None:
    base = WorkspacePlacementArgs if "workspace_location" in fields(args_type) else WorkspaceRefArgs
    # clusters and instances derive from WorkspacePlacementArgs, attached computes through AttachedComputeArgs
    assert typed_bases(args_type) in ((WorkspacePlacementArgs,), (AttachedComputeArgs,))
    for name in fields(base):
        assert fields(args_type)[name] == fields(base)[name]
        assert field_docs(args_type)[name] == field_docs(base)[name]
        assert infos[name] == placement.PLACEMENT_ARGS[name]
    # `Workspace` resolves in the base's module, whether or not the component's module imports it
    assert fields(args_type)["workspace"][0] is Workspace
    with pytest.raises(ComponentArgError) as caught:
        check(args_type, f'{component} "c"', {"workspace_nme": "mlw"})
    assert str(caught.value) == (f'{component} "c": workspace_nme: unknown argument; did you mean workspace_name? '
                                 f"(help({args_type.__name__}) lists every argument)")


def test_the_attached_computes_share_their_common_fields() -> None:
    assert typed_bases(AttachedComputeArgs) == (WorkspaceRefArgs,)
    for args_type in (KubernetesComputeArgs, VirtualMachineComputeArgs, SynapseSparkComputeArgs):
        assert typed_bases(args_type) == (AttachedComputeArgs,)  # named `attached.AttachedComputeArgs`
        assert {name: field_docs(args_type)[name] for name in fields(AttachedComputeArgs)} == field_docs(
            AttachedComputeArgs)
    assert "Workspace" not in vars(kubernetes_compute) and "Workspace" not in vars(synapse_spark_compute)


# --- one vocabulary --------------------------------------------------------------------------------

# (stack file model, component Args type, keys only one side has and why)
VOCABULARY = [
    # a hub's `projects` become Workspace components of their own (components/environment.py project_args)
    (schema.WorkspaceSpec, WorkspaceArgs, {"projects"}),
    (schema.ProjectSpec, WorkspaceArgs, set()),
    (schema.ClusterSpec, ComputeClusterArgs, {"type"}),  # az ml's compute type: the component is the type
    (schema.InstanceSpec, ComputeInstanceArgs, {"type"}),
    (schema.IdentitySpec, IdentitySpec, set()),
    (schema.UserAssignedIdentity, UserAssignedIdentity, set()),
    (schema.ManagedNetworkSpec, ManagedNetwork, set()),
    (schema.ServerlessComputeSpec, ServerlessCompute, set()),
    (schema.CustomerManagedKeySpec, CustomerManagedKey, set()),
    (schema.NetworkSettingsSpec, NetworkSettings, set()),
    (schema.ClusterSshSettings, ClusterSshSettings, set()),
    (schema.InstanceSshSettings, InstanceSshSettings, set()),
    (schema.AssignedUserSpec, AssignedUserSpec, set()),
    (schema.ScheduleEntry, ScheduleSpec, set()),
    (schema.TriggerSpec, TriggerSpec, set()),
    (schema.RecurrenceScheduleSpec, RecurrenceScheduleSpec, set()),
    # one `amlkit:attached` entry per component, its `type` picking the component; the keys the stack
    # schema reads only for another type (its cross-field rules) are not arguments of this component
    (schema.AttachedSpec, KubernetesComputeArgs, {"type", "ssh_settings"}),
    (schema.AttachedSpec, VirtualMachineComputeArgs,
     {"type", "namespace", "default_instance_type", "instance_types", "identity"}),
    (schema.AttachedSpec, SynapseSparkComputeArgs,
     {"type", "namespace", "default_instance_type", "instance_types", "ssh_settings"}),
    (schema.InstanceTypeSpec, InstanceTypeArgs, set()),
    (schema.InstanceTypeResourcesSpec, InstanceTypeResourcesArgs, set()),
    (schema.AttachedSshSettings, VmSshSettingsArgs, set()),
]


@pytest.mark.parametrize(("model", "args_type", "stack_only"), VOCABULARY, ids=lambda t: getattr(t, "__name__", ""))
def test_every_stack_file_key_is_a_component_argument_of_the_same_name(
    model: type[BaseModel], args_type: type, stack_only: set[str],
) -> None:
    assert set(model.accepted_keys()) - set(fields(args_type)) == stack_only  # type: ignore[attr-defined]


@pytest.mark.parametrize(("model", "args_type", "key"), [
    (schema.ClusterSpec, ComputeClusterArgs, "tier"),
    (schema.WorkspaceSpec, WorkspaceArgs, "kind"),
    (schema.WorkspaceSpec, WorkspaceArgs, "public_network_access"),
    (schema.ManagedNetworkSpec, ManagedNetwork, "isolation_mode"),
    (schema.IdentitySpec, IdentitySpec, "type"),
    (schema.ScheduleEntry, ScheduleSpec, "action"),
    (schema.ScheduleEntry, ScheduleSpec, "state"),
    (schema.TriggerSpec, TriggerSpec, "frequency"),
])
def test_a_choice_takes_the_same_values_in_both(model: type[BaseModel], args_type: type, key: str) -> None:
    stack_values = schema_values(model, key)
    component_values = set(describe(fields(args_type)[key][0]).removeprefix("one of ").replace("'", "").split(", "))
    assert stack_values - {"none"} <= component_values and component_values - {"none"} <= stack_values | {"none"}


def schema_values(model: type[BaseModel], key: str) -> set[str]:
    from tools.docs.configuration import allowed_of

    allowed = allowed_of(model.model_fields[key])
    assert allowed is not None and allowed.values
    return set(allowed.values)


# --- checking --------------------------------------------------------------------------------------


class Inner(TypedDict):
    """A nested spec."""

    subnet: pulumi.Input[str]
    """Subnet id."""


class Args(TypedDict, total=False):
    """Inputs of a test component."""

    size: Required[str]
    """Size."""
    count: int
    """Count."""
    flag: bool
    """Flag."""
    mode: Literal["on", "off"]
    """Mode."""
    ids: Sequence[pulumi.Input[str]]
    """Ids."""
    tags: Mapping[str, str]
    """Tags."""
    inner: Inner
    """Inner."""
    items: Sequence[Inner]
    """Items."""
    secret: pulumi.Output[str]
    """Secret."""


C = 'Test "t": '
CHECKS = [
    ({"size": "S", "count": "2"}, C + "count: must be a whole number, got '2'"),
    ({"size": "S", "count": 2.0}, C + "count: must be a whole number, got 2.0"),
    ({"size": "S", "flag": 1}, C + "flag: must be True or False, got 1"),
    ({"size": "S", "mode": "ON"}, C + "mode: must be one of 'on', 'off', got 'ON'"),
    ({"size": "S", "ids": "id"}, C + "ids: must be a list, each a string (or a pulumi Output), got 'id'"),
    ({"size": "S", "tags": {"a": None}}, C + "tags: must be a mapping of a string to a string, got {'a': None}"),
    ({"size": "S", "inner": "x"}, C + "inner: must be a mapping with keys subnet, got 'x'"),
    ({"size": "S", "inner": {}}, C + "inner.subnet: is required"),
    ({"size": "S", "items": [{"subnet": "a"}, {"subnt": "b"}]},
     C + "items[1].subnt: unknown argument; did you mean subnet? (help(Inner) lists every argument)"),
    ({"size": "S", "secret": "plain-text"},
     C + "secret: must be a pulumi secret Output (pulumi.Output.secret or a secret config value), never a plain "
         "string, got a plain value"),
    ({}, C + "size: is required"),
    ({"size": "S", "sise": 1}, C + "sise: unknown argument; did you mean size? (help(Args) lists every argument)"),
    ("size=S", C + "args: must be a mapping (Args), got 'size=S'"),
]


@pytest.mark.parametrize(("args", "message"), CHECKS, ids=[m.split(": ")[1] + str(i) for i, (_, m) in
                                                            enumerate(CHECKS)])
def test_check_refuses_with_an_exact_message(args: Any, message: str) -> None:
    with pytest.raises(ComponentArgError) as caught:
        check(Args, 'Test "t"', args)
    assert str(caught.value) == message
    assert isinstance(caught.value, ConfigError) and caught.value.exit_code == 2


def test_check_accepts_outputs_awaitables_none_and_plain_values() -> None:
    async def later() -> str:
        return "x"

    awaitable = later()
    check(Args, 'Test "t"', {
        "size": "S", "count": 3, "flag": False, "mode": "on", "ids": [pulumi.Output.from_input("a"), awaitable, "b"],
        "tags": {}, "inner": {"subnet": pulumi.Output.from_input("s")}, "items": [], "secret": None,
    })
    awaitable.close()


def test_a_secret_value_is_never_kept_on_the_error() -> None:
    with pytest.raises(ComponentArgError) as caught:
        check(Args, 'Test "t"', {"size": "S", "secret": "hunter2"})
    assert "hunter2" not in repr(vars(caught.value)) + str(caught.value)


@pytest.mark.parametrize(("key", "closest"), [
    ("min_node", "min_instances"),  # through the former name min_nodes
    ("vm_priorty", "tier"),  # through the former name vm_priority
    ("max_instance", "max_instances"),
    ("sizes", "size"),
    ("zzzz", "size"),  # nothing close: still the nearest allowed key
])
def test_closest_key(key: str, closest: str) -> None:
    assert closest_key(key, list(fields(ComputeClusterArgs)), compute_cluster.RENAMED) == closest


@pytest.mark.parametrize("module", [workspace, compute_cluster, compute_instance], ids=lambda m: m.__name__)
def test_former_names_point_at_current_arguments(module: Any) -> None:
    args_type = {workspace: WorkspaceArgs, compute_cluster: ComputeClusterArgs,
                 compute_instance: ComputeInstanceArgs}[module]
    assert set(module.RENAMED.values()) <= set(fields(args_type))
    assert not set(module.RENAMED) & set(fields(args_type))
