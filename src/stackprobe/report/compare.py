"""Several runs side by side: the same workloads paired across runs, the change against the
first run, and whether that change is beyond the run-to-run noise.

Why this exists: benchmark results are mostly read as comparisons — ARM against x86 on the
same disks (seed 001), before and after a kernel, Ceph or tuning change. Two `show` tables
next to each other leave the reader to pair rows by eye, where a renamed title or a
reordered suite pairs the wrong ones, and to guess whether +4% is a change or scatter.
Here rows are paired by what was measured, never by their names, and a change is called
real only when both runs repeated the step and the repetitions say so.

Pairing (docs/compare.md): a row's key is its step's workload — layer, kind, the
parameters that shape the I/O (sizes normalised, fio's defaults dropped, the number of
hosts of a fleet step) — plus the row's place in the step (group or host, direction).
Titles, names and headline choices are ignored (people rename things); so are how long a
step measured (runtime, ramp_time, seconds, steady_state: they change the precision, not
the workload; differences are listed in the notes) and thresholds that only judge results.

Noise: Welch's t-test on the row's headline figure in each repetition of both runs, 5%
two-sided, degrees of freedom rounded down (the conservative side). A run that measured
once has no spread to test against: its cell says "single run" and claims nothing.

Everything here is pure: RunResults in, rows and formatted tables out.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import Any

from stackprobe.analysis.noise import spread, t_975
from stackprobe.analysis.step_summary import summarise_one
from stackprobe.kinds import registry
from stackprobe.kinds.contract import HostMode
from stackprobe.report.compare_inventory import inventory_differences, run_labels, values_text
from stackprobe.report.table import Row, summary_rows
from stackprobe.schema.results import RunResults, StepResult
from stackprobe.spec.steps import LAYERS
from stackprobe.units import parse_size

BEYOND_NOISE = "beyond noise"
WITHIN_NOISE = "within noise"
SINGLE_RUN = "single run"
NO_ROW_SPREAD = "no per-row spread"  # repeated, but the repetitions of this row are unknown
NOT_IN_RUN = "not in this run"

# Which of a step's parameters are not its workload is its kind's: how long (or until
# when) it measured (`Kind.duration_fields` — a longer run is a more precise figure of the
# same workload, so these do not split a match; their differences go to the notes), and
# what never changes the load (`Kind.verdict_fields`: what a report concludes from the
# figures, thresholds of flags, the port iperf3 listens on, and lists whose items become
# rows of their own, matched row by row), nor where it worked (`Kind.place_fields`: a
# shared mount's path differs from machine to machine, as the --target directory does).
# fio options that only change what fio writes down, not the I/O it does
REPORTING_OPTIONS = frozenset({
    "write_bw_log", "write_iops_log", "write_lat_log", "write_hist_log", "log_avg_msec",
    "log_hist_msec", "log_max_value", "per_job_logs", "group_reporting", "percentile_list",
    "lat_percentiles", "clat_percentiles", "slat_percentiles", "status-interval",
    "status_interval", "output-format", "description", "stats",
})
MIXED_RW = ("rw", "readwrite", "randrw")
SIZE_PARAMS = ("bs", "size", "block_size", "io_size", "io_total", "bytes", "file_size")

StepKey = tuple[Any, ...]
RowKey = tuple[Any, ...]


@dataclass(frozen=True)
class Side:
    """One run's part of a matched row."""

    label: str  # 'A', 'B', ...
    row: Row | None  # None: the run has no such row (see `absent`)
    value: float | None = None  # the headline figure (the first run's choice of headline)
    repeat_values: tuple[float, ...] = ()  # that figure in each repetition (>= 2) or ()
    absent: str = ""  # why there is no row: 'not in this run', 'failed: <error>'
    change_pct: float | None = None  # against the first run's value
    better: bool | None = None  # None: no change, or nothing to compare with
    verdict: str | None = None  # BEYOND_NOISE / WITHIN_NOISE / SINGLE_RUN / NO_ROW_SPREAD

    @property
    def ci95_pct(self) -> float | None:
        """Half-width of the 95% interval of `value`, % of it, from the repetitions."""
        if len(self.repeat_values) < 2:
            return None
        s = spread(self.repeat_values)
        return s.half_width / abs(s.mean) * 100 if s.mean and s.half_width is not None else None


