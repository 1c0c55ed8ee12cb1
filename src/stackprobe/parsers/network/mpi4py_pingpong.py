"""`python -m mpi4py.bench pingpong` output -> MpiPairRecord: one record per table.

What mpi4py 4.1 prints (its mpi4py/bench.py, rank 0 only; docs/fabric.md):

    # MPI PingPong Test
    # Size [B]  Bandwidth [MB/s] | Time Mean [s] ± StdDev [s]  Samples
             1              0.04 | 2.6113510e-05 ± 4.1203e-06     1000

- one row per message size, powers of two from -m to -n; the size in bytes, the bandwidth
  in MB/s (10^6 bytes/s) with two decimals, then — unless `--no-stats`, which also drops
  the header's part after `|` — the mean and standard deviation of the timed exchanges in
  seconds and how many were timed. Each timed exchange is half a round trip (rank 0 sends
  and receives; the time is halved), so the mean is a one-way latency and the bandwidth is
  the size over it.
- Text around the table (the launcher's lines, a job log) is not mpi4py's and is skipped.
- A last line without its newline is a fragment of a cut output: dropped, and the table
  marked `complete: False`, as is a header with no row. A table ending after a whole row
  below the largest size (`max_size` when the caller knows it, else mpi4py's default
  1 GiB) is `complete: None`: cut there or run with a smaller -n, the text cannot tell.
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.schema.fabric_records import MpiPairRecord, MpiPingPongRow

DEFAULT_MAX_SIZE = 1 << 30  # mpi4py's default -n
_TITLE = "# MPI PingPong Test"
_HEADER = re.compile(r"^\s*#\s*Size \[B\]\s+Bandwidth \[MB/s\]\s*(\|.*)?$")
_STATS_HEADER = re.compile(r"^\|\s*Time Mean \[s\]\s*±\s*StdDev \[s\]\s+Samples\s*$")
_ROW = re.compile(r"^\s*(\d{1,12})\s+(\S+)\s*(?:\|\s*(\S+)\s*±\s*(\S+)\s+(\d{1,12}))?\s*$")
_DETECT = re.compile(r"^\s*# MPI PingPong Test\s*$|^\s*#\s*Size \[B\]\s+Bandwidth \[MB/s\]",
                     re.MULTILINE)


def looks_like_mpi4py_pingpong(text: str) -> bool:
    """The title or column header mpi4py's ping-pong prints (for `stackprobe ingest`)."""
    return _DETECT.search(text) is not None


@guard("mpi4py pingpong")
def parse_mpi4py_pingpong(text: str, max_size: int | None = None) -> list[MpiPairRecord]:
    """Every ping-pong table in `text`, in order; ValueError (one line, naming the line)
    when there is none or a row is not what mpi4py prints."""
    lines = text.split("\n")
    fragment = len(lines) - 1 if lines and lines[-1].strip() else None  # no newline after it
    records: list[MpiPairRecord] = []
    current: MpiPairRecord | None = None
    cut: MpiPairRecord | None = None  # the table the fragment belonged to
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r")
        header = _HEADER.match(line)
        if header:
            current = MpiPairRecord(run=len(records), stats=_stats(header.group(1), number))
            records.append(current)
            continue
        if current is None or not line.strip() or line.strip() == _TITLE:
            continue
        if number - 1 == fragment:
            cut = current
            break
        row = _ROW.match(line)
        if row is None:
            current = None  # the table ended: text after it is not mpi4py's
            continue
        current.rows.append(_row(row, current, number))
    if not records:
        raise ValueError("mpi4py pingpong: no '# Size [B]  Bandwidth [MB/s]' header found")
    largest = max_size if max_size is not None else DEFAULT_MAX_SIZE
    for rec in records:
        if rec is cut or not rec.rows:
            rec.complete = False
        else:
            rec.complete = True if rec.rows[-1].size_bytes * 2 > largest else None
    return records


def _stats(tail: str | None, number: int) -> bool:
    if tail is None:
        return False
    if not _STATS_HEADER.match(tail.strip()):
        raise ValueError(f"mpi4py pingpong line {number}: unknown columns after '|': "
                         f"{tail.strip()[:60]!r}")
    return True


def _row(m: re.Match, rec: MpiPairRecord, number: int) -> MpiPingPongRow:
    where = f"mpi4py pingpong line {number}"
    size = int(m.group(1))
    if size <= 0 or size & (size - 1):
        raise ValueError(f"{where}: size {size} is not a power of two")
    if rec.rows and size <= rec.rows[-1].size_bytes:
        raise ValueError(f"{where}: size {size} after {rec.rows[-1].size_bytes} (sizes grow)")
    bw = finite(m.group(2), f"{where}: bandwidth")
    if m.group(3) is None:
        if rec.stats:
            raise ValueError(f"{where}: no time columns under a header that names them")
        if bw <= 0:
            raise ValueError(f"{where}: bandwidth {m.group(2)} MB/s gives no latency")
        return MpiPingPongRow(size_bytes=size, bw_bytes=bw * 1e6, latency_ns=size / bw * 1e3)
    if not rec.stats:
        raise ValueError(f"{where}: time columns under a header without them")
    mean = finite(m.group(3), f"{where}: time mean")
    stdev = finite(m.group(4), f"{where}: stdev")
    if mean <= 0 or bw < 0 or stdev < 0:
        raise ValueError(f"{where}: a time or bandwidth below zero")
    return MpiPingPongRow(size_bytes=size, bw_bytes=bw * 1e6, latency_ns=mean * 1e9,
                          stdev_ns=stdev * 1e9, samples=int(m.group(5)))
