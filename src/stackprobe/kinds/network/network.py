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

import itertools
import random
from dataclasses import asdict

from stackprobe.analysis.network_matrix import build_matrix, link_speed_mbps
from stackprobe.parsers.network.iperf3_json import parse_iperf3_json
from stackprobe.parsers.network.ping import parse_ping, ping_argv
from stackprobe.schema.records import NetRecord, PingRecord
from stackprobe.kinds.context import StepContext, StepOutcome, start_servers, stop_started
from stackprobe.transport.fleet import HostHandle



def choose_pairs(names: list[str], pairs: str | int, seed: str) -> list[tuple[str, str]]:
    """All ordered pairs, or `pairs` of them drawn with a seed (the same run id, the same
    pairs), in a stable order."""
    every = list(itertools.permutations(names, 2))
    if pairs == "all" or int(pairs) >= len(every):
        return every
    return sorted(random.Random(seed).sample(every, int(pairs)))


def nic_of(ip_addr_text: str, address: str) -> str | None:
    """The interface holding `address`, from `ip -o addr show` lines."""
    for line in ip_addr_text.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[2] in ("inet", "inet6") and \
                parts[3].split("/")[0] == address:
            return parts[1].split("@")[0]
    return None


class NetworkRunner:
    kind = "network"

    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        p = ctx.step.params
        if ctx.fleet is None or len(ctx.step.hosts) < 2:
            return StepOutcome("failed", error="a network step needs --hosts and at least "
                               "2 hosts in its `hosts:`")
        handles = ctx.fleet.select(ctx.step.hosts)
        by_name = {h.name: h for h in handles}
        links = self._link_speeds(ctx, handles)
        warnings = self._speed_warnings(handles, links)
        port = int(p["port"])
        problem = start_servers(ctx, "iperf3", port,
                                lambda h: ["iperf3", "-s", "-B", h.host.address, "-p", str(port)])
        if problem:
            return StepOutcome("failed", error=problem, warnings=warnings)
        records: list[NetRecord | PingRecord] = []
        for a, b in choose_pairs([h.name for h in handles], p["pairs"], ctx.run_dir.run_id):
            client, server = by_name[a], by_name[b]
            net, ping = self._pair(ctx, client, server, p)
            records += [net, ping]
            if net.error == "stopped by the user":
                return StepOutcome("interrupted", records, "stopped by the user", warnings)
        expected = {h.name: h.host.nic_speed_mbps or links[h.name].get("speed_mbps")
                    for h in handles}
        matrix = build_matrix([r for r in records if isinstance(r, NetRecord)],
                              [r for r in records if isinstance(r, PingRecord)], expected,
                              slow_fraction=p["slow_fraction"], asymmetry=p["asymmetry"])
        warnings += matrix.flags()
        findings = {"network": {"hosts": matrix.hosts, "rows": matrix.as_rows(),
                                "links": links, "expected_mbps": expected,
                                "cells": [_cell_dict(c) for c in matrix.cells.values()]}}
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
        """{host: {nic, speed_mbps}} from `ip -o addr show` and /sys/class/net/NIC/speed."""
        def one(h: HostHandle) -> dict:
            res = ctx.execute(f"{h.name}-ip-addr", ["ip", "-o", "addr", "show"], on=h.transport)
            nic = nic_of(res.stdout, h.host.address) if res.ok else None
            if nic is None:
                return {"nic": None, "speed_mbps": None}
            speed = ctx.execute(f"{h.name}-link-speed", ["cat", f"/sys/class/net/{nic}/speed"],
                                on=h.transport)
            return {"nic": nic, "speed_mbps": link_speed_mbps(speed.stdout) if speed.ok else None}
        return {h.name: one(h) for h in handles}

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
    def _pair(ctx: StepContext, client: HostHandle, server: HostHandle, p: dict):
        argv = ["iperf3", "-c", server.host.address, "-p", str(p["port"]), "-t",
                str(p["seconds"]), "-P", str(p["streams"]), "-J", "--connect-timeout", "3000"]
        if p["reverse"]:
            argv.append("-R")
        label = f"{client.name}-to-{server.name}"
        res = ctx.execute(f"iperf3-{label}", argv, on=client.transport)
        if res.interrupted:
            net = NetRecord(client=client.name, server=server.name, error="stopped by the user")
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


def _cell_dict(cell) -> dict:
    d = asdict(cell)
    return {k: v for k, v in d.items() if v is not None}
