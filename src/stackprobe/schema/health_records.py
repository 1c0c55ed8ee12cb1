"""Health counters of a host, read before and after a run (and by the `health` step).

Why a module of its own: a machine's error counters — EDAC memory errors, SMART and NVMe
media errors, NIC and InfiniBand port errors, new kernel-log errors, new BMC events — are
not figures of a workload but the state of the hardware under it. A counter that rose while
the run loaded the machine is a finding even when every figure looks right (a DIMM logging
corrected errors, a disk reallocating sectors, a port retraining). One `HealthRecord` per
host per snapshot keeps every counter with where it was read; `HealthWatch` (RunResults'
`health`) keeps the run's two snapshots and what changed between them
(analysis/health_delta.py).

Counter names are what a reader sees ('EDAC mc0 corrected errors', 'sda reallocated
sectors', 'eth0 rx_crc_errors', 'mlx5_0/1 symbol_error'): the report says them as they are.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from stackprobe.schema.bmc_records import SelEntry
from stackprobe.schema.record_base import MODEL, RecordBase


class Counter(BaseModel):
    """One counter's value and where it was read ('sysfs', 'smartctl', 'nvme smart-log')."""

    model_config = MODEL

    value: int
    source: str


class DiskHealth(BaseModel):
    """What SMART or the NVMe health log says of one whole disk, beside its counters."""

    model_config = MODEL

    name: str  # 'sda', 'nvme0n1'
    source: str  # 'smartctl', 'nvme smart-log'
    protocol: str | None = None  # 'ATA', 'SCSI', 'NVMe'
    model: str | None = None
    passed: bool | None = None  # SMART overall health; None: not said (or not read)
    critical_warning: int | None = None  # NVMe: the bit field; 0 when all is well
    temperature_c: float | None = None
    power_on_hours: int | None = None
    percentage_used: int | None = None  # NVMe wear, % of the rated endurance
    problem: str | None = None  # why nothing was read ('Unable to detect device type')


class KernelLine(BaseModel):
    """One kernel-log line taken for an error: its level, or a pattern it matched."""

    model_config = MODEL

    seq: int | None = None  # /dev/kmsg sequence number (None from dmesg)
    usec: int  # microseconds since boot
    level: int  # 0 emerg ... 3 err ... 7 debug
    facility: int = 0  # 0 kernel, 1 user (a line written to /dev/kmsg), ...
    text: str
    why: str  # 'level err' or the pattern's name ('I/O error')
    wall: str | None = None  # ISO 8601 UTC, from the host's wall/boot clock pair
    step: str | None = None  # the step that was running then (run-level watch)


class HealthRecord(RecordBase):
    """One host's health counters at one moment."""

    type: Literal["health"] = "health"
    host: str | None = None
    taken: str | None = None  # ISO 8601 UTC on the host's clock
    uptime_s: float | None = None
    counters: dict[str, Counter] = Field(default_factory=dict)
    disks: list[DiskHealth] = Field(default_factory=list)
    kmsg_source: str = "none"  # 'kmsg', 'dmesg' (fallback: /dev/kmsg unreadable), 'none'
    kmsg_cursor: int | None = None  # the last /dev/kmsg seq (dmesg: usec) read
    kernel_errors: list[KernelLine] = Field(default_factory=list)  # after the cursor given
    problems: list[str] = Field(default_factory=list)  # parts that could not be read


class HealthFinding(BaseModel):
    """What changed on one host between the run's two snapshots, as one sentence."""

    model_config = MODEL

    host: str
    what: Literal["rose", "fell", "appeared", "gone", "kernel", "sel"]
    subject: str  # the counter, device, NIC, or 'kernel log' / 'SEL'
    sentence: str  # 'h2: EDAC mc0 corrected errors 0 -> 3 (+3)'
    before: int | None = None
    after: int | None = None
    step: str | None = None  # the step it happened during, when known

    @property
    def bad(self) -> bool:
        """A rise, a device gone, a new kernel error or a new SEL entry: what 'no health
        counter rose' fails on."""
        return self.what in ("rose", "gone", "kernel", "sel")


class HealthWatch(BaseModel):
    """The run-level watch (engine/health_watch.py): snapshots before the first step and
    after the last, the SEL entries logged meanwhile, and what changed."""

    model_config = MODEL

    hosts: list[str] = Field(default_factory=list)  # shell hosts snapshotted
    bmcs: list[str] = Field(default_factory=list)  # management entries whose SEL was read
    before: list[HealthRecord] = Field(default_factory=list)
    after: list[HealthRecord] = Field(default_factory=list)
    sel_last: dict[str, str | None] = Field(default_factory=dict)  # bmc -> last id before
    sel_new: dict[str, list[SelEntry]] = Field(default_factory=dict)
    compared: int = 0  # counters found in both snapshots
    findings: list[HealthFinding] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)  # unreachable hosts, unreadable parts
    cost_s: float | None = None  # wall time both snapshots took together
    complete: bool = False  # both snapshots taken
