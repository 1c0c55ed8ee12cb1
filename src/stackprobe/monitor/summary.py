"""Pure functions on a MonitorSeries: the figures a report and bottleneck hints need, and
the per-second file the HTML report draws.

A step's monitoring answers "what was the busiest resource while the load ran": a disk at
100% util, a NIC near its link speed, CPUs with no idle left, iowait. The summary keeps
means and maxima of exactly those, per host (one series is one host), and only for the
devices that did something: an idle loop device or a NIC that moved nothing is noise in a
table. Rates stay per second in base units; errors and drops (sadf gives them per second)
are turned into counts over the samples' intervals.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from stackprobe.parsers.host.sadf_json import DiskUse, MonitorSample, MonitorSeries, NicUse


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _max(values: Iterable[float]) -> float | None:
    return max(values, default=None)


def _total(samples: list[MonitorSample], per_s: Callable[[MonitorSample], float | None]) -> int | None:
    """A per-second figure summed over the samples' intervals (None when never reported)."""
    seen = [(v, s.interval_s) for s in samples if (v := per_s(s)) is not None]
    return round(sum(v * dt for v, dt in seen)) if seen else None


def cpu_summary(samples: list[MonitorSample]) -> dict[str, Any]:
    loads = [s.cpu for s in samples if s.cpu is not None]
    busy = [c.busy for c in loads]
    iowait = [c.iowait for c in loads]
    cores: dict[str, float] = {}
    for s in samples:
        for name, load in s.cpus.items():
            cores[name] = max(cores.get(name, 0.0), load.busy)
    return {
        "busy_mean_pct": _mean(busy),
        "busy_max_pct": _max(busy),
        "iowait_mean_pct": _mean(iowait),
        "iowait_max_pct": _max(iowait),
        "core_busy_max_pct": dict(sorted(cores.items(), key=lambda kv: _core_order(kv[0]))),
    }


def _core_order(name: str) -> tuple[int, str]:
    return (int(name), "") if name.isdigit() else (1 << 30, name)


def mem_summary(samples: list[MonitorSample]) -> dict[str, Any]:
    mems = [s.mem for s in samples if s.mem is not None]
    if not mems:
        return {}
    used_max = max(m.used_bytes for m in mems)
    total = mems[-1].total_bytes
    return {
        "total_bytes": total,
        "used_max_bytes": used_max,
        "used_max_pct": used_max * 100.0 / total if total else None,
        "avail_min_bytes": _min_or_none(m.avail_bytes for m in mems),
    }


def _min_or_none(values: Iterable[int | None]) -> int | None:
    return min((v for v in values if v is not None), default=None)


def did_io(d: DiskUse) -> bool:
    return bool(d.iops or d.read_bps or d.write_bps)


def disk_summary(samples: list[MonitorSample]) -> dict[str, dict[str, Any]]:
    """Per device that did I/O in some sample: max util, mean/max IOPS, mean bytes/s and
    the await (ms) averaged over the samples that had I/O."""
    names = sorted({n for s in samples for n, d in s.disks.items() if did_io(d)})
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        seen = [s.disks[name] for s in samples if name in s.disks]
        busy = [d for d in seen if did_io(d)]
        out[name] = {
            "util_max_pct": _max(d.util_pct for d in seen),
            "iops_mean": _mean([d.iops for d in seen]),
            "iops_max": _max(d.iops for d in seen),
            "read_bps_mean": _mean([d.read_bps for d in seen]),
            "write_bps_mean": _mean([d.write_bps for d in seen]),
            "await_ms_mean": _mean([d.await_ms for d in busy]),
        }
    return out


def active_nic(n: NicUse) -> bool:
    return bool(n.rx_bps or n.tx_bps or n.rx_pps or n.tx_pps or n.rx_errs or n.tx_errs
                or n.rx_drop or n.tx_drop)


