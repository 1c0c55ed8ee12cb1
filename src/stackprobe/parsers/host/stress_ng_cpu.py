"""stress-ng `--metrics-brief` output -> CpuRecords (bogo ops/s of each stressor).

Pass stderr: stress-ng logs everything there and leaves stdout empty. What stress-ng 0.15
writes, and what this parser does about it:

- The metrics table has one row per stressor: bogo ops, real time, usr time, sys time (s),
  bogo ops/s over real time and over usr+sys time. Real time is the mean over the workers,
  and bogo ops/s (real) is all workers' ops over it: the machine's rate. The printed rates
  are used, not recomputed, because real time is printed to 2 decimals only.
- Stressors such as matrix add 'miscellaneous metrics' rows under the table ('matrix
  912543.42 add matrix ops per sec (geometic mean ...)'); they are not stressor rows.
- A worker that dies still leaves a row, and a misleading one: with one of two workers
  killed, real time is halved and bogo ops/s comes out *higher* than a healthy run's. Only
  the 'fail:' lines and 'unsuccessful run completed' (exit code 2) say so, hence the run
  raises ValueError instead of returning figures.
- An unknown stressor is an unknown option to stress-ng ("unrecognized option '--nosuch'").
- Worker counts come from 'dispatching hogs: 2 cpu, 2 matrix'; the version from a
  'stress-ng 0.15.06' line (-v) or 'stress-ng, version 0.15.06' (--version), else None.
- --log-brief drops the 'stress-ng: metrc: [pid]' prefix, --metrics adds columns after the
  seven of --metrics-brief: both are read.
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import guard
from stackprobe.schema.records import CpuRecord

_PREFIX = r"^(?:stress-ng: \w+:\s+\[\d+\] )?"
_VERSION = re.compile(r"stress-ng,? (?:version )?(\d+\.\d+\.\d+)")
_DISPATCH = re.compile(_PREFIX + r"dispatching hogs: (.+)$", re.MULTILINE)
_HOG = re.compile(r"(\d+) ([\w-]+)")
_HEADER = re.compile(_PREFIX + r"stressor\s+bogo ops\s+real time", re.MULTILINE)
_NUM = r"([0-9]+(?:\.[0-9]+)?)"
_ROW = re.compile(
    _PREFIX + r"([a-z0-9][\w-]*)\s+(\d+)" + (r"\s+" + _NUM) * 5 + r"(?:\s+[0-9.]+)*\s*$",
    re.MULTILINE,
)
_UNKNOWN = re.compile(
    r"^(?:stress-ng: )?(?:unrecognized option .*|.*unknown stressor.*|Unknown class: .*)$",
    re.MULTILINE | re.IGNORECASE,
)
# a 'fail:' log line, or any line saying a worker was killed ('terminated on signal: 9 (Killed)')
_FAILED_LINE = re.compile(
    r"^(?:stress-ng: fail:\s+\[\d+\] .+|.*\bkilled\b.*)$", re.MULTILINE | re.IGNORECASE
)
_UNSUCCESSFUL = re.compile(r"unsuccessful run completed")
_LOG_PREFIX = re.compile(r"^stress-ng: (?:\w+:\s+\[\d+\] )?")


def _message(line: str) -> str:
    """The text of a log line, without stress-ng's 'stress-ng: level: [pid]' prefix, on one
    line (a '\r' inside it would start another)."""
    return " ".join(_LOG_PREFIX.sub("", line.strip()).split())


def _failure(text: str) -> str | None:
    """Why the run is not a measurement (a failed or killed worker), or None."""
    first = _FAILED_LINE.search(text)
    if first:
        return f"stress-ng run failed: {_message(first.group(0))}"
    if _UNSUCCESSFUL.search(text):
        return "stress-ng reported an unsuccessful run"
    return None


def _workers(text: str) -> dict[str, int]:
    """{stressor: workers} from 'dispatching hogs: 2 cpu, 2 matrix'."""
    m = _DISPATCH.search(text)
    if not m:
        return {}
    return {name: int(n) for n, name in _HOG.findall(m.group(1))}


@guard("stress-ng output")
def parse_stress_ng_cpu(text: str, *, host: str | None = None) -> list[CpuRecord]:
    """One CpuRecord per stressor row of a `stress-ng --<stressor> N --metrics-brief` run.

    Raises ValueError naming the cause for an unknown stressor, a failed or killed worker,
    and output without a metrics table.
    """
    unknown = _UNKNOWN.search(text)
    if unknown:
        raise ValueError(f"stress-ng: unknown stressor or option: {_message(unknown.group(0))}")
    failure = _failure(text)
    if failure:
        raise ValueError(failure)
    header = _HEADER.search(text)
    rows = _ROW.findall(text, header.end()) if header else []
    if not rows:
        raise ValueError("no stress-ng metrics lines (run with --metrics-brief, pass stderr)")
    version = _VERSION.search(text)
    workers = _workers(text)
    return [
        CpuRecord(
            tool_version=version.group(1) if version else None,
            stressor=name,
            workers=workers.get(name),
            bogo_ops=int(ops),
            seconds=float(real),
            bogo_ops_per_s=float(per_real),
            bogo_ops_per_cpu_s=float(per_cpu) if float(usr) + float(sys_) > 0 else None,
            host=host,
        )
        for name, ops, real, usr, sys_, per_real, per_cpu in rows
    ]
