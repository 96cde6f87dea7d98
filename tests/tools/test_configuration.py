"""tools/docs/configuration.py: the stack configuration reference (docs/configuration.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import model_validator

from amlkit.errors import ConfigError
from amlkit.schema import ClusterSpec, EnvironmentSpec, Model, TriggerSpec, WorkspaceSpec, validate_environment
from amlkit.stackfile import load_stack_file
from tools.docs.configuration import (
    LOADER_DEFAULTS,
    Row,
    UndocumentedError,
    allowed_of,
    config_reference,
    field_rows,
    model_rules,
    sections,
)


def rows() -> dict[str, Row]:
    return {row.key: row for row in field_rows(EnvironmentSpec)}


def test_a_field_row_and_its_table_line() -> None:
    row = rows()["amlkit:clusters[].max_instances"]
    assert row == Row("amlkit:clusters[].max_instances", "an integer from 1 to 65000", "`1`",
                      "Most nodes the cluster scales to.")
    assert ("| `amlkit:clusters[].max_instances` | an integer from 1 to 65000 | `1` | Most nodes the cluster "
            "scales to. |") in config_reference().splitlines()


@pytest.mark.parametrize(
    ("key", "allowed", "default"),
    [
        pytest.param("azure-native:location", "an Azure public region name such as westeurope, or a name listed in "
                     "amlkit:extraRegions", "**required**",
                     id="location-required"),
        pytest.param("amlkit:environment", "1-63 lowercase letters, digits, `-` or `_`", "the stack name, lowercased",
                     id="environment-loader-default"),
        pytest.param("amlkit:clusters[].tier", "one of `dedicated`, `low_priority`", "`dedicated`", id="choice"),
        pytest.param("amlkit:instances[].idle_time_before_shutdown_minutes",
                     "whole minutes from 15 to 4320", "`60`", id="integer-range"),
        pytest.param("amlkit:clusters[].idle_time_before_scale_down", "a whole number of seconds of at least 0",
                     "`120`", id="integer-open-range"),
        pytest.param("amlkit:workspace.managed_network", "a mapping",
                     "`{isolation_mode: allow_only_approved_outbound}`", id="model-default"),
        pytest.param("amlkit:workspace.managed_network.isolation_mode",
                     "one of `disabled`, `allow_internet_outbound`, `allow_only_approved_outbound`", "**required**",
                     id="nested-required"),
        pytest.param("amlkit:instances[].schedules", "a list of at most 4 items, each a mapping", "`[]`",
                     id="capped-list"),
        pytest.param("amlkit:instances[].schedules[].trigger.schedule.week_days",
                     "a list, each one of `monday`, `tuesday`, `wednesday`, `thursday`, `friday`, `saturday`, "
                     "`sunday`", "`[]`", id="list-of-choices"),
        pytest.param("amlkit:prodLikeEnvironments", "a list, each 1-63 lowercase letters, digits, `-` or `_`",
                     "`[prod, production]`", id="list-default"),
        pytest.param("amlkit:workspace.hub_id",
                     "an ARM id like `/subscriptions/<guid>/resourceGroups/<rg>/providers/"
                     "Microsoft.MachineLearningServices/workspaces/<name>`", "unset", id="arm-id-as-code"),
        pytest.param("amlkit:instances[].schedules[].trigger.expression",
                     "a five-field cron expression `minute hour day-of-month month day-of-week`, e.g. `0 19 * * 1-5`",
                     "unset", id="quoted-examples-as-code"),
        pytest.param("amlkit:clusters[].ssh_settings.admin_password", "a Pulumi secret (a `secure:` value)", "unset",
                     id="secret"),
        pytest.param("amlkit:workspace.container_registry",
                     "true (create one), false (none) or an existing registry's ARM id like `/subscriptions/<guid>/"
                     "resourceGroups/<rg>/providers/Microsoft.ContainerRegistry/registries/<name>`", "`false`",
                     id="bool-or-id"),
    ],
)
def test_allowed_and_default_of_a_key(key: str, allowed: str, default: str) -> None:
    row = rows()[key]
    assert (row.allowed, row.default) == (allowed, default)


def test_every_schema_key_has_exactly_one_row() -> None:
    keys = [row.key for row in field_rows(EnvironmentSpec)]
    assert len(keys) == len(set(keys))
    assert {key for key in keys if key.count(".") == 0 and "[]" not in key} == {
        "azure-native:location", *(f"amlkit:{key}" for key in EnvironmentSpec.accepted_keys() if key != "location")
    }
    assert [key.rsplit(".", 1)[-1] for key in keys if key.startswith("amlkit:clusters[].")
            and key.count(".") == 1] == list(ClusterSpec.model_fields)


def test_a_choice_lists_exactly_the_values_it_accepts() -> None:
    allowed = allowed_of(ClusterSpec.model_fields["tier"])
    assert allowed is not None and allowed.values == ("dedicated", "low_priority")
    for value in allowed.values:
        spec = validate_environment(_environment(clusters=[{"name": "c1", "size": "Standard_DS3_v2", "tier": value}]),
                                    "f.yaml")
        assert spec.clusters[0].tier == value


@pytest.mark.parametrize(
    ("model", "field", "raw", "key_path"),
    [
        pytest.param(ClusterSpec, "tier", {"clusters": [{"name": "c1", "size": "Standard_DS3_v2", "tier": "spot"}]},
                     "amlkit:clusters[0].tier", id="choice"),
        pytest.param(ClusterSpec, "max_instances",
                     {"clusters": [{"name": "c1", "size": "Standard_DS3_v2", "max_instances": 0}]},
                     "amlkit:clusters[0].max_instances", id="integer"),
        pytest.param(ClusterSpec, "size", {"clusters": [{"name": "c1", "size": "Standard_Nope_v9"}]},
                     "amlkit:clusters[0].size", id="vm-size"),
        pytest.param(WorkspaceSpec, "container_registry", {"workspace": {"name": "mlw-1", "container_registry": "yes"}},
                     "amlkit:workspace.container_registry", id="registry"),
        pytest.param(WorkspaceSpec, "hub_id", {"workspace": {"name": "mlw-1", "kind": "project", "hub_id": "hub"}},
                     "amlkit:workspace.hub_id", id="arm-id"),
        pytest.param(TriggerSpec, "expression", {"instances": [{
            "name": "ci-1", "size": "Standard_DS3_v2",
            "schedules": [{"action": "stop", "trigger": {"type": "cron", "expression": "daily"}}]}]},
            "amlkit:instances[0].schedules[0].trigger.expression", id="cron"),
    ],
)
def test_documented_allowed_text_is_the_text_of_the_error(
    model: type[Model], field: str, raw: dict[str, Any], key_path: str
) -> None:
    allowed = allowed_of(model.model_fields[field])
    assert allowed is not None
    with pytest.raises(ConfigError) as caught:
        validate_environment(_environment(**raw), "f.yaml")
    assert caught.value.key_path == key_path
    assert caught.value.problem.endswith(f"; allowed: {allowed.text}")


def test_the_environment_default_is_what_the_loader_does(tmp_path: Path) -> None:
    raw = {f"amlkit:{key}": value for key, value in _environment().items() if key not in ("location", "environment")}
    path = tmp_path / "Pulumi.Staging.yaml"
    path.write_text(yaml.safe_dump({"config": {"azure-native:location": "westeurope", **raw}}), encoding="utf-8")
    assert load_stack_file(path).environment == "staging"
    assert LOADER_DEFAULTS == {"amlkit:environment": "the stack name, lowercased"}


def test_cross_field_rules_come_from_the_validator_docstrings() -> None:
    assert model_rules(TriggerSpec) == [
        "`type: cron` needs `expression` and takes no `frequency`, `interval` or `schedule`.",
        "`type: recurrence` needs `frequency` and `interval` and takes no `expression`.",
    ]
    assert model_rules(EnvironmentSpec)[0] == (
        "Without the workspace's managed network, a cluster or instance without `network_settings.subnet` must say "
        "`enable_node_public_ip: true` (nodes without public IPs need a network)."
    )
    clusters = next(s for s in sections() if s.title == "`amlkit:clusters`")
    assert clusters.rules == (
        "`amlkit:clusters[]`: `min_instances` must be at most `max_instances`.",
        "`amlkit:clusters[]`: `identity.type` cannot be `none` (omit `identity` for no identity).",
        "`amlkit:clusters[]`: `ssh_settings` needs local authentication (`local_auth_enabled` not false).",
        "`amlkit:clusters[].identity`: `user_assigned_identities` is required when `type` is `user_assigned`, and "
        "only read then.",
        "`amlkit:clusters[].ssh_settings`: `ssh_key_value` or a secret `admin_password` is required.",
    )


def test_sections_in_order() -> None:
    assert [s.title for s in sections()] == [
        "Top-level keys", "`amlkit:resourceGroup`", "`amlkit:workspace`", "`amlkit:clusters`", "`amlkit:instances`",
        "`amlkit:attached`",
    ]


class _Undocumented(Model):
    name: str = "x"


class _NoAllowed(Model):
    name: str = "x"
    """A plain str: no Allowed metadata."""


class _NoRuleBullets(Model):
    @model_validator(mode="after")
    def _check(self) -> _NoRuleBullets:
        """Checks something, but says not what."""
        return self


@pytest.mark.parametrize(
    ("call", "message"),
    [
        pytest.param(lambda: list(field_rows(_Undocumented, "amlkit:x")),
                     "amlkit:x.name: the field has no docstring in amlkit/schema/", id="no-docstring"),
        pytest.param(lambda: list(field_rows(_NoAllowed, "amlkit:x")),
                     "amlkit:x.name: its type carries no amlkit.schema.Allowed metadata", id="no-allowed"),
        pytest.param(lambda: model_rules(_NoRuleBullets),
                     "_NoRuleBullets._check: no '- ' rule bullets in its docstring", id="no-rules"),
    ],
)
def test_missing_documentation_fails_generation(call: Any, message: str) -> None:
    with pytest.raises(UndocumentedError) as caught:
        call()
    assert str(caught.value) == message


def _environment(**changes: Any) -> dict[str, Any]:
    """A valid environment (keys as under `amlkit:`) with top-level keys replaced."""
    raw: dict[str, Any] = {
        "location": "westeurope",
        "environment": "test",
        "resourceGroup": {"name": "rg-ml-test"},
        "workspace": {"name": "mlw-test"},
    }
    return {**raw, **changes}
