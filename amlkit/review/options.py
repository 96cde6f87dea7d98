"""How a review runs: one value for what `amlkit check` / `preview` / `analyze` flags set, passed whole from
the command line to the engine (`amlkit.review.engine.review`) and the audit (`amlkit.review.state_audit.audit`).

Light on purpose (no grpc, no pulumi): the CLI builds it before it imports the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from amlkit.errors import UsageError

__all__ = ["ReviewOptions", "check_review_date"]


@dataclass(frozen=True)
class ReviewOptions:
    """What a review is told, besides the project and its stacks.

    policy_pack: one pack directory or several (each runs on every stack); None = amlkit's own pack.
    policy_pack_config: none, or one per pack, paired in order (see amlkit.review.pack.multi): a Pulumi
    `--policy-pack-config` file for every stack, or a directory holding `<stack>.json` (else
    `<environment>.json`) per stack. A pack without one gets its defaults, except amlkit's own pack,
    which gets the project's own `policy-config/` directory by the same names when it exists.
    jobs: stacks reviewed in parallel (same result as serial); None = the CPUs this process may use.
    timeout: seconds for the program run, for the pack to print its port, and for EACH analyzer call; in an
    audit of a deployed state, for the whole audit of each state file (reading, every call, AnalyzeStack).
    verbose: failures carry the traceback (and the end of a failed pack's stderr).
    states: `pulumi stack export` files, one per stack, to plan against (amlkit.review.plan);
    base: a git revision whose program and stack files to plan against instead (`--base`).
    alias_shortcut: False runs the SDK's unused alias-URN and stack-walk work too (for comparisons only).
    reuse_packs: False starts a fresh process of amlkit's own pack per stack, which is otherwise reused
    across stacks and reviews, one per worker (same result: for comparisons only).
    An audit of deployed states (`amlkit.review.state_audit`) reads the packs, their configs, jobs, timeout and
    verbose; it runs no program, so the rest does not apply to it.
    """

    policy_pack: Path | Sequence[Path] | None = None
    policy_pack_config: Path | Sequence[Path] | None = None
    jobs: int | None = None
    timeout: float = 120.0
    verbose: bool = False
    states: Sequence[Path] = ()
    base: str | None = None
    alias_shortcut: bool = True
    reuse_packs: bool = True


def check_review_date() -> None:
    """`AMLKIT_REVIEW_DATE` is an input of the review: a malformed one is a usage error (exit 2) naming the
    variable, the bad value and the allowed form, before any work, never a policy that fails on it."""
    from amlkit.policies.framework import review_date

    try:
        review_date()
    except ValueError as error:
        raise UsageError(str(error)) from None
