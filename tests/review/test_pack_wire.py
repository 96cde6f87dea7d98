"""amlkit.review.pack.wire: the Analyze requests the engine builds from a registration (no pack process)."""

from __future__ import annotations

from amlkit.review.pack.wire import default_provider_name, provider_resource, resource_options

RESOURCE = {"type": "azure-native:machinelearningservices:Compute", "name": "cpu", "custom": True,
            "parent": "urn:pulumi:dev::p::azure-native:machinelearningservices:Workspace::mlw",
            "provider": None, "inputs": {},
            "options": {"aliases": [
                {"type": "azure-native:machinelearningservices/v20240401:Compute", "parentUrn": ""},
                {"name": "old-cpu", "noParent": True},
                {"urn": "urn:pulumi:dev::p::x:y:Z::literal"},
            ]}}


def test_alias_specs_reach_the_analyzer_as_engine_urns():
    assert list(resource_options(RESOURCE, "dev", "p").aliases) == [
        "urn:pulumi:dev::p::azure-native:machinelearningservices:Workspace"
        "$azure-native:machinelearningservices/v20240401:Compute::cpu",
        "urn:pulumi:dev::p::azure-native:machinelearningservices:Compute::old-cpu",
        "urn:pulumi:dev::p::x:y:Z::literal",
    ]


def test_default_provider_is_named_as_the_engine_names_it():
    provider = provider_resource(RESOURCE, {}, "dev", "p")
    assert provider is not None
    assert provider.type == "pulumi:providers:azure-native"
    assert provider.name == default_provider_name("azure-native")
    assert provider.name.startswith("default_3_")
    assert provider.urn == f"urn:pulumi:dev::p::pulumi:providers:azure-native::{provider.name}"
    assert provider_resource({**RESOURCE, "custom": False}, {}, "dev", "p") is None


def test_explicit_provider_is_the_registered_one():
    provider_urn = "urn:pulumi:dev::p::pulumi:providers:azure-native::westus"
    registered = {provider_urn: {"type": "pulumi:providers:azure-native", "name": "westus",
                                 "inputs": {"location": "westus"}}}
    provider = provider_resource({**RESOURCE, "provider": f"{provider_urn}::some-id"}, registered, "dev", "p")
    assert (provider.name, provider.urn, dict(provider.properties)) == ("westus", provider_urn,
                                                                         {"location": "westus"})
