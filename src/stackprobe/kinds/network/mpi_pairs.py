"""The `mpi_pairs` kind: MPI ping-pong between pairs of hosts, latency and bandwidth across
message sizes, as seed 004 ran OSU between random node pairs (and found FDR cables in an
EDR fabric).

The benchmark is mpi4py's `python -m mpi4py.bench pingpong` (mpi4py 4.1, under the hosts'
Open MPI): OSU is not packaged for Debian nor on PyPI, hpcc's PingPong gives only min/avg/
max over all pairs at two sizes (docs/fabric.md). mpirun runs here, `-np 2`, rank 0 on the
pair's first host and rank 1 on the second, started over the hosts' SSH with TCP held to
their network (kinds/mpi_launch.py). Pairs run one at a time (two exchanges sharing a link
would measure each other): every ordered pair, `pairs: N` drawn with the run id as seed (as
the network matrix draws them), or the pairs given. The hosts run the interpreter `python:`
names (default: this machine's own, for hosts sharing its filesystem or its venv path);
each is asked for mpi4py >= 4.1 first, so a missing one fails the step in one line naming
the host, before any pair runs. The matrices and flags are analysis/mpi_matrix.py's.

A ping-pong crosses both ways, so it cannot tell which direction of a pair is slow. With
`oneway` (the default) each ordered pair is also streamed one way at `max_size`, as osu_bw
streams: NetPIPE's `NPopenmpi -s` (Debian's netpipe-openmpi), rank 0 the sender; the
bandwidth matrix is then one of directions (analysis/mpi_directions.py) and the ping-pong's
flags only latency. A direction that comes out flagged for bandwidth is streamed again, up
to `oneway_recheck` more rounds while it stays below, as an engineer reruns a slow pair
before writing it down: one stream is a few milliseconds, and on hosts whose cores are busy
one descheduled rank is enough to sink it; a slow link is slow every time.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Literal, TypeVar

from pydantic import Field

from stackprobe.analysis.mpi_directions import (
    build_direction_matrix,
    slow_directions,
    still_slow,
)
from stackprobe.analysis.mpi_matrix import build_mpi_matrix
from stackprobe.kinds.context import STOPPED, StepContext, StepOutcome, failure_message
from stackprobe.kinds.contract import HostMode, Kind
from stackprobe.kinds.mpi_launch import MPIRUN, ORTED, MpiLaunchError, over_hosts
from stackprobe.kinds.network.mpi_report import NoFlaggedMpiPair, mpi_tables
from stackprobe.kinds.network.network import cell_dict
from stackprobe.kinds.network.pairs import PairHosts, Pairs, pair_count, step_pairs
from stackprobe.parsers.network.mpi4py_pingpong import parse_mpi4py_pingpong
from stackprobe.parsers.network.netpipe_text import parse_netpipe
from stackprobe.schema.fabric_records import MpiPairRecord, MpiStreamRecord
from stackprobe.spec.fields import Size
from stackprobe.spec.steps import StepSpec
from stackprobe.spec.tools import Tool
from stackprobe.tables.rows import status_row
from stackprobe.transport.base import CommandResult
from stackprobe.transport.fleet import HostHandle

R = TypeVar("R", MpiPairRecord, MpiStreamRecord)
HUGE = 1 << 20  # its --huge-size: above it, at most 10 iterations (its --loop-huge)
INSTALL = "pip install 'mpi4py>=4.1,<5' into it, or give the step `python:`"
_PROBE = "import mpi4py, mpi4py.bench; print(mpi4py.__version__)"
NETPIPE = Tool("NPopenmpi", "netpipe-openmpi", ("dpkg-query", "-W", "-f=${Version}",
                                                "netpipe-openmpi"),
               "NetPIPE under Open MPI: one-way MPI bandwidth (streaming mode)")


class MpiPairsStep(StepSpec):
    """MPI ping-pong (mpi4py) between every ordered pair of the hosts, `pairs` random ones
    or the pairs listed; pairs whose latency or bandwidth stands out are flagged."""

    kind: Literal["mpi_pairs"]
    pairs: Pairs = "all"
    min_size: Size = Size.of(1)
    max_size: Size = Size.of("4M")  # osu_latency / osu_bw's default largest size
    iterations: int = Field(default=1000, ge=1, le=1_000_000)  # timed exchanges per size
    iterations_large: int = Field(default=100, ge=1, le=1_000_000)  # above large_size
    large_size: Size = Size.of("16k")  # mpi4py's --large-size
    python: str | None = None  # the hosts' interpreter with mpi4py; default: this one's path
    network: str | None = None  # MPI's TCP network; default: the /24 of each host's address
    bind: Literal["core", "socket", "none"] = "core"  # Open MPI's --bind-to
    latency_factor: float = Field(default=1.5, gt=1)  # × the typical pair that is flagged
    slow_fraction: float = Field(default=0.7, gt=0, le=1)  # of the typical pair's bandwidth
    oneway: bool = True  # also stream each ordered pair one way at max_size (NetPIPE -s)
    oneway_repeats: int = Field(default=50, ge=1, le=100_000)  # messages per timed trial (7 trials)
    oneway_recheck: int = Field(default=1, ge=0, le=10)  # rounds streaming flagged directions again


def sizes(spec: MpiPairsStep) -> list[int]:
    """The message sizes mpi4py will print: powers of two from min_size to max_size."""
    return [1 << i for i in range(33) if spec.min_size.bytes <= 1 << i <= spec.max_size.bytes]


def bench_argv(spec: MpiPairsStep, python: str) -> list[str]:
    """`-a none`: plain bytearray buffers, so the hosts need no NumPy (the buffer type does
    not change what MPI sends)."""
    return [python, "-m", "mpi4py.bench", "pingpong", "-a", "none",
            "-m", str(spec.min_size.bytes), "-n", str(spec.max_size.bytes),
            "-l", str(spec.iterations), "--loop-large", str(spec.iterations_large),
            "--large-size", str(spec.large_size.bytes)]


def stream_argv(spec: MpiPairsStep) -> list[str]:
    """NetPIPE streaming (`-s`) at max_size alone (`-l`/`-u`, no perturbed sizes `-p 0`),
    `-n` messages per trial; its file of rows goes nowhere: the rows are on its stderr."""
    size = str(spec.max_size.bytes)
    return ["NPopenmpi", "-s", "-l", size, "-u", size, "-p", "0",
            "-n", str(spec.oneway_repeats), "-o", "/dev/null"]


def version_ok(text: str) -> bool:
    """mpi4py's version as printed is 4.1 or later (pingpong appeared in 4.1)."""
    parts = text.strip().split(".")
    try:
        return (int(parts[0]), int(parts[1])) >= (4, 1)
    except (ValueError, IndexError):
        return False


class MpiPairsRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        spec: MpiPairsStep = ctx.step.spec
        found = step_pairs(ctx, "an mpi_pairs step")
        if isinstance(found, str):
            return StepOutcome("failed", error=found)
        by_name, chosen = found
        python = spec.python or sys.executable
        used = [by_name[n] for n in by_name if any(n in p for p in chosen)]
        try:
            launch = over_hosts(ctx.fleet, used, spec.network, os.geteuid() == 0, "mpi_pairs")
        except MpiLaunchError as exc:
            return StepOutcome("failed", error=str(exc))
        for h in used:
            problem = self._check_python(ctx, h, python)
            if problem:
                return StepOutcome("failed", error=problem)
        records: list[MpiPairRecord] = []
        streams: list[MpiStreamRecord] = []
        for a, b in chosen:
            rec = self._pair(ctx, by_name[a], by_name[b], spec, launch, python)
            records.append(rec)
            if rec.error == STOPPED:
                return StepOutcome.stopped([*records, *streams])
            if spec.oneway:
                one = self._stream(ctx, by_name[a], by_name[b], spec, launch)
                streams.append(one)
                if one.error == STOPPED:
                    return StepOutcome.stopped([*records, *streams])
        if streams and self._recheck(ctx, by_name, spec, launch, streams):
            return StepOutcome.stopped([*records, *streams])
        matrix = build_mpi_matrix(records, latency_factor=spec.latency_factor,
                                  slow_fraction=spec.slow_fraction, flag_bandwidth=not streams)
        findings = {"mpi_pairs": {
            "hosts": matrix.hosts, "latency_size": matrix.latency_size,
            "bw_size": matrix.bw_size, "typical_latency_ns": matrix.typical_latency_ns,
            "typical_bw_bytes": matrix.typical_bw_bytes, "host_notes": matrix.host_notes,
            "cells": [cell_dict(c) for c in matrix.cells.values()]}}
        flags = matrix.flags()
        if streams:
            oneway = build_direction_matrix(streams, slow_fraction=spec.slow_fraction)
            findings["mpi_pairs"]["oneway"] = {
                "size": oneway.size, "typical_bw_bytes": oneway.typical_bw_bytes,
                "host_notes": oneway.host_notes,
                "cells": [cell_dict(c) for c in oneway.cells.values()]}
            flags += oneway.flags()
        kept = [*records, *streams]
        if not any(r.rows for r in records):
            return StepOutcome("failed", kept, "no pair could be measured", flags,
                               findings=findings)
        return StepOutcome("ok", kept, None, flags, findings=findings)

    def cleanup(self, ctx: StepContext) -> None:
        pass

    def _recheck(self, ctx: StepContext, by_name: dict[str, HostHandle], spec: MpiPairsStep,
                 launch: list[str], streams: list[MpiStreamRecord]) -> bool:
        """The directions the first streams flag for bandwidth, streamed again in rounds
        (each still-slow direction once per round, so a direction's streams are apart in
        time, not back to back), at most `oneway_recheck` rounds; a direction leaves once a
        stream is not below `slow_fraction` of the first streams' typical direction. The
        new records join `streams`. True when stopped."""
        first = build_direction_matrix(streams, slow_fraction=spec.slow_fraction)
        slow = slow_directions(first)
        for take in range(2, spec.oneway_recheck + 2):
            still = []
            for a, b in slow:
                one = self._stream(ctx, by_name[a], by_name[b], spec, launch, take)
                streams.append(one)
                if one.error == STOPPED:
                    return True
                if still_slow(first, one, spec.slow_fraction):
                    still.append((a, b))
            slow = still
        return False

    @staticmethod
    def _check_python(ctx: StepContext, h: HostHandle, python: str) -> str | None:
        """None when `python` on the host has mpi4py 4.1 or later; else one line."""
        res = ctx.execute(f"{h.name}-mpi4py", [python, "-c", _PROBE], on=h.transport)
        if res.ok and version_ok(res.stdout):
            return None
        why = (f"mpi4py {res.stdout.strip()} has no pingpong" if res.ok
               else failure_message(res, python))
        return f"{h.name}: {python} cannot run mpi4py's ping-pong ({why}): {INSTALL}"

    @staticmethod
    def _pair(ctx: StepContext, a: HostHandle, b: HostHandle, spec: MpiPairsStep,
              launch: list[str], python: str) -> MpiPairRecord:
        return _under_mpirun(ctx, a, b, spec, launch, "pingpong", bench_argv(spec, python),
                             MpiPairRecord,
                             lambda res: parse_mpi4py_pingpong(res.stdout, spec.max_size.bytes)[-1])

    @staticmethod
    def _stream(ctx: StepContext, a: HostHandle, b: HostHandle, spec: MpiPairsStep,
                launch: list[str], take: int = 1) -> MpiStreamRecord:
        """a → b one way: NetPIPE's rank 0 (the transmitter) on a, rank 1 on b. NetPIPE
        writes its rows to stderr, its start-up lines to stdout. `take`: which stream of
        this direction (its output files `stream-a-to-b`, then `stream2-a-to-b`, ...)."""
        label = "stream" if take == 1 else f"stream{take}"
        return _under_mpirun(ctx, a, b, spec, launch, label, stream_argv(spec),
                             MpiStreamRecord,
                             lambda res: parse_netpipe(f"{res.stdout.rstrip(chr(10))}\n"
                                                       f"{res.stderr}")[0])


