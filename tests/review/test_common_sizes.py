"""Issue 21's acceptance: a stack of the VM sizes a team picks in 2026, scaffolded by `amlkit init` and reviewed
offline under the pack's defaults, gets no aml-compute-approved-vm-family finding (and no other VM lifecycle
finding): the default allowedSeries agrees with what Azure tells users to use."""

from __future__ import annotations

import pytest
import yaml

from amlkit.review.engine import review
from amlkit.scaffold import StackAnswers, render_stack_file

pytestmark = pytest.mark.slow

COMMON = ["Standard_D4s_v5", "Standard_D8ds_v5", "Standard_E8s_v5", "Standard_E4ds_v5", "Standard_F8as_v6",
          "Standard_NC24ads_A100_v4", "Standard_NC40ads_H100_v5", "Standard_NV36ads_A10_v5",
          "Standard_ND96isr_H100_v5"]
LIFECYCLE = {"aml-compute-approved-vm-family", "aml-compute-retired-vm-series", "aml-compute-vm-series-retiring"}


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    project = tmp_path_factory.mktemp("common")
    (project / "Pulumi.yaml").write_text("name: common-sizes\nruntime: python\n")
    (project / "__main__.py").write_text("from amlkit.program import run\n\nrun()\n")
    answers = StackAnswers("common", "westeurope", "dev", "rg-ml-dev", "mlw-dev", COMMON[0])
    text = yaml.safe_load(render_stack_file(answers))
    [template] = text["config"]["amlkit:clusters"]
    text["config"]["amlkit:clusters"] = [
        {**template, "name": f"c{index}", "size": size} for index, size in enumerate(COMMON)]
    (project / "Pulumi.common.yaml").write_text(yaml.safe_dump(text, sort_keys=False))
    [only] = review(project, ["common"]).stacks
    return only


def test_todays_common_sizes_pass_the_default_allowed_series(stack):
    assert stack.error is None
    sizes = {r.inputs["properties"]["properties"]["vmSize"] for r in stack.resources
             if r.type == "azure-native:machinelearningservices:Compute"}
    assert sizes == set(COMMON)
    assert [(v.policy, v.resource, v.message) for v in stack.violations if v.policy in LIFECYCLE] == []
    assert [u for u in stack.unknown if u.policy in LIFECYCLE] == []
