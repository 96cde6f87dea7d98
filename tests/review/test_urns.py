"""amlkit.review.urns: every URN the review builds or reads, as pulumi's urn.go forms them."""

from __future__ import annotations

import pytest

from amlkit.review.urns import STACK_TYPE, alias_urns, engine_urn, stack_urn, urn_name, urn_owner, urn_type

WORKSPACE = "urn:pulumi:dev::p::azure-native:machinelearningservices:Workspace::mlw"
COMPUTE = "azure-native:machinelearningservices:Compute"


def test_the_root_stack_urn_is_named_project_dash_stack():
    assert stack_urn("acme-ml", "prod") == "urn:pulumi:prod::acme-ml::pulumi:pulumi:Stack::acme-ml-prod"
    assert urn_type(stack_urn("acme-ml", "prod")) == STACK_TYPE


@pytest.mark.parametrize(("parent", "expected"), [
    ("", f"urn:pulumi:dev::p::{COMPUTE}::cpu"),
    ("urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev", f"urn:pulumi:dev::p::{COMPUTE}::cpu"),  # never the Stack
    (WORKSPACE, f"urn:pulumi:dev::p::azure-native:machinelearningservices:Workspace${COMPUTE}::cpu"),
    ("urn:pulumi:dev::p::amlkit:index:Environment$amlkit:index:Workspace::w",  # the parent's whole chain
     f"urn:pulumi:dev::p::amlkit:index:Environment$amlkit:index:Workspace${COMPUTE}::cpu"),
], ids=["no-parent", "stack-parent", "parent", "nested-parent"])
def test_engine_urn_chains_the_parents_types(parent, expected):
    assert engine_urn("dev", "p", parent, COMPUTE, "cpu") == expected


def test_alias_specs_resolve_as_the_engine_resolves_them():
    record = {"type": COMPUTE, "name": "cpu", "parent": WORKSPACE, "options": {"aliases": [
        {"type": "azure-native:machinelearningservices/v20240401:Compute", "parentUrn": ""},  # keeps the parent
        {"name": "old-cpu", "noParent": True},
        {"stack": "old", "project": "q"},
        {"urn": "urn:pulumi:dev::p::x:y:Z::literal"},
    ]}}
    assert alias_urns(record, "dev", "p") == [
        "urn:pulumi:dev::p::azure-native:machinelearningservices:Workspace"
        "$azure-native:machinelearningservices/v20240401:Compute::cpu",
        f"urn:pulumi:dev::p::{COMPUTE}::old-cpu",
        f"urn:pulumi:old::q::azure-native:machinelearningservices:Workspace${COMPUTE}::cpu",
        "urn:pulumi:dev::p::x:y:Z::literal",
    ]
    assert alias_urns({"type": COMPUTE, "name": "cpu", "options": {}}, "dev", "p") == []


@pytest.mark.parametrize(("urn", "owner", "type_", "name"), [
    (WORKSPACE, ("p", "dev"), "azure-native:machinelearningservices:Workspace", "mlw"),
    (f"urn:pulumi:dev::p::azure-native:machinelearningservices:Workspace${COMPUTE}::cpu", ("p", "dev"), COMPUTE,
     "cpu"),
    ("urn:pulumi:dev::p::x:y:Z::a::b", ("p", "dev"), "x:y:Z", "a::b"),  # a name may hold `::`
], ids=["resource", "child", "name-with-colons"])
def test_a_urn_reads_back_its_owner_type_and_name(urn, owner, type_, name):
    assert (urn_owner(urn), urn_type(urn), urn_name(urn)) == (owner, type_, name)


def test_a_malformed_urn_has_no_type():
    assert (urn_type("not-a-urn"), urn_name("not-a-urn")) == ("", "not-a-urn")
