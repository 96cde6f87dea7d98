"""`amlkit.scaffold`: answer checks, defaults, stack file location and the rendered stack file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from amlkit.errors import ConfigError, UsageError
from amlkit.scaffold import (
    CHECKS,
    StackAnswers,
    default_environment,
    default_resource_group,
    default_workspace_name,
    render_stack_file,
    stack_file_path,
    write_stack_file,
)
from amlkit.stackfile import load_stack_file

ANSWERS = StackAnswers(stack="dev", location="westeurope", environment="dev", resource_group="rg-ml-dev",
                       workspace_name="mlw-dev", cluster_size="Standard_D4ds_v5")


@pytest.mark.parametrize(("field", "value"), [
    ("stack", "dev"), ("stack", "team.prod-2"), ("location", "westeurope"), ("environment", "prod_eu"),
    ("resource_group", "rg-ml.prod(1)"), ("workspace_name", "mlw-prod"), ("cluster_size", "standard_d4ds_v5"),
    ("cluster_size", "Standard_NC4as_T4_v3"),
])
def test_good_answers_pass(field: str, value: str) -> None:
    assert CHECKS[field](value) == value


@pytest.mark.parametrize(("field", "value", "message"), [
    ("stack", "", "stack: got ''; allowed: 1-100 letters, digits, '-', '_' or '.'"),
    ("location", "West Europe", "azure-native:location: got 'West Europe'; allowed: an Azure public region name "
     "such as westeurope, or a name listed in amlkit:extraRegions; did you mean 'westeurope'?"),
    ("location", "westeurop", "azure-native:location: got 'westeurop'; allowed: an Azure public region name "
     "such as westeurope, or a name listed in amlkit:extraRegions; did you mean 'westeurope'?"),
    ("environment", "-dev", "amlkit:environment: got '-dev'; allowed: 1-63 lowercase letters, digits, '-' or '_'"),
    ("resource_group", "rg.", "amlkit:resourceGroup.name: got 'rg.'; allowed: 1-90 letters, digits, '-', '_', "
     "'.', '(' or ')', not ending with '.'"),
    ("workspace_name", "ab", "amlkit:workspace.name: got 'ab'; allowed: 3-33 letters, digits, hyphens and "
     "underscores, starting with a letter or digit"),
    ("cluster_size", "Standard_Foo", "amlkit:clusters[0].size: got 'Standard_Foo'; allowed: a known Azure VM size "
     "name, e.g. Standard_D4ds_v5"),
    ("cluster_size", "Standard_NC6", "amlkit:clusters[0].size: got 'Standard_NC6': retired on 2023-09-06 (its "
     "successors: NCasT4_v3), so the stack would fail its own check; allowed: a size of the default approved series "
     "(`amlkit sizes --approved`), e.g. Standard_D4ds_v5"),
    ("cluster_size", "standard_ds3_v2", "amlkit:clusters[0].size: got 'standard_ds3_v2': retiring on 2028-05-01 "
     "(its successors: Dsv5, Ddsv5, Dasv5, Dadsv5, Dasv6, Dadsv6, Dsv6, Ddsv6, Dasv7, Dadsv7, Esv6, Edsv6, Easv6, "
     "Eadsv6, Easv7, Eadsv7), so the stack would fail its own check; allowed: a size of the default approved series "
     "(`amlkit sizes --approved`), e.g. Standard_D4ds_v5"),
    ("cluster_size", "Standard_ND40rs_v2", "amlkit:clusters[0].size: got 'Standard_ND40rs_v2': approval-required: "
     "allowed only by config, so the stack would fail its own check; allowed: a size of the default approved series "
     "(`amlkit sizes --approved`), e.g. Standard_D4ds_v5"),
])
def test_bad_answers_name_the_key_value_and_what_is_allowed(field: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        CHECKS[field](value)
    assert str(caught.value) == message


def test_defaults_follow_the_environment() -> None:
    assert default_environment("Prod") == "prod"
    assert default_environment("team.prod") == "dev"
    assert default_resource_group("prod") == "rg-ml-prod"
    assert default_workspace_name("prod") == "mlw-prod"
    assert default_workspace_name("a" * 40) == "mlw-" + "a" * 29


def test_rendered_file_has_secure_defaults_and_loads(tmp_path: Path) -> None:
    text = render_stack_file(ANSWERS)
    assert text.startswith("# dev: created by `amlkit init`.")
    config = yaml.safe_load(text)["config"]
    assert config["amlkit:workspace"] == {"name": "mlw-dev", "public_network_access": "disabled",
                                          "managed_network": {"isolation_mode": "allow_only_approved_outbound"}}
    assert config["amlkit:clusters"] == [{
        "name": "cpu-cluster", "size": "Standard_D4ds_v5", "min_instances": 0, "max_instances": 4,
        "idle_time_before_scale_down": 120, "tier": "dedicated", "enable_node_public_ip": False,
        "ssh_public_access_enabled": False,
    }]
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(text, encoding="utf-8")
    spec = load_stack_file(path)
    assert (spec.location, spec.environment, spec.protect_data) == ("westeurope", "dev", False)


def test_stack_file_goes_to_the_stack_config_dir(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\nstackConfigDir: config/stacks\n",
                                          encoding="utf-8")
    assert stack_file_path(tmp_path, "prod") == tmp_path / "config" / "stacks" / "Pulumi.prod.yaml"


def test_bad_stack_config_dir_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: p\nstackConfigDir: [a]\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        stack_file_path(tmp_path, "prod")
    assert str(caught.value) == (f"{tmp_path / 'Pulumi.yaml'}: stackConfigDir: got a list; allowed: a directory path "
                                 "relative to Pulumi.yaml")


def test_write_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    path = tmp_path / "stacks" / "Pulumi.dev.yaml"
    write_stack_file(path, "first\n", force=False)
    with pytest.raises(UsageError, match=r"already exists; pass --force to overwrite it$"):
        write_stack_file(path, "second\n", force=False)
    assert path.read_text(encoding="utf-8") == "first\n"
    write_stack_file(path, "second\n", force=True)
    assert path.read_text(encoding="utf-8") == "second\n"


def test_default_cluster_size_is_current_approved_and_unrestricted() -> None:
    import datetime

    from amlkit.scaffold import DEFAULT_CLUSTER_SIZE
    from amlkit.vmsizes import default_approved_series, parse_vm_size, status

    size = parse_vm_size(DEFAULT_CLUSTER_SIZE)
    assert (size.name, size.family.series, size.family.capacity_restricted) == ("Standard_D4ds_v5", "Ddsv5", None)
    assert size.family.series in default_approved_series()
    assert status(size, datetime.date(2030, 1, 1)) == "current"
