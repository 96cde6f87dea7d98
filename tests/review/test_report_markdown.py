"""Markdown for pull-request comments: overview table, per-stack findings, a details section each."""

from __future__ import annotations

import dataclasses

import pytest

from amlkit.policies.waivers import HOW_TO_WAIVE
from amlkit.review.model import Review, Violation
from amlkit.review.report.markdown import render, render_rules
from tests.data.reviews import (
    PACK,
    SECRET_VALUE,
    config_error_stack,
    dev_stack,
    failed_stack,
    full_review,
    prod_stack,
    remediated_stack,
    two_pack_stack,
)

URN = ("urn:pulumi:prod::amlkit::amlkit:index:Environment$amlkit:index:ComputeCluster"
       "$azure-native:machinelearningservices:Compute::cpu-cluster")
TYPE = "`azure-native:machinelearningservices:Compute`"

PROD = f"""\
## amlkit policy review

❌ **Mandatory policy violations**: 1 mandatory, 1 advisory, 1 waived, 1 unknown across 1 stack.

| Stack | Environment | Result | Mandatory | Advisory | Waived | Unknown |
|---|---|---|---|---|---|---|
| prod | prod | ❌ mandatory violations | 1 | 1 | 1 | 1 |

### prod

Project `amlkit`, environment `prod`, stack file `stacks/Pulumi.prod.yaml`, policy config `policy-config/prod.json`.

| Level | Severity | Policy | Resource | Type |
|---|---|---|---|---|
| ❌ mandatory | high | `aml-cluster-min-nodes-zero` | `cpu-cluster` | {TYPE} |
| ⚠️ advisory | high | `aml-cluster-ssh-disabled` | `cpu-cluster` | {TYPE} |
| 💤 waived | medium | `aml-compute-no-public-ip` | `cpu-cluster` | {TYPE} |
| ❔ unknown |  | `aml-cluster-same-region` | `cpu-cluster` | {TYPE} |

<details>
<summary>❌ mandatory: aml-cluster-min-nodes-zero on cpu-cluster</summary>

```text
Cluster cpu-cluster must scale down to 0 nodes; found minNodeCount 2.
Idle nodes are billed.
```

- Resource: `{URN}`
- Severity: high
- Remediation: Set min_instances: 0 on the cluster in the stack file.
- Reference: https://learn.microsoft.com/azure/machine-learning/how-to-create-attach-compute-cluster

</details>

<details>
<summary>⚠️ advisory: aml-cluster-ssh-disabled on cpu-cluster</summary>

```text
Cluster cpu-cluster must close the SSH port explicitly; found NotSpecified.
```

- Resource: `{URN}`
- Severity: high
- Remediation: Set ssh_public_access_enabled: false.
- Reference: https://learn.microsoft.com/azure/machine-learning/how-to-secure-training-vnet

</details>

<details>
<summary>💤 waived: aml-compute-no-public-ip on cpu-cluster</summary>

```text
Cluster cpu-cluster must not give nodes a public IP.
```

- Resource: `{URN}`
- Severity: medium
- Waived: Migration to the hub network, ticket NET-42 (expires 2026-12-31); covered by the waiver for its stack entry cpu-cluster
- Remediation: Set enable_node_public_ip: false and give the cluster a subnet.

</details>

<details>
<summary>❔ unknown: aml-cluster-same-region on cpu-cluster</summary>

```text
can't be known during preview
```

Not evaluated at preview: this is not a pass.

- Resource: `{URN}`

</details>
"""  # noqa: E501


def test_stack_with_every_kind_of_finding() -> None:
    assert render(Review(stacks=[prod_stack()])) == PROD


@pytest.mark.parametrize(
    ("review", "headline"),
    [
        pytest.param(full_review(), "❌ **Review failed**: 1 stack(s) were NOT reviewed. 1 mandatory, 1 advisory, "
                                    "1 waived, 1 unknown across 3 stacks.", id="failure-wins"),
        pytest.param(Review(stacks=[dev_stack()]), "✅ **Passed**: 0 mandatory, 0 advisory, 0 waived, 0 unknown "
                                                  "across 1 stack.", id="clean"),
        pytest.param(Review(stacks=[dataclasses.replace(prod_stack(), violations=[])]),
                     "⚠️ **Passed with warnings**: 0 mandatory, 0 advisory, 0 waived, 1 unknown across 1 stack.",
                     id="unknown-is-a-warning"),
    ],
)
def test_headline(review: Review, headline: str) -> None:
    assert render(review).splitlines()[2] == headline


