"""The offline review: each stack's program under mocks (a child process), then the policy pack.

Public API (used by the CLI): `review` (told how by a `ReviewOptions`), `pack_info`, `default_pack_dir`,
`list_stacks`. The program runs through amlkit.review.run.client, the packs through amlkit.review.pack;
what the program registered and the analyzer said becomes the report's records in
amlkit.review.pack.findings.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import traceback
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from amlkit.errors import ConfigError, ReviewFailed, UsageError, cut, show_value
from amlkit.policies.framework import PACK_NAME, review_date
from amlkit.review.model import PACK_DEFAULTS, PackInfo, Review, StackReview, Unknown, Violation
from amlkit.review.options import ReviewOptions, check_review_date
from amlkit.review.pack import canary, multi
from amlkit.review.pack.config import load_config_file
from amlkit.review.pack.info import POLICY_PACK_FILES, default_pack_dir, installed_pack_dir
from amlkit.review.pack.waivers import waiver_warnings
from amlkit.review.plan import baseline, diff
from amlkit.review.plan.baseline import Baseline
from amlkit.review.proc import processes, warm, workers
from amlkit.review.project import (
    SECRET_PLACEHOLDER,
    Project,
    StackConfig,
    check_main,
    find_project_file,
    ignored_stack_files,
    load_project,
    load_stack_config,
    refuse_state_link,
)
from amlkit.review.project import list_stacks as _list_stacks
from amlkit.review.run import providers
from amlkit.review.run.client import ProgramFailed, Runner
from amlkit.review.run.identity import azure_ids
from amlkit.review.run.lookups import Lookups, load_lookups
from amlkit.review.secrets import Secrets
from amlkit.review.urns import stack_urn

if TYPE_CHECKING:
    from amlkit.review.pack.pool import PackPool

# The pack side (amlkit.review.pack.session, .pool and .findings: pulumi's SDK, grpc, protobuf, ~0.1-0.2 s of
# imports) is imported when a review first needs it, after its first program child was forked: a cold one-stack
# review then imports it while the program runs on the other core, instead of before the fork (#33).

__all__ = ["POLICY_PACK_FILES", "ReviewOptions", "default_pack_dir", "list_stacks", "pack_info", "review"]


def list_stacks(project_dir: Path) -> list[str]:
    """Every `Pulumi.<stack>.yaml` in the project's stack config dir, sorted."""
    return _list_stacks(project_dir)


