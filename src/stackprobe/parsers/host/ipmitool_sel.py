"""`ipmitool sel elist` / `sel list` -> SelEntries, and which of them are errors.

Why both: `sel list` names a sensor by type and number ('Memory #0x2b'), `sel elist` looks
the number up in the SDRs ('Memory DIMM_A1'); the columns are the same — record id (hex,
no 0x), date, time, sensor, event, direction — and some BMCs append a sixth ('Reading 40 >
Threshold 40 degrees C'), kept out of the record. An entry logged before the BMC's clock
was set says 'Pre-Init' for its date and a counter for its time.

An entry is an error when it was asserted (or has no direction) and its event says that
something failed: SEL_ERROR_WORDS. A non-critical crossing ('Upper Non-critical going
high') is a warning, not an error; a deasserted event is the end of a condition.
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import guard
from stackprobe.schema.bmc_records import SelEntry

SEL_ERROR_WORDS = ("fail", "fault", "uncorrectable", "non-recoverable", "critical going",
                   "limit reached", "ierr", "machine check", "lost", "error", "thermal trip")
_ERROR = re.compile("|".join(r"(?<!non-)" + re.escape(w) if w == "critical going"
                             else re.escape(w) for w in SEL_ERROR_WORDS), re.IGNORECASE)
_ID = re.compile(r"^[0-9a-fA-F]{1,4}$")
_DIRECTIONS = ("Asserted", "Deasserted")
_EMPTY = ("SEL has no entries", "SEL has no more entries")


def is_error(event: str, direction: str | None) -> bool:
    """The entry tells of a failure (see the module doc)."""
    return direction != "Deasserted" and bool(_ERROR.search(event))


def _entry(fields: list[str], n: int) -> SelEntry:
    if not _ID.match(fields[0]):
        raise ValueError(f"ipmitool sel: line {n}: {fields[0][:20]!r} is not a record id")
    if len(fields) == 5 and fields[4] in _DIRECTIONS:  # one date column, no time
        date, time, (sensor, event, direction) = fields[1], None, fields[2:5]
    else:
        date, time, sensor, event = fields[1:5]
        direction = fields[5] if len(fields) > 5 else None
    if not sensor or not event:
        raise ValueError(f"ipmitool sel: line {n}: no sensor or event")
    direction = direction if direction in _DIRECTIONS else None
    return SelEntry(id=fields[0].lower(), date=date or None, time=time or None,
                    sensor=sensor, event=event, direction=direction,
                    error=is_error(event, direction))


@guard("ipmitool sel")
def parse_ipmitool_sel(text: str) -> list[SelEntry]:
    """Every entry, in the order printed (the BMC's order: oldest first)."""
    entries, other = [], 0
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.strip() in _EMPTY:
            continue
        fields = [f.strip() for f in line.split("|")]
        if len(fields) < 5:
            other += 1
            continue
        entries.append(_entry(fields, n))
    if other and not entries:
        raise ValueError("ipmitool sel: no entry line (id | date | time | sensor | event)")
    return entries
