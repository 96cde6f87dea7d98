"""Issue 29, item 3: a program that reads a storage account's keys (azure-native's starter-template pattern,
in the `_output` and plain forms, inside and outside an `apply`) is reviewed on its ML resources, never
crashes, and lists each keys lookup as unanswered with the arguments the program passed (`<unknown>` where
an argument is unknown); pinning one stays refused."""

from __future__ import annotations

import shutil

import pytest

from amlkit import __version__
from amlkit.errors import ConfigError
from amlkit.review.engine import review
from amlkit.review.model import Lookup
from amlkit.review.run.lookups import FILE_NAME
from tests.review.helpers import FIXTURES, line_in

PROGRAM = FIXTURES / "storage_keys"
KEYS = "azure-native:storage:listStorageAccountKeys"


def line_of(text: str) -> int:
    return line_in(PROGRAM / "__main__.py", text)


LOOKUPS = [  # the account and its group are being created: their names are unknown, as in `pulumi preview`
    Lookup(KEYS, {"accountName": "<unknown>", "resourceGroupName": "<unknown>"}, "__main__.py",
           line_of("output_form = storage.list_storage_account_keys_output(")),
    Lookup(KEYS, {"accountName": "<unknown>", "resourceGroupName": "rg-shared"}, "__main__.py",
           line_of("unsent = storage.list_storage_account_keys_output(")),
    Lookup(KEYS, {"accountName": "r7k3legacy", "resourceGroupName": "rg-ml"}, "__main__.py",
           line_of("plain_form = storage.list_storage_account_keys(")),
    # the plain lookup inside `apply` over the unknown names is never run
    Lookup("pulumi:pulumi:StackReference", {"name": "acme/shared/prod"}, "__main__.py",
           line_of('shared = pulumi.StackReference("acme/shared/prod")')),
]
VIOLATIONS = {
    ("aml-cluster-ssh-disabled", "mandatory", "cpu"), ("aml-compute-approved-vm-family", "mandatory", "cpu"),
    ("aml-compute-identity", "mandatory", "cpu"), ("aml-compute-local-auth-disabled", "advisory", "cpu"),
    ("aml-workspace-cmk", "advisory", "ws"), ("aml-workspace-diagnostics", "advisory", "ws"),
    ("aml-workspace-user-assigned-identity", "advisory", "ws"),
}
LOCATIONS = ("compute cluster 'cpu': location can't be known during preview; workspace 'ws': location can't be known "
             "during preview; storage account 'speech': location can't be known during preview")
KIND = "cannot tell: workspace 'ws': kind can't be known during preview."


def cannot_tell(policy: str, subject: str, expectation: str) -> tuple[str, str]:
    """A stack rule's own unknown finding (a workspace's unknown kind makes only that workspace's verdict unknown)."""
    return policy, (f"can't run policy '{policy}' from policy pack 'amlkit-guardrails@v{__version__}' during preview: "
                    f"{subject} must {expectation}; {KIND}")


UNKNOWN = [  # stack rules read outputs (AnalyzeStack): what the program does not set is unknown until created
    ("aml-cluster-same-region", LOCATIONS),
    cannot_tell("aml-compute-network-isolated", "AmlCompute cluster 'cpu'", "have a subnet or belong to a workspace "
                "whose managed network is isolated (isolationMode AllowInternetOutbound or AllowOnlyApprovedOutbound)"),
    ("aml-managed-network-limits", LOCATIONS), ("aml-quota-budget", LOCATIONS),
    cannot_tell("aml-workspace-hbi", "Workspace 'ws'", "have hbiWorkspace true"),
    cannot_tell("aml-workspace-image-build-compute", "Workspace 'ws'",
                "name a compute cluster or instance of the workspace in imageBuildCompute"),
    cannot_tell("aml-workspace-managed-network", "Workspace 'ws'",
                "have managedNetwork.isolationMode AllowOnlyApprovedOutbound"),
    ("aml-workspace-private-endpoint", "workspace 'ws': publicNetworkAccess can't be known during preview; storage "
     "account 'speech': publicNetworkAccess can't be known during preview"),
    cannot_tell("aml-workspace-public-network-disabled", "Workspace 'ws'", "have publicNetworkAccess Disabled"),
]


@pytest.fixture(scope="module")
def result():
    return review(PROGRAM)


def test_the_ml_resources_are_reviewed_and_the_program_never_crashes(result):
    stack = result.stacks[0]
    assert stack.error is None
    assert result.exit_code() == 1  # mandatory findings on the compute, as for any program
    assert {(v.policy, v.level, v.resource) for v in stack.violations} == VIOLATIONS
    assert sorted((u.policy, u.message.split(". can't run")[0]) for u in stack.unknown) == UNKNOWN


def test_each_keys_lookup_is_listed_with_the_programs_own_arguments(result):
    assert result.stacks[0].lookups == tuple(LOOKUPS)


def test_a_value_derived_from_the_keys_is_unknown(result):
    workspace = next(r for r in result.stacks[0].resources if r.name == "ws")
    assert workspace.inputs["tags"] == {"legacyKey": "[unknown]"}


def test_pinning_the_keys_stays_refused(tmp_path):
    project = tmp_path / "keys"
    shutil.copytree(PROGRAM, project)
    (project / FILE_NAME).write_text(
        f"version: 1\ninvokes:\n  - function: {KEYS}\n    args: {{accountName: r7k3legacy, resourceGroupName: rg-ml}}\n"
        "    result: {keys: []}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="returns keys or credentials; a lookups file never holds credentials"):
        review(project)
