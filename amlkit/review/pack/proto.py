"""pulumi's analyzer protobufs and gRPC stubs for the review's own side of the protocol, without `import pulumi`.

The review's parent talks to each pack with `pulumi.runtime.proto.analyzer_pb2` (the messages) and
`analyzer_pb2_grpc` (the stub). Importing them the normal way runs all of `pulumi/__init__` first (the SDK's
runtime, settings, resources, automation types: ~0.12 CPU s on top of grpc and protobuf), which the parent never
uses. So where the three generated files (`plugin_pb2.py`, `analyzer_pb2.py`, `analyzer_pb2_grpc.py`) are
byte for byte the ones verified (`VERIFIED`, per pulumi release), they are loaded from pulumi's directory, with
their own bytecode, as modules of a package of amlkit's (`PACKAGE`), whose `from . import plugin_pb2` finds its
sibling there: nothing is put under pulumi's names, so a later `import pulumi` in the same process runs as it
always does. The messages are the same classes as pulumi's own (protobuf builds one class per message
descriptor of its default pool, which both register the same file in): `analyzer_pb2.AnalyzeRequest is
pulumi.runtime.proto.analyzer_pb2.AnalyzeRequest` (tests/review/test_pack_proto.py).

Otherwise (pulumi already imported in this process, other files, no pulumi) this is the normal import.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
import threading
import types
from pathlib import Path
from typing import TYPE_CHECKING

__all__ = ["FILES", "PACKAGE", "VERIFIED", "analyzer_pb2", "analyzer_pb2_grpc", "load", "off_reason"]

PACKAGE = "_amlkit_pulumi_analyzer_proto"  # the shortcut's modules live here, never under pulumi's names
FILES = ("plugin_pb2", "analyzer_pb2", "analyzer_pb2_grpc")  # in import order: each imports the ones before it
VERIFIED = frozenset({
    "64807dd16584ee631cc010c0a6ab251c5c6d4e8a9a6a12fc8ee6bcc496119595",  # pulumi 3.272.0
})
_LOCK = threading.Lock()


def off_reason() -> str | None:
    """None when the shortcut may load the files; else why it does not."""
    if "pulumi.runtime.proto" in sys.modules:
        return "pulumi's protobufs are imported already"
    directory = _directory()
    if directory is None:
        return "pulumi is not installed"
    digest = files_hash(directory)
    if digest is None:
        return f"cannot read {', '.join(FILES)} in {directory}"
    if digest not in VERIFIED:
        return f"{directory}: {', '.join(FILES)} are not the files this shortcut was verified on"
    return None


def files_hash(directory: Path) -> str | None:
    """sha256 over the generated files' bytes, in FILES order (None when one cannot be read)."""
    digest = hashlib.sha256()
    try:
        for name in FILES:
            digest.update((directory / f"{name}.py").read_bytes())
    except OSError:
        return None
    return digest.hexdigest()


def load() -> tuple[types.ModuleType, types.ModuleType]:
    """`analyzer_pb2` and `analyzer_pb2_grpc`: the shortcut's (see the module doc), else pulumi's own."""
    with _LOCK:
        loaded = sys.modules.get(f"{PACKAGE}.analyzer_pb2_grpc")
        if loaded is not None:
            return sys.modules[f"{PACKAGE}.analyzer_pb2"], loaded
        directory = _directory()
        if off_reason() is not None or directory is None:
            return (importlib.import_module("pulumi.runtime.proto.analyzer_pb2"),
                    importlib.import_module("pulumi.runtime.proto.analyzer_pb2_grpc"))
        package = sys.modules.get(PACKAGE) or _package()
        for name in FILES:
            spec = importlib.util.spec_from_file_location(f"{PACKAGE}.{name}", directory / f"{name}.py")
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[spec.name]
                raise
            setattr(package, name, module)
        return sys.modules[f"{PACKAGE}.analyzer_pb2"], sys.modules[f"{PACKAGE}.analyzer_pb2_grpc"]


def _directory() -> Path | None:
    """pulumi's `runtime/proto` directory, found without importing pulumi."""
    try:
        spec = importlib.util.find_spec("pulumi")
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) / "runtime" / "proto" if locations else None


def _package() -> types.ModuleType:
    package = types.ModuleType(PACKAGE, "pulumi's analyzer protobufs, loaded by amlkit.review.pack.proto")
    package.__path__ = []
    package.__package__ = PACKAGE
    sys.modules[PACKAGE] = package
    return package


if TYPE_CHECKING:
    from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc
else:
    def __getattr__(name: str) -> types.ModuleType:
        """`analyzer_pb2` / `analyzer_pb2_grpc`, loaded on first use (`load`)."""
        if name not in ("analyzer_pb2", "analyzer_pb2_grpc"):
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        globals()["analyzer_pb2"], globals()["analyzer_pb2_grpc"] = load()
        return globals()[name]
