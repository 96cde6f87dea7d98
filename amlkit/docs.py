"""Reference documentation generated from the code, kept in README.md between marker comments.

- The configuration reference comes from `amlkit.schema`: every key path of a stack's `amlkit:`
  config with what it allows (the `Allowed` metadata of its validated type, the same words as its
  errors), its default, and its description (the field's docstring); then the cross-field rules (the
  bullets of each model validator's docstring).
- The rule reference comes from `amlkit.policies.ALL_RULES`: level, severity, tags, description,
  remediation, source and config knobs of every rule.
- The component reference (docs/components.md) comes from the components' Args TypedDicts: every
  argument with its type, default, doc (the field's docstring) and the ARM input it sets (the
  module's `ARGS`), every nested type, and every output.

`python -m amlkit.docs --write README.md` (or `docs/components.md`) replaces the text between
`<!-- BEGIN GENERATED: <block> ... -->` and `<!-- END GENERATED: <block> -->` (and nothing else) of
each block the file holds; `--check FILE` exits 1 with a diff when a block is stale.
`tests/test_docs.py` runs the check on both files.
"""

from __future__ import annotations

import argparse
import difflib
import inspect
import json
import os
import re
import sys
import tempfile
import types
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from amlkit.errors import AmlkitError, UsageError
from amlkit.policies import ALL_RULES
from amlkit.policies.framework import WAIVER_SCHEMA, Rule
from amlkit.schema import SECRET_PATHS, Allowed, EnvironmentSpec, Model

BLOCKS = ("config-reference", "rule-reference")
"""The README's blocks."""
COMPONENT_BLOCKS = ("component-reference",)
"""The blocks of docs/components.md."""
ALL_BLOCKS = BLOCKS + COMPONENT_BLOCKS
LOCATION_KEY = "azure-native:location"
LOADER_DEFAULTS = {"amlkit:environment": "the stack name, lowercased"}
"""Defaults the stack loaders fill in before validation (`amlkit.stackfile`), by key path."""
REQUIRED = "**required**"
UNSET = "unset"


# --- Markdown text ---------------------------------------------------------------------------------

_CODE_SPAN = re.compile(r"(`[^`]*`)")
_QUOTED = re.compile(r"(?<!\w)'([^'\s][^']*)'(?!\w)")
_LITERAL_TOKEN = re.compile(r"<[A-Za-z/]|\*|^/\S|^https?://|^_|_$")
"""Words that Markdown would read as HTML, emphasis or a link: shown as code."""
_PUNCTUATION = "(),.;:"


def _inline(text: str) -> str:
    """Plain prose for Markdown: quoted examples, ids and symbols become code; one line."""
    text = _QUOTED.sub(lambda m: f"`{m[1]}`", " ".join(text.split()))
    parts = _CODE_SPAN.split(text)
    return "".join(part if part.startswith("`") else _code_tokens(part) for part in parts)


def _code_tokens(text: str) -> str:
    words = []
    for word in text.split(" "):
        core = word.strip(_PUNCTUATION)
        if core and _LITERAL_TOKEN.search(core):
            start = word.index(core)
            word = f"{word[:start]}`{core}`{word[start + len(core):]}"
        words.append(word)
    return " ".join(words)


