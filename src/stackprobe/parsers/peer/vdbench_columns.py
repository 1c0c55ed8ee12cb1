"""What vdbench's columns mean, shared by its summary/totals and flatfile parsers.

vdbench names the same figure differently by mode and file: block mode (SD/WD) prints
'i/o rate', 'MB/sec 1024**2', 'resp time' in summary.html and 'rate', 'MB/sec', 'resp' in
flatfile.html; file system mode (FSD/FWD) prints 'ReqstdOps rate', 'mb/sec total' in
summary.html and 'Rate', 'MB/sec', 'Resp' in flatfile.html. Each name below is one of
those, lower-cased; a file's own names are kept beside them in `columns`.
"""

from __future__ import annotations

import html
import re

from stackprobe.parsers.bad_input import finite
from stackprobe.schema.peer_records import VdbenchLine

NAMED = {
    "iops": ("i/o rate", "reqstdops rate", "rate"),
    "mib_s": ("mb/sec 1024**2", "mb/sec total", "mb/sec"),
    "bytes_per_io": ("bytes i/o", "xfer size", "bytes/io"),
    "read_pct": ("read pct", "read%"),
    "resp_ms": ("resp time", "reqstdops resp", "resp"),
    "resp_max_ms": ("resp max", "resp_max"),
    "resp_std_ms": ("resp stddev", "resp_std"),
    "queue_depth": ("queue depth", "queue_depth"),
}
_TAG = re.compile(r"<[^>]*>")


def plain(line: str) -> str:
    """A line of vdbench's HTML as text: tags removed, entities decoded."""
    return html.unescape(_TAG.sub("", line))


def make_line(label: str, time: str | None, cells: dict[str, str], where: str) -> VdbenchLine:
    """A report line from its cells by column name; 'n/a' and blank cells are left out, any
    other cell must be a number (ValueError naming `where` and the column)."""
    columns = {name: finite(cell, f"{where}: {name}") for name, cell in cells.items()
               if cell and cell != "n/a"}
    lower = {name.lower(): value for name, value in columns.items()}
    named = {field: next((lower[n] for n in names if n in lower), None)
             for field, names in NAMED.items()}
    return VdbenchLine(label=label, time=time, columns=columns, **named)