@dataclass(frozen=True)
class MatchedRow:
    """One workload (and direction, and host) across every run."""

    layer: str
    test: str  # as the first run that has the row names it
    workload: str
    direction: str
    headline: str  # 'bw', 'iops' or 'lat': the figure compared
    sides: tuple[Side, ...]

    @property
    def present_in(self) -> list[str]:
        return [s.label for s in self.sides if s.row is not None]


@dataclass(frozen=True)
class Comparison:
    labels: list[str]
    legend: list[tuple[str, str]]  # (label, what the run is)
    differences: list[tuple[str, str]]  # (what, text): suite, target, what else differs
    rows: list[MatchedRow]
    notes: list[str]  # settings that differ in matched steps, how to read the table


def run_legend(runs: Sequence[RunResults]) -> list[tuple[str, str]]:
    """(label, run id, its controller host and start time) for the table's Run column."""
    return [(label, f"{r.run.id} (host {r.run.host}, started {r.run.started}, {r.run.status})")
            for label, r in zip(run_labels(len(runs)), runs)]


# --- matching ---------------------------------------------------------------------------

def workload_key(step: StepResult) -> StepKey:
    """What a step loaded the system with, independent of how it was named or titled."""
    kind = registry.kind(step.kind)
    params = {k: v for k, v in step.params.items()
              if k not in (*kind.duration_fields, *kind.verdict_fields, *kind.place_fields)}
    options = {k: v for k, v in (params.pop("options", None) or {}).items()
               if k not in REPORTING_OPTIONS}
    if kind.tool_defaults:
        params = _without_defaults(params, kind.tool_defaults)
    if "job_file" in params:  # resolved to an absolute path that differs between machines
        params["job_file"] = PurePath(str(params["job_file"])).name
    items = [(k, canonical_value(k, v)) for k, v in params.items()]
    items += [(f"options.{k}", canonical_value(k, v)) for k, v in options.items()]
    together = kind.hosts in (HostMode.FLEET, HostMode.PAIRS)  # the number of hosts is load
    fleet_size = len(step.hosts) if together else 0
    return (step.layer, step.kind, tuple(sorted(items)), fleet_size)


def _without_defaults(params: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in params.items()
           if not (k in defaults and canonical_value(k, v) == canonical_value(k, defaults[k]))}
    if str(params.get("rw", "")) not in MIXED_RW:
        out.pop("rwmixread", None)  # the read share of a workload that does not mix
    return out


def canonical_value(key: str, value: Any) -> str:
    """One spelling per value: '4k' == '4K' == 4096 for sizes, True == 1, 5.0 == 5."""
    if key in SIZE_PARAMS and isinstance(value, (str, int, float)) and not isinstance(value, bool):
        try:
            return str(parse_size(value))
        except ValueError:
            return str(value).lower()
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str):
        return value.strip()
    return json.dumps(value, sort_keys=True, default=str)


def _row_place(step: StepResult, row: Row) -> tuple[str, str]:
    """Where a row sits in its step (group or host label, direction), without the title."""
    test = row.test
    if registry.kind(step.kind).titled_rows and test.startswith(step.title):
        test = test[len(step.title):]
    return test, row.direction


def headline_name(row: Row) -> str | None:
    """The figure a row is about: its step's headline, else the first figure it has."""
    if row.headline in ("bw", "iops", "lat") and _figure(row, row.headline) is not None:
        return row.headline
    return next((n for n in ("iops", "bw", "lat") if _figure(row, n) is not None), None)


