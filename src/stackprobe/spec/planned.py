"""PlannedStep: one concrete thing to run, after sweeps are expanded and defaults applied.

It carries its kind's typed, validated spec (`spec`, one value per field: the sweep that
made it is `swept`), so runners, estimates and checks read values, never strings. `params`
is the same spec as results.json keeps it (every value as the suite wrote it): for titles,
the stored results and the report, not for computing with.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stackprobe.spec.ceph import CephNeeds
from stackprobe.spec.hosts import HostMode
from stackprobe.spec.steps import StepSpec
from stackprobe.spec.target import DeviceTarget


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
    spec: StepSpec  # the kind's model, concrete: sweeps expanded, defaults applied
    params: dict[str, Any]  # that spec as written, as results.json stores it
    swept: dict[str, Any] = field(default_factory=dict)  # the sweep values that made this step
    headline: str | None = None  # iops | bw | lat | ops | membw | None
    estimate_s: float = 0.0  # all repetitions (the maximum for adaptive repetition)
    space_bytes: int = 0  # test data this step lays out on the target
    repeat: RepeatPlan | None = None  # None: run once
    sweep: str | None = None  # the suite step this came from, when it swept (e.g. '3-rados')
    hosts: tuple[str, ...] = ()  # host names (from --hosts) the step runs on; () = locally
    timeout_s: float | None = None  # the suite's `timeout:`; None: derived from the estimate
    host_mode: HostMode = HostMode.CONTROLLER  # how its kind meets hosts
    ceph: CephNeeds | None = None  # what it needs of the run's Ceph session; None: no Ceph
    suite_step: int = 0  # the suite step (1-based) it came from: where its criteria were written
    # why it will not run although the suite asks for it: `hosts: all` of a kind that reaches
    # a management controller, and the hosts file has none (recorded as skipped, saying why)
    skip: str | None = None
    # the raw block device its jobs address (--target DEVICE; spec/target.py); None: files
    # in the run's scratch directory, or a step that does not use the target
    device: DeviceTarget | None = None

    @property
    def on_ceph(self) -> bool:
        """Whether the step needs the Ceph cluster (and its run pool, image or mount)."""
        return self.ceph is not None

    @property
    def per_node(self) -> bool:
        """Run by the executor on each of its hosts at once (not as one fleet)."""
        return bool(self.hosts) and self.host_mode is HostMode.EACH

    @property
    def id(self) -> str:
        """Directory-safe identifier: '07-lat-qd1-randread'."""
        return f"{self.index:02d}-{self.name}"
