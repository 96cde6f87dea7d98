"""amlkit.review.pack.proto: pulumi's analyzer protobufs for the review's parent without `import pulumi`, the same
messages as pulumi's own, and pulumi's own modules wherever the shortcut does not apply."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pulumi.runtime.proto import analyzer_pb2 as pulumi_analyzer_pb2
from pulumi.runtime.proto import analyzer_pb2_grpc as pulumi_analyzer_pb2_grpc

from amlkit.review.pack import proto

# In a fresh interpreter: load through the shortcut (VERIFIED as given), then import pulumi's own modules and
# compare them name by name.
_PROBE = """
import json, sys
import amlkit.review.pack.proto as proto
if sys.argv[1] == "unverified":
    proto.VERIFIED = frozenset()
from amlkit.review.pack.proto import analyzer_pb2, analyzer_pb2_grpc
seen = {"names": [analyzer_pb2.__name__, analyzer_pb2_grpc.__name__], "pulumi": "pulumi" in sys.modules,
        "off": proto.off_reason()}
from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper
import pulumi.runtime.proto.analyzer_pb2 as real
import pulumi.runtime.proto.analyzer_pb2_grpc as real_grpc
def code(value):
    # what a function, or each method of a class, runs (the same file loaded twice gives equal bytecode)
    if isinstance(value, type):
        methods = {k: getattr(v, "__func__", v) for k, v in vars(value).items()}  # a staticmethod's function
        return {k: v.__code__.co_code for k, v in methods.items() if hasattr(v, "__code__")}
    return value.__code__.co_code if hasattr(value, "__code__") else None
def same(mine, its):
    if mine is its:
        return True
    if isinstance(mine, EnumTypeWrapper) and isinstance(its, EnumTypeWrapper):
        return mine.DESCRIPTOR is its.DESCRIPTOR
    if hasattr(its, "__file__"):  # a sibling protobuf module: the same file
        return getattr(mine, "__file__", None) == its.__file__
    return callable(its) and mine.__qualname__ == its.__qualname__ and code(mine) == code(its) != {}
def compared(ours, theirs):
    names = sorted(name for name in set(vars(ours)) | set(vars(theirs)) if not name.startswith("__"))
    return [name for name in names
            if name != "_globals" and not same(getattr(ours, name, None), getattr(theirs, name, None))]
seen["differ"] = compared(analyzer_pb2, real) + compared(analyzer_pb2_grpc, real_grpc)
seen["same_messages"] = all(getattr(analyzer_pb2, n) is getattr(real, n) for n in real.DESCRIPTOR.message_types_by_name)
request = analyzer_pb2.AnalyzeRequest(type="azure-native:storage:StorageAccount", name="sa")
seen["round_trip"] = real.AnalyzeRequest.FromString(request.SerializeToString()) == request
print(json.dumps(seen))
"""


def probe(mode: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_shortcut_loads_the_protobufs_without_pulumi_and_gives_pulumi_s_own_messages():
    seen = probe("verified")
    assert seen["names"] == [f"{proto.PACKAGE}.analyzer_pb2", f"{proto.PACKAGE}.analyzer_pb2_grpc"]
    assert seen["pulumi"] is False  # pulumi/__init__ never ran
    assert seen["off"] is None
    assert seen["differ"] == []  # every name: the same object, enum or code as pulumi's own module's
    assert seen["same_messages"] is True  # the very message classes (one per descriptor in protobuf's pool)
    assert seen["round_trip"] is True


def test_on_files_it_was_not_verified_on_it_is_the_normal_import():
    seen = probe("unverified")
    assert seen["names"] == ["pulumi.runtime.proto.analyzer_pb2", "pulumi.runtime.proto.analyzer_pb2_grpc"]
    assert seen["pulumi"] is True
    assert seen["differ"] == []


def test_where_pulumi_is_imported_already_they_are_pulumi_s_own_modules():
    assert proto.off_reason() == "pulumi's protobufs are imported already"
    if f"{proto.PACKAGE}.analyzer_pb2" not in sys.modules:  # this process never took the shortcut
        assert proto.load() == (pulumi_analyzer_pb2, pulumi_analyzer_pb2_grpc)


@pytest.mark.parametrize("change", ["edited", "missing"])
def test_the_guard_hashes_the_three_generated_files(tmp_path, change):
    source = Path(pulumi_analyzer_pb2.__file__).parent
    for name in proto.FILES:
        shutil.copy(source / f"{name}.py", tmp_path / f"{name}.py")
    assert proto.files_hash(tmp_path) in proto.VERIFIED  # pulumi 3.272.0 as pinned (constraints.txt)
    target = tmp_path / "analyzer_pb2_grpc.py"
    if change == "edited":
        target.write_text(target.read_text() + "\n# a newer release\n")
        assert proto.files_hash(tmp_path) not in proto.VERIFIED
    else:
        target.unlink()
        assert proto.files_hash(tmp_path) is None
