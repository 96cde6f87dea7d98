"""Build `pulumi stack export` files from a program's own registrations, for plan tests and for the tests
that need the concrete ids a deployed stack has (`deployed_state`: what `pulumi up` of the program would
leave; a review against it sees every resource `same`, with its deployed outputs)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from amlkit.review.arm import arm_id, physical_name
from amlkit.review.project import load_project, load_stack_config
from amlkit.review.run.mocks import shaped_identity
from amlkit.review.secrets import SECRET_SIG, SECRET_SIG_KEY, UNKNOWN

PRINCIPAL = "22222222-2222-2222-2222-222222222222"  # what Azure returned as an identity's principalId
MANIFEST = {"time": "2026-11-20T10:00:00Z", "magic": "0" * 64, "version": "v3.272.0"}


def exported(value: Any, encrypted: bool = False) -> Any:
    """A wire-form value as `pulumi stack export` writes it: secrets as plaintext (--show-secrets) or
    ciphertext."""
    if isinstance(value, dict) and value.get(SECRET_SIG_KEY) == SECRET_SIG:
        if encrypted:
            return {SECRET_SIG_KEY: SECRET_SIG, "ciphertext": "v1:AAAAbm90LWRlY3J5cHRhYmxl"}
        return {SECRET_SIG_KEY: SECRET_SIG, "plaintext": json.dumps(value["value"])}
    if isinstance(value, dict):
        return {key: exported(item, encrypted) for key, item in value.items()}
    if isinstance(value, list):
        return [exported(item, encrypted) for item in value]
    return PRINCIPAL if value == UNKNOWN else value  # deployed: the only unknown input is a principalId


def state_resources(records: Iterable[Mapping[str, Any]], project: str, stack: str,
                    encrypted: bool = False) -> list[dict[str, Any]]:
    """The root Stack, the default azure-native provider, then one ResourceV3 per registration."""
    stack_urn = f"urn:pulumi:{stack}::{project}::pulumi:pulumi:Stack::{project}-{stack}"
    provider = f"urn:pulumi:{stack}::{project}::pulumi:providers:azure-native::default_3_29_0"
    resources: list[dict[str, Any]] = [
        {"urn": stack_urn, "type": "pulumi:pulumi:Stack", "custom": False, "outputs": {}},
        {"urn": provider, "type": "pulumi:providers:azure-native", "custom": True, "id": "prov-id",
         "inputs": {"version": "3.29.0"}, "outputs": {"version": "3.29.0"}, "parent": stack_urn},
    ]
    for r in records:
        inputs = exported(r["inputs"], encrypted)
        entry: dict[str, Any] = {"urn": r["urn"], "type": r["type"], "custom": r["custom"],
                                 "parent": r["parent"] or stack_urn, "inputs": inputs}
        if r["custom"]:
            name = physical_name(r["type"], r["name"], r["inputs"])
            entry["id"] = arm_id(r["type"], name, r["inputs"])
            entry["outputs"] = {"location": "westeurope", **inputs, "id": entry["id"], "name": name}
            if "identity" in inputs:  # as Azure shapes them (user identities as a map, a system one's principal)
                entry["outputs"]["identity"] = shaped_identity(inputs["identity"], r["name"])
            if r["type"].endswith(":UserAssignedIdentity"):
                entry["outputs"].update(principalId=PRINCIPAL, clientId=PRINCIPAL, tenantId=PRINCIPAL)
            entry["provider"] = f"{provider}::prov-id"
        for option, key in (("protect", "protect"), ("retainOnDelete", "retainOnDelete")):
            if r["options"].get(option):
                entry[key] = True
        resources.append(entry)
    return resources


def deployed_records(program: Path, stack: str) -> tuple[str, list[dict[str, Any]]]:
    """(project name, the program's registrations as `pulumi up` would make them: every output known)."""
    from tests.review.helpers import normalized, run_runner

    project = load_project(program)
    config = load_stack_config(project, stack)
    request = {"program": str(project.main), "project": project.name, "stack": stack, "config": config.values,
               "secret_keys": list(config.secret_keys), "deployed": True}
    answer = run_runner(request)
    assert "resources" in answer, f"the program failed as deployed ({program}, stack {stack}): {answer['error']}"
    return project.name, normalized(answer["resources"])


def deployed_state(program: Path, stack: str, directory: Path) -> Path:
    """A state export of the program as deployed, written to `directory/<stack>.json`."""
    project, records = deployed_records(program, stack)
    return write_state(Path(directory) / f"{stack}.json", state_resources(records, project, stack))


def find(resources: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """The state resource with this logical name."""
    (found,) = [r for r in resources if r["urn"].rsplit("::", 1)[-1] == name]
    return found


def write_state(path: Path, resources: list[dict[str, Any]], version: int = 3) -> Path:
    data = {"version": version, "deployment": {"manifest": MANIFEST,
                                               "secrets_providers": {"type": "passphrase"},
                                               "resources": resources}}
    path.write_text(json.dumps(data, indent=2))
    return path
