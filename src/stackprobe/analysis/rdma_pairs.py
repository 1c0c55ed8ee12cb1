"""perftest between host pairs: one figure per ordered pair and test, and the pairs that
stand out from the fleet (seed 004: single FDR 56 Gb/s cables in an EDR 100 Gb/s fabric).

A cell is an ORDERED pair, client -> server: ib_write_bw's client writes into the server's
memory, ib_send_bw's sends to it, so a cable slow in one direction shows in one cell. The
figures, per test:

- bandwidth tests: `BW average` (and its peak beside it) at the largest size every measured
  pair of the test printed, `-a` or not;
- latency tests: `t_typical` (the median; `t_avg` in duration mode, which prints no
  typical) and the 99th percentile at the smallest such size.

A pair is flagged when it failed, when its bandwidth is below `slow_fraction` of the median
pair's of the same test, or its typical latency above `latency_factor` times the median
pair's. The median needs at least 3 measured pairs (with 2 it is their mean and either
could be the odd one), as in the iperf3 matrix (network_matrix.py).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from stackprobe.schema.fabric_records import PerftestRecord, PerftestRow
from stackprobe.units import fmt_bw, fmt_bytes, fmt_ns

MIN_PAIRS_FOR_MEDIAN = 3


@dataclass
class RdmaCell:
    client: str
    server: str
    test: str  # ib_write_bw, ib_send_lat
    size_bytes: int | None = None
    bw_peak_bytes: float | None = None
    bw_avg_bytes: float | None = None
    lat_typical_ns: float | None = None
    lat_p99_ns: float | None = None
    error: str | None = None
    flags: list[str] = field(default_factory=list)  # failed, slow, latency
    notes: list[str] = field(default_factory=list)  # one sentence per flag, same order

    @property
    def pair(self) -> str:
        return f"{self.client}→{self.server}"

    def flag(self, kind: str, sentence: str) -> None:
        self.flags.append(kind)
        self.notes.append(sentence)

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, [])}


def is_bw(test: str) -> bool:
    return test.endswith("_bw")


def _row_at(rec: PerftestRecord, size: int | None) -> PerftestRow | None:
    return next((r for r in rec.rows if r.size_bytes == size), None)


def _size(records: Sequence[PerftestRecord], bw: bool) -> int | None:
    sets = [{r.size_bytes for r in rec.rows} for rec in records if rec.rows and not rec.error]
    common = set.intersection(*sets) if sets else set()
    return (max(common) if bw else min(common)) if common else None


def build_cells(records: Sequence[PerftestRecord], *, slow_fraction: float = 0.7,
                latency_factor: float = 1.5) -> list[RdmaCell]:
    """Every (test, client, server) cell of `records` (client and server are host names;
    records without them are refused), flagged as the module docstring says."""
    by_test: dict[str, list[PerftestRecord]] = {}
    for rec in records:
        if not rec.client or not rec.server:
            raise ValueError("a perftest pair record without client and server host names")
        by_test.setdefault(rec.benchmark or rec.title, []).append(rec)
    cells: list[RdmaCell] = []
    for test, recs in sorted(by_test.items()):
        bw = is_bw(test)
        size = _size(recs, bw)
        made = [_cell(test, rec, size, bw) for rec in sorted(recs, key=_order)]
        _flag(made, bw, slow_fraction, latency_factor)
        cells += made
    return cells


def _order(rec: PerftestRecord) -> tuple[str, str]:
    return (rec.client or "", rec.server or "")


def _cell(test: str, rec: PerftestRecord, size: int | None, bw: bool) -> RdmaCell:
    cell = RdmaCell(rec.client or "", rec.server or "", test, size)
    row = _row_at(rec, size)
    if rec.error or row is None:
        cell.error = rec.error or ("no row printed" if not rec.rows else
                                   f"no row at {fmt_bytes(size)}")
    elif bw:
        cell.bw_peak_bytes, cell.bw_avg_bytes = row.bw_peak_bytes, row.bw_avg_bytes
    else:
        cell.lat_typical_ns = row.t_typical_ns if row.t_typical_ns is not None else row.t_avg_ns
        cell.lat_p99_ns = row.p99_ns
    return cell


def _ratio(x: float) -> str:
    return f"{x:.2g}×"


def _flag(cells: list[RdmaCell], bw: bool, slow_fraction: float, latency_factor: float) -> None:
    attr = "bw_avg_bytes" if bw else "lat_typical_ns"
    measured = [getattr(c, attr) for c in cells if getattr(c, attr) is not None]
    median = statistics.median(measured) if len(measured) >= MIN_PAIRS_FOR_MEDIAN else None
    for c in cells:
        value = getattr(c, attr)
        if c.error is not None:
            c.flag("failed", f"{c.test} {c.pair} failed: {c.error}")
        elif median is None or value is None:
            continue
        elif bw and value < slow_fraction * median:
            c.flag("slow", f"{c.test} {c.pair} {fmt_bw(value)} at {fmt_bytes(c.size_bytes)}, "
                   f"{_ratio(value / median)} the median pair ({fmt_bw(median)})")
        elif not bw and value > latency_factor * median:
            c.flag("latency", f"{c.test} {c.pair} {fmt_ns(value)} at {fmt_bytes(c.size_bytes)}, "
                   f"{_ratio(value / median)} the median pair ({fmt_ns(median)})")
