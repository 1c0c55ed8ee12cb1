"""`rados load-gen` output -> IoRecord.

What the tool prints (rados.cc, class LoadGen; checked on recordings made with 16.2.15),
all on stdout, each line flushed as it is written:

- `run length N seconds`, `preparing N objects`, then `load-gen will run N seconds` once
  its objects exist (`load-gen bootstrap failed` on stderr, exit 1, when they could not be
  written: an object larger than the OSDs' osd_max_object_size does that);
- one line per operation issued, in issue order — `READ : oid=OBJ off=N len=N` or
  `WRITE : ...` — the operations' ids are given in that same order, from 0;
- one line per operation completed, in completion order: `op ID completed,
  throughput=X.XXMB/sec`;
- about once a second `    S: throughput=X.XXMB/sec pending data=N` (not reliably: a busy
  run prints fewer);
- `waiting for all operations to complete` once the run length is over (what was issued
  still completes), then `cleaning up objects`.

Its `throughput` is cumulative (all bytes completed since the start over the time since
the start, MiB/s to three significant digits) and it prints no latency and no time. So the
figures here come from the operation lines, exactly: each completed operation's type and
length are its issue line's; an operation counts when it completed within the run (before
`waiting for all operations`; the others are `drained` in the workload). `line_times` —
when each stdout line arrived, in seconds, as the runner records them
(kinds/ceph/rados_load_gen.py keeps them beside the output) — give the run's time as
load-gen's own figure counts it, from its start to the last operation completed (its last
second often issues nothing: the target was met), and a point per second from the first
operation issued (load-gen waits a second before it issues any: no stall); without them (a
file from elsewhere) the stated run length is the time and there is no series.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.schema.records import IoRecord, IoStats, SeriesPoint

_RUN = re.compile(r"^load-gen will run (\d+) seconds\s*$")
_ISSUED = re.compile(r"^(READ|WRITE) : oid=\S+ off=\d+ len=(\d+)\s*$")
_DONE = re.compile(r"^op (\d+) completed, throughput=\S+MB/sec\s*$")
_PREPARING = re.compile(r"^preparing (\d+) objects\s*$")
_WAITING = "waiting for all operations to complete"
TOOL = "rados load-gen"


@guard("rados load-gen output")
def parse_rados_load_gen(text: str, line_times: Sequence[float] | None = None) -> IoRecord:
    """The run's reads and writes as one record; a point per second when the lines' arrival
    times are known."""
    lines = text.splitlines()
    if line_times is not None and len(line_times) < len(lines):
        raise ValueError(f"rados load-gen output: {len(lines)} lines but {len(line_times)} "
                         "arrival times")
    issued: list[tuple[str, int]] = []  # by op id: (READ|WRITE, bytes)
    completed: dict[int, int] = {}  # op id -> line number of its completion
    run_s = objects = start = end = first = None
    for n, raw in enumerate(lines):
        line = raw.rstrip("\r")
        if m := _ISSUED.match(line):
            issued.append((m[1], int(m[2])))
            first = n if first is None else first
        elif m := _DONE.match(line):
            op = int(m[1])
            if op >= len(issued):
                raise ValueError(f"rados load-gen output: op {op} completed but "
                                 f"{len(issued)} were issued")
            if op in completed:
                raise ValueError(f"rados load-gen output: op {op} completed twice")
            completed[op] = n
        elif m := _RUN.match(line):
            run_s, start = int(m[1]), n
        elif m := _PREPARING.match(line):
            objects = int(m[1])
        elif line.startswith(_WAITING) and end is None:
            end = n
    if run_s is None or start is None:
        raise ValueError("rados load-gen output: no 'load-gen will run N seconds' line: its "
                         "objects were not written (see 'load-gen bootstrap failed')")
    last = end if end is not None else len(lines)
    within = {op: n for op, n in completed.items() if n < last}
    if not within:
        raise ValueError("rados load-gen output: no operation completed within the run")
    length = None
    if line_times is not None:
        length = (finite(line_times[max(within.values())], "arrival time")
                  - finite(line_times[start], "arrival time"))
    if not length or length <= 0:
        length = float(run_s)
    if not length:
        raise ValueError("rados load-gen output: a run of 0 seconds measures nothing")
    record = IoRecord(tool=TOOL, source_format="text", job="load-gen", workload={
        "run_length_s": run_s, "drained": len(completed) - len(within),
        **({"objects": objects} if objects is not None else {})})
    for kind, name in (("READ", "read"), ("WRITE", "write")):
        sizes = [issued[op][1] for op in within if issued[op][0] == kind]
        if sizes:
            setattr(record, name, IoStats(
                iops=len(sizes) / length, bw_bytes=sum(sizes) / length, io_bytes=sum(sizes),
                total_ios=len(sizes), runtime_ms=length * 1000))
    if line_times is not None and first is not None:
        t0 = line_times[first]
        rel = [line_times[n] - t0 for n in range(len(lines))]
        record.series = _series(within, issued, rel, rel[max(within.values())])
    return record


def _series(within: dict[int, int], issued: list[tuple[str, int]], rel: list[float],
            loaded: float) -> list[SeriesPoint]:
    """Operations and bytes completed in each whole second under load (a last part second
    is left out: its rate would be a guess)."""
    seconds = max(1, math.floor(loaded))
    ops = [0] * seconds
    moved = [0] * seconds
    for op, n in within.items():
        s = int(rel[n])
        if 0 <= s < seconds:
            ops[s] += 1
            moved[s] += issued[op][1]
    return [SeriesPoint(t_s=float(s + 1), iops=float(ops[s]), bw_bytes=float(moved[s]))
            for s in range(seconds)]


def parse_times(text: str) -> list[float]:
    """The arrival times the runner keeps: one number (seconds) per stdout line."""
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        try:
            out.append(finite(line.strip(), f"arrival time on line {n}"))
        except ValueError:
            raise ValueError(f"rados load-gen times: line {n} is not a number: "
                             f"{line.strip()[:40]!r}") from None
    return out
