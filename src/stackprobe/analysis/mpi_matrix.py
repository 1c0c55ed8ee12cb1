"""MPI ping-pong between host pairs: a latency matrix and a bandwidth matrix, and the pairs
that stand out (seed 004: OSU between random node pairs found the FDR cables in an EDR fabric).

A cell is an UNORDERED pair. A ping-pong sends each message there and back, so a link slow
in one direction slows the exchange whichever host holds rank 0: both orders of a pair
measure the same thing, and the matrix cannot tell the direction (the network step's iperf3
matrix can). When both orders were measured the cell takes the median of their figures.

The figures: latency at the smallest message size every pair measured (mpi4py's mean of
half round trips), bandwidth at the largest (the size over that time). A pair is flagged
when its latency is above `latency_factor` times the typical pair's, or its bandwidth below
`slow_fraction` of it, or it failed.

The typical pair is the median, over the hosts, of each host's median pair. Not the median
of all pairs: in a small fleet one bad host touches many of them (3 of the 6 pairs of 4
hosts), which drags a plain median halfway to it; each good host's median pair is still a
good one. It needs at least 3 measured pairs, as the iperf3 matrix's median does.
A host whose every pair (two or more) is flagged for the same figure is named on its own:
the cause is likelier that host (its link, NIC or a busy CPU) than each of its pairs.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from stackprobe.schema.fabric_records import MpiPairRecord
from stackprobe.units import fmt_bw, fmt_bytes, fmt_ns

MIN_PAIRS = 3
BOTH_WAYS = "either direction may be the slow one (a ping-pong crosses both)"


@dataclass
class PairCell:
    a: str  # the pair's hosts, in name order
    b: str
    orders: list[str] = field(default_factory=list)  # 'h1→h2': rank 0's host first
    latency_ns: float | None = None
    bw_bytes: float | None = None
    error: str | None = None
    flags: list[str] = field(default_factory=list)  # failed, latency, bandwidth
    notes: list[str] = field(default_factory=list)  # one sentence per flag, same order

    def flag(self, kind: str, sentence: str) -> None:
        self.flags.append(kind)
        self.notes.append(sentence)


@dataclass
class MpiMatrix:
    hosts: list[str]
    cells: dict[tuple[str, str], PairCell]
    latency_size: int | None  # the message size of the latency matrix, bytes
    bw_size: int | None  # ... of the bandwidth matrix
    typical_latency_ns: float | None = None
    typical_bw_bytes: float | None = None
    host_notes: list[str] = field(default_factory=list)

    def flags(self) -> list[str]:
        """Every flagged pair's sentences, then the hosts named on their own."""
        return [n for key in sorted(self.cells) for n in self.cells[key].notes] + self.host_notes

    def cell(self, x: str, y: str) -> PairCell | None:
        return self.cells.get((min(x, y), max(x, y)))


def _common_sizes(records: Sequence[MpiPairRecord]) -> tuple[int | None, int | None]:
    sets = [{r.size_bytes for r in rec.rows} for rec in records if rec.rows and not rec.error]
    common = set.intersection(*sets) if sets else set()
    return (min(common), max(common)) if common else (None, None)


def _at(rec: MpiPairRecord, size: int | None):
    return next((r for r in rec.rows if r.size_bytes == size), None)


def _typical(cells: list[PairCell], attr: str) -> float | None:
    """The median over hosts of each host's median pair (module doc)."""
    measured = [c for c in cells if getattr(c, attr) is not None]
    if len(measured) < MIN_PAIRS:
        return None
    per_host: dict[str, list[float]] = {}
    for c in measured:
        for h in (c.a, c.b):
            per_host.setdefault(h, []).append(getattr(c, attr))
    return statistics.median(statistics.median(v) for v in per_host.values())


def _times(ratio: float) -> str:
    return f"{ratio:.0f}×" if ratio >= 10 else f"{ratio:.2g}×"


def build_mpi_matrix(records: Sequence[MpiPairRecord], *, latency_factor: float = 1.5,
                     slow_fraction: float = 0.7, flag_bandwidth: bool = True) -> MpiMatrix:
    """The matrices of `records` (client and server are host names), flagged as the module
    docstring says; no bandwidth flag when `flag_bandwidth` is False (the step measured
    each direction one way, analysis/mpi_directions.py, which tells the direction)."""
    lat_size, bw_size = _common_sizes(records)
    by_pair: dict[tuple[str, str], list[MpiPairRecord]] = {}
    for rec in records:
        if not rec.client or not rec.server:
            raise ValueError("an MPI pair record without client and server host names")
        by_pair.setdefault((min(rec.client, rec.server), max(rec.client, rec.server)), []).append(rec)
    cells = {key: _cell(key, recs, lat_size, bw_size) for key, recs in sorted(by_pair.items())}
    matrix = MpiMatrix(sorted({h for key in cells for h in key}), cells, lat_size, bw_size,
                       _typical(list(cells.values()), "latency_ns"),
                       _typical(list(cells.values()), "bw_bytes"))
    for c in cells.values():
        _flag(c, matrix, latency_factor, slow_fraction if flag_bandwidth else 0.0)
    matrix.host_notes = _hosts_named(matrix)
    return matrix


def _cell(key: tuple[str, str], recs: list[MpiPairRecord], lat_size, bw_size) -> PairCell:
    cell = PairCell(*key, orders=[f"{r.client}→{r.server}" for r in recs])
    lats, bws = [], []
    for rec in recs:
        if rec.error is not None or not rec.rows:
            cell.error = rec.error or "no row printed"
            continue
        if (row := _at(rec, lat_size)) is not None:
            lats.append(row.latency_ns)
        if (row := _at(rec, bw_size)) is not None:
            bws.append(row.bw_bytes)
    cell.latency_ns = statistics.median(lats) if lats else None
    cell.bw_bytes = statistics.median(bws) if bws else None
    return cell


def _flag(c: PairCell, m: MpiMatrix, latency_factor: float, slow_fraction: float) -> None:
    name = f"{c.a}↔{c.b}"
    if c.error is not None:
        c.flag("failed", f"{name} MPI ping-pong failed: {c.error}")
    if c.latency_ns is not None and m.typical_latency_ns:
        ratio = c.latency_ns / m.typical_latency_ns
        if ratio > latency_factor:
            c.flag("latency", f"{name} MPI latency {fmt_ns(c.latency_ns)} at "
                   f"{fmt_bytes(m.latency_size)}, {_times(ratio)} the typical pair's "
                   f"{fmt_ns(m.typical_latency_ns)}; {BOTH_WAYS}")
    if c.bw_bytes is not None and m.typical_bw_bytes:
        ratio = c.bw_bytes / m.typical_bw_bytes
        if ratio < slow_fraction:
            c.flag("bandwidth", f"{name} MPI bandwidth {fmt_bw(c.bw_bytes)} at "
                   f"{fmt_bytes(m.bw_size)}, {_times(ratio)} the typical pair's "
                   f"{fmt_bw(m.typical_bw_bytes)}; {BOTH_WAYS}")


def _hosts_named(m: MpiMatrix) -> list[str]:
    out = []
    for host in m.hosts:
        mine = [c for c in m.cells.values() if host in (c.a, c.b)]
        for kind in ("latency", "bandwidth"):
            if len(mine) >= 2 and all(kind in c.flags for c in mine):
                out.append(f"every MPI pair with {host} is flagged for {kind} ({len(mine)} "
                           f"pairs): look at {host} itself (its link, NIC or CPU)")
    return out
