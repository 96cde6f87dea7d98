"""The human report: pulumi's Policies layout, exact text, deterministic, secrets never shown."""

from __future__ import annotations

import dataclasses
import io
import re

import pytest
from rich.console import Console

from amlkit.policies.waivers import HOW_TO_WAIVE
from amlkit.review.model import Review
from amlkit.review.report.table import pack_label, render, render_policies, render_rules, summary_line
from tests.data.reviews import (
    PACK,
    REMEDIATE_PACK,
    SECRET_VALUE,
    config_error_stack,
    dev_stack,
    failed_stack,
    full_review,
    prod_stack,
    remediated_stack,
    two_pack_stack,
)

PROD_POLICIES = """\
Policies:
    ❌ amlkit-guardrails@v0.1.0 (local: policies)
    Policy config: policy-config/prod.json
        - [mandatory] [severity: high]  aml-cluster-min-nodes-zero  (azure-native:machinelearningservices:Compute: cpu-cluster)
          Cluster cpu-cluster must scale down to 0 nodes; found minNodeCount 2.
          Idle nodes are billed.
        - [advisory] [severity: high]  aml-cluster-ssh-disabled  (azure-native:machinelearningservices:Compute: cpu-cluster)
          Cluster cpu-cluster must close the SSH port explicitly; found NotSpecified.
    Waived:
        - [waived] [severity: medium]  aml-compute-no-public-ip  (azure-native:machinelearningservices:Compute: cpu-cluster)
          reason: Migration to the hub network, ticket NET-42 (expires 2026-12-31)
          covered by the waiver for its stack entry cpu-cluster
          Cluster cpu-cluster must not give nodes a public IP.
    Unknown at preview (not a pass):
        - aml-cluster-same-region  (azure-native:machinelearningservices:Compute: cpu-cluster)
          can't be known during preview
    1 mandatory, 1 advisory, 1 waived, 1 unknown
"""  # noqa: E501

DEV_POLICIES = """\
Policies:
    ✅ amlkit-guardrails@v0.1.0 (local: policies)
    Policy config: pack defaults
    0 mandatory, 0 advisory, 0 waived, 0 unknown
"""

FAILED_POLICIES = """\
Policies:
    ❌ review failed: program failed: ValueError: bad subnet
    The program or the policy pack failed: this stack was NOT reviewed.
"""

CONFIG_ERROR_POLICIES = """\
Policies:
    ❌ review failed: stack wrongtype: stacks/Pulumi.wrongtype.yaml: component cpu-cluster (amlkit:index:ComputeCluster): max_nodes: must be a whole number >= 1 (got 'four')
    A config error (fix the file and key named above): this stack was NOT reviewed.
"""  # noqa: E501


def _advisory_only():
    stack = prod_stack()
    return dataclasses.replace(stack, violations=tuple(v for v in stack.violations if v.level == "advisory"),
                               unknown=())


def _unknown_only():
    return dataclasses.replace(prod_stack(), violations=())


@pytest.mark.parametrize(
    ("stack", "expected"),
    [
        pytest.param(prod_stack(), PROD_POLICIES, id="every-kind-of-finding"),
        pytest.param(dev_stack(), DEV_POLICIES, id="clean"),
        pytest.param(failed_stack(), FAILED_POLICIES, id="failed-is-never-clean"),
        pytest.param(config_error_stack(), CONFIG_ERROR_POLICIES, id="config-error-is-never-clean"),
    ],
)
def test_policies_section(stack, expected: str) -> None:
    assert render_policies(stack, "policies").plain == expected


@pytest.mark.parametrize(
    ("stack", "state_line"),
    [
        pytest.param(_advisory_only(), "    ⚠️ amlkit-guardrails@v0.1.0 (local: policies)", id="advisory-only"),
        pytest.param(_unknown_only(), "    ⚠️ amlkit-guardrails@v0.1.0 (local: policies)", id="unknown-is-not-clean"),
        pytest.param(dataclasses.replace(dev_stack(), pack=None), "    ❌ review failed: no policy pack result",
                     id="no-pack-result-fails-closed"),
    ],
)
def test_pack_state(stack, state_line: str) -> None:
    assert render_policies(stack, "policies").plain.splitlines()[1] == state_line


