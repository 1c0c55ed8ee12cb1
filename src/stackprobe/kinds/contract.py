"""The kind contract: everything about one step kind, declared in one place.

A step kind (fio, rados_bench, network, ...) is one module under kinds/<tool family>/ that
defines its suite model (a StepSpec subclass), its runner (prepare / run / cleanup), and a
`Kind` subclass tying them together with what the rest of stackprobe asks of a kind:

- planning: which list fields sweep, its ladder layer, default name, title and headline,
  how long it takes and how much test data it lays out, the session it needs (Ceph);
- running: the tools it needs (each with its Debian package), how it meets hosts
  (`HostMode`), how it reaches them (`Reach`), its runner;
- safety: the paths its jobs would touch, for the target guard;
- reporting: its summary rows, its own tables, its sweep points, what of it compare keys
  on, and whether it is a client rung of a storage cluster for the ladder.

The registry (kinds/registry.py) finds the kinds; the suite's Step union, the layer table,
the tool list of `doctor`, the Makefile's package list and the report's rows all come from
here. HostMode, Reach (spec/hosts.py), CephNeeds (spec/ceph.py), Tool (spec/tools.py) and
ClusterIo (analysis/ceilings.py) are declared in the lower layers that use them and shown
here. Defaults below cover the common case; a kind overrides what it does differently.
Like PerfKitBenchmarker's benchmark modules or IOR's aiori table: one backend, one place.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from stackprobe.analysis.ceilings import ClusterIo
from stackprobe.kinds.checks import Check
from stackprobe.spec.ceph import CephNeeds
from stackprobe.spec.fields import written
from stackprobe.spec.hosts import HostMode, Reach
from stackprobe.spec.steps import PLACEMENT_FIELDS, StepSpec
from stackprobe.spec.tools import AnyOf, Need, Tool
from stackprobe.tables.rows import Row, record_rows
from stackprobe.tables.sweeps import SweepSeries, io_series

__all__ = ["AnyOf", "CephNeeds", "ClusterIo", "HostMode", "Kind", "Need", "Reach", "Tool"]

SEGMENTED_PAST_S = 3600.0  # a step planned longer is monitored a segment at a time
# ten minutes a segment: reading a segment parses its whole sadf JSON at once, and an hour
# of it (10 MB of text) took 90 MB of Python objects at its peak, which the controller's
# process kept as resident memory for the rest of the run (a 90-minute soak: 68 -> 183 MB
# at the first hour's end, measured 2026-11-30); ten minutes take 15 MB
MONITOR_SEGMENT_S = 600.0

if TYPE_CHECKING:
    from stackprobe.kinds.context import Runner
    from stackprobe.safety.job_paths import Use
    from stackprobe.schema.results import StepResult
    from stackprobe.spec.hosts import HostsFile
    from stackprobe.spec.planned import PlannedStep
    from stackprobe.spec.target import DeviceTarget
    from stackprobe.tables.text_table import TextTable


class Kind:
    """One step kind. Subclasses set the class attributes and override what differs."""

    name: ClassVar[str]  # the `kind:` of a suite step
    spec: ClassVar[type[StepSpec]]  # its suite model
    layer: ClassVar[str]  # its rung of the ladder (spec.LAYERS)
    family: ClassVar[str]  # tool family: fio, ceph, hpc, host, network
    hosts: ClassVar[HostMode] = HostMode.CONTROLLER
    reach: ClassVar[Reach] = Reach.SHELL
    sweeps: ClassVar[tuple[str, ...]] = ()  # list-valued fields that are sweeps
    tools: ClassVar[tuple[Tool, ...]] = ()  # every tool it may drive (doctor, packages)
    records: ClassVar[tuple[type, ...]] = ()  # the record types it produces
    prelude_of: ClassVar[str | None] = None  # recorded before the first step of this session
    files_on_target: ClassVar[bool] = False  # lays out files in the --target directory
    # findings of its own a suite's `criteria:` may name ('no flagged link'; kinds/checks.py)
    checks: ClassVar[tuple[Check, ...]] = ()
    # --- how compare pairs its steps (report/compare.py)
    concurrency: ClassVar[tuple[str, ...]] = ()  # fields setting outstanding I/O (sweeps)
    duration_fields: ClassVar[tuple[str, ...]] = ()  # how long it measured: not the workload
    verdict_fields: ClassVar[tuple[str, ...]] = ()  # thresholds and lists split into rows
    place_fields: ClassVar[tuple[str, ...]] = ()  # where it worked: a path, per machine
    tool_defaults: ClassVar[dict[str, Any]] = {}  # written or left out: the same workload
    titled_rows: ClassVar[bool] = True  # its rows' names start with the step's title
    probe_groups: ClassVar[bool] = False  # its I/O groups are search probes (no curves)
    in_suites: ClassVar[bool] = True  # False: only `ingest --new/--into` makes its steps

    # ------------------------------------------------------------------ planning
    def expand(self, spec: StepSpec, defaults: Any, base_dir: Path | None
               ) -> Iterator[tuple[StepSpec, dict[str, Any]]]:
        """(concrete spec, swept values as written) for every combination of the step's
        sweeps, in the order its fields are declared."""
        swept_keys = [k for k in self.sweeps if isinstance(getattr(spec, k), list)]
        choices = [getattr(spec, k) for k in swept_keys]
        for combo in itertools.product(*choices):
            update = dict(zip(swept_keys, combo))
            yield spec.model_copy(update=update), {k: written(v) for k, v in update.items()}

    def params(self, spec: StepSpec) -> dict[str, Any]:
        """The concrete spec as results.json keeps it: every parameter as written, none of
        the fields that place or schedule the step."""
        return spec.model_dump(exclude_none=True, exclude=set(PLACEMENT_FIELDS))

    def default_name(self, spec: StepSpec) -> str:
        return self.name.replace("_", "-")

    def title(self, spec: StepSpec, name: str) -> str:
        """The title when the suite gives none."""
        return name

    def layer_of(self, spec: StepSpec) -> str:
        return self.layer

    def target_text(self, spec: StepSpec) -> str | None:
        """Where the step's data is when not on the target directory ('RBD', 'CephFS'):
        titles end with ' on <it>'."""
        return None

    def headline(self, spec: StepSpec) -> str | None:
        """The figure the step is about: iops | bw | lat | ops | membw | None."""
        return None

    def estimate_s(self, spec: StepSpec, hosts: int) -> float:
        """Seconds one run takes, erring long (plan, progress ETA, default timeouts)."""
        raise NotImplementedError(f"{self.name}: estimate_s")

    def data_bytes(self, spec: StepSpec) -> int:
        """Bytes of test files the step lays out wherever it runs."""
        return 0

    def monitor_segment_s(self, spec: StepSpec) -> float | None:
        """The length of one segment of the step's per-second monitoring (monitor/sampler.py:
        sadc's output read, folded and kept compressed a segment at a time, so a step of
        hours holds a bounded few MB); None: read whole after the step. A step planned past
        an hour is read ten minutes at a time."""
        return MONITOR_SEGMENT_S if self.estimate_s(spec, 1) > SEGMENTED_PAST_S else None

    def monitor_keep_s(self, spec: StepSpec) -> float | None:
        """Seconds a segmented monitor keeps second by second at each end of the step (the
        rest in buckets, monitor/stream_fold.py); None: the monitor's own ten minutes."""
        return None

    def local_bytes(self, spec: StepSpec) -> int:
        """Of those, the bytes on the run's target directory (the free-space check); a
        step on Ceph lays its data out in the cluster."""
        return 0 if self.ceph(spec) is not None else self.data_bytes(spec)

    def on_device(self, spec: StepSpec, device: DeviceTarget) -> StepSpec | str | None:
        """The step when --target is a raw block device: its spec addressing the device
        (data bounded by its size), why it cannot run there (the plan skips it, saying
        so), or None when it does not use the target and runs as it is."""
        if self.files_on_target and self.ceph(spec) is None:
            return "works on files in a directory: give --target a directory for it"
        return None

    def needs(self, spec: StepSpec) -> tuple[Need, ...]:
        """Tools needed where the step runs (this machine, or each of its hosts)."""
        return tuple(t.name for t in self.tools)

    def controller_needs(self, spec: StepSpec) -> tuple[Need, ...]:
        """Tools needed on this machine when the step runs on hosts (a fleet's driver)."""
        return ()

    def ceph(self, spec: StepSpec) -> CephNeeds | None:
        """What the step needs of a Ceph session; None: it does not touch Ceph."""
        return None

    def workload_text(self, params: dict[str, Any]) -> str:
        """What the step loads, in a few words ('randwrite 4k QD128'), from its parameters."""
        return ""

    # ------------------------------------------------------------------ running
    def runner(self) -> Runner:
        raise NotImplementedError(f"{self.name}: runner")

    def monitored_hosts(self, spec: StepSpec, names: list[str], run_id: str) -> list[str]:
        """Of the step's hosts (`names`), those that carry its load: the executor watches
        them (sadc). All of them, unless the kind knows better (a pair kind: the hosts of
        the pairs it draws with the run id)."""
        return names

    def ingested_records(self, records: list) -> list:
        """The records a step of this kind keeps for a file `stackprobe ingest` made a
        step of (ingest/into_run.py): the file's, and what the kind reads them as."""
        return list(records)

    # ------------------------------------------------------------------ safety
    def guard_inputs(self, step: PlannedStep, read: Callable[[str], str],
                     hosts: HostsFile | None) -> tuple[list[Use], list[str]]:
        """Absolute paths the step's jobs open outside its scratch directory (for the
        target guard to probe), and refusals knowable without probing."""
        return [], []

    # ------------------------------------------------------------------ reporting
    def rows(self, step: StepResult) -> list[Row]:
        """The step's rows in the run's summary table."""
        return record_rows(step, self.workload_text(step.params))

    def tables(self, steps: Sequence[StepResult]) -> list[TextTable]:
        """Tables of the kind's own, over all its steps of a run."""
        return []

    def sweep_series(self, steps: Sequence[StepResult], others: tuple[tuple[str, str], ...]
                     ) -> list[SweepSeries]:
        """The workloads of one sweep: steps differing only in `concurrency`, `others` the
        sweep's other values they share."""
        return io_series(steps, others, self.concurrency)

    def cluster_io(self, step: StepResult) -> ClusterIo | None:
        """For the ladder: how the step loads a storage cluster, or None."""
        return None