def review(project_dir: Path, stacks: Sequence[str] | None = None, options: ReviewOptions | None = None) -> Review:
    """Review stacks of a Pulumi Python project offline: program under mocks, pack over gRPC.

    stacks: None = every `Pulumi.<stack>.yaml` in the stack config dir, sorted. options: the packs and
    their configs, jobs, timeout, verbose, what to plan against (amlkit.review.options.ReviewOptions;
    None = its defaults: amlkit's own pack with the project's `policy-config/`, one job per usable CPU).

    Every failure of one stack is that stack's `error`; the other stacks are still reviewed. A stack
    file error, a policy pack config error or an amlkit ConfigError the program raised is a config error
    (`error_kind` "config", exit 2, fields in `error_detail`); program and pack failures exit 3. Only bad
    usage (unknown stack, bad --jobs, missing project) raises, before any work; a failed start-up canary
    (`amlkit.review.pack.canary`: the installed pulumi-policy no longer says "cannot tell" in the words amlkit
    reads as *unknown*; ReviewFailed, exit 3) raises once the stacks have run, so no result is returned.
    """
    options = options or ReviewOptions()
    jobs = processes.usable_cpus() if options.jobs is None else options.jobs
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    check_review_date()
    workers.check_switch()
    project = load_project(project_dir)
    check_main(project)
    providers.check(project.dir)  # a program for another provider version: one clear error, exit 2
    providers.check_classic(project.main)  # a program for the classic provider without amlkit[classic]: exit 2
    names = list(stacks) if stacks is not None else _list_stacks(project.dir)
    for ignored in ignored_stack_files(project):  # Pulumi drops them silently; say so
        print(f"amlkit: warning: {project.relative(ignored)} is ignored: a stack file must be named "
              f"Pulumi.<stack>.yaml (Pulumi ignores this one too)", file=sys.stderr)
    if not names:
        raise UsageError(f"{project.dir}: no stacks (no Pulumi.<stack>.yaml in {project.stack_config_dir})")
    own = installed_pack_dir() if multi.as_list(options.policy_pack) else default_pack_dir()
    specs = multi.resolve(options.policy_pack, options.policy_pack_config, own)
    # a bad stack file is that stack's error; an unknown stack name is a usage error, before any work
    configs = [_load_stack(project, name) for name in names]
    setup = _Setup(options, specs, lookups=load_lookups(project.dir))
    if options.verbose:
        from amlkit.patches import report

        for line in report():
            print(f"amlkit: {line}", file=sys.stderr)
    for config in configs:  # a missing per-stack config file fails before any work too
        if isinstance(config, StackConfig):
            for spec in specs:
                multi.config_path(spec, project.dir, config.stack, config.environment())
    setup = replace(setup, pools=_Pools(specs, jobs, options.reuse_packs), prefork=warm.eager(len(configs)))
    with workers.review_session(project.main, specs[0].directory, len(configs)):  # the fork server (proc.warm)
        if options.states or options.base is not None:
            setup = replace(setup, baselines=_baselines(project, names, options.states, options.base, setup))
        result = _review_all(project, configs, setup, jobs)
    # before anything is reported (the caller reports the Review this returns): unknowns must never turn into
    # findings unnoticed. Checked last, so its import of pulumi-policy overlaps the programs, not precedes them.
    canary.check_unknowns()
    return result


def _review_all(project: Project, configs: list[StackConfig | _BadStackFile], setup: _Setup, jobs: int) -> Review:
    if jobs == 1 or len(configs) == 1:
        with processes.cancel_on_interrupt():
            return Review(tuple(_review_stack(project, config, setup) for config in configs))
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        with processes.cancel_on_interrupt():
            results = list(pool.map(lambda c: _review_stack(project, c, setup), configs))
    finally:
        # after an interrupt the children are dead, so the workers return at once
        pool.shutdown(wait=True, cancel_futures=True)
    return Review(tuple(results))


def pack_info(policy_pack: Path | None = None, config: Path | None = None) -> PackInfo:
    """The pack's policies with their levels after reconciliation with `config` (for `amlkit rules`)."""
    from amlkit.review.pack.findings import pack_info_of
    from amlkit.review.pack.process import PackProcess
    from amlkit.review.pack.session import configure, handshake

    pack_dir = _pack_dir(policy_pack)
    if config is not None and Path(config).is_dir():
        raise UsageError(f"{config}: a directory; `rules` takes one policy pack config file")
    file_config = load_config_file(config) if config else None
    with workers.review_session(None, pack_dir, 1), PackProcess(pack_dir, "amlkit", "rules", {}, 60.0) as pack:
        handshake(pack)
        analysis = configure(pack, file_config, str(config) if config else None)
    return pack_info_of(analysis)


# --- one stack ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Setup:
    """What every stack of one review shares: its options and what was resolved from them once."""

    options: ReviewOptions
    packs: tuple[multi.PackSpec, ...]  # in the order given; each with the config paired with it
    baselines: dict[str, Baseline] | None = None  # stack -> what its plan is made against
    lookups: Lookups | None = None  # the project's lookups file (amlkit.review.run.lookups)
    pools: _Pools | None = None  # per pack: its processes, reused across stacks for amlkit's own
    prefork: bool = False  # a one-stack CLI review: the packs' children start beside the program's (warm.eager)


