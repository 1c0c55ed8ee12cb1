"""The iperf3 matrix between hosts: which links are failed, slow, lopsided or lossy?

A storage cluster is only as fast as its worst link, and a bad one hides in an average: a
port negotiated at 1 Gbit/s, a mis-set MTU, a flapping bond member. Each ordered pair
(data flowing from one host to another) is a cell, flagged when it is:

- failed: iperf3 reported an error ('h1→h2 failed: unable to connect ...');
- slow: below `slow_fraction` of what the link should do. That is the slower end's NIC
  speed when both ends' speeds are known (a 1 Gbit/s host caps a 10 Gbit/s peer). When one
  is unknown, the median of all measured pairs stands in - the cluster's own idea of
  normal - and the sentence says so. That needs at least 3 measured pairs: with 2 the
  median is their mean and either could be the odd one (the asymmetry flag covers them);
- asymmetric: both directions were measured and the faster is more than `asymmetry` times
  the slower (a duplex mismatch, a one-way shaper). The slower direction carries the flag;
- loss: ping lost packets between the two.

Records are NetRecords whose client and server are host names. A reverse run (iperf3 -R)
sends from the server to the client, so its figure goes to the server→client cell: cells
are keyed by the direction the data went, (sender, receiver). Several records for one
direction (repetitions, a forward and a reverse run) give the median bandwidth; any error
among them marks the cell failed. Bandwidths are bits/s as iperf3 reports them.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stackprobe.schema.records import NetRecord, PingRecord

MIN_PAIRS_FOR_MEDIAN = 3


@dataclass
class Cell:
    client: str  # the sending host
    server: str  # the receiving host
    bps: float | None = None  # received bits/s (else sent); None: not measured or failed
    retransmits: int | None = None
    rtt_avg_ns: float | None = None
    loss_pct: float | None = None
    error: str | None = None
    expected_bps: float | None = None  # the slower end's link speed, when both are known
    flags: list[str] = field(default_factory=list)  # failed, slow, asymmetric, loss
    notes: list[str] = field(default_factory=list)  # one sentence per flag, same order

    def flag(self, kind: str, sentence: str) -> None:
        self.flags.append(kind)
        self.notes.append(sentence)


@dataclass
class NetMatrix:
    hosts: list[str]
    cells: dict[tuple[str, str], Cell]

    def flags(self) -> list[str]:
        """Every flagged cell's sentences, in (client, server) order."""
        return [note for key in sorted(self.cells) for note in self.cells[key].notes]

    def as_rows(self) -> list[dict[str, Any]]:
        """One row per sending host: {'client': h, <each receiving host>: Gbit/s or None}."""
        rows = []
        for src in self.hosts:
            row: dict[str, Any] = {"client": src}
            for dst in self.hosts:
                cell = self.cells.get((src, dst))
                row[dst] = cell.bps / 1e9 if cell and cell.bps is not None else None
            rows.append(row)
        return rows


def link_speed_mbps(sysfs_speed_text: str) -> float | None:
    """Mbit/s from /sys/class/net/IF/speed ('10000\\n' -> 10000.0); None when unknown
    (the kernel writes -1 for a link without a speed, reading fails for others)."""
    text = sysfs_speed_text.strip()
    if not re.fullmatch(r"\d+", text) or int(text) == 0:
        return None
    return float(text)


def _gbit(bps: float) -> str:
    g = bps / 1e9
    return f"{g:.0f} Gbit/s" if g >= 10 else f"{g:.2g} Gbit/s"


def _times(ratio: float) -> str:
    return f"{ratio:.0f}×" if ratio >= 10 else f"{ratio:.2g}×"


def _fill_iperf(cell: Cell, records: list[NetRecord]) -> None:
    figures = []
    for r in records:
        bps = r.received_bps if r.received_bps is not None else r.sent_bps
        if r.error is not None or bps is None:
            cell.error = r.error or "no bandwidth figure"
        else:
            figures.append(bps)
    if figures:
        cell.bps = statistics.median(figures)
    known = [r.retransmits for r in records if r.retransmits is not None]
    cell.retransmits = sum(known) if known else None


