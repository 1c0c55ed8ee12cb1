"""What each OSD did during a step, from Ceph's own counters, and which one stood out.

Two sources, both read on the controller (engine/ceph_watch.py):

- `ceph tell osd.N perf dump` before and after the step: the counters' difference is the
  OSD's operations during the step, and a latency pair's sum / count difference its mean
  latency then (parsers/ceph/perf_dump.py names the counters);
- `ceph osd perf` sampled during the step: each OSD's recent commit/apply latency, whose
  mean and maximum over the samples are kept.

Which figure names a slow OSD? With replication, a primary's client op latency includes
the wait for its replicas, so one slow OSD raises every OSD's op latency (measured on the
lab: osd.1 capped at 3% of a CPU gave op latencies of 3.45, 3.91 and 3.31 s). The OSD's
*own* work does tell it apart: the replica writes it applied (subop_w_latency: 94 ms,
2.97 s, 49 ms), the wait before a worker took an op (op_before_dequeue_op_lat: 29 ms,
1.05 s, 23 ms) and its object store's commits (bluestore commit_lat, and `osd perf`).
Every figure is judged against the other OSDs' with the node-consistency rule
(analysis/consistency.py, worse is higher), but with wider margins than for twin servers:
latencies under load vary more than bandwidths (unthrottled, the same lab's replica write
latencies were 96, 140 and 91 ms, 1.45x the median). An OSD is flagged for a figure when it
is more than 50% above the median and an outlier by the robust z-score, or more than twice
the median whatever the others do — and at least MIN_EXCESS_NS above it; a mean over
fewer than MIN_OPS operations is shown but not judged.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from stackprobe.analysis.consistency import judge
from stackprobe.parsers.ceph.osd_perf import OsdPerf
from stackprobe.parsers.ceph.perf_dump import OsdCounters
from stackprobe.units import fmt_ns

MIN_OPS = 10
MIN_DEVIATION = 0.5
HARD_DEVIATION = 1.0
# and at least this far above the median, in ns: `osd perf` counts whole milliseconds
# (1 ms against a median of 0.5 ms is one tick, not a slow OSD — seen on the lab with 4K
# writes); the counters' means are finer
MIN_EXCESS_NS = {"perf_commit_mean_ns": 2e6}
DEFAULT_MIN_EXCESS_NS = 1e5
# figure -> (latency counter of perf dump, words)
MEANS = {
    "op_lat_mean_ns": ("op_latency", "client op latency"),
    "op_r_lat_mean_ns": ("op_r_latency", "read op latency"),
    "op_w_lat_mean_ns": ("op_w_latency", "write op latency"),
    "queue_lat_mean_ns": ("op_before_dequeue_op_lat", "queue wait"),
    "subop_w_lat_mean_ns": ("subop_w_latency", "replica write latency"),
    "commit_lat_mean_ns": ("bluestore.commit_lat", "BlueStore commit latency"),
}
COUNTS = {"ops": "op", "ops_r": "op_r", "ops_w": "op_w", "ops_rw": "op_rw",
          "subops_w": "subop_w", "in_bytes": "op_in_bytes", "out_bytes": "op_out_bytes"}
# judged, in the order a sentence names them; the op latency is judged too, but only it
# alone rarely names the slow OSD (see the module docstring)
JUDGED = {"queue_lat_mean_ns": "queue wait", "subop_w_lat_mean_ns": "replica write latency",
          "commit_lat_mean_ns": "BlueStore commit latency",
          "perf_commit_mean_ns": "commit latency (osd perf)",
          "op_lat_mean_ns": "client op latency"}


def counter_delta(before: OsdCounters, after: OsdCounters) -> dict[str, Any] | None:
    """One OSD's figures over the step; None when a counter went backwards (the OSD
    restarted between the dumps: its counters started again from zero)."""
    out: dict[str, Any] = {}
    for key, name in COUNTS.items():
        if name in before.counts and name in after.counts:
            d = after.counts[name] - before.counts[name]
            if d < 0:
                return None
            out[key] = d
    for key, (name, _) in MEANS.items():
        a, b = after.latencies.get(name), before.latencies.get(name)
        if a is None or b is None:
            continue
        n, total = a.count - b.count, a.sum_s - b.sum_s
        if n < 0 or total < -1e-9:
            return None
        out[key] = round(total / n * 1e9, 1) if n else None
        out[key.replace("_mean_ns", "_n")] = n
    return out


def perf_samples(samples: Sequence[Sequence[OsdPerf]]) -> dict[int, dict[str, float]]:
    """Each OSD's commit/apply latency over the `osd perf` samples: mean and max, ns."""
    by_osd: dict[int, list[OsdPerf]] = {}
    for sample in samples:
        for p in sample:
            by_osd.setdefault(p.osd, []).append(p)
    return {osd: {"perf_commit_mean_ns": round(statistics.fmean(p.commit_ns for p in ps), 1),
                  "perf_commit_max_ns": max(p.commit_ns for p in ps),
                  "perf_apply_mean_ns": round(statistics.fmean(p.apply_ns for p in ps), 1),
                  "perf_apply_max_ns": max(p.apply_ns for p in ps),
                  "perf_samples": len(ps)}
            for osd, ps in sorted(by_osd.items())}


