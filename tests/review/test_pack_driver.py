"""Pieces of the analyzer conversation that need no pack process."""

from __future__ import annotations

import json

import pytest

from amlkit.review.pack.driver import (
    MAX_ENV_VALUE,
    config_env,
    default_provider_name,
    pack_version,
    provider_resource,
    reported_text,
    resource_options,
)
from tests.review.helpers import PACKS

TEXT_CASES = [
    ("description-prefix", "Clusters scale to zero.\nCluster 'a' must ...", "Clusters scale to zero.",
     "Cluster 'a' must ..."),
    ("multi-line-report", "D.\nline 1\nline 2", "D.", "line 1\nline 2"),
    ("description-only", "D.", "D.", ""),
    ("no-prefix", "something else", "D.", "something else"),
]


@pytest.mark.parametrize(("message", "description", "expected"), [c[1:] for c in TEXT_CASES],
                         ids=[c[0] for c in TEXT_CASES])
def test_reported_text_drops_the_description(message, description, expected):
    assert reported_text(message, description) == expected


def test_pack_version_comes_from_pulumipolicy_yaml(tmp_path):
    assert pack_version(PACKS / "raises", "0.0.1") == "9.9.1"
    (tmp_path / "PulumiPolicy.yaml").write_text("runtime: python\n")
    assert pack_version(tmp_path, "0.0.1") == "0.0.1"


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


def test_config_env_keeps_what_fits():
    config = {"a:small": "1", "a:huge": "x" * (MAX_ENV_VALUE + 10), "a:mid": "y" * 1000}
    assert json.loads(config_env(config)) == {"a:small": "1", "a:mid": "y" * 1000}
    assert json.loads(config_env({"a:b": "c"})) == {"a:b": "c"}


ONE_VERSION = [  # (reported, displayed, message in, message out)
    ("0.0.1", "0.2.0", "can't run policy 'p' from policy pack 'pack@v0.0.1' during preview: x",
     "can't run policy 'p' from policy pack 'pack@v0.2.0' during preview: x"),
    ("0.2.0", "0.2.0", "from policy pack 'pack@v0.2.0' during", "from policy pack 'pack@v0.2.0' during"),
    ("0.0.1", "0.2.0", "from policy pack 'other@v0.0.1' during", "from policy pack 'other@v0.0.1' during"),
]


@pytest.mark.parametrize(("reported", "displayed", "message", "expected"), ONE_VERSION,
                         ids=["python-pack", "same", "another-pack"])
def test_unknown_messages_name_the_pack_by_its_displayed_version(reported, displayed, message, expected):
    from amlkit.review.pack.driver import Analysis, one_version

    analysis = Analysis("pack", displayed, [], {}, reported_version=reported)
    assert one_version(analysis, message) == expected


def test_the_pack_version_is_amlkits_version_in_every_place_it_is_written():
    import tomllib
    from pathlib import Path

    from amlkit import __version__
    from amlkit.review.engine import default_pack_dir

    root = Path(__file__).resolve().parents[2]
    pyproject = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert pack_version(default_pack_dir(), "0.0.1") == pyproject == __version__