def test_overview_sorted_and_failed_and_clean_sections() -> None:
    text = render(full_review())
    assert """\
| dev | dev | ✅ passed | 0 | 0 | 0 | 0 |
| prod | prod | ❌ mandatory violations | 1 | 1 | 1 | 1 |
| staging | staging | ❌ review failed | - | - | - | - |
""" in text
    assert text.endswith("""\
### staging

Project `amlkit`, environment `staging`, stack file `stacks/Pulumi.staging.yaml`, policy config `pack defaults`.

**Review failed, this stack was NOT reviewed:**

```text
program failed: ValueError: bad subnet
```
""")
    dev = ("### dev\n\nProject `amlkit`, environment `dev`, stack file `stacks/Pulumi.dev.yaml`, policy config "
           "`pack defaults`.\n\nNo findings.\n")
    assert dev in text


def test_a_config_error_is_marked_not_reviewed() -> None:
    text = render(Review(stacks=[config_error_stack(), dev_stack()]))
    assert "| wrongtype | wrongtype | ❌ config error | - | - | - | - |" in text
    assert text.endswith("""\
**Config error, this stack was NOT reviewed:**

```text
stack wrongtype: stacks/Pulumi.wrongtype.yaml: component cpu-cluster (amlkit:index:ComputeCluster): max_nodes: must be a whole number >= 1 (got 'four')
```
""")  # noqa: E501


def test_plan_is_collapsed_per_stack() -> None:
    text = render(Review(stacks=[dev_stack()]), plans={"dev": " +   amlkit:index:Environment  dev  create\n"})
    assert ("<details>\n<summary>Plan</summary>\n\n```text\n +   amlkit:index:Environment  dev  create\n```\n\n"
            "</details>\n\nNo findings.\n") in text


def test_finding_text_cannot_inject_markdown_or_html() -> None:
    stack = dataclasses.replace(dev_stack(), violations=(Violation(
        policy="p|x", level="mandatory", severity="high", urn="u", type="t`y", resource="<img src=x>",
        message="```\n</details><script>x</script>"),))
    text = render(Review(stacks=[stack]))
    assert "| ❌ mandatory | high | `p\\|x` | `<img src=x>` | `t'y` |" in text
    assert "<summary>❌ mandatory: p|x on &lt;img src=x&gt;</summary>" in text
    assert "````text\n```\n</details><script>x</script>\n````" in text  # inside a longer fence: inert


def test_no_secret() -> None:
    assert SECRET_VALUE not in render(full_review())


def test_failed_stack_only() -> None:
    assert "❌ review failed" in render(Review(stacks=[failed_stack()]))


def test_rules_table() -> None:
    assert render_rules(PACK) == """\
## amlkit-guardrails@v0.1.0

| Policy | Ref | Since | Level | Severity | Scope | Remediates | Tags | Description | Remediation |
|---|---|---|---|---|---|---|---|---|---|
| `aml-cluster-min-nodes-zero` | AMLK-0001 | 0.1.0 | mandatory | high | resource | - | cost | AmlCompute clusters scale down to zero nodes when idle. | Set min_instances: 0 on the cluster in the stack file. ([docs](https://learn.microsoft.com/azure/machine-learning/how-to-create-attach-compute-cluster)) |
| `aml-cluster-ssh-disabled` | AMLK-0008 | 0.2.0 | advisory | high | resource | - | security, network | Cluster SSH ports are explicitly closed. | Set ssh_public_access_enabled: false. ([docs](https://learn.microsoft.com/azure/machine-learning/how-to-secure-training-vnet)) |
| `aml-compute-no-public-ip` |  |  | mandatory | medium | resource | - | network, security | Compute nodes have no public IP address. | Set enable_node_public_ip: false and give the cluster a subnet. |
| `aml-quota-budget` |  |  | disabled | low | stack | - |  | Clusters fit the core quota. |  |

""" + HOW_TO_WAIVE + "\n"  # noqa: E501


