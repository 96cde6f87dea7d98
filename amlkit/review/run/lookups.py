"""A project's lookups file: answers the offline review may give to lookups (invokes of any provider:
azure-native, the classic azure provider, azuread, random...) and stack references.

`amlkit-lookups.yaml` next to `Pulumi.yaml` (optional). Format version 1::

    version: 1
    invokes:
      - function: azure-native:network:getSubnet      # the function token the program invokes (any provider)
        args: {resourceGroupName: rg-net, virtualNetworkName: vnet, subnetName: snet}
        result: {addressPrefix: 10.0.1.0/24}          # fields of the function's result (wire names)
    stack_references:
      - stack: acme/network/prod                     # the name given to pulumi.StackReference
        outputs: {subnetId: /subscriptions/.../subnets/snet}
    stacks:                                          # per stack of this project (optional)
      prod: {subscriptionId: <guid>, tenantId: <guid>}   # what getClientConfig answers, ids are built in

A stack's subscription and tenant come from its stack file first (`azure-native:subscriptionId` /
`azure-native:tenantId`, or the classic provider's `azure:subscriptionId` / `azure:tenantId`), then from
`stacks.<stack>` here, else from placeholders (`amlkit.review.run.identity`); a `--state` plan says which.

An invoke matches when the token is the same and `args` equals the arguments the program passed
(arguments left out or None are not sent, so leave them out here too). A stack reference matches by
stack name; pinning a stack gives it exactly the outputs listed. The file is committed with the
project, so it never holds credentials: `list*` functions (keys, credentials) and result or output
names that look like credentials are refused.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from amlkit.errors import ConfigError

__all__ = [
    "CREDENTIAL_NAME", "FILE_NAME", "GUID", "IDENTITY_KEYS", "INVOKE_KEYS", "Lookups", "STACK_KEYS", "TOP_KEYS",
    "VERSION", "load_lookups",
]

FILE_NAME = "amlkit-lookups.yaml"
VERSION = 1
TOP_KEYS = ("version", "invokes", "stack_references", "stacks")
IDENTITY_KEYS = ("subscriptionId", "tenantId")
GUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
INVOKE_KEYS = ("function", "args", "result")
STACK_KEYS = ("stack", "outputs")
CREDENTIAL_NAME = re.compile(r"password|secret|token|connectionstring|credential|sas|keys?$", re.IGNORECASE)


@dataclass(frozen=True)
class Lookups:
    """Pinned answers, as loaded from a lookups file (or the JSON the runner receives)."""

    invokes: list[dict[str, Any]] = field(default_factory=list)  # {"function", "args", "result"}
    stack_references: dict[str, dict[str, Any]] = field(default_factory=dict)  # stack -> outputs
    stacks: dict[str, dict[str, str]] = field(default_factory=dict)  # this project's stack -> its ids

    def invoke_result(self, token: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
        for pin in self.invokes:
            if pin["function"] == token and pin["args"] == dict(args):
                return dict(pin["result"])
        return None

    def stack_outputs(self, stack: str) -> dict[str, Any] | None:
        outputs = self.stack_references.get(stack)
        return None if outputs is None else dict(outputs)

    def to_json(self) -> dict[str, Any]:
        return {"invokes": self.invokes, "stack_references": self.stack_references}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Lookups:
        data = data or {}
        return cls(list(data.get("invokes", [])), dict(data.get("stack_references", {})))


def load_lookups(project_dir: Path) -> Lookups | None:
    """The project's lookups file, validated; None when the project has none. Raises ConfigError."""
    path = Path(project_dir) / FILE_NAME
    if not path.is_file():
        return None
    file = str(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise ConfigError(file, "", f"cannot be read as YAML: {error}") from None
    if data is None:
        return Lookups()
    _mapping(file, "", data, TOP_KEYS)
    if data.get("version") != VERSION:
        raise ConfigError(file, "version", f"must be {VERSION}, got {data.get('version')!r}")
    invokes = [_invoke(file, f"invokes[{i}]", item) for i, item in enumerate(_list(file, "invokes", data))]
    seen: set[str] = set()
    for i, pin in enumerate(invokes):
        key = json.dumps([pin["function"], pin["args"]], sort_keys=True)
        if key in seen:
            raise ConfigError(file, f"invokes[{i}]", "pins the same function and args as an earlier entry")
        seen.add(key)
    stacks: dict[str, dict[str, Any]] = {}
    for i, item in enumerate(_list(file, "stack_references", data)):
        where = f"stack_references[{i}]"
        _mapping(file, where, item, STACK_KEYS, required=STACK_KEYS)
        stack = _text(file, f"{where}.stack", item["stack"])
        if stack in stacks:
            raise ConfigError(file, f"{where}.stack", f"stack {stack!r} is pinned by an earlier entry")
        stacks[stack] = _values(file, f"{where}.outputs", item["outputs"])
    return Lookups(invokes, stacks, _identities(file, data.get("stacks")))


def _identities(file: str, value: Any) -> dict[str, dict[str, str]]:
    """`stacks: {<stack>: {subscriptionId, tenantId}}`, each id a GUID."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(file, "stacks", f"must be a mapping of stack names to {{subscriptionId, tenantId}}, got "
                          f"{value!r}")
    identities = {}
    for stack, ids in value.items():
        where = f"stacks.{stack}"
        _mapping(file, where, ids, IDENTITY_KEYS)
        for key, guid in ids.items():
            if not isinstance(guid, str) or not GUID.match(guid):
                raise ConfigError(file, f"{where}.{key}", "must be a GUID (like "
                                  f"00000000-0000-0000-0000-000000000000), got {guid!r}")
        identities[str(stack)] = dict(ids)
    return identities


def _invoke(file: str, where: str, item: Any) -> dict[str, Any]:
    from amlkit.review.run.sdk import function_parts, result_fields, returns_credentials

    _mapping(file, where, item, INVOKE_KEYS, required=INVOKE_KEYS)
    token = _text(file, f"{where}.function", item["function"])
    parts = function_parts(token)
    if parts is None:
        raise ConfigError(file, f"{where}.function",
                          f"{token!r} is not a function token (like azure-native:network:getSubnet, "
                          "azure:core/getClientConfig:getClientConfig or azuread:index/getUser:getUser)")
    if returns_credentials(token):
        raise ConfigError(file, f"{where}.function",
                          f"{token!r} returns keys or credentials; a lookups file never holds credentials")
    fields = result_fields(token)
    if fields is None:
        raise ConfigError(file, f"{where}.function",
                          f"{token!r}: no installed provider SDK has such a function (install the provider the "
                          "program uses)")
    args = item["args"] if item["args"] is not None else {}
    if not isinstance(args, dict):
        raise ConfigError(file, f"{where}.args", f"must be a mapping of argument names to values, got {args!r}")
    result = _values(file, f"{where}.result", item["result"])
    for name, value in result.items():
        if name not in fields:
            problem = f"not a field of {token}'s result{_closest(name, fields)}"
            raise ConfigError(file, f"{where}.result.{name}", problem)
        if fields[name] and not isinstance(value, str):
            raise ConfigError(file, f"{where}.result.{name}", f"must be a string, got {value!r}")
    return {"function": token, "args": args, "result": result}


def _values(file: str, where: str, value: Any) -> dict[str, Any]:
    """A mapping of result or output names to values, none of them named like a credential."""
    if not isinstance(value, dict):
        raise ConfigError(file, where, f"must be a mapping of names to values, got {value!r}")
    for name in value:
        if not isinstance(name, str) or not name:
            raise ConfigError(file, where, f"names must be non-empty strings, got {name!r}")
        if CREDENTIAL_NAME.search(name):
            raise ConfigError(file, f"{where}.{name}",
                              "looks like a credential; a lookups file never holds credentials")
    return dict(value)


def _mapping(file: str, where: str, value: Any, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> None:
    if not isinstance(value, dict):
        raise ConfigError(file, where, f"must be a mapping with keys {', '.join(allowed)}, got {value!r}")
    for key in value:
        if key not in allowed:
            path = f"{where}.{key}" if where else str(key)
            raise ConfigError(file, path, f"unknown key{_closest(str(key), allowed)}; allowed: {', '.join(allowed)}")
    for key in required:
        if key not in value:
            raise ConfigError(file, f"{where}.{key}" if where else key, "is required")


def _list(file: str, key: str, data: dict[str, Any]) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ConfigError(file, key, f"must be a list, got {value!r}")
    return value


def _text(file: str, where: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(file, where, f"must be a non-empty string, got {value!r}")
    return value


def _closest(name: str, known: Any) -> str:
    match = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {match[0]!r}?)" if match else ""
