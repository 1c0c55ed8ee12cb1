"""The `health` kind: every host's health counters now — EDAC memory errors, SMART/NVMe
health, NIC and InfiniBand port errors — in one table, failing nothing by itself.

Why a step as well as the run-level watch (engine/health_watch.py, before and after every
run): a quick check without load (`stackprobe check`, the first rung of an acceptance)
wants the counters and what is wrong from a value alone — a disk whose SMART verdict is
FAILED, an NVMe critical warning, an uncorrected memory error ('healthy hardware'). The
changes during a run are the watch's ('no health counter rose'); both criteria are here
(kinds/host/health_checks.py).

One probe per host (kinds/host/health_probe_script.py), all hosts at once, parsed by
parsers/host/health_probe.py. `probe_root:` reads a recorded tree instead of the live host
(`{host}` in it stands for each host's name). Without `--hosts` it probes this machine.
"""

from __future__ import annotations

from typing import Literal

from stackprobe.analysis.health_delta import absolute_findings
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.kinds.contract import HostMode, Kind, Tool
from stackprobe.kinds.host.health_checks import CHECKS
from stackprobe.kinds.host.health_probe_script import probe_argv
from stackprobe.kinds.host.health_table import health_tables
from stackprobe.kinds.probes import ReadsTrees, probe_hosts, probes_outcome
from stackprobe.parsers.host.health_probe import parse_health_probe
from stackprobe.schema.health_records import HealthRecord
from stackprobe.spec.steps import StepSpec


class HealthStep(StepSpec, ReadsTrees):
    """Health counters of each host (EDAC, SMART/NVMe, NIC/IB errors), read-only."""

    kind: Literal["health"]
    # probe_root (kinds/probes.py): <probe_root>/sys, /commands, kmsg.txt and clock.txt
    # are read instead of the live host's


def read_health(name: str, result, cursor: int | None = None) -> tuple[HealthRecord | None, str | None]:
    """(record, None) from a probe's result, or (None, the one-line reason)."""
    if result.interrupted:
        return None, f"{name}: health probe stopped"
    if not result.ok:
        return None, f"{name}: health probe failed: {failure_message(result, 'sh')}"
    try:
        return parse_health_probe(result.stdout, host=name, since=cursor), None
    except ValueError as exc:
        return None, f"{name}: {exc}"


class HealthRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        spec: HealthStep = ctx.step.spec
        probed_hosts = probe_hosts(ctx, "health-probe", probe_argv)
        if probed_hosts is None:
            return StepOutcome.stopped()
        records, warnings = [], []
        for one in probed_hosts:
            name = one.name
            record, problem = read_health(name, one.result)
            if record is None:
                warnings.append(problem)
                continue
            records.append(record)
            warnings += [f"{name}: {p}" for p in record.problems]
        found = [f for r in records for f in absolute_findings(r)]
        findings = {"health": {"hosts": [r.host for r in records], "probe_root": spec.probe_root,
                               "problems": found}}
        return probes_outcome([r.host for r in records], records, warnings, findings, notes=found)

    def cleanup(self, ctx: StepContext) -> None:
        pass


class Health(Kind):
    name = "health"
    spec = HealthStep
    layer = "hardware"
    family = "host"
    hosts = HostMode.FLEET
    records = (HealthRecord,)
    checks = CHECKS
    # read where installed: without them the probe still reads EDAC, NIC/IB counters, kmsg
    tools = (Tool("smartctl", "smartmontools", ("smartctl", "--version"), "SMART health of disks"),
             Tool("nvme", "nvme-cli", ("nvme", "version"), "NVMe health log"))

    def needs(self, spec):
        return ()  # the probe runs without them

    def title(self, spec: HealthStep, name):
        return spec.trees_title("Health counters")

    def estimate_s(self, spec, hosts):
        return 3.0

    def runner(self):
        return HealthRunner()

    def rows(self, step):
        return []  # counters, not figures: the table and the criteria say them

    def tables(self, steps):
        return health_tables(steps)


KIND = Health()
