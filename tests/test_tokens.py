import pytest

from amlkit.tokens import type_parts

CASES = [
    ("default", "azure-native:machinelearningservices:Compute", ("machinelearningservices", None, "Compute")),
    ("2x-version", "azure-native:machinelearningservices/v20240401preview:Compute",
     ("machinelearningservices", "v20240401preview", "Compute")),
    ("3x-parameterized", "azure-native_storage_v20240101:storage:StorageAccount",
     ("storage", "v20240101", "StorageAccount")),
    ("3x-module-mismatch", "azure-native_storage_v20240101:keyvault:Vault", None),
    ("other-provider", "azure:machinelearning/workspace:Workspace", None),
    ("component", "amlkit:index:ComputeCluster", None),
]


@pytest.mark.parametrize(("token", "parts"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_type_parts(token, parts):
    assert type_parts(token) == parts
