"""Disk caps for lab hosts: a block-I/O throttle cgroup per slowed host.

cgroup v1: blkio.throttle.read_bps_device and write_bps_device ("MAJ:MIN BYTES"); cgroup v2:
io.max ("MAJ:MIN rbps=N wbps=N"). The lab puts a host's sshd in the cgroup, so every command
run over SSH on that host reads and writes the throttled disk at the cap at most: a host
whose disks together are far below the sum of each alone, as behind a shared controller.
Only cgroups named stackprobe-<prefix>-<host> are ever made; they are removed with
cgroups.remove_cgroup.
"""

from __future__ import annotations

import os
from pathlib import Path

from stackprobe.lab.cgroups import CGROUP_V2, enable_v2_controller
from stackprobe.lab.hosts_specs import HostsLabError

CGROUP_V1_BLKIO = Path("/sys/fs/cgroup/blkio")
SYS_DEV_BLOCK = Path("/sys/dev/block")


def io_cgroup_version() -> int:
    """2 when the unified hierarchy has the io controller, 1 when a v1 blkio hierarchy with
    throttling is mounted."""
    controllers = CGROUP_V2 / "cgroup.controllers"
    if controllers.exists() and "io" in controllers.read_text().split():
        return 2
    if (CGROUP_V1_BLKIO / "blkio.throttle.read_bps_device").exists():
        return 1
    raise HostsLabError("no block-I/O cgroup controller (cgroup v1 /sys/fs/cgroup/blkio with "
                        "throttling, or v2 /sys/fs/cgroup with 'io'): --slow-disk is not possible here")


def io_cgroup_path(version: int, prefix: str, host: str) -> Path:
    """Under v2 this is the host's cpu cgroup too: one hierarchy, one directory per host."""
    root = CGROUP_V2 if version == 2 else CGROUP_V1_BLKIO
    return root / f"stackprobe-{prefix}-{host}"


def device_of(path: str | os.PathLike) -> str:
    """'MAJ:MIN' of the whole disk holding `path` (a partition's parent disk)."""
    st_dev = os.stat(path).st_dev
    dev = f"{os.major(st_dev)}:{os.minor(st_dev)}"
    node = SYS_DEV_BLOCK / dev
    if not node.exists():
        raise HostsLabError(f"{path}: its filesystem is on {dev}, not a block device (tmpfs, "
                            "overlay, btrfs or a network filesystem?): --slow-disk cannot throttle it")
    if (node / "partition").exists():
        # the kernel follows the device's symlink before '..': the parent disk's directory
        dev = (node / ".." / "dev").read_text().strip()
    return dev


def make_io_cgroup(path: Path, version: int, device: str, bps: int) -> None:
    """The cgroup at `path`, capping reads and writes to `device` at `bps` bytes per second."""
    if version == 2:
        enable_v2_controller("io")
        path.mkdir(exist_ok=True)  # made just before as the host's cpu cgroup, if it has one
        (path / "io.max").write_text(f"{device} rbps={bps} wbps={bps}")
    else:
        path.mkdir()
        (path / "blkio.throttle.read_bps_device").write_text(f"{device} {bps}")
        (path / "blkio.throttle.write_bps_device").write_text(f"{device} {bps}")
