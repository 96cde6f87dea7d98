"""pulumi-policy's unknown-checking proxies, built as they are read instead of all up front.

pulumi-policy's servicer wraps a resource's properties for every policy (`unknown_checking_proxy`): a
`_DictProxy` / `_ListProxy` copy of every dict and list, at every depth, before the policy runs. Most
policies read a few properties of a few resource types, so most of that copy is never read: on the
benchmark's ML platform state it was ~30% of the pack's time per Analyze and ~45% of AnalyzeStack.
`lazy_proxy` returns the same proxy classes; a nested dict or list becomes its proxy (a fresh copy, with
the same property path) the first time it is read, and reading a proxy's `__target` (what pulumi-policy's
own serializer does) converts all of it first. So a policy reads the same values, gets the same
`UnknownValueError` at the same access, and can change only its own copy, as with the eager proxies.
Installed by `amlkit.policies.pack.convert_each_request_once`, under the same guard.
"""

from __future__ import annotations

import operator
from typing import Any

from pulumi_policy.proxy import _append_prop, _DictProxy, _ListProxy, _raise_if_unknown

__all__ = ["lazy_proxy"]


def lazy_proxy(props: dict[str, Any]) -> Any:
    """What `pulumi_policy.proxy.unknown_checking_proxy(props)` returns, nested proxies made on first read."""
    return _wrap(props, [])


def _wrap(value: Any, path: list[str]) -> Any:
    if isinstance(value, list):
        return _LazyList(value, path)
    if isinstance(value, dict):
        return _LazyDict(value, path)
    return value


class _LazyDict(_DictProxy):
    def __init__(self, source: dict[str, Any], path: list[str]) -> None:
        self._target, self._path = dict(source), path  # the objects the base class keeps as its private ones
        super().__init__(self._target, path)
        self._made: set[Any] = set()  # keys whose value is final (a proxy, or set by the policy)

    def __getitem__(self, key: Any) -> Any:
        target = self._target
        if key == "__target":
            for name in list(target):
                self._make(target, name)
            return target
        return _raise_if_unknown(key, self._make(target, key), self._path)

    def _make(self, target: dict[str, Any], key: Any) -> Any:
        value = target[key]
        if key not in self._made:
            value = target[key] = _wrap(value, _append_prop(self._path, key))
            self._made.add(key)
        return value

    def __setitem__(self, key: Any, value: Any) -> None:
        self._target[key] = value
        self._made.add(key)


class _LazyList(_ListProxy):
    def __init__(self, source: list[Any], path: list[str]) -> None:
        self._target, self._path = list(source), path  # the objects the base class keeps as its private ones
        super().__init__(self._target, path)
        self._made = [False] * len(source)

    def __getitem__(self, key: Any) -> Any:
        target = self._target
        if key == "__target" or isinstance(key, slice):
            for index in range(len(target)):
                self._make(target, index)
            return target if key == "__target" else target[key]
        target[key]  # a bad index fails as the list itself fails (IndexError, TypeError)
        index = operator.index(key) % len(target)
        return _raise_if_unknown(key, self._make(target, index), self._path)

    def _make(self, target: list[Any], index: int) -> Any:
        if not self._made[index]:
            target[index] = _wrap(target[index], _append_prop(self._path, index))
            self._made[index] = True
        return target[index]
