"""A Ceph tool on every client host at once: the start, the start times, the spread.

Every client's command is released by one barrier (`Fleet.each(together=True)`); each
client was set up (image, mount) in the step's prepare. Sending a command over SSH to many
hosts at once takes a while and not the same while on each (measured here: up to 0.6 s
apart on a busy 2-core machine), so the commands carry a start time instead — now + 1 s
when the barrier opens — and each host waits for it on its own clock before the tool
starts: `sh -c 'wait until T; date +%s.%N >&2; exec TOOL ...'`. The first line of stderr is
the moment the tool started there, so the start skew is measured where the load starts.
Ceph's clients and servers keep their clocks in step (the monitors warn above 0.05 s), so
a shared start time is as good as the clocks; a host that gets its command after T starts
at once, late, and the skew says so.

The all-clients record of one phase is taken over the window every client ran in
(analysis/client_window.py); the clients' own figures are compared like nodes
(analysis/consistency.py), so a client that could not keep up is named.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from stackprobe.analysis.client_window import (
    SKEW_GOAL_S,
    ClientRun,
    WindowFigures,
    common_window,
    start_skew,
    window_figures,
)
from stackprobe.analysis.consistency import judge
from stackprobe.analysis.io_summary import weighted_mean
from stackprobe.kinds.ceph.clients import CephClient
from stackprobe.kinds.context import StepContext, failure_message
from stackprobe.schema.records import IoRecord, IoStats
from stackprobe.schema.sentinels import FLEET_HOST
from stackprobe.transport.base import CommandResult
from stackprobe.transport.fleet import HostHandle
from stackprobe.units import fmt_bw

# $1: the start time in ns since the epoch; sleep until then (GNU sleep takes fractions)
STAMP = ('d=$(( ($1 - $(date +%s%N)) / 1000000 )); shift; '
         'if [ "$d" -gt 0 ]; then sleep "$((d / 1000)).$(printf %03d $((d % 1000)))"; fi; '
         'date +%s.%N >&2; exec "$@"')
# from the barrier to the agreed start: enough to reach every host (a command over a lab
# host's SSH takes 6-25 ms; the skews seen with 0.3 s for three clients: at most 52 ms)
LEAD_BASE_S = 0.3
LEAD_PER_HOST_S = 0.01


def lead_s(hosts: int) -> float:
    """How far ahead of the barrier the clients' start is set: more hosts, more commands
    to hand out before it (a late one starts at once and its skew is measured, not hidden)."""
    return LEAD_BASE_S + LEAD_PER_HOST_S * hosts


def stamped(argv: list[str], start_ns: int) -> list[str]:
    return ["sh", "-c", STAMP, "sh", str(start_ns), *argv]


def start_of(stderr: str) -> float | None:
    """The start time the stamp printed (the first line of stderr), or None."""
    first = stderr.lstrip().split("\n", 1)[0].strip()
    try:
        return float(first)
    except ValueError:
        return None


@dataclass
class ClientResult:
    client: CephClient
    result: CommandResult
    start: float | None


def run_together(ctx: StepContext, label: str, argv_of: Callable[[CephClient], list[str]],
                 env_of: Callable[[CephClient], dict[str, str]] | None = None,
                 watch_of: Callable[[CephClient, float], Callable[[str], bool]] | None = None,
                 ) -> dict[str, ClientResult]:
    """argv_of(client) on every host of the step, all released together. watch_of(client,
    t0) gives the client's stdout watcher; t0 is the agreed start on time.monotonic()."""
    assert ctx.fleet is not None and ctx.ceph is not None
    clients = {h.name: ctx.ceph.clients.of(h) for h in ctx.fleet.select(ctx.step.hosts)}
    start: list[int] = []  # set by the first thread through the barrier
    lock = threading.Lock()

    def go(h: HostHandle) -> ClientResult:
        with lock:
            if not start:
                start.append(time.time_ns() + int(lead_s(len(clients)) * 1e9))
        c = clients[h.name]
        t0 = time.monotonic() + (start[0] / 1e9 - time.time())
        res = ctx.execute(f"{label}-{h.name}", stamped(argv_of(c), start[0]), on=h.transport,
                          env=env_of(c) if env_of else None,
                          on_stdout=watch_of(c, t0) if watch_of else None)
        return ClientResult(c, res, start_of(res.stderr))

    return ctx.fleet.each(go, list(clients), together=True)  # type: ignore[return-value]


