"""`--target PATH` made typed: a directory, or a raw block device with its size.

Read here, once, before the plan is made: the plan bounds each step's data by the device's
size and skips the steps that need files (spec/target.py, Kind.on_device). A device's size
comes from sysfs (readable without opening the device, so `plan` works unprivileged), or
from the end of the device when sysfs does not say.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from stackprobe.errors import UserError
from stackprobe.spec.target import DeviceTarget, DirTarget, Target

SECTOR_BYTES = 512  # sysfs gives a block device's size in 512-byte sectors, whatever its own


def target_of(path: Path | None) -> Target:
    """The target `path` names (default: the current directory). A path that is not there
    stays a directory: the pre-flight check says what is wrong with it."""
    named = path if path is not None else Path.cwd()
    try:
        st = os.stat(named)
    except OSError:
        return DirTarget(named.resolve())
    if stat.S_ISBLK(st.st_mode):
        resolved = str(named.resolve())
        return DeviceTarget(resolved, str(named), device_size(resolved, st.st_rdev))
    if stat.S_ISCHR(st.st_mode):
        raise UserError(f"target {named}: a character device; stackprobe tests a directory "
                        "or a block device")
    return DirTarget(named.resolve())


def device_size(path: str, rdev: int) -> int:
    """The block device's size in bytes; UserError when it cannot be read or is empty."""
    sysfs = Path(f"/sys/dev/block/{os.major(rdev)}:{os.minor(rdev)}/size")
    try:
        size = int(sysfs.read_text().strip()) * SECTOR_BYTES
    except (OSError, ValueError):
        size = _seek_end(path)
    if size <= 0:
        raise UserError(f"target {path}: a block device of no size (an empty loop device, no "
                        "medium?)")
    return size


def _seek_end(path: str) -> int:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        raise UserError(f"target {path}: its size cannot be read ({exc.strerror})") from None
    try:
        return os.lseek(fd, 0, os.SEEK_END)
    finally:
        os.close(fd)
