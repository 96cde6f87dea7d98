import pytest
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from amlkit.policies.framework import Finding
from amlkit.policies.rules.aml_attached_compute_unique import RULE
from tests.policies.compute_fixtures import attached_props, cluster, resource, stack_findings, with_unknown, workspace
from tests.policies.examples import Example
from tests.policies.helpers import DELETE, Public, changed

PUBLIC = Public("AMLK-0031", "aml-attached-compute-unique", level="mandatory", kind="stack")

SUB = "/subscriptions/0000/resourceGroups"
AKS = f"{SUB}/rg-aks/providers/Microsoft.ContainerService/managedClusters/aks-prod"
VM = f"{SUB}/rg-vm/providers/Microsoft.Compute/virtualMachines/dsvm"
POOL = f"{SUB}/rg-syn/providers/Microsoft.Synapse/workspaces/syn/bigDataPools/pool1"
ID = "properties.resourceId"
EXPECTATION = "must attach a resource no other compute of workspace '{ws}' attaches"


def attached(name, compute_type="Kubernetes", resource_id=AKS, namespace="azureml", **changes):
    props = changed(changed(attached_props(compute_type), ID, resource_id), "computeName", name)
    props = changed(props, "properties.properties", {"namespace": namespace} if namespace is not DELETE else {})
    if compute_type != "Kubernetes":
        props = changed(props, "properties.properties", DELETE)
    for path, value in changes.items():
        props = changed(props, path, value)
    return resource(name, props)


def duplicate(offender, target, *others, ws="mlw-prod"):
    subject = f"{offender.props['properties']['computeType']} compute '{offender.name}'"
    named = ", ".join(f"'{other.name}'" for other in others)
    message = f"{subject} {EXPECTATION.format(ws=ws)}; found {target} also attached by {named}."
    return Finding(message, offender.urn)


def case_vm_twice():
    first, second = attached("vm-a", "VirtualMachine", VM), attached("vm-b", "VirtualMachine", VM)
    return [first, second], [duplicate(first, VM, second), duplicate(second, VM, first)]


def case_different_casing():
    upper = VM.upper().replace("/SUBSCRIPTIONS", "/subscriptions")
    first, second = attached("vm-a", "VirtualMachine", VM), attached("vm-b", "VirtualMachine", upper)
    return [first, second], [duplicate(first, VM, second), duplicate(second, upper, first)]


def case_aks_v1_attached_twice():
    first, second = attached("aks-a", "AKS", AKS), attached("aks-b", "AKS", AKS)
    return [first, second], [duplicate(first, AKS, second), duplicate(second, AKS, first)]


def case_three_attachments_each_names_the_others():
    first, second, third = (attached(n, "SynapseSpark", POOL) for n in ("spark-a", "spark-b", "spark-c"))
    return [third, first, second], [duplicate(third, POOL, first, second), duplicate(first, POOL, second, third),
                                    duplicate(second, POOL, first, third)]


def case_workspace_in_stack_by_dependency():
    """Both computes take their workspaceName from the stack's workspace: unknown at preview, same workspace."""
    ws = workspace("mlw")
    first, second = (
        resource(name, with_unknown(attached(name, "VirtualMachine", VM).props, "workspaceName",
                                    UNKNOWN_STRING_VALUE), depends={"workspaceName": [ws.urn]})
        for name in ("vm-a", "vm-b")
    )
    return [ws, first, second], [duplicate(first, VM, second, ws="mlw"), duplicate(second, VM, first, ws="mlw")]


def case_workspace_names_ignore_case():
    first = attached("vm-a", "VirtualMachine", VM)
    second = attached("vm-b", "VirtualMachine", VM, workspaceName="MLW-PROD")
    return [first, second], [duplicate(first, VM, second), duplicate(second, VM, first, ws="MLW-PROD")]


CASES = [
    ("vm-attached-twice-under-two-names", case_vm_twice),
    ("same-vm-different-casing", case_different_casing),
    ("aks-v1-attached-twice", case_aks_v1_attached_twice),
    # Kubernetes (v2): one cluster may be attached to a workspace several times (how-to-attach-kubernetes)
    ("kubernetes-same-cluster-same-namespace-passes", lambda: ([attached("k8s-a"), attached("k8s-b")], [])),
    ("kubernetes-default-namespace-twice-passes", lambda: ([attached("k8s-a", namespace=DELETE),
                                                            attached("k8s-b", namespace="default")], [])),
    ("three-attachments-each-names-the-others", case_three_attachments_each_names_the_others),
    ("same-workspace-found-by-dependency", case_workspace_in_stack_by_dependency),
    ("unique-pair-passes", lambda: ([attached("k8s"), attached("vm", "VirtualMachine", VM)], [])),
    ("same-cluster-other-namespace-passes", lambda: ([attached("k8s-a"), attached("k8s-b", namespace="team-b")], [])),
    ("other-workspace-passes", lambda: ([attached("vm-a", "VirtualMachine", VM),
                                         attached("vm-b", "VirtualMachine", VM, workspaceName="mlw-dev")], [])),
    ("other-resource-group-passes", lambda: ([attached("vm-a", "VirtualMachine", VM),
                                              attached("vm-b", "VirtualMachine", VM, resourceGroupName="rg-x")], [])),
    ("workspace-names-ignore-case", case_workspace_names_ignore_case),
    ("no-resource-id-skipped", lambda: ([attached("aks-a", "AKS", AKS), attached("aks-b", "AKS", DELETE),
                                         attached("aks-c", "AKS", DELETE)], [])),
    ("managed-computes-ignored", lambda: ([cluster("cpu-a"), cluster("cpu-b")], [])),
]


@pytest.mark.parametrize("build", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_attached_compute_unique(build):
    resources, expected = build()
    assert stack_findings(RULE, resources) == expected


def test_unknown_resource_id_is_unknown_not_a_pass():
    known = attached("vm-a", "VirtualMachine", VM)
    unknown = resource("vm-b", with_unknown(attached("vm-b", "VirtualMachine", VM).props, ID, UNKNOWN_STRING_VALUE))
    with pytest.raises(UnknownValueError):
        stack_findings(RULE, [known, unknown])


EXAMPLE = Example.of_builders(CASES, fails="vm-attached-twice-under-two-names", passes="unique-pair-passes")
