"""vdbench's summary.html and totals.html -> VdbenchRecords, one per run definition (RD).

What vdbench 5.04 writes (tests/fixtures/public/vdbench), and what is read:

- Each RD opens with '<time> Starting RD=rd1; I/O rate: 50; elapsed=60; ...' (kept as the
  record's description), then a two-line column header that vdbench repeats every so
  many intervals, then a line per interval and, at the end, the `avg_2-60` line (the
  average over the intervals vdbench counts: warm-up excluded) and, in file system mode,
  `std_` and `max_` lines. totals.html holds the same RDs with the `avg_` line alone.
- The header's two lines name each column together: block mode's 'i/o' over 'rate',
  'resp' over 'max'; file system mode's dotted groups ('.ReqstdOps...', '..mb/sec...')
  over each of their columns ('rate', 'resp'; 'read', 'write'). Figures are right-aligned
  under the second line, so a column is the text that ends where its name ends; the
  `std_`/`max_` lines leave some blank and are read by those positions.
- Response times are ms and MB/sec is MiB/s (vdbench's 1024**2), as printed.
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import guard
from stackprobe.parsers.peer.vdbench_columns import make_line, plain
from stackprobe.schema.peer_records import VdbenchRecord

_START = re.compile(r"Starting RD=([^;\s]+);?\s*(.*)$")
_ROW = re.compile(r"^(\d\d:\d\d:\d\d\.\d+)\s+(\d+|(?:avg|std|max)_\d+-\d+)\s", re.MULTILINE)
_TOKEN = re.compile(r"\S+")


def looks_like_vdbench_summary(text: str) -> bool:
    return "Starting RD=" in text and _ROW.search(text.replace("\r", "")) is not None \
        or "Vdbench summary report" in text


def _columns(first: str, second: str) -> list[tuple[str, int]]:
    """(name, end position) of each figure column from the header's two lines."""
    groups = [(m.group(0).strip("."), m.start(), m.end()) for m in _TOKEN.finditer(first)]
    out = []
    for m in _TOKEN.finditer(second):
        best, overlap = "", 0
        for name, start, end in groups:
            shared = min(end, m.end()) - max(start, m.start())
            if shared > overlap:
                best, overlap = name, shared
        out.append((f"{best} {m.group(0)}".strip(), m.end()))
    return out


def _cells(line: str, columns: list[tuple[str, int]], label_end: int) -> dict[str, str]:
    parts = line[label_end:].split()
    if len(parts) == len(columns):
        return {name: part for (name, _end), part in zip(columns, parts)}
    cells, start = {}, label_end
    for name, end in columns:
        cells[name] = line[start:end].strip()
        start = end
    if line[start:].strip():
        raise ValueError(f"figures beyond the last column: {line[start:].strip()[:30]!r}")
    return cells


@guard("vdbench summary")
def parse_vdbench_summary(text: str) -> list[VdbenchRecord]:
    """One record per RD, with its interval lines and its avg_/std_/max_ lines."""
    fmt = "summary" if "Vdbench summary report" in text else "totals"
    records: list[VdbenchRecord] = []
    columns: list[tuple[str, int]] = []
    lines = [plain(ln).rstrip() for ln in text.replace("\r", "").split("\n")]
    for no, line in enumerate(lines, 1):
        if m := _START.search(line):
            records.append(VdbenchRecord(source_format=fmt, rd=m.group(1),
                                         description=line[m.start():].strip()))
        elif no < len(lines) and re.match(r"^\w{3} \d\d, \d{4}\s", line) and lines[no].startswith(" "):
            columns = _columns(line, lines[no])
        elif m := _ROW.match(line):
            if not records or not columns:
                raise ValueError(f"vdbench line {no}: figures before a 'Starting RD=' line "
                                 "and a column header")
            try:
                cells = _cells(line, columns, m.end(2))
            except ValueError as exc:
                raise ValueError(f"vdbench line {no}: {exc}") from None
            row = make_line(m.group(2), m.group(1), cells, f"vdbench line {no}")
            (records[-1].intervals if m.group(2).isdigit() else records[-1].totals).append(row)
    found = [r for r in records if r.intervals or r.totals]
    if not found:
        raise ValueError("no vdbench interval or avg_ line after a 'Starting RD=' line")
    return found
