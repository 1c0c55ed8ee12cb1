"""vdbench's flatfile.html -> VdbenchRecords, one per run definition (RD).

flatfile.html (vdbench 5.04, tests/fixtures/public/vdbench) is a '*' comment block that
describes the columns, then one line of column names ('tod', 'Run', 'Interval', 'rate',
'MB/sec', 'resp', ...; file system mode: 'Rate', 'Resp', 'Read_rate', 'Mkdir_rate', ...)
and one line per interval of each RD, its `avg_` line last. Every column is kept by its
header name; 'n/a' means vdbench has no figure for it. The text columns (tod, timestamp,
Run, Interval, version) are not figures; any other cell must be a number.
"""

from __future__ import annotations

from stackprobe.parsers.bad_input import guard
from stackprobe.parsers.peer.vdbench_columns import make_line, plain
from stackprobe.schema.peer_records import VdbenchRecord

_TEXT = {"tod", "timestamp", "Run", "Interval", "version"}


def looks_like_vdbench_flatfile(text: str) -> bool:
    return "'flatfile.html' contains Vdbench" in text


def _header(lines: list[str]) -> int:
    for i, line in enumerate(lines):
        words = line.split()
        if "Run" in words and "Interval" in words and not line.startswith("*"):
            return i
    raise ValueError("vdbench flatfile without its line of column names (Run, Interval, ...)")


@guard("vdbench flatfile")
def parse_vdbench_flatfile(text: str) -> list[VdbenchRecord]:
    """One record per RD (the 'Run' column), its intervals and its avg_ line."""
    lines = [plain(ln).rstrip() for ln in text.replace("\r", "").split("\n")]
    at = _header(lines)
    names = lines[at].split()
    versions = set()
    records: dict[str, VdbenchRecord] = {}
    for no, line in enumerate(lines[at + 1:], at + 2):
        cells = line.split()
        if not cells or line.startswith("*"):
            continue
        if len(cells) != len(names):
            raise ValueError(f"vdbench flatfile line {no}: {len(cells)} cells for "
                             f"{len(names)} columns")
        row = dict(zip(names, cells))
        rd, label = row.get("Run", "?"), row.get("Interval", "?")
        if row.get("version", "n/a") != "n/a":
            versions.add(row["version"])
        figures = {k: v for k, v in row.items() if k not in _TEXT}
        item = make_line(label, row.get("tod"), figures, f"vdbench flatfile line {no}")
        rec = records.setdefault(rd, VdbenchRecord(source_format="flatfile", rd=rd))
        (rec.intervals if label.isdigit() else rec.totals).append(item)
    if not records:
        raise ValueError("vdbench flatfile without an interval line")
    version = versions.pop() if len(versions) == 1 else None
    for rec in records.values():
        rec.tool_version = version
    return list(records.values())
