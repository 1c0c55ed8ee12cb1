"""Firmware, memory, BMC and service settings from the settings probe's sources: BIOS and
board (sysfs DMI or dmidecode), the DIMMs (dmidecode -t memory), the BMC's firmware
(ipmitool mc info), tuned's profile, irqbalance, and the clock's synchronisation.

Why together: each is one small reading of a tool's output, and each is the kind of
setting that differs on the one host of a fleet that was serviced last (a replaced board
with an older BIOS, a DIMM of another part, a tuned profile never applied).
"""

from __future__ import annotations

from stackprobe.parsers.host.dmidecode_memory import parse_dmidecode_memory
from stackprobe.parsers.host.dmidecode_system import parse_dmidecode_system
from stackprobe.parsers.host.ipmitool_mc import parse_ipmitool_mc_info
from stackprobe.parsers.host.settings_cpu import mixed
from stackprobe.parsers.host.settings_names import DMI_FILES
from stackprobe.parsers.host.settings_sources import Collected, Sources, command_line
from stackprobe.parsers.host.time_sync import parse_chronyc_tracking, parse_timedatectl
from stackprobe.units import fmt_bytes

_DMI = "/sys/class/dmi/id"


def _firmware(src: Sources, out: Collected) -> None:
    for file, name in DMI_FILES.items():
        value = (src.file(f"{_DMI}/{file}") or "").strip()
        if value:
            out.add(name, value, f"{_DMI}/{file}")
    text = src.commands.get("dmidecode_bios.txt")
    if text and text.strip():
        source = command_line("dmidecode_bios.txt")
        try:
            found = parse_dmidecode_system(text)
        except ValueError as exc:
            if "bios.version" not in out.settings:
                out.unreadable("bios.version", source, str(exc))
        else:
            for name, value in found.items():
                if name not in out.settings:
                    out.add(name, value, source)
    text = src.commands.get("ipmitool_mc_info.txt")
    if text and text.strip():
        source = command_line("ipmitool_mc_info.txt")
        try:
            firmware = parse_ipmitool_mc_info(text).firmware
        except ValueError as exc:
            out.unreadable("bmc.firmware", source, str(exc))
        else:
            if firmware:
                out.add("bmc.firmware", firmware, source)
            else:  # a BMC that answered without saying its firmware: unknown, and said
                out.unreadable("bmc.firmware", source, "no 'Firmware Revision' line")


def _memory(src: Sources, out: Collected) -> None:
    first = (src.file("/proc/meminfo") or "").split()
    if len(first) >= 2 and first[0] == "MemTotal:":
        if first[1].isdigit() and len(first[1]) < 16:
            out.add("memory.total_kib", first[1], "/proc/meminfo")
        else:
            out.unreadable("memory.total_kib", "/proc/meminfo", "MemTotal is not a number")
    text = src.commands.get("dmidecode_memory.txt")
    if not text or not text.strip():
        return
    source = command_line("dmidecode_memory.txt")
    try:
        slots = parse_dmidecode_memory(text).system_slots()
    except ValueError as exc:
        out.unreadable("memory.dimms", source, str(exc))
        return
    if not slots:
        return
    dimms = [s for s in slots if s.populated]
    out.add("memory.dimms", f"{len(dimms)} of {len(slots)} slots", source)
    if not dimms:
        return
    sizes = [_size(s.size_bytes) for s in dimms]
    out.add("memory.dimm_size", mixed(sizes), source)
    speeds = [str(s.configured_mts) if s.configured_mts else "unknown" for s in dimms]
    out.add("memory.dimm_speed_mts", mixed(speeds), source)
    parts = [s.part_number or "unknown" for s in dimms]
    out.add("memory.dimm_part", mixed(parts), source)


def _size(n: int | None) -> str:
    """dmidecode's own form: '32 GB' for 32 GiB."""
    return fmt_bytes(n).replace(".0 ", " ").replace("iB", "B") if n else "unknown"


def _tools(src: Sources) -> set[str] | None:
    """The tools the live probe found (`which.txt`); None when not recorded."""
    text = src.commands.get("which.txt")
    if text is None:
        return None
    return {line.strip().rsplit("/", 1)[-1] for line in text.splitlines() if line.strip()}


def _running(src: Sources) -> set[str] | None:
    text = src.commands.get("running.txt")
    return None if text is None else {w.strip() for w in text.splitlines() if w.strip()}


def _services(src: Sources, out: Collected) -> None:
    tools, running = _tools(src), _running(src)
    text = src.commands.get("tuned-adm.txt", "")
    active = next((line.split(":", 1)[1].strip() for line in text.splitlines()
                   if line.startswith("Current active profile:")), None)
    profile_file = (src.file("/etc/tuned/active_profile") or "").strip()
    if active:
        out.add("tuned.profile", active, command_line("tuned-adm.txt"))
    elif profile_file:
        out.add("tuned.profile", profile_file, "/etc/tuned/active_profile")
    elif text.strip().startswith("No current active profile"):
        out.add("tuned.profile", "none", command_line("tuned-adm.txt"))
    elif tools is not None and "tuned-adm" not in tools:
        out.add("tuned.profile", "none", command_line("which.txt") + " tuned-adm")
    if running is not None:
        if "irqbalance" in running:
            out.add("irqbalance", "active", "/proc/*/comm")
        elif tools is not None and "irqbalance" not in tools:
            out.add("irqbalance", "absent", command_line("which.txt") + " irqbalance")
        else:
            out.add("irqbalance", "inactive", "/proc/*/comm")
        service = ("chrony" if "chronyd" in running else "systemd-timesyncd"
                   if "systemd-timesyn" in running else "ntpd" if "ntpd" in running else "none")
        out.add("time.service", service, "/proc/*/comm")


def _time(src: Sources, out: Collected) -> None:
    for name, parse in (("chronyc_tracking.txt", parse_chronyc_tracking),
                        ("timedatectl-timesync-status.txt", parse_timedatectl),
                        ("timedatectl.txt", parse_timedatectl)):
        text = src.commands.get(name)
        if not text or not text.strip():
            continue
        source = command_line(name)
        try:
            sync = parse(text)
        except ValueError as exc:
            if "time.sync" not in out.settings:
                out.unreadable("time.sync", source, str(exc))
            continue
        if sync.synchronized is not None and out.settings.get("time.sync") is None:
            out.add("time.sync", "synchronized" if sync.synchronized else "not synchronized",
                    source)
        if sync.offset_ms is not None and "time.offset_ms" not in out.settings:
            out.add("time.offset_ms", f"{sync.offset_ms:.3f}", source, volatile=True)


_TIMESYNCD_FLAG = "/run/systemd/timesync/synchronized"  # made by timesyncd once in sync


def _timesyncd(src: Sources, out: Collected) -> None:
    """Where no tool answered: systemd-timesyncd's flag file, when timesyncd runs."""
    if out.settings.get("time.sync") is not None:
        return
    if "systemd-timesyn" in (_running(src) or ()):
        synced = _TIMESYNCD_FLAG in src.files
        out.add("time.sync", "synchronized" if synced else "not synchronized", _TIMESYNCD_FLAG)


def system_settings(src: Sources, out: Collected) -> None:
    _firmware(src, out)
    _memory(src, out)
    _services(src, out)
    _time(src, out)
    _timesyncd(src, out)
