"""fio normal (human) output -> IoRecords, for every fio era.

The report: per direction `read: IOPS=13.2k, BW=51.7MiB/s (54.2MB/s)(517MiB/10001msec)` (3.x)
or `read : io=1104.8GB, bw=321739KB/s, iops=314, runt=..msec` (2.x, where KB/MB/GB are powers
of 1024); `slat/clat/lat (unit): min=.., max=8567.6k, ..` (k/M: powers of 1000); percentile
blocks; `cpu :`; `issued rwts: total=r,w,t,sync` (2.x: `total=r=../w=../d=..`); the job header;
and the description lines printed at start, the only place that names the workload. Skipped:
progress lines (`Jobs: ..`, glued together or to the next line, with or without a CR), wrapper
lines, run-status and disk-stats sections, client-mode `<host> ` prefixes (kept as host) and the
JSON of `--output-format=normal,json`, which fio 3.33 prints *between* the description lines
and the reports: it is skipped wherever it is, from a line starting with '{' to a '}' line.

Which figure is kept, and why (tests compare with fio's JSON of the same runs):
- iops = total_ios * 1000 / runtime_ms, fio's own formula on exact integers (IOPS= has 3-4 digits).
- bw_bytes: fio prints one integer bytes/s twice, rounded in binary and in decimal units; the
  midpoint of where both roundings overlap is kept (error ~0.1 % at worst). Not io / runtime:
  io has 3 digits, and fio 3.x's num2str drops the carry when a fraction rounds up ('19.0GiB'
  for 19.96 GiB in the fio-3.25 fixture); the overlap allows for that slip on '.0' figures.
- io_bytes = bw_bytes * runtime: fio derived BW from io / runtime, so this is as exact as BW.
  fio 2.x prints bw as integer KiB/s; a fraction there ('1104.8GB') is a shortened remainder.
- latencies: value times the printed unit; min/max (truncated) and percentiles (rounded up)
  carry up to one unit of error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from stackprobe.parsers.bad_input import describe, finite, guard
from stackprobe.parsers.fio.workload import normalise_workload
from stackprobe.schema.records import Cpu, IoRecord, IoStats, percentile_key
from stackprobe.units import parse_size, unit_to_ns

_HEADER = re.compile(
    r"^(?P<name>\S.*?): \(groupid=(?P<gid>\d+), jobs=(?P<jobs>\d+)\): "
    r"err=\s*(?P<err>-?\d+)(?: \((?P<msg>.*)\))?: pid="
)
_DESCRIPTION = re.compile(r"^(?P<name>\S.*?): \(g=(?P<gid>\d+)\): rw=(?P<rw>\w+), (?P<rest>.*)$")
_VERSION = re.compile(r"^fio-(\d\S*)$|^hostname=.*\bfio=fio-([^\s,]+)")
_HOST_PREFIX = re.compile(r"^<(?P<host>[^>]+)> ?")
_ETA = re.compile(r"\[eta [^\]]*\]")
_DIR_ANY = re.compile(r"^\s+(?P<dir>read|write|trim|mixed)\s*:")
_DIR3 = re.compile(
    r"^\s+(?P<dir>read|write|trim): IOPS=(?P<iops>[\d.]+[kMGT]?), BW=(?P<bw>\S+) "
    r"\((?P<alt>[^)\s]+)\)\((?P<io>[^/\s]+)/(?P<runt>\d+)msec\)"
)
_DIR2 = re.compile(
    r"^\s+(?P<dir>read|write|trim)\s*: io=(?P<io>[^,\s]+), bw=(?P<bw>[^,\s]+), "
    r"iops=\s*(?P<iops>[\d.]+[KkMG]?), runt=\s*(?P<runt>\d+)msec"
)
_LAT = re.compile(
    r"^\s+(?P<kind>slat|clat|lat) \((?P<unit>[a-z]+)\): min=\s*(?P<min>[^,\s]+), "
    r"max=\s*(?P<max>[^,\s]+), avg=\s*(?P<avg>[^,\s]+), stdev=\s*(?P<dev>[^,\s]+)\s*$"
)
_PCT_HEAD = re.compile(r"^\s+(?P<kind>.+?) percentiles \((?P<unit>[a-z]+)\):\s*$")
_PCT_ROW = re.compile(r"^\s+\|")
_PCT_ITEM = re.compile(r"(\d+(?:\.\d+)?)th=\[\s*(\d+)\]")
_CPU = re.compile(r"^\s+cpu\s+: usr=(?P<usr>[\d.]+)%, sys=(?P<sys>[\d.]+)%")
_ISSUED = re.compile(r"^\s+issued\b[^:]*:\s*total=(?P<total>[^\s,]+(?:,[^\s,]+)*)")
_FIGURE = re.compile(r"^(?P<int>\d+)(?:\.(?P<frac>\d+))?(?P<unit>[kKMGTPE]?i?(?:B|bit))(?:/s)?$")
_BS3 = re.compile(r"bs=\(R\) (?P<r>\S+?), \(W\) (?P<w>\S+?)(?:, \(T\) (?P<t>\S+?))?,")
_BS2 = re.compile(r"bs=(?P<r>[^/,\s]+)/(?P<w>[^/,\s]+)(?:/(?P<t>[^/,\s]+))?,")
_ENGINE = re.compile(r"ioengine=(?P<engine>[^,\s]+), iodepth=(?P<depth>\d+)")


@dataclass
class _Job:
    name: str
    groupid: int
    jobs: int
    error: int
    message: str | None
    host: str | None
    dirs: dict[str, IoStats] = field(default_factory=dict)
    totals: list[int] = field(default_factory=list)
    cpu: Cpu | None = None
    saw_mixed: bool = False


@guard("fio normal output")
def parse_fio_normal(text: str) -> list[IoRecord]:
    """IoRecords from fio's normal output: one per reported job (or group_reporting group)."""
    reader = _Reader()
    for number, line in enumerate(_report_lines(text), 1):
        try:
            reader.feed(line)
        except ValueError as exc:
            raise ValueError(f"fio normal output, line {number}: {describe(exc)}") from None
    if not reader.jobs:
        raise ValueError("no fio job report found (no 'name: (groupid=N, jobs=N): err=' line)")
    return [_record(job, reader.workloads, reader.version) for job in reader.jobs]


