"""perftest client text output -> PerftestRecord: ib_write_bw, ib_read_bw, ib_send_bw,
ib_write_lat, ib_read_lat, ib_send_lat (and ib_atomic_*), alone or inside a log. One
record per test title that printed its result header.

What perftest prints (src/perftest_parameters.c in linux-rdma/perftest), and the choices
made (docs/fabric.md):

- The title line: the verb (Send, Send_imm, RDMA_Write, RDMA_Write_imm, RDMA_Read, Atomic
  and its operation), then Bidirectional / Post List for bandwidth, then "BW" or
  "Latency", then "Test". The benchmark's name follows from the verb and the kind.
- The settings block after it: "Device : mlx5_0", "Number of qps : 1", "Transport type :
  IB", "Connection type : RC", "TX depth : 128", "Mtu : 4096[B]", "Link type : IB"; two
  settings may share a line (a tab between them).
- The result header: "#bytes #iterations" and its columns. Bandwidth: "BW peak[MB/sec]"
  (older releases), "BW peak[MiB/sec]" (newer) or "BW peak[Gb/sec]" (--report_gbits), "BW
  average[...]" and "MsgRate[Mpps]". perftest divides by 0x100000 for its MB and MiB (so
  both are 2^20 bytes) and by 125000000 for Gb (10^9 bits); Mpps is 10^6 messages/s.
  Latency: t_min, t_max, t_typical, t_avg, t_stdev, "99% percentile", "99.9% percentile",
  all in µs (stored in ns); duration mode (-D) prints "t_avg[usec]" and "tps average".
- Rows: the size in bytes, the iterations, one figure per column. Lines perftest writes
  among them ("Conflicting CPU frequency values detected ...") are skipped.
- The table ends with a line of dashes. A file that ends before it leaves the test
  `complete: False`; a last line without its newline whose figure lacks the decimals
  perftest prints is a fragment, dropped. A negative figure (perftest prints one when its
  clock wraps) is kept as None, never as a number.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import Decimal

from stackprobe.parsers.bad_input import guard
from stackprobe.parsers.network.osu_text import figure
from stackprobe.schema.fabric_records import PerftestRecord, PerftestRow

_TITLE = re.compile(r"^\s*((Send|Send_imm|RDMA_Write|RDMA_Write_imm|RDMA_Read|Atomic)\b[\w /]*?"
                    r"\b(BW|Latency)\b[\w ]*?Test)\s*$")
_HEADER = re.compile(r"^\s*#bytes\s+#iterations\s+(.*?)\s*$")
_ROW = re.compile(r"^\s*(\d{1,12})\s+(\d{1,19})((?:[ \t]+\S+)*)[ \t]*$")
_DASHES = re.compile(r"^\s*-{20,}\s*$")
_DETECT = re.compile(r"^\s*#bytes\s+#iterations\s+(?:BW peak|t_min|t_avg)", re.MULTILINE)
_SETTINGS = (
    ("device", re.compile(r"\bDevice\s*:\s*(\S+)"), str),
    ("qps", re.compile(r"\bNumber of qps\s*:\s*(\d{1,9})\b"), int),
    ("transport", re.compile(r"\bTransport type\s*:\s*(\S+)"), str),
    ("connection", re.compile(r"\bConnection type\s*:\s*(\S+)"), str),
    ("tx_depth", re.compile(r"\bTX depth\s*:\s*(\d{1,9})\b"), int),
    ("mtu_bytes", re.compile(r"\bMtu\s*:\s*(\d{1,9})\s*\[B\]"), int),
    ("link_type", re.compile(r"\bLink type\s*:\s*(\S+)"), str),
)
_BW = {"MB": 0x100000, "MiB": 0x100000, "Gb": 125_000_000}  # bytes/s in one printed unit
# column as printed -> (PerftestRow field, power of ten to our unit, decimals printed)
_COLUMNS = (
    (re.compile(r"BW peak\[(MB|MiB|Gb)/sec\]"), "bw_peak_bytes", None, 2),
    (re.compile(r"BW average\[(MB|MiB|Gb)/sec\]"), "bw_avg_bytes", None, 2),
    (re.compile(r"MsgRate\[Mpps\]"), "messages_per_s", 6, 6),
    (re.compile(r"t_min\[usec\]"), "t_min_ns", 3, 2),
    (re.compile(r"t_max\[usec\]"), "t_max_ns", 3, 2),
    (re.compile(r"t_typical\[usec\]"), "t_typical_ns", 3, 2),
    (re.compile(r"t_avg\[usec\]"), "t_avg_ns", 3, 2),
    (re.compile(r"t_stdev\[usec\]"), "t_stdev_ns", 3, 2),
    (re.compile(r"99% percentile\[usec\]"), "p99_ns", 3, 2),
    (re.compile(r"99\.9% percentile\[usec\]"), "p99_9_ns", 3, 2),
    (re.compile(r"tps average"), "transactions_per_s", 0, 2),
)
_VERBS = {"Send": "send", "Send_imm": "send", "RDMA_Write": "write", "RDMA_Write_imm": "write",
          "RDMA_Read": "read", "Atomic": "atomic"}


@dataclass
class _Run:
    title: str
    benchmark: str
    line: int
    settings: dict[str, str | int] = field(default_factory=dict)
    header_line: int | None = None
    columns: list[tuple[str, str, int, int]] = field(default_factory=list)
    bw_unit: str | None = None
    rows: list[PerftestRow] = field(default_factory=list)
    closed: bool = False


def looks_like_perftest(text: str) -> bool:
    """True when `text` holds perftest's result header or a test title (a server's output,
    or a client's cut before its table: the parser then says which)."""
    return bool(_DETECT.search(text)) or any(_TITLE.match(line) for line in text.splitlines())


