"""`amlkit init`: scaffold a stack file `Pulumi.<stack>.yaml` with secure defaults.

Each answer is checked with the stack schema's own validators (`amlkit.schema`) as soon as it is
given, so the CLI can re-prompt interactively or stop with exit 2 in scripts. The file goes to the
project's `stackConfigDir` (as `Pulumi.yaml` says; the project directory when it says nothing), an
existing stack file is never overwritten without `force`, and the result loads with
`amlkit.stackfile.load_stack_file`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter, ValidationError

from amlkit import azure_facts as facts
from amlkit import schema, vmsizes
from amlkit.errors import ConfigError, UsageError
from amlkit.policies.framework import review_date
from amlkit.review.project import find_project_file, load_project

__all__ = [
    "CHECKS", "DEFAULT_CLUSTER_SIZE", "DEFAULT_LOCATION", "StackAnswers", "check_cluster_size", "check_environment",
    "check_location", "check_resource_group", "check_stack", "check_workspace_name", "default_environment",
    "default_resource_group", "default_workspace_name", "render_stack_file", "stack_config_dir", "stack_file_path",
    "write_stack_file",
]

DEFAULT_LOCATION = "westeurope"
DEFAULT_CLUSTER_SIZE = "Standard_D4ds_v5"
_STACK_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")


@dataclass(frozen=True)
class StackAnswers:
    """Everything `amlkit init` asks, already validated."""

    stack: str
    location: str
    environment: str
    resource_group: str
    workspace_name: str
    cluster_size: str


def _check(annotated: Any, value: str, key: str) -> str:
    """Validate one value with a schema type; ConfigError(key, 'got ...; allowed: ...') otherwise."""
    try:
        return str(TypeAdapter(annotated).validate_python(value))
    except ValidationError as error:
        detail = error.errors()[0]
        ctx = detail.get("ctx") or {}
        problem = f"got {ctx['got']}; allowed: {ctx['allowed']}{ctx.get('hint', '')}" if "got" in ctx else detail["msg"]
        raise ConfigError(None, key, problem) from None


def check_stack(value: str) -> str:
    """A Pulumi stack name: 1-100 letters, digits, '-', '_' or '.'."""
    if not _STACK_NAME.fullmatch(value):
        raise ConfigError(None, "stack", f"got {value!r}; allowed: 1-100 letters, digits, '-', '_' or '.'")
    return value


def check_location(value: str) -> str:
    return _check(schema.Region, value, "azure-native:location")


def check_environment(value: str) -> str:
    return _check(schema.EnvironmentName, value, "amlkit:environment")


def check_resource_group(value: str) -> str:
    return _check(schema.ResourceGroupName, value, "amlkit:resourceGroup.name")


def check_workspace_name(value: str) -> str:
    return _check(schema.WorkspaceName, value, "amlkit:workspace.name")


def check_cluster_size(value: str) -> str:
    """A VM size the pack's defaults approve (a retired, retiring or otherwise excluded series would make the
    scaffolded stack fail its own check), named by the VM catalogue (`amlkit.vmsizes`)."""
    size = _check(schema.VmSize, value, "amlkit:clusters[0].size")
    vm = vmsizes.parse_vm_size(size)
    why = vmsizes.default_exclusion(vm.family)
    if vm.retirement is not None:
        why = f"{vmsizes.status(vm, review_date())} on {vm.retirement.text}"
    if not why:
        return size
    successors = f" (its successors: {', '.join(vm.family.successors)})" if vm.family.successors else ""
    raise ConfigError(None, "amlkit:clusters[0].size", f"got {size!r}: {why}{successors}, so the stack would fail "
                      f"its own check; allowed: a size of the default approved series (`amlkit sizes --approved`), "
                      f"e.g. {DEFAULT_CLUSTER_SIZE}")


CHECKS: dict[str, Callable[[str], str]] = {
    "stack": check_stack,
    "location": check_location,
    "environment": check_environment,
    "resource_group": check_resource_group,
    "workspace_name": check_workspace_name,
    "cluster_size": check_cluster_size,
}
"""The validator of each answer, by StackAnswers field."""


def default_environment(stack: str) -> str:
    """The stack name in lowercase when it is a valid environment name, else `dev`."""
    candidate = stack.lower()
    try:
        return check_environment(candidate)
    except ConfigError:
        return "dev"


def default_workspace_name(environment: str) -> str:
    return f"mlw-{environment}"[:33].rstrip("-_")


def default_resource_group(environment: str) -> str:
    return f"rg-ml-{environment}"


def stack_config_dir(project_dir: Path) -> Path:
    """Where the project keeps its stack files: `stackConfigDir` of Pulumi.yaml, else the project dir."""
    if find_project_file(project_dir) is None:
        raise UsageError(f"{project_dir}: no Pulumi.yaml (run amlkit init in a Pulumi project, or pass "
                         "--project-dir)")
    return load_project(project_dir).stack_config_dir


def stack_file_path(project_dir: Path, stack: str) -> Path:
    return stack_config_dir(project_dir) / f"Pulumi.{stack}.yaml"


def render_stack_file(answers: StackAnswers) -> str:
    """The stack file: private workspace, managed network, one scale-to-zero cluster without public IPs."""
    config: dict[str, Any] = {
        "azure-native:location": answers.location,
        "amlkit:environment": answers.environment,
        "amlkit:resourceGroup": {"name": answers.resource_group},
        "amlkit:workspace": {
            "name": answers.workspace_name,
            "public_network_access": "disabled",
            "managed_network": {"isolation_mode": "allow_only_approved_outbound"},
        },
        "amlkit:clusters": [{
            "name": "cpu-cluster",
            "size": answers.cluster_size,
            "min_instances": 0,
            "max_instances": 4,
            "idle_time_before_scale_down": facts.CLUSTER_IDLE_SECONDS_DEFAULT,
            "tier": "dedicated",
            "enable_node_public_ip": False,
            "ssh_public_access_enabled": False,
        }],
    }
    header = (f"# {answers.stack}: created by `amlkit init`. A private workspace behind a managed network with\n"
              "# approved outbound only, and one cluster that scales to zero, without public IPs or public SSH.\n"
              "# Review it with `amlkit check`.\n")
    return header + yaml.safe_dump({"config": config}, sort_keys=False, default_flow_style=False, width=120)


def write_stack_file(path: Path, text: str, force: bool) -> None:
    """Write the stack file; an existing one only with `force`."""
    if path.exists() and not force:
        raise UsageError(f"{path} already exists; pass --force to overwrite it")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"{path}: cannot write the stack file: {error.strerror or error}") from None