def _report_lines(text: str):
    """The report's lines; JSON documents dropped, progress lines cut to what follows them."""
    in_json = False
    for line in text.splitlines():  # also splits at a lone '\r'
        if line.startswith("Jobs:"):
            etas = list(_ETA.finditer(line))
            line = line[etas[-1].end() :].strip() if etas else ""
        if in_json:
            in_json = line.rstrip() != "}"
            continue
        if line.startswith("{"):
            in_json = line.rstrip() == "{"
            continue
        yield line


class _Reader:
    """Line-by-line state: the job being read, its direction and percentile block."""

    def __init__(self) -> None:
        self.jobs: list[_Job] = []
        self.workloads: dict[object, dict] = {}
        self.version: str | None = None
        self.host: str | None = None
        self.job: _Job | None = None
        self.stats: IoStats | None = None  # the direction being read
        self.percentiles: tuple[dict[str, float], int] | None = None

    def feed(self, line: str) -> None:
        if prefix := _HOST_PREFIX.match(line):
            self.host, line = prefix["host"], line[prefix.end() :]
        if line.startswith(("Run status group", "Disk stats")):
            self.job = self.stats = self.percentiles = None
        elif m := _HEADER.match(line):
            gid, jobs, err = int(m["gid"]), int(m["jobs"]), int(m["err"])
            self.job = _Job(m["name"], gid, jobs, err, m["msg"], self.host)
            self.jobs.append(self.job)
            self.stats = self.percentiles = None
        elif m := _DESCRIPTION.match(line):
            options = _workload(m["rw"], m["rest"])
            self.workloads.setdefault((m["name"], int(m["gid"])), options)
            self.workloads.setdefault(m["name"], options)
        elif m := _VERSION.match(line.strip()):
            self.version = self.version or f"fio-{m[1] or m[2]}"
        elif self.job is not None:
            self._feed_job(self.job, line)

    def _feed_job(self, job: _Job, line: str) -> None:
        if _PCT_ROW.match(line):
            if self.percentiles is not None:
                target, scale = self.percentiles
                for p, value in _PCT_ITEM.findall(line):
                    target[percentile_key(p)] = finite(float(value) * scale, "percentile")
            return
        self.percentiles = None
        if m := _PCT_HEAD.match(line):
            # 'clat prio 1/0/0 (..)' and 'sync' blocks have no place in IoStats.
            if self.stats is not None and m["kind"] in ("slat", "clat", "lat"):
                target = getattr(self.stats, f"{m['kind']}_ns")
                self.percentiles = (target, unit_to_ns(m["unit"]))
        elif (m := _LAT.match(line)) and self.stats is not None:
            scale = unit_to_ns(m["unit"])
            figures = {"min": _count(m["min"]), "max": _count(m["max"]),
                       "mean": float(m["avg"]), "stddev": float(m["dev"])}
            getattr(self.stats, f"{m['kind']}_ns").update(  # set here, so checked here
                {k: finite(v * scale, f"{m['kind']} {k}") for k, v in figures.items()})
        elif m := _DIR_ANY.match(line):
            self.stats = None if m["dir"] == "mixed" else _direction(line)
            if self.stats is None:
                job.saw_mixed = True
            else:
                job.dirs[m["dir"]] = self.stats
        elif m := _CPU.match(line):
            job.cpu = Cpu(usr_pct=float(m["usr"]), sys_pct=float(m["sys"]))
        elif m := _ISSUED.match(line):
            job.totals = _issued(m["total"])


