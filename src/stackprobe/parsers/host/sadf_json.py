"""sysstat `sadf -j` output -> MonitorSeries: one host's resources, one sample per interval.

stackprobe samples a host during a step with sysstat's own collector (`sadc`, see
monitor/sampler.py) and turns the binary file into JSON with `sadf -j <file> -- -u ALL
-P ALL -r ALL -d -n DEV,EDEV` on that same host (device names are resolved there). What
sadf 12.6.1 really writes, and what this parser does about it:

- One document `{"sysstat": {"hosts": [{nodename, number-of-cpus, statistics: [...]}]}}`.
  Each statistic is one interval, stamped with the *end* of it: `timestamp` {date, time,
  utc: 1, interval}. Times are UTC unless sadf ran with -t (`utc: 0`: the file's local
  time); a local time is only accepted when the file's timezone is UTC itself.
- sadc's first reading only starts the clock: a file with one reading (a step shorter than
  the interval) has `"statistics": []`, which is a valid, empty series, not an error.
- CPU: `-u ALL` gives usr/nice/sys/iowait/steal/irq/soft/guest/gnice/idle; plain `-u`
  gives `user` and `system`, where `system` includes irq and soft. Both are read; irq and
  soft are then unknown (None). `cpu: "all"` is the machine, the others are cores.
- Memory is in kB (KiB). sadf gives no total: sysstat computes memused = total − free −
  buffers − cached − slab, so the total is the sum of those (slab needs `-r ALL`); when
  free+buffers+cached+slab would exceed the total sysstat uses total − free instead. The
  total that agrees best with `memused-percent` is kept. Without slab (plain `-r`) the sum
  is short by the slab, and memused / memused-percent (2 decimals) is used when larger.
- Disks: `tps` (I/Os per second), `rkB`/`wkB` per second in KiB (= sectors / 2), `await`
  in ms, `util-percent`, `aqu-sz` (older files: `avgqu-sz`). Devices sadc never saw do
  I/O are absent; every other device is kept (loop, partitions, dm-*): consumers filter.
- NICs: `net-dev` rxkB/txkB per second in KiB (bytes / 1024), rxpck/txpck per second;
  `net-edev` rxerr/txerr/rxdrop/txdrop per second. Without EDEV those stay None.
- A data file cut inside its last record (sadc stopped while writing) still gives valid
  JSON with the complete records, and "End of system activity file unexpected" on stderr;
  cut inside its header gives a JSON document cut short: a ValueError here.

Everything is converted to base units: bytes, bytes/s, ms stays ms (await is a latency in
sadf's own unit, kept as such), per-second rates as given.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from stackprobe.parsers.bad_input import guard, loads

KIB = 1024


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # no NaN/inf figure


class CpuLoad(_Model):
    """Percentages of one CPU (or all: the machine) over one interval."""

    usr: float
    sys: float  # with plain `-u`: sys + irq + soft
    iowait: float
    idle: float
    nice: float | None = None
    steal: float | None = None
    irq: float | None = None
    soft: float | None = None
    guest: float | None = None
    gnice: float | None = None

    @property
    def busy(self) -> float:
        """100 − idle: everything but idle, iowait and steal included (2 decimals, as sadf)."""
        return round(100.0 - self.idle, 2)


class MemUse(_Model):
    """Memory at the end of the interval, in bytes."""

    total_bytes: int
    used_bytes: int  # sysstat's memused: without buffers, page cache and slab
    cached_bytes: int
    avail_bytes: int | None = None  # MemAvailable; absent on old kernels
    free_bytes: int
    buffers_bytes: int
    slab_bytes: int | None = None  # only with `-r ALL`


class DiskUse(_Model):
    """One block device over one interval."""

    iops: float
    read_bps: float
    write_bps: float
    util_pct: float
    await_ms: float
    aqu_sz: float | None = None


class NicUse(_Model):
    """One network interface over one interval; errors and drops per second (EDEV)."""

    rx_bps: float
    tx_bps: float
    rx_pps: float
    tx_pps: float
    rx_errs: float | None = None
    tx_errs: float | None = None
    rx_drop: float | None = None
    tx_drop: float | None = None


class MonitorSample(_Model):
    t: float  # epoch seconds (UTC) of the end of the interval, whole seconds
    interval_s: float
    cpu: CpuLoad | None = None
    cpus: dict[str, CpuLoad] = Field(default_factory=dict)
    mem: MemUse | None = None
    disks: dict[str, DiskUse] = Field(default_factory=dict)
    nics: dict[str, NicUse] = Field(default_factory=dict)


class MonitorSeries(_Model):
    """One host's samples, in time order."""

    host: str
    interval_s: float | None = None  # the usual sample interval; None when no sample
    ncpu: int | None = None
    kernel: str | None = None
    samples: list[MonitorSample] = Field(default_factory=list)


