"""What `make latest` prints: the SDKs installed against constraints.txt, the SDK patches that are off
and why, and the start-up canary. Run with the interpreter of the venv to report on."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / "constraints.txt"


def pins(text: str) -> dict[str, str]:
    """`name==version` lines of a constraints file (comments and blank lines skipped)."""
    result = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            result[name.strip()] = version.strip()
    return result


def installed(names: list[str]) -> dict[str, str | None]:
    def version(name: str) -> str | None:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return None
    return {name: version(name) for name in names}


def report_lines(pinned: Mapping[str, str], versions: Mapping[str, str | None], patches_off: list[str],
                 patch_count: int, canary: str | None) -> list[str]:
    lines = ["SDKs (installed, against constraints.txt):"]
    for name, pin in pinned.items():
        version = versions.get(name)
        state = "not installed" if version is None else version if version == pin else f"{version}, pinned {pin}"
        lines.append(f"  {name}: {state}")
    lines.append(f"SDK patches: {patch_count - len(patches_off)} of {patch_count} on")
    lines += [f"  {line}" for line in patches_off]
    lines.append("start-up canary: " + ("pulumi-policy's \"cannot tell\" still reads as unknown" if canary is None
                                       else f"FAILS, every review exits 3: {canary}"))
    return lines


def main() -> int:
    from amlkit import patches
    from amlkit.review.pack import canary

    pinned = pins(CONSTRAINTS.read_text())
    print("\n".join(report_lines(pinned, installed(list(pinned)), patches.report(), len(patches.PATCHES),
                                 canary.unknown_canary())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
