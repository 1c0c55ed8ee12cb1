"""Step kind -> runner. Adding a tool means adding a module and one line here."""

from __future__ import annotations

from stackprobe.kinds.context import Runner
from stackprobe.kinds.ceph.ceph_inventory import CephInventoryRunner
from stackprobe.kinds.host.cpu import CpuRunner
from stackprobe.kinds.fio.disk_baseline import DiskBaselineRunner
from stackprobe.kinds.fio.fio import FioRunner
from stackprobe.kinds.host.inventory import InventoryRunner
from stackprobe.kinds.hpc.io500 import Io500Runner
from stackprobe.kinds.hpc.io500_like import Io500LikeRunner
from stackprobe.kinds.host.memory import MemoryRunner
from stackprobe.kinds.fio.metadata import MetadataRunner
from stackprobe.kinds.network.network import NetworkRunner
from stackprobe.kinds.ceph.osd_bench import OsdBenchRunner
from stackprobe.kinds.ceph.rados_bench import RadosBenchRunner
from stackprobe.kinds.ceph.rbd_bench import RbdBenchRunner
from stackprobe.kinds.fio.slo import SloRunner

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
