"""`rbd bench` (and the older `rbd bench-write`) output -> IoRecord.

What the tool prints (tools/rbd/action/Bench.cc, checked on the 2019 fixture and on
recordings made with 16.2.15), and what this module makes of it:

- A header naming the run: `bench  type write io_size 4096 io_threads 16 bytes 67108864
  pattern random` (`type readwrite read:write=70:30 ...` for a mix; Jewel's `bench-write`
  printed `bench-write  io_size ...` with no type). It is required: without io_size the
  byte figures cannot be trusted (see below).
- The final line `elapsed: 4   ops: 16384   ops/sec: 3889.84   bytes/sec: 15 MiB/s`.
  Since Octopus the rates are printed with 6 significant digits and bytes/sec in coarse
  units ("15 MiB/s" stands for anything from 14.5 to 15.5 MiB/s); the 2019 build printed
  `bytes/sec: 3015193.89`. `elapsed` is truncated to whole seconds (0 for a short run).
  So the run time is taken as ops / (ops/sec), or bytes / (bytes/sec) when bytes/sec is a
  plain number (more digits), and IOPS and bandwidth follow from ops, io_size and that
  time: bandwidth is always ops x io_size / time, never the coarse printed figure.
- readwrite adds `read_ops: ...` and `write_ops: ...` lines: the mix is drawn at random per
  op, so the counts are exact and the split of the figures is by them.
- Per-second rows `SEC OPS OPS/SEC BYTES/SEC`: OPS is ops issued minus io_threads (about
  those completed), OPS/SEC and BYTES/SEC are averages over the last 5 rows, not over the
  second. `series` therefore takes each point from the change of OPS since the previous
  row divided by the change of SEC (rows are printed when the whole second changes, and
  a second without a completion has no row). A readwrite series is read and write
  together. rbd bench prints no latency: latency dicts stay empty.
- Log lines (`... -1 WARNING: all dangerous and experimental features are enabled.`) and
  the bench-write deprecation notice are skipped.
"""

from __future__ import annotations

import re
from typing import Any

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.schema.records import IoRecord, IoStats, SeriesPoint

HEADER = re.compile(
    r"^bench(?P<legacy>-write)?\s+(?:type\s+(?P<type>\S+)\s+)?"
    r"(?:read:write=(?P<read>\d+):(?P<write>\d+)\s+)?"
    r"io_size\s+(?P<size>\d+)\s+io_threads\s+(?P<threads>\d+)\s+bytes\s+(?P<bytes>\d+)"
    r"(?:\s+pattern\s+(?P<pattern>.+?))?\s*$"
)
ROW = re.compile(r"^\s*(\d+)\s+(-?\d+)\s+([\d.e+]+)\s+(\S+(?: [KMGTPE]?i?B/s)?)\s*$")
_TOTAL = re.compile(
    r"^elapsed:\s*(\d+)\s+ops:\s*(\d+)\s+ops/sec:\s*(\S+)\s+bytes/sec:\s*(.+?)\s*$"
)
_SPLIT = re.compile(r"^(read|write)_ops:\s*(\d+)\s+\1_ops/sec:\s*(\S+)\s+\1_bytes/sec:\s*(.+?)\s*$")
_PLAIN_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")
_ERROR_LINE = re.compile(r"^rbd:|error|failed", re.I)
_PATTERNS = {"random": "rand", "rand": "rand", "sequential": "seq", "seq": "seq",
             "full sequential": "full-seq", "full-seq": "full-seq"}
# Which IoStats an io_type's ops land in (readwrite is split by the read_ops/write_ops lines).
_DIRECTION = {"read": "read", "write": "write", "writezeroes": "write", "discard": "trim"}


