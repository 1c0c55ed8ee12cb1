"""One chunk of the network soak: every pair's iperf3 client started together, all awaited.

Each pair's client runs on its sending host against its own server port on the receiving
host (an iperf3 server serves one test at a time). The threads meet at a barrier before
their clients start, so the pairs load the network together. Each client's JSON is read
at once - its per-second intervals (the receiver's: the servers run with -J and the
clients ask for their output) and its totals - and kept gzip-compressed in the step's
`chunks/<client>-to-<server>/` directory (secrets redacted before compression), so a soak
of hours keeps small files and results.json does not list a command per chunk: only each
pair's first chunk is in the step's commands, as the example of the line it ran.
"""

from __future__ import annotations

import gzip
import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from stackprobe.kinds.context import StepContext, command_record
from stackprobe.parsers.network.iperf3_intervals import parse_iperf3_intervals
from stackprobe.parsers.network.iperf3_json import parse_iperf3_json
from stackprobe.schema.records import SeriesPoint
from stackprobe.store.rundir import atomic_write
from stackprobe.transport.base import CommandResult
from stackprobe.transport.fleet import HostHandle

# beyond the chunk's length before a client counts as hung and is killed on its host (by
# coreutils' timeout there: an iperf3 whose end-of-test exchange stalls on a congested link
# would otherwise hold the whole chunk, and a kill sent over that same link may not arrive)
CHUNK_GRACE_S = 20
KILLED = 137  # timeout -s KILL's exit status
# a client whose host's connection stalled (its SSH session starved by the very load the
# soak puts on that host's link): the chunk goes on without it, the pair's chunk failed
STALLED = "no answer from the sending host within the chunk and its grace (connection stalled)"
CONNECT_TIMEOUT_MS = 3000
# iperf3 -O: each chunk's first seconds are TCP's ramp (and a shaped link's burst), left out:
# on a congested link the flows of a new chunk take more than a second to settle
OMIT_S = 2


@dataclass
class SoakPair:
    """A pair of the soak and the server port it uses on its receiving host."""

    client: HostHandle
    server: HostHandle
    port: int

    @property
    def label(self) -> str:
        return f"{self.client.name}-to-{self.server.name}"


@dataclass
class PairChunk:
    """What one pair's client gave in one chunk."""

    points: list[SeriesPoint] = field(default_factory=list)
    retransmits: int | None = None
    tool_version: str | None = None
    error: str | None = None
    interrupted: bool = False


def client_argv(pair: SoakPair, seconds: float, streams: int, bitrate: str | None) -> list[str]:
    length = max(1, round(seconds))
    argv = ["timeout", "-s", "KILL", str(length + OMIT_S + CHUNK_GRACE_S),
            "iperf3", "-c", pair.server.host.address, "-p", str(pair.port), "-t",
            str(length), "-O", str(OMIT_S), "-P", str(streams), "-J",
            "--connect-timeout", str(CONNECT_TIMEOUT_MS), "--get-server-output"]
    return argv + (["-b", bitrate] if bitrate else [])


def run_chunk(ctx: StepContext, pairs: list[SoakPair], index: int, seconds: float,
              offset_s: float, streams: int, bitrate: str | None) -> dict[str, PairChunk]:
    """Every pair's client for `seconds`, started together; {pair label: what it gave}."""
    barrier = threading.Barrier(len(pairs))

    def one(pair: SoakPair) -> PairChunk:
        argv = client_argv(pair, seconds, streams, bitrate)
        try:
            barrier.wait(timeout=30)
        except threading.BrokenBarrierError:
            pass  # a thread that never came: the others still run their chunk
        result = pair.client.transport.run(argv, timeout=seconds + OMIT_S + 2 * CHUNK_GRACE_S)
        _keep(ctx, pair, index, result)
        return read_chunk(result, offset_s)

    pool = ThreadPoolExecutor(max_workers=len(pairs))
    futures = {p.label: pool.submit(one, p) for p in pairs}
    wait(futures.values(), timeout=seconds + OMIT_S + 3 * CHUNK_GRACE_S)
    pool.shutdown(wait=False)  # a client whose host stopped answering is left behind
    return {label: _outcome(f) for label, f in futures.items()}


def _outcome(future: Future) -> PairChunk:
    if not future.done():
        return PairChunk(error=STALLED)
    if future.exception() is not None:  # the host's transport failed: the pair's chunk did
        return PairChunk(error=f"{type(future.exception()).__name__}: {future.exception()}")
    return future.result()


def read_chunk(result: CommandResult, offset_s: float) -> PairChunk:
    """The chunk's seconds and totals, or why there are none."""
    out = PairChunk(interrupted=result.interrupted)
    if result.returncode == KILLED or result.timed_out:
        out.error = f"iperf3 did not end within its chunk and {CHUNK_GRACE_S} s: killed"
        return out
    try:
        net = parse_iperf3_json(result.stdout)
    except ValueError as exc:
        tail = result.stderr.strip()[-200:]
        out.error = f"iperf3: {exc}" + (f": {tail}" if tail else "")
        return out
    out.tool_version, out.retransmits, out.error = net.tool_version, net.retransmits, net.error
    if net.error and not result.interrupted:
        return out
    try:  # an interrupted chunk keeps the seconds it measured before the stop
        out.points = parse_iperf3_intervals(result.stdout, offset_s)
    except ValueError as exc:
        out.error = out.error or str(exc)
    return out


def _keep(ctx: StepContext, pair: SoakPair, index: int, result: CommandResult) -> None:
    """The client's JSON, compressed; its stderr when it said something; the first chunk's
    command in the step's commands."""
    folder = ctx.step_dir / "chunks" / pair.label
    folder.mkdir(parents=True, exist_ok=True)
    name = f"chunk-{index + 1:04d}"
    redact = ctx.run_dir.redactor.text
    atomic_write(folder / f"{name}.json.gz", gzip.compress(redact(result.stdout).encode()))
    if result.stderr.strip() or index == 0:
        ctx.run_dir.write_text(folder / f"{name}.stderr", result.stderr)
    if index == 0:
        ctx.run_dir.write_text(folder / f"{name}.cmd", result.command_line() + "\n")
        ctx.commands.append(command_record(
            result, str((folder / f"{name}.json.gz").relative_to(ctx.base_dir)),
            str((folder / f"{name}.stderr").relative_to(ctx.base_dir))))
