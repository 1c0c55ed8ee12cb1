"""fio terse output (`--output-format=terse`, `--minimal`) -> IoRecords.

One semicolon-separated line per job (or group_reporting group). Terse versions 3, 4 and 5
are read; the field positions below were checked against fio 3.33's own output for the same
runs as its JSON (tests/fixtures/recorded/), not only against the HOWTO:

    version; fio version; job name; groupid; error
    per direction - read, write, and trim from v4 on - 41 fields (v5: 47):
      io KiB; bw KiB/s; iops; runtime ms; slat min; max; mean; stddev (µs); clat (same);
      20 percentiles 'P%=V' (µs, '0%=0' = unused slot); lat min; max; mean; stddev (µs);
      bw min; max; agg %; mean; stddev (KiB/s); v5 adds bw samples and iops min; max; mean;
      stddev; samples
    cpu usr %; sys %; ctx; majf; minf; then I/O depth and latency buckets, one
    'disk name + 8 figures' group per disk, continue_on_error counts and the description.

Lines that are not records are skipped: progress lines (in client mode fio glues them to the
first record with '\\r'), the disk-stats line client mode prints on its own (it starts with
';'), blank lines, and any JSON of `--output-format=terse,json`. Version 2 (no fio version
field, description on a line of its own) and unknown versions are refused.

What a terse line cannot say, and what the records hold instead:
- min, max and percentiles are truncated to whole µs by fio (up to 1 µs low); mean and stddev
  keep 6 decimals of µs;
- iops is fio's truncated integer; io_bytes is truncated to KiB; bw_bytes = io / runtime,
  fio's own formula (the bw field is that figure truncated to KiB/s);
- with lat_percentiles=1 fio writes total-latency percentiles in the same fields and the line
  does not say so: they are stored as clat percentiles, fio's default;
- no total_ios, job count or workload: they stay empty;
- a unified_rw_reporting=mixed line has one direction only and fails the field checks.
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import describe, guard
from stackprobe.schema.records import Cpu, IoRecord, IoStats, percentile_key

_HEAD = 5  # version; fio version; job name; groupid; error
_DIRECTION_FIELDS = {3: 41, 4: 41, 5: 47}
_DIRECTIONS = {3: ("read", "write"), 4: ("read", "write", "trim"), 5: ("read", "write", "trim")}
_RECORD = re.compile(r"^\d+;")
_PERCENTILE = re.compile(r"^(?P<p>\d+(?:\.\d+)?)%=(?P<v>\d+)$")
_PERCENT = re.compile(r"^\d+(?:\.\d+)?%$")
# Offsets inside one direction's fields.
_SLAT, _CLAT, _PCTS, _LAT, _BW_AGG = 4, 8, 12, 32, 38


@guard("fio terse output")
def parse_fio_terse(text: str) -> list[IoRecord]:
    """IoRecords from fio terse output: one per terse line (job, or group with group_reporting)."""
    records = []
    for number, line in enumerate(text.splitlines(), 1):  # also splits at a lone '\r'
        line = line.strip()
        if _RECORD.match(line):
            records.append(_record(line.split(";"), number))
    if not records:
        raise ValueError("no fio terse record found (a line like '3;fio-3.33;job;0;0;...')")
    return records


def _record(fields: list[str], number: int) -> IoRecord:
    version = _version(fields[0], number)
    if not fields[1].startswith("fio-"):
        raise ValueError(f"fio terse line {number}: field 2 is {fields[1]!r}, not a fio version")
    directions = _DIRECTIONS[version]
    size = _DIRECTION_FIELDS[version]
    cpu_at = _HEAD + size * len(directions)
    if len(fields) < cpu_at + 2:
        raise ValueError(
            f"fio terse line {number}: {len(fields)} fields, terse v{version} needs at least "
            f"{cpu_at + 2}"
        )
    stats = {}
    for i, name in enumerate(directions):
        start = _HEAD + i * size
        _check(fields, start, version, number)
        try:
            stats[name] = _stats(fields[start : start + size])
        except ValueError as exc:
            raise ValueError(f"fio terse line {number}, {name} fields: {describe(exc)}") from None
    for at in (cpu_at, cpu_at + 1):
        _expect(fields, at, _PERCENT, "a CPU percentage", version, number)
    trim = stats.get("trim")
    try:
        groupid, error = int(fields[3]), int(fields[4])
    except ValueError:
        raise ValueError(f"fio terse line {number}: groupid/error are not integers") from None
    return IoRecord(
        tool_version=fields[1],
        source_format=f"terse v{version}",
        job=fields[2],
        groupid=groupid,
        read=stats["read"],
        write=stats["write"],
        trim=trim if trim is not None and trim.active else None,
        cpu=Cpu(usr_pct=_pct(fields[cpu_at]), sys_pct=_pct(fields[cpu_at + 1])),
        error=error,
    )


def _version(field: str, number: int) -> int:
    version = int(field)
    if version == 2:
        raise ValueError(
            f"fio terse line {number}: terse version 2 is not supported "
            "(no fio version field); record with --terse-version=3, 4 or 5"
        )
    if version not in _DIRECTION_FIELDS:
        raise ValueError(f"fio terse line {number}: unknown terse version {version}")
    return version


def _check(fields: list[str], start: int, version: int, number: int) -> None:
    """The fixed-format fields of a direction, so that a shifted line fails loudly."""
    for at in range(start + _PCTS, start + _PCTS + 20):
        _expect(fields, at, _PERCENTILE, "a percentile 'P%=V'", version, number)
    _expect(fields, start + _BW_AGG, _PERCENT, "the bw aggregate percentage", version, number)


def _expect(fields: list[str], at: int, pattern: re.Pattern, what: str, version: int,
            number: int) -> None:
    if not pattern.match(fields[at]):
        raise ValueError(
            f"fio terse line {number}: field {at + 1} is {fields[at]!r}, expected {what} "
            f"(terse v{version}; unified_rw_reporting=mixed lines are not supported)"
        )


def _stats(f: list[str]) -> IoStats:
    """One direction's IoStats; an idle direction (runtime 0) comes out inactive."""
    io_bytes, runtime = int(f[0]) * 1024, int(f[3])
    bw = io_bytes * 1000.0 / runtime if runtime else int(f[1]) * 1024.0
    clat = _latency(f[_CLAT : _CLAT + 4])
    if clat:
        clat.update(_percentiles(f[_PCTS : _PCTS + 20]))
    return IoStats(
        iops=float(f[2]),
        bw_bytes=bw,
        io_bytes=io_bytes,
        runtime_ms=float(runtime),
        clat_ns=clat,
        lat_ns=_latency(f[_LAT : _LAT + 4]),
        slat_ns=_latency(f[_SLAT : _SLAT + 4]),
    )


def _latency(f: list[str]) -> dict[str, float]:
    """min; max; mean; stddev in µs -> ns; all zero means fio had no samples."""
    values = [float(v) * 1000.0 for v in f]
    if not any(values):
        return {}
    return dict(zip(("min", "max", "mean", "stddev"), values))


def _percentiles(f: list[str]) -> dict[str, float]:
    out = {}
    for item in f:
        p, _, value = item.partition("%=")
        if float(p) > 0:  # '0%=0' fills unused slots
            out[percentile_key(p)] = float(value) * 1000.0
    return out


def _pct(field: str) -> float:
    return float(field.rstrip("%"))
