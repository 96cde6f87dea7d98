"""docs/configuration.md, from `amlkit.schema`: every key path of a stack's `amlkit:` config with what it
allows (the `Allowed` metadata of its validated type, the same words as its errors), its default, and its
description (the field's docstring); then the cross-field rules (the bullets of each model validator's
docstring)."""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from amlkit.errors import AmlkitError
from amlkit.schema import SECRET_PATHS, Allowed, EnvironmentSpec, Model
from tools.docs.markdown import GENERATED, REQUIRED, UNSET, cell, inline, table

LOCATION_KEY = "azure-native:location"
LOADER_DEFAULTS = {"amlkit:environment": "the stack name, lowercased"}
"""Defaults the stack loaders fill in before validation (`amlkit.stackfile`), by key path."""


@dataclass(frozen=True)
class Row:
    """One key path of the configuration reference (Markdown in every cell)."""

    key: str
    allowed: str
    default: str
    description: str

    def cells(self) -> list[str]:
        return [f"`{self.key}`", self.allowed, self.default, self.description]


@dataclass(frozen=True)
class Section:
    title: str
    rows: tuple[Row, ...]
    rules: tuple[str, ...]


class UndocumentedError(AmlkitError):
    """The schema lacks what the reference needs (a field docstring, Allowed metadata, rule bullets)."""


def top_level_key(name: str, field: FieldInfo) -> str:
    """`location` -> `azure-native:location`; `resource_group` -> `amlkit:resourceGroup`."""
    return LOCATION_KEY if name == "location" else f"amlkit:{field.alias or name}"


