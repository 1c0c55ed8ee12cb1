"""The settings probe: one POSIX sh script per host that prints every file and command
output the host's settings are read from, each under a marker line
(parsers/host/settings_probe.py reads it).

Why one script: a host behind SSH answers in one round trip, and the output is one file in
the step's directory, kept whole whatever the parser makes of it. It only reads: files
with the shell's own `read` (no process per file: a host with 200 CPUs answers in a few
milliseconds), and commands that print what is set (`ethtool -g/-k/-i`, `chronyc
tracking`, `timedatectl`, `tuned-adm active`; `dmidecode` only as root, `ipmitool mc info`
only where the host has a local BMC device), each only where installed. Nothing that
waits (no sleep), wakes a disk (no smartctl) or writes.

Given a probe root, the script reads `<root>/sys/...`, `<root>/proc/...`, `<root>/etc/...`
and the recorded command outputs under `<root>/commands/` (ethtool-g_<nic>.txt,
ethtool-k_<nic>.txt, ethtool-i_<nic>.txt, dmidecode_bios.txt, dmidecode_memory.txt,
ipmitool_mc_info.txt, chronyc_tracking.txt, timedatectl.txt,
timedatectl-timesync-status.txt, tuned-adm.txt, uname-r.txt, sysctl.txt, running.txt,
which.txt) instead of the live ones: a recorded tree is probed by the same code as a host.
Markers name a file by its path on the host (without the root): that path is the
setting's source.
"""

from __future__ import annotations

from stackprobe.parsers.host.settings_names import (
    DISK_FILES,
    DMI_FILES,
    NOT_DISKS,
    SERVICES,
    SYSCTLS,
    TOOLS,
    sysctl_path,
)

_HEAD = r"""
R=$1
if [ -n "$R" ] && [ ! -d "$R" ]; then echo "probe root $R: no such directory" >&2; exit 3; fi
mark() { printf '### %s\n' "$*"; }
one() { [ -r "$R$1" ] || return 0; v=; IFS= read -r v < "$R$1" 2>/dev/null; mark f "$1"; printf '%s\n' "$v"; }
whole() { [ -r "$R$1" ] || return 0; mark f "$1"; cat "$R$1" 2>/dev/null; echo; }
link() { [ -L "$R$1" ] || return 0; l=$(readlink "$R$1"); mark l "$1"; printf '%s\n' "${l##*/}"; }
has() { [ -z "$R" ] && command -v "$1" >/dev/null 2>&1; }
C=/sys/devices/system/cpu
one $C/smt/control; one $C/smt/active
for d in "$R"$C/cpu[0-9]*; do [ -d "$d" ] && one "${d#"$R"}/cpufreq/scaling_governor"; done
for f in scaling_driver scaling_min_freq scaling_max_freq cpuinfo_max_freq; do one $C/cpu0/cpufreq/$f; done
one $C/intel_pstate/no_turbo; one $C/cpufreq/boost; one $C/cpuidle/current_driver
for s in "$R"$C/cpu0/cpuidle/state[0-9]*; do
  [ -d "$s" ] || continue; s=${s#"$R"}; one $s/name; one $s/latency; one $s/disable
done
for f in "$R"$C/vulnerabilities/*; do [ -f "$f" ] && one "${f#"$R"}"; done
one /proc/cmdline; one /proc/sys/kernel/osrelease; one /proc/meminfo
one /sys/kernel/mm/transparent_hugepage/enabled; one /sys/kernel/mm/transparent_hugepage/defrag
one /etc/tuned/active_profile
[ -e "$R/run/systemd/timesync/synchronized" ] && mark f /run/systemd/timesync/synchronized
"""

_DEVICES = r"""
for d in "$R"/sys/class/net/*; do
  [ -e "$d/device" ] || [ -L "$d/device" ] || continue
  n=${d##*/}; one /sys/class/net/$n/mtu; link /sys/class/net/$n/device/driver
  if has ethtool; then
    for o in g k i; do mark cmd "ethtool-${o}_$n.txt"; ethtool -$o "$n" 2>/dev/null; done
  fi
done
for d in "$R"/sys/block/*; do
  [ -e "$d" ] || continue; n=${d##*/}
  case $n in %(not_disks)s) continue;; esac
  for f in %(disk_files)s; do one /sys/block/$n/$f; done
done
whole /proc/mounts
"""

_COMMANDS = r"""
if [ -n "$R" ]; then
  for f in "$R"/commands/*; do [ -r "$f" ] || continue; mark cmd "${f##*/}"; cat "$f"; echo; done
else
  mark cmd which.txt; for t in %(tools)s; do command -v $t 2>/dev/null; done
  RUN=$(for p in /proc/[0-9]*/comm; do c=; read -r c < $p 2>/dev/null; case $c in %(services)s) echo "$c";; esac; done | sort -u)
  mark cmd running.txt; [ -n "$RUN" ] && printf '%%s\n' "$RUN"
  mark cmd uname-r.txt; uname -r
  if has tuned-adm; then mark cmd tuned-adm.txt; tuned-adm active 2>/dev/null; fi
  case $RUN in *chronyd*) if has chronyc; then mark cmd chronyc_tracking.txt; chronyc -n tracking 2>/dev/null; fi;; esac
  if has timedatectl && [ -d /run/systemd/system ]; then
    mark cmd timedatectl.txt; timedatectl 2>/dev/null
    case $RUN in *systemd-timesyn*) mark cmd timedatectl-timesync-status.txt; timedatectl timesync-status 2>/dev/null;; esac
  fi
  if has dmidecode && [ -r /sys/firmware/dmi/tables/DMI ]; then
    mark cmd dmidecode_memory.txt; dmidecode -t memory 2>/dev/null
    if [ ! -r /sys/class/dmi/id/bios_version ]; then
      mark cmd dmidecode_bios.txt; dmidecode -t bios -t baseboard -t system 2>/dev/null
    fi
  fi
  if has ipmitool && { [ -e /dev/ipmi0 ] || [ -e /dev/ipmi/0 ] || [ -e /dev/ipmidev/0 ]; }; then
    mark cmd ipmitool_mc_info.txt
    if command -v timeout >/dev/null 2>&1; then timeout 10 ipmitool mc info 2>/dev/null; else ipmitool mc info 2>/dev/null; fi
  fi
fi
mark end
"""


def _script() -> str:
    # /proc/sys files answer only a read from their start (the shell's `read` takes a
    # byte at a time): one grep prints them all as 'path:value' lines
    sysctls = " ".join(sysctl_path(name)[1:] for name in SYSCTLS)
    dmi = " ".join(f"/sys/class/dmi/id/{f}" for f in DMI_FILES)
    files = (f"for f in {dmi}; do one $f; done\n"
             f"mark lines; (cd \"$R/\" && grep -H '' {sysctls} 2>/dev/null)\n")
    devices = _DEVICES % {"not_disks": "|".join(f"{p}*" for p in NOT_DISKS),
                          "disk_files": " ".join(dict.fromkeys(DISK_FILES))}
    commands = _COMMANDS % {"tools": " ".join(TOOLS), "services": "|".join(SERVICES)}
    return _HEAD + files + devices + commands


SCRIPT = _script()


def probe_argv(root: str | None) -> list[str]:
    """The probe's command line: the script and the probe root ('' for the live host)."""
    return ["sh", "-c", SCRIPT, "settings-probe", root or ""]
