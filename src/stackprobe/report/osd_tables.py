"""Per Ceph step, each OSD as Ceph counted it: ops, latencies, and the one that stood out.

Drawn from the step's `ceph_view` (engine/ceph_watch.py, analysis/osd_view.py): the
perf-counter deltas over the step and the `osd perf` samples. A figure in which an OSD
stands out from the others is marked; the sentence naming it is among the step's hints.
Notes under the table: the pools' client rates and the cluster's health over the step.
"""

from __future__ import annotations

from typing import Any

from stackprobe.analysis.osd_view import JUDGED
from stackprobe.schema.results import RunResults, StepResult
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_bw, fmt_iops, fmt_ns

FLAG = "⚠"
HEADERS = ["OSD", "Ops", "Reads", "Writes", "Op latency", "Queue wait", "Replica writes",
           "Store commit", "osd perf mean / max", "Verdict"]
LATENCY_CELLS = ("op_lat_mean_ns", "queue_lat_mean_ns", "subop_w_lat_mean_ns",
                 "commit_lat_mean_ns")


def osd_tables(results: RunResults) -> list[TextTable]:
    """A table for every step during which some OSD did client work (not the inventory)."""
    return [osd_table(s) for s in results.steps if _busy((s.ceph_view or {}).get("osds"))]


def _busy(osds: dict[str, dict[str, Any]] | None) -> bool:
    return any(f.get("ops") or f.get("flags") for f in (osds or {}).values())


def osd_table(step: StepResult) -> TextTable:
    view = step.ceph_view or {}
    t = TextTable(f"Ceph OSDs during the step ({step.id})", HEADERS, wide_only=(2, 3))
    for osd, f in sorted(view["osds"].items(), key=lambda kv: _order(kv[0])):
        flags = set(f.get("flags") or [])
        cells = [osd, _count(f.get("ops")), _count(f.get("ops_r")), _count(f.get("ops_w"))]
        cells += [_flagged(fmt_ns(f.get(k)), k in flags) for k in LATENCY_CELLS]
        perf = "-" if f.get("perf_commit_mean_ns") is None else \
            f"{fmt_ns(f['perf_commit_mean_ns'])} / {fmt_ns(f['perf_commit_max_ns'])}"
        cells.append(_flagged(perf, "perf_commit_mean_ns" in flags))
        cells.append(f"{FLAG} stands out" if flags else "ok")
        t.rows.append(cells)
    t.notes.append("op latency: a client op on its primary OSD, replicas' writes included; "
                   "queue wait: until a worker took the op; replica writes: writes applied "
                   "for another primary; judged against the other OSDs: "
                   + ", ".join(JUDGED.values()))
    t.notes += pool_notes(view.get("pools") or {}) + health_notes(view.get("health") or {})
    return t


def pool_notes(pools: dict[str, dict[str, Any]]) -> list[str]:
    out = []
    for pool, p in sorted(pools.items()):
        parts = [f"{way} {fmt_bw(p[f'{way}_bps_mean'])} mean, {fmt_bw(p[f'{way}_bps_max'])} "
                 f"peak, {fmt_iops(p[f'{way}_ops_max'])} ops/s peak"
                 for way in ("read", "write") if p.get(f"{way}_bps_max")]
        if parts:
            out.append(f"pool {pool} (client I/O, {p['samples']} samples): {'; '.join(parts)}")
    return out


def health_notes(h: dict[str, Any]) -> list[str]:
    if not h:
        return []
    before = (h.get("before") or {}).get("status", "?")
    after = (h.get("after") or {}).get("status", "?")
    slow = h.get("slow_ops")
    text = f"health: {before} before, {after} after"
    if h.get("seen"):
        text += f"; checks seen: {', '.join(h['seen'])}"
    text += "; slow ops: " + ("none" if not slow else f"up to {slow['max']}")
    return [text]


def _count(v: Any) -> str:
    return "-" if v is None else f"{v:,}"


def _flagged(text: str, flagged: bool) -> str:
    return f"{FLAG} {text}" if flagged else text


def _order(name: str) -> tuple[int, str]:
    tail = name.rpartition(".")[2]
    return (int(tail), name) if tail.isdigit() else (1 << 30, name)