class _Pools:
    """The review's pack pools (amlkit.review.pack.pool.PackPool, one per pack), made on first use: amlkit's own
    pack is reused across stacks and reviews, one per worker; any other is fresh per stack."""

    def __init__(self, specs: Sequence[multi.PackSpec], jobs: int, reuse: bool) -> None:
        self._specs, self._jobs, self._reuse = tuple(specs), jobs, reuse
        self._pools: tuple[PackPool, ...] | None = None
        self._lock = threading.Lock()

    def get(self) -> tuple[PackPool, ...]:
        with self._lock:
            if self._pools is None:
                from amlkit.review.pack.pool import PackPool

                self._pools = tuple(PackPool.shared(spec.directory, self._jobs) if self._reuse and spec.own
                                    else PackPool(spec.directory, reuse=False) for spec in self._specs)
            return self._pools


def _load_stack(project: Project, name: str) -> StackConfig | _BadStackFile:
    try:
        return load_stack_config(project, name)
    except ConfigError as error:
        return _BadStackFile(name, error)


@dataclass(frozen=True)
class _BadStackFile:
    """A stack whose file did not load: reported as that stack's config error."""

    stack: str
    error: ConfigError


def _review_stack(project: Project, config: StackConfig | _BadStackFile, setup: _Setup) -> StackReview:
    """One stack's review; anything unexpected raised on the way is that stack's error (`error_kind`
    "internal", exit 3), never the other stacks'. Only Ctrl-C (KeyboardInterrupt) goes through."""
    streamed: list[dict[str, Any]] = []
    try:
        return _review_one(project, config, setup, streamed)
    except Exception as error:  # noqa: BLE001 - isolated to this stack and reported, closed
        return _internal_failure(project, config, error, _secrets(streamed), setup.options.verbose)


def _internal_failure(project: Project, config: StackConfig | _BadStackFile, error: Exception, secrets: Secrets,
                      verbose: bool) -> StackReview:
    environment = config.stack
    if isinstance(config, StackConfig):
        with contextlib.suppress(Exception):
            environment = config.environment()
    detail = str(error)
    message = f"stack {config.stack}: internal error: {type(error).__name__}{': ' + detail if detail else ''}"
    if verbose:
        message += "\n" + "".join(traceback.format_exception(error)).rstrip()
    return StackReview(config.stack, project.name, environment, project.relative(project.stack_file(config.stack)),
                       error=secrets.scrub(message), error_kind="internal")