def _direction(line: str) -> IoStats:
    """IoStats from a 3.x 'read: IOPS=..' or 2.x 'read : io=..' line (iops refined later)."""
    if m := _DIR3.match(line):
        bw, legacy = _bytes(m["bw"], m["alt"]), False
    elif m := _DIR2.match(line):
        bw, legacy = _bytes(m["bw"], legacy=True), True
    else:
        raise ValueError(f"unrecognised direction line: {line.strip()!r}")
    _ranges(m["io"], legacy)  # only checked: bw * runtime is the closer io figure
    runtime = float(m["runt"])
    io_bytes = round(bw * runtime / 1000.0)
    return IoStats(iops=_count(m["iops"]), bw_bytes=bw, io_bytes=io_bytes, runtime_ms=runtime)


def _count(text: str) -> float:
    """'13.2k' -> 13200.0 (fio's k/M/G after a count are powers of 1000)."""
    return float(parse_size(text, decimal=True)) if text[-1].isalpha() else float(text)


def _issued(total: str) -> list[int]:
    """'20435,0,0,0' (3.x: r,w,t,sync) or 'r=1131207/w=1131578/d=0' (2.x) -> [r, w, t]."""
    if "=" in total:
        pairs = dict(item.split("=", 1) for item in total.split("/"))
        return [int(pairs.get(k, 0)) for k in ("r", "w", "d")]
    return [int(v) for v in total.split(",")][:3]


def _bytes(figure: str, alt: str | None = None, legacy: bool = False) -> float:
    """Bytes (or bytes/s) behind a printed figure: the midpoint of where it can lie, and
    where `alt`, the same integer printed in the other unit system, can lie too."""
    ranges = _ranges(figure, legacy)
    for lo1, hi1 in ranges:
        for lo2, hi2 in _ranges(alt, legacy) if alt else [(lo1, hi1)]:
            if max(lo1, lo2) <= min(hi1, hi2):
                return (max(lo1, lo2) + min(hi1, hi2)) / 2
    return sum(ranges[0]) / 2


