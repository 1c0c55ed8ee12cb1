"""`ceph tell osd.N perf dump -f json` -> the OSD's counters a step's delta is made of;
`ceph tell osd.* perf dump -f json` -> each OSD's own output of that; `ceph osd ls -f
json` -> the OSD ids (a one-OSD cluster's `tell osd.*` names none).

Counters only grow while the OSD runs, so the difference between a dump before a step and
one after it is what the OSD did during the step (analysis/osd_view.py). A latency
counter is a pair: `avgcount` operations took `sum` seconds in all, so the delta's
sum / avgcount is the mean over the step. Names as Pacific prints them (`perf schema`):

- client operations: op, op_r, op_w, op_rw (counts), op_latency (including the wait in
  the OSD's queue), op_process_latency (excluding it), op_r/op_w/op_rw_latency;
- op_before_dequeue_op_lat: from arrival until a worker took the op (the PG lock held);
  op_before_queue_op_lat: arrival until queued;
- subop_w / subop_w_latency: the writes this OSD applied as a replica for a primary;
- bluestore commit_lat: the object store's commit of a transaction.

A counter an older release or another object store lacks is left out, not invented.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from stackprobe.parsers.bad_input import finite, guard, loads
from stackprobe.parsers.ceph.json_fields import load

WHAT = "ceph perf dump"
COUNTS = ("op", "op_r", "op_w", "op_rw", "op_in_bytes", "op_out_bytes", "subop", "subop_w")
LATENCIES = ("op_latency", "op_process_latency", "op_r_latency", "op_w_latency",
             "op_rw_latency", "op_before_queue_op_lat", "op_before_dequeue_op_lat",
             "subop_latency", "subop_w_latency")
STORE_LATENCIES = {"bluestore.commit_lat": ("bluestore", "commit_lat")}


@dataclass(frozen=True)
class LatencyTotal:
    count: int  # avgcount: operations measured
    sum_s: float  # their latencies added up, in seconds


@dataclass(frozen=True)
class OsdCounters:
    counts: dict[str, int] = field(default_factory=dict)
    latencies: dict[str, LatencyTotal] = field(default_factory=dict)


@guard(WHAT)
def parse_perf_dump(text: str) -> OsdCounters:
    try:
        doc = loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{WHAT}: not JSON ({exc.msg})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("osd"), dict):
        raise ValueError(f"{WHAT}: no 'osd' section (not an OSD's counters)")
    osd = doc["osd"]
    counts = {name: _count(osd[name], name) for name in COUNTS if name in osd}
    latencies = {name: _pair(osd[name], name) for name in LATENCIES if name in osd}
    for key, (section, name) in STORE_LATENCIES.items():
        part = doc.get(section)
        if isinstance(part, dict) and name in part:
            latencies[key] = _pair(part[name], key)
    if "op" not in counts:
        raise ValueError(f"{WHAT}: the 'osd' section has no 'op' counter")
    return OsdCounters(counts, latencies)


def _count(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{WHAT}: {name} is not a count: {str(value)[:40]!r}")
    return value


def _pair(value: Any, name: str) -> LatencyTotal:
    if not isinstance(value, dict):
        raise ValueError(f"{WHAT}: {name} is not an avgcount/sum pair")
    total = finite(value["sum"], f"{WHAT}: {name}.sum")
    if total < 0:
        raise ValueError(f"{WHAT}: {name}.sum is negative")
    return LatencyTotal(_count(value["avgcount"], f"{name}.avgcount"), float(total))


@guard("ceph osd ls")
def parse_osd_ids(text: str) -> list[int]:
    """`ceph osd ls -f json`: [0, 1, 2]."""
    doc = load(text, "ceph osd ls", list)
    for osd in doc:
        if not isinstance(osd, int) or isinstance(osd, bool) or osd < 0:
            raise ValueError(f"ceph osd ls: not an OSD id: {str(osd)[:20]!r}")
    return sorted(set(doc))


_TARGET = re.compile(r"^osd\.(\d+): ", re.MULTILINE)


@guard("ceph tell osd.* perf dump")
def split_tell_all(text: str) -> dict[int, str]:
    """`ceph tell osd.* perf dump -f json`: {osd id: that OSD's output as `ceph tell osd.N
    perf dump` prints it}. The CLI asks each OSD in turn and, when the wildcard names more
    than one, prints each answer after an `osd.N: ` prefix (an OSD that did not answer is
    an `Error ...` line on stderr, its prefix absent). One OSD: no prefix, so no id here —
    a ValueError saying so (ask `ceph osd ls`)."""
    heads = list(_TARGET.finditer(text))
    if text[:heads[0].start() if heads else len(text)].strip():
        raise ValueError("ceph tell osd.* perf dump: an answer without its `osd.N: ` prefix "
                         "(one OSD answers unprefixed)")
    out: dict[int, str] = {}
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        osd = int(head.group(1)[:9])
        if osd in out:
            raise ValueError(f"ceph tell osd.* perf dump: osd.{osd} answered twice")
        out[osd] = text[head.end():end].strip()
    return out
