"""The platform's own stack config (`acme-ml-platform:` keys), validated before anything is declared.

A bad value stops the program with ONE line naming the stack file, the key path, the bad value and
what is allowed (`amlkit.program.StackConfigError`: `pulumi preview` prints it without a traceback,
`amlkit check` exits 2 with it).
"""

from __future__ import annotations

import json
from ipaddress import IPv4Network
from typing import Any, Literal, get_args
from uuid import UUID

import pulumi
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from amlkit.program import StackConfigError

NAMESPACE = "acme-ml-platform"
KEYS = ("tags", "network", "workspace", "clusters", "instances", "scoring", "tenantId")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NetworkConfig(Strict):
    """The spoke network the computes join."""

    addressSpace: IPv4Network  # noqa: N815 - the stack file's key
    computeSubnet: IPv4Network  # noqa: N815
    privateEndpointSubnet: IPv4Network | None = None  # noqa: N815 - the workspace's inbound private endpoint
    lockResourceGroup: bool = False  # noqa: N815

    @model_validator(mode="after")
    def _subnet_inside(self) -> NetworkConfig:
        if not self.computeSubnet.subnet_of(self.addressSpace):
            raise ValueError(f"computeSubnet {self.computeSubnet} must lie inside addressSpace {self.addressSpace}")
        endpoints = self.privateEndpointSubnet
        if endpoints is not None and not endpoints.subnet_of(self.addressSpace):
            raise ValueError(f"privateEndpointSubnet {endpoints} must lie inside addressSpace {self.addressSpace}")
        return self


class WorkspaceConfig(Strict):
    publicNetworkAccess: Literal["Enabled", "Disabled"] = "Disabled"  # noqa: N815
    hbi: bool = True
    lockResources: bool = False  # noqa: N815
    protectData: bool = False  # noqa: N815


class ClusterConfig(Strict):
    name: str = Field(pattern=r"^[a-z][a-z0-9-]{1,9}$")
    size: str = Field(pattern=r"^Standard_[A-Za-z0-9_-]+$")
    maxNodes: int = Field(ge=1, le=100)  # noqa: N815
    priority: Literal["Dedicated", "LowPriority"] = "Dedicated"
    idleSeconds: int = Field(default=120, ge=0, le=3600)  # noqa: N815


class InstanceConfig(Strict):
    """A personal compute instance, stopped when idle and every evening."""

    name: str = Field(pattern=r"^[a-z][a-z0-9-]{2,23}$")
    size: str = Field(pattern=r"^Standard_[A-Za-z0-9_-]+$")
    objectId: UUID  # noqa: N815 - the Entra object id of the person it belongs to
    idleMinutes: int = Field(default=60, ge=15, le=4320)  # noqa: N815


class ScoringConfig(Strict):
    """A managed online endpoint with one deployment serving a model registered in the workspace."""

    model: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*:[0-9]+$")  # `<name>:<version>` of a registered model
    size: str = Field(pattern=r"^Standard_[A-Za-z0-9_-]+$")  # the VM size of each instance
    instances: int = Field(default=1, ge=1)


class PlatformConfig(Strict):
    tags: dict[str, str] = {}
    network: NetworkConfig
    workspace: WorkspaceConfig = WorkspaceConfig()
    clusters: list[ClusterConfig] = Field(min_length=1)
    instances: list[InstanceConfig] = []
    scoring: ScoringConfig | None = None
    tenantId: UUID | None = None  # noqa: N815

    @model_validator(mode="after")
    def _tenant_for_instances(self) -> PlatformConfig:
        if self.instances and self.tenantId is None:
            raise ValueError("tenantId is required when instances are given (the Entra tenant of their users)")
        return self


def load() -> PlatformConfig:
    """The running stack's `acme-ml-platform:` config, validated. Raises StackConfigError."""
    config = pulumi.Config(NAMESPACE)
    file = f"stacks/Pulumi.{pulumi.get_stack()}.yaml"
    for key in _namespace_keys():
        if key not in KEYS:
            raise StackConfigError(file, f"{NAMESPACE}:{key}", f"unknown key; allowed keys: {', '.join(KEYS)}")
    raw: dict[str, Any] = {}
    for key in KEYS:
        text = config.get(key)
        if text is not None:
            raw[key] = _decode(file, key, text)
    return validate(raw, file)


def _namespace_keys() -> list[str]:
    """Every `acme-ml-platform:` key the stack sets (the engine passes them in the environment)."""
    from pulumi.runtime import config as runtime_config

    keys = set(runtime_config.CONFIG.get()) | set(runtime_config.get_config_env())
    return sorted(key.split(":", 1)[1] for key in keys if key.startswith(f"{NAMESPACE}:"))


def location() -> str:
    """`azure-native:location`: the region of every resource. Raises StackConfigError when missing."""
    value = pulumi.Config("azure-native").get("location")
    if not value:
        raise StackConfigError(f"stacks/Pulumi.{pulumi.get_stack()}.yaml", "azure-native:location",
                               "required key is missing; allowed: an Azure region name, e.g. westeurope")
    return value


def validate(raw: dict[str, Any], file: str) -> PlatformConfig:
    try:
        return PlatformConfig.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        raise StackConfigError(file, _key_path(first["loc"]), _problem(first), first.get("input")) from None


def _decode(file: str, key: str, text: str) -> Any:
    """The CLI passes objects and lists JSON-encoded, plain strings (the tenant id) as they are."""
    if key == "tenantId":
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise StackConfigError(file, f"{NAMESPACE}:{key}", f"got {_show(text)}; allowed: a YAML mapping or list",
                               text) from None


def _key_path(loc: tuple[str | int, ...]) -> str:
    path = NAMESPACE
    for index, part in enumerate(loc):
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f"{':' if index == 0 else '.'}{part}"
    return path


def _problem(error: dict[str, Any]) -> str:
    if error["type"] == "missing":
        return "required key is missing"
    if error["type"] == "extra_forbidden":
        return f"unknown key; allowed keys: {', '.join(_model_at(error['loc'][:-1]).model_fields)}"
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "value_error":
        return message
    return f"got {_show(error.get('input'))}; allowed: {message}"


def _model_at(loc: tuple[str | int, ...]) -> type[BaseModel]:
    """The model that holds the key at `loc` (list indexes skipped)."""
    model: type[BaseModel] = PlatformConfig
    for part in loc:
        if isinstance(part, str):
            annotation = model.model_fields[part].annotation
            model = get_args(annotation)[0] if get_args(annotation) else annotation  # list[X] -> X
    return model


def _show(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