@guard("perftest output")
def parse_perftest(text: str) -> list[PerftestRecord]:
    """PerftestRecords of every test in `text` that printed its result header (module doc);
    ValueError naming the line when none did or a header is not perftest's."""
    lines = text.lstrip("\ufeff").splitlines()
    runs = _runs(lines, not text.endswith(("\n", "\r")))
    tabled = [r for r in runs if r.header_line is not None]
    if not tabled:
        where = (f"line {runs[0].line}: '{runs[0].title}' is followed by no '#bytes #iterations' "
                 "result header (a server's output, or the file ends before it)") if runs else (
                 f"lines 1-{max(len(lines), 1)} hold no perftest test title and no '#bytes "
                 "#iterations' result header")
        raise ValueError(f"perftest output: {where}")
    return [_record(i, r) for i, r in enumerate(tabled)]


def _runs(lines: list[str], no_last_newline: bool) -> list[_Run]:
    runs: list[_Run] = []
    current: _Run | None = None
    for number, line in enumerate(lines, 1):
        if m := _TITLE.match(line):
            kind = "bw" if m.group(3) == "BW" else "lat"
            current = _Run(m.group(1), f"ib_{_VERBS[m.group(2)]}_{kind}", number)
            runs.append(current)
            continue
        if current is None or current.closed:
            if not _HEADER.match(line):
                continue
            current = _Run("", "", number)  # a table without its title: one test
            runs.append(current)
        _read(current, line, number, no_last_newline and number == len(lines))
    return runs


def _read(run: _Run, line: str, number: int, last: bool) -> None:
    if run.header_line is None:
        if m := _HEADER.match(line):
            run.header_line, run.columns = number, _columns(m.group(1), number, run)
            return
        for name, pattern, kind in _SETTINGS:
            if name not in run.settings and (m := pattern.search(line)):
                run.settings[name] = kind(m.group(1))
    elif _DASHES.match(line):
        run.closed = bool(run.rows)
    elif m := _ROW.match(line):
        fields = m.group(3).split()
        if len(fields) != len(run.columns) or (last and not _whole(fields[-1], run.columns[-1][3])):
            return
        values = {}
        for token, (_printed, name, factor, _decimals) in zip(fields, run.columns, strict=True):
            value = figure(token, 0)
            if value is False:
                return
            scaled = None if value is None else float(Decimal(token) * factor)
            values[name] = scaled if scaled is None or math.isfinite(scaled) else None
        run.rows.append(PerftestRow(size_bytes=int(m.group(1)), iterations=int(m.group(2)), **values))


def _columns(text: str, number: int, run: _Run) -> list[tuple[str, str, int, int]]:
    found, rest = [], text
    while rest:
        for pattern, name, power, decimals in _COLUMNS:
            if m := pattern.match(rest):
                if power is None:
                    run.bw_unit = f"{m.group(1)}/sec"
                factor = _BW[m.group(1)] if power is None else 10 ** power
                found.append((m.group(0), name, factor, decimals))
                rest = rest[m.end():].lstrip()
                break
        else:
            raise ValueError(f"perftest output: line {number}: column {rest[:40]!r} of the "
                             "'#bytes #iterations' header is not one perftest prints")
    return found


def _whole(token: str, decimals: int) -> bool:
    """A figure printed in full: perftest's '%.2f' or '%.6f'."""
    return bool(re.fullmatch(rf"-?\d+\.\d{{{decimals}}}", token))


def _record(index: int, run: _Run) -> PerftestRecord:
    s = run.settings
    return PerftestRecord(
        benchmark=run.benchmark or None, title=run.title or "perftest", run=index,
        device=s.get("device"), link_type=s.get("link_type"), transport=s.get("transport"),
        connection=s.get("connection"), mtu_bytes=s.get("mtu_bytes"), qps=s.get("qps"),
        tx_depth=s.get("tx_depth"), bw_unit=run.bw_unit, columns=[c[0] for c in run.columns],
        rows=run.rows, complete=run.closed)
