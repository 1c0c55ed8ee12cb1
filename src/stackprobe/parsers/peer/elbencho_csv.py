"""elbencho's CSV files -> records: --csvfile (a header, then one line per phase) and
--livecsv (one line per interval and rank).

--csvfile columns (elbencho 2.1, tests/fixtures/public/elbencho): the run's parameters
('path type', 'paths', 'hosts', 'threads', 'dirs', 'files', 'file size', 'block size',
'direct IO', 'random', 'IO depth', ...), 'operation', each figure twice ('IOPS [first]',
'IOPS [last]'), latency as '[min]', '[avg]', '[max]' in µs ('IO lat us [avg]'), and
'version' and 'command' at the end. An empty cell is a figure the phase does not have.
Columns are read by their header name, so columns a later version adds are kept too.

--livecsv columns: 'Label', 'Phase', 'RuntimeMS', 'Rank' ('Total' or a host), 'MixType',
'Done%', 'DoneBytes', 'MiB/s', 'IOPS', 'Entries', 'Entries/s', 'Active', 'CPU',
'Service': one series per label, phase, rank and mix type.

A cell that should be a number and is not is refused with its line and column.
"""

from __future__ import annotations

import csv
import io
import re

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.schema.peer_records import (
    ElbenchoLivePoint,
    ElbenchoLiveRecord,
    ElbenchoPhaseRecord,
    Param,
)

_FIGURE = re.compile(r"^(.*?)\s*\[(first|last|min|avg|max)\]$")
_TEXT_COLUMNS = {"ISO date", "label", "operation", "version", "command", "path type"}
_LIVE_FIELDS = {"RuntimeMS": "runtime_ms", "Done%": "done_pct", "DoneBytes": "done_bytes",
                "MiB/s": "mib_s", "IOPS": "iops", "Entries": "entries",
                "Entries/s": "entries_s", "Active": "active", "CPU": "cpu_pct"}


def looks_like_elbencho_csv(text: str) -> bool:
    head = text.lstrip("\ufeff").split("\n", 1)[0]
    return head.startswith("ISO date,") and ",operation," in head and "[last]" in head


def looks_like_elbencho_livecsv(text: str) -> bool:
    return text.lstrip("\ufeff").startswith("Label,Phase,RuntimeMS,Rank,")


def _rows(text: str) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """The header and each line as {column: cell} with its line number."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff").replace("\x00", ""), newline=""))
    try:
        return _read(reader)
    except csv.Error as exc:
        raise ValueError(f"elbencho CSV line {reader.line_num}: {exc}") from None


def _read(reader) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    header = [h.strip() for h in next(reader, [])]
    rows = []
    for cells in reader:
        if not any(c.strip() for c in cells):
            continue
        if len(cells) > len(header) and any(c.strip() for c in cells[len(header):]):
            raise ValueError(f"elbencho CSV line {reader.line_num}: {len(cells)} cells for "
                             f"{len(header)} columns")
        rows.append((reader.line_num, {h: c.strip() for h, c in zip(header, cells) if h}))
    return header, rows


def _param(value: str) -> Param:
    if re.fullmatch(r"-?\d{1,17}", value):
        return int(value)
    return value


@guard("elbencho CSV file")
def parse_elbencho_csv(text: str) -> list[ElbenchoPhaseRecord]:
    """One record per phase line of an elbencho --csvfile."""
    header, rows = _rows(text)
    if "operation" not in header:
        raise ValueError("elbencho CSV file without an 'operation' column")
    records = []
    for line_no, row in rows:
        phase = row.get("operation", "")
        if not phase:
            raise ValueError(f"elbencho CSV line {line_no}: operation: empty")
        rec = ElbenchoPhaseRecord(source_format="csv", block=len(records) + 1, phase=phase,
                                  date=row.get("ISO date") or None,
                                  tool_version=row.get("version") or None,
                                  command=row.get("command") or None)
        for column, cell in row.items():
            if not cell or column in _TEXT_COLUMNS:
                continue
            if m := _FIGURE.match(column):
                value = finite(cell, f"elbencho CSV line {line_no}: {column}")
                name, which = m.groups()
                if which in ("first", "last"):
                    getattr(rec, which)[name] = value
                else:  # 'IO lat us [avg]': µs, as the column says
                    rec.latency_us[f"{name.removesuffix(' us')} {which}"] = value
            else:
                rec.params[column] = _param(cell)
        records.append(rec)
    if not records:
        raise ValueError("elbencho CSV file without a phase line")
    return records


@guard("elbencho live CSV file")
def parse_elbencho_livecsv(text: str) -> list[ElbenchoLiveRecord]:
    """One series per label, phase, rank and mix type of an elbencho --livecsv."""
    header, rows = _rows(text)
    if "RuntimeMS" not in header or "Phase" not in header:
        raise ValueError("elbencho live CSV file without 'Phase' and 'RuntimeMS' columns")
    series: dict[tuple[str, str, str, str], ElbenchoLiveRecord] = {}
    for line_no, row in rows:
        phase, rank = row.get("Phase", ""), row.get("Rank", "")
        if not phase:
            raise ValueError(f"elbencho live CSV line {line_no}: Phase: empty")
        mix = row.get("MixType", "")
        key = (row.get("Label", ""), phase, rank, mix)
        if key not in series:
            series[key] = ElbenchoLiveRecord(phase=f"{phase} {mix}".strip(), rank=rank or "?",
                                             label=key[0] or None)
        figures = {field: finite(row[column], f"elbencho live CSV line {line_no}: {column}")
                   for column, field in _LIVE_FIELDS.items() if row.get(column)}
        if "runtime_ms" not in figures:
            raise ValueError(f"elbencho live CSV line {line_no}: RuntimeMS: empty")
        series[key].points.append(ElbenchoLivePoint(**figures))
    if not series:
        raise ValueError("elbencho live CSV file without an interval line")
    return list(series.values())
