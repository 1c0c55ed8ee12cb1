"""A dump of NIC and InfiniBand counter files -> {counter: value}.

The soak reads each host's counters before and after its load with one command whose
output is this dump: a begin marker, `grep -H . <files>` (one `path:value` line per
readable counter file), an end marker. The markers tell a dump read whole from one cut
short (a host gone mid-read); a file the kernel refuses to read (some InfiniBand counters
of some drivers) is simply absent.

Keys name the counter where it lives: `eth0 rx_dropped` for
/sys/class/net/eth0/statistics/rx_dropped, `mlx5_0/1 symbol_error` for
/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error. Values are whole counts.
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import guard

BEGIN = "## stackprobe nic counters"
END = "## end of nic counters"
NET_DIR = "/sys/class/net"
IB_DIR = "/sys/class/infiniband"

_NET = re.compile(r"^/sys/class/net/([^/\s:]+)/statistics/([A-Za-z0-9_]+)$")
_IB = re.compile(r"^/sys/class/infiniband/([^/\s:]+)/ports/(\d+)/counters/([A-Za-z0-9_]+)$")
_MAX = 2**64  # the widest counter the kernel keeps


def dump_script(nic: str | None) -> str:
    """The shell line that prints the dump: `nic`'s statistics (every interface's when it
    is not known) and every InfiniBand port's counters."""
    net = f"{NET_DIR}/{nic}/statistics/*" if nic else f"{NET_DIR}/*/statistics/*"
    return (f"echo '{BEGIN}'; grep -s -H . {net} {IB_DIR}/*/ports/*/counters/*; "
            f"echo '{END}'")


def counter_key(path: str) -> str | None:
    """'eth0 rx_dropped' or 'mlx5_0/1 symbol_error' for a counter file's path; None for
    any other path."""
    m = _NET.match(path)
    if m:
        return f"{m.group(1)} {m.group(2)}"
    m = _IB.match(path)
    if m:
        return f"{m.group(1)}/{m.group(2)} {m.group(3)}"
    return None


@guard("nic counters")
def parse_nic_counters(text: str) -> dict[str, int]:
    """{key: value} of one dump; ValueError naming the line when it is not one."""
    lines = text.splitlines()
    try:
        first = next(i for i, ln in enumerate(lines) if ln.strip() == BEGIN)
    except StopIteration:
        raise ValueError(f"nic counters: no '{BEGIN}' line: not a counters dump") from None
    out: dict[str, int] = {}
    for number, line in enumerate(lines[first + 1:], start=first + 2):
        text_line = line.strip()
        if text_line == END:
            return out
        if not text_line:
            continue
        path, sep, value = text_line.rpartition(":")
        key = counter_key(path) if sep else None
        if key is None:
            raise ValueError(f"nic counters line {number}: not a counter file's "
                             f"'path:value': {text_line[:80]!r}")
        if not value.isdigit() or int(value) >= _MAX:
            raise ValueError(f"nic counters line {number}: {key}: {value[:30]!r} is not a count")
        out[key] = int(value)
    raise ValueError(f"nic counters: cut short (no '{END}' line after line {len(lines)})")
