"""The names the settings kind reads, in one place: the probe script lists its files from
them and the parser names its settings by them (docs/settings.md holds the whole table).

Why data and not code: profiles (expected settings) and drift look settings up by these
names on every host, so a name here is an interface; the probe and the parser must agree
on it, and a list both read keeps them from drifting apart.
"""

from __future__ import annotations

# sysctls read from /proc/sys/<name with '.' as '/'>, named by their sysctl names
SYSCTLS = (
    "kernel.numa_balancing", "vm.swappiness", "vm.dirty_ratio", "vm.dirty_background_ratio",
    "vm.dirty_expire_centisecs", "vm.min_free_kbytes", "vm.zone_reclaim_mode",
    "vm.vfs_cache_pressure", "net.core.rmem_max", "net.core.wmem_max", "net.core.rmem_default",
    "net.core.wmem_default", "net.core.netdev_max_backlog", "net.core.somaxconn",
    "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.ipv4.tcp_congestion_control",
    "net.ipv4.tcp_timestamps", "net.ipv4.tcp_sack", "net.ipv4.tcp_mtu_probing", "fs.file-max",
)

# kernel command-line parameters reported as kernel.cmdline.<param> ('unset' when absent)
CMDLINE_PARAMS = (
    "intel_idle.max_cstate", "processor.max_cstate", "idle", "intel_pstate", "mitigations",
    "nosmt", "transparent_hugepage", "iommu", "intel_iommu", "numa_balancing", "isolcpus",
    "nohz_full",
)

# `ethtool -k` features reported as nic.<name>.offload.<feature>
OFFLOADS = (
    "tcp-segmentation-offload", "generic-segmentation-offload", "generic-receive-offload",
    "large-receive-offload", "rx-checksumming", "tx-checksumming", "scatter-gather",
)

# /sys/class/dmi/id file -> setting
DMI_FILES = {
    "bios_vendor": "bios.vendor", "bios_version": "bios.version", "bios_date": "bios.date",
    "board_vendor": "board.vendor", "board_name": "board.name", "sys_vendor": "system.vendor",
    "product_name": "system.product",
}

# mounts reported by default: block devices' filesystems and network/cluster ones
MOUNT_FSTYPES = frozenset({"ext4", "xfs", "btrfs", "zfs", "nfs", "nfs4", "ceph",
                           "fuse.ceph-fuse", "lustre", "gpfs", "beegfs"})

# /sys/block entries that are not whole disks
NOT_DISKS = ("loop", "ram", "zram", "dm-", "md", "nbd", "sr", "fd")

# per-disk files under /sys/block/<disk>/ -> the setting's last word
DISK_FILES = {
    "device/model": "model", "device/rev": "firmware", "device/firmware_rev": "firmware",
    "queue/scheduler": "scheduler", "queue/read_ahead_kb": "read_ahead_kb",
    "queue/write_cache": "write_cache", "queue/rotational": "rotational",
    "queue/nr_requests": "nr_requests",
}

# settings a profile asks about: present on every host, value None (UNKNOWN) when their
# source is missing, with the source they would have come from
EXPECTED_SOURCES = {
    "cpu.smt": "/sys/devices/system/cpu/smt/control",
    "cpu.governor": "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor",
    "cpu.turbo": "/sys/devices/system/cpu/intel_pstate/no_turbo",
    "cpu.deepest_cstate": "/sys/devices/system/cpu/cpu0/cpuidle/state*/name",
    "cpu.deepest_cstate_latency_us": "/sys/devices/system/cpu/cpu0/cpuidle/state*/latency",
    "mm.thp": "/sys/kernel/mm/transparent_hugepage/enabled",
    "kernel.numa_balancing": "/proc/sys/kernel/numa_balancing",
    "vm.swappiness": "/proc/sys/vm/swappiness",
    "tuned.profile": "tuned-adm active",
    "irqbalance": "/proc/*/comm",
    "time.sync": "chronyc -n tracking",
    "bios.version": "/sys/class/dmi/id/bios_version",
    **{f"kernel.cmdline.{p}": "/proc/cmdline" for p in CMDLINE_PARAMS},
}

# processes whose running tells a service is active (/proc/<pid>/comm, 15 characters)
SERVICES = ("chronyd", "ntpd", "systemd-timesyn", "irqbalance")
# tools whose presence the live probe reports (`command -v`)
TOOLS = ("ethtool", "dmidecode", "ipmitool", "chronyc", "timedatectl", "tuned-adm",
         "irqbalance", "ntpq")


def sysctl_path(name: str) -> str:
    """The /proc/sys file of a sysctl name."""
    return "/proc/sys/" + name.replace(".", "/")
