"""amlkit.cli_options.lazy_coercion: typer builds a parameter's pydantic adapter only when a value needs it, and
every value coerces exactly as typer's own runtime parameter coerces it (the same result, the same error)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from typer import _coercion, core
from typer.testing import CliRunner

from amlkit.cli_options import ReportFormat, RulesFormat, lazy_coercion

CASES = [
    ("enum default member", RulesFormat, typer.Option(), RulesFormat.json),
    ("enum by name", RulesFormat, typer.Option(), "markdown"),
    ("enum bad", RulesFormat, typer.Option(), "yaml"),
    ("enum case", ReportFormat, typer.Option(case_sensitive=False), "SARIF"),
    ("enum with a parser", RulesFormat, typer.Option(parser=lambda text: RulesFormat(text.lower())),
     RulesFormat.table),
    ("str", str, typer.Option(), "dev"),
    ("list of str", list[str], typer.Option(), ("dev", "prod")),
    ("int", int, typer.Option(), "4"),
    ("int bad", int, typer.Option(), "four"),
    ("float ranged", float, typer.Option(min=1.0), "0.5"),
    ("path", Path, typer.Option(), "."),
    ("missing", str | None, typer.Option(), None),
    ("str as is", str, typer.Option(), "dev"),
    ("list of str as a list", list[str], typer.Option(), ["dev"]),
    ("list of str, not all str", list[str], typer.Option(), ("dev", 3)),
    ("path as is", Path, typer.Option(), Path(".")),
    ("path from text", Path, typer.Option(), "examples/platform-repo"),
    ("path empty", Path, typer.Option(), ""),
    ("path that must exist", Path, typer.Option(exists=True), "does-not-exist"),
    ("path that must exist, as a Path", Path, typer.Option(exists=True), Path("does-not-exist")),
    ("path that must be a directory", Path, typer.Option(exists=True, file_okay=False), "pyproject.toml"),
    ("path that exists", Path, typer.Option(exists=True, file_okay=False), Path(".")),
    ("float in range", float, typer.Option(min=1.0), 120.0),
    ("float at its minimum", float, typer.Option(min=1.0), 1.0),
    ("float below range", float, typer.Option(min=1.0), 0.5),
    ("float above range", float, typer.Option(max=10.0), 12.0),
    ("float clamped", float, typer.Option(min=1.0, clamp=True), 0.5),
    ("int in range", int, typer.Option(min=1), 4),
    ("int below range", int, typer.Option(min=1), 0),
    ("int given a bool", int, typer.Option(), True),
    ("float given an int", float, typer.Option(), 3),
    ("bool", bool, typer.Option(), False),
    ("list of enum", list[ReportFormat], typer.Option(), ["json", "sarif"]),
    ("list of enum, any case", list[ReportFormat], typer.Option(case_sensitive=False), ("JSON",)),
    ("list of enum, one bad", list[ReportFormat], typer.Option(), ["json", "yaml"]),
    ("list of enum members", list[ReportFormat], typer.Option(), [ReportFormat.table]),
    ("enum by value, any case", ReportFormat, typer.Option(case_sensitive=False), "Markdown"),
    ("float from text", float, typer.Option(min=1.0), "600"),
    ("float from decimal text", float, typer.Option(min=1.0), "2.5"),
    ("float from text with zeros", float, typer.Option(min=1.0), "0120.50"),
    ("float from text below range", float, typer.Option(min=1.0), "0.99"),
    ("float from text, clamped", float, typer.Option(min=1.0, clamp=True), "0.5"),
    ("float from text with spaces", float, typer.Option(), " 12 "),
    ("float from text with an exponent", float, typer.Option(), "1e3"),
    ("float from text, infinite", float, typer.Option(min=1.0), "inf"),
    ("float from text, negative", float, typer.Option(), "-3"),
    ("int from text in range", int, typer.Option(min=1), "4"),
    ("int from text with zeros", int, typer.Option(min=1), "004"),
    ("int from text below range", int, typer.Option(min=1), "0"),
    ("int from decimal text", int, typer.Option(), "4.0"),
]


def _coerce(runtime: Any, param: Any, value: Any) -> tuple[str, Any]:
    try:
        return "ok", runtime.coerce(value, param=param, ctx=None)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return type(error).__name__, str(error)


@pytest.mark.parametrize(("annotation", "info", "value"), [case[1:] for case in CASES], ids=[c[0] for c in CASES])
def test_a_value_coerces_as_typer_s_own_runtime_parameter_coerces_it(annotation: Any, info: Any, value: Any):
    assert lazy_coercion()
    descriptor = _coercion.resolve_type_descriptor(annotation, info)
    param = core.TyperOption(param_decls=["--value"], type_descriptor=descriptor) if hasattr(
        core, "TyperOption") else None
    lazy = core._TyperParameter.get_runtime_param(_Holder(descriptor))
    own = _coercion.build_runtime_param(descriptor)
    assert type(lazy).__name__ == "Lazy"
    result = _coerce(lazy, param or _Param(), value)
    assert result == _coerce(own, param or _Param(), value)
    if result[0] == "ok" and isinstance(value, RulesFormat):
        assert result[1] is value  # a member is itself, as typer's choice adapter returns it


class _Holder:
    def __init__(self, descriptor: Any) -> None:
        self.type_descriptor, self._runtime_param = descriptor, None


class _Param:
    multiple, nargs, name = False, 1, "value"


def test_a_default_typer_would_return_as_it_is_builds_no_adapter(monkeypatch: pytest.MonkeyPatch):
    built: list[Any] = []
    original = _coercion.build_runtime_param
    monkeypatch.setattr(_coercion, "build_runtime_param", lambda descriptor: built.append(descriptor) or
                        original(descriptor))
    app = typer.Typer()

    @app.command()
    def main(fmt: RulesFormat = RulesFormat.table, name: str = "x", ratio: float = 1) -> None:
        typer.echo(f"{fmt.value} {name} {ratio!r}")

    assert lazy_coercion()
    result = CliRunner().invoke(app, [])
    assert (result.exit_code, result.output) == (0, "table x 1.0\n")
    assert [descriptor.annotation for descriptor in built] == [float]  # an int for a float still goes through typer
    result = CliRunner().invoke(app, ["--fmt", "nope"])  # a value typer must read: its adapter, its error
    assert result.exit_code == 2 and [descriptor.annotation for descriptor in built] == [float, RulesFormat]