def _review_one(project: Project, config: StackConfig | _BadStackFile, setup: _Setup,
                streamed: list[dict[str, Any]]) -> StackReview:
    """Runner and pack start together; the pack analyzes each registration as the program makes it.
    `streamed` receives every registration as it arrives (to scrub secrets from any failure)."""
    stack_file = project.relative(project.stack_file(config.stack))
    if isinstance(config, _BadStackFile):
        result = StackReview(config.stack, project.name, config.stack, stack_file)
        return _config_failure(result, config.error, None, _secrets([]), project)
    environment = config.environment()
    config_paths = [multi.config_path(spec, project.dir, config.stack, environment) for spec in setup.packs]
    labels = [project.relative(Path(os.path.abspath(path))) if path else PACK_DEFAULTS for path in config_paths]
    result = StackReview(config.stack, project.name, environment, stack_file, policy_config=labels[0])
    baseline = (setup.baselines or {}).get(config.stack)
    if baseline is not None and baseline.error:
        return replace(result, error=baseline.error, error_kind="program")
    runner: Runner | None = None
    try:
        file_configs = [(load_config_file(path, project.dir) if path else None, str(path) if path else None)
                        for path in config_paths]
        ids = azure_ids(config, stack_file, setup.lookups)
        options = setup.options
        runner = Runner(project, config, {**_runner_request(setup), **_state_request(baseline),
                                          "azure": ids.to_request()}, options.timeout, options.verbose)
        if setup.prefork:  # before this process imports the pack side below (grpc, pulumi's protobufs)
            for spec in setup.packs:
                warm.prefork_pack(spec.directory, project.name, config.stack, config.values)
        canary.start()  # once per process: its child runs beside the stacks' (checked when the review returns)
        from amlkit.review.pack.findings import resource_record, stable, unanswered_lookups  # after the fork
        from amlkit.review.pack.session import SessionParams

        pools = setup.pools.get() if setup.pools is not None else ()
        params = SessionParams(project.name, config.stack, config.values, config.secret_keys, options.timeout,
                               options.verbose)
        with multi.Sessions(setup.packs, file_configs, params, pools) as session:
            for record in runner.records():
                streamed.append(record)
                session.submit(record)
            records = stable(streamed)
            secrets = _secrets(records)
            result = replace(result, resources=tuple(resource_record(r, secrets) for r in records),
                             lookups=tuple(unanswered_lookups(runner.lookups, secrets)))
            if baseline is not None:
                result = replace(result, plan=replace(
                    _plan(records, runner.stack_outputs, baseline, project.name, config.stack),
                    azure=ids.describe(config.stack), azure_ids=ids.to_json()))
            analyses = session.finish(records)
    except ConfigError as error:  # the policy config, or a ConfigError the program raised
        result = replace(result, resources=())
        return _config_failure(result, error, getattr(error, "component", None), _secrets(streamed), project)
    except ReviewFailed as failure:
        # a failing policy or program may quote input values: scrub every secret seen so far
        return replace(result, error=_secrets(streamed).scrub(str(failure)),
                       error_kind="program" if isinstance(failure, ProgramFailed) else "pack")
    finally:
        if runner is not None:
            runner.close()
    result = multi.add_results(result, analyses, setup.packs, labels, records, secrets, project.name)
    if result.error is None:  # waivers are amlkit's: the config of amlkit's pack (or a copy of it) is checked
        ours: list[Violation | Unknown] = [*(v for v in result.violations if v.pack == PACK_NAME),
                                            *(u for u in result.unknown if u.pack == PACK_NAME)]
        result = replace(result, warnings=tuple(
            warning for analysis, label in zip(analyses, labels, strict=True) if analysis.pack_name == PACK_NAME
            for warning in waiver_warnings(analysis.config, records, ours, label, config.stack, review_date())))
    return result


# --- plans (amlkit.review.plan.baseline, amlkit.review.plan.diff) -------------------------------------------------

def _baselines(project: Project, names: Sequence[str], states: Sequence[Path], base: str | None,
               setup: _Setup) -> dict[str, Baseline]:
    if states and base is not None:
        raise UsageError("give --state or --base, not both")
    if states:
        for path in states:  # a link inside the project naming another file is refused (SECURITY.md)
            refuse_state_link(path, project.dir)
        return baseline.from_state_files(states, project.name, names)
    assert base is not None
    baselines: dict[str, Baseline] = {}
    with baseline.checkout(project.dir, base) as tree, processes.cancel_on_interrupt():
        for stack in names:
            baselines[stack] = _base_of(tree, project.name, stack, setup)
    return baselines


def _base_of(tree: baseline.Checkout, project_name: str, stack: str, setup: _Setup) -> Baseline:
    """The stack as the program at the base revision registers it; nothing when it did not exist."""
    if find_project_file(tree.project_dir) is None:
        return Baseline(tree.label, (), answer=False)
    project = load_project(tree.project_dir)
    if not project.stack_file(stack).is_file() or project.name != project_name:
        return Baseline(tree.label, (), answer=False)
    extra: dict[str, Any] = {"packages": {"amlkit.components": str(tree.components)}} if tree.components else {}
    try:
        config = load_stack_config(project, stack)
        extra["azure"] = azure_ids(config, project.relative(project.stack_file(stack)), setup.lookups).to_request()
        runner = Runner(project, config, {**_runner_request(setup), **extra}, setup.options.timeout,
                        setup.options.verbose)
    except ConfigError as failure:  # the stack file at the base is broken: this stack cannot be planned
        return Baseline(tree.label, (), answer=False, error=f"stack {stack}: at {tree.label}: {failure}")
    from amlkit.review.pack.findings import stable

    try:
        records = stable(list(runner.records()))
    except (ReviewFailed, ConfigError) as failure:
        message = str(failure).removeprefix(f"stack {stack}: ")
        return Baseline(tree.label, (), answer=False, error=f"stack {stack}: at {tree.label}: {message}")
    except Exception as error:  # noqa: BLE001 - this stack's plan cannot be made; the others still are
        return Baseline(tree.label, (), answer=False,
                        error=f"stack {stack}: at {tree.label}: internal error: {type(error).__name__}: {error}")
    finally:
        runner.close()
    base = diff.base_from_records(records, stack_urn(project_name, stack), runner.stack_outputs)
    return Baseline(tree.label, tuple(base), answer=False)


