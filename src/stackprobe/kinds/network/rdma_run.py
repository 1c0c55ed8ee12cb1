"""The `rdma` step's runner: ports read on each host, the pairs that can run, perftest's
server and client for each pair and test, the records and the pair cells
(kinds/network/rdma.py says why and what; docs/fabric.md, "rdma").

Apart from the step's model and Kind so that each file stays small; it reads the typed
spec only.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from stackprobe.analysis.rdma_pairs import build_cells
from stackprobe.kinds.context import STOPPED, StepContext, StepOutcome, failure_message, stop_started
from stackprobe.kinds.network.pairs import step_pairs
from stackprobe.kinds.network.rdma_argv import (
    NO_DEVICE,
    Chosen,
    TestOptions,
    choose_port,
    listing_argv,
    perftest_argv,
)
from stackprobe.kinds.network.rdma_report import KEY
from stackprobe.kinds.probes import root_for
from stackprobe.parsers.network.perftest_text import parse_perftest
from stackprobe.parsers.network.rdma_ports import parse_rdma_ports
from stackprobe.schema.fabric_records import PerftestRecord
from stackprobe.spec.fields import Size
from stackprobe.transport.fleet import HostHandle
from stackprobe.transport.tools import has_tool

if TYPE_CHECKING:
    from stackprobe.kinds.network.rdma import RdmaStep

SERVER_READY_S = 10.0
UNREAD = "its RDMA ports could not be read"


def options(spec: RdmaStep) -> TestOptions:
    size = spec.size.bytes if isinstance(spec.size, Size) else None
    return TestOptions(spec.tcp_port, spec.size == "all", size, spec.iterations,
                       None if spec.duration is None else max(1, round(spec.duration.seconds)),
                       spec.report_gbits, spec.gid_index)


def skip_line(chosen: dict[str, Chosen]) -> str:
    """Why no pair could run, in one line: 'no RDMA device on h1, h2; h3: no ACTIVE ...'."""
    none = [h for h, c in chosen.items() if c.why == NO_DEVICE]
    parts = [f"no RDMA device on {', '.join(none)}"] if none else []
    parts += [f"{h}: {c.why}" for h, c in chosen.items() if c.port is None and c.why != NO_DEVICE]
    return "; ".join(parts) or "no pair of hosts with an RDMA port"


def no_pair(chosen: dict[str, Chosen]) -> StepOutcome:
    """No pair could run: skipped when it is for want of RDMA ports, failed when a host's
    ports could not be read (that host may well have some)."""
    unread = any(c.why and c.why.startswith(UNREAD) for c in chosen.values())
    return StepOutcome("failed" if unread else "skipped", error=skip_line(chosen))


def unmeasured(pairs: list[tuple[str, str]], chosen: dict[str, Chosen]) -> list[str]:
    """A warning per pair left out because one of its hosts has no port to test with."""
    out = []
    for a, b in pairs:
        lacking = [h for h in (a, b) if chosen[h].port is None]
        if lacking:
            out.append(f"{a}→{b} not measured: " + "; ".join(
                f"{h}: {chosen[h].why}" for h in lacking))
    return out


class RdmaRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        spec: RdmaStep = ctx.step.spec
        found = step_pairs(ctx, "an rdma step")
        if isinstance(found, str):
            return StepOutcome("failed", error=found)
        by_name, pairs = found
        names = sorted({h for p in pairs for h in p}, key=list(by_name).index)
        chosen = {n: self._port(ctx, by_name[n], spec) for n in names}
        if any(c.why == STOPPED for c in chosen.values()):
            return StepOutcome.stopped()
        runnable = [(a, b) for a, b in pairs if chosen[a].port and chosen[b].port]
        if not runnable:
            return no_pair(chosen)
        warnings = unmeasured(pairs, chosen)
        missing = self._missing_tools(ctx, spec, by_name, {h for p in runnable for h in p})
        records: list[PerftestRecord] = []
        for a, b in runnable:
            for test in spec.tests:
                rec = self._test(ctx, spec, test, by_name[a], by_name[b], chosen, missing)
                records.append(rec)
                if rec.error == STOPPED:
                    return StepOutcome.stopped(records, warnings)
        cells = build_cells(records, slow_fraction=spec.slow_fraction,
                            latency_factor=spec.latency_factor)
        warnings += [n for c in cells for n in c.notes]
        ports = {n: f"{c.port.name} ({_rate(c)})" for n, c in chosen.items() if c.port}
        findings = {KEY: {"hosts": names, "tests": [f"ib_{t}" for t in spec.tests],
                          "ports": ports, "cells": [c.as_dict() for c in cells]}}
        if all(r.error for r in records):
            return StepOutcome("failed", records, "no pair could be measured", warnings,
                               findings=findings)
        return StepOutcome("ok", records, None, warnings, findings=findings)

    def cleanup(self, ctx: StepContext) -> None:
        problems = stop_started(ctx)
        if problems:
            raise RuntimeError("; ".join(problems))

    # -------------------------------------------------------------- parts

    @staticmethod
    def _port(ctx: StepContext, h: HostHandle, spec: RdmaStep) -> Chosen:
        res = ctx.execute(f"{h.name}-rdma-ports", listing_argv(root_for(spec.probe_root, h.name)),
                          on=h.transport)
        if res.interrupted:
            return Chosen(None, STOPPED)
        if not res.ok:
            return Chosen(None, f"{UNREAD} ({failure_message(res, 'sh')})")
        try:
            ports = parse_rdma_ports(res.stdout)
        except ValueError as exc:
            return Chosen(None, f"{UNREAD} ({exc})")
        return choose_port(ports, spec.device, spec.ib_port)

    @staticmethod
    def _missing_tools(ctx: StepContext, spec: RdmaStep, by_name: dict[str, HostHandle],
                       hosts: set[str]) -> dict[str, list[str]]:
        """{host: perftest programs it lacks} over the hosts that will run a test."""
        tools = [f"ib_{t}" for t in spec.tests]
        missing = {n: [t for t in tools if not has_tool(by_name[n].transport, t)]
                   for n in sorted(hosts)}
        return {n: m for n, m in missing.items() if m}

    def _test(self, ctx: StepContext, spec: RdmaStep, test: str, client: HostHandle,
              server: HostHandle, chosen: dict[str, Chosen], missing: dict[str, list[str]]
              ) -> PerftestRecord:
        tool = f"ib_{test}"
        base = dict(benchmark=tool, title=tool, client=client.name, server=server.name)
        lacking = [h.name for h in (client, server) if tool in missing.get(h.name, [])]
        if lacking:
            return PerftestRecord(**base, error=f"{tool} not found on {', '.join(lacking)} "
                                  "(apt-get install -y perftest)")
        opts = options(spec)
        label = f"{tool}-{client.name}-to-{server.name}"
        server_argv = perftest_argv(tool, chosen[server.name].port, opts, None)
        problem = start_server(ctx.started, server, server_argv, label, spec.tcp_port)
        if problem:
            stop_started(ctx)
            log = ctx.execute(f"{label}-server-log", ["tail", "-n", "5", server_log(server, label)],
                              on=server.transport)  # kept: the scratch goes with the run
            said = [ln.strip() for ln in log.stdout.splitlines() if ln.strip()]
            return PerftestRecord(**base, error=problem + (f" ({said[-1][:200]})" if said else ""))
        res = ctx.execute(label, perftest_argv(tool, chosen[client.name].port, opts,
                                               server.host.address), on=client.transport)
        stop_started(ctx)  # the server exits after its one client; stopped by PID if not
        if res.interrupted:
            return PerftestRecord(**base, error=STOPPED)
        try:
            rec = parse_perftest(res.stdout)[0]
        except ValueError as exc:
            why = failure_message(res, tool) if not res.ok else str(exc)
            return PerftestRecord(**base, error=why)
        return rec.model_copy(update={"client": client.name, "server": server.name,
                                      "benchmark": rec.benchmark or tool})


def server_log(h: HostHandle, label: str) -> str:
    return f"{h.scratch}/{label}-server.log"


def start_server(started: list, h: HostHandle, argv: list[str], label: str,
                 tcp_port: int) -> str | None:
    """One server side on its host, kept in `started` (the step's, for stop_started);
    None once it listens on `tcp_port`, else why not."""
    try:
        proc = h.transport.start(argv, log=server_log(h, label))
    except OSError as exc:
        return f"{h.name}: {argv[0]} server did not start: {exc}"
    started.append((h.name, proc))
    deadline = time.monotonic() + SERVER_READY_S
    while time.monotonic() < deadline:
        if h.listening(tcp_port):
            return None
        if not proc.alive():
            return f"{h.name}: {argv[0]} server exited before listening on port {tcp_port}"
        time.sleep(0.2)
    return f"{h.name}: {argv[0]} server not listening on {h.host.address}:{tcp_port}"


def _rate(c: Chosen) -> str:
    p = c.port
    assert p is not None
    rate = f"{p.rate_gbps:g} Gb/s" if p.rate_gbps is not None else "rate unknown"
    return " ".join(x for x in (rate, p.rate_text and f"{p.rate_text}", p.link_layer) if x)
