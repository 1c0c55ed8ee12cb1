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
from typing import Any

from stackprobe.monitor.stream_fold import SummaryFold
from stackprobe.parsers.host.sadf_json import MonitorSample, MonitorSeries


def summarise(series: MonitorSeries, link_speeds_mbps: dict[str, float] | None = None) -> dict[str, Any]:
    """One host's figures for reports and bottleneck hints (see docs/results-schema.md,
    "Monitoring files"): the series folded sample by sample (stream_fold.py, the same fold a
    long step's segments go through). CPU busy is 100 − idle: iowait and steal count as
    busy, iowait is also given alone."""
    fold = SummaryFold()
    for sample in series.samples:
        fold.add(sample)
    return fold.result(series.host, series.ncpu, link_speeds_mbps)


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