def _cell(text: str) -> str:
    """Text safe in a table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(cell) for cell in row) + " |" for row in rows]
    return lines


# --- configuration reference -----------------------------------------------------------------------


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


def allowed_text(annotation: Any, metadata: Sequence[Any] = (), key: str = "") -> str:
    """What a value may be, as Markdown: a choice's values, a range, a pattern's words, a mapping."""
    base, allowed = _split(annotation, metadata)
    if _model(base):
        return "a mapping"
    if allowed is None:
        raise UndocumentedError(f"{key}: its type carries no amlkit.schema.Allowed metadata")
    item = _list_item(base)
    if item is not None:
        return f"{_inline(allowed.text)}, each {allowed_text(item, key=key + '[]')}"
    if allowed.values:
        return "one of " + ", ".join(f"`{value}`" for value in allowed.values)
    return _inline(allowed.text)


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
        raise UndocumentedError(f"{key}: the field has no docstring in amlkit/schema.py")
    yield Row(key, allowed_text(field.annotation, field.metadata, key), default_text(field, key),
              _cell(field.description))
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
        "Generated from `amlkit/schema.py`. Keys go under `config:` in `stacks/Pulumi.<stack>.yaml`; nested",
        "keys use the az ml CLI v2 YAML names, and choices accept the az ml spellings too (`low_priority`,",
        "`LowPriority`, `low-priority`). Unknown keys are refused. `unset` means the key may be left out;",
        f"{REQUIRED} inside an optional mapping means required when that mapping is given. A value under a",
        "credential-like key (`password`, `secret`, `token`, `account_key`, `sas_token`...) must be a Pulumi",
        "secret (`pulumi config set --secret --path <key> <value>`); amlkit reads secrets only at",
        ", ".join(f"`{path}`" for path in SECRET_PATHS) + ".",
    ]
    for section in sections():
        lines += ["", f"### {section.title}", ""]
        lines += _table(("Key", "Allowed", "Default", "Description"), [row.cells() for row in section.rows])
        if section.rules:
            lines += ["", "Cross-field rules:", ""]
            lines += [f"- {rule}" for rule in section.rules]
    return "\n".join(lines)


# --- rule reference --------------------------------------------------------------------------------

_KNOWN_SCHEMA_KEYS = frozenset({
    "type", "description", "default", "minimum", "maximum", "pattern", "enum", "items", "minItems",
    "maxItems", "uniqueItems", "minLength", "maxLength", "additionalProperties", "properties", "required",
})


def knob_type(spec: Mapping[str, Any], knob: str = "") -> str:
    """A JSON-schema property in words, e.g. `integer, at least 1` or `list of: Dedicated, LowPriority`."""
    unknown = sorted(set(spec) - _KNOWN_SCHEMA_KEYS)
    if unknown:
        raise UndocumentedError(f"{knob}: JSON-schema keyword(s) the rule reference cannot show: {', '.join(unknown)}")
    kind = spec.get("type")
    if "enum" in spec:
        text = "one of " + ", ".join(f"`{value}`" for value in spec["enum"])
    elif kind == "array":
        text = "list of " + knob_type(spec.get("items", {}), knob)
    elif kind == "object" and "properties" in spec:  # a record: its keys (each documented where it is used)
        text = "object with keys " + ", ".join(f"`{key}`" for key in spec["properties"])
        text += f" (required: {', '.join(f'`{key}`' for key in spec['required'])})" if spec.get("required") else ""
    elif kind == "object":
        text = "mapping of text to " + knob_type(spec.get("additionalProperties", {}), knob)
    elif kind in ("integer", "string", "number", "boolean"):
        text = {"string": "text"}.get(kind, kind)
    else:
        raise UndocumentedError(f"{knob}: JSON-schema type {kind!r} the rule reference cannot show")
    return text + _limits(spec)


def _limits(spec: Mapping[str, Any]) -> str:
    low, high = spec.get("minimum"), spec.get("maximum")
    parts = []
    if low is not None and high is not None:
        parts.append(f"from {low} to {high}")
    elif low is not None:
        parts.append(f"at least {low}")
    elif high is not None:
        parts.append(f"at most {high}")
    if "pattern" in spec:
        parts.append(f"matching `{spec['pattern']}`")
    if "minLength" in spec or "maxLength" in spec:
        parts.append(f"{spec.get('minLength', 0)}-{spec.get('maxLength', '…')} characters")
    if "minItems" in spec:
        parts.append(f"at least {spec['minItems']} item(s)")
    if "maxItems" in spec:
        parts.append(f"at most {spec['maxItems']} item(s)")
    if spec.get("uniqueItems"):
        parts.append("no repeats")
    return "".join(f", {part}" for part in parts)


def knob_rows(rule: Rule) -> list[list[str]]:
    """Knob | Type | Default | Description rows of a rule's config schema."""
    rows = []
    for knob, spec in rule.config.items():
        default = f"`{json.dumps(spec['default'])}`" if "default" in spec else UNSET
        rows.append([f"`{knob}`", knob_type(spec, f"{rule.name}.{knob}"), default,
                     _inline(spec.get("description", ""))])
    return rows


def rule_row(rule: Rule) -> list[str]:
    """Rule | Level | Severity | Tags | Checks; the name links to the rule's section."""
    return [f"[{rule.name}](#{rule.name})", rule.level, rule.severity, ", ".join(rule.tags),
            _inline(rule.description)]


