"""`ceph osd perf -f json` -> each OSD's commit and apply latency, as the manager last heard.

The manager keeps, per OSD, the latency its object store reported in the last stats
message (every few seconds): a recent value, not an average over a chosen window. Sampled
during a step (engine/ceph_watch.py), the samples' mean and maximum say how each OSD's
store kept up while the load ran. Shapes: Pacific and later nest the list under
`osdstats`; earlier releases put `osd_perf_infos` at the top. `*_latency_ns` is read when
present (Pacific), else `*_latency_ms` (whole milliseconds).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.parsers.ceph.json_fields import load

WHAT = "ceph osd perf"


@dataclass(frozen=True)
class OsdPerf:
    osd: int
    commit_ns: float
    apply_ns: float


@guard(WHAT)
def parse_osd_perf(text: str) -> list[OsdPerf]:
    """One OsdPerf per OSD, in OSD order."""
    doc = load(text, WHAT, dict)
    infos = (doc.get("osdstats") or doc).get("osd_perf_infos")
    if not isinstance(infos, list):
        raise ValueError(f"{WHAT}: no osd_perf_infos list")
    out = [_one(info) for info in infos]
    if len({p.osd for p in out}) != len(out):
        raise ValueError(f"{WHAT}: an OSD is listed twice")
    return sorted(out, key=lambda p: p.osd)


def _one(info: Any) -> OsdPerf:
    osd = info["id"]
    if not isinstance(osd, int) or isinstance(osd, bool) or osd < 0:
        raise ValueError(f"{WHAT}: OSD id is not a number: {str(osd)[:20]!r}")
    stats = info["perf_stats"]
    return OsdPerf(osd, _latency(stats, "commit", osd), _latency(stats, "apply", osd))


def _latency(stats: dict, which: str, osd: int) -> float:
    if f"{which}_latency_ns" in stats:
        value = finite(stats[f"{which}_latency_ns"], f"{WHAT}: osd.{osd} {which}_latency_ns")
    else:
        value = finite(stats[f"{which}_latency_ms"], f"{WHAT}: osd.{osd} {which}_latency_ms") * 1e6
    if value < 0:
        raise ValueError(f"{WHAT}: osd.{osd} {which} latency is negative")
    return float(value)
