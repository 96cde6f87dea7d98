"""amlkit:workspace.projects (amlkit.schema.workspace): a hub and its projects in one stack file (#31)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from amlkit.errors import ConfigError
from amlkit.schema import HUB_OWNED, validate_environment

RAW: dict[str, Any] = {
    "location": "westeurope",
    "environment": "prod",
    "resourceGroup": {"name": "rg-ml-prod"},
    "workspace": {"name": "mlw-hub", "kind": "hub", "projects": [{"name": "mlw-fraud"}, {"name": "mlw-churn"}]},
}
OWNED = ("a project takes its {key} from its hub (set it on amlkit:workspace, the hub; concept-hub-workspace.md: "
         "projects obtain the hub's security settings and shared resources)")


def problem_of(workspace: dict[str, Any]) -> str:
    raw = copy.deepcopy(RAW)
    raw["workspace"] = workspace
    with pytest.raises(ConfigError) as caught:
        validate_environment(raw, None)
    return str(caught.value)


def test_a_hub_lists_its_projects() -> None:
    spec = validate_environment(copy.deepcopy(RAW), None)
    assert [(p.name, p.identity.type, p.tags) for p in spec.workspace.projects] == [
        ("mlw-fraud", "system_assigned", {}), ("mlw-churn", "system_assigned", {})]


@pytest.mark.parametrize("key", ["managed_network", "public_network_access", "hub_id", "kind", "hbi_workspace",
                                 "storage_account", "private_endpoints"])
def test_a_project_refuses_what_its_hub_owns_never_dropping_it(key: str) -> None:
    workspace = {"name": "mlw-hub", "kind": "hub", "projects": [{"name": "mlw-fraud", key: "anything"}]}
    assert key in HUB_OWNED
    assert problem_of(workspace) == (f"amlkit:workspace.projects[0].{key}: not allowed on a project: "
                                     + OWNED.format(key=key))


@pytest.mark.parametrize(("workspace", "message"), [
    ({"name": "mlw", "projects": [{"name": "mlw-fraud"}]},
     "amlkit:workspace.kind: got 'default'; allowed: hub (projects are only read for a hub)"),
    ({"name": "mlw-hub", "kind": "hub", "projects": [{"name": "mlw-a"}, {"name": "MLW-A"}]},
     "amlkit:workspace.projects[1].name: got 'MLW-A'; allowed: a workspace name not used elsewhere in this stack "
     "(projects[0] has it)"),
    ({"name": "mlw-hub", "kind": "hub", "projects": [{"name": "mlw-hub"}]},
     "amlkit:workspace.projects[0].name: got 'mlw-hub'; allowed: a workspace name not used elsewhere in this stack "
     "(the hub has it)"),
    ({"name": "mlw-hub", "kind": "hub", "projects": [{"name": "mlw-a", "identity": {"type": "none"}}]},
     "amlkit:workspace.projects[0].identity.type: got 'none'; allowed: system_assigned | user_assigned (a workspace "
     "needs an identity)"),
    ({"name": "mlw-hub", "kind": "hub", "projects": [{"name": "mlw-a", "descripton": "x"}]},
     "amlkit:workspace.projects[0].descripton: unknown key 'descripton' (did you mean 'description'?); allowed keys: "
     "name, display_name, description, identity, primary_user_assigned_identity, locks, tags"),
], ids=["not-a-hub", "duplicate", "hub-name", "no-identity", "typo"])
def test_projects_are_validated(workspace: dict[str, Any], message: str) -> None:
    assert problem_of(workspace) == message
