"""Step kind -> runner. Adding a tool means adding a module and one line here."""

from __future__ import annotations

from stackprobe.runners.base import Runner
from stackprobe.runners.ceph_inventory import CephInventoryRunner
from stackprobe.runners.cpu import CpuRunner
from stackprobe.runners.disk_baseline import DiskBaselineRunner
from stackprobe.runners.fio import FioRunner
from stackprobe.runners.inventory import InventoryRunner
from stackprobe.runners.io500 import Io500Runner
from stackprobe.runners.io500_like import Io500LikeRunner
from stackprobe.runners.memory import MemoryRunner
from stackprobe.runners.metadata import MetadataRunner
from stackprobe.runners.network import NetworkRunner
from stackprobe.runners.osd_bench import OsdBenchRunner
from stackprobe.runners.rados_bench import RadosBenchRunner
from stackprobe.runners.rbd_bench import RbdBenchRunner
from stackprobe.runners.slo import SloRunner

RUNNERS: dict[str, Runner] = {
    "inventory": InventoryRunner(),
    "memory": MemoryRunner(),
    "fio": FioRunner(),
    "metadata": MetadataRunner(),
    "ceph_inventory": CephInventoryRunner(),
    "osd_bench": OsdBenchRunner(),
    "rados_bench": RadosBenchRunner(),
    "rbd_bench": RbdBenchRunner(),
    "slo": SloRunner(),
    "cpu": CpuRunner(),
    "disk_baseline": DiskBaselineRunner(),
    "network": NetworkRunner(),
    "io500": Io500Runner(),
    "io500_like": Io500LikeRunner(),
}


def runner_for(kind: str) -> Runner:
    return RUNNERS[kind]
