"""The packaged VM catalogue's parsed YAML, kept beside Python's own bytecode so a process need not parse it.

Parsing `amlkit/data/vm_families.yaml` costs ~40 ms of CPU (PyYAML builds ~10,000 Python objects, even with
libyaml) in every process that needs the catalogue: `amlkit rules`, `amlkit sizes`, a review's parent (its rule
baseline) and its pack. The parsed document (dicts, lists, strings, numbers, booleans and dates only) is kept as a
pickle that loads in ~1 ms:

- where the bytecode of the data directory would go: `<data dir>/__pycache__/`, or under `sys.pycache_prefix`;
  never written when Python writes no bytecode (`sys.dont_write_bytecode`, `PYTHONDONTWRITEBYTECODE`);
- named after the SHA-256 of the YAML bytes, PyYAML's version and the interpreter's cache tag, so an edited data
  file or another PyYAML never reads a stale copy;
- read by an unpickler that builds nothing but `datetime.date`: a damaged or hostile file can at worst give data
  that `amlkit.vmload.build_catalogue` then checks like any other, never run code;
- any error reading or writing it falls back to parsing the YAML (the result is the same: tests/test_vmcache.py).
"""

from __future__ import annotations

import datetime
import hashlib
import io
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["cache_dir", "cached_parse"]

_PROTOCOL = 4


class _DatesOnly(pickle.Unpickler):
    """Builds only plain containers and `datetime.date`; any other global is refused."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("datetime", "date"):
            return datetime.date
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in the catalogue cache")


def cache_dir(data_file: Path) -> Path:
    """Where Python would put the data directory's bytecode: `__pycache__` beside it, or `sys.pycache_prefix`."""
    directory = data_file.resolve().parent
    prefix = sys.pycache_prefix
    if prefix:
        return Path(prefix) / directory.relative_to(directory.anchor)
    return directory / "__pycache__"


def cached_parse(data_file: Path, parse: Callable[[str], Mapping[str, Any]], version: str) -> Mapping[str, Any]:
    """`parse(text of data_file)`, from the cache when it holds this exact text's result (`version`: the
    parser's), else parsed and, when Python writes bytecode, kept for the next process."""
    raw = data_file.read_bytes()
    digest = hashlib.sha256(b"\0".join([raw, version.encode(), sys.implementation.cache_tag.encode()])).hexdigest()
    path = cache_dir(data_file) / f"{data_file.stem}.{digest[:24]}.pickle"
    try:
        data = _DatesOnly(io.BytesIO(path.read_bytes())).load()
        if isinstance(data, dict):
            return data
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError,
            KeyError, MemoryError):
        pass
    data = parse(raw.decode("utf-8"))
    if not sys.dont_write_bytecode:
        _write(path, data)
    return data


def _write(path: Path, data: Mapping[str, Any]) -> None:
    """Write atomically (a reader sees the old file, the new one or none); drop stale copies; never fail."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        blob = pickle.dumps(data, protocol=_PROTOCOL)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as out:
                os.fchmod(out.fileno(), 0o644)  # as readable as the bytecode beside it (mkstemp makes 0600)
                out.write(blob)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
        for stale in path.parent.glob(f"{path.name.split('.', 1)[0]}.*.pickle"):
            if stale != path:
                stale.unlink(missing_ok=True)
    except (OSError, pickle.PicklingError, TypeError, ValueError):
        pass
