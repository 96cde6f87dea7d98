"""Issue 10, end to end: a component-based platform program (not amlkit's stack files) with several
stacks, reviewed by the installed `amlkit check` in one run.

The program looks up its subnet and reads a stack reference; `broken` hands the cluster component a
misspelt argument; `prod` waives the resource-group lock with a reason that holds `|`, quotes, a
newline and non-ASCII text. The broken stack is that stack's error, the others are reviewed, every
format is still written, and the exit code says a config error (2).
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.review.helpers import FIXTURES, line_in
from tests.review.statefiles import deployed_state

pytestmark = pytest.mark.slow  # whole module: its one fixture runs two CLI processes, over 2 s

PROJECT = FIXTURES / "platform_e2e"
AMLKIT = Path(sys.executable).with_name("amlkit")
REASON = 'CAB-7 | "network team" owns rg-net\nthe lock stays until 2027 — Zürich ✓'
BROKEN = ('stack broken: __main__.py:25: ComputeCluster "cpu": min_node: unknown argument; '
          "did you mean min_instances? (help(ComputeClusterArgs) lists every argument)")
LOCK = ("aml-no-resource-group-lock", "network-lock")
ADVISORY = {("aml-workspace-cmk", "advisory", "mlw-workspace"),
            ("aml-workspace-private-endpoint", "advisory", "mlw-workspace"),
            ("aml-workspace-user-assigned-identity", "advisory", "mlw-workspace")}
# the cluster's region is a stack output; under the workspace's managed network its region and looked-up subnet
# decide aml-managed-network-limits
UNKNOWN = {"aml-cluster-same-region", "aml-managed-network-limits", "aml-quota-budget"}


def line_of(text: str) -> int:
    return line_in(PROJECT / "__main__.py", text)


LOOKUPS = [  # each at the program line that called it
    {"token": "azure-native:network:getSubnet",
     "args": {"resourceGroupName": "rg-net", "subnetName": "snet", "virtualNetworkName": "vnet"},
     "file": "__main__.py", "line": line_of("subnet = network.get_subnet_output(")},
    {"token": "pulumi:pulumi:StackReference", "args": {"name": "acme/shared/prod"},
     "file": "__main__.py", "line": line_of("shared = pulumi.StackReference(")},
]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("e2e")
    # dev and prod against their own state exports: the lock links to the deployed groups (in a first preview
    # the groups being created have unknown names: tests/review/test_preview_knowledge.py); broken has none
    states = [arg for stack in ("dev", "prod") for arg in ("--state", str(deployed_state(PROJECT, stack, out)))]

    def check(fmt: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(AMLKIT), "preview", "-C", str(PROJECT), "-s", "broken", "-s", "dev", "-s", "prod",
                               *states, "-f", fmt, "-o", str(out / f"r.{fmt}")],
                              capture_output=True, text=True, timeout=600)

    with ThreadPoolExecutor(max_workers=2) as pool:  # two independent processes: run them side by side
        done = dict(zip(("json", "sarif"), pool.map(check, ("json", "sarif")), strict=True))
    return {"done": done, "json": json.loads((out / "r.json").read_text(encoding="utf-8")),
            "sarif": json.loads((out / "r.sarif").read_text(encoding="utf-8"))}


def stack(run: dict, name: str) -> dict:
    return next(s for s in run["json"]["stacks"] if s["stack"] == name)


def test_a_config_error_in_one_stack_exits_2_and_every_format_is_written(run: dict) -> None:
    assert {fmt: done.returncode for fmt, done in run["done"].items()} == {"json": 2, "sarif": 2}
    assert [s["stack"] for s in run["json"]["stacks"]] == ["broken", "dev", "prod"]


def test_the_broken_stack_names_file_component_argument_and_closest_key(run: dict) -> None:
    broken = stack(run, "broken")
    assert (broken["error"], broken["error_kind"]) == (BROKEN, "config")
    detail = broken["error_detail"]
    assert (detail["component"], detail["arg"], detail["closest"], detail["file"], detail["line"]) == (
        'ComputeCluster "cpu"', "min_node", "min_instances", "__main__.py", 25)  # the program line that built it
    assert broken["violations"] == [] and broken["resources"] == []


def test_the_lookup_reaches_the_lock_rule_and_what_it_cannot_know_is_unknown(run: dict) -> None:
    dev = stack(run, "dev")
    assert dev["error"] is None and dev["policy_config"] == "pack defaults"
    assert {(v["policy"], v["level"], v["resource"]) for v in dev["violations"]} == ADVISORY | {
        (LOCK[0], "mandatory", LOCK[1])}
    assert {u["policy"] for u in dev["unknown"]} == UNKNOWN
    assert dev["lookups"] == LOOKUPS


def test_the_waiver_reason_round_trips_exactly(run: dict) -> None:
    prod = stack(run, "prod")
    assert prod["policy_config"] == "policy-config/prod.json"
    waived = [v for v in prod["violations"] if v["level"] == "waived"]
    assert [(v["policy"], v["resource"], v["reason"], v["expires"]) for v in waived] == [
        (*LOCK, REASON, None)]
    assert {(v["policy"], v["level"], v["resource"]) for v in prod["violations"]} - {
        (LOCK[0], "waived", LOCK[1])} == ADVISORY
    suppressed = [r for r in run["sarif"]["runs"][0]["results"] if r.get("suppressions")]
    assert [r["suppressions"][0]["justification"] for r in suppressed] == [REASON]


def test_sarif_marks_the_run_failed_and_names_the_broken_stack(run: dict) -> None:
    (invocation,) = run["sarif"]["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    errors = [n for n in invocation["toolExecutionNotifications"] if n["level"] == "error"]
    assert [(n["properties"]["stack"], n["message"]["text"]) for n in errors] == [("broken", BROKEN)]
    notes = [n["properties"]["token"] for n in invocation["toolExecutionNotifications"] if n["level"] == "note"]
    assert notes == [lookup["token"] for lookup in LOOKUPS] * 2  # dev, then prod
    (failed,) = [r for r in run["sarif"]["runs"][0]["results"] if r["ruleId"] == "amlkit-review-failed"]
    location = failed["locations"][0]["physicalLocation"]  # the program line that built the component
    assert location["region"] == {"startLine": 25}
    assert location["artifactLocation"]["uri"].endswith("platform_e2e/__main__.py")
