"""Records of the settings kind: what one host is set to, each setting with where it came
from.

Why one record per host holding a map of settings (and not a record per setting): a fleet
of a thousand hosts with two hundred settings each is compared setting by setting across
hosts (analysis/settings_drift.py) and against a profile (analysis/settings_profile.py);
both look a setting up by name on every host, and results.json stays one entry per host.

Setting names are dotted and stable (docs/settings.md lists them all): `cpu.governor`,
`kernel.cmdline.intel_idle.max_cstate`, `vm.swappiness`, `nic.eth0.mtu`,
`disk.sda.scheduler`, `mount./data.options`. A value is the text the source printed,
normalised only where the source mixes forms (the selected `[madvise]` of THP, 'on'/'off'
for SMT); None means the setting could not be read on that host — UNKNOWN to a profile,
never a pass, and left out of drift.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from stackprobe.schema.record_base import MODEL, RecordBase


class Setting(BaseModel):
    """One setting's value and its source: the file or command it was read from."""

    model_config = MODEL

    value: str | None = None  # None: not readable here (no such file, not root, no tool)
    source: str  # '/sys/devices/system/cpu/smt/control', 'ethtool -g eth0', '/proc/cmdline'
    # a setting that differs between healthy hosts by nature (a time offset, a serial):
    # shown, but never drift
    volatile: bool = False


class SettingsRecord(RecordBase):
    """Every setting read on one host, by name."""

    type: Literal["settings"] = "settings"
    host: str | None = None
    settings: dict[str, Setting]