def rule_section(rule: Rule) -> list[str]:
    """A rule's remediation, source and knobs (its description is in the table above)."""
    lines = ["", f"### {rule.name}", "", f"**Fix:** {_inline(rule.remediation)}", "", f"Source: <{rule.url}>"]
    rows = knob_rows(rule)
    if rows:
        lines += ["", *_table(("Knob", "Type", "Default", "Description"), rows)]
    return lines


def _waiver_keys() -> str:
    """`{resource, reason, expires}` with the optional keys marked, from WAIVER_SCHEMA."""
    items = WAIVER_SCHEMA["items"]
    keys = [key if key in items["required"] else f"{key}?" for key in items["properties"]]
    return "`{" + ", ".join(keys) + "}`"


def rule_reference(rules: Sequence[Rule] = ALL_RULES) -> str:
    """The rule reference block (Markdown): a table of all rules, then a section per rule."""
    lines = [
        f"Generated from `amlkit.policies.ALL_RULES`: {len(rules)} rules and their default enforcement levels.",
        "A pack config file sets each rule's level and knobs, e.g. `{\"aml-cluster-max-nodes\":",
        "{\"enforcementLevel\": \"mandatory\", \"maxNodes\": 10}}` (`--policy-pack-config <file>` for `amlkit",
        "check` and `pulumi preview`; without it, `amlkit check` uses the project's `policy-config/<stack>.json`",
        "when there is one, else the pack's defaults).",
        f"Every rule also takes `waivers`, a list of {_waiver_keys()}: {_inline(WAIVER_SCHEMA['description'])}",
        "",
        *_table(("Rule", "Level", "Severity", "Tags", "Checks"), [rule_row(rule) for rule in rules]),
    ]
    for rule in rules:
        lines += rule_section(rule)
    return "\n".join(lines)


# --- component reference -------------------------------------------------------------------------


def _components() -> list[tuple[type, type, Mapping[str, Any]]]:
    """(component, Args type, ArgInfo by argument) of each public component."""
    from amlkit.components import compute_cluster, compute_instance, workspace

    return [
        (workspace.Workspace, workspace.WorkspaceArgs, workspace.ARGS),
        (compute_cluster.ComputeCluster, compute_cluster.ComputeClusterArgs, compute_cluster.ARGS),
        (compute_instance.ComputeInstance, compute_instance.ComputeInstanceArgs, compute_instance.ARGS),
    ]


def _summary(owner: type) -> str:
    """The docstring before the generated `Fields:` list."""
    return inspect.cleandoc(owner.__doc__ or "").split("\nFields:\n")[0].strip()


def _code(text: str) -> str:
    return f"`{text}`"


def argument_rows(args_type: type, infos: Mapping[str, Any]) -> list[list[str]]:
    """One row per argument: name, type, default, doc, ARM input."""
    from amlkit.components.args import field_docs, fields, type_text

    docs = field_docs(args_type)
    rows = []
    for name, (annotation, required) in fields(args_type).items():
        info = infos[name]
        default = REQUIRED if required else _inline(info.default)
        rows.append([f"`{name}`", _code(type_text(annotation)), default, _inline(docs[name]),
                     _inline(info.arm) or "(component behaviour)"])
    return rows


def nested_rows(spec_type: type) -> list[list[str]]:
    from amlkit.components.args import field_docs, fields, type_text

    docs = field_docs(spec_type)
    return [[f"`{name}`", _code(type_text(annotation)), "yes" if required else "no", _inline(docs[name])]
            for name, (annotation, required) in fields(spec_type).items()]


def component_section(component: type, args_type: type, infos: Mapping[str, Any]) -> list[str]:
    from amlkit.components.args import nested_types, resolved_hints, type_text

    token = inspect.getmodule(component).TYPE_TOKEN  # type: ignore[union-attr]
    lines = [f"### `{component.__name__}`", "", f"Pulumi type `{token}`; arguments: `{args_type.__name__}`.", ""]
    lines += [_inline(paragraph) + "\n" for paragraph in _summary(component).split("\n\n")]
    lines += _table(["Argument", "Type", "Default", "Description", "ARM input (azure-native)"],
                    argument_rows(args_type, infos))
    for spec_type in nested_types(args_type):
        lines += ["", f"`{spec_type.__name__}`: {_inline(_summary(spec_type))}", ""]
        lines += _table(["Key", "Type", "Required", "Description"], nested_rows(spec_type))
    outputs = [f"`{name}` ({_code(type_text(annotation))})"
               for name, annotation in resolved_hints(component).items() if not name.startswith("_")]
    lines += ["", "Outputs: " + ", ".join(outputs) + ".", ""]
    return lines


