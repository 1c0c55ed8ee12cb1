"""A step over time: the tool's own per-second figures, and under them what each host's
CPUs, disks and NICs were doing, on one time axis.

A mean hides a stall, a warm-up or a cache filling up; a per-second curve shows it, and
the resource panels below say where the limit was (a disk 100% busy, a CPU in iowait, a
NIC at line rate). Every panel has the same width, margins and time domain (seconds from
the step's start), so a dip in the tool's curve sits straight above its cause.

Monitor files (docs/results-schema.md, "Monitoring files") are read from the run
directory; a missing or unreadable one becomes a note, never an error.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from stackprobe.report.svg_charts import Axis, Line, Point, line_chart
from stackprobe.schema.records import IoRecord
from stackprobe.schema.results import StepResult
from stackprobe.units import fmt_bw, fmt_iops, fmt_ns

WIDTH = 1100
TOP_DEVICES = 6  # disks and NICs drawn per host: the busiest
MARKED = 30  # up to this many points a curve shows a marker (and tooltip) per point
NOT_A_DISK = re.compile(r"^(loop|ram|zram|sr)\d+$")  # sadc reports these beside the disks
MAX_HOST_PANELS = 8  # hosts whose CPU, disk and NIC panels a step draws at most
LEAST_BUSY_PANELS = 2  # of them, the least busy by mean CPU (the others: the busiest)
SERIES_METRICS = {"iops": ("iops", "IOPS", fmt_iops), "bw": ("bw_bytes", "bandwidth", fmt_bw),
                  "lat": ("lat_mean_ns", "mean latency", fmt_ns)}


@dataclass
class Timeline:
    charts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # missing monitor files and the like


def panel_hosts(step: StepResult) -> tuple[list[str], str | None]:
    """The hosts whose resource panels are drawn, and a note when not all of them: a step on
    many hosts gets the busiest and the least busy by mean CPU (the extremes are where a
    bottleneck or a stalled host shows), not a page of thousands of charts."""
    hosts = sorted(step.monitor)
    if len(hosts) <= MAX_HOST_PANELS:
        return hosts, None

    def busy(h: str) -> float:
        summary = step.monitor[h].get("summary") or {}
        return float((summary.get("cpu") or {}).get("busy_mean_pct") or 0.0)

    ranked = sorted(hosts, key=lambda h: (-busy(h), h))
    top, low = ranked[:MAX_HOST_PANELS - LEAST_BUSY_PANELS], ranked[-LEAST_BUSY_PANELS:]
    chosen = sorted(set(top + low), key=hosts.index)
    return chosen, (f"resource panels of {len(chosen)} of the {len(hosts)} hosts: the "
                    f"{len(top)} busiest ({', '.join(top)}) and the {len(low)} least busy "
                    f"({', '.join(low)}) by mean CPU; every host's samples are in its "
                    f"monitor-<host>.json, its figures in the resource summary")


def step_timeline(step: StepResult, run_dir: Path | None) -> Timeline:
    out = Timeline()
    drawn, note = panel_hosts(step)
    if note:
        out.notes.append(note)
    samples = {host: _samples(step, host, step.monitor[host], run_dir, out.notes)
               for host in drawn}
    # a curve over time needs two points: a 1-second step's single interval says nothing
    series = [r for r in step.records if isinstance(r, IoRecord) and r.series and len(r.series) > 1]
    if not series and not any(samples.values()):
        return out
    origin = _epoch(step.started) or _first_t(samples)
    times = [step.duration_s or 0.0] + [p.t_s for r in series for p in r.series]
    times += [s["t"] - origin for host in samples.values() for s in host]
    time_axis = Axis("seconds since the step started", lambda v: f"{v:g} s", lo=min(0.0, *times),
                     hi=max(max(times), 1.0))
    if series:
        out.charts.append(_series_chart(step, series, time_axis))
    for host, rows in samples.items():
        if len(rows) > 1:  # like the series: one sample is no curve
            out.charts += _host_panels(host, rows, origin, time_axis, step.monitor[host])
    return out


def _series_chart(step: StepResult, records: list[IoRecord], time_axis: Axis) -> str:
    attr, name, fmt = _series_metric(step.headline, records)
    lines = []
    for rec in records:
        label = rec.job + (f" @ {rec.host}" if step.hosts and rec.host else "") + (
            f" (run {rec.repetition})" if rec.repetition else "")
        points = [Point(p.t_s, v, tip=f"{label}, {p.t_s:g} s: {fmt(v)}")
                  for p in rec.series if (v := getattr(p, attr)) is not None]
        lines.append(Line(label, points, markers=len(points) <= MARKED))
    return line_chart(f"{name} per interval: {step.title}", lines, time_axis,
                      Axis(name, fmt, binary=attr == "bw_bytes"),
                      width=WIDTH, height=250 + 16 * (len(lines) // 4))


def _series_metric(headline: str | None, records: list[IoRecord]) -> tuple:
    """The step's headline figure when the series has it (fio's logs carry no latency),
    else IOPS, else bandwidth."""
    for key in (headline, "iops", "bw"):
        if key in SERIES_METRICS:
            attr = SERIES_METRICS[key][0]
            if any(getattr(p, attr) is not None for r in records for p in r.series):
                return SERIES_METRICS[key]
    return SERIES_METRICS["iops"]


def _host_panels(host: str, rows: list[dict], origin: float, time_axis: Axis,
                 info: dict) -> list[str]:
    every = f", every {info['interval_s']:g} s" if info.get("interval_s") else ""
    marked = len(rows) <= MARKED
    cpu = [Line("busy (100 − idle)", _points(rows, origin, _cpu_busy), markers=marked),
           Line("iowait", _points(rows, origin, lambda s: (s.get("cpu") or {}).get("iowait")),
                markers=marked)]
    panels = [line_chart(f"{host}: CPU %{every}", cpu, time_axis, _percent_axis(), width=WIDTH,
                         height=190)]
    disks = _device_lines(rows, origin, "disks", ("util_pct",))
    if disks:
        panels.append(line_chart(f"{host}: disk utilisation %", disks, time_axis, _percent_axis(),
                                 width=WIDTH, height=190 + 16 * (len(disks) // 6)))
    nics = _device_lines(rows, origin, "nics", ("rx_bps", "tx_bps"))
    if nics:
        panels.append(line_chart(f"{host}: network bytes/s", nics, time_axis,
                                 Axis("bytes/s", fmt_bw, binary=True), width=WIDTH,
                                 height=190 + 16 * (len(nics) // 6)))
    return panels


def _percent_axis() -> Axis:
    return Axis("%", lambda v: f"{v:g}", lo=0.0, hi=100.0)


def _cpu_busy(sample: dict) -> float | None:
    cpu = sample.get("cpu") or {}
    if cpu.get("idle") is not None:
        return max(0.0, 100.0 - cpu["idle"])
    parts = [cpu.get(k) for k in ("usr", "sys")]
    return sum(parts) if all(p is not None for p in parts) else None


def _points(rows: list[dict], origin: float, value) -> list[Point]:
    points = []
    for s in rows:
        v = value(s)
        if isinstance(v, (int, float)):
            points.append(Point(s["t"] - origin, float(v), tip=f"{s['t'] - origin:.0f} s: {v:.1f}"))
    return points


def _device_lines(rows: list[dict], origin: float, group: str, keys: tuple[str, ...]) -> list[Line]:
    """A line per device and figure, the busiest TOP_DEVICES devices (loopback and idle
    devices left out)."""
    names = _devices({d for s in rows for d in (s.get(group) or {})}, group)
    peak = {d: max((float((s.get(group) or {}).get(d, {}).get(k) or 0) for s in rows for k in keys),
                   default=0.0) for d in names}
    chosen = sorted((d for d in names if peak[d] > 0), key=lambda d: -peak[d])[:TOP_DEVICES]
    fmt = fmt_bw if group == "nics" else (lambda v: f"{v:.1f}%")
    lines = []
    for d in sorted(chosen):
        for k in keys:
            suffix = f" {k.split('_')[0]}" if len(keys) > 1 else ""
            pts = [Point(s["t"] - origin, float(v), tip=f"{d}{suffix}, {s['t'] - origin:.0f} s: {fmt(v)}")
                   for s in rows
                   if isinstance(v := (s.get(group) or {}).get(d, {}).get(k), (int, float))]
            if pts:
                lines.append(Line(f"{d}{suffix}", pts, markers=len(pts) <= MARKED))
    return lines


def _devices(names: set[str], group: str) -> list[str]:
    """NICs without loopback; disks without loop/ram devices and without partitions of a
    disk that is itself listed (vda1 beside vda, nvme0n1p2 beside nvme0n1)."""
    if group == "nics":
        return sorted(n for n in names if n != "lo")
    disks = {n for n in names if not NOT_A_DISK.match(n)}
    return sorted(n for n in disks
                  if not any(n != d and re.fullmatch(re.escape(d) + r"p?\d+", n) for d in disks))


def _samples(step: StepResult, host: str, info: dict, run_dir: Path | None,
             notes: list[str]) -> list[dict]:
    """The host's samples with a numeric `t`; [] with a note when the file is missing or
    unreadable (a step shorter than the interval has no samples: that is normal, no note)."""
    name = info.get("file")
    if not name:
        notes.append(f"{host}: no monitor file recorded")
        return []
    if run_dir is None:
        notes.append(f"{host}: monitor file {name} not read (no run directory)")
        return []
    path = next((p for p in (run_dir / "steps" / step.id / name, run_dir / name) if p.is_file()), None)
    if path is None:
        notes.append(f"{host}: monitor file {name} is missing")
        return []
    try:
        doc = json.loads(path.read_text())
        rows = [s for s in doc.get("samples", []) if isinstance(s.get("t"), (int, float))]
    except (OSError, ValueError, AttributeError) as exc:
        notes.append(f"{host}: monitor file {name} unreadable ({exc.__class__.__name__})")
        return []
    return sorted(rows, key=lambda s: s["t"])


def _epoch(iso: str | None) -> float | None:
    if not iso:
        return None
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _first_t(samples: dict[str, list[dict]]) -> float:
    return min((rows[0]["t"] for rows in samples.values() if rows), default=0.0)
