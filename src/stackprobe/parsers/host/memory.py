"""Memory-bandwidth tool outputs -> MemBwRecords (bw_bytes in bytes/s).

Three tools, three ideas of a "memory bandwidth", so each record names its tool and operation
and none is converted into another:

- sysbench memory: MiB moved by N threads over and over one block-sized buffer (shared with
  the default --memory-scope=global, one per thread with local). A 1 MiB buffer stays in
  CPU cache, so the figure is cache bandwidth, not DRAM bandwidth.
- mbw: single-threaded copies of one array into another; 'Copy' counts each byte once,
  although a copy both reads and writes it.
- stress-ng --stream: STREAM-like kernels per worker; each worker logs its own read and write
  rate, and the machine total is their sum. stress-ng prints 'MB' but means MiB: its source
  divides by MB = 1024 * 1024, and its own output agrees - each stream round reads 48 and
  writes 32 bytes per 4 flops, and Mflop/s (decimal) x 12e6 / 'MB read/sec' = 1048576.

All three print binary units (MiB) whatever the label says. The parsers are pure: text in,
records out, ValueError when the text does not hold the figure.
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import guard
from stackprobe.schema.records import MemBwRecord
from stackprobe.units import parse_size

MIB = 1024**2

# ---------------------------------------------------------------- sysbench memory

_SB_VERSION = re.compile(r"^sysbench (\S+)", re.MULTILINE)
_SB_THREADS = re.compile(r"^Number of threads:\s*(\d+)", re.MULTILINE)
_SB_BLOCK = re.compile(r"^\s*block size:\s*(\S+)", re.MULTILINE)
_SB_OPER = re.compile(r"^\s*operation:\s*(\S+)", re.MULTILINE)
_SB_TRANSFERRED = re.compile(
    r"^([0-9.]+) MiB transferred \(([0-9.]+) MiB/sec\)", re.MULTILINE
)
_SB_FATAL = re.compile(r"^FATAL: (.*)$", re.MULTILINE)


@guard("sysbench memory output")
def parse_sysbench_memory(text: str, operation: str) -> MemBwRecord:
    """The record of one `sysbench memory ... run` output.

    `operation` is the --memory-oper the run was started with ('read' or 'write'); the header
    repeats it, and a mismatch raises so a mislabelled file cannot pass as the other direction.
    Bandwidth comes from the 'X MiB transferred (Y MiB/sec)' line, total_bytes from X (what
    was really moved: a --time limit can stop the run before --memory-total-size).
    """
    fatal = _SB_FATAL.search(text)
    if fatal:
        raise ValueError(f"sysbench failed: {' '.join(fatal.group(1).split())}")  # no '\r' in it
    m = _SB_TRANSFERRED.search(text)
    if not m:
        raise ValueError("no 'MiB transferred (... MiB/sec)' line: not a sysbench memory run")
    printed_oper = _SB_OPER.search(text)
    if printed_oper and printed_oper.group(1) != operation:
        raise ValueError(
            f"sysbench output is a {printed_oper.group(1)!r} run, not {operation!r}"
        )
    version = _SB_VERSION.search(text)
    threads = _SB_THREADS.search(text)
    block = _SB_BLOCK.search(text)
    return MemBwRecord(
        tool="sysbench",
        tool_version=version.group(1) if version else None,
        operation=operation,
        bw_bytes=float(m.group(2)) * MIB,
        threads=int(threads.group(1)) if threads else None,
        block_bytes=parse_size(block.group(1)) if block else None,
        total_bytes=int(round(float(m.group(1)) * MIB)),
    )


# ---------------------------------------------------------------- mbw

# '<run or AVG>\tMethod: MEMCPY\tElapsed: 0.00343\tMiB: 64.00000\tCopy: 18686.131 MiB/s'
_MBW_LINE = re.compile(
    r"^(\d+|AVG)\s+Method:\s+(\w+)\s+Elapsed:\s+([0-9.]+)\s+MiB:\s+([0-9.]+)\s+"
    r"Copy:\s+([0-9.]+|inf) MiB/s",
    re.MULTILINE,
)
_MBW_BLOCK = re.compile(r"^Using (\d+) bytes as blocks for memcpy block copy test", re.MULTILINE)


@guard("mbw output")
def parse_mbw(text: str) -> list[MemBwRecord]:
    """One record per mbw method (MEMCPY, DUMB, MCBLOCK -> 'memcpy', 'dumb', 'mcblock').

    The AVG line is mbw's own average (array size over mean elapsed time). With `-a` mbw
    prints no AVG line; the same average is then the harmonic mean of the per-run rates.
    total_bytes is array size x runs; block_bytes is set for mcblock when mbw printed it
    (not with -q). mbw prints no version.
    """
    if "array size wrong" in text:
        raise ValueError("mbw rejected the array size")
    runs: dict[str, list[tuple[float, float]]] = {}
    avg: dict[str, float] = {}
    for run, method, _elapsed, mib, rate in _MBW_LINE.findall(text):
        name = method.lower()
        if rate == "inf":
            raise ValueError(f"mbw {method}: infinite rate (array too small to time)")
        if run == "AVG":
            avg[name] = float(rate)
        else:
            runs.setdefault(name, []).append((float(mib), float(rate)))
    if not runs and not avg:
        raise ValueError("no 'Method: ... Copy: ... MiB/s' lines: not mbw output")
    block = _MBW_BLOCK.search(text)
    records = []
    for name in dict.fromkeys([*runs, *avg]):
        per_run = runs.get(name, [])
        rate = avg.get(name)
        if rate is None:
            if not all(r > 0 for _, r in per_run):
                raise ValueError(f"mbw {name}: a run reported a zero rate")
            rate = len(per_run) / sum(1.0 / r for _, r in per_run)
        records.append(
            MemBwRecord(
                tool="mbw",
                operation=name,
                bw_bytes=rate * MIB,
                threads=1,
                block_bytes=int(block.group(1)) if block and name == "mcblock" else None,
                total_bytes=int(round(sum(mib for mib, _ in per_run) * MIB)) or None,
            )
        )
    return records


# ---------------------------------------------------------------- stress-ng --stream

_SNG_VERSION = re.compile(r"stress-ng,? (?:version )?(\d+\.\d+\.\d+)")  # --version, -v
_SNG_INSTANCE = re.compile(
    r"stream: memory rate: ([0-9.]+) MB read/sec, ([0-9.]+) MB write/sec.*\(instance (\d+)\)"
)
# Aggregate lines, 0.15: 'stream  12617.18 memory read rate (MB per sec) (geometic mean of
# 2 instances)'; later releases: 'stream  3288.47 MB per sec memory read rate (harmonic mean
# of 1 instance)'. Both are a per-instance mean, hence the instance count.
_SNG_MEAN = re.compile(
    r"stream\s+([0-9.]+) (?:memory (read|write) rate \(MB per sec\)|MB per sec memory "
    r"(read|write) rate) \((?:\w+ mean)(?: of (\d+) instances?)?\)"
)
_SNG_TOO_SHORT = re.compile(r"stream: run duration too short")
_SNG_CACHE = re.compile(r"stream: Using CPU cache size of (\d+)K")


def stress_ng_stream_too_short(text: str) -> bool:
    """stress-ng said its stream run was too short to give a rate (its arrays are sized by
    the CPU cache it found: a 300 MiB L3 needed more than 10 s here, 15 s was enough)."""
    return bool(_SNG_TOO_SHORT.search(text))


@guard("stress-ng stream output")
def parse_stress_ng_stream(text: str) -> list[MemBwRecord]:
    """A 'read' and a 'write' record: the whole machine's rate for `stress-ng --stream N`.

    Pass stderr (stress-ng logs everything there; stdout is empty). The per-instance
    'memory rate: R MB read/sec, W MB write/sec ... (instance i)' lines are summed, since the
    instances run at the same time; without them the mean in the 'miscellaneous metrics' is
    multiplied by its instance count. A run shorter than the stressor needs (about 5 s of
    its loops, longer with a large CPU cache) prints 'run duration too short' instead: that
    raises ValueError.
    """
    if stress_ng_stream_too_short(text):
        cache = _SNG_CACHE.search(text)
        sized = f" for its arrays sized by a {int(cache.group(1)) // 1024} MiB CPU cache" if cache else ""
        raise ValueError(
            f"stress-ng stream: run duration too short to determine memory rate{sized} "
            "(a longer run gives one)"
        )
    version = _SNG_VERSION.search(text)
    per_instance: dict[int, tuple[float, float]] = {}
    for rd, wr, inst in _SNG_INSTANCE.findall(text):
        per_instance[int(inst)] = (float(rd), float(wr))
    totals: dict[str, float] = {}
    if per_instance:
        threads: int | None = len(per_instance)
        totals["read"] = sum(rd for rd, _ in per_instance.values())
        totals["write"] = sum(wr for _, wr in per_instance.values())
    else:
        threads = None
        for value, old_dir, new_dir, count in _SNG_MEAN.findall(text):
            n = int(count) if count else 1
            threads = n
            totals[old_dir or new_dir] = float(value) * n
    if "read" not in totals or "write" not in totals:
        raise ValueError("no stress-ng stream memory rate lines (pass stderr, not stdout)")
    return [
        MemBwRecord(
            tool="stress-ng",
            tool_version=version.group(1) if version else None,
            operation=op,
            bw_bytes=totals[op] * MIB,
            threads=threads,
        )
        for op in ("read", "write")
    ]