def _obj(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"sadf JSON: {where} is not an object")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"sadf JSON: {where} is not a list")
    return value


def _num(d: dict[str, Any], keys: tuple[str, ...], where: str, required: bool = True) -> float | None:
    """The first of `keys` present in d, as a float; None (or an error) when none is."""
    for key in keys:
        if key in d:
            value = d[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"sadf JSON: {where}.{key} is not a number: {value!r}")
            return float(value)
    if required:
        raise ValueError(f"sadf JSON: {where} has no {'/'.join(keys)}")
    return None


def _req(d: dict[str, Any], keys: tuple[str, ...], where: str) -> float:
    value = _num(d, keys, where)
    assert value is not None
    return value


def _epoch(stamp: dict[str, Any], utc_names_ok: bool) -> float:
    date, time = stamp.get("date"), stamp.get("time")
    if not isinstance(date, str) or not isinstance(time, str):
        raise ValueError("sadf JSON: timestamp without date/time")
    if stamp.get("utc", 1) != 1 and not utc_names_ok:
        raise ValueError("sadf JSON: local timestamps (sadf -t); run sadf without -t for UTC")
    return _utc_seconds(f"{date} {time}")


# sadf's own form, zero-padded; anything else goes through strptime as before
_STAMP = re.compile(r"(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)")


@lru_cache(maxsize=8192)
def _utc_seconds(text: str) -> float:
    """A sample's time. Why not strptime alone: it takes a lock and ~10 us per call, and at
    a thousand hosts the monitor's stop parses every host's samples at once (42% of the
    controller's samples in a simulated run); the same second recurs across hosts, hence
    the cache."""
    m = _STAMP.fullmatch(text)
    if m:
        try:
            return datetime(*map(int, m.groups()), tzinfo=UTC).timestamp()
        except ValueError:
            pass  # out of range: strptime words the error
    try:
        moment = datetime.strptime(text, "%Y-%m-%d %H:%M:%S")
    except ValueError as exc:
        raise ValueError(f"sadf JSON: bad timestamp {text}: {exc}") from None
    return moment.replace(tzinfo=UTC).timestamp()


def cpu_load(entry: dict[str, Any], where: str) -> CpuLoad:
    """One `cpu-load` entry: `-u ALL` names (usr, sys) or plain `-u` names (user, system)."""
    opt = {k: _num(entry, (k,), where, required=False)
           for k in ("nice", "steal", "irq", "soft", "guest", "gnice")}
    return CpuLoad(
        usr=_req(entry, ("usr", "user"), where),
        sys=_req(entry, ("sys", "system"), where),
        iowait=_req(entry, ("iowait",), where),
        idle=_req(entry, ("idle",), where),
        **opt,
    )


def mem_total_kib(mem: dict[str, Any]) -> int:
    """The memory total sysstat measured against (see the module docstring)."""
    free = _req(mem, ("memfree",), "memory")
    used = _req(mem, ("memused",), "memory")
    cached = _num(mem, ("cached",), "memory", required=False) or 0.0
    buffers = _num(mem, ("buffers",), "memory", required=False) or 0.0
    slab = _num(mem, ("slab",), "memory", required=False)
    full = free + used + buffers + cached + (slab or 0.0)  # the usual case
    short = free + used  # when free+buffers+cached+slab exceeded the total
    pct = _num(mem, ("memused-percent",), "memory", required=False)
    if not pct:
        return int(full)
    from_pct = used * 100.0 / pct  # only to ~0.005/pct: the percentage has 2 decimals
    if slab is None:
        # plain `-r`: the sum lacks slab, so it is a lower bound; the percentage is closer
        return int(max(full, round(from_pct)))
    return int(min((full, short), key=lambda total: abs(total - from_pct)))


def mem_use(mem: dict[str, Any]) -> MemUse:
    slab = _num(mem, ("slab",), "memory", required=False)
    avail = _num(mem, ("avail",), "memory", required=False)
    return MemUse(
        total_bytes=mem_total_kib(mem) * KIB,
        used_bytes=int(_req(mem, ("memused",), "memory")) * KIB,
        cached_bytes=int(_num(mem, ("cached",), "memory", required=False) or 0) * KIB,
        avail_bytes=None if avail is None else int(avail) * KIB,
        free_bytes=int(_req(mem, ("memfree",), "memory")) * KIB,
        buffers_bytes=int(_num(mem, ("buffers",), "memory", required=False) or 0) * KIB,
        slab_bytes=None if slab is None else int(slab) * KIB,
    )


