"""azure-native type tokens, shared by the policy rules and the review's mocks.

Three spellings name the same Azure resource type:
- `azure-native:<module>:<Name>`: the default API version;
- `azure-native:<module>/<version>:<Name>`: azure-native 2.x explicit-version modules;
- `azure-native_<module>_<version>:<module>:<Name>`: azure-native 3.x explicit versions, generated with
  `pulumi package add azure-native <module> <version>` (a parameterized package).
"""

from __future__ import annotations

import functools
import re

__all__ = ["type_parts"]

_DEFAULT_OR_2X = re.compile(
    r"^azure-native:(?P<module>[A-Za-z0-9]+)(?:/(?P<version>v[0-9A-Za-z]+))?:(?P<name>\w+)$"
)
_PARAMETERIZED = re.compile(
    r"^azure-native_(?P<module>[A-Za-z0-9]+)_(?P<version>v[0-9A-Za-z]+):(?P=module):(?P<name>\w+)$"
)


@functools.lru_cache(maxsize=4096)
def type_parts(type_token: str) -> tuple[str, str | None, str] | None:
    """(module, API version or None, resource name), or None for anything that is not azure-native (kept per
    token: every rule asks for every resource; a program or state has few distinct types)."""
    match = _DEFAULT_OR_2X.match(type_token) or _PARAMETERIZED.match(type_token)
    if not match:
        return None
    return match["module"], match["version"], match["name"]
