"""Command lines of the memory-bandwidth tools, and how to read what each one prints.

Pure functions: they build argv lists and never run anything, so the same lists serve a
local subprocess and a remote host over SSH. MEMORY_TOOLS ties each builder to its parser
and to the stream the tool writes its figures on (stress-ng logs to stderr, not stdout).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from stackprobe.parsers.host.memory import (
    parse_mbw,
    parse_stress_ng_stream,
    parse_sysbench_memory,
    stress_ng_stream_too_short,
)
from stackprobe.schema.records import MemBwRecord

# stress-ng's stream stressor reports no rate below about 5 s of run time ('run duration too
# short to determine memory rate' at 3 s). Its arrays follow the CPU cache it finds, so a
# host with a large L3 needs longer: at 300 MiB, 10 s was too short and 15 s enough. A run
# it calls too short is run again at twice the length, up to the longest.
STRESS_NG_STREAM_MIN_SECONDS = 10
STRESS_NG_STREAM_MAX_SECONDS = 40


def _positive(name: str, value: int | float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"{name} must be a positive number, not {value!r}")


# Each sysbench thread sweeps its own buffer of this size over and over; a buffer that
# fits in the CPU caches measures the caches (1 MiB gave 130 GB/s read on a 2-vCPU VM
# whose DRAM gives 55). 256 MiB per thread is past any single L3 in service today.
SYSBENCH_BLOCK_BYTES = 256 * 1024**2


def sysbench_memory_argv(
    operation: str,
    threads: int,
    total_bytes: int,
    time_s: int,
    block_bytes: int = SYSBENCH_BLOCK_BYTES,
) -> list[str]:
    """`sysbench memory` moving `total_bytes` in `block_bytes` sequential sweeps per thread,
    or for `time_s` s.

    Whichever limit comes first ends the run; the parser reads what was really moved.
    """
    if operation not in ("read", "write"):
        raise ValueError(f"sysbench memory operation must be 'read' or 'write', not {operation!r}")
    for name, value in (("threads", threads), ("total_bytes", total_bytes), ("time_s", time_s),
                        ("block_bytes", block_bytes)):
        _positive(name, value)
    return [
        "sysbench",
        "memory",
        f"--threads={int(threads)}",
        f"--memory-block-size={int(block_bytes)}",
        f"--memory-total-size={int(total_bytes)}",  # plain bytes are accepted
        f"--memory-oper={operation}",
        "--memory-access-mode=seq",
        f"--time={int(time_s)}",
        "run",
    ]


def mbw_argv(mib: int, runs: int) -> list[str]:
    """`mbw -q` copying a `mib` MiB array `runs` times with each of its three methods.

    mbw allocates two arrays of this size.
    """
    _positive("mib", mib)
    _positive("runs", runs)
    return ["mbw", "-q", "-n", str(int(runs)), str(int(mib))]


def stress_ng_stream_argv(workers: int, seconds: int) -> list[str]:
    """`stress-ng --stream` with `workers` instances for `seconds` (at least 10)."""
    _positive("workers", workers)
    if seconds < STRESS_NG_STREAM_MIN_SECONDS:
        raise ValueError(
            f"stress-ng stream needs at least {STRESS_NG_STREAM_MIN_SECONDS} s to report a "
            f"memory rate, not {seconds}"
        )
    return [
        "stress-ng",
        "--stream",
        str(int(workers)),
        "--timeout",
        f"{int(seconds)}s",
        "--metrics-brief",
    ]


@dataclass(frozen=True)
class MemoryTool:
    """One memory-bandwidth tool: how to start it and how to read it.

    `parse(text, **argv_kwargs)` takes the same keyword arguments as `argv`, because some
    outputs do not say everything (sysbench's result line does not name the operation).
    """

    name: str
    argv: Callable[..., list[str]]
    parse: Callable[..., list[MemBwRecord]]
    output: Literal["stdout", "stderr"]
    # the keyword arguments of a longer run when the tool said this one was too short
    longer: Callable[[dict[str, Any], str], dict[str, Any] | None] | None = None


def _parse_sysbench(text: str, **kwargs: Any) -> list[MemBwRecord]:
    return [parse_sysbench_memory(text, kwargs["operation"])]


def _parse_mbw(text: str, **_kwargs: Any) -> list[MemBwRecord]:
    return parse_mbw(text)


def _parse_stress_ng(text: str, **_kwargs: Any) -> list[MemBwRecord]:
    return parse_stress_ng_stream(text)


def longer_stress_ng_stream(kwargs: dict[str, Any], text: str) -> dict[str, Any] | None:
    """Twice the seconds when stress-ng called the run too short, while that stays within
    STRESS_NG_STREAM_MAX_SECONDS; None otherwise."""
    seconds = 2 * int(kwargs["seconds"])
    if not stress_ng_stream_too_short(text) or seconds > STRESS_NG_STREAM_MAX_SECONDS:
        return None
    return {**kwargs, "seconds": seconds}


MEMORY_TOOLS: dict[str, MemoryTool] = {
    "sysbench": MemoryTool("sysbench", sysbench_memory_argv, _parse_sysbench, "stdout"),
    "mbw": MemoryTool("mbw", mbw_argv, _parse_mbw, "stdout"),
    "stress-ng": MemoryTool("stress-ng", stress_ng_stream_argv, _parse_stress_ng, "stderr",
                            longer_stress_ng_stream),
}
