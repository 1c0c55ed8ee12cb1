"""CPU, kernel, memory-management and sysctl settings from the settings probe's sources.

Why these: SMT, the frequency governor, turbo and the deepest C-state a core may enter
decide a node's latency and its compute figures before any storage is involved (seed 004
turns hyper-threading and power management off before its first benchmark; seed 001
reports each machine's governor and mitigations).
"""

from __future__ import annotations

import re
from collections import Counter

from stackprobe.parsers.host.kernel_cmdline import parse_cmdline
from stackprobe.parsers.host.settings_names import CMDLINE_PARAMS, SYSCTLS, sysctl_path
from stackprobe.parsers.host.settings_sources import Collected, Sources, command_line

CPU = "/sys/devices/system/cpu"
_GOVERNOR = re.compile(r"^/sys/devices/system/cpu/cpu\d+/cpufreq/scaling_governor$")
_STATE = re.compile(r"^/sys/devices/system/cpu/cpu0/cpuidle/state(\d+)/(name|latency|disable)$")
_SELECTED = re.compile(r"\[([^\]]+)\]")
_SMT = {"on", "off", "forceoff", "notsupported", "notimplemented"}


def mixed(values: list[str]) -> str:
    """One value when all agree, else 'mixed: a xN, b xM' (most common first)."""
    counts = Counter(values).most_common()
    if len(counts) == 1:
        return counts[0][0]
    return "mixed: " + ", ".join(f"{value} x{n}" for value, n in counts)


def _plain(src: Sources, out: Collected, name: str, path: str) -> None:
    text = src.file(path)
    if text is None:
        return
    if not text.strip():
        out.unreadable(name, path, "empty")
    else:
        out.add(name, " ".join(text.split()), path)


def _number(src: Sources, out: Collected, name: str, path: str) -> None:
    text = src.file(path)
    if text is None:
        return
    if text.strip().isdigit() and len(text.strip()) < 19:
        out.add(name, text.strip(), path)
    else:
        out.unreadable(name, path, f"not a number: {text.strip()[:40]!r}")


def _selected(src: Sources, out: Collected, name: str, path: str) -> None:
    text = src.file(path)
    if text is None:
        return
    m = _SELECTED.search(text)
    if m:
        out.add(name, m.group(1), path)
    else:
        out.unreadable(name, path, f"no [selected] value: {text.strip()[:40]!r}")


def _smt_and_frequency(src: Sources, out: Collected) -> None:
    path = f"{CPU}/smt/control"
    text = src.file(path)
    if text is not None:
        if text.strip() in _SMT:
            out.add("cpu.smt", text.strip(), path)
        else:
            out.unreadable("cpu.smt", path, f"not an SMT state: {text.strip()[:40]!r}")
    _number(src, out, "cpu.smt_active", f"{CPU}/smt/active")
    governors = [v.strip() for p, v in src.files.items() if _GOVERNOR.match(p) and v.strip()]
    if governors:
        out.add("cpu.governor", mixed(governors), f"{CPU}/cpu*/cpufreq/scaling_governor")
    _plain(src, out, "cpu.scaling_driver", f"{CPU}/cpu0/cpufreq/scaling_driver")
    for name, file in (("cpu.min_freq_khz", "scaling_min_freq"),
                       ("cpu.max_freq_khz", "scaling_max_freq"),
                       ("cpu.hw_max_freq_khz", "cpuinfo_max_freq")):
        _number(src, out, name, f"{CPU}/cpu0/cpufreq/{file}")
    for path, on in ((f"{CPU}/intel_pstate/no_turbo", "0"), (f"{CPU}/cpufreq/boost", "1")):
        text = src.file(path)
        if text is None:
            continue
        if text.strip() in ("0", "1"):
            out.add("cpu.turbo", "on" if text.strip() == on else "off", path)
        else:
            out.unreadable("cpu.turbo", path, f"not 0 or 1: {text.strip()[:40]!r}")
        break


def _cstates(src: Sources, out: Collected) -> None:
    _plain(src, out, "cpu.idle_driver", f"{CPU}/cpuidle/current_driver")
    states: dict[int, dict[str, str]] = {}
    for path, value in src.files.items():
        m = _STATE.match(path)
        if m and len(m.group(1)) < 4:
            states.setdefault(int(m.group(1)), {})[m.group(2)] = value.strip()
    enabled: list[tuple[int, str]] = []
    for number in sorted(states):
        state = states[number]
        base = f"{CPU}/cpu0/cpuidle/state{number}"
        name = state.get("name")
        if not name:
            continue
        if state.get("disable") not in ("0", "1"):
            out.unreadable(f"cpu.cstate.{name}.disabled", f"{base}/disable",
                           f"not 0 or 1: {state.get('disable', '')[:40]!r}")
            continue
        out.add(f"cpu.cstate.{name}.disabled", state["disable"], f"{base}/disable")
        if state["disable"] == "0":
            enabled.append((number, name))
    if not enabled:
        return
    out.add("cpu.cstates_enabled", ",".join(n for _, n in enabled),
            f"{CPU}/cpu0/cpuidle/state*/disable")
    number, name = enabled[-1]
    base = f"{CPU}/cpu0/cpuidle/state{number}"
    out.add("cpu.deepest_cstate", name, f"{base}/name")
    latency = states[number].get("latency", "")
    if latency.isdigit() and len(latency) < 12:
        out.add("cpu.deepest_cstate_latency_us", latency, f"{base}/latency")
    else:
        out.unreadable("cpu.deepest_cstate_latency_us", f"{base}/latency",
                       f"not a number: {latency[:40]!r}")


def _kernel(src: Sources, out: Collected) -> None:
    uname = src.commands.get("uname-r.txt", "").strip()
    if uname and len(uname.split()) == 1:
        out.add("kernel.version", uname, command_line("uname-r.txt"))
    else:
        _plain(src, out, "kernel.version", "/proc/sys/kernel/osrelease")
    text = src.file("/proc/cmdline")
    if text is not None:
        out.add("kernel.cmdline", text.strip(), "/proc/cmdline")
        try:
            params = parse_cmdline(text)
        except ValueError as exc:
            names = [f"kernel.cmdline.{p}" for p in CMDLINE_PARAMS]
            out.unreadable(names[0], "/proc/cmdline", str(exc), *names[1:])
        else:
            for p in CMDLINE_PARAMS:
                out.add(f"kernel.cmdline.{p}", params.get(p, "unset"), "/proc/cmdline")
    for path, value in sorted(src.files.items()):
        if path.startswith(f"{CPU}/vulnerabilities/"):
            name = path.rsplit("/", 1)[1]
            out.add(f"kernel.mitigations.{name}", value.strip() or None, path)


def _memory_management(src: Sources, out: Collected) -> None:
    _selected(src, out, "mm.thp", "/sys/kernel/mm/transparent_hugepage/enabled")
    _selected(src, out, "mm.thp_defrag", "/sys/kernel/mm/transparent_hugepage/defrag")
    recorded = _sysctl_a(src.commands.get("sysctl.txt", ""))
    for name in SYSCTLS:
        path = sysctl_path(name)
        if src.file(path) is not None:
            _plain(src, out, name, path)
        elif name in recorded:
            out.add(name, " ".join(recorded[name].split()) or None, command_line("sysctl.txt"))


def _sysctl_a(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        name, sep, value = line.partition(" = ")
        if sep:
            out.setdefault(name.strip(), value.strip())
    return out


def cpu_settings(src: Sources, out: Collected) -> None:
    _smt_and_frequency(src, out)
    _cstates(src, out)
    _kernel(src, out)
    _memory_management(src, out)
