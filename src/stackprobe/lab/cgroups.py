"""CPU caps for lab hosts: a cpu cgroup (v1 cpu.cfs_quota_us, or v2 cpu.max) per capped host.

The lab puts a host's sshd in the cgroup, so every command run over SSH on that host
inherits the cap: a "slow CPU" fault stackprobe's consistency analysis must find. Only
cgroups named stackprobe-<prefix>-<host> are ever made or removed.
"""

from __future__ import annotations

import time
from pathlib import Path

from stackprobe.errors import UserError

CGROUP_RMDIR_TIMEOUT_S = 5.0
CPU_PERIOD_US = 100_000
CGROUP_V1_CPU = Path("/sys/fs/cgroup/cpu")
CGROUP_V2 = Path("/sys/fs/cgroup")


class CgroupError(UserError):
    """A cpu cgroup could not be made or removed; says which and why."""


def cgroup_version() -> int:
    """2 when the unified hierarchy has the cpu controller, 1 when a v1 cpu hierarchy is mounted."""
    controllers = CGROUP_V2 / "cgroup.controllers"
    if controllers.exists() and "cpu" in controllers.read_text().split():
        return 2
    if (CGROUP_V1_CPU / "cpu.cfs_quota_us").exists():
        return 1
    raise CgroupError("no cpu cgroup controller mounted (cgroup v1 /sys/fs/cgroup/cpu or "
                        "v2 /sys/fs/cgroup with 'cpu'): --slow-cpu is not possible here")


def cgroup_path(version: int, prefix: str, host: str) -> Path:
    root = CGROUP_V2 if version == 2 else CGROUP_V1_CPU
    return root / f"stackprobe-{prefix}-{host}"


def make_cpu_cgroup(path: Path, version: int, percent: int) -> None:
    if version == 2:
        enable_v2_controller("cpu")
    path.mkdir()
    if version == 1:
        (path / "cpu.cfs_period_us").write_text(str(CPU_PERIOD_US))
    set_cpu_quota(path, percent)


def set_cpu_quota(path: Path, percent: int | None) -> None:
    """A capped host's quota changed in place (v1 or v2, as the cgroup is): `percent` of one
    CPU, None for no cap — the processes already in it stay there."""
    quota = None if percent is None else percent * CPU_PERIOD_US // 100
    if (path / "cpu.max").exists():
        (path / "cpu.max").write_text(f"{quota if quota is not None else 'max'} {CPU_PERIOD_US}")
    else:
        (path / "cpu.cfs_quota_us").write_text(str(quota if quota is not None else -1))


def enable_v2_controller(name: str) -> None:
    """Let the v2 root's children use controller `name` (cpu.max, io.max)."""
    control = CGROUP_V2 / "cgroup.subtree_control"
    if name not in control.read_text().split():
        control.write_text(f"+{name}")


def cgroup_pids(path: Path) -> list[int]:
    try:
        return [int(p) for p in (path / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def remove_cgroup(path: Path) -> None:
    deadline = time.monotonic() + CGROUP_RMDIR_TIMEOUT_S
    while True:
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if time.monotonic() > deadline:
                raise CgroupError(f"{path}: not removable ({exc.strerror}; "
                                    f"tasks {cgroup_pids(path)})") from None
            time.sleep(0.1)
