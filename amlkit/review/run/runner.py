"""Child process: run ONE stack's Pulumi program under Azure-like mocks and print what it registered.

Usage: `python -m amlkit.review.run.runner` with a JSON request on stdin:
`{"program": <dir or file>, "project": <name>, "stack": <name>, "config": {"ns:key": "string"},
"secret_keys": [...], "alias_shortcut": true}` (false: no SDK speed-up; optional "patches": the names
of amlkit.patches to apply, default all that are verified), optionally `"state": [<StateResource
dict>...]` (answer deployed resources from a state, see amlkit.review.run.statemocks), `"packages":
{"amlkit.components": <dir>}` (import a package from another directory, for `--base`), `"azure":
{"subscriptionId", "tenantId"}` (the stack's own ids, amlkit.review.run.identity) and `"lookups":
<amlkit.review.run.lookups.Lookups JSON>` (a project's pinned lookups). `"deployed": true` answers as Azure
does once deployed (amlkit.review.run.mocks.DeployedMocks), never in a review: it builds the state export a
`pulumi up` of the program would leave (tests, bench). The result is JSON lines on stdout,
streamed as the
program registers resources (so the policy pack can analyze them meanwhile, as the engine does):
`{"resource": {...}}` per registration, `{"lookup": {"token", "args", "file", "line"}}` per distinct lookup
the mocks could not answer, at the program line that called it (see amlkit.review.run.mocks),
`{"stack_outputs": {...}}` when the program exports, then `{"done": true}` or
`{"error": {"kind": "program" | "config", "message": ..., "component": {"type", "name"} | null, ...}}`
(a config error carries `fields`: every public field of the amlkit ConfigError; a program error its
`traceback`).
Anything the program prints goes to stderr, so it can never corrupt the result.
"""

from __future__ import annotations

import functools
import json
import os
import runpy
import sys
import threading
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

__all__ = [
    "Emitter", "LIBRARIES", "apply_patches", "calling_program_line", "declaring_line_positions", "describe",
    "error_fields", "failing_component", "failing_program_line", "json_safe", "lookups_at_program_lines", "main",
    "program_frame", "program_line", "program_source", "run", "serve", "skip_unused_alias_urns", "stack_outputs",
    "use_packages",
]


class Emitter:
    """Writes one JSON line per message to the result fd; safe from the SDK's executor threads."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.lock = threading.Lock()

    def __call__(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        with self.lock:
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view):]


def main() -> int:
    emit = Emitter(os.dup(1))
    os.dup2(2, 1)  # the program's prints (and any library's) go to stderr
    serve(json.load(sys.stdin), emit)
    return 0


def serve(request: dict[str, Any], emit: Emitter) -> bool:
    """Run one request, its messages to `emit` (closed after); whether the program finished. A program worker
    (amlkit.review.children.worker) calls this once per stack, with fd 1 that stack's result pipe."""
    os.dup2(2, 1)  # the program's prints (and any library's) go to stderr
    try:
        run(request, lambda record: emit({"resource": record}), lambda outputs: emit({"stack_outputs": outputs}),
            lambda lookup: emit({"lookup": lookup}))
        emit({"done": True})
        return True
    except BaseException as error:  # noqa: BLE001 - every failure is reported, closed
        emit({"error": describe(error)})
        return False
    finally:
        os.close(emit.fd)