def osd_view(before: Mapping[int, OsdCounters], after: Mapping[int, OsdCounters],
             samples: Sequence[Sequence[OsdPerf]] = ()) -> dict[str, Any]:
    """{"osds": {"osd.N": figures}, "medians": {figure: ns}, "restarted": [...]}; each
    OSD's figures carry "flags": the judged figures it stands out in."""
    osds: dict[str, dict[str, Any]] = {}
    restarted = []
    perf = perf_samples(samples)
    for osd in sorted(set(before) | set(after) | set(perf)):
        figures: dict[str, Any] = {}
        if osd in before and osd in after:
            delta = counter_delta(before[osd], after[osd])
            if delta is None:
                restarted.append(f"osd.{osd}")
            else:
                figures.update(delta)
        figures.update(perf.get(osd, {}))
        osds[f"osd.{osd}"] = figures
    medians = flag_outliers(osds)
    return {"osds": osds, "medians": medians, "restarted": restarted}


def _judgeable(figures: Mapping[str, Any], key: str) -> float | None:
    value = figures.get(key)
    if value is None:
        return None
    if key.startswith("perf_"):
        return value if figures.get("perf_samples", 0) >= 2 else None
    return value if figures.get(key.replace("_mean_ns", "_n"), 0) >= MIN_OPS else None


def flag_outliers(osds: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Set each OSD's "flags" (figures it stands out in, worse side only); return the
    median of every judged figure."""
    medians: dict[str, float] = {}
    for figures in osds.values():
        figures["flags"] = []
    for key, words in JUDGED.items():
        values = {osd: v for osd, f in osds.items() if (v := _judgeable(f, key)) is not None}
        try:
            verdict = judge(values, metric=words, unit="ns", higher_is_better=False,
                            min_deviation=MIN_DEVIATION, hard_deviation=HARD_DEVIATION)
        except ValueError:  # a median of 0: an idle figure, nothing stands out
            continue
        if verdict is None:
            continue
        medians[key] = verdict.median
        floor = MIN_EXCESS_NS.get(key, DEFAULT_MIN_EXCESS_NS)
        for fig in verdict.flagged():
            if fig.value - verdict.median >= floor:
                osds[fig.node]["flags"].append(key)
    return medians


def osd_hints(view: Mapping[str, Any]) -> list[str]:
    """One sentence per OSD that stands out: its figures against the OSDs' medians."""
    out = []
    medians = view.get("medians") or {}
    osds = view.get("osds") or {}
    for osd in sorted(osds, key=_osd_order):
        f = osds[osd]
        parts = [f"{JUDGED[k]} {fmt_ns(f[k])} ({_times(f[k] / medians[k])} the median "
                 f"{fmt_ns(medians[k])})" for k in JUDGED if k in f.get("flags", [])
                 and medians.get(k)]
        if parts:
            out.append(f"{osd} stands out among the {len(osds)} OSDs: {', '.join(parts)} — "
                       "a slow OSD holds back every write it takes part in")
    out += [f"{osd} restarted during the step: its counters started again"
            for osd in view.get("restarted") or []]
    return out


def _times(ratio: float) -> str:
    return f"{ratio:.0f}×" if ratio >= 10 else f"{ratio:.1f}×"


def _osd_order(name: str) -> tuple[int, str]:
    tail = name.rpartition(".")[2]
    return (int(tail), name) if tail.isdigit() else (1 << 30, name)
