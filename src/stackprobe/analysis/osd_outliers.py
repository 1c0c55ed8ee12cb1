"""Which OSDs are slower than their peers? (seed 002's per-OSD dd, judged automatically).

Peers are OSDs of the same device class: an HDD is not slow for being slower than an
NVMe. An OSD is flagged when its bandwidth is more than `threshold_pct` below the median
of its class; classes with fewer than 3 OSDs have no meaningful median and are not judged.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from stackprobe.schema.records import OsdBenchRecord
from stackprobe.units import fmt_bw

MIN_PEERS = 3


@dataclass(frozen=True)
class OsdVerdict:
    osd: int
    device_class: str
    bw_bytes: float
    class_median: float | None
    deviation_pct: float | None  # (bw - median) / median, in %
    slow: bool

    def sentence(self) -> str:
        return (f"osd.{self.osd} ({self.device_class}) wrote {fmt_bw(self.bw_bytes)}, "
                f"{-self.deviation_pct:.0f}% below the median of its class "
                f"({fmt_bw(self.class_median)})")


def judge_osds(records: Sequence[OsdBenchRecord], threshold_pct: float) -> list[OsdVerdict]:
    by_class: dict[str, list[OsdBenchRecord]] = {}
    for r in records:
        by_class.setdefault(r.device_class or "unknown", []).append(r)
    verdicts = []
    for cls, recs in by_class.items():
        median = statistics.median(r.bw_bytes for r in recs) if len(recs) >= MIN_PEERS else None
        for r in recs:
            dev = (r.bw_bytes - median) / median * 100 if median else None
            slow = dev is not None and dev < -threshold_pct
            verdicts.append(OsdVerdict(r.osd, cls, r.bw_bytes, median, dev, slow))
    return sorted(verdicts, key=lambda v: v.osd)
