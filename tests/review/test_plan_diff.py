"""The plan against a deployed state: states built from the program's own registrations, then edited.

End to end on the component-based platform program (examples/platform-repo, stack prod) and on raw
azure-native fixtures, through amlkit.review.engine; plus table-driven unit cases of the diff rules.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import shutil
from pathlib import Path
from typing import Any

import pytest

from amlkit.review import engine
from amlkit.review.model import Review
from amlkit.review.options import ReviewOptions
from amlkit.review.plan import diff
from amlkit.review.plan.state import StateResource
from amlkit.review.project import load_project, load_stack_config
from amlkit.review.secrets import SECRET_SIG, SECRET_SIG_KEY, UNKNOWN, Secrets
from tests.review.helpers import RAW, SECRET, normalized, run_runner
from tests.review.statefiles import find, state_resources, write_state

PLATFORM = Path(__file__).resolve().parents[2] / "examples" / "platform-repo"
COMPUTE = "azure-native:machinelearningservices:Compute"
AZURE_SOURCE = diff.UPDATABLE_CLUSTER_SOURCE


@functools.cache
def registrations(program: Path, stack: str) -> tuple[str, list[dict[str, Any]]]:
    """(project name, the program's registrations under the mocks) for a stack."""
    project = load_project(program)
    config = load_stack_config(project, stack)
    request = {"program": str(project.main), "project": project.name, "stack": stack, "config": config.values,
               "secret_keys": list(config.secret_keys), "deployed": True}
    return project.name, normalized(run_runner(request)["resources"])


def deployed(program: Path, stack: str) -> list[dict[str, Any]]:
    """A state as `pulumi up` of the program as it is would leave it (a fresh copy to edit)."""
    project, records = registrations(program, stack)
    return copy.deepcopy(state_resources(records, project, stack))


def plan_of(program: Path, stack: str, resources: list[dict[str, Any]], tmp_path: Path):
    state = write_state(tmp_path / f"{stack}.json", resources)
    (result,) = engine.review(program, [stack], options=ReviewOptions(states=[state])).stacks
    assert result.error is None
    return result, result.plan


def by_name(plan: diff.Plan) -> dict[str, diff.Step]:
    return {step.name: step for step in plan.steps}


def changed(plan: diff.Plan) -> dict[str, str]:
    return {step.name: step.op for step in plan.steps if step.op != "same"}


# --- the platform program (components) ---------------------------------------------------------------

@pytest.mark.slow
def test_unchanged_program_plans_nothing(tmp_path: Path) -> None:
    """A state of the program as it is: every resource `same`, including the role assignment whose
    principalId comes from the identity's deployed output (the runner answers from the state)."""
    result, plan = plan_of(PLATFORM, "prod", deployed(PLATFORM, "prod"), tmp_path)
    assert changed(plan) == {}
    # 26: prod's private endpoint and its subnet, its online endpoint and deployment included
    assert plan.summary() == {"create": 0, "update": 0, "replace": 0, "delete": 0, "same": 26}
    assert plan.errors == []
    assert result.plan.stack_op == "same"


@pytest.mark.slow
def test_a_state_holding_check_api_versions_plans_nothing(tmp_path: Path) -> None:
    """A state the CLI wrote with azure-native 3.x holds, in every resource's inputs, the `azureApiVersion` its
    Check set (provider.go `applyDefaults`); the offline Check sets the same, so an unchanged program is `same`."""
    resources = deployed(PLATFORM, "prod")
    assert find(resources, "mlw-workspace")["inputs"]["azureApiVersion"] == "2025-12-01"
    assert find(resources, "cpu-cluster-compute")["inputs"]["azureApiVersion"] == "2025-12-01"
    assert find(resources, "ml-rg")["inputs"]["azureApiVersion"] == "2024-03-01"
    result, plan = plan_of(PLATFORM, "prod", resources, tmp_path)
    assert changed(plan) == {} and plan.errors == []


def test_platform_edits_give_exact_ops_reasons_and_diffs(tmp_path: Path) -> None:
    resources = deployed(PLATFORM, "prod")
    cpu = find(resources, "cpu-cluster-compute")
    cpu["inputs"]["properties"]["properties"]["vmSize"] = "Standard_D2ds_v4"  # size change
    find(resources, "ml-rg")["inputs"]["tags"]["owner"] = "data-team"  # tag change
    workspace = find(resources, "mlw-workspace")  # protected: a name change is a refused replace
    workspace["inputs"]["workspaceName"] = "mlw-acme-production"
    resources.remove(find(resources, "network-rg-lock"))  # the program declares it, the state lacks it
    extra = copy.deepcopy(find(resources, "gpu-cluster-compute"))  # the state has it, the program not
    extra["urn"] = extra["urn"].replace("::gpu-cluster-compute", "::old-cluster-compute")
    extra["retainOnDelete"] = True
    protected_extra = copy.deepcopy(find(resources, "mlw-keyvault"))
    protected_extra["urn"] = protected_extra["urn"].replace("::mlw-keyvault", "::mlw-old-keyvault")
    resources += [extra, protected_extra]

    result, plan = plan_of(PLATFORM, "prod", resources, tmp_path)

    # the workspace is replaced: its replacement's name and id are unknown in a preview (the provider's preview
    # of a create), so what derives from them may change, as `pulumi preview` shows: computes (workspaceName is
    # a path parameter), the lock and the diagnostic setting on it (scope, resourceUri), the online endpoint and
    # deployment (workspaceName is their path parameter too: .../workspaces/{workspaceName}/onlineEndpoints/...)
    # are replaced, the private endpoint updated
    assert changed(plan) == {"cpu-cluster-compute": "replace", "ml-rg": "update", "mlw-workspace": "replace",
                             "network-rg-lock": "create", "old-cluster-compute": "delete",
                             "mlw-old-keyvault": "delete", "gpu-cluster-compute": "replace",
                             "mlw-workspace-lock": "replace", "mlw-diagnostics": "replace", "mlw-pe-spoke": "update",
                             "scoring-blue": "replace", "scoring-endpoint": "replace"}
    assert plan.summary() == {"create": 1, "update": 2, "replace": 7, "delete": 2, "same": 16}
    steps = by_name(plan)
    assert steps["cpu-cluster-compute"].changes == (diff.Change(
        "properties.properties.vmSize", "update", "Standard_D2ds_v4", "Standard_D4ds_v5",
        f"Azure cannot change properties.properties.vmSize of an existing AmlCompute (only scale settings can "
        f"change: {AZURE_SOURCE})"), diff.Change(
        "workspaceName", "update", "mlw-acme-prod", "[unknown]",
        "workspaceName is a path parameter of the resource's ARM id: azure-native replaces the resource"))
    assert steps["cpu-cluster-compute"].delete_before_replace is True  # the component asks for it
    assert steps["cpu-cluster-compute"].error is None
    assert steps["ml-rg"].changes == (diff.Change("tags.owner", "update", "data-team", "ml-platform", None),)
    assert steps["ml-rg"].diff_reasons == ["tags"] and steps["ml-rg"].replace_reasons == []
    ws = steps["mlw-workspace"]
    assert ws.changes == (diff.Change(
        "workspaceName", "update", "mlw-acme-production", "mlw-acme-prod",
        "workspaceName is a path parameter of the resource's ARM id: azure-native replaces the resource"),)
    assert ws.error == (
        f'unable to replace resource "{ws.urn}"\nas it is currently marked for protection. To unprotect the '
        "resource, remove the `protect` flag from the resource in your Pulumi program and run `pulumi up`")
    old = steps["old-cluster-compute"]
    assert (old.retain_on_delete, old.protect, old.error) == (True, False, None)
    vault = steps["mlw-old-keyvault"]
    assert vault.error == (
        f'unable to delete resource "{vault.urn}"\nas it is currently marked for protection. To unprotect the '
        "resource, either remove the `protect` flag from the resource in your Pulumi program and run `pulumi up` "
        f"or use the command:\n`pulumi state unprotect '{vault.urn}'`")
    assert [s.name for s in plan.errors] == ["mlw-old-keyvault", "mlw-workspace"]
    assert steps["network-rg-lock"].changes == ()


def test_refused_plan_exits_1_even_without_mandatory_findings(tmp_path: Path) -> None:
    resources = deployed(PLATFORM, "prod")
    find(resources, "mlw-workspace")["inputs"]["workspaceName"] = "mlw-acme-production"
    result, plan = plan_of(PLATFORM, "prod", resources, tmp_path)
    result = dataclasses.replace(result, violations=tuple(v for v in result.violations if v.level != "mandatory"))
    assert [s.name for s in plan.errors] == ["mlw-workspace"]
    assert Review((result,)).exit_code() == 1


def test_deleted_parent_deletes_its_children(tmp_path: Path) -> None:
    """A component the program no longer declares: it and every child are deletes."""
    resources = deployed(PLATFORM, "prod")
    for r in [r for r in resources if "gpu-cluster" in r["urn"]]:
        r["urn"] = r["urn"].replace("gpu-cluster", "old-gpu")
        if r.get("parent"):
            r["parent"] = r["parent"].replace("gpu-cluster", "old-gpu")
    _, plan = plan_of(PLATFORM, "prod", resources, tmp_path)
    deletes = sorted((s.name, s.parent.rsplit("::", 1)[-1] if s.parent else None)
                     for s in plan.steps if s.op == "delete")
    assert deletes == [("old-gpu", "acme-ml-platform-prod"), ("old-gpu-compute", "old-gpu")]
    assert {s.name for s in plan.steps if s.op == "create"} == {"gpu-cluster", "gpu-cluster-compute"}


# --- secrets ---------------------------------------------------------------------------------------------

def test_changed_secrets_are_shown_as_secret(tmp_path: Path) -> None:
    """A changed secret tag updates; a changed admin password replaces (Azure cannot change an AmlCompute's
    user account credentials); both show `[secret]` on both sides and no plaintext anywhere."""
    resources = deployed(SECRET, "dev")
    cluster = find(resources, "cpu-with-password")
    cluster["inputs"]["tags"]["token"] = {SECRET_SIG_KEY: SECRET_SIG, "plaintext": '"an-older-token"'}
    _, plan = plan_of(SECRET, "dev", resources, tmp_path)
    (step,) = plan.steps
    assert step.op == "update"
    assert step.changes == (diff.Change("tags.token", "update", "[secret]", "[secret]", None),)

    credentials = cluster["inputs"]["properties"]["properties"]["userAccountCredentials"]
    credentials["adminUserPassword"] = {SECRET_SIG_KEY: SECRET_SIG, "plaintext": '"an-older-password"'}
    result, plan = plan_of(SECRET, "dev", resources, tmp_path)
    (step,) = plan.steps
    assert step.op == "replace"
    assert step.changes == (
        diff.Change("properties.properties.userAccountCredentials.adminUserPassword", "update", "[secret]",
                    "[secret]", "Azure cannot change properties.properties.userAccountCredentials of an existing "
                    f"AmlCompute (only scale settings can change: {AZURE_SOURCE})"),
        diff.Change("tags.token", "update", "[secret]", "[secret]", None),
    )
    text = repr(plan) + repr(result.resources)
    for plaintext in ("an-older-password", "an-older-token", "literal-token-s3cr3t-value"):
        assert plaintext not in text


def test_encrypted_secrets_are_not_compared_and_never_fail(tmp_path: Path) -> None:
    project, records = registrations(SECRET, "dev")
    resources = state_resources(records, project, "dev", encrypted=True)
    _, plan = plan_of(SECRET, "dev", resources, tmp_path)
    (step,) = plan.steps
    assert step.op == "same"
    assert step.not_compared == ("properties.properties.userAccountCredentials.adminUserPassword", "tags.token")


# --- the runner answers from the state -------------------------------------------------------------------

def test_dependents_see_deployed_outputs_unless_replaced(tmp_path: Path) -> None:
    """raw_aml's cpu-unknown-min takes minNodeCount from the workspace's discoveryUrl, an output the
    mocks never return: unknown without state, known when the deployed workspace answers."""
    project, records = registrations(RAW, "dev")
    assert find_record(records, "cpu-unknown-min")["inputs"]["properties"]["properties"]["scaleSettings"][
        "minNodeCount"] == UNKNOWN
    resources = copy.deepcopy(state_resources(records, project, "dev"))
    find(resources, "mlw")["outputs"]["discoveryUrl"] = "https://westeurope.api.azureml.ms/discovery"
    find(resources, "cpu-unknown-min")["inputs"]["properties"]["properties"]["scaleSettings"]["minNodeCount"] = 0
    _, plan = plan_of(RAW, "dev", resources, tmp_path)
    assert changed(plan) == {}

    find(resources, "mlw")["inputs"]["location"] = "northeurope"  # the workspace is replaced: no answer
    _, plan = plan_of(RAW, "dev", resources, tmp_path)
    steps = by_name(plan)
    assert steps["mlw"].op == "replace" and steps["mlw"].error is not None  # protected in both
    # the replacement's outputs are its provider's preview of a create: its `name` too is unknown, so the
    # compute's workspaceName (a path parameter) may change and the compute is replaced, as `pulumi preview` shows
    assert set(steps["cpu-unknown-min"].changes) == {
        diff.Change("properties.properties.scaleSettings.minNodeCount", "update", 0, "[unknown]", None),
        diff.Change("workspaceName", "update", "mlw-fixture", "[unknown]",
                    "workspaceName is a path parameter of the resource's ARM id: azure-native replaces the resource")}


def find_record(records: list[dict[str, Any]], name: str) -> dict[str, Any]:
    (found,) = [r for r in records if r["name"] == name]
    return found


# --- the rules, one change at a time ---------------------------------------------------------------------

def record(type_: str = COMPUTE, inputs: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
    return {"urn": f"urn:pulumi:dev::p::{type_}::r", "type": type_, "name": "r", "custom": True, "parent": None,
            "inputs": inputs or {}, "options": options}


CLUSTER = {"resourceGroupName": "rg", "workspaceName": "mlw", "computeName": "cpu", "location": "westeurope",
           "properties": {"computeType": "AmlCompute", "properties": {
               "vmSize": "Standard_DS3_v2", "vmPriority": "Dedicated",
               "scaleSettings": {"minNodeCount": 0.0, "maxNodeCount": 4.0}}}}


def edited(path: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(CLUSTER)
    *parents, last = path.split(".")
    target = data
    for key in parents:
        target = target[key]
    target[last] = value
    return data


REPLACE_RULES = [
    pytest.param("resourceGroupName", "rg-2",
                 "resourceGroupName is a path parameter of the resource's ARM id: azure-native replaces the resource",
                 id="resource-group"),
    pytest.param("workspaceName", "mlw-2",
                 "workspaceName is a path parameter of the resource's ARM id: azure-native replaces the resource",
                 id="parent-name"),
    pytest.param("computeName", "gpu",
                 "computeName is a path parameter of the resource's ARM id: azure-native replaces the resource",
                 id="own-name"),
    pytest.param("location", "northeurope",
                 "an Azure resource cannot move to another region: azure-native replaces the resource", id="location"),
    pytest.param("properties.properties.vmPriority", "LowPriority",
                 "Azure cannot change properties.properties.vmPriority of an existing AmlCompute (only scale "
                 f"settings can change: {AZURE_SOURCE})", id="priority"),
    pytest.param("properties.properties.scaleSettings.maxNodeCount", 8.0, None, id="scale-updates-in-place"),
]


@pytest.mark.parametrize(("path", "value", "reason"), REPLACE_RULES)
def test_replace_rules(path: str, value: Any, reason: str | None) -> None:
    old = StateResource("urn:pulumi:dev::p::x::r", COMPUTE, inputs=CLUSTER)
    step = diff.step(record(inputs=edited(path, value)), old, Secrets())
    assert step.op == ("replace" if reason else "update")
    (change,) = step.changes
    assert (change.path, change.replace) == (path, reason)


def test_replace_on_changes_option_and_ignore_changes() -> None:
    old = StateResource("u", "custom:index:Thing", inputs={"size": "S", "tags": {"a": "1"}})
    new = {"size": "M", "tags": {"a": "2"}}
    step = diff.step(record("custom:index:Thing", new, replaceOnChanges=["size"], ignoreChanges=["tags"]), old,
                     Secrets())
    assert step.op == "replace"
    assert step.changes == (diff.Change("size", "update", "S", "M", "the resource's replaceOnChanges option lists "
                                        "'size'"),)
    assert diff.step(record("custom:index:Thing", new, replaceOnChanges=["*"]), old, Secrets()).replace_reasons == [
        "size", "tags"]


COMPARE_CASES = [
    pytest.param({"a": 1}, {"a": 1.0}, [], id="int-equals-float"),
    pytest.param({"a": True}, {"a": 1.0}, [("a", "update")], id="bool-is-not-number"),
    pytest.param({}, {"a": "x"}, [("a", "add")], id="add"),
    pytest.param({"a": "x"}, {}, [("a", "delete")], id="delete"),
    pytest.param({"l": [1, 2]}, {"l": [1, 3]}, [("l[1]", "update")], id="list-item"),
    pytest.param({"l": [1]}, {"l": [1, 2]}, [("l", "update")], id="list-length"),
    pytest.param({"t": {"a b": "1"}}, {"t": {"a b": "2"}}, [('t["a b"]', "update")], id="quoted-key"),
    pytest.param({"__defaults": ["x"]}, {}, [], id="engine-bookkeeping"),
    pytest.param({"a": "x"}, {"a": UNKNOWN}, [("a", "update")], id="unknown-is-a-change"),
    pytest.param({"a": UNKNOWN}, {"a": UNKNOWN}, [], id="unknown-to-unknown-is-no-change"),
    pytest.param({"a": UNKNOWN}, {"a": "x"}, [("a", "update")], id="unknown-to-known-is-a-change"),
]


@pytest.mark.parametrize(("old", "new", "expected"), COMPARE_CASES)
def test_compare(old: dict[str, Any], new: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    changes, not_compared = diff.compare(old, new)
    assert [(path, kind) for path, kind, _, _ in changes] == expected
    assert not_compared == []


def test_a_resource_deployed_under_an_alias_is_the_same_resource(tmp_path: Path) -> None:
    """The state has the resource group under an older, versioned type token that azure-native lists
    as an alias: the engine matches it, so it is not a delete plus a create."""
    resources = deployed(RAW, "dev")
    group = find(resources, "rg")
    group["urn"] = group["urn"].replace("azure-native:resources:ResourceGroup",
                                        "azure-native:resources/v20151101:ResourceGroup")
    group["type"] = "azure-native:resources/v20151101:ResourceGroup"
    _, plan = plan_of(RAW, "dev", resources, tmp_path)
    steps = by_name(plan)
    assert steps["rg"].op == "same" and steps["rg"].aliased_from == group["urn"]
    assert [s.op for s in plan.steps].count("delete") == 0
    assert changed(plan) == {"cpu-unknown-min": "update"}  # its min nodes derive from an output no state has


KUBERNETES = {"resourceGroupName": "rg", "workspaceName": "mlw", "computeName": "k8s", "tags": {"a": "1"},
              "properties": {"computeType": "Kubernetes", "resourceId": "/subscriptions/0/resourceGroups/rg/providers/"
                             "Microsoft.ContainerService/managedClusters/aks", "properties": {"namespace": "a"}}}
REATTACH = ("Azure cannot change properties of an existing Kubernetes (the old attachment is removed first: "
            "https://learn.microsoft.com/azure/machine-learning/how-to-attach-compute-targets#limitations)")


@pytest.mark.parametrize(("path", "value", "reason"), [
    pytest.param("properties.properties.namespace", "b", REATTACH, id="namespace-reattaches"),
    pytest.param("properties.resourceId", "/subscriptions/0/resourceGroups/rg/providers/Microsoft.ContainerService/"
                 "managedClusters/aks-2", REATTACH, id="other-cluster-reattaches"),
    pytest.param("tags.a", "2", None, id="tags-update-in-place"),
])
def test_a_raw_attached_compute_changes_only_by_reattaching(path: str, value: Any, reason: str | None) -> None:
    new = copy.deepcopy(KUBERNETES)
    *parents, last = path.split(".")
    target = new
    for key in parents:
        target = target[key]
    target[last] = value
    step = diff.step(record(inputs=new), StateResource("urn:pulumi:dev::p::x::r", COMPUTE, inputs=KUBERNETES),
                     Secrets())
    assert step.op == ("replace" if reason else "update")
    (change,) = step.changes
    assert (change.path, change.replace) == (path, reason)


# --- role assignments keyed by name (the AVM interface): order never matters ------------------------

ROLE_ORDER = Path(__file__).resolve().parents[1] / "fixtures" / "role_order"


def role_order_state(form: str, order: str) -> list[dict[str, Any]]:
    """The state `pulumi up` of the role_order fixture leaves with this form and order of the assignments."""
    request = {"program": str(ROLE_ORDER), "project": "role-order", "stack": "dev",
               "config": {"role-order:order": order, "role-order:form": form}, "secret_keys": [], "deployed": True}
    return state_resources(normalized(run_runner(request)["resources"]), "role-order", "dev")


@pytest.mark.parametrize(("form", "expected"), [
    # the map's keys name the children: the reorder plans nothing
    pytest.param("map", {}, id="map"),
    # the deprecated list names children by position: both assignments change places (replaced)
    pytest.param("list", {"cpu-role-0": "replace", "cpu-role-1": "replace"}, id="list"),
])
def test_reordering_role_assignments(tmp_path: Path, form: str, expected: dict[str, str]) -> None:
    """Deployed with `acr,blob`; the program now gives `blob,acr` (Pulumi.dev.yaml)."""
    stack_file = tmp_path / "project"
    shutil.copytree(ROLE_ORDER, stack_file)
    (stack_file / "Pulumi.dev.yaml").write_text(f"config:\n  role-order:order: blob,acr\n  role-order:form: {form}\n")
    _, plan = plan_of(stack_file, "dev", role_order_state(form, "acr,blob"), tmp_path)
    assert changed(plan) == expected
    roles = [step for step in plan.steps if step.type == "azure-native:authorization:RoleAssignment"]
    assert len(roles) == 2
