"""InfiniBand port values as the kernel writes them in sysfs, and `ibstatus` (which prints
those same files) -> link records.

Why apart: the rate string is the one place a port's speed, width and generation are said
together ('100 Gb/sec (4X EDR)', '56 Gb/sec (4X FDR)'); the sysfs dump, ibstatus and the
fleet sentences all read it the same way. State files carry a number before the word
('4: ACTIVE', '5: LinkUp'): the word is kept.
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.schema.link_records import LinkRecord

_RATE = re.compile(r"^\s*([0-9.]+)\s*Gb/sec(?:\s*\((\d+X)\s*([A-Za-z0-9]+)?\))?\s*$")
_MAX_GBPS = 100_000.0  # beyond any InfiniBand generation: not a rate the kernel writes
_DEVICE = re.compile(r"^Infiniband device '([^']+)' port (\d+) status:\s*$")


def parse_ib_rate(text: str) -> tuple[float, str | None, str | None]:
    """(Mb/s, width, generation) of a rate string: '100 Gb/sec (4X EDR)' ->
    (100000.0, '4X', 'EDR'); ValueError when it is not one."""
    m = _RATE.match(text)
    if not m:
        raise ValueError(f"IB rate: not 'N Gb/sec (WIDTH GEN)': {text.strip()[:40]!r}")
    gbps = finite(m.group(1), "IB rate")
    if not 0 <= gbps <= _MAX_GBPS:
        raise ValueError(f"IB rate: {gbps} Gb/sec is out of range")
    return gbps * 1000.0, m.group(2), m.group(3)


def state_word(text: str) -> str | None:
    """'4: ACTIVE' -> 'ACTIVE', 'LinkUp' -> 'LinkUp', '' -> None."""
    value = text.strip()
    if not value:
        return None
    return value.split(":", 1)[1].strip() or None if ":" in value else value


def apply_port_value(record: LinkRecord, key: str, value: str) -> None:
    """One sysfs file of a port (rate, state, phys_state, link_layer) into its record."""
    if key == "rate":
        record.rate_text = value.strip() or None
        if record.rate_text:
            record.speed_mbps, record.width, record.generation = parse_ib_rate(value)
    elif key == "state":
        record.state = state_word(value)
    elif key in ("phys_state", "phys state"):
        record.phys_state = state_word(value)
    elif key == "link_layer":
        record.link_layer = value.strip() or None


@guard("ibstatus")
def parse_ibstatus(text: str, host: str | None = None) -> list[LinkRecord]:
    """`ibstatus` output: one record per 'Infiniband device ... port N status:' block."""
    out: list[LinkRecord] = []
    current: LinkRecord | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        m = _DEVICE.match(line.strip())
        if m:
            current = LinkRecord(host=host, name=f"{m.group(1)}/{m.group(2)}", link="ib",
                                 source="ibstatus")
            out.append(current)
            continue
        if current is None or ":" not in line:
            continue
        key, value = (part.strip() for part in line.split(":", 1))
        try:
            apply_port_value(current, key, value)
        except ValueError as exc:
            raise ValueError(f"ibstatus: line {number}: {exc}") from None
    if not out:
        raise ValueError("ibstatus: no 'Infiniband device ... port N status:' block")
    return out
