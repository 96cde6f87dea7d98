"""amlkit.review.run.typecache: the fork server fills pulumi's per-class caches (and the runner's) for the types a
project's stacks use, so a child forked after it finds them computed; nothing else changes."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from pulumi import _types
from pulumi_azure_native import authorization, keyvault, storage

from amlkit.review.run import sdk, typecache

CACHES = ("_py_properties", "_raw_return_hints", "_types_from_py_properties")


def _misses(cached: Any) -> int:
    assert isinstance(cached, functools._lru_cache_wrapper)
    return cached.cache_info().misses


@pytest.mark.parametrize(("token", "classes"), [
    ("azure-native:storage:StorageAccount", [storage.StorageAccount, storage.StorageAccountArgs]),
    ("azure-native:keyvault:Vault", [keyvault.Vault, keyvault.VaultArgs, keyvault.outputs.VaultPropertiesResponse]),
    ("azure-native:authorization:getClientConfig", [authorization.GetClientConfigResult]),
])
def test_a_used_type_s_classes_are_computed_before_any_child_needs_them(token: str, classes: list[type]):
    for name in CACHES:  # pure caches: whatever this process computed before is computed again
        getattr(_types, name).cache_clear()
    sdk._fields.cache_clear()
    typecache.warm([token])
    for cls in classes:
        for name in CACHES:
            cached = getattr(_types, name)
            before = _misses(cached)
            cached(cls)
            assert _misses(cached) == before, (name, cls)  # a hit: computed by warm()
    before = _misses(sdk._fields)
    sdk._fields(classes[0])
    assert _misses(sdk._fields) == before


def test_what_no_installed_sdk_has_is_left_alone():
    assert typecache.warm(["amlkit:index:Workspace", "pulumi:pulumi:Stack", "azure-native:nosuch:Thing",
                           "azure:nosuch/thing:Thing", "garbage"]) == 0


def test_the_count_is_of_classes_warmed_once_each():
    count = typecache.warm(["azure-native:storage:StorageAccount", "azure-native:storage:StorageAccount"])
    assert count == typecache.warm(["azure-native:storage:StorageAccount"]) > 2
