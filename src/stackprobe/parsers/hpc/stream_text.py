"""STREAM text output -> StreamRecord: stream.c 5.x (5.10 and the older 'Rate (MB/s)' table),
serial or OpenMP, alone or inside a log that wraps it (build lines, Slurm job epilogues,
several runs one after another). One record per run that printed its table.

What stream.c prints, and the choices made (checked on tests/fixtures/public/stream):

- A run opens with "STREAM version $Revision: 5.10 $"; text before the first banner and
  between runs (make, compiler lines, the scheduler's job report) is not STREAM's. A file
  with the table but no banner is read as one run.
- Sizes: "This system uses N bytes per array element" (older: "per DOUBLE PRECISION word"),
  "Array size = N (elements), Offset = M (elements)", "Each kernel will be executed N
  times" (older: "Each test is run N times"). OpenMP builds print "Number of Threads
  requested" and "Number of Threads counted" (the MPI variant adds "for each MPI rank" /
  "for rank 0"); a serial build prints neither, and `threads` stays None.
- The table "Function  Best Rate MB/s  Avg time  Min time  Max time" (older "Rate (MB/s)"):
  one line per kernel, the best rate in MB/s where stream.c's MB is 10^6 bytes (stored in
  bytes/s, scaled once from the printed decimal), and times in seconds.
- The check after the table: "Solution Validates..." (validated), or one "Failed
  Validation on array ..." line per array that failed (validated False). A run whose file
  ends before either has validated None. Only a validated run's rates are results
  (`best_bw_bytes`); the others keep them as `untrusted_bw_bytes`.
- A run cut before its table measured nothing and gives no record; a figure printed as nan,
  inf or a negative number gives none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from stackprobe.parsers.bad_input import guard
from stackprobe.parsers.hpc.hpl_out import NUM, rate_or_none
from stackprobe.schema.hpc_records import StreamKernel, StreamRecord

_BANNER = re.compile(r"STREAM version \$Revision:\s*([\w.]+)\s*\$")
_TABLE = re.compile(r"^\s*Function\s+(?:Best Rate MB/s|Rate \(MB/s\))\s+Avg time\s+Min time\s+Max time")
_KERNEL = re.compile(rf"^\s*(Copy|Scale|Add|Triad):\s+({NUM})\s+({NUM})\s+({NUM})\s+({NUM})\s*$")
_BYTES = re.compile(r"^\s*This system uses (\d{1,4}) bytes per (?:array element|DOUBLE PRECISION word)")
_ARRAY = re.compile(r"^\s*Array size = (\d{1,20})(?: \(elements\))?, Offset = (\d{1,20})")
_NTIMES = re.compile(r"^\s*Each (?:kernel will be executed|test is run) (\d{1,9}) times")
_REQUESTED = re.compile(r"^\s*Number of Threads requested(?: for each MPI rank)? = (\d{1,9})\s*$")
_COUNTED = re.compile(r"^\s*Number of Threads counted(?: for rank 0)? = (\d{1,9})\s*$")
_VALIDATES = re.compile(r"^\s*Solution Validates")
_FAILED = re.compile(r"^\s*Failed Validation on array")
_DETECT = re.compile(r"STREAM version \$Revision:|^\s*Function\s+(?:Best Rate MB/s|Rate \(MB/s\))\s+Avg time",
                     re.MULTILINE)


@dataclass
class _Run:
    version: str | None
    sizes: dict[str, int] = field(default_factory=dict)
    table: bool = False
    kernels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    validated: bool | None = None
    validation: str | None = None


def looks_like_stream(text: str) -> bool:
    """True when `text` holds STREAM's banner or its result table header."""
    return bool(_DETECT.search(text))


@guard("STREAM output")
def parse_stream(text: str) -> list[StreamRecord]:
    """StreamRecords of every STREAM run in `text` that printed its table (see the module
    doc); ValueError when none did."""
    runs = [r for r in _runs(text.splitlines()) if r.kernels]
    if not runs:
        raise ValueError("STREAM output: no result table found (looked for 'Function  Best Rate "
                         "MB/s ...' and its Copy/Scale/Add/Triad lines; the file may end before them)")
    return [_record(index, run) for index, run in enumerate(runs)]


def _runs(lines: list[str]) -> list[_Run]:
    runs: list[_Run] = []
    current: _Run | None = None
    for line in lines:
        if m := _BANNER.search(line):
            current = _Run(m.group(1))
            runs.append(current)
            continue
        if current is None:
            if not _TABLE.match(line):
                continue
            current = _Run(None)  # a table without a banner: one run
            runs.append(current)
        _read(current, line)
    return runs


def _read(run: _Run, line: str) -> None:
    if _TABLE.match(line):
        run.table = True
    elif run.table and (m := _KERNEL.match(line)):
        run.kernels.setdefault(m.group(1).lower(), m.group(2, 3, 4, 5))
    elif run.table and run.kernels and run.validated is None and _VALIDATES.match(line):
        run.validated, run.validation = True, line.strip()
    elif run.table and run.kernels and _FAILED.match(line):
        if run.validated is not False:
            run.validation = line.strip()
        run.validated = False
    else:
        for key, pattern in (("bytes", _BYTES), ("ntimes", _NTIMES), ("requested", _REQUESTED),
                             ("counted", _COUNTED)):
            if m := pattern.match(line):
                run.sizes.setdefault(key, int(m.group(1)))
        if m := _ARRAY.match(line):
            run.sizes.setdefault("array", int(m.group(1)))
            run.sizes.setdefault("offset", int(m.group(2)))


def _record(index: int, run: _Run) -> StreamRecord:
    kernels = {}
    for name, (rate, avg, low, high) in run.kernels.items():
        bw = rate_or_none(rate, 6)
        kernels[name] = StreamKernel(
            best_bw_bytes=bw if run.validated else None,
            untrusted_bw_bytes=None if run.validated else bw,
            avg_time_s=rate_or_none(avg), min_time_s=rate_or_none(low), max_time_s=rate_or_none(high))
    sizes = run.sizes
    return StreamRecord(
        tool_version=run.version, run=index, array_elements=sizes.get("array"),
        offset_elements=sizes.get("offset"), bytes_per_element=sizes.get("bytes"),
        ntimes=sizes.get("ntimes"), threads=sizes.get("counted", sizes.get("requested")),
        threads_requested=sizes.get("requested"), kernels=kernels, validated=run.validated,
        validation=run.validation)