def _figure(row: Row, name: str) -> float | None:
    return {"bw": row.bw_bytes, "iops": row.iops, "lat": row.lat_mean_ns}.get(name)


def _has_figures(row: Row) -> bool:
    return any(v is not None for v in (row.bw_bytes, row.iops, row.lat_mean_ns, row.p99_ns))


@dataclass(frozen=True)
class RunRows:
    """One run's rows by key, with what the matching needs beside them."""

    rows: dict[RowKey, Row]
    steps: dict[StepKey, StepResult]  # every measuring step, by its key (with occurrence)
    repeats: dict[RowKey, tuple[float, ...]]  # per-repetition headline figures, when known


def keyed_rows(results: RunResults) -> RunRows:
    by_id = {s.id: s for s in results.steps}
    rows_of: dict[str, list[Row]] = {}
    for row in summary_rows(results):
        rows_of.setdefault(row.step, []).append(row)
    seen_steps: Counter[StepKey] = Counter()
    rows: dict[RowKey, Row] = {}
    steps: dict[StepKey, StepResult] = {}
    repeats: dict[RowKey, tuple[float, ...]] = {}
    for step_id, step_rows in rows_of.items():
        step = by_id[step_id]
        base = workload_key(step)
        step_key = (*base, seen_steps[base])
        seen_steps[base] += 1
        steps[step_key] = step
        for place, row, values in _step_rows(results, step, step_rows):
            rows[(*step_key, *place)] = row
            if values:
                repeats[(*step_key, *place)] = values
    return RunRows(rows, steps, repeats)


def _places(step: StepResult, rows: Sequence[Row]) -> list[tuple[str, str, int]]:
    seen: Counter[tuple[str, str]] = Counter()
    out = []
    for row in rows:
        place = _row_place(step, row)
        out.append((*place, seen[place]))
        seen[place] += 1
    return out


def _step_rows(results: RunResults, step: StepResult, rows: Sequence[Row]
               ) -> list[tuple[tuple[str, str, int], Row, tuple[float, ...]]]:
    """(place, row, the row's headline figure per repetition) for each row of a step."""
    places = _places(step, rows)
    per_rep = _repetition_rows(results, step)
    if not per_rep:
        return [(place, row, _step_repeat_values(step, rows, row))
                for place, row in zip(places, rows)]
    rep_places = [dict(zip(_places(step, rep_rows), rep_rows)) for rep_rows in per_rep]
    listed_per_repetition = len(rows) == sum(map(len, per_rep)) > len(per_rep[0])
    if not listed_per_repetition:
        return [(place, row, _figures_of(place, row, rep_places))
                for place, row in zip(places, rows)]
    # the summary listed each repetition's records as rows of their own (per-host memory
    # and CPU rows come straight from records): one row per place, as the runs' mean
    out = []
    for place, first in rep_places[0].items():
        same = [reps[place] for reps in rep_places if place in reps]
        if len(same) != len(rep_places):
            continue
        merged = replace(first, bw_bytes=_mean_of([r.bw_bytes for r in same]),
                         iops=_mean_of([r.iops for r in same]),
                         lat_mean_ns=_mean_of([r.lat_mean_ns for r in same]),
                         p99_ns=None,  # percentiles are never averaged
                         runs=len(same), ci95_pct=None, cov_pct=None, noisy=False)
        out.append((place, merged, _figures_of(place, first, rep_places)))
    return out


def _figures_of(place: tuple, row: Row, rep_places: list[dict[tuple, Row]]) -> tuple[float, ...]:
    """The headline figure `row` is about, in each repetition (() unless every one has it)."""
    name = headline_name(row)
    values = [_figure(reps[place], name) for reps in rep_places if place in reps and name]
    if len(values) != len(rep_places) or any(v is None for v in values):
        return ()
    return tuple(v for v in values if v is not None)


