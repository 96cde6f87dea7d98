"""End to end on a platform program: computes attached through amlkit's components next to a raw workspace,
reviewed once by the real engine: the VM attached twice is refused, the Kubernetes cluster attached three times
(allowed) and the other attachments pass, the plan shows every target."""

from __future__ import annotations

import pytest

from amlkit.review.engine import review
from amlkit.review.model import Review
from amlkit.review.report import markdown as report_markdown
from amlkit.review.report.resources import render_plan
from tests.review.helpers import FIXTURES

PLATFORM = FIXTURES / "attached_platform"
SUB = "/subscriptions/00000000-0000-0000-0000-000000000000"
VM = f"{SUB}/resourceGroups/rg-vm/providers/Microsoft.Compute/virtualMachines/dsvm"
WORKSPACE_ADVISORIES = ["aml-workspace-cmk", "aml-workspace-diagnostics",
                        "aml-workspace-user-assigned-identity"]  # the raw workspace's own, under the pack defaults
WORKSPACE_UNKNOWN = ["aml-managed-network-limits", "aml-workspace-hbi", "aml-workspace-image-build-compute",
                     "aml-workspace-managed-network", "aml-workspace-private-endpoint",
                     "aml-workspace-public-network-disabled"]
"""Stack rules that read the raw workspace's `kind`, which it does not set: AnalyzeStack gets outputs, and a workspace
being created has every output it was not given unknown (azure-native PreviewOutputs), so a first preview cannot
tell whether it is a hub, a project or neither."""


@pytest.fixture(scope="module")
def stack():
    [only] = review(PLATFORM, ["dev"]).stacks
    return only


def test_only_the_vm_attached_twice_is_refused(stack):
    assert stack.error is None
    kind = "cannot tell: workspace 'mlw': kind can't be known during preview."
    unknown = {u.policy: u.message for u in stack.unknown}
    assert sorted(unknown) == WORKSPACE_UNKNOWN
    assert all(message.endswith(kind) for message in unknown.values())
    # only the verdicts that depend on the workspace's kind: the attached computes, each named, and the workspace
    computes = sorted(part.split(" must ")[0].split(": ")[-1] for part in unknown["aml-managed-network-limits"].split(
        " | "))
    assert computes == ["Kubernetes compute 'k8s-a-again-compute'", "Kubernetes compute 'k8s-a-compute'",
                        "Kubernetes compute 'k8s-b-compute'", "VirtualMachine compute 'dsvm-again-compute'",
                        "VirtualMachine compute 'dsvm-compute'"]
    assert sorted((v.policy, v.resource) for v in stack.violations) == sorted(
        [("aml-attached-compute-unique", "dsvm-again-compute"), ("aml-attached-compute-unique", "dsvm-compute")]
        + [(policy, "mlw") for policy in WORKSPACE_ADVISORIES])


def test_each_duplicate_names_the_other(stack):
    messages = {v.resource: v.message for v in stack.violations if v.policy == "aml-attached-compute-unique"}
    upper = VM.upper().replace("/SUBSCRIPTIONS/", "/subscriptions/")
    assert messages == {
        "dsvm-compute": "VirtualMachine compute 'dsvm-compute' must attach a resource no other compute of workspace "
        f"'mlw' attaches; found {VM} also attached by 'dsvm-again-compute'.",
        "dsvm-again-compute": "VirtualMachine compute 'dsvm-again-compute' must attach a resource no other compute of "
        f"workspace 'mlw' attaches; found {upper} also attached by 'dsvm-compute'.",
    }
    assert {v.level for v in stack.violations if v.policy == "aml-attached-compute-unique"} == {"mandatory"}


def test_the_plan_shows_each_attached_compute_with_its_target(stack):
    lines = {line.split()[3]: line for line in render_plan(stack).plain.splitlines() if "-compute " in line}
    assert lines["k8s-b-compute"].endswith("create  Kubernetes; attaches managedClusters/aks-shared in rg-aks; "
                                           "namespace team-b; identity SystemAssigned; local auth disabled true")
    assert lines["spark-compute"].endswith("create  SynapseSpark; attaches workspaces/syn/bigDataPools/pool1 in "
                                           "rg-syn; identity SystemAssigned; local auth disabled true")
    assert lines["dsvm-compute"].endswith("create  VirtualMachine; attaches virtualMachines/dsvm in rg-vm; local "
                                          "auth disabled true")
    assert "not-a-real-key" not in render_plan(stack).plain


def test_the_markdown_report_carries_the_plan_with_the_targets_and_no_secret(stack):
    text = report_markdown.render(Review(stacks=[stack]), {"dev": render_plan(stack).plain})
    assert "attaches managedClusters/aks-shared in rg-aks; namespace team-b" in text
    assert "attaches virtualMachines/dsvm in rg-vm" in text
    assert "aml-attached-compute-unique" in text
    assert "not-a-real-key" not in text
