"""What a plan is made against: a deployed state (`--state FILE`) or the program at a git revision
(`--base REV`). Every problem with either is found before any stack is reviewed (exit 2)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from amlkit.errors import UsageError, show_value
from amlkit.review.plan.state import StateResource, check_owner, load_state

__all__ = ["Baseline", "Checkout", "checkout", "from_state_files", "resolve"]


@dataclass(frozen=True)
class Baseline:
    """The deployed side of one stack's plan."""

    label: str  # "state prod.json" | "git main (1a2b3c4)"
    resources: tuple[StateResource, ...]
    answer: bool  # a real state: the runner answers deployed resources with their state outputs
    error: str | None = None  # the program at the base revision failed: the stack is not reviewed


def from_state_files(paths: Sequence[Path], project: str, stacks: Sequence[str]) -> dict[str, Baseline]:
    """One state per stack; each must be a state of this project and of a reviewed stack."""
    found: dict[str, Baseline] = {}
    for path in paths:
        state = load_state(path)
        stack = state.stack or (stacks[0] if len(stacks) == 1 else "")
        if not stack:
            raise UsageError(f"{path}: an empty state names no stack; give it with exactly one --stack")
        if stack not in stacks:
            check_owner(state, project, stacks[0] if len(stacks) == 1 else stack)
            raise UsageError(f"{path}: the state of stack {show_value(stack)}, which is not reviewed "
                             f"(reviewed: {', '.join(stacks)})")
        check_owner(state, project, stack)
        if stack in found:
            raise UsageError(f"{path}: a second state for stack {stack!r} ({found[stack].label} already given)")
        found[stack] = Baseline(f"state {path}", state.resources, answer=True)
    return found


# --- --base REV -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Checkout:
    """The repository at a revision, in a temporary worktree."""

    root: Path  # the worktree root
    project_dir: Path  # the same project inside it
    label: str
    components: Path | None  # amlkit's own components at the revision, when the repo is amlkit


def resolve(project_dir: Path, rev: str) -> tuple[Path, str]:
    """(repository root, full commit hash) of `rev`, or a UsageError naming what is wrong."""
    if shutil.which("git") is None:
        raise UsageError("--base needs git, which is not installed")
    root = _git(project_dir, "rev-parse", "--show-toplevel")
    if root is None:
        raise UsageError(f"--base {rev}: {project_dir} is not inside a git repository")
    commit = _git(project_dir, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    if commit is None or rev.startswith("-"):
        raise UsageError(f"--base {rev}: not a revision of the repository at {root} "
                         "(give a branch, tag or commit, e.g. origin/main)")
    return Path(root), commit


@contextmanager
def checkout(project_dir: Path, rev: str) -> Iterator[Checkout]:
    """A detached worktree of `rev`, removed afterwards whatever happens."""
    root, commit = resolve(project_dir, rev)
    relative = Path(project_dir).resolve().relative_to(root.resolve())
    with tempfile.TemporaryDirectory(prefix="amlkit-base-") as tmp:
        tree = Path(tmp) / "tree"
        done = subprocess.run(["git", "-C", str(root), "worktree", "add", "--detach", "--quiet", str(tree), commit],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise UsageError(f"--base {rev}: git could not check out {commit[:7]}: {done.stderr.strip()}")
        try:
            components = tree / "components"
            own = (components / "__init__.py").is_file() and (tree / "amlkit" / "review").is_dir()
            yield Checkout(tree, tree / relative, f"git {rev} ({commit[:7]})", components if own else None)
        finally:
            subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(tree)], capture_output=True)
            subprocess.run(["git", "-C", str(root), "worktree", "prune"], capture_output=True)


def _git(cwd: Path, *args: str) -> str | None:
    done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None
