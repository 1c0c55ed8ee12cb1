"""The network matrix: iperf3 and ping between every ordered pair of the step's hosts.

An FDR cable in an EDR fabric, a port negotiated at 10G on a 25G switch, a bad transceiver
in one direction: each shows only in the pair it sits on, so every ordered pair is measured
(or `pairs: N` random ones on large clusters, drawn reproducibly from the run id). Pairs run
one at a time: two transfers sharing a link would measure each other.

Each host runs an iperf3 server bound to its address (started in the background and
stopped by PID afterwards, also on failure); the client side runs `iperf3 -J` and `ping`
on the sending host. iperf3 exits 0 when it cannot connect: its JSON "error" key makes the
pair a failed pair, not a missing one. Each host's link speed is read from sysfs (the NIC
holding the host's address) and compared with the speed the hosts file expects.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict
from typing import Literal

from pydantic import Field

from stackprobe.analysis.network_matrix import build_matrix, link_speed_mbps
from stackprobe.kinds.context import STOPPED, StepContext, StepOutcome, start_servers, stop_started
from stackprobe.kinds.contract import HostMode, Kind, Tool
from stackprobe.kinds.network.link_checks import NoFlaggedLink
from stackprobe.kinds.network.nic_live import watched
from stackprobe.kinds.network.pairs import PairHosts, Pairs, members, pair_count, step_pairs
from stackprobe.parsers.network.iperf3_json import parse_iperf3_json
from stackprobe.parsers.network.ping import parse_ping, ping_argv
from stackprobe.schema.records import NetRecord, PingRecord
from stackprobe.spec.steps import StepSpec
from stackprobe.tables.rows import Row, base, status_row
from stackprobe.transport.fleet import HostHandle
from stackprobe.units import fmt_bw


class NetworkStep(StepSpec):
    """iperf3 between every ordered pair of the hosts (or `pairs` random ones), with ping
    latency; slow, asymmetric and failed pairs are flagged."""

    kind: Literal["network"]
    seconds: int = Field(default=5, ge=1, le=600)
    streams: int = Field(default=1, ge=1, le=128)
    reverse: bool = False
    pairs: Pairs = "all"
    slow_fraction: float = Field(default=0.7, gt=0, le=1)  # of the expected link speed
    asymmetry: float = Field(default=1.5, gt=1)  # A->B over B->A that is flagged
    port: int = Field(default=5201, ge=1024, le=65535)


def nic_of(ip_addr_text: str, address: str) -> str | None:
    """The interface holding `address`, from `ip -o addr show` lines."""
    for line in ip_addr_text.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[2] in ("inet", "inet6") and \
                parts[3].split("/")[0] == address:
            return parts[1].split("@")[0]
    return None


class NetworkRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        spec: NetworkStep = ctx.step.spec
        found = step_pairs(ctx, "a network step")
        if isinstance(found, str):
            return StepOutcome("failed", error=found)
        by_name, chosen = found
        handles = [by_name[n] for n in members(chosen, list(by_name))]
        links = self._link_speeds(ctx, handles)
        warnings = self._speed_warnings(handles, links)
        port = spec.port
        receivers = {server for _, server in chosen}
        problem = start_servers(ctx, "iperf3", port,
                                lambda h: ["iperf3", "-s", "-B", h.host.address, "-p", str(port)],
                                [n for n in by_name if n in receivers])  # where a pair sends to
        if problem:
            return StepOutcome("failed", error=problem, warnings=warnings)
        records: list[NetRecord | PingRecord] = []
        for a, b in chosen:
            client, server = by_name[a], by_name[b]
            net, ping = self._pair(ctx, client, server, spec, links[client.name].get("nic"))
            records += [net, ping]
            if net.error == STOPPED:
                return StepOutcome.stopped(records, warnings)
        expected = {h.name: h.host.nic_speed_mbps or links[h.name].get("speed_mbps")
                    for h in handles}
        matrix = build_matrix([r for r in records if isinstance(r, NetRecord)],
                              [r for r in records if isinstance(r, PingRecord)], expected,
                              slow_fraction=spec.slow_fraction, asymmetry=spec.asymmetry)
        warnings += matrix.flags()
        findings = {"network": {"hosts": matrix.hosts, "rows": matrix.as_rows(),
                                "links": links, "expected_mbps": expected,
                                "cells": [cell_dict(c) for c in matrix.cells.values()]}}
        ok = [r for r in records if isinstance(r, NetRecord) and not r.error]
        if not ok:
            return StepOutcome("failed", records, "no pair could be measured", warnings,
                               findings=findings)
        return StepOutcome("ok", records, None, warnings, findings=findings)

    def cleanup(self, ctx: StepContext) -> None:
        problems = stop_started(ctx)
        if problems:
            raise RuntimeError("; ".join(problems))

    # -------------------------------------------------------------- parts
    @staticmethod
    def _link_speeds(ctx: StepContext, handles: list[HostHandle]) -> dict[str, dict]:
        """{host: {nic, speed_mbps}} from `ip -o addr show` and /sys/class/net/NIC/speed,
        on every host at once."""
        def one(h: HostHandle) -> dict:
            res = ctx.execute(f"{h.name}-ip-addr", ["ip", "-o", "addr", "show"], on=h.transport)
            nic = nic_of(res.stdout, h.host.address) if res.ok else None
            if nic is None:
                return {"nic": None, "speed_mbps": None}
            speed = ctx.execute(f"{h.name}-link-speed", ["cat", f"/sys/class/net/{nic}/speed"],
                                on=h.transport)
            return {"nic": nic, "speed_mbps": link_speed_mbps(speed.stdout) if speed.ok else None}
        found = ctx.fleet.each(one, [h.name for h in handles])
        return {h.name: found[h.name] for h in handles}

    @staticmethod
    def _speed_warnings(handles: list[HostHandle], links: dict[str, dict]) -> list[str]:
        out = []
        for h in handles:
            want, got = h.host.nic_speed_mbps, links[h.name].get("speed_mbps")
            if want and got and got < want:
                out.append(f"{h.name}: {links[h.name]['nic']} links at {got:.0f} Mb/s, the hosts "
                           f"file expects {want} Mb/s (cable, transceiver or switch port)")
        return out

    @staticmethod
    def _pair(ctx: StepContext, client: HostHandle, server: HostHandle, spec: NetworkStep,
              nic: str | None):
        argv = ["iperf3", "-c", server.host.address, "-p", str(spec.port), "-t",
                str(spec.seconds), "-P", str(spec.streams), "-J", "--connect-timeout", "3000"]
        if spec.reverse:
            argv.append("-R")
        label = f"{client.name}-to-{server.name}"
        res = watched(ctx, client, nic, spec.seconds, spec.reverse, label,
                      lambda: ctx.execute(f"iperf3-{label}", argv, on=client.transport))
        if res.interrupted:
            net = NetRecord(client=client.name, server=server.name, error=STOPPED)
        else:
            try:
                net = parse_iperf3_json(res.stdout)
            except ValueError as exc:
                net = NetRecord(error=f"iperf3: {exc}: {res.stderr.strip()[-200:]}")
            net.client, net.server = client.name, server.name
        pres = ctx.execute(f"ping-{label}", ping_argv(server.host.address), on=client.transport)
        try:
            ping = parse_ping(pres.stdout, client=client.name, server=server.name)
        except ValueError as exc:
            ping = PingRecord(client=client.name, server=server.name, error=str(exc))
        return net, ping


def cell_dict(cell) -> dict:
    """A matrix cell (a dataclass) as the step's findings keep it: the fields that are set."""
    d = asdict(cell)
    return {k: v for k, v in d.items() if v is not None}


