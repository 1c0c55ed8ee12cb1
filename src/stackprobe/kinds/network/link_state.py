"""The `link_state` kind: every NIC, InfiniBand/RoCE port and bond of every host, as the
kernel and drivers say they negotiated, compared with the hosts file and the fleet.

Why before any load: a port that trained at FDR in an EDR fabric, a NIC at 10G on a 25G
switch, a bond running on one leg — each makes every later figure of that host wrong,
and each is visible without moving a byte (seed 004 found its FDR cables only after an
OSU campaign). One probe per host (kinds/network/link_probe_script.py), all hosts at once,
parsed by parsers/network/link_probe.py; judged by analysis/link_fleet.py.

`probe_root:` reads a recorded tree instead of the live host (`{host}` in it stands for
each host's name), so the kind runs for real on recorded machines. Without `--hosts` it
probes this machine.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Literal

from stackprobe.analysis.link_fleet import judge_links
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.kinds.contract import HostMode, Kind, Tool
from stackprobe.kinds.network.link_probe_script import probe_argv
from stackprobe.kinds.network.link_state_checks import NoDegradedLink
from stackprobe.kinds.network.link_table import link_tables
from stackprobe.kinds.probes import ReadsTrees, probe_hosts, probes_outcome
from stackprobe.parsers.network.link_probe import parse_link_probe
from stackprobe.schema.link_records import LinkRecord
from stackprobe.spec.hosts import Host
from stackprobe.spec.steps import StepSpec


class LinkStateStep(StepSpec, ReadsTrees):
    """NIC, InfiniBand/RoCE port and bond state of each host (sysfs, ethtool, ibstat,
    /proc/net/bonding), checked against the hosts file's speeds and the fleet's majority."""

    kind: Literal["link_state"]
    # probe_root (kinds/probes.py): <probe_root>/sys, /proc/net/bonding and /commands are
    # read instead of the live host's


def expected_speeds(host: Host, records: list[LinkRecord]) -> dict[str, float]:
    """{link name: Mb/s} the hosts file expects of the host: its `links:`, and its
    `nic_speed_mbps` for the NIC (or bond) holding its address when `links:` names none."""
    out = {name: float(mbps) for name, mbps in host.links.items()}
    if host.nic_speed_mbps:
        holder = next((r.name for r in records if host.address in r.addresses), None)
        if holder and holder not in out:
            out[holder] = float(host.nic_speed_mbps)
    return out


class LinkStateRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        spec: LinkStateStep = ctx.step.spec
        probed_hosts = probe_hosts(ctx, "link-probe", probe_argv)
        if probed_hosts is None:
            return StepOutcome.stopped()
        records: list[LinkRecord] = []
        warnings: list[str] = []
        expected: dict[str, dict[str, float]] = {}
        probed = []
        for one in probed_hosts:
            name, host, res = one.name, one.host, one.result
            if not res.ok:
                warnings.append(f"{name}: link probe failed: {failure_message(res, 'sh')}")
                continue
            try:
                found = parse_link_probe(res.stdout, host=name)
            except ValueError as exc:
                warnings.append(f"{name}: {exc}")
                continue
            probed.append(name)
            records += found
            if host is not None:
                expected[name] = expected_speeds(host, found)
        verdicts = judge_links(records, expected)
        warnings += [flag for v in verdicts for flag in v.flags]
        findings = {"link_state": {"hosts": probed, "probe_root": spec.probe_root,
                                   "links": [asdict(v) for v in verdicts]}}
        return probes_outcome(probed, records, warnings, findings)

    def cleanup(self, ctx: StepContext) -> None:
        pass


class LinkState(Kind):
    name = "link_state"
    spec = LinkStateStep
    layer = "network"
    family = "network"
    hosts = HostMode.FLEET
    records = (LinkRecord,)
    checks = (NoDegradedLink(),)
    # read where installed (sysfs alone gives state and speed): negotiated modes, driver and
    # firmware from ethtool, InfiniBand port state from ibstat
    tools = (Tool("ethtool", "ethtool", ("ethtool", "--version"), "NIC link modes, driver, firmware"),
             Tool("ibstat", "infiniband-diags", ("ibstat", "-V"), "InfiniBand port state"))

    def needs(self, spec):
        return ()  # the probe runs without them, reading sysfs

    def title(self, spec: LinkStateStep, name):
        return spec.trees_title("Link state")

    def estimate_s(self, spec, hosts):
        return 5.0

    def runner(self):
        return LinkStateRunner()

    def tables(self, steps):
        return link_tables(steps)


KIND = LinkState()