def _big_review(findings: int) -> Review:
    stack = prod_stack()
    template = stack.violations[2]
    stack = dataclasses.replace(stack, violations=tuple(
        dataclasses.replace(template, resource=f"cluster-{i:04d}", message="m" * 200) for i in range(findings)))
    return Review(stacks=[stack, failed_stack()])


def test_stays_within_the_comment_limit_and_says_what_was_left_out() -> None:
    text = render(_big_review(1000))
    assert len(text) <= 60_000
    assert "| prod | prod | ❌ mandatory violations | 1000 | 0 | 0 | 1 |" in text
    assert "| staging | staging | ❌ review failed | - | - | - | - |" in text
    assert "**Review failed, this stack was NOT reviewed:**" in text
    shown_rows = text.count("| ❌ mandatory | high |") + text.count("| ❔ unknown |")
    shown_details = text.count("<summary>❌ mandatory:") + text.count("<summary>❔ unknown:")
    omitted = (1001 - shown_rows) + (1001 - shown_details)  # 1000 violations and 1 unknown
    assert 0 < shown_rows < 1001
    assert text.endswith(f"_{omitted} item(s) left out to keep this comment within GitHub's size limit; "
                         "the JSON and SARIF reports list every finding._\n")


def test_small_reviews_are_complete() -> None:
    text = render(_big_review(5))
    assert text.count("<summary>❌ mandatory:") == 5
    assert "left out" not in text


def test_several_packs_name_each_finding_s_pack() -> None:
    text = render(Review(stacks=[two_pack_stack()]))
    assert ("Packs: `amlkit-guardrails@v0.1.0` (policy config `policy-config/prod.json`), `acme-extra@v2.0.0` "
            "(policy config `acme.json`).") in text
    assert "| Level | Severity | Policy | Resource | Type | Pack |" in text
    assert ("| ❌ mandatory | low | `acme-tags` | `cpu-cluster` | `azure-native:machinelearningservices:Compute` | "
            "`acme-extra` |") in text
    assert "Pack |" not in render(Review(stacks=[prod_stack()]))  # one pack: the table as before


CELLS = [  # (text, as a table cell): HTML escaped outside code spans only (GitHub shows `&lt;` in one literally)
    ("run `amlkit sizes <size>` first", "run `amlkit sizes <size>` first"),
    ("a <b> & c", "a &lt;b&gt; &amp; c"),
    ("`<x>` and <y>, `a|b`", "`<x>` and &lt;y&gt;, `a\\|b`"),
    ("unclosed ` <z>", "unclosed ` &lt;z&gt;"),
]


@pytest.mark.parametrize(("text", "cell"), CELLS, ids=["code-span", "plain", "both", "unclosed"])
def test_a_cell_escapes_html_outside_code_spans_only(text: str, cell: str) -> None:
    from amlkit.review.report.markdown import _cell

    assert _cell(text) == cell


def test_remediations_come_first_in_their_stack_one_row_per_property() -> None:
    text = render(Review(stacks=[remediated_stack()]))
    assert """\
### prod

Project `amlkit`, environment `prod`, stack file `stacks/Pulumi.prod.yaml`, policy config `policy-config/prod.json`.

**Remediated** (level remediate: set before the analysis, as `pulumi up` sets it):

| Policy | Resource | Property | Before -> after |
|---|---|---|---|
| `aml-cluster-min-nodes-zero` | `cpu-cluster` | `properties.properties.scaleSettings.minNodeCount` | `2 -> 0` |
| `aml-cluster-ssh-disabled` | `cpu-cluster` | `properties.properties.remoteLoginPortPublicAccess` | `none -> Disabled` |
| `aml-cluster-ssh-disabled` | `cpu-cluster` | `properties.properties.userAccountCredentials.adminUserName` | `[secret] -> azureuser` |

| Level | Severity | Policy | Resource | Type |
|---|---|---|---|---|
| 💤 waived | medium | `aml-compute-no-public-ip` | `cpu-cluster` | `azure-native:machinelearningservices:Compute` |
""" in text  # noqa: E501
    assert "Remediated" not in render(Review(stacks=[prod_stack()]))
