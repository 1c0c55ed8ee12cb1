"""MPI one-way bandwidth between host pairs: a matrix of DIRECTIONS (sender → receiver) and
the directions that stand out, from NetPIPE's streaming test (`mpi_pairs`, `oneway: true`).

Why a second matrix beside the ping-pong's: a ping-pong crosses both ways, so a link slow in
one direction (seed 004's FDR cable; a port's receive side) slows both orders of the pair
alike. Messages streamed one way, as osu_bw streams them, tell the direction: h1→h3 slow,
h3→h1 not, says the slow side is h3's receiving one.

A direction is flagged when its bandwidth is below `slow_fraction` of the typical
direction's, or when it failed. The typical direction is the median, over the hosts, of
each host's median direction (sending or receiving), as the ping-pong matrix takes its
typical pair: one host slow to receive from 3 others touches 3 of the 12 directions of 4
hosts, and each good host's median stays a good one. It needs at least 3 measured
directions. A host every direction INTO which (two or more) is flagged is named on its own
as the likelier cause, and so is one every direction OUT OF which is.

A direction streamed more than once (the step streams a flagged one again, `oneway_recheck`)
keeps its best stream: each stream is already the best of NetPIPE's trials, the capacity of
the direction; a dip a second stream does not repeat is the hosts' (a core busy, a rank
descheduled), not the link's, and a link slow every time stays slow in every stream. The
cell lists every stream's figure in order, so a cleared dip still shows.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from stackprobe.schema.fabric_records import MpiStreamRecord
from stackprobe.units import fmt_bw, fmt_bytes

MIN_DIRECTIONS = 3


@dataclass
class DirectionCell:
    src: str  # the sender's host (rank 0)
    dst: str  # the receiver's host (rank 1)
    bw_bytes: float | None = None  # the best stream's
    error: str | None = None
    streams: list[float] | None = None  # every stream's bandwidth in order, when more than one
    flags: list[str] = field(default_factory=list)  # failed, bandwidth
    notes: list[str] = field(default_factory=list)  # one sentence per flag, same order

    def flag(self, kind: str, sentence: str) -> None:
        self.flags.append(kind)
        self.notes.append(sentence)


@dataclass
class DirectionMatrix:
    hosts: list[str]
    cells: dict[tuple[str, str], DirectionCell]  # (sender, receiver)
    size: int | None  # the message size every direction measured (the largest such)
    typical_bw_bytes: float | None = None
    host_notes: list[str] = field(default_factory=list)

    def flags(self) -> list[str]:
        return [n for key in sorted(self.cells) for n in self.cells[key].notes] + self.host_notes


def _size(records: Sequence[MpiStreamRecord]) -> int | None:
    sets = [{r.size_bytes for r in rec.rows} for rec in records if rec.rows and not rec.error]
    common = set.intersection(*sets) if sets else set()
    return max(common) if common else None


def _typical(cells: list[DirectionCell]) -> float | None:
    measured = [c for c in cells if c.bw_bytes is not None]
    if len(measured) < MIN_DIRECTIONS:
        return None
    per_host: dict[str, list[float]] = {}
    for c in measured:
        for h in (c.src, c.dst):
            per_host.setdefault(h, []).append(c.bw_bytes)
    return statistics.median(statistics.median(v) for v in per_host.values())


def _times(ratio: float) -> str:
    return f"{ratio:.0f}×" if ratio >= 10 else f"{ratio:.2g}×"


def build_direction_matrix(records: Sequence[MpiStreamRecord], *,
                           slow_fraction: float = 0.7) -> DirectionMatrix:
    """The one-way matrix of `records` (client: sender, server: receiver), flagged as the
    module docstring says; a direction streamed more than once keeps its best stream."""
    size = _size(records)
    by_dir: dict[tuple[str, str], list[MpiStreamRecord]] = {}
    for rec in records:
        if not rec.client or not rec.server:
            raise ValueError("an MPI stream record without sender and receiver host names")
        by_dir.setdefault((rec.client, rec.server), []).append(rec)
    cells = {}
    for key, recs in sorted(by_dir.items()):
        cell = DirectionCell(*key)
        bws = []
        for rec in recs:
            bw = _bw_at(rec, size)
            if bw is None:
                cell.error = rec.error or f"no row at {fmt_bytes(size)}"
            else:
                bws.append(bw)
        cell.bw_bytes = max(bws) if bws else None
        cell.streams = bws if len(bws) > 1 else None
        cells[key] = cell
    m = DirectionMatrix(sorted({h for key in cells for h in key}), cells, size,
                        _typical(list(cells.values())))
    for c in cells.values():
        name = f"{c.src}→{c.dst}"
        if c.bw_bytes is None:
            c.flag("failed", f"{name} MPI one-way bandwidth failed: {c.error}")
        elif _below(c.bw_bytes, m.typical_bw_bytes, slow_fraction):
            every = f" (the best of {len(c.streams)} streams)" if c.streams else ""
            c.flag("bandwidth", f"{name} MPI one-way bandwidth {fmt_bw(c.bw_bytes)} at "
                   f"{fmt_bytes(size)}{every}, {_times(c.bw_bytes / m.typical_bw_bytes)} the "
                   f"typical direction's {fmt_bw(m.typical_bw_bytes)}")
    m.host_notes = _hosts_named(m)
    return m


def slow_directions(m: DirectionMatrix) -> list[tuple[str, str]]:
    """The directions flagged for bandwidth (measured, below the typical's fraction): the
    ones worth streaming again. A failed one is not: its failure is already its finding."""
    return [key for key, c in sorted(m.cells.items()) if "bandwidth" in c.flags]


def still_slow(m: DirectionMatrix, rec: MpiStreamRecord, slow_fraction: float) -> bool:
    """A further stream of one of `m`'s slow directions: failed, without a row at the
    matrix's size, or below `slow_fraction` of `m`'s typical direction — the flag's rule,
    held to the first streams' typical."""
    bw = _bw_at(rec, m.size)
    return bw is None or _below(bw, m.typical_bw_bytes, slow_fraction)


def _bw_at(rec: MpiStreamRecord, size: int | None) -> float | None:
    """The stream's bandwidth at `size`; None when it failed or has no row there."""
    row = next((r for r in rec.rows if r.size_bytes == size), None)
    return None if rec.error is not None or row is None else row.bw_bytes


def _below(bw: float, typical: float | None, slow_fraction: float) -> bool:
    return bool(typical) and bw / typical < slow_fraction


def _hosts_named(m: DirectionMatrix) -> list[str]:
    out = []
    for host in m.hosts:
        into = [c for c in m.cells.values() if c.dst == host]
        out_of = [c for c in m.cells.values() if c.src == host]
        if len(into) >= 2 and all("bandwidth" in c.flags for c in into):
            out.append(f"every one-way MPI transfer into {host} is flagged for bandwidth "
                       f"({len(into)} senders): look at {host}'s receiving side (its link "
                       "in, its NIC)")
        if len(out_of) >= 2 and all("bandwidth" in c.flags for c in out_of):
            out.append(f"every one-way MPI transfer out of {host} is flagged for bandwidth "
                       f"({len(out_of)} receivers): look at {host}'s sending side (its link "
                       "out, its NIC)")
    return out
