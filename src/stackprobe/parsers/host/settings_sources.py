"""The settings probe's output split into its sources, and the collector the settings are
gathered in (parsers/host/settings_probe.py reads the one into the other).

The probe (kinds/host/settings_probe_script.py) prints, ending with `### end`:

    ### f /sys/devices/system/cpu/smt/control     a file (its path on the host)
    ### l /sys/class/net/eth0/device/driver       the last name a symbolic link points to
    ### lines                                     'proc/sys/vm/swappiness:60' lines
    ### cmd ethtool-g_eth0.txt                    a command's output, by its recorded name
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stackprobe.schema.settings_records import Setting

MARK = "### "
END = "### end"

# a recorded output's name -> the command line as run on the host
_COMMANDS = {
    "ethtool-g": "ethtool -g", "ethtool-k": "ethtool -k", "ethtool-i": "ethtool -i",
    "dmidecode_bios.txt": "dmidecode -t bios -t baseboard -t system",
    "dmidecode_memory.txt": "dmidecode -t memory", "ipmitool_mc_info.txt": "ipmitool mc info",
    "chronyc_tracking.txt": "chronyc -n tracking", "timedatectl.txt": "timedatectl",
    "timedatectl-timesync-status.txt": "timedatectl timesync-status",
    "tuned-adm.txt": "tuned-adm active", "uname-r.txt": "uname -r", "sysctl.txt": "sysctl -a",
    "running.txt": "/proc/*/comm", "which.txt": "command -v",
}


def command_line(name: str) -> str:
    """The command line a recorded output's name stands for ('ethtool-g_eth0.txt' ->
    'ethtool -g eth0')."""
    if name in _COMMANDS:
        return _COMMANDS[name]
    head, _, nic = name.removesuffix(".txt").partition("_")
    return f"{_COMMANDS[head]} {nic}" if head in _COMMANDS and nic else name


@dataclass
class Sources:
    files: dict[str, str] = field(default_factory=dict)  # path on the host -> text
    links: dict[str, str] = field(default_factory=dict)
    commands: dict[str, str] = field(default_factory=dict)  # recorded name -> output

    def file(self, path: str) -> str | None:
        return self.files.get(path)


def read_sources(text: str) -> Sources:
    """Every section of the probe's output; ValueError when it does not end with the end
    marker (cut short)."""
    out = Sources()
    current: list[str] | None = None
    kind, name = "", ""
    ended = False

    def close() -> None:
        if current is None:
            return
        body = "\n".join(current).strip("\n")
        if kind == "f":
            out.files[name] = body
        elif kind == "l":
            out.links[name] = body.strip()
        elif kind == "cmd":
            out.commands[name] = body
        elif kind == "lines":
            for line in current:
                path, sep, value = line.partition(":")
                if sep and path and not path.startswith("#"):
                    out.files.setdefault("/" + path.lstrip("/"), value)

    for line in text.splitlines():
        if line.rstrip() == END:
            ended = True
            break
        if line.startswith(MARK):
            close()
            kind, _, name = line[len(MARK):].strip().partition(" ")
            name = name.strip()
            current = []
        elif current is not None:
            current.append(line)
    if not ended:
        raise ValueError("settings probe: no '### end' line: the probe's output is cut short")
    close()
    return out


@dataclass
class Collected:
    settings: dict[str, Setting] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    host: str | None = None

    def add(self, name: str, value: str | None, source: str, volatile: bool = False) -> None:
        self.settings[name] = Setting(value=value, source=source, volatile=volatile)

    def unreadable(self, name: str, source: str, why: str, *also: str) -> None:
        """A source that is there but says nothing this parser can read: the setting (and
        the others it would have given, `also`) unknown (None), and one warning says why."""
        for each in (name, *also):
            self.add(each, None, source)
        self.warnings.append(f"{self.host or 'host'}: {name}: {source}: {why}"[:300])
