"""The `ipmi` kind: does each host's BMC answer, and what does it say about the machine.

Seed 004 begins with a functional test of every server's IPMI. For each BMC (`access:
management` entries of hosts.yaml, reached over the LAN from this machine with the `bmc:`
settings of spec/bmc.py) the step asks, with ipmitool: `mc info` (does it answer; its
firmware and maker), `sensor` (every reading beside its thresholds), `sel elist` (the event
log; its error entries named; with `sel_since`, the entries logged after that id) and
`chassis status` (power, latched faults). A BMC that does not answer or refuses the login
fails the step on that host with one line saying which; a part that fails after the login
leaves only that part empty, with a warning.

Without `hosts:` the step asks this machine's own BMC through /dev/ipmi0 (`-I open`, root);
a machine without that device (no BMC, or its modules not loaded) skips the step, saying so.
Shell hosts are not asked through their own /dev/ipmi0 (the kind reaches management
controllers); give their BMC an `access: management` entry instead.

The step's outcome is `ok` whatever the BMC reports: judging is the criteria's ('every BMC
answers', 'no sensor out of range', 'no SEL error', 'no chassis fault';
kinds/host/ipmi_checks.py), and what no criterion covers becomes a warning.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from stackprobe.analysis.bmc_events import new_since
from stackprobe.kinds.context import StepContext, StepOutcome
from stackprobe.kinds.contract import HostMode, Kind, Reach, Tool
from stackprobe.kinds.host.ipmi_checks import CHECKS
from stackprobe.kinds.host.ipmi_command import PasswordMissing, failure, ipmitool_argv, where
from stackprobe.kinds.host.ipmi_table import bmc_tables
from stackprobe.parsers.host.ipmitool_mc import parse_ipmitool_chassis, parse_ipmitool_mc_info
from stackprobe.parsers.host.ipmitool_sel import parse_ipmitool_sel
from stackprobe.parsers.host.ipmitool_sensor import parse_ipmitool_sensor
from stackprobe.schema.bmc_records import BmcRecord
from stackprobe.spec.bmc import BmcSettings
from stackprobe.spec.steps import StepSpec
from stackprobe.transport.local import LocalTransport

# where ipmitool's `-I open` looks for the kernel's IPMI device, in its order
DEVICES = ("/dev/ipmi0", "/dev/ipmi/0", "/dev/ipmidev/0")
IPMITOOL = Tool("ipmitool", "ipmitool", ("ipmitool", "-V"), "BMC checks over IPMI (ipmi)")
# (label, command words, parser, the record field it fills)
PARTS = (("sensor", ["sensor"], parse_ipmitool_sensor, "sensors"),
         ("sel", ["sel", "elist"], parse_ipmitool_sel, "sel"),
         ("chassis", ["chassis", "status"], parse_ipmitool_chassis, "chassis"))


class IpmiStep(StepSpec):
    """Each BMC: answers, sensors within thresholds, event log, chassis faults."""

    kind: Literal["ipmi"]
    # the id of the last SEL entry seen before (ipmitool prints it in hex): entries after it
    # are the step's new events
    sel_since: str | None = Field(default=None, pattern=r"^(0x)?[0-9a-fA-F]{1,4}$")


class IpmiRunner:
    def prepare(self, ctx: StepContext) -> None:
        if ctx.transport is None:  # a BMC entry has no shell: ipmitool runs on this machine
            ctx.transport = LocalTransport()

    def run(self, ctx: StepContext) -> StepOutcome:
        if ctx.host is not None and ctx.fleet is not None:
            host = ctx.fleet[ctx.host].host
            address, bmc = host.address or "", host.bmc or BmcSettings()
        else:
            address, bmc = "", BmcSettings(interface="open")
        at = where(address, bmc)
        name = ctx.host or (ctx.transport.host if ctx.transport else None)
        if bmc.interface == "open":  # this machine's own BMC: only where the kernel offers one
            found = ctx.execute("ipmi-device", ["sh", "-c", f"ls {' '.join(DEVICES)} 2>/dev/null"])
            if found.interrupted:
                return StepOutcome.stopped()
            if not found.stdout.strip():
                return StepOutcome("skipped", error=f"no IPMI device on {name} ({DEVICES[0]}: "
                                   "no BMC, or the ipmi_si / ipmi_devintf modules not loaded)")
        try:
            base, env = ipmitool_argv(address, bmc)
        except PasswordMissing as exc:
            return self._unreachable(name, at, str(exc))
        # -v: ipmitool then says why a login failed ('RAKP 2 HMAC is invalid'), which tells a
        # refused login from a BMC that never answered (the same last line without it)
        result = ctx.execute("ipmitool-mc-info", base + ["-v", "mc", "info"], env=env)
        if result.interrupted:
            return StepOutcome.stopped()
        if not result.ok:
            return self._unreachable(name, at,
                                     failure(result.stderr, result.returncode, address, bmc))
        record = BmcRecord(host=name, address=at, reachable=True, sel_since=ctx.step.spec.sel_since)
        warnings = []
        try:
            record.info = parse_ipmitool_mc_info(result.stdout)
        except ValueError as exc:
            warnings.append(str(exc))
        for label, words, parse, attr in PARTS:
            result = ctx.execute(f"ipmitool-{label}", base + words, env=env)
            if result.interrupted:
                return StepOutcome.stopped([record], warnings)
            if not result.ok:
                warnings.append(f"ipmitool {' '.join(words)}: "
                                + failure(result.stderr, result.returncode, address, bmc))
                continue
            try:
                setattr(record, attr, parse(result.stdout))
            except ValueError as exc:
                warnings.append(str(exc))
        if record.sel_since is not None:
            found = new_since(record.sel, record.sel_since)
            record.new_events = found.entries
            if found.cleared:
                warnings.append(f"SEL entry {record.sel_since} is gone (the log was cleared): "
                                "every entry counts as new")
        return StepOutcome("ok", [record], None, warnings, notes=_notes(record))

    @staticmethod
    def _unreachable(name: str | None, at: str, problem: str) -> StepOutcome:
        record = BmcRecord(host=name, address=at, reachable=False, problem=problem)
        return StepOutcome("failed", [record], problem)

    def cleanup(self, ctx: StepContext) -> None:
        pass


def _notes(record: BmcRecord) -> list[str]:
    notes = [f"sensor {s.name} out of range: {s.out_of_range}" for s in record.out_of_range]
    notes += [f"SEL error {e.id}: {e.sensor}: {e.event}" for e in record.sel_errors]
    if record.chassis and record.chassis.faults:
        notes.append(f"chassis fault: {', '.join(record.chassis.faults)}")
    if record.sel_since is not None:
        notes.append(f"{len(record.new_events)} new SEL entries since {record.sel_since}")
    return notes


class Ipmi(Kind):
    name = "ipmi"
    spec = IpmiStep
    layer = "hardware"
    family = "host"
    hosts = HostMode.EACH
    reach = Reach.MANAGEMENT
    tools = (IPMITOOL,)
    records = (BmcRecord,)
    checks = CHECKS

    def title(self, spec, name):
        return "BMC (IPMI)"

    def estimate_s(self, spec, hosts):
        return 10.0

    def controller_needs(self, spec):
        return ("ipmitool",)  # a BMC entry is asked from here

    def runner(self):
        return IpmiRunner()

    def rows(self, step):
        return []  # findings, not figures: the BMC table and the criteria say them

    def tables(self, steps):
        return bmc_tables(steps)


KIND = Ipmi()