def run(request: dict[str, Any], emit: Callable[[dict[str, Any]], None] | None = None,
        emit_outputs: Callable[[dict[str, Any]], None] | None = None,
        emit_lookup: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Set config and mocks as the CLI would, run the program; every registration goes to `emit`, the
    stack's outputs to `emit_outputs`, every unanswered lookup to `emit_lookup`."""
    import pulumi.runtime
    from pulumi.runtime.mocks import set_mocks
    from pulumi.runtime.stack import run_pulumi_func
    from pulumi.runtime.sync_await import _sync_await

    from amlkit.review.run.lookups import Lookups
    from amlkit.review.run.mocks import AzureMocks, DeployedMocks, RecordingMonitor
    from amlkit.review.run.secret_errors import scrub_apply_errors

    program = Path(request["program"]).resolve()
    entry = program / "__main__.py" if program.is_dir() else program
    os.chdir(entry.parent)
    sys.path.insert(0, str(entry.parent))
    sys.argv = [str(entry)]

    pulumi.runtime.set_all_config(request["config"], secret_keys=request["secret_keys"])
    if request.get("azure"):  # the stack's own subscription and tenant (amlkit.review.run.identity)
        from amlkit.review import arm

        arm.SUBSCRIPTION = request["azure"]["subscriptionId"]
        arm.TENANT = request["azure"]["tenantId"]
    use_packages(request.get("packages") or {})
    mocks_class = DeployedMocks if request.get("deployed") else AzureMocks
    mocks = mocks_class(Lookups.from_json(request.get("lookups")))
    monitor = RecordingMonitor(mocks, request["stack"], request["project"], emit, emit_lookup)
    if request.get("state") is not None:  # plan against a deployed state (amlkit.review.run.statemocks)
        from amlkit.review.run.statemocks import StateMocks, StateMonitor

        state_mocks = StateMocks()
        state_mocks.pins = mocks.pins
        monitor = StateMonitor(state_mocks, request["stack"], request["project"], request["state"], emit)
        monitor.emit_lookup = emit_lookup
    set_mocks(mocks, project=request["project"], stack=request["stack"], preview=True, monitor=monitor)
    apply_patches(request.get("patches"), request.get("alias_shortcut", True))
    scrub_apply_errors()  # an apply over a secret never quotes it: amlkit.review.run.secret_errors
    lookups_at_program_lines()

    def run_main() -> None:
        runpy.run_path(str(entry), run_name="__main__")

    _sync_await(run_pulumi_func(run_main))
    if emit_outputs is not None:
        emit_outputs(stack_outputs())
    return monitor.records


def stack_outputs() -> dict[str, Any]:
    """What `pulumi.export` set on the root Stack, in wire form (the mocks register the Stack before the
    program runs, so its outputs never reach the monitor); unknown where derived from an unanswered lookup."""
    from google.protobuf import json_format
    from pulumi.runtime import rpc
    from pulumi.runtime.settings import get_root_resource
    from pulumi.runtime.sync_await import _sync_await

    from amlkit.review.run.mocks import mark_unknown

    root = get_root_resource()
    outputs = dict(getattr(root, "outputs", None) or {})
    struct = _sync_await(rpc.serialize_properties(outputs, {}))
    mark_unknown(struct)  # what derives from an unanswered lookup is unknown, as in the resources' inputs
    return json_format.MessageToDict(struct)


def use_packages(packages: dict[str, str]) -> None:
    """Import each named package from the given directory instead of the installed one (`--base` runs
    a program with `amlkit.components` as they were at the base revision).

    A warm child (amlkit.review.proc.warm) already holds the installed package and its submodules: they are
    dropped first, so every submodule is imported again from the given directory."""
    import importlib.util

    for name, directory in packages.items():
        for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[loaded]
        init = Path(directory) / "__init__.py"
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[directory])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        parent, _, child = name.rpartition(".")
        if parent in sys.modules:
            setattr(sys.modules[parent], child, module)


def apply_patches(names: list[str] | None = None, shortcut: bool = True) -> None:
    """The SDK patches below, each only where amlkit.patches verified the code it replaces.

    names: the speed-ups wanted (None = all); shortcut=False: none of them (for comparisons). The
    declaring-line source positions are sent whenever their patch is verified (with the SDK's own stack
    walk still run unless the `source-positions` speed-up is wanted); unverified, the SDK's own
    positions go out."""
    from amlkit.patches import off_reason

    def wanted(name: str) -> bool:
        return shortcut and (names is None or name in names) and off_reason(name) is None

    if shortcut and (names is None or "provider-modules" in names):  # its guard runs as azure-native first loads
        from amlkit.review.run import provider_modules

        provider_modules.install()
    if wanted("alias-shortcut"):
        skip_unused_alias_urns()
    if wanted("alias-specs"):
        _fast_alias_specs()
    if off_reason("source-positions") is None:
        declaring_line_positions(wanted("source-positions"))


