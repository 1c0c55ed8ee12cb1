"""`dmidecode -t memory` (or a whole `dmidecode` dump) -> every memory slot, in order.

Why slot by slot: a summary ('11 of 12 DIMMs') says that a DIMM is missing, not where.
Which slot is empty, and so which memory channel of which socket runs without a DIMM, is
what explains a node at two thirds of its twins' STREAM bandwidth (seed report 004), and
it is kept in the inventory record so that a run remembers it.

Read from the SMBIOS records dmidecode decodes (DMTF DSP0134):
- type 16 'Physical Memory Array': `Use` (only 'System Memory' arrays hold main memory),
  `Number Of Devices` (the board's slot count; a few BIOSes list only populated slots as
  type 17), `Maximum Capacity`;
- type 17 'Memory Device', one per slot: `Size` ('No Module Installed' for an empty slot,
  'Unknown' when the firmware does not say), `Locator` and `Bank Locator` (vendor-specific
  slot names: analysis/dimm_locators.py reads sockets and channels from them), `Type`,
  `Form Factor`, `Speed` (rated) and `Configured Memory Speed` ('Configured Clock Speed'
  before dmidecode 3.1; MT/s, 'MHz' in older versions), `Rank`, `Manufacturer`,
  `Part Number`, `Memory Technology` (DRAM, or Optane persistent memory).

Values dmidecode prints for 'not known' ('Unknown', 'Not Specified', 'Not Provided',
'None') are left out. Text that is not dmidecode's raises ValueError naming the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from stackprobe.parsers.bad_input import guard
from stackprobe.units import parse_size

_HANDLE = re.compile(r"^Handle (0x[0-9A-Fa-f]+), DMI type (\d+)")
_FIELD = re.compile(r"^\s+([^:\n]+?):\s*(.*?)\s*$")
_SPEED = re.compile(r"^(\d{1,6}) (?:MT/s|MHz)$")
_COUNT = re.compile(r"^\d{1,5}$")
_UNKNOWN = {"", "Unknown", "Not Specified", "Not Provided", "None", "Other", "<OUT OF SPEC>"}
# What dmidecode prints when there is nothing to decode (no SMBIOS table: many VMs).
_NO_TABLE = ("# dmidecode", "# No SMBIOS", "Scanning /dev/mem", "Getting SMBIOS data",
             "SMBIOS ", "Table at ", "No SMBIOS nor DMI entry point found")
_TITLES = {"Physical Memory Array": 16, "Memory Device": 17}


@dataclass
class MemoryArray:
    """One Physical Memory Array (type 16): a set of slots, usually one per socket or
    memory controller."""

    handle: str | None = None
    use: str | None = None  # 'System Memory'; others (Flash, Video Memory) are not RAM
    devices: int | None = None  # the slots it has
    max_capacity_bytes: int | None = None


@dataclass
class DimmSlot:
    """One Memory Device (type 17): a slot, with its module when one is installed."""

    locator: str | None = None
    bank_locator: str | None = None
    populated: bool | None = None  # None: the firmware gives no size
    size_bytes: int | None = None
    type: str | None = None  # DDR4, DDR5
    form_factor: str | None = None
    speed_mts: int | None = None  # rated
    configured_mts: int | None = None  # what it runs at
    rank: int | None = None
    manufacturer: str | None = None
    part_number: str | None = None
    technology: str | None = None  # DRAM; Intel Optane persistent memory
    array: int | None = None  # index into DmiMemory.arrays


@dataclass
class DmiMemory:
    arrays: list[MemoryArray] = field(default_factory=list)
    slots: list[DimmSlot] = field(default_factory=list)

    def system_slots(self) -> list[DimmSlot]:
        """The slots of main memory: those of arrays used as system memory (or of none
        known), not a flash or video array's."""
        return [s for s in self.slots if s.array is None
                or self.arrays[s.array].use in (None, "System Memory")]