def test_whole_report_sorts_stacks_and_ends_with_the_summary() -> None:
    text = render(full_review(), "policies").plain
    assert text == (
        "Stack dev (project amlkit, environment dev, stacks/Pulumi.dev.yaml)\n\n" + DEV_POLICIES + "\n"
        + "Stack prod (project amlkit, environment prod, stacks/Pulumi.prod.yaml)\n\n" + PROD_POLICIES + "\n"
        + "Stack staging (project amlkit, environment staging, stacks/Pulumi.staging.yaml)\n\n" + FAILED_POLICIES
        + "\n"
        + "Summary: 3 stacks, 1 mandatory, 1 advisory, 1 waived, 1 unknown; 1 FAILED and NOT reviewed\n"
    )


def test_output_does_not_depend_on_input_order() -> None:
    review = full_review()
    shuffled = Review(stacks=tuple(dataclasses.replace(stack, violations=stack.violations[::-1])
                                   for stack in reversed(review.stacks)))
    assert render(shuffled, "policies").plain == render(review, "policies").plain


@pytest.mark.parametrize(
    ("review", "line"),
    [
        pytest.param(Review(), "Summary: 0 stacks, 0 mandatory, 0 advisory, 0 waived, 0 unknown", id="empty"),
        pytest.param(Review(stacks=[dev_stack()]), "Summary: 1 stack, 0 mandatory, 0 advisory, 0 waived, 0 unknown",
                     id="one-clean"),
    ],
)
def test_summary_line(review: Review, line: str) -> None:
    assert summary_line(review) == line


def test_waiver_without_expiry_or_reason() -> None:
    stack = prod_stack()
    stack = dataclasses.replace(stack, violations=tuple(dataclasses.replace(v, waiver_expires=None, waiver_reason=None)
                                                        for v in stack.violations if v.level == "waived"))
    assert "          reason: none given\n" in render_policies(stack).plain


def test_pack_label_without_source() -> None:
    assert pack_label(PACK) == "amlkit-guardrails@v0.1.0"


def test_no_escape_codes_without_a_terminal_and_no_colours_under_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    text = render(full_review(), "policies")
    pipe = io.StringIO()
    Console(file=pipe, width=300).print(text, soft_wrap=True, end="")
    assert pipe.getvalue() == text.plain
    monkeypatch.setenv("NO_COLOR", "1")
    tty = io.StringIO()
    Console(file=tty, force_terminal=True, width=300).print(text, soft_wrap=True, end="")
    assert "\x1b[1m" in tty.getvalue()  # bold is not a colour
    assert not re.search(r"\x1b\[[0-9;]*3[0-7]m|\x1b\[[0-9;]*;3[0-7][;m]", tty.getvalue())


def test_colours_on_a_terminal() -> None:
    tty = io.StringIO()
    Console(file=tty, force_terminal=True, width=300).print(render(full_review(), "policies"), soft_wrap=True, end="")
    assert "\x1b[1;31m" in tty.getvalue()


def test_secrets_never_appear() -> None:
    assert SECRET_VALUE not in render(full_review(), "policies").plain


def test_rules_listing() -> None:
    assert render_rules(PACK, "policies").plain == """\
amlkit-guardrails@v0.1.0 (local: policies): 4 policies (2 mandatory, 1 advisory, 1 disabled)

aml-cluster-min-nodes-zero  AMLK-0001  [mandatory] [severity: high] [resource] [since 0.1.0]
    AmlCompute clusters scale down to zero nodes when idle.
    Remediation: Set min_instances: 0 on the cluster in the stack file.
    Tags: cost
    More: https://learn.microsoft.com/azure/machine-learning/how-to-create-attach-compute-cluster

aml-cluster-ssh-disabled  AMLK-0008  [advisory] [severity: high] [resource] [since 0.2.0]
    No public SSH on compute: Cluster SSH ports are explicitly closed.
    Remediation: Set ssh_public_access_enabled: false.
    Tags: security, network
    Compliance: Microsoft cloud security benchmark v1 NS-1 (Establish network segmentation boundaries)
    More: https://learn.microsoft.com/azure/machine-learning/how-to-secure-training-vnet

aml-compute-no-public-ip  [mandatory] [severity: medium] [resource]
    Compute nodes have no public IP address.
    Remediation: Set enable_node_public_ip: false and give the cluster a subnet.
    Tags: network, security

aml-quota-budget  [disabled] [severity: low] [stack]
    Clusters fit the core quota.

""" + HOW_TO_WAIVE + "\n"


