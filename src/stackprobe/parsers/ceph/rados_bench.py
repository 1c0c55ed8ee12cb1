"""`rados bench` output -> IoRecord: the text of the releases since Jewel, and
`--format json`.

What the tool prints, and what this module makes of it (obj_bencher.cc, checked on the
fixtures and on recordings made with 16.2.15):

- "MB" is MiB everywhere: Bandwidth (MB/sec) = writes x op size / time / 2^20.
- The summary gives exact counts (`Total writes made`/`Total reads made`, op size) and the
  time (`Total time run`), so IOPS and bandwidth are computed from them: `Average IOPS` is
  truncated to an integer and `Bandwidth` has six significant digits.
- The per-second table becomes `series`. Each point is computed from the change of the
  `finished` column since the previous row, which is what completed in that interval.
  The `cur MB/s` column equals it except after a stall: rados bench then spreads the
  completions over all the stalled seconds, after printing 0 for each of them, so its
  column does not add up to what was moved.
- `avg lat` is the running mean of all completed ops, so an interval's mean latency is
  (avg x finished - previous avg x previous finished) / ops in the interval. Printed
  values are rounded (six significant digits in text, six decimals in JSON); a point
  whose latency would be off by more than 1 % from that rounding gets None.
- The bandwidth and IOPS stddev/min/max lines are left out: they are statistics of the
  per-second samples, which `series` carries (IOPS samples = bandwidth samples / op size). In 16.2.15's JSON the
  write `stddev_iops` is garbage anyway (printed with "%d" from a double).
- Neither format says whether a read was `seq` or `rand`: pass `mode` to say which.
- `write` with cleanup prints its "Cleaning up ..." lines into the middle of the JSON
  document, which is then invalid until they are removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.parsers.fio.fio_json import json_documents
from stackprobe.schema.records import IoRecord, IoStats, SeriesPoint

_LAT_TOLERANCE = Decimal("0.01")  # largest rounding error accepted on an interval latency

# `--show-time` prefixes lines with a local timestamp; so do the interleaved lat lines.
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)? ")
_MAINTAINING = re.compile(
    r"Maintaining (\d+) concurrent writes of (\d+) bytes to objects of size (\d+)"
    r"(?: for up to (\d+) seconds)?"
)
ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\S+\s+\S+\s+\S+\s+(\S+)\s*$")
_SUMMARY_LINE = re.compile(r"^([A-Z][A-Za-z ]*?)(?:\((?:MB/sec|s)\))?:\s+(\S+)\s*$")
_CLEANUP = re.compile(
    r"(?:\d{4}-\d\d-\d\d[ T][\d:.]+(?:Z|[+-]\d\d:?\d\d)? )?"
    r"(?:Cleaning up \(deleting benchmark objects\)|Removed \d+ objects"
    r"|Clean up completed and total clean up time :\s*[-+.\deE]+)[ \t]*\r?\n?"
)
_ERROR_LINE = re.compile(r"error|must write|failed|unable|denied|invalid|not correct", re.I)
_ERRNO = re.compile(r"error during benchmark: \((\d+)\)")

# Summary lines (text) and keys (JSON) that this module uses, by their common name.
_TEXT_KEYS = {
    "Total time run": "time",
    "Total writes made": "writes",
    "Total reads made": "reads",
    "Write size": "op_size",
    "Read size": "op_size",
    "Object size": "object_size",
    "Bandwidth": "bandwidth",
    "Average IOPS": "iops",
    "Average Latency": "lat_mean",
    "Stddev Latency": "lat_stddev",
    "Max latency": "lat_max",
    "Min latency": "lat_min",
}
_JSON_KEYS = {
    "total_time_run": "time",
    "total_writes_made": "writes",
    "total_reads_made": "reads",
    "write_size": "op_size",
    "read_size": "op_size",
    "object_size": "object_size",
    "bandwidth": "bandwidth",
    "average_iops": "iops",
    "average_latency": "lat_mean",
    "stddev_latency": "lat_stddev",
    "max_latency": "lat_max",
    "min_latency": "lat_min",
}


@dataclass
class _Bench:
    """What both formats carry, as the strings the tool printed."""

    fmt: str
    summary: dict[str, str] = field(default_factory=dict)
    header: dict[str, int] = field(default_factory=dict)  # threads, op_size, object_size, seconds
    rows: list[tuple[int, int, str]] = field(default_factory=list)  # sec, finished, avg lat


@guard("rados bench output")
def parse_rados_bench(text: str, mode: str | None = None) -> IoRecord:
    """IoRecord from one `rados bench` run (text or JSON, stdout with or without stderr).

    `mode` ("seq" or "rand") names a read run, which the output does not; without it a
    read run gets mode "read". A run without a summary raises ValueError with the tool's
    own error lines.
    """
    cleaned = _CLEANUP.sub("", text)
    docs = [d for d in json_documents(cleaned) if "datas" in d or "total_time_run" in d]
    bench = _from_json(docs[-1]) if docs else _from_text(cleaned)
    if "time" not in bench.summary:
        raise ValueError(_failure(text))
    return _record(bench, mode, _errors(text))


def _from_json(doc: dict[str, Any]) -> _Bench:
    bench = _Bench("json")
    for key, name in _JSON_KEYS.items():
        if key in doc:
            bench.summary[name] = str(doc[key])
    for key, name in (("concurrent_ios", "threads"), ("op_size", "op_size"),
                      ("object_size", "object_size"), ("seconds_to_run", "seconds")):
        if key in doc:
            bench.header[name] = _int(doc[key], key)
    for row in doc.get("datas") or []:
        if not isinstance(row, dict) or not {"sec", "finished", "avg_lat"} <= row.keys():
            raise ValueError(f"rados bench: malformed 'datas' entry: {row!r}")
        bench.rows.append((_int(row["sec"], "sec"), _int(row["finished"], "finished"),
                           str(row["avg_lat"])))
    return bench


def _from_text(text: str) -> _Bench:
    bench = _Bench("text")
    for raw in text.splitlines():
        line = TIMESTAMP.sub("", raw.strip(), count=1)
        if m := _MAINTAINING.search(line):
            threads, op_size, object_size, seconds = m.groups()
            bench.header.update(threads=int(threads), op_size=int(op_size),
                                object_size=int(object_size))
            if seconds is not None:
                bench.header["seconds"] = int(seconds)
        elif m := ROW.match(line):
            bench.rows.append((int(m[1]), int(m[4]), m[5]))
        elif (m := _SUMMARY_LINE.match(line)) and m[1].strip() in _TEXT_KEYS:
            bench.summary[_TEXT_KEYS[m[1].strip()]] = m[2]
    return bench


def _record(bench: _Bench, mode: str | None, errors: list[str]) -> IoRecord:
    direction = "write" if "writes" in bench.summary else "read"
    mode = _mode(direction, mode)
    op_size = _int(bench.summary.get("op_size", bench.header.get("op_size")), "op size")
    if op_size <= 0:
        raise ValueError("rados bench: op size must be positive")
    stats = _stats(bench.summary, direction, op_size)
    workload: dict[str, Any] = {"mode": mode, "bs": op_size}
    object_size = bench.summary.get("object_size", bench.header.get("object_size"))
    if object_size is not None:
        workload["object_size"] = _int(object_size, "object size")
    for key in ("threads", "seconds"):
        if key in bench.header:
            workload[key] = bench.header[key]
    errno = next((int(m[1]) for e in errors if (m := _ERRNO.search(e))), 1)
    return IoRecord(
        tool="rados bench",
        source_format=bench.fmt,
        job=mode,
        jobs=1,
        workload=workload,
        read=stats if direction == "read" else IoStats(),
        write=stats if direction == "write" else IoStats(),
        series=_series(bench.rows, op_size),
        error=errno if errors else 0,
        error_message="; ".join(errors) if errors else None,
    )


def _mode(direction: str, mode: str | None) -> str:
    if direction == "write":
        if mode not in (None, "write"):
            raise ValueError(f"rados bench: output is a write run, not {mode!r}")
        return "write"
    if mode not in (None, "seq", "rand"):
        raise ValueError(f"rados bench: output is a read run; mode must be seq or rand, not {mode!r}")
    return mode or "read"


def _stats(summary: dict[str, str], direction: str, op_size: int) -> IoStats:
    """Figures from the exact counts: ops and op size are integers, the time has 6+ digits."""
    ops = _int(summary.get("writes" if direction == "write" else "reads"), "total ops")
    time_s = _float(summary["time"], "total time run")
    if time_s <= 0:
        raise ValueError(f"rados bench: total time run is {summary['time']!r}")
    lat = {key: _float(summary[f"lat_{key}"], f"latency {key}") * 1e9
           for key in ("mean", "stddev", "min", "max") if f"lat_{key}" in summary}
    return IoStats.from_counts(ops, op_size, time_s, lat_ns=lat)


def _series(rows: list[tuple[int, int, str]], op_size: int) -> list[SeriesPoint]:
    """One point per row after second 0, from the change in completed ops (see module doc)."""
    points: list[SeriesPoint] = []
    prev_sec, prev_done, prev_avg = 0, 0, "0"
    for sec, done, avg in rows:
        if sec == 0:
            continue
        if sec <= prev_sec or done < prev_done:
            raise ValueError(f"rados bench: per-second row {sec} goes backwards")
        iops = (done - prev_done) / (sec - prev_sec)
        points.append(SeriesPoint(t_s=sec, iops=iops, bw_bytes=iops * op_size,
                                  lat_mean_ns=interval_lat_ns(prev_avg, prev_done, avg, done)))
        prev_sec, prev_done, prev_avg = sec, done, avg
    return points


def interval_lat_ns(avg0: str, n0: int, avg1: str, n1: int) -> float | None:
    """Mean latency of the ops n0+1..n1 from two running means; None when rounding blurs it."""
    if n1 <= n0:
        return None
    try:
        a0, a1 = Decimal(avg0), Decimal(avg1)
    except InvalidOperation:
        raise ValueError(f"rados bench: bad 'avg lat' {avg1!r}") from None
    if not (a0.is_finite() and a1.is_finite()):
        raise ValueError(f"rados bench: bad 'avg lat' {avg1!r}")
    ops = n1 - n0
    mean = (a1 * n1 - a0 * n0) / ops
    rounding = (_half_ulp(a1) * n1 + (_half_ulp(a0) * n0 if n0 else 0)) / ops
    if mean <= 0 or rounding > mean * _LAT_TOLERANCE:
        return None
    return float(mean) * 1e9


def _half_ulp(value: Decimal) -> Decimal:
    """Half a unit in the last printed place: the most a printed value can be off."""
    exponent = value.as_tuple().exponent
    return Decimal(5).scaleb(int(exponent) - 1)


def _errors(text: str) -> list[str]:
    """The tool's error lines; object names (prefix line, JSON) hold a hostname: skipped."""
    out = []
    for raw in text.splitlines():
        line = TIMESTAMP.sub("", raw.strip(), count=1).strip()
        if line.startswith(("{", "Object prefix:")):
            continue
        if _ERROR_LINE.search(line):
            out.append(line)
    return out


def _failure(text: str) -> str:
    errors = _errors(text)
    if errors:
        return "rados bench failed: " + "; ".join(errors)
    if not text.strip():
        return "rados bench: empty output"
    return "rados bench: no summary ('Total time run') in the output; was the run cut short?"


def _int(value: Any, what: str) -> int:
    if value is None:
        raise ValueError(f"rados bench: no {what} in the output")
    try:
        return int(str(value))
    except ValueError:
        raise ValueError(f"rados bench: {what} is not an integer: {value!r}") from None


def _float(value: str, what: str) -> float:
    return finite(value, f"rados bench: {what}")
