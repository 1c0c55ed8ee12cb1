"""What `stackprobe doctor --hosts` reads back from each host: one shell probe's lines.

The probe (cli/doctor_hosts.py writes it) prints, tab-separated:

    tool<TAB>fio<TAB>yes              # `command -v fio` found it (no: it did not)
    space<TAB>/srv/bench<TAB>1234 4096  # `stat -f -c '%a %S'`: free blocks, block size
    space<TAB>/scratch<TAB>?            # stat could not read the directory

and `date +%s.%N` on its own is read by `parse_clock`. Anything else is refused in one line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stackprobe.parsers.bad_input import finite


@dataclass
class HostProbe:
    tools: dict[str, bool] = field(default_factory=dict)  # name → on the PATH
    # directory → free bytes (None: stat could not read it)
    free_bytes: dict[str, int | None] = field(default_factory=dict)


def parse_doctor_probe(text: str) -> HostProbe:
    probe = HostProbe()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if parts[0] == "tool" and len(parts) == 3 and parts[2] in ("yes", "no") and parts[1]:
            probe.tools[parts[1]] = parts[2] == "yes"
        elif parts[0] == "space" and len(parts) == 3 and parts[1].startswith("/"):
            probe.free_bytes[parts[1]] = _free(parts[2], number)
        else:
            raise ValueError(f"doctor probe line {number}: not a tool or space line: "
                             f"{line[:80]!r}")
    return probe


def _free(text: str, number: int) -> int | None:
    if text.strip() == "?":
        return None
    words = text.split()
    if len(words) != 2 or not all(w.isascii() and w.isdigit() and len(w) <= 20 for w in words):
        raise ValueError(f"doctor probe line {number}: space: {text[:60]!r} is not "
                         "'free-blocks block-size'")
    return int(words[0]) * int(words[1])


def parse_clock(text: str) -> float:
    """`date +%s.%N`: seconds since the epoch."""
    value = text.strip()
    digits = value.replace(".", "", 1)
    if not value or len(value) > 40 or not (digits.isascii() and digits.isdigit()):
        raise ValueError(f"date +%s.%N: {value[:60]!r} is not seconds since the epoch")
    return finite(value, "date +%s.%N")
