"""The cluster around a step: client I/O per pool, and what happened to the health.

From the samples engine/ceph_watch.py takes on the controller: `ceph osd pool stats`
(each pool's client rates as the manager last computed them) and `ceph health detail`
before, during and after the step. A pool that moved nothing in any sample is left out;
the health part says the status before and after, the checks that appeared or cleared,
every check seen meanwhile, and the most slow ops any sample reported (with the daemons
named) — a step that made OSDs complain has a finding whatever its throughput was.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from stackprobe.parsers.ceph.health_detail import HealthDetail
from stackprobe.parsers.ceph.pool_stats import PoolIo

RATES = ("read_bps", "write_bps", "read_ops", "write_ops")


def pool_view(samples: Sequence[Sequence[PoolIo]]) -> dict[str, dict[str, Any]]:
    """{pool: {<rate>_mean, <rate>_max, samples}} for the pools that did client I/O."""
    by_pool: dict[str, list[PoolIo]] = {}
    for sample in samples:
        for p in sample:
            by_pool.setdefault(p.pool, []).append(p)
    out: dict[str, dict[str, Any]] = {}
    for pool, seen in sorted(by_pool.items()):
        if not any(getattr(p, r) for p in seen for r in RATES):
            continue
        figures: dict[str, Any] = {"samples": len(seen)}
        for r in RATES:
            values = [getattr(p, r) for p in seen]
            figures[f"{r}_mean"] = statistics.fmean(values)
            figures[f"{r}_max"] = max(values)
        out[pool] = figures
    return out


def _state(h: HealthDetail | None) -> dict[str, Any] | None:
    if h is None:
        return None
    return {"status": h.status, "checks": {c.code: c.message for c in h.checks}}


def health_view(before: HealthDetail | None, during: Sequence[HealthDetail],
                after: HealthDetail | None) -> dict[str, Any]:
    """Before / after states, checks new and cleared, checks seen during, slow ops."""
    first, last = _state(before), _state(after)
    was = set((first or {}).get("checks", {}))
    now = set((last or {}).get("checks", {}))
    everything = [h for h in (before, *during, after) if h is not None]
    seen = sorted({c.code for h in everything for c in h.checks} - was)
    slow = [h.slow for h in everything if h.slow is not None]
    worst = max(slow, key=lambda s: s.count, default=None)
    return {
        "before": first,
        "after": last,
        "new": sorted(now - was) if last is not None else [],
        "cleared": sorted(was - now) if last is not None and first is not None else [],
        "seen": seen,  # checks some sample showed that were not there before
        "worst_status": _worst([h.status for h in everything]),
        "slow_ops": None if worst is None else {
            "max": worst.count,
            "oldest_s": max((s.oldest_s for s in slow if s.oldest_s is not None), default=None),
            "daemons": sorted({d for s in slow for d in s.daemons}, key=_daemon_order),
        },
    }


_RANK = {"HEALTH_OK": 0, "HEALTH_WARN": 1, "HEALTH_ERR": 2}


def _worst(statuses: list[str]) -> str | None:
    return max(statuses, key=lambda s: _RANK.get(s, 1), default=None)


def _daemon_order(name: str) -> tuple[str, int, str]:
    kind, _, tail = name.partition(".")
    return (kind, int(tail), name) if tail.isdigit() else (kind, 1 << 30, name)


def health_hints(view: Mapping[str, Any]) -> list[str]:
    """Sentences for the report: slow ops, and a health that changed during the step."""
    out = []
    slow = view.get("slow_ops")
    if slow:
        oldest = f", the oldest blocked {slow['oldest_s']} s" if slow.get("oldest_s") else ""
        where = f" on {', '.join(slow['daemons'])}" if slow.get("daemons") else ""
        out.append(f"Ceph reported up to {slow['max']} slow ops during the step{oldest}{where}")
    before, after = view.get("before"), view.get("after")
    if before and after and before["status"] != after["status"]:
        out.append(f"cluster health went from {before['status']} to {after['status']} "
                   f"during the step" + (f" (new: {', '.join(view['new'])})" if view.get("new")
                                          else ""))
    elif view.get("new"):
        out.append(f"new health checks after the step: {', '.join(view['new'])}")
    passing = [c for c in view.get("seen") or [] if c not in (view.get("new") or [])
               and c != "SLOW_OPS"]
    if passing:
        out.append(f"health checks seen during the step only: {', '.join(passing)}")
    return out
