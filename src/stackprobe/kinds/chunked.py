"""Long loads in chunks: run a measurement N times back to back, keep each chunk's result.

Why: an hours-long run of one tool invocation loses everything when it is stopped or
crashes, and its output grows without bound (iperf3 3.12 has no streaming JSON; a tool's
one document for a 2 h run is held in memory by tool and runner alike). Cut into chunks,
each chunk's output is read and stored as soon as it ends, so Ctrl-C or a crash loses at
most the running chunk. The network soak (kinds/network/net_soak.py) runs its iperf3
pairs this way; a storage soak (fio in chunks) is meant to reuse it as it is.

`chunk_lengths` splits a duration into chunk lengths; `run_chunks` calls `one(index,
seconds)` for each and stops early when a chunk says the user stopped the run (`stopped`)
or when KeyboardInterrupt reaches this thread - either way with every chunk measured so
far.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")

MIN_CHUNK_S = 1.0


def chunk_lengths(duration_s: float, chunk_s: float) -> list[float]:
    """Whole chunks of `chunk_s` seconds, then the rest (folded into the last chunk when it
    is under MIN_CHUNK_S): 130 s in 60 s chunks -> [60, 60, 10]."""
    if duration_s <= 0 or chunk_s <= 0:
        raise ValueError(f"duration and chunk must be > 0 s, not {duration_s} and {chunk_s}")
    whole = math.floor(duration_s / chunk_s + 1e-9)
    out = [float(chunk_s)] * whole
    rest = duration_s - whole * chunk_s
    if rest >= MIN_CHUNK_S or not out:
        out.append(float(rest) if out else float(duration_s))
    elif rest > 1e-9:
        out[-1] += rest
    return out


@dataclass
class ChunkRun(Generic[T]):
    """What a chunked run measured: every finished chunk's result, in order."""

    results: list[T] = field(default_factory=list)
    planned: int = 0
    stopped: bool = False  # the user stopped it: `results` is what was measured until then

    @property
    def complete(self) -> bool:
        return not self.stopped and len(self.results) == self.planned


def run_chunks(lengths: list[float], one: Callable[[int, float], T], *,
               stopped: Callable[[T], bool] = lambda _: False) -> ChunkRun[T]:
    """one(i, seconds) for each chunk in turn. A chunk whose result `stopped` says was
    interrupted ends the run (its result kept: it may hold the seconds before the stop)."""
    run: ChunkRun[T] = ChunkRun(planned=len(lengths))
    for i, seconds in enumerate(lengths):
        try:
            result = one(i, seconds)
        except KeyboardInterrupt:
            run.stopped = True
            break
        run.results.append(result)
        if stopped(result):
            run.stopped = True
            break
    return run
