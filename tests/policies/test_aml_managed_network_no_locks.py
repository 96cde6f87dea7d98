import pytest

from amlkit.policies.rules.aml_managed_network_no_locks import RULE
from tests.policies.examples import Example
from tests.policies.helpers import Public
from tests.policies.workspace_fixtures import (
    LOCK_RESOURCE_TYPE,
    LOCK_RG_TYPE,
    LOCK_SCOPE_TYPE,
    LOCK_SUB_TYPE,
    RESOURCE_GROUP_TYPE,
    WORKSPACE_TYPE,
    res,
    resource_lock_props,
    rg_id,
    rg_lock_props,
    scope_lock_props,
    stack_messages,
    subscription_lock_props,
    workspace_id,
    workspace_props,
)

PUBLIC = Public("AMLK-0039", "aml-managed-network-no-locks", level="mandatory", kind="stack")

SENTENCE = ("Make sure there are no scope locks on the Azure Machine Learning resources and resource group. Internal "
            "operations related to managed virtual network might be blocked.")
SOURCE = "how-to-managed-network.md, Limitations"
UNDER = "under the managed network of workspace 'mlw-prod'"
STORAGE_TYPE = "azure-native:storage:StorageAccount"
VAULT_TYPE = "azure-native:keyvault:Vault"
STORAGE_ID = f"{rg_id('rg-data')}/providers/Microsoft.Storage/storageAccounts/stmlprod"
VAULT_ID = f"{rg_id('rg-ml-prod')}/providers/Microsoft.KeyVault/vaults/kv-ml-prod"
WS = res(WORKSPACE_TYPE, "mlw-prod", workspace_props(storageAccount=STORAGE_ID, keyVault=VAULT_ID))
NO_NETWORK_WS = res(WORKSPACE_TYPE, "mlw-prod", workspace_props(managedNetwork={"isolationMode": "Disabled"},
                                                                 storageAccount=STORAGE_ID, keyVault=VAULT_ID))
ONE = "a lock on one resource"


def expect(lock: str, what: str, found: str = ONE, under: str = UNDER) -> tuple[str, str]:
    return lock, (f"Management lock '{lock}' must not lock {what} {under}; found {found} (\"{SENTENCE}\", "
                  f"{SOURCE}).")


# built from stack resources: the workspace names a storage account and key vault of the stack
STORAGE = res(STORAGE_TYPE, "st", {"resourceGroupName": "rg-data", "accountName": "stmlprod"})
VAULT = res(VAULT_TYPE, "kv", {"resourceGroupName": "rg-ml-prod", "vaultName": "kv-ml-prod"})
RG = res(RESOURCE_GROUP_TYPE, "rg", {"resourceGroupName": "rg-ml-prod"})
WS_BUILT = res(WORKSPACE_TYPE, "mlw-prod", workspace_props(storageAccount="unknown", keyVault="unknown"),
               storageAccount=STORAGE.urn, keyVault=VAULT.urn, resourceGroupName=RG.urn)
VAULT_IN_RG = res(VAULT_TYPE, "kv", {"resourceGroupName": "rg-ml-prod", "vaultName": "kv-ml-prod"},
                  resourceGroupName=RG.urn)

CASES = [
    ("no-lock", [WS], []),
    ("lock-on-the-workspace", [WS, res(LOCK_SCOPE_TYPE, "lock-ws", scope_lock_props(workspace_id()))],
     [expect("lock-ws", "workspace 'mlw-prod'")]),
    ("resource-lock-on-the-workspace",
     [WS, res(LOCK_RESOURCE_TYPE, "lock-ws", resource_lock_props(
         "mlw-prod", namespace="Microsoft.MachineLearningServices", type_="workspaces"))],
     [expect("lock-ws", "workspace 'mlw-prod'")]),
    ("lock-on-the-storage-account",
     [WS, res(LOCK_RESOURCE_TYPE, "lock-st", resource_lock_props("stmlprod", "rg-data"))],
     [expect("lock-st", "its storage account 'stmlprod'")]),
    ("lock-on-the-key-vault", [WS, res(LOCK_SCOPE_TYPE, "lock-kv", scope_lock_props(VAULT_ID))],
     [expect("lock-kv", "its key vault 'kv-ml-prod'")]),
    ("lock-on-the-storage-group", [WS, res(LOCK_RG_TYPE, "lock-data", rg_lock_props("rg-data"))],
     [expect("lock-data", "resource group 'rg-data' of its storage account 'stmlprod'",
             "a lock at resource group scope")]),
    ("subscription-lock", [WS, res(LOCK_SUB_TYPE, "lock-sub", subscription_lock_props())],
     [expect("lock-sub", "resource group 'rg-data' of its storage account 'stmlprod'",
             "a lock at subscription scope (inherited by every resource group)")]),
    # the workspace's own group is aml-no-resource-group-lock's finding (one finding per lock and cause)
    ("workspace-group-is-the-other-rules", [WS, res(LOCK_RG_TYPE, "lock-rg", rg_lock_props("rg-ml-prod"))], []),
    ("other-resource-is-fine", [WS, res(LOCK_RESOURCE_TYPE, "lock-other", resource_lock_props("stother", "rg-data"))],
     []),
    ("without-managed-network-locks-are-the-advice",
     [NO_NETWORK_WS, res(LOCK_SCOPE_TYPE, "lock-ws", scope_lock_props(workspace_id())),
      res(LOCK_RESOURCE_TYPE, "lock-st", resource_lock_props("stmlprod", "rg-data"))], []),
    ("lock-built-from-the-stack-storage",
     [STORAGE, VAULT, RG, WS_BUILT, res(LOCK_SCOPE_TYPE, "lock-st", scope_lock_props("unknown"), scope=STORAGE.urn)],
     [expect("lock-st", "its storage account 'st'")]),
    ("stack-key-vault-in-the-workspace-group", [STORAGE, VAULT_IN_RG, RG, WS_BUILT,
                                                res(LOCK_RG_TYPE, "lock-rg", rg_lock_props("rg-ml-prod"))], []),
]

EXAMPLE = Example.of_stacks(CASES, fails="lock-on-the-storage-account", passes="no-lock")


@pytest.mark.parametrize(("resources", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_managed_network_no_locks(resources, expected):
    assert stack_messages(RULE, resources) == expected


def test_a_project_under_a_managed_network_hub():
    hub = res(WORKSPACE_TYPE, "hub", workspace_props(workspaceName="hub", kind="Hub"))
    project = res(WORKSPACE_TYPE, "project", workspace_props(
        workspaceName="project", kind="Project", hubResourceId=workspace_id(name="hub"), managedNetwork=None,
        storageAccount=STORAGE_ID))
    lock = res(LOCK_RESOURCE_TYPE, "lock-st", resource_lock_props("stmlprod", "rg-data"))
    assert stack_messages(RULE, [hub, project, lock]) == [
        expect("lock-st", "its storage account 'stmlprod'",
               under="under the managed network of hub 'hub' (workspace 'project' is its project)")]


def test_a_lock_on_another_subscription_does_not_count():
    lock = res(LOCK_SCOPE_TYPE, "lock-sub", scope_lock_props("/subscriptions/00000000-0000-0000-0000-000000000009"))
    assert stack_messages(RULE, [WS, lock]) == []
