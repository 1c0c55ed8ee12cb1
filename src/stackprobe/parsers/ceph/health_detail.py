"""`ceph health detail -f json` -> the cluster's health: status, checks, and slow ops.

Read before, during and after each Ceph step (engine/ceph_watch.py) to say what the step
did to the cluster's health. Slow operations are the OSDs' own word that requests waited
longer than `osd_op_complaint_time` (30 s by default): the SLOW_OPS check (Nautilus and
later; REQUEST_SLOW / REQUEST_STUCK before) says how many, how long the oldest waited and
which daemons, in its summary (`9 slow ops, oldest one blocked for 5 sec, daemons
[osd.0,osd.2] have slow ops.`, or `osd.1 has slow ops` for one) and, in older releases,
in its detail lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from stackprobe.parsers.bad_input import guard
from stackprobe.parsers.ceph.json_fields import load

WHAT = "ceph health detail"
SLOW_CODES = ("SLOW_OPS", "REQUEST_SLOW", "REQUEST_STUCK")
_COUNT = re.compile(r"(\d{1,12}) (?:slow ops|slow requests|stuck requests)")
_OLDEST = re.compile(r"oldest one blocked for (\d{1,12}) sec")
_DAEMONS = re.compile(r"daemons \[([^\]]*)\]")
_ONE = re.compile(r"\b((?:osd|mon|mds|mgr)\.[\w.-]+) has (?:slow|stuck) (?:ops|requests)")
_NAMED = re.compile(r"\b((?:osd|mon|mds|mgr)\.[\w-]+)")


@dataclass(frozen=True)
class HealthCheck:
    code: str
    severity: str
    message: str


@dataclass(frozen=True)
class SlowOps:
    count: int
    oldest_s: int | None
    daemons: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class HealthDetail:
    status: str  # HEALTH_OK, HEALTH_WARN, HEALTH_ERR
    checks: list[HealthCheck] = field(default_factory=list)
    slow: SlowOps | None = None


@guard(WHAT)
def parse_health_detail(text: str) -> HealthDetail:
    doc = load(text, WHAT, dict)
    status = doc.get("status", doc.get("overall_status"))
    if not isinstance(status, str) or not status:
        raise ValueError(f"{WHAT}: no status")
    raw = doc.get("checks") or {}
    if not isinstance(raw, dict):
        raise ValueError(f"{WHAT}: checks is not an object")
    checks = [_check(code, c) for code, c in sorted(raw.items())]
    slow = [_slow(raw[c.code], c.message) for c in checks if c.code in SLOW_CODES]
    return HealthDetail(status, checks, _merge(slow))


def _check(code: str, c: Any) -> HealthCheck:
    message = (c.get("summary") or {}).get("message", code)
    severity = c.get("severity", "")
    if not isinstance(message, str) or not isinstance(severity, str):
        raise ValueError(f"{WHAT}: check {code[:40]}: message or severity is not text")
    return HealthCheck(code, severity, message)


def _slow(c: dict, summary: str) -> SlowOps:
    details = [d.get("message", "") for d in c.get("detail") or [] if isinstance(d, dict)]
    details = [d for d in details if isinstance(d, str)]
    m = _COUNT.search(summary)
    count = int(m.group(1)) if m else sum(int(x.group(1)) for d in details
                                          if (x := _COUNT.search(d)))
    oldest = [int(x.group(1)) for text in (summary, *details) if (x := _OLDEST.search(text))]
    daemons: list[str] = []
    if m := _DAEMONS.search(summary):
        daemons = [d.strip() for d in m.group(1).split(",") if d.strip()]
    elif m := _ONE.search(summary):
        daemons = [m.group(1)]
    for d in details:
        daemons += [n for n in _NAMED.findall(d) if n not in daemons]
    return SlowOps(count, max(oldest) if oldest else None, sorted(set(daemons)))


def _merge(found: list[SlowOps]) -> SlowOps | None:
    if not found:
        return None
    oldest = [s.oldest_s for s in found if s.oldest_s is not None]
    return SlowOps(sum(s.count for s in found), max(oldest) if oldest else None,
                   sorted({d for s in found for d in s.daemons}))