def component_reference() -> str:
    """Every component: summary, arguments (type, default, doc, ARM input), nested types, outputs."""
    lines: list[str] = []
    for component, args_type, infos in _components():
        lines += component_section(component, args_type, infos)
    return "\n".join(lines).rstrip("\n")


# --- README blocks ---------------------------------------------------------------------------------


def generated_blocks(names: Sequence[str] = BLOCKS) -> dict[str, str]:
    makers = {"config-reference": config_reference, "rule-reference": rule_reference,
              "component-reference": component_reference}
    return {name: makers[name]() for name in names}


def blocks_in(text: str) -> tuple[str, ...]:
    """The generated blocks a file holds (a marker of them appears); a file with none: the README's,
    so the missing markers are reported."""
    present = tuple(name for name in ALL_BLOCKS if any(marker.search(text) for marker in _markers(name)))
    return present or BLOCKS


def _markers(name: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    begin = re.compile(rf"^<!-- BEGIN GENERATED: {re.escape(name)}(?: [^\n]*)? -->\n", re.MULTILINE)
    end = re.compile(rf"^<!-- END GENERATED: {re.escape(name)} -->$", re.MULTILINE)
    return begin, end


def _span(text: str, name: str, file: str) -> tuple[int, int]:
    """(start, end) of the text between block `name`'s markers."""
    begin, end = _markers(name)
    begins, ends = list(begin.finditer(text)), list(end.finditer(text))
    if len(begins) != 1 or len(ends) != 1 or ends[0].start() < begins[0].end():
        raise UsageError(
            f"{file}: needs exactly one '<!-- BEGIN GENERATED: {name} ... -->' line followed by one "
            f"'<!-- END GENERATED: {name} -->' line (found {len(begins)} and {len(ends)})"
        )
    return begins[0].end(), ends[0].start()


def read_block(text: str, name: str, file: str = "README.md") -> str:
    """The text between block `name`'s markers, without the blank lines around it."""
    start, end = _span(text, name, file)
    return text[start:end].strip("\n")


def replace_blocks(text: str, blocks: Mapping[str, str], file: str = "README.md") -> str:
    """`text` with each block's content replaced; everything outside the markers stays as it was."""
    for name, content in blocks.items():
        start, end = _span(text, name, file)
        text = text[:start] + "\n" + content + "\n\n" + text[end:]
    return text


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: cannot read the file: {getattr(error, 'strerror', None) or error}") from None


def _write(path: Path, text: str) -> None:
    """Replace the file atomically (a reader never sees half of it)."""
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temp, path.stat().st_mode & 0o777)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def check(path: Path) -> str:
    """A unified diff of the file against its regenerated blocks; empty when they are current."""
    current = _read(path)
    wanted = replace_blocks(current, generated_blocks(blocks_in(current)), str(path))
    return "".join(difflib.unified_diff(current.splitlines(keepends=True), wanted.splitlines(keepends=True),
                                        f"{path} (current)", f"{path} (generated)"))


def write(path: Path) -> bool:
    """Rewrite the file's generated blocks; True when it changed. Reads the file right before writing."""
    current = _read(path)
    wanted = replace_blocks(current, generated_blocks(blocks_in(current)), str(path))
    if wanted == current:
        return False
    _write(path, wanted)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m amlkit.docs", description="Generate the configuration "
                                     "and rule references (README.md) and the component reference "
                                     "(docs/components.md) between a file's GENERATED markers.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", metavar="FILE", type=Path, help="rewrite the generated blocks of FILE")
    mode.add_argument("--check", metavar="FILE", type=Path, help="exit 1 with a diff when FILE's blocks are stale")
    args = parser.parse_args(argv)
    try:
        if args.write:
            changed = write(args.write)
            print(f"{args.write}: {'generated blocks rewritten' if changed else 'already up to date'}")
            return 0
        diff = check(args.check)
    except AmlkitError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    if diff:
        sys.stdout.write(diff)
        print(f"{args.check}: generated blocks are stale; run: python -m amlkit.docs --write {args.check}")
        return 1
    print(f"{args.check}: generated blocks are up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