def _without_none(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        args = [arg for arg in get_args(annotation) if arg is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _split(annotation: Any, metadata: Sequence[Any] = ()) -> tuple[Any, Allowed | None]:
    """(the type without Optional and Annotated, its Allowed metadata or None)."""
    annotation = _without_none(annotation)
    extra: list[Any] = list(metadata)
    if get_origin(annotation) is Annotated:
        base, *more = get_args(annotation)
        return _split(base, [*extra, *more])
    allowed = next((item for item in extra if isinstance(item, Allowed)), None)
    return annotation, allowed


def allowed_of(field: FieldInfo) -> Allowed | None:
    """The `Allowed` metadata of a field's validated type (through Optional and Annotated), or None."""
    return _split(field.annotation, field.metadata)[1]


def _model(annotation: Any) -> type[Model] | None:
    return annotation if isinstance(annotation, type) and issubclass(annotation, Model) else None


def _list_item(annotation: Any) -> Any | None:
    return get_args(annotation)[0] if get_origin(annotation) is list else None


def _map_item(annotation: Any) -> Any | None:
    return get_args(annotation)[1] if get_origin(annotation) is dict else None


def allowed_text(annotation: Any, metadata: Sequence[Any] = (), key: str = "") -> str:
    """What a value may be, as Markdown: a choice's values, a range, a pattern's words, a mapping."""
    base, allowed = _split(annotation, metadata)
    if _model(base):
        return "a mapping"
    if allowed is None:
        raise UndocumentedError(f"{key}: its type carries no amlkit.schema.Allowed metadata")
    item = _list_item(base)
    if item is not None:
        return f"{inline(allowed.text)}, each {allowed_text(item, key=key + '[]')}"
    if allowed.values:
        return "one of " + ", ".join(f"`{value}`" for value in allowed.values)
    return inline(allowed.text)


def _flow(value: Any) -> str:
    """A default in YAML flow style."""
    if isinstance(value, Model):
        return _flow(value.model_dump(exclude_defaults=True))
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{key}: {_flow(item)}" for key, item in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    return str(value)


def default_text(field: FieldInfo, key: str) -> str:
    if key in LOADER_DEFAULTS:
        return LOADER_DEFAULTS[key]
    if field.default is PydanticUndefined and field.default_factory is None:
        return REQUIRED
    default = field.get_default(call_default_factory=True)
    return UNSET if default is None else f"`{_flow(default)}`"


def field_rows(model: type[Model], prefix: str | None = None) -> Iterator[Row]:
    """Rows for every key of `model` and of the models nested in it, depth first, in field order.

    `prefix` None means the top level (`EnvironmentSpec`), whose keys are stack config keys.
    """
    for name, field in model.model_fields.items():
        yield from _rows(field, top_level_key(name, field) if prefix is None else f"{prefix}.{name}")


def _rows(field: FieldInfo, key: str) -> Iterator[Row]:
    """The row of one field, then the rows of the models nested in it."""
    if not field.description:
        raise UndocumentedError(f"{key}: the field has no docstring in amlkit/schema/")
    yield Row(key, allowed_text(field.annotation, field.metadata, key), default_text(field, key),
              cell(field.description))
    for child, child_prefix in _nested(field, key):
        yield from field_rows(child, child_prefix)


def _nested(field: FieldInfo, key: str) -> list[tuple[type[Model], str]]:
    base, _ = _split(field.annotation, field.metadata)
    model = _model(base)
    if model:
        return [(model, key)]
    item = _list_item(base)
    if item is not None:
        item_model = _model(_split(item)[0])
        if item_model:
            return [(item_model, f"{key}[]")]
    entry = _map_item(base)
    if entry is not None and _model(_split(entry)[0]):
        return [(_model(_split(entry)[0]), f"{key}.<key>")]  # type: ignore[list-item]
    return []


def model_rules(model: type[Model]) -> list[str]:
    """The cross-field rules of a model: the `- ` bullets of its after-validators' docstrings."""
    rules: list[str] = []
    for decorator in model.__pydantic_decorators__.model_validators.values():
        if decorator.info.mode != "after":
            continue
        doc = inspect.getdoc(decorator.func) or ""
        bullets = _bullets(doc)
        if not bullets:
            raise UndocumentedError(f"{model.__name__}.{decorator.cls_var_name}: no '- ' rule bullets in its "
                                    "docstring")
        rules += bullets
    return rules


def _bullets(doc: str) -> list[str]:
    bullets: list[str] = []
    for line in doc.splitlines():
        if line.startswith("- "):
            bullets.append(line[2:].strip())
        elif bullets and line.startswith("  ") and line.strip():
            bullets[-1] += " " + line.strip()
    return bullets


def _models_under(model: type[Model], path: str) -> Iterator[tuple[type[Model], str]]:
    yield model, path
    for name, field in model.model_fields.items():
        for child, child_path in _nested(field, f"{path}.{name}"):
            yield from _models_under(child, child_path)


def sections() -> list[Section]:
    """One section per top-level mapping or list of mappings; the other top-level keys come first."""
    general: list[Row] = []
    grouped: list[Section] = []
    for name, field in EnvironmentSpec.model_fields.items():
        key = top_level_key(name, field)
        rows = list(_rows(field, key))
        nested = _nested(field, key)
        if not nested:
            general += rows
            continue
        model, path = nested[0]
        rules = [f"`{where}`: {rule}" for child, where in _models_under(model, path) for rule in model_rules(child)]
        grouped.append(Section(f"`{key}`", tuple(rows), tuple(rules)))
    top = Section("Top-level keys", tuple(general), tuple(model_rules(EnvironmentSpec)))
    return [top, *grouped]


def config_reference() -> str:
    """The configuration reference block (Markdown)."""
    lines = [
        "Generated from `amlkit/schema/`. Keys go under `config:` in `stacks/Pulumi.<stack>.yaml`; nested",
        "keys use the az ml CLI v2 YAML names, and choices accept the az ml spellings too (`low_priority`,",
        "`LowPriority`, `low-priority`). Unknown keys are refused. `unset` means the key may be left out;",
        f"{REQUIRED} inside an optional mapping means required when that mapping is given. A value under a",
        "credential-like key (`password`, `secret`, `token`, `account_key`, `sas_token`...) must be a Pulumi",
        "secret (`pulumi config set --secret --path <key> <value>`); amlkit reads secrets only at",
        ", ".join(f"`{path}`" for path in SECRET_PATHS) + ".",
    ]
    for section in sections():
        lines += ["", f"### {section.title}", ""]
        lines += table(("Key", "Allowed", "Default", "Description"), [row.cells() for row in section.rows])
        if section.rules:
            lines += ["", "Cross-field rules:", ""]
            lines += [f"- {rule}" for rule in section.rules]
    return "\n".join(lines)


def configuration_page() -> str:
    return "\n".join([GENERATED, "", "# Stack configuration reference", "", config_reference()]) + "\n"
