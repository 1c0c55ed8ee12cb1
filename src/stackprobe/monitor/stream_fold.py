"""A step's monitor samples folded as they come, so a step of hours holds little.

sadc samples every second; a day-long soak is 86,400 samples per host, and held whole
(parsed, then summarised, then written) they took ~300 MB of the controller's memory and
~370 MB of disk per host-day (docs/soak.md). A long step's monitor therefore reads sadc's
output a segment at a time (monitor/sampler.py) and folds each segment here:

- `SummaryFold`: the summary's figures as running sums, counts, maxima and minima. It is
  the one implementation of the summary (summary.py's `summarise` folds a whole series
  through it), so a folded day and a series read whole give the same figures, in the same
  order of additions.
- `SampleKeeper`: the samples a report draws, bounded: every second of the first and the
  last `keep_s`, and between them one sample per `bucket_s` (each device's figures averaged
  over the bucket), widened when there would be more than `max_buckets`. A peak inside a
  bucket is in the summary's maxima, not in the drawn curve.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from stackprobe.parsers.host.sadf_json import DiskUse, MonitorSample, NicUse


def did_io(d: DiskUse) -> bool:
    return bool(d.iops or d.read_bps or d.write_bps)


def active_nic(n: NicUse) -> bool:
    return bool(n.rx_bps or n.tx_bps or n.rx_pps or n.tx_pps or n.rx_errs or n.tx_errs
                or n.rx_drop or n.tx_drop)


def link_pct(bytes_per_s: float | None, speed_mbps: float | None) -> float | None:
    """A byte rate as a percentage of a link speed in Mbit/s (None when unknown)."""
    if bytes_per_s is None or not speed_mbps or speed_mbps <= 0:
        return None
    return bytes_per_s * 8 * 100.0 / (speed_mbps * 1e6)


@dataclass
class _Stat:
    """Sum, count and extremes of one figure over the samples that had it."""

    total: float = 0.0
    n: int = 0
    top: float | None = None
    low: float | None = None

    def add(self, v: float | None) -> None:
        if v is None:
            return
        self.total += v
        self.n += 1
        self.top = v if self.top is None else max(self.top, v)
        self.low = v if self.low is None else min(self.low, v)

    @property
    def mean(self) -> float | None:
        return self.total / self.n if self.n else None


@dataclass
class _Count:
    """A per-second figure summed over its samples' intervals (None when never reported)."""

    total: float = 0.0
    seen: bool = False

    def add(self, per_s: float | None, dt: float) -> None:
        if per_s is not None:
            self.total += per_s * dt
            self.seen = True

    @property
    def value(self) -> int | None:
        return round(self.total) if self.seen else None


DISK = ("util", "iops", "read", "write", "await")
NIC = ("rx", "tx", "rx_pps", "tx_pps")
COUNTS = ("rx_errs", "tx_errs", "rx_drop", "tx_drop")


@dataclass
class SummaryFold:
    """The summary of one host's samples, added one at a time (docs/results-schema.md,
    "Monitoring files"). CPU busy is 100 - idle: iowait and steal count as busy."""

    samples: int = 0
    seconds: float = 0.0
    busy: _Stat = field(default_factory=_Stat)
    iowait: _Stat = field(default_factory=_Stat)
    cores: dict[str, float] = field(default_factory=dict)
    used: _Stat = field(default_factory=_Stat)
    avail: _Stat = field(default_factory=_Stat)
    total_bytes: int | None = None
    disks: dict[str, dict[str, _Stat]] = field(default_factory=dict)
    disks_io: set[str] = field(default_factory=set)
    nics: dict[str, dict[str, Any]] = field(default_factory=dict)
    nics_active: set[str] = field(default_factory=set)

    def add(self, s: MonitorSample) -> None:
        self.samples += 1
        self.seconds += s.interval_s
        if s.cpu is not None:
            self.busy.add(s.cpu.busy)
            self.iowait.add(s.cpu.iowait)
        for name, load in s.cpus.items():
            self.cores[name] = max(self.cores.get(name, 0.0), load.busy)
        if s.mem is not None:
            self.used.add(s.mem.used_bytes)
            self.avail.add(s.mem.avail_bytes)
            self.total_bytes = s.mem.total_bytes
        for name, d in s.disks.items():
            st = self.disks.setdefault(name, {k: _Stat() for k in DISK})
            st["util"].add(d.util_pct)
            st["iops"].add(d.iops)
            st["read"].add(d.read_bps)
            st["write"].add(d.write_bps)
            if did_io(d):
                st["await"].add(d.await_ms)
                self.disks_io.add(name)
        for name, n in s.nics.items():
            st = self.nics.setdefault(name, {**{k: _Stat() for k in NIC},
                                             **{k: _Count() for k in COUNTS}})
            st["rx"].add(n.rx_bps)
            st["tx"].add(n.tx_bps)
            st["rx_pps"].add(n.rx_pps)
            st["tx_pps"].add(n.tx_pps)
            for k in COUNTS:
                st[k].add(getattr(n, k), s.interval_s)
            if active_nic(n):
                self.nics_active.add(name)

    def cpu(self) -> dict[str, Any]:
        return {
            "busy_mean_pct": self.busy.mean,
            "busy_max_pct": self.busy.top,
            "iowait_mean_pct": self.iowait.mean,
            "iowait_max_pct": self.iowait.top,
            "core_busy_max_pct": dict(sorted(self.cores.items(), key=lambda kv: _core_order(kv[0]))),
        }

    def mem(self) -> dict[str, Any]:
        if not self.used.n:
            return {}
        used_max, total = int(self.used.top), self.total_bytes
        return {
            "total_bytes": total,
            "used_max_bytes": used_max,
            "used_max_pct": used_max * 100.0 / total if total else None,
            "avail_min_bytes": None if self.avail.low is None else int(self.avail.low),
        }

    def disks_summary(self) -> dict[str, dict[str, Any]]:
        """Per device that did I/O in some sample: max util, mean/max IOPS, mean bytes/s
        and the await (ms) averaged over the samples that had I/O."""
        out = {}
        for name in sorted(self.disks_io):
            st = self.disks[name]
            out[name] = {"util_max_pct": st["util"].top, "iops_mean": st["iops"].mean,
                         "iops_max": st["iops"].top, "read_bps_mean": st["read"].mean,
                         "write_bps_mean": st["write"].mean, "await_ms_mean": st["await"].mean}
        return out

    def nics_summary(self, link_speeds_mbps: dict[str, float] | None) -> dict[str, dict[str, Any]]:
        """Per interface that moved packets or counted errors/drops: max byte rates (and as a
        percentage of the link speed, when known), error and drop counts."""
        speeds = link_speeds_mbps or {}
        out = {}
        for name in sorted(self.nics_active):
            st = self.nics[name]
            rx, tx, speed = st["rx"].top, st["tx"].top, speeds.get(name)
            out[name] = {"rx_bps_max": rx, "tx_bps_max": tx, "rx_pps_max": st["rx_pps"].top,
                         "tx_pps_max": st["tx_pps"].top, "speed_mbps": speed,
                         "rx_max_pct_of_link": link_pct(rx, speed),
                         "tx_max_pct_of_link": link_pct(tx, speed),
                         **{k: st[k].value for k in COUNTS}}
        return out

    def result(self, host: str, ncpu: int | None,
               link_speeds_mbps: dict[str, float] | None = None) -> dict[str, Any]:
        return {"host": host, "samples": self.samples, "seconds": self.seconds, "ncpu": ncpu,
                "cpu": self.cpu(), "mem": self.mem(), "disks": self.disks_summary(),
                "nics": self.nics_summary(link_speeds_mbps)}


