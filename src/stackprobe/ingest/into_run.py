"""Ingested files made into a run: a new run directory (`--new NAME`) or more steps of an
existing one (`--into RUN`), so show, report, compare, history and export read them as
they read a live run.

Each file is one step: its kind is the one a live step of its tool has, its parameters
are planned by the real plan code (plan/expand.py: one_step) from what the file states
(workload.py), so its workload key is the key a live step of the same load gets. What the
kind would need and the file does not say is named in the step's warnings, never hidden.
The file itself is kept in the step's directory (through the run's redactor: byte for
byte unless it holds a secret), and the run says which files it ingested and which it
refused (RunInfo.ingested). results.json is saved after every step, as a live run is.
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from stackprobe import __version__
from stackprobe.analysis.step_summary import summarise_one
from stackprobe.ingest.files import Ingested
from stackprobe.ingest.sources import Source
from stackprobe.ingest.workload import Derived, derive
from stackprobe.kinds import registry
from stackprobe.plan.expand import one_step
from stackprobe.schema.results import RunInfo, RunResults, StepResult
from stackprobe.spec.planned import PlannedStep
from stackprobe.spec.steps import slug
from stackprobe.store.rundir import RunDir, atomic_write, load_results, new_run_id, utc_now_iso

SUITE_SOURCE = "ingested files"
STDIN_COPY = "stdin.txt"


@dataclass
class Target:
    """The run being written: its directory and results, saved after every step."""

    run_dir: RunDir
    results: RunResults

    @property
    def path(self) -> Path:
        return self.run_dir.path


def new_run(runs: Path, name: str, command_line: list[str]) -> Target:
    """An empty run `<runs>/<UTC id>-<name>` that says it holds ingested files."""
    run_dir = RunDir.create(runs, new_run_id(slug(name) or "ingested"))
    info = RunInfo(id=run_dir.run_id, suite=name, suite_source=SUITE_SOURCE, target="-",
                   host=platform.node() or "localhost", started=utc_now_iso(),
                   ended=utc_now_iso(), status="ok", stackprobe_version=__version__,
                   command_line=command_line, pid=os.getpid())
    return Target(run_dir, RunResults(run=info, steps=[]))


def existing_run(path: Path) -> Target:
    """A run directory to add steps to (its results.json validated first)."""
    return Target(RunDir(path), load_results(path))


def add_file(target: Target, source: Source, found: Ingested,
             derived: Derived | None = None) -> StepResult:
    """`found` as the run's next step, its source kept beside it; ValueError (one line)
    when no step kind measures its format. `derived`: its step as `derive` already made it."""
    results = target.results
    index = max((s.index for s in results.steps), default=0) + 1
    planned, warnings = plan_file(found, index, derived)
    planned = _unique(planned, {s.name for s in results.steps})
    copy_name = source.path.name if source.path is not None else STDIN_COPY
    step_dir = target.run_dir.step_dir(planned.id)
    # the bytes that were parsed, not the file again (it may have changed since)
    atomic_write(step_dir / copy_name, target.run_dir.redactor.data(source.data))
    now = utc_now_iso()
    records = registry.kind(planned.kind).ingested_records(list(found.records))
    step = StepResult(
        id=planned.id, index=planned.index, name=planned.name, kind=planned.kind,
        title=planned.title, layer=planned.layer, params=planned.params,
        headline=planned.headline, status="ok", started=now, ended=now,
        artifacts=[copy_name], records=records,
        summary=summarise_one(planned.headline, records),
        warnings=warnings,
        notes=[f"ingested from {source.name} ({found.format})"])
    results.steps.append(step)
    if results.run.suite_source == SUITE_SOURCE:  # a run of ingested files ends with its last
        results.run.ended = now
    results.run.ingested.append({"source": source.name, "format": found.format,
                                 "step": step.id, "copy": f"steps/{step.id}/{copy_name}"})
    target.run_dir.save(results)
    return step


def refuse(target: Target, name: str, why: str) -> None:
    """A source that is not in the run, said in the run itself."""
    target.results.run.ingested.append({"source": name, "refused": why})
    target.results.run.warnings.append(f"not ingested: {name}: {why}")
    target.run_dir.save(target.results)


def plan_file(found: Ingested, index: int = 1,
              derived: Derived | None = None) -> tuple[PlannedStep, list[str]]:
    """The planned step of the file's load, and its warnings: what its parameters took
    from elsewhere than the file. A value the kind's suite model refuses (an iperf3 run
    longer than a network step may be) is kept in the parameters as the file says it, and
    named. ValueError (one line) when no step kind measures the file's format. Pure."""
    derived = derived or derive(found)
    fields = dict(derived.fields)
    refused: dict[str, Any] = {}
    warnings: list[str] = []
    while True:
        try:
            planned = one_step({"kind": derived.kind, **fields}, index=index)
            break
        except ValidationError as exc:
            bad = {str(e["loc"][0]) for e in exc.errors() if e.get("loc")} & fields.keys()
            if not bad:
                raise ValueError(f"{derived.kind}: {exc.errors()[0].get('msg')}") from None
            for name in sorted(bad):
                refused[name] = fields.pop(name)
                warnings.append(f"{name}={refused[name]}: as the file says; not a value a "
                                f"{derived.kind} step of a suite takes")
    params = {k: v for k, v in planned.params.items() if k not in derived.drop}
    params.update(refused)
    kind = registry.kind(derived.kind)
    told = set(derived.fields) | derived.quiet | set(kind.verdict_fields)
    assumed = [f"{k}={v}" for k, v in params.items() if k not in told]
    if assumed:
        warnings.append(f"not stated in the file, taken as the {derived.kind} kind's "
                        f"defaults: {', '.join(assumed)}")
    return replace(planned, params=params), warnings + derived.notes


def _unique(planned: PlannedStep, names: set[str]) -> PlannedStep:
    """A name no step of the run has yet ('fio', 'fio-2', ...)."""
    if planned.name not in names:
        return planned
    n = 2
    while f"{planned.name}-{n}" in names:
        n += 1
    return replace(planned, name=f"{planned.name}-{n}")
