"""Several policy packs in one review, paired with their configs as `pulumi preview` pairs them.

`--policy-pack` and `--policy-pack-config` are repeatable; the first config goes with the first pack,
and so on (pulumi/pulumi `pkg/cmd/pulumi/operations/up.go` `validatePolicyPackConfig`,
`pkg/engine/update.go` `MakeLocalPolicyPacks`): either no config at all, or exactly one per pack.
Without `--policy-pack` the review runs amlkit's own pack, which then takes at most one config.

Which config a pack gets for one stack (`config_path`):
- the config paired with it: a file, or a directory holding `<stack>.json` (else `<environment>.json`);
- none paired: amlkit's own pack (the directory `amlkit pack-path` prints) gets the project's
  `policy-config/<stack>.json` (else `<environment>.json`) when there is one; any other pack, one the
  user named, gets its own defaults. A project's config is written for amlkit's policies: it is never
  applied to a pack it was not written for.

`Sessions` runs one analyzer conversation per pack for one stack (`session.Session` each, all built from the
stack's one `session.SessionParams`), fed the same registrations, and returns one `diagnostics.Analysis` per pack,
in the packs' order.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from amlkit.errors import UsageError
from amlkit.review.model import StackReview
from amlkit.review.secrets import Secrets

if TYPE_CHECKING:
    from amlkit.review.pack.pool import PackPool
    from amlkit.review.pack.session import SessionParams

__all__ = [
    "POLICY_CONFIG_DIR", "PackSpec", "Sessions", "add_results", "as_list", "config_path", "pairing_error",
    "resolve",
]

POLICY_CONFIG_DIR = "policy-config"  # next to Pulumi.yaml: <stack>.json (else <environment>.json) per stack


@dataclass(frozen=True)
class PackSpec:
    """One pack of a review: its directory, the config paired with it (a file or a directory of
    per-stack files, None when none was given), and whether it is amlkit's own pack."""

    directory: Path
    config: Path | None = None
    own: bool = False


def as_list(value: Path | Sequence[Path] | None) -> list[Path]:
    """One path, several, or none (the engine's API takes either), as a list."""
    if value is None:
        return []
    if isinstance(value, (str, Path)):
        return [Path(value)]
    return [Path(item) for item in value]


def pairing_error(packs: Sequence[Path], configs: Sequence[Path]) -> str | None:
    """Pulumi's pairing rule, as one message naming both counts; None when the flags pair up."""
    if not configs or len(configs) == max(len(packs), 1):
        return None
    if not packs:
        return (f"--policy-pack-config was given {len(configs)} times but no --policy-pack was: without "
                "--policy-pack the review runs amlkit's own pack, which takes one --policy-pack-config")
    return (f"the number of --policy-pack-config flags ({len(configs)}) must match the number of --policy-pack "
            f"flags ({len(packs)}): the first config goes with the first pack, and so on; give one config per "
            "pack, or none (then each pack runs with its defaults, and amlkit's own pack with the project's "
            f"{POLICY_CONFIG_DIR}/<stack>.json)")


def resolve(policy_packs: Path | Sequence[Path] | None, configs: Path | Sequence[Path] | None,
            own_pack: Path | None) -> tuple[PackSpec, ...]:
    """The review's packs, in the order given (amlkit's own pack when none is), each with its config.
    A count mismatch, or a directory that is not a pack, is a UsageError (exit 2) before any work."""
    packs, given = as_list(policy_packs), as_list(configs)
    error = pairing_error(packs, given)
    if error:
        raise UsageError(error)
    own = own_pack.resolve() if own_pack is not None else None
    directories = [Path(p).resolve() for p in packs] or ([own] if own is not None else [])
    if not directories:
        raise UsageError("no policy pack: amlkit's own pack is not installed; give --policy-pack")
    for directory in directories:
        if not (directory / "PulumiPolicy.yaml").is_file():
            raise UsageError(f"{directory}: not a policy pack (no PulumiPolicy.yaml)")
    seen = [d for i, d in enumerate(directories) if d in directories[:i]]
    if seen:
        raise UsageError(f"{seen[0]}: --policy-pack given twice (each pack runs once per stack)")
    paired: Sequence[Path | None] = given or [None] * len(directories)
    return tuple(PackSpec(d, c, own=d == own) for d, c in zip(directories, paired, strict=True))


