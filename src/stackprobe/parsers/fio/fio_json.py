"""fio JSON output -> IoRecords.

Handles every JSON shape fio writes: `json` and `json+` (adds the clat histogram), a
`--status-interval` stream (several complete documents back to back; the last one is the
result), `normal,json` (normal text first), client/server output (`client_stats`, with
progress lines before the document), and fio 2.x documents whose latencies are in
microseconds under `clat`/`lat`/`slat` instead of `clat_ns`/... .
"""

from __future__ import annotations

import json
from typing import Any

from stackprobe.parsers.bad_input import finite, guard, raw_decode
from stackprobe.parsers.fio.workload import normalise_workload
from stackprobe.schema.records import Cpu, IoRecord, IoStats, SeriesPoint, percentile_key
from stackprobe.schema.sentinels import FIO_ALL_CLIENTS


class FioJsonError(ValueError):
    """The text holds no fio JSON result document."""


def json_documents(text: str) -> list[dict[str, Any]]:
    """Every top-level JSON object in `text`, in order; text between objects is skipped.

    A document starts with '{' at the beginning of a line: fio's text output (progress
    lines, normal-format reports, 'hints = 1') never does. An interrupted tool's JSON may
    follow the terminal's '^C' on the same line.
    """
    docs: list[dict[str, Any]] = []
    pos = 0
    while True:
        start = _next_object_start(text, pos)
        if start < 0:
            return docs
        try:
            doc, end = raw_decode(text, start)
        except json.JSONDecodeError:
            pos = start + 1
            continue
        if isinstance(doc, dict):
            docs.append(doc)
        pos = end


def _next_object_start(text: str, pos: int) -> int:
    """Next '{' that begins its line (after optional blanks or a terminal's '^C' echo)."""
    while True:
        i = text.find("{", pos)
        if i < 0:
            return i
        line_start = max(text.rfind("\n", 0, i), text.rfind("\r", 0, i)) + 1
        if text[line_start:i].strip() in ("", "^C"):
            return i
        pos = i + 1


class JsonStream:
    """Complete fio JSON documents out of text that arrives in pieces (--status-interval
    while fio runs). An incomplete document waits for more text."""

    def __init__(self) -> None:
        self._buf = ""

    def feed(self, text: str) -> list[dict[str, Any]]:
        self._buf += text
        docs = []
        while True:
            start = _next_object_start(self._buf, 0)
            if start < 0:  # keep only the last line: a '{' may still begin it
                cut = max(self._buf.rfind("\n"), self._buf.rfind("\r"))
                self._buf = self._buf[cut:] if cut >= 0 else self._buf
                return docs
            try:
                doc, end = raw_decode(self._buf, start)
            except json.JSONDecodeError:
                self._buf = self._buf[start:]
                return docs
            if isinstance(doc, dict):
                docs.append(doc)
            self._buf = self._buf[end:]


@guard("fio JSON status", FioJsonError)
def status_totals(doc: dict[str, Any]) -> tuple[float, int, int]:
    """(time s, I/Os, bytes) done so far by all jobs of one --status-interval document."""
    ms = doc.get("timestamp_ms")
    t = finite(ms, "timestamp_ms") / 1000 if ms is not None else finite(doc.get("timestamp", 0), "timestamp")
    ios = byts = 0
    for job in doc.get("jobs", []):
        for d in ("read", "write", "trim"):
            stats = job.get(d) or {}
            ios += int(stats.get("total_ios", 0))
            byts += int(stats.get("io_bytes", 0))
    return t, ios, byts


@guard("fio JSON status", FioJsonError)
def interval_series(totals: list[tuple[float, int, int]]) -> list[SeriesPoint]:
    """Per-interval IOPS and bandwidth from consecutive cumulative totals; t_s from the
    first document. A drop in the totals (fio resets its statistics when ramp_time ends)
    starts the counting again."""
    points: list[SeriesPoint] = []
    if not totals:
        return points
    t0 = totals[0][0]
    prev = totals[0]
    for cur in totals[1:]:
        dt = cur[0] - prev[0]
        if cur[1] >= prev[1] and dt > 0:
            points.append(SeriesPoint(t_s=round(cur[0] - t0, 3), iops=(cur[1] - prev[1]) / dt,
                                      bw_bytes=(cur[2] - prev[2]) / dt))
        prev = cur
    return points


def result_document(text: str) -> tuple[dict[str, Any], int]:
    """The fio result document in `text` (the last one of a stream) and how many there were."""
    docs = [d for d in json_documents(text) if "jobs" in d or "client_stats" in d]
    if not docs:
        raise FioJsonError("no fio JSON result document (no 'jobs' or 'client_stats' key)")
    return docs[-1], len(docs)


