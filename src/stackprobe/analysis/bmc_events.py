"""New System Event Log entries since a point the caller saw last.

Why a function of its own: the health counters taken before and after a long load (the
node-health rung) ask the same question of every BMC — what did it log meanwhile? A
point is the id of the last entry seen (ipmitool's hex id) and/or the time it was read.
SEL ids grow until the log is cleared, after which they start again: when the last id
seen is no longer in the log and some id is not above it, every entry is new and `cleared`
says the log was emptied meanwhile; when every id is above it (`0`, before a log whose first
entry is 1), every entry is new and nothing was missed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from stackprobe.schema.bmc_records import SelEntry


@dataclass(frozen=True)
class NewEvents:
    entries: list[SelEntry] = field(default_factory=list)
    cleared: bool = False  # the last entry seen is gone: the log was cleared meanwhile


def _when(entry: SelEntry) -> datetime | None:
    try:
        return datetime.strptime(f"{entry.date} {entry.time}", "%m/%d/%Y %H:%M:%S")
    except (TypeError, ValueError):
        return None  # 'Pre-Init' and other undated entries


def new_since(entries: Sequence[SelEntry], last_id: str | None = None,
              after: datetime | None = None) -> NewEvents:
    """The entries logged after the one with `last_id` (in log order) and, when `after` is
    given, dated after it (undated entries count as new: their time is not known)."""
    chosen = list(entries)
    cleared = False
    if last_id is not None:
        key = int(last_id.lower().removeprefix("0x"), 16)
        ids = [int(e.id, 16) for e in entries]
        if key in ids:
            chosen = chosen[len(ids) - ids[::-1].index(key):]
        else:  # every id above it: nothing was missed ('0' before a first entry 1)
            cleared = not all(i > key for i in ids)
    if after is not None:
        chosen = [e for e in chosen if (when := _when(e)) is None or when > after]
    return NewEvents(chosen, cleared)