@guard("rbd bench output")
def parse_rbd_bench(text: str) -> IoRecord:
    """IoRecord from one `rbd bench`/`rbd bench-write` run; ValueError if it did not finish."""
    header: re.Match[str] | None = None
    rows: list[tuple[int, int]] = []
    total: re.Match[str] | None = None
    split: dict[str, int] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if m := HEADER.match(line):
            header = m
        elif (m := ROW.match(line)) and header is not None and total is None:
            rows.append((int(m[1]), int(m[2])))
        elif m := _TOTAL.match(line):
            total = m
        elif m := _SPLIT.match(line):
            split[m[1]] = int(m[2])
    if total is None:
        raise ValueError(_failure(text))
    if header is None:
        raise ValueError("rbd bench: no 'bench ... io_size N io_threads N bytes N' header")
    return _record(header, rows, total, split)


def _record(header: re.Match[str], rows: list[tuple[int, int]], total: re.Match[str],
            split: dict[str, int]) -> IoRecord:
    io_type = "write" if header["legacy"] else (header["type"] or "write")
    io_size = int(header["size"])
    if io_size <= 0:
        raise ValueError("rbd bench: io_size 0")
    ops = int(total[2])
    runtime_s = _runtime_s(ops, io_size, total[3], total[4])
    workload: dict[str, Any] = {
        "io_type": io_type,
        "io_size": io_size,
        "io_threads": int(header["threads"]),
        "io_total": int(header["bytes"]),
    }
    if header["pattern"]:
        workload["io_pattern"] = _PATTERNS.get(header["pattern"], header["pattern"])
    counts: dict[str, int] = {}
    if io_type == "readwrite":
        if header["read"] is not None:
            workload["rw_mix_read"] = int(header["read"])
        if set(split) != {"read", "write"}:
            raise ValueError("rbd bench: readwrite output lacks its read_ops/write_ops lines")
        if split["read"] + split["write"] != ops:
            raise ValueError(f"rbd bench: read_ops + write_ops != ops ({split} vs {ops})")
        counts = split
    elif io_type in _DIRECTION:
        counts = {_DIRECTION[io_type]: ops}
    else:
        raise ValueError(f"rbd bench: unknown io type {io_type!r}")
    stats = {d: IoStats.from_counts(n, io_size, runtime_s) for d, n in counts.items()}
    return IoRecord(
        tool="rbd bench",
        source_format="text",
        job=io_type,
        jobs=1,
        workload=workload,
        read=stats.get("read", IoStats()),
        write=stats.get("write", IoStats()),
        trim=stats.get("trim"),
        series=_series(rows, io_size),
    )


def _runtime_s(ops: int, io_size: int, ops_per_s: str, bytes_per_s: str) -> float:
    """Run time from the most precise rate printed (`elapsed` is whole seconds)."""
    if _PLAIN_NUMBER.match(bytes_per_s) and finite(bytes_per_s, "rbd bench: bytes/sec") > 0:
        return ops * io_size / float(bytes_per_s)
    rate = finite(ops_per_s, "rbd bench: ops/sec")
    if rate <= 0:
        raise ValueError(f"rbd bench: ops/sec is {ops_per_s!r}")
    return ops / rate


def _series(rows: list[tuple[int, int]], io_size: int) -> list[SeriesPoint]:
    """Per-interval rates from the OPS column (see module doc): not the 5-row averages."""
    points: list[SeriesPoint] = []
    prev_sec, prev_ops = 0, 0
    for sec, ops in rows:
        if sec <= prev_sec:
            raise ValueError(f"rbd bench: per-second row {sec} goes backwards")
        iops = max(ops - prev_ops, 0) / (sec - prev_sec)
        points.append(SeriesPoint(t_s=sec, iops=iops, bw_bytes=iops * io_size))
        prev_sec, prev_ops = sec, max(ops, prev_ops)
    return points


def _failure(text: str) -> str:
    errors = [line.strip() for line in text.splitlines()
              if _ERROR_LINE.search(line.strip()) and "deprecated" not in line]
    if errors:
        return "rbd bench failed: " + "; ".join(errors)
    if not text.strip():
        return "rbd bench: empty output"
    return "rbd bench: no final 'elapsed: ... ops: ...' line; was the run cut short?"

