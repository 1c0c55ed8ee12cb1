"""The network soak: every chosen pair of hosts loaded at once with iperf3, for a long time.

The network matrix measures pairs one at a time; a fabric that passes it can still sag
when every link carries load at once - a congested uplink, a flapping port, error bursts
only heavy traffic brings out (seed 004 ran a long network stress after its pair tests).
So all pairs run together, for `duration` (minutes to hours), in `chunk`s (kinds/chunked.py:
iperf3 3.12 cannot stream its JSON, and a stop or crash must lose at most one chunk).
Each receiving host runs one iperf3 server per pair sending to it (a server serves one
client at a time), ports from `port` up, started in the background and stopped by PID.

Per pair: the per-second series over all chunks, folded as each chunk ends (soak_fold.py:
bounded memory however long the soak) and judged per `period` by the project's stability
rule (analysis/soak.py over analysis/soak_series.py) - and, where pairs share a host's
link, beside that host's steady total (analysis/soak_sharing.py) -, retransmits, and
whether it is slow beside the other pairs under the same load. Per host: NIC and InfiniBand error counters read
before and after (kinds/network/soak_counters.py); a pair whose ends' counters grew is
flagged. The table and the criterion 'stable network under load' are soak_report.py's.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Annotated, Literal

from pydantic import Field

from stackprobe.analysis.soak import flag_counters, flag_slow, soak_verdict
from stackprobe.analysis.soak_sharing import apply_sharing
from stackprobe.kinds.chunked import chunk_lengths, run_chunks
from stackprobe.kinds.context import StepContext, StepOutcome, start_servers, stop_started
from stackprobe.kinds.contract import HostMode, Kind
from stackprobe.kinds.network.network import IPERF3
from stackprobe.kinds.network.pairs import PairHosts, Pairs, members, step_pairs
from stackprobe.kinds.network.soak_chunk import SoakPair, run_chunk
from stackprobe.kinds.network.soak_counters import counter_records, read_counters, soak_nics
from stackprobe.kinds.network.soak_fold import NetSoakFold
from stackprobe.kinds.network.soak_report import StableUnderLoad, soak_rows, soak_tables
from stackprobe.schema.soak_records import NicCountersRecord, SoakPairRecord
from stackprobe.spec.fields import Duration
from stackprobe.spec.steps import StepSpec

SETUP_S = 15.0  # addresses, counters twice, servers up
BETWEEN_CHUNKS_S = 3.0  # the omitted first seconds, one chunk ending and the next connecting


class NetSoakStep(StepSpec):
    """Every chosen ordered pair of the hosts loaded at once with iperf3 for `duration`, in
    `chunk`s; each pair judged stable or not, error counters read before and after."""

    kind: Literal["net_soak"]
    duration: Duration = Duration.of(600)
    chunk: Duration = Duration.of(60)
    period: Duration = Duration.of("1h")  # each judged alone (the storage soaks' rule)
    streams: int = Field(default=2, ge=1, le=128)
    # 'all' ordered pairs, N of them drawn with the run id, or a list of [client, server]
    pairs: Pairs = "all"
    # iperf3 -b per stream (bits/s, K/M/G): a soak at a set load rather than flat out
    bitrate: Annotated[str, Field(pattern=r"^[0-9]+(\.[0-9]+)?[KMG]?$")] | None = None
    port: int = Field(default=5201, ge=1024, le=65000)
    cov_limit: float = Field(default=0.10, gt=0)  # a pair's CoV over time above it: unstable
    dip_fraction: float = Field(default=0.8, gt=0, le=1)  # a second below it x the median
    slow_fraction: float = Field(default=0.7, gt=0, le=1)  # of the median pair's mean


def assign_ports(pairs: list[tuple[str, str]], base: int) -> dict[tuple[str, str], int]:
    """Each pair's server port: base, base+1, ... among the pairs into the same host."""
    taken: dict[str, int] = defaultdict(int)
    out = {}
    for a, b in pairs:
        out[(a, b)] = base + taken[b]
        taken[b] += 1
    return out


class NetSoakRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        spec: NetSoakStep = ctx.step.spec
        found = step_pairs(ctx, "a net_soak step")
        if isinstance(found, str):
            return StepOutcome("failed", error=found)
        by_name, chosen = found
        handles = [by_name[n] for n in members(chosen, list(by_name))]
        ports = assign_ports(chosen, spec.port)
        nics = soak_nics(ctx, handles)
        before = read_counters(ctx, handles, nics, "before")
        for port in sorted(set(ports.values())):
            receivers = {b for (_, b), p in ports.items() if p == port}
            problem = start_servers(ctx, f"iperf3-{port}", port, lambda h, p=port: [
                "iperf3", "-s", "-J", "-B", h.host.address, "-p", str(p)],
                [n for n in by_name if n in receivers])
            if problem:
                return StepOutcome("failed", error=problem)
        pairs = [SoakPair(by_name[a], by_name[b], ports[(a, b)]) for a, b in chosen]
        # whole seconds (iperf3 -t): the chunks' seconds then follow each other on one clock
        lengths = [float(max(1, round(s))) for s in
                   chunk_lengths(spec.duration.seconds, spec.chunk.seconds)]
        starts = [sum(lengths[:i]) for i in range(len(lengths))]
        fold = NetSoakFold(pairs, spec.period.seconds, spec.cov_limit, spec.dip_fraction,
                           one_period=spec.duration.seconds <= spec.period.seconds)
        # each chunk folded as it ends: the loop keeps only whether it was interrupted
        run = run_chunks(lengths, lambda i, s: fold.add(run_chunk(
            ctx, pairs, i, s, starts[i], spec.streams, spec.bitrate)),
            stopped=lambda interrupted: interrupted)
        after = ({h.name: "the soak was stopped: not read after it" for h in handles}
                 if run.stopped else read_counters(ctx, handles, nics, "after"))
        hosts = counter_records(before, after, nics)
        records, totals = judged_pairs(fold, spec)
        flag_counters(records, {h.host: h.deltas for h in hosts})
        found = outcome(records, hosts, run.stopped, len(run.results), len(lengths), spec)
        found.findings["net_soak"]["hosts"] = totals
        return found

    def cleanup(self, ctx: StepContext) -> None:
        problems = stop_started(ctx)
        if problems:
            raise RuntimeError("; ".join(problems))


def judged_pairs(fold: NetSoakFold, spec: NetSoakStep) -> tuple[list[SoakPairRecord], dict]:
    """Each pair's record from its folded chunks, judged (alone, then beside its hosts'
    totals: analysis/soak_sharing.py); slow pairs flagged. Also the judged totals per host."""
    out = fold.records(spec.streams)
    totals = fold.totals.judged()
    for rec in out:
        others = [r for r in out if r.client == rec.client and r is not rec]
        apply_sharing(rec, totals, bool(others) and all(r.stability == "stable" for r in others))
    flag_slow(out, spec.slow_fraction)
    hosts: dict[str, dict] = {}
    for (way, host), judged in totals.items():
        hosts.setdefault(host, {})[way] = judged
    return out, hosts


def outcome(records: list[SoakPairRecord], hosts: list[NicCountersRecord], stopped: bool,
            ran: int, planned: int, spec: NetSoakStep) -> StepOutcome:
    warnings = [n for r in records for n in r.notes]
    warnings += [f"{h.host}: counters not known: {h.error}" for h in hosts if h.error]
    findings = {"net_soak": {
        "verdict": soak_verdict(records), "chunks": ran, "chunks_planned": planned,
        "duration_s": spec.duration.seconds, "chunk_s": spec.chunk.seconds,
        "pairs": len(records), "unstable": [f"{r.client}→{r.server}" for r in records
                                            if r.verdict == "unstable"]}}
    all_records = [*records, *hosts]
    if stopped:
        return StepOutcome("interrupted", all_records, "stopped by the user", warnings,
                           findings=findings)
    if not any(r.seconds for r in records):
        why = next((r.error for r in records if r.error), "no second measured")
        return StepOutcome("failed", all_records, f"no pair could be measured: {why}",
                           warnings, findings=findings)
    return StepOutcome("ok", all_records, None, warnings, findings=findings)


class NetSoak(PairHosts, Kind):
    name = "net_soak"
    spec = NetSoakStep
    layer = "network"
    family = "network"
    hosts = HostMode.PAIRS
    tools = (IPERF3,)
    records = (SoakPairRecord, NicCountersRecord)
    duration_fields = ("duration", "chunk")
    verdict_fields = ("cov_limit", "dip_fraction", "slow_fraction", "port", "period")
    checks = (StableUnderLoad(),)

    def title(self, spec: NetSoakStep, name):
        load = f", {spec.bitrate}bit/s per stream" if spec.bitrate else ""
        return (f"Network soak (iperf3, all pairs at once, {spec.streams} stream(s){load}, "
                f"{spec.duration.seconds:g} s)")

    def headline(self, spec):
        return "bw"

    def estimate_s(self, spec: NetSoakStep, hosts):
        chunks = len(chunk_lengths(spec.duration.seconds, spec.chunk.seconds))
        return spec.duration.seconds + chunks * BETWEEN_CHUNKS_S + SETUP_S

    def rows(self, step):
        return soak_rows(step)

    def tables(self, steps):
        return soak_tables(steps)

    def runner(self):
        return NetSoakRunner()


KIND = NetSoak()
