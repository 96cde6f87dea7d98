"""Audit a deployed state: the policy packs over a `pulumi stack export`, without running the program.

`amlkit check --state FILE` (alias `amlkit analyze --file FILE`) does what `pulumi policy analyze --file`
does (pulumi/pulumi `pkg/cmd/pulumi/policy/policy_analyze.go`, `pkg/resource/deploy/analyze_snapshot.go`);
the conversation with each pack is amlkit.review.pack.snapshot's:

- no program runs; resources marked for deletion (`delete: true`) are skipped;
- per resource and per pack, first `Remediate` (only when the pack has a policy at level remediate,
  the only policies pulumi-policy remediates): what a remediation would change is reported as an
  advisory finding naming the changed properties, never applied; a remediation's own diagnostic is an
  advisory finding, as the engine reports it;
- then `Analyze` with the resource's state **inputs**, as a dry run (a mandatory finding still fails);
- one `AnalyzeStack` per pack over every resource with its state **outputs**, parent, dependencies and
  property dependencies; a stack finding whose URN is not a resource of the state is the root stack's;
- secrets the export left encrypted (exported without `--show-secrets`) are never decrypted: the packs
  see the string `[secret]`, whatever the secret's type, and a warning says so on stderr;
- each file is one stack's audit: a file that does not load, or a pack that fails on it, is that
  stack's error, and the other files are still audited.

Packs, their configs (the project's `policy-config/<stack>.json` for amlkit's own pack, else a paired
`--policy-pack-config`), waivers, formats and exit codes are those of `amlkit check`.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import yaml

from amlkit.errors import ConfigError, ReviewFailed, UsageError, cut
from amlkit.review.model import PACK_DEFAULTS, Review, StackReview
from amlkit.review.options import ReviewOptions, check_review_date
from amlkit.review.pack import canary, multi, process, snapshot
from amlkit.review.pack.config import load_config_file
from amlkit.review.pack.info import default_pack_dir, installed_pack_dir
from amlkit.review.plan.stream import StateStream, peek_owner
from amlkit.review.proc import processes, workers
from amlkit.review.project import Project, find_project_file, load_project, refuse_state_link
from amlkit.review.secrets import Secrets

__all__ = ["WARNING", "audit"]

WARNING = "amlkit: warning: could not decrypt secrets in {file}; analyzing with secret values redacted"


def audit(files: Sequence[Path], project_dir: Path = Path("."), options: ReviewOptions | None = None) -> Review:
    """Audit each state file (one stack each) with the packs; one StackReview per file, in file order.

    project_dir: where amlkit's own pack finds the project's `policy-config/<stack>.json` (and the
    stack's `amlkit:environment`); no program of it runs. options: the packs and their configs, jobs,
    timeout and verbose (what plans against, `states` and `base`, does not apply). Bad usage (a
    pack/config count mismatch, a config directory without the stack's file) raises before any pack
    starts."""
    if not files:
        raise UsageError("no state file to audit")
    options = options or ReviewOptions()
    check_review_date()
    jobs = processes.usable_cpus() if options.jobs is None else options.jobs
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    own = installed_pack_dir() if multi.as_list(options.policy_pack) else default_pack_dir()
    specs = multi.resolve(options.policy_pack, options.policy_pack_config, own)
    canary.check_unknowns()  # an unknown must never turn into a finding unnoticed, in an audit either
    project = _project(Path(project_dir))
    base = project.dir if project else Path(project_dir).resolve()
    loaded = [_load(Path(path), base) for path in files]
    for item in loaded:  # a missing per-stack config file is bad usage, before any work
        if isinstance(item, _Loaded):
            for spec in specs:
                multi.config_path(spec, base, item.stack, _environment(project, item))
    with workers.review_session(None, specs[0].directory, len(loaded)):
        # one file: its CPUs share amlkit's own pack's Analyze calls (several: the files share them)
        run = _Audit(specs, project, base, options.timeout, options.verbose, jobs - 1 if len(loaded) == 1 else 0)
        if jobs == 1 or len(loaded) == 1:
            with processes.cancel_on_interrupt():
                return Review(tuple(run.stack(item) for item in loaded))
        pool = ThreadPoolExecutor(max_workers=jobs)
        try:
            with processes.cancel_on_interrupt():
                return Review(tuple(pool.map(run.stack, loaded)))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _project(project_dir: Path) -> Project | None:
    """The project whose policy config applies, when the directory is one (an audit needs none)."""
    if not project_dir.is_dir():
        raise UsageError(f"{project_dir}: not a directory")
    return load_project(project_dir) if find_project_file(project_dir.resolve()) else None


@dataclasses.dataclass(frozen=True)
class _Loaded:
    label: str  # the file as reports name it: relative to the project when inside it
    path: Path
    project: str
    stack: str


@dataclasses.dataclass(frozen=True)
class _Broken:
    label: str
    error: ConfigError


def _load(path: Path, base: Path) -> _Loaded | _Broken:
    """The file's owner, read up to its first resource: the rest streams through the audit."""
    label = _label(path, base)
    try:
        refuse_state_link(path, base)  # a link inside the project naming another file (SECURITY.md)
        project, stack = peek_owner(path)
    except ConfigError as error:
        return _Broken(label, error)
    return _Loaded(label, path, project, stack)


def _label(path: Path, base: Path) -> str:
    absolute = Path(os.path.abspath(path))
    try:
        return str(absolute.relative_to(base))
    except ValueError:
        return str(absolute)


def _environment(project: Project | None, item: _Loaded) -> str:
    """The stack's `amlkit:environment` from the project's stack file when it has one, else the stack."""
    if project is None or project.name != item.project:
        return item.stack
    try:
        data = yaml.safe_load(project.stack_file(item.stack).read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return item.stack
    config = data.get("config") if isinstance(data, dict) else None
    value = config.get("amlkit:environment") if isinstance(config, dict) else None
    return value if isinstance(value, str) and value else item.stack


class _Audit:
    def __init__(self, specs: tuple[multi.PackSpec, ...], project: Project | None, base: Path, timeout: float,
                 verbose: bool, spare: int = 0) -> None:
        self.specs, self.project, self.base, self.timeout, self.verbose = specs, project, base, timeout, verbose
        self.spare = spare  # helper processes of amlkit's own pack per file (snapshot.Helpers)

    def stack(self, item: _Loaded | _Broken) -> StackReview:
        """One file's audit, reading included, within the timeout (amlkit.review.pack.snapshot.Deadline)."""
        if isinstance(item, _Broken):
            result = StackReview(item.label, "", "", item.label, audited_state=item.label)
            return _config_failure(result, item.error, Secrets())
        stack = item.stack or item.label
        deadline = snapshot.Deadline(self.timeout, stack, item.label)
        environment = _environment(self.project, item)
        config_paths = [multi.config_path(spec, self.base, stack, environment) for spec in self.specs]
        labels = [_label(path, self.base) if path else PACK_DEFAULTS for path in config_paths]
        result = StackReview(stack, item.project, environment, item.label, policy_config=labels[0],
                             audited_state=item.label)
        seen = snapshot.Seen()
        try:
            configs = [(load_config_file(path, self.base) if path else None, str(path) if path else None)
                       for path in config_paths]
            with ExitStack() as running:
                started = [running.enter_context(process.PackProcess(spec.directory, item.project, stack, {},
                                                                    deadline.remaining(), self.verbose))
                           for spec in self.specs]
                helpers = [self._helpers(spec, item.project, stack, deadline) for spec in self.specs]
                analyses = snapshot.analyze_state(started, configs, StateStream(item.path), item.project, stack,
                                                  deadline, seen, helpers)
        except ConfigError as error:  # the state file, or a policy pack config
            self._warn(item, seen)
            return _config_failure(result, error, Secrets(seen.plaintexts))
        except ReviewFailed as failure:  # a pack failed, or the timeout: never a clean audit
            self._warn(item, seen)
            secrets = Secrets(seen.plaintexts)
            failure = deadline.explain(failure)
            return dataclasses.replace(result, error=secrets.scrub(f"stack {stack}: {failure}"), error_kind="pack")
        self._warn(item, seen)
        secrets = Secrets(seen.plaintexts)
        result = dataclasses.replace(result, resources=tuple(
            dataclasses.replace(record, inputs=secrets.redact(record.inputs)) for record in seen.records))
        return multi.add_results(result, analyses, self.specs, labels, seen.findings, secrets, item.project)

    def _helpers(self, spec: multi.PackSpec, project: str, stack: str,
                 deadline: snapshot.Deadline) -> snapshot.Helpers | None:
        """Processes of amlkit's own pack to share its Analyze calls: its rules are pure functions of each request,
        as the reused packs of a review rely on (amlkit.review.pack.pool.PackPool). Another pack gets the one
        process the engine gives it."""
        if not spec.own or self.spare < 1:
            return None
        return snapshot.Helpers(self.spare, lambda: process.PackProcess(spec.directory, project, stack, {},
                                                                       deadline.remaining(), self.verbose))

    @staticmethod
    def _warn(item: _Loaded, seen: snapshot.Seen) -> None:
        if seen.encrypted:
            print(WARNING.format(file=item.label), file=sys.stderr)


def _config_failure(result: StackReview, error: ConfigError, secrets: Secrets) -> StackReview:
    return dataclasses.replace(
        result, error=secrets.scrub(f"stack {result.stack}: {error}"), error_kind="config",
        error_detail=secrets.redact({"kind": "config", "stack": result.stack, "file": error.file,
                                     "key_path": error.key_path, "value": cut(error.value), "problem": error.problem}))