def lookups_at_program_lines() -> None:
    """Every lookup (plain and `_output` invokes, reads such as a stack reference) runs with the program
    line that called it in `amlkit.review.run.mocks.CALLER` (and its form in `FORM`), so the monitor can name
    that line when it cannot answer; lookups the SDK does not send are reported too (`report_unsent_lookups`).
    The SDK carries the context into its tasks and executor threads (`wrap_with_context`).
    Wraps the functions the generated SDKs call (`pulumi.runtime.invoke`, `invoke_output`), the ones
    `invoke_single`/`invoke_output_single` call, and `read_resource`; once per process."""
    import pulumi.resource
    import pulumi.runtime

    from amlkit.review.run.mocks import CALLER, FORM, report_unsent_lookups

    def at_program_line(function: Callable[..., Any]) -> Callable[..., Any]:
        if getattr(function, "_amlkit_caller", False):
            return function
        form = "output" if function.__name__ == "invoke_output" else "plain"

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            token, form_token = CALLER.set(calling_program_line()), FORM.set(form)
            try:
                return function(*args, **kwargs)
            finally:
                FORM.reset(form_token)
                CALLER.reset(token)

        wrapper._amlkit_caller = True  # type: ignore[attr-defined]
        return wrapper

    invoke_module = sys.modules["pulumi.runtime.invoke"]
    for owner, name in ((pulumi.runtime, "invoke"), (pulumi.runtime, "invoke_output"), (invoke_module, "invoke"),
                        (invoke_module, "invoke_output"), (pulumi.resource, "read_resource")):
        setattr(owner, name, at_program_line(getattr(owner, name)))
    report_unsent_lookups()


def skip_unused_alias_urns() -> None:
    """Do not compute alias URNs the SDK never sends (pulumi/pulumi#10010).

    `Resource.__init__` collapses every alias to a URN Output (`Resource._aliases`, ~50 per azure-native
    resource). Those URNs are read in exactly one place, `pulumi.runtime.resource.all_aliases`, which
    runs only when the monitor does NOT support alias specs; with alias specs (the real engine and this
    monitor both announce RESOURCE_MONITOR_FEATURE_ALIAS_SPECS) the SDK sends the specs built by
    `create_alias_spec` instead. So while alias specs are supported, the collapsed URNs are dead work:
    keep the alias input itself. If the monitor ever stops supporting specs, the original runs.
    """
    import pulumi.resource
    from pulumi.runtime.proto import resource_pb2
    from pulumi.runtime.settings import monitor_supports_feature

    original = pulumi.resource.collapse_alias_to_urn  # type: ignore[attr-defined]

    def collapse_alias_to_urn(alias: Any, default_name: Any, default_type: Any, default_parent: Any) -> Any:
        if monitor_supports_feature(resource_pb2.RESOURCE_MONITOR_FEATURE_ALIAS_SPECS):
            return alias
        return original(alias, default_name, default_type, default_parent)

    pulumi.resource.collapse_alias_to_urn = collapse_alias_to_urn  # type: ignore[attr-defined,assignment]


def declaring_line_positions(shortcut: bool = True) -> None:
    """Send, as each registration's `sourcePosition`, the program line that declared the resource.

    The SDK walks and formats the whole Python stack per registration and points at the frame above
    the concrete resource's `__init__` (inside amlkit.components for a component's children). This
    walks frames up to the first one outside the SDKs and amlkit (the user's program line) without
    reading any source, once per registration. With `shortcut=False` the SDK's own walk still runs
    (for speed comparisons) but the position sent is the same.
    """
    import pulumi.runtime.resource as runtime_resource
    from pulumi.runtime.proto import source_pb2

    original = runtime_resource._get_stack_trace
    libraries = _library_dirs()

    def _get_stack_trace() -> source_pb2.StackTrace:
        if not shortcut:
            original()
        frame = program_frame(sys._getframe(1), libraries)
        if frame is None:
            return source_pb2.StackTrace()
        position = source_pb2.SourcePosition(uri=Path(frame.f_code.co_filename).as_uri(), line=frame.f_lineno)
        return source_pb2.StackTrace(frames=[source_pb2.StackFrame(pc=position)])

    runtime_resource._get_stack_trace = _get_stack_trace