@guard("fio JSON", FioJsonError)
def parse_fio_json(text: str) -> list[IoRecord]:
    """IoRecords from fio JSON text: one per job (or group), or per client plus 'All clients'."""
    doc, count = result_document(text)
    version = doc.get("fio version")
    global_opts = doc.get("global options") or {}
    if "client_stats" in doc:
        fmt = "client-json"
        entries = doc["client_stats"]
    else:
        entries = doc["jobs"]
        fmt = "json+" if _has_bins(entries) else "json"
    if count > 1:
        fmt += " (status-interval stream)"
    per_group: dict[Any, int] = {}
    for entry in entries:
        per_group[entry.get("groupid")] = per_group.get(entry.get("groupid"), 0) + 1
    records = []
    for entry in entries:
        # fio's JSON omits valueless options such as group_reporting; a group reported as
        # a single entry is how group reporting shows.
        grouped = per_group[entry.get("groupid")] == 1
        rec = _record(entry, global_opts, version, fmt, grouped)
        if "client_stats" in doc:
            rec.host = _client_host(entry)
        records.append(rec)
    return records


def _has_bins(entries: list[dict[str, Any]]) -> bool:
    return any(
        "bins" in ((e.get(d) or {}).get("clat_ns") or {})
        for e in entries
        for d in ("read", "write", "trim")
    )


def _client_host(entry: dict[str, Any]) -> str:
    if entry.get("jobname") == "All clients":
        return FIO_ALL_CLIENTS
    host = str(entry.get("hostname", "?"))
    port = entry.get("port")
    return f"{host}:{port}" if port and int(port) != 8765 else host


def _record(
    entry: dict[str, Any], global_opts: dict, version: str | None, fmt: str, grouped: bool
) -> IoRecord:
    options = {**global_opts, **(entry.get("job options") or {})}
    workload = normalise_workload(options)
    numjobs = workload.get("numjobs", 1)
    trim = _stats(entry["trim"]) if "trim" in entry else None
    return IoRecord(
        tool="fio",
        tool_version=version,
        source_format=fmt,
        job=str(entry.get("jobname", "?")),
        groupid=entry.get("groupid"),
        jobs=numjobs if grouped and isinstance(numjobs, int) else 1,
        workload=workload,
        read=_stats(entry.get("read") or {}),
        write=_stats(entry.get("write") or {}),
        trim=trim if trim is not None and trim.active else None,
        cpu=Cpu(usr_pct=float(entry["usr_cpu"]), sys_pct=float(entry["sys_cpu"]))
        if "usr_cpu" in entry
        else None,
        error=int(entry.get("error", 0) or 0),
    )


def _stats(d: dict[str, Any]) -> IoStats:
    if not d:
        return IoStats()
    bw_bytes = d.get("bw_bytes")
    if bw_bytes is None:
        bw_bytes = float(d.get("bw", 0)) * 1024  # fio < 3.3: KiB/s only
    io_bytes = d.get("io_bytes")
    if io_bytes is None and "io_kbytes" in d:
        io_bytes = int(d["io_kbytes"]) * 1024
    clat, bins = _latency(d, "clat")
    lat, lat_bins = _latency(d, "lat")
    slat, _ = _latency(d, "slat")
    return IoStats(
        iops=float(d.get("iops", 0.0)),
        bw_bytes=float(bw_bytes),
        io_bytes=int(io_bytes) if io_bytes is not None else None,
        total_ios=int(d["total_ios"]) if "total_ios" in d else None,
        runtime_ms=float(d["runtime"]) if "runtime" in d else None,
        clat_ns=clat,
        lat_ns=lat,
        slat_ns=slat,
        clat_bins=bins,
        lat_bins=lat_bins,
    )


def _latency(d: dict[str, Any], name: str) -> tuple[dict[str, float], dict[int, int] | None]:
    """Flat latency dict in ns from `<name>_ns` (fio 3) or `<name>` in µs (fio 2)."""
    if f"{name}_ns" in d:
        src, scale = d[f"{name}_ns"], 1.0
    elif name in d:
        src, scale = d[name], 1000.0
    else:
        return {}, None
    if not src or not src.get("N", 1):
        return {}, None
    out: dict[str, float] = {}
    for key in ("mean", "min", "max", "stddev"):
        if key in src:
            out[key] = float(src[key]) * scale
    for p, value in (src.get("percentile") or {}).items():
        out[percentile_key(p)] = float(value) * scale
    bins = None
    if "bins" in src:
        bins = {int(k): int(v) for k, v in src["bins"].items()}
    return out, bins