def _mean_of(values: list[float | None]) -> float | None:
    return None if any(v is None for v in values) else statistics.fmean(
        v for v in values if v is not None)


def _repetition_rows(results: RunResults, step: StepResult) -> list[list[Row]]:
    """A repeated step's rows in each repetition, from its records summarised one
    repetition at a time (as the run did); [] for a step run once."""
    reps = sorted({r.repetition for r in step.records if getattr(r, "repetition", None)})
    if len(reps) < 2:
        return []
    out = []
    for rep in reps:
        records = [r for r in step.records if getattr(r, "repetition", None) == rep]
        one = step.model_copy(update={"records": records,
                                      "summary": summarise_one(step.headline, records)})
        out.append(summary_rows(results.model_copy(update={"steps": [one]})))
    return out


def _step_repeat_values(step: StepResult, step_rows: Sequence[Row], row: Row) -> tuple[float, ...]:
    """Without records per repetition: the step's own repeat values, when this row is the
    step's only row and so its headline figure is the one they describe."""
    rep = step.summary.repeat if step.summary else None
    if rep is None or len(rep.values) < 2 or len(step_rows) != 1:
        return ()
    name = headline_name(row)
    value = _figure(row, name) if name else None
    if value is None or not math.isclose(value, rep.mean, rel_tol=1e-6):
        return ()
    return tuple(rep.values)


def match_rows(runs: Sequence[RunResults]) -> list[MatchedRow]:
    """Every row of every run, paired by workload, in the ladder's order; a row some runs
    lack is kept, with those runs' sides saying why."""
    return _match([keyed_rows(r) for r in runs], run_labels(len(runs)))


def _match(keyed: Sequence[RunRows], labels: Sequence[str]) -> list[MatchedRow]:
    order: dict[RowKey, None] = {}
    for run in keyed:
        order.update(dict.fromkeys(run.rows))
    steps_with_figures = {key[:-3] for key in order
                          if any(key in run.rows and _has_figures(run.rows[key]) for run in keyed)}
    matched = []
    for key in order:
        present = [run.rows[key] for run in keyed if key in run.rows]
        if not any(_has_figures(r) for r in present):
            # a step without figures (failed, or whose result is a table of its own): its
            # status shows in its figure rows' place when another run measured it, and
            # alone only when it did not go well
            if key[:-3] in steps_with_figures or all(r.status == "ok" for r in present):
                continue
        first = present[0]
        headline = headline_name(first) or next(
            (h for h in map(headline_name, present) if h), "iops")
        sides = [_side(label, run, key, headline) for label, run in zip(labels, keyed)]
        sides = [sides[0]] + [_with_change(sides[0], s, headline) for s in sides[1:]]
        matched.append(MatchedRow(layer=first.layer, test=first.test, workload=first.workload,
                                  direction=first.direction, headline=headline,
                                  sides=tuple(sides)))
    order_of_layer = {layer: i for i, layer in enumerate(LAYERS)}
    return sorted(matched, key=lambda m: order_of_layer.get(m.layer, len(LAYERS)))


def _side(label: str, run: RunRows, key: RowKey, headline: str) -> Side:
    row = run.rows.get(key)
    if row is not None and _has_figures(row):
        return Side(label=label, row=row, value=_figure(row, headline),
                    repeat_values=run.repeats.get(key, ()))
    step = run.steps.get(key[:-3])
    if row is not None:
        status, note = row.status, row.note
    elif step is not None:
        status, note = step.status, step.error or ""
    else:
        return Side(label=label, row=None, absent=NOT_IN_RUN)
    if status == "ok":
        return Side(label=label, row=None, absent=NOT_IN_RUN if row is None else "no figures")
    return Side(label=label, row=None, absent=status + (f": {note}" if note else ""))


def _with_change(base: Side, side: Side, headline: str) -> Side:
    if side.row is None or side.value is None or base.value is None:
        return side
    change = (side.value - base.value) / abs(base.value) * 100 if base.value else None
    better = None if not change else (change < 0) == (headline == "lat")
    return replace(side, change_pct=change, better=better, verdict=noise_verdict(base, side))