LIBRARIES = ("pulumi", "pulumi_azure_native", "amlkit", "amlkit.components")


def _library_dirs() -> tuple[str, ...]:
    """Directories whose frames are never the declaring line: the Pulumi SDKs and amlkit itself (found
    without importing them: amlkit.components and azure-native are slow to import)."""
    import importlib.util

    dirs: set[str] = set()
    for name in LIBRARIES:
        spec = importlib.util.find_spec(name)
        for location in (spec.submodule_search_locations or []) if spec else []:
            dirs |= {os.path.join(location, ""), os.path.join(str(Path(location).resolve()), "")}
    return tuple(sorted(dirs))


def program_frame(frame: Any, libraries: tuple[str, ...]) -> Any:
    """The innermost frame outside the libraries and Python's own `<...>` code (None if there is none)."""
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith("<") and not filename.startswith(libraries):
            return frame
        frame = frame.f_back
    return None


def _fast_alias_specs() -> None:
    """Build alias specs for plain `Alias(...)` values directly, without an Output per alias.

    `prepare_aliases` wraps each alias in an Output and awaits it, then awaits an Output per field.
    For an `Alias` whose fields are plain values (exactly str, None or `...`; what azure-native passes:
    `Alias(type_=...)`) the awaited values are the values themselves, so the spec is built here with
    the same rules as `create_alias_spec`, once per distinct field tuple (every Compute repeats the
    same ~50). Anything else (Outputs, a Resource parent, URN strings) takes the SDK's path.
    """
    import pulumi.runtime.resource as runtime_resource
    from pulumi.resource import Alias
    from pulumi.runtime.proto import alias_pb2

    original = runtime_resource.prepare_aliases
    plain_types = (str, type(None), type(...))
    specs: dict[tuple[Any, ...], alias_pb2.Alias] = {}  # azure-native repeats the same ~50 aliases

    def spec(fields: tuple[Any, ...]) -> alias_pb2.Alias:
        name, type_, stack, project, parent = (v if isinstance(v, str) else "" for v in fields)
        if fields[4] is None:
            return alias_pb2.Alias(spec=alias_pb2.Alias.Spec(name=name, type=type_, stack=stack, project=project,
                                                             noParent=True))
        return alias_pb2.Alias(spec=alias_pb2.Alias.Spec(name=name, type=type_, stack=stack, project=project,
                                                         parentUrn=parent))

    def plain_specs(aliases: list[Any]) -> list[alias_pb2.Alias] | None:
        """The specs, or None when an alias is not an `Alias` of plain values (then the SDK decides)."""
        result = []
        for alias in aliases:
            if type(alias) is not Alias:
                return None
            fields = (alias.name, alias.type_, alias.stack, alias.project, alias.parent)
            if not all(type(value) in plain_types for value in fields):
                return None
            message = specs.get(fields)
            if message is None:
                message = specs[fields] = spec(fields)
            result.append(message)  # the request copies it: the cached message is never changed
        return result

    async def prepare_aliases(resource: Any, resource_options: Any, supports_alias_specs: bool) -> Any:
        aliases = [] if resource_options is None else (resource_options.aliases or [])
        result = plain_specs(aliases) if supports_alias_specs else None
        if result is None:
            return await original(resource, resource_options, supports_alias_specs)
        return result

    runtime_resource.prepare_aliases = prepare_aliases


def describe(error: BaseException) -> dict[str, Any]:
    """What failed, for the parent: an amlkit ConfigError keeps every field it carries (`fields`), others
    their last line; both name the component whose constructor raised, when there is one."""
    from amlkit.errors import ConfigError

    root = _root_cause(error)
    if isinstance(root, KeyboardInterrupt):
        return {"kind": "interrupted", "message": "interrupted"}
    component = failing_component(root)
    if isinstance(root, ConfigError):
        return {"kind": "config", "message": str(root), "fields": error_fields(root), "component": component,
                "source": program_source(root) if root.file is None else None}
    line = traceback.format_exception_only(type(root), root)[-1].strip()
    frame = failing_program_line(root)
    if frame is not None:
        line += f" (at {frame['file']}:{frame['line']})"
    return {"kind": "program", "message": line, "traceback": "".join(traceback.format_exception(error)),
            "component": component, "program_line": frame}