def link_pct(bytes_per_s: float | None, speed_mbps: float | None) -> float | None:
    """A byte rate as a percentage of a link speed in Mbit/s (None when unknown)."""
    if bytes_per_s is None or not speed_mbps or speed_mbps <= 0:
        return None
    return bytes_per_s * 8 * 100.0 / (speed_mbps * 1e6)


def nic_summary(samples: list[MonitorSample],
                link_speeds_mbps: dict[str, float] | None = None) -> dict[str, dict[str, Any]]:
    """Per interface that moved packets or counted errors/drops: max byte rates (and as a
    percentage of the link speed, when known), error and drop counts over the series."""
    speeds = link_speeds_mbps or {}
    names = sorted({n for s in samples for n, u in s.nics.items() if active_nic(u)})
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        seen = [s for s in samples if name in s.nics]
        rx = _max(s.nics[name].rx_bps for s in seen)
        tx = _max(s.nics[name].tx_bps for s in seen)
        speed = speeds.get(name)
        out[name] = {
            "rx_bps_max": rx,
            "tx_bps_max": tx,
            "rx_pps_max": _max(s.nics[name].rx_pps for s in seen),
            "tx_pps_max": _max(s.nics[name].tx_pps for s in seen),
            "speed_mbps": speed,
            "rx_max_pct_of_link": link_pct(rx, speed),
            "tx_max_pct_of_link": link_pct(tx, speed),
            "rx_errs": _total(seen, lambda s, n=name: s.nics[n].rx_errs),
            "tx_errs": _total(seen, lambda s, n=name: s.nics[n].tx_errs),
            "rx_drop": _total(seen, lambda s, n=name: s.nics[n].rx_drop),
            "tx_drop": _total(seen, lambda s, n=name: s.nics[n].tx_drop),
        }
    return out


def summarise(series: MonitorSeries, link_speeds_mbps: dict[str, float] | None = None) -> dict[str, Any]:
    """One host's figures for reports and bottleneck hints (see docs/results-schema.md,
    "Monitoring files"). CPU busy is 100 − idle: iowait and steal count as busy, iowait is
    also given alone."""
    samples = series.samples
    return {
        "host": series.host,
        "samples": len(samples),
        "seconds": sum(s.interval_s for s in samples),
        "ncpu": series.ncpu,
        "cpu": cpu_summary(samples),
        "mem": mem_summary(samples),
        "disks": disk_summary(samples),
        "nics": nic_summary(samples, link_speeds_mbps),
    }


CPU_KEYS = ("usr", "sys", "iowait", "idle")
MEM_KEYS = ("total_bytes", "used_bytes", "cached_bytes", "avail_bytes")
DISK_KEYS = ("iops", "read_bps", "write_bps", "util_pct", "await_ms")
NIC_KEYS = ("rx_bps", "tx_bps", "rx_pps", "tx_pps", "rx_errs", "tx_errs", "rx_drop", "tx_drop")


def _pick(model: Any, keys: tuple[str, ...]) -> dict[str, Any] | None:
    return None if model is None else {k: getattr(model, k) for k in keys}


def sample_json(s: MonitorSample) -> dict[str, Any]:
    """One sample in the monitoring file's shape."""
    return {
        "t": s.t,
        "cpu": _pick(s.cpu, CPU_KEYS),
        "cpus": {name: _pick(c, CPU_KEYS) for name, c in s.cpus.items()},
        "mem": _pick(s.mem, MEM_KEYS),
        "disks": {name: _pick(d, DISK_KEYS) for name, d in s.disks.items()},
        "nics": {name: _pick(n, NIC_KEYS) for name, n in s.nics.items()},
    }


def write_samples_json(series: MonitorSeries) -> str:
    """The monitoring file stored beside a step's raw output (docs/results-schema.md,
    "Monitoring files"): one JSON document, one sample per line."""
    head = json.dumps({"host": series.host, "interval_s": series.interval_s, "ncpu": series.ncpu})
    lines = [json.dumps(sample_json(s)) for s in series.samples]
    body = ",\n".join(lines)
    return head[:-1] + ', "samples": [' + (f"\n{body}\n" if lines else "") + "]}\n"
