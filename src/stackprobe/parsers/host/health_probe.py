"""The health probe's output (one host) -> one HealthRecord.

The probe (kinds/host/health_probe_script.py) prints each part under a marker line,
`### <part> [<name>]`, and ends with `### end`. The parts are read each by its own parser
(edac.py, network/nic_counters.py, smartctl_json.py, nvme_smart_log.py, kmsg.py); a part
that cannot be read becomes one line in the record's `problems` and the others are kept —
one disk's broken JSON loses no EDAC count. Only an output cut short (no end marker) or
without its clock line is refused: nothing in it can be trusted to be whole.

Kernel-log lines come with microseconds since boot; the clock line (wall clock, uptime,
read together) turns them into wall-clock times.
"""

from __future__ import annotations

from datetime import UTC, datetime

from stackprobe.parsers.bad_input import describe, finite, guard
from stackprobe.parsers.host.edac import parse_edac
from stackprobe.parsers.host.kmsg import parse_kmsg, why_error
from stackprobe.parsers.host.nvme_smart_log import parse_nvme_smart_log
from stackprobe.parsers.host.smartctl_json import parse_smartctl_json
from stackprobe.parsers.network.nic_counters import parse_nic_counters
from stackprobe.schema.health_records import Counter, HealthRecord, KernelLine

END = "### end"
_MAX_EPOCH = 32503680000.0  # year 3000: a wall clock beyond it is not one


def _sections(text: str) -> list[tuple[list[str], str]]:
    out: list[tuple[list[str], list[str]]] = []
    for line in text.splitlines():
        if line.rstrip() == END:
            return [(words, "\n".join(body)) for words, body in out]
        if line.startswith("### "):
            out.append((line[4:].split(), []))
        elif out:
            out[-1][1].append(line)
    raise ValueError("health probe: no '### end' line: the probe's output is cut short")


def wall_of(usec: int, wall: float, uptime: float) -> str | None:
    """The ISO UTC time of a kernel timestamp, from the host's (wall, uptime) pair."""
    try:
        when = datetime.fromtimestamp(wall - uptime + usec / 1e6, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return when.isoformat(timespec="seconds").replace("+00:00", "Z")


def _clock(body: str) -> tuple[float, float]:
    parts = body.split()
    if len(parts) != 2:
        raise ValueError(f"health probe: clock line {body[:40]!r} is not 'wall uptime'")
    wall, uptime = finite(parts[0], "health probe: wall clock"), finite(parts[1], "health probe: uptime")
    if not 0 < wall < _MAX_EPOCH or not 0 <= uptime < wall:
        raise ValueError(f"health probe: clock {body[:40]!r} out of range")
    return wall, uptime


def _kernel(record: HealthRecord, source: str, body: str, since: int | None,
            wall: float, uptime: float) -> None:
    record.kmsg_source = source
    if source == "none":
        return
    lines = parse_kmsg(body, source)
    key = (lambda ln: ln.seq) if source == "kmsg" else (lambda ln: ln.usec)
    record.kmsg_cursor = max([since or 0, *(key(ln) for ln in lines)]) if lines else since
    if since is None:
        return  # the first read: only the cursor
    for ln in lines:
        why = why_error(ln.level, ln.text)
        if key(ln) > since and why is not None:
            record.kernel_errors.append(KernelLine(
                seq=ln.seq, usec=ln.usec, level=ln.level, facility=ln.facility,
                text=ln.text[:500], why=why, wall=wall_of(ln.usec, wall, uptime)))


@guard("health probe")
def parse_health_probe(text: str, host: str | None = None,
                       since: int | None = None) -> HealthRecord:
    """The host's record; `since` is the kernel-log cursor the probe was given."""
    parts = _sections(text)
    clock = [body for words, body in parts if words == ["clock"]]
    if not clock:
        raise ValueError("health probe: no '### clock' section")
    wall, uptime = _clock(clock[0])
    record = HealthRecord(host=host, uptime_s=uptime, taken=wall_of(int(uptime * 1e6), wall, uptime))
    for words, body in parts:
        what, name = (words + ["", ""])[:2]
        try:
            if what == "edac":
                record.counters.update({k: Counter(value=v, source="sysfs edac")
                                        for k, v in parse_edac(body).items()})
            elif what == "nic":
                record.counters.update({k: Counter(value=v, source="sysfs")
                                        for k, v in parse_nic_counters(body).items()})
            elif what in ("smart", "nvme") and name:
                parse = parse_smartctl_json if what == "smart" else parse_nvme_smart_log
                reading = parse(body, name=name)
                record.disks.append(reading.disk)
                record.counters.update({k: Counter(value=v, source=reading.disk.source)
                                        for k, v in reading.counters.items()})
            elif what == "kmsg":
                _kernel(record, name or "none", body, since, wall, uptime)
        except ValueError as exc:
            record.problems.append(f"{' '.join(words)}: {describe(exc)}")
    return record
