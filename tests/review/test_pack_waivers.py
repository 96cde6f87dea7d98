"""amlkit.review.pack.waivers: the warnings about amlkit's waivers (one that waives nothing, one that expires
soon), from the pack's config, the stack's registrations and what the pack reported."""

from __future__ import annotations

from datetime import date

import pytest

from amlkit.review.model import Unknown, Violation
from amlkit.review.pack.config import PolicyConfig
from amlkit.review.pack.waivers import waiver_warnings

TODAY = date(2026, 11, 28)
ENV = "urn:pulumi:prod::p::amlkit:index:Environment::prod"
AKS = "urn:pulumi:prod::p::amlkit:index:Environment$amlkit:index:KubernetesCompute::prod-attached-aks-batch"
AKS_COMPUTE = ("urn:pulumi:prod::p::amlkit:index:Environment$amlkit:index:KubernetesCompute$"
               "azure-native:machinelearningservices:Compute::prod-attached-aks-batch-compute")
GPU = "urn:pulumi:prod::p::azure-native:machinelearningservices:Compute::prod-cluster-gpu-cluster-compute"
CPU = "urn:pulumi:prod::p::azure-native:machinelearningservices:Compute::prod-cluster-cpu-cluster-compute"
RESOURCES = [
    {"name": "prod", "urn": ENV, "inputs": {}, "parent": None},
    {"name": "prod-attached-aks-batch", "urn": AKS, "inputs": {}, "parent": ENV},
    {"name": "prod-attached-aks-batch-compute", "urn": AKS_COMPUTE, "parent": AKS,
     "inputs": {"computeName": "aks-batch", "workspaceName": "mlw-prod"}},
    {"name": "prod-cluster-gpu-cluster-compute", "urn": GPU, "inputs": {"computeName": "gpu-cluster"}},
    {"name": "prod-cluster-cpu-cluster-compute", "urn": CPU, "inputs": {"computeName": "cpu-cluster"}},
]


def waived(urn: str, waiver: str, via: str, expires: str | None = None) -> Violation:
    return Violation("r", "waived", "high", urn, "t", urn.rsplit("::", 1)[-1], "X must be Y.", "amlkit-guardrails",
                     "why", expires, waiver, via)


def violation(urn: str) -> Violation:
    return Violation("r", "mandatory", "high", urn, "t", urn.rsplit("::", 1)[-1], "X must be Y.", "amlkit-guardrails")


HEAD = "f.json: r.waivers[0]: resource"
CASES = [  # (id, waiver, findings of policy r, warnings)
    ("covers-by-component", {"resource": "prod-attached-aks-batch"},
     [waived(AKS_COMPUTE, "prod-attached-aks-batch", "component")], []),
    ("covers-by-entry", {"resource": "aks-batch"}, [waived(AKS_COMPUTE, "aks-batch", "entry")], []),
    ("covers-by-name-glob", {"resource": "prod-cluster-*"}, [waived(GPU, "prod-cluster-*", "resource")], []),
    ("names-a-component-but-covers-nothing", {"resource": "prod-attached-aks-batch"}, [violation(GPU)],
     [f"{HEAD} 'prod-attached-aks-batch' names prod-attached-aks-batch and 1 more but covers no finding of this "
      "policy in stack prod: it waives nothing (a finding on a child is covered by naming the child, its stack entry "
      "or its component)"]),
    ("names-resources-of-a-policy-without-findings", {"resource": "prod-cluster-*"}, [],
     [f"{HEAD} 'prod-cluster-*' names prod-cluster-gpu-cluster-compute and 1 more but covers no finding of this "
      "policy in stack prod: it waives nothing (a finding on a child is covered by naming the child, its stack "
      "entry or its component)"]),
    ("matches-nothing", {"resource": "gpu-clustr-compute"}, [],
     [f"{HEAD} 'gpu-clustr-compute' matches no resource of stack prod; closest: prod-cluster-gpu-cluster-compute, "
      "prod-cluster-cpu-cluster-compute, prod-attached-aks-batch-compute"]),
    ("nothing-close", {"resource": "zzz"}, [], [f"{HEAD} 'zzz' matches no resource of stack prod"]),
    ("an-unknown-may-hide-what-it-covers", {"resource": "gpu-cluster"},
     [Unknown("r", GPU, "t", "prod-cluster-gpu-cluster-compute", "cannot tell", "amlkit-guardrails")], []),
    ("expired-and-already-told-in-the-violation", {"resource": "gpu-cluster", "expires": "2026-01-01"},
     [violation(GPU)], []),
    ("expires-soon", {"resource": "gpu-cluster", "expires": "2026-12-05"},
     [waived(GPU, "gpu-cluster", "entry", "2026-12-05")],
     [f"{HEAD} 'gpu-cluster' expires on 2026-12-05 (in 7 day(s), within waiverExpiryWarningDays 14): after it the "
      "finding(s) on prod-cluster-gpu-cluster-compute fail again; fix them or renew the waiver with a reason"]),
    ("expires-later", {"resource": "gpu-cluster", "expires": "2026-12-13"},
     [waived(GPU, "gpu-cluster", "entry", "2026-12-13")], []),
]


@pytest.mark.parametrize(("waiver", "findings", "warnings"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_waiver_that_waives_nothing_or_expires_soon_is_a_warning(waiver, findings, warnings):
    config = {"r": PolicyConfig("mandatory", {"waivers": [{"reason": "why", **waiver}]}),
              "other": PolicyConfig("advisory", {"waivers": "not amlkit's"})}
    assert waiver_warnings(config, RESOURCES, findings, "f.json", "prod", TODAY) == warnings


def test_the_expiry_window_is_the_policys_knob_as_the_wire_carries_it():
    config = {"r": PolicyConfig("mandatory", {"waiverExpiryWarningDays": 3.0,
                                              "waivers": [{"resource": "gpu-cluster", "reason": "why",
                                                           "expires": "2026-12-05"}]})}
    findings = [waived(GPU, "gpu-cluster", "entry", "2026-12-05")]
    assert waiver_warnings(config, RESOURCES, findings, "f.json", "prod", TODAY) == []
    assert waiver_warnings(config, RESOURCES, findings, "f.json", "prod", date(2026, 12, 2)) == [
        f"{HEAD} 'gpu-cluster' expires on 2026-12-05 (in 3 day(s), within waiverExpiryWarningDays 3): after it the "
        "finding(s) on prod-cluster-gpu-cluster-compute fail again; fix them or renew the waiver with a reason"]