TWO_PACKS = PROD_POLICIES.replace("    1 mandatory, 1 advisory", """\
    ❌ acme-extra@v2.0.0 (local: ../acme)
    Policy config: acme.json
        - [mandatory] [severity: low]  acme-tags  (azure-native:machinelearningservices:Compute: cpu-cluster)
          Cluster cpu-cluster must carry an owner tag.
    2 mandatory, 1 advisory""")


def test_several_packs_are_grouped_by_pack_as_pulumi_does() -> None:
    sources = {"amlkit-guardrails": "policies", "acme-extra": "../acme"}
    assert render_policies(two_pack_stack(), sources).plain == TWO_PACKS
    clean_extra = two_pack_stack()
    clean_extra = dataclasses.replace(clean_extra,
                                      violations=tuple(v for v in clean_extra.violations if v.pack != "acme-extra"))
    assert "    ✅ acme-extra@v2.0.0 (local: ../acme)\n    Policy config: acme.json\n    1 mandatory" in \
        render_policies(clean_extra, sources).plain


def test_a_state_that_could_not_be_read_has_no_header_with_empty_fields() -> None:
    from amlkit.review.model import StackReview
    from amlkit.review.report.table import stack_header

    failed = StackReview("states/bad.json", "", "", "states/bad.json", audited_state="states/bad.json",
                         error="stack states/bad.json: states/bad.json: 'deployment' is a required property",
                         error_kind="config")
    assert stack_header(failed) == "State states/bad.json (not read)"
    assert render(Review(stacks=[failed]), "policies").plain.splitlines()[0] == "State states/bad.json (not read)"
    read = StackReview("dev", "amlkit", "", "states/dev.json", audited_state="states/dev.json")
    assert stack_header(read) == "Stack dev (project amlkit, states/dev.json)"


def test_remediations_come_first_under_their_pack_and_are_counted() -> None:
    assert render_policies(remediated_stack(), "policies").plain == """\
Policies:
    ✅ amlkit-guardrails@v0.1.0 (local: policies)
    Policy config: policy-config/prod.json
    Remediated (set before the analysis, as `pulumi up` sets them):
        - [remediate]  aml-cluster-min-nodes-zero  (azure-native:machinelearningservices:Compute: cpu-cluster)
          properties.properties.scaleSettings.minNodeCount: 2 -> 0
        - [remediate]  aml-cluster-ssh-disabled  (azure-native:machinelearningservices:Compute: cpu-cluster)
          properties.properties.remoteLoginPortPublicAccess: none -> Disabled
        - [remediate]  aml-cluster-ssh-disabled  (azure-native:machinelearningservices:Compute: cpu-cluster)
          properties.properties.userAccountCredentials.adminUserName: [secret] -> azureuser
    Waived:
        - [waived] [severity: medium]  aml-compute-no-public-ip  (azure-native:machinelearningservices:Compute: cpu-cluster)
          reason: Migration to the hub network, ticket NET-42 (expires 2026-12-31)
          covered by the waiver for its stack entry cpu-cluster
          Cluster cpu-cluster must not give nodes a public IP.
    0 mandatory, 0 advisory, 1 waived, 0 unknown, 3 remediated
"""  # noqa: E501


def test_rules_listing_marks_the_rules_that_remediate_and_counts_the_level() -> None:
    text = render_rules(REMEDIATE_PACK, "policies").plain
    assert text.startswith("amlkit-guardrails@v0.1.0 (local: policies): 4 policies (1 mandatory, 0 advisory, "
                           "1 disabled, 2 remediate)\n")
    assert "aml-cluster-min-nodes-zero  AMLK-0001  [remediate] [severity: high] [resource] [since 0.1.0] " \
           "[remediates]\n" in text