def disk_use(entry: dict[str, Any], where: str) -> DiskUse:
    rkb = _num(entry, ("rkB",), where, required=False)
    wkb = _num(entry, ("wkB",), where, required=False)
    read = rkb * KIB if rkb is not None else _req(entry, ("rd_sec",), where) * 512
    write = wkb * KIB if wkb is not None else _req(entry, ("wr_sec",), where) * 512
    return DiskUse(
        iops=_req(entry, ("tps",), where),
        read_bps=read,
        write_bps=write,
        util_pct=_req(entry, ("util-percent",), where),
        await_ms=_req(entry, ("await",), where),
        aqu_sz=_num(entry, ("aqu-sz", "avgqu-sz"), where, required=False),
    )


def nic_use(dev: dict[str, Any], edev: dict[str, Any] | None, where: str) -> NicUse:
    errs = edev or {}
    return NicUse(
        rx_bps=_req(dev, ("rxkB",), where) * KIB,
        tx_bps=_req(dev, ("txkB",), where) * KIB,
        rx_pps=_req(dev, ("rxpck",), where),
        tx_pps=_req(dev, ("txpck",), where),
        rx_errs=_num(errs, ("rxerr",), where, required=False),
        tx_errs=_num(errs, ("txerr",), where, required=False),
        rx_drop=_num(errs, ("rxdrop",), where, required=False),
        tx_drop=_num(errs, ("txdrop",), where, required=False),
    )


def _named(entries: list[Any], key: str, where: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for i, entry in enumerate(entries):
        entry = _obj(entry, f"{where}[{i}]")
        name = entry.get(key)
        if not isinstance(name, str):
            raise ValueError(f"sadf JSON: {where}[{i}] has no {key}")
        out[name] = entry
    return out


def sample(stat: dict[str, Any], where: str, utc_names_ok: bool) -> MonitorSample:
    """One `statistics` entry."""
    stamp = _obj(stat.get("timestamp"), f"{where}.timestamp")
    interval = _req(stamp, ("interval",), f"{where}.timestamp")
    cpu: CpuLoad | None = None
    cpus: dict[str, CpuLoad] = {}
    for name, entry in _named(_list(stat.get("cpu-load"), f"{where}.cpu-load"), "cpu",
                              f"{where}.cpu-load").items():
        load = cpu_load(entry, f"{where}.cpu-load[{name}]")
        if name == "all":
            cpu = load
        else:
            cpus[name] = load
    mem = stat.get("memory")
    disks = {name: disk_use(entry, f"{where}.disk[{name}]") for name, entry in
             _named(_list(stat.get("disk"), f"{where}.disk"), "disk-device", f"{where}.disk").items()}
    network = _obj(stat.get("network") or {}, f"{where}.network")
    devs = _named(_list(network.get("net-dev"), f"{where}.net-dev"), "iface", f"{where}.net-dev")
    edevs = _named(_list(network.get("net-edev"), f"{where}.net-edev"), "iface", f"{where}.net-edev")
    nics = {name: nic_use(dev, edevs.get(name), f"{where}.net-dev[{name}]") for name, dev in devs.items()}
    return MonitorSample(
        t=_epoch(stamp, utc_names_ok),
        interval_s=interval,
        cpu=cpu,
        cpus=cpus,
        mem=None if mem is None else mem_use(_obj(mem, f"{where}.memory")),
        disks=disks,
        nics=nics,
    )


@guard("sadf JSON")
def parse_sadf_json(text: str) -> MonitorSeries:
    """The MonitorSeries of one `sadf -j` document (one host)."""
    try:
        doc = loads(text)
    except json.JSONDecodeError as exc:
        what = "empty" if not text.strip() else f"not complete JSON ({exc.msg} at line {exc.lineno})"
        raise ValueError(f"sadf JSON: {what}") from None
    hosts = _list(_obj(_obj(doc, "document").get("sysstat"), "sysstat").get("hosts"), "sysstat.hosts")
    if len(hosts) != 1:
        raise ValueError(f"sadf JSON: expected one host, found {len(hosts)}")
    host = _obj(hosts[0], "sysstat.hosts[0]")
    name = host.get("nodename")
    if not isinstance(name, str):
        raise ValueError("sadf JSON: host without nodename")
    utc_names_ok = str(host.get("timezone", "")).upper() in ("UTC", "GMT", "UTC0")
    stats = _list(host.get("statistics"), "statistics")
    samples = [sample(_obj(s, f"statistics[{i}]"), f"statistics[{i}]", utc_names_ok)
               for i, s in enumerate(stats)]
    ncpu = host.get("number-of-cpus")
    intervals = Counter(s.interval_s for s in samples)
    return MonitorSeries(
        host=name,
        interval_s=intervals.most_common(1)[0][0] if intervals else None,
        ncpu=ncpu if isinstance(ncpu, int) and not isinstance(ncpu, bool) else None,
        kernel=host.get("release") if isinstance(host.get("release"), str) else None,
        samples=samples,
    )