def config_path(spec: PackSpec, project_dir: Path, stack: str, environment: str) -> Path | None:
    """The config file of one pack for one stack (see the module doc); None: the pack's defaults."""
    if spec.config is None:
        if not spec.own:
            return None
        return _in_directory(project_dir / POLICY_CONFIG_DIR, stack, environment, required=False)
    if not Path(spec.config).is_dir():
        return spec.config
    return _in_directory(Path(spec.config), stack, environment, required=True)


def _in_directory(directory: Path, stack: str, environment: str, required: bool) -> Path | None:
    names = list(dict.fromkeys((stack, environment)))
    for name in names:
        if (directory / f"{name}.json").is_file():
            return directory / f"{name}.json"
    if not required:
        return None
    looked = " or ".join(f"{name}.json" for name in names)
    raise UsageError(f"{directory}: no policy pack config for stack {stack} (looked for {looked})")


def add_results(result: StackReview, analyses: Sequence[Any], specs: Sequence[PackSpec], labels: Sequence[str],
                records: list[dict[str, Any]], secrets: Secrets, project: str) -> StackReview:
    """Every pack's findings on the stack, then its packs (each with where it ran from and the config it
    got); an answer this review cannot read fails the stack (a pack error), never a partial report."""
    from amlkit.errors import ReviewFailed
    from amlkit.review.pack.findings import add_findings, pack_info_of
    from amlkit.review.pack.remediate import add_remediations

    try:
        for analysis in analyses:
            result = add_findings(result, analysis, records, secrets, project)
            result = add_remediations(result, analysis, records, secrets)
    except ReviewFailed as failure:
        return replace(result, violations=(), unknown=(), remediations=(),
                       error=secrets.scrub(f"stack {result.stack}: {failure}"), error_kind="pack")
    packs = tuple(replace(pack_info_of(analysis), directory=str(spec.directory), policy_config=label)
                  for analysis, spec, label in zip(analyses, specs, labels, strict=True))
    return replace(result, packs=packs, pack=packs[0])


class Sessions:
    """One analyzer conversation per pack for one stack, all fed the same registrations."""

    def __init__(self, specs: Sequence[PackSpec], configs: Sequence[tuple[Any, str | None]], params: SessionParams,
                 pools: Sequence[PackPool] = ()) -> None:
        """configs: each pack's (policy config, its file name); pools: a PackPool per spec (the review's:
        amlkit's own pack reused across stacks); none: a fresh process per pack."""
        from amlkit.review.pack.session import Session

        self._exit = ExitStack()
        self.sessions: list[Session] = []
        self.remediated: dict[str, dict[str, Any]] = {}  # urn -> a resource a pack changed, as remediated
        try:
            # every pack starts before the first one is configured: they load side by side
            if pools:
                processes = [self._exit.enter_context(pool.pack(params)) for pool in pools]
            else:
                processes = [self._exit.enter_context(params.start(spec.directory)) for spec in specs]
            for pack, (file_config, file_name) in zip(processes, configs, strict=True):
                self.sessions.append(Session(pack, params, file_config, file_name))
        except BaseException as error:
            # the failure reaches every pack's context: a pool then kills that pack instead of reusing it
            self._exit.__exit__(type(error), error, error.__traceback__)
            raise

    def __enter__(self) -> Sessions:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._exit.__exit__(*exc)  # with the exception, if any (see above)

    def submit(self, resource: dict[str, Any]) -> None:
        """Remediate on every pack in turn, then Analyze the remediated resource on each (pack.remediate)."""
        from amlkit.review.pack.remediate import remediate

        registered = resource
        for session in self.sessions:
            resource = remediate(session, resource)
        if resource is not registered:
            self.remediated[resource["urn"]] = resource
        for session in self.sessions:
            session.submit(resource)

    def finish(self, resources: Sequence[dict[str, Any]]) -> list[Any]:
        """AnalyzeStack on every pack, with each resource as remediated (its outputs are the remediated inputs')."""
        resources = [self.remediated.get(resource["urn"], resource) for resource in resources]
        return [session.finish(resources) for session in self.sessions]