def _runner_request(setup: _Setup) -> dict[str, Any]:
    """What every program run of this review is told besides its stack (see amlkit.review.run.runner)."""
    return {"alias_shortcut": setup.options.alias_shortcut,
            "lookups": setup.lookups.to_json() if setup.lookups else None}


def _state_request(base: Baseline | None) -> dict[str, Any]:
    """The runner answers deployed resources from a real state (never from a `--base` run)."""
    if base is None or not base.answer:
        return {}
    return {"state": [r.to_dict() for r in base.resources]}


def _plan(records: list[dict[str, Any]], outputs: dict[str, Any], base: Baseline, project: str,
          stack: str) -> diff.Plan:
    values = [r["inputs"] for r in records] + [outputs] + [v for r in base.resources for v in (r.inputs, r.outputs)]
    secrets = Secrets.from_inputs(values, extra=[SECRET_PLACEHOLDER])
    return diff.make_plan(records, base.resources, base.label, stack_urn(project, stack), secrets,
                          outputs)


def _config_failure(result: StackReview, error: ConfigError, component: dict[str, str] | None,
                    secrets: Secrets, project: Project) -> StackReview:
    """The stack's config error: a message naming stack, file, component, key, value and what is allowed,
    and the same as fields (error_detail). The file is the stack file when the error names none."""
    fields = dict(getattr(error, "fields", None) or {
        key: value for key, value in vars(error).items() if not key.startswith("_") and key != "source"})
    source = getattr(error, "source", None)  # a component argument: the program line that built it
    file = project.relative(Path(error.file)) if error.file else result.stack_file
    text = str(error).replace(f"{error.file}:", f"{file}:", 1) if error.file else str(error)
    prefix = "" if error.file else f"{result.stack_file}: "
    if source is not None and not error.file:
        file = project.relative(Path(source["file"]))
        fields["line"] = source["line"]
        prefix = f"{file}:{source['line']}: "
    if component is not None and component["name"] not in text:
        prefix += f"component {component['name']} ({component['type']}): "
    suffix = ""
    value = fields.get("value")
    if value is not None and show_value(value) not in text and repr(value) not in text and f"got {value}" not in text:
        suffix = f" (got {show_value(value)})"
    if "value" in fields:
        fields["value"] = cut(fields["value"])  # as the message quotes it: never a whole document
    detail = {**fields, "kind": "config", "stack": result.stack, "file": file,
              "component": f"{component['type']}::{component['name']}" if component else fields.get("component")}
    return replace(result, error=secrets.scrub(f"stack {result.stack}: {prefix}{text}{suffix}"), error_kind="config",
                   error_detail=secrets.redact(detail))


def _secrets(records: list[dict[str, Any]]) -> Secrets:
    """Every secret value in the recorded inputs, plus the placeholder standing for `secure:` config."""
    return Secrets.from_inputs([r["inputs"] for r in records], extra=[SECRET_PLACEHOLDER])


def _pack_dir(policy_pack: Path | None) -> Path:
    pack_dir = Path(policy_pack).resolve() if policy_pack else default_pack_dir()
    if not (pack_dir / "PulumiPolicy.yaml").is_file():
        raise UsageError(f"{pack_dir}: not a policy pack (no PulumiPolicy.yaml)")
    return pack_dir