def _fill_ping(cell: Cell, pings: list[PingRecord]) -> None:
    sent = sum(p.transmitted for p in pings)
    got = sum(p.received for p in pings)
    cell.loss_pct = 100.0 * (sent - got) / sent if sent else max(p.loss_pct for p in pings)
    avgs = [(p.rtt_ns["avg"], p.received) for p in pings if "avg" in p.rtt_ns and p.received]
    if avgs:
        cell.rtt_avg_ns = sum(a * n for a, n in avgs) / sum(n for _, n in avgs)


def _expected_bps(a: str, b: str, expected_mbps: Mapping[str, float | None]) -> float | None:
    a_mbps, b_mbps = expected_mbps.get(a), expected_mbps.get(b)
    if a_mbps is None or b_mbps is None or a_mbps <= 0 or b_mbps <= 0:
        return None
    return min(a_mbps, b_mbps) * 1e6


def build_matrix(
    records: Sequence[NetRecord],
    pings: Sequence[PingRecord] = (),
    expected_mbps: Mapping[str, float | None] | None = None,
    *,
    slow_fraction: float = 0.7,
    asymmetry: float = 1.5,
) -> NetMatrix:
    """The matrix of `records` and `pings`, every cell flagged as the module docstring says."""
    expected_mbps = expected_mbps or {}
    by_pair: dict[tuple[str, str], list[NetRecord]] = {}
    for r in records:
        if not r.client or not r.server:
            raise ValueError("a network record without client and server host names")
        key = (r.server, r.client) if r.reverse else (r.client, r.server)
        by_pair.setdefault(key, []).append(r)
    ping_pair: dict[tuple[str, str], list[PingRecord]] = {}
    for p in pings:
        if not p.client or not p.server:
            raise ValueError("a ping record without client and server host names")
        ping_pair.setdefault((p.client, p.server), []).append(p)

    cells: dict[tuple[str, str], Cell] = {}
    for key in sorted({*by_pair, *ping_pair}):
        cell = cells[key] = Cell(*key, expected_bps=_expected_bps(*key, expected_mbps))
        _fill_iperf(cell, by_pair.get(key, []))
        if key in ping_pair:
            _fill_ping(cell, ping_pair[key])
    measured = [c.bps for c in cells.values() if c.bps is not None]
    median = statistics.median(measured) if len(measured) >= MIN_PAIRS_FOR_MEDIAN else None
    for cell in cells.values():
        _flag(cell, cells.get((cell.server, cell.client)), median, slow_fraction, asymmetry)
    return NetMatrix(sorted({h for key in cells for h in key}), cells)


def _flag(cell: Cell, back: Cell | None, median: float | None, slow_fraction: float,
          asymmetry: float) -> None:
    name = f"{cell.client}→{cell.server}"
    if cell.error is not None:
        cell.flag("failed", f"{name} failed: {cell.error}")
    if cell.bps is not None:
        if cell.expected_bps is not None:
            if cell.bps < slow_fraction * cell.expected_bps:
                cell.flag("slow", f"{name} {_gbit(cell.bps)}, "
                          f"{_times(cell.bps / cell.expected_bps)} the expected "
                          f"{_gbit(cell.expected_bps)} (the slower end's link speed)")
        elif median is not None and cell.bps < slow_fraction * median:
            cell.flag("slow", f"{name} {_gbit(cell.bps)}, {_times(cell.bps / median)} "
                      f"the median pair ({_gbit(median)})")
        if back is not None and back.bps is not None and back.bps > cell.bps:
            ratio = back.bps / cell.bps if cell.bps > 0 else float("inf")
            if ratio > asymmetry:
                cell.flag("asymmetric", f"{name} {_gbit(cell.bps)} vs "
                          f"{back.client}→{back.server} {_gbit(back.bps)} ({_times(ratio)})")
    if cell.loss_pct:
        reply = ", no reply" if cell.loss_pct >= 100 else ""
        cell.flag("loss", f"{name} ping lost {cell.loss_pct:.3g}% of packets{reply}")