def _ranges(figure: str, legacy: bool) -> list[tuple[float, float]]:
    """The byte ranges fio's num2str may have printed as `figure` ('51.7MiB/s', '321739KB/s')."""
    m = _FIGURE.match(figure)
    if not m:
        raise ValueError(f"not a fio size or rate: {figure!r}")
    whole, frac = int(m["int"]), m["frac"] or ""
    if legacy:  # 2.x: the integer part is floored when a (non-decimal) fraction follows
        bounds = [(whole, whole + 1.0)] if frac else [(whole - 0.5, whole + 0.5)]
    else:
        value, half = float(f"{whole}.{frac or 0}"), 0.5 / 10 ** len(frac)
        bounds = [(value - half, value + half)]
        if frac and not frac.strip("0"):  # num2str rounds 0.96 to '1.0' and prints '.0'
            bounds.append((value + 1 - half, value + 1))
    # 'MiB' 2**20, 'MB' 10**6 (2.x: 'MB' 2**20), 'Mibit' 2**20 / 8
    unit = parse_size("1" + m["unit"].replace("bit", "B"), decimal=not legacy)
    unit /= 8 if m["unit"].endswith("bit") else 1
    return [(max(lo, 0.0) * unit, hi * unit) for lo, hi in bounds]


def _workload(rw: str, rest: str) -> dict:
    """Workload dict from a description line's 'rw=.., bs=.., ioengine=.., iodepth=..'."""
    options: dict[str, str] = {"rw": rw}
    if (bs := _bs_option(rw, rest)) is not None:
        options["bs"] = bs
    if m := _ENGINE.search(rest):
        options["ioengine"], options["iodepth"] = m["engine"], m["depth"]
    workload = normalise_workload(options)
    workload.pop("rwmixread", None)  # the line does not show the mix: 50 would be a guess
    return workload


def _bs_option(rw: str, rest: str) -> str | None:
    """One size when the directions rw uses share a fixed bs, else fio's 'R,W,T' range form."""
    m = _BS3.search(rest) or _BS2.search(rest)
    if m is None or "bs_is_seq_rand" in rest:
        return None
    try:
        ranges = {d: _bs_range(m[d]) for d in "rwt" if m[d]}
    except ValueError:
        return None
    used = {ranges[d] for d in _rw_directions(rw) if d in ranges}
    if len(used) == 1 and len(set(fixed := used.pop())) == 1:
        return str(fixed[0])
    return ",".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in ranges.values())


def _bs_range(text: str) -> tuple[int, int]:
    """'4096B-4096B' (3.x), '4K-4K' (2.x), '16.0KiB-16.0KiB' -> (min, max) in bytes."""
    lo, _, hi = text.partition("-")
    return parse_size(lo), parse_size(hi or lo)


def _rw_directions(rw: str) -> str:
    """The bs positions (r, w, t) an rw mode uses: 'randrw' -> 'rw', 'trimwrite' -> 'wt'."""
    mixed = rw in ("rw", "randrw", "readwrite")
    dirs = "r" if "read" in rw or mixed else ""
    dirs += "w" if "write" in rw or mixed else ""
    return (dirs + ("t" if "trim" in rw else "")) or "rw"


def _record(job: _Job, workloads: dict[object, dict], version: str | None) -> IoRecord:
    stats = {}
    for i, name in enumerate(("read", "write", "trim")):
        total = job.totals[i] if i < len(job.totals) else None
        s = stats[name] = job.dirs.get(name) or IoStats(total_ios=total)
        s.total_ios = total
        if total is not None and s.runtime_ms:
            # fio's formula; IOPS= keeps 3-4 digits
            s.iops = finite(total * 1000.0 / s.runtime_ms, f"job {job.name!r}: iops")
    if job.error == 0 and not job.dirs:  # issued counts alone are no figures
        why = " ('mixed:' unified_rw_reporting is not supported)" if job.saw_mixed else ""
        raise ValueError(f"job {job.name!r}: no read, write or trim figures{why}")
    workload = workloads.get((job.name, job.groupid)) or workloads.get(job.name) or {}
    return IoRecord(
        tool_version=version,
        source_format="normal",
        job=job.name,
        host=job.host,
        groupid=job.groupid,
        jobs=job.jobs,
        workload=dict(workload),
        read=stats["read"],
        write=stats["write"],
        trim=stats["trim"] if stats["trim"].active else None,
        cpu=job.cpu,
        error=job.error,
        error_message=job.message,
    )
