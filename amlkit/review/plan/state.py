"""A deployed stack's state, read from `pulumi stack export` (deployment version 3).

The file is checked against amlkit/data/pulumi_deployment_v3.schema.json (written from Pulumi's
`apitype` definitions, see its `$comment`), then each resource becomes a `StateResource` whose
inputs and outputs are in the engine's wire form, the form the program's registrations have:
a secret is `{SECRET_SIG_KEY: SECRET_SIG, "value": <plaintext value>}`. A secret the export left
encrypted (`ciphertext`, i.e. exported without `--show-secrets`) keeps `ENCRYPTED` as its value:
amlkit never decrypts, so such a value shows as `[secret]` and is not compared.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from amlkit.errors import ConfigError, elide, schema_message, show_value
from amlkit.review.secrets import SECRET_SIG, SECRET_SIG_KEY, is_secret
from amlkit.review.urns import STACK_TYPE, urn_name, urn_owner

__all__ = ["DEPLOYMENT_VERSION", "ENCRYPTED", "SCHEMA", "State", "StateResource", "check_owner", "load_state", "wire"]

ENCRYPTED = "amlkit:encrypted-secret"  # the value of a secret amlkit cannot decrypt
DEPLOYMENT_VERSION = 3
SCHEMA = Path(__file__).resolve().parents[2] / "data" / "pulumi_deployment_v3.schema.json"  # amlkit/data


@dataclass(frozen=True)
class StateResource:
    """One resource of the deployed state (ResourceV3), values in wire form."""

    urn: str
    type: str
    custom: bool = True
    id: str = ""
    parent: str | None = None
    inputs: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    protect: bool = False
    retain_on_delete: bool = False
    external: bool = False
    pending_delete: bool = False  # `delete: true`: an old copy the next update deletes anyway
    provider: str = ""  # the provider reference, `<provider urn>::<provider id>`
    dependencies: tuple[str, ...] = ()
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    ignore_changes: tuple[str, ...] = ()
    additional_secret_outputs: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()  # alias URNs

    @property
    def name(self) -> str:
        return urn_name(self.urn)

    def to_dict(self) -> dict[str, Any]:
        """The fields, for the runner's request (JSON)."""
        return {key: getattr(self, key) for key in self.__dataclass_fields__}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StateResource:
        return cls(**data)


@dataclass(frozen=True)
class State:
    file: str
    project: str
    stack: str
    resources: tuple[StateResource, ...] = ()
    secrets_provider: str = ""

    def by_urn(self) -> dict[str, StateResource]:
        return {r.urn: r for r in self.resources}

    def stack_outputs(self) -> dict[str, Any]:
        root = next((r for r in self.resources if r.type == STACK_TYPE), None)
        return dict(root.outputs) if root else {}


def load_state(path: Path) -> State:
    """Read and check a `pulumi stack export` file; every problem is one ConfigError (exit 2)."""
    file = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(file, "", f"cannot read the state file: {getattr(exc, 'strerror', None) or exc}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(file, "", f"not valid JSON (a truncated or partial export?): {exc.msg} (line "
                          f"{exc.lineno}, column {exc.colno}); expected the output of `pulumi stack export`") from exc
    if not isinstance(data, dict) or "version" not in data:
        raise ConfigError(file, "version", "missing: not a `pulumi stack export` file "
                          "(expected an object with `version` and `deployment`)")
    if data["version"] != DEPLOYMENT_VERSION:
        raise ConfigError(file, "version", f"deployment version {show_value(data['version'])} is not supported: amlkit "
                          f"reads version {DEPLOYMENT_VERSION}, what `pulumi stack export` of Pulumi CLI v3 writes",
                          data["version"])
    _validate(file, data)
    raw = data["deployment"].get("resources") or []
    project, stack = _owner(file, raw)
    provider = (data["deployment"].get("secrets_providers") or {}).get("type", "")
    return State(file, project, stack, tuple(_resource(r) for r in raw), provider)


def check_owner(state: State, project: str, stack: str) -> None:
    """The state must be the given stack's: another stack's state would plan nonsense."""
    if not state.resources or (state.project, state.stack) == (project, stack):
        return
    raise ConfigError(state.file, "deployment.resources[0].urn",
                      f"this is the state of stack {show_value(state.stack)} of project {show_value(state.project)}, "
                      "not of stack "
                      f"{stack!r} of project {project!r}; export it with `pulumi stack export --stack {stack}`")


def _validate(file: str, data: dict[str, Any]) -> None:
    import jsonschema

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        error = errors[0]
        raise ConfigError(file, _key_path(error.absolute_path),
                          f"{schema_message(error)} (not a valid deployment version {DEPLOYMENT_VERSION} state)")


def _key_path(parts: Any) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _owner(file: str, resources: list[dict[str, Any]]) -> tuple[str, str]:
    owners = {urn_owner(r["urn"]) for r in resources}
    if len(owners) > 1:
        listed = ", ".join(f"{elide(stack)} ({elide(project)})" for project, stack in sorted(owners))
        raise ConfigError(file, "deployment.resources", f"resources of several stacks: {listed}")
    return owners.pop() if owners else ("", "")


def _resource(raw: dict[str, Any]) -> StateResource:
    return StateResource(
        urn=raw["urn"], type=raw["type"], custom=bool(raw.get("custom", False)), id=raw.get("id") or "",
        parent=raw.get("parent") or None, inputs=wire(raw.get("inputs") or {}), outputs=wire(raw.get("outputs") or {}),
        protect=bool(raw.get("protect")), retain_on_delete=bool(raw.get("retainOnDelete")),
        external=bool(raw.get("external")), pending_delete=bool(raw.get("delete")),
        provider=raw.get("provider") or "", dependencies=tuple(raw.get("dependencies") or ()),
        property_dependencies={key: list(urns or []) for key, urns in (raw.get("propertyDependencies") or {}).items()},
        ignore_changes=tuple(raw.get("ignoreChanges") or ()),
        additional_secret_outputs=tuple(raw.get("additionalSecretOutputs") or ()),
        aliases=tuple(alias for alias in raw.get("aliases") or () if isinstance(alias, str)),
    )


def wire(value: Any) -> Any:
    """A state property value in the engine's wire form: secrets carry their value (or ENCRYPTED)."""
    if isinstance(value, dict):
        if is_secret(value):
            return {SECRET_SIG_KEY: SECRET_SIG, "value": _secret_value(value)}
        return {key: wire(item) for key, item in value.items()}
    if isinstance(value, list):
        return [wire(item) for item in value]
    return value


def _secret_value(secret: dict[str, Any]) -> Any:
    if "plaintext" in secret and isinstance(secret["plaintext"], str):
        try:
            return wire(json.loads(secret["plaintext"]))
        except json.JSONDecodeError:
            return ENCRYPTED
    if "value" in secret:  # already in wire form
        return wire(secret["value"])
    return ENCRYPTED
