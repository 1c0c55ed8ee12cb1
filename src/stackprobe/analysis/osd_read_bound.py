"""The bound the OSDs' devices put on a client read (docs/ceilings.md, "OSD devices").

A client reads each object from its primary OSD alone, and balanced placement gives each
of the n OSDs 1/n of the objects, so the slowest OSD's device sets the pace of the pool:
n × the slowest OSD's read — not the sum, which would hold only if every OSD were as fast
as the fastest. The figures are `osd_read`'s (each OSD's device read in place): an IOPS
rung takes random reads of 64 KiB or less, a bandwidth rung reads of larger blocks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from stackprobe.analysis.ladder_inputs import OsdRead
from stackprobe.units import fmt_bw, fmt_iops

SMALL_BLOCK = 64 * 1024  # at or below: an IOPS figure (osd bench's and osd_read's alike)
SLOW_OSD = 0.70  # an OSD below this fraction of the median sets the pace of the pool


def pace_setter(osd: int, host: str | None, value: float, median: float
                ) -> tuple[str | None, str]:
    """(culprit, words) for the slowest OSD of a pool-wide term: 'osd.2' and why it sets the
    pace when it is far below the median OSD, else (None, '')."""
    if value >= SLOW_OSD * median:
        return None, ""
    return f"osd.{osd}", (f" — osd.{osd} on {host or '?'} is {value / median:.2f}× the "
                          "median OSD and sets the pace of the pool")


@dataclass(frozen=True)
class ReadBound:
    value: float  # B/s, or IOPS for an IOPS rung
    text: str
    inputs: tuple[str, ...]
    culprit: str | None  # "osd.2" when one OSD is far below the others


def osd_read_bound(osd_reads: Sequence[OsdRead], iops: bool) -> ReadBound | str:
    """The bound, or what is missing for it (in words)."""
    if iops:
        fit = [r for r in osd_reads if r.rw == "randread" and r.block_bytes <= SMALL_BLOCK]
    else:
        fit = [r for r in osd_reads if r.block_bytes > SMALL_BLOCK]
    reads = sorted({r.osd: r for r in fit}.values(), key=lambda r: r.osd)  # the last of each
    if not reads:
        return ("OSD random-read IOPS (osd_read rw=randread, bs 64K or less)" if iops
                else "OSD read rate (osd_read with bs above 64K)")

    def figure(r: OsdRead) -> float:
        return r.iops if iops else r.bw_bytes

    slowest = min(reads, key=figure)
    figures = [figure(r) for r in reads]
    median = sorted(figures)[len(figures) // 2]
    shown = f"{fmt_iops(figure(slowest))} IOPS" if iops else fmt_bw(figure(slowest))
    text = f"{len(reads)} OSDs × slowest osd.{slowest.osd} device read {shown}"
    if any(r.upper_bound for r in reads):
        text += " (an upper bound: a block file's holes may have been read)"
    culprit, why = pace_setter(slowest.osd, slowest.host, figure(slowest), median)
    text += why
    inputs = tuple(f"osd.{r.osd} read {fmt_bw(r.bw_bytes)}, {fmt_iops(r.iops)} IOPS ({r.step})"
                   for r in reads)
    return ReadBound(len(reads) * figure(slowest), text, inputs, culprit)
