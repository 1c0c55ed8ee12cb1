"""PlannedStep: one concrete thing to run, after sweeps are expanded and defaults applied."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEFAULT_LAYER = {
    "inventory": "hardware",
    "memory": "hardware",
    "fio": "disk",  # fio on rbd or cephfs: "client"
    "slo": "disk",  # likewise
    "cpu": "hardware",
    "disk_baseline": "disk",
    "network": "network",
    "metadata": "disk",  # on cephfs: "client"
    "io500": "client",
    "io500_like": "client",
    "ceph_inventory": "cluster",
    "osd_bench": "daemon",
    "rados_bench": "cluster",
    "rbd_bench": "cluster",
}


PER_NODE_KINDS = ("inventory", "memory", "cpu", "disk_baseline")
FLEET_KINDS = ("fio", "network", "metadata")  # one step driving all its hosts together
HOST_KINDS = PER_NODE_KINDS + FLEET_KINDS


@dataclass(frozen=True)
class RepeatPlan:
    """min == max: a fixed count; otherwise repeat while CoV > cov, up to max."""

    min: int
    max: int
    cov: float


@dataclass(frozen=True)
class PlannedStep:
    index: int  # 1-based position in the run
    name: str  # unique within the plan, e.g. 'lat-qd1-randread'
    kind: str
    title: str
    layer: str
    params: dict[str, Any]  # every parameter the runner needs, concrete (no lists)
    swept: dict[str, Any] = field(default_factory=dict)  # the sweep values that made this step
    headline: str | None = None  # iops | bw | lat | ops | membw | None
    estimate_s: float = 0.0  # all repetitions (the maximum for adaptive repetition)
    space_bytes: int = 0  # test data this step lays out on the target
    repeat: RepeatPlan | None = None  # None: run once
    sweep: str | None = None  # the suite step this came from, when it swept (e.g. '3-rados')
    hosts: tuple[str, ...] = ()  # host names (from --hosts) the step runs on; () = locally
    timeout_s: float | None = None  # the suite's `timeout:`; None: derived from the estimate

    @property
    def on_ceph(self) -> bool:
        """Whether the step needs the Ceph cluster (and its run pool, image or mount)."""
        return self.kind in ("ceph_inventory", "osd_bench", "rados_bench", "rbd_bench") or (
            self.kind in ("fio", "slo", "metadata", "io500_like")
            and self.params.get("target") in ("rbd", "cephfs")
        )

    @property
    def per_node(self) -> bool:
        """Run by the executor on each of its hosts at once (not as one fleet)."""
        return bool(self.hosts) and self.kind in PER_NODE_KINDS

    @property
    def id(self) -> str:
        """Directory-safe identifier: '07-lat-qd1-randread'."""
        return f"{self.index:02d}-{self.name}"
