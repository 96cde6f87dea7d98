"""What docs/components.md documents about the components' defaults, for the tests that check it."""

from __future__ import annotations

from pathlib import Path

__all__ = ["REFERENCE", "default_advisories"]

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "components.md"


def default_advisories() -> list[tuple[str, str]]:
    """(policy, resource as the table says it: `the workspace`) of each row of the section "Defaults and their
    advisories", in its order: the advisories a Workspace, a ComputeCluster and a ComputeInstance given only
    their required arguments get (and so the scaffolded stack of `amlkit init`, README "A one-minute check")."""
    section = REFERENCE.read_text(encoding="utf-8").split("## Defaults and their advisories\n")[1].split("\n## ")[0]
    rows = [line.split("|") for line in section.splitlines() if line.startswith("| `aml-")]
    return [(row[1].strip().strip("`"), row[2].strip()) for row in rows]