def _under_mpirun(ctx: StepContext, a: HostHandle, b: HostHandle, spec: MpiPairsStep,
                  launch: list[str], label: str, program: list[str], record: type[R],
                  parse: Callable[[CommandResult], R]) -> R:
    """`program` under mpirun, rank 0 on a and rank 1 on b; what `parse` reads of it (a
    record with the pair's hosts), or a record saying why there is none."""
    argv = ["mpirun", "-np", "2", "--host", f"{a.host.address},{b.host.address}",
            "--bind-to", spec.bind, *launch, *program]
    res = ctx.execute(f"{label}-{a.name}-to-{b.name}", argv)
    if res.interrupted:
        return record(client=a.name, server=b.name, error=STOPPED)
    try:
        rec = parse(res)
    except ValueError as exc:
        rec = record(error=str(exc) if res.ok else failure_message(res, "mpirun"))
    else:
        if not res.ok:
            rec.error = failure_message(res, "mpirun")
    rec.client, rec.server = a.name, b.name
    return rec


class MpiPairs(PairHosts, Kind):
    name = "mpi_pairs"
    spec = MpiPairsStep
    layer = "network"
    family = "network"
    hosts = HostMode.PAIRS
    tools = (MPIRUN, ORTED, NETPIPE)
    records = (MpiPairRecord, MpiStreamRecord)
    verdict_fields = ("latency_factor", "slow_fraction", "oneway_recheck")
    checks = (NoFlaggedMpiPair(),)

    def title(self, spec: MpiPairsStep, name):
        if spec.oneway:
            return "MPI ping-pong (mpi4py) and one-way bandwidth (NetPIPE) between host pairs"
        return "MPI ping-pong between host pairs (mpi4py)"

    def headline(self, spec):
        return "lat"

    def needs(self, spec: MpiPairsStep):
        return ("orted", "NPopenmpi") if spec.oneway else ("orted",)

    def controller_needs(self, spec):
        return ("mpirun",)

    def workload_text(self, params):
        text = f"ping-pong {params.get('min_size', 1)}..{params.get('max_size', '4M')} B"
        return text + (" + one-way" if params.get("oneway", True) else "")

    def estimate_s(self, spec: MpiPairsStep, hosts: int):
        """Per pair: mpirun's start over SSH, then each size at 100 µs plus the message
        both ways at 1 Gbit/s (erring long)."""
        pairs = pair_count(spec.pairs, hosts)
        per_pair = 3.0
        for size in sizes(spec):
            loops = spec.iterations if size <= spec.large_size.bytes else min(
                spec.iterations, spec.iterations_large)
            loops = min(loops, 10) if size > HUGE else loops
            per_pair += loops * (100e-6 + 2 * size / 125e6)
        if spec.oneway:  # mpirun's start again, NetPIPE's trials (about 7) at 1 Gbit/s
            per_pair += 3.0 + 7 * spec.oneway_repeats * spec.max_size.bytes / 125e6
        return pairs * per_pair + 2.0

    def runner(self):
        return MpiPairsRunner()

    def rows(self, step):
        return [status_row(step, self.workload_text(step.params))]

    def tables(self, steps):
        return mpi_tables(steps)


KIND = MpiPairs()