def failing_program_line(error: BaseException) -> dict[str, Any] | None:
    """The program line of `error`'s traceback (`program_line`). A crash inside an SDK or an apply callback
    is shown at the program's line that led to it."""
    return program_line(traceback.extract_tb(error.__traceback__))


def calling_program_line() -> dict[str, Any] | None:
    """The program line of the current call stack (`program_line`): the user's line that called into the
    SDK, e.g. a lookup. Source lines are read only for that frame."""
    frames = traceback.StackSummary.extract(traceback.walk_stack(sys._getframe(1)), lookup_lines=False)
    frames.reverse()
    return program_line(frames)


def program_line(frames: Iterable[traceback.FrameSummary]) -> dict[str, Any] | None:
    """The innermost of `frames` (outermost first) in the user's own files, outside every installed package
    and Python itself: {"file" (relative to the program's directory when inside it), "line", "code"}; None
    without one."""
    excluded = _outside_the_program()
    found = None
    for summary in frames:
        filename = _resolved(summary.filename) if not summary.filename.startswith("<") else ""
        if filename and not filename.startswith(excluded):
            found = summary
    if found is None:
        return None
    path = Path(_resolved(found.filename))
    try:
        shown = str(path.relative_to(Path.cwd()))
    except ValueError:
        shown = str(path)
    return {"file": shown, "line": found.lineno, "code": (found.line or "").strip()}


@functools.cache
def _outside_the_program() -> tuple[str, ...]:
    """The libraries' directories (`_library_dirs`) and Python's own, resolved; once per process (the runner
    runs one program, after `use_packages`)."""
    import sysconfig

    return _library_dirs() + tuple(os.path.join(str(Path(sysconfig.get_paths()[key]).resolve()), "")
                                   for key in ("stdlib", "platstdlib", "purelib", "platlib"))


@functools.lru_cache(maxsize=4096)
def _resolved(filename: str) -> str:
    return str(Path(filename).resolve())


def error_fields(error: BaseException) -> dict[str, Any]:
    """Every public attribute of the error, JSON-safe (anything but data as `amlkit.errors.show_value` shows it)."""
    return {key: json_safe(value) for key, value in vars(error).items() if not key.startswith("_")}


def json_safe(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    if isinstance(value, dict):
        return {str(key): json_safe(item) for key, item in value.items()}
    from amlkit.errors import show_value

    return show_value(value)


def program_source(error: BaseException) -> dict[str, Any] | None:
    """{file, line} of the program line the error went through last: the innermost frame of its traceback
    outside amlkit, the SDKs, site-packages and Python's own code (where the program built the component)."""
    import sysconfig

    outside = (*_library_dirs(), *{os.path.join(sysconfig.get_paths()[key], "")
                                    for key in ("stdlib", "platstdlib", "purelib", "platlib")})
    found = None
    tb = error.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.startswith("<") and not os.path.abspath(filename).startswith(outside):
            found = {"file": os.path.abspath(filename), "line": tb.tb_lineno}
        tb = tb.tb_next
    return found


def failing_component(error: BaseException) -> dict[str, str] | None:
    """The innermost resource whose constructor was running when `error` was raised: {type, name}."""
    import pulumi

    found = None
    tb = error.__traceback__
    while tb is not None:
        candidate = tb.tb_frame.f_locals.get("self")
        if isinstance(candidate, pulumi.Resource) and getattr(candidate, "_name", None):
            found = {"type": candidate._type, "name": candidate._name}
        tb = tb.tb_next
    return found


def _root_cause(error: BaseException) -> BaseException:
    """The amlkit ConfigError anywhere in the cause/context chain (RPC failures wrap the program's)."""
    from amlkit.errors import ConfigError

    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, ConfigError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return error


if __name__ == "__main__":
    sys.exit(main())
