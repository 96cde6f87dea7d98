import pytest

from amlkit.policies.rules.aml_no_preview_api_versions import RULE
from tests.policies.examples import Example, resource
from tests.policies.helpers import Public, messages
from tests.policies.workspace_fixtures import workspace_props

PUBLIC = Public("AMLK-0027", "aml-no-preview-api-versions", level="advisory", kind="resource")

PROPS = workspace_props()


def expected(module: str, name: str, type_: str) -> list[str]:
    return [f"Resource 'r' must use a stable API version (azure-native:{module}:{name}); found {type_}."]


CASES = [
    ("default-version", "azure-native:machinelearningservices:Workspace", []),
    ("dated-stable-version", "azure-native:machinelearningservices/v20240401:Workspace", []),
    ("workspace-preview", "azure-native:machinelearningservices/v20240401preview:Workspace",
     expected("machinelearningservices", "Workspace",
              "azure-native:machinelearningservices/v20240401preview:Workspace")),
    ("ml-preview", "azure-native:machinelearningservices/v20240401preview:Compute",
     expected("machinelearningservices", "Compute", "azure-native:machinelearningservices/v20240401preview:Compute")),
    ("other-module-preview", "azure-native:network/v20210501preview:AdminRule",
     expected("network", "AdminRule", "azure-native:network/v20210501preview:AdminRule")),
    ("private-preview", "azure-native:storage/v20200801privatepreview:StorageAccount",
     expected("storage", "StorageAccount", "azure-native:storage/v20200801privatepreview:StorageAccount")),
    ("parameterized-preview", "azure-native_machinelearningservices_v20240401preview:machinelearningservices:Compute",
     expected("machinelearningservices", "Compute",
              "azure-native_machinelearningservices_v20240401preview:machinelearningservices:Compute")),
    ("parameterized-stable", "azure-native_storage_v20240101:storage:StorageAccount", []),
    ("non-azure-native", "azure:machinelearning/workspace:Workspace", []),
]


@pytest.mark.parametrize(("type_", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_no_preview_api_versions(type_, expected):
    assert messages(RULE, PROPS, name="r", type_=type_) == expected


TYPES = {row[0]: row[1] for row in CASES}
EXAMPLE = Example((resource(TYPES["workspace-preview"], PROPS),), (resource(TYPES["dated-stable-version"], PROPS),),
                  "workspace-preview", "dated-stable-version")
