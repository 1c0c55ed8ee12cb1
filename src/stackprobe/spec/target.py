"""What `--target` names: a directory (test files in a subdirectory stackprobe makes and
removes) or a raw block device (fio addresses the device itself, `filename=DEVICE`).

A device has no free space to check and no files to lay out: its size is what bounds a
step's data, so a step never asks fio for more than the device holds. The device is named
by its resolved path (a /dev/disk/by-id link becomes the node it points at), which is what
the target guard probes and what --destroy-data must name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stackprobe.units import fmt_bytes


@dataclass(frozen=True)
class DirTarget:
    """A directory: the run's scratch directory is made in it."""

    path: Path


@dataclass(frozen=True)
class DeviceTarget:
    """A raw block device the fio-like steps address whole (or its first `size` bytes)."""

    path: str  # resolved: /dev/loop3, /dev/nvme0n1
    named: str  # as the user wrote it: /dev/disk/by-id/nvme-...
    size_bytes: int  # the device's size

    @property
    def label(self) -> str:
        shown = self.path if self.named == self.path else f"{self.named} ({self.path})"
        return f"{shown}, block device of {fmt_bytes(self.size_bytes)}"

    def bounded(self, size: int | None) -> int:
        """The bytes a job may address: its size, never beyond the device (no size: all)."""
        return self.size_bytes if size is None else min(size, self.size_bytes)

    def extent_text(self, size: int | None) -> str:
        """Which part of the device a job of `size` bytes addresses, for plans and reports."""
        bounded = self.bounded(size)
        if bounded >= self.size_bytes:
            return f"the whole device ({fmt_bytes(self.size_bytes)})"
        return f"its first {fmt_bytes(bounded)}"


Target = DirTarget | DeviceTarget

