"""`chronyc tracking` and `timedatectl` (status and `timesync-status`) -> whether the
clock is synchronised and by how much it is off.

Why: storage daemons and the run's own per-second series are compared across hosts by
their clocks; a host whose time daemon lost its source drifts by milliseconds an hour,
and Ceph's monitors warn of clock skew past 50 ms.

chronyc: 'Leap status : Normal' (or insert/delete second) means synchronised, 'Not
synchronised' not; 'System time : 0.000006523 seconds slow of NTP time' is the offset
(slow: the clock is behind, a negative offset). timedatectl: 'System clock synchronized:
yes' ('NTP synchronized:' before systemd 239); timesync-status: 'Offset: -1.234ms'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackprobe.parsers.bad_input import finite, guard

_FIELD = re.compile(r"^\s*([A-Za-z][A-Za-z ()]*?)\s*:\s*(.*?)\s*$")
_SYSTEM_TIME = re.compile(r"^([0-9.]+) seconds (fast|slow) of NTP time$")
_OFFSET = re.compile(r"^([+-]?[0-9.]+)\s*(ns|us|µs|ms|s)$")
_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1000.0}
_LIMIT_MS = 1e12  # beyond any clock


@dataclass
class ClockSync:
    synchronized: bool | None = None
    offset_ms: float | None = None


def _fields(text: str) -> dict[str, tuple[int, str]]:
    out: dict[str, tuple[int, str]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        m = _FIELD.match(line)
        if m:
            out.setdefault(m.group(1), (number, m.group(2)))
    return out


def _bounded(ms: float, what: str) -> float:
    if abs(ms) > _LIMIT_MS:
        raise ValueError(f"{what} is out of range: {ms:g} ms")
    return ms


@guard("chronyc tracking")
def parse_chronyc_tracking(text: str) -> ClockSync:
    f = _fields(text)
    if "Leap status" not in f and "System time" not in f:
        raise ValueError("chronyc tracking: no 'Leap status' or 'System time' line")
    out = ClockSync()
    leap = f.get("Leap status", (0, ""))[1]
    if leap:
        out.synchronized = leap != "Not synchronised"
    if "System time" in f:
        number, value = f["System time"]
        m = _SYSTEM_TIME.match(value)
        if not m:
            raise ValueError(f"chronyc tracking: line {number}: System time: {value[:40]!r}")
        seconds = finite(m.group(1), f"chronyc tracking: line {number}: System time")
        ms = seconds * 1000.0 * (1 if m.group(2) == "fast" else -1)
        out.offset_ms = _bounded(ms, f"chronyc tracking: line {number}: System time")
    return out


@guard("timedatectl")
def parse_timedatectl(text: str) -> ClockSync:
    """`timedatectl` (status) or `timedatectl timesync-status`: whichever lines are there."""
    f = _fields(text)
    out = ClockSync()
    for key in ("System clock synchronized", "NTP synchronized"):
        if key in f:
            out.synchronized = {"yes": True, "no": False}.get(f[key][1])
            break
    if "Offset" in f:
        number, value = f["Offset"]
        m = _OFFSET.match(value)
        if not m:
            raise ValueError(f"timedatectl: line {number}: Offset: {value[:40]!r}")
        ms = finite(m.group(1), f"timedatectl: line {number}: Offset") * _MS[m.group(2)]
        out.offset_ms = _bounded(ms, f"timedatectl: line {number}: Offset")
    if out.synchronized is None and out.offset_ms is None and "Server" not in f:
        raise ValueError("timedatectl: no 'System clock synchronized' or 'Offset' line")
    return out
