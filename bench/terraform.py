"""The benchmark's Terraform side (azurerm) for Checkov, written from the same plan as the amlkit stack.

One `main.tf`: provider, resource group, storage account, key vault, Application Insights, the
workspace (public access off, managed network approved-outbound, system identity), one
`azurerm_machine_learning_compute_cluster` per planned cluster, and the planted lock on the resource group
(no locks on the workspace, storage or key vault: a managed-network workspace takes none, as on the amlkit side).
"""

from __future__ import annotations

from pathlib import Path

from stacks import LOCATION, RESOURCE_GROUP, WORKSPACE, ClusterSpec, Plan

HEADER = f"""\
terraform {{
  required_providers {{
    azurerm = {{
      source  = "hashicorp/azurerm"
      version = "~> 4.0"
    }}
  }}
}}

provider "azurerm" {{
  features {{}}
}}

data "azurerm_client_config" "current" {{}}

locals {{
  tags = {{
    owner       = "ml-platform"
    environment = "bench"
  }}
}}

resource "azurerm_resource_group" "bench" {{
  name     = "{RESOURCE_GROUP}"
  location = "{LOCATION}"
  tags     = local.tags
}}

resource "azurerm_storage_account" "bench" {{
  name                            = "stmlbench"
  location                        = azurerm_resource_group.bench.location
  resource_group_name             = azurerm_resource_group.bench.name
  account_tier                    = "Standard"
  account_replication_type        = "GRS"
  min_tls_version                 = "TLS1_2"
  public_network_access_enabled   = false
  allow_nested_items_to_be_public = false
  shared_access_key_enabled       = false
  tags                            = local.tags
}}

resource "azurerm_key_vault" "bench" {{
  name                          = "kv-ml-bench"
  location                      = azurerm_resource_group.bench.location
  resource_group_name           = azurerm_resource_group.bench.name
  tenant_id                     = data.azurerm_client_config.current.tenant_id
  sku_name                      = "standard"
  purge_protection_enabled      = true
  public_network_access_enabled = false
  network_acls {{
    default_action = "Deny"
    bypass         = "AzureServices"
  }}
  tags = local.tags
}}

resource "azurerm_application_insights" "bench" {{
  name                = "appi-ml-bench"
  location            = azurerm_resource_group.bench.location
  resource_group_name = azurerm_resource_group.bench.name
  application_type    = "web"
  tags                = local.tags
}}

resource "azurerm_machine_learning_workspace" "bench" {{
  name                          = "{WORKSPACE}"
  location                      = azurerm_resource_group.bench.location
  resource_group_name           = azurerm_resource_group.bench.name
  application_insights_id       = azurerm_application_insights.bench.id
  key_vault_id                  = azurerm_key_vault.bench.id
  storage_account_id            = azurerm_storage_account.bench.id
  public_network_access_enabled = false
  managed_network {{
    isolation_mode = "AllowOnlyApprovedOutbound"
  }}
  identity {{
    type = "SystemAssigned"
  }}
  tags = local.tags
}}
"""

RESOURCE_LOCKS = """
resource "azurerm_management_lock" "{name}" {{
  name       = "{name}-lock"
  scope      = {scope}.id
  lock_level = "CanNotDelete"
  notes      = "{notes}"
}}
"""

LOCKED = (
    ("resource_group", "azurerm_resource_group.bench", "planted defect: a lock on the whole resource group"),
)

CLUSTER = """
resource "azurerm_machine_learning_compute_cluster" "{address}" {{
  name                          = "{name}"
  location                      = azurerm_resource_group.bench.location
  machine_learning_workspace_id = azurerm_machine_learning_workspace.bench.id
  vm_size                       = "{size}"
  vm_priority                   = "Dedicated"
  local_auth_enabled            = {local_auth}
  node_public_ip_enabled        = false
  ssh_public_access_enabled     = false
  scale_settings {{
    min_node_count                       = {min_nodes}
    max_node_count                       = {max_nodes}
    scale_down_nodes_after_idle_duration = "PT{idle}S"
  }}
  identity {{
    type = "SystemAssigned"
  }}
  tags = local.tags
}}
"""


def cluster_block(cluster: ClusterSpec) -> str:
    return CLUSTER.format(
        address=cluster.name.replace("-", "_"),
        name=cluster.name,
        size=cluster.size,
        local_auth="true" if cluster.local_auth_enabled else "false",
        min_nodes=cluster.min_instances,
        max_nodes=cluster.max_instances,
        idle=cluster.idle_seconds,
    )


def main_tf(bench: Plan) -> str:
    locks = "".join(RESOURCE_LOCKS.format(name=n, scope=s, notes=notes) for n, s, notes in LOCKED)
    return HEADER + locks + "".join(cluster_block(c) for c in bench.clusters)


def write_terraform(tf_dir: Path, bench: Plan) -> Path:
    tf_dir.mkdir(parents=True, exist_ok=True)
    path = tf_dir / "main.tf"
    path.write_text(main_tf(bench))
    return path
