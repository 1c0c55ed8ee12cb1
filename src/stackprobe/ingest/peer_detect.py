"""Which of the peers' tools wrote this text: elbencho, vdbench, sysbench, stress-ng.

Kept apart from detect.py so each tool's markers sit together. Every marker is one the tool
itself prints, not a file name: elbencho's table header and CSV headers, vdbench's
'Starting RD=' line and its flatfile's comment block, sysbench's and stress-ng's banners.
"""

from __future__ import annotations

from collections.abc import Callable

from stackprobe.parsers.peer.elbencho_csv import (
    looks_like_elbencho_csv,
    looks_like_elbencho_livecsv,
    parse_elbencho_csv,
    parse_elbencho_livecsv,
)
from stackprobe.parsers.peer.elbencho_text import looks_like_elbencho_table, parse_elbencho_table
from stackprobe.parsers.peer.vdbench_flatfile import (
    looks_like_vdbench_flatfile,
    parse_vdbench_flatfile,
)
from stackprobe.parsers.peer.vdbench_summary import (
    looks_like_vdbench_summary,
    parse_vdbench_summary,
)

Found = tuple[str, Callable[[str], list]]

LOOKED_FOR = ("elbencho output (the result table of stdout or --resfile, --csvfile, --livecsv), "
              "vdbench's summary.html, totals.html and flatfile.html")


def peer_format(text: str) -> Found | None:
    """(format name, parser) of an elbencho or vdbench file, or None."""
    if looks_like_elbencho_livecsv(text):
        return "elbencho livecsv", parse_elbencho_livecsv
    if looks_like_elbencho_csv(text):
        return "elbencho csv", parse_elbencho_csv
    if looks_like_elbencho_table(text):
        return "elbencho result table", parse_elbencho_table
    if looks_like_vdbench_flatfile(text):
        return "vdbench flatfile", parse_vdbench_flatfile
    if looks_like_vdbench_summary(text):
        name = "vdbench summary" if "Vdbench summary report" in text else "vdbench totals"
        return name, parse_vdbench_summary
    return None
