"""amlkit's config namespace (`amlkit:`) and the near misses of it that both readers of stack config refuse: the
offline review's (amlkit.review.project) and the running program's (amlkit.stackfile)."""

from __future__ import annotations

__all__ = ["NAMESPACE", "edit_distance", "namespace_problem", "near_miss"]

NAMESPACE = "amlkit"


def namespace_problem(key: str, project: str) -> str | None:
    """Why a `namespace:name` config key is refused: its namespace is a near miss of `amlkit` (a typo
    such as `amlkt`, `AMLKIT` or `aml-kit`), else None. Providers, the project's own namespace and
    other packages (`azure-native`, `amlkit-platform`) are left alone. Both the offline review and the
    program under `pulumi preview` ask this, so a typo fails both the same way."""
    namespace = key.split(":", 1)[0] if ":" in key else None
    if namespace is None or namespace in (NAMESPACE, project) or not near_miss(namespace, NAMESPACE):
        return None
    return (f"unknown config namespace {namespace!r}; did you mean {NAMESPACE!r}? "
            f"(only {NAMESPACE}: keys configure amlkit)")


def near_miss(word: str, target: str) -> bool:
    """A typo of `target`: at most two single-character edits (or a case change) away, but not equal."""
    return word != target and (word.lower() == target or edit_distance(word.lower(), target) <= 2)


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions)."""
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other)))
        previous = current
    return previous[-1]
