"""Run progress: a rich bar with the suite's ETA and the current step in a terminal,
one plain line per step otherwise (CI logs, pipes)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from stackprobe.schema.results import StepResult
from stackprobe.spec.planned import PlannedStep
from stackprobe.units import fmt_seconds

_STATUS_STYLE = {"ok": "green", "partial": "bold yellow", "failed": "bold red", "interrupted": "yellow"}


class RunProgress:
    """Progress by estimated seconds: finished steps count their estimate, so the ETA
    corrects itself as steps finish early or late."""

    def __init__(self, plan: Sequence[PlannedStep], console: Console):
        self.console = console
        self.total = sum(s.estimate_s for s in plan) or 1.0
        self.done_estimate = 0.0
        self.started = time.monotonic()
        self.live = console.is_terminal
        self._bar: Progress | None = None
        self._task = None
        self._current: PlannedStep | None = None
        self.count = len(plan)

    def __enter__(self) -> RunProgress:
        if self.live:
            self._bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                TextColumn("{task.fields[eta]}"),
                TimeElapsedColumn(),
                console=self.console,
                transient=True,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task("starting", total=self.total, eta="")
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)

    def step_started(self, step: PlannedStep) -> None:
        self._current = step
        if self._bar is not None:
            self._bar.update(self._task, description=f"[{step.index}/{self.count}] {step.title}",
                             completed=self.done_estimate, eta=self._eta(step))
        else:
            self.console.print(f"[{step.index}/{self.count}] {step.id}: {step.title} ...")

    def step_finished(self, step: PlannedStep, result: StepResult) -> None:
        self.done_estimate += step.estimate_s
        style = _STATUS_STYLE.get(result.status, "white")
        line = (f"[{step.index}/{self.count}] {step.title}: [{style}]{result.status}[/]"
                f" ({result.duration_s or 0:.1f} s)")
        if result.error:
            line += f" - {result.error}"
        self.console.print(line)
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done_estimate)

    def _eta(self, step: PlannedStep) -> str:
        elapsed = time.monotonic() - self.started
        rate = elapsed / self.done_estimate if self.done_estimate > 5 else 1.0
        left = (self.total - self.done_estimate) * rate
        return f"ETA {fmt_seconds(left)}"
