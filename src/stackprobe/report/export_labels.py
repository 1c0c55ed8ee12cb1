"""What every export says about one figure: its labels and its time, said once.

OpenMetrics, InfluxDB's line protocol and CSV each write a run's figures in their own
syntax, but a dashboard that joins them (or a person moving from one to another) must
find the same names: the figure key of report/figure_keys.py, the step id, and the host
the figure is about. So the three writers take their rows from `exported(results)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from stackprobe.report.figure_keys import Figure, run_figures
from stackprobe.schema.results import RunResults, StepResult

# the labels of a figure, in the order the exports write them
LABELS = ("suite", "run", "host", "step", "kind", "workload", "key", "direction", "figure")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class ExportedFigure:
    figure: Figure
    labels: dict[str, str]  # LABELS -> value ('' when a figure has no direction)
    time_ns: int | None  # when the step ended (or started), ns since the epoch

    @property
    def value(self) -> float:
        return self.figure.value

    @property
    def unit(self) -> str:
        return self.figure.unit


def exported(results: RunResults) -> list[ExportedFigure]:
    """Every figure of the run (run_figures' order) with the labels the exports share.

    host: the host a per-host row is about, else the controller that ran the suite."""
    steps = {s.id: s for s in results.steps}
    out = []
    for fig in run_figures(results):
        key = fig.key
        labels = {
            "suite": results.run.suite,
            "run": results.run.id,
            "host": key.host or results.run.host,
            "step": fig.step,
            "kind": key.kind,
            "workload": key.workload,
            "key": key.text,
            "direction": key.direction,
            "figure": key.figure,
        }
        out.append(ExportedFigure(fig, labels, step_time_ns(steps[fig.step], results)))
    return out


def step_time_ns(step: StepResult, results: RunResults) -> int | None:
    """The step's end (its start, the run's start for a step that never said) in ns."""
    for iso in (step.ended, step.started, results.run.started):
        ns = iso_to_ns(iso)
        if ns is not None:
            return ns
    return None


def iso_to_ns(iso: str | None) -> int | None:
    """ISO 8601 time -> integer ns since the epoch (exact: no float on the way); None
    for a missing or unreadable time (a hand-edited results.json)."""
    if not iso:
        return None
    try:
        when = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:  # results.json writes UTC; a bare time is read as UTC too
        when = when.replace(tzinfo=UTC)
    return (when - _EPOCH) // timedelta(microseconds=1) * 1000