IPERF3 = Tool("iperf3", "iperf3", ("iperf3", "--version"), "network bandwidth")
PING = Tool("ping", "iputils-ping", ("ping", "-V"), "round-trip latency between hosts")


class Network(PairHosts, Kind):
    name = "network"
    spec = NetworkStep
    layer = "network"
    family = "network"
    hosts = HostMode.PAIRS
    tools = (IPERF3, PING)
    records = (NetRecord, PingRecord)
    duration_fields = ("seconds",)
    verdict_fields = ("slow_fraction", "asymmetry", "port")
    checks = (NoFlaggedLink(),)

    def title(self, spec: NetworkStep, name):
        return f"Network matrix (iperf3, {spec.streams} stream(s), {spec.seconds} s)"

    def headline(self, spec):
        return "bw"

    def estimate_s(self, spec: NetworkStep, hosts):
        return pair_count(spec.pairs, hosts) * (float(spec.seconds) + 2.0) + 2.0

    def runner(self):
        return NetworkRunner()

    def rows(self, step):
        return matrix_rows(step)


def matrix_rows(step) -> list[Row]:
    """One summary row for the matrix: the median pair's rate and round trip (the grid
    itself is the kind's table), and the slowest pair beside it."""
    nets = [r for r in step.records if isinstance(r, NetRecord) and not r.error
            and (r.received_bps or r.sent_bps)]
    if not nets:
        return [status_row(step, "")]
    rates = sorted(((r.received_bps or r.sent_bps or 0.0), f"{r.client}→{r.server}") for r in nets)
    rtts = [r.rtt_ns["avg"] for r in step.records
            if isinstance(r, PingRecord) and not r.error and "avg" in r.rtt_ns]
    median = statistics.median(b for b, _ in rates)
    slowest, pair = rates[0]
    note = (f"median of {len(rates)} pairs; slowest {pair} {fmt_bw(slowest / 8)} "
            f"({slowest / 1e9:.2f} Gbit/s)") if len(rates) > 1 else ""
    return [Row(test=step.title, direction="", bw_bytes=median / 8, headline="bw",
                lat_mean_ns=statistics.median(rtts) if rtts else None, status=step.status,
                note=note, **base(step, f"{len(rates)} pair(s), ping round trip"))]


KIND = Network()