def _records(text: str) -> list[tuple[int, str | None, dict[str, tuple[int, str]]]]:
    """(type, handle, {field: (line number, value)}) for each type 16/17 record.

    A record starts at its 'Handle 0x..., DMI type N' line (with `dmidecode -q` there is
    none: the title line starts it, and the handle is unknown) and ends at a blank line."""
    out: list[tuple[int, str | None, dict[str, tuple[int, str]]]] = []
    current: dict[str, tuple[int, str]] | None = None
    pending: tuple[str, int] | None = None  # the last Handle line: (handle, type)
    for number, line in enumerate(text.splitlines(), 1):
        handle = _HANDLE.match(line)
        if handle:
            pending, current = (handle.group(1), int(handle.group(2))), None
            continue
        if not line.strip():
            pending = current = None
            continue
        title = _TITLES.get(line.strip()) if not line[:1].isspace() else None
        if title is not None and (pending is None or pending[1] == title):
            current = {}
            out.append((title, pending[0] if pending else None, current))
            pending = None
            continue
        if current is not None and (m := _FIELD.match(line)):
            current.setdefault(m.group(1), (number, m.group(2)))
    return out


def _value(info: dict[str, tuple[int, str]], key: str) -> str | None:
    value = info.get(key, (0, ""))[1]
    return None if value in _UNKNOWN else value


def _int(info: dict[str, tuple[int, str]], key: str) -> int | None:
    value = _value(info, key)
    return int(value) if value and _COUNT.match(value) else None


def _speed(info: dict[str, tuple[int, str]], *keys: str) -> int | None:
    for key in keys:
        m = _SPEED.match(_value(info, key) or "")
        if m and int(m.group(1)):
            return int(m.group(1))
    return None


def _size(info: dict[str, tuple[int, str]], key: str) -> int | None:
    line, text = info.get(key, (0, ""))
    if text in _UNKNOWN:
        return None
    try:
        return parse_size(text)
    except ValueError:
        raise ValueError(f"dmidecode: line {line}: {key}: not a size: {text[:40]!r}") from None


def _slot(info: dict[str, tuple[int, str]], arrays: dict[str, int]) -> DimmSlot:
    text = info.get("Size", (0, ""))[1]
    size = None if text == "No Module Installed" else _size(info, "Size")
    populated = False if text == "No Module Installed" or size == 0 else (
        True if size else None)
    return DimmSlot(
        locator=_value(info, "Locator"), bank_locator=_value(info, "Bank Locator"),
        populated=populated, size_bytes=size or None,
        type=_value(info, "Type") if populated else None,
        form_factor=_value(info, "Form Factor"),
        speed_mts=_speed(info, "Speed") if populated else None,
        configured_mts=_speed(info, "Configured Memory Speed", "Configured Clock Speed")
        if populated else None,
        rank=_int(info, "Rank") if populated else None,
        manufacturer=_value(info, "Manufacturer") if populated else None,
        part_number=_value(info, "Part Number") if populated else None,
        technology=_value(info, "Memory Technology") if populated else None,
        array=arrays.get(_value(info, "Array Handle") or ""),
    )


@guard("dmidecode")
def parse_dmidecode_memory(text: str) -> DmiMemory:
    """Every memory array and slot dmidecode printed, in its order; empty lists when it
    printed no table (a VM without SMBIOS, see docs/hpc-node.md)."""
    records = _records(text)
    if not records and not any(line.startswith(_NO_TABLE) or _HANDLE.match(line)
                               for line in text.splitlines()):
        raise ValueError("dmidecode: no 'Handle 0x…, DMI type' record and no dmidecode banner")
    memory = DmiMemory()
    handles: dict[str, int] = {}
    for kind, handle, info in records:
        if kind == 16:
            if handle:
                handles[handle] = len(memory.arrays)
            memory.arrays.append(MemoryArray(
                handle=handle, use=_value(info, "Use"), devices=_int(info, "Number Of Devices"),
                max_capacity_bytes=_size(info, "Maximum Capacity")))
    memory.slots = [_slot(info, handles) for kind, _, info in records if kind == 17]
    return memory
