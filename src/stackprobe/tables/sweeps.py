"""The points of a sweep: each workload along its concurrency (fio iodepth x numjobs, rados
bench threads, rbd bench io threads), for the sweep tables and charts and the advice
analysis/recommend.py derives from them. Which fields are the concurrency is the kind's
(`Kind.concurrency`); how its figures become points is too (`Kind.sweep_series`), from the
builders here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from stackprobe.analysis.recommend import SweepPoint
from stackprobe.schema.records import percentile_key
from stackprobe.schema.results import DirectionSummary, StepResult


@dataclass(frozen=True)
class SweepSeries:
    """One workload of a sweep: its name, the unit of its figure, the points, and the
    latency limit its advice respects (None: mean latency)."""

    title: str
    unit: str  # 'IOPS' or 'B/s'
    points: list[SweepPoint]
    limit: dict | None = None


Others = tuple[tuple[str, str], ...]  # the sweep's other swept values (name, value)


def io_series(steps: Sequence[StepResult], others: Others, concurrency: tuple[str, ...]
              ) -> list[SweepSeries]:
    """A sweep of I/O steps (fio, rbd bench): one series, in the steps' headline unit; with
    an advice limit, a point's latency is that percentile (the worse direction's),
    otherwise the I/O-weighted mean."""
    first = steps[0]
    unit = "B/s" if first.headline == "bw" else "IOPS"
    limit = first.params.get("advice")
    points = [pt for s in steps if (pt := _io_point(s, unit, limit, concurrency))]
    return [SweepSeries(_name(first, others), unit, points, limit)]


def mode_series(steps: Sequence[StepResult], others: Others, name: str, mode: str,
                concurrency: tuple[str, ...]) -> SweepSeries:
    """One mode of a sweep whose steps ran several (rados bench write / seq / rand)."""
    points = [pt for s in steps if (pt := _mode_point(s, mode, concurrency))]
    label = ", ".join(f"{k}={v}" for k, v in others)
    return SweepSeries(f"{name} {mode}" + (f" ({label})" if label else ""), "B/s", points)


def _name(step: StepResult, others: Others) -> str:
    """'4k randread on RBD (rwmixread=70)': the workload, not its concurrency."""
    p = step.params
    if "job_file" in p:
        return step.title
    where = {"rbd": " on RBD", "cephfs": " on CephFS"}.get(p.get("target", ""), "")
    rest = ", ".join(f"{k}={v}" for k, v in others if k not in ("rw", "bs", "target"))
    return f"{p.get('bs', '')} {p.get('rw', '')}{where}".strip() + (f" ({rest})" if rest else "")


def concurrency_of(step: StepResult, keys: tuple[str, ...]) -> tuple[float, str]:
    values = [int(step.params.get(k, 1)) for k in keys]
    total = 1
    for v in values:
        total *= v
    return float(total), ", ".join(f"{k}={v}" for k, v in zip(keys, values))


def _io_point(step: StepResult, unit: str, limit: dict | None,
              keys: tuple[str, ...]) -> SweepPoint | None:
    if not step.summary or not step.summary.io:
        return None
    dirs = [d for d in (step.summary.io[0].read, step.summary.io[0].write) if d is not None]
    if not dirs:
        return None
    concurrency, label = concurrency_of(step, keys)
    throughput = sum(d.iops if unit == "IOPS" else d.bw_bytes for d in dirs)
    latency = _percentile(dirs, limit["percentile"]) if limit else _mean_latency(dirs)
    return SweepPoint(label, concurrency, throughput, latency, dict(step.params),
                      *step_noise(step))


def step_noise(step: StepResult) -> tuple[float | None, str]:
    """How noisy the step's figure is, for the advice's ties: the CoV of its repeated runs
    when it was repeated, else the largest CoV of its per-second series (stability)."""
    rep = step.summary.repeat if step.summary else None
    if rep is not None and rep.n >= 2 and rep.cov is not None:
        return rep.cov, f"over {rep.n} runs"
    covs = [p["cov"] for p in (step.stability or {}).get("parts", [])
            if isinstance(p, dict) and isinstance(p.get("cov"), (int, float))]
    return (max(covs), "per second") if covs else (None, "")


def _percentile(dirs: list[DirectionSummary], pct: float) -> float | None:
    """The worse direction's total-latency percentile (completion latency's if fio had
    no total-latency percentiles)."""
    key = percentile_key(pct)
    values = [(d.lat_ns or d.clat_ns).get(key) for d in dirs]
    return None if any(v is None for v in values) else max(values)


def _mode_point(step: StepResult, mode: str, keys: tuple[str, ...]) -> SweepPoint | None:
    if not step.summary:
        return None
    for group in step.summary.io:
        if group.label.split()[0] == mode:
            d = group.write if mode == "write" else group.read
            if d is None:
                return None
            concurrency, label = concurrency_of(step, keys)
            return SweepPoint(label, concurrency, d.bw_bytes, d.lat_mean_ns, dict(step.params),
                              *step_noise(step))
    return None


def _mean_latency(dirs: list[DirectionSummary]) -> float | None:
    """I/O-weighted mean total latency over the directions."""
    pairs = [(d.lat_mean_ns, d.iops) for d in dirs if d.lat_mean_ns is not None]
    total = sum(w for _, w in pairs)
    return sum(m * w for m, w in pairs) / total if pairs and total else None