def _core_order(name: str) -> tuple[int, str]:
    return (int(name), "") if name.isdigit() else (1 << 30, name)


def _mean_model(models: list[BaseModel]) -> BaseModel:
    """One model whose every figure is the mean of the models' (None where none had it)."""
    first = models[0]
    values: dict[str, Any] = {}
    for name in type(first).model_fields:
        got = [v for m in models if (v := getattr(m, name)) is not None]
        if not got:
            values[name] = None
            continue
        mean = sum(got) / len(got)
        values[name] = round(mean) if isinstance(got[0], int) else mean
    return type(first)(**values)


def _mean_sample(samples: list[MonitorSample]) -> MonitorSample:
    """A bucket as one sample: its last second's time, all its seconds, each figure the mean
    over the seconds that had it."""
    def per_name(attr: str) -> dict:
        names = dict.fromkeys(n for s in samples for n in getattr(s, attr))
        return {n: _mean_model([getattr(s, attr)[n] for s in samples if n in getattr(s, attr)])
                for n in names}

    cpu = [s.cpu for s in samples if s.cpu is not None]
    mem = [s.mem for s in samples if s.mem is not None]
    return MonitorSample(t=samples[-1].t, interval_s=sum(s.interval_s for s in samples),
                         cpu=_mean_model(cpu) if cpu else None, cpus=per_name("cpus"),
                         mem=_mean_model(mem) if mem else None, disks=per_name("disks"),
                         nics=per_name("nics"))


class SampleKeeper:
    """The samples of a step of any length, bounded: the first and last `keep_s` seconds as
    they were, buckets of `bucket_s` between (widened past `max_buckets`)."""

    def __init__(self, keep_s: float = 600.0, bucket_s: float = 60.0, max_buckets: int = 1440):
        self.keep_s, self.bucket_s, self.max_buckets = keep_s, bucket_s, max_buckets
        self.head: list[MonitorSample] = []
        self.tail: deque[MonitorSample] = deque()
        self.buckets: list[MonitorSample] = []
        self._open: list[MonitorSample] = []  # the bucket being filled
        self._start: float | None = None
        self._last_t: float | None = None

    def add(self, s: MonitorSample) -> None:
        if self._last_t is not None and s.t <= self._last_t:
            return  # a second read twice where two segments meet
        self._last_t = s.t
        if self._start is None:
            self._start = s.t - s.interval_s
        if s.t - self._start <= self.keep_s:
            self.head.append(s)
            return
        self.tail.append(s)
        while self.tail and self.tail[0].t <= s.t - self.keep_s:
            self._fold(self.tail.popleft())

    def _index(self, s: MonitorSample) -> int:
        return int((s.t - self._start - self.keep_s - 1e-9) // self.bucket_s)

    def _fold(self, s: MonitorSample) -> None:
        if self._open and self._index(s) != self._index(self._open[0]):
            self._close()
        self._open.append(s)

    def _close(self) -> None:
        self.buckets.append(_mean_sample(self._open))
        self._open = []
        if len(self.buckets) > self.max_buckets:  # twice as wide: pairs become one
            self.buckets = [_mean_sample(self.buckets[i:i + 2])
                            for i in range(0, len(self.buckets), 2)]
            self.bucket_s *= 2

    def samples(self) -> list[MonitorSample]:
        opened = [_mean_sample(self._open)] if self._open else []
        return [*self.head, *self.buckets, *opened, *self.tail]
