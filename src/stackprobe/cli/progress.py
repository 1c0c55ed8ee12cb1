"""Run progress: a rich bar with the suite's ETA and the current step in a terminal,
one plain line per step otherwise (CI logs, pipes); and the step's live figures
(docs/live.md): in a terminal a line under the bar, updated every interval; otherwise a
plain line now and then (cli/live_lines.py); none with --quiet."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from stackprobe.analysis.live_figures import LiveFigures, LiveSink
from stackprobe.cli.live_lines import PLAIN_EVERY_S, Throttle, elapsed_text, live_text
from stackprobe.schema.results import StepResult
from stackprobe.spec.planned import PlannedStep
from stackprobe.units import fmt_seconds

_STATUS_STYLE = {"ok": "green", "partial": "bold yellow", "failed": "bold red", "interrupted": "yellow"}
MAX_LIVE_LINES = 8  # hosts shown under the bar; the others are counted
TICK_S = 1.0  # how often a step without figures has its elapsed time refreshed


class _BarWithLines(Progress):
    """The bar, and under it the current step's live lines (rich renders both in place)."""

    def __init__(self, *columns, **kwargs):
        self.lines: list[str] = []  # before rich's Live, which renders at once
        super().__init__(*columns, **kwargs)

    def get_renderables(self):
        yield self.make_tasks_table(self.tasks)
        for line in self.lines:
            yield Text(f"  {line}", style="cyan", no_wrap=True, overflow="ellipsis")


class RunProgress:
    """Progress by estimated seconds: finished steps count their estimate, so the ETA
    corrects itself as steps finish early or late."""

    def __init__(self, plan: Sequence[PlannedStep], console: Console, quiet: bool = False):
        self.console = console
        self.quiet = quiet
        self.total = sum(s.estimate_s for s in plan) or 1.0
        self.done_estimate = 0.0
        self.started = time.monotonic()
        self.live = console.is_terminal
        self._bar: Progress | None = None
        self._task = None
        self._current: PlannedStep | None = None
        self.count = len(plan)
        self._lock = threading.Lock()
        self._figures: dict[str | None, str] = {}  # host -> the last interval's line
        self._throttle = Throttle()
        self._step_t0 = 0.0
        self._last_plain = 0.0  # when a plain elapsed line was last printed
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    @property
    def live_sink(self) -> LiveSink | None:
        """What runners call with each interval's figures (kinds/live.py); None: --quiet."""
        return None if self.quiet else self.live_figures

    def __enter__(self) -> RunProgress:
        if self.live:
            self._bar = _BarWithLines(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                TextColumn("{task.fields[eta]}"),
                TimeElapsedColumn(),
                console=self.console,
                transient=True,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task("starting", total=self.total, eta="")
        if not self.quiet:
            self._ticker = threading.Thread(target=self._tick, name="live", daemon=True)
            self._ticker.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        if self._bar is not None:
            self._bar.__exit__(*exc)

    def step_started(self, step: PlannedStep) -> None:
        with self._lock:
            self._current = step
            self._figures.clear()
            self._throttle.reset()
            self._step_t0 = self._last_plain = time.monotonic()
            self._show([])
        if self._bar is not None:
            self._bar.update(self._task, description=f"[{step.index}/{self.count}] {step.title}",
                             completed=self.done_estimate, eta=self._eta(step))
        else:
            self.console.print(f"[{step.index}/{self.count}] {step.id}: {step.title} ...")

    def step_finished(self, step: PlannedStep, result: StepResult) -> None:
        with self._lock:
            self._current = None
            self._show([])
        self.done_estimate += step.estimate_s
        style = _STATUS_STYLE.get(result.status, "white")
        line = (f"[{step.index}/{self.count}] {step.title}: [{style}]{result.status}[/]"
                f" ({result.duration_s or 0:.1f} s)")
        if result.error:
            line += f" - {result.error}"
        self.console.print(line)
        for note in result.notes:  # what the step found out on the way (files reused, ...)
            self.console.print(f"  {note}", style="dim", highlight=False, markup=False)
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done_estimate)

    def _eta(self, step: PlannedStep) -> str:
        elapsed = time.monotonic() - self.started
        rate = elapsed / self.done_estimate if self.done_estimate > 5 else 1.0
        left = (self.total - self.done_estimate) * rate
        return f"ETA {fmt_seconds(left)}"

    def live_figures(self, figures: list[LiveFigures]) -> None:
        """One interval of the running step (from a runner's thread): in a terminal the
        line under the bar, otherwise a plain line when the throttle lets it through."""
        if not figures:
            return
        text = live_text(figures)
        with self._lock:
            if self._current is None:
                return
            self._figures[figures[0].host] = text
            if self._bar is not None:
                self._show(list(self._figures.values()))
            elif self._throttle.due(figures):
                self._plain(text)

    def _tick(self) -> None:
        """A step that gives no figures (hpcc, a network soak, ...) shows its elapsed time instead."""
        while not self._stop.wait(TICK_S):
            with self._lock:
                step = self._current
                if step is None or self._figures:
                    continue
                now = time.monotonic()
                text = elapsed_text(now - self._step_t0, step.estimate_s)
                if self._bar is not None:
                    self._show([text])
                elif now - self._last_plain >= PLAIN_EVERY_S:
                    self._last_plain = now
                    self._plain(text)

    def _show(self, lines: list[str]) -> None:
        """The lines under the bar (terminal only); called with the lock held."""
        if self._bar is None:
            return
        more = len(lines) - MAX_LIVE_LINES
        self._bar.lines = lines[:MAX_LIVE_LINES] + ([f"and {more} more hosts"] if more > 0 else [])

    def _plain(self, text: str) -> None:
        assert self._current is not None
        self.console.print(f"  [{self._current.index}/{self.count}] {text}", markup=False,
                           highlight=False, soft_wrap=True)
