"""The generated pages of docs/, written from the code so they cannot go stale. Not part of the package.

- `docs/configuration.md` comes from `amlkit.schema`: every key path of a stack's `amlkit:` config with
  what it allows (the `Allowed` metadata of its validated type, the same words as its errors), its
  default, and its description (the field's docstring); then the cross-field rules (the bullets of
  each model validator's docstring).
- `docs/rules/README.md` and one `docs/rules/<rule-name>.md` per rule come from
  `amlkit.policies.ALL_RULES`: reference, level, severity, tags, description, sources, compliance
  reference, peer equivalents, config knobs, examples (the rule evaluated on its test module's first
  passing and first failing case) and remediation.
- `docs/cli.md` comes from the typer app in `amlkit.cli`: every command and flag.
- The component reference block of the written page `docs/components.md` comes from the components'
  Args TypedDicts: every argument with its type, default, doc (the field's docstring) and the ARM
  input it sets (the module's `ARGS`), every nested type, and every output. Only the text between
  `<!-- BEGIN GENERATED: component-reference ... -->` and `<!-- END GENERATED: ... -->` is replaced.

`python tools/gen_docs.py --write` rewrites every generated page (and removes rule pages of rules
that no longer exist); `--check` exits 1 with a diff when one is stale. `make docs` runs `--write`;
`tests/test_docs.py` runs the check. The pages and blocks are made by the modules of `tools/docs/`.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python tools/gen_docs.py` from a checkout: the tools and tests packages are importable
    sys.path.insert(0, str(ROOT))

from amlkit.errors import AmlkitError, UsageError  # noqa: E402
from amlkit.policies import ALL_RULES  # noqa: E402
from amlkit.policies.framework import Rule  # noqa: E402
from tools.docs.blocks import replace_blocks  # noqa: E402
from tools.docs.cli import cli_reference  # noqa: E402
from tools.docs.components import component_reference  # noqa: E402
from tools.docs.configuration import configuration_page  # noqa: E402
from tools.docs.facts import facts_reference  # noqa: E402
from tools.docs.rules import rule_file, rule_page, rules_index  # noqa: E402

RULES_DIR = "docs/rules"

BLOCK_PAGES = {"docs/components.md": {"component-reference": component_reference},
               "docs/azure-facts.md": {"azure-facts": facts_reference}}
"""Written pages with a generated block: path -> block name -> maker."""


# --- the pages ----------------------------------------------------------------------------------------


def generated_pages(rules: Sequence[Rule] = ALL_RULES, root: Path = ROOT) -> dict[str, str]:
    """Repository-relative path -> text of every generated page (a written page with a generated block:
    its current text with the block regenerated)."""
    pages = {"docs/configuration.md": configuration_page(), "docs/cli.md": cli_reference(),
             f"{RULES_DIR}/README.md": rules_index(rules)}
    pages.update({f"{RULES_DIR}/{rule_file(rule)}": rule_page(rule) for rule in rules})
    for path, makers in BLOCK_PAGES.items():
        try:
            current = (root / path).read_text(encoding="utf-8")
        except OSError as error:
            raise UsageError(f"{path}: cannot read the written page: {error.strerror or error}") from None
        pages[path] = replace_blocks(current, {name: make() for name, make in makers.items()}, path)
    return pages


def stale_pages(root: Path = ROOT, pages: Mapping[str, str] | None = None) -> dict[str, str]:
    """Path -> unified diff for each page that differs from what the code generates, or should not exist."""
    pages = generated_pages(root=root) if pages is None else pages
    stale: dict[str, str] = {}
    for path, wanted in pages.items():
        current = (root / path).read_text(encoding="utf-8") if (root / path).is_file() else ""
        if current != wanted:
            stale[path] = "".join(difflib.unified_diff(current.splitlines(keepends=True),
                                                       wanted.splitlines(keepends=True),
                                                       f"{path} (current)", f"{path} (generated)"))
    for extra in _orphans(root, pages):
        stale[extra] = f"{extra}: a page for no current rule (a generated page: delete it)\n"
    return stale


def _orphans(root: Path, pages: Mapping[str, str]) -> list[str]:
    folder = root / RULES_DIR
    found = [f"{RULES_DIR}/{path.name}" for path in sorted(folder.glob("*.md"))] if folder.is_dir() else []
    return [path for path in found if path not in pages]


def _write(path: Path, text: str) -> None:
    """Replace the file atomically (a reader never sees half of it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write(root: Path = ROOT) -> list[str]:
    """Rewrite every stale page, delete orphaned rule pages; the paths changed."""
    pages = generated_pages(root=root)
    changed = sorted(stale_pages(root, pages))
    for path in changed:
        if path in pages:
            _write(root / path, pages[path])
        else:
            (root / path).unlink()
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/gen_docs.py",
                                     description="Generate docs/configuration.md, docs/cli.md and docs/rules/.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the generated pages")
    mode.add_argument("--check", action="store_true", help="exit 1 with a diff when a generated page is stale")
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root (default: this checkout)")
    args = parser.parse_args(argv)
    try:
        if args.write:
            changed = write(args.root)
            print(f"{len(changed)} generated page(s) rewritten" + "".join(f"\n  {path}" for path in changed))
            return 0
        stale = stale_pages(args.root)
    except AmlkitError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    if stale:
        sys.stdout.write("".join(stale.values()))
        print(f"{len(stale)} generated page(s) stale: {', '.join(sorted(stale))}; run: make docs")
        return 1
    print("generated pages are up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
