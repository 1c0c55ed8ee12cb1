"""Health counters before vs after a run: what rose, what fell, what appeared, and which
kernel-log and SEL lines are new — each said in one sentence.

Why: an error counter is judged by its change, not its value (a disk with 8 reallocated
sectors for years is not news; 8 -> 12 during the run is). A counter that rose is a
finding. One that fell was reset (a driver reload, a reboot, a counter cleared) and is said
as such, never as a rise; a device or NIC found in one snapshot only is said too (a disk
gone from the bus during a run is the worst finding of all). New kernel-log error lines
are attributed to the step that was running at their time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from stackprobe.schema.bmc_records import SelEntry
from stackprobe.schema.health_records import HealthFinding, HealthRecord


@dataclass(frozen=True)
class StepWindow:
    """A step's id and its start and end (ISO 8601 UTC), for placing a line in time."""

    id: str
    started: str | None
    ended: str | None


def _key(iso: str | None) -> str:
    return (iso or "").replace("+00:00", "Z")[:19]  # seconds; ISO strings sort as times


def step_at(when: str | None, steps: Sequence[StepWindow]) -> str | None:
    """The step running at `when` (seconds resolution), None when none was."""
    if not when:
        return None
    at = _key(when)
    for step in steps:
        if step.started and _key(step.started) <= at <= _key(step.ended or "9999"):
            return step.id
    return None


def _device(name: str) -> str:
    """What a counter belongs to: 'EDAC mc0', 'sda', 'eth0', 'mlx5_0/1'."""
    words = name.split()
    return " ".join(words[:2]) if words[0] == "EDAC" else words[0]


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def compare_host(before: HealthRecord, after: HealthRecord) -> tuple[list[HealthFinding], int]:
    """(findings, counters compared) for one host's two snapshots."""
    host = after.host or before.host or "here"
    out: list[HealthFinding] = []
    if before.uptime_s is not None and after.uptime_s is not None \
            and after.uptime_s < before.uptime_s:
        out.append(HealthFinding(host=host, what="fell", subject="uptime", sentence=(
            f"{host}: rebooted during the run (uptime {before.uptime_s:.0f} s -> "
            f"{after.uptime_s:.0f} s): its counters started again")))
    both = [k for k in after.counters if k in before.counters]
    for name in both:
        a, b = before.counters[name].value, after.counters[name].value
        if b > a:
            out.append(HealthFinding(host=host, what="rose", subject=name, before=a, after=b,
                                     sentence=f"{host}: {name} {a} -> {b} ({_signed(b - a)})"))
        elif b < a:
            out.append(HealthFinding(host=host, what="fell", subject=name, before=a, after=b,
                                     sentence=f"{host}: {name} {a} -> {b} (fell: counter reset, "
                                              "driver reload or reboot — not a rise)"))
    for what, names, verb in (("appeared", set(after.counters) - set(before.counters), "appeared"),
                              ("gone", set(before.counters) - set(after.counters), "disappeared")):
        for device in sorted({_device(n) for n in names}):
            count = sum(1 for n in names if _device(n) == device)
            out.append(HealthFinding(host=host, what=what, subject=device, sentence=(
                f"{host}: {device} {verb} during the run ({count} counters "
                + ("not there before)" if what == "appeared" else "no longer read)"))))
    return out, len(both)


def kernel_findings(after: HealthRecord, steps: Sequence[StepWindow]) -> list[HealthFinding]:
    host = after.host or "here"
    out = []
    for line in after.kernel_errors:
        line.step = step_at(line.wall, steps)
        at = f" at {line.wall[11:19]}" if line.wall else ""
        during = f", during step {line.step}" if line.step else ""
        out.append(HealthFinding(host=host, what="kernel", subject="kernel log", step=line.step,
                                 sentence=f"{host} kernel log: {line.text[:160]!r}{at}{during}"
                                          f" ({line.why})"))
    return out


def sel_findings(bmc: str, entries: Sequence[SelEntry], steps: Sequence[StepWindow],
                 cleared: bool = False) -> list[HealthFinding]:
    out = []
    if cleared:
        out.append(HealthFinding(host=bmc, what="fell", subject="SEL", sentence=(
            f"{bmc} SEL: the log was cleared during the run: every entry counts as new")))
    for e in entries:
        step = step_at(_sel_time(e), steps)
        out.append(HealthFinding(host=bmc, what="sel", subject="SEL", step=step, sentence=(
            f"{bmc} SEL: {e.sensor}: {e.event}" + (f" ({e.direction})" if e.direction else "")
            + f" (entry {e.id}" + (f", {e.date} {e.time}" if e.date and e.time else "") + ")"
            + (f", during step {step}" if step else ""))))
    return out


def _sel_time(entry: SelEntry) -> str | None:
    """The entry's time as ISO (the BMC's clock, taken as UTC); None when undated."""
    try:
        when = datetime.strptime(f"{entry.date} {entry.time}", "%m/%d/%Y %H:%M:%S")
    except (TypeError, ValueError):
        return None  # 'Pre-Init': logged before the BMC's clock was set
    return when.isoformat() + "Z"


def compare_runs(before: Sequence[HealthRecord], after: Sequence[HealthRecord],
                 steps: Sequence[StepWindow] = ()) -> tuple[list[HealthFinding], int]:
    """Every host found in both snapshots: its counter changes and new kernel-log lines."""
    earlier = {r.host: r for r in before}
    findings: list[HealthFinding] = []
    compared = 0
    for rec in after:
        first = earlier.get(rec.host)
        if first is None:
            continue
        found, n = compare_host(first, rec)
        findings += found + kernel_findings(rec, steps)
        compared += n
    return findings, compared


def absolute_findings(record: HealthRecord) -> list[str]:
    """What is wrong from one snapshot alone: SMART's overall verdict FAILED, an NVMe
    critical warning, any uncorrected memory error (a value that is never right)."""
    host = record.host or "here"
    out = [f"{host}: {d.name} SMART overall health FAILED" for d in record.disks if d.passed is False]
    out += [f"{host}: {d.name} NVMe critical warning 0x{d.critical_warning:02x}"
            for d in record.disks if d.critical_warning]
    out += [f"{host}: {name} {c.value}" for name, c in record.counters.items()
            if name.startswith("EDAC ") and name.endswith("uncorrected errors") and c.value > 0]
    return out