def noise_verdict(base: Side, side: Side) -> str:
    """Whether `side` differs from `base` beyond their repetitions' scatter."""
    repeated = [len(s.repeat_values) > 1 or (s.row is not None and (s.row.runs or 0) > 1)
                for s in (base, side)]
    if not all(repeated):
        return SINGLE_RUN
    if len(base.repeat_values) < 2 or len(side.repeat_values) < 2:
        return NO_ROW_SPREAD
    return BEYOND_NOISE if welch_differs(base.repeat_values, side.repeat_values) else WITHIN_NOISE


def welch_differs(a: Sequence[float], b: Sequence[float]) -> bool:
    """Welch's t-test, 5% two-sided: do the means of `a` and `b` differ? (unequal variances;
    Welch-Satterthwaite degrees of freedom rounded down, which only widens the bar)."""
    if len(a) < 2 or len(b) < 2:
        raise ValueError("Welch's test needs at least 2 values on each side")
    mean_a, mean_b = statistics.fmean(a), statistics.fmean(b)
    se2_a, se2_b = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    se2 = se2_a + se2_b
    if se2 == 0:  # no scatter at all: any difference is real
        return mean_a != mean_b
    df = se2**2 / (se2_a**2 / (len(a) - 1) + se2_b**2 / (len(b) - 1))
    t = abs(mean_a - mean_b) / math.sqrt(se2)
    return t > t_975(max(1, math.floor(df)))


# --- settings ---------------------------------------------------------------------------

def setting_notes(runs: Sequence[RunResults]) -> list[str]:
    """How long matched steps measured, where the runs differ ('runtime differs: A: 5 ·
    B: 60 (in 3 matched steps)'): not part of the match, but worth knowing beside a change."""
    return _setting_notes([keyed_rows(r) for r in runs], run_labels(len(runs)))


def _setting_notes(keyed: Sequence[RunRows], labels: Sequence[str]) -> list[str]:
    counts: Counter[tuple[str, str]] = Counter()
    for key in dict.fromkeys(k for run in keyed for k in run.steps):
        steps = [run.steps.get(key) for run in keyed]
        if sum(s is not None for s in steps) < 2:
            continue
        for param in _duration_fields(steps):
            values = [None if s is None else _setting_text(param, s.params.get(param))
                      for s in steps]
            if len({v for v in values if v is not None}) > 1:
                counts[(param, values_text(labels, values))] += 1
    return [f"{param} differs: {text} (in {n} matched step{'s' if n > 1 else ''})"
            for (param, text), n in counts.items()]


def _duration_fields(steps) -> list[str]:
    """The duration fields of the matched steps' kind (they share it: the key has it)."""
    step = next(s for s in steps if s is not None)
    return list(registry.kind(step.kind).duration_fields)


def _setting_text(param: str, value: Any) -> str:
    return "unset" if value is None else canonical_value(param, value)


# --- the comparison --------------------------------------------------

def compare(runs: Sequence[RunResults]) -> Comparison:
    """Everything the renderers show: legend, differences, matched rows, notes."""
    if len(runs) < 2:
        raise ValueError("a comparison needs at least two runs")
    labels = run_labels(len(runs))
    keyed = [keyed_rows(r) for r in runs]
    notes = _setting_notes(keyed, labels) + [
        f"Change: the headline figure (what the test is about: IOPS, bandwidth or mean "
        f"latency) against run {labels[0]}'s; for latency lower is better. Noise: Welch's "
        "t-test (5%) on the repetitions of both runs; 'single run' when either measured once "
        "(no claim either way)."]
    return Comparison(labels=labels, legend=run_legend(runs),
                      differences=inventory_differences(runs), rows=_match(keyed, labels),
                      notes=notes)