def parsed(results: dict[str, ClientResult], parse: Callable[[str, str], IoRecord], tool: str,
           what: str) -> tuple[list[tuple[IoRecord, float | None]], list[str]]:
    """(each client's record with its start, each failure in words): the tool's own
    words when it failed, else why its output could not be read. parse(host, stdout)."""
    clients, failed = [], []
    for name, r in results.items():
        try:
            rec = parse(name, r.result.stdout)
        except ValueError as exc:
            failed.append(f"{name}: " + (failure_message(r.result, tool) if not r.result.ok
                                         else f"{what}: {exc}"))
            continue
        rec.host = name
        clients.append((rec, r.start))
    return clients, failed


@dataclass
class Phase:
    """One phase (a rados bench mode, an rbd bench I/O type) on all clients."""

    records: list[IoRecord]  # each client's, then the all-clients one
    skew_s: float | None
    window_s: float | None
    warnings: list[str]
    spread: dict | None  # the clients compared (analysis/consistency), as stored


def all_clients(directions: tuple[str, ...], label: str,
                clients: Sequence[tuple[IoRecord, float | None]], groupid: int | None) -> Phase:
    """The all-clients record of one phase from each client's record and start time.
    Over the common window when the phase has one direction (a series of a mixed load
    does not split its seconds by direction); else each client's own run, summed."""
    recs = [r for r, _ in clients]
    starts = [s for _, s in clients if s is not None]
    skew = start_skew(starts) if len(starts) == len(clients) else None
    runs = [ClientRun(r.host or "?", s, r.series or []) for r, s in clients if s is not None]
    window = (common_window(runs) if len(runs) == len(clients) and len(directions) == 1
              else None)
    figures = window_figures(runs, window) if window is not None else None
    merged = IoRecord(tool=recs[0].tool, tool_version=recs[0].tool_version,
                      source_format="merged", job=f"{label} ({len(recs)} clients)",
                      host=FLEET_HOST, groupid=groupid, jobs=len(recs),
                      workload=dict(recs[0].workload))
    warnings = []
    if figures is None and len(directions) == 1:
        warnings.append(f"{label}: no window in which every client reported each second; "
                        "the all-clients figures are the sums of each client's own run")
    for d in directions:
        setattr(merged, d, _merged_stats([getattr(r, d) for r in recs], figures))
    if skew is not None and skew > SKEW_GOAL_S:
        warnings.append(f"{label}: clients started {skew:.2f} s apart (goal: under "
                        f"{SKEW_GOAL_S:g} s)")
    verdict = judge({r.host or "?": sum(getattr(r, d).bw_bytes for d in directions)
                     for r in recs}, metric=f"{label} bandwidth", unit="B/s", fmt=fmt_bw)
    if verdict is not None:
        warnings += [f"client {s}" for s in verdict.sentences()]
    return Phase([*recs, merged], skew, window.seconds if window else None, warnings,
                 verdict.as_dict() if verdict is not None else None)


def _merged_stats(own: list[IoStats], figures: WindowFigures | None) -> IoStats:
    """Rates over the window (or summed), mean latency I/O-weighted, max the clients' max."""
    lat_max = max((s.lat_ns.get("max", 0.0) for s in own), default=0.0) or None
    if figures is not None:
        return IoStats(iops=figures.iops, bw_bytes=figures.bw_bytes,
                       total_ios=round(figures.ios), runtime_ms=figures.seconds * 1000,
                       lat_ns=_present(mean=figures.lat_mean_ns, max=lat_max))
    return IoStats(iops=sum(s.iops for s in own), bw_bytes=sum(s.bw_bytes for s in own),
                   total_ios=sum(s.total_ios or 0 for s in own),
                   runtime_ms=max((s.runtime_ms or 0) for s in own),
                   lat_ns=_present(mean=weighted_mean(own, "lat_ns"), max=lat_max))


def _present(**values: float | None) -> dict[str, float]:
    return {k: v for k, v in values.items() if v is not None}


def findings_of(phases: dict[str, Phase]) -> dict:
    """findings of a Ceph fleet step: each phase's start skew and window, and the clients
    compared ('consistency', drawn like the node-to-node tables)."""
    out: dict = {"clients": {label: {"start_skew_s": p.skew_s, "window_s": p.window_s}
                             for label, p in phases.items()}}
    spreads = [p.spread for p in phases.values() if p.spread is not None]
    if spreads:
        out["consistency"] = spreads
    return out
